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
//! earlier rule sets: `once`, `sole_site`, `call_edge`, `thread_edge`, `pt`,
//! `read_cell`, `write_cell`. The subjects are the statements that access memory.
//!
//! Rules:
//! ```text
//! ord(p, q)          ← stmt_func(p, f), stmt_func(q, f), once(f), dom(p, q), scc(p) ≠ scc(q)
//! under(f, c)        ← thread_edge(c, f), sole_site(f, c)
//! under(f, c)        ← under(g, c), stmt_func(k, g), sole_site(f, k)
//! ends_by(a, a)      ← subject(a)
//! ends_by(a, k)      ← ends_by(a, s), stmt_func(s, g), sole_site(g, k), call_edge(k, g)
//! ends_by(a, j)      ← ends_by(a, s), stmt_func(s, g), under(g, c), join_of(j, c)
//! begins_after(b, b) ← subject(b)
//! begins_after(b, k) ← begins_after(b, s), stmt_func(s, g), sole_site(g, k), call_edge(k, g)
//! created(b, c)      ← begins_after(b, s), stmt_func(s, g), under(g, c)
//! begins_after(b, c) ← created(b, c)
//! pre(a, c)          ← ends_by(a, p), thread_create(c), (p = c ∨ ord(p, c))
//! hb(r, w)           ← pre(r, c), created(w, c), conflict(r, w)
//! hb(r, w)           ← ends_by(r, j), join_of(j, _), begins_after(w, q), ord(j, q),
//!                      conflict(r, w)
//! ```
//! `under(f, c)`: code of `f` runs only in the thread created at `c` (or threads it
//! creates). `ends_by(a, p)`: every run of `a` ends before `p` ends. `begins_after(b, q)`:
//! every run of `b` begins after `q` begins; `created(b, c)`: after `c` has ended.
//! `conflict(r, w)`: `r` reads a cell `w` writes. As in the paper, the happens-before
//! pairs that filter dependences come from thread creation (and, here, join) sites; the
//! order of two statements of one thread (`ord` between any two anchors) is available
//! per pair through [`HappensBefore::happens_before`] and used for may-happen-in-parallel.
//! `join_of(j, c)` (computed directly, see [`join_sites`]): `j` joins exactly the thread
//! created at `c`: its thread id is loaded from a register defined once, by a load from
//! one cell that only `c` writes, `c` dominates the load and is in no loop (else it may
//! start several threads, of which the join waits for the last only).
//!
//! May-happen-in-parallel ([`HappensBefore::may_happen_in_parallel`]) is "threads that may
//! run both functions", minus the pairs ordered by the rules above, further narrowed for
//! thread functions started from several creation sites, where the rules above (which
//! anchor a function at its one site) say nothing:
//! ```text
//! spawners(f)        = { c | thread_edge(c, t), runs(t, f) }
//! before_all(a, b)   ← a in a run-once function m whose threads do not run func(b),
//!                      ∀c ∈ spawners(func(b)): c in m, dom(a, c), scc(a) ≠ scc(c)
//! after_all(a, b)    ← b in a run-once function m whose threads do not run func(a),
//!                      ∀c ∈ spawners(func(a)): ∃j in m. join_of(j, c), dom(j, b), scc(j) ≠ scc(b)
//! mhp(a, b)          ← may_run_in_parallel(func(a), func(b)), ¬hb(a, b), ¬hb(b, a),
//!                      ¬before_all(a, b), ¬before_all(b, a), ¬after_all(a, b), ¬after_all(b, a)
//! ```
//!
//! The same rules in Datalog, the readable specification beside the math above:
//! `rules/dl/happens_before.dl` (may-happen-in-parallel in `rules/dl/lib/mhp.dl`),
//! interpreted by [`crate::dl`] and equal to this program on every fixture and corpus
//! program (`rules/tests/dl_differential.rs`).

use crate::anchors::{Anchor, Anchors};
use crate::call_graph::CallGraph;
use crate::data_dep::DataDeps;
use crate::points_to::{sorted, PointsTo};

use analysis::facts::{Facts, FuncId, Obj, StmtId, ANY_OFFSET};
use ascent::ascent;
use std::collections::{BTreeSet, HashMap, HashSet};

/// The result of the happens-before rule set.
#[derive(Clone, Debug, Default)]
pub struct HappensBefore {
    /// `(read, write)` conflicting pairs where the read ends before the write begins,
    /// through thread creation or join: the dependence filter.
    pub hb: HashSet<(StmtId, StmtId)>,
    /// `(join, create)`: the join waits for exactly the thread created at `create`.
    pub join_of: Vec<(StmtId, StmtId)>,
    ends_by: HashMap<StmtId, Vec<StmtId>>,
    begins_after: HashMap<StmtId, Vec<StmtId>>,
    created: HashMap<StmtId, Vec<StmtId>>,
    once: HashSet<FuncId>,
    func_of: HashMap<StmtId, FuncId>,
    interval: HashMap<StmtId, (u32, u32)>,
    scc: HashMap<StmtId, StmtId>,
    creates: HashSet<StmtId>,
    joins: HashSet<StmtId>,
    spawns: Spawns,
    anchors: Anchors,
    main: Option<FuncId>,
}

impl HappensBefore {
    pub fn sizes(&self) -> Vec<(&'static str, usize)> {
        let count = |m: &HashMap<StmtId, Vec<StmtId>>| m.values().map(Vec::len).sum::<usize>();
        vec![
            ("hb", self.hb.len()),
            ("ends_by", count(&self.ends_by)),
            ("begins_after", count(&self.begins_after)),
            ("created", count(&self.created)),
            ("join_of", self.join_of.len()),
        ]
    }

    /// `ord(p, q)`: `p` runs before `q` in the one activation of a run-once function.
    fn ord(&self, p: StmtId, q: StmtId) -> bool {
        let f = self.func_of.get(&p);
        if f.is_none() || f != self.func_of.get(&q) || !f.is_some_and(|f| self.once.contains(f)) {
            return false;
        }
        match (self.interval.get(&p), self.interval.get(&q)) {
            (Some(&(pp, pq)), Some(&(qp, qq))) => {
                pp <= qp && qq <= pq && self.scc.get(&p) != self.scc.get(&q)
            }
            _ => false,
        }
    }

    /// Whether every run of `a` ends before any run of `b` begins, by the rules above
    /// (creation, join, and the order within one thread), for any two memory accesses.
    pub fn happens_before(&self, a: StmtId, b: StmtId) -> bool {
        if self.hb.contains(&(a, b)) {
            return true;
        }
        let (Some(ends), Some(begins)) = (self.ends_by.get(&a), self.begins_after.get(&b)) else {
            return false;
        };
        let created = self.created.get(&b).map_or(&[][..], Vec::as_slice);
        ends.iter().any(|&p| {
            begins.iter().any(|&q| self.ord(p, q))
                || created.iter().any(|&c| p == c && self.creates.contains(&c))
        })
    }

    /// May `a` and `b` (memory accesses) run at the same time in two threads?
    pub fn may_happen_in_parallel(&self, cg: &CallGraph, a: StmtId, b: StmtId) -> bool {
        match (self.func_of.get(&a), self.func_of.get(&b)) {
            (Some(&f), Some(&g)) => {
                cg.may_run_in_parallel(f, g)
                    && !self.happens_before(a, b)
                    && !self.happens_before(b, a)
                    && !self.spawn_ordered(a, b)
            }
            _ => false,
        }
    }

    /// Whether `j` is a join site matched to a creation.
    pub fn is_matched_join(&self, j: StmtId) -> bool {
        self.joins.contains(&j)
    }

    /// `(join, call, create)`: joins of threads created in a helper that returns the handle.
    pub fn helper_joins(&self) -> Vec<(StmtId, StmtId, StmtId)> {
        self.anchors.helper_joins()
    }

    /// `ends_by(a, p)`: every run of memory access `a` ends before `p` ends.
    pub fn ends_by(&self) -> Vec<(StmtId, StmtId)> {
        pairs(&self.ends_by)
    }

    /// `begins_after(b, q)`: every run of memory access `b` begins after `q` begins.
    pub fn begins_after(&self) -> Vec<(StmtId, StmtId)> {
        pairs(&self.begins_after)
    }

    /// `created(b, c)`: every run of memory access `b` begins after creation site `c` ended.
    pub fn created(&self) -> Vec<(StmtId, StmtId)> {
        pairs(&self.created)
    }
}

fn pairs(m: &HashMap<StmtId, Vec<StmtId>>) -> Vec<(StmtId, StmtId)> {
    sorted(
        m.iter()
            .flat_map(|(&a, bs)| bs.iter().map(move |&b| (a, b)))
            .collect(),
    )
}

ascent! {
    struct HbProgram;
    relation subject(StmtId);
    relation read_cell(StmtId, Obj, i64);
    relation write_cell(StmtId, Obj, i64);
    relation stmt_func(StmtId, FuncId);
    relation dom_interval(StmtId, u32, u32);
    relation scc(StmtId, StmtId);
    relation once(FuncId);
    relation sole_site(FuncId, StmtId);
    relation call_edge(StmtId, FuncId);
    relation thread_edge(StmtId, FuncId);
    relation join_of(StmtId, StmtId);

    relation create_site(StmtId);
    relation join_site(StmtId);
    relation under(FuncId, StmtId);
    relation ends_by(StmtId, StmtId);
    relation begins_after(StmtId, StmtId);
    relation created(StmtId, StmtId);
    relation pre(StmtId, StmtId);
    relation hb(StmtId, StmtId);

    create_site(c) <-- thread_edge(c, _);
    join_site(j) <-- join_of(j, _);
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

    pre(a, c) <-- ends_by(a, c), create_site(c);
    pre(a, c) <--
        ends_by(a, p), stmt_func(p, f), once(f), create_site(c), stmt_func(c, f),
        dom_interval(p, pp, pq), dom_interval(c, cp, cq), if pp <= cp && cq <= pq,
        scc(p, sp), scc(c, sc), if sp != sc;

    hb(r, w) <--
        pre(r, c), read_cell(r, o, k), created(w, c), write_cell(w, o, j),
        if k == j || *k == ANY_OFFSET || *j == ANY_OFFSET;
    hb(r, w) <--
        ends_by(r, j), join_site(j), stmt_func(j, f), once(f), read_cell(r, o, k),
        begins_after(w, q), stmt_func(q, f), write_cell(w, o, i),
        if k == i || *k == ANY_OFFSET || *i == ANY_OFFSET,
        dom_interval(j, jp, jq), dom_interval(q, qp, qq), if jp <= qp && qq <= jq,
        scc(j, sj), scc(q, sq), if sj != sq;
}

/// Computes the happens-before anchors of every memory access and the conflicting
/// (read, write) pairs ordered through thread creation or join.
pub fn run(facts: &Facts, pts: &PointsTo, cg: &CallGraph, deps: &DataDeps) -> HappensBefore {
    let join_of = join_sites(facts, pts, deps);
    let mut p = HbProgram::default();
    p.subject = deps
        .read_cells
        .iter()
        .chain(&deps.write_cells)
        .map(|c| (c.0,))
        .collect();
    p.read_cell = deps.read_cells.clone();
    p.write_cell = deps.write_cells.clone();
    p.stmt_func = facts.stmt_func.clone();
    p.dom_interval = facts.dom_interval.clone();
    p.scc = facts.scc.clone();
    p.once = cg.once.iter().map(|&f| (f,)).collect();
    p.sole_site = cg.sole_site.clone();
    p.call_edge = cg.call_edges.clone();
    p.thread_edge = cg.thread_edges.clone();
    p.join_of = join_of.clone();
    p.run();
    let group = |v: Vec<(StmtId, StmtId)>| {
        let mut m: HashMap<StmtId, Vec<StmtId>> = HashMap::new();
        for (a, b) in v {
            m.entry(a).or_default().push(b);
        }
        m
    };
    HappensBefore {
        hb: p.hb.into_iter().collect(),
        ends_by: group(p.ends_by),
        begins_after: group(p.begins_after),
        created: group(p.created),
        once: cg.once.iter().copied().collect(),
        func_of: facts.stmt_func.iter().copied().collect(),
        interval: facts
            .dom_interval
            .iter()
            .map(|&(s, a, b)| (s, (a, b)))
            .collect(),
        scc: facts.scc.iter().copied().collect(),
        creates: cg.thread_edges.iter().map(|e| e.0).collect(),
        joins: join_of.iter().map(|j| j.0).collect(),
        spawns: Spawns::new(cg, &join_of),
        anchors: Anchors::new(facts, pts, cg, deps),
        main: facts.main_func.first().map(|m| m.0),
        join_of,
    }
}

/// Who starts and who waits for the threads that run each function: the facts of the
/// `before_all` / `after_all` rules of the module documentation.
#[derive(Clone, Debug, Default)]
struct Spawns {
    /// Thread entries whose threads run each function.
    threads_of: HashMap<FuncId, BTreeSet<FuncId>>,
    /// Creation sites of each thread entry.
    sites_of: HashMap<FuncId, Vec<StmtId>>,
    /// Joins matched to each creation site.
    joins_of: HashMap<StmtId, Vec<StmtId>>,
}

impl Spawns {
    fn new(cg: &CallGraph, join_of: &[(StmtId, StmtId)]) -> Spawns {
        let mut spawns = Spawns::default();
        for &(t, f) in &cg.runs {
            spawns.threads_of.entry(f).or_default().insert(t);
        }
        for &(c, t) in &cg.thread_edges {
            spawns.sites_of.entry(t).or_default().push(c);
        }
        for &(j, c) in join_of {
            spawns.joins_of.entry(c).or_default().push(j);
        }
        spawns
    }
}

impl HappensBefore {
    /// `a` and `b` are ordered through every creation or every join of the threads that
    /// run one of them.
    fn spawn_ordered(&self, a: StmtId, b: StmtId) -> bool {
        self.before_all(a, b)
            || self.before_all(b, a)
            || self.after_all(a, b)
            || self.after_all(b, a)
            || self.joined_then_created(a, b)
            || self.joined_then_created(b, a)
            || self.one_thread(a, b)
    }

    /// Code of `a` and `b` runs only in the threads of one entry, and `main` starts one
    /// such thread at most: both run in one thread, one after the other.
    fn one_thread(&self, a: StmtId, b: StmtId) -> bool {
        let Some(m) = self.main.filter(|m| self.once.contains(m)) else {
            return false;
        };
        let threads = |s: StmtId| {
            self.func_of
                .get(&s)
                .and_then(|f| self.spawns.threads_of.get(f))
        };
        match (threads(a), threads(b)) {
            (Some(x), Some(y)) if x == y && x.len() == 1 => {}
            _ => return false,
        }
        match self.spawners(a, m) {
            Some(xs) => match xs.iter().collect::<Vec<_>>().as_slice() {
                [x] => self.anchors.starts_one(**x, &self.creates),
                _ => false,
            },
            None => false,
        }
    }

    /// The anchors in run-once `m` ([`Anchors::lift`]) of every thread that runs the
    /// function of `s`, if `m`'s own threads never run it and every such thread is
    /// created during one of them (else `None`).
    fn spawners(&self, s: StmtId, m: FuncId) -> Option<BTreeSet<Anchor>> {
        let f = self.func_of.get(&s)?;
        let threads = self.spawns.threads_of.get(f)?;
        let own = self.spawns.threads_of.get(&m)?;
        if threads.iter().any(|t| own.contains(t)) {
            return None;
        }
        let mut anchors = BTreeSet::new();
        for &t in threads {
            for &c in self.spawns.sites_of.get(&t)? {
                anchors.extend(self.anchors.lift(t, c, m)?);
            }
        }
        (!anchors.is_empty()).then_some(anchors)
    }

    fn run_once_func(&self, s: StmtId) -> Option<FuncId> {
        self.func_of
            .get(&s)
            .copied()
            .filter(|m| self.once.contains(m))
    }

    /// A join of anchor `x` that runs before `q` in the one activation of their function.
    fn joined_before(&self, x: Anchor, q: StmtId) -> bool {
        self.anchors
            .joins_of(x, &self.spawns.joins_of)
            .iter()
            .any(|&j| self.ord(j, q))
    }

    /// `a` runs before every anchor of the threads that run `b`.
    fn before_all(&self, a: StmtId, b: StmtId) -> bool {
        let Some(m) = self.run_once_func(a) else {
            return false;
        };
        self.spawners(b, m)
            .is_some_and(|xs| xs.iter().all(|x| self.ord(a, x.site)))
    }

    /// Every anchor of the threads that run `a` has a join before `b`.
    fn after_all(&self, a: StmtId, b: StmtId) -> bool {
        let Some(m) = self.run_once_func(b) else {
            return false;
        };
        self.spawners(a, m)
            .is_some_and(|xs| xs.iter().all(|&x| self.joined_before(x, b)))
    }

    /// Every thread that runs `a` is joined, in `main`, before any thread that runs `b`
    /// is created: each anchor of `a`'s threads has a join before every anchor of `b`'s.
    fn joined_then_created(&self, a: StmtId, b: StmtId) -> bool {
        let Some(m) = self.main.filter(|m| self.once.contains(m)) else {
            return false;
        };
        let (Some(xs), Some(ys)) = (self.spawners(a, m), self.spawners(b, m)) else {
            return false;
        };
        xs.iter().all(|&x| {
            self.anchors
                .joins_of(x, &self.spawns.joins_of)
                .iter()
                .any(|&j| ys.iter().all(|y| self.ord(j, y.site)))
        })
    }
}

/// `(join, create)` pairs where the join provably waits for the thread of that create:
/// the joined id is a register with one definition, a load from a single cell (not `*`)
/// that no statement but the create writes, and the create dominates the load in the same
/// function, outside any loop (a create in a loop starts several threads, and a join
/// waits for the last only).
pub fn join_sites(facts: &Facts, pts: &PointsTo, deps: &DataDeps) -> Vec<(StmtId, StmtId)> {
    let mut defs: HashMap<_, Vec<StmtId>> = HashMap::new();
    for &(s, v) in &facts.defines {
        defs.entry(v).or_default().push(s);
    }
    let loads: HashMap<StmtId, _> = facts.load.iter().map(|&(s, _, a)| (s, a)).collect();
    let creates: HashSet<StmtId> = facts.thread_create.iter().map(|c| c.0).collect();
    // A create in a loop may start several threads; a join waits only for the last.
    let in_cycle: HashSet<StmtId> = facts.in_cycle.iter().map(|c| c.0).collect();
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
        if creates.contains(c) && !in_cycle.contains(c) && same_func && dominates(*c, *load) {
            out.push((j, *c));
        }
    }
    sorted(out)
}
