//! Semi-naive bottom-up evaluation, stratum by stratum.
//!
//! A relation is an append-only array of tuples with a hash set (deduplication, negation)
//! and hash indexes on the column sets the plans look up by, extended as tuples arrive.
//! Within a recursive stratum each round reads the tuples new in the last round (`Delta`:
//! the tail of the array), the ones known before (`Old`: the head) or all of them, one
//! variant per recursive body atom, so every derivation is made once per round it becomes
//! possible in; new tuples are buffered and appended when the round ends.

use super::check::{CExpr, Col, Compiled, Op, Plan, RelId, Src};
use super::syntax::{Agg, ArithOp, CmpOp};
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// The Fx hash (as in rustc): fast on small integer keys.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

impl Hasher for FxHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(b));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_i64(&mut self, n: i64) {
        self.write_u64(n as u64);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

type Fx = BuildHasherDefault<FxHasher>;

struct Index {
    cols: Vec<usize>,
    map: HashMap<Box<[i64]>, Vec<u32>, Fx>,
    upto: usize,
}

/// The tuples of one relation.
pub struct Rel {
    arity: usize,
    data: Vec<i64>,
    len: usize,
    set: HashSet<Box<[i64]>, Fx>,
    indexes: Vec<Index>,
    /// First tuple of the last round's news.
    delta_start: usize,
}

impl Rel {
    fn new(arity: usize, indexes: &[Vec<usize>]) -> Rel {
        Rel {
            arity,
            data: Vec::new(),
            len: 0,
            set: HashSet::default(),
            indexes: indexes
                .iter()
                .map(|cols| Index {
                    cols: cols.clone(),
                    map: HashMap::default(),
                    upto: 0,
                })
                .collect(),
            delta_start: 0,
        }
    }

    fn tuple(&self, i: usize) -> &[i64] {
        &self.data[i * self.arity..(i + 1) * self.arity]
    }

    /// Adds a tuple; false if it was there.
    fn insert(&mut self, t: &[i64]) -> bool {
        if self.set.contains(t) {
            return false;
        }
        self.set.insert(t.into());
        self.data.extend_from_slice(t);
        self.len += 1;
        true
    }

    fn catch_up(&mut self) {
        for ix in &mut self.indexes {
            let mut key = Vec::with_capacity(ix.cols.len());
            for i in ix.upto..self.len {
                let t = &self.data[i * self.arity..(i + 1) * self.arity];
                key.clear();
                key.extend(ix.cols.iter().map(|&c| t[c]));
                match ix.map.get_mut(key.as_slice()) {
                    Some(v) => v.push(i as u32),
                    None => {
                        ix.map.insert(key.as_slice().into(), vec![i as u32]);
                    }
                }
            }
            ix.upto = self.len;
        }
    }

    /// The tuples, in insertion order.
    pub fn tuples(&self) -> impl Iterator<Item = &[i64]> {
        (0..self.len).map(move |i| self.tuple(i))
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn range(&self, src: Src) -> std::ops::Range<usize> {
        match src {
            Src::Full => 0..self.len,
            Src::Delta => self.delta_start..self.len,
            Src::Old => 0..self.delta_start,
        }
    }
}

/// The state of one evaluation.
pub struct Db {
    pub rels: Vec<Rel>,
}

fn arith(op: ArithOp, a: i64, b: i64) -> Option<i64> {
    Some(match op {
        ArithOp::Add => a.wrapping_add(b),
        ArithOp::Sub => a.wrapping_sub(b),
        ArithOp::Mul => a.wrapping_mul(b),
        // Division by zero derives nothing (Soufflé leaves it undefined).
        ArithOp::Div => a.checked_div(b)?,
        ArithOp::Rem => a.checked_rem(b)?,
    })
}

struct Exec<'a> {
    rels: &'a [Rel],
    key: Vec<Vec<i64>>,
}

impl Exec<'_> {
    fn eval(&mut self, e: &CExpr, slots: &mut [i64], depth: usize) -> Option<i64> {
        match e {
            CExpr::Const(c) => Some(*c),
            CExpr::Slot(s) => Some(slots[*s]),
            CExpr::Arith(op, a, b) => {
                let a = self.eval(a, slots, depth)?;
                let b = self.eval(b, slots, depth)?;
                arith(*op, a, b)
            }
            CExpr::Neg(a) => Some(self.eval(a, slots, depth)?.wrapping_neg()),
            CExpr::Count(ops) => {
                let mut n = 0i64;
                self.run(ops, 0, slots, depth + 1, &mut |_| n += 1);
                Some(n)
            }
            CExpr::Aggregate(agg, target, ops) => {
                let mut acc: Option<i64> = None;
                self.run(ops, 0, slots, depth + 1, &mut |slots| {
                    if let Some(v) = eval_pure(target, slots) {
                        acc = Some(match (agg, acc) {
                            (_, None) => v,
                            (Agg::Min, Some(a)) => a.min(v),
                            (Agg::Max, Some(a)) => a.max(v),
                            (Agg::Sum, Some(a)) => a.wrapping_add(v),
                        });
                    }
                });
                // As in Soufflé: the sum of nothing is 0; min and max of nothing have no
                // value, so the rule derives nothing.
                match agg {
                    Agg::Sum => Some(acc.unwrap_or(0)),
                    Agg::Min | Agg::Max => acc,
                }
            }
        }
    }

    fn matches(cols: &[Col], t: &[i64], slots: &mut [i64]) -> bool {
        for (c, &v) in cols.iter().zip(t) {
            match c {
                Col::Ignore => {}
                Col::Const(k) => {
                    if *k != v {
                        return false;
                    }
                }
                Col::Check(s) => {
                    if slots[*s] != v {
                        return false;
                    }
                }
                Col::Bind(s) => slots[*s] = v,
            }
        }
        true
    }

    /// Runs `ops[k..]` under the current bindings, calling `emit` for every match.
    fn run(
        &mut self,
        ops: &[Op],
        k: usize,
        slots: &mut [i64],
        depth: usize,
        emit: &mut dyn FnMut(&mut [i64]),
    ) {
        let Some(op) = ops.get(k) else {
            emit(slots);
            return;
        };
        let rels = self.rels;
        match op {
            Op::Scan { rel, src, cols } => {
                let r = &rels[*rel];
                for i in r.range(*src) {
                    if Self::matches(cols, r.tuple(i), slots) {
                        self.run(ops, k + 1, slots, depth, emit);
                    }
                }
            }
            Op::Lookup {
                rel,
                src,
                index,
                key,
                cols,
            } => {
                let r = &rels[*rel];
                if self.key.len() <= depth {
                    self.key.resize(depth + 1, Vec::new());
                }
                let mut buf = std::mem::take(&mut self.key[depth]);
                buf.clear();
                for e in key {
                    match self.eval(e, slots, depth) {
                        Some(v) => buf.push(v),
                        None => {
                            self.key[depth] = buf;
                            return;
                        }
                    }
                }
                let hits = r.indexes[*index].map.get(buf.as_slice());
                self.key[depth] = buf;
                let Some(hits) = hits else { return };
                let range = r.range(*src);
                let start = if range.start == 0 {
                    0
                } else {
                    hits.partition_point(|&i| (i as usize) < range.start)
                };
                for &i in &hits[start..] {
                    let i = i as usize;
                    if i >= range.end {
                        break;
                    }
                    if Self::matches(cols, r.tuple(i), slots) {
                        self.run(ops, k + 1, slots, depth + 1, emit);
                    }
                }
            }
            Op::Filter(op, a, b) => {
                let (Some(a), Some(b)) = (self.eval(a, slots, depth), self.eval(b, slots, depth))
                else {
                    return;
                };
                let ok = match op {
                    CmpOp::Eq => a == b,
                    CmpOp::Ne => a != b,
                    CmpOp::Lt => a < b,
                    CmpOp::Le => a <= b,
                    CmpOp::Gt => a > b,
                    CmpOp::Ge => a >= b,
                };
                if ok {
                    self.run(ops, k + 1, slots, depth, emit);
                }
            }
            Op::Assign(s, e) => {
                if let Some(v) = self.eval(e, slots, depth) {
                    slots[*s] = v;
                    self.run(ops, k + 1, slots, depth, emit);
                }
            }
            Op::Neg { rel, index, key } => {
                let r = &rels[*rel];
                let mut buf = Vec::with_capacity(key.len());
                for e in key.iter().flatten() {
                    match self.eval(e, slots, depth) {
                        Some(v) => buf.push(v),
                        None => return,
                    }
                }
                let present = match index {
                    None => r.set.contains(buf.as_slice()),
                    Some(ix) => r.indexes[*ix].map.contains_key(buf.as_slice()),
                };
                if !present {
                    self.run(ops, k + 1, slots, depth, emit);
                }
            }
        }
    }
}

impl Db {
    /// An empty database for a compiled program.
    pub fn new(program: &Compiled) -> Db {
        Db {
            rels: program
                .relations
                .iter()
                .map(|r| Rel::new(r.columns.len(), &r.indexes))
                .collect(),
        }
    }

    /// Adds input tuples (flat, `arity` values each) to a relation.
    pub fn add(&mut self, rel: RelId, flat: &[i64]) {
        let r = &mut self.rels[rel];
        if r.arity == 0 {
            return;
        }
        for t in flat.chunks(r.arity) {
            r.insert(t);
        }
    }

    fn run_plans(&mut self, plans: &[Plan], pending: &mut [Vec<i64>]) {
        for rel in &mut self.rels {
            rel.catch_up();
        }
        let mut exec = Exec {
            rels: &self.rels,
            key: Vec::new(),
        };
        let mut slots = Vec::new();
        let mut head = Vec::new();
        for plan in plans {
            slots.clear();
            slots.resize(plan.slots.max(1), 0);
            let target = &self.rels[plan.head];
            let out = &mut pending[plan.head];
            exec.run(&plan.ops, 0, &mut slots, 0, &mut |slots| {
                head.clear();
                for e in &plan.head_args {
                    match eval_pure(e, slots) {
                        Some(v) => head.push(v),
                        None => return,
                    }
                }
                if !target.set.contains(head.as_slice()) {
                    out.extend_from_slice(&head);
                    if target.arity == 0 {
                        out.push(0);
                    }
                }
            });
        }
    }

    /// Appends the buffered tuples; true if any was new.
    fn merge(&mut self, pending: &mut [Vec<i64>], rels: &[RelId]) -> bool {
        let mut any = false;
        for &r in rels {
            let rel = &mut self.rels[r];
            rel.delta_start = rel.len;
            let buf = std::mem::take(&mut pending[r]);
            let width = rel.arity.max(1);
            for t in buf.chunks(width) {
                any |= rel.insert(&t[..rel.arity]);
            }
        }
        any
    }

    /// Evaluates every stratum to its fixpoint.
    pub fn evaluate(&mut self, program: &Compiled) {
        let mut pending: Vec<Vec<i64>> = vec![Vec::new(); self.rels.len()];
        for stratum in &program.strata {
            self.run_plans(&stratum.base, &mut pending);
            // Everything known so far is the first round's news.
            self.merge(&mut pending, &stratum.rels);
            for &r in &stratum.rels {
                self.rels[r].delta_start = 0;
            }
            if stratum.recursive.is_empty() {
                continue;
            }
            loop {
                self.run_plans(&stratum.recursive, &mut pending);
                if !self.merge(&mut pending, &stratum.rels) {
                    break;
                }
            }
        }
    }
}

/// Evaluates a head argument or an aggregate's target (never an aggregate: the checker
/// rejects one there).
fn eval_pure(e: &CExpr, slots: &[i64]) -> Option<i64> {
    match e {
        CExpr::Const(c) => Some(*c),
        CExpr::Slot(s) => Some(slots[*s]),
        CExpr::Arith(op, a, b) => arith(*op, eval_pure(a, slots)?, eval_pure(b, slots)?),
        CExpr::Neg(a) => Some(eval_pure(a, slots)?.wrapping_neg()),
        CExpr::Count(_) | CExpr::Aggregate(..) => None,
    }
}
