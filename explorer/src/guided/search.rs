//! One trial: the guided symbolic execution of Fig. 4 along one abstract trace set, with
//! refinement (Fig. 5) and restarts from the initial state.
//!
//! ```text
//! current := best successor of the initial state; backtrack := the others
//! loop:
//!   goal_state(current)                          → replay the witness: CONFIRMED
//!   end state or depth bound                     → current := pop(backtrack)
//!   successors := every enabled thread's step (each side of a data fork a successor)
//!   a step meets a reach goal                    → replay the witness: CONFIRMED
//!   rank by (h1, h2); s' := best; push the others (best last popped first... in order)
//!   s' left a trace's head branch by the wrong side and refinements remain
//!                                                → refine, current := initial state
//!   current := s'
//! ```
//! Backtrack points are never dropped (a refinement pushes the wrong-side state too), so
//! a trial that empties its stack with no bound hit has seen every schedule and input.

use super::distance::{Icfg, FAR};
use super::goal::{confirm_node, confirm_reach, node_goal};
use super::progress::{Progress, TraceSet, WrongSide};
use super::refine::{Refinement, Refiner};
use super::{Abstraction, Config, Evidence, Goal, GoalKind};
use crate::concrete::ViolationKind;
use crate::symbolic::stepping::{self, Advance, End, ForkSide, Step, Stepper, Tid};
use analysis::ir::{Program, StmtId};
use rustc_hash::FxHashSet;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// A search state: a scheduling node (with its path) and its trace progress.
struct Node {
    at: stepping::Node,
    prog: Progress,
    /// The step that produced this node left a trace's head branch by the wrong side.
    wrong: Option<WrongSide>,
    /// The restart (generation) the node belongs to.
    gen: u32,
    /// Preemptions on the node's path (see `Config::preemption_bound`).
    preempted: u32,
}

/// `(h1, h2, h3)`, lower is better: abstract locations left; the distance of the threads
/// to the next abstract locations; the distance of the thread that just moved (ties go to
/// the step that brought the thread nearest to the trace forward).
type Rank = (usize, u32, u32);

/// A step in progress (one per fork side) with its trace progress.
struct Partial {
    step: Step,
    prog: Progress,
    wrong: Option<WrongSide>,
}

/// How a trial ended.
#[derive(Debug)]
pub enum TrialEnd {
    Confirmed(Box<Evidence>),
    /// No backtrack point left. `complete`: no bound, solver failure, unsupported
    /// construct or undefined behaviour cut any path, so every schedule and input was
    /// explored.
    Exhausted {
        complete: bool,
    },
    /// A budget (states, time) ran out.
    Stopped(String),
    /// Another trial confirmed the goal first.
    Cancelled,
}

/// The result of one trial.
#[derive(Debug)]
pub struct TrialResult {
    pub end: TrialEnd,
    /// Why the search was incomplete, first occurrence per reason.
    pub incomplete: Vec<(String, String)>,
    pub states: u64,
    /// States expanded (their successors computed).
    pub expanded: u64,
    pub refinements: Vec<Refinement>,
    /// A refinement was wanted but the bound was reached (or no definition had a trace).
    pub refinements_exhausted: bool,
    /// A refinement was wanted at these branches but found no definition to add (or
    /// only ones the trace already has).
    pub unrefinable: Vec<StmtId>,
    pub initial_traces: Vec<Vec<StmtId>>,
    pub final_traces: Vec<Vec<StmtId>>,
    pub solver_queries: u64,
}

/// Everything one trial shares across its states.
pub struct Trial<'a> {
    prog: &'a Program,
    goal: &'a Goal,
    cfg: &'a Config,
    e: Stepper<'a>,
    icfg: Icfg,
    refiner: Refiner<'a>,
    goal_stmts: FxHashSet<StmtId>,
    cancel: &'a AtomicBool,
    deadline: Instant,
    states: u64,
    expanded: u64,
    refinements: Vec<Refinement>,
    refinements_exhausted: bool,
    unrefinable: Vec<StmtId>,
    incomplete: Vec<(String, String)>,
    final_traces: Vec<Vec<StmtId>>,
    /// Fingerprints of the states generated, per generation: each restart searches
    /// afresh, and a state met again within one generation is not explored twice.
    visited: FxHashSet<(u128, u32)>,
    generation: u32,
}

/// What a step produced.
enum Produced {
    Nodes(Vec<Node>),
    Confirmed(Box<Evidence>),
}

impl<'a> Trial<'a> {
    pub fn new(
        prog: &'a Program,
        goal: &'a Goal,
        abs: &'a dyn Abstraction,
        cfg: &'a Config,
        engine: Stepper<'a>,
        cancel: &'a AtomicBool,
        deadline: Instant,
    ) -> Trial<'a> {
        Trial {
            prog,
            goal,
            cfg,
            e: engine,
            icfg: Icfg::new(prog),
            refiner: Refiner::new(prog, abs, goal.stmts()),
            goal_stmts: goal.stmts().into_iter().collect(),
            cancel,
            deadline,
            states: 0,
            expanded: 0,
            refinements: Vec::new(),
            refinements_exhausted: false,
            unrefinable: Vec::new(),
            incomplete: Vec::new(),
            final_traces: Vec::new(),
            visited: FxHashSet::default(),
            generation: 0,
        }
    }

    fn note(&mut self, reason: &str, detail: String) {
        if !self.incomplete.iter().any(|(r, _)| r == reason) {
            self.incomplete.push((reason.to_string(), detail));
        }
    }

    /// Runs the trial along `traces`.
    pub fn run_along(mut self, traces: Vec<Vec<StmtId>>) -> TrialResult {
        let end = self.search(traces.clone());
        TrialResult {
            end,
            incomplete: self.incomplete,
            states: self.states,
            expanded: self.expanded,
            refinements: self.refinements,
            refinements_exhausted: self.refinements_exhausted,
            unrefinable: self.unrefinable,
            initial_traces: traces,
            final_traces: self.final_traces,
            solver_queries: self.e.solver_queries(),
        }
    }

    fn search(&mut self, traces: Vec<Vec<StmtId>>) -> TrialEnd {
        let set = Rc::new(TraceSet::new(self.prog, &self.icfg, traces));
        self.final_traces = set.traces.clone();
        let mut stack: Vec<Node> = Vec::new();
        let mut current = match self.restart(set, &mut stack) {
            Ok(c) => c,
            Err(end) => return end,
        };
        loop {
            let Some(node) = current.take().or_else(|| stack.pop()) else {
                return TrialEnd::Exhausted {
                    complete: self.incomplete.is_empty(),
                };
            };
            if self.cancel.load(Ordering::Relaxed) {
                return TrialEnd::Cancelled;
            }
            if let Some(why) = self.out_of_budget() {
                return TrialEnd::Stopped(why);
            }
            if let Some(threads) = node_goal(&self.e, &node.at, self.goal) {
                match confirm_node(&self.e, self.goal, node.at.path(), &threads) {
                    Ok(ev) => return TrialEnd::Confirmed(Box::new(ev)),
                    Err(why) => self.note("replay", why),
                }
            }
            if node.at.path().len() as u64 >= self.cfg.max_depth {
                let detail = format!(
                    "a path reached the depth bound of {} steps",
                    self.cfg.max_depth
                );
                self.note("depth", detail);
                continue;
            }
            self.expanded += 1;
            let mut succs = match self.expand(&node) {
                Produced::Confirmed(ev) => return TrialEnd::Confirmed(ev),
                Produced::Nodes(n) => n,
            };
            if succs.is_empty() {
                continue;
            }
            let mut ranked: Vec<(Rank, Node)> =
                succs.drain(..).map(|n| (self.rank(&n), n)).collect();
            ranked.sort_by_key(|(r, _)| *r);
            let mut ranked = ranked.into_iter().map(|(_, n)| n);
            let best = ranked.next().expect("non-empty");
            let others: Vec<Node> = ranked.collect();
            stack.extend(others.into_iter().rev());
            match best.wrong {
                Some(wrong) => match self.try_refine(&best, wrong) {
                    Some(set) => {
                        stack.push(best);
                        current = match self.restart(set, &mut stack) {
                            Ok(c) => c,
                            Err(end) => return end,
                        };
                    }
                    None => current = Some(best),
                },
                None => current = Some(best),
            }
        }
    }

    fn out_of_budget(&self) -> Option<String> {
        if self.states >= self.cfg.max_states {
            return Some(format!("state bound of {} reached", self.cfg.max_states));
        }
        if Instant::now() >= self.deadline {
            return Some(format!(
                "time bound of {:.1} s reached",
                self.cfg.timeout.as_secs_f64()
            ));
        }
        None
    }

    /// The initial state's successors (`main`'s code up to its first visible event, or
    /// each start state of a program context):
    /// the best becomes current, the others go on the stack.
    fn restart(
        &mut self,
        set: Rc<TraceSet>,
        stack: &mut Vec<Node>,
    ) -> Result<Option<Node>, TrialEnd> {
        let firsts = match self.e.first_steps() {
            Ok(sides) => sides,
            Err(err) => {
                self.note("unsupported", err.to_string());
                return Err(TrialEnd::Exhausted { complete: false });
            }
        };
        self.generation += 1;
        let mut succs = Vec::new();
        for side in firsts {
            match side {
                ForkSide::Step { step, .. } => {
                    let prog = Progress::new(Rc::clone(&set));
                    match self.step(*step, prog, self.generation) {
                        Produced::Confirmed(ev) => return Err(TrialEnd::Confirmed(ev)),
                        Produced::Nodes(n) => succs.extend(n),
                    }
                }
                ForkSide::Leaf(end) => self.run_end(&end),
                ForkSide::SolverGaveUp => {
                    self.note("solver", "the solver gave up on a path condition".into())
                }
            }
        }
        succs.sort_by_cached_key(|n| self.rank(n));
        let mut it = succs.into_iter();
        let best = it.next();
        let rest: Vec<Node> = it.collect();
        stack.extend(rest.into_iter().rev());
        Ok(best)
    }

    fn try_refine(&mut self, best: &Node, wrong: WrongSide) -> Option<Rc<TraceSet>> {
        if self.refinements.len() as u32 >= self.cfg.max_refinements {
            self.refinements_exhausted = true;
            return None;
        }
        let ran: FxHashSet<StmtId> = best.at.path().steps().iter().map(|&(_, s)| s).collect();
        let refined = self.refiner.refine(
            &mut self.icfg,
            &best.prog.set,
            &best.prog.cursor,
            wrong,
            &ran,
        );
        let unchanged = match &refined {
            None => true,
            // The definition is already on the trace and needs to run only once:
            // restarting along the same traces would only repeat the failed search.
            Some((traces, _)) => *traces == best.prog.set.traces,
        };
        if unchanged {
            if !self.unrefinable.contains(&wrong.branch) {
                self.unrefinable.push(wrong.branch);
            }
            return None;
        }
        let (traces, note) = refined?;
        self.refinements.push(note);
        self.final_traces = traces.clone();
        Some(Rc::new(TraceSet::new(self.prog, &self.icfg, traces)))
    }

    /// The [`Rank`] of a node: abstract locations left; the distance of the nearest
    /// thread to each trace's next location (and, for goals
    /// where threads must stand at the locations, of distinct threads to the goal
    /// locations); the nearest such distance of the thread that moved.
    fn rank(&mut self, n: &Node) -> Rank {
        let h1 = n.prog.remaining();
        // Each thread's position is its pending statement (a distance through the call
        // stack, returning to callers first, was tried and guided worse on SV-COMP).
        let positions: Vec<(Tid, StmtId)> =
            n.at.live_threads()
                .into_iter()
                .filter_map(|t| self.e.pending_stmt(&n.at, t).map(|p| (t, p)))
                .collect();
        let heads: Vec<StmtId> = n.prog.heads().map(|(_, s)| s).collect();
        let mut h2: u32 = 0;
        let mut mover_best = FAR;
        for head in heads {
            let mut d = FAR;
            for &(t, p) in &positions {
                let x = self.icfg.distance(p, head);
                d = d.min(x);
                if Some(t) == n.at.mover() {
                    mover_best = mover_best.min(x);
                }
            }
            h2 = h2.saturating_add(d);
        }
        if self.goal.kind.at_node() {
            let mut used = vec![false; positions.len()];
            for loc in &self.goal.locations {
                let best = positions
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !used[*i])
                    .map(|(i, &(_, p))| {
                        let d = loc
                            .stmts
                            .iter()
                            .map(|&x| self.icfg.distance(p, x))
                            .min()
                            .unwrap_or(FAR);
                        (d, i)
                    })
                    .min();
                if let Some((d, i)) = best {
                    used[i] = true;
                    h2 = h2.saturating_add(d);
                    if Some(positions[i].0) == n.at.mover() {
                        mover_best = mover_best.min(d);
                    }
                } else {
                    h2 = h2.saturating_add(FAR);
                }
            }
        }
        (h1, h2, mover_best)
    }

    /// Every enabled thread's step from `node` within the preemption bound (a step of
    /// another thread than the one that moved last, while that one is still enabled, is a
    /// preemption; a step the bound skips makes the trial incomplete).
    fn expand(&mut self, node: &Node) -> Produced {
        let enabled = self.e.enabled(&node.at);
        let running = node.at.mover().filter(|r| enabled.contains(r));
        let mut out = Vec::new();
        for t in enabled {
            let cost = u32::from(running.is_some_and(|r| r != t));
            if let Some(k) = self
                .cfg
                .preemption_bound
                .filter(|&k| node.preempted + cost > k)
            {
                let detail = format!(
                    "no violation within {k} preemption(s); schedules with more were not \
                     explored"
                );
                self.note("preemption bound", detail);
                continue;
            }
            let step = self.e.step(&node.at, t);
            match self.step(step, node.prog.clone(), node.gen) {
                Produced::Confirmed(ev) => return Produced::Confirmed(ev),
                Produced::Nodes(n) => out.extend(n.into_iter().map(|mut n| {
                    n.preempted = node.preempted + cost;
                    n
                })),
            }
        }
        Produced::Nodes(out)
    }

    /// Runs one step to its end: every feasible side of every fork; `prog` is the trace
    /// progress and `gen` the generation of the node it starts from.
    fn step(&mut self, step: Step, prog: Progress, gen: u32) -> Produced {
        let mut work = vec![Partial {
            step,
            prog,
            wrong: None,
        }];
        let mut out = Vec::new();
        while let Some(p) = work.pop() {
            if let Some(ev) = self.advance(p, gen, &mut work, &mut out) {
                return Produced::Confirmed(ev);
            }
        }
        let fresh: Vec<Node> = out
            .into_iter()
            .filter(|n| self.visited.insert((n.at.fingerprint(), n.gen)))
            .collect();
        self.states += fresh.len() as u64;
        Produced::Nodes(fresh)
    }

    /// Drives a partial step until it reaches the next node, forks, or ends the run.
    fn advance(
        &mut self,
        p: Partial,
        gen: u32,
        work: &mut Vec<Partial>,
        out: &mut Vec<Node>,
    ) -> Option<Box<Evidence>> {
        let Partial {
            mut step,
            mut prog,
            mut wrong,
        } = p;
        loop {
            if step.statements() >= self.cfg.max_step_statements {
                let detail = format!(
                    "a step ran more than {} statements without a visible event",
                    self.cfg.max_step_statements
                );
                self.note("step-statements", detail);
                return None;
            }
            let thread = step.thread();
            let progress_before = prog.clone();
            let done = self.e.advance(step);
            let checks = done.ran.map(|s| prog.on_exec(s)).unwrap_or_default();
            if let Some(s) = done
                .ran
                .filter(|s| self.goal.kind == GoalKind::Reach && self.goal_stmts.contains(s))
            {
                if let Some(ev) = self.reach_goal(thread, s, &done.then) {
                    return Some(ev);
                }
            }
            match done.then {
                Advance::Continue(next) => {
                    step = next;
                    resolve(&self.e, &step, &mut prog, &mut wrong, &checks);
                }
                Advance::Switch(next) => step = next,
                Advance::Node(at) => {
                    out.push(Node {
                        at,
                        prog,
                        wrong,
                        gen,
                        preempted: 0,
                    });
                    return None;
                }
                Advance::Leaf(end) => {
                    self.run_end(&end);
                    return None;
                }
                Advance::Stopped => {
                    self.note("timeout", "the engine stopped the step".into());
                    return None;
                }
                Advance::Fork(sides) => {
                    for side in sides {
                        match side {
                            ForkSide::Step {
                                step,
                                repeats_statement,
                            } => {
                                // A side that runs the statement again (a check or a pin
                                // fork) must not count it twice.
                                let mut q = Partial {
                                    step: *step,
                                    prog: if repeats_statement {
                                        progress_before.clone()
                                    } else {
                                        prog.clone()
                                    },
                                    wrong,
                                };
                                if !repeats_statement {
                                    resolve(&self.e, &q.step, &mut q.prog, &mut q.wrong, &checks);
                                }
                                work.push(q);
                            }
                            ForkSide::Leaf(end) => self.run_end(&end),
                            ForkSide::SolverGaveUp => {
                                self.note("solver", "the solver gave up on a path condition".into())
                            }
                        }
                    }
                    return None;
                }
            }
        }
    }

    /// A reach goal's statement ran: build and replay the witness.
    fn reach_goal(&mut self, thread: Tid, s: StmtId, then: &Advance) -> Option<Box<Evidence>> {
        // An error site is met when it ends the run (the dispatch returned its violation).
        let path = match then {
            Advance::Leaf(End::Violation { .. }) | Advance::Continue(_) | Advance::Switch(_) => {
                self.e.current_path()
            }
            Advance::Node(node) => node.path().clone(),
            Advance::Leaf(_) | Advance::Fork(_) | Advance::Stopped => return None,
        };
        let w = self.e.witness(&path, &[]);
        match confirm_reach(self.prog, w, &path, thread, s) {
            Ok(ev) => Some(Box::new(ev)),
            Err(why) => {
                self.note("replay", why);
                None
            }
        }
    }

    /// A run ended inside a step; note what makes the search incomplete. An assertion
    /// or `reach_error()` failure ends the program (no goal lies past it); any other
    /// violation is undefined behaviour (the hunt's engine reports no memory or misuse
    /// checks), after which the program may do anything: a trial that met one cannot
    /// refute the goal, as `agx verify` answers `unknown` (`undefined-behaviour`) there.
    fn run_end(&mut self, end: &End) {
        match end {
            End::Completed | End::Aborted | End::Deadlock { .. } => {}
            End::Violation {
                kind: ViolationKind::Assertion | ViolationKind::ReachError,
                ..
            } => {}
            End::Violation { message, span, .. } => {
                let detail = format!("{message} at {}", self.prog.location(*span));
                self.note("undefined-behaviour", detail);
            }
            End::AssumeFalse { gap } => {
                if let Some(what) = gap {
                    self.note("assume-semantics", what.clone());
                }
            }
            End::Unsupported(what) => self.note("unsupported", what.clone()),
            End::Bound(reason, detail) => self.note(reason.as_str(), detail.clone()),
        }
    }
}

/// Resolves pending branch checks of a partial step against the block its thread is in.
fn resolve(
    e: &Stepper<'_>,
    step: &Step,
    prog: &mut Progress,
    wrong: &mut Option<WrongSide>,
    checks: &[usize],
) {
    if checks.is_empty() {
        return;
    }
    let Some(side) = e.block_start(step) else {
        return;
    };
    for &i in checks {
        if let Err(w) = prog.resolve(i, side) {
            wrong.get_or_insert(w);
        }
    }
}
