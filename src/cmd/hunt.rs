//! `agx hunt FILE`: abstraction-guided symbolic execution toward targets
//! (`explorer::guided`): for each goal, CONFIRMED with a witness that replays (inputs,
//! schedule, `file:line` steps), REFUTED (statically unreachable, or an exhaustive search
//! finished without reaching it), or UNKNOWN with the reason.
//!
//! Goals:
//! - `--target FILE:LINE` (repeatable): all of them make *one* goal where a distinct
//!   thread stands at each line (the paper's goal state); one target is reached when a
//!   thread runs it (an assertion or `reach_error` line: when it fails);
//! - `--assertions`: every assertion and `reach_error()` call, one goal each; in a program
//!   without any, undefined behaviour (as `agx verify --check memory` reports it) is the
//!   goal, decided by the exhaustive search with memory checks;
//! - `--sarif FILE`: every result of a SARIF 2.1.0 log (several locations or thread
//!   flows: a race, a deadlock, or threads together);
//! - `--warnings`: agx's own warnings (`agx warnings`), in rank order.
//!
//! Output: text, `--format json` (an array, one object per goal), or `--format sarif`
//! (one result per goal with its verdict, statistics and witness as a thread flow).
//! Exit codes (`cmd::exit`): 0 every goal refuted, 1 some goal confirmed, 2 error,
//! 3 nothing confirmed and some goal unknown.

mod report;
mod since;
mod stages;
mod watch;

use super::common::{InputArgs, Seconds, TargetArgs};
use super::exit::Answer;
use super::warnings::{self, WarningKind};
use crate::driver::{Budget, Driver, Lines, Location, RulesAbstraction};
use analysis::ir::{Program, StmtId, StmtKind, StmtRef, SyncOp, TermKind};
use anyhow::{bail, Context, Result};
use explorer::concrete::UninitPolicy;
use explorer::guided::{
    self, Config, Evidence, FoundBy, Goal, GoalKind, GoalLocation, Hunt, Verdict,
};
use explorer::symbolic;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

#[derive(clap::Args, Clone)]
pub struct Args {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub targets: TargetArgs,
    /// agx's own static warnings (races, lock-order inversions, assertions) are the goals.
    #[arg(long)]
    pub warnings: bool,
    /// Every statement of a relation computed by user rules (`RULES.dl:REL`) is a goal.
    #[arg(long, value_name = "RULES.dl:REL")]
    pub targets_from: Option<String>,
    /// Trials (abstract trace sets) run in parallel. Default: the number of CPUs.
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Refinements per trial.
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub max_refinements: u32,
    /// Visible events on one path (the depth bound).
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub max_depth: u64,
    /// Scheduling states one trial may generate. Goals are hunted in rounds whose
    /// budgets grow tenfold from 2 000 states up to this bound (an undecided goal is
    /// hunted again in the next round).
    #[arg(long, value_name = "N", default_value_t = 200_000)]
    pub max_states: u64,
    /// Abstract trace sets tried per goal.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub max_trace_sets: usize,
    /// Stop at the first confirmed goal (as `agx verify` stops at its first violation);
    /// the goals not decided by then are reported UNKNOWN.
    #[arg(long)]
    pub first: bool,
    /// Seconds per goal (guided trials and the exhaustive fallback together, over all
    /// rounds): more than 0, at most 1000000, fractions allowed.
    #[arg(long, value_name = "SECS", default_value = "60")]
    pub timeout: Seconds,
    /// Seconds for the whole hunt: the front end, the analyses and every goal's rounds
    /// (goals not decided by then are UNKNOWN naming the timeout). Default: no overall
    /// limit besides `--timeout` per goal.
    #[arg(long, value_name = "SECS")]
    pub total_timeout: Option<Seconds>,
    /// No progress line on stderr (it is shown only when stderr is a terminal).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Cut paths where a loop runs more than K iterations or a function recurses more
    /// than K times.
    #[arg(long, value_name = "K")]
    pub unwind: Option<u32>,
    /// Uninitialized locals and malloc memory: an input (`nondet`) or zero.
    #[arg(long, default_value = "nondet", value_name = "nondet|zero")]
    pub uninit: UninitPolicy,
    /// Do not run the exhaustive search when the guided trials fail (no REFUTED from it).
    #[arg(long)]
    pub no_refute: bool,
    /// Do not explore spurious wake-ups of `pthread_cond_wait` (POSIX allows them).
    #[arg(long)]
    pub no_spurious_wakeups: bool,
    /// Hunt only in schedules that switch away from a still-enabled thread at most K
    /// times, in the guided trials and the exhaustive search (which then runs unreduced,
    /// as `agx verify --context-bound K`); a schedule cut by the bound makes REFUTED
    /// impossible: UNKNOWN names the bound.
    #[arg(long, value_name = "K")]
    pub context_bound: Option<u32>,
    /// The pipeline: `pct` (PCT runs on the interpreter), `predict` (the predictive
    /// analysis of every PCT run that did not fail; its traces come from the PCT runs),
    /// `search` (the guided search for the goals still open). PCT and prediction each get
    /// a quarter of `--timeout` and run once for all goals; the report names the stage
    /// that confirmed a goal. Default `search` alone: the report of the guided search is
    /// unchanged unless the cheaper stages are asked for.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "search",
        value_name = "pct,predict,search"
    )]
    pub stages: Vec<stages::Stage>,
    /// PCT runs of the `pct` stage (seeds 1..N).
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub pct_runs: u64,
    /// The bug depth PCT targets in the `pct` stage (depth - 1 priority change points).
    #[arg(long, value_name = "D", default_value_t = 3)]
    pub pct_depth: u32,
    /// Hunt from a program context instead of `main`, as `agx verify --entry`: one
    /// thread per listed function over a symbolic initial state. CONFIRMED is then
    /// feasible from this context (the witness carries it); REFUTED holds for every
    /// initial state of the context. Only the `search` stage runs.
    #[arg(
        long,
        value_name = "FUNC[,FUNC...]",
        value_delimiter = ',',
        conflicts_with = "since"
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
    /// Memory budget in MiB: live heap blocks beyond it end a path, and a search whose
    /// resident memory exceeds it stops; the verdict is then `unknown` naming `memory`.
    #[arg(long, value_name = "MIB", default_value_t = 4096)]
    pub max_memory: u64,
    /// Write each confirmed goal's witness (agx-witness JSON, replayable with
    /// `agx run FILE --witness W`) to DIR/goal-N.json.
    #[arg(long, value_name = "DIR")]
    pub witness_dir: Option<PathBuf>,
    /// The previous version of FILE: goals the change since OLD may affect (its forward
    /// impact, as `agx impact` computes it) are hunted first. No goal is dropped.
    #[arg(long, value_name = "OLD.c")]
    pub since: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// `--format` of `agx hunt`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Sarif,
}

/// A goal as the user gave it, resolved to statements (or why it cannot be).
#[derive(Clone)]
pub struct Spec {
    /// Where it came from: `--target`, `assertion`, `sarif result 2`, `warning 3`.
    pub origin: String,
    pub label: String,
    pub goal: Result<Aim, String>,
}

/// What a goal asks for.
#[derive(Clone)]
pub enum Aim {
    /// Threads at locations, hunted by the guided search.
    Guided(Goal),
    /// Undefined behaviour anywhere (`--assertions` on a program without assertions, as
    /// `agx verify --check memory` reports it): decided by the exhaustive search with
    /// memory checks, whose violations come with a replayed witness.
    UndefinedBehaviour,
}

impl Spec {
    /// The guided goal, if the goal is one.
    pub fn guided(&self) -> Option<&Goal> {
        match &self.goal {
            Ok(Aim::Guided(g)) => Some(g),
            _ => None,
        }
    }

    /// The goal's kind in words (`reach`, `race`, ..., `undefined-behaviour`).
    pub fn kind_name(&self) -> &'static str {
        match &self.goal {
            Ok(Aim::Guided(g)) => g.kind.name(),
            Ok(Aim::UndefinedBehaviour) => "undefined-behaviour",
            Err(_) => "?",
        }
    }
}

/// One goal's outcome, for the reports.
pub struct GoalOutcome {
    pub spec: Spec,
    pub hunt: Hunt,
}

/// The work before the first goal's search, as a timeout's reason names it.
const PRE_PASS: &str = "the front end and the pre-pass (goals, rule sets)";

pub fn run(args: Args) -> Result<ExitCode> {
    let started = Instant::now();
    let total = args.total_timeout.map(Seconds::duration);
    // SIGINT/SIGTERM from here on report the results so far (`watch`).
    bench::child::install_interrupt_handler().context("installing the SIGINT handler")?;
    // Every goal's budget (`--timeout`) counts from the start of the command: the front
    // end and the rule sets behind the goals and the abstraction (on a worker abandoned at
    // the deadline) are spent from each goal's budget, a goal's slice from its own.
    let pre_pass_limit = total.map_or(args.timeout.duration(), |t| t.min(args.timeout.duration()));
    let budget = Budget::start(Some(pre_pass_limit));
    let worker_args = args.clone();
    let spinner = watch::stage_spinner(!args.quiet, PRE_PASS);
    let prepared = budget.run(PRE_PASS, move || -> Result<(Arc<Driver>, Vec<Spec>)> {
        let driver = Driver::new(worker_args.input.load()?);
        let mut specs = goals(&worker_args, &driver)?;
        if specs.is_empty() {
            bail!("no goals: give --target FILE:LINE, --assertions, --sarif FILE, --warnings or --targets-from RULES.dl:REL (or the program has none)");
        }
        if let Some(old) = &worker_args.since {
            specs = rank_since(&worker_args.input, old, &driver, specs)?;
        }
        driver.analysis();
        Ok((Arc::new(driver), specs))
    })?;
    if let Some(bar) = spinner {
        bar.finish_and_clear();
    }
    let (driver, specs) = match prepared {
        Ok(prepared) => prepared?,
        Err(overrun) => {
            let file = args.input.file.display().to_string();
            print!("{}", report::pre_pass_overrun(args.format, &file, &overrun));
            return Ok(Answer::Unknown.into());
        }
    };
    let program = driver.program();
    let abs = driver.abstraction();
    let early = stages::Early {
        stages: args.stages.clone(),
        runs: args.pct_runs,
        depth: args.pct_depth,
        budget: args.timeout.duration(),
        program_name: args.input.file.display().to_string(),
        spurious_wakeups: !args.no_spurious_wakeups,
    };
    let mut decided_early = stages::run(program, &specs, &early)?;
    let search = args.stages.contains(&stages::Stage::Search);
    let mut cfg = config(&args);
    cfg.timeout = args.timeout.duration().saturating_sub(started.elapsed());
    if !args.entry.is_empty() && args.stages != [stages::Stage::Search] {
        bail!("--entry: only the `search` stage runs from a context (PCT and prediction start at main)");
    }
    cfg.context = super::context_args::context(&driver, &args.entry, args.copies, &args.from)?;
    let context = super::context_args::describe_context(&args.entry, args.copies, &args.from);
    let labels = specs.iter().map(|s| s.label.clone()).collect();
    let watch = watch::Watch::new(started, labels, !args.quiet, total);
    // A goal's slice does not change between rounds: computed once, on its first round.
    let mut slices: Vec<Option<BTreeSet<StmtId>>> = vec![None; specs.len()];
    let hunts = std::thread::scope(|scope| {
        scope.spawn(|| watch.watch(program, &specs, args.format, &context));
        let hunts = guided::hunt_in_rounds(specs.len(), &cfg, args.first, |i, cfg| {
            let round_started = Instant::now();
            if let Some(hunt) = decided_early[i].take() {
                watch.after_round(i, &hunt);
                return Ok(hunt);
            }
            if !search {
                let reason = "not found by the stages before the search (no `search` stage)";
                let hunt =
                    Hunt::without_search(Verdict::Unknown, None, reason.into(), round_started);
                watch.after_round(i, &hunt);
                return Ok(hunt);
            }
            let hunt = match watch.before_round(i, &specs[i].label) {
                Ok(None) => hunt_one(cfg, &driver, &abs, &specs[i], &mut slices[i])?,
                Ok(Some(left)) => {
                    let mut capped = cfg.clone();
                    capped.timeout = cfg.timeout.min(left);
                    hunt_one(&capped, &driver, &abs, &specs[i], &mut slices[i])?
                }
                Err(reason) => Hunt::without_search(Verdict::Unknown, None, reason, round_started),
            };
            watch.after_round(i, &hunt);
            Ok::<Hunt, anyhow::Error>(hunt)
        });
        watch.stop();
        hunts
    })?;
    if !watch.claim_report() {
        // The watcher is printing the interrupted hunt's report and ends the process.
        loop {
            std::thread::park();
        }
    }
    let outcomes: Vec<GoalOutcome> = specs
        .into_iter()
        .zip(hunts)
        .map(|(spec, hunt)| GoalOutcome { spec, hunt })
        .collect();
    if let Some(dir) = &args.witness_dir {
        write_witnesses(dir, &outcomes)?;
    }
    Ok(print_report(program, &outcomes, args.format, &context)?.into())
}

/// Prints the report in `format`; returns the answer its exit code gives.
/// From a context (`context` its label, else empty) the text ends with what the
/// verdicts mean there, and each goal of the JSON has `context`.
fn print_report(
    program: &Program,
    outcomes: &[GoalOutcome],
    format: Format,
    context: &str,
) -> Result<Answer> {
    match format {
        Format::Json => {
            let mut out = report::json(program, outcomes);
            if !context.is_empty() {
                let goals = out.as_array_mut().into_iter().flatten();
                for fields in goals.filter_map(serde_json::Value::as_object_mut) {
                    fields.insert("context".into(), context.into());
                }
            }
            println!("{}", serde_json::to_string_pretty(&out)?)
        }
        Format::Sarif => println!(
            "{}",
            serde_json::to_string_pretty(&report::sarif(program, outcomes))?
        ),
        Format::Text => {
            print!("{}", report::text(program, outcomes));
            if !context.is_empty() {
                println!(
                    "from this context: {context}: CONFIRMED is feasible from this context (the witness carries its initial state), REFUTED holds for every initial state"
                );
            }
        }
    }
    Ok(Answer::combine(
        outcomes.iter().map(|o| answer(o.hunt.verdict)),
    ))
}

/// The exit code's answer for one goal's verdict.
fn answer(verdict: Verdict) -> Answer {
    match verdict {
        Verdict::Confirmed => Answer::Violation,
        Verdict::Refuted => Answer::NoViolation,
        Verdict::Unknown => Answer::Unknown,
    }
}

fn config(args: &Args) -> Config {
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let mut c = Config::default();
    c.jobs = jobs.max(1);
    c.max_refinements = args.max_refinements;
    c.max_depth = args.max_depth;
    c.max_states = args.max_states;
    c.max_trace_sets = args.max_trace_sets;
    c.timeout = args.timeout.duration();
    c.unwind = args.unwind;
    c.uninit = args.uninit;
    c.refute = !args.no_refute;
    c.spurious_wakeups = !args.no_spurious_wakeups;
    c.max_memory = args.max_memory.saturating_mul(1 << 20);
    c.program_name = args.input.file.display().to_string();
    c.preemption_bound = args.context_bound;
    c
}

fn hunt_one(
    cfg: &Config,
    driver: &Arc<Driver>,
    abs: &RulesAbstraction<'_>,
    spec: &Spec,
    slice: &mut Option<BTreeSet<StmtId>>,
) -> Result<Hunt> {
    let started = Instant::now();
    let goal = match &spec.goal {
        Ok(Aim::Guided(g)) => g,
        Ok(Aim::UndefinedBehaviour) => return undefined_behaviour(cfg, driver.program()),
        Err(why) => {
            return Ok(Hunt::without_search(
                Verdict::Unknown,
                None,
                why.clone(),
                started,
            ))
        }
    };
    let stmts = goal.stmts();
    // Static unreachability is from main: a context's threads start elsewhere.
    let unreachable = match cfg.context {
        None => driver.unreachable(&stmts),
        Some(_) => None,
    };
    if let Some(why) = unreachable {
        return Ok(Hunt::without_search(
            Verdict::Refuted,
            Some(FoundBy::Static),
            format!("statically unreachable: {why}"),
            started,
        ));
    }
    let relevant = match slice {
        Some(s) => s.clone(),
        None => {
            // The goal's slice is spent from its budget, on a worker abandoned at the
            // deadline like the pre-pass.
            let worker_driver = Arc::clone(driver);
            let goal_budget = Budget::start(Some(cfg.timeout));
            match goal_budget.run("the goal's slice", move || worker_driver.goal_slice(&stmts))? {
                Ok(s) => slice.insert(s).clone(),
                Err(overrun) => {
                    return Ok(Hunt::without_search(
                        Verdict::Unknown,
                        None,
                        format!("timeout: {overrun}"),
                        started,
                    ))
                }
            }
        }
    };
    let before_search = started.elapsed();
    let mut cfg = cfg.clone();
    cfg.relevant = Some(relevant);
    cfg.timeout = cfg.timeout.saturating_sub(before_search);
    let mut hunt = guided::hunt(driver.program(), goal, abs, &cfg)
        .with_context(|| format!("hunting {}", spec.label))?;
    hunt.stats.time_ms += before_search.as_secs_f64() * 1000.0;
    Ok(hunt)
}

/// The undefined-behaviour goal: the exhaustive search with memory checks (misuse of
/// memory, locks and joins, division by zero), within the round's budget. A violation
/// it reports replays on the interpreter, so it confirms; a complete search refutes.
fn undefined_behaviour(cfg: &Config, program: &Program) -> Result<Hunt> {
    let started = Instant::now();
    let mut search = symbolic::Config::default();
    search.checks.memory = true;
    search.timeout = Some(cfg.timeout);
    search.max_states = cfg.exhaustive_max_states;
    search.max_events = cfg.max_depth;
    search.unwind = cfg.unwind;
    search.uninit = cfg.uninit;
    search.spurious_wakeups = cfg.spurious_wakeups;
    search.max_memory = cfg.max_memory;
    search.program_name = cfg.program_name.clone();
    search.preemption_bound = cfg.preemption_bound;
    search.context = cfg.context.clone();
    let outcome = symbolic::verify(program, &search).context("hunting undefined behaviour")?;
    let mut hunt = match (outcome.verdict, outcome.violations.first()) {
        (symbolic::Verdict::Violation, Some(found)) => {
            let mut hunt = Hunt::without_search(
                Verdict::Confirmed,
                Some(FoundBy::Exhaustive),
                String::new(),
                started,
            );
            hunt.reason = None;
            hunt.evidence = Some(evidence(found));
            hunt
        }
        (symbolic::Verdict::Safe, _) => Hunt::without_search(
            Verdict::Refuted,
            Some(FoundBy::Exhaustive),
            "no run has undefined behaviour (exhaustive search with memory checks, no bound hit)"
                .into(),
            started,
        ),
        _ => {
            let why = outcome
                .incomplete
                .first()
                .map_or_else(String::new, |i| format!("{}: {}", i.reason, i.detail));
            Hunt::without_search(Verdict::Unknown, None, why, started)
        }
    };
    // The probe before the search (`symbolic::probe`) counts too: it may be all that ran.
    let states = outcome.stats.states + outcome.stats.probe_states;
    hunt.stats.states = states;
    hunt.stats.expanded = states;
    hunt.stats.exhaustive_states = states;
    hunt.stats.solver_queries = outcome.stats.solver_queries;
    Ok(hunt)
}

/// A violation of the exhaustive search as a confirmed goal's evidence.
fn evidence(found: &symbolic::Found) -> Evidence {
    Evidence {
        witness: found.witness.clone(),
        steps: found
            .steps
            .iter()
            .map(|s| guided::Step {
                thread: s.thread,
                stmt: s.stmt,
                location: s.location.clone(),
                event: s.event.clone(),
            })
            .collect(),
        goal_threads: found
            .steps
            .last()
            .map(|s| (found.thread, s.stmt))
            .into_iter()
            .collect(),
        blocked: Vec::new(),
        message: format!(
            "{} at {} (thread {})",
            found.message, found.location, found.thread
        ),
    }
}

fn write_witnesses(dir: &std::path::Path, outcomes: &[GoalOutcome]) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    for (i, o) in outcomes.iter().enumerate() {
        if let Some(ev) = &o.hunt.evidence {
            let path = dir.join(format!("goal-{}.json", i + 1));
            let text = serde_json::to_string_pretty(&ev.witness)?;
            std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        }
    }
    Ok(())
}

// ---- goals ----

fn goals(args: &Args, driver: &Driver) -> Result<Vec<Spec>> {
    let program = driver.program();
    let mut specs = Vec::new();
    let lines = driver.lines();
    if !args.targets.targets.is_empty() {
        let spec = target_goal(program, &lines, &args.targets.targets);
        if let Err(why) = &spec.goal {
            bail!("--target {why}");
        }
        specs.push(spec);
    }
    if args.targets.assertions {
        for t in program.error_sites() {
            let label = program.location(t.span);
            let goal = Goal {
                kind: GoalKind::Reach,
                locations: vec![GoalLocation {
                    stmts: vec![t.id],
                    label: label.clone(),
                }],
            };
            specs.push(Spec {
                origin: "assertion".into(),
                label,
                goal: Ok(Aim::Guided(goal)),
            });
        }
        if program.error_sites().is_empty() {
            specs.push(Spec {
                origin: "no assertion: undefined behaviour".into(),
                label: "undefined behaviour".into(),
                goal: Ok(Aim::UndefinedBehaviour),
            });
        }
    }
    for t in args.targets.sarif_targets()? {
        specs.push(sarif_goal(program, &lines, &t));
    }
    if let Some(spec) = &args.targets_from {
        for s in super::user_rules::statements_from(spec, driver.facts())? {
            let label = program.location(program.stmt(s).span());
            specs.push(Spec {
                origin: format!("rules {spec}"),
                label: label.clone(),
                goal: Ok(Aim::Guided(Goal {
                    kind: GoalKind::Reach,
                    locations: vec![GoalLocation {
                        stmts: vec![s],
                        label,
                    }],
                })),
            });
        }
    }
    if args.warnings {
        for w in warnings::compute(driver.facts(), driver.analysis(), true) {
            let kind = match w.kind {
                WarningKind::Race => GoalKind::Race,
                WarningKind::Deadlock => GoalKind::Deadlock,
                WarningKind::Assertion => GoalKind::Reach,
            };
            let locations = w
                .stmts
                .iter()
                .zip(&w.locations)
                .map(|(&s, l)| GoalLocation {
                    stmts: vec![s],
                    label: l.to_string(),
                })
                .collect();
            specs.push(Spec {
                origin: format!("warning {} ({})", w.rank, w.kind.rule_id()),
                label: label_of(
                    &w.locations
                        .iter()
                        .map(|l| l.to_string())
                        .collect::<Vec<_>>(),
                ),
                goal: Ok(Aim::Guided(Goal { kind, locations })),
            });
        }
    }
    Ok(specs)
}

/// `--since OLD`: the goals ranked by the change's impact (see `since`).
fn rank_since(
    input: &super::common::InputArgs,
    old: &std::path::Path,
    new: &Driver,
    specs: Vec<Spec>,
) -> Result<Vec<Spec>> {
    let mut old_input = input.clone();
    old_input.file = old.to_path_buf();
    let old_driver = Driver::new(
        old_input
            .load()
            .with_context(|| format!("--since {}", old.display()))?,
    );
    let impact = crate::driver::ChangeImpact::compute(&old_driver, new);
    let total = specs.len();
    let (ranked, impacted) = since::rank(specs, &impact);
    eprintln!(
        "since {}: {impacted} of {total} goals may be affected by the change (hunted first)",
        old.display()
    );
    Ok(ranked)
}

fn label_of(parts: &[String]) -> String {
    parts.join(" & ")
}

/// The statements of a source line, by what the goal needs there.
fn stmts_on_line(
    program: &Program,
    lines: &Lines,
    loc: &Location,
    need: GoalKind,
) -> Result<Vec<StmtId>, String> {
    let on_line = lines.statements(loc).map_err(|e| e.to_string())?;
    let kept: Vec<StmtId> = match need {
        GoalKind::Reach => {
            let errors: Vec<StmtId> = on_line
                .iter()
                .copied()
                .filter(|&s| is_error(program, s))
                .collect();
            if errors.is_empty() {
                on_line
            } else {
                errors
            }
        }
        GoalKind::Race => on_line
            .into_iter()
            .filter(|&s| is_access(program, s))
            .collect(),
        GoalKind::Deadlock => on_line
            .into_iter()
            .filter(|&s| is_lock(program, s))
            .collect(),
        GoalKind::Together => on_line
            .into_iter()
            .filter(|&s| is_event(program, s))
            .collect(),
    };
    if kept.is_empty() {
        return Err(format!(
            "{loc}: no statement there where a thread can stand for a {} goal",
            need.name()
        ));
    }
    Ok(kept)
}

fn is_error(program: &Program, s: StmtId) -> bool {
    matches!(program.stmt(s), StmtRef::Term(t) if matches!(&t.kind, TermKind::Error(f) if f.is_reach_goal()))
}

fn is_access(program: &Program, s: StmtId) -> bool {
    matches!(program.stmt(s), StmtRef::Stmt(st) if matches!(st.kind, StmtKind::Load { .. } | StmtKind::Store { .. }))
}

fn is_lock(program: &Program, s: StmtId) -> bool {
    matches!(program.stmt(s), StmtRef::Stmt(st) if matches!(st.kind, StmtKind::Sync { op: SyncOp::MutexLock { .. }, .. }))
}

fn is_event(program: &Program, s: StmtId) -> bool {
    matches!(program.stmt(s), StmtRef::Stmt(st) if matches!(st.kind, StmtKind::Load { .. } | StmtKind::Store { .. } | StmtKind::Sync { .. }))
}

/// Builds a goal from locations and a kind (`None`: infer it).
fn located_goal(
    program: &Program,
    lines: &Lines,
    locations: &[Location],
    kind: Option<GoalKind>,
) -> Result<Goal, String> {
    let kind = match (kind, locations.len()) {
        (Some(k), _) => k,
        (None, 1) => GoalKind::Reach,
        (None, _) => {
            let all_locks = locations
                .iter()
                .all(|l| stmts_on_line(program, lines, l, GoalKind::Deadlock).is_ok());
            if all_locks {
                GoalKind::Deadlock
            } else {
                GoalKind::Together
            }
        }
    };
    let mut goal_locations = Vec::new();
    for l in locations {
        goal_locations.push(GoalLocation {
            stmts: stmts_on_line(program, lines, l, kind)?,
            label: l.to_string(),
        });
    }
    Ok(Goal {
        kind,
        locations: goal_locations,
    })
}

fn target_goal(program: &Program, lines: &Lines, locations: &[Location]) -> Spec {
    let label = label_of(&locations.iter().map(|l| l.to_string()).collect::<Vec<_>>());
    Spec {
        origin: "--target".into(),
        label,
        goal: located_goal(program, lines, locations, None).map(Aim::Guided),
    }
}

fn sarif_goal(program: &Program, lines: &Lines, t: &analysis::sarif::SarifTarget) -> Spec {
    use analysis::sarif::TargetKind;
    let locations: Vec<Location> = t
        .locations
        .iter()
        .map(|l| Location {
            file: l.file.clone(),
            line: l.line,
        })
        .collect();
    let kind = match (t.kind, locations.len()) {
        (TargetKind::Race, 2) => Some(GoalKind::Race),
        (TargetKind::Deadlock, n) if n >= 2 => Some(GoalKind::Deadlock),
        (TargetKind::Assertion, 1) => Some(GoalKind::Reach),
        _ => None,
    };
    let label = label_of(&locations.iter().map(|l| l.to_string()).collect::<Vec<_>>());
    Spec {
        origin: format!(
            "sarif result {}{}",
            t.index + 1,
            t.rule_id
                .as_deref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default()
        ),
        label,
        goal: located_goal(program, lines, &locations, kind).map(Aim::Guided),
    }
}
