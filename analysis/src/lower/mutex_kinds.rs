//! Recursive and error-checking mutexes. agx's engines have one kind of mutex, the
//! normal one (a relock by the holder, or an unlock by another thread, is lock misuse).
//! A program that may use other types (decided when the C model is linked, see
//! [`crate::frontend::libc::MUTEX_KINDS`]) has its mutex calls sent to the model's
//! kind-aware functions (`analysis/libc/pthread.c`), written over the engines' normal
//! mutexes and [`Rvalue::MutexHeld`]; every other program lowers them to the built-in
//! sync operations as before, and pays nothing.

use super::expr::Val;
use super::func::FnBuilder;
use super::types::CType;
use super::LResult;
use crate::frontend::libc::MUTEX_KINDS;
use crate::ir::*;
use lang_c::ast::*;
use lang_c::span::Node;

/// The program's mutex functions the model replaces, with the model function and
/// whether the second argument is an `int` (a type) rather than a pointer. The other
/// mutex functions (`pthread_mutex_destroy`, `pthread_mutexattr_destroy`) need no type.
const ROUTED: &[(&str, &str, usize)] = &[
    ("pthread_mutex_init", "__agx_mutex_init", 2),
    ("pthread_mutex_lock", "__agx_mutex_lock", 1),
    ("pthread_mutex_trylock", "__agx_mutex_trylock", 1),
    ("pthread_mutex_unlock", "__agx_mutex_unlock", 1),
    ("pthread_cond_wait", "__agx_cond_wait", 2),
    ("pthread_mutexattr_init", "__agx_mutexattr_init", 1),
    ("pthread_mutexattr_settype", "__agx_mutexattr_settype", 2),
    ("pthread_mutexattr_gettype", "__agx_mutexattr_gettype", 2),
];

impl FnBuilder<'_, '_> {
    /// `name(args)` as a call of the model's kind-aware version, if the program uses
    /// mutex types and `name` is one of the functions they change.
    pub(super) fn mutex_kind_call(
        &mut self,
        name: &str,
        c: &Node<CallExpression>,
    ) -> LResult<Option<Val>> {
        if !self.l.unit.linked.contains(MUTEX_KINDS) {
            return Ok(None);
        }
        let Some(&(_, model, arity)) = ROUTED.iter().find(|(n, _, _)| *n == name) else {
            return Ok(None);
        };
        let void_ptr = CType::ptr_to(CType::Void);
        let (params, args) = if arity == 1 {
            let [a] = self.args_n::<1>(name, c)?;
            (vec![void_ptr], vec![a])
        } else {
            let [a, b] = self.args_n::<2>(name, c)?;
            let second = if name == "pthread_mutexattr_settype" {
                CType::int()
            } else {
                void_ptr.clone()
            };
            (vec![void_ptr, second], vec![a, b])
        };
        let op = self.call_model(model, CType::int(), params, args);
        Ok(Some(Val {
            op,
            ty: CType::int(),
        }))
    }

    /// `__agx_mutex_held(m)`, the model's question "does this thread hold `m`?".
    pub(super) fn mutex_held(&mut self, c: &Node<CallExpression>) -> LResult<Val> {
        let [m] = self.args_n::<1>("__agx_mutex_held", c)?;
        let dst = self.new_reg(None, Scalar::I32);
        self.emit(StmtKind::Assign {
            dst,
            value: Rvalue::MutexHeld(m),
        });
        Ok(Val {
            op: Operand::Reg(dst),
            ty: CType::int(),
        })
    }
}
