//! GCC's atomic builtins, `__sync_*` and `__atomic_*` (what `<stdatomic.h>`'s functions
//! and most lock-free C code compile to), lowered to atomic sections: each call is
//! `AtomicBegin`, the loads, the arithmetic and the stores of its effect on `*p`, then
//! `AtomicEnd`, so both engines run it as one indivisible step.
//!
//! *Semantics.* agx explores sequentially consistent interleavings, so every memory
//! order is taken as `__ATOMIC_SEQ_CST` (the order arguments are evaluated and ignored).
//! For the race check an atomic builtin's accesses are atomic: they never race with each
//! other, and race with an unordered plain access of the same cell, as C11 says. Atomic
//! sections order each other like one global lock, which is what `seq_cst` operations
//! and fences give; a program that relies on relaxed atomics *not* ordering its plain
//! accesses is checked under this stronger order (a race only relaxed atomics allow is
//! missed: documented, not silent — the README says atomics are sequentially
//! consistent). Arithmetic wraps (GCC defines it in two's complement), so it is done in
//! the unsigned type of the cell's width; pointer cells support the exchanges, loads,
//! stores and compare-and-swaps, and reject the arithmetic builtins.

use super::builtins::void_val;
use super::expr::Val;
use super::func::FnBuilder;
use super::memfns::bin;
use super::types::CType;
use super::LResult;
use crate::ir::*;
use lang_c::ast::*;
use lang_c::span::Node;

/// The read-modify-write operations of the fetch builtins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rmw {
    Add,
    Sub,
    And,
    Or,
    Xor,
    Nand,
}

impl Rmw {
    fn named(s: &str) -> Option<Rmw> {
        Some(match s {
            "add" => Rmw::Add,
            "sub" => Rmw::Sub,
            "and" => Rmw::And,
            "or" => Rmw::Or,
            "xor" => Rmw::Xor,
            "nand" => Rmw::Nand,
            _ => return None,
        })
    }
}

/// One builtin, by what it does to `*p` and what it returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Builtin {
    /// `*p = *p op v`; returns the old value (`fetch_first`) or the new one. `orders`:
    /// the trailing memory-order arguments (0 for `__sync_*`, 1 for `__atomic_*`).
    Rmw {
        op: Rmw,
        fetch_first: bool,
        orders: usize,
    },
    /// `__sync_bool_compare_and_swap(p, old, new)` (`bool_result`) or
    /// `__sync_val_compare_and_swap(p, old, new)`.
    SyncCas { bool_result: bool },
    /// `__atomic_compare_exchange_n(p, expected, desired, weak, success, failure)`.
    AtomicCas,
    /// `*p = v`, returning the old value: `__sync_lock_test_and_set(p, v)`,
    /// `__atomic_exchange_n(p, v, order)`.
    Exchange { orders: usize },
    /// `__atomic_load_n(p, order)`.
    Load,
    /// `__atomic_store_n(p, v, order)`; `__sync_lock_release(p)` stores 0.
    Store { zero: bool, orders: usize },
    /// `__atomic_test_and_set(p, order)`: sets the byte, returns whether it was set.
    TestAndSet,
    /// `__atomic_clear(p, order)`: clears the byte.
    Clear,
    /// `__sync_synchronize()`, `__atomic_thread_fence(order)`,
    /// `__atomic_signal_fence(order)`: an empty atomic section (a full barrier).
    Fence { orders: usize },
}

impl Builtin {
    fn named(name: &str) -> Option<Builtin> {
        if let Some(rest) = name.strip_prefix("__sync_") {
            if let Some(rmw) = Builtin::rmw_named(rest, "fetch_and_", "_and_fetch", 0) {
                return Some(rmw);
            }
            return Some(match rest {
                "bool_compare_and_swap" => Builtin::SyncCas { bool_result: true },
                "val_compare_and_swap" => Builtin::SyncCas { bool_result: false },
                "lock_test_and_set" => Builtin::Exchange { orders: 0 },
                "lock_release" => Builtin::Store {
                    zero: true,
                    orders: 0,
                },
                "synchronize" => Builtin::Fence { orders: 0 },
                _ => return None,
            });
        }
        let rest = name.strip_prefix("__atomic_")?;
        if let Some(rmw) = Builtin::rmw_named(rest, "fetch_", "_fetch", 1) {
            return Some(rmw);
        }
        Some(match rest {
            "compare_exchange_n" => Builtin::AtomicCas,
            "exchange_n" => Builtin::Exchange { orders: 1 },
            "load_n" => Builtin::Load,
            "store_n" => Builtin::Store {
                zero: false,
                orders: 1,
            },
            "test_and_set" => Builtin::TestAndSet,
            "clear" => Builtin::Clear,
            "thread_fence" | "signal_fence" => Builtin::Fence { orders: 1 },
            _ => return None,
        })
    }

    /// `{fetch}OP` (the old value) or `OP{then}` (the new one), after the family's prefix.
    fn rmw_named(rest: &str, fetch: &str, then: &str, orders: usize) -> Option<Builtin> {
        let (op, fetch_first) = match rest.strip_prefix(fetch) {
            Some(op) => (op, true),
            None => (rest.strip_suffix(then)?, false),
        };
        Some(Builtin::Rmw {
            op: Rmw::named(op)?,
            fetch_first,
            orders,
        })
    }

    /// How many arguments the call takes.
    fn arity(self) -> usize {
        match self {
            Builtin::Rmw { orders, .. } => 2 + orders,
            Builtin::SyncCas { .. } => 3,
            Builtin::AtomicCas => 6,
            Builtin::Exchange { orders } => 2 + orders,
            Builtin::Load | Builtin::TestAndSet | Builtin::Clear => 2,
            Builtin::Store { zero, orders } => usize::from(!zero) + 1 + orders,
            Builtin::Fence { orders } => orders,
        }
    }
}

impl FnBuilder<'_, '_> {
    /// Lowers `name(args)` if `name` is a GCC atomic builtin; `None` otherwise.
    pub(super) fn atomic_builtin(
        &mut self,
        name: &str,
        c: &Node<CallExpression>,
    ) -> LResult<Option<Val>> {
        let Some(builtin) = Builtin::named(name) else {
            return Ok(None);
        };
        self.check_arity(name, c, builtin.arity())?;
        let args = &c.node.arguments;
        // Every argument is evaluated (left to right) before the section opens: they
        // are the caller's expressions, with effects of their own.
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(self.rvalue(a)?);
        }
        self.at(c.span);
        if let Builtin::Fence { .. } = builtin {
            self.section(|_| Ok(()))?;
            return Ok(Some(void_val()));
        }
        let (ptr, elem) = self.cell_pointer(name, &vals[0], c)?;
        let scalar = match elem.scalar() {
            Some(s @ (Scalar::Int { .. } | Scalar::Ptr)) => s,
            _ => {
                return self.l.unsupported(
                    c.span,
                    format!("`{name}` on a cell that is not an integer or a pointer"),
                )
            }
        };
        let result = match builtin {
            Builtin::Rmw {
                op, fetch_first, ..
            } => {
                if scalar == Scalar::Ptr {
                    return self
                        .l
                        .unsupported(c.span, format!("`{name}` on a pointer cell"));
                }
                let v = self.convert(vals[1].clone(), &elem, c.span)?;
                let (old, new) = self.section(|b| {
                    let old = b.load_cell(&ptr, scalar);
                    let new = b.rmw(op, scalar, old.clone(), v);
                    b.store_cell(&ptr, scalar, new.clone());
                    Ok((old, new))
                })?;
                typed(if fetch_first { old } else { new }, &elem)
            }
            Builtin::Exchange { .. } => {
                let v = self.convert(vals[1].clone(), &elem, c.span)?;
                let old = self.section(|b| {
                    let old = b.load_cell(&ptr, scalar);
                    b.store_cell(&ptr, scalar, v);
                    Ok(old)
                })?;
                typed(old, &elem)
            }
            Builtin::Load => {
                let old = self.section(|b| Ok(b.load_cell(&ptr, scalar)))?;
                typed(old, &elem)
            }
            Builtin::Store { zero, .. } => {
                let v = if zero {
                    Operand::int(0, scalar)
                } else {
                    self.convert(vals[1].clone(), &elem, c.span)?
                };
                self.section(|b| {
                    b.store_cell(&ptr, scalar, v);
                    Ok(())
                })?;
                void_val()
            }
            Builtin::SyncCas { bool_result } => {
                let expected = self.convert(vals[1].clone(), &elem, c.span)?;
                let desired = self.convert(vals[2].clone(), &elem, c.span)?;
                let (old, swapped) = self.section(|b| {
                    let old = b.load_cell(&ptr, scalar);
                    let swapped = b.equal(scalar, old.clone(), expected);
                    b.when(swapped.clone(), |b| b.store_cell(&ptr, scalar, desired));
                    Ok((old, swapped))
                })?;
                if bool_result {
                    Val {
                        op: swapped,
                        ty: CType::int(),
                    }
                } else {
                    typed(old, &elem)
                }
            }
            Builtin::AtomicCas => {
                let (exp_ptr, exp_elem) = self.cell_pointer(name, &vals[1], c)?;
                if exp_elem.scalar() != Some(scalar) {
                    return self.l.unsupported(
                        c.span,
                        format!("`{name}` whose expected value has another type than the cell"),
                    );
                }
                let desired = self.convert(vals[2].clone(), &elem, c.span)?;
                let swapped = self.section(|b| {
                    let old = b.load_cell(&ptr, scalar);
                    let expected = b.load_cell(&exp_ptr, scalar);
                    let swapped = b.equal(scalar, old.clone(), expected);
                    let (yes, no, join) = (b.new_block(), b.new_block(), b.new_block());
                    b.branch(swapped.clone(), yes, no);
                    b.switch_to(yes);
                    b.store_cell(&ptr, scalar, desired);
                    b.goto_and_switch(join);
                    b.switch_to(no);
                    b.store_cell(&exp_ptr, scalar, old);
                    b.goto_and_switch(join);
                    Ok(swapped)
                })?;
                Val {
                    op: swapped,
                    ty: CType::int(),
                }
            }
            Builtin::TestAndSet | Builtin::Clear => {
                // GCC's byte-sized flag: the cell's first byte, whatever `p` points to.
                let set = builtin == Builtin::TestAndSet;
                let was = self.section(|b| {
                    let was = set.then(|| b.load_cell(&ptr, Scalar::U8));
                    b.store_cell(&ptr, Scalar::U8, Operand::int(i128::from(set), Scalar::U8));
                    Ok(was)
                })?;
                match was {
                    Some(old) => {
                        let zero = Operand::int(0, Scalar::U8);
                        let ne =
                            self.assign_tmp(Scalar::I32, bin(BinOp::Ne, Scalar::U8, old, zero));
                        Val {
                            op: ne,
                            ty: CType::int(),
                        }
                    }
                    None => void_val(),
                }
            }
            Builtin::Fence { .. } => unreachable!("handled above"),
        };
        Ok(Some(result))
    }

    /// The pointer argument of an atomic builtin and the type it points to.
    fn cell_pointer(
        &mut self,
        name: &str,
        v: &Val,
        c: &Node<CallExpression>,
    ) -> LResult<(Operand, CType)> {
        match &v.ty {
            CType::Ptr(elem) => Ok((v.op.clone(), (**elem).clone())),
            _ => self.l.invalid(
                c.span,
                format!("`{name}` needs a pointer to the atomic object"),
            ),
        }
    }

    /// Runs `body` inside an atomic section.
    fn section<T>(&mut self, body: impl FnOnce(&mut Self) -> LResult<T>) -> LResult<T> {
        self.emit(StmtKind::Sync {
            dst: None,
            op: SyncOp::AtomicBegin,
        });
        let out = body(self)?;
        self.emit(StmtKind::Sync {
            dst: None,
            op: SyncOp::AtomicEnd,
        });
        Ok(out)
    }

    fn load_cell(&mut self, ptr: &Operand, ty: Scalar) -> Operand {
        let dst = self.new_reg(None, ty);
        self.emit(StmtKind::Load {
            dst,
            addr: ptr.clone(),
            ty,
        });
        Operand::Reg(dst)
    }

    fn store_cell(&mut self, ptr: &Operand, ty: Scalar, value: Operand) {
        self.emit(StmtKind::Store {
            addr: ptr.clone(),
            value,
            ty,
        });
    }

    /// `lhs == rhs` as an `int` 0 or 1.
    fn equal(&mut self, ty: Scalar, lhs: Operand, rhs: Operand) -> Operand {
        self.assign_tmp(Scalar::I32, bin(BinOp::Eq, ty, lhs, rhs))
    }

    /// Runs `then` when `cond` (an `int`) is not 0.
    fn when(&mut self, cond: Operand, then: impl FnOnce(&mut Self)) {
        let (yes, join) = (self.new_block(), self.new_block());
        self.branch(cond, yes, join);
        self.switch_to(yes);
        then(self);
        self.goto_and_switch(join);
    }

    /// `old op v` in the unsigned type of the cell's width (the builtins wrap).
    fn rmw(&mut self, op: Rmw, ty: Scalar, old: Operand, v: Operand) -> Operand {
        let nand = op == Rmw::Nand;
        let Scalar::Int { bits, .. } = ty else {
            unreachable!("arithmetic builtins are rejected on pointers")
        };
        let unsigned = Scalar::Int {
            bits,
            signed: false,
        };
        let op = match op {
            Rmw::Add => BinOp::Add,
            Rmw::Sub => BinOp::Sub,
            Rmw::And | Rmw::Nand => BinOp::And,
            Rmw::Or => BinOp::Or,
            Rmw::Xor => BinOp::Xor,
        };
        let value = self.assign_tmp(ty, bin(op, unsigned, old, v));
        if nand {
            let ones = Operand::int(-1, unsigned);
            return self.assign_tmp(ty, bin(BinOp::Xor, unsigned, value, ones));
        }
        value
    }
}

fn typed(op: Operand, ty: &CType) -> Val {
    Val { op, ty: ty.clone() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_to_builtins_with_their_arities() {
        let rmw = |name| match Builtin::named(name) {
            Some(Builtin::Rmw {
                op, fetch_first, ..
            }) => Some((op, fetch_first)),
            _ => None,
        };
        assert_eq!(rmw("__sync_fetch_and_add"), Some((Rmw::Add, true)));
        assert_eq!(rmw("__sync_nand_and_fetch"), Some((Rmw::Nand, false)));
        assert_eq!(rmw("__atomic_fetch_xor"), Some((Rmw::Xor, true)));
        assert_eq!(rmw("__atomic_sub_fetch"), Some((Rmw::Sub, false)));
        let arity = |name| Builtin::named(name).map(Builtin::arity);
        assert_eq!(arity("__sync_fetch_and_add"), Some(2));
        assert_eq!(arity("__atomic_fetch_add"), Some(3));
        assert_eq!(arity("__atomic_compare_exchange_n"), Some(6));
        assert_eq!(arity("__sync_lock_release"), Some(1));
        assert_eq!(arity("__atomic_store_n"), Some(3));
        assert_eq!(arity("__sync_synchronize"), Some(0));
        assert_eq!(arity("__atomic_thread_fence"), Some(1));
        assert!(Builtin::named("__sync_fetch_and_mul").is_none());
        assert!(
            Builtin::named("__atomic_load").is_none(),
            "the generic form"
        );
        assert!(Builtin::named("atomic_load").is_none());
    }
}
