//! Memory model: cells, defaults, and the memory-safety violations.

use super::builder::*;
use super::*;
use crate::concrete::{InputPolicy, InputSource, RuntimeError, UninitPolicy};
use analysis::ir::*;

/// `main` of one body, returning 0 after it.
fn program(build: impl FnOnce(&mut ProgramBuilder, FuncId)) -> Program {
    let mut pb = ProgramBuilder::new();
    let main = pb.declare("main", Some(Scalar::I32));
    build(&mut pb, main);
    pb.finish(main)
}

fn ptr_add(f: &mut FnBuilder, base: Operand, index: i128, scale: u64) -> RegId {
    let index = int(index);
    f.assign(
        Scalar::Ptr,
        Rvalue::PtrAdd {
            base,
            index,
            index_ty: Scalar::I32,
            scale,
        },
    )
}

fn malloc(f: &mut FnBuilder, size: i128, zeroed: bool) -> RegId {
    let dst = f.reg(Scalar::Ptr);
    f.stmt(StmtKind::Alloc {
        dst,
        size: int(size),
        zeroed,
    });
    dst
}

fn free(f: &mut FnBuilder, ptr: Operand) {
    f.stmt(StmtKind::Free { ptr });
}

#[test]
fn null_and_integer_dereferences() {
    let p = program(|pb, main| {
        pb.define(main, &[], |f| {
            f.line = 5;
            f.load(Scalar::I32, Operand::Null);
            f.ret(Some(int(0)));
        })
    });
    let v = assert_violation(&run_default(&p), ViolationKind::NullDereference, 5);
    assert_eq!(v.message, "null pointer dereference");
    let p = program(|pb, main| {
        pb.define(main, &[], |f| {
            let five = f.assign(
                Scalar::Ptr,
                Rvalue::Cast {
                    from: Scalar::I32,
                    to: Scalar::Ptr,
                    arg: int(5),
                },
            );
            f.line = 6;
            f.store(Scalar::I32, r(five), int(1));
            f.ret(Some(int(0)));
        })
    });
    let v = assert_violation(&run_default(&p), ViolationKind::InvalidDereference, 6);
    assert_eq!(v.message, "dereference of the non-pointer value 0x5");
}

#[test]
fn out_of_bounds_on_both_sides() {
    for (index, ok) in [(1, true), (2, false), (-1, false)] {
        let p = program(|pb, main| {
            let arr = pb.global("arr", 8);
            pb.define(main, &[], |f| {
                let at = ptr_add(f, addr(arr), index, 4);
                f.line = 20;
                f.store(Scalar::I32, r(at), int(1));
                f.ret(Some(int(0)));
            })
        });
        let e = run_default(&p);
        if ok {
            assert_completed(&e, 0);
        } else {
            let v = assert_violation(&e, ViolationKind::OutOfBounds, 20);
            let expected = format!(
                "out-of-bounds access of 4 byte(s) at offset {} of `arr` (8 bytes)",
                index * 4
            );
            assert_eq!(v.message, expected);
        }
    }
}

#[test]
fn heap_lifetime_violations() {
    let uaf = program(|pb, main| {
        pb.define(main, &[], |f| {
            let p = malloc(f, 4, false);
            free(f, r(p));
            f.line = 30;
            f.load(Scalar::I32, r(p));
            f.ret(Some(int(0)));
        })
    });
    let v = assert_violation(&run_default(&uaf), ViolationKind::UseAfterFree, 30);
    assert!(
        v.message
            .starts_with("use after free of the heap block allocated at t.c:"),
        "{}",
        v.message
    );

    let double = program(|pb, main| {
        pb.define(main, &[], |f| {
            let p = malloc(f, 4, false);
            free(f, r(p));
            // The freed index is reused by the next allocation; the old pointer stays stale.
            malloc(f, 4, false);
            f.line = 31;
            free(f, r(p));
            f.ret(Some(int(0)));
        })
    });
    assert_violation(&run_default(&double), ViolationKind::DoubleFree, 31);

    let interior = program(|pb, main| {
        pb.define(main, &[], |f| {
            let p = malloc(f, 8, false);
            let q = ptr_add(f, r(p), 1, 4);
            f.line = 32;
            free(f, r(q));
            f.ret(Some(int(0)));
        })
    });
    assert_violation(&run_default(&interior), ViolationKind::InvalidFree, 32);

    let global = program(|pb, main| {
        let g = pb.global("g", 4);
        pb.define(main, &[], |f| {
            free(f, Operand::Null);
            f.line = 33;
            free(f, addr(g));
            f.ret(Some(int(0)));
        })
    });
    let v = assert_violation(&run_default(&global), ViolationKind::InvalidFree, 33);
    assert_eq!(v.message, "free of `g`, which is not heap memory");
}

#[test]
fn stack_slots_die_with_their_activation() {
    let mut pb = ProgramBuilder::new();
    let leak = pb.declare("leak", Some(Scalar::Ptr));
    let main = pb.declare("main", Some(Scalar::I32));
    let local = pb.slot(leak, "local", 4);
    pb.define(leak, &[], |f| {
        f.store(Scalar::I32, addr(local), int(7));
        let v = f.load(Scalar::I32, addr(local));
        f.assert(r(v), "local == 7");
        f.ret(Some(addr(local)));
    });
    pb.define(main, &[], |f| {
        let p = f.reg(Scalar::Ptr);
        f.stmt(StmtKind::Call {
            dst: Some(p),
            callee: Callee::Direct(leak),
            args: vec![],
        });
        // A second activation reuses the slot's index with a new generation.
        f.stmt(StmtKind::Call {
            dst: None,
            callee: Callee::Direct(leak),
            args: vec![],
        });
        f.line = 40;
        f.load(Scalar::I32, r(p));
        f.ret(Some(int(0)));
    });
    let v = assert_violation(
        &run_default(&pb.finish(main)),
        ViolationKind::DeadObject,
        40,
    );
    assert_eq!(
        v.message,
        "use of a local of a returned function after its lifetime ended"
    );
}

#[test]
fn string_literals_are_read_only() {
    let p = program(|pb, main| {
        let s = pb.literal("abc");
        pb.define(main, &[], |f| {
            let c = f.load(Scalar::I8, Operand::Addr { obj: s, offset: 1 });
            f.assert(r(c), "s[1]");
            f.line = 50;
            f.store(Scalar::I8, addr(s), int(0));
            f.ret(Some(int(0)));
        })
    });
    assert_violation(&run_default(&p), ViolationKind::ReadOnlyWrite, 50);
}

#[test]
fn stores_replace_overlapping_cells_and_punning_is_unsupported() {
    let p = program(|pb, main| {
        let g = pb.global("g", 8);
        pb.define(main, &[], |f| {
            f.store(Scalar::I32, addr(g), int(0x0102_0304));
            f.store(Scalar::I8, Operand::Addr { obj: g, offset: 2 }, int(9));
            let b2 = f.load(Scalar::I8, Operand::Addr { obj: g, offset: 2 });
            let ok = f.binary(BinOp::Eq, Scalar::I8, r(b2), Operand::int(9, Scalar::I8));
            f.assert(r(ok), "g[2] == 9");
            // The i32 cell was removed: byte 0 reads as the global's zero.
            let b0 = f.load(Scalar::I8, addr(g));
            let zero = f.binary(BinOp::Eq, Scalar::I8, r(b0), Operand::int(0, Scalar::I8));
            f.assert(r(zero), "g[0] == 0");
            f.line = 60;
            f.load(Scalar::I32, addr(g));
            f.ret(Some(int(0)));
        })
    });
    let err = run(&p, &RunConfig::default()).unwrap_err();
    assert!(matches!(err, RuntimeError::Unsupported { .. }), "{err}");
    assert!(
        err.to_string()
            .starts_with("t.c:60: unsupported: type punning"),
        "{err}"
    );
}

#[test]
fn signedness_is_reinterpreted_by_the_load_type() {
    let p = program(|pb, main| {
        let g = pb.global("g", 4);
        pb.define(main, &[], |f| {
            f.store(Scalar::I32, addr(g), int(-1));
            let u = f.load(Scalar::U32, addr(g));
            let big = f.binary(BinOp::Gt, Scalar::U32, r(u), Operand::int(0, Scalar::U32));
            f.assert(r(big), "(unsigned)g > 0");
            f.ret(Some(int(0)));
        })
    });
    assert_completed(&run_default(&p), 0);
}

#[test]
fn uninitialized_memory_follows_the_policy_and_stays_put() {
    let p = program(|pb, main| {
        let g = pb.global("g", 4);
        pb.define(main, &[], |f| {
            let heap = malloc(f, 4, false);
            let zeroed = malloc(f, 4, true);
            let a = f.load(Scalar::I32, r(heap));
            let b = f.load(Scalar::I32, r(heap));
            let c = f.load(Scalar::I32, r(zeroed));
            let d = f.load(Scalar::I32, addr(g));
            let same = f.binary(BinOp::Eq, Scalar::I32, r(a), r(b));
            f.assert(r(same), "a == b");
            let zeros = f.binary(BinOp::Or, Scalar::I32, r(c), r(d));
            let none = f.binary(BinOp::Eq, Scalar::I32, r(zeros), int(0));
            f.assert(r(none), "c == 0 && d == 0");
            f.ret(Some(r(a)));
        })
    });
    let e = run_default(&p);
    assert_completed(&e, 0);
    assert!(e.inputs.is_empty());
    let e = run_with(&p, |c| {
        c.uninit = UninitPolicy::Nondet;
        c.inputs = InputPolicy::list([42, 43]);
    });
    assert_completed(&e, 42);
    assert_eq!(
        e.inputs.len(),
        1,
        "calloc, globals and the second read take no input"
    );
    assert_eq!(e.inputs[0].source, InputSource::Uninit);
}

#[test]
fn static_initializers_may_point_to_other_objects() {
    let p = program(|pb, main| {
        let s = pb.literal("ok");
        let table = pb.global("table", 8);
        pb.init(table, 4, Scalar::Ptr, Operand::Addr { obj: s, offset: 1 });
        pb.define(main, &[], |f| {
            let first = f.load(Scalar::Ptr, addr(table));
            let null = f.binary(BinOp::Eq, Scalar::Ptr, r(first), Operand::Null);
            f.assert(r(null), "table[0] == NULL");
            let second = f.load(
                Scalar::Ptr,
                Operand::Addr {
                    obj: table,
                    offset: 4,
                },
            );
            let k = f.load(Scalar::I8, r(second));
            f.ret(Some(r(k)));
        })
    });
    assert_completed(&run_default(&p), i64::from(b'k'));
}

#[test]
fn printf_of_an_unterminated_string_reads_out_of_bounds() {
    let p = program(|pb, main| {
        let buf = pb.global("buf", 2);
        pb.init(
            buf,
            0,
            Scalar::I8,
            Operand::int(i128::from(b'o'), Scalar::I8),
        );
        pb.init(
            buf,
            1,
            Scalar::I8,
            Operand::int(i128::from(b'k'), Scalar::I8),
        );
        pb.define(main, &[], |f| {
            f.line = 70;
            f.print(
                vec![FormatPiece::Conv {
                    conv: 's',
                    arg: Scalar::Ptr,
                    spec: Default::default(),
                }],
                vec![addr(buf)],
            );
            f.ret(Some(int(0)));
        })
    });
    let e = run_default(&p);
    let v = assert_violation(&e, ViolationKind::OutOfBounds, 70);
    assert!(v.message.contains("offset 2 of `buf`"), "{}", v.message);
    assert!(e.output.is_empty(), "a failed printf prints nothing");
}
