use super::*;
use crate::concrete::{self, RunOutcome, ViolationKind};
use crate::test_support::lower;

/// What driving one step to its end produced.
#[derive(Default)]
struct Ends {
    nodes: Vec<Node>,
    leaves: Vec<End>,
    ran: Vec<StmtId>,
}

/// Drives `step` and every side of its forks to their ends.
fn drive(e: &mut Stepper<'_>, step: Step) -> Ends {
    let mut ends = Ends::default();
    let mut work = vec![step];
    while let Some(mut step) = work.pop() {
        loop {
            let done = e.advance(step);
            ends.ran.extend(done.ran);
            match done.then {
                Advance::Continue(s) | Advance::Switch(s) => step = s,
                Advance::Node(n) => {
                    ends.nodes.push(n);
                    break;
                }
                Advance::Leaf(end) => {
                    ends.leaves.push(end);
                    break;
                }
                Advance::Fork(sides) => {
                    for side in sides {
                        match side {
                            ForkSide::Step { step, .. } => work.push(*step),
                            ForkSide::Leaf(end) => ends.leaves.push(end),
                            ForkSide::SolverGaveUp => panic!("the solver gave up"),
                        }
                    }
                    break;
                }
                Advance::Stopped => panic!("no time bound was set"),
            }
        }
    }
    ends
}

const RACE: &str = "#include <pthread.h>\n\
    #include <assert.h>\n\
    int x;\n\
    void *t(void *a) { x = 1; return 0; }\n\
    int main() { pthread_t h; pthread_create(&h, 0, t, 0); x = 2;\n\
      pthread_join(h, 0); assert(x == 1); return 0; }\n";

/// Every node reachable from the first one, depth first, and the leaves met.
fn explore(e: &mut Stepper<'_>) -> (Vec<Node>, Vec<End>) {
    let first = e.first_step().expect("initial state");
    let ends = drive(e, first);
    let mut stack = ends.nodes;
    let mut leaves = ends.leaves;
    let mut seen = Vec::new();
    while let Some(node) = stack.pop() {
        for t in e.enabled(&node) {
            let step = e.step(&node, t);
            let ends = drive(e, step);
            stack.extend(ends.nodes);
            leaves.extend(ends.leaves);
        }
        seen.push(node);
    }
    (seen, leaves)
}

#[test]
fn every_interleaving_of_a_race_reaches_both_outcomes() {
    let prog = lower("race.c", RACE);
    let cfg = Config::default();
    let mut e = Stepper::new(&prog, &cfg).expect("engine");
    let (nodes, leaves) = explore(&mut e);
    let failed = leaves
        .iter()
        .filter(|l| {
            matches!(
                l,
                End::Violation {
                    kind: ViolationKind::Assertion,
                    ..
                }
            )
        })
        .count();
    let completed = leaves
        .iter()
        .filter(|l| matches!(l, End::Completed))
        .count();
    assert!(failed >= 1, "the order x = 1; x = 2 fails the assertion");
    assert!(completed >= 1, "the order x = 2; x = 1 passes");
    // Somewhere both threads stand at their writes of `x`: a conflict.
    let racing = nodes.iter().any(|n| {
        let live = n.live_threads();
        live.len() == 2 && e.conflicting(n, live[0], live[1])
    });
    assert!(racing, "the two writes of x conflict at some node");
}

#[test]
fn a_node_path_witness_replays_to_the_same_schedule() {
    let prog = lower("race_witness.c", RACE);
    let cfg = Config {
        program_name: "race_witness.c".into(),
        ..Config::default()
    };
    let mut e = Stepper::new(&prog, &cfg).expect("engine");
    let (nodes, _) = explore(&mut e);
    let deepest = nodes.iter().max_by_key(|n| n.path().len()).expect("nodes");
    let w = e.witness(deepest.path(), &[]);
    assert_eq!(w.schedule.len(), deepest.path().len());
    let mut run = w.config();
    run.max_steps = Some(w.schedule.len() as u64);
    let exec = concrete::run(&prog, &run).expect("replays");
    let replayed: Vec<(Tid, StmtId)> = exec
        .trace
        .iter()
        .map(|s| (s.thread.0 as usize, s.stmt))
        .collect();
    assert_eq!(replayed, deepest.path().steps());
    assert!(matches!(exec.outcome, RunOutcome::BoundHit { .. }));
}

#[test]
fn a_branch_on_an_input_forks_into_two_steps_with_their_own_paths() {
    let prog = lower(
        "fork.c",
        "extern int __VERIFIER_nondet_int(void);\n\
         int g;\n\
         int main() { int n = __VERIFIER_nondet_int(); if (n > 5) g = 1; else g = 2; return g; }\n",
    );
    let cfg = Config::default();
    let mut e = Stepper::new(&prog, &cfg).expect("engine");
    let mut step = e.first_step().expect("initial state");
    let sides = loop {
        let done = e.advance(step);
        match done.then {
            Advance::Continue(s) | Advance::Switch(s) => step = s,
            Advance::Fork(sides) => break sides,
            _ => panic!("main forks before its first visible event"),
        }
    };
    assert_eq!(sides.len(), 2, "both sides of n > 5 are feasible");
    let mut stores = Vec::new();
    for side in sides {
        let ForkSide::Step {
            step,
            repeats_statement,
        } = side
        else {
            panic!("both sides go on");
        };
        assert!(
            !repeats_statement,
            "a branch does not run its statement again"
        );
        let ends = drive(&mut e, *step);
        let node = ends
            .nodes
            .into_iter()
            .next()
            .expect("main stops at g's store");
        let w = e.witness(node.path(), &[]);
        assert_eq!(w.inputs.len(), 1);
        stores.push((w.inputs[0].value > 5, node.fingerprint()));
    }
    assert_ne!(stores[0].0, stores[1].0, "one witness input per side");
    assert_ne!(stores[0].1, stores[1].1, "the sides' nodes differ");
}

#[test]
#[should_panic(expected = "another step's path was installed")]
fn advancing_a_step_while_another_runs_is_refused() {
    let prog = lower("two_steps.c", RACE);
    let cfg = Config::default();
    let mut e = Stepper::new(&prog, &cfg).expect("engine");
    let (nodes, _) = explore(&mut e);
    let node = nodes
        .iter()
        .find(|n| e.enabled(n).len() == 2)
        .expect("a node where both threads may step");
    // Thread 1's store of x is followed by local code (its return): after one advance
    // its step stands between two statements.
    let a = match e.advance(e.step(node, 1)).then {
        Advance::Continue(s) | Advance::Switch(s) => s,
        _ => panic!("thread 1's step goes on after its store"),
    };
    let b = e.step(node, 0);
    let _ = e.advance(b);
    let _ = e.advance(a);
}
