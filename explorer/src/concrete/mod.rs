//! The reference interpreter: executes an [`analysis::ir::Program`] concretely under a
//! schedule and inputs. Its semantics are the contract every symbolic engine of agx must
//! agree with, and it replays their witnesses ([`replay`]).
//!
//! ```no_run
//! # fn demo(program: &analysis::ir::Program) -> Result<(), explorer::concrete::RuntimeError> {
//! use explorer::concrete::{run, RunConfig, SchedulePolicy};
//! let mut config = RunConfig::default();
//! config.schedule = SchedulePolicy::Random { seed: 7 };
//! let execution = run(program, &config)?;
//! println!("{:?} after {} steps", execution.outcome, execution.stats.steps);
//! # Ok(()) }
//! ```
//!
//! # Values
//! - Integers are `u64` bits truncated to the width of their type; the signed reading is
//!   `ir::sign_extend`. Pointers are (runtime object, byte offset); function pointers are
//!   [`FuncId`](analysis::ir::FuncId)s.
//! - An integer converted to a pointer stays an integer (`(void *)5` passed to a thread and
//!   converted back is 5; null is the integer 0). Dereferencing an integer is a violation
//!   (`NullDereference` for 0, `InvalidDereference` otherwise). Converting an object or
//!   function pointer to an integer is a [`RuntimeError`] (unsupported), not a violation.
//! - Arithmetic is gcc's on x86 for defined behaviour: wraparound, division truncating
//!   toward zero, `%` with the sign of the dividend, `>>` arithmetic for signed types,
//!   comparisons signed or unsigned by the operand type, casts truncating or extending by
//!   the signedness of the source type. `INT_MIN / -1` wraps to `INT_MIN` (and `% -1` is 0).
//!   Division or remainder by zero is a `DivisionByZero` violation.
//! - **Shifts by a count `>=` the width** (or by a negative count, which reads as a large
//!   unsigned one) follow SMT-LIB bit-vector semantics, which is what the symbolic engines
//!   get from Z3: `<<` and logical `>>` give 0, arithmetic `>>` gives all sign bits.
//!   (x86 hardware would mask the count instead; C leaves it undefined.)
//! - Pointers into the same object compare by offset; into different objects they are
//!   unequal and ordered by an arbitrary fixed order. A pointer never equals an integer;
//!   ordering a pointer against an integer is unsupported. `PtrDiff` needs both pointers
//!   in one object.
//!
//! # Memory
//! - Runtime objects: one per global and string literal (created before `main`, unwritten
//!   bytes zero, then the static initializer's cells); one per thread per `__thread`
//!   object (created with the thread, dead when it ends); one per activation for each
//!   stack slot of the called function (`Operand::Addr` of a slot means the current
//!   frame's instance; dead when the function returns); one per execution of `Alloc`
//!   (`calloc` zeroed). String literals are read-only. `malloc` never fails.
//! - A cell is (object, byte offset) holding one scalar. A store removes every cell it
//!   overlaps, then writes. A load finds: the exact cell of the same width → its value
//!   (integer signedness reinterpreted by the load type); no overlapping cell → zero for
//!   static storage and `calloc`, and for stack slots and `malloc` memory the
//!   uninitialized-value policy ([`UninitPolicy`]: zero, or the next input, which is then
//!   stored so later reads agree); a partial overlap, a width mismatch, or a pointer read
//!   as an integer → `RuntimeError` "unsupported: type punning".
//! - Violations: null or invalid dereference, out of bounds (`offset < 0` or
//!   `offset + width > size`), use after free, use of a dead stack slot or thread-local
//!   (`DeadObject`), write to a string literal, invalid free (not the start of a live heap
//!   block), double free. The addresses of mutexes, conditions and thread handles must
//!   point into live objects too.
//! - `Rvalue::Uninit`, and the value of a call whose callee returns without a value,
//!   follow the uninitialized-value policy.
//!
//! # Threads
//! - `main` is thread 0; `pthread_create` numbers new threads 1, 2, ... in creation order,
//!   stores the id at the handle as an unsigned integer of pointer width, and starts the
//!   function (a `Func` operand or a pointer value holding one) with the argument.
//! - A thread's entry function returning, or `ThreadExit`, ends the thread with that
//!   value. `main` returning ends the whole program (other threads are dropped), as does
//!   `Exit` in any thread. If `main` calls `pthread_exit`, the program ends (exit code 0)
//!   when every thread has ended.
//! - `ThreadJoin` waits until the thread has ended, then stores its value at `result` (a
//!   pointer-width cell) unless `result` is null. Joining a thread that does not exist,
//!   oneself, or a thread already joined is a `JoinMisuse` violation.
//!
//! # Scheduling
//! - A *visible event* is a Load, Store or Sync statement, a woken `pthread_cond_wait`
//!   re-acquiring its mutex, or the end of a thread. Every other statement is invisible:
//!   it touches only the thread's registers (or, for `Alloc`/`Free`/`printf`, state no
//!   other thread can observe before a visible event).
//! - Between steps every unfinished thread stands *at* its next visible event. A **step**
//!   = the chosen thread executes that event, then runs its invisible statements up to its
//!   next visible event. If it meets an `Error`, `Abort` or `Exit` terminator (or a
//!   violation, or a false `assume`) on the way, the run ends there. Before step 0, `main`
//!   runs its invisible prefix; a thread created by `pthread_create` runs its invisible
//!   prefix as part of the creating event, before the creator continues.
//! - A thread is *enabled* unless its pending event is a lock of a mutex held by another
//!   thread, a join of a thread that has not ended, a `pthread_cond_wait` not yet
//!   signalled, or a re-acquire of a held mutex. While a thread is inside an atomic
//!   section (`AtomicBegin` depth > 0) only that thread may be enabled.
//! - **Every step consumes one schedule entry**, even when one thread alone is enabled;
//!   step `i` uses `schedule[i]`. Witnesses of every engine follow this convention.
//!   Policies: round-robin (the first enabled thread after the previous step's, thread 0
//!   first), seeded random (splitmix64), seeded priorities with change points (PCT, for
//!   random testing: `tests/oracle/`), or an explicit list followed by a fallback
//!   policy; a listed thread that is not enabled is `RuntimeError::ScheduleDiverged`.
//! - No thread enabled while some have not ended: a `Deadlock` violation naming each
//!   blocked thread, what it waits for, and its `file:line`.
//!
//! # Synchronization
//! Mutexes and conditions are keyed by address (object, offset); an address never locked
//! is an unlocked mutex (so `PTHREAD_MUTEX_INITIALIZER` needs nothing). Lock of a mutex
//! the thread holds, unlock of a mutex it does not hold, `pthread_cond_wait` without
//! holding the mutex, destroying or re-initializing a held mutex: `LockMisuse`. TryLock
//! returns 0 or `EBUSY`. `CondWait` releases the mutex and waits; `Signal` wakes the
//! longest-waiting waiter, `Broadcast` all of them; a woken waiter re-acquires the mutex
//! as a step of its own. Signals with no waiter are lost. Spurious wake-ups (POSIX lets
//! `pthread_cond_wait` return without a signal): with `RunConfig::spurious_wakeups`
//! (the default) an explicit schedule entry may name a waiting thread whose mutex is
//! free; that step wakes it (it leaves the condition's queue) and re-acquires the mutex
//! (recorded as a `Reacquire` event). The automatic policies never choose one, so
//! `agx run`'s default schedules are unchanged; witnesses of the symbolic engine, which
//! explores them, name them this way.
//! Sync statements return 0 in their `dst` (TryLock: 0 or `EBUSY`).
//!
//! # Inputs
//! `Nondet`, `Havoc` (an external function's result; a `Havoc` without a destination
//! reads nothing), a call through a pointer to an external function, and uninitialized
//! values under [`UninitPolicy::Nondet`] read the next input: a listed value (in order
//! across threads, truncated to the requested type), then the fallback (zero or seeded
//! random). Every input read is recorded with its type, thread and statement.
//!
//! # Ends of a run ([`RunOutcome`])
//! `assume(0)`: `AssumeViolated` (infeasible, not an error). `abort()`: `Aborted`.
//! `Error` terminator: a `Violation` with the failure. A bound (steps, statements, call
//! depth): `BoundHit`. Behaviour outside the model: `Err(RuntimeError)` with `file:line`.
//!
//! # Output
//! `printf` formats `%d %i %u %x %X %c %s %p` by the argument's scalar type; `%s` reads a
//! NUL-terminated string cell by cell with the memory checks; `%p` prints `(nil)` for
//! null, `0x...` for an integer, `<object+offset>` for an object pointer (there are no
//! numeric addresses). The output is collected in [`Execution::output`].
//!
//! # Code map
//! [`value`] (arithmetic), [`memory`] (objects, cells, checks), [`machine`] (state and the
//! step loop), [`exec`] (invisible statements, terminators), [`events`] (visible events,
//! enabledness, deadlock), [`print`], [`choice`] (scheduler, input stream), [`config`],
//! [`outcome`], [`witness`], [`validate`] (IR invariants checked before a run), [`pct`]
//! (campaigns of PCT runs).

mod choice;
mod config;
mod events;
mod exec;
mod machine;
mod memory;
mod outcome;
pub mod pct;
mod print;
mod record;
mod validate;
mod value;
mod witness;

#[cfg(test)]
mod tests;

pub use config::{
    InputFallback, InputPolicy, InputValue, RunConfig, ScheduleFallback, SchedulePolicy,
    UninitPolicy, DEFAULT_MAX_MEMORY,
};
pub use outcome::{
    BlockedThread, Bound, EventKind, Execution, InputRecord, InputSource, RecordedValue,
    RunOutcome, RunStats, RuntimeError, StmtNote, StmtRecord, ThreadId, TraceStep, Violation,
    ViolationKind,
};
pub use witness::{replay, InputType, Witness, WitnessInput, WITNESS_FORMAT, WITNESS_VERSION};

use analysis::ir::Program;

/// Runs `program` once under `config`.
///
/// Returns the execution (whatever its outcome, violations included), or a
/// [`RuntimeError`] when the program does something the interpreter does not model, the
/// IR is malformed, or a listed schedule or input does not fit the run.
pub fn run(program: &Program, config: &RunConfig) -> Result<Execution, RuntimeError> {
    validate::validate(program)?;
    machine::Machine::new(program, config)?.run()
}
