//! Floating point three ways: random double expressions (`+ - * /`, unary `-`, `fabs`,
//! `sqrtf`, float/double conversions, comparisons, `?:`) over inputs of chosen bit
//! patterns (NaNs, infinities, zeros of both signs, subnormals among them), computed by
//! gcc (the truth: SSE2 at -O0), by `agx run` (the interpreter, `ir::float`) and proved
//! by `agx verify` (Z3's FP theory, the inputs being solver variables pinned by an
//! assumption on their bits, so nothing is folded). gcc's bits of the result must be what
//! the interpreter prints and what the symbolic engine proves (`SAFE`).
//!
//! Skipped, with a message, when gcc is not installed. `AGX_FLOAT_PROGRAMS=N` checks N
//! programs (default 12); `AGX_FLOAT_SEED=S` starts at seed S.

use std::path::Path;
use std::process::Command;

/// A small deterministic generator (xorshift64*), so that a seed names a program.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Interesting doubles (as bits): zeros, a NaN with a payload, infinities, a subnormal,
/// the largest double, inexact decimals.
const DOUBLES: [u64; 12] = [
    0x3FF8_0000_0000_0000, // 1.5
    0x8000_0000_0000_0000, // -0.0
    0x3FB9_9999_9999_999A, // 0.1
    0x7FEF_FFFF_FFFF_FFFF, // DBL_MAX
    0xC00A_0000_0000_0000, // -3.25
    0x401C_0000_0000_0000, // 7.0
    0x7FF0_0000_0000_0000, // inf
    0x7FF8_0000_0000_0123, // NaN with a payload
    0x0000_0000_0000_0001, // the smallest subnormal
    0x3FD5_5555_5555_5555, // 1/3
    0x4197_D784_0000_0000, // 1e8
    0xBFF0_0000_0000_0000, // -1.0
];

const FLOATS: [u32; 6] = [
    0x3DCC_CCCD, // 0.1f
    0x8000_0000, // -0.0f
    0x7F80_0000, // inf
    0x4049_0FDB, // pi
    0x0000_0001, // subnormal
    0xC2C8_0000, // -100
];

/// A double expression of at most `depth` levels over `a`, `b` (double), `c` (float),
/// `i` (int).
fn expr(rng: &mut Rng, depth: u32) -> String {
    if depth == 0 || rng.below(4) == 0 {
        return [
            "a",
            "b",
            "(double)c",
            "(double)i",
            "0.1",
            "-2.5",
            "1e300",
            "3.0",
        ][rng.below(8)]
        .to_string();
    }
    let mut sub = || expr(rng, depth - 1);
    let (x, y) = (sub(), sub());
    match rng.below(10) {
        0 => format!("({x} + {y})"),
        1 => format!("({x} - {y})"),
        2 => format!("({x} * {y})"),
        3 => format!("({x} / {y})"),
        4 => format!("(- {x})"),
        5 => format!("fabs({x})"),
        6 => format!("(double)(float)({x})"),
        7 => format!("(double)sqrtf((float)({x}))"),
        8 => format!("({x} < {y} ? {x} : {y})"),
        _ => format!("(double)({x} == {y})"),
    }
}

struct Case {
    a: u64,
    b: u64,
    c: u32,
    i: i32,
    expr: String,
}

const HELPERS: &str = "#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
extern double __VERIFIER_nondet_double(void);
extern float __VERIFIER_nondet_float(void);
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int);
static double d_of(unsigned long long u) { double d; memcpy(&d, &u, sizeof d); return d; }
static float f_of(unsigned u) { float f; memcpy(&f, &u, sizeof f); return f; }
static unsigned long long dbits(double d) { unsigned long long u; memcpy(&u, &d, sizeof u); return u; }
static unsigned fbits(float f) { unsigned u; memcpy(&u, &f, sizeof u); return u; }
";

impl Case {
    /// The program with the inputs as constants, printing the result's bits.
    fn concrete(&self) -> String {
        format!(
            "{HELPERS}int main(void) {{
    double a = d_of({:#x}ULL), b = d_of({:#x}ULL);
    float c = f_of({:#x}U);
    int i = {};
    double r = {};
    printf(\"%llx\\n\", dbits(r));
    (void)fbits;
    return 0;
}}
",
            self.a, self.b, self.c, self.i, self.expr
        )
    }

    /// The program with the inputs as solver variables pinned to the same bits, asserting
    /// the result `want`.
    fn symbolic(&self, want: u64) -> String {
        format!(
            "{HELPERS}int main(void) {{
    double a = __VERIFIER_nondet_double();
    __VERIFIER_assume(dbits(a) == {:#x}ULL);
    double b = __VERIFIER_nondet_double();
    __VERIFIER_assume(dbits(b) == {:#x}ULL);
    float c = __VERIFIER_nondet_float();
    __VERIFIER_assume(fbits(c) == {:#x}U);
    int i = __VERIFIER_nondet_int();
    __VERIFIER_assume(i == {});
    double r = {};
    assert(dbits(r) == {want:#x}ULL);
    (void)d_of;
    (void)f_of;
    return 0;
}}
",
            self.a, self.b, self.c, self.i, self.expr
        )
    }
}

fn gcc_available() -> bool {
    Command::new("gcc").arg("--version").output().is_ok()
}

fn gcc_result(dir: &Path, source: &str) -> Result<u64, String> {
    let c = dir.join("native.c");
    let exe = dir.join("native");
    std::fs::write(&c, source).map_err(|e| e.to_string())?;
    let cc = Command::new("gcc")
        .args(["-m64", "-w", "-O0", "-o"])
        .arg(&exe)
        .arg(&c)
        .arg("-lm")
        .output()
        .map_err(|e| e.to_string())?;
    if !cc.status.success() {
        return Err(format!("gcc: {}", String::from_utf8_lossy(&cc.stderr)));
    }
    let run = Command::new(&exe).output().map_err(|e| e.to_string())?;
    parse_bits(&run.stdout)
}

fn parse_bits(out: &[u8]) -> Result<u64, String> {
    let text = String::from_utf8_lossy(out);
    u64::from_str_radix(text.trim(), 16).map_err(|_| format!("not hex bits: {text:?}"))
}

fn agx(dir: &Path, name: &str, source: &str, args: &[&str]) -> std::process::Output {
    let file = dir.join(name);
    std::fs::write(&file, source).expect("write the program");
    Command::new(env!("CARGO_BIN_EXE_agx"))
        .args(args)
        .args(["--data-model", "lp64"])
        .arg(&file)
        .output()
        .expect("run agx")
}

#[test]
fn interpreter_and_solver_compute_gccs_bits() {
    if !gcc_available() {
        eprintln!("skipped: gcc is not installed (the test compares agx with gcc)");
        return;
    }
    let count: u64 = std::env::var("AGX_FLOAT_PROGRAMS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(12);
    let first: u64 = std::env::var("AGX_FLOAT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let dir = std::env::temp_dir().join(format!("agx-float-diff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let mut failures = Vec::new();
    for seed in first..first + count {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let case = Case {
            a: DOUBLES[rng.below(DOUBLES.len())],
            b: DOUBLES[rng.below(DOUBLES.len())],
            c: FLOATS[rng.below(FLOATS.len())],
            i: [0, 1, -7, 1 << 30][rng.below(4)],
            expr: expr(&mut rng, 4),
        };
        let want = match gcc_result(&dir, &case.concrete()) {
            Ok(w) => w,
            Err(e) => panic!("seed {seed}: {e}"),
        };
        let run = agx(&dir, &format!("run{seed}.c"), &case.concrete(), &["run"]);
        match parse_bits(&run.stdout) {
            Ok(got) if got == want => {}
            got => failures.push(format!(
                "seed {seed}: agx run gives {got:x?}, gcc {want:#x} for {}",
                case.expr
            )),
        }
        let file = format!("verify{seed}.c");
        let verify = agx(&dir, &file, &case.symbolic(want), &["verify"]);
        if verify.status.code() != Some(0) {
            failures.push(format!(
                "seed {seed}: agx verify of {} (gcc: {want:#x}) says {}",
                dir.join(&file).display(),
                String::from_utf8_lossy(&verify.stdout)
                    .lines()
                    .next()
                    .unwrap_or("")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let _ = std::fs::remove_dir_all(&dir);
}
