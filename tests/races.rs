//! The data-race property (`agx verify --check race`, `symbolic::Checks::race`) against
//! the interpreter's own race detector (`explorer::concrete::race`, vector clocks): on
//! random programs (`tests/common/gen.rs`), random and PCT schedules with race detection
//! on must never find a race where a search that finished says SAFE; a search that
//! finished finds a race wherever the random runs found one; and every race a search
//! reports replays on the interpreter, which finds that race itself, with the two
//! accesses in adjacent steps at the end of the witness.
//!
//! `AGX_RACE_PROGRAMS=N` checks N programs (default 12); `AGX_RACE_RUNS=K` concrete runs
//! per program (default 300).

mod common;

use analysis::FrontendOptions;
use common::gen;
use explorer::concrete::{self, replay, RunOutcome, ViolationKind};
use explorer::symbolic::{self, Checks, Config, SearchOutcome, Strategy, Verdict};
use std::time::Duration;

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Does some random or PCT run of `program` meet a data race? Returns the racing lines.
fn concrete_race(program: &analysis::ir::Program, seed: u64, runs: u64) -> Option<(u32, u32)> {
    for run in 0..runs {
        let config = gen::race_run_config(seed, run);
        let Ok(e) = concrete::run(program, &config) else {
            continue;
        };
        if let RunOutcome::Violation(v) = &e.outcome {
            if let Some(r) = &v.race {
                return Some((r.first.span.line, r.second.span.line));
            }
        }
    }
    None
}

fn search(program: &analysis::ir::Program, strategy: Strategy) -> SearchOutcome {
    let mut c = Config::default();
    c.strategy = strategy;
    c.checks = Checks {
        race: true,
        no_assertions: true,
        ..Checks::default()
    };
    c.timeout = Some(Duration::from_secs(10));
    c.max_states = Some(20_000);
    symbolic::verify(program, &c).unwrap_or_else(|e| panic!("verify failed: {e}"))
}

/// A reported race replays as that race, its accesses the witness's last two steps.
fn check_witness(program: &analysis::ir::Program, o: &SearchOutcome, context: &str) {
    for found in &o.violations {
        assert_eq!(found.kind, ViolationKind::DataRace, "{context}");
        let race = found.race.as_ref().expect("a race names its accesses");
        let replayed = replay(program, &found.witness).expect("the witness replays");
        match &replayed.outcome {
            RunOutcome::Violation(v) => assert_eq!(v.race.as_deref(), Some(race), "{context}"),
            other => panic!("{context}: the witness replays as {other:?}"),
        }
        assert!(
            race.ends(&found.witness.schedule),
            "{context}: the witness does not end with the racing accesses \
             ({race:?}, schedule {:?})",
            found.witness.schedule
        );
        assert_ne!(race.first.thread, race.second.thread, "{context}");
        assert!(race.first.write || race.second.write, "{context}");
    }
}

#[test]
fn searches_agree_with_the_concrete_race_detector_on_random_programs() {
    let programs = env_or("AGX_RACE_PROGRAMS", 12);
    let runs = env_or("AGX_RACE_RUNS", 300);
    let dir = std::env::temp_dir().join(format!("agx-races-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let (mut racy, mut safe) = (0, 0);
    for seed in 1..=programs {
        let text = gen::program(seed).text;
        let path = dir.join(format!("race_{seed}.c"));
        std::fs::write(&path, &text).expect("write program");
        let program = analysis::load_program(&path, &FrontendOptions::default())
            .unwrap_or_else(|e| panic!("{}: does not lower: {e}", path.display()));
        let concrete = concrete_race(&program, seed, runs);
        for strategy in [Strategy::Dpor, Strategy::DporAg] {
            let o = search(&program, strategy);
            let context = format!(
                "{} ({}): {:?} {:?}, concrete race {concrete:?}",
                path.display(),
                strategy.name(),
                o.verdict,
                o.incomplete
            );
            check_witness(&program, &o, &context);
            if concrete.is_some() {
                assert_ne!(o.verdict, Verdict::Safe, "SAFE against a race: {context}");
                if o.incomplete.is_empty() {
                    assert_eq!(o.verdict, Verdict::Violation, "{context}");
                }
            }
            match o.verdict {
                Verdict::Violation => racy += 1,
                Verdict::Safe => safe += 1,
                Verdict::Unknown => {}
            }
        }
    }
    eprintln!("{programs} programs: {racy} searches found a race, {safe} were SAFE");
    assert!(
        racy > 0,
        "no generated program has a race: the test checks nothing"
    );
}
