//! Short-circuit operators and `?:`, lowered to branches.

use super::{void, Val};
use crate::ir::*;
use crate::lower::func::FnBuilder;
use crate::lower::types::CType;
use crate::lower::LResult;
use lang_c::ast::*;
use lang_c::span::Node;

impl FnBuilder<'_, '_> {
    /// Branches on a condition, lowering `&&`, `||` and `!` into control flow.
    pub fn cond_branch(
        &mut self,
        e: &Node<Expression>,
        then_bb: BlockId,
        else_bb: BlockId,
    ) -> LResult<()> {
        self.at(e.span);
        match &e.node {
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::LogicalAnd => {
                let mid = self.new_block();
                self.cond_branch(&b.node.lhs, mid, else_bb)?;
                self.switch_to(mid);
                self.cond_branch(&b.node.rhs, then_bb, else_bb)
            }
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::LogicalOr => {
                let mid = self.new_block();
                self.cond_branch(&b.node.lhs, then_bb, mid)?;
                self.switch_to(mid);
                self.cond_branch(&b.node.rhs, then_bb, else_bb)
            }
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Negate => {
                self.cond_branch(&u.node.operand, else_bb, then_bb)
            }
            _ => {
                let v = self.rvalue(e)?;
                let cond = match v.ty {
                    CType::Int(_) => v.op,
                    _ => self.truth(v, e.span)?,
                };
                self.at(e.span);
                self.branch(cond, then_bb, else_bb);
                Ok(())
            }
        }
    }

    /// `a && b` / `a || b` as a value: 0 or 1 in a register, through branches.
    pub(super) fn logical_value(&mut self, e: &Node<Expression>) -> LResult<Val> {
        let result = self.new_reg(None, Scalar::I32);
        let t = self.new_block();
        let f = self.new_block();
        let join = self.new_block();
        self.cond_branch(e, t, f)?;
        for (bb, v) in [(t, 1), (f, 0)] {
            self.switch_to(bb);
            self.emit(StmtKind::Assign {
                dst: result,
                value: Rvalue::Use(Operand::int(v, Scalar::I32)),
            });
            self.goto(join);
        }
        self.switch_to(join);
        Ok(Val {
            op: Operand::Reg(result),
            ty: CType::int(),
        })
    }

    pub(super) fn conditional(
        &mut self,
        c: &Node<ConditionalExpression>,
        whole: &Node<Expression>,
    ) -> LResult<Val> {
        let outermost = self.l.conditional_types.is_none();
        if outermost {
            self.l.conditional_types = Some(std::collections::HashMap::new());
        }
        let result = self.conditional_typed(c, whole);
        if outermost {
            self.l.conditional_types = None;
        }
        result
    }

    pub(super) fn conditional_typed(
        &mut self,
        c: &Node<ConditionalExpression>,
        whole: &Node<Expression>,
    ) -> LResult<Val> {
        let ty = self.l.expr_type(whole)?.decay();
        let t = self.new_block();
        let f = self.new_block();
        let join = self.new_block();
        self.cond_branch(&c.node.condition, t, f)?;
        let result = ty.scalar().map(|s| self.new_reg(None, s));
        for (bb, arm) in [(t, &c.node.then_expression), (f, &c.node.else_expression)] {
            self.switch_to(bb);
            match result {
                Some(r) => {
                    let v = self.rvalue(arm)?;
                    let op = self.convert(v, &ty, arm.span)?;
                    self.emit(StmtKind::Assign {
                        dst: r,
                        value: Rvalue::Use(op),
                    });
                }
                None if ty.is_void() => self.discard(arm)?,
                None => {
                    return self
                        .l
                        .unsupported(c.span, "conditional expression of aggregate type")
                }
            }
            self.goto(join);
        }
        self.switch_to(join);
        Ok(match result {
            Some(r) => Val {
                op: Operand::Reg(r),
                ty,
            },
            None => void(),
        })
    }
}
