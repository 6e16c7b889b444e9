//! Control dependence from post-dominance (Ferrante, Ottenstein and Warren), on each
//! function's statement-level CFG with a virtual exit.
//!
//! ```c
//! if (q)          // b
//!   x = z * 2;    // n: control dependent on b through the edge b → n
//! assert(x);      // post-dominates b: not control dependent on it
//! ```
//!
//! Facts: `cfg_edge`, `ipdom` (absent when the immediate post-dominator is the virtual
//! exit; `exit_edge` statements such as `assume` and calls that may not return have an
//! edge to the exit, so what follows them depends on them), `func_entry`.
//!
//! Rules (walk up the post-dominator tree from the target of each edge `a → b` that does
//! not go to `a`'s immediate post-dominator, stopping there):
//! ```text
//! cd(b, a, b)    ← cfg_edge(a, b), ¬ipdom(a, b)
//! cd(m, a, b)    ← cd(n, a, b), ipdom(n, m), ¬ipdom(a, m)
//! entry_level(f, e) ← func_entry(f, e)
//! entry_level(f, m) ← entry_level(f, n), ipdom(n, m)
//! ```
//! `cd(n, a, b)`: `n` is control dependent on the branch (or exit point) `a`, and runs
//! when `a` goes to its successor `b` (the branch's *desired successor* for `n`).
//! `entry_level(f, s)`: `s` runs whenever `f` runs (it is control dependent on `f`'s
//! virtual entry only); the dependence rules link these to `f`'s call sites.
//!
//! The same rules in Datalog, the readable specification beside the math above:
//! `rules/dl/control_dep.dl`, interpreted by [`crate::dl`] and equal to this program on
//! every fixture and corpus program (`rules/tests/dl_differential.rs`).

use crate::points_to::sorted;
use analysis::facts::{Facts, FuncId, StmtId};
use ascent::ascent;

/// `stmt` is control dependent on `on`, and runs when `on` continues to `successor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ControlDep {
    pub stmt: StmtId,
    pub on: StmtId,
    pub successor: StmtId,
}

/// The result of the control-dependence rule set.
#[derive(Clone, Debug, Default)]
pub struct ControlDeps {
    pub deps: Vec<ControlDep>,
    /// `(f, s)`: `s` runs whenever `f` runs.
    pub entry_level: Vec<(FuncId, StmtId)>,
}

impl ControlDeps {
    pub fn sizes(&self) -> Vec<(&'static str, usize)> {
        vec![
            ("cd", self.deps.len()),
            ("entry_level", self.entry_level.len()),
        ]
    }
}

ascent! {
    struct ControlDepProgram;
    relation cfg_edge(StmtId, StmtId);
    relation ipdom(StmtId, StmtId);
    relation func_entry(FuncId, StmtId);

    relation cd(StmtId, StmtId, StmtId);
    relation entry_level(FuncId, StmtId);

    cd(b, a, b) <-- cfg_edge(a, b), !ipdom(a, b);
    cd(m, a, b) <-- cd(n, a, b), ipdom(n, m), !ipdom(a, m);
    entry_level(f, e) <-- func_entry(f, e);
    entry_level(f, m) <-- entry_level(f, n), ipdom(n, m);
}

pub fn run(facts: &Facts) -> ControlDeps {
    let mut p = ControlDepProgram::default();
    p.cfg_edge = facts.cfg_edge.clone();
    p.ipdom = facts.ipdom.clone();
    p.func_entry = facts.func_entry.clone();
    p.run();
    let deps =
        p.cd.into_iter()
            .map(|(stmt, on, successor)| ControlDep {
                stmt,
                on,
                successor,
            })
            .collect();
    ControlDeps {
        deps: sorted(deps),
        entry_level: sorted(p.entry_level),
    }
}
