//! Constant expressions: integer constants (array sizes, enumerators, case labels) and
//! the address constants of static initializers; literal parsing.

use super::types::{CType, IntType};
use super::{LResult, Lowerer, Symbol};
use crate::ir::{truncate, ObjId, Operand, Scalar};
use lang_c::ast::*;
use lang_c::span::Node;

impl Lowerer<'_> {
    /// The value of an integer constant expression, or `None` if it is not one.
    pub(crate) fn const_int(&mut self, e: &Node<Expression>) -> LResult<Option<i128>> {
        Ok(match &e.node {
            Expression::Constant(c) => match &c.node {
                Constant::Integer(i) => Some(parse_integer(self, i, c.span)?.0),
                Constant::Character(s) => Some(parse_char(self, s, c.span)?),
                Constant::Float(_) => None,
            },
            Expression::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Symbol::EnumConst(v)) => Some(*v),
                _ => None,
            },
            Expression::SizeOfTy(t) => {
                let ty = self.type_name_type(&t.node.0)?;
                Some(i128::from(self.size_of(&ty, t.span)?))
            }
            Expression::SizeOfVal(v) => {
                if let Expression::Identifier(id) = &v.node.0.node {
                    if let Some(Symbol::Vla { .. }) = self.lookup(&id.node.name) {
                        return self.unsupported(v.span, "sizeof of a variable-length array");
                    }
                }
                let ty = self.expr_type(&v.node.0)?;
                Some(i128::from(self.size_of(&ty, v.span)?))
            }
            Expression::AlignOf(t) => {
                let ty = self.type_name_type(&t.node.0)?;
                Some(i128::from(self.layout().align(&ty)))
            }
            Expression::OffsetOf(o) => Some(i128::from(self.offset_of(o)?)),
            Expression::Cast(c) => {
                let ty = self.type_name_type(&c.node.type_name)?;
                let Some(v) = self.const_int(&c.node.expression)? else {
                    return Ok(None);
                };
                match ty {
                    CType::Int(it) => Some(convert_int(v, it)),
                    _ => None,
                }
            }
            Expression::UnaryOperator(u) => {
                let Some(v) = self.const_int(&u.node.operand)? else {
                    return Ok(None);
                };
                match u.node.operator.node {
                    UnaryOperator::Plus => Some(v),
                    UnaryOperator::Minus => Some(-v),
                    UnaryOperator::Complement => {
                        let ty = self.expr_type(&u.node.operand)?;
                        let it = match ty {
                            CType::Int(it) => super::types::promote(it),
                            _ => return Ok(None),
                        };
                        Some(convert_int(!v, it))
                    }
                    UnaryOperator::Negate => Some(i128::from(v == 0)),
                    _ => None,
                }
            }
            Expression::BinaryOperator(b) => self.const_binary(b, e)?,
            Expression::Conditional(c) => match self.const_int(&c.node.condition)? {
                Some(0) => self.const_int(&c.node.else_expression)?,
                Some(_) => self.const_int(&c.node.then_expression)?,
                None => None,
            },
            _ => None,
        })
    }

    fn const_binary(
        &mut self,
        b: &Node<BinaryOperatorExpression>,
        _whole: &Node<Expression>,
    ) -> LResult<Option<i128>> {
        if !is_const_operator(&b.node.operator.node) {
            // Still look into the operands, for their errors.
            let (Some(_), Some(_)) = (self.const_int(&b.node.lhs)?, self.const_int(&b.node.rhs)?)
            else {
                return Ok(None);
            };
            return Ok(None);
        }
        // `1 + 2 + ... + n` is a left-deep tree: fold its left spine iteratively, carrying
        // the type along (typing each subtree anew would be quadratic).
        let mut spine = vec![b];
        let mut left = &b.node.lhs;
        while let Expression::BinaryOperator(inner) = &left.node {
            if !is_const_operator(&inner.node.operator.node) {
                break;
            }
            spine.push(inner);
            left = &inner.node.lhs;
        }
        let mut x = self.const_int(left)?;
        let mut x_ty = match x {
            Some(_) => self.expr_type(left)?.decay(),
            None => CType::Void,
        };
        for node in spine.into_iter().rev() {
            let y = self.const_int(&node.node.rhs)?;
            let (Some(xv), Some(y)) = (x, y) else {
                x = None;
                continue;
            };
            let y_ty = self.expr_type(&node.node.rhs)?.decay();
            let op = &node.node.operator.node;
            let v = self.fold(op, xv, y, node.span)?;
            let ty = self.binary_result_type(op, x_ty, y_ty, node.span)?;
            // Wrap to the expression's C type, so `1u << 31` or `-1u` keep C's value.
            x = Some(match &ty {
                CType::Int(it) => convert_int(v, *it),
                _ => v,
            });
            x_ty = ty;
        }
        Ok(x)
    }

    fn fold(
        &mut self,
        op: &BinaryOperator,
        x: i128,
        y: i128,
        span: lang_c::span::Span,
    ) -> LResult<i128> {
        use BinaryOperator as B;
        Ok(match op {
            B::Multiply => x * y,
            B::Divide | B::Modulo if y == 0 => {
                return self.invalid(span, "division by zero in a constant expression")
            }
            B::Divide => x / y,
            B::Modulo => x % y,
            B::Plus => x + y,
            B::Minus => x - y,
            B::ShiftLeft => x << (y as u32).min(127),
            B::ShiftRight => x >> (y as u32).min(127),
            B::Less => i128::from(x < y),
            B::Greater => i128::from(x > y),
            B::LessOrEqual => i128::from(x <= y),
            B::GreaterOrEqual => i128::from(x >= y),
            B::Equals => i128::from(x == y),
            B::NotEquals => i128::from(x != y),
            B::BitwiseAnd => x & y,
            B::BitwiseXor => x ^ y,
            B::BitwiseOr => x | y,
            B::LogicalAnd => i128::from(x != 0 && y != 0),
            B::LogicalOr => i128::from(x != 0 || y != 0),
            _ => unreachable!("not a constant operator"),
        })
    }

    /// `offsetof(T, a.b[2].c)` in bytes.
    pub(crate) fn offset_of(&mut self, o: &Node<OffsetOfExpression>) -> LResult<u64> {
        let mut ty = self.type_name_type(&o.node.type_name)?;
        let mut off = 0u64;
        let base = &o.node.designator.node.base;
        let (first, fty) = self.member_of(&ty, &base.node.name, base.span)?;
        off += first;
        ty = fty;
        for m in &o.node.designator.node.members {
            match &m.node {
                OffsetMember::Member(name) => {
                    let (fo, fty) = self.member_of(&ty, &name.node.name, name.span)?;
                    off += fo;
                    ty = fty;
                }
                OffsetMember::IndirectMember(_) => {
                    return self.unsupported(m.span, "`->` in offsetof")
                }
                OffsetMember::Index(e) => {
                    let CType::Array(elem, _) = ty.clone() else {
                        return self.invalid(m.span, "offsetof index into a non-array");
                    };
                    let Some(i) = self.const_int(e)? else {
                        return self.invalid(e.span, "offsetof index is not a constant");
                    };
                    off = off.wrapping_add((i as u64).wrapping_mul(self.size_of(&elem, m.span)?));
                    ty = *elem;
                }
            }
        }
        Ok(off)
    }

    /// A member of a struct or union type: its offset and type.
    pub(crate) fn member_of(
        &self,
        ty: &CType,
        name: &str,
        span: lang_c::span::Span,
    ) -> LResult<(u64, CType)> {
        let CType::Struct(id) = ty else {
            return self.invalid(span, format!("member `{name}` of a non-struct type"));
        };
        self.check_no_bitfield(ty, span)?;
        let s = &self.structs[id.0];
        if !s.complete {
            return self.invalid(span, format!("member `{name}` of an incomplete type"));
        }
        match s.member(name, &self.structs) {
            Some(m) => Ok(m),
            None => self.invalid(span, format!("no member named `{name}`")),
        }
    }

    /// A static initializer's value for a scalar of type `ty`: an integer, null, the
    /// address of a static object (plus an offset), or a function.
    pub(crate) fn const_value(&mut self, e: &Node<Expression>, ty: &CType) -> LResult<Operand> {
        let scalar = ty.scalar().expect("scalar initializer");
        if scalar.is_float() {
            return self.const_float_value(e, scalar);
        }
        if let Some(v) = self.const_int(e)? {
            return Ok(match scalar {
                Scalar::Ptr if v == 0 => Operand::Null,
                Scalar::Ptr => {
                    return self
                        .unsupported(e.span, "integer constant used as a pointer initializer")
                }
                s => Operand::int(v, s),
            });
        }
        if scalar != Scalar::Ptr {
            return self.invalid(e.span, "initializer element is not a constant");
        }
        match self.const_address(e)? {
            Some(op) => Ok(op),
            None => self.invalid(e.span, "initializer element is not a constant"),
        }
    }

    /// The value of an address constant expression (`&x`, `arr`, `"s"`, `f`, `&a[2].f`,
    /// `p + 1` with `p` such a constant, casts of these).
    fn const_address(&mut self, e: &Node<Expression>) -> LResult<Option<Operand>> {
        match &e.node {
            Expression::Cast(c) => match self.const_int(&c.node.expression)? {
                // `(void *)0`: the null pointer constant.
                Some(0) => Ok(Some(Operand::Null)),
                Some(_) => Ok(None),
                None => self.const_address(&c.node.expression),
            },
            Expression::Identifier(id) => Ok(match self.lookup(&id.node.name).cloned() {
                Some(Symbol::Function { id, .. }) => Some(Operand::Func(id)),
                Some(Symbol::Object {
                    obj,
                    ty: CType::Array(..),
                }) => Some(Operand::Addr { obj, offset: 0 }),
                _ => None,
            }),
            Expression::StringLiteral(s) => {
                let bytes = string_bytes(self, &s.node, s.span)?;
                let span = self.span(s.span);
                Ok(Some(Operand::Addr {
                    obj: self.string_object(bytes, span),
                    offset: 0,
                }))
            }
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address => {
                if let Expression::Identifier(id) = &u.node.operand.node {
                    if let Some(Symbol::Function { id, .. }) = self.lookup(&id.node.name) {
                        return Ok(Some(Operand::Func(*id)));
                    }
                }
                Ok(self
                    .const_lvalue(&u.node.operand)?
                    .map(|(obj, offset, _)| Operand::Addr { obj, offset }))
            }
            Expression::BinaryOperator(b)
                if matches!(
                    b.node.operator.node,
                    BinaryOperator::Plus | BinaryOperator::Minus
                ) =>
            {
                let Some(Operand::Addr { obj, offset }) = self.const_address(&b.node.lhs)? else {
                    return Ok(None);
                };
                let Some(n) = self.const_int(&b.node.rhs)? else {
                    return Ok(None);
                };
                let elem = match self.expr_type(&b.node.lhs)?.decay() {
                    CType::Ptr(t) => *t,
                    _ => return Ok(None),
                };
                let size = i128::from(self.size_of(&elem, b.span)?);
                let delta = if b.node.operator.node == BinaryOperator::Plus {
                    n * size
                } else {
                    -n * size
                };
                Ok(Some(Operand::Addr {
                    obj,
                    offset: (i128::from(offset) + delta) as u64,
                }))
            }
            _ => Ok(None),
        }
    }

    /// A static lvalue: object, offset and type (`x`, `x.f`, `a[3]`, `a[1].f[2]`).
    fn const_lvalue(&mut self, e: &Node<Expression>) -> LResult<Option<(ObjId, u64, CType)>> {
        match &e.node {
            Expression::Identifier(id) => Ok(match self.lookup(&id.node.name).cloned() {
                Some(Symbol::Object { obj, ty }) => Some((obj, 0, ty)),
                _ => None,
            }),
            Expression::Member(m) if m.node.operator.node == MemberOperator::Direct => {
                let Some((obj, off, ty)) = self.const_lvalue(&m.node.expression)? else {
                    return Ok(None);
                };
                let (fo, fty) = self.member_of(&ty, &m.node.identifier.node.name, m.span)?;
                Ok(Some((obj, off + fo, fty)))
            }
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
                let Some((obj, off, CType::Array(elem, _))) = self.const_lvalue(&b.node.lhs)?
                else {
                    return Ok(None);
                };
                let Some(i) = self.const_int(&b.node.rhs)? else {
                    return Ok(None);
                };
                let size = self.size_of(&elem, b.span)?;
                Ok(Some((
                    obj,
                    off.wrapping_add((i as u64).wrapping_mul(size)),
                    *elem,
                )))
            }
            _ => Ok(None),
        }
    }
}

/// Truncates `v` to an integer type and reads it back with the type's signedness.
/// The binary operators of integer constant expressions.
fn is_const_operator(op: &BinaryOperator) -> bool {
    use BinaryOperator as B;
    matches!(
        op,
        B::Multiply
            | B::Divide
            | B::Modulo
            | B::Plus
            | B::Minus
            | B::ShiftLeft
            | B::ShiftRight
            | B::Less
            | B::Greater
            | B::LessOrEqual
            | B::GreaterOrEqual
            | B::Equals
            | B::NotEquals
            | B::BitwiseAnd
            | B::BitwiseXor
            | B::BitwiseOr
            | B::LogicalAnd
            | B::LogicalOr
    )
}

pub(crate) fn convert_int(v: i128, it: IntType) -> i128 {
    if it.is_bool {
        return i128::from(v != 0);
    }
    let bits = truncate(v as u64, it.bits);
    if it.signed {
        i128::from(crate::ir::sign_extend(bits, it.bits))
    } else {
        i128::from(bits)
    }
}

/// An integer literal's value and C type (C11 6.4.4.1: the first type of its list that
/// can represent it).
pub(crate) fn parse_integer(
    l: &Lowerer,
    i: &Integer,
    span: lang_c::span::Span,
) -> LResult<(i128, IntType)> {
    let radix = match i.base {
        IntegerBase::Decimal => 10,
        IntegerBase::Octal => 8,
        IntegerBase::Hexadecimal => 16,
        IntegerBase::Binary => 2,
    };
    let digits = i.number.trim_start_matches("0x").trim_start_matches("0X");
    let digits = if i.base == IntegerBase::Binary {
        digits.trim_start_matches("0b").trim_start_matches("0B")
    } else {
        digits
    };
    let digits = if digits.is_empty() { "0" } else { digits };
    let value = match u128::from_str_radix(digits, radix) {
        Ok(v) if v <= u128::from(u64::MAX) => v as i128,
        _ => {
            return l.invalid(
                span,
                format!("integer constant `{}` is too large", i.number),
            )
        }
    };
    if i.suffix.imaginary {
        return l.unsupported(span, "imaginary constant");
    }
    let long_bits = l.dm.pointer_bits();
    let min_bits = match i.suffix.size {
        IntegerSize::Int => 32,
        IntegerSize::Long => long_bits,
        IntegerSize::LongLong => 64,
    };
    let decimal = i.base == IntegerBase::Decimal;
    let mut candidates: Vec<IntType> = Vec::new();
    for bits in [32u8, long_bits, 64] {
        if bits < min_bits {
            continue;
        }
        if !i.suffix.unsigned {
            candidates.push(IntType::new(bits, true));
        }
        if i.suffix.unsigned || !decimal {
            candidates.push(IntType::new(bits, false));
        }
    }
    let fits = |t: &IntType| {
        let max = if t.signed {
            (1i128 << (t.bits - 1)) - 1
        } else {
            (1i128 << t.bits) - 1
        };
        value <= max
    };
    let ty = candidates
        .into_iter()
        .find(fits)
        .unwrap_or(IntType::new(64, false));
    Ok((value, ty))
}

/// The value of a character constant such as `'a'`, `'\n'`, `'\x41'` (type `int`).
pub(crate) fn parse_char(l: &Lowerer, raw: &str, span: lang_c::span::Span) -> LResult<i128> {
    let Some(body) = raw.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) else {
        return l.unsupported(span, format!("character constant {raw}"));
    };
    let bytes = unescape(body).ok_or(()).or_else(|_| {
        l.invalid::<Vec<u8>>(span, format!("bad escape in character constant {raw}"))
    })?;
    match bytes.as_slice() {
        [b] => Ok(i128::from(*b as i8)),
        _ => l.unsupported(span, format!("multi-character constant {raw}")),
    }
}

/// The bytes of a (possibly concatenated) string literal, NUL included.
pub(crate) fn string_bytes(
    l: &Lowerer,
    pieces: &[String],
    span: lang_c::span::Span,
) -> LResult<Vec<u8>> {
    let mut out = Vec::new();
    for p in pieces {
        let Some(body) = p.strip_prefix('"').and_then(|r| r.strip_suffix('"')) else {
            return l.unsupported(span, format!("wide or prefixed string literal {p}"));
        };
        match unescape(body) {
            Some(b) => out.extend(b),
            None => return l.invalid(span, format!("bad escape in string literal {p}")),
        }
    }
    out.push(0);
    Ok(out)
}

/// Decodes C escapes.
fn unescape(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        i += 1;
        let c = *b.get(i)?;
        i += 1;
        let v = match c {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'v' => 11,
            b'\\' | b'\'' | b'"' | b'?' => c,
            b'x' => {
                let start = i;
                while i < b.len() && b[i].is_ascii_hexdigit() {
                    i += 1;
                }
                u32::from_str_radix(std::str::from_utf8(&b[start..i]).ok()?, 16).ok()? as u8
            }
            b'0'..=b'7' => {
                let start = i - 1;
                while i < b.len() && i < start + 3 && (b'0'..=b'7').contains(&b[i]) {
                    i += 1;
                }
                u32::from_str_radix(std::str::from_utf8(&b[start..i]).ok()?, 8).ok()? as u8
            }
            _ => return None,
        };
        out.push(v);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_decode() {
        assert_eq!(unescape(r"a\n\x41\101\0").unwrap(), b"a\nAA\0");
        assert_eq!(unescape(r"\\\'").unwrap(), b"\\'");
        assert!(unescape(r"\q").is_none());
    }

    #[test]
    fn int_conversion_wraps() {
        assert_eq!(convert_int(-1, IntType::UINT), 0xFFFF_FFFF);
        assert_eq!(convert_int(0x1_0000_0005, IntType::INT), 5);
        assert_eq!(convert_int(200, IntType::CHAR), -56);
        assert_eq!(convert_int(7, IntType::BOOL), 1);
    }
}
