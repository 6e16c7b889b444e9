//! `printf`: formats the IR's [`FormatPiece`]s into the run's output.

use super::machine::{Flow, Machine};
use super::outcome::ThreadId;
use super::value::Value;
use analysis::ir::printf::{self, ConvSpec};
use analysis::ir::{float, sign_extend, truncate, FormatPiece, Operand, Scalar};

impl<'p> Machine<'p> {
    /// Prints `format` with `args`; returns the number of bytes printed.
    pub(crate) fn print(
        &mut self,
        t: ThreadId,
        format: &[FormatPiece],
        args: &[Operand],
    ) -> Flow<u64> {
        let mut out = Vec::new();
        let mut args = args.iter();
        for piece in format {
            match piece {
                FormatPiece::Text(text) => out.extend_from_slice(text.as_bytes()),
                FormatPiece::Conv {
                    conv,
                    arg: ty,
                    spec,
                } => {
                    let Some(arg) = args.next() else {
                        return Err(
                            self.unsupported("printf with fewer arguments than conversions")
                        );
                    };
                    let v = self.eval(t, arg);
                    self.convert(*conv, *ty, spec, v, &mut out)?;
                }
            }
        }
        self.output.extend_from_slice(&out);
        Ok(out.len() as u64)
    }

    /// Appends one conversion of `v` (of type `ty`, with flags, width and precision
    /// `spec`) to `out`, as glibc writes it.
    fn convert(
        &mut self,
        conv: char,
        ty: Scalar,
        spec: &ConvSpec,
        v: Value,
        out: &mut Vec<u8>,
    ) -> Flow {
        let bits = ty.bits(self.dm);
        let written = match (conv, v) {
            ('s', ptr) => {
                let mut s = Vec::new();
                self.read_string(ptr, spec.precision, &mut s)?;
                printf::text(spec, &s)
            }
            // glibc's `%p` of an address is `%#lx`, zero padding included.
            ('p', Value::Int(addr)) if addr != 0 => {
                let hex = ConvSpec { alt: true, ..*spec };
                printf::integer(&hex, 'x', false, addr)
                    .expect("an integer conversion")
                    .into_bytes()
            }
            ('p', v) => printf::text(spec, self.pointer_text(v).as_bytes()),
            ('c', Value::Int(b)) => printf::text(spec, &[b as u8]),
            ('f' | 'F' | 'e' | 'E' | 'g' | 'G', Value::Int(b)) => {
                let x = float::to_f64(bits, b);
                printf::double(spec, conv, x)
                    .expect("a float conversion")
                    .into_bytes()
            }
            ('d' | 'i', Value::Int(b)) => {
                let v = sign_extend(b, bits);
                printf::integer(spec, conv, v < 0, v.unsigned_abs())
                    .expect("an integer conversion")
                    .into_bytes()
            }
            ('u' | 'x' | 'X' | 'o', Value::Int(b)) => {
                printf::integer(spec, conv, false, truncate(b, bits))
                    .expect("an integer conversion")
                    .into_bytes()
            }
            ('d' | 'i' | 'u' | 'x' | 'X' | 'o' | 'c', _) => {
                return Err(self.unsupported(format!("printf `%{conv}` of a pointer")));
            }
            (other, _) => return Err(self.unsupported(format!("printf conversion `%{other}`"))),
        };
        out.extend_from_slice(&written);
        Ok(())
    }

    /// What `%p` prints: `(nil)`, a hex address, or the object and offset agx knows.
    fn pointer_text(&self, v: Value) -> String {
        match v {
            Value::Int(0) => "(nil)".into(),
            Value::Int(addr) => format!("{addr:#x}"),
            Value::Ptr { obj, offset } => {
                let place = self.mem.describe(obj).replace('`', "");
                format!("<{place}+{offset}>")
            }
            Value::Func(f) => format!("<{}>", self.func_name(f)),
        }
    }

    /// `%s`: the bytes at `ptr` up to the first NUL (or `limit` bytes: glibc reads no
    /// further), read cell by cell with every memory check (these reads are not
    /// scheduling points: `printf` is one local statement).
    fn read_string(&mut self, ptr: Value, limit: Option<u32>, out: &mut Vec<u8>) -> Flow {
        let mut at = ptr;
        loop {
            if limit.is_some_and(|n| out.len() >= n as usize) {
                return Ok(());
            }
            match self.load(at, Scalar::I8)? {
                Value::Int(0) => return Ok(()),
                Value::Int(byte) => out.push(byte as u8),
                _ => return Err(self.unsupported("printf `%s` of memory holding a pointer")),
            }
            at = match at {
                Value::Ptr { obj, offset } => Value::Ptr {
                    obj,
                    offset: offset.wrapping_add(1),
                },
                other => other,
            };
        }
    }
}
