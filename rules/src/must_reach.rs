//! Must-reach definitions of global memory at a program context (seed paper 003, R_heap of
//! §3.2 and §4.4): the stores of `main` — and the static initializers — whose value every
//! cell still holds when the context's threads have all been created and none has run.
//! Beside the may-reach definitions of [`crate::data_dep`], these constrain the initial
//! state of `agx verify --entry`.
//!
//! ```c
//! int limit;                       // initializer 0: killed by s
//! void *worker(void *a) { assert(limit == 10); limit = 0; }
//! int main(void) {
//!   limit = 10;                    // s: must_reach_store(s, limit, 0)
//!   pthread_create(&t, 0, worker, 0);   // c: the context's thread starts here
//! }
//! ```
//!
//! The caller checks that the context is one the rules speak of: every creation site of
//! an entry function is in `main`, on no cycle, and the context has a thread for each, so
//! no thread of an entry function has run at the context (the threads of the context are
//! at their entries). Input `create_site(c)`: those sites.
//!
//! Facts: `store`, `addr_of`, `mem_write`, `stmt_func`, `main_func`, `cfg_edge`,
//! `dom_interval`, `global_obj`; from [`PointsTo`]: `pt`, `call_edge`, `thread_edge`.
//! Input `entry(f)`: the entry functions.
//!
//! Rules (`k ≈ k'`: the offsets overlap, `*` being every offset):
//! ```text
//! writes(s, o, k)      ← mem_write(s, a), pt(a, o, k)
//! fwrites(f, o, k)     ← writes(s, o, k), stmt_func(s, f)
//! fwrites(f, o, k)     ← call_edge(c, g), stmt_func(c, f), fwrites(g, o, k)
//! fwrites(f, o, k)     ← thread_edge(c, g), stmt_func(c, f), fwrites(g, o, k)
//! effect(x, o, k)      ← writes(x, o, k)
//! effect(x, o, k)      ← call_edge(x, g), fwrites(g, o, k)
//! effect(x, o, k)      ← thread_edge(x, g), ¬entry(g), fwrites(g, o, k)
//! concurrent(o, k)     ← thread_edge(_, g), ¬entry(g), fwrites(g, o, k)
//! late(x)              ← create_site(c), cfg_edge(c, x)
//! late(x)              ← late(y), cfg_edge(y, x)               (x may run after a creation)
//! concurrent(o, k)     ← late(x), stmt_func(x, m), main_func(m), effect(x, o, k)
//! to_create(x)         ← create_site(c), cfg_edge(x, c)
//! to_create(x)         ← cfg_edge(x, y), to_create(y)
//! before(x)            ← to_create(x) ∨ create_site(x)        (x on a path to a creation)
//! dom(s, c)            ← dom_interval(s, p, q), dom_interval(c, p', q'), p ≤ p', q' ≤ q
//! cand(s, o, k)        ← store(s, a, _), addr_of(a, o, k), k ≠ *, stmt_func(s, m), main_func(m)
//! undominated(s)       ← cand(s, _, _), create_site(c), ¬dom(s, c)
//! after(s, x)          ← cand(s, _, _), cfg_edge(s, x)
//! after(s, x)          ← after(s, y), cfg_edge(y, x)
//! killed(s)            ← cand(s, o, k), after(s, x), before(x), effect(x, o, k'), k ≈ k'
//! must_reach_store(s, o, k) ← cand(s, o, k), ¬undominated(s), ¬killed(s), ¬concurrent(o, k'), k ≈ k'
//! init_killed(o)       ← stmt_func(x, m), main_func(m), before(x), effect(x, o, _)
//! must_reach_init(o)   ← global_obj(o), ¬init_killed(o), ¬concurrent(o, _)
//! ```
//! The same rules as Soufflé-syntax Datalog: `rules/dl/must_reach.dl` (the differential
//! test checks that it derives exactly these relations at every thread-entry context).
//!
//! A store that dominates every creation site, with no write of its cell on any path from
//! it to a creation (by `main`, its callees, or threads it creates that are not entries:
//! those are at their entries) and no thread outside the context that may write the cell
//! at all, is the one definition of the cell at the context. `main` itself is outside the
//! context once it has created a thread: a cell it (or a callee) may write after a
//! creation site is concurrent, so no definition is fixed for it (`main`'s later value may
//! be what a context thread reads first). A global nothing writes
//! between `main`'s start and the creations keeps its initializer.

use crate::points_to::{sorted, PointsTo};
use analysis::facts::{Facts, FuncId, Obj, StmtId, Var, ANY_OFFSET};
use ascent::ascent;

/// The result: the definitions that must reach the context.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MustReach {
    /// `(store, object, offset)`: the store's value is in the cell at the context.
    pub stores: Vec<(StmtId, Obj, i64)>,
    /// Globals that still hold their static initializer at the context.
    pub initialized: Vec<Obj>,
}

ascent! {
    struct MustReachProgram;
    relation entry(FuncId);
    relation create_site(StmtId);
    relation store(StmtId, Var, Var);
    relation addr_of(Var, Obj, i64);
    relation mem_write(StmtId, Var);
    relation stmt_func(StmtId, FuncId);
    relation main_func(FuncId);
    relation cfg_edge(StmtId, StmtId);
    relation dom_interval(StmtId, u32, u32);
    relation global_obj(Obj);
    relation pt(Var, Obj, i64);
    relation call_edge(StmtId, FuncId);
    relation thread_edge(StmtId, FuncId);

    relation writes(StmtId, Obj, i64);
    relation fwrites(FuncId, Obj, i64);
    relation effect(StmtId, Obj, i64);
    relation concurrent(Obj, i64);
    relation late(StmtId);
    relation to_create(StmtId);
    relation before(StmtId);
    relation cand(StmtId, Obj, i64);
    relation undominated(StmtId);
    relation after(StmtId, StmtId);
    relation killed(StmtId);
    relation conc_cell(StmtId);
    relation must_reach_store(StmtId, Obj, i64);
    relation init_killed(Obj);
    relation conc_obj(Obj);
    relation must_reach_init(Obj);

    writes(s, o, k) <-- mem_write(s, a), pt(a, o, k);
    fwrites(f, o, k) <-- writes(s, o, k), stmt_func(s, f);
    fwrites(f, o, k) <-- call_edge(c, g), stmt_func(c, f), fwrites(g, o, k);
    fwrites(f, o, k) <-- thread_edge(c, g), stmt_func(c, f), fwrites(g, o, k);
    effect(x, o, k) <-- writes(x, o, k);
    effect(x, o, k) <-- call_edge(x, g), fwrites(g, o, k);
    effect(x, o, k) <-- thread_edge(x, g), !entry(g), fwrites(g, o, k);
    concurrent(o, k) <-- thread_edge(_, g), !entry(g), fwrites(g, o, k);
    late(x) <-- create_site(c), cfg_edge(c, x);
    late(x) <-- late(y), cfg_edge(y, x);
    concurrent(o, k) <-- late(x), stmt_func(x, m), main_func(m), effect(x, o, k);
    to_create(x) <-- create_site(c), cfg_edge(x, c);
    to_create(x) <-- cfg_edge(x, y), to_create(y);
    before(x) <-- to_create(x);
    before(x) <-- create_site(x);
    cand(s, o, k) <-- store(s, a, _), addr_of(a, o, k), if *k != ANY_OFFSET,
        stmt_func(s, m), main_func(m);
    undominated(s) <-- cand(s, _, _), create_site(c), dom_interval(s, p, q),
        dom_interval(c, p2, q2), if !(p <= p2 && q2 <= q);
    undominated(s) <-- cand(s, _, _), create_site(c), stmt_func(s, f), stmt_func(c, g),
        if f != g;
    after(s, x) <-- cand(s, _, _), cfg_edge(s, x);
    after(s, x) <-- after(s, y), cfg_edge(y, x);
    killed(s) <-- cand(s, o, k), after(s, x), before(x), effect(x, o, j),
        if k == j || *j == ANY_OFFSET;
    conc_cell(s) <-- cand(s, o, k), concurrent(o, j), if k == j || *j == ANY_OFFSET;
    must_reach_store(s, o, k) <-- cand(s, o, k), !undominated(s), !killed(s), !conc_cell(s);
    init_killed(o) <-- stmt_func(x, m), main_func(m), before(x), effect(x, o, _);
    conc_obj(o) <-- concurrent(o, _);
    must_reach_init(o) <-- global_obj(o), !init_killed(o), !conc_obj(o);
}

impl MustReach {
    /// Relation sizes, for `agx rules`.
    pub fn sizes(&self) -> Vec<(&'static str, usize)> {
        vec![
            ("must_reach_store", self.stores.len()),
            ("must_reach_init", self.initialized.len()),
        ]
    }
}

/// The default context of `agx rules` (`rules eval`, `rules print`, `rules time`): every
/// function some thread starts in, created at every thread creation site. `verify
/// --entry` gives its own context instead, after checking it is one the rules speak of.
pub fn default_context(pt: &PointsTo) -> (Vec<FuncId>, Vec<StmtId>) {
    let mut entries: Vec<FuncId> = pt.thread_edges.iter().map(|&(_, f)| f).collect();
    entries.sort();
    entries.dedup();
    let mut sites: Vec<StmtId> = pt.thread_edges.iter().map(|&(c, _)| c).collect();
    sites.sort();
    sites.dedup();
    (entries, sites)
}

/// The definitions that must reach the context whose threads run `entries`, created at
/// `create_sites` (see the module doc for what the caller checks).
pub fn run(facts: &Facts, pt: &PointsTo, entries: &[FuncId], create_sites: &[StmtId]) -> MustReach {
    let mut p = MustReachProgram {
        entry: entries.iter().map(|&f| (f,)).collect(),
        create_site: create_sites.iter().map(|&c| (c,)).collect(),
        store: facts.store.clone(),
        addr_of: facts.addr_of.clone(),
        mem_write: facts.mem_write.clone(),
        stmt_func: facts.stmt_func.clone(),
        main_func: facts.main_func.clone(),
        cfg_edge: facts.cfg_edge.clone(),
        dom_interval: facts.dom_interval.clone(),
        global_obj: facts.global_obj.clone(),
        pt: pt
            .var_points_to
            .iter()
            .map(|&(v, c)| (v, c.obj, c.offset))
            .collect(),
        call_edge: pt.call_edges.clone(),
        thread_edge: pt.thread_edges.clone(),
        ..Default::default()
    };
    p.run();
    MustReach {
        stores: sorted(p.must_reach_store),
        initialized: sorted(p.must_reach_init.into_iter().map(|(o,)| o).collect()),
    }
}
