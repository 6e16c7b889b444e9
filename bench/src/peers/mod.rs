//! `agx bench --compare-peers RESULTS.json`: agx's runs beside other model checkers'
//! results on the same SV-COMP tasks (issue 15).
//!
//! The peers' results are TSV files (one per tool, `../shared/peers/*.tsv`) with the
//! columns `folder stem expected tool verdict class seconds executions note`. Rows are
//! matched with agx's records of the `unreach-call` property by `folder/stem`.
//!
//! The peers fix every `__VERIFIER_nondet_*` to one value, so their TRUE on a program with
//! inputs is luck, not proof. Hence two definitions:
//! - a peer *decides* a task when its verdict is correct and, for TRUE, it reported at
//!   least one complete execution (GenMC's "all blocked" TRUE with 0 executions is not an
//!   exploration);
//! - a peer *sets the bar* on a task when it decides it and, for TRUE, the program has no
//!   inputs (no `__VERIFIER_nondet_*` call nor havocked external in its IR): its fixed input
//!   is then no shortcut.
//!
//! The goals, checked per task:
//! - **decide**: on every task some peer sets the bar on, agx is correct within
//!   `2 × (fastest such peer's time) + 0.2 s`; otherwise the task is *missed* (agx not
//!   correct) or *slow*;
//! - **runs**: on every task agx and a peer both decide, agx's runs (full + partial) are no
//!   more than that peer's executions. The peers report *complete* executions and count
//!   the blocked ones apart (Nidhugg's "assume-blocked", GenMC's "blocked": a spin loop
//!   or an `assume` / `abort()` that never let its thread go on); agx counts such runs
//!   among its full runs (`blocked_runs`: a parked wait, or a run a failed `assume` or
//!   `abort()` ended), so the runs are also compared counted the peers' way: agx's
//!   runs less its blocked ones (`runs_above_unblocked`). Partial runs end before the
//!   program does (at a sleep set, which Nidhugg also reports apart as "sleep-set
//!   blocked", or cut by a summary or the slice), so the third count is agx's *complete*
//!   executions alone: full runs less the blocked ones (`runs_above_complete`). The
//!   first count is the conservative one; the last is the peers' own unit.
//!
//! Times: agx's wall time as the bench measured it (the child process, start-up
//! included), the peers' seconds from their TSV.

mod render;

pub use render::render;

use super::median;
use super::results::Record;
use super::verify::Status;
use std::collections::BTreeMap;
use std::path::Path;

/// The slack added to twice the fastest peer's time (start-up of a process).
pub const SLACK_S: f64 = 0.2;
/// How many times the fastest peer's time agx may take.
pub const TIME_FACTOR: f64 = 2.0;

/// A peer's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeerVerdict {
    True,
    False,
    Timeout,
    Error,
}

impl PeerVerdict {
    fn parse(text: &str) -> Option<PeerVerdict> {
        match text {
            "TRUE" => Some(PeerVerdict::True),
            "FALSE" => Some(PeerVerdict::False),
            "TIMEOUT" => Some(PeerVerdict::Timeout),
            "ERROR" => Some(PeerVerdict::Error),
            _ => None,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            PeerVerdict::True => "TRUE",
            PeerVerdict::False => "FALSE",
            PeerVerdict::Timeout => "TIMEOUT",
            PeerVerdict::Error => "ERROR",
        }
    }

    fn as_bool(self) -> Option<bool> {
        match self {
            PeerVerdict::True => Some(true),
            PeerVerdict::False => Some(false),
            PeerVerdict::Timeout | PeerVerdict::Error => None,
        }
    }
}

/// One row of a peer's TSV.
#[derive(Clone, Debug, PartialEq)]
pub struct PeerRow {
    /// `folder/stem`, as agx's records name tasks.
    pub task: String,
    pub expected: Option<bool>,
    pub tool: String,
    pub verdict: PeerVerdict,
    pub seconds: f64,
    /// Complete executions the tool reported (`None` when the column is empty).
    pub executions: Option<u64>,
}

impl PeerRow {
    /// Correct verdict, and for TRUE at least one complete execution.
    pub fn decides(&self) -> bool {
        let correct = self.verdict.as_bool().is_some() && self.verdict.as_bool() == self.expected;
        correct && (self.verdict == PeerVerdict::False || self.executions.unwrap_or(0) > 0)
    }

    /// Decides, and a TRUE holds for every input because the program has none
    /// (`has_inputs` unknown counts as none: the stricter bar).
    pub fn sets_bar(&self, has_inputs: Option<bool>) -> bool {
        self.decides() && (self.verdict == PeerVerdict::False || has_inputs != Some(true))
    }
}

/// Why a peer's TSV cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum PeersError {
    #[error("reading {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Malformed {
        path: String,
        line: usize,
        message: String,
    },
    #[error("no peer results (*.tsv) in {0}")]
    Empty(String),
}

const COLUMNS: [&str; 9] = [
    "folder",
    "stem",
    "expected",
    "tool",
    "verdict",
    "class",
    "seconds",
    "executions",
    "note",
];

/// Parses one peer TSV; `path` names it in errors.
pub fn parse_tsv(text: &str, path: &str) -> Result<Vec<PeerRow>, PeersError> {
    let malformed = |line: usize, message: String| PeersError::Malformed {
        path: path.to_string(),
        line,
        message,
    };
    let mut lines = text.lines().enumerate();
    let header: Vec<&str> = match lines.next() {
        Some((_, h)) => h.split('\t').collect(),
        None => return Err(malformed(1, "empty file (expected a header line)".into())),
    };
    if header.len() < COLUMNS.len() - 1 || header.iter().zip(COLUMNS).any(|(h, c)| *h != c) {
        return Err(malformed(
            1,
            format!("header is not `{}`", COLUMNS.join("\\t")),
        ));
    }
    let mut rows = Vec::new();
    for (index, line) in lines {
        let number = index + 1;
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        if fields.len() < 8 {
            return Err(malformed(
                number,
                format!("{} columns, expected at least 8", fields.len()),
            ));
        }
        let expected = match fields[2] {
            "true" => Some(true),
            "false" => Some(false),
            "" => None,
            other => return Err(malformed(number, format!("expected `{other}`"))),
        };
        let verdict = PeerVerdict::parse(fields[4])
            .ok_or_else(|| malformed(number, format!("verdict `{}`", fields[4])))?;
        let seconds: f64 = fields[6]
            .parse()
            .ok()
            .filter(|s: &f64| s.is_finite() && *s >= 0.0)
            .ok_or_else(|| malformed(number, format!("seconds `{}`", fields[6])))?;
        let executions = match fields[7] {
            "" => None,
            n => Some(
                n.parse()
                    .map_err(|_| malformed(number, format!("executions `{n}`")))?,
            ),
        };
        rows.push(PeerRow {
            task: format!("{}/{}", fields[0], fields[1]),
            expected,
            tool: fields[3].to_string(),
            verdict,
            seconds,
            executions,
        });
    }
    Ok(rows)
}

/// Every `*.tsv` in `dir`, in file-name order.
pub fn load_dir(dir: &Path) -> Result<Vec<PeerRow>, PeersError> {
    let read_error = |source| PeersError::Read {
        path: dir.display().to_string(),
        source,
    };
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(read_error)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "tsv"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(PeersError::Empty(dir.display().to_string()));
    }
    let mut rows = Vec::new();
    for file in files {
        let shown = file.display().to_string();
        let text = std::fs::read_to_string(&file).map_err(|source| PeersError::Read {
            path: shown.clone(),
            source,
        })?;
        rows.extend(parse_tsv(&text, &shown)?);
    }
    Ok(rows)
}

/// Whether the program read by `source` has inputs: a `__VERIFIER_nondet_*` call or an
/// external function whose result is havocked. `None` when it does not lower.
pub fn program_has_inputs(source: &Path, data_model: analysis::ir::DataModel) -> Option<bool> {
    use analysis::ir::StmtKind;
    let opts = analysis::FrontendOptions {
        data_model,
        ..Default::default()
    };
    let program = analysis::load_program(source, &opts).ok()?;
    Some(program.functions.iter().any(|f| {
        f.blocks.iter().any(|b| {
            b.stmts
                .iter()
                .any(|s| matches!(s.kind, StmtKind::Nondet { .. } | StmtKind::Havoc { .. }))
        })
    }))
}

/// The goal on one task, for agx against the peers that set the bar.
#[derive(Clone, Debug, PartialEq)]
pub enum DecideGoal {
    /// No peer sets the bar on the task.
    NoBar,
    Met,
    /// agx is not correct.
    Missed,
    /// agx is correct but slower than the bar (seconds).
    Slow {
        bar_s: f64,
    },
}

/// One task: agx's record and the peers' rows.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskRow {
    pub agx: Record,
    pub has_inputs: Option<bool>,
    /// In the order of [`PeerComparison::tools`]; `None` when the tool has no row.
    pub peers: Vec<Option<PeerRow>>,
    pub decide: DecideGoal,
    /// The tools whose executions agx's runs exceed, with their executions.
    pub runs_above: Vec<(String, u64)>,
    /// The same with agx's runs less those that ended in a blocked wait, which the peers
    /// count apart ([`TaskRow::agx_unblocked_runs`]).
    pub runs_above_unblocked: Vec<(String, u64)>,
    /// The same with agx's complete executions alone: full runs less the blocked ones,
    /// partial runs left out ([`TaskRow::agx_complete_runs`]).
    pub runs_above_complete: Vec<(String, u64)>,
}

impl TaskRow {
    /// Full and partial runs (`None` when verify reported none).
    pub fn agx_runs(&self) -> Option<u64> {
        agx_runs(&self.agx)
    }

    /// Full and partial runs less those that ended with a thread parked in a wait (the
    /// peers' blocked executions), `None` when verify reported no runs.
    pub fn agx_unblocked_runs(&self) -> Option<u64> {
        agx_unblocked_runs(&self.agx)
    }

    /// Full runs less the blocked ones: the executions that ran the program to its end,
    /// as the peers count theirs (`None` when verify reported no runs).
    pub fn agx_complete_runs(&self) -> Option<u64> {
        agx_complete_runs(&self.agx)
    }

    fn agx_decides(&self) -> bool {
        self.agx.outcome.is_correct()
    }
}

fn agx_runs(r: &Record) -> Option<u64> {
    match (r.runs, r.partial_runs) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
    }
}

fn agx_unblocked_runs(r: &Record) -> Option<u64> {
    agx_runs(r).map(|n| n.saturating_sub(r.blocked_runs.unwrap_or(0)))
}

fn agx_complete_runs(r: &Record) -> Option<u64> {
    agx_runs(r).map(|_| {
        r.runs
            .unwrap_or(0)
            .saturating_sub(r.blocked_runs.unwrap_or(0))
    })
}

/// The tools deciding the task whose executions are fewer than `runs`.
fn tools_below(runs: Option<u64>, peers: &[Option<PeerRow>]) -> Vec<(String, u64)> {
    let Some(runs) = runs else {
        return Vec::new();
    };
    peers
        .iter()
        .flatten()
        .filter(|p| p.decides())
        .filter_map(|p| {
            p.executions
                .filter(|e| runs > *e)
                .map(|e| (p.tool.clone(), e))
        })
        .collect()
}

/// The whole comparison.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PeerComparison {
    pub tools: Vec<String>,
    pub rows: Vec<TaskRow>,
    /// agx records of unreach-call with no peer row.
    pub without_peers: Vec<String>,
}

/// Matches agx's unreach-call records with the peers' rows; `has_inputs` says whether a
/// record's program has inputs.
pub fn compare(
    records: &[Record],
    peers: &[PeerRow],
    has_inputs: &dyn Fn(&Record) -> Option<bool>,
) -> PeerComparison {
    let mut tools: Vec<String> = peers.iter().map(|p| p.tool.clone()).collect();
    tools.sort();
    tools.dedup();
    let mut by_task: BTreeMap<&str, Vec<&PeerRow>> = BTreeMap::new();
    for p in peers {
        by_task.entry(p.task.as_str()).or_default().push(p);
    }
    let mut c = PeerComparison {
        tools: tools.clone(),
        ..Default::default()
    };
    for r in records.iter().filter(|r| r.property == "unreach-call") {
        let Some(rows) = by_task.get(r.task.as_str()) else {
            c.without_peers.push(r.display_name());
            continue;
        };
        let peers: Vec<Option<PeerRow>> = tools
            .iter()
            .map(|t| rows.iter().find(|p| &p.tool == t).map(|p| (*p).clone()))
            .collect();
        let inputs = has_inputs(r);
        let row = task_row(r.clone(), inputs, peers);
        c.rows.push(row);
    }
    c
}

fn task_row(agx: Record, has_inputs: Option<bool>, peers: Vec<Option<PeerRow>>) -> TaskRow {
    let fastest_bar = peers
        .iter()
        .flatten()
        .filter(|p| p.sets_bar(has_inputs))
        .map(|p| p.seconds)
        .min_by(f64::total_cmp);
    let agx_s = agx.wall_time_ms as f64 / 1000.0;
    let decide = match fastest_bar {
        None => DecideGoal::NoBar,
        Some(_) if !agx.outcome.is_correct() => DecideGoal::Missed,
        Some(fastest) => {
            let bar_s = TIME_FACTOR * fastest + SLACK_S;
            if agx_s > bar_s {
                DecideGoal::Slow { bar_s }
            } else {
                DecideGoal::Met
            }
        }
    };
    let (runs_above, runs_above_unblocked, runs_above_complete) = if agx.outcome.is_correct() {
        (
            tools_below(agx_runs(&agx), &peers),
            tools_below(agx_unblocked_runs(&agx), &peers),
            tools_below(agx_complete_runs(&agx), &peers),
        )
    } else {
        (Vec::new(), Vec::new(), Vec::new())
    };
    TaskRow {
        agx,
        has_inputs,
        peers,
        decide,
        runs_above,
        runs_above_unblocked,
        runs_above_complete,
    }
}

impl PeerComparison {
    /// Tasks some peer sets the bar on.
    pub fn bar_tasks(&self) -> impl Iterator<Item = &TaskRow> {
        self.rows.iter().filter(|r| r.decide != DecideGoal::NoBar)
    }

    /// Tasks agx and at least one peer decide.
    pub fn both_decided(&self) -> impl Iterator<Item = &TaskRow> {
        self.rows
            .iter()
            .filter(|r| r.agx_decides() && r.peers.iter().flatten().any(PeerRow::decides))
    }

    /// agx's time over the tool's, on the tasks both decide.
    pub fn median_time_ratio(&self, tool: usize) -> Option<f64> {
        let ratios: Vec<f64> = self
            .rows
            .iter()
            .filter(|r| r.agx_decides())
            .filter_map(|r| {
                r.peers[tool]
                    .as_ref()
                    .filter(|p| p.decides())
                    .map(|p| (r, p))
            })
            .filter(|(_, p)| p.seconds > 0.0)
            .map(|(r, p)| r.agx.wall_time_ms as f64 / 1000.0 / p.seconds)
            .collect();
        median(&ratios)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::tests::sample_record;

    const HEADER: &str =
        "folder\tstem\texpected\ttool\tverdict\tclass\tseconds\texecutions\tnote\n";

    fn tsv(rows: &[&str]) -> String {
        let mut text = HEADER.to_string();
        for row in rows {
            text.push_str(row);
            text.push('\n');
        }
        text
    }

    fn agx(task: &str, status: Status, expected: bool, runs: u64, ms: u64) -> Record {
        let mut r = sample_record(task, status, expected);
        r.runs = Some(runs);
        r.partial_runs = Some(0);
        r.wall_time_ms = ms;
        r
    }

    #[test]
    fn parses_rows_and_empty_executions() {
        let rows = parse_tsv(
            &tsv(&[
                "pthread\tbigshot_p\tfalse\tnidhugg\tFALSE\tcorrect false\t0.30\t3\tAssertion",
                "pthread\tbigshot_s\ttrue\tgenmc\tERROR\terror\t0.05\t\tcrash (SIGSEGV): ",
            ]),
            "n.tsv",
        )
        .unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].task, "pthread/bigshot_p");
        assert_eq!(rows[0].verdict, PeerVerdict::False);
        assert_eq!(rows[0].executions, Some(3));
        assert_eq!(rows[0].expected, Some(false));
        assert_eq!(rows[1].executions, None);
        assert_eq!(rows[1].tool, "genmc");
    }

    #[test]
    fn malformed_rows_name_file_and_line() {
        let bad_verdict = tsv(&["p\ta\ttrue\tx\tMAYBE\t\t0.1\t1\t"]);
        let e = parse_tsv(&bad_verdict, "x.tsv").unwrap_err().to_string();
        assert_eq!(e, "x.tsv:2: verdict `MAYBE`");
        let bad_seconds = tsv(&["p\ta\ttrue\tx\tTRUE\t\tsoon\t1\t"]);
        let e = parse_tsv(&bad_seconds, "x.tsv").unwrap_err().to_string();
        assert_eq!(e, "x.tsv:2: seconds `soon`");
        let e = parse_tsv("task\tverdict\n", "y.tsv")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("y.tsv:1: header is not"), "{e}");
        let e = parse_tsv("", "z.tsv").unwrap_err().to_string();
        assert!(e.starts_with("z.tsv:1: empty file"), "{e}");
    }

    #[test]
    fn a_true_without_executions_or_on_inputs_sets_no_bar() {
        let rows = parse_tsv(
            &tsv(&[
                "p\tblocked\ttrue\tgenmc\tTRUE\tcorrect true\t0.1\t0\t",
                "p\tlucky\ttrue\tgenmc\tTRUE\tcorrect true\t0.1\t4\t",
                "p\twrong\tfalse\tgenmc\tTRUE\twrong true\t0.1\t4\t",
                "p\tbug\tfalse\tgenmc\tFALSE\tcorrect false\t0.1\t1\t",
            ]),
            "g.tsv",
        )
        .unwrap();
        assert!(!rows[0].decides());
        assert!(rows[1].decides());
        assert!(!rows[1].sets_bar(Some(true)));
        assert!(rows[1].sets_bar(Some(false)));
        assert!(rows[1].sets_bar(None), "unknown inputs: the stricter bar");
        assert!(!rows[2].decides());
        assert!(
            rows[3].sets_bar(Some(true)),
            "a real bug is found for any input"
        );
    }

    #[test]
    fn partial_runs_are_not_complete_executions() {
        let peers = parse_tsv(
            &tsv(&["p\tcut\tfalse\tnidhugg\tFALSE\tcorrect false\t1.0\t3\t"]),
            "n.tsv",
        )
        .unwrap();
        // 2 full runs (1 blocked) and 6 partial ones against Nidhugg's 3 executions.
        let mut cut = agx("p/cut", Status::False, false, 2, 100);
        cut.partial_runs = Some(6);
        let c = compare(&[cut], &peers, &|_| Some(false));
        let row = &c.rows[0];
        assert_eq!(row.agx_runs(), Some(8));
        assert_eq!(row.agx_unblocked_runs(), Some(7));
        assert_eq!(row.agx_complete_runs(), Some(1));
        assert_eq!(row.runs_above, vec![("nidhugg".to_string(), 3)]);
        assert_eq!(row.runs_above_unblocked, vec![("nidhugg".to_string(), 3)]);
        assert!(row.runs_above_complete.is_empty());
        let text = render(&c);
        assert!(
            text.contains("its 6 partial runs ended early") && text.contains("): above on 0\n"),
            "{text}"
        );
    }

    fn sample_comparison() -> PeerComparison {
        let peers = [
            parse_tsv(
                &tsv(&[
                    "p\tmet\tfalse\tnidhugg\tFALSE\tcorrect false\t1.0\t5\t",
                    "p\tslow\ttrue\tnidhugg\tTRUE\tcorrect true\t0.1\t2\t",
                    "p\tmissed\tfalse\tnidhugg\tFALSE\tcorrect false\t0.2\t1\t",
                    "p\tinputs\ttrue\tnidhugg\tTRUE\tcorrect true\t0.1\t2\t",
                    "p\tagx-only\ttrue\tnidhugg\tTIMEOUT\ttimeout\t30.0\t\t",
                ]),
                "n.tsv",
            )
            .unwrap(),
            parse_tsv(
                &tsv(&[
                    "p\tmet\tfalse\tgenmc\tFALSE\tcorrect false\t0.5\t20\t",
                    "p\tslow\ttrue\tgenmc\tTRUE\tcorrect true\t0.3\t0\t",
                ]),
                "g.tsv",
            )
            .unwrap(),
        ]
        .concat();
        let records = vec![
            // 1.1 s <= 2 * 0.5 + 0.2; 10 runs above nidhugg's 5, not genmc's 20.
            agx("p/met", Status::False, false, 10, 1100),
            // bar 2 * 0.1 + 0.2 = 0.4 s (genmc's TRUE has no execution: no bar, no runs).
            agx("p/slow", Status::True, true, 2, 500),
            agx("p/missed", Status::Timeout, false, 7, 30_000),
            // Input-dependent: nidhugg's TRUE sets no bar, but its executions count.
            agx("p/inputs", Status::True, true, 3, 9000),
            agx("p/agx-only", Status::True, true, 1, 100),
            agx("p/no-peer", Status::True, true, 1, 100),
        ];
        compare(&records, &peers, &|r| Some(r.task == "p/inputs"))
    }

    #[test]
    fn goals_per_task() {
        let c = sample_comparison();
        assert_eq!(c.tools, vec!["genmc", "nidhugg"]);
        assert_eq!(c.without_peers, vec!["p/no-peer"]);
        let row = |task: &str| c.rows.iter().find(|r| r.agx.task == task).unwrap();
        assert_eq!(row("p/met").decide, DecideGoal::Met);
        assert_eq!(row("p/met").runs_above, vec![("nidhugg".to_string(), 5)]);
        assert_eq!(
            row("p/met").runs_above_unblocked,
            vec![("nidhugg".to_string(), 5)],
            "10 runs, 1 blocked: 9 still above 5"
        );
        // 3 runs of which 1 ended in a blocked wait: above nidhugg's 2 complete
        // executions, but not less the blocked ones.
        assert_eq!(row("p/inputs").agx.blocked_runs, Some(1));
        assert_eq!(row("p/inputs").agx_unblocked_runs(), Some(2));
        assert!(row("p/inputs").runs_above_unblocked.is_empty());
        assert!(
            matches!(row("p/slow").decide, DecideGoal::Slow { bar_s } if (bar_s - 0.4).abs() < 1e-9)
        );
        assert!(row("p/slow").runs_above.is_empty());
        assert_eq!(row("p/missed").decide, DecideGoal::Missed);
        assert!(row("p/missed").runs_above.is_empty(), "agx did not decide");
        assert_eq!(row("p/inputs").decide, DecideGoal::NoBar);
        assert_eq!(row("p/inputs").runs_above, vec![("nidhugg".to_string(), 2)]);
        assert_eq!(row("p/agx-only").decide, DecideGoal::NoBar);
        assert_eq!(c.bar_tasks().count(), 3);
        assert_eq!(c.both_decided().count(), 3);
        // agx/genmc on p/met only: 1.1 / 0.5.
        assert_eq!(c.median_time_ratio(0), Some(2.2));
    }

    #[test]
    fn report_lists_the_goals() {
        let text = render(&sample_comparison());
        assert!(text.contains(
            "GOAL decide: 3 tasks a peer decides correctly (FALSE, or TRUE from at least one \
             execution of a program without inputs); agx meets 1"
        ));
        assert!(text.contains("  missed: p/missed\n"), "{text}");
        assert!(text.contains("  slower: p/slow\n"), "{text}");
        assert!(text.contains("agx decides 1 tasks no peer decides: p/agx-only"));
        insta::assert_snapshot!(text);
    }

    fn fixture(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/verify")
            .join(name)
    }

    #[test]
    fn inputs_are_nondet_calls_not_declarations() {
        use analysis::ir::DataModel;
        assert_eq!(
            program_has_inputs(&fixture("input_bug.c"), DataModel::Ilp32),
            Some(true)
        );
        assert_eq!(
            program_has_inputs(&fixture("race_counter.c"), DataModel::Ilp32),
            Some(false)
        );
        assert_eq!(
            program_has_inputs(&fixture("no_such_file.c"), DataModel::Ilp32),
            None
        );
        let dir = tempfile::tempdir().unwrap();
        let declared_only = dir.path().join("declared.i");
        std::fs::write(
            &declared_only,
            "extern int __VERIFIER_nondet_int(void);\nint main(void) { return 0; }\n",
        )
        .unwrap();
        assert_eq!(
            program_has_inputs(&declared_only, DataModel::Ilp32),
            Some(false)
        );
    }
}
