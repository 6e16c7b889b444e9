//! Issue 10's wrong verdicts as small pinned programs, one test each.

use super::check::check;
use super::Limits;

/// What the concrete runs of a pinned program must find (a fact of C, checked with gcc
/// where the interpreter got it wrong).
pub(crate) enum Expect {
    /// The assertion on this line fails on some run.
    Assertion(u32),
    /// Some run has undefined behaviour of this kind (`ViolationKind::name`).
    Undefined(&'static str),
}

/// Issue 10's wrong verdicts as small programs. Each fails on the tree before the fixes
/// (the check that catches it in the comment) and must pass after them.
pub(crate) const PINNED: &[(&str, &str, Expect)] = &[
    // (1) dpor+ag, agx verify: SAFE against the concrete violation.
    (
        "case1_printf_only_branch",
        "#include <stdio.h>
#include <assert.h>
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int k = __VERIFIER_nondet_int();
  if (k == 0) printf(\"zero\\n\");
  assert(k != 1);
  return 0;
}
",
        Expect::Assertion(7),
    ),
    // (2) dpor+ag, agx verify: SAFE (the race on y is dropped, its order kept).
    (
        "case2_partial_join",
        "#include <pthread.h>
#include <assert.h>
int x, y;
void *t0(void *a) { x = 1; y = 1; return 0; }
void *t1(void *a) { y = 2; return 0; }
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, t0, 0);
  pthread_create(&q, 0, t1, 0);
  pthread_join(q, 0);
  assert(x == 1);
  return 0;
}
",
        Expect::Assertion(11),
    ),
    // (2), the second shape of the issue: a read-write of x on an input branch races
    // with t0's store.
    (
        "case2b_branch_rewrites_racy_global",
        "#include <pthread.h>
#include <assert.h>
extern int __VERIFIER_nondet_int(void);
int x;
void *t0(void *a) { x = 1; return 0; }
void *t1(void *a) {
  int k = __VERIFIER_nondet_int();
  if (k == 0) { int r = x; x = r; }
  return 0;
}
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, t0, 0);
  pthread_create(&q, 0, t1, 0);
  pthread_join(p, 0);
  pthread_join(q, 0);
  assert(x == 1);
  return 0;
}
",
        Expect::Assertion(17),
    ),
    // (3) dpor+ag, agx verify: SAFE (the branches that open and close the section are cut).
    (
        "case3_atomic_section_in_a_branch",
        "#include <pthread.h>
#include <assert.h>
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);
int x;
void *t1(void *a) {
  int k = __VERIFIER_nondet_int();
  if (k) __VERIFIER_atomic_begin();
  x = 1;
  x = 0;
  if (k) __VERIFIER_atomic_end();
  return 0;
}
void *t2(void *a) {
  assert(x != 1);
  return 0;
}
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, t1, 0);
  pthread_create(&q, 0, t2, 0);
  return 0;
}
",
        Expect::Assertion(16),
    ),
    // (4) agx hunt: REFUTED ("function `bad` is never called").
    (
        "case4_function_pointer_through_join",
        "#include <pthread.h>
#include <assert.h>
void bad(void) {
  assert(0);
}
void *t(void *a) { return (void *)bad; }
int main(void) {
  pthread_t th;
  void *r;
  pthread_create(&th, 0, t, 0);
  pthread_join(th, &r);
  ((void (*)(void))r)();
  return 0;
}
",
        Expect::Assertion(4),
    ),
    // (4) through pthread_exit.
    (
        "case4b_function_pointer_through_exit",
        "#include <pthread.h>
#include <assert.h>
void bad(void) {
  assert(0);
}
void *t(void *a) { pthread_exit((void *)bad); }
int main(void) {
  pthread_t th;
  void *r;
  pthread_create(&th, 0, t, 0);
  pthread_join(th, &r);
  ((void (*)(void))r)();
  return 0;
}
",
        Expect::Assertion(4),
    ),
    // (5) the inner parameter list taken for pick's: `pick(k: u8)`, so pick(256) returns
    // null and no run fails; gcc's binary aborts at line 3 (the expected concrete
    // violation is missing).
    (
        "case5_function_returning_function_pointer",
        "#include <assert.h>
void f(unsigned char c) {
  assert(c != 0);
}
void (*pick(int k))(unsigned char k) {
  if (k == 256)
    return f;
  return 0;
}
int main(void) {
  void (*g)(unsigned char) = pick(256);
  if (g)
    g(0);
  return 0;
}
",
        Expect::Assertion(3),
    ),
    // (5) with another inner name: the program does not lower (`k` undeclared).
    (
        "case5b_inner_parameter_named_differently",
        "#include <assert.h>
void f(unsigned char c) {
  assert(c != 0);
}
void (*pick(int k))(unsigned char c) {
  if (k == 256)
    return f;
  return 0;
}
int main(void) {
  void (*g)(unsigned char) = pick(256);
  if (g)
    g(0);
  return 0;
}
",
        Expect::Assertion(3),
    ),
    // (6) dpor+ag: SAFE where a run dereferences null (baseline and dpor: UNKNOWN).
    (
        "case6_null_dereference_on_a_cut_branch",
        "#include <pthread.h>
#include <assert.h>
extern int __VERIFIER_nondet_int(void);
int *np;
int stat, g;
void *t(void *a) {
  int c = __VERIFIER_nondet_int();
  if (c == 2) stat = 1; else stat = *np;
  g = 1;
  return 0;
}
int main(void) {
  pthread_t th;
  pthread_create(&th, 0, t, 0);
  pthread_join(th, 0);
  assert(g == 1);
  return 0;
}
",
        Expect::Undefined("null dereference"),
    ),
    // (7) POSIX lets pthread_cond_wait return without a signal; with `if` instead of
    // `while`, `a` is then 0. The searches said SAFE and no run could show it.
    (
        "case7_spurious_wakeup",
        "#include <pthread.h>
#include <assert.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
int ready = 0;
void *t(void *arg) {
  pthread_mutex_lock(&m);
  ready = 1;
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&m);
  return 0;
}
int main(void) {
  pthread_t th;
  pthread_create(&th, 0, t, 0);
  pthread_mutex_lock(&m);
  if (!ready)
    pthread_cond_wait(&cv, &m);
  int a = ready;
  pthread_mutex_unlock(&m);
  assert(a == 1);
  pthread_join(th, 0);
  return 0;
}
",
        Expect::Assertion(21),
    ),
];

/// Checks one pinned program: the oracle, and the concrete finding it must have.
pub(crate) fn pinned(name: &str) {
    let (_, text, expect) = PINNED
        .iter()
        .find(|(n, _, _)| *n == name)
        .expect("a pinned program");
    let dir = std::env::temp_dir().join(format!("agx-oracle-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let path = dir.join(format!("{name}.c"));
    std::fs::write(&path, text).expect("write program");
    let checked = check(&path, text, 1, &Limits::from_env());
    let mut problems = checked.mismatches.clone();
    let found = match expect {
        Expect::Assertion(line) => checked.concrete.assertions.contains_key(line),
        Expect::Undefined(kind) => checked
            .concrete
            .undefined
            .keys()
            .any(|k| k.starts_with(kind)),
    };
    // Only meaningful when the program lowered (else the mismatch says why).
    if !found && checked.concrete.runs > 0 {
        problems.push(format!(
            "the concrete runs do not find the expected {}",
            match expect {
                Expect::Assertion(line) => format!("assertion failure at line {line}"),
                Expect::Undefined(kind) => kind.to_string(),
            }
        ));
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        problems.is_empty(),
        "{name}:\n{}\n{}",
        problems.join("\n"),
        checked.report
    );
}

#[test]
fn case1_printf_only_branch() {
    pinned("case1_printf_only_branch");
}

#[test]
fn case2_partial_join() {
    pinned("case2_partial_join");
}

#[test]
fn case2b_branch_rewrites_racy_global() {
    pinned("case2b_branch_rewrites_racy_global");
}

#[test]
fn case3_atomic_section_in_a_branch() {
    pinned("case3_atomic_section_in_a_branch");
}

#[test]
fn case4_function_pointer_through_join() {
    pinned("case4_function_pointer_through_join");
}

#[test]
fn case4b_function_pointer_through_exit() {
    pinned("case4b_function_pointer_through_exit");
}

#[test]
fn case5_function_returning_function_pointer() {
    pinned("case5_function_returning_function_pointer");
}

#[test]
fn case5b_inner_parameter_named_differently() {
    pinned("case5b_inner_parameter_named_differently");
}

#[test]
fn case6_null_dereference_on_a_cut_branch() {
    pinned("case6_null_dereference_on_a_cut_branch");
}

#[test]
fn case7_spurious_wakeup() {
    pinned("case7_spurious_wakeup");
}
