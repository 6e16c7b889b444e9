//! Floating-point terms: IEEE operations on bit-vector terms that hold float bit patterns,
//! their concrete evaluation (through `analysis::ir::float`, the interpreter's semantics)
//! and their translation to Z3's floating-point theory (`Float32`/`Float64`, rounding to
//! nearest even).
//!
//! A float stays a bit-vector in the engine (registers, cells, inputs), so loads, stores
//! and summaries need nothing new; each operation converts its operands with `to_fp` (a
//! reinterpretation of the bits) and its result back with `to_ieee_bv`. SMT-LIB has one
//! NaN without a bit pattern, so the NaN a result gets is chosen explicitly, as
//! `ir::float` does: the first NaN operand quieted, else x86's default NaN.

use analysis::ir::{float, sign_extend, truncate, BinOp};
use z3::ast::{Ast, Bool, Dynamic, Float, RoundingMode, BV};
use z3::Sort;

/// A floating-point operation. Unary operations are written with the operand twice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum FpOp {
    Add,
    Sub,
    Mul,
    Div,
    /// The IEEE square root (unary).
    Sqrt,
    /// IEEE equality (NaN unequal to everything, `-0 == +0`).
    Eq,
    Lt,
    Le,
    /// A signed (unsigned) integer to a float of the given width, rounded.
    FromSInt(u8),
    FromUInt(u8),
    /// A float to a signed (unsigned) integer of the given width, truncated toward zero;
    /// 0 when the value does not fit (the engine checks `Fits*` first).
    ToSInt(u8),
    ToUInt(u8),
    /// A float to a float of the given width.
    Resize(u8),
    /// Whether the float's truncation fits a signed (unsigned) integer of the width.
    FitsSInt(u8),
    FitsUInt(u8),
}

impl FpOp {
    pub fn is_bool(self) -> bool {
        matches!(
            self,
            FpOp::Eq | FpOp::Lt | FpOp::Le | FpOp::FitsSInt(_) | FpOp::FitsUInt(_)
        )
    }

    /// The width of the result given the first operand's width (1 for booleans).
    pub fn width(self, operand: u8) -> u8 {
        match self {
            FpOp::Add | FpOp::Sub | FpOp::Mul | FpOp::Div | FpOp::Sqrt => operand,
            FpOp::FromSInt(w)
            | FpOp::FromUInt(w)
            | FpOp::ToSInt(w)
            | FpOp::ToUInt(w)
            | FpOp::Resize(w) => w,
            _ => 1,
        }
    }

    fn bin_op(self) -> BinOp {
        match self {
            FpOp::Add => BinOp::Add,
            FpOp::Sub => BinOp::Sub,
            FpOp::Mul => BinOp::Mul,
            FpOp::Div => BinOp::Div,
            FpOp::Eq => BinOp::Eq,
            FpOp::Lt => BinOp::Lt,
            _ => BinOp::Le,
        }
    }

    /// The value on concrete operands (`a` of `width` bits); booleans are 0 or 1.
    pub fn eval(self, width: u8, a: u64, b: u64) -> u64 {
        match self {
            FpOp::Add | FpOp::Sub | FpOp::Mul | FpOp::Div => {
                float::arith(self.bin_op(), width, a, b).unwrap_or(0)
            }
            FpOp::Sqrt => float::sqrt(width, a),
            FpOp::Eq | FpOp::Lt | FpOp::Le => {
                u64::from(float::compare(self.bin_op(), width, a, b) == Some(true))
            }
            FpOp::FromSInt(to) => float::from_int(sign_extend(a, width) as u64, true, to),
            FpOp::FromUInt(to) => float::from_int(truncate(a, width), false, to),
            FpOp::ToSInt(n) => float::to_int(width, a, n, true).unwrap_or(0),
            FpOp::ToUInt(n) => float::to_int(width, a, n, false).unwrap_or(0),
            FpOp::Resize(to) => float::resize(width, to, a),
            FpOp::FitsSInt(n) => u64::from(float::to_int(width, a, n, true).is_some()),
            FpOp::FitsUInt(n) => u64::from(float::to_int(width, a, n, false).is_some()),
        }
    }

    /// The Z3 term of the operation on bit-vectors `a` (of `width` bits) and `b`.
    pub fn translate(self, width: u8, a: &BV, b: &BV) -> Dynamic {
        let rne = RoundingMode::round_nearest_ties_to_even();
        let rtz = RoundingMode::round_towards_zero();
        match self {
            FpOp::FromSInt(to) | FpOp::FromUInt(to) => {
                let f = from_int(a, matches!(self, FpOp::FromSInt(_)), to);
                ieee_bits(&f, to, &[]).into()
            }
            _ => {
                let (fa, fb) = (reinterpret(a, width), reinterpret(b, width));
                match self {
                    FpOp::Add => {
                        arith(&fa.add_with_rounding_mode(&fb, &rne), width, a, b, &fa, &fb)
                    }
                    FpOp::Sub => {
                        arith(&fa.sub_with_rounding_mode(&fb, &rne), width, a, b, &fa, &fb)
                    }
                    FpOp::Mul => {
                        arith(&fa.mul_with_rounding_mode(&fb, &rne), width, a, b, &fa, &fb)
                    }
                    FpOp::Div => {
                        arith(&fa.div_with_rounding_mode(&fb, &rne), width, a, b, &fa, &fb)
                    }
                    FpOp::Sqrt => {
                        ieee_bits(&fa.sqrt_with_rounding_mode(&rne), width, &[(a, &fa)]).into()
                    }
                    FpOp::Eq => fa.eq_fpa(&fb).into(),
                    FpOp::Lt => fa.lt(&fb).into(),
                    FpOp::Le => fa.le(&fb).into(),
                    FpOp::ToSInt(n) | FpOp::ToUInt(n) => {
                        let signed = matches!(self, FpOp::ToSInt(_));
                        let v = if signed {
                            fa.to_sbv_with_rounding_mode(&rtz, u32::from(n))
                        } else {
                            fa.to_ubv_with_rounding_mode(&rtz, u32::from(n))
                        };
                        fits(&fa, width, n, signed)
                            .ite(&v, &BV::from_u64(0, u32::from(n)))
                            .into()
                    }
                    FpOp::FitsSInt(n) => fits(&fa, width, n, true).into(),
                    FpOp::FitsUInt(n) => fits(&fa, width, n, false).into(),
                    FpOp::Resize(to) => resize(a, &fa, width, to).into(),
                    FpOp::FromSInt(_) | FpOp::FromUInt(_) => unreachable!("handled above"),
                }
            }
        }
    }
}

fn ctx() -> z3::Context {
    z3::Context::thread_local()
}

fn sort(width: u8) -> Sort {
    if width == 32 {
        Sort::float32()
    } else {
        Sort::double()
    }
}

/// The float whose IEEE bits are `bits` (`to_fp` of a bit-vector: no rounding).
fn reinterpret(bits: &BV, width: u8) -> Float {
    let c = ctx();
    let s = sort(width);
    // SAFETY: the context is this thread's Z3 context (the one every term of the engine
    // lives in), and the bit-vector and the sort are valid terms of it.
    unsafe {
        let raw =
            z3_sys::Z3_mk_fpa_to_fp_bv(c.get_z3_context(), bits.get_z3_ast(), s.get_z3_sort())
                .expect("Z3_mk_fpa_to_fp_bv");
        Float::wrap(&c, raw)
    }
}

/// An integer bit-vector converted to a `to`-bit float, rounded to nearest even.
fn from_int(bits: &BV, signed: bool, to: u8) -> Float {
    let c = ctx();
    let s = sort(to);
    let rne = RoundingMode::round_nearest_ties_to_even();
    // SAFETY: as in `reinterpret`.
    unsafe {
        let make = if signed {
            z3_sys::Z3_mk_fpa_to_fp_signed
        } else {
            z3_sys::Z3_mk_fpa_to_fp_unsigned
        };
        let raw = make(
            c.get_z3_context(),
            rne.get_z3_ast(),
            bits.get_z3_ast(),
            s.get_z3_sort(),
        )
        .expect("Z3_mk_fpa_to_fp_signed/unsigned");
        Float::wrap(&c, raw)
    }
}

/// The bits of `f`, with the NaN `ir::float` picks: the first NaN of `operands` (pairs of
/// bits and float) quieted, else the default NaN.
fn ieee_bits(f: &Float, width: u8, operands: &[(&BV, &Float)]) -> BV {
    let w = u32::from(width);
    let mut out = f
        .is_nan()
        .ite(&BV::from_u64(float::default_nan(width), w), &f.to_ieee_bv());
    let quiet = if width == 32 { 1u64 << 22 } else { 1u64 << 51 };
    for (bits, fl) in operands.iter().rev() {
        let quieted = bits.bvor(BV::from_u64(quiet, w));
        out = fl.is_nan().ite(&quieted, &out);
    }
    out
}

fn arith(r: &Float, width: u8, a: &BV, b: &BV, fa: &Float, fb: &Float) -> Dynamic {
    ieee_bits(r, width, &[(a, fa), (b, fb)]).into()
}

/// Whether `f` truncated toward zero fits an `n`-bit integer (compared as a double, which
/// holds every `float` exactly and the bounds `±2^k` exactly).
fn fits(f: &Float, width: u8, n: u8, signed: bool) -> Bool {
    let rtz = RoundingMode::round_towards_zero();
    let wide = if width == 32 {
        f.to_fp_with_rounding_mode(&rtz, &Sort::double())
    } else {
        f.clone()
    };
    let t = wide.round_to_integral_with_rounding_mode(&rtz);
    let top = 2f64.powi(i32::from(n) - i32::from(signed));
    let low = if signed { -top } else { 0.0 };
    Bool::and(&[t.ge(Float::from_f64(low)), t.lt(Float::from_f64(top))])
}

/// A `from`-bit float converted to `to` bits; a NaN keeps its sign and the top of its
/// payload, quieted (as `ir::float::resize`).
fn resize(bits: &BV, f: &Float, from: u8, to: u8) -> BV {
    if from == to {
        return bits.clone();
    }
    let rne = RoundingMode::round_nearest_ties_to_even();
    let converted = f.to_fp_with_rounding_mode(&rne, &sort(to)).to_ieee_bv();
    let sign = bits.extract(u32::from(from) - 1, u32::from(from) - 1);
    let nan = if to == 64 {
        sign.concat(BV::from_u64(0xFFF, 12))
            .concat(bits.extract(21, 0))
            .concat(BV::from_u64(0, 29))
    } else {
        let payload = bits.extract(51, 29);
        sign.concat(BV::from_u64(0x1FF, 9))
            .concat(payload.extract(21, 0))
    };
    f.is_nan().ite(&nan, &converted)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Special values and a few ordinary ones of each width, as bit patterns.
    fn samples(width: u8) -> Vec<u64> {
        let f = |x: f64| {
            if width == 32 {
                u64::from((x as f32).to_bits())
            } else {
                x.to_bits()
            }
        };
        let mut v: Vec<u64> = [0.0, -0.0, 1.0, -1.5, 0.1, 3.0, 1e30, -2.5e-5, f64::INFINITY]
            .iter()
            .map(|&x| f(x))
            .collect();
        v.extend([float::default_nan(width), 1, float::sign_bit(width) | 3]);
        // A signalling NaN with a payload.
        v.push(if width == 32 {
            0x7F80_0001
        } else {
            0x7FF0_0000_0000_0001
        });
        v.push(f(2147483648.0));
        v
    }

    fn z3_value(d: &Dynamic) -> u64 {
        let s = d.simplify();
        if let Some(b) = s.as_bool() {
            return u64::from(b.as_bool().expect("a constant boolean"));
        }
        s.as_bv()
            .and_then(|b| b.as_u64())
            .unwrap_or_else(|| panic!("not a constant: {s}"))
    }

    /// The differential test of the two semantics: every operation on every pair of
    /// sample values gives the same bits in `ir::float` (the interpreter) and in Z3.
    #[test]
    fn z3_agrees_with_the_interpreter_on_every_operation() {
        for width in [32u8, 64] {
            let ops = [
                FpOp::Add,
                FpOp::Sub,
                FpOp::Mul,
                FpOp::Div,
                FpOp::Sqrt,
                FpOp::Eq,
                FpOp::Lt,
                FpOp::Le,
                FpOp::ToSInt(32),
                FpOp::ToUInt(32),
                FpOp::ToSInt(64),
                FpOp::Resize(32),
                FpOp::Resize(64),
                FpOp::FitsSInt(32),
                FpOp::FitsUInt(8),
                FpOp::FitsSInt(64),
            ];
            let w = u32::from(width);
            for &a in &samples(width) {
                for &b in &samples(width) {
                    for op in ops {
                        let want = op.eval(width, a, b);
                        let got = z3_value(&op.translate(
                            width,
                            &BV::from_u64(a, w),
                            &BV::from_u64(b, w),
                        ));
                        assert_eq!(got, want, "{op:?} f{width} {a:#x} {b:#x}");
                    }
                }
            }
        }
    }

    #[test]
    fn integers_convert_with_one_rounding_in_both_semantics() {
        for (v, width) in [
            (16_777_217u64, 32u8),
            (u64::MAX, 64),
            (0x8000_0000, 32),
            (5, 8),
        ] {
            for op in [
                FpOp::FromSInt(32),
                FpOp::FromUInt(32),
                FpOp::FromSInt(64),
                FpOp::FromUInt(64),
            ] {
                let a = BV::from_u64(truncate(v, width), u32::from(width));
                let want = op.eval(width, truncate(v, width), 0);
                assert_eq!(
                    z3_value(&op.translate(width, &a, &a)),
                    want,
                    "{op:?} {v} {width}"
                );
            }
        }
    }
}
