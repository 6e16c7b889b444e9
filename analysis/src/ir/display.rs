//! The readable text form of the IR (`agx ir`).
//!
//! ```text
//! fn thread1(r0: ptr) -> ptr                        // lazy01.c:10
//!   bb0:
//!     s3   lock @mutex                              // lazy01.c:12
//!     s4   r1 = load i32 @data                      // lazy01.c:13
//! ```

use super::*;
use std::fmt::Write;

/// Renders the whole program. `source_line(file, line)` may return the text of a source
/// line to show beside each statement.
pub fn render_program(p: &Program, source_line: &dyn Fn(&str, u32) -> Option<String>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "// data model: {:?}", p.data_model);
    for o in &p.objects {
        render_object(p, o, &mut out);
    }
    for f in &p.functions {
        out.push('\n');
        render_function(p, f, source_line, &mut out);
    }
    out
}

fn render_object(p: &Program, o: &Object, out: &mut String) {
    let kind = match &o.kind {
        ObjectKind::Global => "global".to_string(),
        ObjectKind::ThreadLocal => "thread_local".to_string(),
        ObjectKind::StringLiteral => "literal".to_string(),
        ObjectKind::StackSlot { func } => format!("slot of {}", p.function(*func).name),
    };
    let mut line = format!(
        "{} {} {}: {} ({} bytes)",
        o.id, kind, o.name, o.c_type, o.size
    );
    if !o.init.is_empty() {
        let cells: Vec<String> = o
            .init
            .iter()
            .take(8)
            .map(|c| format!("+{}={}", c.offset, operand(p, &c.value)))
            .collect();
        let more = if o.init.len() > 8 { " ..." } else { "" };
        let _ = write!(line, " = {{{}{more}}}", cells.join(", "));
    }
    let _ = writeln!(out, "{line:<60} // {}", p.location(o.span));
}

fn render_function(
    p: &Program,
    f: &Function,
    source_line: &dyn Fn(&str, u32) -> Option<String>,
    out: &mut String,
) {
    let params: Vec<String> = f
        .params
        .iter()
        .map(|r| format!("{}: {}", reg_name(f, *r), f.reg(*r).ty))
        .collect();
    let ret = f.ret.map(|t| format!(" -> {t}")).unwrap_or_default();
    let mut flags = String::new();
    if f.atomic {
        flags.push_str(" atomic");
    }
    if f.variadic {
        flags.push_str(" variadic");
    }
    if !f.is_defined() {
        let _ = writeln!(
            out,
            "extern fn {}({}){ret}{flags}",
            f.name,
            params.join(", ")
        );
        return;
    }
    let head = format!("fn {}({}){ret}{flags}", f.name, params.join(", "));
    let _ = writeln!(out, "{head:<60} // {}", p.location(f.span));
    let mut last_line = None;
    for b in &f.blocks {
        let _ = writeln!(out, "  {}:", b.id);
        for s in &b.stmts {
            let text = format!("    {:<5}{}", s.id.to_string(), stmt_text(p, f, &s.kind));
            emit(p, s.span, text, source_line, &mut last_line, out);
        }
        let text = format!(
            "    {:<5}{}",
            b.term.id.to_string(),
            term_text(p, f, &b.term.kind)
        );
        emit(p, b.term.span, text, source_line, &mut last_line, out);
    }
}

fn emit(
    p: &Program,
    span: Span,
    text: String,
    source_line: &dyn Fn(&str, u32) -> Option<String>,
    last_line: &mut Option<(FileId, u32)>,
    out: &mut String,
) {
    let loc = p.location(span);
    let fresh = *last_line != Some((span.file, span.line));
    *last_line = Some((span.file, span.line));
    let src = if fresh {
        source_line(p.file_name(span.file), span.line)
            .map(|s| format!("  {}", s.trim()))
            .unwrap_or_default()
    } else {
        String::new()
    };
    let _ = writeln!(out, "{text:<60} // {loc}{src}");
}

fn reg_name(f: &Function, r: RegId) -> String {
    match &f.reg(r).name {
        Some(n) => format!("{r}.{n}"),
        None => r.to_string(),
    }
}

fn operand_in(p: &Program, f: &Function, o: &Operand) -> String {
    match o {
        Operand::Reg(r) => reg_name(f, *r),
        other => operand(p, other),
    }
}

/// The text of an operand outside a function (registers by number).
pub fn operand_text(p: &Program, o: &Operand) -> String {
    operand(p, o)
}

/// A float constant as Rust's shortest round-tripping decimal, with its width.
fn float_text(bits: u64, width: u8) -> String {
    if width == 32 {
        format!("{:?}f32", f32::from_bits(bits as u32))
    } else {
        format!("{:?}f64", f64::from_bits(bits))
    }
}

fn operand(p: &Program, o: &Operand) -> String {
    match o {
        Operand::Reg(r) => r.to_string(),
        Operand::Int {
            bits,
            ty: Scalar::Float { bits: width },
        } => float_text(*bits, *width),
        Operand::Int { bits, ty } => {
            if ty.is_signed() {
                sign_extend(*bits, ty.bits(p.data_model)).to_string()
            } else {
                bits.to_string()
            }
        }
        Operand::Null => "null".into(),
        Operand::Addr { obj, offset } => {
            let name = &p.object(*obj).name;
            if *offset == 0 {
                format!("&{name}")
            } else {
                format!("&{name}+{offset}")
            }
        }
        Operand::Func(id) => format!("&{}", p.function(*id).name),
    }
}

/// The text of one statement, as `agx ir` prints it.
pub fn stmt_text(p: &Program, f: &Function, k: &StmtKind) -> String {
    let op = |o: &Operand| operand_in(p, f, o);
    let dst = |d: &Option<RegId>| {
        d.map(|r| format!("{} = ", reg_name(f, r)))
            .unwrap_or_default()
    };
    match k {
        StmtKind::Assign { dst, value } => {
            format!("{} = {}", reg_name(f, *dst), rvalue(p, f, value))
        }
        StmtKind::Load { dst, addr, ty } => {
            format!("{} = load {ty} {}", reg_name(f, *dst), op(addr))
        }
        StmtKind::Store { addr, value, ty } => format!("store {ty} {} <- {}", op(addr), op(value)),
        StmtKind::Call {
            dst: d,
            callee,
            args,
        } => {
            let c = match callee {
                Callee::Direct(id) => p.function(*id).name.clone(),
                Callee::Indirect(o) => format!("(*{})", op(o)),
            };
            let a: Vec<String> = args.iter().map(op).collect();
            format!("{}call {c}({})", dst(d), a.join(", "))
        }
        StmtKind::Sync { dst: d, op: s } => {
            let a: Vec<String> = s.operands().into_iter().map(op).collect();
            format!("{}{} {}", dst(d), s.name(), a.join(", "))
                .trim_end()
                .to_string()
        }
        StmtKind::Nondet { dst, ty } => format!("{} = nondet {ty}", reg_name(f, *dst)),
        StmtKind::Assume { cond } => format!("assume {}", op(cond)),
        StmtKind::Alloc { dst, size, zeroed } => {
            let which = if *zeroed { "calloc" } else { "malloc" };
            format!("{} = {which} {}", reg_name(f, *dst), op(size))
        }
        StmtKind::Free { ptr } => format!("free {}", op(ptr)),
        StmtKind::Print {
            dst: d,
            format,
            args,
        } => {
            let fmt: String = format
                .iter()
                .map(|piece| match piece {
                    FormatPiece::Text(t) => t.escape_debug().to_string(),
                    FormatPiece::Conv { conv, arg, spec } => format!("%{spec}{conv}:{arg}"),
                })
                .collect();
            let a: Vec<String> = args.iter().map(op).collect();
            format!("{}printf \"{fmt}\" {}", dst(d), a.join(", "))
                .trim_end()
                .to_string()
        }
        StmtKind::Havoc {
            dst: d,
            ty,
            function,
        } => format!("{}havoc {ty} /* {function} */", dst(d)),
    }
}

fn rvalue(p: &Program, f: &Function, v: &Rvalue) -> String {
    let op = |o: &Operand| operand_in(p, f, o);
    match v {
        Rvalue::Use(o) => op(o),
        Rvalue::Unary { op: u, ty, arg } => {
            let s = match u {
                UnOp::Neg => "-",
                UnOp::Not => "~",
                UnOp::Abs => "fabs ",
                UnOp::Sqrt => "sqrt ",
                UnOp::LogicalNot => "!",
            };
            format!("{s}{ty} {}", op(arg))
        }
        Rvalue::Binary {
            op: b,
            ty,
            lhs,
            rhs,
        } => {
            format!("{} {}{ty} {}", op(lhs), b.symbol(), op(rhs))
        }
        Rvalue::Cast { from, to, arg } => format!("cast {from}->{to} {}", op(arg)),
        Rvalue::PtrAdd {
            base, index, scale, ..
        } => {
            format!("{} + {}*{scale}", op(base), op(index))
        }
        Rvalue::PtrDiff { lhs, rhs, scale } => format!("({} - {})/{scale}", op(lhs), op(rhs)),
        Rvalue::Uninit(ty) => format!("uninit {ty}"),
        Rvalue::ThreadId => "thread_self".to_string(),
        Rvalue::MutexHeld(m) => format!("mutex_held {}", op(m)),
    }
}

/// The text of one terminator, as `agx ir` prints it.
pub fn term_text(p: &Program, f: &Function, k: &TermKind) -> String {
    let op = |o: &Operand| operand_in(p, f, o);
    match k {
        TermKind::Goto(b) => format!("goto {b}"),
        TermKind::Branch {
            cond,
            then_bb,
            else_bb,
        } => {
            format!("if {} then {then_bb} else {else_bb}", op(cond))
        }
        TermKind::Return(None) => "return".into(),
        TermKind::Return(Some(v)) => format!("return {}", op(v)),
        TermKind::ThreadExit(v) => format!("thread_exit {}", op(v)),
        TermKind::Error(fail) => format!("error: {fail}"),
        TermKind::Abort => "abort".into(),
        TermKind::Exit(v) => format!("exit {}", op(v)),
        TermKind::Unreachable => "unreachable".into(),
    }
}
