//! Threads, scheduling, mutexes, conditions, atomic sections, witnesses.

use super::builder::*;
use super::*;
use crate::concrete::{
    replay, Bound, EventKind, RuntimeError, ScheduleFallback, SchedulePolicy, ThreadId, Witness,
};
use analysis::ir::*;

const PTR: Scalar = Scalar::Ptr;

fn schedule(threads: &[u32]) -> SchedulePolicy {
    SchedulePolicy::List {
        threads: threads.iter().map(|&t| ThreadId(t)).collect(),
        then: ScheduleFallback::RoundRobin,
    }
}

fn run_schedule(p: &Program, threads: &[u32]) -> Execution {
    run_with(p, |c| c.schedule = schedule(threads))
}

/// Thread `inc`: `t = x; x = t + 1;` (with `lock`: inside `lock(m)` ... `unlock(m)`).
/// `main`: create two, join both, `assert(x == 2)` at line 77.
fn counter_program(with_lock: bool) -> Program {
    let mut pb = ProgramBuilder::new();
    let x = pb.global("x", 4);
    let m = pb.global("m", 24);
    let (h1, h2) = (pb.global("h1", 4), pb.global("h2", 4));
    let inc = pb.declare("inc", Some(PTR));
    let main = pb.declare("main", Some(Scalar::I32));
    pb.define(inc, &[PTR], |f| {
        if with_lock {
            f.lock(m);
        }
        let t = f.load(Scalar::I32, addr(x));
        let t1 = f.binary(BinOp::Add, Scalar::I32, r(t), int(1));
        f.store(Scalar::I32, addr(x), r(t1));
        if with_lock {
            f.unlock(m);
        }
        f.ret(Some(Operand::Null));
    });
    pb.define(main, &[], |f| {
        f.create(h1, inc, Operand::Null);
        f.create(h2, inc, Operand::Null);
        f.join(h1, Operand::Null);
        f.join(h2, Operand::Null);
        let v = f.load(Scalar::I32, addr(x));
        let two = f.binary(BinOp::Eq, Scalar::I32, r(v), int(2));
        f.line = 77;
        f.assert(r(two), "x == 2");
        f.ret(Some(int(0)));
    });
    pb.finish(main)
}

#[test]
fn a_racy_schedule_loses_an_update_and_its_witness_replays() {
    let p = counter_program(false);
    assert_completed(&run_default(&p), 0);
    let racy = [0, 0, 1, 2, 1, 2, 1, 2, 0, 0, 0, 0, 0];
    let e = run_schedule(&p, &racy);
    let v = assert_violation(&e, ViolationKind::Assertion, 77);
    assert_eq!(
        (v.thread, v.message.as_str()),
        (ThreadId(0), "assertion `x == 2` failed")
    );
    assert_eq!(e.trace.len(), racy.len());
    assert_eq!(e.trace[6].event, EventKind::ThreadEnd);

    let witness = Witness::from_execution("counter.c", &p, &RunConfig::default(), &e);
    let text = serde_json::to_string(&witness).unwrap();
    let back: Witness = serde_json::from_str(&text).unwrap();
    let replayed = replay(&p, &back).unwrap();
    assert_eq!(replayed.outcome, e.outcome);
    assert_eq!(replayed.trace, e.trace);
}

#[test]
fn random_schedules_find_the_race_and_never_break_the_locked_version() {
    let racy = counter_program(false);
    let locked = counter_program(true);
    let violations = |p: &Program| {
        (0..64)
            .filter(|&seed| {
                run_with(p, |c| c.schedule = SchedulePolicy::Random { seed }).is_violation()
            })
            .count()
    };
    assert!(violations(&racy) > 0);
    assert_eq!(violations(&locked), 0);
}

#[test]
fn joins_return_thread_values_and_integer_pointers_survive_casts() {
    let mut pb = ProgramBuilder::new();
    let h = pb.global("h", 4);
    let res = pb.global("res", 4);
    let worker = pb.declare("worker", Some(PTR));
    let main = pb.declare("main", Some(Scalar::I32));
    pb.define(worker, &[PTR], |f| {
        let n = f.assign(
            Scalar::U32,
            Rvalue::Cast {
                from: PTR,
                to: Scalar::U32,
                arg: f.param(0),
            },
        );
        let n1 = f.binary(BinOp::Add, Scalar::U32, r(n), Operand::int(1, Scalar::U32));
        let out = f.assign(
            PTR,
            Rvalue::Cast {
                from: Scalar::U32,
                to: PTR,
                arg: r(n1),
            },
        );
        f.term(TermKind::ThreadExit(r(out)));
    });
    pb.define(main, &[], |f| {
        let five = f.assign(
            PTR,
            Rvalue::Cast {
                from: Scalar::I32,
                to: PTR,
                arg: int(5),
            },
        );
        f.create(h, worker, r(five));
        let id = f.load(Scalar::U32, addr(h));
        let is_one = f.binary(BinOp::Eq, Scalar::U32, r(id), Operand::int(1, Scalar::U32));
        f.assert(r(is_one), "h == 1");
        f.join(h, addr(res));
        let v = f.load(PTR, addr(res));
        let n = f.assign(
            Scalar::I32,
            Rvalue::Cast {
                from: PTR,
                to: Scalar::I32,
                arg: r(v),
            },
        );
        f.ret(Some(r(n)));
    });
    let e = run_default(&pb.finish(main));
    assert_completed(&e, 6);
    assert_eq!(e.stats.threads, 2);
}

#[test]
fn join_misuse() {
    for (target, joins, expected) in [
        (7, 1, "join of thread 7, which does not exist"),
        (1, 2, "join of thread 1, which was already joined"),
        (0, 1, "thread 0 joins itself"),
    ] {
        let mut pb = ProgramBuilder::new();
        let h = pb.global("h", 4);
        let worker = pb.declare("worker", Some(PTR));
        let main = pb.declare("main", Some(Scalar::I32));
        pb.define(worker, &[PTR], |f| f.ret(Some(Operand::Null)));
        pb.define(main, &[], |f| {
            f.create(h, worker, Operand::Null);
            for _ in 0..joins {
                let thread = Operand::int(target, Scalar::U32);
                f.sync(SyncOp::ThreadJoin {
                    thread,
                    result: Operand::Null,
                });
            }
            f.ret(Some(int(0)));
        });
        let e = run_default(&pb.finish(main));
        assert_eq!(violation(&e).kind, ViolationKind::JoinMisuse);
        assert_eq!(violation(&e).message, expected);
    }
}

#[test]
fn a_schedule_naming_a_blocked_thread_diverges() {
    let p = counter_program(false);
    // Step 2: main stands at its join of thread 1, which has not ended.
    let err = run(
        &p,
        &RunConfig {
            schedule: schedule(&[0, 0, 0, 0]),
            ..RunConfig::default()
        },
    )
    .unwrap_err();
    assert_eq!(
        err,
        RuntimeError::ScheduleDiverged {
            step: 3,
            thread: ThreadId(0),
            enabled: "1, 2".into()
        }
    );
}

/// Two threads taking mutexes `a` and `b` in opposite orders.
#[test]
fn lock_order_inversion_deadlocks_and_names_the_blocked_threads() {
    let mut pb = ProgramBuilder::new();
    let (a, b) = (pb.global("a", 24), pb.global("b", 24));
    let h = pb.global("h", 4);
    let worker = pb.declare("worker", Some(PTR));
    let main = pb.declare("main", Some(Scalar::I32));
    pb.define(worker, &[PTR], |f| {
        f.lock(a);
        f.line = 91;
        f.lock(b);
        f.unlock(b);
        f.unlock(a);
        f.ret(Some(Operand::Null));
    });
    pb.define(main, &[], |f| {
        f.create(h, worker, Operand::Null);
        f.lock(b);
        f.line = 81;
        f.lock(a);
        f.unlock(a);
        f.unlock(b);
        f.join(h, Operand::Null);
        f.ret(Some(int(0)));
    });
    let p = pb.finish(main);
    // main takes both mutexes before the worker takes any.
    assert_completed(&run_schedule(&p, &[0, 0, 0, 0, 0, 0]), 0);
    let e = run_schedule(&p, &[0, 1, 0]);
    let v = assert_violation(&e, ViolationKind::Deadlock, 81);
    let blocked: Vec<(u32, &str, u32)> = v
        .blocked
        .iter()
        .map(|b| (b.thread.0, b.waits_for.as_str(), b.span.line))
        .collect();
    assert_eq!(
        blocked,
        vec![
            (0, "mutex `a` (held by thread 1)", 81),
            (1, "mutex `b` (held by thread 0)", 91)
        ]
    );
    assert!(
        v.message
            .contains("thread 1 waits for mutex `b` (held by thread 0) at t.c:91"),
        "{}",
        v.message
    );
}

#[test]
fn lock_misuse() {
    for (ops, expected) in [
        (
            vec!["lock", "lock"],
            "relock of mutex `m`, already held by this thread",
        ),
        (vec!["unlock"], "unlock mutex `m`, which is not held"),
        (
            vec!["wait"],
            "pthread_cond_wait with mutex `m`, which is not held",
        ),
    ] {
        let mut pb = ProgramBuilder::new();
        let m = pb.global("m", 24);
        let c = pb.global("c", 48);
        let main = pb.declare("main", Some(Scalar::I32));
        pb.define(main, &[], |f| {
            for op in ops {
                match op {
                    "lock" => f.lock(m),
                    "unlock" => f.unlock(m),
                    _ => f.sync(SyncOp::CondWait {
                        cond: addr(c),
                        mutex: addr(m),
                        spurious: true,
                    }),
                }
            }
            f.ret(Some(int(0)));
        });
        let e = run_default(&pb.finish(main));
        assert_eq!(
            (violation(&e).kind, violation(&e).message.as_str()),
            (ViolationKind::LockMisuse, expected)
        );
    }
}

#[test]
fn trylock_reports_ebusy() {
    let mut pb = ProgramBuilder::new();
    let m = pb.global("m", 24);
    let main = pb.declare("main", Some(Scalar::I32));
    pb.define(main, &[], |f| {
        let first = f.reg(Scalar::I32);
        f.stmt(StmtKind::Sync {
            dst: Some(first),
            op: SyncOp::MutexTryLock { mutex: addr(m) },
        });
        let second = f.reg(Scalar::I32);
        f.stmt(StmtKind::Sync {
            dst: Some(second),
            op: SyncOp::MutexTryLock { mutex: addr(m) },
        });
        let sum = f.binary(BinOp::Add, Scalar::I32, r(first), r(second));
        f.ret(Some(r(sum)));
    });
    assert_completed(&run_default(&pb.finish(main)), EBUSY as i64);
}

/// `waiters` threads each: `lock(m); wait(c, m); unlock(m)`. `main`: create them, then
/// run `signal_ops` ("signal"/"broadcast"), each under the mutex, then join all.
fn condition_program(waiters: usize, signal_ops: &[&str]) -> Program {
    let mut pb = ProgramBuilder::new();
    let (m, c) = (pb.global("m", 24), pb.global("c", 48));
    let handles: Vec<ObjId> = (0..waiters)
        .map(|i| pb.global(&format!("h{i}"), 4))
        .collect();
    let waiter = pb.declare("waiter", Some(PTR));
    let main = pb.declare("main", Some(Scalar::I32));
    pb.define(waiter, &[PTR], |f| {
        f.lock(m);
        f.line = 100;
        f.sync(SyncOp::CondWait {
            cond: addr(c),
            mutex: addr(m),
            spurious: true,
        });
        f.unlock(m);
        f.ret(Some(Operand::Null));
    });
    pb.define(main, &[], |f| {
        for &h in &handles {
            f.create(h, waiter, Operand::Null);
        }
        for op in signal_ops {
            f.lock(m);
            match *op {
                "signal" => f.sync(SyncOp::CondSignal { cond: addr(c) }),
                _ => f.sync(SyncOp::CondBroadcast { cond: addr(c) }),
            }
            f.unlock(m);
        }
        f.line = 200;
        for &h in &handles {
            f.join(h, Operand::Null);
        }
        f.ret(Some(int(0)));
    });
    pb.finish(main)
}

#[test]
fn signal_wakes_the_longest_waiting_thread_and_the_wakee_reacquires_as_a_step() {
    let p = condition_program(2, &["signal"]);
    // create, create, T1 lock, T1 wait, T2 lock, T2 wait, main: lock, signal, unlock,
    // T1 reacquire, T1 unlock, T1 end, main: load h0, join h0, load h1 -> join blocks.
    let steps = [0, 0, 1, 1, 2, 2, 0, 0, 0, 1, 1, 1, 0, 0, 0];
    let e = run_schedule(&p, &steps);
    assert_eq!(e.trace[9].event, EventKind::Reacquire);
    assert_eq!(e.trace[9].span.line, 100);
    let v = assert_violation(&e, ViolationKind::Deadlock, 203);
    let blocked: Vec<(u32, &str)> = v
        .blocked
        .iter()
        .map(|b| (b.thread.0, b.waits_for.as_str()))
        .collect();
    assert_eq!(
        blocked,
        vec![(0, "thread 2 to end"), (2, "a signal on `c`")]
    );
}

#[test]
fn broadcast_wakes_every_waiter() {
    let p = condition_program(2, &["broadcast"]);
    let steps = [0, 0, 1, 1, 2, 2];
    assert_completed(&run_schedule(&p, &steps), 0);
}

#[test]
fn a_signal_without_waiters_is_lost() {
    let p = condition_program(1, &["signal"]);
    // main: create, lock, signal (nobody waits), unlock, load h0; then T1 lock, T1 wait.
    let e = run_schedule(&p, &[0, 0, 0, 0, 0, 1, 1]);
    assert_eq!(violation(&e).kind, ViolationKind::Deadlock);
    let blocked: Vec<u32> = violation(&e).blocked.iter().map(|b| b.thread.0).collect();
    assert_eq!(blocked, vec![0, 1]);
}

#[test]
fn an_explicit_schedule_can_wake_a_waiter_spuriously() {
    let p = condition_program(1, &["signal"]);
    // As above, the signal is lost; then the schedule names the waiting thread 1: a
    // spurious wake-up (it re-acquires the mutex), its unlock and end, main's join.
    let steps = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0];
    let e = run_schedule(&p, &steps);
    assert_eq!(e.trace[7].event, EventKind::Reacquire);
    assert_eq!(e.trace[7].thread, ThreadId(1));
    assert_completed(&e, 0);
    // Without spurious wake-ups the waiter cannot run there: the run deadlocks.
    let off = run_with(&p, |c| {
        c.schedule = schedule(&steps);
        c.spurious_wakeups = false;
    });
    assert!(matches!(
        off.outcome,
        RunOutcome::Violation(ref v) if v.kind == ViolationKind::Deadlock
    ));
}

#[test]
fn atomic_sections_exclude_other_threads() {
    let mut pb = ProgramBuilder::new();
    let x = pb.global("x", 4);
    let h = pb.global("h", 4);
    let worker = pb.declare("worker", Some(PTR));
    let main = pb.declare("main", Some(Scalar::I32));
    pb.define(worker, &[PTR], |f| {
        f.sync(SyncOp::AtomicBegin);
        let t = f.load(Scalar::I32, addr(x));
        let t1 = f.binary(BinOp::Add, Scalar::I32, r(t), int(1));
        f.store(Scalar::I32, addr(x), r(t1));
        f.sync(SyncOp::AtomicEnd);
        f.ret(Some(Operand::Null));
    });
    pb.define(main, &[], |f| {
        f.create(h, worker, Operand::Null);
        f.store(Scalar::I32, addr(x), int(10));
        f.join(h, Operand::Null);
        f.ret(Some(int(0)));
    });
    let p = pb.finish(main);
    let err = run(
        &p,
        &RunConfig {
            schedule: schedule(&[0, 1, 0]),
            ..RunConfig::default()
        },
    )
    .unwrap_err();
    assert_eq!(
        err,
        RuntimeError::ScheduleDiverged {
            step: 2,
            thread: ThreadId(0),
            enabled: "1".into()
        }
    );
    assert_completed(&run_schedule(&p, &[0, 1, 1, 1, 1, 0]), 0);
}

#[test]
fn main_returning_ends_the_program_but_pthread_exit_waits_for_the_others() {
    let build = |main_exits: bool| {
        let mut pb = ProgramBuilder::new();
        let x = pb.global("x", 4);
        let h = pb.global("h", 4);
        let worker = pb.declare("worker", Some(PTR));
        let main = pb.declare("main", Some(Scalar::I32));
        pb.define(worker, &[PTR], |f| {
            f.store(Scalar::I32, addr(x), int(1));
            f.term(TermKind::Error(Failure::ReachError));
        });
        pb.define(main, &[], |f| {
            f.create(h, worker, Operand::Null);
            if main_exits {
                f.term(TermKind::ThreadExit(Operand::Null));
            } else {
                f.ret(Some(int(4)));
            }
        });
        pb.finish(main)
    };
    // Step 1: main's end. With `return` nothing else runs; with pthread_exit the worker
    // still reaches its error.
    assert_completed(&run_schedule(&build(false), &[0, 0]), 4);
    let e = run_schedule(&build(true), &[0, 0, 1]);
    assert_eq!(violation(&e).kind, ViolationKind::ReachError);
    assert_eq!(violation(&e).thread, ThreadId(1));
}

#[test]
fn thread_locals_are_per_thread() {
    let mut pb = ProgramBuilder::new();
    let tls = pb.thread_local("tls", 4);
    let h = pb.global("h", 4);
    let worker = pb.declare("worker", Some(PTR));
    let main = pb.declare("main", Some(Scalar::I32));
    pb.define(worker, &[PTR], |f| {
        f.store(Scalar::I32, addr(tls), int(5));
        f.ret(Some(Operand::Null));
    });
    pb.define(main, &[], |f| {
        f.store(Scalar::I32, addr(tls), int(1));
        f.create(h, worker, Operand::Null);
        f.join(h, Operand::Null);
        let v = f.load(Scalar::I32, addr(tls));
        f.ret(Some(r(v)));
    });
    assert_completed(&run_default(&pb.finish(main)), 1);
}

#[test]
fn unbounded_thread_creation_hits_the_thread_bound() {
    let mut pb = ProgramBuilder::new();
    let h = pb.global("h", 4);
    let worker = pb.declare("worker", Some(PTR));
    let main = pb.declare("main", Some(Scalar::I32));
    pb.define(worker, &[PTR], |f| f.ret(Some(Operand::Null)));
    pb.define(main, &[], |f| {
        f.create(h, worker, Operand::Null);
        f.term(TermKind::Goto(BlockId(0)));
    });
    let p = pb.finish(main);
    let e = run_with(&p, |c| c.max_threads = 1000);
    assert_eq!(
        e.outcome,
        RunOutcome::BoundHit {
            bound: crate::concrete::Bound::Threads(1000)
        }
    );
    assert_eq!(e.stats.threads, 1000);
}

#[test]
fn joining_an_id_before_its_thread_exists_is_a_misuse_whenever_it_runs() {
    // main joins id 1 (read from `h` before any thread exists), then creates thread 1.
    let mut pb = ProgramBuilder::new();
    let h = pb.global("h", 4);
    let worker = pb.declare("worker", Some(PTR));
    let main = pb.declare("main", Some(Scalar::I32));
    pb.define(worker, &[PTR], |f| f.ret(Some(Operand::Null)));
    pb.define(main, &[], |f| {
        f.store(Scalar::U32, addr(h), Operand::int(1, Scalar::U32));
        let id = f.load(Scalar::U32, addr(h));
        f.line = 120;
        f.sync(SyncOp::ThreadJoin {
            thread: r(id),
            result: Operand::Null,
        });
        f.create(h, worker, Operand::Null);
        f.ret(Some(int(0)));
    });
    let v = assert_violation(
        &run_default(&pb.finish(main)),
        ViolationKind::JoinMisuse,
        120,
    );
    assert_eq!(v.message, "join of thread 1, which does not exist");
}

#[test]
fn a_join_of_an_id_created_later_waits_for_that_thread() {
    // Thread 1 joins id 2, which does not exist until main's second create.
    let mut pb = ProgramBuilder::new();
    let (h1, h2) = (pb.global("h1", 4), pb.global("h2", 4));
    let joiner = pb.declare("joiner", Some(PTR));
    let idle = pb.declare("idle", Some(PTR));
    let main = pb.declare("main", Some(Scalar::I32));
    pb.define(joiner, &[PTR], |f| {
        let two = Operand::int(2, Scalar::U32);
        f.sync(SyncOp::ThreadJoin {
            thread: two,
            result: Operand::Null,
        });
        f.ret(Some(Operand::Null));
    });
    pb.define(idle, &[PTR], |f| f.ret(Some(Operand::Null)));
    pb.define(main, &[], |f| {
        f.create(h1, joiner, Operand::Null);
        f.create(h2, idle, Operand::Null);
        f.join(h1, Operand::Null);
        f.ret(Some(int(0)));
    });
    let p = pb.finish(main);
    let early = run_schedule(&p, &[0, 1]);
    assert_eq!(
        violation(&early).message,
        "join of thread 2, which does not exist"
    );
    let err = run(
        &p,
        &RunConfig {
            schedule: schedule(&[0, 0, 1]),
            ..RunConfig::default()
        },
    );
    assert!(
        matches!(err, Err(RuntimeError::ScheduleDiverged { step: 2, .. })),
        "{err:?}"
    );
    assert_completed(&run_schedule(&p, &[0, 0, 2, 1]), 0);
}

#[test]
fn witnesses_are_checked_before_replay() {
    let p = counter_program(false);
    let e = run_default(&p);
    let good = Witness::from_execution("counter.c", &p, &RunConfig::default(), &e);
    assert_eq!(replay(&p, &good).unwrap().outcome, e.outcome);
    let mut lp64 = good.clone();
    lp64.data_model = "lp64".into();
    let mut future = good.clone();
    future.version = crate::concrete::WITNESS_VERSION + 1;
    let mut foreign = good;
    foreign.format = "svcomp".into();
    for bad in [lp64, future, foreign] {
        let err = replay(&p, &bad).unwrap_err();
        assert!(matches!(err, RuntimeError::Witness(_)), "{err}");
    }
}

#[test]
fn mutex_held_is_true_only_for_the_holding_thread() {
    let mut pb = ProgramBuilder::new();
    let (m, g, h) = (pb.global("m", 24), pb.global("g", 4), pb.global("h", 4));
    let worker = pb.declare("worker", Some(PTR));
    let main = pb.declare("main", Some(Scalar::I32));
    pb.define(worker, &[PTR], |f| {
        let held = f.assign(Scalar::I32, Rvalue::MutexHeld(addr(m)));
        f.store(Scalar::I32, addr(g), r(held));
        f.ret(Some(int(0)));
    });
    pb.define(main, &[], |f| {
        let before = f.assign(Scalar::I32, Rvalue::MutexHeld(addr(m)));
        f.lock(m);
        f.create(h, worker, int(0));
        f.join(h, int(0));
        let in_worker = f.load(Scalar::I32, addr(g));
        let holding = f.assign(Scalar::I32, Rvalue::MutexHeld(addr(m)));
        f.unlock(m);
        let after = f.assign(Scalar::I32, Rvalue::MutexHeld(addr(m)));
        // before, worker, holding, after as the decimal digits of the exit code.
        let a = f.binary(BinOp::Mul, Scalar::I32, r(before), int(1000));
        let b = f.binary(BinOp::Mul, Scalar::I32, r(in_worker), int(100));
        let c = f.binary(BinOp::Mul, Scalar::I32, r(holding), int(10));
        let ab = f.binary(BinOp::Add, Scalar::I32, r(a), r(b));
        let abc = f.binary(BinOp::Add, Scalar::I32, r(ab), r(c));
        let all = f.binary(BinOp::Add, Scalar::I32, r(abc), r(after));
        f.ret(Some(r(all)));
    });
    assert_completed(&run_default(&pb.finish(main)), 10);
}

/// Thread `spin`: `r = flag; while (r == 0) { i = i + 1 - 1; }` (a loop on registers
/// only, forever when `flag` was 0). `main`: creates it, then sets `x = 7`, and with
/// `join` joins it; returns 0.
fn register_spin_program(join: bool) -> Program {
    let mut pb = ProgramBuilder::new();
    let flag = pb.global("flag", 4);
    let x = pb.global("x", 4);
    let h = pb.global("h", 4);
    let spin = pb.declare("spin", Some(PTR));
    let main = pb.declare("main", Some(Scalar::I32));
    pb.define(spin, &[PTR], |f| {
        let v = f.load(Scalar::I32, addr(flag));
        let head = f.block();
        let body = f.block();
        let out = f.block();
        f.term(TermKind::Goto(head));
        f.at(head);
        let zero = f.binary(BinOp::Eq, Scalar::I32, r(v), int(0));
        f.term(TermKind::Branch {
            cond: r(zero),
            then_bb: body,
            else_bb: out,
        });
        f.at(body);
        let up = f.binary(BinOp::Add, Scalar::I32, r(v), int(1));
        let _down = f.binary(BinOp::Sub, Scalar::I32, r(up), int(1));
        f.term(TermKind::Goto(head));
        f.at(out);
        f.ret(Some(Operand::Null));
    });
    pb.define(main, &[], |f| {
        f.create(h, spin, Operand::Null);
        f.store(Scalar::I32, addr(x), int(7));
        if join {
            f.join(h, Operand::Null);
        }
        f.ret(Some(int(0)));
    });
    pb.finish(main)
}

#[test]
fn a_thread_looping_forever_on_registers_lets_the_others_go_on() {
    // The spinner runs first and reads flag == 0: its step never reaches another visible
    // event. The interpreter recognises the repeated local state and goes on with main,
    // far below the statement bound.
    let e = run_schedule(&register_spin_program(false), &[0, 1, 0, 0]);
    assert_eq!(e.outcome, RunOutcome::Completed { exit_code: 0 });
    assert!(
        e.stats.statements < 10_000,
        "{} statements",
        e.stats.statements
    );
}

#[test]
fn joining_a_thread_that_loops_forever_is_no_deadlock() {
    // main waits for a thread that never ends: the program hangs, which the run reports
    // as the statement bound it would run into, not as a deadlock.
    let e = run_schedule(&register_spin_program(true), &[0, 1, 0, 0]);
    assert!(
        matches!(
            e.outcome,
            RunOutcome::BoundHit {
                bound: Bound::Statements(_)
            }
        ),
        "{:?}",
        e.outcome
    );
    assert!(
        e.stats.statements < 10_000,
        "{} statements",
        e.stats.statements
    );
}
