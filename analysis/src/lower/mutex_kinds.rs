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

/// glibc's mutex types as `gcc -E` shows them, for tests of the kind-aware mutexes: the
/// unions, the type enum and `pthread_mutexattr_settype`.
#[cfg(test)]
pub(crate) const GLIBC_MUTEX_TYPES: &str =
    "typedef union { struct { int __lock; unsigned int __count; int __owner; \
     unsigned int __nusers; int __kind; } __data; long __align; } pthread_mutex_t;\n\
     typedef union { char __size[4]; int __align; } pthread_mutexattr_t;\n\
     enum { PTHREAD_MUTEX_TIMED_NP, PTHREAD_MUTEX_RECURSIVE_NP, \
     PTHREAD_MUTEX_NORMAL = PTHREAD_MUTEX_TIMED_NP, \
     PTHREAD_MUTEX_RECURSIVE = PTHREAD_MUTEX_RECURSIVE_NP };\n\
     int pthread_mutexattr_settype(pthread_mutexattr_t *a, int k);\n";

#[cfg(test)]
mod tests {
    use crate::frontend::parse_preprocessed;
    use crate::ir::*;

    /// `main` of `body` after glibc-like declarations, lowered.
    fn lower(body: &str) -> Program {
        let text = format!(
            "{}int pthread_mutex_lock(pthread_mutex_t *m);\n\
             int pthread_mutex_unlock(pthread_mutex_t *m);\n\
             pthread_mutexattr_t a; pthread_mutex_t m;\n\
             int main(void) {{ {body} pthread_mutex_lock(&m); return pthread_mutex_unlock(&m); }}",
            super::GLIBC_MUTEX_TYPES
        );
        let unit = parse_preprocessed(text, "t.c").expect("parses");
        crate::lower::lower(&unit, DataModel::Lp64).expect("lowers")
    }

    fn main_locks(p: &Program) -> usize {
        let main = p.function_named("main").expect("main");
        main.blocks
            .iter()
            .flat_map(|b| &b.stmts)
            .filter(|s| {
                matches!(
                    s.kind,
                    StmtKind::Sync {
                        op: SyncOp::MutexLock { .. },
                        ..
                    }
                )
            })
            .count()
    }

    #[test]
    fn a_normal_program_keeps_the_built_in_mutex() {
        for body in ["", "pthread_mutexattr_settype(&a, PTHREAD_MUTEX_NORMAL);"] {
            let p = lower(body);
            assert_eq!(main_locks(&p), 1, "{body}");
            assert!(p.function_named("__agx_mutex_lock").is_none(), "{body}");
        }
    }

    #[test]
    fn a_program_naming_a_recursive_mutex_calls_the_kind_aware_model() {
        let p = lower("pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);");
        assert_eq!(main_locks(&p), 0);
        let lock = p.function_named("__agx_mutex_lock").expect("linked");
        assert_eq!(p.files[lock.span.file.index()], "<agx-libc>/pthread.c");
        let asks_held = lock.blocks.iter().flat_map(|b| &b.stmts).any(|s| {
            matches!(
                s.kind,
                StmtKind::Assign {
                    value: Rvalue::MutexHeld(_),
                    ..
                }
            )
        });
        assert!(asks_held);
    }
}
