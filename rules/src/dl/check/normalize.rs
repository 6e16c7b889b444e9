//! One rule's body in normal form: names resolved to relations, arities and column types
//! checked, nested expressions flattened to literals over variables, and the grounding
//! of every variable checked.

use super::super::syntax::{Atom, CmpOp, Expr, Literal, Pos, Type};
use super::super::value::Symbols;
use super::super::DlError;
use super::plan::*;
use std::collections::HashMap;

pub(super) struct RuleCx<'a> {
    pub(super) rels: &'a mut Vec<RelInfo>,
    pub(super) by_name: &'a HashMap<String, RelId>,
    pub(super) symbols: &'a mut Symbols,
    pub(super) slots: HashMap<String, usize>,
    pub(super) types: Vec<Option<(Type, Pos)>>,
    pub(super) fresh: usize,
}

/// A body literal after normalization (expressions in atoms moved to constraints).
#[derive(Clone, Debug)]
pub(super) enum NLit {
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
pub(super) enum Arg {
    Var(String),
    Const(i64),
    Wild,
}

pub(super) fn resolve(
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
    pub(super) fn slot(&mut self, name: &str) -> usize {
        if let Some(&s) = self.slots.get(name) {
            return s;
        }
        let s = self.slots.len();
        self.slots.insert(name.to_string(), s);
        self.types.push(None);
        s
    }

    pub(super) fn fresh_var(&mut self) -> String {
        self.fresh += 1;
        format!(" t{}", self.fresh)
    }

    pub(super) fn set_type(&mut self, name: &str, t: Type, pos: &Pos) -> Result<(), DlError> {
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

    pub(super) fn normalize(
        &mut self,
        body: &[Literal],
        out: &mut Vec<NLit>,
    ) -> Result<(), DlError> {
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

    pub(super) fn constant(&mut self, e: &Expr) -> Result<i64, DlError> {
        match e {
            Expr::Num(n, _) => Ok(*n),
            Expr::Str(s, _) => Ok(self.symbols.intern_literal(s)),
            other => Err(DlError::at(other.pos().clone(), "expected a constant")),
        }
    }

    /// The type of an expression, where it can be told without the variables' types.
    pub(super) fn check_type(&self, e: &Expr, want: Type) -> Result<(), DlError> {
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

pub(super) fn vars_of(e: &Expr, out: &mut Vec<(String, Pos)>) {
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
pub(super) fn vars_outside_aggregates(e: &Expr, out: &mut Vec<(String, Pos)>) {
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
pub(super) fn ungrounded(
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
