//! Facts from the IR: one pass over every function, interning operands and objects.

use super::graph::{analyze, FuncGraph};
use super::{AtomNames, Facts, Obj, Var, ANY_OFFSET};
use crate::ir::{
    sign_extend, Block, Callee, FuncId, Function, ObjId, ObjectKind, Operand, Program, RegId,
    Rvalue, Scalar, StmtId, StmtKind, SyncOp, TermKind,
};
use std::collections::HashMap;

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum VarKey {
    Const,
    Reg(FuncId, RegId),
    Addr(ObjId, u64),
    Func(FuncId),
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum ObjKey {
    Static(ObjId),
    Site(StmtId),
    Func(FuncId),
}

/// The label of a register var: `func.rN`, with the C name in parentheses when it has one.
pub(super) fn reg_label(func_name: &str, reg: RegId) -> String {
    format!("{func_name}.{reg}")
}

/// Extracts the facts of a lowered program.
pub fn extract(program: &Program) -> Facts {
    let mut b = Builder::new(program);
    for o in &program.objects {
        b.object(o);
    }
    let halting = may_not_return(program);
    for f in &program.functions {
        b.function(f, &halting);
    }
    b.facts
}

struct Builder<'p> {
    program: &'p Program,
    facts: Facts,
    vars: HashMap<VarKey, Var>,
    objs: HashMap<ObjKey, Obj>,
}

impl<'p> Builder<'p> {
    fn new(program: &'p Program) -> Self {
        let names = AtomNames {
            files: program.files.clone(),
            funcs: program.functions.iter().map(|f| f.name.clone()).collect(),
            stmts: (0..program.stmt_count())
                .map(|i| program.location(program.stmt(StmtId(i as u32)).span()))
                .collect(),
            vars: Vec::new(),
            objs: Vec::new(),
            obj_ir: Vec::new(),
        };
        let mut b = Builder {
            program,
            facts: Facts {
                names,
                ..Facts::default()
            },
            vars: HashMap::new(),
            objs: HashMap::new(),
        };
        let c = b.var(VarKey::Const);
        debug_assert_eq!(c, Facts::CONST_VAR);
        b.facts.main_func.push((program.main,));
        b
    }

    fn var(&mut self, key: VarKey) -> Var {
        if let Some(&v) = self.vars.get(&key) {
            return v;
        }
        let v = Var(self.facts.names.vars.len() as u32);
        let label = match key {
            VarKey::Const => "const".to_string(),
            VarKey::Reg(f, r) => {
                let func = self.program.function(f);
                match func.regs.get(r.index()).and_then(|i| i.name.as_deref()) {
                    Some(name) => format!("{}({name})", reg_label(&func.name, r)),
                    None => reg_label(&func.name, r),
                }
            }
            VarKey::Addr(o, 0) => format!("&{}", self.program.object(o).name),
            VarKey::Addr(o, off) => format!("&{}+{off}", self.program.object(o).name),
            VarKey::Func(f) => format!("&{}", self.program.function(f).name),
        };
        self.facts.names.vars.push(label);
        self.vars.insert(key, v);
        match key {
            VarKey::Reg(f, _) => self.facts.is_reg.push((v, f)),
            VarKey::Addr(o, off) => {
                let obj = self.obj(ObjKey::Static(o));
                self.facts.addr_of.push((v, obj, offset(off)));
            }
            VarKey::Func(f) => {
                let obj = self.obj(ObjKey::Func(f));
                self.facts.addr_of.push((v, obj, 0));
            }
            VarKey::Const => {}
        }
        v
    }

    fn obj(&mut self, key: ObjKey) -> Obj {
        if let Some(&o) = self.objs.get(&key) {
            return o;
        }
        let o = Obj(self.facts.names.objs.len() as u32);
        let label = match key {
            ObjKey::Static(id) => self.program.object(id).name.clone(),
            ObjKey::Site(s) => format!("heap:{s}:{}", self.facts.stmt_label(s)),
            ObjKey::Func(f) => format!("fn:{}", self.program.function(f).name),
        };
        self.facts.names.objs.push(label);
        self.facts.names.obj_ir.push(match key {
            ObjKey::Static(id) => Some(id),
            _ => None,
        });
        self.objs.insert(key, o);
        match key {
            ObjKey::Static(_) => {}
            ObjKey::Site(s) => self.facts.heap_obj.push((o, s)),
            ObjKey::Func(f) => {
                self.facts.func_obj.push((o, f));
                self.facts.obj_size.push((o, -1));
            }
        }
        o
    }

    fn operand(&mut self, func: FuncId, op: &Operand) -> Var {
        match op {
            Operand::Reg(r) => self.var(VarKey::Reg(func, *r)),
            Operand::Int { .. } | Operand::Null => Facts::CONST_VAR,
            Operand::Addr { obj, offset } => self.var(VarKey::Addr(*obj, *offset)),
            Operand::Func(f) => self.var(VarKey::Func(*f)),
        }
    }

    fn object(&mut self, o: &crate::ir::Object) {
        let obj = self.obj(ObjKey::Static(o.id));
        self.facts.obj_size.push((obj, offset(o.size)));
        match o.kind {
            ObjectKind::Global | ObjectKind::StringLiteral => self.facts.global_obj.push((obj,)),
            ObjectKind::ThreadLocal => self.facts.thread_local_obj.push((obj,)),
            ObjectKind::StackSlot { func } => self.facts.stack_obj.push((obj, func)),
        }
        for cell in &o.init {
            let target = match cell.value {
                Operand::Addr {
                    obj: t,
                    offset: toff,
                } => (self.obj(ObjKey::Static(t)), offset(toff)),
                Operand::Func(f) => (self.obj(ObjKey::Func(f)), 0),
                _ => continue,
            };
            self.facts
                .obj_init
                .push((obj, offset(cell.offset), target.0, target.1));
        }
    }

    fn function(&mut self, f: &Function, halting: &[bool]) {
        for (i, p) in f.params.iter().enumerate() {
            let v = self.var(VarKey::Reg(f.id, *p));
            self.facts.formal_param.push((f.id, i as u32, v));
        }
        if f.atomic {
            self.facts.atomic_func.push((f.id,));
        }
        if !f.is_defined() {
            return;
        }
        self.facts
            .func_entry
            .push((f.id, first_node(f.block(f.entry()))));
        let mut graph = FuncGraph {
            nodes: Vec::new(),
            succs: Vec::new(),
            exits: Vec::new(),
        };
        let mut local = HashMap::new();
        for block in &f.blocks {
            for s in &block.stmts {
                local.insert(s.id, graph.nodes.len());
                graph.nodes.push(s.id);
            }
            local.insert(block.term.id, graph.nodes.len());
            graph.nodes.push(block.term.id);
        }
        graph.succs = vec![Vec::new(); graph.nodes.len()];
        graph.exits = vec![false; graph.nodes.len()];
        for block in &f.blocks {
            self.block(f, block, halting, &local, &mut graph);
        }
        let g = analyze(&graph);
        let facts = &mut self.facts;
        facts.idom.extend(g.idom);
        facts.dom_interval.extend(g.dom_interval);
        facts.ipdom.extend(g.ipdom);
        facts.scc.extend(g.scc);
        facts.in_cycle.extend(g.in_cycle.into_iter().map(|s| (s,)));
        facts
            .reachable
            .extend(g.reachable.into_iter().map(|s| (s,)));
        for s in g.endless_loops {
            facts.exit_edge.push((s,));
            facts.halt.push((s,));
        }
    }

    fn block(
        &mut self,
        f: &Function,
        block: &Block,
        halting: &[bool],
        local: &HashMap<StmtId, usize>,
        graph: &mut FuncGraph,
    ) {
        let mut nodes: Vec<StmtId> = block.stmts.iter().map(|s| s.id).collect();
        nodes.push(block.term.id);
        for pair in nodes.windows(2) {
            self.edge(pair[0], pair[1], local, graph);
        }
        for s in &block.stmts {
            self.common(s.id, f.id, s.span);
            let exits = self.stmt(f.id, s.id, &s.kind, halting);
            if exits {
                self.facts.exit_edge.push((s.id,));
                self.facts.halt.push((s.id,));
                graph.exits[local[&s.id]] = true;
            }
        }
        let t = &block.term;
        self.common(t.id, f.id, t.span);
        let mut succs = t.kind.successors();
        succs.dedup();
        for succ in &succs {
            self.edge(t.id, first_node(f.block(*succ)), local, graph);
        }
        if succs.is_empty() {
            graph.exits[local[&t.id]] = true;
        }
        self.terminator(f, t.id, &t.kind);
    }

    fn edge(&mut self, a: StmtId, b: StmtId, local: &HashMap<StmtId, usize>, g: &mut FuncGraph) {
        self.facts.cfg_edge.push((a, b));
        g.succs[local[&a]].push(local[&b]);
    }

    fn common(&mut self, s: StmtId, func: FuncId, span: crate::ir::Span) {
        self.facts.stmt_func.push((s, func));
        self.facts.stmt_line.push((s, span.file, span.line));
    }

    fn uses(&mut self, s: StmtId, func: FuncId, ops: &[&Operand]) {
        for op in ops {
            if let Operand::Reg(r) = op {
                let v = self.var(VarKey::Reg(func, *r));
                self.facts.uses.push((s, v));
            }
        }
    }

    /// Emits the facts of one statement; returns whether it has an edge to the exit
    /// (it may stop the thread: assume, a call that may not return).
    fn stmt(&mut self, func: FuncId, s: StmtId, kind: &StmtKind, halting: &[bool]) -> bool {
        self.uses(s, func, &kind.operands());
        if let Some(d) = kind.def() {
            let v = self.var(VarKey::Reg(func, d));
            self.facts.defines.push((s, v));
        }
        match kind {
            StmtKind::Assign { dst, value } => {
                let dst = self.var(VarKey::Reg(func, *dst));
                self.assign(func, s, dst, value);
                false
            }
            StmtKind::Load { dst, addr, .. } => {
                let dst = self.var(VarKey::Reg(func, *dst));
                let addr = self.operand(func, addr);
                self.facts.load.push((s, dst, addr));
                self.facts.mem_read.push((s, addr));
                false
            }
            StmtKind::Store { addr, value, .. } => {
                let addr = self.operand(func, addr);
                let val = self.operand(func, value);
                self.facts.store.push((s, addr, val));
                self.facts.mem_write.push((s, addr));
                false
            }
            StmtKind::Call { dst, callee, args } => self.call(func, s, *dst, callee, args, halting),
            StmtKind::Sync { op, .. } => {
                self.sync(func, s, op);
                false
            }
            StmtKind::Assume { cond } => {
                let c = self.operand(func, cond);
                self.facts.assume.push((s, c));
                true
            }
            StmtKind::Alloc { dst, size, .. } => {
                let dst = self.var(VarKey::Reg(func, *dst));
                let obj = self.obj(ObjKey::Site(s));
                let size = match size {
                    Operand::Int { bits, ty } => constant(*bits, *ty).unwrap_or(ANY_OFFSET),
                    _ => ANY_OFFSET,
                };
                self.facts.obj_size.push((obj, size));
                self.facts.alloc.push((s, dst, obj));
                false
            }
            StmtKind::Havoc {
                dst: Some(dst),
                ty: Scalar::Ptr,
                ..
            } => {
                let dst = self.var(VarKey::Reg(func, *dst));
                let obj = self.obj(ObjKey::Site(s));
                self.facts.obj_size.push((obj, ANY_OFFSET));
                self.facts.alloc.push((s, dst, obj));
                false
            }
            StmtKind::Nondet { .. }
            | StmtKind::Free { .. }
            | StmtKind::Print { .. }
            | StmtKind::Havoc { .. } => false,
        }
    }

    fn assign(&mut self, func: FuncId, s: StmtId, dst: Var, value: &Rvalue) {
        match value {
            Rvalue::Use(op) | Rvalue::Cast { arg: op, .. } => {
                let src = self.operand(func, op);
                if src != Facts::CONST_VAR {
                    self.facts.assign_copy.push((s, dst, src));
                }
            }
            Rvalue::PtrAdd {
                base,
                index,
                index_ty,
                scale,
            } => {
                let src = self.operand(func, base);
                let delta = match index {
                    Operand::Int { bits, .. } => {
                        let i = sign_extend(*bits, index_ty.bits(self.program.data_model));
                        i.checked_mul(i64::try_from(*scale).unwrap_or(i64::MAX))
                    }
                    _ => None,
                };
                match delta {
                    Some(d) => self.facts.assign_offset.push((s, dst, src, d)),
                    None => {
                        self.facts.assign_any.push((s, dst, src));
                        let idx = self.operand(func, index);
                        self.facts.assign_any.push((s, dst, idx));
                    }
                }
            }
            // Integer arithmetic on an address keeps pointing into the same objects.
            Rvalue::Binary { op, lhs, rhs, .. } if !op.is_comparison() => {
                for op in [lhs, rhs] {
                    let src = self.operand(func, op);
                    self.facts.assign_any.push((s, dst, src));
                }
            }
            Rvalue::Unary { arg, .. } => {
                let src = self.operand(func, arg);
                self.facts.assign_any.push((s, dst, src));
            }
            Rvalue::Binary { .. }
            | Rvalue::PtrDiff { .. }
            | Rvalue::Uninit(_)
            | Rvalue::ThreadId
            | Rvalue::MutexHeld(_) => {}
        }
    }

    fn call(
        &mut self,
        func: FuncId,
        s: StmtId,
        dst: Option<RegId>,
        callee: &Callee,
        args: &[Operand],
        halting: &[bool],
    ) -> bool {
        let may_halt = match callee {
            Callee::Direct(g) => {
                self.facts.call.push((s, *g));
                halting[g.index()]
            }
            Callee::Indirect(op) => {
                let fp = self.operand(func, op);
                self.facts.icall.push((s, fp));
                true
            }
        };
        for (i, a) in args.iter().enumerate() {
            let v = self.operand(func, a);
            self.facts.actual_arg.push((s, i as u32, v));
        }
        if let Some(d) = dst {
            let v = self.var(VarKey::Reg(func, d));
            self.facts.call_result.push((s, v));
        }
        may_halt
    }

    fn sync(&mut self, func: FuncId, s: StmtId, op: &SyncOp) {
        let v = |b: &mut Self, op: &Operand| b.operand(func, op);
        match op {
            SyncOp::ThreadCreate {
                handle,
                func: f,
                arg,
            } => {
                let (h, fv, a) = (v(self, handle), v(self, f), v(self, arg));
                self.facts.thread_create.push((s, h, fv, a));
                self.facts.mem_write.push((s, h));
            }
            SyncOp::ThreadJoin { thread, result } => {
                let (t, r) = (v(self, thread), v(self, result));
                self.facts.thread_join.push((s, t, r));
                if r != Facts::CONST_VAR {
                    self.facts.mem_write.push((s, r));
                }
            }
            SyncOp::MutexLock { mutex } => {
                let m = v(self, mutex);
                self.facts.lock.push((s, m));
                self.facts.mem_write.push((s, m));
            }
            SyncOp::MutexUnlock { mutex } => {
                let m = v(self, mutex);
                self.facts.unlock.push((s, m));
                self.facts.mem_write.push((s, m));
            }
            SyncOp::MutexTryLock { mutex } => {
                let m = v(self, mutex);
                self.facts.trylock.push((s, m));
                self.facts.mem_read.push((s, m));
                self.facts.mem_write.push((s, m));
            }
            SyncOp::MutexInit { mutex } | SyncOp::MutexDestroy { mutex } => {
                let m = v(self, mutex);
                self.facts.mem_write.push((s, m));
            }
            SyncOp::CondWait { cond, mutex, .. } => {
                let (c, m) = (v(self, cond), v(self, mutex));
                self.facts.cond_wait.push((s, c, m));
                self.facts.mem_write.push((s, m));
            }
            SyncOp::CondSignal { cond } | SyncOp::CondBroadcast { cond } => {
                let c = v(self, cond);
                self.facts.cond_signal.push((s, c));
            }
            SyncOp::CondInit { .. } | SyncOp::CondDestroy { .. } => {}
            SyncOp::AtomicBegin => self.facts.atomic_begin.push((s,)),
            SyncOp::AtomicEnd => self.facts.atomic_end.push((s,)),
        }
    }

    fn terminator(&mut self, f: &Function, t: StmtId, kind: &TermKind) {
        let func = f.id;
        match kind {
            TermKind::Branch {
                cond,
                then_bb,
                else_bb,
            } => {
                self.uses(t, func, &[cond]);
                let c = self.operand(func, cond);
                self.facts.branch.push((t, c));
                self.facts
                    .branch_then
                    .push((t, first_node(f.block(*then_bb))));
                self.facts
                    .branch_else
                    .push((t, first_node(f.block(*else_bb))));
            }
            TermKind::Return(Some(op)) => {
                self.uses(t, func, &[op]);
                let v = self.operand(func, op);
                self.facts.return_val.push((t, v));
            }
            TermKind::Return(None) | TermKind::Goto(_) => {}
            TermKind::ThreadExit(op) => {
                self.uses(t, func, &[op]);
                let v = self.operand(func, op);
                self.facts.thread_exit_val.push((t, v));
                self.facts.halt.push((t,));
            }
            TermKind::Exit(op) => {
                self.uses(t, func, &[op]);
                self.facts.halt.push((t,));
            }
            TermKind::Error(_) => {
                self.facts.error_site.push((t,));
                self.facts.halt.push((t,));
            }
            TermKind::Abort | TermKind::Unreachable => self.facts.halt.push((t,)),
        }
    }
}

fn first_node(block: &Block) -> StmtId {
    block.stmts.first().map_or(block.term.id, |s| s.id)
}

fn offset(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(ANY_OFFSET)
}

fn constant(bits: u64, ty: Scalar) -> Option<i64> {
    match ty {
        Scalar::Int {
            bits: w,
            signed: true,
        } => Some(sign_extend(bits, w)),
        _ => i64::try_from(bits).ok(),
    }
}

/// Which functions may not return to their caller: they may stop the thread or the
/// program (`exit`, `abort`, error sites, `pthread_exit`, a failing `assume`), loop
/// forever, make an indirect call (unknown callee), or call such a function.
fn may_not_return(program: &Program) -> Vec<bool> {
    let mut halts: Vec<bool> = program
        .functions
        .iter()
        .map(locally_may_not_return)
        .collect();
    loop {
        let mut changed = false;
        for f in &program.functions {
            if halts[f.id.index()] {
                continue;
            }
            let calls_halting = f.blocks.iter().flat_map(|b| &b.stmts).any(|s| {
                matches!(&s.kind, StmtKind::Call { callee: Callee::Direct(g), .. } if halts[g.index()])
            });
            if calls_halting {
                halts[f.id.index()] = true;
                changed = true;
            }
        }
        if !changed {
            return halts;
        }
    }
}

fn locally_may_not_return(f: &Function) -> bool {
    if !f.is_defined() {
        return false;
    }
    let stops = f.blocks.iter().any(|b| {
        b.stmts.iter().any(|s| {
            matches!(
                s.kind,
                StmtKind::Assume { .. }
                    | StmtKind::Call {
                        callee: Callee::Indirect(_),
                        ..
                    }
            )
        }) || !matches!(
            b.term.kind,
            TermKind::Return(_) | TermKind::Goto(_) | TermKind::Branch { .. }
        )
    });
    stops || has_block_that_cannot_return(f)
}

/// A block reachable from the entry from which no `return` is reachable (an endless loop).
fn has_block_that_cannot_return(f: &Function) -> bool {
    let n = f.blocks.len();
    let mut preds = vec![Vec::new(); n];
    for b in &f.blocks {
        for s in b.term.kind.successors() {
            preds[s.index()].push(b.id.index());
        }
    }
    let mut returns = vec![false; n];
    let mut work: Vec<usize> = f
        .blocks
        .iter()
        .filter(|b| matches!(b.term.kind, TermKind::Return(_)))
        .map(|b| b.id.index())
        .collect();
    for &w in &work {
        returns[w] = true;
    }
    while let Some(b) = work.pop() {
        for &p in &preds[b] {
            if !returns[p] {
                returns[p] = true;
                work.push(p);
            }
        }
    }
    let mut seen = vec![false; n];
    let mut work = vec![0usize];
    seen[0] = true;
    while let Some(b) = work.pop() {
        if !returns[b] {
            return true;
        }
        for s in f.blocks[b].term.kind.successors() {
            if !seen[s.index()] {
                seen[s.index()] = true;
                work.push(s.index());
            }
        }
    }
    false
}
