//! How a run is configured: schedule, inputs, uninitialized values, bounds.

use super::outcome::ThreadId;
use analysis::ir::Scalar;
use serde::{Deserialize, Serialize};

/// The configuration of one run. Every field names its default; build one with
/// `RunConfig::default()` and set the fields you need.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunConfig {
    /// Which enabled thread runs at each step. Default: [`SchedulePolicy::RoundRobin`].
    pub schedule: SchedulePolicy,
    /// Where `__VERIFIER_nondet_*` values, external results (and, under
    /// [`UninitPolicy::Nondet`], uninitialized values) come from. Default: every input is 0.
    pub inputs: InputPolicy,
    /// What an uninitialized stack slot, `malloc` block or `Rvalue::Uninit` yields.
    /// Default: [`UninitPolicy::Zero`].
    pub uninit: UninitPolicy,
    /// Stop with `BoundHit` after this many steps. Default: `None` (no step bound).
    pub max_steps: Option<u64>,
    /// Stop with `BoundHit` after this many statements (all threads). Default: 50 000 000.
    pub max_statements: u64,
    /// Stop with `BoundHit` when one thread has this many frames. Default: 100 000.
    pub max_call_depth: usize,
    /// Stop with `BoundHit` when the program creates more threads than this (`main`
    /// included). Default: 100 000.
    pub max_threads: usize,
    /// Record one [`TraceStep`](super::TraceStep) per step. Default: `true`. Turn it off
    /// for long runs whose schedule is not needed.
    pub record_trace: bool,
    /// Record every statement each thread executes with its concrete values
    /// ([`Execution::statements`](super::Execution::statements)): the observed trace of
    /// the predictive analysis. Default: `false`.
    pub record_statements: bool,
    /// POSIX lets `pthread_cond_wait` return without a signal: a waiting thread whose
    /// mutex is free may then be named by an explicit schedule entry (a spurious
    /// wake-up: it re-acquires the mutex as that step). The automatic policies
    /// (round-robin, random) never choose one. Default: `true`.
    pub spurious_wakeups: bool,
    /// Stop with `BoundHit` when the live heap blocks would exceed this many bytes (a
    /// `malloc` loop). Default: 4 GiB.
    pub max_memory: u64,
    /// Detect data races ([`super::race`]): two plain accesses to one cell by different
    /// threads, at least one a write, unordered by happens-before, end the run with a
    /// `DataRace` violation at the second. Default: `false`.
    pub detect_races: bool,
    /// The command-line arguments after the program name (`argv[1..]`) for a `main`
    /// that declares `argc`/`argv`; `argv[0]` is `"main"`. Default: none (`argc == 1`).
    pub args: Vec<String>,
    /// Start from a program context ([`crate::context`]) instead of `main`. Default:
    /// `None`.
    pub context: Option<crate::context::Context>,
    /// Stop with `BoundHit` ([`Bound::Time`](super::Bound::Time)) once this instant has
    /// passed (checked every 4,096 statements): a run of a program that spins forever
    /// must not outlive the caller's time budget. Default: `None`.
    pub deadline: Option<std::time::Instant>,
}

/// The default memory budget of both engines: 4 GiB.
pub const DEFAULT_MAX_MEMORY: u64 = 4 << 30;

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            schedule: SchedulePolicy::RoundRobin,
            inputs: InputPolicy::default(),
            uninit: UninitPolicy::Zero,
            max_steps: None,
            max_statements: 50_000_000,
            max_call_depth: 100_000,
            max_threads: 100_000,
            record_trace: true,
            record_statements: false,
            spurious_wakeups: true,
            detect_races: false,
            args: Vec::new(),
            max_memory: DEFAULT_MAX_MEMORY,
            context: None,
            deadline: None,
        }
    }
}

/// Which thread runs at each step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SchedulePolicy {
    /// The first enabled thread after the one chosen at the previous step, in id order,
    /// wrapping around (thread 0 first).
    RoundRobin,
    /// A uniformly random enabled thread, from a splitmix64 stream seeded with `seed`.
    Random { seed: u64 },
    /// `threads[i]` at step `i`; after the list, `then`. A listed thread that is not
    /// enabled at its step is an error (`RuntimeError::ScheduleDiverged`).
    List {
        threads: Vec<ThreadId>,
        then: ScheduleFallback,
    },
    /// Probabilistic concurrency testing (PCT, Burckhardt et al., ASPLOS 2010) of depth
    /// `d = changes + 1`: the threads get distinct random initial priorities above `d`,
    /// the enabled thread of highest priority runs, and after step `k_i` (`i = 1..d-1`,
    /// each drawn uniformly from `1..=horizon`, the expected run length in steps) the
    /// thread that ran it drops to priority `i`. Unlike `Random`, this starves threads
    /// for long stretches, which finds orders a uniform choice at every step almost
    /// never takes: a bug of depth d shows with probability at least 1/(n·k^(d-1)) for
    /// n threads and k steps.
    Priority {
        seed: u64,
        changes: u32,
        horizon: u64,
    },
}

/// The policy that continues an exhausted [`SchedulePolicy::List`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScheduleFallback {
    RoundRobin,
    Random { seed: u64 },
}

/// Where input values come from: `values` in order, then `fallback`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InputPolicy {
    pub values: Vec<InputValue>,
    pub fallback: InputFallback,
}

impl InputPolicy {
    /// The given values, then zeros.
    pub fn list(values: impl IntoIterator<Item = i128>) -> Self {
        InputPolicy {
            values: values.into_iter().map(InputValue::any).collect(),
            fallback: InputFallback::Zero,
        }
    }

    /// Pseudo-random values from `seed`.
    pub fn random(seed: u64) -> Self {
        InputPolicy {
            values: Vec::new(),
            fallback: InputFallback::Random { seed },
        }
    }
}

/// One listed input. The value is truncated to the type the program asks for; when `ty`
/// is given (witness replay) the program must ask for exactly that type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputValue {
    pub value: i128,
    pub ty: Option<Scalar>,
}

impl InputValue {
    pub fn any(value: i128) -> Self {
        InputValue { value, ty: None }
    }
}

/// Inputs after the listed values run out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InputFallback {
    #[default]
    Zero,
    /// Three times in four a small value in -8..=8, else uniformly random bits: small
    /// values hit the boundary cases C programs test for, random bits the rest.
    Random { seed: u64 },
}

/// What reading an uninitialized value yields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UninitPolicy {
    #[default]
    Zero,
    /// The next input (recorded with source `Uninit`).
    Nondet,
}

impl std::str::FromStr for UninitPolicy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "zero" => Ok(UninitPolicy::Zero),
            "nondet" => Ok(UninitPolicy::Nondet),
            other => Err(format!(
                "unknown uninitialized-value policy `{other}` (zero|nondet)"
            )),
        }
    }
}

/// The splitmix64 generator: tiny, fast, and good enough for schedules and inputs.
#[derive(Clone, Debug)]
pub(crate) struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_matches_the_reference_stream() {
        // First outputs of the reference implementation seeded with 1234567.
        let mut r = SplitMix64::new(1234567);
        assert_eq!(r.next_u64(), 6457827717110365317);
        assert_eq!(r.next_u64(), 3203168211198807973);
    }
}
