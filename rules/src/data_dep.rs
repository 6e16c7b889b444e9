//! Reaching definitions and data dependence: registers flow-sensitively within a function
//! (pruned by liveness so that dead temporaries do not flow on), parameters from the
//! function entry, and memory flow-insensitively through points-to (every write of a cell
//! may reach every read of it; [`crate::happens_before`] then removes the pairs where the
//! read must happen first).
//!
//! ```c
//! z = w * 5;       // d: defines z
//! if (q) x = z * 2; // u: uses z, reached by d → reg_dep(u, d)
//! ```
//!
//! Facts: `cfg_edge`, `defines`, `uses`, `is_reg`, `formal_param`, `func_entry`,
//! `mem_read`, `mem_write`; from [`PointsTo`]: `pt`.
//!
//! Rules:
//! ```text
//! live_in(v, s)    ← uses(s, v), is_reg(v, _)
//! live_in(v, s)    ← live_out(v, s), ¬defines(s, v)
//! live_out(v, s)   ← cfg_edge(s, t), live_in(v, t)
//! reach(d, v, t)   ← defines(d, v), cfg_edge(d, t), live_in(v, t)
//! reach(d, v, t)   ← reach(d, v, s), ¬defines(s, v), cfg_edge(s, t), live_in(v, t)
//! reg_dep(s, d)    ← reach(d, v, s), uses(s, v)
//! preach(v, e)     ← formal_param(f, _, v), func_entry(f, e), live_in(v, e)
//! preach(v, t)     ← preach(v, s), ¬defines(s, v), cfg_edge(s, t), live_in(v, t)
//! param_use(s, f, i) ← preach(v, s), uses(s, v), formal_param(f, i, v)
//! read_cell(r, o, k)  ← mem_read(r, a), pt(a, o, k)
//! write_cell(w, o, k) ← mem_write(w, a), pt(a, o, k)
//! ```
//! A read `r` may read what `w` wrote when they share a cell: `read_cell(r, o, k)`,
//! `write_cell(w, o, k')`, `overlap(k, k')`. Those pairs are not listed (they grow with
//! the square of the accesses of a hot global); [`crate::dependence`] links reads to
//! writes through the cells instead.
//!
//! The same rules in Datalog, the readable specification beside the math above:
//! `rules/dl/data_dep.dl`, interpreted by [`crate::dl`] and equal to this program on every
//! fixture and corpus program (`rules/tests/dl_differential.rs`).

use crate::points_to::{sorted, PointsTo};
use analysis::facts::{Facts, FuncId, Obj, StmtId, Var};
use ascent::ascent;

/// The result of the data-dependence rule set.
#[derive(Clone, Debug, Default)]
pub struct DataDeps {
    /// `(use, def)`: the register `use` reads may have been written by `def`.
    pub reg: Vec<(StmtId, StmtId)>,
    /// `(use, f, i)`: `use` reads parameter `i` of `f` as passed by the caller.
    pub param_uses: Vec<(StmtId, FuncId, u32)>,
    /// `(stmt, obj, offset)`: cells a statement may read.
    pub read_cells: Vec<(StmtId, Obj, i64)>,
    /// `(stmt, obj, offset)`: cells a statement may write.
    pub write_cells: Vec<(StmtId, Obj, i64)>,
}

impl DataDeps {
    pub fn sizes(&self) -> Vec<(&'static str, usize)> {
        vec![
            ("reg_dep", self.reg.len()),
            ("param_use", self.param_uses.len()),
            ("read_cell", self.read_cells.len()),
            ("write_cell", self.write_cells.len()),
        ]
    }
}

ascent! {
    struct DataDepProgram;
    relation cfg_edge(StmtId, StmtId);
    relation defines(StmtId, Var);
    relation uses(StmtId, Var);
    relation is_reg(Var);
    relation formal_param(FuncId, u32, Var);
    relation func_entry(FuncId, StmtId);
    relation mem_read(StmtId, Var);
    relation mem_write(StmtId, Var);
    relation pt(Var, Obj, i64);

    relation live_in(Var, StmtId);
    relation live_out(Var, StmtId);
    relation reach(StmtId, Var, StmtId);
    relation reg_dep(StmtId, StmtId);
    relation preach(Var, StmtId);
    relation param_use(StmtId, FuncId, u32);
    relation read_cell(StmtId, Obj, i64);
    relation write_cell(StmtId, Obj, i64);

    live_in(v, s) <-- uses(s, v), is_reg(v);
    live_in(v, s) <-- live_out(v, s), !defines(s, v);
    live_out(v, s) <-- cfg_edge(s, t), live_in(v, t);
    reach(d, v, t) <-- defines(d, v), cfg_edge(d, t), live_in(v, t);
    reach(d, v, t) <-- reach(d, v, s), !defines(s, v), cfg_edge(s, t), live_in(v, t);
    reg_dep(s, d) <-- reach(d, v, s), uses(s, v);
    preach(v, e) <-- formal_param(f, _, v), func_entry(f, e), live_in(v, e);
    preach(v, t) <-- preach(v, s), !defines(s, v), cfg_edge(s, t), live_in(v, t);
    param_use(s, f, i) <-- preach(v, s), uses(s, v), formal_param(f, i, v);

    read_cell(r, o, k) <-- mem_read(r, a), pt(a, o, k);
    write_cell(w, o, k) <-- mem_write(w, a), pt(a, o, k);
}

pub fn run(facts: &Facts, pts: &PointsTo) -> DataDeps {
    let mut p = DataDepProgram::default();
    p.cfg_edge = facts.cfg_edge.clone();
    p.defines = facts.defines.clone();
    p.uses = facts.uses.clone();
    p.is_reg = facts.is_reg.iter().map(|&(v, _)| (v,)).collect();
    p.formal_param = facts.formal_param.clone();
    p.func_entry = facts.func_entry.clone();
    p.mem_read = facts.mem_read.clone();
    p.mem_write = facts.mem_write.clone();
    p.pt = pts
        .var_points_to
        .iter()
        .map(|&(v, c)| (v, c.obj, c.offset))
        .collect();
    p.run();
    DataDeps {
        reg: sorted(p.reg_dep),
        param_uses: sorted(p.param_use),
        read_cells: sorted(p.read_cell),
        write_cells: sorted(p.write_cell),
    }
}

impl DataDeps {
    /// `(read, write)` pairs within one function whose cells overlap (for the abstract
    /// system's intraprocedural memory definitions).
    pub fn local_memory_pairs(&self, facts: &Facts) -> Vec<(StmtId, StmtId)> {
        use std::collections::HashMap;
        let func_of: HashMap<StmtId, FuncId> = facts.stmt_func.iter().copied().collect();
        let mut writes: HashMap<(FuncId, Obj), Vec<(StmtId, i64)>> = HashMap::new();
        for &(w, o, k) in &self.write_cells {
            if let Some(&f) = func_of.get(&w) {
                writes.entry((f, o)).or_default().push((w, k));
            }
        }
        let mut out = Vec::new();
        for &(r, o, k) in &self.read_cells {
            let Some(&f) = func_of.get(&r) else { continue };
            for &(w, j) in writes.get(&(f, o)).into_iter().flatten() {
                if (crate::Cell { obj: o, offset: k }).overlaps(crate::Cell { obj: o, offset: j }) {
                    out.push((r, w));
                }
            }
        }
        sorted(out)
    }
}
