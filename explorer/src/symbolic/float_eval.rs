//! The register-only computations of the IR on floats, over symbolic values: the
//! operations of `fp` on bit-vector terms, with a check for float-to-integer conversions
//! out of range (undefined behaviour, the interpreter's `FloatConversion` violation).

use super::fp::FpOp;
use super::term::{BvOp, TermPool};
use super::value::{Check, Evaluated, SVal, Unsupported};
use crate::concrete::ViolationKind;
use analysis::ir::{float, truncate, BinOp, DataModel, Rvalue, Scalar, UnOp};

/// Does the rvalue compute on, or convert from or to, a float?
pub fn touches_float(rv: &Rvalue) -> bool {
    crate::predict::ctp::touches_float(rv)
}

fn bits_of(pool: &mut TermPool, v: SVal, width: u8) -> Result<super::term::TermId, Unsupported> {
    match v {
        SVal::Int(t) => Ok(pool.resize(t, width, false)),
        _ => Err(Unsupported("a pointer used as a float".into())),
    }
}

/// `op a` on a float of type `ty`.
pub fn unary(pool: &mut TermPool, op: UnOp, ty: Scalar, a: SVal) -> Result<SVal, Unsupported> {
    let Scalar::Float { bits } = ty else {
        return Err(Unsupported("internal: float unary on a non-float".into()));
    };
    let x = bits_of(pool, a, bits)?;
    match op {
        UnOp::Neg => {
            let sign = pool.bv_const(float::sign_bit(bits), bits);
            Ok(SVal::Int(pool.bin(BvOp::Xor, x, sign)))
        }
        UnOp::LogicalNot => {
            let zero = pool.bv_const(0, bits);
            let z = pool.fp(FpOp::Eq, x, zero);
            Ok(SVal::Int(pool.bool_to_bv(z, 32)))
        }
        UnOp::Abs => {
            let mask = pool.bv_const(!float::sign_bit(bits) & truncate(u64::MAX, bits), bits);
            Ok(SVal::Int(pool.bin(BvOp::And, x, mask)))
        }
        UnOp::Sqrt => Ok(SVal::Int(pool.fp(FpOp::Sqrt, x, x))),
        UnOp::Not => Err(Unsupported("`~` on a float".into())),
    }
}

/// `a op b` on floats of type `ty`: arithmetic, or a comparison as an `int` 0 or 1.
pub fn binary(
    pool: &mut TermPool,
    op: BinOp,
    ty: Scalar,
    a: SVal,
    b: SVal,
) -> Result<SVal, Unsupported> {
    let Scalar::Float { bits } = ty else {
        return Err(Unsupported("internal: float binary on a non-float".into()));
    };
    let (x, y) = (bits_of(pool, a, bits)?, bits_of(pool, b, bits)?);
    let arith = |op| Some(op);
    let fop = match op {
        BinOp::Add => arith(FpOp::Add),
        BinOp::Sub => arith(FpOp::Sub),
        BinOp::Mul => arith(FpOp::Mul),
        BinOp::Div => arith(FpOp::Div),
        _ => None,
    };
    if let Some(fop) = fop {
        return Ok(SVal::Int(pool.fp(fop, x, y)));
    }
    let c = match op {
        BinOp::Eq => pool.fp(FpOp::Eq, x, y),
        BinOp::Ne => {
            let e = pool.fp(FpOp::Eq, x, y);
            pool.not(e)
        }
        BinOp::Lt => pool.fp(FpOp::Lt, x, y),
        BinOp::Le => pool.fp(FpOp::Le, x, y),
        BinOp::Gt => pool.fp(FpOp::Lt, y, x),
        BinOp::Ge => pool.fp(FpOp::Le, y, x),
        other => return Err(Unsupported(format!("`{}` on floats", other.symbol()))),
    };
    Ok(SVal::Int(pool.bool_to_bv(c, 32)))
}

/// A conversion from or to a float type; a float-to-integer conversion checks that the
/// truncated value fits.
pub fn cast(
    pool: &mut TermPool,
    dm: DataModel,
    from: Scalar,
    to: Scalar,
    a: SVal,
) -> Result<Evaluated, Unsupported> {
    let x = bits_of(pool, a, from.bits(dm))?;
    let value = match (from, to) {
        (Scalar::Float { .. }, Scalar::Float { bits }) => pool.fp(FpOp::Resize(bits), x, x),
        (Scalar::Int { signed, .. }, Scalar::Float { bits }) => {
            let op = if signed {
                FpOp::FromSInt(bits)
            } else {
                FpOp::FromUInt(bits)
            };
            pool.fp(op, x, x)
        }
        (Scalar::Float { .. }, Scalar::Int { bits, signed }) => {
            let (conv, fits) = if signed {
                (FpOp::ToSInt(bits), FpOp::FitsSInt(bits))
            } else {
                (FpOp::ToUInt(bits), FpOp::FitsUInt(bits))
            };
            let ok = pool.fp(fits, x, x);
            let bad = pool.not(ok);
            let value = pool.fp(conv, x, x);
            return Ok(Evaluated {
                value: SVal::Int(value),
                checks: vec![Check {
                    bad,
                    kind: ViolationKind::FloatConversion,
                    message: "float-to-integer conversion of a value out of the integer's range"
                        .into(),
                }],
            });
        }
        _ => {
            return Err(Unsupported(
                "conversion between a pointer and a float".into(),
            ))
        }
    };
    Ok(SVal::Int(value).into())
}
