//! `agx verify FILE`: symbolic search for assertion failures and `reach_error` calls over
//! every input and schedule (`explorer::symbolic`).
//!
//! Output: the verdict, the witness of a violation (inputs, and the schedule as
//! thread / statement / `file:line` steps), and statistics; as text, or with
//! `--format json` one JSON object on stdout:
//!
//! ```json
//! {"verdict": "violation" | "safe" | "unknown",
//!  "reason": "<why unknown: bound or construct>" | null,
//!  "violation": {"kind", "message", "file", "line", "location", "thread"} | null,
//!  "witness": <agx-witness, replayable with `agx run FILE --witness W`> | null,
//!  "steps": [{"thread", "stmt", "location", "event"}],
//!  "violations": [<every violation found, with --all>],
//!  "incomplete": [{"reason", "detail"}],
//!  "strategy": "baseline" | "dpor" | "dpor+ag",
//!  "stats": {"runs", "partial_runs", "states", "pruned", "sleep_blocked", "slice_skips",
//!            "type_a_cuts", "type_b_branches", "type_b_races", "blocked_runs", "cycles",
//!            "spin_parks", "awaits", "probe_blocked_runs",
//!            "probe_runs", "probe_partial_runs", "probe_states", "probe_time_ms",
//!            "probe_schedules", "probe_thread_bounds",
//!            "solver_queries", "solver_cache_hits", "solver_time_ms", "time_ms"}}
//! ```
//!
//! Exit codes (`cmd::exit`): 0 `safe`, 1 `violation`, 2 error (an unsupported construct in
//! the front end says `unsupported:` on stderr), 3 `unknown`.

use super::common::{InputArgs, Seconds, TextOrJson};
use super::context_args;
use super::context_upgrade::{self, Upgrade};
use super::execution_graph::{self, GraphStep};
use super::exit::Answer;
use super::{dot, explain, witness_text};
use crate::driver::{incremental, Budget, Driver, Location, Overrun};
use analysis::ir::Program;
use anyhow::{bail, Context, Result};
use explorer::concrete::race::RaceAccess;
use explorer::concrete::{UninitPolicy, ViolationKind};
use explorer::symbolic::carry::{self, Carried, Carry};
use explorer::symbolic::{
    self, Checks, Config, Found, Incomplete, Reason, SearchOutcome, SearchStats, Strategy,
    SymbolicArgs, Verdict,
};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

mod report;

use report::report;

#[derive(clap::Args, Clone)]
pub struct Args {
    #[command(flatten)]
    pub input: InputArgs,
    /// Search strategy: every interleaving (`baseline`), partial-order reduction (`dpor`),
    /// or DPOR with assertion-guided pruning by predicate summaries (`dpor+ag`).
    #[arg(long, default_value = "dpor+ag", value_name = "baseline|dpor|dpor+ag")]
    pub strategy: Strategy,
    /// Do not skip pivots outside the static slice of the assertions (dpor+ag only).
    #[arg(long)]
    pub no_slice: bool,
    /// Cut paths where a loop runs more than K iterations or a function recurses more
    /// than K times (the verdict is then at best `unknown`). Default: no bound.
    #[arg(long, value_name = "K")]
    pub unwind: Option<u32>,
    /// Cut runs longer than N visible events.
    #[arg(long, value_name = "N", default_value_t = explorer::symbolic::DEFAULT_MAX_EVENTS)]
    pub max_events: u64,
    /// Cut runs that create more than N threads (main included).
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub max_threads: usize,
    /// Stop the search after SECS seconds (the verdict is then at best `unknown`): more
    /// than 0, at most 1000000, fractions allowed. Default: no time limit.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<Seconds>,
    /// Check only the assertion or reach_error at FILE:LINE (repeatable).
    /// A line without a statement, or (without `--check`) without an assertion or
    /// reach_error call, is an error.
    #[arg(long, value_name = "FILE:LINE")]
    pub target: Vec<Location>,
    /// Also report `deadlock`s, `memory` errors (null/invalid dereference, bounds,
    /// use after free, double free, division by zero, lock and join misuse) and data
    /// `race`s (two accesses to one cell by different threads, at least one a write,
    /// unordered by happens-before, at least one outside an atomic section). Without
    /// `memory`, such an error on a path makes `safe` impossible. `race` searches every
    /// interleaving DPOR keeps: dpor+ag then runs as dpor, without slice cuts, the
    /// spin-loop reduction or the await reduction.
    #[arg(long, value_enum, value_delimiter = ',')]
    pub check: Vec<Check>,
    /// Do not report failed assertions and `reach_error` calls (with `--check race`:
    /// SV-COMP's no-data-race property); a run reaching one ends there and the verdict
    /// is then at best `unknown`.
    #[arg(long)]
    pub no_assertions: bool,
    /// Uninitialized locals and malloc memory: an input (`nondet`, SV-COMP's reading) or
    /// zero.
    #[arg(long, default_value = "nondet", value_name = "nondet|zero")]
    pub uninit: UninitPolicy,
    /// Keep searching after the first violation to report every violated location.
    #[arg(long)]
    pub all: bool,
    /// Slots of the summary table (dpor+ag).
    #[arg(long, value_name = "N", default_value_t = 1 << 16)]
    pub summary_slots: usize,
    /// Term nodes after which a summary stops growing (dpor+ag).
    #[arg(long, value_name = "N", default_value_t = 4000)]
    pub summary_bound: u32,
    /// How a node pruned by a summary repairs DPOR's backtrack sets: `add` prunes and
    /// adds the backtrack points (the paper's repair: more pruning, sometimes more runs
    /// than dpor), `strict` prunes only where nothing is missing (never more runs than
    /// dpor).
    #[arg(long, default_value = "add", value_name = "add|strict")]
    pub repair: explorer::symbolic::Repair,
    /// Record summaries only at nodes with an empty sleep set, as agx did before
    /// summaries relative to sleep sets (dpor+ag; for comparison).
    #[arg(long)]
    pub sleep_free_summaries: bool,
    /// The DPOR algorithm of dpor and dpor+ag: `classic` (Flanagan–Godefroid backtrack
    /// sets), `source` (source sets) or `optimal` (wakeup trees, Abdulla et al. JACM
    /// 2017 §6).
    #[arg(long, default_value = "source", value_name = "classic|source|optimal")]
    pub dpor: explorer::symbolic::DporMode,
    /// Draw the first violation's execution to FILE (threads as columns, reads-from,
    /// creation and lock edges): DOT, or SVG when FILE ends in `.svg` (needs Graphviz's
    /// `dot`). Nothing is written without a violation.
    #[arg(long, value_name = "FILE")]
    pub graph: Option<PathBuf>,
    /// Write the witness (agx-witness JSON) of the first violation to FILE.
    #[arg(long, value_name = "FILE")]
    pub witness_out: Option<PathBuf>,
    /// Print the search's events (ends of runs, prunes) with their paths to stderr.
    #[arg(long)]
    pub trace_search: bool,
    /// Do not explore spurious wake-ups of `pthread_cond_wait` (POSIX allows them; a
    /// `safe` verdict then holds only for runs without them, and says so).
    #[arg(long)]
    pub no_spurious_wakeups: bool,
    /// Explore every failing iteration of spin loops (loops of loads only whose registers
    /// are dead at the header, or read-only steps of one thread that bring the run back
    /// to a state it was in) instead of stopping a thread after one (the spin-loop
    /// reduction, same verdicts; for measuring and cross-checking it).
    #[arg(long)]
    pub no_spin_reduction: bool,
    /// Explore every failing attempt of an atomic section whose `assume` fails before
    /// it wrote anything (`__VERIFIER_atomic_acquire` on a held lock) as a run that ends,
    /// instead of blocking the thread until another thread's write lets it pass (the
    /// await reduction: the same reduction as for spin loops, applied to atomic sections;
    /// same verdicts; for measuring and cross-checking it).
    #[arg(long)]
    pub no_await_reduction: bool,
    /// Do not explore the non-preemptive schedule (each thread runs while it can) before
    /// the dpor / dpor+ag search (the probe: at most 10,000 states and a tenth of the
    /// time budget, counted in the stats as `probe_*`).
    #[arg(long)]
    pub no_probe: bool,
    /// After the non-preemptive probe, when it found nothing, do not probe other
    /// schedules (the newest thread first, then up to 64 priority schedules with random
    /// priorities and up to 2 preemptions, PCT: at most 20,000 states and another tenth
    /// of the time budget, counted in the stats as `probe_*`).
    #[arg(long)]
    pub no_probe_schedules: bool,
    /// After those schedules, when a probe run created more than 3 threads, do not run
    /// the search with runs cut at 3, 4, ... 8 threads (the probe's thread-bounded
    /// searches: at most 50,000 states each and another tenth of the time budget,
    /// counted in the stats as `probe_*`; only a violation is taken from them).
    #[arg(long)]
    pub no_probe_thread_bounds: bool,
    /// In the dpor / dpor+ag search, explore `main`'s return (which ends the program)
    /// at every position, as any other step, instead of only when no other thread can
    /// step (the exit deferral: same verdicts, fewer runs; for measuring and
    /// cross-checking it).
    #[arg(long)]
    pub no_exit_deferral: bool,
    /// Memory budget in MiB: live heap blocks beyond it end a path, and a search whose
    /// resident memory exceeds it stops; the verdict is then `unknown` naming `memory`.
    #[arg(long, value_name = "MIB", default_value_t = 4096)]
    pub max_memory: u64,
    /// Start from a program context instead of `main`: one thread per listed function,
    /// at its entry, over a symbolic initial state (globals and parameters arbitrary,
    /// pointers anywhere their points-to sets allow). A violation is then feasible from
    /// that context; `safe` holds for every initial state.
    #[arg(long, value_name = "FUNC[,FUNC...]", value_delimiter = ',')]
    pub entry: Vec<String>,
    /// Start from the context of the thread functions `main` creates (at sites in `main`
    /// or its callees; a site on a loop counts two threads), each at its entry, as
    /// `--entry` does: the context `agx bench --from-entries` compares with `main`.
    #[arg(long, conflicts_with_all = ["entry", "since"])]
    pub thread_entries: bool,
    /// After a violation of an assertion or `reach_error` from a context, hunt from
    /// `main` toward its location (`agx hunt --target`, one job) for at most SECS seconds
    /// per location, and say whether main reaches it too (the verdict then holds for the
    /// program), refutes it, or neither within the budget.
    #[arg(long, value_name = "SECS", default_value = "10")]
    pub confirm_from_main: Seconds,
    /// Do not hunt from `main` after a violation from a context.
    #[arg(long)]
    pub no_confirm_from_main: bool,
    /// Start the threads of each `--entry` function at a line instead of its entry, one
    /// item per `--entry` function in order (`entry` or `-`: at the entry): the first
    /// statement of the line, live locals from the initial state (constants that must
    /// reach the line kept), holding the mutexes locked on every path there.
    #[arg(
        long,
        value_name = "FILE:LINE[,...]",
        value_delimiter = ',',
        requires = "entry"
    )]
    pub from: Vec<String>,
    /// Run N threads of each `--entry` function.
    #[arg(long, value_name = "N", default_value_t = 1, requires = "entry")]
    pub copies: u32,
    /// Drop the context's must-reach constraints (globals that keep their initializer or
    /// a value stored by main before the threads start, parameters never null, integer
    /// locals of a `--from` thread with a constant that must reach the line) and the
    /// locks a `--from` thread holds: every global, parameter and live local arbitrary,
    /// no lock held, for measuring what the constraints remove.
    #[arg(long)]
    pub no_context_constraints: bool,
    /// Explore only schedules that switch away from a still-enabled thread (preempt it)
    /// at most K times. The search then runs every such interleaving unreduced (strategy
    /// `baseline`, no slice, no summary store: partial-order reduction and summaries are
    /// not sound under a preemption bound); when the bound cut a schedule, finding
    /// nothing is `unknown` ("no violation within K preemptions"), never `safe`.
    #[arg(long, value_name = "K")]
    pub context_bound: Option<u32>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    pub format: TextOrJson,
    /// Verify incrementally against an older version of the program: its stored
    /// summaries (the old version is verified first when the store has none) prune
    /// where no changed statement can still run (Conc-iSE). Needs dpor+ag, no --target.
    #[arg(long, value_name = "OLD.c")]
    pub since: Option<PathBuf>,
    /// The summary store every dpor+ag verify without --target writes and --since reads:
    /// a SQLite file, or redis://HOST:PORT. Default: .agx/summaries.sqlite3 in the
    /// program's project directory (the nearest ancestor with .agx or .git, else the
    /// current directory).
    #[arg(
        long,
        value_name = "FILE|redis://HOST:PORT",
        conflicts_with = "no_store"
    )]
    pub store: Option<String>,
    /// Neither read nor write the summary store.
    #[arg(long)]
    pub no_store: bool,
    /// The program's command-line arguments (after `--`): `argv[1..]`, given concretely;
    /// `argc` counts them and `argv[0]` is `"main"`.
    #[arg(last = true, value_name = "ARGS")]
    pub program_args: Vec<String>,
    /// Symbolic command-line arguments `N:LEN`: `argv[1..]` ranges over every list of at
    /// most N strings of at most LEN ASCII bytes (each byte a solver input), like KLEE's
    /// `--sym-args 0 N LEN`; a violation's witness records the argv found. Without a
    /// violation the verdict is `unknown` naming the `args bound`. Not with `-- ARGS`.
    #[arg(long, value_name = "N:LEN", value_parser = parse_symbolic_args, conflicts_with = "program_args")]
    pub symbolic_args: Option<SymbolicArgs>,
}

/// `N:LEN` of `--symbolic-args`.
fn parse_symbolic_args(text: &str) -> Result<SymbolicArgs, String> {
    let (n, len) = text
        .split_once(':')
        .ok_or_else(|| format!("expected N:LEN (e.g. 1:2), got `{text}`"))?;
    let number = |s: &str, what: &str| {
        s.trim()
            .parse::<u32>()
            .map_err(|_| format!("{what} in `{text}` is not a number"))
    };
    let bound = SymbolicArgs {
        max_count: number(n, "N")?,
        max_len: number(len, "LEN")?,
    };
    if bound.max_count > 8 || bound.max_len > 64 {
        return Err(format!(
            "`{text}` is too large: at most 8 arguments of at most 64 bytes (one search per shape of argv)"
        ));
    }
    Ok(bound)
}

/// What `--since` did, for the report.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Incremental {
    pub since: String,
    /// Statements of the new version counted as changed.
    pub changed_statements: usize,
    /// Changed statements (new, deleted or replaced) outside both versions' Type B
    /// slices: harmless, they keep no carried summary from pruning.
    pub harmless_statements: usize,
    /// Computing the old version's Type B slice (its analysis), for harmless changes.
    pub old_slice_ms: f64,
    /// Why no carried summary may prune at all, if so.
    pub blocked: Option<String>,
    /// Summaries of the old version available.
    pub carried_summaries: usize,
    /// Why the old version was verified now (no usable record), if it was.
    pub old_verified_now: Option<String>,
    /// Nodes pruned by carried summaries.
    pub carried_pruned: u64,
    pub store_read: Option<incremental::StoreIo>,
    pub store_write: Option<incremental::StoreIo>,
    /// Loading the old version (preprocessing, parsing, lowering), beside the new
    /// version's pre-pass.
    pub old_load_ms: f64,
    /// Diffing the versions (statement map, trusted fingerprints, changes).
    pub diff_ms: f64,
}

/// `--check`: what verify reports besides assertions and `reach_error`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    Deadlock,
    Memory,
    Race,
}

/// The work before the search, as a timeout's reason names it.
const PRE_PASS: &str = "the front end and the slice pre-pass";

pub fn run(mut args: Args) -> Result<ExitCode> {
    if args.no_context_constraints && args.entry.is_empty() && !args.thread_entries {
        bail!("--no-context-constraints needs --entry or --thread-entries");
    }
    // The budget covers the front end, the dpor+ag pre-pass (the rules run behind the
    // Type B slice) and the search: the first two run on a worker that is abandoned at the
    // deadline, and the search gets what is left.
    let budget = Budget::start(args.timeout.map(Seconds::duration));
    // `--since`: OLD is preprocessed and lowered beside NEW's pre-pass (its preprocessor
    // run is most of its cost on small programs, and it needs nothing of NEW).
    let old_loading = args.since.as_ref().map(|old| load_beside(&args.input, old));
    let worker_args = args.clone();
    let prepared = budget.run(
        PRE_PASS,
        move || -> Result<(Driver, Config, Vec<String>)> {
            let mut worker_args = worker_args;
            let driver = Driver::new(worker_args.input.load()?);
            if worker_args.thread_entries {
                worker_args.entry = driver.thread_entries();
                if worker_args.entry.is_empty() {
                    bail!(
                        "--thread-entries: {} creates no thread from `main`",
                        worker_args.input.file.display()
                    );
                }
            }
            let config = driver.verify_config(config(&worker_args, &driver)?);
            Ok((driver, config, worker_args.entry))
        },
    )?;
    let (driver, mut config) = match prepared {
        Ok(prepared) => {
            let (driver, config, entry) = prepared?;
            args.entry = entry;
            (driver, config)
        }
        Err(overrun) => {
            return report(
                &args,
                None,
                &overrun_outcome(args.strategy, &overrun),
                None,
                &[],
            )
        }
    };
    let program = driver.program();
    let store_at = if incremental::storable(&config) {
        incremental::store_location(&args.input.file, args.store.as_deref(), args.no_store)?
    } else {
        None
    };
    let mut since = match (&args.since, old_loading) {
        (Some(old), Some(old_loading)) => Some(since(
            &args,
            old,
            old_loading,
            program,
            &mut config,
            store_at.as_ref(),
            &budget,
        )?),
        _ => None,
    };
    if store_at.is_some() && config.carry.is_none() {
        config.carry = Some(Arc::new(Carry {
            export: true,
            export_limit: Some(incremental::MAX_RECORD_BYTES),
            import: None,
        }));
    }
    let before_search = budget.elapsed();
    config.timeout = budget.left();
    // `--trace` writes the search's events to stderr: no progress line redrawn over them.
    let line = if config.trace {
        None
    } else {
        super::progress::search_line("verify")
    };
    config.progress = line.as_ref().map(|(_, observer)| observer.clone());
    let searched = symbolic::verify(program, &config);
    if let Some((bar, _)) = line {
        bar.finish_and_clear();
    }
    let mut outcome = searched?;
    // Writing the store is part of the run: with the time budget spent, the summaries
    // are dropped rather than overrun `--timeout` (a large record takes seconds); a
    // search stopped at its deadline exported none.
    let store_at = match store_at {
        Some(_)
            if budget.left() == Some(std::time::Duration::ZERO)
                || outcome.stopped_at_deadline() =>
        {
            eprintln!("note: summaries not stored: the time budget ran out");
            None
        }
        other => other,
    };
    if let Some(at) = &store_at {
        let key = incremental::record_key(program, &config);
        let written = match outcome.carried_over_limit {
            Some(n) => Err(incremental::over_limit(n)),
            None => incremental::write(at, &key, &outcome.carried),
        };
        match written {
            Ok(io) => {
                if let Some(s) = &mut since {
                    s.store_write = Some(io);
                }
            }
            Err(e) => eprintln!("warning: summaries not stored: {e:#}"),
        }
    }
    if let Some(s) = &mut since {
        s.carried_pruned = outcome.stats.carried_pruned;
    }
    if let Some(t) = budget.limit() {
        for i in &mut outcome.incomplete {
            if i.reason == Reason::Timeout {
                let (budget, before) = (t.as_secs_f64(), before_search.as_secs_f64());
                i.detail = if before >= budget {
                    format!("the time budget of {budget:.3} s ran out as {PRE_PASS} finished ({before:.3} s)")
                } else {
                    format!("the time budget of {budget:.3} s ran out ({before:.3} s in {PRE_PASS}, the rest in the search)")
                };
            }
        }
    }
    let upgrades = upgrades(&args, &outcome);
    report(&args, Some(program), &outcome, since.as_ref(), &upgrades)
}

/// The hunts from `main` toward the locations violated from a context
/// (`context_upgrade`): none from `main`, for other kinds, or when turned off.
fn upgrades(args: &Args, outcome: &SearchOutcome) -> Vec<Upgrade> {
    if args.entry.is_empty()
        || args.no_confirm_from_main
        || !args.program_args.is_empty()
        || args.symbolic_args.is_some()
    {
        return Vec::new();
    }
    let mut locations: Vec<&str> = outcome
        .violations
        .iter()
        .filter(|f| matches!(f.kind, ViolationKind::Assertion | ViolationKind::ReachError))
        .map(|f| f.location.as_str())
        .collect();
    locations.sort_unstable();
    locations.dedup();
    let budget = args.confirm_from_main.duration();
    locations
        .into_iter()
        .map(|l| context_upgrade::from_main(&args.input, l, budget))
        .collect()
}

/// OLD's program being loaded on its own thread, and how long that took (ms).
type OldLoading = std::thread::JoinHandle<(Result<Program>, f64)>;

/// Starts loading `old` with `input`'s front-end options.
fn load_beside(input: &InputArgs, old: &std::path::Path) -> OldLoading {
    let mut input = input.clone();
    input.file = old.to_path_buf();
    std::thread::spawn(move || {
        let started = std::time::Instant::now();
        let loaded = input.load();
        (loaded, started.elapsed().as_secs_f64() * 1000.0)
    })
}

/// `--since OLD`: reads OLD's summaries (verifying OLD when the store has no usable
/// record) and sets `config` to carry them into the search.
fn since(
    args: &Args,
    old_path: &std::path::Path,
    old_loading: OldLoading,
    new: &Program,
    config: &mut Config,
    store_at: Option<&store::Location>,
    budget: &Budget,
) -> Result<Incremental> {
    if !incremental::storable(config) {
        bail!("--since needs --strategy dpor+ag, no --target, no --entry and no --context-bound");
    }
    let (loaded, old_load_ms) = old_loading
        .join()
        .map_err(|_| anyhow::anyhow!("--since {}: loading it panicked", old_path.display()))?;
    let old = Driver::new(loaded.with_context(|| format!("--since {}", old_path.display()))?);
    // The record key needs OLD's options only: OLD's analysis (the rules behind its Type B
    // slice, the costliest part of loading it) runs only if OLD must be verified now.
    let old_options = self::config(args, &old)?;
    let key = incremental::record_key(old.program(), &old_options);
    let (read, io) = match store_at {
        Some(at) => {
            let (read, io) = incremental::read(at, &key)?;
            (read, Some(io))
        }
        None => (
            incremental::Read::Unusable("--no-store: nothing stored".into()),
            None,
        ),
    };
    let (summaries, old_verified_now) = match read {
        incremental::Read::Found(s) => (s, None),
        incremental::Read::Unusable(why) => {
            let mut c = old.verify_config(old_options.clone());
            // NEW imports these in process: all of them, whether or not the store takes them.
            c.carry = Some(Arc::new(Carry::export_all()));
            c.timeout = budget.left();
            let o = symbolic::verify(old.program(), &c)?;
            // Stopped at the deadline, OLD exported nothing (and NEW has no time left).
            if let (Some(at), false) = (store_at, o.stopped_at_deadline()) {
                if let Err(e) = incremental::write(at, &key, &o.carried) {
                    eprintln!("warning: the old version's summaries not stored: {e:#}");
                }
            }
            let decoded = o
                .carried
                .into_iter()
                .map(|s| (s.key.clone(), Carried::Decoded(s)));
            (decoded.collect(), Some(why))
        }
    };
    let carried_summaries = summaries.len();
    // Changes outside both versions' Type B slices are harmless (`carry`'s widening): NEW's
    // slice is the search's, OLD's costs OLD's analysis, run only when NEW has one.
    let slicing = std::time::Instant::now();
    let old_slice = config
        .relevant
        .as_ref()
        .and_then(|_| old.verify_config(old_options).relevant);
    let old_slice_ms = slicing.elapsed().as_secs_f64() * 1000.0;
    let slices = match (&old_slice, &config.relevant) {
        (Some(old), Some(new)) => Some(carry::Slices { old, new }),
        _ => None,
    };
    let diffing = std::time::Instant::now();
    let imported = incremental::import(old.program(), new, summaries, slices);
    let diff_ms = diffing.elapsed().as_secs_f64() * 1000.0;
    let report = Incremental {
        since: old_path.display().to_string(),
        changed_statements: imported.changes.changed,
        harmless_statements: imported.changes.harmless,
        old_slice_ms,
        blocked: imported.changes.blocked.clone(),
        carried_summaries,
        old_verified_now,
        carried_pruned: 0,
        store_read: io,
        store_write: None,
        old_load_ms,
        diff_ms,
    };
    config.carry = Some(Arc::new(Carry {
        export: store_at.is_some(),
        export_limit: Some(incremental::MAX_RECORD_BYTES),
        import: Some(imported),
    }));
    Ok(report)
}

/// UNKNOWN naming the timeout, for a budget spent before the search could start.
fn overrun_outcome(strategy: Strategy, overrun: &Overrun) -> SearchOutcome {
    SearchOutcome {
        verdict: Verdict::Unknown,
        strategy,
        violations: Vec::new(),
        incomplete: vec![Incomplete {
            reason: Reason::Timeout,
            detail: overrun.to_string(),
        }],
        stats: SearchStats {
            time_ms: overrun.spent.as_secs_f64() * 1000.0,
            ..SearchStats::default()
        },
        carried: Vec::new(),
        carried_over_limit: None,
    }
}

/// The exit code's answer for a verdict.
fn answer(verdict: Verdict) -> Answer {
    match verdict {
        Verdict::Violation => Answer::Violation,
        Verdict::Safe => Answer::NoViolation,
        Verdict::Unknown => Answer::Unknown,
    }
}

/// The checks `--check` and `--no-assertions` ask for.
fn checks(args: &Args) -> Checks {
    let mut checks = Checks::default();
    for kind in &args.check {
        match kind {
            Check::Deadlock => checks.deadlock = true,
            Check::Memory => checks.memory = true,
            Check::Race => checks.race = true,
        }
    }
    checks.no_assertions = args.no_assertions;
    checks
}

fn config(args: &Args, driver: &Driver) -> Result<Config> {
    let mut c = Config::default();
    c.strategy = args.strategy;
    c.slice = !args.no_slice;
    c.unwind = args.unwind;
    c.max_events = args.max_events;
    c.max_threads = args.max_threads;
    c.timeout = args.timeout.map(Seconds::duration);
    c.uninit = args.uninit;
    c.all_violations = args.all;
    c.summary_slots = args.summary_slots;
    c.summary_size_bound = args.summary_bound;
    c.repair = args.repair;
    c.sleep_summaries = !args.sleep_free_summaries;
    c.dpor = args.dpor;
    c.program_name = args.input.file.display().to_string();
    c.trace = args.trace_search;
    c.spurious_wakeups = !args.no_spurious_wakeups;
    c.spin_loops = !args.no_spin_reduction;
    c.await_assumes = !args.no_await_reduction;
    c.probe = !args.no_probe;
    c.probe_schedules = !args.no_probe_schedules;
    c.probe_thread_bounds = !args.no_probe_thread_bounds;
    c.defer_exit = !args.no_exit_deferral;
    c.max_memory = args.max_memory.saturating_mul(1 << 20);
    c.args = args.program_args.clone();
    c.symbolic_args = args.symbolic_args;
    if let Some(k) = args.context_bound {
        c.strategy = Strategy::Baseline;
        c.slice = false;
        c.preemption_bound = Some(k);
    }
    let checks = checks(args);
    if !args.target.is_empty() {
        c.targets = Some(driver.verify_targets(&args.target, checks)?);
    }
    c.checks = checks;
    if let Some(mut context) = context_args::context(driver, &args.entry, args.copies, &args.from)?
    {
        if args.no_context_constraints {
            context.drop_constraints(driver.program());
        }
        c.context = Some(context);
    }
    Ok(c)
}

/// How the report names a program context (`--entry`): empty from `main`.
fn context_label(args: &Args) -> String {
    context_args::describe_context(&args.entry, args.copies, &args.from)
}
