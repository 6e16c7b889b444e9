//! Lowering tests on small C programs (preprocessed text, no gcc needed).

use crate::frontend::{parse_preprocessed, FrontendError};
use crate::ir::*;

fn lower_src(src: &str) -> Result<Program, FrontendError> {
    let unit = parse_preprocessed(src.to_string(), "t.c")?;
    super::lower(&unit, DataModel::Ilp32)
}

fn lower_ok(src: &str) -> Program {
    lower_src(src).unwrap_or_else(|e| panic!("lowering failed: {e}"))
}

fn error_of(src: &str) -> String {
    match lower_src(src) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

fn all_stmts(p: &Program) -> Vec<&StmtKind> {
    p.functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.stmts.iter().map(|s| &s.kind))
        .collect()
}

#[test]
fn globals_are_loaded_and_stored_one_access_per_statement() {
    let p = lower_ok("int x, y; int main() { x = y + 1; return x; }");
    let kinds = all_stmts(&p);
    let loads = kinds
        .iter()
        .filter(|k| matches!(k, StmtKind::Load { .. }))
        .count();
    let stores = kinds
        .iter()
        .filter(|k| matches!(k, StmtKind::Store { .. }))
        .count();
    assert_eq!((loads, stores), (2, 1));
    for k in kinds {
        let mem = k.operands().len() <= 3;
        assert!(mem, "{k:?}");
    }
}

#[test]
fn branch_conditions_read_registers_only() {
    let p = lower_ok("int g; int main() { if (g > 3 && g < 9) g = 0; while (g) g--; return 0; }");
    for f in &p.functions {
        for b in &f.blocks {
            if let TermKind::Branch { cond, .. } = &b.term.kind {
                assert!(
                    matches!(cond, Operand::Reg(_) | Operand::Int { .. }),
                    "{cond:?}"
                );
            }
        }
    }
}

#[test]
fn address_taken_locals_become_stack_slots() {
    let p = lower_ok(
        "void f(int *p) { *p = 1; } int main() { int a = 0; int b = 2; f(&a); return a + b; }",
    );
    let slots: Vec<&str> = p
        .objects
        .iter()
        .filter(|o| matches!(o.kind, ObjectKind::StackSlot { .. }))
        .map(|o| o.name.as_str())
        .collect();
    assert_eq!(slots, vec!["main.a"]);
}

#[test]
fn static_initializers_with_addresses_and_designators() {
    let p = lower_ok(
        "struct s { int a; int *p; char c[3]; };
         int x = 7;
         struct s v = { .p = &x, .a = 5, .c = \"hi\" };
         int arr[] = { 1, 2, [5] = 9 };
         int main() { return 0; }",
    );
    let v = p.objects.iter().find(|o| o.name == "v").unwrap();
    assert_eq!(v.size, 12);
    let x = p.objects.iter().find(|o| o.name == "x").unwrap();
    assert!(v.init.contains(&InitCell {
        offset: 4,
        ty: Scalar::Ptr,
        value: Operand::Addr {
            obj: x.id,
            offset: 0
        },
    }));
    assert!(v
        .init
        .iter()
        .any(|c| c.offset == 0 && c.value == Operand::int(5, Scalar::I32)));
    assert!(v
        .init
        .iter()
        .any(|c| c.offset == 9 && c.value == Operand::int(i128::from(b'i'), Scalar::I8)));
    let arr = p.objects.iter().find(|o| o.name == "arr").unwrap();
    assert_eq!(arr.size, 24);
}

#[test]
fn pthread_calls_become_sync_statements() {
    let p = lower_ok(
        "typedef unsigned long pthread_t; typedef struct { int x; } pthread_mutex_t;
         int pthread_create(pthread_t *, void *, void *(*)(void *), void *);
         int pthread_join(pthread_t, void **);
         int pthread_mutex_lock(pthread_mutex_t *); int pthread_mutex_unlock(pthread_mutex_t *);
         pthread_mutex_t m; int g;
         void *t(void *a) { pthread_mutex_lock(&m); g++; pthread_mutex_unlock(&m); return 0; }
         int main() { pthread_t h; pthread_create(&h, 0, t, 0); pthread_join(h, 0); return g; }",
    );
    let names: Vec<&str> = all_stmts(&p)
        .into_iter()
        .filter_map(|k| match k {
            StmtKind::Sync { op, .. } => Some(op.name()),
            _ => None,
        })
        .collect();
    assert_eq!(
        names,
        vec!["lock", "unlock", "thread_create", "thread_join"]
    );
}

#[test]
fn atomic_functions_are_bracketed() {
    let p = lower_ok("int g; void __VERIFIER_atomic_inc() { g++; } int main() { __VERIFIER_atomic_inc(); return 0; }");
    let f = p.function_named("__VERIFIER_atomic_inc").unwrap();
    assert!(f.atomic);
    let ops: Vec<&str> = f
        .blocks
        .iter()
        .flat_map(|b| &b.stmts)
        .filter_map(|s| match &s.kind {
            StmtKind::Sync { op, .. } => Some(op.name()),
            _ => None,
        })
        .collect();
    assert_eq!(ops, vec!["atomic_begin", "atomic_end"]);
}

#[test]
fn assertions_and_reach_error_are_error_sites_with_lines() {
    let p = lower_ok(
        "void reach_error() {}\nvoid __assert_fail(const char *, const char *, unsigned, const char *);\nint main() {\n  int x = 1;\n  if (x) reach_error();\n  (x == 2) ? (void)0 : __assert_fail(\"x == 2\", \"t.c\", 6, \"main\");\n  return 0;\n}",
    );
    let mut sites: Vec<(u32, String)> = p
        .error_sites()
        .iter()
        .map(|t| match &t.kind {
            TermKind::Error(f) => (t.span.line, f.to_string()),
            _ => unreachable!(),
        })
        .collect();
    sites.sort();
    assert_eq!(
        sites,
        vec![
            (5, "reach_error() called".to_string()),
            (6, "assertion `x == 2` failed".to_string())
        ]
    );
}

#[test]
fn switch_with_fallthrough_and_default() {
    let p = lower_ok(
        "int main() { int x = 2, y = 0; switch (x) { case 1: y = 1; case 2: y += 2; break; default: y = 9; } return y; }",
    );
    let main = p.function(p.main);
    let branches = main
        .blocks
        .iter()
        .filter(|b| matches!(b.term.kind, TermKind::Branch { .. }))
        .count();
    assert_eq!(branches, 2);
}

#[test]
fn unsupported_constructs_name_the_construct_and_line() {
    let cases = [
        (
            "int main() {\n  __asm__(\"nop\");\n  return 0;\n}",
            "t.c:2: unsupported: inline assembly",
        ),
        (
            "int main() {\n  long double d = 1.5;\n  return 0;\n}",
            "t.c:2: unsupported: `long double` variable",
        ),
        (
            "struct s { int a : 3; };\nint main() { struct s v; return 0; }",
            "t.c:1: unsupported: bit-field (in a struct used at t.c:2)",
        ),
        (
            "int f(int n, ...) {\n  return __builtin_va_arg(0, char);\n}\nint main() { return f(1, 2); }",
            "t.c:2: va_arg with type `char`",
        ),
        (
            "int f(int n) {\n  __builtin_va_list ap;\n  __builtin_va_start(ap, n);\n  return n;\n}",
            "t.c:3: va_start in a function without `...` parameters",
        ),
        (
            "int main() {\n  int x = 0;\n  return ({ x; }) + undeclared;\n}",
            "t.c:3: use of undeclared identifier `undeclared`",
        ),
    ];
    for (src, want) in cases {
        let got = error_of(src);
        assert!(got.contains(want), "expected `{want}` in `{got}`");
    }
}

#[test]
fn missing_main_is_an_error() {
    assert!(error_of("int f() { return 1; }").contains("no `main`"));
}

#[test]
fn external_pointer_results_are_rejected_and_int_results_havocked() {
    let p = lower_ok("int ext_rand(void);\nint main() { return ext_rand(); }");
    assert!(all_stmts(&p)
        .iter()
        .any(|k| matches!(k, StmtKind::Havoc { function, .. } if function == "ext_rand")));
    assert_eq!(p.warnings.len(), 1);
    let e = error_of(
        "char *ext_dup(const char *);\nint main() {\n  char *s = ext_dup(\"a\");\n  return 0;\n}",
    );
    assert!(
        e.contains("t.c:3: unsupported: call of external function `ext_dup` returning a pointer"),
        "{e}"
    );
}

#[test]
fn statement_ids_are_dense_and_located() {
    let p = lower_ok("int g; int main() { g = 1; g = 2; return g; }");
    for i in 0..p.stmt_count() {
        let s = p.stmt(StmtId(i as u32));
        let id = match s {
            StmtRef::Stmt(s) => s.id,
            StmtRef::Term(t) => t.id,
        };
        assert_eq!(id, StmtId(i as u32));
    }
}

#[test]
fn implicit_int_declarations_lower_as_int() {
    let implicit =
        lower_ok("static g;\nf(a) int a; { register r = a; return r; }\nmain() { return f(g); }");
    let explicit = lower_ok(
        "static int g;\nint f(a) int a; { register int r = a; return r; }\nint main() { return f(g); }",
    );
    assert_eq!(all_stmts(&implicit), all_stmts(&explicit));
}

#[test]
fn a_syntax_error_after_an_implicit_int_is_reported_where_the_text_has_it() {
    // `mytype` is no type: no `int` is inserted there, and the error names its line and
    // column in the text as written (the `int` inserted before `g` taken out).
    let e = error_of("static g;\nmytype x;\nint main() { return g; }");
    assert!(e.starts_with("t.c:2: syntax error at column 1:"), "{e}");
    let e = error_of("static g; mytype x;\nint main() { return g; }");
    assert!(e.starts_with("t.c:1: syntax error at column 11:"), "{e}");
}

#[test]
fn a_compiler_barrier_is_a_no_op_and_other_assembly_is_rejected() {
    let with =
        lower_ok("int g;\nint main() { g = 1; __asm__ volatile(\"\" ::: \"memory\"); return g; }");
    let without = lower_ok("int g;\nint main() { g = 1; return g; }");
    assert_eq!(all_stmts(&with), all_stmts(&without));
    let cases = [
        "int main() {\n  __asm__ volatile(\"mfence\" ::: \"memory\");\n  return 0;\n}",
        "int g; int main() {\n  __asm__ volatile(\"\" : \"=r\"(g));\n  return 0;\n}",
        "int main() {\n  __asm__ volatile(\"\" ::: \"cc\");\n  return 0;\n}",
    ];
    for src in cases {
        let e = error_of(src);
        assert!(e.contains("t.c:2: unsupported: inline assembly `"), "{e}");
        assert!(e.contains("agx treats only the compiler barrier"), "{e}");
    }
}

#[test]
fn unused_header_declarations_are_dropped() {
    let p = lower_ok("extern int unused_global_from_header(int);\nint main() { return 0; }");
    assert_eq!(p.functions.len(), 1);
}

#[test]
fn unprototyped_externals_passed_pointers_are_rejected() {
    let e = error_of("int g;\nint main() {\n  fill(&g);\n  return g;\n}");
    assert!(
        e.contains("t.c:3: unsupported: call of external function `fill` that may write memory"),
        "{e}"
    );
}

#[test]
fn thread_local_globals_are_marked() {
    let unit = parse_preprocessed(
        "__thread int tl = 1;\nint g;\nint main() { return tl + g; }".into(),
        "t.c",
    )
    .unwrap();
    let p = super::lower(&unit, DataModel::Ilp32).unwrap();
    let kind = |n: &str| p.objects.iter().find(|o| o.name == n).unwrap().kind.clone();
    assert_eq!(kind("tl"), ObjectKind::ThreadLocal);
    assert_eq!(kind("g"), ObjectKind::Global);
}

#[test]
fn null_pointer_constants_and_struct_assignment_chains() {
    let p = lower_ok(
        "struct S { int a; int *p; } x, y, z;\nint *q = (void *)0;\nint main() { x = (y = z); x = (y, z); return 0; }",
    );
    let q = p.objects.iter().find(|o| o.name == "q").unwrap();
    assert!(q.init.is_empty(), "null is the zero default");
    let e = error_of("int main(int n) {\n  int a[n];\n  return sizeof a;\n}");
    assert!(
        e.contains("t.c:3: unsupported: sizeof of a variable-length array"),
        "{e}"
    );
}

#[test]
fn structs_pass_and_return_by_value_through_addresses() {
    let p = lower_ok(
        "struct P { int x; int y; };\nstruct P mk(int a) { struct P r; r.x = a; r.y = a + 1; return r; }\nint sum(struct P p) { p.x += 1; return p.x + p.y; }\nint main() { struct P q = mk(3); int z = mk(4).y; return sum(q) + z; }",
    );
    let mk = p.function_named("mk").unwrap();
    assert_eq!(mk.params.len(), 2, "hidden result address + a");
    assert_eq!(mk.ret, None);
    let sum = p.function_named("sum").unwrap();
    assert_eq!(sum.reg(sum.params[0]).ty, Scalar::Ptr);
    assert!(
        sum.slots.iter().any(|s| p.object(*s).name == "sum.p"),
        "the callee's own copy"
    );
}

/// A library function the program uses without defining it comes from agx's C model,
/// lowered like the program's own code: `strcpy` is a byte loop of visible accesses.
#[test]
fn strcpy_is_linked_from_the_library_model() {
    let p = lower_ok("char *strcpy(char *, const char *);\nchar buf[8];\nint main() { strcpy(buf, \"ab\"); return 0; }");
    let strcpy = p.function_named("strcpy").expect("the model's strcpy");
    assert!(strcpy.is_defined());
    assert_eq!(p.files[strcpy.span.file.index()], "<agx-libc>/string.c");
    let accesses: Vec<Scalar> = strcpy
        .blocks
        .iter()
        .flat_map(|b| &b.stmts)
        .filter_map(|s| match &s.kind {
            StmtKind::Load { ty, .. } | StmtKind::Store { ty, .. } => Some(*ty),
            _ => None,
        })
        .collect();
    assert_eq!(accesses, vec![Scalar::I8, Scalar::I8]);
    assert!(p.function_named("strlen").is_none(), "only what is used");
    // A program's own definition wins over the model.
    let own =
        lower_ok("int strlen(const char *s) { return 7; }\nint main() { return strlen(\"a\"); }");
    let f = own.function_named("strlen").unwrap();
    assert_eq!(own.files[f.span.file.index()], "t.c");
}

#[test]
fn sscanf_is_a_bounded_result_and_one_guarded_input_per_assigned_object() {
    let p = lower_ok(
        "int sscanf(const char *, const char *, ...);\nint x; short h;\n\
         int main() { return sscanf(\"7\", \"%d%*d %hd\", &x, &h); }",
    );
    let kinds = all_stmts(&p);
    let nondets: Vec<Scalar> = kinds
        .iter()
        .filter_map(|k| match k {
            StmtKind::Nondet { ty, .. } => Some(*ty),
            _ => None,
        })
        .collect();
    let i16 = Scalar::Int {
        bits: 16,
        signed: true,
    };
    assert_eq!(nondets, vec![Scalar::I32, Scalar::I32, i16], "r, x, h");
    let assumes = kinds
        .iter()
        .filter(|k| matches!(k, StmtKind::Assume { .. }))
        .count();
    assert_eq!(assumes, 2, "-1 <= r <= 2");
    let stores: Vec<Scalar> = kinds
        .iter()
        .filter_map(|k| match k {
            StmtKind::Store { ty, .. } => Some(*ty),
            _ => None,
        })
        .collect();
    assert_eq!(stores, vec![Scalar::I32, i16]);
    assert!(
        p.function_named("sscanf").is_none(),
        "no external left behind"
    );
}

#[test]
fn sscanf_conversions_must_match_their_objects() {
    let decl = "int sscanf(const char *, const char *, ...);\n";
    let e = error_of(&format!(
        "{decl}long long y; int main() {{ return sscanf(\"1\", \"%d\", &y); }}"
    ));
    assert!(
        e.contains("t.c:2: unsupported: `sscanf` conversion of type i32"),
        "{e}"
    );
    let e = error_of(&format!(
        "{decl}int x; int main() {{ return sscanf(\"1\", \"%d %d\", &x); }}"
    ));
    assert!(
        e.contains("2 assigning conversions, 1 pointers given"),
        "{e}"
    );
    let e = error_of(&format!(
        "{decl}int x; int main() {{ return sscanf(\"1\", \"%d%n\", &x, &x); }}"
    ));
    assert!(e.contains("`%n`"), "{e}");
    let e = error_of(&format!(
        "{decl}_Bool b; int main() {{ return sscanf(\"1\", \"%hhu\", &b); }}"
    ));
    assert!(e.contains("written to a `_Bool`"), "{e}");
}

#[test]
fn pthread_keys_are_a_global_count_and_a_thread_local_table() {
    let p = lower_ok(
        "typedef unsigned int pthread_key_t;\n\
         int pthread_key_create(pthread_key_t *, void (*)(void *));\n\
         int pthread_setspecific(pthread_key_t, const void *);\n\
         void *pthread_getspecific(pthread_key_t);\n\
         pthread_key_t k;\n\
         int main() { pthread_key_create(&k, 0); pthread_setspecific(k, &k);\n\
         return pthread_getspecific(k) != 0; }",
    );
    let kinds: Vec<(&str, &ObjectKind, u64)> = p
        .objects
        .iter()
        .filter(|o| o.name.starts_with("<pthread_keys"))
        .map(|o| (o.name.as_str(), &o.kind, o.size))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("<pthread_keys.count>", &ObjectKind::Global, 4),
            ("<pthread_keys.values>", &ObjectKind::ThreadLocal, 4096),
        ]
    );
    let syncs: Vec<&str> = all_stmts(&p)
        .iter()
        .filter_map(|k| match k {
            StmtKind::Sync { op, .. } => Some(op.name()),
            _ => None,
        })
        .collect();
    assert_eq!(
        syncs,
        vec!["atomic_begin", "atomic_end"],
        "key creation is atomic"
    );
    assert!(p.function_named("pthread_getspecific").is_none());
    let e = error_of(
        "typedef unsigned int pthread_key_t;\nint pthread_key_delete(pthread_key_t);\n\
         int main() { return pthread_key_delete(0); }",
    );
    assert!(
        e.contains("t.c:3: unsupported: `pthread_key_delete`"),
        "{e}"
    );
}

/// A function returning a function pointer takes the parameters of the declarator applied
/// to its name, not those of the returned pointer type (same or different names).
#[test]
fn functions_returning_function_pointers_take_their_own_parameters() {
    let p = lower_ok(
        "void f(unsigned char c) {}\n\
         void (*same(int k))(unsigned char k) { return k > 300 ? f : 0; }\n\
         void (*other(int n, long m))(unsigned char c) { return n + m ? f : 0; }\n\
         int (paren)(int x) { return x; }\n\
         int main() { same(1); other(1, 2); return paren(0); }",
    );
    let params = |name: &str| -> Vec<(Option<String>, Scalar)> {
        let f = p.functions.iter().find(|f| f.name == name).unwrap();
        f.params
            .iter()
            .map(|&r| (f.reg(r).name.clone(), f.reg(r).ty))
            .collect()
    };
    let s32 = Scalar::Int {
        bits: 32,
        signed: true,
    };
    assert_eq!(params("same"), vec![(Some("k".into()), s32)]);
    assert_eq!(
        params("other"),
        vec![(Some("n".into()), s32), (Some("m".into()), s32)]
    );
    assert_eq!(params("paren"), vec![(Some("x".into()), s32)]);
}

/// Deep nesting within agx's limits lowers (on the front end's big stack); beyond them it
/// is a clear error naming the line and the limit, never a stack overflow.
#[test]
fn deep_nesting_lowers_or_is_rejected_clearly() {
    let parens = format!(
        "int main() {{ int x = {}1{}; return x; }}",
        "(".repeat(4_000),
        ")".repeat(4_000)
    );
    lower_ok(&parens);
    let ifs = format!(
        "int main() {{ int x = 0;\n{}x = 1;\nreturn x; }}",
        "if (x < 5)\n".repeat(3_000)
    );
    lower_ok(&ifs);
    let too_deep = format!(
        "int main() {{ int x = 0;\n{}x = 1;\nreturn x; }}",
        "if (x < 5)\n".repeat(6_000)
    );
    let e = error_of(&too_deep);
    assert!(
        e.starts_with("t.c:5000: nesting too deep (5001 levels; agx supports 5000)"),
        "{e}"
    );
}

/// A 20,000-term `1+1+...+1` lowers (the left spine is walked iteratively) and folds as a
/// constant; a chain longer than agx's limit is a clear error.
#[test]
fn long_flat_sums_lower() {
    let sum = vec!["1"; 20_000].join("+");
    let ys = vec!["y"; 20_000].join("+");
    let p = lower_ok(&format!(
        "int g = {sum};\nint main(int y) {{ int x = {ys}; return x + g; }}"
    ));
    let adds = all_stmts(&p)
        .iter()
        .filter(|k| {
            matches!(
                k,
                StmtKind::Assign {
                    value: Rvalue::Binary { op: BinOp::Add, .. },
                    ..
                }
            )
        })
        .count();
    assert!(adds >= 19_999, "{adds} additions");
    let init = format!("{:?}", p.objects[0].init);
    assert!(init.contains("20000"), "{init}");
    let e = error_of(&format!(
        "int main() {{ return {}; }}",
        vec!["1"; 30_000].join("+")
    ));
    assert!(
        e.starts_with("t.c:1: expression too long (25001 binary operators in one expression; agx supports 25000)"),
        "{e}"
    );
}

/// A struct type with a bit-field is rejected where the program uses it (its layout or a
/// member), not where it is declared: glibc's headers declare such types.
#[test]
fn unused_bit_field_structs_are_accepted() {
    let decl = "struct tx { int mode; int : 32; unsigned b : 1; };\n\
                struct wrap { struct tx t[2]; };\n";
    lower_ok(&format!(
        "{decl}int get(struct tx *p);\nint main() {{ struct tx *p = 0; return p != 0; }}"
    ));
    for (use_, line) in [
        ("struct tx g;\nint main() { return 0; }", 3),
        ("int main() { struct tx *p = 0;\n return p->mode; }", 4),
        ("int main() {\n return sizeof(struct wrap); }", 4),
        ("int main() {\n struct wrap w; return 0; }", 4),
    ] {
        let e = error_of(&format!("{decl}{use_}"));
        assert_eq!(
            e,
            format!("t.c:1: unsupported: bit-field (in a struct used at t.c:{line})")
        );
    }
}

/// External functions taking only read-only pointers (`const T *`, T without pointers)
/// become havoc; any pointer they could write through still rejects the call.
#[test]
fn const_pointer_parameters_are_read_only() {
    let p = lower_ok(
        "int to_int(const char *s);\n\
         int cmp(const char *a, const char *b, int n);\n\
         struct pt { int x, y; };\n\
         int norm(const struct pt *p);\n\
         int main() { struct pt q; char b[2]; return to_int(\"1\") + cmp(b, \"x\", 1) + norm(&q); }",
    );
    let havocs = all_stmts(&p)
        .iter()
        .filter(|k| matches!(k, StmtKind::Havoc { .. }))
        .count();
    assert_eq!(havocs, 3);
    for (decl, call) in [
        ("int f(char *s);", "char b[2]; return f(b);"),
        ("int f(const char **s);", "const char *b = 0; return f(&b);"),
        ("int f(char *const s);", "char b[2]; return f(b);"),
        (
            "struct s { char *p; }; int f(const struct s *x);",
            "struct s v; return f(&v);",
        ),
        (
            "int f(const char *fmt, ...);",
            "char b[2]; return f(\"%s\", b);",
        ),
        (
            "typedef char *str; int f(const str s);",
            "char b[2]; return f(b);",
        ),
    ] {
        let e = error_of(&format!("{decl}\nint main() {{ {call} }}"));
        assert!(
            e.contains("may write memory through its pointer arguments"),
            "{decl}: {e}"
        );
    }
}

/// Jump threading leaves no jump to an empty `goto`-only block, along the long chains of
/// join blocks nested `if`s make, and stops at a cycle of empty gotos.
#[test]
fn jumps_are_threaded_through_chains_and_cycles() {
    let ifs = format!(
        "int main() {{ int x = 0;\n{}x = 1;\nreturn x; }}\nvoid spin() {{ a: goto b; b: goto a; }}",
        "if (x < 5)\n".repeat(2_000)
    );
    let p = lower_ok(&ifs);
    for f in &p.functions {
        let empty_goto = |b: &BlockId| {
            let block = &f.blocks[b.index()];
            block.stmts.is_empty()
                && matches!(block.term.kind, TermKind::Goto(t) if t != *b)
                && f.name != "spin"
        };
        for b in &f.blocks {
            for s in b.term.kind.successors() {
                assert!(!empty_goto(&s), "{}: a jump to an empty goto block", f.name);
            }
        }
    }
}

/// Each conditional in a chain keeps its own type: in `k ? 1 : (j ? -1 : 0u)` the inner
/// one is `unsigned int`, so -1 goes through `u32` before the outer conversion to the
/// return type (the chain is typed once, through a cache, and must still convert at
/// every level).
#[test]
fn conditional_chains_convert_at_every_level() {
    let p = lower_ok(
        "long long f(int k, int j) { return k ? 1 : j ? -1 : 0u; }\n\
         long long g(int k, int j) { return k ? 1 : j ? -1 : 0; }\n\
         int main() { return (int)(f(0, 1) + g(0, 1)); }",
    );
    let text = crate::ir::render_program(&p, &|_, _| None);
    let f = &text[text.find("fn f").unwrap()..text.find("fn g").unwrap()];
    let g = &text[text.find("fn g").unwrap()..text.find("fn main").unwrap()];
    assert!(
        f.contains("cast i32->u32") && f.contains("cast u32->i64"),
        "{f}"
    );
    assert!(!g.contains("u32"), "{g}");
}

/// `reach_error`'s own definition decides whether a call of it ends the program
/// (`Program::reach_error_ends_program`): only a body that aborts on every path,
/// through copies and branches alone, does.
#[test]
fn reach_error_ends_the_program_only_when_its_body_certainly_aborts() {
    let decls = "void abort(void);\nvoid __assert_fail(const char *, const char *, unsigned, const char *);\nint g;\nint c(void);\n";
    let cases = [
        (
            "void reach_error() { __assert_fail(\"0\", \"t.c\", 3, \"reach_error\"); }",
            true,
        ),
        ("void reach_error() { abort(); }", true),
        ("void reach_error() { if (0) return; abort(); }", true),
        ("void reach_error() {}", false),
        ("void reach_error() { g = 1; abort(); }", false),
        ("void reach_error() { while (1) {} }", false),
        ("void reach_error() { if (c()) abort(); }", false),
        ("void reach_error();", false),
    ];
    for (def, ends) in cases {
        let src = format!("{decls}{def}\nint main() {{ reach_error(); return 0; }}\n");
        let p = lower_ok(&src);
        assert_eq!(p.reach_error_ends_program(), ends, "{def}");
    }
    // Both names declared: each must abort.
    let both = format!(
        "{decls}void reach_error() {{ abort(); }}\nvoid __VERIFIER_error() {{}}\n\
         int main() {{ reach_error(); __VERIFIER_error(); return 0; }}\n"
    );
    assert!(!lower_ok(&both).reach_error_ends_program());
    // Neither name: nothing to end the program.
    assert!(!lower_ok("int main() { return 0; }").reach_error_ends_program());
}

/// GCC's atomic builtins become atomic sections around their loads and stores; what
/// they cannot mean on the cell's type is rejected at the call.
#[test]
fn atomic_builtins_lower_to_atomic_sections() {
    let p = lower_ok("int c; int main() { int old = __sync_fetch_and_add(&c, 2); return old; }");
    let kinds: Vec<String> = all_stmts(&p)
        .iter()
        .filter(|k| {
            matches!(
                k,
                StmtKind::Sync { .. } | StmtKind::Load { .. } | StmtKind::Store { .. }
            )
        })
        .map(|k| match k {
            StmtKind::Sync { op, .. } => format!("{op:?}"),
            StmtKind::Load { .. } => "Load".to_string(),
            _ => "Store".to_string(),
        })
        .collect();
    assert_eq!(kinds, ["AtomicBegin", "Load", "Store", "AtomicEnd"]);
    let e = error_of("int *p; int main() { __sync_fetch_and_add(&p, 1); return 0; }");
    assert!(
        e.contains("t.c:1") && e.contains("on a pointer cell"),
        "{e}"
    );
    let e = error_of("double d; int main() { __atomic_fetch_add(&d, 1, 5); return 0; }");
    assert!(e.contains("not an integer or a pointer"), "{e}");
    let e = error_of("int c; int main() { __atomic_load_n(&c); return 0; }");
    assert!(e.contains("takes 2 arguments, 1 given"), "{e}");
}
