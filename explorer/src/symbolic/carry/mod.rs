//! Predicate summaries carried from one program version to the next (Conc-iSE, seed
//! paper 002, §6: "summary renewal").
//!
//! # Stable names
//! A summary's key and formula name threads ([`ThreadKey`]), memory objects
//! ([`ObjInst`]), functions, statements and registers by numbers that are only
//! meaningful inside one search of one program. [`StableIds`] names them across
//! versions: a thread by its creation path (`main`, its `i`-th child, ...), an object by
//! its owner, C name and rank (a heap object by its allocation site), a statement by its
//! [`analysis::diff`] fingerprint, a named register by C name and rank, a temporary by
//! the fingerprint of its first definition. A fingerprint counts only when it is
//! *trusted*: the old statement with that fingerprint is mapped by the diff to the new
//! statement with the same fingerprint; a key or formula naming anything else is never
//! matched.
//!
//! # When a carried summary may prune (the soundness condition)
//! `PS[n]` of the old version says: from a state at `n` satisfying it, every execution of
//! the *old* program's code after `n` is violation-free. It transfers to a node `n'` of
//! the new version with the same stable key only if the code that can still run after
//! `n'` is the same: **no changed statement can execute after the node, in any thread**
//! (counting threads not created yet: they run code reachable from the live threads).
//! [`Changes`] computes, for every position of the new program, whether an added or
//! modified statement, a statement of a function with a deletion, a terminator whose
//! successors moved, or a call of such code is reachable from it; a node is *clean* when
//! every frame of every thread stands at a position that is not.
//!
//! # Harmless changes (the widening)
//! "The same code" may be read modulo statements no property can observe. Given both
//! versions' Type B slices ([`Slices`]: the backward closure, under the rules crate's
//! HB-filtered control, data and interference dependence, of every statement that can
//! violate a property, stop, block or end a run, or decide how long a loop runs —
//! `type_b::criteria`), a changed statement is **harmless** when
//! - it is a plain `Assign`, `Load` or `Store` (no call, synchronization, allocation,
//!   free, input, print, assumption or terminator: its only effect is one value), and
//! - it is outside the slice of the version it belongs to: a new statement (added or
//!   modified) outside the new slice, an old one (deleted or replaced) outside the old
//!   slice.
//!
//! Harmless statements dirty nothing; a node is clean when no *harmful* change can run
//! after it. Why that is sound: let `R` be the slice statements. Nothing in `R` depends
//! on a harmless statement `h` — not its value (a read of what `h` writes, in any
//! thread, would put `h` in the slice by data or interference dependence, and so would
//! a read whose reaching definition `h` kills), not whether it runs (`h` is no
//! terminator, and control flow is unchanged: every changed terminator, call or
//! synchronization is harmful). So from one state, the old and the new code after the
//! node run the same `R` statements with the same values under corresponding schedules
//! (drop or add `h`'s step), and every violation, stop, block or loop bound is an `R`
//! statement: the old summary's claim "no violation from here" carries over. For the
//! scheduling reduction, `h`'s accesses are independent of every step as far as the
//! property can tell (the argument of `type_b`'s interleaving pivots: reordering them
//! changes only values no `R` statement reads, and they block and enable nothing); the
//! carried access table, computed without `h`, is exactly DPOR's table under the
//! dependence relation without `h`, whose happens-before is then consistent with it.
//! Without slices (`--check`, `--no-slice`) every change is harmful. The `max-events`
//! bound counts `h`'s events too; like summaries within one search, a carried summary
//! does not re-check it.
//!
//! The paper's Algorithm 2 instead reuses `PS[s]` when the statement at `s` is outside
//! `IS_bwd` (the statements that may affect a changed one). That is not enough: with
//! `assert(b != 0)` changed to `assert(b != 1)`, a node just before the assertion is
//! outside `IS_bwd` when the assertion's operands do not depend on the changed text
//! (here, nothing the node runs affects the change), yet its old summary `b != 0` is
//! wrong for the new assertion. In the paper's example (Figure 5) the change is on line 1,
//! which runs before `n2`/`n4`, so both rules agree there.
//!
//! Beyond that condition a carried summary is used exactly as a summary of the current
//! search: its access table (RVar/WVar) drives the same DPOR repair, and with
//! [`super::Repair::Strict`] a node whose races are not covered is explored. Summaries of
//! a search whose Type B slice skipped a pivot are not exported: such a summary is
//! relative to that version's slice, which depends on the whole program.

use super::dpor::{Access, Loc, Role};
use super::fp::FpOp;
use super::names::{Names, ObjInst, ObjName, ThreadKey, ThreadName};
use super::state::{KeyIds, State};
use super::summary::{sleep_key, Recorded, RwEntry, RwTable, SleepKey, RET_DEPTH};
use super::term::{BvOp, CmpOp, Node, TermId, TermPool, Var};
use analysis::diff::{fingerprints, ProgramDiff};
use analysis::ir::{
    Callee, FuncId, ObjId, ObjectKind, Operand, Program, RegId, StmtId, StmtKind, SyncOp,
};
use serde::{Deserialize, Serialize};
use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

mod changes;
pub use changes::{trusted_fingerprints, Changes, Slices};

/// A thread by its creation path: `[]` is main, `[i, j]` the `j`-th child of main's
/// `i`-th child.
pub type SThread = Vec<u32>;

/// An object across versions.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SObj {
    /// A global or literal (`owner` empty) by name and rank among same-named objects.
    Static {
        name: String,
        rank: u32,
    },
    ThreadLocal {
        thread: SThread,
        name: String,
        rank: u32,
    },
    Slot {
        thread: SThread,
        depth: u32,
        func: String,
        name: String,
        rank: u32,
    },
    Heap {
        thread: SThread,
        site: u64,
        seq: u32,
    },
    Argv(u32),
    Dead,
}

/// A register across versions.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SReg {
    Named(String, u32),
    /// A temporary, by the fingerprint of its first definition.
    Temp(u64),
    /// A thread's return value.
    Ret,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SVar {
    Fut {
        thread: SThread,
        index: u32,
    },
    Reg {
        thread: SThread,
        depth: u32,
        reg: SReg,
    },
    Cell {
        obj: SObj,
        offset: u64,
    },
}

/// One term node; children are indices of earlier nodes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SNode {
    Bool(bool),
    Bv(u8, u64),
    Var(SVar, u8),
    Not(u32),
    And(u32, u32),
    Or(u32, u32),
    Ite(u32, u32, u32),
    Cmp(CmpOp, u32, u32),
    Bin(BvOp, u32, u32),
    Neg(u32),
    BNot(u32),
    ZExt(u32, u8),
    SExt(u32, u8),
    Trunc(u32, u8),
    Fp(FpOp, u32, u32),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SLoc {
    Mem(SObj, u64),
    Obj(SObj),
    Mutex(SObj, u64),
    Cond(SObj, u64),
    Thread(SThread),
    All,
}

/// One RVar/WVar entry across versions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SAccess {
    pub thread: SThread,
    pub loc: SLoc,
    pub write: bool,
    /// 0 plain, 1 acquire, 2 release.
    pub role: u8,
    pub after: Vec<SThread>,
    pub covered: bool,
}

/// One access of a sleeping thread's pending event across versions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SEvent {
    pub loc: SLoc,
    pub write: bool,
    /// 0 plain, 1 acquire, 2 release.
    pub role: u8,
}

/// A sleeping thread of the node a summary was recorded at, with its pending event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SSleeper {
    pub thread: SThread,
    pub event: Vec<SEvent>,
}

/// One summary in stable form: what the store keeps.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CarriedSummary {
    pub key: Vec<u64>,
    /// The formula's nodes in topological order; the last is the root.
    pub formula: Vec<SNode>,
    pub accesses: Vec<SAccess>,
    /// The sleep set the summary is relative to (`summary`, "Sleep sets"): it prunes
    /// only a node where all of these sleep.
    pub sleep: Vec<SSleeper>,
}

/// A summary read from the store or made by this process. The store's formulas are kept
/// as their text and decoded when a node of the new search first matches the key: most
/// keys are never matched, and decoding every formula was half of `--since`'s read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Carried {
    Decoded(CarriedSummary),
    /// `(formula, accesses, sleep)` as JSON (the store's form, see [`Carried::encode`]).
    Text(String),
}

impl Carried {
    /// The stored text of a summary's formula, accesses and sleep set.
    pub fn encode(s: &CarriedSummary) -> String {
        serde_json::to_string(&(&s.formula, &s.accesses, &s.sleep)).expect("summaries serialize")
    }

    /// The summary of `key`; `None` for a text that does not decode (the record's
    /// checksum held, so only a bug writes one: the summary is then not used).
    pub fn decode(&self, key: &[u64]) -> Option<std::borrow::Cow<'_, CarriedSummary>> {
        match self {
            Carried::Decoded(s) => Some(std::borrow::Cow::Borrowed(s)),
            Carried::Text(text) => {
                let (formula, accesses, sleep) = serde_json::from_str(text).ok()?;
                Some(std::borrow::Cow::Owned(CarriedSummary {
                    key: key.to_vec(),
                    formula,
                    accesses,
                    sleep,
                }))
            }
        }
    }
}

/// What a search imports from the previous version.
#[derive(Debug, Default)]
pub struct Imported {
    pub summaries: HashMap<Vec<u64>, Carried>,
    pub changes: Changes,
    /// The fingerprints that name the same statement in both versions
    /// ([`trusted_fingerprints`]).
    pub trusted: Option<HashSet<u64>>,
}

/// How a search exchanges summaries with other versions.
#[derive(Debug, Default)]
pub struct Carry {
    /// Return this search's summaries in stable form ([`super::SearchOutcome::carried`]).
    pub export: bool,
    /// Stop exporting once the summaries' [`stored_size`] passes this many bytes: a store
    /// that refuses records over a limit would otherwise pay for the whole export (on a
    /// long search, seconds and gigabytes) only to drop it
    /// ([`super::SearchOutcome::carried_over_limit`]).
    pub export_limit: Option<usize>,
    pub import: Option<Imported>,
}

impl Carry {
    /// Export every summary, without a size limit (for a consumer in this process).
    pub fn export_all() -> Carry {
        Carry {
            export: true,
            ..Carry::default()
        }
    }
}

/// The bytes a summary takes in a store record: its encoded text ([`Carried::encode`])
/// and its key, without building the text.
pub fn stored_size(s: &CarriedSummary) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    serde_json::to_writer(&mut counter, &(&s.formula, &s.accesses, &s.sleep))
        .expect("summaries serialize");
    counter.0 + stored_key_size(s)
}

/// The bytes a summary's key takes in a store record (eight per element).
pub fn stored_key_size(s: &CarriedSummary) -> usize {
    8 * s.key.len()
}

fn stable_hash<T: Hash>(t: &T) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    t.hash(&mut h);
    h.finish()
}

/// Per-program stable names (see the module doc).
#[derive(Debug)]
pub struct StableIds {
    /// Fingerprint per statement, `None` when not trusted.
    fp: Vec<Option<u64>>,
    by_fp: HashMap<u64, StmtId>,
    /// `(owner function name or "", C name, rank)` per object.
    objects: Vec<(String, String, u32)>,
    by_object: HashMap<(String, String, u32), ObjId>,
    regs: Vec<Vec<Option<SReg>>>,
    by_reg: Vec<HashMap<SReg, RegId>>,
    first_stmt: Vec<Vec<StmtId>>,
}

impl StableIds {
    /// `trusted`: the fingerprints that may be matched (`None`: all of them).
    pub fn new(prog: &Program, trusted: Option<&HashSet<u64>>) -> StableIds {
        let fp: Vec<Option<u64>> = fingerprints(prog)
            .into_iter()
            .map(|f| Some(f.0).filter(|f| trusted.is_none_or(|t| t.contains(f))))
            .collect();
        let by_fp = fp
            .iter()
            .enumerate()
            .filter_map(|(i, f)| f.map(|f| (f, StmtId(i as u32))))
            .collect();
        let mut rank: HashMap<(String, String), u32> = HashMap::new();
        let objects: Vec<(String, String, u32)> = prog
            .objects
            .iter()
            .map(|o| {
                let owner = match o.kind {
                    ObjectKind::StackSlot { func } => prog.function(func).name.clone(),
                    _ => String::new(),
                };
                let r = rank.entry((owner.clone(), o.name.clone())).or_default();
                *r += 1;
                (owner, o.name.clone(), *r - 1)
            })
            .collect();
        let by_object = objects
            .iter()
            .enumerate()
            .map(|(i, k)| (k.clone(), ObjId(i as u32)))
            .collect();
        let mut regs = Vec::new();
        let mut by_reg = Vec::new();
        let mut first_stmt = Vec::new();
        for f in &prog.functions {
            let mut names: Vec<Option<SReg>> = vec![None; f.regs.len()];
            let mut seen: HashMap<&str, u32> = HashMap::new();
            for (i, r) in f.regs.iter().enumerate() {
                if let Some(n) = &r.name {
                    let k = seen.entry(n).or_default();
                    names[i] = Some(SReg::Named(n.clone(), *k));
                    *k += 1;
                }
            }
            let mut defined = vec![false; f.regs.len()];
            for b in &f.blocks {
                for s in &b.stmts {
                    if let Some(d) = s.kind.def() {
                        let i = d.index();
                        if !std::mem::replace(&mut defined[i], true) && names[i].is_none() {
                            names[i] = fp[s.id.index()].map(SReg::Temp);
                        }
                    }
                }
            }
            by_reg.push(
                names
                    .iter()
                    .enumerate()
                    .filter_map(|(i, n)| n.clone().map(|n| (n, RegId(i as u32))))
                    .collect(),
            );
            regs.push(names);
            first_stmt.push(
                f.blocks
                    .iter()
                    .map(|b| b.stmts.first().map_or(b.term.id, |s| s.id))
                    .collect(),
            );
        }
        StableIds {
            fp,
            by_fp,
            objects,
            by_object,
            regs,
            by_reg,
            first_stmt,
        }
    }

    fn stmt_at(prog: &Program, f: FuncId, block: u32, index: u32) -> StmtId {
        let b = &prog.function(f).blocks[block as usize];
        b.stmts.get(index as usize).map_or(b.term.id, |s| s.id)
    }
}

/// The thread's creation path.
pub fn thread_path(names: &Names, t: ThreadKey) -> SThread {
    match names.thread_name(t) {
        ThreadName::Main => Vec::new(),
        // Context threads (`--entry`) never meet a stored summary (verify keeps the store
        // off for contexts); the marker keeps them apart from every creation path.
        ThreadName::Entry(i) => vec![u32::MAX, i],
        ThreadName::Child { parent, seq } => {
            let mut p = thread_path(names, parent);
            p.push(seq);
            p
        }
    }
}

fn thread_of_path(names: &mut Names, path: &[u32]) -> ThreadKey {
    let mut k = names.thread(ThreadName::Main);
    for &seq in path {
        k = names.thread(ThreadName::Child { parent: k, seq });
    }
    k
}

/// Names one program's ids stably; `untrusted` is set when an id had no stable name.
pub struct StableView<'a> {
    pub prog: &'a Program,
    pub ids: &'a StableIds,
    pub names: &'a Names,
    pub untrusted: Cell<bool>,
}

impl<'a> StableView<'a> {
    pub fn new(prog: &'a Program, ids: &'a StableIds, names: &'a Names) -> StableView<'a> {
        StableView {
            prog,
            ids,
            names,
            untrusted: Cell::new(false),
        }
    }

    fn fp(&self, s: StmtId) -> u64 {
        self.ids.fp[s.index()].unwrap_or_else(|| {
            self.untrusted.set(true);
            0
        })
    }

    pub fn obj_name(&self, o: ObjInst) -> Option<SObj> {
        let base = |obj: ObjId| self.ids.objects[obj.index()].clone();
        Some(match self.names.object_name(o) {
            ObjName::Static(obj) => {
                let (_, name, rank) = base(obj);
                SObj::Static { name, rank }
            }
            ObjName::ThreadLocal { thread, obj } => {
                let (_, name, rank) = base(obj);
                SObj::ThreadLocal {
                    thread: thread_path(self.names, thread),
                    name,
                    rank,
                }
            }
            ObjName::Slot { thread, depth, obj } => {
                let (func, name, rank) = base(obj);
                SObj::Slot {
                    thread: thread_path(self.names, thread),
                    depth,
                    func,
                    name,
                    rank,
                }
            }
            ObjName::Heap { thread, site, seq } => SObj::Heap {
                thread: thread_path(self.names, thread),
                site: self.ids.fp[site.index()]?,
                seq,
            },
            ObjName::Argv(i) => SObj::Argv(i),
            // An object of a context's initial state has no name across versions.
            ObjName::Initial { .. } => return None,
            ObjName::Dead => SObj::Dead,
        })
    }

    fn reg_name(&self, f: FuncId, reg: usize) -> Option<&SReg> {
        self.ids.regs[f.index()].get(reg)?.as_ref()
    }

    fn loc(&self, l: Loc) -> Option<SLoc> {
        Some(match l {
            Loc::Mem(o, off) => SLoc::Mem(self.obj_name(o)?, off),
            Loc::Obj(o) => SLoc::Obj(self.obj_name(o)?),
            Loc::Mutex(o, off) => SLoc::Mutex(self.obj_name(o)?, off),
            Loc::Cond(o, off) => SLoc::Cond(self.obj_name(o)?, off),
            Loc::Thread(t) => SLoc::Thread(thread_path(self.names, t)),
            Loc::All => SLoc::All,
        })
    }

    /// A summary of this search in stable form; `None` when something in it has no
    /// stable name (an untrusted statement, an input read before the node).
    pub fn export(
        &self,
        st: &State,
        pool: &TermPool,
        key: Vec<u64>,
        ps: TermId,
        rw: &RwTable,
        sleep: &SleepKey,
    ) -> Option<CarriedSummary> {
        let order = super::model::topological(pool, ps);
        let index: HashMap<TermId, u32> = order
            .iter()
            .enumerate()
            .map(|(i, t)| (*t, i as u32))
            .collect();
        let ix = |t: &TermId| index[t];
        let by_key = st.tids_by_key();
        let mut formula = Vec::with_capacity(order.len());
        for t in &order {
            formula.push(match pool.node(*t) {
                Node::BoolConst(b) => SNode::Bool(*b),
                Node::BvConst { width, value } => SNode::Bv(*width, *value),
                Node::Var { var, width } => SNode::Var(self.var(st, &by_key, *var)?, *width),
                Node::Not(a) => SNode::Not(ix(a)),
                Node::And(a, b) => SNode::And(ix(a), ix(b)),
                Node::Or(a, b) => SNode::Or(ix(a), ix(b)),
                Node::Ite(c, a, b) => SNode::Ite(ix(c), ix(a), ix(b)),
                Node::Cmp(op, a, b) => SNode::Cmp(*op, ix(a), ix(b)),
                Node::Bin(op, a, b) => SNode::Bin(*op, ix(a), ix(b)),
                Node::Neg(a) => SNode::Neg(ix(a)),
                Node::BNot(a) => SNode::BNot(ix(a)),
                Node::ZExt(a, w) => SNode::ZExt(ix(a), *w),
                Node::SExt(a, w) => SNode::SExt(ix(a), *w),
                Node::Trunc(a, w) => SNode::Trunc(ix(a), *w),
                Node::Fp(op, a, b) => SNode::Fp(*op, ix(a), ix(b)),
            });
        }
        let mut accesses = Vec::with_capacity(rw.len());
        for ((thread, access), rec) in rw {
            accesses.push(SAccess {
                thread: thread_path(self.names, *thread),
                loc: self.loc(access.loc)?,
                write: access.write,
                role: role_code(access.role),
                after: rec
                    .after
                    .iter()
                    .map(|k| thread_path(self.names, *k))
                    .collect(),
                covered: rec.covered,
            });
        }
        let mut sleepers = Vec::with_capacity(sleep.len());
        for (thread, foot) in sleep {
            let mut event = Vec::with_capacity(foot.len());
            for a in foot {
                event.push(SEvent {
                    loc: self.loc(a.loc)?,
                    write: a.write,
                    role: role_code(a.role),
                });
            }
            sleepers.push(SSleeper {
                thread: thread_path(self.names, *thread),
                event,
            });
        }
        Some(CarriedSummary {
            key,
            formula,
            accesses,
            sleep: sleepers,
        })
    }

    fn var(
        &self,
        st: &State,
        by_key: &rustc_hash::FxHashMap<ThreadKey, usize>,
        v: Var,
    ) -> Option<SVar> {
        Some(match v {
            // A summary's inputs are all future ones (`rename_inputs`).
            Var::Input { .. } => return None,
            Var::Fut { thread, index } => SVar::Fut {
                thread: thread_path(self.names, thread),
                index,
            },
            Var::Reg { thread, depth, reg } => {
                let sreg = if depth == RET_DEPTH {
                    SReg::Ret
                } else {
                    let th = &st.threads[*by_key.get(&thread)?];
                    let f = th.frames.get(depth as usize)?.func;
                    self.reg_name(f, reg.index())?.clone()
                };
                SVar::Reg {
                    thread: thread_path(self.names, thread),
                    depth,
                    reg: sreg,
                }
            }
            Var::Cell { obj, offset } => SVar::Cell {
                obj: self.obj_name(obj)?,
                offset,
            },
        })
    }
}

impl KeyIds for StableView<'_> {
    fn thread(&self, t: ThreadKey) -> u64 {
        stable_hash(&thread_path(self.names, t))
    }
    fn obj(&self, o: ObjInst) -> u64 {
        match self.obj_name(o) {
            Some(n) => stable_hash(&n),
            None => {
                self.untrusted.set(true);
                0
            }
        }
    }
    fn func(&self, f: FuncId) -> u64 {
        stable_hash(&self.prog.function(f).name)
    }
    fn position(&self, f: FuncId, block: u32, index: u32) -> u64 {
        self.fp(StableIds::stmt_at(self.prog, f, block, index))
    }
    fn block(&self, f: FuncId, block: u32) -> u64 {
        self.fp(self.ids.first_stmt[f.index()][block as usize])
    }
    fn stmt(&self, s: StmtId) -> u64 {
        self.fp(s)
    }
    /// Integer registers stay out of stable keys: a temporary defined by a changed
    /// statement has no stable name, yet its value does not decide which code runs; a
    /// carried formula naming a register resolves it by name, or is not used.
    fn int_regs(&self) -> bool {
        false
    }
    fn reg(&self, f: FuncId, reg: usize) -> u64 {
        match self.reg_name(f, reg) {
            Some(n) => stable_hash(n),
            None => {
                self.untrusted.set(true);
                0
            }
        }
    }
}

fn role_code(r: Role) -> u8 {
    match r {
        Role::Plain => 0,
        Role::Acquire => 1,
        Role::Release => 2,
    }
}

fn role_of_code(c: u8) -> Option<Role> {
    match c {
        0 => Some(Role::Plain),
        1 => Some(Role::Acquire),
        2 => Some(Role::Release),
        _ => None,
    }
}

fn import_loc(prog: &Program, ids: &StableIds, names: &mut Names, loc: &SLoc) -> Option<Loc> {
    Some(match loc {
        SLoc::Mem(o, off) => Loc::Mem(import_obj(prog, ids, names, o)?, *off),
        SLoc::Obj(o) => Loc::Obj(import_obj(prog, ids, names, o)?),
        SLoc::Mutex(o, off) => Loc::Mutex(import_obj(prog, ids, names, o)?, *off),
        SLoc::Cond(o, off) => Loc::Cond(import_obj(prog, ids, names, o)?, *off),
        SLoc::Thread(t) => Loc::Thread(thread_of_path(names, t)),
        SLoc::All => Loc::All,
    })
}

/// Turns a carried summary into this search's terms at a node, with the sleep set it
/// is relative to; `None` when a name has no counterpart here (the summary is then not
/// used).
pub fn import(
    prog: &Program,
    ids: &StableIds,
    names: &mut Names,
    pool: &mut TermPool,
    st: &State,
    s: &CarriedSummary,
) -> Option<(TermId, RwTable, SleepKey)> {
    let by_key = st.tids_by_key();
    let mut terms: Vec<TermId> = Vec::with_capacity(s.formula.len());
    for n in &s.formula {
        let k = |i: &u32| terms.get(*i as usize).copied();
        let t = match n {
            SNode::Bool(b) => pool.bool_const(*b),
            SNode::Bv(w, v) => pool.bv_const(*v, *w),
            SNode::Var(v, w) => {
                let var = import_var(prog, ids, names, st, &by_key, v)?;
                pool.var(var, *w)
            }
            SNode::Not(a) => {
                let a = k(a)?;
                pool.not(a)
            }
            SNode::And(a, b) => {
                let (a, b) = (k(a)?, k(b)?);
                pool.and(a, b)
            }
            SNode::Or(a, b) => {
                let (a, b) = (k(a)?, k(b)?);
                pool.or(a, b)
            }
            SNode::Ite(c, a, b) => {
                let (c, a, b) = (k(c)?, k(a)?, k(b)?);
                pool.ite(c, a, b)
            }
            SNode::Cmp(op, a, b) => {
                let (a, b) = (k(a)?, k(b)?);
                pool.cmp(*op, a, b)
            }
            SNode::Bin(op, a, b) => {
                let (a, b) = (k(a)?, k(b)?);
                pool.bin(*op, a, b)
            }
            SNode::Neg(a) => {
                let a = k(a)?;
                pool.neg(a)
            }
            SNode::BNot(a) => {
                let a = k(a)?;
                pool.bnot(a)
            }
            SNode::ZExt(a, w) => {
                let a = k(a)?;
                pool.rebuild(&Node::ZExt(a, *w), &[a])
            }
            SNode::SExt(a, w) => {
                let a = k(a)?;
                pool.rebuild(&Node::SExt(a, *w), &[a])
            }
            SNode::Trunc(a, w) => {
                let a = k(a)?;
                pool.rebuild(&Node::Trunc(a, *w), &[a])
            }
            SNode::Fp(op, a, b) => {
                let (a, b) = (k(a)?, k(b)?);
                pool.fp(*op, a, b)
            }
        };
        terms.push(t);
    }
    let ps = *terms.last()?;
    let mut rw = RwTable::default();
    for a in &s.accesses {
        let thread = thread_of_path(names, &a.thread);
        let loc = import_loc(prog, ids, names, &a.loc)?;
        let role = role_of_code(a.role)?;
        let entry: RwEntry = (
            thread,
            Access {
                loc,
                write: a.write,
                role,
            },
        );
        let after = a.after.iter().map(|p| thread_of_path(names, p)).collect();
        rw.insert(
            entry,
            Recorded {
                after,
                covered: a.covered,
            },
        );
    }
    let mut sleep = Vec::with_capacity(s.sleep.len());
    for sl in &s.sleep {
        let thread = thread_of_path(names, &sl.thread);
        let mut foot = Vec::with_capacity(sl.event.len());
        for e in &sl.event {
            foot.push(Access {
                loc: import_loc(prog, ids, names, &e.loc)?,
                write: e.write,
                role: role_of_code(e.role)?,
            });
        }
        sleep.push((thread, foot));
    }
    Some((ps, rw, sleep_key(sleep)))
}

fn import_var(
    prog: &Program,
    ids: &StableIds,
    names: &mut Names,
    st: &State,
    by_key: &rustc_hash::FxHashMap<ThreadKey, usize>,
    v: &SVar,
) -> Option<Var> {
    Some(match v {
        SVar::Fut { thread, index } => Var::Fut {
            thread: thread_of_path(names, thread),
            index: *index,
        },
        SVar::Reg { thread, depth, reg } => {
            let key = thread_of_path(names, thread);
            let reg = match reg {
                SReg::Ret => RegId(0),
                named => {
                    let th = &st.threads[*by_key.get(&key)?];
                    let f = th.frames.get(*depth as usize)?.func;
                    *ids.by_reg[f.index()].get(named)?
                }
            };
            Var::Reg {
                thread: key,
                depth: *depth,
                reg,
            }
        }
        SVar::Cell { obj, offset } => Var::Cell {
            obj: import_obj(prog, ids, names, obj)?,
            offset: *offset,
        },
    })
}

fn import_obj(prog: &Program, ids: &StableIds, names: &mut Names, o: &SObj) -> Option<ObjInst> {
    let obj = |owner: &str, name: &str, rank: u32| {
        ids.by_object
            .get(&(owner.to_string(), name.to_string(), rank))
            .copied()
    };
    let name = match o {
        SObj::Static { name, rank } => ObjName::Static(obj("", name, *rank)?),
        SObj::ThreadLocal { thread, name, rank } => ObjName::ThreadLocal {
            thread: thread_of_path(names, thread),
            obj: obj("", name, *rank)?,
        },
        SObj::Slot {
            thread,
            depth,
            func,
            name,
            rank,
        } => ObjName::Slot {
            thread: thread_of_path(names, thread),
            depth: *depth,
            obj: obj(func, name, *rank)?,
        },
        SObj::Heap { thread, site, seq } => ObjName::Heap {
            thread: thread_of_path(names, thread),
            site: *ids.by_fp.get(site)?,
            seq: *seq,
        },
        SObj::Argv(i) => ObjName::Argv(*i),
        SObj::Dead => ObjName::Dead,
    };
    let _ = prog;
    Some(names.object(name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::lower;
    use analysis::diff::diff_programs;
    use std::collections::BTreeSet;

    const OLD: &str = "int g, h;\nvoid f(void) {\n  g = 1;\n}\nint main(void) {\n  h = 2;\n  f();\n  h = 3;\n  return 0;\n}\n";

    /// The dirty flag of the position of the first statement on `line`.
    fn dirty_at(p: &Program, c: &Changes, line: u32) -> bool {
        for f in &p.functions {
            for (bi, b) in f.blocks.iter().enumerate() {
                for (i, s) in b.stmts.iter().enumerate() {
                    if s.span.line == line {
                        return c.dirty[f.id.index()][bi][i];
                    }
                }
            }
        }
        panic!("no statement on line {line}")
    }

    #[test]
    fn a_change_in_a_callee_dirties_what_calls_it_not_what_follows() {
        let old = lower("c-old.c", OLD);
        let new = lower("c-new.c", &OLD.replace("g = 1;", "g = 5;"));
        let diff = diff_programs(&old, &new);
        let c = Changes::between(&old, &new, &diff, None);
        assert_eq!(c.changed, 1);
        assert!(c.blocked.is_none());
        // Before the call of f the change is still ahead; after it, not.
        assert!(dirty_at(&new, &c, 6));
        assert!(dirty_at(&new, &c, 7));
        assert!(!dirty_at(&new, &c, 8));
    }

    #[test]
    fn a_deletion_dirties_its_whole_function_and_a_changed_object_blocks_reuse() {
        let old = lower("d-old.c", OLD);
        let new = lower("d-new.c", &OLD.replace("  h = 3;\n", ""));
        let c = Changes::between(&old, &new, &diff_programs(&old, &new), None);
        assert!(dirty_at(&new, &c, 6));
        let new = lower("o-new.c", &OLD.replace("int g, h;", "int g, h = 4;"));
        let c = Changes::between(&old, &new, &diff_programs(&old, &new), None);
        assert!(c.blocked.as_deref().is_some_and(|b| b.contains('h')));
    }

    #[test]
    fn a_change_outside_both_slices_dirties_nothing_unless_it_calls_or_syncs() {
        let old = lower("h-old.c", OLD);
        let new = lower("h-new.c", &OLD.replace("h = 3;", "h = 4;"));
        let diff = diff_programs(&old, &new);
        let changed_line = |p: &Program, line: u32| -> BTreeSet<StmtId> {
            p.functions
                .iter()
                .flat_map(|f| &f.blocks)
                .flat_map(|b| &b.stmts)
                .filter(|s| s.span.line == line)
                .map(|s| s.id)
                .collect()
        };
        let none = BTreeSet::new();
        let outside = Slices {
            old: &none,
            new: &none,
        };
        let c = Changes::between(&old, &new, &diff, Some(outside));
        assert!(!dirty_at(&new, &c, 6), "a harmless store dirties nothing");
        assert!(c.harmless >= 2, "the new store and the old one: {c:?}");
        // In the new slice, or in the old one: harmful.
        let new_store = changed_line(&new, 8);
        let inside_new = Slices {
            old: &none,
            new: &new_store,
        };
        let c = Changes::between(&old, &new, &diff, Some(inside_new));
        assert!(dirty_at(&new, &c, 6));
        let old_store = changed_line(&old, 8);
        let inside_old = Slices {
            old: &old_store,
            new: &none,
        };
        let c = Changes::between(&old, &new, &diff, Some(inside_old));
        assert!(dirty_at(&new, &c, 6));
        // A deleted call is never harmless, slice or not.
        let new = lower("h-call.c", &OLD.replace("  f();\n", ""));
        let diff = diff_programs(&old, &new);
        let c = Changes::between(&old, &new, &diff, Some(outside));
        assert!(dirty_at(&new, &c, 6));
    }

    #[test]
    fn fingerprints_are_trusted_only_where_the_diff_maps_them() {
        let old = lower("t-old.c", OLD);
        let new = lower("t-new.c", &OLD.replace("h = 2;", "h = 7;"));
        let diff = diff_programs(&old, &new);
        let trusted = trusted_fingerprints(&old, &new, &diff);
        let ids = StableIds::new(&new, Some(&trusted));
        let line_fp = |line: u32| {
            new.functions
                .iter()
                .flat_map(|f| &f.blocks)
                .flat_map(|b| &b.stmts)
                .find(|s| s.span.line == line)
                .map(|s| ids.fp[s.id.index()])
                .unwrap()
        };
        // The changed store and its neighbours' fingerprints changed; line 8 did not.
        assert_eq!(line_fp(6), None);
        assert!(line_fp(8).is_some());
        assert!(line_fp(3).is_some());
    }
    fn exported(prog: &Program, carry: Carry) -> crate::symbolic::SearchOutcome {
        let config = crate::symbolic::Config {
            carry: Some(std::sync::Arc::new(carry)),
            ..Default::default()
        };
        crate::symbolic::verify(prog, &config).expect("the search runs")
    }

    #[test]
    fn the_export_stops_past_its_limit_and_says_how_many_summaries_there_were() {
        let prog = lower("limit.c", crate::test_support::RACY);
        let all = exported(&prog, Carry::export_all());
        assert!(!all.carried.is_empty(), "dpor+ag summarises this program");
        assert_eq!(all.carried_over_limit, None);
        let total: usize = all.carried.iter().map(stored_size).sum();
        let under = exported(
            &prog,
            Carry {
                export_limit: Some(total),
                ..Carry::export_all()
            },
        );
        assert_eq!(
            under.carried.len(),
            all.carried.len(),
            "a limit met exactly"
        );
        let over = exported(
            &prog,
            Carry {
                export_limit: Some(total - 1),
                ..Carry::export_all()
            },
        );
        assert!(over.carried.is_empty());
        let had = over.carried_over_limit.expect("the export says it stopped");
        assert!(had >= all.carried.len(), "{had} < {}", all.carried.len());
        assert_eq!(
            over.verdict, all.verdict,
            "the limit never changes the verdict"
        );
    }

    #[test]
    fn a_summary_s_stored_size_is_its_encoded_text_and_key() {
        let prog = lower("size.c", crate::test_support::RACY);
        let all = exported(&prog, Carry::export_all());
        for s in &all.carried {
            assert_eq!(stored_size(s), Carried::encode(s).len() + 8 * s.key.len());
        }
    }
}
