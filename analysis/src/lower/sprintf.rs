//! `sprintf(buf, "literal format", ...)` with printf's simple conversions, lowered to
//! calls of the C library model's pieces (`__agx_put_str`, `__agx_put_signed`,
//! `__agx_put_unsigned`): each writes its text at the current end of `buf` and returns
//! the new end; a NUL closes the string and the result is its length, as C's. Other
//! formats (flags, width, precision, floating point, a format that is not a literal) go
//! to the model's run-time formatter (`format.c`), as do those of snprintf.

use super::builtins::parse_format;
use super::expr::Val;
use super::func::FnBuilder;
use super::types::{CType, IntType};
use super::LResult;
use crate::frontend::libc::{star_width, RUNTIME_FORMAT};
use crate::ir::*;
use lang_c::ast::*;
use lang_c::span::Node;

impl FnBuilder<'_, '_> {
    pub(super) fn sprintf(&mut self, c: &Node<CallExpression>) -> LResult<Val> {
        let args = &c.node.arguments;
        let runtime = self.l.unit.linked.contains(RUNTIME_FORMAT);
        let Some(Expression::StringLiteral(s)) = args.get(1).map(|a| &a.node) else {
            if runtime && args.len() >= 2 {
                return self.runtime_sprintf(c);
            }
            return self
                .l
                .unsupported(c.span, "sprintf with a non-literal format");
        };
        let text = self.literal_text(s)?;
        let parsed = parse_format(&text, self.l.dm);
        if parsed.is_none() && !star_width(&text) {
            return self.l.unsupported(
                s.span,
                format!("sprintf format {text:?} (no %a, %n, %p, L or wide characters)"),
            );
        }
        if let Some(f) = &parsed {
            let convs = f
                .iter()
                .filter(|p| matches!(p, FormatPiece::Conv { .. }))
                .count();
            if convs != args.len() - 2 {
                return self.l.invalid(
                    c.span,
                    format!(
                        "sprintf format has {convs} conversions, {} arguments given",
                        args.len() - 2
                    ),
                );
            }
        }
        // Integers and strings without flags, width or precision: the model's pieces.
        let plain = parsed.filter(|f| {
            !f.iter().any(|p| match p {
                FormatPiece::Conv { conv, arg, spec } => {
                    *conv == 'p' || matches!(arg, Scalar::Float { .. }) || !spec.is_plain()
                }
                FormatPiece::Text(_) => false,
            })
        });
        let Some(format) = plain else {
            if runtime {
                return self.runtime_sprintf(c);
            }
            return self.l.unsupported(
                s.span,
                format!("sprintf format {text:?} (only %d %i %u %x %X %o %s %c with l/ll/h/z; no flags, width, precision or floating point)"),
            );
        };
        let char_ptr = CType::ptr_to(CType::Int(IntType::CHAR));
        let b = self.rvalue(&args[0])?;
        let buf = self.convert(b, &char_ptr, args[0].span)?;
        let mut end = buf.clone();
        let mut values = args[2..].iter();
        for piece in format {
            let (conv, arg) = match piece {
                FormatPiece::Text(t) => {
                    let mut bytes = t.into_bytes();
                    bytes.push(0);
                    let span = self.span;
                    let obj = self.l.string_object(bytes, span);
                    let lit = Operand::Addr { obj, offset: 0 };
                    end = self.put_str(end, lit);
                    continue;
                }
                FormatPiece::Conv { conv, arg, .. } => (conv, arg),
            };
            let a = values.next().expect("as many arguments as conversions");
            let v = self.rvalue(a)?;
            let ty = match arg {
                Scalar::Ptr => match v.ty {
                    CType::Ptr(_) => v.ty.clone(),
                    _ => return self.l.invalid(a.span, "sprintf %s with a non-pointer"),
                },
                Scalar::Int { bits, signed } => CType::Int(IntType::new(bits, signed)),
                Scalar::Float { bits } => CType::Float(bits),
            };
            let op = self.convert(v.clone(), &ty, a.span)?;
            let v = Val { op, ty };
            self.at(c.span);
            end = match conv {
                's' => self.put_str(end, v.op),
                'c' => {
                    let ch = self.convert(v, &CType::Int(IntType::CHAR), a.span)?;
                    self.emit(StmtKind::Store {
                        addr: end.clone(),
                        value: ch,
                        ty: Scalar::I8,
                    });
                    self.step(end, 1)
                }
                'd' | 'i' => {
                    let ll = CType::Int(IntType::new(64, true));
                    let wide = self.convert(v, &ll, a.span)?;
                    self.call_model(
                        "__agx_put_signed",
                        char_ptr.clone(),
                        vec![char_ptr.clone(), ll],
                        vec![end, wide],
                    )
                }
                _ => {
                    let ull = CType::Int(IntType::new(64, false));
                    let wide = self.convert(v, &ull, a.span)?;
                    let base = match conv {
                        'o' => 8,
                        'x' | 'X' => 16,
                        _ => 10,
                    };
                    self.call_model(
                        "__agx_put_unsigned",
                        char_ptr.clone(),
                        vec![char_ptr.clone(), ull, CType::int(), CType::int()],
                        vec![
                            end,
                            wide,
                            Operand::int(base, Scalar::I32),
                            Operand::int(i128::from(conv == 'X'), Scalar::I32),
                        ],
                    )
                }
            };
        }
        self.at(c.span);
        self.emit(StmtKind::Store {
            addr: end.clone(),
            value: Operand::int(0, Scalar::I8),
            ty: Scalar::I8,
        });
        let len = self.assign_tmp(
            Scalar::Int {
                bits: self.l.dm.pointer_bits(),
                signed: true,
            },
            Rvalue::PtrDiff {
                lhs: end,
                rhs: buf,
                scale: 1,
            },
        );
        let len = Val {
            op: len,
            ty: self.l.layout().long(true),
        };
        let op = self.convert(len, &CType::int(), c.span)?;
        Ok(Val {
            op,
            ty: CType::int(),
        })
    }

    /// `sprintf(buf, fmt, ...)` with a format the pieces do not cover: the arguments go
    /// to a variadic area, and the C library model's `__agx_vsnprintf` interprets the
    /// format at run time (`format.c`), with no size limit as sprintf has none.
    fn runtime_sprintf(&mut self, c: &Node<CallExpression>) -> LResult<Val> {
        let args = &c.node.arguments;
        let char_ptr = CType::ptr_to(CType::Int(IntType::CHAR));
        let b = self.rvalue(&args[0])?;
        let buf = self.convert(b, &char_ptr, args[0].span)?;
        let f = self.rvalue(&args[1])?;
        let format = self.convert(f, &char_ptr, args[1].span)?;
        let area = self.variadic_area(&args[2..])?;
        let size_t = self.l.layout().size_t();
        let unlimited = Operand::int(-1, size_t.scalar().expect("size_t"));
        self.at(c.span);
        let op = self.call_model(
            "__agx_vsnprintf",
            CType::int(),
            vec![
                char_ptr.clone(),
                size_t,
                char_ptr,
                CType::ptr_to(CType::Void),
            ],
            vec![buf, unlimited, format, area],
        );
        Ok(Val {
            op,
            ty: CType::int(),
        })
    }

    fn put_str(&mut self, end: Operand, s: Operand) -> Operand {
        let char_ptr = CType::ptr_to(CType::Int(IntType::CHAR));
        self.call_model(
            "__agx_put_str",
            char_ptr.clone(),
            vec![char_ptr.clone(), char_ptr],
            vec![end, s],
        )
    }

    fn step(&mut self, p: Operand, n: i128) -> Operand {
        let st = self.l.layout().size_t().scalar().expect("size_t");
        self.assign_tmp(
            Scalar::Ptr,
            Rvalue::PtrAdd {
                base: p,
                index: Operand::int(n, st),
                index_ty: st,
                scale: 1,
            },
        )
    }
}
