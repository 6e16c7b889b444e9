//! From the AST to an evaluation plan: names and arities resolved, column types checked,
//! every variable grounded, negation and `count` stratified, each rule compiled to a
//! sequence of joins (one variant per recursive body atom for semi-naive evaluation).

use super::syntax::{Agg, ArithOp, Ast, Atom, CmpOp, Expr, Literal, Pos, Rule, Type};
use super::value::Symbols;
use super::DlError;
use std::collections::HashMap;

pub type RelId = usize;

/// A relation of the program.
#[derive(Clone, Debug)]
pub struct RelInfo {
    pub name: String,
    pub columns: Vec<(String, Type)>,
    pub input: bool,
    pub output: bool,
    pub pos: Pos,
    /// Column sets the plans look tuples up by.
    pub indexes: Vec<Vec<usize>>,
}

/// What a plan reads of a relation in one semi-naive round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    /// Every tuple.
    Full,
    /// The tuples new in the last round.
    Delta,
    /// The tuples known before the last round.
    Old,
}

/// How a body atom's column meets the bindings.
#[derive(Clone, Debug)]
pub enum Col {
    Ignore,
    Const(i64),
    Check(usize),
    Bind(usize),
}

#[derive(Clone, Debug)]
pub enum CExpr {
    Const(i64),
    Slot(usize),
    Arith(ArithOp, Box<CExpr>, Box<CExpr>),
    Neg(Box<CExpr>),
    Count(Vec<Op>),
    /// `agg target : { ops }`: `None` (no value) for `min`/`max` of no match.
    Aggregate(Agg, Box<CExpr>, Vec<Op>),
}

#[derive(Clone, Debug)]
pub enum Op {
    /// Every tuple of `rel` (in `src`), matched column by column.
    Scan {
        rel: RelId,
        src: Src,
        cols: Vec<Col>,
    },
    /// The tuples of `rel` whose `index` columns equal `key`.
    Lookup {
        rel: RelId,
        src: Src,
        index: usize,
        key: Vec<CExpr>,
        cols: Vec<Col>,
    },
    Filter(CmpOp, CExpr, CExpr),
    Assign(usize, CExpr),
    /// No tuple of `rel` has these values (`None`: any value) in its columns.
    Neg {
        rel: RelId,
        index: Option<usize>,
        key: Vec<Option<CExpr>>,
    },
}

/// One compiled rule (variant).
#[derive(Clone, Debug)]
pub struct Plan {
    pub head: RelId,
    pub head_args: Vec<CExpr>,
    pub ops: Vec<Op>,
    pub slots: usize,
}

#[derive(Clone, Debug, Default)]
pub struct Stratum {
    pub rels: Vec<RelId>,
    /// Rules with no body atom of this stratum: run once.
    pub base: Vec<Plan>,
    /// Semi-naive variants of the recursive rules: run until nothing is new.
    pub recursive: Vec<Plan>,
}

/// A checked program ready to run.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub relations: Vec<RelInfo>,
    pub strata: Vec<Stratum>,
    pub symbols: Symbols,
    /// Suspicious but legal things (a declared relation that is never filled).
    pub warnings: Vec<String>,
}

impl Compiled {
    pub fn relation(&self, name: &str) -> Option<RelId> {
        self.relations.iter().position(|r| r.name == name)
    }
}

/// The input relations the program may read: name → column types.
pub trait Schema {
    fn input_columns(&self, name: &str) -> Option<Vec<(String, Type)>>;
    /// Every relation an `#include "schema.dl"` declares.
    fn schema_relations(&self) -> Vec<(String, Vec<(String, Type)>)>;
}

struct RuleCx<'a> {
    rels: &'a mut Vec<RelInfo>,
    by_name: &'a HashMap<String, RelId>,
    symbols: &'a mut Symbols,
    slots: HashMap<String, usize>,
    types: Vec<Option<(Type, Pos)>>,
    fresh: usize,
}

/// A body literal after normalization (expressions in atoms moved to constraints).
#[derive(Clone, Debug)]
enum NLit {
    Pos {
        rel: RelId,
        args: Vec<Arg>,
        pos: Pos,
    },
    Neg {
        rel: RelId,
        args: Vec<Option<Expr>>,
        pos: Pos,
    },
    Cmp(CmpOp, Expr, Expr, Pos),
}

#[derive(Clone, Debug)]
enum Arg {
    Var(String),
    Const(i64),
    Wild,
}

fn resolve(
    by_name: &HashMap<String, RelId>,
    rels: &[RelInfo],
    atom: &Atom,
) -> Result<RelId, DlError> {
    let Some(&id) = by_name.get(&atom.name) else {
        return Err(DlError::at(
            atom.pos.clone(),
            format!("unknown relation `{}` (not declared with .decl)", atom.name),
        ));
    };
    let arity = rels[id].columns.len();
    if atom.args.len() != arity {
        return Err(DlError::at(
            atom.pos.clone(),
            format!(
                "arity mismatch: `{}` has {} column{} (declared at {}), used with {}",
                atom.name,
                arity,
                if arity == 1 { "" } else { "s" },
                rels[id].pos,
                atom.args.len()
            ),
        ));
    }
    Ok(id)
}

impl RuleCx<'_> {
    fn slot(&mut self, name: &str) -> usize {
        if let Some(&s) = self.slots.get(name) {
            return s;
        }
        let s = self.slots.len();
        self.slots.insert(name.to_string(), s);
        self.types.push(None);
        s
    }

    fn fresh_var(&mut self) -> String {
        self.fresh += 1;
        format!(" t{}", self.fresh)
    }

    fn set_type(&mut self, name: &str, t: Type, pos: &Pos) -> Result<(), DlError> {
        let s = self.slot(name);
        match &self.types[s] {
            None => {
                self.types[s] = Some((t, pos.clone()));
                Ok(())
            }
            Some((old, _)) if *old == t => Ok(()),
            Some((old, at)) => Err(DlError::at(
                pos.clone(),
                format!(
                    "type mismatch: variable `{name}` is a {} here but a {} at {at}",
                    t.name(),
                    old.name()
                ),
            )),
        }
    }

    fn normalize(&mut self, body: &[Literal], out: &mut Vec<NLit>) -> Result<(), DlError> {
        for lit in body {
            match lit {
                Literal::Pos(atom) => {
                    let rel = resolve(self.by_name, self.rels, atom)?;
                    let mut args = Vec::new();
                    let mut extra = Vec::new();
                    for (i, a) in atom.args.iter().enumerate() {
                        let t = self.rels[rel].columns[i].1;
                        let arg = match a {
                            Expr::Var(v, p) => {
                                self.set_type(v, t, p)?;
                                Arg::Var(v.clone())
                            }
                            Expr::Wild(_) => Arg::Wild,
                            Expr::Num(..) | Expr::Str(..) => {
                                self.check_type(a, t)?;
                                Arg::Const(self.constant(a)?)
                            }
                            other => {
                                let v = self.fresh_var();
                                self.set_type(&v, t, other.pos())?;
                                extra.push(NLit::Cmp(
                                    CmpOp::Eq,
                                    Expr::Var(v.clone(), other.pos().clone()),
                                    other.clone(),
                                    other.pos().clone(),
                                ));
                                Arg::Var(v)
                            }
                        };
                        args.push(arg);
                    }
                    out.push(NLit::Pos {
                        rel,
                        args,
                        pos: atom.pos.clone(),
                    });
                    out.extend(extra);
                }
                Literal::Neg(atom) => {
                    let rel = resolve(self.by_name, self.rels, atom)?;
                    let args = atom
                        .args
                        .iter()
                        .map(|a| match a {
                            Expr::Wild(_) => None,
                            other => Some(other.clone()),
                        })
                        .collect();
                    out.push(NLit::Neg {
                        rel,
                        args,
                        pos: atom.pos.clone(),
                    });
                }
                Literal::Cmp(op, l, r, p) => {
                    out.push(NLit::Cmp(*op, l.clone(), r.clone(), p.clone()))
                }
            }
        }
        Ok(())
    }

    fn constant(&mut self, e: &Expr) -> Result<i64, DlError> {
        match e {
            Expr::Num(n, _) => Ok(*n),
            Expr::Str(s, _) => Ok(self.symbols.intern_literal(s)),
            other => Err(DlError::at(other.pos().clone(), "expected a constant")),
        }
    }

    /// The type of an expression, where it can be told without the variables' types.
    fn check_type(&self, e: &Expr, want: Type) -> Result<(), DlError> {
        let got = match e {
            Expr::Num(..)
            | Expr::Arith(..)
            | Expr::Neg(..)
            | Expr::Ord(..)
            | Expr::Count(..)
            | Expr::Aggregate(..) => Type::Number,
            Expr::Str(..) => Type::Symbol,
            _ => return Ok(()),
        };
        if got != want {
            return Err(DlError::at(
                e.pos().clone(),
                format!(
                    "type mismatch: a {} where a {} is expected",
                    got.name(),
                    want.name()
                ),
            ));
        }
        Ok(())
    }
}

fn vars_of(e: &Expr, out: &mut Vec<(String, Pos)>) {
    match e {
        Expr::Var(v, p) => out.push((v.clone(), p.clone())),
        Expr::Arith(_, a, b, _) => {
            vars_of(a, out);
            vars_of(b, out);
        }
        Expr::Neg(a, _) | Expr::Ord(a, _) => vars_of(a, out),
        Expr::Count(body, _) | Expr::Aggregate(_, _, body, _) => {
            if let Expr::Aggregate(_, target, _, _) = e {
                vars_of(target, out);
            }
            for lit in body {
                match lit {
                    Literal::Pos(a) | Literal::Neg(a) => {
                        a.args.iter().for_each(|x| vars_of(x, out))
                    }
                    Literal::Cmp(_, l, r, _) => {
                        vars_of(l, out);
                        vars_of(r, out);
                    }
                }
            }
        }
        Expr::Wild(_) | Expr::Num(..) | Expr::Str(..) => {}
    }
}

/// The variables of `e` outside the bodies and targets of its aggregates.
fn vars_outside_aggregates(e: &Expr, out: &mut Vec<(String, Pos)>) {
    match e {
        Expr::Count(..) | Expr::Aggregate(..) => {}
        Expr::Arith(_, a, b, _) => {
            vars_outside_aggregates(a, out);
            vars_outside_aggregates(b, out);
        }
        Expr::Neg(a, _) | Expr::Ord(a, _) => vars_outside_aggregates(a, out),
        other => vars_of(other, out),
    }
}

/// Names the first variable of `vars` that is not bound.
fn ungrounded(
    vars: &[(String, Pos)],
    bound: &[bool],
    slots: &HashMap<String, usize>,
) -> Option<(String, Pos)> {
    vars.iter()
        .find(|(v, _)| {
            slots
                .get(v)
                .is_none_or(|&s| !bound.get(s).copied().unwrap_or(false))
        })
        .cloned()
}

struct Planner<'a, 'b> {
    cx: &'a mut RuleCx<'b>,
    /// Every variable outside each `count` (to tell correlated from local ones).
    outer_vars: Vec<String>,
}

impl Planner<'_, '_> {
    fn ensure_bound_slot(&mut self, bound: &mut Vec<bool>, s: usize) {
        if bound.len() <= s {
            bound.resize(s + 1, false);
        }
    }

    fn is_bound(bound: &[bool], cx: &RuleCx, v: &str) -> bool {
        cx.slots
            .get(v)
            .is_some_and(|&s| bound.get(s).copied().unwrap_or(false))
    }

    /// Variables an expression needs bound before it can be computed (for a `count`:
    /// its variables that also occur outside it).
    fn needs(&self, e: &Expr) -> Vec<(String, Pos)> {
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

    fn expr_type(&self, e: &Expr) -> Result<Type, DlError> {
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

    fn compile_expr(
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
    fn aggregate_body(
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
    fn plan(
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

    fn atom_op(&mut self, rel: RelId, args: &[Arg], src: Src, bound: &mut Vec<bool>) -> Op {
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

    fn index(&mut self, rel: RelId, cols: Vec<usize>) -> usize {
        let idx = &mut self.cx.rels[rel].indexes;
        if let Some(i) = idx.iter().position(|c| *c == cols) {
            return i;
        }
        idx.push(cols);
        idx.len() - 1
    }

    fn try_place(
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

fn contains_aggregate(e: &Expr) -> bool {
    match e {
        Expr::Count(..) | Expr::Aggregate(..) => true,
        Expr::Arith(_, a, b, _) => contains_aggregate(a) || contains_aggregate(b),
        Expr::Neg(a, _) | Expr::Ord(a, _) => contains_aggregate(a),
        _ => false,
    }
}

fn relations_in(lits: &[Literal], out: &mut Vec<(String, bool, Pos)>, negated: bool) {
    fn in_expr(e: &Expr, out: &mut Vec<(String, bool, Pos)>) {
        match e {
            Expr::Count(body, _) | Expr::Aggregate(_, _, body, _) => relations_in(body, out, true),
            Expr::Arith(_, a, b, _) => {
                in_expr(a, out);
                in_expr(b, out);
            }
            Expr::Neg(a, _) | Expr::Ord(a, _) => in_expr(a, out),
            _ => {}
        }
    }
    for l in lits {
        match l {
            Literal::Pos(a) => {
                out.push((a.name.clone(), negated, a.pos.clone()));
                a.args.iter().for_each(|e| in_expr(e, out));
            }
            Literal::Neg(a) => {
                out.push((a.name.clone(), true, a.pos.clone()));
                a.args.iter().for_each(|e| in_expr(e, out));
            }
            Literal::Cmp(_, l, r, _) => {
                in_expr(l, out);
                in_expr(r, out);
            }
        }
    }
}

/// Tarjan's strongly connected components; dependencies come first.
fn sccs(n: usize, edges: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct T<'a> {
        edges: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(t: &mut T, v: usize) {
        t.index[v] = Some(t.next);
        t.low[v] = t.next;
        t.next += 1;
        t.stack.push(v);
        t.on[v] = true;
        for &w in &t.edges[v] {
            match t.index[w] {
                None => {
                    visit(t, w);
                    t.low[v] = t.low[v].min(t.low[w]);
                }
                Some(i) if t.on[w] => t.low[v] = t.low[v].min(i),
                _ => {}
            }
        }
        if Some(t.low[v]) == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            comp.sort();
            t.out.push(comp);
        }
    }
    let mut t = T {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if t.index[v].is_none() {
            visit(&mut t, v);
        }
    }
    t.out
}

/// A path `from → … → to` in the dependency graph (for the stratification error).
fn path(edges: &[Vec<usize>], from: usize, to: usize) -> Vec<usize> {
    let mut prev = vec![usize::MAX; edges.len()];
    let mut queue = std::collections::VecDeque::from([from]);
    prev[from] = from;
    while let Some(v) = queue.pop_front() {
        if v == to {
            break;
        }
        for &w in &edges[v] {
            if prev[w] == usize::MAX {
                prev[w] = v;
                queue.push_back(w);
            }
        }
    }
    let mut out = vec![to];
    let mut v = to;
    while v != from && prev[v] != usize::MAX {
        v = prev[v];
        out.push(v);
    }
    out.reverse();
    out
}

/// Checks and compiles a parsed program against the available input relations.
pub fn compile(ast: &Ast, schema: &dyn Schema, mut symbols: Symbols) -> Result<Compiled, DlError> {
    let mut rels: Vec<RelInfo> = Vec::new();
    let mut by_name: HashMap<String, RelId> = HashMap::new();
    let mut warnings = Vec::new();
    for d in &ast.decls {
        if let Some(&old) = by_name.get(&d.name) {
            return Err(DlError::at(
                d.pos.clone(),
                format!(
                    "relation `{}` declared twice (first at {})",
                    d.name, rels[old].pos
                ),
            ));
        }
        by_name.insert(d.name.clone(), rels.len());
        rels.push(RelInfo {
            name: d.name.clone(),
            columns: d.columns.clone(),
            input: false,
            output: false,
            pos: d.pos.clone(),
            indexes: Vec::new(),
        });
    }
    if ast.includes_schema {
        let file = std::sync::Arc::new(std::path::PathBuf::from("schema.dl"));
        for (name, columns) in schema.schema_relations() {
            if by_name.contains_key(&name) {
                continue;
            }
            by_name.insert(name.clone(), rels.len());
            rels.push(RelInfo {
                name,
                columns,
                input: true,
                output: false,
                pos: Pos {
                    file: file.clone(),
                    line: 1,
                    col: 1,
                },
                indexes: Vec::new(),
            });
        }
    }
    for (name, pos) in &ast.inputs {
        let Some(&id) = by_name.get(name) else {
            return Err(DlError::at(
                pos.clone(),
                format!("unknown relation `{name}` (not declared with .decl)"),
            ));
        };
        let Some(columns) = schema.input_columns(name) else {
            return Err(DlError::at(
                pos.clone(),
                format!("`.input {name}`: agx has no input relation `{name}` (the facts of `agx facts`, see its schema.dl, and the built-in relations of `agx rules list --relations`)"),
            ));
        };
        let declared = &rels[id].columns;
        if declared.len() != columns.len() {
            return Err(DlError::at(
                rels[id].pos.clone(),
                format!(
                    "arity mismatch: input relation `{name}` has {} columns in agx's schema, declared with {}",
                    columns.len(),
                    declared.len()
                ),
            ));
        }
        for (i, ((dn, dt), (sn, st))) in declared.iter().zip(&columns).enumerate() {
            if dt != st {
                return Err(DlError::at(
                    rels[id].pos.clone(),
                    format!(
                        "type mismatch: column {} (`{dn}`) of input relation `{name}` is a {} in agx's schema (`{sn}`), declared {}",
                        i + 1,
                        st.name(),
                        dt.name()
                    ),
                ));
            }
        }
        rels[id].input = true;
    }
    for (name, pos) in &ast.outputs {
        let Some(&id) = by_name.get(name) else {
            return Err(DlError::at(
                pos.clone(),
                format!("unknown relation `{name}` (not declared with .decl)"),
            ));
        };
        rels[id].output = true;
    }

    // Dependency graph: head → body relation.
    let n = rels.len();
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut negs: Vec<(usize, usize, Pos)> = Vec::new();
    let mut heads: Vec<RelId> = Vec::new();
    for rule in &ast.rules {
        let head = resolve(&by_name, &rels, &rule.head)?;
        heads.push(head);
        let mut used = Vec::new();
        relations_in(&rule.body, &mut used, false);
        for (name, negated, pos) in used {
            let Some(&b) = by_name.get(&name) else {
                return Err(DlError::at(
                    pos,
                    format!("unknown relation `{name}` (not declared with .decl)"),
                ));
            };
            if !edges[head].contains(&b) {
                edges[head].push(b);
            }
            if negated {
                negs.push((head, b, pos));
            }
        }
    }
    let comps = sccs(n, &edges);
    let mut comp_of = vec![0; n];
    for (i, c) in comps.iter().enumerate() {
        for &r in c {
            comp_of[r] = i;
        }
    }
    for (head, body, pos) in &negs {
        if comp_of[*head] == comp_of[*body] {
            let cycle: Vec<&str> = path(&edges, *body, *head)
                .iter()
                .map(|&r| rels[r].name.as_str())
                .collect();
            return Err(DlError::at(
                pos.clone(),
                format!(
                    "unstratifiable negation: `{}` depends on `!{}` (or an aggregate over it), but `{}` depends on `{}` (cycle {} → {})",
                    rels[*head].name,
                    rels[*body].name,
                    rels[*body].name,
                    rels[*head].name,
                    rels[*head].name,
                    cycle.join(" → ")
                ),
            ));
        }
    }

    let mut strata: Vec<Stratum> = comps
        .iter()
        .map(|c| Stratum {
            rels: c.clone(),
            ..Stratum::default()
        })
        .collect();
    for (rule, &head) in ast.rules.iter().zip(&heads) {
        let stratum = comp_of[head];
        let below = |r: RelId| comp_of[r] < stratum;
        compile_rule(
            rule,
            head,
            &mut rels,
            &by_name,
            &mut symbols,
            &comp_of,
            &below,
            &mut strata[stratum],
        )?;
    }
    let filled: Vec<bool> = (0..n)
        .map(|r| rels[r].input || heads.contains(&r))
        .collect();
    for (r, info) in rels.iter().enumerate() {
        let used = edges.iter().any(|e| e.contains(&r)) || info.output;
        if used && !filled[r] {
            warnings.push(format!(
                "{}: relation `{}` has no rules and is not an `.input`: it is empty",
                info.pos, info.name
            ));
        }
    }
    Ok(Compiled {
        relations: rels,
        strata,
        symbols,
        warnings,
    })
}

#[allow(clippy::too_many_arguments)]
fn compile_rule(
    rule: &Rule,
    head: RelId,
    rels: &mut Vec<RelInfo>,
    by_name: &HashMap<String, RelId>,
    symbols: &mut Symbols,
    comp_of: &[usize],
    below: &dyn Fn(RelId) -> bool,
    stratum: &mut Stratum,
) -> Result<(), DlError> {
    let mut cx = RuleCx {
        rels,
        by_name,
        symbols,
        slots: HashMap::new(),
        types: Vec::new(),
        fresh: 0,
    };
    let mut lits = Vec::new();
    cx.normalize(&rule.body, &mut lits)?;
    let mut outer_vars = Vec::new();
    for l in &lits {
        match l {
            NLit::Pos { args, .. } => outer_vars.extend(args.iter().filter_map(|a| match a {
                Arg::Var(v) => Some(v.clone()),
                _ => None,
            })),
            NLit::Neg { args, .. } => {
                let mut v = Vec::new();
                args.iter().flatten().for_each(|e| vars_of(e, &mut v));
                outer_vars.extend(v.into_iter().map(|x| x.0));
            }
            NLit::Cmp(_, l, r, _) => {
                for e in [l, r] {
                    let mut v = Vec::new();
                    vars_outside_aggregates(e, &mut v);
                    outer_vars.extend(v.into_iter().map(|x| x.0));
                }
            }
        }
    }
    for a in &rule.head.args {
        let mut v = Vec::new();
        vars_of(a, &mut v);
        outer_vars.extend(v.into_iter().map(|x| x.0));
    }
    let stratum_id = comp_of[head];
    let recursive: Vec<usize> = lits
        .iter()
        .filter(|l| matches!(l, NLit::Pos { .. }))
        .enumerate()
        .filter(|(_, l)| matches!(l, NLit::Pos { rel, .. } if comp_of[*rel] == stratum_id))
        .map(|(i, _)| i)
        .collect();
    let atoms = lits
        .iter()
        .filter(|l| matches!(l, NLit::Pos { .. }))
        .count();
    let variants: Vec<(Option<usize>, Vec<Src>)> = if recursive.is_empty() {
        vec![(None, vec![Src::Full; atoms])]
    } else {
        recursive
            .iter()
            .enumerate()
            .map(|(j, &d)| {
                let mut srcs = vec![Src::Full; atoms];
                for (k, &r) in recursive.iter().enumerate() {
                    srcs[r] = match k.cmp(&j) {
                        std::cmp::Ordering::Less => Src::Old,
                        std::cmp::Ordering::Equal => Src::Delta,
                        std::cmp::Ordering::Greater => Src::Full,
                    };
                }
                (Some(d), srcs)
            })
            .collect()
    };
    for (delta, srcs) in variants {
        let mut planner = Planner {
            cx: &mut cx,
            outer_vars: outer_vars.clone(),
        };
        let mut bound = Vec::new();
        let ops = planner.plan(&lits, delta, &mut bound, &srcs, below)?;
        let mut head_args = Vec::new();
        for (i, a) in rule.head.args.iter().enumerate() {
            let want = planner.cx.rels[head].columns[i].1;
            if let Expr::Wild(p) = a {
                return Err(DlError::at(p.clone(), "`_` in a rule head"));
            }
            if contains_aggregate(a) {
                return Err(DlError::at(
                    a.pos().clone(),
                    "an aggregate in a rule head: bind it in the body (`n = count : {...}`)",
                ));
            }
            let got = planner.expr_type(a).map_err(|e| match a {
                Expr::Var(v, p) => DlError::at(
                    p.clone(),
                    format!("variable `{v}` is not bound by a positive atom (ungrounded)"),
                ),
                _ => e,
            })?;
            if got != want {
                return Err(DlError::at(
                    a.pos().clone(),
                    format!(
                        "type mismatch: a {} in column {} of `{}`, declared {}",
                        got.name(),
                        i + 1,
                        planner.cx.rels[head].name,
                        want.name()
                    ),
                ));
            }
            head_args.push(planner.compile_expr(a, &mut bound, below)?);
        }
        let plan = Plan {
            head,
            head_args,
            ops,
            slots: planner.cx.slots.len(),
        };
        if delta.is_some() {
            stratum.recursive.push(plan);
        } else {
            stratum.base.push(plan);
        }
    }
    Ok(())
}
