//! Per-location, per-thread index of the steps of the current path.
//!
//! Race detection and clock computation ask, for a footprint, which earlier steps of
//! other threads touch what it touches. Scanning the whole path for that made every node
//! cost the length of the run (quadratic runs: 33% of queue_ok_longer's time). The index
//! lists, for every location and thread, the steps that read it and the steps that write
//! it, in path order; a query visits only those lists, newest first.
//!
//! Why newest first per thread is enough: a thread's clocks grow along its program order,
//! so if a step of thread `u` happens before an event, every earlier step of `u` does too,
//! and the clock of a later dependent step of `u` includes that of an earlier one. A
//! query per thread can stop at the first step that happens before, or at the first
//! dependent step whose clock it joins.

use super::{Access, Loc};
use crate::symbolic::names::ObjInst;
use crate::symbolic::state::Tid;
use rustc_hash::FxHashMap;

/// Where a step is filed. A cell access is found by queries on the cell and on its whole
/// object; an access to a whole object by queries on any of its cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Key {
    /// Steps that touch this cell.
    Cell(ObjInst, u64),
    /// Steps that touch the whole object (a symbolic offset, the object's death).
    Whole(ObjInst),
    /// Steps that touch the object in any way (a cell or the whole).
    AnyOf(ObjInst),
    /// Mutexes, conditions, thread ends: their own location.
    Sync(Loc),
    /// Steps that touch everything ([`Loc::All`]).
    All,
}

/// One thread's steps at a key: readers and writers, each ascending.
#[derive(Clone, Debug, Default)]
struct Lists {
    reads: Vec<u32>,
    writes: Vec<u32>,
}

/// The index: steps by key and thread, and every step by thread.
#[derive(Clone, Debug, Default)]
pub struct StepIndex {
    by_key: FxHashMap<Key, Vec<Lists>>,
    by_thread: Vec<Vec<u32>>,
    /// The keys each step was filed under (to undo the filing when it is popped).
    filed: Vec<(Tid, Vec<(Key, bool)>)>,
}

/// The keys an access is filed under.
fn filing_keys(loc: Loc) -> Vec<Key> {
    match loc {
        Loc::Mem(o, off) => vec![Key::Cell(o, off), Key::AnyOf(o)],
        Loc::Obj(o) => vec![Key::Whole(o), Key::AnyOf(o)],
        Loc::Mutex(..) | Loc::Cond(..) | Loc::Thread(_) => vec![Key::Sync(loc)],
        Loc::All => vec![Key::All],
    }
}

/// The keys under which the steps conflicting with an access at `loc` are filed (apart
/// from [`Key::All`], which every query reads), at most two (held inline: this runs for
/// every access of every race and clock query). `None`: every step (an access to
/// everything).
fn query_keys(loc: Loc) -> Option<([Key; 2], usize)> {
    match loc {
        Loc::Mem(o, off) => Some(([Key::Cell(o, off), Key::Whole(o)], 2)),
        Loc::Obj(o) => Some(([Key::AnyOf(o), Key::All], 1)),
        Loc::Mutex(..) | Loc::Cond(..) | Loc::Thread(_) => Some(([Key::Sync(loc), Key::All], 1)),
        Loc::All => None,
    }
}

impl StepIndex {
    /// Files step number `self.len()` of thread `tid` with footprint `foot`.
    pub fn push(&mut self, tid: Tid, foot: &[Access]) {
        let step = self.filed.len() as u32;
        let mut filed: Vec<(Key, bool)> = Vec::new();
        for a in foot {
            for key in filing_keys(a.loc) {
                let write = a.write || a.loc == Loc::All;
                if filed.contains(&(key, write)) {
                    continue;
                }
                filed.push((key, write));
                let lists = self.by_key.entry(key).or_default();
                if lists.len() <= tid {
                    lists.resize_with(tid + 1, Lists::default);
                }
                let l = &mut lists[tid];
                if write {
                    l.writes.push(step);
                } else {
                    l.reads.push(step);
                }
            }
        }
        if self.by_thread.len() <= tid {
            self.by_thread.resize_with(tid + 1, Vec::new);
        }
        self.by_thread[tid].push(step);
        self.filed.push((tid, filed));
    }

    /// Removes the last step.
    pub fn pop(&mut self) {
        let Some((tid, filed)) = self.filed.pop() else {
            return;
        };
        let step = self.filed.len() as u32;
        for (key, write) in filed {
            if let Some(l) = self.by_key.get_mut(&key).and_then(|ls| ls.get_mut(tid)) {
                let list = if write { &mut l.writes } else { &mut l.reads };
                debug_assert_eq!(list.last(), Some(&step));
                list.pop();
            }
        }
        let popped = self.by_thread[tid].pop();
        debug_assert_eq!(popped, Some(step));
    }

    /// The number of steps filed.
    pub fn len(&self) -> usize {
        self.filed.len()
    }

    /// Thread `p`'s last step.
    pub fn last_of(&self, p: Tid) -> Option<usize> {
        self.by_thread.get(p)?.last().map(|&s| s as usize)
    }

    /// The threads with steps on the path (a superset of those that touch anything).
    pub fn threads(&self) -> std::ops::Range<Tid> {
        0..self.by_thread.len()
    }

    /// The steps of thread `u` that may conflict with an access of `foot`, newest
    /// first, each once: a superset of the steps dependent with `foot` (the caller tests
    /// each), exact enough that readers are skipped for a footprint that only reads.
    pub fn candidates(&self, u: Tid, foot: &[Access]) -> Candidates<'_> {
        let mut lists = Lists8::default();
        if foot.iter().any(|a| a.loc == Loc::All) {
            if let Some(all) = self.by_thread.get(u) {
                lists.push(all);
            }
            return Candidates { lists, last: None };
        }
        let mut push = |key: Key, reads: bool| {
            if let Some(l) = self.by_key.get(&key).and_then(|ls| ls.get(u)) {
                lists.push(&l.writes);
                if reads {
                    lists.push(&l.reads);
                }
            }
        };
        push(Key::All, true);
        for a in foot {
            if let Some((keys, n)) = query_keys(a.loc) {
                for &key in &keys[..n] {
                    push(key, a.write);
                }
            }
        }
        Candidates { lists, last: None }
    }
}

/// The step lists a query merges: inline up to eight (a footprint of one or two accesses
/// needs at most ten, and most have one), on the heap past that.
#[derive(Default)]
struct Lists8<'a> {
    inline: [&'a [u32]; 8],
    len: usize,
    more: Vec<&'a [u32]>,
}

impl<'a> Lists8<'a> {
    fn push(&mut self, l: &'a [u32]) {
        if l.is_empty() {
            return;
        }
        if self.len < self.inline.len() {
            self.inline[self.len] = l;
            self.len += 1;
        } else {
            self.more.push(l);
        }
    }

    /// The index of the list whose last step is the newest, and that step.
    fn newest(&self) -> Option<(usize, u32)> {
        let mut best: Option<(usize, u32)> = None;
        let all = self.inline[..self.len].iter().chain(self.more.iter());
        for (n, l) in all.enumerate() {
            if let Some(&t) = l.last() {
                if best.is_none_or(|(_, b)| t > b) {
                    best = Some((n, t));
                }
            }
        }
        best
    }

    /// Drops the last step of list `n`.
    fn drop_last(&mut self, n: usize) {
        let l = if n < self.len {
            &mut self.inline[n]
        } else {
            &mut self.more[n - self.len]
        };
        *l = &l[..l.len() - 1];
    }
}

/// A merge of ascending step lists, newest first, without repeats.
pub struct Candidates<'a> {
    lists: Lists8<'a>,
    last: Option<u32>,
}

impl Iterator for Candidates<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        loop {
            let (which, top) = self.lists.newest()?;
            self.lists.drop_last(which);
            if self.last != Some(top) {
                self.last = Some(top);
                return Some(top as usize);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(o: u32, off: u64) -> Loc {
        Loc::Mem(ObjInst(o), off)
    }

    #[test]
    fn a_read_finds_writers_of_its_cell_and_object_newest_first() {
        let mut ix = StepIndex::default();
        ix.push(1, &[Access::write(cell(1, 0))]); // 0
        ix.push(1, &[Access::read(cell(1, 0))]); // 1
        ix.push(1, &[Access::write(cell(1, 4))]); // 2
        ix.push(1, &[Access::write(Loc::Obj(ObjInst(1)))]); // 3
        ix.push(2, &[Access::write(cell(1, 0))]); // 4
        let read: Vec<usize> = ix.candidates(1, &[Access::read(cell(1, 0))]).collect();
        assert_eq!(read, vec![3, 0]);
        let write: Vec<usize> = ix.candidates(1, &[Access::write(cell(1, 0))]).collect();
        assert_eq!(write, vec![3, 1, 0]);
        let whole: Vec<usize> = ix
            .candidates(1, &[Access::read(Loc::Obj(ObjInst(1)))])
            .collect();
        assert_eq!(whole, vec![3, 2, 0]);
        assert_eq!(ix.candidates(2, &[Access::read(cell(1, 0))]).count(), 1);
    }

    #[test]
    fn everything_is_found_by_and_finds_every_query() {
        let mut ix = StepIndex::default();
        ix.push(1, &[Access::read(cell(1, 0))]); // 0
        ix.push(1, &[Access::write(Loc::All)]); // 1
        ix.push(1, &[Access::read(cell(2, 0))]); // 2
        let any: Vec<usize> = ix.candidates(1, &[Access::read(cell(9, 0))]).collect();
        assert_eq!(any, vec![1]);
        let all: Vec<usize> = ix.candidates(1, &[Access::read(Loc::All)]).collect();
        assert_eq!(all, vec![2, 1, 0]);
    }

    #[test]
    fn popping_unfiles_the_last_step() {
        let mut ix = StepIndex::default();
        ix.push(0, &[Access::write(cell(1, 0)), Access::read(cell(1, 0))]);
        ix.push(1, &[Access::write(cell(1, 0))]);
        ix.pop();
        assert_eq!(ix.len(), 1);
        assert_eq!(ix.candidates(1, &[Access::write(cell(1, 0))]).count(), 0);
        // Filed under the cell's writers and readers, returned once.
        let zero: Vec<usize> = ix.candidates(0, &[Access::write(cell(1, 0))]).collect();
        assert_eq!(zero, vec![0]);
        ix.pop();
        assert_eq!(ix.candidates(0, &[Access::write(cell(1, 0))]).count(), 0);
    }
}
