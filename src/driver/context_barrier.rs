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

use analysis::ir::{
    BinOp, Callee, FuncId, Function, ObjId, ObjectKind, Operand, Program, RegId, Rvalue, StmtKind,
};
use explorer::context::{KnownCell, RegStart, StartPoint};
use std::collections::{BTreeMap, BTreeSet};

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

/// A value of the phase analysis: unknown yet (no path), a constant, or any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lat {
    Undef,
    Const(u64),
    Top,
}

impl Lat {
    fn meet(self, other: Lat) -> Lat {
        match (self, other) {
            (Lat::Undef, x) | (x, Lat::Undef) => x,
            (Lat::Const(a), Lat::Const(b)) if a == b => Lat::Const(a),
            _ => Lat::Top,
        }
    }

    fn map(self, f: impl Fn(u64) -> u64) -> Lat {
        match self {
            Lat::Const(c) => Lat::Const(f(c)),
            other => other,
        }
    }
}

/// The phase analysis's fact on one path: `K` the barrier waits passed (a constant
/// before the first loop), `K mod m`, `Q = r − s·⌊K / m⌋` (wrapping), and the
/// registers that hold `r + k`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Phase {
    waits: Lat,
    modulo: Lat,
    q: Lat,
    rel: BTreeMap<RegId, u64>,
}

/// Barrier matching (§4.4, in the simplest case): all the context's threads run one
/// function `F` from one start point, `F` is the only function of the program that
/// waits on barriers, on one barrier `b` whose count (known, [`barrier_cells`]) is the
/// number of threads, `main` creates at most that many threads of `F` (at sites not on
/// a cycle, `F` called from nowhere) and initializes `b` only in `main`. Then every
/// round of `b` needs every thread's arrival, so threads standing at the same point
/// outside the wait have passed the same number `K` of waits (a thread that passed one
/// more completed a round its peer arrived at, and the peer is still inside the wait).
/// A register `r` for which a forward analysis of `F` finds `Q = r − s·⌊K / m⌋` and
/// `K mod m` constant at the start, for some step `s` (a constant `F` adds) and `m` in
/// 1..=4 (the waits per iteration), is a function of `K` alone there: it has one value
/// in all threads, the loop counter of threads in lock-step. Wrapping arithmetic keeps
/// this exact. Threads 1.. take thread 0's value ([`RegStart::SameAs`]).
pub fn match_phases(
    program: &Program,
    facts: &analysis::facts::Facts,
    pt: &rules::points_to::PointsTo,
    threads: &[FuncId],
    starts: &mut [Option<StartPoint>],
    cells: &[KnownCell],
) {
    let Some(&f) = threads.first() else { return };
    let n = threads.len();
    let same_start = starts.len() == n
        && starts
            .iter()
            .all(|s| s.as_ref().map(|s| s.stmt) == starts[0].as_ref().map(|s| s.stmt))
        && starts[0].is_some()
        && threads.iter().all(|&g| g == f);
    if n < 2 || !same_start || !lock_step(program, facts, pt, f, n, cells) {
        return;
    }
    let func = program.function(f);
    let Some(wait) = program.function_named("pthread_barrier_wait") else {
        return;
    };
    let start = starts[0].as_ref().expect("checked above");
    let (block, index) = (start.block as usize, start.index as usize);
    let counters: Vec<RegId> = start
        .regs
        .iter()
        .filter(|(_, init)| matches!(init, RegStart::Input { .. }))
        .map(|&(r, _)| r)
        .filter(|&r| {
            let point = (block, index);
            steps(func)
                .into_iter()
                .any(|s| (1..=4).any(|m| counter_at(func, wait.id, r, s, m, point)))
        })
        .collect();
    for start in starts.iter_mut().skip(1).flatten() {
        for (r, init) in &mut start.regs {
            if counters.contains(r) {
                *init = RegStart::SameAs { thread: 0 };
            }
        }
    }
}

/// Whether the threads of `f` run in barrier lock-step (see [`match_phases`]).
fn lock_step(
    program: &Program,
    facts: &analysis::facts::Facts,
    pt: &rules::points_to::PointsTo,
    f: FuncId,
    n: usize,
    cells: &[KnownCell],
) -> bool {
    let (Some(wait), Some(init)) = (
        program.function_named("pthread_barrier_wait"),
        program.function_named("pthread_barrier_init"),
    ) else {
        return false;
    };
    let mut barrier = None;
    for func in &program.functions {
        for stmt in func.blocks.iter().flat_map(|b| &b.stmts) {
            let ops = stmt.kind.operands();
            if ops.contains(&&Operand::Func(wait.id)) || ops.contains(&&Operand::Func(init.id)) {
                return false;
            }
            let StmtKind::Call { callee, args, .. } = &stmt.kind else {
                continue;
            };
            if let Callee::Indirect(_) = callee {
                return false;
            }
            if *callee == Callee::Direct(init.id) && func.id != program.main {
                return false;
            }
            if *callee != Callee::Direct(wait.id) {
                continue;
            }
            let Some(&Operand::Addr { obj, offset }) = args.first() else {
                return false;
            };
            if func.id != f || barrier.is_some_and(|b| b != (obj, offset)) {
                return false;
            }
            barrier = Some((obj, offset));
        }
    }
    let Some((obj, offset)) = barrier else {
        return false;
    };
    let count = cells
        .iter()
        .find(|c| c.obj == obj && c.offset == offset + COUNT_OFFSET)
        .map(|c| c.bits);
    let in_cycle: std::collections::HashSet<_> = facts.in_cycle.iter().map(|&(s,)| s).collect();
    let func_of: std::collections::HashMap<_, _> = facts.stmt_func.iter().copied().collect();
    let sites: Vec<_> = pt.thread_edges.iter().filter(|&&(_, g)| g == f).collect();
    let created_once_by_main = sites
        .iter()
        .all(|&&(s, _)| func_of.get(&s) == Some(&program.main) && !in_cycle.contains(&s));
    let init_in_main_once = program.functions.iter().all(|func| {
        func.blocks.iter().flat_map(|b| &b.stmts).all(|stmt| {
            !matches!(&stmt.kind, StmtKind::Call { callee, .. } if *callee == Callee::Direct(init.id))
                || (func.id == program.main && !in_cycle.contains(&stmt.id))
        })
    });
    count == Some(n as u64)
        && sites.len() == n
        && created_once_by_main
        && init_in_main_once
        && !pt.call_edges.iter().any(|&(_, g)| g == f)
}

/// The step candidates of a counter: 0 and every constant added in `func`.
fn steps(func: &Function) -> BTreeSet<u64> {
    let mut out = BTreeSet::from([0]);
    for stmt in func.blocks.iter().flat_map(|b| &b.stmts) {
        if let StmtKind::Assign {
            value:
                Rvalue::Binary {
                    op: BinOp::Add,
                    lhs,
                    rhs,
                    ..
                },
            ..
        } = &stmt.kind
        {
            for op in [lhs, rhs] {
                if let Operand::Int { bits, .. } = op {
                    out.insert(*bits);
                }
            }
        }
    }
    out
}

fn constant(kind: &StmtKind) -> Option<u64> {
    match kind {
        StmtKind::Assign {
            value: Rvalue::Use(Operand::Int { bits, .. }),
            ..
        } => Some(*bits),
        _ => None,
    }
}

/// `dst = x + k` (or `dst = x`) for a register `x` and a constant `k`.
fn offset_copy(kind: &StmtKind) -> Option<(RegId, u64)> {
    let StmtKind::Assign { value, .. } = kind else {
        return None;
    };
    match value {
        Rvalue::Use(Operand::Reg(x)) => Some((*x, 0)),
        Rvalue::Binary {
            op: BinOp::Add,
            lhs,
            rhs,
            ..
        } => match (lhs, rhs) {
            (Operand::Reg(x), Operand::Int { bits, .. })
            | (Operand::Int { bits, .. }, Operand::Reg(x)) => Some((*x, *bits)),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `Q = r − step·⌊K / m⌋` and `K mod m` are constants at the point. Copies
/// of `r` plus constants (`t = r + k`, the lowering's `i++`) are followed, so `r = t`
/// adds `k` to `Q`; any other definition of `r` makes it unknown.
fn counter_at(
    func: &Function,
    wait: FuncId,
    r: RegId,
    step: u64,
    m: u64,
    point: (usize, usize),
) -> bool {
    let entry = Phase {
        waits: Lat::Const(0),
        modulo: Lat::Const(0),
        q: Lat::Undef,
        rel: BTreeMap::new(),
    };
    let meet = |a: &Phase, b: &Phase| Phase {
        waits: a.waits.meet(b.waits),
        modulo: a.modulo.meet(b.modulo),
        q: a.q.meet(b.q),
        rel: a
            .rel
            .iter()
            .filter(|(t, k)| b.rel.get(t) == Some(k))
            .map(|(&t, &k)| (t, k))
            .collect(),
    };
    let transfer = |p: &mut Phase, kind: &StmtKind| {
        if matches!(kind, StmtKind::Call { callee: Callee::Direct(g), .. } if *g == wait) {
            p.waits = p.waits.map(|k| k + 1);
            let wrapped = p.modulo == Lat::Const(m - 1);
            p.modulo = p.modulo.map(|k| (k + 1) % m);
            if wrapped {
                p.q = p.q.map(|q| q.wrapping_sub(step));
            } else if p.modulo == Lat::Top {
                p.q = Lat::Top;
            }
        }
        let Some(d) = kind.def() else { return };
        let relation = offset_copy(kind).and_then(|(x, k)| {
            let base = if x == r {
                Some(0)
            } else {
                p.rel.get(&x).copied()
            };
            base.map(|j: u64| j.wrapping_add(k))
        });
        if d != r {
            match relation {
                Some(j) => p.rel.insert(d, j),
                None => p.rel.remove(&d),
            };
            return;
        }
        p.q = match (constant(kind), relation, p.waits) {
            (Some(c), _, Lat::Const(k)) => Lat::Const(c.wrapping_sub(step.wrapping_mul(k / m))),
            (None, Some(j), _) => p.q.map(|q| q.wrapping_add(j)),
            _ => Lat::Top,
        };
        // The relations were to the old value of `r`.
        p.rel.clear();
    };
    let at = super::locksets::forward(func, point, entry, meet, transfer);
    matches!((at.q, at.modulo), (Lat::Const(_), Lat::Const(_)))
}

#[cfg(test)]
mod tests {
    use super::super::location::Location;
    use super::super::Driver;
    use explorer::context::RegStart;

    fn rounds() -> Driver {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/context/barrier_rounds.c");
        let program = analysis::load_program(&path, &Default::default());
        Driver::new(program.expect("the fixture lowers"))
    }

    fn same_as(d: &Driver, copies: u32) -> usize {
        let file = d.program().files[0].clone();
        let from = [Some(Location { file, line: 21 })];
        let ctx = d
            .context(&["worker".to_string()], copies, &from)
            .expect("a context");
        ctx.starts
            .iter()
            .flatten()
            .flat_map(|s| &s.regs)
            .filter(|(_, init)| matches!(init, RegStart::SameAs { thread: 0 }))
            .count()
    }

    #[test]
    fn the_loop_counter_of_workers_in_lock_step_is_shared() {
        let d = rounds();
        // Two workers of a 2-party barrier: the second takes the first's `i`.
        assert_eq!(same_as(&d, 2), 1);
        // Three workers of it are not in lock-step (and main creates two): no match.
        assert_eq!(same_as(&d, 3), 0);
    }
}
