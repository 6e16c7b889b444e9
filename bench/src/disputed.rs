//! Expected verdicts this project disputes, each with the evidence.
//!
//! A benchmark's expectation can be stale: SV-COMP's no-data-race property was added to
//! older tasks in bulk, and the maintainers wrote that some mutual-exclusion algorithms
//! kept races they had not fixed (sosy-lab/sv-benchmarks PR #1108: "There are still a
//! couple of benchmarks I know have data races (mostly mutual exclusion algorithms)").
//! When agx's verdict contradicts such an expectation *and* agx's side is backed by a
//! witness that replays on the concrete interpreter, the bench shows the task as
//! DISPUTED — scored 0, neither correct nor wrong, listed apart with the reason — rather
//! than hiding it among the correct ones or counting a real race as agx's error.
//!
//! The list is short and explicit on purpose: an entry names the task, the property, the
//! expectation it disputes and the accesses that make the case, so a reader can check it by
//! reading the program. A verdict in the other direction (agx agreeing with the file, or
//! disagreeing the other way) is judged as usual.

/// One disputed expectation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dispute {
    /// The task id as the bench prints it (folder/name, without `.yml`).
    pub task: &'static str,
    /// The property name (`no-data-race`, `unreach-call`, ...).
    pub property: &'static str,
    /// The task file's expected verdict (`true`: the property holds).
    pub expected: bool,
    /// Why the expectation is wrong: the program's lines that show it.
    pub reason: &'static str,
}

/// Every disputed expectation.
pub const DISPUTES: &[Dispute] = &[
    Dispute {
        task: "pthread-atomic/lamport",
        property: "no-data-race",
        expected: true,
        reason: "thr1's plain read `int x1 = x;` (outside any __VERIFIER_atomic block) and \
                 thr2's plain write `x = 2;` are unordered: thr1 reaches the read right after \
                 its atomic `y = 1` while thr2 is at the top of its loop (also plain `b1 = 1` \
                 against thr2's atomic read of b1); agx's witness replays the two accesses \
                 adjacent on the interpreter's race detector",
    },
    Dispute {
        task: "pthread-ext/20_lamport",
        property: "no-data-race",
        expected: true,
        reason: "the same algorithm as pthread-atomic/lamport with the same plain accesses to \
                 x outside atomic blocks; agx's witness replays the two accesses adjacent on \
                 the interpreter's race detector",
    },
];

/// The dispute of `property` on `task`, if the project disputes its expectation.
pub fn find(task: &str, property: &str) -> Option<&'static Dispute> {
    DISPUTES
        .iter()
        .find(|d| d.task == task && d.property == property)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_by_task_and_property_only() {
        assert!(find("pthread-atomic/lamport", "no-data-race").is_some());
        assert!(find("pthread-atomic/lamport", "unreach-call").is_none());
        assert!(find("pthread-atomic/lamport-b", "no-data-race").is_none());
    }

    #[test]
    fn every_dispute_names_lines_and_a_replayed_witness() {
        for d in DISPUTES {
            assert!(d.reason.contains("replays"), "{}: {}", d.task, d.reason);
        }
    }
}
