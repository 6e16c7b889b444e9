//! Expressions: C's implicit conversions made explicit, memory accesses split into one
//! load or store per statement, short-circuit operators and `?:` turned into branches.
//!
//! [`typing`]: the C type of an expression; [`rvalue`], [`lvalue`]; [`convert`] (casts);
//! [`operators`]; [`branch`] (`&&`, `||`, `?:`); [`calls`].

mod branch;
mod calls;
mod convert;
mod float_ops;
mod lvalue;
mod operators;
mod rvalue;
mod typing;
mod varargs;

use super::types::CType;
use crate::ir::*;
use lang_c::ast::*;

/// An rvalue: an operand and its C type (arrays and functions already decayed).
#[derive(Clone, Debug)]
pub(crate) struct Val {
    pub op: Operand,
    pub ty: CType,
}

/// Where an lvalue lives.
#[derive(Clone, Debug)]
pub(crate) enum Place {
    Reg(RegId),
    /// In memory at this address.
    Mem(Operand),
}

#[derive(Clone, Debug)]
pub(crate) struct LVal {
    pub place: Place,
    pub ty: CType,
}

fn void() -> Val {
    Val {
        op: Operand::int(0, Scalar::I32),
        ty: CType::Void,
    }
}

/// What a call produces: a scalar value, or the address of a struct result.
enum CallResult {
    Value(Val),
    Aggregate(Operand),
}

/// A short name of an expression kind, for messages.
fn expression_kind(e: &Expression) -> &'static str {
    match e {
        Expression::GenericSelection(_) => "_Generic selection",
        Expression::Statement(_) => "statement expression",
        Expression::CompoundLiteral(_) => "compound literal",
        _ => "expression",
    }
}
