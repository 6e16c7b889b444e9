//! `agx verify --context-bound K` (preemption bounding, issue 12): a schedule may switch
//! away from a still-enabled thread at most K times.
//!
//! - PAPER-CHECKS S7 (`fixtures/predict/s7_fusion{,_variant}.c`) with the whole program:
//!   `main` blocks in its first join, so reaching thread 1's first critical section
//!   costs nothing, and preempting thread 1 after it lets thread 2 fail: no violation
//!   within 0 preemptions (UNKNOWN naming the bound, never SAFE), a violation with 1.
//!   (`agx predict` counts every context switch of the trace program it completes,
//!   the switch back to thread 1 included: 2 there, tests/predict.rs.)
//! - Differential, on the random programs of `tests/common/gen.rs`: an explicit
//!   enumeration of every schedule with at most K preemptions on the interpreter
//!   (inputs 0) finds no failed assertion the bounded search misses, and every witness
//!   of the bounded search has at most K preemptions when replayed on the interpreter.
//!   `AGX_BOUND_DIFF_PROGRAMS=N` checks N programs (default 30).

mod common;

use analysis::ir::Program;
use analysis::FrontendOptions;
use common::{agx_bin, gen, process, project_root};
use explorer::concrete::{
    self, Bound, RunConfig, RunOutcome, RuntimeError, ScheduleFallback, SchedulePolicy, ThreadId,
    ViolationKind,
};
use explorer::symbolic::{self, Config, Reason, Strategy};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

fn agx(args: &[&str]) -> process::Finished {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    process::run(&agx_bin(), &args, &project_root(), Duration::from_secs(120))
}

#[test]
fn s7_is_not_violated_within_0_preemptions_and_is_with_1() {
    for file in [
        "fixtures/predict/s7_fusion.c",
        "fixtures/predict/s7_fusion_variant.c",
    ] {
        let run = agx(&["verify", file, "--context-bound", "0"]);
        assert_eq!(run.code, Some(3), "{file}: {}", run.ending());
        assert!(
            run.stdout.starts_with(
                "UNKNOWN: preemption bound: no violation within 0 preemption(s); schedules \
                 with more were not explored"
            ),
            "{file}: {}",
            run.stdout
        );
        assert!(run.stdout.contains("stats (baseline)"), "{}", run.stdout);
        let run = agx(&["verify", file, "--context-bound", "1", "--format", "json"]);
        assert_eq!(run.code, Some(1), "{file}: {}", run.ending());
        let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
        assert_eq!(json["verdict"], "violation");
        assert_eq!(json["violation"]["line"], 34, "{}", run.stdout);
        assert_eq!(json["strategy"], "baseline");
        let witness: concrete::Witness =
            serde_json::from_value(json["witness"].clone()).expect("a witness");
        let program = load(file);
        assert!(preemptions(&program, &witness).is_some_and(|p| p <= 1));
    }
}

#[test]
fn a_bound_that_cuts_nothing_leaves_the_verdict_safe() {
    let file = "fixtures/predict/bound_locked_pair.c";
    let json = |extra: &[&str]| {
        let mut args = vec!["verify", file, "--format", "json"];
        args.extend_from_slice(extra);
        let run = agx(&args);
        let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
        (run.code, v)
    };
    let (code, cut) = json(&["--context-bound", "0"]);
    assert_eq!(code, Some(3));
    assert_eq!(
        cut["reason"]
            .as_str()
            .map(|r| r.starts_with("preemption bound")),
        Some(true)
    );
    // Every schedule of this program has at most 10 preemptions: the bounded search is
    // the whole unreduced search, and complete.
    let (code, all) = json(&["--context-bound", "10"]);
    assert_eq!(code, Some(0), "{all}");
    assert_eq!(all["verdict"], "safe");
    let (_, baseline) = json(&["--strategy", "baseline"]);
    assert_eq!(all["stats"]["runs"], baseline["stats"]["runs"]);
    assert_eq!(all["stats"]["states"], baseline["stats"]["states"]);
}

#[test]
fn the_bound_refuses_incremental_verification() {
    let run = agx(&[
        "verify",
        "fixtures/predict/s7_fusion.c",
        "--context-bound",
        "1",
        "--since",
        "fixtures/predict/s7_fusion_variant.c",
    ]);
    assert_eq!(run.code, Some(2), "{}", run.ending());
    assert!(run.stderr.contains("no --context-bound"), "{}", run.stderr);
}

fn load(file: &str) -> Program {
    let path = project_root().join(file);
    analysis::load_program(&path, &FrontendOptions::default())
        .unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// Threads a generated program may have (main and at most three workers), plus one.
const THREAD_IDS: u32 = 5;
/// Steps of one enumerated schedule; a longer one makes the enumeration incomplete.
const DEPTH: usize = 60;
/// Interpreter runs one program's enumeration may spend.
const RUN_BUDGET: u64 = 40_000;

/// Runs `base` with the schedule `prefix` for exactly its steps; `None` when the last
/// thread of `prefix` is not enabled there.
fn run_prefix(
    program: &Program,
    base: &RunConfig,
    prefix: &[ThreadId],
) -> Option<Result<RunOutcome, RuntimeError>> {
    let mut config = base.clone();
    config.schedule = SchedulePolicy::List {
        threads: prefix.to_vec(),
        then: ScheduleFallback::RoundRobin,
    };
    config.max_steps = Some(prefix.len() as u64);
    config.record_trace = false;
    match concrete::run(program, &config) {
        Err(RuntimeError::ScheduleDiverged { .. }) => None,
        other => Some(other.map(|e| e.outcome)),
    }
}

/// The preemptions of a witness's schedule on the interpreter: steps of a thread other
/// than the previous one while the previous one is enabled. `None` if it diverges.
fn preemptions(program: &Program, witness: &concrete::Witness) -> Option<u32> {
    let base = witness.config();
    let schedule = &witness.schedule;
    let mut count = 0;
    for i in 0..schedule.len() {
        let previous = if i == 0 {
            ThreadId::MAIN
        } else {
            schedule[i - 1]
        };
        if schedule[i] == previous {
            continue;
        }
        let mut probe = schedule[..i].to_vec();
        probe.push(previous);
        if run_prefix(program, &base, &probe).is_some() {
            count += 1;
        }
    }
    Some(count)
}

/// An explicit enumeration of the schedules with at most `bound` preemptions.
struct Enumeration<'a> {
    program: &'a Program,
    base: RunConfig,
    bound: u32,
    runs: u64,
    complete: bool,
    /// Lines of failed assertions and reach_error calls.
    lines: BTreeSet<u32>,
}

impl Enumeration<'_> {
    fn explore(&mut self, prefix: &mut Vec<ThreadId>, used: u32) {
        if prefix.len() >= DEPTH || self.runs >= RUN_BUDGET {
            self.complete = false;
            return;
        }
        let previous = prefix.last().copied().unwrap_or(ThreadId::MAIN);
        let mut children = Vec::new();
        for t in (0..THREAD_IDS).map(ThreadId) {
            prefix.push(t);
            self.runs += 1;
            if let Some(outcome) = run_prefix(self.program, &self.base, prefix) {
                children.push((t, outcome));
            }
            prefix.pop();
        }
        let running = children.iter().any(|(t, _)| *t == previous);
        for (t, outcome) in children {
            let cost = u32::from(running && t != previous);
            if used + cost > self.bound {
                continue;
            }
            match outcome {
                Ok(RunOutcome::BoundHit {
                    bound: Bound::Steps(_),
                }) => {
                    prefix.push(t);
                    self.explore(prefix, used + cost);
                    prefix.pop();
                }
                Ok(RunOutcome::Violation(v))
                    if matches!(v.kind, ViolationKind::Assertion | ViolationKind::ReachError) =>
                {
                    self.lines.insert(v.span.line);
                }
                Ok(RunOutcome::BoundHit { .. }) | Err(_) => self.complete = false,
                Ok(_) => {}
            }
        }
    }
}

fn bounded_verify(program: &Program, bound: u32) -> (BTreeSet<u32>, Vec<concrete::Witness>, bool) {
    let mut c = Config::default();
    c.preemption_bound = Some(bound);
    c.all_violations = true;
    c.spurious_wakeups = false;
    c.timeout = Some(Duration::from_secs(20));
    c.max_states = Some(200_000);
    let outcome = symbolic::verify(program, &c).expect("verify runs");
    assert_eq!(outcome.strategy, Strategy::Baseline);
    let finished = outcome.incomplete.iter().all(|i| {
        matches!(
            i.reason,
            Reason::PreemptionBound | Reason::UndefinedBehaviour | Reason::Unsupported
        )
    });
    let lines = outcome.violations.iter().map(|v| v.span.line).collect();
    let witnesses = outcome.violations.into_iter().map(|v| v.witness).collect();
    (lines, witnesses, finished)
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn bounded_verify_agrees_with_an_enumeration_of_bounded_schedules() {
    let count = env_u64("AGX_BOUND_DIFF_PROGRAMS", 30);
    let dir = std::env::temp_dir().join(format!("agx-bound-diff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let (mut compared, mut with_violations, mut witnesses_checked) = (0, 0, 0);
    let mut enumerated_fully = 0;
    for seed in 1..=count {
        let path: PathBuf = dir.join(format!("bound_{seed}.c"));
        std::fs::write(&path, gen::program(seed).text).expect("write program");
        let program = analysis::load_program(&path, &FrontendOptions::default())
            .unwrap_or_else(|e| panic!("seed {seed}: does not lower: {e}"));
        for bound in [0, 1, 2] {
            let mut base = RunConfig::default();
            base.spurious_wakeups = false;
            let mut e = Enumeration {
                program: &program,
                base,
                bound,
                runs: 0,
                complete: true,
                lines: BTreeSet::new(),
            };
            e.explore(&mut Vec::new(), 0);
            enumerated_fully += u32::from(e.complete);
            let (lines, witnesses, finished) = bounded_verify(&program, bound);
            for w in &witnesses {
                let p = preemptions(&program, w);
                assert!(
                    p.is_some_and(|p| p <= bound),
                    "seed {seed} ({}), bound {bound}: a witness with {p:?} preemptions: {:?}",
                    path.display(),
                    w.schedule
                );
                witnesses_checked += 1;
            }
            if !finished {
                continue;
            }
            compared += 1;
            with_violations += usize::from(!e.lines.is_empty());
            assert!(
                e.lines.is_subset(&lines),
                "seed {seed} ({}), bound {bound}: schedules within the bound fail at lines \
                 {:?}, bounded verify found {lines:?}",
                path.display(),
                e.lines
            );
        }
    }
    eprintln!(
        "bounded verify: {compared} (program, bound) pairs compared, {with_violations} with \
         violations in the enumeration, {enumerated_fully} enumerations complete, \
         {witnesses_checked} witnesses checked"
    );
    assert!(compared as u64 >= count, "too few comparisons: {compared}");
    assert!(with_violations > 0, "no enumeration found a violation");
}

#[test]
fn hunt_honours_the_bound_and_never_refutes_under_it() {
    let file = "fixtures/predict/s7_fusion.c";
    let hunt = |k: &str| {
        agx(&[
            "hunt",
            file,
            "--assertions",
            "--jobs",
            "1",
            "--context-bound",
            k,
        ])
    };
    let run = hunt("0");
    assert_eq!(run.code, Some(3), "{}", run.ending());
    assert!(run.stdout.contains("UNKNOWN"), "{}", run.stdout);
    assert!(run.stdout.contains("preemption bound"), "{}", run.stdout);
    let run = hunt("1");
    assert_eq!(run.code, Some(1), "{}", run.ending());
    assert!(run.stdout.contains("CONFIRMED"), "{}", run.stdout);
    assert!(run.stdout.contains("s7_fusion.c:34"), "{}", run.stdout);
}
