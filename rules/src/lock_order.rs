//! Lock-order inversions: two acquisitions, each taking a lock the other site holds,
//! that may run in parallel — the shape of a two-thread deadlock.
//!
//! ```c
//! void *t1(void *a) { lock(&A); lock(&B); ... }   // s1: takes B holding A
//! void *t2(void *a) { lock(&B); lock(&A); ... }   // s2: takes A holding B
//! ```
//!
//! Facts: from [`crate::races::Locksets`]: `acquire(s, l)` (certain acquisitions),
//! `held(s, l)` (locks held on every path to `s`) and `maybe_held(s, l)` (on some path);
//! `stmt_func`; and
//! may-happen-in-parallel from [`HappensBefore`].
//!
//! Rules:
//! ```text
//! order(h, l, s)      ← acquire(s, l), maybe_held(s, h), h ≠ l   s takes l, h held on some path
//! inversion(s1, s2)   ← order(h, l, s1), order(l, h, s2), s1 < s2
//! gated(s1, s2)       ← inversion(s1, s2), held(s1, g), held(s2, g), g ∉ {h, l}
//! deadlock(s1, s2)    ← inversion(s1, s2), ¬gated(s1, s2), mhp(s1, s2)
//! ```
//! A lock held on one branch counts (`lock(A); if (c) lock(B);` orders A before B), so an
//! order from any path is reported. A gate lock held (on every path) at both sites serializes them, so no deadlock. Only cycles of two
//! locks are reported (the common case; longer cycles need three threads). Acquisitions
//! through a pointer that may name several mutexes are not `acquire` facts, so their
//! inversions are missed.
//!
//! The same rules in Datalog, the readable specification beside the math above:
//! `rules/dl/lock_order.dl` (may-happen-in-parallel in `rules/dl/lib/mhp.dl`), interpreted
//! by [`crate::dl`] and equal to this program on every fixture and corpus program
//! (`rules/tests/dl_differential.rs`).

use crate::call_graph::CallGraph;
use crate::happens_before::HappensBefore;
use crate::points_to::sorted;
use crate::races::{Lock, Locksets};
use analysis::facts::StmtId;
use ascent::ascent;

/// A potential deadlock: `first` takes `second_lock` holding `first_lock`, `second`
/// takes `first_lock` holding `second_lock`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct Inversion {
    pub first: StmtId,
    pub second: StmtId,
    pub first_lock: Lock,
    pub second_lock: Lock,
}

/// The result of the lock-order rules.
#[derive(Clone, Debug, Default)]
pub struct LockOrder {
    /// `order(held, taken, site)`.
    pub order: Vec<(Lock, Lock, StmtId)>,
    /// Inversions dropped because a gate lock serializes them.
    pub gated: usize,
    /// Inversions dropped because the two sites cannot run in parallel.
    pub ordered: usize,
    pub inversions: Vec<Inversion>,
}

impl LockOrder {
    pub fn sizes(&self) -> Vec<(&'static str, usize)> {
        vec![
            ("order", self.order.len()),
            ("gated", self.gated),
            ("ordered", self.ordered),
            ("inversion", self.inversions.len()),
        ]
    }
}

ascent! {
    struct LockOrderProgram;
    relation acquire(StmtId, Lock);
    relation held(StmtId, Lock);
    relation maybe_held(StmtId, Lock);

    relation order(Lock, Lock, StmtId);
    relation inversion(StmtId, StmtId, Lock, Lock);
    relation gated(StmtId, StmtId);
    relation candidate(StmtId, StmtId, Lock, Lock);

    order(h, l, s) <-- acquire(s, l), maybe_held(s, h), if h != l;
    inversion(s1, s2, h, l) <-- order(h, l, s1), order(l, h, s2), if s1 < s2;
    gated(s1, s2) <--
        inversion(s1, s2, h, l), held(s1, g), held(s2, g), if g != h && g != l;
    candidate(s1, s2, h, l) <-- inversion(s1, s2, h, l), !gated(s1, s2);
}

/// Lock-order inversions of a program.
pub fn run(locksets: &Locksets, cg: &CallGraph, hb: &HappensBefore) -> LockOrder {
    let mut p = LockOrderProgram::default();
    p.acquire = locksets.acquires.clone();
    p.held = locksets
        .held
        .iter()
        .flat_map(|(&s, ls)| ls.iter().map(move |&l| (s, l)))
        .collect();
    p.maybe_held = locksets
        .maybe_held
        .iter()
        .flat_map(|(&s, ls)| ls.iter().map(move |&l| (s, l)))
        .collect();
    p.run();
    let mut inversions = Vec::new();
    let mut ordered = 0;
    for (s1, s2, h, l) in sorted(p.candidate) {
        if hb.may_happen_in_parallel(cg, s1, s2) {
            inversions.push(Inversion {
                first: s1,
                second: s2,
                first_lock: h,
                second_lock: l,
            });
        } else {
            ordered += 1;
        }
    }
    LockOrder {
        order: sorted(p.order),
        gated: p.gated.len(),
        ordered,
        inversions,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::races::tests::{fixture, line};
    use std::collections::BTreeSet;

    fn inversions(name: &str) -> (BTreeSet<(u32, u32)>, LockOrder) {
        let (facts, a) = fixture(name);
        let ls = crate::races::locksets(&facts, &a.points_to, &a.call_graph);
        let order = run(&ls, &a.call_graph, &a.happens_before);
        let lines = order
            .inversions
            .iter()
            .map(|i| (line(&facts, i.first), line(&facts, i.second)))
            .collect();
        (lines, order)
    }

    #[test]
    fn the_abba_inversion_is_found_at_the_inner_acquisitions() {
        let (lines, order) = inversions("hunt/deadlock.c");
        assert_eq!(lines, BTreeSet::from([(22, 33)]));
        let inv = &order.inversions[0];
        assert_ne!(inv.first_lock, inv.second_lock);
    }

    #[test]
    fn consistent_lock_orders_have_no_inversion() {
        let (lines, _) = inversions("hunt/race_counter.c");
        assert!(lines.is_empty());
        let (lines, _) = inversions("conc/mutex_counter.c");
        assert!(lines.is_empty());
    }

    #[test]
    fn a_lock_held_on_one_branch_orders_the_next_acquisition() {
        // `left` takes `a` only when `flag` is set, then `b`; `right` takes `b` then `a`.
        let (lines, _) = inversions("warnings/conditional_nesting.c");
        assert_eq!(lines, BTreeSet::from([(14, 24)]));
    }
}
