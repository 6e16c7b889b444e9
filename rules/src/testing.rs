//! Hand-built facts for unit tests of the rule sets.

use analysis::facts::{Facts, FuncId, Obj, StmtId, Var};

/// Builds facts by naming atoms; ids are handed out in order.
#[derive(Default)]
pub struct FactsBuilder {
    pub facts: Facts,
    stmts: u32,
}

impl FactsBuilder {
    pub fn new() -> Self {
        let mut b = FactsBuilder::default();
        b.facts.names.vars.push("const".into());
        b
    }

    pub fn var(&mut self, name: &str) -> Var {
        self.facts.names.vars.push(name.into());
        Var(self.facts.names.vars.len() as u32 - 1)
    }

    pub fn obj(&mut self, name: &str, size: i64) -> Obj {
        self.facts.names.objs.push(name.into());
        let o = Obj(self.facts.names.objs.len() as u32 - 1);
        self.facts.obj_size.push((o, size));
        o
    }

    pub fn func(&mut self, name: &str) -> FuncId {
        self.facts.names.funcs.push(name.into());
        FuncId(self.facts.names.funcs.len() as u32 - 1)
    }

    pub fn stmt(&mut self, func: FuncId) -> StmtId {
        let s = StmtId(self.stmts);
        self.stmts += 1;
        self.facts.names.stmts.push(format!("t.c:{}", s.0 + 1));
        self.facts.stmt_func.push((s, func));
        s
    }
}
