//! A small builder of IR programs for the interpreter's unit tests.

use analysis::ir::*;

pub struct ProgramBuilder {
    objects: Vec<Object>,
    functions: Vec<Function>,
    pub dm: DataModel,
}

/// Builds one function body; statements take the current `line`, which then increments.
pub struct FnBuilder {
    pub regs: Vec<RegInfo>,
    blocks: Vec<(Vec<Stmt>, Option<Terminator>)>,
    current: usize,
    pub line: u32,
}

pub fn span(line: u32) -> Span {
    Span {
        file: FileId(0),
        line,
        col: 1,
    }
}

pub fn int(v: i128) -> Operand {
    Operand::int(v, Scalar::I32)
}

pub fn r(reg: RegId) -> Operand {
    Operand::Reg(reg)
}

pub fn addr(obj: ObjId) -> Operand {
    Operand::Addr { obj, offset: 0 }
}

impl ProgramBuilder {
    pub fn new() -> Self {
        ProgramBuilder {
            objects: Vec::new(),
            functions: Vec::new(),
            dm: DataModel::Ilp32,
        }
    }

    fn object(&mut self, name: &str, kind: ObjectKind, size: u64) -> ObjId {
        let id = ObjId(self.objects.len() as u32);
        self.objects.push(Object {
            id,
            name: name.to_string(),
            kind,
            c_type: "t".to_string(),
            size,
            layout: Vec::new(),
            init: Vec::new(),
            span: span(1),
        });
        id
    }

    pub fn global(&mut self, name: &str, size: u64) -> ObjId {
        self.object(name, ObjectKind::Global, size)
    }

    pub fn thread_local(&mut self, name: &str, size: u64) -> ObjId {
        self.object(name, ObjectKind::ThreadLocal, size)
    }

    /// A string literal object holding `text` and its NUL.
    pub fn literal(&mut self, text: &str) -> ObjId {
        let id = self.object(
            &format!("{text:?}"),
            ObjectKind::StringLiteral,
            text.len() as u64 + 1,
        );
        for (i, b) in text.bytes().enumerate() {
            self.init(
                id,
                i as u64,
                Scalar::I8,
                Operand::int(i128::from(b), Scalar::I8),
            );
        }
        id
    }

    pub fn init(&mut self, obj: ObjId, offset: u64, ty: Scalar, value: Operand) {
        self.objects[obj.index()]
            .init
            .push(InitCell { offset, ty, value });
    }

    /// A stack slot of `func` of `size` bytes.
    pub fn slot(&mut self, func: FuncId, name: &str, size: u64) -> ObjId {
        let id = self.object(name, ObjectKind::StackSlot { func }, size);
        self.functions[func.index()].slots.push(id);
        id
    }

    /// Declares a function (no body yet).
    pub fn declare(&mut self, name: &str, ret: Option<Scalar>) -> FuncId {
        let id = FuncId(self.functions.len() as u32);
        self.functions.push(Function {
            id,
            name: name.to_string(),
            params: Vec::new(),
            ret,
            regs: Vec::new(),
            blocks: Vec::new(),
            slots: Vec::new(),
            variadic: false,
            atomic: false,
            span: span(1),
        });
        id
    }

    /// Defines `func` with parameters of `params` types (registers 0..n).
    pub fn define(&mut self, func: FuncId, params: &[Scalar], body: impl FnOnce(&mut FnBuilder)) {
        let mut fb = FnBuilder {
            regs: Vec::new(),
            blocks: vec![(Vec::new(), None)],
            current: 0,
            line: 10,
        };
        let params: Vec<RegId> = params.iter().map(|&ty| fb.reg(ty)).collect();
        body(&mut fb);
        let f = &mut self.functions[func.index()];
        f.params = params;
        f.regs = fb.regs;
        f.blocks = fb
            .blocks
            .into_iter()
            .enumerate()
            .map(|(i, (stmts, term))| Block {
                id: BlockId(i as u32),
                stmts,
                term: term.unwrap_or(Terminator {
                    id: StmtId(0),
                    span: span(999),
                    kind: TermKind::Unreachable,
                }),
            })
            .collect();
    }

    pub fn finish(self, main: FuncId) -> Program {
        let mut functions = self.functions;
        let mut stmt_locs = Vec::new();
        for f in functions.iter_mut() {
            for b in f.blocks.iter_mut() {
                for (i, s) in b.stmts.iter_mut().enumerate() {
                    s.id = StmtId(stmt_locs.len() as u32);
                    stmt_locs.push(StmtLoc {
                        func: f.id,
                        block: b.id,
                        index: Some(i as u32),
                    });
                }
                b.term.id = StmtId(stmt_locs.len() as u32);
                stmt_locs.push(StmtLoc {
                    func: f.id,
                    block: b.id,
                    index: None,
                });
            }
        }
        Program {
            files: vec!["t.c".to_string()],
            data_model: self.dm,
            objects: self.objects,
            functions,
            main,
            stmt_locs,
            warnings: Vec::new(),
        }
    }
}

impl FnBuilder {
    pub fn reg(&mut self, ty: Scalar) -> RegId {
        self.regs.push(RegInfo { name: None, ty });
        RegId(self.regs.len() as u32 - 1)
    }

    pub fn param(&self, i: u32) -> Operand {
        Operand::Reg(RegId(i))
    }

    /// A new, empty block (appending continues in the current one).
    pub fn block(&mut self) -> BlockId {
        self.blocks.push((Vec::new(), None));
        BlockId(self.blocks.len() as u32 - 1)
    }

    pub fn at(&mut self, b: BlockId) {
        self.current = b.index();
    }

    fn next_span(&mut self) -> Span {
        self.line += 1;
        span(self.line - 1)
    }

    pub fn stmt(&mut self, kind: StmtKind) {
        let span = self.next_span();
        self.blocks[self.current].0.push(Stmt {
            id: StmtId(0),
            span,
            kind,
        });
    }

    pub fn term(&mut self, kind: TermKind) {
        let span = self.next_span();
        self.blocks[self.current].1 = Some(Terminator {
            id: StmtId(0),
            span,
            kind,
        });
    }

    // ----- shorthands -----

    pub fn assign(&mut self, ty: Scalar, value: Rvalue) -> RegId {
        let dst = self.reg(ty);
        self.stmt(StmtKind::Assign { dst, value });
        dst
    }

    pub fn binary(&mut self, op: BinOp, ty: Scalar, lhs: Operand, rhs: Operand) -> RegId {
        let result_ty = if op.is_comparison() { Scalar::I32 } else { ty };
        self.assign(result_ty, Rvalue::Binary { op, ty, lhs, rhs })
    }

    pub fn load(&mut self, ty: Scalar, addr: Operand) -> RegId {
        let dst = self.reg(ty);
        self.stmt(StmtKind::Load { dst, addr, ty });
        dst
    }

    pub fn store(&mut self, ty: Scalar, addr: Operand, value: Operand) {
        self.stmt(StmtKind::Store { addr, value, ty });
    }

    pub fn sync(&mut self, op: SyncOp) {
        self.stmt(StmtKind::Sync { dst: None, op });
    }

    pub fn lock(&mut self, m: ObjId) {
        self.sync(SyncOp::MutexLock { mutex: addr(m) });
    }

    pub fn unlock(&mut self, m: ObjId) {
        self.sync(SyncOp::MutexUnlock { mutex: addr(m) });
    }

    pub fn create(&mut self, handle: ObjId, func: FuncId, arg: Operand) {
        self.sync(SyncOp::ThreadCreate {
            handle: addr(handle),
            func: Operand::Func(func),
            arg,
        });
    }

    /// `pthread_join(*handle, result)`.
    pub fn join(&mut self, handle: ObjId, result: Operand) {
        let id = self.load(Scalar::U32, addr(handle));
        self.sync(SyncOp::ThreadJoin {
            thread: r(id),
            result,
        });
    }

    pub fn nondet(&mut self, ty: Scalar) -> RegId {
        let dst = self.reg(ty);
        self.stmt(StmtKind::Nondet { dst, ty });
        dst
    }

    /// `assert(cond)` at the current line: branches to an error block.
    pub fn assert(&mut self, cond: Operand, text: &str) {
        let ok = self.block();
        let fail = self.block();
        self.term(TermKind::Branch {
            cond,
            then_bb: ok,
            else_bb: fail,
        });
        let line = self.line;
        self.at(fail);
        self.line = line - 1;
        self.term(TermKind::Error(Failure::Assertion {
            expr: text.to_string(),
        }));
        self.at(ok);
    }

    pub fn print(&mut self, format: Vec<FormatPiece>, args: Vec<Operand>) {
        self.stmt(StmtKind::Print {
            dst: None,
            format,
            args,
        });
    }

    pub fn ret(&mut self, value: Option<Operand>) {
        self.term(TermKind::Return(value));
    }
}
