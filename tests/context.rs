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
    assert!(
        json["context"]
            .as_str()
            .is_some_and(|c| c.contains("context")),
        "the JSON names the context: {json}"
    );
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

#[test]
fn a_bad_start_line_is_an_error_naming_it() {
    for (from, says) in [
        ("locked_nodes.c:3", "locked_nodes.c:3: no statement"),
        (
            "locked_nodes.c:36",
            "locked_nodes.c:36: no statement of `worker`",
        ),
        ("nope.c:25", "`nope.c` is not a file of the program"),
    ] {
        let run = agx(&[
            "verify",
            "fixtures/context/locked_nodes.c",
            "--entry",
            "worker",
            "--from",
            from,
        ]);
        assert_eq!(run.code, Some(2), "{from}: {}", run.stderr);
        assert!(run.stderr.contains(says), "{from}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    }
}

/// The witness `agx verify ARGS` writes for its violation.
fn violation_witness(args: &[&str], name: &str) -> serde_json::Value {
    let dir = project_root().join("target/context-test");
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join(format!("{name}-{}.json", std::process::id()));
    let w = path.display().to_string();
    let mut all = args.to_vec();
    all.extend(["--no-confirm-from-main", "--witness-out", &w]);
    let found = agx(&all);
    assert_eq!(found.code, Some(1), "{}", found.stdout);
    let text = std::fs::read_to_string(&path).expect("witness written");
    let _ = std::fs::remove_file(&path);
    serde_json::from_str(&text).expect("JSON")
}

/// Runs the program from the witness's context with these inputs first (random after)
/// and a random schedule: the exit code.
fn run_from_context(witness: &serde_json::Value, inputs: &[u64], seed: u64, name: &str) -> i32 {
    let mut w = witness.clone();
    w["inputs"] = inputs
        .iter()
        .map(|&v| serde_json::json!({"value": v, "type": "u32"}))
        .collect();
    w["schedule"] = serde_json::json!([]);
    let path = project_root().join(format!(
        "target/context-test/{name}-{seed}-{}.json",
        std::process::id()
    ));
    std::fs::write(&path, w.to_string()).expect("write");
    let run = agx(&[
        "run",
        "fixtures/context/handoff.c",
        "--witness",
        &path.display().to_string(),
        "--schedule-fallback",
        "random",
        "--input-fallback",
        "random",
        "--seed",
        &seed.to_string(),
    ]);
    let _ = std::fs::remove_file(&path);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    run.code.expect("exit code")
}

#[test]
fn threads_from_a_line_in_a_critical_section_hold_its_lock() {
    // Without the lockset both workers may start on one node: a violation, whose
    // witness carries the context with no lock held.
    let args = [
        "verify",
        "fixtures/context/handoff.c",
        "--entry",
        "worker",
        "--copies",
        "2",
        "--from",
        "handoff.c:25",
    ];
    let mut unconstrained = args.to_vec();
    unconstrained.push("--no-context-constraints");
    let free = violation_witness(&unconstrained, "handoff");
    assert!(
        free["context"]["starts"][0]["held"] == serde_json::json!([]),
        "{free}"
    );
    // The same context holding the node's lock (the register `lock` reads): what
    // `verify` without `--no-context-constraints` starts from, and calls SAFE.
    let ir = agx(&["ir", "fixtures/context/handoff.c"]);
    let reg: u64 = ir
        .stdout
        .lines()
        .find_map(|l| l.split("= lock r").nth(1))
        .and_then(|rest| rest.split('.').next())
        .and_then(|n| n.parse().ok())
        .expect("a lock of a register in the IR");
    let mut held = free.clone();
    for start in held["context"]["starts"].as_array_mut().expect("starts") {
        start["held"] = serde_json::json!([{ "reg": reg }]);
    }
    let safe = agx(&args);
    assert_eq!(safe.code, Some(0), "{}", safe.stdout);
    // Differential check on the interpreter: every choice of the two node pointers
    // (null, &nodes[0], &nodes[1]) under random schedules and data.
    let mut violations = [0, 0];
    for a in 0..3 {
        for b in 0..3 {
            for seed in 0..3 {
                for (i, w) in [&free, &held].into_iter().enumerate() {
                    if run_from_context(w, &[a, b], seed, "differential") == 1 {
                        violations[i] += 1;
                    }
                }
            }
        }
    }
    assert_eq!(violations[1], 0, "a run from the SAFE context violated");
    assert!(
        violations[0] > 0,
        "no run found the unconstrained violation"
    );
}

#[test]
fn hunt_from_a_context_confirms_and_refutes_there() {
    let dir = project_root().join(format!("target/context-test/hunt-{}", std::process::id()));
    let d = dir.display().to_string();
    let confirmed = agx(&[
        "hunt",
        "fixtures/context/lost_update.c",
        "--entry",
        "inc",
        "--copies",
        "2",
        "--target",
        "lost_update.c:16",
        "--jobs",
        "1",
        "-q",
        "--witness-dir",
        &d,
    ]);
    assert_eq!(confirmed.code, Some(1), "{}", confirmed.stdout);
    assert!(
        confirmed.stdout.contains("CONFIRMED")
            && confirmed
                .stdout
                .contains("from this context: the context of threads at the entry of `inc`, `inc`"),
        "{}",
        confirmed.stdout
    );
    // The witness carries the context and replays to the violation.
    let witness = std::fs::read_dir(&dir)
        .expect("witness dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .expect("a witness");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&witness).expect("read")).expect("JSON");
    assert_eq!(json["context"]["threads"].as_array().map(Vec::len), Some(2));
    let replayed = agx(&[
        "run",
        "fixtures/context/lost_update.c",
        "--witness",
        &witness.display().to_string(),
    ]);
    assert_eq!(replayed.code, Some(1), "{}", replayed.stderr);
    let _ = std::fs::remove_dir_all(&dir);
    // From main the goal is refuted (verify's confirmation says so too); from two
    // workers holding their nodes' locks at line 25 as well.
    let refuted = agx(&[
        "hunt",
        "fixtures/context/handoff.c",
        "--entry",
        "worker",
        "--copies",
        "2",
        "--from",
        "handoff.c:25",
        "--target",
        "handoff.c:27",
        "--jobs",
        "1",
        "-q",
        "--format",
        "json",
    ]);
    assert_eq!(refuted.code, Some(0), "{}", refuted.stdout);
    let json: serde_json::Value = serde_json::from_str(&refuted.stdout).expect("JSON");
    assert_eq!(json[0]["verdict"], "refuted", "{json}");
    assert!(
        json[0]["context"]
            .as_str()
            .is_some_and(|c| c.contains("`worker` from handoff.c:25")),
        "{json}"
    );
}

#[test]
fn hunt_from_a_context_runs_only_the_search_stage() {
    let run = agx(&[
        "hunt",
        "fixtures/context/lost_update.c",
        "--entry",
        "inc",
        "--target",
        "lost_update.c:16",
        "--stages",
        "pct,search",
    ]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("--entry"), "{}", run.stderr);
}

/// The `// agx-verify: safe --entry ...` cases of the context fixtures: (file, options).
fn safe_context_cases() -> Vec<(String, Vec<String>)> {
    let dir = project_root().join("fixtures/context");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures/context")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("fixture");
        for line in text.lines() {
            let Some(rest) = line.trim().strip_prefix("// agx-verify: safe --entry") else {
                continue;
            };
            let mut args = vec!["--entry".to_string()];
            args.extend(rest.split_whitespace().map(str::to_string));
            let name = file.file_name().expect("name").to_string_lossy();
            cases.push((format!("fixtures/context/{name}"), args));
        }
    }
    cases
}

/// `agx run FILE ARGS` with a random schedule and the first inputs below `choices` (so
/// that pointer choices name candidates), random ones after: the exit code, with a deadlock
/// (the interpreter's, not a property `verify` checks by default) as 0.
fn random_run(file: &str, context: &[String], seed: u64, choices: u64) -> Option<i32> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let inputs: Vec<String> = (0..6)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            ((x >> 33) % choices).to_string()
        })
        .collect();
    let mut args = vec!["run".to_string(), file.to_string()];
    args.extend(context.iter().cloned());
    args.extend(
        [
            "--schedule",
            "random",
            "--seed",
            &seed.to_string(),
            "--input",
            &inputs.join(","),
            "--input-fallback",
            "random",
        ]
        .map(str::to_string),
    );
    let run = process::run(&agx_bin(), &args, &project_root(), LIMIT);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    if run.stderr.contains("VIOLATION (deadlock)") {
        return Some(0);
    }
    run.code
}

#[test]
fn random_runs_from_a_context_verify_calls_safe_never_violate() {
    // Differential check on the interpreter: `agx run --entry` builds the same context.
    let cases = safe_context_cases();
    assert!(cases.len() >= 5, "{cases:?}");
    let mut completed = 0;
    for (file, context) in &cases {
        for seed in 0..12 {
            let code = random_run(file, context, seed, 3);
            assert_ne!(code, Some(1), "{file} {context:?} seed {seed} violates");
            completed += u32::from(code == Some(0));
        }
    }
    assert!(completed > 0, "no random run completed");
    // The check can fail: random runs from the context of two `inc` threads (their
    // parameter can only be null: the first two inputs 0) find the lost update verify
    // reports.
    let lost: Vec<String> = ["--entry", "inc", "--copies", "2"]
        .map(str::to_string)
        .to_vec();
    let found =
        (0..24).any(|seed| random_run("fixtures/context/lost_update.c", &lost, seed, 1) == Some(1));
    assert!(found, "no random run found the lost update");
}

#[test]
fn a_thread_that_may_hold_a_lock_at_its_start_line_is_explored_holding_it() {
    // The holder locks `m` on some paths to line 23: holding it, the prober's trylock
    // fails. Without the fork over holding it the goal would be refuted.
    let dir = project_root().join(format!("target/context-test/maybe-{}", std::process::id()));
    let d = dir.display().to_string();
    let hunt = agx(&[
        "hunt",
        "fixtures/context/maybe_held.c",
        "--entry",
        "prober,holder",
        "--from",
        "entry,maybe_held.c:23",
        "--target",
        "maybe_held.c:31",
        "--jobs",
        "1",
        "-q",
        "--witness-dir",
        &d,
    ]);
    assert_eq!(hunt.code, Some(1), "{}", hunt.stdout);
    let witness = dir.join("goal-1.json");
    let text = std::fs::read_to_string(&witness).expect("witness");
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let held = &json["context"]["starts"][1]["maybe_held"];
    assert_eq!(held.as_array().map(Vec::len), Some(1), "{json}");
    let replayed = agx(&[
        "run",
        "fixtures/context/maybe_held.c",
        "--witness",
        &witness.display().to_string(),
    ]);
    assert_eq!(replayed.code, Some(1), "{}", replayed.stderr);
    assert!(
        replayed.stderr.contains("maybe_held.c:31"),
        "{}",
        replayed.stderr
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The witness of `agx verify FILE ARGS` replays on the interpreter to the same line.
fn replays_to(file: &str, witness: &serde_json::Value, line: &str, name: &str) {
    common::agx_schema::assert_witness(witness, name);
    let path = project_root().join(format!(
        "target/context-test/{name}-replay-{}.json",
        std::process::id()
    ));
    std::fs::write(&path, witness.to_string()).expect("write");
    let replayed = agx(&["run", file, "--witness", &path.display().to_string()]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(replayed.code, Some(1), "{}", replayed.stderr);
    assert!(replayed.stderr.contains(line), "{}", replayed.stderr);
}

#[test]
fn threads_at_a_wait_line_start_as_waiters_in_either_order() {
    // Both servers can only be initial waiters (the producer holds `m`); the violation
    // needs `second` at the head of the queue, so its witness queues it first and
    // replays there on the interpreter.
    let file = "fixtures/context/cond_waiter_order.c";
    let w = violation_witness(
        &[
            "verify",
            file,
            "--entry",
            "first,second,producer",
            "--from",
            "cond_waiter_order.c:21,cond_waiter_order.c:31,cond_waiter_order.c:40",
            "--no-spurious-wakeups",
        ],
        "waiter-order",
    );
    let starts = &w["context"]["starts"];
    for i in 0..2 {
        let waiter = &starts[i]["waiter"];
        assert!(waiter.is_object(), "thread {i} offers no waiter: {w}");
        assert!(
            starts[i]["held"].as_array().is_some_and(|h| h.len() == 1),
            "{w}"
        );
        assert_eq!(waiter["held"], serde_json::json!([]), "{w}");
    }
    assert!(starts[2]["waiter"].is_null(), "{w}");
    replays_to(file, &w, "cond_waiter_order.c:33", "waiter-order");
}

#[test]
fn a_waiter_wakes_only_after_the_critical_section_it_waits_out() {
    // cond_waiter_fixed: SAFE from the context (the fixture's verdict); the same context
    // on the interpreter under random schedules and start choices never violates, and
    // without the lockset (no held mutex) the waiter runs early.
    let file = "fixtures/context/cond_waiter_fixed.c";
    let context: Vec<String> = [
        "--entry",
        "consumer,producer",
        "--from",
        "cond_waiter_fixed.c:22,cond_waiter_fixed.c:31",
    ]
    .map(str::to_string)
    .to_vec();
    for seed in 0..16 {
        let code = random_run(file, &context, seed, 2);
        assert_ne!(code, Some(1), "seed {seed} violates");
    }
    let mut free: Vec<&str> = vec!["verify", file];
    free.extend(context.iter().map(String::as_str));
    free.push("--no-context-constraints");
    let w = violation_witness(&free, "waiter-free");
    replays_to(file, &w, "cond_waiter_fixed.c:25", "waiter-free");
}

#[test]
fn paper_figure_1_aliased_nodes_serialize_on_the_lock_t2_holds() {
    // Figure 1 of the paper (the lockset t2 holds at its start is checked beside the
    // code, in src/driver/context_from.rs): SAFE from the context; without the lockset
    // Bar writes the node inside Foo's critical section, on a start where `a` and `b`
    // name one node. Each may be either node only (points-to).
    let file = "fixtures/context/paper_figure1.c";
    let from = [
        "--entry",
        "Foo,Bar",
        "--from",
        "paper_figure1.c:26,paper_figure1.c:36",
    ];
    let mut args = vec!["verify", file];
    args.extend(from);
    let safe = agx(&args);
    assert_eq!(safe.code, Some(0), "{}", safe.stdout);
    args.push("--no-context-constraints");
    let w = violation_witness(&args, "figure1-free");
    let starts = w["context"]["starts"].as_array().expect("starts").clone();
    for (i, start) in starts.iter().enumerate() {
        let targets: Vec<&serde_json::Value> = start["regs"]
            .as_array()
            .expect("regs")
            .iter()
            .filter_map(|r| r[1].get("pointer"))
            .collect();
        assert_eq!(targets.len(), 1, "thread {i}: one pointer register: {w}");
        assert_eq!(
            targets[0][0]["static"]["offsets"].as_array().map(Vec::len),
            Some(2),
            "thread {i}: either node: {w}"
        );
    }
    replays_to(file, &w, "paper_figure1.c:29", "figure1-free");
}

#[test]
fn threads_started_before_a_barrier_wait_for_each_other() {
    // barrier_phase: count 2 (every init) and no arrivals at the start: SAFE, the
    // fixture's verdict; the interpreter from the same context agrees under random
    // schedules, and without the barrier invariant a thread passes alone.
    let file = "fixtures/context/barrier_phase.c";
    let context: Vec<String> = [
        "--entry",
        "left,right",
        "--from",
        "barrier_phase.c:20,barrier_phase.c:27",
    ]
    .map(str::to_string)
    .to_vec();
    for seed in 0..16 {
        let code = random_run(file, &context, seed, 3);
        assert_ne!(code, Some(1), "seed {seed} violates");
    }
    let mut free: Vec<&str> = vec!["verify", file];
    free.extend(context.iter().map(String::as_str));
    free.push("--no-context-constraints");
    let w = violation_witness(&free, "barrier-free");
    replays_to(file, &w, "VIOLATION (assertion)", "barrier-free");
}

#[test]
fn loop_counters_of_threads_in_barrier_lock_step_start_equal() {
    // barrier_rounds: two workers of a 2-party barrier start at the top of their loop;
    // barrier matching gives both one `i` (SAFE; the matching alone is tested beside
    // the code), without the constraints a worker passes the barrier alone (the
    // fixture's violation case). The interpreter from the matched context agrees
    // under random schedules and inputs.
    let file = "fixtures/context/barrier_rounds.c";
    let context: Vec<String> = [
        "--entry",
        "worker",
        "--copies",
        "2",
        "--from",
        "barrier_rounds.c:21",
        "--no-spurious-wakeups",
    ]
    .map(str::to_string)
    .to_vec();
    let mut args: Vec<&str> = vec!["verify", file, "--strategy", "dpor+ag"];
    args.extend(context.iter().map(String::as_str));
    let safe = agx(&args);
    assert_eq!(safe.code, Some(0), "{}", safe.stdout);
    args.push("--no-context-constraints");
    let w = violation_witness(&args, "rounds-free");
    replays_to(file, &w, "barrier_rounds.c:23", "rounds-free");
    for seed in 0..12 {
        let code = random_run(file, &context, seed, 3);
        assert_ne!(code, Some(1), "seed {seed} violates");
    }
}
