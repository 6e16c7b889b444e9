//! Runtime values and the register-only computations of the IR ([`Rvalue`]s).
//!
//! Everything here is a pure function of its arguments, so the arithmetic can be tested
//! without a program.
//!
//! [`Rvalue`]: analysis::ir::Rvalue

use analysis::ir::{float, sign_extend, truncate, BinOp, DataModel, FuncId, Scalar, UnOp};
use std::cmp::Ordering;

/// A runtime memory object: an index into the object table plus the generation of that
/// index. Indices of dead stack slots and freed heap blocks are reused with a new
/// generation, so a pointer to a dead object never reaches its successor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct ObjRef {
    pub index: u32,
    pub gen: u32,
}

/// A value in a register or a memory cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Value {
    /// Integer bits, truncated to the width of the value's type. Null is `Int(0)`; an
    /// integer cast to a pointer stays an `Int`.
    Int(u64),
    /// A pointer into a runtime object; the offset may be outside the object (C allows
    /// computing one-past-the-end; accesses are checked, not arithmetic).
    Ptr { obj: ObjRef, offset: i64 },
    /// A function pointer.
    Func(FuncId),
}

impl Value {
    pub const ZERO: Value = Value::Int(0);

    /// C truth: non-zero integers and every object or function pointer are true.
    pub fn is_true(self) -> bool {
        match self {
            Value::Int(bits) => bits != 0,
            Value::Ptr { .. } | Value::Func(_) => true,
        }
    }

    /// `Int` truncated to `bits`; pointers unchanged.
    pub fn truncated(self, bits: u8) -> Value {
        match self {
            Value::Int(v) => Value::Int(truncate(v, bits)),
            other => other,
        }
    }
}

/// Why a computation could not produce a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ArithError {
    /// Division or remainder by zero: a violation.
    DivisionByZero,
    /// A float-to-integer conversion out of the integer's range: a violation.
    FloatConversion,
    /// Behaviour the interpreter does not model: a runtime error naming it.
    Unsupported(String),
}

type ArithResult = Result<Value, ArithError>;

fn unsupported(what: impl Into<String>) -> ArithError {
    ArithError::Unsupported(what.into())
}

/// The bits of `v` (of type `ty`) extended to 64 bits by the signedness of `ty`; pointers
/// are unsigned.
pub(crate) fn extend(v: u64, ty: Scalar, dm: DataModel) -> u64 {
    let bits = ty.bits(dm);
    if ty.is_signed() {
        sign_extend(v, bits) as u64
    } else {
        truncate(v, bits)
    }
}

fn width(ty: Scalar, dm: DataModel) -> u8 {
    ty.bits(dm)
}

/// `op arg` where `ty` is the operand type.
pub(crate) fn unary(op: UnOp, ty: Scalar, arg: Value, dm: DataModel) -> ArithResult {
    let bits = width(ty, dm);
    match (op, arg, ty) {
        (UnOp::LogicalNot, Value::Int(v), Scalar::Float { bits }) => Ok(Value::Int(u64::from(
            float::compare(BinOp::Eq, bits, v, 0) == Some(true),
        ))),
        (UnOp::Neg, Value::Int(v), Scalar::Float { bits }) => Ok(Value::Int(float::neg(bits, v))),
        (UnOp::Abs, Value::Int(v), Scalar::Float { bits }) => Ok(Value::Int(float::abs(bits, v))),
        (UnOp::Sqrt, Value::Int(v), Scalar::Float { bits }) => Ok(Value::Int(float::sqrt(bits, v))),
        (UnOp::Not, _, Scalar::Float { .. }) => Err(unsupported("`~` on a float")),
        (UnOp::Abs | UnOp::Sqrt, _, _) => Err(unsupported("`fabs`/`sqrt` of a non-float")),
        _ => unary_int(op, bits, arg),
    }
}

fn unary_int(op: UnOp, bits: u8, arg: Value) -> ArithResult {
    match (op, arg) {
        (UnOp::LogicalNot, v) => Ok(Value::Int(u64::from(!v.is_true()))),
        (UnOp::Neg, Value::Int(v)) => Ok(Value::Int(truncate(v.wrapping_neg(), bits))),
        (UnOp::Not, Value::Int(v)) => Ok(Value::Int(truncate(!v, bits))),
        (_, _) => Err(unsupported("arithmetic on a pointer value")),
    }
}

/// `lhs op rhs` with both operands of type `ty` (`Ptr` only for comparisons).
pub(crate) fn binary(op: BinOp, ty: Scalar, lhs: Value, rhs: Value, dm: DataModel) -> ArithResult {
    if op.is_comparison() {
        return compare(op, ty, lhs, rhs, dm).map(|b| Value::Int(u64::from(b)));
    }
    match (ty, lhs, rhs) {
        (Scalar::Float { bits }, Value::Int(a), Value::Int(b)) => float::arith(op, bits, a, b)
            .map(Value::Int)
            .ok_or_else(|| unsupported(format!("`{}` on floats", op.symbol()))),
        (Scalar::Int { bits, signed }, Value::Int(a), Value::Int(b)) => {
            int_arith(op, bits, signed, a, b).map(Value::Int)
        }
        _ => Err(unsupported(format!(
            "arithmetic `{}` on a pointer value",
            op.symbol()
        ))),
    }
}

/// Integer arithmetic as gcc on x86 computes it for defined behaviour, with wraparound
/// for overflow, `INT_MIN / -1 == INT_MIN`, `INT_MIN % -1 == 0`, and SMT-LIB semantics for
/// shift counts `>= bits` (see the module documentation).
pub(crate) fn int_arith(
    op: BinOp,
    bits: u8,
    signed: bool,
    a: u64,
    b: u64,
) -> Result<u64, ArithError> {
    let (ua, ub) = (truncate(a, bits), truncate(b, bits));
    let (sa, sb) = (sign_extend(a, bits), sign_extend(b, bits));
    let result = match op {
        BinOp::Add => ua.wrapping_add(ub),
        BinOp::Sub => ua.wrapping_sub(ub),
        BinOp::Mul => ua.wrapping_mul(ub),
        BinOp::Div | BinOp::Rem if ub == 0 => return Err(ArithError::DivisionByZero),
        BinOp::Div if signed => sa.wrapping_div(sb) as u64,
        BinOp::Rem if signed => sa.wrapping_rem(sb) as u64,
        BinOp::Div => ua / ub,
        BinOp::Rem => ua % ub,
        BinOp::Shl if ub >= u64::from(bits) => 0,
        BinOp::Shl => ua << ub,
        BinOp::Shr if signed => (sa >> ub.min(63)) as u64,
        BinOp::Shr if ub >= u64::from(bits) => 0,
        BinOp::Shr => ua >> ub,
        BinOp::And => ua & ub,
        BinOp::Or => ua | ub,
        BinOp::Xor => ua ^ ub,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
            let ty = Scalar::Int { bits, signed };
            let dm = DataModel::Lp64;
            return compare(op, ty, Value::Int(a), Value::Int(b), dm).map(u64::from);
        }
    };
    Ok(truncate(result, bits))
}

/// A comparison; signed or unsigned by `ty`. Pointers into the same object compare by
/// offset; pointers into different objects are unequal and ordered by object (an
/// arbitrary but fixed order, as C leaves it undefined). A pointer and an integer are
/// unequal (an object pointer is never null); ordering them is unsupported.
pub(crate) fn compare(
    op: BinOp,
    ty: Scalar,
    lhs: Value,
    rhs: Value,
    dm: DataModel,
) -> Result<bool, ArithError> {
    if let (Scalar::Float { bits }, Value::Int(a), Value::Int(b)) = (ty, lhs, rhs) {
        return float::compare(op, bits, a, b)
            .ok_or_else(|| unsupported(format!("`{}` is not a comparison", op.symbol())));
    }
    let ord = match (lhs, rhs) {
        (Value::Int(a), Value::Int(b)) => {
            let bits = width(ty, dm);
            if ty.is_signed() {
                sign_extend(a, bits).cmp(&sign_extend(b, bits))
            } else {
                truncate(a, bits).cmp(&truncate(b, bits))
            }
        }
        (Value::Ptr { obj: o1, offset: a }, Value::Ptr { obj: o2, offset: b }) => {
            o1.cmp(&o2).then(a.cmp(&b))
        }
        (Value::Func(f), Value::Func(g)) => f.cmp(&g),
        _ => match op {
            BinOp::Eq => return Ok(false),
            BinOp::Ne => return Ok(true),
            _ => {
                return Err(unsupported(format!(
                    "ordering comparison `{}` between a pointer and an integer or a \
                     function pointer",
                    op.symbol()
                )))
            }
        },
    };
    Ok(match op {
        BinOp::Eq => ord == Ordering::Equal,
        BinOp::Ne => ord != Ordering::Equal,
        BinOp::Lt => ord == Ordering::Less,
        BinOp::Le => ord != Ordering::Greater,
        BinOp::Gt => ord == Ordering::Greater,
        BinOp::Ge => ord != Ordering::Less,
        other => {
            return Err(unsupported(format!(
                "`{}` is not a comparison",
                other.symbol()
            )))
        }
    })
}

/// `(to) arg` where `arg` has type `from`: truncation, or sign/zero extension by the
/// signedness of `from`. An integer converted to a pointer stays an integer; a pointer
/// converted to a pointer is unchanged; an object or function pointer converted to an
/// integer is unsupported.
pub(crate) fn cast(from: Scalar, to: Scalar, arg: Value, dm: DataModel) -> ArithResult {
    if from.is_float() || to.is_float() {
        return float_cast(from, to, arg, dm);
    }
    match (arg, to) {
        (Value::Int(v), to) => Ok(Value::Int(truncate(extend(v, from, dm), width(to, dm)))),
        (pointer, Scalar::Ptr) => Ok(pointer),
        (_, Scalar::Float { .. }) => Err(unsupported("conversion of a pointer to a float")),
        (_, Scalar::Int { .. }) => Err(unsupported(
            "conversion of an object or function pointer to an integer",
        )),
    }
}

/// A conversion from or to a float type: C's value conversions (integers round to
/// nearest even; floats truncate toward zero, out of range is a violation).
fn float_cast(from: Scalar, to: Scalar, arg: Value, dm: DataModel) -> ArithResult {
    let Value::Int(v) = arg else {
        return Err(unsupported("conversion between a pointer and a float"));
    };
    match (from, to) {
        (Scalar::Float { bits: f }, Scalar::Float { bits: t }) => {
            Ok(Value::Int(float::resize(f, t, v)))
        }
        (Scalar::Int { signed, .. }, Scalar::Float { bits: t }) => {
            Ok(Value::Int(float::from_int(extend(v, from, dm), signed, t)))
        }
        (Scalar::Float { bits: f }, Scalar::Int { bits, signed }) => {
            float::to_int(f, v, bits, signed)
                .map(Value::Int)
                .ok_or(ArithError::FloatConversion)
        }
        _ => Err(unsupported("conversion between a pointer and a float")),
    }
}

/// `base + index * scale` bytes.
pub(crate) fn ptr_add(
    base: Value,
    index: Value,
    index_ty: Scalar,
    scale: u64,
    dm: DataModel,
) -> ArithResult {
    let Value::Int(index) = index else {
        return Err(unsupported("a pointer used as an array index"));
    };
    let delta = (extend(index, index_ty, dm) as i64).wrapping_mul(scale as i64);
    match base {
        Value::Ptr { obj, offset } => Ok(Value::Ptr {
            obj,
            offset: offset.wrapping_add(delta),
        }),
        Value::Int(addr) => Ok(Value::Int(truncate(
            addr.wrapping_add(delta as u64),
            dm.pointer_bits(),
        ))),
        Value::Func(_) => Err(unsupported("arithmetic on a function pointer")),
    }
}

/// `(lhs - rhs) / scale` as a signed integer of the pointer width.
pub(crate) fn ptr_diff(lhs: Value, rhs: Value, scale: u64, dm: DataModel) -> ArithResult {
    let bits = dm.pointer_bits();
    let bytes = match (lhs, rhs) {
        (Value::Ptr { obj: o1, offset: a }, Value::Ptr { obj: o2, offset: b }) if o1 == o2 => {
            a.wrapping_sub(b)
        }
        (Value::Int(a), Value::Int(b)) => sign_extend(a.wrapping_sub(b), bits),
        _ => {
            return Err(unsupported(
                "subtraction of pointers that do not point into the same object",
            ))
        }
    };
    if scale == 0 {
        return Err(unsupported("pointer subtraction with element size 0"));
    }
    let elements = bytes.wrapping_div(scale as i64);
    Ok(Value::Int(truncate(elements as u64, bits)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DM: DataModel = DataModel::Ilp32;

    fn arith(op: BinOp, ty: Scalar, a: i64, b: i64) -> Result<i64, ArithError> {
        let bits = ty.bits(DM);
        let r = binary(
            op,
            ty,
            Value::Int(truncate(a as u64, bits)),
            Value::Int(truncate(b as u64, bits)),
            DM,
        )?;
        match r {
            Value::Int(v) if ty.is_signed() || op.is_comparison() => Ok(sign_extend(v, bits)),
            Value::Int(v) => Ok(v as i64),
            other => panic!("not an integer: {other:?}"),
        }
    }

    #[test]
    fn signed_overflow_wraps() {
        assert_eq!(
            arith(BinOp::Add, Scalar::I32, i32::MAX.into(), 1),
            Ok(i32::MIN.into())
        );
        assert_eq!(arith(BinOp::Mul, Scalar::I32, 0x10000, 0x10000), Ok(0));
        assert_eq!(arith(BinOp::Sub, Scalar::U32, 0, 1), Ok(u32::MAX.into()));
    }

    #[test]
    fn division_truncates_toward_zero_and_remainder_takes_dividend_sign() {
        assert_eq!(arith(BinOp::Div, Scalar::I32, -7, 2), Ok(-3));
        assert_eq!(arith(BinOp::Rem, Scalar::I32, -7, 2), Ok(-1));
        assert_eq!(arith(BinOp::Rem, Scalar::I32, 7, -2), Ok(1));
        assert_eq!(arith(BinOp::Div, Scalar::U32, -7, 2), Ok(0x7FFF_FFFC));
    }

    #[test]
    fn int_min_divided_by_minus_one_wraps() {
        let min32 = i64::from(i32::MIN);
        assert_eq!(arith(BinOp::Div, Scalar::I32, min32, -1), Ok(min32));
        assert_eq!(arith(BinOp::Rem, Scalar::I32, min32, -1), Ok(0));
        assert_eq!(arith(BinOp::Div, Scalar::I64, i64::MIN, -1), Ok(i64::MIN));
    }

    #[test]
    fn division_by_zero_is_reported() {
        assert_eq!(
            arith(BinOp::Div, Scalar::I32, 1, 0),
            Err(ArithError::DivisionByZero)
        );
        assert_eq!(
            arith(BinOp::Rem, Scalar::U8, 1, 256),
            Err(ArithError::DivisionByZero)
        );
    }

    #[test]
    fn shifts_follow_smt_lib_for_large_counts() {
        assert_eq!(arith(BinOp::Shr, Scalar::I32, -16, 2), Ok(-4));
        assert_eq!(arith(BinOp::Shr, Scalar::U32, -16, 2), Ok(0x3FFF_FFFC));
        assert_eq!(arith(BinOp::Shl, Scalar::I32, 1, 31), Ok(i32::MIN.into()));
        assert_eq!(arith(BinOp::Shl, Scalar::I32, 1, 32), Ok(0));
        assert_eq!(arith(BinOp::Shr, Scalar::U32, -1, 40), Ok(0));
        assert_eq!(arith(BinOp::Shr, Scalar::I32, -5, 32), Ok(-1));
        assert_eq!(arith(BinOp::Shr, Scalar::I32, 5, -1), Ok(0));
        assert_eq!(arith(BinOp::Shl, Scalar::I64, 1, 63), Ok(i64::MIN));
    }

    #[test]
    fn comparisons_use_the_operand_signedness() {
        assert_eq!(arith(BinOp::Lt, Scalar::I32, -1, 0), Ok(1));
        assert_eq!(arith(BinOp::Lt, Scalar::U32, -1, 0), Ok(0));
        assert_eq!(arith(BinOp::Ge, Scalar::I8, -128, 127), Ok(0));
        assert_eq!(arith(BinOp::Ne, Scalar::I32, 3, 3), Ok(0));
    }

    #[test]
    fn casts_truncate_and_extend_by_source_signedness() {
        let c = |from, to, v: u64| cast(from, to, Value::Int(v), DM);
        assert_eq!(
            c(Scalar::I8, Scalar::I32, 0xFF),
            Ok(Value::Int(0xFFFF_FFFF))
        );
        assert_eq!(c(Scalar::U8, Scalar::I32, 0xFF), Ok(Value::Int(0xFF)));
        assert_eq!(c(Scalar::I32, Scalar::U8, 0x1234), Ok(Value::Int(0x34)));
        assert_eq!(
            c(Scalar::I32, Scalar::I64, 0x8000_0000),
            Ok(Value::Int(0xFFFF_FFFF_8000_0000))
        );
        assert_eq!(c(Scalar::I32, Scalar::Ptr, 5), Ok(Value::Int(5)));
        assert_eq!(c(Scalar::Ptr, Scalar::U32, 5), Ok(Value::Int(5)));
        let p = Value::Ptr {
            obj: ObjRef { index: 0, gen: 0 },
            offset: 0,
        };
        assert!(cast(Scalar::Ptr, Scalar::U32, p, DM).is_err());
        assert_eq!(cast(Scalar::Ptr, Scalar::Ptr, p, DM), Ok(p));
    }

    #[test]
    fn unary_operators() {
        assert_eq!(
            unary(UnOp::Neg, Scalar::I32, Value::Int(1), DM),
            Ok(Value::Int(0xFFFF_FFFF))
        );
        assert_eq!(
            unary(UnOp::Not, Scalar::U8, Value::Int(0x0F), DM),
            Ok(Value::Int(0xF0))
        );
        assert_eq!(
            unary(UnOp::LogicalNot, Scalar::I32, Value::Int(0), DM),
            Ok(Value::Int(1))
        );
        let f = Value::Func(FuncId(0));
        assert_eq!(
            unary(UnOp::LogicalNot, Scalar::Ptr, f, DM),
            Ok(Value::Int(0))
        );
    }

    #[test]
    fn pointer_arithmetic_and_comparison() {
        let o = ObjRef { index: 3, gen: 1 };
        let p = Value::Ptr { obj: o, offset: 8 };
        let minus_one = Value::Int(0xFFFF_FFFF);
        let q = ptr_add(p, minus_one, Scalar::I32, 4, DM).unwrap();
        assert_eq!(q, Value::Ptr { obj: o, offset: 4 });
        let unsigned_big = ptr_add(p, minus_one, Scalar::U32, 1, DM).unwrap();
        assert_eq!(
            unsigned_big,
            Value::Ptr {
                obj: o,
                offset: 8 + 0xFFFF_FFFF
            }
        );
        assert_eq!(ptr_diff(q, p, 4, DM), Ok(Value::Int(0xFFFF_FFFF)));
        assert_eq!(compare(BinOp::Lt, Scalar::Ptr, q, p, DM), Ok(true));
        assert_eq!(
            compare(BinOp::Eq, Scalar::Ptr, p, Value::ZERO, DM),
            Ok(false)
        );
        assert!(compare(BinOp::Lt, Scalar::Ptr, p, Value::ZERO, DM).is_err());
        let other = Value::Ptr {
            obj: ObjRef { index: 4, gen: 0 },
            offset: 8,
        };
        assert_eq!(compare(BinOp::Eq, Scalar::Ptr, p, other, DM), Ok(false));
        assert!(ptr_diff(p, other, 1, DM).is_err());
        assert_eq!(
            ptr_add(Value::ZERO, Value::Int(4), Scalar::I32, 2, DM),
            Ok(Value::Int(8))
        );
    }
}
