//! Points-to analysis: Andersen-style (inclusion-based, flow- and context-insensitive),
//! field-sensitive on cells `(object, offset)`, heap by allocation site, interprocedural
//! through calls, returns, function pointers, `pthread_create` arguments and
//! `pthread_join` results. Indirect calls are resolved on the fly, so the call graph is
//! an output of this rule set.
//!
//! ```c
//! struct s { int *a; int *b; } g;  int x, y;
//! g.a = &x; g.b = &y;            // pt(&g+0) ∋ x, pt(&g+4) ∋ y: fields kept apart
//! int *p = g.b;                  // pt(p) = {y}
//! ```
//!
//! Facts: `addr_of`, `alloc`, `assign_copy`, `assign_offset`, `assign_any`, `load`,
//! `store`, `obj_init`, `obj_size`, `func_obj`, `call`, `icall`, `actual_arg`,
//! `formal_param`, `call_result`, `return_val`, `thread_create`, `thread_join`,
//! `thread_exit_val`. `*` below is [`ANY_OFFSET`] (some cell of the object).
//!
//! Rules (`pt(v, o, k)`: variable `v` may point to cell `(o, k)`; `cpt(o, k, o', k')`:
//! cell `(o, k)` may hold a pointer to `(o', k')`):
//! ```text
//! pt(v, o, k)      ← addr_of(v, o, k)
//! pt(v, o, 0)      ← alloc(_, v, o)
//! pt(d, o, k)      ← assign_copy(_, d, s), pt(s, o, k)
//! pt(d, o, k ⊕ δ)  ← assign_offset(_, d, s, δ), pt(s, o, k), obj_size(o, n)
//!                    where k ⊕ δ = k + δ if k ≠ * and 0 ≤ k + δ < n, else *
//! pt(d, o, *)      ← assign_any(_, d, s), pt(s, o, _)
//! cpt(o, k, t, j)  ← obj_init(o, k, t, j)
//! cpt(o, k, t, j)  ← store(_, a, v), pt(a, o, k), pt(v, t, j)
//! pt(d, t, j)      ← load(_, d, a), pt(a, o, k), cpt(o, k', t, j), overlap(k, k')
//!                    where overlap(k, k') = k = k' ∨ k = * ∨ k' = *
//! call_edge(c, f)  ← call(c, f)
//! call_edge(c, f)  ← icall(c, p), pt(p, o, _), func_obj(o, f)
//! pt(p, o, k)      ← call_edge(c, f), actual_arg(c, i, a), formal_param(f, i, p), pt(a, o, k)
//! pt(d, o, k)      ← call_edge(c, f), call_result(c, d), return_val(r, v), stmt_func(r, f),
//!                    pt(v, o, k)
//! thread_edge(c, f) ← thread_create(c, _, p, _), pt(p, o, _), func_obj(o, f)
//! pt(p, o, k)      ← thread_edge(c, f), thread_create(c, _, _, a), formal_param(f, 0, p),
//!                    pt(a, o, k)
//! cpt(o, k, t, j)  ← thread_join(_, _, r), pt(r, o, k), thread_exit_val(_, v), pt(v, t, j)
//! cpt(o, k, t, j)  ← thread_join(_, _, r), pt(r, o, k), thread_edge(_, f), return_val(x, v),
//!                    stmt_func(x, f), pt(v, t, j)
//! ```
//! A thread's result reaches `*r` of every `pthread_join(_, r)` both through
//! `pthread_exit(v)` (anywhere) and through the `return v` of a thread's entry function.
//! The field-insensitive variant ([`run_field_insensitive`]) runs the same rules with every
//! offset replaced by `*`; its results include the field-sensitive ones (a test checks it).
//!
//! The same rules in Datalog, the readable specification beside the math above:
//! `rules/dl/points_to.dl` (the field-sensitive rules) and `rules/dl/points_to_fi.dl` (the
//! variant, deriving `pt_fi`, `cpt_fi`, `call_edge_fi`, `thread_edge_fi`), interpreted by
//! [`crate::dl`] and equal to this program on every fixture and corpus program
//! (`rules/tests/dl_differential.rs`).

use analysis::facts::{Facts, FuncId, Obj, StmtId, Var, ANY_OFFSET};
use ascent::ascent;
use std::collections::HashMap;

/// A cell of an object: `offset` is [`ANY_OFFSET`] for "some cell of the object".
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct Cell {
    pub obj: Obj,
    pub offset: i64,
}

impl Cell {
    /// Whether two cells may be the same memory.
    pub fn overlaps(self, other: Cell) -> bool {
        self.obj == other.obj
            && (self.offset == other.offset
                || self.offset == ANY_OFFSET
                || other.offset == ANY_OFFSET)
    }
}

/// The result of the points-to rule set.
#[derive(Clone, Debug, Default)]
pub struct PointsTo {
    /// `pt(var, cell)`, sorted.
    pub var_points_to: Vec<(Var, Cell)>,
    /// `cpt(cell, target)`: memory cell `cell` may hold a pointer to `target`; sorted.
    pub cell_points_to: Vec<(Cell, Cell)>,
    /// `call_edge(site, callee)`: direct calls and resolved indirect calls; sorted.
    pub call_edges: Vec<(StmtId, FuncId)>,
    /// `thread_edge(create_site, entry)`: the functions a `pthread_create` may start.
    pub thread_edges: Vec<(StmtId, FuncId)>,
    by_var: HashMap<Var, Vec<Cell>>,
}

impl PointsTo {
    /// The cells `var` may point to (empty for integers and unknown variables).
    pub fn of(&self, var: Var) -> &[Cell] {
        self.by_var.get(&var).map_or(&[], Vec::as_slice)
    }

    /// Whether two pointer variables may point to the same cell.
    pub fn may_alias(&self, a: Var, b: Var) -> bool {
        let pb = self.of(b);
        self.of(a).iter().any(|x| pb.iter().any(|y| x.overlaps(*y)))
    }

    /// `(relation, size)` of the outputs.
    pub fn sizes(&self) -> Vec<(&'static str, usize)> {
        vec![
            ("pt", self.var_points_to.len()),
            ("cpt", self.cell_points_to.len()),
            ("call_edge", self.call_edges.len()),
            ("thread_edge", self.thread_edges.len()),
        ]
    }

    pub(crate) fn from_parts(
        pt: Vec<(Var, Obj, i64)>,
        cpt: Vec<(Obj, i64, Obj, i64)>,
        calls: Vec<(StmtId, FuncId)>,
        threads: Vec<(StmtId, FuncId)>,
    ) -> PointsTo {
        let mut var_points_to: Vec<(Var, Cell)> = pt
            .into_iter()
            .map(|(v, obj, offset)| (v, Cell { obj, offset }))
            .collect();
        var_points_to.sort();
        let mut cell_points_to: Vec<(Cell, Cell)> = cpt
            .into_iter()
            .map(|(o, k, t, j)| (Cell { obj: o, offset: k }, Cell { obj: t, offset: j }))
            .collect();
        cell_points_to.sort();
        let mut by_var: HashMap<Var, Vec<Cell>> = HashMap::new();
        for &(v, c) in &var_points_to {
            by_var.entry(v).or_default().push(c);
        }
        PointsTo {
            var_points_to,
            cell_points_to,
            call_edges: sorted(calls),
            thread_edges: sorted(threads),
            by_var,
        }
    }
}

pub(crate) fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort();
    v.dedup();
    v
}

/// `k ⊕ δ`: the offset after pointer arithmetic, or `*` when it leaves the object.
pub(crate) fn shift(k: i64, delta: i64, size: i64) -> i64 {
    if k == ANY_OFFSET {
        return ANY_OFFSET;
    }
    if delta == 0 {
        return k;
    }
    match k.checked_add(delta) {
        Some(n) if n >= 0 && n < size => n,
        _ => ANY_OFFSET,
    }
}

ascent! {
    struct PointsToProgram;
    relation base_offset(i64);
    relation addr_of(Var, Obj, i64);
    relation alloc(Var, Obj);
    relation assign_copy(Var, Var);
    relation assign_offset(Var, Var, i64);
    relation assign_any(Var, Var);
    relation load(Var, Var);
    relation store(Var, Var);
    relation obj_init(Obj, i64, Obj, i64);
    relation obj_size(Obj, i64);
    relation func_obj(Obj, FuncId);
    relation call(StmtId, FuncId);
    relation icall(StmtId, Var);
    relation actual_arg(StmtId, u32, Var);
    relation formal_param(FuncId, u32, Var);
    relation call_result(StmtId, Var);
    relation returns(FuncId, Var);
    relation thread_create(StmtId, Var, Var);
    relation join_result(Var);
    relation thread_exit(Var);

    relation pt(Var, Obj, i64);
    relation cpt(Obj, i64, Obj, i64);
    relation call_edge(StmtId, FuncId);
    relation thread_edge(StmtId, FuncId);

    pt(v, o, k) <-- addr_of(v, o, k);
    pt(v, o, z) <-- alloc(v, o), base_offset(z);
    pt(d, o, k) <-- assign_copy(d, s), pt(s, o, k);
    pt(d, o, shift(*k, *delta, *n)) <--
        assign_offset(d, s, delta), pt(s, o, k), obj_size(o, n);
    pt(d, o, ANY_OFFSET) <-- assign_any(d, s), pt(s, o, _);

    cpt(o, k, t, j) <-- obj_init(o, k, t, j);
    cpt(o, k, t, j) <-- store(a, v), pt(a, o, k), pt(v, t, j);

    pt(d, t, j) <-- load(d, a), pt(a, o, k), cpt(o, k, t, j);
    pt(d, t, j) <-- load(d, a), pt(a, o, k), if *k != ANY_OFFSET, cpt(o, any, t, j),
        if *any == ANY_OFFSET;
    pt(d, t, j) <-- load(d, a), pt(a, o, any), if *any == ANY_OFFSET, cpt(o, _, t, j);

    call_edge(c, f) <-- call(c, f);
    call_edge(c, f) <-- icall(c, p), pt(p, o, _), func_obj(o, f);
    pt(p, o, k) <--
        call_edge(c, f), actual_arg(c, i, a), formal_param(f, i, p), pt(a, o, k);
    pt(d, o, k) <-- call_edge(c, f), call_result(c, d), returns(f, v), pt(v, o, k);

    thread_edge(c, f) <-- thread_create(c, p, _), pt(p, o, _), func_obj(o, f);
    pt(p, o, k) <--
        thread_edge(c, f), thread_create(c, _, a), formal_param(f, i, p), if *i == 0,
        pt(a, o, k);
    cpt(o, k, t, j) <-- join_result(r), pt(r, o, k), thread_exit(v), pt(v, t, j);
    cpt(o, k, t, j) <--
        join_result(r), pt(r, o, k), thread_edge(_, f), returns(f, v), pt(v, t, j);
}

/// Runs the field-sensitive points-to analysis.
pub fn run(facts: &Facts) -> PointsTo {
    run_with(facts, false)
}

/// Runs the field-insensitive variant: every offset is `*`.
pub fn run_field_insensitive(facts: &Facts) -> PointsTo {
    run_with(facts, true)
}

fn run_with(facts: &Facts, insensitive: bool) -> PointsTo {
    let inputs = Inputs::new(facts, insensitive);
    let mut p = PointsToProgram::default();
    p.base_offset = vec![(inputs.off(0),)];
    p.addr_of = inputs.addr_of;
    p.alloc = inputs.alloc;
    p.assign_copy = inputs.assign_copy;
    p.assign_offset = inputs.assign_offset;
    p.assign_any = inputs.assign_any;
    p.load = inputs.load;
    p.store = inputs.store;
    p.obj_init = inputs.obj_init;
    p.obj_size = inputs.obj_size;
    p.func_obj = inputs.func_obj;
    p.call = inputs.call;
    p.icall = inputs.icall;
    p.actual_arg = inputs.actual_arg;
    p.formal_param = inputs.formal_param;
    p.call_result = inputs.call_result;
    p.returns = inputs.returns;
    p.thread_create = inputs.thread_create;
    p.join_result = inputs.join_result;
    p.thread_exit = inputs.thread_exit;
    p.run();
    PointsTo::from_parts(p.pt, p.cpt, p.call_edge, p.thread_edge)
}

/// The input relations of the points-to rules, projected from the facts (shared with the
/// crepe twin).
pub(crate) struct Inputs {
    insensitive: bool,
    pub addr_of: Vec<(Var, Obj, i64)>,
    pub alloc: Vec<(Var, Obj)>,
    pub assign_copy: Vec<(Var, Var)>,
    pub assign_offset: Vec<(Var, Var, i64)>,
    pub assign_any: Vec<(Var, Var)>,
    pub load: Vec<(Var, Var)>,
    pub store: Vec<(Var, Var)>,
    pub obj_init: Vec<(Obj, i64, Obj, i64)>,
    pub obj_size: Vec<(Obj, i64)>,
    pub func_obj: Vec<(Obj, FuncId)>,
    pub call: Vec<(StmtId, FuncId)>,
    pub icall: Vec<(StmtId, Var)>,
    pub actual_arg: Vec<(StmtId, u32, Var)>,
    pub formal_param: Vec<(FuncId, u32, Var)>,
    pub call_result: Vec<(StmtId, Var)>,
    pub returns: Vec<(FuncId, Var)>,
    pub thread_create: Vec<(StmtId, Var, Var)>,
    pub join_result: Vec<(Var,)>,
    pub thread_exit: Vec<(Var,)>,
}

impl Inputs {
    pub(crate) fn new(f: &Facts, insensitive: bool) -> Inputs {
        let func_of: HashMap<StmtId, FuncId> = f.stmt_func.iter().copied().collect();
        let off = |k: i64| if insensitive { ANY_OFFSET } else { k };
        let (assign_offset, extra_copies): (Vec<_>, Vec<_>) = if insensitive {
            (
                vec![],
                f.assign_offset.iter().map(|&(_, d, s, _)| (d, s)).collect(),
            )
        } else {
            (
                f.assign_offset
                    .iter()
                    .map(|&(_, d, s, k)| (d, s, k))
                    .collect(),
                vec![],
            )
        };
        Inputs {
            insensitive,
            addr_of: f.addr_of.iter().map(|&(v, o, k)| (v, o, off(k))).collect(),
            alloc: f.alloc.iter().map(|&(_, v, o)| (v, o)).collect(),
            assign_copy: f
                .assign_copy
                .iter()
                .map(|&(_, d, s)| (d, s))
                .chain(extra_copies)
                .collect(),
            assign_offset,
            assign_any: f.assign_any.iter().map(|&(_, d, s)| (d, s)).collect(),
            load: f.load.iter().map(|&(_, d, a)| (d, a)).collect(),
            store: f.store.iter().map(|&(_, a, v)| (a, v)).collect(),
            obj_init: f
                .obj_init
                .iter()
                .map(|&(o, k, t, j)| (o, off(k), t, off(j)))
                .collect(),
            obj_size: f.obj_size.clone(),
            func_obj: f.func_obj.clone(),
            call: f.call.clone(),
            icall: f.icall.clone(),
            actual_arg: f.actual_arg.clone(),
            formal_param: f.formal_param.clone(),
            call_result: f.call_result.clone(),
            returns: f
                .return_val
                .iter()
                .filter_map(|&(r, v)| func_of.get(&r).map(|&func| (func, v)))
                .collect(),
            thread_create: f
                .thread_create
                .iter()
                .map(|&(s, _, p, a)| (s, p, a))
                .collect(),
            join_result: f
                .thread_join
                .iter()
                .filter(|j| j.2 != Facts::CONST_VAR)
                .map(|j| (j.2,))
                .collect(),
            thread_exit: f.thread_exit_val.iter().map(|&(_, v)| (v,)).collect(),
        }
    }

    pub(crate) fn off(&self, k: i64) -> i64 {
        if self.insensitive {
            ANY_OFFSET
        } else {
            k
        }
    }
}

#[cfg(test)]
mod tests;
