//! Symbolic execution of multithreaded programs over the IR: every input and every
//! schedule, with dynamic partial-order reduction and assertion-guided pruning
//! (the algorithms of `assertion-guided-symbolic-execution.md`).
//!
//! ```no_run
//! # fn demo(program: &analysis::ir::Program) -> Result<(), explorer::symbolic::VerifyError> {
//! use explorer::symbolic::{verify, Config, Strategy, Verdict};
//! let mut config = Config::default();
//! config.strategy = Strategy::DporAg;
//! let outcome = verify(program, &config)?;
//! if outcome.verdict == Verdict::Violation {
//!     println!("{}", outcome.violations[0].message);
//! }
//! # Ok(()) }
//! ```
//!
//! # The search
//! A depth-first search over *scheduling nodes*: states where every thread stands at
//! its next visible event (the interpreter's step boundaries). From a node, a *step* runs
//! one thread's pending event, the rest of an atomic section it opens, and its local code
//! up to its next visible event; symbolic branches in that code fork the step. Runs end
//! at program exit, a violation, a false `assume`, a deadlock, or a bound.
//!
//! - [`Strategy::Baseline`] explores every enabled thread at every node (Algorithm 1).
//! - [`Strategy::Dpor`] explores backtrack sets computed by DPOR with sleep sets
//!   (`dpor`).
//! - [`Strategy::DporAg`] adds predicate summaries and pruning (Algorithm 2, `summary`),
//!   repairing DPOR's backtrack sets from the RVar/WVar tables at pruned nodes, and
//!   (unless `Config::slice` is off) skips pivots outside the assertion's static slice
//!   (`reach` for Type A, `type_b` for Type B).
//!
//! # Soundness rules
//! A violation is reported only after its witness replays on the reference interpreter
//! ([`crate::concrete`]); a witness that does not replay is a [`VerifyError`]. `Safe`
//! means the search finished with no bound hit, no unsupported construct and no
//! undefined behaviour on any path; otherwise the verdict is `Unknown` with the reasons.
//!
//! # Code map
//! Terms and solving: `term` (hash-consed terms), `fold` (constant folding),
//! `term_text`, `model` (evaluation), `smt` (Z3), `value` (values, arithmetic,
//! `value::Twin`: a value with its weakest-precondition twin), `state` (threads,
//! memory), `names`.
//!
//! The engine, by the lifetime of its data (`engine`): `engine::Setup` (fixed for
//! the program), `path` (the current path: condition, pins, model, inputs, trace;
//! forks), `engine::SearchState` (DPOR, summaries, findings, statistics, budget).
//!
//! A step (`step`: `step::StepCtx` carries the step's accesses and the recorder of
//! its transformer): `init` (initial state, threads, frames), `twins` (operands
//! and registers with their twins, check and pin forks), `local` (local statements),
//! `control` (terminators), `events` (loads and stores), `sync` (mutexes,
//! conditions, atomic sections, thread ends), `threads` (create, join), `enabled`
//! (enabledness, pending footprints), `ends` (the ends of runs, reports).
//!
//! The search: `search` (nodes, strategies), `dpor`, `summary`, `reach` and
//! `type_b` (§6.1), `witness`.
//!
//! Only [`stepping`] is public besides this module's types: the engine's steps for
//! searches built on it (nodes, steps, forks, leaves, witnesses); every other module is
//! private to the crate.

pub(crate) mod argv;
pub(crate) mod awaits;
pub mod carry;
pub(crate) mod context;
pub(crate) mod control;
pub(crate) mod dpor;
pub(crate) mod enabled;
pub(crate) mod ends;
pub(crate) mod engine;
pub(crate) mod events;
pub(crate) mod float_eval;
pub(crate) mod fold;
pub(crate) mod fp;
pub(crate) mod init;
pub(crate) mod local;
pub(crate) mod model;
pub(crate) mod names;
pub(crate) mod path;
pub(crate) mod preempt;
pub(crate) mod probe;
pub(crate) mod race;
pub(crate) mod reach;
pub(crate) mod search;
pub(crate) mod smt;
pub(crate) mod state;
pub(crate) mod step;
pub mod stepping;
pub(crate) mod summary;
pub(crate) mod sync;
pub(crate) mod term;
pub(crate) mod term_text;
pub(crate) mod threads;
pub(crate) mod twins;
pub(crate) mod type_b;
pub(crate) mod value;
pub(crate) mod witness;

/// The criteria of the Type B slice: what can stop, block or end an execution, and the
/// branches in loops (see [`Config::relevant`]).
pub use type_b::criteria as type_b_criteria;

use crate::concrete::{RunOutcome, UninitPolicy, ViolationKind, Witness};
use analysis::ir::{Program, Span, StmtId};
use serde::Serialize;
use std::collections::BTreeSet;
use std::time::Duration;

/// Which search to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Strategy {
    /// Every branch and every interleaving of visible events (Algorithm 1).
    #[serde(rename = "baseline")]
    Baseline,
    /// Dynamic partial-order reduction with sleep sets.
    #[serde(rename = "dpor")]
    Dpor,
    /// DPOR with predicate summaries and assertion-guided pruning (Algorithm 2).
    #[serde(rename = "dpor+ag")]
    DporAg,
}

impl Strategy {
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Baseline => "baseline",
            Strategy::Dpor => "dpor",
            Strategy::DporAg => "dpor+ag",
        }
    }
}

impl std::str::FromStr for Strategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "baseline" => Ok(Strategy::Baseline),
            "dpor" => Ok(Strategy::Dpor),
            "dpor+ag" | "ag" => Ok(Strategy::DporAg),
            other => Err(format!(
                "unknown strategy `{other}` (baseline|dpor|dpor+ag)"
            )),
        }
    }
}

/// Which DPOR algorithm computes the threads to explore at a node (see [`dpor`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DporMode {
    /// Flanagan and Godefroid: a race with `p` schedules `p` at the racing node, or every
    /// enabled thread there if `p` is not enabled.
    Classic,
    /// Source sets (Abdulla et al.): an initial of the reversed sequence, unless one is
    /// already scheduled, explored or asleep there.
    #[default]
    Source,
    /// Optimal DPOR: the reversed sequence goes into the racing node's wakeup tree, and
    /// the search follows it (fewer sleep-set-blocked runs where the tree applies; none
    /// in the paper, whose runs all go to their ends).
    Optimal,
}

impl DporMode {
    pub fn name(self) -> &'static str {
        match self {
            DporMode::Classic => "classic",
            DporMode::Source => "source",
            DporMode::Optimal => "optimal",
        }
    }
}

impl std::str::FromStr for DporMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "classic" => Ok(DporMode::Classic),
            "source" => Ok(DporMode::Source),
            "optimal" => Ok(DporMode::Optimal),
            other => Err(format!("unknown DPOR `{other}` (classic|source|optimal)")),
        }
    }
}

/// How a pruned node repairs DPOR's backtrack sets (§5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Repair {
    /// Prune only where the pruned subtree's accesses need no backtrack point the path
    /// lacks: runs(dpor+ag) ≤ runs(dpor) always.
    Strict,
    /// Prune and add the backtrack points: more pruning; since the recorded accesses
    /// carry only a lower bound of their happens-before, this may schedule threads DPOR
    /// alone would not.
    Add,
}

impl std::str::FromStr for Repair {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "strict" => Ok(Repair::Strict),
            "add" => Ok(Repair::Add),
            other => Err(format!("unknown repair `{other}` (strict|add)")),
        }
    }
}

/// Which property violations are reported (the others end a path as undefined
/// behaviour, which makes a `Safe` verdict impossible).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Checks {
    /// Deadlocks are violations (else a deadlocked run simply ends).
    pub deadlock: bool,
    /// Memory-safety, division by zero, lock and join misuse are violations.
    pub memory: bool,
    /// Data races are violations (see [`race`]). Turns off what is not sound for races:
    /// summaries (dpor+ag searches as dpor), the slice cuts, the spin-loop reduction and
    /// the await reduction.
    pub race: bool,
    /// Failed assertions and `reach_error` calls are not violations (SV-COMP's race
    /// property): a run reaching one ends there. A failed `assert` aborts the program,
    /// but `reach_error` is an ordinary function there, so a run that calls it makes the
    /// verdict at best `Unknown` — unless the program's own definitions of it abort
    /// ([`analysis::ir::Program::reach_error_ends_program`]).
    pub no_assertions: bool,
}

/// The configuration of a search. Every field names its default.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Config {
    /// Default: [`Strategy::DporAg`].
    pub strategy: Strategy,
    /// §6.1's slice pruning: cut nodes from which no thread can reach a target (Type A
    /// pivots; see `reach`) and, with `relevant`, explore one side of branches and one
    /// order of races outside the slice (Type B pivots; see `type_b`). Default: true.
    /// Only with [`Strategy::DporAg`] and without `checks`.
    pub slice: bool,
    /// A static backward slice (closed under the rules crate's dependences) for Type B
    /// pivots. Default: `None`. Used only if it contains every
    /// [`type_b_criteria`] statement (what can stop, block or end an execution, and
    /// the branches in loops); `agx verify` passes the slice of those.
    pub relevant: Option<BTreeSet<StmtId>>,
    /// Iterations of one loop (per entry, per frame) and activations of one function on
    /// one thread's stack; exceeding it cuts the path. Default: `None` (no bound).
    pub unwind: Option<u32>,
    /// Visible events in one run; exceeding it cuts the run. Default:
    /// [`DEFAULT_MAX_EVENTS`].
    pub max_events: u64,
    /// Threads in one run (main included); creating more cuts the run. Default: 64.
    pub max_threads: usize,
    /// Wall-clock budget of the whole search. Default: `None`.
    pub timeout: Option<Duration>,
    /// Scheduling nodes the search may visit; reaching it stops the search (a bound, so
    /// the verdict is UNKNOWN unless a violation was found). A deterministic budget,
    /// unlike `timeout`. Default: `None`.
    pub max_states: Option<u64>,
    /// Budget of one solver query. Default: 10 s.
    pub query_timeout: Duration,
    /// What uninitialized locals and `malloc` memory hold. Default: `Nondet` (an input,
    /// as SV-COMP assumes).
    pub uninit: UninitPolicy,
    /// Which violations besides assertions and `reach_error` are reported. Default: none.
    pub checks: Checks,
    /// Report only violations at these `(file, line)`s. Default: `None` (every
    /// assertion and `reach_error`).
    pub targets: Option<Vec<(analysis::ir::FileId, u32)>>,
    /// Keep searching after a violation to collect every violated location. Default:
    /// false (stop at the first).
    pub all_violations: bool,
    /// Slots of the summary table (§6.2). Default: 65 536.
    pub summary_slots: usize,
    /// Term nodes after which a summary stops growing (§6.2). Default: 4 000.
    pub summary_size_bound: u32,
    /// How pruned nodes repair DPOR's backtrack sets. Default: [`Repair::Add`], the
    /// paper's repair (session 13's bench: scull 5,218 → 718 runs, 2.5 → 0.23 s; one
    /// more task decided; see docs/performance.md).
    pub repair: Repair,
    /// Record a summary at a node with a non-empty sleep set too, relative to it, and
    /// prune with it only nodes whose sleep set contains it (see `summary`, "Sleep
    /// sets"). Off: only sleep-free visits make summaries (sessions 1-8). Default: true.
    pub sleep_summaries: bool,
    /// The DPOR algorithm of [`Strategy::Dpor`] and [`Strategy::DporAg`]. Default:
    /// [`DporMode::Source`].
    pub dpor: DporMode,
    /// The program's file name, recorded in witnesses. Default: empty.
    pub program_name: String,
    /// Print the search's events (ends of runs, prunes, sleeping nodes) with their paths
    /// to stderr. Default: false.
    pub trace: bool,
    /// POSIX lets `pthread_cond_wait` return without a signal: a waiting thread whose
    /// mutex is free may wake up (re-acquire the mutex) at any step. Off, only signals
    /// and broadcasts wake waiters, and a `Safe` verdict holds only for that model.
    /// Default: true.
    pub spurious_wakeups: bool,
    /// Memory budget in bytes: a path whose live heap blocks would exceed it ends at a
    /// bound, and the search stops (at a bound) when the process's resident memory
    /// exceeds it. Either makes the verdict at best `Unknown` naming `memory`. Default:
    /// 4 GiB ([`crate::concrete::DEFAULT_MAX_MEMORY`]).
    pub max_memory: u64,
    /// Spin-loop reduction (issue 15): a thread that completes a failing iteration of a
    /// spin loop ([`analysis::spin`]: only loads and register assignments, its registers
    /// dead at the header) stops for the rest of the run, its failing iterations adding
    /// no runs; the module doc of `analysis::spin` gives the soundness argument. The same
    /// for a thread whose read-only steps alone bring the path back to a state of its
    /// own (a spin loop found at run time; off with data-race checks and a preemption
    /// bound). Default: true.
    pub spin_loops: bool,
    /// Await reduction (issue 15): an `assume` (or `abort()`) that fails inside an atomic
    /// section before the section had any effect visible to other threads blocks the
    /// thread for the rest of the run instead of ending the run (Nidhugg's and GenMC's
    /// reading of `__VERIFIER_atomic_*` with `assume`); the module doc of `awaits` gives
    /// the soundness argument. Off with data-race checks and in the guided search.
    /// Default: true.
    pub await_assumes: bool,
    /// Summaries exchanged with other versions of the program (Conc-iSE; see
    /// [`carry`]). Default: none.
    pub carry: Option<std::sync::Arc<carry::Carry>>,
    /// The command-line arguments after the program name (`argv[1..]`, concrete); the
    /// witness records them. Default: none (`argc == 1`).
    pub args: Vec<String>,
    /// Symbolic command-line arguments (issue 18; exclusive with `args`): `argv[1..]` is
    /// every list of at most `max_count` strings of at most `max_len` bytes each, the
    /// bytes solver inputs (see [`argv`]); the witness records the list the model chose.
    /// A search that finds no violation is at best `Unknown` ([`Reason::ArgsBound`]).
    /// Default: `None`.
    pub symbolic_args: Option<SymbolicArgs>,
    /// Start from a program context ([`crate::context`]) instead of `main`. Default:
    /// `None`.
    pub context: Option<crate::context::Context>,
    /// Explore only schedules that switch away from a still-enabled thread at most this
    /// many times (see `preempt`); a schedule cut by it makes the verdict at best
    /// `Unknown` ([`Reason::PreemptionBound`]). [`verify`] then searches every
    /// interleaving within the bound (`Baseline`, no slice, no carried summaries, no
    /// spin-loop reduction): the reductions reorder steps, which can cost preemptions,
    /// so they are not sound under it. Default: `None`.
    pub preemption_bound: Option<u32>,
    /// Before a `dpor` or `dpor+ag` search, explore the non-preemptive schedule (each
    /// thread runs while it is enabled) within a small budget, and report a violation it
    /// finds without the search (see `probe`). Default: true.
    pub probe: bool,
    /// After the non-preemptive probe, when it found nothing: probe other schedules
    /// within a small budget (the newest thread first, then priority schedules with
    /// random priorities and change points, PCT; see `probe`). Needs `probe`.
    /// Default: true.
    pub probe_schedules: bool,
    /// After the probe's schedules, when they found nothing and a run created more than
    /// three threads: DPOR searches that cut runs at 3, 4, ... threads (see `probe`),
    /// within a small budget. Needs `probe`. Default: true.
    pub probe_thread_bounds: bool,
    /// End the probe's short search after this many scheduling nodes (it ends after a
    /// tenth of the timeout, at most 1 s, in any case; see `probe`). Default: `None`,
    /// which is `probe::QUICK_MAX_STATES`.
    pub probe_quick_states: Option<u64>,
    /// The probe's short search's share of the time. Default: `None`, which is a tenth
    /// of the timeout, at most 1 s (`probe::quick_time`).
    pub probe_quick_time: Option<Duration>,
    /// In the `dpor` and `dpor+ag` search, the step that ends the program (`main`'s
    /// return) is not enabled while another thread can take a step other than a
    /// spurious wake-up: it runs last, and DPOR never reverses its races (see `search`,
    /// "Exit deferral"). Not in the probe's own schedules, nor in the baseline (the
    /// unreduced reference). Default: true.
    pub defer_exit: bool,
    /// Told how far the search has come about once a second (the library prints nothing
    /// itself: a progress display is the caller's). Default: `None`.
    pub progress: Option<ProgressObserver>,
}

/// The bound of symbolic command-line arguments ([`Config::symbolic_args`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SymbolicArgs {
    /// `argc - 1` ranges over `0..=max_count`.
    pub max_count: u32,
    /// Each `argv[i]` (`i >= 1`) has `0..=max_len` bytes before its NUL.
    pub max_len: u32,
}

/// How far a search has come, as a [`ProgressObserver`] is told.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchProgress {
    pub runs: u64,
    pub partial_runs: u64,
    pub states: u64,
    /// Since the search started.
    pub elapsed: Duration,
}

/// A caller's progress display: called on the search's thread, so it must be quick.
#[derive(Clone)]
pub struct ProgressObserver(pub std::sync::Arc<dyn Fn(SearchProgress) + Send + Sync>);

impl std::fmt::Debug for ProgressObserver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProgressObserver")
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            strategy: Strategy::DporAg,
            slice: true,
            relevant: None,
            unwind: None,
            max_events: DEFAULT_MAX_EVENTS,
            max_threads: 64,
            timeout: None,
            max_states: None,
            query_timeout: Duration::from_secs(10),
            uninit: UninitPolicy::Nondet,
            checks: Checks::default(),
            targets: None,
            all_violations: false,
            summary_slots: 1 << 16,
            summary_size_bound: 4_000,
            repair: Repair::Add,
            sleep_summaries: true,
            dpor: DporMode::default(),
            program_name: String::new(),
            trace: false,
            spurious_wakeups: true,
            max_memory: crate::concrete::DEFAULT_MAX_MEMORY,
            spin_loops: true,
            await_assumes: true,
            carry: None,
            args: Vec::new(),
            symbolic_args: None,
            context: None,
            preemption_bound: None,
            probe: true,
            probe_schedules: true,
            probe_thread_bounds: true,
            probe_quick_states: None,
            probe_quick_time: None,
            defer_exit: true,
            progress: None,
        }
    }
}

/// The result of a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Violation,
    Safe,
    Unknown,
}

/// Why a search that found no violation is not `Safe`: a bound, a limit of the model or
/// the solver. Its text (`Display`, and the JSON value) names it in reports.
///
/// The variants are declared in the order of their texts, so an outcome's reasons are
/// listed alphabetically (as they were when reasons were strings).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Reason {
    /// [`Config::symbolic_args`]: longer or more command-line arguments were not explored.
    #[serde(rename = "args bound")]
    ArgsBound,
    /// A violation is reachable only past an end of a run the interpreter makes eagerly
    /// (see `Engine::frozen_check`): it cannot be replayed.
    #[serde(rename = "eager-end")]
    EagerEnd,
    /// [`Config::max_events`], or a step running a million statements.
    #[serde(rename = "max-events")]
    MaxEvents,
    /// [`Config::max_threads`].
    #[serde(rename = "max-threads")]
    MaxThreads,
    /// [`Config::max_memory`]: a path's heap, or the process's resident memory.
    #[serde(rename = "memory")]
    Memory,
    /// [`Config::preemption_bound`]: a schedule with more preemptions was not explored.
    #[serde(rename = "preemption bound")]
    PreemptionBound,
    /// The solver gave up on a query.
    #[serde(rename = "solver")]
    Solver,
    /// [`Config::max_states`].
    #[serde(rename = "state bound")]
    StateBound,
    /// [`Config::timeout`].
    #[serde(rename = "timeout")]
    Timeout,
    /// A path met undefined behaviour that is not reported as a violation.
    #[serde(rename = "undefined-behaviour")]
    UndefinedBehaviour,
    /// A construct outside the model.
    #[serde(rename = "unsupported")]
    Unsupported,
    /// [`Config::unwind`].
    #[serde(rename = "unwind")]
    Unwind,
}

impl Reason {
    pub const ALL: [Reason; 12] = [
        Reason::ArgsBound,
        Reason::EagerEnd,
        Reason::MaxEvents,
        Reason::MaxThreads,
        Reason::Memory,
        Reason::PreemptionBound,
        Reason::Solver,
        Reason::StateBound,
        Reason::Timeout,
        Reason::UndefinedBehaviour,
        Reason::Unsupported,
        Reason::Unwind,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Reason::ArgsBound => "args bound",
            Reason::EagerEnd => "eager-end",
            Reason::MaxEvents => "max-events",
            Reason::MaxThreads => "max-threads",
            Reason::Memory => "memory",
            Reason::PreemptionBound => "preemption bound",
            Reason::Solver => "solver",
            Reason::StateBound => "state bound",
            Reason::Timeout => "timeout",
            Reason::UndefinedBehaviour => "undefined-behaviour",
            Reason::Unsupported => "unsupported",
            Reason::Unwind => "unwind",
        }
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a search that found no violation is not `Safe`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Incomplete {
    pub reason: Reason,
    /// The first occurrence, in words.
    pub detail: String,
}

/// One step of a witness schedule, for reports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WitnessStep {
    pub thread: u32,
    pub stmt: StmtId,
    /// `file:line`.
    pub location: String,
    /// `statement`, `reacquire` or `thread_end`.
    pub event: String,
    /// The statement in the IR's text form.
    pub text: String,
}

/// A violation found and replayed.
#[derive(Clone, Debug, Serialize)]
pub struct Found {
    pub kind: ViolationKind,
    pub message: String,
    pub thread: u32,
    pub span: Span,
    /// `file:line`.
    pub location: String,
    pub witness: Witness,
    pub steps: Vec<WitnessStep>,
    /// For a data race: both accesses (the witness ends with them adjacent when the
    /// search found them pending together).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub race: Option<crate::concrete::race::Race>,
}

/// Search statistics.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct SearchStats {
    /// Runs explored to their end (or to a bound).
    pub runs: u64,
    /// Runs stopped early: pruned by a summary, blocked by sleep sets, or outside the
    /// slice.
    pub partial_runs: u64,
    /// Scheduling nodes visited.
    pub states: u64,
    /// Pruning decisions by summaries.
    pub pruned: u64,
    /// Runs stopped because every enabled thread was asleep.
    pub sleep_blocked: u64,
    /// Pivots skipped by the slice (§6.1): the sum of the next three.
    pub slice_skips: u64,
    /// Type A: nodes cut because no live thread can reach a target.
    pub type_a_cuts: u64,
    /// Type B branch pivots: symbolic branches outside the slice explored on one side.
    pub type_b_branches: u64,
    /// Type B interleaving pivots: races between two steps outside the slice left
    /// without a backtrack point.
    pub type_b_races: u64,
    /// Of `runs`, those that ended with a thread parked by the spin-loop or the await
    /// reduction (`Spinning`, `Awaiting`), or at a failed `assume` or `abort()`:
    /// executions in which a wait never ended or an assumption stopped the program,
    /// which Nidhugg counts as "assume-blocked" and GenMC as "blocked", apart from
    /// complete ones.
    pub blocked_runs: u64,
    /// Runs cut because they returned to a state of their own path (a cycle).
    pub cycles: u64,
    /// Threads parked instead of a cut: the path returned to a state of its own after
    /// read-only steps of that one thread (a spin loop found at run time, see
    /// [`search`]'s `lone_spinner`).
    pub spin_parks: u64,
    /// Failed atomic sections that blocked their thread instead of ending the run (the
    /// await reduction, `Config::await_assumes`).
    pub awaits: u64,
    /// Pruning decisions by summaries carried from a previous version (`carry`).
    pub carried_pruned: u64,
    /// Nodes where a carried summary could be used: no harmful change can run after
    /// them (`carry::Changes::clean`).
    pub carried_clean: u64,
    /// Clean nodes whose stable key has a carried summary.
    pub carried_matched: u64,
    /// The non-preemptive probe before the search (`probe`): its runs, partial runs,
    /// scheduling nodes and time (included in `time_ms`). `runs`, `partial_runs` and
    /// `states` count the search's alone; the solver figures and `time_ms` both.
    pub probe_runs: u64,
    pub probe_partial_runs: u64,
    /// Of `probe_runs`, the blocked ones (as `blocked_runs`).
    pub probe_blocked_runs: u64,
    pub probe_states: u64,
    pub probe_time_ms: f64,
    /// Schedules the probe tried besides the non-preemptive one (`probe`: the newest
    /// thread first, then priority schedules); their runs, partial runs, states and time
    /// are in the `probe_*` figures.
    pub probe_schedules: u64,
    /// Thread-bounded searches the probe ran (`probe`: DPOR with at most 3, 4, ...
    /// threads in a run, for a program whose runs create more); their work is in the
    /// `probe_*` figures.
    pub probe_thread_bounds: u64,
    /// Short searches the probe ran before its further phases and found unfinished (see
    /// `probe`: one, of at most a tenth of the timeout and 1 s; its work is in the
    /// `probe_*` figures).
    pub probe_quick_searches: u64,
    /// The most threads one run created or tried to create (main included; not
    /// reported: the probe reads it to decide whether a thread bound is worth a search).
    #[serde(skip)]
    pub most_threads: u64,
    pub solver_queries: u64,
    pub solver_cache_hits: u64,
    pub solver_time_ms: f64,
    pub time_ms: f64,
}

/// What [`verify`] found.
#[derive(Clone, Debug, Serialize)]
pub struct SearchOutcome {
    pub verdict: Verdict,
    pub strategy: Strategy,
    /// Violations in the order found (one unless `all_violations`).
    pub violations: Vec<Found>,
    /// Why the verdict is not `Safe` (empty when it is).
    pub incomplete: Vec<Incomplete>,
    pub stats: SearchStats,
    /// This search's summaries in stable form, when `Config::carry` asks to export them
    /// (none when the Type B slice skipped a pivot: such summaries are relative to this
    /// version's slice).
    #[serde(skip)]
    pub carried: Vec<carry::CarriedSummary>,
    /// `Some(n)` when the export stopped past `Carry::export_limit` (`carried` is then
    /// empty): the search had `n` summaries.
    #[serde(skip)]
    pub carried_over_limit: Option<usize>,
}

impl SearchOutcome {
    /// Did the search stop at its deadline? It then exported no summary.
    pub fn stopped_at_deadline(&self) -> bool {
        self.incomplete.iter().any(|i| i.reason == Reason::Timeout)
    }
}

/// A failure of the search itself (never a verdict).
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error(
        "internal error: the witness of the {kind} at {location} does not replay on the \
         interpreter ({replayed})"
    )]
    WitnessDidNotReplay {
        kind: ViolationKind,
        location: String,
        replayed: String,
    },
    #[error("{0}")]
    Program(String),
}

/// Describes an interpreter outcome in a few words (for errors).
pub fn describe_run_outcome(o: &Result<RunOutcome, crate::concrete::RuntimeError>) -> String {
    match o {
        Ok(RunOutcome::Violation(v)) => format!("{} at {}", v.kind, v.location),
        Ok(other) => format!("{other:?}"),
        Err(e) => e.to_string(),
    }
}

/// The default bound on visible events in one run. It exists to end runs that never
/// finish (a loop that keeps writing); a program's own long runs must fit under it:
/// queue_ok_longest's one run has about 14,400 events (two loops of 800 iterations over
/// the queue), which the peers explore in 2 executions. A node on the path costs about
/// 10 KB (its state, clocks and step), so a run of 50,000 events stays near 0.5 GB.
pub const DEFAULT_MAX_EVENTS: u64 = 50_000;

/// Stacks tried for the search thread, largest first: the depth-first search recurses once
/// per node and fork. The stack is address space reserved, not memory used, but under an
/// address-space limit (`ulimit -v`, `agx bench --memory`) 2 GiB may not fit: the next
/// size is tried (down to 64 MiB, which fits in a 512 MiB limit beside Z3).
const SEARCH_STACKS: [usize; 6] = [2 << 30, 1 << 30, 512 << 20, 256 << 20, 128 << 20, 64 << 20];

/// How long after its deadline a search's Z3 work is interrupted (the search's own
/// checks, between steps and in Z3's query timeout, normally end it first).
const DEADLINE_GRACE: std::time::Duration = std::time::Duration::from_millis(200);

/// Z3's share of the memory: the search's budget, and at most half the address space
/// the process may have (the search stops near that limit itself, see
/// `engine::ProcessMemory::exhausted`, but Z3 allocates inside one call).
fn z3_memory_budget(max_memory: u64) -> u64 {
    match engine::address_space_limit() {
        Some(limit) => max_memory.min(limit / 2),
        None => max_memory,
    }
}

/// Bounds the calling thread's Z3 work by `config`: its memory budget, and an
/// interrupt at the deadline, armed until the returned guard is dropped (on this
/// thread, before its Z3 context).
pub(crate) fn guard_solver(config: &Config) -> smt::InterruptAtDeadline {
    smt::limit_z3_memory(z3_memory_budget(config.max_memory));
    smt::InterruptAtDeadline::arm(config.timeout.map(|t| t + DEADLINE_GRACE))
}

/// Searches `program` for violations under `config`.
///
/// The search runs on a thread of its own (with a large stack, since it recurses once per
/// scheduling node and fork; Z3's context is per thread, so nothing of it escapes).
pub fn verify(program: &Program, config: &Config) -> Result<SearchOutcome, VerifyError> {
    let unreduced;
    let config = if config.preemption_bound.is_some() {
        unreduced = Config {
            strategy: Strategy::Baseline,
            slice: false,
            carry: None,
            spin_loops: false,
            await_assumes: false,
            ..config.clone()
        };
        &unreduced
    } else {
        config
    };
    std::thread::scope(|scope| {
        let mut last_error = None;
        for stack in SEARCH_STACKS {
            let spawned = std::thread::Builder::new()
                .name("agx-search".into())
                .stack_size(stack)
                .spawn_scoped(scope, || {
                    let _guard = guard_solver(config);
                    probe::search_with_probe(program, config)
                });
            match spawned {
                Ok(handle) => {
                    return handle.join().unwrap_or_else(|_| {
                        Err(VerifyError::Program("the search thread panicked".into()))
                    })
                }
                Err(e) => last_error = Some(e),
            }
        }
        let e = last_error.map_or_else(String::new, |e| e.to_string());
        Err(VerifyError::Program(format!(
            "cannot start the search thread (out of memory: not even a 64 MiB stack fits): {e}"
        )))
    })
}

#[cfg(test)]
mod tests {
    use super::Reason;

    #[test]
    fn reasons_sort_and_serialize_as_their_texts() {
        let mut by_text = Reason::ALL;
        by_text.sort_by_key(|r| r.as_str());
        let mut by_variant = Reason::ALL;
        by_variant.sort();
        assert_eq!(by_variant, by_text);
        for r in Reason::ALL {
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(json, format!("\"{}\"", r.as_str()));
            assert_eq!(r.to_string(), r.as_str());
        }
    }
}
