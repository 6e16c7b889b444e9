//! The spin-loop reduction (`Config::spin_loops`, `analysis::spin`) against the search
//! without it: on random programs with spin waits (`tests/common/gen.rs`) and on the spin
//! fixtures, both reach the same violated locations when both finish, and the reduction
//! never finishes with fewer violations than the full search finds; a finished search with
//! the reduction is never `Safe` where the full one found a violation.
//!
//! The same on the programs of `common::gen_spin` (locks made of `__VERIFIER_atomic_*`
//! functions, Peterson's spin loop, test-and-set loops, flag waits of three shapes): the
//! reduction keeps every verdict and lowers the runs in total, and dpor and dpor+ag with
//! it find what the baseline search (every interleaving, no reduction) finds — which
//! also checks DPOR's footprints of atomic sections through pointer parameters.
//!
//! `AGX_SPIN_PROGRAMS=N` checks N programs with a spin wait (default 25) and N protocol
//! programs; a failing program is written to the temporary directory and named in the
//! message.

mod common;

use analysis::FrontendOptions;
use common::{gen, gen_spin};
use explorer::symbolic::{self, Config, SearchOutcome, Strategy, Verdict};
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

fn violated(o: &SearchOutcome) -> BTreeSet<u32> {
    o.violations.iter().map(|f| f.span.line).collect()
}

fn finished(o: &SearchOutcome) -> bool {
    o.incomplete.is_empty()
}

fn verify(program: &analysis::ir::Program, strategy: Strategy, spin_loops: bool) -> SearchOutcome {
    let mut c = Config::default();
    c.strategy = strategy;
    c.slice = false;
    c.spin_loops = spin_loops;
    c.all_violations = true;
    c.timeout = Some(Duration::from_secs(5));
    c.max_states = Some(20_000);
    symbolic::verify(program, &c).unwrap_or_else(|e| panic!("verify failed: {e}"))
}

/// Checks one program under dpor and dpor+ag; returns (runs without, runs with) the
/// reduction where both finished.
fn compare(path: &Path, text: &str) -> Vec<(u64, u64)> {
    let program = analysis::load_program(path, &FrontendOptions::default())
        .unwrap_or_else(|e| panic!("{}: does not lower: {e}\n{text}", path.display()));
    let mut runs = Vec::new();
    for strategy in [Strategy::Dpor, Strategy::DporAg] {
        let off = verify(&program, strategy, false);
        let on = verify(&program, strategy, true);
        let describe = |o: &SearchOutcome| {
            format!(
                "{:?} {:?} runs {}+{} {:?}",
                o.verdict,
                violated(o),
                o.stats.runs,
                o.stats.partial_runs,
                o.incomplete
            )
        };
        let context = || {
            format!(
                "{} ({}):\n  without: {}\n  with:    {}",
                path.display(),
                strategy.name(),
                describe(&off),
                describe(&on)
            )
        };
        if finished(&on) {
            assert!(
                violated(&off).is_subset(&violated(&on)),
                "the reduction missed a violation: {}",
                context()
            );
        }
        if finished(&off) {
            assert!(
                violated(&on).is_subset(&violated(&off)),
                "the reduction found a violation the full search does not: {}",
                context()
            );
        }
        if finished(&on) && finished(&off) {
            assert_eq!(on.verdict, off.verdict, "{}", context());
            runs.push((
                off.stats.runs + off.stats.partial_runs,
                on.stats.runs + on.stats.partial_runs,
            ));
        }
        assert!(
            on.verdict != Verdict::Safe || violated(&off).is_empty(),
            "SAFE with the reduction, violation without: {}",
            context()
        );
    }
    runs
}

fn program_count() -> usize {
    std::env::var("AGX_SPIN_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(25)
}

#[test]
fn same_violations_with_and_without_the_reduction_on_random_spin_programs() {
    let count = program_count();
    let dir = std::env::temp_dir().join(format!("agx-spin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let mut checked = 0;
    let mut runs = Vec::new();
    let mut seed = 0;
    while checked < count {
        seed += 1;
        let text = gen::program(seed).text;
        if !text.contains("while (") {
            continue;
        }
        let path = dir.join(format!("spin_{seed}.c"));
        std::fs::write(&path, &text).expect("write program");
        let program = analysis::load_program(&path, &FrontendOptions::default()).unwrap();
        if analysis::spin::spin_loops(&program).is_empty() {
            continue;
        }
        runs.extend(compare(&path, &text));
        checked += 1;
    }
    let (off, on): (u64, u64) = runs.iter().fold((0, 0), |(a, b), (x, y)| (a + x, b + y));
    eprintln!("{checked} programs with spin loops (seeds 1..={seed}): runs {off} without, {on} with the reduction");
    assert!(!runs.is_empty(), "no program finished both ways");
}

#[test]
fn spin_fixtures_keep_their_verdicts_and_lose_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    for name in [
        "verify/spin_flag.c",
        "spin/spin_peterson.c",
        "spin/spin_peterson_broken.c",
    ] {
        let path = root.join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let program = analysis::load_program(&path, &FrontendOptions::default()).unwrap();
        assert!(
            !analysis::spin::spin_loops(&program).is_empty(),
            "{name}: no spin loop detected"
        );
        let runs = compare(&path, &text);
        assert_eq!(runs.len(), 2, "{name}: a search did not finish");
        for (off, on) in runs {
            assert!(
                on <= off,
                "{name}: {on} runs with the reduction, {off} without"
            );
        }
    }
}

#[test]
fn same_violations_with_and_without_the_reduction_on_lock_and_wait_protocols() {
    let count = program_count() as u64;
    let dir = std::env::temp_dir().join(format!("agx-spin-protocols-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let mut runs = Vec::new();
    for seed in 1..=count {
        let text = gen_spin::spin_program(seed);
        let path = dir.join(format!("protocol_{seed}.c"));
        std::fs::write(&path, &text).expect("write program");
        runs.extend(compare(&path, &text));
        agree_with_baseline(&path, &text);
    }
    let (off, on): (u64, u64) = runs.iter().fold((0, 0), |(a, b), (x, y)| (a + x, b + y));
    eprintln!("{count} protocol programs: runs {off} without, {on} with the reduction");
    assert!(
        runs.len() as u64 >= count,
        "only {} of {} searches finished both ways",
        runs.len(),
        2 * count
    );
    assert!(
        on < off,
        "the reduction saved no runs: {on} with, {off} without"
    );
}

/// Where the baseline search (no reduction, no DPOR) finishes, dpor and dpor+ag with the
/// reduction report the same violated lines.
fn agree_with_baseline(path: &Path, text: &str) {
    let program = analysis::load_program(path, &FrontendOptions::default()).unwrap();
    let base = verify(&program, Strategy::Baseline, false);
    if !finished(&base) {
        return;
    }
    for strategy in [Strategy::Dpor, Strategy::DporAg] {
        let on = verify(&program, strategy, true);
        if finished(&on) {
            assert_eq!(
                violated(&on),
                violated(&base),
                "{} ({}): {:?} with the reduction, baseline {:?}\n{text}",
                path.display(),
                strategy.name(),
                on.verdict,
                base.verdict
            );
        }
    }
}
