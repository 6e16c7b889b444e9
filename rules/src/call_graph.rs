//! Call graph, thread entries, the code each thread may run, and how many times a function
//! may run (the basis of happens-before).
//!
//! Facts: `main_func`, `stmt_func`, `in_cycle`, `reachable`; from [`PointsTo`]:
//! `call_edge(site, f)` (direct and resolved indirect calls) and `thread_edge(site, f)`.
//!
//! Rules:
//! ```text
//! invoked(k, f)      ← call_edge(k, f) ∨ thread_edge(k, f)
//! multi(f)           ← invoked(k1, f), invoked(k2, f), k1 ≠ k2
//! sole_site(f, k)    ← invoked(k, f), ¬multi(f)
//! once(f)            ← main_func(f), ¬∃k. invoked(k, f)
//! once(f)            ← sole_site(f, k), stmt_func(k, g), once(g), ¬in_cycle(k)
//! thread_entry(f)    ← main_func(f) ∨ thread_edge(_, f)
//! runs(t, t)         ← thread_entry(t)
//! runs(t, f)         ← runs(t, g), stmt_func(k, g), reachable(k), call_edge(k, f)
//! live(f)            ← main_func(f)
//! live(f)            ← live(g), stmt_func(k, g), reachable(k), invoked(k, f)
//! parallel(f, g)     ← runs(t1, f), runs(t2, g), t1 ≠ t2, live(t1), live(t2)
//! parallel(f, g)     ← runs(t, f), runs(t, g), live(t), ¬once(t)
//! ```
//! `once(f)`: `f` runs at most once in any execution (one activation, in one thread).
//! A thread entry that is not `once` may have several instances running at a time.
//! `parallel(f, g)`: code of `f` and code of `g` may run in two different threads.
//!
//! The same rules in Datalog, the readable specification beside the math above:
//! `rules/dl/call_graph.dl`, interpreted by [`crate::dl`] and equal to this program on
//! every fixture and corpus program (`rules/tests/dl_differential.rs`).

use crate::points_to::{sorted, PointsTo};
use analysis::facts::{Facts, FuncId, StmtId};
use ascent::ascent;
use std::collections::{BTreeSet, HashSet};

/// The result of the call-graph rule set.
#[derive(Clone, Debug, Default)]
pub struct CallGraph {
    /// `invoked(site, f)`: calls and thread creations, with the function they start.
    pub invoked: Vec<(StmtId, FuncId)>,
    /// Calls only: `call_edge(site, f)`.
    pub call_edges: Vec<(StmtId, FuncId)>,
    /// Thread creations only: `thread_edge(site, f)`.
    pub thread_edges: Vec<(StmtId, FuncId)>,
    /// `sole_site(f, site)`: the one place that invokes `f`.
    pub sole_site: Vec<(FuncId, StmtId)>,
    /// Functions that run at most once in any execution.
    pub once: BTreeSet<FuncId>,
    /// `main` and every function a `pthread_create` may start.
    pub thread_entries: BTreeSet<FuncId>,
    /// `runs(thread_entry, f)`: code of `f` may run in threads started at the entry.
    pub runs: Vec<(FuncId, FuncId)>,
    /// Functions reachable from `main` through calls and thread creations.
    pub live: BTreeSet<FuncId>,
    /// `parallel(f, g)`: code of `f` and of `g` may run in different threads.
    pub parallel: HashSet<(FuncId, FuncId)>,
}

impl CallGraph {
    pub fn sizes(&self) -> Vec<(&'static str, usize)> {
        vec![
            ("invoked", self.invoked.len()),
            ("sole_site", self.sole_site.len()),
            ("once", self.once.len()),
            ("thread_entry", self.thread_entries.len()),
            ("runs", self.runs.len()),
            ("live", self.live.len()),
            ("parallel", self.parallel.len()),
        ]
    }

    /// Whether code of `f` and `g` may run in two different threads.
    pub fn may_run_in_parallel(&self, f: FuncId, g: FuncId) -> bool {
        self.parallel.contains(&(f, g))
    }

    /// The thread entries whose threads may run `f`.
    pub fn threads_running(&self, f: FuncId) -> impl Iterator<Item = FuncId> + '_ {
        self.runs.iter().filter(move |r| r.1 == f).map(|r| r.0)
    }
}

ascent! {
    struct CallGraphProgram;
    relation main_func(FuncId);
    relation stmt_func(StmtId, FuncId);
    relation in_cycle(StmtId);
    relation reachable(StmtId);
    relation call_edge(StmtId, FuncId);
    relation thread_edge(StmtId, FuncId);

    relation invoked(StmtId, FuncId);
    relation invoked_any(FuncId);
    relation multi(FuncId);
    relation sole_site(FuncId, StmtId);
    relation once(FuncId);
    relation thread_entry(FuncId);
    relation runs(FuncId, FuncId);
    relation live(FuncId);
    relation parallel(FuncId, FuncId);

    invoked(k, f) <-- call_edge(k, f);
    invoked(k, f) <-- thread_edge(k, f);
    invoked_any(f) <-- invoked(_, f);
    multi(f) <-- invoked(k1, f), invoked(k2, f), if k1 != k2;
    sole_site(f, k) <-- invoked(k, f), !multi(f);
    once(f) <-- main_func(f), !invoked_any(f);
    once(f) <-- sole_site(f, k), stmt_func(k, g), once(g), !in_cycle(k);

    thread_entry(f) <-- main_func(f);
    thread_entry(f) <-- thread_edge(_, f);
    runs(t, t) <-- thread_entry(t);
    runs(t, f) <-- runs(t, g), stmt_func(k, g), reachable(k), call_edge(k, f);
    live(f) <-- main_func(f);
    live(f) <-- live(g), stmt_func(k, g), reachable(k), invoked(k, f);
    parallel(f, g) <-- runs(t1, f), runs(t2, g), if t1 != t2, live(t1), live(t2);
    parallel(f, g) <-- runs(t, f), runs(t, g), live(t), !once(t);
}

/// Runs the call-graph rules on the points-to result's call and thread edges.
pub fn run(facts: &Facts, pts: &PointsTo) -> CallGraph {
    let mut p = CallGraphProgram::default();
    p.main_func = facts.main_func.clone();
    p.stmt_func = facts.stmt_func.clone();
    p.in_cycle = facts.in_cycle.clone();
    p.reachable = facts.reachable.clone();
    p.call_edge = pts.call_edges.clone();
    p.thread_edge = pts.thread_edges.clone();
    p.run();
    CallGraph {
        invoked: sorted(p.invoked),
        call_edges: pts.call_edges.clone(),
        thread_edges: pts.thread_edges.clone(),
        sole_site: sorted(p.sole_site),
        once: p.once.into_iter().map(|t| t.0).collect(),
        thread_entries: p.thread_entry.into_iter().map(|t| t.0).collect(),
        runs: sorted(p.runs),
        live: p.live.into_iter().map(|t| t.0).collect(),
        parallel: p.parallel.into_iter().collect(),
    }
}
