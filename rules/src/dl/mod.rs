//! User rules at run time: a Soufflé subset evaluated over agx's facts.
//!
//! A rules file declares relations (`.decl`), reads some (`.input`: the facts `agx facts`
//! writes, with the same schema, and the built-in relations of agx's rule sets, see
//! [`builtin::BUILTINS`]), derives others with rules, and marks what to print (`.output`).
//! The same file runs in Soufflé over the `agx facts` directory (built-in relations
//! written with `agx rules print REL FILE --format tsv`).
//!
//! Supported: rules with conjunction and disjunction (`;`, also in parentheses), negation
//! (stratified), `_`, number and string constants, arithmetic `+ - * / %` and unary `-`,
//! comparisons `= != < <= > >=` (ordering on numbers only), `x = expr` bindings, the
//! functor `ord(symbol)` (a number that orders symbols: agx atoms by kind, then id, so
//! statements in program order; Soufflé orders by its symbol table, so a rule that only
//! picks one orientation of a pair, `ord(a) < ord(b)`, picks the same pairs there, maybe
//! the other way round), the aggregates `count : { … }`, `min e : { … }`, `max e : { … }`
//! and `sum e : { … }` (stratified like negation; `min`/`max` of no match derive nothing,
//! `sum` of none is 0), facts in the file, `.type` aliases of `number`/`symbol`,
//! `#include "FILE"` (`#include "schema.dl"` declares every agx fact as an input).
//! Rejected with a position: other functors, `mean`, components, `float`, `eqrel`, other
//! preprocessor directives.
//!
//! Evaluation ([`eval`]) is semi-naive and stratified, with hash indexes chosen at compile
//! time per (relation, bound columns); see ARCHITECTURE.md for why this engine and how
//! it compares with the compiled ascent rule sets.

pub mod builtin;
mod check;
mod eval;
pub mod syntax;
pub mod value;

pub use check::{Compiled, RelInfo, Schema};
pub use eval::Db;
pub use syntax::{Pos, Type};
pub use value::Symbols;

use analysis::facts::{Facts, Field};
use std::path::Path;
use std::time::{Duration, Instant};
use thiserror::Error;

/// A rules file error, with its position.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("{file}:{line}:{col}: {message}")]
pub struct DlError {
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl DlError {
    pub fn at(pos: Pos, message: impl Into<String>) -> DlError {
        DlError {
            file: pos.file.display().to_string(),
            line: pos.line,
            col: pos.col,
            message: message.into(),
        }
    }
}

/// A parsed rules file.
#[derive(Clone, Debug)]
pub struct RulesFile {
    pub ast: syntax::Ast,
}

impl RulesFile {
    pub fn parse(text: &str, path: &Path) -> Result<RulesFile, DlError> {
        Ok(RulesFile {
            ast: syntax::parse(text, path)?,
        })
    }

    /// Reads and parses a rules file.
    pub fn read(path: &Path) -> Result<RulesFile, DlError> {
        let text = std::fs::read_to_string(path).map_err(|e| DlError {
            file: path.display().to_string(),
            line: 0,
            col: 0,
            message: format!("cannot read: {e}"),
        })?;
        RulesFile::parse(&text, path)
    }
}

/// The result of an evaluation.
pub struct Evaluation {
    pub program: Compiled,
    pub db: Db,
    /// Time to fill the input relations (including running built-in rule sets).
    pub load_time: Duration,
    /// Time of the rules themselves.
    pub eval_time: Duration,
}

impl Evaluation {
    /// The tuples of a relation, `None` if the program has no such relation.
    pub fn tuples(&self, name: &str) -> Option<Vec<Vec<i64>>> {
        let id = self.program.relation(name)?;
        Some(self.db.rels[id].tuples().map(<[i64]>::to_vec).collect())
    }

    /// The relations marked `.output`.
    pub fn outputs(&self) -> Vec<&str> {
        self.program
            .relations
            .iter()
            .filter(|r| r.output)
            .map(|r| r.name.as_str())
            .collect()
    }

    pub fn columns(&self, name: &str) -> Option<&[(String, Type)]> {
        let id = self.program.relation(name)?;
        Some(&self.program.relations[id].columns)
    }

    pub fn symbols(&self) -> &Symbols {
        &self.program.symbols
    }
}

/// An input relation a caller adds: name, columns, flat tuples.
type ExtraInput = (String, Vec<(String, Type)>, Vec<i64>);

/// Where input relations come from: agx's facts, then the built-in relations (rule sets
/// run on demand, once), then relations a caller adds.
pub struct Inputs<'a> {
    pub facts: &'a Facts,
    analysis: std::cell::OnceCell<crate::Analysis>,
    extra: Vec<ExtraInput>,
}

impl<'a> Inputs<'a> {
    pub fn new(facts: &'a Facts) -> Inputs<'a> {
        Inputs {
            facts,
            analysis: std::cell::OnceCell::new(),
            extra: Vec::new(),
        }
    }

    /// Uses results already computed instead of running the rule sets again.
    pub fn with_analysis(facts: &'a Facts, analysis: crate::Analysis) -> Inputs<'a> {
        let cell = std::cell::OnceCell::new();
        let _ = cell.set(analysis);
        Inputs {
            facts,
            analysis: cell,
            extra: Vec::new(),
        }
    }

    /// Adds (or replaces) an input relation: `flat` holds `columns.len()` values per tuple.
    pub fn add(&mut self, name: &str, columns: Vec<(String, Type)>, flat: Vec<i64>) {
        self.extra.retain(|e| e.0 != name);
        self.extra.push((name.to_string(), columns, flat));
    }

    pub fn analysis(&self) -> &crate::Analysis {
        self.analysis
            .get_or_init(|| crate::Analysis::run(self.facts))
    }

    fn load(&self, name: &str, symbols: &mut Symbols, out: &mut Vec<i64>) {
        if let Some((_, _, flat)) = self.extra.iter().find(|e| e.0 == name) {
            out.extend_from_slice(flat);
            return;
        }
        let mut fields = Vec::new();
        if self.facts.relation_fields(name, &mut fields).is_some() {
            out.extend(fields.into_iter().map(value::field));
            return;
        }
        if let Some(b) = builtin::find(name) {
            (b.rows)(self.facts, self.analysis(), symbols, out);
        }
    }
}

fn fact_columns(name: &str) -> Option<Vec<(String, Type)>> {
    let rel = Facts::RELATIONS.iter().find(|r| r.name == name)?;
    Some(
        rel.columns
            .iter()
            .map(|&(c, t)| {
                (
                    c.to_string(),
                    if t == "number" {
                        Type::Number
                    } else {
                        Type::Symbol
                    },
                )
            })
            .collect(),
    )
}

impl Schema for Inputs<'_> {
    fn input_columns(&self, name: &str) -> Option<Vec<(String, Type)>> {
        if let Some(e) = self.extra.iter().find(|e| e.0 == name) {
            return Some(e.1.clone());
        }
        fact_columns(name).or_else(|| builtin::find(name).map(|b| b.column_types()))
    }

    fn schema_relations(&self) -> Vec<(String, Vec<(String, Type)>)> {
        Facts::RELATIONS
            .iter()
            .filter_map(|r| Some((r.name.to_string(), fact_columns(r.name)?)))
            .collect()
    }
}

/// Checks a rules file against the inputs and evaluates it.
pub fn evaluate(file: &RulesFile, inputs: &Inputs<'_>) -> Result<Evaluation, DlError> {
    let symbols = Symbols::new(inputs.facts.names.clone());
    let mut program = check::compile(&file.ast, inputs, symbols)?;
    let start = Instant::now();
    let mut db = Db::new(&program);
    let mut flat = Vec::new();
    for (id, rel) in program.relations.iter().enumerate() {
        if rel.input {
            flat.clear();
            inputs.load(&rel.name, &mut program.symbols, &mut flat);
            db.add(id, &flat);
        }
    }
    let load_time = start.elapsed();
    let start = Instant::now();
    db.evaluate(&program);
    Ok(Evaluation {
        program,
        db,
        load_time,
        eval_time: start.elapsed(),
    })
}

/// Turns the fields of facts into values (for callers that build extra inputs).
pub fn values(fields: &[Field]) -> Vec<i64> {
    fields.iter().copied().map(value::field).collect()
}

#[cfg(test)]
mod tests;

/// The rule sets shipped as `.dl` (`rules/dl/`): `(rule set, file name, text)`. Each
/// reads the same inputs as its ascent program and derives the same relations.
pub const SHIPPED: &[(&str, &str, &str)] = &[
    (
        "points-to",
        "points_to.dl",
        include_str!("../../dl/points_to.dl"),
    ),
    (
        "points-to-fi",
        "points_to_fi.dl",
        include_str!("../../dl/points_to_fi.dl"),
    ),
    (
        "call-graph",
        "call_graph.dl",
        include_str!("../../dl/call_graph.dl"),
    ),
    (
        "control-dep",
        "control_dep.dl",
        include_str!("../../dl/control_dep.dl"),
    ),
    (
        "data-dep",
        "data_dep.dl",
        include_str!("../../dl/data_dep.dl"),
    ),
    (
        "happens-before",
        "happens_before.dl",
        include_str!("../../dl/happens_before.dl"),
    ),
    (
        "dependence",
        "dependence.dl",
        include_str!("../../dl/dependence.dl"),
    ),
    ("locks", "locks.dl", include_str!("../../dl/locks.dl")),
    ("slice", "slice.dl", include_str!("../../dl/slice.dl")),
    (
        "abstract-system",
        "abstract_system.dl",
        include_str!("../../dl/abstract_system.dl"),
    ),
    ("races", "races.dl", include_str!("../../dl/races.dl")),
    (
        "lock-order",
        "lock_order.dl",
        include_str!("../../dl/lock_order.dl"),
    ),
    (
        "must-reach",
        "must_reach.dl",
        include_str!("../../dl/must_reach.dl"),
    ),
];

/// The parts the shipped rule sets `#include` (`rules/dl/lib/`): `(path under rules/dl,
/// text)`.
pub const SHIPPED_LIBRARY: &[(&str, &str)] = &[("lib/mhp.dl", include_str!("../../dl/lib/mhp.dl"))];

/// Parses a shipped rule set (its includes from [`SHIPPED_LIBRARY`], not from disk).
pub fn shipped(rule_set: &str) -> Option<RulesFile> {
    let (_, file, text) = SHIPPED.iter().find(|s| s.0 == rule_set)?;
    let dir = Path::new("rules/dl");
    let load = |p: &Path| {
        SHIPPED_LIBRARY
            .iter()
            .find(|(name, _)| dir.join(name) == p)
            .map(|(_, text)| text.to_string())
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
    };
    let ast = syntax::parse_with(text, &dir.join(file), &load).expect("shipped rules parse");
    Some(RulesFile { ast })
}
