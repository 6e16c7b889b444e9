//! Terminators: jumps with their loop bounds, symbolic branches, returns and thread
//! exits, and the end of stack slots' lifetimes.

use super::ends::End;
use super::engine::{Engine, Side, SideNext};
use super::names::ObjInst;
use super::state::{State, Status, Tid};
use super::step::{Flow, StepCtx};
use super::twins::{ret_var, set_op};
use super::value::{SVal, Twin, Unsupported};
use super::Reason;
use crate::concrete::ViolationKind;
use analysis::ir::{Failure, Operand, Span, TermKind, Terminator};
impl<'p> Engine<'p> {
    pub(super) fn exec_term(
        &mut self,
        st: &mut State,
        t: Tid,
        term: &Terminator,
        k: &mut StepCtx,
    ) -> Flow {
        match &term.kind {
            TermKind::Goto(b) => self.jump(st, t, b.index() as u32, term),
            TermKind::Branch {
                cond,
                then_bb,
                else_bb,
            } => {
                let Twin { value: c, wp: cw } = self.truth_of(st, t, cond);
                if let Some(b) = self.pool.as_bool(c) {
                    let taken = if b { cw } else { self.pool.not(cw) };
                    self.decide_truth(&mut k.wp_ops, taken);
                    let target = if b { then_bb } else { else_bb };
                    return self.jump(st, t, target.index() as u32, term);
                }
                let not_c = self.pool.not(c);
                let not_cw = self.pool.not(cw);
                let mut sides = Vec::new();
                for (guard, guard_wp, target) in [(c, cw, then_bb), (not_c, not_cw, else_bb)] {
                    let mut s = st.clone();
                    let next = match self.jump(&mut s, t, target.index() as u32, term) {
                        Flow::End(e) => SideNext::End(s, e),
                        _ => SideNext::Continue(s),
                    };
                    sides.push(Side {
                        guard,
                        guard_wp,
                        pin: None,
                        next,
                    });
                }
                Flow::Fork(sides)
            }
            TermKind::Return(value) => self.return_from(st, t, value.as_ref(), term, k),
            TermKind::ThreadExit(value) => {
                let v = self.read_operand(st, t, value);
                self.pop_all_frames(st, t, k);
                let key = st.threads[t].key;
                if self.setup.wp_on {
                    k.wp_ops.extend(set_op(&self.pool, ret_var(key), v.wp));
                }
                st.threads[t].status = Status::Ending {
                    value: v.value,
                    exit_program: false,
                    stmt: term.id,
                };
                Flow::Park
            }
            TermKind::Error(failure) => match ViolationKind::of_failure(failure) {
                Some(kind) => Flow::End(End::Violation {
                    kind,
                    message: failure.to_string(),
                    span: term.span,
                    tid: t,
                }),
                None => {
                    let what = match failure {
                        Failure::Unsupported { what } => what.as_str(),
                        _ => "",
                    };
                    let sites = self.call_sites(st, t);
                    let (span, note) = self.setup.prog.program_site(term.span, &sites);
                    let note = note.map(|n| format!(" ({n})")).unwrap_or_default();
                    Flow::End(End::Unsupported(format!(
                        "{}: {what}{note}",
                        self.location(span)
                    )))
                }
            },
            TermKind::Abort if self.may_await(st, t, k) => {
                self.start_await(st, t, k, true);
                Flow::Park
            }
            TermKind::Abort | TermKind::Exit(_) => match self.eager_gap(st, t, k) {
                Some(effect) => Flow::End(End::AssumeFalse {
                    gap: Some(format!(
                        "thread {t} stopped at {} (after {effect} in the same step) instead of \
                         ending the run",
                        self.location(term.span)
                    )),
                }),
                None if matches!(term.kind, TermKind::Abort) => Flow::End(End::Aborted),
                None => Flow::End(End::Completed),
            },
            TermKind::Unreachable => self.unsupported(
                term.span,
                Unsupported("control reached a point the front end marked unreachable".into()),
            ),
        }
    }

    /// Moves to `block`, counting loop iterations (a back edge adds one to its header's
    /// count; entering a loop from outside restarts it).
    fn jump(&mut self, st: &mut State, t: Tid, block: u32, term: &Terminator) -> Flow {
        let frame = st.top_mut(t);
        let from = frame.block;
        let func = frame.func;
        frame.block = block;
        frame.index = 0;
        // Inside an atomic section nobody else can run: spinning there is a livelock,
        // left to the cycle check.
        let in_atomic = st.atomic_owner == Some(t) || st.threads[t].atomic > 0;
        if !in_atomic && self.setup.spin_back_edges.contains(&(func, from, block)) {
            self.trace_event(|| format!("thread {t} spins at {}", self.location(term.span)));
            st.threads[t].status = Status::Spinning;
            return Flow::Park;
        }
        let frame = st.top_mut(t);
        if self.setup.back_edges.contains(&(func, from, block)) {
            let count = match frame.loops.iter_mut().find(|(h, _)| *h == block) {
                Some((_, n)) => {
                    *n += 1;
                    *n
                }
                None => {
                    frame.loops.push((block, 1));
                    1
                }
            };
            if let Some(bound) = self.setup.cfg.unwind {
                if count > bound {
                    let detail = format!(
                        "a loop at {} ran more than {bound} iterations",
                        self.location(term.span)
                    );
                    return Flow::End(End::Bound(Reason::Unwind, detail));
                }
            }
        } else if frame.loops.iter().any(|(h, _)| *h == block) {
            frame.loops.retain(|(h, _)| *h != block);
        }
        Flow::Next
    }

    fn return_from(
        &mut self,
        st: &mut State,
        t: Tid,
        value: Option<&Operand>,
        term: &Terminator,
        k: &mut StepCtx,
    ) -> Flow {
        let value = value.map(|v| self.read_operand(st, t, v));
        let ret_ty = self.setup.prog.function(st.top(t).func).ret;
        let frame = st.threads[t]
            .frames
            .pop()
            .expect("a returning thread has a frame");
        self.kill_slots(st, &frame.slots, k);
        let key = st.threads[t].key;
        if st.threads[t].frames.is_empty() {
            let bits = ret_ty.map_or(self.setup.dm.pointer_bits(), |ty| ty.bits(self.setup.dm));
            let zero = SVal::Int(self.pool.bv_const(0, bits));
            let v = value.unwrap_or(Twin::same(zero));
            if self.setup.wp_on {
                k.wp_ops.extend(set_op(&self.pool, ret_var(key), v.wp));
            }
            st.threads[t].status = Status::Ending {
                value: v.value,
                exit_program: t == 0 && self.setup.cfg.context.is_none(),
                stmt: term.id,
            };
            return Flow::Park;
        }
        if let Some(dst) = frame.ret_dst {
            let v = match value {
                Some(v) => v,
                None => {
                    let ty = self.setup.prog.function(st.top(t).func).reg(dst).ty;
                    Twin::same(self.uninit_value(st, t, ty))
                }
            };
            self.set_reg(st, t, dst, v, &mut k.wp_ops);
        }
        Flow::Next
    }

    fn pop_all_frames(&mut self, st: &mut State, t: Tid, k: &mut StepCtx) {
        let frames = std::mem::take(&mut st.threads[t].frames);
        for f in frames.iter().rev() {
            self.kill_slots(st, &f.slots, k);
        }
    }

    /// The spans of the calls thread `t` stands in, innermost first (a caller frame's
    /// index has moved past its call statement).
    fn call_sites(&self, st: &State, t: Tid) -> Vec<Span> {
        let frames = &st.threads[t].frames;
        let prog = self.setup.prog;
        frames
            .iter()
            .take(frames.len().saturating_sub(1))
            .rev()
            .filter_map(|f| {
                let block = prog.function(f.func).blocks.get(f.block as usize)?;
                let at = (f.index as usize).checked_sub(1)?;
                block.stmts.get(at).map(|s| s.span)
            })
            .collect()
    }

    /// Ends the lifetime of stack slots; pointers to them become dangling.
    fn kill_slots(&mut self, st: &mut State, slots: &[ObjInst], k: &mut StepCtx) {
        if slots.is_empty() {
            return;
        }
        for &s in slots {
            st.mem.kill(s);
            k.touch(super::dpor::Access::write(super::dpor::Loc::Obj(s)));
        }
        if st.mem.get(self.setup.dead_marker).is_none() {
            st.mem
                .create(self.setup.dead_marker, 0, false, false, false);
            st.mem.kill(self.setup.dead_marker);
        }
        st.invalidate_pointers(slots, self.setup.dead_marker);
        for &s in slots {
            st.mem.objects.remove(&s);
        }
    }
}
