//! The recursive-descent parser: tokens to the AST, following the grammar in the
//! module doc of [`super`]; disjunctions are expanded to one rule per alternative.

use super::lexer::{Tok, RESERVED};
use super::*;
use crate::dl::DlError;
use std::path::Path;

pub(super) struct Parser<'a> {
    pub(super) toks: Vec<(Tok, Pos)>,
    pub(super) i: usize,
    pub(super) dir: &'a Path,
    pub(super) depth: usize,
    pub(super) load: Loader<'a>,
}

fn tok_text(t: &Tok) -> String {
    match t {
        Tok::Ident(s) => format!("`{s}`"),
        Tok::Directive(s) => format!("`.{s}`"),
        Tok::Num(n) => format!("`{n}`"),
        Tok::Str(s) => format!("\"{s}\""),
        Tok::Include(s) => format!("`#include \"{s}\"`"),
        Tok::Punct(p) => format!("`{p}`"),
        Tok::Eof => "the end of the file".into(),
    }
}

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        &self.toks[self.i].0
    }

    fn pos(&self) -> Pos {
        self.toks[self.i].1.clone()
    }

    fn advance(&mut self) -> (Tok, Pos) {
        let t = self.toks[self.i].clone();
        if self.i + 1 < self.toks.len() {
            self.i += 1;
        }
        t
    }

    fn unexpected(&self, what: &str) -> DlError {
        DlError::at(
            self.pos(),
            format!("expected {what}, found {}", tok_text(self.peek())),
        )
    }

    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }

    fn expect(&mut self, p: &str) -> Result<Pos, DlError> {
        if self.is(p) {
            Ok(self.advance().1)
        } else {
            Err(self.unexpected(&format!("`{p}`")))
        }
    }

    fn name(&mut self, what: &str) -> Result<(String, Pos), DlError> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                let p = self.advance().1;
                Ok((s, p))
            }
            _ => Err(self.unexpected(what)),
        }
    }

    pub(super) fn program(
        &mut self,
        ast: &mut Ast,
        types: &mut Vec<(String, Type)>,
    ) -> Result<(), DlError> {
        loop {
            match self.peek().clone() {
                Tok::Eof => return Ok(()),
                Tok::Include(file) => {
                    let pos = self.advance().1;
                    self.include(&file, pos, ast, types)?;
                }
                Tok::Directive(d) => {
                    let pos = self.advance().1;
                    self.directive(&d, pos, ast, types)?;
                }
                Tok::Ident(_) => {
                    let rules = self.rule()?;
                    ast.rules.extend(rules);
                }
                _ => return Err(self.unexpected("a directive or a rule")),
            }
        }
    }

    fn include(
        &mut self,
        file: &str,
        pos: Pos,
        ast: &mut Ast,
        types: &mut Vec<(String, Type)>,
    ) -> Result<(), DlError> {
        if Path::new(file)
            .file_name()
            .is_some_and(|n| n == "schema.dl")
        {
            ast.includes_schema = true;
            return Ok(());
        }
        if self.depth >= 16 {
            return Err(DlError::at(pos, "includes nested more than 16 deep"));
        }
        let path = self.dir.join(file);
        let text = (self.load)(&path).map_err(|e| {
            DlError::at(
                pos.clone(),
                format!("cannot read included `{}`: {e}", path.display()),
            )
        })?;
        parse_into(&text, &path, self.depth + 1, self.load, ast, types)
    }

    fn ty(&mut self, types: &[(String, Type)]) -> Result<Type, DlError> {
        let (t, pos) = self.name("a type")?;
        match t.as_str() {
            "number" | "unsigned" => Ok(Type::Number),
            "symbol" => Ok(Type::Symbol),
            "float" => Err(DlError::at(pos, "type `float` is not supported")),
            other => types
                .iter()
                .find(|(n, _)| n == other)
                .map(|(_, t)| *t)
                .ok_or_else(|| DlError::at(pos, format!("unknown type `{other}`"))),
        }
    }

    fn directive(
        &mut self,
        d: &str,
        pos: Pos,
        ast: &mut Ast,
        types: &mut Vec<(String, Type)>,
    ) -> Result<(), DlError> {
        match d {
            "decl" => {
                let (name, npos) = self.name("a relation name")?;
                self.expect("(")?;
                let mut columns = Vec::new();
                if !self.is(")") {
                    loop {
                        let (col, _) = self.name("a column name")?;
                        self.expect(":")?;
                        let t = self.ty(types)?;
                        columns.push((col, t));
                        if self.is(",") {
                            self.advance();
                        } else {
                            break;
                        }
                    }
                }
                self.expect(")")?;
                while let Tok::Ident(q) = self.peek().clone() {
                    let qpos = self.pos();
                    match q.as_str() {
                        "btree" | "brie" | "inline" | "no_inline" | "magic" | "no_magic"
                        | "overridable" => {
                            self.advance();
                        }
                        other => {
                            // An identifier after a declaration is a qualifier only if the
                            // next token does not start a rule.
                            if matches!(self.toks.get(self.i + 1), Some((Tok::Punct("("), _))) {
                                break;
                            }
                            return Err(DlError::at(
                                qpos,
                                format!("unsupported relation qualifier `{other}`"),
                            ));
                        }
                    }
                }
                ast.decls.push(Decl {
                    name,
                    columns,
                    pos: npos,
                });
                Ok(())
            }
            "type" => {
                let (name, _) = self.name("a type name")?;
                if self.is("<:") || self.is("=") {
                    self.advance();
                } else {
                    return Err(self.unexpected("`<:` or `=`"));
                }
                let t = self.ty(types)?;
                types.push((name, t));
                Ok(())
            }
            "input" | "output" | "printsize" => {
                loop {
                    let (name, npos) = self.name("a relation name")?;
                    if d == "input" {
                        ast.inputs.push((name, npos));
                    } else {
                        ast.outputs.push((name, npos));
                    }
                    if self.is(",") {
                        self.advance();
                    } else {
                        break;
                    }
                }
                if self.is("(") {
                    // I/O parameters (IO=file, filename=..., delimiter=...): agx reads facts
                    // from the program and prints outputs, so they do not apply.
                    let mut depth = 0usize;
                    loop {
                        let (t, _) = self.advance();
                        match t {
                            Tok::Punct("(") => depth += 1,
                            Tok::Punct(")") => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            Tok::Eof => return Err(DlError::at(pos, "unclosed `(`")),
                            _ => {}
                        }
                    }
                }
                Ok(())
            }
            other => Err(DlError::at(
                pos,
                format!("unsupported directive `.{other}` (supported: .decl, .type, .input, .output, .printsize)"),
            )),
        }
    }

    fn atom(&mut self) -> Result<Atom, DlError> {
        let (name, pos) = self.name("a relation name")?;
        self.expect("(")?;
        let mut args = Vec::new();
        if !self.is(")") {
            loop {
                args.push(self.expr()?);
                if self.is(",") {
                    self.advance();
                } else {
                    break;
                }
            }
        }
        self.expect(")")?;
        Ok(Atom { name, args, pos })
    }

    fn rule(&mut self) -> Result<Vec<Rule>, DlError> {
        let start = self.pos();
        let head = self.atom()?;
        if self.is(".") {
            self.advance();
            return Ok(vec![Rule {
                head,
                body: vec![],
                pos: start,
            }]);
        }
        if !self.is(":-") {
            return Err(self.unexpected("`:-` or `.` after the rule head"));
        }
        self.advance();
        let bodies = self.disj()?;
        self.expect(".")?;
        Ok(bodies
            .into_iter()
            .map(|body| Rule {
                head: head.clone(),
                body,
                pos: start.clone(),
            })
            .collect())
    }

    /// A disjunction, as the alternatives of its disjunctive normal form.
    fn disj(&mut self) -> Result<Vec<Vec<Literal>>, DlError> {
        let mut alternatives = self.conj_dnf()?;
        while self.is(";") {
            self.advance();
            alternatives.extend(self.conj_dnf()?);
        }
        if alternatives.len() > 4096 {
            return Err(DlError::at(
                self.pos(),
                "disjunction expands to more than 4096 rules",
            ));
        }
        Ok(alternatives)
    }

    fn conj_dnf(&mut self) -> Result<Vec<Vec<Literal>>, DlError> {
        let mut alternatives: Vec<Vec<Literal>> = vec![vec![]];
        loop {
            let options = self.literal_dnf()?;
            let mut next = Vec::new();
            for a in &alternatives {
                for o in &options {
                    let mut c = a.clone();
                    c.extend(o.iter().cloned());
                    next.push(c);
                }
            }
            alternatives = next;
            if alternatives.len() > 4096 {
                return Err(DlError::at(
                    self.pos(),
                    "disjunction expands to more than 4096 rules",
                ));
            }
            if self.is(",") {
                self.advance();
            } else {
                return Ok(alternatives);
            }
        }
    }

    /// A literal, or a parenthesized disjunction `( … ; … )`.
    fn literal_dnf(&mut self) -> Result<Vec<Vec<Literal>>, DlError> {
        if self.is("(") {
            let save = self.i;
            self.advance();
            if let Ok(inner) = self.disj() {
                if self.is(")") {
                    self.advance();
                    let is_expr = matches!(
                        self.peek(),
                        Tok::Punct(
                            "=" | "!=" | "<" | "<=" | ">" | ">=" | "+" | "-" | "*" | "/" | "%"
                        )
                    );
                    if !is_expr {
                        return Ok(inner);
                    }
                }
            }
            self.i = save;
        }
        Ok(vec![vec![self.literal()?]])
    }

    fn conj(&mut self) -> Result<Vec<Literal>, DlError> {
        let mut body = vec![self.literal()?];
        while self.is(",") {
            self.advance();
            body.push(self.literal()?);
        }
        Ok(body)
    }

    fn literal(&mut self) -> Result<Literal, DlError> {
        if self.is("!") {
            self.advance();
            return Ok(Literal::Neg(self.atom()?));
        }
        // `ord(...)` and the aggregates are expressions, not atoms (reserved, as in Soufflé).
        let is_atom = matches!(self.peek(), Tok::Ident(n) if !RESERVED.contains(&n.as_str()))
            && matches!(self.toks.get(self.i + 1), Some((Tok::Punct("("), _)));
        if is_atom {
            return Ok(Literal::Pos(self.atom()?));
        }
        let pos = self.pos();
        let lhs = self.expr()?;
        let op = match self.peek() {
            Tok::Punct("=") => CmpOp::Eq,
            Tok::Punct("!=") => CmpOp::Ne,
            Tok::Punct("<") => CmpOp::Lt,
            Tok::Punct("<=") => CmpOp::Le,
            Tok::Punct(">") => CmpOp::Gt,
            Tok::Punct(">=") => CmpOp::Ge,
            _ => return Err(self.unexpected("an atom, a negation or a comparison")),
        };
        self.advance();
        let rhs = self.expr()?;
        Ok(Literal::Cmp(op, lhs, rhs, pos))
    }

    /// The body of an aggregate after its `:`: one atom or `{ conj }`.
    fn aggregate_body(&mut self) -> Result<Vec<Literal>, DlError> {
        if self.is("{") {
            self.advance();
            let body = self.conj()?;
            self.expect("}")?;
            Ok(body)
        } else {
            Ok(vec![Literal::Pos(self.atom()?)])
        }
    }

    fn expr(&mut self) -> Result<Expr, DlError> {
        let mut lhs = self.product()?;
        loop {
            let op = match self.peek() {
                Tok::Punct("+") => ArithOp::Add,
                Tok::Punct("-") => ArithOp::Sub,
                _ => return Ok(lhs),
            };
            let pos = self.advance().1;
            let rhs = self.product()?;
            lhs = Expr::Arith(op, Box::new(lhs), Box::new(rhs), pos);
        }
    }

    fn product(&mut self) -> Result<Expr, DlError> {
        let mut lhs = self.term()?;
        loop {
            let op = match self.peek() {
                Tok::Punct("*") => ArithOp::Mul,
                Tok::Punct("/") => ArithOp::Div,
                Tok::Punct("%") => ArithOp::Rem,
                _ => return Ok(lhs),
            };
            let pos = self.advance().1;
            let rhs = self.term()?;
            lhs = Expr::Arith(op, Box::new(lhs), Box::new(rhs), pos);
        }
    }

    fn term(&mut self) -> Result<Expr, DlError> {
        let pos = self.pos();
        match self.peek().clone() {
            Tok::Num(n) => {
                self.advance();
                Ok(Expr::Num(n, pos))
            }
            Tok::Str(s) => {
                self.advance();
                Ok(Expr::Str(s, pos))
            }
            Tok::Punct("-") => {
                self.advance();
                let inner = self.term()?;
                Ok(match inner {
                    Expr::Num(n, _) => Expr::Num(n.wrapping_neg(), pos),
                    other => Expr::Neg(Box::new(other), pos),
                })
            }
            Tok::Punct("(") => {
                self.advance();
                let e = self.expr()?;
                self.expect(")")?;
                Ok(e)
            }
            Tok::Ident(name) if name == "_" => {
                self.advance();
                Ok(Expr::Wild(pos))
            }
            Tok::Ident(name) if name == "count" => {
                self.advance();
                self.expect(":")?;
                Ok(Expr::Count(self.aggregate_body()?, pos))
            }
            Tok::Ident(name) if matches!(name.as_str(), "min" | "max" | "sum") => {
                let agg = match name.as_str() {
                    "min" => Agg::Min,
                    "max" => Agg::Max,
                    _ => Agg::Sum,
                };
                self.advance();
                let target = self.expr()?;
                self.expect(":")?;
                let body = self.aggregate_body()?;
                Ok(Expr::Aggregate(agg, Box::new(target), body, pos))
            }
            Tok::Ident(name)
                if name == "ord"
                    && matches!(self.toks.get(self.i + 1), Some((Tok::Punct("("), _))) =>
            {
                self.advance();
                self.expect("(")?;
                let arg = self.expr()?;
                self.expect(")")?;
                Ok(Expr::Ord(Box::new(arg), pos))
            }
            Tok::Ident(name) => {
                if matches!(self.toks.get(self.i + 1), Some((Tok::Punct("("), _))) {
                    return Err(DlError::at(
                        pos,
                        format!("functor `{name}(...)` is not supported (arithmetic: + - * / %, functor: ord, aggregates: count, min, max, sum)"),
                    ));
                }
                if name == "mean" {
                    return Err(DlError::at(
                        pos,
                        "aggregate `mean` is not supported (only count, min, max, sum)",
                    ));
                }
                self.advance();
                Ok(Expr::Var(name, pos))
            }
            _ => Err(self.unexpected("an expression")),
        }
    }
}
