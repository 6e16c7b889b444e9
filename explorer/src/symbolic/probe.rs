//! The probe (issue 15): a bounded non-preemptive search before the DPOR search.
//!
//! The search's first choice at a node is round-robin from the previous step's thread
//! (`search`: a first run that alternates threads visits the nodes later reorderings come
//! back to, so summaries prune early; PAPER-CHECKS S5's `1 + k` runs depend on it). A
//! bug that needs each thread's code un-interleaved (pthread-demo-datarace-2: no lost
//! update among 40 unprotected increments) is then the last thing that order reaches.
//! A model checker whose first execution is non-preemptive finds it at once.
//!
//! So before the search, the same engine explores the *non-preemptive* schedule: at each
//! node the thread of the previous step keeps running while it is enabled, else the next
//! enabled thread after it (round-robin). Only one thread is explored per node (no race
//! detection, no backtracking, no summaries, no slice); symbolic branches still fork, so
//! the probe is one run per feasible input class of that schedule, bounded by
//! [`PROBE_MAX_STATES`] scheduling nodes and a share of the time budget
//! ([`probe_time`]).
//!
//! - A violation it finds is reported like any other: its witness replayed on the
//!   interpreter first (a witness that does not replay is an error, as in the search).
//!   Without `all_violations` that ends the search: the verdict is `Violation` and the
//!   DPOR search does not run.
//! - Otherwise the DPOR search runs exactly as without the probe (nothing of the probe
//!   is kept: no summaries, no bounds it hit), against the same overall deadline (its
//!   clock starts before the probe). With `all_violations` it always runs, and the
//!   probe's violations that the search did not find too are listed after its own.
//! - Its cost is counted, not hidden: `SearchStats::probe_runs`, `probe_partial_runs`,
//!   `probe_states`, `probe_time_ms`; `time_ms` and the solver figures are the totals
//!   of probe and search. `runs`, `partial_runs` and `states` stay the DPOR search's (so
//!   they compare with earlier measurements and the paper's counts).
//!
//! It runs for `dpor` and `dpor+ag` ([`Config::probe`]); never for the baseline, which is
//! the unreduced reference (and what a preemption bound runs).

use super::engine::Engine;
use super::{Config, SearchOutcome, SearchStats, Strategy, Verdict, VerifyError};
use analysis::ir::Program;
use std::time::{Duration, Instant};

/// Scheduling nodes the probe may visit (all its runs together). A run of the SV-COMP
/// pthread tasks mostly has well under a thousand events; the longest (queue_ok_longest)
/// has about 14,400, which the probe then explores only in part.
pub const PROBE_MAX_STATES: u64 = 10_000;

/// The probe's share of the time budget: a tenth of `timeout`, at most 2 s (2 s when
/// there is no timeout).
pub fn probe_time(timeout: Option<Duration>) -> Duration {
    let most = Duration::from_secs(2);
    timeout.map_or(most, |t| (t / 10).min(most))
}

/// Does `config` run the probe before its search?
pub fn probe_applies(config: &Config) -> bool {
    config.probe && config.strategy != Strategy::Baseline && config.preemption_bound.is_none()
}

/// The probe's configuration: the search's, with the probe's bounds, without summaries,
/// slice, carried summaries or a progress display.
fn probe_config(config: &Config) -> Config {
    let max_states = config
        .max_states
        .map_or(PROBE_MAX_STATES, |m| m.min(PROBE_MAX_STATES));
    Config {
        strategy: Strategy::Dpor,
        slice: false,
        relevant: None,
        max_states: Some(max_states),
        timeout: Some(probe_time(config.timeout)),
        carry: None,
        progress: None,
        ..config.clone()
    }
}

/// The probe, then (unless it decided) the search. See the module doc.
pub fn search_with_probe(prog: &Program, config: &Config) -> Result<SearchOutcome, VerifyError> {
    if !probe_applies(config) {
        return Engine::new(prog, config)?.search();
    }
    let started = Instant::now();
    let probe_cfg = probe_config(config);
    let mut probe = Engine::new(prog, &probe_cfg)?;
    probe.setup.probe = true;
    let probed = probe.search()?;
    let probe_time_ms = started.elapsed().as_secs_f64() * 1000.0;
    if probed.verdict == Verdict::Violation && !config.all_violations {
        return Ok(decided_by_probe(probed, config, probe_time_ms));
    }
    let mut search = Engine::new(prog, config)?;
    search.restart_budget_at(started);
    let mut outcome = search.search()?;
    add_probe(&mut outcome.stats, &probed.stats, probe_time_ms);
    for found in probed.violations {
        let known = outcome
            .violations
            .iter()
            .any(|f| f.kind == found.kind && f.span == found.span);
        if !known {
            outcome.violations.push(found);
        }
    }
    if !outcome.violations.is_empty() {
        outcome.verdict = Verdict::Violation;
    }
    Ok(outcome)
}

/// The outcome when the probe found the violation: the search did not run.
fn decided_by_probe(probed: SearchOutcome, config: &Config, time_ms: f64) -> SearchOutcome {
    let mut stats = SearchStats::default();
    add_probe(&mut stats, &probed.stats, time_ms);
    stats.time_ms = time_ms;
    SearchOutcome {
        verdict: Verdict::Violation,
        strategy: config.strategy,
        violations: probed.violations,
        // The probe's own bounds say nothing about the program.
        incomplete: Vec::new(),
        stats,
        carried: Vec::new(),
    }
}

/// Counts the probe's work into the search's statistics.
fn add_probe(stats: &mut SearchStats, probe: &SearchStats, time_ms: f64) {
    stats.probe_runs = probe.runs;
    stats.probe_partial_runs = probe.partial_runs;
    stats.probe_blocked_runs = probe.blocked_runs;
    stats.probe_states = probe.states;
    stats.probe_time_ms = time_ms;
    stats.solver_queries += probe.solver_queries;
    stats.solver_cache_hits += probe.solver_cache_hits;
    stats.solver_time_ms += probe.solver_time_ms;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_takes_a_tenth_of_the_budget_at_most_two_seconds() {
        assert_eq!(probe_time(None), Duration::from_secs(2));
        assert_eq!(
            probe_time(Some(Duration::from_secs(5))),
            Duration::from_millis(500)
        );
        assert_eq!(
            probe_time(Some(Duration::from_secs(900))),
            Duration::from_secs(2)
        );
    }

    #[test]
    fn the_probe_runs_for_dpor_and_dpor_ag_only() {
        let mut c = Config::default();
        assert!(probe_applies(&c));
        c.strategy = Strategy::Dpor;
        assert!(probe_applies(&c));
        c.strategy = Strategy::Baseline;
        assert!(!probe_applies(&c));
        c.strategy = Strategy::DporAg;
        c.probe = false;
        assert!(!probe_applies(&c));
        c.probe = true;
        c.preemption_bound = Some(2);
        assert!(!probe_applies(&c));
    }

    #[test]
    fn the_probe_keeps_a_smaller_state_bound_and_drops_summaries() {
        let mut c = Config {
            max_states: Some(50),
            ..Config::default()
        };
        let p = probe_config(&c);
        assert_eq!(p.max_states, Some(50));
        assert_eq!(p.strategy, Strategy::Dpor);
        assert!(!p.slice);
        c.max_states = None;
        assert_eq!(probe_config(&c).max_states, Some(PROBE_MAX_STATES));
    }
}
