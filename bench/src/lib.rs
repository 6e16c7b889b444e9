//! agx-bench: the orchestration behind `agx bench` and `agx svcomp`: reading SV-COMP task
//! definitions and the project's `// agx-verify:` fixtures, running `agx verify` on each in a child process
//! under time and memory limits, scoring the verdicts the SV-COMP way, and reporting.
//!
//! Code map:
//! - [`task`]: task definitions (`.yml`, format 1.0–2.0) and fixture headers → [`task::Task`];
//! - [`child`]: one child process with a wall-clock and an address-space limit, its peak
//!   memory from `wait4`;
//! - [`verify`]: the `agx verify --format json` contract and the mapping of a child's end
//!   to a [`verify::Status`];
//! - [`score`]: SV-COMP scoring (+2 / +1 / −32 / −16) and per-folder tallies;
//! - [`results`]: the versioned `results.json` schema (with the sections of the `--hunt`
//!   and `--paper-table2` modes), `--csv`; a leaf that the reports and drivers build on,
//!   so the modules import one another without a cycle;
//! - [`report`]: the terminal report (wrong verdicts first, per-task and per-folder tables);
//! - [`compare`]: differences between two `results.json` files;
//! - [`run`]: the parallel driver with the progress bar;
//! - [`paper`]: `--paper-table2`, the paper's Table 2 (data and SV-COMP mapping) beside
//!   agx's baseline / dpor / dpor+ag;
//! - [`peers`]: `--compare-peers`, agx's results beside other model checkers' (Nidhugg,
//!   GenMC) per task, with issue 15's goals;
//! - [`hunt`]: `--hunt`, `agx hunt --assertions` against `agx verify` on expected-false
//!   tasks;
//! - [`entries`]: `--from-entries`, verify from `main` against verify from the thread
//!   functions' context (violations missed, found only from the context, time);
//! - [`witness`]: the YAML violation witness (format 2.0 with thread ids) of `agx svcomp`.
//!
//! This is CLI orchestration, not analysis: it never looks inside a C program beyond the
//! fixture header, and it never decides a verdict itself — only `agx verify` does.

pub mod child;
pub mod compare;
pub mod disputed;
pub mod entries;
pub mod hunt;
pub mod mutate;
pub mod paper;
pub mod peers;
pub mod pipeline;
pub mod report;
pub mod results;
pub mod run;
pub mod score;
pub mod task;
pub mod verify;
pub mod witness;

/// Median of `values` (mean of the two middle ones for an even count), `None` when empty.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    Some(if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    })
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn median_of_odd_even_and_empty() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[f64::NAN, 5.0]), Some(5.0));
    }
}
