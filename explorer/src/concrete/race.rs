//! Data-race detection of the reference interpreter (under [`RunConfig::detect_races`]):
//! happens-before by vector clocks (DJIT+, Pozniansky and Schuster), independent of the
//! symbolic engine's partial-order reduction, so that it can judge its race witnesses.
//!
//! Happens-before is program order and synchronization only: a mutex's unlock (or the
//! release inside `pthread_cond_wait`) before its next lock (or re-acquire),
//! `pthread_create` before the child's first step, a thread's end before its join, and
//! the end of an atomic section before the begin of the next one (atomic sections
//! behave as one global lock). Two accesses to the same cell (object and offset) by
//! different threads, at least one a write and at least one outside an atomic section,
//! not ordered by happens-before, are a data race (C11 5.1.2.4 and SV-COMP's
//! no-data-race: "at least one of which is not atomic"); the run stops at the second.
//! Accesses inside atomic sections are recorded like plain ones: two of them are always
//! ordered (the sections' global lock), so only a pair with a plain access can race.
//!
//! [`RunConfig::detect_races`]: super::RunConfig::detect_races

use super::machine::{Addr, Flow, Machine, Stop};
use super::outcome::{Execution, RunOutcome, ThreadId, Violation, ViolationKind};
use super::value::Value;
use super::witness::{replay, InputType, Witness, WitnessInput};
use analysis::ir::{Program, Span, Stmt, StmtId};
use rustc_hash::FxHashMap;
use serde::Serialize;

/// A vector clock indexed by thread id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Clock(Vec<u32>);

impl Clock {
    fn get(&self, t: ThreadId) -> u32 {
        self.0.get(t.index()).copied().unwrap_or(0)
    }

    fn tick(&mut self, t: ThreadId) {
        let i = t.index();
        if self.0.len() <= i {
            self.0.resize(i + 1, 0);
        }
        self.0[i] += 1;
    }

    fn join(&mut self, other: &Clock) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a = (*a).max(*b);
        }
    }
}

/// One access of a race, as reports name it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RaceAccess {
    pub thread: ThreadId,
    pub stmt: StmtId,
    pub span: Span,
    /// `file:line` of `span`.
    pub location: String,
    pub write: bool,
    /// Made inside an atomic section (its race is with a plain access).
    pub atomic: bool,
    /// The step (index into the schedule) that made the access.
    pub step: u64,
}

impl RaceAccess {
    pub fn verb(&self) -> &'static str {
        if self.write {
            "write"
        } else {
            "read"
        }
    }

    /// "writes", or "reads inside an atomic section".
    fn phrase(&self) -> String {
        let atomic = if self.atomic {
            " inside an atomic section"
        } else {
            ""
        };
        format!("{}s{atomic}", self.verb())
    }
}

/// A data race: the earlier access, the later one, and the memory they touch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Race {
    pub first: RaceAccess,
    pub second: RaceAccess,
    /// The memory location in words (`counter`, `buf[4]`, ...).
    pub variable: String,
}

impl Race {
    /// "data race on `x`: thread 1 writes at f.c:12 and thread 2 reads at f.c:14, ...".
    pub fn message(&self) -> String {
        format!(
            "data race on {}: thread {} {} at {} and thread {} {} at {}, not ordered by happens-before",
            self.variable,
            self.first.thread,
            self.first.phrase(),
            self.first.location,
            self.second.thread,
            self.second.phrase(),
            self.second.location
        )
    }

    /// Does a run with this schedule end with the race's two accesses as close as they
    /// can be? The second access is the last step, and the steps between them are, in
    /// order, the rest of the first access's atomic section and the start of the
    /// second's (no other thread runs inside a section): none between two plain
    /// accesses.
    pub fn ends(&self, schedule: &[ThreadId]) -> bool {
        let (r, s) = (self.first.step as usize, self.second.step as usize);
        if r >= s || s + 1 != schedule.len() {
            return false;
        }
        let between = &schedule[r + 1..s];
        let rest = between
            .iter()
            .take_while(|&&t| self.first.atomic && t == self.first.thread)
            .count();
        between[rest..]
            .iter()
            .all(|&t| self.second.atomic && t == self.second.thread)
    }
}

/// The last accesses of one cell: the last write, and each thread's last read since.
#[derive(Default)]
struct Shadow {
    write: Option<(RaceAccess, u32)>,
    reads: Vec<(RaceAccess, u32)>,
}

/// The detector's state: a clock per thread, per mutex, for ended threads and for the
/// atomic sections, and the shadow of every accessed cell.
#[derive(Default)]
pub(crate) struct Detector {
    threads: Vec<Clock>,
    mutexes: FxHashMap<Addr, Clock>,
    ended: FxHashMap<ThreadId, Clock>,
    atomic: Clock,
    cells: FxHashMap<Addr, Shadow>,
}

impl Detector {
    fn clock_mut(&mut self, t: ThreadId) -> &mut Clock {
        let i = t.index();
        if self.threads.len() <= i {
            self.threads.resize(i + 1, Clock::default());
        }
        let c = &mut self.threads[i];
        if c.get(t) == 0 {
            c.tick(t);
        }
        c
    }

    /// `parent` created `child`: everything before happens before the child.
    pub fn create(&mut self, parent: ThreadId, child: ThreadId) {
        let inherited = self.clock_mut(parent).clone();
        self.clock_mut(child).join(&inherited);
        self.clock_mut(parent).tick(parent);
    }

    /// `t` ended: its clock is what a join acquires.
    pub fn end(&mut self, t: ThreadId) {
        let c = self.clock_mut(t).clone();
        self.ended.insert(t, c);
    }

    pub fn join(&mut self, t: ThreadId, joined: ThreadId) {
        if let Some(c) = self.ended.get(&joined).cloned() {
            self.clock_mut(t).join(&c);
        }
    }

    pub fn acquire(&mut self, t: ThreadId, mutex: Addr) {
        if let Some(c) = self.mutexes.get(&mutex).cloned() {
            self.clock_mut(t).join(&c);
        }
    }

    pub fn release(&mut self, t: ThreadId, mutex: Addr) {
        let c = self.clock_mut(t).clone();
        self.mutexes.insert(mutex, c);
        self.clock_mut(t).tick(t);
    }

    pub fn atomic_begin(&mut self, t: ThreadId) {
        let c = self.atomic.clone();
        self.clock_mut(t).join(&c);
    }

    pub fn atomic_end(&mut self, t: ThreadId) {
        self.atomic = self.clock_mut(t).clone();
        self.clock_mut(t).tick(t);
    }

    /// A plain access by `access.thread` to `cell`: the earlier access it races with,
    /// if any: of the last write and (for a write) the reads since, the latest that is
    /// unordered with it (the one a witness can most easily make adjacent).
    pub fn access(&mut self, cell: Addr, access: RaceAccess) -> Option<RaceAccess> {
        let t = access.thread;
        let now = self.clock_mut(t).clone();
        let unordered =
            |(a, epoch): &&(RaceAccess, u32)| a.thread != t && *epoch > now.get(a.thread);
        let shadow = self.cells.entry(cell).or_default();
        let reads = shadow.reads.iter().filter(|_| access.write);
        let racing = shadow.write.iter().chain(reads).filter(unordered);
        if let Some((latest, _)) = racing.max_by_key(|(a, _)| a.step) {
            return Some(latest.clone());
        }
        let epoch = now.get(t);
        if access.write {
            shadow.reads.clear();
            shadow.write = Some((access, epoch));
        } else {
            shadow.reads.retain(|(r, _)| r.thread != t);
            shadow.reads.push((access, epoch));
        }
        None
    }
}

/// A witness of the same race with its two accesses at its end ([`Race::ends`]), from a
/// run (`execution`, replayed from `witness` with race detection) whose race accesses are
/// apart: the steps before the first access, then those between the two that are not the
/// first thread's, then the first access and the second, each step with its inputs. An
/// access inside an atomic section moves with its section (the steps of its thread
/// next to it, which are the section's: no other thread runs inside one). Steps between
/// them can depend on the first thread's later steps, so the result is replayed and
/// returned only if it shows the same two statements at its end.
pub fn adjacent_witness(
    program: &Program,
    witness: &Witness,
    execution: &Execution,
) -> Option<(Witness, Execution)> {
    let RunOutcome::Violation(v) = &execution.outcome else {
        return None;
    };
    let race = v.race.as_deref()?;
    let (r, s) = (race.first.step as usize, race.second.step as usize);
    let schedule = execution.schedule();
    if s >= schedule.len() || r >= s {
        return None;
    }
    let (p, q) = (race.first.thread, race.second.thread);
    // The first access's unit: its section's steps around it (the thread's steps
    // next to it); the second's: its section's steps before it.
    let (mut rb, mut re) = (r, r);
    if race.first.atomic {
        while rb > 0 && schedule[rb - 1] == p {
            rb -= 1;
        }
        while re + 1 < s && schedule[re + 1] == p {
            re += 1;
        }
    }
    let mut sb = s;
    if race.second.atomic {
        while sb > re + 1 && schedule[sb - 1] == q {
            sb -= 1;
        }
    }
    let mut order: Vec<usize> = (0..rb).collect();
    order.extend((re + 1..sb).filter(|&j| schedule[j] != p));
    order.extend(rb..=re);
    order.extend(sb..=s);
    // An input read during step k is recorded with `step` k + 1 (0: before any step).
    let mut by_step: Vec<Vec<WitnessInput>> = vec![Vec::new(); schedule.len() + 1];
    for i in &execution.inputs {
        if let Some(slot) = by_step.get_mut(i.step as usize) {
            slot.push(WitnessInput {
                value: i.value,
                ty: InputType(i.ty),
            });
        }
    }
    let mut adjacent = witness.clone();
    adjacent.inputs = by_step[0].clone();
    for &k in &order {
        adjacent.inputs.extend(by_step[k + 1].iter().copied());
    }
    adjacent.schedule = order.iter().map(|&k| schedule[k]).collect();
    let replayed = replay(program, &adjacent).ok()?;
    let RunOutcome::Violation(v) = &replayed.outcome else {
        return None;
    };
    let again = v.race.as_deref()?;
    let same = again.first.stmt == race.first.stmt
        && again.second.stmt == race.second.stmt
        && again.ends(&adjacent.schedule);
    same.then_some((adjacent, replayed))
}

impl Machine<'_> {
    /// `t` acquired the mutex at `mutex` (a lock, a successful trylock, a re-acquire).
    pub(crate) fn race_acquire(&mut self, t: ThreadId, mutex: Addr) {
        if let Some(races) = &mut self.races {
            races.acquire(t, mutex);
        }
    }

    /// The load or store `stmt` of `t` at `addr` succeeded: a `DataRace` violation if it
    /// races with an earlier access (inside an atomic section too: an atomic access races
    /// with an unordered plain one).
    pub(crate) fn check_race(
        &mut self,
        t: ThreadId,
        stmt: &Stmt,
        addr: Value,
        write: bool,
    ) -> Flow {
        let Value::Ptr { obj, offset } = addr else {
            return Ok(());
        };
        if self.races.is_none() {
            return Ok(());
        }
        let cell = (obj, offset as u64);
        let access = RaceAccess {
            thread: t,
            stmt: stmt.id,
            span: stmt.span,
            location: self.prog.location(stmt.span),
            write,
            atomic: self.threads[t.index()].atomic > 0,
            step: self.stats.steps.saturating_sub(1),
        };
        let Some(first) = self
            .races
            .as_mut()
            .and_then(|r| r.access(cell, access.clone()))
        else {
            return Ok(());
        };
        let race = Race {
            first,
            second: access,
            variable: self.mem.describe_addr(obj, offset as u64),
        };
        Err(Stop::end(RunOutcome::Violation(Violation {
            kind: ViolationKind::DataRace,
            message: race.message(),
            thread: t,
            span: stmt.span,
            location: self.prog.location(stmt.span),
            blocked: Vec::new(),
            call_sites: self.call_sites(t),
            race: Some(Box::new(race)),
        })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concrete::value::ObjRef;

    fn cell() -> Addr {
        (ObjRef { index: 1, gen: 0 }, 0)
    }

    fn access(thread: u32, write: bool) -> RaceAccess {
        RaceAccess {
            thread: ThreadId(thread),
            stmt: StmtId(thread),
            span: Span {
                file: analysis::ir::FileId(0),
                line: thread,
                col: 0,
            },
            location: String::new(),
            write,
            atomic: false,
            step: 0,
        }
    }

    #[test]
    fn unordered_conflicting_accesses_race_and_reads_do_not() {
        let mut d = Detector::default();
        d.create(ThreadId(0), ThreadId(1));
        d.create(ThreadId(0), ThreadId(2));
        assert!(d.access(cell(), access(1, false)).is_none());
        assert!(d.access(cell(), access(2, false)).is_none());
        let race = d
            .access(cell(), access(2, true))
            .expect("write after a foreign read");
        assert_eq!(race.thread, ThreadId(1));
        assert!(!race.write);
    }

    #[test]
    fn a_mutex_create_and_join_order_accesses() {
        let m = (ObjRef { index: 2, gen: 0 }, 0);
        let mut d = Detector::default();
        assert!(d.access(cell(), access(0, true)).is_none());
        d.create(ThreadId(0), ThreadId(1));
        assert!(d.access(cell(), access(1, true)).is_none(), "create orders");
        d.release(ThreadId(1), m);
        d.acquire(ThreadId(2), m);
        d.create(ThreadId(0), ThreadId(2));
        assert!(
            d.access(cell(), access(2, true)).is_none(),
            "unlock-lock orders"
        );
        d.end(ThreadId(2));
        d.join(ThreadId(0), ThreadId(2));
        assert!(d.access(cell(), access(0, false)).is_none(), "join orders");
        // Thread 1 saw nothing of thread 2's write.
        let race = d.access(cell(), access(1, false));
        assert_eq!(race.map(|a| a.thread), Some(ThreadId(2)));
    }

    #[test]
    fn atomic_sections_order_each_other() {
        let mut d = Detector::default();
        d.create(ThreadId(0), ThreadId(1));
        d.create(ThreadId(0), ThreadId(2));
        assert!(d.access(cell(), access(1, true)).is_none());
        d.atomic_begin(ThreadId(1));
        d.atomic_end(ThreadId(1));
        d.atomic_begin(ThreadId(2));
        d.atomic_end(ThreadId(2));
        assert!(d.access(cell(), access(2, true)).is_none());
    }

    /// An access inside an atomic section races with an unordered plain access, in
    /// either order; two accesses inside atomic sections never do.
    #[test]
    fn an_atomic_access_races_with_an_unordered_plain_one() {
        let mut d = Detector::default();
        d.create(ThreadId(0), ThreadId(1));
        d.create(ThreadId(0), ThreadId(2));
        d.create(ThreadId(0), ThreadId(3));
        d.atomic_begin(ThreadId(1));
        assert!(d.access(cell(), access(1, false)).is_none());
        d.atomic_end(ThreadId(1));
        d.atomic_begin(ThreadId(3));
        assert!(
            d.access(cell(), access(3, true)).is_none(),
            "atomic, atomic"
        );
        d.atomic_end(ThreadId(3));
        let race = d
            .access(cell(), access(2, true))
            .expect("plain after atomic");
        assert_eq!(race.thread, ThreadId(3));

        let mut d = Detector::default();
        d.create(ThreadId(0), ThreadId(1));
        d.create(ThreadId(0), ThreadId(2));
        assert!(d.access(cell(), access(2, true)).is_none());
        d.atomic_begin(ThreadId(1));
        let race = d
            .access(cell(), access(1, false))
            .expect("atomic after plain");
        assert_eq!(race.thread, ThreadId(2));
    }
}
