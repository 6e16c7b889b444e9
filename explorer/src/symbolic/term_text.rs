//! The text form of terms and state variables, for debugging and messages.

use super::fold::signed;
use super::term::{Node, TermId, TermPool, Var};
use std::fmt;

impl TermPool {
    /// A compact rendering for debugging and messages.
    pub fn display(&self, t: TermId) -> TermDisplay<'_> {
        TermDisplay { pool: self, t }
    }
}

pub struct TermDisplay<'a> {
    pool: &'a TermPool,
    t: TermId,
}

impl fmt::Display for TermDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.pool;
        let sub = |t| TermDisplay { pool: p, t };
        match p.node(self.t) {
            Node::BoolConst(b) => write!(f, "{b}"),
            Node::BvConst { value, width } => write!(f, "{}", signed(*value, *width)),
            Node::Var { var, .. } => write!(f, "{var}"),
            Node::Not(a) => write!(f, "!{}", sub(*a)),
            Node::And(a, b) => write!(f, "({} && {})", sub(*a), sub(*b)),
            Node::Or(a, b) => write!(f, "({} || {})", sub(*a), sub(*b)),
            Node::Ite(c, a, b) => write!(f, "({} ? {} : {})", sub(*c), sub(*a), sub(*b)),
            Node::Cmp(op, a, b) => write!(f, "({} {op:?} {})", sub(*a), sub(*b)),
            Node::Bin(op, a, b) => write!(f, "({} {op:?} {})", sub(*a), sub(*b)),
            Node::Neg(a) => write!(f, "-{}", sub(*a)),
            Node::BNot(a) => write!(f, "~{}", sub(*a)),
            Node::ZExt(a, w) => write!(f, "zext{w}({})", sub(*a)),
            Node::SExt(a, w) => write!(f, "sext{w}({})", sub(*a)),
            Node::Trunc(a, w) => write!(f, "trunc{w}({})", sub(*a)),
            Node::Fp(op, a, b) => write!(f, "fp.{op:?}({}, {})", sub(*a), sub(*b)),
        }
    }
}

impl fmt::Display for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Var::Input { thread, index } => write!(f, "in{}_{index}", thread.0),
            Var::Fut { thread, index } => write!(f, "fut{}_{index}", thread.0),
            Var::Reg { thread, depth, reg } => write!(f, "t{}.{depth}.{reg}", thread.0),
            Var::Cell { obj, offset } => write!(f, "o{}+{offset}", obj.0),
        }
    }
}
