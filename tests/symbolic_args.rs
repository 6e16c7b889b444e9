//! `agx verify --symbolic-args N:LEN` (issue 18) against an independent oracle: `agx
//! verify FILE -- ARGS` with every concrete argument list within a small bound. A
//! symbolic VIOLATION must come with a witness whose `args` are within the bound and
//! fail concretely; a symbolic search without a violation must end UNKNOWN naming the
//! args bound, and then no concrete list within the bound may fail.

mod common;

use common::{agx_bin, project_root};
use serde_json::Value;
use std::process::Command;

fn verify(file: &str, extra: &[&str]) -> Value {
    let out = Command::new(agx_bin())
        .current_dir(project_root())
        .args(["verify", file, "--format", "json", "--no-store"])
        .args(extra)
        .output()
        .expect("agx runs");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{file} {extra:?}: no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// Every list of at most one argument of at most one printable byte, plus the empty
/// string: the concrete oracle of `--symbolic-args 1:1` (control bytes left out only to
/// keep the run short; the symbolic search covers them).
fn one_byte_lists() -> Vec<Vec<String>> {
    let mut all = vec![vec![], vec![String::new()]];
    all.extend((0x20u8..0x7f).map(|b| vec![char::from(b).to_string()]));
    all
}

fn concrete_violation(file: &str, args: &[String]) -> bool {
    let mut extra: Vec<&str> = vec!["--"];
    extra.extend(args.iter().map(String::as_str));
    verify(file, &extra)["verdict"] == "violation"
}

fn check(file: &str, bound: &str, max_count: usize, max_len: usize) -> Value {
    let out = verify(file, &["--symbolic-args", bound]);
    match out["verdict"].as_str() {
        Some("violation") => {
            let args: Vec<String> = out["witness"]["args"]
                .as_array()
                .map(|a| a.iter().map(|s| s.as_str().unwrap().to_string()).collect())
                .unwrap_or_default();
            assert!(args.len() <= max_count, "{file} {bound}: {args:?}");
            assert!(
                args.iter().all(|a| a.len() <= max_len),
                "{file} {bound}: {args:?}"
            );
            assert!(
                concrete_violation(file, &args),
                "{file} {bound}: {args:?} does not fail"
            );
        }
        Some("unknown") => {
            let reason = out["reason"].as_str().unwrap_or_default();
            assert!(reason.starts_with("args bound"), "{file} {bound}: {reason}");
        }
        other => panic!("{file} {bound}: verdict {other:?} (never safe under symbolic args)"),
    }
    out
}

#[test]
fn dash_x_is_found_with_two_bytes_and_replays() {
    for file in [
        "fixtures/verify/argv_symbolic.c",
        "fixtures/verify/argv_symbolic_getopt.c",
    ] {
        let out = check(file, "1:2", 1, 2);
        assert_eq!(out["verdict"], "violation", "{file}");
        assert_eq!(out["witness"]["args"][0], "-x", "{file}");
    }
}

#[test]
fn one_byte_bound_agrees_with_every_concrete_list() {
    for file in [
        "fixtures/verify/argv_symbolic.c",
        "fixtures/verify/argv_symbolic_getopt.c",
        "fixtures/verify/argv_symbolic_char.c",
    ] {
        let symbolic = check(file, "1:1", 1, 1);
        let concrete = one_byte_lists()
            .into_iter()
            .find(|args| concrete_violation(file, args));
        assert_eq!(
            symbolic["verdict"] == "violation",
            concrete.is_some(),
            "{file}: symbolic {} but concrete {concrete:?}",
            symbolic["verdict"]
        );
    }
}

#[test]
fn concrete_and_symbolic_arguments_exclude_each_other() {
    let out = Command::new(agx_bin())
        .current_dir(project_root())
        .args([
            "verify",
            "fixtures/verify/argv_symbolic.c",
            "--symbolic-args",
            "1:2",
            "--",
            "-x",
        ])
        .output()
        .expect("agx runs");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--symbolic-args"), "{err}");
}

#[test]
fn a_main_without_parameters_stays_safe_under_symbolic_args() {
    let out = verify(
        "fixtures/verify/lock_counter.c",
        &["--symbolic-args", "2:3"],
    );
    assert_eq!(out["verdict"], "safe", "{out}");
}
