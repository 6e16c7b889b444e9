//! Locksets and data races: two accesses of a common memory cell, at least one a write,
//! that may happen in parallel and hold no common lock.
//!
//! ```c
//! void *t(void *a) { lock(&m); x++; unlock(&m); y++; }   // x: protected; y: a race
//! ```
//!
//! Locksets are a *must* analysis: `held(s, l)` when lock `l` is held on every path to
//! `s`, in every thread and calling context. It is computed as its complement, `unheld`
//! (some path reaches `s` without `l`), which only ever grows — so the rules stay monotone
//! and negation is stratified. A lock is a mutex cell (an acquire counts only when its
//! operand points to exactly one cell) or the atomic pseudo-lock of
//! `__VERIFIER_atomic_*` bodies and `__VERIFIER_atomic_begin/end`. A call may release
//! every lock its callee (transitively) may release; it acquires nothing (lock wrappers
//! are missed: fewer locks held, more warnings, never fewer).
//!
//! Facts: `stmt_func`, `reachable`, `cfg_edge`, `func_entry`, `lock`, `unlock`,
//! `atomic_begin`, `atomic_end`, `atomic_func`, `load`, `store`, `addr_of`, `stack_obj`,
//! `thread_local_obj`; from earlier rule sets: `pt`, `call_edge`, `thread_entry`,
//! `read_cell`, `write_cell`, and may-happen-in-parallel ([`HappensBefore`]).
//!
//! Rules:
//! ```text
//! acquire(s, l)      ← lock(s, v), pt(v) = {c}, c exact           l = mutex c
//! acquire(s, atomic) ← atomic_begin(s)
//! release(s, l)      ← unlock(s, v), pt(v, c), lock_obj(l), l ⊓ c  (may)
//! release(s, atomic) ← atomic_end(s)
//! frees(f, l)        ← release(s, l), stmt_func(s, f)
//! frees(f, l)        ← call_edge(k, g), stmt_func(k, f), frees(g, l)
//! unheld(e, l)       ← func_entry(f, e), thread_entry(f), lock_obj(l), ¬atomic_body(f, l)
//! unheld(e, l)       ← func_entry(f, e), ¬called(f), lock_obj(l), ¬atomic_body(f, l)
//! unheld(e, l)       ← func_entry(f, e), call_edge(k, f), unheld(k, l), ¬atomic_body(f, l)
//! unheld_out(s, l)   ← unheld(s, l), ¬acquire(s, l)
//! unheld_out(s, l)   ← release(s, l)
//! unheld_out(k, l)   ← call_edge(k, g), frees(g, l)
//! unheld(t, l)       ← cfg_edge(s, t), unheld_out(s, l)
//! held(s, l)         ← reachable(s), lock_obj(l), ¬unheld(s, l)
//! maybe_held(e, l)   ← func_entry(f, e), atomic_body(f, l)
//! maybe_held(e, l)   ← func_entry(f, e), call_edge(k, f), maybe_held(k, l)
//! maybe_out(s, l)    ← acquire(s, l)
//! maybe_out(s, l)    ← maybe_held(s, l), ¬release(s, l), ¬(call_edge(s, g), frees(g, l))
//! maybe_held(t, l)   ← cfg_edge(s, t), maybe_out(s, l), reachable(t)
//! access(s, c, w)    ← load(s, _, _), read_cell(s, c)    (w = false)
//! access(s, c, w)    ← store(s, _, _), write_cell(s, c)  (w = true)
//! own(s, o)          ← the address operand of s is &o, o a stack slot of s's function
//! conflict(a, b, c)  ← access(a, c, w), access(b, c', w'), c ⊓ c', w ∨ w', a ≤ b,
//!                      ¬(own(a, o) ∧ own(b, o)), ¬thread_local(o)
//! guarded(a, b)      ← conflict(a, b, _), held(a, l), held(b, l)
//! race(a, b)         ← conflict(a, b, _), ¬guarded(a, b), mhp(a, b)
//! ```
//! `maybe_held` (some path reaches `s` holding `l`) is for lock order only, where a lock
//! taken while another is held on one branch counts.
//! `atomic_body(f, atomic)` holds for a `__VERIFIER_atomic_*` function (its body runs
//! under the atomic lock); `c ⊓ c'`: the cells may overlap. Two accesses of a stack slot
//! through its own address constant touch the slot of their own activation, never another
//! thread's. `mhp` is [`HappensBefore::may_happen_in_parallel`] (threads that may run both
//! functions, minus the pairs ordered by creation, join and program order).
//!
//! The same rules in Datalog, the readable specification beside the math above:
//! `rules/dl/races.dl` (may-happen-in-parallel in `rules/dl/lib/mhp.dl`), interpreted by
//! [`crate::dl`] and equal to this program on every fixture and corpus program
//! (`rules/tests/dl_differential.rs`).

use crate::call_graph::CallGraph;
use crate::data_dep::DataDeps;
use crate::happens_before::HappensBefore;
use crate::points_to::{sorted, Cell, PointsTo};
use analysis::facts::{Facts, FuncId, Obj, StmtId, ANY_OFFSET};
use ascent::ascent;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// A lock: a mutex cell, or the atomic pseudo-lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub enum Lock {
    Mutex(Obj, i64),
    Atomic,
}

/// The result of the lockset rules: the locks held at each statement.
#[derive(Clone, Debug, Default)]
pub struct Locksets {
    /// `held(s, l)`: `l` is held at `s` (before it runs) on every path.
    pub held: BTreeMap<StmtId, BTreeSet<Lock>>,
    /// `acquire(s, l)`: `s` certainly acquires `l`.
    pub acquires: Vec<(StmtId, Lock)>,
    /// `maybe_held(s, l)`: `l` is held at `s` on some path (lock order counts a lock
    /// taken in a branch).
    pub maybe_held: BTreeMap<StmtId, BTreeSet<Lock>>,
}

impl Locksets {
    pub fn held_at(&self, s: StmtId) -> impl Iterator<Item = Lock> + '_ {
        self.held.get(&s).into_iter().flatten().copied()
    }

    pub fn sizes(&self) -> Vec<(&'static str, usize)> {
        vec![
            ("held", self.held.values().map(BTreeSet::len).sum()),
            ("acquire", self.acquires.len()),
        ]
    }
}

/// A data race: two conflicting accesses that may run in parallel with no common lock.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct Race {
    /// `first <= second`; equal when one statement races with itself in two threads.
    pub first: StmtId,
    pub second: StmtId,
    /// A cell both access.
    pub cell: Cell,
    pub first_writes: bool,
    pub second_writes: bool,
}

/// The result of the race rules.
#[derive(Clone, Debug, Default)]
pub struct Races {
    pub locksets: Locksets,
    /// Conflicting pairs before the lockset and parallelism filters.
    pub conflicts: usize,
    /// Pairs dropped because a common lock guards both accesses.
    pub guarded: usize,
    /// Pairs dropped because they cannot run in parallel.
    pub ordered: usize,
    pub races: Vec<Race>,
}

impl Races {
    pub fn sizes(&self) -> Vec<(&'static str, usize)> {
        let mut v = self.locksets.sizes();
        v.extend([
            ("conflict", self.conflicts),
            ("guarded", self.guarded),
            ("ordered", self.ordered),
            ("race", self.races.len()),
        ]);
        v
    }
}

ascent! {
    struct LocksetProgram;
    relation reachable(StmtId);
    relation stmt_func(StmtId, FuncId);
    relation cfg_edge(StmtId, StmtId);
    relation func_entry(FuncId, StmtId);
    relation thread_entry(FuncId);
    relation call_edge(StmtId, FuncId);
    relation acquire(StmtId, Lock);
    relation release(StmtId, Lock);
    relation atomic_func(FuncId);

    relation lock_obj(Lock);
    relation called(FuncId);
    relation atomic_body(FuncId, Lock);
    relation frees(FuncId, Lock);
    relation unheld(StmtId, Lock);
    relation unheld_out(StmtId, Lock);
    relation held(StmtId, Lock);
    relation call_frees(StmtId, Lock);
    relation maybe_held(StmtId, Lock);
    relation maybe_held_out(StmtId, Lock);

    lock_obj(l) <-- acquire(_, l);
    called(f) <-- call_edge(_, f);
    atomic_body(f, Lock::Atomic) <-- atomic_func(f);
    frees(f, l) <-- release(s, l), stmt_func(s, f);
    frees(f, l) <-- call_edge(k, g), stmt_func(k, f), frees(g, l);

    unheld(e, l) <-- func_entry(f, e), thread_entry(f), lock_obj(l), !atomic_body(f, l);
    unheld(e, l) <-- func_entry(f, e), !called(f), lock_obj(l), !atomic_body(f, l);
    unheld(e, l) <-- func_entry(f, e), call_edge(k, f), unheld(k, l), !atomic_body(f, l);
    unheld_out(s, l) <-- unheld(s, l), !acquire(s, l);
    unheld_out(s, l) <-- release(s, l), lock_obj(l);
    unheld_out(k, l) <-- call_edge(k, g), frees(g, l), lock_obj(l);
    unheld(t, l) <-- cfg_edge(s, t), unheld_out(s, l);
    held(s, l) <-- reachable(s), lock_obj(l), !unheld(s, l);

    call_frees(k, l) <-- call_edge(k, g), frees(g, l);
    maybe_held(e, l) <-- func_entry(f, e), atomic_body(f, l);
    maybe_held(e, l) <-- func_entry(f, e), call_edge(k, f), maybe_held(k, l);
    maybe_held_out(s, l) <-- acquire(s, l);
    maybe_held_out(s, l) <-- maybe_held(s, l), !release(s, l), !call_frees(s, l);
    maybe_held(t, l) <-- cfg_edge(s, t), maybe_held_out(s, l), reachable(t);
}

ascent! {
    struct RaceProgram;
    relation access(StmtId, Obj, i64, bool);
    relation own(StmtId, Obj);
    relation thread_local(Obj);
    relation held(StmtId, Lock);

    relation conflict(StmtId, StmtId, Obj, i64);
    relation guarded(StmtId, StmtId);
    relation candidate(StmtId, StmtId, Obj, i64);

    conflict(a, b, o, k) <--
        access(a, o, k, wa), access(b, o, j, wb),
        if a <= b && (*wa || *wb) && (k == j || *k == ANY_OFFSET || *j == ANY_OFFSET),
        !thread_local(o), !own(a, o);
    conflict(a, b, o, k) <--
        access(a, o, k, wa), access(b, o, j, wb),
        if a <= b && (*wa || *wb) && (k == j || *k == ANY_OFFSET || *j == ANY_OFFSET),
        !thread_local(o), !own(b, o);
    guarded(a, b) <-- conflict(a, b, _, _), held(a, l), held(b, l);
    candidate(a, b, o, k) <-- conflict(a, b, o, k), !guarded(a, b);
}

/// The earlier results the race rules read.
pub struct Inputs<'a> {
    pub facts: &'a Facts,
    pub points_to: &'a PointsTo,
    pub call_graph: &'a CallGraph,
    pub data: &'a DataDeps,
    pub happens_before: &'a HappensBefore,
}

/// Must-held locks at every statement.
pub fn locksets(facts: &Facts, pts: &PointsTo, cg: &CallGraph) -> Locksets {
    let mut p = LocksetProgram::default();
    p.reachable = facts.reachable.clone();
    p.stmt_func = facts.stmt_func.clone();
    p.cfg_edge = facts.cfg_edge.clone();
    p.func_entry = facts.func_entry.clone();
    p.thread_entry = cg.thread_entries.iter().map(|&f| (f,)).collect();
    p.call_edge = cg.call_edges.clone();
    p.atomic_func = facts.atomic_func.clone();
    let mut acquires: Vec<(StmtId, Lock)> = Vec::new();
    for &(s, v) in &facts.lock {
        if let [c] = pts.of(v) {
            if c.offset != ANY_OFFSET {
                acquires.push((s, Lock::Mutex(c.obj, c.offset)));
            }
        }
    }
    acquires.extend(facts.atomic_begin.iter().map(|&(s,)| (s, Lock::Atomic)));
    let locks: BTreeSet<Lock> = acquires.iter().map(|a| a.1).collect();
    let mut releases: Vec<(StmtId, Lock)> = Vec::new();
    for &(s, v) in &facts.unlock {
        for c in pts.of(v) {
            for &l in &locks {
                if let Lock::Mutex(o, k) = l {
                    if c.overlaps(Cell { obj: o, offset: k }) {
                        releases.push((s, l));
                    }
                }
            }
        }
    }
    releases.extend(facts.atomic_end.iter().map(|&(s,)| (s, Lock::Atomic)));
    p.acquire = acquires.clone();
    p.release = releases;
    p.run();
    Locksets {
        held: by_stmt(p.held),
        acquires: sorted(acquires),
        maybe_held: by_stmt(p.maybe_held),
    }
}

fn by_stmt(pairs: Vec<(StmtId, Lock)>) -> BTreeMap<StmtId, BTreeSet<Lock>> {
    let mut m: BTreeMap<StmtId, BTreeSet<Lock>> = BTreeMap::new();
    for (s, l) in pairs {
        m.entry(s).or_default().insert(l);
    }
    m
}

/// Data races of a program.
pub fn run(inputs: &Inputs<'_>) -> Races {
    let Inputs {
        facts,
        points_to,
        call_graph,
        data,
        happens_before,
    } = *inputs;
    let locksets = locksets(facts, points_to, call_graph);
    let mut p = RaceProgram::default();
    let loads: HashSet<StmtId> = facts.load.iter().map(|l| l.0).collect();
    let stores: HashSet<StmtId> = facts.store.iter().map(|s| s.0).collect();
    p.access = data
        .read_cells
        .iter()
        .filter(|c| loads.contains(&c.0))
        .map(|&(s, o, k)| (s, o, k, false))
        .chain(
            data.write_cells
                .iter()
                .filter(|c| stores.contains(&c.0))
                .map(|&(s, o, k)| (s, o, k, true)),
        )
        .collect();
    p.own = own_slot_accesses(facts);
    p.thread_local = facts.thread_local_obj.clone();
    p.held = locksets
        .held
        .iter()
        .flat_map(|(&s, ls)| ls.iter().map(move |&l| (s, l)))
        .collect();
    p.run();
    let conflicts: BTreeSet<(StmtId, StmtId)> = p.conflict.iter().map(|c| (c.0, c.1)).collect();
    let writes: HashSet<StmtId> = stores;
    let mut races = Vec::new();
    let mut ordered = BTreeSet::new();
    let mut seen = BTreeSet::new();
    for &(a, b, o, k) in &sorted(p.candidate) {
        if !seen.insert((a, b)) {
            continue;
        }
        if !happens_before.may_happen_in_parallel(call_graph, a, b) {
            ordered.insert((a, b));
            continue;
        }
        races.push(Race {
            first: a,
            second: b,
            cell: Cell { obj: o, offset: k },
            first_writes: writes.contains(&a),
            second_writes: writes.contains(&b),
        });
    }
    Races {
        locksets,
        conflicts: conflicts.len(),
        guarded: p.guarded.len(),
        ordered: ordered.len(),
        races,
    }
}

/// `own(s, o)`: `s` loads or stores through the address constant of a stack slot `o` of
/// its own function (so it touches its own activation's slot).
fn own_slot_accesses(facts: &Facts) -> Vec<(StmtId, Obj)> {
    let func_of: std::collections::HashMap<StmtId, FuncId> =
        facts.stmt_func.iter().copied().collect();
    let slot_of: std::collections::HashMap<Obj, FuncId> = facts.stack_obj.iter().copied().collect();
    let mut addr_objs: std::collections::HashMap<analysis::facts::Var, Vec<Obj>> =
        Default::default();
    for &(v, o, _) in &facts.addr_of {
        addr_objs.entry(v).or_default().push(o);
    }
    let through = facts
        .load
        .iter()
        .map(|&(s, _, a)| (s, a))
        .chain(facts.store.iter().map(|&(s, a, _)| (s, a)));
    let mut out = Vec::new();
    for (s, addr) in through {
        for &o in addr_objs.get(&addr).into_iter().flatten() {
            if slot_of.get(&o).is_some_and(|f| Some(f) == func_of.get(&s)) {
                out.push((s, o));
            }
        }
    }
    sorted(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::Analysis;
    use std::path::PathBuf;

    /// The facts and analysis of a fixture (`fixtures/NAME`).
    pub(crate) fn fixture(name: &str) -> (Facts, Analysis) {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures")
            .join(name);
        let program =
            analysis::load_program(&path, &Default::default()).expect("the fixture lowers");
        let facts = analysis::facts::extract(&program);
        let analysis = Analysis::run(&facts);
        (facts, analysis)
    }

    pub(crate) fn line(facts: &Facts, s: StmtId) -> u32 {
        facts.stmt_lines()[s.index()]
            .expect("a located statement")
            .1
    }

    fn races_of(facts: &Facts, a: &Analysis) -> Races {
        run(&Inputs {
            facts,
            points_to: &a.points_to,
            call_graph: &a.call_graph,
            data: &a.data,
            happens_before: &a.happens_before,
        })
    }

    #[test]
    fn only_the_unlocked_unordered_accesses_race() {
        let (facts, a) = fixture("hunt/race_counter.c");
        let r = races_of(&facts, &a);
        let pairs: BTreeSet<(u32, u32)> = r
            .races
            .iter()
            .map(|x| (line(&facts, x.first), line(&facts, x.second)))
            .collect();
        // `hits` (25 read, 26 write); not `total` (23, under the lock), not `config`
        // (32, before both creations), not `result` (37, after both joins).
        assert_eq!(pairs, BTreeSet::from([(25, 26), (26, 26)]));
        assert!(r.guarded > 0, "the accesses of `total` are guarded");
        assert!(
            r.ordered > 0,
            "main's accesses are ordered by creation and join"
        );
    }

    #[test]
    fn locksets_hold_the_mutex_between_lock_and_unlock_only() {
        let (facts, a) = fixture("hunt/race_counter.c");
        let ls = locksets(&facts, &a.points_to, &a.call_graph);
        let held_on = |l: u32| {
            facts
                .stmt_line
                .iter()
                .filter(|&&(_, _, x)| x == l)
                .any(|&(s, _, _)| ls.held_at(s).next().is_some())
        };
        assert!(held_on(23), "total is updated under the lock");
        assert!(!held_on(26), "hits is updated after the unlock");
        assert!(!held_on(22), "nothing is held at the lock itself");
    }

    #[test]
    fn a_lock_taken_in_a_helper_is_not_seen_so_the_warning_stays() {
        let (facts, a) = fixture("hunt/race_refuted.c");
        let r = races_of(&facts, &a);
        assert!(r
            .races
            .iter()
            .any(|x| line(&facts, x.first) == 24 || line(&facts, x.second) == 24));
    }

    #[test]
    fn atomic_sections_guard_their_accesses() {
        // `x` and `calls` are only touched inside `__VERIFIER_atomic_*` bodies (or a
        // function they call) or between `__VERIFIER_atomic_begin/end`; only the
        // unprotected start flag races.
        for (name, start_flag) in [
            ("conc/atomic_functions.c", (26, 37)),
            ("conc/atomic_begin_end.c", (17, 30)),
        ] {
            let (facts, a) = fixture(name);
            let r = races_of(&facts, &a);
            let pairs: BTreeSet<(u32, u32)> = r
                .races
                .iter()
                .map(|x| (line(&facts, x.first), line(&facts, x.second)))
                .collect();
            assert_eq!(pairs, BTreeSet::from([start_flag]), "{name}");
        }
    }
}
