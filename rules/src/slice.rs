//! Slices: the closure of the dependence graph from a set of statements, backward (what
//! may affect them) or forward (what they may affect), context-sensitive in the two-phase
//! manner of Horwitz, Reps and Binkley.
//!
//! ```c
//! 1  if (p)
//! 2    y = v;
//! 3  z = w * 5;
//! 4  if (q)
//! 5    x = z * 2;
//! 6  assert(x);     // backward slice: lines 3, 4, 5 (and 6)
//! ```
//!
//! Facts: `dep(s, d, class)`, `read_via(r, n)`, `write_at(w, n)` from
//! [`DependenceGraph`] and the `target` statements.
//!
//! Rules (backward; phase 1 may climb to callers, phase 2 only descends into callees;
//! memory edges lead to any context, so they restart phase 1):
//! ```text
//! b1(t) ← target(t)
//! b1(d) ← b1(s), dep(s, d, Local ∨ Up)
//! b2(d) ← (b1(s) ∨ b2(s)), dep(s, d, Down)
//! b2(d) ← b2(s), dep(s, d, Local)
//! b1(d) ← (b1(s) ∨ b2(s)), dep(s, d, Memory)
//! cell(n) ← (b1(r) ∨ b2(r)), read_via(r, n)
//! b1(w) ← cell(n), write_at(w, n)
//! backward = b1 ∪ b2
//! ```
//! Forward is the same on reversed edges with `Up` and `Down` swapped:
//! ```text
//! f1(t) ← target(t)
//! f1(s) ← f1(d), dep(s, d, Local ∨ Down)
//! f2(s) ← (f1(d) ∨ f2(d)), dep(s, d, Up)
//! f2(s) ← f2(d), dep(s, d, Local)
//! f1(s) ← (f1(d) ∨ f2(d)), dep(s, d, Memory)
//! cell(n) ← (f1(w) ∨ f2(w)), write_at(w, n)
//! f1(r) ← cell(n), read_via(r, n)
//! ```
//!
//! The same rules in Datalog, the readable specification beside the math above:
//! `rules/dl/slice.dl`, interpreted by [`crate::dl`] and equal to this program on every
//! fixture and corpus program (`rules/tests/dl_differential.rs`).

use crate::dependence::{DepClass, DependenceGraph};
use analysis::facts::{Obj, StmtId};
use ascent::ascent;
use std::collections::BTreeSet;

const LOCAL: u8 = DepClass::Local as u8;
const UP: u8 = DepClass::Up as u8;
const DOWN: u8 = DepClass::Down as u8;
const MEMORY: u8 = DepClass::Memory as u8;

ascent! {
    struct SliceProgram;
    relation dep(StmtId, StmtId, u8);
    relation read_via(StmtId, Obj, i64);
    relation write_at(StmtId, Obj, i64);
    relation target(StmtId);
    relation bcell(Obj, i64);
    relation fcell(Obj, i64);
    relation b1(StmtId);
    relation b2(StmtId);
    relation f1(StmtId);
    relation f2(StmtId);
    relation backward_on(bool);
    relation forward_on(bool);

    b1(t) <-- backward_on(on), if *on, target(t);
    b1(d) <-- b1(s), dep(s, d, c), if *c == LOCAL || *c == UP;
    b2(d) <-- b1(s), dep(s, d, c), if *c == DOWN;
    b2(d) <-- b2(s), dep(s, d, c), if *c == DOWN || *c == LOCAL;
    b1(d) <-- b1(s), dep(s, d, c), if *c == MEMORY;
    b1(d) <-- b2(s), dep(s, d, c), if *c == MEMORY;
    bcell(o, k) <-- b1(r), read_via(r, o, k);
    bcell(o, k) <-- b2(r), read_via(r, o, k);
    b1(w) <-- bcell(o, k), write_at(w, o, k);

    f1(t) <-- forward_on(on), if *on, target(t);
    f1(s) <-- f1(d), dep(s, d, c), if *c == LOCAL || *c == DOWN;
    f2(s) <-- f1(d), dep(s, d, c), if *c == UP;
    f2(s) <-- f2(d), dep(s, d, c), if *c == UP || *c == LOCAL;
    f1(s) <-- f1(d), dep(s, d, c), if *c == MEMORY;
    f1(s) <-- f2(d), dep(s, d, c), if *c == MEMORY;
    fcell(o, k) <-- f1(w), write_at(w, o, k);
    fcell(o, k) <-- f2(w), write_at(w, o, k);
    f1(r) <-- fcell(o, k), read_via(r, o, k);
}

/// Which way a slice goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Everything that may affect the targets.
    Backward,
    /// Everything the targets may affect.
    Forward,
}

/// The slice of `targets` (the targets included), computed with ascent.
pub fn run(deps: &DependenceGraph, targets: &[StmtId], dir: Direction) -> BTreeSet<StmtId> {
    let mut p = SliceProgram::default();
    p.dep = deps.classified();
    p.read_via = deps
        .read_via
        .iter()
        .map(|&(r, n)| (r, n.obj, n.offset))
        .collect();
    p.write_at = deps
        .write_at
        .iter()
        .map(|&(w, n)| (w, n.obj, n.offset))
        .collect();
    p.target = targets.iter().map(|&t| (t,)).collect();
    match dir {
        Direction::Backward => p.backward_on = vec![(true,)],
        Direction::Forward => p.forward_on = vec![(true,)],
    }
    p.run();
    let (a, b) = match dir {
        Direction::Backward => (p.b1, p.b2),
        Direction::Forward => (p.f1, p.f2),
    };
    a.into_iter().chain(b).map(|t| t.0).collect()
}

/// What may affect `targets`.
pub fn backward(deps: &DependenceGraph, targets: &[StmtId]) -> BTreeSet<StmtId> {
    run(deps, targets, Direction::Backward)
}

/// What `targets` may affect.
pub fn forward(deps: &DependenceGraph, targets: &[StmtId]) -> BTreeSet<StmtId> {
    run(deps, targets, Direction::Forward)
}
