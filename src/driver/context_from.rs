//! Start points of `--from FILE:LINE` (seed paper 003, §2.3 and §4.3): a context thread
//! that starts in the middle of its function. Three intra-procedural analyses of the
//! function, from its entry to the point, decide its initial state:
//!
//! - *liveness*: the registers read at or after the point before any write; only they
//!   get a value of the initial state (the others are dead: zero, never read);
//! - *R_local* (must-reach constants): `known(r, c)` at a point when every path from
//!   the entry assigns `r` the constant `c` last, i.e. the meet over predecessors of
//!   `out(b) = gen(b) ∪ (in(b) − kill(b))` with `in(entry) = ∅` and
//!   `meet = {(r, c) | (r, c) ∈ out(p) for every predecessor p}`, where a block
//!   generates `(r, c)` for `r = c` and kills every pair of a register it writes;
//! - *must-held locks*: the mutex operands locked on every path and neither unlocked
//!   nor redefined since, by the same meet (intersection). An unlock through another
//!   operand drops every lock, a call every lock but those the callee must acquire:
//!   this under-approximates the held set, so the initial state keeps at least every
//!   state a real run can reach there (holding fewer locks constrains less);
//! - *may-held locks* (§4.4): the operands locked on some path, here or in a callee, and
//!   not unlocked through the same operand since (union at joins); the start forks over
//!   holding each one that is not must-held. Both lockset analyses and the callees'
//!   summaries (L+ may-acquire, L- must-release) are in `locksets`.
//!
//! A line with a `pthread_cond_wait(c, m)` (alone, or in a one-line wait loop) also
//! offers the thread as an *initial waiter* (§4.2, `WaitStart`): parked after the wait,
//! queued on `c`, `m` released, holding the locks must-held at the wait but `m`. Its
//! frame has the registers live at the line or after the wait, and the constants that
//! must reach both points.

use super::location::{Lines, Location};
use super::locksets::{forward, held_lock, Locksets};
use super::Driver;
use analysis::ir::{Function, Operand, RegId, Rvalue, Scalar, StmtId, StmtKind, SyncOp, TermKind};
use anyhow::{bail, Result};
use explorer::context::{HeldLock, RegStart, StartPoint, Target, WaitStart};
use std::collections::{BTreeMap, BTreeSet};

impl Driver {
    /// The start point of a thread of `func_name` at `loc`: the first statement of that
    /// line in the function.
    pub fn start_point(
        &self,
        func_name: &str,
        loc: &Location,
        targets: impl Fn(&Function, RegId) -> Vec<Target>,
    ) -> Result<StartPoint> {
        let program = self.program();
        let func = program
            .functions
            .iter()
            .find(|f| f.name == func_name && f.is_defined())
            .ok_or_else(|| anyhow::anyhow!("--from {loc}: no function `{func_name}`"))?;
        let on_line = Lines::of_program(program)
            .statements(loc)
            .map_err(|e| anyhow::anyhow!("--from {e}"))?;
        let Some((stmt, block, index)) = on_line.iter().find_map(|&s| position(func, s)) else {
            bail!(
                "--from {loc}: no statement of `{func_name}` there (the line's statements \
                 belong to other functions)"
            );
        };
        let locksets = Locksets::new(program);
        let mut live = live_at(func, block, index);
        let held = locksets.must_held(func, block, index);
        let mut known = must_constants(func, block, index);
        let waiter = on_line
            .iter()
            .filter_map(|&s| position(func, s))
            .find_map(|(s, b, i)| wait_start(&locksets, func, s, b, i));
        if let Some(w) = &waiter {
            // One frame serves both: the registers live at the line or after the wait
            // (and the wait's operands), constants only where both points agree.
            let (b, i) = (w.block as usize, w.index as usize);
            let after = live_at(func, b, i + 1);
            let operands = [w.cond, w.mutex].into_iter().filter_map(|l| match l {
                HeldLock::Reg(r) => Some(r),
                HeldLock::Addr { .. } => None,
            });
            live.extend(
                after
                    .into_iter()
                    .chain(operands)
                    .filter(|&r| Some(r) != w.dst),
            );
            let at_wait = must_constants(func, b, i);
            known.retain(|r, c| at_wait.get(r) == Some(c));
        }
        let regs = live
            .into_iter()
            .map(|r| {
                let start = match (known.get(&r), func.reg(r).ty) {
                    (Some(&c), _) => RegStart::Known(c),
                    (None, Scalar::Ptr) => RegStart::Pointer(targets(func, r)),
                    (None, Scalar::Int { bits, signed }) => RegStart::Input { bits, signed },
                    // A float register holds its IEEE bits: any bit pattern is a start value.
                    (None, Scalar::Float { bits }) => RegStart::Input {
                        bits,
                        signed: false,
                    },
                };
                (r, start)
            })
            .collect();
        Ok(StartPoint {
            stmt,
            block: block as u32,
            index: index as u32,
            location: loc.to_string(),
            regs,
            held: held.iter().copied().collect(),
            maybe_held: locksets
                .may_held(func, block, index)
                .difference(&held)
                .copied()
                .collect(),
            waiter,
            non_null: Vec::new(),
        })
    }
}

/// The initial waiter of the `pthread_cond_wait` at `(block, index)` (§4.2), if `s` is
/// one on operands the start can name: the mutexes held on every path to it, but the
/// wait's own.
fn wait_start(
    locksets: &Locksets,
    func: &Function,
    s: StmtId,
    block: usize,
    index: usize,
) -> Option<WaitStart> {
    let StmtKind::Sync {
        dst,
        op: SyncOp::CondWait { cond, mutex, .. },
    } = &func.blocks[block].stmts.get(index)?.kind
    else {
        return None;
    };
    let (cond, mutex) = (held_lock(cond)?, held_lock(mutex)?);
    let mut held = locksets.must_held(func, block, index);
    held.remove(&mutex);
    Some(WaitStart {
        stmt: s,
        block: block as u32,
        index: index as u32,
        cond,
        mutex,
        dst: *dst,
        held: held.into_iter().collect(),
    })
}

/// `(statement, block, index)` of `s` in `func`, the terminator at the block's length.
fn position(func: &Function, s: StmtId) -> Option<(StmtId, usize, usize)> {
    func.blocks.iter().enumerate().find_map(|(b, block)| {
        let at = block.stmts.iter().position(|st| st.id == s);
        match at {
            Some(i) => Some((s, b, i)),
            None => (block.term.id == s).then_some((s, b, block.stmts.len())),
        }
    })
}

fn regs_of(ops: Vec<&Operand>) -> impl Iterator<Item = RegId> + '_ {
    ops.into_iter().filter_map(Operand::as_reg)
}

fn term_uses(kind: &TermKind) -> Vec<RegId> {
    match kind {
        TermKind::Branch { cond, .. } => cond.as_reg().into_iter().collect(),
        TermKind::Return(Some(v)) | TermKind::ThreadExit(v) | TermKind::Exit(v) => {
            v.as_reg().into_iter().collect()
        }
        _ => Vec::new(),
    }
}

/// Registers read in `block` from statement `from` on before a write there, given those
/// live at its end.
fn live_through(
    func: &Function,
    block: usize,
    from: usize,
    out: &BTreeSet<RegId>,
) -> BTreeSet<RegId> {
    let b = &func.blocks[block];
    let mut live = out.clone();
    live.extend(term_uses(&b.term.kind));
    for s in b.stmts[from.min(b.stmts.len())..].iter().rev() {
        if let Some(d) = s.kind.def() {
            live.remove(&d);
        }
        live.extend(regs_of(s.kind.operands()));
    }
    live
}

/// The registers live before statement `index` of `block`.
fn live_at(func: &Function, block: usize, index: usize) -> BTreeSet<RegId> {
    let n = func.blocks.len();
    let mut live_in: Vec<BTreeSet<RegId>> = vec![BTreeSet::new(); n];
    let live_out = |live_in: &[BTreeSet<RegId>], b: usize| -> BTreeSet<RegId> {
        let succ = func.blocks[b].term.kind.successors();
        succ.iter()
            .flat_map(|s| live_in[s.index()].iter().copied())
            .collect()
    };
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..n).rev() {
            let l = live_through(func, b, 0, &live_out(&live_in, b));
            if l != live_in[b] {
                live_in[b] = l;
                changed = true;
            }
        }
    }
    live_through(func, block, index, &live_out(&live_in, block))
}

/// R_local: registers every path to the point assigns a constant last.
fn must_constants(func: &Function, block: usize, index: usize) -> BTreeMap<RegId, u64> {
    forward(
        func,
        (block, index),
        BTreeMap::new(),
        |a, b| {
            a.iter()
                .filter(|(r, c)| b.get(r) == Some(c))
                .map(|(&r, &c)| (r, c))
                .collect()
        },
        |known, kind| {
            let Some(d) = kind.def() else { return };
            match kind {
                StmtKind::Assign {
                    value: Rvalue::Use(Operand::Int { bits, .. }),
                    ..
                } => known.insert(d, *bits),
                StmtKind::Assign {
                    value: Rvalue::Use(Operand::Null),
                    ..
                } => known.insert(d, 0),
                _ => known.remove(&d),
            };
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn driver(name: &str, text: &str) -> Driver {
        let path = std::env::temp_dir().join(format!("agx-from-{name}-{}.c", std::process::id()));
        std::fs::write(&path, text).unwrap();
        let program = analysis::load_program(&path, &Default::default());
        let _ = std::fs::remove_file(&path);
        Driver::new(program.expect("the test program lowers"))
    }

    fn at(d: &Driver, name: &str, line: u32) -> StartPoint {
        let file = d.program().files[0].clone();
        let loc = Location { file, line };
        d.start_point(name, &loc, |_, _| Vec::new()).unwrap()
    }

    fn reg(d: &Driver, func: &str, name: &str) -> RegId {
        let f = d
            .program()
            .functions
            .iter()
            .find(|f| f.name == func)
            .unwrap();
        let i = f.regs.iter().position(|r| r.name.as_deref() == Some(name));
        RegId(i.expect("a register of that name") as u32)
    }

    const PROGRAM: &str = "#include <pthread.h>
pthread_mutex_t m; pthread_mutex_t other; int g;
void *worker(void *arg) {
  int k = 5;
  int j = g;
  if (j) k = 5; else k = 5;
  int c = j ? 1 : 2;
  pthread_mutex_lock(&m);
  if (j) pthread_mutex_lock(&other);
  g = k + c + j;
  if (j) pthread_mutex_unlock(&other);
  pthread_mutex_unlock(&m);
  return 0;
}
int main(void) { return 0; }
";

    #[test]
    fn a_constant_assigned_on_every_path_reaches_the_start() {
        let d = driver("const", PROGRAM);
        let p = at(&d, "worker", 10);
        let k = reg(&d, "worker", "k");
        let c = reg(&d, "worker", "c");
        let j = reg(&d, "worker", "j");
        let of = |r| p.regs.iter().find(|(x, _)| *x == r).map(|(_, s)| s.clone());
        assert_eq!(of(k), Some(RegStart::Known(5)));
        // Two different constants on two paths: unknown, an input.
        assert!(
            matches!(of(c), Some(RegStart::Input { bits: 32, .. })),
            "{:?}",
            of(c)
        );
        assert!(matches!(of(j), Some(RegStart::Input { .. })));
        // `arg` is dead after its copy.
        let arg = d
            .program()
            .functions
            .iter()
            .find(|f| f.name == "worker")
            .unwrap()
            .params[0];
        assert_eq!(of(arg), None);
    }

    #[test]
    fn a_lock_taken_on_every_path_is_held_and_one_taken_on_some_is_not() {
        let d = driver("held", PROGRAM);
        let m = d
            .program()
            .objects
            .iter()
            .find(|o| o.name == "m")
            .unwrap()
            .id;
        let p = at(&d, "worker", 10);
        assert_eq!(p.held, vec![HeldLock::Addr { obj: m, offset: 0 }]);
        // `other` is locked on one path only: maybe held, the start forks over it.
        let other = d
            .program()
            .objects
            .iter()
            .find(|o| o.name == "other")
            .unwrap()
            .id;
        assert_eq!(
            p.maybe_held,
            vec![HeldLock::Addr {
                obj: other,
                offset: 0
            }]
        );
        // After the unlock nothing is held; before the lock neither.
        assert!(at(&d, "worker", 13).held.is_empty());
        // Path-insensitive: the path that locks `other` and skips its unlock is kept.
        assert_eq!(at(&d, "worker", 13).maybe_held, p.maybe_held);
        assert!(at(&d, "worker", 7).held.is_empty());
    }

    fn fixture(name: &str) -> Driver {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/context")
            .join(name);
        let program = analysis::load_program(&path, &Default::default());
        Driver::new(program.expect("the fixture lowers"))
    }

    fn global(d: &Driver, name: &str) -> HeldLock {
        let obj = d.program().objects.iter().find(|o| o.name == name);
        HeldLock::Addr {
            obj: obj.expect("a global of that name").id,
            offset: 0,
        }
    }

    #[test]
    fn paper_figure_1_t2_holds_b_lock_at_its_start_and_t1_nothing() {
        let d = fixture("paper_figure1.c");
        let b = reg(&d, "Bar", "b");
        assert_eq!(at(&d, "Bar", 36).held, vec![HeldLock::Reg(b)]);
        let foo = at(&d, "Foo", 26);
        assert!(foo.held.is_empty() && foo.maybe_held.is_empty(), "{foo:?}");
    }

    #[test]
    fn locks_taken_and_given_back_in_callees_are_renamed_to_the_arguments() {
        let d = fixture("maybe_held_callee.c");
        let m = global(&d, "m");
        // `take(&m)` on every path: must-acquire.
        let taken = at(&d, "holder", 35);
        assert_eq!(taken.held, vec![m]);
        // `maybe_take(&m, flag)`: may-acquire only.
        let maybe = at(&d, "holder2", 44);
        assert!(maybe.held.is_empty(), "{maybe:?}");
        assert_eq!(maybe.maybe_held, vec![m]);
        // `give(&m)` after `take(&m)`: must-release.
        let given = at(&d, "holder", 38);
        assert!(
            given.held.is_empty() && given.maybe_held.is_empty(),
            "{given:?}"
        );
    }

    #[test]
    fn a_wait_line_offers_an_initial_waiter_holding_the_other_locks() {
        let d = fixture("cond_waiter_order.c");
        let (c, m) = (global(&d, "c"), global(&d, "m"));
        let p = at(&d, "first", 21);
        assert_eq!(p.held, vec![m]);
        let w = p.waiter.expect("a waiter at the wait line");
        assert_eq!((w.cond, w.mutex), (c, m));
        assert!(w.held.is_empty(), "{w:?}");
        // The producer's line has no wait.
        assert!(at(&d, "producer", 40).waiter.is_none());
    }

    #[test]
    fn a_line_of_another_function_is_an_error() {
        let d = driver("other", PROGRAM);
        let file = d.program().files[0].clone();
        let loc = Location { file, line: 15 };
        let e = d
            .start_point("worker", &loc, |_, _| Vec::new())
            .unwrap_err();
        assert!(
            e.to_string().contains(":15: no statement of `worker`"),
            "{e}"
        );
    }
}
