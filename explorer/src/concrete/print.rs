//! `printf`: formats the IR's [`FormatPiece`]s into the run's output.

use super::machine::{Flow, Machine};
use super::outcome::ThreadId;
use super::value::Value;
use analysis::ir::{sign_extend, truncate, FormatPiece, Operand, Scalar};
use std::io::Write;

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
                FormatPiece::Conv { conv, arg: ty } => {
                    let Some(arg) = args.next() else {
                        return Err(
                            self.unsupported("printf with fewer arguments than conversions")
                        );
                    };
                    let v = self.eval(t, arg);
                    self.convert(*conv, *ty, v, &mut out)?;
                }
            }
        }
        self.output.extend_from_slice(&out);
        Ok(out.len() as u64)
    }

    /// Appends one conversion of `v` (of type `ty`) to `out`.
    fn convert(&mut self, conv: char, ty: Scalar, v: Value, out: &mut Vec<u8>) -> Flow {
        let bits = ty.bits(self.dm);
        match (conv, v) {
            ('s', ptr) => return self.read_string(ptr, out),
            ('p', Value::Int(0)) => out.extend_from_slice(b"(nil)"),
            ('p', Value::Int(addr)) => write_bytes(out, format_args!("{addr:#x}")),
            ('p', Value::Ptr { obj, offset }) => {
                let place = self.mem.describe(obj).replace('`', "");
                write_bytes(out, format_args!("<{place}+{offset}>"));
            }
            ('p', Value::Func(f)) => write_bytes(out, format_args!("<{}>", self.func_name(f))),
            ('d' | 'i', Value::Int(b)) => {
                write_bytes(out, format_args!("{}", sign_extend(b, bits)))
            }
            ('u', Value::Int(b)) => write_bytes(out, format_args!("{}", truncate(b, bits))),
            ('x', Value::Int(b)) => write_bytes(out, format_args!("{:x}", truncate(b, bits))),
            ('X', Value::Int(b)) => write_bytes(out, format_args!("{:X}", truncate(b, bits))),
            ('c', Value::Int(b)) => out.push(b as u8),
            ('d' | 'i' | 'u' | 'x' | 'X' | 'c', _) => {
                return Err(self.unsupported(format!("printf `%{conv}` of a pointer")));
            }
            (other, _) => return Err(self.unsupported(format!("printf conversion `%{other}`"))),
        }
        Ok(())
    }

    /// `%s`: the bytes at `ptr` up to the first NUL, read cell by cell with every memory
    /// check (these reads are not scheduling points: `printf` is one local statement).
    fn read_string(&mut self, ptr: Value, out: &mut Vec<u8>) -> Flow {
        let mut at = ptr;
        loop {
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

fn write_bytes(out: &mut Vec<u8>, args: std::fmt::Arguments<'_>) {
    // Writing to a Vec cannot fail.
    let _ = out.write_fmt(args);
}
