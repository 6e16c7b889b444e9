//! The Soufflé subset agx reads: lexer and parser to an AST with positions.
//!
//! ```text
//! program    := item*
//! item       := '.decl' NAME '(' NAME ':' TYPE (',' NAME ':' TYPE)* ')' qualifier*
//!             | '.type' NAME ('<:' | '=') TYPE
//!             | ('.input' | '.output' | '.printsize') NAME (',' NAME)* ['(' params ')']
//!             | atom (':-' body)? '.'
//!             | '#include' STRING
//! body       := conj (';' conj)*            (disjunction: one rule per alternative of
//! conj       := literal (',' literal)*       its disjunctive normal form)
//! literal    := atom | '!' atom | expr CMP expr | '(' body ')'
//! expr       := term (('+' | '-' | '*' | '/' | '%') term)*   (usual precedence)
//! term       := NUMBER | STRING | VAR | '_' | '-' term | '(' expr ')' | 'ord' '(' expr ')'
//!             | 'count' ':' (atom | '{' conj '}')
//!             | ('min' | 'max' | 'sum') term ':' (atom | '{' conj '}')
//! ```
//! Comments are `//` and `/* */`.

use super::DlError;
use std::path::{Path, PathBuf};

/// A position in a rules file (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pos {
    pub file: std::sync::Arc<PathBuf>,
    pub line: u32,
    pub col: u32,
}

impl std::fmt::Display for Pos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.col)
    }
}

/// A column type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    Number,
    Symbol,
}

impl Type {
    pub fn name(self) -> &'static str {
        match self {
            Type::Number => "number",
            Type::Symbol => "symbol",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Decl {
    pub name: String,
    pub columns: Vec<(String, Type)>,
    pub pos: Pos,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub fn is_order(self) -> bool {
        !matches!(self, CmpOp::Eq | CmpOp::Ne)
    }
}

#[derive(Clone, Debug)]
pub enum Expr {
    Var(String, Pos),
    Wild(Pos),
    Num(i64, Pos),
    Str(String, Pos),
    Arith(ArithOp, Box<Expr>, Box<Expr>, Pos),
    Neg(Box<Expr>, Pos),
    /// `ord(e)`: a symbol's ordinal, a number (see [`super::value`]).
    Ord(Box<Expr>, Pos),
    Count(Vec<Literal>, Pos),
    /// `min e : { body }` (and `max`, `sum`): `e` over the body's matches.
    Aggregate(Agg, Box<Expr>, Vec<Literal>, Pos),
}

/// An aggregate over the values of an expression (`count` is [`Expr::Count`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agg {
    Min,
    Max,
    Sum,
}

impl Agg {
    pub fn name(self) -> &'static str {
        match self {
            Agg::Min => "min",
            Agg::Max => "max",
            Agg::Sum => "sum",
        }
    }
}

impl Expr {
    pub fn pos(&self) -> &Pos {
        match self {
            Expr::Var(_, p)
            | Expr::Wild(p)
            | Expr::Num(_, p)
            | Expr::Str(_, p)
            | Expr::Arith(_, _, _, p)
            | Expr::Neg(_, p)
            | Expr::Ord(_, p)
            | Expr::Count(_, p)
            | Expr::Aggregate(_, _, _, p) => p,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Atom {
    pub name: String,
    pub args: Vec<Expr>,
    pub pos: Pos,
}

#[derive(Clone, Debug)]
pub enum Literal {
    Pos(Atom),
    Neg(Atom),
    Cmp(CmpOp, Expr, Expr, Pos),
}

#[derive(Clone, Debug)]
pub struct Rule {
    pub head: Atom,
    pub body: Vec<Literal>,
    pub pos: Pos,
}

/// A parsed rules file (with its includes).
#[derive(Clone, Debug, Default)]
pub struct Ast {
    pub decls: Vec<Decl>,
    pub inputs: Vec<(String, Pos)>,
    pub outputs: Vec<(String, Pos)>,
    pub rules: Vec<Rule>,
    /// `#include "…/schema.dl"`: every agx fact relation is declared as an input.
    pub includes_schema: bool,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Directive(String),
    Num(i64),
    Str(String),
    Include(String),
    Punct(&'static str),
    Eof,
}

const PUNCTS: &[&str] = &[
    ":-", "!=", "<=", ">=", "<:", "(", ")", ",", ".", ":", "!", "=", "<", ">", "+", "-", "*", "/",
    "%", "{", "}", ";",
];

/// Names that start an expression, never an atom.
const RESERVED: &[&str] = &["count", "min", "max", "sum", "mean", "ord"];

struct Lexer<'a> {
    src: &'a [u8],
    i: usize,
    line: u32,
    col: u32,
    file: std::sync::Arc<PathBuf>,
}

impl<'a> Lexer<'a> {
    fn pos(&self) -> Pos {
        Pos {
            file: self.file.clone(),
            line: self.line,
            col: self.col,
        }
    }

    fn bump(&mut self) -> u8 {
        let c = self.src[self.i];
        self.i += 1;
        if c == b'\n' {
            self.line += 1;
            self.col = 1;
        } else if c & 0xC0 != 0x80 {
            self.col += 1;
        }
        c
    }

    fn peek(&self, k: usize) -> Option<u8> {
        self.src.get(self.i + k).copied()
    }

    fn err(&self, pos: Pos, message: impl Into<String>) -> DlError {
        DlError::at(pos, message)
    }

    fn skip_space(&mut self) -> Result<(), DlError> {
        loop {
            match (self.peek(0), self.peek(1)) {
                (Some(c), _) if c.is_ascii_whitespace() => {
                    self.bump();
                }
                (Some(b'/'), Some(b'/')) => {
                    while self.peek(0).is_some_and(|c| c != b'\n') {
                        self.bump();
                    }
                }
                (Some(b'/'), Some(b'*')) => {
                    let start = self.pos();
                    self.bump();
                    self.bump();
                    loop {
                        match (self.peek(0), self.peek(1)) {
                            (Some(b'*'), Some(b'/')) => {
                                self.bump();
                                self.bump();
                                break;
                            }
                            (Some(_), _) => {
                                self.bump();
                            }
                            (None, _) => return Err(self.err(start, "unterminated comment")),
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn ident(&mut self) -> String {
        let start = self.i;
        while self
            .peek(0)
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'?')
        {
            self.bump();
        }
        String::from_utf8_lossy(&self.src[start..self.i]).into_owned()
    }

    fn string(&mut self, start: Pos) -> Result<String, DlError> {
        self.bump();
        let mut out = Vec::new();
        loop {
            match self.peek(0) {
                None | Some(b'\n') => return Err(self.err(start, "unterminated string")),
                Some(b'"') => {
                    self.bump();
                    break;
                }
                Some(b'\\') => {
                    self.bump();
                    let c = self
                        .peek(0)
                        .ok_or_else(|| self.err(start.clone(), "unterminated string"))?;
                    self.bump();
                    out.push(match c {
                        b'n' => b'\n',
                        b't' => b'\t',
                        other => other,
                    });
                }
                Some(_) => out.push(self.bump()),
            }
        }
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    fn next(&mut self) -> Result<(Tok, Pos), DlError> {
        self.skip_space()?;
        let pos = self.pos();
        let Some(c) = self.peek(0) else {
            return Ok((Tok::Eof, pos));
        };
        if c == b'#' {
            self.bump();
            let word = self.ident();
            if word != "include" {
                return Err(self.err(
                    pos,
                    format!(
                        "unsupported preprocessor directive `#{word}` (only `#include \"FILE\"`)"
                    ),
                ));
            }
            self.skip_space()?;
            if self.peek(0) != Some(b'"') {
                return Err(self.err(
                    self.pos(),
                    "expected a file name in quotes after `#include`",
                ));
            }
            let p = self.pos();
            let file = self.string(p)?;
            return Ok((Tok::Include(file), pos));
        }
        if c == b'.' && self.peek(1).is_some_and(|d| d.is_ascii_alphabetic()) {
            self.bump();
            return Ok((Tok::Directive(self.ident()), pos));
        }
        if c.is_ascii_alphabetic() || c == b'_' || c == b'?' {
            return Ok((Tok::Ident(self.ident()), pos));
        }
        if c.is_ascii_digit() {
            let start = self.i;
            let hex = c == b'0' && matches!(self.peek(1), Some(b'x' | b'X'));
            if hex {
                self.bump();
                self.bump();
            }
            while self.peek(0).is_some_and(|d| d.is_ascii_alphanumeric()) {
                self.bump();
            }
            let text = String::from_utf8_lossy(&self.src[start..self.i]).into_owned();
            let value = if hex {
                i64::from_str_radix(&text[2..], 16)
            } else {
                text.parse::<i64>()
            };
            return value
                .map(|v| (Tok::Num(v), pos.clone()))
                .map_err(|_| self.err(pos, format!("bad number `{text}`")));
        }
        if c == b'"' {
            let s = self.string(pos.clone())?;
            return Ok((Tok::Str(s), pos));
        }
        for p in PUNCTS {
            if self.src[self.i..].starts_with(p.as_bytes()) {
                for _ in 0..p.len() {
                    self.bump();
                }
                return Ok((Tok::Punct(p), pos));
            }
        }
        let ch = std::str::from_utf8(&self.src[self.i..])
            .ok()
            .and_then(|s| s.chars().next())
            .unwrap_or('?');
        Err(self.err(pos, format!("unexpected character `{ch}`")))
    }
}

struct Parser<'a> {
    toks: Vec<(Tok, Pos)>,
    i: usize,
    dir: &'a Path,
    depth: usize,
    load: Loader<'a>,
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

    fn program(&mut self, ast: &mut Ast, types: &mut Vec<(String, Type)>) -> Result<(), DlError> {
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

/// Reads an included file.
pub type Loader<'a> = &'a dyn Fn(&Path) -> std::io::Result<String>;

fn parse_into(
    text: &str,
    path: &Path,
    depth: usize,
    load: Loader<'_>,
    ast: &mut Ast,
    types: &mut Vec<(String, Type)>,
) -> Result<(), DlError> {
    let mut lexer = Lexer {
        src: text.as_bytes(),
        i: 0,
        line: 1,
        col: 1,
        file: std::sync::Arc::new(path.to_path_buf()),
    };
    let mut toks = Vec::new();
    loop {
        let t = lexer.next()?;
        let end = t.0 == Tok::Eof;
        toks.push(t);
        if end {
            break;
        }
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut parser = Parser {
        toks,
        i: 0,
        dir,
        depth,
        load,
    };
    parser.program(ast, types)
}

/// Parses a rules file; `path` names it in errors and resolves `#include`s, which are
/// read from disk.
pub fn parse(text: &str, path: &Path) -> Result<Ast, DlError> {
    parse_with(text, path, &|p| std::fs::read_to_string(p))
}

/// Parses a rules file whose `#include`s `load` reads (the shipped rule sets read their
/// shared parts from the binary, wherever it runs).
pub fn parse_with(text: &str, path: &Path, load: Loader<'_>) -> Result<Ast, DlError> {
    let mut ast = Ast::default();
    let mut types = Vec::new();
    parse_into(text, path, 0, load, &mut ast, &mut types)?;
    Ok(ast)
}
