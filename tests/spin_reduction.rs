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
//! The await reduction (`Config::await_assumes`: a failing assume in an atomic section
//! that wrote nothing blocks the thread) the same way, on the protocol programs with an
//! atomic lock (whose acquire fails with `abort()`, with `__VERIFIER_assume`, or with
//! `abort()` after a store, which the reduction must leave alone) and the await fixtures.
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

/// The two reductions of issue 15, each switched on or off.
#[derive(Clone, Copy, Debug)]
struct Reductions {
    spin: bool,
    awaits: bool,
}

const NONE: Reductions = Reductions {
    spin: false,
    awaits: false,
};
const BOTH: Reductions = Reductions {
    spin: true,
    awaits: true,
};

/// Which reduction a comparison switches (the other stays on).
#[derive(Clone, Copy, Debug)]
enum Switched {
    Spin,
    Await,
}

impl Switched {
    fn with(self, on: bool) -> Reductions {
        match self {
            Switched::Spin => Reductions {
                spin: on,
                awaits: true,
            },
            Switched::Await => Reductions {
                spin: true,
                awaits: on,
            },
        }
    }
}

fn verify(program: &analysis::ir::Program, strategy: Strategy, r: Reductions) -> SearchOutcome {
    let mut c = Config::default();
    c.strategy = strategy;
    c.slice = false;
    c.spin_loops = r.spin;
    c.await_assumes = r.awaits;
    // The probe's short search stops at a share of the time budget and the search after
    // it keeps its summaries, so the counts would depend on the machine's speed: the
    // runs compared here are the search's own.
    c.probe = false;
    c.all_violations = true;
    c.timeout = Some(Duration::from_secs(5));
    c.max_states = Some(20_000);
    symbolic::verify(program, &c).unwrap_or_else(|e| panic!("verify failed: {e}"))
}

/// Checks one program under dpor and dpor+ag; returns (runs without, runs with) the
/// reduction where both finished.
fn compare(path: &Path, text: &str, switched: Switched) -> Vec<(u64, u64)> {
    let program = analysis::load_program(path, &FrontendOptions::default())
        .unwrap_or_else(|e| panic!("{}: does not lower: {e}\n{text}", path.display()));
    let mut runs = Vec::new();
    for strategy in [Strategy::Dpor, Strategy::DporAg] {
        let off = verify(&program, strategy, switched.with(false));
        let on = verify(&program, strategy, switched.with(true));
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
                "{} ({}, {switched:?}):\n  without: {}\n  with:    {}",
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
        runs.extend(compare(&path, &text, Switched::Spin));
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
        let runs = compare(&path, &text, Switched::Spin);
        assert_eq!(runs.len(), 2, "{name}: a search did not finish");
        for (off, on) in runs {
            assert!(
                on <= off,
                "{name}: {on} runs with the reduction, {off} without"
            );
        }
    }
}

/// Dekker's outer wait loop is no spin loop for the front end (a store on one branch,
/// an inner loop), but its iterations under the thread's own turn only read and return
/// the state to what it was: the search parks the thread there (`spin_parks`). Same
/// verdicts with the reduction off, and no more runs.
#[test]
fn run_time_spins_keep_their_verdicts_and_lose_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    for name in ["spin/spin_dekker.c", "spin/spin_dekker_broken.c"] {
        let path = root.join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let program = analysis::load_program(&path, &FrontendOptions::default()).unwrap();
        for strategy in [Strategy::Dpor, Strategy::DporAg] {
            let on = verify(&program, strategy, BOTH);
            assert!(
                on.stats.spin_parks > 0,
                "{name} {strategy:?}: no thread parked"
            );
            let off = verify(&program, strategy, Switched::Spin.with(false));
            assert_eq!(off.stats.spin_parks, 0, "{name} {strategy:?}");
        }
        let runs = compare(&path, &text, Switched::Spin);
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
        runs.extend(compare(&path, &text, Switched::Spin));
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
    let base = verify(&program, Strategy::Baseline, NONE);
    if !finished(&base) {
        return;
    }
    for strategy in [Strategy::Dpor, Strategy::DporAg] {
        let on = verify(&program, strategy, BOTH);
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

/// The await reduction (`Config::await_assumes`, `symbolic::awaits`) on the protocol
/// programs: each program is searched with it on and off (the spin-loop reduction on in
/// both), with the same rules as above; the programs whose acquire stores before its
/// test (every third seed) must search exactly as without it, and the reduction saves
/// runs in total.
#[test]
fn same_violations_with_and_without_the_await_reduction_on_lock_protocols() {
    let count = program_count() as u64;
    let dir = std::env::temp_dir().join(format!("agx-await-protocols-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let mut runs = Vec::new();
    let mut locked = 0;
    for seed in 1..=count {
        let text = gen_spin::spin_program(seed);
        if !text.contains("  __VERIFIER_atomic_acquire(&") {
            continue;
        }
        locked += 1;
        let path = dir.join(format!("await_{seed}.c"));
        std::fs::write(&path, &text).expect("write program");
        let pairs = compare(&path, &text, Switched::Await);
        if seed % 3 == 2 {
            for &(off, on) in &pairs {
                assert_eq!(off, on, "seed {seed}: the acquire stores first\n{text}");
            }
        }
        runs.extend(pairs);
    }
    let (off, on): (u64, u64) = runs.iter().fold((0, 0), |(a, b), (x, y)| (a + x, b + y));
    eprintln!("{locked} lock programs: runs {off} without, {on} with the await reduction");
    assert!(locked > 0, "no program with an atomic acquire");
    assert!(!runs.is_empty(), "no program finished both ways");
    assert!(
        on < off,
        "the await reduction saved no runs: {on} with, {off} without"
    );
}

/// The await fixtures keep their verdicts with the reduction on and off, lose runs, and
/// the reduction is used on them.
#[test]
fn await_fixtures_keep_their_verdicts_and_lose_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut total = (0, 0);
    for name in ["verify/await_lock_order.c", "verify/await_lock_safe.c"] {
        let path = root.join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let runs = compare(&path, &text, Switched::Await);
        assert_eq!(runs.len(), 2, "{name}: a search did not finish");
        for (off, on) in runs {
            assert!(
                on <= off,
                "{name}: {on} runs with the reduction, {off} without"
            );
            total = (total.0 + off, total.1 + on);
        }
        let program = analysis::load_program(&path, &FrontendOptions::default()).unwrap();
        let on = verify(&program, Strategy::Dpor, BOTH);
        assert!(on.stats.awaits > 0, "{name}: no thread awaited");
    }
    assert!(
        total.1 < total.0,
        "runs {total:?} (without, with): nothing saved"
    );
}
