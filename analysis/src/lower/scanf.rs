//! `sscanf`, `fscanf` and `scanf` with a string-literal format, as inputs.
//!
//! agx does not read the input text: the string given to `sscanf` (and the stream of
//! `fscanf`/`scanf`) is treated as *arbitrary*, which over-approximates every input the
//! program could see. Nor are its characters loaded: the call has no read events on the
//! string, so it takes part in no race and a NULL or dangling string is not reported as a
//! memory error; which assertions are reachable does not depend on those reads, since
//! the values read are arbitrary anyway. The string argument itself is still evaluated,
//! as C requires. For a format with `n` assigning conversions of types
//! `T_0 .. T_{n-1}` (the C11 7.21.6.2 rules; `%*d` assigns nothing) the call becomes
//!
//! ```text
//! r = nondet i32;  assume(r >= -1);  assume(r <= n)        // EOF, or 0..n conversions
//! for i in 0..n:  if r > i { v_i = nondet T_i;  *p_i = v_i }  // the first r pointers
//! ```
//!
//! so every result and every value of every assigned object that some input text could
//! produce is a reachable outcome (a conversion may also yield values no text produces,
//! e.g. a `%3d` above 999: a sound superset). The inputs come in execution order: `r`
//! first, then the assigned values, which is how witnesses list them.
//!
//! Conversions that write an unknown amount of memory (`%s`, `%[`, `%c` with a width
//! above 1, `%ms`), write a pointer (`%p`), a float (`%f`...), or the count of characters
//! read (`%n`) are rejected as unsupported, as is a non-literal format. Suppressed ones
//! (`%*s`) write nothing and are accepted.

use super::builtins::int_length_bits;
use super::expr::Val;
use super::func::FnBuilder;
use super::types::CType;
use super::LResult;
use crate::ir::*;
use lang_c::ast::*;
use lang_c::span::Node;

/// The C value of `EOF`.
const EOF: i128 = -1;

/// Parses a scanf format: the scalar type each assigning conversion writes, in order;
/// `Err` names the first conversion agx does not model.
pub(crate) fn parse_scan_format(text: &str, dm: DataModel) -> Result<Vec<Scalar>, String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch != '%' {
            continue;
        }
        let suppressed = chars.next_if_eq(&'*').is_some();
        let mut width = String::new();
        while let Some(d) = chars.next_if(char::is_ascii_digit) {
            width.push(d);
        }
        let mut len = String::new();
        while let Some(m) =
            chars.next_if(|m| matches!(m, 'h' | 'l' | 'j' | 'z' | 't' | 'L' | 'q' | 'm'))
        {
            len.push(m);
        }
        let Some(conv) = chars.next() else {
            return Err("a format ending in `%`".into());
        };
        let spec = format!("%{}{width}{len}{conv}", if suppressed { "*" } else { "" });
        if conv == '%' {
            continue;
        }
        if conv == '[' {
            skip_scanset(&mut chars).ok_or_else(|| format!("unterminated `{spec}`"))?;
        }
        if conv == 'n' {
            return Err(format!("`{spec}` (count of characters read)"));
        }
        if len.contains('m') {
            return Err(format!("`{spec}` (allocating conversion)"));
        }
        let ty =
            conversion_type(conv, &len, &width, dm).map_err(|why| format!("`{spec}` ({why})"))?;
        if !suppressed {
            out.push(ty.map_err(|why| format!("`{spec}` ({why})"))?);
        }
    }
    Ok(out)
}

/// The type a conversion writes: `Ok(Ok(ty))` for one agx models, `Ok(Err(why))` for one
/// it accepts only when suppressed (`%*s`), `Err(why)` for an invalid one.
#[allow(clippy::type_complexity)]
fn conversion_type(
    conv: char,
    len: &str,
    width: &str,
    dm: DataModel,
) -> Result<Result<Scalar, String>, String> {
    Ok(match conv {
        'd' | 'i' | 'u' | 'o' | 'x' | 'X' => {
            let bits = int_length_bits(len, dm).ok_or("unknown length modifier")?;
            let signed = matches!(conv, 'd' | 'i');
            Ok(Scalar::Int { bits, signed })
        }
        'c' if !len.is_empty() => Err("a wide character".into()),
        'c' if width.is_empty() || width == "1" => Ok(Scalar::I8),
        'c' => Err("several characters written through one pointer".into()),
        's' | '[' => Err("a string of unknown length written to memory".into()),
        'p' => Err("a pointer read from the input".into()),
        'a' | 'A' | 'e' | 'E' | 'f' | 'F' | 'g' | 'G' => Err("floating point".into()),
        _ => return Err("unknown conversion".into()),
    })
}

/// Skips the scanset of `%[...]` up to its closing `]` (a `]` right after `[` or `[^` is
/// a member, not the end); `None` if it never closes.
fn skip_scanset(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<()> {
    chars.next_if_eq(&'^');
    chars.next_if_eq(&']');
    chars.find(|&c| c == ']').map(|_| ())
}

impl FnBuilder<'_, '_> {
    /// `sscanf(s, fmt, ...)` / `fscanf(stream, fmt, ...)` (`skip` = 1) or `scanf(fmt, ...)`
    /// (`skip` = 0): see the module documentation.
    pub fn scanf(&mut self, name: &str, c: &Node<CallExpression>, skip: usize) -> LResult<Val> {
        let args = &c.node.arguments;
        if args.len() <= skip {
            return self.l.invalid(c.span, format!("`{name}` without a format"));
        }
        // The input string or stream is evaluated (C evaluates every argument) and ignored.
        for a in &args[..skip] {
            self.discard(a)?;
        }
        let fmt = &args[skip];
        let Expression::StringLiteral(s) = &fmt.node else {
            return self
                .l
                .unsupported(fmt.span, format!("`{name}` with a non-literal format"));
        };
        let text = self.literal_text(s)?;
        let types = match parse_scan_format(&text, self.l.dm) {
            Ok(t) => t,
            Err(why) => {
                return self
                    .l
                    .unsupported(fmt.span, format!("`{name}` conversion {why}"))
            }
        };
        let pointers = &args[skip + 1..];
        if pointers.len() < types.len() {
            return self.l.invalid(
                c.span,
                format!(
                    "`{name}` format has {} assigning conversions, {} pointers given",
                    types.len(),
                    pointers.len()
                ),
            );
        }
        let mut targets = Vec::new();
        for (i, a) in pointers.iter().enumerate() {
            let v = self.rvalue(a)?;
            // Arguments beyond the format's conversions are evaluated and ignored (C11).
            if let Some(&ty) = types.get(i) {
                targets.push(self.scan_target(name, v, ty, a)?);
            }
        }
        self.at(c.span);
        let result = self.scan_result(types.len());
        self.scan_assignments(result, &targets);
        Ok(Val {
            op: Operand::Reg(result),
            ty: CType::int(),
        })
    }

    /// The address a conversion of type `ty` writes to, checked against the pointee type,
    /// and the scalar type of the store (the pointee's, of the same width as `ty`).
    fn scan_target(
        &mut self,
        name: &str,
        v: Val,
        ty: Scalar,
        a: &Node<Expression>,
    ) -> LResult<(Operand, Scalar)> {
        let pointee = match &v.ty {
            CType::Ptr(p) => p.as_ref(),
            _ => {
                return self
                    .l
                    .invalid(a.span, format!("`{name}` argument is not a pointer"))
            }
        };
        // A `_Bool` holds only 0 or 1, which an input of its width would not respect.
        let is_bool = matches!(pointee, CType::Int(it) if it.is_bool);
        match pointee.scalar() {
            Some(s @ Scalar::Int { bits, .. })
                if pointee.is_integer() && !is_bool && bits == ty.bits(self.l.dm) =>
            {
                Ok((v.op, s))
            }
            _ => {
                let shown = self.l.type_name(pointee);
                self.l.unsupported(
                    a.span,
                    format!("`{name}` conversion of type {ty} written to a `{shown}`"),
                )
            }
        }
    }

    /// `r = nondet; assume(-1 <= r <= n)`: the number of assigned conversions, or EOF.
    fn scan_result(&mut self, n: usize) -> RegId {
        let r = self.new_reg(None, Scalar::I32);
        self.emit(StmtKind::Nondet {
            dst: r,
            ty: Scalar::I32,
        });
        for (op, bound) in [(BinOp::Ge, EOF), (BinOp::Le, n as i128)] {
            let cond = self.assign_tmp(
                Scalar::I32,
                Rvalue::Binary {
                    op,
                    ty: Scalar::I32,
                    lhs: Operand::Reg(r),
                    rhs: Operand::int(bound, Scalar::I32),
                },
            );
            self.emit(StmtKind::Assume { cond });
        }
        r
    }

    /// For each target `i` in order: if `r > i`, store a fresh input of its type.
    fn scan_assignments(&mut self, result: RegId, targets: &[(Operand, Scalar)]) {
        let done = self.new_block();
        for (i, (addr, store_ty)) in targets.iter().enumerate() {
            let assigned = self.assign_tmp(
                Scalar::I32,
                Rvalue::Binary {
                    op: BinOp::Gt,
                    ty: Scalar::I32,
                    lhs: Operand::Reg(result),
                    rhs: Operand::int(i as i128, Scalar::I32),
                },
            );
            let store = self.new_block();
            self.branch(assigned, store, done);
            self.switch_to(store);
            let v = self.new_reg(None, *store_ty);
            self.emit(StmtKind::Nondet {
                dst: v,
                ty: *store_ty,
            });
            self.emit(StmtKind::Store {
                addr: addr.clone(),
                value: Operand::Reg(v),
                ty: *store_ty,
            });
        }
        self.goto_and_switch(done);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types(f: &str) -> Result<Vec<Scalar>, String> {
        parse_scan_format(f, DataModel::Ilp32)
    }

    #[test]
    fn integer_conversions_take_their_length_modifier() {
        let i16 = Scalar::Int {
            bits: 16,
            signed: true,
        };
        assert_eq!(
            types("%d %i%u,%x %o %hd %hhu %ld %llx %c").unwrap(),
            vec![
                Scalar::I32,
                Scalar::I32,
                Scalar::U32,
                Scalar::U32,
                Scalar::U32,
                i16,
                Scalar::U8,
                Scalar::I32,
                Scalar::U64,
                Scalar::I8,
            ]
        );
        assert_eq!(
            parse_scan_format("%ld %zu", DataModel::Lp64).unwrap(),
            vec![Scalar::I64, Scalar::U64]
        );
    }

    #[test]
    fn suppressed_conversions_and_literals_assign_nothing() {
        assert_eq!(
            types("x=%*d %% %*s %*[^]a] %5d %*f %1c").unwrap(),
            vec![Scalar::I32, Scalar::I8]
        );
        assert_eq!(types("no conversions").unwrap(), vec![]);
    }

    #[test]
    fn unmodelled_conversions_are_named() {
        for (f, what) in [
            ("%s", "%s"),
            ("%[abc]", "%["),
            ("%d%n", "%n"),
            ("%*n", "%*n"),
            ("%3c", "%3c"),
            ("%p", "%p"),
            ("%f", "floating point"),
            ("%ms", "allocating"),
            ("%lc", "wide"),
            ("%y", "unknown conversion"),
            ("%d%", "ending in `%`"),
            ("%[abc", "unterminated"),
        ] {
            let err = types(f).expect_err(f);
            assert!(err.contains(what), "{f}: {err}");
        }
    }
}
