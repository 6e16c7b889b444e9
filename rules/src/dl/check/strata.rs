//! Stratification: the relations each rule reads (negated or under an aggregate), the
//! strongly connected components of the dependence graph (Tarjan), and a cycle through
//! a negation for the error message.

use super::super::syntax::{Expr, Literal, Pos};

pub(super) fn relations_in(lits: &[Literal], out: &mut Vec<(String, bool, Pos)>, negated: bool) {
    pub(super) fn in_expr(e: &Expr, out: &mut Vec<(String, bool, Pos)>) {
        match e {
            Expr::Count(body, _) | Expr::Aggregate(_, _, body, _) => relations_in(body, out, true),
            Expr::Arith(_, a, b, _) => {
                in_expr(a, out);
                in_expr(b, out);
            }
            Expr::Neg(a, _) | Expr::Ord(a, _) => in_expr(a, out),
            _ => {}
        }
    }
    for l in lits {
        match l {
            Literal::Pos(a) => {
                out.push((a.name.clone(), negated, a.pos.clone()));
                a.args.iter().for_each(|e| in_expr(e, out));
            }
            Literal::Neg(a) => {
                out.push((a.name.clone(), true, a.pos.clone()));
                a.args.iter().for_each(|e| in_expr(e, out));
            }
            Literal::Cmp(_, l, r, _) => {
                in_expr(l, out);
                in_expr(r, out);
            }
        }
    }
}

/// Tarjan's strongly connected components; dependencies come first.
pub(super) fn sccs(n: usize, edges: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct T<'a> {
        edges: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    pub(super) fn visit(t: &mut T, v: usize) {
        t.index[v] = Some(t.next);
        t.low[v] = t.next;
        t.next += 1;
        t.stack.push(v);
        t.on[v] = true;
        for &w in &t.edges[v] {
            match t.index[w] {
                None => {
                    visit(t, w);
                    t.low[v] = t.low[v].min(t.low[w]);
                }
                Some(i) if t.on[w] => t.low[v] = t.low[v].min(i),
                _ => {}
            }
        }
        if Some(t.low[v]) == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            comp.sort();
            t.out.push(comp);
        }
    }
    let mut t = T {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if t.index[v].is_none() {
            visit(&mut t, v);
        }
    }
    t.out
}

/// A path `from → … → to` in the dependency graph (for the stratification error).
pub(super) fn path(edges: &[Vec<usize>], from: usize, to: usize) -> Vec<usize> {
    let mut prev = vec![usize::MAX; edges.len()];
    let mut queue = std::collections::VecDeque::from([from]);
    prev[from] = from;
    while let Some(v) = queue.pop_front() {
        if v == to {
            break;
        }
        for &w in &edges[v] {
            if prev[w] == usize::MAX {
                prev[w] = v;
                queue.push_back(w);
            }
        }
    }
    let mut out = vec![to];
    let mut v = to;
    while v != from && prev[v] != usize::MAX {
        v = prev[v];
        out.push(v);
    }
    out.reverse();
    out
}
