//! Arithmetic, control, calls, inputs, output, bounds.

use super::builder::*;
use super::*;
use crate::concrete::{Bound, InputPolicy, InputSource, RuntimeError, UninitPolicy};
use analysis::ir::*;

#[test]
fn arithmetic_and_printf_follow_c() {
    let mut pb = ProgramBuilder::new();
    let hi = pb.literal("hi");
    let main = pb.declare("main", Some(Scalar::I32));
    pb.define(main, &[], |f| {
        let q = f.binary(BinOp::Div, Scalar::I32, int(-7), int(2));
        let m = f.binary(BinOp::Rem, Scalar::I32, int(-7), int(2));
        let w = f.binary(
            BinOp::Add,
            Scalar::U32,
            Operand::int(0xFFFF_FFFF, Scalar::U32),
            Operand::int(1, Scalar::U32),
        );
        let c = |conv| FormatPiece::Conv {
            conv,
            arg: Scalar::I32,
            spec: Default::default(),
        };
        let text = |t: &str| FormatPiece::Text(t.to_string());
        let format = vec![
            c('d'),
            text(" "),
            c('d'),
            text(" "),
            c('u'),
            text(" "),
            c('x'),
            text(" "),
            c('X'),
            text(" "),
            c('c'),
            text(" "),
            FormatPiece::Conv {
                conv: 's',
                arg: Scalar::Ptr,
                spec: Default::default(),
            },
            text(" "),
            FormatPiece::Conv {
                conv: 'p',
                arg: Scalar::Ptr,
                spec: Default::default(),
            },
            text("\n"),
        ];
        let args = vec![
            r(q),
            r(m),
            r(w),
            int(255),
            int(-1),
            int(65),
            addr(hi),
            Operand::Null,
        ];
        f.print(format, args);
        f.ret(Some(int(3)));
    });
    let e = run_default(&pb.finish(main));
    assert_eq!(
        String::from_utf8_lossy(&e.output),
        "-3 -1 0 ff FFFFFFFF A hi (nil)\n"
    );
    assert_completed(&e, 3);
    assert_eq!(e.stats.steps, 1, "only main's end is a visible event");
}

#[test]
fn division_by_zero_is_a_violation_at_its_statement() {
    let mut pb = ProgramBuilder::new();
    let main = pb.declare("main", Some(Scalar::I32));
    pb.define(main, &[], |f| {
        let x = f.nondet(Scalar::I32);
        f.line = 42;
        f.binary(BinOp::Div, Scalar::I32, int(10), r(x));
        f.ret(Some(int(0)));
    });
    let p = pb.finish(main);
    let e = run_default(&p);
    let v = assert_violation(&e, ViolationKind::DivisionByZero, 42);
    assert_eq!((v.thread.0, v.location.as_str()), (0, "t.c:42"));
    assert_eq!(e.inputs.len(), 1);
    assert_eq!(e.inputs[0].source, InputSource::Nondet);
    assert_completed(&run_with(&p, |c| c.inputs = InputPolicy::list([5])), 0);
}

#[test]
fn false_assumption_ends_the_run_as_infeasible() {
    let mut pb = ProgramBuilder::new();
    let main = pb.declare("main", Some(Scalar::I32));
    pb.define(main, &[], |f| {
        let x = f.nondet(Scalar::U8);
        f.stmt(StmtKind::Assume { cond: r(x) });
        f.ret(Some(r(x)));
    });
    let p = pb.finish(main);
    assert!(matches!(
        run_default(&p).outcome,
        RunOutcome::AssumeViolated { .. }
    ));
    // 0x1FF truncated to u8 is 255.
    assert_completed(
        &run_with(&p, |c| c.inputs = InputPolicy::list([0x1FF])),
        255,
    );
}

#[test]
fn external_functions_return_inputs_even_through_pointers() {
    let mut pb = ProgramBuilder::new();
    let ext = pb.declare("rand", Some(Scalar::I32));
    let main = pb.declare("main", Some(Scalar::I32));
    pb.define(main, &[], |f| {
        let h = f.reg(Scalar::I32);
        f.stmt(StmtKind::Havoc {
            dst: Some(h),
            ty: Scalar::I32,
            function: "getpid".into(),
        });
        let fp = f.assign(Scalar::Ptr, Rvalue::Use(Operand::Func(ext)));
        let v = f.reg(Scalar::I32);
        f.stmt(StmtKind::Call {
            dst: Some(v),
            callee: Callee::Indirect(r(fp)),
            args: vec![],
        });
        let sum = f.binary(BinOp::Add, Scalar::I32, r(h), r(v));
        f.ret(Some(r(sum)));
    });
    let e = run_with(&pb.finish(main), |c| c.inputs = InputPolicy::list([3, -10]));
    assert_completed(&e, -7);
    let sources: Vec<_> = e
        .inputs
        .iter()
        .map(|i| (i.source.clone(), i.value))
        .collect();
    assert_eq!(
        sources,
        vec![
            (InputSource::Havoc("getpid".into()), 3),
            (InputSource::Havoc("rand".into()), -10)
        ]
    );
}

/// `int f(int n) { return n == 0 ? 0 : 1 + f(n - 1); }`
fn recursive_program(depth: i128) -> Program {
    let mut pb = ProgramBuilder::new();
    let rec = pb.declare("f", Some(Scalar::I32));
    let main = pb.declare("main", Some(Scalar::I32));
    pb.define(rec, &[Scalar::I32], |f| {
        let n = f.param(0);
        let zero = f.binary(BinOp::Eq, Scalar::I32, n.clone(), int(0));
        let base = f.block();
        let step = f.block();
        f.term(TermKind::Branch {
            cond: r(zero),
            then_bb: base,
            else_bb: step,
        });
        f.at(base);
        f.ret(Some(int(0)));
        f.at(step);
        let m = f.binary(BinOp::Sub, Scalar::I32, n, int(1));
        let sub = f.reg(Scalar::I32);
        f.stmt(StmtKind::Call {
            dst: Some(sub),
            callee: Callee::Direct(rec),
            args: vec![r(m)],
        });
        let result = f.binary(BinOp::Add, Scalar::I32, r(sub), int(1));
        f.ret(Some(r(result)));
    });
    pb.define(main, &[], |f| {
        let v = f.reg(Scalar::I32);
        f.stmt(StmtKind::Call {
            dst: Some(v),
            callee: Callee::Direct(rec),
            args: vec![int(depth)],
        });
        f.ret(Some(r(v)));
    });
    pb.finish(main)
}

#[test]
fn deep_recursion_runs_on_an_explicit_stack() {
    assert_completed(&run_default(&recursive_program(60_000)), 60_000);
    let e = run_with(&recursive_program(60_000), |c| c.max_call_depth = 1000);
    assert_eq!(
        e.outcome,
        RunOutcome::BoundHit {
            bound: Bound::CallDepth(1000)
        }
    );
}

/// `main`: `for (i = 0;; i++);` — an infinite loop whose local state never repeats (a
/// loop that returns to a state it was in is recognised sooner, see
/// `a_local_loop_that_repeats_its_state_ends_at_once`).
fn counting_forever() -> Program {
    let mut pb = ProgramBuilder::new();
    let main = pb.declare("main", Some(Scalar::I32));
    pb.define(main, &[], |f| {
        let i = f.assign(Scalar::I32, Rvalue::Use(int(0)));
        let head = f.block();
        f.term(TermKind::Goto(head));
        f.at(head);
        f.stmt(StmtKind::Assign {
            dst: i,
            value: Rvalue::Binary {
                op: BinOp::Add,
                ty: Scalar::I32,
                lhs: r(i),
                rhs: int(1),
            },
        });
        f.term(TermKind::Goto(head));
    });
    pb.finish(main)
}

#[test]
fn statement_bound_stops_an_infinite_loop() {
    let e = run_with(&counting_forever(), |c| c.max_statements = 1000);
    assert_eq!(
        e.outcome,
        RunOutcome::BoundHit {
            bound: Bound::Statements(1000)
        }
    );
    assert_eq!(e.stats.statements, 1001);
}

#[test]
fn a_local_loop_that_repeats_its_state_ends_at_once() {
    // `for (;;);` in main, the only thread: it loops forever, so the run hangs; it ends
    // as the statement bound it would reach, without running to it.
    let mut pb = ProgramBuilder::new();
    let main = pb.declare("main", Some(Scalar::I32));
    pb.define(main, &[], |f| f.term(TermKind::Goto(BlockId(0))));
    let e = run_with(&pb.finish(main), |c| c.max_statements = 1_000_000);
    assert_eq!(
        e.outcome,
        RunOutcome::BoundHit {
            bound: Bound::Statements(1_000_000)
        }
    );
    assert!(
        e.stats.statements < 1000,
        "{} statements",
        e.stats.statements
    );
}

#[test]
fn a_deadline_stops_an_infinite_loop() {
    let started = std::time::Instant::now();
    let e = run_with(&counting_forever(), |c| {
        c.deadline = Some(started + std::time::Duration::from_millis(50));
    });
    assert_eq!(e.outcome, RunOutcome::BoundHit { bound: Bound::Time });
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}

#[test]
fn abort_and_exit_end_the_run() {
    let mut pb = ProgramBuilder::new();
    let main = pb.declare("main", Some(Scalar::I32));
    pb.define(main, &[], |f| {
        let x = f.nondet(Scalar::I32);
        let quit = f.block();
        let abort = f.block();
        f.term(TermKind::Branch {
            cond: r(x),
            then_bb: quit,
            else_bb: abort,
        });
        f.at(quit);
        f.term(TermKind::Exit(r(x)));
        f.at(abort);
        f.term(TermKind::Abort);
    });
    let p = pb.finish(main);
    assert!(matches!(
        run_default(&p).outcome,
        RunOutcome::Aborted { .. }
    ));
    assert_completed(&run_with(&p, |c| c.inputs = InputPolicy::list([-2])), -2);
}

#[test]
fn uninit_rvalues_follow_the_policy() {
    let mut pb = ProgramBuilder::new();
    let main = pb.declare("main", Some(Scalar::I32));
    pb.define(main, &[], |f| {
        let u = f.assign(Scalar::I32, Rvalue::Uninit(Scalar::I32));
        f.ret(Some(r(u)));
    });
    let p = pb.finish(main);
    assert_completed(&run_default(&p), 0);
    let e = run_with(&p, |c| {
        c.uninit = UninitPolicy::Nondet;
        c.inputs = InputPolicy::list([9]);
    });
    assert_completed(&e, 9);
    assert_eq!(e.inputs[0].source, InputSource::Uninit);
}

#[test]
fn random_inputs_are_reproducible() {
    let mut pb = ProgramBuilder::new();
    let main = pb.declare("main", Some(Scalar::I32));
    pb.define(main, &[], |f| {
        for _ in 0..8 {
            f.nondet(Scalar::I32);
        }
        f.ret(Some(int(0)));
    });
    let p = pb.finish(main);
    let values = |seed| -> Vec<i128> {
        run_with(&p, |c| c.inputs = InputPolicy::random(seed))
            .inputs
            .iter()
            .map(|i| i.value)
            .collect()
    };
    assert_eq!(values(1), values(1));
    assert_ne!(values(1), values(2));
}

#[test]
fn malformed_ir_is_an_error_not_a_panic() {
    let mut pb = ProgramBuilder::new();
    let main = pb.declare("main", Some(Scalar::I32));
    pb.define(main, &[], |f| f.ret(Some(r(RegId(7)))));
    let err = run(&pb.finish(main), &RunConfig::default()).unwrap_err();
    assert!(matches!(err, RuntimeError::MalformedIr(_)), "{err}");
    assert!(err.to_string().contains("missing register r7"), "{err}");
}

#[test]
fn unsupported_behaviour_is_an_error_with_its_location() {
    let mut pb = ProgramBuilder::new();
    let g = pb.global("g", 4);
    let main = pb.declare("main", Some(Scalar::I32));
    pb.define(main, &[], |f| {
        f.line = 7;
        f.assign(
            Scalar::U32,
            Rvalue::Cast {
                from: Scalar::Ptr,
                to: Scalar::U32,
                arg: addr(g),
            },
        );
        f.ret(Some(int(0)));
    });
    let err = run(&pb.finish(main), &RunConfig::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.c:7: unsupported: conversion of an object or function pointer to an integer"
    );
}
