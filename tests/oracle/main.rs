//! An oracle independent of the strategies (issue 10): for every program, random
//! concrete runs on the reference interpreter (`explorer::concrete`: schedules uniformly
//! random at each step or by PCT priorities, spurious wake-ups, inputs biased toward
//! small values and the program's constants) find
//! violations; every search must then agree with them:
//!
//! - **SAFE with a concrete violation** (an assertion, or undefined behaviour such as a
//!   null dereference, which makes SAFE impossible without `--check memory`) is a
//!   failure, whatever the strategy;
//! - a search that finished (no time-out, no solver give-up) must report every
//!   assertion line that failed concretely (with `--all`);
//! - `agx hunt --target FILE:LINE` must not REFUTE a line that failed concretely;
//! - a generated program that does not lower, a search error (a witness that does not
//!   replay) and an interpreter error are failures too.
//!
//! The searches: `baseline`, `dpor`, `dpor+ag --no-slice`, `dpor+ag` with the Type B
//! slice (library, as `agx verify` builds it), `dpor+ag --repair add` with the slice, and
//! the CLI itself (`agx verify --all`, the default strategy, slice computed by agx).
//!
//! Which check catches which of issue 10's wrong verdicts (as of the tree before the
//! fixes; see `PINNED` and `CATCHING_SEEDS`):
//! (1) printf-only branch: dpor+ag / CLI verify SAFE against a concrete violation;
//! (2) partial join: dpor+ag / CLI verify SAFE;
//! (3) atomic section in a branch: dpor+ag / CLI verify SAFE;
//! (4) function pointer through `pthread_join`: hunt REFUTED;
//! (5) function returning a function pointer: the program does not lower (inner
//!     parameter named differently), or the expected concrete violation of the pinned
//!     program is missing (the same name: wrong parameter list in both engines);
//! (6) null dereference on a cut branch: dpor+ag SAFE against a concrete null
//!     dereference;
//! (7) spurious wake-ups: the automatic schedules never choose a waiting thread, so
//!     after every run that waits on a condition a follow-up run replays it (same inputs)
//!     to the wait, a few steps more, and names the waiter (an explicit spurious
//!     wake-up); before the interpreter could express that, the pinned program's
//!     expected concrete violation was missing; now every search must find it too.
//!
//! Environment: `AGX_ORACLE_PROGRAMS=N` checks N generated programs from seed
//! `AGX_ORACLE_SEED` (default: the CI list, `CATCHING_SEEDS` and seeds 1..=CI_PROGRAMS);
//! `AGX_ORACLE_RUNS` / `AGX_ORACLE_RUN_MS` bound the concrete runs per program (count,
//! milliseconds; default 2000, 300); `AGX_ORACLE_TIMEOUT` is each search's budget in
//! seconds (default 5) and `AGX_ORACLE_STATES` its scheduling nodes (default 8000;
//! a search stopped by either is only held to the SAFE rule);
//! `AGX_ORACLE_FAILURES=DIR` keeps every failing program there (with its report);
//! `AGX_ORACLE_DPOR=classic|source|optimal` is the library searches' DPOR algorithm
//! (default: `Config::dpor`'s).
//! `AGX_ORACLE_SHAPE_PROGRAMS` / `AGX_ORACLE_SHAPE_SEED` choose the programs of
//! `common::gen_shapes` (one writer and several readers, flags, aliases, a mutex with a
//! hole, atomic sections through global pointers; default: seeds 1..=8 and
//! `SHAPE_CATCHING_SEEDS`), checked with classic DPOR and dpor+ag without its probe and
//! spin/await reductions besides the searches above.
//! `scripts/soak.sh N` runs N programs in a release build.
//!
//! Modules: `runs` (the random concrete runs and what they found), `searches` (the
//! library strategies and the CLI's verify and hunt, as `Answer`s), `check` (one
//! program: the runs, every search, the rules above), `pinned` (issue 10's cases as
//! small programs, one test each); here, the generated programs' test and its limits.

#[path = "../common/mod.rs"]
mod common;

mod check;
mod pinned;
mod runs;
mod searches;

use check::check;
use common::gen::{self, Family};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Generated programs of the CI run (after `CATCHING_SEEDS`).
const CI_PROGRAMS: u64 = 32;

/// Shape programs that caught a wrong footprint of an atomic section through a global
/// pointer (`reach::ViaGlobal`) in a mutant of the tree: (seed, the mutation). They
/// stay in the CI list of the shapes.
const SHAPE_CATCHING_SEEDS: &[(u64, &str)] = &[
    (
        9,
        "the load of the global left out of the section's fixed reads: every search SAFE",
    ),
    (
        29,
        "a store through a parameter into the global not falling back to everything: \
         dpor and dpor+ag miss the assertion",
    ),
];

/// Seeds whose programs caught one of issue 10's wrong verdicts on the tree before the
/// fixes: (seed, the case, who was wrong). They stay in the CI list. "ag" is
/// dpor+ag with the slice, `--repair add` and `agx verify`, all three SAFE.
const CATCHING_SEEDS: &[(u64, u32, &str)] = &[
    (78, 1, "printf-only branch: ag SAFE"),
    (111, 1, "printf-only branch: ag SAFE"),
    (19, 2, "partial join: ag SAFE (found by a PCT run)"),
    (82, 2, "partial join: ag SAFE"),
    (156, 2, "partial join: ag SAFE"),
    (52, 3, "atomic section in a branch: ag SAFE"),
    (75, 3, "atomic section in a branch: ag SAFE"),
    (96, 4, "function pointer through join: agx hunt REFUTED"),
    (212, 4, "function pointer through join: agx hunt REFUTED"),
    (60, 5, "pick's inner parameter named v: does not lower"),
    (127, 5, "pick's inner parameter named v: does not lower"),
    (33, 6, "null dereference on a cut branch: ag SAFE"),
    (56, 6, "null dereference on a cut branch: ag SAFE"),
];

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// Bounds of one program's check.
struct Limits {
    runs: u64,
    run_time: Duration,
    search_timeout: Duration,
    /// Scheduling nodes per library search (a deterministic budget besides the time).
    states: u64,
}

impl Limits {
    fn from_env() -> Limits {
        Limits {
            runs: env_u64("AGX_ORACLE_RUNS").unwrap_or(2_000),
            run_time: Duration::from_millis(env_u64("AGX_ORACLE_RUN_MS").unwrap_or(300)),
            search_timeout: Duration::from_secs(env_u64("AGX_ORACLE_TIMEOUT").unwrap_or(5)),
            states: env_u64("AGX_ORACLE_STATES").unwrap_or(8_000),
        }
    }
}

fn failures_dir() -> PathBuf {
    match std::env::var_os("AGX_ORACLE_FAILURES") {
        Some(d) => PathBuf::from(d),
        None => std::env::temp_dir().join(format!("agx-oracle-failures-{}", std::process::id())),
    }
}

/// The generated programs: the CI list, or the soak range from the environment.
/// A change of the generator changes every seed's program: the catching seeds must
/// still hold their family (else find new ones with `scripts/soak.sh` on a tree without
/// the fixes).
#[test]
fn catching_seeds_still_generate_their_family() {
    for (seed, case, what) in CATCHING_SEEDS {
        let family = Family::ALL[*case as usize - 1];
        assert!(
            gen::program(*seed).families.contains(&family),
            "seed {seed} ({what}) no longer generates {family:?}"
        );
    }
}

/// The shape seeds that caught a wrong section footprint still build sections through
/// global pointers (a change to the generator would silently drop them otherwise).
#[test]
fn shape_catching_seeds_still_generate_sections() {
    use common::gen_shapes::{self, Shape};
    for (seed, what) in SHAPE_CATCHING_SEEDS {
        let shaped = gen_shapes::shape_program(*seed);
        assert!(
            shaped.shape == Shape::Sections && shaped.text.contains("__VERIFIER_atomic"),
            "shape seed {seed} ({what}) no longer generates sections"
        );
    }
}

#[test]
fn random_programs_agree_with_random_concrete_runs() {
    let seeds: Vec<u64> = match env_u64("AGX_ORACLE_PROGRAMS") {
        Some(n) => {
            let first = env_u64("AGX_ORACLE_SEED").unwrap_or(1);
            (first..first + n).collect()
        }
        None => {
            let mut s: Vec<u64> = CATCHING_SEEDS.iter().map(|(s, _, _)| *s).collect();
            s.extend(1..=CI_PROGRAMS);
            s.sort();
            s.dedup();
            s
        }
    };
    let limits = Limits::from_env();
    let dir = std::env::temp_dir().join(format!("agx-oracle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let failures = failures_dir();
    let start = Instant::now();
    let (mut finished, mut with_violation, mut failing) = (0, 0, 0);
    let mut families: BTreeMap<Family, (u64, u64)> = BTreeMap::new();
    let mut messages = Vec::new();
    let mut stage_times: BTreeMap<String, f64> = BTreeMap::new();
    for (i, &seed) in seeds.iter().enumerate() {
        let generated = gen::program(seed);
        let path = dir.join(format!("oracle_{seed}.c"));
        std::fs::write(&path, &generated.text).expect("write program");
        let checked = check(&path, &generated.text, seed, &limits);
        finished += u64::from(checked.finished);
        for (stage, secs) in &checked.times {
            *stage_times.entry(stage.clone()).or_default() += secs;
        }
        with_violation += u64::from(checked.concrete.any_violation());
        for f in &generated.families {
            let e = families.entry(*f).or_default();
            e.0 += 1;
            e.1 += u64::from(!checked.mismatches.is_empty());
        }
        if !checked.mismatches.is_empty() {
            failing += 1;
            let note = format!(
                "seed {seed} families {:?}\n{}\n{}",
                generated.families,
                checked.mismatches.join("\n"),
                checked.report
            );
            let name = format!("oracle_{seed}.c");
            messages.push(keep_mismatch(&failures, &name, &generated.text, &note));
        }
        let _ = std::fs::remove_file(&path);
        let done = i + 1;
        if done % 100 == 0 {
            eprintln!(
                "oracle: {done} of {} programs, {failing} mismatches, {:.0} s",
                seeds.len(),
                start.elapsed().as_secs_f64()
            );
        }
    }
    let _ = std::fs::remove_dir(&dir);
    println!(
        "oracle: programs {}, finished {finished}, concrete violations found {with_violation}, \
         mismatches {failing} ({:.1} s, {:.2} s per program)",
        seeds.len(),
        start.elapsed().as_secs_f64(),
        start.elapsed().as_secs_f64() / seeds.len().max(1) as f64
    );
    let stages: Vec<String> = stage_times
        .iter()
        .map(|(s, t)| format!("{s} {t:.1} s"))
        .collect();
    println!("  time by stage: {}", stages.join(", "));
    for (f, (n, bad)) in &families {
        println!("  family {f:?}: {n} programs, {bad} failing");
    }
    if failing > 0 {
        println!("failing programs kept in {}", failures.display());
    }
    assert!(
        messages.is_empty(),
        "{failing} of {} programs disagree with the concrete runs:\n{}",
        seeds.len(),
        messages.join("\n")
    );
    // The generator produces every family (a regression in it would hide them).
    if env_u64("AGX_ORACLE_PROGRAMS").is_none() {
        for f in Family::ALL {
            assert!(families.contains_key(&f), "no CI program of family {f:?}");
        }
    }
}

/// The programs of `gen::program_unjoined` (no thread joined: `main`'s return may cut
/// them off anywhere, which the searches' exit deferral, `Config::defer_exit`, reorders)
/// against random concrete runs, by the same rules. `AGX_ORACLE_UNJOINED_PROGRAMS=N`
/// checks N programs (default 8) from seed `AGX_ORACLE_UNJOINED_SEED` (default 1).
#[test]
fn unjoined_programs_agree_with_random_concrete_runs() {
    let count = env_u64("AGX_ORACLE_UNJOINED_PROGRAMS").unwrap_or(8);
    let first = env_u64("AGX_ORACLE_UNJOINED_SEED").unwrap_or(1);
    let limits = Limits::from_env();
    let dir = std::env::temp_dir().join(format!("agx-oracle-unjoined-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let failures = failures_dir();
    let (mut violations, mut messages) = (0, Vec::new());
    for seed in first..first + count {
        let text = gen::program_unjoined(seed).text;
        let path = dir.join(format!("unjoined_{seed}.c"));
        std::fs::write(&path, &text).expect("write program");
        let checked = check(&path, &text, seed, &limits);
        violations += u64::from(checked.concrete.any_violation());
        if !checked.mismatches.is_empty() {
            let note = format!(
                "seed {seed} (unjoined)\n{}\n{}",
                checked.mismatches.join("\n"),
                checked.report
            );
            let name = format!("unjoined_{seed}.c");
            messages.push(keep_mismatch(&failures, &name, &text, &note));
        }
        let _ = std::fs::remove_file(&path);
    }
    let _ = std::fs::remove_dir(&dir);
    println!("oracle (unjoined): {count} programs, {violations} with a concrete violation");
    assert!(messages.is_empty(), "{}", messages.join("\n"));
    assert!(
        count < 4 || violations > 0,
        "no unjoined program fails concretely"
    );
}

/// The lock and wait protocols of `common::gen_spin` (issue 15's spin-loop reduction and
/// DPOR's footprints of atomic functions through pointer parameters) against random
/// concrete runs, by the same rules. `AGX_ORACLE_SPIN_PROGRAMS=N` checks N programs
/// (default 8).
#[test]
fn spin_protocol_programs_agree_with_random_concrete_runs() {
    let count = env_u64("AGX_ORACLE_SPIN_PROGRAMS").unwrap_or(8);
    let limits = Limits::from_env();
    let dir = std::env::temp_dir().join(format!("agx-oracle-spin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let (mut violations, mut messages) = (0, Vec::new());
    for seed in 1..=count {
        let text = common::gen_spin::spin_program(seed);
        let path = dir.join(format!("protocol_{seed}.c"));
        std::fs::write(&path, &text).expect("write program");
        let checked = check(&path, &text, seed, &limits);
        violations += u64::from(checked.concrete.any_violation());
        if !checked.mismatches.is_empty() {
            messages.push(format!(
                "seed {seed}:\n{}\n{}\n{text}",
                checked.mismatches.join("\n"),
                checked.report
            ));
        }
        let _ = std::fs::remove_file(&path);
    }
    let _ = std::fs::remove_dir(&dir);
    println!("oracle (protocols): {count} programs, {violations} with a concrete violation");
    assert!(messages.is_empty(), "{}", messages.join("\n"));
    assert!(violations > 0, "no protocol program fails concretely");
}

/// The communication shapes of `common::gen_shapes` (one writer and several readers,
/// message passing through flags, one cell under several names, a mutex with a hole,
/// atomic sections through retargeted global pointers) against random concrete runs,
/// by the same rules, with classic DPOR and dpor+ag without its probe and spin/await
/// reductions besides the usual searches.
/// `AGX_ORACLE_SHAPE_PROGRAMS=N` checks N programs from seed `AGX_ORACLE_SHAPE_SEED`
/// (default: seeds 1..=8 and `SHAPE_CATCHING_SEEDS`); failing programs are kept as for
/// the generated programs.
#[test]
fn shape_programs_agree_with_random_concrete_runs() {
    use common::gen_shapes::{self, Shape};
    let seeds: Vec<u64> = match (
        env_u64("AGX_ORACLE_SHAPE_PROGRAMS"),
        env_u64("AGX_ORACLE_SHAPE_SEED"),
    ) {
        (None, None) => (1..=8)
            .chain(SHAPE_CATCHING_SEEDS.iter().map(|&(s, _)| s))
            .collect(),
        (count, first) => {
            let first = first.unwrap_or(1);
            (first..first + count.unwrap_or(8)).collect()
        }
    };
    let count = seeds.len() as u64;
    let limits = Limits::from_env();
    let dir = std::env::temp_dir().join(format!("agx-oracle-shapes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let failures = failures_dir();
    let start = Instant::now();
    // Per shape: programs, with a concrete violation, all searches finished, failing.
    let mut shapes: BTreeMap<Shape, [u64; 4]> = BTreeMap::new();
    let mut messages = Vec::new();
    let mut stage_times: BTreeMap<String, f64> = BTreeMap::new();
    for (i, &seed) in seeds.iter().enumerate() {
        let shaped = gen_shapes::shape_program(seed);
        let path = dir.join(format!("shape_{seed}.c"));
        std::fs::write(&path, &shaped.text).expect("write program");
        let checked = check::check_with(&path, &shaped.text, seed, &limits, true);
        for (stage, secs) in &checked.times {
            *stage_times.entry(stage.clone()).or_default() += secs;
        }
        let e = shapes.entry(shaped.shape).or_default();
        e[0] += 1;
        e[1] += u64::from(checked.concrete.any_violation());
        e[2] += u64::from(checked.finished);
        if !checked.mismatches.is_empty() {
            e[3] += 1;
            let note = format!(
                "seed {seed} shape {:?}\n{}\n{}",
                shaped.shape,
                checked.mismatches.join("\n"),
                checked.report
            );
            let name = format!("shape_{seed}.c");
            messages.push(keep_mismatch(&failures, &name, &shaped.text, &note));
        }
        let _ = std::fs::remove_file(&path);
        if (i + 1) % 100 == 0 {
            eprintln!(
                "oracle (shapes): {} of {count} programs, {} mismatches, {:.0} s",
                i + 1,
                messages.len(),
                start.elapsed().as_secs_f64()
            );
        }
    }
    let _ = std::fs::remove_dir(&dir);
    println!(
        "oracle (shapes): {count} programs (seeds {}..={}), {} mismatches ({:.1} s)",
        seeds.first().copied().unwrap_or(0),
        seeds.last().copied().unwrap_or(0),
        messages.len(),
        start.elapsed().as_secs_f64()
    );
    let stages: Vec<String> = stage_times
        .iter()
        .map(|(s, t)| format!("{s} {t:.1} s"))
        .collect();
    println!("  time by stage: {}", stages.join(", "));
    for (s, [n, violated, finished, bad]) in &shapes {
        println!(
            "  shape {s:?}: {n} programs, {violated} with a concrete violation, \
             {finished} finished by every search, {bad} failing"
        );
    }
    assert!(messages.is_empty(), "{}", messages.join("\n"));
    // The generator builds every shape, and programs that fail and that do not.
    if count >= 8 {
        for s in Shape::ALL {
            assert!(shapes.contains_key(&s), "no program of shape {s:?}");
        }
        let violated: u64 = shapes.values().map(|e| e[1]).sum();
        assert!(violated > 0, "no shape program fails concretely");
        assert!(violated < count, "every shape program fails concretely");
    }
}

/// Keeps a program the oracle disagreed on as `failures/NAME` with the `note` beside it
/// (`.txt`), says so on stderr, and returns the message the test fails with.
fn keep_mismatch(failures: &Path, name: &str, text: &str, note: &str) -> String {
    std::fs::create_dir_all(failures).expect("failures directory");
    let kept = failures.join(name);
    std::fs::write(&kept, text).expect("write failing program");
    std::fs::write(kept.with_extension("txt"), note).expect("write report");
    eprintln!("MISMATCH {}\n{note}", kept.display());
    format!("{} — {note}", kept.display())
}
