//! `qsort(base, n, size, cmp)` over typed memory. Moving elements byte by byte would be
//! type punning on their cells (see [`super::memfns`]), so the C model's
//! `__agx_qsort_order` only computes the sorted order (a stable insertion sort over
//! indices, calling the program's `cmp` on the elements in place; glibc's qsort is a
//! merge sort, also stable), and the elements are moved here, cell by cell from the
//! static type `base` points to: all of them into a copy, then each from the copy to its
//! place. Byte and untyped elements, and a `size` that is not the element type's, go to
//! the model's byte-swapping `__agx_qsort_bytes`.

use super::expr::Val;
use super::func::FnBuilder;
use super::memfns::bin;
use super::types::CType;
use super::LResult;
use crate::ir::*;
use lang_c::ast::*;
use lang_c::span::Node;

impl FnBuilder<'_, '_> {
    pub(super) fn qsort_call(&mut self, c: &Node<CallExpression>) -> LResult<Val> {
        let args = &c.node.arguments;
        if args.len() != 4 {
            return self.l.invalid(
                c.span,
                format!("`qsort` takes 4 arguments, {} given", args.len()),
            );
        }
        let elem = self.element_type(&args[0])?;
        let void_ptr = CType::ptr_to(CType::Void);
        let size_t = self.l.layout().size_t();
        let mut ops = Vec::new();
        for (a, ty) in args.iter().zip([&void_ptr, &size_t, &size_t, &void_ptr]) {
            let v = self.rvalue(a)?;
            ops.push(self.convert(v, ty, a.span)?);
        }
        self.at(c.span);
        let [base, n, size, cmp]: [Operand; 4] = ops.try_into().expect("4 arguments");
        let cells = match elem {
            Some(t) => self.typed_cells(&t, c)?,
            None => None,
        };
        let bytes_params = vec![
            void_ptr.clone(),
            size_t.clone(),
            size_t.clone(),
            void_ptr.clone(),
        ];
        let Some((esize, cells)) = cells else {
            let args = vec![base, n, size, cmp];
            self.call_model("__agx_qsort_bytes", CType::int(), bytes_params, args);
            return Ok(void_result());
        };
        let st = size_t.scalar().expect("size_t");
        let same = self.assign_tmp(
            Scalar::I32,
            bin(BinOp::Eq, st, size.clone(), Operand::int(esize as i128, st)),
        );
        let typed = self.new_block();
        let bytes = self.new_block();
        let done = self.new_block();
        self.branch(same, typed, bytes);
        self.switch_to(bytes);
        let args = vec![base.clone(), n.clone(), size.clone(), cmp.clone()];
        self.call_model("__agx_qsort_bytes", CType::int(), bytes_params, args);
        self.goto(done);
        self.switch_to(typed);
        self.sort_typed(base, n, size, cmp, esize, &cells);
        self.goto_and_switch(done);
        Ok(void_result())
    }

    /// The typed path: the order from the model, then the moves through a copy.
    fn sort_typed(
        &mut self,
        base: Operand,
        n: Operand,
        size: Operand,
        cmp: Operand,
        esize: u64,
        cells: &[(u64, Scalar)],
    ) {
        let size_t = self.l.layout().size_t();
        let st = size_t.scalar().expect("size_t");
        let word = st.bytes(self.l.dm);
        let void_ptr = CType::ptr_to(CType::Void);
        let perm = self.heap_array(n.clone(), word);
        let params = vec![
            void_ptr.clone(),
            size_t.clone(),
            size_t,
            void_ptr.clone(),
            void_ptr,
        ];
        let args = vec![base.clone(), n.clone(), size, cmp, perm.clone()];
        self.call_model("__agx_qsort_order", CType::int(), params, args);
        let copy = self.heap_array(n.clone(), esize);
        self.copy_elements(&copy, &base, n.clone(), esize, cells);
        self.element_loop(n, |b, i| {
            let at = b.element(&perm, i, word);
            let j = b.new_reg(None, st);
            b.emit(StmtKind::Load {
                dst: j,
                addr: at,
                ty: st,
            });
            let from = b.element(&copy, &Operand::Reg(j), esize);
            let to = b.element(&base, i, esize);
            b.copy_cells(&from, &to, cells);
        });
        self.emit(StmtKind::Free { ptr: copy });
        self.emit(StmtKind::Free { ptr: perm });
    }

    /// A heap block of `n` elements of `size` bytes, uninitialized.
    fn heap_array(&mut self, n: Operand, size: u64) -> Operand {
        let st = self.l.layout().size_t().scalar().expect("size_t");
        let total = self.assign_tmp(st, bin(BinOp::Mul, st, n, Operand::int(size as i128, st)));
        let dst = self.new_reg(None, Scalar::Ptr);
        self.emit(StmtKind::Alloc {
            dst,
            size: total,
            zeroed: false,
        });
        Operand::Reg(dst)
    }
}

fn void_result() -> Val {
    Val {
        op: Operand::int(0, Scalar::I32),
        ty: CType::Void,
    }
}
