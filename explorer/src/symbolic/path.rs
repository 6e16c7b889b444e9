//! The current path: its condition (a stack of conjuncts mirrored into Z3 by [`super::smt::Smt`]),
//! the pins it carries, a model of it, its inputs and its trace; forks push a side's
//! guard and pop it when the side is explored ([`Engine::under`]).
//!
//! The engine keeps an assignment that satisfies the path condition (the last model,
//! zeros for newer inputs): a fork side that holds under it needs no query. Equalities
//! `t == k` asserted by a fork *pin* `t` to `k`, so an address or thread id that was
//! concretized is read as a constant by the statement that forked on it.

use super::engine::{Engine, Side, SideNext, Sub};
use super::model::Assignment;
use super::smt::Answer;
use super::state::{State, Tid};
use super::step::StepCtx;
use super::summary::Accesses;
use super::term::{TermId, TermPool, Var};
use super::Reason;
use crate::concrete::EventKind;
use analysis::ir::{Scalar, Span, StmtId};
use rustc_hash::FxHashMap;
use std::rc::Rc;
/// An input read on the current path, in the interpreter's consumption order.
#[derive(Clone, Debug)]
pub struct InputRec {
    pub var: Var,
    pub ty: Scalar,
    pub tid: Tid,
}

/// One interpreter step on the current path.
#[derive(Clone, Copy, Debug)]
pub struct TraceItem {
    pub tid: Tid,
    pub stmt: StmtId,
    pub span: Span,
    pub event: EventKind,
    /// An await marker (not an interpreter step): thread `tid`'s atomic section failed
    /// and awaits, and its items from this index on are void ([`super::awaits`]).
    pub void_from: Option<u32>,
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
    /// Under symbolic arguments ([`super::argv`]): the inputs spelling each of
    /// `argv[1..]` in the current start state, valued into the witness's `args`.
    pub argv: Vec<Vec<Var>>,
}

impl<'p> Engine<'p> {
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

    pub(super) fn wanted(&self) -> Vec<(Var, u8)> {
        self.path
            .inputs
            .iter()
            .map(|i| (i.var, i.ty.bits(self.setup.dm)))
            .chain(self.path.argv.iter().flatten().map(|&v| (v, 8)))
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
                if !self.solver_failed() {
                    let what = "the solver gave up on a path condition".to_string();
                    self.incomplete(Reason::Solver, what);
                }
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
                SideNext::Continue(st) => e.explore_step(st, cur, k),
                SideNext::End(st, end) => e.leaf(&st, end, &k),
            });
            if let Some(sub) = res {
                if self.setup.wp_on {
                    rw.extend(sub.rw);
                    wp = if rw.saturated() {
                        // No summary is recorded above (see `Accesses`).
                        self.pool.fals()
                    } else {
                        let part = self.pool.and(guard_wp, sub.wp);
                        let union = self.pool.or(wp, part);
                        self.capped(union)
                    };
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

    /// A fresh input of type `ty` read by thread `t`.
    pub fn new_input(&mut self, st: &mut State, t: Tid, ty: Scalar) -> TermId {
        let th = &mut st.threads[t];
        let var = Var::Input {
            thread: th.key,
            index: th.inputs,
        };
        th.inputs += 1;
        self.path.inputs.push(InputRec { var, ty, tid: t });
        self.pool.var(var, ty.bits(self.setup.dm))
    }
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
            void_from: None,
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
