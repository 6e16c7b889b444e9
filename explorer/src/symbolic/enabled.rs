//! Which threads may take the next step, and the footprint DPOR assumes for a thread's
//! pending event before it runs.

use super::dpor::{sync_objects, Access, Footprint, Loc, Role, SyncObject};
use super::engine::Engine;
use super::names::{ObjInst, ThreadName};
use super::reach::SectionFootprint;
use super::state::{State, Status, Tid};
use super::value::SVal;
use analysis::ir::{Operand, Stmt, StmtId, StmtKind, SyncOp};
impl<'p> Engine<'p> {
    /// Can `t` take a step now (its pending event may still be a violation)?
    pub fn is_enabled(&self, st: &State, t: Tid) -> bool {
        match st.threads[t].status {
            Status::AtEvent => !self.blocked_at_event(st, t),
            Status::Reacquire { mutex, .. } => !st.mutexes.contains_key(&mutex),
            Status::Waiting { mutex, stmt, .. } => {
                self.may_wake_spuriously(stmt)
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

    /// Is `t`'s next step the one that ends the program (`main`'s return)?
    pub fn ends_program(st: &State, t: Tid) -> bool {
        matches!(
            st.threads[t].status,
            Status::Ending {
                exit_program: true,
                ..
            }
        )
    }

    /// Does this engine defer the step that ends the program ([`super::Config::defer_exit`];
    /// the DPOR search only: not the probe's own schedules, not the baseline)?
    pub fn defers_exit(&self) -> bool {
        self.setup.cfg.defer_exit
            && !self.setup.probe
            && self.setup.cfg.strategy != super::Strategy::Baseline
    }

    /// The threads the search may schedule at `st`: the enabled ones, without the step
    /// that ends the program while another thread can take a step other than a
    /// spurious wake-up, when the exit is deferred (see `search`, "Exit deferral").
    /// With only spurious wake-ups beside it the exit stays enabled: dropping it would
    /// make the node look stuck (a deadlock), which the early exit avoids.
    pub fn schedulable_threads(&self, st: &State) -> Vec<Tid> {
        let mut enabled = self.enabled_threads(st);
        if self.defers_exit()
            && enabled
                .iter()
                .any(|&t| !Self::ends_program(st, t) && self.is_enabled_without_wakeup(st, t))
        {
            enabled.retain(|&t| !Self::ends_program(st, t));
        }
        enabled
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
        let sync = |a: Option<(ObjInst, Option<u64>)>, kind: SyncObject, role: Role| {
            let mut access = match a {
                Some((o, Some(off))) => Access::write(kind.loc(o, off)),
                _ => Access::write(Loc::All),
            };
            access.role = role;
            access
        };
        Some(match th.status {
            Status::AtEvent => {
                let stmt = self.pending_stmt(st, t)?;
                match &stmt.kind {
                    StmtKind::Load { addr, .. } => vec![cell(self.peek_addr(st, t, addr), false)],
                    StmtKind::Store { addr, .. } => vec![cell(self.peek_addr(st, t, addr), true)],
                    StmtKind::Sync { op, .. } => match op {
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
                            Some(f) => self.section_footprint(st, t, f),
                            None => vec![Access::write(Loc::All)],
                        },
                        SyncOp::AtomicEnd => vec![Access::write(Loc::All)],
                        _ => sync_objects(op)
                            .into_iter()
                            .map(|(o, kind, role)| sync(self.peek_addr(st, t, o), kind, role))
                            .collect(),
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
            Status::Waiting { cond, mutex, stmt } => {
                let mut f = vec![
                    Access::acquire(Loc::Mutex(mutex.0, mutex.1)),
                    Access::acquire(Loc::Cond(cond.0, cond.1)),
                ];
                if self.may_wake_spuriously(stmt) {
                    f.push(Access::write(Loc::Cond(cond.0, cond.1)));
                    if self.spurious_wake_is_global() {
                        f.push(Access::write(Loc::All));
                    }
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

    /// May the condition wait at `stmt` end now without a signal? Spurious wake-ups are
    /// explored (`Config::spurious_wakeups`) and the wait is the program's
    /// (`Program::wait_may_wake_spuriously`).
    pub fn may_wake_spuriously(&self, stmt: StmtId) -> bool {
        self.setup.cfg.spurious_wakeups && self.setup.prog.wait_may_wake_spuriously(stmt)
    }

    /// Is a spurious wake-up (one that [may happen](Self::may_wake_spuriously)) dependent
    /// with every step of every other thread? When
    /// deadlocks are checked: a state where every thread that can still move could only
    /// wake spuriously is a deadlock (`search`), and such a state is reached only by the
    /// runs that put the wake-ups after the other threads' steps. DPOR explores one order
    /// of independent steps, so with a wake-up independent of them it may explore only the
    /// runs that wake early and never meet the deadlock (a waiter nobody signals while
    /// `main` goes on to join it). Dependent with everything, every order of a wake-up
    /// with the other threads' steps is explored: the deadlock among them.
    pub fn spurious_wake_is_global(&self) -> bool {
        self.setup.cfg.checks.deadlock
    }

    /// The accesses of `t`'s pending atomic section: the static ones, and those through
    /// pointer parameters at the addresses its frame holds (everything when one is not a
    /// pointer: the section then faults).
    fn section_footprint(&self, st: &State, t: Tid, f: &SectionFootprint) -> Footprint {
        let mut foot = f.fixed.clone();
        let regs = &st.top(t).regs;
        for &(r, write) in &f.via_params {
            let loc = match regs.get(r.index()) {
                Some(SVal::Ptr { obj, off }) => match self.concrete(*off) {
                    Some(off) => Loc::Mem(*obj, off),
                    None => Loc::Obj(*obj),
                },
                _ => Loc::All,
            };
            let access = Access {
                loc,
                write: write || loc == Loc::All,
                role: Role::Plain,
            };
            if !foot.contains(&access) {
                foot.push(access);
            }
        }
        if f.via_globals.is_empty() {
            return foot;
        }
        for v in &f.via_globals {
            let access = Access {
                loc: self.through_global(st, v),
                write: v.write,
                role: Role::Plain,
            };
            if access.loc == Loc::All {
                return vec![Access::write(Loc::All)];
            }
            if !foot.contains(&access) {
                foot.push(access);
            }
        }
        // A store through a pointer into a global the section reads a pointer from
        // would change the addresses computed here (see `ViaGlobal`).
        let sources: Vec<ObjInst> = f.via_globals.iter().map(|v| v.global).collect();
        let lands_in_source = |a: &Access| {
            a.write
                && match a.loc {
                    Loc::Mem(o, _) | Loc::Obj(o) => sources.contains(&o),
                    Loc::All => true,
                    _ => false,
                }
        };
        if foot.iter().any(lands_in_source) {
            return vec![Access::write(Loc::All)];
        }
        foot
    }

    /// The cell a `ViaGlobal` access touches when the section starts at `st`: the
    /// global's pointer plus the offset (`Loc::All` when the global holds no pointer).
    fn through_global(&self, st: &State, v: &super::reach::ViaGlobal) -> Loc {
        let bytes = self.setup.dm.pointer_bytes() as u8;
        if st.mem.get(v.global).is_none_or(|o| !o.live) {
            return Loc::All;
        }
        match st.mem.load(v.global, v.at, bytes, true) {
            Ok(super::state::Loaded::Value(SVal::Ptr { obj, off })) => {
                match self
                    .concrete(off)
                    .map(|o| o as i64)
                    .and_then(|o| o.checked_add(v.offset))
                {
                    Some(at) if at >= 0 => Loc::Mem(obj, at as u64),
                    _ => Loc::Obj(obj),
                }
            }
            _ => Loc::All,
        }
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
