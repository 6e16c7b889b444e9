//! The lexer: rules-file text to tokens with positions, skipping comments.

use super::Pos;
use crate::dl::DlError;
use std::path::PathBuf;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
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
pub(super) const RESERVED: &[&str] = &["count", "min", "max", "sum", "mean", "ord"];

pub(super) struct Lexer<'a> {
    pub(super) src: &'a [u8],
    pub(super) i: usize,
    pub(super) line: u32,
    pub(super) col: u32,
    pub(super) file: std::sync::Arc<PathBuf>,
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

    pub(super) fn next(&mut self) -> Result<(Tok, Pos), DlError> {
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
