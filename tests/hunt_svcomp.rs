//! Hunt confirms what verify solves, on a few cheap expected-false SV-COMP tasks: `agx
//! verify` must find the violation, then `agx hunt --assertions` must confirm it with a
//! witness that `agx run --witness` replays to the violation. When ../shared/svcomp
//! is absent the skip shows on stderr in every run (a failure under AGX_REQUIRE_CORPUS=1).
//!
//! No timing is asserted: the process limits below only stop a hung run, and hunt's own
//! budget is far above what these tasks need (well under a second each in a release
//! build). The measurement over every expected-false task — verdicts, times, states and
//! their ratios — is `agx bench --hunt ../shared/svcomp` (see docs/BENCH.md).

mod common;
mod corpus_gate;

use common::{agx_bin, process, project_root};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Expected-false tasks that verify and hunt each decide in well under a second (release).
const TASKS: &[&str] = &[
    "pthread/sigma",
    "pthread/lazy01",
    "pthread/stateful01-1",
    "pthread/bigshot_p",
    "pthread-nondet/nondet-array-1",
];

/// Only stops a run that hangs; not a performance bound.
const HANG_GUARD: Duration = Duration::from_secs(900);

/// The source of a task: the `.c` with the task's stem, else the `.i`.
fn source(corpus: &Path, task: &str) -> Option<PathBuf> {
    ["c", "i"]
        .iter()
        .map(|ext| corpus.join(format!("{task}.{ext}")))
        .find(|p| p.exists())
}

fn agx(args: &[&str]) -> (Option<i32>, String, String) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let run = process::run(&agx_bin(), &args, &project_root(), HANG_GUARD);
    (run.code, run.stdout, run.stderr)
}

fn check(corpus: &Path, task: &str) -> Result<(), String> {
    let file = source(corpus, task).ok_or_else(|| format!("{task}: source not found"))?;
    let file = file.display().to_string();
    let (code, out, err) = agx(&["verify", &file, "--format", "json", "--timeout", "600"]);
    let verdict: Value = serde_json::from_str(&out).map_err(|e| format!("{task}: {e}: {err}"))?;
    if code != Some(1) || verdict["verdict"] != "violation" {
        return Err(format!(
            "{task}: agx verify does not find the violation ({code:?}, {})",
            verdict["verdict"]
        ));
    }
    let (code, out, err) = agx(&[
        "hunt",
        &file,
        "--assertions",
        "--no-refute",
        "--timeout",
        "600",
        "--format",
        "json",
        "--jobs",
        "1",
    ]);
    if code != Some(1) {
        return Err(format!("{task}: agx hunt exited with {code:?}: {err}"));
    }
    let goals: Value = serde_json::from_str(&out).map_err(|e| format!("{task}: {e}"))?;
    let confirmed = goals
        .as_array()
        .into_iter()
        .flatten()
        .find(|g| g["verdict"] == "confirmed")
        .ok_or_else(|| format!("{task}: verify finds the violation, hunt confirms no goal"))?;
    let witness = std::env::temp_dir().join(format!(
        "agx-hunt-svcomp-{}-{}.json",
        task.replace('/', "_"),
        std::process::id()
    ));
    let schema_errors =
        common::agx_schema::errors("agx-witness.schema.json", &confirmed["witness"]);
    if !schema_errors.is_empty() {
        return Err(format!(
            "{task}: the witness fails its schema: {schema_errors:#?}"
        ));
    }
    std::fs::write(&witness, confirmed["witness"].to_string()).map_err(|e| e.to_string())?;
    let witness_arg = witness.display().to_string();
    let (code, _, err) = agx(&["run", &file, "--witness", &witness_arg]);
    let _ = std::fs::remove_file(&witness);
    if code != Some(1) || !err.contains("VIOLATION") {
        return Err(format!(
            "{task}: the witness does not replay to a violation: {err}"
        ));
    }
    Ok(())
}

#[test]
fn hunt_confirms_what_verify_solves() {
    let Some(corpus) = corpus_gate::corpus_or_skip("hunt_confirms_what_verify_solves") else {
        return;
    };
    let failures: Vec<String> = TASKS
        .iter()
        .filter_map(|task| check(&corpus, task).err())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
