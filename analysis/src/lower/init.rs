//! Initializers: walking brace lists (with designators and brace elision) down to the
//! scalar cells they set, for static objects (constants) and locals (statements).

use super::consts::string_bytes;
use super::types::CType;
use super::{LResult, Lowerer};
use crate::ir::{InitCell, Operand, Scalar};
use lang_c::ast::*;
use lang_c::span::{Node, Span as AstSpan};

/// What one scalar cell of an aggregate is initialized with.
pub(crate) enum Leaf<'a> {
    /// An expression converted to the cell's type.
    Expr(&'a Node<Expression>),
    /// A byte of a string literal initializing a `char` array.
    Byte(u8),
    /// A whole struct copied from an expression of the same struct type.
    Aggregate(&'a Node<Expression>),
}

/// A leaf at a byte offset, with the C type it initializes.
pub(crate) struct InitLeaf<'a> {
    pub offset: u64,
    pub ty: CType,
    pub leaf: Leaf<'a>,
}

/// Walks `init` for an object of type `ty`; returns the completed type (an array of
/// unknown size gets its size from the initializer) and the leaves in order.
pub(crate) fn walk<'a>(
    l: &mut Lowerer,
    ty: &CType,
    init: &'a Node<Initializer>,
) -> LResult<(CType, Vec<InitLeaf<'a>>)> {
    let mut out = Vec::new();
    let ty = match &init.node {
        Initializer::Expression(e) => {
            if let Some(n) = string_for_char_array(l, ty, e, 0, &mut out)? {
                complete(ty, n)
            } else if ty.is_scalar() {
                out.push(InitLeaf {
                    offset: 0,
                    ty: ty.clone(),
                    leaf: Leaf::Expr(e),
                });
                ty.clone()
            } else if matches!(ty, CType::Struct(_)) {
                out.push(InitLeaf {
                    offset: 0,
                    ty: ty.clone(),
                    leaf: Leaf::Aggregate(e),
                });
                ty.clone()
            } else {
                return l.invalid(init.span, "invalid initializer for an array");
            }
        }
        Initializer::List(items) => {
            let mut pos = 0;
            let n = walk_list(l, ty, items, &mut pos, 0, true, &mut out)?;
            if pos < items.len() {
                return l.invalid(items[pos].span, "excess elements in initializer");
            }
            complete(ty, n)
        }
    };
    Ok((ty, out))
}

fn complete(ty: &CType, n: u64) -> CType {
    match ty {
        CType::Array(e, None) => CType::Array(e.clone(), Some(n)),
        other => other.clone(),
    }
}

/// `char s[] = "abc"`: pushes the bytes and returns how many elements they fill.
fn string_for_char_array<'a>(
    l: &mut Lowerer,
    ty: &CType,
    e: &'a Node<Expression>,
    base: u64,
    out: &mut Vec<InitLeaf<'a>>,
) -> LResult<Option<u64>> {
    let (CType::Array(elem, len), Expression::StringLiteral(s)) = (ty, &e.node) else {
        return Ok(None);
    };
    let CType::Int(it) = **elem else {
        return Ok(None);
    };
    if it.bits != 8 {
        return Ok(None);
    }
    let bytes = string_bytes(l, &s.node, s.span)?;
    let n = len.unwrap_or(bytes.len() as u64);
    for (i, b) in bytes.iter().take(n as usize).enumerate() {
        out.push(InitLeaf {
            offset: base + i as u64,
            ty: (**elem).clone(),
            leaf: Leaf::Byte(*b),
        });
    }
    Ok(Some(n))
}

/// Fills an aggregate of type `ty` at `base` from `items[*pos..]`. `braced` is true when
/// the list is the aggregate's own brace list (designators apply here), false under brace
/// elision (the aggregate takes what it needs from its parent's list). Returns the number
/// of array elements initialized (for arrays of unknown size).
fn walk_list<'a>(
    l: &mut Lowerer,
    ty: &CType,
    items: &'a [Node<InitializerListItem>],
    pos: &mut usize,
    base: u64,
    braced: bool,
    out: &mut Vec<InitLeaf<'a>>,
) -> LResult<u64> {
    match ty {
        CType::Array(elem, len) => {
            let esize = l.size_of(elem, items.first().map_or(AstSpan::none(), |i| i.span))?;
            let (mut idx, mut count) = (0u64, 0u64);
            while *pos < items.len() {
                let item = &items[*pos];
                if !item.node.designation.is_empty() {
                    if !braced {
                        break;
                    }
                    let Designator::Index(ix) = &item.node.designation[0].node else {
                        return l.invalid(item.span, "member designator in an array initializer");
                    };
                    idx = match l.const_int(ix)? {
                        Some(i) if i >= 0 => i as u64,
                        _ => return l.invalid(ix.span, "array designator is not a constant"),
                    };
                    designated(l, elem, item, 1, base + idx * esize, out)?;
                    *pos += 1;
                } else {
                    if len.is_some_and(|n| idx >= n) {
                        if braced {
                            return l.invalid(item.span, "excess elements in array initializer");
                        }
                        break;
                    }
                    member(l, elem, items, pos, base + idx * esize, out)?;
                }
                idx += 1;
                count = count.max(idx);
            }
            Ok(count)
        }
        CType::Struct(id) => {
            let fields = l.structs[id.0].fields.clone();
            let is_union = l.structs[id.0].is_union;
            let mut k = 0;
            while *pos < items.len() {
                let item = &items[*pos];
                if let Some(d) = item.node.designation.first() {
                    if !braced {
                        break;
                    }
                    let Designator::Member(name) = &d.node else {
                        return l.invalid(item.span, "index designator in a struct initializer");
                    };
                    let Some(i) = fields
                        .iter()
                        .position(|f| f.name.as_deref() == Some(name.node.name.as_str()))
                    else {
                        return l.unsupported(
                            name.span,
                            format!(
                                "designator `.{}` of a nested anonymous member",
                                name.node.name
                            ),
                        );
                    };
                    designated(l, &fields[i].ty, item, 1, base + fields[i].offset, out)?;
                    *pos += 1;
                    k = i + 1;
                } else {
                    if k >= fields.len() || (is_union && k >= 1) {
                        if braced {
                            return l.invalid(item.span, "excess elements in struct initializer");
                        }
                        break;
                    }
                    member(l, &fields[k].ty, items, pos, base + fields[k].offset, out)?;
                    k += 1;
                }
            }
            Ok(1)
        }
        _ if ty.is_scalar() => {
            // `int x = { 5 };`
            if *pos < items.len() {
                member(l, ty, items, pos, base, out)?;
            }
            Ok(1)
        }
        _ => l.unsupported(
            items.first().map_or(AstSpan::none(), |i| i.span),
            "initializer for this type",
        ),
    }
}

/// Initializes one member (of type `ty` at `base`) from `items[*pos]`, taking more items
/// under brace elision.
fn member<'a>(
    l: &mut Lowerer,
    ty: &CType,
    items: &'a [Node<InitializerListItem>],
    pos: &mut usize,
    base: u64,
    out: &mut Vec<InitLeaf<'a>>,
) -> LResult<()> {
    let item = &items[*pos];
    match &item.node.initializer.node {
        Initializer::List(sub) => {
            *pos += 1;
            let mut p = 0;
            walk_list(l, ty, sub, &mut p, base, true, out)?;
            if p < sub.len() {
                return l.invalid(sub[p].span, "excess elements in initializer");
            }
        }
        Initializer::Expression(e) => {
            if string_for_char_array(l, ty, e, base, out)?.is_some() {
                *pos += 1;
            } else if ty.is_scalar() {
                out.push(InitLeaf {
                    offset: base,
                    ty: ty.clone(),
                    leaf: Leaf::Expr(e),
                });
                *pos += 1;
            } else if matches!(ty, CType::Struct(_)) && l.expr_type(e)? == *ty {
                out.push(InitLeaf {
                    offset: base,
                    ty: ty.clone(),
                    leaf: Leaf::Aggregate(e),
                });
                *pos += 1;
            } else {
                walk_list(l, ty, items, pos, base, false, out)?;
            }
        }
    }
    Ok(())
}

/// An item with designators `designation[from..]` applied below `ty` at `base`.
fn designated<'a>(
    l: &mut Lowerer,
    ty: &CType,
    item: &'a Node<InitializerListItem>,
    from: usize,
    base: u64,
    out: &mut Vec<InitLeaf<'a>>,
) -> LResult<()> {
    let (mut ty, mut base) = (ty.clone(), base);
    for d in &item.node.designation[from..] {
        match &d.node {
            Designator::Member(name) => {
                let (off, fty) = l.member_of(&ty, &name.node.name, name.span)?;
                base += off;
                ty = fty;
            }
            Designator::Index(ix) => {
                let CType::Array(elem, _) = ty.clone() else {
                    return l.invalid(d.span, "index designator into a non-array");
                };
                let Some(i) = l.const_int(ix)? else {
                    return l.invalid(ix.span, "array designator is not a constant");
                };
                base += i as u64 * l.size_of(&elem, d.span)?;
                ty = *elem;
            }
            Designator::Range(_) => return l.unsupported(d.span, "range designator"),
        }
    }
    let single = std::slice::from_ref(item);
    let mut p = 0;
    match &item.node.initializer.node {
        Initializer::List(sub) => {
            let mut q = 0;
            walk_list(l, &ty, sub, &mut q, base, true, out)?;
            Ok(())
        }
        Initializer::Expression(_) if ty.is_scalar() || matches!(ty, CType::Array(..)) => {
            // Reuse `member` on a one-item list without the designators.
            member_undesignated(l, &ty, single, &mut p, base, out)
        }
        Initializer::Expression(e) => {
            out.push(InitLeaf {
                offset: base,
                ty,
                leaf: Leaf::Aggregate(e),
            });
            Ok(())
        }
    }
}

fn member_undesignated<'a>(
    l: &mut Lowerer,
    ty: &CType,
    items: &'a [Node<InitializerListItem>],
    pos: &mut usize,
    base: u64,
    out: &mut Vec<InitLeaf<'a>>,
) -> LResult<()> {
    let Initializer::Expression(e) = &items[*pos].node.initializer.node else {
        unreachable!("caller checked for an expression");
    };
    if string_for_char_array(l, ty, e, base, out)?.is_some() {
        return Ok(());
    }
    if ty.is_scalar() {
        out.push(InitLeaf {
            offset: base,
            ty: ty.clone(),
            leaf: Leaf::Expr(e),
        });
        return Ok(());
    }
    l.unsupported(items[*pos].span, "designated array member without braces")
}

/// The static initializer of a global or `static` local: constant cells only.
pub(crate) fn static_initializer(
    l: &mut Lowerer,
    ty: &CType,
    init: &Node<Initializer>,
) -> LResult<(CType, Vec<InitCell>)> {
    let (ty, leaves) = walk(l, ty, init)?;
    let mut cells = Vec::new();
    for leaf in leaves {
        let scalar = leaf.ty.scalar();
        let value = match (leaf.leaf, scalar) {
            (Leaf::Byte(b), Some(s)) => Operand::int(i128::from(b as i8), s),
            (Leaf::Expr(e), Some(_)) => l.const_value(e, &leaf.ty)?,
            (Leaf::Expr(e) | Leaf::Aggregate(e), _) => {
                return l.unsupported(e.span, "static initializer copying an aggregate")
            }
            (Leaf::Byte(_), None) => continue,
        };
        let is_zero = matches!(value, Operand::Int { bits: 0, .. } | Operand::Null);
        if !is_zero {
            cells.push(InitCell {
                offset: leaf.offset,
                ty: scalar.unwrap_or(Scalar::I8),
                value,
            });
        }
    }
    Ok((ty, cells))
}
