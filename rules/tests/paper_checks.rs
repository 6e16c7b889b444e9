//! The paper checks S1, S2, S3 and S6 (../shared/PAPER-CHECKS.md) on fixtures/paper/,
//! through the front end, the facts and the rule sets.

use analysis::facts::{extract, Facts, StmtId};
use rules::abstract_system::Role;
use rules::{Analysis, Direction};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/paper")
        .join(name)
}

fn load(name: &str) -> (Facts, Analysis) {
    let program = analysis::load_program(&fixture(name), &Default::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let facts = extract(&program);
    let analysis = Analysis::run(&facts);
    (facts, analysis)
}

fn line_of(facts: &Facts, s: StmtId) -> u32 {
    facts
        .stmt_line
        .iter()
        .find(|l| l.0 == s)
        .map(|l| l.2)
        .expect("statement has a line")
}

fn on_line(facts: &Facts, line: u32) -> Vec<StmtId> {
    facts
        .stmt_line
        .iter()
        .filter(|l| l.2 == line)
        .map(|l| l.0)
        .collect()
}

fn lines(facts: &Facts, stmts: &BTreeSet<StmtId>) -> BTreeSet<u32> {
    stmts.iter().map(|&s| line_of(facts, s)).collect()
}

fn error_sites_on(facts: &Facts, line: u32) -> Vec<StmtId> {
    let sites: Vec<StmtId> = facts
        .error_site
        .iter()
        .map(|e| e.0)
        .filter(|&e| line_of(facts, e) == line)
        .collect();
    assert!(!sites.is_empty(), "no error site on line {line}");
    sites
}

#[test]
fn s1_slice_of_the_assertion_is_lines_3_to_5() {
    let (facts, analysis) = load("s1_slice.c");
    let slice = analysis.backward_slice(&error_sites_on(&facts, 6));
    let got = lines(&facts, &slice);
    // Figure lines 3, 4, 5 and the assertion itself; line 7 is the harness (the inputs q
    // and w, and the call of the figure's code). Lines 1-2 are not in the slice.
    assert_eq!(got, BTreeSet::from([3, 4, 5, 6, 7]));
}

#[test]
fn s2_change_impact_of_line_11() {
    let (facts, analysis) = load("s2_impact.c");
    let changed = on_line(&facts, 11);
    let fwd = lines(&facts, &analysis.slice(&changed, Direction::Forward));
    let bwd = lines(&facts, &analysis.slice(&changed, Direction::Backward));
    assert_eq!(fwd, BTreeSet::from([11, 14]), "MI_fwd");
    let figure: BTreeSet<u32> = bwd.iter().copied().filter(|&l| l <= 14).collect();
    assert_eq!(
        figure,
        BTreeSet::from([1, 3, 9, 10, 11]),
        "MI_bwd on the figure's lines"
    );
    // Outside the figure: the two pthread_create sites, which decide whether the threads
    // (and so lines 1-14) run at all.
    let harness: BTreeSet<u32> = bwd.iter().copied().filter(|&l| l > 14).collect();
    assert_eq!(harness, BTreeSet::from([17, 18]));
}

#[test]
fn s3_read_before_create_does_not_depend_on_the_write() {
    let (facts, analysis) = load("s3_happens_before.c");
    let read = facts
        .load
        .iter()
        .map(|l| l.0)
        .find(|&s| line_of(&facts, s) == 6)
        .unwrap();
    let write = facts
        .store
        .iter()
        .map(|s| s.0)
        .find(|&s| line_of(&facts, s) == 4)
        .unwrap();
    // Both touch x: without happens-before the read would depend on the write.
    let cells = |s: StmtId, cells: &[(StmtId, analysis::facts::Obj, i64)]| {
        cells
            .iter()
            .filter(|c| c.0 == s)
            .map(|c| (c.1, c.2))
            .collect::<BTreeSet<_>>()
    };
    let shared: Vec<_> = cells(read, &analysis.data.read_cells)
        .intersection(&cells(write, &analysis.data.write_cells))
        .copied()
        .collect();
    assert_eq!(
        shared.len(),
        1,
        "the read and the write access the same cell"
    );
    assert!(analysis.happens_before.happens_before(read, write));
    assert!(analysis.dependence.filtered_by_hb.contains(&(read, write)));
    assert!(!analysis.dependence.memory_dependence(read, write));
    let slice = analysis.backward_slice(&[read]);
    assert!(
        !slice.contains(&write),
        "the write is not in the read's slice"
    );
    // The other direction is not ordered: the write does not happen before the read.
    assert!(!analysis.happens_before.happens_before(write, read));
}

#[test]
fn s6_initial_abstract_system() {
    let (facts, analysis) = load("s6_abstract_system.c");
    let targets = error_sites_on(&facts, 10);
    let system = analysis.abstract_system(&facts, &targets);
    let mut by_line: BTreeMap<u32, BTreeSet<Role>> = BTreeMap::new();
    for (s, roles) in &system.nodes {
        by_line
            .entry(line_of(&facts, *s))
            .or_default()
            .extend(roles.iter().copied());
    }
    let has = |line: u32, role: Role| by_line.get(&line).is_some_and(|r| r.contains(&role));
    assert!(has(21, Role::ThreadStart), "main's start");
    assert!(has(4, Role::ThreadStart), "thread A's start");
    assert!(has(14, Role::ThreadStart), "thread B's start");
    assert!(has(21, Role::CallSite), "the creation of thread A");
    assert!(has(4, Role::Acquire), "A's lock");
    assert!(has(5, Role::CallSite), "the call of check");
    assert!(has(9, Role::Start), "check's start");
    assert!(has(9, Role::Branch), "the branch");
    assert!(has(10, Role::Target), "the target");
    assert!(has(6, Role::Release), "A's unlock");
    let lines: BTreeSet<u32> = by_line.keys().copied().collect();
    assert_eq!(lines, BTreeSet::from([4, 5, 6, 9, 10, 14, 21]));
    assert_eq!(
        by_line[&14],
        BTreeSet::from([Role::ThreadStart]),
        "nothing else of B"
    );
    let trace = system
        .shortest_trace(targets[0])
        .expect("an abstract trace reaches the target");
    let trace_lines: Vec<u32> = trace.iter().map(|&s| line_of(&facts, s)).collect();
    assert_eq!(trace_lines.first(), Some(&21));
    assert_eq!(trace_lines.last(), Some(&10));
}
