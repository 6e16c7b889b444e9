//! Static reachability of the targets, for the Type A cut of §6.1: a node from which no
//! thread can reach a target (an `Error` terminator checked by this search) is a dead
//! end for the property, and its subtree need not be explored.
//!
//! For every block of every function this computes (as least fixpoints over the call
//! and thread-creation graph):
//! - `reaches`: a target is reachable from the block's start, through its successors,
//!   the functions it calls and the threads it creates;
//! - `returns`: the function can return (to its caller) from the block;
//! - `future`: the shared locations the code from the block may touch, as DPOR
//!   accesses: direct accesses of globals by address, mutexes and conditions by address;
//!   anything reached through a pointer, thread creation or join, or the end of `main`
//!   is [`Loc::All`].
//!
//! The search cuts a node only when no live thread reaches a target *and* the accesses
//! the cut code could make would not require a backtrack point DPOR does not already
//! have (a cut subtree must not hide a race with the path: reversing it could lead
//! elsewhere).

use super::dpor::{sync_objects, Access, Loc, Role, SyncObject};
use super::names::{Names, ObjInst, ObjName};
use analysis::ir::{
    Callee, FuncId, ObjectKind, Operand, Program, RegId, Rvalue, Scalar, StmtKind, SyncOp, TermKind,
};
use std::collections::{BTreeSet, HashMap};

/// A footprint with the thread's own end left symbolic (its key is known only at run
/// time).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Future {
    pub accesses: BTreeSet<Access>,
    /// The code may end the thread (a release of its end for joiners).
    pub ends: bool,
}

impl Future {
    fn all() -> Future {
        let mut f = Future::default();
        f.accesses.insert(Access::write(Loc::All));
        f
    }

    fn is_all(&self) -> bool {
        self.accesses.iter().any(|a| a.loc == Loc::All)
    }

    /// Adds `other`; returns whether anything changed.
    fn absorb(&mut self, other: &Future) -> bool {
        if self.is_all() {
            let changed = other.ends && !self.ends;
            self.ends |= other.ends;
            return changed;
        }
        if other.is_all() {
            *self = Future {
                ends: self.ends || other.ends,
                ..Future::all()
            };
            return true;
        }
        let before = (self.accesses.len(), self.ends);
        self.accesses.extend(other.accesses.iter().copied());
        self.ends |= other.ends;
        before != (self.accesses.len(), self.ends)
    }
}

pub struct Reach {
    pub reaches: Vec<Vec<bool>>,
    pub returns: Vec<Vec<bool>>,
    pub future: Vec<Vec<Future>>,
}

impl Reach {
    /// `is_target(f, b)`: the terminator of block `b` of function `f` is a target.
    pub fn new(
        prog: &Program,
        names: &mut Names,
        is_target: &dyn Fn(usize, usize) -> bool,
    ) -> Reach {
        let n = prog.functions.len();
        let mut reaches: Vec<Vec<bool>> = prog
            .functions
            .iter()
            .map(|f| vec![false; f.blocks.len()])
            .collect();
        let mut returns: Vec<Vec<bool>> = reaches.clone();
        let mut future: Vec<Vec<Future>> = prog
            .functions
            .iter()
            .map(|f| vec![Future::default(); f.blocks.len()])
            .collect();
        let local: Vec<Vec<Future>> = (0..n)
            .map(|f| {
                prog.functions[f]
                    .blocks
                    .iter()
                    .map(|b| block_accesses(prog, names, f, b))
                    .collect()
            })
            .collect();
        let mut changed = true;
        while changed {
            changed = false;
            for f in 0..n {
                let func = &prog.functions[f];
                for (b, block) in func.blocks.iter().enumerate().rev() {
                    let mut r = reaches[f][b] || is_target(f, b);
                    let mut ret = returns[f][b] || matches!(block.term.kind, TermKind::Return(_));
                    let mut fut = future[f][b].clone();
                    fut.absorb(&local[f][b]);
                    if matches!(
                        block.term.kind,
                        TermKind::Return(_) | TermKind::ThreadExit(_)
                    ) {
                        fut.ends = true;
                    }
                    for s in &block.stmts {
                        for g in callees(prog, &s.kind) {
                            match g {
                                Some(g) if prog.function(g).is_defined() => {
                                    r |= reaches[g.index()][0];
                                    fut.absorb(&future[g.index()][0]);
                                }
                                Some(_) => {}
                                None => {
                                    r = true;
                                    fut.absorb(&Future::all());
                                }
                            }
                        }
                    }
                    for succ in block.term.kind.successors() {
                        let s = succ.index();
                        if s < func.blocks.len() {
                            r |= reaches[f][s];
                            ret |= returns[f][s];
                            fut.absorb(&future[f][s].clone());
                        }
                    }
                    if r != reaches[f][b] || ret != returns[f][b] || fut != future[f][b] {
                        reaches[f][b] = r;
                        returns[f][b] = ret;
                        future[f][b] = fut;
                        changed = true;
                    }
                }
            }
        }
        Reach {
            reaches,
            returns,
            future,
        }
    }
}

/// The functions a statement may start (calls and thread creations); `None` for an
/// unknown target.
fn callees(prog: &Program, kind: &StmtKind) -> Vec<Option<FuncId>> {
    match kind {
        StmtKind::Call {
            callee: Callee::Direct(g),
            ..
        } => vec![Some(*g)],
        StmtKind::Call {
            callee: Callee::Indirect(_),
            ..
        } => vec![None],
        StmtKind::Sync {
            op: SyncOp::ThreadCreate { func, .. },
            ..
        } => match func {
            Operand::Func(g) => vec![Some(*g)],
            _ => vec![None],
        },
        _ => {
            let _ = prog;
            vec![]
        }
    }
}

/// The shared accesses of one block's own statements.
fn block_accesses(prog: &Program, names: &mut Names, f: usize, b: &analysis::ir::Block) -> Future {
    let mut fut = Future::default();
    let mut add = |a: Option<Access>| {
        fut.accesses.extend(a);
    };
    for s in &b.stmts {
        match &s.kind {
            StmtKind::Load { addr, .. } => add(mem(prog, names, addr, false)),
            StmtKind::Store { addr, .. } => add(mem(prog, names, addr, true)),
            StmtKind::Free { .. } => add(Some(Access::write(Loc::All))),
            StmtKind::Sync { op, .. } => match op {
                SyncOp::ThreadCreate { .. } | SyncOp::ThreadJoin { .. } => {
                    add(Some(Access::write(Loc::All)))
                }
                _ => {
                    for (o, kind, role) in sync_objects(op) {
                        add(sync(prog, names, o, kind, role));
                    }
                    if let SyncOp::CondWait { mutex, .. } = op {
                        // The re-acquire after the wake-up.
                        add(sync(prog, names, mutex, SyncObject::Mutex, Role::Acquire));
                    }
                }
            },
            _ => {}
        }
    }
    if matches!(b.term.kind, TermKind::Return(_)) && prog.main.index() == f {
        // main's return ends the program, cutting every other thread off.
        add(Some(Access::write(Loc::All)));
    }
    if matches!(
        b.term.kind,
        TermKind::Exit(_) | TermKind::Abort | TermKind::Error(_)
    ) {
        add(Some(Access::write(Loc::All)));
    }
    fut
}

/// The static instance of a global addressed directly, if the operand is one.
fn global(prog: &Program, names: &mut Names, op: &Operand) -> Option<(super::names::ObjInst, u64)> {
    match op {
        Operand::Addr { obj, offset }
            if matches!(
                prog.object(*obj).kind,
                ObjectKind::Global | ObjectKind::StringLiteral
            ) =>
        {
            Some((names.object(ObjName::Static(*obj)), *offset))
        }
        _ => None,
    }
}

fn mem(prog: &Program, names: &mut Names, addr: &Operand, write: bool) -> Option<Access> {
    match (global(prog, names, addr), addr) {
        (Some((o, off)), _) => Some(Access {
            loc: Loc::Mem(o, off),
            write,
            role: super::dpor::Role::Plain,
        }),
        // Thread-locals and the frame's own slots addressed directly are private.
        (None, Operand::Addr { .. }) => None,
        _ => Some(Access::write(Loc::All)),
    }
}

/// A synchronization access to a global mutex or condition (any location, a plain
/// write, when the operand is not one).
fn sync(
    prog: &Program,
    names: &mut Names,
    op: &Operand,
    kind: SyncObject,
    role: Role,
) -> Option<Access> {
    Some(match global(prog, names, op) {
        Some((o, off)) => Access {
            loc: kind.loc(o, off),
            write: true,
            role,
        },
        None => Access::write(Loc::All),
    })
}

/// What an atomic section may touch, as far as it is known before it runs: `fixed`
/// accesses known statically, and `via_params` — loads and stores (`true`: a store)
/// whose address is a pointer parameter of the section's function that no statement of
/// the function assigns, so the frame at the pending `AtomicBegin` already holds the
/// address (`__VERIFIER_atomic_acquire(int *m) { assume(*m == 0); *m = 1; }`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SectionFootprint {
    pub fixed: Vec<Access>,
    pub via_params: Vec<(RegId, bool)>,
    pub via_globals: Vec<ViaGlobal>,
}

/// A load or store of an atomic section through a pointer the section reads from a
/// global (`v[1] = 'X'` with `char *v` global): its address is the global's value
/// when the section starts plus `offset` bytes. That holds when no statement of the
/// section stores to the global directly (checked here), none calls a function (whose
/// stores are not ordered with the load), and no store through a pointer lands in
/// the global (checked where the footprint is computed, from the same values:
/// `Engine::section_footprint`). The load of the global itself is in `fixed`, so a
/// write to it by another thread wakes the section's thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ViaGlobal {
    /// The global holding the pointer, and the pointer's offset in it.
    pub global: ObjInst,
    pub at: u64,
    /// Bytes added to the pointer (constant pointer arithmetic in the section).
    pub offset: i64,
    pub write: bool,
}

/// The accesses of each atomic section that starts at an `AtomicBegin` and whose
/// extent is known statically: every path from the begin reaches the matching end
/// within the function, calls only functions whose whole bodies have known accesses,
/// and touches globals, mutexes and conditions only by address, or memory through an
/// unassigned pointer parameter of its function. A pending `AtomicBegin` then races
/// only with what its section may touch, not with everything. Sections not listed are
/// treated as touching everything.
pub fn atomic_sections(
    prog: &Program,
    names: &mut Names,
) -> rustc_hash::FxHashMap<analysis::ir::StmtId, SectionFootprint> {
    let bodies = function_accesses(prog, names);
    let mut out = rustc_hash::FxHashMap::default();
    for f in &prog.functions {
        let regs = Registers::of(f);
        for (b, block) in f.blocks.iter().enumerate() {
            for (i, s) in block.stmts.iter().enumerate() {
                if matches!(
                    s.kind,
                    StmtKind::Sync {
                        op: SyncOp::AtomicBegin,
                        ..
                    }
                ) {
                    if let Some(acc) = section(prog, names, &bodies, &regs, f, b, i + 1) {
                        out.insert(s.id, acc);
                    }
                }
            }
        }
    }
    out
}

/// How the registers of a function are assigned, for [`section`].
struct Registers {
    /// How many times each register is assigned (a parameter's entry counts once).
    defs: HashMap<RegId, u32>,
    /// The parameters no statement assigns: they hold the caller's value throughout
    /// the body.
    unassigned_params: BTreeSet<RegId>,
}

impl Registers {
    fn of(f: &analysis::ir::Function) -> Registers {
        let mut defs: HashMap<RegId, u32> = HashMap::new();
        let assigned = f
            .blocks
            .iter()
            .flat_map(|b| &b.stmts)
            .filter_map(|s| s.kind.def());
        for d in assigned.chain(f.params.iter().copied()) {
            *defs.entry(d).or_insert(0) += 1;
        }
        let unassigned_params = f
            .params
            .iter()
            .copied()
            .filter(|p| defs.get(p) == Some(&1))
            .collect();
        Registers {
            defs,
            unassigned_params,
        }
    }

    /// Whether `r` is assigned once in the function (so its value at every use is the
    /// one that assignment gives).
    fn single_def(&self, r: RegId) -> bool {
        self.defs.get(&r) == Some(&1)
    }
}

/// One statement's shared accesses; `None` when not known statically.
fn stmt_accesses(prog: &Program, names: &mut Names, kind: &StmtKind) -> Option<Vec<Access>> {
    let known = |a: Option<Access>| -> Option<Vec<Access>> {
        match a {
            Some(a) if a.loc == Loc::All => None,
            Some(a) => Some(vec![a]),
            None => Some(vec![]),
        }
    };
    match kind {
        StmtKind::Load { addr, .. } => known(mem(prog, names, addr, false)),
        StmtKind::Store { addr, .. } => known(mem(prog, names, addr, true)),
        StmtKind::Free { .. } => None,
        StmtKind::Call {
            callee: Callee::Indirect(_),
            ..
        } => None,
        StmtKind::Sync { op, .. } => match op {
            SyncOp::CondWait { .. } | SyncOp::ThreadCreate { .. } | SyncOp::ThreadJoin { .. } => {
                None
            }
            SyncOp::AtomicBegin | SyncOp::AtomicEnd => Some(vec![]),
            _ => {
                let [(o, kind, role)] = sync_objects(op)[..] else {
                    return None;
                };
                known(sync(prog, names, o, kind, role))
            }
        },
        _ => Some(vec![]),
    }
}

/// Every access of each function's body and its callees (least fixpoint); `None` when
/// some access is not known statically, or the body can end the thread.
fn function_accesses(prog: &Program, names: &mut Names) -> Vec<Option<BTreeSet<Access>>> {
    let n = prog.functions.len();
    let mut own: Vec<Option<BTreeSet<Access>>> = Vec::with_capacity(n);
    for f in &prog.functions {
        let mut acc = Some(BTreeSet::new());
        for b in &f.blocks {
            // Ending the run (abort, exit, an error) is decided by what the body reads:
            // those reads are in the footprint. Ending the thread is not modelled.
            if matches!(b.term.kind, TermKind::ThreadExit(_)) {
                acc = None;
            }
            for s in &b.stmts {
                match (stmt_accesses(prog, names, &s.kind), acc.as_mut()) {
                    (Some(v), Some(a)) => a.extend(v),
                    (None, _) => acc = None,
                    _ => {}
                }
            }
        }
        own.push(acc);
    }
    let mut all = own.clone();
    let mut changed = true;
    while changed {
        changed = false;
        for (fi, f) in prog.functions.iter().enumerate() {
            if all[fi].is_none() {
                continue;
            }
            let mut acc = all[fi].clone();
            for s in f.blocks.iter().flat_map(|b| &b.stmts) {
                if let StmtKind::Call {
                    callee: Callee::Direct(g),
                    ..
                } = &s.kind
                {
                    if !prog.function(*g).is_defined() {
                        continue;
                    }
                    match (&all[g.index()], acc.as_mut()) {
                        (Some(v), Some(a)) => a.extend(v.iter().copied()),
                        (None, _) => acc = None,
                        _ => {}
                    }
                }
            }
            if acc != all[fi] {
                all[fi] = acc;
                changed = true;
            }
        }
    }
    all
}

/// The accesses from (`block`, `index`) of `f` to the end of the atomic section;
/// loads and stores through `regs.unassigned_params` are named by register.
fn section(
    prog: &Program,
    names: &mut Names,
    bodies: &[Option<BTreeSet<Access>>],
    regs: &Registers,
    f: &analysis::ir::Function,
    block: usize,
    index: usize,
) -> Option<SectionFootprint> {
    let mut acc = BTreeSet::new();
    let mut via_params = BTreeSet::new();
    let mut via_globals = BTreeSet::new();
    // Registers holding a global's pointer plus a constant (defined once in `f`, so
    // the value at a use is the one derived here).
    let mut derived: HashMap<RegId, (ObjInst, u64, i64)> = HashMap::new();
    let mut stored_globals: BTreeSet<ObjInst> = BTreeSet::new();
    let mut calls = false;
    let mut seen = std::collections::HashSet::new();
    let mut work = vec![(block, index, 1u32)];
    while let Some((b, i, depth)) = work.pop() {
        if !seen.insert((b, i, depth)) || depth > 64 {
            if depth > 64 {
                return None;
            }
            continue;
        }
        let blk = &f.blocks[b];
        let mut depth = depth;
        let mut ended = false;
        for s in &blk.stmts[i.min(blk.stmts.len())..] {
            match &s.kind {
                StmtKind::Sync {
                    op: SyncOp::AtomicBegin,
                    ..
                } => depth += 1,
                StmtKind::Sync {
                    op: SyncOp::AtomicEnd,
                    ..
                } => {
                    depth -= 1;
                    if depth == 0 {
                        ended = true;
                        break;
                    }
                }
                StmtKind::Call {
                    callee: Callee::Direct(g),
                    ..
                } if prog.function(*g).is_defined() => {
                    calls = true;
                    acc.extend(bodies[g.index()].as_ref()?.iter().copied());
                }
                StmtKind::Load {
                    addr: Operand::Reg(r),
                    ..
                } if regs.unassigned_params.contains(r) => {
                    via_params.insert((*r, false));
                }
                StmtKind::Store {
                    addr: Operand::Reg(r),
                    ..
                } if regs.unassigned_params.contains(r) => {
                    via_params.insert((*r, true));
                }
                StmtKind::Load {
                    addr: Operand::Reg(r),
                    ..
                }
                | StmtKind::Store {
                    addr: Operand::Reg(r),
                    ..
                } if derived.contains_key(r) => {
                    let (global, at, offset) = derived[r];
                    let write = matches!(s.kind, StmtKind::Store { .. });
                    via_globals.insert(ViaGlobal {
                        global,
                        at,
                        offset,
                        write,
                    });
                }
                kind => {
                    if let Some((reg, value)) = derived_pointer(prog, names, &derived, kind) {
                        if regs.single_def(reg) {
                            derived.insert(reg, value);
                        }
                    }
                    if let StmtKind::Store { addr, .. } = kind {
                        if let Some((o, _)) = global(prog, names, addr) {
                            stored_globals.insert(o);
                        }
                    }
                    acc.extend(stmt_accesses(prog, names, kind)?)
                }
            }
        }
        if ended {
            continue;
        }
        match &blk.term.kind {
            TermKind::Goto(t) => work.push((t.index(), 0, depth)),
            TermKind::Branch {
                then_bb, else_bb, ..
            } => {
                work.push((then_bb.index(), 0, depth));
                work.push((else_bb.index(), 0, depth));
            }
            TermKind::Abort | TermKind::Exit(_) | TermKind::Error(_) | TermKind::Unreachable => {}
            TermKind::Return(_) | TermKind::ThreadExit(_) => return None,
        }
    }
    if !via_globals.is_empty()
        && (calls
            || via_globals
                .iter()
                .any(|v| stored_globals.contains(&v.global)))
    {
        return None;
    }
    Some(SectionFootprint {
        fixed: acc.into_iter().collect(),
        via_params: via_params.into_iter().collect(),
        via_globals: via_globals.into_iter().collect(),
    })
}

/// The register `kind` defines as a global's pointer plus a constant, if it does: a
/// pointer load from a global, a copy, or constant pointer arithmetic on such a
/// register.
fn derived_pointer(
    prog: &Program,
    names: &mut Names,
    derived: &HashMap<RegId, (ObjInst, u64, i64)>,
    kind: &StmtKind,
) -> Option<(RegId, (ObjInst, u64, i64))> {
    match kind {
        StmtKind::Load {
            dst,
            addr,
            ty: Scalar::Ptr,
        } => {
            let (global, at) = global(prog, names, addr)?;
            Some((*dst, (global, at, 0)))
        }
        StmtKind::Assign {
            dst,
            value: Rvalue::Use(Operand::Reg(r)),
        } => Some((*dst, *derived.get(r)?)),
        StmtKind::Assign {
            dst,
            value:
                Rvalue::PtrAdd {
                    base: Operand::Reg(r),
                    index: Operand::Int { bits, .. },
                    index_ty,
                    scale,
                },
        } => {
            let (global, at, offset) = *derived.get(r)?;
            let Scalar::Int { bits: width, .. } = *index_ty else {
                return None;
            };
            let index = analysis::ir::sign_extend(*bits, width);
            let step = index.checked_mul(i64::try_from(*scale).ok()?)?;
            Some((*dst, (global, at, offset.checked_add(step)?)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use analysis::frontend::parse_preprocessed;
    use analysis::ir::DataModel;

    fn sections_of(src: &str) -> (Program, Vec<SectionFootprint>) {
        let unit = parse_preprocessed(src.to_string(), "t.c").unwrap();
        let prog = analysis::lower::lower(&unit, DataModel::Ilp32).unwrap();
        let mut names = Names::default();
        let mut found: Vec<_> = atomic_sections(&prog, &mut names).into_iter().collect();
        found.sort_by_key(|(id, _)| *id);
        (prog, found.into_iter().map(|(_, f)| f).collect())
    }

    #[test]
    fn an_atomic_acquire_through_its_pointer_parameter_names_the_parameter() {
        let src = "void abort(void);\n\
            void __VERIFIER_atomic_acquire(int *m) { if (*m != 0) abort(); *m = 1; }\n\
            int lock;\n\
            int main(void) { __VERIFIER_atomic_acquire(&lock); return 0; }\n";
        let (prog, sections) = sections_of(src);
        assert_eq!(sections.len(), 1, "{sections:?}");
        let f = prog.function_named("__VERIFIER_atomic_acquire").unwrap();
        let m = f.params[0];
        assert!(sections[0].fixed.is_empty(), "{sections:?}");
        assert_eq!(sections[0].via_params, vec![(m, false), (m, true)]);
    }

    #[test]
    fn a_store_through_a_global_pointer_names_the_global_and_the_offset() {
        let src = "void __VERIFIER_atomic_begin(void); void __VERIFIER_atomic_end(void);\n\
            char *v;\n\
            void w(void) { __VERIFIER_atomic_begin(); v[2] = 1; __VERIFIER_atomic_end(); }\n\
            int main(void) { w(); return 0; }\n";
        let (_, sections) = sections_of(src);
        assert_eq!(sections.len(), 1, "{sections:?}");
        let via = &sections[0].via_globals;
        assert_eq!(via.len(), 1, "{sections:?}");
        assert_eq!((via[0].at, via[0].offset, via[0].write), (0, 2, true));
        // The load of `v` itself is a fixed read.
        assert!(
            sections[0]
                .fixed
                .iter()
                .any(|a| !a.write && matches!(a.loc, Loc::Mem(o, 0) if o == via[0].global)),
            "{sections:?}"
        );
    }

    #[test]
    fn a_section_that_stores_the_global_or_calls_has_no_footprint_through_it() {
        let stores = "void __VERIFIER_atomic_begin(void); void __VERIFIER_atomic_end(void);\n\
            char *v; char b;\n\
            void w(void) { __VERIFIER_atomic_begin(); v[0] = 1; v = &b; __VERIFIER_atomic_end(); }\n\
            int main(void) { w(); return 0; }\n";
        assert!(sections_of(stores).1.is_empty());
        let calls = "void __VERIFIER_atomic_begin(void); void __VERIFIER_atomic_end(void);\n\
            char *v; char b;\n\
            void set(void) { b = 1; }\n\
            void w(void) { __VERIFIER_atomic_begin(); set(); v[0] = 1; __VERIFIER_atomic_end(); }\n\
            int main(void) { w(); return 0; }\n";
        assert!(sections_of(calls).1.is_empty());
    }

    #[test]
    fn a_reassigned_pointer_parameter_is_not_known_before_the_section() {
        let src = "int a[4];\n\
            void __VERIFIER_atomic_bump(int *p) { p = p + 1; *p = 1; }\n\
            int main(void) { __VERIFIER_atomic_bump(a); return 0; }\n";
        let (_, sections) = sections_of(src);
        assert!(sections.is_empty(), "{sections:?}");
    }
}
