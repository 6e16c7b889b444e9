//! The wrong verdicts of issue 10 (cases 1, 2, 3, 6, 7), beyond what tests/verify.rs
//! checks on their fixtures (verdict, kind, line and witness replay under every
//! strategy, with `--repair add` and `--no-slice`): `agx hunt --assertions` confirms the
//! violations, the undefined behaviour of case 6 is the reason of UNKNOWN under every
//! strategy, and a SAFE verdict without spurious wake-ups says so.

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
