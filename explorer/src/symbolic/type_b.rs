//! §6.1, Type B pivots: pivots outside the static slice of the targets that are still on
//! a path to a target. One outgoing edge is explored, the others are skipped.
//!
//! # What the slice must contain
//! The slice is the backward closure (control and data dependence, interference through
//! shared memory included) of the targets *and* of every statement that can stop, block
//! or end an execution, or keep it from getting anywhere ([`criteria`]):
//! - `assume`, `abort`, `exit`, `pthread_exit` and thread ends, the returns of `main`,
//!   every `Error` terminator (a violation ends the run) and `Unreachable`;
//! - every synchronization (lock, trylock, unlock, wait, signal, join, create, init,
//!   destroy): taking or not taking one changes which threads can block; atomic-section
//!   markers too: a branch that only opens or closes an atomic section decides which
//!   interleavings of the section's accesses are possible;
//! - every branch inside a loop (a block on a cycle of its function's graph). Slicing
//!   by post-dominance is termination-insensitive: a statement after a loop does not
//!   depend on the loop's exit test. A spin loop `while (flag == 0);` is a blocking
//!   synchronization in disguise: the order of its reads and the writes of `flag`
//!   decides which orders of the later statements are possible, so the reads must be
//!   in the slice (and with them, by interference, the writes).
//!
//! - every statement that [`may_fail`]: one that can end a run with undefined
//!   behaviour (a dereference of a pointer that may be invalid, a division by a
//!   non-constant divisor, an indirect call, a free, a lock or join misuse) or with a
//!   construct the engines do not support. With memory checks off such an end makes the
//!   unreduced search answer UNKNOWN; a reduction that skipped it (one side of a branch,
//!   one order of a race, or the Type A cut, which treats these statements' blocks as
//!   targets) would answer SAFE instead (issue 10, case 6). Statements that provably
//!   cannot fail — copies, integer arithmetic, accesses at a constant address inside a
//!   static object — are not criteria, so plain computation is still pruned.
//!
//! With deadlock or memory checks on (`Config::checks`) there is no slice pruning at all.
//!
//! [`TypeB::new`] refuses a slice that misses one of them (the search then does no
//! Type B reduction), so a caller's plain slice of the targets is never misused.
//!
//! # Branch pivots (b-PP)
//! A symbolic branch whose test is outside the slice: both sides lead to the same
//! values at every slice statement, since nothing in the slice depends on the branch or
//! on what its sides compute. The sides contain no loop, no blocking and no end of the
//! run: the test of a loop inside a side is a criterion and control dependent on the
//! branch, which would put the branch in the slice (likewise for a synchronization or a
//! stop). The skipped side would have run a finite stretch of plain computation and
//! non-blocking accesses outside the slice, then joined the explored side's
//! continuation. The explored side is the first feasible one (a branch with a side
//! that ends the run at once, at a bound say, is not reduced).
//!
//! The explored side runs for *every* input, whatever its guard says (issue 10, case
//! 1): the guard is left out of the path condition, else the test's variables (which
//! a slice statement may still read, as `assert(k != 1)` after `if (k == 0)
//! printf(..)`) would stay constrained for the rest of the run. Running the explored
//! side where the other would have run is a virtual execution; by the argument above
//! every slice statement sees the same values as in the real one, so a run of the
//! reduced search violates a target exactly when a real run does. The weakest
//! precondition of the pivot is the explored side's, without the guard: for every
//! pre-state it is a sufficient condition for the virtual execution's safety, hence for
//! the real one's; summaries stay under-approximations.
//!
//! Witnesses: the model of a violation is first sought under the path condition *and*
//! the explored sides' guards (the interpreter then follows the path exactly). If the
//! violation needs inputs under which a skipped side runs, the witness uses them; the
//! skipped side contains only plain local computation and accesses outside the slice,
//! but it may have a different number of visible events than the explored side, so the
//! schedule may not fit. A witness that then does not replay makes the search start
//! over without Type B branch pivots (`Engine::type_b_branches`), which finds the
//! violation with a witness of its own.
//!
//! # Interleaving pivots (i-PP) in DPOR
//! A race between two steps that are both *outside*: each is a plain load or store by
//! a statement outside the slice, and touches only memory (no synchronization, no
//! thread start or end, no [`Loc::All`]). Reversing it changes only values that no
//! slice statement reads (a write that may reach a slice read is in the slice by
//! interference dependence; a read outside the slice feeds only code outside it, and a
//! read that decides how long a loop runs is in it by the loop criterion), and neither
//! step can block or enable anything (their addresses are constant: an access through
//! a pointer [`may_fail`] and is a criterion). So no backtrack point is added for it
//! (DPOR's race detection then looks further back, as if the two steps were
//! independent).
//!
//! The treatment must be consistent (issue 10, case 2): DPOR then runs with the
//! dependence relation D' = D minus the pairs of steps both outside the slice, and
//! happens-before (the vector clocks, [`super::dpor::Dpor::clock_of_sliced`]) is built
//! from D' too. Had the clocks kept such a pair's order, a later step ordered after
//! one of the two only through it (main joining the thread of `y = 2`, which came
//! after `y = 1`, which came after `x = 1`) would look ordered after the first, and the
//! race of main's read of `x` with `x = 1` would never be found. DPOR with sleep sets
//! is sound for any dependence relation under which independent adjacent steps commute
//! as far as the property can tell; two outside steps do: swapping them changes only
//! values no slice statement reads, enables and disables nothing, and leaves every
//! later footprint unchanged. So one run per D'-trace reaches every slice outcome.
//! Sleep sets keep the full dependence D: a sleeping thread wakes on any dependent
//! step, which only explores more. Every other race, and every race of a
//! synchronization, is treated as before; the RVar/WVar repair of pruned nodes (§5.2)
//! and the Type A cut check recorded accesses against all races, which can only keep
//! more.
//!
//! # Tests
//! `fixtures/verify/type_b_lock_side.c` fails to `safe` without the synchronization
//! criteria, `type_b_spin_order.c` without the loop criterion; the random programs of
//! `tests/differential.rs` include a lock taken on an input (its Theorem 1 check fails
//! within a few seeds without the synchronization criteria).

use super::dpor::{Access, Loc};
use super::engine::{Engine, Side, SideNext};
use super::state::{State, Tid};
use super::term::TermId;
use analysis::ir::{
    BinOp, Callee, FormatPiece, ObjectKind, Operand, Program, RegId, Rvalue, Scalar, StmtId,
    StmtKind, SyncOp, TermKind,
};
use rustc_hash::FxHashSet;
use std::collections::BTreeSet;

/// The statements every Type B slice must contain besides the targets (see the module
/// documentation).
pub fn criteria(prog: &Program) -> Vec<StmtId> {
    let read = super::engine::read_regs(prog);
    let mut out = Vec::new();
    for f in &prog.functions {
        let on_cycle = f.blocks_on_cycles();
        for (b, block) in f.blocks.iter().enumerate() {
            for s in &block.stmts {
                let stops = matches!(s.kind, StmtKind::Assume { .. } | StmtKind::Sync { .. })
                    || may_fail(prog, &read[f.id.index()], &s.kind);
                if stops {
                    out.push(s.id);
                }
            }
            let stops = match &block.term.kind {
                TermKind::Branch { .. } => on_cycle[b],
                TermKind::Return(_) => f.id == prog.main,
                TermKind::Goto(_) => false,
                TermKind::ThreadExit(_)
                | TermKind::Error(_)
                | TermKind::Abort
                | TermKind::Exit(_)
                | TermKind::Unreachable => true,
            };
            if stops {
                out.push(block.term.id);
            }
        }
    }
    out
}

/// Can the statement end a run with undefined behaviour (a memory error, a division by
/// zero, a bad call or free) or with a construct the engines do not support, when memory
/// checks are off? Then it is a criterion of every reduction (the Type B slice, the
/// Type A cut): a reduction that skipped it would answer SAFE where the unreduced search
/// answers UNKNOWN (see the module documentation). `read` holds the registers its
/// function reads (a `printf` result that is read is unsupported).
///
/// Statements that cannot fail: copies, integer arithmetic other than a division by a
/// non-constant or zero divisor, integer casts, comparisons of integers, inputs, calls of
/// external functions without a body, a `printf` of literals and numbers whose result is
/// unused, an allocation of a constant size, and loads and stores at a constant address
/// inside a static object (a store not into a string literal). A value of a pointer read
/// as an integer through a union or a cast pointer is the one way such a statement can
/// still fail (arithmetic on a pointer value is unsupported); C programs that do that
/// are outside what this reduction promises to keep. Every float computation counts as
/// one that may fail: a float-to-integer conversion out of range is undefined behaviour,
/// and the others are kept conservatively (Z3's floating-point theory may give up on
/// them, which must stay an UNKNOWN).
pub fn may_fail(prog: &Program, read: &FxHashSet<RegId>, kind: &StmtKind) -> bool {
    let in_static = |addr: &Operand, ty: &Scalar, store: bool| match addr {
        Operand::Addr { obj, offset } => {
            let o = prog.object(*obj);
            let end = offset.checked_add(ty.bytes(prog.data_model));
            !(end.is_some_and(|e| e <= o.size)
                && !(store && matches!(o.kind, ObjectKind::StringLiteral)))
        }
        _ => true,
    };
    match kind {
        StmtKind::Load { addr, ty, .. } => in_static(addr, ty, false),
        StmtKind::Store { addr, ty, .. } => in_static(addr, ty, true),
        StmtKind::Assign { value, .. } if crate::predict::ctp::touches_float(value) => true,
        StmtKind::Assign { value, .. } => match value {
            Rvalue::Use(_) | Rvalue::Uninit(_) | Rvalue::ThreadId | Rvalue::Unary { .. } => false,
            // An address that is not a live object is a fault.
            Rvalue::MutexHeld(_) => true,
            Rvalue::Binary { op, ty, rhs, .. } => match (op, ty) {
                (_, Scalar::Ptr) => true,
                (BinOp::Div | BinOp::Rem, _) => {
                    !matches!(rhs, Operand::Int { bits, .. } if *bits != 0)
                }
                _ => false,
            },
            Rvalue::Cast { from, to, .. } => {
                matches!((from, to), (Scalar::Ptr, Scalar::Int { .. }))
            }
            Rvalue::PtrAdd { base, .. } => !matches!(base, Operand::Addr { .. }),
            Rvalue::PtrDiff { .. } => true,
        },
        StmtKind::Call { callee, .. } => matches!(callee, Callee::Indirect(_)),
        StmtKind::Alloc { size, .. } => !matches!(size, Operand::Int { .. }),
        StmtKind::Free { .. } => true,
        StmtKind::Print { dst, format, args } => {
            if dst.is_some_and(|d| read.contains(&d)) {
                return true;
            }
            let mut next = 0;
            for piece in format {
                if let FormatPiece::Conv { conv, .. } = piece {
                    let arg = args.get(next);
                    next += 1;
                    let literal = matches!(arg, Some(Operand::Addr { obj, .. })
                        if matches!(prog.object(*obj).kind, ObjectKind::StringLiteral));
                    if *conv == 's' && !literal {
                        return true;
                    }
                }
            }
            false
        }
        StmtKind::Nondet { .. } | StmtKind::Havoc { .. } | StmtKind::Assume { .. } => false,
        StmtKind::Sync { op, .. } => sync_may_fail(op),
    }
}

/// Can a synchronization end a run with undefined behaviour (a lock or join misuse, a
/// bad address)? Atomic-section markers cannot; a signal, broadcast or condition
/// init/destroy cannot when it names a static object.
fn sync_may_fail(op: &SyncOp) -> bool {
    match op {
        SyncOp::AtomicBegin | SyncOp::AtomicEnd => false,
        SyncOp::CondSignal { cond }
        | SyncOp::CondBroadcast { cond }
        | SyncOp::CondInit { cond }
        | SyncOp::CondDestroy { cond } => !matches!(cond, Operand::Addr { .. }),
        _ => true,
    }
}

/// Does block `b` of function `f` hold a statement that [`may_fail`] (or end in
/// `Unreachable`)? The Type A cut treats such blocks as targets.
pub fn block_may_fail(prog: &Program, read: &[FxHashSet<RegId>], f: usize, b: usize) -> bool {
    let block = &prog.functions[f].blocks[b];
    matches!(block.term.kind, TermKind::Unreachable)
        || block
            .stmts
            .iter()
            .any(|s| may_fail(prog, &read[f], &s.kind))
}

/// The slice the search may use for Type B pivots.
pub struct TypeB {
    relevant: FxHashSet<StmtId>,
}

impl TypeB {
    /// `None` if `relevant` lacks one of the program's [`criteria`] (a plain slice of the
    /// targets): Type B pivots would not be sound with it.
    pub fn new(prog: &Program, relevant: &BTreeSet<StmtId>) -> Option<TypeB> {
        if criteria(prog).iter().any(|s| !relevant.contains(s)) {
            return None;
        }
        Some(TypeB {
            relevant: relevant.iter().copied().collect(),
        })
    }

    /// Is the statement (a branch terminator, say) outside the slice?
    pub fn outside(&self, stmt: StmtId) -> bool {
        !self.relevant.contains(&stmt)
    }

    /// Is a step whose visible event is `kind` (statement `stmt`) with footprint `foot`
    /// outside the slice in the sense of DPOR races: a plain access by a statement
    /// outside the slice, touching only memory?
    pub fn outside_step(&self, stmt: StmtId, kind: &StmtKind, foot: &[Access]) -> bool {
        matches!(kind, StmtKind::Load { .. } | StmtKind::Store { .. })
            && self.outside(stmt)
            && !foot.is_empty()
            && foot
                .iter()
                .all(|a| matches!(a.loc, Loc::Mem(..) | Loc::Obj(_)))
    }
}

impl<'p> Engine<'p> {
    /// The sides of a fork of thread `cur` in state `st` to explore: all of them, or for a
    /// symbolic branch outside the slice (a Type B branch pivot) only the first feasible
    /// one that goes on, with its guard (returned second) left out of the path
    /// condition and of the weakest precondition (see the module documentation).
    pub fn type_b_sides(
        &mut self,
        st: &State,
        cur: Tid,
        sides: Vec<Side>,
    ) -> (Vec<Side>, Option<TermId>) {
        if sides.len() < 2 || !self.setup.type_b_branches || !self.is_type_b_branch(st, cur) {
            return (sides, None);
        }
        // Prefer a side that goes on over one that ends the run at once (at a bound).
        let mut order: Vec<usize> = (0..sides.len()).collect();
        order.sort_by_key(|&i| matches!(sides[i].next, SideNext::End(..)));
        let mut pick = None;
        for &i in &order {
            match self.feasible(sides[i].guard) {
                Some(true) => {
                    pick = Some(i);
                    break;
                }
                Some(false) => {}
                // The solver gave up: no reduction here.
                None => return (sides, None),
            }
        }
        let Some(pick) = pick else {
            return (sides, None);
        };
        // A side that ends the run at once (a bound, or something the search cannot
        // follow) is not plain computation: keep every side then.
        if sides.iter().any(|s| matches!(s.next, SideNext::End(..))) {
            return (sides, None);
        }
        let skipped = (0..sides.len())
            .filter(|&i| i != pick)
            .any(|i| self.feasible(sides[i].guard) != Some(false));
        let mut side = sides.into_iter().nth(pick).expect("picked among the sides");
        if !skipped {
            return (vec![side], None);
        }
        self.search.stats.type_b_branches += 1;
        self.search.stats.slice_skips += 1;
        self.trace_event(|| "type B: one side of a branch outside the slice".to_string());
        let guard = side.guard;
        side.guard = self.pool.tru();
        side.guard_wp = self.pool.tru();
        side.pin = None;
        (vec![side], Some(guard))
    }

    /// Is thread `cur` of `st` at a symbolic branch outside the slice?
    fn is_type_b_branch(&self, st: &State, cur: Tid) -> bool {
        let Some(tb) = self.setup.type_b.as_ref() else {
            return false;
        };
        let Some(f) = st.threads[cur].frames.last() else {
            return false;
        };
        let block = &self.setup.prog.function(f.func).blocks[f.block as usize];
        f.index as usize >= block.stmts.len()
            && matches!(block.term.kind, TermKind::Branch { .. })
            && tb.outside(block.term.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::lower;

    #[test]
    fn criteria_cover_stops_syncs_and_loop_branches() {
        let prog = lower(
            "criteria.c",
            "#include <pthread.h>\n\
             extern int __VERIFIER_nondet_int(void);\n\
             extern void __VERIFIER_assume(int);\n\
             pthread_mutex_t m; int g;\n\
             void *t(void *a) { pthread_mutex_lock(&m); g = 1; pthread_mutex_unlock(&m); return 0; }\n\
             int main() { pthread_t h; int n = __VERIFIER_nondet_int();\n\
               __VERIFIER_assume(n < 3);\n\
               if (n == 1) g = 2;\n\
               for (int i = 0; i < n; i++) g++;\n\
               pthread_create(&h, 0, t, 0); pthread_join(h, 0); return 0; }\n",
        );
        let crit: BTreeSet<StmtId> = criteria(&prog).into_iter().collect();
        let mut kinds = Vec::new();
        for f in &prog.functions {
            for b in &f.blocks {
                for s in &b.stmts {
                    if crit.contains(&s.id) {
                        kinds.push(format!("{:?}", std::mem::discriminant(&s.kind)));
                    }
                }
            }
        }
        let syncs = prog
            .functions
            .iter()
            .flat_map(|f| f.blocks.iter().flat_map(|b| &b.stmts))
            .filter(|s| matches!(s.kind, StmtKind::Sync { .. } | StmtKind::Assume { .. }))
            .count();
        // Every sync and assume is a criterion, and so is nothing else here: the
        // accesses are at constant addresses of globals, the arithmetic is on integers.
        assert_eq!(kinds.len(), syncs, "every sync and assume is a criterion");
        let crit = &crit;
        let branches: Vec<(bool, bool)> = prog
            .functions
            .iter()
            .flat_map(|f| {
                let cyc = f.blocks_on_cycles();
                f.blocks
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| matches!(b.term.kind, TermKind::Branch { .. }))
                    .map(move |(i, b)| (cyc[i], crit.contains(&b.term.id)))
                    .collect::<Vec<_>>()
            })
            .collect();
        // `if (n == 1)` is not on a cycle; the loop test is.
        assert!(branches.contains(&(false, false)));
        assert!(branches.contains(&(true, true)));
        assert!(branches.iter().all(|(c, k)| c == k));
    }

    #[test]
    fn statements_that_may_fail_are_criteria() {
        let prog = lower(
            "may_fail.c",
            "int g; int a[4];\n\
             int main(int argc, char **argv) { int *p = 0; int i = argc; int q = g / i;\n\
               int r = g / 2; a[1] = 1; if (argc > 5) *p = 1; a[i] = 2; return q + r; }\n",
        );
        let read = crate::symbolic::engine::read_regs(&prog);
        let main = prog.function(prog.main);
        let failing: Vec<String> = main
            .blocks
            .iter()
            .flat_map(|b| &b.stmts)
            .filter(|s| may_fail(&prog, &read[main.id.index()], &s.kind))
            .map(|s| analysis::ir::stmt_text(&prog, main, &s.kind))
            .collect();
        let text = failing.join(" ; ");
        // The division by `i`, the store through `p`, the store at `a[i]` (and the
        // address arithmetic feeding it) may fail; `g / 2` and `a[1] = 1` cannot.
        assert!(failing.iter().any(|s| s.contains("/")), "{text}");
        assert!(!failing.iter().any(|s| s.contains("/ 2")), "{text}");
        assert!(
            failing.iter().filter(|s| s.starts_with("store")).count() == 2,
            "{text}"
        );
        let crit: BTreeSet<StmtId> = criteria(&prog).into_iter().collect();
        let n = main
            .blocks
            .iter()
            .flat_map(|b| &b.stmts)
            .filter(|s| crit.contains(&s.id))
            .count();
        assert_eq!(n, failing.len(), "{text}");
    }

    #[test]
    fn a_plain_slice_of_the_targets_is_refused() {
        let prog = lower(
            "refused.c",
            "extern void __VERIFIER_assume(int);\n\
             extern int __VERIFIER_nondet_int(void);\n\
             int main() { int x = __VERIFIER_nondet_int(); __VERIFIER_assume(x > 0);\n\
               if (x < 0) { return 1; } return 0; }\n",
        );
        assert!(TypeB::new(&prog, &BTreeSet::new()).is_none());
        let all: BTreeSet<StmtId> = criteria(&prog).into_iter().collect();
        assert!(TypeB::new(&prog, &all).is_some());
    }
}
