//! From the AST to an evaluation plan: names and arities resolved, column types checked,
//! every variable grounded, negation and `count` stratified, each rule compiled to a
//! sequence of joins (one variant per recursive body atom for semi-naive evaluation).
//!
//! - [`plan`]: the compiled form `eval` runs;
//! - `normalize`: one rule's body resolved, typed, flattened and checked for grounding;
//! - `planner`: a normalized body ordered into joins;
//! - `strata`: stratification (Tarjan's SCCs).

mod normalize;
pub mod plan;
mod planner;
mod strata;

pub use plan::*;

use normalize::*;
use planner::*;
use strata::*;

use super::syntax::{Ast, Expr, Pos, Rule, Type};
use super::value::Symbols;
use super::DlError;
use std::collections::HashMap;

/// The input relations the program may read: name → column types.
pub trait Schema {
    fn input_columns(&self, name: &str) -> Option<Vec<(String, Type)>>;
    /// Every relation an `#include "schema.dl"` declares.
    fn schema_relations(&self) -> Vec<(String, Vec<(String, Type)>)>;
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
        compile_rule(
            rule,
            head,
            &mut rels,
            &by_name,
            &mut symbols,
            &comp_of,
            &mut strata[comp_of[head]],
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

/// Compiles one rule of relation `head` into `stratum`, the stratum of `head` (`comp_of`
/// gives each relation's stratum: the relations of lower strata are complete when it runs).
fn compile_rule(
    rule: &Rule,
    head: RelId,
    rels: &mut Vec<RelInfo>,
    by_name: &HashMap<String, RelId>,
    symbols: &mut Symbols,
    comp_of: &[usize],
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
    let below: &dyn Fn(RelId) -> bool = &|r| comp_of[r] < stratum_id;
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
