//! The second-tier heuristic `h2`: an estimate of how far a thread is from an abstract
//! location, as the number of statements on a shortest path in the interprocedural
//! control-flow graph.
//!
//! Edges: the next statement of a block, a terminator to the first statement of each
//! successor block, a call to the callee's entry and (skipping it) to the statement after
//! the call, a thread creation to the new thread's entry and to the next statement.
//! Returns are not followed (the call's skip edge stands for them), so a distance is never
//! through a caller the thread is not in. (Going through the thread's own call stack —
//! returns first, then on from the callers — was tried; it guided worse on the SV-COMP
//! tasks, where it pulled threads toward far-away call sites.) Distances to one location
//! are computed once, by a backward breadth-first search, and cached.

use analysis::ir::{Callee, Operand, Program, StmtId, StmtKind, SyncOp};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// "Unreachable" as a distance.
pub const FAR: u32 = u32::MAX / 4;

/// The statement-level interprocedural control-flow graph of a program.
pub struct Icfg {
    pred: Vec<Vec<StmtId>>,
    /// Intraprocedural successors only.
    intra: Vec<Vec<StmtId>>,
    cache: FxHashMap<StmtId, Vec<u32>>,
}

/// The first statement (or the terminator) of a block.
pub fn block_entry(
    prog: &Program,
    func: analysis::ir::FuncId,
    block: analysis::ir::BlockId,
) -> StmtId {
    let b = prog.function(func).block(block);
    b.stmts.first().map_or(b.term.id, |s| s.id)
}

impl Icfg {
    pub fn new(prog: &Program) -> Icfg {
        let n = prog.stmt_count();
        let mut succ = vec![Vec::new(); n];
        let mut intra = vec![Vec::new(); n];
        let entry_of = |f: analysis::ir::FuncId| {
            let func = prog.function(f);
            func.is_defined()
                .then(|| block_entry(prog, f, func.entry()))
        };
        for func in &prog.functions {
            for block in &func.blocks {
                for (i, stmt) in block.stmts.iter().enumerate() {
                    let next = block.stmts.get(i + 1).map_or(block.term.id, |s| s.id);
                    intra[stmt.id.index()].push(next);
                    succ[stmt.id.index()].push(next);
                    let callee = match &stmt.kind {
                        StmtKind::Call {
                            callee: Callee::Direct(f),
                            ..
                        } => Some(*f),
                        StmtKind::Sync {
                            op:
                                SyncOp::ThreadCreate {
                                    func: Operand::Func(f),
                                    ..
                                },
                            ..
                        } => Some(*f),
                        _ => None,
                    };
                    if let Some(entry) = callee.and_then(entry_of) {
                        succ[stmt.id.index()].push(entry);
                    }
                }
                for b in block.term.kind.successors() {
                    let to = block_entry(prog, func.id, b);
                    intra[block.term.id.index()].push(to);
                    succ[block.term.id.index()].push(to);
                }
            }
        }
        let mut pred = vec![Vec::new(); n];
        for (from, list) in succ.iter().enumerate() {
            for &to in list {
                pred[to.index()].push(StmtId(from as u32));
            }
        }
        Icfg {
            pred,
            intra,
            cache: FxHashMap::default(),
        }
    }

    /// The number of statements from `from` to `to` (0 when equal), or [`FAR`].
    pub fn distance(&mut self, from: StmtId, to: StmtId) -> u32 {
        let pred = &self.pred;
        let table = self
            .cache
            .entry(to)
            .or_insert_with(|| backward_bfs(pred, &[to]));
        table.get(from.index()).copied().unwrap_or(FAR)
    }

    /// Whether `to` is reachable from `from` within one function (`from` itself counts).
    pub fn reaches_intra(&self, from: StmtId, to: StmtId) -> bool {
        let mut seen = vec![false; self.intra.len()];
        let mut stack = vec![from];
        while let Some(s) = stack.pop() {
            if s == to {
                return true;
            }
            match seen.get_mut(s.index()) {
                Some(v) if !*v => *v = true,
                _ => continue,
            }
            stack.extend(self.intra[s.index()].iter().copied());
        }
        false
    }
}

/// Distances to the nearest of `sources` along `pred` edges (reversed successors).
fn backward_bfs(pred: &[Vec<StmtId>], sources: &[StmtId]) -> Vec<u32> {
    let mut dist = vec![FAR; pred.len()];
    let mut queue = VecDeque::new();
    for &s in sources {
        if let Some(d) = dist.get_mut(s.index()) {
            *d = 0;
            queue.push_back(s);
        }
    }
    while let Some(s) = queue.pop_front() {
        let next = dist[s.index()] + 1;
        for &p in &pred[s.index()] {
            if dist[p.index()] == FAR {
                dist[p.index()] = next;
                queue.push_back(p);
            }
        }
    }
    dist
}
