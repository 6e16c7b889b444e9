//! The solver backend: terms to Z3, an incremental solver that mirrors the path
//! condition with push/pop, a cache of query results, and counters.
//!
//! Z3 contexts are per OS thread (z3 0.22 uses a thread-local context): an [`Smt`] must
//! be created and used on one thread.

use super::model::{topological, Assignment};
use super::term::{BvOp, CmpOp, Node, TermId, TermPool, Var};
use rustc_hash::{FxHashMap, FxHashSet};
use std::ffi::CStr;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use z3::ast::{Bool, Dynamic, BV};
use z3::SatResult;
use z3_sys::{ErrorCode, Z3_context};

/// The answer to a satisfiability query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Satisfiable, with values for the variables asked for.
    Sat(Assignment),
    Unsat,
    /// The solver gave up (timeout or incompleteness).
    Unknown,
}

/// Counters reported in the statistics.
#[derive(Clone, Copy, Debug, Default)]
pub struct SolverStats {
    /// Queries sent to Z3.
    pub queries: u64,
    /// Queries answered from the result cache.
    pub cache_hits: u64,
    /// Time spent inside Z3.
    pub time: Duration,
}

/// Why Z3 stopped answering. After an error its assertion stack may no longer mirror
/// the path condition, so a failed [`Smt`] answers every later query `Unknown`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SolverFailure {
    /// Z3 reached its share of the memory budget ([`limit_z3_memory`]).
    Memory,
    /// Z3 was interrupted at the search's deadline ([`InterruptAtDeadline`]).
    Interrupted,
    /// Any other error Z3 reported, in its words.
    Error(String),
}

pub struct Smt {
    solver: z3::Solver,
    /// Per-query budget, and the budget Z3 has now.
    timeout_ms: Option<u32>,
    current_ms: Option<u32>,
    deadline: Option<Instant>,
    /// The conjuncts asserted in the solver, one push level each.
    asserted: Vec<TermId>,
    translated: FxHashMap<TermId, Dynamic>,
    /// The translated terms with a floating-point operation inside.
    with_fp: FxHashSet<TermId>,
    cache: FxHashMap<(Vec<TermId>, TermId), Answer>,
    cache_limit: usize,
    pub stats: SolverStats,
    /// The thread's Z3 context, whose error code says whether a call failed (the z3
    /// crate's context has no error handler, so Z3 reports errors only there).
    ctx: Z3_context,
    failure: Option<SolverFailure>,
}

impl Smt {
    /// A solver whose queries give up after `timeout` (if any).
    pub fn new(timeout: Option<Duration>) -> Smt {
        let solver = z3::Solver::new();
        let mut smt = Smt {
            solver,
            timeout_ms: timeout.map(|t| u32::try_from(t.as_millis()).unwrap_or(u32::MAX).max(1)),
            current_ms: None,
            deadline: None,
            asserted: Vec::new(),
            translated: FxHashMap::default(),
            with_fp: FxHashSet::default(),
            cache: FxHashMap::default(),
            cache_limit: 200_000,
            stats: SolverStats::default(),
            ctx: z3::Context::thread_local().get_z3_context(),
            failure: None,
        };
        smt.apply_timeout();
        smt
    }

    /// Why Z3 stopped answering, if it did.
    pub fn failure(&self) -> Option<&SolverFailure> {
        self.failure.as_ref()
    }

    /// Records the error of the last Z3 call, if it failed; true when the solver still
    /// answers.
    fn healthy(&mut self) -> bool {
        if self.failure.is_some() {
            return false;
        }
        // SAFETY: `ctx` is this thread's context, alive while any `Smt` of it is.
        let code = unsafe { z3_sys::Z3_get_error_code(self.ctx) };
        if code == ErrorCode::Ok {
            return true;
        }
        // SAFETY: as above; Z3 returns a static or context-owned C string.
        let message = unsafe {
            let text = z3_sys::Z3_get_error_msg(self.ctx, code);
            if text.is_null() {
                String::new()
            } else {
                CStr::from_ptr(text).to_string_lossy().into_owned()
            }
        };
        self.failure = Some(match code {
            ErrorCode::MemoutFail => SolverFailure::Memory,
            _ if message.contains("cancel") => SolverFailure::Interrupted,
            _ => SolverFailure::Error(format!("{code:?}: {message}")),
        });
        false
    }

    /// Queries give up at `deadline` (the end of the search's time budget) at the latest.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// Sets Z3's timeout to the per-query budget or the time left, whichever is less.
    /// Setting Z3's parameters is costly (12–17% of the search on stack-1 and
    /// queue_ok_longer when done before every query, as the time left changes every
    /// millisecond), so a timeout up to [`TIMEOUT_SLACK_MS`] longer than wanted is kept.
    fn apply_timeout(&mut self) {
        let left = self.deadline.map(|d| {
            let ms = d.saturating_duration_since(Instant::now()).as_millis();
            u32::try_from(ms).unwrap_or(u32::MAX).max(1)
        });
        let want = match (self.timeout_ms, left) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if needs_new_timeout(self.current_ms, want) {
            if let Some(ms) = want {
                let mut params = z3::Params::new();
                params.set_u32("timeout", ms);
                self.solver.set_params(&params);
            }
            self.current_ms = want;
        }
    }

    /// Is `pcon ∧ extra` satisfiable? On `Sat`, the assignment gives a value to each
    /// variable in `wanted` (and possibly others).
    pub fn check(
        &mut self,
        pool: &TermPool,
        pcon: &[TermId],
        extra: TermId,
        wanted: &[(Var, u8)],
    ) -> Answer {
        let mut key: Vec<TermId> = pcon.to_vec();
        key.sort_unstable();
        key.dedup();
        let cache_key = (key, extra);
        if let Some(ans) = self.cache.get(&cache_key) {
            let usable = match ans {
                Answer::Sat(a) => wanted.iter().all(|(v, _)| a.iter().any(|(k, _)| k == v)),
                _ => true,
            };
            if usable {
                self.stats.cache_hits += 1;
                return ans.clone();
            }
        }
        if self.failure.is_some() {
            return Answer::Unknown;
        }
        self.apply_timeout();
        let extra_ast = self.bool_of(pool, extra);
        let answer = if self.involves_fp(pool, pcon, extra) {
            self.check_one_shot(pool, pcon, &extra_ast, wanted)
        } else if !self.sync(pool, pcon) {
            Answer::Unknown
        } else {
            let start = Instant::now();
            self.solver.push();
            let mut answer = Answer::Unknown;
            if self.healthy() {
                self.solver.assert(&extra_ast);
                answer = answer_of(&self.solver, wanted);
                self.solver.pop(1);
            }
            self.stats.time += start.elapsed();
            if self.healthy() {
                answer
            } else {
                Answer::Unknown
            }
        };
        self.stats.queries += 1;
        if answer != Answer::Unknown {
            if self.cache.len() >= self.cache_limit {
                self.cache.clear();
            }
            self.cache.insert(cache_key, answer.clone());
        }
        answer
    }

    /// Brings the solver's assertion stack to exactly `pcon` (one push per conjunct),
    /// popping only what differs: along a depth-first search most of it is shared.
    /// False when Z3 failed on the way ([`Smt::failure`]).
    pub(super) fn sync(&mut self, pool: &TermPool, pcon: &[TermId]) -> bool {
        let common = self
            .asserted
            .iter()
            .zip(pcon)
            .take_while(|(a, b)| a == b)
            .count();
        let extra_levels = self.asserted.len() - common;
        if extra_levels > 0 {
            self.solver.pop(extra_levels as u32);
            self.asserted.truncate(common);
        }
        for &c in &pcon[common..] {
            let ast = self.bool_of(pool, c);
            // Pushing makes Z3 internalize the assertions before it, which on a long path
            // condition can take long and much memory: the deadline's interrupt and the
            // memory budget end it with an error, checked here.
            self.solver.push();
            if !self.healthy() {
                return false;
            }
            self.solver.assert(&ast);
            self.asserted.push(c);
        }
        self.healthy()
    }

    /// Does the query have a floating-point operation?
    fn involves_fp(&mut self, pool: &TermPool, pcon: &[TermId], extra: TermId) -> bool {
        pcon.iter().chain([&extra]).any(|&t| {
            self.translate(pool, t);
            self.with_fp.contains(&t)
        })
    }

    /// Solves `pcon ∧ extra` in a fresh, non-incremental solver. Z3's incremental mode
    /// (after a `push`) solves floating-point terms with its lazy FP theory, which gives up
    /// where the bit-blasting one-shot solver answers at once: `sqrt(x) == 3.0` on a double
    /// took over 60 s after a push and 1.8 s without (f32: over 60 s and 0.24 s).
    fn check_one_shot(
        &mut self,
        pool: &TermPool,
        pcon: &[TermId],
        extra: &Bool,
        wanted: &[(Var, u8)],
    ) -> Answer {
        let solver = z3::Solver::new();
        if let Some(ms) = self.current_ms {
            let mut params = z3::Params::new();
            params.set_u32("timeout", ms);
            solver.set_params(&params);
        }
        for &c in pcon {
            solver.assert(self.bool_of(pool, c));
        }
        solver.assert(extra);
        let start = Instant::now();
        let answer = answer_of(&solver, wanted);
        self.stats.time += start.elapsed();
        if self.healthy() {
            answer
        } else {
            Answer::Unknown
        }
    }

    fn bool_of(&mut self, pool: &TermPool, t: TermId) -> Bool {
        self.translate(pool, t)
            .as_bool()
            .expect("solver queries are boolean terms")
    }

    fn bv(&self, t: TermId) -> BV {
        self.translated[&t].as_bv().expect("bit-vector subterm")
    }

    fn boolean(&self, t: TermId) -> Bool {
        self.translated[&t].as_bool().expect("boolean subterm")
    }

    /// Translates a term (and its subterms, children first) to Z3, memoized by id.
    fn translate(&mut self, pool: &TermPool, t: TermId) -> Dynamic {
        if let Some(d) = self.translated.get(&t) {
            return d.clone();
        }
        for id in topological(pool, t) {
            if self.translated.contains_key(&id) {
                continue;
            }
            let node = pool.node(id);
            let d = self.translate_node(pool, node);
            self.translated.insert(id, d);
            if matches!(node, Node::Fp(..))
                || pool.children(node).iter().any(|c| self.with_fp.contains(c))
            {
                self.with_fp.insert(id);
            }
        }
        self.translated[&t].clone()
    }

    fn translate_node(&self, pool: &TermPool, node: &Node) -> Dynamic {
        match *node {
            Node::BoolConst(b) => Bool::from_bool(b).into(),
            Node::BvConst { width, value } => BV::from_u64(value, u32::from(width)).into(),
            Node::Var { var, width } => {
                BV::new_const(var_name(var, width), u32::from(width)).into()
            }
            Node::Not(a) => self.boolean(a).not().into(),
            Node::And(a, b) => Bool::and(&[self.boolean(a), self.boolean(b)]).into(),
            Node::Or(a, b) => Bool::or(&[self.boolean(a), self.boolean(b)]).into(),
            Node::Ite(c, a, b) => {
                let c = self.boolean(c);
                if pool.sort(a) == super::term::Sort::Bool {
                    c.ite(&self.boolean(a), &self.boolean(b)).into()
                } else {
                    c.ite(&self.bv(a), &self.bv(b)).into()
                }
            }
            Node::Cmp(op, a, b) => {
                let (x, y) = (self.bv(a), self.bv(b));
                match op {
                    CmpOp::Eq => x.eq(&y),
                    CmpOp::Ult => x.bvult(&y),
                    CmpOp::Ule => x.bvule(&y),
                    CmpOp::Slt => x.bvslt(&y),
                    CmpOp::Sle => x.bvsle(&y),
                }
                .into()
            }
            Node::Bin(op, a, b) => {
                let (x, y) = (self.bv(a), self.bv(b));
                match op {
                    BvOp::Add => x.bvadd(&y),
                    BvOp::Sub => x.bvsub(&y),
                    BvOp::Mul => x.bvmul(&y),
                    BvOp::UDiv => x.bvudiv(&y),
                    BvOp::SDiv => x.bvsdiv(&y),
                    BvOp::URem => x.bvurem(&y),
                    BvOp::SRem => x.bvsrem(&y),
                    BvOp::Shl => x.bvshl(&y),
                    BvOp::LShr => x.bvlshr(&y),
                    BvOp::AShr => x.bvashr(&y),
                    BvOp::And => x.bvand(&y),
                    BvOp::Or => x.bvor(&y),
                    BvOp::Xor => x.bvxor(&y),
                }
                .into()
            }
            Node::Neg(a) => self.bv(a).bvneg().into(),
            Node::BNot(a) => self.bv(a).bvnot().into(),
            Node::ZExt(a, w) => {
                let x = self.bv(a);
                let by = u32::from(w) - x.get_size();
                x.zero_ext(by).into()
            }
            Node::SExt(a, w) => {
                let x = self.bv(a);
                let by = u32::from(w) - x.get_size();
                x.sign_ext(by).into()
            }
            Node::Trunc(a, w) => self.bv(a).extract(u32::from(w) - 1, 0).into(),
            Node::Fp(op, a, b) => op.translate(pool.width(a), &self.bv(a), &self.bv(b)),
        }
    }
}

/// The answer of `solver` to its assertions; on `Sat`, the values of `wanted`.
fn answer_of(solver: &z3::Solver, wanted: &[(Var, u8)]) -> Answer {
    match solver.check() {
        SatResult::Sat => match solver.get_model() {
            Some(model) => Answer::Sat(read_model(&model, wanted)),
            None => Answer::Unknown,
        },
        SatResult::Unsat => Answer::Unsat,
        SatResult::Unknown => Answer::Unknown,
    }
}

fn read_model(model: &z3::Model, wanted: &[(Var, u8)]) -> Assignment {
    let mut a = Assignment::default();
    for &(var, width) in wanted {
        let c = BV::new_const(var_name(var, width), u32::from(width));
        if let Some(v) = model.eval(&c, true).and_then(|x| x.as_u64()) {
            a.set(var, v);
        }
    }
    a
}

/// The Z3 constant name of a variable (the width is part of the name so that a cell
/// rewritten with another width is another constant).
fn var_name(var: Var, width: u8) -> String {
    format!("{var}:{width}")
}

/// How much longer than the time left a query's Z3 timeout may be (so a query ends at
/// most this late after the search's deadline).
pub const TIMEOUT_SLACK_MS: u32 = 100;

/// Whether Z3's timeout, `current`, must be set to `want`: when it would let a query run
/// past `want` by more than [`TIMEOUT_SLACK_MS`], or is shorter than wanted.
fn needs_new_timeout(current: Option<u32>, want: Option<u32>) -> bool {
    match (current, want) {
        (Some(c), Some(w)) => c < w || c - w > TIMEOUT_SLACK_MS,
        (c, w) => c != w,
    }
}

/// Interrupts the calling thread's Z3 context at a deadline, less the time freeing the
/// process's memory will take (`engine::teardown_time`), and every [`INTERRUPT_EVERY`]
/// after it, until dropped. The search checks its deadline between
/// steps and gives each query Z3's own timeout, but Z3 does some work outside queries
/// that no timeout bounds: a `push` internalizes every assertion since the last one (on
/// a run tens of thousands of events long, minutes and gigabytes). The interrupt ends
/// that work with an error, which [`Smt`] records as [`SolverFailure::Interrupted`].
pub struct InterruptAtDeadline {
    stop: Option<mpsc::Sender<()>>,
    watcher: Option<std::thread::JoinHandle<()>>,
}

/// How often the watcher looks at the clock and the process's memory, and repeats the
/// interrupt after the deadline (Z3 clears its flag when a new query starts).
const INTERRUPT_EVERY: Duration = Duration::from_millis(50);

impl InterruptAtDeadline {
    /// Arms the interrupt for this thread's context, `after` from now (`None`: never).
    /// Must be dropped on the thread that armed it, before its context is.
    pub fn arm(after: Option<Duration>) -> InterruptAtDeadline {
        let unarmed = InterruptAtDeadline {
            stop: None,
            watcher: None,
        };
        let Some(deadline) = after.and_then(|a| Instant::now().checked_add(a)) else {
            return unarmed;
        };
        // A raw pointer is not `Send`; the context outlives the watcher, which `drop`
        // joins before the arming thread can end.
        let ctx = z3::Context::thread_local().get_z3_context().as_ptr() as usize;
        let (stop, stopped) = mpsc::channel::<()>();
        let watcher = std::thread::Builder::new()
            .name("agx-z3-deadline".into())
            .stack_size(256 << 10)
            .spawn(move || {
                loop {
                    match stopped.recv_timeout(INTERRUPT_EVERY) {
                        Err(mpsc::RecvTimeoutError::Timeout) => {}
                        _ => return,
                    }
                    // The search stops early enough to free its memory by the deadline
                    // (`engine::teardown_time`), and so does Z3's work.
                    let resident = super::engine::ProcessMemory::now().map_or(0, |m| m.resident);
                    if !super::engine::must_stop_to_free(Instant::now(), deadline, resident) {
                        continue;
                    }
                    if let Some(ctx) = std::ptr::NonNull::new(ctx as *mut z3_sys::_Z3_context) {
                        // SAFETY: the context is alive (see above); Z3_interrupt is
                        // made to be called from another thread.
                        unsafe { z3_sys::Z3_interrupt(ctx) };
                    }
                }
            });
        match watcher {
            Ok(watcher) => InterruptAtDeadline {
                stop: Some(stop),
                watcher: Some(watcher),
            },
            // Without the watcher the search still checks its deadline between steps.
            Err(_) => unarmed,
        }
    }
}

impl Drop for InterruptAtDeadline {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(watcher) = self.watcher.take() {
            let _ = watcher.join();
        }
    }
}

/// Limits the memory Z3 allocates (process-wide, all contexts) to `bytes`, at least
/// 64 MiB: past it Z3 fails the call at hand ([`SolverFailure::Memory`]) instead of
/// allocating on until the process's limit, where an allocation failure inside Z3
/// kills the process.
pub fn limit_z3_memory(bytes: u64) {
    let mib = (bytes >> 20).max(64);
    z3::set_global_param("memory_max_size", &mib.to_string());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbolic::fp::FpOp;
    use crate::symbolic::names::ThreadKey;
    use crate::symbolic::term::Var;

    #[test]
    fn the_timeout_is_set_again_only_when_it_overruns_the_deadline_by_the_slack() {
        assert!(needs_new_timeout(None, Some(5000)));
        assert!(!needs_new_timeout(Some(5000), Some(5000)));
        // The time left shrinks by the millisecond: kept until it is 100 ms too long.
        assert!(!needs_new_timeout(Some(5000), Some(4990)));
        assert!(!needs_new_timeout(Some(5000), Some(4900)));
        assert!(needs_new_timeout(Some(5000), Some(4899)));
        // A longer budget (a new deadline) is set at once.
        assert!(needs_new_timeout(Some(5000), Some(5001)));
    }

    fn input(i: u32) -> Var {
        Var::Input {
            thread: ThreadKey(0),
            index: i,
        }
    }

    #[test]
    fn sat_unsat_and_models() {
        let mut p = TermPool::new();
        let mut smt = Smt::new(None);
        let x = p.var(input(0), 32);
        let ten = p.bv_const(10, 32);
        let gt = p.cmp(CmpOp::Slt, ten, x);
        let le = p.not(gt);
        let t = p.tru();
        match smt.check(&p, &[gt], t, &[(input(0), 32)]) {
            Answer::Sat(a) => assert!(a.holds(&p, gt) == Some(true)),
            other => panic!("expected sat, got {other:?}"),
        }
        assert_eq!(smt.check(&p, &[gt], le, &[]), Answer::Unsat);
        // The same query again comes from the cache.
        assert_eq!(smt.check(&p, &[gt], le, &[]), Answer::Unsat);
        assert_eq!(smt.stats.cache_hits, 1);
    }

    /// Factoring a 64-bit semiprime into 32-bit factors takes Z3 far longer than any
    /// test: armed at once, the interrupt ends the query with no answer.
    #[test]
    fn the_deadline_interrupt_ends_a_query_without_a_timeout() {
        let mut p = TermPool::new();
        let mut smt = Smt::new(None);
        let (x, y) = (p.var(input(0), 64), p.var(input(1), 64));
        let (one, bound) = (p.bv_const(1, 64), p.bv_const(1 << 32, 64));
        let product = p.bin(BvOp::Mul, x, y);
        let n = p.bv_const(9_153_552_214_547_054_437, 64);
        let pcon = [
            p.cmp(CmpOp::Ult, one, x),
            p.cmp(CmpOp::Ult, one, y),
            p.cmp(CmpOp::Ult, x, bound),
            p.cmp(CmpOp::Ult, y, bound),
        ];
        let factors = p.eq(product, n);
        let _interrupt = InterruptAtDeadline::arm(Some(Duration::ZERO));
        assert_eq!(smt.check(&p, &pcon, factors, &[]), Answer::Unknown);
    }

    /// A square root under a pushed path condition: the one-shot solver answers (the
    /// incremental one gave up after a minute), and the model is a root of 3.0 in the
    /// interpreter's semantics.
    #[test]
    fn float_queries_are_answered_outside_the_incremental_solver() {
        use analysis::ir::float;
        let mut p = TermPool::new();
        let mut smt = Smt::new(Some(Duration::from_secs(30)));
        let x = p.var(input(0), 32);
        let zero = p.bv_const(0, 32);
        let nonneg = p.fp(FpOp::Le, zero, x);
        let root = p.fp(FpOp::Sqrt, x, x);
        let three = p.bv_const(u64::from(3f32.to_bits()), 32);
        let is_three = p.cmp(CmpOp::Eq, root, three);
        let plain = p.cmp(CmpOp::Ult, x, three);
        // An integer-only query first, so the incremental solver has a pushed level.
        assert!(matches!(
            smt.check(&p, &[plain], plain, &[]),
            Answer::Sat(_)
        ));
        match smt.check(&p, &[plain, nonneg], is_three, &[(input(0), 32)]) {
            Answer::Unsat => {}
            other => panic!("no x below 3.0 has root 3.0, got {other:?}"),
        }
        match smt.check(&p, &[nonneg], is_three, &[(input(0), 32)]) {
            Answer::Sat(a) => {
                let v = a.get(input(0));
                assert_eq!(float::sqrt(32, v), u64::from(3f32.to_bits()), "x = {v:#x}");
            }
            other => panic!("expected sat, got {other:?}"),
        }
    }

    #[test]
    fn folding_agrees_with_z3_on_random_terms() {
        // Differential test of the constant folder against Z3's semantics.
        let mut rng = fastrand::Rng::with_seed(7);
        let ops = [
            BvOp::Add,
            BvOp::Sub,
            BvOp::Mul,
            BvOp::UDiv,
            BvOp::SDiv,
            BvOp::URem,
            BvOp::SRem,
            BvOp::Shl,
            BvOp::LShr,
            BvOp::AShr,
            BvOp::And,
            BvOp::Or,
            BvOp::Xor,
        ];
        let mut p = TermPool::new();
        let mut smt = Smt::new(None);
        for _ in 0..300 {
            let w = [8u8, 16, 32, 64][rng.usize(..4)];
            let op = ops[rng.usize(..ops.len())];
            let edge = [0u64, 1, u64::MAX, 1 << (w - 1), (1 << (w - 1)) - 1];
            let pick = |rng: &mut fastrand::Rng| {
                if rng.bool() {
                    edge[rng.usize(..edge.len())]
                } else {
                    rng.u64(..)
                }
            };
            let (x, y) = (pick(&mut rng), pick(&mut rng));
            let Some(folded) = super::super::term::fold_bin(
                op,
                super::super::term::mask(x, w),
                super::super::term::mask(y, w),
                w,
            ) else {
                continue;
            };
            // Ask Z3 whether op(vx, vy) == folded with vx, vy fixed to x, y.
            let vx = p.var(input(100), w);
            let vy = p.var(input(101), w);
            let kx = p.bv_const(x, w);
            let ky = p.bv_const(y, w);
            let ex = p.eq(vx, kx);
            let ey = p.eq(vy, ky);
            let r = p.bin(op, vx, vy);
            let kf = p.bv_const(folded, w);
            let differs = p.ne(r, kf);
            assert_eq!(
                smt.check(&p, &[ex, ey], differs, &[]),
                Answer::Unsat,
                "{op:?} on {x:#x}, {y:#x} at width {w}"
            );
        }
    }
}
