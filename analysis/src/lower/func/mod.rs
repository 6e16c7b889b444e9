//! The function builder: blocks, registers, stack slots, scopes, and the lowering of a
//! function definition and of local declarations ([`locals`]).

mod locals;

use super::types::{CType, FuncType};
use super::{LResult, Lowerer, Symbol};
use crate::ir::*;
use lang_c::ast;
use lang_c::span::{Node, Span as AstSpan};
use lang_c::visit::{self, Visit};
use std::collections::{HashMap, HashSet};

struct BlockBuild {
    stmts: Vec<Stmt>,
    term: Option<Terminator>,
}

/// Cases collected while lowering a `switch` body.
pub(crate) struct SwitchCtx {
    pub cases: Vec<(i128, i128, BlockId)>,
    pub default: Option<BlockId>,
}

pub(crate) struct FnBuilder<'l, 'u> {
    pub l: &'l mut Lowerer<'u>,
    pub func: FuncId,
    pub ret: CType,
    pub name: String,
    regs: Vec<RegInfo>,
    blocks: Vec<BlockBuild>,
    cur: BlockId,
    slots: Vec<ObjId>,
    addr_taken: HashSet<String>,
    pub labels: HashMap<String, (BlockId, bool)>,
    pub breaks: Vec<BlockId>,
    pub continues: Vec<BlockId>,
    pub switches: Vec<SwitchCtx>,
    /// The span statements are attributed to (the innermost node being lowered).
    pub span: Span,
    /// The hidden result-address parameter of a function returning a struct.
    pub sret: Option<RegId>,
    /// The hidden last parameter of a variadic function: the address of the caller's
    /// area of extra arguments (see `expr::varargs`).
    pub va_area: Option<RegId>,
    atomic: bool,
}

pub(crate) fn lower_function(l: &mut Lowerer, def: &Node<ast::FunctionDefinition>) -> LResult<()> {
    let info = l.decl_specifiers(&def.node.specifiers, def.span)?;
    let (name, ty) = l.declarator(info.ty.clone(), &def.node.declarator)?;
    let (Some(name), CType::Func(mut fty)) = (name, ty) else {
        return l.invalid(
            def.span,
            "function definition without a function declarator",
        );
    };
    let params = param_list(l, &def.node, &mut fty)?;
    let span = l.span(def.span);
    let id = l.declare_function(&name, &fty, span);
    if l.functions[id.index()].defined {
        return l.invalid(def.span, format!("redefinition of function `{name}`"));
    }
    l.functions[id.index()].defined = true;
    l.functions[id.index()].ty = (*fty).clone();
    l.functions[id.index()].ir.span = span;

    let mut taken = AddressTaken::default();
    taken.visit_statement(&def.node.statement.node, &def.node.statement.span);
    let mut b = FnBuilder::new(l, id, fty.ret.clone(), name, taken.names, span);
    b.l.push_scope();
    let result = b.body(&params, &def.node.statement);
    b.l.pop_scope();
    result?;
    b.finish();
    Ok(())
}

/// Parameter names and types, from a prototype or an old-style (K&R) definition.
fn param_list(
    l: &mut Lowerer,
    def: &ast::FunctionDefinition,
    fty: &mut FuncType,
) -> LResult<Vec<(Option<String>, CType, AstSpan)>> {
    let mut out = Vec::new();
    if let Some(derived) = own_function_declarator(&def.declarator) {
        match &derived.node {
            ast::DerivedDeclarator::Function(f) => {
                for p in &f.node.parameters {
                    let (name, ty) = l.parameter(p)?;
                    if ty.is_void() && name.is_none() {
                        continue;
                    }
                    out.push((name, ty, p.span));
                }
            }
            ast::DerivedDeclarator::KRFunction(names) => {
                for n in names {
                    out.push((Some(n.node.name.clone()), CType::int(), n.span));
                }
                for d in &def.declarations {
                    let info = l.decl_specifiers(&d.node.specifiers, d.span)?;
                    for id in &d.node.declarators {
                        let (name, ty) = l.declarator(info.ty.clone(), &id.node.declarator)?;
                        let ty = match ty {
                            CType::Array(e, _) => CType::Ptr(e),
                            other => other,
                        };
                        if let Some(slot) = out.iter_mut().find(|p| p.0 == name) {
                            slot.1 = ty;
                        }
                    }
                }
                fty.params = out.iter().map(|p| p.1.clone()).collect();
            }
            _ => {}
        }
    }
    Ok(out)
}

/// The function declarator that applies to the declared name itself: in
/// `void (*pick(int k))(unsigned char c)` that is `(int k)`, pick's own parameters, not
/// `(unsigned char c)`, those of the function pointer it returns. Declarators bind from the
/// name outward: at each level of parentheses the postfix ones (in source order) before the
/// prefix pointers, the innermost level first.
pub(crate) fn own_function_declarator(
    d: &Node<ast::Declarator>,
) -> Option<&Node<ast::DerivedDeclarator>> {
    let mut levels = vec![d];
    while let ast::DeclaratorKind::Declarator(inner) = &levels[levels.len() - 1].node.kind.node {
        levels.push(inner);
    }
    for level in levels.iter().rev() {
        let derived = &level.node.derived;
        if let Some(postfix) = derived
            .iter()
            .find(|x| !matches!(x.node, ast::DerivedDeclarator::Pointer(_)))
        {
            return Some(postfix);
        }
        if !derived.is_empty() {
            // A pointer binds first: the name is not a function.
            return None;
        }
    }
    None
}

/// Names whose address is taken somewhere in a body (`&x`): they live in memory.
#[derive(Default)]
struct AddressTaken {
    names: HashSet<String>,
}

impl<'ast> Visit<'ast> for AddressTaken {
    fn visit_unary_operator_expression(
        &mut self,
        n: &'ast ast::UnaryOperatorExpression,
        span: &'ast AstSpan,
    ) {
        if n.operator.node == ast::UnaryOperator::Address {
            if let ast::Expression::Identifier(id) = &n.operand.node {
                self.names.insert(id.node.name.clone());
            }
        }
        visit::visit_unary_operator_expression(self, n, span);
    }
}

impl<'l, 'u> FnBuilder<'l, 'u> {
    fn new(
        l: &'l mut Lowerer<'u>,
        func: FuncId,
        ret: CType,
        name: String,
        addr_taken: HashSet<String>,
        span: Span,
    ) -> Self {
        let atomic = l.functions[func.index()].ir.atomic;
        FnBuilder {
            l,
            func,
            ret,
            name,
            regs: Vec::new(),
            blocks: vec![BlockBuild {
                stmts: Vec::new(),
                term: None,
            }],
            cur: BlockId(0),
            slots: Vec::new(),
            addr_taken,
            labels: HashMap::new(),
            breaks: Vec::new(),
            continues: Vec::new(),
            switches: Vec::new(),
            span,
            sret: None,
            va_area: None,
            atomic,
        }
    }

    fn body(
        &mut self,
        params: &[(Option<String>, CType, AstSpan)],
        stmt: &Node<ast::Statement>,
    ) -> LResult<()> {
        let mut param_regs = Vec::new();
        if matches!(self.ret, CType::Struct(_)) {
            // A struct result is written through a hidden first parameter: the address of
            // the caller's result object.
            let r = self.new_reg(Some("<result>".into()), Scalar::Ptr);
            param_regs.push(r);
            self.sret = Some(r);
        }
        for (name, ty, span) in params {
            self.at(*span);
            let Some(scalar) = ty.scalar() else {
                // A struct argument arrives as the address of the caller's object; the
                // callee works on its own copy, as C's by-value semantics require.
                let incoming = self.new_reg(None, Scalar::Ptr);
                param_regs.push(incoming);
                if let Some(n) = name {
                    let obj = self.new_slot(n, ty);
                    self.copy_aggregate(
                        &Operand::Addr { obj, offset: 0 },
                        &Operand::Reg(incoming),
                        ty,
                    );
                    self.l.bind(
                        n.clone(),
                        Symbol::Slot {
                            obj,
                            ty: ty.clone(),
                        },
                    );
                }
                continue;
            };
            let reg = self.new_reg(name.clone(), scalar);
            param_regs.push(reg);
            if let Some(n) = name {
                self.declare_scalar_local(n, ty, Some(Operand::Reg(reg)), *span, Some(reg))?;
            }
        }
        if self.l.functions[self.func.index()].ty.variadic {
            let r = self.new_reg(Some("<va_args>".into()), Scalar::Ptr);
            param_regs.push(r);
            self.va_area = Some(r);
        }
        self.l.functions[self.func.index()].ir.params = param_regs;
        if self.atomic {
            self.emit(StmtKind::Sync {
                dst: None,
                op: SyncOp::AtomicBegin,
            });
        }
        self.stmt(stmt)?;
        if !self.terminated() {
            self.at_end(stmt.span);
            let value = if self.name == "main" {
                Some(Operand::int(0, Scalar::I32))
            } else {
                match self.ret.scalar() {
                    Some(s) => {
                        let r = self.new_reg(None, s);
                        self.emit(StmtKind::Assign {
                            dst: r,
                            value: Rvalue::Uninit(s),
                        });
                        Some(Operand::Reg(r))
                    }
                    None => None,
                }
            };
            self.ret_with(value);
        }
        for (name, (_, defined)) in &self.labels {
            if !defined {
                let span = stmt.span;
                return self
                    .l
                    .invalid(span, format!("label `{name}` used but not defined"));
            }
        }
        Ok(())
    }

    /// Emits a return, closing the atomic section of an atomic function first.
    pub fn ret_with(&mut self, value: Option<Operand>) {
        if self.name == "main" {
            // Returning from main is exit(value): the atexit handlers run first.
            self.run_atexit_handlers();
        }
        if self.atomic {
            self.emit(StmtKind::Sync {
                dst: None,
                op: SyncOp::AtomicEnd,
            });
        }
        self.terminate(TermKind::Return(value));
    }

    fn finish(self) {
        let FnBuilder {
            l,
            func,
            regs,
            blocks,
            slots,
            span,
            ..
        } = self;
        let blocks = prune_unreachable(blocks, span);
        let f = &mut l.functions[func.index()].ir;
        f.regs = regs;
        f.blocks = blocks;
        f.slots = slots;
    }

    // ----- emission -----

    /// Sets the span of what is emitted next to the start of an AST node.
    pub fn at(&mut self, s: AstSpan) {
        self.span = self.l.span(s);
    }

    /// Sets the span to the end of a node (the closing brace of a body).
    fn at_end(&mut self, s: AstSpan) {
        self.span = self.l.unit.span(s.end.saturating_sub(1));
    }

    pub fn new_reg(&mut self, name: Option<String>, ty: Scalar) -> RegId {
        self.regs.push(RegInfo { name, ty });
        RegId(self.regs.len() as u32 - 1)
    }

    pub fn reg_ty(&self, r: RegId) -> Scalar {
        self.regs[r.index()].ty
    }

    pub fn emit(&mut self, kind: StmtKind) {
        let span = self.span;
        self.blocks[self.cur.index()].stmts.push(Stmt {
            id: StmtId(0),
            span,
            kind,
        });
    }

    /// Emits `dst = value` into a fresh temporary of type `ty`.
    pub fn assign_tmp(&mut self, ty: Scalar, value: Rvalue) -> Operand {
        let dst = self.new_reg(None, ty);
        self.emit(StmtKind::Assign { dst, value });
        Operand::Reg(dst)
    }

    pub fn new_block(&mut self) -> BlockId {
        self.blocks.push(BlockBuild {
            stmts: Vec::new(),
            term: None,
        });
        BlockId(self.blocks.len() as u32 - 1)
    }

    pub fn switch_to(&mut self, b: BlockId) {
        self.cur = b;
    }

    pub fn current(&self) -> BlockId {
        self.cur
    }

    pub fn terminated(&self) -> bool {
        self.blocks[self.cur.index()].term.is_some()
    }

    /// Ends the current block; what follows goes to a fresh (unreachable) block.
    pub fn terminate(&mut self, kind: TermKind) {
        let span = self.span;
        if self.blocks[self.cur.index()].term.is_none() {
            self.blocks[self.cur.index()].term = Some(Terminator {
                id: StmtId(0),
                span,
                kind,
            });
        }
        let next = self.new_block();
        self.cur = next;
    }

    /// Ends the current block with a jump to `to`, and continues in `to`.
    pub fn goto_and_switch(&mut self, to: BlockId) {
        self.terminate(TermKind::Goto(to));
        self.cur = to;
    }

    /// Ends a block that may already be terminated (by a return, say) with a jump.
    pub fn goto(&mut self, to: BlockId) {
        self.terminate(TermKind::Goto(to));
    }

    pub fn branch(&mut self, cond: Operand, then_bb: BlockId, else_bb: BlockId) {
        self.terminate(TermKind::Branch {
            cond,
            then_bb,
            else_bb,
        });
    }

    // ----- locals -----

    pub fn new_slot(&mut self, name: &str, ty: &CType) -> ObjId {
        let span = self.span;
        let kind = ObjectKind::StackSlot { func: self.func };
        let obj = self
            .l
            .new_object(format!("{}.{name}", self.name), kind, ty, span);
        self.slots.push(obj);
        obj
    }

    /// Stores zero into every scalar cell of an object of type `ty` at `base`.
    pub fn zero_cells(&mut self, base: &Operand, ty: &CType) {
        let mut cells = Vec::new();
        self.l.layout().leaves(ty, 0, &mut cells);
        for (off, s) in cells {
            let addr = self.offset_addr(base, off);
            let value = if s == Scalar::Ptr {
                Operand::Null
            } else {
                Operand::int(0, s)
            };
            self.emit(StmtKind::Store { addr, value, ty: s });
        }
    }

    /// Copies every scalar cell of an aggregate: one load and one store per cell.
    pub fn copy_aggregate(&mut self, dst: &Operand, src: &Operand, ty: &CType) {
        let mut cells = Vec::new();
        self.l.layout().leaves(ty, 0, &mut cells);
        for (off, s) in cells {
            let from = self.offset_addr(src, off);
            let to = self.offset_addr(dst, off);
            let r = self.new_reg(None, s);
            self.emit(StmtKind::Load {
                dst: r,
                addr: from,
                ty: s,
            });
            self.emit(StmtKind::Store {
                addr: to,
                value: Operand::Reg(r),
                ty: s,
            });
        }
    }

    /// `base + off` bytes, folded when the base is a constant address.
    pub fn offset_addr(&mut self, base: &Operand, off: u64) -> Operand {
        match base {
            _ if off == 0 => base.clone(),
            Operand::Addr { obj, offset } => Operand::Addr {
                obj: *obj,
                offset: offset + off,
            },
            _ => self.assign_tmp(
                Scalar::Ptr,
                Rvalue::PtrAdd {
                    base: base.clone(),
                    index: Operand::int(off as i128, Scalar::I64),
                    index_ty: Scalar::I64,
                    scale: 1,
                },
            ),
        }
    }
}

/// Drops blocks unreachable from the entry and renumbers the rest in order.
fn prune_unreachable(blocks: Vec<BlockBuild>, span: Span) -> Vec<Block> {
    let n = blocks.len();
    let mut reachable = vec![false; n];
    let mut stack = vec![0usize];
    while let Some(b) = stack.pop() {
        if std::mem::replace(&mut reachable[b], true) {
            continue;
        }
        if let Some(t) = &blocks[b].term {
            for s in t.kind.successors() {
                if !reachable[s.index()] {
                    stack.push(s.index());
                }
            }
        }
    }
    let mut new_id = vec![BlockId(u32::MAX); n];
    let mut next = 0;
    for (i, r) in reachable.iter().enumerate() {
        if *r {
            new_id[i] = BlockId(next);
            next += 1;
        }
    }
    let remap = |b: BlockId| new_id[b.index()];
    blocks
        .into_iter()
        .enumerate()
        .filter(|(i, _)| reachable[*i])
        .map(|(i, b)| {
            let term = b.term.unwrap_or(Terminator {
                id: StmtId(0),
                span: b.stmts.last().map_or(span, |s| s.span),
                kind: TermKind::Unreachable,
            });
            let kind = match term.kind {
                TermKind::Goto(t) => TermKind::Goto(remap(t)),
                TermKind::Branch {
                    cond,
                    then_bb,
                    else_bb,
                } => TermKind::Branch {
                    cond,
                    then_bb: remap(then_bb),
                    else_bb: remap(else_bb),
                },
                other => other,
            };
            Block {
                id: new_id[i],
                stmts: b.stmts,
                term: Terminator { kind, ..term },
            }
        })
        .collect()
}
