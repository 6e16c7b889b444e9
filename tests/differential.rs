//! Theorem 1 of the assertion-guided paper as a differential test: the baseline search,
//! DPOR, DPOR with predicate summaries, DPOR with summaries and the slice (§6.1's Type A
//! cut and Type B pivots, with the slice `agx verify` computes), and the same with
//! `--repair add`, and the same restarted with the summaries of a short search cut at a
//! few states (the probe's short search, `Config::probe_quick_states`) reach the same
//! set of violated locations, on the random programs of
//! `tests/common/gen.rs` (with summaries under sleep sets, and with sleep-free
//! summaries only: `Config::sleep_summaries`) (shared with `tests/oracle/`, which checks the strategies
//! against random concrete runs instead of against each other). A strategy that
//! finishes (no time, state or solver budget hit) must reach every violation any
//! strategy found (all are replayed, hence real). Where every strategy finishes (the
//! baseline aside, which often stops at its state budget), the runs explored must not
//! grow with the reduction: `runs(dpor+ag) ≤ runs(dpor) ≤ runs(baseline)` (runs counting
//! partial ones; not for `--repair add`, which may schedule threads DPOR alone would
//! not).
//!
//! `AGX_DIFF_PROGRAMS=N` checks N programs (default 100, about two minutes in a debug
//! build); `AGX_DIFF_SEED=S` starts at seed S. A second test applies the same rules to
//! the communication shapes of `tests/common/gen_shapes.rs` (`AGX_DIFF_SHAPE_PROGRAMS`,
//! default 12; `AGX_DIFF_SHAPE_SEED`). A failing program is written to the
//! temporary directory and named in the message, with the verdicts of each strategy.
//!
//! A third test compares the exit deferral (`Config::defer_exit`: `main`'s return runs
//! only when no other thread can step) on and off, for `dpor` and `dpor+ag` with the
//! slice, on `gen::program_unjoined` (no thread joined, so `main`'s return may cut them
//! off anywhere): a finished search reaches every violation any of them found (the
//! baseline, which never defers, among them), and the deferral is never SAFE where the
//! search without it found a violation (`AGX_DIFF_EXIT_PROGRAMS`, default 40;
//! `AGX_DIFF_EXIT_SEED`).

mod common;

use analysis::FrontendOptions;
use common::{gen, gen_shapes};
use explorer::symbolic::{self, Config, Reason, Repair, SearchOutcome, Strategy};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

fn violated(o: &SearchOutcome) -> BTreeSet<u32> {
    o.violations.iter().map(|f| f.span.line).collect()
}

/// The slice `agx verify` gives the search for Type B pivots.
fn type_b_slice(program: &analysis::ir::Program) -> BTreeSet<analysis::ir::StmtId> {
    let facts = analysis::facts::extract(program);
    let analysis = rules::Analysis::run(&facts);
    analysis.backward_slice(&symbolic::type_b_criteria(program))
}

fn run(
    program: &analysis::ir::Program,
    strategy: Strategy,
    slice: bool,
    repair: Repair,
) -> SearchOutcome {
    run_with(program, strategy, slice, repair, true)
}

fn run_with(
    program: &analysis::ir::Program,
    strategy: Strategy,
    slice: bool,
    repair: Repair,
    sleep_summaries: bool,
) -> SearchOutcome {
    let mut c = Config::default();
    c.sleep_summaries = sleep_summaries;
    c.strategy = strategy;
    c.slice = slice;
    c.repair = repair;
    if slice {
        c.relevant = Some(type_b_slice(program));
    }
    c.all_violations = true;
    c.timeout = Some(Duration::from_secs(5));
    c.max_states = Some(20_000);
    symbolic::verify(program, &c).unwrap_or_else(|e| panic!("verify failed: {e}"))
}

/// dpor+ag with the slice, whose probe's short search ends after `quick_states`
/// scheduling nodes: the search then starts again with the short search's summaries.
fn run_resumed(program: &analysis::ir::Program, quick_states: u64) -> SearchOutcome {
    let mut c = Config::default();
    c.strategy = Strategy::DporAg;
    c.slice = true;
    c.relevant = Some(type_b_slice(program));
    c.probe_quick_states = Some(quick_states);
    // The state bound, not the clock, stops the short search (see `probe`).
    c.probe_quick_time = Some(Duration::from_secs(5));
    c.all_violations = true;
    c.timeout = Some(Duration::from_secs(5));
    c.max_states = Some(20_000);
    symbolic::verify(program, &c).unwrap_or_else(|e| panic!("verify failed: {e}"))
}

/// The search was not stopped by a budget (it may still be UNKNOWN for undefined
/// behaviour on some path, after exploring everything).
fn finished(o: &SearchOutcome) -> bool {
    !o.incomplete.iter().any(|i| {
        matches!(
            i.reason,
            Reason::Timeout
                | Reason::StateBound
                | Reason::Solver
                | Reason::MaxEvents
                | Reason::MaxThreads
                | Reason::Unwind
        )
    })
}

fn total_runs(o: &SearchOutcome) -> u64 {
    o.stats.runs + o.stats.partial_runs
}

#[test]
fn strategies_reach_the_same_violations_on_random_programs() {
    let count: u64 = env_u64("AGX_DIFF_PROGRAMS").unwrap_or(100);
    let first: u64 = env_u64("AGX_DIFF_SEED").unwrap_or(1);
    let seen = compare_strategies("diff", first, count, |seed| gen::program(seed).text);
    println!(
        "{} of {count} programs finished under every strategy but perhaps the \
         baseline; {} have violations; {} had Type B pivots",
        seen.checked, seen.with_violation, seen.type_b
    );
    assert!(
        seen.checked * 2 >= count,
        "too few programs finished ({} of {count})",
        seen.checked
    );
    assert!(
        seen.type_b * 10 >= seen.checked,
        "too few programs exercised Type B pivots ({} of {})",
        seen.type_b,
        seen.checked
    );
}

/// The same on the communication shapes of `tests/common/gen_shapes.rs` (one writer and
/// several readers, flags, aliases, a mutex with a hole, atomic sections through global
/// pointers). `AGX_DIFF_SHAPE_PROGRAMS=N` (default 12) from seed `AGX_DIFF_SHAPE_SEED`
/// (default 1).
#[test]
fn strategies_reach_the_same_violations_on_shape_programs() {
    let count: u64 = env_u64("AGX_DIFF_SHAPE_PROGRAMS").unwrap_or(12);
    let first: u64 = env_u64("AGX_DIFF_SHAPE_SEED").unwrap_or(1);
    let seen = compare_strategies("shape", first, count, |seed| {
        gen_shapes::shape_program(seed).text
    });
    println!(
        "shapes: {} of {count} programs finished under every strategy but perhaps the \
         baseline; {} have violations",
        seen.checked, seen.with_violation
    );
    assert!(
        seen.checked * 2 >= count,
        "too few programs finished ({} of {count})",
        seen.checked
    );
    assert!(
        count < 8 || seen.with_violation > 0,
        "no shape program has a violation"
    );
}

/// dpor or dpor+ag (with the slice) with the exit deferral on or off.
fn run_exit(
    program: &analysis::ir::Program,
    strategy: Strategy,
    defer_exit: bool,
) -> SearchOutcome {
    let mut c = Config::default();
    c.strategy = strategy;
    if strategy == Strategy::DporAg {
        c.relevant = Some(type_b_slice(program));
    }
    c.defer_exit = defer_exit;
    c.all_violations = true;
    c.timeout = Some(Duration::from_secs(5));
    c.max_states = Some(20_000);
    symbolic::verify(program, &c).unwrap_or_else(|e| panic!("verify failed: {e}"))
}

#[test]
fn exit_deferral_keeps_the_violations_of_unjoined_programs() {
    let count: u64 = env_u64("AGX_DIFF_EXIT_PROGRAMS").unwrap_or(40);
    let first: u64 = env_u64("AGX_DIFF_EXIT_SEED").unwrap_or(1);
    let dir = std::env::temp_dir().join(format!("agx-diff-exit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let (mut checked, mut with_violation, mut fewer) = (0, 0, 0);
    for seed in first..first + count {
        let text = gen::program_unjoined(seed).text;
        let path = dir.join(format!("exit_{seed}.c"));
        std::fs::write(&path, &text).expect("write program");
        let program =
            analysis::load_program(&path, &FrontendOptions::default()).unwrap_or_else(|e| {
                panic!("seed {seed}: the generated program does not lower: {e}\n{text}")
            });
        let base = run(&program, Strategy::Baseline, false, Repair::Strict);
        let pairs = [Strategy::Dpor, Strategy::DporAg]
            .map(|s| (s, run_exit(&program, s, true), run_exit(&program, s, false)));
        let mut all: Vec<(String, &SearchOutcome)> = vec![("baseline".to_string(), &base)];
        for (s, on, off) in &pairs {
            all.push((format!("{s:?}, deferred exit"), on));
            all.push((format!("{s:?}, exit anywhere"), off));
        }
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
        let union: BTreeSet<u32> = all.iter().flat_map(|(_, o)| violated(o)).collect();
        for (name, o) in &all {
            if finished(o) {
                assert_eq!(
                    violated(o),
                    union,
                    "seed {seed} ({}): {name} finished without reaching every violation \
                     the searches found\n  {}",
                    path.display(),
                    describe()
                );
            }
        }
        for (s, on, off) in &pairs {
            assert!(
                on.verdict != symbolic::Verdict::Safe || off.violations.is_empty(),
                "seed {seed} ({}): {s:?} with the deferred exit is SAFE where the search \
                 without it found a violation\n  {}",
                path.display(),
                describe()
            );
            if finished(on) && finished(off) {
                checked += 1;
                fewer += u64::from(total_runs(on) < total_runs(off));
            }
        }
        with_violation += u64::from(!union.is_empty());
        let _ = std::fs::remove_file(&path);
    }
    let _ = std::fs::remove_dir(&dir);
    println!(
        "exit deferral: {checked} of {} searches finished both ways ({fewer} with fewer \
         runs deferred); {with_violation} of {count} programs have violations",
        2 * count
    );
    assert!(
        checked >= count,
        "too few searches finished both ways ({checked} of {})",
        2 * count
    );
    assert!(
        count < 10 || (with_violation > 0 && fewer > 0),
        "the unjoined programs exercise nothing: {with_violation} with violations, \
         {fewer} searches with fewer runs deferred"
    );
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// What [`compare_strategies`] saw where every strategy but perhaps the baseline
/// finished: programs, those with violations, those with Type B pivots.
struct Seen {
    checked: u64,
    with_violation: u64,
    type_b: u64,
}

/// Checks the programs `text(seed)` of seeds `first..first + count` (files named
/// `NAME_SEED.c`): the rules of the module doc.
fn compare_strategies(name: &str, first: u64, count: u64, text: impl Fn(u64) -> String) -> Seen {
    let dir = std::env::temp_dir().join(format!("agx-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let mut checked = 0;
    let mut with_violation = 0;
    let mut type_b = 0;
    for seed in first..first + count {
        let text = text(seed);
        let path: PathBuf = dir.join(format!("{name}_{seed}.c"));
        std::fs::write(&path, &text).expect("write program");
        let program =
            analysis::load_program(&path, &FrontendOptions::default()).unwrap_or_else(|e| {
                panic!("seed {seed}: the generated program does not lower: {e}\n{text}")
            });
        let base = run(&program, Strategy::Baseline, false, Repair::Strict);
        let dpor = run(&program, Strategy::Dpor, false, Repair::Strict);
        let ag = run(&program, Strategy::DporAg, false, Repair::Strict);
        // Summaries only from sleep-free visits (sessions 1-8): the same violations.
        let ag_free = run_with(&program, Strategy::DporAg, false, Repair::Strict, false);
        let ag_slice = run(&program, Strategy::DporAg, true, Repair::Strict);
        // `--repair add` may schedule threads DPOR alone would not: its runs are not
        // compared, its violations are.
        let ag_add = run(&program, Strategy::DporAg, true, Repair::Add);
        // The search restarted after a short search cut at a few states, pruning with
        // its summaries (`Engine::restart_with_summaries`).
        let quick_states = 5 + seed % 40;
        let ag_resumed = run_resumed(&program, quick_states);
        let all = [
            ("baseline", &base),
            ("dpor", &dpor),
            ("dpor+ag", &ag),
            ("dpor+ag, sleep-free summaries", &ag_free),
            ("dpor+ag+slice", &ag_slice),
            ("dpor+ag+slice --repair add", &ag_add),
            ("dpor+ag+slice after a short search", &ag_resumed),
        ];
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
        // Every violation is replayed before it is reported, so one found by any
        // strategy (finished or not) is real: a finished strategy reaches all of them,
        // no more and no fewer.
        let union: BTreeSet<u32> = all.iter().flat_map(|(_, o)| violated(o)).collect();
        for (name, o) in &all {
            if finished(o) {
                assert_eq!(
                    violated(o),
                    union,
                    "seed {seed} ({}): {name} finished without reaching every violation \
                     the strategies found\n  {}",
                    path.display(),
                    describe()
                );
            }
        }
        // The baseline often stops at its state budget; DPOR is then the reference.
        if all[1..].iter().all(|(_, o)| finished(o)) {
            if finished(&base) {
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
            }
            assert!(
                total_runs(&ag) <= total_runs(&dpor) && total_runs(&ag_free) <= total_runs(&dpor),
                "seed {seed} ({}): dpor+ag explored more runs than dpor\n  {}",
                path.display(),
                describe()
            );
            checked += 1;
            if ag_slice.stats.type_b_branches + ag_slice.stats.type_b_races > 0 {
                type_b += 1;
            }
            if !union.is_empty() {
                with_violation += 1;
            }
        }
        let _ = std::fs::remove_file(&path);
    }
    let _ = std::fs::remove_dir(&dir);
    Seen {
        checked,
        with_violation,
        type_b,
    }
}
