//! PCT runs, observed traces and the predictive analysis (issue 12), end to end through
//! the CLI on `fixtures/`.

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
