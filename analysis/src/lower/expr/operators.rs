//! Unary, binary, increment and assignment operators, and pointer arithmetic.

use super::{void, Place, Val};
use crate::ir::*;
use crate::lower::func::FnBuilder;
use crate::lower::types::{promote, usual_arith, CType};
use crate::lower::LResult;
use lang_c::ast::*;
use lang_c::span::{Node, Span as AstSpan};

impl FnBuilder<'_, '_> {
    pub(super) fn unary(
        &mut self,
        u: &Node<UnaryOperatorExpression>,
        whole: &Node<Expression>,
    ) -> LResult<Val> {
        use UnaryOperator as U;
        match u.node.operator.node {
            U::Address => {
                // `&*p` is `p`; `&f` is the function's address.
                if let Expression::UnaryOperator(inner) = &u.node.operand.node {
                    if inner.node.operator.node == U::Indirection {
                        let v = self.rvalue(&inner.node.operand)?;
                        return Ok(v);
                    }
                }
                let lv = self.lvalue(&u.node.operand)?;
                match lv.place {
                    Place::Mem(addr) => Ok(Val {
                        op: addr,
                        ty: CType::ptr_to(lv.ty),
                    }),
                    Place::Reg(_) => self.l.invalid(u.span, "address of a register variable"),
                }
            }
            U::Indirection => {
                let lv = self.lvalue(whole)?;
                self.load(lv, u.span)
            }
            U::Plus | U::Minus | U::Complement => {
                let v = self.rvalue(&u.node.operand)?;
                if let (CType::Float(_), false) = (&v.ty, u.node.operator.node == U::Complement) {
                    return self.float_sign(v, u.node.operator.node == U::Minus, u.span);
                }
                let CType::Int(it) = v.ty else {
                    return self.l.invalid(u.span, "arithmetic on a non-integer");
                };
                let ty = CType::Int(promote(it));
                let op = self.convert(v, &ty, u.span)?;
                if u.node.operator.node == U::Plus {
                    return Ok(Val { op, ty });
                }
                let s = ty.scalar().expect("int");
                let unop = if u.node.operator.node == U::Minus {
                    UnOp::Neg
                } else {
                    UnOp::Not
                };
                let op = self.assign_tmp(
                    s,
                    Rvalue::Unary {
                        op: unop,
                        ty: s,
                        arg: op,
                    },
                );
                Ok(Val { op, ty })
            }
            U::Negate => {
                let v = self.rvalue(&u.node.operand)?;
                let Some(s) = v.ty.scalar() else {
                    return self.l.invalid(u.span, "`!` on a non-scalar");
                };
                if s.is_float() {
                    // `!x` is `x == 0`, true for -0.0 too (its bits are not zero).
                    let zero = Operand::Int { bits: 0, ty: s };
                    return Ok(self.int_binop(BinOp::Eq, v.ty, v.op, zero));
                }
                let op = self.assign_tmp(
                    Scalar::I32,
                    Rvalue::Unary {
                        op: UnOp::LogicalNot,
                        ty: s,
                        arg: v.op,
                    },
                );
                Ok(Val {
                    op,
                    ty: CType::int(),
                })
            }
            U::PreIncrement | U::PreDecrement | U::PostIncrement | U::PostDecrement => {
                let inc = matches!(u.node.operator.node, U::PreIncrement | U::PostIncrement);
                let post = matches!(u.node.operator.node, U::PostIncrement | U::PostDecrement);
                self.increment(&u.node.operand, inc, post, u.span)
            }
        }
    }

    pub(super) fn increment(
        &mut self,
        target: &Node<Expression>,
        inc: bool,
        post: bool,
        span: AstSpan,
    ) -> LResult<Val> {
        let lv = self.lvalue(target)?;
        let mut old = self.load(lv.clone(), span)?;
        if let (true, Place::Reg(r)) = (post, &lv.place) {
            // The store below overwrites the register: keep the old value.
            let s = self.reg_ty(*r);
            old.op = self.assign_tmp(s, Rvalue::Use(Operand::Reg(*r)));
        }
        let one = Val {
            op: Operand::int(1, Scalar::I32),
            ty: CType::int(),
        };
        let op = if inc { BinOp::Add } else { BinOp::Sub };
        let new = self.arith(op, old.clone(), one, span)?;
        let stored = self.convert(new, &lv.ty, span)?;
        self.store(&lv, stored.clone());
        let op = if post { old.op } else { stored };
        Ok(Val { op, ty: lv.ty })
    }

    pub(super) fn binary(
        &mut self,
        b: &Node<BinaryOperatorExpression>,
        whole: &Node<Expression>,
    ) -> LResult<Val> {
        use BinaryOperator as B;
        let op = b.node.operator.node.clone();
        match op {
            B::Index => {
                let lv = self.lvalue(whole)?;
                self.load(lv, b.span)
            }
            B::LogicalAnd | B::LogicalOr => self.logical_value(whole),
            B::Assign => {
                if matches!(self.l.expr_type(&b.node.lhs)?, CType::Struct(_)) {
                    return self.struct_assign(b);
                }
                let v = self.rvalue(&b.node.rhs)?;
                let lv = self.lvalue(&b.node.lhs)?;
                let op = self.convert(v, &lv.ty, b.span)?;
                self.at(b.span);
                self.store(&lv, op.clone());
                Ok(Val { op, ty: lv.ty })
            }
            B::AssignMultiply
            | B::AssignDivide
            | B::AssignModulo
            | B::AssignPlus
            | B::AssignMinus
            | B::AssignShiftLeft
            | B::AssignShiftRight
            | B::AssignBitwiseAnd
            | B::AssignBitwiseXor
            | B::AssignBitwiseOr => {
                let lv = self.lvalue(&b.node.lhs)?;
                let old = self.load(lv.clone(), b.span)?;
                let rhs = self.rvalue(&b.node.rhs)?;
                let arith = compound_op(&op);
                let v = self.arith(arith, old, rhs, b.span)?;
                let op = self.convert(v, &lv.ty, b.span)?;
                self.at(b.span);
                self.store(&lv, op.clone());
                Ok(Val { op, ty: lv.ty })
            }
            _ => {
                // `a + b + ... + z` is a left-deep tree: walk its left spine iteratively
                // (a long flat sum must not take a stack frame per term).
                let mut spine = vec![b];
                let mut left = &b.node.lhs;
                while let Expression::BinaryOperator(inner) = &left.node {
                    if arith_op(&inner.node.operator.node).is_none() {
                        break;
                    }
                    spine.push(inner);
                    left = &inner.node.lhs;
                }
                let mut acc = self.rvalue(left)?;
                for node in spine.into_iter().rev() {
                    let r = self.rvalue(&node.node.rhs)?;
                    self.at(node.span);
                    let arith = arith_op(&node.node.operator.node).expect("an arithmetic operator");
                    acc = self.arith(arith, acc, r, node.span)?;
                }
                Ok(acc)
            }
        }
    }

    /// `a = b` for structs: a cell-by-cell copy.
    pub(super) fn struct_assign(&mut self, b: &Node<BinaryOperatorExpression>) -> LResult<Val> {
        let ty = self.l.expr_type(&b.node.lhs)?;
        let src = self.aggregate_address(&b.node.rhs, &ty)?;
        let dst = match self.lvalue(&b.node.lhs)?.place {
            Place::Mem(a) => a,
            Place::Reg(_) => return self.l.invalid(b.span, "struct in a register"),
        };
        self.at(b.span);
        self.copy_aggregate(&dst, &src, &ty);
        Ok(void())
    }

    /// A binary arithmetic or comparison operator with C's conversions.
    pub fn arith(&mut self, op: BinOp, l: Val, r: Val, span: AstSpan) -> LResult<Val> {
        if matches!(l.ty, CType::Float(_)) || matches!(r.ty, CType::Float(_)) {
            return self.float_arith(op, l, r, span);
        }
        match (&l.ty, &r.ty) {
            (CType::Int(a), CType::Int(b)) => {
                let (a, b) = (*a, *b);
                if matches!(op, BinOp::Shl | BinOp::Shr) {
                    let ty = CType::Int(promote(a));
                    let lo = self.convert(l, &ty, span)?;
                    let ro = self.convert(r, &ty, span)?;
                    return Ok(self.int_binop(op, ty, lo, ro));
                }
                let ty = CType::Int(usual_arith(a, b));
                let lo = self.convert(l, &ty, span)?;
                let ro = self.convert(r, &ty, span)?;
                Ok(self.int_binop(op, ty, lo, ro))
            }
            (CType::Ptr(elem), CType::Int(_)) if matches!(op, BinOp::Add | BinOp::Sub) => {
                let elem = (**elem).clone();
                let ty = l.ty.clone();
                let op = self.ptr_add(l.op, r, &elem, op == BinOp::Sub, span)?;
                Ok(Val { op, ty })
            }
            (CType::Int(_), CType::Ptr(elem)) if op == BinOp::Add => {
                let elem = (**elem).clone();
                let ty = r.ty.clone();
                let op = self.ptr_add(r.op, l, &elem, false, span)?;
                Ok(Val { op, ty })
            }
            (CType::Ptr(elem), CType::Ptr(_)) if op == BinOp::Sub => {
                let scale = self.l.size_of(elem, span)?.max(1);
                let ty = self.l.layout().ptrdiff_t();
                let s = ty.scalar().expect("ptrdiff_t");
                let op = self.assign_tmp(
                    s,
                    Rvalue::PtrDiff {
                        lhs: l.op,
                        rhs: r.op,
                        scale,
                    },
                );
                Ok(Val { op, ty })
            }
            (CType::Ptr(_), _) | (_, CType::Ptr(_)) if op.is_comparison() => {
                let lo = self.as_pointer(l, span)?;
                let ro = self.as_pointer(r, span)?;
                let op = self.assign_tmp(
                    Scalar::I32,
                    Rvalue::Binary {
                        op,
                        ty: Scalar::Ptr,
                        lhs: lo,
                        rhs: ro,
                    },
                );
                Ok(Val {
                    op,
                    ty: CType::int(),
                })
            }
            _ => self.l.invalid(
                span,
                format!(
                    "invalid operands to `{}`: {} and {}",
                    op.symbol(),
                    self.l.type_name(&l.ty),
                    self.l.type_name(&r.ty)
                ),
            ),
        }
    }

    pub(super) fn as_pointer(&mut self, v: Val, span: AstSpan) -> LResult<Operand> {
        match v.ty {
            CType::Ptr(_) => Ok(v.op),
            CType::Int(_) => self.convert(v, &CType::ptr_to(CType::Void), span),
            _ => self
                .l
                .invalid(span, "comparison of a pointer with a non-scalar"),
        }
    }

    pub(super) fn int_binop(&mut self, op: BinOp, ty: CType, lhs: Operand, rhs: Operand) -> Val {
        let s = ty.scalar().expect("int");
        let (dst_ty, res_ty) = if op.is_comparison() {
            (Scalar::I32, CType::int())
        } else {
            (s, ty)
        };
        let op = self.assign_tmp(
            dst_ty,
            Rvalue::Binary {
                op,
                ty: s,
                lhs,
                rhs,
            },
        );
        Val { op, ty: res_ty }
    }

    /// `ptr ± idx` elements of type `elem`.
    pub(super) fn ptr_add(
        &mut self,
        base: Operand,
        idx: Val,
        elem: &CType,
        negate: bool,
        span: AstSpan,
    ) -> LResult<Operand> {
        let CType::Int(it) = idx.ty else {
            return self.l.invalid(span, "pointer offset is not an integer");
        };
        let scale = self.l.size_of(elem, span)?;
        let ity = CType::Int(promote(it));
        let mut index = self.convert(idx, &ity, span)?;
        let index_ty = ity.scalar().expect("int");
        if negate {
            index = self.assign_tmp(
                index_ty,
                Rvalue::Unary {
                    op: UnOp::Neg,
                    ty: index_ty,
                    arg: index,
                },
            );
        }
        if let (Operand::Addr { obj, offset }, Operand::Int { bits, ty }) = (&base, &index) {
            let i = if ty.is_signed() {
                i128::from(sign_extend(*bits, ty.bits(self.l.dm)))
            } else {
                i128::from(*bits)
            };
            let off = i128::from(*offset) + i * i128::from(scale);
            if off >= 0 {
                return Ok(Operand::Addr {
                    obj: *obj,
                    offset: off as u64,
                });
            }
        }
        Ok(self.assign_tmp(
            Scalar::Ptr,
            Rvalue::PtrAdd {
                base,
                index,
                index_ty,
                scale,
            },
        ))
    }
}

/// The IR operation of a binary operator that evaluates both operands (not `&&`, `||`,
/// `[]` or an assignment).
fn arith_op(op: &BinaryOperator) -> Option<BinOp> {
    use BinaryOperator as B;
    Some(match op {
        B::Multiply => BinOp::Mul,
        B::Divide => BinOp::Div,
        B::Modulo => BinOp::Rem,
        B::Plus => BinOp::Add,
        B::Minus => BinOp::Sub,
        B::ShiftLeft => BinOp::Shl,
        B::ShiftRight => BinOp::Shr,
        B::Less => BinOp::Lt,
        B::Greater => BinOp::Gt,
        B::LessOrEqual => BinOp::Le,
        B::GreaterOrEqual => BinOp::Ge,
        B::Equals => BinOp::Eq,
        B::NotEquals => BinOp::Ne,
        B::BitwiseAnd => BinOp::And,
        B::BitwiseXor => BinOp::Xor,
        B::BitwiseOr => BinOp::Or,
        _ => return None,
    })
}

fn compound_op(op: &BinaryOperator) -> BinOp {
    use BinaryOperator as B;
    match op {
        B::AssignMultiply => BinOp::Mul,
        B::AssignDivide => BinOp::Div,
        B::AssignModulo => BinOp::Rem,
        B::AssignPlus => BinOp::Add,
        B::AssignMinus => BinOp::Sub,
        B::AssignShiftLeft => BinOp::Shl,
        B::AssignShiftRight => BinOp::Shr,
        B::AssignBitwiseAnd => BinOp::And,
        B::AssignBitwiseXor => BinOp::Xor,
        _ => BinOp::Or,
    }
}
