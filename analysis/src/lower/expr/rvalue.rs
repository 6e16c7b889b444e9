//! Rvalues: evaluating an expression to a value, or for its side effects only.

use super::{expression_kind, void, Val};
use crate::ir::*;
use crate::lower::consts::{parse_char, parse_integer, string_bytes};
use crate::lower::func::FnBuilder;
use crate::lower::types::{CType, IntType};
use crate::lower::{LResult, Symbol};
use lang_c::ast::*;
use lang_c::span::Node;

impl FnBuilder<'_, '_> {
    /// Evaluates an expression for its side effects only.
    pub fn discard(&mut self, e: &Node<Expression>) -> LResult<()> {
        self.at(e.span);
        match &e.node {
            // `(void) x` and friends: no load of a struct value is needed.
            Expression::Cast(c) if matches!(self.l.expr_type(e)?, CType::Void) => {
                self.discard(&c.node.expression)
            }
            Expression::Comma(es) => {
                for x in es.iter() {
                    self.discard(x)?;
                }
                Ok(())
            }
            _ => {
                let ty = self.l.expr_type(e).unwrap_or(CType::Void);
                if matches!(ty, CType::Struct(_)) {
                    // A struct-valued expression statement: evaluate its side effects.
                    return self.struct_expr_effects(e);
                }
                self.rvalue(e).map(|_| ())
            }
        }
    }

    pub(super) fn struct_expr_effects(&mut self, e: &Node<Expression>) -> LResult<()> {
        match &e.node {
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Assign => {
                self.struct_assign(b).map(|_| ())
            }
            Expression::Call(c) => self.call_inner(c).map(|_| ()),
            _ => self.lvalue(e).map(|_| ()),
        }
    }

    /// The value of an expression.
    pub fn rvalue(&mut self, e: &Node<Expression>) -> LResult<Val> {
        self.at(e.span);
        match &e.node {
            Expression::Identifier(id) => match self.l.lookup(&id.node.name).cloned() {
                Some(Symbol::Reg { reg, ty }) => Ok(Val {
                    op: Operand::Reg(reg),
                    ty,
                }),
                Some(Symbol::EnumConst(v)) => Ok(Val {
                    op: Operand::int(v, Scalar::I32),
                    ty: CType::int(),
                }),
                Some(Symbol::Vla { reg, ty }) => Ok(Val {
                    op: Operand::Reg(reg),
                    ty: ty.decay(),
                }),
                Some(Symbol::Function { id, ty }) => Ok(Val {
                    op: Operand::Func(id),
                    ty: CType::ptr_to(ty),
                }),
                Some(_) => {
                    let lv = self.lvalue(e)?;
                    self.load(lv, e.span)
                }
                None => self.l.invalid(
                    id.span,
                    format!("use of undeclared identifier `{}`", id.node.name),
                ),
            },
            Expression::Constant(c) => self.constant(c),
            Expression::StringLiteral(s) => {
                let bytes = string_bytes(self.l, &s.node, s.span)?;
                let span = self.span;
                let obj = self.l.string_object(bytes, span);
                Ok(Val {
                    op: Operand::Addr { obj, offset: 0 },
                    ty: CType::ptr_to(CType::Int(IntType::CHAR)),
                })
            }
            Expression::Member(_) => {
                let lv = self.lvalue(e)?;
                self.load(lv, e.span)
            }
            Expression::Call(c) => self.call(c),
            Expression::SizeOfTy(_)
            | Expression::SizeOfVal(_)
            | Expression::AlignOf(_)
            | Expression::OffsetOf(_) => {
                let Some(v) = self.l.const_int(e)? else {
                    return self
                        .l
                        .unsupported(e.span, "sizeof of a variable-length type");
                };
                let ty = self.l.layout().size_t();
                Ok(Val {
                    op: Operand::int(v, ty.scalar().expect("size_t")),
                    ty,
                })
            }
            Expression::UnaryOperator(u) => self.unary(u, e),
            Expression::Cast(c) => {
                let ty = self.l.type_name_type(&c.node.type_name)?;
                if ty.is_void() {
                    self.discard(&c.node.expression)?;
                    return Ok(void());
                }
                let v = self.rvalue(&c.node.expression)?;
                let op = self.convert(v, &ty, c.span)?;
                Ok(Val { op, ty })
            }
            Expression::BinaryOperator(b) => self.binary(b, e),
            Expression::Conditional(c) => self.conditional(c, e),
            Expression::Comma(es) => {
                let (last, init) = es.split_last().expect("comma has operands");
                for x in init {
                    self.discard(x)?;
                }
                self.rvalue(last)
            }
            Expression::Statement(s) => self.statement_expression(s),
            Expression::VaArg(v) => self.va_arg(v),
            Expression::GenericSelection(_) | Expression::CompoundLiteral(_) => {
                self.l.unsupported(e.span, expression_kind(&e.node))
            }
        }
    }

    /// GNU `({ stmts; expr; })`: the value of the last expression statement.
    pub(super) fn statement_expression(&mut self, s: &Node<Statement>) -> LResult<Val> {
        let Statement::Compound(items) = &s.node else {
            return self.l.unsupported(s.span, "statement expression");
        };
        self.l.push_scope();
        let types = self.l.conditional_types.take();
        let result = self.statement_expression_items(items);
        self.l.conditional_types = types;
        self.l.pop_scope();
        result
    }

    pub(super) fn statement_expression_items(&mut self, items: &[Node<BlockItem>]) -> LResult<Val> {
        let Some((last, init)) = items.split_last() else {
            return Ok(void());
        };
        for item in init {
            match &item.node {
                BlockItem::Declaration(d) => self.local_declaration(d)?,
                BlockItem::StaticAssert(_) => {}
                BlockItem::Statement(st) => self.stmt(st)?,
            }
        }
        match &last.node {
            BlockItem::Statement(Node {
                node: Statement::Expression(Some(e)),
                ..
            }) => {
                if matches!(self.l.expr_type(e)?, CType::Void) {
                    self.discard(e)?;
                    Ok(void())
                } else {
                    self.rvalue(e)
                }
            }
            BlockItem::Statement(st) => {
                self.stmt(st)?;
                Ok(void())
            }
            BlockItem::Declaration(d) => {
                self.local_declaration(d)?;
                Ok(void())
            }
            BlockItem::StaticAssert(_) => Ok(void()),
        }
    }

    pub(super) fn constant(&mut self, c: &Node<Constant>) -> LResult<Val> {
        match &c.node {
            Constant::Integer(i) => {
                let (v, it) = parse_integer(self.l, i, c.span)?;
                let ty = CType::Int(it);
                Ok(Val {
                    op: Operand::int(v, ty.scalar().expect("int")),
                    ty,
                })
            }
            Constant::Character(s) => {
                let v = parse_char(self.l, s, c.span)?;
                Ok(Val {
                    op: Operand::int(v, Scalar::I32),
                    ty: CType::int(),
                })
            }
            Constant::Float(f) => {
                let (bits, width) = crate::lower::floats::parse_float(self.l, f, c.span)?;
                let ty = Scalar::Float { bits: width };
                Ok(Val {
                    op: Operand::Int { bits, ty },
                    ty: CType::Float(width),
                })
            }
        }
    }
}
