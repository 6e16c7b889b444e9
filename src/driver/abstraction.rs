//! The guided search's view of the static analyses: the abstract system, the
//! definitions refinement adds, lock pairing, run-once statements — all answered from
//! the rule sets' results (wiring only; the rules are in the `rules` crate). Built by
//! [`super::Driver::abstraction`].

use analysis::facts::{Facts, FuncId, StmtId};
use explorer::guided::{AbstractGraph, AbstractNode, Abstraction, EdgeKind};
use rules::abstract_system::{self, Role};
use rules::{Analysis, Cell};
use std::collections::{BTreeSet, HashMap, HashSet};

/// The rule sets' results, indexed for the questions the guided search asks.
pub struct RulesAbstraction<'a> {
    facts: &'a Facts,
    analysis: &'a Analysis,
    func_of: HashMap<StmtId, FuncId>,
    in_cycle: HashSet<StmtId>,
    loads: HashSet<StmtId>,
    reads: HashMap<StmtId, Vec<Cell>>,
    writers: Vec<(StmtId, Cell)>,
    deps: HashMap<StmtId, Vec<StmtId>>,
    same_lock: HashSet<(StmtId, StmtId)>,
}

impl<'a> RulesAbstraction<'a> {
    pub fn new(facts: &'a Facts, analysis: &'a Analysis) -> Self {
        let mut reads: HashMap<StmtId, Vec<Cell>> = HashMap::new();
        for &(s, obj, offset) in &analysis.data.read_cells {
            reads.entry(s).or_default().push(Cell { obj, offset });
        }
        let stores: HashSet<StmtId> = facts.store.iter().map(|s| s.0).collect();
        let writers = analysis
            .data
            .write_cells
            .iter()
            .filter(|w| stores.contains(&w.0))
            .map(|&(s, obj, offset)| (s, Cell { obj, offset }))
            .collect();
        let mut deps: HashMap<StmtId, Vec<StmtId>> = HashMap::new();
        for &(u, d) in &analysis.data.reg {
            deps.entry(u).or_default().push(d);
        }
        RulesAbstraction {
            facts,
            analysis,
            func_of: facts.stmt_func.iter().copied().collect(),
            in_cycle: facts.in_cycle.iter().map(|c| c.0).collect(),
            loads: facts.load.iter().map(|l| l.0).collect(),
            reads,
            writers,
            deps,
            same_lock: analysis.locks.same_lock.iter().copied().collect(),
        }
    }

    /// The statements a branch's condition is computed from, within its function (the
    /// branch included).
    fn register_closure(&self, branch: StmtId) -> BTreeSet<StmtId> {
        let mut seen = BTreeSet::from([branch]);
        let mut work = vec![branch];
        while let Some(s) = work.pop() {
            for &d in self.deps.get(&s).into_iter().flatten() {
                if seen.insert(d) {
                    work.push(d);
                }
            }
        }
        seen
    }
}

impl Abstraction for RulesAbstraction<'_> {
    fn system(&self, targets: &[StmtId]) -> AbstractGraph {
        let sys = self.analysis.abstract_system(self.facts, targets);
        AbstractGraph {
            start: sys.program_start,
            nodes: sys
                .nodes
                .iter()
                .map(|(&s, roles)| {
                    let call_site = roles.contains(&Role::CallSite);
                    (s, AbstractNode { call_site })
                })
                .collect(),
            edges: sys
                .edges
                .iter()
                .map(|&(a, b, k)| {
                    let kind = match k {
                        abstract_system::EdgeKind::Flow => EdgeKind::Flow,
                        abstract_system::EdgeKind::Call => EdgeKind::Call,
                    };
                    (a, b, kind)
                })
                .collect(),
        }
    }

    /// Stores (anywhere, any thread) to a cell one of the branch's loads may read, and the
    /// call and creation sites that pass a parameter the branch depends on.
    fn definitions(&self, branch: StmtId) -> Vec<StmtId> {
        let closure = self.register_closure(branch);
        let cells: Vec<Cell> = closure
            .iter()
            .filter(|s| self.loads.contains(s))
            .flat_map(|s| self.reads.get(s).into_iter().flatten().copied())
            .collect();
        let mut out: BTreeSet<StmtId> = self
            .writers
            .iter()
            .filter(|(w, c)| !closure.contains(w) && cells.iter().any(|r| r.overlaps(*c)))
            .map(|(w, _)| *w)
            .collect();
        let cg = &self.analysis.call_graph;
        for &(u, f, _) in &self.analysis.data.param_uses {
            if closure.contains(&u) {
                out.extend(cg.invoked.iter().filter(|e| e.1 == f).map(|e| e.0));
            }
        }
        out.into_iter().collect()
    }

    fn same_lock(&self, a: StmtId, b: StmtId) -> bool {
        self.same_lock.contains(&(a, b))
    }

    fn releases(&self, acquire: StmtId) -> Vec<StmtId> {
        self.analysis.locks.releases_of(acquire).collect()
    }

    fn runs_once(&self, stmt: StmtId) -> bool {
        !self.in_cycle.contains(&stmt)
            && self
                .func_of
                .get(&stmt)
                .is_some_and(|f| self.analysis.call_graph.once.contains(f))
    }
}
