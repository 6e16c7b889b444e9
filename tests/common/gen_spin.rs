//! Random programs built around the waits issue 15 reduces, for `tests/spin_reduction.rs`
//! (the reduction on against off) and `tests/oracle/` (against random concrete runs).
//!
//! Two or three threads enter a critical section (`inside` counted up and down around
//! an assertion) through one protocol per program: a lock made of
//! `__VERIFIER_atomic_*` functions taking the lock's address (`acquire` blocks with
//! `abort()` as SV-COMP's tasks do, or with `__VERIFIER_assume`, or with `abort()` after
//! a store in the section, by the seed), Peterson's flags and turn with a two-load spin
//! loop, a test-and-set loop over an atomic section, or nothing. Thread 0 may publish
//! `data` behind a `ready` flag that the last thread awaits, in one of three shapes:
//! a load in the loop's test, a load through a pointer, one load before a loop that never
//! reads again (`a = ready; while (a == 0) ;`, which loops forever when it read 0: the
//! interpreter's replay must let the other threads go on past it), or a `while (1)` loop
//! that breaks out in the middle. Some programs break
//! the protocol in one thread (skip the lock, yield the turn to itself, raise the flag
//! before the data), so the assertions fail on some schedules.
//!
//! A seed reproduces a program exactly ([`super::gen::Rng`]).

use super::gen::Rng;
use std::fmt::Write;

/// The entry protocol of a program's critical sections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Protocol {
    AtomicLock,
    Peterson,
    TestAndSet,
    Unprotected,
}

/// The program of `seed`.
pub fn spin_program(seed: u64) -> String {
    let mut rng = Rng::new(seed ^ 0x5350_494e);
    let threads = if rng.chance(25) { 3 } else { 2 };
    let protocol = match rng.below(10) {
        0..=3 => Protocol::AtomicLock,
        4..=6 if threads == 2 => Protocol::Peterson,
        4..=6 => Protocol::AtomicLock,
        7..=8 => Protocol::TestAndSet,
        _ => Protocol::Unprotected,
    };
    // One thread breaks the protocol in some programs.
    let broken = rng.chance(30).then(|| rng.below(threads));
    let publish = rng.chance(60);
    let wait_shape = rng.below(4);
    let data = 1 + rng.below(3);
    let mut out = String::new();
    let mut line = |indent: usize, text: &str| {
        let _ = writeln!(out, "{}{text}", "  ".repeat(indent));
    };
    line(0, "#include <pthread.h>");
    line(0, "#include <assert.h>");
    line(0, "extern void abort(void);");
    line(0, "extern int __VERIFIER_nondet_int(void);");
    line(0, "extern void __VERIFIER_atomic_begin(void);");
    line(0, "extern void __VERIFIER_atomic_end(void);");
    line(0, "extern void __VERIFIER_assume(int);");
    line(0, "int attempts = 0;");
    // The acquire's failing test, by the seed (no draw: the rest of the program stays
    // as it was): `abort()` (SV-COMP's `assume_abort_if_not`), `__VERIFIER_assume`, or
    // `abort()` after a store in the section (which the await reduction leaves alone).
    line(0, "void __VERIFIER_atomic_acquire(int *m) {");
    match seed % 3 {
        0 => line(1, "if (*m != 0) abort();"),
        1 => line(1, "__VERIFIER_assume(*m == 0);"),
        _ => {
            line(1, "attempts = attempts + 1;");
            line(1, "if (*m != 0) abort();");
        }
    }
    line(1, "*m = 1;");
    line(0, "}");
    line(0, "void __VERIFIER_atomic_release(int *m) {");
    line(1, "if (*m != 1) abort();");
    line(1, "*m = 0;");
    line(0, "}");
    line(
        0,
        "int lk = 0, other = 0, f0 = 0, f1 = 0, turn = 0, inside = 0, data = 0, ready = 0;",
    );
    for t in 0..threads {
        let breaks = broken == Some(t);
        line(0, &format!("void *t{t}(void *arg) {{"));
        line(1, "int a = 0, b = 0;");
        line(1, "int *p = &ready;");
        if publish && t == threads - 1 {
            match wait_shape {
                0 => line(1, "while (ready == 0) ;"),
                1 => line(1, "while (*p == 0) ;"),
                // One load, then a loop on the register: forever when it read 0.
                2 => {
                    line(1, "a = ready;");
                    line(1, "while (a == 0) ;");
                }
                _ => {
                    line(1, "while (1) {");
                    line(2, "a = ready;");
                    line(2, "if (a != 0) break;");
                    line(1, "}");
                }
            }
            line(1, &format!("assert(data == {data});"));
        }
        // Some threads decide on an input whether to enter at all.
        let guarded = rng.chance(25);
        if guarded {
            line(1, "b = __VERIFIER_nondet_int();");
            line(1, "if (b > 0) {");
        }
        let i = if guarded { 2 } else { 1 };
        let (me, you) = (t % 2, 1 - t % 2);
        // A thread that takes another lock than the rest excludes nobody.
        let lock = if rng.chance(15) { "other" } else { "lk" };
        match protocol {
            Protocol::AtomicLock if !breaks => {
                line(i, &format!("__VERIFIER_atomic_acquire(&{lock});"));
            }
            Protocol::Peterson => {
                line(i, &format!("f{me} = 1;"));
                let yielded = if breaks { me } else { you };
                line(i, &format!("turn = {yielded};"));
                line(i, &format!("while (f{you} == 1 && turn == {yielded}) ;"));
            }
            Protocol::TestAndSet if !breaks => {
                line(i, "while (1) {");
                line(i + 1, "__VERIFIER_atomic_begin();");
                line(i + 1, "a = lk;");
                line(i + 1, "if (a == 0) lk = 1;");
                line(i + 1, "__VERIFIER_atomic_end();");
                line(i + 1, "if (a == 0) break;");
                line(i, "}");
            }
            _ => {}
        }
        line(i, "inside = inside + 1;");
        line(i, "assert(inside == 1);");
        line(i, "inside = inside - 1;");
        match protocol {
            Protocol::AtomicLock if !breaks => {
                line(i, &format!("__VERIFIER_atomic_release(&{lock});"));
            }
            Protocol::Peterson => line(i, &format!("f{me} = 0;")),
            Protocol::TestAndSet if !breaks => line(i, "lk = 0;"),
            _ => {}
        }
        if guarded {
            line(1, "}");
        }
        if publish && t == 0 {
            if breaks {
                line(1, "ready = 1;");
                line(1, &format!("data = {data};"));
            } else {
                line(1, &format!("data = {data};"));
                line(1, "ready = 1;");
            }
        }
        line(1, "return 0;");
        line(0, "}");
    }
    line(0, "int main(void) {");
    line(1, "pthread_t h[3];");
    for t in 0..threads {
        line(1, &format!("pthread_create(&h[{t}], 0, t{t}, 0);"));
    }
    for t in 0..threads {
        line(1, &format!("pthread_join(h[{t}], 0);"));
    }
    line(1, "assert(inside == 0);");
    line(1, "return 0;");
    line(0, "}");
    out
}
