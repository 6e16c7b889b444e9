//! Where the new version's changes can still run: [`Changes`] (see the module doc of
//! [`super`] for the soundness condition it serves).

use super::*;

/// Where the new version's changes can still run (see the module doc).
#[derive(Debug, Default)]
pub struct Changes {
    /// `[function][block][index]` (index up to the block's length, its terminator): a
    /// changed statement is reachable from there.
    pub(super) dirty: Vec<Vec<Vec<bool>>>,
    /// Why nothing may be reused at all, if so.
    pub blocked: Option<String>,
    /// New statements counted as changed (for reports).
    pub changed: usize,
}

impl Changes {
    /// The changes of `new` against `old`.
    pub fn between(old: &Program, new: &Program, diff: &ProgramDiff) -> Changes {
        let mut changed: HashSet<StmtId> =
            diff.added.iter().chain(&diff.modified).copied().collect();
        let mut whole: HashSet<FuncId> = HashSet::new();
        for d in &diff.deleted {
            let name = &old.function(old_loc_func(old, *d)).name;
            if let Some(f) = new.function_named(name) {
                whole.insert(f.id);
            }
        }
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
        let count = changed.len();
        let mut c = Changes::of(new, &changed, &whole);
        c.blocked = blocked;
        c.changed = count;
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
    for f in &old.functions {
        for b in &f.blocks {
            if b.term.id == s || b.stmts.iter().any(|x| x.id == s) {
                return f.id;
            }
        }
    }
    FuncId(0)
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
