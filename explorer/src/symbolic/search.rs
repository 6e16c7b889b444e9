//! Scheduling nodes: the exploration of Algorithms 1 and 2 with DPOR.
//!
//! At a node every thread stands at its next visible event. The node
//! 1. runs DPOR's race detection for every thread's pending event (adding backtrack
//!    points to earlier nodes of the path),
//! 2. ends the run if no thread is enabled (completion or deadlock),
//! 3. with summaries, tries to prune: if `pcon ⇒ PS[key]` under the current values the
//!    subtree is skipped, and the RVar/WVar entries of the key repair the backtrack sets
//!    of the path as if the skipped accesses had run (§5.2),
//! 4. explores one step per thread of its backtrack set (every enabled thread for the
//!    baseline; for DPOR one thread to start with, more as races are found), skipping
//!    sleeping threads,
//! 5. conjoins the children's weakest preconditions and records the summary.
//!
//! **Exit deferral** (`Config::defer_exit`, on by default, `verify --no-exit-deferral`;
//! issue 15). In the `dpor` and `dpor+ag` search the step that ends the program
//! (`main`'s return: a thread in `Status::Ending { exit_program: true }`) is not
//! enabled while another thread can take a step other than a spurious wake-up
//! ([`Engine::schedulable_threads`]): it runs only when every other thread has finished
//! or is blocked (or can only wake spuriously), always as the run's last step. Its races
//! are never reversed: its pending footprint (everything) is left out of the race
//! detection at nodes, of the Type A cut's check and of the accesses a summary records
//! for repairs, which would only schedule it earlier (or, where it is not enabled,
//! every enabled thread). Before, it was explored at every position and DPOR reversed
//! its race with every other thread's steps: reorder_5 and scull explored several
//! times the states they explore now.
//!
//! Soundness: the exit step only removes behaviours (it cuts the other threads off),
//! and it reports nothing itself. Any violation (an assertion, undefined behaviour, a
//! data race, a deadlock) of an execution containing an early exit happens before the
//! exit, in a prefix without it; that prefix consists of steps of threads other than
//! the exit, each enabled where it ran, so it is also a prefix of an execution with the
//! exit deferred, which the search covers (DPOR's argument holds for the reduced
//! transition system, in which the exit is the only step whose enabledness depends on
//! other threads' states, and it ends the run). A deadlock is reported only when no
//! thread can step; a pending exit can always step, so where the others are blocked and
//! `main` waits to exit the program ends (as the early exit would have), an ordinary
//! finished run, not a deadlock; with only spurious wake-ups beside it, the exit stays
//! enabled with them (else the node would look stuck). The cost: a thread that neither
//! blocks nor ends (an unbounded loop the spin-loop reductions do not turn into an
//! await) runs after `main`'s return until a bound (the unwind bound, `max_events`, the
//! state budget) cuts the run, where the early exit would have ended it: such runs end
//! UNKNOWN naming that bound, never SAFE (`fixtures/verify/exit_unjoined_counter.c`).
//! Without the deferral the same runs are explored too (DPOR reverses the exit with
//! the loop's steps), so nothing that was decided becomes UNKNOWN.
//! The probe's own schedules do not defer (`probe::probe_config`): its first
//! non-preemptive run takes `main`'s return at once, and its length places the
//! priority schedules' change points; the other orders run the exit last by their own
//! rule. The baseline does not defer either (the unreduced reference). Witnesses need
//! nothing: their schedule has the exit later.

use super::dpor::{dependent, Access, EventInfo, Footprint, Incoming, NodeInfo, Role, VClock};
use super::engine::{set_clock, Engine, Sub};
use super::names::ThreadKey;
use super::preempt::Preemptions;
use super::state::{State, Status, Tid};
use super::step::StepCtx;
use super::summary::{
    key_hash, rename_inputs_memo, sleep_key, sleep_within, substitute, Accesses, RwTable, SleepKey,
    RET_DEPTH,
};
use super::term::{var_bloom, Node, TermId, Var};
use super::{Repair, Strategy};
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;
use std::rc::Rc;

/// The longest state key (in words) a node keeps while its subtree is explored; a
/// longer one is computed again when the summary is recorded (a long run has thousands
/// of nodes on the stack, and a key holds every cell's shape).
const KEPT_KEY_WORDS: usize = 512;

impl<'p> Engine<'p> {
    /// The current step has reached the next node.
    pub fn end_step(&mut self, st: State, k: StepCtx) -> Sub {
        let Some(t) = k.tid else {
            return self.node(st, Vec::new(), vec![VClock::default()]);
        };
        let idx = self.search.dpor.nodes.len() - 1;
        let parent = &self.search.dpor.nodes[idx];
        let start = parent.clocks.get(t).cloned().unwrap_or_default();
        let sleep: Vec<(Tid, Footprint)> = parent
            .sleep
            .iter()
            .filter(|(u, f)| *u != t && !dependent(f, &k.foot))
            .cloned()
            .collect();
        let mut clocks = parent.clocks.clone();
        let outside = self.step_outside(idx, t, &k);
        let clock = self
            .search
            .dpor
            .clock_of_sliced(t, &start, &k.foot, outside);
        set_clock(&mut clocks, t, clock.clone());
        for &c in &k.created {
            set_clock(&mut clocks, c, clock.clone());
        }
        // Before its own event: what happened before the thread took this step (as
        // DPOR's race check uses for pending events). The event's clock would also
        // count the very dependences a later reordering must be able to reverse.
        let own = self.step_rw(&st, &k, &start, false);
        if self.setup.cfg.checks.race {
            self.races_of_section(t, &k.foot, false);
            if self.search.stop {
                return self.nothing();
            }
        }
        let step = EventInfo {
            tid: t,
            node: idx,
            foot: k.foot,
            clock,
        };
        if let Some(b) = &self.search.dpor.nodes[idx].following {
            // A symbolic fork may make the step another than the branch's.
            let same = !b.exact || same_footprint(&b.foot, &step.foot);
            self.search.dpor.incoming = Some(if same {
                Incoming {
                    tree: b.sub.clone(),
                    diverged: false,
                }
            } else {
                Incoming {
                    tree: Vec::new(),
                    diverged: !b.sub.is_empty(),
                }
            });
        }
        self.search.dpor.push_step(step, outside);
        let mut sub = self.node(st, sleep, clocks);
        self.search.dpor.pop_step();
        if !self.search.stop {
            sub.rw.extend(own);
        }
        sub
    }

    /// Explores the scheduling node `st`.
    ///
    /// Its weakest precondition also assumes the values that decided, at this node,
    /// which threads are enabled and what their pending events touch (lock and access
    /// addresses, joined thread ids): another state with other values there could be
    /// scheduled differently.
    pub fn node(&mut self, st: State, sleep: Vec<(Tid, Footprint)>, clocks: Vec<VClock>) -> Sub {
        let st = Rc::new(st);
        let mut sub = self.node_inner(&st, sleep, clocks);
        if self.setup.wp_on && !self.search.stop && !self.pool.is_false(sub.wp) {
            let pending = self.pending_assumptions(&st);
            sub.wp = self.pool.and(sub.wp, pending);
        }
        sub
    }

    /// `value == constant` for every register a pending event reads as an address or a
    /// thread id, over state variables.
    fn pending_assumptions(&mut self, st: &State) -> TermId {
        let mut acc = self.pool.tru();
        for t in 0..st.threads.len() {
            if st.threads[t].status != Status::AtEvent {
                continue;
            }
            let Some(f) = st.threads[t].frames.last() else {
                continue;
            };
            let func = self.setup.prog.function(f.func);
            let Some(stmt) = func.blocks[f.block as usize].stmts.get(f.index as usize) else {
                continue;
            };
            let operands: Vec<&analysis::ir::Operand> = match &stmt.kind {
                analysis::ir::StmtKind::Load { addr, .. }
                | analysis::ir::StmtKind::Store { addr, .. } => vec![addr],
                analysis::ir::StmtKind::Sync {
                    op: analysis::ir::SyncOp::ThreadCreate { handle, func, .. },
                    ..
                } => vec![handle, func],
                analysis::ir::StmtKind::Sync { op, .. } => op.operands(),
                _ => vec![],
            };
            let depth = st.threads[t].frames.len() as u32 - 1;
            let key = st.threads[t].key;
            for op in operands {
                let Some(r) = op.as_reg() else { continue };
                let (var, w, k) = match f.regs[r.index()] {
                    super::value::SVal::Ptr { off, .. } => {
                        (off, super::value::OFFSET_BITS, self.concrete(off))
                    }
                    super::value::SVal::Int(x) => (x, self.pool.width(x), self.concrete(x)),
                    super::value::SVal::Func(_) => continue,
                };
                let _ = var;
                let Some(k) = k else { continue };
                let v = self.pool.var(super::twins::reg_var(key, depth, r), w);
                let c = self.pool.bv_const(k, w);
                let eq = self.pool.eq(v, c);
                acc = self.pool.and(acc, eq);
            }
        }
        acc
    }

    fn node_inner(
        &mut self,
        shared: &Rc<State>,
        sleep: Vec<(Tid, Footprint)>,
        clocks: Vec<VClock>,
    ) -> Sub {
        let st: &State = shared;
        let incoming = self.search.dpor.incoming.take();
        self.search.stats.states += 1;
        if self.out_of_time() {
            return self.nothing();
        }
        let dpor = self.setup.cfg.strategy != Strategy::Baseline;
        let probe = self.setup.probe;
        let defer = self.defers_exit();
        if dpor && !probe {
            for p in 0..st.threads.len() {
                // A deferred exit is never reversed: its races would only schedule it
                // earlier (see the module doc, "Exit deferral").
                if !st.is_live(p) || (defer && Self::ends_program(st, p)) {
                    continue;
                }
                if let Some(foot) = self.pending_footprint(st, p) {
                    let c = clocks.get(p).cloned().unwrap_or_default();
                    let outside = self.pending_outside(st, p, &foot);
                    self.search
                        .dpor
                        .races_of_pending_sliced(p, &c, &foot, outside);
                }
            }
        }
        let enabled = self.schedulable_threads(st);
        // Threads whose pending atomic section may race with another's pending plain
        // access: explored from here, awake (see `race`'s module doc).
        let mut sections = Vec::new();
        if self.setup.cfg.checks.race {
            sections = self.races_at_node(st, &enabled);
            if self.search.stop {
                return self.nothing();
            }
        }
        let mut sleep = sleep;
        sleep.retain(|(u, _)| !sections.contains(u));
        // Only spurious wake-ups can happen: a run where none happens deadlocks (a
        // violation when deadlocks are checked; else the wake-ups are explored).
        let stuck = enabled
            .iter()
            .all(|&t| !self.is_enabled_without_wakeup(st, t));
        if enabled.is_empty() || (stuck && self.setup.cfg.checks.deadlock) {
            return self.terminal(st);
        }
        let here = self.preemptions_at(st, &enabled);
        let fp = st.fingerprint();
        if let Some(m) = self.revisited(fp, st, here) {
            if let Some(t) = self.lone_spinner(m) {
                // Only `t` moved since node m, reading: its steps were failing
                // iterations of a loop, which the thread now leaves for the rest of the
                // run, as the spin-loop reduction does; the node is explored again with
                // `t` parked (its own visit is not counted twice).
                let mut parked = st.clone();
                parked.threads[t].status = Status::Spinning;
                let mut sleep = sleep;
                sleep.retain(|(u, _)| *u != t);
                self.search.stats.states -= 1;
                self.search.stats.spin_parks += 1;
                self.search.dpor.incoming = incoming;
                self.trace_event(|| format!("thread {t} spins (its steps returned to a state)"));
                return self.node_inner(&Rc::new(parked), sleep, clocks);
            }
            // The path returned to the state of node m (a spin loop, say): everything
            // from here is explored from m, which is expanded fully. The cut subtree
            // claims nothing for summaries.
            if !probe {
                self.search.dpor.nodes[m].expand_fully();
            }
            self.search.stats.partial_runs += 1;
            self.search.stats.cycles += 1;
            return self.nothing();
        }
        if let Some(sub) = self.type_a_cut(st, &clocks) {
            return sub;
        }
        // Only the key's hash and a small key are kept while the subtree is explored (a
        // key holds every cell's shape, and a long run has thousands of nodes on the
        // stack); a longer key is computed again when a summary is recorded.
        // The node's sleep set on entry, by thread name: its summary is relative to it.
        let asleep = if self.setup.wp_on {
            self.sleep_key_of(st, &sleep)
        } else {
            SleepKey::new()
        };
        // Computing the key again was a tenth of reorder_5's search; `st` and the
        // terms' shapes do not change, so a kept key is the same key.
        let (key_hash, kept_key) = if self.setup.wp_on {
            let key = st.key(&self.pool);
            if let Some(sub) = self.try_prune(st, &key, &asleep, &clocks) {
                return sub;
            }
            let hash = key_hash(&key);
            (Some(hash), (key.len() <= KEPT_KEY_WORDS).then_some(key))
        } else {
            (None, None)
        };
        // Optimal DPOR: the branches of the parent's wakeup tree this node follows. A
        // branch whose thread is asleep here is covered; one whose thread is not enabled
        // (a symbolic fork made this another state) cannot be followed, and the node is
        // expanded fully instead, as where the step taken was not the branch's.
        let mut wut = Vec::new();
        let mut expand = false;
        if let Some(inc) = incoming {
            expand = inc.diverged;
            for b in inc.tree {
                if sleep.iter().any(|(u, _)| *u == b.tid) {
                    continue;
                }
                if !enabled.contains(&b.tid) {
                    expand = true;
                    continue;
                }
                wut.push(b);
            }
        }
        let mut initial: BTreeSet<Tid> = if probe {
            // One thread per node, as the probe's order picks it (no sleep sets).
            match self.probe_choice(st, &enabled) {
                Some(t) => BTreeSet::from([t]),
                None => return self.nothing(),
            }
        } else if !wut.is_empty() {
            wut.iter().map(|b| b.tid).collect()
        } else if dpor {
            // Round-robin from the thread of the previous step (the interpreter's default
            // schedule): a first run that alternates threads visits the nodes that later
            // reorderings come back to, so summaries prune them early.
            let last = self.search.dpor.events.last().map_or(0, |e| e.tid + 1);
            let awake = |t: &&Tid| !sleep.iter().any(|(u, _)| u == *t);
            let first = enabled
                .iter()
                .filter(|&&t| t >= last)
                .find(awake)
                .or_else(|| enabled.iter().find(awake));
            match first {
                Some(&t) => BTreeSet::from([t]),
                None => {
                    self.trace_event(|| "all enabled threads asleep".to_string());
                    self.search.stats.partial_runs += 1;
                    self.search.stats.sleep_blocked += 1;
                    return self.safe();
                }
            }
        } else {
            enabled.iter().copied().collect()
        };
        if expand {
            initial.extend(enabled.iter().copied());
        }
        if !probe {
            initial.extend(sections.iter().copied());
        }
        // Optimal DPOR: a node that follows a wakeup subtree explores only the sequences
        // its ancestors' races put there (its siblings above explore the rest), so its
        // subtree proves nothing about the state: it records no summary.
        let restricted = !wut.is_empty();
        // The sleeping threads whose exploration had a run cut short stay so while they
        // sleep (the parent is the top of the stack).
        let cut: Vec<Tid> = self.search.dpor.nodes.last().map_or_else(Vec::new, |n| {
            n.cut
                .iter()
                .copied()
                .filter(|t| sleep.iter().any(|(u, _)| u == t))
                .collect()
        });
        self.search.dpor.nodes.push(NodeInfo {
            enabled,
            backtrack: initial,
            done: BTreeSet::new(),
            sleep,
            clocks,
            state: Some((fp, Rc::clone(shared))),
            wut,
            following: None,
            cut,
        });
        self.search.preemptions.push(here);
        let idx = self.search.dpor.nodes.len() - 1;
        self.search.on_stack.entry(fp).or_default().push(idx);
        let mut wp = self.pool.tru();
        let mut rw = Accesses::default();
        while let Some(t) = self.next_thread(idx) {
            if self.search.stop {
                break;
            }
            self.search.dpor.nodes[idx].done.insert(t);
            if !self.within_preemption_bound(idx, st, t) {
                continue;
            }
            let (trace, inputs) = (self.path.trace.len(), self.path.inputs.len());
            let cut_before = (
                self.search.stats.partial_runs,
                self.search.dpor.ended_in_step,
            );
            let sub = self.explore_step(st.clone(), t, StepCtx::of(t));
            let cut = cut_before
                != (
                    self.search.stats.partial_runs,
                    self.search.dpor.ended_in_step,
                );
            self.search.dpor.nodes[idx].following = None;
            self.path.trace.truncate(trace);
            self.path.inputs.truncate(inputs);
            if self.setup.wp_on {
                rw.extend(sub.rw);
                wp = self.conjoin_below(wp, sub.wp, &rw);
            }
            if dpor {
                if let Some(f) = self.pending_footprint(st, t) {
                    let n = &mut self.search.dpor.nodes[idx];
                    n.sleep.push((t, f));
                    if cut {
                        n.cut.push(t);
                    }
                }
            }
        }
        self.search.dpor.nodes.pop();
        self.search.preemptions.pop();
        if let Some(v) = self.search.on_stack.get_mut(&fp) {
            v.pop();
        }
        if self.out_of_time() {
            // The search is over: nothing recorded on the way back can be used, and
            // merging the subtree's accesses costs as much as the search (the deadline
            // must hold, also while a long run is unwound).
            return self.nothing();
        }
        if let Some(hash) = key_hash.filter(|_| !restricted) {
            if rw.saturated() {
                // Recording costs the table's size at every node of the path (quadratic
                // in a long run over many cells); the node keeps no summary, as if
                // evicted, so no later visit prunes with part of its accesses.
                if let Some(table) = self.search.summaries.as_mut() {
                    table.forget_hashed(hash);
                }
                return Sub { wp, rw };
            }
            let key = kept_key.unwrap_or_else(|| st.key(&self.pool));
            self.record_summary(st, key, wp, &asleep, &rw);
        }
        Sub { wp, rw }
    }

    /// Is the step of thread `t` from node `idx` (context `k`) outside the slice (§6.1,
    /// Type B; see [`super::type_b`])? Its visible event is `t`'s pending statement at
    /// the node.
    fn step_outside(&self, idx: usize, t: Tid, k: &StepCtx) -> bool {
        if !k.created.is_empty() {
            return false;
        }
        self.search.dpor.nodes[idx]
            .state
            .as_ref()
            .is_some_and(|(_, parent)| self.pending_outside(parent, t, &k.foot))
    }

    /// Is thread `p`'s pending event (footprint `foot`) outside the slice?
    fn pending_outside(&self, st: &State, p: Tid, foot: &[super::dpor::Access]) -> bool {
        let Some(tb) = self.setup.type_b.as_ref() else {
            return false;
        };
        if st.threads[p].status != Status::AtEvent {
            return false;
        }
        self.pending_stmt(st, p)
            .is_some_and(|s| tb.outside_step(s.id, &s.kind, foot))
    }

    /// §6.1, Type A: if no live thread can reach a target any more, the subtree cannot
    /// violate the property: it ends here (wp `true`, a partial run) — provided the
    /// accesses the skipped code may make would not race with the path in a way DPOR has
    /// not covered yet (see [`super::reach`]).
    fn type_a_cut(&mut self, st: &State, clocks: &[VClock]) -> Option<Sub> {
        let reach = self.setup.reach.as_ref()?;
        let mut accesses: Vec<(Tid, super::dpor::Access)> = Vec::new();
        for (t, th) in st.threads.iter().enumerate() {
            if !st.is_live(t) {
                continue;
            }
            let mut ends = matches!(
                th.status,
                Status::Ending {
                    exit_program: false,
                    ..
                }
            );
            for f in th.frames.iter().rev() {
                let (func, block) = (f.func.index(), f.block as usize);
                if reach.reaches[func][block] {
                    return None;
                }
                let fut = &reach.future[func][block];
                accesses.extend(fut.accesses.iter().map(|a| (t, *a)));
                ends |= fut.ends;
                if !reach.returns[func][block] {
                    break;
                }
            }
            if ends {
                accesses.push((
                    t,
                    super::dpor::Access::release(super::dpor::Loc::Thread(th.key)),
                ));
            }
            // A deferred exit's races are never reversed (module doc, "Exit deferral").
            if self.defers_exit() && Self::ends_program(st, t) {
                continue;
            }
            if let Some(pending) = self.pending_footprint(st, t) {
                accesses.extend(pending.into_iter().map(|a| (t, a)));
            }
        }
        let mut rw = Accesses::default();
        for (t, a) in accesses {
            let clock = clocks.get(t).cloned().unwrap_or_default();
            if self.search.dpor.repair_needed(Some(t), &clock, &a) {
                return None;
            }
            let last = self.search.dpor.last_race(t, &clock, &a);
            rw.add((st.threads[t].key, a), &clock, last);
        }
        self.search.stats.partial_runs += 1;
        self.search.stats.slice_skips += 1;
        self.search.stats.type_a_cuts += 1;
        Some(Sub {
            wp: self.pool.tru(),
            rw,
        })
    }

    /// The index of a node on the path whose state equals `st` and from which every
    /// schedule of this node (at `here` in the preemption bound) is explored.
    /// The thread whose steps alone brought the path back to node `m`'s state, if each
    /// of them only read plain memory: a thread spinning in a loop the front end did
    /// not recognise (`analysis::spin` leaves out loops with stores on another branch,
    /// calls or inner loops), found by the state it returns to.
    ///
    /// Soundness: the steps since `m` are reads that leave every thread, the memory and
    /// the synchronization objects as they were (the states are equal), so they are
    /// failing iterations in `analysis::spin`'s sense, and the argument there applies:
    /// deleting them changes no value any thread reads, and DPOR reverses the races
    /// between their reads and the writes that come later on the path (the steps stay on
    /// it), which is where the loop would exit. The path condition they added is kept,
    /// which only narrows the rest of the run; the executions it excludes take the other
    /// side of a branch in one of these steps, which node m's subtree explores.
    fn lone_spinner(&self, m: usize) -> Option<Tid> {
        if !self.setup.spin_parks {
            return None;
        }
        let mut spinner = None;
        for e in self.search.dpor.events.iter().rev() {
            if e.node < m {
                break;
            }
            if *spinner.get_or_insert(e.tid) != e.tid
                || e.foot.iter().any(|a| a.write || a.role != Role::Plain)
            {
                return None;
            }
        }
        spinner
    }

    fn revisited(&self, fp: u64, st: &State, here: Preemptions) -> Option<usize> {
        let bound = self.setup.cfg.preemption_bound;
        self.search.on_stack.get(&fp)?.iter().copied().find(|&m| {
            here.covered_by(self.search.preemptions[m], bound)
                && self.search.dpor.nodes[m]
                    .state
                    .as_ref()
                    .is_some_and(|(_, s)| s.same_as(st))
        })
    }

    /// The next thread to explore from node `idx`: in the backtrack set, not done, not
    /// asleep.
    ///
    /// Optimal DPOR takes the wakeup tree's branches first, in order, and follows the
    /// one taken; then any thread scheduled outside the tree.
    fn next_thread(&mut self, idx: usize) -> Option<Tid> {
        let probe = self.setup.probe;
        let n = &mut self.search.dpor.nodes[idx];
        if probe && !n.done.is_empty() {
            return None;
        }
        while !n.wut.is_empty() {
            let b = n.wut.remove(0);
            if n.done.contains(&b.tid) || n.sleep.iter().any(|(u, _)| *u == b.tid) {
                continue;
            }
            let t = b.tid;
            n.following = Some(b);
            return Some(t);
        }
        n.following = None;
        n.backtrack
            .iter()
            .copied()
            .find(|t| !n.done.contains(t) && !n.sleep.iter().any(|(u, _)| u == t))
    }

    /// No thread can run: the program completed, or deadlocked.
    fn terminal(&mut self, st: &State) -> Sub {
        self.trace_event(|| "no thread can run".to_string());
        let blocked = (0..st.threads.len()).find(|&t| st.is_live(t));
        // A spinning thread would run forever beside the blocked ones, an awaiting one
        // could still run (and end the run in the interpreter): not a deadlock.
        let spinning = st
            .threads
            .iter()
            .any(|th| matches!(th.status, Status::Spinning | Status::Awaiting { .. }));
        let blocked = blocked.filter(|_| !spinning);
        match blocked {
            None => {
                self.count_run(spinning);
                self.safe()
            }
            Some(t) => {
                let span = self.blocked_span(st, t);
                let end = super::engine::End::Deadlock { span, tid: t };
                self.leaf(st, end, &StepCtx::initial())
            }
        }
    }

    /// Where a blocked thread waits (the interpreter reports the first one).
    fn blocked_span(&self, st: &State, t: Tid) -> analysis::ir::Span {
        let th = &st.threads[t];
        match th.status {
            Status::Waiting { stmt, .. }
            | Status::Reacquire { stmt, .. }
            | Status::Ending { stmt, .. } => self.setup.prog.stmt(stmt).span(),
            _ => {
                let f = th.frames.last().expect("a blocked thread has a frame");
                let block = &self.setup.prog.function(f.func).blocks[f.block as usize];
                block
                    .stmts
                    .get(f.index as usize)
                    .map_or(block.term.span, |s| s.span)
            }
        }
    }

    /// Each thread's input count at a node, by thread name.
    fn cursors(st: &State) -> FxHashMap<ThreadKey, u32> {
        st.threads.iter().map(|th| (th.key, th.inputs)).collect()
    }

    /// The sleep set of a node in the summary table's terms (threads by name).
    ///
    /// A sleeping thread has not moved since it was put to sleep, so the footprint kept
    /// with it is its pending event's here (checked in debug builds).
    fn sleep_key_of(&self, st: &State, sleep: &[(Tid, Footprint)]) -> SleepKey {
        debug_assert!(sleep
            .iter()
            .all(|(t, f)| self.pending_footprint(st, *t).as_ref() == Some(f)));
        sleep_key(sleep.iter().map(|(t, f)| (st.threads[*t].key, f.clone())))
    }

    /// Adds a finished visit of a node (`asleep`: its sleep set on entry) to the summary
    /// table: its summary and the accesses below it (`rw`).
    ///
    /// A visit under a non-empty sleep set claims something only with
    /// `Config::sleep_summaries`, and not with a preemption bound (see the module doc
    /// of `summary`, "Sleep sets").
    ///
    /// A visit that claims nothing (a sleep-set-reduced subtree without
    /// `sleep_summaries`, or a wp of `false`) creates no entry: a prune with the entry's
    /// summary stands only for the subtrees of
    /// the visits that make it up, so only their accesses need repairing (a long run cut
    /// by a bound would otherwise store an access table at each of its nodes). An
    /// existing entry still takes its accesses (the table only grows more cautious).
    fn record_summary(
        &mut self,
        st: &State,
        key: Vec<u64>,
        wp: TermId,
        asleep: &SleepKey,
        rw: &Accesses,
    ) {
        let sleep_free = asleep.is_empty();
        let relative = self.setup.cfg.sleep_summaries && self.setup.cfg.preemption_bound.is_none();
        let standalone = (sleep_free || relative) && !self.search.stop;
        let cursors = Self::cursors(st);
        let ps = if standalone {
            rename_inputs_memo(&mut self.pool, &mut self.search.renamed, wp, &cursors, true)
        } else {
            None
        };
        let ps = ps.filter(|p| !self.pool.is_false(*p));
        let Some(summaries) = self.search.summaries.as_ref() else {
            return;
        };
        if ps.is_none() && !summaries.holds(&key) {
            return;
        }
        let keys: Vec<ThreadKey> = st.threads.iter().map(|th| th.key).collect();
        let mut table = rw.relative_to(&keys, self.search.dpor.events.len());
        // Without a summary relative to it, a sleep set left executions out of the
        // subtree: its races are not all known (`Summaries::record` keeps `covered`
        // only for the variant of the visit's own sleep set).
        if !standalone && !sleep_free {
            table.values_mut().for_each(|r| r.covered = false);
        }
        let exporting = self.setup.cfg.carry.as_ref().is_some_and(|c| c.export);
        if exporting && ps.is_some() && self.setup.stable.is_some() {
            // The stable key is computed when the summary is exported: most summaries
            // of a long search are never (the export stops past the store's limit),
            // and a copy of the state shares nearly all of it with the search's.
            if !self.search.carry_states.contains_key(&key) {
                self.search.carry_states.insert(key.clone(), st.clone());
            }
        }
        if let Some(summaries) = self.search.summaries.as_mut() {
            summaries.record(&mut self.pool, key, asleep, ps, &table);
        }
    }

    /// Prunes the node if its path condition implies its summary; returns the skipped
    /// subtree's result.
    fn try_prune(
        &mut self,
        st: &State,
        key: &[u64],
        asleep: &SleepKey,
        clocks: &[VClock],
    ) -> Option<Sub> {
        let local = self
            .search
            .summaries
            .as_ref()?
            .lookup(&mut self.pool, key, asleep)
            .map(|u| (u.ps, u.rw));
        if let Some((ps, rw)) = &local {
            if let Some(sub) = self.prune_with(st, *ps, rw, clocks) {
                return Some(sub);
            }
        }
        let (ps, rw, carried_key) = self.carried_summary(st, asleep)?;
        // The same formula (terms are hash-consed) with the same accesses as the local
        // summary that just failed: checking it again would fail again.
        if local
            .as_ref()
            .is_some_and(|(l, lrw)| *l == ps && **lrw == rw)
        {
            return None;
        }
        let sub = self.prune_with(st, ps, &rw, clocks)?;
        self.search.stats.carried_pruned += 1;
        self.search.carried_used.insert(carried_key);
        Some(sub)
    }

    /// The summary the previous version of the program recorded for this node, when
    /// no changed statement can run after it (`carry`'s soundness condition), with its
    /// stable key.
    fn carried_summary(
        &mut self,
        st: &State,
        asleep: &SleepKey,
    ) -> Option<(TermId, RwTable, Vec<u64>)> {
        let imported = self.setup.cfg.carry.as_ref()?.import.as_ref()?;
        if imported.summaries.is_empty() || !imported.changes.clean(st) {
            return None;
        }
        self.search.stats.carried_clean += 1;
        let ids = self.setup.stable.as_ref()?;
        let view = super::carry::StableView::new(self.setup.prog, ids, &self.names);
        let key = st.key_with(&self.pool, &view);
        if view.untrusted.get() {
            return None;
        }
        let carried = imported.summaries.get(&key)?;
        self.search.stats.carried_matched += 1;
        if let Some(known) = self.search.carried_imports.get(&key) {
            let (ps, rw, sleep) = known.clone()?;
            return sleep_within(&sleep, asleep).then_some((ps, rw, key));
        }
        let made = carried.decode(&key).and_then(|carried| {
            super::carry::import(
                self.setup.prog,
                ids,
                &mut self.names,
                &mut self.pool,
                st,
                &carried,
            )
        });
        self.search
            .carried_imports
            .insert(key.clone(), made.clone());
        let (ps, rw, sleep) = made?;
        sleep_within(&sleep, asleep).then_some((ps, rw, key))
    }

    /// Prunes the node with summary `ps` (inputs as `Fut`) and access table `rw`.
    fn prune_with(
        &mut self,
        st: &State,
        ps: TermId,
        rw: &RwTable,
        clocks: &[VClock],
    ) -> Option<Sub> {
        let concrete = self.concrete_summary(st, ps);
        if concrete == Some(false) {
            return None;
        }
        let cursors = Self::cursors(st);
        // `Some(true)`: every variable of the summary is a state variable with a
        // constant value here, and instantiating it would fold to `true`.
        if concrete.is_none() {
            let inst = self.instantiate(st, ps, &cursors)?;
            let violated = self.pool.not(inst);
            if self.path.model.holds(&self.pool, violated) == Some(true) {
                return None;
            }
            if self.feasible(violated) != Some(false) {
                return None;
            }
        }
        let rw = self.repair(st, rw, clocks)?;
        // The summary with its inputs named as here, for the node's wp: built only once
        // the node is pruned (most checks fail, and this walk over the whole summary
        // was a third of the time on scull).
        let here = rename_inputs_memo(
            &mut self.pool,
            &mut self.search.renamed,
            ps,
            &cursors,
            false,
        )?;
        self.search.stats.partial_runs += 1;
        self.search.stats.pruned += 1;
        self.trace_event(|| format!("pruned by the summary {}", self.pool.display(here)));
        Some(Sub { wp: here, rw })
    }

    /// The value of the summary `phi` in `st` when it mentions no input and every state
    /// variable it mentions has a constant value in `st` (the common case where no
    /// symbolic value is involved): evaluated directly, without building the substituted
    /// term [`Self::instantiate`] would build (and fold to the same constant). `None`
    /// otherwise, or where evaluation and the solver may differ (division by zero,
    /// over-wide shifts), and where `instantiate` would find no value of the variable's
    /// width.
    fn concrete_summary(&mut self, st: &State, phi: TermId) -> Option<bool> {
        let vars = self.pool.vars_cached(phi);
        let by_key = st.tids_by_key();
        // Parallel to `vars` (sorted by variable): a variable listed twice (two widths)
        // cannot match both, so each variable is listed once past the loop.
        let mut values = Vec::with_capacity(vars.len());
        for &(var, width) in vars.iter() {
            let value = self.state_value(st, &by_key, var)?;
            if self.pool.width(value) != width {
                return None;
            }
            values.push(self.pool.as_bv(value)?);
        }
        let order = self.pool.topological_cached(phi);
        super::model::eval_listed(&self.pool, &order, &vars, &values).map(|v| v != 0)
    }

    /// The term a state variable of a summary stands for in `st`; `None` for inputs and
    /// where `st` has no value for it.
    fn state_value(
        &self,
        st: &State,
        by_key: &FxHashMap<ThreadKey, Tid>,
        var: Var,
    ) -> Option<TermId> {
        match var {
            Var::Input { .. } | Var::Fut { .. } => None,
            Var::Reg { thread, depth, reg } => {
                let th = &st.threads[*by_key.get(&thread)?];
                if depth == RET_DEPTH {
                    match th.status {
                        Status::Ending { value, .. } | Status::Finished { value } => value.term(),
                        _ => None,
                    }
                } else {
                    th.frames.get(depth as usize)?.regs.get(reg.index())?.term()
                }
            }
            Var::Cell { obj, offset } => st.mem.get(obj)?.cells.get(&offset)?.val.term(),
        }
    }

    /// Replaces the state variables of the summary `phi` by their values in `st`, and
    /// its future inputs `Fut{t, j}` by the inputs `Input{t, cursors[t] + j}` they are
    /// here, in one simultaneous substitution (the same as renaming with
    /// [`rename_inputs`](super::summary::rename_inputs) first: the renamed inputs are no state variables). `None` if a
    /// state variable has no value of its width in `st` (then the state does not match
    /// the summary).
    fn instantiate(
        &mut self,
        st: &State,
        phi: TermId,
        cursors: &FxHashMap<ThreadKey, u32>,
    ) -> Option<TermId> {
        let by_key = st.tids_by_key();
        let vars = self.pool.vars_cached(phi);
        // The value of each variable of `vars` (an input: itself), which with `phi`
        // fixes the result: the key of the memo.
        let mut values = Vec::with_capacity(vars.len());
        let mut bits = 0;
        for &(var, width) in vars.iter() {
            let value = match var {
                Var::Input { .. } => self.pool.var(var, width),
                Var::Fut { thread, index } => {
                    let base = cursors.get(&thread).copied().unwrap_or(0);
                    let input = Var::Input {
                        thread,
                        index: base + index,
                    };
                    self.pool.var(input, width)
                }
                _ => self.state_value(st, &by_key, var)?,
            };
            if self.pool.width(value) != width {
                return None;
            }
            values.push(value);
            if !matches!(var, Var::Input { .. }) {
                bits |= var_bloom(var);
            }
        }
        if bits == 0 {
            return Some(phi);
        }
        let state_map = |pool: &mut super::term::TermPool| {
            let mut map = FxHashMap::default();
            for (&(var, width), &value) in vars.iter().zip(&values) {
                if !matches!(var, Var::Input { .. }) {
                    map.insert(pool.var(var, width), value);
                }
            }
            map
        };
        if let Some(inst) = self.search.instantiated.get(phi, &values) {
            debug_assert_eq!(inst, {
                let map = state_map(&mut self.pool);
                substitute(&mut self.pool, phi, &map, bits)
            });
            return Some(inst);
        }
        let map = state_map(&mut self.pool);
        // A summary grows by disjunction (`or(ps, wp)`, `ps` checked before): a side
        // instantiated before with the same values is not walked again.
        let node = self.pool.node(phi).clone();
        let inst = match node {
            Node::Or(a, b) | Node::And(a, b) => {
                let ra = self.instantiated_before(a, &vars, &values);
                let rb = self.instantiated_before(b, &vars, &values);
                if ra.is_some() || rb.is_some() {
                    let ra = ra.unwrap_or_else(|| substitute(&mut self.pool, a, &map, bits));
                    let rb = rb.unwrap_or_else(|| substitute(&mut self.pool, b, &map, bits));
                    if (ra, rb) == (a, b) {
                        phi
                    } else {
                        self.pool.rebuild(&node, &[ra, rb])
                    }
                } else {
                    substitute(&mut self.pool, phi, &map, bits)
                }
            }
            _ => substitute(&mut self.pool, phi, &map, bits),
        };
        debug_assert_eq!(inst, substitute(&mut self.pool, phi, &map, bits));
        self.search.instantiated.insert(phi, values, inst);
        Some(inst)
    }

    /// The instantiation of `part`, a subterm of a summary with the variables `vars`
    /// taking `values`, if it was instantiated before with the same values of its own
    /// variables (which fix the result).
    fn instantiated_before(
        &self,
        part: TermId,
        vars: &[(Var, u8)],
        values: &[TermId],
    ) -> Option<TermId> {
        let own = self.pool.vars_known(part)?;
        let mut part_values = Vec::with_capacity(own.len());
        for v in own.iter() {
            part_values.push(values[vars.binary_search(v).ok()?]);
        }
        self.search.instantiated.get(part, &part_values)
    }

    /// §5.2: the accesses recorded below a pruned node race with the path as if they
    /// had been executed after it. An access happens after the node positions of the
    /// threads its table entry names (and of its own thread), so the path's steps before
    /// those do not race with it; its clock is the join of their clocks here (for a
    /// thread not yet created with nothing known, the meet of all clocks). An access
    /// whose races were all with steps below the recorded node needs nothing here.
    ///
    /// With [`Repair::Strict`], returns `None` when a race is not covered by the
    /// backtrack sets of the path yet: the node is then explored rather than pruned, so
    /// that pruning never makes DPOR explore what it would not have (runs(dpor+ag) ≤
    /// runs(dpor)). With [`Repair::Add`] the backtrack points are added (the paper's
    /// repair; more pruning, but the lower-bound clocks may schedule what DPOR would
    /// not). Otherwise returns the accesses on this path's clock scale, for the enclosing
    /// nodes' tables.
    fn repair(&mut self, st: &State, rw: &RwTable, clocks: &[VClock]) -> Option<Accesses> {
        let by_key = st.tids_by_key();
        // The meet of all clocks, computed once when first needed.
        let mut floor: Option<VClock> = None;
        let here = self.search.dpor.events.len();
        let mut out = Accesses::default();
        for (&(thread, access), rec) in rw {
            let p = by_key.get(&thread).copied();
            let mut clock = VClock::default();
            let mut known = false;
            for q in rec
                .after
                .iter()
                .filter_map(|k| by_key.get(k))
                .chain(p.iter())
            {
                if let Some(c) = clocks.get(*q) {
                    clock.join(c);
                    known = true;
                }
            }
            if !known {
                clock = floor
                    .get_or_insert_with(|| {
                        clocks
                            .iter()
                            .skip(1)
                            .fold(clocks.first().cloned().unwrap_or_default(), |acc, c| {
                                acc.meet(c)
                            })
                    })
                    .clone();
            }
            if rec.covered {
                out.add((thread, access), &clock, Some(here));
                continue;
            }
            if self.setup.cfg.strategy != Strategy::Baseline {
                match self.setup.cfg.repair {
                    Repair::Add => self.search.dpor.repair(p, &clock, &access),
                    Repair::Strict if self.search.dpor.repair_needed(p, &clock, &access) => {
                        return None
                    }
                    Repair::Strict => {}
                }
            }
            let last = match p {
                Some(p) => self.search.dpor.last_race(p, &clock, &access),
                None => None,
            };
            out.add((thread, access), &clock, last);
        }
        Some(out)
    }
}

/// Do two footprints hold the same accesses?
fn same_footprint(a: &[Access], b: &[Access]) -> bool {
    a.iter().all(|x| b.contains(x)) && b.iter().all(|x| a.contains(x))
}
