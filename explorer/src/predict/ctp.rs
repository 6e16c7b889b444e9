//! The concurrent trace program (Def. 1 of the paper) in concurrent SSA (Def. 2), built
//! from the statements one observed run executed, with its terms in Z3.
//!
//! Each thread keeps the control path it took: a branch becomes `assume(c)` of the
//! observed outcome (a conjunct of the path condition `g`), locals get one SSA name per
//! definition (a Z3 term), every shared read is a fresh name whose value the
//! π-function chooses among the writes ([`super::encode`]). Addresses stay as observed,
//! as in the paper's trace programs: pointer values are concrete, and an integer that
//! flows into an address or a pointer computation is pinned to its observed value.
//! A lock is a shared cell read as 0 (the acquire's assume) and written 1; an unlock
//! writes 0. A branch whose other side leads straight to an assertion failure or
//! `reach_error` is a property: violated when its path condition holds and the
//! condition goes the other way.

use crate::concrete::{Execution, RecordedValue, StmtNote, StmtRecord, UninitPolicy};
use analysis::ir::{
    BinOp, BlockId, Callee, DataModel, Failure, FuncId, Function, Operand, Program, RegId, Rvalue,
    Scalar, Span, StmtId, StmtKind, StmtRef, SyncOp, TermKind, UnOp,
};
use rustc_hash::FxHashMap;
use z3::ast::{Bool, BV};

/// A shared memory cell (or mutex) as the run numbered it: object, generation, offset.
pub type Cell = (u32, u32, i64);

/// A value: a term for integers, the observed value alone for pointers.
#[derive(Clone, Debug)]
pub struct Sym {
    pub term: Option<BV>,
    pub observed: RecordedValue,
}

/// What a visible event does to shared state.
#[derive(Clone, Debug)]
pub enum Access {
    None,
    Read {
        cell: Cell,
        value: Sym,
    },
    Write {
        cell: Cell,
        value: Sym,
    },
    /// A lock (or successful trylock): reads the mutex as free (`read`), writes held.
    Lock {
        cell: Cell,
        read: BV,
    },
    Unlock {
        cell: Cell,
    },
    /// A failed trylock: reads the mutex as held.
    TryFail {
        cell: Cell,
        read: BV,
    },
}

/// One visible event (one scheduling step) of the trace program.
#[derive(Clone, Debug)]
pub struct Event {
    pub thread: u32,
    pub stmt: StmtId,
    /// Its step in the observed run.
    pub step: u64,
    pub access: Access,
    /// `g(e)`: the path condition under which the event runs (its own assume included).
    pub guard: Bool,
    /// The thread this event created, or joins.
    pub creates: Option<u32>,
    pub joins: Option<u32>,
    pub atomic_begin: bool,
    pub atomic_end: bool,
}

/// A branch that leads to a failure on its other side.
#[derive(Clone, Debug)]
pub struct Property {
    pub thread: u32,
    /// The failure's terminator: where the violation is reported.
    pub span: Span,
    pub failure: Failure,
    /// Path condition and flipped branch condition.
    pub violated: Bool,
    /// The event (index into `events`) during whose step the failure happens: the
    /// thread's last event before the branch, else the event that created the thread;
    /// `None` before the first step.
    pub step_of: Option<usize>,
}

/// An input the thread reads (a fresh variable).
#[derive(Clone, Debug)]
pub struct Input {
    pub thread: u32,
    pub ty: Scalar,
    pub var: BV,
    /// The event during whose step it is read (as for [`Property::step_of`]).
    pub step_of: Option<usize>,
}

/// The concurrent trace program.
#[derive(Debug, Default)]
pub struct Ctp {
    pub events: Vec<Event>,
    /// Events by thread, in program order.
    pub by_thread: Vec<Vec<usize>>,
    pub properties: Vec<Property>,
    pub inputs: Vec<Input>,
    /// Integers pinned to their observed values (addresses stay as observed).
    pub pins: Vec<Bool>,
    /// The value of each cell before the run first touched it (in the run's order: what
    /// its first read saw, or what its first write overwrote); a cell not listed held 0.
    pub initial: FxHashMap<Cell, RecordedValue>,
    /// The observed run reached a failure itself.
    pub observed_failure: Option<(Span, Failure)>,
    /// The create event of each created thread (by thread number).
    pub created_by: FxHashMap<u32, usize>,
}

/// Why a trace cannot be turned into a trace program.
#[derive(Debug, thiserror::Error)]
pub enum CtpError {
    #[error("{at}: predict does not model {what}")]
    Unsupported { at: String, what: String },
}

struct Frame<'p> {
    func: &'p Function,
    regs: FxHashMap<RegId, Sym>,
    ret_dst: Option<RegId>,
}

struct ThreadWalk<'p> {
    thread: u32,
    frames: Vec<Frame<'p>>,
    guard: Bool,
    last_event: Option<usize>,
    names: u32,
}

/// Builds the trace program of `execution` (recorded with `record_statements`).
pub fn build(
    program: &Program,
    execution: &Execution,
    uninit: UninitPolicy,
) -> Result<Ctp, CtpError> {
    let mut ctp = Ctp {
        initial: initial_values(execution),
        ..Ctp::default()
    };
    let mut per_thread: Vec<Vec<&StmtRecord>> = Vec::new();
    for r in &execution.statements {
        let t = r.thread.index();
        if per_thread.len() <= t {
            per_thread.resize(t + 1, Vec::new());
        }
        per_thread[t].push(r);
    }
    // Threads are walked in creation order, so a create event exists before the
    // created thread's inputs and properties refer to it.
    ctp.by_thread = vec![Vec::new(); per_thread.len()];
    for (t, records) in per_thread.iter().enumerate() {
        let mut walk = ThreadWalk {
            thread: t as u32,
            frames: Vec::new(),
            guard: Bool::from_bool(true),
            last_event: ctp.created_by.get(&(t as u32)).copied(),
            names: 0,
        };
        let start = program.stmt_locs[records.first().map_or(0, |r| r.stmt.index())].func;
        walk.frames.push(Frame {
            func: program.function(start),
            regs: FxHashMap::default(),
            ret_dst: None,
        });
        for r in records {
            if walk.frames.is_empty() && !matches!(r.note, StmtNote::ThreadEnd) {
                break;
            }
            step(program, &mut ctp, &mut walk, r, uninit)?;
        }
    }
    Ok(ctp)
}

/// The value of every shared cell before the run first touched it. Threads are walked
/// one after another, so only the run's own order knows which access came first.
fn initial_values(execution: &Execution) -> FxHashMap<Cell, RecordedValue> {
    let mut initial = FxHashMap::default();
    for r in &execution.statements {
        match &r.note {
            StmtNote::Load { addr, value, .. } => {
                initial.entry(cell_of(*addr)).or_insert(*value);
            }
            StmtNote::Store { addr, old, .. } => {
                let before = old.unwrap_or(RecordedValue::Int(0));
                initial.entry(cell_of(*addr)).or_insert(before);
            }
            _ => {}
        }
    }
    initial
}

fn unsupported(program: &Program, stmt: StmtId, what: &str) -> CtpError {
    CtpError::Unsupported {
        at: program.location(program.stmt(stmt).span()),
        what: what.to_string(),
    }
}

fn width(ty: Scalar, dm: DataModel) -> u32 {
    u32::from(ty.bits(dm))
}

fn bits_of(v: RecordedValue) -> u64 {
    match v {
        RecordedValue::Int(b) => b,
        _ => 0,
    }
}

fn konst(bits: u64, w: u32) -> BV {
    BV::from_u64(bits, w)
}

/// Resizes `t` to `w` bits (zero extension or truncation).
fn resize(t: &BV, w: u32, signed: bool) -> BV {
    let have = t.get_size();
    if have == w {
        t.clone()
    } else if have > w {
        t.extract(w - 1, 0)
    } else if signed {
        t.sign_ext(w - have)
    } else {
        t.zero_ext(w - have)
    }
}

impl<'p> ThreadWalk<'p> {
    fn frame(&mut self) -> &mut Frame<'p> {
        self.frames
            .last_mut()
            .expect("a walking thread has a frame")
    }

    fn fresh(&mut self, prefix: &str, w: u32) -> BV {
        self.names += 1;
        BV::new_const(format!("t{}_{prefix}{}", self.thread, self.names), w)
    }

    fn operand(&self, op: &Operand, dm: DataModel) -> Sym {
        let frame = self.frames.last().expect("a walking thread has a frame");
        match op {
            Operand::Reg(r) => frame.regs.get(r).cloned().unwrap_or_else(|| {
                let ty = frame.func.reg(*r).ty;
                int_or_pointer(ty, RecordedValue::Int(0), dm)
            }),
            Operand::Int { bits, ty } => int_or_pointer(*ty, RecordedValue::Int(*bits), dm),
            Operand::Null => Sym {
                term: None,
                observed: RecordedValue::Int(0),
            },
            // Addresses and functions are concrete; their observed value is not needed
            // (only integers are compared with the run).
            Operand::Addr { .. } | Operand::Func(_) => Sym {
                term: None,
                observed: RecordedValue::Int(0),
            },
        }
    }

    fn set(&mut self, dst: RegId, value: Sym) {
        self.frame().regs.insert(dst, value);
    }
}

fn int_or_pointer(ty: Scalar, observed: RecordedValue, dm: DataModel) -> Sym {
    match ty {
        Scalar::Ptr => Sym {
            term: None,
            observed,
        },
        Scalar::Int { .. } | Scalar::Float { .. } => Sym {
            term: Some(konst(bits_of(observed), width(ty, dm))),
            observed,
        },
    }
}

/// `value` pinned to what the run observed (for values that feed addresses).
fn pin(ctp: &mut Ctp, value: &Sym) {
    if let (Some(t), RecordedValue::Int(bits)) = (&value.term, value.observed) {
        let w = t.get_size();
        ctp.pins.push(t.eq(konst(bits, w)));
    }
}

fn observed_value(note: &StmtNote) -> RecordedValue {
    match note {
        StmtNote::Value(v) => *v,
        _ => RecordedValue::Int(0),
    }
}

fn step<'p>(
    program: &'p Program,
    ctp: &mut Ctp,
    walk: &mut ThreadWalk<'p>,
    r: &StmtRecord,
    uninit: UninitPolicy,
) -> Result<(), CtpError> {
    let dm = program.data_model;
    if matches!(r.note, StmtNote::ThreadEnd) {
        // The end event names the thread's last terminator, which already ran.
        push_event(ctp, walk, r, Access::None, None);
        return Ok(());
    }
    match program.stmt(r.stmt) {
        StmtRef::Term(term) => match &term.kind {
            TermKind::Branch {
                cond,
                then_bb,
                else_bb,
            } => {
                let StmtNote::Branch(taken) = r.note else {
                    return Ok(());
                };
                let c = walk.operand(cond, dm);
                let Some(t) = c.term else { return Ok(()) };
                let nonzero = t.eq(konst(0, t.get_size())).not();
                let holds = if taken {
                    nonzero.clone()
                } else {
                    nonzero.not()
                };
                let other = if taken { *else_bb } else { *then_bb };
                if let Some((span, failure)) = leads_to_failure(walk.frame().func, other) {
                    ctp.properties.push(Property {
                        thread: walk.thread,
                        span,
                        failure,
                        violated: Bool::and(&[&walk.guard, &holds.not()]),
                        step_of: walk.last_event,
                    });
                }
                walk.guard = Bool::and(&[&walk.guard, &holds]);
            }
            TermKind::Return(value) => {
                let v = value.as_ref().map(|v| walk.operand(v, dm));
                let frame = walk.frames.pop().expect("a returning thread has a frame");
                if let (Some(dst), false) = (frame.ret_dst, walk.frames.is_empty()) {
                    let ty = walk.frame().func.reg(dst).ty;
                    let v = v.unwrap_or_else(|| int_or_pointer(ty, RecordedValue::Int(0), dm));
                    let v = fit(v, ty, dm);
                    walk.set(dst, v);
                }
            }
            TermKind::ThreadExit(_) => walk.frames.clear(),
            TermKind::Error(failure) => {
                ctp.observed_failure = Some((term.span, failure.clone()));
                walk.frames.clear();
            }
            TermKind::Abort | TermKind::Exit(_) | TermKind::Unreachable => walk.frames.clear(),
            TermKind::Goto(_) => {}
        },
        StmtRef::Stmt(stmt) => match (&stmt.kind, &r.note) {
            (StmtKind::Load { dst, ty, .. }, StmtNote::Load { addr, value, .. }) => {
                let cell = cell_of(*addr);
                let value = match ty {
                    Scalar::Ptr => Sym {
                        term: None,
                        observed: *value,
                    },
                    Scalar::Int { .. } | Scalar::Float { .. } => Sym {
                        term: Some(walk.fresh("pi", width(*ty, dm))),
                        observed: *value,
                    },
                };
                walk.set(*dst, value.clone());
                push_event(ctp, walk, r, Access::Read { cell, value }, None);
            }
            (
                StmtKind::Store { value, ty, .. },
                StmtNote::Store {
                    addr, value: obs, ..
                },
            ) => {
                let cell = cell_of(*addr);
                let mut v = walk.operand(value, dm);
                v.observed = *obs;
                let v = fit(v, *ty, dm);
                push_event(ctp, walk, r, Access::Write { cell, value: v }, None);
            }
            (StmtKind::Sync { dst, op }, StmtNote::Sync { addr, other, .. }) => {
                sync_event(program, ctp, walk, r, op, *addr, *other)?;
                if let Some(dst) = dst {
                    let ty = walk.frame().func.reg(*dst).ty;
                    let result = match (op, other) {
                        (SyncOp::MutexTryLock { .. }, Some(v)) => *v,
                        _ => RecordedValue::Int(0),
                    };
                    walk.set(*dst, int_or_pointer(ty, result, dm));
                }
            }
            (StmtKind::Assign { dst, value }, note) => {
                let ty = walk.frame().func.reg(*dst).ty;
                let v = match value {
                    Rvalue::Uninit(u) => match uninit {
                        UninitPolicy::Zero => int_or_pointer(ty, RecordedValue::Int(0), dm),
                        UninitPolicy::Nondet => input(ctp, walk, *u, observed_value(note), dm),
                    },
                    _ => rvalue(ctp, walk, value, ty, observed_value(note), dm),
                };
                walk.set(*dst, v);
            }
            (StmtKind::Nondet { dst, ty }, note) => {
                let v = input(ctp, walk, *ty, observed_value(note), dm);
                walk.set(*dst, v);
            }
            (
                StmtKind::Havoc {
                    dst: Some(dst), ty, ..
                },
                note,
            ) => {
                let v = input(ctp, walk, *ty, observed_value(note), dm);
                walk.set(*dst, v);
            }
            (StmtKind::Call { dst, callee, args }, note) => {
                let values: Vec<Sym> = args.iter().map(|a| walk.operand(a, dm)).collect();
                if let Callee::Indirect(op) = callee {
                    let target = walk.operand(op, dm);
                    pin(ctp, &target);
                }
                match note {
                    StmtNote::Call(f) => {
                        let func = program.function(FuncId(*f));
                        let mut regs = FxHashMap::default();
                        for (&p, v) in func.params.iter().zip(values) {
                            regs.insert(p, fit(v, func.reg(p).ty, dm));
                        }
                        walk.frames.push(Frame {
                            func,
                            regs,
                            ret_dst: *dst,
                        });
                    }
                    StmtNote::Value(obs) => {
                        if let Some(dst) = dst {
                            let ty = walk.frame().func.reg(*dst).ty;
                            let v = input(ctp, walk, ty, *obs, dm);
                            walk.set(*dst, v);
                        }
                    }
                    _ => {}
                }
            }
            (StmtKind::Assume { cond }, _) => {
                let c = walk.operand(cond, dm);
                if let Some(t) = c.term {
                    let nonzero = t.eq(konst(0, t.get_size())).not();
                    walk.guard = Bool::and(&[&walk.guard, &nonzero]);
                }
            }
            (StmtKind::Alloc { dst, size, .. }, note) => {
                let s = walk.operand(size, dm);
                pin(ctp, &s);
                walk.set(
                    *dst,
                    Sym {
                        term: None,
                        observed: observed_value(note),
                    },
                );
            }
            (StmtKind::Print { dst, args, .. }, note) => {
                // The printed text depends on the values: keep them as observed.
                for a in args {
                    let a = walk.operand(a, dm);
                    pin(ctp, &a);
                }
                if let Some(dst) = dst {
                    let ty = walk.frame().func.reg(*dst).ty;
                    walk.set(*dst, int_or_pointer(ty, observed_value(note), dm));
                }
            }
            (StmtKind::Free { ptr }, _) => {
                let p = walk.operand(ptr, dm);
                pin(ctp, &p);
            }
            (_, StmtNote::Reacquire) => {
                return Err(unsupported(program, r.stmt, "condition variables"));
            }
            _ => {}
        },
    }
    Ok(())
}

/// An input of type `ty`: a fresh variable (a pointer input stays as observed).
fn input(
    ctp: &mut Ctp,
    walk: &mut ThreadWalk,
    ty: Scalar,
    observed: RecordedValue,
    dm: DataModel,
) -> Sym {
    if ty == Scalar::Ptr {
        return Sym {
            term: None,
            observed,
        };
    }
    let var = walk.fresh("in", width(ty, dm));
    ctp.inputs.push(Input {
        thread: walk.thread,
        ty,
        var: var.clone(),
        step_of: walk.last_event,
    });
    Sym {
        term: Some(var),
        observed,
    }
}

/// `v` as a value of `ty` (integers resized, truncating or extending unsigned).
fn fit(v: Sym, ty: Scalar, dm: DataModel) -> Sym {
    match (ty, v.term) {
        (Scalar::Int { .. } | Scalar::Float { .. }, Some(t)) => Sym {
            term: Some(resize(&t, width(ty, dm), false)),
            observed: v.observed,
        },
        (Scalar::Int { .. } | Scalar::Float { .. }, None) => int_or_pointer(ty, v.observed, dm),
        (Scalar::Ptr, _) => Sym {
            term: None,
            observed: v.observed,
        },
    }
}

fn cell_of(addr: RecordedValue) -> Cell {
    match addr {
        RecordedValue::Ptr {
            object,
            generation,
            offset,
        } => (object, generation, offset),
        _ => (u32::MAX, 0, 0),
    }
}

fn push_event(
    ctp: &mut Ctp,
    walk: &mut ThreadWalk,
    r: &StmtRecord,
    access: Access,
    own: Option<Bool>,
) -> usize {
    if let Some(own) = own {
        walk.guard = Bool::and(&[&walk.guard, &own]);
    }
    let id = ctp.events.len();
    ctp.events.push(Event {
        thread: walk.thread,
        stmt: r.stmt,
        step: r.step,
        access,
        guard: walk.guard.clone(),
        creates: None,
        joins: None,
        atomic_begin: false,
        atomic_end: false,
    });
    ctp.by_thread[walk.thread as usize].push(id);
    walk.last_event = Some(id);
    id
}

fn sync_event(
    program: &Program,
    ctp: &mut Ctp,
    walk: &mut ThreadWalk,
    r: &StmtRecord,
    op: &SyncOp,
    addr: Option<RecordedValue>,
    other: Option<RecordedValue>,
) -> Result<(), CtpError> {
    let cell = addr.map(cell_of).unwrap_or((u32::MAX, 0, 0));
    let other_thread = match other {
        Some(RecordedValue::Int(t)) => Some(t as u32),
        _ => None,
    };
    match op {
        SyncOp::MutexLock { .. } => {
            let read = walk.fresh("lock", 8);
            let free = read.eq(konst(0, 8));
            push_event(ctp, walk, r, Access::Lock { cell, read }, Some(free));
        }
        SyncOp::MutexTryLock { .. } => {
            let read = walk.fresh("lock", 8);
            if other == Some(RecordedValue::Int(0)) {
                let free = read.eq(konst(0, 8));
                push_event(ctp, walk, r, Access::Lock { cell, read }, Some(free));
            } else {
                let held = read.eq(konst(0, 8)).not();
                push_event(ctp, walk, r, Access::TryFail { cell, read }, Some(held));
            }
        }
        SyncOp::MutexUnlock { .. } => {
            push_event(ctp, walk, r, Access::Unlock { cell }, None);
        }
        SyncOp::ThreadCreate { .. } => {
            let id = push_event(ctp, walk, r, Access::None, None);
            ctp.events[id].creates = other_thread;
            if let Some(child) = other_thread {
                ctp.created_by.insert(child, id);
            }
        }
        SyncOp::ThreadJoin { .. } => {
            let id = push_event(ctp, walk, r, Access::None, None);
            ctp.events[id].joins = other_thread;
        }
        SyncOp::AtomicBegin => {
            let id = push_event(ctp, walk, r, Access::None, None);
            ctp.events[id].atomic_begin = true;
        }
        SyncOp::AtomicEnd => {
            let id = push_event(ctp, walk, r, Access::None, None);
            ctp.events[id].atomic_end = true;
        }
        SyncOp::MutexInit { .. }
        | SyncOp::MutexDestroy { .. }
        | SyncOp::CondInit { .. }
        | SyncOp::CondDestroy { .. } => {
            push_event(ctp, walk, r, Access::None, None);
        }
        SyncOp::CondWait { .. } | SyncOp::CondSignal { .. } | SyncOp::CondBroadcast { .. } => {
            return Err(unsupported(program, r.stmt, "condition variables"));
        }
    }
    Ok(())
}

/// Does the rvalue compute on or convert from or to a float?
pub(crate) fn touches_float(rv: &Rvalue) -> bool {
    match rv {
        Rvalue::Unary { ty, .. } | Rvalue::Binary { ty, .. } => ty.is_float(),
        Rvalue::Cast { from, to, .. } => from.is_float() || to.is_float(),
        _ => false,
    }
}

/// An rvalue: integer arithmetic symbolically; anything touching a pointer as observed,
/// with its integer operands pinned.
fn rvalue(
    ctp: &mut Ctp,
    walk: &mut ThreadWalk,
    rv: &Rvalue,
    dst_ty: Scalar,
    observed: RecordedValue,
    dm: DataModel,
) -> Sym {
    let operands: Vec<Sym> = rv
        .operands()
        .into_iter()
        .map(|o| walk.operand(o, dm))
        .collect();
    // Float arithmetic is not encoded: its operands are pinned to what the run observed.
    let symbolic = dst_ty != Scalar::Ptr
        && !touches_float(rv)
        && operands.iter().all(|o| o.term.is_some())
        && !matches!(rv, Rvalue::PtrAdd { .. } | Rvalue::PtrDiff { .. })
        && !matches!(
            rv,
            Rvalue::Cast {
                from: Scalar::Ptr,
                ..
            } | Rvalue::Binary {
                ty: Scalar::Ptr,
                ..
            }
        );
    if !symbolic {
        for o in &operands {
            pin(ctp, o);
        }
        return int_or_pointer(dst_ty, observed, dm);
    }
    let w = width(dst_ty, dm);
    let t = |i: usize| {
        operands[i]
            .term
            .clone()
            .expect("symbolic operands have terms")
    };
    let term = match rv {
        Rvalue::Use(_) => resize(&t(0), w, false),
        Rvalue::Unary { op, .. } => match op {
            UnOp::Neg => resize(&t(0).bvneg(), w, false),
            UnOp::Not => resize(&t(0).bvnot(), w, false),
            // Float-only operations: `touches_float` pins them before this point.
            UnOp::Abs | UnOp::Sqrt => konst(bits_of(observed), w),
            UnOp::LogicalNot => {
                let z = t(0).eq(konst(0, t(0).get_size()));
                z.ite(&konst(1, w), &konst(0, w))
            }
        },
        Rvalue::Binary { op, ty, .. } => binary(*op, *ty, &t(0), &t(1), w),
        Rvalue::Cast { from, to, .. } => resize(&t(0), width(*to, dm), from.is_signed()),
        _ => konst(bits_of(observed), w),
    };
    Sym {
        term: Some(resize(&term, w, false)),
        observed,
    }
}

fn binary(op: BinOp, ty: Scalar, a: &BV, b: &BV, w: u32) -> BV {
    let signed = ty.is_signed();
    let flag = |c: Bool| c.ite(&konst(1, w), &konst(0, w));
    match op {
        BinOp::Add => a.bvadd(b),
        BinOp::Sub => a.bvsub(b),
        BinOp::Mul => a.bvmul(b),
        BinOp::Div if signed => a.bvsdiv(b),
        BinOp::Div => a.bvudiv(b),
        BinOp::Rem if signed => a.bvsrem(b),
        BinOp::Rem => a.bvurem(b),
        BinOp::Shl => a.bvshl(b),
        BinOp::Shr if signed => a.bvashr(b),
        BinOp::Shr => a.bvlshr(b),
        BinOp::And => a.bvand(b),
        BinOp::Or => a.bvor(b),
        BinOp::Xor => a.bvxor(b),
        BinOp::Eq => flag(a.eq(b)),
        BinOp::Ne => flag(a.eq(b).not()),
        BinOp::Lt if signed => flag(a.bvslt(b)),
        BinOp::Lt => flag(a.bvult(b)),
        BinOp::Le if signed => flag(a.bvsle(b)),
        BinOp::Le => flag(a.bvule(b)),
        BinOp::Gt if signed => flag(a.bvsgt(b)),
        BinOp::Gt => flag(a.bvugt(b)),
        BinOp::Ge if signed => flag(a.bvsge(b)),
        BinOp::Ge => flag(a.bvuge(b)),
    }
}

/// Whether `block` of `func` reaches a failure without another event or branch: the
/// other side of an `assert` or of `if (c) reach_error();`.
fn leads_to_failure(func: &Function, block: BlockId) -> Option<(Span, Failure)> {
    let mut b = block;
    for _ in 0..16 {
        let block = func.blocks.get(b.index())?;
        if !block
            .stmts
            .iter()
            .all(|s| matches!(s.kind, StmtKind::Assign { .. }))
        {
            return None;
        }
        match &block.term.kind {
            TermKind::Error(f) => return Some((block.term.span, f.clone())),
            TermKind::Goto(next) => b = *next,
            _ => return None,
        }
    }
    None
}
