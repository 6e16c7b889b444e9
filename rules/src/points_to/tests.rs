use super::*;
use crate::testing::FactsBuilder;
use analysis::facts::Facts;

fn cells(p: &PointsTo, v: Var) -> Vec<(Obj, i64)> {
    p.of(v).iter().map(|c| (c.obj, c.offset)).collect()
}

/// `s.a = &x; s.b = &y; q = &s + 4; p = *q` — fields stay apart.
#[test]
fn fields_are_kept_apart() {
    let mut b = FactsBuilder::new();
    let main = b.func("main");
    let (s, x, y) = (b.obj("s", 8), b.obj("x", 4), b.obj("y", 4));
    let (sa, sb, ax, ay) = (b.var("&s"), b.var("&s+4"), b.var("&x"), b.var("&y"));
    let (q, p) = (b.var("q"), b.var("p"));
    let f: &mut Facts = &mut b.facts;
    f.addr_of = vec![(sa, s, 0), (sb, s, 4), (ax, x, 0), (ay, y, 0)];
    let st = (0..4).map(|_| StmtId(0)).collect::<Vec<_>>();
    f.store = vec![(st[0], sa, ax), (st[1], sb, ay)];
    f.assign_offset = vec![(st[2], q, sa, 4)];
    f.load = vec![(st[3], p, q)];
    let _ = main;
    let pts = run(&b.facts);
    assert_eq!(cells(&pts, q), vec![(s, 4)]);
    assert_eq!(cells(&pts, p), vec![(y, 0)], "p = s.b only");
    let fi = run_field_insensitive(&b.facts);
    let objs: Vec<Obj> = fi.of(p).iter().map(|c| c.obj).collect();
    assert_eq!(objs, vec![x, y], "field-insensitive merges s.a and s.b");
}

/// Offsets that leave the object become `*` instead of growing without bound.
#[test]
fn pointer_arithmetic_out_of_the_object_is_any() {
    let mut b = FactsBuilder::new();
    let a = b.obj("a", 8);
    let (pa, p) = (b.var("&a"), b.var("p"));
    b.facts.addr_of = vec![(pa, a, 0)];
    // p = &a; p = p + 4 (in a loop): 0, 4, then out of the object.
    b.facts.assign_copy = vec![(StmtId(0), p, pa)];
    b.facts.assign_offset = vec![(StmtId(1), p, p, 4)];
    let pts = run(&b.facts);
    assert_eq!(cells(&pts, p), vec![(a, ANY_OFFSET), (a, 0), (a, 4)]);
}

/// An indirect call and a thread creation through function pointers pass arguments.
#[test]
fn function_pointers_resolve_calls_and_thread_entries() {
    let mut b = FactsBuilder::new();
    let main = b.func("main");
    let worker = b.func("worker");
    let (fo, g) = (b.obj("fn:worker", -1), b.obj("g", 4));
    b.facts.func_obj = vec![(fo, worker)];
    let (fp, fpv, ag, param) = (
        b.var("&worker"),
        b.var("fp"),
        b.var("&g"),
        b.var("worker.arg"),
    );
    b.facts.addr_of = vec![(fp, fo, 0), (ag, g, 0)];
    let (c1, c2) = (b.stmt(main), b.stmt(main));
    b.facts.assign_copy = vec![(StmtId(9), fpv, fp)];
    b.facts.icall = vec![(c1, fpv)];
    b.facts.actual_arg = vec![(c1, 0, ag)];
    b.facts.formal_param = vec![(worker, 0, param)];
    b.facts.thread_create = vec![(c2, Facts::CONST_VAR, fp, ag)];
    let pts = run(&b.facts);
    assert_eq!(pts.call_edges, vec![(c1, worker)]);
    assert_eq!(pts.thread_edges, vec![(c2, worker)]);
    assert_eq!(cells(&pts, param), vec![(g, 0)]);
    assert_eq!(
        crate::points_to_crepe::run(&b.facts).var_points_to,
        pts.var_points_to
    );
}

/// A load through `(o, *)` reads every cell of `o`; a store through it reaches all loads.
#[test]
fn any_offset_overlaps_every_cell() {
    let mut b = FactsBuilder::new();
    let (arr, x) = (b.obj("arr", 16), b.obj("x", 4));
    let (pa, ax, i, v) = (b.var("&arr+8"), b.var("&x"), b.var("arr+i"), b.var("v"));
    b.facts.addr_of = vec![(pa, arr, 8), (ax, x, 0)];
    b.facts.assign_any = vec![(StmtId(0), i, pa)];
    b.facts.store = vec![(StmtId(1), pa, ax)];
    b.facts.load = vec![(StmtId(2), v, i)];
    let pts = run(&b.facts);
    assert_eq!(cells(&pts, i), vec![(arr, ANY_OFFSET)]);
    assert_eq!(cells(&pts, v), vec![(x, 0)]);
}

/// `r = t's result`: a thread entry's `return v` reaches `*r` of `pthread_join(_, r)`.
#[test]
fn thread_return_values_reach_the_join_result() {
    let mut b = FactsBuilder::new();
    let main = b.func("main");
    let worker = b.func("worker");
    let (fo, slot, x) = (b.obj("fn:worker", -1), b.obj("main.r", 4), b.obj("x", 4));
    b.facts.func_obj = vec![(fo, worker)];
    let (fp, ar, ax, loaded) = (b.var("&worker"), b.var("&r"), b.var("&x"), b.var("r"));
    b.facts.addr_of = vec![(fp, fo, 0), (ar, slot, 0), (ax, x, 0)];
    let (create, join, load, ret) = (b.stmt(main), b.stmt(main), b.stmt(main), b.stmt(worker));
    b.facts.thread_create = vec![(create, Facts::CONST_VAR, fp, Facts::CONST_VAR)];
    b.facts.thread_join = vec![(join, Facts::CONST_VAR, ar)];
    b.facts.load = vec![(load, loaded, ar)];
    b.facts.return_val = vec![(ret, ax)];
    for pts in [
        run(&b.facts),
        run_field_insensitive(&b.facts),
        crate::points_to_crepe::run(&b.facts),
    ] {
        let objs: Vec<Obj> = pts.of(loaded).iter().map(|c| c.obj).collect();
        assert_eq!(objs, vec![x]);
    }
    // A function that is not a thread entry does not feed joins.
    b.facts.thread_create.clear();
    assert!(run(&b.facts).of(loaded).is_empty());
}

/// fixtures/conc/join_function_pointer.c: `bad` comes back from a thread through
/// pthread_join (its entry's return) and is called; `good` through pthread_exit.
#[test]
fn function_pointers_returned_through_join_are_called() {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/conc/join_function_pointer.c");
    let program = analysis::load_program(&path, &Default::default()).expect("the fixture lowers");
    let facts = analysis::facts::extract(&program);
    let called = |edges: &[(StmtId, FuncId)]| -> Vec<String> {
        let mut names: Vec<String> = edges
            .iter()
            .map(|e| facts.func_name(e.1).to_string())
            .collect();
        names.sort();
        names.dedup();
        names
    };
    for pts in [
        run(&facts),
        run_field_insensitive(&facts),
        crate::points_to_crepe::run(&facts),
    ] {
        let names = called(&pts.call_edges);
        assert!(names.iter().any(|n| n == "bad"), "{names:?}");
        assert!(names.iter().any(|n| n == "good"), "{names:?}");
    }
    let analysis = crate::Analysis::run(&facts);
    let live: Vec<&str> = analysis
        .call_graph
        .live
        .iter()
        .map(|&f| facts.func_name(f))
        .collect();
    assert!(live.contains(&"bad"), "{live:?}");
    // Each join depends on the `return` of the entry `first` (and on the pthread_exit).
    let first_return = facts
        .return_val
        .iter()
        .map(|r| r.0)
        .find(|&r| {
            facts
                .stmt_func
                .iter()
                .any(|&(s, f)| s == r && facts.func_name(f) == "first")
        })
        .expect("first returns a value");
    for &(join, _, _) in &facts.thread_join {
        assert!(
            analysis.dependence.edges.iter().any(|e| e.stmt == join
                && e.on == first_return
                && e.kind == crate::dependence::DepKind::Join),
            "join {join:?} does not depend on first's return"
        );
    }
}
