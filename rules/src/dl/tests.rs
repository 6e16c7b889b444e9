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
        "t.dl:5:26: unstratifiable negation: `p` depends on `!q` (or an aggregate over it), but `q` depends on `p` (cycle p → q → p)"
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

#[test]
fn parenthesized_disjunction_and_parenthesized_arithmetic() {
    let e = eval(
        ".decl n(x: number)\nn(1). n(2). n(3). n(4).\n.decl m(x: number)\n\
         m(x) :- n(x), (x = 1 ; x = 4), (x + 1) * 2 > 3.\n",
    )
    .unwrap();
    let mut m = e.tuples("m").unwrap();
    m.sort();
    assert_eq!(m, vec![vec![1], vec![4]]);
}

#[test]
fn error_unstratifiable_count() {
    let m = err(&format!(
        "{EDGE}.decl p(a: symbol, n: number)\np(a, n) :- cfg_edge(a, _), n = count : {{ p(a, _) }}.\n"
    ));
    assert!(m.starts_with("t.dl:4:"), "{m}");
    assert!(
        m.contains("unstratifiable negation: `p` depends on `!p` (or an aggregate over it)"),
        "{m}"
    );
}

#[test]
fn nullary_relations_string_facts_and_division_by_zero() {
    let e = eval(
        ".decl e(a: symbol, b: symbol)\ne(\"x\", \"y\"). e(\"y\", \"z\").\n\
         .decl has_path()\nhas_path() :- e(\"x\", m), e(m, \"z\").\n\
         .decl none()\nnone() :- e(_, _), !has_path().\n\
         .decl d(q: number)\n.decl n(k: number)\nn(0). n(2).\nd(q) :- n(k), q = 10 / k.\n",
    )
    .unwrap();
    assert_eq!(e.tuples("has_path").unwrap().len(), 1);
    assert!(e.tuples("none").unwrap().is_empty());
    assert_eq!(e.tuples("d").unwrap(), vec![vec![5]]);
    assert_eq!(e.symbols().render(e.tuples("e").unwrap()[0][0]), "x");
}

#[test]
fn malformed_files_are_errors_not_panics() {
    for (text, want) in [
        ("p(x", "t.dl:1:4: expected `)`, found the end of the file"),
        (
            ".decl p(a: float)",
            "t.dl:1:12: type `float` is not supported",
        ),
        (".comp C {}", "t.dl:1:1: unsupported directive `.comp`"),
        (
            "#define X 1",
            "t.dl:1:1: unsupported preprocessor directive `#define`",
        ),
        (
            ".decl p(a: number)\np(x).",
            "t.dl:2:3: variable `x` is not bound by a positive atom (ungrounded)",
        ),
        (
            ".decl p(a: number)\np(1) :- p(x), y = cat(x).",
            "t.dl:2:19: functor `cat(...)` is not supported (arithmetic: + - * / %, functor: ord",
        ),
        ("/* open", "t.dl:1:1: unterminated comment"),
    ] {
        let m = err(text);
        assert!(m.starts_with(want), "{text:?}: {m}");
    }
}

#[test]
fn min_max_sum_aggregates() {
    let e = eval(
        ".decl n(g: symbol, x: number)\nn(\"a\", 3). n(\"a\", -2). n(\"a\", 7). n(\"b\", 5).\n\
         .decl g(g: symbol)\ng(\"a\"). g(\"b\"). g(\"c\").\n\
         .decl stats(g: symbol, lo: number, hi: number, total: number)\n\
         stats(g, lo, hi, t) :- g(g), lo = min x : { n(g, x) }, hi = max x + 1 : n(g, x), t = sum x : { n(g, x) }.\n\
         .decl total(g: symbol, t: number)\ntotal(g, t) :- g(g), t = sum x : { n(g, x) }.\n",
    )
    .unwrap();
    let render = |rel: &str| -> Vec<String> {
        let mut v: Vec<String> = e
            .tuples(rel)
            .unwrap()
            .into_iter()
            .map(|t| {
                let rest: Vec<String> = t[1..].iter().map(i64::to_string).collect();
                format!("{} {}", e.symbols().render(t[0]), rest.join(" "))
            })
            .collect();
        v.sort();
        v
    };
    // `c` has no value: no min or max, so no stats; its sum is 0.
    assert_eq!(render("stats"), vec!["a -2 8 8", "b 5 6 5"]);
    assert_eq!(render("total"), vec!["a 8", "b 5", "c 0"]);
}

#[test]
fn ord_orders_statements_by_id() {
    let e = eval(&format!(
        "{EDGE}.decl fwd(a: symbol, b: symbol)\nfwd(a, b) :- cfg_edge(a, b), ord(a) < ord(b).\n\
         .decl first(s: symbol)\nfirst(s) :- cfg_edge(s, _), ord(s) = min ord(x) : cfg_edge(x, _).\n"
    ))
    .unwrap();
    let mut fwd: Vec<String> = e
        .tuples("fwd")
        .unwrap()
        .iter()
        .map(|t| format!("{} {}", e.symbols().render(t[0]), e.symbols().render(t[1])))
        .collect();
    fwd.sort();
    // s1 → s0 goes back.
    assert_eq!(fwd, vec!["s0@t.c:1 s1@t.c:2", "s1@t.c:2 s2@t.c:3"]);
    let first = e.tuples("first").unwrap();
    assert_eq!(first.len(), 1);
    assert_eq!(e.symbols().render(first[0][0]), "s0@t.c:1");
}

#[test]
fn aggregate_and_ord_errors_name_line_and_column() {
    for (text, want) in [
        (
            format!("{EDGE}.decl p(a: symbol, m: number)\np(a, m) :- cfg_edge(a, _), m = min b : {{ cfg_edge(a, b) }}.\n"),
            "t.dl:4:36: type mismatch: `min` of a symbol (use `ord(…)` for its order)",
        ),
        (
            format!("{EDGE}.decl p(a: number)\np(m) :- cfg_edge(a, _), m = ord(1).\n"),
            "t.dl:4:29: type mismatch: `ord` takes a symbol",
        ),
        (
            format!("{EDGE}.decl p(a: symbol, m: number)\np(a, m) :- cfg_edge(a, _), p(a, _), m = max k : p(_, k).\n"),
            "t.dl:4:49: unstratifiable negation: `p` depends on `!p` (or an aggregate over it)",
        ),
        (
            format!("{EDGE}.decl p(m: number)\np(max k : {{ cfg_edge(_, _), k = 1 }}).\n"),
            "t.dl:4:3: an aggregate in a rule head",
        ),
        (
            ".decl p(m: number)\np(1) :- p(x), y = mean x : p(x).".to_string(),
            "t.dl:2:19: aggregate `mean` is not supported",
        ),
    ] {
        let m = err(&text);
        assert!(m.starts_with(want), "{text:?}:\n{m}");
    }
}
