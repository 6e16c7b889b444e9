//! IEEE 754 semantics of the IR's `Float` scalars, on bit patterns, as gcc's code computes
//! them on x86-64: SSE2 arithmetic in the operand type (no x87 excess precision), rounding
//! to nearest, ties to even. Shared by constant folding, the interpreter and the symbolic
//! engine's term evaluation, so the three agree bit for bit.
//!
//! NaNs: an operation with a NaN operand returns the first NaN operand, quieted (what SSE
//! does for `a op b` computed as `op dst=a, src=b`, gcc's order at -O0); an invalid
//! operation on non-NaN operands (`0/0`, `inf - inf`, `sqrt(-1)`) returns x86's default
//! NaN (sign set, quiet, zero payload: `-nan` to printf). gcc may swap the operands of a
//! commutative operation under optimization, so the payload or sign of a NaN combined with
//! another NaN is the one place where a program's output may differ from agx's.

use super::BinOp;

/// The sign bit of a `width`-bit float.
pub fn sign_bit(width: u8) -> u64 {
    1u64 << (width - 1)
}

/// The quiet bit (top fraction bit) of a `width`-bit float.
fn quiet_bit(width: u8) -> u64 {
    if width == 32 {
        1 << 22
    } else {
        1 << 51
    }
}

/// x86's default NaN of the width (the result of an invalid operation).
pub fn default_nan(width: u8) -> u64 {
    if width == 32 {
        0xFFC0_0000
    } else {
        0xFFF8_0000_0000_0000
    }
}

pub fn is_nan(width: u8, a: u64) -> bool {
    if width == 32 {
        f32::from_bits(a as u32).is_nan()
    } else {
        f64::from_bits(a).is_nan()
    }
}

/// Computes in `f64` (for `width` 64) or `f32` (32) on bit patterns.
fn with<F32, F64>(width: u8, a: u64, b: u64, f32op: F32, f64op: F64) -> u64
where
    F32: Fn(f32, f32) -> f32,
    F64: Fn(f64, f64) -> f64,
{
    if width == 32 {
        let r = f32op(f32::from_bits(a as u32), f32::from_bits(b as u32));
        u64::from(r.to_bits())
    } else {
        f64op(f64::from_bits(a), f64::from_bits(b)).to_bits()
    }
}

/// The NaN an operation returns when `operands` (in order) include one or the result is
/// NaN; `None` when the result is a number.
fn nan_result(width: u8, operands: &[u64], result: u64) -> Option<u64> {
    if let Some(&n) = operands.iter().find(|&&x| is_nan(width, x)) {
        return Some(n | quiet_bit(width));
    }
    is_nan(width, result).then(|| default_nan(width))
}

/// `a op b` for `+ - * /` on `width`-bit floats; `None` for another operator.
pub fn arith(op: BinOp, width: u8, a: u64, b: u64) -> Option<u64> {
    let r = match op {
        BinOp::Add => with(width, a, b, |x, y| x + y, |x, y| x + y),
        BinOp::Sub => with(width, a, b, |x, y| x - y, |x, y| x - y),
        BinOp::Mul => with(width, a, b, |x, y| x * y, |x, y| x * y),
        BinOp::Div => with(width, a, b, |x, y| x / y, |x, y| x / y),
        _ => return None,
    };
    Some(nan_result(width, &[a, b], r).unwrap_or(r))
}

/// The IEEE square root (exactly rounded, as `sqrtsd` and Z3's `fp.sqrt`).
pub fn sqrt(width: u8, a: u64) -> u64 {
    let r = with(width, a, a, |x, _| x.sqrt(), |x, _| x.sqrt());
    nan_result(width, &[a], r).unwrap_or(r)
}

/// `-a`: flips the sign bit (gcc's `xorpd`), NaNs included.
pub fn neg(width: u8, a: u64) -> u64 {
    a ^ sign_bit(width)
}

/// `fabs(a)`: clears the sign bit (gcc's `andpd`), NaNs included.
pub fn abs(width: u8, a: u64) -> u64 {
    a & !sign_bit(width)
}

/// An IEEE comparison: false whenever an operand is NaN except for `!=`; `-0 == +0`.
/// `None` if `op` is not a comparison.
pub fn compare(op: BinOp, width: u8, a: u64, b: u64) -> Option<bool> {
    let (x, y) = if width == 32 {
        (
            f64::from(f32::from_bits(a as u32)),
            f64::from(f32::from_bits(b as u32)),
        )
    } else {
        (f64::from_bits(a), f64::from_bits(b))
    };
    Some(match op {
        BinOp::Eq => x == y,
        BinOp::Ne => x != y,
        BinOp::Lt => x < y,
        BinOp::Le => x <= y,
        BinOp::Gt => x > y,
        BinOp::Ge => x >= y,
        _ => return None,
    })
}

/// An integer (`value` holds it sign- or zero-extended to 64 bits) converted to a
/// `to`-bit float, rounded to nearest even (`cvtsi2sd`; Rust's `as` rounds the same way).
pub fn from_int(value: u64, signed: bool, to: u8) -> u64 {
    match (signed, to) {
        (true, 32) => u64::from((value as i64 as f32).to_bits()),
        (true, _) => (value as i64 as f64).to_bits(),
        (false, 32) => u64::from((value as f32).to_bits()),
        (false, _) => (value as f64).to_bits(),
    }
}

/// The value of a float as `f64` (exact for both widths).
pub fn to_f64(width: u8, a: u64) -> f64 {
    if width == 32 {
        f64::from(f32::from_bits(a as u32))
    } else {
        f64::from_bits(a)
    }
}

/// The float converted to a `bits`-bit integer, truncating toward zero; `None` when the
/// truncated value is not representable (NaN, infinities, out of range): undefined
/// behaviour in C.
pub fn to_int(width: u8, a: u64, bits: u8, signed: bool) -> Option<u64> {
    let t = to_f64(width, a).trunc();
    let top = 2f64.powi(i32::from(bits) - i32::from(signed));
    let low = if signed { -top } else { 0.0 };
    if !(t >= low && t < top) {
        return None;
    }
    let v = if signed { t as i64 as u64 } else { t as u64 };
    Some(super::truncate(v, bits))
}

/// A float of `from` bits converted to `to` bits (`cvtss2sd`/`cvtsd2ss`): exact when
/// widening, rounded to nearest even when narrowing; a NaN keeps its sign and the top of
/// its payload and is quieted.
pub fn resize(from: u8, to: u8, a: u64) -> u64 {
    if from == to {
        return a;
    }
    if is_nan(from, a) {
        let sign = if a & sign_bit(from) != 0 {
            sign_bit(to)
        } else {
            0
        };
        let (exp_to, payload) = if to == 64 {
            (0x7FF0_0000_0000_0000, (a & 0x7F_FFFF) << 29)
        } else {
            (0x7F80_0000, (a & 0xF_FFFF_FFFF_FFFF) >> 29)
        };
        return sign | exp_to | payload | quiet_bit(to);
    }
    if to == 64 {
        f64::from(f32::from_bits(a as u32)).to_bits()
    } else {
        u64::from((f64::from_bits(a) as f32).to_bits())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(x: f64) -> u64 {
        x.to_bits()
    }

    #[test]
    fn sums_round_as_ieee_double() {
        let s = arith(BinOp::Add, 64, d(0.1), d(0.2)).unwrap();
        assert_ne!(s, d(0.3));
        assert_eq!(s, d(0.30000000000000004));
        let f = arith(
            BinOp::Add,
            32,
            u64::from(0.1f32.to_bits()),
            u64::from(0.2f32.to_bits()),
        );
        assert_eq!(f, Some(u64::from(0.3f32.to_bits())));
    }

    #[test]
    fn nans_compare_false_and_zeros_equal() {
        let nan = default_nan(64);
        assert_eq!(compare(BinOp::Eq, 64, nan, nan), Some(false));
        assert_eq!(compare(BinOp::Ne, 64, nan, nan), Some(true));
        assert_eq!(compare(BinOp::Eq, 64, d(-0.0), d(0.0)), Some(true));
        assert_eq!(compare(BinOp::Lt, 32, 0x8000_0000, 0), Some(false));
    }

    #[test]
    fn invalid_operations_give_the_default_nan_and_nans_propagate_quieted() {
        assert_eq!(arith(BinOp::Div, 64, d(0.0), d(0.0)), Some(default_nan(64)));
        assert_eq!(sqrt(32, u64::from((-1f32).to_bits())), default_nan(32));
        let snan = 0x7FF0_0000_0000_0001;
        assert_eq!(
            arith(BinOp::Add, 64, d(1.0), snan),
            Some(0x7FF8_0000_0000_0001)
        );
    }

    #[test]
    fn conversions_truncate_toward_zero_and_refuse_out_of_range() {
        assert_eq!(
            to_int(64, d(-2.7), 32, true),
            Some(truncate(-2i64 as u64, 32))
        );
        assert_eq!(to_int(64, d(2.7), 8, false), Some(2));
        assert_eq!(to_int(64, d(-0.5), 32, false), Some(0));
        assert_eq!(to_int(64, d(-1.0), 32, false), None);
        assert_eq!(to_int(64, d(2147483648.0), 32, true), None);
        assert_eq!(to_int(64, d(-2147483648.0), 32, true), Some(0x8000_0000));
        assert_eq!(to_int(64, default_nan(64), 64, true), None);
        assert_eq!(from_int(u64::MAX, false, 64), d(18446744073709551615.0));
        assert_eq!(
            from_int(16_777_217, true, 32),
            u64::from(16_777_216f32.to_bits())
        );
        assert_eq!(resize(64, 32, d(0.1)), u64::from(0.1f32.to_bits()));
        assert_eq!(resize(32, 64, 0xFFC0_0000), default_nan(64));
    }

    use super::super::truncate;
}
