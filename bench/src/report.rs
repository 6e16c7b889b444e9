//! The terminal report of a bench run.
//!
//! Sections, in order: wrong verdicts (always first, "none" when there are none),
//! definitions that could not be read, the per-task table, the per-folder table of each
//! strategy with the SV-COMP score, and per strategy the medians of time and runs; with
//! several strategies, per task the ratios of runs and time to the first strategy.
//!
//! Medians of runs and time are over the tasks the strategy decided (TRUE or FALSE): a
//! timeout's time is the limit, not a measurement of the strategy. Ratios are over the
//! tasks both strategies decided.

use super::median;
use super::results::{Record, Results, DEFAULT_STRATEGY};
use super::score::{Correctness, Tally};
use super::verify::Status;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The whole report.
pub fn render(results: &Results, problems: &[String], show_tasks: bool) -> String {
    let mut out = String::new();
    wrong_verdicts(&mut out, &results.records);
    disputed_verdicts(&mut out, &results.records);
    if !problems.is_empty() {
        let _ = writeln!(out, "\nDEFINITIONS NOT READ ({})", problems.len());
        for p in problems {
            let _ = writeln!(out, "  {p}");
        }
    }
    if show_tasks {
        tasks(&mut out, &results.records);
    }
    for strategy in &results.settings.strategies {
        let records: Vec<&Record> = results
            .records
            .iter()
            .filter(|r| &r.strategy == strategy)
            .collect();
        folders(&mut out, strategy, &records);
    }
    strategies(&mut out, results);
    if results.settings.strategies.len() > 1 {
        ratios(&mut out, results);
    }
    out
}

/// Every wrong verdict, or "none".
fn wrong_verdicts(out: &mut String, records: &[Record]) {
    let wrong: Vec<&Record> = records.iter().filter(|r| r.outcome.is_wrong()).collect();
    if wrong.is_empty() {
        let _ = writeln!(out, "WRONG VERDICTS: none");
        return;
    }
    let _ = writeln!(out, "WRONG VERDICTS ({})", wrong.len());
    let mut table = Table::new(&["task", "expected", "got", "strategy", "score", "source"]);
    for r in wrong {
        table.row(vec![
            r.display_name(),
            expected_label(r.expected).to_string(),
            r.status.label().to_string(),
            r.strategy.clone(),
            r.score.to_string(),
            r.source.clone().unwrap_or_default(),
        ]);
    }
    out.push_str(&table.render(&[4]));
}

/// Every verdict against a disputed expectation, with the project's reason.
fn disputed_verdicts(out: &mut String, records: &[Record]) {
    let disputed: Vec<&Record> = records
        .iter()
        .filter(|r| r.outcome == Correctness::Disputed)
        .collect();
    if disputed.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\nDISPUTED EXPECTATIONS ({}): not scored; see bench/src/disputed.rs",
        disputed.len()
    );
    for r in disputed {
        let _ = writeln!(
            out,
            "  {} expected {}, got {}",
            r.display_name(),
            expected_label(r.expected),
            r.status.label()
        );
        if let Some(d) = crate::disputed::find(&r.task, &r.property) {
            let _ = writeln!(out, "    why: {}", d.reason);
        }
    }
}

/// One row per record.
fn tasks(out: &mut String, records: &[Record]) {
    let _ = writeln!(out, "\nTASKS ({})", records.len());
    let mut table = Table::new(&[
        "task", "expected", "strategy", "got", "", "runs", "partial", "states", "queries", "time",
        "memory", "reason",
    ]);
    for r in records {
        table.row(vec![
            r.display_name(),
            expected_label(r.expected).to_string(),
            strategy_shown(r),
            r.status.label().to_string(),
            mark(r).to_string(),
            opt(r.runs),
            opt(r.partial_runs),
            opt(r.states),
            opt(r.solver_queries),
            seconds(r.wall_time_ms),
            r.peak_memory_kib.map(mebibytes).unwrap_or_default(),
            shorten(r.reason.as_deref().unwrap_or(""), 60),
        ]);
    }
    out.push_str(&table.render(&[5, 6, 7, 8, 9, 10]));
}

/// The strategy asked for, or the one verify reports having used for its default.
fn strategy_shown(r: &Record) -> String {
    match &r.strategy_used {
        Some(used) if r.strategy == DEFAULT_STRATEGY => used.clone(),
        _ => r.strategy.clone(),
    }
}

/// Per-folder counts and score of one strategy, and the total.
fn folders(out: &mut String, strategy: &str, records: &[&Record]) {
    let mut per_folder: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut total = Tally::default();
    for r in records {
        per_folder
            .entry(&r.folder)
            .or_default()
            .add(r.outcome, r.status);
        total.add(r.outcome, r.status);
    }
    let _ = writeln!(out, "\nFOLDERS (strategy {strategy})");
    let mut table = Table::new(&[
        "folder", "tasks", "correct", "c.true", "c.false", "wrong", "w.true", "w.false", "unknown",
        "error", "timeout", "memout", "unsupp.", "n/s", "disp.", "score",
    ]);
    for (folder, tally) in per_folder.iter().chain([(&"TOTAL", &total)]) {
        table.row(tally_row(folder, tally));
    }
    out.push_str(&table.render(&(1..16).collect::<Vec<_>>()));
    let _ = writeln!(
        out,
        "  (unsupp. = unsupported construct, n/s = property not supported, disp. = disputed \
         expectation; none is scored)"
    );
}

fn tally_row(name: &str, t: &Tally) -> Vec<String> {
    vec![
        name.to_string(),
        t.tasks.to_string(),
        t.correct().to_string(),
        t.correct_true.to_string(),
        t.correct_false.to_string(),
        t.wrong().to_string(),
        t.wrong_true.to_string(),
        t.wrong_false.to_string(),
        (t.unknown + t.no_expectation).to_string(),
        t.error.to_string(),
        t.timeout.to_string(),
        t.out_of_memory.to_string(),
        t.unsupported.to_string(),
        t.not_supported.to_string(),
        t.disputed.to_string(),
        t.score.to_string(),
    ]
}

/// Per strategy: score, counts, medians of time and runs over decided tasks.
fn strategies(out: &mut String, results: &Results) {
    let _ = writeln!(out, "\nSTRATEGIES (medians over decided tasks)");
    let mut table = Table::new(&[
        "strategy",
        "score",
        "correct",
        "wrong",
        "decided",
        "median time",
        "median runs",
        "median states",
    ]);
    for strategy in &results.settings.strategies {
        let mut tally = Tally::default();
        let mut times = Vec::new();
        let mut runs = Vec::new();
        let mut states = Vec::new();
        for r in results.records.iter().filter(|r| &r.strategy == strategy) {
            tally.add(r.outcome, r.status);
            if decided(r) {
                times.push(r.wall_time_ms as f64);
                runs.extend(r.runs.map(|v| v as f64));
                states.extend(r.states.map(|v| v as f64));
            }
        }
        table.row(vec![
            strategy.clone(),
            tally.score.to_string(),
            tally.correct().to_string(),
            tally.wrong().to_string(),
            times.len().to_string(),
            median(&times)
                .map(|ms| seconds(ms.round() as u64))
                .unwrap_or_else(|| "-".into()),
            median(&runs).map(number).unwrap_or_else(|| "-".into()),
            median(&states).map(number).unwrap_or_else(|| "-".into()),
        ]);
    }
    out.push_str(&table.render(&[1, 2, 3, 4, 5, 6, 7]));
}

/// Per task, runs and time of each further strategy relative to the first one.
fn ratios(out: &mut String, results: &Results) {
    let strategies = &results.settings.strategies;
    let base = &strategies[0];
    let by_key: BTreeMap<(String, String, String), &Record> =
        results.records.iter().map(|r| (r.key(), r)).collect();
    let mut seen = std::collections::HashSet::new();
    let tasks: Vec<(String, String)> = results
        .records
        .iter()
        .map(|r| (r.task.clone(), r.property.clone()))
        .filter(|key| seen.insert(key.clone()))
        .collect();
    for other in &strategies[1..] {
        let _ = writeln!(
            out,
            "\nRATIOS {other} / {base} (tasks both decided; < 1 means {other} did less)"
        );
        let mut table = Table::new(&[
            "task",
            &format!("runs {base}"),
            &format!("runs {other}"),
            "runs ratio",
            &format!("time {base}"),
            &format!("time {other}"),
            "time ratio",
        ]);
        let mut run_ratios = Vec::new();
        let mut time_ratios = Vec::new();
        for (task, property) in &tasks {
            let key = |s: &String| (task.clone(), property.clone(), s.clone());
            let (Some(a), Some(b)) = (by_key.get(&key(base)), by_key.get(&key(other))) else {
                continue;
            };
            if !decided(a) || !decided(b) {
                continue;
            }
            let run_ratio = ratio(a.runs.map(|v| v as f64), b.runs.map(|v| v as f64));
            let time_ratio = ratio(Some(a.wall_time_ms as f64), Some(b.wall_time_ms as f64));
            run_ratios.extend(run_ratio);
            time_ratios.extend(time_ratio);
            table.row(vec![
                a.display_name(),
                opt(a.runs),
                opt(b.runs),
                run_ratio.map(ratio_text).unwrap_or_else(|| "-".into()),
                seconds(a.wall_time_ms),
                seconds(b.wall_time_ms),
                time_ratio.map(ratio_text).unwrap_or_else(|| "-".into()),
            ]);
        }
        table.row(vec![
            "MEDIAN".into(),
            String::new(),
            String::new(),
            median(&run_ratios)
                .map(ratio_text)
                .unwrap_or_else(|| "-".into()),
            String::new(),
            String::new(),
            median(&time_ratios)
                .map(ratio_text)
                .unwrap_or_else(|| "-".into()),
        ]);
        out.push_str(&table.render(&[1, 2, 3, 4, 5, 6]));
    }
}

fn decided(r: &Record) -> bool {
    matches!(r.status, Status::True | Status::False)
}

/// `new / old`, `None` when either is missing or `old` is zero.
pub fn ratio(old: Option<f64>, new: Option<f64>) -> Option<f64> {
    match (old, new) {
        (Some(old), Some(new)) if old > 0.0 => Some(new / old),
        _ => None,
    }
}

pub fn ratio_text(r: f64) -> String {
    format!("{r:.2}x")
}

/// `TRUE` / `FALSE` for the verdict expected, `-` for none.
pub fn expected_label(expected: Option<bool>) -> &'static str {
    match expected {
        Some(true) => "TRUE",
        Some(false) => "FALSE",
        None => "-",
    }
}

/// `ok` for a correct verdict, `WRONG` for a wrong one, `disputed` against a disputed
/// expectation, blank otherwise.
fn mark(r: &Record) -> &'static str {
    if r.outcome.is_correct() {
        "ok"
    } else if r.outcome.is_wrong() {
        "WRONG"
    } else if r.outcome == Correctness::Disputed {
        "disputed"
    } else {
        ""
    }
}

fn opt(v: Option<u64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_else(|| "-".into())
}

pub fn seconds(ms: u64) -> String {
    format!("{:.2}s", ms as f64 / 1000.0)
}

fn mebibytes(kib: u64) -> String {
    format!("{}M", kib.div_ceil(1024))
}

fn number(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

fn shorten(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or("");
    if line.chars().count() <= max {
        line.to_string()
    } else {
        let cut: String = line.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}

/// A plain text table with columns sized to their content.
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(header: &[&str]) -> Table {
        Table {
            header: header.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    /// The table, two spaces of indent, `right` the indices of right-aligned columns.
    pub fn render(&self, right: &[usize]) -> String {
        let columns = self.header.len();
        let mut widths = vec![0; columns];
        for row in std::iter::once(&self.header).chain(&self.rows) {
            for (i, cell) in row.iter().enumerate().take(columns) {
                widths[i] = widths[i].max(cell.chars().count());
            }
        }
        let mut out = String::new();
        for row in std::iter::once(&self.header).chain(&self.rows) {
            let mut line = String::from(" ");
            for (i, width) in widths.iter().enumerate() {
                let cell = row.get(i).map(String::as_str).unwrap_or("");
                let pad = width - cell.chars().count();
                line.push(' ');
                if right.contains(&i) {
                    line.push_str(&" ".repeat(pad));
                    line.push_str(cell);
                } else {
                    line.push_str(cell);
                    line.push_str(&" ".repeat(pad));
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::tests::{sample_record, sample_results};

    #[test]
    fn wrong_verdicts_come_first() {
        let mut results = sample_results(vec![
            sample_record("pthread/ok", Status::True, true),
            sample_record("pthread-atomic/bad", Status::True, false),
        ]);
        results.settings.strategies = vec!["dpor".into()];
        let text = render(&results, &["x.yml: not a task definition".into()], true);
        assert!(text.starts_with("WRONG VERDICTS (1)\n"), "{text}");
        let wrong = text.find("pthread-atomic/bad").unwrap();
        let tasks = text.find("TASKS").unwrap();
        assert!(wrong < tasks);
        insta::assert_snapshot!(text);
    }

    #[test]
    fn a_disputed_verdict_is_listed_apart_with_its_reason() {
        let mut lamport = sample_record("pthread-atomic/lamport", Status::False, true);
        lamport.property = "no-data-race".into();
        lamport.outcome =
            Correctness::judge(&lamport.task, &lamport.property, Some(true), Status::False);
        lamport.score = lamport.outcome.score();
        let mut results = sample_results(vec![lamport]);
        results.settings.strategies = vec!["dpor".into()];
        let text = render(&results, &[], true);
        assert!(text.starts_with("WRONG VERDICTS: none\n"), "{text}");
        assert!(text.contains("DISPUTED EXPECTATIONS (1)"), "{text}");
        assert!(
            text.contains("pthread-atomic/lamport [no-data-race] expected TRUE, got FALSE"),
            "{text}"
        );
        assert!(text.contains("why: thr1's plain read"), "{text}");
    }

    #[test]
    fn no_wrong_verdicts_says_none() {
        let results = sample_results(vec![sample_record("a/b", Status::False, false)]);
        assert!(render(&results, &[], false).starts_with("WRONG VERDICTS: none\n"));
    }

    #[test]
    fn strategies_side_by_side() {
        let mut records = Vec::new();
        for (task, runs_a, runs_b) in [("p/a", 10, 5), ("p/b", 8, 8), ("p/c", 4, 1)] {
            let mut a = sample_record(task, Status::False, false);
            a.strategy = "baseline".into();
            a.runs = Some(runs_a);
            a.wall_time_ms = 100;
            let mut b = sample_record(task, Status::False, false);
            b.strategy = "dpor".into();
            b.runs = Some(runs_b);
            b.wall_time_ms = 50;
            records.extend([a, b]);
        }
        let mut results = sample_results(records);
        results.settings.strategies = vec!["baseline".into(), "dpor".into()];
        let text = render(&results, &[], false);
        let section = &text[text.find("RATIOS dpor / baseline").unwrap()..];
        // runs ratios 0.5, 1.0, 0.25: median 0.5; time ratios all 0.5.
        let median_line = section.lines().find(|l| l.contains("MEDIAN")).unwrap();
        assert!(median_line.contains("0.50x"), "{median_line}");
        assert!(!median_line.contains("1.00x"), "{median_line}");
        insta::assert_snapshot!(text);
    }
}
