//! The AST of a rules file: declarations, rules, literals and expressions, with the
//! position of each in its file.

use std::path::PathBuf;

/// A position in a rules file (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pos {
    pub file: std::sync::Arc<PathBuf>,
    pub line: u32,
    pub col: u32,
}

impl std::fmt::Display for Pos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.col)
    }
}

/// A column type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    Number,
    Symbol,
}

impl Type {
    pub fn name(self) -> &'static str {
        match self {
            Type::Number => "number",
            Type::Symbol => "symbol",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Decl {
    pub name: String,
    pub columns: Vec<(String, Type)>,
    pub pos: Pos,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub fn is_order(self) -> bool {
        !matches!(self, CmpOp::Eq | CmpOp::Ne)
    }
}

#[derive(Clone, Debug)]
pub enum Expr {
    Var(String, Pos),
    Wild(Pos),
    Num(i64, Pos),
    Str(String, Pos),
    Arith(ArithOp, Box<Expr>, Box<Expr>, Pos),
    Neg(Box<Expr>, Pos),
    /// `ord(e)`: a symbol's ordinal, a number (see [`super::value`]).
    Ord(Box<Expr>, Pos),
    Count(Vec<Literal>, Pos),
    /// `min e : { body }` (and `max`, `sum`): `e` over the body's matches.
    Aggregate(Agg, Box<Expr>, Vec<Literal>, Pos),
}

/// An aggregate over the values of an expression (`count` is [`Expr::Count`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agg {
    Min,
    Max,
    Sum,
}

impl Agg {
    pub fn name(self) -> &'static str {
        match self {
            Agg::Min => "min",
            Agg::Max => "max",
            Agg::Sum => "sum",
        }
    }
}

impl Expr {
    pub fn pos(&self) -> &Pos {
        match self {
            Expr::Var(_, p)
            | Expr::Wild(p)
            | Expr::Num(_, p)
            | Expr::Str(_, p)
            | Expr::Arith(_, _, _, p)
            | Expr::Neg(_, p)
            | Expr::Ord(_, p)
            | Expr::Count(_, p)
            | Expr::Aggregate(_, _, _, p) => p,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Atom {
    pub name: String,
    pub args: Vec<Expr>,
    pub pos: Pos,
}

#[derive(Clone, Debug)]
pub enum Literal {
    Pos(Atom),
    Neg(Atom),
    Cmp(CmpOp, Expr, Expr, Pos),
}

#[derive(Clone, Debug)]
pub struct Rule {
    pub head: Atom,
    pub body: Vec<Literal>,
    pub pos: Pos,
}

/// A parsed rules file (with its includes).
#[derive(Clone, Debug, Default)]
pub struct Ast {
    pub decls: Vec<Decl>,
    pub inputs: Vec<(String, Pos)>,
    pub outputs: Vec<(String, Pos)>,
    pub rules: Vec<Rule>,
    /// `#include "…/schema.dl"`: every agx fact relation is declared as an input.
    pub includes_schema: bool,
}
