//! Differential test of the run-time Datalog engine: every rule set shipped as `.dl` in
//! `rules/dl/`, interpreted over the same inputs, gives exactly the ascent rule set's
//! relations, on every fixture program, every checked-in facts directory and every
//! SV-COMP corpus program the front end accepts.

use analysis::facts::Facts;
use rules::dl::{self, builtin, Inputs, RulesFile};
use rules::Analysis;
use std::collections::BTreeSet;

mod common;
use common::{corpus_programs, programs, root};

/// The `.dl` rule sets under test; every file of `rules/dl/` must be listed.
const RULE_SETS: &[&str] = &[
    "points_to",
    "points_to_fi",
    "call_graph",
    "control_dep",
    "data_dep",
    "happens_before",
    "dependence",
    "locks",
    "slice",
    "abstract_system",
    "races",
    "lock_order",
];

fn rule_files() -> Vec<(String, RulesFile)> {
    RULE_SETS
        .iter()
        .map(|n| {
            let path = root().join("rules/dl").join(format!("{n}.dl"));
            let file = RulesFile::read(&path).unwrap_or_else(|e| panic!("{e}"));
            (n.to_string(), file)
        })
        .collect()
}

/// Interprets every `.dl` rule set and compares each output with the ascent relation of
/// the same name. Returns the number of relations compared.
fn check(name: &str, facts: &Facts, files: &[(String, RulesFile)]) -> usize {
    let inputs = Inputs::with_analysis(facts, Analysis::run(facts));
    let mut compared = 0;
    for (set, file) in files {
        let e = dl::evaluate(file, &inputs).unwrap_or_else(|err| panic!("{set}.dl: {err}"));
        assert!(
            e.program.warnings.is_empty(),
            "{set}.dl: {:?}",
            e.program.warnings
        );
        for rel in e.outputs() {
            let b = builtin::find(rel)
                .unwrap_or_else(|| panic!("{set}.dl: output `{rel}` is no built-in relation"));
            let mut symbols = e.symbols().clone();
            let mut flat = Vec::new();
            (b.rows)(facts, inputs.analysis(), &mut symbols, &mut flat);
            let arity = b.columns.len();
            let expected: BTreeSet<Vec<i64>> = flat.chunks(arity).map(<[i64]>::to_vec).collect();
            let got: BTreeSet<Vec<i64>> = e.tuples(rel).expect("relation").into_iter().collect();
            if got != expected {
                let show = |t: &Vec<i64>| -> String {
                    let parts: Vec<String> = t
                        .iter()
                        .zip(b.columns)
                        .map(|(&v, (_, ty))| {
                            if *ty == 'n' {
                                v.to_string()
                            } else {
                                symbols.render(v)
                            }
                        })
                        .collect();
                    format!("{rel}({})", parts.join(", "))
                };
                let missing: Vec<String> = expected.difference(&got).take(5).map(show).collect();
                let extra: Vec<String> = got.difference(&expected).take(5).map(show).collect();
                panic!(
                    "{name}: {set}.dl: `{rel}` differs from ascent ({} interpreted, {} ascent)\n  missing: {missing:?}\n  extra: {extra:?}",
                    got.len(),
                    expected.len()
                );
            }
            compared += 1;
        }
    }
    compared
}

#[test]
fn every_dl_file_is_tested() {
    let mut on_disk: Vec<String> = std::fs::read_dir(root().join("rules/dl"))
        .expect("rules/dl")
        .flatten()
        .filter_map(|e| {
            let p = e.path();
            (p.extension()? == "dl")
                .then(|| p.file_stem().map(|s| s.to_string_lossy().into_owned()))?
        })
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = RULE_SETS.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed);
}

#[test]
fn interpreted_equals_ascent_on_fixtures() {
    let files = rule_files();
    let progs = programs(&root().join("fixtures"));
    assert!(
        progs.len() >= 10,
        "expected the fixtures to lower, got {}",
        progs.len()
    );
    let mut compared = 0;
    for (path, facts) in &progs {
        compared += check(&path.display().to_string(), facts, &files);
    }
    for entry in std::fs::read_dir(root().join("fixtures/facts"))
        .expect("fixtures/facts")
        .flatten()
    {
        let facts = analysis::facts::load_dir(&entry.path()).expect("facts dir");
        compared += check(&entry.path().display().to_string(), &facts, &files);
    }
    eprintln!("{} programs, {compared} relations compared", progs.len());
}

#[test]
fn interpreted_equals_ascent_on_the_corpus() {
    let Some(progs) = corpus_programs("interpreted_equals_ascent_on_the_corpus") else {
        return;
    };
    let files = rule_files();
    let mut compared = 0;
    for (path, facts) in &progs {
        compared += check(&path.display().to_string(), facts, &files);
    }
    eprintln!(
        "{} corpus programs lower, {compared} relations compared",
        progs.len()
    );
}
