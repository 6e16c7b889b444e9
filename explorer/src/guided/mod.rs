//! Abstraction-guided symbolic execution (Rungta, Mercer and Visser,
//! `abstraction-guided-symbolic-execution.md`): confirm that a goal — an error site, or
//! several threads standing at given locations at once (a race, a deadlock) — is
//! reachable, fast, by guiding a symbolic execution along *abstract traces*.
//!
//! ```text
//! goal ──▶ abstract system A = ⟨L_α, E_α⟩ (Eqs. 1-6, from the caller's [`Abstraction`])
//!      ──▶ abstract traces P_i (Eq. 7) ──▶ trace sets Π_A = P_0 × … × P_{t-1}, ranked
//!      ──▶ one trial per trace set, in parallel: greedy search (Fig. 4) + refinement (Fig. 5)
//!      ──▶ CONFIRMED (witness replayed on the interpreter) | REFUTED | UNKNOWN (reason)
//! ```
//!
//! # Abstract traces (Eq. 7) and trace sets
//! For goal location `l_i`, `P_i` holds paths `⟨l_0, …, l_i⟩` of `E_α` from the start of
//! `main` with no repeated location. They are enumerated best first by (call sites,
//! length) — the paper picks the initial trace sets with the fewest call sites — and the
//! trace sets (one trace per goal location) are ranked by the same key, summed.
//!
//! # Guided search (Fig. 4)
//! A greedy depth-first search over *scheduling nodes* (every thread at its next visible
//! event, as in [`crate::symbolic`]). At a node every enabled thread's step is computed —
//! a step forks at symbolic branches (data choices), each side a successor — and the
//! successors are ranked by the two-tier heuristic: `h1`, the number of abstract
//! locations still to visit (`Σ_i |π_i|`), then `h2`, the estimated control-flow distance
//! ([`distance`]) from the threads' positions to the next abstract location of each trace.
//! The best successor becomes the current state; the others are kept as backtrack points
//! (a stack: the most recent is resumed first). Depth, state and time bounds stop it.
//!
//! Matching ([`progress`]): a trace advances when any thread executes its head; a head
//! that already ran on the path before it became the head is consumed at once (the
//! abstract trace orders what must happen, not which thread does it first; a location may
//! appear several times and then must run that many times).
//!
//! # Refinement (Fig. 5)
//! When the head of a trace is a branch and the best successor left it by the wrong side
//! (a concrete condition, or the wanted side infeasible), the trace set is refined
//! ([`refine`]): a definition `l_v` of a variable the branch reads (interprocedural,
//! through points-to, from the [`Abstraction`]) is chosen, the abstract system is
//! recomputed with `l_v` added, an abstract trace `π_v` to it is taken, followed by the
//! release of a lock that `π_v` and the trace's prefix both acquire, and `π_v ∘ π_pre`
//! replaces the prefix. The search restarts from the initial state; the same branch may be
//! refined again, up to [`Config::max_refinements`] refinements per trial.
//!
//! # Verdicts
//! - CONFIRMED only with a witness (inputs and schedule) that replays on
//!   [`crate::concrete`] and shows the goal: the violation at the target; both accesses
//!   of a race as the last two, adjacent steps; a deadlock with every goal thread blocked.
//! - REFUTED when the goal is statically unreachable (no abstract trace reaches a
//!   location), when the exhaustive `dpor+ag` search of [`crate::symbolic`] on the
//!   caller's slice finishes without reaching an error-site target (or any deadlock), or
//!   when a trial of this search explored every interleaving and input (no bound hit, no
//!   undefined behaviour or unsupported event on a path, no backtrack point left) without
//!   meeting the goal: what verify's SAFE means.
//! - UNKNOWN otherwise, with the reason (a bound, refinements exhausted, the exhaustive
//!   search's own reason).
//!
//! # Cost against the exhaustive search (measured)
//! On the 24 expected-false SV-COMP tasks of issue 6 (release build, `--jobs 1`; nodes
//! expanded for the confirmed goal against the states `agx verify` visits with dpor+ag),
//! the median ratio hunt/verify is 1.11 in states and 0.9 in search time (geometric
//! means 0.76 and 0.69). The guided search wins where the exhaustive search must search
//! (triangular-longer-2: 318 against 236 883; stack_longest-1: 23 against 10 009;
//! fib_bench_longer-2: 130 against 1 443) and loses where verify's first run already is
//! the witness (lazy01: 113 against 19; queue: 428 against 49), since no search expands
//! fewer nodes than its witness has steps. Where the extra nodes go:
//! - a trace's head branch left by the wrong side that refinement cannot help (the
//!   needed "definition" is an order — a read before a write, as in bigshot_p — or the
//!   only candidates are already on the trace, as the second writer in lazy01 after the
//!   first, whose `k`-th-candidate choice hits the first writer again): the search goes
//!   on below it with no trace location reachable (`h2` = FAR) and backtracks depth
//!   first, the deepest alternatives first, through interleavings the goal does not
//!   depend on;
//! - each refinement restarts from the initial state, and the new generation visits the
//!   states of the earlier ones again.
//!
//! Tried and not kept (same tasks): taking the next candidate that changes the trace when
//! the `k`-th does not (lazy01 113 → 30, but queue 428 → 1 063 and sigma 1 233 → 5 177:
//! median 1.23, geometric mean 0.94); additionally skipping candidates that run once and
//! are on the trace (sigma no longer confirmed in 10 s); resuming the best-ranked backtrack
//! point instead of the newest, with nodes from which no thread reaches a trace location
//! last (read_write_lock-2 1 401 → 734, but triangular-2 113 → 1 223, bounded_buffer not
//! confirmed: median 1.23–1.49).
//!
//! # Code map
//! The steps, where threads stand, state fingerprints and witnesses come from the
//! engine's stepping API ([`crate::symbolic::stepping`]), the only part of the engine
//! this search uses. [`trace`] (Eq. 7, trace sets), [`progress`] (matching locations),
//! [`distance`] (`h2`), [`search`] (Fig. 4), [`refine`] (Fig. 5), [`goal`] (goal states,
//! witnesses and their replay), [`trials`] (parallel trials, the exhaustive fallback,
//! the verdict).

pub(crate) mod distance;
pub(crate) mod goal;
pub(crate) mod progress;
pub(crate) mod refine;
pub(crate) mod rounds;
pub(crate) mod search;
pub(crate) mod trace;
pub(crate) mod trials;

pub use rounds::hunt_in_rounds;
pub use trace::{AbstractGraph, AbstractNode, EdgeKind};
pub use trials::hunt;

/// Confirms a witness another search found (a PCT run, a prediction) against a goal:
/// replays it and checks that it fails at one of the goal's locations.
pub use goal::confirm_found as confirm_witness;

use crate::concrete::{BlockedThread, UninitPolicy, Witness};
use analysis::ir::StmtId;
use serde::Serialize;
use std::collections::BTreeSet;
use std::time::Duration;

/// What must hold in a goal state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GoalKind {
    /// One location: some thread executes one of its statements (for an error site, the
    /// violation happens there).
    Reach,
    /// Two locations: distinct threads stand at them, both enabled, their pending
    /// accesses touch a common memory cell and one writes it.
    Race,
    /// Distinct threads stand at the locations and no thread can run.
    Deadlock,
    /// Distinct threads stand at the locations, all enabled (the paper's goal state).
    Together,
}

impl GoalKind {
    pub fn name(self) -> &'static str {
        match self {
            GoalKind::Reach => "reach",
            GoalKind::Race => "race",
            GoalKind::Deadlock => "deadlock",
            GoalKind::Together => "together",
        }
    }

    /// Whether the goal is a state where threads *stand* at the locations (checked at
    /// scheduling nodes) rather than a statement being executed.
    pub fn at_node(self) -> bool {
        !matches!(self, GoalKind::Reach)
    }
}

/// One goal location: the statements of one source line (a thread must be at one).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GoalLocation {
    pub stmts: Vec<StmtId>,
    /// `file:line`, for reports.
    pub label: String,
}

/// A goal: the paper's set of target locations `L_t`, with what must hold there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Goal {
    pub kind: GoalKind,
    pub locations: Vec<GoalLocation>,
}

impl Goal {
    /// Every statement of every location.
    pub fn stmts(&self) -> Vec<StmtId> {
        let set: BTreeSet<StmtId> = self
            .locations
            .iter()
            .flat_map(|l| l.stmts.iter().copied())
            .collect();
        set.into_iter().collect()
    }
}

/// What the guided search needs from the static analyses (the rules crate, wired by the
/// caller): the abstract system of a set of targets, and the facts refinement uses.
pub trait Abstraction: Sync {
    /// The abstract system (Eqs. 1-6) of `targets`.
    fn system(&self, targets: &[StmtId]) -> AbstractGraph;
    /// `L_v` of Fig. 5: statements that may (re)define a value `stmt` (a branch, or a
    /// definition found earlier) reads, interprocedurally and through points-to.
    fn definitions(&self, stmt: StmtId) -> Vec<StmtId>;
    /// Whether two lock acquisitions may take the same lock.
    fn same_lock(&self, a: StmtId, b: StmtId) -> bool;
    /// The releases paired with an acquisition.
    fn releases(&self, acquire: StmtId) -> Vec<StmtId>;
    /// Whether a statement runs at most once in any execution (then an abstract trace
    /// never needs it twice).
    fn runs_once(&self, stmt: StmtId) -> bool;
}

/// The configuration of a hunt. Every field names its default.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Config {
    /// Trials run at the same time (rayon workers, each with its own Z3 context).
    /// Default: 1.
    pub jobs: usize,
    /// Refinements per trial. Default: 64.
    pub max_refinements: u32,
    /// Visible events on one path (the depth bound). Default: 10 000.
    pub max_depth: u64,
    /// Scheduling nodes one trial may generate. Default: 200 000.
    pub max_states: u64,
    /// Wall-clock budget for the goal (guided trials and the exhaustive fallback).
    /// Default: 60 s.
    pub timeout: Duration,
    /// Trace sets tried (trials). Default: 8.
    pub max_trace_sets: usize,
    /// Abstract traces enumerated per goal location. Default: 16.
    pub max_traces: usize,
    /// Statements one thread may run inside one step (a local loop without visible
    /// events). Default: 1 000 000.
    pub max_step_statements: u64,
    /// Iterations of one loop and depth of one recursion on a path. Default: `None`.
    pub unwind: Option<u32>,
    /// What uninitialized locals and `malloc` memory hold. Default: `Nondet`.
    pub uninit: UninitPolicy,
    /// Budget of one solver query. Default: 10 s.
    pub query_timeout: Duration,
    /// After the guided trials fail on a reach or deadlock goal, run the exhaustive
    /// `dpor+ag` search to refute or confirm. Default: true.
    pub refute: bool,
    /// Scheduling nodes the exhaustive search may visit (see [`hunt_in_rounds`]).
    /// Default: `None` (only the time budget bounds it).
    pub exhaustive_max_states: Option<u64>,
    /// The static backward slice of the goal (for the exhaustive search). Default: `None`.
    pub relevant: Option<BTreeSet<StmtId>>,
    /// The program's file name, recorded in witnesses. Default: empty.
    pub program_name: String,
    /// Spurious wake-ups of condition waits (see
    /// [`symbolic::Config::spurious_wakeups`](crate::symbolic::Config)). Default: true.
    pub spurious_wakeups: bool,
    /// Memory budget in bytes of the searches (see
    /// [`symbolic::Config::max_memory`](crate::symbolic::Config)). Default: 4 GiB.
    pub max_memory: u64,
    /// Schedules with at most this many preemptions (see
    /// [`symbolic::Config::preemption_bound`](crate::symbolic::Config)), in the guided
    /// trials and the exhaustive search; a schedule cut by it makes REFUTED impossible.
    /// Default: `None`.
    pub preemption_bound: Option<u32>,
    /// Start from this program context instead of `main` (see
    /// [`symbolic::Config::context`](crate::symbolic::Config)): the trials and the
    /// exhaustive search start from its initial states, and no goal is refuted
    /// statically (the abstract traces start at `main`). Default: `None`.
    pub context: Option<crate::context::Context>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            jobs: 1,
            max_refinements: 64,
            max_depth: 10_000,
            max_states: 200_000,
            timeout: Duration::from_secs(60),
            max_trace_sets: 8,
            max_traces: 16,
            max_step_statements: 1_000_000,
            unwind: None,
            uninit: UninitPolicy::Nondet,
            query_timeout: Duration::from_secs(10),
            refute: true,
            exhaustive_max_states: None,
            relevant: None,
            program_name: String::new(),
            spurious_wakeups: true,
            max_memory: crate::concrete::DEFAULT_MAX_MEMORY,
            preemption_bound: None,
            context: None,
        }
    }
}

/// The verdict on one goal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Confirmed,
    Refuted,
    Unknown,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Confirmed => "CONFIRMED",
            Verdict::Refuted => "REFUTED",
            Verdict::Unknown => "UNKNOWN",
        }
    }
}

/// Which search produced a verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FoundBy {
    /// No search: the abstract system has no trace to a goal location.
    Static,
    /// A guided trial.
    Guided,
    /// The exhaustive `dpor+ag` search of [`crate::symbolic`].
    Exhaustive,
    /// A PCT run on the interpreter (`agx hunt --stages pct`).
    Pct,
    /// The predictive analysis of an observed PCT run ([`crate::predict`]).
    Predict,
}

/// One step of a replayed witness.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Step {
    pub thread: u32,
    pub stmt: StmtId,
    /// `file:line`.
    pub location: String,
    /// `statement`, `reacquire` or `thread_end`.
    pub event: String,
}

/// The evidence of a confirmed goal: a witness and what its replay showed.
#[derive(Clone, Debug, Serialize)]
pub struct Evidence {
    pub witness: Witness,
    /// The replay's steps (for a race, the two accesses are the last two).
    pub steps: Vec<Step>,
    /// `(thread, statement)` standing at or executing each goal location, in goal order.
    pub goal_threads: Vec<(u32, StmtId)>,
    /// For a deadlock: every blocked thread, as the interpreter reports it.
    pub blocked: Vec<BlockedThread>,
    /// What the replay ended with, in words.
    pub message: String,
}

/// Statistics of one goal (the paper's Table 2 columns, and more).
#[derive(Clone, Debug, Default, Serialize)]
pub struct HuntStats {
    /// Scheduling nodes generated, over every trial.
    pub states: u64,
    /// Nodes generated by the trial that decided the verdict (Table 2's "States").
    pub states_decisive: u64,
    /// Nodes expanded (their successors computed), over every trial and the exhaustive
    /// search: comparable to the states `agx verify` reports as visited.
    pub expanded: u64,
    /// Nodes expanded by the deciding trial.
    pub expanded_decisive: u64,
    /// Refinements of the deciding trial (or the most of any trial).
    pub refinements: u32,
    /// `Σ|π_i|` of the deciding trial's initial trace set.
    pub trace_length: usize,
    /// Trace sets tried (trials started) and available.
    pub trace_sets_tried: usize,
    pub trace_sets: usize,
    /// States of the exhaustive search, when it ran.
    pub exhaustive_states: u64,
    /// Rounds the goal took part in (see [`hunt_in_rounds`]).
    pub rounds: u32,
    pub solver_queries: u64,
    pub time_ms: f64,
}

/// The result of hunting one goal.
#[derive(Clone, Debug, Serialize)]
pub struct Hunt {
    pub verdict: Verdict,
    pub found_by: Option<FoundBy>,
    /// Why the verdict is REFUTED or UNKNOWN, in words.
    pub reason: Option<String>,
    pub evidence: Option<Evidence>,
    /// The deciding trial's trace set at the start and at the end (after refinement).
    pub initial_traces: Vec<Vec<StmtId>>,
    pub final_traces: Vec<Vec<StmtId>>,
    /// The deciding trial's refinements, in order.
    pub refinements: Vec<refine::Refinement>,
    pub stats: HuntStats,
}

impl Hunt {
    /// A verdict reached without a search (a static refutation, a goal that could not be
    /// built): no evidence, no traces, the time since `started`.
    pub fn without_search(
        verdict: Verdict,
        found_by: Option<FoundBy>,
        reason: String,
        started: std::time::Instant,
    ) -> Hunt {
        let stats = HuntStats {
            time_ms: started.elapsed().as_secs_f64() * 1000.0,
            ..HuntStats::default()
        };
        Hunt::without_evidence(verdict, found_by, reason, stats)
    }

    /// A verdict with a reason and no evidence or traces, with these statistics.
    pub fn without_evidence(
        verdict: Verdict,
        found_by: Option<FoundBy>,
        reason: String,
        stats: HuntStats,
    ) -> Hunt {
        Hunt {
            verdict,
            found_by,
            reason: Some(reason),
            evidence: None,
            initial_traces: Vec::new(),
            final_traces: Vec::new(),
            refinements: Vec::new(),
            stats,
        }
    }
}

/// A failure of the hunt itself (never a verdict).
#[derive(Debug, thiserror::Error)]
pub enum HuntError {
    #[error("{0}")]
    Program(String),
    #[error("cannot start the search workers: {0}")]
    Workers(String),
}
