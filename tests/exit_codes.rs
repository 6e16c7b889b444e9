//! The exit codes of every command (README "Exit codes", `src/cmd/exit.rs`): 0 no
//! violation, 1 violation found, 2 usage or input error, 3 unknown. Each row runs the real
//! binary on a fixture whose answer is known.

mod common;

use common::{agx_bin, project_root};
use std::path::PathBuf;
use std::process::{Command, Stdio};

const SAFE: &str = "fixtures/verify/lock_counter.c";
const RACY: &str = "fixtures/verify/race_counter.c";
/// Safe, but its loop runs past `--unwind 3`.
const LONG_LOOP: &str = "fixtures/verify/unwind_unknown.c";

/// (exit code, stdout, stderr) of `agx args`.
fn agx(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(agx_bin())
        .args(args)
        .current_dir(project_root())
        .stdin(Stdio::null())
        .output()
        .expect("agx runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs every row and reports all mismatches at once.
fn check(rows: &[(&[&str], i32, &str)]) {
    let mut wrong = Vec::new();
    for (args, code, must_print) in rows {
        let (got, out, err) = agx(args);
        if got != Some(*code) || !(out.contains(must_print) || err.contains(must_print)) {
            wrong.push(format!(
                "agx {}: exit {got:?}, expected {code} with `{must_print}`\n{out}{err}",
                args.join(" ")
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A property file in target/ (SV-COMP's text; the corpus's own files stay out of the repo).
fn property(name: &str, text: &str) -> String {
    let path: PathBuf = project_root().join("target").join(name);
    std::fs::write(&path, text).expect("writes the property file");
    path.to_str().expect("utf-8 path").to_string()
}

#[test]
fn verify_exits_by_verdict() {
    check(&[
        (&["verify", SAFE], 0, "SAFE:"),
        (&["verify", RACY], 1, "VIOLATION:"),
        (
            &["verify", LONG_LOOP, "--unwind", "3"],
            3,
            "UNKNOWN: unwind",
        ),
        (&["verify", "no/such/file.c"], 2, "no such file"),
        (&["verify", RACY, "--strategy", "nope"], 2, "--strategy"),
        (
            &["verify", "fixtures/errors/inline_asm.c"],
            2,
            "inline_asm.c:",
        ),
    ]);
}

#[test]
fn hunt_exits_by_its_goals_a_confirmation_first() {
    check(&[
        (&["hunt", RACY, "--assertions"], 1, "CONFIRMED"),
        (&["hunt", SAFE, "--assertions"], 0, "REFUTED"),
        (
            &["hunt", LONG_LOOP, "--assertions", "--unwind", "3"],
            3,
            "UNKNOWN",
        ),
        (&["hunt", SAFE], 2, "no goals"),
    ]);
}

#[test]
fn run_exits_by_the_outcome_of_its_one_run() {
    check(&[
        (&["run", SAFE], 0, "steps:"),
        // --trace shows each step's thread start function and source line.
        (
            &["run", SAFE, "--trace"],
            0,
            "thread 1 (inc)      fixtures/verify/lock_counter.c:12 r3 = lock &m\n            | pthread_mutex_lock(&m);",
        ),
        (
            &["run", "fixtures/lang/assert_fail.c", "--input", "3"],
            1,
            "VIOLATION",
        ),
        (&["run", SAFE, "--max-steps", "3"], 3, "steps: 3"),
        (&["run", RACY, "--schedule", "0,2"], 2, "schedule"),
    ]);
}

#[test]
fn svcomp_exits_by_its_result_line() {
    let unreach = property(
        "exit-codes-unreach-call.prp",
        "CHECK( init(main()), LTL(G ! call(reach_error())) )\n",
    );
    let other = property(
        "exit-codes-valid-free.prp",
        "CHECK( init(main()), LTL(G valid-free) )\n",
    );
    check(&[
        (&["svcomp", "--property", &unreach, SAFE], 0, "Result: TRUE"),
        (
            &["svcomp", "--property", &unreach, RACY],
            1,
            "Result: FALSE(unreach-call)",
        ),
        (
            &["svcomp", "--property", &other, RACY],
            3,
            "Result: UNKNOWN",
        ),
        (
            &["svcomp", "--property", "no/such.prp", RACY],
            2,
            "no/such.prp",
        ),
    ]);
}

#[test]
fn warnings_exit_1_with_findings_as_linters_do() {
    check(&[
        (&["warnings", RACY, "--format", "text"], 1, "race"),
        (
            &["warnings", SAFE, "--no-assertions", "--format", "text"],
            0,
            "no warnings",
        ),
    ]);
}

#[test]
fn commands_that_judge_nothing_exit_0_or_2() {
    check(&[
        (&["ir", RACY], 0, "counter"),
        (&["slice", RACY, "--assertions"], 0, "backward slice"),
        (&["slice", RACY, "--target", "race_counter.c:1"], 2, ":1"),
        (&["no-such-command"], 2, "unrecognized subcommand"),
        (&["impact", RACY, "--changed", "1"], 0, ""),
        (&["impact", RACY], 2, "--changed"),
        (&["rules", "list"], 0, "must-reach"),
        (&["rules", "print", "race", RACY], 0, "race"),
        (&["rules", "print", "no_such", RACY], 2, "no_such"),
        (&["completions", "bash"], 0, "agx"),
        (&["man"], 0, ".TH"),
        (&["predict", RACY], 2, "--trace"),
    ]);
}

/// `agx facts` writes files and judges nothing: 0, or 2 for an unreadable program.
#[test]
fn facts_exits_0_or_2() {
    let dir = project_root().join(format!("target/exit-codes-facts-{}", std::process::id()));
    let out = dir.to_str().unwrap();
    check(&[
        (&["facts", RACY, "-o", out], 0, ""),
        (&["facts", "no/such/file.c", "-o", out], 2, "no such file"),
    ]);
    assert!(dir.join("schema.dl").is_file(), "facts wrote schema.dl");
    let _ = std::fs::remove_dir_all(&dir);
}
