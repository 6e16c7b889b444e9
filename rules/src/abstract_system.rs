//! The abstract system of target locations (abstraction-guided symbolic execution, §4.2,
//! Eqs. 1-6): the locations that matter for reaching the targets and the edges between
//! them, used to guide the search and to rank targets.
//!
//! ```c
//! void *A(void *a) { lock(&m); check(&e); unlock(&m); }  // lock, call site, unlock
//! void check(struct E *e) { if (e->v > 9) reach_error(); } // start, branch, target
//! ```
//!
//! Facts: `target(t)`; `thread_start(e)` (entries of `main` and of every thread entry
//! reachable from it); `stmt_func`, `reachable`, `func_entry`, `branch`, `cfg_edge`,
//! `lock`; from the earlier rule sets: `invoked` (calls and thread creations; this is
//! Eq. 1's `callEdge`, extended with creation sites because C threads start there),
//! `live`, `cd`, `reg_dep`, `local_mem(load, store)` (memory dependence within one
//! function), `lock_pair`.
//!
//! Rules (`node(l, role)`; `in_abs(l) ← node(l, _)`):
//! ```text
//! node(t, target)       ← target(t)                                          L_t
//! node(e, thread_start) ← thread_start(e)                                    L_s
//! leads(f)              ← target(t), stmt_func(t, f)
//! leads(g)              ← invoked(k, f), leads(f), stmt_func(k, g), reachable(k)
//! node(k, call_site)    ← invoked(k, f), leads(f), stmt_func(k, g), live(g), reachable(k)
//! node(e, start)        ← node(k, call_site), invoked(k, f), func_entry(f, e)  (Eq. 1)
//! node(b, branch)       ← in_abs(l), cd(l, b, s), branch(b)                  (Eq. 2)
//! node(b, guard)        ← in_abs(l), cd(l, b, s), ¬branch(b)
//! node(s, successor)    ← in_abs(l), cd(l, b, s), branch(b)
//! pred(d)               ← node(b, branch), reg_dep(b, d)                     (Eq. 3)
//! pred(d')              ← pred(d), reg_dep(d, d')
//! pred(w)               ← pred(r), local_mem(r, w), path(w, r)
//! node(d, definition)   ← pred(d)
//! node(a, acquire)      ← lock(a), path(a, l), in_abs(l)                     (Eq. 4)
//! node(u, release)      ← node(a, acquire), lock_pair(a, u)
//! walk(l, t)            ← in_abs(l), cfg_edge(l, t)
//! walk(l, t)            ← walk(l, s), ¬in_abs(s), cfg_edge(s, t)
//! edge(l, t)            ← walk(l, t), in_abs(t)                              (Eq. 5)
//! edge(k, e)            ← in_abs(k), invoked(k, f), func_entry(f, e), in_abs(e) (Eq. 6)
//! ```
//! `path(a, b)`: an intraprocedural CFG path (computed only from the stores and locks that
//! need it). As in the paper, Eq. 3 stays within one function: definitions in other
//! functions or threads are left to refinement. A `guard` is a non-branch that decides
//! whether control goes on (an `assume`, a call that may not return).

use crate::call_graph::CallGraph;
use crate::control_dep::ControlDeps;
use crate::data_dep::DataDeps;
use crate::locks::Locks;
use crate::points_to::sorted;
use analysis::facts::{Facts, FuncId, StmtId};
use ascent::ascent;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

/// Why a location is in the abstract system.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    ThreadStart,
    Target,
    CallSite,
    Start,
    Branch,
    Guard,
    Successor,
    Definition,
    Acquire,
    Release,
}

impl Role {
    const ALL: [Role; 10] = [
        Role::ThreadStart,
        Role::Target,
        Role::CallSite,
        Role::Start,
        Role::Branch,
        Role::Guard,
        Role::Successor,
        Role::Definition,
        Role::Acquire,
        Role::Release,
    ];

    /// The role as a symbol of the `abs_node` built-in relation (and abstract_system.dl).
    pub fn key(self) -> &'static str {
        match self {
            Role::ThreadStart => "thread_start",
            Role::Target => "target",
            Role::CallSite => "call_site",
            Role::Start => "start",
            Role::Branch => "branch",
            Role::Guard => "guard",
            Role::Successor => "successor",
            Role::Definition => "definition",
            Role::Acquire => "acquire",
            Role::Release => "release",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Role::ThreadStart => "thread start",
            Role::Target => "target",
            Role::CallSite => "call site",
            Role::Start => "start",
            Role::Branch => "branch",
            Role::Guard => "guard",
            Role::Successor => "desired successor",
            Role::Definition => "definition",
            Role::Acquire => "acquire",
            Role::Release => "release",
        }
    }
}

/// An edge of the abstract system.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EdgeKind {
    /// A CFG path with no other abstract location on it (Eq. 5).
    Flow,
    /// A call or thread creation to the callee's start (Eq. 6).
    Call,
}

impl EdgeKind {
    /// The kind as a symbol of the `abs_edge` built-in relation (and abstract_system.dl).
    pub fn key(self) -> &'static str {
        match self {
            EdgeKind::Flow => "flow",
            EdgeKind::Call => "call",
        }
    }
}

/// The abstract system `A = ⟨L_α, E_α⟩` of a set of targets.
#[derive(Clone, Debug, Default)]
pub struct AbstractSystem {
    pub targets: Vec<StmtId>,
    /// `L_α` with the roles of each location.
    pub nodes: BTreeMap<StmtId, BTreeSet<Role>>,
    /// `E_α`.
    pub edges: Vec<(StmtId, StmtId, EdgeKind)>,
    /// `(branch, successor)`: the successor a branch must take toward the targets.
    pub desired: Vec<(StmtId, StmtId)>,
    /// The entry of `main` (where every abstract trace starts).
    pub program_start: Option<StmtId>,
}

impl AbstractSystem {
    pub fn sizes(&self) -> Vec<(&'static str, usize)> {
        vec![
            ("node", self.nodes.len()),
            ("edge", self.edges.len()),
            ("desired", self.desired.len()),
        ]
    }

    pub fn contains(&self, s: StmtId) -> bool {
        self.nodes.contains_key(&s)
    }

    /// A shortest abstract trace (Eq. 7) from the program start to `target`, if any.
    pub fn shortest_trace(&self, target: StmtId) -> Option<Vec<StmtId>> {
        let start = self.program_start?;
        let mut succ: HashMap<StmtId, Vec<StmtId>> = HashMap::new();
        for &(a, b, _) in &self.edges {
            succ.entry(a).or_default().push(b);
        }
        let mut parent: HashMap<StmtId, StmtId> = HashMap::new();
        let mut queue = VecDeque::from([start]);
        let mut seen = HashSet::from([start]);
        while let Some(n) = queue.pop_front() {
            if n == target {
                let mut trace = vec![n];
                let mut cur = n;
                while let Some(&p) = parent.get(&cur) {
                    trace.push(p);
                    cur = p;
                }
                trace.reverse();
                return Some(trace);
            }
            for &m in succ.get(&n).into_iter().flatten() {
                if seen.insert(m) {
                    parent.insert(m, n);
                    queue.push_back(m);
                }
            }
        }
        None
    }
}

ascent! {
    struct AbstractProgram;
    relation target(StmtId);
    relation thread_start(StmtId);
    relation stmt_func(StmtId, FuncId);
    relation reachable(StmtId);
    relation invoked(StmtId, FuncId);
    relation live(FuncId);
    relation func_entry(FuncId, StmtId);
    relation cd(StmtId, StmtId, StmtId);
    relation branch(StmtId);
    relation reg_dep(StmtId, StmtId);
    relation local_mem(StmtId, StmtId);
    relation cfg_edge(StmtId, StmtId);
    relation lock(StmtId);
    relation lock_pair(StmtId, StmtId);

    relation leads(FuncId);
    relation node(StmtId, Role);
    relation in_abs(StmtId);
    relation pred(StmtId);
    relation need_path(StmtId);
    relation path(StmtId, StmtId);
    relation walk(StmtId, StmtId);
    relation edge(StmtId, StmtId, EdgeKind);
    relation desired(StmtId, StmtId);

    node(t, Role::Target) <-- target(t);
    node(e, Role::ThreadStart) <-- thread_start(e);
    leads(f) <-- target(t), stmt_func(t, f);
    leads(g) <-- invoked(k, f), leads(f), stmt_func(k, g), reachable(k);
    node(k, Role::CallSite) <--
        invoked(k, f), leads(f), stmt_func(k, g), live(g), reachable(k);
    node(e, Role::Start) <-- node(k, role), if *role == Role::CallSite,
        invoked(k, f), func_entry(f, e);
    in_abs(l) <-- node(l, _);

    node(b, Role::Branch) <-- in_abs(l), cd(l, b, _), branch(b);
    node(b, Role::Guard) <-- in_abs(l), cd(l, b, _), !branch(b);
    node(s, Role::Successor) <-- in_abs(l), cd(l, b, s), branch(b);
    desired(b, s) <-- in_abs(l), cd(l, b, s), branch(b);

    pred(d) <-- node(b, role), if *role == Role::Branch, reg_dep(b, d);
    pred(d2) <-- pred(d), reg_dep(d, d2);
    need_path(w) <-- pred(r), local_mem(r, w);
    need_path(a) <-- lock(a);
    path(a, t) <-- need_path(a), cfg_edge(a, t);
    path(a, t) <-- path(a, s), cfg_edge(s, t);
    pred(w) <-- pred(r), local_mem(r, w), path(w, r);
    node(d, Role::Definition) <-- pred(d);

    node(a, Role::Acquire) <-- lock(a), path(a, l), in_abs(l);
    node(u, Role::Release) <-- node(a, role), if *role == Role::Acquire, lock_pair(a, u);

    walk(l, t) <-- in_abs(l), cfg_edge(l, t);
    walk(l, t) <-- walk(l, s), !in_abs(s), cfg_edge(s, t);
    edge(l, t, EdgeKind::Flow) <-- walk(l, t), in_abs(t);
    edge(k, e, EdgeKind::Call) <-- in_abs(k), invoked(k, f), func_entry(f, e), in_abs(e);
}

/// The earlier results the abstract system is built from.
pub struct Inputs<'a> {
    pub facts: &'a Facts,
    pub call_graph: &'a CallGraph,
    pub control: &'a ControlDeps,
    pub data: &'a DataDeps,
    pub locks: &'a Locks,
}

/// Builds the abstract system of `targets`.
pub fn run(inputs: &Inputs<'_>, targets: &[StmtId]) -> AbstractSystem {
    let Inputs {
        facts,
        call_graph: cg,
        control,
        data,
        locks,
    } = *inputs;
    let entry_of: HashMap<FuncId, StmtId> = facts.func_entry.iter().copied().collect();
    let loads: HashSet<StmtId> = facts.load.iter().map(|l| l.0).collect();
    let mut p = AbstractProgram::default();
    p.target = targets.iter().map(|&t| (t,)).collect();
    p.thread_start = cg
        .thread_entries
        .iter()
        .filter(|f| cg.live.contains(f))
        .filter_map(|f| entry_of.get(f).map(|&e| (e,)))
        .collect();
    p.stmt_func = facts.stmt_func.clone();
    p.reachable = facts.reachable.clone();
    p.invoked = cg.invoked.clone();
    p.live = cg.live.iter().map(|&f| (f,)).collect();
    p.func_entry = facts.func_entry.clone();
    p.cd = control
        .deps
        .iter()
        .map(|c| (c.stmt, c.on, c.successor))
        .collect();
    p.branch = facts.branch.iter().map(|b| (b.0,)).collect();
    p.reg_dep = data.reg.clone();
    p.local_mem = data
        .local_memory_pairs(facts)
        .into_iter()
        .filter(|(r, _)| loads.contains(r))
        .collect();
    p.cfg_edge = facts.cfg_edge.clone();
    p.lock = facts.lock.iter().map(|l| (l.0,)).collect();
    p.lock_pair = locks.pairs.clone();
    p.run();
    let mut nodes: BTreeMap<StmtId, BTreeSet<Role>> = BTreeMap::new();
    for (s, role) in p.node {
        nodes.entry(s).or_default().insert(role);
    }
    debug_assert!(nodes.values().flatten().all(|r| Role::ALL.contains(r)));
    let main_entry = facts
        .main_func
        .first()
        .and_then(|m| entry_of.get(&m.0).copied());
    AbstractSystem {
        targets: sorted(targets.to_vec()),
        nodes,
        edges: sorted(p.edge),
        desired: sorted(p.desired),
        program_start: main_entry,
    }
}
