//! Lock pairing: which release matches which acquire, and which acquires take the same
//! lock (by points-to of the mutex operands).
//!
//! ```c
//! lock(&m);      // a
//! check(&e);
//! unlock(&m);    // u: lock_pair(a, u)
//! ```
//!
//! Facts: `lock`, `unlock`, `cond_wait` (re-acquires its mutex), `stmt_func`, `cfg_edge`;
//! from [`PointsTo`]: `pt`.
//!
//! Rules:
//! ```text
//! alias(m, n)        ← pt(m, o, k), pt(n, o, k'), overlap(k, k')
//! after(a, t)        ← lock(a, _), cfg_edge(a, t)
//! after(a, t)        ← after(a, s), cfg_edge(s, t)
//! intra(a, u)        ← lock(a, m), unlock(u, n), alias(m, n), after(a, u)
//! lock_pair(a, u)    ← intra(a, u)
//! paired(a)          ← intra(a, _)
//! lock_pair(a, u)    ← lock(a, m), ¬paired(a), unlock(u, n), alias(m, n)
//! same_lock(a, b)    ← lock(a, m), lock(b, n), alias(m, n)
//! ```
//! An acquire with no matching release later in its own function (a `lock()` wrapper)
//! pairs with every release of a may-aliased mutex anywhere.
//!
//! The same rules in Datalog, the readable specification beside the math above:
//! `rules/dl/locks.dl`, interpreted by [`crate::dl`] and equal to this program on every
//! fixture and corpus program (`rules/tests/dl_differential.rs`).

use crate::points_to::{sorted, PointsTo};
use analysis::facts::{Facts, Obj, StmtId, Var, ANY_OFFSET};
use ascent::ascent;

/// The result of the lock-pairing rule set.
#[derive(Clone, Debug, Default)]
pub struct Locks {
    /// `(acquire, release)`.
    pub pairs: Vec<(StmtId, StmtId)>,
    /// `(a, b)`: two acquires that may take the same lock (both orders; `a == b` included).
    pub same_lock: Vec<(StmtId, StmtId)>,
}

impl Locks {
    pub fn sizes(&self) -> Vec<(&'static str, usize)> {
        vec![
            ("lock_pair", self.pairs.len()),
            ("same_lock", self.same_lock.len()),
        ]
    }

    /// The releases paired with an acquire.
    pub fn releases_of(&self, acquire: StmtId) -> impl Iterator<Item = StmtId> + '_ {
        self.pairs
            .iter()
            .filter(move |p| p.0 == acquire)
            .map(|p| p.1)
    }
}

ascent! {
    struct LockProgram;
    relation lock(StmtId, Var);
    relation unlock(StmtId, Var);
    relation cfg_edge(StmtId, StmtId);
    relation pt(Var, Obj, i64);

    relation alias(Var, Var);
    relation after(StmtId, StmtId);
    relation intra_pair(StmtId, StmtId);
    relation lock_pair(StmtId, StmtId);
    relation paired(StmtId);
    relation same_lock(StmtId, StmtId);

    alias(m, n) <-- pt(m, o, k), pt(n, o, j),
        if k == j || *k == ANY_OFFSET || *j == ANY_OFFSET;
    after(a, t) <-- lock(a, _), cfg_edge(a, t);
    after(a, t) <-- after(a, s), cfg_edge(s, t);
    intra_pair(a, u) <-- lock(a, m), unlock(u, n), alias(m, n), after(a, u);
    lock_pair(a, u) <-- intra_pair(a, u);
    paired(a) <-- intra_pair(a, _);
    lock_pair(a, u) <-- lock(a, m), !paired(a), unlock(u, n), alias(m, n);
    same_lock(a, b) <-- lock(a, m), lock(b, n), alias(m, n);
}

pub fn run(facts: &Facts, pts: &PointsTo) -> Locks {
    let mut p = LockProgram::default();
    p.lock = facts.lock.clone();
    p.lock
        .extend(facts.cond_wait.iter().map(|&(s, _, m)| (s, m)));
    p.unlock = facts.unlock.clone();
    p.cfg_edge = facts.cfg_edge.clone();
    let mutexes: std::collections::HashSet<Var> =
        p.lock.iter().chain(&p.unlock).map(|l| l.1).collect();
    p.pt = pts
        .var_points_to
        .iter()
        .filter(|(v, _)| mutexes.contains(v))
        .map(|&(v, c)| (v, c.obj, c.offset))
        .collect();
    p.run();
    Locks {
        pairs: sorted(p.lock_pair),
        same_lock: sorted(p.same_lock),
    }
}
