//! `agx hunt --stages pct,predict,search` (issue 12): PCT runs, prediction from the runs
//! that pass, then the guided search; the report names the stage that confirmed a goal,
//! and every confirmation's witness replays with `agx run --witness`.

mod common;

use common::{agx_bin, process, project_root};
use serde_json::Value;
use std::time::Duration;

fn agx(args: &[&str]) -> process::Finished {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    process::run(&agx_bin(), &args, &project_root(), Duration::from_secs(300))
}

/// `agx hunt FILE --assertions --jobs 1 --format json ARGS`: exit code and the goals.
fn hunt(file: &str, extra: &[&str]) -> (Option<i32>, Vec<Value>) {
    let mut args = vec![
        "hunt",
        file,
        "--assertions",
        "--jobs",
        "1",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let run = agx(&args);
    let v: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{file}: {e}: {}", run.ending()));
    (run.code, v.as_array().expect("goals").clone())
}

fn replays(file: &str, goal: &Value) -> bool {
    let path = std::env::temp_dir().join(format!(
        "agx-pipeline-{}-{}.json",
        std::process::id(),
        file.replace('/', "_")
    ));
    std::fs::write(&path, goal["witness"].to_string()).unwrap();
    let run = agx(&["run", file, "--witness", path.to_str().unwrap()]);
    run.code == Some(1) && run.stderr.contains("VIOLATION")
}

#[test]
fn the_many_thread_patterns_are_confirmed_before_the_search() {
    for file in [
        "fixtures/predict/reorder_10.c",
        "fixtures/predict/reorder_20.c",
        "fixtures/predict/twostage_100.c",
    ] {
        let (code, goals) = hunt(file, &["--stages", "pct,predict,search"]);
        assert_eq!(code, Some(1), "{file}: {goals:?}");
        let g = &goals[0];
        assert_eq!(g["verdict"], "confirmed", "{file}: {g}");
        let by = g["found_by"].as_str().unwrap_or_default();
        assert!(by == "pct" || by == "predict", "{file}: found by {by}");
        assert!(replays(file, g), "{file}: the witness does not replay");
    }
}

#[test]
fn pct_alone_finds_the_lost_update_and_names_itself() {
    let file = "fixtures/verify/race_counter.c";
    let (code, goals) = hunt(file, &["--stages", "pct"]);
    assert_eq!(code, Some(1));
    assert_eq!(goals[0]["found_by"], "pct", "{}", goals[0]);
    assert!(replays(file, &goals[0]));
    // The default is the guided search alone.
    let (_, goals) = hunt(file, &[]);
    assert_eq!(goals[0]["found_by"], "guided", "{}", goals[0]);
}

#[test]
fn without_the_search_stage_an_unconfirmed_goal_is_unknown() {
    let (code, goals) = hunt(
        "fixtures/verify/lock_counter.c",
        &["--stages", "pct,predict"],
    );
    assert_eq!(code, Some(3));
    for g in &goals {
        assert_eq!(g["verdict"], "unknown");
        assert!(
            g["reason"].as_str().unwrap().contains("no `search` stage"),
            "{g}"
        );
    }
}
