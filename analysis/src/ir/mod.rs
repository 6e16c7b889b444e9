//! The concurrent IR: the one language every later stage of agx speaks.
//!
//! A [`Program`] is a set of memory [`Object`]s (globals, string literals and the stack
//! slots of address-taken or aggregate locals) and [`Function`]s made of basic [`Block`]s.
//!
//! # Normal form
//! Every [`Stmt`] does at most one shared-memory access ([`StmtKind::Load`] /
//! [`StmtKind::Store`]) or one synchronization ([`StmtKind::Sync`]); all other statements
//! touch only registers. Branch conditions ([`TermKind::Branch`]) read a register or a
//! constant, never memory. So one statement is one event of the papers, and the
//! alpha / beta / gamma classification is [`StmtKind::event_class`].
//!
//! # Memory
//! Memory is a set of objects. A pointer is `(object, byte offset)`; a *cell* is the scalar
//! stored at one byte offset of an object (the unit of field sensitivity). Sizes and offsets
//! follow the C layout of the chosen [`DataModel`], so `sizeof`, `offsetof` and pointer
//! arithmetic mean what they mean in C. Reading a cell with a different width than it was
//! written with (type punning) is reported by the engines, not silently reinterpreted.
//!
//! Registers are the locals whose address is never taken; they are thread-local by
//! construction. Scalars are integers of a fixed width ([`Scalar::Int`]) or pointers
//! ([`Scalar::Ptr`], whose width the data model gives).

pub(crate) mod display;

pub use display::{render_program, stmt_text};

use serde::Serialize;
use std::fmt;

/// Integer widths of C types: ILP32 (the default, as SV-COMP's 32-bit tasks) or LP64.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum DataModel {
    #[default]
    Ilp32,
    Lp64,
}

impl DataModel {
    /// Width of `long` and of pointers, in bits.
    pub fn pointer_bits(self) -> u8 {
        match self {
            DataModel::Ilp32 => 32,
            DataModel::Lp64 => 64,
        }
    }
    pub fn pointer_bytes(self) -> u64 {
        u64::from(self.pointer_bits() / 8)
    }
}

impl std::str::FromStr for DataModel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "ilp32" => Ok(DataModel::Ilp32),
            "lp64" => Ok(DataModel::Lp64),
            other => Err(format!(
                "unknown data model `{other}` (expected ilp32 or lp64)"
            )),
        }
    }
}

/// A dense `u32` id with a display prefix (`f3`, `bb1`, `s42`); also used for the ids of
/// the facts.
macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, ::serde::Serialize, ::serde::Deserialize,
        )]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}
pub(crate) use id_type;

id_type!(
    /// A function of the program (defined or external).
    FuncId,
    "f"
);
id_type!(
    /// A basic block within one function.
    BlockId,
    "bb"
);
id_type!(
    /// A register (non-address-taken scalar local or temporary) within one function.
    RegId,
    "r"
);
id_type!(
    /// A static memory object: global, string literal, or stack slot of a function.
    ObjId,
    "@"
);
id_type!(
    /// A statement or terminator, numbered across the whole program in program order.
    StmtId,
    "s"
);
id_type!(
    /// A source file named by the line markers of the preprocessed text.
    FileId,
    "file"
);

/// A position in an original (not preprocessed) source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Span {
    pub file: FileId,
    pub line: u32,
    pub col: u32,
}

/// A scalar type: the kind of value a register or a cell holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Scalar {
    /// An integer of `bits` (8, 16, 32 or 64) bits; `_Bool` is an unsigned 8-bit integer
    /// that the front end keeps at 0 or 1.
    Int { bits: u8, signed: bool },
    /// A data or function pointer, of the data model's pointer width.
    Ptr,
}

impl Scalar {
    pub const I8: Scalar = Scalar::Int {
        bits: 8,
        signed: true,
    };
    pub const U8: Scalar = Scalar::Int {
        bits: 8,
        signed: false,
    };
    pub const I32: Scalar = Scalar::Int {
        bits: 32,
        signed: true,
    };
    pub const U32: Scalar = Scalar::Int {
        bits: 32,
        signed: false,
    };
    pub const I64: Scalar = Scalar::Int {
        bits: 64,
        signed: true,
    };
    pub const U64: Scalar = Scalar::Int {
        bits: 64,
        signed: false,
    };

    /// Width in bits under a data model.
    pub fn bits(self, dm: DataModel) -> u8 {
        match self {
            Scalar::Int { bits, .. } => bits,
            Scalar::Ptr => dm.pointer_bits(),
        }
    }

    pub fn bytes(self, dm: DataModel) -> u64 {
        u64::from(self.bits(dm) / 8)
    }

    pub fn is_signed(self) -> bool {
        matches!(self, Scalar::Int { signed: true, .. })
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Int { bits, signed: true } => write!(f, "i{bits}"),
            Scalar::Int {
                bits,
                signed: false,
            } => write!(f, "u{bits}"),
            Scalar::Ptr => write!(f, "ptr"),
        }
    }
}

/// A constant or register operand.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Operand {
    Reg(RegId),
    /// An integer constant; `bits` holds the value's two's-complement bits truncated to the
    /// width of `ty`.
    Int {
        bits: u64,
        ty: Scalar,
    },
    /// The null pointer.
    Null,
    /// The address of a static object plus a byte offset. For a stack slot the address is
    /// that of the slot in the *current* activation of the function owning it.
    Addr {
        obj: ObjId,
        offset: u64,
    },
    /// The address of a function.
    Func(FuncId),
}

impl Operand {
    pub fn int(value: i128, ty: Scalar) -> Operand {
        let bits = match ty {
            Scalar::Int { bits, .. } => bits,
            Scalar::Ptr => 64,
        };
        Operand::Int {
            bits: truncate(value as u64, bits),
            ty,
        }
    }

    pub fn as_reg(&self) -> Option<RegId> {
        match self {
            Operand::Reg(r) => Some(*r),
            _ => None,
        }
    }
}

/// Keeps the low `bits` bits of `value`.
pub fn truncate(value: u64, bits: u8) -> u64 {
    if bits >= 64 {
        value
    } else {
        value & ((1u64 << bits) - 1)
    }
}

/// Reads the low `bits` bits of `value` as a two's-complement signed number.
pub fn sign_extend(value: u64, bits: u8) -> i64 {
    if bits >= 64 {
        value as i64
    } else {
        let shift = 64 - u32::from(bits);
        ((value << shift) as i64) >> shift
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum UnOp {
    /// Two's-complement negation.
    Neg,
    /// Bitwise complement.
    Not,
    /// `!x`: 1 if the operand is zero (or null), else 0; the result is `int`.
    LogicalNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// Division, truncating toward zero (signed or unsigned by the operand type).
    Div,
    Rem,
    Shl,
    /// Arithmetic for signed operand types, logical for unsigned ones.
    Shr,
    And,
    Or,
    Xor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl BinOp {
    /// Comparisons produce an `int` 0 or 1 whatever their operand type.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }

    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Xor => "^",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
        }
    }
}

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
        match self {
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
            SyncOp::CondWait { cond, mutex } => vec![cond, mutex],
            SyncOp::AtomicBegin | SyncOp::AtomicEnd => vec![],
        }
    }
}

/// One piece of a `printf` format string.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum FormatPiece {
    Text(String),
    /// A conversion (`d`, `u`, `x`, `X`, `s`, `c`, `p`) applied to the next argument of
    /// type `arg`; `long` and `long long` are folded into the argument type.
    Conv {
        conv: char,
        arg: Scalar,
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
            StmtKind::Sync { op, .. } => match op {
                SyncOp::ThreadCreate { handle, func, arg } => {
                    f(handle);
                    f(func);
                    f(arg);
                }
                SyncOp::ThreadJoin { thread, result } => {
                    f(thread);
                    f(result);
                }
                SyncOp::MutexInit { mutex }
                | SyncOp::MutexLock { mutex }
                | SyncOp::MutexUnlock { mutex }
                | SyncOp::MutexTryLock { mutex }
                | SyncOp::MutexDestroy { mutex } => f(mutex),
                SyncOp::CondInit { cond }
                | SyncOp::CondSignal { cond }
                | SyncOp::CondBroadcast { cond }
                | SyncOp::CondDestroy { cond } => f(cond),
                SyncOp::CondWait { cond, mutex } => {
                    f(cond);
                    f(mutex);
                }
                SyncOp::AtomicBegin | SyncOp::AtomicEnd => {}
            },
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
            Rvalue::Use(a) | Rvalue::Unary { arg: a, .. } | Rvalue::Cast { arg: a, .. } => {
                vec![a]
            }
            Rvalue::Binary { lhs, rhs, .. } | Rvalue::PtrDiff { lhs, rhs, .. } => vec![lhs, rhs],
            Rvalue::PtrAdd { base, index, .. } => vec![base, index],
            Rvalue::Uninit(_) => vec![],
        }
    }

    pub fn for_each_operand_mut(&mut self, f: &mut dyn FnMut(&mut Operand)) {
        match self {
            Rvalue::Use(a) | Rvalue::Unary { arg: a, .. } | Rvalue::Cast { arg: a, .. } => f(a),
            Rvalue::Binary { lhs, rhs, .. } | Rvalue::PtrDiff { lhs, rhs, .. } => {
                f(lhs);
                f(rhs);
            }
            Rvalue::PtrAdd { base, index, .. } => {
                f(base);
                f(index);
            }
            Rvalue::Uninit(_) => {}
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
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Assertion { expr } => write!(f, "assertion `{expr}` failed"),
            Failure::ReachError => write!(f, "reach_error() called"),
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

/// A register: a scalar local whose address is never taken, or a temporary.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RegInfo {
    /// The C name for a named local or parameter, `None` for a temporary.
    pub name: Option<String>,
    pub ty: Scalar,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Function {
    pub id: FuncId,
    pub name: String,
    /// Parameter registers, in order. A parameter whose address is taken is copied to a
    /// stack slot by the first statements of the body.
    pub params: Vec<RegId>,
    /// The return type, `None` for `void`.
    pub ret: Option<Scalar>,
    pub regs: Vec<RegInfo>,
    /// Blocks; the entry is `blocks[0]`. Empty for an external function (no body).
    pub blocks: Vec<Block>,
    /// Stack slots owned by this function (one instance per activation).
    pub slots: Vec<ObjId>,
    pub variadic: bool,
    /// Named `__VERIFIER_atomic_*`: the body runs as one atomic section.
    pub atomic: bool,
    pub span: Span,
}

impl Function {
    pub fn is_defined(&self) -> bool {
        !self.blocks.is_empty()
    }

    pub fn entry(&self) -> BlockId {
        BlockId(0)
    }

    pub fn block(&self, id: BlockId) -> &Block {
        &self.blocks[id.index()]
    }

    pub fn reg(&self, id: RegId) -> &RegInfo {
        &self.regs[id.index()]
    }

    /// Which blocks lie on a cycle of the control-flow graph (a strongly connected
    /// component of two or more blocks, or a block that jumps to itself).
    pub fn blocks_on_cycles(&self) -> Vec<bool> {
        use petgraph::graph::{DiGraph, NodeIndex};
        let n = self.blocks.len();
        let mut g = DiGraph::<(), ()>::with_capacity(n, 2 * n);
        for _ in 0..n {
            g.add_node(());
        }
        for (b, block) in self.blocks.iter().enumerate() {
            for s in block.term.kind.successors() {
                if s.index() < n {
                    g.add_edge(NodeIndex::new(b), NodeIndex::new(s.index()), ());
                }
            }
        }
        let mut out = vec![false; n];
        for comp in petgraph::algo::tarjan_scc(&g) {
            let first = comp[0];
            if comp.len() > 1 || g.contains_edge(first, first) {
                for b in comp {
                    out[b.index()] = true;
                }
            }
        }
        out
    }
}

/// Where a memory object lives and how long.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum ObjectKind {
    Global,
    /// A `__thread` global: one instance per thread.
    ThreadLocal,
    /// A string literal (read-only).
    StringLiteral,
    /// A local of `func` that lives in memory (address taken, or an aggregate); one
    /// instance per activation.
    StackSlot {
        func: FuncId,
    },
}

/// One scalar of a static initializer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InitCell {
    pub offset: u64,
    pub ty: Scalar,
    /// Constant operand: `Int`, `Null`, `Addr` (of a global or literal) or `Func`.
    pub value: Operand,
}

/// A static memory object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Object {
    pub id: ObjId,
    pub name: String,
    pub kind: ObjectKind,
    /// The C type, as written (for reports).
    pub c_type: String,
    pub size: u64,
    /// Every scalar cell of the object's type: offset and type. Engines use it to zero
    /// globals, to default reads, and to copy aggregates.
    pub layout: Vec<(u64, Scalar)>,
    /// The static initializer's non-zero cells (globals and literals; cells not listed
    /// are zero). Stack slots are initialized by statements instead.
    pub init: Vec<InitCell>,
    pub span: Span,
}

/// A statement's place in the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct StmtLoc {
    pub func: FuncId,
    pub block: BlockId,
    /// Index into the block's statements; `None` for the terminator.
    pub index: Option<u32>,
}

/// A whole lowered program.
#[derive(Clone, Debug, Serialize)]
pub struct Program {
    /// Original source files named by the line markers; `files[FileId]`.
    pub files: Vec<String>,
    pub data_model: DataModel,
    pub objects: Vec<Object>,
    pub functions: Vec<Function>,
    pub main: FuncId,
    /// `stmt_locs[StmtId]`: where each statement or terminator is.
    pub stmt_locs: Vec<StmtLoc>,
    /// Non-fatal findings of the front end (external functions treated as havoc, ...).
    pub warnings: Vec<Diagnostic>,
}

/// A non-fatal message of the front end, located in the source.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub span: Span,
    pub message: String,
}

/// A reference to a statement or a terminator.
#[derive(Clone, Copy, Debug)]
pub enum StmtRef<'p> {
    Stmt(&'p Stmt),
    Term(&'p Terminator),
}

impl<'p> StmtRef<'p> {
    pub fn span(&self) -> Span {
        match self {
            StmtRef::Stmt(s) => s.span,
            StmtRef::Term(t) => t.span,
        }
    }
}

impl Program {
    pub fn function(&self, id: FuncId) -> &Function {
        &self.functions[id.index()]
    }

    pub fn object(&self, id: ObjId) -> &Object {
        &self.objects[id.index()]
    }

    pub fn function_named(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }

    pub fn file_name(&self, id: FileId) -> &str {
        &self.files[id.index()]
    }

    /// `file:line` of a span, with the file as the line markers name it.
    pub fn location(&self, span: Span) -> String {
        format!("{}:{}", self.file_name(span.file), span.line)
    }

    pub fn stmt(&self, id: StmtId) -> StmtRef<'_> {
        let loc = self.stmt_locs[id.index()];
        let block = self.function(loc.func).block(loc.block);
        match loc.index {
            Some(i) => StmtRef::Stmt(&block.stmts[i as usize]),
            None => StmtRef::Term(&block.term),
        }
    }

    pub fn stmt_count(&self) -> usize {
        self.stmt_locs.len()
    }

    /// Every `Error` terminator: the assertion and `reach_error` locations of the program.
    pub fn error_sites(&self) -> Vec<&Terminator> {
        self.functions
            .iter()
            .flat_map(|f| f.blocks.iter())
            .map(|b| &b.term)
            .filter(|t| matches!(t.kind, TermKind::Error(_)))
            .collect()
    }
}
