//! Differential tests: ascent == crepe (points-to, call graph, slices of every error
//! site) and field-insensitive points-to ⊇ field-sensitive, on every fixture and every
//! SV-COMP corpus program the front end accepts.

use analysis::facts::{Facts, StmtId};
use rules::{points_to, points_to_crepe, Analysis, DatalogEngine, Direction};
use std::collections::{BTreeSet, HashSet};
use std::path::Path;

mod common;
use common::{corpus_programs, programs, root};

fn check_engines_agree(path: &Path, facts: &Facts) {
    let a = points_to::run(facts);
    let c = points_to_crepe::run(facts);
    let name = path.display();
    assert_eq!(a.var_points_to, c.var_points_to, "{name}: pt differs");
    assert_eq!(a.cell_points_to, c.cell_points_to, "{name}: cpt differs");
    assert_eq!(a.call_edges, c.call_edges, "{name}: call edges differ");
    assert_eq!(
        a.thread_edges, c.thread_edges,
        "{name}: thread edges differ"
    );
    let ascent = Analysis::run_with(facts, DatalogEngine::Ascent);
    let crepe = Analysis::run_with(facts, DatalogEngine::Crepe);
    let targets: Vec<StmtId> = facts.error_site.iter().map(|e| e.0).collect();
    for dir in [Direction::Backward, Direction::Forward] {
        assert_eq!(
            ascent.slice(&targets, dir),
            crepe.slice(&targets, dir),
            "{name}: {dir:?}"
        );
        for &t in &targets {
            assert_eq!(
                ascent.slice(&[t], dir),
                crepe.slice(&[t], dir),
                "{name}: {dir:?} {t}"
            );
        }
    }
}

fn check_insensitive_includes_sensitive(path: &Path, facts: &Facts) {
    let fs = points_to::run(facts);
    let fi = points_to::run_field_insensitive(facts);
    let fi_objs: HashSet<_> = fi.var_points_to.iter().map(|(v, c)| (*v, c.obj)).collect();
    for (v, c) in &fs.var_points_to {
        assert!(
            fi_objs.contains(&(*v, c.obj)),
            "{}: field-insensitive pt({}) lacks {}",
            path.display(),
            facts.var_name(*v),
            facts.obj_name(c.obj)
        );
    }
    let fi_calls: BTreeSet<_> = fi.call_edges.iter().collect();
    assert!(
        fs.call_edges.iter().all(|e| fi_calls.contains(e)),
        "{}",
        path.display()
    );
}

#[test]
fn engines_agree_and_insensitive_includes_sensitive_on_fixtures() {
    let progs = programs(&root().join("fixtures"));
    assert!(
        progs.len() >= 10,
        "expected the fixtures to lower, got {}",
        progs.len()
    );
    for (path, facts) in &progs {
        check_engines_agree(path, facts);
        check_insensitive_includes_sensitive(path, facts);
    }
}

#[test]
fn engines_agree_and_insensitive_includes_sensitive_on_the_corpus() {
    let Some(progs) =
        corpus_programs("engines_agree_and_insensitive_includes_sensitive_on_the_corpus")
    else {
        return;
    };
    eprintln!("{} corpus programs lower", progs.len());
    for (path, facts) in &progs {
        check_engines_agree(path, facts);
        check_insensitive_includes_sensitive(path, facts);
    }
}
