//! `results.json` and `--csv`: one record per (task, property, strategy).
//!
//! The JSON schema is versioned: `"schema": "agx-bench-results"`, `"schema_version": 2`.
//! Within one version fields are only ever added (readers ignore unknown fields); a field's
//! meaning never changes. Readers accept versions 1 and 2 (version 2 only added fields,
//! which read as absent from a version 1 file) and reject others with a clear message.
//!
//! Version 2 added `settings.mode` (`tasks`, `paper-table2` or `hunt`), and the sections of
//! the two comparison modes, present only in their runs: `paper_table2` (one object per row
//! of the paper's Table 2, see [`RowResult`]) and `hunt` (one object per
//! task, see [`HuntRecord`]); the `records` stay `agx verify`'s runs.
//!
//! Record fields (all per task, property and strategy):
//! - `task` (`folder/stem`), `folder`, `definition` (the `.yml` or fixture path), `source`
//!   (the C file run, `null` when it could not be resolved), `property`, `expected`
//!   (`true` when the property holds, `false` when violated, `null` when not given),
//!   `data_model` (`ilp32` / `lp64`);
//! - `strategy` (the strategy asked for, `default` for verify's default),
//!   `strategy_used` (as verify reported it);
//! - `status` (`true`, `false`, `unknown`, `error`, `timeout`, `out-of-memory`,
//!   `unsupported`, `not-supported`), `outcome` (`correct-true`, `correct-false`,
//!   `wrong-true`, `wrong-false`, `no-verdict`, `unsupported`, `no-expectation`), `score`,
//!   `reason` (why no verdict, or verify's reason);
//! - verify's statistics `runs`, `partial_runs`, `blocked_runs`, `states`, `solver_queries`,
//!   `solver_time_ms`, `verify_time_ms` (`null` when not reported);
//! - measured by the bench: `wall_time_ms`, `cpu_time_ms`, `peak_memory_kib` (`null` for
//!   tasks not run), `exit_code` / `signal` of the child.

use super::score::Correctness;
use super::verify::Status;
use serde::{Deserialize, Serialize};
use std::path::Path;

pub const SCHEMA: &str = "agx-bench-results";
pub const SCHEMA_VERSION: u32 = 2;

/// The oldest schema version this agx reads.
pub const OLDEST_READABLE_VERSION: u32 = 1;

/// The strategy label of a run that did not ask for one.
pub const DEFAULT_STRATEGY: &str = "default";

/// A whole bench run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Results {
    pub schema: String,
    pub schema_version: u32,
    pub agx_version: String,
    /// When the run started, seconds since the Unix epoch.
    pub created_unix_s: u64,
    pub settings: Settings,
    pub records: Vec<Record>,
    /// `--paper-table2`: the rows of the paper's Table 2 next to `records`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paper_table2: Vec<RowResult>,
    /// `--hunt`: `agx hunt` on the tasks of `records` (which are the `agx verify` runs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hunt: Vec<HuntRecord>,
}

/// The limits and options of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Seconds; written as an integer when whole (as version 2 always wrote it).
    #[serde(serialize_with = "whole_as_integer")]
    pub timeout_s: f64,
    pub memory_mb: Option<u64>,
    pub jobs: usize,
    pub strategies: Vec<String>,
    /// What the run was: `tasks` (the plain bench), `paper-table2` or `hunt`.
    #[serde(default = "default_mode")]
    pub mode: String,
}

/// The mode of a run that does not say (every version 1 file).
pub const MODE_TASKS: &str = "tasks";
/// The mode of `--paper-table2` runs.
pub const MODE_PAPER_TABLE2: &str = "paper-table2";
/// The mode of `--hunt` runs.
pub const MODE_HUNT: &str = "hunt";

fn default_mode() -> String {
    MODE_TASKS.to_string()
}

/// One task run with one strategy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub task: String,
    pub folder: String,
    pub definition: String,
    pub source: Option<String>,
    pub property: String,
    pub expected: Option<bool>,
    pub data_model: String,
    pub strategy: String,
    pub strategy_used: Option<String>,
    pub status: Status,
    pub outcome: Correctness,
    pub score: i64,
    pub reason: Option<String>,
    pub runs: Option<u64>,
    pub partial_runs: Option<u64>,
    /// Of `runs`, those that ended with a thread parked by the spin-loop or the await
    /// reduction, or (since session 16) at a failed `assume` or `abort()` (verify's
    /// `blocked_runs`; absent in older files).
    #[serde(default)]
    pub blocked_runs: Option<u64>,
    pub states: Option<u64>,
    pub solver_queries: Option<u64>,
    pub solver_time_ms: Option<f64>,
    pub verify_time_ms: Option<f64>,
    pub wall_time_ms: u64,
    pub cpu_time_ms: u64,
    pub peak_memory_kib: Option<u64>,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
}

impl Record {
    /// What identifies a record across runs.
    pub fn key(&self) -> (String, String, String) {
        (
            self.task.clone(),
            self.property.clone(),
            self.strategy.clone(),
        )
    }

    /// Like [`Record::key`], but a run of verify's default strategy is known by the
    /// strategy verify reported (when it finished), so that `--compare` can pair it with a
    /// run that named that strategy.
    pub fn resolved_key(&self) -> (String, String, String) {
        let strategy = match &self.strategy_used {
            Some(used) if self.strategy == DEFAULT_STRATEGY => used.clone(),
            _ => self.strategy.clone(),
        };
        (self.task.clone(), self.property.clone(), strategy)
    }

    /// `task` with the property appended when it is not unreach-call, for display.
    pub fn display_name(&self) -> String {
        if self.property == "unreach-call" {
            self.task.clone()
        } else {
            format!("{} [{}]", self.task, self.property)
        }
    }
}

/// Why a results file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    #[error("reading {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("reading {path}: {source}")]
    In {
        path: String,
        source: Box<ResultsError>,
    },
    #[error("not JSON: {0}")]
    NotJson(serde_json::Error),
    #[error("not an agx bench results file (schema {0:?}, expected \"{SCHEMA}\")")]
    Schema(Option<String>),
    #[error(
        "results schema version {0:?} is not supported (this agx reads \
         {OLDEST_READABLE_VERSION} to {SCHEMA_VERSION})"
    )]
    Version(Option<u64>),
    #[error("malformed results: {0}")]
    Malformed(serde_json::Error),
}

impl Results {
    /// Reads and checks a results file.
    pub fn load(path: &Path) -> Result<Results, ResultsError> {
        let shown = || path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ResultsError::Read {
            path: shown(),
            source,
        })?;
        Results::parse(&text).map_err(|e| ResultsError::In {
            path: shown(),
            source: Box::new(e),
        })
    }

    /// Parses results JSON, rejecting other schemas and versions.
    pub fn parse(text: &str) -> Result<Results, ResultsError> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(ResultsError::NotJson)?;
        let schema = value.get("schema").and_then(|s| s.as_str());
        if schema != Some(SCHEMA) {
            return Err(ResultsError::Schema(schema.map(str::to_string)));
        }
        let version = value.get("schema_version").and_then(|v| v.as_u64());
        let readable = u64::from(OLDEST_READABLE_VERSION)..=u64::from(SCHEMA_VERSION);
        if !version.is_some_and(|v| readable.contains(&v)) {
            return Err(ResultsError::Version(version));
        }
        serde_json::from_value(value).map_err(ResultsError::Malformed)
    }

    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        Ok(serde_json::to_string_pretty(self)? + "\n")
    }

    /// The CSV text: a header and one row per record.
    pub fn to_csv(&self) -> String {
        let mut out = CSV_COLUMNS.join(",");
        out.push('\n');
        for record in &self.records {
            let row: Vec<String> = csv_row(record).iter().map(|f| csv_field(f)).collect();
            out.push_str(&row.join(","));
            out.push('\n');
        }
        out
    }
}

const CSV_COLUMNS: [&str; 20] = [
    "task",
    "folder",
    "property",
    "expected",
    "data_model",
    "strategy",
    "status",
    "outcome",
    "score",
    "runs",
    "partial_runs",
    "states",
    "solver_queries",
    "solver_time_ms",
    "verify_time_ms",
    "wall_time_ms",
    "cpu_time_ms",
    "peak_memory_kib",
    "reason",
    "source",
];

fn csv_row(r: &Record) -> [String; 20] {
    fn opt<T: ToString>(v: &Option<T>) -> String {
        v.as_ref().map(T::to_string).unwrap_or_default()
    }
    [
        r.task.clone(),
        r.folder.clone(),
        r.property.clone(),
        opt(&r.expected),
        r.data_model.clone(),
        r.strategy.clone(),
        r.status.label().to_string(),
        serde_json::to_value(r.outcome)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        r.score.to_string(),
        opt(&r.runs),
        opt(&r.partial_runs),
        opt(&r.states),
        opt(&r.solver_queries),
        opt(&r.solver_time_ms),
        opt(&r.verify_time_ms),
        r.wall_time_ms.to_string(),
        r.cpu_time_ms.to_string(),
        opt(&r.peak_memory_kib),
        opt(&r.reason),
        opt(&r.source),
    ]
}

/// RFC 4180 quoting: fields with a comma, quote or line break are quoted.
fn csv_field(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

/// Writes a whole number of seconds as an integer (`60`, not `60.0`), others as they are.
fn whole_as_integer<S: serde::Serializer>(secs: &f64, s: S) -> Result<S::Ok, S::Error> {
    if secs.fract() == 0.0 && *secs >= 0.0 && *secs <= u64::MAX as f64 {
        s.serialize_u64(*secs as u64)
    } else {
        s.serialize_f64(*secs)
    }
}

// ---- the sections of the comparison modes (`paper_table2`, `hunt`) ----

/// One cell pair (runs, time) of the paper's table.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "result")]
pub enum PaperCell {
    Finished {
        runs: u64,
        time_s: f64,
    },
    /// "—" runs and ">1800" seconds: not finished within the paper's 30 minutes.
    TimedOut,
}

impl PaperCell {
    pub fn runs(self) -> Option<u64> {
        match self {
            PaperCell::Finished { runs, .. } => Some(runs),
            PaperCell::TimedOut => None,
        }
    }

    /// `(runs, time)` as the table prints them.
    pub(crate) fn texts(self) -> (String, String) {
        match self {
            PaperCell::Finished { runs, time_s } => (runs.to_string(), format!("{time_s:.1}s")),
            PaperCell::TimedOut => ("-".to_string(), ">1800s".to_string()),
        }
    }
}

/// Whether a row meets the goal, and why not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "goal", content = "why")]
pub enum Goal {
    Met,
    Missed(String),
    /// No task corresponds to the row, or dpor+ag did not run on it.
    NotRun,
}

/// One row of the comparison as stored in `results.json` (`paper_table2`); agx's own
/// numbers are the `records` of the task with each strategy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RowResult {
    /// The paper's row name.
    pub row: String,
    pub loc: u32,
    pub threads: u32,
    /// The SV-COMP task (`folder/stem`) standing for it, `null` when none does.
    pub task: Option<String>,
    pub note: String,
    pub cloud9: PaperCell,
    pub dpor: PaperCell,
    pub dpor_ag: PaperCell,
    #[serde(flatten)]
    pub goal: Goal,
}

/// Hunt's verdict on a whole task, plus the ways of not having one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HuntStatus {
    /// Some goal confirmed with a replayed witness.
    Confirmed,
    /// Every goal refuted.
    Refuted,
    Unknown,
    Error,
    Timeout,
    OutOfMemory,
    Unsupported,
}

impl HuntStatus {
    pub fn label(self) -> &'static str {
        match self {
            HuntStatus::Confirmed => "CONFIRMED",
            HuntStatus::Refuted => "REFUTED",
            HuntStatus::Unknown => "UNKNOWN",
            HuntStatus::Error => "ERROR",
            HuntStatus::Timeout => "TIMEOUT",
            HuntStatus::OutOfMemory => "OUT OF MEMORY",
            HuntStatus::Unsupported => "UNSUPPORTED",
        }
    }
}

/// One task hunted; stored in `results.json` under `hunt`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HuntRecord {
    pub task: String,
    pub source: Option<String>,
    pub expected: Option<bool>,
    pub data_model: String,
    pub status: HuntStatus,
    /// Why no verdict (or the first unknown goal's reason).
    pub reason: Option<String>,
    /// Goals (assertions and `reach_error` calls) and how many were confirmed.
    pub goals: Option<u64>,
    pub confirmed_goals: Option<u64>,
    /// Σ `expanded` over goals: comparable to verify's `states`.
    pub states: Option<u64>,
    /// Σ `states` (nodes generated) over goals.
    pub states_generated: Option<u64>,
    /// Σ hunt's own `time_ms` over goals (the searches, without start-up).
    pub search_time_ms: Option<f64>,
    pub wall_time_ms: u64,
    pub cpu_time_ms: u64,
    pub peak_memory_kib: Option<u64>,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A fixed record for schema tests.
    pub(crate) fn sample_record(task: &str, status: Status, expected: bool) -> Record {
        let outcome = Correctness::of(Some(expected), status);
        Record {
            task: task.to_string(),
            folder: task.split('/').next().unwrap_or("").to_string(),
            definition: format!("../shared/svcomp/{task}.yml"),
            source: Some(format!("../shared/svcomp/{task}.c")),
            property: "unreach-call".to_string(),
            expected: Some(expected),
            data_model: "ilp32".to_string(),
            strategy: "dpor".to_string(),
            strategy_used: Some("dpor".to_string()),
            status,
            outcome,
            score: outcome.score(),
            reason: None,
            runs: Some(12),
            partial_runs: Some(3),
            blocked_runs: Some(1),
            states: Some(140),
            solver_queries: Some(20),
            solver_time_ms: Some(4.5),
            verify_time_ms: Some(30.0),
            wall_time_ms: 41,
            cpu_time_ms: 38,
            peak_memory_kib: Some(21_000),
            exit_code: Some(if status == Status::False { 1 } else { 0 }),
            signal: None,
        }
    }

    pub(crate) fn sample_results(records: Vec<Record>) -> Results {
        Results {
            schema: SCHEMA.to_string(),
            schema_version: SCHEMA_VERSION,
            agx_version: "0.1.0".to_string(),
            created_unix_s: 1_700_000_000,
            settings: Settings {
                timeout_s: 60.0,
                memory_mb: Some(4096),
                jobs: 2,
                strategies: vec!["dpor".to_string()],
                mode: MODE_TASKS.to_string(),
            },
            records,
            paper_table2: Vec::new(),
            hunt: Vec::new(),
        }
    }

    #[test]
    fn json_schema_snapshot() {
        let mut timeout = sample_record("pthread/queue", Status::Timeout, false);
        timeout.reason = Some("killed at the time limit".into());
        timeout.runs = None;
        timeout.exit_code = None;
        let results = sample_results(vec![
            sample_record("pthread/bigshot_p", Status::False, false),
            timeout,
        ]);
        insta::assert_snapshot!(results.to_json().unwrap());
    }

    #[test]
    fn json_round_trip() {
        let results = sample_results(vec![sample_record("a/b", Status::True, true)]);
        let text = results.to_json().unwrap();
        assert_eq!(Results::parse(&text).unwrap(), results);
    }

    #[test]
    fn rejects_other_schemas_and_versions() {
        let results = sample_results(vec![]);
        let mut value = serde_json::to_value(&results).unwrap();
        value["schema_version"] = 3.into();
        let err = Results::parse(&value.to_string()).unwrap_err();
        assert!(err.to_string().contains("version"), "{err}");
        assert!(Results::parse("{\"verdict\": \"safe\"}").is_err());
        assert!(Results::parse("not json").is_err());
    }

    #[test]
    fn reads_version_1_files_as_plain_task_runs() {
        let results = sample_results(vec![sample_record("a/b", Status::True, true)]);
        let mut value = serde_json::to_value(&results).unwrap();
        value["schema_version"] = 1.into();
        value["settings"].as_object_mut().unwrap().remove("mode");
        let read = Results::parse(&value.to_string()).unwrap();
        assert_eq!(read.schema_version, 1);
        assert_eq!(read.settings.mode, MODE_TASKS);
        assert_eq!(read.records, results.records);
        assert!(read.hunt.is_empty() && read.paper_table2.is_empty());
    }

    #[test]
    fn csv_quotes_and_columns() {
        let mut r = sample_record("pthread/x", Status::Error, true);
        r.reason = Some("exit code 2: \"a\", b".into());
        let csv = sample_results(vec![r]).to_csv();
        let lines: Vec<_> = csv.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].starts_with("task,folder,property,expected"));
        assert!(
            lines[1].contains(",\"exit code 2: \"\"a\"\", b\","),
            "{}",
            lines[1]
        );
        assert!(lines[1].contains(",ERROR,no-verdict,0,"), "{}", lines[1]);
    }
}
