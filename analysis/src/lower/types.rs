//! C types as the lowering sees them, with the layout of a data model.

use crate::ir::{DataModel, Scalar};

/// An integer type: width, signedness, and whether it is `_Bool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntType {
    pub bits: u8,
    pub signed: bool,
    pub is_bool: bool,
}

impl IntType {
    pub const fn new(bits: u8, signed: bool) -> IntType {
        IntType {
            bits,
            signed,
            is_bool: false,
        }
    }
    pub const BOOL: IntType = IntType {
        bits: 8,
        signed: false,
        is_bool: true,
    };
    pub const CHAR: IntType = IntType::new(8, true);
    pub const INT: IntType = IntType::new(32, true);
    pub const UINT: IntType = IntType::new(32, false);

    /// Conversion rank, by width (enough for C's rules when widths differ).
    fn rank(self) -> u8 {
        if self.is_bool {
            0
        } else {
            self.bits
        }
    }
}

/// Index into the struct/union table of the lowering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StructId(pub usize);

#[derive(Clone, Debug, PartialEq)]
pub struct FuncType {
    pub ret: CType,
    pub params: Vec<CType>,
    pub variadic: bool,
    /// False for an old-style declaration `f()` whose parameters are unknown.
    pub prototyped: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum CType {
    Void,
    Int(IntType),
    /// `float`, `double` (IEEE binary32/binary64), `long double` (bits 128: declarable,
    /// not computable).
    Float(u8),
    Ptr(Box<CType>),
    Array(Box<CType>, Option<u64>),
    /// A struct or a union.
    Struct(StructId),
    Func(Box<FuncType>),
}

impl CType {
    pub fn int() -> CType {
        CType::Int(IntType::INT)
    }

    pub fn ptr_to(t: CType) -> CType {
        CType::Ptr(Box::new(t))
    }

    pub fn is_integer(&self) -> bool {
        matches!(self, CType::Int(_))
    }

    pub fn is_pointer(&self) -> bool {
        matches!(self, CType::Ptr(_))
    }

    pub fn is_scalar(&self) -> bool {
        matches!(self, CType::Int(_) | CType::Ptr(_) | CType::Float(32 | 64))
    }

    pub fn is_void(&self) -> bool {
        matches!(self, CType::Void)
    }

    pub fn pointee(&self) -> Option<&CType> {
        match self {
            CType::Ptr(t) => Some(t),
            _ => None,
        }
    }

    /// The IR scalar of a scalar type.
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            CType::Int(i) => Some(Scalar::Int {
                bits: i.bits,
                signed: i.signed,
            }),
            CType::Ptr(_) => Some(Scalar::Ptr),
            // `long double` (x87 80-bit) has no IR scalar: it stays unsupported.
            CType::Float(bits @ (32 | 64)) => Some(Scalar::Float { bits: *bits }),
            _ => None,
        }
    }

    /// The type after array-to-pointer and function-to-pointer decay.
    pub fn decay(&self) -> CType {
        match self {
            CType::Array(elem, _) => CType::ptr_to((**elem).clone()),
            CType::Func(_) => CType::ptr_to(self.clone()),
            other => other.clone(),
        }
    }

    pub fn as_func(&self) -> Option<&FuncType> {
        match self {
            CType::Func(f) => Some(f),
            CType::Ptr(inner) => match &**inner {
                CType::Func(f) => Some(f),
                _ => None,
            },
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Field {
    pub name: Option<String>,
    pub ty: CType,
    pub offset: u64,
}

#[derive(Clone, Debug)]
pub struct StructDef {
    pub tag: Option<String>,
    pub is_union: bool,
    pub fields: Vec<Field>,
    pub size: u64,
    pub align: u64,
    pub complete: bool,
    /// Where a bit-field member (or a member of a struct type with one) stands: agx does
    /// not lay bit-fields out, so the first use of the type that needs its layout or
    /// members is an error there, and a type the program never uses (a header's) is fine.
    pub bitfield: Option<lang_c::span::Span>,
}

impl StructDef {
    /// Finds a member, looking into anonymous struct/union members too; returns the
    /// member's offset from the start and its type.
    pub fn member(&self, name: &str, structs: &[StructDef]) -> Option<(u64, CType)> {
        for f in &self.fields {
            match (&f.name, &f.ty) {
                (Some(n), _) if n == name => return Some((f.offset, f.ty.clone())),
                (None, CType::Struct(id)) => {
                    if let Some((off, ty)) = structs[id.0].member(name, structs) {
                        return Some((f.offset + off, ty));
                    }
                }
                _ => {}
            }
        }
        None
    }
}

/// Sizes, alignments and conversions under one data model.
pub struct Layout<'a> {
    pub dm: DataModel,
    pub structs: &'a [StructDef],
}

impl Layout<'_> {
    pub fn size(&self, t: &CType) -> Option<u64> {
        Some(match t {
            CType::Void => 1, // GNU: sizeof(void) == 1, for void* arithmetic
            CType::Int(i) => u64::from(i.bits / 8),
            CType::Float(bits) => u64::from(*bits / 8),
            CType::Ptr(_) => self.dm.pointer_bytes(),
            CType::Array(e, n) => self.size(e)? * (*n)?,
            CType::Struct(id) => {
                let s = &self.structs[id.0];
                if !s.complete {
                    return None;
                }
                s.size
            }
            CType::Func(_) => 1,
        })
    }

    pub fn align(&self, t: &CType) -> u64 {
        match t {
            CType::Int(i) => {
                let bytes = u64::from(i.bits / 8);
                // i386 SysV: 8-byte scalars are 4-aligned.
                if self.dm == DataModel::Ilp32 {
                    bytes.min(4)
                } else {
                    bytes
                }
            }
            CType::Float(bits) => {
                let bytes = u64::from(*bits / 8);
                if self.dm == DataModel::Ilp32 {
                    bytes.min(4)
                } else {
                    bytes.min(16)
                }
            }
            CType::Ptr(_) => self.dm.pointer_bytes(),
            CType::Array(e, _) => self.align(e),
            CType::Struct(id) => self.structs[id.0].align.max(1),
            CType::Void | CType::Func(_) => 1,
        }
    }

    /// Every scalar leaf of a type: `(offset, scalar)` in layout order.
    /// How many scalar cells [`Layout::leaves`] would list for `t` (saturating), computed
    /// without listing them, so an object too large to model is refused before its cells
    /// are materialized.
    pub fn cell_count(&self, t: &CType) -> u64 {
        match t {
            CType::Int(_) | CType::Ptr(_) | CType::Float(32 | 64) => 1,
            CType::Array(e, Some(n)) => self.cell_count(e).saturating_mul(*n),
            CType::Struct(id) => {
                let s = &self.structs[id.0];
                if s.is_union {
                    s.fields.first().map_or(0, |f| self.cell_count(&f.ty))
                } else {
                    s.fields
                        .iter()
                        .fold(0u64, |acc, f| acc.saturating_add(self.cell_count(&f.ty)))
                }
            }
            _ => 0,
        }
    }

    pub fn leaves(&self, t: &CType, base: u64, out: &mut Vec<(u64, Scalar)>) {
        match t {
            CType::Int(_) | CType::Ptr(_) | CType::Float(32 | 64) => {
                out.push((base, t.scalar().expect("scalar")))
            }
            CType::Array(e, Some(n)) => {
                let es = self.size(e).unwrap_or(0);
                for i in 0..*n {
                    self.leaves(e, base + i * es, out);
                }
            }
            CType::Struct(id) => {
                let s = &self.structs[id.0];
                if s.is_union {
                    // The first member is the one a zero-initialized union holds.
                    if let Some(f) = s.fields.first() {
                        self.leaves(&f.ty, base + f.offset, out);
                    }
                } else {
                    for f in &s.fields {
                        self.leaves(&f.ty, base + f.offset, out);
                    }
                }
            }
            _ => {}
        }
    }

    pub fn int_of(&self, bits: u8, signed: bool) -> CType {
        CType::Int(IntType::new(bits, signed))
    }

    /// `size_t`: unsigned, pointer-wide.
    pub fn size_t(&self) -> CType {
        self.int_of(self.dm.pointer_bits(), false)
    }

    /// `long` / `unsigned long`.
    pub fn long(&self, signed: bool) -> CType {
        self.int_of(self.dm.pointer_bits(), signed)
    }

    /// `ptrdiff_t`.
    pub fn ptrdiff_t(&self) -> CType {
        self.int_of(self.dm.pointer_bits(), true)
    }
}

/// C's integer promotion: types narrower than `int` become `int`.
pub fn promote(t: IntType) -> IntType {
    if t.bits < 32 || t.is_bool {
        IntType::INT
    } else {
        t
    }
}

/// C's usual arithmetic conversions on two (integer) operand types.
pub fn usual_arith(a: IntType, b: IntType) -> IntType {
    let (a, b) = (promote(a), promote(b));
    if a == b {
        return a;
    }
    if a.signed == b.signed {
        return if a.rank() >= b.rank() { a } else { b };
    }
    let (s, u) = if a.signed { (a, b) } else { (b, a) };
    if u.rank() >= s.rank() {
        u
    } else if s.bits > u.bits {
        s
    } else {
        IntType::new(s.bits, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_conversions_follow_c() {
        let i = IntType::INT;
        let u = IntType::UINT;
        let c = IntType::CHAR;
        let ll = IntType::new(64, true);
        let ul = IntType::new(64, false);
        assert_eq!(usual_arith(c, c), i);
        assert_eq!(usual_arith(i, u), u);
        assert_eq!(usual_arith(u, ll), ll);
        assert_eq!(usual_arith(ll, ul), ul);
        assert_eq!(usual_arith(IntType::BOOL, c), i);
    }

    #[test]
    fn ilp32_layout_aligns_long_long_to_four() {
        let structs = vec![StructDef {
            bitfield: None,
            tag: None,
            is_union: false,
            fields: vec![],
            size: 0,
            align: 1,
            complete: true,
        }];
        let l = Layout {
            dm: DataModel::Ilp32,
            structs: &structs,
        };
        let ll = CType::Int(IntType::new(64, true));
        assert_eq!(l.size(&ll), Some(8));
        assert_eq!(l.align(&ll), 4);
        assert_eq!(l.size(&CType::ptr_to(CType::int())), Some(4));
    }
}
