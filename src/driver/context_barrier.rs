//! Barriers at a context's start (seed paper 003, §4.3–§4.4): the state of a
//! `pthread_barrier_t` when the context's threads stand at their start points.
//!
//! A barrier is the C library model's `struct __agx_barrier` (analysis/libc/pthread.c:
//! `count`, `waiting`, `round`, its mutex and condition) in the program's own object.
//! With start points the definitions that reach the creation sites no longer reach the
//! start (a thread may have passed barriers since), so without more a barrier's fields
//! would be inputs: a thread could pass alone, or the count be anything. Two invariants
//! of the paper fix them:
//!
//! - *expected arrivals* (`B^cnts`, a may-reach analysis of `barrierInit`): the counts of
//!   every `pthread_barrier_init(&b, _, c)` of the program. When all of them name `b` by
//!   its address with one constant `c`, `b.count = c` at the start. An init through a
//!   pointer may name any barrier: then no barrier's count is known.
//! - *arrivals* (`L ≤ arrived ≤ H`, the barrier's wait queue): a context's threads are
//!   the only threads, and none starts inside `pthread_barrier_wait` (a start line is
//!   in the program's functions, not the model's), so none has arrived: `b.waiting = 0`.
//!   Threads that start after the same barrier are then in the same phase: one `round`
//!   (an input, any phase) that the next arrivals of all of them complete together.
//!
//! The fields are [`KnownCell`]s of the context, written over the initial object like
//! the must-reach definitions (`Context::drop_constraints` drops them too).

use analysis::ir::{Callee, FuncId, ObjId, ObjectKind, Operand, Program, StmtKind};
use explorer::context::KnownCell;
use std::collections::BTreeMap;

/// Byte offsets of `count` and `waiting` in the model's `struct __agx_barrier` (two
/// `int`s first; fixtures/context/barrier_phase.c fails when they drift).
const COUNT_OFFSET: u64 = 0;
const WAITING_OFFSET: u64 = 4;
const FIELD_BYTES: u8 = 4;

/// The known fields of every barrier a context's threads may use, when they start at
/// start points (see the module doc). None when a thread runs a barrier function of the
/// model itself, or `pthread_barrier_init`'s address is taken (an indirect init).
pub fn barrier_cells(program: &Program, threads: &[FuncId]) -> Vec<KnownCell> {
    let Some(init) = program
        .function_named("pthread_barrier_init")
        .filter(|f| f.is_defined())
    else {
        return Vec::new();
    };
    let in_barrier = |&f: &FuncId| program.function(f).name.starts_with("pthread_barrier_");
    if threads.iter().any(in_barrier) {
        return Vec::new();
    }
    let mut counts: BTreeMap<(ObjId, u64), Vec<Option<u64>>> = BTreeMap::new();
    for func in &program.functions {
        for stmt in func.blocks.iter().flat_map(|b| &b.stmts) {
            if stmt.kind.operands().contains(&&Operand::Func(init.id)) {
                return Vec::new();
            }
            let StmtKind::Call { callee, args, .. } = &stmt.kind else {
                continue;
            };
            if *callee != Callee::Direct(init.id) {
                continue;
            }
            match args.first() {
                Some(&Operand::Addr { obj, offset })
                    if program.object(obj).kind == ObjectKind::Global =>
                {
                    let count = match args.get(2) {
                        Some(Operand::Int { bits, .. }) => Some(*bits),
                        _ => None,
                    };
                    counts.entry((obj, offset)).or_default().push(count);
                }
                // An init through a pointer (or of a slot) may name any barrier.
                _ => return Vec::new(),
            }
        }
    }
    let mut cells = Vec::new();
    for ((obj, offset), found) in counts {
        let Some(Some(count)) = found.first().copied() else {
            continue;
        };
        if found.iter().any(|&c| c != Some(count)) {
            continue;
        }
        cells.push(KnownCell {
            obj,
            offset: offset + COUNT_OFFSET,
            bytes: FIELD_BYTES,
            bits: count & 0xffff_ffff,
        });
        cells.push(KnownCell {
            obj,
            offset: offset + WAITING_OFFSET,
            bytes: FIELD_BYTES,
            bits: 0,
        });
    }
    cells
}
