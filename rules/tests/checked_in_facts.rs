//! Rule tests on the checked-in fact files of fixtures/facts/ (written by `agx facts`):
//! no C front end involved, so these pin the rules alone. Refresh a directory with
//! `agx facts fixtures/paper/NAME.c -o fixtures/facts/NAME`.

use analysis::facts::{load_dir, Facts, StmtId};
use rules::abstract_system::Role;
use rules::Analysis;
use std::collections::BTreeSet;
use std::path::PathBuf;

fn load(name: &str) -> (Facts, Analysis) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/facts")
        .join(name);
    let facts = load_dir(&dir).unwrap_or_else(|e| panic!("{e}"));
    let analysis = Analysis::run(&facts);
    (facts, analysis)
}

fn line(facts: &Facts, s: StmtId) -> u32 {
    facts
        .stmt_line
        .iter()
        .find(|l| l.0 == s)
        .map(|l| l.2)
        .unwrap()
}

#[test]
fn s1_slice_from_facts() {
    let (facts, analysis) = load("s1_slice");
    let targets: Vec<StmtId> = facts.error_site.iter().map(|e| e.0).collect();
    let slice = analysis.backward_slice(&targets);
    let lines: BTreeSet<u32> = slice.iter().map(|&s| line(&facts, s)).collect();
    assert_eq!(lines, BTreeSet::from([3, 4, 5, 6, 7]));
}

#[test]
fn s3_happens_before_from_facts() {
    let (facts, analysis) = load("s3_happens_before");
    let read = facts
        .load
        .iter()
        .map(|l| l.0)
        .find(|&s| line(&facts, s) == 6)
        .unwrap();
    let write = facts
        .store
        .iter()
        .map(|s| s.0)
        .find(|&s| line(&facts, s) == 4)
        .unwrap();
    assert!(analysis.dependence.filtered_by_hb.contains(&(read, write)));
    assert!(!analysis.backward_slice(&[read]).contains(&write));
    // thread1 runs once (one creation site, not in a loop); so does thread2.
    assert_eq!(analysis.call_graph.once.len(), 3);
    assert_eq!(analysis.call_graph.thread_entries.len(), 3);
}

#[test]
fn s6_abstract_system_from_facts() {
    let (facts, analysis) = load("s6_abstract_system");
    let targets: Vec<StmtId> = facts.error_site.iter().map(|e| e.0).collect();
    let system = analysis.abstract_system(&facts, &targets);
    let releases: Vec<u32> = system
        .nodes
        .iter()
        .filter(|(_, r)| r.contains(&Role::Release))
        .map(|(s, _)| line(&facts, *s))
        .collect();
    assert_eq!(releases, vec![6], "A's unlock, not B's");
    assert_eq!(
        analysis.locks.same_lock.len(),
        4,
        "A's and B's locks take the same mutex"
    );
}
