//! Snapshots of `agx slice` and `agx impact` on the paper fixtures (text, JSON, dot), and
//! the ranking of several targets. Accept a change with
//! `INSTA_UPDATE=always cargo test --test slice_snapshots` or `cargo insta review`.

mod common;
mod schemas;

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
    // Another tool's minimal log: valid SARIF 2.1.0, as every log the suite writes.
    let log = r#"{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"t"}},"results":[
            {"ruleId":"r","message":{"text":"m"},"locations":[{"physicalLocation":{
              "artifactLocation":{"uri":"fixtures/paper/s1_slice.c"},"region":{"startLine":6}}}]}]}]}"#;
    schemas::check_sarif(&serde_json::from_str(log).unwrap());
    std::fs::write(&sarif, log).unwrap();
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
    // The statement mapping: line 11 is modified (not also deleted), and the comment
    // lines that differ between the two files are no change.
    assert_eq!(v["changed"], serde_json::json!([11]));
    assert_eq!(v["deleted_in_old"], serde_json::json!([]));
}

/// A version of s2_impact.c that differs in comments, blank lines and layout only: no
/// statement changed, so nothing is impacted although every line moved.
#[test]
fn impact_of_a_comment_only_edit_is_empty() {
    let old = std::fs::read_to_string(project_root().join("fixtures/paper/s2_impact.c")).unwrap();
    let edited = old
        .replace(
            "int x, y, z;",
            "/* shared */\n\nint x, y, z; /* three globals */",
        )
        .replace("  y = x - 1;", "\n  y = x - 1; /* unchanged */\n");
    let (out, v) = impact_of_edited_s2("s2_comments.c", &edited);
    for key in ["changed", "deleted_in_old", "forward", "backward"] {
        assert_eq!(v[key], serde_json::json!([]), "{key}: {out}");
    }
}

/// `agx impact --format json` of an edited copy of s2 (written as `name` in a temporary
/// directory) against the original: the report's text and its JSON.
fn impact_of_edited_s2(name: &str, edited: &str) -> (String, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let new = dir.path().join(name);
    std::fs::write(&new, edited).unwrap();
    let out = agx(&[
        "impact",
        new.to_str().unwrap(),
        "--old",
        "fixtures/paper/s2_impact.c",
        "--format",
        "json",
    ]);
    let v = serde_json::from_str(&out).unwrap();
    (out, v)
}

/// Deleting line 3 (`y = x - 1;`) and adding a statement: the deleted line is analysed in
/// the old version and its impact mapped to the new one.
#[test]
fn impact_of_added_and_deleted_statements() {
    let old = std::fs::read_to_string(project_root().join("fixtures/paper/s2_impact.c")).unwrap();
    let edited = old
        .replace("  y = x - 1;\n", "  // deleted\n")
        .replace("  x -= 2;", "  x -= 2; z = 5;");
    let (out, v) = impact_of_edited_s2("s2_edit.c", &edited);
    assert_eq!(v["changed"], serde_json::json!([9]), "{out}");
    assert_eq!(v["deleted_in_old"], serde_json::json!([3]), "{out}");
    // y's readers are impacted by the lost write: the `y += 1` and the assertion.
    let fwd: Vec<u64> = v["forward"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["line"].as_u64().unwrap())
        .collect();
    assert!(fwd.contains(&11) && fwd.contains(&14), "{out}");
}
