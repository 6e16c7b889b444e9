//! Statements: structured control flow to blocks and branches on registers.

use super::func::{FnBuilder, SwitchCtx};
use super::types::CType;
use super::LResult;
use crate::ir::*;
use lang_c::ast::*;
use lang_c::span::Node;

impl FnBuilder<'_, '_> {
    pub fn stmt(&mut self, s: &Node<Statement>) -> LResult<()> {
        self.at(s.span);
        match &s.node {
            Statement::Compound(items) => {
                self.l.push_scope();
                let r = self.block_items(items);
                self.l.pop_scope();
                r
            }
            Statement::Expression(None) => Ok(()),
            Statement::Expression(Some(e)) => self.discard(e),
            Statement::If(i) => self.if_stmt(i),
            Statement::While(w) => self.while_loop(&w.node.expression, &w.node.statement),
            Statement::DoWhile(d) => self.do_while(&d.node.statement, &d.node.expression),
            Statement::For(f) => {
                self.l.push_scope();
                let r = self.for_loop(f);
                self.l.pop_scope();
                r
            }
            Statement::Switch(sw) => self.switch(sw),
            Statement::Labeled(lab) => self.labeled(lab),
            Statement::Goto(name) => {
                let target = self.label_block(&name.node.name, false);
                self.goto(target);
                Ok(())
            }
            Statement::Continue => match self.continues.last() {
                Some(&b) => {
                    self.goto(b);
                    Ok(())
                }
                None => self.l.invalid(s.span, "`continue` outside a loop"),
            },
            Statement::Break => match self.breaks.last() {
                Some(&b) => {
                    self.goto(b);
                    Ok(())
                }
                None => self.l.invalid(s.span, "`break` outside a loop or switch"),
            },
            Statement::Return(e) => self.return_stmt(e.as_deref()),
            Statement::Asm(a) => self.asm_stmt(&a.node, s.span),
        }
    }

    /// Inline assembly. A compiler barrier (an empty template with no operands, clobbering
    /// at most `memory`) orders nothing that agx's sequentially consistent model does not
    /// already order, so it is a no-op; any other assembly is rejected, since agx cannot
    /// know what it reads, writes or synchronizes.
    fn asm_stmt(&mut self, a: &AsmStatement, at: lang_c::span::Span) -> LResult<()> {
        if asm_is_compiler_barrier(a) {
            return Ok(());
        }
        let text = match a {
            AsmStatement::GnuBasic(t) => asm_template(&t.node),
            AsmStatement::GnuExtended(x) => asm_template(&x.template.node),
        };
        self.l.unsupported(
            at,
            format!(
                "inline assembly `{}`; agx treats only the compiler barrier \
                 `asm volatile(\"\" ::: \"memory\")` (a no-op under its sequentially \
                 consistent model) and rejects any other assembly",
                text.trim()
            ),
        )
    }

    fn block_items(&mut self, items: &[Node<BlockItem>]) -> LResult<()> {
        for item in items {
            match &item.node {
                BlockItem::Declaration(d) => self.local_declaration(d)?,
                BlockItem::StaticAssert(_) => {}
                BlockItem::Statement(s) => self.stmt(s)?,
            }
        }
        Ok(())
    }

    fn if_stmt(&mut self, i: &Node<IfStatement>) -> LResult<()> {
        let then_bb = self.new_block();
        let else_bb = self.new_block();
        let join = self.new_block();
        self.cond_branch(&i.node.condition, then_bb, else_bb)?;
        self.switch_to(then_bb);
        self.stmt(&i.node.then_statement)?;
        self.goto(join);
        self.switch_to(else_bb);
        if let Some(e) = &i.node.else_statement {
            self.stmt(e)?;
        }
        self.goto(join);
        self.switch_to(join);
        Ok(())
    }

    fn while_loop(&mut self, cond: &Node<Expression>, body: &Node<Statement>) -> LResult<()> {
        let head = self.new_block();
        let body_bb = self.new_block();
        let exit = self.new_block();
        self.goto_and_switch(head);
        self.cond_branch(cond, body_bb, exit)?;
        self.switch_to(body_bb);
        self.loop_body(body, exit, head)?;
        self.goto(head);
        self.switch_to(exit);
        Ok(())
    }

    fn do_while(&mut self, body: &Node<Statement>, cond: &Node<Expression>) -> LResult<()> {
        let body_bb = self.new_block();
        let test = self.new_block();
        let exit = self.new_block();
        self.goto_and_switch(body_bb);
        self.loop_body(body, exit, test)?;
        self.goto_and_switch(test);
        self.at(cond.span);
        self.cond_branch(cond, body_bb, exit)?;
        self.switch_to(exit);
        Ok(())
    }

    fn for_loop(&mut self, f: &Node<ForStatement>) -> LResult<()> {
        match &f.node.initializer.node {
            ForInitializer::Empty | ForInitializer::StaticAssert(_) => {}
            ForInitializer::Expression(e) => self.discard(e)?,
            ForInitializer::Declaration(d) => self.local_declaration(d)?,
        }
        let head = self.new_block();
        let body_bb = self.new_block();
        let step = self.new_block();
        let exit = self.new_block();
        self.goto_and_switch(head);
        match &f.node.condition {
            Some(c) => {
                self.at(c.span);
                self.cond_branch(c, body_bb, exit)?;
            }
            None => self.goto(body_bb),
        }
        self.switch_to(body_bb);
        self.loop_body(&f.node.statement, exit, step)?;
        self.goto_and_switch(step);
        if let Some(s) = &f.node.step {
            self.at(s.span);
            self.discard(s)?;
        }
        self.goto(head);
        self.switch_to(exit);
        Ok(())
    }

    fn loop_body(&mut self, body: &Node<Statement>, exit: BlockId, cont: BlockId) -> LResult<()> {
        self.breaks.push(exit);
        self.continues.push(cont);
        let r = self.stmt(body);
        self.breaks.pop();
        self.continues.pop();
        r
    }

    fn switch(&mut self, sw: &Node<SwitchStatement>) -> LResult<()> {
        let v = self.rvalue(&sw.node.expression)?;
        let CType::Int(it) = v.ty else {
            return self.l.invalid(sw.span, "switch on a non-integer");
        };
        let ty = CType::Int(super::types::promote(it));
        let scrut = self.convert(v, &ty, sw.span)?;
        let scalar = ty.scalar().expect("integer");
        let dispatch = self.current();
        let exit = self.new_block();
        // Code before the first case label is unreachable.
        let body = self.new_block();
        self.switch_to(body);
        self.switches.push(SwitchCtx {
            cases: Vec::new(),
            default: None,
        });
        self.breaks.push(exit);
        let r = self.stmt(&sw.node.statement);
        self.breaks.pop();
        let ctx = self.switches.pop().expect("switch context");
        r?;
        self.goto(exit);
        // The dispatch: one comparison per case, in source order.
        self.switch_to(dispatch);
        self.at(sw.span);
        for (lo, hi, target) in ctx.cases {
            let next = self.new_block();
            let hit = if lo == hi {
                self.assign_tmp(
                    Scalar::I32,
                    Rvalue::Binary {
                        op: BinOp::Eq,
                        ty: scalar,
                        lhs: scrut.clone(),
                        rhs: Operand::int(lo, scalar),
                    },
                )
            } else {
                self.case_range_test(&scrut, scalar, lo, hi)
            };
            self.branch(hit, target, next);
            self.switch_to(next);
        }
        self.goto(ctx.default.unwrap_or(exit));
        self.switch_to(exit);
        Ok(())
    }

    fn case_range_test(&mut self, scrut: &Operand, ty: Scalar, lo: i128, hi: i128) -> Operand {
        let ge = self.assign_tmp(
            Scalar::I32,
            Rvalue::Binary {
                op: BinOp::Ge,
                ty,
                lhs: scrut.clone(),
                rhs: Operand::int(lo, ty),
            },
        );
        let le = self.assign_tmp(
            Scalar::I32,
            Rvalue::Binary {
                op: BinOp::Le,
                ty,
                lhs: scrut.clone(),
                rhs: Operand::int(hi, ty),
            },
        );
        self.assign_tmp(
            Scalar::I32,
            Rvalue::Binary {
                op: BinOp::And,
                ty: Scalar::I32,
                lhs: ge,
                rhs: le,
            },
        )
    }

    fn labeled(&mut self, lab: &Node<LabeledStatement>) -> LResult<()> {
        match &lab.node.label.node {
            Label::Identifier(name) => {
                let b = self.label_block(&name.node.name, true);
                self.goto_and_switch(b);
            }
            Label::Case(e) => {
                let Some(v) = self.l.const_int(e)? else {
                    return self.l.invalid(e.span, "case label is not a constant");
                };
                self.case_label(v, v, lab)?;
            }
            Label::CaseRange(r) => {
                let (Some(lo), Some(hi)) = (
                    self.l.const_int(&r.node.low)?,
                    self.l.const_int(&r.node.high)?,
                ) else {
                    return self.l.invalid(r.span, "case range is not constant");
                };
                self.case_label(lo, hi, lab)?;
            }
            Label::Default => {
                let b = self.new_block();
                match self.switches.last_mut() {
                    Some(ctx) => ctx.default = Some(b),
                    None => return self.l.invalid(lab.span, "`default` outside a switch"),
                }
                self.goto_and_switch(b);
            }
        }
        self.stmt(&lab.node.statement)
    }

    fn case_label(&mut self, lo: i128, hi: i128, lab: &Node<LabeledStatement>) -> LResult<()> {
        let b = self.new_block();
        match self.switches.last_mut() {
            Some(ctx) => ctx.cases.push((lo, hi, b)),
            None => return self.l.invalid(lab.span, "`case` outside a switch"),
        }
        self.goto_and_switch(b);
        Ok(())
    }

    /// The block of a label, created at its first mention (a `goto` may come first).
    fn label_block(&mut self, name: &str, defining: bool) -> BlockId {
        if let Some((b, defined)) = self.labels.get_mut(name) {
            *defined |= defining;
            return *b;
        }
        let b = self.new_block();
        self.labels.insert(name.to_string(), (b, defining));
        b
    }

    fn return_stmt(&mut self, e: Option<&Node<Expression>>) -> LResult<()> {
        if let (Some(e), Some(sret)) = (e, self.sret) {
            let ty = self.ret.clone();
            let src = self.aggregate_address(e, &ty)?;
            self.at(e.span);
            self.copy_aggregate(&Operand::Reg(sret), &src, &ty);
            self.ret_with(None);
            return Ok(());
        }
        let value = match e {
            None => None,
            Some(e) => {
                let v = self.rvalue(e)?;
                if self.ret.is_void() {
                    None
                } else {
                    let ret = self.ret.clone();
                    Some(self.convert(v, &ret, e.span)?)
                }
            }
        };
        self.ret_with(value);
        Ok(())
    }
}

/// The template of an `asm` statement: its adjacent string literals joined, quotes off
/// (escapes are kept as written, which is all a message or an emptiness test needs).
fn asm_template(pieces: &[String]) -> String {
    pieces
        .iter()
        .map(|p| p.trim_start_matches('"').trim_end_matches('"'))
        .collect()
}

/// `asm("")`, `asm volatile("" ::: "memory")`: no instructions, no operands, no clobber
/// but `memory`.
fn asm_is_compiler_barrier(a: &AsmStatement) -> bool {
    match a {
        AsmStatement::GnuBasic(t) => asm_template(&t.node).trim().is_empty(),
        AsmStatement::GnuExtended(x) => {
            asm_template(&x.template.node).trim().is_empty()
                && x.outputs.is_empty()
                && x.inputs.is_empty()
                && x.clobbers
                    .iter()
                    .all(|c| asm_template(&c.node).trim() == "memory")
        }
    }
}
