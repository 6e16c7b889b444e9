//! Variadic functions: `...` arguments, `va_start`/`va_arg`/`va_copy`/`va_end`.
//!
//! A call of a prototyped variadic function stores its extra arguments (after C's default
//! argument promotions) in a stack object of the caller made for that call site, and
//! passes the object's address as a hidden last argument (a 0-byte object when there
//! are none). Argument `i` takes 16 bytes: its value at `16 i` and, at `16 i + 8`, a tag naming
//! its promoted type ([`type_tag`]). A `va_list` is a cursor into that object: `va_start`
//! sets it to the hidden parameter, `va_arg(ap, T)` checks the tag, reads a `T` and moves
//! the cursor 16 bytes on. Everything is ordinary loads and stores, so both engines check
//! it as they check any memory access: reading past the last argument is an out-of-bounds
//! read of the area, and a `T` that is not the
//! argument's promoted type fails at the tag check (undefined behaviour in C, reported as
//! the violation `va_arg type mismatch`, a memory-safety/UB kind like division by zero,
//! instead of a silently wrong value).

use super::Val;
use crate::ir::*;
use crate::lower::func::FnBuilder;
use crate::lower::types::{promote, CType, Field, IntType, StructDef, StructId};
use crate::lower::LResult;
use lang_c::ast::*;
use lang_c::span::Node;

/// The bytes one variadic argument takes in the caller's area.
const SLOT: u64 = 16;
/// Where the tag sits within an argument's slot.
const TAG_AT: u64 = 8;

/// The tag of a promoted argument type: integers by width (C lets `va_arg` read a signed
/// argument as its unsigned counterpart), floats by width, every pointer alike.
pub(crate) fn type_tag(s: Scalar) -> i128 {
    match s {
        Scalar::Int { bits, .. } => i128::from(bits),
        Scalar::Float { bits } => 100 + i128::from(bits),
        Scalar::Ptr => 200,
    }
}

/// The type a variadic argument of type `ty` is passed as (default argument promotions).
pub(crate) fn promoted(ty: &CType) -> CType {
    match ty {
        CType::Int(it) => CType::Int(promote(*it)),
        CType::Float(32) => CType::Float(64),
        other => other.clone(),
    }
}

impl FnBuilder<'_, '_> {
    /// Evaluates the extra arguments of a variadic call into a fresh area of the caller;
    /// returns its address.
    pub(crate) fn variadic_area(&mut self, extras: &[Node<Expression>]) -> LResult<Operand> {
        let mut values = Vec::new();
        for a in extras {
            let v = self.rvalue(a)?;
            let ty = promoted(&v.ty);
            let scalar = match (&ty, ty.scalar()) {
                (CType::Float(128), _) => {
                    return self
                        .l
                        .unsupported(a.span, "`long double` argument to a variadic function")
                }
                (_, Some(s)) => s,
                (_, None) => {
                    return self
                        .l
                        .unsupported(a.span, "struct argument to a variadic function")
                }
            };
            let op = self.convert(v, &ty, a.span)?;
            values.push((op, ty, scalar));
        }
        // Made even when empty, so that reading an argument that was never passed is an
        // out-of-bounds read of this (0-byte) area.
        let area_ty = self.area_type(values.iter().map(|v| v.1.clone()).collect());
        let obj = self.new_slot("<va_args>", &area_ty);
        for (i, (op, _, scalar)) in values.into_iter().enumerate() {
            let at = SLOT * i as u64;
            self.emit(StmtKind::Store {
                addr: Operand::Addr { obj, offset: at },
                value: op,
                ty: scalar,
            });
            self.emit(StmtKind::Store {
                addr: Operand::Addr {
                    obj,
                    offset: at + TAG_AT,
                },
                value: Operand::int(type_tag(scalar), Scalar::I64),
                ty: Scalar::I64,
            });
        }
        Ok(Operand::Addr { obj, offset: 0 })
    }

    /// A struct type laying out one (value, tag) slot per argument type.
    fn area_type(&mut self, types: Vec<CType>) -> CType {
        // 64 bits in both data models (the stores write i64 tags).
        let tag_ty = CType::Int(IntType::new(64, true));
        let mut fields = Vec::new();
        for (i, ty) in types.into_iter().enumerate() {
            let at = SLOT * i as u64;
            fields.push(Field {
                name: Some(format!("arg{i}")),
                ty,
                offset: at,
            });
            fields.push(Field {
                name: Some(format!("tag{i}")),
                ty: tag_ty.clone(),
                offset: at + TAG_AT,
            });
        }
        let size = SLOT * (fields.len() as u64 / 2);
        self.l.structs.push(StructDef {
            tag: Some("<va_args>".into()),
            is_union: false,
            fields,
            size,
            align: 8,
            complete: true,
            bitfield: None,
        });
        CType::Struct(StructId(self.l.structs.len() - 1))
    }

    /// `va_start(ap, last)`: the cursor starts at the first extra argument.
    pub(crate) fn va_start(&mut self, c: &Node<CallExpression>) -> LResult<Val> {
        let Some(area) = self.va_area else {
            return self
                .l
                .invalid(c.span, "va_start in a function without `...` parameters");
        };
        let [ap, _last] = c.node.arguments.as_slice() else {
            return self.l.invalid(c.span, "va_start takes two arguments");
        };
        let lv = self.lvalue(ap)?;
        self.store(&lv, Operand::Reg(area));
        Ok(super::void())
    }

    /// `va_copy(dst, src)`: a second cursor at the same place.
    pub(crate) fn va_copy(&mut self, c: &Node<CallExpression>) -> LResult<Val> {
        let [dst, src] = c.node.arguments.as_slice() else {
            return self.l.invalid(c.span, "va_copy takes two arguments");
        };
        let v = self.rvalue(src)?;
        let lv = self.lvalue(dst)?;
        self.store(&lv, v.op);
        Ok(super::void())
    }

    /// `va_end(ap)`: nothing to release (the area belongs to the caller).
    pub(crate) fn va_end(&mut self, c: &Node<CallExpression>) -> LResult<Val> {
        let [ap] = c.node.arguments.as_slice() else {
            return self.l.invalid(c.span, "va_end takes one argument");
        };
        self.rvalue(ap)?;
        Ok(super::void())
    }

    /// A type name as the source writes it (without gcc's line markers), for messages.
    fn written_type(&self, tn: &Node<TypeName>, ty: &CType) -> String {
        let text = self.l.unit.source.get(tn.span.start..tn.span.end);
        match text {
            Some(t) => t
                .lines()
                .filter(|l| !l.trim_start().starts_with('#'))
                .flat_map(str::split_whitespace)
                .collect::<Vec<_>>()
                .join(" "),
            None => self.l.type_name(ty),
        }
    }

    /// `va_arg(ap, T)`: checks the next argument's tag, reads it, advances the cursor.
    pub(super) fn va_arg(&mut self, v: &Node<VaArgExpression>) -> LResult<Val> {
        let ty = self.l.type_name_type(&v.node.type_name)?;
        let span = v.span;
        if promoted(&ty) != ty {
            let name = self.written_type(&v.node.type_name, &ty);
            let as_passed = match promoted(&ty) {
                CType::Int(it) if !it.signed => "unsigned int",
                CType::Int(_) => "int",
                _ => "double",
            };
            return self.l.invalid(
                span,
                format!(
                    "va_arg with type `{name}`: a variadic argument of that type is passed as \
                     `{as_passed}` (undefined behaviour; read `{as_passed}`)"
                ),
            );
        }
        let scalar = match (&ty, ty.scalar()) {
            (CType::Float(128), _) => {
                return self.l.unsupported(span, "va_arg of `long double`");
            }
            (_, Some(s)) => s,
            (_, None) => return self.l.unsupported(span, "va_arg of a struct type"),
        };
        let lv = self.lvalue(&v.node.va_list)?;
        let cursor = self.load(lv.clone(), span)?.op;
        let tag_addr = self.offset_addr(&cursor, TAG_AT);
        let tag = self.new_reg(None, Scalar::I64);
        self.emit(StmtKind::Load {
            dst: tag,
            addr: tag_addr,
            ty: Scalar::I64,
        });
        let matches = self.assign_tmp(
            Scalar::I32,
            Rvalue::Binary {
                op: BinOp::Eq,
                ty: Scalar::I64,
                lhs: Operand::Reg(tag),
                rhs: Operand::int(type_tag(scalar), Scalar::I64),
            },
        );
        let ok = self.new_block();
        let fail = self.new_block();
        self.branch(matches, ok, fail);
        self.switch_to(fail);
        let expr = format!("va_arg(..., {})", self.written_type(&v.node.type_name, &ty));
        self.terminate(TermKind::Error(Failure::VaArgType { expr }));
        self.switch_to(ok);
        let dst = self.new_reg(None, scalar);
        self.emit(StmtKind::Load {
            dst,
            addr: cursor.clone(),
            ty: scalar,
        });
        let next = self.offset_addr(&cursor, SLOT);
        self.store(&lv, next);
        Ok(Val {
            op: Operand::Reg(dst),
            ty,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::parse_preprocessed;

    fn lower(src: &str) -> Program {
        let unit = parse_preprocessed(src.to_string(), "t.c").expect("parses");
        crate::lower::lower(&unit, DataModel::Lp64).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_variadic_call_passes_its_promoted_extras_in_a_caller_area() {
        let p = lower(
            "int f(int n, ...) { return n; }\n\
             int main() { char c = 1; float x = 2; return f(2, c, x); }",
        );
        let f = p.functions.iter().find(|f| f.name == "f").expect("f");
        assert!(f.variadic);
        assert_eq!(f.params.len(), 2, "n and the hidden area");
        let area = p
            .objects
            .iter()
            .find(|o| o.name == "main.<va_args>")
            .expect("area");
        let f64 = Scalar::Float { bits: 64 };
        assert_eq!(
            area.layout,
            vec![
                (0, Scalar::I32),
                (8, Scalar::I64),
                (16, f64),
                (24, Scalar::I64)
            ]
        );
        let calls: Vec<_> = p
            .functions
            .iter()
            .flat_map(|f| f.blocks.iter())
            .flat_map(|b| b.stmts.iter())
            .filter_map(|s| match &s.kind {
                StmtKind::Call { args, .. } => Some(args.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(calls.len(), 1);
        assert_eq!(
            calls[0][1],
            Operand::Addr {
                obj: area.id,
                offset: 0
            }
        );
    }

    #[test]
    fn va_arg_checks_the_tag_before_reading() {
        let p = lower(
            "int f(int n, ...) { __builtin_va_list ap; __builtin_va_start(ap, n);\n\
             double d = __builtin_va_arg(ap, double); __builtin_va_end(ap); return d; }\n\
             int main() { return f(1, 2.0); }",
        );
        let f = p.functions.iter().find(|f| f.name == "f").expect("f");
        let fails = f
            .blocks
            .iter()
            .filter(|b| matches!(&b.term.kind, TermKind::Error(Failure::VaArgType { expr }) if expr.contains("double")))
            .count();
        assert_eq!(fails, 1);
    }

    #[test]
    fn promotions_widen_small_integers_and_floats_only() {
        let char_ty = CType::Int(crate::lower::types::IntType::CHAR);
        assert_eq!(promoted(&char_ty), CType::int());
        assert_eq!(promoted(&CType::Float(32)), CType::Float(64));
        assert_eq!(promoted(&CType::Float(64)), CType::Float(64));
        let p = CType::ptr_to(CType::Void);
        assert_eq!(promoted(&p), p);
    }

    #[test]
    fn tags_tell_widths_and_kinds_apart_but_not_signedness() {
        assert_ne!(type_tag(Scalar::I32), type_tag(Scalar::I64));
        assert_ne!(type_tag(Scalar::I64), type_tag(Scalar::Ptr));
        assert_ne!(type_tag(Scalar::I64), type_tag(Scalar::Float { bits: 64 }));
        assert_eq!(
            type_tag(Scalar::Int {
                bits: 32,
                signed: false
            }),
            type_tag(Scalar::I32)
        );
    }
}
