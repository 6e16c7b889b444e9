//! The driver layer between the CLI's arguments and the library crates: one [`Driver`]
//! holds a program with its facts and the rule sets' results (computed once, on first
//! use) and builds what the commands hand to the explorer — a verify configuration with
//! its targets and Type B slice, a hunt's abstraction and goal slices — and answers the
//! static questions several commands ask (is a statement statically unreachable?).
//!
//! - [`location`]: the one target type, `FILE:LINE`, and its resolution to statements;
//! - [`impact`]: change impact between two versions (`IS_fwd`, `IS_bwd`);
//! - [`incremental`]: the summary store of `agx verify` and what `--since` carries;
//! - [`abstraction`]: the guided search's view of the rule sets' results;
//! - [`context`]: the program context of `--entry` (threads, points-to of the initial
//!   state, globals no statement writes);
//! - [`budget`]: a command's time budget, which the front end and the rule sets spend
//!   on a worker thread abandoned at the deadline.

pub mod abstraction;
pub mod budget;
pub mod context;
mod context_barrier;
mod context_from;
pub mod impact;
pub mod incremental;
pub mod location;
mod locksets;

pub use abstraction::RulesAbstraction;
pub use budget::{Budget, Overrun};
pub use impact::ChangeImpact;
pub use location::{Lines, Location};

use analysis::facts::{Facts, FuncId, StmtId};
use analysis::ir::Program;
use anyhow::{anyhow, bail, Result};
use explorer::symbolic::{self, Checks, Config, Strategy};
use rules::Analysis;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;
use std::sync::OnceLock;

/// A program, with its facts and analysis computed when first needed (shareable between
/// threads, so that a [`Budget`]'s worker can compute them).
pub struct Driver {
    program: Program,
    analyzed: OnceLock<(Facts, Analysis)>,
}

/// Why no execution can run any of some statements, when the facts make it plain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unreachable {
    /// No path from the start of their function reaches them.
    DeadCode,
    /// Their function is never called from main or a thread.
    NeverCalled(String),
}

impl fmt::Display for Unreachable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unreachable::DeadCode => {
                write!(f, "dead code: no path from the start of its function")
            }
            Unreachable::NeverCalled(func) => {
                write!(f, "function `{func}` is never called from main or a thread")
            }
        }
    }
}

impl Driver {
    pub fn new(program: Program) -> Driver {
        Driver {
            program,
            analyzed: OnceLock::new(),
        }
    }

    pub fn program(&self) -> &Program {
        &self.program
    }

    fn analyzed(&self) -> &(Facts, Analysis) {
        self.analyzed.get_or_init(|| {
            let facts = analysis::facts::extract(&self.program);
            let analysis = Analysis::run(&facts);
            (facts, analysis)
        })
    }

    pub fn facts(&self) -> &Facts {
        &self.analyzed().0
    }

    pub fn analysis(&self) -> &Analysis {
        &self.analyzed().1
    }

    /// The program's statements by source line (from the IR: no analysis needed).
    pub fn lines(&self) -> Lines {
        Lines::of_program(&self.program)
    }

    /// The `(file, line)` targets of `agx verify --target`: each must have a statement,
    /// and — when only assertions are reported (`checks` default) — an assertion or
    /// `reach_error` call, else checking it would be vacuous.
    pub fn verify_targets(
        &self,
        targets: &[Location],
        checks: Checks,
    ) -> Result<Vec<(analysis::ir::FileId, u32)>> {
        let lines = self.lines();
        let mut out = Vec::new();
        for t in targets {
            let stmts = lines.statements(t).map_err(|e| anyhow!("--target {e}"))?;
            if checks == Checks::default() && !stmts.iter().any(|&s| lines.is_error_site(s)) {
                bail!(
                    "--target {t}: no assertion or reach_error call there (verify checks only \
                     those without --check)"
                );
            }
            if let Some(file) = lines.find_file(&t.file) {
                out.push((file, t.line));
            }
        }
        Ok(out)
    }

    /// `config` with the static slice for §6.1's Type B pivots set, when the search uses
    /// it (dpor+ag with the slice and no extra checks): the backward slice of the targets
    /// and of everything that can stop, block or end an execution
    /// ([`symbolic::type_b_criteria`]; every `Error` terminator is one, so the targets
    /// are in). Otherwise `config` as it is (and no analysis is run).
    pub fn verify_config(&self, mut config: Config) -> Config {
        let used = config.slice
            && config.strategy == Strategy::DporAg
            && config.checks == Checks::default();
        config.relevant = used.then(|| {
            self.analysis()
                .backward_slice(&symbolic::type_b_criteria(&self.program))
        });
        config
    }

    /// The guided search's abstraction over the rule sets' results.
    pub fn abstraction(&self) -> RulesAbstraction<'_> {
        let (facts, analysis) = self.analyzed();
        RulesAbstraction::new(facts, analysis)
    }

    /// The backward slice of a goal's statements (what guided search keeps relevant).
    pub fn goal_slice(&self, stmts: &[StmtId]) -> BTreeSet<StmtId> {
        self.analysis().backward_slice(stmts)
    }

    /// Why none of `stmts` can run in any execution, when that is plain from the facts
    /// (dead code, or a function never called); `None` otherwise (the abstract-trace
    /// check of a search covers the rest).
    pub fn unreachable(&self, stmts: &[StmtId]) -> Option<Unreachable> {
        let (facts, analysis) = self.analyzed();
        unreachable(facts, analysis, stmts)
    }
}

/// [`Driver::unreachable`] for a program known only by its facts (`agx slice DIR`).
pub fn unreachable(facts: &Facts, analysis: &Analysis, stmts: &[StmtId]) -> Option<Unreachable> {
    if stmts.is_empty() {
        return None;
    }
    let reachable: HashSet<StmtId> = facts.reachable.iter().map(|r| r.0).collect();
    if stmts.iter().all(|s| !reachable.contains(s)) {
        return Some(Unreachable::DeadCode);
    }
    let func_of: HashMap<StmtId, FuncId> = facts.stmt_func.iter().copied().collect();
    let live = &analysis.call_graph.live;
    let dead: Vec<FuncId> = stmts
        .iter()
        .filter_map(|s| func_of.get(s).copied())
        .filter(|f| !live.contains(f))
        .collect();
    (dead.len() == stmts.len()).then(|| Unreachable::NeverCalled(facts.func_name(dead[0]).into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use explorer::guided::Abstraction;

    /// Line numbers below refer to this program.
    const PROGRAM: &str = "\
#include <assert.h>
#include <pthread.h>
int x; pthread_mutex_t m;
void dead(void) { x = 5; }
void *t(void *a) {
  pthread_mutex_lock(&m);
  x = 1;
  pthread_mutex_unlock(&m);
  return 0; }
int main(void) {
  pthread_t th;
  pthread_create(&th, 0, t, 0);
  int y = x;
  assert(y != 2);
  pthread_join(th, 0);
  return 0; }
";

    fn driver(name: &str) -> Driver {
        let path = std::env::temp_dir().join(format!("agx-driver-{name}-{}.c", std::process::id()));
        std::fs::write(&path, PROGRAM).unwrap();
        let program = analysis::load_program(&path, &Default::default());
        let _ = std::fs::remove_file(&path);
        Driver::new(program.expect("the test program lowers"))
    }

    fn at(d: &Driver, line: u32) -> Location {
        let file = d.program().file_name(d.program().functions[0].span.file);
        Location {
            file: std::path::Path::new(file)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned(),
            line,
        }
    }

    fn stmts(d: &Driver, line: u32) -> Vec<StmtId> {
        d.lines().statements(&at(d, line)).unwrap()
    }

    #[test]
    fn the_type_b_slice_is_built_only_when_the_search_uses_it() {
        let d = driver("config");
        let mut baseline = Config::default();
        baseline.strategy = Strategy::Baseline;
        assert_eq!(d.verify_config(baseline).relevant, None);
        let mut checked = Config::default();
        checked.checks.memory = true;
        assert_eq!(d.verify_config(checked).relevant, None);
        assert!(
            d.analyzed.get().is_none(),
            "no analysis for configs without a slice"
        );

        let mut ag = Config::default();
        ag.strategy = Strategy::DporAg;
        ag.slice = true;
        let slice = d.verify_config(ag).relevant.expect("dpor+ag slices");
        let assertion = d.lines().target(&at(&d, 14)).unwrap();
        assert!(assertion.iter().all(|s| slice.contains(s)), "{slice:?}");
        // The assertion reads `y`, which reads the shared `x`: its store in `t` matters.
        assert!(stmts(&d, 7).iter().any(|s| slice.contains(s)), "{slice:?}");
    }

    #[test]
    fn verify_targets_must_name_an_assertion_unless_other_checks_are_on() {
        let d = driver("targets");
        let ok = d.verify_targets(&[at(&d, 14)], Checks::default()).unwrap();
        assert_eq!(ok.len(), 1);
        assert_eq!(ok[0].1, 14);
        let err = |line, checks| {
            d.verify_targets(&[at(&d, line)], checks)
                .unwrap_err()
                .to_string()
        };
        assert!(err(99, Checks::default()).contains(":99: no statement"));
        assert!(err(13, Checks::default()).contains("no assertion or reach_error"));
        let memory = Checks {
            memory: true,
            ..Checks::default()
        };
        assert!(d.verify_targets(&[at(&d, 13)], memory).is_ok());
    }

    #[test]
    fn statically_unreachable_statements_say_why() {
        let d = driver("unreachable");
        assert_eq!(
            d.unreachable(&stmts(&d, 4)),
            Some(Unreachable::NeverCalled("dead".into()))
        );
        assert_eq!(
            Unreachable::NeverCalled("dead".into()).to_string(),
            "function `dead` is never called from main or a thread"
        );
        assert_eq!(d.unreachable(&stmts(&d, 7)), None);
        assert_eq!(d.unreachable(&[]), None);
    }

    #[test]
    fn the_abstraction_answers_from_the_rule_sets() {
        let d = driver("abstraction");
        let abs = d.abstraction();
        let lock = stmts(&d, 6);
        let releases: Vec<u32> = lock
            .iter()
            .flat_map(|&l| abs.releases(l))
            .filter_map(|r| d.lines().location_of(r))
            .map(|l| l.line)
            .collect();
        assert!(releases.contains(&8), "{releases:?}");
        // `t` is created once, outside a loop: its statements run at most once.
        assert!(stmts(&d, 7).iter().all(|&s| abs.runs_once(s)));
        // The goal's slice holds the goal.
        let goal = d.lines().target(&at(&d, 14)).unwrap();
        let slice = d.goal_slice(&goal);
        assert!(goal.iter().all(|s| slice.contains(s)));
        // The abstract system of the assertion starts at the program's start.
        assert!(!abs.system(&goal).nodes.is_empty());
    }
}
