//! Locksets at a start point (seed paper 003, §4.3–§4.4), across calls: a function's
//! effect on the locks its caller holds is its *summary*, RELAY's relative locksets
//! turned around as the paper does (may-held instead of must-held):
//!
//! - `L+_f` (*may-acquire*): the locks `f` may hold at its return that it took itself
//!   (the may-held set at its returns, union);
//! - `L-_f` (*must-release*): the locks whose last operation in `f` is an unlock on
//!   every path (the released set at its returns, intersection);
//! - `M_f` (*must-acquire*): the locks `f` holds at every return (for must-held).
//!
//! A lock in a summary is named by the callee's parameter it came through (the
//! parameter's register, or a register only ever assigned a copy of it) or by a
//! global's address; at a call it is renamed to the argument operand. A lock named any
//! other way (a callee's local) is left out, as are indirect calls and the locks of a
//! recursive cycle (a function being summarized counts as taking and releasing
//! nothing).
//!
//! The caller's transfer at `call f(args)`: may-held `H' = (H − L-_f) ∪ L+_f`; must-held
//! `H' = M_f` (a callee may release anything the caller held: dropping them keeps the
//! set under-approximated, as before).

use analysis::ir::{
    Callee, FuncId, Function, ObjectKind, Operand, Program, RegId, Rvalue, StmtKind, SyncOp,
    TermKind,
};
use explorer::context::HeldLock;
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap, HashSet};

/// A lock of a summary, in the callee's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum SumLock {
    Param(u32),
    Global {
        obj: analysis::ir::ObjId,
        offset: u64,
    },
}

#[derive(Clone, Debug, Default, PartialEq)]
struct Summary {
    may_acquire: BTreeSet<SumLock>,
    must_acquire: BTreeSet<SumLock>,
    must_release: BTreeSet<SumLock>,
}

/// Lock summaries of a program's functions, computed on demand.
pub struct Locksets<'p> {
    prog: &'p Program,
    done: RefCell<HashMap<FuncId, Summary>>,
    busy: RefCell<HashSet<FuncId>>,
}

impl<'p> Locksets<'p> {
    pub fn new(prog: &'p Program) -> Locksets<'p> {
        Locksets {
            prog,
            done: RefCell::default(),
            busy: RefCell::default(),
        }
    }

    /// The mutex operands held on every path to the point (§4.3's locksets, must-held).
    /// An unlock through another operand drops every lock; a call keeps only what the
    /// callee must acquire: this under-approximates the held set, so the initial state
    /// keeps at least every state a real run can reach there.
    pub fn must_held(&self, func: &Function, block: usize, index: usize) -> BTreeSet<HeldLock> {
        forward(
            func,
            (block, index),
            BTreeSet::new(),
            |a, b| a.intersection(b).copied().collect(),
            |held, kind| self.must_transfer(held, kind),
        )
    }

    /// The mutex operands locked on some path to the point and not unlocked through the
    /// same operand since (§4.4's may-held locksets, through the callees' summaries): a
    /// thread may hold them, so the start forks over holding each of those not held on
    /// every path. Known gap: a lock whose register is redefined.
    pub fn may_held(&self, func: &Function, block: usize, index: usize) -> BTreeSet<HeldLock> {
        forward(
            func,
            (block, index),
            BTreeSet::new(),
            |a, b| a.union(b).copied().collect(),
            |held, kind| self.may_transfer(held, kind),
        )
    }

    fn must_transfer(&self, held: &mut BTreeSet<HeldLock>, kind: &StmtKind) {
        match kind {
            StmtKind::Sync {
                op: SyncOp::MutexLock { mutex },
                ..
            } => {
                if let Some(l) = held_lock(mutex) {
                    held.insert(l);
                }
            }
            StmtKind::Sync {
                op: SyncOp::MutexUnlock { mutex },
                ..
            } => {
                let named = held_lock(mutex);
                if !named.is_some_and(|l| held.remove(&l)) {
                    held.clear();
                }
            }
            StmtKind::Call { callee, args, .. } => {
                held.clear();
                if let Some(s) = self.summary_of(callee) {
                    held.extend(s.must_acquire.iter().filter_map(|&l| rename(l, args)));
                }
            }
            _ => {}
        }
        if let Some(d) = kind.def() {
            held.remove(&HeldLock::Reg(d));
        }
    }

    fn may_transfer(&self, held: &mut BTreeSet<HeldLock>, kind: &StmtKind) {
        let (taken, given) = self.lock_effects(kind);
        for l in given {
            held.remove(&l);
        }
        held.extend(taken);
        if let Some(d) = kind.def() {
            held.remove(&HeldLock::Reg(d));
        }
    }

    /// The released set: locks whose last operation is an unlock.
    fn release_transfer(&self, released: &mut BTreeSet<HeldLock>, kind: &StmtKind) {
        let (taken, given) = self.lock_effects(kind);
        for l in taken {
            released.remove(&l);
        }
        released.extend(given);
        if let Some(d) = kind.def() {
            released.remove(&HeldLock::Reg(d));
        }
    }

    /// The locks a statement may take and those it surely gives back (a call: its
    /// callee's may-acquire and must-release sets, renamed to the call's arguments).
    fn lock_effects(&self, kind: &StmtKind) -> (Vec<HeldLock>, Vec<HeldLock>) {
        match kind {
            StmtKind::Sync {
                op: SyncOp::MutexLock { mutex } | SyncOp::MutexTryLock { mutex },
                ..
            } => (held_lock(mutex).into_iter().collect(), Vec::new()),
            StmtKind::Sync {
                op: SyncOp::MutexUnlock { mutex },
                ..
            } => (Vec::new(), held_lock(mutex).into_iter().collect()),
            StmtKind::Call { callee, args, .. } => match self.summary_of(callee) {
                Some(s) => (
                    s.may_acquire
                        .iter()
                        .filter_map(|&l| rename(l, args))
                        .collect(),
                    s.must_release
                        .iter()
                        .filter_map(|&l| rename(l, args))
                        .collect(),
                ),
                None => (Vec::new(), Vec::new()),
            },
            _ => (Vec::new(), Vec::new()),
        }
    }

    fn summary_of(&self, callee: &Callee) -> Option<Summary> {
        let Callee::Direct(f) = *callee else {
            return None;
        };
        if let Some(s) = self.done.borrow().get(&f) {
            return Some(s.clone());
        }
        let func = self.prog.function(f);
        if !func.is_defined() || !self.busy.borrow_mut().insert(f) {
            return None;
        }
        let s = self.summarize(func);
        self.busy.borrow_mut().remove(&f);
        self.done.borrow_mut().insert(f, s.clone());
        Some(s)
    }

    fn summarize(&self, func: &Function) -> Summary {
        let name = |set: Option<BTreeSet<HeldLock>>| -> BTreeSet<SumLock> {
            set.unwrap_or_default()
                .into_iter()
                .filter_map(|l| sum_lock(self.prog, func, l))
                .collect()
        };
        let inter =
            |a: &BTreeSet<HeldLock>, b: &BTreeSet<HeldLock>| a.intersection(b).copied().collect();
        let union = |a: &BTreeSet<HeldLock>, b: &BTreeSet<HeldLock>| a.union(b).copied().collect();
        Summary {
            may_acquire: name(at_returns(func, BTreeSet::new(), union, |h, k| {
                self.may_transfer(h, k)
            })),
            must_acquire: name(at_returns(func, BTreeSet::new(), inter, |h, k| {
                self.must_transfer(h, k)
            })),
            must_release: name(at_returns(func, BTreeSet::new(), inter, |h, k| {
                self.release_transfer(h, k)
            })),
        }
    }
}

/// A lock of `func` in summary terms: a parameter (or a copy of one), or a global.
fn sum_lock(prog: &Program, func: &Function, l: HeldLock) -> Option<SumLock> {
    match l {
        HeldLock::Addr { obj, offset } => {
            (prog.object(obj).kind == ObjectKind::Global).then_some(SumLock::Global { obj, offset })
        }
        HeldLock::Reg(r) => param_of(func, r).map(SumLock::Param),
    }
}

/// The parameter `r` holds throughout `func`: its register, never redefined, or a
/// register whose only definition copies such a parameter.
pub fn param_of(func: &Function, r: RegId) -> Option<u32> {
    let defs = |x: RegId| {
        func.blocks
            .iter()
            .flat_map(|b| &b.stmts)
            .filter(move |s| s.kind.def() == Some(x))
    };
    let unchanged_param = |x: RegId| {
        let i = func.params.iter().position(|&p| p == x)?;
        (defs(x).next().is_none()).then_some(i as u32)
    };
    if let Some(i) = unchanged_param(r) {
        return Some(i);
    }
    let mut d = defs(r);
    let (Some(only), None) = (d.next(), d.next()) else {
        return None;
    };
    match &only.kind {
        StmtKind::Assign {
            value: Rvalue::Use(Operand::Reg(p)),
            ..
        } => unchanged_param(*p),
        _ => None,
    }
}

/// A summary lock named in the caller: the argument operand, or the global.
fn rename(l: SumLock, args: &[Operand]) -> Option<HeldLock> {
    match l {
        SumLock::Param(i) => held_lock(args.get(i as usize)?),
        SumLock::Global { obj, offset } => Some(HeldLock::Addr { obj, offset }),
    }
}

pub fn held_lock(op: &Operand) -> Option<HeldLock> {
    match *op {
        Operand::Reg(r) => Some(HeldLock::Reg(r)),
        Operand::Addr { obj, offset } => Some(HeldLock::Addr { obj, offset }),
        _ => None,
    }
}

/// The facts before each block of a forward analysis from the function's entry
/// (`meet`: intersection for a must analysis, union for a may one); `None`: no path.
fn fixpoint<T: Clone + PartialEq>(
    func: &Function,
    entry: &T,
    meet: &impl Fn(&T, &T) -> T,
    transfer: &impl Fn(&mut T, &StmtKind),
) -> Vec<Option<T>> {
    let n = func.blocks.len();
    let mut ins: Vec<Option<T>> = vec![None; n];
    ins[0] = Some(entry.clone());
    let mut changed = true;
    while changed {
        changed = false;
        for b in 0..n {
            let Some(fact) = ins[b].clone() else { continue };
            let out = through(func, &fact, b, usize::MAX, transfer);
            for s in func.blocks[b].term.kind.successors() {
                let s = s.index();
                let next = match &ins[s] {
                    None => out.clone(),
                    Some(old) => meet(old, &out),
                };
                let next = if s == 0 { meet(&next, entry) } else { next };
                if ins[s].as_ref() != Some(&next) {
                    ins[s] = Some(next);
                    changed = true;
                }
            }
        }
    }
    ins
}

/// The fact after the first `upto` statements of block `b`.
fn through<T: Clone>(
    func: &Function,
    fact: &T,
    b: usize,
    upto: usize,
    transfer: &impl Fn(&mut T, &StmtKind),
) -> T {
    let mut f = fact.clone();
    let stmts = &func.blocks[b].stmts;
    for s in &stmts[..upto.min(stmts.len())] {
        transfer(&mut f, &s.kind);
    }
    f
}

/// A forward analysis's fact before statement `index` of `block`.
pub fn forward<T: Clone + PartialEq>(
    func: &Function,
    (block, index): (usize, usize),
    entry: T,
    meet: impl Fn(&T, &T) -> T,
    transfer: impl Fn(&mut T, &StmtKind),
) -> T {
    let ins = fixpoint(func, &entry, &meet, &transfer);
    match &ins[block] {
        Some(fact) => through(func, fact, block, index, &transfer),
        None => entry,
    }
}

/// A forward analysis's fact at the function's returns (met over them); `None` when no
/// return is reachable.
fn at_returns<T: Clone + PartialEq>(
    func: &Function,
    entry: T,
    meet: impl Fn(&T, &T) -> T,
    transfer: impl Fn(&mut T, &StmtKind),
) -> Option<T> {
    let ins = fixpoint(func, &entry, &meet, &transfer);
    let mut out: Option<T> = None;
    for (b, fact) in ins.iter().enumerate() {
        let (Some(fact), TermKind::Return(_)) = (fact, &func.blocks[b].term.kind) else {
            continue;
        };
        let f = through(func, fact, b, usize::MAX, &transfer);
        out = Some(match out {
            None => f,
            Some(o) => meet(&o, &f),
        });
    }
    out
}
