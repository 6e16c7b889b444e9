//! Floating-point literals (their exact bits as gcc reads them) and constant float
//! expressions of static initializers.

use super::types::CType;
use super::{LResult, Lowerer};
use crate::ir::{float, BinOp, Operand, Scalar};
use lang_c::ast::*;
use lang_c::span::{Node, Span as AstSpan};

/// A float literal's bits and width (32 with an `f` suffix, else 64). Decimal literals
/// are rounded once, to nearest even, straight to their type (Rust's parser is correctly
/// rounded, as gcc's is); hexadecimal ones are exact or refused.
pub(crate) fn parse_float(l: &Lowerer, f: &Float, span: AstSpan) -> LResult<(u64, u8)> {
    let width = match f.suffix.format {
        FloatFormat::Float => 32,
        FloatFormat::Double => 64,
        FloatFormat::LongDouble => return l.unsupported(span, "`long double` literal"),
        FloatFormat::TS18661Format(_) => return l.unsupported(span, "`_FloatN` literal"),
    };
    if f.suffix.imaginary {
        return l.unsupported(span, "imaginary literal");
    }
    let bits = match f.base {
        FloatBase::Decimal => decimal(&f.number, width),
        FloatBase::Hexadecimal => hexadecimal(&f.number, width),
    };
    match bits {
        Some(b) => Ok((b, width)),
        None => l.unsupported(
            span,
            format!(
                "floating-point literal `{}` (a hexadecimal literal that needs rounding)",
                f.number
            ),
        ),
    }
}

fn decimal(number: &str, width: u8) -> Option<u64> {
    if width == 32 {
        number.parse::<f32>().ok().map(|x| u64::from(x.to_bits()))
    } else {
        number.parse::<f64>().ok().map(f64::to_bits)
    }
}

/// `0xH.HpE`: exact when the significand fits the type's precision and the value is
/// normal (so no rounding is involved); `None` otherwise.
fn hexadecimal(number: &str, width: u8) -> Option<u64> {
    let body = number.trim_start_matches("0x").trim_start_matches("0X");
    let (mantissa, exp) = body.split_once(['p', 'P'])?;
    let exp: i32 = exp.parse().ok()?;
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{int}{frac}");
    let digits = digits.trim_start_matches('0');
    if digits.len() > 16 {
        return None;
    }
    let m = if digits.is_empty() {
        0
    } else {
        u64::from_str_radix(digits, 16).ok()?
    };
    let precision = if width == 32 { 24 } else { 53 };
    if 64 - m.leading_zeros() > precision {
        return None;
    }
    let value = m as f64 * 2f64.powi(exp - 4 * frac.len() as i32);
    let bits = float::from_int(m, false, 64);
    let scaled = f64::from_bits(bits) * 2f64.powi(exp - 4 * frac.len() as i32);
    let normal_in = |v: f64| {
        v == 0.0 || (width == 32 && (v as f32).is_normal()) || (width == 64 && v.is_normal())
    };
    if scaled != value || !normal_in(value) {
        return None;
    }
    Some(float::resize(64, width, value.to_bits()))
}

/// A constant arithmetic value: an integer or a float's bits and width.
#[derive(Clone, Copy)]
enum Num {
    Int(i128),
    Fp(u64, u8),
}

impl Num {
    /// As a `to`-bit float (a single rounding from an integer, as C converts).
    fn to_float(self, to: u8) -> u64 {
        match self {
            Num::Int(v) if v < 0 => float::from_int(v as i64 as u64, true, to),
            Num::Int(v) => float::from_int(v as u64, false, to),
            Num::Fp(bits, from) => float::resize(from, to, bits),
        }
    }
}

impl Lowerer<'_> {
    /// The initializer of a static float cell of type `scalar`: a constant arithmetic
    /// expression (literals, integer constants, unary `-`/`+`, casts, `+ - * /`),
    /// computed with the run-time semantics and converted to the cell's type.
    pub(crate) fn const_float_value(
        &mut self,
        e: &Node<Expression>,
        scalar: Scalar,
    ) -> LResult<Operand> {
        let Scalar::Float { bits: width } = scalar else {
            unreachable!("const_float_value on a non-float scalar");
        };
        match self.const_num(e)? {
            Some(n) => Ok(Operand::Int {
                bits: n.to_float(width),
                ty: scalar,
            }),
            None => self.invalid(e.span, "initializer element is not a constant"),
        }
    }

    fn const_num(&mut self, e: &Node<Expression>) -> LResult<Option<Num>> {
        if let Expression::Constant(c) = &e.node {
            if let Constant::Float(f) = &c.node {
                let (bits, width) = parse_float(self, f, c.span)?;
                return Ok(Some(Num::Fp(bits, width)));
            }
        }
        if let Some(v) = self.const_int(e)? {
            return Ok(Some(Num::Int(v)));
        }
        Ok(match &e.node {
            Expression::UnaryOperator(u) => {
                match (&u.node.operator.node, self.const_num(&u.node.operand)?) {
                    (UnaryOperator::Plus, n) => n,
                    (UnaryOperator::Minus, Some(Num::Fp(b, w))) => {
                        Some(Num::Fp(float::neg(w, b), w))
                    }
                    _ => None,
                }
            }
            Expression::Cast(c) => {
                let to = self.type_name_type(&c.node.type_name)?;
                match (to, self.const_num(&c.node.expression)?) {
                    (CType::Float(w @ (32 | 64)), Some(n)) => Some(Num::Fp(n.to_float(w), w)),
                    _ => None,
                }
            }
            Expression::BinaryOperator(b) => {
                let op = match b.node.operator.node {
                    BinaryOperator::Plus => BinOp::Add,
                    BinaryOperator::Minus => BinOp::Sub,
                    BinaryOperator::Multiply => BinOp::Mul,
                    BinaryOperator::Divide => BinOp::Div,
                    _ => return Ok(None),
                };
                let (Some(x), Some(y)) =
                    (self.const_num(&b.node.lhs)?, self.const_num(&b.node.rhs)?)
                else {
                    return Ok(None);
                };
                let width = match (x, y) {
                    (Num::Fp(_, a), Num::Fp(_, b)) => a.max(b),
                    (Num::Fp(_, w), Num::Int(_)) | (Num::Int(_), Num::Fp(_, w)) => w,
                    (Num::Int(_), Num::Int(_)) => return Ok(None),
                };
                float::arith(op, width, x.to_float(width), y.to_float(width))
                    .map(|r| Num::Fp(r, width))
            }
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_literals_round_once_to_their_type() {
        assert_eq!(decimal("0.1", 64), Some(0.1f64.to_bits()));
        assert_eq!(decimal("0.1", 32), Some(u64::from(0.1f32.to_bits())));
        assert_eq!(decimal("1e400", 64), Some(f64::INFINITY.to_bits()));
        assert_eq!(decimal(".5", 64), Some(0.5f64.to_bits()));
        assert_eq!(decimal("2.", 64), Some(2.0f64.to_bits()));
    }

    #[test]
    fn exact_hexadecimal_literals_are_read_and_inexact_ones_refused() {
        assert_eq!(hexadecimal("0x1.8p1", 64), Some(3.0f64.to_bits()));
        assert_eq!(
            hexadecimal("0x1p-2", 32),
            Some(u64::from(0.25f32.to_bits()))
        );
        assert_eq!(hexadecimal("0x1.000001p0", 32), None);
    }
}
