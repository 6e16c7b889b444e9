//! Static race warnings against the interpreter's race detector: every data race a random
//! or PCT concrete run meets (`agx run --detect-races`, vector clocks) must be a race
//! warning of `agx warnings` (same two lines, either order). Checked on the fixtures of
//! `fixtures/warnings` and `fixtures/hunt`, on generated programs (`tests/common/gen.rs`),
//! and on the same generated programs with every thread started through a helper
//! (`h_N = spawn(tN, arg)`), the pattern whose creation order the warnings keep.
//!
//! `AGX_WARN_PROGRAMS=N` generated programs (default 10), `AGX_WARN_RUNS=K` concrete runs
//! per program (default 200).

mod common;

use analysis::FrontendOptions;
use common::{files_with_ext, gen, project_root};
use explorer::concrete::{self, RunOutcome};
use std::collections::BTreeSet;
use std::path::Path;

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// An unordered pair of lines.
fn pair(a: u32, b: u32) -> (u32, u32) {
    (a.min(b), a.max(b))
}

/// Every race some random or PCT run of `program` meets (a run stops at its first).
fn concrete_races(program: &analysis::ir::Program, seed: u64, runs: u64) -> BTreeSet<(u32, u32)> {
    let mut found = BTreeSet::new();
    for run in 0..runs {
        let config = gen::race_run_config(seed, run);
        let Ok(e) = concrete::run(program, &config) else {
            continue;
        };
        if let RunOutcome::Violation(v) = &e.outcome {
            if let Some(r) = &v.race {
                found.insert(pair(r.first.span.line, r.second.span.line));
            }
        }
    }
    found
}

/// The line pairs of `agx warnings`' race warnings.
fn warned_races(program: &analysis::ir::Program) -> BTreeSet<(u32, u32)> {
    let facts = analysis::facts::extract(program);
    let a = rules::Analysis::run(&facts);
    let races = rules::races::run(&rules::races::Inputs {
        facts: &facts,
        points_to: &a.points_to,
        call_graph: &a.call_graph,
        data: &a.data,
        happens_before: &a.happens_before,
    });
    let lines = facts.stmt_lines();
    let line = |s: analysis::facts::StmtId| lines[s.index()].map_or(0, |l| l.1);
    races
        .races
        .iter()
        .map(|r| pair(line(r.first), line(r.second)))
        .collect()
}

/// Checks one program (it must lower); returns how many concrete races it had.
fn check(path: &Path, seed: u64, runs: u64) -> usize {
    let program = analysis::load_program(path, &FrontendOptions::default())
        .unwrap_or_else(|e| panic!("{}: does not lower: {e}", path.display()));
    let concrete = concrete_races(&program, seed, runs);
    let warned = warned_races(&program);
    let missed: Vec<_> = concrete.difference(&warned).collect();
    assert!(
        missed.is_empty(),
        "{}: concrete races {missed:?} have no warning (warned: {warned:?})",
        path.display()
    );
    concrete.len()
}

/// The generated program with every `pthread_create(&h[N], 0, tN, arg)` turned into a call
/// of a helper that creates the thread and returns its handle, and `h[N]` into `h_N`.
fn through_helper(text: &str) -> Option<String> {
    let decl = text
        .lines()
        .find(|l| l.trim().starts_with("pthread_t h["))?;
    let n: usize = decl.trim()["pthread_t h[".len()..]
        .trim_end_matches("];")
        .parse()
        .ok()?;
    let names: Vec<String> = (0..n).map(|t| format!("h_{t}")).collect();
    let mut out = String::new();
    for l in text.lines() {
        let t = l.trim();
        if t == decl.trim() {
            out.push_str(&format!("  pthread_t {};\n", names.join(", ")));
            continue;
        }
        let mut l = l.to_string();
        if let Some(rest) = t.strip_prefix("pthread_create(&h[") {
            let (k, rest) = rest.split_once("], 0, ")?;
            let call = rest.trim_end_matches(");");
            l = format!("  h_{k} = agx_spawn({call});");
        }
        for t in 0..n {
            l = l.replace(&format!("h[{t}]"), &format!("h_{t}"));
        }
        out.push_str(&l);
        out.push('\n');
    }
    let helper = "pthread_t agx_spawn(void *(*body)(void *), void *arg) {\n  pthread_t t;\n  \
                  pthread_create(&t, 0, body, arg);\n  return t;\n}\n";
    let main = out.find("int main")?;
    out.insert_str(main, helper);
    Some(out)
}

#[test]
fn every_concrete_race_of_the_fixtures_is_warned() {
    let root = project_root();
    let mut files = files_with_ext(&root.join("fixtures/warnings"), &["c"]);
    files.extend(files_with_ext(&root.join("fixtures/hunt"), &["c"]));
    let mut racy = 0;
    for (i, f) in files.iter().enumerate() {
        racy += check(f, i as u64 + 1, env_or("AGX_WARN_RUNS", 200));
    }
    assert!(
        racy > 0,
        "no fixture has a concrete race: the test checks nothing"
    );
}

#[test]
fn every_concrete_race_of_generated_programs_is_warned_also_through_a_helper() {
    let programs = env_or("AGX_WARN_PROGRAMS", 10);
    let runs = env_or("AGX_WARN_RUNS", 200);
    let dir = std::env::temp_dir().join(format!("agx-warn-sound-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let (mut racy, mut helped_racy, mut helped) = (0, 0, 0);
    for seed in 1..=programs {
        let text = gen::program(seed).text;
        let direct = dir.join(format!("gen_{seed}.c"));
        std::fs::write(&direct, &text).expect("write program");
        racy += check(&direct, seed, runs);
        if let Some(h) = through_helper(&text) {
            let path = dir.join(format!("gen_{seed}_helper.c"));
            std::fs::write(&path, h).expect("write program");
            helped_racy += check(&path, seed, runs);
            helped += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "{programs} programs, {helped} through a helper: {racy} and {helped_racy} concrete races"
    );
    assert!(helped > 0, "no program was rewritten through a helper");
    assert!(
        racy > 0,
        "no generated program has a concrete race: the test checks nothing"
    );
    assert!(
        helped_racy > 0,
        "no helper program has a concrete race: the test checks nothing"
    );
}
