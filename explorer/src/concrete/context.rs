//! Running from a program context ([`crate::context`]): the entry threads with their
//! parameters, globals of the initial state, and the reads of unwritten initial cells,
//! in the order the symbolic engine (`symbolic::context`) reads them.

use super::machine::{Addr, Flow, Machine, StaticObj, Stop, ThreadState};
use super::memory::Origin;
use super::outcome::{InputSource, RunOutcome, ThreadId};
use super::value::Value;
use crate::context::{
    candidates, choice, waiter_order, AbsObj, Candidate, CellOwner, Context, HeldLock, RegStart,
    StartPoint, Target, WaitStart,
};
use analysis::ir::{ObjectKind, Scalar};
use std::collections::BTreeMap;

impl<'p> Machine<'p> {
    /// Globals become objects of the initial state; each entry thread is spawned with
    /// its parameters read from the initial state, then every thread runs to its first
    /// visible event, in thread order.
    pub(super) fn start_context(&mut self, ctx: &Context) -> Flow {
        let prog = self.prog;
        for o in &prog.objects {
            if let StaticObj::Global(r) = self.statics[o.id.index()] {
                if o.kind == ObjectKind::Global && !ctx.is_fixed(o.id) {
                    self.mem.make_initial(r, CellOwner::Static(o.id));
                }
            }
        }
        for c in &ctx.known_cells {
            if let StaticObj::Global(r) = self.statics[c.obj.index()] {
                let ty = Scalar::Int {
                    bits: c.bytes * 8,
                    signed: false,
                };
                self.mem.store_checked(r, c.offset, ty, Value::Int(c.bits));
            }
        }
        let mut threads = Vec::new();
        for (i, &f) in ctx.threads.iter().enumerate() {
            let func = prog.function(f);
            let placeholders = vec![Value::ZERO; func.params.len()];
            let t = self.spawn(func, &placeholders)?;
            if let Some(start) = ctx.start(i) {
                self.place_at_start(t, start);
            }
            threads.push(t);
        }
        for (i, &t) in threads.iter().enumerate() {
            self.cur_thread = t;
            match ctx.start(i) {
                Some(start) => self.initial_regs(t, start)?,
                None => self.initial_params(t, ctx)?,
            }
        }
        let mut maybe = Vec::new();
        for (i, _) in threads.iter().enumerate() {
            if let Some(start) = ctx.start(i) {
                maybe.push((i, self.maybe_held_choice(start)?));
            }
        }
        let mut waiting = Vec::new();
        for (i, w) in ctx.waiters() {
            let chosen = self.choice_input()?;
            let stamp = self.choice_input()?;
            if chosen == choice::YES {
                waiting.push((i, w, stamp));
            } else if chosen != choice::NO {
                return Err(self.unsupported(format!(
                    "the initial state's wait choice {chosen} is neither 0 nor 1"
                )));
            }
        }
        let mut queues: BTreeMap<Addr, Vec<(usize, u64)>> = BTreeMap::new();
        for &(i, w, stamp) in &waiting {
            let cond = self.start_wait(threads[i], w)?;
            queues.entry(cond).or_default().push((i, stamp));
        }
        for (i, chosen) in maybe {
            let start = ctx
                .start(i)
                .expect("a thread with maybe-held choices has a start");
            self.take_held_locks(threads[i], start, chosen)?;
        }
        for (cond, waiters) in queues {
            let queue = waiter_order(waiters).into_iter().map(|i| threads[i]);
            self.conds.insert(cond, queue.collect());
        }
        for t in threads {
            if !matches!(self.threads[t.index()].state, ThreadState::Waiting { .. }) {
                self.run_local(t)?;
            }
        }
        Ok(())
    }

    /// The next input of the initial state as a choice (a `u32`).
    fn choice_input(&mut self) -> Flow<u64> {
        let Value::Int(v) = self.input(Scalar::U32, InputSource::Initial)? else {
            unreachable!("inputs are integers")
        };
        Ok(v)
    }

    /// The maybe-held mutexes of a start that its inputs choose to hold.
    fn maybe_held_choice(&mut self, start: &StartPoint) -> Flow<Vec<HeldLock>> {
        let mut chosen = Vec::new();
        for &lock in &start.maybe_held {
            match self.choice_input()? {
                choice::NO => {}
                choice::YES => chosen.push(lock),
                other => {
                    return Err(self.unsupported(format!(
                        "the initial state's lock choice {other} is neither 0 nor 1"
                    )))
                }
            }
        }
        Ok(chosen)
    }

    /// Thread `t` parked inside the wait of its start line (§4.2): after the wait, its
    /// result 0, its mutex released. The condition's address, to queue it on.
    fn start_wait(&mut self, t: ThreadId, w: &WaitStart) -> Flow<Addr> {
        let (Some(cond), Some(mutex)) = (
            self.held_lock_addr(t, w.cond)?,
            self.held_lock_addr(t, w.mutex)?,
        ) else {
            // A wait on a non-pointer faults: no thread waits there.
            let span = self.prog.stmt(w.stmt).span();
            return Err(Stop::end(RunOutcome::AssumeViolated { thread: t, span }));
        };
        let frame = self.top_mut(t);
        frame.block = w.block as usize;
        frame.index = w.index as usize + 1;
        if let Some(dst) = w.dst {
            self.set_reg(t, dst, Value::Int(0));
        }
        let span = self.prog.stmt(w.stmt).span();
        self.threads[t.index()].state = ThreadState::Waiting {
            cond,
            mutex,
            stmt: w.stmt,
            span,
        };
        Ok(cond)
    }

    /// The mutex thread `t` waits to re-acquire, when it starts as a waiter.
    fn wait_mutex(&self, t: ThreadId) -> Option<Addr> {
        match self.threads[t.index()].state {
            ThreadState::Waiting { mutex, .. } => Some(mutex),
            _ => None,
        }
    }

    /// Thread `t`'s parameters from the initial state, in order.
    fn initial_params(&mut self, t: ThreadId, ctx: &Context) -> Flow {
        let func = self.top_mut(t).func;
        let entry = &func.blocks[func.entry().index()];
        self.cur_stmt = entry.stmts.first().map_or(entry.term.id, |s| s.id);
        self.cur_span = func.span;
        for (i, &reg) in func.params.iter().enumerate() {
            let ty = func.reg(reg).ty;
            let v = if ty == Scalar::Ptr {
                let null = ctx.param_may_be_null(func.id, i as u32);
                self.initial_pointer(&ctx.param_targets(func.id, i as u32), null)?
            } else {
                self.input(ty, InputSource::Initial)?
            };
            self.set_reg(t, reg, v);
        }
        Ok(())
    }

    /// Moves thread `t`'s frame to its start point; its stack slots become objects of
    /// the initial state, materialized (the symbolic engine's `place_at_start`).
    fn place_at_start(&mut self, t: ThreadId, start: &StartPoint) {
        let frame = self.top_mut(t);
        frame.block = start.block as usize;
        frame.index = start.index as usize;
        let func = frame.func;
        let slots = frame.slots.clone();
        for (&obj, r) in func.slots.iter().zip(slots) {
            self.mem
                .make_initial(r, CellOwner::Instance(AbsObj::Slot(obj)));
            self.materialized
                .entry(AbsObj::Slot(obj))
                .or_default()
                .push(r);
        }
    }

    /// The live registers at thread `t`'s start point, in register order.
    fn initial_regs(&mut self, t: ThreadId, start: &StartPoint) -> Flow {
        self.cur_stmt = start.stmt;
        self.cur_span = self.prog.stmt(start.stmt).span();
        for (reg, init) in &start.regs {
            let v = match init {
                RegStart::Known(c) => Value::Int(*c),
                // Context thread `i` is thread `i` of the run (spawned first, in order).
                RegStart::SameAs { thread } => self.top(ThreadId(*thread)).regs[reg.index()],
                RegStart::Input { bits, signed } => {
                    self.input(RegStart::input_type(*bits, *signed), InputSource::Initial)?
                }
                RegStart::Pointer(targets) => {
                    self.initial_pointer(targets, !start.non_null.contains(reg))?
                }
            };
            self.set_reg(t, *reg, v);
        }
        Ok(())
    }

    /// Thread `t` takes the mutexes of its start: those held on every path (a waiter's:
    /// its wait's) and the maybe-held ones `chosen`. An initial state where another
    /// thread holds one already, where a waiter holds the mutex it waits for, or where
    /// the address is no object, is infeasible.
    fn take_held_locks(&mut self, t: ThreadId, start: &StartPoint, chosen: Vec<HeldLock>) -> Flow {
        let waits_for = self.wait_mutex(t);
        let must = match (&start.waiter, waits_for) {
            (Some(w), Some(_)) => &w.held,
            _ => &start.held,
        };
        let held: Vec<HeldLock> = must.iter().copied().chain(chosen).collect();
        for lock in held {
            let taken = match self.held_lock_addr(t, lock)? {
                Some(a) => waits_for == Some(a) || self.mutexes.insert(a, t).is_some(),
                None => true,
            };
            if taken {
                let span = self.prog.stmt(start.stmt).span();
                return Err(Stop::end(RunOutcome::AssumeViolated { thread: t, span }));
            }
        }
        Ok(())
    }

    /// The address a held lock (or a waited-on condition) names in thread `t`'s frame;
    /// `None` when the operand is no pointer.
    fn held_lock_addr(&mut self, t: ThreadId, lock: HeldLock) -> Flow<Option<Addr>> {
        Ok(match lock {
            HeldLock::Reg(r) => match self.top_mut(t).regs[r.index()] {
                Value::Ptr { obj, offset } => u64::try_from(offset).ok().map(|o| (obj, o)),
                _ => None,
            },
            HeldLock::Addr { obj, offset } => {
                let frame = self.top_mut(t);
                match frame.func.slots.iter().position(|&s| s == obj) {
                    Some(i) => Some((frame.slots[i], offset)),
                    None => match self.statics[obj.index()] {
                        StaticObj::Global(r) => Some((r, offset)),
                        _ => {
                            let name = &self.prog.object(obj).name;
                            return Err(self.unsupported(format!(
                                "a held mutex in `{name}`, which has no single instance"
                            )));
                        }
                    },
                }
            }
        })
    }

    /// The initial value of the unwritten cell at `offset` of an object of `owner`.
    pub(super) fn initial_value(
        &mut self,
        owner: CellOwner,
        offset: u64,
        ty: Scalar,
    ) -> Flow<Value> {
        if ty != Scalar::Ptr {
            return self.input(ty, InputSource::Initial);
        }
        let targets = self
            .cfg
            .context
            .as_ref()
            .map(|c| c.cell_targets(owner, offset))
            .unwrap_or_default();
        self.initial_pointer(&targets, true)
    }

    /// A pointer of the initial state: the candidate the next input names.
    fn initial_pointer(&mut self, targets: &[Target], may_be_null: bool) -> Flow<Value> {
        let Value::Int(index) = self.input(Scalar::U32, InputSource::Initial)? else {
            unreachable!("inputs are integers")
        };
        let cands = candidates(targets, may_be_null, |o| {
            self.materialized.get(&o).map_or(0, |v| v.len() as u32)
        });
        let Some(c) = cands.get(index as usize) else {
            return Err(self.unsupported(format!(
                "the initial state's pointer choice {index} is not one of its {} candidates",
                cands.len()
            )));
        };
        Ok(match *c {
            Candidate::Null => Value::ZERO,
            Candidate::Func(f) => Value::Func(f),
            Candidate::Static { obj, offset } => match self.statics[obj.index()] {
                StaticObj::Global(r) => Value::Ptr {
                    obj: r,
                    offset: offset as i64,
                },
                _ => {
                    let name = &self.prog.object(obj).name;
                    return Err(self.unsupported(format!(
                        "a pointer of the initial state may point to `{name}`, which has no single instance"
                    )));
                }
            },
            Candidate::Existing { obj, seq, offset } => Value::Ptr {
                obj: self.materialized[&obj][seq as usize],
                offset: offset as i64,
            },
            Candidate::Fresh { obj, size, offset } => {
                let r = match obj {
                    AbsObj::Heap(site) => self.mem.alloc(site, size, false),
                    AbsObj::Slot(id) => self.mem.new_static(Origin::Slot(id), size, false),
                };
                self.mem.make_initial(r, CellOwner::Instance(obj));
                self.materialized.entry(obj).or_default().push(r);
                Value::Ptr {
                    obj: r,
                    offset: offset as i64,
                }
            }
            Candidate::Unmodelled(ref why) => return Err(self.unsupported(why.clone())),
        })
    }
}
