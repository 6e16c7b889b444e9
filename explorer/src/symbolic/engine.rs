//! The engine and its parts by the lifetime of their data: [`Setup`] (fixed for the
//! program and configuration), [`CurrentPath`] (the path being explored, see
//! [`super::path`]) and [`SearchState`] (what the search keeps across paths: DPOR,
//! summaries, findings, statistics, its [`Budget`]); the search's start and verdict.

use super::dpor::Dpor;
use super::step::StepCtx;

pub use super::ends::End;

use super::names::{Names, ObjInst, ObjName};

pub use super::path::{CurrentPath, InputRec, TraceItem};

use super::smt::{Smt, SolverFailure};
use super::state::{State, Tid};
use super::summary::{Accesses, Summaries, WpOp};
use super::term::{TermId, TermPool};
use super::{
    Config, Found, Incomplete, Reason, SearchOutcome, SearchStats, Strategy, Verdict, VerifyError,
};
use analysis::ir::{DataModel, FuncId, ObjId, ObjectKind, Program, Span, StmtId, TermKind};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;
use std::time::Instant;

/// The result of exploring a subtree.
pub struct Sub {
    /// Its weakest precondition over the state variables where it starts (only with
    /// summaries on; `true` otherwise).
    pub wp: TermId,
    /// Accesses made below it, by thread name (only with summaries on).
    pub rw: Accesses,
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
    /// The back edges of spin loops (empty when `Config::spin_loops` is off): taking one
    /// ends a failing iteration, after which the thread spins.
    pub spin_back_edges: FxHashSet<(FuncId, u32, u32)>,
    /// Park a thread whose own read-only steps brought the path back to a state of its
    /// own (a spin loop found at run time) instead of cutting the run there: with the
    /// spin-loop reduction, without data-race checks or a preemption bound.
    pub spin_parks: bool,
    /// The await reduction is on ([`super::awaits`]): `Config::await_assumes`, without
    /// data-race checks, under DPOR (the baseline search gains nothing from it).
    pub await_on: bool,
    /// Registers some statement or terminator reads, per function.
    pub read_regs: Vec<FxHashSet<analysis::ir::RegId>>,
    pub dead_marker: ObjInst,
    /// The accesses of the atomic sections whose extent is known, by their begin.
    pub atomic_footprints: FxHashMap<StmtId, super::reach::SectionFootprint>,
    /// Weakest preconditions (and summaries) are computed: dpor+ag.
    pub wp_on: bool,
    /// A `reach_error` call ends the program: its definition aborts
    /// ([`Program::reach_error_ends_program`]), so nothing can follow the run's end there.
    pub reach_error_ends_program: bool,
    /// Static reachability of the targets, when the Type A cut is on.
    pub reach: Option<super::reach::Reach>,
    /// The slice for Type B pivots, when it is on and the slice qualifies.
    pub type_b: Option<super::type_b::TypeB>,
    /// Type B branch pivots are on (else every side of every branch is explored).
    pub type_b_branches: bool,
    /// Stable names of this program, when summaries are exported or imported.
    pub stable: Option<super::carry::StableIds>,
    /// This engine is the probe (`probe`): one thread per node, the previous step's
    /// while it is enabled; no race detection, no backtracking.
    pub probe: bool,
    /// How the probe picks its one thread per node (see [`super::probe::ProbeOrder`]).
    pub probe_order: super::probe::ProbeOrder,
}

/// What the search keeps across paths: the DPOR stack, the summaries, the nodes on the
/// current path, what it found and why it cannot conclude, its statistics and budget.
pub struct SearchState {
    /// Weakest preconditions larger than the cap as trees but found within it as DAGs
    /// (`Engine::capped`): a step whose transformer leaves the wp unchanged would
    /// otherwise walk the same DAG again, at every node of a long run.
    pub within_wp_cap: FxHashSet<TermId>,
    pub dpor: Dpor,
    /// Each node of `dpor.nodes` where it stands in the preemption bound.
    pub preemptions: Vec<super::preempt::Preemptions>,
    /// Nodes of the current path by state fingerprint.
    pub on_stack: FxHashMap<u64, Vec<usize>>,
    pub summaries: Option<Summaries>,
    pub stats: SearchStats,
    pub found: Vec<Found>,
    /// Why the search cannot conclude `Safe`: the first detail per reason.
    incomplete: BTreeMap<Reason, String>,
    /// The search is over (a bound, the first violation, an error).
    pub stop: bool,
    pub error: Option<VerifyError>,
    /// A violation was found whose witness needed a side a Type B branch pivot skipped
    /// and did not replay: the search is redone without those pivots.
    pub(super) retry_without_type_b: bool,
    pub budget: Budget,
    /// When summaries are exported: a state with each recorded key (its stable key and
    /// names are computed at the export).
    pub carry_states: FxHashMap<Vec<u64>, super::state::State>,
    /// Stable keys of the carried summaries that pruned a node: valid in this version
    /// (`carry`'s condition held there), so exported again with this version's own.
    pub carried_used: std::collections::BTreeSet<Vec<u64>>,
    /// Carried summaries turned into this search's terms, by stable key (`None`: a name
    /// has no counterpart here). The stable key fixes everything the import reads of the
    /// state (threads, their frames' functions), and terms are hash-consed, so a node
    /// met again (tens of thousands of times in a long search) reuses the import.
    pub carried_imports:
        FxHashMap<Vec<u64>, Option<(TermId, super::summary::RwTable, super::summary::SleepKey)>>,
    /// Input renamings of summaries and preconditions, by subterm (`record_summary`,
    /// `prune_with`).
    pub renamed: super::summary::RenameMemo,
    /// Summaries instantiated by the symbolic prune check (`Engine::instantiate`).
    pub instantiated: super::summary::InstMemo,
}

/// The wall-clock side of the search: its deadline, and when memory and progress were
/// last checked.
pub struct Budget {
    started: Instant,
    deadline: Option<Instant>,
    /// Scheduling nodes after which the search stops: `Config::max_states`, or less for
    /// the probe's short search ([`Engine::limit_budget`]).
    max_states: Option<u64>,
    /// Runs (full and partial) after which the search stops: only the probe's
    /// non-preemptive schedules set it ([`Engine::limit_runs`]).
    max_runs: Option<u64>,
    last_progress: Instant,
    last_memory_check: Instant,
    /// The process's resident memory at the last check (every 50 ms).
    resident: u64,
}

impl Budget {
    fn starting_now(timeout: Option<std::time::Duration>, max_states: Option<u64>) -> Budget {
        let started = Instant::now();
        Budget {
            started,
            deadline: timeout.map(|t| started + t),
            max_states,
            max_runs: None,
            last_progress: started,
            last_memory_check: started,
            resident: 0,
        }
    }
}

/// The time freeing `resident` bytes is expected to take when a search ends (its
/// states, its DPOR stack, Z3's solver and terms): at [`FREED_PER_SECOND`].
pub fn teardown_time(resident: u64) -> std::time::Duration {
    std::time::Duration::from_secs_f64(resident as f64 / FREED_PER_SECOND as f64)
}

/// Must work stop at `now` to free `resident` bytes by `deadline`? The deadline is the
/// command's, so the search and its Z3 watcher stop [`teardown_time`] before it.
pub fn must_stop_to_free(now: Instant, deadline: Instant, resident: u64) -> bool {
    now + teardown_time(resident) >= deadline
}

/// The memory freed per second when a search ends. Measured on pthread-lit/fk2012,
/// which holds 1.5 GB after 6 s and 4.4 GB after 30 s: the command ended 1.1 s and
/// 4.7 s past its deadline.
const FREED_PER_SECOND: u64 = 1 << 30;

impl SearchState {
    fn new(cfg: &Config, wp_on: bool) -> SearchState {
        SearchState {
            dpor: Dpor::with_mode(cfg.dpor),
            preemptions: Vec::new(),
            on_stack: FxHashMap::default(),
            summaries: wp_on.then(|| Summaries::new(cfg.summary_slots, cfg.summary_size_bound)),
            stats: SearchStats::default(),
            found: Vec::new(),
            incomplete: BTreeMap::new(),
            stop: false,
            error: None,
            retry_without_type_b: false,
            budget: Budget::starting_now(cfg.timeout, cfg.max_states),
            carry_states: FxHashMap::default(),
            carried_used: Default::default(),
            carried_imports: FxHashMap::default(),
            renamed: Default::default(),
            instantiated: Default::default(),
            within_wp_cap: FxHashSet::default(),
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
        let wp_on = cfg.strategy == Strategy::DporAg && !cfg.checks.race;
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
                spin_back_edges: if cfg.spin_loops && !cfg.checks.race {
                    spin_back_edges(prog)
                } else {
                    FxHashSet::default()
                },
                spin_parks: cfg.spin_loops && !cfg.checks.race && cfg.preemption_bound.is_none(),
                await_on: cfg.await_assumes
                    && !cfg.checks.race
                    && cfg.strategy != Strategy::Baseline,
                back_edges,
                read_regs: read_regs(prog),
                dead_marker,
                atomic_footprints,
                wp_on,
                reach_error_ends_program: prog.reach_error_ends_program(),
                reach: None,
                type_b: None,
                type_b_branches: true,
                stable: cfg.carry.as_ref().map(|c| {
                    super::carry::StableIds::new(
                        prog,
                        c.import.as_ref().and_then(|i| i.trusted.as_ref()),
                    )
                }),
                probe: false,
                probe_order: super::probe::ProbeOrder::RoundRobin,
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
            && !self.setup.cfg.checks.race
    }

    /// Starts the search's clock (and its deadline) at `started` instead of now: the
    /// probe before it spends the same budget.
    pub fn restart_budget_at(&mut self, started: Instant) {
        self.search.budget.started = started;
        self.search.budget.deadline = self.setup.cfg.timeout.map(|t| started + t);
        self.smt.set_deadline(self.search.budget.deadline);
    }

    /// Ends the search at `deadline` or after `max_states` scheduling nodes where they
    /// come before the config's own bounds (the probe's short search).
    pub fn limit_budget(&mut self, deadline: Option<Instant>, max_states: Option<u64>) {
        // The tighter of two optional bounds.
        fn tighter<T: Ord>(a: Option<T>, b: Option<T>) -> Option<T> {
            match (a, b) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            }
        }
        let budget = &mut self.search.budget;
        budget.deadline = tighter(budget.deadline, deadline);
        budget.max_states = tighter(budget.max_states, max_states);
        self.smt.set_deadline(budget.deadline);
    }

    /// Ends the search once it has made `max_runs` runs, full and partial (the probe: a
    /// schedule whose inputs fork at every loop iteration must not cost more than the
    /// search it precedes).
    pub fn limit_runs(&mut self, max_runs: u64) {
        self.search.budget.max_runs = Some(max_runs);
    }

    /// Makes this engine, after a search that ended at a bound of its own, a new search
    /// from the root under the config's budget counted from `started`, that keeps what
    /// holds for every search of this program and config: the summary table and the
    /// term caches. The path, the DPOR stack, what was found, the statistics and the
    /// reasons for UNKNOWN start afresh.
    ///
    /// Why the summaries stay sound: a summary is recorded only when its node's subtree
    /// was explored to the end (`node_inner` records nothing once the search is stopped,
    /// and a subtree a bound cut has weakest precondition `false`, which records
    /// nothing), so it says exactly what it says in the search that recorded it: every
    /// state with its key that satisfies it has no violation below (within the same
    /// sleep-set variant, with the accesses that repair DPOR's backtrack sets). A new
    /// search of the same program and config that prunes with it is the search that
    /// meets the node a second time. The same argument carries summaries across versions
    /// (`carry`), where the program may even differ.
    ///
    /// Pruned nodes repair the backtrack sets as the config says. Under `Repair::Strict`
    /// a node prunes only where its races are already in the path's
    /// backtrack sets, so the new search explores a subset of what a fresh one would
    /// (runs(dpor+ag) ≤ runs(dpor) still holds), but on the walk down the first run
    /// again the deepest finished subtrees are mostly explored again: what is saved is
    /// their siblings', whose races are known by then.
    pub fn restart_with_summaries(&mut self, started: Instant) {
        let cfg = self.setup.cfg;
        let wp_on = self.setup.wp_on;
        let mut fresh = SearchState::new(cfg, wp_on);
        let kept = &mut self.search;
        fresh.summaries = kept.summaries.take();
        fresh.within_wp_cap = std::mem::take(&mut kept.within_wp_cap);
        fresh.carry_states = std::mem::take(&mut kept.carry_states);
        fresh.carried_used = std::mem::take(&mut kept.carried_used);
        fresh.carried_imports = std::mem::take(&mut kept.carried_imports);
        self.search = fresh;
        self.path = CurrentPath::default();
        self.smt.stats = Default::default();
        self.restart_budget_at(started);
    }

    /// Runs the search and decides the verdict.
    pub fn search(mut self) -> Result<SearchOutcome, VerifyError> {
        self.run()
    }

    /// Runs the search and decides the verdict, leaving the engine for
    /// [`Engine::restart_with_summaries`].
    pub fn run(&mut self) -> Result<SearchOutcome, VerifyError> {
        // (A restarted engine has them from its first search.)
        if self.cut_on() && self.setup.reach.is_none() {
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
        match self.setup.cfg.context {
            Some(ref ctx) => self.explore_context(&ctx.clone())?,
            None if self.setup.cfg.symbolic_args.is_some() => {
                let bound = self.setup.cfg.symbolic_args.unwrap_or(super::SymbolicArgs {
                    max_count: 0,
                    max_len: 0,
                });
                self.explore_symbolic_args(bound)?;
            }
            None => {
                let st = self.initial_state()?;
                let _ = self.explore_step(st, 0, StepCtx::initial());
            }
        }
        if let Some(e) = self.search.error.take() {
            return Err(e);
        }
        if self.search.retry_without_type_b {
            let mut again = Engine::new(self.setup.prog, self.setup.cfg)?;
            again.setup.type_b_branches = false;
            // The same budget: its clock, deadline and bounds.
            std::mem::swap(&mut again.search.budget, &mut self.search.budget);
            again.smt.set_deadline(again.search.budget.deadline);
            *self = again;
            return self.run();
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
            .map(|(&reason, detail)| Incomplete {
                reason,
                detail: detail.clone(),
            })
            .collect();
        let (carried, carried_over_limit) = self.export_carried();
        let verdict = if !self.search.found.is_empty() {
            Verdict::Violation
        } else if incomplete.is_empty() {
            Verdict::Safe
        } else {
            Verdict::Unknown
        };
        Ok(SearchOutcome {
            verdict,
            strategy: self.setup.cfg.strategy,
            violations: std::mem::take(&mut self.search.found),
            incomplete,
            stats: std::mem::take(&mut self.search.stats),
            carried,
            carried_over_limit,
        })
    }

    /// The summaries to carry to the next version (see `carry`): none unless asked, none
    /// when a Type B pivot was skipped, and none when the search stopped at its deadline
    /// (the time is spent: building the export took queue_ok_longest 0.65 s past a 4 s
    /// deadline, for a store that is then not written). Past `Carry::export_limit` the
    /// export stops and returns nothing but the number of summaries the search had.
    fn export_carried(&mut self) -> (Vec<super::carry::CarriedSummary>, Option<usize>) {
        let carry = self.setup.cfg.carry.as_deref();
        let out_of_time = self.search.incomplete.contains_key(&Reason::Timeout);
        let wanted = carry.is_some_and(|c| c.export) && !out_of_time;
        let limit = carry.and_then(|c| c.export_limit);
        let type_b = self.search.stats.type_b_branches + self.search.stats.type_b_races;
        let (Some(ids), Some(table), true, 0) =
            (&self.setup.stable, &self.search.summaries, wanted, type_b)
        else {
            return (Vec::new(), None);
        };
        // Sized first, one summary at a time, so that an export past the limit, which
        // is dropped, never holds all of its summaries at once.
        if let Some(limit) = limit {
            let mut size = 0usize;
            for (raw, known) in table.entries() {
                if let Some(s) = self.export_one(ids, raw, known) {
                    size += super::carry::stored_size(&s);
                    if size > limit {
                        return (Vec::new(), Some(table.entries().count()));
                    }
                }
            }
        }
        let mut out: Vec<_> = table
            .entries()
            .filter_map(|(raw, known)| self.export_one(ids, raw, known))
            .collect();
        // Summary renewal: a carried summary that pruned here stands for a subtree this
        // search never explored, so without it the next version would find less than
        // this one did. The local summary of the same node, if any, is kept instead.
        let imported = self
            .setup
            .cfg
            .carry
            .as_ref()
            .and_then(|c| c.import.as_ref());
        if let Some(imported) = imported {
            let local: std::collections::HashSet<Vec<u64>> =
                out.iter().map(|s| s.key.clone()).collect();
            for key in &self.search.carried_used {
                if let (false, Some(s)) = (local.contains(key), imported.summaries.get(key)) {
                    // It pruned, so it decoded.
                    out.extend(s.decode(key).map(|s| s.into_owned()));
                }
            }
        }
        out.sort_by(|a, b| a.key.cmp(&b.key));
        (out, None)
    }

    /// The summary recorded at the node with key `raw` in stable names, if it has one
    /// and every id it names has a stable name.
    fn export_one(
        &self,
        ids: &super::carry::StableIds,
        raw: &[u64],
        known: super::summary::Known<'_>,
    ) -> Option<super::carry::CarriedSummary> {
        let (ps, st) = (known.ps?, self.search.carry_states.get(raw)?);
        let view = super::carry::StableView::new(self.setup.prog, ids, &self.names);
        let key = st.key_with(&self.pool, &view);
        if view.untrusted.get() {
            return None;
        }
        view.export(st, &self.pool, key, ps, known.rw, known.sleep)
    }

    // ---- bookkeeping ----

    /// Stops the search when Z3 can no longer answer (its memory budget, the deadline's
    /// interrupt, an error), naming the bound; true when it did.
    pub fn solver_failed(&mut self) -> bool {
        let Some(failure) = self.smt.failure() else {
            return false;
        };
        let (reason, detail) = match failure {
            SolverFailure::Memory => (
                Reason::Memory,
                "the solver reached its memory budget (Z3's memory_max_size)".to_string(),
            ),
            SolverFailure::Interrupted => {
                let secs = self.setup.cfg.timeout.map_or(0.0, |t| t.as_secs_f64());
                (
                    Reason::Timeout,
                    format!("the search stopped after {secs:.1} s (the solver was interrupted)"),
                )
            }
            SolverFailure::Error(e) => (Reason::Solver, format!("the solver failed: {e}")),
        };
        self.incomplete(reason, detail);
        self.search.stop = true;
        true
    }

    /// Records why the search cannot conclude `Safe` (the first detail per reason).
    pub fn incomplete(&mut self, reason: Reason, detail: String) {
        self.search.incomplete.entry(reason).or_insert(detail);
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

    /// Checks the time and state budgets; tells the progress observer, if any.
    pub fn out_of_time(&mut self) -> bool {
        if self.search.stop {
            return true;
        }
        if self.solver_failed() {
            return true;
        }
        if let Some(max) = self.search.budget.max_states {
            if self.search.stats.states > max {
                self.incomplete(
                    Reason::StateBound,
                    format!("the search stopped after {max} scheduling nodes"),
                );
                self.search.stop = true;
                return true;
            }
        }
        if let Some(max) = self.search.budget.max_runs {
            let stats = &self.search.stats;
            if stats.runs + stats.partial_runs >= max {
                self.incomplete(
                    Reason::StateBound,
                    format!("the search stopped after {max} runs"),
                );
                self.search.stop = true;
                return true;
            }
        }
        let now = Instant::now();
        if let Some(d) = self.search.budget.deadline {
            let resident = self.search.budget.resident;
            if must_stop_to_free(now, d, resident) {
                let secs = self.setup.cfg.timeout.map_or(0.0, |t| t.as_secs_f64());
                let detail = if teardown_time(resident).as_secs_f64() < 0.05 {
                    format!("the search stopped after {secs:.1} s")
                } else {
                    format!(
                        "the search stopped {:.1} s before its {secs:.1} s ran out, to \
                         free its {} MiB by then",
                        d.saturating_duration_since(now).as_secs_f64(),
                        resident >> 20
                    )
                };
                self.incomplete(Reason::Timeout, detail);
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
            let memory = ProcessMemory::now();
            self.search.budget.resident = memory.map_or(0, |m| m.resident);
            if let Some(detail) = memory.and_then(|m| m.exhausted(self.setup.cfg.max_memory)) {
                self.incomplete(Reason::Memory, detail);
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
            if let Some(observer) = &self.setup.cfg.progress {
                let stats = &self.search.stats;
                (observer.0)(super::SearchProgress {
                    runs: stats.runs,
                    partial_runs: stats.partial_runs,
                    states: stats.states,
                    elapsed: now.duration_since(self.search.budget.started),
                });
            }
        }
        false
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

    /// Applies a step's weakest-precondition transformer to a subtree's result.
    pub fn with_ops(&mut self, ops: &[WpOp], mut sub: Sub) -> Sub {
        if self.search.stop {
            return self.nothing();
        }
        if self.setup.wp_on && sub.rw.saturated() {
            sub.wp = self.pool.fals();
        } else if self.setup.wp_on && !ops.is_empty() {
            sub.wp = super::summary::wp_of(&mut self.pool, ops, sub.wp);
            sub.wp = self.capped(sub.wp);
        }
        sub
    }

    /// `wp ∧ below` for a node whose accesses so far are `rw`: `false` (claims nothing)
    /// once they are saturated, since no summary is recorded there or above and the
    /// conjunction would only grow the term pool.
    pub fn conjoin_below(&mut self, wp: TermId, below: TermId, rw: &Accesses) -> TermId {
        if rw.saturated() {
            return self.pool.fals();
        }
        let wp = self.pool.and(wp, below);
        self.capped(wp)
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
        if self.pool.size(wp) <= cap || self.search.within_wp_cap.contains(&wp) {
            return wp;
        }
        if self.pool.dag_size(wp, cap) > cap {
            self.pool.fals()
        } else {
            self.search.within_wp_cap.insert(wp);
            wp
        }
    }
}

/// The process's memory, from Linux's `/proc/self/statm` (`None` elsewhere).
#[derive(Clone, Copy, Debug)]
pub struct ProcessMemory {
    /// Bytes of address space.
    pub size: u64,
    /// Bytes resident.
    pub resident: u64,
}

impl ProcessMemory {
    pub fn now() -> Option<ProcessMemory> {
        let text = std::fs::read_to_string("/proc/self/statm").ok()?;
        let mut pages = text
            .split_whitespace()
            .map(|w| w.parse::<u64>().ok().map(|p| p.saturating_mul(4096)));
        let (size, resident) = (pages.next()??, pages.next()??);
        Some(ProcessMemory { size, resident })
    }

    /// Why the search must stop for memory, if it must: resident memory over
    /// `max_memory`, or the address space within a tenth (at least
    /// [`ADDRESS_SPACE_HEADROOM`]) of the limit the process runs under (`RLIMIT_AS`:
    /// `agx bench`'s `--memory`, or `ulimit -v`). An allocation past that limit aborts
    /// the process, and the address space runs ahead of resident memory (thread stacks,
    /// allocator arenas, Z3), so the search stops first and answers UNKNOWN naming
    /// `memory` instead. The limit is Linux's `/proc/self/limits`.
    pub fn exhausted(self, max_memory: u64) -> Option<String> {
        let ProcessMemory { size, resident } = self;
        if resident > max_memory {
            return Some(format!(
                "the search stopped at {} MiB resident, over its budget of {} MiB",
                resident >> 20,
                max_memory >> 20
            ));
        }
        let limit = address_space_limit()?;
        let headroom = (limit / 10).max(ADDRESS_SPACE_HEADROOM);
        (size.saturating_add(headroom) > limit).then(|| {
            format!(
                "the search stopped at {} MiB of address space ({} MiB resident), near the \
                 process's limit of {} MiB",
                size >> 20,
                resident >> 20,
                limit >> 20
            )
        })
    }
}

/// The least address space kept free below the limit (see [`ProcessMemory::exhausted`]; a tenth
/// of the limit when that is more): room for a large vector to double and for Z3.
const ADDRESS_SPACE_HEADROOM: u64 = 64 << 20;

/// The soft `RLIMIT_AS` in bytes, read once from `/proc/self/limits`; `None` when
/// unlimited or unknown.
pub(crate) fn address_space_limit() -> Option<u64> {
    static LIMIT: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(|| {
        let text = std::fs::read_to_string("/proc/self/limits").ok()?;
        let line = text.lines().find(|l| l.starts_with("Max address space"))?;
        line["Max address space".len()..]
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    })
}

/// See [`Engine::capped`].
const WP_CAP_FACTOR: u32 = 2;

pub fn set_clock(clocks: &mut Vec<super::dpor::VClock>, t: Tid, c: super::dpor::VClock) {
    if clocks.len() <= t {
        clocks.resize(t + 1, Default::default());
    }
    clocks[t] = c;
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
/// The edges back to the header of every spin loop of the program.
fn spin_back_edges(prog: &Program) -> FxHashSet<(FuncId, u32, u32)> {
    let mut edges = FxHashSet::default();
    for l in analysis::spin::spin_loops(prog) {
        let f = prog.function(l.func);
        for &b in &l.blocks {
            if f.block(b).term.kind.successors().contains(&l.header) {
                edges.insert((l.func, b.0, l.header.0));
            }
        }
    }
    edges
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::lower;

    /// The search stops early enough to free what it holds by its deadline: with 2 GiB
    /// resident (two seconds to free) and 1 s left, it stops now, saying why.
    #[test]
    fn the_search_stops_before_its_deadline_by_the_time_to_free_its_memory() {
        let prog = lower("idle.c", "int main(void) { return 0; }\n");
        let config = crate::symbolic::Config {
            timeout: Some(std::time::Duration::from_secs(60)),
            ..crate::symbolic::Config::default()
        };
        let mut engine = Engine::new(&prog, &config).expect("an engine");
        let now = Instant::now();
        engine.search.budget.deadline = Some(now + std::time::Duration::from_secs(1));
        engine.search.budget.last_memory_check = now;
        engine.search.budget.resident = 0;
        assert!(!engine.out_of_time(), "no memory held: 1 s is left");
        engine.search.budget.resident = 2 << 30;
        assert!(engine.out_of_time());
        let detail = &engine.search.incomplete[&Reason::Timeout];
        assert!(detail.contains("to free its 2048 MiB"), "{detail}");
        assert_eq!(teardown_time(1 << 30), std::time::Duration::from_secs(1));
    }

    /// A search stopped at its deadline exports no summary: the time is spent, and the
    /// store is not written then.
    #[test]
    fn a_search_stopped_at_its_deadline_exports_nothing() {
        let prog = lower("racy.c", crate::test_support::RACY);
        let config = crate::symbolic::Config {
            carry: Some(std::sync::Arc::new(
                crate::symbolic::carry::Carry::export_all(),
            )),
            ..crate::symbolic::Config::default()
        };
        let mut engine = Engine::new(&prog, &config).expect("an engine");
        let finished = engine.run().expect("the search runs");
        assert!(
            !finished.carried.is_empty(),
            "dpor+ag summarises this program"
        );
        let count = finished.carried.len();
        assert_eq!(engine.export_carried().0.len(), count);
        engine
            .search
            .incomplete
            .insert(Reason::Timeout, "the search stopped".into());
        assert!(engine.export_carried().0.is_empty());
    }
}
