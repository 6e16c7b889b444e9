//! Floating-point operators and conversions: C's usual arithmetic conversions to the wider
//! float type, `+ - * /`, comparisons, unary `-`, and casts between integers and floats.

use super::Val;
use crate::ir::*;
use crate::lower::func::FnBuilder;
use crate::lower::types::{CType, IntType};
use crate::lower::LResult;
use lang_c::span::Span as AstSpan;

impl FnBuilder<'_, '_> {
    /// `l op r` where at least one operand is a float: both are converted to the wider
    /// float type (an integer operand to the float's type), as C's usual conversions do.
    pub(super) fn float_arith(&mut self, op: BinOp, l: Val, r: Val, span: AstSpan) -> LResult<Val> {
        let width = match (&l.ty, &r.ty) {
            (CType::Float(a), CType::Float(b)) => *a.max(b),
            (CType::Float(w), CType::Int(_)) | (CType::Int(_), CType::Float(w)) => *w,
            _ => {
                return self.l.invalid(
                    span,
                    format!(
                        "invalid operands to `{}`: {} and {}",
                        op.symbol(),
                        self.l.type_name(&l.ty),
                        self.l.type_name(&r.ty)
                    ),
                )
            }
        };
        if !matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div) && !op.is_comparison() {
            return self.l.invalid(
                span,
                format!("invalid operands to `{}`: floating point", op.symbol()),
            );
        }
        if width == 128 {
            return self.l.unsupported(span, "`long double` arithmetic");
        }
        let ty = CType::Float(width);
        let lo = self.convert(l, &ty, span)?;
        let ro = self.convert(r, &ty, span)?;
        Ok(self.int_binop(op, ty, lo, ro))
    }

    /// `+v` or `-v` for a float `v` (negation flips the sign bit, as gcc's `xorpd`).
    pub(super) fn float_sign(&mut self, v: Val, minus: bool, span: AstSpan) -> LResult<Val> {
        let Some(s) = v.ty.scalar() else {
            return self.l.unsupported(span, "`long double` arithmetic");
        };
        if !minus {
            return Ok(v);
        }
        let op = match v.op {
            Operand::Int { bits, ty } => Operand::Int {
                bits: float::neg(s.bits(self.l.dm), bits),
                ty,
            },
            op => self.assign_tmp(
                s,
                Rvalue::Unary {
                    op: UnOp::Neg,
                    ty: s,
                    arg: op,
                },
            ),
        };
        Ok(Val { op, ty: v.ty })
    }

    /// A conversion from or to a float type. Float to integer truncates toward zero (an
    /// out-of-range value is undefined behaviour, which the engines report); to `_Bool`
    /// it is `v != 0`. Constants are folded with the engines' semantics.
    pub(super) fn float_convert(&mut self, v: Val, to: &CType, span: AstSpan) -> LResult<Operand> {
        let (Some(from), Some(target)) = (v.ty.scalar(), to.scalar()) else {
            return match (&v.ty, to) {
                (_, CType::Void) => Ok(v.op),
                (CType::Float(128), _) | (_, CType::Float(128)) => {
                    self.l.unsupported(span, "`long double` conversion")
                }
                _ => self.l.invalid(
                    span,
                    format!(
                        "conversion from {} to {}",
                        self.l.type_name(&v.ty),
                        self.l.type_name(to)
                    ),
                ),
            };
        };
        if let CType::Int(it) = to {
            if it.is_bool {
                let t = self.truth(v, span)?;
                return Ok(self.int_cast(t, Scalar::I32, Scalar::U8));
            }
        }
        if from == target {
            return Ok(v.op);
        }
        if matches!(from, Scalar::Ptr) || matches!(target, Scalar::Ptr) {
            return self.l.invalid(
                span,
                "conversion between a pointer and a floating-point type",
            );
        }
        if let Some(folded) = fold_cast(&v.op, from, target) {
            return Ok(folded);
        }
        Ok(self.assign_tmp(
            target,
            Rvalue::Cast {
                from,
                to: target,
                arg: v.op,
            },
        ))
    }
}

/// A conversion of a constant, when it is defined (an out-of-range float-to-integer
/// conversion is left to run time, where it is reported).
fn fold_cast(op: &Operand, from: Scalar, to: Scalar) -> Option<Operand> {
    let Operand::Int { bits, .. } = op else {
        return None;
    };
    let bits = match (from, to) {
        (Scalar::Float { bits: f }, Scalar::Float { bits: t }) => float::resize(f, t, *bits),
        (Scalar::Int { bits: b, signed }, Scalar::Float { bits: t }) => {
            let v = if signed {
                sign_extend(*bits, b) as u64
            } else {
                truncate(*bits, b)
            };
            float::from_int(v, signed, t)
        }
        (Scalar::Float { bits: f }, Scalar::Int { bits: b, signed }) => {
            float::to_int(f, *bits, b, signed)?
        }
        _ => return None,
    };
    Some(Operand::Int { bits, ty: to })
}

impl FnBuilder<'_, '_> {
    /// `fabs(x)`, `fabsf(x)`, `sqrt(x)`, `sqrtf(x)`: exact in IEEE (a sign-bit clear, the
    /// exactly rounded root), so both engines compute them; the argument is converted to
    /// the function's parameter type as a prototype would.
    pub(crate) fn float_math(
        &mut self,
        name: &str,
        c: &lang_c::span::Node<lang_c::ast::CallExpression>,
    ) -> LResult<Val> {
        let [arg] = c.node.arguments.as_slice() else {
            return self
                .l
                .invalid(c.span, format!("`{name}` takes one argument"));
        };
        let width = if name.ends_with('f') { 32 } else { 64 };
        let ty = CType::Float(width);
        let v = self.rvalue(arg)?;
        let x = self.convert(v, &ty, arg.span)?;
        let s = Scalar::Float { bits: width };
        let op = if name.starts_with("fabs") {
            UnOp::Abs
        } else {
            UnOp::Sqrt
        };
        self.at(c.span);
        let op = self.assign_tmp(s, Rvalue::Unary { op, ty: s, arg: x });
        Ok(Val { op, ty })
    }

    /// `__agx_double_bits(x)` (the C library model's, for printing doubles): the IEEE
    /// bits of `x` as an `unsigned long long`. Both engines hold a float as its bits, so
    /// this is a copy into an integer register.
    pub(crate) fn double_bits(
        &mut self,
        c: &lang_c::span::Node<lang_c::ast::CallExpression>,
    ) -> LResult<Val> {
        let [arg] = c.node.arguments.as_slice() else {
            return self
                .l
                .invalid(c.span, "`__agx_double_bits` takes one argument");
        };
        let v = self.rvalue(arg)?;
        let x = self.convert(v, &CType::Float(64), arg.span)?;
        let ty = CType::Int(IntType::new(64, false));
        self.at(c.span);
        let op = self.assign_tmp(ty.scalar().expect("an integer"), Rvalue::Use(x));
        Ok(Val { op, ty })
    }
}
