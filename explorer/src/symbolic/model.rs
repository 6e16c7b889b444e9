//! Concrete evaluation of terms under an assignment of their variables.
//!
//! The explorer keeps one assignment that satisfies the current path condition (the
//! last model the solver returned, extended with zeros for new inputs). A branch side
//! that holds under it is feasible without asking the solver.

use super::term::{fold_bin, mask, signed, CmpOp, Node, TermId, TermPool, Var};
use rustc_hash::FxHashMap;

/// Values of variables; a variable not listed is zero.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Assignment {
    values: FxHashMap<Var, u64>,
}

impl Assignment {
    pub fn get(&self, v: Var) -> u64 {
        self.values.get(&v).copied().unwrap_or(0)
    }

    pub fn set(&mut self, v: Var, value: u64) {
        self.values.insert(v, value);
    }

    pub fn iter(&self) -> impl Iterator<Item = (&Var, &u64)> {
        self.values.iter()
    }

    /// Evaluates a term; booleans are 0 or 1. `None` if evaluation hits a division by
    /// zero or an over-wide shift, which the solver would define differently from C.
    pub fn eval(&self, pool: &TermPool, t: TermId) -> Option<u64> {
        eval_ordered(pool, &topological(pool, t), |v| self.get(v))
    }

    pub fn holds(&self, pool: &TermPool, t: TermId) -> Option<bool> {
        self.eval(pool, t).map(|v| v != 0)
    }
}

/// Every subterm of `t` (including `t`), children before parents. Hash-consing creates
/// children before their parents, so ascending ids are a topological order.
pub fn topological(pool: &TermPool, t: TermId) -> Vec<TermId> {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut stack = vec![t];
    let mut out = Vec::new();
    while let Some(x) = stack.pop() {
        if seen.insert(x) {
            out.push(x);
            stack.extend_from_slice(&pool.children(pool.node(x)));
        }
    }
    out.sort_unstable();
    out
}

/// The value of the last term of `order` (every subterm of it, ascending, as
/// [`topological`] returns them) with the variables' values given by `var`: as
/// [`Assignment::eval`], whose `None` cases it shares.
pub fn eval_ordered(pool: &TermPool, order: &[TermId], var: impl Fn(Var) -> u64) -> Option<u64> {
    let mut vals: Vec<u64> = Vec::with_capacity(order.len());
    for &id in order {
        // A child comes before its parent in `order`, so its value is already there.
        let look = |c: &TermId| vals[order.partition_point(|x| x < c)];
        let v = eval_node(pool, pool.node(id), look, &var)?;
        vals.push(v);
    }
    vals.last().copied()
}

/// [`eval_ordered`] with the values of the variables `vars` (sorted, each variable
/// once, as [`TermPool::vars`] lists them) in `values`, position by position; a variable
/// not listed is zero.
///
/// The values are kept by term id in a buffer reused across calls (the prune check
/// evaluates a summary at every node whose key it names: finding each child's value
/// by binary search in `order` was most of the evaluation's cost).
pub fn eval_listed(
    pool: &TermPool,
    order: &[TermId],
    vars: &[(Var, u8)],
    values: &[u64],
) -> Option<u64> {
    thread_local! {
        static BY_ID: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let env = |v: Var| {
        let i = vars.partition_point(|(x, _)| *x < v);
        match vars.get(i) {
            Some((x, _)) if *x == v => values[i],
            _ => 0,
        }
    };
    BY_ID.with(|buf| {
        let mut vals = buf.borrow_mut();
        // `order` ascends: its last term has the largest id.
        let need = order.last().map_or(0, |t| t.index() + 1);
        if vals.len() < need {
            vals.resize(need, 0);
        }
        let mut last = None;
        for &id in order {
            // A child comes before its parent in `order`, so its value is already there.
            let v = eval_node(pool, pool.node(id), |c: &TermId| vals[c.index()], &env)?;
            vals[id.index()] = v;
            last = Some(v);
        }
        last
    })
}

fn eval_node(
    pool: &TermPool,
    node: &Node,
    v: impl Fn(&TermId) -> u64,
    env: &impl Fn(Var) -> u64,
) -> Option<u64> {
    let w = |t: &TermId| pool.width(*t);
    Some(match node {
        Node::BoolConst(b) => u64::from(*b),
        Node::BvConst { value, .. } => *value,
        Node::Var { var, width } => mask(env(*var), *width),
        Node::Not(a) => u64::from(v(a) == 0),
        Node::And(a, b) => u64::from(v(a) != 0 && v(b) != 0),
        Node::Or(a, b) => u64::from(v(a) != 0 || v(b) != 0),
        Node::Ite(c, a, b) => {
            if v(c) != 0 {
                v(a)
            } else {
                v(b)
            }
        }
        Node::Cmp(op, a, b) => {
            let (x, y, wd) = (v(a), v(b), w(a));
            u64::from(match op {
                CmpOp::Eq => x == y,
                CmpOp::Ult => x < y,
                CmpOp::Ule => x <= y,
                CmpOp::Slt => signed(x, wd) < signed(y, wd),
                CmpOp::Sle => signed(x, wd) <= signed(y, wd),
            })
        }
        Node::Bin(op, a, b) => fold_bin(*op, v(a), v(b), w(a))?,
        Node::Neg(a) => mask(v(a).wrapping_neg(), w(a)),
        Node::BNot(a) => mask(!v(a), w(a)),
        Node::ZExt(a, _) => v(a),
        Node::SExt(a, to) => mask(signed(v(a), w(a)) as u64, *to),
        Node::Trunc(a, to) => mask(v(a), *to),
        Node::Fp(op, a, b) => op.eval(w(a), v(a), v(b)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbolic::names::ThreadKey;
    use crate::symbolic::term::BvOp;

    #[test]
    fn evaluates_under_assignment() {
        let mut p = TermPool::new();
        let x = p.var(
            Var::Input {
                thread: ThreadKey(0),
                index: 0,
            },
            8,
        );
        let k = p.bv_const(200, 8);
        let sum = p.bin(BvOp::Add, x, k);
        let lt = p.cmp(CmpOp::Slt, sum, x);
        let mut a = Assignment::default();
        a.set(
            Var::Input {
                thread: ThreadKey(0),
                index: 0,
            },
            100,
        );
        assert_eq!(a.eval(&p, sum), Some(44));
        assert_eq!(a.holds(&p, lt), Some(true));
    }
}
