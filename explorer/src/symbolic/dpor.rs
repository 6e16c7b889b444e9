//! Dynamic partial-order reduction (Flanagan and Godefroid, POPL 2005; source sets and
//! optimal DPOR, Abdulla et al.) with vector clocks and sleep sets, over the scheduling
//! nodes of the symbolic search.
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
//! pending event `next(p)`, every step `i` of the path in a *race* with `next(p)` — the two
//! race (conflict, not an acquire with a release), `i` does not happen before `p`'s
//! earlier steps, and no step between them orders them (`i` happens before a step that
//! happens before `next(p)`) — is reversed at the node step `i` was taken from (`E'`), by
//! one of three algorithms ([`DporMode`], `--dpor`):
//!
//! - *classic* (Flanagan and Godefroid): `p` goes into the backtrack set of `E'`, or (if
//!   `p` was not enabled or was asleep there) every thread enabled there;
//! - *source* (source sets, Abdulla et al., POPL 2014 / JACM 2017; the default): with
//!   `v = notdep(i) · next(p)` (the steps after `i` that do not happen after it, then
//!   `p`'s event), nothing is added if an *initial* of `v` (a thread whose first step in
//!   `v` has no predecessor in `v`) is already scheduled, explored or asleep at `E'`;
//!   else one initial (`p` if it is one), or every enabled thread if it is not enabled
//!   there;
//! - *optimal* (wakeup trees, the same paper's §6; see [`wakeup`]): `v` goes into `E'`'s
//!   wakeup tree unless a sleeping or scheduled thread, or a branch of the tree, is a
//!   *weak initial* of it, and the search follows the tree's branches. The symbolic
//!   engine's forks: a step that forks on a symbolic branch gives every child the
//!   branch's subtree, which a child follows only if its step has the footprint the
//!   branch recorded and the branch's threads are enabled; otherwise that node is
//!   expanded fully (every enabled thread), which explores all that the subtree stood
//!   for. What the tree cannot express (summary repairs, cycles, a first thread not
//!   enabled at `E'`) is scheduled in the backtrack set as classic DPOR does, and such a
//!   thread counts as a leaf of the tree. A thread with no step in `v` is a weak
//!   initial only while it sleeps and every run of its exploration was maximal
//!   ([`NodeInfo::cut`]): agx ends runs early (a violation inside a step, a prune, a
//!   cycle, sleep sets), and the paper's claim that such a thread covers `v` needs the
//!   runs after its step to go on (session 10: without this, optimal DPOR missed
//!   states, `tests/dpor_variants.rs`).
//!
//! Every race is reversed, not only the last one as in Flanagan and Godefroid's paper:
//! with sleep sets the last alone loses executions. One thread writes `x`, two read it;
//! after the run where both reads come first, the race of the first read with the write
//! is not the last (the second read's is), and the reversal of the last schedules the
//! writer where it sleeps: the run with the writer between the reads, the second read
//! first, was never explored (session 9, `tests/dpor_variants.rs`).
//!
//! Sleep sets: after exploring thread `t` from a node, `t` sleeps in the later siblings'
//! subtrees until a step dependent with its pending event runs.

mod index;
mod wakeup;

use super::names::{ObjInst, ThreadKey};
use super::state::Tid;
use super::DporMode;
use analysis::ir::{Operand, SyncOp};
use index::StepIndex;
use std::collections::BTreeSet;
pub use wakeup::{Branch, Incoming};

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
        SyncOp::CondWait { cond, mutex, .. } => {
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
///
/// Shared until changed: every node of a run keeps each thread's clock, and a step
/// changes the clocks of the thread it schedules and the threads it creates only (one
/// copy per node was 64 clocks of 64 entries per node on a run with 64 threads).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VClock(std::rc::Rc<Vec<u32>>);

impl VClock {
    pub fn get(&self, t: Tid) -> u32 {
        self.0.get(t).copied().unwrap_or(0)
    }

    pub fn set(&mut self, t: Tid, v: u32) {
        if self.0.get(t) == Some(&v) {
            return;
        }
        let entries = std::rc::Rc::make_mut(&mut self.0);
        if entries.len() <= t {
            entries.resize(t + 1, 0);
        }
        entries[t] = v;
    }

    pub fn join(&mut self, other: &VClock) {
        let grows =
            other.0.len() > self.0.len() || self.0.iter().zip(other.0.iter()).any(|(a, b)| b > a);
        if !grows {
            return;
        }
        let entries = std::rc::Rc::make_mut(&mut self.0);
        if entries.len() < other.0.len() {
            entries.resize(other.0.len(), 0);
        }
        for (a, b) in entries.iter_mut().zip(other.0.iter()) {
            *a = (*a).max(*b);
        }
    }

    /// The pointwise minimum: a lower bound of both.
    pub fn meet(&self, other: &VClock) -> VClock {
        let n = self.0.len().max(other.0.len());
        VClock(std::rc::Rc::new(
            (0..n).map(|i| self.get(i).min(other.get(i))).collect(),
        ))
    }
}

/// A scheduling node on the current path.
#[derive(Clone, Default)]
pub struct NodeInfo {
    pub enabled: Vec<Tid>,
    pub backtrack: BTreeSet<Tid>,
    pub done: BTreeSet<Tid>,
    /// Sleeping threads and the footprints of their pending events.
    pub sleep: Vec<(Tid, Footprint)>,
    /// Each thread's clock at this node.
    pub clocks: Vec<VClock>,
    /// The node's state and its fingerprint, to recognise a return to it (a cycle);
    /// shared with the search's frame for the node (copying a state at every node was
    /// a tenth of the search's time, in the copy and in dropping it).
    pub state: Option<(u64, std::rc::Rc<super::state::State>)>,
    /// Optimal DPOR: the wakeup tree, the sequences still to explore from here (their
    /// first threads are in `backtrack`).
    pub wut: Vec<Branch>,
    /// Optimal DPOR: the sleeping threads whose exploration (where they were explored)
    /// had a run cut short (a violation inside a step, a prune, a cycle, a run blocked
    /// by sleep sets): they cover no sequence they have no step in (see
    /// [`Dpor::optimal_reversal`]).
    pub cut: Vec<Tid>,
    /// Optimal DPOR: the branch of the wakeup tree being explored from here.
    pub following: Option<Branch>,
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
    /// The algorithm of race reversal.
    pub mode: DporMode,
    /// Optimal DPOR: what the node being created follows of its parent's wakeup tree.
    pub incoming: Option<Incoming>,
    /// Runs that ended inside a step (a violation, an abort): with
    /// `SearchStats::partial_runs`, tells whether a subtree was explored to maximal runs.
    pub ended_in_step: u64,
}

impl Dpor {
    /// An empty path whose races are reversed by `mode`.
    pub fn with_mode(mode: DporMode) -> Dpor {
        Dpor {
            mode,
            ..Dpor::default()
        }
    }

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
    /// `clock`): every step `i` in a race with it needs, at the node it was taken from,
    /// the reversed order scheduled, as the module doc says per [`DporMode`].
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
        if racing.is_empty() {
            return;
        }
        // p's previous step (only needed for a race outside the slice).
        let p_last = self.index.last_of(p);
        // The event's own clock: what happens before it, its dependences included.
        let mut full = self.clock_of_sliced(p, clock, foot, outside);
        full.set(p, clock.get(p));
        let n = self.events.len();
        for i in racing {
            if outside && self.is_outside(i) {
                // Counted once: at the node where the race is first seen, right after
                // the later of step i and p's previous step.
                if p_last.map_or(i, |l| l.max(i)) + 1 == n {
                    self.type_b_races += 1;
                }
                continue;
            }
            if self.mediated(i, &full) {
                continue;
            }
            let node = &self.nodes[self.events[i].node];
            // Every thread is scheduled there (none restricted to a wakeup subtree):
            // nothing to add.
            if node.wut.iter().all(|b| b.sub.is_empty())
                && node.enabled.iter().all(|t| node.backtrack.contains(t))
            {
                continue;
            }
            match self.mode {
                DporMode::Classic => {
                    // A sleeping p would not run there: every enabled thread instead.
                    let node = &mut self.nodes[self.events[i].node];
                    let asleep = node.sleep.iter().any(|(u, _)| *u == p);
                    node.add_backtrack((!asleep).then_some(p));
                }
                DporMode::Source => self.source_reversal(i, p, &full),
                DporMode::Optimal => self.optimal_reversal(i, p, foot, &full),
            }
        }
    }

    /// Does a step between step `i` and an event with clock `full` order the two (`i`
    /// happens before a step that happens before the event)? Then they are no race: the
    /// reversal of that step's race covers them. A thread's last step before the event
    /// stands for its earlier ones.
    fn mediated(&self, i: usize, full: &VClock) -> bool {
        let ti = self.events[i].tid;
        self.index.threads().any(|u| {
            let k = full.get(u) as usize;
            k > i + 1 && self.events[k - 1].clock.get(ti) as usize > i
        })
    }

    /// Source-DPOR's reversal of the race of step `i` with `p`'s pending event (clock
    /// `full`): an initial of `notdep(i) · next(p)` at `i`'s node, unless one is already
    /// scheduled, explored or asleep there.
    fn source_reversal(&mut self, i: usize, p: Tid, full: &VClock) {
        let initials = self.initials(i, p, full);
        let node = &mut self.nodes[self.events[i].node];
        // An initial already scheduled there, or asleep (every run from there that
        // starts with it is covered), covers the reversal.
        if initials
            .iter()
            .any(|q| node.backtrack.contains(q) || node.sleep.iter().any(|(u, _)| u == q))
        {
            return;
        }
        let pick = if initials.contains(&p) {
            Some(p)
        } else {
            initials.first().copied()
        };
        node.add_backtrack(pick);
    }

    /// Optimal DPOR's reversal of the race of step `i` with `p`'s pending event `foot`
    /// (clock `full`): `v = notdep(i) · next(p)` goes into the wakeup tree of `i`'s node
    /// (see [`wakeup`]) unless a thread asleep or scheduled there, or a branch of the
    /// tree, is a weak initial of it. Where the tree cannot say it (its first thread is
    /// not enabled there), every enabled thread is scheduled, as in classic DPOR.
    ///
    /// A thread `q` without a step in `v` is a weak initial only when it sleeps, its
    /// next step commutes with all of `v`, and every run of its exploration was maximal
    /// ([`NodeInfo::cut`]). The claim "an execution equivalent to `q.v` was explored,
    /// and the races of `q` with what follows it there reversed" needs those runs to go
    /// on: a run ended by a violation inside a step (`assert` in `q`'s own step, or a
    /// later one of any thread), a prune, a cycle or sleep sets stops before the events
    /// whose races would have scheduled the runs where `q` comes after `v` (session 10:
    /// `tests/dpor_variants.rs` lost states so). Nor does a branch or a scheduled thread
    /// not explored yet cover `v` so. A thread with a step in `v` covers it either way:
    /// every run that starts with that step ends as it does.
    fn optimal_reversal(&mut self, i: usize, p: Tid, foot: &[Access], full: &VClock) {
        let n = self.events.len();
        let ti = self.events[i].tid;
        let events = &self.events;
        let mut v: Vec<wakeup::Ev> = (i + 1..n)
            .filter(|&j| events[j].clock.get(ti) as usize <= i)
            .map(|j| wakeup::Ev {
                tid: events[j].tid,
                foot: &events[j].foot,
                index: j,
                clock: &events[j].clock,
            })
            .collect();
        v.push(wakeup::Ev {
            tid: p,
            foot,
            index: n,
            clock: full,
        });
        let node = &mut self.nodes[events[i].node];
        if node.sleep.iter().any(|(q, f)| {
            let next = (!node.cut.contains(q)).then_some(f.as_slice());
            wakeup::weak_initial(&v, *q, next).is_some()
        }) {
            return;
        }
        // Scheduled threads outside the tree (added as classic DPOR does) are leaves.
        let scheduled = node.backtrack.iter().any(|&q| {
            !node.done.contains(&q)
                && !node.wut.iter().any(|b| b.tid == q)
                && wakeup::weak_initial(&v, q, None).is_some()
        });
        if scheduled {
            return;
        }
        if !node.enabled.contains(&v[0].tid) {
            node.add_backtrack(None);
            return;
        }
        if let Some(t) = wakeup::insert(&mut node.wut, v) {
            node.backtrack.insert(t);
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
    ///
    /// (What [`Dpor::unordered_races`] would list first, found without listing: this
    /// runs for every access of every step and of every pruned subtree.)
    pub fn last_race(&self, p: Tid, clock: &VClock, access: &Access) -> Option<usize> {
        let foot = std::slice::from_ref(access);
        let mut last: Option<usize> = None;
        for u in self.index.threads().filter(|&u| u != p) {
            let ordered = clock.get(u) as usize;
            for j in self.index.candidates(u, foot) {
                // Newest first: nothing further of u's is later than a race found.
                if j < ordered || last.is_some_and(|l| j <= l) {
                    break;
                }
                if racing(&self.events[j].foot, foot) {
                    last = Some(j);
                    break;
                }
            }
        }
        last
    }

    /// Would the backtrack repair of a pruned subtree (§5.2) add anything? `p` (or an
    /// unknown future thread when `None`, with a lower bound `clock` of its clock) may
    /// perform `access` after the current node; every step of the path racing with it
    /// would need `p` (or every enabled thread) in its node's backtrack set. Because the
    /// clock is only a lower bound, every racing step counts, not just the last.
    pub fn repair_needed(&self, p: Option<Tid>, clock: &VClock, access: &Access) -> bool {
        // As `!repair_points(..).is_empty()`, stopping at the first point.
        let foot = std::slice::from_ref(access);
        for u in self.index.threads().filter(|&u| Some(u) != p) {
            let ordered = clock.get(u) as usize;
            for j in self.index.candidates(u, foot) {
                if j < ordered {
                    break;
                }
                if racing(&self.events[j].foot, foot) && self.lacks(p, j) {
                    return true;
                }
            }
        }
        false
    }

    /// Does the node step `i` was taken from lack in its backtrack set what a racing
    /// access of `p` (an unknown thread: `None`) needs there?
    fn lacks(&self, p: Option<Tid>, i: usize) -> bool {
        let node = &self.nodes[self.events[i].node];
        match p {
            Some(p) if node.enabled.contains(&p) => !node.backtrack.contains(&p),
            _ => !node.enabled.iter().all(|t| node.backtrack.contains(t)),
        }
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
            .filter_map(|i| self.lacks(p, i).then_some(self.events[i].node))
            .collect()
    }
}

#[cfg(test)]
mod tests;
