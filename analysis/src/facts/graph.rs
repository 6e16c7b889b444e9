//! Graph facts of one function's statement-level CFG, computed with petgraph: dominators
//! (with the dominator tree's pre/post numbering), post-dominators with a virtual exit,
//! and strongly connected components.
//!
//! Post-dominance needs every node to reach the exit. Nodes in a region that never exits
//! (`while (1) { ... }` without a break) get one extra edge to the exit from one node of
//! each such bottom component (the smallest statement id, usually the loop head), as
//! compilers do; those nodes are reported in [`GraphFacts::endless_loops`] so that the
//! rules see them as places where the thread may stop.

use super::StmtId;
use petgraph::algo::{dominators::simple_fast, tarjan_scc};
use petgraph::graph::{DiGraph, NodeIndex};

/// The CFG of one function: node 0 is the entry.
pub(super) struct FuncGraph {
    pub nodes: Vec<StmtId>,
    pub succs: Vec<Vec<usize>>,
    /// The node has an edge to the virtual exit.
    pub exits: Vec<bool>,
}

#[derive(Default)]
pub(super) struct GraphFacts {
    pub idom: Vec<(StmtId, StmtId)>,
    pub dom_interval: Vec<(StmtId, u32, u32)>,
    pub ipdom: Vec<(StmtId, StmtId)>,
    pub scc: Vec<(StmtId, StmtId)>,
    pub in_cycle: Vec<StmtId>,
    pub reachable: Vec<StmtId>,
    pub endless_loops: Vec<StmtId>,
}

pub(super) fn analyze(g: &FuncGraph) -> GraphFacts {
    let n = g.nodes.len();
    let mut out = GraphFacts::default();
    if n == 0 {
        return out;
    }
    let mut forward = DiGraph::<(), ()>::with_capacity(n, n);
    for _ in 0..n {
        forward.add_node(());
    }
    for (u, succs) in g.succs.iter().enumerate() {
        for &v in succs {
            forward.add_edge(NodeIndex::new(u), NodeIndex::new(v), ());
        }
    }
    dominator_facts(g, &forward, &mut out);
    let components = tarjan_scc(&forward);
    scc_facts(g, &components, &mut out);
    let extra_exits = endless_loop_exits(g, &components);
    out.endless_loops = extra_exits.iter().map(|&i| g.nodes[i]).collect();
    post_dominator_facts(g, &extra_exits, &mut out);
    out
}

fn dominator_facts(g: &FuncGraph, forward: &DiGraph<(), ()>, out: &mut GraphFacts) {
    let n = g.nodes.len();
    let doms = simple_fast(forward, NodeIndex::new(0));
    let mut children = vec![Vec::new(); n];
    for v in 0..n {
        let idx = NodeIndex::new(v);
        if v == 0 || doms.immediate_dominator(idx).is_some() {
            out.reachable.push(g.nodes[v]);
        }
        if let Some(d) = doms.immediate_dominator(idx) {
            out.idom.push((g.nodes[v], g.nodes[d.index()]));
            children[d.index()].push(v);
        }
    }
    // Pre/post numbering of the dominator tree, iteratively (functions can be long).
    let mut pre = vec![0u32; n];
    let mut counter = 0u32;
    let mut stack = vec![(0usize, false)];
    while let Some((v, done)) = stack.pop() {
        if done {
            out.dom_interval.push((g.nodes[v], pre[v], counter));
            counter += 1;
            continue;
        }
        pre[v] = counter;
        counter += 1;
        stack.push((v, true));
        for &c in children[v].iter().rev() {
            stack.push((c, false));
        }
    }
}

fn scc_facts(g: &FuncGraph, components: &[Vec<NodeIndex>], out: &mut GraphFacts) {
    for comp in components {
        let rep = comp.iter().map(|i| g.nodes[i.index()]).min();
        let Some(rep) = rep else { continue };
        let cyclic = comp.len() > 1 || g.succs[comp[0].index()].contains(&comp[0].index());
        for i in comp {
            out.scc.push((g.nodes[i.index()], rep));
            if cyclic {
                out.in_cycle.push(g.nodes[i.index()]);
            }
        }
    }
}

/// One node per bottom component that cannot reach the exit.
fn endless_loop_exits(g: &FuncGraph, components: &[Vec<NodeIndex>]) -> Vec<usize> {
    let n = g.nodes.len();
    let mut preds = vec![Vec::new(); n];
    for (u, succs) in g.succs.iter().enumerate() {
        for &v in succs {
            preds[v].push(u);
        }
    }
    let mut reaches_exit = g.exits.clone();
    let mut work: Vec<usize> = (0..n).filter(|&v| g.exits[v]).collect();
    while let Some(v) = work.pop() {
        for &p in &preds[v] {
            if !reaches_exit[p] {
                reaches_exit[p] = true;
                work.push(p);
            }
        }
    }
    let mut comp_of = vec![0usize; n];
    for (c, comp) in components.iter().enumerate() {
        for i in comp {
            comp_of[i.index()] = c;
        }
    }
    let mut picks = Vec::new();
    for (c, comp) in components.iter().enumerate() {
        let stuck = comp.iter().all(|i| !reaches_exit[i.index()]);
        let bottom = comp
            .iter()
            .all(|i| g.succs[i.index()].iter().all(|&s| comp_of[s] == c));
        if stuck && bottom {
            if let Some(pick) = comp.iter().map(|i| i.index()).min_by_key(|&i| g.nodes[i]) {
                picks.push(pick);
            }
        }
    }
    picks
}

fn post_dominator_facts(g: &FuncGraph, extra_exits: &[usize], out: &mut GraphFacts) {
    let n = g.nodes.len();
    let mut reverse = DiGraph::<(), ()>::with_capacity(n + 1, n + 1);
    for _ in 0..=n {
        reverse.add_node(());
    }
    let exit = NodeIndex::new(n);
    for (u, succs) in g.succs.iter().enumerate() {
        for &v in succs {
            reverse.add_edge(NodeIndex::new(v), NodeIndex::new(u), ());
        }
        if g.exits[u] {
            reverse.add_edge(exit, NodeIndex::new(u), ());
        }
    }
    for &u in extra_exits {
        reverse.add_edge(exit, NodeIndex::new(u), ());
    }
    let pdoms = simple_fast(&reverse, exit);
    for v in 0..n {
        if let Some(p) = pdoms.immediate_dominator(NodeIndex::new(v)) {
            if p != exit {
                out.ipdom.push((g.nodes[v], g.nodes[p.index()]));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(succs: Vec<Vec<usize>>, exits: Vec<bool>) -> FuncGraph {
        let nodes = (0..succs.len() as u32).map(StmtId).collect();
        FuncGraph {
            nodes,
            succs,
            exits,
        }
    }

    #[test]
    fn diamond_dominators_and_post_dominators() {
        // 0 -> 1 | 2 -> 3 -> exit
        let g = graph(
            vec![vec![1, 2], vec![3], vec![3], vec![]],
            vec![false, false, false, true],
        );
        let f = analyze(&g);
        let idom: Vec<_> = f.idom.iter().map(|(a, b)| (a.0, b.0)).collect();
        assert_eq!(idom, vec![(1, 0), (2, 0), (3, 0)]);
        let mut ipdom: Vec<_> = f.ipdom.iter().map(|(a, b)| (a.0, b.0)).collect();
        ipdom.sort();
        assert_eq!(ipdom, vec![(0, 3), (1, 3), (2, 3)]);
        assert!(f.in_cycle.is_empty());
        let pre_post = |s: u32| {
            f.dom_interval
                .iter()
                .find(|(x, _, _)| x.0 == s)
                .map(|&(_, a, b)| (a, b))
                .unwrap()
        };
        let (p0, q0) = pre_post(0);
        let (p3, q3) = pre_post(3);
        let (p1, q1) = pre_post(1);
        assert!(p0 <= p3 && q3 <= q0, "entry dominates the join");
        assert!(
            !(p1 <= p3 && q3 <= q1),
            "one arm does not dominate the join"
        );
    }

    #[test]
    fn endless_loop_gets_one_exit_edge() {
        // 0 -> 1 -> 2 -> 1 (never exits)
        let g = graph(vec![vec![1], vec![2], vec![1]], vec![false; 3]);
        let f = analyze(&g);
        assert_eq!(f.endless_loops, vec![StmtId(1)]);
        let ipdom: Vec<_> = f.ipdom.iter().map(|(a, b)| (a.0, b.0)).collect();
        assert_eq!(ipdom, vec![(0, 1), (2, 1)]);
        assert_eq!(f.in_cycle.len(), 2);
    }

    #[test]
    fn unreachable_nodes_are_not_reachable() {
        let g = graph(vec![vec![], vec![0]], vec![true, false]);
        let f = analyze(&g);
        assert_eq!(f.reachable, vec![StmtId(0)]);
    }
}
