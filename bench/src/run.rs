//! The bench driver: every (task, strategy) pair as a job, `jobs` worker threads each
//! running one `agx verify` child at a time, a progress bar on stderr (indicatif hides it
//! when stderr is not a terminal).
//!
//! Time limit: verify gets `--timeout T` and stops itself at T with UNKNOWN ("timeout");
//! the child is killed at `T + 2 s + T/10` (the grace lets verify answer and exit cleanly),
//! which gives TIMEOUT. A verdict that arrives inside the grace is kept: a wrong verdict
//! must never be hidden by a timing detail.

use super::child::{self, Finished, Limits};
use super::results::{Record, DEFAULT_STRATEGY};
use super::score::Correctness;
use super::task::Task;
use super::verify::{self, data_model_flag, Judged, Status, VerifyCall};
use indicatif::{ProgressBar, ProgressStyle};
use std::ffi::OsString;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// How to run the tasks.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The agx executable to run as `PROGRAM verify ...`.
    pub program: OsString,
    /// Verify's time limit in seconds (more than 0, finite).
    pub timeout_secs: f64,
    /// Address-space limit per child in bytes, `None` for none.
    pub memory_bytes: Option<u64>,
    pub jobs: usize,
    /// The strategies to run each task with; `None` is verify's default.
    pub strategies: Vec<Option<String>>,
}

impl Plan {
    /// The wall-clock limit at which a child is killed.
    pub fn kill_after(&self) -> Duration {
        let limit = Duration::from_secs_f64(self.timeout_secs);
        limit + Duration::from_secs(2) + limit / 10
    }

    /// Runs `command` under the plan's limits.
    pub fn run_child(&self, command: Command) -> Result<Finished, NotRun> {
        let limits = Limits {
            wall: self.kill_after(),
            memory_bytes: self.memory_bytes,
        };
        child::run(command, limits).map_err(|e| {
            if e.kind() == std::io::ErrorKind::Interrupted && child::interrupted() {
                NotRun::Interrupted
            } else {
                NotRun::Failed(format!(
                    "could not start {}: {e}",
                    self.program.to_string_lossy()
                ))
            }
        })
    }
}

/// Why a child has no end to judge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotRun {
    /// The bench was interrupted (SIGINT, SIGTERM) and killed it: no record.
    Interrupted,
    /// It could not be started.
    Failed(String),
}

/// The label a strategy has in the results.
pub fn strategy_label(strategy: &Option<String>) -> String {
    strategy
        .clone()
        .unwrap_or_else(|| DEFAULT_STRATEGY.to_string())
}

/// Runs every task with every strategy; records in task order, strategies in plan order.
/// `done` sees each record as it completes (to save it at once). After an interruption
/// ([`child::interrupted`]) only the runs that finished are returned.
pub fn run_all(tasks: &[Task], plan: &Plan, done: &(dyn Fn(&Record) + Sync)) -> Vec<Record> {
    let jobs: Vec<(&Task, &Option<String>)> = tasks
        .iter()
        .flat_map(|task| plan.strategies.iter().map(move |s| (task, s)))
        .collect();
    parallel(
        &jobs,
        plan.jobs,
        |(task, _)| task.id.clone(),
        |(task, strategy), bar| {
            let record = run_one(task, strategy, plan)?;
            done(&record);
            if record.outcome.is_wrong() {
                bar.println(format!(
                    "WRONG: {} ({}) expected {} got {}",
                    record.display_name(),
                    record.strategy,
                    super::report::expected_label(record.expected),
                    record.status.label()
                ));
            }
            Some(record)
        },
    )
    .into_iter()
    .flatten()
    .collect()
}

/// `run(item)` for every item on `workers` threads, results in item order, with a
/// progress bar naming the item being started (`label`). After an interruption
/// ([`child::interrupted`]) no further item starts: the results are those of the items run.
pub fn parallel<T: Sync, R: Send>(
    items: &[T],
    workers: usize,
    label: impl Fn(&T) -> String + Sync,
    run: impl Fn(&T, &ProgressBar) -> R + Sync,
) -> Vec<R> {
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    let next = AtomicUsize::new(0);
    let bar = progress_bar(items.len());
    std::thread::scope(|scope| {
        for _ in 0..workers.clamp(1, items.len().max(1)) {
            scope.spawn(|| loop {
                if child::interrupted() {
                    break;
                }
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(index) else {
                    break;
                };
                bar.set_message(label(item));
                let result = run(item, &bar);
                if let Ok(mut results) = results.lock() {
                    results[index] = Some(result);
                }
                bar.inc(1);
            });
        }
    });
    bar.finish_and_clear();
    results
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .into_iter()
        .flatten()
        .collect()
}

fn progress_bar(len: usize) -> ProgressBar {
    let bar = ProgressBar::new(len as u64);
    if let Ok(style) = ProgressStyle::with_template(
        "{bar:30} {pos}/{len} runs, {elapsed} elapsed, ETA {eta}  {msg}",
    ) {
        bar.set_style(style);
    }
    bar
}

/// Runs one task with one strategy (or skips it when its property is not checked);
/// `None` when the bench was interrupted during the run.
pub fn run_one(task: &Task, strategy: &Option<String>, plan: &Plan) -> Option<Record> {
    let mut record = blank_record(task, strategy);
    if !task.property.is_checked() {
        set_status(
            &mut record,
            Status::NotSupported,
            Some(format!("property {} is not supported", task.property)),
        );
        return Some(record);
    }
    let source = match &task.source {
        Ok(source) => source,
        Err(reason) => {
            set_status(&mut record, Status::Error, Some(reason.clone()));
            return Some(record);
        }
    };
    let extra_args: Vec<String> = task
        .property
        .verify_args()
        .iter()
        .map(|a| a.to_string())
        .chain(task.extra_args.iter().cloned())
        .collect();
    let call = VerifyCall {
        source,
        data_model: task.data_model,
        strategy: strategy.as_deref(),
        timeout_secs: plan.timeout_secs,
        extra_args: &extra_args,
    };
    match plan.run_child(call.command(&plan.program)) {
        Ok(finished) => {
            record.wall_time_ms = millis(finished.wall);
            record.cpu_time_ms = millis(finished.cpu);
            record.peak_memory_kib = Some(finished.peak_rss_kib);
            (record.exit_code, record.signal) = finished.exit_code_and_signal();
            fill_from_judged(&mut record, verify::judge(&finished, plan.memory_bytes));
        }
        Err(NotRun::Failed(reason)) => set_status(&mut record, Status::Error, Some(reason)),
        Err(NotRun::Interrupted) => return None,
    }
    Some(record)
}

fn blank_record(task: &Task, strategy: &Option<String>) -> Record {
    Record {
        task: task.id.clone(),
        folder: task.folder.clone(),
        definition: task.definition.display().to_string(),
        source: task.source.as_ref().ok().map(|s| s.display().to_string()),
        property: task.property.name().to_string(),
        expected: task.expected,
        data_model: data_model_flag(task.data_model).to_string(),
        strategy: strategy_label(strategy),
        strategy_used: None,
        status: Status::Error,
        outcome: Correctness::NoVerdict,
        score: 0,
        reason: None,
        runs: None,
        partial_runs: None,
        blocked_runs: None,
        states: None,
        solver_queries: None,
        solver_time_ms: None,
        verify_time_ms: None,
        wall_time_ms: 0,
        cpu_time_ms: 0,
        peak_memory_kib: None,
        exit_code: None,
        signal: None,
    }
}

fn set_status(record: &mut Record, status: Status, reason: Option<String>) {
    record.status = status;
    record.outcome = Correctness::judge(&record.task, &record.property, record.expected, status);
    record.score = record.outcome.score();
    record.reason = reason;
}

fn fill_from_judged(record: &mut Record, judged: Judged) {
    set_status(record, judged.status, judged.reason);
    if let Some(output) = judged.output {
        record.strategy_used = output.strategy;
        let stats = output.stats;
        record.runs = stats.runs;
        record.partial_runs = stats.partial_runs;
        record.blocked_runs = stats.blocked_runs;
        record.states = stats.states;
        record.solver_queries = stats.solver_queries;
        record.solver_time_ms = stats.solver_time_ms;
        record.verify_time_ms = stats.time_ms;
    }
}

pub fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
