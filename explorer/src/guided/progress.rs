//! Matching a path against an abstract trace set (Fig. 4, lines 11-16).
//!
//! Each trace `π_i` has a cursor: the locations before it have been visited. When a
//! thread executes a statement `s`, the count of `s` on the path goes up, and a trace
//! whose head is `s` advances — unless the head is a branch whose next trace location
//! needs one side of it (then the side taken decides, see [`Progress::resolve`]). A head
//! that already ran on the path before it became the head is consumed at once
//! (*catch-up*): the location at position `j` of a trace is visited once `s` has run
//! more times than it occurs in `π_i[..j]`. So a location listed twice must run twice
//! (repeated refinement of one definition), and a location another thread ran early (a
//! thread creation in `main` before the refined part of a trace) does not stall the
//! trace.
//!
//! `h1` (the first-tier rank) is the number of trace locations not yet visited.

use super::distance::{block_entry, Icfg};
use analysis::ir::{Program, StmtId, StmtRef, TermKind};
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;

/// A trace set with what matching needs precomputed.
#[derive(Debug)]
pub struct TraceSet {
    pub traces: Vec<Vec<StmtId>>,
    /// `occ[i][j]`: how often `traces[i][j]` occurs in `traces[i][..j]`.
    occ: Vec<Vec<u32>>,
    /// `wanted[i][j]`: for a branch at `traces[i][j]`, the first statements of the sides
    /// it may take: the side whose first statement is the next trace location (the
    /// paper's test), else the sides from which that location is reachable — `None` when
    /// every side will do.
    wanted: Vec<Vec<Option<Vec<StmtId>>>>,
    relevant: FxHashSet<StmtId>,
}

impl TraceSet {
    pub fn new(prog: &Program, icfg: &Icfg, traces: Vec<Vec<StmtId>>) -> TraceSet {
        let occ = traces
            .iter()
            .map(|t| {
                let mut seen: FxHashMap<StmtId, u32> = FxHashMap::default();
                t.iter()
                    .map(|s| {
                        let c = seen.entry(*s).or_insert(0);
                        *c += 1;
                        *c - 1
                    })
                    .collect()
            })
            .collect();
        let wanted = traces
            .iter()
            .map(|t| {
                (0..t.len())
                    .map(|j| {
                        t.get(j + 1)
                            .and_then(|&next| wanted_sides(prog, icfg, t[j], next))
                    })
                    .collect()
            })
            .collect();
        let relevant = traces.iter().flatten().copied().collect();
        TraceSet {
            traces,
            occ,
            wanted,
            relevant,
        }
    }
}

/// The sides of branch `b` from which `next` is reachable, when that is not all of them.
fn wanted_sides(prog: &Program, icfg: &Icfg, b: StmtId, next: StmtId) -> Option<Vec<StmtId>> {
    let StmtRef::Term(term) = prog.stmt(b) else {
        return None;
    };
    let TermKind::Branch {
        then_bb, else_bb, ..
    } = &term.kind
    else {
        return None;
    };
    let loc = prog.stmt_locs[b.index()];
    if prog.stmt_locs.get(next.index()).map(|l| l.func) != Some(loc.func) {
        return None;
    }
    let sides = [
        block_entry(prog, loc.func, *then_bb),
        block_entry(prog, loc.func, *else_bb),
    ];
    if sides[0] != sides[1] && sides.contains(&next) {
        // Fig. 4's test: the trace's next location is where the branch must go.
        return Some(vec![next]);
    }
    let ok: Vec<StmtId> = sides
        .iter()
        .copied()
        .filter(|&s| icfg.reaches_intra(s, next))
        .collect();
    (ok.len() < sides.len()).then_some(ok)
}

/// How far one path has come along a trace set.
#[derive(Clone, Debug)]
pub struct Progress {
    pub set: Rc<TraceSet>,
    pub cursor: Vec<usize>,
    counts: FxHashMap<StmtId, u32>,
}

/// A branch at the head of a trace left by a side the trace cannot continue from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WrongSide {
    pub trace: usize,
    pub branch: StmtId,
}

impl Progress {
    pub fn new(set: Rc<TraceSet>) -> Progress {
        let cursor = vec![0; set.traces.len()];
        Progress {
            set,
            cursor,
            counts: FxHashMap::default(),
        }
    }

    /// `h1`: trace locations not yet visited.
    pub fn remaining(&self) -> usize {
        self.set
            .traces
            .iter()
            .zip(&self.cursor)
            .map(|(t, &c)| t.len() - c)
            .sum()
    }

    /// The next location of each trace not yet finished.
    pub fn heads(&self) -> impl Iterator<Item = (usize, StmtId)> + '_ {
        self.set
            .traces
            .iter()
            .zip(&self.cursor)
            .enumerate()
            .filter_map(|(i, (t, &c))| t.get(c).map(|&s| (i, s)))
    }

    #[cfg(test)]
    pub fn done(&self, trace: usize) -> bool {
        self.cursor[trace] >= self.set.traces[trace].len()
    }

    /// A statement ran. Returns the traces whose head is `s`, a branch whose side must be
    /// checked with [`Progress::resolve`] once known.
    pub fn on_exec(&mut self, s: StmtId) -> Vec<usize> {
        if !self.set.relevant.contains(&s) {
            return Vec::new();
        }
        *self.counts.entry(s).or_insert(0) += 1;
        let mut checks = Vec::new();
        for i in 0..self.cursor.len() {
            let c = self.cursor[i];
            if self.set.traces[i].get(c) == Some(&s) && self.set.wanted[i][c].is_some() {
                checks.push(i);
            } else {
                self.catch_up(i);
            }
        }
        checks
    }

    /// The branch at the head of trace `i` went to the block starting at `side`.
    pub fn resolve(&mut self, i: usize, side: StmtId) -> Result<(), WrongSide> {
        let c = self.cursor[i];
        let Some(Some(wanted)) = self.set.wanted[i].get(c) else {
            self.catch_up(i);
            return Ok(());
        };
        if wanted.contains(&side) {
            self.cursor[i] += 1;
            self.catch_up(i);
            Ok(())
        } else {
            Err(WrongSide {
                trace: i,
                branch: self.set.traces[i][c],
            })
        }
    }

    fn catch_up(&mut self, i: usize) {
        let trace = &self.set.traces[i];
        while let Some(&s) = trace.get(self.cursor[i]) {
            let ran = self.counts.get(&s).copied().unwrap_or(0);
            if ran > self.set.occ[i][self.cursor[i]] {
                self.cursor[i] += 1;
            } else {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(traces: Vec<Vec<u32>>) -> Rc<TraceSet> {
        let traces: Vec<Vec<StmtId>> = traces
            .into_iter()
            .map(|t| t.into_iter().map(StmtId).collect())
            .collect();
        let occ = traces
            .iter()
            .map(|t| {
                (0..t.len())
                    .map(|j| t[..j].iter().filter(|&&x| x == t[j]).count() as u32)
                    .collect()
            })
            .collect();
        let wanted = traces.iter().map(|t| vec![None; t.len()]).collect();
        let relevant = traces.iter().flatten().copied().collect();
        Rc::new(TraceSet {
            traces,
            occ,
            wanted,
            relevant,
        })
    }

    #[test]
    fn heads_advance_in_order_and_early_locations_are_caught_up() {
        let mut p = Progress::new(set(vec![vec![1, 2, 3]]));
        p.on_exec(StmtId(2)); // ran before it is the head
        assert_eq!(p.remaining(), 3);
        p.on_exec(StmtId(1)); // head: advances, then 2 is caught up
        assert_eq!(p.remaining(), 1);
        p.on_exec(StmtId(9)); // not in the trace
        p.on_exec(StmtId(3));
        assert_eq!(p.remaining(), 0);
        assert!(p.done(0));
    }

    #[test]
    fn a_location_listed_twice_must_run_twice() {
        let mut p = Progress::new(set(vec![vec![5, 7, 5]]));
        p.on_exec(StmtId(5));
        p.on_exec(StmtId(7));
        assert_eq!(p.remaining(), 1);
        p.on_exec(StmtId(5));
        assert_eq!(p.remaining(), 0);
    }
}
