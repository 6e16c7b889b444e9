//! Predicate summaries (§4-§6 of the assertion-guided paper): weakest preconditions,
//! the bounded summary table PS, and the read/write tables RVar/WVar.
//!
//! # Weakest preconditions
//! While a step runs forward, each statement also yields its transformer over *state
//! variables* ([`Var::Reg`], [`Var::Cell`], a thread's return value, and inputs yet to be
//! read): assignments `v := e` and assumptions `c` (branch conditions taken, address and
//! thread-id concretizations, the absence of division by zero, ...). When the subtree
//! below a statement has been explored, its precondition is computed backwards:
//!
//! ```text
//! WP(v := e, φ) = φ[e/v]        WP(assume c, φ) = φ ∧ c
//! wp[b-PP]  = ∨ over explored sides  (c_i ∧ wp_i)      (a side never explored adds false)
//! wp[i-PP]  = ∧ over explored threads wp_t             (under-approximates, §4.2)
//! wp[end]   = true      wp[violation, cut by a bound, unsupported] = false
//! ```
//!
//! A state satisfying `wp[n]` follows only explored, violation-free paths from `n`.
//!
//! # Keys: nodes of the generalized interleaving graph
//! A node is named by [`State::key`](super::state::State::key): every thread's call stack
//! (function, block, statement) with the iteration count of each loop entered in each
//! frame (so unrolled iterations are distinct nodes), thread statuses, lock owners,
//! condition waiters, the atomic-section owner, the live objects, and the *shape* of
//! every value (integer width, pointed-to object, function). Two states with one key
//! differ only in integer bits and pointer offsets, which are exactly the state
//! variables of a summary, so `PS[key]` can be instantiated on any of them.
//!
//! # Pruning
//! `PS[key, S]` is the disjunction of `wp[n]` over the explored nodes `n` with that key
//! whose sleep set on entry was `S` (see "Sleep sets"; `S = ∅` only, with
//! `Config::sleep_summaries` off). At a node `m` with sleep set `S(m)`, path condition
//! `pcon` and values `M`, let `PS = ∨ PS[key, S]` over the recorded `S ⊆ S(m)`; if
//! `pcon ∧ ¬PS[M]` is unsatisfiable the subtree is skipped (a partial run) and its wp
//! is `PS`. Inputs read after a node are universally quantified: in the table they are
//! [`Var::Fut`] (relative to each thread's input count at the node).
//!
//! # Sleep sets
//! A sleep set `S` is a set of pairs (thread name, footprint of its pending event).
//! A sleeping thread has not moved since it fell asleep, so its footprint is that of
//! its pending statement at the node (checked by a debug assertion in
//! `Engine::sleep_key_of`); with one key the pending statements coincide, and so do the
//! footprints once `wp[n]` holds (it assumes the values of every register a pending
//! event uses as an address or thread id: `Engine::node`). Pairs are compared whole, so
//! a footprint that differs only makes `S ⊆ S(m)` fail (no prune).
//!
//! *Obligation.* For a node `x` with sleep set `S(x)`, let `Ob(x)` be the Mazurkiewicz
//! traces from `state(x)` that do not start with a pending event of `S(x)`: no
//! `(t, e) ∈ S(x)` such that `t`'s first event in the trace is `e` and `e` is
//! independent of every event before it. (Traces are taken under the dependence DPOR's
//! races use, which leaves out pairs of plain accesses both outside the Type B slice,
//! see `type_b`; "independent" in the sleep sets is under the full dependence, which
//! wakes threads more often: a trace that starts with `e` in that sense does under
//! the smaller one too, so the argument below holds with either reading.)
//!
//! *Claim 1 (the subtree does its obligation).* When DPOR with sleep sets has finished
//! the subtree of `x`, every trace of `Ob(x)` has an explored linearization in it, or
//! reaches a node whose wp is `false`. This is the invariant of the sleep-set theorem
//! (Godefroid, thesis ch. 5-6) and of the DPOR proofs (Flanagan-Godefroid Thm. 1;
//! Abdulla et al.'s source-DPOR lemma "after `Explore(E, Sleep)`, every maximal `E.w`
//! with `WI(w) ∩ Sleep = ∅` is explored modulo ≃"), and it is local to the subtree: the
//! races that must be reversed to reach a trace from `state(x)` are between events
//! after `x`, and their backtrack points are nodes of the subtree (backtrack points are
//! only added on the current path; a race with a step above `x` adds one above `x`,
//! for traces that do not start at `state(x)`). A thread that sleeps at a node `y`
//! below `x` either sleeps at `x` too (then the traces it starts at `y` start with it
//! at `x` as well: its event is independent of every step from `x` to `y`) or was
//! explored at an ancestor `z` of `y` below or at `x` (then they are explored from `z`).
//! Every way a subtree is cut short claims nothing or claims only its own obligation:
//! a revisited state (a cycle, `expand_fully` on a node that may lie above `x`), a
//! bound (events, unwinding, time, states), an unsupported statement, a saturated
//! access table or an over-large wp all make the wp `false`; a node where every enabled
//! thread sleeps has `Ob = ∅` (its wp `true` is right); a Type A cut has no target left
//! below it (wp `true`) and checks its accesses as a pruned node does; a pruned node
//! `m'` uses `PS[key, S']` with `S' ⊆ S(m')`, so by Claim 2 it covers `Ob(m')`.
//! Hence `wp[x]` (the conjunction over the explored children) means: a state with
//! `x`'s key satisfying it has no violation in any trace of `Ob(x)` — violations are
//! events, and equivalent traces have the same events.
//!
//! *Claim 2 (pruning).* Let `n` be recorded with `S(n) ⊆ S(m)`. A trace starting with
//! an event of `S(n)` at `m` starts with it by `S(m)` too, so `Ob(m) ⊆ Ob(n)` (same key,
//! same pending events). If `pcon(m) ∧ ¬wp[n]` is unsatisfiable, `state(m)` satisfies
//! `wp[n]` and no trace of `Ob(m)` violates. The traces from `state(m)` outside
//! `Ob(m)` start with a pending event of `S(m)`, and DPOR without pruning would not
//! explore them below `m` either: they are explored from the ancestor where the
//! sleeping thread was scheduled (the sleep-set theorem). A disjunction of several such
//! `wp[n]` is again a precondition for `Ob(m)`.
//!
//! *Races above the pruned node.* Pruning `m` must add (or, with `Repair::Strict`,
//! find present) every backtrack point above `m` that exploring `m`'s subtree would
//! have added. DPOR below `m` explores only `Ob(m)` (plus prefixes of runs ended by
//! sleep sets, whose events recur in explored runs of `Ob(m)` or of the siblings), so
//! the accesses of `Ob(m)` are what it replays; they are among the accesses recorded
//! for `n` (every event of a trace of `Ob(m) ⊆ Ob(n)` occurs in its explored
//! linearization below `n`). The flags are universal over the recorded occurrences
//! (`after`: threads after the node that happen before every occurrence; `covered`:
//! every occurrence races with a step after the node, so only the last race, which is
//! below the node, gets a backtrack point — the same on any path to the key, since the
//! steps after the node are the same), so they hold for the subset. Accesses of visits
//! under another sleep set join a variant only with `covered = false`
//! (`Summaries::record`): they may have occurrences outside its obligation.
//!
//! A parked spinning thread (`Status::Spinning`) is not live, so it is in no sleep
//! set; the runs where its loop exits are reached by reversing the races of its reads,
//! which are DPOR races as any other (`tests/spin_reduction.rs`).
//!
//! *Where it is not used.* With a preemption bound a skipped child is not made `false`
//! and the budget left at a node is not in its key: only sleep-free visits record a
//! summary then (as before). `--since` carries the sleep set with the summary (in
//! stable names, [`super::carry::SSleeper`]), and a carried summary prunes only where
//! its sleep set is within the node's. Across versions the node is clean (no harmful
//! change runs after it), so the old obligation is about the same code; a harmless
//! changed statement `h` may be dependent with a sleeping event only if both are
//! outside the slice (a write read by a slice statement is in the slice), and swapping
//! those is invisible to every property (`carry`, "Harmless changes").
//!
//! # Bounds (§6.2)
//! The table has a fixed number of slots, indexed by a hash of the key; a key meeting an
//! occupied slot of another key replaces it (dropping a summary only weakens pruning). A
//! summary stops growing once its term has `size_bound` nodes.

use super::dpor::{Access, Footprint, VClock};
#[cfg(test)]
use super::model::topological;
use super::names::ThreadKey;
use super::term::{var_bloom, Node, TermId, TermPool, Var};
use rustc_hash::FxHashMap;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

/// One step of a weakest-precondition transformer.
#[derive(Clone, Debug)]
pub enum WpOp {
    /// `var := term` (the variable has the given width).
    Set(Var, u8, TermId),
    /// `assume term`.
    Assume(TermId),
}

/// The register number used for a thread's return value in [`Var::Reg`].
pub const RET_DEPTH: u32 = u32::MAX;

/// Applies `ops` (in execution order) backwards to `post`.
///
/// Computed forwards, as one simultaneous substitution `σ` from each assigned variable
/// to its value over the variables before the first operation: `v := e` sets
/// `σ(v) = e[σ]`, `assume c` records `c[σ]`; at the end `wp = post[σ] ∧ assumptions`.
/// Each operation costs the size of its own term (small: one statement's value), and
/// `post` is substituted once. (Substituting every assignment into the values of the
/// later ones, working backwards, cost the square of the number of assignments even
/// for a `true` postcondition: a step of 5,000 assignments took two minutes.)
pub fn wp_of(pool: &mut TermPool, ops: &[WpOp], post: TermId) -> TermId {
    if pool.is_false(post) {
        return post;
    }
    let mut sigma: FxHashMap<TermId, TermId> = FxHashMap::default();
    let mut bits = 0;
    let mut assumed: Vec<TermId> = Vec::new();
    for op in ops {
        match *op {
            WpOp::Set(v, w, e) => {
                let value = if sigma.is_empty() {
                    e
                } else {
                    substitute(pool, e, &sigma, bits)
                };
                let target = pool.var(v, w);
                sigma.insert(target, value);
                bits |= var_bloom(v);
            }
            WpOp::Assume(c) => {
                if pool.is_false(c) {
                    return c;
                }
                if !pool.is_true(c) {
                    let c = if sigma.is_empty() {
                        c
                    } else {
                        substitute(pool, c, &sigma, bits)
                    };
                    assumed.push(c);
                }
            }
        }
    }
    let mut phi = if sigma.is_empty() {
        post
    } else {
        substitute(pool, post, &sigma, bits)
    };
    for c in assumed.into_iter().rev() {
        phi = pool.and(phi, c);
    }
    phi
}

/// Replaces the variable terms in `map` (keys are variable terms) throughout `phi`;
/// `bits` is the union of the keys' Bloom bits (subterms without them are kept).
pub fn substitute(
    pool: &mut TermPool,
    phi: TermId,
    map: &FxHashMap<TermId, TermId>,
    bits: u64,
) -> TermId {
    let order = touched(pool, phi, bits);
    if order.is_empty() {
        return phi;
    }
    thread_local! {
        // The new term of each touched term, by id (reused across calls: a map per
        // call was most of a step's weakest precondition). A child is touched exactly
        // when its Bloom bits meet `bits` (`touched` enters every such child), so an
        // entry is read only after this call wrote it.
        static DONE: std::cell::RefCell<Vec<TermId>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    DONE.with(|buf| {
        let mut done = buf.borrow_mut();
        // `order` ascends: its last term has the largest id.
        let need = order.last().map_or(0, |t| t.index() + 1);
        if done.len() < need {
            done.resize(need, phi);
        }
        for &t in &order {
            let new = if let Some(&r) = map.get(&t) {
                r
            } else {
                let node = pool.node(t).clone();
                let kids = pool.children(&node);
                if kids.is_empty() {
                    t
                } else {
                    let mut new_kids = kids;
                    let mut changed = false;
                    for (i, k) in kids.iter().enumerate() {
                        if pool.bloom(*k) & bits != 0 {
                            let r = done[k.index()];
                            changed |= r != *k;
                            new_kids.set(i, r);
                        }
                    }
                    if changed {
                        pool.rebuild(&node, &new_kids)
                    } else {
                        t
                    }
                }
            };
            done[t.index()] = new;
        }
        done[phi.index()]
    })
}

/// The largest number of subterms [`touched`] reserves room for before walking.
const TOUCHED_HINT_MAX: usize = 4096;

/// The subterms of `phi` (including `phi`) whose Bloom bits meet `bits`, children before
/// parents (ascending ids, as hash-consing creates children first). A node's bits are
/// the union of its children's, so a subterm without them has no descendant with them:
/// the walk does not enter it (the whole DAG was walked before, for every step's wp).
fn touched(pool: &TermPool, phi: TermId, bits: u64) -> Vec<TermId> {
    if pool.bloom(phi) & bits == 0 {
        return Vec::new();
    }
    // The tree size bounds the number of subterms: sizing the set for it (up to a few
    // thousand) saves the rehashes of growing it, which showed in profiles.
    let hint = (pool.size(phi) as usize).min(TOUCHED_HINT_MAX);
    let mut out = Vec::with_capacity(hint);
    let mut seen = rustc_hash::FxHashSet::with_capacity_and_hasher(hint, Default::default());
    let mut stack = vec![phi];
    while let Some(x) = stack.pop() {
        if seen.insert(x) {
            out.push(x);
            let kids = pool.children(pool.node(x));
            stack.extend(kids.iter().filter(|k| pool.bloom(**k) & bits != 0));
        }
    }
    out.sort_unstable();
    out
}

/// Renames input variables: `Input{t, i}` becomes `Fut{t, i - base(t)}` (`to_fut`) or
/// `Fut{t, j}` becomes `Input{t, base(t) + j}`. `None` if `phi` mentions an input read
/// before the node (it cannot be renamed into a future one). The search uses
/// [`rename_inputs_memo`], which builds the same terms; this is its reference.
#[cfg(test)]
pub fn rename_inputs(
    pool: &mut TermPool,
    phi: TermId,
    base: &dyn Fn(ThreadKey) -> u32,
    to_fut: bool,
) -> Option<TermId> {
    let mut map = FxHashMap::default();
    let mut bits = 0;
    for (v, w) in pool.input_vars(phi) {
        let renamed = match v {
            Var::Input { thread, index } if to_fut => Var::Fut {
                thread,
                index: index.checked_sub(base(thread))?,
            },
            Var::Fut { thread, index } if !to_fut => Var::Input {
                thread,
                index: base(thread) + index,
            },
            _ => continue,
        };
        let from = pool.var(v, w);
        let to = pool.var(renamed, w);
        map.insert(from, to);
        bits |= var_bloom(v);
    }
    if map.is_empty() {
        return Some(phi);
    }
    Some(substitute(pool, phi, &map, bits))
}

/// The most subterms [`RenameMemo`] and the most values [`InstMemo`] keep before they
/// start over (a few tens of MB).
const MEMO_MAX: usize = 1 << 21;

/// Input renamings done so far, by subterm: a node's weakest precondition shares most of
/// its subterms with its children's, and every node renames its own (`record_summary`),
/// so renaming each subterm once per renaming makes the work proportional to the new
/// subterms rather than to the whole precondition (a quarter of scull's search).
#[derive(Default)]
pub struct RenameMemo {
    /// Renamings by direction (`to_fut`) and every thread's base, numbered.
    renamings: FxHashMap<(bool, Vec<(ThreadKey, u32)>), u32>,
    /// `(renaming, t)` ↦ `t` renamed (`None`: it mentions an input read before the
    /// node); only for terms that mention an input (the others stay as they are).
    done: FxHashMap<(u32, TermId), Option<TermId>>,
}

/// [`rename_inputs`] with the bases `cursors` (a thread missing there has base 0), its
/// results kept in `memo`: the same term as `rename_inputs` builds (each subterm's
/// result depends only on its children's, and terms are hash-consed).
pub fn rename_inputs_memo(
    pool: &mut TermPool,
    memo: &mut RenameMemo,
    phi: TermId,
    cursors: &FxHashMap<ThreadKey, u32>,
    to_fut: bool,
) -> Option<TermId> {
    if !pool.has_inputs(phi) {
        return Some(phi);
    }
    if memo.done.len() > MEMO_MAX {
        *memo = RenameMemo::default();
    }
    let mut bases: Vec<(ThreadKey, u32)> = cursors.iter().map(|(&k, &b)| (k, b)).collect();
    bases.sort_unstable();
    let fresh = memo.renamings.len() as u32;
    let id = *memo.renamings.entry((to_fut, bases)).or_insert(fresh);
    if let Some(&r) = memo.done.get(&(id, phi)) {
        return r;
    }
    // The subterms with inputs not renamed yet, children before parents (ascending ids).
    let mut order = Vec::new();
    let mut seen = rustc_hash::FxHashSet::default();
    let mut stack = vec![phi];
    while let Some(x) = stack.pop() {
        if seen.insert(x) {
            order.push(x);
            let kids = pool.children(pool.node(x));
            stack.extend(
                kids.iter()
                    .filter(|k| pool.has_inputs(**k) && !memo.done.contains_key(&(id, **k))),
            );
        }
    }
    order.sort_unstable();
    let base = |k: ThreadKey| cursors.get(&k).copied().unwrap_or(0);
    for t in order {
        let node = pool.node(t).clone();
        let new = match node {
            Node::Var { var, width } => match var {
                Var::Input { thread, index } if to_fut => index
                    .checked_sub(base(thread))
                    .map(|index| pool.var(Var::Fut { thread, index }, width)),
                Var::Fut { thread, index } if !to_fut => Some(pool.var(
                    Var::Input {
                        thread,
                        index: base(thread) + index,
                    },
                    width,
                )),
                _ => Some(t),
            },
            _ => {
                let kids = pool.children(&node);
                let mut new_kids = kids;
                let mut changed = false;
                let mut failed = false;
                for (i, k) in kids.iter().enumerate() {
                    if !pool.has_inputs(*k) {
                        continue;
                    }
                    match memo.done[&(id, *k)] {
                        Some(r) => {
                            changed |= r != *k;
                            new_kids.set(i, r);
                        }
                        None => failed = true,
                    }
                }
                if failed {
                    None
                } else if changed {
                    Some(pool.rebuild(&node, &new_kids))
                } else {
                    Some(t)
                }
            }
        };
        memo.done.insert((id, t), new);
    }
    memo.done[&(id, phi)]
}

/// Instantiated summaries, by summary and the values of its variables (as
/// `Engine::instantiate` lists them): a summary is checked again and again at nodes of
/// its key with the same values (most prune checks of scull ask the solver a query it
/// has answered before), and substituting it is the cost of the check.
#[derive(Default)]
pub struct InstMemo {
    done: FxHashMap<(TermId, Box<[TermId]>), TermId>,
    /// The number of values held in `done`'s keys.
    held: usize,
}

impl InstMemo {
    pub fn get(&self, phi: TermId, values: &[TermId]) -> Option<TermId> {
        // A boxed slice hashes and compares as the slice.
        self.done.get(&(phi, Box::from(values))).copied()
    }

    pub fn insert(&mut self, phi: TermId, values: Vec<TermId>, inst: TermId) {
        if self.held > MEMO_MAX {
            *self = InstMemo::default();
        }
        self.held += values.len() + 1;
        self.done.insert((phi, values.into_boxed_slice()), inst);
    }
}

/// An access recorded in RVar/WVar: a thread (by stable name) and what it accessed.
pub type RwEntry = (ThreadKey, Access);

/// What is known of one access's occurrences below a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Occurrences {
    /// A lower bound of the clocks of the accessing thread before each occurrence (the
    /// pointwise minimum), on the current path's clock scale.
    pub clock: VClock,
    /// The smallest, over the occurrences, index of the last step of the path racing
    /// with the occurrence (`None`: some occurrence raced with no step).
    pub last_race: Option<usize>,
}

/// The most distinct accesses below a node for which its summary is recorded: recording
/// one costs the table's size at every node of the path (quadratic in a long run over
/// many cells).
pub const MAX_RECORDED_ACCESSES: usize = 1024;

/// The accesses made below a node, or only the fact that there were more than
/// [`MAX_RECORDED_ACCESSES`] distinct ones (`saturated`). Distinct accesses only grow
/// towards the root (a node's accesses include each child's), so no node above a
/// saturated one records a summary either: its entries are dropped, and the engine stops
/// computing weakest preconditions for it (see `Engine::with_ops`), which is most of the
/// cost of unwinding a long run.
#[derive(Clone, Debug, Default)]
pub struct Accesses {
    map: FxHashMap<RwEntry, Occurrences>,
    saturated: bool,
}

impl Accesses {
    pub fn add(&mut self, entry: RwEntry, clock: &VClock, last_race: Option<usize>) {
        if self.saturated {
            return;
        }
        self.map
            .entry(entry)
            .and_modify(|o| {
                o.clock = o.clock.meet(clock);
                o.last_race = o.last_race.min(last_race);
            })
            .or_insert_with(|| Occurrences {
                clock: clock.clone(),
                last_race,
            });
        self.saturate_if_over();
    }

    /// Merges `other` in (the smaller map into the larger: merging is symmetric, and a
    /// node's accesses are mostly its one child's).
    pub fn extend(&mut self, mut other: Accesses) {
        if other.saturated {
            *self = other;
            return;
        }
        if self.saturated {
            return;
        }
        if other.map.len() > self.map.len() {
            std::mem::swap(self, &mut other);
        }
        for (e, o) in other.map {
            self.add(e, &o.clock, o.last_race);
            if self.saturated {
                return;
            }
        }
    }

    /// More than [`MAX_RECORDED_ACCESSES`] distinct accesses: no summary is recorded
    /// here or above.
    pub fn saturated(&self) -> bool {
        self.saturated
    }

    fn saturate_if_over(&mut self) {
        if self.map.len() > MAX_RECORDED_ACCESSES {
            self.map = FxHashMap::default();
            self.saturated = true;
        }
    }

    /// Relative to a node reached after `since` steps of the path, whose threads are
    /// `keys` (by runtime id): for each entry, the threads with a step after the node
    /// that happens before (every occurrence of) it, and whether every occurrence's last
    /// race was with a step after the node. Happens-before established before the node
    /// depends on the path to it and is not kept: another path to the same node may
    /// order the threads differently; the races among steps after the node do not.
    pub fn relative_to(&self, keys: &[ThreadKey], since: usize) -> RwTable {
        let mut out = RwTable::with_capacity_and_hasher(self.map.len(), Default::default());
        for (e, o) in &self.map {
            let after: Vec<ThreadKey> = keys
                .iter()
                .enumerate()
                .filter(|(q, _)| o.clock.get(*q) as usize > since)
                .map(|(_, k)| *k)
                .collect();
            let covered = o.last_race.is_some_and(|i| i >= since);
            out.insert(*e, Recorded { after, covered });
        }
        out
    }
}

/// RVar/WVar of one node for one access below it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    /// The threads (by name) with a step after the node happening before every
    /// occurrence (so, on any path to the node, the steps before those threads'
    /// positions happen before the access too).
    pub after: Vec<ThreadKey>,
    /// Every occurrence's last race was with a step after the node: DPOR reverses it
    /// below the node, and no step before the node needs a backtrack point for it.
    pub covered: bool,
}

/// RVar/WVar of one node.
pub type RwTable = FxHashMap<RwEntry, Recorded>;

/// A sleep set in the table's terms: each sleeping thread by name with its pending
/// event's footprint (sorted and without repeats), sorted by thread.
pub type SleepKey = Vec<(ThreadKey, Footprint)>;

/// The [`SleepKey`] of sleeping threads given by name with their footprints.
pub fn sleep_key(entries: impl IntoIterator<Item = (ThreadKey, Footprint)>) -> SleepKey {
    let mut out: SleepKey = entries
        .into_iter()
        .map(|(k, mut f)| {
            f.sort_unstable();
            f.dedup();
            (k, f)
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Is every sleeping thread of `small` (with the same pending event) asleep in `large`?
pub fn sleep_within(small: &SleepKey, large: &SleepKey) -> bool {
    small.iter().all(|e| large.binary_search(e).is_ok())
}

/// The most sleep sets one key keeps a summary for.
pub const MAX_VARIANTS: usize = 4;

/// What is known of a key's visits under one sleep set.
struct Variant {
    sleep: SleepKey,
    /// The summary, with inputs as `Fut`; `None` while no visit under `sleep` that
    /// claims something finished.
    ps: Option<TermId>,
    /// `ps` has reached the size bound, so it stops growing (known once, instead of
    /// measuring its DAG again at every later visit of the key).
    full: bool,
    /// An upper bound of `ps`'s DAG size (distinct subterms): while it is below the
    /// size bound, `ps` is, and the DAG need not be measured.
    size: u32,
    /// Shared with the lookups that return it (most prune checks fail, and copying the
    /// table for each was a tenth of the search's time on reorder_5).
    rw: Rc<RwTable>,
}

struct Entry {
    key: Box<[u64]>,
    /// [`key_hash`] of `key`.
    hash: u64,
    /// One per sleep set the key was visited under (at most [`MAX_VARIANTS`]).
    variants: Vec<Variant>,
}

/// Adds one visit's accesses to a table: only what every visit guarantees.
/// `keep_covered`: the visit's `covered` flags hold for the table's sleep set.
fn merge_rw(into: &mut RwTable, rw: &RwTable, keep_covered: bool) {
    for (entry, rec) in rw {
        match into.get_mut(entry) {
            Some(known) => {
                known.after.retain(|k| rec.after.contains(k));
                known.covered &= rec.covered && keep_covered;
            }
            None => {
                let mut rec = rec.clone();
                rec.covered &= keep_covered;
                into.insert(*entry, rec);
            }
        }
    }
}

/// The hash of a key that picks its slot in [`Summaries`].
pub fn key_hash(key: &[u64]) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    key.hash(&mut h);
    h.finish()
}

/// The bounded summary table.
pub struct Summaries {
    slots: Vec<Option<Entry>>,
    size_bound: u32,
    /// Summaries dropped because another key took their slot.
    pub evictions: u64,
}

/// What the table knows about a key under one sleep set (for exporting).
pub struct Known<'a> {
    pub ps: Option<TermId>,
    pub rw: &'a Rc<RwTable>,
    pub sleep: &'a SleepKey,
}

/// The summary a node may be pruned with: the disjunction of the key's summaries
/// recorded under sleep sets within the node's, with the accesses of all of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Usable {
    pub ps: TermId,
    pub rw: Rc<RwTable>,
}

impl Summaries {
    pub fn new(slots: usize, size_bound: u32) -> Summaries {
        Summaries {
            slots: (0..slots.max(1)).map(|_| None).collect(),
            size_bound,
            evictions: 0,
        }
    }

    fn slot(&self, key: &[u64]) -> usize {
        self.slot_of_hash(key_hash(key))
    }

    fn slot_of_hash(&self, hash: u64) -> usize {
        (hash % self.slots.len() as u64) as usize
    }

    /// Every key with its summary under the smallest sleep set it has one for (for
    /// exporting them: one per key).
    pub fn entries(&self) -> impl Iterator<Item = (&[u64], Known<'_>)> {
        self.slots.iter().flatten().filter_map(|e| {
            let v = e
                .variants
                .iter()
                .filter(|v| v.ps.is_some())
                .min_by_key(|v| v.sleep.len())?;
            Some((
                &*e.key,
                Known {
                    ps: v.ps,
                    rw: &v.rw,
                    sleep: &v.sleep,
                },
            ))
        })
    }

    /// The summary for `key` usable at a node whose sleep set is `sleep`: the
    /// disjunction of the variants recorded under sleep sets within `sleep` (see the
    /// module doc, "Sleep sets"), with all their accesses; `None` if there is none.
    pub fn lookup(&self, pool: &mut TermPool, key: &[u64], sleep: &SleepKey) -> Option<Usable> {
        let e = self.slots[self.slot(key)].as_ref()?;
        if *e.key != *key {
            return None;
        }
        let mut out: Option<Usable> = None;
        for v in &e.variants {
            let Some(ps) = v.ps else { continue };
            if !sleep_within(&v.sleep, sleep) {
                continue;
            }
            match &mut out {
                None => {
                    out = Some(Usable {
                        ps,
                        rw: v.rw.clone(),
                    })
                }
                Some(u) => {
                    u.ps = pool.or(u.ps, ps);
                    merge_rw(Rc::make_mut(&mut u.rw), &v.rw, true);
                }
            }
        }
        out
    }

    /// Does the table hold an entry for `key`?
    pub fn holds(&self, key: &[u64]) -> bool {
        self.slots[self.slot(key)]
            .as_ref()
            .is_some_and(|e| *e.key == *key)
    }

    /// Drops what is known of `key` (as an eviction would).
    #[cfg(test)]
    pub fn forget(&mut self, key: &[u64]) {
        let i = self.slot(key);
        if self.slots[i].as_ref().is_some_and(|e| *e.key == *key) {
            self.slots[i] = None;
        }
    }

    /// Drops what is known of the key whose [`key_hash`] is `hash`: of that key, and of
    /// any other key with the same hash in its slot (dropping a summary only weakens
    /// pruning). For callers that keep a node's hash rather than its whole key.
    pub fn forget_hashed(&mut self, hash: u64) {
        let i = self.slot_of_hash(hash);
        if self.slots[i].as_ref().is_some_and(|e| e.hash == hash) {
            self.slots[i] = None;
        }
    }

    /// Records one finished visit of `key` under the sleep set `sleep`: its wp (with
    /// inputs already as `Fut`; `None` when the visit claims nothing) and the accesses
    /// made below it. A visit with a wp joins the variant of its sleep set (a new one if
    /// there is room: at most [`MAX_VARIANTS`], a smaller sleep set replacing the
    /// largest); a visit without one only adds its accesses to every variant (the table
    /// only grows more cautious), its `covered` flags only to the variant of its own
    /// sleep set.
    pub fn record(
        &mut self,
        pool: &mut TermPool,
        key: Vec<u64>,
        sleep: &SleepKey,
        wp: Option<TermId>,
        rw: &RwTable,
    ) {
        let i = self.slot(&key);
        let fresh = match &self.slots[i] {
            Some(e) => *e.key != *key,
            None => true,
        };
        if fresh {
            if self.slots[i].is_some() {
                self.evictions += 1;
            }
            self.slots[i] = Some(Entry {
                hash: key_hash(&key),
                key: key.into_boxed_slice(),
                variants: Vec::new(),
            });
        }
        let bound = self.size_bound;
        let e = self.slots[i].as_mut().expect("slot just filled");
        let Some(wp) = wp else {
            for v in &mut e.variants {
                let same = v.sleep == *sleep;
                merge_rw(Rc::make_mut(&mut v.rw), rw, same);
            }
            return;
        };
        let at = match e.variants.iter().position(|v| v.sleep == *sleep) {
            Some(at) => at,
            None => {
                if e.variants.len() >= MAX_VARIANTS {
                    let (largest, len) = e
                        .variants
                        .iter()
                        .enumerate()
                        .map(|(j, v)| (j, v.sleep.len()))
                        .max_by_key(|&(_, len)| len)
                        .expect("the entry has variants");
                    if len <= sleep.len() {
                        return;
                    }
                    e.variants.swap_remove(largest);
                }
                e.variants.push(Variant {
                    sleep: sleep.clone(),
                    ps: None,
                    full: false,
                    size: 0,
                    rw: Rc::default(),
                });
                e.variants.len() - 1
            }
        };
        let v = &mut e.variants[at];
        if v.ps.is_none() {
            v.rw = Rc::new(rw.clone());
        } else {
            merge_rw(Rc::make_mut(&mut v.rw), rw, true);
        }
        // `or(ps, wp)` has at most `|ps| + |wp| + 1` distinct subterms (it may fold to
        // fewer): `size` bounds `ps`'s, and `ps` is measured only when the bound is not
        // below `bound` (the same decision as measuring it every time).
        v.ps = Some(match v.ps {
            None => {
                v.size = pool.size(wp);
                wp
            }
            Some(ps) if !v.full => {
                let below = if v.size < bound {
                    Some(v.size)
                } else {
                    Some(pool.dag_size(ps, bound)).filter(|&d| d < bound)
                };
                match below {
                    Some(size) => {
                        v.size = size.saturating_add(pool.size(wp)).saturating_add(1);
                        pool.or(ps, wp)
                    }
                    None => {
                        v.full = true;
                        ps
                    }
                }
            }
            Some(ps) => ps,
        });
    }
}

#[cfg(test)]
/// Does a term mention a thread's return value or a register of `depth`? (for tests)
pub fn mentions(pool: &TermPool, phi: TermId, pred: &dyn Fn(&Var) -> bool) -> bool {
    topological(pool, phi)
        .into_iter()
        .any(|t| matches!(pool.node(t), super::term::Node::Var { var, .. } if pred(var)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbolic::names::ObjInst;
    use crate::symbolic::term::CmpOp;
    use analysis::ir::RegId;

    #[test]
    fn wp_substitutes_and_conjoins_backwards() {
        // x := g; assume(x > 0); g := x + 1  with postcondition g <= 10.
        let mut p = TermPool::new();
        let t = ThreadKey(0);
        let x = Var::Reg {
            thread: t,
            depth: 0,
            reg: RegId(0),
        };
        let g = Var::Cell {
            obj: ObjInst(0),
            offset: 0,
        };
        let xv = p.var(x, 32);
        let gv = p.var(g, 32);
        let zero = p.bv_const(0, 32);
        let one = p.bv_const(1, 32);
        let ten = p.bv_const(10, 32);
        let pos = p.cmp(CmpOp::Slt, zero, xv);
        let inc = p.bin(super::super::term::BvOp::Add, xv, one);
        let post = p.cmp(CmpOp::Sle, gv, ten);
        let ops = vec![
            WpOp::Set(x, 32, gv),
            WpOp::Assume(pos),
            WpOp::Set(g, 32, inc),
        ];
        let wp = wp_of(&mut p, &ops, post);
        // Expected: (g + 1 <= 10) && (0 < g)
        let g1 = p.bin(super::super::term::BvOp::Add, gv, one);
        let a = p.cmp(CmpOp::Sle, g1, ten);
        let b = p.cmp(CmpOp::Slt, zero, gv);
        let expected = p.and(a, b);
        assert_eq!(wp, expected);
    }

    #[test]
    fn inputs_round_trip_through_future_names() {
        let mut p = TermPool::new();
        let t = ThreadKey(3);
        let i5 = p.var(
            Var::Input {
                thread: t,
                index: 5,
            },
            32,
        );
        let zero = p.bv_const(0, 32);
        let phi = p.cmp(CmpOp::Slt, zero, i5);
        let fut = rename_inputs(&mut p, phi, &|_| 4, true).unwrap();
        assert!(mentions(&p, fut, &|v| matches!(
            v,
            Var::Fut { index: 1, .. }
        )));
        let back = rename_inputs(&mut p, fut, &|_| 9, false).unwrap();
        assert!(mentions(&p, back, &|v| matches!(
            v,
            Var::Input { index: 10, .. }
        )));
        // An input read before the node has no future name.
        assert!(rename_inputs(&mut p, phi, &|_| 6, true).is_none());
    }

    /// The memoized renaming builds the very term `rename_inputs` builds, also when its
    /// memo holds the renamings of earlier terms sharing subterms, and fails where it
    /// fails.
    #[test]
    fn memoized_renaming_equals_the_substitution() {
        let mut p = TermPool::new();
        let mut memo = RenameMemo::default();
        let mut seed = 11u64;
        let mut renamed = 0;
        let mut failed = 0;
        let mut earlier: Vec<TermId> = Vec::new();
        for round in 0..300u32 {
            // Cells and inputs of two threads, over earlier formulas (shared subterms).
            let cells = random_formula(&mut p, &mut seed, 3);
            let t = ThreadKey(round % 2);
            let i = p.var(
                Var::Input {
                    thread: t,
                    index: round % 7,
                },
                8,
            );
            let c = p.var(
                Var::Cell {
                    obj: ObjInst(0),
                    offset: (round % 4) as u64,
                },
                8,
            );
            let sum = p.bin(super::super::term::BvOp::Add, i, c);
            let k = p.bv_const(u64::from(round % 256), 8);
            let atom = p.cmp(CmpOp::Ult, sum, k);
            let mut phi = p.or(cells, atom);
            if let Some(&e) = earlier.get((round as usize * 7) % (earlier.len().max(1))) {
                phi = p.and(phi, e);
            }
            earlier.push(phi);
            let cursors: FxHashMap<ThreadKey, u32> =
                [(ThreadKey(0), round % 3), (ThreadKey(1), round % 5)]
                    .into_iter()
                    .collect();
            let base = |k: ThreadKey| cursors.get(&k).copied().unwrap_or(0);
            let fut = rename_inputs(&mut p, phi, &base, true);
            assert_eq!(
                rename_inputs_memo(&mut p, &mut memo, phi, &cursors, true),
                fut
            );
            match fut {
                Some(fut) => {
                    renamed += 1;
                    let back = rename_inputs(&mut p, fut, &base, false);
                    assert_eq!(back, Some(phi));
                    assert_eq!(
                        rename_inputs_memo(&mut p, &mut memo, fut, &cursors, false),
                        back
                    );
                }
                None => failed += 1,
            }
        }
        assert!(
            renamed > 20 && failed > 20,
            "{renamed} renamed, {failed} failed"
        );
    }

    #[test]
    fn table_keeps_one_key_per_slot_and_bounds_size() {
        let mut p = TermPool::new();
        let mut s = Summaries::new(1, 3);
        let a = p.var(
            Var::Input {
                thread: ThreadKey(0),
                index: 0,
            },
            8,
        );
        let z = p.bv_const(0, 8);
        let c1 = p.eq(a, z);
        let c2 = p.ne(a, z);
        let rw = RwTable::default();
        let none = SleepKey::new();
        s.record(&mut p, vec![1], &none, Some(c1), &rw);
        assert_eq!(s.lookup(&mut p, &[1], &none).map(|k| k.ps), Some(c1));
        s.record(&mut p, vec![1], &none, Some(c2), &rw);
        // c1 has 3 nodes: the bound stops growth.
        assert_eq!(s.lookup(&mut p, &[1], &none).map(|k| k.ps), Some(c1));
        s.record(&mut p, vec![2], &none, Some(c2), &rw);
        assert!(s.lookup(&mut p, &[1], &none).is_none());
        assert_eq!(s.evictions, 1);
        // Forgetting another key keeps the slot; forgetting the key empties it.
        s.forget(&[1]);
        assert_eq!(s.lookup(&mut p, &[2], &none).map(|k| k.ps), Some(c2));
        s.forget(&[2]);
        assert!(s.lookup(&mut p, &[2], &none).is_none());
        // By hash: another key's hash keeps the slot, the key's own empties it.
        s.record(&mut p, vec![2], &none, Some(c2), &rw);
        s.forget_hashed(key_hash(&[1]));
        assert!(s.lookup(&mut p, &[2], &none).is_some());
        s.forget_hashed(key_hash(&[2]));
        assert!(s.lookup(&mut p, &[2], &none).is_none());
    }

    #[test]
    fn a_summary_under_a_sleep_set_prunes_only_nodes_where_all_of_it_sleeps() {
        use crate::symbolic::dpor::Loc;
        let mut p = TermPool::new();
        let mut s = Summaries::new(16, 100);
        let a = p.var(
            Var::Input {
                thread: ThreadKey(0),
                index: 0,
            },
            8,
        );
        let z = p.bv_const(0, 8);
        let c1 = p.eq(a, z);
        let c2 = p.ne(a, z);
        let x = |o| Loc::Mem(ObjInst(o), 0);
        let t1_writes_x = (ThreadKey(1), vec![Access::write(x(7))]);
        let t1_reads_x = (ThreadKey(1), vec![Access::read(x(7))]);
        let t2_reads_y = (ThreadKey(2), vec![Access::read(x(8)), Access::read(x(8))]);
        let sleep = sleep_key([t1_writes_x.clone()]);
        let mut rw = RwTable::default();
        let entry = (ThreadKey(2), Access::read(x(8)));
        rw.insert(
            entry,
            Recorded {
                after: vec![ThreadKey(1)],
                covered: true,
            },
        );
        s.record(&mut p, vec![5], &sleep, Some(c1), &rw);
        // The same sleep set, and larger ones (in any order, footprints as sets).
        let same = s.lookup(&mut p, &[5], &sleep).expect("S ⊆ S");
        assert_eq!((same.ps, &*same.rw), (c1, &rw));
        let larger = sleep_key([t2_reads_y.clone(), t1_writes_x.clone()]);
        assert_eq!(s.lookup(&mut p, &[5], &larger).map(|u| u.ps), Some(c1));
        // Not where the thread is awake, nor where it sleeps before another event.
        assert!(s.lookup(&mut p, &[5], &SleepKey::new()).is_none());
        assert!(s
            .lookup(&mut p, &[5], &sleep_key([t2_reads_y.clone()]))
            .is_none());
        assert!(s
            .lookup(&mut p, &[5], &sleep_key([t1_reads_x.clone()]))
            .is_none());
        // A sleep-free summary joins in wherever the key is met: the disjunction, with
        // the accesses of both (flags only as strong as both guarantee).
        let mut rw2 = RwTable::default();
        rw2.insert(
            entry,
            Recorded {
                after: vec![],
                covered: false,
            },
        );
        s.record(&mut p, vec![5], &SleepKey::new(), Some(c2), &rw2);
        assert_eq!(
            s.lookup(&mut p, &[5], &SleepKey::new()).map(|u| u.ps),
            Some(c2)
        );
        let both = s.lookup(&mut p, &[5], &larger).expect("both apply");
        assert_eq!(both.ps, p.or(c1, c2));
        assert_eq!(*both.rw, rw2);
        // A visit that claims nothing under another sleep set only weakens the flags.
        s.record(&mut p, vec![5], &sleep_key([t1_reads_x]), None, &rw);
        let again = s.lookup(&mut p, &[5], &sleep).expect("still there");
        assert_eq!(again.ps, p.or(c1, c2));
        assert!(!again.rw[&entry].covered);
        // Exporting keeps the sleep-free variant, one per key.
        let exported: Vec<_> = s
            .entries()
            .map(|(k, v)| (k.to_vec(), v.ps, v.sleep.len()))
            .collect();
        assert_eq!(exported, vec![(vec![5], Some(c2), 0)]);
    }

    #[test]
    fn a_key_keeps_a_bounded_number_of_sleep_sets_preferring_small_ones() {
        use crate::symbolic::dpor::Loc;
        let mut p = TermPool::new();
        let mut s = Summaries::new(4, 100);
        let t = p.tru();
        let rw = RwTable::default();
        let sleeper = |k: u32| (ThreadKey(k), vec![Access::write(Loc::Mem(ObjInst(k), 0))]);
        let big = sleep_key((1..=5).map(sleeper));
        for k in 1..=MAX_VARIANTS as u32 {
            let mut keyed = big.clone();
            keyed.remove(k as usize - 1);
            s.record(&mut p, vec![1], &keyed, Some(t), &rw);
        }
        // Full: a larger sleep set is not kept, a smaller one replaces a larger.
        s.record(&mut p, vec![1], &big, Some(t), &rw);
        let single = sleep_key([sleeper(9)]);
        assert!(s.lookup(&mut p, &[1], &single).is_none());
        s.record(&mut p, vec![1], &single, Some(t), &rw);
        assert!(s.lookup(&mut p, &[1], &single).is_some());
        assert_eq!(
            s.slots.iter().flatten().next().unwrap().variants.len(),
            MAX_VARIANTS
        );
    }

    #[test]
    fn merging_accesses_is_the_same_either_way_round() {
        let cell = |o| Access::read(crate::symbolic::dpor::Loc::Mem(ObjInst(o), 0));
        let clock = |v: u32| {
            let mut c = VClock::default();
            c.set(0, v);
            c
        };
        let mut small = Accesses::default();
        small.add((ThreadKey(0), cell(1)), &clock(3), Some(4));
        let mut large = Accesses::default();
        large.add((ThreadKey(0), cell(1)), &clock(2), Some(7));
        large.add((ThreadKey(1), cell(2)), &clock(5), None);
        let mut a = small.clone();
        a.extend(large.clone());
        let mut b = large;
        b.extend(small);
        assert_eq!(a.map, b.map);
        let merged = &a.map[&(ThreadKey(0), cell(1))];
        assert_eq!((merged.clock.get(0), merged.last_race), (2, Some(4)));
    }

    #[test]
    fn accesses_saturate_past_the_recording_bound_and_stay_saturated() {
        let cell = |o| Access::read(crate::symbolic::dpor::Loc::Mem(ObjInst(o), 0));
        let clock = VClock::default();
        let mut below = Accesses::default();
        for o in 0..MAX_RECORDED_ACCESSES as u32 {
            below.add((ThreadKey(0), cell(o)), &clock, None);
        }
        // Repeating an access adds nothing distinct.
        below.add((ThreadKey(0), cell(0)), &clock, Some(1));
        assert!(!below.saturated());
        assert_eq!(below.map.len(), MAX_RECORDED_ACCESSES);
        let mut one_more = below.clone();
        one_more.add((ThreadKey(1), cell(0)), &clock, None);
        assert!(one_more.saturated());
        assert!(one_more.map.is_empty());
        // Above a saturated node every node is saturated, whichever side is merged in.
        let mut parent = Accesses::default();
        parent.add((ThreadKey(2), cell(0)), &clock, None);
        parent.extend(one_more.clone());
        assert!(parent.saturated());
        let mut again = one_more;
        again.extend(below);
        again.add((ThreadKey(3), cell(9)), &clock, None);
        assert!(again.saturated() && again.map.is_empty());
        assert!(again.relative_to(&[ThreadKey(0)], 0).is_empty());
    }

    /// Random boolean terms over four 8-bit cells (a tiny LCG: deterministic).
    fn random_formula(p: &mut TermPool, seed: &mut u64, depth: u32) -> TermId {
        let mut next = |n: u64| {
            *seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (*seed >> 33) % n
        };
        fn bv(p: &mut TermPool, next: &mut dyn FnMut(u64) -> u64, depth: u32) -> TermId {
            if depth == 0 || next(3) == 0 {
                return if next(3) == 0 {
                    let k = next(256);
                    p.bv_const(k, 8)
                } else {
                    let offset = next(4);
                    p.var(
                        Var::Cell {
                            obj: ObjInst(0),
                            offset,
                        },
                        8,
                    )
                };
            }
            let a = bv(p, next, depth - 1);
            let b = bv(p, next, depth - 1);
            use crate::symbolic::term::BvOp::*;
            let op = [Add, Sub, Mul, UDiv, URem, Shl, LShr, And, Or, Xor][next(10) as usize];
            p.bin(op, a, b)
        }
        fn boolean(p: &mut TermPool, next: &mut dyn FnMut(u64) -> u64, depth: u32) -> TermId {
            if depth == 0 || next(4) == 0 {
                let a = bv(p, next, 2);
                let b = bv(p, next, 2);
                let op = [CmpOp::Eq, CmpOp::Ult, CmpOp::Sle][next(3) as usize];
                return p.cmp(op, a, b);
            }
            let a = boolean(p, next, depth - 1);
            let b = boolean(p, next, depth - 1);
            match next(3) {
                0 => p.and(a, b),
                1 => p.or(a, b),
                _ => p.not(a),
            }
        }
        boolean(p, &mut next, depth)
    }

    /// The cache of `TermPool::vars_cached` answers what `vars` computes, also for a term
    /// asked again; and evaluating a summary under constant values of its variables (the
    /// prune check's fast path, `Engine::concrete_summary`) gives the constant that
    /// substituting the values folds to (the slow path's `instantiate`).
    #[test]
    fn cached_vars_and_concrete_evaluation_equal_the_uncached_substitution() {
        let mut p = TermPool::new();
        let mut seed = 7u64;
        let mut compared = 0;
        let mut prev = p.fals();
        for round in 0..400u64 {
            let phi = random_formula(&mut p, &mut seed, 4);
            let vars = p.vars(phi);
            assert_eq!(&*p.vars_cached(phi), &vars[..]);
            assert_eq!(&*p.vars_cached(phi), &vars[..], "asked again");
            // A summary grown by a disjunct (or a conjunct): from the known side's.
            let grown = if round % 2 == 0 {
                p.or(phi, prev)
            } else {
                p.and(prev, phi)
            };
            assert_eq!(&*p.vars_cached(grown), &p.vars(grown)[..]);
            prev = grown;
            let mut env = crate::symbolic::model::Assignment::default();
            let mut map = FxHashMap::default();
            let mut bits = 0;
            for (i, &(v, w)) in vars.iter().enumerate() {
                let value = (round * 37 + i as u64 * 101) % 256;
                env.set(v, value);
                let c = p.bv_const(value, w);
                map.insert(p.var(v, w), c);
                bits |= var_bloom(v);
            }
            let folded = substitute(&mut p, phi, &map, bits);
            // As `Engine::concrete_summary` evaluates: the cached order, the values by
            // the position of their variable in `vars_cached`.
            let values: Vec<u64> = vars
                .iter()
                .map(|&(v, w)| crate::symbolic::term::mask(env.get(v), w))
                .collect();
            let order = p.topological_cached(phi);
            let listed = crate::symbolic::model::eval_listed(&p, &order, &vars, &values);
            assert_eq!(listed.map(|v| v != 0), env.holds(&p, phi));
            if let (Some(direct), Some(by_folding)) = (env.holds(&p, phi), p.as_bool(folded)) {
                assert_eq!(direct, by_folding, "{}", p.display(phi));
                compared += 1;
            }
        }
        assert!(compared > 200, "only {compared} compared");
    }
}
