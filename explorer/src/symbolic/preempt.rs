//! Preemption bounding (Musuvathi and Qadeer, PLDI 2007; `Config::preemption_bound`).
//!
//! A *preemption* is a step of thread `t` from a node where the thread that took the
//! previous step (the *running* thread) is still enabled and is not `t`. Switching away
//! from a thread that blocked, ended or only waits for a spurious wake-up is free. With
//! a bound `K`, a node whose path already spent `K` preemptions explores only its
//! running thread; every other enabled thread it skips makes the verdict at best
//! `Unknown` ([`Reason::PreemptionBound`]), so "no violation" is then "none within `K`
//! preemptions", never `Safe`. A search that never skipped one is complete.
//!
//! The bound is applied to the unreduced search (`Strategy::Baseline`, no slice cuts,
//! no summaries, no spin-loop reduction): DPOR may reach a reordering only through a
//! schedule with more preemptions than an equivalent one (Coons, Musuvathi and McKinley,
//! OOPSLA 2013), a summary recorded under one remaining budget does not cover a node with
//! a larger one, and a spinning thread that stops makes the switch away from it free.
//! [`super::verify`] switches to that search when a bound is set. A return to a state of
//! the path is cut only when the earlier node had the same running thread and no more
//! preemptions ([`Preemptions::covered_by`]): a schedule through the cycle shortened by
//! it then stays within the bound.

use super::engine::Engine;
use super::state::{State, Tid};
use super::Reason;

/// Where a scheduling node stands with respect to the bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preemptions {
    /// Preemptions on the path up to this node.
    pub used: u32,
    /// The thread that took the previous step (`main` at the root), if it is still
    /// enabled here without a spurious wake-up: switching away from it is a preemption.
    pub running: Option<Tid>,
}

impl Preemptions {
    /// Is a step of `t` from a node standing at `self` a preemption?
    pub fn preempts(self, t: Tid) -> bool {
        self.running.is_some_and(|r| r != t)
    }

    /// Can the path at `self` still schedule `t` within `bound`?
    pub fn allows(self, t: Tid, bound: Option<u32>) -> bool {
        bound.is_none_or(|k| !self.preempts(t) || self.used < k)
    }

    /// Does every schedule from a node at `self` also start from a node at `earlier` (the
    /// same state) within `bound`? Then a return to that node's state may be cut.
    pub fn covered_by(self, earlier: Preemptions, bound: Option<u32>) -> bool {
        bound.is_none() || (earlier.running == self.running && earlier.used <= self.used)
    }
}

impl<'p> Engine<'p> {
    /// The preemption count and running thread of a new node with state `st` (its
    /// parent, if any, is the last node on the DPOR stack, left by the last step).
    pub(crate) fn preemptions_at(&self, st: &State, enabled: &[Tid]) -> Preemptions {
        let last = self.search.dpor.events.last();
        let used = last.map_or(0, |e| {
            let parent = self.search.preemptions[e.node];
            parent.used + u32::from(parent.preempts(e.tid))
        });
        let previous = last.map_or(0, |e| e.tid);
        let running = (enabled.contains(&previous) && self.is_enabled_without_wakeup(st, previous))
            .then_some(previous);
        Preemptions { used, running }
    }

    /// May node `idx` (state `st`) schedule `t` within the bound? When not, the search
    /// records that the bound cut a schedule.
    pub(crate) fn within_preemption_bound(&mut self, idx: usize, st: &State, t: Tid) -> bool {
        let bound = self.setup.cfg.preemption_bound;
        let here = self.search.preemptions[idx];
        if here.allows(t, bound) {
            return true;
        }
        let k = bound.unwrap_or_default();
        let at = self
            .pending_stmt(st, t)
            .map_or_else(|| "a thread's end".to_string(), |s| self.location(s.span));
        let running = here.running.unwrap_or_default();
        self.incomplete(
            Reason::PreemptionBound,
            format!(
                "no violation within {k} preemption(s); schedules with more were not \
                 explored (first: thread {t} at {at} preempting thread {running})"
            ),
        );
        false
    }
}

#[cfg(test)]
mod tests {
    use super::Preemptions;

    #[test]
    fn switching_away_from_a_running_thread_spends_the_bound() {
        let at = Preemptions {
            used: 1,
            running: Some(0),
        };
        assert!(at.allows(0, Some(1)), "the running thread goes on for free");
        assert!(
            !at.allows(1, Some(1)),
            "a second preemption exceeds bound 1"
        );
        assert!(at.allows(1, Some(2)));
        assert!(at.allows(1, None), "no bound");
        let blocked = Preemptions {
            used: 1,
            running: None,
        };
        assert!(
            blocked.allows(1, Some(1)),
            "the running thread blocked: free"
        );
    }

    #[test]
    fn a_cycle_is_cut_only_when_the_earlier_node_had_as_much_budget() {
        let now = Preemptions {
            used: 1,
            running: Some(0),
        };
        let fewer = Preemptions {
            used: 0,
            running: Some(0),
        };
        let other = Preemptions {
            used: 0,
            running: Some(1),
        };
        assert!(now.covered_by(fewer, Some(1)));
        assert!(!fewer.covered_by(now, Some(1)), "less budget left there");
        assert!(!now.covered_by(other, Some(1)), "another thread running");
        assert!(now.covered_by(other, None));
    }
}
