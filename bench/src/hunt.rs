//! `agx bench --hunt`: `agx hunt --assertions` against `agx verify` on the expected-false
//! unreach-call tasks (issue 6: "hunt confirms what verify solves, and faster").
//!
//! Per task the bench runs, under the same wall-clock and memory limits,
//!
//! ```text
//! agx verify SOURCE --format json --data-model M --timeout T [--strategy S]
//! agx hunt SOURCE --assertions --first --format json --data-model M --timeout T --jobs J
//! ```
//!
//! Hunt's `--timeout` is per goal; the child as a whole is killed at the same limit as
//! verify's. `--jobs J` (the bench's `--hunt-jobs`, 1 by default) keeps the comparison
//! one core against one core: verify is single-threaded.
//!
//! Hunt prints a JSON array, one object per goal (`verdict`: `confirmed` / `refuted` /
//! `unknown`, `reason`, `stats` with `expanded`, `states`, `time_ms`); exit 1 when some
//! goal is confirmed, 0 when none is, 2 on an error. The task's hunt status
//! ([`judge`]): CONFIRMED when some goal is, REFUTED when every goal is, UNKNOWN otherwise.
//!
//! Measures compared: wall-clock time of the child (front end and analyses included, as
//! for verify); the search time each tool reports of itself (verify's `time_ms`, Σ hunt's
//! goal `time_ms`: without start-up); and states — verify's `states` (scheduling nodes visited) against hunt's
//! `expanded` summed over goals (nodes whose successors were computed, over every trial and
//! the exhaustive fallback: the counterpart of verify's visited nodes). A ratio is
//! hunt / verify, so below 1 means hunt did less.
//!
//! Wrong results (exit 1): hunt REFUTED on an expected-false task; hunt and verify
//! contradicting each other (FALSE against REFUTED, TRUE against CONFIRMED); a wrong verify
//! verdict. A task verify solves that hunt does not confirm is a *miss*: listed, not wrong
//! (it depends on the time limit).

use super::child::Finished;
use super::median;
use super::report::{ratio, ratio_text, seconds, Table};
use super::results::{HuntRecord, HuntStatus, Record};
use super::run::{millis, NotRun, Plan};
use super::task::Task;
use super::verify::{data_model_flag, ending, names_timeout, Ending, Status, KILLED_AT_THE_LIMIT};
use analysis::ir::DataModel;
use serde::Deserialize;
use std::ffi::OsStr;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// Verify runs longer than this are "slow" in the split of the ratios: below it, start-up
/// (preprocessor, front end, analyses) dominates both times.
pub const SLOW_VERIFY_MS: u64 = 100;

/// Verify runs longer than this are where the search, not start-up, is what is compared.
pub const LONG_VERIFY_MS: u64 = 1000;

/// The issue's goal: hunt at least 5x faster than verify in the median.
pub const GOAL_MEDIAN_TIME_RATIO: f64 = 0.2;

/// Whether a task is one of this mode's: unreach-call, expected false.
pub fn is_hunt_task(task: &Task) -> bool {
    task.property == crate::task::Property::UnreachCall && task.expected == Some(false)
}

/// The command line of one hunt run.
pub struct HuntCall<'a> {
    pub source: &'a Path,
    pub data_model: DataModel,
    pub timeout_secs: f64,
    pub jobs: usize,
}

impl HuntCall<'_> {
    /// `program hunt SOURCE --assertions --first --format json ...`: like `agx verify`,
    /// the hunt stops at the first violation it confirms.
    pub fn command(&self, program: &OsStr) -> Command {
        let mut command = Command::new(program);
        command
            .arg("hunt")
            .arg(self.source)
            .args([
                "--assertions",
                "--first",
                "--format",
                "json",
                "--data-model",
            ])
            .arg(data_model_flag(self.data_model))
            .arg("--timeout")
            .arg(self.timeout_secs.to_string())
            // The limit is the whole command's: hunt's --timeout is per goal.
            .arg("--total-timeout")
            .arg(self.timeout_secs.to_string())
            .arg("--jobs")
            .arg(self.jobs.to_string());
        command
    }
}

/// Hunt's reading of a finished child.
#[derive(Clone, Debug, PartialEq)]
pub struct Judged {
    pub status: HuntStatus,
    pub reason: Option<String>,
    pub goals: Option<GoalSums>,
}

/// What the goals of one hunt add up to.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GoalSums {
    pub goals: u64,
    pub confirmed: u64,
    pub expanded: u64,
    pub generated: u64,
    pub time_ms: f64,
}

/// The hunt JSON fields the bench reads.
#[derive(Deserialize)]
struct GoalOutput {
    verdict: String,
    reason: Option<String>,
    #[serde(default)]
    stats: GoalStats,
}

#[derive(Default, Deserialize)]
struct GoalStats {
    #[serde(default)]
    expanded: u64,
    #[serde(default)]
    states: u64,
    #[serde(default)]
    time_ms: f64,
}

fn judged(status: HuntStatus, reason: impl Into<String>) -> Judged {
    Judged {
        status,
        reason: Some(reason.into()),
        goals: None,
    }
}

/// What a finished `agx hunt` child means, read as [`super::verify::judge`] reads verify.
pub fn judge(finished: &Finished, memory_limit: Option<u64>) -> Judged {
    match ending(finished, memory_limit) {
        Ending::Output(code) => judge_output(code, &finished.stdout),
        Ending::Timeout => judged(HuntStatus::Timeout, KILLED_AT_THE_LIMIT),
        Ending::OutOfMemory(reason) => judged(HuntStatus::OutOfMemory, reason),
        Ending::Unsupported(reason) => judged(HuntStatus::Unsupported, reason),
        Ending::Error(reason) => judged(HuntStatus::Error, reason),
    }
}

/// The task's status from hunt's JSON, checked against the exit code.
fn judge_output(code: i32, stdout: &str) -> Judged {
    let goals: Vec<GoalOutput> = match serde_json::from_str(stdout.trim()) {
        Ok(goals) => goals,
        Err(e) => {
            return judged(
                HuntStatus::Error,
                format!("exit code {code} but the output is not hunt's JSON: {e}"),
            )
        }
    };
    let mut sums = GoalSums::default();
    let mut refuted = 0;
    let mut first_reason = None;
    for g in &goals {
        sums.goals += 1;
        sums.expanded += g.stats.expanded;
        sums.generated += g.stats.states;
        sums.time_ms += g.stats.time_ms;
        match g.verdict.as_str() {
            "confirmed" => sums.confirmed += 1,
            "refuted" => refuted += 1,
            "unknown" => {
                first_reason = first_reason.or_else(|| g.reason.clone());
            }
            other => {
                return judged(HuntStatus::Error, format!("unknown hunt verdict `{other}`"));
            }
        }
    }
    let status = match (code, sums.confirmed, refuted) {
        (1, 1.., _) => HuntStatus::Confirmed,
        (0, 0, r) if r == sums.goals && r > 0 => HuntStatus::Refuted,
        (3, 0, r) if r < sums.goals && names_timeout(first_reason.as_deref()) => {
            HuntStatus::Timeout
        }
        (3, 0, r) if r < sums.goals => HuntStatus::Unknown,
        (code, confirmed, _) => {
            return judged(
                HuntStatus::Error,
                format!(
                    "{confirmed} of {} goals confirmed with exit code {code} breaks the contract",
                    sums.goals
                ),
            )
        }
    };
    Judged {
        status,
        reason: first_reason,
        goals: Some(sums),
    }
}

/// Hunts one task (whose source resolved) under the plan's limits; `None` when the bench
/// was interrupted during the run.
pub fn run_one(task: &Task, plan: &Plan, hunt_jobs: usize) -> Option<HuntRecord> {
    let mut record = HuntRecord {
        task: task.id.clone(),
        source: task.source.as_ref().ok().map(|s| s.display().to_string()),
        expected: task.expected,
        data_model: data_model_flag(task.data_model).to_string(),
        status: HuntStatus::Error,
        reason: None,
        goals: None,
        confirmed_goals: None,
        states: None,
        states_generated: None,
        search_time_ms: None,
        wall_time_ms: 0,
        cpu_time_ms: 0,
        peak_memory_kib: None,
        exit_code: None,
        signal: None,
    };
    let source = match &task.source {
        Ok(source) => source,
        Err(reason) => {
            record.reason = Some(reason.clone());
            return Some(record);
        }
    };
    let call = HuntCall {
        source,
        data_model: task.data_model,
        timeout_secs: plan.timeout_secs,
        jobs: hunt_jobs,
    };
    match plan.run_child(call.command(&plan.program)) {
        Ok(finished) => fill(&mut record, &finished, judge(&finished, plan.memory_bytes)),
        Err(NotRun::Failed(reason)) => record.reason = Some(reason),
        Err(NotRun::Interrupted) => return None,
    }
    Some(record)
}

fn fill(record: &mut HuntRecord, finished: &Finished, judged: Judged) {
    record.status = judged.status;
    record.reason = judged.reason;
    if let Some(sums) = judged.goals {
        record.goals = Some(sums.goals);
        record.confirmed_goals = Some(sums.confirmed);
        record.states = Some(sums.expanded);
        record.states_generated = Some(sums.generated);
        record.search_time_ms = Some(sums.time_ms);
    }
    record.wall_time_ms = millis(finished.wall);
    record.cpu_time_ms = millis(finished.cpu);
    record.peak_memory_kib = Some(finished.peak_rss_kib);
    (record.exit_code, record.signal) = finished.exit_code_and_signal();
}

/// How verify and hunt relate on one task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Relation {
    /// Verify FALSE and hunt CONFIRMED: the pair the ratios are over.
    Both,
    /// Verify FALSE, hunt without a verdict.
    HuntMissed,
    /// Hunt CONFIRMED, verify without a verdict.
    HuntOnly,
    /// Neither decided.
    Neither,
    /// A wrong result, in words.
    Wrong(String),
}

/// The relation of a verify record and a hunt record of the same task.
pub fn relate(verify: &Record, hunt: &HuntRecord) -> Relation {
    if verify.outcome.is_wrong() {
        return Relation::Wrong(format!(
            "verify {} on an expected-{} task",
            verify.status.label(),
            super::report::expected_label(verify.expected).to_lowercase()
        ));
    }
    if hunt.status == HuntStatus::Refuted && hunt.expected == Some(false) {
        return Relation::Wrong("hunt REFUTED an expected-false task".to_string());
    }
    match (verify.status, hunt.status) {
        (Status::False, HuntStatus::Refuted) | (Status::True, HuntStatus::Confirmed) => {
            Relation::Wrong(format!(
                "verify {} but hunt {}",
                verify.status.label(),
                hunt.status.label()
            ))
        }
        (Status::False, HuntStatus::Confirmed) => Relation::Both,
        (Status::False, _) => Relation::HuntMissed,
        (_, HuntStatus::Confirmed) => Relation::HuntOnly,
        _ => Relation::Neither,
    }
}

/// Hunt / verify for time (wall clock) and states, `None` where a side is missing.
pub fn ratios(verify: &Record, hunt: &HuntRecord) -> (Option<f64>, Option<f64>) {
    (
        ratio(
            Some(verify.wall_time_ms as f64),
            Some(hunt.wall_time_ms as f64),
        ),
        ratio(
            verify.states.map(|s| s as f64),
            hunt.states.map(|s| s as f64),
        ),
    )
}

/// Hunt / verify for the search time each reports of itself (without the start-up of
/// front end and analyses that the wall clock includes).
pub fn search_ratio(verify: &Record, hunt: &HuntRecord) -> Option<f64> {
    ratio(verify.verify_time_ms, hunt.search_time_ms)
}

/// Median, best (smallest) and worst (largest) of some ratios.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    pub count: usize,
    pub median: f64,
    pub best: f64,
    pub worst: f64,
}

pub fn spread(values: &[f64]) -> Option<Spread> {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    Some(Spread {
        count: finite.len(),
        median: median(&finite)?,
        best: finite.iter().copied().fold(f64::INFINITY, f64::min),
        worst: finite.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    })
}

/// The pairs of verify and hunt records by task, in the order of `verify`.
pub fn pairs<'a>(
    verify: &'a [Record],
    hunt: &'a [HuntRecord],
) -> Vec<(&'a Record, &'a HuntRecord)> {
    verify
        .iter()
        .filter_map(|v| hunt.iter().find(|h| h.task == v.task).map(|h| (v, h)))
        .collect()
}

/// Whether any pair is a wrong result.
pub fn any_wrong(verify: &[Record], hunt: &[HuntRecord]) -> bool {
    pairs(verify, hunt)
        .iter()
        .any(|(v, h)| matches!(relate(v, h), Relation::Wrong(_)))
}

/// The printed comparison: wrong results first, then one row per task, then the ratio
/// summary split by verify's time.
pub fn render(verify: &[Record], hunt: &[HuntRecord]) -> String {
    let pairs = pairs(verify, hunt);
    let mut out = String::new();
    let wrong: Vec<(&Record, String)> = pairs
        .iter()
        .filter_map(|(v, h)| match relate(v, h) {
            Relation::Wrong(why) => Some((*v, why)),
            _ => None,
        })
        .collect();
    if wrong.is_empty() {
        let _ = writeln!(out, "WRONG RESULTS: none");
    } else {
        let _ = writeln!(out, "WRONG RESULTS ({})", wrong.len());
        for (v, why) in &wrong {
            let _ = writeln!(out, "  {}: {why}", v.display_name());
        }
    }
    tasks(&mut out, &pairs);
    summary(&mut out, &pairs);
    out
}

fn tasks(out: &mut String, pairs: &[(&Record, &HuntRecord)]) {
    let _ = writeln!(
        out,
        "\nHUNT vs VERIFY ({} expected-false tasks; ratio = hunt / verify, < 1 means hunt did less)",
        pairs.len()
    );
    let mut table = Table::new(&[
        "task",
        "verify",
        "v.time",
        "v.states",
        "hunt",
        "h.time",
        "h.states",
        "time ratio",
        "states ratio",
        "note",
    ]);
    for (v, h) in pairs {
        let (time, states) = ratios(v, h);
        let relation = relate(v, h);
        let both = relation == Relation::Both;
        let shown = |r: Option<f64>| match r {
            Some(r) if both => ratio_text(r),
            _ => "-".to_string(),
        };
        table.row(vec![
            v.display_name(),
            v.status.label().to_string(),
            seconds(v.wall_time_ms),
            count(v.states),
            h.status.label().to_string(),
            seconds(h.wall_time_ms),
            count(h.states),
            shown(time),
            shown(states),
            match relation {
                Relation::Both | Relation::Neither => String::new(),
                Relation::HuntMissed => "hunt missed".to_string(),
                Relation::HuntOnly => "hunt only".to_string(),
                Relation::Wrong(why) => format!("WRONG: {why}"),
            },
        ]);
    }
    out.push_str(&table.render(&[2, 3, 5, 6, 7, 8]));
}

fn summary(out: &mut String, pairs: &[(&Record, &HuntRecord)]) {
    let count_of = |want: &Relation| pairs.iter().filter(|(v, h)| &relate(v, h) == want).count();
    let _ = writeln!(
        out,
        "\nSUMMARY: both solved {}, verify only (hunt missed) {}, hunt only {}, neither {}",
        count_of(&Relation::Both),
        count_of(&Relation::HuntMissed),
        count_of(&Relation::HuntOnly),
        count_of(&Relation::Neither)
    );
    let mut table = Table::new(&[
        "tasks both solved",
        "n",
        "median time",
        "best time",
        "worst time",
        "median states",
        "best states",
        "worst states",
        "median search",
        "best search",
        "worst search",
    ]);
    type Filter = fn(&Record) -> bool;
    let groups: [(&str, Filter); 4] = [
        ("all", |_| true),
        ("verify > 100 ms", |v| v.wall_time_ms > SLOW_VERIFY_MS),
        ("verify <= 100 ms", |v| v.wall_time_ms <= SLOW_VERIFY_MS),
        ("verify > 1 s", |v| v.wall_time_ms > LONG_VERIFY_MS),
    ];
    let mut median_all = None;
    for (name, keep) in groups {
        let both: Vec<_> = pairs
            .iter()
            .filter(|(v, h)| relate(v, h) == Relation::Both && keep(v))
            .collect();
        let times: Vec<f64> = both.iter().filter_map(|(v, h)| ratios(v, h).0).collect();
        let states: Vec<f64> = both.iter().filter_map(|(v, h)| ratios(v, h).1).collect();
        let search: Vec<f64> = both
            .iter()
            .filter_map(|(v, h)| search_ratio(v, h))
            .collect();
        let times = spread(&times);
        if name == "all" {
            median_all = times.map(|s| s.median);
        }
        let mut row = vec![name.to_string(), both.len().to_string()];
        for s in [times, spread(&states), spread(&search)] {
            match s {
                Some(s) => row.extend([s.median, s.best, s.worst].map(ratio_text)),
                None => row.extend(["-", "-", "-"].map(str::to_string)),
            }
        }
        table.row(row);
    }
    out.push_str(&table.render(&(1..11).collect::<Vec<_>>()));
    let _ = writeln!(
        out,
        "  (time: wall clock of the child; search: the time each tool reports for its \
         searches, without start-up)"
    );
    let verdict = match median_all {
        Some(m) if m <= GOAL_MEDIAN_TIME_RATIO => format!("met (median {})", ratio_text(m)),
        Some(m) => format!("missed (median {})", ratio_text(m)),
        None => "no task both solved".to_string(),
    };
    let _ = writeln!(
        out,
        "  goal (hunt >= 5x faster in the median, time ratio <= {}): {verdict}",
        ratio_text(GOAL_MEDIAN_TIME_RATIO)
    );
}

fn count(v: Option<u64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_else(|| "-".into())
}

/// The output of a fake hunt, for tests elsewhere in the bench.
#[cfg(test)]
pub(crate) fn sample_output(verdicts: &[&str]) -> serde_json::Value {
    serde_json::Value::Array(
        verdicts
            .iter()
            .map(|v| {
                serde_json::json!({"goal": 1, "verdict": v, "reason": if *v == "unknown" { Some("depth bound") } else { None },
                    "stats": {"expanded": 40, "states": 50, "time_ms": 2.5}})
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::child::{tests::finished, End};
    use crate::results::tests::sample_record;

    fn status_of(code: i32, verdicts: &[&str]) -> HuntStatus {
        let out = sample_output(verdicts).to_string();
        judge(&finished(End::Exited(code), &out, ""), None).status
    }

    #[test]
    fn task_status_from_the_goals() {
        assert_eq!(
            status_of(1, &["refuted", "confirmed"]),
            HuntStatus::Confirmed
        );
        assert_eq!(status_of(0, &["refuted", "refuted"]), HuntStatus::Refuted);
        assert_eq!(status_of(3, &["refuted", "unknown"]), HuntStatus::Unknown);
        // Contract breaks are errors, never verdicts.
        assert_eq!(status_of(0, &["confirmed"]), HuntStatus::Error);
        assert_eq!(status_of(1, &["refuted"]), HuntStatus::Error);
        assert_eq!(status_of(0, &[]), HuntStatus::Error);
        assert_eq!(status_of(0, &["maybe"]), HuntStatus::Error);
        assert_eq!(status_of(0, &["refuted", "unknown"]), HuntStatus::Error);
        assert_eq!(status_of(3, &["refuted"]), HuntStatus::Error);
        let j = judge(&finished(End::Exited(0), "not json", ""), None);
        assert_eq!(j.status, HuntStatus::Error);
    }

    #[test]
    fn goal_statistics_add_up() {
        let out = sample_output(&["refuted", "confirmed"]).to_string();
        let j = judge(&finished(End::Exited(1), &out, ""), None);
        let sums = j.goals.unwrap();
        assert_eq!((sums.goals, sums.confirmed), (2, 1));
        assert_eq!((sums.expanded, sums.generated), (80, 100));
        assert_eq!(sums.time_ms, 5.0);
    }

    #[test]
    fn ends_without_output() {
        let j = judge(&finished(End::TimedOut, "", ""), None);
        assert_eq!(j.status, HuntStatus::Timeout);
        let stderr = "error: unsupported: a.c:3: inline assembly\n";
        let j = judge(&finished(End::Exited(2), "", stderr), None);
        assert_eq!(j.status, HuntStatus::Unsupported);
        let j = judge(
            &finished(
                End::Signaled(rustix::process::Signal::SEGV.as_raw()),
                "",
                "",
            ),
            None,
        );
        assert_eq!(j.status, HuntStatus::Error);
        let timeout = r#"[{"verdict":"unknown","reason":"timeout after 10 s","stats":{}}]"#;
        let j = judge(&finished(End::Exited(3), timeout, ""), None);
        assert_eq!(j.status, HuntStatus::Timeout);
    }

    #[test]
    fn command_line() {
        let call = HuntCall {
            source: Path::new("t/a.c"),
            data_model: DataModel::Ilp32,
            timeout_secs: 30.0,
            jobs: 1,
        };
        let cmd = call.command(OsStr::new("agx"));
        let args: Vec<_> = cmd.get_args().map(|a| a.to_string_lossy()).collect();
        assert_eq!(
            args.join(" "),
            "hunt t/a.c --assertions --first --format json --data-model ilp32 --timeout 30 \
             --total-timeout 30 --jobs 1"
        );
    }

    pub(crate) fn hunt_record(task: &str, status: HuntStatus, states: u64, ms: u64) -> HuntRecord {
        HuntRecord {
            task: task.to_string(),
            source: Some(format!("../shared/svcomp/{task}.c")),
            expected: Some(false),
            data_model: "ilp32".to_string(),
            status,
            reason: None,
            goals: Some(1),
            confirmed_goals: Some(u64::from(status == HuntStatus::Confirmed)),
            states: Some(states),
            states_generated: Some(states + 10),
            search_time_ms: Some(ms as f64 / 2.0),
            wall_time_ms: ms,
            cpu_time_ms: ms,
            peak_memory_kib: Some(20_000),
            exit_code: Some(i32::from(status == HuntStatus::Confirmed)),
            signal: None,
        }
    }

    fn verify_record(task: &str, status: Status, states: u64, ms: u64) -> Record {
        let mut r = sample_record(task, status, false);
        r.strategy = "dpor+ag".into();
        r.states = Some(states);
        r.wall_time_ms = ms;
        r.verify_time_ms = Some(ms as f64 * 0.8);
        r
    }

    #[test]
    fn relations_and_wrong_results() {
        let v = verify_record("p/a", Status::False, 100, 400);
        let both = hunt_record("p/a", HuntStatus::Confirmed, 10, 100);
        assert_eq!(relate(&v, &both), Relation::Both);
        assert_eq!(ratios(&v, &both), (Some(0.25), Some(0.1)));
        let missed = hunt_record("p/a", HuntStatus::Timeout, 10, 100);
        assert_eq!(relate(&v, &missed), Relation::HuntMissed);
        let refuted = hunt_record("p/a", HuntStatus::Refuted, 10, 100);
        assert!(matches!(relate(&v, &refuted), Relation::Wrong(_)));
        let unknown = verify_record("p/a", Status::Unknown, 100, 400);
        assert_eq!(relate(&unknown, &both), Relation::HuntOnly);
        assert_eq!(relate(&unknown, &missed), Relation::Neither);
        let wrong_verify = verify_record("p/a", Status::True, 100, 400);
        assert!(matches!(relate(&wrong_verify, &missed), Relation::Wrong(_)));
        assert!(any_wrong(&[v], &[refuted]));
    }

    #[test]
    fn hunt_refuted_against_verify_false_is_wrong_without_an_expectation() {
        let mut v = verify_record("p/a", Status::False, 100, 400);
        v.expected = None;
        v.outcome = crate::score::Correctness::of(None, Status::False);
        let mut h = hunt_record("p/a", HuntStatus::Refuted, 10, 100);
        h.expected = None;
        assert_eq!(
            relate(&v, &h),
            Relation::Wrong("verify FALSE but hunt REFUTED".into())
        );
    }

    #[test]
    fn spread_of_ratios() {
        let s = spread(&[0.5, 0.1, 2.0, f64::NAN]).unwrap();
        assert_eq!((s.count, s.median, s.best, s.worst), (3, 0.5, 0.1, 2.0));
        assert!(spread(&[]).is_none());
    }

    #[test]
    fn table_snapshot() {
        let verify = vec![
            verify_record("pthread/sigma", Status::False, 343, 80),
            verify_record("pthread/queue", Status::False, 5000, 2400),
            verify_record("pthread/stack-2", Status::False, 900, 600),
            verify_record("pthread/lazy01", Status::False, 200, 300),
            verify_record("pthread-ext/27_Boop_simple_vf", Status::Timeout, 0, 62_000),
            verify_record("pthread/bad", Status::False, 10, 50),
        ];
        let hunt = vec![
            hunt_record("pthread/sigma", HuntStatus::Confirmed, 1233, 60),
            hunt_record("pthread/queue", HuntStatus::Confirmed, 250, 200),
            hunt_record("pthread/stack-2", HuntStatus::Confirmed, 90, 120),
            hunt_record("pthread/lazy01", HuntStatus::Unknown, 700, 9000),
            hunt_record(
                "pthread-ext/27_Boop_simple_vf",
                HuntStatus::Confirmed,
                80,
                900,
            ),
            hunt_record("pthread/bad", HuntStatus::Refuted, 5, 40),
        ];
        let text = render(&verify, &hunt);
        assert!(text.starts_with("WRONG RESULTS (1)\n  pthread/bad: hunt REFUTED"));
        insta::assert_snapshot!(text);
    }
}
