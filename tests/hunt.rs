//! End-to-end tests of `agx hunt` on the paper check S6 and on fixtures/hunt: verdicts,
//! refinements, and witnesses replayed independently with `agx run --witness`.
//! Accept a changed text report with `INSTA_UPDATE=always cargo test --test hunt`.

mod common;
mod schemas;

use common::{agx_bin, process, project_root};
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

/// Runs agx; returns (exit code, stdout).
fn agx(args: &[&str]) -> (Option<i32>, String) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let run = process::run(&agx_bin(), &args, &project_root(), Duration::from_secs(300));
    assert!(
        matches!(run.code, Some(0) | Some(1) | Some(3)),
        "agx {args:?} failed ({}): {}",
        run.ending(),
        run.stderr
    );
    (run.code, run.stdout)
}

/// `agx hunt FILE ARGS --format json --jobs 1`, parsed.
fn hunt(file: &str, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["hunt", file, "--format", "json", "--jobs", "1"];
    all.extend_from_slice(args);
    let (_, out) = agx(&all);
    let v: Value = serde_json::from_str(&out).expect("hunt --format json prints JSON");
    v.as_array().expect("an array of goals").clone()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agx-hunt-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Replays a witness with `agx run` for exactly its schedule; returns the run's JSON.
fn replay(file: &str, witness: &Value, name: &str) -> Value {
    common::agx_schema::assert_witness(witness, &format!("{name} witness"));
    let path = temp_dir(name).join("witness.json");
    std::fs::write(&path, witness.to_string()).unwrap();
    let steps = witness["schedule"].as_array().unwrap().len().to_string();
    let path = path.to_str().unwrap().to_string();
    let (_, out) = agx(&[
        "run",
        file,
        "--witness",
        &path,
        "--max-steps",
        &steps,
        "--trace",
        "--format",
        "json",
    ]);
    serde_json::from_str(&out).unwrap()
}

fn line_of(label: &str) -> u32 {
    label.rsplit(':').next().unwrap().parse().unwrap()
}

fn lines(trace: &Value) -> Vec<u32> {
    trace
        .as_array()
        .unwrap()
        .iter()
        .map(|s| line_of(s.as_str().unwrap()))
        .collect()
}

const S6: &str = "fixtures/paper/s6_abstract_system.c";

/// PAPER-CHECKS S6: exactly one refinement; the refined trace passes through B's
/// definition (`e = 11`, line 12) and B's unlock (line 18); the witness has x > 18 and
/// replays to the target.
#[test]
fn s6_one_refinement_through_the_definition_and_the_unlock() {
    let goals = hunt(S6, &["--target", "s6_abstract_system.c:10"]);
    let g = &goals[0];
    assert_eq!(g["verdict"], "confirmed", "{g:#}");
    assert_eq!(g["found_by"], "guided");
    assert_eq!(g["stats"]["refinements"], 1);
    let initial = lines(&g["initial_traces"][0]);
    assert!(
        initial.iter().all(|l| !(12..=20).contains(l)),
        "the initial trace has nothing of thread B: {initial:?}"
    );
    let refined = lines(&g["final_traces"][0]);
    let def = refined
        .iter()
        .position(|&l| l == 12)
        .expect("B's definition");
    let unlock = refined.iter().position(|&l| l == 18).expect("B's unlock");
    let branch = refined.iter().position(|&l| l == 9).expect("A's branch");
    assert!(def < unlock && unlock < branch, "{refined:?}");
    let r = &g["refinements"][0];
    assert_eq!(line_of(r["branch"].as_str().unwrap()), 9);
    assert_eq!(line_of(r["definition"].as_str().unwrap()), 12);
    assert_eq!(lines(&r["releases"]), vec![18]);
    let x = g["witness"]["inputs"][0]["value"].as_i64().unwrap();
    assert!(x > 18, "x = {x}");
    let run = replay(S6, &g["witness"], "s6");
    assert_eq!(run["outcome"]["outcome"], "violation");
    assert_eq!(run["outcome"]["kind"], "reach_error");
    assert_eq!(run["outcome"]["span"]["line"], 10);
}

#[test]
fn real_races_are_confirmed_with_the_accesses_adjacent() {
    let file = "fixtures/hunt/race_counter.c";
    let goals = hunt(file, &["--warnings"]);
    assert!(!goals.is_empty());
    for (i, g) in goals.iter().enumerate() {
        assert_eq!(g["kind"], "race", "{g:#}");
        assert_eq!(g["verdict"], "confirmed", "{g:#}");
        let run = replay(file, &g["witness"], &format!("race{i}"));
        let trace = run["trace"].as_array().unwrap();
        let n = trace.len();
        let (a, b) = (&trace[n - 2], &trace[n - 1]);
        assert_ne!(a["thread"], b["thread"], "two threads");
        let goal_threads = g["goal_threads"].as_array().unwrap();
        for (step, want) in [a, b].iter().zip(goal_threads) {
            assert_eq!(step["thread"], want["thread"]);
            assert_eq!(format!("s{}", step["stmt"]), want["stmt"].as_str().unwrap());
        }
        let accessed: Vec<u64> = [a, b]
            .iter()
            .map(|s| s["span"]["line"].as_u64().unwrap())
            .collect();
        assert!(
            accessed.iter().all(|l| [25, 26].contains(l)),
            "{accessed:?}"
        );
        assert!(accessed.contains(&26), "a write is one of them");
    }
}

#[test]
fn static_false_races_are_refuted_by_exhausting_every_schedule() {
    let goals = hunt("fixtures/hunt/race_refuted.c", &["--warnings"]);
    assert!(
        goals.len() >= 2,
        "the lock wrapper and the loop join are both warned"
    );
    for g in &goals {
        assert_eq!(g["kind"], "race");
        assert_eq!(g["verdict"], "refuted", "{g:#}");
        assert_eq!(g["found_by"], "guided");
        assert!(g["reason"]
            .as_str()
            .unwrap()
            .contains("explored every schedule"));
    }
}

#[test]
fn the_deadlock_is_confirmed_with_the_blocked_threads() {
    let file = "fixtures/hunt/deadlock.c";
    let goals = hunt(file, &["--warnings"]);
    let g = goals
        .iter()
        .find(|g| g["kind"] == "deadlock")
        .expect("the inversion is warned");
    assert_eq!(g["verdict"], "confirmed", "{g:#}");
    let blocked: Vec<(u64, u64)> = g["blocked"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["thread"].as_u64().unwrap(),
                b["span"]["line"].as_u64().unwrap(),
            )
        })
        .collect();
    for line in [22, 33] {
        assert!(blocked.iter().any(|b| b.1 == line), "{blocked:?}");
    }
    let input = g["witness"]["inputs"][0]["value"].as_i64().unwrap();
    assert_eq!(input % 2, 1, "only an odd input takes the inverted order");
    let run = replay(file, &g["witness"], "deadlock");
    assert_eq!(run["outcome"]["kind"], "deadlock");
}

#[test]
fn a_statically_unreachable_target_is_refuted_without_search() {
    let goals = hunt(
        "fixtures/hunt/unreachable.c",
        &["--target", "unreachable.c:12"],
    );
    let g = &goals[0];
    assert_eq!(g["verdict"], "refuted");
    assert_eq!(g["found_by"], "static");
    assert_eq!(g["stats"]["states"], 0);
    assert_eq!(g["stats"]["trace_sets_tried"], 0);
    assert!(
        g["reason"].as_str().unwrap().contains("never_called"),
        "{g:#}"
    );
}

#[test]
fn several_targets_make_one_goal_of_threads_standing_together() {
    // Two threads at the unlocked write of `hits` at the same time.
    let goals = hunt(
        "fixtures/hunt/race_counter.c",
        &[
            "--target",
            "race_counter.c:26",
            "--target",
            "race_counter.c:26",
        ],
    );
    assert_eq!(goals.len(), 1);
    let g = &goals[0];
    assert_eq!(g["kind"], "together");
    assert_eq!(g["verdict"], "confirmed", "{g:#}");
    let threads: Vec<u64> = g["goal_threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["thread"].as_u64().unwrap())
        .collect();
    assert_eq!(threads.len(), 2);
    assert_ne!(threads[0], threads[1]);
}

#[test]
fn warnings_as_sarif_feed_hunt_and_come_back_with_verdicts() {
    let dir = temp_dir("sarif");
    let file = "fixtures/hunt/race_counter.c";
    let (_, warnings) = agx(&["warnings", file]);
    schemas::check_sarif(&serde_json::from_str(&warnings).expect("warnings' SARIF is JSON"));
    let path = dir.join("warnings.sarif");
    std::fs::write(&path, &warnings).unwrap();
    let (code, out) = agx(&[
        "hunt",
        file,
        "--sarif",
        path.to_str().unwrap(),
        "--format",
        "sarif",
        "--jobs",
        "2",
    ]);
    assert_eq!(code, Some(1), "a confirmed goal exits with 1");
    let log: Value = serde_json::from_str(&out).unwrap();
    schemas::check_sarif(&log);
    assert_eq!(log["version"], "2.1.0");
    assert_eq!(log["runs"][0]["automationDetails"]["id"], "agx/hunt/");
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert!(!results.is_empty());
    for r in results {
        assert_eq!(r["properties"]["kind"], "race");
        assert_eq!(r["properties"]["verdict"], "confirmed", "{r:#}");
        assert_eq!(r["level"], "error");
        let flows = r["codeFlows"][0]["threadFlows"].as_array().unwrap();
        assert!(flows.len() >= 3, "main and the two workers");
        let mut orders: Vec<u64> = flows
            .iter()
            .flat_map(|f| f["locations"].as_array().unwrap().iter())
            .map(|l| l["executionOrder"].as_u64().unwrap())
            .collect();
        orders.sort_unstable();
        let expected: Vec<u64> = (1..=orders.len() as u64).collect();
        assert_eq!(orders, expected, "one global order over the thread flows");
        assert!(r["properties"]["witness"]["schedule"].is_array());
    }
}

/// A refuted warning is a check that passed (`kind: pass`, level `none`), not an alert.
#[test]
fn refuted_goals_are_passes_in_sarif() {
    let (code, out) = agx(&[
        "hunt",
        "fixtures/hunt/race_refuted.c",
        "--warnings",
        "--format",
        "sarif",
        "--jobs",
        "1",
    ]);
    let log: Value = serde_json::from_str(&out).unwrap();
    schemas::check_sarif(&log);
    let results = log["runs"][0]["results"].as_array().unwrap();
    let refuted: Vec<&Value> = results
        .iter()
        .filter(|r| r["properties"]["verdict"] == "refuted")
        .collect();
    assert!(!refuted.is_empty(), "exit {code:?}: {out}");
    for r in refuted {
        assert_eq!(
            (&r["kind"], &r["level"]),
            (&Value::from("pass"), &Value::from("none"))
        );
    }
}

#[test]
fn the_text_report_of_the_deadlock() {
    let (code, out) = agx(&[
        "hunt",
        "fixtures/hunt/deadlock.c",
        "--warnings",
        "--jobs",
        "1",
    ]);
    assert_eq!(code, Some(1));
    // Timings vary: the statistics line is checked for shape, then left out.
    let stats = out
        .lines()
        .find(|l| l.trim_start().starts_with("stats:"))
        .unwrap();
    assert!(stats.contains("0 refinement(s)"), "{stats}");
    let shown: String = out
        .lines()
        .filter(|l| !l.trim_start().starts_with("stats:"))
        .map(|l| format!("{l}\n"))
        .collect();
    insta::assert_snapshot!(shown);
}

#[test]
fn every_assertion_is_decided_unless_the_first_confirmation_ends_the_hunt() {
    let verdicts = |args: &[&str]| -> Vec<(String, String)> {
        hunt("fixtures/hunt/two_assertions.c", args)
            .iter()
            .map(|g| {
                let reason = g["reason"].as_str().unwrap_or("").to_string();
                (g["verdict"].as_str().unwrap().to_string(), reason)
            })
            .collect()
    };
    let all = verdicts(&["--assertions"]);
    assert_eq!(all[0].0, "confirmed");
    assert_eq!(all[1].0, "refuted", "{all:?}");
    let first = verdicts(&["--assertions", "--first"]);
    assert_eq!(first[0].0, "confirmed");
    assert_eq!(first[1].0, "unknown");
    assert!(
        first[1].1.contains("first confirmed goal (goal 1)"),
        "{first:?}"
    );
}

#[test]
fn hunt_without_goals_is_an_error() {
    let args: Vec<String> = ["hunt", "fixtures/hunt/race_counter.c"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let run = process::run(&agx_bin(), &args, &project_root(), Duration::from_secs(60));
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("no goals"), "{}", run.stderr);
}

#[test]
fn without_assertions_undefined_behaviour_is_the_goal() {
    let file = "fixtures/hunt/undefined_behaviour.c";
    let goals = hunt(file, &["--assertions"]);
    assert_eq!(goals.len(), 1, "{goals:?}");
    let g = &goals[0];
    assert_eq!(g["kind"], "undefined-behaviour", "{g}");
    assert_eq!(g["verdict"], "confirmed", "{g}");
    assert!(
        g["message"]
            .as_str()
            .unwrap()
            .starts_with("null pointer dereference at fixtures/hunt/undefined_behaviour.c:23"),
        "{g}"
    );
    let replayed = replay(file, &g["witness"], "undefined-behaviour");
    let outcome = &replayed["outcome"];
    assert_eq!(outcome["kind"], "null_dereference", "{outcome}");
    assert_eq!(
        outcome["location"], "fixtures/hunt/undefined_behaviour.c:23",
        "{outcome}"
    );

    let clean = hunt("fixtures/hunt/no_undefined_behaviour.c", &["--assertions"]);
    assert_eq!(clean.len(), 1, "{clean:?}");
    assert_eq!(clean[0]["verdict"], "refuted", "{}", clean[0]);
    assert_eq!(clean[0]["found_by"], "exhaustive", "{}", clean[0]);
}

/// A variadic argument read as another type is undefined behaviour like a bad pointer:
/// the goal of a hunt without assertions, confirmed by a witness whose replay stops at the
/// `va_arg` with that kind (not an assertion, not a reach goal of its own).
#[test]
fn a_va_arg_type_mismatch_is_undefined_behaviour() {
    let file = "fixtures/hunt/va_arg_type.c";
    let goals = hunt(file, &["--assertions"]);
    assert_eq!(goals.len(), 1, "{goals:?}");
    let g = &goals[0];
    assert_eq!(g["kind"], "undefined-behaviour", "{g}");
    assert_eq!(g["verdict"], "confirmed", "{g}");
    let replayed = replay(file, &g["witness"], "va-arg-type");
    let outcome = &replayed["outcome"];
    assert_eq!(outcome["kind"], "va_arg_type", "{outcome}");
    assert_eq!(
        outcome["location"], "fixtures/hunt/va_arg_type.c:17",
        "{outcome}"
    );
}

/// Each goal is announced on stderr the moment it is decided (terminal or not), in the
/// order decided, before the report on stdout; `--quiet` hides the announcements.
#[test]
fn each_goal_is_announced_on_stderr_when_decided_unless_quiet() {
    let run = |quiet: bool| {
        let mut args: Vec<String> = [
            "hunt",
            "fixtures/hunt/two_assertions.c",
            "--assertions",
            "--jobs",
            "1",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        if quiet {
            args.push("--quiet".into());
        }
        process::run(&agx_bin(), &args, &project_root(), Duration::from_secs(300))
    };
    let shown = run(false);
    assert_eq!(shown.code, Some(1), "{}", shown.stderr);
    let announced: Vec<&str> = shown
        .stderr
        .lines()
        .filter(|l| l.starts_with("hunt: goal "))
        .collect();
    assert_eq!(announced.len(), 2, "{}", shown.stderr);
    assert!(
        announced
            .iter()
            .any(|l| l.starts_with("hunt: goal 1 decided: CONFIRMED (")),
        "{announced:?}"
    );
    assert!(
        announced
            .iter()
            .any(|l| l.starts_with("hunt: goal 2 decided: REFUTED (")),
        "{announced:?}"
    );
    let quiet = run(true);
    assert_eq!(quiet.code, Some(1), "{}", quiet.stderr);
    assert!(!quiet.stderr.contains("decided"), "{}", quiet.stderr);
}

/// A confirmed goal reads like verify's violation: the `why:` line of the lost update, and
/// every step with its thread's start function, its IR statement and its source line.
#[test]
fn a_confirmed_goal_is_explained_step_by_step() {
    let (code, out) = agx(&[
        "hunt",
        "fixtures/verify/race_counter.c",
        "--assertions",
        "--jobs",
        "1",
    ]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(
            "  why: thread 2 (`inc`) writes `counter` at line 12 from its read at line 11, \
             overwriting thread 1 (`inc`)'s write at line 12; thread 0 (`main`) then reads it \
             at line 22"
        ) || out.contains(
            "  why: thread 1 (`inc`) writes `counter` at line 12 from its read at line 11, \
             overwriting thread 2 (`inc`)'s write at line 12; thread 0 (`main`) then reads it \
             at line 22"
        ),
        "{out}"
    );
    assert!(
        out.contains("thread 1 (inc)") && out.contains("r2 = load i32 &counter"),
        "{out}"
    );
    assert!(out.contains("          | counter = tmp + 1;"), "{out}");
    // Through a pointer (`el->e`): the summary comes from the witness's replay.
    let (code, out) = agx(&[
        "hunt",
        "fixtures/paper/s6_abstract_system.c",
        "--assertions",
        "--jobs",
        "1",
    ]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(
            "  why: thread 1 (`thread_a`) reads `elem`+40 at line 9 as last written by \
             thread 2 (`thread_b`) at line 12"
        ),
        "{out}"
    );
}
