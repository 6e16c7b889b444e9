//! Happens-before and may-happen-in-parallel, as in the Conc-iSE paper (§5.2): within a
//! thread, `a` happens before `b` when `a` dominates `b` and `a` is not reachable from
//! `b`; across threads, through thread creation and join sites.
//!
//! ```c
//! int x = 0;
//! void thread1() { int t1 = x; create(thread2); }   // the read happens before ...
//! void thread2() { x = 5; }                         // ... the write: no dependence
//! ```
//!
//! Soundness needs "the same activation": a function that runs twice can see, in its
//! second run, what a later statement wrote in its first. So the intra-thread order is
//! only used in functions that run at most once (`once` from [`CallGraph`]), and
//! statements of a callee are placed at its one call site (`sole_site`). Because
//! `dom(a, b)` holds only for `a` before `b` on every path, `a` reachable from `b` means
//! they share a CFG cycle; the rule checks the strongly connected components instead.
//!
//! Facts: `stmt_func`, `dom_interval`, `scc`, `thread_join`, `load`, `defines`; from the
//! earlier rule sets: `once`, `sole_site`, `call_edge`, `thread_edge`, `pt`, `write_cell`.
//! The pairs asked about (`need`) are the memory-access pairs of the data dependence.
//!
//! Rules:
//! ```text
//! ord(p, q)         ← stmt_func(p, f), stmt_func(q, f), once(f), dom(p, q), scc(p) ≠ scc(q)
//! under(f, c)       ← thread_edge(c, f), sole_site(f, c)
//! under(f, c)       ← under(g, c), stmt_func(k, g), sole_site(f, k)
//! ends_by(a, a)     ← subject(a)
//! ends_by(a, k)     ← ends_by(a, s), stmt_func(s, g), sole_site(g, k), call_edge(k, g)
//! ends_by(a, j)     ← ends_by(a, s), stmt_func(s, g), under(g, c), join_of(j, c)
//! begins_after(b, b) ← subject(b)
//! begins_after(b, k) ← begins_after(b, s), stmt_func(s, g), sole_site(g, k), call_edge(k, g)
//! created(b, c)     ← begins_after(b, s), stmt_func(s, g), under(g, c)
//! begins_after(b, c) ← created(b, c)
//! hb(a, b)          ← need(a, b), ends_by(a, p), begins_after(b, q), ord(p, q)
//! hb(a, b)          ← need(a, b), ends_by(a, c), created(b, c)
//! mhp(a, b)         ← conflict(a, b), stmt_func(a, f), stmt_func(b, g), parallel(f, g),
//!                     ¬hb(a, b), ¬hb(b, a)
//! ```
//! `under(f, c)`: code of `f` runs only in the thread created at `c` (or threads it
//! creates). `ends_by(a, p)`: every run of `a` ends before `p` ends. `begins_after(b, q)`:
//! every run of `b` begins after `q` begins; `created(b, c)`: after `c` has ended.
//! `join_of(j, c)` (computed directly, see [`join_sites`]): `j` joins exactly the thread
//! created at `c`: its thread id is loaded from a register defined once, by a load from
//! one cell that only `c` writes, and `c` dominates the load.

use crate::call_graph::CallGraph;
use crate::data_dep::DataDeps;
use crate::points_to::{sorted, PointsTo};
use analysis::facts::{Facts, FuncId, StmtId, ANY_OFFSET};
use ascent::ascent;
use std::collections::{HashMap, HashSet};

/// The result of the happens-before rule set, over the asked pairs.
#[derive(Clone, Debug, Default)]
pub struct HappensBefore {
    /// `(a, b)`: every run of `a` ends before any run of `b` begins.
    pub hb: HashSet<(StmtId, StmtId)>,
    /// `(a, b)`: conflicting accesses (same cell, one a write) that may run at the same
    /// time in different threads; both orders are listed.
    pub mhp: Vec<(StmtId, StmtId)>,
    /// `(join, create)`: the join waits for exactly the thread created at `create`.
    pub join_of: Vec<(StmtId, StmtId)>,
}

impl HappensBefore {
    pub fn sizes(&self) -> Vec<(&'static str, usize)> {
        vec![
            ("hb", self.hb.len()),
            ("mhp", self.mhp.len()),
            ("join_of", self.join_of.len()),
        ]
    }

    pub fn happens_before(&self, a: StmtId, b: StmtId) -> bool {
        self.hb.contains(&(a, b))
    }
}

ascent! {
    struct HbProgram;
    relation need(StmtId, StmtId);
    relation conflict(StmtId, StmtId);
    relation stmt_func(StmtId, FuncId);
    relation dom_interval(StmtId, u32, u32);
    relation scc(StmtId, StmtId);
    relation once(FuncId);
    relation sole_site(FuncId, StmtId);
    relation call_edge(StmtId, FuncId);
    relation thread_edge(StmtId, FuncId);
    relation join_of(StmtId, StmtId);
    relation parallel(FuncId, FuncId);

    relation subject(StmtId);
    relation under(FuncId, StmtId);
    relation ends_by(StmtId, StmtId);
    relation begins_after(StmtId, StmtId);
    relation created(StmtId, StmtId);
    relation hb(StmtId, StmtId);
    relation mhp(StmtId, StmtId);

    subject(a) <-- need(a, _);
    subject(b) <-- need(_, b);
    under(f, c) <-- thread_edge(c, f), sole_site(f, c);
    under(f, c) <-- under(g, c), stmt_func(k, g), sole_site(f, k);

    ends_by(a, a) <-- subject(a);
    ends_by(a, k) <-- ends_by(a, s), stmt_func(s, g), sole_site(g, k), call_edge(k, g);
    ends_by(a, j) <-- ends_by(a, s), stmt_func(s, g), under(g, c), join_of(j, c);
    begins_after(b, b) <-- subject(b);
    begins_after(b, k) <--
        begins_after(b, s), stmt_func(s, g), sole_site(g, k), call_edge(k, g);
    created(b, c) <-- begins_after(b, s), stmt_func(s, g), under(g, c);
    begins_after(b, c) <-- created(b, c);

    hb(a, b) <--
        need(a, b), ends_by(a, p), begins_after(b, q),
        stmt_func(p, f), stmt_func(q, f), once(f),
        dom_interval(p, pp, pq), dom_interval(q, qp, qq), if pp <= qp && qq <= pq,
        scc(p, cp), scc(q, cq), if cp != cq;
    hb(a, b) <-- need(a, b), ends_by(a, c), created(b, c);

    mhp(a, b) <--
        conflict(a, b), stmt_func(a, f), stmt_func(b, g), parallel(f, g),
        !hb(a, b), !hb(b, a);
}

/// Computes happens-before over the memory-access pairs of `deps` (read before write, for
/// the dependence filter) and may-happen-in-parallel over conflicting pairs.
pub fn run(facts: &Facts, pts: &PointsTo, cg: &CallGraph, deps: &DataDeps) -> HappensBefore {
    let mut conflicts: Vec<(StmtId, StmtId)> = Vec::new();
    for &(r, w) in &deps.mem_candidates {
        if r != w {
            conflicts.push((r, w));
            conflicts.push((w, r));
        }
    }
    for &(a, b) in &deps.write_pairs {
        conflicts.push((a, b));
        conflicts.push((b, a));
    }
    let conflicts = sorted(conflicts);
    let join_of = join_sites(facts, pts, deps);
    let mut p = HbProgram::default();
    p.need = conflicts.clone();
    p.conflict = conflicts;
    p.stmt_func = facts.stmt_func.clone();
    p.dom_interval = facts.dom_interval.clone();
    p.scc = facts.scc.clone();
    p.once = cg.once.iter().map(|&f| (f,)).collect();
    p.sole_site = cg.sole_site.clone();
    p.call_edge = cg.call_edges.clone();
    p.thread_edge = cg.thread_edges.clone();
    p.join_of = join_of.clone();
    p.parallel = cg.parallel.iter().copied().collect();
    p.run();
    HappensBefore {
        hb: p.hb.into_iter().collect(),
        mhp: sorted(p.mhp),
        join_of,
    }
}

/// `(join, create)` pairs where the join provably waits for the thread of that create:
/// the joined id is a register with one definition, a load from a single cell (not `*`)
/// that no statement but the create writes, and the create dominates the load in the same
/// function.
pub fn join_sites(facts: &Facts, pts: &PointsTo, deps: &DataDeps) -> Vec<(StmtId, StmtId)> {
    let mut defs: HashMap<_, Vec<StmtId>> = HashMap::new();
    for &(s, v) in &facts.defines {
        defs.entry(v).or_default().push(s);
    }
    let loads: HashMap<StmtId, _> = facts.load.iter().map(|&(s, _, a)| (s, a)).collect();
    let creates: HashSet<StmtId> = facts.thread_create.iter().map(|c| c.0).collect();
    let func_of: HashMap<StmtId, FuncId> = facts.stmt_func.iter().copied().collect();
    let interval: HashMap<StmtId, (u32, u32)> = facts
        .dom_interval
        .iter()
        .map(|&(s, a, b)| (s, (a, b)))
        .collect();
    let dominates = |a: StmtId, b: StmtId| match (interval.get(&a), interval.get(&b)) {
        (Some(&(pa, qa)), Some(&(pb, qb))) => pa <= pb && qb <= qa,
        _ => false,
    };
    let mut writers: HashMap<_, Vec<StmtId>> = HashMap::new();
    for &(w, o, _) in &deps.write_cells {
        writers.entry(o).or_default().push(w);
    }
    let cells_of_writer: HashMap<StmtId, Vec<(analysis::facts::Obj, i64)>> = {
        let mut m: HashMap<StmtId, Vec<_>> = HashMap::new();
        for &(w, o, k) in &deps.write_cells {
            m.entry(w).or_default().push((o, k));
        }
        m
    };
    let mut out = Vec::new();
    for &(j, thread, _) in &facts.thread_join {
        let Some([load]) = defs.get(&thread).map(Vec::as_slice) else {
            continue;
        };
        let Some(&addr) = loads.get(load) else {
            continue;
        };
        let [cell] = pts.of(addr) else { continue };
        if cell.offset == ANY_OFFSET {
            continue;
        }
        let overlapping: Vec<StmtId> = writers
            .get(&cell.obj)
            .into_iter()
            .flatten()
            .copied()
            .filter(|w| {
                cells_of_writer[w]
                    .iter()
                    .any(|&(o, k)| o == cell.obj && (k == cell.offset || k == ANY_OFFSET))
            })
            .collect();
        let overlapping = sorted(overlapping);
        let [c] = overlapping.as_slice() else {
            continue;
        };
        if cells_of_writer[c].as_slice() != [(cell.obj, cell.offset)] {
            continue;
        }
        let same_func = func_of.get(c) == func_of.get(load) && func_of.get(c) == func_of.get(&j);
        if creates.contains(c) && same_func && dominates(*c, *load) {
            out.push((j, *c));
        }
    }
    sorted(out)
}
