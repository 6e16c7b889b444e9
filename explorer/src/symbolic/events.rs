//! The visible events: loads, stores, synchronization, condition-variable re-acquires
//! and thread ends, with the enabledness rules and the footprints DPOR uses. Each
//! follows the interpreter's `concrete::events` (which decides the semantics).

use super::dpor::{Access, Loc};
use super::engine::{End, Engine, Side, SideNext, TraceItem};
use super::names::ObjInst;
use super::state::{Addr, Fault, Loaded, State, Tid};
use super::step::{Flow, StepCtx};
use super::summary::WpOp;
use super::term::Var;
use super::twins::set_op;
use super::value::{SVal, Twin, Unsupported};
use crate::concrete::{EventKind, UninitPolicy, ViolationKind};
use analysis::ir::{Scalar, Span, Stmt, StmtId, StmtKind};

/// A resolved address: object and constant offset, or how to get there.
pub(super) enum Resolved {
    At(ObjInst, i64),
    Flow(Flow),
}

impl<'p> Engine<'p> {
    /// Resolves a pointer to a concrete (object, offset); integer and function
    /// "pointers" are violations, a symbolic offset forks.
    pub(super) fn resolve(
        &mut self,
        st: &State,
        t: Tid,
        span: Span,
        p: Twin<SVal>,
        what: &str,
        ops: &mut Vec<WpOp>,
    ) -> Resolved {
        match p.value {
            SVal::Ptr { obj, off } => match self.concrete(off) {
                Some(o) => {
                    self.decide(ops, p.wp.term(), o);
                    Resolved::At(obj, o as i64)
                }
                None => Resolved::Flow(self.pin_fork(st, off, p.wp_term_or(off), what)),
            },
            SVal::Int(x) => match self.concrete(x) {
                Some(0) => Resolved::Flow(self.violation(
                    t,
                    span,
                    ViolationKind::NullDereference,
                    "null pointer dereference",
                )),
                Some(_) => Resolved::Flow(self.violation(
                    t,
                    span,
                    ViolationKind::InvalidDereference,
                    "dereference of a non-pointer value",
                )),
                None => {
                    let zero = self.pool.bv_const(0, self.pool.width(x));
                    let is_null = self.pool.eq(x, zero);
                    let not_null = self.pool.not(is_null);
                    let null_end = End::Violation {
                        kind: ViolationKind::NullDereference,
                        message: "null pointer dereference".into(),
                        span,
                        tid: t,
                    };
                    let bad_end = End::Violation {
                        kind: ViolationKind::InvalidDereference,
                        message: "dereference of a non-pointer value".into(),
                        span,
                        tid: t,
                    };
                    let tru = self.pool.tru();
                    Resolved::Flow(Flow::Fork(vec![
                        Side {
                            guard: is_null,
                            guard_wp: tru,
                            pin: None,
                            next: SideNext::End(st.clone(), null_end),
                        },
                        Side {
                            guard: not_null,
                            guard_wp: tru,
                            pin: None,
                            next: SideNext::End(st.clone(), bad_end),
                        },
                    ]))
                }
            },
            SVal::Func(_) => Resolved::Flow(self.violation(
                t,
                span,
                ViolationKind::InvalidDereference,
                "dereference of a function pointer as data",
            )),
        }
    }

    pub(super) fn fault(&self, t: Tid, span: Span, f: Fault) -> Flow {
        match f {
            Fault::Violation(kind, message) => Flow::End(End::Violation {
                kind,
                message,
                span,
                tid: t,
            }),
            Fault::Unsupported(what) => {
                Flow::End(End::Unsupported(format!("{}: {what}", self.location(span))))
            }
        }
    }

    pub(super) fn record(&mut self, t: Tid, stmt: StmtId, span: Span, event: EventKind) {
        self.path.trace.push(TraceItem {
            tid: t,
            stmt,
            span,
            event,
            void_from: None,
        });
    }

    /// Executes the visible statement `t` stands at.
    pub fn exec_visible(&mut self, st: &mut State, t: Tid, stmt: &Stmt, k: &mut StepCtx) -> Flow {
        match &stmt.kind {
            StmtKind::Load { .. } => self.load(st, t, stmt, k),
            StmtKind::Store { .. } => self.store(st, t, stmt, k),
            StmtKind::Sync { dst, op } => self.sync(st, t, stmt, *dst, op, k),
            _ => self.unsupported(
                stmt.span,
                super::value::Unsupported("internal: not a visible event".into()),
            ),
        }
    }

    /// A statement that is not the event its handler runs (a bug of the dispatch).
    pub(super) fn not_this_event(&self, stmt: &Stmt, what: &str) -> Flow {
        self.unsupported(stmt.span, Unsupported(format!("internal: not {what}")))
    }

    fn load(&mut self, st: &mut State, t: Tid, stmt: &Stmt, k: &mut StepCtx) -> Flow {
        let StmtKind::Load { dst, ref addr, ty } = stmt.kind else {
            return self.not_this_event(stmt, "a load");
        };
        let p = self.read_operand(st, t, addr);
        let (obj, off) = match self.resolve(st, t, stmt.span, p, "a load address", &mut k.wp_ops) {
            Resolved::At(o, off) => (o, off),
            Resolved::Flow(f) => return self.commit_fault(t, stmt, k, f),
        };
        if ty == Scalar::Ptr {
            if let Some(fork) = self.initial_pointer_fork(st, t, (obj, off), stmt.id) {
                return fork;
            }
        }
        self.commit(t, stmt, k);
        let bytes = ty.bytes(self.setup.dm);
        let off = match st.mem.check(obj, off, bytes, false) {
            Ok(o) => o,
            Err(f) => return self.fault(t, stmt.span, f),
        };
        let loaded = match st.mem.load(obj, off, bytes as u8, ty == Scalar::Ptr) {
            Ok(l) => l,
            Err(f) => return self.fault(t, stmt.span, f),
        };
        let cell = Var::Cell { obj, offset: off };
        let v = match loaded {
            Loaded::Value(v) => Twin {
                value: v,
                wp: super::twins::wp_value(&mut self.pool, v, cell),
            },
            Loaded::Uninit if st.mem.initial_owner(obj).is_some() => {
                // An integer of the initial state (pointers forked before the commit).
                let v = SVal::Int(self.new_input(st, t, ty));
                st.mem.store(obj, off, bytes as u8, v);
                k.touch(Access::write(Loc::Mem(obj, off)));
                if self.setup.wp_on {
                    k.wp_ops.extend(set_op(&self.pool, cell, v));
                }
                Twin::same(v)
            }
            Loaded::Uninit if st.mem.zero_default(obj) => {
                Twin::same(SVal::Int(self.pool.bv_const(0, ty.bits(self.setup.dm))))
            }
            Loaded::Uninit => {
                let v = self.uninit_value(st, t, ty);
                if self.setup.cfg.uninit == UninitPolicy::Nondet {
                    // The chosen garbage stays put: later reads of the cell agree.
                    st.mem.store(obj, off, bytes as u8, v);
                    k.touch(Access::write(Loc::Mem(obj, off)));
                    if self.setup.wp_on {
                        k.wp_ops.extend(set_op(&self.pool, cell, v));
                    }
                }
                Twin::same(v)
            }
        };
        k.touch(Access::read(Loc::Mem(obj, off)));
        self.set_reg(st, t, dst, v, &mut k.wp_ops);
        st.top_mut(t).index += 1;
        Flow::Next
    }

    fn store(&mut self, st: &mut State, t: Tid, stmt: &Stmt, k: &mut StepCtx) -> Flow {
        let StmtKind::Store {
            ref addr,
            ref value,
            ty,
        } = stmt.kind
        else {
            return self.not_this_event(stmt, "a store");
        };
        let p = self.read_operand(st, t, addr);
        let (obj, off) = match self.resolve(st, t, stmt.span, p, "a store address", &mut k.wp_ops) {
            Resolved::At(o, off) => (o, off),
            Resolved::Flow(f) => return self.commit_fault(t, stmt, k, f),
        };
        self.commit(t, stmt, k);
        let bytes = ty.bytes(self.setup.dm);
        let off = match st.mem.check(obj, off, bytes, true) {
            Ok(o) => o,
            Err(f) => return self.fault(t, stmt.span, f),
        };
        let v = self.read_operand(st, t, value);
        self.write_cell(st, (obj, off), ty, v, &mut k.wp_ops);
        k.touch(Access::write(Loc::Mem(obj, off)));
        k.shared_effect.get_or_insert_with(|| "a store".to_string());
        st.top_mut(t).index += 1;
        Flow::Next
    }

    /// Writes `v` into the cell at `(obj, off)`, recording the transformer.
    pub(super) fn write_cell(
        &mut self,
        st: &mut State,
        (obj, off): Addr,
        ty: Scalar,
        v: Twin<SVal>,
        ops: &mut Vec<WpOp>,
    ) {
        let value = v.value.fit(&mut self.pool, ty, self.setup.dm);
        st.mem.store(obj, off, ty.bytes(self.setup.dm) as u8, value);
        if self.setup.wp_on {
            let vw = v.wp.fit(&mut self.pool, ty, self.setup.dm);
            ops.extend(set_op(&self.pool, Var::Cell { obj, offset: off }, vw));
        }
    }

    /// The event executes now: it becomes a step of the interpreter's schedule.
    pub(super) fn commit(&mut self, t: Tid, stmt: &Stmt, k: &mut StepCtx) {
        if k.tid == Some(t) {
            k.event_pending = false;
        }
        self.record(t, stmt.id, stmt.span, EventKind::Statement);
    }

    /// A flow that resolving an address produced: a fork re-executes the event later,
    /// anything else (a violation) happens in this event.
    pub(super) fn commit_fault(&mut self, t: Tid, stmt: &Stmt, k: &mut StepCtx, f: Flow) -> Flow {
        if matches!(f, Flow::End(_))
            || matches!(&f, Flow::Fork(sides) if sides.iter().all(|s| matches!(s.next, SideNext::End(..))))
        {
            self.commit(t, stmt, k);
        }
        f
    }
}
