//! agx rule sets: Datalog programs over the facts of a program.
//!
//! Each rule set is one module with its rules written in math in the module doc, an
//! `ascent!` program, and a plain function `x::run(&Facts, ...) -> X` returning a
//! documented result type. Rule sets that need earlier results take them as arguments:
//!
//! ```text
//! points_to ─┬─ call_graph ─┬─ happens_before ─┐
//!            ├─ data_dep ───┘                   ├─ dependence ─ slice
//!            └─ locks        control_dep ───────┘   abstract_system (+ locks, data_dep)
//! ```
//! [`Analysis::run`] runs them all in order and times each. crepe twins
//! ([`points_to_crepe`], [`slice_crepe`]) compute the same relations on the other engine.
//!
//! Architecture invariant: this crate sees a program only through
//! [`analysis::facts::Facts`]; it knows nothing of the C front end or the explorer.

// An ascent program is filled one input relation at a time (`p.edge = ...`) before
// `p.run()`; that reads better than one struct literal per program.
#![allow(clippy::field_reassign_with_default)]

pub mod abstract_system;
mod anchors;
pub mod call_graph;
pub mod control_dep;
pub mod data_dep;
pub mod dependence;
pub mod dl;
pub mod happens_before;
pub mod lock_order;
pub mod locks;
pub mod must_reach;
pub mod points_to;
pub mod points_to_crepe;
pub mod races;
pub mod slice;
pub mod slice_crepe;

#[cfg(test)]
mod testing;

pub use abstract_system::AbstractSystem;
pub use call_graph::CallGraph;
pub use control_dep::ControlDeps;
pub use data_dep::DataDeps;
pub use dependence::DependenceGraph;
pub use happens_before::HappensBefore;
pub use locks::Locks;
pub use points_to::{Cell, PointsTo};
pub use slice::Direction;

use analysis::facts::{Facts, StmtId, Var};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// A Datalog engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DatalogEngine {
    Ascent,
    Crepe,
}

impl DatalogEngine {
    pub fn name(self) -> &'static str {
        match self {
            DatalogEngine::Ascent => "ascent",
            DatalogEngine::Crepe => "crepe",
        }
    }
}

/// A rule set, as `agx rules list` shows it.
#[derive(Clone, Copy, Debug)]
pub struct RuleSetInfo {
    pub name: &'static str,
    pub summary: &'static str,
    /// Whether a crepe twin exists.
    pub crepe: bool,
}

/// Every rule set, in evaluation order.
pub const RULE_SETS: &[RuleSetInfo] = &[
    RuleSetInfo {
        name: "points-to",
        summary: "Andersen points-to, field-sensitive, heap by allocation site; call graph",
        crepe: true,
    },
    RuleSetInfo {
        name: "points-to-fi",
        summary: "field-insensitive variant of points-to (for the ⊇ check)",
        crepe: false,
    },
    RuleSetInfo {
        name: "call-graph",
        summary: "thread entries, code each thread runs, run-once functions, parallel code",
        crepe: false,
    },
    RuleSetInfo {
        name: "control-dep",
        summary: "control dependence from post-dominance",
        crepe: false,
    },
    RuleSetInfo {
        name: "data-dep",
        summary: "reaching definitions (registers), parameters, memory via points-to",
        crepe: false,
    },
    RuleSetInfo {
        name: "happens-before",
        summary: "happens-before (dominance, creation, join) and may-happen-in-parallel",
        crepe: false,
    },
    RuleSetInfo {
        name: "dependence",
        summary: "dependence graph with the happens-before filter; inter-thread dependence",
        crepe: false,
    },
    RuleSetInfo {
        name: "locks",
        summary: "lock pairing and same-lock acquires",
        crepe: false,
    },
    RuleSetInfo {
        name: "slice",
        summary: "backward and forward slices of the error sites (dependence closure)",
        crepe: true,
    },
    RuleSetInfo {
        name: "abstract-system",
        summary: "abstract system of the error sites (Eqs. 1-6)",
        crepe: false,
    },
    RuleSetInfo {
        name: "races",
        summary: "locksets and data races (static warnings)",
        crepe: false,
    },
    RuleSetInfo {
        name: "lock-order",
        summary: "lock-order inversions that may run in parallel (static warnings)",
        crepe: false,
    },
    RuleSetInfo {
        name: "must-reach",
        summary: "stores and initializers that must reach a program context (verify --entry)",
        crepe: false,
    },
];

/// How long one rule set took and how big its outputs are.
#[derive(Clone, Debug)]
pub struct Timing {
    pub rule_set: &'static str,
    pub engine: DatalogEngine,
    pub duration: Duration,
    pub sizes: Vec<(&'static str, usize)>,
}

/// The results of every whole-program rule set.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    pub points_to: PointsTo,
    pub call_graph: CallGraph,
    pub control: ControlDeps,
    pub data: DataDeps,
    pub happens_before: HappensBefore,
    pub dependence: DependenceGraph,
    pub locks: Locks,
    /// One entry per rule set run, in order.
    pub timings: Vec<Timing>,
    engine: Option<DatalogEngine>,
}

fn timed<T>(
    timings: &mut Vec<Timing>,
    rule_set: &'static str,
    engine: DatalogEngine,
    f: impl FnOnce() -> T,
    sizes: impl FnOnce(&T) -> Vec<(&'static str, usize)>,
) -> T {
    let start = Instant::now();
    let out = f();
    let duration = start.elapsed();
    timings.push(Timing {
        rule_set,
        engine,
        duration,
        sizes: sizes(&out),
    });
    out
}

impl Analysis {
    /// Runs every whole-program rule set with ascent.
    pub fn run(facts: &Facts) -> Analysis {
        Analysis::run_with(facts, DatalogEngine::Ascent)
    }

    /// Runs every whole-program rule set; `engine` picks the engine of the rule sets that
    /// have a crepe twin (the others always run on ascent).
    pub fn run_with(facts: &Facts, engine: DatalogEngine) -> Analysis {
        let mut t = Vec::new();
        let points_to = match engine {
            DatalogEngine::Ascent => timed(
                &mut t,
                "points-to",
                engine,
                || points_to::run(facts),
                PointsTo::sizes,
            ),
            DatalogEngine::Crepe => timed(
                &mut t,
                "points-to",
                engine,
                || points_to_crepe::run(facts),
                PointsTo::sizes,
            ),
        };
        let a = DatalogEngine::Ascent;
        let call_graph = timed(
            &mut t,
            "call-graph",
            a,
            || call_graph::run(facts, &points_to),
            CallGraph::sizes,
        );
        let control = timed(
            &mut t,
            "control-dep",
            a,
            || control_dep::run(facts),
            ControlDeps::sizes,
        );
        let data = timed(
            &mut t,
            "data-dep",
            a,
            || data_dep::run(facts, &points_to),
            DataDeps::sizes,
        );
        let happens_before = timed(
            &mut t,
            "happens-before",
            a,
            || happens_before::run(facts, &points_to, &call_graph, &data),
            HappensBefore::sizes,
        );
        let dependence = timed(
            &mut t,
            "dependence",
            a,
            || dependence::run(facts, &call_graph, &control, &data, &happens_before),
            DependenceGraph::sizes,
        );
        let locks = timed(
            &mut t,
            "locks",
            a,
            || locks::run(facts, &points_to),
            Locks::sizes,
        );
        Analysis {
            points_to,
            call_graph,
            control,
            data,
            happens_before,
            dependence,
            locks,
            timings: t,
            engine: Some(engine),
        }
    }

    fn engine(&self) -> DatalogEngine {
        self.engine.unwrap_or(DatalogEngine::Ascent)
    }

    /// Every statement that may affect whether the targets run or what they compute.
    pub fn backward_slice(&self, targets: &[StmtId]) -> BTreeSet<StmtId> {
        self.slice(targets, Direction::Backward)
    }

    /// Every statement the targets may affect.
    pub fn forward_slice(&self, targets: &[StmtId]) -> BTreeSet<StmtId> {
        self.slice(targets, Direction::Forward)
    }

    pub fn slice(&self, targets: &[StmtId], dir: Direction) -> BTreeSet<StmtId> {
        match self.engine() {
            DatalogEngine::Ascent => slice::run(&self.dependence, targets, dir),
            DatalogEngine::Crepe => slice_crepe::run(&self.dependence, targets, dir),
        }
    }

    /// The abstract system (Eqs. 1-6) of the targets.
    pub fn abstract_system(&self, facts: &Facts, targets: &[StmtId]) -> AbstractSystem {
        abstract_system::run(
            &abstract_system::Inputs {
                facts,
                call_graph: &self.call_graph,
                control: &self.control,
                data: &self.data,
                locks: &self.locks,
            },
            targets,
        )
    }

    /// The cells a variable may point to.
    pub fn points_to(&self, var: Var) -> &[Cell] {
        self.points_to.of(var)
    }

    /// Runs the target-dependent rule sets (slices and abstract system) on `targets`, and
    /// the warning rule sets (races, lock order), adding their timings; used by
    /// `agx rules` to time every rule set.
    pub fn time_target_rule_sets(&mut self, facts: &Facts, targets: &[StmtId]) {
        let engine = self.engine();
        let start = Instant::now();
        let back = self.backward_slice(targets);
        let fwd = self.forward_slice(targets);
        self.timings.push(Timing {
            rule_set: "slice",
            engine,
            duration: start.elapsed(),
            sizes: vec![("backward", back.len()), ("forward", fwd.len())],
        });
        let start = Instant::now();
        let sys = self.abstract_system(facts, targets);
        self.timings.push(Timing {
            rule_set: "abstract-system",
            engine: DatalogEngine::Ascent,
            duration: start.elapsed(),
            sizes: sys.sizes(),
        });
        let start = Instant::now();
        let race_result = races::run(&races::Inputs {
            facts,
            points_to: &self.points_to,
            call_graph: &self.call_graph,
            data: &self.data,
            happens_before: &self.happens_before,
        });
        self.timings.push(Timing {
            rule_set: "races",
            engine: DatalogEngine::Ascent,
            duration: start.elapsed(),
            sizes: race_result.sizes(),
        });
        let start = Instant::now();
        let order = lock_order::run(
            &race_result.locksets,
            &self.call_graph,
            &self.happens_before,
        );
        self.timings.push(Timing {
            rule_set: "lock-order",
            engine: DatalogEngine::Ascent,
            duration: start.elapsed(),
            sizes: order.sizes(),
        });
        let start = Instant::now();
        let (entries, sites) = must_reach::default_context(&self.points_to);
        let reach = must_reach::run(facts, &self.points_to, &entries, &sites);
        self.timings.push(Timing {
            rule_set: "must-reach",
            engine: DatalogEngine::Ascent,
            duration: start.elapsed(),
            sizes: reach.sizes(),
        });
        let start = Instant::now();
        let fi = points_to::run_field_insensitive(facts);
        self.timings.push(Timing {
            rule_set: "points-to-fi",
            engine: DatalogEngine::Ascent,
            duration: start.elapsed(),
            sizes: fi.sizes(),
        });
    }
}

/// The backward slice of `targets` in a program, running every rule set it needs (for
/// callers that want one slice and nothing else).
pub fn backward_slice(facts: &Facts, targets: &[StmtId]) -> BTreeSet<StmtId> {
    Analysis::run(facts).backward_slice(targets)
}
