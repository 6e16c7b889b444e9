//! The hunt as a pipeline (issue 12, `--stages`): cheap concrete PCT runs first, then the
//! predictive analysis of every PCT run that did not fail, then the abstraction-guided
//! search for the goals still open.
//!
//! The first two stages run once for the whole program, before the goals' rounds: a
//! violation they find confirms every reach goal at its location, with a witness that
//! [`guided::confirm_witness`] replays (a prediction that does not replay is never a
//! confirmation). Each stage stops starting runs or predictions when its share of the
//! budget is spent (a PCT run or one prediction in progress is not interrupted).

use super::{Aim, Spec};
use anyhow::Result;
use explorer::concrete::pct::{self, PctOptions};
use explorer::concrete::{RunConfig, RunOutcome, ViolationKind, Witness};
use explorer::guided::{self, FoundBy, GoalKind, Hunt, Verdict};
use explorer::predict::{self, ObservedTrace, PredictOptions, Prediction};
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

/// One stage of the pipeline.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// PCT runs on the interpreter (`--pct-runs`, `--pct-depth`).
    Pct,
    /// The predictive analysis of each PCT run that did not fail.
    Predict,
    /// The abstraction-guided symbolic search (and its exhaustive fallback).
    Search,
}

/// What the stages before the search run.
pub struct Early {
    pub stages: Vec<Stage>,
    pub runs: u64,
    pub depth: u32,
    /// The whole hunt's budget; PCT gets a quarter, prediction a quarter.
    pub budget: Duration,
    pub program_name: String,
    pub spurious_wakeups: bool,
}

/// A violation found by an early stage: its witness and the stage.
struct Found {
    witness: Witness,
    by: FoundBy,
}

/// Runs the early stages; returns, per goal, the hunt that confirmed it.
pub fn run(
    program: &analysis::ir::Program,
    specs: &[Spec],
    early: &Early,
) -> Result<Vec<Option<Hunt>>> {
    let started = Instant::now();
    let mut decided: Vec<Option<Hunt>> = vec![None; specs.len()];
    let wants_pct = early.stages.contains(&Stage::Pct);
    let wants_predict = early.stages.contains(&Stage::Predict);
    if !wants_pct && !wants_predict {
        return Ok(decided);
    }
    let mut base = RunConfig::default();
    base.spurious_wakeups = early.spurious_wakeups;
    base.record_statements = wants_predict;
    let options = PctOptions {
        depth: early.depth,
        seed: 1,
        runs: early.runs,
        horizon: None,
    };
    let pct_deadline = started + early.budget / 4;
    // A run of a program that spins forever stops at the stage's deadline too.
    base.deadline = Some(pct_deadline);
    let mut passing: Vec<(RunConfig, explorer::concrete::Execution)> = Vec::new();
    pct::campaign(program, &base, &options, Some(pct_deadline), |r| {
        let Ok(execution) = r.execution else {
            return ControlFlow::Continue(());
        };
        match &execution.outcome {
            RunOutcome::Violation(v) if wants_pct && is_assertion(v.kind) => {
                let witness =
                    Witness::from_execution(&early.program_name, program, &r.config, &execution);
                let found = Found {
                    witness,
                    by: FoundBy::Pct,
                };
                confirm(program, specs, &found, started, &mut decided);
            }
            RunOutcome::Completed { .. } if wants_predict => passing.push((r.config, execution)),
            _ => {}
        }
        if decided.iter().all(Option::is_some) {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    if wants_predict {
        let predict_deadline = Instant::now() + early.budget / 4;
        for (config, execution) in passing {
            if Instant::now() >= predict_deadline || decided.iter().all(Option::is_some) {
                break;
            }
            let trace =
                ObservedTrace::from_execution(&early.program_name, program, &config, &execution);
            // A refused trace (condition variables) or a solver that gave up predicts
            // nothing; the search stage still runs.
            if let Ok(Prediction::Predicted { witness, .. }) = predict::predict(
                program,
                &trace,
                &PredictOptions {
                    deadline: Some(predict_deadline),
                    ..PredictOptions::default()
                },
            ) {
                let found = Found {
                    witness,
                    by: FoundBy::Predict,
                };
                confirm(program, specs, &found, started, &mut decided);
            }
        }
    }
    Ok(decided)
}

fn is_assertion(kind: ViolationKind) -> bool {
    matches!(kind, ViolationKind::Assertion | ViolationKind::ReachError)
}

/// Confirms every open reach goal the witness fails at (replayed against the goal).
fn confirm(
    program: &analysis::ir::Program,
    specs: &[Spec],
    found: &Found,
    started: Instant,
    decided: &mut [Option<Hunt>],
) {
    for (spec, slot) in specs.iter().zip(decided.iter_mut()) {
        let Ok(Aim::Guided(goal)) = &spec.goal else {
            continue;
        };
        if slot.is_some() || goal.kind != GoalKind::Reach || goal.locations.len() != 1 {
            continue;
        }
        if let Ok(evidence) = guided::confirm_witness(program, goal, found.witness.clone()) {
            let mut hunt =
                Hunt::without_search(Verdict::Confirmed, Some(found.by), String::new(), started);
            hunt.reason = None;
            hunt.evidence = Some(evidence);
            *slot = Some(hunt);
        }
    }
}
