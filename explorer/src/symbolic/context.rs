//! Starting from a program context ([`crate::context`]): the initial states of the entry
//! threads, and the reads of the initial state (cells no thread has written yet), which
//! take a fresh input or, for a pointer, one candidate of its points-to set per fork
//! side. The interpreter (`concrete::machine`) reads a context the same way.

use super::engine::{End, Engine, Side, SideNext, StaticObj};
use super::names::{ObjInst, ObjName, ThreadName};
use super::state::{Addr, Loaded, State, Status, Tid};
use super::step::{Flow, StepCtx};
use super::term::{CmpOp, TermId};
use super::value::{SVal, Twin, OFFSET_BITS};
use super::VerifyError;
use crate::context::{
    candidates, choice, orders, AbsObj, Candidate, CellOwner, Context, HeldLock, RegStart,
    StartPoint, Target, WaitStart,
};
use analysis::ir::{Function, ObjectKind, RegId, Scalar, StmtId};
use std::collections::BTreeMap;

/// One state a context search starts from: the choice of the entry threads' pointer
/// parameters it stands for (`guard`), or why that choice cannot be modelled.
pub struct Start {
    pub guard: TermId,
    pub state: State,
    pub unsupported: Option<String>,
}

impl Start {
    /// A start state the search can run from.
    fn feasible(guard: TermId, state: State) -> Start {
        Start {
            guard,
            state,
            unsupported: None,
        }
    }
}

/// A pointer parameter of an entry thread, bound per start state.
struct PointerParam {
    tid: Tid,
    reg: RegId,
    choice: TermId,
    targets: Vec<Target>,
    may_be_null: bool,
}

impl<'p> Engine<'p> {
    /// The start states of a context: globals of the initial state, each entry thread
    /// at its function's entry with initial parameters, one state per choice of the
    /// pointer parameters.
    pub fn context_starts(&mut self, ctx: &Context) -> Result<Vec<Start>, VerifyError> {
        let mut st = State::new();
        self.create_context_statics(&mut st, ctx)?;
        let mut pointers = Vec::new();
        for (i, &f) in ctx.threads.iter().enumerate() {
            let func = self.setup.prog.function(f);
            let placeholders = self.placeholder_args(func);
            let key = self.names.thread(ThreadName::Entry(i as u32));
            let t = self
                .spawn(&mut st, key, func, &placeholders, &mut Vec::new())
                .map_err(|u| VerifyError::Program(u.0))?;
            if let Some(start) = ctx.start(i) {
                self.place_at_start(&mut st, t, func, start);
            }
        }
        for (i, &f) in ctx.threads.iter().enumerate() {
            let func = self.setup.prog.function(f);
            pointers.extend(match ctx.start(i) {
                Some(start) => self.initial_regs(&mut st, i, start),
                None => self.initial_params(&mut st, i, func, ctx),
            });
        }
        let mut maybe = Vec::new();
        for t in 0..ctx.threads.len() {
            for &lock in ctx.start(t).map_or(&[][..], |s| &s.maybe_held[..]) {
                maybe.push((t, lock, self.new_input(&mut st, t, Scalar::U32)));
            }
        }
        let mut waiters = Vec::new();
        for (t, w) in ctx.waiters() {
            let choice = self.new_input(&mut st, t, Scalar::U32);
            let stamp = self.new_input(&mut st, t, Scalar::U32);
            waiters.push((t, w, choice, stamp));
        }
        let mut starts = vec![Start {
            guard: self.pool.tru(),
            state: st,
            unsupported: None,
        }];
        for p in &pointers {
            starts = self.bind_pointer_param(starts, p);
        }
        for &(t, w, choice, _) in &waiters {
            starts = starts
                .into_iter()
                .flat_map(|s| self.maybe_wait(s, t, w, choice))
                .collect();
        }
        let mut starts: Vec<Start> = starts
            .into_iter()
            .filter_map(|s| self.take_held_locks(s, ctx))
            .collect();
        for &(t, lock, choice) in &maybe {
            starts = starts
                .into_iter()
                .flat_map(|s| self.maybe_take(s, t, lock, choice))
                .collect();
        }
        let stamps: Vec<(Tid, TermId)> = waiters.iter().map(|&(t, _, _, x)| (t, x)).collect();
        Ok(starts
            .into_iter()
            .flat_map(|s| self.queue_waiters(s, &stamps))
            .collect())
    }

    /// A start state split over whether thread `t` already waits in the
    /// `pthread_cond_wait` of its start line (§4.2): `choice` 0 it stands at its start
    /// point, 1 it is parked after the wait with its mutex released (queued by
    /// [`Engine::queue_waiters`]). A wait on a non-pointer faults, so it never waits.
    fn maybe_wait(&mut self, s: Start, t: Tid, w: &WaitStart, choice: TermId) -> Vec<Start> {
        if s.unsupported.is_some() {
            return vec![s];
        }
        let no = self.pool.bv_const(choice::NO, 32);
        let not_waiting = self.pool.eq(choice, no);
        let yes = self.pool.bv_const(choice::YES, 32);
        let waiting = self.pool.eq(choice, yes);
        let mut out = vec![Start {
            guard: self.pool.and(s.guard, not_waiting),
            state: s.state.clone(),
            unsupported: None,
        }];
        let guard = self.pool.and(s.guard, waiting);
        let mut state = s.state;
        let addrs = self
            .held_addr(&state, t, w.cond)
            .and_then(|c| Ok(c.zip(self.held_addr(&state, t, w.mutex)?)));
        match addrs {
            Ok(Some((cond, mutex))) => {
                let zero = SVal::Int(self.pool.bv_const(0, 32));
                let frame = state.top_mut(t);
                frame.block = w.block;
                frame.index = w.index + 1;
                if let Some(dst) = w.dst {
                    frame.regs[dst.index()] = zero;
                }
                state.threads[t].status = Status::Waiting {
                    cond,
                    mutex,
                    stmt: w.stmt,
                };
                out.push(Start::feasible(guard, state));
            }
            Ok(None) => {}
            Err(why) => out.push(Start {
                guard,
                state,
                unsupported: Some(why),
            }),
        }
        out
    }

    /// A start state split over the orders of the initial waiters of each condition:
    /// the order of their timestamps (`stamps`, ties by thread order).
    fn queue_waiters(&mut self, s: Start, stamps: &[(Tid, TermId)]) -> Vec<Start> {
        if s.unsupported.is_some() {
            return vec![s];
        }
        let mut queues: BTreeMap<Addr, Vec<Tid>> = BTreeMap::new();
        for (t, th) in s.state.threads.iter().enumerate() {
            if let Status::Waiting { cond, .. } = th.status {
                queues.entry(cond).or_default().push(t);
            }
        }
        let stamp = |t: Tid| stamps.iter().find(|(u, _)| *u == t).map(|&(_, x)| x);
        let mut out = vec![s];
        for (cond, waiters) in queues {
            let mut next = Vec::new();
            for s in out {
                for order in orders(&waiters) {
                    let mut guard = s.guard;
                    for pair in order.windows(2) {
                        let (Some(a), Some(b)) = (stamp(pair[0]), stamp(pair[1])) else {
                            continue;
                        };
                        // Ties go to the lower thread: `a` first needs `x_a < x_b`, or
                        // `x_a <= x_b` when `a` is the lower thread.
                        let op = if pair[0] < pair[1] {
                            CmpOp::Ule
                        } else {
                            CmpOp::Ult
                        };
                        let before = self.pool.cmp(op, a, b);
                        guard = self.pool.and(guard, before);
                    }
                    let mut state = s.state.clone();
                    state.conds.insert(cond, order.into_iter().collect());
                    next.push(Start::feasible(guard, state));
                }
            }
            out = next;
        }
        out
    }

    /// The mutex thread `t` waits to re-acquire, when it starts as a waiter.
    fn wait_mutex(st: &State, t: Tid) -> Option<Addr> {
        match st.threads[t].status {
            Status::Waiting { mutex, .. } => Some(mutex),
            _ => None,
        }
    }

    /// A start state split over whether thread `t` holds a mutex it may hold (§4.4):
    /// `choice` 0 it does not, 1 it does (when no other thread holds it).
    fn maybe_take(&mut self, s: Start, t: Tid, lock: HeldLock, choice: TermId) -> Vec<Start> {
        if s.unsupported.is_some() {
            return vec![s];
        }
        let mut out = Vec::new();
        let zero = self.pool.bv_const(0, 32);
        let not_held = self.pool.eq(choice, zero);
        out.push(Start {
            guard: self.pool.and(s.guard, not_held),
            state: s.state.clone(),
            unsupported: None,
        });
        let one = self.pool.bv_const(1, 32);
        let held = self.pool.eq(choice, one);
        let guard = self.pool.and(s.guard, held);
        let mut state = s.state;
        match self.held_addr(&state, t, lock) {
            Ok(Some(addr)) => {
                // A waiter does not hold the mutex it waits to re-acquire.
                if Self::wait_mutex(&state, t) != Some(addr)
                    && state.mutexes.insert(addr, t).is_none()
                {
                    out.push(Start::feasible(guard, state));
                }
            }
            Ok(None) => {}
            Err(why) => out.push(Start {
                guard,
                state,
                unsupported: Some(why),
            }),
        }
        out
    }

    /// Moves thread `t`'s frame to a start point: its stack slots become objects of the
    /// initial state (materialized, so pointers of the initial state may name them).
    fn place_at_start(&mut self, st: &mut State, t: Tid, func: &Function, start: &StartPoint) {
        let frame = st.top_mut(t);
        frame.block = start.block;
        frame.index = start.index;
        let slots = frame.slots.clone();
        for (&obj, inst) in func.slots.iter().zip(slots) {
            st.mem
                .mark_initial(inst, CellOwner::Instance(AbsObj::Slot(obj)));
            st.materialized
                .entry(AbsObj::Slot(obj))
                .or_default()
                .push(inst);
        }
    }

    /// Reads the live registers of thread `t` at its start point from the initial
    /// state, in register order: a constant that must reach it, an input, or (bound by
    /// [`Engine::bind_pointer_param`]) a pointer's candidate.
    fn initial_regs(&mut self, st: &mut State, t: Tid, start: &StartPoint) -> Vec<PointerParam> {
        let dm = self.setup.dm;
        let mut pointers = Vec::new();
        for (reg, init) in &start.regs {
            let func = self.setup.prog.function(st.top(t).func);
            let bits = func.reg(*reg).ty.bits(dm);
            let v = match init {
                RegStart::Known(c) => self.pool.bv_const(*c, bits),
                RegStart::SameAs { thread } => {
                    let v = st.top(*thread as usize).regs[reg.index()];
                    st.top_mut(t).regs[reg.index()] = v;
                    continue;
                }
                RegStart::Input { bits, signed } => {
                    self.new_input(st, t, RegStart::input_type(*bits, *signed))
                }
                RegStart::Pointer(targets) => {
                    let choice = self.new_input(st, t, Scalar::U32);
                    pointers.push(PointerParam {
                        tid: t,
                        reg: *reg,
                        choice,
                        targets: targets.clone(),
                        may_be_null: !start.non_null.contains(reg),
                    });
                    continue;
                }
            };
            st.top_mut(t).regs[reg.index()] = SVal::Int(v);
        }
        pointers
    }

    /// A start state with every thread holding the mutexes its start point holds on
    /// every path (§4.3; an initial waiter: those of its wait, [`WaitStart::held`]), or
    /// `None` when two threads would hold one mutex, a waiter the one it waits for (or one
    /// would hold a mutex at a non-pointer: that lock faulted): no run reaches that
    /// state. A mutex the context cannot place makes the start unsupported.
    fn take_held_locks(&mut self, mut s: Start, ctx: &Context) -> Option<Start> {
        if s.unsupported.is_some() {
            return Some(s);
        }
        for t in 0..ctx.threads.len() {
            let Some(start) = ctx.start(t) else { continue };
            let held = match (&start.waiter, Self::wait_mutex(&s.state, t)) {
                (Some(w), Some(_)) => &w.held,
                _ => &start.held,
            };
            for lock in held {
                let addr = match self.held_addr(&s.state, t, *lock) {
                    Ok(Some(addr)) => addr,
                    // A lock of a non-pointer faulted on every path to the start.
                    Ok(None) => return None,
                    Err(why) => {
                        s.unsupported = Some(format!("{}: {why}", start.location));
                        return Some(s);
                    }
                };
                if Self::wait_mutex(&s.state, t) == Some(addr)
                    || s.state.mutexes.insert(addr, t).is_some()
                {
                    return None;
                }
            }
        }
        Some(s)
    }

    /// The address of a held mutex: `None` when the operand is no pointer.
    fn held_addr(
        &self,
        st: &State,
        t: Tid,
        lock: HeldLock,
    ) -> Result<Option<(ObjInst, u64)>, String> {
        match lock {
            HeldLock::Reg(r) => match st.top(t).regs[r.index()] {
                SVal::Ptr { obj, off } => match self.pool.as_bv(off) {
                    Some(off) => Ok(Some((obj, off))),
                    None => Err("a held mutex at a symbolic offset".into()),
                },
                _ => Ok(None),
            },
            HeldLock::Addr { obj, offset } => {
                let func = self.setup.prog.function(st.top(t).func);
                if let Some(i) = func.slots.iter().position(|&s| s == obj) {
                    return Ok(Some((st.top(t).slots[i], offset)));
                }
                match self.setup.statics[obj.index()] {
                    StaticObj::Global(inst) => Ok(Some((inst, offset))),
                    _ => Err(format!(
                        "a held mutex in `{}`, which has no single instance",
                        self.setup.prog.object(obj).name
                    )),
                }
            }
        }
    }

    /// Globals become objects of the initial state, except string literals and the
    /// globals no statement writes, which keep their initializers.
    fn create_context_statics(&mut self, st: &mut State, ctx: &Context) -> Result<(), VerifyError> {
        let prog = self.setup.prog;
        for o in &prog.objects {
            if let StaticObj::Global(inst) = self.setup.statics[o.id.index()] {
                let literal = o.kind == ObjectKind::StringLiteral;
                st.mem.create(inst, o.size, true, literal, false);
                if o.kind == ObjectKind::Global && !ctx.is_fixed(o.id) {
                    st.mem.mark_initial(inst, CellOwner::Static(o.id));
                }
            }
        }
        for o in &prog.objects {
            if let StaticObj::Global(inst) = self.setup.statics[o.id.index()] {
                if st.mem.initial_owner(inst).is_none() {
                    self.write_initializer(st, o.id, inst, None)?;
                }
            }
        }
        for c in &ctx.known_cells {
            if let StaticObj::Global(inst) = self.setup.statics[c.obj.index()] {
                let v = SVal::Int(self.pool.bv_const(c.bits, c.bytes * 8));
                st.mem.store(inst, c.offset, c.bytes, v);
            }
        }
        Ok(())
    }

    fn placeholder_args(&mut self, func: &Function) -> Vec<Twin<SVal>> {
        let dm = self.setup.dm;
        func.params
            .iter()
            .map(|&p| Twin::same(SVal::Int(self.pool.bv_const(0, func.reg(p).ty.bits(dm)))))
            .collect()
    }

    /// Reads thread `t`'s parameters from the initial state, in order: an integer is an
    /// input, a pointer an input choosing its candidate (bound by
    /// [`Engine::bind_pointer_param`]).
    fn initial_params(
        &mut self,
        st: &mut State,
        t: Tid,
        func: &Function,
        ctx: &Context,
    ) -> Vec<PointerParam> {
        let mut pointers = Vec::new();
        for (i, &reg) in func.params.iter().enumerate() {
            let ty = func.reg(reg).ty;
            if ty == Scalar::Ptr {
                let choice = self.new_input(st, t, Scalar::U32);
                pointers.push(PointerParam {
                    tid: t,
                    reg,
                    choice,
                    targets: ctx.param_targets(func.id, i as u32),
                    may_be_null: ctx.param_may_be_null(func.id, i as u32),
                });
            } else {
                let v = self.new_input(st, t, ty);
                st.top_mut(t).regs[reg.index()] = SVal::Int(v);
            }
        }
        pointers
    }

    /// Every start state times every candidate of the parameter `p`.
    fn bind_pointer_param(&mut self, starts: Vec<Start>, p: &PointerParam) -> Vec<Start> {
        let mut out = Vec::new();
        for s in starts {
            if s.unsupported.is_some() {
                out.push(s);
                continue;
            }
            let cands = candidates(&p.targets, p.may_be_null, |o| {
                materialized_count(&s.state, o)
            });
            for (i, c) in cands.iter().enumerate() {
                let mut state = s.state.clone();
                let k = self.pool.bv_const(i as u64, 32);
                let pick = self.pool.eq(p.choice, k);
                let guard = self.pool.and(s.guard, pick);
                let unsupported = match self.materialize(&mut state, c) {
                    Ok(v) => {
                        state.top_mut(p.tid).regs[p.reg.index()] = v;
                        None
                    }
                    Err(why) => Some(why),
                };
                out.push(Start {
                    guard,
                    state,
                    unsupported,
                });
            }
        }
        out
    }

    /// The value of a candidate in `st`, creating a fresh instance's object.
    fn materialize(&mut self, st: &mut State, c: &Candidate) -> Result<SVal, String> {
        let at = |pool: &mut super::term::TermPool, offset: u64| pool.bv_const(offset, OFFSET_BITS);
        Ok(match *c {
            Candidate::Null => SVal::Int(self.pool.bv_const(0, self.setup.dm.pointer_bits())),
            Candidate::Func(f) => SVal::Func(f),
            Candidate::Static { obj, offset } => match self.setup.statics[obj.index()] {
                StaticObj::Global(inst) => SVal::Ptr {
                    obj: inst,
                    off: at(&mut self.pool, offset),
                },
                _ => {
                    return Err(format!(
                        "a pointer of the initial state may point to `{}`, which has no single instance",
                        self.setup.prog.object(obj).name
                    ))
                }
            },
            Candidate::Existing { obj, seq, offset } => SVal::Ptr {
                obj: st.materialized[&obj][seq as usize],
                off: at(&mut self.pool, offset),
            },
            Candidate::Fresh { obj, size, offset } => {
                let seq = materialized_count(st, obj);
                let inst = self.names.object(ObjName::Initial { obj, seq });
                st.mem
                    .create(inst, size, false, false, matches!(obj, AbsObj::Heap(_)));
                st.mem.mark_initial(inst, CellOwner::Instance(obj));
                st.materialized.entry(obj).or_default().push(inst);
                SVal::Ptr {
                    obj: inst,
                    off: at(&mut self.pool, offset),
                }
            }
            Candidate::Unmodelled(ref why) => return Err(why.clone()),
        })
    }

    /// A pointer load by `t` at `stmt` of the unwritten cell `(obj, off)` of the
    /// initial state, before the load commits: a fork over the pointer's candidates, each
    /// side with the cell written, so the load runs again and reads it. `None` when the
    /// load reads anything else (the load itself reports bad accesses).
    pub(super) fn initial_pointer_fork(
        &mut self,
        st: &mut State,
        t: Tid,
        (obj, off): (ObjInst, i64),
        stmt: StmtId,
    ) -> Option<Flow> {
        let owner = st.mem.initial_owner(obj)?;
        let bytes = self.setup.dm.pointer_bytes();
        let off = st.mem.check(obj, off, bytes, false).ok()?;
        if !matches!(st.mem.load(obj, off, bytes as u8, true), Ok(Loaded::Uninit)) {
            return None;
        }
        let choice = self.new_input(st, t, Scalar::U32);
        let targets = self
            .setup
            .cfg
            .context
            .as_ref()
            .map(|c| c.cell_targets(owner, off))
            .unwrap_or_default();
        let cands = candidates(&targets, true, |o| materialized_count(st, o));
        let mut sides = Vec::with_capacity(cands.len());
        for (i, c) in cands.iter().enumerate() {
            let mut side = st.clone();
            let k = self.pool.bv_const(i as u64, 32);
            let guard = self.pool.eq(choice, k);
            let next = match self.materialize(&mut side, c) {
                Ok(v) => {
                    side.mem.store(obj, off, bytes as u8, v);
                    SideNext::Continue(side)
                }
                Err(why) => {
                    let at = self.location(self.setup.prog.stmt(stmt).span());
                    SideNext::End(side, End::Unsupported(format!("{at}: {why}")))
                }
            };
            sides.push(Side {
                guard,
                guard_wp: guard,
                pin: Some((choice, i as u64)),
                next,
            });
        }
        Some(Flow::Fork(sides))
    }
}

impl<'p> Engine<'p> {
    /// Explores a context: every start state, with every entry thread run to its first
    /// visible event (thread 0 first) before the first scheduling choice.
    pub(super) fn explore_context(&mut self, ctx: &Context) -> Result<(), VerifyError> {
        let starts = self.context_starts(ctx)?;
        let mut k = StepCtx::initial();
        k.resume = (1..ctx.threads.len()).rev().collect();
        for start in starts {
            if self.search.stop {
                break;
            }
            let k = k.clone();
            let _ = self.under(start.guard, None, |e| match start.unsupported {
                None => e.explore_step(start.state, 0, k),
                Some(why) => e.leaf(&start.state, End::Unsupported(why), &k),
            });
        }
        Ok(())
    }
}

fn materialized_count(st: &State, obj: AbsObj) -> u32 {
    st.materialized.get(&obj).map_or(0, |v| v.len() as u32)
}
