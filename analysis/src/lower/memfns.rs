//! `memcpy`, `memmove` and `memset` over typed memory.
//!
//! agx's memory holds typed cells (an `int` is one 4-byte cell), and an access that
//! overlaps a cell without matching it is type punning, which the engines report as
//! unsupported. A byte loop (what the C library model's `__agx_memcpy_bytes` is) would
//! therefore fail on `memcpy(&dst, &src, sizeof(struct s))`. So these calls are lowered
//! here from the static type `T` the pointer arguments point to (looking through casts
//! to `void *`): when the size is a multiple of `sizeof(T)`, every cell of every element
//! is copied (or set) with its own scalar type; otherwise, and for byte or untyped
//! memory, the model's byte loop runs.

use super::expr::Val;
use super::func::FnBuilder;
use super::types::{CType, FuncType};
use super::LResult;
use crate::ir::*;
use lang_c::ast::*;
use lang_c::span::Node;

impl FnBuilder<'_, '_> {
    /// `memcpy(d, s, n)`, `memmove(d, s, n)` or `memset(d, c, n)`.
    pub(super) fn mem_call(&mut self, name: &str, c: &Node<CallExpression>) -> LResult<Val> {
        let args = &c.node.arguments;
        if args.len() != 3 {
            return self.l.invalid(
                c.span,
                format!("`{name}` takes 3 arguments, {} given", args.len()),
            );
        }
        let set = name == "memset";
        let mut elem = self.element_type(&args[0])?;
        if elem.is_none() && !set {
            elem = self.element_type(&args[1])?;
        }
        let void_ptr = CType::ptr_to(CType::Void);
        let size_t = self.l.layout().size_t();
        let second_ty = if set { CType::int() } else { void_ptr.clone() };
        let mut ops = Vec::new();
        for (a, ty) in args.iter().zip([&void_ptr, &second_ty, &size_t]) {
            let v = self.rvalue(a)?;
            ops.push(self.convert(v, ty, a.span)?);
        }
        self.at(c.span);
        let [d, s, n]: [Operand; 3] = ops.try_into().expect("3 arguments");
        let bytes_fn = format!("__agx_{name}_bytes");
        let cells = match elem {
            Some(t) => self.typed_cells(&t, c)?,
            None => None,
        };
        let Some((size, cells)) = cells else {
            let r = self.call_bytes_fn(&bytes_fn, set, [d.clone(), s, n]);
            return Ok(Val {
                op: r,
                ty: void_ptr,
            });
        };
        if set && cells.iter().any(|(_, sc)| *sc == Scalar::Ptr) && !is_zero(&s) {
            return self.l.unsupported(
                c.span,
                "`memset` of memory holding pointers with a byte other than 0",
            );
        }
        let st = size_t.scalar().expect("size_t");
        // Whole elements: typed; anything else: the model's byte loop.
        let rem = self.assign_tmp(
            st,
            bin(BinOp::Rem, st, n.clone(), Operand::int(size as i128, st)),
        );
        let whole = self.assign_tmp(Scalar::I32, bin(BinOp::Eq, st, rem, Operand::int(0, st)));
        let typed = self.new_block();
        let bytes = self.new_block();
        let done = self.new_block();
        self.branch(whole, typed, bytes);
        self.switch_to(bytes);
        self.call_bytes_fn(&bytes_fn, set, [d.clone(), s.clone(), n.clone()]);
        self.goto(done);
        self.switch_to(typed);
        let count = self.assign_tmp(st, bin(BinOp::Div, st, n, Operand::int(size as i128, st)));
        match name {
            "memset" => {
                let values = self.fill_values(&s, &cells);
                self.element_loop(count, |b, i| {
                    let to = b.element(&d, i, size);
                    for ((off, sc), v) in cells.iter().zip(&values) {
                        let addr = b.offset(&to, *off);
                        b.emit(StmtKind::Store {
                            addr,
                            value: v.clone(),
                            ty: *sc,
                        });
                    }
                });
            }
            "memmove" => {
                // Through a copy, so overlapping ranges come out right without comparing
                // addresses of different objects.
                let tmp = self.new_reg(None, Scalar::Ptr);
                let total = self.assign_tmp(
                    st,
                    bin(
                        BinOp::Mul,
                        st,
                        count.clone(),
                        Operand::int(size as i128, st),
                    ),
                );
                self.emit(StmtKind::Alloc {
                    dst: tmp,
                    size: total,
                    zeroed: false,
                });
                let tmp = Operand::Reg(tmp);
                self.copy_elements(&tmp, &s, count.clone(), size, &cells);
                self.copy_elements(&d, &tmp, count, size, &cells);
                self.emit(StmtKind::Free { ptr: tmp });
            }
            _ => self.copy_elements(&d, &s, count, size, &cells),
        }
        self.goto_and_switch(done);
        Ok(Val {
            op: d,
            ty: void_ptr,
        })
    }

    /// The type a pointer argument points to, looking through casts (`(void *)&x`);
    /// `None` when it is `void` all the way.
    pub(super) fn element_type(&mut self, e: &Node<Expression>) -> LResult<Option<CType>> {
        let mut e = e;
        loop {
            let ty = self.l.expr_type(e)?.decay();
            if let Some(p) = ty.pointee() {
                if !p.is_void() {
                    return Ok(Some(p.clone()));
                }
            }
            match &e.node {
                Expression::Cast(cast) => e = &cast.node.expression,
                _ => return Ok(None),
            }
        }
    }

    /// The size and cells of an element type worth copying by cells: `None` for byte
    /// types, incomplete types and functions (the byte loop is exact for those).
    #[allow(clippy::type_complexity)]
    pub(super) fn typed_cells(
        &mut self,
        t: &CType,
        c: &Node<CallExpression>,
    ) -> LResult<Option<(u64, Vec<(u64, Scalar)>)>> {
        if matches!(t, CType::Func(_)) || self.l.layout().size(t).is_none() {
            return Ok(None);
        }
        let size = self.l.size_of(t, c.span)?;
        let mut cells = Vec::new();
        self.l.layout().leaves(t, 0, &mut cells);
        if size <= 1
            || cells
                .iter()
                .all(|(_, sc)| *sc == Scalar::I8 || *sc == Scalar::U8)
        {
            return Ok(None);
        }
        Ok(Some((size, cells)))
    }

    /// `__agx_memcpy_bytes(d, s, n)` and its siblings, from the C library model.
    fn call_bytes_fn(&mut self, name: &str, set: bool, args: [Operand; 3]) -> Operand {
        let void_ptr = CType::ptr_to(CType::Void);
        let second = if set { CType::int() } else { void_ptr.clone() };
        let params = vec![void_ptr.clone(), second, self.l.layout().size_t()];
        self.call_model(name, void_ptr, params, args.to_vec())
    }

    /// A call of a function of the C library model (linked by the front end, see
    /// [`crate::frontend::libc::LOWERED`]) with a scalar result.
    pub(super) fn call_model(
        &mut self,
        name: &str,
        ret: CType,
        params: Vec<CType>,
        args: Vec<Operand>,
    ) -> Operand {
        let scalar = ret.scalar().expect("a scalar result");
        let fty = FuncType {
            ret,
            params,
            variadic: false,
            prototyped: true,
        };
        let span = self.span;
        let id = self.l.declare_function(name, &fty, span);
        let dst = self.new_reg(None, scalar);
        self.emit(StmtKind::Call {
            dst: Some(dst),
            callee: Callee::Direct(id),
            args,
        });
        Operand::Reg(dst)
    }

    /// The value memset stores in each cell: the byte repeated over the cell's width
    /// (a null pointer for pointer cells, which [`Self::mem_call`] allows only for 0).
    fn fill_values(&mut self, c: &Operand, cells: &[(u64, Scalar)]) -> Vec<Operand> {
        let byte = self.assign_tmp(
            Scalar::I32,
            bin(
                BinOp::And,
                Scalar::I32,
                c.clone(),
                Operand::int(0xff, Scalar::I32),
            ),
        );
        cells
            .iter()
            .map(|(_, sc)| match sc {
                Scalar::Ptr => Operand::Null,
                // A float cell gets the replicated byte as its bit pattern (both engines
                // hold floats as bits), so no value conversion follows.
                Scalar::Float { bits } => self.fill_bits(&byte, *bits),
                Scalar::Int { bits, .. } => {
                    let wide = Scalar::Int {
                        bits: *bits,
                        signed: false,
                    };
                    let v = self.fill_bits(&byte, *bits);
                    self.assign_tmp(
                        *sc,
                        Rvalue::Cast {
                            from: wide,
                            to: *sc,
                            arg: v,
                        },
                    )
                }
            })
            .collect()
    }

    /// The byte `byte` (an `int`) repeated over `bits` bits, as an unsigned integer.
    fn fill_bits(&mut self, byte: &Operand, bits: u8) -> Operand {
        let wide = Scalar::Int {
            bits,
            signed: false,
        };
        let b = self.assign_tmp(
            wide,
            Rvalue::Cast {
                from: Scalar::I32,
                to: wide,
                arg: byte.clone(),
            },
        );
        let ones: u128 = (0..bits / 8).fold(0, |acc, _| (acc << 8) | 1);
        self.assign_tmp(
            wide,
            bin(BinOp::Mul, wide, b, Operand::int(ones as i128, wide)),
        )
    }

    /// Copies `count` elements of `size` bytes cell by cell from `s` to `d`.
    pub(super) fn copy_elements(
        &mut self,
        d: &Operand,
        s: &Operand,
        count: Operand,
        size: u64,
        cells: &[(u64, Scalar)],
    ) {
        self.element_loop(count, |b, i| {
            let from = b.element(s, i, size);
            let to = b.element(d, i, size);
            b.copy_cells(&from, &to, cells);
        });
    }

    /// Copies one element's `cells` (offset, scalar) from `from` to `to`.
    pub(super) fn copy_cells(&mut self, from: &Operand, to: &Operand, cells: &[(u64, Scalar)]) {
        for (off, sc) in cells {
            let src = self.offset(from, *off);
            let v = self.new_reg(None, *sc);
            self.emit(StmtKind::Load {
                dst: v,
                addr: src,
                ty: *sc,
            });
            let dst = self.offset(to, *off);
            self.emit(StmtKind::Store {
                addr: dst,
                value: Operand::Reg(v),
                ty: *sc,
            });
        }
    }

    /// `for (i = 0; i < count; i++) body(i)`.
    pub(super) fn element_loop(
        &mut self,
        count: Operand,
        mut body: impl FnMut(&mut Self, &Operand),
    ) {
        let st = self.l.layout().size_t().scalar().expect("size_t");
        let i = self.new_reg(None, st);
        self.emit(StmtKind::Assign {
            dst: i,
            value: Rvalue::Use(Operand::int(0, st)),
        });
        let head = self.new_block();
        let next = self.new_block();
        let done = self.new_block();
        self.goto_and_switch(head);
        let more = self.assign_tmp(Scalar::I32, bin(BinOp::Lt, st, Operand::Reg(i), count));
        self.branch(more, next, done);
        self.switch_to(next);
        body(self, &Operand::Reg(i));
        self.emit(StmtKind::Assign {
            dst: i,
            value: bin(BinOp::Add, st, Operand::Reg(i), Operand::int(1, st)),
        });
        self.goto(head);
        self.switch_to(done);
    }

    /// The address of element `i` of `size` bytes from `base`.
    pub(super) fn element(&mut self, base: &Operand, i: &Operand, size: u64) -> Operand {
        let st = self.l.layout().size_t().scalar().expect("size_t");
        self.assign_tmp(
            Scalar::Ptr,
            Rvalue::PtrAdd {
                base: base.clone(),
                index: i.clone(),
                index_ty: st,
                scale: size,
            },
        )
    }

    /// `base + off` bytes (no statement for 0).
    pub(super) fn offset(&mut self, base: &Operand, off: u64) -> Operand {
        if off == 0 {
            return base.clone();
        }
        let st = self.l.layout().size_t().scalar().expect("size_t");
        self.assign_tmp(
            Scalar::Ptr,
            Rvalue::PtrAdd {
                base: base.clone(),
                index: Operand::int(off as i128, st),
                index_ty: st,
                scale: 1,
            },
        )
    }
}

pub(super) fn bin(op: BinOp, ty: Scalar, lhs: Operand, rhs: Operand) -> Rvalue {
    Rvalue::Binary { op, ty, lhs, rhs }
}

fn is_zero(op: &Operand) -> bool {
    matches!(op, Operand::Int { bits: 0, .. })
}
