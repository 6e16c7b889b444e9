//! The crepe twin of [`crate::slice`]: the same two-phase dependence closure on the
//! crepe engine, for `agx rules --compare` and the differential tests.

use crate::dependence::{DepClass, DependenceGraph};
use crate::slice::Direction;
use analysis::facts::{Obj, StmtId};
use crepe::crepe;
use std::collections::BTreeSet;

const LOCAL: u8 = DepClass::Local as u8;
const UP: u8 = DepClass::Up as u8;
const DOWN: u8 = DepClass::Down as u8;
const MEMORY: u8 = DepClass::Memory as u8;

crepe! {
    @input struct Dep(StmtId, StmtId, u8);
    @input struct Target(StmtId);
    @input struct ReadVia(StmtId, Obj, i64);
    @input struct WriteAt(StmtId, Obj, i64);
    struct BCell(Obj, i64);
    struct FCell(Obj, i64);
    @input struct BackwardOn();
    @input struct ForwardOn();
    struct B1(StmtId);
    struct B2(StmtId);
    struct F1(StmtId);
    struct F2(StmtId);
    @output struct InSlice(StmtId);

    B1(t) <- BackwardOn(), Target(t);
    B1(d) <- B1(s), Dep(s, d, c), (c == LOCAL || c == UP);
    B2(d) <- B1(s), Dep(s, d, c), (c == DOWN);
    B2(d) <- B2(s), Dep(s, d, c), (c == DOWN || c == LOCAL);
    B1(d) <- B1(s), Dep(s, d, c), (c == MEMORY);
    B1(d) <- B2(s), Dep(s, d, c), (c == MEMORY);
    BCell(o, k) <- B1(r), ReadVia(r, o, k);
    BCell(o, k) <- B2(r), ReadVia(r, o, k);
    B1(w) <- BCell(o, k), WriteAt(w, o, k);

    F1(t) <- ForwardOn(), Target(t);
    F1(s) <- F1(d), Dep(s, d, c), (c == LOCAL || c == DOWN);
    F2(s) <- F1(d), Dep(s, d, c), (c == UP);
    F2(s) <- F2(d), Dep(s, d, c), (c == UP || c == LOCAL);
    F1(s) <- F1(d), Dep(s, d, c), (c == MEMORY);
    F1(s) <- F2(d), Dep(s, d, c), (c == MEMORY);
    FCell(o, k) <- F1(w), WriteAt(w, o, k);
    FCell(o, k) <- F2(w), WriteAt(w, o, k);
    F1(r) <- FCell(o, k), ReadVia(r, o, k);

    InSlice(s) <- B1(s);
    InSlice(s) <- B2(s);
    InSlice(s) <- F1(s);
    InSlice(s) <- F2(s);
}

/// The slice of `targets`, computed with crepe.
pub fn run(deps: &DependenceGraph, targets: &[StmtId], dir: Direction) -> BTreeSet<StmtId> {
    let mut rt = Crepe::new();
    rt.extend(deps.classified().into_iter().map(|(s, d, c)| Dep(s, d, c)));
    rt.extend(targets.iter().map(|&t| Target(t)));
    rt.extend(
        deps.read_via
            .iter()
            .map(|&(r, n)| ReadVia(r, n.obj, n.offset)),
    );
    rt.extend(
        deps.write_at
            .iter()
            .map(|&(w, n)| WriteAt(w, n.obj, n.offset)),
    );
    match dir {
        Direction::Backward => rt.extend([BackwardOn()]),
        Direction::Forward => rt.extend([ForwardOn()]),
    }
    let (slice,) = rt.run();
    slice.into_iter().map(|InSlice(s)| s).collect()
}
