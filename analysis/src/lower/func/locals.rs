//! Local declarations: register locals, stack slots, `static` locals and variable-length
//! arrays, with their initializers.

use super::FnBuilder;
use crate::ir::*;
use crate::lower::init::{self, Leaf};
use crate::lower::types::CType;
use crate::lower::{LResult, Lowerer, Symbol};
use lang_c::ast;
use lang_c::span::{Node, Span as AstSpan};

impl FnBuilder<'_, '_> {
    /// Declares a scalar local (a register unless its address is taken) with an initial
    /// value. `param_reg` reuses the incoming parameter register as the variable.
    pub(super) fn declare_scalar_local(
        &mut self,
        name: &str,
        ty: &CType,
        init: Option<Operand>,
        span: AstSpan,
        param_reg: Option<RegId>,
    ) -> LResult<()> {
        let scalar = ty.scalar().expect("scalar local");
        if !self.addr_taken.contains(name) {
            let reg = match param_reg {
                Some(r) => {
                    self.regs[r.index()].name = Some(name.to_string());
                    r
                }
                None => {
                    let r = self.new_reg(Some(name.to_string()), scalar);
                    let value = match init {
                        Some(op) => Rvalue::Use(op),
                        None => Rvalue::Uninit(scalar),
                    };
                    self.emit(StmtKind::Assign { dst: r, value });
                    r
                }
            };
            self.l.bind(
                name.to_string(),
                Symbol::Reg {
                    reg,
                    ty: ty.clone(),
                },
            );
            return Ok(());
        }
        let _ = span;
        let obj = self.new_slot(name, ty);
        if let Some(value) = init {
            self.emit(StmtKind::Store {
                addr: Operand::Addr { obj, offset: 0 },
                value,
                ty: scalar,
            });
        }
        self.l.bind(
            name.to_string(),
            Symbol::Slot {
                obj,
                ty: ty.clone(),
            },
        );
        Ok(())
    }

    /// A declaration inside a function body.
    pub fn local_declaration(&mut self, d: &Node<ast::Declaration>) -> LResult<()> {
        self.at(d.span);
        let info = self.l.decl_specifiers(&d.node.specifiers, d.span)?;
        for id in &d.node.declarators {
            self.at(id.span);
            if let Some((name, size)) = vla_size(self.l, &id.node.declarator)? {
                if info.is_static || info.typedef {
                    return self
                        .l
                        .unsupported(id.span, "static or typedef variable-length array");
                }
                self.vla_local(&name, info.ty.clone(), size, id)?;
                continue;
            }
            let (name, ty) = self.l.declarator(info.ty.clone(), &id.node.declarator)?;
            let Some(name) = name else { continue };
            if info.typedef {
                self.l.bind(name, Symbol::Typedef(ty));
                continue;
            }
            if let CType::Func(f) = &ty {
                let span = self.span;
                let fid = self.l.declare_function(&name, f, span);
                self.l.note_read_only_params(fid, &id.node.declarator)?;
                let fty = CType::Func(f.clone());
                self.l.bind(name, Symbol::Function { id: fid, ty: fty });
                continue;
            }
            if info.is_extern {
                match self.l.scopes[0].names.get(&name).cloned() {
                    Some(sym @ Symbol::Object { .. }) => self.l.bind(name, sym),
                    _ => {
                        let span = self.span;
                        let obj = self
                            .l
                            .new_object(name.clone(), ObjectKind::Global, &ty, span);
                        self.l.scopes[0].names.insert(
                            name.clone(),
                            Symbol::Object {
                                obj,
                                ty: ty.clone(),
                            },
                        );
                        self.l.bind(name, Symbol::Object { obj, ty });
                    }
                }
                continue;
            }
            let thread_local = info.thread_local || self.l.blanked_thread_local(d.span, id.span);
            if info.is_static || thread_local {
                self.static_local(&name, ty, thread_local, id)?;
                continue;
            }
            self.auto_local(&name, ty, id)?;
        }
        Ok(())
    }

    /// `T name[n]` with a run-time `n`: the array is allocated when the declaration runs
    /// and `name` is a register holding its address. `sizeof name` is rejected.
    pub(super) fn vla_local(
        &mut self,
        name: &str,
        elem: CType,
        size: &Node<ast::Expression>,
        id: &Node<ast::InitDeclarator>,
    ) -> LResult<()> {
        if id.node.initializer.is_some() {
            return self
                .l
                .invalid(id.span, "variable-length array with an initializer");
        }
        let esize = self.l.size_of(&elem, id.span)?;
        let n = self.rvalue(size)?;
        let st = self.l.layout().size_t();
        let n = self.convert(n, &st, size.span)?;
        let s = st.scalar().expect("size_t");
        let bytes = self.assign_tmp(
            s,
            Rvalue::Binary {
                op: BinOp::Mul,
                ty: s,
                lhs: n,
                rhs: Operand::int(i128::from(esize), s),
            },
        );
        let reg = self.new_reg(Some(name.to_string()), Scalar::Ptr);
        self.emit(StmtKind::Alloc {
            dst: reg,
            size: bytes,
            zeroed: false,
        });
        self.l.bind(
            name.to_string(),
            Symbol::Vla {
                reg,
                ty: CType::Array(Box::new(elem), None),
            },
        );
        Ok(())
    }

    pub(super) fn static_local(
        &mut self,
        name: &str,
        ty: CType,
        thread_local: bool,
        id: &Node<ast::InitDeclarator>,
    ) -> LResult<()> {
        let kind = if thread_local {
            ObjectKind::ThreadLocal
        } else {
            ObjectKind::Global
        };
        let span = self.span;
        let full = format!("{}.{name}", self.name);
        let (ty, cells) = match &id.node.initializer {
            Some(init) => init::static_initializer(self.l, &ty, init)?,
            None => (ty, Vec::new()),
        };
        let obj = self.l.new_object(full, kind, &ty, span);
        self.l.objects[obj.index()].init = cells;
        self.l.bind(name.to_string(), Symbol::Object { obj, ty });
        Ok(())
    }

    pub(super) fn auto_local(
        &mut self,
        name: &str,
        ty: CType,
        id: &Node<ast::InitDeclarator>,
    ) -> LResult<()> {
        if let CType::Float(128) = ty {
            return self.l.unsupported(id.span, "`long double` variable");
        }
        if ty.is_scalar() {
            // The name is in scope in its own initializer (`T *p = malloc(sizeof *p)`).
            let Some(init) = &id.node.initializer else {
                return self.declare_scalar_local(name, &ty, None, id.span, None);
            };
            let scalar = ty.scalar().expect("scalar local");
            if self.addr_taken.contains(name) {
                let obj = self.new_slot(name, &ty);
                self.l.bind(
                    name.to_string(),
                    Symbol::Slot {
                        obj,
                        ty: ty.clone(),
                    },
                );
            } else {
                let reg = self.new_reg(Some(name.to_string()), scalar);
                self.l.bind(
                    name.to_string(),
                    Symbol::Reg {
                        reg,
                        ty: ty.clone(),
                    },
                );
            }
            let value = self.scalar_initializer(&ty, init)?;
            let lv = self.local_lvalue(name, &ty);
            self.store(&lv, value);
            return Ok(());
        }
        // Aggregates live in a stack slot; the initializer zeroes every cell first, as C
        // does for members it does not name.
        let (ty, leaves) = match &id.node.initializer {
            Some(init) => {
                let (t, leaves) = init::walk(self.l, &ty, init)?;
                (t, Some(leaves))
            }
            None => (ty, None),
        };
        self.l.check_no_bitfield(&ty, id.span)?;
        if self.l.layout().size(&ty).is_none() {
            return self
                .l
                .invalid(id.span, format!("`{name}` has an incomplete type"));
        }
        let obj = self.new_slot(name, &ty);
        self.l.bind(
            name.to_string(),
            Symbol::Slot {
                obj,
                ty: ty.clone(),
            },
        );
        if let Some(leaves) = leaves {
            let base = Operand::Addr { obj, offset: 0 };
            self.zero_cells(&base, &ty);
            for leaf in leaves {
                let addr = self.offset_addr(&base, leaf.offset);
                match leaf.leaf {
                    Leaf::Byte(b) => self.emit(StmtKind::Store {
                        addr,
                        value: Operand::int(i128::from(b as i8), Scalar::I8),
                        ty: leaf.ty.scalar().unwrap_or(Scalar::I8),
                    }),
                    Leaf::Expr(e) => {
                        let v = self.rvalue(e)?;
                        let op = self.convert(v, &leaf.ty, e.span)?;
                        let scalar = leaf.ty.scalar().expect("scalar leaf");
                        self.emit(StmtKind::Store {
                            addr,
                            value: op,
                            ty: scalar,
                        });
                    }
                    Leaf::Aggregate(e) => {
                        let src = self.aggregate_address(e, &leaf.ty)?;
                        self.copy_aggregate(&addr, &src, &leaf.ty);
                    }
                }
            }
        }
        Ok(())
    }

    /// The place of a local just declared.
    pub(super) fn local_lvalue(&self, name: &str, ty: &CType) -> crate::lower::expr::LVal {
        let place = match self.l.lookup(name) {
            Some(Symbol::Reg { reg, .. }) => crate::lower::expr::Place::Reg(*reg),
            Some(Symbol::Slot { obj, .. }) => crate::lower::expr::Place::Mem(Operand::Addr {
                obj: *obj,
                offset: 0,
            }),
            _ => unreachable!("local `{name}` was just declared"),
        };
        crate::lower::expr::LVal {
            place,
            ty: ty.clone(),
        }
    }

    pub(super) fn scalar_initializer(
        &mut self,
        ty: &CType,
        init: &Node<ast::Initializer>,
    ) -> LResult<Operand> {
        let e = match &init.node {
            ast::Initializer::Expression(e) => &**e,
            ast::Initializer::List(items) => match items.as_slice() {
                [one] if one.node.designation.is_empty() => match &one.node.initializer.node {
                    ast::Initializer::Expression(e) => &**e,
                    _ => return self.l.invalid(init.span, "nested braces for a scalar"),
                },
                _ => return self.l.invalid(init.span, "invalid scalar initializer"),
            },
        };
        let v = self.rvalue(e)?;
        self.convert(v, ty, e.span)
    }
}

/// The size expression of a declarator `name[n]` whose `n` is not a constant.
fn vla_size<'a>(
    l: &mut Lowerer,
    d: &'a Node<ast::Declarator>,
) -> LResult<Option<(String, &'a Node<ast::Expression>)>> {
    let ([derived], ast::DeclaratorKind::Identifier(name)) =
        (d.node.derived.as_slice(), &d.node.kind.node)
    else {
        return Ok(None);
    };
    let ast::DerivedDeclarator::Array(a) = &derived.node else {
        return Ok(None);
    };
    match &a.node.size {
        ast::ArraySize::VariableExpression(e) if l.const_int(e)?.is_none() => {
            Ok(Some((name.node.name.clone(), &**e)))
        }
        _ => Ok(None),
    }
}
