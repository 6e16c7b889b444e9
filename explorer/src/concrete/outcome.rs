//! What a run produces: the [`Execution`] (outcome, trace, inputs, output, statistics)
//! and the [`RuntimeError`] for behaviour the interpreter does not model.

use analysis::ir::{Failure, Program, Scalar, Span, StmtId};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// A thread: 0 is `main`, `pthread_create` numbers the others 1, 2, ... in creation order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ThreadId(pub u32);

impl ThreadId {
    pub const MAIN: ThreadId = ThreadId(0);

    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for ThreadId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// One concrete run of a program.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Execution {
    pub outcome: RunOutcome,
    /// One entry per step (empty when `RunConfig::record_trace` is off).
    pub trace: Vec<TraceStep>,
    /// Every input consumed, in consumption order.
    pub inputs: Vec<InputRecord>,
    /// The bytes the program printed.
    #[serde(serialize_with = "lossy_text")]
    pub output: Vec<u8>,
    pub stats: RunStats,
    /// Every statement each thread executed, in execution order (empty unless
    /// `RunConfig::record_statements`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub statements: Vec<StmtRecord>,
}

impl Execution {
    /// The thread chosen at each step: the schedule that replays this run.
    pub fn schedule(&self) -> Vec<ThreadId> {
        self.trace.iter().map(|s| s.thread).collect()
    }

    pub fn is_violation(&self) -> bool {
        matches!(self.outcome, RunOutcome::Violation(_))
    }
}

/// A scalar type as the IR prints it: `i32`, `u8`, `ptr`.
fn scalar_name<S: Serializer>(ty: &Scalar, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(ty)
}

fn lossy_text<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&String::from_utf8_lossy(bytes))
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum RunOutcome {
    /// `main` returned, `exit` was called, or every thread ended after `main` called
    /// `pthread_exit` (exit code 0).
    Completed {
        exit_code: i64,
    },
    Violation(Violation),
    /// An `assume` was false: the run is infeasible (not an error).
    AssumeViolated {
        thread: ThreadId,
        span: Span,
    },
    /// `abort()` was called: the run stops without a violation.
    Aborted {
        thread: ThreadId,
        span: Span,
    },
    /// A bound stopped the run before it ended.
    BoundHit {
        bound: Bound,
    },
}

/// A property violation found by the run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Violation {
    pub kind: ViolationKind,
    pub message: String,
    pub thread: ThreadId,
    /// The statement that violated the property (for a deadlock: the first blocked
    /// thread's).
    pub span: Span,
    /// `file:line` of `span`.
    pub location: String,
    /// For a deadlock: every thread that has not finished and what it waits for.
    pub blocked: Vec<BlockedThread>,
    /// The calls the violating thread stands in, innermost first: for a violation inside
    /// a called function (say an `assert` helper in a header), where it was called from.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub call_sites: Vec<Span>,
    /// For a data race: both accesses and the memory they touch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub race: Option<Box<super::race::Race>>,
}

/// What kind of property a run violated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ViolationKind {
    /// `assert` failed.
    Assertion,
    /// `reach_error()` (or `__VERIFIER_error()`) was called.
    ReachError,
    NullDereference,
    /// Dereference of an integer that is not null, or of a function pointer as data.
    InvalidDereference,
    OutOfBounds,
    UseAfterFree,
    /// Use of a stack slot after its function returned, or of a thread-local object after
    /// its thread ended.
    DeadObject,
    /// A write to a string literal.
    ReadOnlyWrite,
    /// `free` of something that is not the start of a live heap block.
    InvalidFree,
    DoubleFree,
    DivisionByZero,
    /// A float converted to an integer type that cannot hold its truncated value (NaN,
    /// an infinity, out of range): undefined behaviour in C.
    FloatConversion,
    /// Relock of a held mutex, unlock of a mutex the thread does not hold, waiting on a
    /// condition with a mutex not held, destroying or re-initializing a held mutex.
    LockMisuse,
    /// Joining a thread that does not exist, the joining thread itself, or a thread
    /// already joined.
    JoinMisuse,
    /// No thread can run, and some have not finished.
    Deadlock,
    /// Two plain accesses to one memory cell by different threads, at least one a
    /// write, unordered by happens-before (only with race detection on).
    DataRace,
    /// `va_arg(ap, T)` of an argument of another (promoted) type: undefined behaviour.
    VaArgType,
}

impl ViolationKind {
    /// The violation a failure is; `None` for [`Failure::Unsupported`], which ends the
    /// run as unsupported.
    pub fn of_failure(failure: &Failure) -> Option<ViolationKind> {
        match failure {
            Failure::Assertion { .. } => Some(ViolationKind::Assertion),
            Failure::ReachError => Some(ViolationKind::ReachError),
            Failure::VaArgType { .. } => Some(ViolationKind::VaArgType),
            Failure::Unsupported { .. } => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ViolationKind::Assertion => "assertion",
            ViolationKind::ReachError => "reach_error",
            ViolationKind::NullDereference => "null dereference",
            ViolationKind::InvalidDereference => "invalid dereference",
            ViolationKind::OutOfBounds => "out of bounds",
            ViolationKind::UseAfterFree => "use after free",
            ViolationKind::DeadObject => "use of a dead object",
            ViolationKind::ReadOnlyWrite => "write to read-only memory",
            ViolationKind::InvalidFree => "invalid free",
            ViolationKind::DoubleFree => "double free",
            ViolationKind::DivisionByZero => "division by zero",
            ViolationKind::FloatConversion => "out-of-range float-to-integer conversion",
            ViolationKind::LockMisuse => "lock misuse",
            ViolationKind::JoinMisuse => "join misuse",
            ViolationKind::Deadlock => "deadlock",
            ViolationKind::DataRace => "data race",
            ViolationKind::VaArgType => "va_arg type mismatch",
        }
    }
}

impl fmt::Display for ViolationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A thread that cannot run, in a deadlock report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BlockedThread {
    pub thread: ThreadId,
    /// "mutex `m` (held by thread 1)", "thread 2 to end", "a signal on `c`", ...
    pub waits_for: String,
    pub span: Span,
    pub location: String,
}

/// `thread 1 waits for mutex `m` (held by thread 2) at f.c:22`.
impl std::fmt::Display for BlockedThread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "thread {} waits for {} at {}",
            self.thread, self.waits_for, self.location
        )
    }
}

/// The bound that stopped a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    Steps(u64),
    Statements(u64),
    /// Frames on one thread's call stack.
    CallDepth(usize),
    /// Threads created, `main` included.
    Threads(usize),
    /// Bytes of live heap blocks (`RunConfig::max_memory`).
    Memory(u64),
    /// The caller's deadline (`RunConfig::deadline`).
    Time,
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bound::Steps(n) => write!(f, "{n} steps"),
            Bound::Statements(n) => write!(f, "{n} statements"),
            Bound::CallDepth(n) => write!(f, "call depth {n}"),
            Bound::Threads(n) => write!(f, "{n} threads"),
            Bound::Memory(n) => write!(f, "{} MiB of heap memory", n >> 20),
            Bound::Time => write!(f, "the time budget"),
        }
    }
}

/// One step: the visible event a thread executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TraceStep {
    pub thread: ThreadId,
    /// The Load, Store or Sync statement; for a thread's end, its `return` or
    /// `thread_exit` terminator.
    pub stmt: StmtId,
    pub span: Span,
    pub event: EventKind,
}

/// Which visible event a step executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// A Load, Store or Sync statement.
    Statement,
    /// A thread woken from `pthread_cond_wait` re-acquires its mutex.
    Reacquire,
    /// The end of a thread.
    ThreadEnd,
}

/// One input value consumed by the run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InputRecord {
    /// The value as the type reads it (sign-extended for signed types).
    pub value: i128,
    #[serde(serialize_with = "scalar_name")]
    pub ty: Scalar,
    pub thread: ThreadId,
    pub stmt: StmtId,
    /// Where the statement that read the input stands.
    pub span: Span,
    /// How many scheduling steps (trace entries) came before the input was read.
    pub step: u64,
    pub source: InputSource,
}

/// Which statement asked for an input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InputSource {
    /// `__VERIFIER_nondet_*`.
    Nondet,
    /// The result of an external function (named).
    Havoc(String),
    /// An uninitialized value under `UninitPolicy::Nondet`.
    Uninit,
    /// A value of a context's initial state ([`crate::context`]): a cell or parameter,
    /// or the index of a pointer's candidate.
    Initial,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RunStats {
    pub steps: u64,
    /// Statements and terminators executed.
    pub statements: u64,
    /// Threads created, `main` included.
    pub threads: u32,
}

/// Behaviour the interpreter does not model, or a replay that does not fit the program.
/// Never a property violation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RuntimeError {
    #[error("{location}: unsupported: {what}")]
    Unsupported { what: String, location: String },
    #[error("malformed IR: {0}")]
    MalformedIr(String),
    #[error(
        "schedule diverged at step {step}: the schedule names thread {thread}, which is not \
         enabled (enabled: {enabled})"
    )]
    ScheduleDiverged {
        step: u64,
        thread: ThreadId,
        enabled: String,
    },
    #[error(
        "input {index} diverged at {location}: the witness gives a {expected} but the program \
         reads a {found}"
    )]
    InputDiverged {
        index: usize,
        expected: Scalar,
        found: Scalar,
        location: String,
    },
    #[error("witness: {0}")]
    Witness(String),
}

impl RuntimeError {
    pub(crate) fn unsupported(prog: &Program, span: Span, what: impl Into<String>) -> Self {
        RuntimeError::Unsupported {
            what: what.into(),
            location: prog.location(span),
        }
    }
}

/// A value as a run recorded it: integer bits, a pointer into a runtime object (its
/// index and generation, as the run numbered them), or a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordedValue {
    Int(u64),
    Ptr {
        object: u32,
        generation: u32,
        offset: i64,
    },
    Func(u32),
}

/// One statement a thread executed (recorded under `RunConfig::record_statements`): the
/// thread's control path with the concrete values the predictive analysis needs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StmtRecord {
    pub thread: ThreadId,
    /// The statement or terminator.
    pub stmt: StmtId,
    /// The step during which it ran (for the invisible prefix of `main`, 0).
    pub step: u64,
    pub note: StmtNote,
}

/// What a [`StmtRecord`] observed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StmtNote {
    /// Nothing beyond the statement (a goto, an assume that held, a free, ...).
    Plain,
    /// The value the statement gave its destination register (an input for `Nondet`,
    /// `Havoc` and an external call).
    Value(RecordedValue),
    /// A defined function was entered by this call.
    Call(u32),
    /// The outcome of a branch: whether the `then` side was taken.
    Branch(bool),
    /// A shared read: the address (and its description) and the value read.
    Load {
        addr: RecordedValue,
        what: String,
        value: RecordedValue,
    },
    /// A shared write, with the value the cell held before (`None`: no cell yet).
    Store {
        addr: RecordedValue,
        what: String,
        value: RecordedValue,
        old: Option<RecordedValue>,
    },
    /// A synchronization: the mutex, condition or handle address it names (the first
    /// address operand), and the thread it created or joined, or a trylock's result.
    Sync {
        addr: Option<RecordedValue>,
        what: Option<String>,
        other: Option<RecordedValue>,
    },
    /// A woken (or spuriously woken) `pthread_cond_wait` re-acquired its mutex.
    Reacquire,
    /// The thread ended.
    ThreadEnd,
}
