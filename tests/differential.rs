//! Theorem 1 of the assertion-guided paper as a differential test: the baseline search,
//! DPOR, DPOR with predicate summaries, and DPOR with summaries and the slice (§6.1's
//! Type A cut and Type B pivots, with the slice `agx verify` computes) reach the same set
//! of violated locations, on random small concurrent programs (2-4 threads, shared
//! globals, a mutex, branches on inputs, assertions, spin waits, and statistics that no
//! assertion reads, whose branches and races are Type B pivots; some programs order
//! threads by a handshake on flags or by a lock taken on an input, orders a careless
//! Type B pivot would drop). Where every strategy
//! finishes, the runs explored must not grow with the reduction:
//! `runs(dpor+ag) ≤ runs(dpor) ≤ runs(baseline)` (runs counting partial ones).
//!
//! `AGX_DIFF_PROGRAMS=N` checks N programs (default 150, about two minutes in a debug
//! build); `AGX_DIFF_SEED=S` starts at seed S. A failing program is written to the temporary directory and named in the
//! message, with the verdicts of each strategy.

use analysis::FrontendOptions;
use explorer::symbolic::{self, Config, Outcome, Strategy, Verdict};
use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::PathBuf;
use std::time::Duration;

/// A small deterministic generator (xorshift64*), so the test needs no dependency and a
/// seed reproduces a program exactly.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// Writes one random program: globals `g0..g2`, a mutex, 1-3 worker threads and `main`.
/// Each assertion stands on a line of its own, so locations name assertions.
struct Gen {
    rng: Rng,
    out: String,
    globals: usize,
    budget: u32,
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

    fn line(&mut self, indent: usize, text: &str) {
        let _ = writeln!(self.out, "{}{text}", "  ".repeat(indent));
    }

    /// One statement of a thread body (visible events are budgeted to keep the baseline
    /// search small).
    fn stmt(&mut self, indent: usize, depth: u32) {
        let pick = self.rng.below(100);
        match pick {
            0..=24 => {
                let (l, g) = (self.local(), self.global());
                self.line(indent, &format!("{l} = {g};"));
                self.budget = self.budget.saturating_sub(1);
            }
            25..=49 => {
                let g = self.global();
                let rhs = match self.rng.below(3) {
                    0 => format!("{}", self.small()),
                    1 => format!("{} + {}", self.local(), self.small()),
                    _ => self.local().to_string(),
                };
                self.line(indent, &format!("{g} = {rhs};"));
                self.budget = self.budget.saturating_sub(1);
            }
            50..=64 if depth < 2 => {
                let (l, k) = (self.local(), self.small());
                let op = ["<", "==", "!=", ">"][self.rng.below(4) as usize];
                self.line(indent, &format!("if ({l} {op} {k}) {{"));
                self.stmt(indent + 1, depth + 1);
                self.line(indent, "} else {");
                self.stmt(indent + 1, depth + 1);
                self.line(indent, "}");
            }
            65..=74 if depth == 0 => {
                self.line(indent, "pthread_mutex_lock(&m);");
                self.stmt(indent + 1, depth + 1);
                self.stmt(indent + 1, depth + 1);
                self.line(indent, "pthread_mutex_unlock(&m);");
                self.budget = self.budget.saturating_sub(2);
            }
            75..=84 => {
                let (l, k) = (self.local(), self.small());
                let op = ["!=", "<=", ">=", "<"][self.rng.below(4) as usize];
                self.line(indent, &format!("assert({l} {op} {k} + 2);"));
            }
            85..=92 => {
                let l = self.local();
                self.line(indent, &format!("{l} = __VERIFIER_nondet_int();"));
                self.line(indent, &format!("__VERIFIER_assume({l} >= 0 && {l} <= 2);"));
            }
            93..=95 => self.logging(indent),
            96 if depth == 0 => {
                // A spin wait: a loop whose test only orders the thread after others
                // (the cycle check ends it when nobody changes the global).
                let (g, k) = (self.global(), self.small());
                self.line(indent, &format!("while ({g} == {k})"));
                self.line(indent + 1, ";");
                self.budget = self.budget.saturating_sub(1);
            }
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
        let op = ["<", "==", "!=", ">"][self.rng.below(4) as usize];
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

    fn program(seed: u64) -> String {
        let mut g = Gen {
            rng: Rng::new(seed),
            out: String::new(),
            globals: 0,
            budget: 0,
        };
        g.globals = 1 + g.rng.below(3) as usize;
        let threads = [1, 2, 2, 2, 3][g.rng.below(5) as usize];
        g.line(0, "#include <pthread.h>");
        g.line(0, "#include <assert.h>");
        g.line(0, "extern int __VERIFIER_nondet_int(void);");
        g.line(0, "extern void __VERIFIER_assume(int);");
        g.line(0, "extern void __VERIFIER_atomic_begin(void);");
        g.line(0, "extern void __VERIFIER_atomic_end(void);");
        g.line(0, "pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;");
        g.line(0, "pthread_mutex_t m2 = PTHREAD_MUTEX_INITIALIZER;");
        g.line(0, "int stat = 0, f0 = 0, f1 = 0, busy = 0;");
        for i in 0..g.globals {
            let k = g.small();
            g.line(0, &format!("int g{i} = {k};"));
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
        for t in 0..threads {
            g.line(0, &format!("void *t{t}(void *arg) {{"));
            g.line(1, "int a = 0, b = 0, c = 0, d = 0;");
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
            g.line(1, "return 0;");
            g.line(0, "}");
        }
        g.line(0, "int main(void) {");
        g.line(1, "int a = 0, b = 0, c = 0, d = 0;");
        if g.rng.chance(50) {
            g.line(1, "a = __VERIFIER_nondet_int();");
            g.line(1, "__VERIFIER_assume(a >= -1 && a <= 2);");
            let gl = g.global();
            g.line(1, &format!("{gl} = a;"));
        }
        g.line(1, &format!("pthread_t h[{threads}];"));
        for t in 0..threads {
            g.line(1, &format!("pthread_create(&h[{t}], 0, t{t}, 0);"));
        }
        if gate {
            g.line(1, "pthread_mutex_lock(&m2);");
            g.line(1, "d = busy;");
        }
        g.budget = 1;
        while g.budget > 0 {
            g.stmt(1, 1);
            g.budget = g.budget.saturating_sub(1);
        }
        if gate {
            g.line(1, "pthread_mutex_unlock(&m2);");
            // Fails only if the worker did not take `m2`.
            g.line(1, "assert(d != 1);");
        }
        for t in 0..threads {
            if t == 0 || g.rng.chance(70) {
                g.line(1, &format!("pthread_join(h[{t}], 0);"));
            }
        }
        let (l, gl) = (g.local(), g.global());
        if gate {
            g.line(1, "pthread_mutex_lock(&m2);");
        }
        g.line(1, &format!("{l} = {gl};"));
        if gate {
            g.line(1, "pthread_mutex_unlock(&m2);");
        }
        let k = g.small();
        g.line(1, &format!("assert({l} != {k} + 1);"));
        g.line(1, "return 0;");
        g.line(0, "}");
        g.out
    }
}

fn violated(o: &Outcome) -> BTreeSet<u32> {
    o.violations.iter().map(|f| f.span.line).collect()
}

/// The slice `agx verify` gives the search for Type B pivots.
fn type_b_slice(program: &analysis::ir::Program) -> BTreeSet<analysis::ir::StmtId> {
    let facts = analysis::facts::extract(program);
    let analysis = rules::Analysis::run(&facts);
    analysis.backward_slice(&symbolic::type_b::criteria(program))
}

fn run(program: &analysis::ir::Program, strategy: Strategy, slice: bool) -> Outcome {
    let mut c = Config::default();
    c.strategy = strategy;
    c.slice = slice;
    if slice {
        c.relevant = Some(type_b_slice(program));
    }
    c.all_violations = true;
    c.timeout = Some(Duration::from_secs(5));
    symbolic::verify(program, &c).unwrap_or_else(|e| panic!("verify failed: {e}"))
}

fn total_runs(o: &Outcome) -> u64 {
    o.stats.runs + o.stats.partial_runs
}

#[test]
fn strategies_reach_the_same_violations_on_random_programs() {
    let count: u64 = std::env::var("AGX_DIFF_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150);
    let first: u64 = std::env::var("AGX_DIFF_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let dir = std::env::temp_dir().join(format!("agx-diff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let mut checked = 0;
    let mut with_violation = 0;
    let mut type_b = 0;
    for seed in first..first + count {
        let text = Gen::program(seed);
        let path: PathBuf = dir.join(format!("diff_{seed}.c"));
        std::fs::write(&path, &text).expect("write program");
        let program =
            analysis::load_program(&path, &FrontendOptions::default()).unwrap_or_else(|e| {
                panic!("seed {seed}: the generated program does not lower: {e}\n{text}")
            });
        let base = run(&program, Strategy::Baseline, false);
        let dpor = run(&program, Strategy::Dpor, false);
        let ag = run(&program, Strategy::DporAg, false);
        let ag_slice = run(&program, Strategy::DporAg, true);
        let all = [
            ("baseline", &base),
            ("dpor", &dpor),
            ("dpor+ag", &ag),
            ("dpor+ag+slice", &ag_slice),
        ];
        // A violation found before the time ran out is a verdict, but not the whole set.
        let finished = all.iter().all(|(_, o)| {
            o.verdict != Verdict::Unknown && o.incomplete.iter().all(|i| i.reason != "timeout")
        });
        let describe = || {
            all.iter()
                .map(|(n, o)| {
                    format!(
                        "{n}: {:?} {:?} runs {}+{} {:?}",
                        o.verdict,
                        violated(o),
                        o.stats.runs,
                        o.stats.partial_runs,
                        o.incomplete
                    )
                })
                .collect::<Vec<_>>()
                .join("\n  ")
        };
        if finished {
            for (name, o) in &all[1..] {
                assert_eq!(
                    violated(o),
                    violated(&base),
                    "seed {seed} ({}): {name} and baseline reach different violations\n  {}",
                    path.display(),
                    describe()
                );
            }
            assert!(
                ag.stats.runs <= dpor.stats.runs && dpor.stats.runs <= base.stats.runs,
                "seed {seed} ({}): full runs grew with the reduction\n  {}",
                path.display(),
                describe()
            );
            assert!(
                total_runs(&dpor) <= total_runs(&base),
                "seed {seed} ({}): dpor explored more runs than the baseline\n  {}",
                path.display(),
                describe()
            );
            assert!(
                total_runs(&ag) <= total_runs(&dpor),
                "seed {seed} ({}): dpor+ag explored more runs than dpor\n  {}",
                path.display(),
                describe()
            );
            checked += 1;
            if ag_slice.stats.type_b_branches + ag_slice.stats.type_b_races > 0 {
                type_b += 1;
            }
            if !violated(&base).is_empty() {
                with_violation += 1;
            }
        } else {
            // A strategy that did not finish may miss violations, never invent them.
            for (name, o) in &all {
                for line in violated(o) {
                    assert!(
                        all.iter().any(|(_, p)| p.verdict != Verdict::Unknown && violated(p).contains(&line))
                            || all.iter().all(|(_, p)| p.verdict == Verdict::Unknown),
                        "seed {seed}: {name} reports line {line} that a finished strategy does not\n  {}",
                        describe()
                    );
                }
            }
        }
        let _ = std::fs::remove_file(&path);
    }
    let _ = std::fs::remove_dir(&dir);
    println!(
        "{checked} of {count} programs finished under every strategy; {with_violation} have \
         violations; {type_b} had Type B pivots"
    );
    assert!(
        checked * 2 >= count,
        "too few programs finished ({checked} of {count})"
    );
    assert!(
        type_b * 10 >= checked,
        "too few programs exercised Type B pivots ({type_b} of {checked})"
    );
}
