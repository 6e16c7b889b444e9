//! `agx bench --paper-table2`: agx's baseline, dpor and dpor+ag next to Table 2 of the
//! assertion-guided paper (../shared/papers/assertion-guided-symbolic-execution.md, §7:
//! "Summary of our experimental results", columns Cloud9 / +DPOR / +DPOR+AG, runs and
//! time in seconds, 30-minute limit).
//!
//! Two tables, kept apart so that the first can be checked against the paper line by line:
//! - [`TABLE2`]: the paper's numbers, row by row, in the paper's order and spelling;
//! - [`MAPPING`]: for each row, the SV-COMP task of ../shared/svcomp that corresponds to
//!   it, or `None`, with the reason. The paper ran the 2014 SV-COMP programs (and some from
//!   its references [14, 29]) with its own parameters; today's corpus fixes one
//!   parameterisation per program, so a mapping is approximate and its note says how
//!   (thread counts, loop bounds). Each row maps to one task with the row's expected
//!   verdict (`false`/`bad` rows to expected-false tasks, `true` rows to expected-true ones).
//!
//! The goal per mapped row ([`goal`]): dpor+ag decides the task correctly, with
//! at most the paper's +DPOR+AG runs, in under 10 s of wall-clock time. Our runs are
//! counted as full + partial runs (every run started, pruned or not), which is the
//! conservative reading of the paper's "runs".

use super::report::{seconds, Table};
use super::results::{Goal, PaperCell, Record, RowResult};
use super::verify::Status;
use std::fmt::Write as _;
use std::path::Path;

/// The three strategies of the comparison, in the paper's column order.
pub const STRATEGIES: [&str; 3] = ["baseline", "dpor", "dpor+ag"];

/// The paper's column headings for [`STRATEGIES`], as the comparison prints them.
pub const PAPER_COLUMNS: [&str; 3] = ["paper Cloud9", "paper +DPOR", "paper +DPOR+AG"];

/// The wall-clock time under which a row meets the goal.
pub const GOAL_TIME_MS: u64 = 10_000;

/// One row of the paper's Table 2.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PaperRow {
    pub name: &'static str,
    pub loc: u32,
    pub threads: u32,
    /// Cloud9, +DPOR, +DPOR+AG.
    pub cells: [PaperCell; 3],
}

const fn row(name: &'static str, loc: u32, threads: u32, cells: [PaperCell; 3]) -> PaperRow {
    PaperRow {
        name,
        loc,
        threads,
        cells,
    }
}

const fn d(runs: u64, time_s: f64) -> PaperCell {
    PaperCell::Finished { runs, time_s }
}

const T: PaperCell = PaperCell::TimedOut;

/// Table 2 of the paper, as printed: name, LOC, threads, then (runs, seconds) of Cloud9
/// (Algorithm 1), +DPOR and +DPOR+AG. `T` is "— / >1800".
pub const TABLE2: [PaperRow; 50] = [
    row(
        "fibbenchfalse1",
        44,
        2,
        [d(924, 61.4), d(48, 2.0), d(15, 1.8)],
    ),
    row("fibbenchfalse2", 44, 2, [T, d(628, 36.2), d(34, 3.9)]),
    row("fibbenchfalse3", 44, 2, [T, d(8704, 503.8), d(378, 13.7)]),
    row("indexertrue", 85, 2, [T, d(81, 2.8), d(24, 6.0)]),
    row("lazy01false", 51, 3, [d(11, 0.5), d(3, 0.3), d(3, 1.1)]),
    row("reorder2false1a", 85, 2, [d(7, 0.3), d(3, 0.3), d(3, 1.2)]),
    row(
        "reorder2false1b",
        85,
        3,
        [d(91, 1.4), d(26, 0.6), d(9, 1.2)],
    ),
    row(
        "reorder2false1c",
        85,
        4,
        [d(2421, 89.1), d(205, 3.2), d(39, 1.6)],
    ),
    row(
        "reorder2false2a",
        85,
        2,
        [d(23, 0.6), d(14, 0.5), d(14, 1.5)],
    ),
    row(
        "reorder2false2b",
        85,
        3,
        [d(479, 8.9), d(233, 5.0), d(64, 2.2)],
    ),
    row("sigmafalse1", 49, 2, [d(12, 0.4), d(6, 0.3), d(2, 1.2)]),
    row("sigmafalse2", 49, 3, [d(180, 3.2), d(50, 1.0), d(2, 1.2)]),
    row(
        "sigmafalse3",
        49,
        4,
        [d(4830, 222.4), d(862, 18.6), d(2, 1.2)],
    ),
    row(
        "singletonfalse",
        57,
        4,
        [d(60, 1.1), d(24, 0.6), d(19, 1.1)],
    ),
    row("stackfalse", 120, 2, [d(527, 8.6), d(236, 3.9), d(49, 2.8)]),
    row("stateful01true", 55, 2, [d(6, 0.4), d(6, 0.4), d(5, 1.2)]),
    row(
        "twostage3false",
        129,
        3,
        [d(4862, 302.1), d(88, 1.1), d(34, 2.2)],
    ),
    row("dekkertrue", 55, 2, [T, d(280, 3.6), d(6, 1.5)]),
    row("petersontrue1", 43, 2, [T, d(1052, 22.7), d(64, 2.7)]),
    row("petersontrue2", 43, 2, [T, d(2566, 86.6), d(85, 8.1)]),
    row("readwriteltrue1", 52, 2, [d(24, 0.6), d(4, 0.3), d(4, 1.1)]),
    row("readwriteltrue2", 52, 4, [T, T, d(436, 14.9)]),
    row(
        "timevarmutextrue",
        55,
        2,
        [d(41, 0.8), d(4, 0.3), d(2, 1.0)],
    ),
    row("szymanskitrue", 55, 2, [T, T, d(6, 1.8)]),
    row("unveriftrue", 40, 2, [T, d(221, 2.9), d(27, 1.7)]),
    row("bluetoothbad", 88, 2, [T, d(1789, 25.1), d(95, 4.0)]),
    row("art-example", 71, 2, [d(450, 11.5), d(146, 3.1), d(9, 1.5)]),
    row("fsbenchbad", 86, 8, [T, d(256, 9.2), d(9, 20.9)]),
    row(
        "tickettrue",
        76,
        2,
        [d(1062, 19.6), d(274, 4.8), d(44, 1.9)],
    ),
    row("accountbad", 60, 3, [d(8, 0.4), d(8, 0.4), d(8, 1.0)]),
    row(
        "circularbufbad1",
        109,
        2,
        [d(118, 1.7), d(118, 1.9), d(58, 3.8)],
    ),
    row(
        "circularbufbad2",
        109,
        2,
        [d(358, 5.5), d(358, 5.5), d(132, 6.4)],
    ),
    row("readreadwrite", 50, 3, [d(96, 1.4), d(19, 0.5), d(3, 1.1)]),
    row("queuefalse", 167, 2, [d(252, 3.9), d(252, 3.8), d(26, 3.9)]),
    row("nbds-slU1a", 1942, 2, [T, d(133, 8.9), d(5, 7.8)]),
    row("nbds-slU1b", 1942, 2, [T, T, d(76, 16.2)]),
    row("nbds-slU1c", 1942, 2, [T, T, d(202, 35.2)]),
    row("nbds-slU2a", 1942, 2, [T, d(241, 25.3), d(29, 12.8)]),
    row("nbds-slU2b", 1942, 2, [T, T, d(118, 24.5)]),
    row("nbds-slU2c", 1942, 2, [T, T, d(717, 164.8)]),
    row("nbds-skiplist", 1994, 3, [T, T, d(1, 25.1)]),
    row("nbds-hashw1a", 2322, 2, [T, d(1339, 167.4), d(123, 177.8)]),
    row("nbds-hashw1b", 2322, 2, [T, d(6501, 1568.9), d(675, 222.8)]),
    row("nbds-hashw1c", 2322, 2, [T, T, d(2399, 476.9)]),
    row("nbds-hashw2a", 2234, 2, [T, d(5852, 674.1), d(369, 155.3)]),
    row("nbds-hashw2b", 2234, 2, [T, T, d(1735, 257.4)]),
    row("nbds-hashw2c", 2234, 2, [T, T, d(4017, 528.4)]),
    row("nbds-hash", 2375, 2, [T, T, d(2283, 333.8)]),
    row("nbds-list", 1887, 3, [T, d(10274, 1130.7), d(1, 5.9)]),
    row("nedmalloc", 6303, 4, [T, T, d(1, 12.0)]),
];

/// Which SV-COMP task (`folder/stem`, a `.yml` under the corpus) stands for a paper row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mapping {
    pub row: &'static str,
    pub task: Option<&'static str>,
    /// How the task differs from the paper's program, or why no task corresponds.
    pub note: &'static str,
}

const fn map(row: &'static str, task: &'static str, note: &'static str) -> Mapping {
    Mapping {
        row,
        task: Some(task),
        note,
    }
}

const fn none(row: &'static str, note: &'static str) -> Mapping {
    Mapping {
        row,
        task: None,
        note,
    }
}

const REORDER: &str = "SV-COMP's reorder_2 fixes iSet = iCheck = 2 (4 threads besides main); \
                       the paper's parameterisation with fewer threads has no task";
const SIGMA: &str = "SV-COMP's sigma fixes SIGMA = 16 threads; the paper's smaller \
                     instances have no task";
const NBDS: &str = "real application (nbds lock-free data structures), not in SV-COMP";
const NOT_IN_CORPUS: &str = "from the paper's references [14, 29], not in SV-COMP";

/// Paper row → SV-COMP task, decided from the sources in ../shared/svcomp (thread counts
/// are the threads the program runs, main included where the paper's count suggests so).
pub const MAPPING: [Mapping; 50] = [
    map("fibbenchfalse1", "pthread/fib_bench-2", "NUM 5 iterations per thread, 2 threads (SV-COMP 2014's fib_bench_false)"),
    map("fibbenchfalse2", "pthread/fib_bench_longer-2", "NUM 6 iterations per thread, 2 threads (fib_bench_longer_false)"),
    map("fibbenchfalse3", "pthread/fib_bench_longest-2", "NUM 11 iterations per thread, 2 threads (fib_bench_longest_false)"),
    map("indexertrue", "pthread/indexer", "SV-COMP's indexer runs 13 threads (NUM_THREADS 13), the paper's 2"),
    map("lazy01false", "pthread/lazy01", "same program, 3 threads"),
    none("reorder2false1a", REORDER),
    none("reorder2false1b", REORDER),
    map("reorder2false1c", "pthread/reorder_2", "iSet = iCheck = 2: 4 threads besides main, the paper's 4-thread instance"),
    none("reorder2false2a", REORDER),
    none("reorder2false2b", REORDER),
    none("sigmafalse1", SIGMA),
    none("sigmafalse2", SIGMA),
    map("sigmafalse3", "pthread/sigma", "SIGMA = 16 threads against the paper's 4 (its largest sigma instance)"),
    map("singletonfalse", "pthread/singleton", "main, thread0 and 5 workers (7 threads) against the paper's 4"),
    map("stackfalse", "pthread/stack-2", "SIZE 5, 2 threads"),
    map("stateful01true", "pthread/stateful01-2", "same program, 2 threads"),
    map("twostage3false", "pthread/twostage_3", "iTThreads = 2, iRThreads = 1: 3 threads besides main"),
    map("dekkertrue", "pthread-atomic/dekker", "2 created threads (pthread-ext/15_dekker is the variant where main is the second thread)"),
    map("petersontrue1", "pthread-atomic/peterson", "2 created threads"),
    map("petersontrue2", "pthread-ext/16_peterson", "another Peterson variant, main runs thr2: 2 threads; the paper does not say which variant row 2 is"),
    map("readwriteltrue1", "pthread-ext/18_read_write_lock", "main and 1 thread: 2 threads"),
    map("readwriteltrue2", "pthread-atomic/read_write_lock-1", "2 writers and 2 readers: 4 threads"),
    map("timevarmutextrue", "pthread-atomic/time_var_mutex", "allocator and de-allocator: 2 threads"),
    map("szymanskitrue", "pthread-atomic/szymanski", "2 threads"),
    map("unveriftrue", "pthread-ext/13_unverif", "main creates threads in an unbounded loop (the paper's has 2 threads): no search finishes without a bound"),
    none("bluetoothbad", NOT_IN_CORPUS),
    none("art-example", NOT_IN_CORPUS),
    none("fsbenchbad", "fs_bench is not in this corpus"),
    map("tickettrue", "pthread-ext/06_ticket", "ticket lock; main creates threads in an unbounded loop (the paper's has 2 threads)"),
    none("accountbad", NOT_IN_CORPUS),
    none("circularbufbad1", NOT_IN_CORPUS),
    none("circularbufbad2", NOT_IN_CORPUS),
    none("readreadwrite", NOT_IN_CORPUS),
    map("queuefalse", "pthread/queue", "SIZE 20, 2 threads"),
    none("nbds-slU1a", NBDS),
    none("nbds-slU1b", NBDS),
    none("nbds-slU1c", NBDS),
    none("nbds-slU2a", NBDS),
    none("nbds-slU2b", NBDS),
    none("nbds-slU2c", NBDS),
    none("nbds-skiplist", NBDS),
    none("nbds-hashw1a", NBDS),
    none("nbds-hashw1b", NBDS),
    none("nbds-hashw1c", NBDS),
    none("nbds-hashw2a", NBDS),
    none("nbds-hashw2b", NBDS),
    none("nbds-hashw2c", NBDS),
    none("nbds-hash", NBDS),
    none("nbds-list", NBDS),
    none("nedmalloc", "real application (nedmalloc), not in SV-COMP"),
];

/// The mapping of `row`.
pub fn mapping(row: &str) -> Option<&'static Mapping> {
    MAPPING.iter().find(|m| m.row == row)
}

/// The `.yml` definitions of the mapped tasks under `corpus`, in table order, each once.
pub fn definitions(corpus: &Path) -> Vec<std::path::PathBuf> {
    let mut seen = Vec::new();
    for m in &MAPPING {
        if let Some(task) = m.task {
            let path = corpus.join(format!("{task}.yml"));
            if !seen.contains(&path) {
                seen.push(path);
            }
        }
    }
    seen
}

/// The goal of `row` given agx's dpor+ag record of its task.
pub fn goal(row: &PaperRow, dpor_ag: Option<&Record>) -> Goal {
    let Some(r) = dpor_ag else {
        return Goal::NotRun;
    };
    if r.outcome.is_wrong() {
        return Goal::Missed(format!("WRONG verdict {}", r.status.label()));
    }
    if !r.outcome.is_correct() {
        return Goal::Missed(format!("no verdict ({})", r.status.label()));
    }
    let mut why = Vec::new();
    let ours = total_runs(r);
    if let (Some(ours), Some(paper)) = (ours, row.cells[2].runs()) {
        if ours > paper {
            why.push(format!("runs {ours} > {paper}"));
        }
    } else {
        why.push("runs not reported".to_string());
    }
    if r.wall_time_ms >= GOAL_TIME_MS {
        why.push(format!("time {} >= 10s", seconds(r.wall_time_ms)));
    }
    if why.is_empty() {
        Goal::Met
    } else {
        Goal::Missed(why.join(", "))
    }
}

/// Full plus partial runs, `None` when verify did not report runs.
pub fn total_runs(r: &Record) -> Option<u64> {
    Some(r.runs? + r.partial_runs.unwrap_or(0))
}

/// Every row of [`TABLE2`] with its mapping and goal, given the records of the run.
pub fn row_results(records: &[Record]) -> Vec<RowResult> {
    TABLE2
        .iter()
        .map(|row| {
            let m = mapping(row.name);
            let task = m.and_then(|m| m.task);
            let dpor_ag = task.and_then(|t| find(records, t, "dpor+ag"));
            RowResult {
                row: row.name.to_string(),
                loc: row.loc,
                threads: row.threads,
                task: task.map(str::to_string),
                note: m.map(|m| m.note.to_string()).unwrap_or_default(),
                cloud9: row.cells[0],
                dpor: row.cells[1],
                dpor_ag: row.cells[2],
                goal: goal(row, dpor_ag),
            }
        })
        .collect()
}

/// The unreach-call record of `task` run with `strategy`.
fn find<'a>(records: &'a [Record], task: &str, strategy: &str) -> Option<&'a Record> {
    records
        .iter()
        .find(|r| r.task == task && r.strategy == strategy && r.property == "unreach-call")
}

/// agx's runs (full+partial) of a record, or its status when it decided nothing.
fn our_runs(r: &Record) -> String {
    let runs = match (r.runs, r.partial_runs) {
        (Some(full), Some(partial)) => format!("{full}+{partial}"),
        (Some(full), None) => full.to_string(),
        _ => "-".to_string(),
    };
    match r.status {
        Status::True | Status::False if r.outcome.is_wrong() => format!("WRONG {runs}"),
        Status::True | Status::False => runs,
        Status::Unknown => format!("unknown {runs}"),
        other => other.label().to_lowercase(),
    }
}

/// The printed comparison: mapped rows with agx's runs and times per strategy beside the
/// paper's, the goal per row and its count, then the rows no task stands for.
pub fn render(rows: &[RowResult], records: &[Record]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "PAPER TABLE 2 (assertion-guided symbolic execution, §7) vs agx\n  \
         cells: runs / time; agx runs = full+partial (on expected-false tasks up to the \
         first violation);\n  agx time = wall clock of `agx verify`; \
         paper '- / >1800s' = not finished in 30 minutes\n  \
         goal: dpor+ag correct, runs <= paper +DPOR+AG runs, time < 10s"
    );
    let mut header = vec!["paper row", "task", "exp"];
    header.extend(STRATEGIES);
    header.extend(PAPER_COLUMNS);
    header.push("goal");
    let mut table = Table::new(&header);
    let mut met = 0;
    let mut mapped = 0;
    for row in rows.iter().filter(|r| r.task.is_some()) {
        mapped += 1;
        let task = row.task.as_deref().unwrap_or_default();
        let mut cells = vec![row.row.clone(), task.to_string()];
        let expected = find_any(records, task).and_then(|r| r.expected);
        cells.push(super::report::expected_label(expected).to_string());
        for s in STRATEGIES {
            cells.push(match find(records, task, s) {
                Some(r) => format!("{} / {}", our_runs(r), seconds(r.wall_time_ms)),
                None => "not run".to_string(),
            });
        }
        for cell in [row.cloud9, row.dpor, row.dpor_ag] {
            let (runs, time) = cell.texts();
            cells.push(format!("{runs} / {time}"));
        }
        cells.push(match &row.goal {
            Goal::Met => {
                met += 1;
                "yes".to_string()
            }
            Goal::Missed(why) => format!("no: {why}"),
            Goal::NotRun => "not run".to_string(),
        });
        table.row(cells);
    }
    out.push_str(&table.render(&(3..9).collect::<Vec<_>>()));
    let _ = writeln!(out, "  goal met: {met} of {mapped} rows with a task");
    notes(&mut out, rows);
    out
}

/// Any record of `task` (for its expected verdict).
fn find_any<'a>(records: &'a [Record], task: &str) -> Option<&'a Record> {
    records
        .iter()
        .find(|r| r.task == task && r.property == "unreach-call")
}

/// How each mapped row's task differs from the paper's program, and the rows without one.
fn notes(out: &mut String, rows: &[RowResult]) {
    let _ = writeln!(out, "\nMAPPING NOTES");
    let mut table = Table::new(&["paper row", "task", "note"]);
    for row in rows {
        table.row(vec![
            row.row.clone(),
            row.task.clone().unwrap_or_else(|| "(none)".to_string()),
            row.note.clone(),
        ]);
    }
    out.push_str(&table.render(&[]));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::tests::sample_record;

    fn record(task: &str, strategy: &str, status: Status, runs: u64, ms: u64) -> Record {
        // Of the tasks used here only the indexer is expected to hold.
        let mut r = sample_record(task, status, task.contains("indexer"));
        r.strategy = strategy.to_string();
        r.strategy_used = Some(strategy.to_string());
        r.runs = Some(runs);
        r.partial_runs = Some(runs / 2);
        r.wall_time_ms = ms;
        r
    }

    #[test]
    fn every_row_has_exactly_one_mapping_in_table_order() {
        assert_eq!(TABLE2.len(), MAPPING.len());
        for (row, m) in TABLE2.iter().zip(&MAPPING) {
            assert_eq!(row.name, m.row);
            assert!(!m.note.is_empty(), "{} has no note", m.row);
        }
        let mapped = MAPPING.iter().filter(|m| m.task.is_some()).count();
        assert_eq!(mapped, 21);
    }

    #[test]
    fn the_paper_numbers_average_as_printed() {
        // The paper's "Average" line (timeouts counted as 1800 s): 986.9 / 518.5 / 51.6.
        for (column, printed) in [(0, 986.9), (1, 518.5), (2, 51.6)] {
            let total: f64 = TABLE2
                .iter()
                .map(|r| match r.cells[column] {
                    PaperCell::Finished { time_s, .. } => time_s,
                    PaperCell::TimedOut => 1800.0,
                })
                .sum();
            let average = total / TABLE2.len() as f64;
            assert!((average - printed).abs() < 0.1, "{column}: {average}");
        }
    }

    #[test]
    fn goal_needs_a_correct_verdict_few_runs_and_little_time() {
        let row = &TABLE2[0]; // fibbenchfalse1: +DPOR+AG 15 runs
        let ok = record("pthread/fib_bench-2", "dpor+ag", Status::False, 10, 900);
        assert_eq!(goal(row, Some(&ok)), Goal::Met); // 10 + 5 runs <= 15
        let many = record("pthread/fib_bench-2", "dpor+ag", Status::False, 12, 900);
        assert_eq!(goal(row, Some(&many)), Goal::Missed("runs 18 > 15".into()));
        let slow = record("pthread/fib_bench-2", "dpor+ag", Status::False, 2, 10_000);
        assert_eq!(
            goal(row, Some(&slow)),
            Goal::Missed("time 10.00s >= 10s".into())
        );
        let unknown = record("pthread/fib_bench-2", "dpor+ag", Status::Timeout, 2, 100);
        assert_eq!(
            goal(row, Some(&unknown)),
            Goal::Missed("no verdict (TIMEOUT)".into())
        );
        let wrong = record("pthread/fib_bench-2", "dpor+ag", Status::True, 2, 100);
        assert_eq!(
            goal(row, Some(&wrong)),
            Goal::Missed("WRONG verdict TRUE".into())
        );
        assert_eq!(goal(row, None), Goal::NotRun);
    }

    #[test]
    fn definitions_are_the_mapped_tasks_once_each() {
        let defs = definitions(Path::new("/corpus"));
        assert_eq!(defs.len(), 21);
        assert_eq!(defs[0], Path::new("/corpus/pthread/fib_bench-2.yml"));
        assert!(defs.contains(&Path::new("/corpus/pthread-ext/13_unverif.yml").to_path_buf()));
    }

    #[test]
    fn table_snapshot() {
        let mut records = Vec::new();
        for (strategy, runs, ms) in [
            ("baseline", 900, 30_000),
            ("dpor", 40, 1_500),
            ("dpor+ag", 8, 700),
        ] {
            records.push(record(
                "pthread/fib_bench-2",
                strategy,
                Status::False,
                runs,
                ms,
            ));
        }
        records.push(record(
            "pthread/lazy01",
            "baseline",
            Status::Timeout,
            0,
            60_000,
        ));
        records.push(record("pthread/lazy01", "dpor", Status::False, 3, 200));
        records.push(record("pthread/lazy01", "dpor+ag", Status::False, 4, 300));
        records.push(record(
            "pthread/indexer",
            "dpor+ag",
            Status::Unknown,
            5,
            12_000,
        ));
        let rows = row_results(&records);
        assert_eq!(rows[0].goal, Goal::Met);
        assert_eq!(rows[4].goal, Goal::Missed("runs 6 > 3".into()));
        insta::assert_snapshot!(render(&rows, &records));
    }

    #[test]
    fn row_results_serialize_with_the_goal_inline() {
        let rows = row_results(&[]);
        let json = serde_json::to_value(&rows[1]).unwrap();
        assert_eq!(json["row"], "fibbenchfalse2");
        assert_eq!(json["cloud9"]["result"], "timed-out");
        assert_eq!(json["dpor"]["runs"], 628);
        assert_eq!(json["goal"], "not-run");
        let back: RowResult = serde_json::from_value(json).unwrap();
        assert_eq!(back, rows[1]);
    }
}
