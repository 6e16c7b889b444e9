//! End-to-end tests of `agx warnings`: which races and lock-order inversions are
//! reported on fixtures/hunt (and which are not), the ranking, and the SARIF shape.
//! Accept a changed text report with `INSTA_UPDATE=always cargo test --test warnings`.

mod common;
mod schemas;

use common::{agx_bin, process, project_root};
use serde_json::Value;
use std::collections::BTreeSet;
use std::time::Duration;

fn agx(args: &[&str]) -> String {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let run = process::run(&agx_bin(), &args, &project_root(), Duration::from_secs(120));
    // 0 without warnings, 1 with some (tests/exit_codes.rs pins which).
    assert!(
        matches!(run.code, Some(0) | Some(1)),
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
fn threads_created_through_a_helper_keep_their_order() {
    // `spawn(first)` is joined before `spawn(second)`: only `racy` (second against main,
    // between its creation and its join) races.
    let ws = warnings("fixtures/warnings/create_in_helper.c");
    let expected = BTreeSet::from([("race".to_string(), vec![16, 30])]);
    assert_eq!(summary(&ws), expected);
}

#[test]
fn a_lock_held_on_one_branch_counts_for_lock_order() {
    let ws = warnings("fixtures/warnings/conditional_nesting.c");
    let deadlocks: BTreeSet<_> = summary(&ws)
        .into_iter()
        .filter(|w| w.0 == "deadlock")
        .collect();
    assert_eq!(
        deadlocks,
        BTreeSet::from([("deadlock".to_string(), vec![14, 24])])
    );
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
    schemas::check_sarif(&log);
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "agx");
    assert_eq!(run["automationDetails"]["id"], "agx/warnings/");
    assert_eq!(run["invocations"][0]["executionSuccessful"], true);
    for rule in run["tool"]["driver"]["rules"].as_array().unwrap() {
        assert!(rule["fullDescription"]["text"].is_string(), "{rule}");
        assert!(rule["help"]["text"].is_string(), "{rule}");
        assert!(rule["properties"]["precision"].is_string(), "{rule}");
    }
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
    // Repository-relative, against a base the consumer resolves: no absolute path.
    assert_eq!(
        primary["artifactLocation"],
        serde_json::json!({"uri": "fixtures/hunt/deadlock.c", "uriBaseId": "SRCROOT"})
    );
    let fingerprint = r["partialFingerprints"]["agxFingerprint/v1"]
        .as_str()
        .unwrap();
    assert_eq!(fingerprint.len(), 32);
    let again: Value =
        serde_json::from_str(&agx(&["warnings", "fixtures/hunt/deadlock.c"])).unwrap();
    assert_eq!(
        again["runs"][0]["results"][0]["partialFingerprints"], r["partialFingerprints"],
        "a re-run gives the same fingerprint"
    );
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

/// The SARIF check fails on what the schema forbids (so the checks above can fail).
#[test]
fn the_sarif_check_rejects_an_invalid_log() {
    let out = agx(&["warnings", "fixtures/hunt/deadlock.c"]);
    let mut log: Value = serde_json::from_str(&out).unwrap();
    log["runs"][0]["results"][0]["level"] = Value::from("alert");
    let rejected = std::panic::catch_unwind(|| schemas::check_sarif(&log)).is_err();
    assert!(rejected, "a level outside the enum passed");
}
