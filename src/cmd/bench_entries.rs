//! `agx bench --from-entries PATH...`: every unreach-call task verified with `--all` from
//! `main` and from the context of its thread functions (`--thread-entries`), as child
//! processes under the time and memory limits; the table of [`bench::entries`] (bugs
//! found, misses, violations not confirmed from main, time). A miss exits 1.

use anyhow::{Context, Result};
use bench::child::{self, End, Limits};
use bench::entries::{compare, Search};
use bench::task::{self, Property, Task};
use bench::verify::data_model_flag;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

/// Fixture options that change what is checked or where the search starts: such cases
/// are other experiments, not the task's plain verification.
const OTHER_EXPERIMENTS: [&str; 5] = [
    "--entry",
    "--thread-entries",
    "--check",
    "--no-assertions",
    "--unwind",
];

pub fn run(paths: &[PathBuf], timeout: Duration, memory_mib: u64) -> Result<ExitCode> {
    let agx = std::env::current_exe().context("finding this agx")?;
    let limits = Limits {
        wall: timeout + Duration::from_secs(5),
        memory_bytes: (memory_mib > 0).then_some(memory_mib << 20),
    };
    let secs = timeout.as_secs_f64().to_string();
    let discovery = task::discover(paths);
    for problem in &discovery.problems {
        eprintln!("warning: {problem}");
    }
    let mut table = String::new();
    let _ = writeln!(
        table,
        "{:<48} {:>5} | {:>9} {:>3} {:>3} {:>7} | {:>9} {:>3} {:>7} | {:>6} {:>5} {:>4}",
        "task",
        "exp",
        "main",
        "thr",
        "own",
        "time s",
        "entries",
        "viol",
        "time s",
        "missed",
        "undec",
        "only"
    );
    let mut totals = Totals::default();
    let mut seen = std::collections::BTreeSet::new();
    let mut runs: Vec<Run> = Vec::new();
    for t in plain_tasks(&discovery.tasks) {
        let Ok(source) = &t.source else { continue };
        if seen.insert(canonical(source)) {
            runs.push(Run {
                id: t.id.clone(),
                expected: t.expected,
                source: source.clone(),
                data_model: data_model_flag(t.data_model),
                extra_args: t.extra_args.clone(),
            });
        }
    }
    for source in threaded_sources(paths) {
        if seen.insert(canonical(&source)) {
            runs.push(Run {
                id: source.display().to_string(),
                expected: None,
                source,
                data_model: "ilp32",
                extra_args: Vec::new(),
            });
        }
    }
    for r in &runs {
        if child::interrupted() {
            break;
        }
        let mut args = vec![
            "--all".to_string(),
            "--no-store".to_string(),
            "--timeout".to_string(),
            secs.clone(),
            "--data-model".to_string(),
            r.data_model.to_string(),
        ];
        args.extend(r.extra_args.iter().cloned());
        let main = verify(&agx, &r.source, &args, false, limits)?;
        let context = verify(&agx, &r.source, &args, true, limits)?;
        let c = compare(&main, &context);
        totals.add(&main, &context, &c);
        let _ = writeln!(
            table,
            "{:<48} {:>5} | {:>9} {:>3} {:>3} {:>7.2} | {:>9} {:>3} {:>7.2} | {:>6} {:>5} {:>4}",
            r.id,
            r.expected.map_or("-", |e| if e { "true" } else { "false" }),
            main.verdict,
            main.by_threads.len(),
            main.by_main.len(),
            main.seconds,
            context.verdict,
            context.locations().len(),
            context.seconds,
            c.missed.len(),
            c.undecided.len(),
            c.context_only.len()
        );
        for m in &c.missed {
            let _ = writeln!(table, "  MISSED from the thread entries: {m}");
        }
    }
    let _ = writeln!(table, "{}", totals.render());
    print!("{table}");
    Ok(ExitCode::from(u8::from(totals.missed > 0)))
}

/// One program to verify both ways.
struct Run {
    id: String,
    expected: Option<bool>,
    source: PathBuf,
    data_model: &'static str,
    extra_args: Vec<String>,
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// C files under `paths` (or named) that create threads, beside the tasks: the
/// `fixtures/` programs checked with `agx run` only (conc/, hunt/, predict/, ...).
fn threaded_sources(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut pending: Vec<PathBuf> = paths.to_vec();
    while let Some(p) = pending.pop() {
        if p.is_dir() {
            if let Ok(entries) = std::fs::read_dir(&p) {
                pending.extend(entries.flatten().map(|e| e.path()));
            }
        } else if p.extension().is_some_and(|e| e == "c")
            && std::fs::read_to_string(&p).is_ok_and(|t| t.contains("pthread_create"))
        {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// The unreach-call tasks run plainly: fixture cases of other experiments left out.
fn plain_tasks(tasks: &[Task]) -> impl Iterator<Item = &Task> {
    tasks.iter().filter(|t| {
        t.property == Property::UnreachCall
            && !t
                .extra_args
                .iter()
                .any(|a| OTHER_EXPERIMENTS.contains(&a.as_str()))
    })
}

/// One child `agx verify SOURCE ARGS [--thread-entries]`; a program argument list
/// (`-- ARGS`) of a fixture stays last.
fn verify(
    agx: &Path,
    source: &Path,
    args: &[String],
    from_entries: bool,
    limits: Limits,
) -> Result<Search> {
    let mut c = Command::new(agx);
    c.arg("verify").arg(source).args(["--format", "json"]);
    let split = args.iter().position(|a| a == "--").unwrap_or(args.len());
    c.args(&args[..split]);
    if from_entries {
        // The bench compares with main itself: no hunt from main per violation.
        c.args(["--thread-entries", "--no-confirm-from-main"]);
    }
    c.args(&args[split..]);
    let done = child::run(c, limits).context("starting agx verify")?;
    let seconds = done.wall.as_secs_f64();
    match done.end {
        End::Exited(2) if done.stderr.contains("creates no thread") => {
            Ok(Search::ended("no thread", seconds))
        }
        End::Exited(2) => Ok(Search::ended("error", seconds)),
        End::Exited(_) => match serde_json::from_str(&done.stdout) {
            Ok(report) => Ok(Search::from_json(&report, seconds)),
            Err(_) => Ok(Search::ended("error", seconds)),
        },
        _ => Ok(Search::ended("timeout", seconds)),
    }
}

#[derive(Default)]
struct Totals {
    tasks: usize,
    main_bugs: usize,
    context_bugs: usize,
    thread_violations: usize,
    missed: usize,
    undecided: usize,
    context_only: usize,
    main_seconds: f64,
    context_seconds: f64,
}

impl Totals {
    fn add(&mut self, main: &Search, context: &Search, c: &bench::entries::Comparison) {
        self.tasks += 1;
        self.main_bugs += usize::from(main.verdict == "violation");
        self.context_bugs += usize::from(context.verdict == "violation");
        self.thread_violations += main.by_threads.len();
        self.missed += c.missed.len();
        self.undecided += c.undecided.len();
        self.context_only += c.context_only.len();
        self.main_seconds += main.seconds;
        self.context_seconds += context.seconds;
    }

    fn render(&self) -> String {
        format!(
            "total: {} tasks; violations found from main in {} tasks, from the thread entries \
             in {}; locations violated by created threads from main: {}, missed from the \
             entries: {}, undecided (entries' search cut): {}; locations found only from the \
             entries (not confirmed from main): {}; time from main {:.2} s, from the entries \
             {:.2} s",
            self.tasks,
            self.main_bugs,
            self.context_bugs,
            self.thread_violations,
            self.missed,
            self.undecided,
            self.context_only,
            self.main_seconds,
            self.context_seconds
        )
    }
}
