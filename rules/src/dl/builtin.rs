//! The built-in relations: the outputs of agx's rule sets, readable by user rules as
//! `.input` relations and printable with `agx rules print`. Each is listed with its rule
//! set, columns and meaning; symbols are agx atoms as in the `.facts` files.

use super::value::{atom, Symbols};
use super::Type;
use crate::{Analysis, Cell, Direction};
use analysis::facts::{Facts, FuncId, Obj, StmtId};

/// A built-in relation.
pub struct Builtin {
    pub name: &'static str,
    pub rule_set: &'static str,
    /// `(column, type)`: `s` a symbol, `n` a number.
    pub columns: &'static [(&'static str, char)],
    pub doc: &'static str,
    pub rows: fn(&Facts, &Analysis, &mut Symbols, &mut Vec<i64>),
}

impl Builtin {
    pub fn column_types(&self) -> Vec<(String, Type)> {
        self.columns
            .iter()
            .map(|&(n, t)| {
                (
                    n.to_string(),
                    if t == 'n' { Type::Number } else { Type::Symbol },
                )
            })
            .collect()
    }
}

fn s(x: StmtId) -> i64 {
    atom('s', x.0)
}
fn f(x: FuncId) -> i64 {
    atom('f', x.0)
}
fn o(x: Obj) -> i64 {
    atom('o', x.0)
}
fn cell(out: &mut Vec<i64>, c: Cell) {
    out.push(o(c.obj));
    out.push(c.offset);
}

fn lock(out: &mut Vec<i64>, sy: &mut Symbols, l: crate::races::Lock) {
    match l {
        crate::races::Lock::Mutex(ob, k) => out.extend([o(ob), k]),
        crate::races::Lock::Atomic => out.extend([sy.intern("atomic"), 0]),
    }
}

fn targets(facts: &Facts) -> Vec<StmtId> {
    facts.error_site.iter().map(|e| e.0).collect()
}

/// Every built-in relation, by rule set.
pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "pt",
        rule_set: "points-to",
        columns: &[("var", 's'), ("obj", 's'), ("offset", 'n')],
        doc: "variable `var` may point to cell (obj, offset); offset -1: any cell",
        rows: |_, a, _, out| {
            for &(v, c) in &a.points_to.var_points_to {
                out.push(atom('v', v.0));
                cell(out, c);
            }
        },
    },
    Builtin {
        name: "cpt",
        rule_set: "points-to",
        columns: &[("obj", 's'), ("offset", 'n'), ("target", 's'), ("target_offset", 'n')],
        doc: "memory cell (obj, offset) may hold a pointer to (target, target_offset)",
        rows: |_, a, _, out| {
            for &(c, t) in &a.points_to.cell_points_to {
                cell(out, c);
                cell(out, t);
            }
        },
    },
    Builtin {
        name: "call_edge",
        rule_set: "points-to",
        columns: &[("site", 's'), ("func", 's')],
        doc: "direct calls and resolved indirect calls",
        rows: |_, a, _, out| {
            for &(k, g) in &a.points_to.call_edges {
                out.extend([s(k), f(g)]);
            }
        },
    },
    Builtin {
        name: "thread_edge",
        rule_set: "points-to",
        columns: &[("site", 's'), ("func", 's')],
        doc: "the functions a pthread_create may start",
        rows: |_, a, _, out| {
            for &(k, g) in &a.points_to.thread_edges {
                out.extend([s(k), f(g)]);
            }
        },
    },
    Builtin {
        name: "pt_fi",
        rule_set: "points-to-fi",
        columns: &[("var", 's'), ("obj", 's'), ("offset", 'n')],
        doc: "pt of the field-insensitive variant: every offset is -1",
        rows: |facts, _, _, out| {
            for (v, c) in crate::points_to::run_field_insensitive(facts).var_points_to {
                out.push(atom('v', v.0));
                cell(out, c);
            }
        },
    },
    Builtin {
        name: "cpt_fi",
        rule_set: "points-to-fi",
        columns: &[("obj", 's'), ("offset", 'n'), ("target", 's'), ("target_offset", 'n')],
        doc: "cpt of the field-insensitive variant: every offset is -1",
        rows: |facts, _, _, out| {
            for (c, t) in crate::points_to::run_field_insensitive(facts).cell_points_to {
                cell(out, c);
                cell(out, t);
            }
        },
    },
    Builtin {
        name: "call_edge_fi",
        rule_set: "points-to-fi",
        columns: &[("site", 's'), ("func", 's')],
        doc: "call_edge with indirect calls resolved by the field-insensitive variant",
        rows: |facts, _, _, out| {
            for (k, g) in crate::points_to::run_field_insensitive(facts).call_edges {
                out.extend([s(k), f(g)]);
            }
        },
    },
    Builtin {
        name: "thread_edge_fi",
        rule_set: "points-to-fi",
        columns: &[("site", 's'), ("func", 's')],
        doc: "thread_edge resolved by the field-insensitive variant",
        rows: |facts, _, _, out| {
            for (k, g) in crate::points_to::run_field_insensitive(facts).thread_edges {
                out.extend([s(k), f(g)]);
            }
        },
    },
    Builtin {
        name: "invoked",
        rule_set: "call-graph",
        columns: &[("site", 's'), ("func", 's')],
        doc: "calls and thread creations with the function they start",
        rows: |_, a, _, out| {
            for &(k, g) in &a.call_graph.invoked {
                out.extend([s(k), f(g)]);
            }
        },
    },
    Builtin {
        name: "sole_site",
        rule_set: "call-graph",
        columns: &[("func", 's'), ("site", 's')],
        doc: "the one place that invokes func",
        rows: |_, a, _, out| {
            for &(g, k) in &a.call_graph.sole_site {
                out.extend([f(g), s(k)]);
            }
        },
    },
    Builtin {
        name: "once",
        rule_set: "call-graph",
        columns: &[("func", 's')],
        doc: "func runs at most once in any execution",
        rows: |_, a, _, out| out.extend(a.call_graph.once.iter().map(|&g| f(g))),
    },
    Builtin {
        name: "thread_entry",
        rule_set: "call-graph",
        columns: &[("func", 's')],
        doc: "main and every function a pthread_create may start",
        rows: |_, a, _, out| out.extend(a.call_graph.thread_entries.iter().map(|&g| f(g))),
    },
    Builtin {
        name: "runs",
        rule_set: "call-graph",
        columns: &[("entry", 's'), ("func", 's')],
        doc: "code of func may run in threads started at entry",
        rows: |_, a, _, out| {
            for &(t, g) in &a.call_graph.runs {
                out.extend([f(t), f(g)]);
            }
        },
    },
    Builtin {
        name: "live",
        rule_set: "call-graph",
        columns: &[("func", 's')],
        doc: "functions reachable from main through calls and thread creations",
        rows: |_, a, _, out| out.extend(a.call_graph.live.iter().map(|&g| f(g))),
    },
    Builtin {
        name: "parallel",
        rule_set: "call-graph",
        columns: &[("func", 's'), ("other", 's')],
        doc: "code of func and of other may run in different threads",
        rows: |_, a, _, out| {
            let mut v: Vec<_> = a.call_graph.parallel.iter().copied().collect();
            v.sort();
            for (x, y) in v {
                out.extend([f(x), f(y)]);
            }
        },
    },
    Builtin {
        name: "cd",
        rule_set: "control-dep",
        columns: &[("stmt", 's'), ("on", 's'), ("successor", 's')],
        doc: "stmt is control dependent on on, and runs when on continues to successor",
        rows: |_, a, _, out| {
            for c in &a.control.deps {
                out.extend([s(c.stmt), s(c.on), s(c.successor)]);
            }
        },
    },
    Builtin {
        name: "entry_level",
        rule_set: "control-dep",
        columns: &[("func", 's'), ("stmt", 's')],
        doc: "stmt runs whenever func runs",
        rows: |_, a, _, out| {
            for &(g, k) in &a.control.entry_level {
                out.extend([f(g), s(k)]);
            }
        },
    },
    Builtin {
        name: "reg_dep",
        rule_set: "data-dep",
        columns: &[("use", 's'), ("def", 's')],
        doc: "the register use reads may have been written by def",
        rows: |_, a, _, out| {
            for &(u, d) in &a.data.reg {
                out.extend([s(u), s(d)]);
            }
        },
    },
    Builtin {
        name: "param_use",
        rule_set: "data-dep",
        columns: &[("use", 's'), ("func", 's'), ("index", 'n')],
        doc: "use reads parameter index of func as passed by the caller",
        rows: |_, a, _, out| {
            for &(u, g, i) in &a.data.param_uses {
                out.extend([s(u), f(g), i64::from(i)]);
            }
        },
    },
    Builtin {
        name: "read_cell",
        rule_set: "data-dep",
        columns: &[("stmt", 's'), ("obj", 's'), ("offset", 'n')],
        doc: "cells a statement may read",
        rows: |_, a, _, out| {
            for &(k, ob, off) in &a.data.read_cells {
                out.extend([s(k), o(ob), off]);
            }
        },
    },
    Builtin {
        name: "write_cell",
        rule_set: "data-dep",
        columns: &[("stmt", 's'), ("obj", 's'), ("offset", 'n')],
        doc: "cells a statement may write",
        rows: |_, a, _, out| {
            for &(k, ob, off) in &a.data.write_cells {
                out.extend([s(k), o(ob), off]);
            }
        },
    },
    Builtin {
        name: "hb",
        rule_set: "happens-before",
        columns: &[("read", 's'), ("write", 's')],
        doc: "conflicting pairs where the read ends before the write begins (creation, join)",
        rows: |_, a, _, out| {
            let mut v: Vec<_> = a.happens_before.hb.iter().copied().collect();
            v.sort();
            for (r, w) in v {
                out.extend([s(r), s(w)]);
            }
        },
    },
    Builtin {
        name: "join_of",
        rule_set: "happens-before",
        columns: &[("join", 's'), ("create", 's')],
        doc: "the join waits for exactly the thread created at create",
        rows: |_, a, _, out| {
            for &(j, c) in &a.happens_before.join_of {
                out.extend([s(j), s(c)]);
            }
        },
    },
    Builtin {
        name: "helper_join",
        rule_set: "happens-before",
        columns: &[("join", 's'), ("call", 's'), ("create", 's')],
        doc: "the join waits for exactly the thread created at create during call (a helper that returns the handle)",
        rows: |_, a, _, out| {
            for (j, k, c) in a.happens_before.helper_joins() {
                out.extend([s(j), s(k), s(c)]);
            }
        },
    },
    Builtin {
        name: "ends_by",
        rule_set: "happens-before",
        columns: &[("stmt", 's'), ("anchor", 's')],
        doc: "every run of the memory access stmt ends before anchor ends (itself, its call sites, joins of its thread)",
        rows: |_, a, _, out| {
            for (x, y) in a.happens_before.ends_by() {
                out.extend([s(x), s(y)]);
            }
        },
    },
    Builtin {
        name: "begins_after",
        rule_set: "happens-before",
        columns: &[("stmt", 's'), ("anchor", 's')],
        doc: "every run of the memory access stmt begins after anchor begins (itself, its call sites, creations of its thread)",
        rows: |_, a, _, out| {
            for (x, y) in a.happens_before.begins_after() {
                out.extend([s(x), s(y)]);
            }
        },
    },
    Builtin {
        name: "created",
        rule_set: "happens-before",
        columns: &[("stmt", 's'), ("create", 's')],
        doc: "every run of the memory access stmt begins after the creation site create ended",
        rows: |_, a, _, out| {
            for (x, y) in a.happens_before.created() {
                out.extend([s(x), s(y)]);
            }
        },
    },
    Builtin {
        name: "dep",
        rule_set: "dependence",
        columns: &[("stmt", 's'), ("on", 's'), ("kind", 's'), ("class", 'n')],
        doc: "stmt depends on on; kind control|data|memory|call|param|return|halt|join; class 0 local, 1 up (to callers), 2 down (into callees), 3 memory",
        rows: |_, a, sy, out| {
            for e in &a.dependence.edges {
                let kind = format!("{:?}", e.kind).to_lowercase();
                out.extend([s(e.stmt), s(e.on), sy.intern(&kind), e.kind.class() as i64]);
            }
        },
    },
    Builtin {
        name: "read_via",
        rule_set: "dependence",
        columns: &[("read", 's'), ("obj", 's'), ("offset", 'n')],
        doc: "the read depends on every writer of the cell node",
        rows: |_, a, _, out| {
            for &(r, c) in &a.dependence.read_via {
                out.push(s(r));
                cell(out, c);
            }
        },
    },
    Builtin {
        name: "write_at",
        rule_set: "dependence",
        columns: &[("write", 's'), ("obj", 's'), ("offset", 'n')],
        doc: "the writers of each cell node",
        rows: |_, a, _, out| {
            for &(w, c) in &a.dependence.write_at {
                out.push(s(w));
                cell(out, c);
            }
        },
    },
    Builtin {
        name: "inter_thread_dep",
        rule_set: "dependence",
        columns: &[("read", 's'), ("obj", 's'), ("offset", 'n')],
        doc: "the read may see a write of the cell by another thread",
        rows: |_, a, _, out| {
            for &(r, c) in &a.dependence.inter_thread {
                out.push(s(r));
                cell(out, c);
            }
        },
    },
    Builtin {
        name: "lock_pair",
        rule_set: "locks",
        columns: &[("acquire", 's'), ("release", 's')],
        doc: "which release matches which acquire",
        rows: |_, a, _, out| {
            for &(x, y) in &a.locks.pairs {
                out.extend([s(x), s(y)]);
            }
        },
    },
    Builtin {
        name: "same_lock",
        rule_set: "locks",
        columns: &[("acquire", 's'), ("other", 's')],
        doc: "two acquires that may take the same lock",
        rows: |_, a, _, out| {
            for &(x, y) in &a.locks.same_lock {
                out.extend([s(x), s(y)]);
            }
        },
    },
    Builtin {
        name: "backward_slice",
        rule_set: "slice",
        columns: &[("stmt", 's')],
        doc: "the backward slice of every error site",
        rows: |facts, a, _, out| {
            out.extend(a.slice(&targets(facts), Direction::Backward).into_iter().map(s))
        },
    },
    Builtin {
        name: "forward_slice",
        rule_set: "slice",
        columns: &[("stmt", 's')],
        doc: "the forward slice of every error site",
        rows: |facts, a, _, out| {
            out.extend(a.slice(&targets(facts), Direction::Forward).into_iter().map(s))
        },
    },
    Builtin {
        name: "abs_node",
        rule_set: "abstract-system",
        columns: &[("stmt", 's'), ("role", 's')],
        doc: "a location of the abstract system of every error site, with its role (target, thread_start, call_site, start, branch, guard, successor, definition, acquire, release)",
        rows: |facts, a, sy, out| {
            for (&st, roles) in &a.abstract_system(facts, &targets(facts)).nodes {
                for r in roles {
                    out.extend([s(st), sy.intern(r.key())]);
                }
            }
        },
    },
    Builtin {
        name: "abs_edge",
        rule_set: "abstract-system",
        columns: &[("from", 's'), ("to", 's'), ("kind", 's')],
        doc: "an edge of the abstract system of every error site: flow (a CFG path with no other location on it) or call",
        rows: |facts, a, sy, out| {
            for (x, y, k) in a.abstract_system(facts, &targets(facts)).edges {
                out.extend([s(x), s(y), sy.intern(k.key())]);
            }
        },
    },
    Builtin {
        name: "desired",
        rule_set: "abstract-system",
        columns: &[("branch", 's'), ("successor", 's')],
        doc: "the successor a branch of the abstract system must take toward the error sites",
        rows: |facts, a, _, out| {
            for (x, y) in a.abstract_system(facts, &targets(facts)).desired {
                out.extend([s(x), s(y)]);
            }
        },
    },
    Builtin {
        name: "held",
        rule_set: "races",
        columns: &[("stmt", 's'), ("lock", 's'), ("offset", 'n')],
        doc: "lock (a mutex cell, or (\"atomic\", 0) for atomic sections) is held at stmt on every path",
        rows: |facts, a, sy, out| {
            let ls = crate::races::locksets(facts, &a.points_to, &a.call_graph);
            for (&st, locks) in &ls.held {
                for &l in locks {
                    out.push(s(st));
                    lock(out, sy, l);
                }
            }
        },
    },
    Builtin {
        name: "maybe_held",
        rule_set: "races",
        columns: &[("stmt", 's'), ("lock", 's'), ("offset", 'n')],
        doc: "lock (a mutex cell, or (\"atomic\", 0)) is held at stmt on some path (lock order)",
        rows: |facts, a, sy, out| {
            let ls = crate::races::locksets(facts, &a.points_to, &a.call_graph);
            for (&st, locks) in &ls.maybe_held {
                for &l in locks {
                    out.push(s(st));
                    lock(out, sy, l);
                }
            }
        },
    },
    Builtin {
        name: "acquire",
        rule_set: "races",
        columns: &[("stmt", 's'), ("lock", 's'), ("offset", 'n')],
        doc: "stmt certainly acquires lock (its operand points to that one mutex cell)",
        rows: |facts, a, sy, out| {
            let ls = crate::races::locksets(facts, &a.points_to, &a.call_graph);
            for &(st, l) in &ls.acquires {
                out.push(s(st));
                lock(out, sy, l);
            }
        },
    },
    Builtin {
        name: "race",
        rule_set: "races",
        columns: &[("first", 's'), ("second", 's'), ("obj", 's'), ("offset", 'n')],
        doc: "a data race: two conflicting accesses of a cell that may run in parallel with no common lock",
        rows: |facts, a, _, out| {
            for r in &races(facts, a).races {
                out.extend([s(r.first), s(r.second)]);
                cell(out, r.cell);
            }
        },
    },
    Builtin {
        name: "deadlock",
        rule_set: "lock-order",
        columns: &[("first", 's'), ("second", 's')],
        doc: "a lock-order inversion: each site takes a lock the other holds, in parallel",
        rows: |facts, a, _, out| {
            let r = races(facts, a);
            let order = crate::lock_order::run(&r.locksets, &a.call_graph, &a.happens_before);
            for inv in &order.inversions {
                out.extend([s(inv.first), s(inv.second)]);
            }
        },
    },
    Builtin {
        name: "entry",
        rule_set: "must-reach",
        columns: &[("func", 's')],
        doc: "the default context's entry functions: every function some thread starts in",
        rows: |_, a, _, out| {
            let (entries, _) = crate::must_reach::default_context(&a.points_to);
            out.extend(entries.into_iter().map(f));
        },
    },
    Builtin {
        name: "create_site",
        rule_set: "must-reach",
        columns: &[("stmt", 's')],
        doc: "the default context's creation sites: every thread creation site",
        rows: |_, a, _, out| {
            let (_, sites) = crate::must_reach::default_context(&a.points_to);
            out.extend(sites.into_iter().map(s));
        },
    },
    Builtin {
        name: "must_reach_store",
        rule_set: "must-reach",
        columns: &[("stmt", 's'), ("obj", 's'), ("offset", 'n')],
        doc: "a store of main whose value the cell holds at the default context",
        rows: |facts, a, _, out| {
            for (st, ob, k) in must_reach_default(facts, a).stores {
                out.extend([s(st), o(ob), k]);
            }
        },
    },
    Builtin {
        name: "must_reach_init",
        rule_set: "must-reach",
        columns: &[("obj", 's')],
        doc: "a global that still holds its static initializer at the default context",
        rows: |facts, a, _, out| {
            out.extend(must_reach_default(facts, a).initialized.into_iter().map(o));
        },
    },
];

fn must_reach_default(facts: &Facts, a: &Analysis) -> crate::must_reach::MustReach {
    let (entries, sites) = crate::must_reach::default_context(&a.points_to);
    crate::must_reach::run(facts, &a.points_to, &entries, &sites)
}

fn races(facts: &Facts, a: &Analysis) -> crate::races::Races {
    crate::races::run(&crate::races::Inputs {
        facts,
        points_to: &a.points_to,
        call_graph: &a.call_graph,
        data: &a.data,
        happens_before: &a.happens_before,
    })
}

pub fn find(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}
