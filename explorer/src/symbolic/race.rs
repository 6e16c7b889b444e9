//! The data-race property (`Checks::race`): at every scheduling node, two enabled threads
//! whose pending events are a load or store of the same cell, at least one a store, race
//! there — running one and then the other makes the two accesses adjacent. Both stand
//! at their events together, so nothing can order them by happens-before.
//!
//! Why checking nodes finds every race: DPOR (with sleep sets, without the summaries,
//! slice cuts or spin-loop reduction, which the race check turns off) explores every
//! Mazurkiewicz trace. A run with a race has a race `e`, `e'` whose happens-before in
//! DPOR's sense (program order, synchronization and conflicting accesses) is the direct
//! conflict (take `e'` the earliest second access and `e` the latest first one: any
//! chain between them would contain an earlier race). DPOR reverses that race: it
//! explores a run where `e'` runs first, and at the node before `e'` the thread of `e`
//! still stands at `e`, so the two are enabled together there.
//!
//! A candidate is reported only after its witness (the path's schedule, then the two
//! threads) replays on the interpreter with race detection ([`crate::concrete::race`]),
//! which must find the race itself.
//!
//! **Atomic sections.** Two accesses race when at least one of them is outside an atomic
//! section (C11's "at least one of which is not atomic", SV-COMP's no-data-race); two
//! inside sections never do, since sections are ordered like one global lock. A section
//! is one step of the search, so its accesses are never pending events, and what it
//! touches is known only once it has run. So the check runs after the step: the accesses
//! a section made from a node are checked against the pending plain accesses of the other
//! threads enabled at that node ([`Engine::races_of_section`]), with the witness the path
//! (now ending with the section) and then the other thread's access. The argument above
//! gives a node where the section `E` and the plain access `e'` are both pending; for the
//! check to see the pair, `E` must be explored from that node, which DPOR alone does not
//! promise (`e'` may be the step taken there, or `E`'s thread asleep). Hence, when the
//! race check is on, a thread whose pending section may touch (by its static footprint)
//! the object of another enabled thread's pending plain access, one of the two writing,
//! is explored from the node and woken from its sleep set
//! ([`Engine::sections_racing_pending`]): more exploration, never less.

use super::dpor::{Access, Loc};
use super::engine::Engine;
use super::names::ObjInst;
use super::smt::Answer;
use super::state::{State, Tid};
use super::term::TermId;
use super::value::{SVal, OFFSET_BITS};
use super::witness::{of_path, statement_text};
use super::{Found, Reason, WitnessStep};
use crate::concrete::race::adjacent_witness;
use crate::concrete::{replay, EventKind, RunOutcome, ViolationKind};
use analysis::ir::{Operand, StmtKind, SyncOp};

/// A pending load or store: the cell it touches and whether it writes.
#[derive(Clone, Copy)]
struct Pending {
    tid: Tid,
    obj: ObjInst,
    off: TermId,
    write: bool,
}

impl<'p> Engine<'p> {
    /// Checks the node `st` (with `enabled` threads) for two pending accesses that race;
    /// reports the first whose witness replays (which stops the search unless every
    /// violation is wanted). Returns the threads whose pending atomic section the node
    /// must explore ([`Engine::sections_racing_pending`]).
    pub fn races_at_node(&mut self, st: &State, enabled: &[Tid]) -> Vec<Tid> {
        let pending: Vec<Pending> = enabled
            .iter()
            .filter_map(|&t| self.pending_access(st, t))
            .collect();
        for (i, a) in pending.iter().enumerate() {
            for b in &pending[i + 1..] {
                if a.obj != b.obj || !(a.write || b.write) {
                    continue;
                }
                self.race_candidate(*a, *b);
                if self.search.stop {
                    return Vec::new();
                }
            }
        }
        self.sections_racing_pending(st, enabled, &pending)
    }

    /// Thread `t`'s pending event if it is a load or store of a pointer into an object.
    fn pending_access(&mut self, st: &State, t: Tid) -> Option<Pending> {
        if st.threads[t].status != super::state::Status::AtEvent {
            return None;
        }
        let stmt = self.pending_stmt(st, t)?;
        let (addr, write) = match &stmt.kind {
            StmtKind::Load { addr, .. } => (addr, false),
            StmtKind::Store { addr, .. } => (addr, true),
            _ => return None,
        };
        let (obj, off) = match addr {
            Operand::Reg(r) => match st.top(t).regs[r.index()] {
                SVal::Ptr { obj, off } => (obj, off),
                _ => return None,
            },
            Operand::Addr { obj, offset } => {
                let inst = match self.setup.statics[obj.index()] {
                    super::engine::StaticObj::Global(i) => i,
                    super::engine::StaticObj::ThreadLocal(i) => st.threads[t].tls[i],
                    super::engine::StaticObj::Slot(i) => st.top(t).slots[i],
                };
                (inst, self.pool.bv_const(*offset, OFFSET_BITS))
            }
            _ => return None,
        };
        Some(Pending {
            tid: t,
            obj,
            off,
            write,
        })
    }

    /// The threads enabled at `st` whose pending step is an atomic section that may touch
    /// (by its static footprint) the object of another enabled thread's pending plain
    /// access, one of the two writing: the node must explore their sections for
    /// [`Engine::races_of_section`] to see the pair (see the module doc).
    fn sections_racing_pending(
        &self,
        st: &State,
        enabled: &[Tid],
        pending: &[Pending],
    ) -> Vec<Tid> {
        if pending.is_empty() {
            return Vec::new();
        }
        let mut racing = Vec::new();
        for &a in enabled {
            if !self.pending_section(st, a) {
                continue;
            }
            let foot = self
                .pending_footprint(st, a)
                .unwrap_or_else(|| vec![Access::write(Loc::All)]);
            let overlaps = pending.iter().any(|p| {
                p.tid != a
                    && foot.iter().any(|acc| {
                        (acc.write || p.write)
                            && match acc.loc {
                                Loc::All => true,
                                Loc::Mem(o, _) | Loc::Obj(o) => o == p.obj,
                                _ => false,
                            }
                    })
            });
            if overlaps {
                racing.push(a);
            }
        }
        racing
    }

    /// Is `t`'s pending event the start of an atomic section?
    fn pending_section(&self, st: &State, t: Tid) -> bool {
        st.threads[t].status == super::state::Status::AtEvent
            && self.pending_stmt(st, t).is_some_and(|s| {
                matches!(
                    s.kind,
                    StmtKind::Sync {
                        op: SyncOp::AtomicBegin,
                        ..
                    }
                )
            })
    }

    /// Thread `t`'s step from the node on top of the DPOR stack has run; `foot` is what it
    /// touched. If it was an atomic section, its accesses against the pending plain
    /// accesses of the other threads enabled at that node, which still stand at them (see
    /// the module doc): a race is reported once the path followed by the other thread's
    /// access replays as one. `ended`: the step ended the run, so no step can follow it
    /// and a possible race makes the verdict unknown instead.
    pub fn races_of_section(&mut self, t: Tid, foot: &[Access], ended: bool) {
        let Some(node) = self.search.dpor.nodes.last() else {
            return;
        };
        let Some((_, before)) = &node.state else {
            return;
        };
        if !self.pending_section(before, t) {
            return;
        }
        let (before, enabled) = (std::rc::Rc::clone(before), node.enabled.clone());
        for u in enabled.into_iter().filter(|&u| u != t) {
            let Some(p) = self.pending_access(&before, u) else {
                continue;
            };
            for acc in foot {
                let off = match acc.loc {
                    Loc::Mem(o, off) if o == p.obj => Some(off),
                    Loc::Obj(o) if o == p.obj => None,
                    _ => continue,
                };
                if !(acc.write || p.write) {
                    continue;
                }
                let same = match off {
                    Some(off) => {
                        let at = self.pool.bv_const(off, OFFSET_BITS);
                        self.pool.eq(p.off, at)
                    }
                    None => self.pool.tru(),
                };
                if ended {
                    if self.feasible(same) != Some(false) {
                        let detail = format!(
                            "thread {t}'s atomic section, which ends the run, and thread {u}'s \
                             pending access may race; the race is not confirmed"
                        );
                        self.incomplete(Reason::Unsupported, detail);
                    }
                    continue;
                }
                self.confirm_race(same, &[&[u]], (t, u));
                if self.search.stop {
                    return;
                }
            }
        }
    }

    /// Two pending accesses to one object: a race if their offsets can be equal on this
    /// path; reported once its witness replays.
    fn race_candidate(&mut self, a: Pending, b: Pending) {
        let same = self.pool.eq(a.off, b.off);
        self.confirm_race(same, &[&[a.tid, b.tid], &[b.tid, a.tid]], (a.tid, b.tid));
    }

    /// A possible race of threads `pair` where `same` (the two cells are one) holds: the
    /// path followed by each of `orders` (threads to step) is replayed with race
    /// detection, and the first race found is reported. Neither replaying makes the
    /// verdict unknown.
    fn confirm_race(&mut self, same: TermId, orders: &[&[Tid]], pair: (Tid, Tid)) {
        let mut model = self.path.model.clone();
        if self.pool.is_false(same) {
            return;
        }
        if !self.pool.is_true(same) {
            let wanted = self.wanted();
            match self.smt.check(&self.pool, &self.path.pcon, same, &wanted) {
                Answer::Sat(m) => {
                    for (v, val) in m.iter() {
                        model.set(*v, *val);
                    }
                }
                Answer::Unsat => return,
                Answer::Unknown => {
                    self.incomplete(
                        Reason::Solver,
                        "the solver could not decide whether two pending accesses touch one cell"
                            .to_string(),
                    );
                    return;
                }
            }
        }
        if let Some(what) = self.path.frozen.last().cloned() {
            let detail = format!("a data race is reachable if {what}");
            self.incomplete(Reason::EagerEnd, detail);
            return;
        }
        // Either order makes the accesses adjacent; the first thread's step also runs
        // its local code, which may end the run, so the other order is tried too.
        for order in orders {
            if let Some(found) = self.replay_race(&model, order) {
                self.search.found.push(found);
                if !self.setup.cfg.all_violations {
                    self.search.stop = true;
                }
                return;
            }
        }
        let detail = format!(
            "threads {} and {} may race at a node whose witness does not replay as a race",
            pair.0, pair.1
        );
        self.incomplete(Reason::Unsupported, detail);
    }

    /// The witness of the current path followed by a step of each thread of `order`,
    /// replayed with race detection: the race it finds, if any (once per pair of
    /// statements).
    fn replay_race(&mut self, model: &super::model::Assignment, order: &[Tid]) -> Option<Found> {
        let mut witness = of_path(self, &self.path.inputs, model, &self.path.trace);
        witness.data_races = true;
        witness
            .schedule
            .extend(order.iter().map(|&t| crate::concrete::ThreadId(t as u32)));
        let mut execution = replay(self.setup.prog, &witness).ok()?;
        let RunOutcome::Violation(v) = &execution.outcome else {
            return None;
        };
        let race = v
            .race
            .as_ref()
            .filter(|_| v.kind == ViolationKind::DataRace)?;
        if !race.ends(&witness.schedule) {
            // The path itself holds an earlier race (one DPOR has not yet reversed): a
            // real race all the same; reordered so that its accesses end the witness when
            // the steps between them allow it.
            if let Some((adjacent, replayed)) =
                adjacent_witness(self.setup.prog, &witness, &execution)
            {
                witness = adjacent;
                execution = replayed;
            }
        }
        let RunOutcome::Violation(v) = &execution.outcome else {
            return None;
        };
        let race = v.race.as_deref()?;
        let already = self.search.found.iter().any(|f| {
            f.race.as_ref().is_some_and(|r| {
                r.first.stmt == race.first.stmt && r.second.stmt == race.second.stmt
            })
        });
        if already {
            return None;
        }
        // The run stops at the second access: its schedule is the witness.
        witness.schedule = execution.schedule();
        witness.schedule.truncate(race.second.step as usize + 1);
        let steps = execution
            .trace
            .iter()
            .map(|s| WitnessStep {
                thread: s.thread.0,
                stmt: s.stmt,
                location: self.location(s.span),
                event: match s.event {
                    EventKind::Statement => "statement",
                    EventKind::Reacquire => "reacquire",
                    EventKind::ThreadEnd => "thread_end",
                }
                .to_string(),
                text: statement_text(self.setup.prog, s.stmt),
            })
            .collect();
        Some(Found {
            kind: ViolationKind::DataRace,
            message: v.message.clone(),
            thread: v.thread.0,
            span: v.span,
            location: v.location.clone(),
            witness,
            steps,
            race: Some(race.clone()),
        })
    }
}
