//! Lowering: the lang-c AST to the IR's normal form.
//!
//! One pass over the translation unit in source order, as a C compiler reads it: file-scope
//! declarations create objects and function ids; each function body is lowered when its
//! definition is met ([`func`], [`expr`], [`stmt`]). Every construct outside the supported
//! subset is an [`FrontendError::Unsupported`] naming it and its file:line.
//!
//! Module map: [`types`] (C types and layout), [`decl`] (specifiers and declarators),
//! [`consts`] (constant expressions and static initializers), [`init`] (initializer
//! walking), [`func`] (function builder: blocks, registers, scopes), [`expr`]
//! (expressions), [`stmt`] (statements), [`builtins`] (pthread, `__VERIFIER_*`, libc),
//! [`scanf`] (`sscanf`/`scanf`/`fscanf` as inputs), [`tls_keys`] (`pthread_key_*` as a
//! key count and a thread-local value table).

mod atomics;
mod builtins;
mod cleanup;
mod consts;
mod decl;
mod expr;
mod floats;
mod func;
mod init;
mod memfns;
pub(crate) mod mutex_kinds;
mod qsort;
mod scanf;
mod sprintf;
mod stmt;
mod tls_keys;
pub mod types;

use crate::frontend::{FrontendError, ParsedUnit, SourceLoc};
use crate::ir::*;
use lang_c::ast;
use lang_c::span::{Node, Span as AstSpan};
use std::collections::{HashMap, HashSet};
use types::{CType, FuncType, Layout, StructDef, StructId};

pub(crate) type LResult<T> = Result<T, FrontendError>;

/// Lowers a parsed translation unit to IR.
pub fn lower(unit: &ParsedUnit, data_model: DataModel) -> Result<Program, FrontendError> {
    if unit.deep {
        return crate::frontend::on_big_stack(|| lower_here(unit, data_model))?;
    }
    lower_here(unit, data_model)
}

fn lower_here(unit: &ParsedUnit, data_model: DataModel) -> Result<Program, FrontendError> {
    let mut l = Lowerer::new(unit, data_model);
    for ext in &unit.unit.0 {
        l.external(ext)?;
        if let Some(e) = l.too_large.take() {
            return Err(e);
        }
    }
    l.finish()
}

/// What a name means in a scope.
#[derive(Clone, Debug)]
pub(crate) enum Symbol {
    /// A static object: a global, a `static` local, or a string literal.
    Object {
        obj: ObjId,
        ty: CType,
    },
    Function {
        id: FuncId,
        ty: CType,
    },
    EnumConst(i128),
    Typedef(CType),
    /// A register local of the function being lowered.
    Reg {
        reg: RegId,
        ty: CType,
    },
    /// A stack slot of the function being lowered.
    Slot {
        obj: ObjId,
        ty: CType,
    },
    /// A variable-length array: a register holding the address of its storage; `ty` is
    /// the array type of unknown size.
    Vla {
        reg: RegId,
        ty: CType,
    },
}

#[derive(Default)]
pub(crate) struct Scope {
    names: HashMap<String, Symbol>,
    tags: HashMap<String, StructId>,
}

/// A function known to the program: declared, and perhaps defined.
pub(crate) struct FnEntry {
    pub ir: Function,
    pub ty: FuncType,
    pub defined: bool,
    /// Per declared parameter: a pointer through which the function cannot write
    /// (`const char *`: one level of pointer to const data without pointers inside).
    pub read_only: Vec<bool>,
}

pub(crate) struct Lowerer<'u> {
    pub unit: &'u ParsedUnit,
    pub dm: DataModel,
    pub structs: Vec<StructDef>,
    pub scopes: Vec<Scope>,
    pub objects: Vec<Object>,
    pub functions: Vec<FnEntry>,
    strings: HashMap<Vec<u8>, ObjId>,
    pub warnings: Vec<Diagnostic>,
    warned: HashSet<String>,
    /// Objects whose static initializer still has to be checked (tentative definitions).
    defined_objects: HashSet<ObjId>,
    /// Functions of system headers whose bodies could not be lowered: an error only if
    /// the program uses them.
    pub deferred: HashMap<FuncId, FrontendError>,
    /// The types of the conditional expressions inside the outermost one being lowered
    /// (by node address), so a chain `a ? b : c ? d : ...` is typed once, not once per
    /// link; `None` outside conditionals and inside statement expressions (whose scopes
    /// could give a node another type).
    pub conditional_types: Option<HashMap<usize, types::CType>>,
    /// The objects of the pthread key table, once a key function is used.
    pub key_table: Option<tls_keys::KeyTable>,
    /// The first object with more than [`MAX_OBJECT_CELLS`] cells: created without its
    /// cells, and reported after the external declaration that made it.
    too_large: Option<FrontendError>,
}

/// The most scalar cells one object may have (16 Mi: a 64 MiB `int` array). Every cell is
/// listed in the IR and modelled by the engines; a larger object (`int a[1000000000]`)
/// would exhaust memory before any search starts, so it is refused with its location.
pub const MAX_OBJECT_CELLS: u64 = 1 << 24;

impl<'u> Lowerer<'u> {
    fn new(unit: &'u ParsedUnit, dm: DataModel) -> Self {
        let mut file_scope = Scope::default();
        // GCC's built-in type, used by <stdarg.h>: agx's va_list is a cursor into the
        // caller's area of variadic arguments (see `expr::varargs`).
        file_scope.names.insert(
            "__builtin_va_list".into(),
            Symbol::Typedef(CType::ptr_to(CType::Void)),
        );
        Lowerer {
            unit,
            dm,
            structs: Vec::new(),
            scopes: vec![file_scope],
            objects: Vec::new(),
            functions: Vec::new(),
            strings: HashMap::new(),
            warnings: Vec::new(),
            warned: HashSet::new(),
            defined_objects: HashSet::new(),
            deferred: HashMap::new(),
            too_large: None,
            conditional_types: None,
            key_table: None,
        }
    }

    pub fn layout(&self) -> Layout<'_> {
        Layout {
            dm: self.dm,
            structs: &self.structs,
        }
    }

    pub fn span(&self, s: AstSpan) -> Span {
        self.unit.span(s.start)
    }

    pub fn loc(&self, s: AstSpan) -> SourceLoc {
        self.unit.loc(s.start)
    }

    pub fn unsupported<T>(&self, s: AstSpan, construct: impl Into<String>) -> LResult<T> {
        Err(FrontendError::Unsupported {
            at: self.loc(s),
            construct: construct.into(),
        })
    }

    pub fn invalid<T>(&self, s: AstSpan, message: impl Into<String>) -> LResult<T> {
        Err(FrontendError::Invalid {
            at: self.loc(s),
            message: message.into(),
        })
    }

    pub fn warn_once(&mut self, key: &str, s: AstSpan, message: String) {
        if self.warned.insert(key.to_string()) {
            let span = self.span(s);
            self.warnings.push(Diagnostic { span, message });
        }
    }

    pub fn size_of(&self, t: &CType, s: AstSpan) -> LResult<u64> {
        self.check_no_bitfield(t, s)?;
        match self.layout().size(t) {
            Some(n) => Ok(n),
            None => self.invalid(s, "size of an incomplete type"),
        }
    }

    // ----- scopes -----

    pub fn lookup(&self, name: &str) -> Option<&Symbol> {
        self.scopes.iter().rev().find_map(|s| s.names.get(name))
    }

    pub fn bind(&mut self, name: String, sym: Symbol) {
        self.scopes
            .last_mut()
            .expect("file scope")
            .names
            .insert(name, sym);
    }

    pub fn lookup_tag(&self, name: &str) -> Option<StructId> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.tags.get(name).copied())
    }

    pub fn bind_tag(&mut self, name: String, id: StructId) {
        self.scopes
            .last_mut()
            .expect("file scope")
            .tags
            .insert(name, id);
    }

    pub fn push_scope(&mut self) {
        self.scopes.push(Scope::default());
    }

    pub fn pop_scope(&mut self) {
        self.scopes.pop();
    }

    // ----- objects and functions -----

    pub fn new_object(&mut self, name: String, kind: ObjectKind, ty: &CType, span: Span) -> ObjId {
        let id = ObjId(self.objects.len() as u32);
        let cells = self.cells_of(&name, ty, span);
        let size = self.layout().size(ty).unwrap_or(0);
        self.objects.push(Object {
            id,
            name,
            kind,
            c_type: self.type_name(ty),
            size,
            layout: cells,
            init: Vec::new(),
            span,
        });
        id
    }

    /// The cells of an object of type `ty`, or none (and the error recorded) when it has
    /// more than [`MAX_OBJECT_CELLS`].
    fn cells_of(&mut self, name: &str, ty: &CType, span: Span) -> Vec<(u64, Scalar)> {
        let layout = self.layout();
        let count = layout.cell_count(ty);
        if count > MAX_OBJECT_CELLS {
            if self.too_large.is_none() {
                let at = SourceLoc {
                    file: self.unit.map.files()[span.file.index()].clone(),
                    line: span.line,
                };
                self.too_large = Some(FrontendError::Unsupported {
                    at,
                    construct: format!(
                        "object `{name}` of {count} cells (agx models at most {MAX_OBJECT_CELLS} cells per object)"
                    ),
                });
            }
            return Vec::new();
        }
        let mut cells = Vec::new();
        layout.leaves(ty, 0, &mut cells);
        cells
    }

    /// Gives an object its final type (a completed array or struct).
    pub fn retype_object(&mut self, obj: ObjId, ty: &CType) {
        let object_name = self.objects[obj.index()].name.clone();
        let span = self.objects[obj.index()].span;
        let cells = self.cells_of(&object_name, ty, span);
        let size = self.layout().size(ty).unwrap_or(0);
        let name = self.type_name(ty);
        let o = &mut self.objects[obj.index()];
        o.size = size;
        o.layout = cells;
        o.c_type = name;
    }

    /// The object of a string literal (interned by content, NUL included).
    pub fn string_object(&mut self, bytes: Vec<u8>, span: Span) -> ObjId {
        if let Some(&id) = self.strings.get(&bytes) {
            return id;
        }
        let ty = CType::Array(
            Box::new(CType::Int(types::IntType::CHAR)),
            Some(bytes.len() as u64),
        );
        let shown: String = String::from_utf8_lossy(&bytes[..bytes.len() - 1])
            .chars()
            .take(24)
            .collect();
        let id = self.new_object(format!("{shown:?}"), ObjectKind::StringLiteral, &ty, span);
        self.objects[id.index()].init = bytes
            .iter()
            .enumerate()
            .filter(|(_, &b)| b != 0)
            .map(|(i, &b)| InitCell {
                offset: i as u64,
                ty: Scalar::I8,
                value: Operand::int(i128::from(b as i8), Scalar::I8),
            })
            .collect();
        self.strings.insert(bytes, id);
        id
    }

    /// The function named `name`, declared with type `ty`, creating it if new.
    pub fn declare_function(&mut self, name: &str, ty: &FuncType, span: Span) -> FuncId {
        if let Some(Symbol::Function { id, .. }) = self.scopes[0].names.get(name) {
            let id = *id;
            // A later prototype refines an old-style declaration.
            if ty.prototyped && !self.functions[id.index()].ty.prototyped {
                self.functions[id.index()].ty = ty.clone();
            }
            return id;
        }
        let id = FuncId(self.functions.len() as u32);
        self.functions.push(FnEntry {
            ir: Function {
                id,
                name: name.to_string(),
                params: Vec::new(),
                ret: ty.ret.scalar(),
                regs: Vec::new(),
                blocks: Vec::new(),
                slots: Vec::new(),
                variadic: ty.variadic,
                atomic: name.starts_with("__VERIFIER_atomic_")
                    && name != "__VERIFIER_atomic_begin"
                    && name != "__VERIFIER_atomic_end",
                span,
            },
            ty: ty.clone(),
            defined: false,
            read_only: Vec::new(),
        });
        self.scopes[0].names.insert(
            name.to_string(),
            Symbol::Function {
                id,
                ty: CType::Func(Box::new(ty.clone())),
            },
        );
        id
    }

    /// A readable C spelling of a type, for reports.
    pub fn type_name(&self, t: &CType) -> String {
        match t {
            CType::Void => "void".into(),
            CType::Int(i) if i.is_bool => "_Bool".into(),
            CType::Int(i) => format!("{}int{}", if i.signed { "" } else { "u" }, i.bits),
            CType::Float(b) => format!("float{b}"),
            CType::Ptr(inner) => format!("{}*", self.type_name(inner)),
            CType::Array(e, Some(n)) => format!("{}[{n}]", self.type_name(e)),
            CType::Array(e, None) => format!("{}[]", self.type_name(e)),
            CType::Struct(id) => {
                let s = &self.structs[id.0];
                let kw = if s.is_union { "union" } else { "struct" };
                format!("{kw} {}", s.tag.as_deref().unwrap_or("<anon>"))
            }
            CType::Func(f) => {
                let ps: Vec<String> = f.params.iter().map(|p| self.type_name(p)).collect();
                format!("{}({})", self.type_name(&f.ret), ps.join(", "))
            }
        }
    }

    // ----- the translation unit -----

    fn external(&mut self, ext: &Node<ast::ExternalDeclaration>) -> LResult<()> {
        match &ext.node {
            ast::ExternalDeclaration::Declaration(d) => self.file_declaration(d),
            ast::ExternalDeclaration::StaticAssert(_) => Ok(()),
            ast::ExternalDeclaration::FunctionDefinition(f) => {
                match func::lower_function(self, f) {
                    // A body agx cannot lower (header inline functions using GCC builtins,
                    // say) is an error only if the program uses the function.
                    Err(e @ FrontendError::Unsupported { .. }) => match self.function_at(f.span) {
                        Some(id) => {
                            self.deferred.insert(id, e);
                            Ok(())
                        }
                        None => Err(e),
                    },
                    other => other,
                }
            }
        }
    }

    fn file_declaration(&mut self, d: &Node<ast::Declaration>) -> LResult<()> {
        let info = self.decl_specifiers(&d.node.specifiers, d.span)?;
        for init_decl in &d.node.declarators {
            let (name, ty) = self.declarator(info.ty.clone(), &init_decl.node.declarator)?;
            let Some(name) = name else { continue };
            let span = self.span(init_decl.span);
            if info.typedef {
                self.bind(name, Symbol::Typedef(ty));
                continue;
            }
            if let CType::Func(f) = &ty {
                let id = self.declare_function(&name, f, span);
                self.note_read_only_params(id, &init_decl.node.declarator)?;
                continue;
            }
            let thread_local =
                info.thread_local || self.blanked_thread_local(d.span, init_decl.span);
            self.global_object(&name, ty, thread_local, init_decl)?;
        }
        Ok(())
    }

    fn global_object(
        &mut self,
        name: &str,
        ty: CType,
        thread_local: bool,
        init_decl: &Node<ast::InitDeclarator>,
    ) -> LResult<()> {
        self.check_no_bitfield(&ty, init_decl.span)?;
        let span = self.span(init_decl.span);
        let existing = match self.scopes[0].names.get(name) {
            Some(Symbol::Object { obj, ty }) => Some((*obj, ty.clone())),
            _ => None,
        };
        let (obj, ty) = match existing {
            Some((obj, old_ty)) => {
                // A later declaration may complete an array's size.
                let ty = match (&old_ty, &ty) {
                    (CType::Array(_, None), CType::Array(_, Some(_))) => ty,
                    _ => old_ty,
                };
                (obj, ty)
            }
            None => {
                let kind = if thread_local {
                    ObjectKind::ThreadLocal
                } else {
                    ObjectKind::Global
                };
                let obj = self.new_object(name.to_string(), kind, &ty, span);
                (obj, ty)
            }
        };
        let ty = match &init_decl.node.initializer {
            Some(init) => {
                if !self.defined_objects.insert(obj) {
                    return self.invalid(init_decl.span, format!("redefinition of `{name}`"));
                }
                let (ty, cells) = init::static_initializer(self, &ty, init)?;
                self.objects[obj.index()].init = cells;
                ty
            }
            None => ty,
        };
        self.retype_object(obj, &ty);
        self.scopes[0]
            .names
            .insert(name.to_string(), Symbol::Object { obj, ty });
        Ok(())
    }

    /// Whether a blanked `__thread` keyword stood in a declaration's specifiers. The
    /// keyword may precede the span lang-c gives the declaration (it is blank space there
    /// now), so the search starts at the beginning of the white space before it.
    pub fn blanked_thread_local(&self, decl: AstSpan, declarator: AstSpan) -> bool {
        let bytes = self.unit.source.as_bytes();
        let mut start = decl.start.min(bytes.len());
        while start > 0 && bytes[start - 1].is_ascii_whitespace() {
            start -= 1;
        }
        self.unit.map.has_thread_local_in(start, declarator.start)
    }

    /// True the first time an external function is reported.
    pub fn warned_external(&mut self, name: &str) -> bool {
        self.warned.insert(format!("external:{name}"))
    }

    /// Fails with a deferred error if `main` or a function whose address is taken could
    /// not be lowered (calls are checked when externals are resolved).
    fn check_deferred_uses(&mut self) -> LResult<()> {
        if let Some(Symbol::Function { id, .. }) = self.scopes[0].names.get("main") {
            if let Some(e) = self.deferred.remove(id) {
                return Err(e);
            }
        }
        let mut used = None;
        for f in &self.functions {
            if self.deferred.contains_key(&f.ir.id) {
                continue;
            }
            for b in &f.ir.blocks {
                for s in &b.stmts {
                    for op in s.kind.operands() {
                        if let Operand::Func(id) = op {
                            if self.deferred.contains_key(id) {
                                used = Some(*id);
                            }
                        }
                    }
                }
            }
        }
        for o in &self.objects {
            for c in &o.init {
                if let Operand::Func(id) = &c.value {
                    if self.deferred.contains_key(id) {
                        used = Some(*id);
                    }
                }
            }
        }
        match used.and_then(|id| self.deferred.remove(&id)) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The function whose definition starts at `span`, if it was declared.
    fn function_at(&self, span: AstSpan) -> Option<FuncId> {
        let at = self.span(span);
        self.functions
            .iter()
            .find(|f| f.ir.span == at)
            .map(|f| f.ir.id)
    }

    fn finish(mut self) -> LResult<Program> {
        self.check_deferred_uses()?;
        for id in self.deferred.keys() {
            let f = &mut self.functions[id.index()];
            f.defined = false;
            f.ir.blocks.clear();
        }
        self.resolve_externals()?;
        let main = match self.scopes[0].names.get("main") {
            Some(Symbol::Function { id, .. }) if self.functions[id.index()].defined => *id,
            _ => {
                return Err(FrontendError::Invalid {
                    at: self.unit.loc(0),
                    message: "the program has no `main` function".into(),
                })
            }
        };
        let mut functions: Vec<Function> = self.functions.into_iter().map(|f| f.ir).collect();
        functions.iter_mut().for_each(cleanup::thread_jumps);
        let files = self.unit.map.files().to_vec();
        let (objects, mut functions, main) =
            cleanup::drop_unused(self.objects, functions, main, &files);
        let mut stmt_locs = Vec::new();
        number_statements(&mut functions, &mut stmt_locs);
        Ok(Program {
            files,
            data_model: self.dm,
            objects,
            functions,
            main,
            stmt_locs,
            warnings: self.warnings,
        })
    }
}

/// Gives every statement and terminator its program-wide id, in function and block order.
fn number_statements(functions: &mut [Function], locs: &mut Vec<StmtLoc>) {
    for f in functions.iter_mut() {
        for b in f.blocks.iter_mut() {
            for (i, s) in b.stmts.iter_mut().enumerate() {
                s.id = StmtId(locs.len() as u32);
                locs.push(StmtLoc {
                    func: f.id,
                    block: b.id,
                    index: Some(i as u32),
                });
            }
            b.term.id = StmtId(locs.len() as u32);
            locs.push(StmtLoc {
                func: f.id,
                block: b.id,
                index: None,
            });
        }
    }
}

#[cfg(test)]
mod tests;
