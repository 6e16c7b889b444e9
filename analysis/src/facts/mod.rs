//! Facts: the input relations of the rule sets, extracted from the IR.
//!
//! [`Facts`] is the only thing the `rules` crate sees of a program: one `Vec` of tuples per
//! relation, each documented with its signature (`cfg_edge(from, to)`, `store(stmt, addr,
//! val)`, ...). Atoms are small integer newtypes so that rule arguments cannot be swapped:
//! statements and functions reuse the IR's [`StmtId`] and [`FuncId`]; [`Var`] interns a
//! value-carrying operand (a register of one function, or a constant such as `&g + 4`);
//! [`Obj`] interns an abstract memory object (a static object, a heap allocation site, a
//! function, or the unknown result of an external function).
//!
//! Graph facts (dominators, post-dominators, strongly connected components) are computed
//! here with petgraph on each function's statement-level control flow graph, so that rule
//! sets can ask "does `a` dominate `b`" in constant time through [`Facts::dom_interval`].
//!
//! Facts are files too: [`write_dir`] writes one Soufflé-compatible `<relation>.facts` TSV
//! per relation (atoms print as `s12@file.c:5`, `v3@main.x`, ...: id first, readable label
//! after the `@`), plus `schema.dl` declaring every relation; [`load_dir`] reads them back,
//! so rule tests run on checked-in fact files without the C front end.
//!
//! Modelling choices (documented once here, relied on by the rules):
//! - A cell is `(object, byte offset)`; [`ANY_OFFSET`] stands for "some cell of the object"
//!   (array indexing with a non-constant index, pointer arithmetic out of the object).
//! - Heap objects are named by their allocation site; stack slots are one object per
//!   function (context-insensitive: all activations of a function share their slots).
//! - Integer and null constants all map to one [`Var`], [`Facts::CONST_VAR`]: it points to
//!   nothing and no statement defines it.

mod extract;
mod graph;
mod tsv;

pub use extract::extract;
pub use tsv::{load_dir, write_dir, FactsIoError};

use crate::ir::id_type;
pub use crate::ir::{FileId, FuncId, StmtId};

/// The offset of a cell that stands for every cell of its object.
pub const ANY_OFFSET: i64 = -1;

id_type!(
    /// A value-carrying operand: a register of one function, or a constant (an address of
    /// an object or function, or the shared integer/null constant).
    Var,
    "v"
);
id_type!(
    /// An abstract memory object: static object, allocation site, function, or the unknown
    /// object an external function's pointer result may point to.
    Obj,
    "o"
);

/// Readable labels of the atoms (for `.facts` files and reports). Indexed by atom id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AtomNames {
    /// Source files, as the line markers name them.
    pub files: Vec<String>,
    pub funcs: Vec<String>,
    /// `file:line` of each statement.
    pub stmts: Vec<String>,
    pub vars: Vec<String>,
    pub objs: Vec<String>,
    /// The IR object of each static [`Obj`] (global, literal, thread-local or stack
    /// slot), `None` for the others; empty for facts read back from files.
    pub obj_ir: Vec<Option<crate::ir::ObjId>>,
}

/// Names a relation, its columns (name, Soufflé type) and what it means.
#[derive(Clone, Copy, Debug)]
pub struct RelationInfo {
    pub name: &'static str,
    pub columns: &'static [(&'static str, &'static str)],
    pub doc: &'static str,
}

/// A column type of a relation: how it prints in a `.facts` file and parses back.
pub trait Column: Sized {
    /// `symbol` or `number`, as Soufflé declares it.
    const SOUFFLE_TYPE: &'static str;
    fn write(&self, names: &AtomNames, out: &mut String);
    /// Parses a field, recording the label it carries in `names`.
    fn parse(field: &str, names: &mut AtomNames) -> Result<Self, String>;
    /// The field as a rule engine sees it (an atom or a number).
    fn field(&self) -> Field;
}

/// One field of a fact, as a rule engine reads it: an atom (its `.facts` prefix and id)
/// or a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    Atom(char, u32),
    Number(i64),
}

macro_rules! relations {
    ($( $(#[doc = $doc:literal])* $name:ident ( $($col:ident : $ty:ty),+ ); )*) => {
        /// The input relations of the rule sets for one program.
        #[derive(Clone, Debug, Default)]
        pub struct Facts {
            /// Labels of the atoms.
            pub names: AtomNames,
            $( $(#[doc = $doc])* pub $name: Vec<($($ty,)+)>, )*
        }

        impl Facts {
            /// Every relation, in declaration order.
            pub const RELATIONS: &'static [RelationInfo] = &[
                $( RelationInfo {
                    name: stringify!($name),
                    columns: &[$( (stringify!($col), <$ty as Column>::SOUFFLE_TYPE) ),+],
                    doc: concat!($($doc),*),
                }, )*
            ];

            /// `(relation, number of tuples)` for every relation.
            pub fn sizes(&self) -> Vec<(&'static str, usize)> {
                vec![$( (stringify!($name), self.$name.len()), )*]
            }

            /// Renders one relation as TSV lines, `None` for an unknown name.
            pub fn relation_tsv(&self, relation: &str) -> Option<String> {
                match relation {
                    $( stringify!($name) => {
                        let mut out = String::new();
                        for ($($col,)+) in &self.$name {
                            let mut first = true;
                            $(
                                if !first { out.push('\t'); }
                                first = false;
                                $col.write(&self.names, &mut out);
                            )+
                            let _ = first;
                            out.push('\n');
                        }
                        Some(out)
                    } )*
                    _ => None,
                }
            }

            /// Appends every field of one relation, tuple after tuple, to `out`; returns the
            /// number of tuples, `None` for an unknown name.
            pub fn relation_fields(&self, relation: &str, out: &mut Vec<Field>)
                -> Option<usize>
            {
                match relation {
                    $( stringify!($name) => {
                        for ($($col,)+) in &self.$name {
                            $( out.push($col.field()); )+
                        }
                        Some(self.$name.len())
                    } )*
                    _ => None,
                }
            }

            /// Parses TSV lines into one relation (appending). Errors name the line.
            pub fn parse_relation_tsv(&mut self, relation: &str, text: &str)
                -> Result<(), String>
            {
                match relation {
                    $( stringify!($name) => {
                        for (number, line) in text.lines().enumerate() {
                            if line.is_empty() { continue; }
                            let mut fields = line.split('\t');
                            let tuple = ($(
                                {
                                    let field = fields.next().ok_or_else(|| format!(
                                        "line {}: missing column `{}`", number + 1,
                                        stringify!($col)))?;
                                    <$ty as Column>::parse(field, &mut self.names)
                                        .map_err(|e| format!("line {}: column `{}`: {e}",
                                            number + 1, stringify!($col)))?
                                },
                            )+);
                            if fields.next().is_some() {
                                return Err(format!("line {}: too many columns", number + 1));
                            }
                            self.$name.push(tuple);
                        }
                        Ok(())
                    } )*
                    other => Err(format!("unknown relation `{other}`")),
                }
            }
        }
    };
}

relations! {
    // ---- program structure ----
    /// `stmt_func(stmt, func)`: every statement and terminator, with its function.
    stmt_func(stmt: StmtId, func: FuncId);
    /// `stmt_line(stmt, file, line)`: where a statement is in the source.
    stmt_line(stmt: StmtId, file: FileId, line: u32);
    /// `func_entry(func, stmt)`: the first statement of a defined function.
    func_entry(func: FuncId, stmt: StmtId);
    /// `main_func(func)`: the program's `main`.
    main_func(func: FuncId);
    /// `atomic_func(func)`: a `__VERIFIER_atomic_*` function (its body runs atomically).
    atomic_func(func: FuncId);
    /// `cfg_edge(from, to)`: intraprocedural control flow between statements.
    cfg_edge(from: StmtId, to: StmtId);
    /// `reachable(stmt)`: reachable from its function's entry.
    reachable(stmt: StmtId);
    /// `idom(stmt, dom)`: the immediate dominator of a statement (entry has none).
    idom(stmt: StmtId, dom: StmtId);
    /// `dom_interval(stmt, pre, post)`: pre/post order numbers in the dominator tree:
    /// `a` dominates `b` iff `pre(a) <= pre(b)` and `post(b) <= post(a)` (same function).
    dom_interval(stmt: StmtId, pre: u32, post: u32);
    /// `ipdom(stmt, pdom)`: the immediate post-dominator; absent when it is the virtual exit.
    ipdom(stmt: StmtId, pdom: StmtId);
    /// `exit_edge(stmt)`: a non-terminator with an extra edge to the virtual exit in the
    /// post-dominance graph: an `assume`, a call that may not return, or the
    /// representative of a loop that never exits.
    exit_edge(stmt: StmtId);
    /// `scc(stmt, rep)`: the strongly connected component of the function's CFG.
    scc(stmt: StmtId, rep: StmtId);
    /// `in_cycle(stmt)`: the statement lies on a CFG cycle (may run more than once).
    in_cycle(stmt: StmtId);
    /// `halt(stmt)`: may end the thread or the execution here: `exit`, `abort`, an error
    /// site, `pthread_exit`/thread return, unreachable, a failing `assume`, a call that may
    /// not return, a loop that never exits.
    halt(stmt: StmtId);
    /// `branch(stmt, cond)`: a conditional branch on `cond`.
    branch(stmt: StmtId, cond: Var);
    /// `branch_then(stmt, to)`: the statement control goes to when `cond != 0`.
    branch_then(stmt: StmtId, to: StmtId);
    /// `branch_else(stmt, to)`: the statement control goes to when `cond == 0`.
    branch_else(stmt: StmtId, to: StmtId);
    /// `error_site(stmt)`: an assertion failure or `reach_error()` (a target).
    error_site(stmt: StmtId);
    /// `assume(stmt, cond)`: `__VERIFIER_assume(cond)`.
    assume(stmt: StmtId, cond: Var);

    // ---- values ----
    /// `defines(stmt, var)`: the statement writes register `var`.
    defines(stmt: StmtId, var: Var);
    /// `uses(stmt, var)`: the statement reads register `var`.
    uses(stmt: StmtId, var: Var);
    /// `is_reg(var, func)`: `var` is a register of `func` (not a constant).
    is_reg(var: Var, func: FuncId);
    /// `assign_copy(stmt, dst, src)`: `dst = src` (copy or cast): points-to flows.
    assign_copy(stmt: StmtId, dst: Var, src: Var);
    /// `assign_offset(stmt, dst, src, delta)`: `dst = src + delta` bytes.
    assign_offset(stmt: StmtId, dst: Var, src: Var, delta: i64);
    /// `assign_any(stmt, dst, src)`: `dst` derived from `src` at an unknown offset
    /// (variable index, integer arithmetic on an address).
    assign_any(stmt: StmtId, dst: Var, src: Var);
    /// `addr_of(var, obj, offset)`: the constant `var` is the address of a cell.
    addr_of(var: Var, obj: Obj, offset: i64);
    /// `alloc(stmt, var, obj)`: `var` = a new object `obj` (heap allocation site, or the
    /// unknown object of an external function's pointer result).
    alloc(stmt: StmtId, var: Var, obj: Obj);
    /// `load(stmt, dst, addr)`: `dst = *addr`.
    load(stmt: StmtId, dst: Var, addr: Var);
    /// `store(stmt, addr, val)`: `*addr = val`.
    store(stmt: StmtId, addr: Var, val: Var);
    /// `mem_read(stmt, addr)`: the statement reads shared memory at `addr` (loads; the
    /// mutex of a trylock).
    mem_read(stmt: StmtId, addr: Var);
    /// `mem_write(stmt, addr)`: the statement writes memory at `addr` (stores; thread
    /// handles; join results; mutex state).
    mem_write(stmt: StmtId, addr: Var);

    // ---- calls ----
    /// `call(stmt, func)`: a direct call.
    call(stmt: StmtId, func: FuncId);
    /// `icall(stmt, fptr)`: an indirect call through `fptr`.
    icall(stmt: StmtId, fptr: Var);
    /// `actual_arg(stmt, index, var)`: argument `index` of a call.
    actual_arg(stmt: StmtId, index: u32, var: Var);
    /// `formal_param(func, index, var)`: parameter `index` of a function.
    formal_param(func: FuncId, index: u32, var: Var);
    /// `call_result(stmt, var)`: the register a call's result goes to.
    call_result(stmt: StmtId, var: Var);
    /// `return_val(stmt, var)`: a `return var` terminator.
    return_val(stmt: StmtId, var: Var);
    /// `thread_exit_val(stmt, var)`: the end of a thread with result `var`.
    thread_exit_val(stmt: StmtId, var: Var);

    // ---- threads and synchronization ----
    /// `thread_create(stmt, handle, func, arg)`: `pthread_create(handle, _, func, arg)`.
    thread_create(stmt: StmtId, handle: Var, func: Var, arg: Var);
    /// `thread_join(stmt, thread, result)`: `pthread_join(thread, result)`.
    thread_join(stmt: StmtId, thread: Var, result: Var);
    /// `lock(stmt, mutex)`: `pthread_mutex_lock(mutex)` (blocking acquire).
    lock(stmt: StmtId, mutex: Var);
    /// `trylock(stmt, mutex)`: `pthread_mutex_trylock(mutex)`.
    trylock(stmt: StmtId, mutex: Var);
    /// `unlock(stmt, mutex)`: `pthread_mutex_unlock(mutex)`.
    unlock(stmt: StmtId, mutex: Var);
    /// `cond_wait(stmt, cond, mutex)`: releases `mutex`, waits on `cond`, re-acquires.
    cond_wait(stmt: StmtId, cond: Var, mutex: Var);
    /// `cond_signal(stmt, cond)`: signal or broadcast.
    cond_signal(stmt: StmtId, cond: Var);
    /// `atomic_begin(stmt)`: start of an atomic section.
    atomic_begin(stmt: StmtId);
    /// `atomic_end(stmt)`: end of an atomic section.
    atomic_end(stmt: StmtId);

    // ---- objects ----
    /// `obj_size(obj, size)`: size in bytes; -1 when unknown (heap of non-constant size).
    obj_size(obj: Obj, size: i64);
    /// `global_obj(obj)`: a global or string literal (one instance).
    global_obj(obj: Obj);
    /// `thread_local_obj(obj)`: a `__thread` global (one instance per thread).
    thread_local_obj(obj: Obj);
    /// `stack_obj(obj, func)`: a stack slot of `func` (one object for all activations).
    stack_obj(obj: Obj, func: FuncId);
    /// `heap_obj(obj, site)`: the objects allocated (or returned by an external function)
    /// at `site`.
    heap_obj(obj: Obj, site: StmtId);
    /// `func_obj(obj, func)`: the code of a function (target of function pointers).
    func_obj(obj: Obj, func: FuncId);
    /// `obj_init(obj, offset, target, target_offset)`: a static initializer stores the
    /// address of cell `(target, target_offset)` in cell `(obj, offset)`.
    obj_init(obj: Obj, offset: i64, target: Obj, target_offset: i64);
}

impl Facts {
    /// The one [`Var`] of every integer and null constant.
    pub const CONST_VAR: Var = Var(0);

    /// `file:line` of a statement, as its label says.
    pub fn stmt_label(&self, stmt: StmtId) -> &str {
        self.names
            .stmts
            .get(stmt.index())
            .map_or("?", String::as_str)
    }

    pub fn func_name(&self, func: FuncId) -> &str {
        self.names
            .funcs
            .get(func.index())
            .map_or("?", String::as_str)
    }

    pub fn var_name(&self, var: Var) -> &str {
        self.names.vars.get(var.index()).map_or("?", String::as_str)
    }

    pub fn obj_name(&self, obj: Obj) -> &str {
        self.names.objs.get(obj.index()).map_or("?", String::as_str)
    }

    /// The `(file, line)` of every statement, indexed by statement id.
    pub fn stmt_lines(&self) -> Vec<Option<(FileId, u32)>> {
        let mut lines = vec![None; self.names.stmts.len()];
        for &(s, file, line) in &self.stmt_line {
            if let Some(slot) = lines.get_mut(s.index()) {
                *slot = Some((file, line));
            }
        }
        lines
    }

    /// The register [`Var`] of `reg` in `func`, if the program uses it. Its label is
    /// `<function>.<register>`, as [`extract`] names it.
    pub fn reg_var(&self, func: FuncId, reg: crate::ir::RegId) -> Option<Var> {
        let label = extract::reg_label(self.func_name(func), reg);
        let named = format!("{label}(");
        self.names
            .vars
            .iter()
            .position(|v| *v == label || v.starts_with(&named))
            .map(|i| Var(i as u32))
    }
}

// ---- column types ----

fn write_atom(out: &mut String, prefix: char, id: u32, label: Option<&String>) {
    use std::fmt::Write;
    let _ = write!(out, "{prefix}{id}");
    if let Some(label) = label {
        out.push('@');
        // Labels must not break the TSV.
        out.extend(
            label
                .chars()
                .map(|c| if c == '\t' || c == '\n' { ' ' } else { c }),
        );
    }
}

/// Parses `<prefix><id>[@label]`, returning the id and the label.
fn parse_atom(field: &str, prefix: char) -> Result<(u32, Option<&str>), String> {
    let rest = field
        .strip_prefix(prefix)
        .ok_or_else(|| format!("`{field}` does not start with `{prefix}`"))?;
    let (digits, label) = match rest.split_once('@') {
        Some((d, l)) => (d, Some(l)),
        None => (rest, None),
    };
    let id = digits
        .parse::<u32>()
        .map_err(|_| format!("`{field}`: expected `{prefix}<number>`"))?;
    Ok((id, label))
}

fn remember(labels: &mut Vec<String>, id: u32, label: Option<&str>) {
    let i = id as usize;
    if labels.len() <= i {
        labels.resize(i + 1, String::new());
    }
    if let Some(label) = label {
        if labels[i].is_empty() {
            labels[i] = label.to_string();
        }
    }
}

macro_rules! atom_column {
    ($ty:ident, $prefix:literal, $field:ident) => {
        impl Column for $ty {
            const SOUFFLE_TYPE: &'static str = "symbol";
            fn write(&self, names: &AtomNames, out: &mut String) {
                write_atom(out, $prefix, self.0, names.$field.get(self.index()));
            }
            fn parse(field: &str, names: &mut AtomNames) -> Result<Self, String> {
                let (id, label) = parse_atom(field, $prefix)?;
                remember(&mut names.$field, id, label);
                Ok($ty(id))
            }
            fn field(&self) -> Field {
                Field::Atom($prefix, self.0)
            }
        }
    };
}

atom_column!(StmtId, 's', stmts);
atom_column!(FuncId, 'f', funcs);
atom_column!(Var, 'v', vars);
atom_column!(Obj, 'o', objs);
atom_column!(FileId, 'F', files);

impl Column for u32 {
    const SOUFFLE_TYPE: &'static str = "number";
    fn write(&self, _: &AtomNames, out: &mut String) {
        out.push_str(&self.to_string());
    }
    fn parse(field: &str, _: &mut AtomNames) -> Result<Self, String> {
        field
            .parse()
            .map_err(|_| format!("`{field}` is not a non-negative number"))
    }
    fn field(&self) -> Field {
        Field::Number(i64::from(*self))
    }
}

impl Column for i64 {
    const SOUFFLE_TYPE: &'static str = "number";
    fn write(&self, _: &AtomNames, out: &mut String) {
        out.push_str(&self.to_string());
    }
    fn parse(field: &str, _: &mut AtomNames) -> Result<Self, String> {
        field
            .parse()
            .map_err(|_| format!("`{field}` is not a number"))
    }
    fn field(&self) -> Field {
        Field::Number(*self)
    }
}

#[cfg(test)]
mod tests;
