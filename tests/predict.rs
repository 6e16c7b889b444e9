//! PCT runs, observed traces and the predictive analysis (issue 12), end to end through
//! the CLI on `fixtures/`.

mod common;

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs agx in the repository root: (exit code, stdout, stderr).
fn agx(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_agx"))
        .current_dir(root())
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A fresh file name under target/ (tests run in parallel threads).
fn temp(name: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = root().join("target").join("predict-tests");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{}-{n}-{name}", std::process::id()))
}

/// The witnesses printed by `agx run --schedule pct`.
fn printed_witnesses(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter_map(|l| l.trim().strip_prefix("witness: "))
        .collect()
}

fn replays_to_violation(file: &str, witness_json: &str) -> bool {
    let parsed: serde_json::Value = serde_json::from_str(witness_json).expect("witness JSON");
    common::agx_schema::assert_witness(&parsed, "predicted witness");
    let path = temp("w.json");
    std::fs::write(&path, witness_json).unwrap();
    let (code, _, stderr) = agx(&["run", file, "--witness", path.to_str().unwrap()]);
    code == 1 && stderr.contains("VIOLATION")
}

#[test]
fn pct_runs_find_the_lost_update_and_print_witnesses_that_replay() {
    let file = "fixtures/verify/race_counter.c";
    let (code, stdout, stderr) = agx(&[
        "run",
        file,
        "--schedule",
        "pct",
        "--depth",
        "2",
        "--runs",
        "40",
        "--seed",
        "1",
    ]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let summary = stdout.lines().last().unwrap();
    assert!(summary.starts_with("pct: "), "{stdout}");
    assert!(
        summary.contains("of 40 runs violated (depth 2"),
        "{summary}"
    );
    let witnesses = printed_witnesses(&stdout);
    assert!(!witnesses.is_empty(), "{stdout}");
    for w in witnesses {
        assert!(replays_to_violation(file, w), "{w}");
    }
}

#[test]
fn pct_with_depth_1_never_preempts_so_the_lost_update_never_shows() {
    // Depth 1 has no change point: each thread runs to its end or its block, so the two
    // increments never interleave.
    let (code, stdout, _) = agx(&[
        "run",
        "fixtures/verify/race_counter.c",
        "--schedule",
        "pct",
        "--depth",
        "1",
        "--runs",
        "30",
    ]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("pct: 0 of 30 runs violated"), "{stdout}");
}

#[test]
fn pct_options_are_checked() {
    let file = "fixtures/verify/race_counter.c";
    let (code, _, _) = agx(&["run", file, "--schedule", "pct", "--depth", "0"]);
    assert_eq!(code, 2);
    let (code, _, stderr) = agx(&["run", file, "--runs", "3"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--runs needs --schedule pct"), "{stderr}");
}

/// The observed order of the paper's run: thread 1 to its end, then thread 2.
const S7_OBSERVED: &str = "0,0,1,1,1,1,1,1,1,1,1,2,2,2,2,2";

fn save_trace(file: &str, schedule: &str) -> PathBuf {
    let path = temp("trace.json");
    let (code, out, err) = agx(&[
        "run",
        file,
        "--schedule",
        schedule,
        "--save-trace",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    path
}

#[test]
fn saved_traces_follow_the_versioned_schema() {
    let path = save_trace("fixtures/predict/s7_fusion.c", S7_OBSERVED);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(json["format"], "agx-trace");
    assert_eq!(json["version"], 1);
    assert_eq!(json["witness"]["format"], "agx-witness");
    let threads = json["threads"].as_array().unwrap();
    assert_eq!(threads.len(), 3);
    assert_eq!(threads[1]["function"], "thread1");
    let kinds = |t: usize| -> Vec<String> {
        threads[t]["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let op = e["op"]
                    .as_str()
                    .map(|o| format!(":{o}"))
                    .unwrap_or_default();
                format!("{}{op}", e["kind"].as_str().unwrap())
            })
            .collect()
    };
    // Thread 1 as in the paper's Fig. 2: t1 .. t8, then its end.
    assert_eq!(
        kinds(1),
        [
            "read",
            "sync:lock",
            "write",
            "sync:unlock",
            "write",
            "sync:lock",
            "write",
            "sync:unlock",
            "thread_end"
        ]
    );
    // Thread 2 took both branches into the assertion.
    assert_eq!(
        kinds(2),
        [
            "sync:lock",
            "read",
            "branch",
            "read",
            "branch",
            "sync:unlock",
            "thread_end"
        ]
    );
    let write = &threads[1]["events"][2];
    assert_eq!(write["address"], "`x`");
    assert_eq!(write["value"]["int"], 2);
    assert!(write["at"]
        .as_str()
        .unwrap()
        .ends_with("fixtures/predict/s7_fusion.c:21"));
    assert_eq!(
        threads[0]["events"][0]["thread"], 1,
        "the create names its thread"
    );
}

fn predict(file: &str, trace: &std::path::Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["predict", file, "--trace", trace.to_str().unwrap()];
    args.extend_from_slice(extra);
    agx(&args)
}

#[test]
fn s7_is_not_violated_with_context_bound_1_and_is_with_2() {
    for file in [
        "fixtures/predict/s7_fusion.c",
        "fixtures/predict/s7_fusion_variant.c",
    ] {
        let trace = save_trace(file, S7_OBSERVED);
        let (code, out, err) = predict(file, &trace, &["--context-bound", "1"]);
        assert_eq!(code, 3, "bounded: {file}: {out}{err}");
        assert!(
            out.starts_with("NO VIOLATION within context bound 1"),
            "{out}"
        );
        let (code, out, err) = predict(file, &trace, &["--context-bound", "2"]);
        assert_eq!(code, 1, "{file}: {out}{err}");
        assert!(
            out.starts_with("PREDICTED: assertion `y == 1` failed"),
            "{out}"
        );
        assert!(out.contains(".c:34"), "{out}");
        let witness = printed_witnesses(&out)[0].to_string();
        assert!(replays_to_violation(file, &witness), "{witness}");
        // Growing the bound finds it at 2 as well.
        let (code, out, _) = predict(file, &trace, &[]);
        assert_eq!(code, 1);
        assert!(out.contains("at most 2 context switch"), "{out}");
    }
}

#[test]
fn a_lock_protected_counter_has_no_violation_under_any_bound() {
    let file = "fixtures/verify/lock_counter.c";
    let trace = save_trace(file, "round-robin");
    let (code, out, err) = predict(file, &trace, &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.starts_with("NO VIOLATION in any interleaving of the trace (every context bound)"),
        "{out}"
    );
}

#[test]
fn a_lost_update_is_predicted_from_a_passing_round_robin_run() {
    let file = "fixtures/verify/race_counter.c";
    let trace = save_trace(file, "round-robin");
    let (code, out, err) = predict(file, &trace, &[]);
    assert_eq!(code, 1, "{out}{err}");
    let witness = printed_witnesses(&out)[0].to_string();
    assert!(replays_to_violation(file, &witness), "{witness}");
}

#[test]
fn a_trace_of_another_program_is_an_error() {
    let trace = save_trace("fixtures/verify/race_counter.c", "round-robin");
    let (code, out, err) = predict("fixtures/verify/lock_counter.c", &trace, &[]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("error: predicting from"), "{err}");
    let bad = temp("bad.json");
    std::fs::write(&bad, "{\"format\": \"agx-witness\"}").unwrap();
    let (code, _, err) = predict("fixtures/verify/lock_counter.c", &bad, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("not an agx trace"), "{err}");
}

#[test]
fn reorder_with_10_and_20_threads_is_predicted_from_a_passing_round_robin_run() {
    for file in [
        "fixtures/predict/reorder_10.c",
        "fixtures/predict/reorder_20.c",
    ] {
        let trace = save_trace(file, "round-robin");
        let (code, out, err) = predict(file, &trace, &[]);
        assert_eq!(code, 1, "{file}: {out}{err}");
        assert!(out.contains("at most 2 context switch"), "{out}");
        let witness = printed_witnesses(&out)[0].to_string();
        assert!(replays_to_violation(file, &witness), "{witness}");
    }
}

#[test]
fn twostage_with_100_threads_is_predicted_from_a_passing_round_robin_run() {
    // One reader and 99 writers: the bug needs the reader between one writer's two
    // stages. The unsat cores release the writers a few at a time, so the formula never
    // holds the interleavings of all hundred threads.
    let file = "fixtures/predict/twostage_100.c";
    let trace = save_trace(file, "round-robin");
    let (code, out, err) = predict(file, &trace, &[]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("twostage_100.c:33"), "{out}");
    assert!(out.contains("at most 2 context switch"), "{out}");
    let witness = printed_witnesses(&out)[0].to_string();
    assert!(replays_to_violation(file, &witness), "{witness}");
}
