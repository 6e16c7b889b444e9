//! The interpreter state and its main loop: threads, frames, scheduling steps.
//!
//! Statement execution is split by family: [`super::exec`] (register computations,
//! calls, terminators), [`super::events`] (the visible events: loads, stores,
//! synchronization) and [`super::print`] (`printf`).

use super::choice::{as_number, Inputs, Scheduler};
use super::config::{RunConfig, UninitPolicy};
use super::memory::{Access, Loaded, MemFault, Memory, Origin};
use super::outcome::{
    Bound, EventKind, Execution, InputRecord, InputSource, RunOutcome, RunStats, RuntimeError,
    StmtNote, StmtRecord, ThreadId, TraceStep, Violation, ViolationKind,
};
use super::value::{ObjRef, Value};
use analysis::ir::{
    DataModel, FuncId, Function, ObjId, ObjectKind, Operand, Program, RegId, Scalar, Span, StmtId,
    StmtKind,
};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// A memory address of a synchronization object: the key of mutexes and conditions.
pub(crate) type Addr = (ObjRef, u64);

/// Why execution stopped before the run's natural end.
pub(crate) enum Stop {
    /// The run ended with this outcome (violation, exit, abort, bound, ...), boxed:
    /// every step returns a `Flow`, whose error stays small.
    End(Box<RunOutcome>),
    Error(RuntimeError),
}

impl Stop {
    pub fn end(outcome: RunOutcome) -> Stop {
        Stop::End(Box::new(outcome))
    }
}

impl From<RuntimeError> for Stop {
    fn from(e: RuntimeError) -> Self {
        Stop::Error(e)
    }
}

pub(crate) type Flow<T = ()> = Result<T, Stop>;

/// How the program refers to a static object id at run time.
#[derive(Clone, Copy)]
pub(super) enum StaticObj {
    Global(ObjRef),
    /// Index into each thread's thread-local objects.
    ThreadLocal(usize),
    /// Index into the owning function's frame slots.
    Slot(usize),
}

/// One activation of a function.
pub(crate) struct Frame<'p> {
    pub func: &'p Function,
    pub block: usize,
    /// Index of the next statement in the block; `stmts.len()` means the terminator.
    pub index: usize,
    pub regs: Vec<Value>,
    /// Runtime objects of `func.slots`, in the same order.
    pub slots: Vec<ObjRef>,
    /// The caller's register that receives the return value.
    pub ret_dst: Option<RegId>,
}

/// A thread's local state at a terminator it ran, as [`LocalCycle`] compares it: its
/// stack depth, its top frame's position and registers, the inputs and heap blocks taken
/// (stores are visible events, so memory cannot change inside a step).
#[derive(Clone, Copy)]
struct LocalState<'a> {
    depth: usize,
    top: (FuncId, usize, usize),
    inputs: usize,
    heap: (usize, u64),
    regs: &'a [Value],
}

/// A [`LocalState`] kept to compare later ones with.
struct SavedLocalState {
    depth: usize,
    top: (FuncId, usize, usize),
    inputs: usize,
    heap: (usize, u64),
    regs: Vec<Value>,
}

impl SavedLocalState {
    fn of(s: LocalState<'_>) -> Self {
        SavedLocalState {
            depth: s.depth,
            top: s.top,
            inputs: s.inputs,
            heap: s.heap,
            regs: s.regs.to_vec(),
        }
    }

    fn is(&self, s: LocalState<'_>) -> bool {
        self.depth == s.depth
            && self.top == s.top
            && self.inputs == s.inputs
            && self.heap == s.heap
            && self.regs == s.regs
    }
}

/// Recognises a step that loops forever without a visible event: the thread's local
/// code is deterministic given its local state, so a repeated state repeats forever.
/// Brent's cycle detection over the states after each terminator, started only after
/// [`LocalCycle::QUIET`] terminators so that ordinary steps pay one counter; memory
/// O(1), and a cycle of length λ entered after μ terminators is found within O(μ + λ)
/// more. Only the top frame is compared: the frames below it change only by a return
/// into them (a `Return` terminator, after which the depth is observed), so equal depths
/// with no return below that depth in between (`low_water`) mean equal lower frames —
/// which keeps a check O(registers of one frame) under deep recursion. The symbolic
/// engine parks such a thread (a spin loop on a register is one, `analysis::spin`), and
/// a witness then schedules the others past it.
#[derive(Default)]
struct LocalCycle {
    terminators: u64,
    saved: Option<SavedLocalState>,
    since_saved: u64,
    power: u64,
    /// The least stack depth seen since `saved` was taken.
    low_water: usize,
}

impl LocalCycle {
    const QUIET: u64 = 256;

    /// Counts a terminator run at stack depth `depth`; whether the state should be
    /// looked at.
    fn tick(&mut self, depth: usize) -> bool {
        self.terminators += 1;
        self.low_water = self.low_water.min(depth);
        self.terminators > Self::QUIET
    }

    /// Whether `state` was seen before (Brent: compare with the saved state, save anew
    /// at every power of two).
    fn repeats(&mut self, state: LocalState<'_>) -> bool {
        if let Some(saved) = &self.saved {
            if self.low_water >= saved.depth && saved.is(state) {
                return true;
            }
        }
        self.since_saved += 1;
        if self.saved.is_none() || self.since_saved >= self.power {
            self.saved = Some(SavedLocalState::of(state));
            self.low_water = state.depth;
            self.since_saved = 0;
            self.power = (self.power * 2).max(1);
        }
        false
    }
}

/// What a thread standing at a visible statement may have to wait for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Gate {
    /// Nothing: a load, a store, or a synchronization that never blocks.
    Open,
    /// A lock of the mutex at this address.
    Lock(Addr),
    /// A join of the thread with this id (another thread; it may not exist).
    Join(u64),
}

/// Where a thread stands between steps.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ThreadState {
    /// Positioned at a Load, Store or Sync statement of its top frame.
    AtEvent(Gate),
    /// Inside `pthread_cond_wait`, waiting for a signal.
    Waiting {
        cond: Addr,
        mutex: Addr,
        stmt: StmtId,
        span: Span,
    },
    /// Signalled inside `pthread_cond_wait`: must re-acquire `mutex` as its next step.
    Reacquire {
        mutex: Addr,
        stmt: StmtId,
        span: Span,
    },
    /// Its function returned (or it called `pthread_exit`): the end event is pending.
    /// `exit_program` when `main` returned.
    Ending {
        value: Value,
        exit_program: bool,
        stmt: StmtId,
        span: Span,
    },
    Finished {
        value: Value,
    },
    Joined,
    /// It returned to a state it was in before within one step: it loops forever
    /// without a visible event (see [`LocalCycle`]). It takes no further step; the other
    /// threads go on (a spin loop on a register, `r = flag; while (r == 0);`).
    LoopsForever,
}

pub(crate) struct Thread<'p> {
    pub frames: Vec<Frame<'p>>,
    pub state: ThreadState,
    /// Nesting depth of atomic sections.
    pub atomic: u32,
    /// This thread's instances of the `__thread` objects.
    pub tls: Vec<ObjRef>,
}

pub(crate) struct Machine<'p> {
    pub prog: &'p Program,
    pub cfg: &'p RunConfig,
    pub dm: DataModel,
    pub(super) statics: Vec<StaticObj>,
    tls_objects: Vec<ObjId>,
    /// Instances materialized from a context's initial state, per abstract object.
    pub(super) materialized: crate::context::Materialized<ObjRef>,
    pub mem: Memory<'p>,
    pub threads: Vec<Thread<'p>>,
    /// The threads that have not ended, in id order (the only candidates for a step).
    pub live: Vec<ThreadId>,
    /// Held mutexes and their owners (an absent mutex is unlocked).
    pub mutexes: FxHashMap<Addr, ThreadId>,
    /// Threads waiting on each condition, longest-waiting first.
    pub conds: FxHashMap<Addr, VecDeque<ThreadId>>,
    /// The thread inside an atomic section, if any: the only one that may run.
    pub atomic_owner: Option<ThreadId>,
    inputs: Inputs,
    sched: Scheduler,
    pub trace: Vec<TraceStep>,
    /// Under `record_statements`: every executed statement (see [`super::record`]).
    pub statements: Vec<StmtRecord>,
    pub input_log: Vec<InputRecord>,
    pub output: Vec<u8>,
    pub stats: RunStats,
    /// The thread and statement executing (for messages and input records).
    pub cur_thread: ThreadId,
    pub cur_stmt: StmtId,
    pub cur_span: Span,
    /// The data-race detector, under `RunConfig::detect_races`.
    pub races: Option<super::race::Detector>,
}

impl<'p> Machine<'p> {
    pub fn new(prog: &'p Program, cfg: &'p RunConfig) -> Result<Self, RuntimeError> {
        let main_span = prog.function(prog.main).span;
        let mut m = Machine {
            prog,
            cfg,
            dm: prog.data_model,
            statics: Vec::with_capacity(prog.objects.len()),
            tls_objects: Vec::new(),
            materialized: Default::default(),
            mem: Memory::new(prog),
            threads: Vec::new(),
            live: Vec::new(),
            mutexes: FxHashMap::default(),
            conds: FxHashMap::default(),
            atomic_owner: None,
            inputs: Inputs::new(&cfg.inputs),
            sched: Scheduler::new(&cfg.schedule),
            trace: Vec::new(),
            statements: Vec::new(),
            input_log: Vec::new(),
            output: Vec::new(),
            stats: RunStats::default(),
            cur_thread: ThreadId::MAIN,
            cur_stmt: StmtId(0),
            cur_span: main_span,
            races: cfg.detect_races.then(super::race::Detector::default),
        };
        m.create_statics()?;
        Ok(m)
    }

    /// Creates the runtime objects of globals and string literals, then writes their
    /// initializers (which may point to each other).
    fn create_statics(&mut self) -> Result<(), RuntimeError> {
        let prog = self.prog;
        for o in &prog.objects {
            let s = match o.kind {
                ObjectKind::Global | ObjectKind::StringLiteral => {
                    let read_only = o.kind == ObjectKind::StringLiteral;
                    StaticObj::Global(self.mem.new_static(Origin::Static(o.id), o.size, read_only))
                }
                ObjectKind::ThreadLocal => {
                    self.tls_objects.push(o.id);
                    StaticObj::ThreadLocal(self.tls_objects.len() - 1)
                }
                ObjectKind::StackSlot { func } => {
                    let slots = &prog.function(func).slots;
                    let index = slots.iter().position(|&s| s == o.id).ok_or_else(|| {
                        RuntimeError::MalformedIr(format!(
                            "stack slot `{}` is not among the slots of `{}`",
                            o.name,
                            prog.function(func).name
                        ))
                    })?;
                    StaticObj::Slot(index)
                }
            };
            self.statics.push(s);
        }
        for o in &prog.objects {
            if let StaticObj::Global(obj) = self.statics[o.id.index()] {
                self.write_initializer(o.id, obj, None)?;
            }
        }
        Ok(())
    }

    /// Writes the static initializer of `id` into `obj`; `thread` owns thread-locals.
    fn write_initializer(
        &mut self,
        id: ObjId,
        obj: ObjRef,
        thread: Option<usize>,
    ) -> Result<(), RuntimeError> {
        let prog = self.prog;
        let o = prog.object(id);
        for cell in &o.init {
            let value = match &cell.value {
                Operand::Int { bits, .. } => Value::Int(*bits),
                Operand::Null => Value::ZERO,
                Operand::Func(f) => Value::Func(*f),
                Operand::Addr {
                    obj: target,
                    offset,
                } => {
                    let target_obj = match (self.statics[target.index()], thread) {
                        (StaticObj::Global(r), _) => r,
                        (StaticObj::ThreadLocal(i), Some(t)) => self.threads[t].tls[i],
                        _ => {
                            let what = format!(
                                "the initializer of `{}` takes the address of `{}`, which has \
                                 no single static instance",
                                o.name,
                                prog.object(*target).name
                            );
                            return Err(RuntimeError::unsupported(prog, o.span, what));
                        }
                    };
                    Value::Ptr {
                        obj: target_obj,
                        offset: *offset as i64,
                    }
                }
                Operand::Reg(_) => {
                    let what = format!("the initializer of `{}` reads a register", o.name);
                    return Err(RuntimeError::MalformedIr(what));
                }
            };
            let end = cell.offset.checked_add(cell.ty.bytes(self.dm));
            if end.is_none_or(|end| end > o.size) {
                let what = format!(
                    "initializer cell at offset {} of `{}` is outside it",
                    cell.offset, o.name
                );
                return Err(RuntimeError::MalformedIr(what));
            }
            self.mem.init_cell(obj, cell.offset, cell.ty, value);
        }
        Ok(())
    }

    /// Runs the program to its end.
    pub fn run(mut self) -> Result<Execution, RuntimeError> {
        let start = match &self.cfg.context {
            Some(ctx) => self.start_context(ctx),
            None => self.start_main(),
        };
        let outcome = match start.and_then(|()| self.step_loop()) {
            Ok(never) => match never {},
            Err(Stop::End(outcome)) => *outcome,
            Err(Stop::Error(e)) => return Err(e),
        };
        self.stats.threads = self.threads.len() as u32;
        Ok(Execution {
            outcome,
            trace: self.trace,
            inputs: self.input_log,
            output: self.output,
            stats: self.stats,
            statements: self.statements,
        })
    }

    /// Creates thread 0 in `main` and runs it to its first visible event.
    fn start_main(&mut self) -> Flow {
        let main = self.prog.function(self.prog.main);
        let args = self.main_arguments(main);
        self.spawn(main, &args)?;
        self.run_local(ThreadId::MAIN)
    }

    /// `argc`, `argv = {"main", ARGS..., NULL}` for a `main` that declares them
    /// (`RunConfig::args`; each string its own object, NUL-terminated).
    fn main_arguments(&mut self, main: &Function) -> Vec<Value> {
        if main.params.is_empty() {
            return Vec::new();
        }
        let words: Vec<&str> = std::iter::once("main")
            .chain(self.cfg.args.iter().map(String::as_str))
            .collect();
        let ptr_bytes = self.dm.pointer_bytes();
        let argv = self
            .mem
            .new_static(Origin::Argv, (words.len() as u64 + 1) * ptr_bytes, false);
        for (n, word) in words.iter().enumerate() {
            let bytes = word.as_bytes();
            let text = self
                .mem
                .new_static(Origin::Argv, bytes.len() as u64 + 1, false);
            for (i, byte) in bytes.iter().enumerate() {
                self.mem
                    .init_cell(text, i as u64, Scalar::I8, Value::Int(u64::from(*byte)));
            }
            let ptr = Value::Ptr {
                obj: text,
                offset: 0,
            };
            self.mem
                .init_cell(argv, n as u64 * ptr_bytes, Scalar::Ptr, ptr);
        }
        let mut args = vec![
            Value::Int(words.len() as u64),
            Value::Ptr {
                obj: argv,
                offset: 0,
            },
        ];
        args.resize(main.params.len(), Value::ZERO);
        args
    }

    /// Adds a thread positioned at the entry of `func` (not yet run).
    pub fn spawn(&mut self, func: &'p Function, args: &[Value]) -> Flow<ThreadId> {
        if self.threads.len() >= self.cfg.max_threads {
            let bound = Bound::Threads(self.cfg.max_threads);
            return Err(Stop::end(RunOutcome::BoundHit { bound }));
        }
        let id = ThreadId(self.threads.len() as u32);
        self.live.push(id);
        let prog = self.prog;
        let tls = self
            .tls_objects
            .iter()
            .map(|&obj| {
                let size = prog.object(obj).size;
                self.mem
                    .new_static(Origin::ThreadLocal { obj, thread: id.0 }, size, false)
            })
            .collect();
        self.threads.push(Thread {
            frames: Vec::new(),
            state: ThreadState::AtEvent(Gate::Open),
            atomic: 0,
            tls,
        });
        for (i, &obj) in self.tls_objects.clone().iter().enumerate() {
            let instance = self.threads[id.index()].tls[i];
            self.write_initializer(obj, instance, Some(id.index()))?;
        }
        let frame = self.new_frame(func, args, None)?;
        self.threads[id.index()].frames.push(frame);
        Ok(id)
    }

    /// A fresh activation of `func` with its parameters bound to `args`.
    pub fn new_frame(
        &mut self,
        func: &'p Function,
        args: &[Value],
        ret_dst: Option<RegId>,
    ) -> Flow<Frame<'p>> {
        if args.len() < func.params.len() {
            return Err(self.unsupported(format!(
                "call of `{}` with {} argument(s); it has {} parameter(s)",
                func.name,
                args.len(),
                func.params.len()
            )));
        }
        let mut regs = vec![Value::ZERO; func.regs.len()];
        for (&param, &arg) in func.params.iter().zip(args) {
            regs[param.index()] = arg.truncated(func.reg(param).ty.bits(self.dm));
        }
        let slots = func.slots.iter().map(|&s| self.mem.new_slot(s)).collect();
        Ok(Frame {
            func,
            block: 0,
            index: 0,
            regs,
            slots,
            ret_dst,
        })
    }

    /// The scheduling loop: one visible event of one enabled thread per step.
    fn step_loop(&mut self) -> Flow<std::convert::Infallible> {
        let mut enabled = Vec::new();
        let mut wakeable = Vec::new();
        loop {
            self.enabled_threads(&mut enabled);
            self.wakeable_threads(&mut wakeable);
            let listed_wake = self
                .sched
                .next_listed()
                .is_some_and(|t| wakeable.contains(&t));
            if enabled.is_empty() && !listed_wake {
                return Err(self.nothing_enabled());
            }
            if let Some(max) = self.cfg.max_steps.filter(|&max| self.stats.steps >= max) {
                return Err(Stop::end(RunOutcome::BoundHit {
                    bound: Bound::Steps(max),
                }));
            }
            let t = self.sched.choose(self.stats.steps, &enabled, &wakeable)?;
            self.stats.steps += 1;
            self.step(t)?;
        }
    }

    /// Executes the pending visible event of `t`, then runs `t` to its next one.
    fn step(&mut self, t: ThreadId) -> Flow {
        match self.threads[t.index()].state {
            ThreadState::AtEvent(_) => {
                let (func, block, index) = self.position(t);
                let stmt = &func.blocks[block].stmts[index];
                self.record(t, stmt.id, stmt.span, EventKind::Statement);
                self.count_statement()?;
                let before = self
                    .cfg
                    .record_statements
                    .then(|| self.visible_before(t, stmt));
                self.exec_visible(t, stmt)?;
                if let Some(before) = before {
                    self.record_visible(t, stmt, before);
                }
            }
            ThreadState::Waiting {
                cond,
                mutex,
                stmt,
                span,
            } => {
                // A spurious wake-up (only an explicit schedule entry chooses one): the
                // thread leaves the condition's queue and re-acquires the mutex.
                if let Some(q) = self.conds.get_mut(&cond) {
                    q.retain(|&w| w != t);
                }
                self.record(t, stmt, span, EventKind::Reacquire);
                self.record_note(t, stmt, StmtNote::Reacquire);
                self.mutexes.insert(mutex, t);
                self.race_acquire(t, mutex);
                self.threads[t.index()].state = ThreadState::AtEvent(Gate::Open);
            }
            ThreadState::Reacquire { mutex, stmt, span } => {
                self.record(t, stmt, span, EventKind::Reacquire);
                self.record_note(t, stmt, StmtNote::Reacquire);
                self.mutexes.insert(mutex, t);
                self.race_acquire(t, mutex);
                self.threads[t.index()].state = ThreadState::AtEvent(Gate::Open);
            }
            ThreadState::Ending {
                value,
                exit_program,
                stmt,
                span,
            } => {
                self.record(t, stmt, span, EventKind::ThreadEnd);
                self.record_note(t, stmt, StmtNote::ThreadEnd);
                return self.end_thread(t, value, exit_program);
            }
            ThreadState::Finished { .. } | ThreadState::Joined | ThreadState::LoopsForever => {
                return Err(Stop::Error(RuntimeError::MalformedIr(format!(
                    "internal: thread {t} was scheduled while it cannot run"
                ))));
            }
        }
        if matches!(self.threads[t.index()].state, ThreadState::AtEvent(_)) {
            self.run_local(t)?;
        }
        Ok(())
    }

    fn record(&mut self, thread: ThreadId, stmt: StmtId, span: Span, event: EventKind) {
        self.cur_thread = thread;
        self.cur_stmt = stmt;
        self.cur_span = span;
        if self.cfg.record_trace {
            self.trace.push(TraceStep {
                thread,
                stmt,
                span,
                event,
            });
        }
    }

    /// The end event of a thread.
    fn end_thread(&mut self, t: ThreadId, value: Value, exit_program: bool) -> Flow {
        if exit_program {
            let ret = self.prog.function(self.prog.main).ret;
            let exit_code = match (value, ret) {
                (Value::Int(bits), Some(ty @ Scalar::Int { .. })) => {
                    as_number(bits, ty, self.dm) as i64
                }
                _ => 0,
            };
            return Err(Stop::end(RunOutcome::Completed { exit_code }));
        }
        if let Some(races) = &mut self.races {
            races.end(t);
        }
        let thread = &mut self.threads[t.index()];
        thread.state = ThreadState::Finished { value };
        thread.atomic = 0;
        let tls = std::mem::take(&mut thread.tls);
        for obj in tls {
            self.mem.kill(obj);
        }
        if self.atomic_owner == Some(t) {
            self.atomic_owner = None;
        }
        if let Ok(i) = self.live.binary_search(&t) {
            self.live.remove(i);
        }
        Ok(())
    }

    /// Runs the invisible statements of `t` until it is positioned at a visible event or
    /// its function has returned, or it is found looping forever without one
    /// ([`ThreadState::LoopsForever`]).
    pub fn run_local(&mut self, t: ThreadId) -> Flow {
        let mut cycle = LocalCycle::default();
        loop {
            let (func, block, index) = self.position(t);
            let block = &func.blocks[block];
            if let Some(stmt) = block.stmts.get(index) {
                if is_visible(&stmt.kind) {
                    self.threads[t.index()].state = ThreadState::AtEvent(self.gate_of(t));
                    return Ok(());
                }
                self.set_current(t, stmt.id, stmt.span);
                self.count_statement()?;
                let depth = self.threads[t.index()].frames.len();
                self.exec_local(t, stmt)?;
                if self.cfg.record_statements {
                    self.record_local(t, stmt, depth);
                }
            } else {
                self.set_current(t, block.term.id, block.term.span);
                self.count_statement()?;
                if self.cfg.record_statements {
                    self.record_term(t, &block.term);
                }
                if !self.exec_term(t, &block.term)? {
                    return Ok(());
                }
                let depth = self.threads[t.index()].frames.len();
                if cycle.tick(depth)
                    && self.atomic_owner != Some(t)
                    && self.threads[t.index()].atomic == 0
                    && cycle.repeats(self.local_state(t))
                {
                    self.threads[t.index()].state = ThreadState::LoopsForever;
                    return Ok(());
                }
            }
        }
    }

    /// What [`LocalCycle`] compares of `t`'s local state.
    fn local_state(&self, t: ThreadId) -> LocalState<'_> {
        let th = &self.threads[t.index()];
        let top = self.top(t);
        LocalState {
            depth: th.frames.len(),
            top: (top.func.id, top.block, top.index),
            inputs: self.input_log.len(),
            heap: (self.mem.object_count(), self.mem.heap_bytes),
            regs: &top.regs,
        }
    }

    fn set_current(&mut self, t: ThreadId, stmt: StmtId, span: Span) {
        self.cur_thread = t;
        self.cur_stmt = stmt;
        self.cur_span = span;
    }

    fn count_statement(&mut self) -> Flow {
        self.stats.statements += 1;
        if self.stats.statements > self.cfg.max_statements {
            let bound = Bound::Statements(self.cfg.max_statements);
            return Err(Stop::end(RunOutcome::BoundHit { bound }));
        }
        if self.stats.statements.is_multiple_of(4096)
            && self
                .cfg
                .deadline
                .is_some_and(|d| std::time::Instant::now() >= d)
        {
            let bound = Bound::Time;
            return Err(Stop::end(RunOutcome::BoundHit { bound }));
        }
        Ok(())
    }

    /// The function, block and statement index where `t` stands.
    pub fn position(&self, t: ThreadId) -> (&'p Function, usize, usize) {
        let f = self.top(t);
        (f.func, f.block, f.index)
    }

    pub fn top(&self, t: ThreadId) -> &Frame<'p> {
        self.threads[t.index()]
            .frames
            .last()
            .expect("a running thread has a frame")
    }

    pub fn top_mut(&mut self, t: ThreadId) -> &mut Frame<'p> {
        self.threads[t.index()]
            .frames
            .last_mut()
            .expect("a running thread has a frame")
    }

    /// Moves `t` past the statement it stands at.
    pub fn advance(&mut self, t: ThreadId) {
        self.top_mut(t).index += 1;
    }

    /// The value of an operand in the current frame of `t`.
    pub fn eval(&self, t: ThreadId, op: &Operand) -> Value {
        match op {
            Operand::Reg(r) => self.top(t).regs[r.index()],
            Operand::Int { bits, .. } => Value::Int(*bits),
            Operand::Null => Value::ZERO,
            Operand::Func(f) => Value::Func(*f),
            Operand::Addr { obj, offset } => {
                let base = match self.statics[obj.index()] {
                    StaticObj::Global(r) => r,
                    StaticObj::ThreadLocal(i) => self.threads[t.index()].tls[i],
                    // Validation guarantees the slot belongs to the current function.
                    StaticObj::Slot(i) => self.top(t).slots[i],
                };
                Value::Ptr {
                    obj: base,
                    offset: *offset as i64,
                }
            }
        }
    }

    pub fn set_reg(&mut self, t: ThreadId, reg: RegId, value: Value) {
        let dm = self.dm;
        let frame = self.top_mut(t);
        let bits = frame.func.reg(reg).ty.bits(dm);
        frame.regs[reg.index()] = value.truncated(bits);
    }

    /// The next input, as a value of `ty`, recorded in the input log.
    pub fn input(&mut self, ty: Scalar, source: InputSource) -> Flow<Value> {
        let (prog, span) = (self.prog, self.cur_span);
        let bits = self.inputs.take(ty, self.dm, || prog.location(span))?;
        self.input_log.push(InputRecord {
            value: as_number(bits, ty, self.dm),
            ty,
            thread: self.cur_thread,
            stmt: self.cur_stmt,
            span,
            step: self.stats.steps,
            source,
        });
        Ok(Value::Int(bits))
    }

    /// An uninitialized value of `ty` under the configured policy.
    pub fn uninit_value(&mut self, ty: Scalar) -> Flow<Value> {
        match self.cfg.uninit {
            UninitPolicy::Zero => Ok(Value::ZERO),
            UninitPolicy::Nondet => self.input(ty, InputSource::Uninit),
        }
    }

    /// Reads a scalar of type `ty` at `addr`, with every memory-safety check.
    pub fn load(&mut self, addr: Value, ty: Scalar) -> Flow<Value> {
        let (obj, offset) = self
            .mem
            .check(addr, ty.bytes(self.dm), Access::Read)
            .map_err(|f| self.fault(f))?;
        match self
            .mem
            .load_checked(obj, offset, ty)
            .map_err(|f| self.fault(f))?
        {
            Loaded::Value(v) => Ok(v),
            Loaded::Uninit if self.mem.initial_owner(obj).is_some() => {
                let owner = self.mem.initial_owner(obj).expect("checked");
                let v = self.initial_value(owner, offset, ty)?;
                // The initial state's value stays put: later reads of the cell agree.
                self.mem.store_checked(obj, offset, ty, v);
                Ok(v)
            }
            Loaded::Uninit => {
                let v = self.uninit_value(ty)?;
                // The chosen garbage stays put: later reads of the cell agree.
                if self.cfg.uninit == UninitPolicy::Nondet {
                    self.mem.store_checked(obj, offset, ty, v);
                }
                Ok(v)
            }
        }
    }

    /// Writes a scalar of type `ty` at `addr`, with every memory-safety check.
    pub fn store(&mut self, addr: Value, ty: Scalar, value: Value) -> Flow {
        let (obj, offset) = self
            .mem
            .check(addr, ty.bytes(self.dm), Access::Write)
            .map_err(|f| self.fault(f))?;
        self.mem.store_checked(obj, offset, ty, value);
        Ok(())
    }

    pub fn fault(&self, fault: MemFault) -> Stop {
        match fault {
            MemFault::Violation(kind, message) => self.violation(kind, message),
            MemFault::Unsupported(what) => self.unsupported(what),
        }
    }

    /// A violation at the current statement.
    pub fn violation(&self, kind: ViolationKind, message: impl Into<String>) -> Stop {
        Stop::end(RunOutcome::Violation(Violation {
            kind,
            message: message.into(),
            thread: self.cur_thread,
            span: self.cur_span,
            location: self.prog.location(self.cur_span),
            blocked: Vec::new(),
            call_sites: self.call_sites(self.cur_thread),
            race: None,
        }))
    }

    /// The spans of the calls thread `t` stands in, innermost first (a caller frame has
    /// moved past its call statement).
    pub fn call_sites(&self, t: ThreadId) -> Vec<Span> {
        let Some(thread) = self.threads.get(t.index()) else {
            return Vec::new();
        };
        let frames = &thread.frames;
        frames
            .iter()
            .take(frames.len().saturating_sub(1))
            .rev()
            .filter_map(|f| {
                let block = f.func.blocks.get(f.block)?;
                block.stmts.get(f.index.checked_sub(1)?).map(|s| s.span)
            })
            .collect()
    }

    /// A runtime error for unsupported behaviour at the current statement.
    pub fn unsupported(&self, what: impl Into<String>) -> Stop {
        Stop::Error(RuntimeError::unsupported(self.prog, self.cur_span, what))
    }

    pub fn func_name(&self, f: FuncId) -> &'p str {
        &self.prog.function(f).name
    }
}

/// Loads, stores and synchronizations are the events other threads can observe; every
/// other statement runs without a scheduling point.
pub(crate) fn is_visible(kind: &StmtKind) -> bool {
    matches!(
        kind,
        StmtKind::Load { .. } | StmtKind::Store { .. } | StmtKind::Sync { .. }
    )
}
