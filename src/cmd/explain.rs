//! What a violating execution means, in words: the start function of every thread, the
//! source text of every step, and a one-line summary of the interleaving that breaks the
//! program, derived from the witness's accesses to global objects (named in the
//! statements, or, for accesses through pointers, the addresses the witness's replay
//! computed).
//!
//! The summary looks at the failing thread `F` and the last write, by another thread `T`,
//! to an object `F` reads before failing:
//! - `F` read it before that write too (check, then act): "thread T (`fn`) writes `x` at
//!   L between thread F (`fn`)'s read at L1 and its read at L2";
//! - `T` wrote a value computed from its own earlier read, and a third thread wrote in
//!   between (a lost update): "... overwriting thread U (`fn`)'s write at L3";
//! - else: "thread F (`fn`) reads `x` at L2 as last written by thread T (`fn`) at L".

use analysis::ir::{FuncId, Operand, Program, StmtId, StmtKind, StmtRef, SyncOp};
use explorer::concrete::{RecordedValue, StmtNote, Witness};
use std::collections::HashMap;

/// One step as the explanation needs it.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    pub thread: u32,
    pub stmt: StmtId,
}

/// The start function of each thread of a schedule: `main` for thread 0 (or, from a
/// program context, the `entries`' functions for the first threads), then the function
/// of each `thread_create` in schedule order (threads are numbered in creation order).
pub fn thread_functions(
    program: &Program,
    entries: &[FuncId],
    steps: &[Step],
) -> HashMap<u32, String> {
    let mut names = HashMap::new();
    let first: Vec<String> = match entries {
        [] => vec!["main".to_string()],
        _ => entries
            .iter()
            .map(|&f| program.function(f).name.clone())
            .collect(),
    };
    let mut next = first.len() as u32;
    names.extend((0..).zip(first));
    for s in steps {
        if let StmtRef::Stmt(stmt) = program.stmt(s.stmt) {
            if let StmtKind::Sync {
                op: SyncOp::ThreadCreate { func, .. },
                ..
            } = &stmt.kind
            {
                let name = match func {
                    Operand::Func(f) => program.function(*f).name.clone(),
                    _ => "?".to_string(),
                };
                names.insert(next, name);
                next += 1;
            }
        }
    }
    names
}

/// The source text of a statement's line (trimmed), if the file can be read.
pub fn statement_line(program: &Program, stmt: StmtId) -> Option<String> {
    let span = span_of(program, stmt);
    let text = super::common::source_line(program.file_name(span.file), span.line)?;
    Some(text.trim().to_string())
}

fn span_of(program: &Program, stmt: StmtId) -> analysis::ir::Span {
    match program.stmt(stmt) {
        StmtRef::Stmt(s) => s.span,
        StmtRef::Term(t) => t.span,
    }
}

/// The memory cell an access touches.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Cell {
    /// A named object at a fixed offset, from the statement itself.
    Named(analysis::ir::ObjId, u64),
    /// The address the replayed witness computed (an access through a pointer).
    Replayed(RecordedValue),
}

/// A read or write of a memory cell, in execution order (`index`).
#[derive(Clone)]
struct Access {
    index: usize,
    thread: u32,
    cell: Cell,
    /// The cell as the summary names it: `` `x` ``, `` `elem`+40 ``.
    name: String,
    write: bool,
    line: u32,
}

fn accesses(program: &Program, steps: &[Step]) -> Vec<Access> {
    steps
        .iter()
        .enumerate()
        .filter_map(|(index, s)| {
            let StmtRef::Stmt(stmt) = program.stmt(s.stmt) else {
                return None;
            };
            let (addr, write) = match &stmt.kind {
                StmtKind::Load { addr, .. } => (addr, false),
                StmtKind::Store { addr, .. } => (addr, true),
                _ => return None,
            };
            let Operand::Addr { obj, offset } = addr else {
                return None;
            };
            Some(Access {
                index,
                thread: s.thread,
                cell: Cell::Named(*obj, *offset),
                name: format!("`{}`", program.object(*obj).name),
                write,
                line: stmt.span.line,
            })
        })
        .collect()
}

/// Every shared read and write of the witness's replay, through pointers too (the
/// interpreter records the address each one computed); `None` when it does not replay.
fn replayed_accesses(program: &Program, witness: &Witness) -> Option<Vec<Access>> {
    let mut config = witness.config();
    config.record_statements = true;
    let execution = explorer::concrete::run(program, &config).ok()?;
    let accesses = execution
        .statements
        .iter()
        .enumerate()
        .filter_map(|(index, r)| {
            let (addr, what, write) = match &r.note {
                StmtNote::Load { addr, what, .. } => (addr, what, false),
                StmtNote::Store { addr, what, .. } => (addr, what, true),
                _ => return None,
            };
            Some(Access {
                index,
                thread: r.thread.0,
                cell: Cell::Replayed(*addr),
                name: what.clone(),
                write,
                line: span_of(program, r.stmt).line,
            })
        })
        .collect();
    Some(accesses)
}

/// Which write each read of a named object read from, when another thread wrote it:
/// `(write step, read step, object name)` by index into `steps`. A schedule is one
/// interleaving, so the last write to the same cell before a read is the one it reads.
pub fn reads_from(program: &Program, steps: &[Step]) -> Vec<(usize, usize, String)> {
    let acc = accesses(program, steps);
    let mut last_write: HashMap<Cell, &Access> = HashMap::new();
    let mut edges = Vec::new();
    for a in &acc {
        if a.write {
            last_write.insert(a.cell, a);
        } else if let Some(w) = last_write.get(&a.cell).filter(|w| w.thread != a.thread) {
            if let Cell::Named(obj, _) = a.cell {
                edges.push((w.index, a.index, program.object(obj).name.clone()));
            }
        }
    }
    edges
}

/// The one-line summary, when the witness shows an interleaving on a named object.
pub fn summary(
    program: &Program,
    entries: &[FuncId],
    steps: &[Step],
    witness: &Witness,
    failing: u32,
) -> Option<String> {
    let names = thread_functions(program, entries, steps);
    let from_steps = summarize(&names, &accesses(program, steps), failing);
    // Accesses through pointers name no object in the statement: the replay has them.
    from_steps.or_else(|| summarize(&names, &replayed_accesses(program, witness)?, failing))
}

/// The summary over `acc`, the accesses in execution order.
fn summarize(names: &HashMap<u32, String>, acc: &[Access], failing: u32) -> Option<String> {
    let who = |t: u32| {
        format!(
            "thread {t} (`{}`)",
            names.get(&t).map_or("?", String::as_str)
        )
    };
    let same = |a: &Access, b: &Access| a.cell == b.cell;
    // The failing thread's reads, latest first; for each, the last foreign write before it.
    for read in acc.iter().rev().filter(|a| a.thread == failing && !a.write) {
        let Some(write) = acc
            .iter()
            .rev()
            .filter(|w| w.index < read.index && w.write && same(w, read))
            .find(|w| w.thread != failing)
        else {
            continue;
        };
        let object = &read.name;
        if let Some(check) = acc
            .iter()
            .rev()
            .find(|c| c.index < write.index && c.thread == failing && !c.write && same(c, read))
        {
            return Some(format!(
                "{} writes {object} at line {} between {}'s read at line {} and its read at line {}",
                who(write.thread),
                write.line,
                who(failing),
                check.line,
                read.line
            ));
        }
        // A lost update: the writer's own read, then another thread's write, then its write.
        let own_read = acc.iter().rev().find(|r| {
            r.index < write.index && r.thread == write.thread && !r.write && same(r, read)
        });
        if let Some(own) = own_read {
            if let Some(lost) = acc.iter().rev().find(|u| {
                u.index > own.index
                    && u.index < write.index
                    && u.write
                    && u.thread != write.thread
                    && same(u, read)
            }) {
                return Some(format!(
                    "{} writes {object} at line {} from its read at line {}, overwriting {}'s write at line {}; {} then reads it at line {}",
                    who(write.thread),
                    write.line,
                    own.line,
                    who(lost.thread),
                    lost.line,
                    who(failing),
                    read.line
                ));
            }
        }
        return Some(format!(
            "{} reads {object} at line {} as last written by {} at line {}",
            who(failing),
            read.line,
            who(write.thread),
            write.line
        ));
    }
    None
}
