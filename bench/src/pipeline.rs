//! `agx bench --pipeline`: the stages of `agx hunt --stages` against `agx verify` on
//! programs with a bug (issue 12): the expected-false unreach-call tasks, and C files
//! named on the command line without `// agx-verify:` directives (taken as having one,
//! such as `fixtures/predict/{reorder_10,reorder_20,twostage_100}.c`).
//!
//! Per task, under the plan's limits, one child per column:
//!
//! ```text
//! agx hunt SOURCE --assertions --first --format json --jobs 1 --timeout T --stages pct --pct-runs N
//! agx hunt SOURCE ... --stages predict --pct-runs N      (prediction from N PCT runs' traces)
//! agx hunt SOURCE ... --stages pct,predict,search        (the whole pipeline)
//! agx verify SOURCE --no-store --format json --timeout T
//! ```
//!
//! for N = 1, 10, 100. A cell is found (exit 1: some goal confirmed, or a violation) with
//! the child's wall-clock time, front end included. A hunt reports only confirmations
//! whose witnesses replayed, and verify only violations that did, so a found cell is a
//! real bug.

use super::child::Finished;
use super::report::{seconds, Table};
use super::run::{millis, NotRun, Plan};
use super::task::Task;
use super::verify::data_model_flag;
use std::fmt::Write as _;
use std::process::Command;

/// PCT runs of the `pct` and `predict` columns.
pub const RUNS: [u64; 3] = [1, 10, 100];

/// The goal of issue 12: each bug found in under this many milliseconds.
pub const GOAL_MS: u64 = 10_000;

/// One column: its header and the `agx hunt` arguments after the common ones, or `None`
/// for `agx verify`.
pub struct Column {
    pub header: String,
    pub hunt_args: Option<Vec<String>>,
}

/// The columns, in table order.
pub fn columns() -> Vec<Column> {
    let hunt = |header: String, args: &[&str]| Column {
        header,
        hunt_args: Some(args.iter().map(|a| a.to_string()).collect()),
    };
    let mut out = Vec::new();
    for stage in ["pct", "predict"] {
        for n in RUNS {
            let runs = n.to_string();
            out.push(hunt(
                format!("{stage}×{n}"),
                &["--stages", stage, "--pct-runs", &runs],
            ));
        }
    }
    out.push(hunt("pipeline".into(), &["--stages", "pct,predict,search"]));
    out.push(Column {
        header: "verify".into(),
        hunt_args: None,
    });
    out
}

/// What one child showed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    pub found: bool,
    pub wall_ms: u64,
    /// Why the child has no usable end (could not start, killed), if so.
    pub problem: Option<String>,
}

/// One task's row.
#[derive(Clone, Debug)]
pub struct Row {
    pub task: String,
    pub cells: Vec<Cell>,
}

/// The command of `column` on `source`.
pub fn command(plan: &Plan, task: &Task, source: &std::path::Path, column: &Column) -> Command {
    let mut c = Command::new(&plan.program);
    let model = data_model_flag(task.data_model);
    let timeout = plan.timeout_secs.to_string();
    match &column.hunt_args {
        Some(args) => {
            c.arg("hunt").arg(source).args([
                "--assertions",
                "--first",
                "--format",
                "json",
                "--jobs",
                "1",
                "--data-model",
                model,
                "--timeout",
                &timeout,
                // The limit is the whole command's: hunt's --timeout is per goal.
                "--total-timeout",
                &timeout,
            ]);
            c.args(args);
        }
        None => {
            c.arg("verify").arg(source).args([
                "--no-store",
                "--format",
                "json",
                "--data-model",
                model,
                "--timeout",
                &timeout,
            ]);
        }
    }
    c
}

/// A finished child's cell: found when it exited 1 (the exit code every command gives a
/// found violation).
pub fn cell(finished: &Finished) -> Cell {
    let (code, signal) = finished.exit_code_and_signal();
    Cell {
        found: code == Some(1),
        wall_ms: millis(finished.wall),
        problem: signal.map(|s| format!("signal {s}")),
    }
}

/// Runs every column on one task; `None` when the bench was interrupted.
pub fn run_one(task: &Task, plan: &Plan) -> Option<Row> {
    let mut cells = Vec::new();
    for column in columns() {
        let c = match &task.source {
            Err(reason) => Cell {
                found: false,
                wall_ms: 0,
                problem: Some(reason.clone()),
            },
            Ok(source) => match plan.run_child(command(plan, task, source, &column)) {
                Ok(finished) => cell(&finished),
                Err(NotRun::Failed(reason)) => Cell {
                    found: false,
                    wall_ms: 0,
                    problem: Some(reason),
                },
                Err(NotRun::Interrupted) => return None,
            },
        };
        cells.push(c);
    }
    Some(Row {
        task: task.id.clone(),
        cells,
    })
}

/// The table: per task, each column's time with `✓` when it found the bug, `-` when
/// not; then per column how many bugs it found and how many in under 10 s.
pub fn render(rows: &[Row]) -> String {
    let columns = columns();
    let mut header = vec!["task"];
    header.extend(columns.iter().map(|c| c.header.as_str()));
    let mut table = Table::new(&header);
    for r in rows {
        let mut line = vec![r.task.clone()];
        line.extend(r.cells.iter().map(|c| match (&c.problem, c.found) {
            (Some(p), _) => format!("! {p}"),
            (None, true) => format!("✓ {}", seconds(c.wall_ms)),
            (None, false) => format!("- {}", seconds(c.wall_ms)),
        }));
        table.row(line);
    }
    let count = |pick: &dyn Fn(&Cell) -> bool| -> Vec<String> {
        (0..columns.len())
            .map(|i| {
                rows.iter()
                    .filter(|r| r.cells.get(i).is_some_and(pick))
                    .count()
                    .to_string()
            })
            .collect()
    };
    let mut found = vec!["found".to_string()];
    found.extend(count(&|c| c.found));
    table.row(found);
    let mut fast = vec![format!("found < {}", seconds(GOAL_MS))];
    fast.extend(count(&|c| c.found && c.wall_ms < GOAL_MS));
    table.row(fast);
    let right: Vec<usize> = (1..=columns.len()).collect();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "pipeline: {} task(s) with a bug; ✓ found (time of the child, front end included), \
         - not found",
        rows.len()
    );
    s.push_str(&table.render(&right));
    let pipeline = columns.len() - 2;
    let missed: Vec<&str> = rows
        .iter()
        .filter(|r| {
            let found_by_any = r.cells.iter().any(|c| c.found);
            let fast = r.cells[pipeline].found && r.cells[pipeline].wall_ms < GOAL_MS;
            found_by_any && !fast
        })
        .map(|r| r.task.as_str())
        .collect();
    let _ = writeln!(
        s,
        "goal (issue 12): every bug found by some column, found by the pipeline in under {}: \
         {}",
        seconds(GOAL_MS),
        if missed.is_empty() {
            "met".to_string()
        } else {
            format!("missed on {}", missed.join(", "))
        }
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(task: &str, found: &[bool], ms: u64) -> Row {
        Row {
            task: task.into(),
            cells: found
                .iter()
                .map(|&f| Cell {
                    found: f,
                    wall_ms: ms,
                    problem: None,
                })
                .collect(),
        }
    }

    #[test]
    fn the_columns_are_pct_and_predict_by_runs_then_the_pipeline_and_verify() {
        let headers: Vec<String> = columns().into_iter().map(|c| c.header).collect();
        assert_eq!(
            headers,
            [
                "pct×1",
                "pct×10",
                "pct×100",
                "predict×1",
                "predict×10",
                "predict×100",
                "pipeline",
                "verify"
            ]
        );
    }

    #[test]
    fn the_table_counts_finds_and_names_the_tasks_that_miss_the_goal() {
        let rows = [
            row("a", &[true, true, true, true, true, true, true, false], 500),
            row(
                "b",
                &[false, false, false, false, false, false, false, true],
                20_000,
            ),
        ];
        let text = render(&rows);
        assert!(text.contains("✓ 0.50s"), "{text}");
        assert!(text.contains("missed on b"), "{text}");
        let found = text
            .lines()
            .find(|l| l.trim_start().starts_with("found "))
            .unwrap();
        assert!(
            found
                .split_whitespace()
                .skip(1)
                .eq(["1", "1", "1", "1", "1", "1", "1", "1"]),
            "{found}"
        );
    }
}
