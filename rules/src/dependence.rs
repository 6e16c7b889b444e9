//! The program dependence graph: control and data dependence, linked across functions and
//! threads, with the happens-before filter applied to memory dependences.
//!
//! Edges `dep(s, d, kind)` read "`s` depends on `d`":
//! ```text
//! control   dep(n, a)  ← cd(n, a, _)
//! data      dep(u, d)  ← reg_dep(u, d)
//! memory    dep(r, w)  ← mem_cand(r, w), ¬hb(r, w)
//! call      dep(s, k)  ← entry_level(f, s), invoked(k, f)
//! param     dep(s, k)  ← param_use(s, f, i), invoked(k, f)      (i = 0 for thread creation)
//! return    dep(k, r)  ← call_edge(k, f), call_result(k, _), return_val(r, _), stmt_func(r, f)
//! halt      dep(k, h)  ← call_edge(k, f), halt(h), stmt_func(h, f)
//! join      dep(j, x)  ← thread_join(j, _, res), res ≠ null, thread_exit_val(x, _)
//! ```
//! A call site depends on everything that makes its callee stop early (`halt`), since
//! what follows the call runs only if the callee returns.
//!
//! For context-sensitive slicing (Horwitz, Reps and Binkley's two phases) each kind has a
//! class: `Local` (control, data), `Up` (to callers: call, param), `Down` (into callees:
//! return, halt) and `Memory` (memory, join: any function, any context).
//! `inter_thread(r, w)`: the memory dependences whose two ends may run in different
//! threads.

use crate::call_graph::CallGraph;
use crate::control_dep::ControlDeps;
use crate::data_dep::DataDeps;
use crate::happens_before::HappensBefore;
use crate::points_to::sorted;
use analysis::facts::{Facts, FuncId, StmtId};
use std::collections::{HashMap, HashSet};

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
    pub edges: Vec<DepEdge>,
    /// `(read, write)` memory dependences between code that may run in different threads.
    pub inter_thread: Vec<(StmtId, StmtId)>,
    /// `(read, write)` memory-access pairs removed because the read happens first.
    pub filtered_by_hb: Vec<(StmtId, StmtId)>,
}

impl DependenceGraph {
    pub fn sizes(&self) -> Vec<(&'static str, usize)> {
        vec![
            ("dep", self.edges.len()),
            ("inter_thread_dep", self.inter_thread.len()),
            ("hb_filtered", self.filtered_by_hb.len()),
        ]
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
    let mut filtered = Vec::new();
    let mut inter_thread = Vec::new();
    for &(r, w) in &dd.mem_candidates {
        if hb.happens_before(r, w) {
            filtered.push((r, w));
            continue;
        }
        push(r, w, DepKind::Memory);
        if let (Some(&f), Some(&g)) = (func_of.get(&r), func_of.get(&w)) {
            if cg.may_run_in_parallel(f, g) {
                inter_thread.push((r, w));
            }
        }
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
    for &(j, _, res) in &facts.thread_join {
        if res != Facts::CONST_VAR {
            for &(x, _) in &facts.thread_exit_val {
                push(j, x, DepKind::Join);
            }
        }
    }
    DependenceGraph {
        edges: sorted(edges),
        inter_thread: sorted(inter_thread),
        filtered_by_hb: sorted(filtered),
    }
}
