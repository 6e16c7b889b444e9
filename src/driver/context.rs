//! The program context of `--entry` (seed paper 003): the entry threads, and what the
//! points-to analysis says a pointer of the initial state may point to (§3.1, Eq. 1's
//! aliasing restricted by points-to). Globals no statement may write keep their
//! initializers (the simplest must-reach definition: the only definition of the cell).

use super::location::Location;
use super::Driver;
use analysis::facts::{Facts, Obj, ANY_OFFSET};
use analysis::ir::{FuncId, ObjId, ObjectKind, Program, Scalar};
use anyhow::{bail, Result};
use explorer::context::{AbsObj, CellOwner, Context, KnownCell, Target, MAX_OFFSETS};
use rules::points_to::{Cell, PointsTo};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

impl Driver {
    /// The context of `copies` threads of each function of `entries`, in order, each
    /// starting where `from` says for its function (`None`, or no item: at its entry).
    pub fn context(
        &self,
        entries: &[String],
        copies: u32,
        from: &[Option<Location>],
    ) -> Result<Context> {
        let program = self.program();
        let mut funcs = Vec::new();
        for name in entries {
            funcs.push(entry_function(program, name)?);
        }
        if copies == 0 {
            bail!("--copies must be at least 1");
        }
        let threads: Vec<FuncId> = funcs
            .iter()
            .flat_map(|&f| std::iter::repeat_n(f, copies as usize))
            .collect();
        let (facts, analysis) = self.analyzed();
        let view = PointsToView {
            program,
            facts,
            pt: &analysis.points_to,
        };
        let non_null = view.non_null_params(&funcs);
        let mut starts = Vec::new();
        for (i, name) in entries.iter().enumerate() {
            let start = match from.get(i).and_then(Option::as_ref) {
                Some(loc) => {
                    let mut start = self.start_point(name, loc, |f, r| view.reg_targets(f, r))?;
                    start.non_null = non_null_regs(program.function(funcs[i]), &start, &non_null);
                    Some(start)
                }
                None => None,
            };
            starts.extend(std::iter::repeat_n(start, copies as usize));
        }
        // A thread past its entry may have written globals already: the definitions
        // that reach the creation sites need not reach its start. Barriers keep their
        // count and no arrivals, loop counters of threads in lock-step are equal
        // (`context_barrier`).
        let mid = starts.iter().any(Option::is_some);
        let (known_cells, initialized) = if mid {
            (
                super::context_barrier::barrier_cells(program, &threads),
                Vec::new(),
            )
        } else {
            view.must_reach(&funcs, copies)
        };
        if mid {
            let pt = &analysis.points_to;
            let cells = &known_cells;
            super::context_barrier::match_phases(program, facts, pt, &threads, &mut starts, cells);
        }
        let mut fixed = view.unwritten_globals();
        fixed.extend(initialized);
        fixed.sort();
        fixed.dedup();
        Ok(Context {
            params: view.params(&funcs),
            non_null,
            cells: view.cells(false),
            any_cells: view.any_cells(),
            fixed,
            known_cells,
            threads,
            starts: if mid { starts } else { Vec::new() },
        })
    }
}

/// The pointer registers of a start that hold an unchanged parameter never null at
/// the entry (a must-reach definition, §2.3).
fn non_null_regs(
    func: &analysis::ir::Function,
    start: &explorer::context::StartPoint,
    non_null: &[(FuncId, u32)],
) -> Vec<analysis::ir::RegId> {
    start
        .regs
        .iter()
        .filter(|(_, init)| matches!(init, explorer::context::RegStart::Pointer(_)))
        .filter_map(|&(r, _)| {
            let i = super::locksets::param_of(func, r)?;
            non_null.contains(&(func.id, i)).then_some(r)
        })
        .collect()
}

/// Threads of one function that a creation site on a cycle stands for in
/// [`Driver::thread_entries`]: the loop's bound is not known statically.
pub const COPIES_PER_LOOP_SITE: usize = 2;

impl Driver {
    /// The thread functions `main` creates (at sites in `main` or the functions it calls,
    /// by points-to), one name per thread, in the order of their first creation site: a
    /// site runs once, a site on a cycle [`COPIES_PER_LOOP_SITE`] times. Threads that
    /// those threads create are left to them. The context of `--thread-entries`.
    pub fn thread_entries(&self) -> Vec<String> {
        let program = self.program();
        let (facts, analysis) = self.analyzed();
        let pt = &analysis.points_to;
        let func_of: HashMap<analysis::ir::StmtId, FuncId> =
            facts.stmt_func.iter().copied().collect();
        let in_cycle: HashSet<analysis::ir::StmtId> =
            facts.in_cycle.iter().map(|&(s,)| s).collect();
        let mut from_main = HashSet::from([program.main]);
        let mut pending = vec![program.main];
        while let Some(f) = pending.pop() {
            for &(site, g) in &pt.call_edges {
                if func_of.get(&site) == Some(&f) && from_main.insert(g) {
                    pending.push(g);
                }
            }
        }
        let mut sites: Vec<_> = pt
            .thread_edges
            .iter()
            .filter(|(site, _)| func_of.get(site).is_some_and(|f| from_main.contains(f)))
            .collect();
        sites.sort();
        let mut names = Vec::new();
        for &&(site, f) in &sites {
            let runs = if in_cycle.contains(&site) {
                COPIES_PER_LOOP_SITE
            } else {
                1
            };
            let name = &program.function(f).name;
            names.extend(std::iter::repeat_n(name.clone(), runs));
        }
        names
    }
}

/// The defined function `name`, else an error naming the file.
fn entry_function(program: &Program, name: &str) -> Result<FuncId> {
    match program
        .functions
        .iter()
        .find(|f| f.name == name && f.is_defined())
    {
        Some(f) => Ok(f.id),
        None => {
            let file = program.files.first().map_or("the program", String::as_str);
            bail!("--entry {name}: {file} defines no function `{name}`")
        }
    }
}

struct PointsToView<'a> {
    program: &'a Program,
    facts: &'a Facts,
    pt: &'a PointsTo,
}

impl PointsToView<'_> {
    /// The targets of a pointer register of `func`.
    fn reg_targets(&self, func: &analysis::ir::Function, reg: analysis::ir::RegId) -> Vec<Target> {
        match self.facts.reg_var(func.id, reg) {
            Some(var) => self.targets(self.pt.of(var)),
            None => Vec::new(),
        }
    }

    fn params(&self, funcs: &[FuncId]) -> Vec<((FuncId, u32), Vec<Target>)> {
        let mut out = Vec::new();
        for &(f, index, var) in &self.facts.formal_param {
            let func = self.program.function(f);
            let is_ptr = func
                .params
                .get(index as usize)
                .is_some_and(|&r| func.reg(r).ty == Scalar::Ptr);
            if funcs.contains(&f) && is_ptr {
                out.push(((f, index), self.targets(self.pt.of(var))));
            }
        }
        out
    }

    /// Parameters every call and thread creation of their function passes an object's
    /// address to (a constant `&x`): never null.
    fn non_null_params(&self, funcs: &[FuncId]) -> Vec<(FuncId, u32)> {
        let is_addr: HashSet<analysis::facts::Var> =
            self.facts.addr_of.iter().map(|&(v, _, _)| v).collect();
        let mut out = Vec::new();
        for &f in funcs {
            let func = self.program.function(f);
            for index in 0..func.params.len() as u32 {
                let mut passed = self.arguments(f, index);
                let any = passed.next().is_some();
                let all = self.arguments(f, index).all(|v| is_addr.contains(&v));
                if any && all && !out.contains(&(f, index)) {
                    out.push((f, index));
                }
            }
        }
        out
    }

    /// What every call and thread creation of `f` passes as its parameter `index`.
    fn arguments(&self, f: FuncId, index: u32) -> impl Iterator<Item = analysis::facts::Var> + '_ {
        let calls = self
            .pt
            .call_edges
            .iter()
            .filter(move |&&(_, callee)| callee == f)
            .flat_map(move |&(site, _)| {
                let args = self.facts.actual_arg.iter();
                let passed = args
                    .filter(move |&&(s, i, _)| s == site && i == index)
                    .map(|&(_, _, v)| v);
                // A call that passes fewer arguments passes nothing defined: unknown.
                passed.chain(
                    std::iter::once(analysis::facts::Facts::CONST_VAR).filter(move |_| {
                        !self
                            .facts
                            .actual_arg
                            .iter()
                            .any(|&(s, i, _)| s == site && i == index)
                    }),
                )
            });
        let creates = self
            .pt
            .thread_edges
            .iter()
            .filter(move |&&(_, entry)| entry == f && index == 0)
            .flat_map(move |&(site, _)| {
                self.facts
                    .thread_create
                    .iter()
                    .filter(move |&&(s, _, _, _)| s == site)
                    .map(|&(_, _, _, arg)| arg)
            });
        calls.chain(creates)
    }

    /// The targets of pointer cells at known (`any` false) offsets.
    fn cells(&self, any: bool) -> Vec<((CellOwner, u64), Vec<Target>)> {
        let mut by_cell: BTreeMap<(Obj, i64), Vec<Cell>> = BTreeMap::new();
        for &(cell, target) in &self.pt.cell_points_to {
            if (cell.offset == ANY_OFFSET) == any {
                by_cell
                    .entry((cell.obj, cell.offset))
                    .or_default()
                    .push(target);
            }
        }
        by_cell
            .into_iter()
            .filter_map(|((obj, offset), targets)| {
                let owner = self.owner(obj)?;
                Some(((owner, offset.max(0) as u64), self.targets(&targets)))
            })
            .collect()
    }

    fn any_cells(&self) -> Vec<(CellOwner, Vec<Target>)> {
        self.cells(true)
            .into_iter()
            .map(|((owner, _), t)| (owner, t))
            .collect()
    }

    /// The memory an abstract object is in the initial state, if it can be.
    fn owner(&self, obj: Obj) -> Option<CellOwner> {
        if let Some(&(_, site)) = self.facts.heap_obj.iter().find(|(o, _)| *o == obj) {
            return Some(CellOwner::Instance(AbsObj::Heap(site)));
        }
        let id = self
            .facts
            .names
            .obj_ir
            .get(obj.0 as usize)
            .copied()
            .flatten()?;
        match self.program.object(id).kind {
            ObjectKind::Global => Some(CellOwner::Static(id)),
            ObjectKind::StackSlot { .. } => Some(CellOwner::Instance(AbsObj::Slot(id))),
            ObjectKind::ThreadLocal | ObjectKind::StringLiteral => None,
        }
    }

    /// Points-to cells grouped by object, as targets.
    fn targets(&self, cells: &[Cell]) -> Vec<Target> {
        let mut by_obj: BTreeMap<Obj, BTreeSet<i64>> = BTreeMap::new();
        for c in cells {
            by_obj.entry(c.obj).or_default().insert(c.offset);
        }
        by_obj
            .into_iter()
            .map(|(obj, offsets)| self.target(obj, &offsets))
            .collect()
    }

    fn target(&self, obj: Obj, offsets: &BTreeSet<i64>) -> Target {
        if let Some(&(_, f)) = self.facts.func_obj.iter().find(|(o, _)| *o == obj) {
            return Target::Func(f);
        }
        if let Some(&(_, site)) = self.facts.heap_obj.iter().find(|(o, _)| *o == obj) {
            let size = self
                .facts
                .obj_size
                .iter()
                .find(|(o, _)| *o == obj)
                .and_then(|&(_, n)| u64::try_from(n).ok());
            let every_byte = size.map(|n| (0..n).collect()).unwrap_or_else(|| vec![0]);
            return match expand(offsets, every_byte) {
                Some(offsets) => Target::Instance {
                    obj: AbsObj::Heap(site),
                    size,
                    offsets,
                },
                None => too_many(&self.facts.names.objs[obj.0 as usize]),
            };
        }
        let Some(id) = self
            .facts
            .names
            .obj_ir
            .get(obj.0 as usize)
            .copied()
            .flatten()
        else {
            return Target::Unmodelled(format!(
                "a pointer of the initial state may point to `{}`, which the context cannot model",
                self.facts
                    .names
                    .objs
                    .get(obj.0 as usize)
                    .map_or("?", String::as_str)
            ));
        };
        let o = self.program.object(id);
        let cells: Vec<u64> = std::iter::once(0)
            .chain(o.layout.iter().map(|&(off, _)| off))
            .collect::<BTreeSet<u64>>()
            .into_iter()
            .collect();
        let Some(offsets) = expand(offsets, cells) else {
            return too_many(&o.name);
        };
        match o.kind {
            ObjectKind::Global | ObjectKind::StringLiteral => Target::Static { obj: id, offsets },
            ObjectKind::StackSlot { .. } => Target::Instance {
                obj: AbsObj::Slot(id),
                size: Some(o.size),
                offsets,
            },
            ObjectKind::ThreadLocal => Target::Unmodelled(format!(
                "a pointer of the initial state may point to the thread-local `{}`",
                o.name
            )),
        }
    }

    /// The must-reach definitions at the context (`rules::must_reach`), when every
    /// thread of an entry function is in the context, created by `main` off any cycle:
    /// the integer cells with a known value, and the globals that keep their
    /// initializer. Otherwise none (everything initial).
    fn must_reach(&self, funcs: &[FuncId], copies: u32) -> (Vec<KnownCell>, Vec<ObjId>) {
        let main = self.program.main;
        let in_cycle: HashSet<analysis::ir::StmtId> =
            self.facts.in_cycle.iter().map(|&(s,)| s).collect();
        let func_of: HashMap<analysis::ir::StmtId, FuncId> =
            self.facts.stmt_func.iter().copied().collect();
        let mut sites = Vec::new();
        let mut distinct = funcs.to_vec();
        distinct.sort();
        distinct.dedup();
        for &f in &distinct {
            let threads = funcs.iter().filter(|&&g| g == f).count() * copies as usize;
            let of_f: Vec<_> = self
                .pt
                .thread_edges
                .iter()
                .filter(|&&(_, g)| g == f)
                .map(|&(c, _)| c)
                .collect();
            let all_from_main = of_f
                .iter()
                .all(|c| func_of.get(c) == Some(&main) && !in_cycle.contains(c));
            let has_calls = self.pt.call_edges.iter().any(|&(_, g)| g == f);
            if of_f.is_empty() || !all_from_main || has_calls || of_f.len() > threads {
                return (Vec::new(), Vec::new());
            }
            sites.extend(of_f);
        }
        let reach = rules::must_reach::run(self.facts, self.pt, &distinct, &sites);
        let obj_ir = &self.facts.names.obj_ir;
        let global = |o: analysis::facts::Obj| {
            obj_ir
                .get(o.0 as usize)
                .copied()
                .flatten()
                .filter(|&id| self.program.object(id).kind == ObjectKind::Global)
        };
        let mut known = Vec::new();
        for &(s, o, k) in &reach.stores {
            let (Some(id), Ok(offset)) = (global(o), u64::try_from(k)) else {
                continue;
            };
            let analysis::ir::StmtRef::Stmt(stmt) = self.program.stmt(s) else {
                continue;
            };
            let analysis::ir::StmtKind::Store { value, ty, .. } = &stmt.kind else {
                continue;
            };
            let bits = match value {
                analysis::ir::Operand::Int { bits, .. } => *bits,
                analysis::ir::Operand::Null => 0,
                _ => continue,
            };
            if *ty != Scalar::Ptr {
                let bytes = ty.bits(self.program.data_model) / 8;
                known.push(KnownCell {
                    obj: id,
                    offset,
                    bytes,
                    bits,
                });
            }
        }
        let initialized = reach
            .initialized
            .iter()
            .filter_map(|&o| global(o))
            .collect();
        (known, initialized)
    }

    /// Globals no statement may write (by points-to, through any address): their
    /// initializer is the one definition that reaches every context.
    fn unwritten_globals(&self) -> Vec<analysis::ir::ObjId> {
        let written: HashSet<Obj> = self
            .facts
            .mem_write
            .iter()
            .flat_map(|&(_, addr)| self.pt.of(addr).iter().map(|c| c.obj))
            .collect();
        let obj_ir = &self.facts.names.obj_ir;
        (0..obj_ir.len())
            .filter_map(|i| {
                let id = obj_ir[i]?;
                let global = self.program.object(id).kind == ObjectKind::Global;
                (global && !written.contains(&Obj(i as u32))).then_some(id)
            })
            .collect()
    }
}

/// Known offsets as they are; an unknown one (`ANY_OFFSET`) as every offset of
/// `every`. `None` beyond [`MAX_OFFSETS`].
fn expand(offsets: &BTreeSet<i64>, every: Vec<u64>) -> Option<Vec<u64>> {
    let mut out: BTreeSet<u64> = offsets
        .iter()
        .filter_map(|&k| u64::try_from(k).ok())
        .collect();
    if offsets.contains(&ANY_OFFSET) {
        out.extend(every);
    }
    (out.len() <= MAX_OFFSETS).then(|| out.into_iter().collect())
}

fn too_many(name: &str) -> Target {
    Target::Unmodelled(format!(
        "a pointer of the initial state may point to any of more than {MAX_OFFSETS} places in `{name}`"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn driver(name: &str, text: &str) -> Driver {
        let path =
            std::env::temp_dir().join(format!("agx-context-{name}-{}.c", std::process::id()));
        std::fs::write(&path, text).unwrap();
        let program = analysis::load_program(&path, &Default::default());
        let _ = std::fs::remove_file(&path);
        Driver::new(program.expect("the test program lowers"))
    }

    fn program(creation: &str) -> String {
        format!(
            "#include <pthread.h>
int limit; int done; int never = 3;
void *worker(void *a) {{ done = limit + never; return 0; }}
int main(void) {{
  pthread_t t[2];
  limit = 10;
  {creation}
  return 0; }}"
        )
    }

    fn global(d: &Driver, name: &str) -> ObjId {
        d.program()
            .objects
            .iter()
            .find(|o| o.name == name)
            .map(|o| o.id)
            .unwrap()
    }

    #[test]
    fn main_stores_and_initializers_reach_threads_created_once_each() {
        let d = driver(
            "once",
            &program("pthread_create(&t[0], 0, worker, 0); pthread_create(&t[1], 0, worker, 0);"),
        );
        let ctx = d.context(&["worker".to_string()], 2, &[]).unwrap();
        let limit = global(&d, "limit");
        assert_eq!(
            ctx.known_cells,
            vec![KnownCell {
                obj: limit,
                offset: 0,
                bytes: 4,
                bits: 10
            }]
        );
        // `never` is written by no statement; `done` by the workers only, which have not
        // run: both keep their initializers.
        assert!(ctx.is_fixed(global(&d, "never")));
        assert!(ctx.is_fixed(global(&d, "done")));
        assert!(!ctx.is_fixed(limit));
        // One worker in the context: the other may have run and written `done`.
        let one = d.context(&["worker".to_string()], 1, &[]).unwrap();
        assert!(one.known_cells.is_empty());
        assert!(!one.is_fixed(global(&d, "done")));
        assert!(one.is_fixed(global(&d, "never")));
    }

    #[test]
    fn threads_created_in_a_loop_get_no_must_reach_definitions() {
        let d = driver(
            "loop",
            &program("for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, worker, 0);"),
        );
        let ctx = d.context(&["worker".to_string()], 2, &[]).unwrap();
        assert!(ctx.known_cells.is_empty());
        assert!(!ctx.is_fixed(global(&d, "done")));
    }

    #[test]
    fn a_cell_main_writes_after_a_creation_has_no_fixed_value() {
        // main runs on beside the context's threads: `limit` may already be 5 (or still
        // 10) when the worker reads it, so neither store is the cell's definition.
        let d = driver(
            "after",
            &program("pthread_create(&t[0], 0, worker, 0); limit = 5;"),
        );
        let ctx = d.context(&["worker".to_string()], 1, &[]).unwrap();
        assert!(ctx.known_cells.is_empty(), "{:?}", ctx.known_cells);
        assert!(!ctx.is_fixed(global(&d, "limit")));
    }
}
