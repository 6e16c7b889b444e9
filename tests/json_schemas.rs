//! agx's JSON outputs validate against their schemas in docs/schemas (JSON Schema 2020-12,
//! with `$ref`s between the files resolved from that folder): verify's, hunt's and run's
//! reports, witnesses, and bench's results file, each written by the real binary on fixtures.

mod common;

use common::{agx_bin, project_root};
use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use common::agx_schema::{assert_valid, errors};

/// stdout of `agx args` as JSON, with the exit code checked.
fn agx_json(args: &[&str], code: i32) -> Value {
    let o = Command::new(agx_bin())
        .args(args)
        .current_dir(project_root())
        .stdin(Stdio::null())
        .output()
        .expect("agx runs");
    assert_eq!(
        o.status.code(),
        Some(code),
        "agx {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("JSON on stdout")
}

fn scratch(name: &str) -> PathBuf {
    let dir = project_root()
        .join("target")
        .join(format!("json-schemas-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn read_json(path: &PathBuf) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("written")).expect("JSON")
}

#[test]
fn verify_reports_and_their_witnesses() {
    let dir = scratch("verify");
    let witness = dir.join("w.json");
    let w = witness.to_str().unwrap();
    let store = dir.join("s.sqlite3");
    let store = store.to_str().unwrap();
    let cases: [(&[&str], i32); 6] = [
        (&["fixtures/verify/race_counter.c", "--witness-out", w], 1),
        (&["fixtures/verify/lock_counter.c"], 0),
        (&["fixtures/verify/unwind_unknown.c", "--unwind", "3"], 3),
        (
            &[
                "fixtures/verify/race_counter.c",
                "--all",
                "--strategy",
                "dpor",
            ],
            1,
        ),
        (
            &[
                "fixtures/context/lost_update.c",
                "--entry",
                "inc",
                "--copies",
                "2",
                "--no-confirm-from-main",
            ],
            1,
        ),
        (
            &[
                "fixtures/paper/s4_summary_reuse_new.c",
                "--since",
                "fixtures/paper/s4_summary_reuse.c",
                "--store",
                store,
            ],
            0,
        ),
    ];
    for (args, code) in cases {
        let report = agx_json(&[&["verify"], args, &["--format", "json"]].concat(), code);
        assert_valid("verify-report.schema.json", &report, &format!("{args:?}"));
    }
    assert_valid(
        "agx-witness.schema.json",
        &read_json(&witness),
        "race witness",
    );
    // A witness with an input, and one saved by `agx run`.
    agx_json(
        &[
            "verify",
            "fixtures/verify/input_bug.c",
            "--format",
            "json",
            "--witness-out",
            w,
        ],
        1,
    );
    let input_witness = read_json(&witness);
    assert!(
        input_witness["inputs"][0]["value"].is_i64(),
        "{input_witness}"
    );
    assert_valid("agx-witness.schema.json", &input_witness, "input witness");
    let o = Command::new(agx_bin())
        .args(["run", "fixtures/verify/lock_counter.c", "--save-witness", w])
        .current_dir(project_root())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert_valid(
        "agx-witness.schema.json",
        &read_json(&witness),
        "run witness",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `agx run --format json` of every outcome kind: completed, a violation with inputs, a
/// bound, a deadlock and a data race (replayed from verify's witnesses), with --save-trace.
#[test]
fn run_reports() {
    let dir = scratch("run");
    let w = dir.join("w.json");
    let w = w.to_str().unwrap();
    let run = |args: &[&str], code: i32, outcome: &str, kind: Option<&str>| {
        let report = agx_json(&[&["run"], args, &["--format", "json"]].concat(), code);
        assert_valid("run-report.schema.json", &report, &format!("run {args:?}"));
        assert_eq!(report["outcome"]["outcome"], outcome, "{args:?}");
        if let Some(kind) = kind {
            assert_eq!(report["outcome"]["kind"], kind, "{args:?}");
        }
        report
    };
    run(&["fixtures/verify/lock_counter.c"], 0, "completed", None);
    run(
        &["fixtures/verify/lock_counter.c", "--max-steps", "3"],
        3,
        "bound_hit",
        None,
    );
    // Each witness comes from verify, then replays as a run.
    let verified = |args: &[&str]| {
        agx_json(
            &[&["verify"], args, &["--format", "json", "--witness-out", w]].concat(),
            1,
        );
    };
    verified(&["fixtures/verify/input_bug.c"]);
    let trace = dir.join("trace.json");
    let with_inputs = run(
        &[
            "fixtures/verify/input_bug.c",
            "--witness",
            w,
            "--trace",
            "--save-trace",
            trace.to_str().unwrap(),
        ],
        1,
        "violation",
        Some("assertion"),
    );
    assert!(!with_inputs["inputs"].as_array().unwrap().is_empty());
    assert!(!with_inputs["trace"].as_array().unwrap().is_empty());
    // The observed traces `--save-trace` writes (`agx predict` reads them).
    let observed = read_json(&trace);
    assert_valid("agx-trace.schema.json", &observed, "input_bug trace");
    let mut broken = observed;
    broken["threads"][0]["events"][0]["kind"] = serde_json::json!("read");
    broken["threads"][0]["events"][0]
        .as_object_mut()
        .unwrap()
        .remove("value");
    assert!(!errors("agx-trace.schema.json", &broken).is_empty());
    // Synchronizations, a condition wait's reacquire, thread ends, pointer values.
    for fixture in [
        "fixtures/predict/s7_fusion.c",
        "fixtures/conc/condvar_prodcons.c",
        "fixtures/lang/malloc_free.c",
    ] {
        run(
            &[fixture, "--save-trace", trace.to_str().unwrap()],
            0,
            "completed",
            None,
        );
        assert_valid("agx-trace.schema.json", &read_json(&trace), fixture);
    }
    verified(&["fixtures/verify/deadlock_ab.c", "--check", "deadlock"]);
    let deadlock = run(
        &["fixtures/verify/deadlock_ab.c", "--witness", w],
        1,
        "violation",
        Some("deadlock"),
    );
    assert!(!deadlock["outcome"]["blocked"]
        .as_array()
        .unwrap()
        .is_empty());
    verified(&[
        "fixtures/verify/data_race_after_flag.c",
        "--check",
        "race",
        "--no-assertions",
    ]);
    let race = run(
        &["fixtures/verify/data_race_after_flag.c", "--witness", w],
        1,
        "violation",
        Some("data_race"),
    );
    assert!(race["outcome"]["race"]["first"]["location"].is_string());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `agx warnings --format json`: races, a lock-order inversion and assertions, and the
/// findings of user rules (`--rules`); each exits 1 (warnings found).
#[test]
fn warnings_reports() {
    let mut kinds = std::collections::BTreeSet::new();
    for file in [
        "fixtures/hunt/race_counter.c",
        "fixtures/hunt/deadlock.c",
        "fixtures/verify/race_counter.c",
    ] {
        let report = agx_json(&["warnings", file, "--format", "json"], 1);
        assert_valid("warnings-report.schema.json", &report, file);
        for w in report.as_array().unwrap() {
            kinds.insert(w["kind"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        ["assertion", "deadlock", "race"]
    );
    let findings = agx_json(
        &[
            "warnings",
            "fixtures/conc/store_after_unlock.c",
            "--rules",
            "docs/rules/store_after_unlock.dl",
            "--format",
            "json",
        ],
        1,
    );
    assert_valid("warnings-report.schema.json", &findings, "--rules findings");
    assert_eq!(findings[0]["rule_id"], "store_after_unlock");
    let mut broken = findings;
    broken[0]["stmt"] = serde_json::json!(7);
    assert!(!errors("warnings-report.schema.json", &broken).is_empty());
}

/// `agx slice --format json` (a ranked target and a dropped one) and `agx impact --format
/// json` (changed lines, and the diff of two versions).
#[test]
fn slice_and_impact_reports() {
    let ranked = agx_json(
        &[
            "slice",
            "fixtures/paper/s1_slice.c",
            "--assertions",
            "--format",
            "json",
        ],
        0,
    );
    assert_valid("slice-report.schema.json", &ranked, "s1 slice");
    assert_eq!(ranked[0]["rank"], 1);
    assert!(!ranked[0]["abstract_edges"].as_array().unwrap().is_empty());
    let dropped = agx_json(
        &[
            "slice",
            "fixtures/hunt/unreachable.c",
            "--target",
            "unreachable.c:12",
            "--format",
            "json",
        ],
        0,
    );
    assert_valid("slice-report.schema.json", &dropped, "dropped target");
    assert!(dropped[0]["dropped"].is_string(), "{dropped}");
    let lines = agx_json(
        &[
            "impact",
            "fixtures/paper/s1_slice.c",
            "--changed",
            "6",
            "--format",
            "json",
        ],
        0,
    );
    assert_valid("impact-report.schema.json", &lines, "impact of line 6");
    let versions = agx_json(
        &[
            "impact",
            "fixtures/paper/s4_summary_reuse_new.c",
            "--old",
            "fixtures/paper/s4_summary_reuse.c",
            "--format",
            "json",
        ],
        0,
    );
    assert_valid("impact-report.schema.json", &versions, "impact of a diff");
    let mut broken = versions;
    broken["forward"][0]["line"] = serde_json::json!("1");
    assert!(!errors("impact-report.schema.json", &broken).is_empty());
}

/// `agx rules eval` and `agx rules print` with `--format json`: relations of tuples.
#[test]
fn rules_tables() {
    let program = "fixtures/conc/store_after_unlock.c";
    let eval = agx_json(
        &[
            "rules",
            "eval",
            "docs/rules/store_after_unlock.dl",
            program,
            "--format",
            "json",
        ],
        0,
    );
    assert_valid("rules-tables.schema.json", &eval, "rules eval");
    assert!(
        eval["store_after_unlock"][0]["source"].is_string(),
        "{eval}"
    );
    let printed = agx_json(&["rules", "print", "race", program, "--format", "json"], 0);
    assert_valid("rules-tables.schema.json", &printed, "rules print race");
    let mut broken = eval;
    broken["store_after_unlock"][0]["stmt"] = serde_json::json!([1]);
    assert!(!errors("rules-tables.schema.json", &broken).is_empty());
}

#[test]
fn hunt_reports() {
    let cases: [(&[&str], i32); 3] = [
        (&["fixtures/verify/race_counter.c", "--assertions"], 1),
        (&["fixtures/hunt/deadlock.c", "--warnings"], 1),
        (
            &[
                "fixtures/verify/unwind_unknown.c",
                "--assertions",
                "--unwind",
                "3",
            ],
            3,
        ),
    ];
    for (args, code) in cases {
        let report = agx_json(
            &[&["hunt"], args, &["--format", "json", "--jobs", "1"]].concat(),
            code,
        );
        assert_valid("hunt-report.schema.json", &report, &format!("{args:?}"));
    }
}

#[test]
fn bench_results_file() {
    let dir = scratch("bench");
    for fixture in ["race_counter.c", "lock_counter.c"] {
        std::fs::copy(
            project_root().join("fixtures/verify").join(fixture),
            dir.join(fixture),
        )
        .unwrap();
    }
    let out = dir.join("results.json");
    let o = Command::new(agx_bin())
        .args([
            "bench",
            dir.to_str().unwrap(),
            "--timeout",
            "20",
            "--out",
            out.to_str().unwrap(),
        ])
        .current_dir(project_root())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let results = read_json(&out);
    assert_eq!(
        results["records"].as_array().map(Vec::len),
        Some(2),
        "{results}"
    );
    assert_valid("bench-results.schema.json", &results, "bench results");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_schemas_reject_what_agx_does_not_write() {
    let witness = serde_json::json!({
        "format": "agx-witness", "version": 1, "program": "a.c", "data_model": "ilp32",
        "uninit": "nondet", "inputs": [{"value": 3, "type": "i32"}], "schedule": [0, 1],
    });
    assert_valid("agx-witness.schema.json", &witness, "a minimal witness");
    for (field, bad) in [
        ("version", serde_json::json!(2)),
        ("data_model", serde_json::json!("ilp64")),
        ("schedule", serde_json::json!([-1])),
        ("inputs", serde_json::json!([{"value": 3, "type": "float"}])),
        ("extra", serde_json::json!(true)),
    ] {
        let mut w = witness.clone();
        w[field] = bad;
        assert!(
            !errors("agx-witness.schema.json", &w).is_empty(),
            "{field} accepted: {w}"
        );
    }
    // A report whose witness breaks its schema breaks the report's (the $ref resolves).
    let report = agx_json(
        &[
            "verify",
            "fixtures/verify/race_counter.c",
            "--format",
            "json",
        ],
        1,
    );
    let mut broken = report.clone();
    broken["witness"]["version"] = serde_json::json!(7);
    assert!(!errors("verify-report.schema.json", &broken).is_empty());
    let mut broken = report;
    broken["verdict"] = serde_json::json!("maybe");
    assert!(!errors("verify-report.schema.json", &broken).is_empty());
    // A run report with an unknown outcome, or a span without its file, is rejected.
    let run = agx_json(
        &["run", "fixtures/verify/race_counter.c", "--format", "json"],
        0,
    );
    assert!(errors("run-report.schema.json", &run).is_empty());
    let mut broken = run.clone();
    broken["outcome"]["outcome"] = serde_json::json!("exploded");
    assert!(!errors("run-report.schema.json", &broken).is_empty());
    let mut broken = run;
    broken["trace"] = serde_json::json!([{"thread": 0, "stmt": 1, "event": "statement",
                                          "span": {"line": 3, "col": 1}}]);
    assert!(!errors("run-report.schema.json", &broken).is_empty());
}
