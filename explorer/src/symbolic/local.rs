//! Local statements: assignments, calls, inputs, `assume`, allocation, `free` and
//! `printf` (no other thread observes them, so they run inside a step).

use super::ends::End;
use super::engine::{Engine, Side, SideNext};
use super::names::ObjName;
use super::state::{State, Status, Tid};
use super::step::{Flow, StepCtx};
use super::term::{TermId, TermPool, Var};
use super::value::{SVal, Twin, Unsupported, OFFSET_BITS};
use super::Reason;
use crate::concrete::{UninitPolicy, ViolationKind};
use analysis::ir::{Callee, FuncId, Operand, Rvalue, Scalar, Stmt, StmtKind};
impl<'p> Engine<'p> {
    pub(super) fn exec_local(
        &mut self,
        st: &mut State,
        t: Tid,
        stmt: &Stmt,
        k: &mut StepCtx,
    ) -> Flow {
        match &stmt.kind {
            StmtKind::Assign {
                dst,
                value: Rvalue::Uninit(ty),
            } => {
                let v = self.uninit_value(st, t, *ty);
                self.set_reg(st, t, *dst, Twin::same(v), &mut k.wp_ops);
            }
            StmtKind::Assign {
                dst,
                value: Rvalue::ThreadId,
            } => {
                // The id `create` stored in this thread's handle: its index.
                let bits = self.setup.dm.pointer_bits();
                let v = SVal::Int(self.pool.bv_const(t as u64, bits));
                self.set_reg(st, t, *dst, Twin::same(v), &mut k.wp_ops);
            }
            StmtKind::Assign {
                dst,
                value: Rvalue::MutexHeld(m),
            } => {
                // Whether `t` holds the mutex: only `t`'s own locks change it.
                let a = match self.sync_addr(st, t, stmt.span, m, &mut k.wp_ops) {
                    Ok(a) => a,
                    Err(f) => return f,
                };
                let held = u64::from(st.mutexes.get(&a) == Some(&t));
                let v = SVal::Int(self.pool.bv_const(held, 32));
                self.set_reg(st, t, *dst, Twin::same(v), &mut k.wp_ops);
            }
            StmtKind::Assign { dst, value } => {
                let e = match self.eval_rvalue(st, t, value) {
                    Ok(e) => e,
                    Err(u) => return self.unsupported(stmt.span, u),
                };
                if let Some(flow) = self.check_fork(st, t, stmt.span, &e, &mut k.wp_ops) {
                    return flow;
                }
                let v = Twin {
                    value: e.value.value,
                    wp: e.wp.value,
                };
                self.set_reg(st, t, *dst, v, &mut k.wp_ops);
            }
            StmtKind::Call { .. } => return self.call(st, t, stmt, k),
            StmtKind::Nondet { dst, ty } => {
                let v = SVal::Int(self.new_input(st, t, *ty));
                self.set_reg(st, t, *dst, Twin::same(v), &mut k.wp_ops);
            }
            StmtKind::Havoc {
                dst: Some(dst), ty, ..
            } => {
                let v = SVal::Int(self.new_input(st, t, *ty));
                self.set_reg(st, t, *dst, Twin::same(v), &mut k.wp_ops);
            }
            StmtKind::Havoc { dst: None, .. } => {}
            StmtKind::Assume { cond } => return self.assume(st, t, stmt, cond, k),
            StmtKind::Alloc { dst, size, zeroed } => {
                let sz = self.read_operand(st, t, size);
                let SVal::Int(sz_t) = sz.value else {
                    return self.unsupported(
                        stmt.span,
                        Unsupported("allocation size is a pointer".into()),
                    );
                };
                let Some(n) = self.concrete(sz_t) else {
                    let wpt = sz.wp_term_or(sz_t);
                    return self.pin_fork(st, sz_t, wpt, "an allocation size");
                };
                self.decide(&mut k.wp_ops, sz.wp.term(), n);
                if st.mem.heap_bytes.saturating_add(n) > self.setup.cfg.max_memory {
                    let detail = format!(
                        "the live heap blocks would exceed {} MiB at {}",
                        self.setup.cfg.max_memory >> 20,
                        self.location(stmt.span)
                    );
                    return Flow::End(End::Bound(Reason::Memory, detail));
                }
                let th = &mut st.threads[t];
                let seq = th.allocs.entry(stmt.id).or_insert(0);
                let name = ObjName::Heap {
                    thread: th.key,
                    site: stmt.id,
                    seq: *seq,
                };
                *seq += 1;
                let inst = self.names.object(name);
                st.mem.create(inst, n, *zeroed, false, true);
                let p = SVal::Ptr {
                    obj: inst,
                    off: self.pool.bv_const(0, OFFSET_BITS),
                };
                self.set_reg(st, t, *dst, Twin::same(p), &mut k.wp_ops);
            }
            StmtKind::Free { ptr } => return self.free(st, t, stmt, ptr, k),
            StmtKind::Print { dst, format, args } => {
                let func = st.top(t).func;
                let used = dst.is_some_and(|d| self.setup.read_regs[func.index()].contains(&d));
                if let Some(flow) = self.print(st, t, stmt, used, format, args) {
                    return flow;
                }
            }
            StmtKind::Load { .. } | StmtKind::Store { .. } | StmtKind::Sync { .. } => {
                return self.unsupported(
                    stmt.span,
                    Unsupported("internal: a visible event run as a local statement".into()),
                );
            }
        }
        st.top_mut(t).index += 1;
        Flow::Next
    }

    /// An uninitialized value of `ty` under the configured policy.
    pub fn uninit_value(&mut self, st: &mut State, t: Tid, ty: Scalar) -> SVal {
        match self.setup.cfg.uninit {
            UninitPolicy::Zero => SVal::Int(self.pool.bv_const(0, ty.bits(self.setup.dm))),
            UninitPolicy::Nondet => SVal::Int(self.new_input(st, t, ty)),
        }
    }

    pub fn unsupported(&self, span: analysis::ir::Span, u: Unsupported) -> Flow {
        Flow::End(End::Unsupported(format!(
            "{}: {}",
            self.location(span),
            u.0
        )))
    }

    /// The effect on other threads that the current step had before `t`'s local code
    /// ends the run (outside atomic sections), if any.
    pub(super) fn eager_gap(&self, st: &State, t: Tid, k: &StepCtx) -> Option<String> {
        match (&k.shared_effect, st.threads[t].atomic) {
            (Some(effect), 0) if k.tid.is_some() => Some(effect.clone()),
            _ => None,
        }
    }

    /// Does `c` depend only on inputs `t` read since its last visible event (values no
    /// other thread can have seen), with a satisfiable alternative? Then the assume
    /// failing hides nothing from other threads: the run with `t` past the assume (and
    /// never scheduled again) reaches the same states of the others.
    fn fails_privately(&mut self, t: Tid, c: TermId, k: &StepCtx) -> bool {
        let Some(&(_, i0, p0)) = k.fresh.iter().find(|(u, _, _)| *u == t) else {
            return false;
        };
        let fresh: rustc_hash::FxHashSet<Var> = self.path.inputs[i0.min(self.path.inputs.len())..]
            .iter()
            .filter(|r| r.tid == t)
            .map(|r| r.var)
            .collect();
        let private = |pool: &TermPool, term: TermId| {
            let vars = pool.vars(term);
            let touches = vars.iter().any(|(v, _)| fresh.contains(v));
            (touches, vars.iter().all(|(v, _)| fresh.contains(v)))
        };
        let (touches, only) = private(&self.pool, c);
        if !touches || !only {
            return false;
        }
        let mixed = self.path.pcon[p0.min(self.path.pcon.len())..]
            .iter()
            .any(|&conj| {
                let (touches, only) = private(&self.pool, conj);
                touches && !only
            });
        !mixed && self.feasible(c) == Some(true)
    }

    /// `__VERIFIER_assume(cond)`: the run ends where it is false.
    fn assume(
        &mut self,
        st: &mut State,
        t: Tid,
        stmt: &Stmt,
        cond: &Operand,
        k: &mut StepCtx,
    ) -> Flow {
        let Twin { value: c, wp: cw } = self.truth_of(st, t, cond);
        if self.holds(c) {
            self.decide_truth(&mut k.wp_ops, cw);
            st.top_mut(t).index += 1;
            return Flow::Next;
        }
        let gap = match self.eager_gap(st, t, k) {
            Some(effect) if !self.fails_privately(t, c, k) => Some(format!(
                "thread {t} stopped at the assume at {} (after {effect} in the same step) instead \
                 of ending the run",
                self.location(stmt.span)
            )),
            _ => None,
        };
        let mut pass = st.clone();
        pass.top_mut(t).index += 1;
        let not_c = self.pool.not(c);
        let not_cw = self.pool.not(cw);
        let mut failed = st.clone();
        let failed_next = if self.may_await(st, t, k) {
            // The marker is written when the side is entered (`StepCtx` and the trace
            // are the side's own then).
            self.start_await(&mut failed, t, k, false);
            SideNext::Continue(failed)
        } else {
            failed.threads[t].status = Status::Stopped;
            SideNext::End(failed, End::AssumeFalse { gap })
        };
        Flow::Fork(vec![
            Side {
                guard: c,
                guard_wp: cw,
                pin: None,
                next: SideNext::Continue(pass),
            },
            Side {
                guard: not_c,
                guard_wp: not_cw,
                pin: None,
                next: failed_next,
            },
        ])
    }

    /// A call of a function with a body pushes its frame; of one without, havocs the
    /// result.
    fn call(&mut self, st: &mut State, t: Tid, stmt: &Stmt, k: &mut StepCtx) -> Flow {
        let StmtKind::Call { dst, callee, args } = &stmt.kind else {
            return self.unsupported(stmt.span, Unsupported("internal: not a call".into()));
        };
        let dst = *dst;
        let target = match callee {
            Callee::Direct(f) => *f,
            Callee::Indirect(op) => {
                let v = self.read_operand(st, t, op);
                match self.function_of(st, t, v, stmt.span) {
                    Ok(f) => f,
                    Err(flow) => return flow,
                }
            }
        };
        let args: Vec<Twin<SVal>> = args.iter().map(|a| self.read_operand(st, t, a)).collect();
        st.top_mut(t).index += 1;
        let func = self.setup.prog.function(target);
        if !func.is_defined() {
            if let (Some(dst), Some(ty)) = (dst, func.ret) {
                let v = SVal::Int(self.new_input(st, t, ty));
                self.set_reg(st, t, dst, Twin::same(v), &mut k.wp_ops);
            }
            return Flow::Next;
        }
        if let Some(bound) = self.setup.cfg.unwind {
            let active = st.threads[t]
                .frames
                .iter()
                .filter(|f| f.func == target)
                .count();
            if active as u64 > u64::from(bound) {
                let detail = format!(
                    "`{}` recursed more than {bound} times at {}",
                    func.name,
                    self.location(stmt.span)
                );
                return Flow::End(End::Bound(Reason::Unwind, detail));
            }
        }
        match self.new_frame(st, t, func, &args, dst, &mut k.wp_ops) {
            Ok(frame) => st.threads[t].frames.push(frame),
            Err(u) => return self.unsupported(stmt.span, u),
        }
        Flow::Next
    }

    /// The function a value calls: a violation for null or data pointers, a fork for a
    /// symbolic integer.
    pub fn function_of(
        &mut self,
        st: &State,
        t: Tid,
        v: Twin<SVal>,
        span: analysis::ir::Span,
    ) -> Result<FuncId, Flow> {
        match v.value {
            SVal::Func(f) => Ok(f),
            SVal::Int(x) => match self.concrete(x) {
                Some(0) => Err(self.violation(
                    t,
                    span,
                    ViolationKind::NullDereference,
                    "call through a null function pointer",
                )),
                Some(_) => Err(self.violation(
                    t,
                    span,
                    ViolationKind::InvalidDereference,
                    "call through a non-function value",
                )),
                None => Err(self.pin_fork(st, x, v.wp_term_or(x), "a called pointer")),
            },
            SVal::Ptr { .. } => Err(self.violation(
                t,
                span,
                ViolationKind::InvalidDereference,
                "call through a data pointer",
            )),
        }
    }

    pub fn violation(
        &self,
        t: Tid,
        span: analysis::ir::Span,
        kind: ViolationKind,
        message: &str,
    ) -> Flow {
        Flow::End(End::Violation {
            kind,
            message: message.to_string(),
            span,
            tid: t,
        })
    }

    fn free(
        &mut self,
        st: &mut State,
        t: Tid,
        stmt: &Stmt,
        ptr: &Operand,
        k: &mut StepCtx,
    ) -> Flow {
        let p = self.read_operand(st, t, ptr);
        let invalid =
            |e: &Self, msg: &str| e.violation(t, stmt.span, ViolationKind::InvalidFree, msg);
        match p.value {
            SVal::Int(x) => match self.concrete(x) {
                Some(0) => self.decide(&mut k.wp_ops, p.wp.term(), 0),
                Some(_) => return invalid(self, "free of a non-pointer value"),
                None => return self.pin_fork(st, x, p.wp_term_or(x), "a freed pointer"),
            },
            SVal::Func(_) => return invalid(self, "free of a function pointer"),
            SVal::Ptr { obj, off } => {
                let Some(o) = st.mem.get(obj) else {
                    return invalid(self, "free of an unknown object");
                };
                if !o.heap {
                    return invalid(self, "free of memory that is not a heap block");
                }
                if !o.live {
                    return self.violation(t, stmt.span, ViolationKind::DoubleFree, "double free");
                }
                match self.concrete(off) {
                    Some(0) => self.decide(&mut k.wp_ops, p.wp.term(), 0),
                    Some(_) => {
                        return invalid(
                            self,
                            "free of a pointer that is not the start of its block",
                        )
                    }
                    None => {
                        return self.pin_fork(
                            st,
                            off,
                            p.wp_term_or(off),
                            "a freed pointer's offset",
                        )
                    }
                }
                st.mem.kill(obj);
                k.touch(super::dpor::Access::write(super::dpor::Loc::Obj(obj)));
                k.shared_effect.get_or_insert_with(|| "a free".to_string());
            }
        }
        st.top_mut(t).index += 1;
        Flow::Next
    }

    /// `printf`: no effect on the state. Its result (when some statement reads it), or
    /// `%s` of anything but a string literal (which reads memory with checks), is not
    /// modelled.
    fn print(
        &mut self,
        st: &State,
        t: Tid,
        stmt: &Stmt,
        has_dst: bool,
        format: &[analysis::ir::FormatPiece],
        args: &[Operand],
    ) -> Option<Flow> {
        if has_dst {
            return Some(self.unsupported(stmt.span, Unsupported("the result of printf".into())));
        }
        let mut next = 0;
        for piece in format {
            if let analysis::ir::FormatPiece::Conv { conv, .. } = piece {
                let Some(arg) = args.get(next) else { break };
                next += 1;
                if *conv == 's' {
                    let literal = match self.read_operand(st, t, arg).value {
                        SVal::Ptr { obj, .. } => st.mem.get(obj).is_some_and(|o| o.read_only),
                        _ => false,
                    };
                    if !literal {
                        let u = Unsupported(
                            "printf `%s` of something other than a string literal".into(),
                        );
                        return Some(self.unsupported(stmt.span, u));
                    }
                }
            }
        }
        None
    }
}
