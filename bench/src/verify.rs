//! The contract with `agx verify`, and what a finished child means.
//!
//! The bench runs, per task and strategy:
//!
//! ```text
//! agx verify SOURCE --format json --data-model ilp32|lp64 [--strategy S] --timeout SECS [OPTIONS]
//! ```
//!
//! and reads one JSON object from its stdout:
//!
//! ```json
//! {"verdict": "violation" | "safe" | "unknown", "reason": string | null,
//!  "violation": {...} | null, "witness": {...} | null, "strategy": "...",
//!  "stats": {"runs", "partial_runs", "states", "solver_queries", "solver_time_ms", "time_ms"}}
//! ```
//!
//! Exit code 0 means `safe`, 1 a violation, 2 an error, 3 `unknown`; an unsupported
//! language construct is an error whose stderr says `unsupported: ...`.
//!
//! [`judge`] maps the child's end to a [`Status`], in this order:
//! 1. killed at the wall-clock limit → TIMEOUT;
//! 2. an abnormal end under a memory limit that shows memory exhaustion (an allocation
//!    failure message on stderr, a peak resident set at 90 % of the limit or more, or a
//!    SIGKILL we did not send, which is how the kernel's OOM killer ends a process) →
//!    OUT OF MEMORY;
//! 3. exit 0, 1 or 3 with the JSON: `violation` → FALSE, `safe` → TRUE, `unknown` → UNKNOWN,
//!    except that `unknown` whose reason names a timeout is TIMEOUT (verify stopped at its
//!    own `--timeout`, which the bench sets to the task's limit); a verdict that disagrees
//!    with the exit code, or output that is not the JSON, is ERROR — the bench never
//!    guesses a verdict;
//! 4. exit 2 with `unsupported` on stderr → UNSUPPORTED (counted apart, never scored);
//! 5. anything else → ERROR with the first line of stderr as the reason.

use super::child::{End, Finished};
use analysis::ir::DataModel;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

/// The verdict of one task as SV-COMP reports it, plus the ways of not having one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// The property holds (verify: `safe`).
    True,
    /// The property is violated (verify: `violation`).
    False,
    /// Verify finished without a verdict (a bound was hit).
    Unknown,
    /// Verify failed, crashed, or broke the contract.
    Error,
    Timeout,
    OutOfMemory,
    /// The program uses a construct agx does not support.
    Unsupported,
    /// The task's property is not one agx checks; the task was not run.
    NotSupported,
}

impl Status {
    /// How the terminal report and the CSV write it.
    pub fn label(self) -> &'static str {
        match self {
            Status::True => "TRUE",
            Status::False => "FALSE",
            Status::Unknown => "UNKNOWN",
            Status::Error => "ERROR",
            Status::Timeout => "TIMEOUT",
            Status::OutOfMemory => "OUT OF MEMORY",
            Status::Unsupported => "UNSUPPORTED",
            Status::NotSupported => "NOT SUPPORTED",
        }
    }
}

/// The statistics verify reports; every field optional so that a missing one reads as
/// "not reported" rather than zero.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VerifyStats {
    pub runs: Option<u64>,
    pub partial_runs: Option<u64>,
    /// Of `runs`, those that ended with a thread parked by the spin-loop or the await
    /// reduction: the executions the peers count as blocked, not complete.
    #[serde(default)]
    pub blocked_runs: Option<u64>,
    pub states: Option<u64>,
    pub solver_queries: Option<u64>,
    pub solver_time_ms: Option<f64>,
    pub time_ms: Option<f64>,
    /// The non-preemptive probe before the search (`verify --no-probe` turns it off):
    /// read, then counted in `runs`, `partial_runs` and `states` by [`VerifyStats::with_probe`].
    #[serde(default, skip_serializing)]
    pub probe_runs: Option<u64>,
    #[serde(default, skip_serializing)]
    pub probe_partial_runs: Option<u64>,
    #[serde(default, skip_serializing)]
    pub probe_states: Option<u64>,
    #[serde(default, skip_serializing)]
    pub probe_blocked_runs: Option<u64>,
}

impl VerifyStats {
    /// The work of the whole verify, probe included: a task the probe decides did run,
    /// and the bench (and its comparison with other tools' executions) counts it.
    pub fn with_probe(mut self) -> VerifyStats {
        fn add(total: &mut Option<u64>, probe: Option<u64>) {
            if let Some(p) = probe {
                *total = Some(total.unwrap_or(0) + p);
            }
        }
        add(&mut self.runs, self.probe_runs.take());
        add(&mut self.partial_runs, self.probe_partial_runs.take());
        add(&mut self.states, self.probe_states.take());
        add(&mut self.blocked_runs, self.probe_blocked_runs.take());
        self
    }
}

/// The JSON object `agx verify --format json` prints.
#[derive(Clone, Debug, Deserialize)]
pub struct VerifyOutput {
    pub verdict: String,
    pub reason: Option<String>,
    #[serde(default)]
    pub violation: Option<Value>,
    #[serde(default)]
    pub witness: Option<Value>,
    pub strategy: Option<String>,
    #[serde(default)]
    pub stats: VerifyStats,
}

/// A child's end, judged.
#[derive(Clone, Debug)]
pub struct Judged {
    pub status: Status,
    pub reason: Option<String>,
    /// The parsed output when verify produced one.
    pub output: Option<VerifyOutput>,
}

impl Judged {
    fn new(status: Status, reason: impl Into<String>) -> Judged {
        Judged {
            status,
            reason: Some(reason.into()),
            output: None,
        }
    }
}

/// The `--data-model` value for `dm`.
pub fn data_model_flag(dm: DataModel) -> &'static str {
    match dm {
        DataModel::Ilp32 => "ilp32",
        DataModel::Lp64 => "lp64",
    }
}

/// The command line of one verify run.
pub struct VerifyCall<'a> {
    pub source: &'a Path,
    pub data_model: DataModel,
    pub strategy: Option<&'a str>,
    /// Verify's own time limit in seconds (more than 0).
    pub timeout_secs: f64,
    pub extra_args: &'a [String],
}

impl VerifyCall<'_> {
    /// `program verify SOURCE --format json ...`.
    pub fn command(&self, program: &OsStr) -> Command {
        let mut command = Command::new(program);
        command
            .arg("verify")
            .arg(self.source)
            // A bench run must not write summary stores beside the corpus.
            .args(["--no-store", "--format", "json", "--data-model"])
            .arg(data_model_flag(self.data_model));
        if let Some(strategy) = self.strategy {
            command.args(["--strategy", strategy]);
        }
        command
            .arg("--timeout")
            .arg(self.timeout_secs.to_string())
            .args(self.extra_args);
        command
    }
}

/// Stderr phrases of an allocation failure: Rust's allocator, Z3, C++, libc, gnulib.
const ALLOCATION_FAILURES: [&str; 6] = [
    "memory allocation of",
    "out of memory",
    "bad_alloc",
    "cannot allocate memory",
    "failed to allocate",
    "memory exhausted",
];

/// What a finished `agx verify` child means; `memory_limit` in bytes as given to the child.
pub fn judge(finished: &Finished, memory_limit: Option<u64>) -> Judged {
    match ending(finished, memory_limit) {
        Ending::Output(code) => judge_output(code, &finished.stdout),
        Ending::Timeout => Judged::new(Status::Timeout, KILLED_AT_THE_LIMIT),
        Ending::OutOfMemory(reason) => Judged::new(Status::OutOfMemory, reason),
        Ending::Unsupported(reason) => Judged::new(Status::Unsupported, reason),
        Ending::Error(reason) => Judged::new(Status::Error, reason),
    }
}

/// The reason of [`Ending::Timeout`].
pub(super) const KILLED_AT_THE_LIMIT: &str = "killed at the time limit";

/// How an agx child (`verify` or `hunt`: same exit codes, JSON on stdout) ended.
#[derive(Debug)]
pub(super) enum Ending {
    /// Exit 0, 1 or 3: the answer is the JSON on stdout.
    Output(i32),
    /// Killed at the wall-clock limit.
    Timeout,
    OutOfMemory(String),
    Unsupported(String),
    Error(String),
}

/// How `finished` ended, in this order: killed at the time limit, out of memory, an answer
/// (exit 0, 1 or 3), an unsupported construct (exit 2), any other end.
pub(super) fn ending(finished: &Finished, memory_limit: Option<u64>) -> Ending {
    if finished.end == End::TimedOut {
        return Ending::Timeout;
    }
    if let Some(reason) = memory_exhaustion(finished, memory_limit) {
        return Ending::OutOfMemory(reason);
    }
    let message = || first_line_or(&finished.stderr, "no message");
    match finished.end {
        End::Exited(code @ (0 | 1 | 3)) => Ending::Output(code),
        End::Exited(2) => match unsupported_line(&finished.stderr) {
            Some(line) => Ending::Unsupported(line),
            None => Ending::Error(first_line_or(&finished.stderr, "exit code 2")),
        },
        End::Exited(code) => Ending::Error(format!("exit code {code}: {}", message())),
        End::Signaled(signal) => Ending::Error(format!("killed by signal {signal}: {}", message())),
        End::TimedOut => Ending::Timeout,
    }
}

/// Why an abnormal end looks like memory exhaustion, `None` if it does not.
fn memory_exhaustion(finished: &Finished, memory_limit: Option<u64>) -> Option<String> {
    let limit = memory_limit?;
    if matches!(finished.end, End::Exited(0 | 1 | 3)) {
        return None;
    }
    let stderr = finished.stderr.to_ascii_lowercase();
    if let Some(phrase) = ALLOCATION_FAILURES.iter().find(|p| stderr.contains(*p)) {
        return Some(format!("allocation failed (stderr: \"{phrase}\")"));
    }
    let peak = finished.peak_rss_kib.saturating_mul(1024);
    if peak.saturating_mul(10) >= limit.saturating_mul(9) {
        return Some(format!(
            "peak resident set {} MiB at the {} MiB limit",
            peak >> 20,
            limit >> 20
        ));
    }
    if finished.end == End::Signaled(rustix::process::Signal::KILL.as_raw()) {
        return Some("killed by SIGKILL (the kernel's out-of-memory killer)".to_string());
    }
    None
}

/// The verdict from verify's JSON, checked against its exit code.
fn judge_output(code: i32, stdout: &str) -> Judged {
    let mut output: VerifyOutput = match serde_json::from_str(stdout.trim()) {
        Ok(output) => output,
        Err(e) => {
            return Judged::new(
                Status::Error,
                format!("exit code {code} but the output is not verify's JSON: {e}"),
            )
        }
    };
    output.stats = std::mem::take(&mut output.stats).with_probe();
    let status = match (output.verdict.as_str(), code) {
        ("violation", 1) => Status::False,
        ("safe", 0) => Status::True,
        ("unknown", 3) if names_timeout(output.reason.as_deref()) => Status::Timeout,
        ("unknown", 3) => Status::Unknown,
        (verdict, code) => {
            return Judged::new(
                Status::Error,
                format!("verdict `{verdict}` with exit code {code} breaks the contract"),
            )
        }
    };
    Judged {
        status,
        reason: output.reason.clone(),
        output: Some(output),
    }
}

pub(super) fn names_timeout(reason: Option<&str>) -> bool {
    reason.is_some_and(|r| {
        let r = r.to_ascii_lowercase();
        r.contains("timeout") || r.contains("time limit") || r.contains("timed out")
    })
}

/// The stderr line that says what is unsupported, without the `error: ` prefix.
fn unsupported_line(stderr: &str) -> Option<String> {
    stderr
        .lines()
        .find(|line| line.contains("unsupported"))
        .map(|line| line.trim().trim_start_matches("error: ").to_string())
}

fn first_line_or(text: &str, default: &str) -> String {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or(default)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::child::tests::finished;

    fn status(end: End, stdout: &str, stderr: &str) -> Status {
        judge(&finished(end, stdout, stderr), Some(1 << 30)).status
    }

    const SAFE: &str = r#"{"verdict":"safe","reason":null,"violation":null,"witness":null,
        "strategy":"dpor+ag","stats":{"runs":3,"partial_runs":1,"states":40,
        "solver_queries":7,"solver_time_ms":1.5,"time_ms":12}}"#;

    #[test]
    fn verdicts_follow_the_json_and_the_exit_code() {
        assert_eq!(status(End::Exited(0), SAFE, ""), Status::True);
        let violation = r#"{"verdict":"violation","reason":null,"strategy":"dpor"}"#;
        assert_eq!(status(End::Exited(1), violation, ""), Status::False);
        let unknown = r#"{"verdict":"unknown","reason":"unwind bound 2 hit"}"#;
        let j = judge(&finished(End::Exited(3), unknown, ""), None);
        assert_eq!(j.status, Status::Unknown);
        assert_eq!(j.reason.as_deref(), Some("unwind bound 2 hit"));
        let own_timeout = r#"{"verdict":"unknown","reason":"timeout after 10 s"}"#;
        assert_eq!(status(End::Exited(3), own_timeout, ""), Status::Timeout);
    }

    #[test]
    fn stats_are_read() {
        let j = judge(&finished(End::Exited(0), SAFE, ""), None);
        let stats = j.output.unwrap().stats;
        assert_eq!(stats.runs, Some(3));
        assert_eq!(stats.partial_runs, Some(1));
        assert_eq!(stats.time_ms, Some(12.0));
    }

    #[test]
    fn the_probe_counts_in_the_runs() {
        let decided = r#"{"verdict":"violation","reason":null,"strategy":"dpor+ag",
            "stats":{"runs":0,"partial_runs":0,"states":0,"probe_runs":1,
            "probe_partial_runs":2,"probe_states":85,"time_ms":3}}"#;
        let stats = judge(&finished(End::Exited(1), decided, ""), None)
            .output
            .unwrap()
            .stats;
        assert_eq!(
            (stats.runs, stats.partial_runs, stats.states),
            (Some(1), Some(2), Some(85))
        );
        let stats = judge(&finished(End::Exited(0), SAFE, ""), None)
            .output
            .unwrap()
            .stats;
        assert_eq!((stats.runs, stats.states), (Some(3), Some(40)));
    }

    #[test]
    fn contract_breaks_are_errors_never_verdicts() {
        assert_eq!(status(End::Exited(0), "", ""), Status::Error);
        assert_eq!(status(End::Exited(0), "Result: TRUE", ""), Status::Error);
        let violation = r#"{"verdict":"violation"}"#;
        assert_eq!(status(End::Exited(0), violation, ""), Status::Error);
        assert_eq!(status(End::Exited(1), SAFE, ""), Status::Error);
        let unknown = r#"{"verdict":"unknown","reason":"unwind bound 2 hit"}"#;
        assert_eq!(status(End::Exited(0), unknown, ""), Status::Error);
        assert_eq!(status(End::Exited(3), SAFE, ""), Status::Error);
        let odd = r#"{"verdict":"maybe"}"#;
        assert_eq!(status(End::Exited(0), odd, ""), Status::Error);
    }

    #[test]
    fn unsupported_constructs_and_errors() {
        let stderr = "warning: x\nerror: unsupported: a.c:3: inline assembly\n";
        let j = judge(&finished(End::Exited(2), "", stderr), None);
        assert_eq!(j.status, Status::Unsupported);
        assert_eq!(
            j.reason.as_deref(),
            Some("unsupported: a.c:3: inline assembly")
        );
        let j = judge(&finished(End::Exited(2), "", "error: parse error\n"), None);
        assert_eq!(j.status, Status::Error);
        assert_eq!(j.reason.as_deref(), Some("error: parse error"));
        assert_eq!(status(End::Exited(101), "", "panicked"), Status::Error);
        assert_eq!(
            status(
                End::Signaled(rustix::process::Signal::SEGV.as_raw()),
                "",
                ""
            ),
            Status::Error
        );
    }

    #[test]
    fn timeouts_and_memory_exhaustion() {
        assert_eq!(status(End::TimedOut, "", ""), Status::Timeout);
        let rust_abort = "memory allocation of 1048576 bytes failed\n";
        assert_eq!(
            status(
                End::Signaled(rustix::process::Signal::ABORT.as_raw()),
                "",
                rust_abort
            ),
            Status::OutOfMemory
        );
        let z3 = "error: Z3 error: out of memory\n";
        assert_eq!(status(End::Exited(2), "", z3), Status::OutOfMemory);
        let mut at_limit = finished(
            End::Signaled(rustix::process::Signal::SEGV.as_raw()),
            "",
            "",
        );
        at_limit.peak_rss_kib = 1 << 20; // 1 GiB
        assert_eq!(judge(&at_limit, Some(1 << 30)).status, Status::OutOfMemory);
        assert_eq!(
            status(
                End::Signaled(rustix::process::Signal::KILL.as_raw()),
                "",
                ""
            ),
            Status::OutOfMemory
        );
        // Without a memory limit the same ends are errors.
        let j = judge(
            &finished(
                End::Signaled(rustix::process::Signal::ABORT.as_raw()),
                "",
                rust_abort,
            ),
            None,
        );
        assert_eq!(j.status, Status::Error);
        // A normal answer is never out of memory, whatever stderr says.
        assert_eq!(status(End::Exited(0), SAFE, "out of memory?"), Status::True);
    }

    #[test]
    fn command_line() {
        let extra = vec!["--unwind".to_string(), "3".to_string()];
        let call = VerifyCall {
            source: Path::new("t/a.c"),
            data_model: DataModel::Lp64,
            strategy: Some("dpor"),
            timeout_secs: 10.0,
            extra_args: &extra,
        };
        let cmd = call.command(OsStr::new("agx"));
        let args: Vec<_> = cmd.get_args().map(|a| a.to_string_lossy()).collect();
        assert_eq!(
            args.join(" "),
            "verify t/a.c --no-store --format json --data-model lp64 --strategy dpor --timeout 10 --unwind 3"
        );
    }
}
