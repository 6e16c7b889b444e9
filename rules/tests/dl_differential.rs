//! Differential test of the run-time Datalog engine: every rule set shipped as `.dl` in
//! `rules/dl/`, interpreted over the same inputs, gives exactly the ascent rule set's
//! relations, on every fixture program, every checked-in facts directory and every
//! SV-COMP corpus program the front end accepts.

use analysis::facts::Facts;
use rules::dl::{self, builtin, value::atom, Inputs, RulesFile, Type};
use rules::{must_reach, Analysis};
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
    "must_reach",
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
/// the same name (must_reach at the default context), then must_reach at the other
/// contexts. Returns the number of relations compared.
fn check(name: &str, facts: &Facts, files: &[(String, RulesFile)]) -> usize {
    let analysis = Analysis::run(facts);
    let compared = check_contexts(name, facts, &analysis, files);
    compared + check_builtins(name, facts, Inputs::with_analysis(facts, analysis), files)
}

/// must_reach's inputs `entry` and `create_site` are a program context. The built-in
/// relations (checked by [`check_builtins`]) are at the default context, every thread
/// entry at once; here each thread-entry function is a context alone, created at its own
/// creation sites, and interpreted `must_reach.dl` must equal `must_reach::run` there.
fn check_contexts(
    name: &str,
    facts: &Facts,
    analysis: &Analysis,
    files: &[(String, RulesFile)],
) -> usize {
    let Some((_, file)) = files.iter().find(|(set, _)| set == "must_reach") else {
        return 0;
    };
    let pt = &analysis.points_to;
    let (entries, _) = must_reach::default_context(pt);
    let mut compared = 0;
    for &entry in &entries {
        let sites: Vec<_> = pt
            .thread_edges
            .iter()
            .filter(|&&(_, f)| f == entry)
            .map(|&(c, _)| c)
            .collect();
        let expected = must_reach::run(facts, pt, &[entry], &sites);
        let mut inputs = Inputs::with_analysis(facts, analysis.clone());
        inputs.add(
            "entry",
            vec![("func".into(), Type::Symbol)],
            vec![atom('f', entry.0)],
        );
        inputs.add(
            "create_site",
            vec![("stmt".into(), Type::Symbol)],
            sites.iter().map(|c| atom('s', c.0)).collect(),
        );
        let e = dl::evaluate(file, &inputs).unwrap_or_else(|err| panic!("must_reach.dl: {err}"));
        let stores: BTreeSet<Vec<i64>> = expected
            .stores
            .iter()
            .map(|&(st, ob, k)| vec![atom('s', st.0), atom('o', ob.0), k])
            .collect();
        let inits: BTreeSet<Vec<i64>> = expected
            .initialized
            .iter()
            .map(|ob| vec![atom('o', ob.0)])
            .collect();
        for (rel, want) in [("must_reach_store", stores), ("must_reach_init", inits)] {
            let got: BTreeSet<Vec<i64>> = e.tuples(rel).expect(rel).into_iter().collect();
            assert_eq!(
                got,
                want,
                "{name}: must_reach.dl: `{rel}` differs from ascent at the context of entry {} ({} interpreted, {} ascent)",
                e.symbols().render(atom('f', entry.0)),
                got.len(),
                want.len()
            );
            compared += 1;
        }
    }
    compared
}

/// Every output of every `.dl` rule set against the built-in relation of the same name.
fn check_builtins(
    name: &str,
    facts: &Facts,
    inputs: Inputs<'_>,
    files: &[(String, RulesFile)],
) -> usize {
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
