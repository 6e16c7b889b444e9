//! The oracle: random concrete runs on the reference interpreter (uniform and PCT
//! schedules, spurious wake-ups, inputs biased to the program's constants) and what
//! they found.

use super::Limits;
use explorer::concrete::{
    self, EventKind, Execution, InputFallback, InputPolicy, InputValue, RunConfig, RunOutcome,
    RuntimeError, ScheduleFallback, SchedulePolicy, ThreadId, UninitPolicy, ViolationKind,
};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

/// What the random concrete runs found.
#[derive(Default)]
pub(crate) struct Concrete {
    pub(crate) runs: u64,
    /// Failed assertion (and reach_error) lines, with the seed of the first run.
    pub(crate) assertions: BTreeMap<u32, u64>,
    /// Undefined behaviour (memory, division, lock/join misuse): `kind at line`, seed.
    pub(crate) undefined: BTreeMap<String, u64>,
    /// Interpreter errors (behaviour outside the model): a failure for generated code.
    pub(crate) errors: BTreeSet<String>,
}

impl Concrete {
    pub(crate) fn any_violation(&self) -> bool {
        !self.assertions.is_empty() || !self.undefined.is_empty()
    }
}

/// splitmix64, to derive run seeds.
pub(crate) fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The integer literals of the program text (and their negations, where written so).
pub(crate) fn constants(text: &str) -> Vec<i128> {
    let bytes = text.as_bytes();
    let mut found = BTreeSet::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts = bytes[i].is_ascii_digit()
            && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_'));
        if starts {
            let j = (i..bytes.len())
                .find(|&j| !bytes[j].is_ascii_digit())
                .unwrap_or(bytes.len());
            if let Ok(v) = text[i..j].parse::<i128>() {
                found.insert(v);
                if i > 0 && bytes[i - 1] == b'-' {
                    found.insert(-v);
                }
            }
            i = j;
        } else {
            i += 1;
        }
    }
    found.into_iter().collect()
}

/// The inputs of one run: mostly the program's constants (or next to them) and small
/// values, so branches on inputs go both ways; some random bits.
pub(crate) fn inputs(seed: u64, pool: &[i128]) -> InputPolicy {
    let mut r = seed;
    let mut next = |n: u64| {
        r = mix(r);
        r % n
    };
    let values = (0..32)
        .map(|_| {
            let v = match next(10) {
                0..=3 if !pool.is_empty() => {
                    pool[next(pool.len() as u64) as usize] + [0, 0, 0, 1, -1][next(5) as usize]
                }
                0..=6 => next(6) as i128 - 2,
                7 | 8 => next(2) as i128,
                _ => i128::from(next(u64::MAX) as u32 as i32),
            };
            InputValue::any(v)
        })
        .collect();
    InputPolicy {
        values,
        fallback: InputFallback::Random { seed: mix(seed) },
    }
}

/// Whether `stmt` is a `pthread_cond_wait`.
pub(crate) fn is_cond_wait(program: &analysis::ir::Program, stmt: analysis::ir::StmtId) -> bool {
    use analysis::ir::{StmtKind, StmtRef, SyncOp};
    matches!(program.stmt(stmt), StmtRef::Stmt(st)
        if matches!(st.kind, StmtKind::Sync { op: SyncOp::CondWait { .. }, .. }))
}

impl Concrete {
    /// Records the end of one run; `run_seed` names it in reports.
    pub(crate) fn record(&mut self, result: Result<&Execution, String>, run_seed: u64) {
        match result {
            Ok(e) => {
                if let RunOutcome::Violation(v) = &e.outcome {
                    match v.kind {
                        ViolationKind::Assertion | ViolationKind::ReachError => {
                            self.assertions.entry(v.span.line).or_insert(run_seed);
                        }
                        // Without `--check deadlock` a deadlocked run simply ends.
                        ViolationKind::Deadlock => {}
                        kind => {
                            self.undefined
                                .entry(format!("{} at line {}", kind.name(), v.span.line))
                                .or_insert(run_seed);
                        }
                    }
                }
            }
            Err(e) => {
                self.errors.insert(e);
            }
        }
    }
}

pub(crate) fn concrete_runs(
    program: &analysis::ir::Program,
    text: &str,
    seed: u64,
    limits: &Limits,
) -> Concrete {
    let pool = constants(text);
    let mut found = Concrete::default();
    let start = Instant::now();
    // The longest run so far, in steps: the horizon of the priority schedules' changes.
    let mut longest = 1;
    while found.runs < limits.runs && (found.runs < 20 || start.elapsed() < limits.run_time) {
        let run_seed = mix(seed.wrapping_mul(1_000_003).wrapping_add(found.runs));
        let mut config = RunConfig::default();
        // Half the runs choose uniformly at every step; the others by PCT priorities
        // with 0-3 change points, which starve threads for long stretches (orders a
        // uniform choice almost never takes: `main` reading before a thread's first
        // step, one thread running to its end first).
        config.schedule = if found.runs % 2 == 0 {
            SchedulePolicy::Random { seed: run_seed }
        } else {
            SchedulePolicy::Priority {
                seed: run_seed,
                changes: (found.runs / 2 % 4) as u32,
                horizon: longest,
            }
        };
        found.runs += 1;
        config.inputs = inputs(mix(run_seed), &pool);
        config.uninit = UninitPolicy::Nondet;
        config.max_steps = Some(3_000);
        config.max_statements = 200_000;
        config.record_trace = true;
        let run = concrete::run(program, &config);
        found.record(run.as_ref().map_err(|e| e.to_string()), run_seed);
        let Ok(e) = run else { continue };
        longest = longest.max(e.stats.steps);
        // Spurious wake-ups (issue 10, case 7): the automatic policies never choose a
        // waiting thread, an explicit schedule entry may. Replay this run up to a
        // `pthread_cond_wait` (same inputs), a few steps more while the waiter still
        // waits, then name the waiter; a random schedule continues.
        let waits: Vec<(usize, ThreadId)> = e
            .trace
            .iter()
            .enumerate()
            .filter(|(_, s)| s.event == EventKind::Statement && is_cond_wait(program, s.stmt))
            .map(|(i, s)| (i, s.thread))
            .collect();
        if waits.is_empty() {
            continue;
        }
        let (i, waiter) = waits[(mix(run_seed ^ 1) % waits.len() as u64) as usize];
        let schedule = e.schedule();
        let woken = (i + 1..schedule.len())
            .find(|&j| schedule[j] == waiter)
            .unwrap_or(schedule.len());
        let extra = (mix(run_seed ^ 2) % 3) as usize;
        let mut threads: Vec<ThreadId> = schedule[..(i + 1 + extra).min(woken)].to_vec();
        threads.push(waiter);
        let follow_seed = mix(run_seed ^ 3);
        let mut follow = config.clone();
        follow.schedule = SchedulePolicy::List {
            threads,
            then: ScheduleFallback::Random { seed: follow_seed },
        };
        found.runs += 1;
        match concrete::run(program, &follow) {
            // The mutex was taken again before the wake-up: no such run.
            Err(RuntimeError::ScheduleDiverged { .. }) => {}
            other => found.record(other.as_ref().map_err(|e| e.to_string()), follow_seed),
        }
    }
    found
}
