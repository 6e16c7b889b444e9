//! Symbolic values and the register-only computations of the IR over them.
//!
//! A value is an integer term, a pointer with a concrete object and a symbolic offset,
//! or a function. This mirrors the interpreter's values (`concrete::value`): null is the
//! integer 0, an integer converted to a pointer stays an integer, pointer offsets are
//! 64-bit signed byte offsets, arithmetic wraps, shifts follow SMT-LIB.
//!
//! The evaluation is written once over an operand reader, so the same code computes a
//! statement's value in the forward run and its weakest-precondition transformer (where
//! operands read state variables instead of values).

use super::names::ObjInst;
use super::term::{BvOp, CmpOp, TermId, TermPool};
use crate::concrete::ViolationKind;
use analysis::ir::{BinOp, DataModel, FuncId, Operand, Rvalue, Scalar, UnOp};

/// Width of pointer offsets: the interpreter computes offsets as `i64`.
pub const OFFSET_BITS: u8 = 64;

/// A symbolic value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SVal {
    /// Integer bits; the term's width is the width of the value's type.
    Int(TermId),
    /// A pointer into a memory object at a 64-bit byte offset.
    Ptr {
        obj: ObjInst,
        off: TermId,
    },
    Func(FuncId),
}

/// The shape of a value without its integer parts: what must be equal for two states to
/// share a summary (see `summary`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Shape {
    Int(u8),
    Ptr(ObjInst),
    Func(FuncId),
}

impl SVal {
    pub fn shape(self, pool: &TermPool) -> Shape {
        match self {
            SVal::Int(t) => Shape::Int(pool.width(t)),
            SVal::Ptr { obj, .. } => Shape::Ptr(obj),
            SVal::Func(f) => Shape::Func(f),
        }
    }

    /// The integer part: the bits of an integer, the offset of a pointer.
    pub fn term(self) -> Option<TermId> {
        match self {
            SVal::Int(t) | SVal::Ptr { off: t, .. } => Some(t),
            SVal::Func(_) => None,
        }
    }

    /// As stored in a register or cell of type `ty`: integers are resized (truncated or
    /// zero-extended, as the interpreter keeps the low bits), pointers unchanged.
    pub fn fit(self, pool: &mut TermPool, ty: Scalar, dm: DataModel) -> SVal {
        match self {
            SVal::Int(t) => SVal::Int(pool.resize(t, ty.bits(dm), false)),
            other => other,
        }
    }
}

/// A condition under which evaluating something is a violation (division by zero ...).
#[derive(Clone, Debug)]
pub struct Check {
    /// The bad condition (a boolean term).
    pub bad: TermId,
    pub kind: ViolationKind,
    pub message: String,
}

/// Behaviour the interpreter reports as unsupported; the engine gives up on the path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported(pub String);

fn unsupported<T>(what: impl Into<String>) -> Result<T, Unsupported> {
    Err(Unsupported(what.into()))
}

/// A value and its weakest-precondition twin: the same value written over the state
/// variables (registers and cells where the step started), from which a step's
/// transformer is built. With summaries off the twin is the value itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Twin<T> {
    pub value: T,
    pub wp: T,
}

impl<T: Clone> Twin<T> {
    /// A value whose twin is itself (a constant, an input, a fresh address).
    pub fn same(value: T) -> Twin<T> {
        Twin {
            wp: value.clone(),
            value,
        }
    }
}

impl Twin<SVal> {
    /// The twin's integer part, or the value's where the twin has none.
    pub fn wp_term_or(&self, fallback: TermId) -> TermId {
        self.wp.term().unwrap_or(fallback)
    }
}

/// The result of an evaluation: a value valid where no check's bad condition holds.
#[derive(Clone, Debug)]
pub struct Evaluated {
    pub value: SVal,
    pub checks: Vec<Check>,
}

impl From<SVal> for Evaluated {
    fn from(value: SVal) -> Self {
        Evaluated {
            value,
            checks: Vec::new(),
        }
    }
}

/// Reads operands: the values of registers and address constants in the current frame.
pub trait Reader {
    fn read(&mut self, pool: &mut TermPool, op: &Operand) -> SVal;
}

/// Evaluates an rvalue other than `Uninit` (which needs an input) and `ThreadId` (which
/// needs the running thread): the caller handles those.
pub fn eval_rvalue(
    pool: &mut TermPool,
    dm: DataModel,
    rv: &Rvalue,
    r: &mut dyn Reader,
) -> Result<Evaluated, Unsupported> {
    if super::float_eval::touches_float(rv) {
        return eval_float(pool, dm, rv, r);
    }
    match rv {
        Rvalue::Use(op) => Ok(r.read(pool, op).into()),
        Rvalue::Unary { op, ty, arg } => {
            let a = r.read(pool, arg);
            unary(pool, dm, *op, *ty, a).map(Evaluated::from)
        }
        Rvalue::Binary { op, ty, lhs, rhs } => {
            let (a, b) = (r.read(pool, lhs), r.read(pool, rhs));
            binary(pool, dm, *op, *ty, a, b)
        }
        Rvalue::Cast { from, to, arg } => {
            let a = r.read(pool, arg);
            cast(pool, dm, *from, *to, a).map(Evaluated::from)
        }
        Rvalue::PtrAdd {
            base,
            index,
            index_ty,
            scale,
        } => {
            let (b, i) = (r.read(pool, base), r.read(pool, index));
            ptr_add(pool, dm, b, i, *index_ty, *scale).map(Evaluated::from)
        }
        Rvalue::PtrDiff { lhs, rhs, scale } => {
            let (a, b) = (r.read(pool, lhs), r.read(pool, rhs));
            ptr_diff(pool, dm, a, b, *scale).map(Evaluated::from)
        }
        Rvalue::Uninit(_) => unsupported("internal: Uninit evaluated without an input"),
        Rvalue::ThreadId => unsupported("internal: ThreadId evaluated without a thread"),
        Rvalue::MutexHeld(_) => unsupported("internal: MutexHeld evaluated without a thread"),
    }
}

/// A float `Unary`, `Binary` or `Cast` (see `float_eval`).
fn eval_float(
    pool: &mut TermPool,
    dm: DataModel,
    rv: &Rvalue,
    r: &mut dyn Reader,
) -> Result<Evaluated, Unsupported> {
    use super::float_eval as fe;
    match rv {
        Rvalue::Unary { op, ty, arg } => {
            let a = r.read(pool, arg);
            fe::unary(pool, *op, *ty, a).map(Evaluated::from)
        }
        Rvalue::Binary { op, ty, lhs, rhs } => {
            let (a, b) = (r.read(pool, lhs), r.read(pool, rhs));
            fe::binary(pool, *op, *ty, a, b).map(Evaluated::from)
        }
        Rvalue::Cast { from, to, arg } => {
            let a = r.read(pool, arg);
            fe::cast(pool, dm, *from, *to, a)
        }
        _ => unsupported("internal: not a float computation"),
    }
}

/// C truth of a value as a boolean term: non-zero integers, every pointer and function.
pub fn truth(pool: &mut TermPool, v: SVal) -> TermId {
    match v {
        SVal::Int(t) => pool.is_nonzero(t),
        SVal::Ptr { .. } | SVal::Func(_) => pool.tru(),
    }
}

fn int_of(pool: &mut TermPool, v: SVal, bits: u8) -> Result<TermId, Unsupported> {
    match v {
        SVal::Int(t) => Ok(pool.resize(t, bits, false)),
        _ => unsupported("arithmetic on a pointer value"),
    }
}

pub fn unary(
    pool: &mut TermPool,
    dm: DataModel,
    op: UnOp,
    ty: Scalar,
    a: SVal,
) -> Result<SVal, Unsupported> {
    let bits = ty.bits(dm);
    match op {
        UnOp::LogicalNot => {
            let t = truth(pool, a);
            let n = pool.not(t);
            Ok(SVal::Int(pool.bool_to_bv(n, 32)))
        }
        UnOp::Neg => {
            let x = int_of(pool, a, bits)?;
            Ok(SVal::Int(pool.neg(x)))
        }
        UnOp::Not => {
            let x = int_of(pool, a, bits)?;
            Ok(SVal::Int(pool.bnot(x)))
        }
        UnOp::Abs | UnOp::Sqrt => unsupported("`fabs`/`sqrt` of a non-float"),
    }
}

pub fn binary(
    pool: &mut TermPool,
    dm: DataModel,
    op: BinOp,
    ty: Scalar,
    a: SVal,
    b: SVal,
) -> Result<Evaluated, Unsupported> {
    if op.is_comparison() {
        let c = compare(pool, dm, op, ty, a, b)?;
        return Ok(SVal::Int(pool.bool_to_bv(c, 32)).into());
    }
    let Scalar::Int { bits, signed } = ty else {
        return unsupported(format!("arithmetic `{}` on a pointer value", op.symbol()));
    };
    let (x, y) = (int_of(pool, a, bits)?, int_of(pool, b, bits)?);
    let mut checks = Vec::new();
    let bv = match op {
        BinOp::Add => BvOp::Add,
        BinOp::Sub => BvOp::Sub,
        BinOp::Mul => BvOp::Mul,
        BinOp::Div | BinOp::Rem => {
            let zero = pool.bv_const(0, bits);
            let bad = pool.eq(y, zero);
            checks.push(Check {
                bad,
                kind: ViolationKind::DivisionByZero,
                message: "division by zero".into(),
            });
            match (op, signed) {
                (BinOp::Div, true) => BvOp::SDiv,
                (BinOp::Div, false) => BvOp::UDiv,
                (_, true) => BvOp::SRem,
                (_, false) => BvOp::URem,
            }
        }
        BinOp::Shl => BvOp::Shl,
        BinOp::Shr if signed => BvOp::AShr,
        BinOp::Shr => BvOp::LShr,
        BinOp::And => BvOp::And,
        BinOp::Or => BvOp::Or,
        BinOp::Xor => BvOp::Xor,
        _ => return unsupported(format!("`{}` is not arithmetic", op.symbol())),
    };
    // A division whose divisor is certainly zero has no value; any term will do, the
    // check ends the path.
    let value = if checks.iter().any(|c| pool.is_true(c.bad)) {
        pool.bv_const(0, bits)
    } else {
        pool.bin(bv, x, y)
    };
    Ok(Evaluated {
        value: SVal::Int(value),
        checks,
    })
}

/// A comparison as a boolean term.
pub fn compare(
    pool: &mut TermPool,
    dm: DataModel,
    op: BinOp,
    ty: Scalar,
    a: SVal,
    b: SVal,
) -> Result<TermId, Unsupported> {
    let (x, y, signed) = match (a, b) {
        (SVal::Int(x), SVal::Int(y)) => {
            let bits = ty.bits(dm);
            (
                pool.resize(x, bits, false),
                pool.resize(y, bits, false),
                ty.is_signed(),
            )
        }
        (SVal::Ptr { obj: o1, off: x }, SVal::Ptr { obj: o2, off: y }) if o1 == o2 => (x, y, true),
        (SVal::Func(f), SVal::Func(g)) => {
            let ord = f.cmp(&g);
            return Ok(pool.bool_const(ordering_holds(op, ord)));
        }
        (SVal::Ptr { .. }, SVal::Ptr { .. }) if matches!(op, BinOp::Eq | BinOp::Ne) => {
            return Ok(pool.bool_const(op == BinOp::Ne));
        }
        (SVal::Ptr { .. }, SVal::Ptr { .. }) => {
            return unsupported(
                "ordering comparison of pointers into different objects (their order is arbitrary)",
            )
        }
        _ if matches!(op, BinOp::Eq | BinOp::Ne) => return Ok(pool.bool_const(op == BinOp::Ne)),
        _ => {
            return unsupported(format!(
                "ordering comparison `{}` between a pointer and an integer or a function pointer",
                op.symbol()
            ))
        }
    };
    let (lt, le) = if signed {
        (CmpOp::Slt, CmpOp::Sle)
    } else {
        (CmpOp::Ult, CmpOp::Ule)
    };
    Ok(match op {
        BinOp::Eq => pool.eq(x, y),
        BinOp::Ne => pool.ne(x, y),
        BinOp::Lt => pool.cmp(lt, x, y),
        BinOp::Le => pool.cmp(le, x, y),
        BinOp::Gt => pool.cmp(lt, y, x),
        BinOp::Ge => pool.cmp(le, y, x),
        other => return unsupported(format!("`{}` is not a comparison", other.symbol())),
    })
}

fn ordering_holds(op: BinOp, ord: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match op {
        BinOp::Eq => ord == Equal,
        BinOp::Ne => ord != Equal,
        BinOp::Lt => ord == Less,
        BinOp::Le => ord != Greater,
        BinOp::Gt => ord == Greater,
        _ => ord != Less,
    }
}

pub fn cast(
    pool: &mut TermPool,
    dm: DataModel,
    from: Scalar,
    to: Scalar,
    a: SVal,
) -> Result<SVal, Unsupported> {
    match (a, to) {
        (SVal::Int(x), to) => {
            let x = pool.resize(x, from.bits(dm), false);
            Ok(SVal::Int(pool.resize(x, to.bits(dm), from.is_signed())))
        }
        (pointer, Scalar::Ptr) => Ok(pointer),
        (_, Scalar::Float { .. }) => unsupported("conversion of a pointer to a float"),
        (_, Scalar::Int { .. }) => {
            unsupported("conversion of an object or function pointer to an integer")
        }
    }
}

pub fn ptr_add(
    pool: &mut TermPool,
    dm: DataModel,
    base: SVal,
    index: SVal,
    index_ty: Scalar,
    scale: u64,
) -> Result<SVal, Unsupported> {
    let SVal::Int(i) = index else {
        return unsupported("a pointer used as an array index");
    };
    let i = pool.resize(i, index_ty.bits(dm), false);
    let wide = pool.resize(i, OFFSET_BITS, index_ty.is_signed());
    let k = pool.bv_const(scale, OFFSET_BITS);
    let delta = pool.bin(BvOp::Mul, wide, k);
    match base {
        SVal::Ptr { obj, off } => Ok(SVal::Ptr {
            obj,
            off: pool.bin(BvOp::Add, off, delta),
        }),
        SVal::Int(addr) => {
            let a = pool.resize(addr, OFFSET_BITS, false);
            let sum = pool.bin(BvOp::Add, a, delta);
            Ok(SVal::Int(pool.resize(sum, dm.pointer_bits(), false)))
        }
        SVal::Func(_) => unsupported("arithmetic on a function pointer"),
    }
}

pub fn ptr_diff(
    pool: &mut TermPool,
    dm: DataModel,
    a: SVal,
    b: SVal,
    scale: u64,
) -> Result<SVal, Unsupported> {
    let bits = dm.pointer_bits();
    let bytes = match (a, b) {
        (SVal::Ptr { obj: o1, off: x }, SVal::Ptr { obj: o2, off: y }) if o1 == o2 => {
            pool.bin(BvOp::Sub, x, y)
        }
        (SVal::Int(x), SVal::Int(y)) => {
            let (x, y) = (pool.resize(x, bits, false), pool.resize(y, bits, false));
            let d = pool.bin(BvOp::Sub, x, y);
            pool.resize(d, OFFSET_BITS, true)
        }
        _ => return unsupported("subtraction of pointers that do not point into the same object"),
    };
    if scale == 0 || scale > i64::MAX as u64 {
        return unsupported("pointer subtraction with element size 0");
    }
    let k = pool.bv_const(scale, OFFSET_BITS);
    let elements = pool.bin(BvOp::SDiv, bytes, k);
    Ok(SVal::Int(pool.resize(elements, bits, false)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbolic::names::ThreadKey;
    use crate::symbolic::term::Var;

    const DM: DataModel = DataModel::Ilp32;

    fn int(pool: &mut TermPool, v: i64, ty: Scalar) -> SVal {
        SVal::Int(pool.bv_const(v as u64, ty.bits(DM)))
    }

    #[test]
    fn constant_arithmetic_matches_the_interpreter() {
        let mut p = TermPool::new();
        let a = int(&mut p, -7, Scalar::I32);
        let b = int(&mut p, 2, Scalar::I32);
        let q = binary(&mut p, DM, BinOp::Div, Scalar::I32, a, b).unwrap();
        assert_eq!(q.value, int(&mut p, -3, Scalar::I32));
        assert!(q.checks.iter().all(|c| p.is_false(c.bad)));
        let r = binary(&mut p, DM, BinOp::Rem, Scalar::I32, a, b).unwrap();
        assert_eq!(r.value, int(&mut p, -1, Scalar::I32));
        let one = int(&mut p, 1, Scalar::I32);
        let big = int(&mut p, 32, Scalar::I32);
        let s = binary(&mut p, DM, BinOp::Shl, Scalar::I32, one, big).unwrap();
        assert_eq!(s.value, int(&mut p, 0, Scalar::I32));
    }

    #[test]
    fn division_by_a_symbolic_divisor_has_a_check() {
        let mut p = TermPool::new();
        let x = SVal::Int(p.var(
            Var::Input {
                thread: ThreadKey(0),
                index: 0,
            },
            32,
        ));
        let one = int(&mut p, 1, Scalar::I32);
        let q = binary(&mut p, DM, BinOp::Div, Scalar::I32, one, x).unwrap();
        assert_eq!(q.checks.len(), 1);
        assert_eq!(q.checks[0].kind, ViolationKind::DivisionByZero);
    }

    #[test]
    fn casts_extend_by_source_signedness() {
        let mut p = TermPool::new();
        let v = int(&mut p, 0xFF, Scalar::I8);
        let w = cast(&mut p, DM, Scalar::I8, Scalar::I32, v).unwrap();
        assert_eq!(w, SVal::Int(p.bv_const(0xFFFF_FFFF, 32)));
        let u = cast(&mut p, DM, Scalar::U8, Scalar::I32, v).unwrap();
        assert_eq!(u, SVal::Int(p.bv_const(0xFF, 32)));
    }

    #[test]
    fn pointers_compare_by_object_then_offset() {
        let mut p = TermPool::new();
        let z = p.bv_const(0, OFFSET_BITS);
        let four = p.bv_const(4, OFFSET_BITS);
        let a = SVal::Ptr {
            obj: ObjInst(1),
            off: z,
        };
        let b = SVal::Ptr {
            obj: ObjInst(1),
            off: four,
        };
        let c = SVal::Ptr {
            obj: ObjInst(2),
            off: z,
        };
        let lt = compare(&mut p, DM, BinOp::Lt, Scalar::Ptr, a, b).unwrap();
        assert!(p.is_true(lt));
        let eq = compare(&mut p, DM, BinOp::Eq, Scalar::Ptr, a, c).unwrap();
        assert!(p.is_false(eq));
        assert!(compare(&mut p, DM, BinOp::Lt, Scalar::Ptr, a, c).is_err());
        let null = int(&mut p, 0, Scalar::U32);
        let ne = compare(&mut p, DM, BinOp::Ne, Scalar::Ptr, a, null).unwrap();
        assert!(p.is_true(ne));
        let minus_one = int(&mut p, -1, Scalar::I32);
        let back = ptr_add(&mut p, DM, b, minus_one, Scalar::I32, 4).unwrap();
        assert_eq!(back, a);
    }
}
