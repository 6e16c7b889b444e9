//! Declaration specifiers and declarators to C types; struct, union and enum definitions.

use super::types::{CType, Field, FuncType, IntType, StructDef, StructId};
use super::{LResult, Lowerer, Symbol};
use lang_c::ast::*;
use lang_c::span::{Node, Span as AstSpan};

/// The specifiers of a declaration, resolved.
pub(crate) struct DeclInfo {
    pub ty: CType,
    pub typedef: bool,
    pub is_static: bool,
    pub is_extern: bool,
    pub thread_local: bool,
}

impl Lowerer<'_> {
    pub(crate) fn decl_specifiers(
        &mut self,
        specs: &[Node<DeclarationSpecifier>],
        span: AstSpan,
    ) -> LResult<DeclInfo> {
        let mut info = DeclInfo {
            ty: CType::Void,
            typedef: false,
            is_static: false,
            is_extern: false,
            thread_local: false,
        };
        let mut type_specs = Vec::new();
        for s in specs {
            match &s.node {
                DeclarationSpecifier::StorageClass(sc) => match sc.node {
                    StorageClassSpecifier::Typedef => info.typedef = true,
                    StorageClassSpecifier::Static => info.is_static = true,
                    StorageClassSpecifier::Extern => info.is_extern = true,
                    StorageClassSpecifier::ThreadLocal => info.thread_local = true,
                    StorageClassSpecifier::Auto | StorageClassSpecifier::Register => {}
                },
                DeclarationSpecifier::TypeSpecifier(t) => type_specs.push(t),
                DeclarationSpecifier::TypeQualifier(q) => self.check_qualifier(q)?,
                DeclarationSpecifier::Function(_)
                | DeclarationSpecifier::Alignment(_)
                | DeclarationSpecifier::Extension(_) => {}
            }
        }
        info.ty = self.specifier_type(&type_specs, span)?;
        Ok(info)
    }

    fn check_qualifier(&self, q: &Node<TypeQualifier>) -> LResult<()> {
        match q.node {
            TypeQualifier::Atomic => self.unsupported(q.span, "_Atomic qualifier"),
            _ => Ok(()),
        }
    }

    /// The type named by a list of type specifiers (`unsigned long int`, `struct s`, ...).
    pub(crate) fn specifier_type(
        &mut self,
        specs: &[&Node<TypeSpecifier>],
        span: AstSpan,
    ) -> LResult<CType> {
        let (mut longs, mut short, mut char_, mut int, mut signed, mut unsigned) =
            (0, false, false, false, false, false);
        let mut base: Option<CType> = None;
        for s in specs {
            match &s.node {
                TypeSpecifier::Void => base = Some(CType::Void),
                TypeSpecifier::Char => char_ = true,
                TypeSpecifier::Short => short = true,
                TypeSpecifier::Int => int = true,
                TypeSpecifier::Long => longs += 1,
                TypeSpecifier::Signed => signed = true,
                TypeSpecifier::Unsigned => unsigned = true,
                TypeSpecifier::Bool => base = Some(CType::Int(IntType::BOOL)),
                TypeSpecifier::Float => base = Some(CType::Float(32)),
                TypeSpecifier::Double => base = Some(CType::Float(64)),
                TypeSpecifier::TS18661Float(f) => base = Some(CType::Float(f.width as u8)),
                TypeSpecifier::Complex => return self.unsupported(s.span, "_Complex type"),
                TypeSpecifier::Atomic(_) => return self.unsupported(s.span, "_Atomic type"),
                TypeSpecifier::Struct(st) => base = Some(self.struct_type(st)?),
                TypeSpecifier::Enum(e) => base = Some(self.enum_type(e)?),
                TypeSpecifier::TypedefName(id) => match self.lookup(&id.node.name) {
                    Some(Symbol::Typedef(t)) => base = Some(t.clone()),
                    _ => return self.invalid(id.span, format!("unknown type `{}`", id.node.name)),
                },
                TypeSpecifier::TypeOf(t) => base = Some(self.typeof_type(t)?),
            }
        }
        if let Some(CType::Float(bits)) = base {
            // `long double`
            return Ok(CType::Float(if longs > 0 { 128 } else { bits }));
        }
        if let Some(b) = base {
            return Ok(b);
        }
        let bits = if char_ {
            8
        } else if short {
            16
        } else if longs >= 2 {
            64
        } else if longs == 1 {
            self.dm.pointer_bits()
        } else {
            32
        };
        // No specifier at all is C89's implicit `int`.
        let _ = (int, signed, span);
        Ok(CType::Int(IntType::new(bits, !unsigned)))
    }

    fn typeof_type(&mut self, t: &Node<TypeOf>) -> LResult<CType> {
        match &t.node {
            TypeOf::Type(tn) => self.type_name_type(tn),
            TypeOf::Expression(_) => self.unsupported(t.span, "typeof(expression)"),
        }
    }

    /// The type of a type name (`sizeof(T)`, casts).
    pub(crate) fn type_name_type(&mut self, tn: &Node<TypeName>) -> LResult<CType> {
        let mut specs = Vec::new();
        for s in &tn.node.specifiers {
            match &s.node {
                SpecifierQualifier::TypeSpecifier(t) => specs.push(t),
                SpecifierQualifier::TypeQualifier(q) => self.check_qualifier(q)?,
                SpecifierQualifier::Extension(_) => {}
            }
        }
        let base = self.specifier_type(&specs, tn.span)?;
        match &tn.node.declarator {
            Some(d) => Ok(self.declarator(base, d)?.1),
            None => Ok(base),
        }
    }

    /// Applies a declarator to a base type: the declared name (if any) and its type.
    pub(crate) fn declarator(
        &mut self,
        base: CType,
        d: &Node<Declarator>,
    ) -> LResult<(Option<String>, CType)> {
        // lang-c lists the prefix pointers first, then the postfix array and function
        // declarators in source order; postfix ones bind tighter and apply right to left
        // (`int a[2][4]` is an array of 2 arrays of 4 ints).
        let mut ty = base;
        let (pointers, postfix): (Vec<_>, Vec<_>) = d
            .node
            .derived
            .iter()
            .partition(|x| matches!(x.node, DerivedDeclarator::Pointer(_)));
        for derived in pointers.into_iter().chain(postfix.into_iter().rev()) {
            ty = self.derive(ty, derived)?;
        }
        match &d.node.kind.node {
            DeclaratorKind::Identifier(id) => Ok((Some(id.node.name.clone()), ty)),
            DeclaratorKind::Abstract => Ok((None, ty)),
            DeclaratorKind::Declarator(inner) => self.declarator(ty, inner),
        }
    }

    fn derive(&mut self, ty: CType, d: &Node<DerivedDeclarator>) -> LResult<CType> {
        match &d.node {
            DerivedDeclarator::Pointer(_) => Ok(CType::ptr_to(ty)),
            DerivedDeclarator::Array(a) => {
                let len = match &a.node.size {
                    ArraySize::Unknown => None,
                    ArraySize::VariableExpression(e) | ArraySize::StaticExpression(e) => {
                        match self.const_int(e)? {
                            Some(n) if n >= 0 => Some(n as u64),
                            Some(_) => return self.invalid(e.span, "negative array size"),
                            None => {
                                return self.unsupported(a.span, "variable-length array");
                            }
                        }
                    }
                    ArraySize::VariableUnknown => {
                        return self.unsupported(a.span, "variable-length array");
                    }
                };
                Ok(CType::Array(Box::new(ty), len))
            }
            DerivedDeclarator::Function(f) => {
                let mut params = Vec::new();
                for p in &f.node.parameters {
                    let (_, pty) = self.parameter(p)?;
                    params.push(pty);
                }
                // `f(void)` declares no parameters.
                if params.len() == 1 && params[0].is_void() {
                    params.clear();
                }
                Ok(CType::Func(Box::new(FuncType {
                    ret: ty,
                    params,
                    variadic: f.node.ellipsis == Ellipsis::Some,
                    prototyped: true,
                })))
            }
            DerivedDeclarator::KRFunction(_) => Ok(CType::Func(Box::new(FuncType {
                ret: ty,
                params: Vec::new(),
                variadic: false,
                prototyped: false,
            }))),
            DerivedDeclarator::Block(_) => self.unsupported(d.span, "block pointer (^)"),
        }
    }

    /// A parameter's name and its (adjusted) type: arrays and functions become pointers.
    pub(crate) fn parameter(
        &mut self,
        p: &Node<ParameterDeclaration>,
    ) -> LResult<(Option<String>, CType)> {
        let info = self.decl_specifiers(&p.node.specifiers, p.span)?;
        let (name, ty) = match &p.node.declarator {
            Some(d) => self.declarator(info.ty, d)?,
            None => (None, info.ty),
        };
        let ty = match ty {
            CType::Array(e, _) => CType::Ptr(e),
            f @ CType::Func(_) => CType::ptr_to(f),
            other => other,
        };
        Ok((name, ty))
    }

    fn struct_type(&mut self, st: &Node<StructType>) -> LResult<CType> {
        let is_union = st.node.kind.node == StructKind::Union;
        let tag = st.node.identifier.as_ref().map(|i| i.node.name.clone());
        let id = match (&tag, &st.node.declarations) {
            // `struct s { ... }` defines in the current scope (completing a forward
            // declaration made in the same scope).
            (Some(t), Some(_)) => match self.scopes.last().and_then(|s| s.tags.get(t)) {
                Some(&id) if !self.structs[id.0].complete => id,
                _ => self.new_struct(tag.clone(), is_union),
            },
            (Some(t), None) => match self.lookup_tag(t) {
                Some(id) => id,
                None => self.new_struct(tag.clone(), is_union),
            },
            (None, _) => self.new_struct(None, is_union),
        };
        if let Some(decls) = &st.node.declarations {
            self.define_struct(id, decls)?;
        }
        Ok(CType::Struct(id))
    }

    fn new_struct(&mut self, tag: Option<String>, is_union: bool) -> StructId {
        let id = StructId(self.structs.len());
        self.structs.push(StructDef {
            tag: tag.clone(),
            is_union,
            fields: Vec::new(),
            size: 0,
            align: 1,
            complete: false,
            bitfield: None,
        });
        if let Some(t) = tag {
            self.bind_tag(t, id);
        }
        id
    }

    fn define_struct(&mut self, id: StructId, decls: &[Node<StructDeclaration>]) -> LResult<()> {
        let is_union = self.structs[id.0].is_union;
        let mut fields = Vec::new();
        let mut bitfield = None;
        let (mut offset, mut size, mut align) = (0u64, 0u64, 1u64);
        for decl in decls {
            let StructDeclaration::Field(field) = &decl.node else {
                continue;
            };
            let mut specs = Vec::new();
            for s in &field.node.specifiers {
                match &s.node {
                    SpecifierQualifier::TypeSpecifier(t) => specs.push(t),
                    SpecifierQualifier::TypeQualifier(q) => self.check_qualifier(q)?,
                    SpecifierQualifier::Extension(_) => {}
                }
            }
            let base = self.specifier_type(&specs, field.span)?;
            let mut members = Vec::new();
            if field.node.declarators.is_empty() {
                // An anonymous struct or union member.
                members.push((None, base.clone(), field.span));
            }
            for sd in &field.node.declarators {
                if let Some(w) = &sd.node.bit_width {
                    bitfield = bitfield.or(Some(w.span));
                    continue;
                }
                let (name, ty) = match &sd.node.declarator {
                    Some(d) => self.declarator(base.clone(), d)?,
                    None => (None, base.clone()),
                };
                members.push((name, ty, sd.span));
            }
            for (name, ty, span) in members {
                if let Some(b) = self.bitfield_in(&ty) {
                    bitfield = bitfield.or(Some(b));
                }
                // A flexible array member has size zero.
                let fsize = match (&ty, self.layout().size(&ty)) {
                    (_, Some(n)) => n,
                    (CType::Array(_, None), None) => 0,
                    _ => return self.invalid(span, "field of incomplete type"),
                };
                let falign = self.layout().align(&ty);
                align = align.max(falign);
                let at = if is_union {
                    0
                } else {
                    offset.next_multiple_of(falign)
                };
                fields.push(Field {
                    name,
                    ty,
                    offset: at,
                });
                offset = at + fsize;
                size = size.max(at + fsize);
            }
        }
        let s = &mut self.structs[id.0];
        s.fields = fields;
        s.align = align;
        s.size = size.next_multiple_of(align);
        s.complete = true;
        s.bitfield = bitfield;
        Ok(())
    }

    /// Records which parameters of a declared function are read-only pointers: a
    /// parameter declared `const T *p` (one pointer level, `const` in the specifiers) where
    /// `T` holds no pointer, so nothing the function can reach through `p` is writable
    /// without casting `const` away. Other pointers, and typedefs that hide a `const`,
    /// count as writable.
    pub(crate) fn note_read_only_params(
        &mut self,
        id: crate::ir::FuncId,
        d: &Node<Declarator>,
    ) -> LResult<()> {
        let Some(derived) = super::func::own_function_declarator(d) else {
            return Ok(());
        };
        let DerivedDeclarator::Function(f) = &derived.node else {
            return Ok(());
        };
        let mut read_only = Vec::new();
        for p in &f.node.parameters {
            let is_const = p.node.specifiers.iter().any(|s| {
                matches!(
                    &s.node,
                    DeclarationSpecifier::TypeQualifier(q) if q.node == TypeQualifier::Const
                )
            });
            let one_pointer = p.node.declarator.as_ref().is_some_and(|d| {
                matches!(
                    d.node.kind.node,
                    DeclaratorKind::Identifier(_) | DeclaratorKind::Abstract
                ) && d.node.derived.len() == 1
                    && matches!(d.node.derived[0].node, DerivedDeclarator::Pointer(_))
            });
            let ok = is_const
                && one_pointer
                && match self.parameter(p)?.1 {
                    CType::Ptr(pointee) => !self.holds_pointer(&pointee),
                    _ => false,
                };
            read_only.push(ok);
        }
        let entry = &mut self.functions[id.index()];
        if entry.read_only.is_empty() || read_only.len() == entry.read_only.len() {
            // A later prototype may only narrow: a parameter is read-only if every
            // declaration says so.
            if entry.read_only.is_empty() {
                entry.read_only = read_only;
            } else {
                for (old, new) in entry.read_only.iter_mut().zip(read_only) {
                    *old &= new;
                }
            }
        }
        Ok(())
    }

    /// Whether a value of this type contains a pointer (a function can write through it).
    fn holds_pointer(&self, ty: &CType) -> bool {
        match ty {
            CType::Ptr(_) | CType::Func(_) => true,
            CType::Array(e, _) => self.holds_pointer(e),
            CType::Struct(id) => {
                let s = &self.structs[id.0];
                // An incomplete struct may hold anything.
                !s.complete || s.fields.iter().any(|f| self.holds_pointer(&f.ty))
            }
            _ => false,
        }
    }

    /// Where the bit-field of a type (a struct with one, or an array of such) stands.
    pub(crate) fn bitfield_in(&self, ty: &CType) -> Option<lang_c::span::Span> {
        match ty {
            CType::Struct(id) => self.structs[id.0].bitfield,
            CType::Array(e, _) => self.bitfield_in(e),
            _ => None,
        }
    }

    /// Rejects a use of a type with a bit-field at `used`: the error names the bit-field.
    pub(crate) fn check_no_bitfield(&self, ty: &CType, used: lang_c::span::Span) -> LResult<()> {
        match self.bitfield_in(ty) {
            Some(b) => self.unsupported(
                b,
                format!("bit-field (in a struct used at {})", self.loc(used)),
            ),
            None => Ok(()),
        }
    }

    fn enum_type(&mut self, e: &Node<EnumType>) -> LResult<CType> {
        let mut next: i128 = 0;
        for en in &e.node.enumerators {
            if let Some(expr) = &en.node.expression {
                next = match self.const_int(expr)? {
                    Some(v) => v,
                    None => return self.invalid(expr.span, "enumerator value is not a constant"),
                };
            }
            self.bind(
                en.node.identifier.node.name.clone(),
                Symbol::EnumConst(next),
            );
            next += 1;
        }
        Ok(CType::Int(IntType::INT))
    }
}
