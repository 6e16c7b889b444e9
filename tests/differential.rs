//! Theorem 1 of the assertion-guided paper as a differential test: the baseline search,
//! DPOR, DPOR with predicate summaries, DPOR with summaries and the slice (§6.1's Type A
//! cut and Type B pivots, with the slice `agx verify` computes), and the same with
//! `--repair add` reach the same set of violated locations, on the random programs of
//! `tests/common/gen.rs` (shared with `tests/oracle.rs`, which checks the strategies
//! against random concrete runs instead of against each other). Where every strategy
//! finishes, the runs explored must not grow with the reduction:
//! `runs(dpor+ag) ≤ runs(dpor) ≤ runs(baseline)` (runs counting partial ones; not for
//! `--repair add`, which may schedule threads DPOR alone would not).
//!
//! `AGX_DIFF_PROGRAMS=N` checks N programs (default 150, about two minutes in a debug
//! build); `AGX_DIFF_SEED=S` starts at seed S. A failing program is written to the
//! temporary directory and named in the message, with the verdicts of each strategy.

mod common;

use analysis::FrontendOptions;
use common::gen;
use explorer::symbolic::{self, Config, Outcome, Repair, Strategy, Verdict};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

fn violated(o: &Outcome) -> BTreeSet<u32> {
    o.violations.iter().map(|f| f.span.line).collect()
}

/// The slice `agx verify` gives the search for Type B pivots.
fn type_b_slice(program: &analysis::ir::Program) -> BTreeSet<analysis::ir::StmtId> {
    let facts = analysis::facts::extract(program);
    let analysis = rules::Analysis::run(&facts);
    analysis.backward_slice(&symbolic::type_b::criteria(program))
}

fn run(
    program: &analysis::ir::Program,
    strategy: Strategy,
    slice: bool,
    repair: Repair,
) -> Outcome {
    let mut c = Config::default();
    c.strategy = strategy;
    c.slice = slice;
    c.repair = repair;
    if slice {
        c.relevant = Some(type_b_slice(program));
    }
    c.all_violations = true;
    c.timeout = Some(Duration::from_secs(5));
    symbolic::verify(program, &c).unwrap_or_else(|e| panic!("verify failed: {e}"))
}

fn total_runs(o: &Outcome) -> u64 {
    o.stats.runs + o.stats.partial_runs
}

#[test]
fn strategies_reach_the_same_violations_on_random_programs() {
    let count: u64 = std::env::var("AGX_DIFF_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150);
    let first: u64 = std::env::var("AGX_DIFF_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let dir = std::env::temp_dir().join(format!("agx-diff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let mut checked = 0;
    let mut with_violation = 0;
    let mut type_b = 0;
    for seed in first..first + count {
        let text = gen::program(seed).text;
        let path: PathBuf = dir.join(format!("diff_{seed}.c"));
        std::fs::write(&path, &text).expect("write program");
        let program =
            analysis::load_program(&path, &FrontendOptions::default()).unwrap_or_else(|e| {
                panic!("seed {seed}: the generated program does not lower: {e}\n{text}")
            });
        let base = run(&program, Strategy::Baseline, false, Repair::Strict);
        let dpor = run(&program, Strategy::Dpor, false, Repair::Strict);
        let ag = run(&program, Strategy::DporAg, false, Repair::Strict);
        let ag_slice = run(&program, Strategy::DporAg, true, Repair::Strict);
        // `--repair add` may schedule threads DPOR alone would not: its runs are not
        // compared, its violations are.
        let ag_add = run(&program, Strategy::DporAg, true, Repair::Add);
        let all = [
            ("baseline", &base),
            ("dpor", &dpor),
            ("dpor+ag", &ag),
            ("dpor+ag+slice", &ag_slice),
            ("dpor+ag+slice --repair add", &ag_add),
        ];
        // A violation found before the time ran out is a verdict, but not the whole set.
        let finished = all.iter().all(|(_, o)| {
            o.verdict != Verdict::Unknown && o.incomplete.iter().all(|i| i.reason != "timeout")
        });
        let describe = || {
            all.iter()
                .map(|(n, o)| {
                    format!(
                        "{n}: {:?} {:?} runs {}+{} {:?}",
                        o.verdict,
                        violated(o),
                        o.stats.runs,
                        o.stats.partial_runs,
                        o.incomplete
                    )
                })
                .collect::<Vec<_>>()
                .join("\n  ")
        };
        if finished {
            for (name, o) in &all[1..] {
                assert_eq!(
                    violated(o),
                    violated(&base),
                    "seed {seed} ({}): {name} and baseline reach different violations\n  {}",
                    path.display(),
                    describe()
                );
            }
            assert!(
                ag.stats.runs <= dpor.stats.runs && dpor.stats.runs <= base.stats.runs,
                "seed {seed} ({}): full runs grew with the reduction\n  {}",
                path.display(),
                describe()
            );
            assert!(
                total_runs(&dpor) <= total_runs(&base),
                "seed {seed} ({}): dpor explored more runs than the baseline\n  {}",
                path.display(),
                describe()
            );
            assert!(
                total_runs(&ag) <= total_runs(&dpor),
                "seed {seed} ({}): dpor+ag explored more runs than dpor\n  {}",
                path.display(),
                describe()
            );
            checked += 1;
            if ag_slice.stats.type_b_branches + ag_slice.stats.type_b_races > 0 {
                type_b += 1;
            }
            if !violated(&base).is_empty() {
                with_violation += 1;
            }
        } else {
            // A strategy that did not finish may miss violations, never invent them.
            for (name, o) in &all {
                for line in violated(o) {
                    assert!(
                        all.iter().any(|(_, p)| p.verdict != Verdict::Unknown && violated(p).contains(&line))
                            || all.iter().all(|(_, p)| p.verdict == Verdict::Unknown),
                        "seed {seed}: {name} reports line {line} that a finished strategy does not\n  {}",
                        describe()
                    );
                }
            }
        }
        let _ = std::fs::remove_file(&path);
    }
    let _ = std::fs::remove_dir(&dir);
    println!(
        "{checked} of {count} programs finished under every strategy; {with_violation} have \
         violations; {type_b} had Type B pivots"
    );
    assert!(
        checked * 2 >= count,
        "too few programs finished ({checked} of {count})"
    );
    assert!(
        type_b * 10 >= checked,
        "too few programs exercised Type B pivots ({type_b} of {checked})"
    );
}
