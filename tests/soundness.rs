//! The wrong verdicts of issue 10 (cases 1, 2, 3, 6, 7), beyond what tests/verify.rs
//! checks on their fixtures (verdict, kind, line and witness replay under every
//! strategy, with `--repair add` and `--no-slice`): `agx hunt --assertions` confirms the
//! violations, the undefined behaviour of case 6 is the reason of UNKNOWN under every
//! strategy, and a SAFE verdict without spurious wake-ups says so; the memory budget
//! and the deadline hold on inputs that used to exhaust them.

mod common;

use common::{agx_bin, process, project_root};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);

fn agx(args: &[&str]) -> process::Finished {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    process::run(&agx_bin(), &args, &project_root(), LIMIT)
}

#[test]
fn hunt_confirms_the_violations_the_engine_used_to_miss() {
    for name in [
        "type_b_branch_guard",
        "type_b_branch_guard_threads",
        "type_b_race_order",
        "type_b_race_order_branch",
        "type_b_atomic_branch",
        "condvar_spurious_wakeup",
    ] {
        let file = format!("fixtures/verify/{name}.c");
        let run = agx(&["hunt", &file, "--assertions"]);
        assert!(
            run.stdout.contains("CONFIRMED") && run.code == Some(1),
            "{file}: {} {}",
            run.ending(),
            run.stdout
        );
    }
}

#[test]
fn undefined_behaviour_on_a_cut_region_is_unknown_under_every_strategy() {
    for name in ["type_b_null_deref", "type_a_null_deref"] {
        let file = format!("fixtures/verify/{name}.c");
        for extra in [
            &["--strategy", "baseline"][..],
            &["--strategy", "dpor"],
            &["--strategy", "dpor+ag"],
            &["--strategy", "dpor+ag", "--repair", "add"],
            &["--strategy", "dpor+ag", "--no-slice"],
        ] {
            let mut args = vec!["verify", file.as_str()];
            args.extend_from_slice(extra);
            let run = agx(&args);
            assert!(
                run.stdout
                    .starts_with("UNKNOWN: undefined-behaviour: null pointer dereference"),
                "{file} {extra:?}: {}",
                run.stdout
            );
        }
    }
}

/// REFUTED means what verify's SAFE means: a search that met undefined behaviour on a
/// path (the null dereference of case 6, after the assertion in the Type A fixture)
/// cannot refute, whether the guided trials or the exhaustive fallback explored it.
#[test]
fn hunt_does_not_refute_past_undefined_behaviour() {
    for extra in [&[][..], &["--no-refute"]] {
        let mut args = vec![
            "hunt",
            "fixtures/verify/type_a_null_deref.c",
            "--assertions",
            "--jobs",
            "1",
        ];
        args.extend_from_slice(extra);
        let run = agx(&args);
        assert!(
            run.stdout.contains("UNKNOWN")
                && !run.stdout.contains("REFUTED")
                && run.stdout.contains(
                    "undefined-behaviour: null pointer dereference at fixtures/verify/type_a_null_deref.c:18"
                )
                && run.code == Some(3),
            "{extra:?}: {} {}",
            run.ending(),
            run.stdout
        );
    }
    // Type B: the dereference itself is reachable (k == 5), so a goal on it is confirmed.
    let run = agx(&[
        "hunt",
        "fixtures/verify/type_b_null_deref.c",
        "--target",
        "type_b_null_deref.c:18",
    ]);
    assert!(
        run.stdout.contains("CONFIRMED") && !run.stdout.contains("REFUTED"),
        "{} {}",
        run.ending(),
        run.stdout
    );
}

#[test]
fn safe_without_spurious_wakeups_says_so() {
    let file = "fixtures/verify/condvar_spurious_wakeup.c";
    let run = agx(&["verify", file, "--no-spurious-wakeups"]);
    assert!(
        run.stdout.starts_with("SAFE") && run.stdout.contains("without spurious wake-ups"),
        "{}",
        run.stdout
    );
    let run = agx(&["verify", file]);
    assert!(run.stdout.starts_with("VIOLATION"), "{}", run.stdout);
}

#[test]
fn the_memory_budget_ends_in_unknown_naming_it() {
    let file = "fixtures/verify/memory_budget.c";
    for strategy in ["baseline", "dpor", "dpor+ag"] {
        let run = agx(&[
            "verify",
            file,
            "--strategy",
            strategy,
            "--max-memory",
            "512",
        ]);
        assert!(
            run.stdout
                .starts_with("UNKNOWN: memory: the live heap blocks would exceed 512 MiB"),
            "{strategy}: {}",
            run.stdout
        );
    }
    let run = agx(&["run", file, "--max-memory", "512"]);
    assert!(
        run.stderr.contains("bound of 512 MiB of heap memory"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_long_step_honours_the_deadline() {
    // 5,000 assignments to a local in one step. Its weakest precondition used to take
    // two minutes (with --timeout 2) before the search could look at its deadline.
    let dir = std::env::temp_dir().join(format!("agx-soundness-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("sum.c");
    let body = "y = y + 1; ".repeat(5000);
    std::fs::write(
        &file,
        format!("int x; int main(void) {{ int y = 0; {body}x = y; return 0; }}\n"),
    )
    .expect("writes the program");
    let started = std::time::Instant::now();
    let run = agx(&[
        "verify",
        file.to_str().expect("utf-8 path"),
        "--timeout",
        "2",
    ]);
    let secs = started.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        matches!(run.code, Some(0) | Some(3)),
        "{}: {}",
        run.ending(),
        run.stderr
    );
    assert!(secs < 20.0, "took {secs:.1} s");
}

#[test]
fn the_front_end_and_the_pre_pass_count_against_the_deadline() {
    // Preprocessing, lowering and the rules run behind the dpor+ag slice take more than a
    // millisecond: the search gets nothing, and the answer names the time spent before it.
    let run = agx(&[
        "verify",
        "fixtures/verify/type_b_null_deref.c",
        "--timeout",
        "0.001",
    ]);
    assert!(
        run.code == Some(3)
            && run.stdout.starts_with("UNKNOWN: timeout: the time budget of 0.001 s ran out in the front end and the slice pre-pass (stopped waiting for it after "),
        "{}: {}",
        run.ending(),
        run.stdout
    );
}

/// A program of about `functions` × 6 lines: functions reading and writing a shared
/// global, called in a chain from a thread, and one assertion in main.
fn big_program(functions: usize) -> String {
    let mut c = String::from("#include <assert.h>\n#include <pthread.h>\nint g;\n");
    for i in 0..functions {
        let call = if i == 0 {
            "0".to_string()
        } else {
            format!("f{}(s & 7)", i - 1)
        };
        c += &format!(
            "int f{i}(int a) {{\n  int s = a + g;\n  if (s > {i}) s = s - {call};\n  else s = s + {i};\n  g = s;\n  return s; }}\n"
        );
    }
    c += &format!(
        "void *t(void *a) {{ f{}(1); return 0; }}\n\
         int main(void) {{ pthread_t th; pthread_create(&th, 0, t, 0); assert(g != 3); pthread_join(th, 0); return 0; }}\n",
        functions - 1
    );
    c
}

#[test]
fn an_overlong_pre_pass_is_abandoned_at_the_deadline() {
    // 36,000 lines: the front end and the rule sets behind the dpor+ag slice (verify) and
    // the goals and the abstraction (hunt) take many seconds in a debug build. They run on
    // a worker that the command stops waiting for at its deadline.
    let dir = std::env::temp_dir().join(format!("agx-deadline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("big.c");
    std::fs::write(&file, big_program(6000)).expect("writes the program");
    let file = file.to_str().expect("utf-8 path");
    let runs = [
        (
            agx(&["verify", file, "--timeout", "0.5"]),
            "UNKNOWN: timeout: the time budget of 0.500 s ran out in the front end and the slice pre-pass (stopped waiting for it after ",
        ),
        (
            agx(&["hunt", file, "--assertions", "--timeout", "0.5"]),
            "goals of ",
        ),
    ];
    let _ = std::fs::remove_dir_all(&dir);
    for (run, start) in runs {
        assert!(
            run.code == Some(3) && run.stdout.starts_with(start),
            "{}: {}{}",
            run.ending(),
            run.stdout,
            run.stderr
        );
        assert!(
            run.stdout
                .contains("timeout: the time budget of 0.500 s ran out in the front end"),
            "{}",
            run.stdout
        );
    }
}
