//! The program dependence graph: control and data dependence, linked across functions and
//! threads, with the happens-before filter applied to memory dependences.
//!
//! Edges `dep(s, d, kind)` read "`s` depends on `d`":
//! ```text
//! control   dep(n, a)  ← cd(n, a, _)
//! data      dep(u, d)  ← reg_dep(u, d)
//! memory    dep(r, w)  ← read_cell(r, n), write_cell(w, n), ¬hb(r, w)   (n: a cell)
//! call      dep(s, k)  ← entry_level(f, s), invoked(k, f)
//! param     dep(s, k)  ← param_use(s, f, i), invoked(k, f)      (i = 0 for thread creation)
//! return    dep(k, r)  ← call_edge(k, f), call_result(k, _), return_val(r, _), stmt_func(r, f)
//! halt      dep(k, h)  ← call_edge(k, f), halt(h), stmt_func(h, f)
//! join      dep(j, x)  ← thread_join(j, _, res), res ≠ null, thread_exit_val(x, _)
//! join      dep(j, r)  ← thread_join(j, _, res), res ≠ null, thread_edge(_, f),
//!                        return_val(r, _), stmt_func(r, f)
//! ```
//! A call site depends on everything that makes its callee stop early (`halt`), since
//! what follows the call runs only if the callee returns.
//!
//! For context-sensitive slicing (Horwitz, Reps and Binkley's two phases) each kind has a
//! class: `Local` (control, data), `Up` (to callers: call, param), `Down` (into callees:
//! return, halt) and `Memory` (memory, join: any function, any context).
//!
//! Memory dependences are not listed pair by pair (a global touched by a thousand
//! statements would give a million pairs): a read reaches a cell node `read_via(r, n)`
//! and the node reaches its writers `write_at(w, n)`; only a read with a writer of `n`
//! that it happens before gets explicit `memory` edges to the other writers of `n`.
//! `inter_thread(r, n)`: read `r` may read cell `n` as written by another thread.
//!
//! The same rules in Datalog, the readable specification beside the math above:
//! `rules/dl/dependence.dl`, interpreted by [`crate::dl`] and equal to this program on
//! every fixture and corpus program (`rules/tests/dl_differential.rs`).

use crate::call_graph::CallGraph;
use crate::control_dep::ControlDeps;
use crate::data_dep::DataDeps;
use crate::happens_before::HappensBefore;
use crate::points_to::{sorted, Cell};
use analysis::facts::{Facts, FuncId, Obj, StmtId};
use std::collections::{BTreeSet, HashMap, HashSet};

/// Why one statement depends on another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DepKind {
    Control,
    Data,
    Memory,
    Call,
    Param,
    Return,
    Halt,
    Join,
}

/// How a dependence crosses function boundaries (for two-phase slicing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DepClass {
    /// Within one activation of a function.
    Local = 0,
    /// From a callee to its call sites.
    Up = 1,
    /// From a call site into its callees.
    Down = 2,
    /// Through shared memory: any function, any context.
    Memory = 3,
}

impl DepKind {
    pub fn class(self) -> DepClass {
        match self {
            DepKind::Control | DepKind::Data => DepClass::Local,
            DepKind::Call | DepKind::Param => DepClass::Up,
            DepKind::Return | DepKind::Halt => DepClass::Down,
            DepKind::Memory | DepKind::Join => DepClass::Memory,
        }
    }
}

/// `stmt` depends on `on`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DepEdge {
    pub stmt: StmtId,
    pub on: StmtId,
    pub kind: DepKind,
}

/// The result of the dependence rule set.
#[derive(Clone, Debug, Default)]
pub struct DependenceGraph {
    /// Statement-to-statement edges (memory edges only where happens-before removed some
    /// writers of a cell for that read).
    pub edges: Vec<DepEdge>,
    /// `(read, cell)`: the read depends on every writer of the cell node.
    pub read_via: Vec<(StmtId, Cell)>,
    /// `(write, cell)`: the writers of each cell node.
    pub write_at: Vec<(StmtId, Cell)>,
    /// `(read, cell)`: the read may see a write of the cell by code that may run in a
    /// different thread (inter-thread data dependence).
    pub inter_thread: Vec<(StmtId, Cell)>,
    /// `(read, write)` memory-access pairs removed because the read happens first.
    pub filtered_by_hb: Vec<(StmtId, StmtId)>,
}

impl DependenceGraph {
    pub fn sizes(&self) -> Vec<(&'static str, usize)> {
        vec![
            ("dep", self.edges.len()),
            ("read_via", self.read_via.len()),
            ("write_at", self.write_at.len()),
            ("inter_thread_dep", self.inter_thread.len()),
            ("hb_filtered", self.filtered_by_hb.len()),
        ]
    }

    /// Whether `read` may read what `write` wrote (memory dependence, after the filter).
    pub fn memory_dependence(&self, read: StmtId, write: StmtId) -> bool {
        let explicit = self
            .edges
            .iter()
            .any(|e| e.stmt == read && e.on == write && e.kind == DepKind::Memory);
        let via = self
            .read_via
            .iter()
            .filter(|r| r.0 == read)
            .any(|&(_, n)| self.write_at.contains(&(write, n)));
        explicit || via
    }

    /// The edges as `(stmt, on, class)` triples for the slicing rules.
    pub fn classified(&self) -> Vec<(StmtId, StmtId, u8)> {
        sorted(
            self.edges
                .iter()
                .map(|e| (e.stmt, e.on, e.kind.class() as u8))
                .collect(),
        )
    }
}

/// Assembles the dependence graph from the earlier rule sets' results.
pub fn run(
    facts: &Facts,
    cg: &CallGraph,
    cd: &ControlDeps,
    dd: &DataDeps,
    hb: &HappensBefore,
) -> DependenceGraph {
    let func_of: HashMap<StmtId, FuncId> = facts.stmt_func.iter().copied().collect();
    let mut edges = Vec::new();
    let mut push = |stmt, on, kind| edges.push(DepEdge { stmt, on, kind });
    for c in &cd.deps {
        push(c.stmt, c.on, DepKind::Control);
    }
    for &(u, d) in &dd.reg {
        push(u, d, DepKind::Data);
    }
    let memory = memory_edges(facts, cg, dd, hb);
    for &(r, w) in &memory.explicit {
        push(r, w, DepKind::Memory);
    }
    let mut sites: HashMap<FuncId, Vec<StmtId>> = HashMap::new();
    for &(k, f) in &cg.invoked {
        sites.entry(f).or_default().push(k);
    }
    let creates: HashSet<StmtId> = cg.thread_edges.iter().map(|e| e.0).collect();
    for &(f, s) in &cd.entry_level {
        for &k in sites.get(&f).into_iter().flatten() {
            push(s, k, DepKind::Call);
        }
    }
    for &(s, f, i) in &dd.param_uses {
        for &k in sites.get(&f).into_iter().flatten() {
            if i == 0 || !creates.contains(&k) {
                push(s, k, DepKind::Param);
            }
        }
    }
    let mut by_func: HashMap<FuncId, (Vec<StmtId>, Vec<StmtId>)> = HashMap::new();
    for &(r, _) in &facts.return_val {
        if let Some(&f) = func_of.get(&r) {
            by_func.entry(f).or_default().0.push(r);
        }
    }
    for &(h,) in &facts.halt {
        if let Some(&f) = func_of.get(&h) {
            by_func.entry(f).or_default().1.push(h);
        }
    }
    let has_result: HashSet<StmtId> = facts.call_result.iter().map(|c| c.0).collect();
    for &(k, f) in &cg.call_edges {
        let Some((returns, halts)) = by_func.get(&f) else {
            continue;
        };
        if has_result.contains(&k) {
            for &r in returns {
                push(k, r, DepKind::Return);
            }
        }
        for &h in halts {
            push(k, h, DepKind::Halt);
        }
    }
    // A thread's result comes from `pthread_exit(v)` or from its entry's `return v`.
    let entries: BTreeSet<FuncId> = cg.thread_edges.iter().map(|e| e.1).collect();
    let results: Vec<StmtId> = facts
        .thread_exit_val
        .iter()
        .map(|x| x.0)
        .chain(entries.iter().flat_map(|f| {
            by_func
                .get(f)
                .map_or(&[][..], |(returns, _)| returns.as_slice())
                .iter()
                .copied()
        }))
        .collect();
    for &(j, _, res) in &facts.thread_join {
        if res != Facts::CONST_VAR {
            for &x in &results {
                push(j, x, DepKind::Join);
            }
        }
    }
    DependenceGraph {
        edges: sorted(edges),
        read_via: memory.read_via,
        write_at: memory.write_at,
        inter_thread: memory.inter_thread,
        filtered_by_hb: memory.filtered,
    }
}

#[derive(Default)]
struct MemoryEdges {
    explicit: Vec<(StmtId, StmtId)>,
    read_via: Vec<(StmtId, Cell)>,
    write_at: Vec<(StmtId, Cell)>,
    inter_thread: Vec<(StmtId, Cell)>,
    filtered: Vec<(StmtId, StmtId)>,
}

/// Links reads to the cell nodes they may read (every written cell that overlaps theirs),
/// replacing a node by explicit edges where happens-before removes some of its writers.
fn memory_edges(facts: &Facts, cg: &CallGraph, dd: &DataDeps, hb: &HappensBefore) -> MemoryEdges {
    let func_of: HashMap<StmtId, FuncId> = facts.stmt_func.iter().copied().collect();
    let mut writers: HashMap<Cell, Vec<StmtId>> = HashMap::new();
    let mut written: HashMap<Obj, Vec<i64>> = HashMap::new();
    let mut out = MemoryEdges::default();
    for &(w, obj, offset) in &dd.write_cells {
        let n = Cell { obj, offset };
        writers.entry(n).or_default().push(w);
        written.entry(obj).or_default().push(offset);
        out.write_at.push((w, n));
    }
    for offsets in written.values_mut() {
        offsets.sort();
        offsets.dedup();
    }
    let mut hb_writes: HashMap<StmtId, HashSet<StmtId>> = HashMap::new();
    for &(r, w) in &hb.hb {
        hb_writes.entry(r).or_default().insert(w);
    }
    for &(r, obj, offset) in &dd.read_cells {
        let read = Cell { obj, offset };
        let offsets = written.get(&obj).map_or(&[][..], Vec::as_slice);
        for &k in offsets {
            let node = Cell { obj, offset: k };
            if !read.overlaps(node) {
                continue;
            }
            let ws = &writers[&node];
            let before = hb_writes.get(&r);
            let parallel = |w: &StmtId| match (func_of.get(&r), func_of.get(w)) {
                (Some(&f), Some(&g)) => cg.may_run_in_parallel(f, g),
                _ => false,
            };
            match before.filter(|b| ws.iter().any(|w| b.contains(w))) {
                Some(b) => {
                    for &w in ws {
                        if b.contains(&w) {
                            out.filtered.push((r, w));
                        } else {
                            out.explicit.push((r, w));
                        }
                    }
                    if ws.iter().any(|w| !b.contains(w) && parallel(w)) {
                        out.inter_thread.push((r, node));
                    }
                }
                None => {
                    out.read_via.push((r, node));
                    if ws.iter().any(parallel) {
                        out.inter_thread.push((r, node));
                    }
                }
            }
        }
    }
    out.explicit = sorted(out.explicit);
    out.read_via = sorted(out.read_via);
    out.write_at = sorted(out.write_at);
    out.inter_thread = sorted(out.inter_thread);
    out.filtered = sorted(out.filtered);
    out
}
