//! One thread's step, driven statement by statement, over the symbolic engine's public
//! state types.
//!
//! The guided search needs what the engine's depth-first driver (`Engine::run`) keeps to
//! itself: the state at the end of a step (to rank it against its siblings before going
//! on), every statement a step executes (to match abstract locations), and the successor
//! a branch took. `Engine::exec_one` and the local-statement and terminator code under it
//! are private to `symbolic::run`, so this module carries a copy of that dispatch built
//! on the engine's public helpers (`exec_visible`, `exec_special`, `eval2`, `operand2`,
//! `set_reg`, `check_fork`, `pin_fork`, `new_frame`, `new_input`, ...). The semantics are
//! the engine's (and through it the interpreter's); this file only re-threads them. Once
//! the engine exposes a step function (see the report of issue 6), this copy goes.
//!
//! The engine keeps its path condition (`pcon`, `pins`, `model`, `trace`, `inputs`) in
//! public fields that its own search pushes and pops. The guided search keeps one
//! [`PathCond`] per search state instead and installs it into the engine before running
//! a step from that state; the engine's `feasible` and `enumerate` read only those fields
//! (its private index of conjuncts stays empty, which costs a shortcut, not soundness).

use crate::concrete::{InputSource, ViolationKind};
use crate::symbolic::engine::{End, Engine, InputRec, Side, SideNext, StepCtx, TraceItem};
use crate::symbolic::model::Assignment;
use crate::symbolic::names::{ObjInst, ObjName};
use crate::symbolic::run::{is_visible, ret_var, set_op, Flow};
use crate::symbolic::state::{State, Status, Tid};
use crate::symbolic::summary::WpOp;
use crate::symbolic::term::TermId;
use crate::symbolic::value::{self, SVal, Unsupported, OFFSET_BITS};
use analysis::ir::{
    Callee, FormatPiece, Operand, RegId, Rvalue, Stmt, StmtId, StmtKind, TermKind, Terminator,
};
use rustc_hash::FxHashMap;

/// The path condition of one search state, with everything the engine derives from it.
#[derive(Clone, Default)]
pub struct PathCond {
    pub pcon: Vec<TermId>,
    pub pins: FxHashMap<TermId, u64>,
    /// An assignment satisfying `pcon` (the engine's model shortcut relies on it).
    pub model: Assignment,
    pub trace: Vec<TraceItem>,
    pub inputs: Vec<InputRec>,
}

impl PathCond {
    /// Makes this the engine's current path.
    pub fn install(&self, e: &mut Engine<'_>) {
        e.pcon.clone_from(&self.pcon);
        e.pins.clone_from(&self.pins);
        e.model = self.model.clone();
        e.trace.clone_from(&self.trace);
        e.inputs.clone_from(&self.inputs);
    }

    /// The engine's current path (after a step ran on it).
    pub fn capture(e: &Engine<'_>) -> PathCond {
        PathCond {
            pcon: e.pcon.clone(),
            pins: e.pins.clone(),
            model: e.model.clone(),
            trace: e.trace.clone(),
            inputs: e.inputs.clone(),
        }
    }

    /// Conjoins a fork side's guard (and pin), as the engine's search does on entering it.
    pub fn assume(&mut self, e: &Engine<'_>, guard: TermId, pin: Option<(TermId, u64)>) {
        if !e.pool.is_true(guard) {
            self.pcon.push(guard);
        }
        if let Some((t, v)) = pin {
            self.pins.insert(t, v);
        }
    }
}

/// What one dispatch did.
pub struct Dispatched {
    pub flow: Flow,
    /// The statement or terminator that ran (none when the thread parked, or for a
    /// re-acquire or thread end event).
    pub ran: Option<StmtId>,
}

/// Executes what `cur` does next, as `Engine::exec_one` does.
pub fn exec_one(e: &mut Engine<'_>, st: &mut State, cur: Tid, k: &mut StepCtx) -> Dispatched {
    let mut ops: Vec<WpOp> = Vec::new();
    let ops = &mut ops;
    match st.threads[cur].status {
        Status::AtEvent => {}
        Status::Reacquire { .. } | Status::Ending { .. } => {
            if !may_run_event(e, st, cur, k) {
                return parked();
            }
            k.event_pending = false;
            let flow = e.exec_special(st, cur, k, ops);
            return Dispatched { flow, ran: None };
        }
        _ => return parked(),
    }
    let prog = e.prog;
    let frame = st.top(cur);
    let func = prog.function(frame.func);
    let block = &func.blocks[frame.block as usize];
    match block.stmts.get(frame.index as usize) {
        Some(stmt) if is_visible(&stmt.kind) => {
            if may_run_event(e, st, cur, k) {
                let flow = e.exec_visible(st, cur, stmt, k, ops);
                Dispatched {
                    flow,
                    ran: Some(stmt.id),
                }
            } else {
                parked()
            }
        }
        Some(stmt) => Dispatched {
            flow: exec_local(e, st, cur, stmt, k, ops),
            ran: Some(stmt.id),
        },
        None => Dispatched {
            flow: exec_term(e, st, cur, &block.term, k, ops),
            ran: Some(block.term.id),
        },
    }
}

fn parked() -> Dispatched {
    Dispatched {
        flow: Flow::Park,
        ran: None,
    }
}

/// The statement a thread stands at between steps (its pending visible event), if any.
pub fn pending_stmt(e: &Engine<'_>, st: &State, t: Tid) -> Option<StmtId> {
    let th = &st.threads[t];
    match th.status {
        Status::AtEvent => {
            let f = th.frames.last()?;
            let block = &e.prog.function(f.func).blocks[f.block as usize];
            Some(
                block
                    .stmts
                    .get(f.index as usize)
                    .map_or(block.term.id, |s| s.id),
            )
        }
        Status::Waiting { stmt, .. } | Status::Reacquire { stmt, .. } => Some(stmt),
        Status::Ending { stmt, .. } => Some(stmt),
        _ => None,
    }
}

/// The first statement of the block a thread's top frame is in (where a branch went).
pub fn block_start(e: &Engine<'_>, st: &State, t: Tid) -> Option<StmtId> {
    let f = st.threads[t].frames.last()?;
    let block = &e.prog.function(f.func).blocks[f.block as usize];
    Some(block.stmts.first().map_or(block.term.id, |s| s.id))
}

fn may_run_event(e: &Engine<'_>, st: &State, cur: Tid, k: &StepCtx) -> bool {
    (k.event_pending && k.tid == Some(cur))
        || (st.atomic_owner == Some(cur) && e.is_enabled(st, cur))
}

fn exec_local(
    e: &mut Engine<'_>,
    st: &mut State,
    t: Tid,
    stmt: &Stmt,
    k: &mut StepCtx,
    ops: &mut Vec<WpOp>,
) -> Flow {
    match &stmt.kind {
        StmtKind::Assign {
            dst,
            value: Rvalue::Uninit(ty),
        } => {
            let v = e.uninit_value(st, t, *ty, stmt.id);
            e.set_reg(st, t, *dst, v, v, ops);
        }
        StmtKind::Assign { dst, value } => {
            let (f, w) = match e.eval2(st, t, value) {
                Ok(x) => x,
                Err(u) => return e.unsupported(stmt.span, u),
            };
            if let Some(flow) = e.check_fork(st, t, stmt.span, &f, w.as_ref()) {
                return flow;
            }
            let vw = w.map_or(f.value, |w| w.value);
            e.set_reg(st, t, *dst, f.value, vw, ops);
        }
        StmtKind::Call { dst, callee, args } => {
            return call(e, st, t, stmt, *dst, callee, args, ops)
        }
        StmtKind::Nondet { dst, ty } => {
            let v = SVal::Int(e.new_input(st, t, *ty, stmt.id, InputSource::Nondet));
            e.set_reg(st, t, *dst, v, v, ops);
        }
        StmtKind::Havoc {
            dst: Some(dst),
            ty,
            function,
        } => {
            let src = InputSource::Havoc(function.clone());
            let v = SVal::Int(e.new_input(st, t, *ty, stmt.id, src));
            e.set_reg(st, t, *dst, v, v, ops);
        }
        StmtKind::Havoc { dst: None, .. } => {}
        StmtKind::Assume { cond } => return assume(e, st, t, stmt, cond, k),
        StmtKind::Alloc { dst, size, zeroed } => {
            let (sz, sz_w) = e.operand2(st, t, size);
            let SVal::Int(sz_t) = sz else {
                return e.unsupported(
                    stmt.span,
                    Unsupported("allocation size is a pointer".into()),
                );
            };
            let Some(n) = e.concrete(sz_t) else {
                let wpt = sz_w.term().unwrap_or(sz_t);
                return e.pin_fork(st, sz_t, wpt, "an allocation size");
            };
            let th = &mut st.threads[t];
            let seq = th.allocs.entry(stmt.id).or_insert(0);
            let name = ObjName::Heap {
                thread: th.key,
                site: stmt.id,
                seq: *seq,
            };
            *seq += 1;
            let inst = e.names.object(name);
            st.mem.create(inst, n, *zeroed, false, true);
            let p = SVal::Ptr {
                obj: inst,
                off: e.pool.bv_const(0, OFFSET_BITS),
            };
            e.set_reg(st, t, *dst, p, p, ops);
        }
        StmtKind::Free { ptr } => return free(e, st, t, stmt, ptr, k),
        StmtKind::Print { dst, format, args } => {
            let func = st.top(t).func;
            let used = dst.is_some_and(|d| e.read_regs[func.index()].contains(&d));
            if let Some(flow) = print(e, st, t, stmt, used, format, args) {
                return flow;
            }
        }
        StmtKind::Load { .. } | StmtKind::Store { .. } | StmtKind::Sync { .. } => {
            let u = Unsupported("internal: a visible event run as a local statement".into());
            return e.unsupported(stmt.span, u);
        }
    }
    st.top_mut(t).index += 1;
    Flow::Next
}

/// `__VERIFIER_assume(cond)`: the run ends where it is false.
fn assume(
    e: &mut Engine<'_>,
    st: &mut State,
    t: Tid,
    stmt: &Stmt,
    cond: &Operand,
    k: &StepCtx,
) -> Flow {
    let (c, cw) = e.operand2(st, t, cond);
    let c = value::truth(&mut e.pool, c);
    if e.holds(c) {
        st.top_mut(t).index += 1;
        return Flow::Next;
    }
    let cw = value::truth(&mut e.pool, cw);
    // A failing assume after an effect on other threads in the same step ends the whole
    // run here, where SV-COMP's reading would only block the thread: a search that found
    // nothing cannot claim completeness past it.
    let gap = match (&k.shared_effect, st.threads[t].atomic) {
        (Some(effect), 0) => Some(format!(
            "the assume at {} can fail after {effect} in the same step; an execution in which \
             the thread only blocks there could reach more",
            e.location(stmt.span)
        )),
        _ => None,
    };
    let mut pass = st.clone();
    pass.top_mut(t).index += 1;
    let not_c = e.pool.not(c);
    let not_cw = e.pool.not(cw);
    let mut failed = st.clone();
    failed.threads[t].status = Status::Stopped;
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
            next: SideNext::End(failed, End::AssumeFalse { gap }),
        },
    ])
}

#[allow(clippy::too_many_arguments)]
fn call(
    e: &mut Engine<'_>,
    st: &mut State,
    t: Tid,
    stmt: &Stmt,
    dst: Option<RegId>,
    callee: &Callee,
    args: &[Operand],
    ops: &mut Vec<WpOp>,
) -> Flow {
    let target = match callee {
        Callee::Direct(f) => *f,
        Callee::Indirect(op) => {
            let (v, vw) = e.operand2(st, t, op);
            match e.function_of(st, t, v, vw, stmt.span) {
                Ok(f) => f,
                Err(flow) => return flow,
            }
        }
    };
    let mut vals = Vec::with_capacity(args.len());
    let mut wps = Vec::with_capacity(args.len());
    for a in args {
        let (v, w) = e.operand2(st, t, a);
        vals.push(v);
        wps.push(w);
    }
    st.top_mut(t).index += 1;
    let func = e.prog.function(target);
    if !func.is_defined() {
        if let (Some(dst), Some(ty)) = (dst, func.ret) {
            let src = InputSource::Havoc(func.name.clone());
            let v = SVal::Int(e.new_input(st, t, ty, stmt.id, src));
            e.set_reg(st, t, dst, v, v, ops);
        }
        return Flow::Next;
    }
    if let Some(bound) = e.cfg.unwind {
        let active = st.threads[t]
            .frames
            .iter()
            .filter(|f| f.func == target)
            .count();
        if active as u64 > u64::from(bound) {
            let detail = format!(
                "`{}` recursed more than {bound} times at {}",
                func.name,
                e.location(stmt.span)
            );
            return Flow::End(End::Bound("unwind", detail));
        }
    }
    match e.new_frame(st, t, func, &vals, &wps, dst, ops) {
        Ok(frame) => st.threads[t].frames.push(frame),
        Err(u) => return e.unsupported(stmt.span, u),
    }
    Flow::Next
}

fn free(
    e: &mut Engine<'_>,
    st: &mut State,
    t: Tid,
    stmt: &Stmt,
    ptr: &Operand,
    k: &mut StepCtx,
) -> Flow {
    use crate::symbolic::dpor::{Access, Loc};
    let (p, pw) = e.operand2(st, t, ptr);
    let invalid =
        |e: &Engine<'_>, msg: &str| e.violation(t, stmt.span, ViolationKind::InvalidFree, msg);
    match p {
        SVal::Int(x) => match e.concrete(x) {
            Some(0) => {}
            Some(_) => return invalid(e, "free of a non-pointer value"),
            None => return e.pin_fork(st, x, pw.term().unwrap_or(x), "a freed pointer"),
        },
        SVal::Func(_) => return invalid(e, "free of a function pointer"),
        SVal::Ptr { obj, off } => {
            let Some(o) = st.mem.get(obj) else {
                return invalid(e, "free of an unknown object");
            };
            if !o.heap {
                return invalid(e, "free of memory that is not a heap block");
            }
            if !o.live {
                return e.violation(t, stmt.span, ViolationKind::DoubleFree, "double free");
            }
            match e.concrete(off) {
                Some(0) => {}
                Some(_) => {
                    return invalid(e, "free of a pointer that is not the start of its block")
                }
                None => {
                    return e.pin_fork(
                        st,
                        off,
                        pw.term().unwrap_or(off),
                        "a freed pointer's offset",
                    )
                }
            }
            st.mem.kill(obj);
            k.touch(Access::write(Loc::Obj(obj)));
            k.shared_effect.get_or_insert_with(|| "a free".to_string());
        }
    }
    st.top_mut(t).index += 1;
    Flow::Next
}

/// `printf`: no effect on the state; its result (when some statement reads it), or `%s`
/// of anything but a string literal, is not modelled (as in the engine).
fn print(
    e: &mut Engine<'_>,
    st: &State,
    t: Tid,
    stmt: &Stmt,
    has_dst: bool,
    format: &[FormatPiece],
    args: &[Operand],
) -> Option<Flow> {
    if has_dst {
        return Some(e.unsupported(stmt.span, Unsupported("the result of printf".into())));
    }
    let mut next = 0;
    for piece in format {
        if let FormatPiece::Conv { conv, .. } = piece {
            let Some(arg) = args.get(next) else { break };
            next += 1;
            if *conv == 's' {
                let (v, _) = e.operand2(st, t, arg);
                let literal = match v {
                    SVal::Ptr { obj, .. } => st.mem.get(obj).is_some_and(|o| o.read_only),
                    _ => false,
                };
                if !literal {
                    let u =
                        Unsupported("printf `%s` of something other than a string literal".into());
                    return Some(e.unsupported(stmt.span, u));
                }
            }
        }
    }
    None
}

fn exec_term(
    e: &mut Engine<'_>,
    st: &mut State,
    t: Tid,
    term: &Terminator,
    k: &mut StepCtx,
    ops: &mut Vec<WpOp>,
) -> Flow {
    match &term.kind {
        TermKind::Goto(b) => jump(e, st, t, b.index() as u32, term),
        TermKind::Branch {
            cond,
            then_bb,
            else_bb,
        } => {
            let (c, cw) = e.operand2(st, t, cond);
            let c = value::truth(&mut e.pool, c);
            if let Some(b) = e.pool.as_bool(c) {
                let target = if b { then_bb } else { else_bb };
                return jump(e, st, t, target.index() as u32, term);
            }
            let cw = value::truth(&mut e.pool, cw);
            let not_c = e.pool.not(c);
            let not_cw = e.pool.not(cw);
            let mut sides = Vec::new();
            for (guard, guard_wp, target) in [(c, cw, then_bb), (not_c, not_cw, else_bb)] {
                let mut s = st.clone();
                let next = match jump(e, &mut s, t, target.index() as u32, term) {
                    Flow::End(end) => SideNext::End(s, end),
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
        TermKind::Return(value) => return_from(e, st, t, value.as_ref(), term, k, ops),
        TermKind::ThreadExit(value) => {
            let (v, vw) = e.operand2(st, t, value);
            pop_all_frames(e, st, t, k);
            let key = st.threads[t].key;
            if e.wp_on {
                ops.extend(set_op(&e.pool, ret_var(key), vw));
            }
            st.threads[t].status = Status::Ending {
                value: v,
                exit_program: false,
                stmt: term.id,
            };
            Flow::Park
        }
        TermKind::Error(failure) => Flow::End(End::Violation {
            kind: ViolationKind::of_failure(failure),
            message: failure.to_string(),
            span: term.span,
            tid: t,
        }),
        TermKind::Abort => Flow::End(End::Aborted),
        TermKind::Exit(_) => Flow::End(End::Completed),
        TermKind::Unreachable => e.unsupported(
            term.span,
            Unsupported("control reached a point the front end marked unreachable".into()),
        ),
    }
}

/// Moves to `block`, counting loop iterations against the unwinding bound.
fn jump(e: &mut Engine<'_>, st: &mut State, t: Tid, block: u32, term: &Terminator) -> Flow {
    let frame = st.top_mut(t);
    let from = frame.block;
    let func = frame.func;
    frame.block = block;
    frame.index = 0;
    if e.back_edges.contains(&(func, from, block)) {
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
        if let Some(bound) = e.cfg.unwind {
            if count > bound {
                let detail = format!(
                    "a loop at {} ran more than {bound} iterations",
                    e.location(term.span)
                );
                return Flow::End(End::Bound("unwind", detail));
            }
        }
    } else if frame.loops.iter().any(|(h, _)| *h == block) {
        frame.loops.retain(|(h, _)| *h != block);
    }
    Flow::Next
}

fn return_from(
    e: &mut Engine<'_>,
    st: &mut State,
    t: Tid,
    value: Option<&Operand>,
    term: &Terminator,
    k: &mut StepCtx,
    ops: &mut Vec<WpOp>,
) -> Flow {
    let value = value.map(|v| e.operand2(st, t, v));
    let ret_ty = e.prog.function(st.top(t).func).ret;
    let Some(frame) = st.threads[t].frames.pop() else {
        return Flow::End(End::Unsupported(
            "internal: a return without a frame".into(),
        ));
    };
    kill_slots(e, st, &frame.slots, k);
    let key = st.threads[t].key;
    if st.threads[t].frames.is_empty() {
        let bits = ret_ty.map_or(e.dm.pointer_bits(), |ty| ty.bits(e.dm));
        let zero = SVal::Int(e.pool.bv_const(0, bits));
        let (v, vw) = value.unwrap_or((zero, zero));
        if e.wp_on {
            ops.extend(set_op(&e.pool, ret_var(key), vw));
        }
        st.threads[t].status = Status::Ending {
            value: v,
            exit_program: t == 0,
            stmt: term.id,
        };
        return Flow::Park;
    }
    if let Some(dst) = frame.ret_dst {
        let (v, vw) = match value {
            Some(x) => x,
            None => {
                let ty = e.prog.function(st.top(t).func).reg(dst).ty;
                let v = e.uninit_value(st, t, ty, term.id);
                (v, v)
            }
        };
        e.set_reg(st, t, dst, v, vw, ops);
    }
    Flow::Next
}

fn pop_all_frames(e: &mut Engine<'_>, st: &mut State, t: Tid, k: &mut StepCtx) {
    let frames = std::mem::take(&mut st.threads[t].frames);
    for f in frames.iter().rev() {
        kill_slots(e, st, &f.slots, k);
    }
}

/// Ends the lifetime of stack slots; pointers to them become dangling.
fn kill_slots(e: &mut Engine<'_>, st: &mut State, slots: &[ObjInst], k: &mut StepCtx) {
    use crate::symbolic::dpor::{Access, Loc};
    if slots.is_empty() {
        return;
    }
    for &s in slots {
        st.mem.kill(s);
        k.touch(Access::write(Loc::Obj(s)));
    }
    if st.mem.get(e.dead_marker).is_none() {
        st.mem.create(e.dead_marker, 0, false, false, false);
        st.mem.kill(e.dead_marker);
    }
    st.invalidate_pointers(slots, e.dead_marker);
    for &s in slots {
        st.mem.objects.remove(&s);
    }
}
