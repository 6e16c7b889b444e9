//! Casts: C's implicit and explicit conversions between scalar types, and truth values.

use super::Val;
use crate::ir::*;
use crate::lower::func::FnBuilder;
use crate::lower::types::CType;
use crate::lower::LResult;
use lang_c::span::Span as AstSpan;

impl FnBuilder<'_, '_> {
    /// Converts a value to a type, as assignment and casts do.
    pub fn convert(&mut self, v: Val, to: &CType, span: AstSpan) -> LResult<Operand> {
        if matches!(v.ty, CType::Float(_)) || matches!(to, CType::Float(_)) {
            return self.float_convert(v, to, span);
        }
        match to {
            CType::Int(it) if it.is_bool => {
                let t = self.truth(v, span)?;
                Ok(self.int_cast(t, Scalar::I32, Scalar::U8))
            }
            CType::Int(it) => {
                let target = Scalar::Int {
                    bits: it.bits,
                    signed: it.signed,
                };
                match v.ty.scalar() {
                    Some(from) => Ok(self.int_cast(v.op, from, target)),
                    None => self
                        .l
                        .invalid(span, "conversion of a non-scalar to an integer"),
                }
            }
            CType::Ptr(_) => match v.ty {
                CType::Ptr(_) => Ok(v.op),
                CType::Int(_) => match v.op {
                    Operand::Int { bits: 0, .. } => Ok(Operand::Null),
                    op => {
                        let from = v.ty.scalar().expect("int");
                        Ok(self.assign_tmp(
                            Scalar::Ptr,
                            Rvalue::Cast {
                                from,
                                to: Scalar::Ptr,
                                arg: op,
                            },
                        ))
                    }
                },
                _ => self
                    .l
                    .invalid(span, "conversion of a non-scalar to a pointer"),
            },
            CType::Void => Ok(v.op),
            CType::Struct(_) if v.ty == *to => Ok(v.op),
            _ => self
                .l
                .unsupported(span, format!("conversion to {}", self.l.type_name(to))),
        }
    }

    /// An integer (or pointer-to-integer) cast, folded for constants.
    pub(super) fn int_cast(&mut self, op: Operand, from: Scalar, to: Scalar) -> Operand {
        if from == to {
            return op;
        }
        if let (Operand::Int { bits, ty }, Scalar::Int { .. }) = (&op, to) {
            let v = if ty.is_signed() {
                i128::from(sign_extend(*bits, ty.bits(self.l.dm)))
            } else {
                i128::from(*bits)
            };
            return Operand::int(v, to);
        }
        if let (Operand::Null, Scalar::Int { .. }) = (&op, to) {
            return Operand::int(0, to);
        }
        self.assign_tmp(to, Rvalue::Cast { from, to, arg: op })
    }

    /// `v != 0` (or `v != null`) as an `int` operand.
    pub fn truth(&mut self, v: Val, span: AstSpan) -> LResult<Operand> {
        let (ty, zero) = match v.ty.scalar() {
            Some(Scalar::Ptr) => (Scalar::Ptr, Operand::Null),
            Some(s) => (s, Operand::int(0, s)),
            None => return self.l.invalid(span, "condition of a non-scalar type"),
        };
        Ok(self.assign_tmp(
            Scalar::I32,
            Rvalue::Binary {
                op: BinOp::Ne,
                ty,
                lhs: v.op,
                rhs: zero,
            },
        ))
    }
}
