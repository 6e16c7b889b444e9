//! The random program generator shared by `tests/differential.rs` (strategies against
//! each other, Theorem 1) and `tests/oracle/` (strategies against random concrete runs).
//!
//! A seed reproduces a program exactly (a small xorshift64* generator, no dependency).
//! Programs have 1-3 worker threads and `main`, shared globals `g0..g2`, a mutex,
//! branches on inputs, assertions, spin waits, statistics no assertion reads (Type B
//! pivots), handshakes and input-dependent lock gates, and, each in some programs, the
//! patterns of issue 10 ([`Family`]): printf-only branches before an assertion on the
//! branch's variable, partial joins, atomic sections opened and closed in a branch,
//! function pointers through `pthread_join`, `pthread_exit`, return values and thread
//! arguments, functions returning function pointers, null dereferences on input
//! branches, and condition-variable waits. Each assertion stands on a line of its own,
//! so a line names an assertion.

use std::collections::BTreeSet;
use std::fmt::Write;

/// A small deterministic generator (xorshift64*).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// The patterns of issue 10 a program contains (the classic statements are in every
/// program). The numbers are the wrong verdicts each family reproduces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// (1) `if (c == K) printf(...)` (or another body no assertion reads) on a variable
    /// an assertion then tests.
    PrintfBranch,
    /// (2) `main` joins only some threads, then asserts on what the others write; one
    /// thread writes two globals in a row, another the second of them.
    PartialJoin,
    /// (3) `if (e) __VERIFIER_atomic_begin(); g = K1; g = K2; if (e) __VERIFIER_atomic_end();`
    AtomicInBranch,
    /// (4) a function pointer returned by a thread (`return`, `pthread_exit`) and called
    /// by `main` after `pthread_join`, or passed as a thread's argument.
    FnPtrJoin,
    /// (5) `void (*pick(int k))(T v)`: a function returning a function pointer (the inner
    /// parameter named like the outer one in some programs).
    FnPtrReturn,
    /// (6) a dereference of a null (or not yet set) pointer on one side of an input branch.
    NullDeref,
    /// (7) `pthread_cond_wait` under `if` or `while`, signalled by another thread (with
    /// `if`, only a spurious wake-up fails the assertion after it).
    CondWait,
}

impl Family {
    pub const ALL: [Family; 7] = [
        Family::PrintfBranch,
        Family::PartialJoin,
        Family::AtomicInBranch,
        Family::FnPtrJoin,
        Family::FnPtrReturn,
        Family::NullDeref,
        Family::CondWait,
    ];
}

/// A generated program and the families it contains.
pub struct Generated {
    pub text: String,
    pub families: BTreeSet<Family>,
}

/// The program of `seed`.
pub fn program(seed: u64) -> Generated {
    Gen::program(seed, false)
}

/// The program of `seed` with no thread joined (but the one whose end value `main`
/// calls, family (4)): `main` asserts and returns while its threads may still run, so
/// its return cuts them off at any point (what `Config::defer_exit` reorders). The
/// same random draws as [`program`], so the rest of the program is the same.
pub fn program_unjoined(seed: u64) -> Generated {
    Gen::program(seed, true)
}

/// Which families a program may use (each drawn per program).
#[derive(Default)]
struct Enabled {
    printf_branch: bool,
    atomic_branch: bool,
    null_deref: bool,
}

struct Gen {
    rng: Rng,
    out: String,
    globals: usize,
    budget: u32,
    /// Constants stored or initialized: assertions test them half of the time, so
    /// assertions fail on some schedules rather than never.
    pool: Vec<i64>,
    enabled: Enabled,
    families: BTreeSet<Family>,
    /// (global, value) pairs of family (3): the value an atomic section may hide,
    /// which `main` asserts the global never holds.
    observe: Vec<(String, i64)>,
}

impl Gen {
    fn global(&mut self) -> String {
        format!("g{}", self.rng.below(self.globals as u64))
    }

    fn local(&mut self) -> &'static str {
        ["a", "b"][self.rng.below(2) as usize]
    }

    fn small(&mut self) -> i64 {
        self.rng.below(4) as i64 - 1
    }

    /// A stored constant, remembered for the assertions.
    fn stored(&mut self) -> i64 {
        let k = self.small();
        self.pool.push(k);
        k
    }

    /// A constant an assertion tests: one stored somewhere, or a small one.
    fn tested(&mut self) -> i64 {
        if !self.pool.is_empty() && self.rng.chance(50) {
            self.pool[self.rng.below(self.pool.len() as u64) as usize]
        } else {
            self.small() + 2
        }
    }

    fn line(&mut self, indent: usize, text: &str) {
        let _ = writeln!(self.out, "{}{text}", "  ".repeat(indent));
    }

    fn comparison(&mut self) -> &'static str {
        ["<", "==", "!=", ">"][self.rng.below(4) as usize]
    }

    /// One statement of a thread body (visible events are budgeted to keep the baseline
    /// search small).
    fn stmt(&mut self, indent: usize, depth: u32) {
        let pick = self.rng.below(100);
        match pick {
            0..=21 => {
                let (l, g) = (self.local(), self.global());
                self.line(indent, &format!("{l} = {g};"));
                self.budget = self.budget.saturating_sub(1);
            }
            22..=43 => {
                let g = self.global();
                let rhs = match self.rng.below(3) {
                    0 => format!("{}", self.stored()),
                    1 => format!("{} + {}", self.local(), self.small()),
                    _ => self.local().to_string(),
                };
                self.line(indent, &format!("{g} = {rhs};"));
                self.budget = self.budget.saturating_sub(1);
            }
            44..=56 if depth < 2 => {
                let (l, k) = (self.local(), self.small());
                let op = self.comparison();
                self.line(indent, &format!("if ({l} {op} {k}) {{"));
                self.stmt(indent + 1, depth + 1);
                self.line(indent, "} else {");
                self.stmt(indent + 1, depth + 1);
                self.line(indent, "}");
            }
            57..=64 if depth == 0 => {
                self.line(indent, "pthread_mutex_lock(&m);");
                self.stmt(indent + 1, depth + 1);
                self.stmt(indent + 1, depth + 1);
                self.line(indent, "pthread_mutex_unlock(&m);");
                self.budget = self.budget.saturating_sub(2);
            }
            65..=73 => {
                let l = self.local();
                if self.rng.chance(50) {
                    let k = self.tested();
                    self.line(indent, &format!("assert({l} != {k});"));
                } else {
                    let k = self.small();
                    let op = ["!=", "<=", ">=", "<"][self.rng.below(4) as usize];
                    self.line(indent, &format!("assert({l} {op} {k} + 2);"));
                }
            }
            74..=79 => {
                let l = self.local();
                self.line(indent, &format!("{l} = __VERIFIER_nondet_int();"));
                self.line(indent, &format!("__VERIFIER_assume({l} >= 0 && {l} <= 2);"));
            }
            80..=83 => self.logging(indent),
            84 if depth == 0 => {
                // A spin wait: a loop whose test only orders the thread after others
                // (the cycle check ends it when nobody changes the global).
                let (g, k) = (self.global(), self.small());
                self.line(indent, &format!("while ({g} == {k})"));
                self.line(indent + 1, ";");
                self.budget = self.budget.saturating_sub(1);
            }
            85..=88 if self.enabled.printf_branch => self.printf_branch(indent),
            89..=92 if self.enabled.atomic_branch && depth == 0 => self.atomic_branch(indent),
            93..=96 if self.enabled.null_deref => self.null_deref(indent),
            _ => {
                let (g, l) = (self.global(), self.local());
                self.line(indent, "__VERIFIER_atomic_begin();");
                self.line(indent + 1, &format!("{l} = {g};"));
                self.line(indent + 1, &format!("{g} = {l} + 1;"));
                self.line(indent, "__VERIFIER_atomic_end();");
                self.budget = self.budget.saturating_sub(2);
            }
        }
    }

    /// Statistics no assertion reads: a race on `stat` and a branch on `c` (an input or
    /// the statistic), all outside the assertions' slices (§6.1's Type B pivots).
    fn logging(&mut self, indent: usize) {
        let k = self.small();
        let op = self.comparison();
        if self.rng.chance(50) {
            self.line(indent, "c = __VERIFIER_nondet_int();");
        } else {
            self.line(indent, "c = stat;");
            self.budget = self.budget.saturating_sub(1);
        }
        self.line(indent, &format!("if (c {op} {k}) {{"));
        self.line(indent + 1, "stat = c + 1;");
        self.line(indent, "} else {");
        self.line(indent + 1, &format!("stat = {k};"));
        self.line(indent, "}");
        self.budget = self.budget.saturating_sub(1);
    }

    /// Family (1): a branch on `c` whose body no assertion reads, then an assertion on
    /// `c`. `c` is an input or a global.
    fn printf_branch(&mut self, indent: usize) {
        self.families.insert(Family::PrintfBranch);
        if self.rng.chance(60) {
            self.line(indent, "c = __VERIFIER_nondet_int();");
        } else {
            let g = self.global();
            self.line(indent, &format!("c = {g};"));
            self.budget = self.budget.saturating_sub(1);
        }
        let k = self.small() + 1;
        let op = ["==", "!=", "<", ">"][self.rng.below(4) as usize];
        let body = match self.rng.below(3) {
            0 => "printf(\"zero\\n\");",
            1 => "printf(\"c=%d\\n\", c);",
            _ => "d = c + 1;",
        };
        self.line(indent, &format!("if (c {op} {k}) {body}"));
        let t = self.tested();
        self.line(indent, &format!("assert(c != {t});"));
    }

    /// Family (3): an atomic section opened and closed under an input; in between a
    /// global holds a value another thread may assert against.
    fn atomic_branch(&mut self, indent: usize) {
        self.families.insert(Family::AtomicInBranch);
        let g = self.global();
        // The value in between is one nothing else stores; `main` asserts against it.
        let k1 = 5 + self.rng.below(3) as i64;
        let k2 = self.stored();
        self.observe.push((g.clone(), k1));
        self.line(indent, "e = __VERIFIER_nondet_int();");
        self.line(indent, "if (e) __VERIFIER_atomic_begin();");
        self.line(indent, &format!("{g} = {k1};"));
        self.line(indent, &format!("{g} = {k2};"));
        self.line(indent, "if (e) __VERIFIER_atomic_end();");
        self.budget = self.budget.saturating_sub(2);
    }

    /// Family (6): a read through `np` (null unless `main` sets it, racing) on one side of
    /// an input branch, into a statistic.
    fn null_deref(&mut self, indent: usize) {
        self.families.insert(Family::NullDeref);
        let k = self.small();
        let op = self.comparison();
        self.line(indent, "c = __VERIFIER_nondet_int();");
        let (then, other) = if self.rng.chance(50) {
            ("stat = *np;", "stat = 1;")
        } else {
            ("stat = 1;", "stat = *np;")
        };
        self.line(indent, &format!("if (c {op} {k}) {{"));
        self.line(indent + 1, then);
        self.line(indent, "} else {");
        self.line(indent + 1, other);
        self.line(indent, "}");
        self.budget = self.budget.saturating_sub(2);
    }

    /// Family (7), the waiting side: `a` is 1 after the wait unless the wake-up was
    /// spurious (with `if`) .
    fn cond_waiter(&mut self, indent: usize) {
        let test = if self.rng.chance(50) { "if" } else { "while" };
        self.line(indent, "pthread_mutex_lock(&m);");
        self.line(indent, &format!("{test} (!ready)"));
        self.line(indent + 1, "pthread_cond_wait(&cv, &m);");
        self.line(indent, "a = ready;");
        self.line(indent, "pthread_mutex_unlock(&m);");
        self.line(indent, "assert(a == 1);");
    }

    /// Family (7), the signalling side.
    fn cond_signaller(&mut self, indent: usize) {
        let how = if self.rng.chance(70) {
            "signal"
        } else {
            "broadcast"
        };
        self.line(indent, "pthread_mutex_lock(&m);");
        self.line(indent, "ready = 1;");
        self.line(indent, &format!("pthread_cond_{how}(&cv);"));
        self.line(indent, "pthread_mutex_unlock(&m);");
    }

    fn program(seed: u64, unjoined: bool) -> Generated {
        let mut g = Gen {
            rng: Rng::new(seed),
            out: String::new(),
            globals: 0,
            budget: 0,
            pool: Vec::new(),
            enabled: Enabled::default(),
            families: BTreeSet::new(),
            observe: Vec::new(),
        };
        g.globals = 1 + g.rng.below(3) as usize;
        let threads = [1, 2, 2, 2, 3][g.rng.below(5) as usize];
        g.enabled = Enabled {
            printf_branch: g.rng.chance(25),
            atomic_branch: g.rng.chance(25),
            null_deref: g.rng.chance(20),
        };
        // Program-level families.
        let partial_join = threads >= 2 && g.rng.chance(25);
        let fnptr_join = g.rng.chance(15);
        let fnptr_return = g.rng.chance(12);
        let cond = g.rng.chance(12);
        // Where `np` points: nowhere, or at a global `main` sets after creating the
        // threads (a race with the dereference).
        let np_set = g.enabled.null_deref && g.rng.chance(40);
        // The function pointer types: parameter type and the inner parameter's name of
        // `pick` (the same as the outer one in some programs: issue 10's case 5).
        let param = if g.rng.chance(50) {
            "int"
        } else {
            "unsigned char"
        };
        let inner = if g.rng.chance(50) { "k" } else { "v" };

        g.line(0, "#include <pthread.h>");
        g.line(0, "#include <assert.h>");
        g.line(0, "#include <stdio.h>");
        g.line(0, "extern int __VERIFIER_nondet_int(void);");
        g.line(0, "extern void __VERIFIER_assume(int);");
        g.line(0, "extern void __VERIFIER_atomic_begin(void);");
        g.line(0, "extern void __VERIFIER_atomic_end(void);");
        g.line(0, "pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;");
        g.line(0, "pthread_mutex_t m2 = PTHREAD_MUTEX_INITIALIZER;");
        g.line(0, "pthread_cond_t cv = PTHREAD_COND_INITIALIZER;");
        g.line(0, "int stat = 0, f0 = 0, f1 = 0, busy = 0, ready = 0;");
        g.line(0, "int *np = 0;");
        for i in 0..g.globals {
            let k = g.stored();
            g.line(0, &format!("int g{i} = {k};"));
        }
        if fnptr_join || fnptr_return {
            let k = g.tested();
            g.line(0, &format!("void fa({param} v) {{"));
            g.line(1, &format!("assert(v != {k});"));
            g.line(0, "}");
            g.line(0, &format!("void fb({param} v) {{"));
            g.line(1, "stat = v;");
            g.line(0, "}");
        }
        if fnptr_return {
            g.families.insert(Family::FnPtrReturn);
            let (op, k) = (g.comparison(), g.small() + 1);
            g.line(0, &format!("void (*pick(int k))({param} {inner}) {{"));
            g.line(1, &format!("if (k {op} {k})"));
            g.line(2, "return fa;");
            g.line(1, "return fb;");
            g.line(0, "}");
        }
        let per_thread = match threads {
            1 => 4,
            2 => 2,
            _ => 1,
        };
        // Orders that only data or an input-dependent lock decide, which a Type B pivot
        // must not drop: a handshake (t0 and t1 each wait while the other's flag is up,
        // then raise their own: both get through only if both wait first) and a gate (the
        // last worker holds `m2` through its body if an input says so, which keeps
        // main's `m2` sections out of it).
        let handshake = threads == 2 && g.rng.chance(12);
        let gate = threads <= 2 && g.rng.chance(12);
        // Family (2): which threads main joins (thread 0 always, unless partial), and
        // the writer shape: `writer`, not joined, stores two globals; a thread created
        // after it, joined, stores the second (issue 10's order: the writer first).
        let mut joined: Vec<bool> = (0..threads)
            .map(|t| {
                if partial_join {
                    g.rng.chance(50)
                } else {
                    t == 0 || g.rng.chance(70)
                }
            })
            .collect();
        let (writer, second_writer) = if partial_join {
            let a = g.rng.below(threads as u64 - 1) as usize;
            let b = a + 1 + g.rng.below((threads - a - 1) as u64) as usize;
            joined[a] = false;
            joined[b] = true;
            g.families.insert(Family::PartialJoin);
            (Some(a), Some(b))
        } else {
            (None, None)
        };
        // The second global is mostly `stat`, which no assertion reads: a race outside
        // the slice whose order still decides what `main` sees.
        let wa = g.global();
        let wb = if g.rng.chance(70) {
            "stat".to_string()
        } else {
            format!("g{}", g.globals - 1)
        };
        // A value nothing else stores, so `main` reading anything else shows the order.
        let wk1 = 5 + g.rng.below(3) as i64;
        let wk2 = g.stored();
        // Family (4): the thread whose end value is a function pointer, and how it ends.
        let fn_thread = fnptr_join
            .then(|| g.rng.below(threads as u64) as usize)
            .filter(|t| writer != Some(*t));
        let fn_end = g.rng.below(3);
        let fn_by_arg = fnptr_join && g.rng.chance(30);
        if let Some(t) = fn_thread {
            joined[t] = true;
            g.families.insert(Family::FnPtrJoin);
        }
        // Family (7): the waiter is main (-1 → index threads) or a thread, the
        // signaller another.
        let cond_roles = cond.then(|| {
            let waiter = g.rng.below(threads as u64 + 1) as usize;
            let signaller = (waiter + 1 + g.rng.below(threads as u64) as usize) % (threads + 1);
            (waiter, signaller)
        });
        if cond_roles.is_some() {
            g.families.insert(Family::CondWait);
        }
        // The thread (or `main`, index `threads`) of each statement family's first use.
        let forced: Vec<usize> = (0..3)
            .map(|_| g.rng.below(threads as u64 + 1) as usize)
            .collect();
        for t in 0..threads {
            g.line(0, &format!("void *t{t}(void *arg) {{"));
            g.line(1, "int a = 0, b = 0, c = 0, d = 0, e = 0;");
            let waits = handshake && t < 2;
            let gated = gate && t == threads - 1;
            if waits {
                g.line(1, &format!("while (f{})", 1 - t));
                g.line(2, ";");
                g.line(1, &format!("f{t} = 1;"));
            }
            if gated {
                g.line(1, "d = __VERIFIER_nondet_int();");
                g.line(1, "if (d > 0) {");
                g.line(2, "pthread_mutex_lock(&m2);");
                g.line(1, "}");
                g.line(1, "busy = 1;");
            }
            if writer == Some(t) {
                g.line(1, &format!("{wa} = {wk1};"));
                g.line(1, &format!("{wb} = {wk1};"));
            } else if second_writer == Some(t) {
                g.line(1, &format!("{wb} = {wk2};"));
            }
            if let Some((waiter, signaller)) = cond_roles {
                if waiter == t {
                    g.cond_waiter(1);
                } else if signaller == t {
                    g.cond_signaller(1);
                }
            }
            if fn_by_arg && fn_thread == Some(t) {
                g.line(1, "a = __VERIFIER_nondet_int();");
                g.line(1, &format!("((void (*)({param}))arg)(a);"));
            }
            // Each statement family the program uses appears at least once, in a
            // thread of its own choosing.
            if forced[0] == t && g.enabled.printf_branch {
                g.printf_branch(1);
            }
            if forced[1] == t && g.enabled.atomic_branch {
                g.atomic_branch(1);
            }
            if forced[2] == t && g.enabled.null_deref {
                g.null_deref(1);
            }
            g.budget = per_thread;
            while g.budget > 0 {
                g.stmt(1, 0);
                g.budget = g.budget.saturating_sub(1);
            }
            if gated {
                g.line(1, "busy = 0;");
                g.line(1, "if (d > 0) {");
                g.line(2, "pthread_mutex_unlock(&m2);");
                g.line(1, "}");
            }
            if waits {
                g.line(1, &format!("f{t} = 0;"));
            }
            if fn_thread == Some(t) {
                match fn_end {
                    0 => g.line(1, "return (void *)fa;"),
                    1 => g.line(1, "pthread_exit((void *)fa);"),
                    _ => {
                        let (op, k) = (g.comparison(), g.small());
                        g.line(1, "e = __VERIFIER_nondet_int();");
                        g.line(1, &format!("if (e {op} {k})"));
                        g.line(2, "return (void *)fa;");
                        g.line(1, "return (void *)fb;");
                    }
                }
            } else {
                g.line(1, "return 0;");
            }
            g.line(0, "}");
        }
        g.line(0, "int main(void) {");
        g.line(1, "int a = 0, b = 0, c = 0, d = 0, e = 0;");
        if fnptr_join {
            g.line(1, "void *r = 0;");
        }
        if g.rng.chance(50) {
            g.line(1, "a = __VERIFIER_nondet_int();");
            g.line(1, "__VERIFIER_assume(a >= -1 && a <= 2);");
            let gl = g.global();
            g.line(1, &format!("{gl} = a;"));
        }
        g.line(1, &format!("pthread_t h[{threads}];"));
        for t in 0..threads {
            let arg = if fn_by_arg && fn_thread == Some(t) {
                "(void *)fa"
            } else {
                "0"
            };
            g.line(1, &format!("pthread_create(&h[{t}], 0, t{t}, {arg});"));
        }
        if np_set {
            let gl = g.global();
            g.line(1, &format!("np = &{gl};"));
        }
        if gate {
            g.line(1, "pthread_mutex_lock(&m2);");
            g.line(1, "d = busy;");
        }
        if forced[0] == threads && g.enabled.printf_branch {
            g.printf_branch(1);
        }
        if forced[1] == threads && g.enabled.atomic_branch {
            g.atomic_branch(1);
        }
        if forced[2] == threads && g.enabled.null_deref {
            g.null_deref(1);
        }
        g.budget = 1;
        while g.budget > 0 {
            g.stmt(1, 1);
            g.budget = g.budget.saturating_sub(1);
        }
        for (gl, k) in std::mem::take(&mut g.observe) {
            g.line(1, &format!("b = {gl};"));
            g.line(1, &format!("assert(b != {k});"));
        }
        if gate {
            g.line(1, "pthread_mutex_unlock(&m2);");
            // Fails only if the worker did not take `m2`.
            g.line(1, "assert(d != 1);");
        }
        if let Some((waiter, signaller)) = cond_roles {
            if waiter == threads {
                g.cond_waiter(1);
            } else if signaller == threads {
                g.cond_signaller(1);
            }
        }
        for (t, &j) in joined.iter().enumerate() {
            if fn_thread == Some(t) {
                g.line(1, &format!("pthread_join(h[{t}], &r);"));
                g.line(1, "b = __VERIFIER_nondet_int();");
                g.line(1, &format!("((void (*)({param}))r)(b);"));
            } else if j && !unjoined {
                g.line(1, &format!("pthread_join(h[{t}], 0);"));
            }
        }
        if fnptr_return {
            g.line(1, "c = __VERIFIER_nondet_int();");
            if g.rng.chance(50) {
                g.line(1, "pick(c)(a);");
            } else {
                g.line(1, &format!("void (*fp)({param}) = pick(c);"));
                g.line(1, "fp(a);");
            }
        }
        let (l, gl) = if partial_join && g.rng.chance(80) {
            ("a", wa.clone())
        } else {
            (g.local(), g.global())
        };
        if gate {
            g.line(1, "pthread_mutex_lock(&m2);");
        }
        g.line(1, &format!("{l} = {gl};"));
        if gate {
            g.line(1, "pthread_mutex_unlock(&m2);");
        }
        if l == "a" && gl == wa && partial_join {
            // Fails when main reads before the writer it did not join.
            g.line(1, &format!("assert({l} == {wk1});"));
        } else {
            let k = g.tested();
            g.line(1, &format!("assert({l} != {k});"));
        }
        g.line(1, "return 0;");
        g.line(0, "}");
        Generated {
            text: g.out,
            families: g.families,
        }
    }
}

/// Run `run` of a race-hunting series for `seed`: random schedules on even runs, PCT
/// (0..3 change points) on odd ones, random inputs, nondeterministic uninitialized
/// values, bounded length, the interpreter's race detector on.
pub fn race_run_config(seed: u64, run: u64) -> explorer::concrete::RunConfig {
    use explorer::concrete::{InputFallback, InputPolicy, RunConfig, SchedulePolicy, UninitPolicy};
    let run_seed = seed.wrapping_mul(1_000_003).wrapping_add(run);
    let mut config = RunConfig::default();
    config.schedule = if run.is_multiple_of(2) {
        SchedulePolicy::Random { seed: run_seed }
    } else {
        SchedulePolicy::Priority {
            seed: run_seed,
            changes: (run / 2 % 4) as u32,
            horizon: 60,
        }
    };
    config.inputs = InputPolicy {
        values: Vec::new(),
        fallback: InputFallback::Random { seed: run_seed },
    };
    config.uninit = UninitPolicy::Nondet;
    config.max_steps = Some(3_000);
    config.max_statements = 200_000;
    config.detect_races = true;
    config
}
