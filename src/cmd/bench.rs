//! `agx bench PATH...`: runs SV-COMP tasks and verify fixtures, scores, reports, compares.
//!
//! Modes: the plain bench (every task with every `--strategy`); `--paper-table2 [CORPUS]`
//! (the SV-COMP tasks standing for the rows of the paper's Table 2 with baseline, dpor and
//! dpor+ag, beside the paper's numbers: [`bench::paper`]); `--hunt PATH...`
//! (`agx hunt --assertions` against `agx verify` on the expected-false tasks:
//! [`bench::hunt`]); `--compare OLD NEW`.
//!
//! Exit code: 0 when no verdict is wrong, 1 when some verdict is wrong (so CI can fail
//! on it; in `--hunt` also a hunt REFUTED on an expected-false task or a hunt/verify
//! contradiction), 2 on an error of the bench itself (no tasks, unwritable output, ...),
//! 130 when interrupted by SIGINT or SIGTERM (the finished runs are reported and saved:
//! `--out` and `--csv` are rewritten after every run).

use super::common::Seconds;
use super::exit::{self, Answer};
use analysis::ir::DataModel;
use anyhow::{bail, Context, Result};
use bench::child;
use bench::hunt;
use bench::results::{
    HuntRecord, Record, Results, Settings, MODE_HUNT, MODE_PAPER_TABLE2, MODE_TASKS, SCHEMA,
    SCHEMA_VERSION,
};
use bench::run::{self, strategy_label, Plan};
use bench::task::Task;
use bench::{compare, paper, peers, report, task};
use explorer::symbolic::Strategy;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

/// The smallest `--memory` (MiB) under which `agx verify` can start: Z3's context and a
/// 64 MiB search stack need about 200 MiB of address space.
pub const MIN_MEMORY_MIB: u64 = 256;

#[derive(clap::Args)]
#[command(after_help = "\
Each task runs as a child `agx verify SOURCE --format json --data-model M --timeout T` under \
the time and memory limits. Statuses: TRUE, FALSE, UNKNOWN, ERROR, TIMEOUT, OUT OF MEMORY, \
UNSUPPORTED (construct), NOT SUPPORTED (property; not run). SV-COMP score: +2 correct TRUE, \
+1 correct FALSE, -32 wrong TRUE, -16 wrong FALSE.\n\
Each finished run is saved to --out/--csv at once; SIGINT or SIGTERM stops the bench, which \
reports and saves the runs that finished (a second signal ends it at once).\n\
Exit code: 0 no wrong verdict, 1 some wrong verdict, 2 error, 130 interrupted.")]
pub struct Args {
    /// Directories (searched recursively) or files: SV-COMP task definitions (`.yml`) and C
    /// fixtures with `// agx-verify:` directives. With --paper-table2: the SV-COMP corpus
    /// root (default ../shared/svcomp).
    #[arg(
        value_name = "PATH",
        required_unless_present_any = ["compare", "paper_table2", "show", "compare_peers"]
    )]
    pub paths: Vec<PathBuf>,
    /// Run the SV-COMP tasks that stand for the rows of the assertion-guided paper's
    /// Table 2 with baseline, dpor and dpor+ag, and print them beside the paper's
    /// Cloud9 / +DPOR / +DPOR+AG runs and times, with the rows that meet the goal.
    #[arg(long, conflicts_with_all = ["strategies", "hunt", "compare"])]
    pub paper_table2: bool,
    /// Run `agx hunt --assertions` and `agx verify` (the one --strategy, or verify's
    /// default) on every expected-false unreach-call task under PATH, and compare verdicts,
    /// time and states.
    #[arg(long, conflicts_with = "compare")]
    pub hunt: bool,
    /// Version pairs for incremental verification (issue 11): every C file under PATH
    /// and each mutation of `bench::mutate` (changed constant, added/deleted statement,
    /// moved lock, moved/negated assertion), verified from scratch and with `--since`
    /// the original, as Conc-iSE's Table 3 (runs and time per pair, totals, store size and
    /// read/write times). A verdict difference exits 1.
    #[arg(long, conflicts_with_all = ["compare", "hunt", "paper_table2", "strategies", "out", "csv"])]
    pub incremental: bool,
    /// With --incremental: pair only programs whose own verification (the run that fills
    /// the store) took at least MS milliseconds of CPU time and decided a verdict, so the
    /// table measures searches rather than process start-up (Conc-iSE's Table 3 uses
    /// programs whose checks take seconds). 0 keeps every program.
    #[arg(long, value_name = "MS", default_value_t = 0, requires = "incremental")]
    pub min_search_ms: u64,
    /// Soundness and yield of program contexts (issue 13): every unreach-call task under
    /// PATH verified with `--all` from `main` and from the context of its thread
    /// functions (`agx verify --thread-entries`): violations per side, locations a created
    /// thread violates from main that the finished context search missed (exit 1),
    /// locations found only from the context, time.
    #[arg(long, conflicts_with_all = ["compare", "hunt", "paper_table2", "strategies", "out", "csv", "incremental"])]
    pub from_entries: bool,
    /// The hunt's stages against verify (issue 12, `bench::pipeline`): on every
    /// expected-false unreach-call task under PATH, and every C file named as a PATH
    /// without `// agx-verify:` directives (taken as having a bug), whether 1, 10 and 100
    /// PCT runs find the bug, whether the prediction from those runs does, the whole
    /// pipeline (`agx hunt --stages pct,predict,search`) and `agx verify`, with times.
    #[arg(long, conflicts_with_all = ["compare", "hunt", "paper_table2", "incremental", "strategies", "out", "csv", "from_entries"])]
    pub pipeline: bool,
    /// Trial workers of each hunt (`agx hunt --jobs`); 1 compares one core with one core.
    #[arg(long, default_value_t = 1, value_name = "N", requires = "hunt")]
    pub hunt_jobs: usize,
    /// Tasks run in parallel.
    #[arg(long, short = 'j', default_value_t = 1, value_name = "N")]
    pub jobs: usize,
    /// Time limit per task in seconds: more than 0, at most 1000000, fractions allowed.
    #[arg(long, default_value = "60", value_name = "SECS")]
    pub timeout: Seconds,
    /// Memory (address-space) limit per task in MiB: 0 for none, else at least 256.
    #[arg(long, default_value_t = 4096, value_name = "MIB")]
    pub memory: u64,
    /// Strategy to run (repeat, or separate with commas, to run several side by side);
    /// verify's default when absent.
    #[arg(
        long = "strategy",
        value_name = "baseline|dpor|dpor+ag",
        value_delimiter = ','
    )]
    pub strategies: Vec<Strategy>,
    /// Write one JSON record per task (schema `agx-bench-results`, version 2).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Write one CSV row per task.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Only the wrong verdicts and the summary tables, not one row per task.
    #[arg(long)]
    pub summary: bool,
    /// Compare two results files instead of running: verdicts gained and lost, ratios of
    /// runs and time per task, medians.
    #[arg(long, num_args = 2, value_names = ["OLD", "NEW"], conflicts_with_all = ["paths", "out", "csv"])]
    pub compare: Option<Vec<PathBuf>>,
    /// Print a saved results file's unreach-call tasks beside the peers' results (Nidhugg,
    /// GenMC; `--peers DIR`) instead of running: per task the verdicts, runs/executions,
    /// times and ratios, and issue 15's goals (tasks a peer decides that agx misses or is
    /// more than 2x + 0.2 s slower on; runs above a peer's executions).
    #[arg(long, value_name = "RESULTS", conflicts_with_all = ["paths", "out", "csv", "compare", "show"])]
    pub compare_peers: Option<PathBuf>,
    /// The directory of the peers' result files (`*.tsv`: folder, stem, expected, tool,
    /// verdict, class, seconds, executions, note) for --compare-peers.
    #[arg(
        long,
        value_name = "DIR",
        default_value = "../shared/peers",
        requires = "compare_peers"
    )]
    pub peers: PathBuf,
    /// Print the report of a saved results file (any mode) instead of running.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["paths", "out", "csv", "compare"])]
    pub show: Option<PathBuf>,
    /// The program run as `PROGRAM verify ...` (default: this agx). For tests of the
    /// harness.
    #[arg(long, hide = true, value_name = "PROGRAM")]
    pub agx_command: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if let Some(files) = &args.compare {
        return run_compare(&files[0], &files[1]);
    }
    if let Some(file) = &args.compare_peers {
        return run_compare_peers(file, &args.peers);
    }
    if let Some(file) = &args.show {
        let results = Results::load(file)?;
        print_stdout(&render(&results, &[], !args.summary))?;
        return Ok(exit_code(is_wrong(&results)));
    }
    if args.jobs == 0 {
        bail!("--jobs must be at least 1");
    }
    if args.memory != 0 && args.memory < MIN_MEMORY_MIB && args.agx_command.is_none() {
        bail!("--memory {} MiB is below the minimum of {MIN_MEMORY_MIB} MiB (agx verify needs that much address space for Z3 and its search thread); 0 means no limit", args.memory);
    }
    child::install_interrupt_handler().context("catching SIGINT and SIGTERM")?;
    if args.incremental {
        return super::bench_incremental::run(
            &args.paths,
            args.timeout.duration(),
            args.memory,
            args.min_search_ms,
        );
    }
    if args.from_entries {
        return super::bench_entries::run(&args.paths, args.timeout.duration(), args.memory);
    }
    if args.paper_table2 {
        return run_paper_table2(&args);
    }
    let discovery = task::discover(&args.paths);
    for problem in &discovery.problems {
        eprintln!("warning: {problem}");
    }
    if args.hunt {
        return run_hunt(&args, &discovery.tasks);
    }
    if args.pipeline {
        return run_pipeline(&args, &discovery.tasks);
    }
    if discovery.tasks.is_empty() {
        bail!(
            "no tasks (.yml definitions or fixtures with `// agx-verify:`) under {}",
            shown(&args.paths)
        );
    }
    let plan = plan(&args)?;
    let checkpoint = Checkpoint::new(&args, &plan, MODE_TASKS);
    let records = run::run_all(&discovery.tasks, &plan, &|r| checkpoint.record(r));
    let results = results(&args, &plan, MODE_TASKS, records);
    finish(
        &args,
        &results,
        &discovery.problems,
        runs(&discovery.tasks, &plan),
    )
}

/// How many runs a plan makes of the tasks.
fn runs(tasks: &[Task], plan: &Plan) -> usize {
    tasks.len() * plan.strategies.len()
}

/// Writes the outputs and prints the report; after an interruption (SIGINT, SIGTERM) says
/// that the results are partial and exits with 130.
fn finish(args: &Args, results: &Results, problems: &[String], planned: usize) -> Result<ExitCode> {
    write_outputs(args, results)?;
    print_stdout(&render(results, problems, !args.summary))?;
    if child::interrupted() {
        let done = results.records.len() + results.hunt.len();
        eprintln!(
            "agx bench: interrupted: {done} of {planned} runs finished; the report and the \
             results files hold only those"
        );
        return Ok(ExitCode::from(exit::INTERRUPTED));
    }
    Ok(exit_code(is_wrong(results)))
}

/// The results so far, saved to `--out` and `--csv` after every finished run, so that an
/// interrupted (or killed) bench keeps them; the final write puts them in task order.
struct Checkpoint<'a> {
    args: &'a Args,
    plan: &'a Plan,
    mode: &'static str,
    done: Mutex<(Vec<Record>, Vec<HuntRecord>)>,
}

impl<'a> Checkpoint<'a> {
    fn new(args: &'a Args, plan: &'a Plan, mode: &'static str) -> Self {
        Checkpoint {
            args,
            plan,
            mode,
            done: Mutex::new((Vec::new(), Vec::new())),
        }
    }

    fn record(&self, record: &Record) {
        self.save(|done| done.0.push(record.clone()));
    }

    fn hunt(&self, record: &HuntRecord) {
        self.save(|done| done.1.push(record.clone()));
    }

    fn save(&self, add: impl FnOnce(&mut (Vec<Record>, Vec<HuntRecord>))) {
        if self.args.out.is_none() && self.args.csv.is_none() {
            return;
        }
        let Ok(mut done) = self.done.lock() else {
            return;
        };
        add(&mut done);
        let mut results = results(self.args, self.plan, self.mode, done.0.clone());
        results.hunt = done.1.clone();
        if let Err(e) = write_outputs(self.args, &results) {
            eprintln!("warning: saving the results so far: {e:#}");
        }
    }
}

/// `--paper-table2`: the mapped tasks with the three strategies, then the side-by-side table.
fn run_paper_table2(args: &Args) -> Result<ExitCode> {
    let corpus = match args.paths.as_slice() {
        [] => PathBuf::from("../shared/svcomp"),
        [corpus] => corpus.clone(),
        _ => bail!("--paper-table2 takes one corpus directory"),
    };
    if !corpus.is_dir() {
        bail!(
            "SV-COMP corpus not found at {} (give its directory)",
            corpus.display()
        );
    }
    let discovery = task::discover(&paper::definitions(&corpus));
    for problem in &discovery.problems {
        eprintln!("warning: {problem}");
    }
    let tasks: Vec<Task> = discovery
        .tasks
        .into_iter()
        .filter(|t| t.property.is_checked())
        .collect();
    if tasks.is_empty() {
        bail!("none of the Table 2 tasks found under {}", corpus.display());
    }
    let mut plan = plan(args)?;
    plan.strategies = paper::STRATEGIES
        .iter()
        .map(|s| Some(s.to_string()))
        .collect();
    let checkpoint = Checkpoint::new(args, &plan, MODE_PAPER_TABLE2);
    let records = run::run_all(&tasks, &plan, &|r| checkpoint.record(r));
    let mut results = results(args, &plan, MODE_PAPER_TABLE2, records);
    results.paper_table2 = paper::row_results(&results.records);
    finish(args, &results, &discovery.problems, runs(&tasks, &plan))
}

/// The report of a run of any mode.
fn render(results: &Results, problems: &[String], show_tasks: bool) -> String {
    match results.settings.mode.as_str() {
        MODE_HUNT => hunt::render(&results.records, &results.hunt),
        MODE_PAPER_TABLE2 => {
            let mut text = report::render(results, problems, false);
            text.push('\n');
            text.push_str(&paper::render(&results.paper_table2, &results.records));
            text
        }
        _ => report::render(results, problems, show_tasks),
    }
}

/// Whether a run of any mode has a wrong result.
fn is_wrong(results: &Results) -> bool {
    results.records.iter().any(|r| r.outcome.is_wrong())
        || hunt::any_wrong(&results.records, &results.hunt)
}

/// `--pipeline`: the hunt's stages and verify on every program with a bug.
fn run_pipeline(args: &Args, tasks: &[Task]) -> Result<ExitCode> {
    let mut buggy: Vec<Task> = tasks
        .iter()
        .filter(|t| hunt::is_hunt_task(t))
        .cloned()
        .collect();
    for path in &args.paths {
        let plain_c = path.extension().is_some_and(|e| e == "c")
            && !tasks
                .iter()
                .any(|t| t.source.as_ref().is_ok_and(|s| s == path));
        if plain_c {
            buggy.push(Task {
                id: path.display().to_string(),
                folder: path
                    .parent()
                    .map_or_else(String::new, |p| p.display().to_string()),
                definition: path.clone(),
                source: Ok(path.clone()),
                property: task::Property::UnreachCall,
                expected: Some(false),
                data_model: DataModel::Ilp32,
                extra_args: Vec::new(),
            });
        }
    }
    if buggy.is_empty() {
        bail!(
            "no expected-false unreach-call tasks or plain C files under {}",
            shown(&args.paths)
        );
    }
    let plan = plan(args)?;
    let rows = run::parallel(
        &buggy,
        plan.jobs,
        |t| t.id.clone(),
        |t, _| bench::pipeline::run_one(t, &plan),
    );
    let rows: Vec<bench::pipeline::Row> = rows.into_iter().flatten().collect();
    print_stdout(&bench::pipeline::render(&rows))?;
    Ok(exit_code(false))
}

/// What one job of `--hunt` produced.
enum HuntJob {
    Verify(Box<Record>),
    Hunt(Box<HuntRecord>),
}

/// `--hunt`: verify and hunt on every expected-false task, then the comparison.
fn run_hunt(args: &Args, tasks: &[Task]) -> Result<ExitCode> {
    if args.hunt_jobs == 0 {
        bail!("--hunt-jobs must be at least 1");
    }
    let tasks: Vec<&Task> = tasks.iter().filter(|t| hunt::is_hunt_task(t)).collect();
    if tasks.is_empty() {
        bail!(
            "no expected-false unreach-call tasks under {}",
            shown(&args.paths)
        );
    }
    let plan = plan(args)?;
    if plan.strategies.len() > 1 {
        bail!("--hunt compares hunt with one verify strategy; give at most one --strategy");
    }
    let strategy = plan.strategies[0].clone();
    let jobs: Vec<(&Task, bool)> = tasks
        .iter()
        .flat_map(|t| [(*t, false), (*t, true)])
        .collect();
    let checkpoint = Checkpoint::new(args, &plan, MODE_HUNT);
    let done = run::parallel(
        &jobs,
        plan.jobs,
        |(task, is_hunt)| format!("{} ({})", task.id, if *is_hunt { "hunt" } else { "verify" }),
        |(task, is_hunt), _| {
            if *is_hunt {
                let record = hunt::run_one(task, &plan, args.hunt_jobs)?;
                checkpoint.hunt(&record);
                Some(HuntJob::Hunt(Box::new(record)))
            } else {
                let record = run::run_one(task, &strategy, &plan)?;
                checkpoint.record(&record);
                Some(HuntJob::Verify(Box::new(record)))
            }
        },
    );
    let mut verify_records = Vec::new();
    let mut hunt_records = Vec::new();
    for job in done.into_iter().flatten() {
        match job {
            HuntJob::Verify(r) => verify_records.push(*r),
            HuntJob::Hunt(h) => hunt_records.push(*h),
        }
    }
    let mut results = results(args, &plan, MODE_HUNT, verify_records);
    results.hunt = hunt_records;
    finish(args, &results, &[], jobs.len())
}

fn results(args: &Args, plan: &Plan, mode: &str, records: Vec<Record>) -> Results {
    let created_unix_s = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    Results {
        schema: SCHEMA.to_string(),
        schema_version: SCHEMA_VERSION,
        agx_version: env!("CARGO_PKG_VERSION").to_string(),
        created_unix_s,
        settings: Settings {
            timeout_s: args.timeout.get(),
            memory_mb: (args.memory > 0).then_some(args.memory),
            jobs: args.jobs,
            strategies: plan.strategies.iter().map(strategy_label).collect(),
            mode: mode.to_string(),
        },
        records,
        paper_table2: Vec::new(),
        hunt: Vec::new(),
    }
}

fn write_outputs(args: &Args, results: &Results) -> Result<()> {
    if let Some(path) = &args.out {
        write_file(path, &results.to_json()?)?;
    }
    if let Some(path) = &args.csv {
        write_file(path, &results.to_csv())?;
    }
    Ok(())
}

fn exit_code(wrong: bool) -> ExitCode {
    Answer::found(wrong).into()
}

fn shown(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn plan(args: &Args) -> Result<Plan> {
    let program: OsString = match &args.agx_command {
        Some(program) => program.clone().into_os_string(),
        None => std::env::current_exe()
            .context("locating the agx executable")?
            .into_os_string(),
    };
    let mut strategies: Vec<Option<String>> = Vec::new();
    for s in &args.strategies {
        let name = Some(s.name().to_string());
        if !strategies.contains(&name) {
            strategies.push(name);
        }
    }
    if strategies.is_empty() {
        strategies.push(None);
    }
    Ok(Plan {
        program,
        timeout_secs: args.timeout.get(),
        memory_bytes: (args.memory > 0).then(|| args.memory.saturating_mul(1 << 20)),
        jobs: args.jobs,
        strategies,
    })
}

fn run_compare(old: &Path, new: &Path) -> Result<ExitCode> {
    let old_results = Results::load(old)?;
    let new_results = Results::load(new)?;
    let comparison = compare::compare(&old_results, &new_results);
    print_stdout(&format!(
        "COMPARE {} -> {}\n\n{}",
        old.display(),
        new.display(),
        compare::render(&comparison)
    ))?;
    let wrong = new_results.records.iter().any(|r| r.outcome.is_wrong());
    Ok(exit_code(wrong))
}

fn run_compare_peers(results_file: &Path, peers_dir: &Path) -> Result<ExitCode> {
    let results = Results::load(results_file)?;
    let peer_rows = peers::load_dir(peers_dir)?;
    let has_inputs = |r: &Record| {
        let source = r.source.as_ref()?;
        let data_model = match r.data_model.as_str() {
            "lp64" => DataModel::Lp64,
            _ => DataModel::Ilp32,
        };
        peers::program_has_inputs(Path::new(source), data_model)
    };
    let comparison = peers::compare(&results.records, &peer_rows, &has_inputs);
    if comparison.rows.is_empty() {
        bail!(
            "no unreach-call task of {} has a row in the peers' results in {}",
            results_file.display(),
            peers_dir.display()
        );
    }
    print_stdout(&format!(
        "COMPARE PEERS {} (agx) with {}\n\n{}",
        results_file.display(),
        peers_dir.display(),
        peers::render(&comparison)
    ))?;
    Ok(ExitCode::SUCCESS)
}

/// Writes `text` to `path` through a temporary file beside it and a rename, so that a
/// bench killed while writing leaves the previous complete file. Only a regular file (or
/// a new one) is replaced that way: renaming over `/dev/null`, a FIFO or a terminal
/// would replace the device itself (as root, for every later user of the machine), so
/// those are written in place.
fn write_file(path: &Path, text: &str) -> Result<()> {
    let regular_or_new = match std::fs::metadata(path) {
        Ok(meta) => meta.is_file(),
        Err(_) => true,
    };
    if !regular_or_new {
        return std::fs::write(path, text).with_context(|| format!("writing {}", path.display()));
    }
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    std::fs::write(&partial, text).with_context(|| format!("writing {}", partial.display()))?;
    std::fs::rename(&partial, path).with_context(|| format!("writing {}", path.display()))
}

/// Prints to stdout; a closed pipe (`agx bench ... | head`) is not an error.
fn print_stdout(text: &str) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

#[cfg(test)]
mod write_file_tests {
    use super::write_file;

    #[test]
    fn a_device_is_written_in_place_not_replaced() {
        write_file(std::path::Path::new("/dev/null"), "{}").unwrap();
        let meta = std::fs::metadata("/dev/null").unwrap();
        assert!(!meta.is_file(), "/dev/null was replaced by a regular file");
    }

    #[test]
    fn a_regular_file_is_replaced_whole() {
        let dir = std::env::temp_dir().join(format!("agx-write-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.json");
        write_file(&path, "first").unwrap();
        write_file(&path, "second").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "second");
        assert!(!dir.join("out.json.partial").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
