//! Random programs of fixed communication shapes (issue 15), for `tests/oracle/` (against
//! random concrete runs), `tests/dpor_variants.rs` (classic against source DPOR) and
//! `tests/differential.rs` (the strategies against each other). `gen.rs` draws statements
//! one by one and almost never builds these shapes, where a reduction has to reverse
//! several races of one event (the writer between two readers that DPOR once missed,
//! fixtures/verify/writer_between_readers.c):
//!
//! - [`Shape::Readers`]: one writer (one or two stores, of constants or of an input) and
//!   2-3 readers that keep what they read in globals (some read twice, or a second
//!   variable); `main`, which may read too, joins (not always every reader) and asserts
//!   that some combination of read values never happens (some readers read `y` before
//!   `x`, after the writer's `x` before `y`: message passing). Some combinations are
//!   reachable (the writer between two readers), some are not (a reader seeing the
//!   second store before the first).
//! - [`Shape::Flags`]: message passing: the writer stores `data` (and `data2`) and then
//!   raises `ready` (and `ready2`); readers test the flags and read the data in
//!   different orders (flag first, which is safe, or data first, which is not), some
//!   spin on the flag; some writers raise a flag before its data.
//! - [`Shape::Alias`]: threads store to and increment cells of an array through the
//!   array, local pointers, pointers passed as thread arguments, and indices from inputs,
//!   so several accesses name one cell in different ways; `main` asserts on a cell.
//! - [`Shape::MutexHole`]: increments of two counters under a mutex; one thread may make
//!   its access without the lock or under another mutex; threads assert the invariant
//!   inside their section and `main` the totals.
//! - [`Shape::Sections`]: atomic sections that load, store and increment cells through
//!   the global pointers `p` and `q` (plus constant offsets) while other threads
//!   retarget them between two arrays; some sections retarget `p` themselves, directly
//!   or through a pointer parameter that points at `p` (`__VERIFIER_atomic_retarget`),
//!   before storing through it. Threads and `main` assert on the cells. This is what the
//!   footprint of a pending section through a global pointer (`reach::ViaGlobal`)
//!   must get right.
//!
//! In some programs threads decide on inputs (`__VERIFIER_nondet_int`) whether to act,
//! so summaries of input-dependent paths matter. Programs have at most four threads
//! besides `main` and a few shared events each. Each assertion stands on a line of its
//! own. A seed reproduces a program exactly ([`super::gen::Rng`]).

use super::gen::Rng;
use std::fmt::Write;

/// The communication shape of a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Shape {
    Readers,
    Flags,
    Alias,
    MutexHole,
    Sections,
}

impl Shape {
    pub const ALL: [Shape; 5] = [
        Shape::Readers,
        Shape::Flags,
        Shape::Alias,
        Shape::MutexHole,
        Shape::Sections,
    ];
}

/// A generated program and its shape.
pub struct Shaped {
    pub text: String,
    pub shape: Shape,
}

/// The program of `seed` (its shape by the seed: each comes in turn).
pub fn shape_program(seed: u64) -> Shaped {
    let shape = Shape::ALL[(seed % Shape::ALL.len() as u64) as usize];
    let mut g = G {
        rng: Rng::new(seed ^ 0x5348_4150_4553),
        out: String::new(),
    };
    g.header();
    match shape {
        Shape::Readers => g.readers(),
        Shape::Flags => g.flags(),
        Shape::Alias => g.alias(),
        Shape::MutexHole => g.mutex_hole(),
        Shape::Sections => g.sections(),
    }
    Shaped { text: g.out, shape }
}

struct G {
    rng: Rng,
    out: String,
}

impl G {
    fn line(&mut self, indent: usize, text: &str) {
        let _ = writeln!(self.out, "{}{text}", "  ".repeat(indent));
    }

    fn header(&mut self) {
        self.line(0, "#include <pthread.h>");
        self.line(0, "#include <assert.h>");
        self.line(0, "extern int __VERIFIER_nondet_int(void);");
        self.line(0, "extern void __VERIFIER_assume(int);");
    }

    /// Opens `if (INPUT > 0) {` in some threads (`percent` of them): returns the indent
    /// of the body and whether a brace is open.
    fn maybe_guard(&mut self, percent: u64) -> (usize, bool) {
        if self.rng.chance(percent) {
            self.line(1, "if (__VERIFIER_nondet_int() > 0) {");
            (2, true)
        } else {
            (1, false)
        }
    }

    fn close_guard(&mut self, open: bool) {
        if open {
            self.line(1, "}");
        }
    }

    /// `main`'s creation of `threads` threads (names `t0..`), in a random order, with
    /// each one's argument.
    fn create_all(&mut self, threads: usize, args: &[String]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..threads).collect();
        for i in (1..order.len()).rev() {
            let j = self.rng.below(i as u64 + 1) as usize;
            order.swap(i, j);
        }
        self.line(1, &format!("pthread_t h[{threads}];"));
        for &t in &order {
            let arg = args.get(t).map(String::as_str).unwrap_or("0");
            self.line(1, &format!("pthread_create(&h[{t}], 0, t{t}, {arg});"));
        }
        order
    }

    /// One writer of `x` (and perhaps `y`), 2-3 readers keeping what they read.
    fn readers(&mut self) {
        let readers = 2 + self.rng.below(2) as usize;
        // The writer's stores: x = 1; or x = 1; x = 2; or x = 1; y = 1; or an input.
        let writes = self.rng.below(4);
        let input = writes == 3;
        self.line(0, "int x = 0, y = 0, w = 0;");
        let mut decl = Vec::new();
        for r in 0..readers {
            decl.push(format!("r{r} = -1, s{r} = -1"));
        }
        self.line(0, &format!("int {};", decl.join(", ")));
        // Values a read of `x` may return, for the assertions.
        let x_values: &[i64] = match writes {
            1 => &[0, 1, 2],
            3 => &[0, 1, 2],
            _ => &[0, 1],
        };
        self.line(0, "void *t0(void *arg) {");
        let (i, open) = self.maybe_guard(20);
        match writes {
            0 => self.line(i, "x = 1;"),
            1 => {
                self.line(i, "x = 1;");
                self.line(i, "x = 2;");
            }
            2 => {
                self.line(i, "x = 1;");
                self.line(i, "y = 1;");
            }
            _ => {
                self.line(i, "int v = __VERIFIER_nondet_int();");
                self.line(i, "__VERIFIER_assume(v >= 0 && v <= 2);");
                self.line(i, "w = v;");
                self.line(i, "x = v;");
            }
        }
        self.close_guard(open);
        self.line(1, "return 0;");
        self.line(0, "}");
        // What each reader's second read is: nothing, x again, or y.
        let mut second = Vec::new();
        for r in 0..readers {
            let t = r + 1;
            self.line(0, &format!("void *t{t}(void *arg) {{"));
            let (i, open) = self.maybe_guard(10);
            let s = match self.rng.below(3) {
                0 => None,
                1 => Some("x"),
                _ => Some(if writes == 2 { "y" } else { "x" }),
            };
            // `y` first, then `x`, in some readers: seeing y == 1 and then x == 0 is
            // impossible (message passing).
            let y_first = s == Some("y") && self.rng.chance(50);
            if y_first {
                self.line(i, &format!("s{r} = y;"));
            }
            if self.rng.chance(50) {
                self.line(i, &format!("r{r} = x;"));
            } else {
                self.line(i, "int a = x;");
                self.line(i, &format!("r{r} = a;"));
            }
            if let Some(v) = s.filter(|_| !y_first) {
                self.line(i, &format!("s{r} = {v};"));
                // Coherence (never violated): a second read of x sees no older store.
                if v == "x" && writes == 1 && self.rng.chance(50) {
                    self.line(i, &format!("assert(!(r{r} == 2 && s{r} == 1));"));
                }
                // Violated where the write falls between the two reads.
                if v == "x" && writes != 3 && self.rng.chance(30) {
                    self.line(i, &format!("assert(r{r} == s{r});"));
                }
            }
            second.push(s);
            self.close_guard(open);
            self.line(1, "return 0;");
            self.line(0, "}");
        }
        self.line(0, "int main(void) {");
        let order = self.create_all(readers + 1, &[]);
        let main_reads = self.rng.chance(30);
        if main_reads {
            self.line(1, "int m = x;");
        }
        // Every thread joined, or all but one reader.
        let unjoined = self
            .rng
            .chance(20)
            .then(|| 1 + self.rng.below(readers as u64) as usize);
        for &t in &order {
            if unjoined != Some(t) {
                self.line(1, &format!("pthread_join(h[{t}], 0);"));
            }
        }
        let value = |g: &mut G| x_values[g.rng.below(x_values.len() as u64) as usize];
        let asserts = 1 + self.rng.below(2);
        for _ in 0..asserts {
            // Two or three conjuncts over the readers' values (and main's, and the
            // input's): `assert(!(r0 == 1 && r1 == 0))` is the writer between them.
            let mut conj = Vec::new();
            let a = self.rng.below(readers as u64) as usize;
            let b = (a + 1 + self.rng.below(readers as u64 - 1) as usize) % readers;
            for r in [a, b] {
                let which = match second[r] {
                    Some(_) if self.rng.chance(30) => "s",
                    _ => "r",
                };
                let v = if which == "s" && second[r] == Some("y") {
                    self.rng.below(2) as i64
                } else {
                    value(self)
                };
                conj.push(format!("{which}{r} == {v}"));
            }
            if main_reads && self.rng.chance(40) {
                conj.push(format!("m == {}", value(self)));
            }
            if input && self.rng.chance(50) {
                conj.push(format!("w == {}", value(self)));
            }
            self.line(1, &format!("assert(!({}));", conj.join(" && ")));
        }
        self.line(1, "return 0;");
        self.line(0, "}");
    }

    /// Message passing through `ready` (and `ready2`).
    fn flags(&mut self) {
        let two = self.rng.chance(40);
        // The writer raises a flag before its data (a bug) in some programs.
        let early = self.rng.chance(25);
        let (k, k2) = (1 + self.rng.below(3) as i64, 5 + self.rng.below(3) as i64);
        self.line(0, "int data = 0, data2 = 0, ready = 0, ready2 = 0;");
        self.line(0, "int seen0 = -1, seen1 = -1, seen2 = -1;");
        let readers = 1 + self.rng.below(3) as usize;
        self.line(0, "void *t0(void *arg) {");
        let (i, open) = self.maybe_guard(15);
        if early {
            self.line(i, "ready = 1;");
        }
        self.line(i, &format!("data = {k};"));
        if !early {
            self.line(i, "ready = 1;");
        }
        if two {
            self.line(i, &format!("data2 = {k2};"));
            self.line(i, "ready2 = 1;");
        }
        self.close_guard(open);
        self.line(1, "return 0;");
        self.line(0, "}");
        for r in 0..readers {
            let t = r + 1;
            self.line(0, &format!("void *t{t}(void *arg) {{"));
            self.line(1, "int a = 0, b = 0, c = 0;");
            let flag = if two && self.rng.chance(50) {
                "ready2"
            } else {
                "ready"
            };
            match self.rng.below(5) {
                // The flag, then the data: safe unless the writer is early.
                0 | 1 => {
                    self.line(1, &format!("a = {flag};"));
                    self.line(1, "if (a == 1) {");
                    self.line(2, "b = data;");
                    if two {
                        self.line(2, "c = data2;");
                    }
                    self.line(2, &format!("seen{r} = b;"));
                    self.line(2, &format!("assert(b == {k});"));
                    if two && flag == "ready2" {
                        self.line(2, &format!("assert(c == {k2});"));
                    }
                    self.line(1, "}");
                }
                // The data, then the flag: violated (the flag raised in between).
                2 => {
                    self.line(1, "b = data;");
                    self.line(1, &format!("a = {flag};"));
                    self.line(1, &format!("seen{r} = b;"));
                    self.line(1, &format!("assert(!(a == 1 && b != {k}));"));
                }
                // A spin on the flag.
                3 => {
                    self.line(1, &format!("while ({flag} == 0) ;"));
                    self.line(1, "b = data;");
                    self.line(1, &format!("seen{r} = b;"));
                    self.line(1, &format!("assert(b == {k});"));
                }
                // Both flags in either order, then the data.
                _ => {
                    self.line(1, "a = ready;");
                    self.line(1, "c = ready2;");
                    self.line(1, "b = data;");
                    self.line(1, &format!("seen{r} = b;"));
                    self.line(1, &format!("assert(!((a == 1 || c == 1) && b != {k}));"));
                }
            }
            self.line(1, "return 0;");
            self.line(0, "}");
        }
        self.line(0, "int main(void) {");
        let order = self.create_all(readers + 1, &[]);
        for &t in &order {
            self.line(1, &format!("pthread_join(h[{t}], 0);"));
        }
        if readers >= 2 && self.rng.chance(50) {
            // Two readers saw different data: violated when one read before the store.
            self.line(1, "assert(!(seen0 == 0 && seen1 > 0));");
        } else {
            self.line(1, &format!("assert(data == {k});"));
        }
        self.line(1, "return 0;");
        self.line(0, "}");
    }

    /// Stores and increments of one cell through different names.
    fn alias(&mut self) {
        let threads = 2 + self.rng.below(2) as usize;
        self.line(0, "int arr[3] = {0, 0, 0};");
        self.line(0, "int x = 0;");
        self.line(0, "int *q = arr;");
        self.line(0, "int r0 = -1, r1 = -1, r2 = -1;");
        // The cell most accesses go to (another sometimes).
        let cell = self.rng.below(3) as i64;
        let mut args = vec!["0".to_string(); threads];
        let mut stored = vec![0i64];
        for t in 0..threads {
            let target_cell = if self.rng.chance(80) {
                cell
            } else {
                self.rng.below(3) as i64
            };
            // How this thread names the cell.
            let name = match self.rng.below(6) {
                0 => format!("arr[{target_cell}]"),
                1 => format!("*(arr + {target_cell})"),
                2 => format!("q[{target_cell}]"),
                3 => "*p".to_string(),
                4 => "*(int *)arg".to_string(),
                _ => "arr[i]".to_string(),
            };
            if name == "*(int *)arg" {
                args[t] = format!("&arr[{target_cell}]");
            }
            self.line(0, &format!("void *t{t}(void *arg) {{"));
            self.line(1, "int a = 0;");
            if name == "*p" {
                self.line(1, &format!("int *p = &arr[{target_cell}];"));
            }
            if name == "arr[i]" {
                // An input index: the cell or its neighbour.
                self.line(1, "int i = __VERIFIER_nondet_int();");
                self.line(
                    1,
                    &format!(
                        "__VERIFIER_assume(i == {target_cell} || i == {});",
                        (target_cell + 1) % 3
                    ),
                );
            }
            let (i, open) = self.maybe_guard(15);
            match self.rng.below(4) {
                0 => {
                    let k = 1 + t as i64;
                    stored.push(k);
                    self.line(i, &format!("{name} = {k};"));
                }
                1 => {
                    self.line(i, &format!("a = {name};"));
                    self.line(i, &format!("{name} = a + 1;"));
                    stored.push(1);
                    stored.push(2);
                }
                2 => {
                    self.line(i, &format!("r{t} = {name};"));
                }
                _ => {
                    // Store then read back: violated when another store falls between.
                    let k = 4 + t as i64;
                    stored.push(k);
                    self.line(i, &format!("{name} = {k};"));
                    self.line(i, &format!("a = {name};"));
                    self.line(i, &format!("assert(a == {k});"));
                }
            }
            self.close_guard(open);
            self.line(1, "return 0;");
            self.line(0, "}");
        }
        self.line(0, "int main(void) {");
        let order = self.create_all(threads, &args);
        if self.rng.chance(30) {
            // main stores to the cell too, before the joins.
            self.line(1, &format!("x = arr[{cell}];"));
            self.line(1, &format!("arr[{cell}] = 3;"));
            stored.push(3);
        }
        for &t in &order {
            self.line(1, &format!("pthread_join(h[{t}], 0);"));
        }
        let k = stored[self.rng.below(stored.len() as u64) as usize];
        match self.rng.below(3) {
            0 => self.line(1, &format!("assert(arr[{cell}] != {k});")),
            1 => {
                let t = self.rng.below(threads as u64);
                self.line(1, &format!("assert(r{t} != {k});"));
            }
            _ => self.line(1, &format!("assert(arr[{cell}] + x != {k});")),
        }
        self.line(1, "return 0;");
        self.line(0, "}");
    }

    /// Counters under a mutex, with one access outside it in some programs.
    fn mutex_hole(&mut self) {
        let threads = 2 + self.rng.below(2) as usize;
        let hole = self
            .rng
            .chance(70)
            .then(|| self.rng.below(threads as u64) as usize);
        self.line(0, "pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;");
        self.line(0, "pthread_mutex_t m2 = PTHREAD_MUTEX_INITIALIZER;");
        self.line(0, "int x = 0, y = 0, c = 0;");
        let mut increments = 0;
        for t in 0..threads {
            self.line(0, &format!("void *t{t}(void *arg) {{"));
            self.line(1, "int a = 0, b = 0;");
            let broken = hole == Some(t);
            // Unlocked, or under the other mutex.
            let how = if broken { self.rng.below(2) } else { 2 };
            let lock = if how == 1 { "m2" } else { "m" };
            let role = self.rng.below(3);
            // The guard an input sets (in some threads): main's totals then fail.
            let (i, open) = self.maybe_guard(15);
            if how != 0 {
                self.line(i, &format!("pthread_mutex_lock(&{lock});"));
            }
            match role {
                // Both counters.
                0 => {
                    self.line(i, "a = x;");
                    self.line(i, "x = a + 1;");
                    self.line(i, "y = y + 1;");
                    increments += 1;
                }
                // The invariant.
                1 => {
                    self.line(i, "a = x;");
                    self.line(i, "b = y;");
                    self.line(i, "assert(a == b);");
                }
                // Another counter, and the invariant after it.
                _ => {
                    self.line(i, "c = c + 1;");
                    self.line(i, "x = x + 1;");
                    self.line(i, "y = y + 1;");
                    self.line(i, "assert(x == y);");
                    increments += 1;
                }
            }
            if how != 0 {
                self.line(i, &format!("pthread_mutex_unlock(&{lock});"));
            }
            self.close_guard(open);
            self.line(1, "return 0;");
            self.line(0, "}");
        }
        self.line(0, "int main(void) {");
        let order = self.create_all(threads, &[]);
        for &t in &order {
            self.line(1, &format!("pthread_join(h[{t}], 0);"));
        }
        self.line(1, "assert(x == y);");
        if self.rng.chance(50) {
            self.line(1, &format!("assert(x == {increments});"));
        }
        self.line(1, "return 0;");
        self.line(0, "}");
    }

    /// Atomic sections through the global pointers `p` and `q`, which threads retarget.
    /// The arrays have room for the largest offset (`cells + 1` plus index 3).
    fn sections(&mut self) {
        let threads = 2 + self.rng.below(2) as usize;
        self.line(0, "extern void __VERIFIER_atomic_begin(void);");
        self.line(0, "extern void __VERIFIER_atomic_end(void);");
        self.line(0, "int cells[5];");
        self.line(0, "int other[5];");
        self.line(0, "int *p = cells;");
        self.line(0, "int *q = other;");
        self.line(0, "int n = 0;");
        // Retargets `*pp` and stores through `p`: the cell written is not the one `p`
        // pointed to when the section started when `pp == &p`.
        self.line(0, "void __VERIFIER_atomic_retarget(int **pp, int *to) {");
        self.line(1, "*pp = to;");
        self.line(1, "p[1] = 3;");
        self.line(0, "}");
        // In some programs the last thread only checks a cell: its read then races with
        // nothing but the stores that reach that cell.
        let checker = self.rng.chance(40);
        for t in 0..threads {
            self.line(0, &format!("void *t{t}(void *arg) {{"));
            if checker && t == threads - 1 {
                let line = self.check_op();
                self.line(1, &line);
                self.line(1, "return 0;");
                self.line(0, "}");
                continue;
            }
            let (i, open) = self.maybe_guard(15);
            for _ in 0..1 + self.rng.below(3) {
                self.section_op(i);
            }
            self.close_guard(open);
            self.line(1, "return 0;");
            self.line(0, "}");
        }
        self.line(0, "int main(void) {");
        let order = self.create_all(threads, &[]);
        if self.rng.chance(40) {
            self.section_op(1);
        }
        for &t in &order {
            self.line(1, &format!("pthread_join(h[{t}], 0);"));
        }
        let (k, j, v) = (self.rng.below(4), self.rng.below(4), self.rng.below(5));
        self.line(1, &format!("assert(cells[{k}] + other[{j}] != {v});"));
        self.line(1, "return 0;");
        self.line(0, "}");
    }

    /// One statement of [`G::sections`].
    fn section_op(&mut self, i: usize) {
        let (k, j, v) = (self.rng.below(4), self.rng.below(4), 1 + self.rng.below(3));
        let text = match self.rng.below(11) {
            0 | 1 => format!("__VERIFIER_atomic_begin(); p[{k}] = {v}; __VERIFIER_atomic_end();"),
            2 => format!(
                "__VERIFIER_atomic_begin(); q[{j}] = p[{k}] + {v}; __VERIFIER_atomic_end();"
            ),
            3 => format!(
                "__VERIFIER_atomic_begin(); {{ int r = p[{k}]; p[{j}] = r + 1; }} \
                 __VERIFIER_atomic_end();"
            ),
            4 => format!(
                "__VERIFIER_atomic_begin(); n = n + 1; p[{k}] = n; __VERIFIER_atomic_end();"
            ),
            5 => format!(
                "__VERIFIER_atomic_begin(); if (p[{k}] == {v}) q[{j}] = 1; \
                 __VERIFIER_atomic_end();"
            ),
            6 => [
                "p = other;",
                "p = cells;",
                "q = cells;",
                "p = cells + 1;",
                "q = other + 1;",
            ][self.rng.below(5) as usize]
                .to_string(),
            7 => format!(
                "__VERIFIER_atomic_begin(); p = other; p[{k}] = {v}; __VERIFIER_atomic_end();"
            ),
            8 => [
                "__VERIFIER_atomic_retarget(&p, other);",
                "__VERIFIER_atomic_retarget(&q, cells);",
            ][self.rng.below(2) as usize]
                .to_string(),
            _ => self.check_op(),
        };
        self.line(i, &text);
    }

    /// An assertion on the cells of [`G::sections`].
    fn check_op(&mut self) -> String {
        let (k, j, v) = (self.rng.below(4), self.rng.below(4), 1 + self.rng.below(3));
        match self.rng.below(3) {
            0 => format!("assert(cells[{k}] != {v} || other[{j}] != 0);"),
            // The value only `__VERIFIER_atomic_retarget` stores.
            1 => ["assert(other[1] != 3);", "assert(cells[1] != 3);"][self.rng.below(2) as usize]
                .to_string(),
            _ => format!("if (other[{j}] == {v}) assert(cells[{k}] != {v});"),
        }
    }
}
