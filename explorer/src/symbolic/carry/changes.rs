//! Where the new version's changes can still run: [`Changes`] (see the module doc of
//! [`super`] for the soundness condition it serves).

use super::*;
use analysis::ir::StmtRef;
use std::collections::BTreeSet;

/// Where the new version's changes can still run (see the module doc).
#[derive(Debug, Default)]
pub struct Changes {
    /// `[function][block][index]` (index up to the block's length, its terminator): a
    /// changed statement is reachable from there.
    pub(super) dirty: Vec<Vec<Vec<bool>>>,
    /// Why nothing may be reused at all, if so.
    pub blocked: Option<String>,
    /// New statements counted as changed (for reports), harmless ones included.
    pub changed: usize,
    /// Changed statements (new ones, and old ones deleted or replaced) found harmless:
    /// outside both versions' [`Slices`] (see the module doc); they dirty nothing.
    pub harmless: usize,
}

/// The Type B slices of both versions: the backward closure (control, data and
/// interference dependence) of every statement that can violate a property, stop, block
/// or end a run, or decide how long a loop runs (`type_b::criteria`), as `agx verify`
/// computes it for a search without checks (`Config::relevant`).
#[derive(Clone, Copy, Debug)]
pub struct Slices<'a> {
    pub old: &'a BTreeSet<StmtId>,
    pub new: &'a BTreeSet<StmtId>,
}

impl Changes {
    /// The changes of `new` against `old`; with `slices`, changed statements outside
    /// both slices are harmless (see the module doc).
    pub fn between(
        old: &Program,
        new: &Program,
        diff: &ProgramDiff,
        slices: Option<Slices<'_>>,
    ) -> Changes {
        let harmful_new = |s: StmtId| !slices.is_some_and(|sl| harmless(new, sl.new, s));
        let harmful_old = |s: StmtId| !slices.is_some_and(|sl| harmless(old, sl.old, s));
        let all_new = diff.added.len() + diff.modified.len();
        let mut changed: HashSet<StmtId> = diff
            .added
            .iter()
            .chain(&diff.modified)
            .filter(|s| harmful_new(**s))
            .copied()
            .collect();
        // A harmful replaced statement: the modified statements of its function, which
        // stand where it stood, count as changed (the diff does not pair them).
        let harmful_replaced: Vec<StmtId> = diff
            .replaced
            .iter()
            .filter(|r| harmful_old(**r))
            .copied()
            .collect();
        let replaced_in: HashSet<&str> = harmful_replaced
            .iter()
            .map(|r| old.function(old_loc_func(old, *r)).name.as_str())
            .collect();
        for m in &diff.modified {
            if replaced_in.contains(new.function(new.stmt_locs[m.index()].func).name.as_str()) {
                changed.insert(*m);
            }
        }
        let harmless_replaced = diff.replaced.len() - harmful_replaced.len();
        // A harmful deleted statement changes its function as a whole.
        let mut whole: HashSet<FuncId> = HashSet::new();
        let mut harmless_deleted = 0;
        for d in &diff.deleted {
            if !harmful_old(*d) {
                harmless_deleted += 1;
                continue;
            }
            let name = &old.function(old_loc_func(old, *d)).name;
            if let Some(f) = new.function_named(name) {
                whole.insert(f.id);
            }
        }
        let harmless_count = all_new - changed.len() + harmless_replaced + harmless_deleted;
        // A terminator mapped unchanged whose successors are not the mapped successors.
        let inverse: HashMap<StmtId, StmtId> = diff
            .map
            .iter()
            .enumerate()
            .filter_map(|(o, n)| n.map(|n| (n, StmtId(o as u32))))
            .collect();
        let first = |p: &Program, f: FuncId, b: analysis::ir::BlockId| {
            let b = p.function(f).block(b);
            b.stmts.first().map_or(b.term.id, |s| s.id)
        };
        for f in &new.functions {
            let Some(of) = old.function_named(&f.name) else {
                continue;
            };
            for b in &f.blocks {
                let Some(ot) = inverse.get(&b.term.id) else {
                    continue;
                };
                let Some(ob) = of.blocks.iter().find(|ob| ob.term.id == *ot) else {
                    whole.insert(f.id);
                    continue;
                };
                let new_succ = b.term.kind.successors();
                let old_succ = ob.term.kind.successors();
                let same = new_succ.len() == old_succ.len()
                    && new_succ.iter().zip(&old_succ).all(|(ns, os)| {
                        diff.new_of(first(old, of.id, *os)) == Some(first(new, f.id, *ns))
                    });
                if !same {
                    changed.insert(b.term.id);
                }
            }
        }
        let blocked = (!diff.changed_objects.is_empty()).then(|| {
            let names: Vec<&str> = diff
                .changed_objects
                .iter()
                .map(|o| new.object(*o).name.as_str())
                .collect();
            format!(
                "objects changed their type, layout or initializer: {}",
                names.join(", ")
            )
        });
        let mut c = Changes::of(new, &changed, &whole);
        c.blocked = blocked;
        c.changed = all_new;
        c.harmless = harmless_count;
        c
    }

    /// Reachability of `changed` statements (and of every statement of `whole`
    /// functions), through calls and thread creations.
    pub fn of(prog: &Program, changed: &HashSet<StmtId>, whole: &HashSet<FuncId>) -> Changes {
        let n = prog.functions.len();
        let mut fn_dirty: Vec<bool> = prog
            .functions
            .iter()
            .map(|f| {
                whole.contains(&f.id)
                    || f.blocks.iter().any(|b| {
                        changed.contains(&b.term.id)
                            || b.stmts.iter().any(|s| changed.contains(&s.id))
                    })
            })
            .collect();
        // Calls: a function is dirty when it may call or start a dirty one; a call
        // through a pointer may call anything.
        loop {
            let any = fn_dirty.iter().any(|d| *d);
            let mut grew = false;
            for f in 0..n {
                if fn_dirty[f] {
                    continue;
                }
                let func = &prog.functions[f];
                let calls_dirty = func.blocks.iter().flat_map(|b| &b.stmts).any(|s| {
                    callees(&s.kind).is_some_and(|cs| match cs {
                        Some(g) => fn_dirty[g.index()],
                        None => any,
                    })
                });
                if calls_dirty {
                    fn_dirty[f] = true;
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        let any = fn_dirty.iter().any(|d| *d);
        let mut dirty = Vec::with_capacity(n);
        for f in &prog.functions {
            let stmt_dirty = |s: &analysis::ir::Stmt| {
                whole.contains(&f.id)
                    || changed.contains(&s.id)
                    || callees(&s.kind).is_some_and(|cs| match cs {
                        Some(g) => fn_dirty[g.index()],
                        None => any,
                    })
            };
            let mut d: Vec<Vec<bool>> = f
                .blocks
                .iter()
                .map(|b| vec![false; b.stmts.len() + 1])
                .collect();
            loop {
                let mut grew = false;
                for (bi, b) in f.blocks.iter().enumerate() {
                    let len = b.stmts.len();
                    let at_term = whole.contains(&f.id)
                        || changed.contains(&b.term.id)
                        || b.term.kind.successors().iter().any(|s| d[s.index()][0]);
                    let mut cur = at_term;
                    let mut row = vec![false; len + 1];
                    row[len] = cur;
                    for i in (0..len).rev() {
                        cur = cur || stmt_dirty(&b.stmts[i]);
                        row[i] = cur;
                    }
                    if row != d[bi] {
                        d[bi] = row;
                        grew = true;
                    }
                }
                if !grew {
                    break;
                }
            }
            dirty.push(d);
        }
        Changes {
            dirty,
            blocked: None,
            changed: changed.len(),
            harmless: 0,
        }
    }

    /// No changed statement can run after this state, in any thread.
    pub fn clean(&self, st: &State) -> bool {
        self.blocked.is_none()
            && st.threads.iter().all(|th| {
                th.frames.iter().all(|f| {
                    !self.dirty[f.func.index()][f.block as usize]
                        .get(f.index as usize)
                        .copied()
                        .unwrap_or(true)
                })
            })
    }
}

fn old_loc_func(old: &Program, s: StmtId) -> FuncId {
    old.stmt_locs[s.index()].func
}

/// Is the changed statement `s` of `prog` harmless: outside `slice`, and of a kind whose
/// only effect is a value (a register or a memory cell) no slice statement reads? Calls
/// (their callee's statements run), synchronization, allocation, frees, inputs, prints,
/// assumptions and terminators (the control flow itself) never are.
fn harmless(prog: &Program, slice: &BTreeSet<StmtId>, s: StmtId) -> bool {
    let plain = match prog.stmt(s) {
        StmtRef::Stmt(st) => matches!(
            st.kind,
            StmtKind::Assign { .. } | StmtKind::Load { .. } | StmtKind::Store { .. }
        ),
        StmtRef::Term(_) => false,
    };
    plain && !slice.contains(&s)
}

/// The functions a statement may call or start: `None` (outer) if none, `Some(None)`
/// for a call through a pointer.
fn callees(k: &StmtKind) -> Option<Option<FuncId>> {
    match k {
        StmtKind::Call { callee, .. } => Some(match callee {
            Callee::Direct(g) => Some(*g),
            Callee::Indirect(_) => None,
        }),
        StmtKind::Sync {
            op: SyncOp::ThreadCreate { func, .. },
            ..
        } => Some(match func {
            Operand::Func(g) => Some(*g),
            _ => None,
        }),
        _ => None,
    }
}

/// The fingerprints of `new` that name the same statement in `old`: the old statement
/// with the fingerprint maps to the new one with it.
pub fn trusted_fingerprints(old: &Program, new: &Program, diff: &ProgramDiff) -> HashSet<u64> {
    let old_fp = fingerprints(old);
    let new_fp = fingerprints(new);
    diff.map
        .iter()
        .enumerate()
        .filter_map(|(o, n)| {
            let n = (*n)?;
            (old_fp[o] == new_fp[n.index()]).then_some(new_fp[n.index()].0)
        })
        .collect()
}
