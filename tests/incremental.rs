//! `agx verify --since OLD` (issue 11, Conc-iSE): PAPER-CHECKS S4, the soundness
//! condition on a change after the reused node, and the differential check — on mutants
//! of fixtures and generated programs (`bench::mutate`), the verdict and the violated
//! locations of `--since` equal those of a search from scratch.
//! `scripts/incremental-diff.sh N` runs the differential on N generated programs.

mod common;

use bench::mutate::{mutate, Kind};
use common::{agx_bin, process, project_root, stat};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// `agx verify ARGS --format json`: the exit code and the report (`None` for exit 2).
fn verify(args: &[&str]) -> (i32, Option<Value>) {
    let mut all: Vec<String> = vec!["verify".into()];
    all.extend(args.iter().map(|s| s.to_string()));
    all.extend(["--format".into(), "json".into()]);
    let done = process::run(&agx_bin(), &all, &project_root(), Duration::from_secs(120));
    let code = done
        .code
        .unwrap_or_else(|| panic!("agx {all:?} died: {}", done.stderr));
    if code == 2 {
        return (code, None);
    }
    let report = serde_json::from_str(&done.stdout)
        .unwrap_or_else(|e| panic!("agx {all:?}: {e}\n{}\n{}", done.stdout, done.stderr));
    (code, Some(report))
}

fn fixture(name: &str) -> String {
    project_root()
        .join("fixtures/paper")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn s4_the_changed_branch_costs_two_partial_runs_instead_of_four() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.sqlite3").display().to_string();
    let (old, new) = (
        fixture("s4_summary_reuse.c"),
        fixture("s4_summary_reuse_new.c"),
    );
    let (code, r) = verify(&[&old, "--store", &store]);
    let r = r.unwrap();
    assert_eq!((code, r["verdict"].as_str()), (0, Some("safe")), "{r}");
    // The paper's 4 paths; the Type A cut ends each right after the assertion (nothing
    // after it can fail), so agx counts them as partial runs.
    assert_eq!(stat(&r, "runs") + stat(&r, "partial_runs"), 4, "{r}");

    let (_, scratch) = verify(&[&new, "--no-store"]);
    let scratch = scratch.unwrap();
    assert_eq!(stat(&scratch, "runs") + stat(&scratch, "partial_runs"), 4);

    let (code, r) = verify(&[&new, "--since", &old, "--store", &store]);
    let r = r.unwrap();
    assert_eq!((code, r["verdict"].as_str()), (0, Some("safe")), "{r}");
    let inc = &r["incremental"];
    assert!(
        inc["old_verified_now"].is_null(),
        "read from the store: {r}"
    );
    assert!(inc["carried_summaries"].as_u64().unwrap() >= 2, "{r}");
    assert_eq!((stat(&r, "runs"), stat(&r, "partial_runs")), (0, 2), "{r}");
    assert_eq!(stat(&r, "carried_pruned"), 2, "{r}");
}

/// Summary renewal: a `--since` run writes the carried summaries it pruned with beside
/// its own, so the version after it finds them too (before, a run pruned at its root
/// wrote an empty record, and the next `--since` of it started from nothing).
#[test]
fn a_since_run_keeps_the_summaries_it_pruned_with() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.sqlite3").display().to_string();
    let (old, new) = (
        fixture("s4_summary_reuse.c"),
        fixture("s4_summary_reuse_new.c"),
    );
    verify(&[&old, "--store", &store]);
    let (_, r) = verify(&[&new, "--since", &old, "--store", &store]);
    assert_eq!(stat(&r.unwrap(), "carried_pruned"), 2);
    let mut seen = Vec::new();
    for _ in 0..2 {
        let (code, r) = verify(&[&new, "--since", &new, "--store", &store]);
        let r = r.unwrap();
        assert_eq!((code, r["verdict"].as_str()), (0, Some("safe")), "{r}");
        assert!(stat(&r, "carried_pruned") >= 1, "{r}");
        assert!(stat(&r, "runs") + stat(&r, "partial_runs") < 4, "{r}");
        seen.push((
            stat(&r, "carried_pruned"),
            stat(&r, "runs") + stat(&r, "partial_runs"),
            r["incremental"]["carried_summaries"].as_u64(),
        ));
    }
    assert_eq!(
        seen[0], seen[1],
        "the record a --since run writes is as good as the one it read"
    );
}

#[test]
fn a_change_after_the_node_keeps_its_summary_out() {
    // The paper's Algorithm 2 would reuse PS[n2] here (the assertion's change depends on
    // nothing the node runs); the new assertion fails for x = 0, y <= 0.
    let dir = tempfile::tempdir().unwrap();
    let new = dir.path().join("new.c");
    let text = std::fs::read_to_string(fixture("s4_summary_reuse_new.c")).unwrap();
    std::fs::write(&new, text.replace("assert(b != 0)", "assert(b != 1)")).unwrap();
    let new = new.display().to_string();
    let store = dir.path().join("s.sqlite3").display().to_string();
    let old = fixture("s4_summary_reuse.c");
    let (code, r) = verify(&[&new, "--since", &old, "--store", &store]);
    let r = r.unwrap();
    assert_eq!((code, r["verdict"].as_str()), (1, Some("violation")), "{r}");
    assert_eq!(stat(&r, "carried_pruned"), 0, "{r}");
    assert!(r["incremental"]["carried_summaries"].as_u64().unwrap() > 0);
}

/// Carry's widening (harmless changes): a store no property can observe, in a thread,
/// changed — nothing reads `trace` — keeps the old summaries of the nodes before it
/// usable; the rule without slices (no changed statement after the node) prunes none of
/// them. A store the assertion reads stays harmful.
#[test]
fn a_harmless_change_keeps_the_summaries_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let old_src = "#include <assert.h>\n#include <pthread.h>\nint x, y, trace;\n\
        void *t(void *a) {\n  x = 1;\n  trace = 5;\n  y = 2;\n  return 0;\n}\n\
        int main(void) {\n  pthread_t th;\n  pthread_create(&th, 0, t, 0);\n  int a = x;\n\
          int b = y;\n  pthread_join(th, 0);\n  assert(a + b != 4);\n  return 0;\n}\n";
    let (old, new) = (dir.path().join("old.c"), dir.path().join("new.c"));
    std::fs::write(&old, old_src).unwrap();
    std::fs::write(&new, old_src.replace("trace = 5;", "trace = 6;")).unwrap();
    let (old, new) = (old.display().to_string(), new.display().to_string());
    let store = dir.path().join("s.sqlite3").display().to_string();
    let (code, r) = verify(&[&old, "--store", &store]);
    assert_eq!((code, r.unwrap()["verdict"].as_str()), (0, Some("safe")));
    let (_, scratch) = verify(&[&new, "--no-store"]);
    let scratch = scratch.unwrap();
    let (code, r) = verify(&[&new, "--since", &old, "--store", &store]);
    let r = r.unwrap();
    assert_eq!((code, r["verdict"].as_str()), (0, Some("safe")), "{r}");
    assert!(
        r["incremental"]["harmless_statements"].as_u64().unwrap() >= 2,
        "{r}"
    );
    assert!(stat(&r, "carried_pruned") >= 1, "{r}");
    let runs = |r: &Value| stat(r, "runs") + stat(r, "partial_runs");
    assert!(runs(&r) < runs(&scratch), "since {r}\nscratch {scratch}");
    // Without the widening the root is not clean: with --no-slice there is no slice.
    let (_, unsliced) = verify(&[&new, "--since", &old, "--store", &store, "--no-slice"]);
    let unsliced = unsliced.unwrap();
    assert_eq!(
        unsliced["incremental"]["harmless_statements"].as_u64(),
        Some(0)
    );
    // The store the assertion reads (through `y`) is harmful: --since finds the violation.
    let bad = dir.path().join("bad.c");
    std::fs::write(&bad, old_src.replace("y = 2;", "y = 3;")).unwrap();
    let bad = bad.display().to_string();
    let (code, r) = verify(&[&bad, "--since", &old, "--store", &store]);
    let r = r.unwrap();
    assert_eq!((code, r["verdict"].as_str()), (1, Some("violation")), "{r}");
    assert_eq!(
        r["incremental"]["harmless_statements"].as_u64(),
        Some(0),
        "{r}"
    );
}

#[test]
fn since_needs_dpor_ag() {
    let old = fixture("s4_summary_reuse.c");
    let (code, _) = verify(&[&old, "--since", &old, "--strategy", "dpor", "--no-store"]);
    assert_eq!(code, 2);
}

/// Verdict and violated locations of a report.
fn outcome(r: &Value) -> (String, Vec<String>) {
    let mut locs: Vec<String> = r["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["location"].as_str().unwrap().to_string())
        .collect();
    locs.sort();
    locs.dedup();
    (r["verdict"].as_str().unwrap().to_string(), locs)
}

/// How many mutants a differential compared, and in how many of them `--since` found
/// harmless changes (carry's widening) or pruned with carried summaries.
#[derive(Default)]
pub struct Compared {
    pub mutants: usize,
    pub harmless: usize,
    pub pruned: usize,
}

/// Compares `--since old` with a search from scratch on every mutant of `old` (one per
/// kind, candidate `pick`).
pub fn differential(old: &Path, pick: usize, store: &str, work: &Path) -> Compared {
    let source = std::fs::read_to_string(old).unwrap();
    let mut compared = Compared::default();
    for kind in Kind::ALL {
        let Some(m) = mutate(&source, kind, pick) else {
            continue;
        };
        let new = work.join(format!("{kind}.c"));
        std::fs::write(&new, &m.source).unwrap();
        let new = new.display().to_string();
        let old = old.display().to_string();
        let budget = ["--all", "--timeout", "30", "--unwind", "4"];
        let mut scratch_args = vec![new.as_str(), "--no-store"];
        scratch_args.extend(budget);
        let (code, scratch) = verify(&scratch_args);
        let Some(scratch) = scratch else {
            continue; // the mutant is outside the supported C
        };
        let mut since_args = vec![new.as_str(), "--since", &old, "--store", store];
        since_args.extend(budget);
        let (since_code, since) = verify(&since_args);
        let since = since.unwrap_or_else(|| panic!("--since failed on {kind} of {old}"));
        let complete = |r: &Value| r["incomplete"].as_array().is_none_or(|i| i.is_empty());
        if code == 3 || since_code == 3 || !complete(&scratch) || !complete(&since) {
            // A bound or the time limit (with --all a search that found something exits
            // 1 even so): the sets are not comparable, but a search that stopped early
            // finds no location the finished one rules out.
            let (found, finished) = match (complete(&scratch), complete(&since)) {
                (true, false) => (&since, &scratch),
                (false, true) => (&scratch, &since),
                _ => continue,
            };
            let all = outcome(finished).1;
            assert!(
                outcome(found).1.iter().all(|l| all.contains(l)),
                "{kind} mutant (line {}) of {old}:\n{}\nsince: {since}\nscratch: {scratch}",
                m.line,
                m.source
            );
            continue;
        }
        assert_eq!(
            outcome(&since),
            outcome(&scratch),
            "{kind} mutant (line {}) of {old}:\n{}\nsince: {since}\nscratch: {scratch}",
            m.line,
            m.source
        );
        compared.mutants += 1;
        let inc = &since["incremental"];
        compared.harmless += usize::from(inc["harmless_statements"].as_u64() > Some(0));
        compared.pruned += usize::from(inc["carried_pruned"].as_u64() > Some(0));
    }
    compared
}

#[test]
fn mutants_of_fixtures_agree_with_scratch() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.sqlite3").display().to_string();
    let root = project_root();
    let mut compared = 0;
    for f in [
        "fixtures/paper/s4_summary_reuse.c",
        "fixtures/verify/lock_counter.c",
        "fixtures/verify/race_counter.c",
        "fixtures/verify/data_and_schedule.c",
        "fixtures/verify/input_bug.c",
    ] {
        compared += differential(&root.join(f), 0, &store, dir.path()).mutants;
    }
    assert!(compared >= 12, "only {compared} mutants compared");
}

#[test]
fn mutants_of_generated_programs_agree_with_scratch() {
    let n: u64 = std::env::var("AGX_INCREMENTAL_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2);
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.sqlite3").display().to_string();
    let mut total = Compared::default();
    for seed in 0..n {
        let old = dir.path().join(format!("gen{seed}.c"));
        std::fs::write(&old, common::gen::program(seed).text).unwrap();
        let work = dir.path().join(format!("m{seed}"));
        std::fs::create_dir_all(&work).unwrap();
        let c = differential(&old, seed as usize, &store, &work);
        total.mutants += c.mutants;
        total.harmless += c.harmless;
        total.pruned += c.pruned;
    }
    eprintln!(
        "{} mutants of {n} generated programs: --since == scratch ({} with harmless changes, {} pruned by carried summaries)",
        total.mutants, total.harmless, total.pruned
    );
    assert!(total.mutants > 0);
}

/// `agx hunt --since OLD`: the goal the change may affect is hunted (and reported) first;
/// the other goal is still hunted, with the verdict it has without `--since`.
#[test]
fn hunt_since_hunts_the_impacted_goal_first() {
    let dir = tempfile::tempdir().unwrap();
    let old_src = "#include <assert.h>\n#include <pthread.h>\nint x, y;\n\
        void *t(void *a) { y = 1; return 0; }\n\
        int main(void) {\n  pthread_t th;\n  pthread_create(&th, 0, t, 0);\n\
        int u = y;\n  assert(u != 5);\n  x = 1;\n  int v = x;\n  assert(v != 3);\n\
        pthread_join(th, 0);\n  return 0;\n}\n";
    let (old, new) = (dir.path().join("old.c"), dir.path().join("new.c"));
    std::fs::write(&old, old_src).unwrap();
    std::fs::write(&new, old_src.replace("x = 1;", "x = 3;")).unwrap();
    let hunt = |extra: &[&str]| -> Vec<(String, String)> {
        let mut args: Vec<String> = ["hunt", new.to_str().unwrap(), "--assertions", "-q"]
            .map(String::from)
            .to_vec();
        args.extend(extra.iter().map(|s| s.to_string()));
        args.extend(["--format".into(), "json".into()]);
        let done = process::run(&agx_bin(), &args, &project_root(), Duration::from_secs(120));
        assert_eq!(done.code, Some(1), "{}", done.stderr);
        let goals: Value = serde_json::from_str(&done.stdout).unwrap();
        goals
            .as_array()
            .unwrap()
            .iter()
            .map(|g| (g.to_string(), g["verdict"].as_str().unwrap().to_string()))
            .collect()
    };
    let plain = hunt(&[]);
    let ranked = hunt(&["--since", old.to_str().unwrap()]);
    let verdicts = |v: &[(String, String)]| v.iter().map(|g| g.1.clone()).collect::<Vec<_>>();
    // Source order: line 9 (not impacted, refuted) then line 12 (impacted, confirmed).
    assert_eq!(verdicts(&plain), ["refuted", "confirmed"]);
    assert_eq!(verdicts(&ranked), ["confirmed", "refuted"]);
    assert!(ranked[0].0.contains("new.c:12"), "{}", ranked[0].0);
}

/// `agx bench --incremental`: the S4 fixture's mutants as pairs, no verdict difference;
/// `--min-search-ms` above the fixture's own verification leaves no pair.
#[test]
fn bench_incremental_pairs_the_mutants_and_selects_by_cpu_time() {
    let bench = |extra: &[&str]| {
        let mut args: Vec<String> = [
            "bench",
            "--incremental",
            "fixtures/paper/s4_summary_reuse.c",
        ]
        .map(String::from)
        .to_vec();
        args.extend(extra.iter().map(|s| s.to_string()));
        let done = process::run(&agx_bin(), &args, &project_root(), Duration::from_secs(300));
        assert_eq!(done.code, Some(0), "{}\n{}", done.stdout, done.stderr);
        done.stdout
    };
    let all = bench(&["--timeout", "60"]);
    assert!(all.contains("verdict differences: 0"), "{all}");
    assert!(all.contains("s4_summary_reuse:constant"), "{all}");
    assert!(!all.contains("total: 0 pairs"), "{all}");
    let none = bench(&["--timeout", "60", "--min-search-ms", "3600000"]);
    assert!(none.contains("total: 0 pairs"), "{none}");
}
