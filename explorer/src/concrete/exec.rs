//! The invisible statements (register computations, calls, inputs, heap management,
//! `printf`) and the terminators.

use super::machine::{Flow, Machine, Stop, ThreadState};
use super::outcome::{Bound, InputSource, RunOutcome, RuntimeError, ThreadId, ViolationKind};
use super::value::{self, ArithError, Value};
use analysis::ir::{
    sign_extend, Callee, Failure, FuncId, Operand, RegId, Rvalue, Stmt, StmtKind, TermKind,
    Terminator,
};

impl<'p> Machine<'p> {
    /// Executes one invisible statement of `t` and moves past it (a call moves into the
    /// callee).
    pub(crate) fn exec_local(&mut self, t: ThreadId, stmt: &'p Stmt) -> Flow {
        match &stmt.kind {
            StmtKind::Assign { dst, value } => {
                let v = self.eval_rvalue(t, value)?;
                self.set_reg(t, *dst, v);
            }
            StmtKind::Call { dst, callee, args } => return self.call(t, *dst, callee, args),
            StmtKind::Nondet { dst, ty } => {
                let v = self.input(*ty, InputSource::Nondet)?;
                self.set_reg(t, *dst, v);
            }
            StmtKind::Havoc {
                dst: Some(dst),
                ty,
                function,
            } => {
                let v = self.input(*ty, InputSource::Havoc(function.clone()))?;
                self.set_reg(t, *dst, v);
            }
            StmtKind::Havoc { dst: None, .. } => {}
            StmtKind::Assume { cond } => {
                if !self.eval(t, cond).is_true() {
                    let (thread, span) = (t, stmt.span);
                    return Err(Stop::end(RunOutcome::AssumeViolated { thread, span }));
                }
            }
            StmtKind::Alloc { dst, size, zeroed } => {
                let size = match self.eval(t, size) {
                    Value::Int(n) => n,
                    _ => return Err(self.unsupported("allocation size is a pointer")),
                };
                if self.mem.heap_bytes.saturating_add(size) > self.cfg.max_memory {
                    return Err(Stop::end(RunOutcome::BoundHit {
                        bound: Bound::Memory(self.cfg.max_memory),
                    }));
                }
                let obj = self.mem.alloc(stmt.id, size, *zeroed);
                self.set_reg(t, *dst, Value::Ptr { obj, offset: 0 });
            }
            StmtKind::Free { ptr } => {
                let ptr = self.eval(t, ptr);
                self.mem.free(ptr).map_err(|f| self.fault(f))?;
            }
            StmtKind::Print { dst, format, args } => {
                let printed = self.print(t, format, args)?;
                if let Some(dst) = dst {
                    self.set_reg(t, *dst, Value::Int(printed));
                }
            }
            StmtKind::Load { .. } | StmtKind::Store { .. } | StmtKind::Sync { .. } => {
                return Err(self.unsupported("internal: a visible event run as a local statement"));
            }
        }
        self.advance(t);
        Ok(())
    }

    fn eval_rvalue(&mut self, t: ThreadId, rv: &Rvalue) -> Flow<Value> {
        let dm = self.dm;
        let result = match rv {
            Rvalue::Use(op) => Ok(self.eval(t, op)),
            Rvalue::Unary { op, ty, arg } => value::unary(*op, *ty, self.eval(t, arg), dm),
            Rvalue::Binary { op, ty, lhs, rhs } => {
                value::binary(*op, *ty, self.eval(t, lhs), self.eval(t, rhs), dm)
            }
            Rvalue::Cast { from, to, arg } => value::cast(*from, *to, self.eval(t, arg), dm),
            Rvalue::PtrAdd {
                base,
                index,
                index_ty,
                scale,
            } => value::ptr_add(
                self.eval(t, base),
                self.eval(t, index),
                *index_ty,
                *scale,
                dm,
            ),
            Rvalue::PtrDiff { lhs, rhs, scale } => {
                value::ptr_diff(self.eval(t, lhs), self.eval(t, rhs), *scale, dm)
            }
            Rvalue::Uninit(ty) => return self.uninit_value(*ty),
            // The id `thread_create` stored in this thread's handle.
            Rvalue::ThreadId => Ok(Value::Int(u64::from(t.0))),
            // Whether `t` holds the mutex: only `t`'s own locks change it.
            Rvalue::MutexHeld(m) => {
                let m = self.sync_addr(t, m)?;
                return Ok(Value::Int(u64::from(self.mutexes.get(&m) == Some(&t))));
            }
        };
        result.map_err(|e| match e {
            ArithError::DivisionByZero => {
                self.violation(ViolationKind::DivisionByZero, "division by zero")
            }
            ArithError::FloatConversion => self.violation(
                ViolationKind::FloatConversion,
                "float-to-integer conversion of a value out of the integer's range",
            ),
            ArithError::Unsupported(what) => self.unsupported(what),
        })
    }

    /// A call: pushes a frame for a defined function; an external function (reached
    /// through a pointer) returns an input of its return type.
    fn call(&mut self, t: ThreadId, dst: Option<RegId>, callee: &Callee, args: &[Operand]) -> Flow {
        let target = match callee {
            Callee::Direct(f) => *f,
            Callee::Indirect(op) => self.function_pointer(self.eval(t, op))?,
        };
        let values: Vec<Value> = args.iter().map(|a| self.eval(t, a)).collect();
        self.advance(t);
        let func = self.prog.function(target);
        if !func.is_defined() {
            if let (Some(dst), Some(ty)) = (dst, func.ret) {
                let v = self.input(ty, InputSource::Havoc(func.name.clone()))?;
                self.set_reg(t, dst, v);
            }
            return Ok(());
        }
        if self.threads[t.index()].frames.len() >= self.cfg.max_call_depth {
            let bound = Bound::CallDepth(self.cfg.max_call_depth);
            return Err(Stop::end(RunOutcome::BoundHit { bound }));
        }
        let frame = self.new_frame(func, &values, dst)?;
        self.threads[t.index()].frames.push(frame);
        Ok(())
    }

    /// The function a called (or thread-start) value points to.
    pub(crate) fn function_pointer(&self, v: Value) -> Flow<FuncId> {
        match v {
            Value::Func(f) => Ok(f),
            Value::Int(0) => Err(self.violation(
                ViolationKind::NullDereference,
                "call through a null function pointer",
            )),
            Value::Int(bits) => Err(self.violation(
                ViolationKind::InvalidDereference,
                format!("call through the non-function value {bits:#x}"),
            )),
            Value::Ptr { obj, .. } => Err(self.violation(
                ViolationKind::InvalidDereference,
                format!("call through a pointer to {}", self.mem.describe(obj)),
            )),
        }
    }

    /// Executes a terminator; returns whether `t` keeps running locally (false once its
    /// end event is pending).
    pub(crate) fn exec_term(&mut self, t: ThreadId, term: &'p Terminator) -> Flow<bool> {
        match &term.kind {
            TermKind::Goto(b) => self.jump(t, b.index()),
            TermKind::Branch {
                cond,
                then_bb,
                else_bb,
            } => {
                let target = if self.eval(t, cond).is_true() {
                    then_bb
                } else {
                    else_bb
                };
                self.jump(t, target.index());
            }
            TermKind::Return(value) => return self.return_from(t, value.as_ref(), term),
            TermKind::ThreadExit(value) => {
                let value = self.eval(t, value);
                self.pop_all_frames(t);
                self.threads[t.index()].state = ThreadState::Ending {
                    value,
                    exit_program: false,
                    stmt: term.id,
                    span: term.span,
                };
                return Ok(false);
            }
            TermKind::Error(failure) => {
                let Some(kind) = ViolationKind::of_failure(failure) else {
                    let what = match failure {
                        Failure::Unsupported { what } => what.as_str(),
                        _ => "",
                    };
                    let sites = self.call_sites(t);
                    let (span, note) = self.prog.program_site(term.span, &sites);
                    let what = match note {
                        Some(note) => format!("{what} ({note})"),
                        None => what.to_string(),
                    };
                    return Err(Stop::Error(RuntimeError::unsupported(
                        self.prog, span, what,
                    )));
                };
                return Err(self.violation(kind, failure.to_string()));
            }
            TermKind::Abort => {
                let (thread, span) = (t, term.span);
                return Err(Stop::end(RunOutcome::Aborted { thread, span }));
            }
            TermKind::Exit(code) => {
                let exit_code = match self.eval(t, code) {
                    Value::Int(bits) => sign_extend(bits, 32),
                    _ => return Err(self.unsupported("exit with a pointer as its status")),
                };
                return Err(Stop::end(RunOutcome::Completed { exit_code }));
            }
            TermKind::Unreachable => {
                return Err(
                    self.unsupported("control reached a point the front end marked unreachable")
                );
            }
        }
        Ok(true)
    }

    fn jump(&mut self, t: ThreadId, block: usize) {
        let frame = self.top_mut(t);
        frame.block = block;
        frame.index = 0;
    }

    fn return_from(
        &mut self,
        t: ThreadId,
        value: Option<&Operand>,
        term: &'p Terminator,
    ) -> Flow<bool> {
        let value = value.map(|v| self.eval(t, v));
        let frame = self.threads[t.index()]
            .frames
            .pop()
            .expect("a returning thread has a frame");
        for obj in frame.slots {
            self.mem.kill(obj);
        }
        if self.threads[t.index()].frames.is_empty() {
            self.threads[t.index()].state = ThreadState::Ending {
                value: value.unwrap_or(Value::ZERO),
                exit_program: t == ThreadId::MAIN && self.cfg.context.is_none(),
                stmt: term.id,
                span: term.span,
            };
            return Ok(false);
        }
        if let Some(dst) = frame.ret_dst {
            let v = match value {
                Some(v) => v,
                // A function that falls off its end without a value: the caller reads an
                // uninitialized value.
                None => self.uninit_value(self.top(t).func.reg(dst).ty)?,
            };
            self.set_reg(t, dst, v);
        }
        Ok(true)
    }

    fn pop_all_frames(&mut self, t: ThreadId) {
        let frames = std::mem::take(&mut self.threads[t.index()].frames);
        for frame in frames {
            for obj in frame.slots {
                self.mem.kill(obj);
            }
        }
    }
}
