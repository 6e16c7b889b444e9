//! Refinement of an abstract trace set (Fig. 5).
//!
//! ```text
//! refine_trace(A_α, π_i):                       π_i's head is the branch l_branch
//!   L_v   := definitions of the branch's variables  (interprocedural, points-to)
//!   L_α   := L_α ∪ L_v; recompute the abstract system
//!   π_v   := an abstract trace to some l_v ∈ L_v
//!   π_pre := the locations of the trace before the branch
//!   if some acquire of π_pre and some acquire l_b of π_v take the same lock:
//!       π_v := π_v ∘ release(l_b)
//!   replace π_pre ∘ π_i by π_v ∘ π_pre ∘ π_i
//! ```
//! Choices the paper leaves open ("we randomly pick"): the definition is picked
//! deterministically — first the definitions the failed path did not run, stores before
//! parameter-passing call sites, then by the (call sites, length) of their best abstract
//! trace — and the `k`-th refinement of the same branch takes the `k`-th candidate in that
//! order, cycling, so a branch refined again gets the same definition again when it is
//! the only one (a counter that must be incremented several times). One extension: after
//! the direct definitions come the definitions of the values *they* read (`j` for
//! `i = j + 1`), so that repeated refinement alternates between two threads that feed
//! each other (`i = j + 1` ∥ `j = i + 1`) instead of repeating one of them.
//!
//! Locations that run at most once and already occur in `π_v` (the start of `main`, a
//! thread creation) are dropped from `π_pre`: the combined trace would otherwise ask for
//! them twice.

use super::distance::{Icfg, FAR};
use super::progress::{TraceSet, WrongSide};
use super::Abstraction;
use analysis::ir::{Program, StmtId, StmtKind, StmtRef, SyncOp};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

/// How definitions are ordered: direct definitions (tier 0) before the definitions of
/// what they read (tier 1); then those the failed path did not run; stores (which give
/// the value read) before call sites (which pass a parameter, mostly an address); then by
/// the (call sites, length) of their abstract trace, then by statement.
type CandidateKey = (u8, bool, bool, usize, usize, StmtId);

/// What one refinement did (for reports and the paper checks).
#[derive(Clone, Debug, Serialize)]
pub struct Refinement {
    pub branch: StmtId,
    /// The definition `l_v` added.
    pub definition: StmtId,
    /// `π_v`, with the added release(s) at its end.
    pub added: Vec<StmtId>,
    /// Releases added because `π_v` and the prefix take the same lock.
    pub releases: Vec<StmtId>,
}

/// Refines trace sets for one trial; remembers the definitions added so far (`L_α` only
/// grows) and how often each branch was refined.
pub struct Refiner<'a> {
    prog: &'a Program,
    abs: &'a dyn Abstraction,
    targets: Vec<StmtId>,
    added: Vec<StmtId>,
    per_branch: FxHashMap<StmtId, u32>,
}

impl<'a> Refiner<'a> {
    pub fn new(prog: &'a Program, abs: &'a dyn Abstraction, targets: Vec<StmtId>) -> Self {
        Refiner {
            prog,
            abs,
            targets,
            added: Vec::new(),
            per_branch: FxHashMap::default(),
        }
    }

    fn is_store(&self, s: StmtId) -> bool {
        matches!(self.prog.stmt(s), StmtRef::Stmt(stmt) if matches!(stmt.kind, StmtKind::Store { .. }))
    }

    fn is_acquire(&self, s: StmtId) -> bool {
        matches!(
            self.prog.stmt(s),
            StmtRef::Stmt(stmt) if matches!(stmt.kind, StmtKind::Sync { op: SyncOp::MutexLock { .. }, .. })
        )
    }

    /// The refined traces, or `None` when no definition of the branch's variables has an
    /// abstract trace. `ran` holds the statements the failed path executed.
    pub fn refine(
        &mut self,
        icfg: &mut Icfg,
        set: &TraceSet,
        cursor: &[usize],
        wrong: WrongSide,
        ran: &FxHashSet<StmtId>,
    ) -> Option<(Vec<Vec<StmtId>>, Refinement)> {
        let direct = self.abs.definitions(wrong.branch);
        if direct.is_empty() {
            return None;
        }
        // The definitions of what the direct definitions read: `i = j + 1` needs `j`
        // to grow first (tier 1, tried after the direct ones).
        let mut indirect: Vec<StmtId> = direct
            .iter()
            .flat_map(|&d| self.abs.definitions(d))
            .filter(|d| !direct.contains(d))
            .collect();
        indirect.sort();
        indirect.dedup();
        let mut targets = self.targets.clone();
        targets.extend(&self.added);
        targets.extend(&direct);
        targets.extend(&indirect);
        targets.sort();
        targets.dedup();
        let system = self.abs.system(&targets);
        let tiers = direct
            .iter()
            .map(|&d| (0, d))
            .chain(indirect.iter().map(|&d| (1, d)));
        let mut candidates: Vec<(CandidateKey, Vec<StmtId>)> = tiers
            .filter_map(|(tier, d)| {
                let best = system.traces_to(&[d], 1).into_iter().next()?;
                let key = (
                    tier,
                    ran.contains(&d),
                    !self.is_store(d),
                    best.call_sites,
                    best.trace.len(),
                    d,
                );
                Some((key, best.trace))
            })
            .collect();
        if candidates.is_empty() {
            return None;
        }
        candidates.sort();
        let count = self.per_branch.entry(wrong.branch).or_insert(0);
        let (key, mut pi_v) = candidates.swap_remove(*count as usize % candidates.len().max(1));
        *count += 1;
        let definition = key.5;
        self.added.push(definition);
        let trace = &set.traces[wrong.trace];
        let pre = &trace[..cursor[wrong.trace]];
        let releases = self.releases_for(icfg, pre, &pi_v);
        pi_v.extend(releases.iter().copied());
        let mut combined = pi_v.clone();
        combined.extend(
            pre.iter()
                .copied()
                .filter(|s| !(self.abs.runs_once(*s) && pi_v.contains(s))),
        );
        combined.extend(trace[cursor[wrong.trace]..].iter().copied());
        let mut traces = set.traces.clone();
        traces[wrong.trace] = combined;
        Some((
            traces,
            Refinement {
                branch: wrong.branch,
                definition,
                added: pi_v,
                releases,
            },
        ))
    }

    /// For each acquire of `pi_v` that takes a lock some acquire of `pre` takes, the
    /// release paired with it nearest after it (calls are stepped over, so a definition
    /// in a callee between the two does not hide the release).
    fn releases_for(&self, icfg: &mut Icfg, pre: &[StmtId], pi_v: &[StmtId]) -> Vec<StmtId> {
        let mut out = Vec::new();
        for &b in pi_v.iter().filter(|&&b| self.is_acquire(b)) {
            let shared = pre
                .iter()
                .any(|&a| self.is_acquire(a) && self.abs.same_lock(a, b));
            if !shared {
                continue;
            }
            let release = self
                .abs
                .releases(b)
                .into_iter()
                .map(|r| (icfg.distance(b, r), r))
                .filter(|&(d, _)| d < FAR)
                .min();
            if let Some((_, r)) = release {
                if !pi_v.contains(&r) && !out.contains(&r) {
                    out.push(r);
                }
            }
        }
        out
    }
}
