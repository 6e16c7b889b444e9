use super::*;
use analysis::facts::{FuncId, StmtId, Var};
use std::path::Path;

fn facts() -> Facts {
    // s0 → s1 → s2, s1 → s0 (a loop); s0 stores v1 into *v2.
    let mut f = Facts::default();
    f.cfg_edge = vec![
        (StmtId(0), StmtId(1)),
        (StmtId(1), StmtId(2)),
        (StmtId(1), StmtId(0)),
    ];
    f.stmt_func = (0..3).map(|i| (StmtId(i), FuncId(0))).collect();
    f.store = vec![(StmtId(0), Var(2), Var(1))];
    f.names.stmts = vec!["t.c:1".into(), "t.c:2".into(), "t.c:3".into()];
    f
}

fn eval(text: &str) -> Result<Evaluation, DlError> {
    let facts = facts();
    let file = RulesFile::parse(text, Path::new("t.dl"))?;
    evaluate(&file, &Inputs::new(&facts))
}

fn err(text: &str) -> String {
    match eval(text) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

const EDGE: &str = ".decl cfg_edge(from: symbol, to: symbol)\n.input cfg_edge\n";

#[test]
fn transitive_closure_and_negation() {
    let e = eval(&format!(
        "{EDGE}.decl path(a: symbol, b: symbol)\npath(a, b) :- cfg_edge(a, b).\npath(a, c) :- path(a, b), cfg_edge(b, c).\n\
         .decl acyclic(a: symbol)\nacyclic(a) :- cfg_edge(a, _), !path(a, a).\n.output path\n"
    ))
    .unwrap();
    let mut path = e.tuples("path").unwrap();
    path.sort();
    assert_eq!(path.len(), 6, "{path:?}"); // {0,1}×{0,1,2}
    assert!(e.tuples("acyclic").unwrap().is_empty());
    assert_eq!(e.outputs(), vec!["path"]);
    assert_eq!(e.symbols().render(path[0][0]), "s0@t.c:1");
}

#[test]
fn arithmetic_comparison_count_and_constants() {
    let e = eval(&format!(
        "{EDGE}.decl n(x: number)\nn(1). n(2). n(3).\n.decl big(x: number, y: number)\nbig(x, y) :- n(x), y = x * 10 + 1, y > 15.\n\
         .decl out_deg(s: symbol, k: number)\nout_deg(s, k) :- cfg_edge(s, _), k = count : {{ cfg_edge(s, _) }}.\n\
         .decl from1(t: symbol)\nfrom1(t) :- cfg_edge(\"s1\", t).\n"
    ))
    .unwrap();
    let mut big = e.tuples("big").unwrap();
    big.sort();
    assert_eq!(big, vec![vec![2, 21], vec![3, 31]]);
    let mut deg: Vec<(String, i64)> = e
        .tuples("out_deg")
        .unwrap()
        .into_iter()
        .map(|t| (e.symbols().render(t[0]), t[1]))
        .collect();
    deg.sort();
    assert_eq!(deg, vec![("s0@t.c:1".into(), 1), ("s1@t.c:2".into(), 2)]);
    assert_eq!(e.tuples("from1").unwrap().len(), 2);
}

#[test]
fn error_bad_rule_has_line_and_column() {
    let m = err(&format!(
        "{EDGE}.decl p(a: symbol)\np(a) :- cfg_edge(a b).\n"
    ));
    assert_eq!(m, "t.dl:4:20: expected `)`, found `b`");
}

#[test]
fn error_unknown_relation() {
    let m = err(&format!(
        "{EDGE}.decl p(a: symbol)\np(a) :- cfg_edgee(a, _).\n"
    ));
    assert_eq!(
        m,
        "t.dl:4:9: unknown relation `cfg_edgee` (not declared with .decl)"
    );
}

#[test]
fn error_arity_mismatch() {
    let m = err(&format!("{EDGE}.decl p(a: symbol)\np(a) :- cfg_edge(a).\n"));
    assert!(
        m.starts_with("t.dl:4:9: arity mismatch: `cfg_edge` has 2 columns"),
        "{m}"
    );
    let m = err(".decl cfg_edge(from: symbol)\n.input cfg_edge\n");
    assert!(
        m.starts_with("t.dl:1:7: arity mismatch: input relation `cfg_edge` has 2 columns"),
        "{m}"
    );
}

#[test]
fn error_unstratifiable_negation() {
    let m = err(&format!(
        "{EDGE}.decl p(a: symbol)\n.decl q(a: symbol)\np(a) :- cfg_edge(a, _), !q(a).\nq(a) :- p(a).\n"
    ));
    assert_eq!(
        m,
        "t.dl:5:26: unstratifiable negation: `p` depends on `!q` (or its count), but `q` depends on `p` (cycle p → q → p)"
    );
}

#[test]
fn error_ungrounded_and_types() {
    let m = err(&format!(
        "{EDGE}.decl p(a: symbol, b: symbol)\np(a, b) :- cfg_edge(a, _).\n"
    ));
    assert_eq!(
        m,
        "t.dl:4:6: variable `b` is not bound by a positive atom (ungrounded)"
    );
    let m = err(&format!(
        "{EDGE}.decl p(a: number)\np(a) :- cfg_edge(a, _).\n"
    ));
    assert!(m.starts_with("t.dl:4:3: type mismatch"), "{m}");
    let m = err(&format!(
        "{EDGE}.decl p(a: symbol)\np(a) :- cfg_edge(a, b), a < b.\n"
    ));
    assert!(m.contains("ordering comparison of symbols"), "{m}");
    let m = err(".decl nothing(a: symbol)\n.input nothing\n");
    assert!(m.contains("agx has no input relation `nothing`"), "{m}");
}

#[test]
fn builtin_relation_as_input() {
    let e = eval(".decl pt(var: symbol, obj: symbol, offset: number)\n.input pt\n.decl n(k: number)\nn(k) :- k = count : pt(_, _, _).\n").unwrap();
    assert_eq!(e.tuples("n").unwrap(), vec![vec![0]]);
}
