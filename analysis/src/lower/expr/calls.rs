//! Calls: arguments converted to the parameter types, scalar and struct results.

use super::{void, CallResult, Val};
use crate::ir::*;
use crate::lower::func::FnBuilder;
use crate::lower::types::{promote, CType};
use crate::lower::{LResult, Symbol};
use lang_c::ast::*;
use lang_c::span::{Node, Span as AstSpan};

impl FnBuilder<'_, '_> {
    /// A call: a built-in (pthread, `__VERIFIER_*`, libc) or a call of a C function.
    pub(super) fn call(&mut self, c: &Node<CallExpression>) -> LResult<Val> {
        match self.call_inner(c)? {
            CallResult::Value(v) => Ok(v),
            CallResult::Aggregate(_) => self
                .l
                .unsupported(c.span, "struct value in this context (use a pointer)"),
        }
    }

    /// A call; a struct result is written to a fresh stack object of the caller whose
    /// address is passed as the hidden first argument.
    pub(super) fn call_inner(&mut self, c: &Node<CallExpression>) -> LResult<CallResult> {
        if let Expression::Identifier(id) = &c.node.callee.node {
            let name = id.node.name.as_str();
            let user_defined = matches!(
                self.l.lookup(name),
                Some(Symbol::Function { id, .. }) if self.l.functions[id.index()].defined
            );
            if let Some(v) = self.builtin_call(name, c, user_defined)? {
                return Ok(CallResult::Value(v));
            }
            if self.l.lookup(name).is_none() {
                // C89 implicit declaration: `int name()`.
                let fty = crate::lower::types::FuncType {
                    ret: CType::int(),
                    params: Vec::new(),
                    variadic: false,
                    prototyped: false,
                };
                let span = self.span;
                self.l.declare_function(name, &fty, span);
                self.l.warn_once(
                    &format!("implicit:{name}"),
                    id.span,
                    format!("implicit declaration of function `{name}`"),
                );
            }
        }
        let callee = self.rvalue(&c.node.callee)?;
        let Some(fty) = callee.ty.as_func().cloned() else {
            return self.l.invalid(c.span, "call of a non-function");
        };
        let mut args = self.call_args(&fty, &c.node.arguments, c.span)?;
        self.at(c.span);
        let result = match &fty.ret {
            CType::Struct(_) => {
                let obj = self.new_slot("<result>", &fty.ret);
                args.insert(0, Operand::Addr { obj, offset: 0 });
                Some(obj)
            }
            _ => None,
        };
        let dst = fty.ret.scalar().map(|s| self.new_reg(None, s));
        let callee = match callee.op {
            Operand::Func(id) => Callee::Direct(id),
            other => Callee::Indirect(other),
        };
        self.emit(StmtKind::Call { dst, callee, args });
        Ok(match (dst, result) {
            (_, Some(obj)) => CallResult::Aggregate(Operand::Addr { obj, offset: 0 }),
            (Some(r), None) => CallResult::Value(Val {
                op: Operand::Reg(r),
                ty: fty.ret,
            }),
            (None, None) => CallResult::Value(void()),
        })
    }

    /// Evaluates arguments left to right, converted to the parameter types (default
    /// argument promotions for unprototyped and variadic arguments).
    pub fn call_args(
        &mut self,
        fty: &crate::lower::types::FuncType,
        args: &[Node<Expression>],
        span: AstSpan,
    ) -> LResult<Vec<Operand>> {
        if fty.prototyped && !fty.variadic && args.len() != fty.params.len() {
            return self.l.invalid(
                span,
                format!(
                    "call with {} arguments, expected {}",
                    args.len(),
                    fty.params.len()
                ),
            );
        }
        let variadic = fty.prototyped && fty.variadic;
        if variadic && args.len() < fty.params.len() {
            return self.l.invalid(
                span,
                format!(
                    "call with {} arguments, expected at least {}",
                    args.len(),
                    fty.params.len()
                ),
            );
        }
        let (fixed, extras) = args.split_at(if variadic {
            fty.params.len()
        } else {
            args.len()
        });
        let mut out = Vec::new();
        for (i, a) in fixed.iter().enumerate() {
            let declared = fty.params.get(i).filter(|_| fty.prototyped).cloned();
            // A struct argument is passed as the address of the caller's object; the
            // callee copies it (see `FnBuilder::body`).
            let arg_ty = match &declared {
                Some(t) => t.clone(),
                None => self.l.expr_type(a)?.decay(),
            };
            if matches!(arg_ty, CType::Struct(_)) {
                out.push(self.aggregate_address(a, &arg_ty)?);
                continue;
            }
            let v = self.rvalue(a)?;
            let ty = match (declared, &v.ty) {
                (Some(t), _) => t,
                // Default argument promotions.
                (None, CType::Int(it)) => CType::Int(promote(*it)),
                (None, other) => other.clone(),
            };
            out.push(self.convert(v, &ty, a.span)?);
        }
        if variadic {
            // The extra arguments travel in an area of the caller (see `varargs`).
            out.push(self.variadic_area(extras)?);
        }
        Ok(out)
    }
}
