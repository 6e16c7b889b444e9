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
//! [`PROBE_MAX_RUNS`] runs, [`PROBE_MAX_STATES`] scheduling nodes and a share of the
//! time budget ([`probe_time`]).
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
//!
//! **A short search first.** The further phases below cost up to two tenths of the
//! timeout, which a program the search decides in a moment would pay for nothing. So
//! when they are on, the search itself runs first within [`quick_time`] (a tenth of the
//! timeout, at most 1 s; counted as `probe_quick_searches` and in the `probe_*` figures
//! when it does not finish): a verdict it reaches (SAFE, or a violation) is the outcome,
//! and only when it ends UNKNOWN (its time ran out, or another bound cut it) do the
//! further phases run, then the search from the start, against the overall deadline.
//! When its own state bound ([`QUICK_MAX_STATES`]) stopped the short search, that
//! search runs on the short search's engine and keeps its summary table
//! ([`Engine::restart_with_summaries`], which says why that is sound): with `dpor+ag`,
//! the subtrees the short search explored to the end are pruned, not explored again.
//! When the clock stopped it, the search starts afresh: where the clock stops depends
//! on the machine, and the statistics of a search that finishes must not.
//!
//! **Other schedules** ([`Config::probe_schedules`], session 10). The non-preemptive run
//! always takes the *oldest* waiting thread at a switch, and `main`'s return (which ends
//! the program) as soon as `main` gets there. A bug that needs the threads created last
//! to run before the first, or the threads to run before `main` returns (fkp2013,
//! nondet-loop-bound: `main` creates a checker and then n incrementers, and returns), or
//! one or two preemptions at the right places (32_pthread5_vs), is not on it. When the
//! non-preemptive probe found nothing, the same engine then tries more schedules, each
//! one thread per node ([`ProbeOrder`]): first the non-preemptive schedule that takes the
//! *newest* thread at a switch, then priority schedules (PCT, Burckhardt et al., ASPLOS
//! 2010: random thread priorities with 0, 1 or 2 change points, each a preemption), from
//! a fixed sequence of seeds (the same program gets the same schedules). In every one the
//! step that ends the program runs only when no other thread can. Their budget is their
//! own: at most [`SCHEDULES`] schedules, [`SCHEDULES_MAX_STATES`] states together (and
//! each [`SCHEDULE_MAX_STATES`] and [`PROBE_MAX_RUNS`] runs), and another [`probe_time`]
//! of the time budget. Their
//! violations are reported exactly as the first probe's (witness replayed first), their
//! work counted in the same `probe_*` figures (`probe_schedules`: how many ran). They
//! only ever add violations: a schedule that finds nothing leaves the search as it was,
//! so no verdict other than `Violation` can come from them.

use super::engine::Engine;
use super::state::{State, Status, Tid};
use super::{Config, Found, Reason, SearchOutcome, SearchStats, Strategy, Verdict, VerifyError};
use analysis::ir::Program;
use std::time::{Duration, Instant};

/// Scheduling nodes the probe may visit (all its runs together). A run of the SV-COMP
/// pthread tasks mostly has well under a thousand events; the longest (queue_ok_longest)
/// has about 14,400, which the probe then explores only in part.
pub const PROBE_MAX_STATES: u64 = 10_000;

/// Runs (full and partial) each probe schedule may make. A schedule forks at every
/// symbolic branch, so a loop that reads an input and stops the program when it is out
/// of range (`if (!(tmp < SIZE)) abort();`) gives one run per iteration: stack_longer-1's
/// 800 iterations made 800 probe runs, 85% of its time, where the search needs 4. The
/// first run takes the first side of every branch; a bug on this schedule needs only
/// one input class, and the search after the probe still explores the others.
pub const PROBE_MAX_RUNS: u64 = 16;

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
        // The first run takes `main`'s return as soon as `main` gets there: its length
        // places the priority schedules' change points (`run_length`), which the
        // deferral would move; the other orders run the exit last by their own rule.
        defer_exit: false,
        ..config.clone()
    }
}

/// The probe, then (unless it decided) the search. See the module doc.
pub fn search_with_probe(prog: &Program, config: &Config) -> Result<SearchOutcome, VerifyError> {
    if !probe_applies(config) {
        return Engine::new(prog, config)?.search();
    }
    let started = Instant::now();
    let (mut probed, length) = probe_first(prog, config)?;
    let further = config.probe_schedules || config.probe_thread_bounds;
    // The short search's engine, whose summaries the search below keeps.
    let mut resumed = None;
    if further && (probed.violations.is_empty() || config.all_violations) {
        // Most programs are decided by a short search, which the further phases would
        // only slow down: they run when it is not enough.
        let first_ms = started.elapsed().as_secs_f64() * 1000.0;
        let mut engine = Engine::new(prog, config)?;
        let quick = quick_search(&mut engine, config, started)?;
        // An UNKNOWN at any bound is not decided: the further phases may still find a
        // violation there (32_pthread5_vs: the thread bound).
        let decided =
            quick.incomplete.is_empty() || (!quick.violations.is_empty() && !config.all_violations);
        if decided {
            return Ok(with_probe(quick, probed, first_ms));
        }
        let reproducible = !stopped_by_the_clock(&quick);
        probed.add(quick);
        probed.stats.probe_quick_searches += 1;
        probe_further(prog, config, &mut probed, length)?;
        // Where the clock stopped the short search depends on the machine's speed and
        // load, and with its summaries so would the search's runs: that search starts
        // afresh, so the same program and options give the same statistics.
        resumed = reproducible.then_some(engine);
    }
    let probe_time_ms = started.elapsed().as_secs_f64() * 1000.0;
    if !probed.violations.is_empty() && !config.all_violations {
        return Ok(decided_by_probe(probed, config, probe_time_ms));
    }
    let mut search = match resumed {
        Some(mut engine) => {
            // The search from the start, pruning with what the short search learnt.
            engine.restart_with_summaries(started);
            engine
        }
        None => {
            let mut engine = Engine::new(prog, config)?;
            engine.restart_budget_at(started);
            engine
        }
    };
    let outcome = search.run()?;
    Ok(with_probe(outcome, probed, probe_time_ms))
}

/// Scheduling nodes the short search may visit (unless `Config::probe_quick_states`
/// says otherwise): about a second's work on most programs, so that it, and not the
/// clock, is what usually ends the short search (see [`stopped_by_the_clock`]).
pub const QUICK_MAX_STATES: u64 = 20_000;

/// Did a bound of time or of the machine (the deadline, the solver's deadline, the
/// process's memory) stop `outcome`'s search, rather than one of the search's own?
fn stopped_by_the_clock(outcome: &SearchOutcome) -> bool {
    outcome
        .incomplete
        .iter()
        .any(|i| matches!(i.reason, Reason::Timeout | Reason::Solver | Reason::Memory))
}

/// The longest short search: a tenth of the timeout, at most 1 s.
pub fn quick_time(timeout: Option<Duration>) -> Duration {
    let most = Duration::from_secs(1);
    timeout.map_or(most, |t| (t / 10).min(most))
}

/// The search itself (the config's strategy, reductions, summaries and checks) on
/// `engine`, within [`quick_time`] from now and [`QUICK_MAX_STATES`] scheduling nodes
/// (or `Config::probe_quick_states`): what it
/// finishes is the verdict, and nothing else runs. Otherwise the engine keeps its
/// summaries for the search that follows ([`Engine::restart_with_summaries`]), so the
/// short search's work is not lost.
fn quick_search(
    engine: &mut Engine<'_>,
    config: &Config,
    started: Instant,
) -> Result<SearchOutcome, VerifyError> {
    engine.restart_budget_at(started);
    let time = config
        .probe_quick_time
        .unwrap_or_else(|| quick_time(config.timeout));
    let ends = Instant::now() + time;
    let states = config.probe_quick_states.unwrap_or(QUICK_MAX_STATES);
    engine.limit_budget(Some(ends), Some(states));
    engine.run()
}

/// `outcome` of a search, with the probe's work (`probe_time_ms` of it) counted and its
/// violations added.
fn with_probe(mut outcome: SearchOutcome, probed: Probed, probe_time_ms: f64) -> SearchOutcome {
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
    outcome
}

/// What the probe found, over all the schedules it tried.
struct Probed {
    violations: Vec<Found>,
    /// The sums of its engines' statistics (`probe_schedules`: the schedules besides the
    /// non-preemptive one).
    stats: SearchStats,
}

impl Probed {
    fn add(&mut self, outcome: SearchOutcome) {
        let s = &outcome.stats;
        self.stats.runs += s.runs;
        self.stats.partial_runs += s.partial_runs;
        self.stats.blocked_runs += s.blocked_runs;
        self.stats.states += s.states;
        self.stats.solver_queries += s.solver_queries;
        self.stats.solver_cache_hits += s.solver_cache_hits;
        self.stats.solver_time_ms += s.solver_time_ms;
        self.stats.most_threads = self.stats.most_threads.max(s.most_threads);
        for found in outcome.violations {
            let known = self
                .violations
                .iter()
                .any(|f| f.kind == found.kind && f.span == found.span);
            if !known {
                self.violations.push(found);
            }
        }
    }
}

/// One probe engine over `order`, under `cfg` (a probe configuration).
fn probe_once(
    prog: &Program,
    cfg: &Config,
    order: ProbeOrder,
) -> Result<SearchOutcome, VerifyError> {
    let mut engine = Engine::new(prog, cfg)?;
    engine.setup.probe = true;
    engine.setup.probe_order = order;
    engine.limit_runs(PROBE_MAX_RUNS);
    engine.search()
}

/// The non-preemptive schedule, and the length of its runs.
fn probe_first(prog: &Program, config: &Config) -> Result<(Probed, u64), VerifyError> {
    let first = probe_once(prog, &probe_config(config), ProbeOrder::RoundRobin)?;
    let length = run_length(&first.stats);
    let mut probed = Probed {
        violations: Vec::new(),
        stats: SearchStats::default(),
    };
    probed.add(first);
    Ok((probed, length))
}

/// After a short search that did not finish: (with `probe_schedules`) the other
/// schedules ([`schedules`]) within their own budget, then (with `probe_thread_bounds`)
/// the thread-bounded searches.
fn probe_further(
    prog: &Program,
    config: &Config,
    probed: &mut Probed,
    length: u64,
) -> Result<(), VerifyError> {
    let first_cfg = probe_config(config);
    if !config.probe_schedules {
        if config.probe_thread_bounds {
            thread_bounded(prog, config, probed)?;
        }
        return Ok(());
    }
    let started = Instant::now();
    let time = probe_time(config.timeout);
    let state_budget = config
        .max_states
        .map_or(SCHEDULES_MAX_STATES, |m| m.min(SCHEDULES_MAX_STATES));
    let first_states = probed.stats.states;
    let run_states = (length * 4).clamp(SCHEDULE_MIN_STATES, SCHEDULE_MAX_STATES);
    for order in schedules(length).take(SCHEDULES) {
        let left_time = time.saturating_sub(started.elapsed());
        let left_states = state_budget.saturating_sub(probed.stats.states - first_states);
        if left_time.is_zero() || left_states == 0 {
            break;
        }
        let cfg = Config {
            max_states: Some(left_states.min(run_states)),
            timeout: Some(left_time),
            ..first_cfg.clone()
        };
        let outcome = probe_once(prog, &cfg, order)?;
        probed.stats.probe_schedules += 1;
        probed.add(outcome);
        if !probed.violations.is_empty() && !config.all_violations {
            return Ok(());
        }
    }
    if config.probe_thread_bounds {
        thread_bounded(prog, config, probed)?;
    }
    Ok(())
}

/// Thread bounds the probe searches under, in this order.
pub const THREAD_BOUNDS: [usize; 6] = [3, 4, 5, 6, 7, 8];

/// Scheduling nodes of each thread-bounded search.
pub const THREAD_BOUND_MAX_STATES: u64 = 50_000;

/// The thread-bounded searches (session 10): for a program one of whose probe runs
/// created more threads than a bound in [`THREAD_BOUNDS`], the search itself (the
/// config's strategy, reductions and checks) with `max_threads` at that bound, smallest
/// first, within another [`probe_time`] and [`THREAD_BOUND_MAX_STATES`] states each. A
/// bug that needs few threads of a program that creates many (32_pthread5_vs: `main`
/// creates threads forever, the bug needs three of them) is in a far smaller search
/// there. A search that cut no run at its bound, or stopped at another bound (time,
/// states), ends the phase: a larger bound would not do better. Only violations are
/// taken from them; finding none says nothing (the searches' own verdicts are dropped).
fn thread_bounded(prog: &Program, config: &Config, probed: &mut Probed) -> Result<(), VerifyError> {
    let started = Instant::now();
    let time = probe_time(config.timeout);
    let most = probed.stats.most_threads as usize;
    for bound in THREAD_BOUNDS {
        let left = time.saturating_sub(started.elapsed());
        if bound >= most || bound >= config.max_threads || left.is_zero() {
            break;
        }
        let cfg = Config {
            max_threads: bound,
            timeout: Some(left),
            max_states: Some(
                config
                    .max_states
                    .map_or(THREAD_BOUND_MAX_STATES, |m| m.min(THREAD_BOUND_MAX_STATES)),
            ),
            probe: false,
            carry: None,
            progress: None,
            ..config.clone()
        };
        let outcome = Engine::new(prog, &cfg)?.search()?;
        probed.stats.probe_thread_bounds += 1;
        let cut = outcome
            .incomplete
            .iter()
            .any(|i| i.reason == Reason::MaxThreads);
        let stopped = outcome
            .incomplete
            .iter()
            .any(|i| i.reason != Reason::MaxThreads);
        probed.add(outcome);
        if (!probed.violations.is_empty() && !config.all_violations) || !cut || stopped {
            break;
        }
    }
    Ok(())
}

/// The outcome when the probe found the violation: the search did not run.
fn decided_by_probe(probed: Probed, config: &Config, time_ms: f64) -> SearchOutcome {
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
        carried_over_limit: None,
    }
}

/// Counts the probe's work into the search's statistics.
fn add_probe(stats: &mut SearchStats, probe: &SearchStats, time_ms: f64) {
    stats.probe_runs = probe.runs;
    stats.probe_partial_runs = probe.partial_runs;
    stats.probe_blocked_runs = probe.blocked_runs;
    stats.probe_states = probe.states;
    stats.probe_time_ms = time_ms;
    stats.probe_schedules = probe.probe_schedules;
    stats.probe_thread_bounds = probe.probe_thread_bounds;
    stats.probe_quick_searches = probe.probe_quick_searches;
    stats.solver_queries += probe.solver_queries;
    stats.solver_cache_hits += probe.solver_cache_hits;
    stats.solver_time_ms += probe.solver_time_ms;
}

/// Schedules the probe tries after the non-preemptive one, at most.
pub const SCHEDULES: usize = 64;

/// Scheduling nodes those schedules may visit, all together.
pub const SCHEDULES_MAX_STATES: u64 = 20_000;

/// Scheduling nodes one of those schedules may visit: four times the non-preemptive
/// probe's average run, within these bounds (a run that does not end, such as a `main`
/// that creates threads forever, stops there).
pub const SCHEDULE_MIN_STATES: u64 = 1_000;
pub const SCHEDULE_MAX_STATES: u64 = 5_000;

/// How the probe picks the one thread it runs at a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProbeOrder {
    /// Non-preemptive: the previous step's thread while it is enabled, else the next
    /// enabled one after it in id order (round-robin). The first probe.
    RoundRobin,
    /// Non-preemptive, but at a switch the newest enabled thread (the highest id), and
    /// the step that ends the program (`main`'s return) only when nothing else can run.
    /// A bug that needs the threads created last to run first, each uninterrupted, before
    /// the first one (fkp2013: 50 increments, then the check) is its first run.
    Newest,
    /// A priority schedule (PCT: Burckhardt, Kothari, Musuvathi and Nagarakatte, ASPLOS
    /// 2010): the enabled thread of the highest priority runs. A thread's priority is a
    /// hash of `seed` and its id; the thread that takes step `changes[i]` of the path
    /// drops below every initial priority (later change points lower), so a schedule has
    /// `changes.len()` preemptions at most besides those a created thread of higher
    /// priority makes. The step that ends the program runs only when nothing else can.
    /// With `rotate`, the schedule is non-preemptive up to the first change point; from
    /// there the threads no change point lowered share the top priority and take turns
    /// step by step (round-robin from the previous step's thread, every step a switch):
    /// the strict alternation of two threads while a third waits (fib_bench's and
    /// triangular's longest runs: `main` creates both, is lowered, and reads last).
    Priorities {
        seed: u64,
        changes: Vec<u32>,
        rotate: bool,
    },
}

/// The schedules after the non-preemptive one, for runs of about `length` steps: the
/// newest thread first, then priority schedules with 0, 1, 2, 0, 1, 2, ... change points
/// at steps drawn in `0..length`, every other one rotating (a fixed sequence of seeds:
/// the same program gets the same schedules).
pub fn schedules(length: u64) -> impl Iterator<Item = ProbeOrder> {
    let length = length.max(1);
    std::iter::once(ProbeOrder::Newest).chain((1u64..).map(move |i| {
        let seed = mix(i);
        let changes = (0..i % 3)
            .map(|c| (mix(seed ^ (c + 1)) % length) as u32)
            .collect();
        ProbeOrder::Priorities {
            seed,
            changes,
            rotate: i % 2 == 0,
        }
    }))
}

/// The non-preemptive probe's average run length in steps (its states per run).
fn run_length(stats: &SearchStats) -> u64 {
    stats.states / (stats.runs + stats.partial_runs).max(1)
}

/// SplitMix64's finaliser: a well-mixed hash of `x`.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl<'p> Engine<'p> {
    /// The probe's thread at a node with state `st` and `enabled` threads (in id
    /// order), by [`super::engine::Setup::probe_order`].
    pub(crate) fn probe_choice(&self, st: &State, enabled: &[Tid]) -> Option<Tid> {
        let last = self.search.dpor.events.last().map_or(0, |e| e.tid);
        let order = &self.setup.probe_order;
        if *order == ProbeOrder::RoundRobin {
            return enabled
                .iter()
                .copied()
                .find(|&t| t >= last)
                .or_else(|| enabled.first().copied());
        }
        // A thread woken only spuriously runs when no other can; the step that ends the
        // program, when nothing else can.
        let rank = |t: Tid| -> u8 {
            if matches!(
                st.threads[t].status,
                Status::Ending {
                    exit_program: true,
                    ..
                }
            ) {
                0
            } else if !self.is_enabled_without_wakeup(st, t) {
                1
            } else {
                2
            }
        };
        match order {
            ProbeOrder::RoundRobin => None,
            ProbeOrder::Newest => {
                if enabled.contains(&last) && rank(last) == 2 {
                    return Some(last);
                }
                enabled.iter().copied().max_by_key(|&t| (rank(t), t))
            }
            ProbeOrder::Priorities {
                seed,
                changes,
                rotate,
            } => {
                let events = &self.search.dpor.events;
                // Rotating: non-preemptive up to the first change point.
                let first = changes.iter().min().map_or(0, |&c| c as usize + 1);
                if *rotate && events.len() < first && enabled.contains(&last) && rank(last) == 2 {
                    return Some(last);
                }
                let n = st.threads.len().max(1);
                // (rank, not lowered, priority): a lowered thread's priority is its
                // latest change point's level (later change points lower); the others'
                // is the seed's hash, or with `rotate` their turn after `last`.
                let key = |t: Tid| -> (u8, bool, u64) {
                    let lowered = changes
                        .iter()
                        .enumerate()
                        .filter(|&(_, &c)| events.get(c as usize).is_some_and(|e| e.tid == t))
                        .map(|(i, _)| (changes.len() - i) as u64)
                        .next_back();
                    match lowered {
                        Some(level) => (rank(t), false, level),
                        None if *rotate => (rank(t), true, (n - (t + n - last - 1) % n) as u64),
                        None => (rank(t), true, mix(seed ^ mix(t as u64))),
                    }
                };
                enabled.iter().copied().max_by_key(|&t| (key(t), t))
            }
        }
    }
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
    fn the_schedules_are_newest_first_then_seeded_priorities_with_up_to_two_changes() {
        let all: Vec<ProbeOrder> = schedules(40).take(SCHEDULES).collect();
        assert_eq!(all.len(), SCHEDULES);
        assert_eq!(all[0], ProbeOrder::Newest);
        let mut seeds = std::collections::BTreeSet::new();
        for (i, order) in all.iter().enumerate().skip(1) {
            let ProbeOrder::Priorities { seed, changes, .. } = order else {
                panic!("schedule {i} is {order:?}");
            };
            assert_eq!(changes.len(), i % 3, "{order:?}");
            assert!(changes.iter().all(|&c| c < 40), "{order:?}");
            seeds.insert(*seed);
        }
        assert_eq!(seeds.len(), SCHEDULES - 1, "every seed differs");
        // The same program gets the same schedules.
        assert_eq!(all, schedules(40).take(SCHEDULES).collect::<Vec<_>>());
        // A run of no steps still gets change points (at step 0).
        assert!(schedules(0)
            .take(4)
            .all(|o| !matches!(o, ProbeOrder::Priorities { changes, .. } if changes.iter().any(|&c| c > 0))));
    }

    /// A thread that reads `n` inputs and stops the program when one is out of range.
    fn range_checked_inputs(n: usize) -> Program {
        let src = format!(
            "#include <pthread.h>\n#include <stdlib.h>\n#include <assert.h>\n\
             unsigned __VERIFIER_nondet_uint(void);\nunsigned sum = 0;\n\
             void *t(void *a) {{\n  for (int i = 0; i < {n}; i++) {{\n\
             \x20   unsigned v = __VERIFIER_nondet_uint();\n    if (!(v < 8)) abort();\n\
             \x20   sum += v;\n  }}\n  return 0;\n}}\n\
             int main(void) {{\n  pthread_t x;\n  pthread_create(&x, 0, t, 0);\n\
             \x20 pthread_join(x, 0);\n  assert(sum <= 7 * {n});\n  return 0;\n}}\n"
        );
        crate::test_support::lower(&format!("inputs_{n}.c"), &src)
    }

    #[test]
    fn a_probe_schedule_makes_one_run_per_input_class_up_to_its_run_bound() {
        let cfg = probe_config(&Config::default());
        let runs = |n| {
            let out =
                probe_once(&range_checked_inputs(n), &cfg, ProbeOrder::RoundRobin).expect("probes");
            assert!(out.violations.is_empty(), "{:?}", out.violations);
            out.stats.runs + out.stats.partial_runs
        };
        // The first run, and per iteration the two ends of an out-of-range input (the
        // abort; `main` waiting for the thread it stopped).
        assert_eq!(runs(3), 7);
        assert_eq!(runs(40), PROBE_MAX_RUNS);
    }

    #[test]
    fn the_run_length_is_the_states_per_run() {
        let stats = SearchStats {
            runs: 2,
            partial_runs: 2,
            states: 400,
            ..SearchStats::default()
        };
        assert_eq!(run_length(&stats), 100);
        assert_eq!(run_length(&SearchStats::default()), 0);
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
        // The first run's length places the PCT change points: it takes main's return
        // as soon as main gets there (session 12).
        assert!(c.defer_exit && !p.defer_exit);
        c.max_states = None;
        assert_eq!(probe_config(&c).max_states, Some(PROBE_MAX_STATES));
    }
}
