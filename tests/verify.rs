//! `agx verify` on the fixtures of fixtures/verify/ and fixtures/context/ (program
//! contexts, `--entry`), under every strategy.
//!
//! Each fixture declares its cases in lines `// agx-verify: EXPECT [OPTIONS]` (EXPECT:
//! `safe`, `unknown`, or `violation KIND`), and marks the line where a violation must be
//! reported with a trailing `// VIOLATION` (`// DEADLOCK` for a deadlock). For every case
//! and strategy the verdict, kind and line must match, the JSON must follow the
//! documented schema, and the witness must replay with `agx run FILE --witness W` to the
//! same violation.

mod common;
mod corpus_gate;

use common::{agx_bin, files_with_ext, process, project_root, shown, stat, verify_json, witness};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);
const STRATEGIES: [&str; 3] = ["baseline", "dpor", "dpor+ag"];

struct Case {
    expect: String,
    kind: Option<String>,
    args: Vec<String>,
}

fn cases(text: &str) -> Vec<Case> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("// agx-verify:"))
        .map(|rest| {
            let words: Vec<String> = rest.split_whitespace().map(str::to_string).collect();
            let expect = words.first().cloned().unwrap_or_default();
            let (kind, args) = if expect == "violation" {
                (words.get(1).cloned(), words[2.min(words.len())..].to_vec())
            } else {
                (None, words[1.min(words.len())..].to_vec())
            };
            Case { expect, kind, args }
        })
        .collect()
}

/// Lines carrying the marker comment.
fn marked(text: &str, marker: &str) -> Vec<u64> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.trim_end().ends_with(marker))
        .map(|(i, _)| i as u64 + 1)
        .collect()
}

fn check_schema(out: &Value) -> Result<(), String> {
    for key in [
        "verdict",
        "reason",
        "violation",
        "witness",
        "strategy",
        "stats",
        "steps",
        "incomplete",
    ] {
        if out.get(key).is_none() {
            return Err(format!("no `{key}` in the output"));
        }
    }
    for key in [
        "runs",
        "partial_runs",
        "states",
        "slice_skips",
        "type_a_cuts",
        "type_b_branches",
        "type_b_races",
        "probe_runs",
        "probe_partial_runs",
        "probe_states",
        "probe_time_ms",
        "solver_queries",
        "solver_time_ms",
        "time_ms",
    ] {
        if out["stats"].get(key).is_none() {
            return Err(format!("no `stats.{key}` in the output"));
        }
    }
    Ok(())
}

/// Replays the witness of `out` and checks it ends in the same violation.
fn replay(root: &Path, file: &Path, out: &Value, line: u64) -> Result<(), String> {
    let run = witness::replay(root, file, out, "verify", line, LIMIT)?;
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if run.code != Some(1) || !run.stderr.contains(&format!("{name}:{line}")) {
        return Err(format!(
            "the witness does not replay ({}): {}",
            run.ending(),
            run.stderr.trim()
        ));
    }
    Ok(())
}

fn check_case(
    root: &Path,
    file: &Path,
    text: &str,
    case: &Case,
    strategy: &str,
) -> Result<(), String> {
    let mut args = vec![
        "verify".to_string(),
        shown(file),
        "--format".into(),
        "json".into(),
    ];
    args.extend(["--strategy".to_string(), strategy.to_string()]);
    args.extend(case.args.iter().cloned());
    let run = process::run(&agx_bin(), &args, root, LIMIT);
    let out: Value = serde_json::from_str(run.stdout.trim()).map_err(|e| {
        format!(
            "not JSON ({}): {e}; stderr: {}",
            run.ending(),
            run.stderr.trim()
        )
    })?;
    check_schema(&out)?;
    let verdict = out["verdict"].as_str().unwrap_or("");
    if verdict != case.expect {
        return Err(format!(
            "verdict {verdict}, expected {} (reason: {})",
            case.expect, out["reason"]
        ));
    }
    let expected_code = match verdict {
        "violation" => 1,
        "safe" => 0,
        _ => 3,
    };
    if run.code != Some(expected_code) {
        return Err(format!("{} for verdict {verdict}", run.ending()));
    }
    if verdict == "unknown" && out["reason"].as_str().is_none_or(str::is_empty) {
        return Err("unknown without a reason".into());
    }
    if verdict != "violation" {
        return Ok(());
    }
    let violation = &out["violation"];
    let kind = violation["kind"].as_str().unwrap_or("");
    if let Some(k) = &case.kind {
        if kind != k {
            return Err(format!("violation kind {kind}, expected {k}"));
        }
    }
    let marker = if kind == "deadlock" {
        "// DEADLOCK"
    } else {
        "// VIOLATION"
    };
    let line = violation["line"].as_u64().unwrap_or(0);
    let lines = marked(text, marker);
    if !lines.contains(&line) {
        return Err(format!(
            "violation at line {line}, expected one of {lines:?}"
        ));
    }
    replay(root, file, &out, line)
}

#[test]
fn verify_fixtures_get_their_verdicts_under_every_strategy() {
    let root = project_root();
    let mut failures = Vec::new();
    let mut checked = 0;
    let files = ["fixtures/verify", "fixtures/context"]
        .iter()
        .flat_map(|dir| files_with_ext(&root.join(dir), &["c"]));
    for file in files {
        let text = std::fs::read_to_string(&file).expect("fixture");
        let cases = cases(&text);
        assert!(
            !cases.is_empty(),
            "{}: no `// agx-verify:` case",
            shown(&file)
        );
        for case in &cases {
            for strategy in STRATEGIES {
                checked += 1;
                if let Err(e) = check_case(&root, &file, &text, case, strategy) {
                    failures.push(format!(
                        "{} [{} {}] --strategy {strategy}: {e}",
                        shown(&file),
                        case.expect,
                        case.args.join(" ")
                    ));
                }
            }
        }
    }
    assert!(checked > 0, "no fixture under fixtures/verify");
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

#[test]
fn text_report_names_verdict_witness_and_stats() {
    let root = project_root();
    let file = root.join("fixtures/verify/race_counter.c");
    let args = vec!["verify".to_string(), shown(&file)];
    let run = process::run(&agx_bin(), &args, &root, LIMIT);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    // Times vary from run to run: keep everything else.
    let report: String = run
        .stdout
        .lines()
        .map(|l| match l.find(" solver queries") {
            Some(_) if l.starts_with("stats") => {
                l.split(", ").take(3).collect::<Vec<_>>().join(", ")
            }
            _ if l.starts_with("probe") => l.split(", ").take(3).collect::<Vec<_>>().join(", "),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    // The lost update, in words, and every step with its thread's function and source.
    assert!(
        report.contains("why: thread 2 (`inc`) writes `counter` at line 12 from its read at line 11, overwriting thread 1 (`inc`)'s write at line 12"),
        "{report}"
    );
    assert!(report.contains("| int tmp = counter;"), "{report}");
    insta::assert_snapshot!(report);
}

#[test]
fn witness_steps_inside_the_libc_model_show_the_model_source() {
    let root = project_root();
    let file = root.join("fixtures/verify/libc_model_steps.c");
    let args = vec!["verify".to_string(), shown(&file)];
    let run = process::run(&agx_bin(), &args, &root, LIMIT);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    // Each step inside the model (sem_post's lock) is followed by the model's source line.
    let in_model = lines
        .iter()
        .position(|l| l.contains("<agx-libc>/pthread.c") && l.contains("= lock "))
        .unwrap_or_else(|| panic!("no step inside the model:\n{}", run.stdout));
    assert_eq!(
        lines[in_model + 1].trim(),
        "| __agx_mutex_lock_raw(&s->lock);",
        "{}",
        run.stdout
    );
}

#[test]
fn bad_options_are_errors() {
    let root = project_root();
    let file = shown(&root.join("fixtures/verify/race_counter.c"));
    for bad in [
        vec!["--strategy", "dfs"],
        vec!["--format", "xml"],
        vec!["--check", "races"],
        vec!["--target", "nofile.c:3"],
    ] {
        let mut args = vec!["verify".to_string(), file.clone()];
        args.extend(bad.iter().map(|s| s.to_string()));
        let run = process::run(&agx_bin(), &args, &root, LIMIT);
        assert_eq!(run.code, Some(2), "{bad:?}: {}", run.stderr);
    }
}

/// The probe (issue 15): a bug that needs each thread's increments un-interleaved is
/// found by the non-preemptive run before the search, which then does not run; the
/// report counts the probe's run and states, and the witness replays. The baseline runs
/// no probe (its own first run is non-preemptive here: lowest thread first).
#[test]
fn the_probe_finds_a_bug_that_needs_no_preemption_and_counts_its_cost() {
    let root = project_root();
    let file = "fixtures/verify/no_lost_update.c";
    for strategy in ["dpor", "dpor+ag"] {
        let out = verify_json(&root, file, &["--no-store", "--strategy", strategy]);
        assert_eq!(out["verdict"], "violation", "{strategy}: {out}");
        assert_eq!(stat(&out, "probe_runs"), 1, "{strategy}: {out}");
        assert!(stat(&out, "probe_states") > 80, "{strategy}: {out}");
        assert_eq!(stat(&out, "runs"), 0, "{strategy}: the search ran: {out}");
        assert_eq!(stat(&out, "states"), 0, "{strategy}: the search ran: {out}");
        let line = out["violation"]["line"].as_u64().unwrap_or(0);
        replay(&root, &root.join(file), &out, line).unwrap_or_else(|e| panic!("{strategy}: {e}"));
    }
    let baseline = verify_json(&root, file, &["--no-store", "--strategy", "baseline"]);
    assert_eq!(baseline["verdict"], "violation", "{baseline}");
    assert_eq!(stat(&baseline, "probe_states"), 0, "{baseline}");
    assert!(stat(&baseline, "states") > 0, "{baseline}");
    // Without the probe the search is what runs (and counts nothing as the probe's).
    let off = verify_json(
        &root,
        "fixtures/verify/race_counter.c",
        &["--no-store", "--no-probe"],
    );
    // The non-preemptive probe alone (its later schedules find race_counter's lost
    // update themselves, session 10: checked below).
    let on = verify_json(
        &root,
        "fixtures/verify/race_counter.c",
        &[
            "--no-store",
            "--no-probe-schedules",
            "--no-probe-thread-bounds",
        ],
    );
    let all = verify_json(&root, "fixtures/verify/race_counter.c", &["--no-store"]);
    assert_eq!(all["verdict"], off["verdict"], "{all}");
    assert_eq!(all["violation"]["line"], off["violation"]["line"], "{all}");
    assert_eq!(stat(&off, "probe_states"), 0, "{off}");
    assert!(stat(&on, "probe_states") > 0, "{on}");
    for key in ["runs", "partial_runs", "states"] {
        assert_eq!(stat(&on, key), stat(&off, key), "{key}: {on} vs {off}");
    }
    assert_eq!(on["verdict"], off["verdict"]);
}

/// §6.1, Type B: on a program whose input branches and statistics races are outside the
/// assertion's slice, the slice explores fewer runs for the same verdict, and the report
/// counts the pivots it skipped.
#[test]
fn type_b_pivots_cut_runs_and_keep_the_verdict() {
    let root = project_root();
    let file = "fixtures/verify/type_b_logging.c";
    let sliced = verify_json(&root, file, &[]);
    let full = verify_json(&root, file, &["--no-slice"]);
    assert_eq!(sliced["verdict"], "safe");
    assert_eq!(full["verdict"], "safe");
    assert!(stat(&sliced, "type_b_branches") > 0, "{sliced}");
    assert!(stat(&sliced, "type_b_races") > 0, "{sliced}");
    assert_eq!(
        stat(&sliced, "slice_skips"),
        stat(&sliced, "type_a_cuts")
            + stat(&sliced, "type_b_branches")
            + stat(&sliced, "type_b_races")
    );
    assert_eq!(stat(&full, "slice_skips"), 0, "{full}");
    let runs = |o: &Value| stat(o, "runs") + stat(o, "partial_runs");
    assert!(
        runs(&sliced) < runs(&full),
        "runs with the slice {} not below {} without",
        runs(&sliced),
        runs(&full)
    );
    // Without the extra checks' criteria the slice is not used for Type B pivots.
    let checked = verify_json(&root, file, &["--check", "deadlock"]);
    assert_eq!(stat(&checked, "type_b_branches"), 0, "{checked}");
}

/// fk2012's runs grow path conditions of thousands of conjuncts; with no memory limit,
/// Z3 used to spend minutes and gigabytes inside one `push` (internalizing them), where
/// neither the search's deadline nor its memory check runs: `--timeout 5` ran past 40 s
/// and, without a kill, to the machine's 24 GiB. The deadline now interrupts Z3 and
/// the search answers UNKNOWN naming the timeout (a memory stop would do too).
#[test]
fn a_search_inside_a_long_solver_call_ends_at_its_deadline() {
    let Some(corpus) =
        corpus_gate::corpus_or_skip("a_search_inside_a_long_solver_call_ends_at_its_deadline")
    else {
        return;
    };
    let file = corpus.join("pthread-lit/fk2012.c");
    let args: Vec<String> = ["verify", file.to_str().unwrap(), "--timeout", "5"]
        .iter()
        .map(|s| s.to_string())
        .chain(["--no-store", "--format", "json"].map(String::from))
        .collect();
    let limit = Duration::from_secs(60);
    let done = process::run(&agx_bin(), &args, &corpus, limit);
    assert_eq!(done.code, Some(3), "{}: {}", done.ending(), done.stderr);
    let out: serde_json::Value = serde_json::from_str(&done.stdout).unwrap();
    assert_eq!(out["verdict"], "unknown", "{}", done.stdout);
    let reasons: Vec<&str> = out["incomplete"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["reason"].as_str())
        .collect();
    assert!(
        reasons.iter().any(|r| ["timeout", "memory"].contains(r)),
        "{}",
        done.stdout
    );
}
