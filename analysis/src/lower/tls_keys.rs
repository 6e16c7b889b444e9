//! `pthread_key_create`, `pthread_setspecific` and `pthread_getspecific`, lowered to
//! ordinary memory: no new IR construct.
//!
//! Two objects stand for glibc's key table, created when a program first uses a key:
//! - `<pthread_keys.count>`, a global `unsigned int`: how many keys exist. Keys are
//!   numbered `0, 1, ...` in creation order and never reused (`pthread_key_delete` is
//!   rejected), so the keys in use are exactly those below the count.
//! - `<pthread_keys.values>`, a thread-local `void *[PTHREAD_KEYS_MAX]`: each thread's
//!   value of each key, NULL in a new thread as POSIX requires.
//!
//! ```text
//! pthread_key_create(k, NULL):  atomic { c = count;
//!                                        if c < KEYS_MAX { count = c + 1; *k = c; r = 0 }
//!                                        else r = EAGAIN }
//! pthread_setspecific(k, v):    if k < count { values[k] = v; r = 0 } else r = EINVAL
//! pthread_getspecific(k):       k < KEYS_MAX ? values[k] : NULL
//! ```
//!
//! These are glibc's results: `EAGAIN` once the table is full, `EINVAL` for a key not
//! created, NULL from `getspecific` of an invalid key (an entry of a key not yet created
//! is never written, so it reads NULL as well). A destructor (second argument of
//! `pthread_key_create`) would run at thread exit, which agx does not model: a non-null
//! destructor is rejected as unsupported.

use super::expr::Val;
use super::func::FnBuilder;
use super::types::{promote, CType, IntType};
use super::LResult;
use crate::ir::*;
use lang_c::ast::*;
use lang_c::span::Node;

/// glibc's `PTHREAD_KEYS_MAX`.
const KEYS_MAX: i128 = 1024;
/// glibc's `EAGAIN` and `EINVAL`.
const EAGAIN: i128 = 11;
const EINVAL: i128 = 22;

/// `pthread_key_t` is `unsigned int` in glibc under both data models.
const KEY: Scalar = Scalar::U32;

/// The objects of the key table (see the module documentation).
#[derive(Clone, Copy, Debug)]
pub(crate) struct KeyTable {
    count: ObjId,
    values: ObjId,
}

impl FnBuilder<'_, '_> {
    /// Lowers a call of the pthread key functions; `None` for any other name.
    pub fn tls_key_call(&mut self, name: &str, c: &Node<CallExpression>) -> LResult<Option<Val>> {
        Ok(Some(match name {
            "pthread_key_create" => self.key_create(c)?,
            "pthread_setspecific" => self.set_specific(c)?,
            "pthread_getspecific" => Val {
                op: self.get_specific(c)?,
                ty: CType::ptr_to(CType::Void),
            },
            _ => return Ok(None),
        }))
    }

    fn key_table(&mut self) -> KeyTable {
        if let Some(t) = self.l.key_table {
            return t;
        }
        let span = self.span;
        let count = self.l.new_object(
            "<pthread_keys.count>".into(),
            ObjectKind::Global,
            &CType::Int(IntType::new(32, false)),
            span,
        );
        let values_ty = CType::Array(Box::new(CType::ptr_to(CType::Void)), Some(KEYS_MAX as u64));
        let values = self.l.new_object(
            "<pthread_keys.values>".into(),
            ObjectKind::ThreadLocal,
            &values_ty,
            span,
        );
        let t = KeyTable { count, values };
        self.l.key_table = Some(t);
        t
    }

    /// `pthread_key_create(key, destructor)`.
    fn key_create(&mut self, c: &Node<CallExpression>) -> LResult<Val> {
        let [key_ptr, destructor] = self.args_n::<2>("pthread_key_create", c)?;
        if !matches!(destructor, Operand::Null | Operand::Int { bits: 0, .. }) {
            return self.l.unsupported(
                c.node.arguments[1].span,
                "`pthread_key_create` with a destructor (destructors run at thread exit, which agx does not model)",
            );
        }
        let table = self.key_table();
        let count = Operand::Addr {
            obj: table.count,
            offset: 0,
        };
        let result = self.new_reg(None, Scalar::I32);
        self.emit(StmtKind::Sync {
            dst: None,
            op: SyncOp::AtomicBegin,
        });
        let n = self.new_reg(None, KEY);
        self.emit(StmtKind::Load {
            dst: n,
            addr: count.clone(),
            ty: KEY,
        });
        let room = self.compare(BinOp::Lt, Operand::Reg(n), Operand::int(KEYS_MAX, KEY));
        self.if_else(
            room,
            |b| {
                let next = b.assign_tmp(
                    KEY,
                    Rvalue::Binary {
                        op: BinOp::Add,
                        ty: KEY,
                        lhs: Operand::Reg(n),
                        rhs: Operand::int(1, KEY),
                    },
                );
                b.emit(StmtKind::Store {
                    addr: count,
                    value: next,
                    ty: KEY,
                });
                b.emit(StmtKind::Store {
                    addr: key_ptr,
                    value: Operand::Reg(n),
                    ty: KEY,
                });
                b.set_result(result, 0);
            },
            |b| b.set_result(result, EAGAIN),
        );
        self.emit(StmtKind::Sync {
            dst: None,
            op: SyncOp::AtomicEnd,
        });
        Ok(int_val(result))
    }

    /// `pthread_setspecific(key, value)`.
    fn set_specific(&mut self, c: &Node<CallExpression>) -> LResult<Val> {
        let [key, value] = self.args_n::<2>("pthread_setspecific", c)?;
        let key = self.key_operand(key, c)?;
        let table = self.key_table();
        let n = self.new_reg(None, KEY);
        self.emit(StmtKind::Load {
            dst: n,
            addr: Operand::Addr {
                obj: table.count,
                offset: 0,
            },
            ty: KEY,
        });
        let created = self.compare(BinOp::Lt, key.clone(), Operand::Reg(n));
        let result = self.new_reg(None, Scalar::I32);
        self.if_else(
            created,
            |b| {
                let slot = b.value_slot(table, key);
                b.emit(StmtKind::Store {
                    addr: slot,
                    value,
                    ty: Scalar::Ptr,
                });
                b.set_result(result, 0);
            },
            |b| b.set_result(result, EINVAL),
        );
        Ok(int_val(result))
    }

    /// `pthread_getspecific(key)`: the calling thread's value of `key`.
    fn get_specific(&mut self, c: &Node<CallExpression>) -> LResult<Operand> {
        let [key] = self.args_n::<1>("pthread_getspecific", c)?;
        let key = self.key_operand(key, c)?;
        let table = self.key_table();
        let in_table = self.compare(BinOp::Lt, key.clone(), Operand::int(KEYS_MAX, KEY));
        let result = self.new_reg(None, Scalar::Ptr);
        self.if_else(
            in_table,
            |b| {
                let slot = b.value_slot(table, key);
                b.emit(StmtKind::Load {
                    dst: result,
                    addr: slot,
                    ty: Scalar::Ptr,
                });
            },
            |b| {
                b.emit(StmtKind::Assign {
                    dst: result,
                    value: Rvalue::Use(Operand::Null),
                })
            },
        );
        Ok(Operand::Reg(result))
    }

    /// A key argument (as `args_n` evaluated it: promoted) converted to `pthread_key_t`.
    fn key_operand(&mut self, key: Operand, c: &Node<CallExpression>) -> LResult<Operand> {
        let arg = &c.node.arguments[0];
        let CType::Int(it) = self.l.expr_type(arg)? else {
            return self
                .l
                .invalid(arg.span, "a pthread key that is not an integer");
        };
        let promoted = promote(it);
        let from = Scalar::Int {
            bits: promoted.bits,
            signed: promoted.signed,
        };
        Ok(if from == KEY {
            key
        } else {
            self.assign_tmp(
                KEY,
                Rvalue::Cast {
                    from,
                    to: KEY,
                    arg: key,
                },
            )
        })
    }

    /// The address of the calling thread's value of `key` (below `KEYS_MAX`).
    fn value_slot(&mut self, table: KeyTable, key: Operand) -> Operand {
        let index = self.assign_tmp(
            Scalar::I64,
            Rvalue::Cast {
                from: KEY,
                to: Scalar::I64,
                arg: key,
            },
        );
        self.assign_tmp(
            Scalar::Ptr,
            Rvalue::PtrAdd {
                base: Operand::Addr {
                    obj: table.values,
                    offset: 0,
                },
                index,
                index_ty: Scalar::I64,
                scale: self.l.dm.pointer_bytes(),
            },
        )
    }

    /// `lhs op rhs` on keys (unsigned), as an `int` 0 or 1.
    fn compare(&mut self, op: BinOp, lhs: Operand, rhs: Operand) -> Operand {
        self.assign_tmp(
            Scalar::I32,
            Rvalue::Binary {
                op,
                ty: KEY,
                lhs,
                rhs,
            },
        )
    }

    /// `if cond { then } else { otherwise }`, continuing in the block after both; the
    /// three blocks are created (and so numbered) then, else, join.
    fn if_else(
        &mut self,
        cond: Operand,
        then: impl FnOnce(&mut Self),
        otherwise: impl FnOnce(&mut Self),
    ) {
        let (then_bb, else_bb, done) = (self.new_block(), self.new_block(), self.new_block());
        self.branch(cond, then_bb, else_bb);
        self.switch_to(then_bb);
        then(self);
        self.goto(done);
        self.switch_to(else_bb);
        otherwise(self);
        self.goto_and_switch(done);
    }

    fn set_result(&mut self, result: RegId, value: i128) {
        self.emit(StmtKind::Assign {
            dst: result,
            value: Rvalue::Use(Operand::int(value, Scalar::I32)),
        });
    }
}

fn int_val(r: RegId) -> Val {
    Val {
        op: Operand::Reg(r),
        ty: CType::int(),
    }
}
