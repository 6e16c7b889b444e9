//! A check of the IR invariants the interpreter indexes by, run once before a run so
//! that a malformed program is an error rather than a panic: ids in range, scalar widths
//! of 8/16/32/64 bits, stack slots used only by their function, spans naming real files.

use super::outcome::RuntimeError;
use analysis::ir::{
    Callee, FuncId, Function, ObjId, ObjectKind, Operand, Program, RegId, Rvalue, Scalar, Span,
    StmtId, StmtKind, StmtLoc, TermKind,
};

type Check = Result<(), RuntimeError>;

fn bad(what: String) -> Check {
    Err(RuntimeError::MalformedIr(what))
}

pub(crate) fn validate(p: &Program) -> Check {
    match p.functions.get(p.main.index()) {
        Some(main) if main.is_defined() => {}
        _ => return bad(format!("`main` ({}) has no body", p.main)),
    }
    for o in &p.objects {
        span(p, o.span)?;
        if o.id.index() >= p.objects.len() || p.object(o.id).id != o.id {
            return bad(format!("object `{}` has id {}", o.name, o.id));
        }
        if let ObjectKind::StackSlot { func } = o.kind {
            func_id(p, func)?;
        }
        for cell in &o.init {
            scalar(cell.ty)?;
            match &cell.value {
                Operand::Addr { obj, .. } => obj_id(p, *obj)?,
                Operand::Func(f) => func_id(p, *f)?,
                _ => {}
            }
        }
    }
    for (i, f) in p.functions.iter().enumerate() {
        if f.id.index() != i {
            return bad(format!(
                "function `{}` has id {} at position {i}",
                f.name, f.id
            ));
        }
        function(p, f)?;
    }
    Ok(())
}

fn function(p: &Program, f: &Function) -> Check {
    span(p, f.span)?;
    for r in &f.regs {
        scalar(r.ty)?;
    }
    for &r in &f.params {
        reg(f, r)?;
    }
    for &s in &f.slots {
        obj_id(p, s)?;
        if p.object(s).kind != (ObjectKind::StackSlot { func: f.id }) {
            return bad(format!(
                "`{}` lists `{}` as a slot it does not own",
                f.name,
                p.object(s).name
            ));
        }
    }
    if let Some(ret) = f.ret {
        scalar(ret)?;
    }
    for (bi, b) in f.blocks.iter().enumerate() {
        if b.id.index() != bi {
            return bad(format!("`{}`: block {} at position {bi}", f.name, b.id));
        }
        for (si, s) in b.stmts.iter().enumerate() {
            let loc = StmtLoc {
                func: f.id,
                block: b.id,
                index: Some(si as u32),
            };
            stmt_id(p, s.id, loc)?;
            span(p, s.span)?;
            stmt(p, f, &s.kind)?;
        }
        let loc = StmtLoc {
            func: f.id,
            block: b.id,
            index: None,
        };
        stmt_id(p, b.term.id, loc)?;
        span(p, b.term.span)?;
        for succ in b.term.kind.successors() {
            if succ.index() >= f.blocks.len() {
                return bad(format!("`{}`: jump to missing block {succ}", f.name));
            }
        }
        match &b.term.kind {
            TermKind::Branch { cond: v, .. }
            | TermKind::Return(Some(v))
            | TermKind::ThreadExit(v)
            | TermKind::Exit(v) => operand(p, f, v)?,
            _ => {}
        }
    }
    Ok(())
}

fn stmt(p: &Program, f: &Function, k: &StmtKind) -> Check {
    if let Some(d) = k.def() {
        reg(f, d)?;
    }
    for o in k.operands() {
        operand(p, f, o)?;
    }
    match k {
        StmtKind::Assign { value, .. } => rvalue(value),
        StmtKind::Load { ty, .. }
        | StmtKind::Store { ty, .. }
        | StmtKind::Nondet { ty, .. }
        | StmtKind::Havoc { ty, .. } => scalar(*ty),
        StmtKind::Call {
            callee: Callee::Direct(id),
            ..
        } => func_id(p, *id),
        StmtKind::Print { format, .. } => format.iter().try_for_each(|piece| match piece {
            analysis::ir::FormatPiece::Conv { arg, .. } => scalar(*arg),
            analysis::ir::FormatPiece::Text(_) => Ok(()),
        }),
        _ => Ok(()),
    }
}

fn rvalue(v: &Rvalue) -> Check {
    match v {
        Rvalue::Unary { ty, .. } | Rvalue::Binary { ty, .. } | Rvalue::Uninit(ty) => scalar(*ty),
        Rvalue::Cast { from, to, .. } => scalar(*from).and(scalar(*to)),
        Rvalue::PtrAdd { index_ty, .. } => scalar(*index_ty),
        Rvalue::Use(_) | Rvalue::PtrDiff { .. } | Rvalue::ThreadId | Rvalue::MutexHeld(_) => Ok(()),
    }
}

fn operand(p: &Program, f: &Function, o: &Operand) -> Check {
    match o {
        Operand::Reg(r) => reg(f, *r),
        Operand::Int { ty, .. } => scalar(*ty),
        Operand::Null => Ok(()),
        Operand::Func(id) => func_id(p, *id),
        Operand::Addr { obj, .. } => {
            obj_id(p, *obj)?;
            match p.object(*obj).kind {
                ObjectKind::StackSlot { func } if func != f.id => bad(format!(
                    "`{}` takes the address of `{}`, a local of `{}`",
                    f.name,
                    p.object(*obj).name,
                    p.function(func).name
                )),
                _ => Ok(()),
            }
        }
    }
}

fn scalar(s: Scalar) -> Check {
    match s {
        Scalar::Int {
            bits: 8 | 16 | 32 | 64,
            ..
        }
        | Scalar::Ptr
        | Scalar::Float { bits: 32 | 64 } => Ok(()),
        Scalar::Int { bits, .. } => bad(format!("integer type of {bits} bits")),
        Scalar::Float { bits } => bad(format!("float type of {bits} bits")),
    }
}

fn reg(f: &Function, r: RegId) -> Check {
    if r.index() < f.regs.len() {
        Ok(())
    } else {
        bad(format!("`{}` uses missing register {r}", f.name))
    }
}

fn func_id(p: &Program, id: FuncId) -> Check {
    if id.index() < p.functions.len() {
        Ok(())
    } else {
        bad(format!("missing function {id}"))
    }
}

fn obj_id(p: &Program, id: ObjId) -> Check {
    if id.index() < p.objects.len() {
        Ok(())
    } else {
        bad(format!("missing object {id}"))
    }
}

fn stmt_id(p: &Program, id: StmtId, loc: StmtLoc) -> Check {
    if p.stmt_locs.get(id.index()) == Some(&loc) {
        Ok(())
    } else {
        bad(format!("statement {id} is not where `stmt_locs` says"))
    }
}

fn span(p: &Program, s: Span) -> Check {
    if s.file.index() < p.files.len() {
        Ok(())
    } else {
        bad(format!("span names missing {}", s.file))
    }
}
