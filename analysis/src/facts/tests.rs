use super::*;

fn sample() -> Facts {
    let mut f = Facts::default();
    f.names.stmts = vec!["a.c:1".into(), "a.c:2".into()];
    f.names.files = vec!["a.c".into()];
    f.names.vars = vec!["const".into(), "main.r0(p)".into()];
    f.names.objs = vec!["g".into()];
    f.names.funcs = vec!["main".into()];
    f.stmt_func = vec![(StmtId(0), FuncId(0)), (StmtId(1), FuncId(0))];
    f.stmt_line = vec![(StmtId(0), FileId(0), 1), (StmtId(1), FileId(0), 2)];
    f.cfg_edge = vec![(StmtId(0), StmtId(1))];
    f.addr_of = vec![(Var(1), Obj(0), ANY_OFFSET)];
    f
}

#[test]
fn tsv_round_trip_keeps_tuples_and_labels() {
    let f = sample();
    let dir = std::env::temp_dir().join(format!("agx-facts-test-{}", std::process::id()));
    write_dir(&f, &dir).unwrap();
    let text = std::fs::read_to_string(dir.join("cfg_edge.facts")).unwrap();
    assert_eq!(text, "s0@a.c:1\ts1@a.c:2\n");
    let g = load_dir(&dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(g.cfg_edge, f.cfg_edge);
    assert_eq!(g.addr_of, f.addr_of);
    assert_eq!(g.stmt_line, f.stmt_line);
    assert_eq!(g.names.stmts, f.names.stmts);
    assert_eq!(g.var_name(Var(1)), "main.r0(p)");
    assert_eq!(g.reg_var(FuncId(0), crate::ir::RegId(0)), Some(Var(1)));
}

#[test]
fn parse_errors_name_the_line_and_column() {
    let mut f = Facts::default();
    let err = f
        .parse_relation_tsv("cfg_edge", "s0\ts1\ns2\n")
        .unwrap_err();
    assert_eq!(err, "line 2: missing column `to`");
    let err = f.parse_relation_tsv("cfg_edge", "s0\tx1\n").unwrap_err();
    assert!(err.contains("column `to`"), "{err}");
    assert!(f.parse_relation_tsv("nope", "").is_err());
}

#[test]
fn schema_declares_every_relation() {
    let s = tsv::schema();
    for rel in Facts::RELATIONS {
        assert!(s.contains(&format!(".decl {}(", rel.name)), "{}", rel.name);
    }
    assert!(s.contains(".decl store(stmt: symbol, addr: symbol, val: symbol)"));
}
