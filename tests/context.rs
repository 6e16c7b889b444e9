//! Program contexts (`agx verify --entry`, seed paper 003): bad input, the labels of the
//! verdicts, and a witness that carries its initial state and replays with `agx run`.
//! The fixtures' verdicts under every strategy are checked by `tests/verify.rs`
//! (fixtures/context/).

mod common;

use common::{agx_bin, process, project_root};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);

fn agx(args: &[&str]) -> process::Finished {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    process::run(&agx_bin(), &args, &project_root(), LIMIT)
}

#[test]
fn an_unknown_entry_function_is_an_error_naming_it_and_the_file() {
    let run = agx(&[
        "verify",
        "fixtures/context/lost_update.c",
        "--entry",
        "nope",
    ]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("--entry nope") && run.stderr.contains("lost_update.c"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}

#[test]
fn zero_copies_is_an_error() {
    let run = agx(&[
        "verify",
        "fixtures/context/lost_update.c",
        "--entry",
        "inc",
        "--copies",
        "0",
    ]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("--copies"), "{}", run.stderr);
}

#[test]
fn verdicts_from_a_context_say_so() {
    let violation = agx(&[
        "verify",
        "fixtures/context/lost_update.c",
        "--entry",
        "inc",
        "--copies",
        "2",
    ]);
    assert_eq!(violation.code, Some(1), "{}", violation.stderr);
    assert!(
        violation.stdout.contains(
            "feasible from this context: the context of threads at the entry of `inc`, `inc`"
        ),
        "{}",
        violation.stdout
    );
    assert!(
        violation.stdout.contains("thread 1 (`inc`)"),
        "{}",
        violation.stdout
    );
    let safe = agx(&[
        "verify",
        "fixtures/context/locked_nodes.c",
        "--entry",
        "worker",
        "--copies",
        "2",
    ]);
    assert_eq!(safe.code, Some(0), "{}", safe.stderr);
    assert!(
        safe.stdout.contains("for every initial state"),
        "{}",
        safe.stdout
    );
}

#[test]
fn a_context_witness_carries_its_initial_state_and_replays() {
    let dir = project_root().join("target/context-test");
    std::fs::create_dir_all(&dir).expect("dir");
    let witness = dir.join(format!("heap_list-{}.json", std::process::id()));
    let w = witness.display().to_string();
    let found = agx(&[
        "verify",
        "fixtures/context/heap_list.c",
        "--entry",
        "consume",
        "--witness-out",
        &w,
    ]);
    assert_eq!(found.code, Some(1), "{}", found.stderr);
    let text = std::fs::read_to_string(&witness).expect("witness written");
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    common::agx_schema::assert_witness(&json, "heap_list context witness");
    assert_eq!(json["context"]["threads"].as_array().map(Vec::len), Some(1));
    let replayed = agx(&["run", "fixtures/context/heap_list.c", "--witness", &w]);
    assert_eq!(replayed.code, Some(1), "{}", replayed.stderr);
    assert!(
        replayed.stderr.contains("heap_list.c:23"),
        "{}",
        replayed.stderr
    );
    // Without the context, the same inputs and schedule do not reach the violation:
    // the initial state is what makes it feasible.
    let mut plain = json.clone();
    plain.as_object_mut().expect("object").remove("context");
    common::agx_schema::assert_witness(&plain, "heap_list witness without its context");
    std::fs::write(&witness, plain.to_string()).expect("write");
    let from_main = agx(&["run", "fixtures/context/heap_list.c", "--witness", &w]);
    assert_ne!(from_main.code, Some(1), "{}", from_main.stderr);
    let _ = std::fs::remove_file(&witness);
}

#[test]
fn a_violation_from_a_context_is_hunted_from_main() {
    // lost_update: main runs its two threads one after the other, so hunt's search from
    // main finishes without the violation the context of two `inc` threads has.
    let refuted = agx(&[
        "verify",
        "fixtures/context/lost_update.c",
        "--entry",
        "inc",
        "--copies",
        "2",
    ]);
    assert_eq!(refuted.code, Some(1), "{}", refuted.stderr);
    assert!(
        refuted.stdout.contains("not reachable from main: `agx hunt --target fixtures/context/lost_update.c:16` refutes it"),
        "{}",
        refuted.stdout
    );
    // late_write: main's store after the creation reaches the worker's read.
    let confirmed = agx(&[
        "verify",
        "fixtures/context/late_write.c",
        "--thread-entries",
        "--format",
        "json",
    ]);
    assert_eq!(confirmed.code, Some(1), "{}", confirmed.stderr);
    let json: serde_json::Value = serde_json::from_str(&confirmed.stdout).expect("JSON");
    assert_eq!(json["from_main"][0]["from_main"], "confirmed", "{json}");
    assert_eq!(
        json["from_main"][0]["location"],
        "fixtures/context/late_write.c:15"
    );
    let off = agx(&[
        "verify",
        "fixtures/context/late_write.c",
        "--thread-entries",
        "--no-confirm-from-main",
    ]);
    assert_eq!(off.code, Some(1), "{}", off.stderr);
    assert!(!off.stdout.contains("from main"), "{}", off.stdout);
}

#[test]
fn thread_entries_of_a_program_without_threads_is_an_error() {
    let run = agx(&[
        "verify",
        "fixtures/verify/type_b_branch_guard.c",
        "--thread-entries",
    ]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("--thread-entries") && run.stderr.contains("creates no thread"),
        "{}",
        run.stderr
    );
}
