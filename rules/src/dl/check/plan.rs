//! The compiled form of a Datalog program, what `eval` runs: relations, strata, and per
//! rule a plan of joins, filters and the head's projection.

use super::super::syntax::{Agg, ArithOp, CmpOp, Pos, Type};
use super::super::value::Symbols;

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
