//! Lvalues: where an expression designates, and the one load or store that reads or writes it.

use super::{CallResult, LVal, Place, Val};
use crate::ir::*;
use crate::lower::consts::string_bytes;
use crate::lower::func::FnBuilder;
use crate::lower::types::{CType, IntType};
use crate::lower::{LResult, Symbol};
use lang_c::ast::*;
use lang_c::span::{Node, Span as AstSpan};

impl FnBuilder<'_, '_> {
    /// The place an lvalue expression designates.
    pub fn lvalue(&mut self, e: &Node<Expression>) -> LResult<LVal> {
        self.at(e.span);
        match &e.node {
            Expression::Identifier(id) => match self.l.lookup(&id.node.name).cloned() {
                Some(Symbol::Reg { reg, ty }) => Ok(LVal {
                    place: Place::Reg(reg),
                    ty,
                }),
                Some(Symbol::Slot { obj, ty }) | Some(Symbol::Object { obj, ty }) => Ok(LVal {
                    place: Place::Mem(Operand::Addr { obj, offset: 0 }),
                    ty,
                }),
                Some(Symbol::Function { id, ty }) => Ok(LVal {
                    place: Place::Mem(Operand::Func(id)),
                    ty,
                }),
                _ => self
                    .l
                    .invalid(id.span, format!("`{}` is not an lvalue", id.node.name)),
            },
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Indirection => {
                let v = self.rvalue(&u.node.operand)?;
                match v.ty {
                    CType::Ptr(inner) => Ok(LVal {
                        place: Place::Mem(v.op),
                        ty: *inner,
                    }),
                    _ => self.l.invalid(u.span, "dereference of a non-pointer"),
                }
            }
            Expression::Member(m) => {
                let (base_addr, sty) = match m.node.operator.node {
                    MemberOperator::Direct => {
                        let lv = self.lvalue(&m.node.expression)?;
                        match lv.place {
                            Place::Mem(a) => (a, lv.ty),
                            Place::Reg(_) => {
                                return self.l.invalid(m.span, "member of a non-struct")
                            }
                        }
                    }
                    MemberOperator::Indirect => {
                        let v = self.rvalue(&m.node.expression)?;
                        match v.ty {
                            CType::Ptr(t) => (v.op, *t),
                            _ => return self.l.invalid(m.span, "`->` on a non-pointer"),
                        }
                    }
                };
                let (off, fty) = self
                    .l
                    .member_of(&sty, &m.node.identifier.node.name, m.span)?;
                let addr = self.offset_addr(&base_addr, off);
                Ok(LVal {
                    place: Place::Mem(addr),
                    ty: fty,
                })
            }
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
                let l = self.rvalue(&b.node.lhs)?;
                let r = self.rvalue(&b.node.rhs)?;
                let (ptr, idx) = if l.ty.is_pointer() { (l, r) } else { (r, l) };
                let Some(elem) = ptr.ty.pointee().cloned() else {
                    return self.l.invalid(b.span, "subscript of a non-pointer");
                };
                let addr = self.ptr_add(ptr.op, idx, &elem, false, b.span)?;
                Ok(LVal {
                    place: Place::Mem(addr),
                    ty: elem,
                })
            }
            Expression::StringLiteral(s) => {
                let bytes = string_bytes(self.l, &s.node, s.span)?;
                let n = bytes.len() as u64;
                let span = self.span;
                let obj = self.l.string_object(bytes, span);
                Ok(LVal {
                    place: Place::Mem(Operand::Addr { obj, offset: 0 }),
                    ty: CType::Array(Box::new(CType::Int(IntType::CHAR)), Some(n)),
                })
            }
            Expression::Cast(c) => {
                // GNU "cast as lvalue" is not C; only a no-op cast of an lvalue gets here.
                self.l.unsupported(c.span, "cast used as an lvalue")
            }
            Expression::CompoundLiteral(_) => self.l.unsupported(e.span, "compound literal"),
            // `f().x`: the member of a struct result.
            Expression::Call(c) => match self.call_inner(c)? {
                CallResult::Aggregate(addr) => Ok(LVal {
                    place: Place::Mem(addr),
                    ty: self.l.expr_type(e)?,
                }),
                CallResult::Value(_) => self.l.invalid(e.span, "expression is not an lvalue"),
            },
            _ => self.l.invalid(e.span, "expression is not an lvalue"),
        }
    }

    /// Reads an lvalue: one load for memory scalars; arrays and functions decay.
    pub fn load(&mut self, lv: LVal, span: AstSpan) -> LResult<Val> {
        match (&lv.ty, lv.place) {
            (CType::Array(elem, _), Place::Mem(addr)) => Ok(Val {
                op: addr,
                ty: CType::ptr_to((**elem).clone()),
            }),
            (CType::Func(_), Place::Mem(addr)) => Ok(Val {
                op: addr,
                ty: CType::ptr_to(lv.ty.clone()),
            }),
            (CType::Struct(_), _) => self
                .l
                .unsupported(span, "struct value in this context (use a pointer)"),
            (CType::Float(128), _) => self.l.unsupported(span, "`long double` value"),
            (CType::Void, _) => self.l.invalid(span, "use of a void value"),
            (_, Place::Reg(r)) => Ok(Val {
                op: Operand::Reg(r),
                ty: lv.ty,
            }),
            (ty, Place::Mem(addr)) => {
                let scalar = ty.scalar().expect("scalar type");
                let dst = self.new_reg(None, scalar);
                self.emit(StmtKind::Load {
                    dst,
                    addr,
                    ty: scalar,
                });
                Ok(Val {
                    op: Operand::Reg(dst),
                    ty: lv.ty,
                })
            }
        }
    }

    /// Writes a converted scalar into an lvalue.
    pub fn store(&mut self, lv: &LVal, value: Operand) {
        let scalar = lv.ty.scalar().expect("scalar lvalue");
        match &lv.place {
            Place::Reg(r) => self.emit(StmtKind::Assign {
                dst: *r,
                value: Rvalue::Use(value),
            }),
            Place::Mem(addr) => self.emit(StmtKind::Store {
                addr: addr.clone(),
                value,
                ty: scalar,
            }),
        }
    }

    /// The address of a struct-valued expression of type `ty` (an lvalue).
    pub fn aggregate_address(&mut self, e: &Node<Expression>, ty: &CType) -> LResult<Operand> {
        if self.l.expr_type(e)? != *ty {
            return self.l.invalid(e.span, "incompatible struct types");
        }
        match &e.node {
            // `x = (y = z)`: the inner assignment, then `y`.
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Assign => {
                self.struct_assign(b)?;
                self.aggregate_address(&b.node.lhs, ty)
            }
            // `x = (a, y)`
            Expression::Comma(es) => {
                let (last, init) = es.split_last().expect("comma has operands");
                for x in init {
                    self.discard(x)?;
                }
                self.aggregate_address(last, ty)
            }
            Expression::Call(c) => match self.call_inner(c)? {
                CallResult::Aggregate(addr) => Ok(addr),
                CallResult::Value(_) => self.l.invalid(e.span, "call result is not a struct"),
            },
            Expression::Conditional(_) => self
                .l
                .unsupported(e.span, "conditional expression of struct type"),
            _ => match self.lvalue(e)?.place {
                Place::Mem(a) => Ok(a),
                Place::Reg(_) => self.l.invalid(e.span, "struct in a register"),
            },
        }
    }
}
