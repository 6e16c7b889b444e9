//! The stepping API: the engine's steps for searches built on it (the guided search of
//! [`crate::guided`] today), with the engine itself kept private, as loom keeps its
//! runtime.
//!
//! A search walks [`Node`]s, scheduling nodes (every thread at its next visible event)
//! with the [`Path`] that reached them. From a node, [`Stepper::step`] starts one
//! enabled thread's [`Step`]; [`Stepper::advance`] runs what the step does next (one
//! statement, a terminator, a re-acquire or a thread end) and says what follows
//! ([`Advance`]): the step goes on, it reached the next node, the run ended (an
//! [`End`]: a leaf), or a symbolic choice forked it into [`ForkSide`]s, each a step of
//! its own with its own path. A search that met its goal asks for the [`Witness`] of a
//! path ([`Stepper::witness`]) and replays it on the interpreter.
//!
//! ```text
//! first_step ──advance*──▶ Node ──step(t)──▶ Step ──advance──▶ Continue | Switch (advance again)
//!                                                            ├─▶ Node (the next scheduling node)
//!                                                            ├─▶ Leaf (the run ended)
//!                                                            └─▶ Fork (sides: Steps or Leaves)
//! ```
//!
//! The engine holds one current path at a time: a step's path is installed when the
//! step is first advanced, and a step must be advanced until it ends (in a node, a leaf
//! or a fork) before another one is; advancing another step in between is a programming
//! error and panics. A search keeps as many nodes as it likes: each owns its state and
//! path (the paths share their common history).

mod fingerprint;

use super::engine::{Engine, SideNext};
use super::path::PathCond;
use super::smt::InterruptAtDeadline;
use super::state::{State, Status};
use super::step::{Flow, StepCtx};
use super::{Config, VerifyError};
use crate::concrete::Witness;
use analysis::ir::{FuncId, Program, StmtId, StmtRef};

pub use super::ends::End;
pub use super::state::Tid;

/// The engine, driven one statement at a time by a search of its own.
pub struct Stepper<'p> {
    engine: Engine<'p>,
    /// The serial number of the step whose path is installed (0: none).
    installed: u64,
    /// The last serial number given to a step.
    serials: u64,
    /// Ends Z3's work at the configuration's deadline (see `InterruptAtDeadline`).
    _interrupt: InterruptAtDeadline,
}

/// A scheduling node: the symbolic state with every thread at its next visible event,
/// and the path that reached it.
#[derive(Clone)]
pub struct Node {
    state: State,
    path: Path,
    /// The thread scheduled for the step that produced the node (`None` after `main`'s
    /// code before its first visible event).
    mover: Option<Tid>,
}

/// A path: its condition (with the pins and a model of it), the inputs it read and its
/// schedule.
#[derive(Clone, Default)]
pub struct Path {
    cond: PathCond,
}

/// A step in progress: one scheduled thread's visible event and its local code up to
/// its next one (with the threads it creates and resumes), stopped between two
/// statements.
pub struct Step {
    state: State,
    ctx: StepCtx,
    /// The thread running now (the scheduled one, or a thread it created or resumes).
    thread: Tid,
    /// The step's path until it is installed in the engine.
    path: Option<PathCond>,
    /// Its serial number once installed.
    serial: u64,
}

/// What one [`Stepper::advance`] did.
pub struct Advanced {
    /// The statement or terminator that ran: `None` when the thread parked without
    /// running anything, for a re-acquire or a thread-end event, and for a bound.
    pub ran: Option<StmtId>,
    pub then: Advance,
}

/// What follows what the step just ran.
pub enum Advance {
    /// The same thread goes on.
    Continue(Step),
    /// Another thread goes on: a child the thread just created, or a creator it resumes
    /// now that it stands at its next visible event.
    Switch(Step),
    /// The step is over: the next scheduling node.
    Node(Node),
    /// The run ended inside the step.
    Leaf(End),
    /// A symbolic choice (a branch, a check, a value pinned): the sides, in the engine's
    /// order, infeasible ones left out.
    Fork(Vec<ForkSide>),
    /// The search's time ran out inside the step; the step is abandoned.
    Stopped,
}

/// One side of a fork.
pub enum ForkSide {
    /// The step goes on under the side's condition. `repeats_statement`: the side runs
    /// the statement that forked again (a check or a pin fork), so a search that counts
    /// statements run must not count it twice.
    Step {
        step: Box<Step>,
        repeats_statement: bool,
    },
    /// The run ends on this side.
    Leaf(End),
    /// The solver gave up on the side's path condition: the side is not explored.
    SolverGaveUp,
}

impl<'p> Stepper<'p> {
    /// An engine for `program` under `config`. Only the configuration's bounds, checks and
    /// semantics apply (`max_events`, `max_threads`, `unwind`, `timeout`, ...): the search
    /// driving the steps is the caller's, so its strategy and slice play no part.
    pub fn new(program: &'p Program, config: &'p Config) -> Result<Stepper<'p>, VerifyError> {
        let mut engine = Engine::new(program, config)?;
        // Its paths are compared step by step with the interpreter's: no void events.
        engine.setup.await_on = false;
        Ok(Stepper {
            engine,
            installed: 0,
            serials: 0,
            _interrupt: super::guard_solver(config),
        })
    }

    /// Solver queries give up at `deadline` at the latest (as Z3's timeout): the caller's
    /// search checks its deadline between steps, but one query can run far past it.
    pub fn set_solver_deadline(&mut self, deadline: std::time::Instant) {
        self.engine.smt.set_deadline(Some(deadline));
    }

    pub fn program(&self) -> &'p Program {
        self.engine.setup.prog
    }

    /// `main`'s code from the initial state up to its first visible event.
    pub fn first_step(&mut self) -> Result<Step, VerifyError> {
        let state = self.engine.initial_state()?;
        Ok(Step {
            state,
            ctx: StepCtx::initial(),
            thread: 0,
            path: Some(PathCond::default()),
            serial: 0,
        })
    }

    /// The first steps of a search: `main`'s, or from a program context
    /// ([`Config::context`]) one per start state (each entry thread's pointers bound to
    /// one candidate, §3.1), thread 0 first and every other entry thread run to its first
    /// visible event before the first node, as `verify` starts a context.
    pub fn first_steps(&mut self) -> Result<Vec<ForkSide>, VerifyError> {
        let Some(ctx) = self.engine.setup.cfg.context.clone() else {
            let step = Box::new(self.first_step()?);
            return Ok(vec![ForkSide::Step {
                step,
                repeats_statement: false,
            }]);
        };
        self.engine.install_path(&PathCond::default());
        let starts = self.engine.context_starts(&ctx)?;
        let base = self.engine.capture_path();
        let mut first = StepCtx::initial();
        first.resume = (1..ctx.threads.len()).rev().collect();
        let mut out = Vec::new();
        for start in starts {
            if let Some(why) = start.unsupported {
                out.push(ForkSide::Leaf(End::Unsupported(why)));
                continue;
            }
            match self.engine.feasible(start.guard) {
                Some(true) => {}
                Some(false) => continue,
                None => {
                    out.push(ForkSide::SolverGaveUp);
                    continue;
                }
            }
            let mut path = base.clone();
            path.model = self.engine.path.model.clone();
            path.assume(&self.engine.pool, start.guard, None);
            out.push(ForkSide::Step {
                step: Box::new(Step {
                    state: start.state,
                    ctx: first.clone(),
                    thread: 0,
                    path: Some(path),
                    serial: 0,
                }),
                repeats_statement: false,
            });
        }
        Ok(out)
    }

    /// The threads that may take a step from `node`.
    pub fn enabled(&self, node: &Node) -> Vec<Tid> {
        self.engine.enabled_threads(&node.state)
    }

    /// Thread `t`'s step from `node` (not run yet).
    pub fn step(&self, node: &Node, t: Tid) -> Step {
        Step {
            state: node.state.clone(),
            ctx: StepCtx::of(t),
            thread: t,
            path: Some(node.path.cond.clone()),
            serial: 0,
        }
    }

    /// Runs what the step's current thread does next; installs the step's path first
    /// if the step has not run yet.
    ///
    /// # Panics
    /// When `step` was started before another step that has not ended was advanced: the
    /// engine holds that other step's path.
    pub fn advance(&mut self, mut step: Step) -> Advanced {
        self.install(&mut step);
        let before = position(&step.state, step.thread);
        let Some(done) = self
            .engine
            .exec_next(&mut step.state, step.thread, &mut step.ctx)
        else {
            return Advanced {
                ran: None,
                then: Advance::Stopped,
            };
        };
        let then = match done.flow {
            Flow::Next => Advance::Continue(step),
            Flow::Switch(t) => {
                step.thread = t;
                Advance::Switch(step)
            }
            Flow::Park => match step.ctx.resume.pop() {
                Some(t) => {
                    step.thread = t;
                    Advance::Switch(step)
                }
                None => Advance::Node(Node {
                    mover: step.ctx.tid,
                    state: step.state,
                    path: self.current_path(),
                }),
            },
            Flow::End(end) => Advance::Leaf(end),
            Flow::Fork(sides) => {
                let ran_statement = done
                    .ran
                    .is_some_and(|s| matches!(self.program().stmt(s), StmtRef::Stmt(_)));
                let again = |st: &State| ran_statement && position(st, step.thread) == before;
                Advance::Fork(self.sides(&step, sides, again))
            }
        };
        Advanced {
            ran: done.ran,
            then,
        }
    }

    /// The feasible sides of a fork of `step`, each with the path so far and its guard.
    fn sides(
        &mut self,
        step: &Step,
        sides: Vec<super::engine::Side>,
        again: impl Fn(&State) -> bool,
    ) -> Vec<ForkSide> {
        let base = self.engine.capture_path();
        let mut out = Vec::new();
        for side in sides {
            match self.engine.feasible(side.guard) {
                Some(true) => {}
                Some(false) => continue,
                None => {
                    out.push(ForkSide::SolverGaveUp);
                    continue;
                }
            }
            let mut path = base.clone();
            // The model the feasibility check left satisfies this side.
            path.model = self.engine.path.model.clone();
            path.assume(&self.engine.pool, side.guard, side.pin);
            out.push(match side.next {
                SideNext::Continue(state) => ForkSide::Step {
                    repeats_statement: again(&state),
                    step: Box::new(Step {
                        state,
                        ctx: step.ctx.clone(),
                        thread: step.thread,
                        path: Some(path),
                        serial: 0,
                    }),
                },
                SideNext::End(_, end) => ForkSide::Leaf(end),
            });
        }
        out
    }

    fn install(&mut self, step: &mut Step) {
        match step.path.take() {
            Some(path) => {
                self.engine.install_path(&path);
                self.serials += 1;
                step.serial = self.serials;
                self.installed = step.serial;
            }
            None => assert_eq!(
                step.serial, self.installed,
                "a step was advanced while another step's path was installed"
            ),
        }
    }

    /// The path of the step advanced last, as it stands now (a search that met its goal
    /// in the middle of a step builds its witness from it).
    pub fn current_path(&self) -> Path {
        Path {
            cond: self.engine.capture_path(),
        }
    }

    /// The witness of `path`: its inputs (valued by its model) and its schedule, then
    /// one step of each thread of `extra`.
    pub fn witness(&self, path: &Path, extra: &[Tid]) -> Witness {
        let cond = &path.cond;
        let mut w = super::witness::of_path(
            &self.engine,
            &cond.inputs,
            &cond.model,
            &cond.trace.to_vec(),
        );
        w.schedule
            .extend(extra.iter().map(|&t| crate::concrete::ThreadId(t as u32)));
        w
    }

    /// The statement thread `t` stands at in `node` (its pending visible event: a
    /// shared access, a synchronization, a condition wait, its end), if any.
    pub fn pending_stmt(&self, node: &Node, t: Tid) -> Option<StmtId> {
        let th = &node.state.threads[t];
        match th.status {
            Status::AtEvent => {
                let f = th.frames.last()?;
                let block = &self.program().function(f.func).blocks[f.block as usize];
                Some(
                    block
                        .stmts
                        .get(f.index as usize)
                        .map_or(block.term.id, |s| s.id),
                )
            }
            Status::Waiting { stmt, .. } | Status::Reacquire { stmt, .. } => Some(stmt),
            Status::Ending { stmt, .. } => Some(stmt),
            _ => None,
        }
    }

    /// The first statement of the block the step's current thread is in: where a branch
    /// it just took went.
    pub fn block_start(&self, step: &Step) -> Option<StmtId> {
        let f = step.state.threads[step.thread].frames.last()?;
        let block = &self.program().function(f.func).blocks[f.block as usize];
        Some(block.stmts.first().map_or(block.term.id, |s| s.id))
    }

    /// Whether the pending events of threads `a` and `b` in `node` touch a common
    /// memory cell, one of them writing it: a data race if they run back to back.
    pub fn conflicting(&self, node: &Node, a: Tid, b: Tid) -> bool {
        let footprint = |t| self.engine.pending_footprint(&node.state, t);
        let (Some(fa), Some(fb)) = (footprint(a), footprint(b)) else {
            return false;
        };
        fa.iter().any(|x| {
            fb.iter()
                .any(|y| (x.write || y.write) && x.loc.same_memory(&y.loc))
        })
    }

    /// Solver queries made so far.
    pub fn solver_queries(&self) -> u64 {
        self.engine.smt.stats.queries
    }
}

impl Node {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The thread scheduled for the step that produced the node (`None` after `main`'s
    /// code before its first visible event).
    pub fn mover(&self) -> Option<Tid> {
        self.mover
    }

    /// The threads that have not ended (nor stopped in a spin loop).
    pub fn live_threads(&self) -> Vec<Tid> {
        (0..self.state.threads.len())
            .filter(|&t| self.state.is_live(t))
            .collect()
    }

    /// A 128-bit fingerprint of the state and the path condition: two nodes with equal
    /// fingerprints have the same successors (see [`fingerprint`]'s module doc).
    pub fn fingerprint(&self) -> u128 {
        fingerprint::fingerprint(&self.state, &self.path.cond)
    }
}

impl Path {
    /// The interpreter steps on the path.
    pub fn len(&self) -> usize {
        self.cond.trace.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cond.trace.is_empty()
    }

    /// The thread and statement of every interpreter step, first to last.
    pub fn steps(&self) -> Vec<(Tid, StmtId)> {
        self.cond
            .trace
            .to_vec()
            .iter()
            .map(|s| (s.tid, s.stmt))
            .collect()
    }
}

impl Step {
    /// The thread running now.
    pub fn thread(&self) -> Tid {
        self.thread
    }

    /// Statements (and events) run in the step so far, over all its threads.
    pub fn statements(&self) -> u64 {
        self.ctx.statements
    }
}

/// Where a thread is: its call depth and the statement index of its top frame.
fn position(st: &State, t: Tid) -> Option<(usize, FuncId, u32, u32)> {
    let th = &st.threads[t];
    let f = th.frames.last()?;
    Some((th.frames.len(), f.func, f.block, f.index))
}

#[cfg(test)]
mod tests;
