//! Recording of the statements a run executes (`RunConfig::record_statements`): each
//! thread's control path with the concrete values of its reads, writes, branches,
//! inputs and synchronizations. The predictive analysis builds its concurrent trace
//! program from it.

use super::machine::Machine;
use super::outcome::{RecordedValue, StmtNote, StmtRecord, ThreadId};
use super::value::Value;
use analysis::ir::{Stmt, StmtId, StmtKind, SyncOp, TermKind, Terminator};

/// What a visible statement looked like before it ran: its address operand's value
/// (and, for a store, the value written; for a create, the new thread's id).
pub(crate) struct Before {
    addr: Option<Value>,
    value: Option<Value>,
}

pub(crate) fn recorded(v: Value) -> RecordedValue {
    match v {
        Value::Int(bits) => RecordedValue::Int(bits),
        Value::Ptr { obj, offset } => RecordedValue::Ptr {
            object: obj.index,
            generation: obj.gen,
            offset,
        },
        Value::Func(f) => RecordedValue::Func(f.0),
    }
}

impl<'p> Machine<'p> {
    pub(crate) fn record_note(&mut self, t: ThreadId, stmt: StmtId, note: StmtNote) {
        if self.cfg.record_statements {
            self.statements.push(StmtRecord {
                thread: t,
                stmt,
                step: self.stats.steps.saturating_sub(1),
                note,
            });
        }
    }

    fn describe_value(&self, v: Value) -> String {
        match v {
            Value::Ptr { obj, offset } => self.mem.describe_addr(obj, offset as u64),
            Value::Int(bits) => format!("{bits:#x}"),
            Value::Func(f) => self.func_name(f).to_string(),
        }
    }

    pub(crate) fn visible_before(&self, t: ThreadId, stmt: &Stmt) -> Before {
        match &stmt.kind {
            StmtKind::Load { addr, .. } => Before {
                addr: Some(self.eval(t, addr)),
                value: None,
            },
            StmtKind::Store { addr, value, .. } => Before {
                addr: Some(self.eval(t, addr)),
                value: Some(self.eval(t, value)),
            },
            StmtKind::Sync { op, .. } => {
                let addr = op.operands().first().map(|a| self.eval(t, a));
                let value = match op {
                    SyncOp::ThreadCreate { .. } => Some(Value::Int(self.threads.len() as u64)),
                    SyncOp::ThreadJoin { thread, .. } => Some(self.eval(t, thread)),
                    _ => None,
                };
                let addr = match op {
                    SyncOp::ThreadJoin { .. } => None,
                    _ => addr,
                };
                Before { addr, value }
            }
            _ => Before {
                addr: None,
                value: None,
            },
        }
    }

    pub(crate) fn record_visible(&mut self, t: ThreadId, stmt: &Stmt, before: Before) {
        let note = match (&stmt.kind, before.addr) {
            (StmtKind::Load { dst, .. }, Some(addr)) => StmtNote::Load {
                addr: recorded(addr),
                what: self.describe_value(addr),
                value: recorded(self.reg_after(t, stmt.id, *dst)),
            },
            (StmtKind::Store { .. }, Some(addr)) => StmtNote::Store {
                addr: recorded(addr),
                what: self.describe_value(addr),
                value: recorded(before.value.unwrap_or(Value::ZERO)),
            },
            (StmtKind::Sync { dst, op }, addr) => {
                let other = match (op, dst) {
                    (SyncOp::MutexTryLock { .. }, Some(dst)) => {
                        Some(self.reg_after(t, stmt.id, *dst))
                    }
                    _ => before.value,
                };
                StmtNote::Sync {
                    addr: addr.map(recorded),
                    what: addr.map(|a| self.describe_value(a)),
                    other: other.map(recorded),
                }
            }
            _ => StmtNote::Plain,
        };
        self.record_note(t, stmt.id, note);
    }

    /// The value of `dst` in the frame of `t` that ran `stmt` (the top frame, unless
    /// the thread has already ended).
    fn reg_after(&self, t: ThreadId, _stmt: StmtId, dst: analysis::ir::RegId) -> Value {
        match self.threads[t.index()].frames.last() {
            Some(frame) => frame.regs[dst.index()],
            None => Value::ZERO,
        }
    }

    /// Records an invisible statement that ran; `depth` is the frame count before it.
    pub(crate) fn record_local(&mut self, t: ThreadId, stmt: &Stmt, depth: usize) {
        let frames = &self.threads[t.index()].frames;
        let note = if frames.len() > depth {
            StmtNote::Call(frames.last().map_or(0, |f| f.func.id.0))
        } else {
            match stmt.kind.def() {
                Some(dst) => StmtNote::Value(recorded(self.reg_after(t, stmt.id, dst))),
                None => StmtNote::Plain,
            }
        };
        self.record_note(t, stmt.id, note);
    }

    /// Records a terminator about to run (a branch with its outcome).
    pub(crate) fn record_term(&mut self, t: ThreadId, term: &Terminator) {
        let note = match &term.kind {
            TermKind::Branch { cond, .. } => StmtNote::Branch(self.eval(t, cond).is_true()),
            _ => StmtNote::Plain,
        };
        self.record_note(t, term.id, note);
    }
}
