//! What `printf` writes for one conversion, as glibc writes it: flags (`- + space # 0`),
//! a width and a precision, on integers, strings and doubles (`%f %e %g` and their
//! upper-case forms). A pure function of the converted value, shared by the interpreter
//! and its tests.
//!
//! Doubles: Rust's `{:.N}` and `{:.Ne}` give the exactly rounded decimal digits of the
//! binary value, ties to even, as glibc in the default rounding mode; this module adds
//! glibc's layout (`e+05`, `%g`'s choice and trailing-zero removal, `inf`/`-nan`).

use serde::Serialize;

/// The flags, width and precision of a conversion (`%-08.3f` has `minus`, `zero`, width 8,
/// precision 3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ConvSpec {
    /// `-`: left-justify in the width.
    pub minus: bool,
    /// `+`: a `+` before non-negative signed numbers.
    pub plus: bool,
    /// ` `: a space before non-negative signed numbers (`+` wins).
    pub space: bool,
    /// `#`: the alternate form (`0x` prefix, a leading `0` for `%o`, a kept decimal point).
    pub alt: bool,
    /// `0`: pad numbers with zeros after the sign (ignored with `-`, and for integers when
    /// a precision is given).
    pub zero: bool,
    pub width: Option<u32>,
    pub precision: Option<u32>,
}

impl ConvSpec {
    /// No flag, width or precision: the plain `%d`.
    pub fn is_plain(&self) -> bool {
        *self == ConvSpec::default()
    }
}

impl std::fmt::Display for ConvSpec {
    /// The spec as written in a format (`-08.3`), empty when plain.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (on, c) in [
            (self.minus, '-'),
            (self.plus, '+'),
            (self.space, ' '),
            (self.alt, '#'),
            (self.zero, '0'),
        ] {
            if on {
                write!(f, "{c}")?;
            }
        }
        if let Some(w) = self.width {
            write!(f, "{w}")?;
        }
        if let Some(p) = self.precision {
            write!(f, ".{p}")?;
        }
        Ok(())
    }
}

/// `prefix` (sign, `0x`) and `body` padded to the width: spaces on the left (or on the
/// right with `-`), or zeros between prefix and body when `zeros`.
fn pad(spec: &ConvSpec, prefix: &str, body: &str, zeros: bool) -> String {
    let len = prefix.len() + body.len();
    let fill = (spec.width.unwrap_or(0) as usize).saturating_sub(len);
    if spec.minus {
        format!("{prefix}{body}{}", " ".repeat(fill))
    } else if zeros {
        format!("{prefix}{}{body}", "0".repeat(fill))
    } else {
        format!("{}{prefix}{body}", " ".repeat(fill))
    }
}

/// The sign prefix of a number: `-`, or `+`/` ` as the flags ask.
fn sign(spec: &ConvSpec, negative: bool) -> &'static str {
    if negative {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    }
}

/// An integer conversion (`d i u x X o`) of `value`: `negative` and the magnitude for the
/// signed conversions, the unsigned value otherwise. `None` for another conversion.
pub fn integer(spec: &ConvSpec, conv: char, negative: bool, magnitude: u64) -> Option<String> {
    let mut digits = match conv {
        'd' | 'i' | 'u' => magnitude.to_string(),
        'x' => format!("{magnitude:x}"),
        'X' => format!("{magnitude:X}"),
        'o' => format!("{magnitude:o}"),
        _ => return None,
    };
    if spec.precision == Some(0) && magnitude == 0 {
        digits.clear();
    }
    if let Some(p) = spec.precision {
        let p = p as usize;
        if digits.len() < p {
            digits = format!("{}{digits}", "0".repeat(p - digits.len()));
        }
    }
    let prefix = match conv {
        'd' | 'i' => sign(spec, negative),
        'x' if spec.alt && magnitude != 0 => "0x",
        'X' if spec.alt && magnitude != 0 => "0X",
        _ => "",
    };
    if conv == 'o' && spec.alt && !digits.starts_with('0') {
        digits.insert(0, '0');
    }
    let zeros = spec.zero && !spec.minus && spec.precision.is_none();
    Some(pad(spec, prefix, &digits, zeros))
}

/// `%s` (bytes cut at the precision) or `%c`, padded to the width.
pub fn text(spec: &ConvSpec, bytes: &[u8]) -> Vec<u8> {
    let cut = spec
        .precision
        .map_or(bytes.len(), |p| bytes.len().min(p as usize));
    let body = &bytes[..cut];
    let fill = (spec.width.unwrap_or(0) as usize).saturating_sub(body.len());
    let spaces = vec![b' '; fill];
    if spec.minus {
        [body, &spaces].concat()
    } else {
        [&spaces, body].concat()
    }
}

/// A floating-point conversion (`f F e E g G`) of `x`; `None` for another conversion.
pub fn double(spec: &ConvSpec, conv: char, x: f64) -> Option<String> {
    let upper = conv.is_ascii_uppercase();
    let negative = x.is_sign_negative();
    let body = if x.is_nan() || x.is_infinite() {
        let word = if x.is_nan() { "nan" } else { "inf" };
        let word = if upper {
            word.to_ascii_uppercase()
        } else {
            word.to_string()
        };
        // glibc pads infinities and NaNs with spaces even with `0`.
        return matches!(conv.to_ascii_lowercase(), 'f' | 'e' | 'g')
            .then(|| pad(spec, sign(spec, negative), &word, false));
    } else {
        let a = x.abs();
        let precision = spec.precision.unwrap_or(6) as usize;
        match conv.to_ascii_lowercase() {
            'f' => fixed(a, precision, spec.alt),
            'e' => scientific(a, precision, spec.alt),
            'g' => general(a, precision, spec.alt),
            _ => return None,
        }
    };
    let body = if upper {
        body.to_ascii_uppercase()
    } else {
        body
    };
    Some(pad(
        spec,
        sign(spec, negative),
        &body,
        spec.zero && !spec.minus,
    ))
}

/// `%f` of a non-negative finite `a`.
fn fixed(a: f64, precision: usize, alt: bool) -> String {
    let mut s = format!("{a:.precision$}");
    if alt && precision == 0 {
        s.push('.');
    }
    s
}

/// `%e` of a non-negative finite `a`: `d.ddde+XX`, at least two exponent digits.
fn scientific(a: f64, precision: usize, alt: bool) -> String {
    let (mantissa, exp) = split_exponent(a, precision);
    let point = if alt && precision == 0 { "." } else { "" };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}{point}e{sign}{:02}", exp.unsigned_abs())
}

/// The mantissa digits and the decimal exponent of `a` rounded to `precision` digits
/// after the point (the exponent after rounding: 9.99 at precision 1 is `1.0`, 1).
fn split_exponent(a: f64, precision: usize) -> (String, i32) {
    let s = format!("{a:.precision$e}");
    let (mantissa, exp) = s
        .split_once('e')
        .expect("Rust's `e` format has an exponent");
    (
        mantissa.to_string(),
        exp.parse().expect("Rust's exponent is an integer"),
    )
}

/// `%g` of a non-negative finite `a`: `%e` when the exponent X (after rounding to P
/// significant digits) is below -4 or at least P, else `%f` with P-1-X decimals; trailing
/// zeros (and a trailing point) removed unless `#`. glibc's one departure from C: when
/// the rounding carries a value with exponent P-1 to P (`%#.2g` of 99.6), it prints `%e`
/// with no decimals (`1.e+02`, not `1.0e+02`); only `#` shows it.
fn general(a: f64, precision: usize, alt: bool) -> String {
    let p = precision.max(1);
    let (_, x) = split_exponent(a, p - 1);
    let (_, unrounded) = split_exponent_shortest(a);
    let s = if x == p as i32 && unrounded == x - 1 {
        scientific(a, 0, alt)
    } else if x < -4 || x >= p as i32 {
        scientific(a, p - 1, alt)
    } else {
        fixed(a, (p as i32 - 1 - x) as usize, alt)
    };
    if alt {
        return s;
    }
    match s.split_once('e') {
        Some((m, e)) => format!("{}e{e}", strip_zeros(m)),
        None => strip_zeros(&s).to_string(),
    }
}

/// The decimal exponent of `a` itself (Rust's shortest round-trip digits never round a
/// value across a power of ten, as the result must read back as `a`).
fn split_exponent_shortest(a: f64) -> (String, i32) {
    let s = format!("{a:e}");
    let (mantissa, exp) = s
        .split_once('e')
        .expect("Rust's `e` format has an exponent");
    (
        mantissa.to_string(),
        exp.parse().expect("Rust's exponent is an integer"),
    )
}

/// `1.500` → `1.5`, `2.000` → `2`; a number without a point is unchanged.
fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(s: &str) -> ConvSpec {
        let mut c = ConvSpec::default();
        let mut rest = s;
        while let Some(f) = rest.chars().next().filter(|f| "-+ #0".contains(*f)) {
            match f {
                '-' => c.minus = true,
                '+' => c.plus = true,
                ' ' => c.space = true,
                '#' => c.alt = true,
                _ => c.zero = true,
            }
            rest = &rest[1..];
        }
        let (w, p) = rest
            .split_once('.')
            .map_or((rest, None), |(w, p)| (w, Some(p)));
        c.width = w.parse().ok();
        c.precision = p.map(|p| p.parse().unwrap_or(0));
        assert_eq!(c.to_string(), s, "the spec prints back");
        c
    }

    /// Expected strings are glibc's (printed by a C program compiled with gcc).
    #[test]
    fn doubles_print_as_glibc_prints_them() {
        let cases: &[(&str, char, f64, &str)] = &[
            ("", 'f', 0.1, "0.100000"),
            ("", 'f', -0.0, "-0.000000"),
            (".2", 'f', 0.125, "0.12"),
            (".0", 'f', 2.5, "2"),
            ("#.0", 'f', 3.0, "3."),
            ("010.3", 'f', -3.14259, "-00003.143"),
            ("-10.1", 'f', 2.25, "2.2       "),
            ("+", 'f', 1.0, "+1.000000"),
            ("", 'e', 12345.678, "1.234568e+04"),
            (".2", 'E', 1e-300, "1.00E-300"),
            ("", 'e', 0.0, "0.000000e+00"),
            ("", 'g', 0.1, "0.1"),
            ("", 'g', 100000.0, "100000"),
            ("", 'g', 1000000.0, "1e+06"),
            ("", 'g', 0.0001, "0.0001"),
            ("", 'g', 0.00001, "1e-05"),
            (".3", 'g', 9999.0, "1e+04"),
            ("#", 'g', 1.5, "1.50000"),
            ("#.2", 'g', 99.6, "1.e+02"),
            ("#.3", 'g', 999.6, "1.e+03"),
            ("#.3", 'g', 99.96, "100."),
            ("#.4", 'g', 99999.7, "1.000e+05"),
            ("#.2", 'g', 0.0000996, "0.00010"),
            (".0", 'g', 0.5, "0.5"),
            ("", 'g', 0.30000000000000004, "0.3"),
            (".17", 'g', 0.30000000000000004, "0.30000000000000004"),
            ("", 'G', 1e-10, "1E-10"),
            ("", 'g', 0.0, "0"),
            ("08", 'f', f64::INFINITY, "     inf"),
            ("", 'f', f64::NEG_INFINITY, "-inf"),
            ("", 'F', f64::NAN, "NAN"),
            ("", 'g', -f64::NAN, "-nan"),
        ];
        for &(s, conv, x, want) in cases {
            assert_eq!(
                double(&spec(s), conv, x).as_deref(),
                Some(want),
                "%{s}{conv} of {x}"
            );
        }
    }

    #[test]
    fn integers_and_strings_take_flags_width_and_precision() {
        let cases: &[(&str, char, bool, u64, &str)] = &[
            ("5", 'd', true, 42, "  -42"),
            ("-5", 'd', false, 42, "42   "),
            ("05", 'd', true, 42, "-0042"),
            ("05.3", 'd', false, 7, "  007"),
            (".0", 'd', false, 0, ""),
            ("+", 'i', false, 3, "+3"),
            (" ", 'd', false, 3, " 3"),
            ("#", 'x', false, 255, "0xff"),
            ("#", 'x', false, 0, "0"),
            ("#08", 'X', false, 255, "0X0000FF"),
            ("#", 'o', false, 8, "010"),
            ("+", 'u', false, 3, "3"),
        ];
        for &(s, conv, neg, m, want) in cases {
            assert_eq!(
                integer(&spec(s), conv, neg, m).as_deref(),
                Some(want),
                "%{s}{conv}"
            );
        }
        assert_eq!(text(&spec("6.2"), b"hello"), b"    he");
        assert_eq!(text(&spec("-3"), b"a"), b"a  ");
    }
}
