//! A normalized rule body ordered into a plan of joins: atoms in an order that binds
//! their variables, filters as soon as their variables are bound, one variant per
//! recursive body atom reading the last round's news.

use super::super::syntax::{CmpOp, Expr, Literal, Pos, Type};
use super::super::DlError;
use super::normalize::*;
use super::plan::*;

pub(super) struct Planner<'a, 'b> {
    pub(super) cx: &'a mut RuleCx<'b>,
    /// Every variable outside each `count` (to tell correlated from local ones).
    pub(super) outer_vars: Vec<String>,
}

impl Planner<'_, '_> {
    pub(super) fn ensure_bound_slot(&mut self, bound: &mut Vec<bool>, s: usize) {
        if bound.len() <= s {
            bound.resize(s + 1, false);
        }
    }

    pub(super) fn is_bound(bound: &[bool], cx: &RuleCx, v: &str) -> bool {
        cx.slots
            .get(v)
            .is_some_and(|&s| bound.get(s).copied().unwrap_or(false))
    }

    /// Variables an expression needs bound before it can be computed (for a `count`:
    /// its variables that also occur outside it).
    pub(super) fn needs(&self, e: &Expr) -> Vec<(String, Pos)> {
        let mut out = Vec::new();
        match e {
            Expr::Count(..) | Expr::Aggregate(..) => {
                let mut inner = Vec::new();
                vars_of(e, &mut inner);
                out.extend(
                    inner
                        .into_iter()
                        .filter(|(v, _)| self.outer_vars.contains(v)),
                );
            }
            Expr::Arith(_, a, b, _) => {
                out.extend(self.needs(a));
                out.extend(self.needs(b));
            }
            Expr::Neg(a, _) | Expr::Ord(a, _) => out.extend(self.needs(a)),
            other => vars_of(other, &mut out),
        }
        out
    }

    pub(super) fn expr_type(&self, e: &Expr) -> Result<Type, DlError> {
        match e {
            // An aggregate's target is checked when its body is planned (the body types it).
            Expr::Num(..) | Expr::Count(..) | Expr::Aggregate(..) => Ok(Type::Number),
            Expr::Ord(a, p) => {
                if self.expr_type(a)? != Type::Symbol {
                    return Err(DlError::at(
                        p.clone(),
                        "type mismatch: `ord` takes a symbol (a number is its own order)",
                    ));
                }
                Ok(Type::Number)
            }
            Expr::Str(..) => Ok(Type::Symbol),
            Expr::Var(v, p) => self
                .cx
                .slots
                .get(v)
                .and_then(|&s| self.cx.types[s].as_ref())
                .map(|(t, _)| *t)
                .ok_or_else(|| {
                    DlError::at(
                        p.clone(),
                        format!("variable `{v}` has no type (not bound by a positive atom)"),
                    )
                }),
            Expr::Wild(p) => Err(DlError::at(
                p.clone(),
                "`_` is only allowed as an atom argument",
            )),
            Expr::Arith(_, a, b, p) => {
                for x in [a, b] {
                    if self.expr_type(x)? != Type::Number {
                        return Err(DlError::at(
                            p.clone(),
                            "type mismatch: arithmetic on a symbol",
                        ));
                    }
                }
                Ok(Type::Number)
            }
            Expr::Neg(a, p) => {
                if self.expr_type(a)? != Type::Number {
                    return Err(DlError::at(
                        p.clone(),
                        "type mismatch: arithmetic on a symbol",
                    ));
                }
                Ok(Type::Number)
            }
        }
    }

    pub(super) fn compile_expr(
        &mut self,
        e: &Expr,
        bound: &mut Vec<bool>,
        below: &dyn Fn(RelId) -> bool,
    ) -> Result<CExpr, DlError> {
        Ok(match e {
            Expr::Num(n, _) => CExpr::Const(*n),
            Expr::Str(s, _) => CExpr::Const(self.cx.symbols.intern_literal(s)),
            Expr::Var(v, p) => {
                let s = *self
                    .cx
                    .slots
                    .get(v)
                    .filter(|&&s| bound.get(s).copied().unwrap_or(false))
                    .ok_or_else(|| {
                        DlError::at(
                            p.clone(),
                            format!("variable `{v}` is not bound by a positive atom (ungrounded)"),
                        )
                    })?;
                CExpr::Slot(s)
            }
            Expr::Wild(p) => {
                return Err(DlError::at(
                    p.clone(),
                    "`_` is only allowed as an atom argument",
                ))
            }
            Expr::Arith(op, a, b, _) => CExpr::Arith(
                *op,
                Box::new(self.compile_expr(a, bound, below)?),
                Box::new(self.compile_expr(b, bound, below)?),
            ),
            Expr::Neg(a, _) => CExpr::Neg(Box::new(self.compile_expr(a, bound, below)?)),
            Expr::Ord(a, _) => {
                // A symbol's value orders like its ordinal: the value is the ordinal.
                self.expr_type(e)?;
                self.compile_expr(a, bound, below)?
            }
            Expr::Count(body, p) => CExpr::Count(self.aggregate_body(body, p, bound, below)?.0),
            Expr::Aggregate(agg, target, body, p) => {
                let (ops, mut inner_bound) = self.aggregate_body(body, p, bound, below)?;
                if self.expr_type(target)? != Type::Number {
                    return Err(DlError::at(
                        target.pos().clone(),
                        format!(
                            "type mismatch: `{}` of a symbol (use `ord(…)` for its order)",
                            agg.name()
                        ),
                    ));
                }
                if contains_aggregate(target) {
                    return Err(DlError::at(
                        target.pos().clone(),
                        format!("an aggregate inside the target of `{}`", agg.name()),
                    ));
                }
                let t = self.compile_expr(target, &mut inner_bound, below)?;
                CExpr::Aggregate(*agg, Box::new(t), ops)
            }
        })
    }

    /// Plans an aggregate's body, which may only read relations of lower strata; returns
    /// its operations and the variables bound after them.
    pub(super) fn aggregate_body(
        &mut self,
        body: &[Literal],
        p: &Pos,
        bound: &[bool],
        below: &dyn Fn(RelId) -> bool,
    ) -> Result<(Vec<Op>, Vec<bool>), DlError> {
        let mut lits = Vec::new();
        self.cx.normalize(body, &mut lits)?;
        for l in &lits {
            let rel = match l {
                NLit::Pos { rel, .. } | NLit::Neg { rel, .. } => *rel,
                NLit::Cmp(..) => continue,
            };
            if !below(rel) {
                return Err(DlError::at(
                    p.clone(),
                    format!(
                        "unstratifiable aggregate: `{}` is computed in the same recursion as the rule using its aggregate",
                        self.cx.rels[rel].name
                    ),
                ));
            }
        }
        let mut inner_bound = bound.to_vec();
        let ops = self.plan(&lits, None, &mut inner_bound, &[], below)?;
        Ok((ops, inner_bound))
    }

    /// Orders the literals into join operations. `delta`: index (among the positive
    /// atoms) of the atom read as the last round's news; `srcs`: the source of each
    /// positive atom.
    pub(super) fn plan(
        &mut self,
        lits: &[NLit],
        delta: Option<usize>,
        bound: &mut Vec<bool>,
        srcs: &[Src],
        below: &dyn Fn(RelId) -> bool,
    ) -> Result<Vec<Op>, DlError> {
        let mut atoms: Vec<(usize, &NLit)> = lits
            .iter()
            .filter(|l| matches!(l, NLit::Pos { .. }))
            .enumerate()
            .collect();
        let mut constraints: Vec<&NLit> = lits
            .iter()
            .filter(|l| !matches!(l, NLit::Pos { .. }))
            .collect();
        let mut ops = Vec::new();
        if let Some(d) = delta {
            let i = atoms.iter().position(|(k, _)| *k == d).expect("delta atom");
            let a = atoms.remove(i);
            atoms.insert(0, a);
        }
        let mut first = true;
        loop {
            // Place every constraint that can run now.
            loop {
                let mut placed = false;
                let mut k = 0;
                while k < constraints.len() {
                    if let Some(op) = self.try_place(constraints[k], bound, below)? {
                        ops.push(op);
                        constraints.remove(k);
                        placed = true;
                    } else {
                        k += 1;
                    }
                }
                if !placed {
                    break;
                }
            }
            if atoms.is_empty() {
                break;
            }
            let pick = if first {
                0
            } else {
                atoms
                    .iter()
                    .position(|(_, l)| {
                        let NLit::Pos { args, .. } = l else {
                            return false;
                        };
                        args.iter().any(|a| match a {
                            Arg::Const(_) => true,
                            Arg::Var(v) => Self::is_bound(bound, self.cx, v),
                            Arg::Wild => false,
                        })
                    })
                    .unwrap_or(0)
            };
            first = false;
            let (k, lit) = atoms.remove(pick);
            let NLit::Pos { rel, args, .. } = lit else {
                unreachable!()
            };
            let src = srcs.get(k).copied().unwrap_or(Src::Full);
            ops.push(self.atom_op(*rel, args, src, bound));
        }
        if let Some(c) = constraints.first() {
            let vars = match c {
                NLit::Neg { args, .. } => {
                    let mut v = Vec::new();
                    args.iter().flatten().for_each(|e| vars_of(e, &mut v));
                    v
                }
                NLit::Cmp(_, l, r, _) => {
                    let mut v = self.needs(l);
                    v.extend(self.needs(r));
                    v
                }
                NLit::Pos { .. } => vec![],
            };
            let pos = match c {
                NLit::Neg { pos, .. } | NLit::Cmp(_, _, _, pos) | NLit::Pos { pos, .. } => {
                    pos.clone()
                }
            };
            return Err(match ungrounded(&vars, bound, &self.cx.slots) {
                Some((v, p)) => DlError::at(
                    p,
                    format!("variable `{v}` is not bound by a positive atom (ungrounded)"),
                ),
                None => DlError::at(pos, "constraint cannot be evaluated (ungrounded)"),
            });
        }
        Ok(ops)
    }

    pub(super) fn atom_op(
        &mut self,
        rel: RelId,
        args: &[Arg],
        src: Src,
        bound: &mut Vec<bool>,
    ) -> Op {
        let mut key_cols = Vec::new();
        let mut key = Vec::new();
        let mut cols = Vec::new();
        for (i, a) in args.iter().enumerate() {
            match a {
                Arg::Const(c) => {
                    key_cols.push(i);
                    key.push(CExpr::Const(*c));
                    cols.push(Col::Ignore);
                }
                Arg::Var(v) if Self::is_bound(bound, self.cx, v) => {
                    key_cols.push(i);
                    key.push(CExpr::Slot(self.cx.slots[v]));
                    cols.push(Col::Ignore);
                }
                Arg::Var(v) => {
                    let s = self.cx.slots[v];
                    // A variable repeated in the same atom: bind at its first column, check
                    // at the others.
                    if cols.iter().any(|c| matches!(c, Col::Bind(t) if *t == s)) {
                        cols.push(Col::Check(s));
                    } else {
                        cols.push(Col::Bind(s));
                    }
                }
                Arg::Wild => cols.push(Col::Ignore),
            }
        }
        for c in &cols {
            if let Col::Bind(s) = c {
                self.ensure_bound_slot(bound, *s);
                bound[*s] = true;
            }
        }
        if key_cols.is_empty() || src == Src::Delta {
            // The news of a round are few: scan them (with the key as checks).
            let mut cols = cols;
            for (c, k) in key_cols.iter().zip(key) {
                cols[*c] = match k {
                    CExpr::Const(v) => Col::Const(v),
                    CExpr::Slot(s) => Col::Check(s),
                    _ => unreachable!(),
                };
            }
            return Op::Scan { rel, src, cols };
        }
        let index = self.index(rel, key_cols);
        Op::Lookup {
            rel,
            src,
            index,
            key,
            cols,
        }
    }

    pub(super) fn index(&mut self, rel: RelId, cols: Vec<usize>) -> usize {
        let idx = &mut self.cx.rels[rel].indexes;
        if let Some(i) = idx.iter().position(|c| *c == cols) {
            return i;
        }
        idx.push(cols);
        idx.len() - 1
    }

    pub(super) fn try_place(
        &mut self,
        lit: &NLit,
        bound: &mut Vec<bool>,
        below: &dyn Fn(RelId) -> bool,
    ) -> Result<Option<Op>, DlError> {
        match lit {
            NLit::Neg { rel, args, pos } => {
                let mut vars = Vec::new();
                args.iter().flatten().for_each(|e| vars_of(e, &mut vars));
                if ungrounded(&vars, bound, &self.cx.slots).is_some() {
                    return Ok(None);
                }
                for (i, a) in args.iter().enumerate() {
                    if let Some(e) = a {
                        let want = self.cx.rels[*rel].columns[i].1;
                        let got = self.expr_type(e)?;
                        if got != want {
                            return Err(DlError::at(
                                e.pos().clone(),
                                format!(
                                    "type mismatch: a {} where `{}` has a {} column",
                                    got.name(),
                                    self.cx.rels[*rel].name,
                                    want.name()
                                ),
                            ));
                        }
                    }
                }
                let _ = pos;
                let key: Vec<Option<CExpr>> = args
                    .iter()
                    .map(|a| {
                        a.as_ref()
                            .map(|e| self.compile_expr(e, bound, below))
                            .transpose()
                    })
                    .collect::<Result<_, _>>()?;
                let index = if key.iter().all(Option::is_some) {
                    None
                } else {
                    let cols: Vec<usize> = key
                        .iter()
                        .enumerate()
                        .filter(|(_, k)| k.is_some())
                        .map(|(i, _)| i)
                        .collect();
                    Some(self.index(*rel, cols))
                };
                Ok(Some(Op::Neg {
                    rel: *rel,
                    index,
                    key,
                }))
            }
            NLit::Cmp(op, l, r, pos) => {
                let mut lv = self.needs(l);
                let rv = self.needs(r);
                let l_ok = ungrounded(&lv, bound, &self.cx.slots).is_none();
                let r_ok = ungrounded(&rv, bound, &self.cx.slots).is_none();
                if *op == CmpOp::Eq {
                    // `x = e` with `x` unbound and `e` computable binds `x`.
                    for (var, other, ok) in [(l, r, r_ok), (r, l, l_ok)] {
                        if let Expr::Var(v, vp) = var {
                            if ok && !Self::is_bound(bound, self.cx, v) {
                                let t = self.expr_type(other)?;
                                self.cx.set_type(v, t, vp)?;
                                let e = self.compile_expr(other, bound, below)?;
                                let s = self.cx.slot(v);
                                self.ensure_bound_slot(bound, s);
                                bound[s] = true;
                                return Ok(Some(Op::Assign(s, e)));
                            }
                        }
                    }
                }
                if !(l_ok && r_ok) {
                    return Ok(None);
                }
                lv.extend(rv);
                let (lt, rt) = (self.expr_type(l)?, self.expr_type(r)?);
                if lt != rt {
                    return Err(DlError::at(
                        pos.clone(),
                        format!(
                            "type mismatch: comparing a {} with a {}",
                            lt.name(),
                            rt.name()
                        ),
                    ));
                }
                if op.is_order() && lt == Type::Symbol {
                    return Err(DlError::at(
                        pos.clone(),
                        "ordering comparison of symbols is not supported (only `=` and `!=`)",
                    ));
                }
                let a = self.compile_expr(l, bound, below)?;
                let b = self.compile_expr(r, bound, below)?;
                Ok(Some(Op::Filter(*op, a, b)))
            }
            NLit::Pos { .. } => Ok(None),
        }
    }
}

pub(super) fn contains_aggregate(e: &Expr) -> bool {
    match e {
        Expr::Count(..) | Expr::Aggregate(..) => true,
        Expr::Arith(_, a, b, _) => contains_aggregate(a) || contains_aggregate(b),
        Expr::Neg(a, _) | Expr::Ord(a, _) => contains_aggregate(a),
        _ => false,
    }
}
