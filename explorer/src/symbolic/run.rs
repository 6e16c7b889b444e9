//! Running a thread's code inside a step: local statements, calls and returns,
//! terminators, and the loop that drives a step to its end.
//!
//! Every statement is executed twice over: forward on values, and (with summaries on)
//! once more over state variables to produce its weakest-precondition transformer
//! ([`WpOp`]s), applied backwards when the subtree below has been explored.

use super::engine::{End, Engine, Side, SideNext, StaticObj, StepCtx, Sub};
use super::names::{ObjInst, ObjName, ThreadKey, ThreadName};
use super::state::{Frame, State, Status, Thread, Tid};
use super::summary::{WpOp, RET_DEPTH};
use super::term::{TermId, TermPool, Var};
use super::value::{self, Evaluated, Reader, SVal, Unsupported, OFFSET_BITS};
use super::VerifyError;
use crate::concrete::{InputSource, UninitPolicy, ViolationKind};
use analysis::ir::{
    Callee, DataModel, FuncId, Function, Operand, RegId, Rvalue, Scalar, Stmt, StmtId, StmtKind,
    TermKind, Terminator,
};
use std::collections::BTreeMap;

/// What a thread does next within a step.
pub enum Flow {
    /// Continue with the same thread.
    Next,
    /// Continue with another thread (a child just created).
    Switch(Tid),
    /// The thread stands at a visible event it may not run now (or has no code left).
    Park,
    End(End),
    Fork(Vec<Side>),
}

/// What [`Engine::exec_next`] did.
pub struct Executed {
    pub flow: Flow,
    /// The statement or terminator that ran: `None` when the thread parked without
    /// running anything, for a re-acquire or a thread-end event, and for a bound.
    pub ran: Option<StmtId>,
}

impl Executed {
    fn parked() -> Executed {
        Executed {
            flow: Flow::Park,
            ran: None,
        }
    }

    fn end(end: End) -> Executed {
        Executed {
            flow: Flow::End(end),
            ran: None,
        }
    }
}

/// Reads operands in a thread's top frame: values (forward) or state variables (`wp`).
pub struct Ops<'a> {
    pub st: &'a State,
    pub t: Tid,
    pub statics: &'a [StaticObj],
    pub dm: DataModel,
    pub wp: bool,
}

impl Reader for Ops<'_> {
    fn read(&mut self, pool: &mut TermPool, op: &Operand) -> SVal {
        match op {
            Operand::Reg(r) => {
                let th = &self.st.threads[self.t];
                let v = self.st.top(self.t).regs[r.index()];
                if self.wp {
                    let depth = th.frames.len() as u32 - 1;
                    wp_value(pool, v, reg_var(th.key, depth, *r))
                } else {
                    v
                }
            }
            Operand::Int { bits, ty } => SVal::Int(pool.bv_const(*bits, ty.bits(self.dm))),
            Operand::Null => SVal::Int(pool.bv_const(0, self.dm.pointer_bits())),
            Operand::Func(f) => SVal::Func(*f),
            Operand::Addr { obj, offset } => {
                let inst = match self.statics[obj.index()] {
                    StaticObj::Global(i) => i,
                    StaticObj::ThreadLocal(i) => self.st.threads[self.t].tls[i],
                    StaticObj::Slot(i) => self.st.top(self.t).slots[i],
                };
                SVal::Ptr {
                    obj: inst,
                    off: pool.bv_const(*offset, OFFSET_BITS),
                }
            }
        }
    }
}

pub fn reg_var(thread: ThreadKey, depth: u32, reg: RegId) -> Var {
    Var::Reg { thread, depth, reg }
}

/// A thread's return value as a state variable.
pub fn ret_var(thread: ThreadKey) -> Var {
    Var::Reg {
        thread,
        depth: RET_DEPTH,
        reg: RegId(0),
    }
}

/// The state-variable form of a value held in `var`: same shape, integer part `var`.
pub fn wp_value(pool: &mut TermPool, v: SVal, var: Var) -> SVal {
    match v {
        SVal::Int(t) => {
            let w = pool.width(t);
            SVal::Int(pool.var(var, w))
        }
        SVal::Ptr { obj, .. } => SVal::Ptr {
            obj,
            off: pool.var(var, OFFSET_BITS),
        },
        SVal::Func(f) => SVal::Func(f),
    }
}

/// `var := value` as a transformer step (nothing for a function value, which has no
/// integer part).
pub fn set_op(pool: &TermPool, var: Var, value: SVal) -> Option<WpOp> {
    value.term().map(|t| WpOp::Set(var, pool.width(t), t))
}

impl<'p> Engine<'p> {
    /// The state before `main` runs: static objects, thread 0 at `main`'s entry.
    pub fn initial_state(&mut self) -> Result<State, VerifyError> {
        let mut st = State::new();
        let prog = self.setup.prog;
        for o in &prog.objects {
            if let StaticObj::Global(inst) = self.setup.statics[o.id.index()] {
                let literal = o.kind == analysis::ir::ObjectKind::StringLiteral;
                st.mem.create(inst, o.size, true, literal, false);
            }
        }
        for o in &prog.objects {
            if let StaticObj::Global(inst) = self.setup.statics[o.id.index()] {
                self.write_initializer(&mut st, o.id, inst, None)?;
            }
        }
        let main = prog.function(prog.main);
        let args = self.main_arguments(&mut st, main);
        let key = self.names.thread(ThreadName::Main);
        self.spawn(&mut st, key, main, &args, &args, &mut Vec::new())
            .map_err(|u| VerifyError::Program(u.0))?;
        Ok(st)
    }

    fn write_initializer(
        &mut self,
        st: &mut State,
        id: analysis::ir::ObjId,
        inst: ObjInst,
        thread: Option<Tid>,
    ) -> Result<(), VerifyError> {
        let o = self.setup.prog.object(id);
        for cell in &o.init {
            let value = match &cell.value {
                Operand::Addr { obj, .. } => match (self.setup.statics[obj.index()], thread) {
                    (StaticObj::Global(_), _) | (StaticObj::ThreadLocal(_), Some(_)) => {
                        let mut r = Ops { st, t: thread.unwrap_or(0), statics: &self.setup.statics, dm: self.setup.dm, wp: false };
                        r.read(&mut self.pool, &cell.value)
                    }
                    _ => {
                        return Err(VerifyError::Program(format!(
                            "{}: unsupported: the initializer of `{}` takes the address of an object without a single static instance",
                            self.setup.prog.location(o.span),
                            o.name
                        )))
                    }
                },
                Operand::Reg(_) => {
                    return Err(VerifyError::Program(format!(
                        "malformed IR: the initializer of `{}` reads a register",
                        o.name
                    )))
                }
                other => {
                    let mut r = Ops { st, t: 0, statics: &self.setup.statics, dm: self.setup.dm, wp: false };
                    r.read(&mut self.pool, other)
                }
            };
            let value = value.fit(&mut self.pool, cell.ty, self.setup.dm);
            let bytes = cell.ty.bytes(self.setup.dm);
            if cell.offset + bytes > o.size {
                return Err(VerifyError::Program(format!(
                    "malformed IR: initializer cell at offset {} of `{}` is outside it",
                    cell.offset, o.name
                )));
            }
            st.mem.store(inst, cell.offset, bytes as u8, value);
        }
        Ok(())
    }

    /// `argc = 1`, `argv = {"main", NULL}` for a `main` that declares them.
    fn main_arguments(&mut self, st: &mut State, main: &Function) -> Vec<SVal> {
        if main.params.is_empty() {
            return Vec::new();
        }
        let name = self.names.object(ObjName::Argv(0));
        st.mem.create(name, 5, true, false, false);
        for (i, byte) in b"main".iter().enumerate() {
            let b = self.pool.bv_const(u64::from(*byte), 8);
            st.mem.store(name, i as u64, 1, SVal::Int(b));
        }
        let ptr_bytes = self.setup.dm.pointer_bytes();
        let argv = self.names.object(ObjName::Argv(1));
        st.mem.create(argv, 2 * ptr_bytes, true, false, false);
        let zero = self.pool.bv_const(0, OFFSET_BITS);
        st.mem.store(
            argv,
            0,
            ptr_bytes as u8,
            SVal::Ptr {
                obj: name,
                off: zero,
            },
        );
        let one = self.pool.bv_const(1, 32);
        let mut args = vec![
            SVal::Int(one),
            SVal::Ptr {
                obj: argv,
                off: zero,
            },
        ];
        let ptr_zero = self.pool.bv_const(0, self.setup.dm.pointer_bits());
        args.resize(main.params.len(), SVal::Int(ptr_zero));
        args
    }

    /// Adds a thread at the entry of `func`; returns its id. `ops` receives the
    /// transformer of its frame's registers (`wp_args`: the arguments over state
    /// variables).
    pub fn spawn(
        &mut self,
        st: &mut State,
        key: ThreadKey,
        func: &Function,
        args: &[SVal],
        wp_args: &[SVal],
        ops: &mut Vec<WpOp>,
    ) -> Result<Tid, Unsupported> {
        let t = st.threads.len();
        let mut tls = Vec::new();
        for &obj in &self.setup.tls_objects {
            let inst = self.names.object(ObjName::ThreadLocal { thread: key, obj });
            st.mem
                .create(inst, self.setup.prog.object(obj).size, true, false, false);
            tls.push(inst);
        }
        st.threads.push(Thread {
            key,
            frames: Vec::new(),
            status: Status::AtEvent,
            atomic: 0,
            inputs: 0,
            created: 0,
            allocs: BTreeMap::new(),
            tls: tls.clone(),
        });
        for (i, &obj) in self.setup.tls_objects.clone().iter().enumerate() {
            self.write_initializer(st, obj, tls[i], Some(t))
                .map_err(|e| Unsupported(e.to_string()))?;
        }
        let frame = self.new_frame(st, t, func, args, wp_args, None, ops)?;
        st.threads[t].frames.push(frame);
        Ok(t)
    }

    /// A fresh activation of `func` for thread `t` (pushed by the caller). `wp_args` are
    /// the arguments over state variables.
    #[allow(clippy::too_many_arguments)]
    pub fn new_frame(
        &mut self,
        st: &mut State,
        t: Tid,
        func: &Function,
        args: &[SVal],
        wp_args: &[SVal],
        ret_dst: Option<RegId>,
        ops: &mut Vec<WpOp>,
    ) -> Result<Frame, Unsupported> {
        if args.len() < func.params.len() {
            return Err(Unsupported(format!(
                "call of `{}` with {} argument(s); it has {} parameter(s)",
                func.name,
                args.len(),
                func.params.len()
            )));
        }
        let key = st.threads[t].key;
        let depth = st.threads[t].frames.len() as u32;
        let mut regs = Vec::with_capacity(func.regs.len());
        for (i, info) in func.regs.iter().enumerate() {
            let zero = SVal::Int(self.pool.bv_const(0, info.ty.bits(self.setup.dm)));
            regs.push(zero);
            if self.setup.wp_on {
                ops.extend(set_op(
                    &self.pool,
                    reg_var(key, depth, RegId(i as u32)),
                    zero,
                ));
            }
        }
        for (i, &param) in func.params.iter().enumerate() {
            let ty = func.reg(param).ty;
            regs[param.index()] = args[i].fit(&mut self.pool, ty, self.setup.dm);
            if self.setup.wp_on {
                let w = wp_args[i].fit(&mut self.pool, ty, self.setup.dm);
                ops.extend(set_op(&self.pool, reg_var(key, depth, param), w));
            }
        }
        let mut slots = Vec::with_capacity(func.slots.len());
        for &s in &func.slots {
            let inst = self.names.object(ObjName::Slot {
                thread: key,
                depth,
                obj: s,
            });
            st.mem
                .create(inst, self.setup.prog.object(s).size, false, false, false);
            slots.push(inst);
        }
        Ok(Frame {
            func: func.id,
            block: 0,
            index: 0,
            regs,
            slots,
            ret_dst,
            loops: Vec::new(),
        })
    }

    /// Drives a step: runs thread `cur` (and the creators it must resume) until the step
    /// ends at the next scheduling node, a fork, or the end of the run.
    pub fn run(&mut self, mut st: State, mut cur: Tid, mut k: StepCtx) -> Sub {
        let mut ops: Vec<WpOp> = Vec::new();
        let sub = loop {
            let Some(done) = self.exec_next(&mut st, cur, &mut k, &mut ops) else {
                break self.nothing();
            };
            match done.flow {
                Flow::Next => {}
                Flow::Switch(c) => cur = c,
                Flow::Park => match k.resume.pop() {
                    Some(c) => cur = c,
                    None => break self.end_step(st, k),
                },
                Flow::End(e) => break self.leaf(&st, e, &k),
                Flow::Fork(sides) => {
                    let (sides, dropped) = self.type_b_sides(&st, cur, sides);
                    let Some(guard) = dropped else {
                        break self.fork(sides, cur, &k);
                    };
                    self.path.dropped_guards.push(guard);
                    let sub = self.fork(sides, cur, &k);
                    self.path.dropped_guards.pop();
                    break sub;
                }
            }
        };
        self.with_ops(&ops, sub)
    }

    /// Runs what thread `cur` does next inside the current step (one statement, a
    /// terminator, or a re-acquire / thread-end event), with the step's bookkeeping: the
    /// bounds on visible events and on statements per step, the time budget, the inputs
    /// private to the threads that ran, and the loops that never reach a visible event
    /// (which end the run). The one step function of the engine: its own depth-first
    /// driver ([`Engine::run`]) and the guided search ([`crate::guided`]) both drive
    /// steps with it, each deciding what to do with the returned [`Flow`] (for a
    /// [`Flow::Park`], resume a creator from `k.resume` or end the step; for a fork,
    /// explore its sides). `None`: the search is stopped (out of time).
    pub fn exec_next(
        &mut self,
        st: &mut State,
        cur: Tid,
        k: &mut StepCtx,
        ops: &mut Vec<WpOp>,
    ) -> Option<Executed> {
        if self.search.stop {
            return None;
        }
        if self.path.trace.len() as u64 > self.setup.cfg.max_events {
            let detail = format!("a run reached {} visible events", self.setup.cfg.max_events);
            return Some(Executed::end(End::Bound("max-events", detail)));
        }
        k.cur = cur;
        k.statements += 1;
        if k.statements.is_multiple_of(4096) && self.out_of_time() {
            return None;
        }
        if k.statements > MAX_STEP_STATEMENTS {
            let detail = format!("a step ran more than {MAX_STEP_STATEMENTS} statements");
            return Some(Executed::end(End::Bound("max-events", detail)));
        }
        let events = self.path.trace.len();
        let mut done = self.exec_one(st, cur, k, ops);
        if self.path.trace.len() > events {
            k.mark_fresh(cur, self.path.inputs.len(), self.path.pcon.len());
        }
        match done.flow {
            Flow::Next if self.path.trace.len() == events => {
                if let Some(end) = self.local_loop(st, cur, k) {
                    done.flow = Flow::End(end);
                }
            }
            Flow::Switch(c) => k.mark_fresh(c, self.path.inputs.len(), self.path.pcon.len()),
            _ => {}
        }
        Some(done)
    }

    /// At a loop header, records `t`'s local state; if it was there before in this step
    /// with the same registers, the loop repeats forever without a visible event. The
    /// interpreter's step then never ends (no violation in this run); SV-COMP's semantics
    /// would let the other threads go on, which [`Engine::frozen_check`] explores.
    fn local_loop(&mut self, st: &State, t: Tid, k: &mut StepCtx) -> Option<End> {
        let th = &st.threads[t];
        let f = th.frames.last()?;
        if f.index != 0 || !self.setup.loop_headers.contains(&(f.func, f.block)) {
            return None;
        }
        let fp = {
            use std::hash::{Hash, Hasher};
            let mut h = rustc_hash::FxHasher::default();
            for f in &th.frames {
                (f.func, f.block, f.index, &f.regs).hash(&mut h);
            }
            (th.inputs, &th.allocs).hash(&mut h);
            h.finish()
        };
        let same = |frames: &[Frame]| {
            frames.len() == th.frames.len()
                && frames.iter().zip(&th.frames).all(|(a, b)| {
                    a.func == b.func && a.block == b.block && a.index == b.index && a.regs == b.regs
                })
        };
        if k.loop_states
            .iter()
            .any(|(h, u, fr)| *h == fp && *u == t && same(fr))
        {
            let span = self.setup.prog.function(f.func).blocks[f.block as usize]
                .term
                .span;
            return Some(End::AssumeFalse {
                gap: Some(format!(
                    "thread {t} loops forever at {} without a visible event",
                    self.location(span)
                )),
            });
        }
        k.loop_states.push((fp, t, th.frames.clone()));
        None
    }

    /// May `cur` run its visible event now, inside this step?
    fn may_run_event(&self, st: &State, cur: Tid, k: &StepCtx) -> bool {
        (k.event_pending && k.tid == Some(cur))
            || (st.atomic_owner == Some(cur) && self.is_enabled(st, cur))
    }

    /// Executes what `cur` does next.
    fn exec_one(
        &mut self,
        st: &mut State,
        cur: Tid,
        k: &mut StepCtx,
        ops: &mut Vec<WpOp>,
    ) -> Executed {
        match st.threads[cur].status {
            Status::AtEvent => {}
            Status::Reacquire { .. } | Status::Ending { .. } | Status::Waiting { .. }
                if self.is_enabled(st, cur) =>
            {
                if !self.may_run_event(st, cur, k) {
                    return Executed::parked();
                }
                k.event_pending = false;
                let flow = self.exec_special(st, cur, k, ops);
                return Executed { flow, ran: None };
            }
            _ => return Executed::parked(),
        }
        let prog = self.setup.prog;
        let frame = st.top(cur);
        let func = prog.function(frame.func);
        let block = &func.blocks[frame.block as usize];
        match block.stmts.get(frame.index as usize) {
            Some(stmt) if is_visible(&stmt.kind) => {
                if !self.may_run_event(st, cur, k) {
                    return Executed::parked();
                }
                let flow = self.exec_visible(st, cur, stmt, k, ops);
                Executed {
                    flow,
                    ran: Some(stmt.id),
                }
            }
            Some(stmt) => Executed {
                flow: self.exec_local(st, cur, stmt, k, ops),
                ran: Some(stmt.id),
            },
            None => Executed {
                flow: self.exec_term(st, cur, &block.term, k, ops),
                ran: Some(block.term.id),
            },
        }
    }

    /// Evaluates an rvalue forward and (with summaries) over state variables.
    pub fn eval2(
        &mut self,
        st: &State,
        t: Tid,
        rv: &Rvalue,
    ) -> Result<(Evaluated, Option<Evaluated>), Unsupported> {
        let mut r = Ops {
            st,
            t,
            statics: &self.setup.statics,
            dm: self.setup.dm,
            wp: false,
        };
        let f = value::eval_rvalue(&mut self.pool, self.setup.dm, rv, &mut r)?;
        let w = if self.setup.wp_on {
            let mut r = Ops {
                st,
                t,
                statics: &self.setup.statics,
                dm: self.setup.dm,
                wp: true,
            };
            Some(value::eval_rvalue(
                &mut self.pool,
                self.setup.dm,
                rv,
                &mut r,
            )?)
        } else {
            None
        };
        Ok((f, w))
    }

    /// Reads an operand forward and over state variables.
    pub fn operand2(&mut self, st: &State, t: Tid, op: &Operand) -> (SVal, SVal) {
        let mut r = Ops {
            st,
            t,
            statics: &self.setup.statics,
            dm: self.setup.dm,
            wp: false,
        };
        let f = r.read(&mut self.pool, op);
        if !self.setup.wp_on {
            return (f, f);
        }
        let mut r = Ops {
            st,
            t,
            statics: &self.setup.statics,
            dm: self.setup.dm,
            wp: true,
        };
        (f, r.read(&mut self.pool, op))
    }

    /// Sets a register of `t`'s top frame, recording the transformer.
    pub fn set_reg(
        &mut self,
        st: &mut State,
        t: Tid,
        reg: RegId,
        v: SVal,
        vw: SVal,
        ops: &mut Vec<WpOp>,
    ) {
        let func = self.setup.prog.function(st.top(t).func);
        let ty = func.reg(reg).ty;
        let v = v.fit(&mut self.pool, ty, self.setup.dm);
        st.top_mut(t).regs[reg.index()] = v;
        if self.setup.wp_on {
            let vw = vw.fit(&mut self.pool, ty, self.setup.dm);
            let th = &st.threads[t];
            let var = reg_var(th.key, th.frames.len() as u32 - 1, reg);
            ops.extend(set_op(&self.pool, var, vw));
        }
    }

    /// Records, for the weakest precondition, that the forward run decided on
    /// `wp_term == value` (an address, a thread id, a size it needed as a constant).
    pub fn decide(&mut self, ops: &mut Vec<WpOp>, wp_term: Option<TermId>, value: u64) {
        let Some(t) = wp_term.filter(|_| self.setup.wp_on) else {
            return;
        };
        if self.pool.as_bv(t).is_none() {
            let k = self.pool.bv_const(value, self.pool.width(t));
            let eq = self.pool.eq(t, k);
            ops.push(WpOp::Assume(eq));
        }
    }

    /// Records, for the weakest precondition, a condition the forward run found true.
    pub fn decide_truth(&mut self, ops: &mut Vec<WpOp>, cond_wp: TermId) {
        if self.setup.wp_on && !self.pool.is_true(cond_wp) {
            ops.push(WpOp::Assume(cond_wp));
        }
    }

    /// [`Engine::check_fork_wp`] without recording the transformer.
    pub fn check_fork(
        &mut self,
        st: &State,
        t: Tid,
        span: analysis::ir::Span,
        f: &Evaluated,
        w: Option<&Evaluated>,
    ) -> Option<Flow> {
        self.check_fork_wp(st, t, span, f, w, &mut Vec::new())
    }

    /// A fork on a check: the bad side ends the run with a violation, the other side
    /// re-executes the statement knowing the check passed. `None` if the check passes
    /// (recorded in `ops` for the weakest precondition).
    #[allow(clippy::too_many_arguments)]
    pub fn check_fork_wp(
        &mut self,
        st: &State,
        t: Tid,
        span: analysis::ir::Span,
        f: &Evaluated,
        w: Option<&Evaluated>,
        ops: &mut Vec<WpOp>,
    ) -> Option<Flow> {
        for (i, c) in f.checks.iter().enumerate() {
            let ok = self.pool.not(c.bad);
            let bad_wp = w.map_or(self.pool.tru(), |w| w.checks[i].bad);
            let ok_wp = self.pool.not(bad_wp);
            if self.holds(ok) {
                self.decide_truth(ops, ok_wp);
                continue;
            }
            let end = End::Violation {
                kind: c.kind,
                message: c.message.clone(),
                span,
                tid: t,
            };
            return Some(Flow::Fork(vec![
                Side {
                    guard: c.bad,
                    guard_wp: bad_wp,
                    pin: None,
                    next: SideNext::End(st.clone(), end),
                },
                Side {
                    guard: ok,
                    guard_wp: ok_wp,
                    pin: None,
                    next: SideNext::Continue(st.clone()),
                },
            ]));
        }
        None
    }

    /// A fork over the values of a term the statement needs as a constant: each side
    /// pins it and re-executes the statement. `wp_term` is its form over state variables.
    pub fn pin_fork(&mut self, st: &State, t: TermId, wp_term: TermId, what: &str) -> Flow {
        let Some(values) = self.enumerate(t, 64) else {
            return Flow::End(End::Unsupported(format!(
                "{what} takes more than 64 values (or the solver gave up)"
            )));
        };
        let w = self.pool.width(t);
        let sides = values
            .into_iter()
            .map(|v| {
                let k = self.pool.bv_const(v, w);
                let guard = self.pool.eq(t, k);
                let guard_wp = self.pool.eq(wp_term, k);
                Side {
                    guard,
                    guard_wp,
                    pin: Some((t, v)),
                    next: SideNext::Continue(st.clone()),
                }
            })
            .collect();
        Flow::Fork(sides)
    }

    fn exec_local(
        &mut self,
        st: &mut State,
        t: Tid,
        stmt: &Stmt,
        k: &mut StepCtx,
        ops: &mut Vec<WpOp>,
    ) -> Flow {
        match &stmt.kind {
            StmtKind::Assign {
                dst,
                value: Rvalue::Uninit(ty),
            } => {
                let v = self.uninit_value(st, t, *ty, stmt.id);
                self.set_reg(st, t, *dst, v, v, ops);
            }
            StmtKind::Assign { dst, value } => {
                let (f, w) = match self.eval2(st, t, value) {
                    Ok(x) => x,
                    Err(u) => return self.unsupported(stmt.span, u),
                };
                if let Some(flow) = self.check_fork_wp(st, t, stmt.span, &f, w.as_ref(), ops) {
                    return flow;
                }
                let vw = w.map_or(f.value, |w| w.value);
                self.set_reg(st, t, *dst, f.value, vw, ops);
            }
            StmtKind::Call { dst, callee, args } => {
                return self.call(st, t, stmt, *dst, callee, args, ops)
            }
            StmtKind::Nondet { dst, ty } => {
                let v = SVal::Int(self.new_input(st, t, *ty, stmt.id, InputSource::Nondet));
                self.set_reg(st, t, *dst, v, v, ops);
            }
            StmtKind::Havoc {
                dst: Some(dst),
                ty,
                function,
            } => {
                let src = InputSource::Havoc(function.clone());
                let v = SVal::Int(self.new_input(st, t, *ty, stmt.id, src));
                self.set_reg(st, t, *dst, v, v, ops);
            }
            StmtKind::Havoc { dst: None, .. } => {}
            StmtKind::Assume { cond } => return self.assume(st, t, stmt, cond, k, ops),
            StmtKind::Alloc { dst, size, zeroed } => {
                let (sz, sz_w) = self.operand2(st, t, size);
                let SVal::Int(sz_t) = sz else {
                    return self.unsupported(
                        stmt.span,
                        Unsupported("allocation size is a pointer".into()),
                    );
                };
                let Some(n) = self.concrete(sz_t) else {
                    let wpt = sz_w.term().unwrap_or(sz_t);
                    return self.pin_fork(st, sz_t, wpt, "an allocation size");
                };
                self.decide(ops, sz_w.term(), n);
                if st.mem.heap_bytes.saturating_add(n) > self.setup.cfg.max_memory {
                    let detail = format!(
                        "the live heap blocks would exceed {} MiB at {}",
                        self.setup.cfg.max_memory >> 20,
                        self.location(stmt.span)
                    );
                    return Flow::End(End::Bound("memory", detail));
                }
                let th = &mut st.threads[t];
                let seq = th.allocs.entry(stmt.id).or_insert(0);
                let name = ObjName::Heap {
                    thread: th.key,
                    site: stmt.id,
                    seq: *seq,
                };
                *seq += 1;
                let inst = self.names.object(name);
                st.mem.create(inst, n, *zeroed, false, true);
                let p = SVal::Ptr {
                    obj: inst,
                    off: self.pool.bv_const(0, OFFSET_BITS),
                };
                self.set_reg(st, t, *dst, p, p, ops);
            }
            StmtKind::Free { ptr } => return self.free(st, t, stmt, ptr, k, ops),
            StmtKind::Print { dst, format, args } => {
                let func = st.top(t).func;
                let used = dst.is_some_and(|d| self.setup.read_regs[func.index()].contains(&d));
                if let Some(flow) = self.print(st, t, stmt, used, format, args) {
                    return flow;
                }
            }
            StmtKind::Load { .. } | StmtKind::Store { .. } | StmtKind::Sync { .. } => {
                return self.unsupported(
                    stmt.span,
                    Unsupported("internal: a visible event run as a local statement".into()),
                );
            }
        }
        st.top_mut(t).index += 1;
        Flow::Next
    }

    /// An uninitialized value of `ty` under the configured policy.
    pub fn uninit_value(
        &mut self,
        st: &mut State,
        t: Tid,
        ty: Scalar,
        stmt: analysis::ir::StmtId,
    ) -> SVal {
        match self.setup.cfg.uninit {
            UninitPolicy::Zero => SVal::Int(self.pool.bv_const(0, ty.bits(self.setup.dm))),
            UninitPolicy::Nondet => SVal::Int(self.new_input(st, t, ty, stmt, InputSource::Uninit)),
        }
    }

    pub fn unsupported(&self, span: analysis::ir::Span, u: Unsupported) -> Flow {
        Flow::End(End::Unsupported(format!(
            "{}: {}",
            self.location(span),
            u.0
        )))
    }

    /// The effect on other threads that the current step had before `t`'s local code
    /// ends the run (outside atomic sections), if any.
    fn eager_gap(&self, st: &State, t: Tid, k: &StepCtx) -> Option<String> {
        match (&k.shared_effect, st.threads[t].atomic) {
            (Some(effect), 0) if k.tid.is_some() => Some(effect.clone()),
            _ => None,
        }
    }

    /// Does `c` depend only on inputs `t` read since its last visible event (values no
    /// other thread can have seen), with a satisfiable alternative? Then the assume
    /// failing hides nothing from other threads: the run with `t` past the assume (and
    /// never scheduled again) reaches the same states of the others.
    fn fails_privately(&mut self, t: Tid, c: TermId, k: &StepCtx) -> bool {
        let Some(&(_, i0, p0)) = k.fresh.iter().find(|(u, _, _)| *u == t) else {
            return false;
        };
        let fresh: rustc_hash::FxHashSet<Var> = self.path.inputs[i0.min(self.path.inputs.len())..]
            .iter()
            .filter(|r| r.tid == t)
            .map(|r| r.var)
            .collect();
        let private = |pool: &TermPool, term: TermId| {
            let vars = pool.vars(term);
            let touches = vars.iter().any(|(v, _)| fresh.contains(v));
            (touches, vars.iter().all(|(v, _)| fresh.contains(v)))
        };
        let (touches, only) = private(&self.pool, c);
        if !touches || !only {
            return false;
        }
        let mixed = self.path.pcon[p0.min(self.path.pcon.len())..]
            .iter()
            .any(|&conj| {
                let (touches, only) = private(&self.pool, conj);
                touches && !only
            });
        !mixed && self.feasible(c) == Some(true)
    }

    /// `__VERIFIER_assume(cond)`: the run ends where it is false.
    #[allow(clippy::too_many_arguments)]
    fn assume(
        &mut self,
        st: &mut State,
        t: Tid,
        stmt: &Stmt,
        cond: &Operand,
        k: &StepCtx,
        ops: &mut Vec<WpOp>,
    ) -> Flow {
        let (c, cw) = self.operand2(st, t, cond);
        let c = value::truth(&mut self.pool, c);
        let cw = value::truth(&mut self.pool, cw);
        if self.holds(c) {
            self.decide_truth(ops, cw);
            st.top_mut(t).index += 1;
            return Flow::Next;
        }
        let gap = match self.eager_gap(st, t, k) {
            Some(effect) if !self.fails_privately(t, c, k) => Some(format!(
                "thread {t} stopped at the assume at {} (after {effect} in the same step) instead \
                 of ending the run",
                self.location(stmt.span)
            )),
            _ => None,
        };
        let mut pass = st.clone();
        pass.top_mut(t).index += 1;
        let not_c = self.pool.not(c);
        let not_cw = self.pool.not(cw);
        let mut failed = st.clone();
        failed.threads[t].status = Status::Stopped;
        Flow::Fork(vec![
            Side {
                guard: c,
                guard_wp: cw,
                pin: None,
                next: SideNext::Continue(pass),
            },
            Side {
                guard: not_c,
                guard_wp: not_cw,
                pin: None,
                next: SideNext::End(failed, End::AssumeFalse { gap }),
            },
        ])
    }

    #[allow(clippy::too_many_arguments)]
    fn call(
        &mut self,
        st: &mut State,
        t: Tid,
        stmt: &Stmt,
        dst: Option<RegId>,
        callee: &Callee,
        args: &[Operand],
        ops: &mut Vec<WpOp>,
    ) -> Flow {
        let target = match callee {
            Callee::Direct(f) => *f,
            Callee::Indirect(op) => {
                let (v, vw) = self.operand2(st, t, op);
                match self.function_of(st, t, v, vw, stmt.span) {
                    Ok(f) => f,
                    Err(flow) => return flow,
                }
            }
        };
        let mut vals = Vec::with_capacity(args.len());
        let mut wps = Vec::with_capacity(args.len());
        for a in args {
            let (v, w) = self.operand2(st, t, a);
            vals.push(v);
            wps.push(w);
        }
        st.top_mut(t).index += 1;
        let func = self.setup.prog.function(target);
        if !func.is_defined() {
            if let (Some(dst), Some(ty)) = (dst, func.ret) {
                let src = InputSource::Havoc(func.name.clone());
                let v = SVal::Int(self.new_input(st, t, ty, stmt.id, src));
                self.set_reg(st, t, dst, v, v, ops);
            }
            return Flow::Next;
        }
        if let Some(bound) = self.setup.cfg.unwind {
            let active = st.threads[t]
                .frames
                .iter()
                .filter(|f| f.func == target)
                .count();
            if active as u64 > u64::from(bound) {
                let detail = format!(
                    "`{}` recursed more than {bound} times at {}",
                    func.name,
                    self.location(stmt.span)
                );
                return Flow::End(End::Bound("unwind", detail));
            }
        }
        match self.new_frame(st, t, func, &vals, &wps, dst, ops) {
            Ok(frame) => st.threads[t].frames.push(frame),
            Err(u) => return self.unsupported(stmt.span, u),
        }
        Flow::Next
    }

    /// The function a value calls: a violation for null or data pointers, a fork for a
    /// symbolic integer.
    pub fn function_of(
        &mut self,
        st: &State,
        t: Tid,
        v: SVal,
        vw: SVal,
        span: analysis::ir::Span,
    ) -> Result<FuncId, Flow> {
        match v {
            SVal::Func(f) => Ok(f),
            SVal::Int(x) => match self.concrete(x) {
                Some(0) => Err(self.violation(
                    t,
                    span,
                    ViolationKind::NullDereference,
                    "call through a null function pointer",
                )),
                Some(_) => Err(self.violation(
                    t,
                    span,
                    ViolationKind::InvalidDereference,
                    "call through a non-function value",
                )),
                None => Err(self.pin_fork(st, x, vw.term().unwrap_or(x), "a called pointer")),
            },
            SVal::Ptr { .. } => Err(self.violation(
                t,
                span,
                ViolationKind::InvalidDereference,
                "call through a data pointer",
            )),
        }
    }

    pub fn violation(
        &self,
        t: Tid,
        span: analysis::ir::Span,
        kind: ViolationKind,
        message: &str,
    ) -> Flow {
        Flow::End(End::Violation {
            kind,
            message: message.to_string(),
            span,
            tid: t,
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn free(
        &mut self,
        st: &mut State,
        t: Tid,
        stmt: &Stmt,
        ptr: &Operand,
        k: &mut StepCtx,
        ops: &mut Vec<WpOp>,
    ) -> Flow {
        let (p, pw) = self.operand2(st, t, ptr);
        let invalid =
            |e: &Self, msg: &str| e.violation(t, stmt.span, ViolationKind::InvalidFree, msg);
        match p {
            SVal::Int(x) => match self.concrete(x) {
                Some(0) => self.decide(ops, pw.term(), 0),
                Some(_) => return invalid(self, "free of a non-pointer value"),
                None => return self.pin_fork(st, x, pw.term().unwrap_or(x), "a freed pointer"),
            },
            SVal::Func(_) => return invalid(self, "free of a function pointer"),
            SVal::Ptr { obj, off } => {
                let Some(o) = st.mem.get(obj) else {
                    return invalid(self, "free of an unknown object");
                };
                if !o.heap {
                    return invalid(self, "free of memory that is not a heap block");
                }
                if !o.live {
                    return self.violation(t, stmt.span, ViolationKind::DoubleFree, "double free");
                }
                match self.concrete(off) {
                    Some(0) => self.decide(ops, pw.term(), 0),
                    Some(_) => {
                        return invalid(
                            self,
                            "free of a pointer that is not the start of its block",
                        )
                    }
                    None => {
                        return self.pin_fork(
                            st,
                            off,
                            pw.term().unwrap_or(off),
                            "a freed pointer's offset",
                        )
                    }
                }
                st.mem.kill(obj);
                k.touch(super::dpor::Access::write(super::dpor::Loc::Obj(obj)));
                k.shared_effect.get_or_insert_with(|| "a free".to_string());
            }
        }
        st.top_mut(t).index += 1;
        Flow::Next
    }

    /// `printf`: no effect on the state. Its result (when some statement reads it), or
    /// `%s` of anything but a string literal (which reads memory with checks), is not
    /// modelled.
    fn print(
        &mut self,
        st: &State,
        t: Tid,
        stmt: &Stmt,
        has_dst: bool,
        format: &[analysis::ir::FormatPiece],
        args: &[Operand],
    ) -> Option<Flow> {
        if has_dst {
            return Some(self.unsupported(stmt.span, Unsupported("the result of printf".into())));
        }
        let mut next = 0;
        for piece in format {
            if let analysis::ir::FormatPiece::Conv { conv, .. } = piece {
                let Some(arg) = args.get(next) else { break };
                next += 1;
                if *conv == 's' {
                    let (v, _) = self.operand2(st, t, arg);
                    let literal = match v {
                        SVal::Ptr { obj, .. } => st.mem.get(obj).is_some_and(|o| o.read_only),
                        _ => false,
                    };
                    if !literal {
                        let u = Unsupported(
                            "printf `%s` of something other than a string literal".into(),
                        );
                        return Some(self.unsupported(stmt.span, u));
                    }
                }
            }
        }
        None
    }

    fn exec_term(
        &mut self,
        st: &mut State,
        t: Tid,
        term: &Terminator,
        k: &mut StepCtx,
        ops: &mut Vec<WpOp>,
    ) -> Flow {
        match &term.kind {
            TermKind::Goto(b) => self.jump(st, t, b.index() as u32, term),
            TermKind::Branch {
                cond,
                then_bb,
                else_bb,
            } => {
                let (c, cw) = self.operand2(st, t, cond);
                let c = value::truth(&mut self.pool, c);
                let cw = value::truth(&mut self.pool, cw);
                if let Some(b) = self.pool.as_bool(c) {
                    let taken = if b { cw } else { self.pool.not(cw) };
                    self.decide_truth(ops, taken);
                    let target = if b { then_bb } else { else_bb };
                    return self.jump(st, t, target.index() as u32, term);
                }
                let not_c = self.pool.not(c);
                let not_cw = self.pool.not(cw);
                let mut sides = Vec::new();
                for (guard, guard_wp, target) in [(c, cw, then_bb), (not_c, not_cw, else_bb)] {
                    let mut s = st.clone();
                    let next = match self.jump(&mut s, t, target.index() as u32, term) {
                        Flow::End(e) => SideNext::End(s, e),
                        _ => SideNext::Continue(s),
                    };
                    sides.push(Side {
                        guard,
                        guard_wp,
                        pin: None,
                        next,
                    });
                }
                Flow::Fork(sides)
            }
            TermKind::Return(value) => self.return_from(st, t, value.as_ref(), term, k, ops),
            TermKind::ThreadExit(value) => {
                let (v, vw) = self.operand2(st, t, value);
                self.pop_all_frames(st, t, k);
                let key = st.threads[t].key;
                if self.setup.wp_on {
                    ops.extend(set_op(&self.pool, ret_var(key), vw));
                }
                st.threads[t].status = Status::Ending {
                    value: v,
                    exit_program: false,
                    stmt: term.id,
                };
                Flow::Park
            }
            TermKind::Error(failure) => Flow::End(End::Violation {
                kind: ViolationKind::of_failure(failure),
                message: failure.to_string(),
                span: term.span,
                tid: t,
            }),
            TermKind::Abort | TermKind::Exit(_) => match self.eager_gap(st, t, k) {
                Some(effect) => Flow::End(End::AssumeFalse {
                    gap: Some(format!(
                        "thread {t} stopped at {} (after {effect} in the same step) instead of \
                         ending the run",
                        self.location(term.span)
                    )),
                }),
                None if matches!(term.kind, TermKind::Abort) => Flow::End(End::Aborted),
                None => Flow::End(End::Completed),
            },
            TermKind::Unreachable => self.unsupported(
                term.span,
                Unsupported("control reached a point the front end marked unreachable".into()),
            ),
        }
    }

    /// Moves to `block`, counting loop iterations (a back edge adds one to its header's
    /// count; entering a loop from outside restarts it).
    fn jump(&mut self, st: &mut State, t: Tid, block: u32, term: &Terminator) -> Flow {
        let frame = st.top_mut(t);
        let from = frame.block;
        let func = frame.func;
        frame.block = block;
        frame.index = 0;
        if self.setup.back_edges.contains(&(func, from, block)) {
            let count = match frame.loops.iter_mut().find(|(h, _)| *h == block) {
                Some((_, n)) => {
                    *n += 1;
                    *n
                }
                None => {
                    frame.loops.push((block, 1));
                    1
                }
            };
            if let Some(bound) = self.setup.cfg.unwind {
                if count > bound {
                    let detail = format!(
                        "a loop at {} ran more than {bound} iterations",
                        self.location(term.span)
                    );
                    return Flow::End(End::Bound("unwind", detail));
                }
            }
        } else if frame.loops.iter().any(|(h, _)| *h == block) {
            frame.loops.retain(|(h, _)| *h != block);
        }
        Flow::Next
    }

    fn return_from(
        &mut self,
        st: &mut State,
        t: Tid,
        value: Option<&Operand>,
        term: &Terminator,
        k: &mut StepCtx,
        ops: &mut Vec<WpOp>,
    ) -> Flow {
        let value = value.map(|v| self.operand2(st, t, v));
        let ret_ty = self.setup.prog.function(st.top(t).func).ret;
        let frame = st.threads[t]
            .frames
            .pop()
            .expect("a returning thread has a frame");
        self.kill_slots(st, &frame.slots, k);
        let key = st.threads[t].key;
        if st.threads[t].frames.is_empty() {
            let bits = ret_ty.map_or(self.setup.dm.pointer_bits(), |ty| ty.bits(self.setup.dm));
            let zero = SVal::Int(self.pool.bv_const(0, bits));
            let (v, vw) = value.unwrap_or((zero, zero));
            if self.setup.wp_on {
                ops.extend(set_op(&self.pool, ret_var(key), vw));
            }
            st.threads[t].status = Status::Ending {
                value: v,
                exit_program: t == 0,
                stmt: term.id,
            };
            return Flow::Park;
        }
        if let Some(dst) = frame.ret_dst {
            let (v, vw) = match value {
                Some(x) => x,
                None => {
                    let ty = self.setup.prog.function(st.top(t).func).reg(dst).ty;
                    let v = self.uninit_value(st, t, ty, term.id);
                    (v, v)
                }
            };
            self.set_reg(st, t, dst, v, vw, ops);
        }
        Flow::Next
    }

    fn pop_all_frames(&mut self, st: &mut State, t: Tid, k: &mut StepCtx) {
        let frames = std::mem::take(&mut st.threads[t].frames);
        for f in frames.iter().rev() {
            self.kill_slots(st, &f.slots, k);
        }
    }

    /// Ends the lifetime of stack slots; pointers to them become dangling.
    fn kill_slots(&mut self, st: &mut State, slots: &[ObjInst], k: &mut StepCtx) {
        if slots.is_empty() {
            return;
        }
        for &s in slots {
            st.mem.kill(s);
            k.touch(super::dpor::Access::write(super::dpor::Loc::Obj(s)));
        }
        if st.mem.get(self.setup.dead_marker).is_none() {
            st.mem
                .create(self.setup.dead_marker, 0, false, false, false);
            st.mem.kill(self.setup.dead_marker);
        }
        st.invalidate_pointers(slots, self.setup.dead_marker);
        for &s in slots {
            st.mem.objects.remove(&s);
        }
    }
}

/// Statements one step may run without a visible event before the run is cut.
const MAX_STEP_STATEMENTS: u64 = 1_000_000;

/// Loads, stores and synchronizations are the events other threads can observe.
pub fn is_visible(kind: &StmtKind) -> bool {
    matches!(
        kind,
        StmtKind::Load { .. } | StmtKind::Store { .. } | StmtKind::Sync { .. }
    )
}
