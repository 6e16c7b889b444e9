//! Independent trials, one per abstract trace set, run in parallel; the verdict.
//!
//! Trials run on a rayon pool of [`Config::jobs`] workers. Z3 contexts are per OS thread
//! (z3 0.22), so each trial builds its own engine, term pool and solver on its worker,
//! and only plain data (the result, the witness) crosses threads. The first trial to
//! confirm the goal (or to explore everything) raises a flag the others poll at every
//! state.
//!
//! With no confirmation: a trial that explored everything refutes the goal; otherwise,
//! for an error-site or deadlock goal, the exhaustive `dpor+ag` search of
//! [`crate::symbolic`] on the caller's slice decides (REFUTED when it finishes with no
//! bound hit, CONFIRMED when it finds the goal), within what is left of the time budget.

use super::goal::confirm_found;
use super::search::{Trial, TrialEnd, TrialResult};
use super::trace::{trace_sets, Ranked};
use super::{Abstraction, Config, FoundBy, Goal, GoalKind, Hunt, HuntError, HuntStats, Verdict};
use crate::symbolic::{self, stepping::Stepper, Strategy};
use analysis::ir::{Program, StmtRef, TermKind};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Stack of each worker: the engine's term and solver code recurses on term depth.
const WORKER_STACK: usize = 256 << 20;

/// Hunts one goal: CONFIRMED with a replayed witness, REFUTED, or UNKNOWN with a reason.
pub fn hunt(
    prog: &Program,
    goal: &Goal,
    abs: &dyn Abstraction,
    cfg: &Config,
) -> Result<Hunt, HuntError> {
    let started = Instant::now();
    let deadline = started + cfg.timeout;
    let system = abs.system(&goal.stmts());
    let mut per_location: Vec<Vec<Ranked>> = Vec::new();
    for loc in &goal.locations {
        let mut traces = match cfg.context {
            None => system.traces_to(&loc.stmts, cfg.max_traces.max(1)),
            // The abstract traces start at main; a context's threads start elsewhere:
            // a trace of the goal location alone.
            Some(_) => loc
                .stmts
                .first()
                .map(|&s| Ranked {
                    trace: vec![s],
                    call_sites: 0,
                })
                .into_iter()
                .collect(),
        };
        if traces.is_empty() {
            let reason = format!(
                "statically unreachable: no abstract trace leads from the start of main to {}",
                loc.label
            );
            return Ok(static_refutation(reason, started));
        }
        if goal.kind.at_node() {
            // Threads must stand at the location, not run it: the trace stops before it.
            for r in &mut traces {
                r.trace.pop();
            }
        }
        per_location.push(traces);
    }
    let sets = trace_sets(&per_location, cfg.max_trace_sets.max(1));
    let results = run_trials(prog, goal, abs, cfg, &sets, deadline)?;
    let mut stats = HuntStats {
        trace_sets: sets.len(),
        trace_sets_tried: results
            .iter()
            .filter(|r| !matches!(r.1.end, TrialEnd::Cancelled))
            .count(),
        states: results.iter().map(|r| r.1.states).sum(),
        expanded: results.iter().map(|r| r.1.expanded).sum(),
        solver_queries: results.iter().map(|r| r.1.solver_queries).sum(),
        ..HuntStats::default()
    };
    let decided = decide(prog, goal, cfg, &results, &mut stats, deadline);
    stats.time_ms = started.elapsed().as_secs_f64() * 1000.0;
    Ok(Hunt { stats, ..decided })
}

/// The verdict a trial decided (found by the guided search), with its traces.
fn of_trial(
    r: &TrialResult,
    verdict: Verdict,
    reason: Option<String>,
    evidence: Option<super::Evidence>,
    stats: &HuntStats,
) -> Hunt {
    Hunt {
        verdict,
        found_by: Some(FoundBy::Guided),
        reason,
        evidence,
        initial_traces: r.initial_traces.clone(),
        final_traces: r.final_traces.clone(),
        refinements: r.refinements.clone(),
        stats: stats.clone(),
    }
}

fn static_refutation(reason: String, started: Instant) -> Hunt {
    Hunt::without_search(Verdict::Refuted, Some(FoundBy::Static), reason, started)
}

/// `(index of the trace set, result)` for every trial, in trace-set order.
fn run_trials(
    prog: &Program,
    goal: &Goal,
    abs: &dyn Abstraction,
    cfg: &Config,
    sets: &[super::trace::TraceSetChoice],
    deadline: Instant,
) -> Result<Vec<(usize, TrialResult)>, HuntError> {
    let cancel = AtomicBool::new(false);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.jobs.max(1))
        .stack_size(WORKER_STACK)
        .thread_name(|i| format!("agx-hunt-{i}"))
        .build()
        .map_err(|e| HuntError::Workers(e.to_string()))?;
    // Each trial gets a slice of the budget, so that a hopeless first trace set cannot
    // starve the others: the time left, shared by the trials not yet started, `jobs` at
    // a time.
    let jobs = cfg.jobs.max(1);
    let started = std::sync::atomic::AtomicUsize::new(0);
    let one = |i: usize| -> Result<(usize, TrialResult), HuntError> {
        let sym = engine_config(cfg);
        let mut engine = Stepper::new(prog, &sym).map_err(|e| HuntError::Program(e.to_string()))?;
        if cancel.load(Ordering::Relaxed) {
            return Ok((i, cancelled(&sets[i].traces)));
        }
        let before = started.fetch_add(1, Ordering::Relaxed);
        let waves = (sets.len() - before).div_ceil(jobs).max(1) as u32;
        let now = Instant::now();
        let slice = deadline.saturating_duration_since(now) / waves;
        let trial_deadline = (now + slice).min(deadline);
        engine.set_solver_deadline(trial_deadline);
        let trial = Trial::new(prog, goal, abs, cfg, engine, &cancel, trial_deadline);
        let result = trial.run_along(sets[i].traces.clone());
        if decisive(&result.end) {
            cancel.store(true, Ordering::Relaxed);
        }
        Ok((i, result))
    };
    pool.install(|| {
        if cfg.jobs <= 1 {
            // In rank order, stopping at the first confirmation: deterministic.
            let mut out = Vec::new();
            for i in 0..sets.len() {
                let r = one(i)?;
                let done = decisive(&r.1.end);
                out.push(r);
                if done || Instant::now() >= deadline {
                    break;
                }
            }
            Ok(out)
        } else {
            (0..sets.len()).into_par_iter().map(one).collect()
        }
    })
}

/// A trial that confirmed the goal, or explored everything: the other trials cannot
/// change the verdict.
fn decisive(end: &TrialEnd) -> bool {
    matches!(
        end,
        TrialEnd::Confirmed(_) | TrialEnd::Exhausted { complete: true }
    )
}

fn cancelled(traces: &[Vec<analysis::ir::StmtId>]) -> TrialResult {
    TrialResult {
        end: TrialEnd::Cancelled,
        incomplete: Vec::new(),
        states: 0,
        expanded: 0,
        refinements: Vec::new(),
        refinements_exhausted: false,
        unrefinable: Vec::new(),
        initial_traces: traces.to_vec(),
        final_traces: traces.to_vec(),
        solver_queries: 0,
    }
}

/// The engine configuration of a trial: the guided search drives the engine's steps
/// itself, so the engine's own search strategy and summaries stay off.
fn engine_config(cfg: &Config) -> symbolic::Config {
    symbolic::Config {
        strategy: Strategy::Baseline,
        slice: false,
        unwind: cfg.unwind,
        max_events: cfg.max_depth,
        query_timeout: cfg.query_timeout,
        uninit: cfg.uninit,
        program_name: cfg.program_name.clone(),
        spurious_wakeups: cfg.spurious_wakeups,
        max_memory: cfg.max_memory,
        context: cfg.context.clone(),
        ..symbolic::Config::default()
    }
}

fn decide(
    prog: &Program,
    goal: &Goal,
    cfg: &Config,
    results: &[(usize, TrialResult)],
    stats: &mut HuntStats,
    deadline: Instant,
) -> Hunt {
    if let Some((_, r)) = results
        .iter()
        .find(|r| matches!(r.1.end, TrialEnd::Confirmed(_)))
    {
        let TrialEnd::Confirmed(ev) = &r.end else {
            unreachable!("found as confirmed")
        };
        fill_trial_stats(stats, r);
        return of_trial(r, Verdict::Confirmed, None, Some((**ev).clone()), stats);
    }
    let main = results
        .iter()
        .max_by_key(|r| (r.1.refinements.len(), r.1.states))
        .map(|r| &r.1);
    if let Some(r) = main {
        fill_trial_stats(stats, r);
    }
    let traces = |r: Option<&TrialResult>| {
        (
            r.map(|r| r.initial_traces.clone()).unwrap_or_default(),
            r.map(|r| r.final_traces.clone()).unwrap_or_default(),
        )
    };
    if let Some((i, r)) = results
        .iter()
        .find(|r| matches!(r.1.end, TrialEnd::Exhausted { complete: true }))
    {
        fill_trial_stats(stats, r);
        let reason = format!(
            "trial {} explored every schedule and input ({} states) without meeting the goal",
            i + 1,
            r.states
        );
        return of_trial(r, Verdict::Refuted, Some(reason), None, stats);
    }
    let guided_reason = unknown_reason(prog, cfg, results);
    let (initial_traces, final_traces) = traces(main);
    let refinements = main.map(|r| r.refinements.clone()).unwrap_or_default();
    let unknown = |reason: String, stats: &HuntStats| Hunt {
        verdict: Verdict::Unknown,
        found_by: None,
        reason: Some(reason),
        evidence: None,
        initial_traces: initial_traces.clone(),
        final_traces: final_traces.clone(),
        refinements: refinements.clone(),
        stats: stats.clone(),
    };
    let exhaustive_applies = match goal.kind {
        GoalKind::Reach => goal.locations[0]
            .stmts
            .iter()
            .any(|&s| is_error_site(prog, s)),
        GoalKind::Deadlock => true,
        _ => false,
    };
    let left = deadline.saturating_duration_since(Instant::now());
    if !cfg.refute || !exhaustive_applies || left.is_zero() {
        return unknown(guided_reason, stats);
    }
    match exhaustive(prog, goal, cfg, left) {
        Err(why) => unknown(
            format!("{guided_reason}; the exhaustive search failed: {why}"),
            stats,
        ),
        Ok(out) => {
            stats.exhaustive_states = out.stats.states;
            stats.states += out.stats.states;
            stats.expanded += out.stats.states;
            match out.verdict {
                symbolic::Verdict::Safe => Hunt {
                    verdict: Verdict::Refuted,
                    found_by: Some(FoundBy::Exhaustive),
                    reason: Some(format!(
                        "the exhaustive dpor+ag search on the slice finished ({} states, no bound hit) without reaching it",
                        out.stats.states
                    )),
                    ..unknown(String::new(), stats)
                },
                symbolic::Verdict::Violation => {
                    let found = out.violations.first().map(|f| confirm_found(prog, goal, f.witness.clone()));
                    match found {
                        Some(Ok(ev)) => Hunt {
                            verdict: Verdict::Confirmed,
                            found_by: Some(FoundBy::Exhaustive),
                            reason: None,
                            evidence: Some(ev),
                            ..unknown(String::new(), stats)
                        },
                        Some(Err(why)) => unknown(format!("{guided_reason}; the exhaustive search: {why}"), stats),
                        None => unknown(guided_reason, stats),
                    }
                }
                symbolic::Verdict::Unknown => {
                    let why: Vec<String> = out
                        .incomplete
                        .iter()
                        .map(|i| format!("{}: {}", i.reason, i.detail))
                        .collect();
                    unknown(format!("{guided_reason}; the exhaustive search is incomplete ({})", why.join("; ")), stats)
                }
            }
        }
    }
}

fn fill_trial_stats(stats: &mut HuntStats, r: &TrialResult) {
    stats.states_decisive = r.states;
    stats.expanded_decisive = r.expanded;
    stats.refinements = r.refinements.len() as u32;
    stats.trace_length = r.initial_traces.iter().map(Vec::len).sum();
}

fn is_error_site(prog: &Program, s: analysis::ir::StmtId) -> bool {
    matches!(prog.stmt(s), StmtRef::Term(t) if matches!(&t.kind, TermKind::Error(f) if f.is_reach_goal()))
}

/// Why no trial decided, in words: the bound or the exhausted refinements.
fn unknown_reason(prog: &Program, cfg: &Config, results: &[(usize, TrialResult)]) -> String {
    if results.is_empty() {
        return "no abstract trace set to try".into();
    }
    let mut parts: Vec<String> = Vec::new();
    let mut add = |s: String| {
        if !parts.contains(&s) {
            parts.push(s);
        }
    };
    for (_, r) in results {
        if r.refinements_exhausted {
            add(format!(
                "refinements exhausted ({} of at most {})",
                r.refinements.len(),
                cfg.max_refinements
            ));
        }
        if !r.unrefinable.is_empty() {
            let branches: Vec<String> = r
                .unrefinable
                .iter()
                .map(|&b| prog.location(prog.stmt(b).span()))
                .collect();
            add(format!(
                "no definition to add for the branch(es) at {}",
                branches.join(", ")
            ));
        }
        match &r.end {
            TrialEnd::Stopped(why) => add(format!("bound: {why}")),
            TrialEnd::Exhausted { .. } => {
                let cut: Vec<String> = r
                    .incomplete
                    .iter()
                    .map(|(k, d)| format!("{k}: {d}"))
                    .collect();
                add(format!(
                    "backtrack points exhausted; paths were cut ({})",
                    cut.join("; ")
                ));
            }
            _ => {}
        }
    }
    format!(
        "{} trace set(s) tried without confirmation: {}",
        results.len(),
        parts.join("; ")
    )
}

fn exhaustive(
    prog: &Program,
    goal: &Goal,
    cfg: &Config,
    left: Duration,
) -> Result<symbolic::SearchOutcome, String> {
    let mut c = symbolic::Config {
        strategy: Strategy::DporAg,
        relevant: cfg.relevant.clone(),
        slice: cfg.relevant.is_some(),
        unwind: cfg.unwind,
        max_events: cfg.max_depth,
        timeout: Some(left),
        max_states: cfg.exhaustive_max_states,
        query_timeout: cfg.query_timeout,
        uninit: cfg.uninit,
        program_name: cfg.program_name.clone(),
        spurious_wakeups: cfg.spurious_wakeups,
        max_memory: cfg.max_memory,
        preemption_bound: cfg.preemption_bound,
        context: cfg.context.clone(),
        ..symbolic::Config::default()
    };
    match goal.kind {
        GoalKind::Deadlock => c.checks.deadlock = true,
        _ => {
            let sites: Vec<_> = goal.locations[0]
                .stmts
                .iter()
                .filter(|&&s| is_error_site(prog, s))
                .map(|&s| {
                    let span = prog.stmt(s).span();
                    (span.file, span.line)
                })
                .collect();
            c.targets = Some(sites);
        }
    }
    symbolic::verify(prog, &c).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guided::{AbstractGraph, AbstractNode, EdgeKind, GoalLocation};
    use analysis::ir::{StmtId, StmtKind};
    use std::path::PathBuf;

    /// A coarse abstraction: the start of `main` and an edge from it to each target
    /// (with no start, an empty system: nothing is reachable); no definitions, so no
    /// refinement.
    struct Direct {
        start: Option<StmtId>,
    }

    impl Abstraction for Direct {
        fn system(&self, targets: &[StmtId]) -> AbstractGraph {
            let Some(start) = self.start else {
                return AbstractGraph::default();
            };
            let mut g = AbstractGraph {
                start: Some(start),
                ..AbstractGraph::default()
            };
            g.nodes.insert(start, AbstractNode::default());
            for &t in targets {
                g.nodes.insert(t, AbstractNode::default());
                g.edges.push((start, t, EdgeKind::Flow));
            }
            g
        }
        fn definitions(&self, _: StmtId) -> Vec<StmtId> {
            Vec::new()
        }
        fn same_lock(&self, _: StmtId, _: StmtId) -> bool {
            false
        }
        fn releases(&self, _: StmtId) -> Vec<StmtId> {
            Vec::new()
        }
        fn runs_once(&self, _: StmtId) -> bool {
            false
        }
    }

    /// The coarse abstraction of `p`, from the start of its `main`.
    fn direct(p: &Program) -> Direct {
        Direct {
            start: Some(entry(p)),
        }
    }

    fn load(name: &str) -> Program {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures")
            .join(name);
        analysis::load_program(&path, &Default::default()).expect("the fixture lowers")
    }

    fn entry(p: &Program) -> StmtId {
        let main = p.function(p.main);
        let b = &main.blocks[0];
        b.stmts.first().map_or(b.term.id, |s| s.id)
    }

    /// The stores of a source line.
    fn stores_at(p: &Program, line: u32) -> Vec<StmtId> {
        p.functions
            .iter()
            .flat_map(|f| f.blocks.iter())
            .flat_map(|b| b.stmts.iter())
            .filter(|s| s.span.line == line && matches!(s.kind, StmtKind::Store { .. }))
            .map(|s| s.id)
            .collect()
    }

    fn goal(kind: GoalKind, lines: &[(Vec<StmtId>, &str)]) -> Goal {
        Goal {
            kind,
            locations: lines
                .iter()
                .map(|(stmts, label)| GoalLocation {
                    stmts: stmts.clone(),
                    label: label.to_string(),
                })
                .collect(),
        }
    }

    #[test]
    fn a_race_is_confirmed_with_the_two_writes_last() {
        let p = load("hunt/race_counter.c");
        let writes = stores_at(&p, 26);
        let g = goal(
            GoalKind::Race,
            &[(writes.clone(), "26"), (writes.clone(), "26")],
        );
        let h = hunt(&p, &g, &direct(&p), &Config::default()).unwrap();
        assert_eq!(h.verdict, Verdict::Confirmed, "{:?}", h.reason);
        let ev = h.evidence.unwrap();
        let n = ev.steps.len();
        let last: Vec<(u32, StmtId)> = ev.steps[n - 2..]
            .iter()
            .map(|s| (s.thread, s.stmt))
            .collect();
        assert_eq!(last, ev.goal_threads);
        assert_ne!(last[0].0, last[1].0);
    }

    #[test]
    fn no_abstract_trace_means_statically_unreachable() {
        let p = load("hunt/race_counter.c");
        let g = goal(GoalKind::Reach, &[(stores_at(&p, 26), "26")]);
        let h = hunt(&p, &g, &Direct { start: None }, &Config::default()).unwrap();
        assert_eq!(h.verdict, Verdict::Refuted);
        assert_eq!(h.found_by, Some(FoundBy::Static));
        assert_eq!(h.stats.states, 0);
    }

    #[test]
    fn a_race_no_schedule_has_is_refuted_by_exploring_everything() {
        let p = load("hunt/race_refuted.c");
        let writes = stores_at(&p, 24);
        let g = goal(GoalKind::Race, &[(writes.clone(), "24"), (writes, "24")]);
        let cfg = Config {
            jobs: 2,
            ..Config::default()
        };
        let h = hunt(&p, &g, &direct(&p), &cfg).unwrap();
        assert_eq!(h.verdict, Verdict::Refuted, "{:?}", h.reason);
        assert_eq!(h.found_by, Some(FoundBy::Guided));
        assert!(h.stats.states > 0);
    }

    #[test]
    fn a_reach_goal_cut_by_the_state_bound_is_unknown_with_the_bound_named() {
        let p = load("hunt/race_refuted.c");
        let g = goal(GoalKind::Reach, &[(stores_at(&p, 24), "24")]);
        let cfg = Config {
            max_states: 1,
            ..Config::default()
        };
        let h = hunt(&p, &g, &direct(&p), &cfg).unwrap();
        // One state is not enough to reach the worker's store.
        assert_eq!(h.verdict, Verdict::Unknown);
        assert!(h.reason.unwrap().contains("state bound of 1"));
    }
}
