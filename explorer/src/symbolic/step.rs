//! Driving a step: a thread's pending event, the rest of an atomic section it opens, and
//! its local code up to its next visible event (with the creators it must resume), until
//! the next scheduling node, a fork, or the end of the run. [`Engine::exec_next`] is the
//! one step function both the depth-first search and the guided search drive.

use super::dpor::{Access, Footprint};
use super::ends::End;
use super::engine::{Engine, Side, Sub};
use super::state::{Frame, State, Status, Tid};
use super::summary::WpOp;
use super::Reason;
use analysis::ir::{StmtId, StmtKind};
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

/// Statements one step may run without a visible event before the run is cut.
const MAX_STEP_STATEMENTS: u64 = 1_000_000;

/// Loads, stores and synchronizations are the events other threads can observe.
pub fn is_visible(kind: &StmtKind) -> bool {
    matches!(
        kind,
        StmtKind::Load { .. } | StmtKind::Store { .. } | StmtKind::Sync { .. }
    )
}

/// What a step has done so far (cloned at forks).
#[derive(Clone, Debug)]
pub struct StepCtx {
    /// The scheduled thread; `None` for `main`'s prefix before the first step.
    pub tid: Option<Tid>,
    /// Its pending event has not run yet.
    pub event_pending: bool,
    /// The accesses of the step.
    pub foot: Footprint,
    /// Creators to resume when the current thread stands at its next event.
    pub resume: Vec<Tid>,
    /// Threads created in this step.
    pub created: Vec<Tid>,
    /// A description of the step's first effect visible to other threads, if any.
    pub shared_effect: Option<String>,
    /// The thread running now.
    pub cur: Tid,
    /// For each thread that ran in the step: where its inputs and path conditions since
    /// its last visible event start (indices into the path's inputs and conjuncts).
    pub fresh: Vec<(Tid, usize, usize)>,
    /// Statements executed in the step.
    pub statements: u64,
    /// Local states of the running threads at loop headers in this step, to recognise
    /// a loop that never reaches a visible event.
    pub loop_states: Vec<(u64, Tid, Vec<super::state::Frame>)>,
    /// The recorder of the step's weakest-precondition transformer: what each statement
    /// did, over state variables (empty with summaries off). [`Engine::explore_step`] applies it
    /// to the result of what follows the step.
    pub wp_ops: Vec<WpOp>,
    /// Where the step's outermost atomic section began, when it began the step with
    /// nothing visible done before it (for the await reduction, [`super::awaits`]).
    pub section: Option<super::awaits::SectionStart>,
}

impl StepCtx {
    pub fn initial() -> StepCtx {
        StepCtx {
            tid: None,
            event_pending: false,
            foot: Vec::new(),
            resume: Vec::new(),
            created: Vec::new(),
            shared_effect: None,
            cur: 0,
            fresh: Vec::new(),
            statements: 0,
            loop_states: Vec::new(),
            wp_ops: Vec::new(),
            section: None,
        }
    }

    /// Thread `t`'s inputs and conjuncts are fresh (private to it) from these indices.
    pub fn mark_fresh(&mut self, t: Tid, inputs: usize, pcon: usize) {
        self.fresh.retain(|(u, _, _)| *u != t);
        self.fresh.push((t, inputs, pcon));
    }

    pub fn of(t: Tid) -> StepCtx {
        StepCtx {
            tid: Some(t),
            event_pending: true,
            cur: t,
            ..StepCtx::initial()
        }
    }

    pub fn touch(&mut self, a: Access) {
        if !self.foot.contains(&a) {
            self.foot.push(a);
        }
    }
}

impl<'p> Engine<'p> {
    /// Drives a step: runs thread `cur` (and the creators it must resume) until the step
    /// ends at the next scheduling node, a fork, or the end of the run.
    ///
    /// The step's transformer (`k.wp_ops`) is taken out before the step ends, so what
    /// follows (a node's steps, a fork's sides) records its own; it is applied to the
    /// result of what follows.
    pub fn explore_step(&mut self, mut st: State, mut cur: Tid, mut k: StepCtx) -> Sub {
        let (ops, sub) = loop {
            let Some(done) = self.exec_next(&mut st, cur, &mut k) else {
                break (Vec::new(), self.nothing());
            };
            match done.flow {
                Flow::Next => {}
                Flow::Switch(c) => cur = c,
                Flow::Park => match k.resume.pop() {
                    Some(c) => cur = c,
                    None => break (std::mem::take(&mut k.wp_ops), self.end_step(st, k)),
                },
                Flow::End(e) => break (std::mem::take(&mut k.wp_ops), self.leaf(&st, e, &k)),
                Flow::Fork(sides) => {
                    let ops = std::mem::take(&mut k.wp_ops);
                    break (ops, self.fork_beyond_slice(&st, cur, sides, &k));
                }
            }
        };
        self.with_ops(&ops, sub)
    }

    /// Explores a fork's sides; a Type B branch pivot explores one of them, its guard
    /// kept out of the path condition while it runs.
    fn fork_beyond_slice(&mut self, st: &State, cur: Tid, sides: Vec<Side>, k: &StepCtx) -> Sub {
        let (sides, dropped) = self.type_b_sides(st, cur, sides);
        let Some(guard) = dropped else {
            return self.fork(sides, cur, k);
        };
        self.path.dropped_guards.push(guard);
        let sub = self.fork(sides, cur, k);
        self.path.dropped_guards.pop();
        sub
    }

    /// Runs what thread `cur` does next inside the current step (one statement, a
    /// terminator, or a re-acquire / thread-end event), with the step's bookkeeping: the
    /// bounds on visible events and on statements per step, the time budget, the inputs
    /// private to the threads that ran, and the loops that never reach a visible event
    /// (which end the run). The one step function of the engine: its own depth-first
    /// driver ([`Engine::explore_step`]) and the guided search ([`crate::guided`]) both drive
    /// steps with it, each deciding what to do with the returned [`Flow`] (for a
    /// [`Flow::Park`], resume a creator from `k.resume` or end the step; for a fork,
    /// explore its sides). `None`: the search is stopped (out of time).
    pub fn exec_next(&mut self, st: &mut State, cur: Tid, k: &mut StepCtx) -> Option<Executed> {
        if self.search.stop {
            return None;
        }
        if self.path.trace.len() as u64 > self.setup.cfg.max_events {
            let detail = format!("a run reached {} visible events", self.setup.cfg.max_events);
            return Some(Executed::end(End::Bound(Reason::MaxEvents, detail)));
        }
        k.cur = cur;
        k.statements += 1;
        if k.statements.is_multiple_of(4096) && self.out_of_time() {
            return None;
        }
        if k.statements > MAX_STEP_STATEMENTS {
            let detail = format!("a step ran more than {MAX_STEP_STATEMENTS} statements");
            return Some(Executed::end(End::Bound(Reason::MaxEvents, detail)));
        }
        let events = self.path.trace.len();
        let mut done = self.exec_one(st, cur, k);
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
    fn exec_one(&mut self, st: &mut State, cur: Tid, k: &mut StepCtx) -> Executed {
        match st.threads[cur].status {
            Status::AtEvent => {}
            Status::Reacquire { .. } | Status::Ending { .. } | Status::Waiting { .. }
                if self.is_enabled(st, cur) =>
            {
                if !self.may_run_event(st, cur, k) {
                    return Executed::parked();
                }
                k.event_pending = false;
                let flow = self.exec_special(st, cur, k);
                return Executed { flow, ran: None };
            }
            Status::Awaiting { noted: false } => {
                self.note_await(st, cur, k);
                return Executed::parked();
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
                let flow = self.exec_visible(st, cur, stmt, k);
                Executed {
                    flow,
                    ran: Some(stmt.id),
                }
            }
            Some(stmt) => Executed {
                flow: self.exec_local(st, cur, stmt, k),
                ran: Some(stmt.id),
            },
            None => Executed {
                flow: self.exec_term(st, cur, &block.term, k),
                ran: Some(block.term.id),
            },
        }
    }
}
