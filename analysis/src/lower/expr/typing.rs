//! The C type of an expression, computed from the AST without emitting any code (for
//! `sizeof`, constant expressions, initializers and struct assignments).

use super::expression_kind;
use crate::lower::consts::{parse_integer, string_bytes};
use crate::lower::types::{promote, usual_arith, CType, IntType};
use crate::lower::{LResult, Lowerer, Symbol};
use lang_c::ast::*;
use lang_c::span::{Node, Span as AstSpan};

impl Lowerer<'_> {
    /// The C type of an expression, computed without lowering it (for `sizeof`).
    pub(crate) fn expr_type(&mut self, e: &Node<Expression>) -> LResult<CType> {
        Ok(match &e.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Symbol::Object { ty, .. })
                | Some(Symbol::Reg { ty, .. })
                | Some(Symbol::Slot { ty, .. })
                | Some(Symbol::Vla { ty, .. })
                | Some(Symbol::Function { ty, .. }) => ty.clone(),
                Some(Symbol::EnumConst(_)) => CType::int(),
                _ => return self.invalid(id.span, format!("undeclared `{}`", id.node.name)),
            },
            Expression::Constant(c) => match &c.node {
                Constant::Integer(i) => CType::Int(parse_integer(self, i, c.span)?.1),
                Constant::Character(_) => CType::int(),
                Constant::Float(f) => {
                    CType::Float(crate::lower::floats::parse_float(self, f, c.span)?.1)
                }
            },
            Expression::StringLiteral(s) => {
                let n = string_bytes(self, &s.node, s.span)?.len() as u64;
                CType::Array(Box::new(CType::Int(IntType::CHAR)), Some(n))
            }
            Expression::Member(m) => {
                let base = self.expr_type(&m.node.expression)?;
                let sty = match m.node.operator.node {
                    MemberOperator::Direct => base,
                    MemberOperator::Indirect => match base.decay() {
                        CType::Ptr(t) => *t,
                        _ => return self.invalid(m.span, "`->` on a non-pointer"),
                    },
                };
                self.member_of(&sty, &m.node.identifier.node.name, m.span)?
                    .1
            }
            Expression::Call(c) => match self.expr_type(&c.node.callee) {
                Ok(t) => match t.as_func() {
                    Some(f) => f.ret.clone(),
                    None => return self.invalid(c.span, "call of a non-function"),
                },
                // An implicitly declared function returns int.
                Err(_) => CType::int(),
            },
            Expression::SizeOfTy(_)
            | Expression::SizeOfVal(_)
            | Expression::AlignOf(_)
            | Expression::OffsetOf(_) => self.layout().size_t(),
            Expression::UnaryOperator(u) => {
                let t = self.expr_type(&u.node.operand)?;
                match u.node.operator.node {
                    UnaryOperator::Address => CType::ptr_to(t),
                    UnaryOperator::Indirection => match t.decay() {
                        CType::Ptr(inner) => *inner,
                        _ => return self.invalid(u.span, "dereference of a non-pointer"),
                    },
                    UnaryOperator::Negate => CType::int(),
                    UnaryOperator::Plus | UnaryOperator::Minus | UnaryOperator::Complement => {
                        match t {
                            CType::Int(it) => CType::Int(promote(it)),
                            other => other,
                        }
                    }
                    _ => t,
                }
            }
            Expression::Cast(c) => self.type_name_type(&c.node.type_name)?,
            Expression::BinaryOperator(b) => self.binary_type(b)?,
            Expression::Conditional(c) => {
                let key = e as *const Node<Expression> as usize;
                if let Some(ty) = self.conditional_types.as_ref().and_then(|m| m.get(&key)) {
                    return Ok(ty.clone());
                }
                let t = self.expr_type(&c.node.then_expression)?.decay();
                let f = self.expr_type(&c.node.else_expression)?.decay();
                let ty = match (&t, &f) {
                    (CType::Int(a), CType::Int(b)) => CType::Int(usual_arith(*a, *b)),
                    (CType::Ptr(_), _) => t,
                    (_, CType::Ptr(_)) => f,
                    _ => t,
                };
                if let Some(m) = self.conditional_types.as_mut() {
                    m.insert(key, ty.clone());
                }
                ty
            }
            Expression::Comma(es) => match es.last() {
                Some(last) => self.expr_type(last)?,
                None => CType::Void,
            },
            Expression::CompoundLiteral(c) => self.type_name_type(&c.node.type_name)?,
            Expression::VaArg(v) => self.type_name_type(&v.node.type_name)?,
            Expression::Statement(s) => match &s.node {
                // The type of the last expression statement; declarations inside are not
                // in scope here, so only expressions over outer names are typed.
                Statement::Compound(items) => match items.last().map(|i| &i.node) {
                    Some(BlockItem::Statement(Node {
                        node: Statement::Expression(Some(last)),
                        ..
                    })) => self.expr_type(last).unwrap_or(CType::Void),
                    _ => CType::Void,
                },
                _ => CType::Void,
            },
            Expression::GenericSelection(_) => {
                return self.unsupported(e.span, expression_kind(&e.node))
            }
        })
    }

    fn binary_type(&mut self, b: &Node<BinaryOperatorExpression>) -> LResult<CType> {
        use BinaryOperator as B;
        let op = b.node.operator.node.clone();
        let l = self.expr_type(&b.node.lhs)?.decay();
        if matches!(
            op,
            B::Assign
                | B::AssignMultiply
                | B::AssignDivide
                | B::AssignModulo
                | B::AssignPlus
                | B::AssignMinus
                | B::AssignShiftLeft
                | B::AssignShiftRight
                | B::AssignBitwiseAnd
                | B::AssignBitwiseXor
                | B::AssignBitwiseOr
        ) {
            return self.expr_type(&b.node.lhs);
        }
        let r = self.expr_type(&b.node.rhs)?.decay();
        self.binary_result_type(&op, l, r, b.span)
    }

    /// The type of `l op r` for a binary operator other than an assignment, from the
    /// (decayed) operand types.
    pub(crate) fn binary_result_type(
        &mut self,
        op: &BinaryOperator,
        l: CType,
        r: CType,
        span: AstSpan,
    ) -> LResult<CType> {
        use BinaryOperator as B;
        Ok(match op {
            B::Index => match (l, r) {
                (CType::Ptr(t), _) | (_, CType::Ptr(t)) => *t,
                _ => return self.invalid(span, "subscript of a non-pointer"),
            },
            B::Less
            | B::Greater
            | B::LessOrEqual
            | B::GreaterOrEqual
            | B::Equals
            | B::NotEquals
            | B::LogicalAnd
            | B::LogicalOr => CType::int(),
            B::ShiftLeft | B::ShiftRight => match l {
                CType::Int(it) => CType::Int(promote(it)),
                other => other,
            },
            B::Minus if l.is_pointer() && r.is_pointer() => self.layout().ptrdiff_t(),
            _ => match (l, r) {
                (CType::Int(a), CType::Int(b)) => CType::Int(usual_arith(a, b)),
                (p @ CType::Ptr(_), _) | (_, p @ CType::Ptr(_)) => p,
                (f @ CType::Float(_), _) | (_, f @ CType::Float(_)) => f,
                (a, _) => a,
            },
        })
    }
}
