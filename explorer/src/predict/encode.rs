//! The formula Φ_PO ∧ Φ_VD ∧ Φ_PI ∧ ¬Φ_PRP of a trace program over order variables
//! (paper §4.2), with the context bound of §5: within a thread `HB` is `≤`, across
//! threads `<`, so `O(e)` counts the context switches before `e`; the bound is
//! `O_end ≤ K` behind a tracked literal, so an unsat core without it lifts the answer
//! to every bound (§5.3).
//!
//! The property is checked on the prefix of the interleaving up to the failure (the
//! run stops there): `O_end` is the order of the event during whose step the failure
//! happens; every event of another thread ordered before it must run (its path
//! condition holds), which keeps the predicted prefix a feasible linearization.

use super::ctp::{Access, Cell, Ctp, Sym};
use crate::concrete::RecordedValue;
use rustc_hash::FxHashMap;
use z3::ast::{Bool, Int, BV};

/// The formula of one trace program, asserted in a solver.
pub struct Encoding {
    pub solver: z3::Solver,
    pub order: Vec<Int>,
    pub end: Int,
    /// Which property the model violates.
    pub chosen: Vec<Bool>,
}

/// A write a read may read from: the event and the value written.
struct Def {
    event: usize,
    value: DefValue,
}

enum DefValue {
    Term(BV),
    Observed(RecordedValue),
}

fn hb(ctp: &Ctp, order: &[Int], a: usize, b: usize) -> Bool {
    let (ea, eb) = (&ctp.events[a], &ctp.events[b]);
    if ea.thread == eb.thread {
        let pa = position(ctp, a);
        let pb = position(ctp, b);
        Bool::from_bool(pa < pb)
    } else {
        order[a].lt(&order[b])
    }
}

fn position(ctp: &Ctp, e: usize) -> usize {
    let t = ctp.events[e].thread as usize;
    ctp.by_thread[t].binary_search(&e).unwrap_or(0)
}

/// The writes of each cell, as definitions.
fn definitions(ctp: &Ctp) -> FxHashMap<Cell, Vec<Def>> {
    let mut defs: FxHashMap<Cell, Vec<Def>> = FxHashMap::default();
    for (i, e) in ctp.events.iter().enumerate() {
        let (cell, value) = match &e.access {
            Access::Write { cell, value } => (*cell, sym_def(value)),
            Access::Lock { cell, .. } => (*cell, DefValue::Term(BV::from_u64(1, 8))),
            Access::Unlock { cell } => (*cell, DefValue::Term(BV::from_u64(0, 8))),
            _ => continue,
        };
        defs.entry(cell).or_default().push(Def { event: i, value });
    }
    defs
}

fn sym_def(s: &Sym) -> DefValue {
    match &s.term {
        Some(t) => DefValue::Term(t.clone()),
        None => DefValue::Observed(s.observed),
    }
}

/// `read = value` when the types agree; false when an integer meets a pointer or two
/// pointers differ (addresses stay as observed).
fn equal(read: &ReadValue, value: &DefValue) -> Bool {
    match (read, value) {
        (ReadValue::Term(r), DefValue::Term(v)) => {
            let w = r.get_size();
            let v = if v.get_size() == w {
                v.clone()
            } else if v.get_size() > w {
                v.extract(w - 1, 0)
            } else {
                v.zero_ext(w - v.get_size())
            };
            r.eq(&v)
        }
        (ReadValue::Observed(a), DefValue::Observed(b)) => Bool::from_bool(a == b),
        _ => Bool::from_bool(false),
    }
}

enum ReadValue {
    Term(BV),
    Observed(RecordedValue),
}

/// The initial value of a cell as a definition: as the run found it before its first
/// write, else as the first read saw it when no write came before, else zero.
fn initial(ctp: &Ctp, cell: Cell, read_observed: RecordedValue, read_is_first: bool) -> DefValue {
    let v = match ctp.initial.get(&cell) {
        Some(v) => *v,
        None if read_is_first => read_observed,
        None => RecordedValue::Int(0),
    };
    match v {
        RecordedValue::Int(bits) => DefValue::Term(BV::from_u64(bits, 64)),
        other => DefValue::Observed(other),
    }
}

pub fn encode(ctp: &Ctp) -> Encoding {
    let solver = z3::Solver::new();
    let n = ctp.events.len();
    let order: Vec<Int> = (0..n).map(|i| Int::new_const(format!("O{i}"))).collect();
    let zero = Int::from_i64(0);
    for o in &order {
        solver.assert(o.ge(&zero));
    }
    // Φ_PO: program order, thread creation and join.
    for events in &ctp.by_thread {
        for w in events.windows(2) {
            solver.assert(order[w[0]].le(&order[w[1]]));
        }
    }
    for (i, e) in ctp.events.iter().enumerate() {
        if let Some(child) = e.creates {
            if let Some(&first) = ctp.by_thread.get(child as usize).and_then(|v| v.first()) {
                solver.assert(order[i].lt(&order[first]));
            }
        }
        if let Some(child) = e.joins {
            if let Some(&last) = ctp.by_thread.get(child as usize).and_then(|v| v.last()) {
                solver.assert(order[last].lt(&order[i]));
            }
        }
    }
    // Pinned integers (Φ_VD's definitions are the terms themselves).
    for p in &ctp.pins {
        solver.assert(p);
    }
    // Φ_PI: one π-function per read.
    let defs = definitions(ctp);
    let mut observed_first: FxHashMap<Cell, usize> = FxHashMap::default();
    for (i, e) in ctp.events.iter().enumerate() {
        if let Access::Read { cell, .. }
        | Access::Lock { cell, .. }
        | Access::TryFail { cell, .. } = &e.access
        {
            observed_first.entry(*cell).or_insert(i);
        }
    }
    for (r, e) in ctp.events.iter().enumerate() {
        let (cell, read, observed) = match &e.access {
            Access::Read { cell, value } => {
                let read = match &value.term {
                    Some(t) => ReadValue::Term(t.clone()),
                    None => ReadValue::Observed(value.observed),
                };
                (*cell, read, value.observed)
            }
            Access::Lock { cell, read } | Access::TryFail { cell, read } => {
                (*cell, ReadValue::Term(read.clone()), RecordedValue::Int(0))
            }
            _ => continue,
        };
        let empty = Vec::new();
        let all = defs.get(&cell).unwrap_or(&empty);
        let r_pos = position(ctp, r);
        // The most recent write of the reading thread before the read, and every
        // write of the other threads.
        let own = all
            .iter()
            .rfind(|d| ctp.events[d.event].thread == e.thread && position(ctp, d.event) < r_pos);
        let candidates: Vec<&Def> = all
            .iter()
            .filter(|d| ctp.events[d.event].thread != e.thread)
            .chain(own)
            .collect();
        let mut choices: Vec<Bool> = Vec::new();
        for (i, d) in candidates.iter().enumerate() {
            let mut parts = vec![
                equal(&read, &d.value),
                ctp.events[d.event].guard.clone(),
                hb(ctp, &order, d.event, r),
            ];
            for (j, other) in candidates.iter().enumerate() {
                if i != j {
                    parts.push(Bool::or(&[
                        &hb(ctp, &order, other.event, d.event),
                        &hb(ctp, &order, r, other.event),
                    ]));
                }
            }
            let refs: Vec<&Bool> = parts.iter().collect();
            choices.push(Bool::and(&refs));
        }
        if own.is_none() {
            let first = observed_first.get(&cell) == Some(&r)
                && !all.iter().any(|d| position_before_in_run(ctp, d.event, r));
            let init = initial(ctp, cell, observed, first);
            let mut parts = vec![equal(&read, &init)];
            for other in &candidates {
                parts.push(hb(ctp, &order, r, other.event));
            }
            let refs: Vec<&Bool> = parts.iter().collect();
            choices.push(Bool::and(&refs));
        }
        let refs: Vec<&Bool> = choices.iter().collect();
        solver.assert(Bool::or(&refs));
    }
    // Atomic sections exclude every event of another thread.
    atomic_sections(ctp, &order, &solver);
    // ¬Φ_PRP on the prefix up to the failure.
    let end = Int::new_const("O_end");
    let mut chosen = Vec::new();
    for (k, p) in ctp.properties.iter().enumerate() {
        let sel = Bool::new_const(format!("violate{k}"));
        let mut parts = vec![p.violated.clone()];
        match p.step_of {
            Some(e) => {
                parts.push(end.eq(&order[e]));
                parts.push(ctp.events[e].guard.clone());
            }
            None => parts.push(end.eq(Int::from_i64(-1))),
        }
        let refs: Vec<&Bool> = parts.iter().collect();
        solver.assert(sel.implies(Bool::and(&refs)));
        chosen.push(sel);
    }
    let refs: Vec<&Bool> = chosen.iter().collect();
    solver.assert(Bool::or(&refs));
    for (i, e) in ctp.events.iter().enumerate() {
        solver.assert(order[i].lt(&end).implies(&e.guard));
    }
    Encoding {
        solver,
        order,
        end,
        chosen,
    }
}

/// Whether write `w` came before read `r` in the observed run (event ids follow the
/// threads, so the run's steps decide).
fn position_before_in_run(ctp: &Ctp, w: usize, r: usize) -> bool {
    ctp.events[w].step < ctp.events[r].step
}

fn atomic_sections(ctp: &Ctp, order: &[Int], solver: &z3::Solver) {
    for events in &ctp.by_thread {
        let mut begin = None;
        for &e in events {
            let ev = &ctp.events[e];
            if ev.atomic_begin && begin.is_none() {
                begin = Some(e);
            }
            let close = ev.atomic_end || Some(&e) == events.last();
            if let (Some(b), true) = (begin, close && ev.atomic_end) {
                for (x, other) in ctp.events.iter().enumerate() {
                    if other.thread != ev.thread {
                        solver.assert(Bool::or(&[
                            &order[x].lt(&order[b]),
                            &order[x].gt(&order[e]),
                        ]));
                    }
                }
                begin = None;
            }
        }
    }
}
