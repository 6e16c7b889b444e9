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

mod ast;
mod lexer;
mod parser;

pub use ast::*;
use lexer::{Lexer, Tok};
use parser::Parser;

use super::DlError;
use std::path::Path;

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
