//! The initial state, new threads and new frames: static objects with their
//! initializers, `main`'s arguments, thread-local objects, registers and stack slots.

use super::engine::{Engine, StaticObj};
use super::names::{ObjInst, ObjName, ThreadKey, ThreadName};
use super::state::{Frame, State, Status, Thread, Tid};
use super::summary::WpOp;
use super::term::TermId;
use super::twins::{reg_var, set_op, Ops};
use super::value::{Reader, SVal, Twin, Unsupported, OFFSET_BITS};
use super::VerifyError;
use analysis::ir::{Function, Operand, RegId};
use std::collections::BTreeMap;
impl<'p> Engine<'p> {
    /// The state before `main` runs: static objects, thread 0 at `main`'s entry.
    pub fn initial_state(&mut self) -> Result<State, VerifyError> {
        let words: Vec<Vec<TermId>> = std::iter::once("main")
            .chain(self.setup.cfg.args.iter().map(String::as_str))
            .map(|w| {
                w.bytes()
                    .map(|b| self.pool.bv_const(u64::from(b), 8))
                    .collect()
            })
            .collect();
        self.initial_state_with(&words)
    }

    /// The state before `main` runs with `argv[0..]` spelled by `words` (one byte term
    /// per character, the NUL added).
    pub fn initial_state_with(&mut self, words: &[Vec<TermId>]) -> Result<State, VerifyError> {
        let mut st = State::new();
        let prog = self.setup.prog;
        for o in &prog.objects {
            if let StaticObj::Global(inst) = self.setup.statics[o.id.index()] {
                let literal = o.kind == analysis::ir::ObjectKind::StringLiteral;
                st.mem.create(inst, o.size, true, literal, false);
            }
        }
        for o in &prog.objects {
            if let StaticObj::Global(inst) = self.setup.statics[o.id.index()] {
                self.write_initializer(&mut st, o.id, inst, None)?;
            }
        }
        let main = prog.function(prog.main);
        let args: Vec<Twin<SVal>> = self
            .main_arguments(&mut st, main, words)
            .into_iter()
            .map(Twin::same)
            .collect();
        let key = self.names.thread(ThreadName::Main);
        self.spawn(&mut st, key, main, &args, &mut Vec::new())
            .map_err(|u| VerifyError::Program(u.0))?;
        Ok(st)
    }

    pub(super) fn write_initializer(
        &mut self,
        st: &mut State,
        id: analysis::ir::ObjId,
        inst: ObjInst,
        thread: Option<Tid>,
    ) -> Result<(), VerifyError> {
        let o = self.setup.prog.object(id);
        for cell in &o.init {
            let value = match &cell.value {
                Operand::Addr { obj, .. } => match (self.setup.statics[obj.index()], thread) {
                    (StaticObj::Global(_), _) | (StaticObj::ThreadLocal(_), Some(_)) => {
                        let mut r = Ops { st, t: thread.unwrap_or(0), statics: &self.setup.statics, dm: self.setup.dm, wp: false };
                        r.read(&mut self.pool, &cell.value)
                    }
                    _ => {
                        return Err(VerifyError::Program(format!(
                            "{}: unsupported: the initializer of `{}` takes the address of an object without a single static instance",
                            self.setup.prog.location(o.span),
                            o.name
                        )))
                    }
                },
                Operand::Reg(_) => {
                    return Err(VerifyError::Program(format!(
                        "malformed IR: the initializer of `{}` reads a register",
                        o.name
                    )))
                }
                other => {
                    let mut r = Ops { st, t: 0, statics: &self.setup.statics, dm: self.setup.dm, wp: false };
                    r.read(&mut self.pool, other)
                }
            };
            let value = value.fit(&mut self.pool, cell.ty, self.setup.dm);
            let bytes = cell.ty.bytes(self.setup.dm);
            if cell.offset + bytes > o.size {
                return Err(VerifyError::Program(format!(
                    "malformed IR: initializer cell at offset {} of `{}` is outside it",
                    cell.offset, o.name
                )));
            }
            st.mem.store(inst, cell.offset, bytes as u8, value);
        }
        Ok(())
    }

    /// `argc`, `argv = {"main", ARGS..., NULL}` for a `main` that declares them
    /// (each string its own object, NUL-terminated).
    fn main_arguments(
        &mut self,
        st: &mut State,
        main: &Function,
        words: &[Vec<TermId>],
    ) -> Vec<SVal> {
        if main.params.is_empty() {
            return Vec::new();
        }
        let ptr_bytes = self.setup.dm.pointer_bytes();
        let argv = self.names.object(ObjName::Argv(0));
        st.mem.create(
            argv,
            (words.len() as u64 + 1) * ptr_bytes,
            true,
            false,
            false,
        );
        let zero = self.pool.bv_const(0, OFFSET_BITS);
        for (n, word) in words.iter().enumerate() {
            let text = self.names.object(ObjName::Argv(n as u32 + 1));
            st.mem
                .create(text, word.len() as u64 + 1, true, false, false);
            for (i, &b) in word.iter().enumerate() {
                st.mem.store(text, i as u64, 1, SVal::Int(b));
            }
            st.mem.store(
                argv,
                n as u64 * ptr_bytes,
                ptr_bytes as u8,
                SVal::Ptr {
                    obj: text,
                    off: zero,
                },
            );
        }
        let argc = self.pool.bv_const(words.len() as u64, 32);
        let mut args = vec![
            SVal::Int(argc),
            SVal::Ptr {
                obj: argv,
                off: zero,
            },
        ];
        let ptr_zero = self.pool.bv_const(0, self.setup.dm.pointer_bits());
        args.resize(main.params.len(), SVal::Int(ptr_zero));
        args
    }

    /// Adds a thread at the entry of `func`; returns its id. `ops` receives the
    /// transformer of its frame's registers.
    pub fn spawn(
        &mut self,
        st: &mut State,
        key: ThreadKey,
        func: &Function,
        args: &[Twin<SVal>],
        ops: &mut Vec<WpOp>,
    ) -> Result<Tid, Unsupported> {
        let t = st.threads.len();
        let mut tls = Vec::new();
        for &obj in &self.setup.tls_objects {
            let inst = self.names.object(ObjName::ThreadLocal { thread: key, obj });
            st.mem
                .create(inst, self.setup.prog.object(obj).size, true, false, false);
            tls.push(inst);
        }
        st.threads.push(Thread {
            key,
            frames: Vec::new(),
            status: Status::AtEvent,
            atomic: 0,
            inputs: 0,
            created: 0,
            allocs: BTreeMap::new(),
            tls: tls.clone(),
        });
        for (i, &obj) in self.setup.tls_objects.clone().iter().enumerate() {
            self.write_initializer(st, obj, tls[i], Some(t))
                .map_err(|e| Unsupported(e.to_string()))?;
        }
        let frame = self.new_frame(st, t, func, args, None, ops)?;
        st.threads[t].frames.push(frame);
        Ok(t)
    }

    /// A fresh activation of `func` for thread `t` (pushed by the caller).
    pub fn new_frame(
        &mut self,
        st: &mut State,
        t: Tid,
        func: &Function,
        args: &[Twin<SVal>],
        ret_dst: Option<RegId>,
        ops: &mut Vec<WpOp>,
    ) -> Result<Frame, Unsupported> {
        if args.len() < func.params.len() {
            return Err(Unsupported(format!(
                "call of `{}` with {} argument(s); it has {} parameter(s)",
                func.name,
                args.len(),
                func.params.len()
            )));
        }
        let key = st.threads[t].key;
        let depth = st.threads[t].frames.len() as u32;
        let mut regs = Vec::with_capacity(func.regs.len());
        for (i, info) in func.regs.iter().enumerate() {
            let zero = SVal::Int(self.pool.bv_const(0, info.ty.bits(self.setup.dm)));
            regs.push(zero);
            if self.setup.wp_on {
                ops.extend(set_op(
                    &self.pool,
                    reg_var(key, depth, RegId(i as u32)),
                    zero,
                ));
            }
        }
        for (i, &param) in func.params.iter().enumerate() {
            let ty = func.reg(param).ty;
            regs[param.index()] = args[i].value.fit(&mut self.pool, ty, self.setup.dm);
            if self.setup.wp_on {
                let w = args[i].wp.fit(&mut self.pool, ty, self.setup.dm);
                ops.extend(set_op(&self.pool, reg_var(key, depth, param), w));
            }
        }
        let mut slots = Vec::with_capacity(func.slots.len());
        for &s in &func.slots {
            let inst = self.names.object(ObjName::Slot {
                thread: key,
                depth,
                obj: s,
            });
            st.mem
                .create(inst, self.setup.prog.object(s).size, false, false, false);
            slots.push(inst);
        }
        Ok(Frame {
            func: func.id,
            block: 0,
            index: 0,
            regs,
            slots,
            ret_dst,
            loops: Vec::new(),
        })
    }
}
