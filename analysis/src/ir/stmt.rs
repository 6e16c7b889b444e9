//! Statements and terminators: the operations of the normal form and their operands.

use super::*;
use serde::Serialize;
use std::fmt;

/// A register-only computation (an alpha operation).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Rvalue {
    Use(Operand),
    /// `op x` where `ty` is the operand type (after C's integer promotions).
    Unary {
        op: UnOp,
        ty: Scalar,
        arg: Operand,
    },
    /// `lhs op rhs`, both operands already converted to `ty` (C's usual arithmetic
    /// conversions are explicit [`Rvalue::Cast`]s). `ty` is `Ptr` only for comparisons.
    Binary {
        op: BinOp,
        ty: Scalar,
        lhs: Operand,
        rhs: Operand,
    },
    /// Conversion of `arg` (of type `from`) to `to`: truncation, sign or zero extension,
    /// integer to pointer and back. Conversion to `_Bool` is an explicit `!= 0`.
    Cast {
        from: Scalar,
        to: Scalar,
        arg: Operand,
    },
    /// `base + index * scale` bytes: pointer arithmetic and member/element addresses.
    /// `index` is a signed integer of type `index_ty`.
    PtrAdd {
        base: Operand,
        index: Operand,
        index_ty: Scalar,
        scale: u64,
    },
    /// `(lhs - rhs) / scale` for two pointers into the same object, as a signed integer of
    /// the pointer width.
    PtrDiff {
        lhs: Operand,
        rhs: Operand,
        scale: u64,
    },
    /// The value of a scalar local read before any write. The engines decide what it is
    /// (zero, or an input when uninitialized locals are treated as nondeterministic).
    Uninit(Scalar),
    /// `pthread_self()`: the running thread's id, an unsigned integer of pointer width, the
    /// value `pthread_create` stores in the handle of that thread (0 for `main`).
    ThreadId,
    /// Whether the running thread holds the mutex at this address (1) or not (0): the C
    /// model's recursive and error-checking mutexes ask it. Only the running thread's own
    /// locks and unlocks change the answer, so it is local, like `ThreadId`.
    MutexHeld(Operand),
}

/// What a call calls.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Callee {
    Direct(FuncId),
    /// Through a function pointer held in an operand.
    Indirect(Operand),
}

/// Thread and lock operations (the gamma-II events). Operands that name a mutex, a
/// condition variable or a thread handle are pointers to the object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum SyncOp {
    /// `pthread_create(handle, attr, func, arg)`: stores the new thread's id at `handle`.
    ThreadCreate {
        handle: Operand,
        func: Operand,
        arg: Operand,
    },
    /// `pthread_join(thread, result)`: waits for thread id `thread`; stores its return
    /// value at `result` unless `result` is null.
    ThreadJoin {
        thread: Operand,
        result: Operand,
    },
    MutexInit {
        mutex: Operand,
    },
    MutexLock {
        mutex: Operand,
    },
    MutexUnlock {
        mutex: Operand,
    },
    /// Takes the mutex if free; the statement's `dst` gets 0 on success, `EBUSY` otherwise.
    MutexTryLock {
        mutex: Operand,
    },
    MutexDestroy {
        mutex: Operand,
    },
    CondInit {
        cond: Operand,
    },
    /// Releases `mutex`, waits for a signal on `cond`, re-acquires `mutex`.
    CondWait {
        cond: Operand,
        mutex: Operand,
        /// May return without a signal (POSIX's spurious wake-up, explored unless
        /// `--no-spurious-wakeups`): true for the program's `pthread_cond_wait`; false
        /// for the C library model's own waits, which always sit in a loop re-checking
        /// the state they wait for, so a spurious wake-up there only re-waits.
        spurious: bool,
    },
    CondSignal {
        cond: Operand,
    },
    CondBroadcast {
        cond: Operand,
    },
    CondDestroy {
        cond: Operand,
    },
    /// Start of an atomic section (`__VERIFIER_atomic_begin`, or entry of a function named
    /// `__VERIFIER_atomic_*`); sections nest.
    AtomicBegin,
    AtomicEnd,
}

/// `EBUSY` as glibc defines it: the result of a failed `pthread_mutex_trylock`.
pub const EBUSY: i128 = 16;

/// The operand list of a [`SyncOp`], written once for shared and mutable borrows (match
/// ergonomics give `&Operand` or `&mut Operand` bindings from the one pattern).
macro_rules! sync_operands {
    ($op:expr) => {
        match $op {
            SyncOp::ThreadCreate { handle, func, arg } => vec![handle, func, arg],
            SyncOp::ThreadJoin { thread, result } => vec![thread, result],
            SyncOp::MutexInit { mutex }
            | SyncOp::MutexLock { mutex }
            | SyncOp::MutexUnlock { mutex }
            | SyncOp::MutexTryLock { mutex }
            | SyncOp::MutexDestroy { mutex } => vec![mutex],
            SyncOp::CondInit { cond }
            | SyncOp::CondSignal { cond }
            | SyncOp::CondBroadcast { cond }
            | SyncOp::CondDestroy { cond } => vec![cond],
            SyncOp::CondWait { cond, mutex, .. } => vec![cond, mutex],
            SyncOp::AtomicBegin | SyncOp::AtomicEnd => vec![],
        }
    };
}

impl SyncOp {
    pub fn name(&self) -> &'static str {
        match self {
            SyncOp::ThreadCreate { .. } => "thread_create",
            SyncOp::ThreadJoin { .. } => "thread_join",
            SyncOp::MutexInit { .. } => "mutex_init",
            SyncOp::MutexLock { .. } => "lock",
            SyncOp::MutexUnlock { .. } => "unlock",
            SyncOp::MutexTryLock { .. } => "trylock",
            SyncOp::MutexDestroy { .. } => "mutex_destroy",
            SyncOp::CondInit { .. } => "cond_init",
            SyncOp::CondWait { .. } => "cond_wait",
            SyncOp::CondSignal { .. } => "cond_signal",
            SyncOp::CondBroadcast { .. } => "cond_broadcast",
            SyncOp::CondDestroy { .. } => "cond_destroy",
            SyncOp::AtomicBegin => "atomic_begin",
            SyncOp::AtomicEnd => "atomic_end",
        }
    }

    /// The operands of the operation, in source order.
    pub fn operands(&self) -> Vec<&Operand> {
        sync_operands!(self)
    }

    /// The operands of the operation, in source order, for rewriting passes.
    pub fn operands_mut(&mut self) -> Vec<&mut Operand> {
        sync_operands!(self)
    }
}

/// One piece of a `printf` format string.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum FormatPiece {
    Text(String),
    /// A conversion (`d i u x X o s c p`, or `f F e E g G` of a `double`) applied to the
    /// next argument of type `arg`, with its flags, width and precision; `long` and
    /// `long long` are folded into the argument type.
    Conv {
        conv: char,
        arg: Scalar,
        #[serde(skip_serializing_if = "super::printf::ConvSpec::is_plain")]
        spec: super::printf::ConvSpec,
    },
}

/// The class of an event in the papers' terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum EventClass {
    /// A thread-local computation (alpha).
    Local,
    /// A thread-local branch (beta).
    Branch,
    /// A shared-memory read or write (gamma-I).
    Memory,
    /// A synchronization (gamma-II).
    Sync,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum StmtKind {
    /// `dst = value` (alpha).
    Assign {
        dst: RegId,
        value: Rvalue,
    },
    /// `dst = *addr` reading a scalar of type `ty` (gamma-I read).
    Load {
        dst: RegId,
        addr: Operand,
        ty: Scalar,
    },
    /// `*addr = value` writing a scalar of type `ty` (gamma-I write).
    Store {
        addr: Operand,
        value: Operand,
        ty: Scalar,
    },
    /// A call of a function with a body (or, through a pointer, of any function).
    Call {
        dst: Option<RegId>,
        callee: Callee,
        args: Vec<Operand>,
    },
    /// A synchronization (gamma-II). `dst` receives the C return value (0, or EBUSY).
    Sync {
        dst: Option<RegId>,
        op: SyncOp,
    },
    /// `dst = __VERIFIER_nondet_*()`: an input.
    Nondet {
        dst: RegId,
        ty: Scalar,
    },
    /// `__VERIFIER_assume(cond)`: executions where `cond` is zero are discarded.
    Assume {
        cond: Operand,
    },
    /// `dst = malloc(size)` / `calloc` (`zeroed`): a new heap object, allocated per
    /// execution of this statement (its allocation site).
    Alloc {
        dst: RegId,
        size: Operand,
        zeroed: bool,
    },
    Free {
        ptr: Operand,
    },
    /// `printf(format, args...)`; `dst` gets the number of characters printed.
    Print {
        dst: Option<RegId>,
        format: Vec<FormatPiece>,
        args: Vec<Operand>,
    },
    /// A call of an external function without a body: its result is unconstrained.
    /// The front end warns about each such function once.
    Havoc {
        dst: Option<RegId>,
        ty: Scalar,
        function: String,
    },
}

impl StmtKind {
    pub fn event_class(&self) -> EventClass {
        match self {
            StmtKind::Load { .. } | StmtKind::Store { .. } => EventClass::Memory,
            StmtKind::Sync { .. } => EventClass::Sync,
            _ => EventClass::Local,
        }
    }

    /// The register this statement defines, if any.
    pub fn def(&self) -> Option<RegId> {
        match self {
            StmtKind::Assign { dst, .. }
            | StmtKind::Load { dst, .. }
            | StmtKind::Nondet { dst, .. }
            | StmtKind::Alloc { dst, .. } => Some(*dst),
            StmtKind::Call { dst, .. }
            | StmtKind::Sync { dst, .. }
            | StmtKind::Print { dst, .. }
            | StmtKind::Havoc { dst, .. } => *dst,
            StmtKind::Store { .. } | StmtKind::Assume { .. } | StmtKind::Free { .. } => None,
        }
    }

    /// Every operand the statement reads, in evaluation order.
    pub fn operands(&self) -> Vec<&Operand> {
        match self {
            StmtKind::Assign { value, .. } => value.operands(),
            StmtKind::Load { addr, .. } => vec![addr],
            StmtKind::Store { addr, value, .. } => vec![addr, value],
            StmtKind::Call { callee, args, .. } => {
                let mut v: Vec<&Operand> = match callee {
                    Callee::Indirect(op) => vec![op],
                    Callee::Direct(_) => vec![],
                };
                v.extend(args.iter());
                v
            }
            StmtKind::Sync { op, .. } => op.operands(),
            StmtKind::Nondet { .. } | StmtKind::Havoc { .. } => vec![],
            StmtKind::Assume { cond } => vec![cond],
            StmtKind::Alloc { size, .. } => vec![size],
            StmtKind::Free { ptr } => vec![ptr],
            StmtKind::Print { args, .. } => args.iter().collect(),
        }
    }
}

impl StmtKind {
    /// Calls `f` on every operand the statement reads (for rewriting passes).
    pub fn for_each_operand_mut(&mut self, f: &mut dyn FnMut(&mut Operand)) {
        match self {
            StmtKind::Assign { value, .. } => value.for_each_operand_mut(f),
            StmtKind::Load { addr, .. } => f(addr),
            StmtKind::Store { addr, value, .. } => {
                f(addr);
                f(value);
            }
            StmtKind::Call { callee, args, .. } => {
                if let Callee::Indirect(op) = callee {
                    f(op);
                }
                args.iter_mut().for_each(f);
            }
            StmtKind::Sync { op, .. } => op.operands_mut().into_iter().for_each(f),
            StmtKind::Nondet { .. } | StmtKind::Havoc { .. } => {}
            StmtKind::Assume { cond } => f(cond),
            StmtKind::Alloc { size, .. } => f(size),
            StmtKind::Free { ptr } => f(ptr),
            StmtKind::Print { args, .. } => args.iter_mut().for_each(f),
        }
    }
}

impl TermKind {
    /// Calls `f` on every operand the terminator reads.
    pub fn for_each_operand_mut(&mut self, f: &mut dyn FnMut(&mut Operand)) {
        match self {
            TermKind::Branch { cond, .. } => f(cond),
            TermKind::Return(Some(v)) | TermKind::ThreadExit(v) | TermKind::Exit(v) => f(v),
            _ => {}
        }
    }
}

impl Rvalue {
    pub fn operands(&self) -> Vec<&Operand> {
        match self {
            Rvalue::Use(a)
            | Rvalue::Unary { arg: a, .. }
            | Rvalue::Cast { arg: a, .. }
            | Rvalue::MutexHeld(a) => vec![a],
            Rvalue::Binary { lhs, rhs, .. } | Rvalue::PtrDiff { lhs, rhs, .. } => vec![lhs, rhs],
            Rvalue::PtrAdd { base, index, .. } => vec![base, index],
            Rvalue::Uninit(_) | Rvalue::ThreadId => vec![],
        }
    }

    pub fn for_each_operand_mut(&mut self, f: &mut dyn FnMut(&mut Operand)) {
        match self {
            Rvalue::Use(a)
            | Rvalue::Unary { arg: a, .. }
            | Rvalue::Cast { arg: a, .. }
            | Rvalue::MutexHeld(a) => f(a),
            Rvalue::Binary { lhs, rhs, .. } | Rvalue::PtrDiff { lhs, rhs, .. } => {
                f(lhs);
                f(rhs);
            }
            Rvalue::PtrAdd { base, index, .. } => {
                f(base);
                f(index);
            }
            Rvalue::Uninit(_) | Rvalue::ThreadId => {}
        }
    }
}

/// A statement: one event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Stmt {
    pub id: StmtId,
    pub span: Span,
    pub kind: StmtKind,
}

/// Why an execution fails at a [`TermKind::Error`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Failure {
    /// `assert(expr)` failed; `expr` is the assertion's text.
    Assertion { expr: String },
    /// `reach_error()` or `__VERIFIER_error()` was called.
    ReachError,
    /// `va_arg(ap, T)` of an argument whose promoted type is not `T`: undefined
    /// behaviour; `expr` is the `va_arg` as written.
    VaArgType { expr: String },
    /// Behaviour agx does not model, found only at run time (the C library model's
    /// `__agx_unsupported("what")`, say a `%n` in a format read from memory): the
    /// engines end the run as unsupported, never as a violation.
    Unsupported { what: String },
}

impl Failure {
    /// Whether this is a reachability goal: an assertion or `reach_error` (the goals of
    /// `agx hunt --assertions`). Undefined behaviour is found with memory checks like
    /// every other kind of it, and an unsupported end is no property.
    pub fn is_reach_goal(&self) -> bool {
        matches!(self, Failure::Assertion { .. } | Failure::ReachError)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Assertion { expr } => write!(f, "assertion `{expr}` failed"),
            Failure::ReachError => write!(f, "reach_error() called"),
            Failure::VaArgType { expr } => write!(
                f,
                "`{expr}` reads a variadic argument of another type (undefined behaviour)"
            ),
            Failure::Unsupported { what } => write!(f, "unsupported: {what}"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum TermKind {
    Goto(BlockId),
    /// Branch on a register or constant: `then_bb` when non-zero (a beta event).
    Branch {
        cond: Operand,
        then_bb: BlockId,
        else_bb: BlockId,
    },
    Return(Option<Operand>),
    /// The end of the calling thread (`pthread_exit`, or the return of a thread function).
    ThreadExit(Operand),
    /// A property violation: the target locations of agx.
    Error(Failure),
    /// `abort()`: the execution stops without a violation.
    Abort,
    /// `exit(code)`: the whole program stops.
    Exit(Operand),
    /// Control never reaches here (after a call of a `noreturn` function, say).
    Unreachable,
}

impl TermKind {
    pub fn successors(&self) -> Vec<BlockId> {
        match self {
            TermKind::Goto(b) => vec![*b],
            TermKind::Branch {
                then_bb, else_bb, ..
            } => vec![*then_bb, *else_bb],
            _ => vec![],
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Terminator {
    pub id: StmtId,
    pub span: Span,
    pub kind: TermKind,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Block {
    pub id: BlockId,
    pub stmts: Vec<Stmt>,
    pub term: Terminator,
}
