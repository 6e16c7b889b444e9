//! Program contexts (seed paper 003, Bergan et al.): runs that start from a set of
//! threads at the entry of functions, over a symbolic initial state, instead of at `main`.
//!
//! Both engines read a [`Context`] the same way, so a witness found from a context
//! replays on the interpreter:
//!
//! - Thread `i` runs `threads[i]` (thread 0 is the first entry, not `main`); `main` does
//!   not run. Every thread runs to its first visible event before the first step, in
//!   thread order (the interpreter's rule for a created thread).
//! - Globals (not string literals, not `fixed` ones) are *initial objects*: a read of a
//!   cell no thread has written yet takes the initial state's value, the next input
//!   (source `initial`), and keeps it. A parameter of an entry function is read the same
//!   way when its thread is set up, thread by thread, parameter by parameter.
//! - A pointer read from the initial state (Eq. 1 of the paper, with aliasing restricted
//!   by points-to) is one of [`candidates`]: null, a function or static object of its
//!   points-to set, an instance of a heap or stack object of the set already materialized
//!   on this run, or a fresh instance (itself an initial object, materialized lazily on
//!   this first read). The input read for it (an `u32`) is the index of the candidate.
//!
//! Without further constraints this over-approximates every state in which the threads
//! could stand at those entries (given the points-to sets are sound): a SAFE verdict from
//! a context holds for every such initial state; a violation is feasible from *some*
//! initial state of the context, the one its witness carries.

use analysis::ir::{FuncId, ObjId, RegId, Scalar, StmtId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// An abstract object of the points-to analysis that has one runtime instance per
/// materialization: a heap allocation site or a stack slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AbsObj {
    Heap(StmtId),
    Slot(ObjId),
}

/// Where a pointer of the initial state may point.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    Func(FuncId),
    /// A global (one instance) at these byte offsets.
    Static {
        obj: ObjId,
        offsets: Vec<u64>,
    },
    /// An instance of a heap or stack object of `size` bytes (`None`: not a constant) at
    /// these byte offsets.
    Instance {
        obj: AbsObj,
        size: Option<u64>,
        offsets: Vec<u64>,
    },
    /// A target the context cannot model (a thread-local object, an external function's
    /// result, an array of more than [`MAX_OFFSETS`] possible offsets): choosing it ends
    /// the path as unsupported.
    Unmodelled(String),
}

/// At most this many offsets per target: beyond, the target is [`Target::Unmodelled`].
pub const MAX_OFFSETS: usize = 64;

/// Which memory a cell of the initial state belongs to, for its points-to set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CellOwner {
    Static(ObjId),
    Instance(AbsObj),
}

/// A context: the threads, and the points-to sets of what they read from the initial
/// state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Context {
    /// The entry function of each thread.
    pub threads: Vec<FuncId>,
    /// Globals whose cells keep their static initializer (no statement may write them):
    /// not initial objects.
    #[serde(default)]
    pub fixed: Vec<ObjId>,
    /// Cells of globals whose value at the context is known: the one store that must
    /// reach it (`rules::must_reach`). Written over the initial object.
    #[serde(default)]
    pub known_cells: Vec<KnownCell>,
    /// `(function, parameter index)`: targets of a pointer parameter of an entry.
    #[serde(default)]
    pub params: Vec<((FuncId, u32), Vec<Target>)>,
    /// Pointer parameters that are never null: every call and thread creation that
    /// reaches the function passes the address of an object there (a must-reach
    /// definition of the parameter).
    #[serde(default)]
    pub non_null: Vec<(FuncId, u32)>,
    /// `(owner, offset)`: targets of a pointer cell of the initial state.
    #[serde(default)]
    pub cells: Vec<((CellOwner, u64), Vec<Target>)>,
    /// `owner`: targets of a pointer at an offset the analysis does not know (added to
    /// every cell of the owner).
    #[serde(default)]
    pub any_cells: Vec<(CellOwner, Vec<Target>)>,
    /// Where each thread starts when not at its function's entry (`--from FILE:LINE`),
    /// index by index with `threads`; missing or `None`: at the entry.
    #[serde(default)]
    pub starts: Vec<Option<StartPoint>>,
}

/// A thread that starts in the middle of its function (§2.3 of the paper): the call
/// stack is that one activation, its live registers come from the initial state
/// (a constant when one must reach the point, R_local), its stack slots are initial
/// objects, and it holds the mutexes held on every path to the point (§4.3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StartPoint {
    /// The first statement of the start line, at `index` of `block`.
    pub stmt: StmtId,
    pub block: u32,
    pub index: u32,
    /// `FILE:LINE` as the user wrote it, for labels.
    pub location: String,
    /// The registers live at the point, in register order: what each starts with. The
    /// others are dead there and start at zero.
    pub regs: Vec<(RegId, RegStart)>,
    /// The mutexes held on every path from the function's entry to the point.
    pub held: Vec<HeldLock>,
    /// The mutexes held on some paths only: the thread holds each one or not, by an
    /// input of the initial state (1: held; read after every thread's registers, thread
    /// by thread).
    #[serde(default)]
    pub maybe_held: Vec<HeldLock>,
    /// A `pthread_cond_wait` on the start line: the thread may already wait in it.
    #[serde(default)]
    pub waiter: Option<WaitStart>,
    /// Pointer registers never null at the point: an unchanged parameter that every
    /// call passes an address (`Context::non_null`).
    #[serde(default)]
    pub non_null: Vec<RegId>,
}

/// A thread whose start line calls `pthread_cond_wait(cond, mutex)` (§4.2 of the paper:
/// initial contexts with a nonempty wait queue). Real runs stand at that line either
/// before the wait (the start point as such, holding `mutex`) or inside it: queued on
/// `cond` with `mutex` released, re-acquired on wake-up. An input of the initial state
/// chooses (1: waiting), read for every such thread after the may-held choices, with a
/// second input, the thread's *timestamp*: the initial waiters of one condition are
/// queued in the order of their timestamps (ties by thread order), so every order of the
/// queue is an initial state, and a signal wakes the first (the paper's matching of
/// symbolic timestamps, `x_i < x_k` iff `t_i` precedes `t_k`). Without an initial
/// waiter, two threads started at such a line would both hold `mutex`: no state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitStart {
    /// The wait statement, at `index` of `block` (the waiter resumes after it).
    pub stmt: StmtId,
    pub block: u32,
    pub index: u32,
    pub cond: HeldLock,
    pub mutex: HeldLock,
    /// The register the wait's result goes to (0, as after a wake-up).
    pub dst: Option<RegId>,
    /// The mutexes held on every path to the wait, but `mutex`: the waiter holds them
    /// (instead of [`StartPoint::held`]).
    pub held: Vec<HeldLock>,
}

/// Input values of a start's choices (maybe-held locks, initial waiters).
pub mod choice {
    /// Not held / not waiting.
    pub const NO: u64 = 0;
    /// Held / waiting.
    pub const YES: u64 = 1;
}

/// The value a live register has at a thread's start point.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RegStart {
    /// The constant every path to the point assigns last (its low bits; 0 is null for
    /// a pointer).
    Known(u64),
    /// An integer of the initial state: the next input.
    Input { bits: u8, signed: bool },
    /// A pointer of the initial state: one of the candidates of these targets.
    Pointer(Vec<Target>),
    /// The value the same register has in thread `thread` (an earlier thread at the same
    /// start point): a loop counter of threads in barrier lock-step (§4.4's barrier
    /// matching, `driver/context_barrier.rs`).
    SameAs { thread: u32 },
}

impl RegStart {
    /// The register type an integer input has.
    pub fn input_type(bits: u8, signed: bool) -> Scalar {
        Scalar::Int { bits, signed }
    }
}

/// How the function names a mutex it holds at a start point (or the condition variable
/// it waits on): a register (unchanged since the lock) or a constant address (a global,
/// or a slot of this activation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HeldLock {
    Reg(RegId),
    Addr { obj: ObjId, offset: u64 },
}

/// An integer cell of a global with a known value at the context.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnownCell {
    pub obj: ObjId,
    pub offset: u64,
    pub bytes: u8,
    /// The value's bits (its low `8 * bytes` bits).
    pub bits: u64,
}

/// One value a pointer of the initial state may take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Candidate {
    Null,
    Func(FuncId),
    Static {
        obj: ObjId,
        offset: u64,
    },
    /// The `seq`-th instance of `obj` materialized on this run.
    Existing {
        obj: AbsObj,
        seq: u32,
        offset: u64,
    },
    /// A new instance of `obj` of `size` bytes.
    Fresh {
        obj: AbsObj,
        size: u64,
        offset: u64,
    },
    Unmodelled(String),
}

impl Context {
    /// The targets of parameter `index` of `func`.
    pub fn param_targets(&self, func: FuncId, index: u32) -> Vec<Target> {
        self.params
            .iter()
            .filter(|(k, _)| *k == (func, index))
            .flat_map(|(_, t)| t.iter().cloned())
            .collect()
    }

    /// The targets of the pointer cell at `offset` of `owner`.
    pub fn cell_targets(&self, owner: CellOwner, offset: u64) -> Vec<Target> {
        let exact = self
            .cells
            .iter()
            .filter(|(k, _)| *k == (owner, offset))
            .flat_map(|(_, t)| t.iter().cloned());
        let any = self
            .any_cells
            .iter()
            .filter(|(k, _)| *k == owner)
            .flat_map(|(_, t)| t.iter().cloned());
        let mut all: Vec<Target> = exact.chain(any).collect();
        all.sort();
        all.dedup();
        all
    }

    /// Whether parameter `index` of `func` may be null in the initial state.
    pub fn param_may_be_null(&self, func: FuncId, index: u32) -> bool {
        !self.non_null.contains(&(func, index))
    }

    /// The context without its constraints (for measuring them): no global keeps its
    /// initializer or a known value, every pointer parameter may be null, a `--from`
    /// thread's integer locals are inputs even where a constant must reach (R_local),
    /// and it holds no lock.
    pub fn drop_constraints(&mut self, prog: &analysis::ir::Program) {
        self.fixed.clear();
        self.known_cells.clear();
        self.non_null.clear();
        for (i, start) in self.starts.iter_mut().enumerate() {
            let (Some(start), Some(&f)) = (start.as_mut(), self.threads.get(i)) else {
                continue;
            };
            start.held.clear();
            start.maybe_held.clear();
            start.non_null.clear();
            if let Some(w) = &mut start.waiter {
                w.held.clear();
            }
            let func = prog.function(f);
            for (reg, init) in &mut start.regs {
                if let (
                    RegStart::Known(_) | RegStart::SameAs { .. },
                    Scalar::Int { bits, signed },
                ) = (&init, func.reg(*reg).ty)
                {
                    *init = RegStart::Input { bits, signed };
                }
            }
        }
    }

    /// Where thread `i` starts, when not at its function's entry.
    pub fn start(&self, i: usize) -> Option<&StartPoint> {
        self.starts.get(i).and_then(Option::as_ref)
    }

    /// The threads that may start as waiters (§4.2), in thread order: the order both
    /// engines read their choice and timestamp inputs in.
    pub fn waiters(&self) -> impl Iterator<Item = (usize, &WaitStart)> {
        (0..self.threads.len()).filter_map(|t| Some((t, self.start(t)?.waiter.as_ref()?)))
    }

    pub fn is_fixed(&self, obj: ObjId) -> bool {
        self.fixed.contains(&obj)
    }
}

/// The candidates of a pointer with these targets (and null when `may_be_null`), in the
/// order both engines number them; `materialized(obj)` is how many instances of `obj`
/// this run has.
pub fn candidates(
    targets: &[Target],
    may_be_null: bool,
    materialized: impl Fn(AbsObj) -> u32,
) -> Vec<Candidate> {
    let mut out = Vec::new();
    if may_be_null {
        out.push(Candidate::Null);
    }
    for t in targets {
        match t {
            Target::Func(f) => out.push(Candidate::Func(*f)),
            Target::Static { obj, offsets } => out.extend(
                offsets
                    .iter()
                    .map(|&offset| Candidate::Static { obj: *obj, offset }),
            ),
            Target::Instance { obj, size, offsets } => {
                for seq in 0..materialized(*obj) {
                    out.extend(offsets.iter().map(|&offset| Candidate::Existing {
                        obj: *obj,
                        seq,
                        offset,
                    }));
                }
                match size {
                    Some(size) => out.extend(offsets.iter().map(|&offset| Candidate::Fresh {
                        obj: *obj,
                        size: *size,
                        offset,
                    })),
                    None => out.push(Candidate::Unmodelled(
                        "a pointer of the initial state may point to a heap block of \
                         non-constant size"
                            .into(),
                    )),
                }
            }
            Target::Unmodelled(why) => out.push(Candidate::Unmodelled(why.clone())),
        }
    }
    out
}

/// The order of initial waiters on one condition: by timestamp, ties by thread order.
pub fn waiter_order(mut waiters: Vec<(usize, u64)>) -> Vec<usize> {
    waiters.sort_by_key(|&(t, stamp)| (stamp, t));
    waiters.into_iter().map(|(t, _)| t).collect()
}

/// Every order of `items` (the permutations, in lexicographic order of positions).
pub fn orders(items: &[usize]) -> Vec<Vec<usize>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for (i, &first) in items.iter().enumerate() {
        let mut rest = items.to_vec();
        rest.remove(i);
        for mut tail in orders(&rest) {
            tail.insert(0, first);
            out.push(tail);
        }
    }
    out
}

/// Per abstract object, how many instances a run materialized (both engines keep one).
pub type Materialized<R> = BTreeMap<AbsObj, Vec<R>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_list_null_statics_existing_then_fresh_instances() {
        let site = AbsObj::Heap(StmtId(7));
        let targets = vec![
            Target::Static {
                obj: ObjId(1),
                offsets: vec![0, 4],
            },
            Target::Instance {
                obj: site,
                size: Some(8),
                offsets: vec![0],
            },
        ];
        let c = candidates(&targets, true, |o| u32::from(o == site) * 2);
        assert_eq!(candidates(&targets, false, |_| 0).len(), 3);
        assert_eq!(
            c,
            vec![
                Candidate::Null,
                Candidate::Static {
                    obj: ObjId(1),
                    offset: 0
                },
                Candidate::Static {
                    obj: ObjId(1),
                    offset: 4
                },
                Candidate::Existing {
                    obj: site,
                    seq: 0,
                    offset: 0
                },
                Candidate::Existing {
                    obj: site,
                    seq: 1,
                    offset: 0
                },
                Candidate::Fresh {
                    obj: site,
                    size: 8,
                    offset: 0
                },
            ]
        );
    }

    #[test]
    fn a_heap_block_of_unknown_size_is_unmodelled() {
        let targets = vec![Target::Instance {
            obj: AbsObj::Heap(StmtId(1)),
            size: None,
            offsets: vec![0],
        }];
        let c = candidates(&targets, true, |_| 0);
        assert!(matches!(c[1], Candidate::Unmodelled(_)));
    }

    #[test]
    fn waiters_queue_by_timestamp_then_thread() {
        assert_eq!(waiter_order(vec![(0, 5), (1, 2), (2, 5)]), vec![1, 0, 2]);
        assert_eq!(orders(&[3, 4, 5]).len(), 6);
        assert_eq!(orders(&[3, 4]), vec![vec![3, 4], vec![4, 3]]);
        assert_eq!(orders(&[7]), vec![vec![7]]);
    }

    #[test]
    fn cell_targets_merge_exact_and_unknown_offsets() {
        let owner = CellOwner::Static(ObjId(0));
        let f = Target::Func(FuncId(3));
        let g = Target::Func(FuncId(4));
        let ctx = Context {
            cells: vec![((owner, 4), vec![f.clone()])],
            any_cells: vec![(owner, vec![g.clone(), f.clone()])],
            ..Context::default()
        };
        assert_eq!(ctx.cell_targets(owner, 4), vec![f.clone(), g.clone()]);
        assert_eq!(ctx.cell_targets(owner, 0), vec![f, g]);
    }
}
