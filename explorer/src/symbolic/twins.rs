//! Values with their weakest-precondition twins ([`Twin`]): every statement is executed
//! twice over, forward on values, and (with summaries on) once more over state variables
//! to produce its transformer ([`WpOp`]s), applied backwards when the subtree below has
//! been explored. Reading operands, setting registers, and the forks a value needs
//! (a failed check, a term the statement needs as a constant).

use super::ends::End;
use super::engine::{Engine, Side, SideNext, StaticObj};
use super::names::ThreadKey;
use super::state::{State, Tid};
use super::step::Flow;
use super::summary::{WpOp, RET_DEPTH};
use super::term::{TermId, TermPool, Var};
use super::value::{self, Evaluated, Reader, SVal, Twin, Unsupported, OFFSET_BITS};
use analysis::ir::{DataModel, Operand, RegId, Rvalue};
/// Reads operands in a thread's top frame: values (forward) or state variables (`wp`).
pub struct Ops<'a> {
    pub st: &'a State,
    pub t: Tid,
    pub statics: &'a [StaticObj],
    pub dm: DataModel,
    pub wp: bool,
}

impl Reader for Ops<'_> {
    fn read(&mut self, pool: &mut TermPool, op: &Operand) -> SVal {
        match op {
            Operand::Reg(r) => {
                let th = &self.st.threads[self.t];
                let v = self.st.top(self.t).regs[r.index()];
                if self.wp {
                    let depth = th.frames.len() as u32 - 1;
                    wp_value(pool, v, reg_var(th.key, depth, *r))
                } else {
                    v
                }
            }
            Operand::Int { bits, ty } => SVal::Int(pool.bv_const(*bits, ty.bits(self.dm))),
            Operand::Null => SVal::Int(pool.bv_const(0, self.dm.pointer_bits())),
            Operand::Func(f) => SVal::Func(*f),
            Operand::Addr { obj, offset } => {
                let inst = match self.statics[obj.index()] {
                    StaticObj::Global(i) => i,
                    StaticObj::ThreadLocal(i) => self.st.threads[self.t].tls[i],
                    StaticObj::Slot(i) => self.st.top(self.t).slots[i],
                };
                SVal::Ptr {
                    obj: inst,
                    off: pool.bv_const(*offset, OFFSET_BITS),
                }
            }
        }
    }
}

pub fn reg_var(thread: ThreadKey, depth: u32, reg: RegId) -> Var {
    Var::Reg { thread, depth, reg }
}

/// A thread's return value as a state variable.
pub fn ret_var(thread: ThreadKey) -> Var {
    Var::Reg {
        thread,
        depth: RET_DEPTH,
        reg: RegId(0),
    }
}

/// The state-variable form of a value held in `var`: same shape, integer part `var`.
pub fn wp_value(pool: &mut TermPool, v: SVal, var: Var) -> SVal {
    match v {
        SVal::Int(t) => {
            let w = pool.width(t);
            SVal::Int(pool.var(var, w))
        }
        SVal::Ptr { obj, .. } => SVal::Ptr {
            obj,
            off: pool.var(var, OFFSET_BITS),
        },
        SVal::Func(f) => SVal::Func(f),
    }
}

/// `var := value` as a transformer step (nothing for a function value, which has no
/// integer part).
pub fn set_op(pool: &TermPool, var: Var, value: SVal) -> Option<WpOp> {
    value.term().map(|t| WpOp::Set(var, pool.width(t), t))
}

impl<'p> Engine<'p> {
    /// Evaluates an rvalue with its twin over state variables (with summaries on).
    pub fn eval_rvalue(
        &mut self,
        st: &State,
        t: Tid,
        rv: &Rvalue,
    ) -> Result<Twin<Evaluated>, Unsupported> {
        let dm = self.setup.dm;
        let mut r = Ops {
            st,
            t,
            statics: &self.setup.statics,
            dm,
            wp: false,
        };
        let value = value::eval_rvalue(&mut self.pool, dm, rv, &mut r)?;
        if !self.setup.wp_on {
            return Ok(Twin::same(value));
        }
        r.wp = true;
        let wp = value::eval_rvalue(&mut self.pool, dm, rv, &mut r)?;
        Ok(Twin { value, wp })
    }

    /// Reads an operand with its twin over state variables (with summaries on).
    pub fn read_operand(&mut self, st: &State, t: Tid, op: &Operand) -> Twin<SVal> {
        let mut r = Ops {
            st,
            t,
            statics: &self.setup.statics,
            dm: self.setup.dm,
            wp: false,
        };
        let value = r.read(&mut self.pool, op);
        if !self.setup.wp_on {
            return Twin::same(value);
        }
        r.wp = true;
        Twin {
            value,
            wp: r.read(&mut self.pool, op),
        }
    }

    /// The truth of an operand (`!= 0`) as a condition, with its twin.
    pub(super) fn truth_of(&mut self, st: &State, t: Tid, op: &Operand) -> Twin<TermId> {
        let v = self.read_operand(st, t, op);
        Twin {
            value: value::truth(&mut self.pool, v.value),
            wp: value::truth(&mut self.pool, v.wp),
        }
    }

    /// Sets a register of `t`'s top frame, recording the transformer.
    pub fn set_reg(
        &mut self,
        st: &mut State,
        t: Tid,
        reg: RegId,
        v: Twin<SVal>,
        ops: &mut Vec<WpOp>,
    ) {
        let func = self.setup.prog.function(st.top(t).func);
        let ty = func.reg(reg).ty;
        let value = v.value.fit(&mut self.pool, ty, self.setup.dm);
        st.top_mut(t).regs[reg.index()] = value;
        if self.setup.wp_on {
            let vw = v.wp.fit(&mut self.pool, ty, self.setup.dm);
            let th = &st.threads[t];
            let var = reg_var(th.key, th.frames.len() as u32 - 1, reg);
            ops.extend(set_op(&self.pool, var, vw));
        }
    }

    /// Records, for the weakest precondition, that the forward run decided on
    /// `wp_term == value` (an address, a thread id, a size it needed as a constant).
    pub fn decide(&mut self, ops: &mut Vec<WpOp>, wp_term: Option<TermId>, value: u64) {
        let Some(t) = wp_term.filter(|_| self.setup.wp_on) else {
            return;
        };
        if self.pool.as_bv(t).is_none() {
            let k = self.pool.bv_const(value, self.pool.width(t));
            let eq = self.pool.eq(t, k);
            ops.push(WpOp::Assume(eq));
        }
    }

    /// Records, for the weakest precondition, a condition the forward run found true.
    pub fn decide_truth(&mut self, ops: &mut Vec<WpOp>, cond_wp: TermId) {
        if self.setup.wp_on && !self.pool.is_true(cond_wp) {
            ops.push(WpOp::Assume(cond_wp));
        }
    }

    /// A fork on a check: the bad side ends the run with a violation, the other side
    /// re-executes the statement knowing the check passed. `None` if the check passes
    /// (recorded in `ops` for the weakest precondition).
    pub fn check_fork(
        &mut self,
        st: &State,
        t: Tid,
        span: analysis::ir::Span,
        e: &Twin<Evaluated>,
        ops: &mut Vec<WpOp>,
    ) -> Option<Flow> {
        for (c, c_wp) in e.value.checks.iter().zip(&e.wp.checks) {
            let ok = self.pool.not(c.bad);
            let bad_wp = c_wp.bad;
            let ok_wp = self.pool.not(bad_wp);
            if self.holds(ok) {
                self.decide_truth(ops, ok_wp);
                continue;
            }
            let end = End::Violation {
                kind: c.kind,
                message: c.message.clone(),
                span,
                tid: t,
            };
            return Some(Flow::Fork(vec![
                Side {
                    guard: c.bad,
                    guard_wp: bad_wp,
                    pin: None,
                    next: SideNext::End(st.clone(), end),
                },
                Side {
                    guard: ok,
                    guard_wp: ok_wp,
                    pin: None,
                    next: SideNext::Continue(st.clone()),
                },
            ]));
        }
        None
    }

    /// A fork over the values of a term the statement needs as a constant: each side
    /// pins it and re-executes the statement. `wp_term` is its form over state variables.
    pub fn pin_fork(&mut self, st: &State, t: TermId, wp_term: TermId, what: &str) -> Flow {
        let Some(values) = self.enumerate(t, 64) else {
            return Flow::End(End::Unsupported(format!(
                "{what} takes more than 64 values (or the solver gave up)"
            )));
        };
        let w = self.pool.width(t);
        let sides = values
            .into_iter()
            .map(|v| {
                let k = self.pool.bv_const(v, w);
                let guard = self.pool.eq(t, k);
                let guard_wp = self.pool.eq(wp_term, k);
                Side {
                    guard,
                    guard_wp,
                    pin: Some((t, v)),
                    next: SideNext::Continue(st.clone()),
                }
            })
            .collect();
        Flow::Fork(sides)
    }
}
