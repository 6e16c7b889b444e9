//! End-to-end tests of `agx warnings`: which races and lock-order inversions are
//! reported on fixtures/hunt (and which are not), the ranking, and the SARIF shape.
//! Accept a changed text report with `INSTA_UPDATE=always cargo test --test warnings`.

mod common;

use common::{agx_bin, process, project_root};
use serde_json::Value;
use std::collections::BTreeSet;
use std::time::Duration;

fn agx(args: &[&str]) -> String {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let run = process::run(&agx_bin(), &args, &project_root(), Duration::from_secs(120));
    assert_eq!(
        run.code,
        Some(0),
        "agx {args:?} failed ({}): {}",
        run.ending(),
        run.stderr
    );
    run.stdout
}

fn warnings(file: &str) -> Vec<Value> {
    let out = agx(&["warnings", file, "--format", "json"]);
    serde_json::from_str::<Value>(&out)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// `(kind, lines)` of every warning.
fn summary(ws: &[Value]) -> BTreeSet<(String, Vec<u64>)> {
    ws.iter()
        .map(|w| {
            let lines = w["locations"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l["line"].as_u64().unwrap())
                .collect();
            (w["kind"].as_str().unwrap().to_string(), lines)
        })
        .collect()
}

#[test]
fn races_on_unprotected_accesses_only() {
    let ws = warnings("fixtures/hunt/race_counter.c");
    // `hits` races; `total` (under the lock), `config` (written before the creations)
    // and `result` (written after the joins) are never warned.
    let expected = BTreeSet::from([
        ("race".to_string(), vec![25, 26]),
        ("race".to_string(), vec![26, 26]),
    ]);
    assert_eq!(summary(&ws), expected);
    for w in &ws {
        assert!(w["message"].as_str().unwrap().contains("`hits`"), "{w:#}");
    }
}

#[test]
fn the_lock_order_inversion_and_no_race_under_both_locks() {
    let ws = warnings("fixtures/hunt/deadlock.c");
    let expected = BTreeSet::from([("deadlock".to_string(), vec![22, 33])]);
    assert_eq!(
        summary(&ws),
        expected,
        "`shared` is always updated holding a and b"
    );
}

#[test]
fn assertions_are_ranked_targets_too() {
    let ws = warnings("fixtures/conc/race_assert.c");
    let kinds: BTreeSet<&str> = ws.iter().map(|w| w["kind"].as_str().unwrap()).collect();
    assert!(
        kinds.contains("assertion") && kinds.contains("race"),
        "{kinds:?}"
    );
    let ranks: Vec<u64> = ws.iter().map(|w| w["rank"].as_u64().unwrap()).collect();
    let expected: Vec<u64> = (1..=ws.len() as u64).collect();
    assert_eq!(ranks, expected, "ranked 1..n in order");
    let costs: Vec<u64> = ws.iter().map(|w| w["cost"].as_u64().unwrap()).collect();
    assert!(
        costs.windows(2).all(|c| c[0] <= c[1]),
        "cheapest first: {costs:?}"
    );
    let unreachable = warnings("fixtures/hunt/unreachable.c");
    let lines: Vec<Vec<u64>> = summary(&unreachable).into_iter().map(|s| s.1).collect();
    assert!(
        !lines.contains(&vec![12]),
        "the statically unreachable reach_error is not a warning: {lines:?}"
    );
}

#[test]
fn sarif_output_is_a_2_1_0_log_with_related_locations() {
    let out = agx(&["warnings", "fixtures/hunt/deadlock.c"]);
    let log: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "agx");
    let rule_ids: Vec<&str> = run["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    let r = &run["results"][0];
    assert!(rule_ids.contains(&r["ruleId"].as_str().unwrap()));
    assert_eq!(r["ruleId"], "agx-lock-order");
    assert_eq!(r["level"], "warning");
    assert_eq!(r["properties"]["kind"], "deadlock");
    let primary = &r["locations"][0]["physicalLocation"];
    assert_eq!(primary["region"]["startLine"], 22);
    assert!(primary["artifactLocation"]["uri"]
        .as_str()
        .unwrap()
        .ends_with("deadlock.c"));
    assert_eq!(
        r["relatedLocations"][0]["physicalLocation"]["region"]["startLine"],
        33
    );
}

#[test]
fn the_text_report() {
    insta::assert_snapshot!(agx(&[
        "warnings",
        "fixtures/hunt/race_refuted.c",
        "--format",
        "text"
    ]));
}
