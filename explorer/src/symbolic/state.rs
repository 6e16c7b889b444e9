//! The symbolic program state: threads with call stacks of symbolic registers, memory
//! objects of symbolic cells, mutexes, condition variables and the atomic-section owner.
//!
//! It follows the interpreter's state (`concrete::machine`) field by field, with values
//! replaced by [`SVal`]s. Objects are shared between cloned states until written
//! (copy-on-write through `Rc`), so forking a state at a branch is cheap.

use super::names::{ObjInst, ThreadKey};
use super::term::TermPool;
use super::value::{SVal, Shape};
use crate::concrete::ViolationKind;
use crate::context::{CellOwner, Materialized};
use analysis::ir::{FuncId, RegId, StmtId};
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;

/// A runtime thread id: creation order, main is 0 (as the interpreter numbers threads).
pub type Tid = usize;

/// The address of a synchronization object.
pub type Addr = (ObjInst, u64);

#[derive(Clone)]
pub struct State {
    pub threads: Threads,
    pub mem: Memory,
    /// Held mutexes and their owners.
    pub mutexes: BTreeMap<Addr, Tid>,
    /// Waiters of each condition variable, longest-waiting first.
    pub conds: BTreeMap<Addr, VecDeque<Tid>>,
    /// The thread inside an atomic section, if any.
    pub atomic_owner: Option<Tid>,
    /// Instances materialized from a context's initial state, per abstract object.
    pub materialized: Materialized<ObjInst>,
}

/// Where a thread stands between steps (the interpreter's `ThreadState`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// At a Load, Store or Sync statement of its top frame.
    AtEvent,
    /// Inside `pthread_cond_wait`, waiting for a signal.
    Waiting {
        cond: Addr,
        mutex: Addr,
        stmt: StmtId,
    },
    /// Signalled: re-acquiring `mutex` is its next step.
    Reacquire {
        cond: Addr,
        mutex: Addr,
        stmt: StmtId,
    },
    /// Its function returned: the end event is pending.
    Ending {
        value: SVal,
        exit_program: bool,
        stmt: StmtId,
    },
    Finished {
        value: SVal,
    },
    Joined,
    /// An `assume` was false: the run has ended (kept only while the step finishes).
    Stopped,
    /// It completed a failing iteration of a spin loop (`Setup::spin_back_edges`): it
    /// takes no further step in this run, which the other threads go on without; not a
    /// deadlock when they end.
    Spinning,
    /// An `assume` failed inside an atomic section that had no effect visible to other
    /// threads yet (the await reduction, see [`super::awaits`]): the section is void, and
    /// the thread takes no further step in this run; not a deadlock when the others end.
    /// `noted`: the trace already holds the marker that voids the section's events
    /// (false only between a failing `assume`'s fork and the first step of its side).
    Awaiting {
        noted: bool,
    },
}

/// The threads of a state, in creation order ([`Tid`] indexes them).
///
/// Each thread is shared between cloned states until one of them changes it: a step
/// changes the thread it schedules (and the threads it creates or resumes), so the
/// search's stack of states, one per node of a run, holds one copy of each unchanged
/// thread instead of one per node (pthread-lit/fk2012's 29,000-node run with 64 threads
/// spent 90% of its peak memory on copies of threads that never moved).
#[derive(Clone, Default)]
pub struct Threads(Vec<Rc<Thread>>);

impl Threads {
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn push(&mut self, thread: Thread) {
        self.0.push(Rc::new(thread));
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = &Thread> + DoubleEndedIterator + Clone {
        self.0.iter().map(|th| &**th)
    }

    /// Whether `a` and `b` are one shared copy: then they are equal.
    fn shared(a: &Threads, b: &Threads, t: Tid) -> bool {
        Rc::ptr_eq(&a.0[t], &b.0[t])
    }
}

impl std::ops::Index<Tid> for Threads {
    type Output = Thread;

    fn index(&self, t: Tid) -> &Thread {
        &self.0[t]
    }
}

/// Mutable access unshares the thread (copies it when another state holds it too).
impl std::ops::IndexMut<Tid> for Threads {
    fn index_mut(&mut self, t: Tid) -> &mut Thread {
        Rc::make_mut(&mut self.0[t])
    }
}

impl<'a> IntoIterator for &'a Threads {
    type Item = &'a Thread;
    type IntoIter = std::iter::Map<std::slice::Iter<'a, Rc<Thread>>, fn(&Rc<Thread>) -> &Thread>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|th| &**th)
    }
}

#[derive(Clone)]
pub struct Thread {
    pub key: ThreadKey,
    pub frames: Vec<Frame>,
    pub status: Status,
    /// Nesting depth of atomic sections.
    pub atomic: u32,
    /// Inputs this thread has read.
    pub inputs: u32,
    /// Threads this thread has created (names its children).
    pub created: u32,
    /// Heap objects allocated per site (names the next one).
    pub allocs: BTreeMap<StmtId, u32>,
    /// This thread's instances of the `__thread` objects.
    pub tls: Vec<ObjInst>,
}

/// One activation of a function.
#[derive(Clone, Debug)]
pub struct Frame {
    pub func: FuncId,
    pub block: u32,
    /// Index of the next statement; the block's length means its terminator.
    pub index: u32,
    pub regs: Vec<SVal>,
    /// Instances of the function's stack slots, in `Function::slots` order.
    pub slots: Vec<ObjInst>,
    /// The caller's register that receives the return value.
    pub ret_dst: Option<RegId>,
    /// Iterations of the loops entered in this activation: (header block, count).
    pub loops: Vec<(u32, u32)>,
}

/// One scalar stored in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    pub bytes: u8,
    pub val: SVal,
}

#[derive(Clone, Debug)]
pub struct Object {
    pub size: u64,
    pub live: bool,
    /// Unwritten bytes read as zero (static storage, `calloc`).
    pub zero_default: bool,
    pub read_only: bool,
    pub heap: bool,
    /// An object of a context's initial state: unwritten cells hold initial values.
    pub initial: Option<CellOwner>,
    pub cells: Cells,
}

/// An object's cells by offset: a persistent map, so that copying a state (at every
/// fork, and when a store makes an object unique) shares the cells, and a store into one
/// element of a large array copies one path of the tree instead of every cell (a store
/// into `queue.element[800]` copied all 800 cells per step).
pub type Cells = imbl::GenericOrdMap<u64, Cell, imbl::shared_ptr::RcK>;

#[derive(Clone, Default)]
pub struct Memory {
    pub objects: BTreeMap<ObjInst, Rc<Object>>,
    /// Bytes of live heap objects (for the memory budget, `Config::max_memory`).
    pub heap_bytes: u64,
}

/// Why a memory access fails.
#[derive(Clone, Debug)]
pub enum Fault {
    Violation(ViolationKind, String),
    Unsupported(String),
}

/// The result of a load.
pub enum Loaded {
    Value(SVal),
    /// No cell: the uninitialized-value policy decides.
    Uninit,
}

impl Memory {
    pub fn create(
        &mut self,
        obj: ObjInst,
        size: u64,
        zero_default: bool,
        read_only: bool,
        heap: bool,
    ) {
        if heap {
            self.heap_bytes = self.heap_bytes.saturating_add(size);
        }
        self.objects.insert(
            obj,
            Rc::new(Object {
                size,
                live: true,
                zero_default,
                read_only,
                heap,
                initial: None,
                cells: Cells::new(),
            }),
        );
    }

    /// Makes `obj` an object of a context's initial state, owned by `owner`.
    pub fn mark_initial(&mut self, obj: ObjInst, owner: CellOwner) {
        if let Some(o) = self.objects.get_mut(&obj) {
            let o = Rc::make_mut(o);
            o.initial = Some(owner);
            o.zero_default = false;
        }
    }

    /// The owner of `obj` when it is an object of the initial state.
    pub fn initial_owner(&self, obj: ObjInst) -> Option<CellOwner> {
        self.get(obj).and_then(|o| o.initial)
    }

    /// Ends the lifetime of an object (stack slot, thread-local, freed block).
    pub fn kill(&mut self, obj: ObjInst) {
        if let Some(o) = self.objects.get_mut(&obj) {
            let o = Rc::make_mut(o);
            if o.heap && o.live {
                self.heap_bytes = self.heap_bytes.saturating_sub(o.size);
            }
            o.live = false;
            o.cells.clear();
        }
    }

    pub fn get(&self, obj: ObjInst) -> Option<&Object> {
        self.objects.get(&obj).map(|o| &**o)
    }

    /// Checks that `bytes` bytes at (`obj`, `offset`) may be accessed.
    pub fn check(&self, obj: ObjInst, offset: i64, bytes: u64, write: bool) -> Result<u64, Fault> {
        let Some(o) = self.get(obj) else {
            // Only the stack slots of a returned frame leave the map (`kill_slots`); the
            // pointers the state holds are redirected to the dead marker, so one that is
            // still unknown was in flight at the return (a function returning `&local`).
            return Err(Fault::Violation(
                ViolationKind::DeadObject,
                "use of a local after its function returned".into(),
            ));
        };
        if !o.live {
            return Err(if o.heap {
                Fault::Violation(ViolationKind::UseAfterFree, "use after free".into())
            } else {
                Fault::Violation(
                    ViolationKind::DeadObject,
                    "use of an object after its lifetime ended".into(),
                )
            });
        }
        let in_bounds = offset >= 0
            && (offset as u64)
                .checked_add(bytes)
                .is_some_and(|end| end <= o.size);
        if !in_bounds {
            return Err(Fault::Violation(
                ViolationKind::OutOfBounds,
                format!(
                    "out-of-bounds access of {bytes} byte(s) at offset {offset} ({} bytes)",
                    o.size
                ),
            ));
        }
        if write && o.read_only {
            return Err(Fault::Violation(
                ViolationKind::ReadOnlyWrite,
                "write to read-only memory".into(),
            ));
        }
        Ok(offset as u64)
    }

    /// Reads a scalar of `bytes` bytes (already checked); `want_ptr` when the load type
    /// is a pointer.
    pub fn load(
        &self,
        obj: ObjInst,
        offset: u64,
        bytes: u8,
        want_ptr: bool,
    ) -> Result<Loaded, Fault> {
        let o = self.get(obj).expect("checked object");
        let mut found = None;
        for (&at, cell) in o
            .cells
            .range(offset.saturating_sub(7)..offset + u64::from(bytes))
        {
            if at + u64::from(cell.bytes) <= offset {
                continue;
            }
            if at == offset && cell.bytes == bytes {
                found = Some(cell.val);
            } else {
                return Err(Fault::Unsupported(format!(
                    "type punning: a {bytes}-byte read at offset {offset} overlaps a {}-byte cell at offset {at}",
                    cell.bytes
                )));
            }
        }
        match found {
            Some(v @ SVal::Int(_)) => Ok(Loaded::Value(v)),
            Some(v) if want_ptr => Ok(Loaded::Value(v)),
            Some(_) => Err(Fault::Unsupported(format!(
                "type punning: a pointer stored at offset {offset} is read as an integer"
            ))),
            None => Ok(Loaded::Uninit),
        }
    }

    pub fn zero_default(&self, obj: ObjInst) -> bool {
        self.get(obj).is_some_and(|o| o.zero_default)
    }

    /// Writes a scalar (already checked), removing every cell it overlaps.
    pub fn store(&mut self, obj: ObjInst, offset: u64, bytes: u8, val: SVal) {
        let o = Rc::make_mut(self.objects.get_mut(&obj).expect("checked object"));
        let cell = Cell { bytes, val };
        if let Some(existing) = o.cells.get_mut(&offset) {
            if existing.bytes == bytes {
                *existing = cell;
                return;
            }
        }
        let end = offset + u64::from(bytes);
        let overlapping: Vec<u64> = o
            .cells
            .range(offset.saturating_sub(7)..end)
            .filter(|(&at, c)| at + u64::from(c.bytes) > offset)
            .map(|(&at, _)| at)
            .collect();
        for at in overlapping {
            o.cells.remove(&at);
        }
        o.cells.insert(offset, cell);
    }
}

impl State {
    /// The runtime thread id of each thread name.
    pub fn tids_by_key(&self) -> rustc_hash::FxHashMap<super::names::ThreadKey, Tid> {
        self.threads
            .iter()
            .enumerate()
            .map(|(i, th)| (th.key, i))
            .collect()
    }

    pub fn new() -> State {
        State {
            threads: Threads::default(),
            mem: Memory::default(),
            mutexes: BTreeMap::new(),
            conds: BTreeMap::new(),
            atomic_owner: None,
            materialized: Materialized::new(),
        }
    }

    pub fn top(&self, t: Tid) -> &Frame {
        self.threads[t]
            .frames
            .last()
            .expect("a running thread has a frame")
    }

    pub fn top_mut(&mut self, t: Tid) -> &mut Frame {
        self.threads[t]
            .frames
            .last_mut()
            .expect("a running thread has a frame")
    }

    pub fn is_live(&self, t: Tid) -> bool {
        !matches!(
            self.threads[t].status,
            Status::Finished { .. }
                | Status::Joined
                | Status::Stopped
                | Status::Spinning
                | Status::Awaiting { .. }
        )
    }

    /// Replaces every pointer into `dead` objects by a marker the engine reports on use.
    /// Called when stack slots die, so that a later activation reusing the same name is
    /// never reached through a stale pointer.
    pub fn invalidate_pointers(&mut self, dead: &[ObjInst], marker: ObjInst) {
        let fix = |v: &mut SVal| {
            if let SVal::Ptr { obj, .. } = v {
                if dead.contains(obj) {
                    *obj = marker;
                }
            }
        };
        let stale = |v: &SVal| matches!(v, SVal::Ptr { obj, .. } if dead.contains(obj));
        for t in 0..self.threads.len() {
            // Only a thread holding a stale pointer is unshared.
            let th = &self.threads[t];
            let holds = th.frames.iter().any(|f| f.regs.iter().any(stale))
                || matches!(&th.status, Status::Ending { value, .. } | Status::Finished { value } if stale(value));
            if !holds {
                continue;
            }
            let th = &mut self.threads[t];
            for f in &mut th.frames {
                f.regs.iter_mut().for_each(fix);
            }
            if let Status::Ending { value, .. } | Status::Finished { value } = &mut th.status {
                fix(value);
            }
        }
        let holders: Vec<ObjInst> = self
            .mem
            .objects
            .iter()
            .filter(|(_, o)| {
                o.cells
                    .values()
                    .any(|c| matches!(c.val, SVal::Ptr { obj, .. } if dead.contains(&obj)))
            })
            .map(|(k, _)| *k)
            .collect();
        for k in holders {
            let o = Rc::make_mut(self.mem.objects.get_mut(&k).expect("listed"));
            let offsets: Vec<u64> = o.cells.keys().copied().collect();
            for off in offsets {
                if let Some(c) = o.cells.get_mut(&off) {
                    fix(&mut c.val);
                }
            }
        }
    }

    /// The discrete part of the state, serialized: control locations (with loop
    /// iterations), thread statuses, locks, waiters, and the shape of every value. Two
    /// states with equal keys differ only in the integer parts of their values. See
    /// `summary` for how the key names a node of the generalized interleaving graph.
    pub fn key(&self, pool: &TermPool) -> Vec<u64> {
        self.key_with(pool, &RawIds)
    }

    /// [`State::key`] with the program's and the search's ids written as `ids` names
    /// them ([`RawIds`]: as they are; `carry`'s stable names: across program versions).
    ///
    /// Generic over `ids` (monomorphized: a virtual call per word was a good part of the
    /// key's cost, and the key is computed at every node); with
    /// [`KeyIds::order_preserving`] names, registers and objects are already in name
    /// order and are written without sorting them.
    pub fn key_with<I: KeyIds + ?Sized>(&self, pool: &TermPool, ids: &I) -> Vec<u64> {
        thread_local! {
            // The length of the last key: most keys of a search have about one length,
            // and sizing the buffer for it saves growing it word by word.
            static LAST_LEN: std::cell::Cell<usize> = const { std::cell::Cell::new(128) };
        }
        let mut k = KeyWriter {
            words: Vec::with_capacity(LAST_LEN.with(|c| c.get()) + 16),
            ids,
        };
        let ordered = ids.order_preserving();
        // One buffer for every frame's registers (allocated once per key).
        let mut regs: Vec<(u64, Shape)> = Vec::new();
        k.put(self.threads.len() as u64);
        for th in &self.threads {
            k.put(ids.thread(th.key));
            k.status(&th.status, pool);
            k.put(u64::from(th.atomic));
            k.put(th.frames.len() as u64);
            for f in &th.frames {
                k.put(ids.func(f.func));
                k.put(ids.position(f.func, f.block, f.index));
                k.put(f.loops.len() as u64);
                for &(b, n) in &f.loops {
                    k.put(ids.block(f.func, b));
                    k.put(u64::from(n));
                }
                if ordered {
                    // Names are the registers' numbers: already in order.
                    k.put(f.regs.len() as u64);
                    for (i, r) in f.regs.iter().enumerate() {
                        k.put(ids.reg(f.func, i));
                        k.shape(r.shape(pool));
                    }
                } else {
                    // Registers by name, so a renumbering between versions keeps the key.
                    regs.clear();
                    regs.extend(
                        f.regs
                            .iter()
                            .enumerate()
                            .map(|(i, r)| (i, r.shape(pool)))
                            .filter(|(_, s)| ids.int_regs() || !matches!(s, Shape::Int(_)))
                            .map(|(i, s)| (ids.reg(f.func, i), s)),
                    );
                    regs.sort_by_key(|(name, _)| *name);
                    k.put(regs.len() as u64);
                    for &(name, shape) in &regs {
                        k.put(name);
                        k.shape(shape);
                    }
                }
                for s in &f.slots {
                    k.put(ids.obj(*s));
                }
            }
            for o in &th.tls {
                k.put(ids.obj(*o));
            }
        }
        k.put(self.mutexes.len() as u64);
        for (&(o, off), &t) in &self.mutexes {
            k.put(ids.obj(o));
            k.put(off);
            k.put(t as u64);
        }
        k.put(self.conds.len() as u64);
        for (&(o, off), q) in &self.conds {
            k.put(ids.obj(o));
            k.put(off);
            k.put(q.len() as u64);
            q.iter().for_each(|&t| k.put(t as u64));
        }
        k.put(self.atomic_owner.map_or(u64::MAX, |t| t as u64));
        for instances in self.materialized.values() {
            k.put(instances.len() as u64);
            instances.iter().for_each(|o| k.put(ids.obj(*o)));
        }
        let put_object = |k: &mut KeyWriter<'_, I>, name: u64, obj: &Object| {
            k.put(name);
            k.put(obj.size);
            k.put(u64::from(obj.live) | u64::from(obj.zero_default) << 1);
            k.put(obj.cells.len() as u64);
            for (&off, c) in &obj.cells {
                k.put(off << 8 | u64::from(c.bytes));
                k.shape(c.val.shape(pool));
            }
        };
        if ordered {
            // The map's order is the names' order.
            for (o, obj) in &self.mem.objects {
                put_object(&mut k, ids.obj(*o), obj);
            }
        } else {
            let mut objects: Vec<(u64, &Rc<Object>)> = self
                .mem
                .objects
                .iter()
                .map(|(o, obj)| (ids.obj(*o), obj))
                .collect();
            objects.sort_by_key(|(name, _)| *name);
            for (name, obj) in objects {
                put_object(&mut k, name, obj);
            }
        }
        LAST_LEN.with(|c| c.set(k.words.len()));
        k.words
    }
}

impl State {
    /// A hash of the whole state (values included) except loop iteration counts, which
    /// are bookkeeping: equal states have equal fingerprints.
    pub fn fingerprint(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = rustc_hash::FxHasher::default();
        self.threads.len().hash(&mut h);
        for th in &self.threads {
            (th.key, th.status, th.atomic, th.inputs, th.created).hash(&mut h);
            th.allocs.hash(&mut h);
            th.tls.hash(&mut h);
            th.frames.len().hash(&mut h);
            for f in &th.frames {
                (f.func, f.block, f.index, f.ret_dst).hash(&mut h);
                f.regs.hash(&mut h);
                f.slots.hash(&mut h);
            }
        }
        self.mutexes.hash(&mut h);
        self.conds.hash(&mut h);
        self.atomic_owner.hash(&mut h);
        self.materialized.hash(&mut h);
        for (o, obj) in &self.mem.objects {
            (
                o,
                obj.size,
                obj.live,
                obj.zero_default,
                obj.read_only,
                obj.heap,
                obj.initial,
            )
                .hash(&mut h);
            for (off, c) in &obj.cells {
                (off, c.bytes, c.val).hash(&mut h);
            }
        }
        h.finish()
    }

    /// Equality of whole states except loop iteration counts.
    pub fn same_as(&self, other: &State) -> bool {
        let threads = self.threads.len() == other.threads.len()
            && (0..self.threads.len()).all(|t| {
                if Threads::shared(&self.threads, &other.threads, t) {
                    return true;
                }
                let (a, b) = (&self.threads[t], &other.threads[t]);
                a.key == b.key
                    && a.status == b.status
                    && a.atomic == b.atomic
                    && a.inputs == b.inputs
                    && a.created == b.created
                    && a.allocs == b.allocs
                    && a.tls == b.tls
                    && a.frames.len() == b.frames.len()
                    && a.frames.iter().zip(&b.frames).all(|(f, g)| {
                        f.func == g.func
                            && f.block == g.block
                            && f.index == g.index
                            && f.ret_dst == g.ret_dst
                            && f.regs == g.regs
                            && f.slots == g.slots
                    })
            });
        threads
            && self.mutexes == other.mutexes
            && self.conds == other.conds
            && self.atomic_owner == other.atomic_owner
            && self.materialized == other.materialized
            && self.mem.objects.len() == other.mem.objects.len()
            && self
                .mem
                .objects
                .iter()
                .zip(&other.mem.objects)
                .all(|((k, a), (l, b))| {
                    k == l
                        && (Rc::ptr_eq(a, b)
                            || (a.size == b.size
                                && a.live == b.live
                                && a.zero_default == b.zero_default
                                && a.read_only == b.read_only
                                && a.heap == b.heap
                                && a.initial == b.initial
                                && a.cells == b.cells))
                })
    }
}

impl Default for State {
    fn default() -> Self {
        State::new()
    }
}

/// How a key names the program's and the search's ids.
pub trait KeyIds {
    fn thread(&self, t: ThreadKey) -> u64;
    fn obj(&self, o: ObjInst) -> u64;
    fn func(&self, f: FuncId) -> u64;
    /// The statement at index `index` of block `block` of `f` (the block's length: its
    /// terminator).
    fn position(&self, f: FuncId, block: u32, index: u32) -> u64;
    /// A block of `f` (a loop header).
    fn block(&self, f: FuncId, block: u32) -> u64;
    fn stmt(&self, s: StmtId) -> u64;
    /// The `reg`-th register of `f`.
    fn reg(&self, f: FuncId, reg: usize) -> u64;
    /// Does the key list integer registers? (A summary that mentions one checks its
    /// width when instantiated; pointer registers must agree on the object.)
    fn int_regs(&self) -> bool {
        true
    }
    /// Are [`KeyIds::reg`] and [`KeyIds::obj`] increasing in the register's index and
    /// the object's id, with every integer register listed? Then the key is written
    /// without sorting (the same words as with sorting).
    fn order_preserving(&self) -> bool {
        false
    }
}

/// The ids of one search as they are.
pub struct RawIds;

impl KeyIds for RawIds {
    fn thread(&self, t: ThreadKey) -> u64 {
        u64::from(t.0)
    }
    fn obj(&self, o: ObjInst) -> u64 {
        u64::from(o.0)
    }
    fn func(&self, f: FuncId) -> u64 {
        u64::from(f.0)
    }
    fn position(&self, _: FuncId, block: u32, index: u32) -> u64 {
        u64::from(block) << 32 | u64::from(index)
    }
    fn block(&self, _: FuncId, block: u32) -> u64 {
        u64::from(block)
    }
    fn stmt(&self, s: StmtId) -> u64 {
        u64::from(s.0)
    }
    fn reg(&self, _: FuncId, reg: usize) -> u64 {
        reg as u64
    }
    fn order_preserving(&self) -> bool {
        true
    }
}

struct KeyWriter<'a, I: KeyIds + ?Sized> {
    words: Vec<u64>,
    ids: &'a I,
}

impl<I: KeyIds + ?Sized> KeyWriter<'_, I> {
    fn put(&mut self, v: u64) {
        self.words.push(v);
    }

    fn shape(&mut self, s: Shape) {
        match s {
            Shape::Int(w) => self.put(u64::from(w)),
            Shape::Ptr(o) => {
                self.put(1 << 40);
                self.put(self.ids.obj(o));
            }
            Shape::Func(f) => {
                self.put(2 << 40);
                self.put(self.ids.func(f));
            }
        }
    }

    fn addr(&mut self, a: Addr) {
        self.put(self.ids.obj(a.0));
        self.put(a.1);
    }

    fn status(&mut self, s: &Status, pool: &TermPool) {
        match *s {
            Status::AtEvent => self.put(0),
            Status::Waiting { cond, mutex, stmt } => {
                self.put(1);
                self.addr(cond);
                self.addr(mutex);
                self.put(self.ids.stmt(stmt));
            }
            Status::Reacquire { cond, mutex, stmt } => {
                self.put(2);
                self.addr(cond);
                self.addr(mutex);
                self.put(self.ids.stmt(stmt));
            }
            Status::Ending {
                value,
                exit_program,
                stmt,
            } => {
                self.put(3 + u64::from(exit_program));
                self.shape(value.shape(pool));
                self.put(self.ids.stmt(stmt));
            }
            Status::Finished { value } => {
                self.put(5);
                self.shape(value.shape(pool));
            }
            Status::Joined => self.put(6),
            Status::Stopped => self.put(7),
            Status::Spinning => self.put(8),
            Status::Awaiting { .. } => self.put(9),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thread(key: u32) -> Thread {
        Thread {
            key: ThreadKey(key),
            frames: vec![Frame {
                func: FuncId(0),
                block: 0,
                index: 0,
                regs: vec![SVal::Func(FuncId(1)); 3],
                slots: Vec::new(),
                ret_dst: None,
                loops: Vec::new(),
            }],
            status: Status::AtEvent,
            atomic: 0,
            inputs: 0,
            created: 0,
            allocs: BTreeMap::new(),
            tls: Vec::new(),
        }
    }

    #[test]
    fn a_copy_of_a_state_shares_the_threads_it_does_not_change() {
        let mut parent = State::new();
        (0..3).for_each(|k| parent.threads.push(thread(k)));
        let mut child = parent.clone();
        child.threads[1].frames[0].index = 7;
        assert!(Threads::shared(&parent.threads, &child.threads, 0));
        assert!(!Threads::shared(&parent.threads, &child.threads, 1));
        assert!(Threads::shared(&parent.threads, &child.threads, 2));
        // The change is the child's only.
        assert_eq!(parent.threads[1].frames[0].index, 0);
        assert_eq!(child.threads[1].frames[0].index, 7);
        assert!(!parent.same_as(&child));
        child.threads[1].frames[0].index = 0;
        assert!(parent.same_as(&child));
        assert_eq!(parent.fingerprint(), child.fingerprint());
    }

    #[test]
    fn invalidating_pointers_copies_only_the_threads_that_hold_one() {
        let dead = ObjInst(5);
        let marker = ObjInst(9);
        let mut parent = State::new();
        (0..2).for_each(|k| parent.threads.push(thread(k)));
        let off = TermPool::new().bv_const(0, 64);
        parent.threads[1].frames[0].regs[2] = SVal::Ptr { obj: dead, off };
        let mut child = parent.clone();
        child.invalidate_pointers(&[dead], marker);
        assert!(Threads::shared(&parent.threads, &child.threads, 0));
        assert!(matches!(
            child.threads[1].frames[0].regs[2],
            SVal::Ptr { obj, .. } if obj == marker
        ));
        assert!(matches!(
            parent.threads[1].frames[0].regs[2],
            SVal::Ptr { obj, .. } if obj == dead
        ));
    }
}
