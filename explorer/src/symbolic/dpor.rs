//! Dynamic partial-order reduction (Flanagan and Godefroid, POPL 2005) with vector clocks
//! and sleep sets, over the scheduling nodes of the symbolic search.
//!
//! A *step* (one scheduling choice: a thread's visible event, its atomic section if it
//! opens one, and its local code up to the next visible event) is one DPOR transition. Its
//! footprint is the set of [`Access`]es it made. Two steps of different threads are
//! *dependent* when their footprints touch a common location and one of them writes it
//! (mutexes, conditions and thread ends count as written by every operation on them;
//! [`Loc::All`] — the end of the whole run, or an atomic section not yet executed — is
//! dependent with everything).
//!
//! Lock acquisitions race with each other, not with releases (an acquire and a release by
//! different threads are never enabled together), though every operation on a mutex
//! orders happens-before.
//!
//! Happens-before is the transitive closure of program order and the order of dependent
//! steps, kept as vector clocks: `clock[u] = i + 1` means step `i` of the current path (a
//! step of thread `u`) happens before. At every node, for each live thread `p` with a
//! pending event `next(p)`, the last step `i` of the path that is dependent with `next(p)`
//! and does not happen before it is a race: `p` goes into the backtrack set of the node
//! step `i` was taken from, or (if `p` was not enabled there) every thread enabled there.
//! Sleep sets: after exploring thread `t` from a node, `t` sleeps in the later siblings'
//! subtrees until a step dependent with its pending event runs.

mod index;

use super::names::{ObjInst, ThreadKey};
use super::state::Tid;
use analysis::ir::{Operand, SyncOp};
use index::StepIndex;
use std::collections::BTreeSet;

/// A location a step touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Loc {
    /// A memory cell (object, byte offset).
    Mem(ObjInst, u64),
    /// Any cell of an object (an access at a symbolic offset, or the object's death).
    Obj(ObjInst),
    Mutex(ObjInst, u64),
    Cond(ObjInst, u64),
    /// The end of a thread (written by its end, read by joins).
    Thread(ThreadKey),
    /// Everything: dependent with every step of every other thread.
    All,
}

impl Loc {
    /// Whether two locations may be the same memory: the same cell, or a cell and its
    /// object, or one object twice.
    pub fn same_memory(&self, other: &Loc) -> bool {
        match (*self, *other) {
            (Loc::Mem(o, i), Loc::Mem(p, j)) => o == p && i == j,
            (Loc::Mem(o, _) | Loc::Obj(o), Loc::Obj(p)) | (Loc::Obj(o), Loc::Mem(p, _)) => o == p,
            _ => false,
        }
    }
}

/// What a synchronization does, for race detection. A release enables the matching
/// acquire, so the two are ordered by happens-before but never race.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    Plain,
    /// Waits for a release: lock and re-acquire (of a mutex), join (of a thread's end),
    /// the wake-up of a condition wait (of a signal).
    Acquire,
    /// Enables an acquire: unlock and the start of a condition wait (of a mutex), a
    /// thread's end, signal and broadcast.
    Release,
}

/// The kind of synchronization object an operand of a [`SyncOp`] names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncObject {
    Mutex,
    Cond,
}

impl SyncObject {
    /// The object's location at `(obj, off)`.
    pub fn loc(self, obj: ObjInst, off: u64) -> Loc {
        match self {
            SyncObject::Mutex => Loc::Mutex(obj, off),
            SyncObject::Cond => Loc::Cond(obj, off),
        }
    }
}

/// The mutexes and conditions an operation names, in operand order, each with the role
/// of its access (the one table the engine's events, footprints and the static
/// reachability read): a lock acquires; an unlock, signal or broadcast releases; a
/// condition wait writes its condition (joining its queue) and releases its mutex (the
/// re-acquire is a later event); initialization, destruction and trylock write. Thread
/// creation, join and atomic sections name none.
pub fn sync_objects(op: &SyncOp) -> Vec<(&Operand, SyncObject, Role)> {
    use SyncObject::{Cond, Mutex};
    match op {
        SyncOp::MutexLock { mutex } => vec![(mutex, Mutex, Role::Acquire)],
        SyncOp::MutexUnlock { mutex } => vec![(mutex, Mutex, Role::Release)],
        SyncOp::MutexInit { mutex }
        | SyncOp::MutexTryLock { mutex }
        | SyncOp::MutexDestroy { mutex } => vec![(mutex, Mutex, Role::Plain)],
        SyncOp::CondSignal { cond } | SyncOp::CondBroadcast { cond } => {
            vec![(cond, Cond, Role::Release)]
        }
        SyncOp::CondInit { cond } | SyncOp::CondDestroy { cond } => vec![(cond, Cond, Role::Plain)],
        SyncOp::CondWait { cond, mutex } => {
            vec![(cond, Cond, Role::Plain), (mutex, Mutex, Role::Release)]
        }
        SyncOp::ThreadCreate { .. }
        | SyncOp::ThreadJoin { .. }
        | SyncOp::AtomicBegin
        | SyncOp::AtomicEnd => vec![],
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Access {
    pub loc: Loc,
    pub write: bool,
    pub role: Role,
}

impl Access {
    pub fn read(loc: Loc) -> Access {
        Access {
            loc,
            write: false,
            role: Role::Plain,
        }
    }
    pub fn write(loc: Loc) -> Access {
        Access {
            loc,
            write: true,
            role: Role::Plain,
        }
    }
    pub fn acquire(loc: Loc) -> Access {
        Access {
            loc,
            write: true,
            role: Role::Acquire,
        }
    }
    pub fn release(loc: Loc) -> Access {
        Access {
            loc,
            write: true,
            role: Role::Release,
        }
    }
}

pub type Footprint = Vec<Access>;

/// Do two accesses conflict?
pub fn conflict(a: &Access, b: &Access) -> bool {
    if a.loc == Loc::All || b.loc == Loc::All {
        return true;
    }
    let same = match (a.loc, b.loc) {
        (Loc::Obj(o), Loc::Mem(p, _) | Loc::Obj(p)) | (Loc::Mem(p, _), Loc::Obj(o)) => o == p,
        (x, y) => x == y,
    };
    same && (a.write || b.write)
}

/// Are two footprints (of steps of different threads) dependent?
pub fn dependent(a: &[Access], b: &[Access]) -> bool {
    a.iter().any(|x| b.iter().any(|y| conflict(x, y)))
}

/// Can two conflicting accesses race, i.e. be enabled together in either order? An
/// acquire and a release of one object by different threads cannot (the acquirer is
/// blocked until the release): their order is happens-before, not a race.
pub fn races(a: &Access, b: &Access) -> bool {
    if a.loc == Loc::All || b.loc == Loc::All {
        return true;
    }
    conflict(a, b)
        && !matches!(
            (a.role, b.role),
            (Role::Acquire, Role::Release) | (Role::Release, Role::Acquire)
        )
}

/// Do two footprints race?
pub fn racing(a: &[Access], b: &[Access]) -> bool {
    a.iter().any(|x| b.iter().any(|y| races(x, y)))
}

/// A vector clock indexed by runtime thread id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VClock(Vec<u32>);

impl VClock {
    pub fn get(&self, t: Tid) -> u32 {
        self.0.get(t).copied().unwrap_or(0)
    }

    pub fn set(&mut self, t: Tid, v: u32) {
        if self.0.len() <= t {
            self.0.resize(t + 1, 0);
        }
        self.0[t] = v;
    }

    pub fn join(&mut self, other: &VClock) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a = (*a).max(*b);
        }
    }

    /// The pointwise minimum: a lower bound of both.
    pub fn meet(&self, other: &VClock) -> VClock {
        let n = self.0.len().max(other.0.len());
        VClock((0..n).map(|i| self.get(i).min(other.get(i))).collect())
    }
}

/// A scheduling node on the current path.
#[derive(Clone)]
pub struct NodeInfo {
    pub enabled: Vec<Tid>,
    pub backtrack: BTreeSet<Tid>,
    pub done: BTreeSet<Tid>,
    /// Sleeping threads and the footprints of their pending events.
    pub sleep: Vec<(Tid, Footprint)>,
    /// Each thread's clock at this node.
    pub clocks: Vec<VClock>,
    /// The node's state and its fingerprint, to recognise a return to it (a cycle).
    pub state: Option<(u64, super::state::State)>,
}

impl NodeInfo {
    /// Schedules every enabled thread from this node (the cycle proviso: one node of
    /// each cycle is fully expanded).
    pub fn expand_fully(&mut self) {
        self.backtrack.extend(self.enabled.iter().copied());
    }

    /// Schedules `p` from this node, or every enabled thread if `p` is not enabled.
    fn add_backtrack(&mut self, p: Option<Tid>) {
        match p {
            Some(p) if self.enabled.contains(&p) => {
                self.backtrack.insert(p);
            }
            _ => self.backtrack.extend(self.enabled.iter().copied()),
        }
    }
}

/// A step on the current path.
#[derive(Clone, Debug)]
pub struct EventInfo {
    pub tid: Tid,
    /// Index of the node it was taken from.
    pub node: usize,
    pub foot: Footprint,
    pub clock: VClock,
}

/// The DPOR stacks of the current path: nodes and the steps between them.
///
/// Steps are pushed and popped with [`Dpor::push_step`] and [`Dpor::pop_step`], which
/// keep the per-location index ([`index`]) that race detection and clocks read: a query
/// visits the steps touching what the footprint touches, newest first per thread, not
/// the whole path.
#[derive(Default)]
pub struct Dpor {
    pub nodes: Vec<NodeInfo>,
    /// The steps of the path (read-only outside this module: push and pop them with
    /// [`Dpor::push_step`] and [`Dpor::pop_step`]).
    pub events: Vec<EventInfo>,
    /// For the steps of `events` (a prefix: a step pushed without an entry is not
    /// outside): the step is outside the slice (see [`super::type_b`]).
    pub outside: Vec<bool>,
    /// Races left without a backtrack point because both steps are outside the slice
    /// (§6.1, Type B interleaving pivots), each counted once.
    pub type_b_races: u64,
    index: StepIndex,
}

impl Dpor {
    /// Appends a step to the path; `outside`: it is outside the slice.
    pub fn push_step(&mut self, step: EventInfo, outside: bool) {
        debug_assert_eq!(self.index.len(), self.events.len());
        self.outside.truncate(self.events.len());
        self.outside.resize(self.events.len(), false);
        self.outside.push(outside);
        self.index.push(step.tid, &step.foot);
        self.events.push(step);
    }

    /// Removes the path's last step.
    pub fn pop_step(&mut self) {
        if self.events.pop().is_some() {
            self.index.pop();
        }
        self.outside.truncate(self.events.len());
    }

    fn is_outside(&self, i: usize) -> bool {
        self.outside.get(i).copied().unwrap_or(false)
    }

    /// The clock of a new step of `tid` with footprint `foot`, given the thread's clock.
    pub fn clock_of(&self, tid: Tid, start: &VClock, foot: &[Access]) -> VClock {
        self.clock_of_sliced(tid, start, foot, false)
    }

    /// [`Dpor::clock_of`] for a step that is `outside` the slice: a dependence with a
    /// step also outside it does not order the two (the race gets no backtrack point,
    /// see [`Dpor::races_of_pending_sliced`], so it must not order later steps either).
    ///
    /// Per other thread only its last dependent step is joined: its clock includes
    /// those of the thread's earlier steps.
    pub fn clock_of_sliced(
        &self,
        tid: Tid,
        start: &VClock,
        foot: &[Access],
        outside: bool,
    ) -> VClock {
        let mut c = start.clone();
        for u in self.index.threads().filter(|&u| u != tid) {
            let last = self.index.candidates(u, foot).find(|&j| {
                !(outside && self.is_outside(j)) && dependent(&self.events[j].foot, foot)
            });
            if let Some(j) = last {
                c.join(&self.events[j].clock);
            }
        }
        c.set(tid, self.events.len() as u32 + 1);
        c
    }

    /// The steps of other threads than `p` that race with `foot` and do not happen
    /// before an event of `p` with clock `clock`, newest first. `stop_at` decides, per
    /// thread, after which found step its earlier ones are not needed.
    fn unordered_races(
        &self,
        p: Option<Tid>,
        clock: &VClock,
        foot: &[Access],
        stop_at: impl Fn(usize) -> bool,
    ) -> Vec<usize> {
        let mut found = Vec::new();
        for u in self.index.threads().filter(|&u| Some(u) != p) {
            let ordered = clock.get(u) as usize;
            for j in self.index.candidates(u, foot) {
                if j < ordered {
                    break; // step j happens before, and so do u's earlier steps
                }
                if racing(&self.events[j].foot, foot) {
                    found.push(j);
                    if stop_at(j) {
                        break;
                    }
                }
            }
        }
        found.sort_unstable_by(|a, b| b.cmp(a));
        found
    }

    /// Race detection for the pending event `foot` of thread `p` (whose clock is
    /// `clock`): the last step `i` racing with it needs, at the node it was taken from, a
    /// thread that can start the reversed order. As in source-DPOR (Abdulla et al.,
    /// POPL 2014) that is any *initial* of `v` = the steps after `i` that do not happen
    /// after it, then `p`'s event; nothing is added if the backtrack set already holds
    /// one. A chosen initial not enabled there falls back to every enabled thread.
    pub fn races_of_pending(&mut self, p: Tid, clock: &VClock, foot: &[Access]) {
        self.races_of_pending_sliced(p, clock, foot, false);
    }

    /// [`Dpor::races_of_pending`] where the pending event is `outside` the slice: a race
    /// with a step also outside it gets no backtrack point (§6.1, Type B), and the
    /// search goes on to earlier steps.
    pub fn races_of_pending_sliced(
        &mut self,
        p: Tid,
        clock: &VClock,
        foot: &[Access],
        outside: bool,
    ) {
        let racing =
            self.unordered_races(Some(p), clock, foot, |j| !(outside && self.is_outside(j)));
        // p's previous step (only needed for a race outside the slice).
        let p_last = self.index.last_of(p);
        for i in racing {
            if outside && self.is_outside(i) {
                // Counted once: at the node where the race is first seen, right after
                // the later of step i and p's previous step.
                if p_last.map_or(i, |l| l.max(i)) + 1 == self.events.len() {
                    self.type_b_races += 1;
                }
                continue;
            }
            let node = &self.nodes[self.events[i].node];
            if node.enabled.iter().all(|t| node.backtrack.contains(t)) {
                return; // every thread is scheduled there: nothing to add
            }
            let initials = self.initials(i, p, clock);
            let node = &mut self.nodes[self.events[i].node];
            if initials.iter().any(|q| node.backtrack.contains(q)) {
                return;
            }
            let pick = if initials.contains(&p) {
                Some(p)
            } else {
                initials.first().copied()
            };
            node.add_backtrack(pick);
            return;
        }
    }

    /// The threads whose first step in `notdep(i) · next(p)` has no predecessor there
    /// that happens before it.
    ///
    /// A step is preceded when it happens after the *first* `notdep` step of some thread
    /// (a thread's later steps happen after its first one), so one pass over `notdep`
    /// with each thread's first step there suffices.
    fn initials(&self, i: usize, p: Tid, p_clock: &VClock) -> Vec<Tid> {
        let ti = self.events[i].tid;
        let mut first: Vec<(Tid, u32)> = Vec::new();
        let preceded =
            |clock: &VClock, first: &[(Tid, u32)]| first.iter().any(|&(u, k)| clock.get(u) > k);
        let mut out = Vec::new();
        for j in i + 1..self.events.len() {
            let ej = &self.events[j];
            if ej.clock.get(ti) > i as u32 {
                continue; // happens after step i
            }
            if !preceded(&ej.clock, &first) && !out.contains(&ej.tid) {
                out.push(ej.tid);
            }
            if !first.iter().any(|&(u, _)| u == ej.tid) {
                first.push((ej.tid, j as u32));
            }
        }
        if !preceded(p_clock, &first) && !out.contains(&p) {
            out.push(p);
        }
        out
    }

    /// The last step of the path (before the current one) that races with `access` by
    /// thread `p` whose clock before the access is `clock`.
    pub fn last_race(&self, p: Tid, clock: &VClock, access: &Access) -> Option<usize> {
        self.unordered_races(Some(p), clock, &[*access], |_| true)
            .first()
            .copied()
    }

    /// Would the backtrack repair of a pruned subtree (§5.2) add anything? `p` (or an
    /// unknown future thread when `None`, with a lower bound `clock` of its clock) may
    /// perform `access` after the current node; every step of the path racing with it
    /// would need `p` (or every enabled thread) in its node's backtrack set. Because the
    /// clock is only a lower bound, every racing step counts, not just the last.
    pub fn repair_needed(&self, p: Option<Tid>, clock: &VClock, access: &Access) -> bool {
        !self.repair_points(p, clock, access).is_empty()
    }

    /// Adds the backtrack points of [`Dpor::repair_needed`].
    pub fn repair(&mut self, p: Option<Tid>, clock: &VClock, access: &Access) {
        for n in self.repair_points(p, clock, access) {
            self.nodes[n].add_backtrack(p);
        }
    }

    /// The nodes of the path whose backtrack sets lack what a racing access needs,
    /// newest first.
    fn repair_points(&self, p: Option<Tid>, clock: &VClock, access: &Access) -> Vec<usize> {
        self.unordered_races(p, clock, &[*access], |_| false)
            .into_iter()
            .filter_map(|i| {
                let node = &self.nodes[self.events[i].node];
                let missing = match p {
                    Some(p) if node.enabled.contains(&p) => !node.backtrack.contains(&p),
                    _ => !node.enabled.iter().all(|t| node.backtrack.contains(t)),
                };
                missing.then_some(self.events[i].node)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mem(o: u32) -> Loc {
        Loc::Mem(ObjInst(o), 0)
    }

    #[test]
    fn reads_commute_writes_do_not() {
        let r = [Access::read(mem(1))];
        let w = [Access::write(mem(1))];
        let other = [Access::write(mem(2))];
        assert!(!dependent(&r, &r));
        assert!(dependent(&r, &w));
        assert!(dependent(&w, &w));
        assert!(!dependent(&w, &other));
        assert!(dependent(&[Access::read(Loc::All)], &other));
    }

    /// A node where threads 0 and 1 are enabled and 0 is to be explored.
    fn two_thread_node() -> NodeInfo {
        NodeInfo {
            enabled: vec![0, 1],
            backtrack: BTreeSet::from([0]),
            done: BTreeSet::new(),
            sleep: vec![],
            clocks: vec![VClock::default(), VClock::default()],
            state: None,
        }
    }

    #[test]
    fn clocks_join_dependent_steps() {
        let mut d = Dpor::default();
        let node = two_thread_node();
        d.nodes.push(node.clone());
        let w = vec![Access::write(mem(1))];
        let c0 = d.clock_of(0, &VClock::default(), &w);
        d.push_step(
            EventInfo {
                tid: 0,
                node: 0,
                foot: w.clone(),
                clock: c0.clone(),
            },
            false,
        );
        d.nodes.push(node);
        // Thread 1's pending read of the same cell races with step 0.
        d.races_of_pending(1, &VClock::default(), &[Access::read(mem(1))]);
        assert!(d.nodes[0].backtrack.contains(&1));
        // A step of thread 1 dependent with step 0 inherits its clock.
        let c1 = d.clock_of(1, &VClock::default(), &[Access::read(mem(1))]);
        assert_eq!(c1.get(0), 1);
        assert_eq!(c1.get(1), 2);
    }

    #[test]
    fn races_between_two_steps_outside_the_slice_get_no_backtrack_point() {
        let node = two_thread_node();
        let w = vec![Access::write(mem(1))];
        let mut d = Dpor::default();
        d.nodes.push(node.clone());
        let c0 = d.clock_of(0, &VClock::default(), &w);
        d.push_step(
            EventInfo {
                tid: 0,
                node: 0,
                foot: w.clone(),
                clock: c0,
            },
            true,
        );
        d.nodes.push(node);
        let r = [Access::read(mem(1))];
        // Both outside: skipped, and counted once; nor does the step order a later
        // outside step of thread 1 (its clock does not see step 0).
        d.races_of_pending_sliced(1, &VClock::default(), &r, true);
        assert_eq!(d.clock_of_sliced(1, &VClock::default(), &r, true).get(0), 0);
        assert_eq!(
            d.clock_of_sliced(1, &VClock::default(), &r, false).get(0),
            1
        );
        assert!(!d.nodes[0].backtrack.contains(&1));
        assert_eq!(d.type_b_races, 1);
        // The pending read is in the slice: the race stands.
        d.races_of_pending_sliced(1, &VClock::default(), &r, false);
        assert!(d.nodes[0].backtrack.contains(&1));
        // The step is in the slice: the race stands too.
        d.nodes[0].backtrack.remove(&1);
        d.outside[0] = false;
        d.races_of_pending_sliced(1, &VClock::default(), &r, true);
        assert!(d.nodes[0].backtrack.contains(&1));
    }

    /// The path-scanning race detection the index replaced, kept as the specification
    /// the indexed queries are checked against.
    mod scan {
        use super::super::*;

        pub fn clock_of_sliced(
            d: &Dpor,
            tid: Tid,
            start: &VClock,
            foot: &[Access],
            outside: bool,
        ) -> VClock {
            let mut c = start.clone();
            for (i, e) in d.events.iter().enumerate() {
                if outside && d.is_outside(i) {
                    continue;
                }
                if e.tid != tid && dependent(&e.foot, foot) {
                    c.join(&e.clock);
                }
            }
            c.set(tid, d.events.len() as u32 + 1);
            c
        }

        pub fn races_of_pending_sliced(
            d: &mut Dpor,
            p: Tid,
            clock: &VClock,
            foot: &[Access],
            outside: bool,
        ) {
            let mut p_last: Option<Option<usize>> = None;
            for i in (0..d.events.len()).rev() {
                let e = &d.events[i];
                if e.tid == p || !racing(&e.foot, foot) || clock.get(e.tid) > i as u32 {
                    continue;
                }
                if outside && d.is_outside(i) {
                    let p_last =
                        *p_last.get_or_insert_with(|| d.events.iter().rposition(|e| e.tid == p));
                    if p_last.map_or(i, |l| l.max(i)) + 1 == d.events.len() {
                        d.type_b_races += 1;
                    }
                    continue;
                }
                let initials = initials(d, i, p, clock);
                let node = &mut d.nodes[e.node];
                if initials.iter().any(|q| node.backtrack.contains(q)) {
                    return;
                }
                let pick = if initials.contains(&p) {
                    Some(p)
                } else {
                    initials.first().copied()
                };
                node.add_backtrack(pick);
                return;
            }
        }

        fn initials(d: &Dpor, i: usize, p: Tid, p_clock: &VClock) -> Vec<Tid> {
            let after_i = |j: usize| d.events[j].clock.get(d.events[i].tid) > i as u32;
            let notdep: Vec<usize> = (i + 1..d.events.len()).filter(|&j| !after_i(j)).collect();
            let mut out = Vec::new();
            for (n, &j) in notdep.iter().enumerate() {
                let ej = &d.events[j];
                let preceded = notdep[..n]
                    .iter()
                    .any(|&k| ej.clock.get(d.events[k].tid) > k as u32);
                if !preceded && !out.contains(&ej.tid) {
                    out.push(ej.tid);
                }
            }
            let p_preceded = notdep
                .iter()
                .any(|&k| p_clock.get(d.events[k].tid) > k as u32);
            if !p_preceded && !out.contains(&p) {
                out.push(p);
            }
            out
        }

        pub fn last_race(d: &Dpor, p: Tid, clock: &VClock, access: &Access) -> Option<usize> {
            (0..d.events.len()).rev().find(|&i| {
                let e = &d.events[i];
                e.tid != p
                    && e.foot.iter().any(|x| races(x, access))
                    && clock.get(e.tid) <= i as u32
            })
        }

        pub fn repair_points(
            d: &Dpor,
            p: Option<Tid>,
            clock: &VClock,
            access: &Access,
        ) -> Vec<usize> {
            (0..d.events.len())
                .rev()
                .filter_map(|i| {
                    let e = &d.events[i];
                    if Some(e.tid) == p
                        || !e.foot.iter().any(|x| races(x, access))
                        || clock.get(e.tid) > i as u32
                    {
                        return None;
                    }
                    let node = &d.nodes[e.node];
                    let missing = match p {
                        Some(p) if node.enabled.contains(&p) => !node.backtrack.contains(&p),
                        _ => !node.enabled.iter().all(|t| node.backtrack.contains(t)),
                    };
                    missing.then_some(e.node)
                })
                .collect()
        }
    }

    fn random_access(rng: &mut fastrand::Rng) -> Access {
        let obj = ObjInst(rng.u32(1..3));
        let loc = match rng.u32(0..20) {
            0 => Loc::All,
            1 | 2 => Loc::Obj(obj),
            3 | 4 => Loc::Mutex(obj, 0),
            5 => Loc::Thread(ThreadKey(rng.u32(0..3))),
            _ => Loc::Mem(obj, 4 * rng.u64(0..3)),
        };
        let role = match loc {
            Loc::Mutex(..) | Loc::Thread(_) => match rng.u32(0..3) {
                0 => Role::Acquire,
                1 => Role::Release,
                _ => Role::Plain,
            },
            _ => Role::Plain,
        };
        Access {
            loc,
            write: role != Role::Plain || rng.bool(),
            role,
        }
    }

    fn random_foot(rng: &mut fastrand::Rng) -> Footprint {
        (0..rng.usize(1..3)).map(|_| random_access(rng)).collect()
    }

    /// Random paths of 4 threads: every indexed query answers what scanning the path
    /// answers (clocks, races of pending events with their backtrack points and Type B
    /// counts, last races, repair points), also after steps are popped.
    #[test]
    fn indexed_queries_answer_what_scanning_the_path_answers() {
        const THREADS: usize = 4;
        for seed in 0..100 {
            let mut rng = fastrand::Rng::with_seed(seed);
            let mut d = Dpor::default();
            let mut clocks = vec![VClock::default(); THREADS];
            let mut saved: Vec<Vec<VClock>> = Vec::new();
            for _ in 0..rng.usize(1..40) {
                if !d.events.is_empty() && rng.u32(0..6) == 0 {
                    d.pop_step();
                    d.nodes.pop();
                    clocks = saved.pop().unwrap();
                    continue;
                }
                let tid = rng.usize(0..THREADS);
                let mut enabled: Vec<Tid> = (0..THREADS).filter(|_| rng.bool()).collect();
                if !enabled.contains(&tid) {
                    enabled.push(tid);
                }
                let backtrack: BTreeSet<Tid> = enabled
                    .iter()
                    .copied()
                    .filter(|&t| t == tid || rng.u32(0..4) == 0)
                    .collect();
                d.nodes.push(NodeInfo {
                    enabled,
                    backtrack,
                    done: BTreeSet::new(),
                    sleep: vec![],
                    clocks: vec![],
                    state: None,
                });
                let foot = random_foot(&mut rng);
                let outside = rng.u32(0..3) == 0;
                let clock = d.clock_of_sliced(tid, &clocks[tid], &foot, outside);
                let expected = scan::clock_of_sliced(&d, tid, &clocks[tid], &foot, outside);
                assert_eq!(clock, expected, "seed {seed}: clock");
                saved.push(clocks.clone());
                clocks[tid] = clock.clone();
                let node = d.nodes.len() - 1;
                d.push_step(
                    EventInfo {
                        tid,
                        node,
                        foot,
                        clock,
                    },
                    outside,
                );
                d.nodes.push(NodeInfo {
                    enabled: (0..THREADS).collect(),
                    backtrack: BTreeSet::new(),
                    done: BTreeSet::new(),
                    sleep: vec![],
                    clocks: vec![],
                    state: None,
                });
                for (p, clock) in clocks.iter().enumerate() {
                    let pending = random_foot(&mut rng);
                    let outside = rng.bool();
                    let access = pending[0];
                    assert_eq!(
                        d.last_race(p, clock, &access),
                        scan::last_race(&d, p, clock, &access),
                        "seed {seed}: last race"
                    );
                    let who = rng.bool().then_some(p);
                    assert_eq!(
                        d.repair_points(who, clock, &access),
                        scan::repair_points(&d, who, clock, &access),
                        "seed {seed}: repair points"
                    );
                    let before: Vec<BTreeSet<Tid>> =
                        d.nodes.iter().map(|n| n.backtrack.clone()).collect();
                    let counted = d.type_b_races;
                    scan::races_of_pending_sliced(&mut d, p, clock, &pending, outside);
                    let expected: Vec<BTreeSet<Tid>> =
                        d.nodes.iter().map(|n| n.backtrack.clone()).collect();
                    let expected_count = d.type_b_races;
                    for (n, b) in d.nodes.iter_mut().zip(&before) {
                        n.backtrack = b.clone();
                    }
                    d.type_b_races = counted;
                    d.races_of_pending_sliced(p, clock, &pending, outside);
                    let got: Vec<BTreeSet<Tid>> =
                        d.nodes.iter().map(|n| n.backtrack.clone()).collect();
                    assert_eq!(got, expected, "seed {seed}: backtrack sets");
                    assert_eq!(d.type_b_races, expected_count, "seed {seed}: Type B count");
                }
                d.nodes.pop();
            }
        }
    }
}
