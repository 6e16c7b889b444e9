//! Unit tests on programs built by hand ([`builder`]).

mod basics;
mod builder;
mod memory;
mod threads;

use super::{run, Execution, RunConfig, RunOutcome, Violation, ViolationKind};
use analysis::ir::Program;

fn run_with(p: &Program, configure: impl FnOnce(&mut RunConfig)) -> Execution {
    let mut config = RunConfig::default();
    configure(&mut config);
    run(p, &config).unwrap_or_else(|e| panic!("runtime error: {e}"))
}

fn run_default(p: &Program) -> Execution {
    run_with(p, |_| {})
}

#[track_caller]
fn violation(e: &Execution) -> &Violation {
    match &e.outcome {
        RunOutcome::Violation(v) => v,
        other => panic!("expected a violation, got {other:?}"),
    }
}

#[track_caller]
fn assert_violation(e: &Execution, kind: ViolationKind, line: u32) -> Violation {
    let v = violation(e);
    assert_eq!((v.kind, v.span.line), (kind, line), "{v:?}");
    v.clone()
}

#[track_caller]
fn assert_completed(e: &Execution, exit_code: i64) {
    assert_eq!(
        e.outcome,
        RunOutcome::Completed { exit_code },
        "output: {}",
        String::from_utf8_lossy(&e.output)
    );
}
