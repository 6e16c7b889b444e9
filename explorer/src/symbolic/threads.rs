//! Thread creation and join as events: the handle written, the child's first frame,
//! the joined thread's return value stored through the result pointer.

use super::dpor::{Access, Loc};
use super::engine::{End, Engine};
use super::events::Resolved;
use super::names::ThreadName;
use super::state::{State, Status, Tid};
use super::step::{Flow, StepCtx};
use super::twins::ret_var;
use super::value::{SVal, Twin};
use super::Reason;
use crate::concrete::ViolationKind;
use analysis::ir::{Scalar, Stmt, StmtKind, SyncOp};
impl<'p> Engine<'p> {
    pub(super) fn create(&mut self, st: &mut State, t: Tid, stmt: &Stmt, k: &mut StepCtx) -> Flow {
        let StmtKind::Sync {
            dst,
            op:
                SyncOp::ThreadCreate {
                    ref handle,
                    ref func,
                    ref arg,
                },
        } = stmt.kind
        else {
            return self.not_this_event(stmt, "a thread creation");
        };
        let span = stmt.span;
        let h = self.read_operand(st, t, handle);
        let (obj, off) =
            match self.resolve(st, t, span, h, "a thread handle address", &mut k.wp_ops) {
                Resolved::At(o, off) => (o, off),
                Resolved::Flow(f) => return self.commit_fault(t, stmt, k, f),
            };
        let f = self.read_operand(st, t, func);
        let start = match self.function_of(st, t, f, span) {
            Ok(f) => f,
            Err(flow) => return self.commit_fault(t, stmt, k, flow),
        };
        self.commit(t, stmt, k);
        let a = self.read_operand(st, t, arg);
        let function = self.setup.prog.function(start);
        if !function.is_defined() {
            let what = format!(
                "{}: thread start routine `{}` has no body",
                self.location(span),
                function.name
            );
            return Flow::End(End::Unsupported(what));
        }
        let child = st.threads.len();
        let most = &mut self.search.stats.most_threads;
        *most = (*most).max(child as u64 + 1);
        if child >= self.setup.cfg.max_threads {
            let detail = format!(
                "a run created more than {} threads (at {})",
                self.setup.cfg.max_threads,
                self.location(span)
            );
            return Flow::End(End::Bound(Reason::MaxThreads, detail));
        }
        let handle_ty = Scalar::Int {
            bits: self.setup.dm.pointer_bits(),
            signed: false,
        };
        let bytes = handle_ty.bytes(self.setup.dm);
        let off = match st.mem.check(obj, off, bytes, true) {
            Ok(o) => o,
            Err(f) => return self.fault(t, span, f),
        };
        let id = SVal::Int(
            self.pool
                .bv_const(child as u64, self.setup.dm.pointer_bits()),
        );
        self.write_cell(st, (obj, off), handle_ty, Twin::same(id), &mut k.wp_ops);
        self.set_sync_result(st, t, dst, 0, &mut k.wp_ops);
        st.top_mut(t).index += 1;
        let parent = st.threads[t].key;
        let seq = st.threads[t].created;
        st.threads[t].created += 1;
        let key = self.names.thread(ThreadName::Child { parent, seq });
        k.touch(Access::write(Loc::Mem(obj, off)));
        k.touch(Access::write(Loc::Thread(key)));
        k.shared_effect
            .get_or_insert_with(|| "a thread creation".to_string());
        let spawned = match self.spawn(st, key, function, &[a], &mut k.wp_ops) {
            Ok(tid) => tid,
            Err(u) => return self.unsupported(span, u),
        };
        k.created.push(spawned);
        k.resume.push(t);
        Flow::Switch(spawned)
    }

    pub(super) fn join(&mut self, st: &mut State, t: Tid, stmt: &Stmt, k: &mut StepCtx) -> Flow {
        let StmtKind::Sync {
            dst,
            op:
                SyncOp::ThreadJoin {
                    ref thread,
                    ref result,
                },
        } = stmt.kind
        else {
            return self.not_this_event(stmt, "a join");
        };
        let span = stmt.span;
        let tv = self.read_operand(st, t, thread);
        let target = match tv.value {
            SVal::Int(x) => match self.concrete(x) {
                Some(v) => {
                    self.decide(&mut k.wp_ops, tv.wp.term(), v);
                    v
                }
                None => return self.pin_fork(st, x, tv.wp_term_or(x), "a joined thread id"),
            },
            _ => {
                self.commit(t, stmt, k);
                return self.violation(
                    t,
                    span,
                    ViolationKind::JoinMisuse,
                    "join of a pointer, not a thread id",
                );
            }
        };
        let r = self.read_operand(st, t, result);
        let result_at = match r.value {
            SVal::Int(x) => match self.concrete(x) {
                Some(0) => {
                    self.decide(&mut k.wp_ops, r.wp.term(), 0);
                    None
                }
                Some(_) => Some(Err(())),
                None => return self.pin_fork(st, x, r.wp_term_or(x), "a join result address"),
            },
            SVal::Ptr { .. } => {
                match self.resolve(st, t, span, r, "a join result address", &mut k.wp_ops) {
                    Resolved::At(o, off) => Some(Ok((o, off))),
                    Resolved::Flow(f) => return self.commit_fault(t, stmt, k, f),
                }
            }
            SVal::Func(_) => Some(Err(())),
        };
        self.commit(t, stmt, k);
        if target == t as u64 {
            return self.violation(t, span, ViolationKind::JoinMisuse, "a thread joins itself");
        }
        let Some(j) = usize::try_from(target)
            .ok()
            .filter(|&j| j < st.threads.len())
        else {
            return self.violation(
                t,
                span,
                ViolationKind::JoinMisuse,
                "join of a thread that does not exist",
            );
        };
        let value = match st.threads[j].status {
            Status::Finished { value } => value,
            Status::Joined => {
                return self.violation(
                    t,
                    span,
                    ViolationKind::JoinMisuse,
                    "join of a thread already joined",
                )
            }
            _ => {
                let what = format!(
                    "{}: internal: join of a running thread was scheduled",
                    self.location(span)
                );
                return Flow::End(End::Unsupported(what));
            }
        };
        let jkey = st.threads[j].key;
        k.touch(Access::acquire(Loc::Thread(jkey)));
        match result_at {
            None => {}
            Some(Err(())) => {
                let (kind, msg) = match r.value {
                    SVal::Func(_) => (
                        ViolationKind::InvalidDereference,
                        "dereference of a function pointer as data",
                    ),
                    _ => (
                        ViolationKind::InvalidDereference,
                        "dereference of a non-pointer value",
                    ),
                };
                return self.violation(t, span, kind, msg);
            }
            Some(Ok((obj, off))) => {
                let off = match st.mem.check(obj, off, self.setup.dm.pointer_bytes(), true) {
                    Ok(o) => o,
                    Err(f) => return self.fault(t, span, f),
                };
                let v = Twin {
                    value,
                    wp: super::twins::wp_value(&mut self.pool, value, ret_var(jkey)),
                };
                self.write_cell(st, (obj, off), Scalar::Ptr, v, &mut k.wp_ops);
                k.touch(Access::write(Loc::Mem(obj, off)));
                k.shared_effect
                    .get_or_insert_with(|| "a join result".to_string());
            }
        }
        st.threads[j].status = Status::Joined;
        self.set_sync_result(st, t, dst, 0, &mut k.wp_ops);
        st.top_mut(t).index += 1;
        Flow::Next
    }
}
