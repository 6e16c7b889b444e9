//! Where, in a run-once function, the threads running an entry are started: the creation
//! sites of the entry lifted through the calls that reach them, so that creations inside
//! a helper (`spawn(f)` called twice) keep their order in the caller.
//!
//! ```c
//! pthread_t spawn(void *(*body)(void *)) { pthread_t t; pthread_create(&t, 0, body, 0); return t; }
//! int main() {
//!   pthread_t a = spawn(first);   // k1: anchor of `first` (via the create in spawn)
//!   pthread_join(a, 0);           // j1: joins the thread created during k1
//!   pthread_t b = spawn(second);  // k2: anchor of `second`; j1 before k2
//! }
//! ```
//!
//! Rules (`m` a run-once function, `t` a thread entry, `c` a creation site with
//! `thread_edge(c, t)`; [`crate::happens_before`] uses them for may-happen-in-parallel):
//! ```text
//! anchor(t, m, c, c)     ← func(c) = m
//! anchor(t, m, k, c)     ← func(c) = g ≠ m, g no thread entry, call_edge(k, g), func(k) = m,
//!                          ¬passes_other(k, c, t)
//! up(t, m, c, k)         ← func(c) = g ≠ m, g no thread entry, call_edge(k, g), func(k) ≠ m,
//!                          ¬passes_other(k, c, t)
//! up(t, m, c, k')        ← up(t, m, c, k), func(k) = h, h no thread entry, call_edge(k', h), func(k') ≠ m
//! anchor(t, m, k', _)    ← up(t, m, c, k), func(k) = h, call_edge(k', h), func(k') = m
//! lost(t, m, c)          ← func(c) or func(k) of up(t, m, c, k) a thread entry other than m
//! passes_other(k, c, t)  ← c's function operand is a formal parameter i of func(c) (never
//!                          redefined), and k passes `&t'` with t' ≠ t as argument i
//! ```
//! Every run of `c` that starts a thread running `t` happens during the run of one of its
//! anchors in `m`, unless `lost` (a chain of callers reaches another thread's entry, which
//! `m`'s one activation does not contain). An anchor reached through one call level records
//! its create (`via`): [`Anchors::joins_of`] then finds the joins that wait for exactly the
//! thread that call created (the helper returns the handle its create wrote into its own
//! stack slot, and the join's handle is that call's result).

use crate::call_graph::CallGraph;
use crate::data_dep::DataDeps;
use crate::points_to::{Cell, PointsTo};
use analysis::facts::{Facts, FuncId, Obj, StmtId, Var, ANY_OFFSET};
use std::collections::{BTreeSet, HashMap, HashSet};

/// A site in a run-once function during whose run threads of an entry may be created.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Anchor {
    /// The creation site itself, or a call that (transitively) reaches it.
    pub site: StmtId,
    /// For a call one level above its creation site: that creation site.
    pub via: Option<StmtId>,
}

/// The facts [`Anchors::lift`] walks: callers, thread entries, helper arguments and the
/// joins of helper-created threads.
#[derive(Clone, Debug, Default)]
pub struct Anchors {
    func_of: HashMap<StmtId, FuncId>,
    callers: HashMap<FuncId, Vec<StmtId>>,
    entries: HashSet<FuncId>,
    /// Statements in a CFG cycle: an anchor there may start several threads, its join
    /// waits only for the last.
    in_cycle: HashSet<StmtId>,
    /// Creation sites whose function operand is formal parameter `i` of their function.
    fn_param: HashMap<StmtId, u32>,
    /// `(call, i)`: the call passes the address of this function as argument `i`.
    fn_arg: HashMap<(StmtId, u32), FuncId>,
    /// `(call, create)`: joins waiting for the thread that create started during the call.
    call_joins: HashMap<(StmtId, StmtId), Vec<StmtId>>,
}

impl Anchors {
    pub fn new(facts: &Facts, pts: &PointsTo, cg: &CallGraph, deps: &DataDeps) -> Anchors {
        let mut callers: HashMap<FuncId, Vec<StmtId>> = HashMap::new();
        for &(k, f) in &cg.call_edges {
            callers.entry(f).or_default().push(k);
        }
        let func_of: HashMap<StmtId, FuncId> = facts.stmt_func.iter().copied().collect();
        let mut anchors = Anchors {
            func_of,
            callers,
            entries: cg.thread_entries.iter().copied().collect(),
            in_cycle: facts.in_cycle.iter().map(|c| c.0).collect(),
            fn_param: function_params(facts),
            fn_arg: function_args(facts),
            call_joins: HashMap::new(),
        };
        anchors.call_joins = helper_joins(facts, pts, cg, deps, &anchors.func_of);
        anchors
    }

    /// The anchors in `m` of the threads running `t` created at `c`, or `None` when some
    /// such thread may be created outside `m`'s activation.
    pub fn lift(&self, t: FuncId, c: StmtId, m: FuncId) -> Option<BTreeSet<Anchor>> {
        let g = *self.func_of.get(&c)?;
        let mut out = BTreeSet::new();
        if g == m {
            out.insert(Anchor { site: c, via: None });
            return Some(out);
        }
        let mut work = Vec::new();
        for k in self.callers_of(g)? {
            if self.passes_other(k, c, t) {
                continue;
            }
            if self.func_of.get(&k) == Some(&m) {
                out.insert(Anchor {
                    site: k,
                    via: Some(c),
                });
            } else {
                work.push(k);
            }
        }
        let mut seen = HashSet::new();
        while let Some(k) = work.pop() {
            if !seen.insert(k) {
                continue;
            }
            let h = *self.func_of.get(&k)?;
            if h == m {
                out.insert(Anchor { site: k, via: None });
                continue;
            }
            work.extend(self.callers_of(h)?);
        }
        Some(out)
    }

    /// The call sites of `g`, or `None` when `g` starts a thread (or is `main`).
    fn callers_of(&self, g: FuncId) -> Option<Vec<StmtId>> {
        if self.entries.contains(&g) {
            return None;
        }
        Some(self.callers.get(&g).cloned().unwrap_or_default())
    }

    /// Call `k` passes a function other than `t` as the function operand of create `c`.
    fn passes_other(&self, k: StmtId, c: StmtId, t: FuncId) -> bool {
        let Some(&i) = self.fn_param.get(&c) else {
            return false;
        };
        self.fn_arg.get(&(k, i)).is_some_and(|&f| f != t)
    }

    /// `a` starts at most one thread during the one run of its site: the create itself
    /// or a helper's create one call level down, neither in a loop.
    pub fn starts_one(&self, a: Anchor, creates: &HashSet<StmtId>) -> bool {
        let once_in = |s: StmtId| !self.in_cycle.contains(&s);
        match a.via {
            None => creates.contains(&a.site) && once_in(a.site),
            Some(c) => once_in(a.site) && once_in(c),
        }
    }

    /// `(join, call, create)`: the join waits for the thread `create` started during `call`.
    pub fn helper_joins(&self) -> Vec<(StmtId, StmtId, StmtId)> {
        let mut v: Vec<_> = self
            .call_joins
            .iter()
            .flat_map(|(&(k, c), js)| js.iter().map(move |&j| (j, k, c)))
            .collect();
        v.sort();
        v
    }

    /// The joins that wait for every thread of anchor `a` (none for deeper anchors, nor
    /// for an anchor in a loop).
    pub fn joins_of<'a>(
        &'a self,
        a: Anchor,
        direct: &'a HashMap<StmtId, Vec<StmtId>>,
    ) -> &'a [StmtId] {
        if self.in_cycle.contains(&a.site) {
            return &[];
        }
        let joins = match a.via {
            None => direct.get(&a.site),
            Some(c) => self.call_joins.get(&(a.site, c)),
        };
        joins.map_or(&[], Vec::as_slice)
    }
}

/// Creation sites whose function operand is a formal parameter no statement redefines.
fn function_params(facts: &Facts) -> HashMap<StmtId, u32> {
    let defined: HashSet<Var> = facts.defines.iter().map(|d| d.1).collect();
    let params: HashMap<Var, (FuncId, u32)> = facts
        .formal_param
        .iter()
        .map(|&(f, i, v)| (v, (f, i)))
        .collect();
    let func_of: HashMap<StmtId, FuncId> = facts.stmt_func.iter().copied().collect();
    let mut out = HashMap::new();
    for &(c, _, fv, _) in &facts.thread_create {
        if let Some(&(f, i)) = params.get(&fv) {
            if !defined.contains(&fv) && func_of.get(&c) == Some(&f) {
                out.insert(c, i);
            }
        }
    }
    out
}

/// `(call, i) → f`: argument `i` of the call is the address of function `f`.
fn function_args(facts: &Facts) -> HashMap<(StmtId, u32), FuncId> {
    let funcs: HashMap<_, FuncId> = facts.func_obj.iter().copied().collect();
    let mut addr: HashMap<Var, Vec<FuncId>> = HashMap::new();
    for &(v, o, k) in &facts.addr_of {
        if let (Some(&f), 0) = (funcs.get(&o), k) {
            addr.entry(v).or_default().push(f);
        }
    }
    let mut out = HashMap::new();
    for &(k, i, v) in &facts.actual_arg {
        if let Some([f]) = addr.get(&v).map(Vec::as_slice) {
            out.insert((k, i), *f);
        }
    }
    out
}

/// `(call, create) → joins`: the call's only callee `g` runs `create` at most once per
/// activation (outside any cycle), writing the handle into a stack slot of `g` that no
/// other statement writes, and returns only values loaded from that slot after the create;
/// the join's handle is the call's result (through copies), in the call's function, which
/// the call dominates.
fn helper_joins(
    facts: &Facts,
    pts: &PointsTo,
    cg: &CallGraph,
    deps: &DataDeps,
    func_of: &HashMap<StmtId, FuncId>,
) -> HashMap<(StmtId, StmtId), Vec<StmtId>> {
    let helpers = returned_handles(facts, pts, deps, func_of);
    let dominates = dominance(facts);
    let mut callees: HashMap<StmtId, Vec<FuncId>> = HashMap::new();
    for &(k, f) in &cg.call_edges {
        callees.entry(k).or_default().push(f);
    }
    let mut def_count: HashMap<Var, usize> = HashMap::new();
    for &(_, v) in &facts.defines {
        *def_count.entry(v).or_default() += 1;
    }
    let single = |v: Var| def_count.get(&v) == Some(&1);
    let copies: HashMap<Var, Var> = facts
        .assign_copy
        .iter()
        .filter(|c| single(c.1))
        .map(|&(_, d, s)| (d, s))
        .collect();
    let results: HashMap<Var, StmtId> = facts
        .call_result
        .iter()
        .filter(|r| single(r.1))
        .map(|&(k, v)| (v, k))
        .collect();
    let mut out: HashMap<(StmtId, StmtId), Vec<StmtId>> = HashMap::new();
    for &(j, handle, _) in &facts.thread_join {
        let mut v = handle;
        let mut steps = 0;
        while let Some(&src) = copies.get(&v) {
            v = src;
            steps += 1;
            if steps > 64 {
                break;
            }
        }
        let Some(&k) = results.get(&v) else { continue };
        if func_of.get(&k) != func_of.get(&j) || !dominates(k, j) {
            continue;
        }
        let Some([g]) = callees.get(&k).map(Vec::as_slice) else {
            continue;
        };
        if let Some(&c) = helpers.get(g) {
            out.entry((k, c)).or_default().push(j);
        }
    }
    out
}

/// Functions that return the handle of their one creation: `g → create`.
fn returned_handles(
    facts: &Facts,
    pts: &PointsTo,
    deps: &DataDeps,
    func_of: &HashMap<StmtId, FuncId>,
) -> HashMap<FuncId, StmtId> {
    let in_cycle: HashSet<StmtId> = facts.in_cycle.iter().map(|c| c.0).collect();
    let slot_of: HashMap<_, FuncId> = facts.stack_obj.iter().copied().collect();
    let dominates = dominance(facts);
    let mut defs: HashMap<Var, Vec<StmtId>> = HashMap::new();
    for &(s, v) in &facts.defines {
        defs.entry(v).or_default().push(s);
    }
    let loads: HashMap<StmtId, Var> = facts.load.iter().map(|&(s, _, a)| (s, a)).collect();
    let mut returns: HashMap<FuncId, Vec<Var>> = HashMap::new();
    for &(s, v) in &facts.return_val {
        if let Some(&f) = func_of.get(&s) {
            returns.entry(f).or_default().push(v);
        }
    }
    // Address constants: `&slot` names the slot of the running activation.
    let addr: HashMap<Var, (Obj, i64)> =
        facts.addr_of.iter().map(|&(v, o, k)| (v, (o, k))).collect();
    let mut out = HashMap::new();
    for &(c, h, _, _) in &facts.thread_create {
        let Some(&g) = func_of.get(&c) else { continue };
        let [cell] = pts.of(h) else { continue };
        let own_slot = slot_of.get(&cell.obj) == Some(&g)
            && cell.offset != ANY_OFFSET
            && addr.get(&h) == Some(&(cell.obj, cell.offset));
        if in_cycle.contains(&c) || !own_slot || !only_writer(deps, c, *cell) {
            continue;
        }
        let returns_handle = returns.get(&g).is_some_and(|vs| {
            vs.iter().all(|&v| {
                let Some([l]) = defs.get(&v).map(Vec::as_slice) else {
                    return false;
                };
                loads.get(l).is_some_and(|&a| {
                    addr.get(&a) == Some(&(cell.obj, cell.offset)) && dominates(c, *l)
                })
            })
        });
        if returns_handle {
            out.insert(g, c);
        }
    }
    out
}

/// `dominates(a, b)`: `a` is on every path from its function's entry to `b`.
fn dominance(facts: &Facts) -> impl Fn(StmtId, StmtId) -> bool {
    let interval: HashMap<StmtId, (u32, u32)> = facts
        .dom_interval
        .iter()
        .map(|&(s, a, b)| (s, (a, b)))
        .collect();
    move |a, b| match (interval.get(&a), interval.get(&b)) {
        (Some(&(pa, qa)), Some(&(pb, qb))) => pa <= pb && qb <= qa,
        _ => false,
    }
}

/// No statement but `c` may write `cell` (the data-dependence write cells cover stores,
/// library writes and creations).
fn only_writer(deps: &DataDeps, c: StmtId, cell: Cell) -> bool {
    deps.write_cells
        .iter()
        .all(|&(w, o, k)| w == c || o != cell.obj || (k != cell.offset && k != ANY_OFFSET))
}

#[cfg(test)]
mod tests {
    use crate::races::tests::{fixture, line};
    use std::collections::BTreeSet;

    fn race_lines(name: &str) -> BTreeSet<(u32, u32)> {
        let (facts, a) = fixture(name);
        let r = crate::races::run(&crate::races::Inputs {
            facts: &facts,
            points_to: &a.points_to,
            call_graph: &a.call_graph,
            data: &a.data,
            happens_before: &a.happens_before,
        });
        r.races
            .iter()
            .map(|x| (line(&facts, x.first), line(&facts, x.second)))
            .collect()
    }

    #[test]
    fn creations_through_a_helper_keep_their_order() {
        // `first` is joined before `spawn(second)`; main reads `shared` after both joins;
        // only `racy` (second's write against main's, between creation and join) races.
        assert_eq!(
            race_lines("warnings/create_in_helper.c"),
            BTreeSet::from([(16, 30)])
        );
    }

    #[test]
    fn a_helper_in_a_loop_or_in_a_thread_orders_nothing() {
        // Several workers run at once, and main joins the last one only.
        assert_eq!(
            race_lines("warnings/spawn_in_loop.c"),
            BTreeSet::from([(8, 8), (8, 23)])
        );
        // The worker `boss` starts is never joined before main reads.
        assert!(race_lines("warnings/spawn_from_thread.c").contains(&(8, 28)));
    }

    #[test]
    fn a_join_after_a_create_in_a_loop_waits_for_the_last_thread_only() {
        assert!(race_lines("warnings/create_do_while.c").contains(&(8, 20)));
    }
}
