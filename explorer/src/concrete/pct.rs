//! PCT campaigns: many concrete runs under [`SchedulePolicy::Priority`] (probabilistic
//! concurrency testing, Burckhardt et al., ASPLOS 2010), the cheap first stage of bug
//! hunting (`agx run --schedule pct`, `agx hunt --stages pct,...`).
//!
//! The change points of PCT are drawn over the expected run length `k`; unless given,
//! it is the number of steps of one round-robin run of the program on the same inputs.

use super::config::{RunConfig, SchedulePolicy};
use super::outcome::{Execution, RuntimeError};
use super::run;
use analysis::ir::Program;
use std::ops::ControlFlow;
use std::time::Instant;

/// What a campaign runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PctOptions {
    /// The bug depth `d` PCT targets: `d - 1` priority change points (at least 1).
    pub depth: u32,
    /// The seed of the first run; run `i` uses `seed + i`.
    pub seed: u64,
    /// How many runs (at least 1).
    pub runs: u64,
    /// The expected run length in steps; `None`: measured by a round-robin run.
    pub horizon: Option<u64>,
}

/// One run of a campaign.
#[derive(Debug)]
pub struct PctRun {
    /// 0-based index in the campaign.
    pub index: u64,
    pub seed: u64,
    /// The configuration the run used (replays it).
    pub config: RunConfig,
    pub execution: Result<Execution, RuntimeError>,
}

/// The expected run length for the change points: the steps of a round-robin run with
/// `base`'s inputs and bounds (at least 1).
pub fn estimate_horizon(program: &Program, base: &RunConfig) -> u64 {
    let mut config = base.clone();
    config.schedule = SchedulePolicy::RoundRobin;
    config.record_trace = false;
    run(program, &config)
        .map(|e| e.stats.steps)
        .unwrap_or(1)
        .max(1)
}

/// The configuration of the PCT run with `seed`: `base` with the priority schedule.
pub fn pct_config(base: &RunConfig, seed: u64, depth: u32, horizon: u64) -> RunConfig {
    let mut config = base.clone();
    config.schedule = SchedulePolicy::Priority {
        seed,
        changes: depth.saturating_sub(1),
        horizon,
    };
    config
}

/// Runs the campaign: `options.runs` runs (fewer when `deadline` passes or `visit`
/// breaks), each handed to `visit` as it finishes. Returns the horizon used and the
/// number of runs made.
pub fn campaign(
    program: &Program,
    base: &RunConfig,
    options: &PctOptions,
    deadline: Option<Instant>,
    mut visit: impl FnMut(PctRun) -> ControlFlow<()>,
) -> (u64, u64) {
    let horizon = options
        .horizon
        .unwrap_or_else(|| estimate_horizon(program, base))
        .max(1);
    let mut made = 0;
    for index in 0..options.runs {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let seed = options.seed.wrapping_add(index);
        let config = pct_config(base, seed, options.depth, horizon);
        let execution = run(program, &config);
        made += 1;
        let flow = visit(PctRun {
            index,
            seed,
            config,
            execution,
        });
        if flow.is_break() {
            break;
        }
    }
    (horizon, made)
}
