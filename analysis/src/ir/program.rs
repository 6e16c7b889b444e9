//! Functions, memory objects and the whole program, with their lookups.

use super::*;
use serde::Serialize;

/// A register: a scalar local whose address is never taken, or a temporary.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RegInfo {
    /// The C name for a named local or parameter, `None` for a temporary.
    pub name: Option<String>,
    pub ty: Scalar,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Function {
    pub id: FuncId,
    pub name: String,
    /// Parameter registers, in order. A parameter whose address is taken is copied to a
    /// stack slot by the first statements of the body.
    pub params: Vec<RegId>,
    /// The return type, `None` for `void`.
    pub ret: Option<Scalar>,
    pub regs: Vec<RegInfo>,
    /// Blocks; the entry is `blocks[0]`. Empty for an external function (no body).
    pub blocks: Vec<Block>,
    /// Stack slots owned by this function (one instance per activation).
    pub slots: Vec<ObjId>,
    pub variadic: bool,
    /// Named `__VERIFIER_atomic_*`: the body runs as one atomic section.
    pub atomic: bool,
    pub span: Span,
}

impl Function {
    pub fn is_defined(&self) -> bool {
        !self.blocks.is_empty()
    }

    pub fn entry(&self) -> BlockId {
        BlockId(0)
    }

    pub fn block(&self, id: BlockId) -> &Block {
        &self.blocks[id.index()]
    }

    pub fn reg(&self, id: RegId) -> &RegInfo {
        &self.regs[id.index()]
    }

    /// Does every path through the body end the whole program before it does anything
    /// another thread or a later check could see: a failed assertion or `abort()`, reached
    /// through register copies and branches only (a branch on a constant follows its
    /// taken side)? A return, a loop, any other statement (a load, a call, arithmetic that
    /// could be undefined) or a missing body answers no.
    pub fn certainly_aborts(&self) -> bool {
        let mut on_path = vec![false; self.blocks.len()];
        self.is_defined() && self.aborts_from(self.entry(), &mut on_path)
    }

    fn aborts_from(&self, b: BlockId, on_path: &mut [bool]) -> bool {
        if std::mem::replace(&mut on_path[b.index()], true) {
            return false; // a cycle: the thread could stay here while others go on
        }
        let block = self.block(b);
        let copies_only = block.stmts.iter().all(|s| {
            matches!(
                s.kind,
                StmtKind::Assign {
                    value: Rvalue::Use(_),
                    ..
                }
            )
        });
        let aborts = copies_only
            && match &block.term.kind {
                TermKind::Error(Failure::Assertion { .. }) | TermKind::Abort => true,
                TermKind::Goto(next) => self.aborts_from(*next, on_path),
                TermKind::Branch {
                    cond: Operand::Int { bits, .. },
                    then_bb,
                    else_bb,
                } => self.aborts_from(if *bits != 0 { *then_bb } else { *else_bb }, on_path),
                TermKind::Branch {
                    then_bb, else_bb, ..
                } => self.aborts_from(*then_bb, on_path) && self.aborts_from(*else_bb, on_path),
                _ => false,
            };
        on_path[b.index()] = false;
        aborts
    }

    /// Which blocks lie on a cycle of the control-flow graph (a strongly connected
    /// component of two or more blocks, or a block that jumps to itself).
    pub fn blocks_on_cycles(&self) -> Vec<bool> {
        use petgraph::graph::{DiGraph, NodeIndex};
        let n = self.blocks.len();
        let mut g = DiGraph::<(), ()>::with_capacity(n, 2 * n);
        for _ in 0..n {
            g.add_node(());
        }
        for (b, block) in self.blocks.iter().enumerate() {
            for s in block.term.kind.successors() {
                if s.index() < n {
                    g.add_edge(NodeIndex::new(b), NodeIndex::new(s.index()), ());
                }
            }
        }
        let mut out = vec![false; n];
        for comp in petgraph::algo::tarjan_scc(&g) {
            let first = comp[0];
            if comp.len() > 1 || g.contains_edge(first, first) {
                for b in comp {
                    out[b.index()] = true;
                }
            }
        }
        out
    }
}

/// Where a memory object lives and how long.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum ObjectKind {
    Global,
    /// A `__thread` global: one instance per thread.
    ThreadLocal,
    /// A string literal (read-only).
    StringLiteral,
    /// A local of `func` that lives in memory (address taken, or an aggregate); one
    /// instance per activation.
    StackSlot {
        func: FuncId,
    },
}

/// One scalar of a static initializer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InitCell {
    pub offset: u64,
    pub ty: Scalar,
    /// Constant operand: `Int`, `Null`, `Addr` (of a global or literal) or `Func`.
    pub value: Operand,
}

/// A static memory object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Object {
    pub id: ObjId,
    pub name: String,
    pub kind: ObjectKind,
    /// The C type, as written (for reports).
    pub c_type: String,
    pub size: u64,
    /// Every scalar cell of the object's type: offset and type. Engines use it to zero
    /// globals, to default reads, and to copy aggregates.
    pub layout: Vec<(u64, Scalar)>,
    /// The static initializer's non-zero cells (globals and literals; cells not listed
    /// are zero). Stack slots are initialized by statements instead.
    pub init: Vec<InitCell>,
    pub span: Span,
}

/// A statement's place in the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct StmtLoc {
    pub func: FuncId,
    pub block: BlockId,
    /// Index into the block's statements; `None` for the terminator.
    pub index: Option<u32>,
}

/// A whole lowered program.
#[derive(Clone, Debug, Serialize)]
pub struct Program {
    /// Original source files named by the line markers; `files[FileId]`.
    pub files: Vec<String>,
    pub data_model: DataModel,
    pub objects: Vec<Object>,
    pub functions: Vec<Function>,
    pub main: FuncId,
    /// `stmt_locs[StmtId]`: where each statement or terminator is.
    pub stmt_locs: Vec<StmtLoc>,
    /// Non-fatal findings of the front end (external functions treated as havoc, ...).
    pub warnings: Vec<Diagnostic>,
}

/// A non-fatal message of the front end, located in the source.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub span: Span,
    pub message: String,
}

/// A reference to a statement or a terminator.
#[derive(Clone, Copy, Debug)]
pub enum StmtRef<'p> {
    Stmt(&'p Stmt),
    Term(&'p Terminator),
}

impl<'p> StmtRef<'p> {
    pub fn span(&self) -> Span {
        match self {
            StmtRef::Stmt(s) => s.span,
            StmtRef::Term(t) => t.span,
        }
    }
}

impl Program {
    pub fn function(&self, id: FuncId) -> &Function {
        &self.functions[id.index()]
    }

    pub fn object(&self, id: ObjId) -> &Object {
        &self.objects[id.index()]
    }

    pub fn function_named(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// Does a call of `reach_error` or `__VERIFIER_error` end the program? The front end
    /// ends a run at such a call ([`Failure::ReachError`]) whatever the program defines
    /// there; when the property is not the call itself (`--no-assertions`, SV-COMP's
    /// no-data-race), what the program's own definition does next matters. True when
    /// the program declares at least one of the two and each one it declares is defined
    /// and [certainly aborts](Function::certainly_aborts) (`void reach_error() { assert(0); }`).
    pub fn reach_error_ends_program(&self) -> bool {
        let named: Vec<&Function> = ["reach_error", "__VERIFIER_error"]
            .into_iter()
            .filter_map(|name| self.function_named(name))
            .collect();
        !named.is_empty() && named.iter().all(|f| f.certainly_aborts())
    }

    pub fn file_name(&self, id: FileId) -> &str {
        &self.files[id.index()]
    }

    /// `file:line` of a span, with the file as the line markers name it.
    pub fn location(&self, span: Span) -> String {
        format!("{}:{}", self.file_name(span.file), span.line)
    }

    /// Where a run that stopped at `at` stopped in the program's own terms: `at`
    /// itself, or, inside the C library model, the innermost of `call_sites` (innermost
    /// first) in the program's files; with the model's location as a note.
    pub fn program_site(&self, at: Span, call_sites: &[Span]) -> (Span, Option<String>) {
        let in_model = |s: &Span| {
            self.file_name(s.file)
                .starts_with(crate::frontend::libc::MODEL_DIR)
        };
        if !in_model(&at) {
            return (at, None);
        }
        match call_sites.iter().find(|s| !in_model(s)) {
            Some(&site) => (
                site,
                Some(format!("in agx's C library model at {}", self.location(at))),
            ),
            None => (at, None),
        }
    }

    /// May the condition wait at `id` return without a signal (a spurious wake-up, when
    /// the engines explore them)? See `SyncOp::CondWait::spurious`.
    pub fn wait_may_wake_spuriously(&self, id: StmtId) -> bool {
        match self.stmt(id) {
            StmtRef::Stmt(Stmt {
                kind:
                    StmtKind::Sync {
                        op: SyncOp::CondWait { spurious, .. },
                        ..
                    },
                ..
            }) => *spurious,
            _ => true,
        }
    }

    pub fn stmt(&self, id: StmtId) -> StmtRef<'_> {
        let loc = self.stmt_locs[id.index()];
        let block = self.function(loc.func).block(loc.block);
        match loc.index {
            Some(i) => StmtRef::Stmt(&block.stmts[i as usize]),
            None => StmtRef::Term(&block.term),
        }
    }

    pub fn stmt_count(&self) -> usize {
        self.stmt_locs.len()
    }

    /// Every `Error` terminator that is a reachability goal: the assertion and
    /// `reach_error` locations of the program (not `va_arg` type checks, undefined
    /// behaviour, nor the C library model's unsupported ends).
    pub fn error_sites(&self) -> Vec<&Terminator> {
        self.functions
            .iter()
            .flat_map(|f| f.blocks.iter())
            .map(|b| &b.term)
            .filter(|t| matches!(&t.kind, TermKind::Error(f) if f.is_reach_goal()))
            .collect()
    }
}
