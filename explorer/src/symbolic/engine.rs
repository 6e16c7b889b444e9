//! The search driver: the path condition and its model, forks, the ends of runs, and
//! the final verdict.
//!
//! The path condition is a stack of conjuncts mirrored into Z3 by [`Smt`]. The engine
//! keeps an assignment that satisfies it (the last model, zeros for newer inputs): a
//! fork side that holds under it needs no query. Equalities `t == k` asserted by a fork
//! *pin* `t` to `k`, so an address or thread id that was concretized is read as a
//! constant by the statement that forked on it.

use super::dpor::{Access, Dpor, Footprint, Loc};
use super::model::Assignment;
use super::names::{Names, ObjInst, ObjName, ThreadKey};
use super::smt::{Answer, Smt};
use super::state::{State, Tid};
use super::summary::{Accesses, Summaries, WpOp};
use super::term::{TermId, TermPool, Var};
use super::{Checks, Config, Found, Incomplete, Outcome, Stats, Strategy, Verdict, VerifyError};
use crate::concrete::{EventKind, InputSource, ViolationKind};
use analysis::ir::{DataModel, FuncId, ObjId, ObjectKind, Program, Scalar, Span, StmtId, TermKind};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Instant;

/// The result of exploring a subtree.
pub struct Sub {
    /// Its weakest precondition over the state variables where it starts (only with
    /// summaries on; `true` otherwise).
    pub wp: TermId,
    /// Accesses made below it, by thread name (only with summaries on).
    pub rw: Accesses,
}

/// How a run ends inside a step.
#[derive(Clone, Debug)]
pub enum End {
    /// The program completed (main returned, `exit`, every thread ended).
    Completed,
    /// `abort()`.
    Aborted,
    /// A property violation (reported or not, depending on [`Checks`]).
    Violation {
        kind: ViolationKind,
        message: String,
        span: Span,
        tid: Tid,
    },
    /// The run ends in a thread's local code without a violation: a false `assume`
    /// (and, with a `gap`, an `abort()` or `exit()`). `gap`: this happened after the step
    /// had effects on other threads; the interpreter ends the run there, while SV-COMP's
    /// semantics only stops the thread, which may let other threads reach more (the
    /// engine explores that continuation too, see [`Engine::frozen_check`]).
    AssumeFalse { gap: Option<String> },
    /// No thread can run and some have not ended.
    Deadlock { span: Span, tid: Tid },
    /// Behaviour outside the model.
    Unsupported(String),
    /// A bound stopped the run: (reason, detail).
    Bound(&'static str, String),
}

/// What a step has done so far (cloned at forks).
#[derive(Clone, Debug)]
pub struct StepCtx {
    /// The scheduled thread; `None` for `main`'s prefix before the first step.
    pub tid: Option<Tid>,
    /// Its pending event has not run yet.
    pub event_pending: bool,
    /// The accesses of the step.
    pub foot: Footprint,
    /// Creators to resume when the current thread stands at its next event.
    pub resume: Vec<Tid>,
    /// Threads created in this step.
    pub created: Vec<Tid>,
    /// A description of the step's first effect visible to other threads, if any.
    pub shared_effect: Option<String>,
    /// The thread running now.
    pub cur: Tid,
    /// For each thread that ran in the step: where its inputs and path conditions since
    /// its last visible event start (indices into the path's inputs and conjuncts).
    pub fresh: Vec<(Tid, usize, usize)>,
    /// Statements executed in the step.
    pub statements: u64,
    /// Local states of the running threads at loop headers in this step, to recognise
    /// a loop that never reaches a visible event.
    pub loop_states: Vec<(u64, Tid, Vec<super::state::Frame>)>,
}

impl StepCtx {
    pub fn initial() -> StepCtx {
        StepCtx {
            tid: None,
            event_pending: false,
            foot: Vec::new(),
            resume: Vec::new(),
            created: Vec::new(),
            shared_effect: None,
            cur: 0,
            fresh: Vec::new(),
            statements: 0,
            loop_states: Vec::new(),
        }
    }

    /// Thread `t`'s inputs and conjuncts are fresh (private to it) from these indices.
    pub fn mark_fresh(&mut self, t: Tid, inputs: usize, pcon: usize) {
        self.fresh.retain(|(u, _, _)| *u != t);
        self.fresh.push((t, inputs, pcon));
    }

    pub fn of(t: Tid) -> StepCtx {
        StepCtx {
            tid: Some(t),
            event_pending: true,
            cur: t,
            ..StepCtx::initial()
        }
    }

    pub fn touch(&mut self, a: Access) {
        if !self.foot.contains(&a) {
            self.foot.push(a);
        }
    }
}

/// An input read on the current path, in the interpreter's consumption order.
#[derive(Clone, Debug)]
pub struct InputRec {
    pub var: Var,
    pub ty: Scalar,
    pub tid: Tid,
    pub stmt: StmtId,
    pub source: InputSource,
}

/// One interpreter step on the current path.
#[derive(Clone, Copy, Debug)]
pub struct TraceItem {
    pub tid: Tid,
    pub stmt: StmtId,
    pub span: Span,
    pub event: EventKind,
}

/// The path of one search state: its condition, pins, model, trace and inputs — what
/// the engine keeps for the current path. A search that keeps many states alive at once
/// (the guided search of [`crate::guided`]) stores one per state and installs it before
/// running a step from that state, instead of pushing and popping one path with
/// [`Engine::under`].
#[derive(Clone, Default)]
pub struct PathCond {
    pub pcon: Vec<TermId>,
    pub pins: FxHashMap<TermId, u64>,
    /// An assignment satisfying `pcon` (the engine's model shortcut relies on it).
    pub model: Assignment,
    pub trace: PathTrace,
    pub inputs: Vec<InputRec>,
}

/// The trace of a stored path, sharing its prefix with the path it grew from: a search
/// that keeps many states alive stores each step of their common history once, not once
/// per state (paths run to thousands of steps).
#[derive(Clone, Default)]
pub struct PathTrace {
    last: Option<Rc<TraceChunk>>,
}

/// The steps a path added to its prefix.
struct TraceChunk {
    items: Vec<TraceItem>,
    prefix: Option<Rc<TraceChunk>>,
    /// Steps in the prefix and here.
    len: usize,
}

impl PathTrace {
    pub fn len(&self) -> usize {
        self.last.as_ref().map_or(0, |c| c.len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// This trace followed by `items`.
    pub fn extended(&self, items: &[TraceItem]) -> PathTrace {
        if items.is_empty() {
            return self.clone();
        }
        PathTrace {
            last: Some(Rc::new(TraceChunk {
                items: items.to_vec(),
                prefix: self.last.clone(),
                len: self.len() + items.len(),
            })),
        }
    }

    /// The steps, first to last.
    pub fn to_vec(&self) -> Vec<TraceItem> {
        let mut chunks = Vec::new();
        let mut at = self.last.as_deref();
        while let Some(c) = at {
            chunks.push(c);
            at = c.prefix.as_deref();
        }
        let mut out = Vec::with_capacity(self.len());
        for c in chunks.iter().rev() {
            out.extend_from_slice(&c.items);
        }
        out
    }
}

impl PathCond {
    /// Conjoins a fork side's guard (and pin), as [`Engine::under`] does on entering it.
    pub fn assume(&mut self, pool: &TermPool, guard: TermId, pin: Option<(TermId, u64)>) {
        if !pool.is_true(guard) {
            self.pcon.push(guard);
        }
        if let Some((t, v)) = pin {
            self.pins.insert(t, v);
        }
    }
}

/// One side of a fork.
pub struct Side {
    /// The side's condition (forward) and its form over state variables.
    pub guard: TermId,
    pub guard_wp: TermId,
    /// `(term, value)` when the side fixes a term to a constant.
    pub pin: Option<(TermId, u64)>,
    pub next: SideNext,
}

pub enum SideNext {
    Continue(State),
    End(State, End),
}

/// How a static object id is instantiated.
#[derive(Clone, Copy)]
pub enum StaticObj {
    Global(ObjInst),
    ThreadLocal(usize),
    Slot(usize),
}

/// The engine: what is fixed for the program ([`Setup`]), the current path
/// ([`CurrentPath`]), what the search has learnt so far ([`SearchState`]), and the term
/// pool, solver and object/thread names all three share.
pub struct Engine<'p> {
    pub setup: Setup<'p>,
    pub path: CurrentPath,
    pub search: SearchState,
    pub pool: TermPool,
    pub smt: Smt,
    pub names: Names,
}

/// What is fixed for one program and configuration: read by every step, never changed
/// by the search (the slice parts are computed once, when the search starts).
pub struct Setup<'p> {
    pub prog: &'p Program,
    pub cfg: &'p Config,
    pub dm: DataModel,
    pub statics: Vec<StaticObj>,
    pub tls_objects: Vec<ObjId>,
    /// Back edges `(function, from block, to block)`.
    pub back_edges: FxHashSet<(FuncId, u32, u32)>,
    /// Targets of back edges: loop headers `(function, block)`.
    pub loop_headers: FxHashSet<(FuncId, u32)>,
    /// Registers some statement or terminator reads, per function.
    pub read_regs: Vec<FxHashSet<analysis::ir::RegId>>,
    pub dead_marker: ObjInst,
    /// The accesses of the atomic sections whose extent is known, by their begin.
    pub atomic_footprints: FxHashMap<StmtId, Vec<Access>>,
    /// Weakest preconditions (and summaries) are computed: dpor+ag.
    pub wp_on: bool,
    /// Static reachability of the targets, when the Type A cut is on.
    pub reach: Option<super::reach::Reach>,
    /// The slice for Type B pivots, when it is on and the slice qualifies.
    pub type_b: Option<super::type_b::TypeB>,
    /// Type B branch pivots are on (else every side of every branch is explored).
    pub type_b_branches: bool,
}

/// The path the depth-first search stands on: its condition with the pins it carries,
/// a model of it, its inputs and trace, all restored when a fork side is left
/// ([`Engine::under`]).
#[derive(Default)]
pub struct CurrentPath {
    pub pcon: Vec<TermId>,
    /// How often each conjunct is in `pcon`.
    pcon_set: FxHashMap<TermId, u32>,
    pub pins: FxHashMap<TermId, u64>,
    /// Per conjunct pushed: the pin it set and the value that pin had before.
    pin_log: Vec<Option<(TermId, Option<u64>)>>,
    pub model: Assignment,
    pub inputs: Vec<InputRec>,
    pub trace: Vec<TraceItem>,
    /// The stored trace `install_path` put in place: `trace` starts with it, so
    /// `capture_path` shares it instead of copying.
    installed_trace: PathTrace,
    /// Why the current path continues past the interpreter's end of a run (see
    /// [`Engine::frozen_check`]); violations found meanwhile are not reportable.
    pub frozen: Vec<String>,
    /// The guards of the Type B branch sides explored on the current path, left out of
    /// the path condition (see [`super::type_b`]); a witness prefers inputs under which
    /// those sides really run.
    pub dropped_guards: Vec<TermId>,
}

/// What the search keeps across paths: the DPOR stack, the summaries, the nodes on the
/// current path, what it found and why it cannot conclude, its statistics and budget.
pub struct SearchState {
    pub dpor: Dpor,
    /// Nodes of the current path by state fingerprint.
    pub on_stack: FxHashMap<u64, Vec<usize>>,
    pub summaries: Option<Summaries>,
    pub stats: Stats,
    pub found: Vec<Found>,
    /// Why the search cannot conclude `Safe`: the first detail per reason.
    incomplete: BTreeMap<String, String>,
    /// The search is over (a bound, the first violation, an error).
    pub stop: bool,
    pub error: Option<VerifyError>,
    /// A violation was found whose witness needed a side a Type B branch pivot skipped
    /// and did not replay: the search is redone without those pivots.
    retry_without_type_b: bool,
    pub budget: Budget,
}

/// The wall-clock side of the search: its deadline, and when memory and progress were
/// last checked.
pub struct Budget {
    started: Instant,
    deadline: Option<Instant>,
    last_progress: Instant,
    last_memory_check: Instant,
    progress_shown: bool,
}

impl Budget {
    fn starting_now(timeout: Option<std::time::Duration>) -> Budget {
        let started = Instant::now();
        Budget {
            started,
            deadline: timeout.map(|t| started + t),
            last_progress: started,
            last_memory_check: started,
            progress_shown: false,
        }
    }
}

impl SearchState {
    fn new(cfg: &Config, wp_on: bool) -> SearchState {
        SearchState {
            dpor: Dpor::default(),
            on_stack: FxHashMap::default(),
            summaries: wp_on.then(|| Summaries::new(cfg.summary_slots, cfg.summary_size_bound)),
            stats: Stats::default(),
            found: Vec::new(),
            incomplete: BTreeMap::new(),
            stop: false,
            error: None,
            retry_without_type_b: false,
            budget: Budget::starting_now(cfg.timeout),
        }
    }
}

impl<'p> Engine<'p> {
    pub fn new(prog: &'p Program, cfg: &'p Config) -> Result<Engine<'p>, VerifyError> {
        let mut names = Names::default();
        let (statics, tls_objects) = static_objects(prog, &mut names)?;
        let dead_marker = names.object(ObjName::Dead);
        let atomic_footprints = super::reach::atomic_sections(prog, &mut names);
        let back_edges = back_edges(prog);
        let wp_on = cfg.strategy == Strategy::DporAg;
        let search = SearchState::new(cfg, wp_on);
        let mut smt = Smt::new(Some(cfg.query_timeout));
        smt.set_deadline(search.budget.deadline);
        Ok(Engine {
            setup: Setup {
                prog,
                cfg,
                dm: prog.data_model,
                statics,
                tls_objects,
                loop_headers: back_edges.iter().map(|&(f, _, b)| (f, b)).collect(),
                back_edges,
                read_regs: read_regs(prog),
                dead_marker,
                atomic_footprints,
                wp_on,
                reach: None,
                type_b: None,
                type_b_branches: true,
            },
            path: CurrentPath::default(),
            search,
            pool: TermPool::new(),
            smt,
            names,
        })
    }

    /// Is the Type A cut of §6.1 on? Only for dpor+ag with the slice, and only when the
    /// search checks nothing but the targets (a deadlock or memory error could still
    /// happen after the last target).
    pub fn cut_on(&self) -> bool {
        self.setup.cfg.slice
            && self.setup.cfg.strategy == Strategy::DporAg
            && !self.setup.cfg.checks.deadlock
            && !self.setup.cfg.checks.memory
    }

    /// Runs the search and decides the verdict.
    pub fn search(mut self) -> Result<Outcome, VerifyError> {
        if self.cut_on() {
            let prog = self.setup.prog;
            let targets = self.setup.cfg.targets.clone();
            // The targets, and every block that may end a run with undefined behaviour
            // or an unsupported construct: the unreduced search would answer UNKNOWN
            // there, so no cut may hide one (see `type_b::may_fail`).
            let read = &self.setup.read_regs;
            let is_target = |f: usize, b: usize| {
                let term = &prog.functions[f].blocks[b].term;
                let target = matches!(term.kind, TermKind::Error(_))
                    && targets.as_ref().is_none_or(|ts| {
                        ts.iter()
                            .any(|&(file, line)| term.span.file == file && term.span.line == line)
                    });
                target || super::type_b::block_may_fail(prog, read, f, b)
            };
            self.setup.reach = Some(super::reach::Reach::new(prog, &mut self.names, &is_target));
            let relevant = self.setup.cfg.relevant.as_ref();
            self.setup.type_b = relevant.and_then(|r| super::type_b::TypeB::new(prog, r));
        }
        let st = self.initial_state()?;
        let _ = self.run(st, 0, StepCtx::initial());
        if self.search.budget.progress_shown {
            eprint!("\r\x1b[K");
        }
        if let Some(e) = self.search.error.take() {
            return Err(e);
        }
        if self.search.retry_without_type_b {
            let mut again = Engine::new(self.setup.prog, self.setup.cfg)?;
            again.setup.type_b_branches = false;
            again.search.budget.started = self.search.budget.started;
            again.search.budget.deadline = self.search.budget.deadline;
            again.smt.set_deadline(self.search.budget.deadline);
            return again.search();
        }
        self.search.stats.type_b_races = self.search.dpor.type_b_races;
        self.search.stats.slice_skips += self.search.dpor.type_b_races;
        self.search.stats.solver_queries = self.smt.stats.queries;
        self.search.stats.solver_cache_hits = self.smt.stats.cache_hits;
        self.search.stats.solver_time_ms = self.smt.stats.time.as_secs_f64() * 1000.0;
        self.search.stats.time_ms = self.search.budget.started.elapsed().as_secs_f64() * 1000.0;
        let incomplete: Vec<Incomplete> = self
            .search
            .incomplete
            .iter()
            .map(|(reason, detail)| Incomplete {
                reason: reason.clone(),
                detail: detail.clone(),
            })
            .collect();
        let verdict = if !self.search.found.is_empty() {
            Verdict::Violation
        } else if incomplete.is_empty() {
            Verdict::Safe
        } else {
            Verdict::Unknown
        };
        Ok(Outcome {
            verdict,
            strategy: self.setup.cfg.strategy,
            violations: self.search.found,
            incomplete,
            stats: self.search.stats,
        })
    }

    // ---- bookkeeping ----

    /// Records why the search cannot conclude `Safe` (the first detail per reason).
    pub fn incomplete(&mut self, reason: &str, detail: String) {
        self.search
            .incomplete
            .entry(reason.to_string())
            .or_insert(detail);
    }

    pub fn location(&self, span: Span) -> String {
        self.setup.prog.location(span)
    }

    /// A result that claims nothing (wp false): for cut or unexplored subtrees.
    pub fn nothing(&mut self) -> Sub {
        Sub {
            wp: self.pool.fals(),
            rw: Accesses::default(),
        }
    }

    pub fn safe(&mut self) -> Sub {
        Sub {
            wp: self.pool.tru(),
            rw: Accesses::default(),
        }
    }

    /// Checks the time and state budgets; prints progress on a terminal.
    pub fn out_of_time(&mut self) -> bool {
        if self.search.stop {
            return true;
        }
        if let Some(max) = self.setup.cfg.max_states {
            if self.search.stats.states > max {
                self.incomplete(
                    "state bound",
                    format!("the search stopped after {max} scheduling nodes"),
                );
                self.search.stop = true;
                return true;
            }
        }
        let now = Instant::now();
        if let Some(d) = self.search.budget.deadline {
            if now >= d {
                let secs = self.setup.cfg.timeout.map_or(0.0, |t| t.as_secs_f64());
                self.incomplete("timeout", format!("the search stopped after {secs:.1} s"));
                self.search.stop = true;
                return true;
            }
        }
        if now
            .duration_since(self.search.budget.last_memory_check)
            .as_millis()
            >= 50
        {
            self.search.budget.last_memory_check = now;
            if let Some(rss) = resident_bytes().filter(|&b| b > self.setup.cfg.max_memory) {
                self.incomplete(
                    "memory",
                    format!(
                        "the search stopped at {} MiB resident, over its budget of {} MiB",
                        rss >> 20,
                        self.setup.cfg.max_memory >> 20
                    ),
                );
                self.search.stop = true;
                return true;
            }
        }
        if now
            .duration_since(self.search.budget.last_progress)
            .as_secs()
            >= 1
        {
            self.search.budget.last_progress = now;
            self.search.budget.progress_shown |= progress_line(
                &self.search.stats,
                now.duration_since(self.search.budget.started).as_secs_f64(),
            );
        }
        false
    }

    /// The thread key of a runtime thread.
    pub fn key_of(st: &State, t: Tid) -> ThreadKey {
        st.threads[t].key
    }

    // ---- the path condition ----

    /// Makes `path` the current path (outside [`Engine::under`], whose undo log it
    /// replaces).
    pub fn install_path(&mut self, path: &PathCond) {
        self.path.pcon.clone_from(&path.pcon);
        self.path.pcon_set.clear();
        for &c in &self.path.pcon {
            *self.path.pcon_set.entry(c).or_insert(0) += 1;
        }
        self.path.pins.clone_from(&path.pins);
        self.path.pin_log.clear();
        self.path.model = path.model.clone();
        self.path.trace = path.trace.to_vec();
        self.path.installed_trace = path.trace.clone();
        self.path.inputs.clone_from(&path.inputs);
    }

    /// The current path.
    pub fn capture_path(&self) -> PathCond {
        PathCond {
            pcon: self.path.pcon.clone(),
            pins: self.path.pins.clone(),
            model: self.path.model.clone(),
            trace: self.captured_trace(),
            inputs: self.path.inputs.clone(),
        }
    }

    /// The current trace as a stored one, sharing the installed prefix when the trace
    /// only grew since `install_path` (as it does within a step).
    fn captured_trace(&self) -> PathTrace {
        let n = self.path.installed_trace.len();
        if self.path.trace.len() >= n {
            self.path.installed_trace.extended(&self.path.trace[n..])
        } else {
            PathTrace::default().extended(&self.path.trace)
        }
    }

    /// Does `c` certainly hold on the current path (folded true, or a conjunct)?
    pub fn holds(&self, c: TermId) -> bool {
        self.pool.is_true(c) || self.path.pcon_set.contains_key(&c)
    }

    /// The constant value of a term: folded, or pinned on this path.
    pub fn concrete(&self, t: TermId) -> Option<u64> {
        self.pool
            .as_bv(t)
            .or_else(|| self.path.pins.get(&t).copied())
    }

    fn push_pcon(&mut self, c: TermId, pin: Option<(TermId, u64)>) {
        if self.pool.is_true(c) {
            self.path.pin_log.push(None);
        } else {
            self.path.pcon.push(c);
            *self.path.pcon_set.entry(c).or_insert(0) += 1;
            self.path.pin_log.push(None);
        }
        if let Some((t, v)) = pin {
            let old = self.path.pins.insert(t, v);
            *self.path.pin_log.last_mut().expect("just pushed") = Some((t, old));
        }
    }

    fn pop_pcon(&mut self, c: TermId) {
        if let Some(Some((t, old))) = self.path.pin_log.pop() {
            match old {
                Some(v) => self.path.pins.insert(t, v),
                None => self.path.pins.remove(&t),
            };
        }
        if !self.pool.is_true(c) {
            self.path.pcon.pop();
            if let Some(n) = self.path.pcon_set.get_mut(&c) {
                *n -= 1;
                if *n == 0 {
                    self.path.pcon_set.remove(&c);
                }
            }
        }
    }

    fn wanted(&self) -> Vec<(Var, u8)> {
        self.path
            .inputs
            .iter()
            .map(|i| (i.var, i.ty.bits(self.setup.dm)))
            .collect()
    }

    /// Is `pcon ∧ c` satisfiable? `None` when the solver gave up. On `Some(true)` the
    /// model satisfies `pcon ∧ c`.
    pub fn feasible(&mut self, c: TermId) -> Option<bool> {
        if let Some(b) = self.pool.as_bool(c) {
            return Some(b);
        }
        if self.path.pcon_set.contains_key(&c) {
            return Some(true);
        }
        let neg = self.pool.not(c);
        if self.path.pcon_set.contains_key(&neg) {
            return Some(false);
        }
        if self.path.model.holds(&self.pool, c) == Some(true) {
            return Some(true);
        }
        let wanted = self.wanted();
        match self.smt.check(&self.pool, &self.path.pcon, c, &wanted) {
            Answer::Sat(m) => {
                for (v, val) in m.iter() {
                    self.path.model.set(*v, *val);
                }
                Some(true)
            }
            Answer::Unsat => Some(false),
            Answer::Unknown => None,
        }
    }

    /// Is `pcon ∧ c` unsatisfiable (i.e. `pcon ⇒ ¬c`)? `false` when unknown.
    pub fn surely_not(&mut self, c: TermId) -> bool {
        self.feasible(c) == Some(false)
    }

    /// Explores `f` under the extra condition `guard` (if feasible). Restores the path
    /// (condition, pins, trace, inputs) afterwards.
    pub fn under(
        &mut self,
        guard: TermId,
        pin: Option<(TermId, u64)>,
        f: impl FnOnce(&mut Self) -> Sub,
    ) -> Option<Sub> {
        match self.feasible(guard) {
            Some(true) => {}
            Some(false) => return None,
            None => {
                let what = "the solver gave up on a path condition".to_string();
                self.incomplete("solver", what);
                return None;
            }
        }
        let (trace, inputs) = (self.path.trace.len(), self.path.inputs.len());
        self.push_pcon(guard, pin);
        let sub = f(self);
        self.pop_pcon(guard);
        self.path.trace.truncate(trace);
        self.path.inputs.truncate(inputs);
        Some(sub)
    }

    /// Explores the sides of a fork; the wp is the union of `guard ∧ wp(side)`.
    pub fn fork(&mut self, sides: Vec<Side>, cur: Tid, k: &StepCtx) -> Sub {
        let mut wp = self.pool.fals();
        let mut rw = Accesses::default();
        for side in sides {
            if self.out_of_time() {
                break;
            }
            let guard_wp = side.guard_wp;
            let k = k.clone();
            let res = self.under(side.guard, side.pin, |e| match side.next {
                SideNext::Continue(st) => e.run(st, cur, k),
                SideNext::End(st, end) => e.leaf(&st, end, &k),
            });
            if let Some(sub) = res {
                if self.setup.wp_on {
                    let part = self.pool.and(guard_wp, sub.wp);
                    wp = self.pool.or(wp, part);
                    wp = self.capped(wp);
                    rw.extend(sub.rw);
                }
            }
        }
        Sub { wp, rw }
    }

    /// The values a term can take on this path (at most `cap`), each with its guard.
    /// `None` if there are more, or the solver gave up.
    pub fn enumerate(&mut self, t: TermId, cap: usize) -> Option<Vec<u64>> {
        if let Some(v) = self.concrete(t) {
            return Some(vec![v]);
        }
        let w = self.pool.width(t);
        let mut values = Vec::new();
        let mut excluded = self.pool.tru();
        loop {
            let wanted = {
                let mut w0 = self.wanted();
                w0.extend(self.pool.vars(t));
                w0
            };
            let probe = match self
                .smt
                .check(&self.pool, &self.path.pcon, excluded, &wanted)
            {
                Answer::Sat(m) => m,
                Answer::Unsat => return Some(values),
                Answer::Unknown => return None,
            };
            let v = probe.eval(&self.pool, t)?;
            if values.len() == cap {
                return None;
            }
            values.push(v);
            let k = self.pool.bv_const(v, w);
            let ne = self.pool.ne(t, k);
            excluded = self.pool.and(excluded, ne);
        }
    }

    /// A fresh input of type `ty` read by thread `t` at `stmt`.
    pub fn new_input(
        &mut self,
        st: &mut State,
        t: Tid,
        ty: Scalar,
        stmt: StmtId,
        source: InputSource,
    ) -> TermId {
        let th = &mut st.threads[t];
        let var = Var::Input {
            thread: th.key,
            index: th.inputs,
        };
        th.inputs += 1;
        self.path.inputs.push(InputRec {
            var,
            ty,
            tid: t,
            stmt,
            source,
        });
        self.pool.var(var, ty.bits(self.setup.dm))
    }

    /// With `Config::trace`, prints a search event and the current path to stderr.
    pub fn trace_event(&self, what: impl FnOnce() -> String) {
        if self.setup.cfg.trace {
            let path: Vec<String> = self
                .path
                .trace
                .iter()
                .map(|i| format!("{}:{}", i.tid, i.stmt))
                .collect();
            eprintln!("trace: {} after [{}]", what(), path.join(" "));
        }
    }

    // ---- the ends of runs ----

    /// A run ends inside a step.
    pub fn leaf(&mut self, st: &State, end: End, k: &StepCtx) -> Sub {
        self.search.stats.runs += 1;
        self.trace_event(|| format!("run ends ({end:?})"));
        self.races_at_end(st, k);
        let start = match (k.tid, self.search.dpor.nodes.last()) {
            (Some(t), Some(n)) => n.clocks.get(t).cloned().unwrap_or_default(),
            _ => Default::default(),
        };
        let rw = self.step_rw(st, k, &start, true);
        let safe = match end {
            End::Completed | End::Aborted => true,
            End::AssumeFalse { gap } => {
                if let Some(what) = gap {
                    self.frozen_check(st, k, what);
                }
                true
            }
            End::Deadlock { span, tid } => {
                if self.setup.cfg.checks.deadlock && !self.path.frozen.is_empty() {
                    let what = self.path.frozen.last().cloned().unwrap_or_default();
                    let detail = format!(
                        "a deadlock at {} is reachable if {what}",
                        self.location(span)
                    );
                    self.incomplete("eager-end", detail);
                    false
                } else if self.setup.cfg.checks.deadlock {
                    let message = "deadlock: no thread can run".to_string();
                    self.report(ViolationKind::Deadlock, message, span, tid);
                    false
                } else {
                    true
                }
            }
            End::Violation {
                kind,
                message,
                span,
                tid,
            } => {
                if self.reported(kind, span) && !self.path.frozen.is_empty() {
                    let what = self.path.frozen.last().cloned().unwrap_or_default();
                    let detail = format!(
                        "{message} at {} is reachable if {what}",
                        self.location(span)
                    );
                    self.incomplete("eager-end", detail);
                } else if self.reported(kind, span) {
                    self.report(kind, message, span, tid);
                } else if !is_assertion(kind) {
                    let detail = format!("{message} at {}", self.location(span));
                    self.incomplete("undefined-behaviour", detail);
                }
                false
            }
            End::Unsupported(what) => {
                self.incomplete("unsupported", what);
                false
            }
            End::Bound(reason, detail) => {
                self.incomplete(reason, detail);
                false
            }
        };
        let wp = self.pool.bool_const(safe);
        Sub { wp, rw }
    }

    /// A run ended in thread `k.cur`'s local code after the step affected other threads.
    /// The interpreter (whose runs witnesses must be) ends the run there; SV-COMP's
    /// interleaving semantics would only stop that thread. The continuation with the
    /// thread stopped is explored too: a violation found there cannot be replayed, so it
    /// makes the verdict `unknown` (reason `eager-end`) instead of being reported.
    pub fn frozen_check(&mut self, st: &State, k: &StepCtx, what: String) {
        let t = k.cur;
        if st.atomic_owner == Some(t) {
            return;
        }
        let mut frozen = st.clone();
        frozen.threads[t].status = super::state::Status::Stopped;
        let (trace, inputs) = (self.path.trace.len(), self.path.inputs.len());
        self.path.frozen.push(what);
        let mut k2 = k.clone();
        let _ = match k2.resume.pop() {
            Some(c) => self.run(frozen, c, k2),
            None => self.end_step(frozen, k2),
        };
        self.path.frozen.pop();
        self.path.trace.truncate(trace);
        self.path.inputs.truncate(inputs);
    }

    /// Is a violation of this kind at this place reported?
    fn reported(&self, kind: ViolationKind, span: Span) -> bool {
        let Checks { deadlock, memory } = self.setup.cfg.checks;
        let kind_ok = match kind {
            ViolationKind::Assertion | ViolationKind::ReachError => true,
            ViolationKind::Deadlock => deadlock,
            _ => memory,
        };
        let place_ok = match &self.setup.cfg.targets {
            None => true,
            Some(ts) => ts.iter().any(|&(f, l)| span.file == f && span.line == l),
        };
        kind_ok && place_ok
    }

    /// Builds, replays and records the witness of a violation on the current path (once
    /// per kind and place).
    fn report(&mut self, kind: ViolationKind, message: String, span: Span, tid: Tid) {
        if self
            .search
            .found
            .iter()
            .any(|f| f.kind == kind && f.span == span)
        {
            return;
        }
        // Prefer inputs under which the explored sides of the path's Type B branch
        // pivots really run: the interpreter then follows the path exactly.
        let mut model = self.path.model.clone();
        let mut exact = true;
        if !self.path.dropped_guards.is_empty() {
            let mut all = self.pool.tru();
            for &g in &self.path.dropped_guards.clone() {
                all = self.pool.and(all, g);
            }
            let wanted = self.wanted();
            match self.smt.check(&self.pool, &self.path.pcon, all, &wanted) {
                Answer::Sat(m) => {
                    for (v, val) in m.iter() {
                        model.set(*v, *val);
                    }
                }
                _ => exact = false,
            }
        }
        match super::witness::build_and_replay(self, &model, kind, &message, span) {
            Err(_) if !exact => {
                // Only a skipped side leads here with these inputs, and the replay took
                // a different schedule through it: redo the search without Type B
                // branch pivots (sound either way; this finds a replayable witness).
                self.search.retry_without_type_b = true;
                self.search.stop = true;
            }
            Ok(found) => {
                let _ = tid;
                self.search.found.push(found);
                if !self.setup.cfg.all_violations {
                    self.search.stop = true;
                }
            }
            Err(e) => {
                self.search.error = Some(e);
                self.search.stop = true;
            }
        }
    }

    /// The accesses of the current step as RVar/WVar entries, with the thread's clock
    /// before the step.
    /// A step that ends the run touches everything (other threads are cut off).
    pub fn step_rw(
        &self,
        st: &State,
        k: &StepCtx,
        clock: &super::dpor::VClock,
        ends_run: bool,
    ) -> Accesses {
        let mut rw = Accesses::default();
        if !self.setup.wp_on {
            return rw;
        }
        if let Some(t) = k.tid {
            let key = st.threads[t].key;
            let mut add = |a: Access| {
                let last = self.search.dpor.last_race(t, clock, &a);
                rw.add((key, a), clock, last);
            };
            for a in &k.foot {
                add(*a);
            }
            let others_live = (0..st.threads.len()).any(|u| u != t && st.is_live(u));
            if ends_run && others_live {
                add(Access::write(Loc::All));
            }
        }
        rw
    }

    /// At the end of a run inside a step: the step (which ends the run, so it is
    /// dependent with everything) races with every other thread's pending event.
    /// Returns the step's clock.
    fn races_at_end(&mut self, st: &State, k: &StepCtx) -> super::dpor::VClock {
        let Some(t) = k.tid else {
            return Default::default();
        };
        if self.setup.cfg.strategy == Strategy::Baseline {
            return Default::default();
        }
        let node = self.search.dpor.nodes.len() - 1;
        let start = self.search.dpor.nodes[node]
            .clocks
            .get(t)
            .cloned()
            .unwrap_or_default();
        let foot = vec![Access::write(Loc::All)];
        let clock = self.search.dpor.clock_of(t, &start, &foot);
        self.search.dpor.events.push(super::dpor::EventInfo {
            tid: t,
            node,
            foot,
            clock: clock.clone(),
        });
        let mut clocks = self.search.dpor.nodes[node].clocks.clone();
        set_clock(&mut clocks, t, clock.clone());
        for p in 0..st.threads.len() {
            if p == t || !st.is_live(p) {
                continue;
            }
            if let Some(foot) = self.pending_footprint(st, p) {
                let c = clocks.get(p).cloned().unwrap_or_default();
                self.search.dpor.races_of_pending(p, &c, &foot);
            }
        }
        self.search.dpor.events.pop();
        clock
    }

    /// Applies a step's weakest-precondition transformer to a subtree's result.
    pub fn with_ops(&mut self, ops: &[WpOp], mut sub: Sub) -> Sub {
        if self.search.stop {
            return self.nothing();
        }
        if self.setup.wp_on && !ops.is_empty() {
            sub.wp = super::summary::wp_of(&mut self.pool, ops, sub.wp);
            sub.wp = self.capped(sub.wp);
        }
        sub
    }

    /// A weakest precondition larger than the cap (distinct subterms, `WP_CAP_FACTOR`
    /// times the summary bound) is dropped to `false`, which claims nothing: long paths would
    /// otherwise make every step's substitution cost grow with the path (§6.2's
    /// under-approximation, applied on the way up as well as in the table).
    pub fn capped(&mut self, wp: TermId) -> TermId {
        let cap = self
            .setup
            .cfg
            .summary_size_bound
            .saturating_mul(WP_CAP_FACTOR);
        if self.pool.dag_size(wp, cap) > cap {
            self.pool.fals()
        } else {
            wp
        }
    }
}

/// The process's resident memory in bytes (Linux's `/proc/self/statm`; `None`
/// elsewhere).
pub fn resident_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = text.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages.saturating_mul(4096))
}

/// See [`Engine::capped`].
const WP_CAP_FACTOR: u32 = 2;

pub fn set_clock(clocks: &mut Vec<super::dpor::VClock>, t: Tid, c: super::dpor::VClock) {
    if clocks.len() <= t {
        clocks.resize(t + 1, Default::default());
    }
    clocks[t] = c;
}

fn is_assertion(kind: ViolationKind) -> bool {
    matches!(kind, ViolationKind::Assertion | ViolationKind::ReachError)
}

/// How each static object id is instantiated, and the thread-local objects in order.
fn static_objects(
    prog: &Program,
    names: &mut Names,
) -> Result<(Vec<StaticObj>, Vec<ObjId>), VerifyError> {
    let mut statics = Vec::with_capacity(prog.objects.len());
    let mut tls_objects = Vec::new();
    for o in &prog.objects {
        statics.push(match o.kind {
            ObjectKind::Global | ObjectKind::StringLiteral => {
                StaticObj::Global(names.object(ObjName::Static(o.id)))
            }
            ObjectKind::ThreadLocal => {
                tls_objects.push(o.id);
                StaticObj::ThreadLocal(tls_objects.len() - 1)
            }
            ObjectKind::StackSlot { func } => {
                let slots = &prog.function(func).slots;
                let index = slots.iter().position(|&s| s == o.id).ok_or_else(|| {
                    VerifyError::Program(format!(
                        "malformed IR: slot `{}` is not a slot of `{}`",
                        o.name,
                        prog.function(func).name
                    ))
                })?;
                StaticObj::Slot(index)
            }
        });
    }
    Ok((statics, tls_objects))
}

/// `(function, from, to)` for every edge that closes a cycle in a depth-first search of
/// a function's blocks from its entry: the back edges whose targets are loop headers.
fn back_edges(prog: &Program) -> FxHashSet<(FuncId, u32, u32)> {
    let mut out = FxHashSet::default();
    for f in &prog.functions {
        if f.blocks.is_empty() {
            continue;
        }
        let n = f.blocks.len();
        // 0 = unvisited, 1 = on the stack, 2 = finished.
        let mut color = vec![0u8; n];
        let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
        color[0] = 1;
        while let Some(&mut (b, ref mut i)) = stack.last_mut() {
            let succs = f.blocks[b].term.kind.successors();
            if *i < succs.len() {
                let s = succs[*i].index();
                *i += 1;
                if s >= n {
                    continue;
                }
                match color[s] {
                    0 => {
                        color[s] = 1;
                        stack.push((s, 0));
                    }
                    1 => {
                        out.insert((f.id, b as u32, s as u32));
                    }
                    _ => {}
                }
            } else {
                color[b] = 2;
                stack.pop();
            }
        }
    }
    out
}

/// The registers read anywhere in each function.
pub fn read_regs(prog: &Program) -> Vec<FxHashSet<analysis::ir::RegId>> {
    prog.functions
        .iter()
        .map(|f| {
            let mut regs = FxHashSet::default();
            for b in &f.blocks {
                for s in &b.stmts {
                    regs.extend(s.kind.operands().into_iter().filter_map(|o| o.as_reg()));
                }
                let term_ops: Vec<&analysis::ir::Operand> = match &b.term.kind {
                    TermKind::Branch { cond, .. } => vec![cond],
                    TermKind::Return(Some(v)) | TermKind::ThreadExit(v) | TermKind::Exit(v) => {
                        vec![v]
                    }
                    _ => vec![],
                };
                regs.extend(term_ops.into_iter().filter_map(|o| o.as_reg()));
            }
            regs
        })
        .collect()
}

/// On a terminal, rewrites one progress line on stderr; returns whether it did.
fn progress_line(stats: &Stats, secs: f64) -> bool {
    use std::io::IsTerminal;
    let shown = std::io::stderr().is_terminal();
    if shown {
        eprint!(
            "\r  {} runs, {} partial, {} states, {:.0} s   ",
            stats.runs, stats.partial_runs, stats.states, secs
        );
    }
    shown
}

/// Is a terminator one that ends the run (for the interpreter, within the step)?
pub fn ends_run(kind: &TermKind) -> bool {
    matches!(
        kind,
        TermKind::Error(_) | TermKind::Abort | TermKind::Exit(_)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use analysis::ir::FileId;

    fn item(tid: Tid) -> TraceItem {
        TraceItem {
            tid,
            stmt: StmtId(tid as u32),
            span: Span {
                file: FileId(0),
                line: 1,
                col: 1,
            },
            event: EventKind::Statement,
        }
    }

    fn tids(t: &PathTrace) -> Vec<Tid> {
        t.to_vec().iter().map(|i| i.tid).collect()
    }

    #[test]
    fn path_traces_share_their_prefix_and_read_back_in_order() {
        let root = PathTrace::default().extended(&[item(0), item(1)]);
        let left = root.extended(&[item(2)]);
        let right = root.extended(&[item(3), item(4)]);
        assert_eq!(tids(&root), vec![0, 1]);
        assert_eq!(tids(&left), vec![0, 1, 2]);
        assert_eq!(tids(&right), vec![0, 1, 3, 4]);
        assert_eq!((left.len(), right.len()), (3, 4));
        assert!(Rc::ptr_eq(
            left.last.as_ref().unwrap().prefix.as_ref().unwrap(),
            right.last.as_ref().unwrap().prefix.as_ref().unwrap()
        ));
        assert_eq!(tids(&right.extended(&[])), tids(&right));
        assert!(PathTrace::default().is_empty());
    }
}
