//! Values: scalar types, operands and the unary and binary operators on them.

use super::*;
use serde::Serialize;
use std::fmt;

/// A scalar type: the kind of value a register or a cell holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Scalar {
    /// An integer of `bits` (8, 16, 32 or 64) bits; `_Bool` is an unsigned 8-bit integer
    /// that the front end keeps at 0 or 1.
    Int { bits: u8, signed: bool },
    /// A data or function pointer, of the data model's pointer width.
    Ptr,
    /// An IEEE 754 binary floating-point number of `bits` (32: `float`, 64: `double`),
    /// held as its bit pattern. Arithmetic rounds to nearest, ties to even (x86-64 SSE2,
    /// no x87 excess precision); see `Operand::float`.
    Float { bits: u8 },
}

impl Scalar {
    pub const I8: Scalar = Scalar::Int {
        bits: 8,
        signed: true,
    };
    pub const U8: Scalar = Scalar::Int {
        bits: 8,
        signed: false,
    };
    pub const I32: Scalar = Scalar::Int {
        bits: 32,
        signed: true,
    };
    pub const U32: Scalar = Scalar::Int {
        bits: 32,
        signed: false,
    };
    pub const I64: Scalar = Scalar::Int {
        bits: 64,
        signed: true,
    };
    pub const U64: Scalar = Scalar::Int {
        bits: 64,
        signed: false,
    };
    pub const F32: Scalar = Scalar::Float { bits: 32 };
    pub const F64: Scalar = Scalar::Float { bits: 64 };

    /// Width in bits under a data model.
    pub fn bits(self, dm: DataModel) -> u8 {
        match self {
            Scalar::Int { bits, .. } | Scalar::Float { bits } => bits,
            Scalar::Ptr => dm.pointer_bits(),
        }
    }

    pub fn bytes(self, dm: DataModel) -> u64 {
        u64::from(self.bits(dm) / 8)
    }

    pub fn is_signed(self) -> bool {
        matches!(self, Scalar::Int { signed: true, .. })
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::Float { .. })
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Int { bits, signed: true } => write!(f, "i{bits}"),
            Scalar::Int {
                bits,
                signed: false,
            } => write!(f, "u{bits}"),
            Scalar::Ptr => write!(f, "ptr"),
            Scalar::Float { bits } => write!(f, "f{bits}"),
        }
    }
}

/// A constant or register operand.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Operand {
    Reg(RegId),
    /// An integer constant; `bits` holds the value's two's-complement bits truncated to the
    /// width of `ty`. For a `Float` type, `bits` is the IEEE bit pattern.
    Int {
        bits: u64,
        ty: Scalar,
    },
    /// The null pointer.
    Null,
    /// The address of a static object plus a byte offset. For a stack slot the address is
    /// that of the slot in the *current* activation of the function owning it.
    Addr {
        obj: ObjId,
        offset: u64,
    },
    /// The address of a function.
    Func(FuncId),
}

impl Operand {
    pub fn int(value: i128, ty: Scalar) -> Operand {
        let bits = match ty {
            Scalar::Int { bits, .. } | Scalar::Float { bits } => bits,
            Scalar::Ptr => 64,
        };
        Operand::Int {
            bits: truncate(value as u64, bits),
            ty,
        }
    }

    /// A `double` constant (rounded to `float` for a 32-bit type).
    pub fn float(value: f64, ty: Scalar) -> Operand {
        let bits = match ty {
            Scalar::Float { bits: 32 } => u64::from((value as f32).to_bits()),
            _ => value.to_bits(),
        };
        Operand::Int { bits, ty }
    }

    pub fn as_reg(&self) -> Option<RegId> {
        match self {
            Operand::Reg(r) => Some(*r),
            _ => None,
        }
    }
}

/// Keeps the low `bits` bits of `value`.
pub fn truncate(value: u64, bits: u8) -> u64 {
    if bits >= 64 {
        value
    } else {
        value & ((1u64 << bits) - 1)
    }
}

/// Reads the low `bits` bits of `value` as a two's-complement signed number.
pub fn sign_extend(value: u64, bits: u8) -> i64 {
    if bits >= 64 {
        value as i64
    } else {
        let shift = 64 - u32::from(bits);
        ((value << shift) as i64) >> shift
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum UnOp {
    /// Two's-complement negation.
    Neg,
    /// Bitwise complement.
    Not,
    /// `!x`: 1 if the operand is zero (or null), else 0; the result is `int`.
    LogicalNot,
    /// `fabs`/`fabsf` of a float: clears the sign bit.
    Abs,
    /// `sqrt`/`sqrtf` of a float: the IEEE square root, exactly rounded.
    Sqrt,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// Division, truncating toward zero (signed or unsigned by the operand type).
    Div,
    Rem,
    Shl,
    /// Arithmetic for signed operand types, logical for unsigned ones.
    Shr,
    And,
    Or,
    Xor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl BinOp {
    /// Comparisons produce an `int` 0 or 1 whatever their operand type.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }

    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Xor => "^",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
        }
    }
}
