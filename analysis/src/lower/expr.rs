//! Expressions: C's implicit conversions made explicit, memory accesses split into one
//! load or store per statement, short-circuit operators and `?:` turned into branches.

use super::consts::{parse_char, parse_integer, string_bytes};
use super::func::FnBuilder;
use super::types::{promote, usual_arith, CType, IntType};
use super::{LResult, Lowerer, Symbol};
use crate::ir::*;
use lang_c::ast::*;
use lang_c::span::{Node, Span as AstSpan};

/// An rvalue: an operand and its C type (arrays and functions already decayed).
#[derive(Clone, Debug)]
pub(crate) struct Val {
    pub op: Operand,
    pub ty: CType,
}

/// Where an lvalue lives.
#[derive(Clone, Debug)]
pub(crate) enum Place {
    Reg(RegId),
    /// In memory at this address.
    Mem(Operand),
}

#[derive(Clone, Debug)]
pub(crate) struct LVal {
    pub place: Place,
    pub ty: CType,
}

fn void() -> Val {
    Val {
        op: Operand::int(0, Scalar::I32),
        ty: CType::Void,
    }
}

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
                Constant::Float(_) => CType::Float(64),
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

/// A short name of an expression kind, for messages.
fn expression_kind(e: &Expression) -> &'static str {
    match e {
        Expression::GenericSelection(_) => "_Generic selection",
        Expression::Statement(_) => "statement expression",
        Expression::CompoundLiteral(_) => "compound literal",
        Expression::VaArg(_) => "va_arg (variadic arguments)",
        _ => "expression",
    }
}

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

    fn struct_expr_effects(&mut self, e: &Node<Expression>) -> LResult<()> {
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
            Expression::GenericSelection(_)
            | Expression::CompoundLiteral(_)
            | Expression::VaArg(_) => self.l.unsupported(e.span, expression_kind(&e.node)),
        }
    }

    /// GNU `({ stmts; expr; })`: the value of the last expression statement.
    fn statement_expression(&mut self, s: &Node<Statement>) -> LResult<Val> {
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

    fn statement_expression_items(&mut self, items: &[Node<BlockItem>]) -> LResult<Val> {
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

    fn constant(&mut self, c: &Node<Constant>) -> LResult<Val> {
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
            Constant::Float(_) => self.l.unsupported(c.span, "floating-point arithmetic"),
        }
    }

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
            (CType::Float(_), _) => self.l.unsupported(span, "floating-point value"),
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

    /// Converts a value to a type, as assignment and casts do.
    pub fn convert(&mut self, v: Val, to: &CType, span: AstSpan) -> LResult<Operand> {
        if matches!(v.ty, CType::Float(_)) || matches!(to, CType::Float(_)) {
            return self.l.unsupported(span, "floating-point conversion");
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
    fn int_cast(&mut self, op: Operand, from: Scalar, to: Scalar) -> Operand {
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

    fn unary(
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

    fn increment(
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

    fn binary(
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
    fn struct_assign(&mut self, b: &Node<BinaryOperatorExpression>) -> LResult<Val> {
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

    /// A binary arithmetic or comparison operator with C's conversions.
    pub fn arith(&mut self, op: BinOp, l: Val, r: Val, span: AstSpan) -> LResult<Val> {
        if matches!(l.ty, CType::Float(_)) || matches!(r.ty, CType::Float(_)) {
            return self.l.unsupported(span, "floating-point arithmetic");
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

    fn as_pointer(&mut self, v: Val, span: AstSpan) -> LResult<Operand> {
        match v.ty {
            CType::Ptr(_) => Ok(v.op),
            CType::Int(_) => self.convert(v, &CType::ptr_to(CType::Void), span),
            _ => self
                .l
                .invalid(span, "comparison of a pointer with a non-scalar"),
        }
    }

    fn int_binop(&mut self, op: BinOp, ty: CType, lhs: Operand, rhs: Operand) -> Val {
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
    fn ptr_add(
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

    /// `a && b` / `a || b` as a value: 0 or 1 in a register, through branches.
    fn logical_value(&mut self, e: &Node<Expression>) -> LResult<Val> {
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

    fn conditional(
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

    fn conditional_typed(
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

    /// A call: a built-in (pthread, `__VERIFIER_*`, libc) or a call of a C function.
    fn call(&mut self, c: &Node<CallExpression>) -> LResult<Val> {
        match self.call_inner(c)? {
            CallResult::Value(v) => Ok(v),
            CallResult::Aggregate(_) => self
                .l
                .unsupported(c.span, "struct value in this context (use a pointer)"),
        }
    }

    /// A call; a struct result is written to a fresh stack object of the caller whose
    /// address is passed as the hidden first argument.
    fn call_inner(&mut self, c: &Node<CallExpression>) -> LResult<CallResult> {
        if let Expression::Identifier(id) = &c.node.callee.node {
            let name = id.node.name.as_str();
            let user_defined = matches!(
                self.l.lookup(name),
                Some(Symbol::Function { id, .. }) if self.l.functions[id.index()].defined
            );
            if let Some(v) = self.builtin_call(name, c, user_defined)? {
                return Ok(CallResult::Value(v));
            }
            if self.l.lookup(name).is_none() {
                // C89 implicit declaration: `int name()`.
                let fty = super::types::FuncType {
                    ret: CType::int(),
                    params: Vec::new(),
                    variadic: false,
                    prototyped: false,
                };
                let span = self.span;
                self.l.declare_function(name, &fty, span);
                self.l.warn_once(
                    &format!("implicit:{name}"),
                    id.span,
                    format!("implicit declaration of function `{name}`"),
                );
            }
        }
        let callee = self.rvalue(&c.node.callee)?;
        let Some(fty) = callee.ty.as_func().cloned() else {
            return self.l.invalid(c.span, "call of a non-function");
        };
        let mut args = self.call_args(&fty, &c.node.arguments, c.span)?;
        self.at(c.span);
        let result = match &fty.ret {
            CType::Struct(_) => {
                let obj = self.new_slot("<result>", &fty.ret);
                args.insert(0, Operand::Addr { obj, offset: 0 });
                Some(obj)
            }
            _ => None,
        };
        let dst = fty.ret.scalar().map(|s| self.new_reg(None, s));
        let callee = match callee.op {
            Operand::Func(id) => Callee::Direct(id),
            other => Callee::Indirect(other),
        };
        self.emit(StmtKind::Call { dst, callee, args });
        Ok(match (dst, result) {
            (_, Some(obj)) => CallResult::Aggregate(Operand::Addr { obj, offset: 0 }),
            (Some(r), None) => CallResult::Value(Val {
                op: Operand::Reg(r),
                ty: fty.ret,
            }),
            (None, None) => CallResult::Value(void()),
        })
    }

    /// Evaluates arguments left to right, converted to the parameter types (default
    /// argument promotions for unprototyped and variadic arguments).
    pub fn call_args(
        &mut self,
        fty: &super::types::FuncType,
        args: &[Node<Expression>],
        span: AstSpan,
    ) -> LResult<Vec<Operand>> {
        if fty.prototyped && !fty.variadic && args.len() != fty.params.len() {
            return self.l.invalid(
                span,
                format!(
                    "call with {} arguments, expected {}",
                    args.len(),
                    fty.params.len()
                ),
            );
        }
        let mut out = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let declared = fty.params.get(i).filter(|_| fty.prototyped).cloned();
            // A struct argument is passed as the address of the caller's object; the
            // callee copies it (see `FnBuilder::body`).
            let arg_ty = match &declared {
                Some(t) => t.clone(),
                None => self.l.expr_type(a)?.decay(),
            };
            if matches!(arg_ty, CType::Struct(_)) {
                out.push(self.aggregate_address(a, &arg_ty)?);
                continue;
            }
            let v = self.rvalue(a)?;
            let ty = match (declared, &v.ty) {
                (Some(t), _) => t,
                // Default argument promotions.
                (None, CType::Int(it)) => CType::Int(promote(*it)),
                (None, other) => other.clone(),
            };
            out.push(self.convert(v, &ty, a.span)?);
        }
        Ok(out)
    }
}

/// What a call produces: a scalar value, or the address of a struct result.
enum CallResult {
    Value(Val),
    Aggregate(Operand),
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
