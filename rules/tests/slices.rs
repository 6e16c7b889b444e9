//! Slices of small C programs written inline: the interprocedural and concurrent cases
//! that the paper figures do not cover.

use analysis::facts::{extract, Facts, StmtId};
use rules::Analysis;
use std::collections::BTreeSet;

fn analyze(name: &str, source: &str) -> (Facts, Analysis) {
    let dir = std::env::temp_dir().join(format!("agx-rules-slices-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, source).unwrap();
    let program = analysis::load_program(&path, &Default::default()).unwrap();
    let facts = extract(&program);
    let analysis = Analysis::run(&facts);
    (facts, analysis)
}

fn lines(facts: &Facts, stmts: &BTreeSet<StmtId>) -> BTreeSet<u32> {
    stmts
        .iter()
        .map(|s| facts.stmt_line.iter().find(|l| l.0 == *s).unwrap().2)
        .collect()
}

fn error_slice(facts: &Facts, a: &Analysis) -> BTreeSet<u32> {
    let targets: Vec<StmtId> = facts.error_site.iter().map(|e| e.0).collect();
    lines(facts, &a.backward_slice(&targets))
}

#[test]
fn a_callee_that_may_exit_controls_what_follows_the_call() {
    let src = "#include <stdlib.h>\n\
               int g;\n\
               void f(int c) { if (c) exit(0); }\n\
               int main(void) { int c = __VERIFIER_nondet_int();\n\
               f(c);\n\
               assert(g == 1); return 0; }\n";
    let (facts, a) = analyze("exit.c", src);
    let slice = error_slice(&facts, &a);
    assert!(slice.contains(&3), "the branch deciding exit(0): {slice:?}");
    assert!(slice.contains(&5), "the call: {slice:?}");
}

#[test]
fn parameters_and_returns_carry_dependence_context_sensitively() {
    let src = "int id(int x) { return x; }\n\
               int main(void) { int a = __VERIFIER_nondet_int(); int b = __VERIFIER_nondet_int();\n\
               int u = id(a);\n\
               int v = id(b);\n\
               assert(u != 3); return v; }\n";
    let (facts, a) = analyze("ctx.c", src);
    let slice = error_slice(&facts, &a);
    assert!(slice.contains(&1) && slice.contains(&3), "{slice:?}");
    assert!(
        !slice.contains(&4),
        "the other call of id does not flow into u: {slice:?}"
    );
}

#[test]
fn a_write_in_another_thread_reaches_the_read() {
    let src = "#include <pthread.h>\n\
               int x;\n\
               void *w(void *p) { x = 5; return 0; }\n\
               int main(void) { pthread_t t; pthread_create(&t, 0, w, 0);\n\
               int r = x;\n\
               assert(r != 5); pthread_join(t, 0); return 0; }\n";
    let (facts, a) = analyze("mt.c", src);
    let slice = error_slice(&facts, &a);
    assert!(slice.contains(&3), "the other thread's write: {slice:?}");
    assert!(!a.dependence.inter_thread.is_empty());
}

#[test]
fn a_write_after_the_join_does_not_reach_a_read_in_the_thread() {
    let src = "#include <pthread.h>\n\
               int x;\n\
               void *w(void *p) { int r = x; assert(r != 7); return 0; }\n\
               int main(void) { pthread_t t; pthread_create(&t, 0, w, 0);\n\
               pthread_join(t, 0);\n\
               x = 7; return 0; }\n";
    let (facts, a) = analyze("join.c", src);
    assert_eq!(
        a.happens_before.join_of.len(),
        1,
        "the join is matched to its create"
    );
    let slice = error_slice(&facts, &a);
    assert!(
        !slice.contains(&6),
        "x = 7 runs after the thread ended: {slice:?}"
    );
}
