//! Snapshots of `agx slice` and `agx impact` on the paper fixtures (text, JSON, dot), and
//! the ranking of several targets. Accept a change with
//! `INSTA_UPDATE=always cargo test --test slice_snapshots` or `cargo insta review`.

mod common;

use common::{agx_bin, process, project_root};
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

#[test]
fn slice_of_the_s1_assertion() {
    insta::assert_snapshot!(agx(&[
        "slice",
        "fixtures/paper/s1_slice.c",
        "--target",
        "s1_slice.c:6"
    ]));
}

#[test]
fn slice_and_abstract_system_of_the_s6_target() {
    insta::assert_snapshot!(agx(&[
        "slice",
        "fixtures/paper/s6_abstract_system.c",
        "--target",
        "fixtures/paper/s6_abstract_system.c:10"
    ]));
}

#[test]
fn s6_abstract_system_as_dot() {
    insta::assert_snapshot!(agx(&[
        "slice",
        "fixtures/paper/s6_abstract_system.c",
        "--assertions",
        "--format",
        "dot"
    ]));
}

#[test]
fn ranking_of_several_targets_cheapest_first() {
    // (A `--target` on a line without a statement is an error: tests/bad_input.rs.)
    let out = agx(&[
        "slice",
        "fixtures/paper/s6_abstract_system.c",
        "--target",
        "s6_abstract_system.c:10",
        "--target",
        "s6_abstract_system.c:12",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let ranks: Vec<(String, Option<u64>, Option<String>)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["location"].as_str().unwrap().to_string(),
                t["rank"].as_u64(),
                t["dropped"].as_str().map(str::to_string),
            )
        })
        .collect();
    insta::assert_debug_snapshot!(ranks);
}

#[test]
fn targets_from_a_sarif_file() {
    let dir = std::env::temp_dir().join(format!("agx-sarif-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sarif = dir.join("warnings.sarif");
    std::fs::write(
        &sarif,
        r#"{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"t"}},"results":[
            {"ruleId":"r","message":{"text":"m"},"locations":[{"physicalLocation":{
              "artifactLocation":{"uri":"fixtures/paper/s1_slice.c"},"region":{"startLine":6}}}]}]}]}"#,
    )
    .unwrap();
    let from_sarif = agx(&[
        "slice",
        "fixtures/paper/s1_slice.c",
        "--sarif",
        sarif.to_str().unwrap(),
    ]);
    std::fs::remove_dir_all(&dir).unwrap();
    let direct = agx(&[
        "slice",
        "fixtures/paper/s1_slice.c",
        "--target",
        "fixtures/paper/s1_slice.c:6",
    ]);
    assert_eq!(from_sarif, direct);
}

#[test]
fn impact_of_the_s2_change() {
    insta::assert_snapshot!(agx(&[
        "impact",
        "fixtures/paper/s2_impact.c",
        "--changed",
        "11"
    ]));
}

#[test]
fn impact_from_a_diff_of_two_versions() {
    let out = agx(&[
        "impact",
        "fixtures/paper/s2_impact_new.c",
        "--old",
        "fixtures/paper/s2_impact.c",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let lines = |key: &str| -> Vec<u64> {
        v[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["line"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(lines("forward"), vec![11, 14]);
    assert_eq!(lines("backward"), vec![1, 3, 9, 10, 11, 17, 18]);
    assert!(v["changed"]
        .as_array()
        .unwrap()
        .contains(&serde_json::json!(11)));
}
