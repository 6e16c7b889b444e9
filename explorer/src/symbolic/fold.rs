//! Constant folding of bit-vector operations with SMT-LIB `QF_BV` semantics, shared by
//! the term constructors and the solver's model evaluation.

use super::term::BvOp;

/// Keeps the low `width` bits of `v`.
pub fn mask(v: u64, width: u8) -> u64 {
    analysis::ir::truncate(v, width)
}

/// Reads the low `width` bits of `v` as a signed number.
pub fn signed(v: u64, width: u8) -> i64 {
    analysis::ir::sign_extend(v, width)
}

/// Folds a binary operation on constants with SMT-LIB semantics (shifts by at least the
/// width give 0, or all sign bits for `AShr`, as in the interpreter); `None` for division
/// by zero, which the engine guards before building the term.
pub fn fold_bin(op: BvOp, x: u64, y: u64, w: u8) -> Option<u64> {
    let sx = signed(x, w);
    let sy = signed(y, w);
    let v = match op {
        BvOp::Add => x.wrapping_add(y),
        BvOp::Sub => x.wrapping_sub(y),
        BvOp::Mul => x.wrapping_mul(y),
        BvOp::UDiv if y != 0 => x / y,
        BvOp::URem if y != 0 => x % y,
        BvOp::SDiv if y != 0 => sx.wrapping_div(sy) as u64,
        BvOp::SRem if y != 0 => sx.wrapping_rem(sy) as u64,
        BvOp::Shl if y >= u64::from(w) => 0,
        BvOp::Shl => x << y,
        BvOp::LShr if y >= u64::from(w) => 0,
        BvOp::LShr => x >> y,
        BvOp::AShr => (sx >> y.min(63)) as u64,
        BvOp::And => x & y,
        BvOp::Or => x | y,
        BvOp::Xor => x ^ y,
        _ => return None,
    };
    Some(mask(v, w))
}
