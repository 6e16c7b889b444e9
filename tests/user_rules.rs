//! User rules end to end: `agx rules eval` and `print`, the tutorial's checker through
//! `warnings --rules`, `slice --criteria-from` and `hunt --targets-from` (which confirms
//! the finding with a replayed witness), and rules errors (exit 2, file:line:col).

mod common;
mod schemas;

use common::{agx_bin, process, project_root};
use std::time::Duration;

fn agx(args: &[&str]) -> (Option<i32>, String, String) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let run = process::run(&agx_bin(), &args, &project_root(), Duration::from_secs(300));
    (run.code, run.stdout, run.stderr)
}

const CHECKER: &str = "docs/rules/store_after_unlock.dl";
const PROGRAM: &str = "fixtures/conc/store_after_unlock.c";

#[test]
fn eval_prints_the_checker_finding_with_its_source_line() {
    let (code, out, err) = agx(&["rules", "eval", CHECKER, PROGRAM]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("store_after_unlock (1 tuples)"), "{out}");
    assert!(out.contains("store_after_unlock.c:14"), "{out}");
    assert!(out.contains("| count = count + 1;"), "{out}");
    let (code, out, err) = agx(&[
        "rules",
        "eval",
        CHECKER,
        PROGRAM,
        "--output",
        "stores_to",
        "--format",
        "tsv",
    ]);
    assert_eq!(code, Some(0), "{err}");
    // The two stores to `count` in the worker (its static initializer is no statement).
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(
        out.lines()
            .all(|l| l.split('\t').nth(1).is_some_and(|g| g.contains("@count"))),
        "{out}"
    );
    let (code, out, _) = agx(&["rules", "eval", CHECKER, PROGRAM, "--format", "json"]);
    assert_eq!(code, Some(0));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["store_after_unlock"].as_array().map(Vec::len), Some(1));
}

#[test]
fn print_shows_a_builtin_relation() {
    let (code, out, err) = agx(&["rules", "print", "lock_pair", PROGRAM]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("lock_pair (1 tuples)"), "{out}");
    assert!(out.contains("| pthread_mutex_lock(&m);"), "{out}");
    let (code, _, err) = agx(&["rules", "print", "no_such", PROGRAM]);
    assert_eq!(code, Some(2));
    assert!(err.contains("unknown relation `no_such`"), "{err}");
}

#[test]
fn warnings_rules_gives_sarif_with_the_relation_as_rule_id() {
    let (code, out, err) = agx(&["warnings", PROGRAM, "--rules", CHECKER]);
    assert_eq!(code, Some(1), "a finding exits 1: {err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    schemas::check_sarif(&v);
    let results = v["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{out}");
    assert_eq!(results[0]["ruleId"], "store_after_unlock");
    let loc = &results[0]["locations"][0]["physicalLocation"];
    assert_eq!(loc["region"]["startLine"], 14, "{out}");
}

#[test]
fn hunt_confirms_the_finding_and_slice_takes_it_as_criterion() {
    let spec = format!("{CHECKER}:store_after_unlock");
    let (code, out, err) = agx(&["hunt", PROGRAM, "--targets-from", &spec]);
    assert!(out.contains("CONFIRMED"), "{out}\n{err}");
    assert!(out.contains("1 confirmed"), "{out}");
    assert_eq!(code, Some(1), "{err}");
    let (code, out, err) = agx(&["slice", PROGRAM, "--criteria-from", &spec]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("store_after_unlock.c:14"), "{out}");
}

#[test]
fn rules_errors_name_file_line_and_column() {
    let dir = std::env::temp_dir().join(format!("agx-user-rules-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.dl");
    std::fs::write(
        &bad,
        ".decl p(a: symbol)\n.decl q(a: symbol)\np(a) :- q(a, 1).\n",
    )
    .unwrap();
    let (code, _, err) = agx(&["rules", "eval", bad.to_str().unwrap(), PROGRAM]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code, Some(2));
    assert!(
        err.contains("bad.dl:3:9: arity mismatch: `q` has 1 column"),
        "{err}"
    );
    let spec = "fixtures/conc/missing.dl:r";
    let (code, _, err) = agx(&["hunt", PROGRAM, "--targets-from", spec]);
    assert_eq!(code, Some(2));
    assert!(err.contains("missing.dl"), "{err}");
}

#[test]
fn rules_time_compares_interpreted_with_ascent() {
    let (code, out, err) = agx(&["rules", "time", PROGRAM, "--repeat", "1"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("interpreted ms"), "{out}");
    // Every shipped .dl rule set has a ratio line (interpreted / ascent).
    for (set, _, _) in rules::dl::SHIPPED {
        assert!(
            out.lines()
                .any(|l| l.split_whitespace().next() == Some(*set) && l.ends_with('x')),
            "{set}: {out}"
        );
    }
}

/// A column the user named `source` keeps its value; the statement's line goes under
/// `_source`.
#[test]
fn a_user_column_named_source_is_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("source_column.dl");
    std::fs::write(
        &rules,
        "#include \"schema.dl\"\n\
         .decl stores(stmt: symbol, source: symbol)\n\
         .output stores\n\
         stores(s, \"mine\") :- store(s, _, _).\n",
    )
    .unwrap();
    let rules = rules.display().to_string();
    let (code, out, err) = agx(&["rules", "eval", &rules, PROGRAM, "--format", "json"]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rows = v["stores"].as_array().unwrap();
    assert!(!rows.is_empty(), "{out}");
    for row in rows {
        assert_eq!(row["source"], "mine", "{out}");
        assert!(
            row["_source"].as_str().is_some_and(|s| !s.is_empty()),
            "{out}"
        );
    }
}
