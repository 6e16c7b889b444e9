//! Wakeup trees of optimal DPOR (Abdulla, Aronis, Jonsson and Sagonas, "Source Sets: A
//! Foundation for Optimal Dynamic Partial Order Reduction", JACM 2017, §6).
//!
//! A node's wakeup tree holds sequences of steps still to explore from it, as an ordered
//! tree of threads: a race found later reverses into the sequence `v = notdep(e, E).e'`
//! (the steps after the racing step `e` that do not happen after it, then the racing
//! event `e'`), inserted at the node `e` was taken from unless a thread asleep there or
//! a branch of the tree is a *weak initial* of `v` (`v` is then explored, up to
//! equivalence, by what already is or will be). The search follows the tree: after a
//! child, the next branch; below a branch, its subtree.
//!
//! Happens-before within `v` is that of the current path restricted to `v` (a step of `v`
//! that happened after a step outside `v` would happen after `e`), so it is read off the
//! path's vector clocks; only a thread's pending event, not on the path, is compared by
//! footprint.

use super::{dependent, Access, Footprint, VClock};
use crate::symbolic::state::Tid;

/// A branch of a wakeup tree: a thread's step and the sequences that follow it.
#[derive(Clone, Debug)]
pub struct Branch {
    pub tid: Tid,
    /// The footprint of the step when the sequence was found.
    pub foot: Footprint,
    /// `foot` is the whole step's footprint (a step of the path), not only its pending
    /// event's (the last step of an inserted sequence).
    pub exact: bool,
    pub sub: Vec<Branch>,
}

/// What a node being created follows of its parent's wakeup tree.
#[derive(Clone, Debug, Default)]
pub struct Incoming {
    pub tree: Vec<Branch>,
    /// The step taken did not match the branch (a symbolic fork made it another step):
    /// the subtree does not apply, and the node is expanded fully instead.
    pub diverged: bool,
}

/// A step of a sequence to insert: its thread, footprint, path index (the path's length
/// for a pending event) and clock.
#[derive(Clone, Copy, Debug)]
pub struct Ev<'a> {
    pub tid: Tid,
    pub foot: &'a [Access],
    pub index: usize,
    pub clock: &'a VClock,
}

impl Ev<'_> {
    fn after(&self, other: &Ev) -> bool {
        self.clock.get(other.tid) as usize > other.index
    }
}

/// Is `q` a weak initial of `v`? `Some(Some(k))`: `q`'s first step in `v`, at `k`, has no
/// predecessor in `v`; `Some(None)`: `q` has no step in `v` and its next step (footprint
/// `next`, when known) is independent of every step of `v`.
pub fn weak_initial(v: &[Ev], q: Tid, next: Option<&[Access]>) -> Option<Option<usize>> {
    match v.iter().position(|e| e.tid == q) {
        Some(k) => v[..k].iter().all(|e| !v[k].after(e)).then_some(Some(k)),
        None => {
            let next = next?;
            v.iter().all(|e| !dependent(next, e.foot)).then_some(None)
        }
    }
}

/// A chain of branches, one per step of `v`.
fn chain(v: &[Ev]) -> Branch {
    let last = v.len() - 1;
    let mut b: Option<Branch> = None;
    for (n, e) in v.iter().enumerate().rev() {
        b = Some(Branch {
            tid: e.tid,
            foot: e.foot.to_vec(),
            exact: n != last,
            sub: b.into_iter().collect(),
        });
    }
    b.expect("a sequence to insert is not empty")
}

/// Inserts `v` into `tree` (a node's wakeup tree or a subtree of it), unless a branch
/// is a weak initial of it and its subtree a leaf or covers the rest. Returns the thread
/// of a new branch at the top.
///
/// A branch's thread counts only with a step in `v`: one without is a weak initial when
/// its next step commutes with `v`, but a branch is not explored yet, and its step may
/// end the run (a violation inside it) before the rest of `v` (see
/// `Dpor::optimal_reversal`); below the root its footprint was also recorded on another
/// path, which a symbolic fork may have made different.
pub fn insert(tree: &mut Vec<Branch>, mut v: Vec<Ev>) -> Option<Tid> {
    if v.is_empty() {
        return None;
    }
    let found = tree
        .iter()
        .enumerate()
        .find_map(|(c, b)| weak_initial(&v, b.tid, None).map(|k| (c, k)));
    match found {
        Some((c, k)) => {
            if tree[c].sub.is_empty() {
                return None;
            }
            if let Some(k) = k {
                v.remove(k);
            }
            insert(&mut tree[c].sub, v);
            None
        }
        None => {
            let b = chain(&v);
            let t = b.tid;
            tree.push(b);
            Some(t)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbolic::dpor::Loc;
    use crate::symbolic::names::ObjInst;

    fn clock(entries: &[(Tid, u32)]) -> VClock {
        let mut c = VClock::default();
        for &(t, v) in entries {
            c.set(t, v);
        }
        c
    }

    fn x() -> Loc {
        Loc::Mem(ObjInst(1), 0)
    }

    fn y() -> Loc {
        Loc::Mem(ObjInst(2), 0)
    }

    #[test]
    fn weak_initials_are_first_steps_without_predecessors_or_independent_threads() {
        let wx = [Access::write(x())];
        let ry = [Access::read(y())];
        let rx = [Access::read(x())];
        // Step 0 of thread 1 writes x; step 1 of thread 2 reads y (unordered); the
        // pending read of x by thread 3 happens after step 0.
        let (c0, c1, c2) = (clock(&[(1, 1)]), clock(&[(2, 2)]), clock(&[(1, 1), (3, 3)]));
        let v = [
            Ev {
                tid: 1,
                foot: &wx,
                index: 0,
                clock: &c0,
            },
            Ev {
                tid: 2,
                foot: &ry,
                index: 1,
                clock: &c1,
            },
            Ev {
                tid: 3,
                foot: &rx,
                index: 2,
                clock: &c2,
            },
        ];
        assert_eq!(weak_initial(&v, 1, None), Some(Some(0)));
        assert_eq!(weak_initial(&v, 2, None), Some(Some(1)));
        assert_eq!(weak_initial(&v, 3, None), None);
        // A thread not in v: weak initial iff its next step commutes with all of v.
        assert_eq!(
            weak_initial(&v, 4, Some(&[Access::read(Loc::Mem(ObjInst(3), 0))])),
            Some(None)
        );
        assert_eq!(weak_initial(&v, 4, Some(&ry)), Some(None));
        assert_eq!(weak_initial(&v, 4, Some(&[Access::write(y())])), None);
        assert_eq!(weak_initial(&v, 4, None), None);
    }

    #[test]
    fn a_sequence_a_leaf_starts_is_covered_and_others_branch_off() {
        let wx = [Access::write(x())];
        let wy = [Access::write(y())];
        let (c0, c1) = (clock(&[(1, 1)]), clock(&[(2, 2)]));
        let a = Ev {
            tid: 1,
            foot: &wx,
            index: 0,
            clock: &c0,
        };
        let b = Ev {
            tid: 2,
            foot: &wy,
            index: 1,
            clock: &c1,
        };
        let mut tree = Vec::new();
        assert_eq!(insert(&mut tree, vec![a, b]), Some(1));
        assert_eq!((tree.len(), tree[0].sub.len()), (1, 1));
        // b.a is equivalent to a.b (independent steps): the branch a covers it.
        assert_eq!(insert(&mut tree, vec![b, a]), None);
        assert_eq!((tree.len(), tree[0].sub.len()), (1, 1));
        // A step of thread 2 dependent with a's: a new branch.
        let rx = [Access::read(x())];
        let c = Ev {
            tid: 2,
            foot: &rx,
            index: 1,
            clock: &c1,
        };
        assert_eq!(insert(&mut tree, vec![c]), Some(2));
        assert_eq!(tree.len(), 2);
        // Once a is a leaf, anything it starts is covered.
        tree[0].sub.clear();
        assert_eq!(insert(&mut tree, vec![a, c]), None);
        assert_eq!(tree.len(), 2);
    }

    /// A branch not explored yet covers only sequences its thread has a step in: one
    /// whose thread merely commutes with `v` may end the run in its step (a violation)
    /// before the rest of `v` runs.
    #[test]
    fn a_branch_without_a_step_in_the_sequence_does_not_cover_it() {
        let wy = [Access::write(y())];
        let rx = [Access::read(x())];
        let (c0, c1) = (clock(&[(1, 1)]), clock(&[(2, 2)]));
        let mut tree = vec![Branch {
            tid: 3,
            foot: vec![Access::read(Loc::Mem(ObjInst(3), 0))],
            exact: true,
            sub: Vec::new(),
        }];
        let a = Ev {
            tid: 1,
            foot: &wy,
            index: 0,
            clock: &c0,
        };
        let b = Ev {
            tid: 2,
            foot: &rx,
            index: 1,
            clock: &c1,
        };
        assert_eq!(insert(&mut tree, vec![a, b]), Some(1));
        assert_eq!(tree.iter().map(|b| b.tid).collect::<Vec<_>>(), [3, 1]);
        assert!(tree[0].sub.is_empty());
    }
}
