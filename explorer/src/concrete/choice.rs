//! The two sources of nondeterminism of a run: the scheduler (which thread runs at each
//! step) and the input stream.

use super::config::{
    InputFallback, InputPolicy, InputValue, ScheduleFallback, SchedulePolicy, SplitMix64,
};
use super::outcome::{RuntimeError, ThreadId};
use analysis::ir::{sign_extend, truncate, DataModel, Scalar};

/// Chooses the thread of each step.
pub(crate) struct Scheduler {
    list: Vec<ThreadId>,
    next_in_list: usize,
    mode: Mode,
    /// The thread chosen at the previous step (round-robin starts after it).
    last: Option<ThreadId>,
}

enum Mode {
    RoundRobin,
    Random(SplitMix64),
    Priority(Priorities),
}

/// The state of [`SchedulePolicy::Priority`]: the PCT scheduler of Burckhardt et al.
/// (ASPLOS 2010, Fig. 2) for depth `d = changes + 1`.
///
/// - Initial priorities are distinct, a uniformly random permutation of `d, d+1, ...`
///   over the threads. Threads appear one by one (creation is dynamic), so each new
///   thread is inserted at a uniformly random rank among those already seen, which gives
///   every permutation the same probability (`rank` below).
/// - Change point `k_i` (`i = 1..d-1`) is drawn uniformly from `1..=horizon`, with
///   priority `i` (below every initial one); after the thread running step number `k_i`
///   (counting from 1) has executed it, its priority becomes `i`.
/// - Every step runs the enabled thread of highest priority.
struct Priorities {
    rng: SplitMix64,
    /// Threads by initial priority, lowest first (the rank order of the permutation).
    rank: Vec<ThreadId>,
    /// The lowered priority of a thread that passed a change point (`i >= 1`), by index.
    lowered: Vec<u32>,
    /// `(k_i, i)`: change points with their priorities, drawn in order of `i`.
    changes: Vec<(u64, u32)>,
}

impl Priorities {
    fn new(seed: u64, changes: u32, horizon: u64) -> Self {
        let mut rng = SplitMix64::new(seed);
        let changes = (1..=changes)
            .map(|i| (1 + rng.below(horizon.max(1)), i))
            .collect();
        Priorities {
            rng,
            rank: Vec::new(),
            lowered: Vec::new(),
            changes,
        }
    }

    /// Gives every thread not seen yet its random rank.
    fn admit(&mut self, enabled: &[ThreadId]) {
        for &t in enabled {
            if self.lowered.len() <= t.index() {
                self.lowered.resize(t.index() + 1, 0);
            }
            if !self.rank.contains(&t) {
                let at = self.rng.below(self.rank.len() as u64 + 1) as usize;
                self.rank.insert(at, t);
            }
        }
    }

    /// The priority of `t`: its change-point priority once lowered, else `d + rank`.
    fn priority(&self, t: ThreadId) -> u64 {
        match self.lowered[t.index()] {
            0 => {
                let rank = self.rank.iter().position(|&r| r == t).unwrap_or(0);
                self.changes.len() as u64 + 1 + rank as u64
            }
            i => u64::from(i),
        }
    }

    /// The thread of step `step` (0-based), which is step `step + 1` of the paper.
    fn choose(&mut self, step: u64, enabled: &[ThreadId]) -> ThreadId {
        self.admit(enabled);
        let chosen = *enabled
            .iter()
            .max_by_key(|&&t| self.priority(t))
            .unwrap_or(&enabled[0]);
        // The chosen thread executes step `step + 1`; a change point there lowers it
        // afterwards (two change points on one step: the later-drawn priority wins,
        // as it would in the paper's sequential loop).
        for &(k, i) in &self.changes {
            if k == step + 1 {
                self.lowered[chosen.index()] = i;
            }
        }
        chosen
    }
}

impl Scheduler {
    pub fn new(policy: &SchedulePolicy) -> Self {
        let (list, mode) = match policy {
            SchedulePolicy::RoundRobin => (Vec::new(), Mode::RoundRobin),
            SchedulePolicy::Random { seed } => (Vec::new(), Mode::Random(SplitMix64::new(*seed))),
            SchedulePolicy::Priority {
                seed,
                changes,
                horizon,
            } => (
                Vec::new(),
                Mode::Priority(Priorities::new(*seed, *changes, *horizon)),
            ),
            SchedulePolicy::List { threads, then } => {
                let mode = match then {
                    ScheduleFallback::RoundRobin => Mode::RoundRobin,
                    ScheduleFallback::Random { seed } => Mode::Random(SplitMix64::new(*seed)),
                };
                (threads.clone(), mode)
            }
        };
        Scheduler {
            list,
            next_in_list: 0,
            mode,
            last: None,
        }
    }

    /// The next explicitly listed thread, if the list is not used up.
    pub fn next_listed(&self) -> Option<ThreadId> {
        self.list.get(self.next_in_list).copied()
    }

    /// The thread of step `step` among `enabled` (sorted; non-empty unless the next
    /// listed entry is in `wakeable`). A listed entry may also name a thread of
    /// `wakeable` (a spurious wake-up); the automatic policies choose among `enabled`
    /// only. Consumes one list entry whatever the number of enabled threads.
    pub fn choose(
        &mut self,
        step: u64,
        enabled: &[ThreadId],
        wakeable: &[ThreadId],
    ) -> Result<ThreadId, RuntimeError> {
        let chosen = if let Some(&listed) = self.list.get(self.next_in_list) {
            self.next_in_list += 1;
            if !enabled.contains(&listed) && !wakeable.contains(&listed) {
                return Err(RuntimeError::ScheduleDiverged {
                    step,
                    thread: listed,
                    enabled: list_threads(enabled),
                });
            }
            listed
        } else {
            match &mut self.mode {
                Mode::RoundRobin => {
                    let after = |t: &&ThreadId| self.last.is_none_or(|last| **t > last);
                    *enabled.iter().find(after).unwrap_or(&enabled[0])
                }
                Mode::Random(rng) => enabled[rng.below(enabled.len() as u64) as usize],
                Mode::Priority(p) => p.choose(step, enabled),
            }
        };
        self.last = Some(chosen);
        Ok(chosen)
    }
}

fn list_threads(threads: &[ThreadId]) -> String {
    if threads.is_empty() {
        return "none".to_string();
    }
    let names: Vec<String> = threads.iter().map(|t| t.to_string()).collect();
    names.join(", ")
}

/// The stream of input values.
pub(crate) struct Inputs {
    values: Vec<InputValue>,
    next: usize,
    random: Option<SplitMix64>,
}

impl Inputs {
    pub fn new(policy: &InputPolicy) -> Self {
        let random = match policy.fallback {
            InputFallback::Zero => None,
            InputFallback::Random { seed } => Some(SplitMix64::new(seed)),
        };
        Inputs {
            values: policy.values.clone(),
            next: 0,
            random,
        }
    }

    /// The next input as bits of `ty`. `location` names the statement for a divergence.
    pub fn take(
        &mut self,
        ty: Scalar,
        dm: DataModel,
        location: impl FnOnce() -> String,
    ) -> Result<u64, RuntimeError> {
        let bits = ty.bits(dm);
        let index = self.next;
        let raw = match self.values.get(index) {
            Some(listed) => {
                self.next += 1;
                if let Some(expected) = listed.ty.filter(|&expected| expected != ty) {
                    return Err(RuntimeError::InputDiverged {
                        index,
                        expected,
                        found: ty,
                        location: location(),
                    });
                }
                listed.value as u64
            }
            None => match &mut self.random {
                None => 0,
                Some(rng) => random_value(rng),
            },
        };
        Ok(truncate(raw, bits))
    }
}

fn random_value(rng: &mut SplitMix64) -> u64 {
    if rng.below(4) == 0 {
        rng.next_u64()
    } else {
        (rng.below(17) as i64 - 8) as u64
    }
}

/// The value `bits` of type `ty` as a number: sign-extended for signed types.
pub(crate) fn as_number(bits: u64, ty: Scalar, dm: DataModel) -> i128 {
    let width = ty.bits(dm);
    if ty.is_signed() {
        i128::from(sign_extend(bits, width))
    } else {
        i128::from(truncate(bits, width))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ids: &[u32]) -> Vec<ThreadId> {
        ids.iter().map(|&i| ThreadId(i)).collect()
    }

    #[test]
    fn round_robin_cycles_through_enabled_threads() {
        let mut s = Scheduler::new(&SchedulePolicy::RoundRobin);
        let enabled = t(&[0, 1, 3]);
        let picks: Vec<u32> = (0..5)
            .map(|i| s.choose(i, &enabled, &[]).unwrap().0)
            .collect();
        assert_eq!(picks, vec![0, 1, 3, 0, 1]);
        assert_eq!(s.choose(5, &t(&[0]), &[]).unwrap(), ThreadId(0));
    }

    #[test]
    fn list_entries_are_consumed_one_per_step_then_the_fallback_runs() {
        let policy = SchedulePolicy::List {
            threads: t(&[1, 1, 0]),
            then: ScheduleFallback::RoundRobin,
        };
        let mut s = Scheduler::new(&policy);
        assert_eq!(s.choose(0, &t(&[0, 1]), &[]).unwrap(), ThreadId(1));
        assert_eq!(s.choose(1, &t(&[1]), &[]).unwrap(), ThreadId(1));
        assert_eq!(s.choose(2, &t(&[0, 1]), &[]).unwrap(), ThreadId(0));
        assert_eq!(s.choose(3, &t(&[0, 1]), &[]).unwrap(), ThreadId(1));
    }

    #[test]
    fn a_listed_thread_that_is_not_enabled_is_a_divergence() {
        let policy = SchedulePolicy::List {
            threads: t(&[2]),
            then: ScheduleFallback::RoundRobin,
        };
        let err = Scheduler::new(&policy)
            .choose(0, &t(&[0, 1]), &[])
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "schedule diverged at step 0: the schedule names thread 2, which is not enabled \
             (enabled: 0, 1)"
        );
    }

    #[test]
    fn random_schedules_are_reproducible_by_seed() {
        let enabled = t(&[0, 1, 2]);
        let run = |seed| {
            let mut s = Scheduler::new(&SchedulePolicy::Random { seed });
            (0..20)
                .map(|i| s.choose(i, &enabled, &[]).unwrap().0)
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
    }

    #[test]
    fn priority_schedules_run_the_highest_priority_until_a_change_point() {
        let enabled = t(&[0, 1, 2]);
        let run = |seed, changes| {
            let mut s = Scheduler::new(&SchedulePolicy::Priority {
                seed,
                changes,
                horizon: 10,
            });
            (0..10)
                .map(|i| s.choose(i, &enabled, &[]).unwrap().0)
                .collect::<Vec<_>>()
        };
        // Without change points one thread runs throughout.
        let fixed = run(3, 0);
        assert!(fixed.iter().all(|&x| x == fixed[0]), "{fixed:?}");
        // With change points the thread switches (at most once per change point),
        // reproducibly by seed.
        let changed = run(3, 2);
        assert_eq!(changed, run(3, 2));
        let switches = changed.windows(2).filter(|w| w[0] != w[1]).count();
        assert!((1..=2).contains(&switches), "{changed:?}");
        // Seeds give different orders of threads.
        let firsts: std::collections::BTreeSet<u32> = (0..20).map(|s| run(s, 0)[0]).collect();
        assert_eq!(firsts.len(), 3);
    }

    #[test]
    fn pct_initial_priorities_are_a_uniform_permutation() {
        // Without change points one thread runs while enabled: the order in which the
        // threads finish is the priority order, and every one of the 3! orders appears.
        let orders: std::collections::BTreeSet<Vec<u32>> = (0..200)
            .map(|seed| {
                let mut p = Priorities::new(seed, 0, 10);
                let mut left = t(&[0, 1, 2]);
                let mut order = Vec::new();
                while !left.is_empty() {
                    let c = p.choose(order.len() as u64, &left);
                    left.retain(|&x| x != c);
                    order.push(c.0);
                }
                order
            })
            .collect();
        assert_eq!(orders.len(), 6, "{orders:?}");
    }

    #[test]
    fn pct_change_point_lowers_the_thread_after_it_ran_that_step() {
        let enabled = t(&[0, 1, 2]);
        for seed in 0..50 {
            // One change point drawn from 1..=1: the thread of step 1 (index 0) runs it,
            // then drops below both others, which then run by their initial order.
            let mut p = Priorities::new(seed, 1, 1);
            let first = p.choose(0, &enabled);
            let second = p.choose(1, &enabled);
            assert_ne!(first, second, "seed {seed}");
            assert_eq!(p.choose(2, &enabled), second, "seed {seed}");
            assert_eq!(p.priority(first), 1);
            assert!(p.priority(second) >= 2);
        }
    }

    #[test]
    fn pct_change_points_are_drawn_from_the_horizon_with_priorities_one_to_d_minus_1() {
        for seed in 0..100 {
            let p = Priorities::new(seed, 3, 7);
            let priorities: Vec<u32> = p.changes.iter().map(|&(_, i)| i).collect();
            assert_eq!(priorities, vec![1, 2, 3]);
            assert!(p.changes.iter().all(|&(k, _)| (1..=7).contains(&k)));
        }
        let points: std::collections::BTreeSet<u64> = (0..200)
            .flat_map(|seed| Priorities::new(seed, 1, 5).changes)
            .map(|(k, _)| k)
            .collect();
        assert_eq!(points, (1..=5).collect());
    }

    #[test]
    fn inputs_are_truncated_then_fall_back() {
        let mut inputs = Inputs::new(&InputPolicy::list([-1, 300]));
        let dm = DataModel::Ilp32;
        assert_eq!(
            inputs.take(Scalar::I32, dm, String::new).unwrap(),
            0xFFFF_FFFF
        );
        assert_eq!(inputs.take(Scalar::U8, dm, String::new).unwrap(), 44);
        assert_eq!(inputs.take(Scalar::I64, dm, String::new).unwrap(), 0);
        assert_eq!(as_number(0xFFFF_FFFF, Scalar::I32, dm), -1);
        assert_eq!(as_number(0xFFFF_FFFF, Scalar::U32, dm), 4294967295);
    }

    #[test]
    fn typed_inputs_must_match_the_requested_type() {
        let policy = InputPolicy {
            values: vec![InputValue {
                value: 1,
                ty: Some(Scalar::I32),
            }],
            fallback: InputFallback::Zero,
        };
        let err = Inputs::new(&policy)
            .take(Scalar::U8, DataModel::Ilp32, || "f.c:3".into())
            .unwrap_err();
        assert!(
            matches!(err, RuntimeError::InputDiverged { index: 0, .. }),
            "{err}"
        );
    }
}
