//! The formula Φ_PO ∧ Φ_VD ∧ Φ_PI ∧ ¬Φ_PRP of a trace program over order variables
//! (paper §4.2), with the context bound of §5: within a thread `HB` is `≤`, across
//! threads `<`, so `O(e)` counts the context switches before `e`; the bound is
//! `O_end ≤ K` behind a tracked literal, so an unsat core without it lifts the answer
//! to every bound (§5.3).
//!
//! The property is checked on the prefix of the interleaving up to the failure (the
//! run stops there): `O_end` is the order of the event during whose step the failure
//! happens; every event of another thread ordered before it must run (its path
//! condition holds), which keeps the predicted prefix a feasible linearization. An
//! event runs (`ran{e}`) when it is ordered before `O_end`, or is in the failing
//! thread's segment up to the failing step; only running events are constrained by
//! their guards, π-functions and sections (what a later read would read is never read).
//!
//! Size: a π-function takes O(writes) constraints (an order variable for its source;
//! every write of another thread than the source's is before it or after the read),
//! mutual exclusion is pairwise disjoint critical sections of running acquisitions
//! (no π-function for lock reads), and threads outside the active set are idle by an
//! assumption, with only their linear constraints encoded (see [`encode`]).

use super::ctp::{Access, Cell, Ctp, Sym};
use crate::concrete::RecordedValue;
use rustc_hash::FxHashMap;
use std::time::Instant;
use z3::ast::{Bool, Int, BV};

/// The formula of one trace program, asserted in a solver.
pub struct Encoding {
    pub solver: z3::Solver,
    pub order: Vec<Int>,
    pub end: Int,
    /// Which property the model violates.
    pub chosen: Vec<Bool>,
    /// Per thread, the assumption that none of its events runs in the prefix: the
    /// search starts with most threads idle and releases those an unsat core names.
    pub idle: Vec<Bool>,
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
/// access (`Ctp::initial`), else zero.
fn initial(ctp: &Ctp, cell: Cell) -> DefValue {
    match ctp
        .initial
        .get(&cell)
        .copied()
        .unwrap_or(RecordedValue::Int(0))
    {
        RecordedValue::Int(bits) => DefValue::Term(BV::from_u64(bits, 64)),
        other => DefValue::Observed(other),
    }
}

/// The formula of `ctp` where only the threads marked `active` may run events: the
/// others are assumed idle (`Encoding::idle`), their events are kept with their linear
/// constraints (order, creation, join, guards), and a read that could read one of their
/// writes gets one choice per idle writer thread that is possible only when that thread
/// is not idle, so an unsat core names the threads worth releasing. The superlinear
/// parts (π-functions, lock and atomic sections) cover the active threads only.
///
/// `None` when `deadline` passes while the formula is built (checked per read's
/// π-function and per section pair list).
pub fn encode(ctp: &Ctp, active: &[bool], deadline: Option<Instant>) -> Option<Encoding> {
    let expired = || deadline.is_some_and(|d| Instant::now() >= d);
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
    let end = Int::new_const("O_end");
    let chosen: Vec<Bool> = (0..ctp.properties.len())
        .map(|k| Bool::new_const(format!("violate{k}")))
        .collect();
    // `ran{e}` names whether the event runs, so an idle thread's constraints are
    // switched off by Boolean propagation.
    let ran: Vec<Bool> = (0..n)
        .map(|e| {
            let name = Bool::new_const(format!("ran{e}"));
            solver.assert(name.eq(ran(ctp, &order, &end, &chosen, e)));
            name
        })
        .collect();
    let idle: Vec<Bool> = (0..ctp.by_thread.len())
        .map(|t| Bool::new_const(format!("idle{t}")))
        .collect();
    for (events, idle) in ctp.by_thread.iter().zip(&idle) {
        for &e in events {
            solver.assert(idle.implies(ran[e].not()));
        }
    }
    // Φ_PI: one π-function per read that runs (a lock's read is its critical section).
    let defs = definitions(ctp);
    for (r, e) in ctp.events.iter().enumerate() {
        if !active[e.thread as usize] {
            continue;
        }
        if expired() {
            return None;
        }
        let (cell, read) = match &e.access {
            Access::Read { cell, value } => {
                let read = match &value.term {
                    Some(t) => ReadValue::Term(t.clone()),
                    None => ReadValue::Observed(value.observed),
                };
                (*cell, read)
            }
            Access::TryFail { cell, read } => (*cell, ReadValue::Term(read.clone())),
            _ => continue,
        };
        let writes = defs.get(&cell).map_or(&[][..], |v| &v[..]);
        let pi = Pi {
            ctp,
            order: &order,
            read: r,
            value: &read,
            cell,
            active,
            idle: &idle,
        };
        solver.assert(ran[r].implies(pi.encode(writes, &solver)));
    }
    lock_sections(ctp, active, &order, &ran, &solver, &expired)?;
    // Atomic sections exclude every event of another thread.
    atomic_sections(ctp, active, &order, &ran, &solver, &expired)?;
    // ¬Φ_PRP on the prefix up to the failure.
    for (p, sel) in ctp.properties.iter().zip(&chosen) {
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
    }
    let refs: Vec<&Bool> = chosen.iter().collect();
    solver.assert(Bool::or(&refs));
    for (i, e) in ctp.events.iter().enumerate() {
        solver.assert(ran[i].implies(&e.guard));
    }
    Some(Encoding {
        solver,
        order,
        end,
        chosen,
        idle,
    })
}

/// The π-function of one read: which write (or the initial value) it reads, in
/// O(writes) constraints rather than the quadratic "every other write is before the
/// source or after the read" of each candidate: `src` is the order of the chosen
/// source; a write of another thread than the source's is before `src` or after the
/// read, and the source's own next write to the cell comes after the read.
struct Pi<'a> {
    ctp: &'a Ctp,
    order: &'a [Int],
    read: usize,
    value: &'a ReadValue,
    cell: Cell,
    active: &'a [bool],
    idle: &'a [Bool],
}

impl Pi<'_> {
    fn thread(&self, e: usize) -> u32 {
        self.ctp.events[e].thread
    }

    /// The read's choice of source, with its side constraints asserted in `solver`
    /// behind the source's selector (they are vacuous when the read does not run).
    fn encode(&self, writes: &[Def], solver: &z3::Solver) -> Bool {
        let (ctp, order, r) = (self.ctp, self.order, self.read);
        let reader = self.thread(r);
        let r_pos = position(ctp, r);
        let src = Int::new_const(format!("src{r}"));
        let mut choices: Vec<Bool> = Vec::new();
        let mut by_thread: FxHashMap<u32, Vec<Bool>> = FxHashMap::default();
        // The reading thread's last write before the read.
        let own = writes
            .iter()
            .rposition(|d| self.thread(d.event) == reader && position(ctp, d.event) < r_pos);
        let mut idle_writers: Vec<u32> = Vec::new();
        for (i, d) in writes.iter().enumerate() {
            let writer = self.thread(d.event);
            if writer == reader && Some(i) != own {
                continue;
            }
            if !self.active[writer as usize] {
                if !idle_writers.contains(&writer) {
                    idle_writers.push(writer);
                }
                continue;
            }
            let x = Bool::new_const(format!("rf{r}_{}", d.event));
            let mut parts = vec![
                src.eq(&order[d.event]),
                equal(self.value, &d.value),
                ctp.events[d.event].guard.clone(),
            ];
            if writer != reader {
                parts.push(order[d.event].lt(&order[r]));
                // The writer's next write to the cell comes after the read.
                if let Some(next) = writes[i + 1..]
                    .iter()
                    .find(|n| self.thread(n.event) == writer)
                {
                    parts.push(order[r].lt(&order[next.event]));
                }
            }
            let refs: Vec<&Bool> = parts.iter().collect();
            solver.assert(x.implies(Bool::and(&refs)));
            by_thread.entry(writer).or_default().push(x.clone());
            choices.push(x);
        }
        if own.is_none() {
            let x = Bool::new_const(format!("rf{r}_init"));
            let init = initial(ctp, self.cell);
            solver.assert(x.implies(Bool::and(&[
                &src.eq(Int::from_i64(-1)),
                &equal(self.value, &init),
            ])));
            choices.push(x);
        }
        // Reading an idle thread's write needs that thread released.
        for t in idle_writers {
            let x = Bool::new_const(format!("rf{r}_idle{t}"));
            solver.assert(x.implies(self.idle[t as usize].not()));
            choices.push(x);
        }
        // No write of another thread than the source's between the source and the read
        // (the reading thread's own earlier writes are before its last one; an idle
        // thread's writes do not run).
        let mut parts = Vec::new();
        for (i, d) in writes.iter().enumerate() {
            let writer = self.thread(d.event);
            if (writer == reader && Some(i) != own) || !self.active[writer as usize] {
                continue;
            }
            let from_its_thread = by_thread
                .get(&writer)
                .map(|xs| Bool::or(&xs.iter().collect::<Vec<_>>()))
                .unwrap_or_else(|| Bool::from_bool(false));
            let after = if writer == reader {
                Bool::from_bool(false)
            } else {
                order[r].lt(&order[d.event])
            };
            parts.push(Bool::or(&[
                &from_its_thread,
                &order[d.event].lt(&src),
                &after,
            ]));
        }
        let refs: Vec<&Bool> = choices.iter().collect();
        parts.push(Bool::or(&refs));
        let refs: Vec<&Bool> = parts.iter().collect();
        Bool::and(&refs)
    }
}

/// One acquisition of a mutex and its release (`None`: held to the end of the trace).
struct Section {
    thread: u32,
    lock: usize,
    unlock: Option<usize>,
}

/// Mutual exclusion as disjoint critical sections: for two running acquisitions of one
/// mutex in different threads, one section ends before the other begins. Quadratic in
/// the sections of a mutex, with two order atoms each, where a π-function per lock read
/// was cubic in its lock and unlock events.
fn lock_sections(
    ctp: &Ctp,
    active: &[bool],
    order: &[Int],
    ran: &[Bool],
    solver: &z3::Solver,
    expired: &dyn Fn() -> bool,
) -> Option<()> {
    let mut sections: FxHashMap<Cell, Vec<Section>> = FxHashMap::default();
    for (t, events) in ctp.by_thread.iter().enumerate() {
        if !active[t] {
            continue;
        }
        let mut open: FxHashMap<Cell, usize> = FxHashMap::default();
        for &e in events {
            match &ctp.events[e].access {
                Access::Lock { cell, .. } => {
                    let list = sections.entry(*cell).or_default();
                    open.insert(*cell, list.len());
                    list.push(Section {
                        thread: t as u32,
                        lock: e,
                        unlock: None,
                    });
                }
                Access::Unlock { cell } => {
                    if let Some(i) = open.remove(cell) {
                        if let Some(s) = sections.get_mut(cell).and_then(|l| l.get_mut(i)) {
                            s.unlock = Some(e);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    let before = |a: &Section, b: &Section| match a.unlock {
        Some(u) => order[u].lt(&order[b.lock]),
        None => Bool::from_bool(false),
    };
    for list in sections.values() {
        for (i, a) in list.iter().enumerate() {
            if expired() {
                return None;
            }
            for b in &list[i + 1..] {
                if a.thread == b.thread {
                    continue;
                }
                let both = Bool::and(&[&ran[a.lock], &ran[b.lock]]);
                solver.assert(both.implies(Bool::or(&[&before(a, b), &before(b, a)])));
            }
        }
    }
    Some(())
}

/// Whether event `e` runs in the predicted prefix: it is ordered before the failing
/// step, or it is an event of the failing thread up to that step (its segment shares
/// the step's order value). Events that do not run constrain nothing: the run stops at
/// the failure, so what they would read is never read.
fn ran(ctp: &Ctp, order: &[Int], end: &Int, chosen: &[Bool], e: usize) -> Bool {
    let event = &ctp.events[e];
    let mut cases = vec![order[e].lt(end)];
    for (p, sel) in ctp.properties.iter().zip(chosen) {
        if let Some(s) = p.step_of {
            if ctp.events[s].thread == event.thread && position(ctp, e) <= position(ctp, s) {
                cases.push(sel.clone());
            }
        }
    }
    let refs: Vec<&Bool> = cases.iter().collect();
    Bool::or(&refs)
}

/// An atomic section that runs keeps every other thread's running event outside it.
fn atomic_sections(
    ctp: &Ctp,
    active: &[bool],
    order: &[Int],
    ran: &[Bool],
    solver: &z3::Solver,
    expired: &dyn Fn() -> bool,
) -> Option<()> {
    for (t, events) in ctp.by_thread.iter().enumerate() {
        if !active[t] {
            continue;
        }
        let mut begin = None;
        for &e in events {
            let ev = &ctp.events[e];
            if ev.atomic_begin && begin.is_none() {
                begin = Some(e);
            }
            let close = ev.atomic_end || Some(&e) == events.last();
            if let (Some(b), true) = (begin, close && ev.atomic_end) {
                if expired() {
                    return None;
                }
                for (x, other) in ctp.events.iter().enumerate() {
                    if other.thread != ev.thread && active[other.thread as usize] {
                        let both = Bool::and(&[&ran[x], &ran[b]]);
                        solver.assert(both.implies(Bool::or(&[
                            &order[x].lt(&order[b]),
                            &order[x].gt(&order[e]),
                        ])));
                    }
                }
                begin = None;
            }
        }
    }
    Some(())
}
