//! Spin loops: loops whose failing iterations have no effect anyone can see (issue 15).
//!
//! A *spin loop* of a function is a natural loop `L` of its control-flow graph (a header
//! `h` with the blocks that reach a back edge into `h` without passing through `h`; `h`
//! dominates them, so `L` is entered only through `h`; loops sharing a header are one)
//! with
//! 1. no inner loop: `L` without the edges back into `h` is acyclic, so an *iteration* (a
//!    path from `h` that returns to `h` or leaves `L`) is finite;
//! 2. only quiet statements: loads and register assignments (no `Uninit` value), so no
//!    store, synchronization, call, input, allocation, assume or output. Terminators
//!    inside `L` are branches and jumps (a block of `L` has a successor in `L`);
//! 3. every register assigned in `L` is dead at `h`: each path from `h` assigns it again
//!    before reading it.
//!
//! **Soundness condition.** An iteration that returns to `h` (a *failing* iteration)
//! writes no memory (2: other threads observe nothing), and it leaves the thread's state at
//! `h` as it was up to registers no later statement reads before assigning them (3). So in
//! any execution, deleting a failing iteration gives an execution in which every thread
//! reads the same values (the deleted events are loads: no read-from changes) and reaches
//! the same statements; inserting one changes nothing either. Hence an explorer may treat
//! a thread that completes a failing iteration as *blocked for the rest of that run*
//! (Nidhugg's spin-assume, GenMC's await): every execution in which the loop later exits
//! is represented by the execution without the failing iteration, which a search over
//! all orders of racing events (DPOR reverses the race between the loop's loads and the
//! later write that lets it exit) also explores; an execution in which the loop never
//! exits reaches no statement after it in that thread, and the other threads run on as
//! they would beside a thread spinning forever. Reachability of every statement (every
//! assertion, error call and undefined behaviour) is preserved; only the failing
//! iterations disappear. The successful iteration runs as before, its loads interleaved
//! with other threads (evaluating it atomically would lose reads from different moments).
//! An iteration that raises undefined behaviour (a null load, a division by zero) does
//! not return to `h`: like an exiting one, it runs as before.
//!
//! Not detected (the loop stays an ordinary loop, explored as today): a wait whose loop
//! has an inner loop, calls a function (even a pure one), or keeps a counter.

use crate::ir::{BlockId, FuncId, Function, Operand, Program, RegId, Rvalue, StmtKind, TermKind};
use std::collections::BTreeSet;

/// One spin loop (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpinLoop {
    pub func: FuncId,
    pub header: BlockId,
    /// The blocks of the loop, header included, in id order.
    pub blocks: Vec<BlockId>,
}

impl SpinLoop {
    /// Whether the edge `from → to` closes a failing iteration (goes back to the header
    /// from inside the loop).
    pub fn is_back_edge(&self, from: BlockId, to: BlockId) -> bool {
        to == self.header && self.blocks.binary_search(&from).is_ok()
    }
}

/// The spin loops of every defined function, by function and header.
pub fn spin_loops(program: &Program) -> Vec<SpinLoop> {
    program
        .functions
        .iter()
        .filter(|f| f.is_defined())
        .flat_map(function_spin_loops)
        .collect()
}

/// The spin loops of one function.
pub fn function_spin_loops(f: &Function) -> Vec<SpinLoop> {
    let mut found = Vec::new();
    let mut live: Option<Vec<BTreeSet<RegId>>> = None;
    for (header, blocks) in natural_loops(f) {
        if !acyclic_without_back_edges(f, &blocks, header) || !all_quiet(f, &blocks) {
            continue;
        }
        let live_in = live.get_or_insert_with(|| live_in(f));
        let assigned = assigned_regs(f, &blocks);
        if assigned.iter().any(|r| live_in[header.index()].contains(r)) {
            continue;
        }
        found.push(SpinLoop {
            func: f.id,
            header,
            blocks: blocks.into_iter().collect(),
        });
    }
    found
}

/// The natural loops of the CFG by header: for every edge `b → h` where `h` dominates
/// `b`, `h` and the blocks that reach `b` without passing through `h` (loops sharing a
/// header are one). A natural loop is entered only through its header.
fn natural_loops(f: &Function) -> Vec<(BlockId, BTreeSet<BlockId>)> {
    use petgraph::graph::{DiGraph, NodeIndex};
    let n = f.blocks.len();
    let mut g = DiGraph::<(), ()>::with_capacity(n, 2 * n);
    for _ in 0..n {
        g.add_node(());
    }
    let mut predecessors = vec![Vec::new(); n];
    for (b, block) in f.blocks.iter().enumerate() {
        for s in successors(&block.term.kind) {
            if s.index() < n {
                g.add_edge(NodeIndex::new(b), NodeIndex::new(s.index()), ());
                predecessors[s.index()].push(b);
            }
        }
    }
    let doms = petgraph::algo::dominators::simple_fast(&g, NodeIndex::new(f.entry().index()));
    let dominates = |h: usize, b: usize| {
        doms.dominators(NodeIndex::new(b))
            .is_some_and(|mut ds| ds.any(|d| d.index() == h))
    };
    let mut loops: std::collections::BTreeMap<usize, BTreeSet<BlockId>> = Default::default();
    for (b, block) in f.blocks.iter().enumerate() {
        for s in successors(&block.term.kind) {
            let h = s.index();
            if h >= n || !dominates(h, b) {
                continue;
            }
            let body = loops
                .entry(h)
                .or_insert_with(|| BTreeSet::from([BlockId(h as u32)]));
            let mut work = vec![b];
            while let Some(x) = work.pop() {
                if body.insert(BlockId(x as u32)) {
                    work.extend(predecessors[x].iter().copied());
                }
            }
        }
    }
    loops
        .into_iter()
        .map(|(h, body)| (BlockId(h as u32), body))
        .collect()
}

/// Whether `scc` without the edges into `header` has no cycle (no inner loop).
fn acyclic_without_back_edges(f: &Function, scc: &BTreeSet<BlockId>, header: BlockId) -> bool {
    // Kahn's algorithm on the sub-graph.
    let inner = |b: BlockId| -> Vec<BlockId> {
        successors(&f.block(b).term.kind)
            .into_iter()
            .filter(|s| scc.contains(s) && *s != header)
            .collect()
    };
    let mut indegree: std::collections::BTreeMap<BlockId, usize> =
        scc.iter().map(|b| (*b, 0)).collect();
    for b in scc {
        for s in inner(*b) {
            *indegree.entry(s).or_default() += 1;
        }
    }
    let mut ready: Vec<BlockId> = indegree
        .iter()
        .filter(|(_, d)| **d == 0)
        .map(|(b, _)| *b)
        .collect();
    let mut seen = 0;
    while let Some(b) = ready.pop() {
        seen += 1;
        for s in inner(b) {
            let d = indegree.get_mut(&s).expect("successor in the component");
            *d -= 1;
            if *d == 0 {
                ready.push(s);
            }
        }
    }
    seen == scc.len()
}

/// The blocks a terminator may jump to: a branch on a constant has one (the lowering
/// keeps `while (1)` as `if 1`, and liveness through its dead side would keep every
/// register of such a loop live).
fn successors(term: &TermKind) -> Vec<BlockId> {
    match term {
        TermKind::Branch {
            cond: Operand::Int { bits, .. },
            then_bb,
            else_bb,
        } => vec![if *bits != 0 { *then_bb } else { *else_bb }],
        other => other.successors(),
    }
}

/// Whether every statement of the blocks is a load or a register assignment, and every
/// terminator a jump or a branch.
fn all_quiet(f: &Function, blocks: &BTreeSet<BlockId>) -> bool {
    blocks.iter().all(|b| {
        let block = f.block(*b);
        let quiet_term = matches!(block.term.kind, TermKind::Goto(_) | TermKind::Branch { .. });
        quiet_term
            && block.stmts.iter().all(|s| match &s.kind {
                StmtKind::Load { .. } => true,
                StmtKind::Assign { value, .. } => !matches!(value, Rvalue::Uninit(_)),
                _ => false,
            })
    })
}

fn assigned_regs(f: &Function, blocks: &BTreeSet<BlockId>) -> BTreeSet<RegId> {
    blocks
        .iter()
        .flat_map(|b| f.block(*b).stmts.iter().filter_map(|s| s.kind.def()))
        .collect()
}

/// The registers live on entry to each block (read on some path before being assigned).
fn live_in(f: &Function) -> Vec<BTreeSet<RegId>> {
    let n = f.blocks.len();
    // Per block: registers read before any assignment in it (`uses`) and assigned (`defs`).
    let mut uses = vec![BTreeSet::new(); n];
    let mut defs = vec![BTreeSet::new(); n];
    for (b, block) in f.blocks.iter().enumerate() {
        let read = |op: &Operand, uses: &mut BTreeSet<RegId>, defs: &BTreeSet<RegId>| {
            if let Some(r) = op.as_reg() {
                if !defs.contains(&r) {
                    uses.insert(r);
                }
            }
        };
        for s in &block.stmts {
            for op in s.kind.operands() {
                read(op, &mut uses[b], &defs[b]);
            }
            if let Some(d) = s.kind.def() {
                defs[b].insert(d);
            }
        }
        let mut term = block.term.kind.clone();
        term.for_each_operand_mut(&mut |op| read(op, &mut uses[b], &defs[b]));
    }
    let mut live = vec![BTreeSet::new(); n];
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..n).rev() {
            let mut out: BTreeSet<RegId> = BTreeSet::new();
            for s in successors(&f.blocks[b].term.kind) {
                if s.index() < n {
                    out.extend(live[s.index()].iter().copied());
                }
            }
            let mut inn = uses[b].clone();
            inn.extend(out.into_iter().filter(|r| !defs[b].contains(r)));
            if inn != live[b] {
                live[b] = inn;
                changed = true;
            }
        }
    }
    live
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::parse_preprocessed;
    use crate::ir::DataModel;

    fn loops_of(src: &str, func: &str) -> Vec<SpinLoop> {
        let src = format!("{src}\nint main(void) {{ return 0; }}\n");
        let unit = parse_preprocessed(src, "t.c").unwrap();
        let program = crate::lower::lower(&unit, DataModel::Ilp32).unwrap();
        let f = program.function_named(func).unwrap();
        function_spin_loops(f)
    }

    const FLAGS: &str = "int flag; int turn; int x; int *p;\n";

    #[test]
    fn a_flag_wait_is_a_spin_loop() {
        let src = format!("{FLAGS}void w(void) {{ while (flag == 0) ; x = 1; }}");
        let loops = loops_of(&src, "w");
        assert_eq!(loops.len(), 1, "{loops:?}");
        let l = &loops[0];
        assert!(l.is_back_edge(l.blocks[l.blocks.len() - 1], l.header));
    }

    #[test]
    fn peterson_two_reads_per_iteration_is_a_spin_loop() {
        let src = format!("{FLAGS}void w(void) {{ while (flag == 1 && turn == 1) ; x = 1; }}");
        assert_eq!(loops_of(&src, "w").len(), 1);
    }

    #[test]
    fn a_break_in_the_middle_is_a_spin_loop() {
        let src = format!(
            "{FLAGS}void w(void) {{ int v; while (1) {{ v = flag; if (v) break; }} x = v; }}"
        );
        assert_eq!(loops_of(&src, "w").len(), 1);
    }

    #[test]
    fn a_loop_that_writes_is_not() {
        let src = format!("{FLAGS}void w(void) {{ while (flag == 0) x = x + 1; }}");
        assert!(loops_of(&src, "w").is_empty());
    }

    #[test]
    fn a_loop_with_a_counter_is_not() {
        // The counter is live at the header: each iteration differs from the last.
        let src = format!(
            "{FLAGS}int w(void) {{ int i = 0; while (flag == 0 && i < 5) i++; return i; }}"
        );
        assert!(loops_of(&src, "w").is_empty());
    }

    #[test]
    fn a_loop_with_a_lock_or_call_is_not() {
        let src = format!(
            "{FLAGS}void g(void);\nvoid h(void) {{ }}\n\
             void w(void) {{ while (flag == 0) h(); }}"
        );
        assert!(loops_of(&src, "w").is_empty());
    }

    #[test]
    fn an_inner_wait_is_and_its_outer_loop_is_not() {
        let src =
            format!("{FLAGS}void w(void) {{ while (flag == 0) {{ while (turn == 0) ; }} x = 1; }}");
        let loops = loops_of(&src, "w");
        // The inner wait is one; the outer loop (with the inner one inside) is not.
        assert_eq!(loops.len(), 1, "{loops:?}");
        assert!(loops[0].blocks.len() < 4, "{loops:?}");
    }

    #[test]
    fn dekker_inner_wait_inside_a_writing_outer_loop() {
        let src = "int flag1; int flag2; int turn; int x;\n\
            void w(void) { flag1 = 1; while (flag2 >= 1) { if (turn != 0) { flag1 = 0; \
            while (turn != 0) { } flag1 = 1; } } x = 1; turn = 1; flag1 = 0; }";
        let loops = loops_of(src, "w");
        assert_eq!(loops.len(), 1, "{loops:?}");
    }

    #[test]
    fn a_pointer_chasing_wait_reads_only() {
        let src = format!("{FLAGS}void w(void) {{ while (*p == 0) ; }}");
        assert_eq!(loops_of(&src, "w").len(), 1);
    }

    #[test]
    fn a_loop_with_nondet_is_not() {
        let src = format!(
            "{FLAGS}int __VERIFIER_nondet_int(void);\n\
             void w(void) {{ while (flag == 0 && __VERIFIER_nondet_int()) ; }}"
        );
        assert!(loops_of(&src, "w").is_empty());
    }
}
