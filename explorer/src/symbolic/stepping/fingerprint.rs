//! State matching: a 128-bit fingerprint of a search state, so that a state reached again
//! by another interleaving is not explored twice.
//!
//! The fingerprint covers everything the future of a state depends on: every thread
//! (name, status, call stack with register values, loop counters, input and creation
//! counts, allocation counts, thread-locals), every memory object (liveness, flags,
//! cells), the mutexes, condition queues and atomic owner, and the path condition as a
//! set (with the pins). Terms are hash-consed in the engine's pool, so equal term ids are
//! equal terms; two states with equal fingerprints have the same successors and the same
//! goals, which is what makes skipping them sound for an exhaustive search. (The schedule
//! that led there does not count: only the witness differs.)

use super::super::path::PathCond;
use super::super::state::State;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

/// The fingerprint of a state on a path.
pub(super) fn fingerprint(st: &State, path: &PathCond) -> u128 {
    let mut lo = DefaultHasher::new();
    let mut hi = DefaultHasher::new();
    0xA9u8.hash(&mut hi);
    feed(st, path, &mut lo);
    feed(st, path, &mut hi);
    (u128::from(hi.finish()) << 64) | u128::from(lo.finish())
}

fn feed(st: &State, path: &PathCond, h: &mut impl Hasher) {
    st.threads.len().hash(h);
    for th in &st.threads {
        th.key.hash(h);
        th.status.hash(h);
        th.atomic.hash(h);
        th.inputs.hash(h);
        th.created.hash(h);
        for (site, n) in &th.allocs {
            (site, n).hash(h);
        }
        th.tls.hash(h);
        th.frames.len().hash(h);
        for f in &th.frames {
            (f.func, f.block, f.index).hash(h);
            f.regs.hash(h);
            f.slots.hash(h);
            f.ret_dst.hash(h);
            f.loops.hash(h);
        }
    }
    st.mem.objects.len().hash(h);
    for (id, o) in &st.mem.objects {
        id.hash(h);
        (o.size, o.live, o.zero_default, o.read_only, o.heap).hash(h);
        o.cells.len().hash(h);
        for (off, c) in &o.cells {
            (off, c.bytes, c.val).hash(h);
        }
    }
    st.mutexes.hash(h);
    st.conds.hash(h);
    st.atomic_owner.hash(h);
    let mut pcon: Vec<_> = path.pcon.iter().map(|t| t.index()).collect();
    pcon.sort_unstable();
    pcon.dedup();
    pcon.hash(h);
    let mut pins: Vec<(usize, u64)> = path.pins.iter().map(|(t, v)| (t.index(), *v)).collect();
    pins.sort_unstable();
    pins.hash(h);
}
