//! The picture of an execution (`agx verify --graph`, `agx run --graph`), after GenMC's
//! error graphs: one column per thread with its steps in program order, and between the
//! columns what ordered them: thread creation, a mutex handed from its unlock to the
//! next lock, and reads-from (a read of a global object and the other thread's write it
//! read). Invisible edges between consecutive steps keep the schedule's order top to
//! bottom, so the interleaving reads as a sequence diagram.

use super::common::source_line;
use super::dot;
use super::explain::{self, Step};
use analysis::ir::{Operand, Program, StmtKind, StmtRef, SyncOp};
use std::collections::{BTreeMap, HashMap};

/// One step as the picture shows it.
pub struct GraphStep {
    pub thread: u32,
    pub stmt: analysis::ir::StmtId,
    /// The IR statement's text.
    pub ir: String,
}

/// What the picture's shapes mean, printed under it.
const LEGEND: &str = "one column per thread, its steps in program order (numbers: the \
schedule's order)\nblue: reads from another thread's write; green: creates the thread, or its end is joined; \
dashed: the mutex passes from unlock to lock; red: the violation";

/// The graph of `steps`; the last step is the violation when `violation` is given.
pub fn graph(
    program: &Program,
    entries: &[analysis::ir::FuncId],
    steps: &[GraphStep],
    violation: Option<&str>,
) -> dot::Graph {
    let plain: Vec<Step> = steps
        .iter()
        .map(|s| Step {
            thread: s.thread,
            stmt: s.stmt,
        })
        .collect();
    let functions = explain::thread_functions(program, entries, &plain);
    let mut columns: BTreeMap<u32, Vec<dot::Node>> = BTreeMap::new();
    for (i, step) in steps.iter().enumerate() {
        let mut node = step_node(program, i, step);
        if violation.is_some() && i + 1 == steps.len() {
            node.attrs.push(("color", "red".into()));
            node.attrs.push(("penwidth", "2".into()));
            node.label.extend(violation.map(str::to_string));
        }
        columns.entry(step.thread).or_default().push(node);
    }
    let mut graph = dot::Graph {
        name: "execution".into(),
        attrs: vec![
            ("labelloc", "b".into()),
            ("label", LEGEND.into()),
            ("fontname", "monospace".into()),
            ("newrank", "true".into()),
        ],
        node_attrs: vec![("shape", "box".into()), ("fontname", "monospace".into())],
        ..dot::Graph::default()
    };
    graph.clusters = columns
        .into_iter()
        .map(|(thread, nodes)| dot::Cluster {
            label: format!(
                "thread {thread} ({})",
                functions.get(&thread).map_or("?", String::as_str)
            ),
            attrs: vec![],
            nodes,
        })
        .collect();
    graph.edges = edges(program, &plain);
    graph
}

fn id(i: usize) -> String {
    format!("e{i}")
}

fn step_node(program: &Program, i: usize, step: &GraphStep) -> dot::Node {
    let span = match program.stmt(step.stmt) {
        StmtRef::Stmt(s) => s.span,
        StmtRef::Term(t) => t.span,
    };
    let file = program.file_name(span.file);
    let text = source_line(file, span.line).map_or(String::new(), |t| dot::shorten(t.trim()));
    dot::Node {
        id: id(i),
        label: vec![
            format!("{}. line {}: {text}", i + 1, span.line),
            dot::shorten(&step.ir),
        ],
        attrs: vec![],
    }
}

fn edges(program: &Program, steps: &[Step]) -> Vec<dot::Edge> {
    let edge = |from: usize, to: usize, attrs: dot::Attrs| dot::Edge {
        from: id(from),
        to: id(to),
        attrs,
    };
    let mut out = Vec::new();
    // Program order, heavy so that each column stays straight.
    let mut last_of: HashMap<u32, usize> = HashMap::new();
    for (i, s) in steps.iter().enumerate() {
        if let Some(prev) = last_of.insert(s.thread, i) {
            out.push(edge(prev, i, vec![("weight", "10".into())]));
        }
    }
    // The schedule's order, drawn as nothing but the layout.
    for i in 1..steps.len() {
        if steps[i].thread != steps[i - 1].thread {
            out.push(edge(i - 1, i, vec![("style", "invis".into())]));
        }
    }
    out.extend(creations(program, steps).into_iter().map(|(c, first)| {
        edge(
            c,
            first,
            vec![("color", "darkgreen".into()), ("label", "create".into())],
        )
    }));
    out.extend(joins(program, steps).into_iter().map(|(end, join)| {
        edge(
            end,
            join,
            vec![("color", "darkgreen".into()), ("label", "join".into())],
        )
    }));
    out.extend(lock_handovers(program, steps).into_iter().map(|(u, l)| {
        edge(
            u,
            l,
            vec![("style", "dashed".into()), ("constraint", "false".into())],
        )
    }));
    out.extend(
        explain::reads_from(program, steps)
            .into_iter()
            .map(|(w, r, object)| {
                edge(
                    w,
                    r,
                    vec![
                        ("color", "blue".into()),
                        ("fontcolor", "blue".into()),
                        ("label", format!("rf {object}")),
                        ("constraint", "false".into()),
                    ],
                )
            }),
    );
    out
}

fn sync_op(program: &Program, step: &Step) -> Option<SyncOp> {
    match program.stmt(step.stmt) {
        StmtRef::Stmt(s) => match &s.kind {
            StmtKind::Sync { op, .. } => Some(op.clone()),
            _ => None,
        },
        StmtRef::Term(_) => None,
    }
}

/// `(create step, first step of the created thread)`: threads are numbered in creation
/// order.
fn creations(program: &Program, steps: &[Step]) -> Vec<(usize, usize)> {
    let mut next = 1u32;
    let mut out = Vec::new();
    for (i, s) in steps.iter().enumerate() {
        if let Some(SyncOp::ThreadCreate { .. }) = sync_op(program, s) {
            if let Some(first) = steps.iter().position(|t| t.thread == next) {
                out.push((i, first));
            }
            next += 1;
        }
    }
    out
}

/// `(last step of a thread, the join of it)`: a join names the thread by a register the
/// joining thread loaded from a handle; the creation that wrote that handle last says
/// which thread it is.
fn joins(program: &Program, steps: &[Step]) -> Vec<(usize, usize)> {
    let mut handle_thread: HashMap<(analysis::ir::ObjId, u64), u32> = HashMap::new();
    let mut next = 1u32;
    let mut out = Vec::new();
    for (i, s) in steps.iter().enumerate() {
        match sync_op(program, s) {
            Some(SyncOp::ThreadCreate {
                handle: Operand::Addr { obj, offset },
                ..
            }) => {
                handle_thread.insert((obj, offset), next);
                next += 1;
            }
            Some(SyncOp::ThreadCreate { .. }) => next += 1,
            Some(SyncOp::ThreadJoin {
                thread: Operand::Reg(reg),
                ..
            }) => {
                let handle = steps[..i]
                    .iter()
                    .rev()
                    .filter(|p| p.thread == s.thread)
                    .find_map(|p| match program.stmt(p.stmt) {
                        StmtRef::Stmt(st) => match &st.kind {
                            StmtKind::Load {
                                dst,
                                addr: Operand::Addr { obj, offset },
                                ..
                            } if *dst == reg => Some((*obj, *offset)),
                            _ => None,
                        },
                        StmtRef::Term(_) => None,
                    });
                let joined = handle.and_then(|h| handle_thread.get(&h));
                if let Some(end) =
                    joined.and_then(|&t| steps[..i].iter().rposition(|p| p.thread == t))
                {
                    out.push((end, i));
                }
            }
            _ => {}
        }
    }
    out
}

/// `(unlock step, the next lock of the same mutex by another thread)`, for mutexes at a
/// fixed address.
fn lock_handovers(program: &Program, steps: &[Step]) -> Vec<(usize, usize)> {
    let mut released: HashMap<(analysis::ir::ObjId, u64), (usize, u32)> = HashMap::new();
    let mut out = Vec::new();
    for (i, s) in steps.iter().enumerate() {
        match sync_op(program, s) {
            Some(SyncOp::MutexUnlock {
                mutex: Operand::Addr { obj, offset },
            }) => {
                released.insert((obj, offset), (i, s.thread));
            }
            Some(SyncOp::MutexLock {
                mutex: Operand::Addr { obj, offset },
            }) => {
                if let Some((u, thread)) = released.remove(&(obj, offset)) {
                    if thread != s.thread {
                        out.push((u, i));
                    }
                }
            }
            _ => {}
        }
    }
    out
}
