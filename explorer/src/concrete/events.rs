//! The visible events: loads, stores and synchronization, with the enabledness rules the
//! scheduler uses and the deadlock report.

use super::machine::{Addr, Flow, Gate, Machine, Stop, ThreadState};
use super::memory::Access;
use super::outcome::{BlockedThread, Bound, RunOutcome, ThreadId, Violation, ViolationKind};
use super::value::Value;
use analysis::ir::{Operand, RegId, Scalar, Span, Stmt, StmtKind, SyncOp, EBUSY};
use std::collections::hash_map::Entry;
use std::collections::VecDeque;

/// Why a thread standing at a lock or a join cannot take its step.
#[derive(Clone, Copy)]
enum Wait {
    Mutex { mutex: Addr, owner: ThreadId },
    Join(ThreadId),
}

impl<'p> Machine<'p> {
    /// Executes the visible statement `t` stands at.
    pub(crate) fn exec_visible(&mut self, t: ThreadId, stmt: &'p Stmt) -> Flow {
        match &stmt.kind {
            StmtKind::Load { dst, addr, ty } => {
                let addr = self.eval(t, addr);
                let v = self.load(addr, *ty)?;
                self.check_race(t, stmt, addr, false)?;
                self.set_reg(t, *dst, v);
                self.advance(t);
                Ok(())
            }
            StmtKind::Store { addr, value, ty } => {
                let (addr, value) = (self.eval(t, addr), self.eval(t, value));
                self.store(addr, *ty, value)?;
                self.check_race(t, stmt, addr, true)?;
                self.advance(t);
                Ok(())
            }
            StmtKind::Sync { dst, op } => self.exec_sync(t, stmt, *dst, op),
            _ => Err(self.unsupported("internal: a local statement run as a visible event")),
        }
    }

    fn exec_sync(
        &mut self,
        t: ThreadId,
        stmt: &'p Stmt,
        dst: Option<RegId>,
        op: &'p SyncOp,
    ) -> Flow {
        let mut result = 0;
        match op {
            SyncOp::ThreadCreate { handle, func, arg } => {
                return self.thread_create(t, dst, handle, func, arg)
            }
            SyncOp::ThreadJoin { thread, result } => self.thread_join(t, thread, result)?,
            SyncOp::MutexInit { mutex } => {
                let m = self.sync_addr(t, mutex)?;
                if let Some(&owner) = self.mutexes.get(&m) {
                    let what = self.mem.describe_addr(m.0, m.1);
                    let message =
                        format!("re-initialization of mutex {what} held by thread {owner}");
                    return Err(self.violation(ViolationKind::LockMisuse, message));
                }
            }
            SyncOp::MutexLock { mutex } => {
                let m = self.sync_addr(t, mutex)?;
                if self.mutexes.get(&m) == Some(&t) {
                    let what = self.mem.describe_addr(m.0, m.1);
                    let message = format!("relock of mutex {what}, already held by this thread");
                    return Err(self.violation(ViolationKind::LockMisuse, message));
                }
                self.mutexes.insert(m, t);
                self.race_acquire(t, m);
            }
            SyncOp::MutexTryLock { mutex } => {
                let m = self.sync_addr(t, mutex)?;
                match self.mutexes.entry(m) {
                    Entry::Occupied(_) => result = EBUSY as u64,
                    Entry::Vacant(free) => {
                        free.insert(t);
                        self.race_acquire(t, m);
                    }
                }
            }
            SyncOp::MutexUnlock { mutex } => {
                let m = self.sync_addr(t, mutex)?;
                self.release(t, m, "unlock")?;
            }
            SyncOp::MutexDestroy { mutex } => {
                let m = self.sync_addr(t, mutex)?;
                if let Some(&owner) = self.mutexes.get(&m) {
                    let what = self.mem.describe_addr(m.0, m.1);
                    let message = format!("destruction of mutex {what} held by thread {owner}");
                    return Err(self.violation(ViolationKind::LockMisuse, message));
                }
            }
            SyncOp::CondInit { cond } | SyncOp::CondDestroy { cond } => {
                self.sync_addr(t, cond)?;
            }
            SyncOp::CondWait { cond, mutex, .. } => {
                let c = self.sync_addr(t, cond)?;
                let m = self.sync_addr(t, mutex)?;
                self.release(t, m, "pthread_cond_wait with")?;
                self.conds.entry(c).or_default().push_back(t);
                self.set_sync_result(t, dst, 0);
                self.advance(t);
                let (stmt, span) = (stmt.id, stmt.span);
                self.threads[t.index()].state = ThreadState::Waiting {
                    cond: c,
                    mutex: m,
                    stmt,
                    span,
                };
                return Ok(());
            }
            SyncOp::CondSignal { cond } => {
                let c = self.sync_addr(t, cond)?;
                if let Some(waiter) = self.conds.get_mut(&c).and_then(VecDeque::pop_front) {
                    self.wake(waiter);
                }
            }
            SyncOp::CondBroadcast { cond } => {
                let c = self.sync_addr(t, cond)?;
                for waiter in self.conds.remove(&c).unwrap_or_default() {
                    self.wake(waiter);
                }
            }
            SyncOp::AtomicBegin => {
                self.threads[t.index()].atomic += 1;
                self.atomic_owner = Some(t);
                if let (1, Some(races)) = (self.threads[t.index()].atomic, &mut self.races) {
                    races.atomic_begin(t);
                }
            }
            SyncOp::AtomicEnd => {
                let thread = &mut self.threads[t.index()];
                if thread.atomic == 0 {
                    return Err(self.unsupported("__VERIFIER_atomic_end outside an atomic section"));
                }
                thread.atomic -= 1;
                if thread.atomic == 0 {
                    self.atomic_owner = None;
                    if let Some(races) = &mut self.races {
                        races.atomic_end(t);
                    }
                }
            }
        }
        self.set_sync_result(t, dst, result);
        self.advance(t);
        Ok(())
    }

    fn set_sync_result(&mut self, t: ThreadId, dst: Option<RegId>, result: u64) {
        if let Some(dst) = dst {
            self.set_reg(t, dst, Value::Int(result));
        }
    }

    /// The address of a mutex, condition or handle: must point into a live object.
    pub(super) fn sync_addr(&self, t: ThreadId, op: &Operand) -> Flow<Addr> {
        let v = self.eval(t, op);
        self.mem
            .check(v, 1, Access::Sync)
            .map_err(|f| self.fault(f))
    }

    /// Releases mutex `m` held by `t`; `what` names the operation for the message.
    fn release(&mut self, t: ThreadId, m: Addr, what: &str) -> Flow {
        match self.mutexes.get(&m) {
            Some(&owner) if owner == t => {
                self.mutexes.remove(&m);
                if let Some(races) = &mut self.races {
                    races.release(t, m);
                }
                Ok(())
            }
            held => {
                let name = self.mem.describe_addr(m.0, m.1);
                let by = match held {
                    Some(owner) => format!("held by thread {owner}"),
                    None => "not held".to_string(),
                };
                let message = format!("{what} mutex {name}, which is {by}");
                Err(self.violation(ViolationKind::LockMisuse, message))
            }
        }
    }

    fn wake(&mut self, waiter: ThreadId) {
        let thread = &mut self.threads[waiter.index()];
        if let ThreadState::Waiting {
            mutex, stmt, span, ..
        } = thread.state
        {
            thread.state = ThreadState::Reacquire { mutex, stmt, span };
        }
    }

    fn thread_create(
        &mut self,
        t: ThreadId,
        dst: Option<RegId>,
        handle: &Operand,
        func: &Operand,
        arg: &Operand,
    ) -> Flow {
        let handle = self.eval(t, handle);
        let start = self.function_pointer(self.eval(t, func))?;
        let arg = self.eval(t, arg);
        let function = self.prog.function(start);
        if !function.is_defined() {
            return Err(self.unsupported(format!(
                "thread start routine `{}` has no body",
                function.name
            )));
        }
        let id = ThreadId(self.threads.len() as u32);
        if let Some(races) = &mut self.races {
            races.create(t, id);
        }
        let handle_ty = Scalar::Int {
            bits: self.dm.pointer_bits(),
            signed: false,
        };
        self.store(handle, handle_ty, Value::Int(u64::from(id.0)))?;
        self.set_sync_result(t, dst, 0);
        self.advance(t);
        let spawned = self.spawn(function, &[arg])?;
        // The new thread runs to its first visible event as part of this event.
        self.run_local(spawned)
    }

    fn thread_join(&mut self, t: ThreadId, thread: &Operand, result: &Operand) -> Flow {
        let target = match self.eval(t, thread) {
            Value::Int(id) => id,
            _ => {
                return Err(self.violation(
                    ViolationKind::JoinMisuse,
                    "join of a pointer, not a thread id",
                ))
            }
        };
        let misuse = |m: &Self, why: String| Err(m.violation(ViolationKind::JoinMisuse, why));
        if target == u64::from(t.0) {
            return misuse(self, format!("thread {t} joins itself"));
        }
        let Some(joined) = usize::try_from(target)
            .ok()
            .filter(|&i| i < self.threads.len())
        else {
            return misuse(
                self,
                format!("join of thread {target}, which does not exist"),
            );
        };
        let value = match self.threads[joined].state {
            ThreadState::Finished { value } => value,
            ThreadState::Joined => {
                return misuse(
                    self,
                    format!("join of thread {target}, which was already joined"),
                )
            }
            _ => return Err(self.unsupported("internal: join of a running thread was scheduled")),
        };
        let result = self.eval(t, result);
        if result != Value::ZERO {
            self.store(result, Scalar::Ptr, value)?;
        }
        self.threads[joined].state = ThreadState::Joined;
        if let Some(races) = &mut self.races {
            races.join(t, ThreadId(joined as u32));
        }
        Ok(())
    }

    /// Fills `enabled` with the threads that may take the next step, in id order.
    /// The threads a spurious wake-up could resume now (with
    /// [`RunConfig::spurious_wakeups`](super::RunConfig::spurious_wakeups)): waiting on a
    /// condition whose mutex is free, outside any atomic section.
    pub(crate) fn wakeable_threads(&self, out: &mut Vec<ThreadId>) {
        out.clear();
        if !self.cfg.spurious_wakeups || self.atomic_owner.is_some() {
            return;
        }
        for &t in &self.live {
            if let ThreadState::Waiting { mutex, stmt, .. } = self.threads[t.index()].state {
                if !self.mutexes.contains_key(&mutex) && self.prog.wait_may_wake_spuriously(stmt) {
                    out.push(t);
                }
            }
        }
    }

    pub(crate) fn enabled_threads(&self, enabled: &mut Vec<ThreadId>) {
        enabled.clear();
        if let Some(owner) = self.atomic_owner {
            if self.is_enabled(owner) {
                enabled.push(owner);
            }
            return;
        }
        for &t in &self.live {
            if self.is_enabled(t) {
                enabled.push(t);
            }
        }
    }

    /// Whether `t`'s pending event can execute now (it may still be a violation).
    fn is_enabled(&self, t: ThreadId) -> bool {
        match self.threads[t.index()].state {
            ThreadState::AtEvent(gate) => self.wait_at_event(t, gate).is_none(),
            ThreadState::Reacquire { mutex, .. } => !self.mutexes.contains_key(&mutex),
            ThreadState::Ending { .. } => true,
            ThreadState::Waiting { .. }
            | ThreadState::Finished { .. }
            | ThreadState::Joined
            | ThreadState::LoopsForever => false,
        }
    }

    /// What the pending statement of `t` waits for, or `None` if it can run. Runs for
    /// every thread at every step, so it only looks at the thread's gate.
    fn wait_at_event(&self, t: ThreadId, gate: Gate) -> Option<Wait> {
        match gate {
            Gate::Open => None,
            Gate::Lock(mutex) => {
                let owner = *self.mutexes.get(&mutex)?;
                (owner != t).then_some(Wait::Mutex { mutex, owner })
            }
            // A thread that does not exist (yet) is a misuse, reported when the join runs.
            Gate::Join(target) => match self.threads.get(usize::try_from(target).ok()?)?.state {
                ThreadState::Finished { .. } | ThreadState::Joined => None,
                _ => Some(Wait::Join(ThreadId(target as u32))),
            },
        }
    }

    /// The gate of the visible statement `t` stands at: what it may wait for. Registers
    /// are thread-local, so the address or thread id it names cannot change while `t`
    /// waits.
    pub(crate) fn gate_of(&self, t: ThreadId) -> Gate {
        let (func, block, index) = self.position(t);
        let Some(StmtKind::Sync { op, .. }) = func.blocks[block].stmts.get(index).map(|s| &s.kind)
        else {
            return Gate::Open;
        };
        match op {
            SyncOp::MutexLock { mutex } => {
                match self.mem.check(self.eval(t, mutex), 1, Access::Sync) {
                    Ok(m) => Gate::Lock(m),
                    // An invalid address is reported when the lock executes.
                    Err(_) => Gate::Open,
                }
            }
            SyncOp::ThreadJoin { thread, .. } => match self.eval(t, thread) {
                Value::Int(target) if target != u64::from(t.0) => Gate::Join(target),
                // Misuse, reported when the join executes.
                _ => Gate::Open,
            },
            _ => Gate::Open,
        }
    }

    fn describe_wait(&self, wait: Wait) -> String {
        match wait {
            Wait::Mutex { mutex, owner } => {
                let name = self.mem.describe_addr(mutex.0, mutex.1);
                format!("mutex {name} (held by thread {owner})")
            }
            Wait::Join(target) => format!("thread {target} to end"),
        }
    }

    /// The end of the run when no thread can take a step: completion if every thread has
    /// finished, else a deadlock naming each blocked thread. A thread looping forever
    /// ([`ThreadState::LoopsForever`]) keeps the program running: it would run into the
    /// statement bound, which ends the run (as the engine, which does not call that a
    /// deadlock either).
    pub(crate) fn nothing_enabled(&self) -> Stop {
        let looping = self
            .live
            .iter()
            .any(|&t| matches!(self.threads[t.index()].state, ThreadState::LoopsForever));
        if looping {
            let bound = Bound::Statements(self.cfg.max_statements);
            return Stop::end(RunOutcome::BoundHit { bound });
        }
        let blocked: Vec<BlockedThread> = self
            .live
            .iter()
            .filter_map(|&t| self.blocked_thread(t))
            .collect();
        let Some(first) = blocked.first() else {
            return Stop::end(RunOutcome::Completed { exit_code: 0 });
        };
        let waits: Vec<String> = blocked.iter().map(|b| b.to_string()).collect();
        Stop::end(RunOutcome::Violation(Violation {
            kind: ViolationKind::Deadlock,
            message: format!("deadlock: no thread can run; {}", waits.join("; ")),
            thread: first.thread,
            span: first.span,
            location: first.location.clone(),
            call_sites: self.call_sites(first.thread),
            race: None,
            blocked,
        }))
    }

    fn blocked_thread(&self, t: ThreadId) -> Option<BlockedThread> {
        let (waits_for, span): (String, Span) = match self.threads[t.index()].state {
            ThreadState::AtEvent(gate) => {
                let (func, block, index) = self.position(t);
                let span = func.blocks[block].stmts[index].span;
                let reason = self.wait_at_event(t, gate).map(|w| self.describe_wait(w));
                (self.or_atomic(t, reason), span)
            }
            ThreadState::Waiting { cond, span, .. } => (
                format!("a signal on {}", self.mem.describe_addr(cond.0, cond.1)),
                span,
            ),
            ThreadState::Reacquire { mutex, span, .. } => {
                let name = self.mem.describe_addr(mutex.0, mutex.1);
                let reason = self.mutexes.get(&mutex).map(|owner| {
                    format!(
                        "mutex {name} (held by thread {owner}) to return from pthread_cond_wait"
                    )
                });
                (self.or_atomic(t, reason), span)
            }
            ThreadState::Ending { span, .. } => (self.or_atomic(t, None), span),
            ThreadState::Finished { .. } | ThreadState::Joined | ThreadState::LoopsForever => {
                return None
            }
        };
        let location = self.prog.location(span);
        Some(BlockedThread {
            thread: t,
            waits_for,
            span,
            location,
        })
    }

    /// `reason`, or (for a thread that could run but for another's atomic section) that.
    fn or_atomic(&self, t: ThreadId, reason: Option<String>) -> String {
        match (reason, self.atomic_owner) {
            (Some(r), _) => r,
            (None, Some(owner)) if owner != t => {
                format!("thread {owner} to leave its atomic section")
            }
            (None, _) => "nothing (internal: it could run)".to_string(),
        }
    }
}
