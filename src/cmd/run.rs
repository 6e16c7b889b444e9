//! `agx run FILE`: concrete execution under a schedule and inputs (the reference
//! interpreter, `explorer::concrete`), or the replay of a witness.
//!
//! The program's own output goes to stdout, byte for byte, so it can be compared with a
//! natively compiled run; the report (outcome, trace, statistics) goes to stderr. With
//! `--format json` stdout holds one JSON object instead. Exit codes (`cmd::exit`): 0 no
//! violation (completed, aborted, infeasible), 1 violation, 2 error, 3 a bound stopped the
//! run.

use super::common::{InputArgs, TextOrJson};
use super::dot;
use super::execution_graph::{self, GraphStep};
use super::exit::Answer;
use super::explain;
use analysis::ir::{stmt_text, Program, StmtRef, TermKind};
use anyhow::{bail, Context, Result};
use explorer::concrete::{
    self, pct, pct::PctOptions, EventKind, Execution, InputFallback, InputPolicy, InputValue,
    RunConfig, RunOutcome, ScheduleFallback, SchedulePolicy, ThreadId, UninitPolicy, Witness,
};
use explorer::predict::ObservedTrace;
use std::io::Write;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub program: InputArgs,
    /// Which thread runs at each step: `round-robin`, `random` (seeded by --seed), `pct`
    /// (PCT priorities of --depth, seeded by --seed; --runs runs with seeds --seed,
    /// --seed + 1, ...), or a comma-separated list of thread ids, one per step (0 is
    /// main; then --schedule-fallback).
    #[arg(
        long,
        default_value = "round-robin",
        value_name = "round-robin|random|pct|LIST"
    )]
    pub schedule: String,
    /// PCT: the bug depth d (d - 1 priority change points).
    #[arg(long, value_name = "D", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub depth: u32,
    /// PCT: how many runs; each violating one prints its witness.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub runs: u64,
    /// PCT: the expected run length in steps, over which the change points are drawn
    /// (default: the steps of a round-robin run).
    #[arg(long, value_name = "STEPS", value_parser = clap::value_parser!(u64).range(1..))]
    pub horizon: Option<u64>,
    /// The policy after a listed schedule runs out.
    #[arg(long, default_value = "round-robin", value_name = "round-robin|random")]
    pub schedule_fallback: String,
    /// Seed of the random schedule and of random inputs.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Input values, consumed in order by __VERIFIER_nondet_* and external calls (decimal or
    /// 0x hex, truncated to each requested type).
    #[arg(long = "input", value_name = "V1,V2,...", value_delimiter = ',', allow_hyphen_values = true, value_parser = parse_input)]
    pub inputs: Vec<i128>,
    /// Inputs after the listed ones: `zero`, or `random` (seeded by --seed).
    #[arg(long, default_value = "zero", value_name = "zero|random")]
    pub input_fallback: String,
    /// Uninitialized locals and malloc memory read as `zero` or as the next input (`nondet`).
    #[arg(long, default_value = "zero", value_name = "zero|nondet")]
    pub uninit: UninitPolicy,
    /// Reject a schedule entry that wakes a waiting thread without a signal (a spurious
    /// wake-up, which POSIX allows and explicit schedules may otherwise name).
    #[arg(long)]
    pub no_spurious_wakeups: bool,
    /// Detect data races (vector clocks): two accesses to one cell by different threads,
    /// at least one a write, unordered by happens-before (locks, create/join, atomic
    /// sections; two accesses both inside atomic sections never race) stop the run with a
    /// `data race` violation at the second. A race witness (`agx verify --check race`)
    /// turns this on by itself.
    #[arg(long)]
    pub detect_races: bool,
    /// The program's command-line arguments (after `--`): `argv[1..]`; `argc` counts
    /// them and `argv[0]` is `"main"`. A witness brings its own.
    #[arg(last = true, value_name = "ARGS", conflicts_with = "witness")]
    pub program_args: Vec<String>,
    /// Memory budget in MiB: a run whose live heap blocks would exceed it stops at a
    /// bound.
    #[arg(long, value_name = "MIB", default_value_t = 4096)]
    pub max_memory: u64,
    /// Replay a witness (JSON) instead of a schedule and inputs given by flags.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["schedule", "inputs", "uninit"])]
    pub witness: Option<PathBuf>,
    /// Run from a program context instead of `main`, as `agx verify --entry` builds it
    /// (with `--copies` and `--from`): the initial state's values and pointer choices are
    /// inputs, read in the order verify's witnesses give them.
    #[arg(
        long,
        value_name = "FUNC[,FUNC...]",
        value_delimiter = ',',
        conflicts_with = "witness"
    )]
    pub entry: Vec<String>,
    /// Run N threads of each `--entry` function.
    #[arg(long, value_name = "N", default_value_t = 1, requires = "entry")]
    pub copies: u32,
    /// Start each `--entry` function's threads at a line, as `agx verify --from`.
    #[arg(
        long,
        value_name = "FILE:LINE[,...]",
        value_delimiter = ',',
        requires = "entry"
    )]
    pub from: Vec<String>,
    /// Write the witness of this run (its inputs and schedule) to FILE.
    #[arg(long, value_name = "FILE")]
    pub save_witness: Option<PathBuf>,
    /// Write the observed trace of this run (per-thread reads, writes, synchronizations,
    /// branch outcomes and inputs, with source lines) to FILE, for `agx predict`.
    #[arg(long, value_name = "FILE")]
    pub save_trace: Option<PathBuf>,
    /// Draw the run to FILE (threads as columns, reads-from, creation and lock edges):
    /// DOT, or SVG when FILE ends in `.svg` (needs Graphviz's `dot`).
    #[arg(long, value_name = "FILE")]
    pub graph: Option<PathBuf>,
    /// Stop after N steps (visible events).
    #[arg(long, value_name = "N")]
    pub max_steps: Option<u64>,
    /// Stop after N statements.
    #[arg(long, value_name = "N", default_value_t = 50_000_000)]
    pub max_statements: u64,
    /// Print every step: thread, statement, file:line.
    #[arg(long)]
    pub trace: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    pub format: TextOrJson,
}

fn parse_input(text: &str) -> Result<i128, String> {
    let text = text.trim();
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let magnitude = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => i128::from_str_radix(hex, 16),
        None => digits.parse::<i128>(),
    }
    .map_err(|e| format!("`{text}` is not an integer ({e})"))?;
    let value = if negative { -magnitude } else { magnitude };
    if value < i128::from(i64::MIN) || value > i128::from(u64::MAX) {
        return Err(format!("`{text}` does not fit in 64 bits"));
    }
    Ok(value)
}

pub fn run(args: Args) -> Result<ExitCode> {
    let program = args.program.load()?;
    if args.schedule == "pct" && args.witness.is_none() {
        return run_pct(&args, &program);
    }
    if args.runs != 1 {
        bail!("--runs needs --schedule pct");
    }
    let config = config(&args, &program)?;
    let execution = concrete::run(&program, &config)?;
    if let Some(path) = &args.graph {
        let entries = config
            .context
            .as_ref()
            .map(|c| c.threads.clone())
            .unwrap_or_default();
        let steps: Vec<GraphStep> = execution
            .trace
            .iter()
            .map(|s| GraphStep {
                thread: s.thread.0,
                stmt: s.stmt,
                ir: step_text(&program, s.stmt, s.event),
            })
            .collect();
        let violation = match &execution.outcome {
            RunOutcome::Violation(v) => Some(format!("VIOLATION: {}", v.message)),
            _ => None,
        };
        dot::write(
            path,
            &execution_graph::graph(&program, &entries, &steps, violation.as_deref()),
        )?;
    }
    if let Some(path) = &args.save_witness {
        let name = args.program.file.display().to_string();
        let witness = Witness::from_execution(&name, &program, &config, &execution);
        let text = serde_json::to_string_pretty(&witness)?;
        std::fs::write(path, text + "\n").with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = &args.save_trace {
        let name = args.program.file.display().to_string();
        let trace = ObservedTrace::from_execution(&name, &program, &config, &execution);
        let text = serde_json::to_string_pretty(&trace)?;
        std::fs::write(path, text + "\n").with_context(|| format!("writing {}", path.display()))?;
    }
    if args.format == TextOrJson::Json {
        let mut json = serde_json::to_value(&execution)?;
        // Spans name files by index into this list.
        json["files"] = serde_json::to_value(&program.files)?;
        let text = serde_json::to_string_pretty(&json)? + "\n";
        write_ignoring_broken_pipe(&mut std::io::stdout(), text.as_bytes())?;
    } else {
        write_ignoring_broken_pipe(&mut std::io::stdout(), &execution.output)?;
        let entries = config
            .context
            .as_ref()
            .map(|c| c.threads.clone())
            .unwrap_or_default();
        let report = report(&program, &execution, args.trace, &entries);
        write_ignoring_broken_pipe(&mut std::io::stderr(), report.as_bytes())?;
    }
    Ok(answer(&execution.outcome).into())
}

/// The exit code's answer: a violation, a run stopped by a bound (unknown), or none.
fn answer(outcome: &RunOutcome) -> Answer {
    match outcome {
        RunOutcome::Violation(_) => Answer::Violation,
        RunOutcome::BoundHit { .. } => Answer::Unknown,
        RunOutcome::Completed { .. }
        | RunOutcome::AssumeViolated { .. }
        | RunOutcome::Aborted { .. } => Answer::NoViolation,
    }
}

/// `--schedule pct`: a PCT campaign of `--runs` runs. One run reports like any run; several
/// print one line per violating run (and a summary) on stdout. Every violating run's
/// witness is printed (`agx run --witness` replays it); `--save-witness` keeps the first.
fn run_pct(args: &Args, program: &Program) -> Result<ExitCode> {
    let mut base = RunConfig::default();
    base.inputs = inputs(args)?;
    base.uninit = args.uninit;
    base.max_steps = args.max_steps;
    base.max_statements = args.max_statements;
    base.max_memory = args.max_memory.saturating_mul(1 << 20);
    base.record_trace = true;
    let options = PctOptions {
        depth: args.depth,
        seed: args.seed,
        runs: args.runs,
        horizon: args.horizon,
    };
    let name = args.program.file.display().to_string();
    let mut violations = 0u64;
    let mut first_error = None;
    let mut saved = false;
    let mut out = String::new();
    let single = args.runs == 1;
    let (horizon, made) = pct::campaign(program, &base, &options, None, |pct_run| {
        let execution = match pct_run.execution {
            Ok(e) => e,
            Err(e) => {
                out.push_str(&format!(
                    "run {} (seed {}): error: {e}\n",
                    pct_run.index, pct_run.seed
                ));
                first_error.get_or_insert(e);
                return ControlFlow::Continue(());
            }
        };
        if single {
            let _ = write_ignoring_broken_pipe(&mut std::io::stdout(), &execution.output);
            out.push_str(&report(program, &execution, args.trace, &[]));
        }
        if execution.is_violation() {
            violations += 1;
            let witness = Witness::from_execution(&name, program, &pct_run.config, &execution);
            let json = serde_json::to_string(&witness).expect("a witness serializes");
            if !single {
                out.push_str(&format!(
                    "run {} (seed {}): {}",
                    pct_run.index,
                    pct_run.seed,
                    outcome_text(program, &execution.outcome).trim_start_matches("agx run: ")
                ));
            }
            out.push_str(&format!("  witness: {json}\n"));
            if let (Some(path), false) = (&args.save_witness, saved) {
                saved = true;
                if let Err(e) = std::fs::write(path, json + "\n") {
                    out.push_str(&format!("error: writing {}: {e}\n", path.display()));
                }
            }
        }
        ControlFlow::Continue(())
    });
    if single {
        write_ignoring_broken_pipe(&mut std::io::stderr(), out.as_bytes())?;
    } else {
        out.push_str(&format!(
            "pct: {violations} of {made} runs violated (depth {}, horizon {horizon} steps, seeds {}..={})\n",
            args.depth,
            args.seed,
            args.seed.wrapping_add(made.saturating_sub(1))
        ));
        write_ignoring_broken_pipe(&mut std::io::stdout(), out.as_bytes())?;
    }
    if let (Some(e), true) = (first_error, made == 1) {
        return Err(e.into());
    }
    Ok(if violations > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The run configuration from the flags, or from the witness.
fn config(args: &Args, program: &Program) -> Result<RunConfig> {
    let mut config = match &args.witness {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            let witness: Witness = serde_json::from_str(&text)
                .with_context(|| format!("{}: not a witness", path.display()))?;
            witness.check(program)?;
            witness.config()
        }
        None => {
            let mut config = RunConfig::default();
            config.schedule = schedule(args)?;
            config.inputs = inputs(args)?;
            config.uninit = args.uninit;
            config.args = args.program_args.clone();
            if !args.entry.is_empty() {
                // The driver (a copy of the program and its analyses) only for a context.
                let driver = crate::driver::Driver::new(program.clone());
                config.context =
                    super::context_args::context(&driver, &args.entry, args.copies, &args.from)?;
            }
            config
        }
    };
    config.max_steps = args.max_steps;
    config.max_statements = args.max_statements;
    if args.no_spurious_wakeups {
        config.spurious_wakeups = false;
    }
    config.detect_races |= args.detect_races;
    config.max_memory = args.max_memory.saturating_mul(1 << 20);
    config.record_trace = args.trace
        || args.save_witness.is_some()
        || args.save_trace.is_some()
        || args.graph.is_some();
    config.record_statements = args.save_trace.is_some();
    Ok(config)
}

fn schedule(args: &Args) -> Result<SchedulePolicy> {
    let fallback = match args.schedule_fallback.as_str() {
        "round-robin" => ScheduleFallback::RoundRobin,
        "random" => ScheduleFallback::Random { seed: args.seed },
        other => bail!("unknown --schedule-fallback `{other}` (round-robin|random)"),
    };
    Ok(match args.schedule.as_str() {
        "round-robin" => SchedulePolicy::RoundRobin,
        "random" => SchedulePolicy::Random { seed: args.seed },
        "pct" => bail!("--schedule pct does not combine with --witness"),
        list => {
            let threads = list
                .split(',')
                .map(|t| t.trim().parse::<u32>().map(ThreadId))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|_| {
                    anyhow::anyhow!("--schedule `{list}`: expected round-robin, random, or thread ids like 0,1,1")
                })?;
            SchedulePolicy::List {
                threads,
                then: fallback,
            }
        }
    })
}

fn inputs(args: &Args) -> Result<InputPolicy> {
    let fallback = match args.input_fallback.as_str() {
        "zero" => InputFallback::Zero,
        "random" => InputFallback::Random { seed: args.seed },
        other => bail!("unknown --input-fallback `{other}` (zero|random)"),
    };
    Ok(InputPolicy {
        values: args.inputs.iter().map(|&v| InputValue::any(v)).collect(),
        fallback,
    })
}

/// The text report: trace (if asked: each step with its thread's start function, its IR
/// statement and its source line, as verify and hunt show witnesses), outcome, statistics.
/// `entries`: the start functions of a context's threads (none: `main`).
fn report(
    program: &Program,
    execution: &Execution,
    trace: bool,
    entries: &[analysis::ir::FuncId],
) -> String {
    let mut out = String::new();
    if !execution.output.is_empty() && !execution.output.ends_with(b"\n") {
        // Keep the report on its own line when stdout and stderr share a terminal.
        out.push('\n');
    }
    if trace {
        out.push_str("trace:\n");
        let plain: Vec<explain::Step> = execution
            .trace
            .iter()
            .map(|s| explain::Step {
                thread: s.thread.0,
                stmt: s.stmt,
            })
            .collect();
        let functions = explain::thread_functions(program, entries, &plain);
        for (i, step) in execution.trace.iter().enumerate() {
            let what = step_text(program, step.stmt, step.event);
            let location = program.location(step.span);
            let thread = match functions.get(&step.thread.0) {
                Some(f) => format!("{} ({f})", step.thread),
                None => step.thread.to_string(),
            };
            out.push_str(&format!(
                "  step {i:<4} thread {thread:<12} {location:<30} {what}\n"
            ));
            if let Some(source) = explain::statement_line(program, step.stmt) {
                out.push_str(&format!("{:12}| {source}\n", ""));
            }
        }
    }
    out.push_str(&outcome_text(program, &execution.outcome));
    let stats = &execution.stats;
    out.push_str(&format!(
        "steps: {}, statements: {}, threads: {}, inputs: {}\n",
        stats.steps,
        stats.statements,
        stats.threads,
        execution.inputs.len()
    ));
    out
}

pub(crate) fn step_text(program: &Program, stmt: analysis::ir::StmtId, event: EventKind) -> String {
    let loc = program.stmt_locs[stmt.index()];
    let func = program.function(loc.func);
    match (event, program.stmt(stmt)) {
        (EventKind::Reacquire, _) => "reacquire the mutex of pthread_cond_wait".to_string(),
        (_, StmtRef::Stmt(s)) => stmt_text(program, func, &s.kind),
        (_, StmtRef::Term(t)) => match t.kind {
            TermKind::ThreadExit(_) => format!("end of thread (pthread_exit in {})", func.name),
            _ => format!("end of thread (return from {})", func.name),
        },
    }
}

fn outcome_text(program: &Program, outcome: &RunOutcome) -> String {
    match outcome {
        RunOutcome::Completed { exit_code } => {
            format!("agx run: completed, exit code {exit_code}\n")
        }
        RunOutcome::Violation(v) => {
            let mut text = format!(
                "agx run: VIOLATION ({}) in thread {} at {}: {}\n",
                v.kind, v.thread, v.location, v.message
            );
            for b in &v.blocked {
                text.push_str(&format!("  {b}\n"));
            }
            text
        }
        RunOutcome::AssumeViolated { thread, span } => format!(
            "agx run: assumption false in thread {thread} at {} (infeasible run, no violation)\n",
            program.location(*span)
        ),
        RunOutcome::Aborted { thread, span } => {
            format!(
                "agx run: aborted by thread {thread} at {}\n",
                program.location(*span)
            )
        }
        RunOutcome::BoundHit { bound } => {
            format!("agx run: stopped at the bound of {bound} (no violation so far)\n")
        }
    }
}

/// Writes `bytes`; a closed pipe (`agx run ... | head`) ends the output quietly.
fn write_ignoring_broken_pipe(w: &mut dyn Write, bytes: &[u8]) -> Result<()> {
    match w.write_all(bytes).and_then(|()| w.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}
