//! The visible events: loads, stores, synchronization, condition-variable re-acquires
//! and thread ends, with the enabledness rules and the footprints DPOR uses. Each
//! follows the interpreter's `concrete::events` (which decides the semantics).

use super::dpor::{Access, Footprint, Loc, Role};
use super::engine::{End, Engine, Side, SideNext, StepCtx, TraceItem};
use super::names::{ObjInst, ThreadName};
use super::run::{ret_var, set_op, Flow};
use super::state::{Addr, Fault, Loaded, State, Status, Tid};
use super::summary::WpOp;
use super::term::Var;
use super::value::SVal;
use crate::concrete::{EventKind, UninitPolicy, ViolationKind};
use analysis::ir::{Operand, RegId, Scalar, Span, Stmt, StmtId, StmtKind, SyncOp, EBUSY};

/// A resolved address: object and constant offset, or how to get there.
enum Resolved {
    At(ObjInst, i64),
    Flow(Flow),
}

impl<'p> Engine<'p> {
    /// Resolves a pointer to a concrete (object, offset); integer and function
    /// "pointers" are violations, a symbolic offset forks.
    #[allow(clippy::too_many_arguments)]
    fn resolve(
        &mut self,
        st: &State,
        t: Tid,
        span: Span,
        p: SVal,
        pw: SVal,
        what: &str,
        ops: &mut Vec<WpOp>,
    ) -> Resolved {
        match p {
            SVal::Ptr { obj, off } => match self.concrete(off) {
                Some(o) => {
                    self.decide(ops, pw.term(), o);
                    Resolved::At(obj, o as i64)
                }
                None => Resolved::Flow(self.pin_fork(st, off, pw.term().unwrap_or(off), what)),
            },
            SVal::Int(x) => match self.concrete(x) {
                Some(0) => Resolved::Flow(self.violation(
                    t,
                    span,
                    ViolationKind::NullDereference,
                    "null pointer dereference",
                )),
                Some(_) => Resolved::Flow(self.violation(
                    t,
                    span,
                    ViolationKind::InvalidDereference,
                    "dereference of a non-pointer value",
                )),
                None => {
                    let zero = self.pool.bv_const(0, self.pool.width(x));
                    let is_null = self.pool.eq(x, zero);
                    let not_null = self.pool.not(is_null);
                    let null_end = End::Violation {
                        kind: ViolationKind::NullDereference,
                        message: "null pointer dereference".into(),
                        span,
                        tid: t,
                    };
                    let bad_end = End::Violation {
                        kind: ViolationKind::InvalidDereference,
                        message: "dereference of a non-pointer value".into(),
                        span,
                        tid: t,
                    };
                    let tru = self.pool.tru();
                    Resolved::Flow(Flow::Fork(vec![
                        Side {
                            guard: is_null,
                            guard_wp: tru,
                            pin: None,
                            next: SideNext::End(st.clone(), null_end),
                        },
                        Side {
                            guard: not_null,
                            guard_wp: tru,
                            pin: None,
                            next: SideNext::End(st.clone(), bad_end),
                        },
                    ]))
                }
            },
            SVal::Func(_) => Resolved::Flow(self.violation(
                t,
                span,
                ViolationKind::InvalidDereference,
                "dereference of a function pointer as data",
            )),
        }
    }

    fn fault(&self, t: Tid, span: Span, f: Fault) -> Flow {
        match f {
            Fault::Violation(kind, message) => Flow::End(End::Violation {
                kind,
                message,
                span,
                tid: t,
            }),
            Fault::Unsupported(what) => {
                Flow::End(End::Unsupported(format!("{}: {what}", self.location(span))))
            }
        }
    }

    fn record(&mut self, t: Tid, stmt: StmtId, span: Span, event: EventKind) {
        self.path.trace.push(TraceItem {
            tid: t,
            stmt,
            span,
            event,
        });
    }

    /// Executes the visible statement `t` stands at.
    pub fn exec_visible(
        &mut self,
        st: &mut State,
        t: Tid,
        stmt: &Stmt,
        k: &mut StepCtx,
        ops: &mut Vec<WpOp>,
    ) -> Flow {
        match &stmt.kind {
            StmtKind::Load { dst, addr, ty } => self.load(st, t, stmt, *dst, addr, *ty, k, ops),
            StmtKind::Store { addr, value, ty } => {
                self.store(st, t, stmt, addr, value, *ty, k, ops)
            }
            StmtKind::Sync { dst, op } => self.sync(st, t, stmt, *dst, op, k, ops),
            _ => self.unsupported(
                stmt.span,
                super::value::Unsupported("internal: not a visible event".into()),
            ),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn load(
        &mut self,
        st: &mut State,
        t: Tid,
        stmt: &Stmt,
        dst: RegId,
        addr: &Operand,
        ty: Scalar,
        k: &mut StepCtx,
        ops: &mut Vec<WpOp>,
    ) -> Flow {
        let (p, pw) = self.operand2(st, t, addr);
        let (obj, off) = match self.resolve(st, t, stmt.span, p, pw, "a load address", ops) {
            Resolved::At(o, off) => (o, off),
            Resolved::Flow(f) => return self.commit_fault(t, stmt, k, f),
        };
        self.commit(t, stmt, k);
        let bytes = ty.bytes(self.setup.dm);
        let off = match st.mem.check(obj, off, bytes, false) {
            Ok(o) => o,
            Err(f) => return self.fault(t, stmt.span, f),
        };
        let loaded = match st.mem.load(obj, off, bytes as u8, ty == Scalar::Ptr) {
            Ok(l) => l,
            Err(f) => return self.fault(t, stmt.span, f),
        };
        let cell = Var::Cell { obj, offset: off };
        let (v, vw) = match loaded {
            Loaded::Value(v) => (v, super::run::wp_value(&mut self.pool, v, cell)),
            Loaded::Uninit if st.mem.zero_default(obj) => {
                let z = SVal::Int(self.pool.bv_const(0, ty.bits(self.setup.dm)));
                (z, z)
            }
            Loaded::Uninit => {
                let v = self.uninit_value(st, t, ty, stmt.id);
                if self.setup.cfg.uninit == UninitPolicy::Nondet {
                    // The chosen garbage stays put: later reads of the cell agree.
                    st.mem.store(obj, off, bytes as u8, v);
                    k.touch(Access::write(Loc::Mem(obj, off)));
                    if self.setup.wp_on {
                        ops.extend(set_op(&self.pool, cell, v));
                    }
                }
                (v, v)
            }
        };
        k.touch(Access::read(Loc::Mem(obj, off)));
        self.set_reg(st, t, dst, v, vw, ops);
        st.top_mut(t).index += 1;
        Flow::Next
    }

    #[allow(clippy::too_many_arguments)]
    fn store(
        &mut self,
        st: &mut State,
        t: Tid,
        stmt: &Stmt,
        addr: &Operand,
        value: &Operand,
        ty: Scalar,
        k: &mut StepCtx,
        ops: &mut Vec<WpOp>,
    ) -> Flow {
        let (p, pw) = self.operand2(st, t, addr);
        let (obj, off) = match self.resolve(st, t, stmt.span, p, pw, "a store address", ops) {
            Resolved::At(o, off) => (o, off),
            Resolved::Flow(f) => return self.commit_fault(t, stmt, k, f),
        };
        self.commit(t, stmt, k);
        let bytes = ty.bytes(self.setup.dm);
        let off = match st.mem.check(obj, off, bytes, true) {
            Ok(o) => o,
            Err(f) => return self.fault(t, stmt.span, f),
        };
        let (v, vw) = self.operand2(st, t, value);
        self.write_cell(st, obj, off, ty, v, vw, ops);
        k.touch(Access::write(Loc::Mem(obj, off)));
        k.shared_effect.get_or_insert_with(|| "a store".to_string());
        st.top_mut(t).index += 1;
        Flow::Next
    }

    #[allow(clippy::too_many_arguments)]
    fn write_cell(
        &mut self,
        st: &mut State,
        obj: ObjInst,
        off: u64,
        ty: Scalar,
        v: SVal,
        vw: SVal,
        ops: &mut Vec<WpOp>,
    ) {
        let v = v.fit(&mut self.pool, ty, self.setup.dm);
        st.mem.store(obj, off, ty.bytes(self.setup.dm) as u8, v);
        if self.setup.wp_on {
            let vw = vw.fit(&mut self.pool, ty, self.setup.dm);
            ops.extend(set_op(&self.pool, Var::Cell { obj, offset: off }, vw));
        }
    }

    /// The event executes now: it becomes a step of the interpreter's schedule.
    fn commit(&mut self, t: Tid, stmt: &Stmt, k: &mut StepCtx) {
        if k.tid == Some(t) {
            k.event_pending = false;
        }
        self.record(t, stmt.id, stmt.span, EventKind::Statement);
    }

    /// A flow that resolving an address produced: a fork re-executes the event later,
    /// anything else (a violation) happens in this event.
    fn commit_fault(&mut self, t: Tid, stmt: &Stmt, k: &mut StepCtx, f: Flow) -> Flow {
        if matches!(f, Flow::End(_))
            || matches!(&f, Flow::Fork(sides) if sides.iter().all(|s| matches!(s.next, SideNext::End(..))))
        {
            self.commit(t, stmt, k);
        }
        f
    }

    /// The address of a mutex, condition or handle: a live object.
    fn sync_addr(
        &mut self,
        st: &State,
        t: Tid,
        span: Span,
        op: &Operand,
        ops: &mut Vec<WpOp>,
    ) -> Result<Addr, Flow> {
        let (p, pw) = self.operand2(st, t, op);
        match self.resolve(st, t, span, p, pw, "a synchronization address", ops) {
            Resolved::At(obj, off) => match st.mem.check(obj, off, 1, false) {
                Ok(o) => Ok((obj, o)),
                Err(f) => Err(self.fault(t, span, f)),
            },
            Resolved::Flow(f) => Err(f),
        }
    }

    fn lock_misuse(&self, t: Tid, span: Span, msg: &str) -> Flow {
        self.violation(t, span, ViolationKind::LockMisuse, msg)
    }

    #[allow(clippy::too_many_arguments)]
    fn sync(
        &mut self,
        st: &mut State,
        t: Tid,
        stmt: &Stmt,
        dst: Option<RegId>,
        op: &SyncOp,
        k: &mut StepCtx,
        ops: &mut Vec<WpOp>,
    ) -> Flow {
        let span = stmt.span;
        // Resolve addresses first: a fork re-executes the statement.
        let addrs: Vec<Addr> = {
            let operands: Vec<&Operand> = match op {
                SyncOp::MutexInit { mutex }
                | SyncOp::MutexLock { mutex }
                | SyncOp::MutexUnlock { mutex }
                | SyncOp::MutexTryLock { mutex }
                | SyncOp::MutexDestroy { mutex } => vec![mutex],
                SyncOp::CondInit { cond }
                | SyncOp::CondDestroy { cond }
                | SyncOp::CondSignal { cond }
                | SyncOp::CondBroadcast { cond } => vec![cond],
                SyncOp::CondWait { cond, mutex } => vec![cond, mutex],
                _ => vec![],
            };
            let mut out = Vec::new();
            for o in operands {
                match self.sync_addr(st, t, span, o, ops) {
                    Ok(a) => out.push(a),
                    Err(f) => return self.commit_fault(t, stmt, k, f),
                }
            }
            out
        };
        match op {
            SyncOp::ThreadCreate { handle, func, arg } => {
                return self.create(st, t, stmt, dst, handle, func, arg, k, ops)
            }
            SyncOp::ThreadJoin { thread, result } => {
                return self.join(st, t, stmt, dst, thread, result, k, ops)
            }
            _ => {}
        }
        self.commit(t, stmt, k);
        let mut result = 0;
        match op {
            SyncOp::MutexInit { .. } | SyncOp::MutexDestroy { .. } => {
                if st.mutexes.contains_key(&addrs[0]) {
                    return self.lock_misuse(
                        t,
                        span,
                        "re-initialization or destruction of a held mutex",
                    );
                }
                k.touch(Access::write(Loc::Mutex(addrs[0].0, addrs[0].1)));
            }
            SyncOp::MutexLock { .. } => {
                match st.mutexes.get(&addrs[0]) {
                    Some(&o) if o == t => {
                        return self.lock_misuse(
                            t,
                            span,
                            "relock of a mutex already held by this thread",
                        )
                    }
                    Some(_) => {
                        let what = format!(
                            "{}: internal: a blocked lock was scheduled",
                            self.location(span)
                        );
                        return Flow::End(End::Unsupported(what));
                    }
                    None => {}
                }
                st.mutexes.insert(addrs[0], t);
                k.touch(Access::acquire(Loc::Mutex(addrs[0].0, addrs[0].1)));
                k.shared_effect.get_or_insert_with(|| "a lock".to_string());
            }
            SyncOp::MutexTryLock { .. } => {
                if let std::collections::btree_map::Entry::Vacant(e) = st.mutexes.entry(addrs[0]) {
                    e.insert(t);
                    k.shared_effect
                        .get_or_insert_with(|| "a trylock".to_string());
                } else {
                    result = EBUSY as u64;
                }
                k.touch(Access::write(Loc::Mutex(addrs[0].0, addrs[0].1)));
            }
            SyncOp::MutexUnlock { .. } => {
                if st.mutexes.get(&addrs[0]) != Some(&t) {
                    return self.lock_misuse(
                        t,
                        span,
                        "unlock of a mutex this thread does not hold",
                    );
                }
                st.mutexes.remove(&addrs[0]);
                k.touch(Access::release(Loc::Mutex(addrs[0].0, addrs[0].1)));
                k.shared_effect
                    .get_or_insert_with(|| "an unlock".to_string());
            }
            SyncOp::CondInit { .. } | SyncOp::CondDestroy { .. } => {
                k.touch(Access::write(Loc::Cond(addrs[0].0, addrs[0].1)));
            }
            SyncOp::CondWait { .. } => {
                let (c, m) = (addrs[0], addrs[1]);
                if st.mutexes.get(&m) != Some(&t) {
                    return self.lock_misuse(
                        t,
                        span,
                        "pthread_cond_wait with a mutex this thread does not hold",
                    );
                }
                st.mutexes.remove(&m);
                st.conds.entry(c).or_default().push_back(t);
                self.set_sync_result(st, t, dst, 0, ops);
                st.top_mut(t).index += 1;
                st.threads[t].status = Status::Waiting {
                    cond: c,
                    mutex: m,
                    stmt: stmt.id,
                };
                k.touch(Access::write(Loc::Cond(c.0, c.1)));
                k.touch(Access::release(Loc::Mutex(m.0, m.1)));
                k.shared_effect
                    .get_or_insert_with(|| "a condition wait".to_string());
                return Flow::Park;
            }
            SyncOp::CondSignal { .. } => {
                let c = addrs[0];
                if let Some(w) = st.conds.get_mut(&c).and_then(|q| q.pop_front()) {
                    wake(st, w);
                }
                if st.conds.get(&c).is_some_and(|q| q.is_empty()) {
                    st.conds.remove(&c);
                }
                k.touch(Access::release(Loc::Cond(c.0, c.1)));
                k.shared_effect
                    .get_or_insert_with(|| "a signal".to_string());
            }
            SyncOp::CondBroadcast { .. } => {
                let c = addrs[0];
                for w in st.conds.remove(&c).unwrap_or_default() {
                    wake(st, w);
                }
                k.touch(Access::release(Loc::Cond(c.0, c.1)));
                k.shared_effect
                    .get_or_insert_with(|| "a broadcast".to_string());
            }
            SyncOp::AtomicBegin => {
                st.threads[t].atomic += 1;
                st.atomic_owner = Some(t);
            }
            SyncOp::AtomicEnd => {
                let th = &mut st.threads[t];
                if th.atomic == 0 {
                    let what = format!(
                        "{}: __VERIFIER_atomic_end outside an atomic section",
                        self.location(span)
                    );
                    return Flow::End(End::Unsupported(what));
                }
                th.atomic -= 1;
                if th.atomic == 0 {
                    st.atomic_owner = None;
                    k.shared_effect
                        .get_or_insert_with(|| "the end of an atomic section".to_string());
                }
            }
            SyncOp::ThreadCreate { .. } | SyncOp::ThreadJoin { .. } => {
                unreachable!("handled above")
            }
        }
        self.set_sync_result(st, t, dst, result, ops);
        st.top_mut(t).index += 1;
        Flow::Next
    }

    fn set_sync_result(
        &mut self,
        st: &mut State,
        t: Tid,
        dst: Option<RegId>,
        result: u64,
        ops: &mut Vec<WpOp>,
    ) {
        if let Some(dst) = dst {
            let v = SVal::Int(self.pool.bv_const(result, 32));
            self.set_reg(st, t, dst, v, v, ops);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn create(
        &mut self,
        st: &mut State,
        t: Tid,
        stmt: &Stmt,
        dst: Option<RegId>,
        handle: &Operand,
        func: &Operand,
        arg: &Operand,
        k: &mut StepCtx,
        ops: &mut Vec<WpOp>,
    ) -> Flow {
        let span = stmt.span;
        let (h, hw) = self.operand2(st, t, handle);
        let (obj, off) = match self.resolve(st, t, span, h, hw, "a thread handle address", ops) {
            Resolved::At(o, off) => (o, off),
            Resolved::Flow(f) => return self.commit_fault(t, stmt, k, f),
        };
        let (fv, fw) = self.operand2(st, t, func);
        let start = match self.function_of(st, t, fv, fw, span) {
            Ok(f) => f,
            Err(flow) => return self.commit_fault(t, stmt, k, flow),
        };
        self.commit(t, stmt, k);
        let (a, aw) = self.operand2(st, t, arg);
        let function = self.setup.prog.function(start);
        if !function.is_defined() {
            let what = format!(
                "{}: thread start routine `{}` has no body",
                self.location(span),
                function.name
            );
            return Flow::End(End::Unsupported(what));
        }
        let child = st.threads.len();
        if child >= self.setup.cfg.max_threads {
            let detail = format!(
                "a run created more than {} threads (at {})",
                self.setup.cfg.max_threads,
                self.location(span)
            );
            return Flow::End(End::Bound("max-threads", detail));
        }
        let handle_ty = Scalar::Int {
            bits: self.setup.dm.pointer_bits(),
            signed: false,
        };
        let bytes = handle_ty.bytes(self.setup.dm);
        let off = match st.mem.check(obj, off, bytes, true) {
            Ok(o) => o,
            Err(f) => return self.fault(t, span, f),
        };
        let id = SVal::Int(
            self.pool
                .bv_const(child as u64, self.setup.dm.pointer_bits()),
        );
        self.write_cell(st, obj, off, handle_ty, id, id, ops);
        self.set_sync_result(st, t, dst, 0, ops);
        st.top_mut(t).index += 1;
        let parent = st.threads[t].key;
        let seq = st.threads[t].created;
        st.threads[t].created += 1;
        let key = self.names.thread(ThreadName::Child { parent, seq });
        k.touch(Access::write(Loc::Mem(obj, off)));
        k.touch(Access::write(Loc::Thread(key)));
        k.shared_effect
            .get_or_insert_with(|| "a thread creation".to_string());
        let spawned = match self.spawn(st, key, function, &[a], &[aw], ops) {
            Ok(tid) => tid,
            Err(u) => return self.unsupported(span, u),
        };
        k.created.push(spawned);
        k.resume.push(t);
        Flow::Switch(spawned)
    }

    #[allow(clippy::too_many_arguments)]
    fn join(
        &mut self,
        st: &mut State,
        t: Tid,
        stmt: &Stmt,
        dst: Option<RegId>,
        thread: &Operand,
        result: &Operand,
        k: &mut StepCtx,
        ops: &mut Vec<WpOp>,
    ) -> Flow {
        let span = stmt.span;
        let (tv, tw) = self.operand2(st, t, thread);
        let target = match tv {
            SVal::Int(x) => match self.concrete(x) {
                Some(v) => {
                    self.decide(ops, tw.term(), v);
                    v
                }
                None => return self.pin_fork(st, x, tw.term().unwrap_or(x), "a joined thread id"),
            },
            _ => {
                self.commit(t, stmt, k);
                return self.violation(
                    t,
                    span,
                    ViolationKind::JoinMisuse,
                    "join of a pointer, not a thread id",
                );
            }
        };
        let (r, rw) = self.operand2(st, t, result);
        let result_at = match r {
            SVal::Int(x) => match self.concrete(x) {
                Some(0) => {
                    self.decide(ops, rw.term(), 0);
                    None
                }
                Some(_) => Some(Err(())),
                None => {
                    return self.pin_fork(st, x, rw.term().unwrap_or(x), "a join result address")
                }
            },
            SVal::Ptr { .. } => {
                match self.resolve(st, t, span, r, rw, "a join result address", ops) {
                    Resolved::At(o, off) => Some(Ok((o, off))),
                    Resolved::Flow(f) => return self.commit_fault(t, stmt, k, f),
                }
            }
            SVal::Func(_) => Some(Err(())),
        };
        self.commit(t, stmt, k);
        if target == t as u64 {
            return self.violation(t, span, ViolationKind::JoinMisuse, "a thread joins itself");
        }
        let Some(j) = usize::try_from(target)
            .ok()
            .filter(|&j| j < st.threads.len())
        else {
            return self.violation(
                t,
                span,
                ViolationKind::JoinMisuse,
                "join of a thread that does not exist",
            );
        };
        let value = match st.threads[j].status {
            Status::Finished { value } => value,
            Status::Joined => {
                return self.violation(
                    t,
                    span,
                    ViolationKind::JoinMisuse,
                    "join of a thread already joined",
                )
            }
            _ => {
                let what = format!(
                    "{}: internal: join of a running thread was scheduled",
                    self.location(span)
                );
                return Flow::End(End::Unsupported(what));
            }
        };
        let jkey = st.threads[j].key;
        k.touch(Access::acquire(Loc::Thread(jkey)));
        match result_at {
            None => {}
            Some(Err(())) => {
                let (kind, msg) = match r {
                    SVal::Func(_) => (
                        ViolationKind::InvalidDereference,
                        "dereference of a function pointer as data",
                    ),
                    _ => (
                        ViolationKind::InvalidDereference,
                        "dereference of a non-pointer value",
                    ),
                };
                return self.violation(t, span, kind, msg);
            }
            Some(Ok((obj, off))) => {
                let off = match st.mem.check(obj, off, self.setup.dm.pointer_bytes(), true) {
                    Ok(o) => o,
                    Err(f) => return self.fault(t, span, f),
                };
                let vw = super::run::wp_value(&mut self.pool, value, ret_var(jkey));
                self.write_cell(st, obj, off, Scalar::Ptr, value, vw, ops);
                k.touch(Access::write(Loc::Mem(obj, off)));
                k.shared_effect
                    .get_or_insert_with(|| "a join result".to_string());
            }
        }
        st.threads[j].status = Status::Joined;
        self.set_sync_result(st, t, dst, 0, ops);
        st.top_mut(t).index += 1;
        Flow::Next
    }

    /// Re-acquiring a mutex after a signal, or the end event of a thread.
    pub fn exec_special(
        &mut self,
        st: &mut State,
        t: Tid,
        k: &mut StepCtx,
        ops: &mut Vec<WpOp>,
    ) -> Flow {
        let _ = ops;
        match st.threads[t].status {
            Status::Reacquire { cond, mutex, stmt } => {
                let span = self.setup.prog.stmt(stmt).span();
                self.record(t, stmt, span, EventKind::Reacquire);
                st.mutexes.insert(mutex, t);
                st.threads[t].status = Status::AtEvent;
                k.touch(Access::acquire(Loc::Mutex(mutex.0, mutex.1)));
                k.touch(Access::acquire(Loc::Cond(cond.0, cond.1)));
                k.shared_effect
                    .get_or_insert_with(|| "a mutex re-acquire".to_string());
                Flow::Next
            }
            Status::Waiting { cond, mutex, stmt } if self.setup.cfg.spurious_wakeups => {
                // A spurious wake-up: the thread leaves the condition's queue (which a
                // later signal would have served) and re-acquires the mutex.
                let span = self.setup.prog.stmt(stmt).span();
                self.record(t, stmt, span, EventKind::Reacquire);
                if let Some(q) = st.conds.get_mut(&cond) {
                    q.retain(|&w| w != t);
                }
                st.mutexes.insert(mutex, t);
                st.threads[t].status = Status::AtEvent;
                k.touch(Access::acquire(Loc::Mutex(mutex.0, mutex.1)));
                k.touch(Access::write(Loc::Cond(cond.0, cond.1)));
                k.shared_effect
                    .get_or_insert_with(|| "a spurious wake-up".to_string());
                Flow::Next
            }
            Status::Ending {
                value,
                exit_program,
                stmt,
            } => {
                let span = self.setup.prog.stmt(stmt).span();
                self.record(t, stmt, span, EventKind::ThreadEnd);
                if exit_program {
                    k.touch(Access::write(Loc::All));
                    return Flow::End(End::Completed);
                }
                let th = &mut st.threads[t];
                th.status = Status::Finished { value };
                th.atomic = 0;
                let key = th.key;
                let tls = std::mem::take(&mut th.tls);
                for o in tls {
                    st.mem.kill(o);
                    k.touch(Access::write(Loc::Obj(o)));
                }
                if st.atomic_owner == Some(t) {
                    st.atomic_owner = None;
                }
                k.touch(Access::release(Loc::Thread(key)));
                k.shared_effect
                    .get_or_insert_with(|| "a thread end".to_string());
                Flow::Park
            }
            _ => Flow::Park,
        }
    }

    /// Can `t` take a step now (its pending event may still be a violation)?
    pub fn is_enabled(&self, st: &State, t: Tid) -> bool {
        match st.threads[t].status {
            Status::AtEvent => !self.blocked_at_event(st, t),
            Status::Reacquire { mutex, .. } => !st.mutexes.contains_key(&mutex),
            Status::Waiting { mutex, .. } => {
                self.setup.cfg.spurious_wakeups
                    && st.atomic_owner.is_none()
                    && !st.mutexes.contains_key(&mutex)
            }
            Status::Ending { .. } => true,
            _ => false,
        }
    }

    /// Can `t` take a step other than a spurious wake-up?
    pub fn is_enabled_without_wakeup(&self, st: &State, t: Tid) -> bool {
        !matches!(st.threads[t].status, Status::Waiting { .. }) && self.is_enabled(st, t)
    }

    /// The threads that may take the next step, in id order.
    pub fn enabled_threads(&self, st: &State) -> Vec<Tid> {
        if let Some(o) = st.atomic_owner {
            return if self.is_enabled(st, o) {
                vec![o]
            } else {
                vec![]
            };
        }
        (0..st.threads.len())
            .filter(|&t| self.is_enabled(st, t))
            .collect()
    }

    /// The statement at thread `t`'s position (its pending event when it is at one).
    pub fn pending_stmt(&self, st: &State, t: Tid) -> Option<&'p Stmt> {
        let f = st.threads[t].frames.last()?;
        self.setup.prog.function(f.func).blocks[f.block as usize]
            .stmts
            .get(f.index as usize)
    }

    /// A pointer operand's (object, offset) if it is known without forking.
    fn peek_addr(&self, st: &State, t: Tid, op: &Operand) -> Option<(ObjInst, Option<u64>)> {
        let v = match op {
            Operand::Reg(r) => st.top(t).regs[r.index()],
            Operand::Addr { obj, offset } => {
                let inst = match self.setup.statics[obj.index()] {
                    super::engine::StaticObj::Global(i) => i,
                    super::engine::StaticObj::ThreadLocal(i) => st.threads[t].tls[i],
                    super::engine::StaticObj::Slot(i) => st.top(t).slots[i],
                };
                return Some((inst, Some(*offset)));
            }
            _ => return None,
        };
        match v {
            SVal::Ptr { obj, off } => Some((obj, self.concrete(off))),
            _ => None,
        }
    }

    /// Is an operand certainly the null pointer (integer 0)?
    fn is_null_operand(&self, st: &State, t: Tid, op: &Operand) -> bool {
        match op {
            Operand::Null => true,
            Operand::Int { bits, .. } => *bits == 0,
            Operand::Reg(r) => match st.top(t).regs[r.index()] {
                SVal::Int(x) => self.concrete(x) == Some(0),
                _ => false,
            },
            _ => false,
        }
    }

    fn blocked_at_event(&self, st: &State, t: Tid) -> bool {
        let Some(stmt) = self.pending_stmt(st, t) else {
            return false;
        };
        let StmtKind::Sync { op, .. } = &stmt.kind else {
            return false;
        };
        match op {
            SyncOp::MutexLock { mutex } => match self.peek_addr(st, t, mutex) {
                Some((obj, Some(off))) => st.mutexes.get(&(obj, off)).is_some_and(|&o| o != t),
                _ => false,
            },
            SyncOp::ThreadJoin { thread, .. } => {
                let v = match thread {
                    Operand::Reg(r) => st.top(t).regs[r.index()],
                    Operand::Int { bits, .. } => return self.join_blocked(st, t, *bits),
                    _ => return false,
                };
                match v {
                    SVal::Int(x) => match self.concrete(x) {
                        Some(id) => self.join_blocked(st, t, id),
                        None => false,
                    },
                    _ => false,
                }
            }
            _ => false,
        }
    }

    fn join_blocked(&self, st: &State, t: Tid, id: u64) -> bool {
        match usize::try_from(id)
            .ok()
            .filter(|&j| j < st.threads.len() && j != t)
        {
            Some(j) => !matches!(
                st.threads[j].status,
                Status::Finished { .. } | Status::Joined
            ),
            None => false,
        }
    }

    /// The footprint of `t`'s pending event, as far as it is known before it runs.
    pub fn pending_footprint(&self, st: &State, t: Tid) -> Option<Footprint> {
        let th = &st.threads[t];
        let cell = |a: Option<(ObjInst, Option<u64>)>, write: bool| match a {
            Some((o, Some(off))) => Access {
                loc: Loc::Mem(o, off),
                write,
                role: Role::Plain,
            },
            Some((o, None)) => Access {
                loc: Loc::Obj(o),
                write,
                role: Role::Plain,
            },
            None => Access::write(Loc::All),
        };
        let sync = |a: Option<(ObjInst, Option<u64>)>, mk: fn(ObjInst, u64) -> Loc| match a {
            Some((o, Some(off))) => Access::write(mk(o, off)),
            _ => Access::write(Loc::All),
        };
        Some(match th.status {
            Status::AtEvent => {
                let stmt = self.pending_stmt(st, t)?;
                match &stmt.kind {
                    StmtKind::Load { addr, .. } => vec![cell(self.peek_addr(st, t, addr), false)],
                    StmtKind::Store { addr, .. } => vec![cell(self.peek_addr(st, t, addr), true)],
                    StmtKind::Sync { op, .. } => match op {
                        SyncOp::MutexLock { mutex } => {
                            let mut a = sync(self.peek_addr(st, t, mutex), Loc::Mutex);
                            a.role = Role::Acquire;
                            vec![a]
                        }
                        SyncOp::MutexUnlock { mutex } => {
                            let mut a = sync(self.peek_addr(st, t, mutex), Loc::Mutex);
                            a.role = Role::Release;
                            vec![a]
                        }
                        SyncOp::MutexInit { mutex }
                        | SyncOp::MutexTryLock { mutex }
                        | SyncOp::MutexDestroy { mutex } => {
                            vec![sync(self.peek_addr(st, t, mutex), Loc::Mutex)]
                        }
                        SyncOp::CondSignal { cond } | SyncOp::CondBroadcast { cond } => {
                            let mut a = sync(self.peek_addr(st, t, cond), Loc::Cond);
                            a.role = Role::Release;
                            vec![a]
                        }
                        SyncOp::CondInit { cond } | SyncOp::CondDestroy { cond } => {
                            vec![sync(self.peek_addr(st, t, cond), Loc::Cond)]
                        }
                        SyncOp::CondWait { cond, mutex } => {
                            let mut m = sync(self.peek_addr(st, t, mutex), Loc::Mutex);
                            m.role = Role::Release;
                            vec![sync(self.peek_addr(st, t, cond), Loc::Cond), m]
                        }
                        SyncOp::ThreadCreate { handle, .. } => {
                            let child = self.names_child(th);
                            let mut f = vec![cell(self.peek_addr(st, t, handle), true)];
                            f.extend(child.map(|c| Access::write(Loc::Thread(c))));
                            f
                        }
                        SyncOp::ThreadJoin { thread, result } => {
                            let mut f = match self.join_target_key(st, t, thread) {
                                Some(key) => vec![Access::acquire(Loc::Thread(key))],
                                None => vec![Access::write(Loc::All)],
                            };
                            if !self.is_null_operand(st, t, result) {
                                f.push(cell(self.peek_addr(st, t, result), true));
                            }
                            f
                        }
                        SyncOp::AtomicBegin => match self.setup.atomic_footprints.get(&stmt.id) {
                            Some(f) => f.clone(),
                            None => vec![Access::write(Loc::All)],
                        },
                        SyncOp::AtomicEnd => vec![Access::write(Loc::All)],
                    },
                    _ => vec![Access::write(Loc::All)],
                }
            }
            Status::Reacquire { cond, mutex, .. } => vec![
                Access::acquire(Loc::Mutex(mutex.0, mutex.1)),
                Access::acquire(Loc::Cond(cond.0, cond.1)),
            ],
            // Woken by a signal (an acquire of the condition), or spuriously (leaving the
            // condition's queue races with the signals that would have served it).
            Status::Waiting { cond, mutex, .. } => {
                let mut f = vec![
                    Access::acquire(Loc::Mutex(mutex.0, mutex.1)),
                    Access::acquire(Loc::Cond(cond.0, cond.1)),
                ];
                if self.setup.cfg.spurious_wakeups {
                    f.push(Access::write(Loc::Cond(cond.0, cond.1)));
                }
                f
            }
            Status::Ending {
                exit_program: true, ..
            } => vec![Access::write(Loc::All)],
            Status::Ending { .. } => {
                let mut f = vec![Access::release(Loc::Thread(th.key))];
                f.extend(th.tls.iter().map(|&o| Access::write(Loc::Obj(o))));
                f
            }
            _ => return None,
        })
    }

    fn names_child(&self, th: &super::state::Thread) -> Option<super::names::ThreadKey> {
        self.names.lookup_thread(ThreadName::Child {
            parent: th.key,
            seq: th.created,
        })
    }

    fn join_target_key(
        &self,
        st: &State,
        t: Tid,
        thread: &Operand,
    ) -> Option<super::names::ThreadKey> {
        let id = match thread {
            Operand::Reg(r) => match st.top(t).regs[r.index()] {
                SVal::Int(x) => self.concrete(x)?,
                _ => return None,
            },
            Operand::Int { bits, .. } => *bits,
            _ => return None,
        };
        let j = usize::try_from(id).ok().filter(|&j| j < st.threads.len())?;
        Some(st.threads[j].key)
    }
}

fn wake(st: &mut State, w: Tid) {
    if let Status::Waiting { cond, mutex, stmt } = st.threads[w].status {
        st.threads[w].status = Status::Reacquire { cond, mutex, stmt };
    }
}
