//! Front end: C source to a lang-c AST with every byte mapped back to the original file
//! and line.
//!
//! `.c` files go through the system `gcc -E` (user `-I`/`-D` flags passed through); `.i`
//! files are taken as they are. The preprocessed text keeps gcc's line markers
//! (`# 12 "file.c"`), from which [`SourceMap`] maps every byte offset of the AST's spans
//! back to the original file and line.

mod implicit_int;
pub mod libc;
pub mod nesting;
mod source_map;

pub use source_map::SourceMap;

use crate::ir::{DataModel, Span};
use std::path::{Path, PathBuf};
use std::process::Command;
use thiserror::Error;

/// How to read a C program.
#[derive(Clone, Debug, Default)]
pub struct FrontendOptions {
    /// `-I` directories passed to the preprocessor.
    pub include_dirs: Vec<PathBuf>,
    /// `-D` definitions (`NAME` or `NAME=VALUE`) passed to the preprocessor.
    pub defines: Vec<String>,
    /// Integer widths used for the program's types.
    pub data_model: DataModel,
}

/// A location in the original source, for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceLoc {
    pub file: String,
    pub line: u32,
}

impl std::fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// Why a program could not be turned into IR. Every variant names where.
#[derive(Debug, Error)]
pub enum FrontendError {
    // The I/O error is part of the message, not a `source`: printers that show a chain
    // of sources would say it twice.
    #[error("{path}: no such file")]
    NotFound { path: String },
    #[error("cannot read {path}: {reason}")]
    Io {
        path: String,
        reason: std::io::Error,
    },
    #[error("{path}: unsupported input file type (expected .c or .i)")]
    FileType { path: String },
    #[error("{path}: not a C source file (binary data: a NUL byte at offset {offset})")]
    Binary { path: String, offset: usize },
    #[error("{at}: not UTF-8 text (byte 0x{byte:02X}); agx reads UTF-8 source files")]
    NotUtf8 { at: SourceLoc, byte: u8 },
    /// gcc's first error line, and how many more lines it printed.
    #[error("{path}: preprocessing with gcc -E failed: {message}")]
    Preprocess { path: String, message: String },
    #[error("{at}: syntax error at column {column}: unexpected input, expected one of {expected}")]
    Syntax {
        at: SourceLoc,
        column: usize,
        expected: String,
    },
    #[error("{at}: unsupported: {construct}")]
    Unsupported { at: SourceLoc, construct: String },
    #[error("{at}: {message}")]
    Invalid { at: SourceLoc, message: String },
    #[error("{at}: nesting too deep ({levels} levels; agx supports {max})")]
    TooDeep {
        at: SourceLoc,
        levels: usize,
        max: usize,
    },
    #[error(
        "{at}: expression too long ({operators} binary operators in one expression; agx supports {max})"
    )]
    TooLong {
        at: SourceLoc,
        operators: usize,
        max: usize,
    },
    #[error("cannot start the parser thread (a {mib} MiB stack): {reason}")]
    Thread { mib: usize, reason: std::io::Error },
}

impl FrontendError {
    /// The source location the error names, if it names one.
    pub fn location(&self) -> Option<&SourceLoc> {
        match self {
            FrontendError::Syntax { at, .. }
            | FrontendError::Unsupported { at, .. }
            | FrontendError::Invalid { at, .. }
            | FrontendError::NotUtf8 { at, .. }
            | FrontendError::TooDeep { at, .. }
            | FrontendError::TooLong { at, .. } => Some(at),
            _ => None,
        }
    }
}

/// A parsed translation unit with its source map.
pub struct ParsedUnit {
    pub unit: lang_c::ast::TranslationUnit,
    pub source: String,
    pub map: SourceMap,
    /// Nested too deeply for the caller's stack: the lowering and the drop of the syntax
    /// tree run on a thread with a [`nesting::STACK_SIZE`] stack, as the parse did.
    pub(crate) deep: bool,
    /// The library functions and variables the program uses that agx's C model of the
    /// library ([`libc`]) provides: their model code is part of `unit`.
    pub linked: std::collections::BTreeSet<String>,
}

impl Drop for ParsedUnit {
    fn drop(&mut self) {
        if self.deep {
            // Dropping a deep syntax tree recurses as deeply as it nests.
            let unit = std::mem::take(&mut self.unit.0);
            // If the thread cannot start, the tree is leaked rather than overflow the stack.
            let _ = on_big_stack(move || drop(unit));
        }
    }
}

/// Runs `f` on a thread with a [`nesting::STACK_SIZE`] stack and waits for it.
pub(crate) fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> Result<T, FrontendError> {
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("agx-frontend".into())
            .stack_size(nesting::STACK_SIZE)
            .spawn_scoped(scope, f)
            .map_err(|reason| FrontendError::Thread {
                mib: nesting::STACK_SIZE >> 20,
                reason,
            })?;
        Ok(handle
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    })
}

impl ParsedUnit {
    pub fn span(&self, offset: usize) -> Span {
        self.map.span(&self.source, offset)
    }

    pub fn loc(&self, offset: usize) -> SourceLoc {
        self.map.loc(&self.source, offset)
    }
}

/// Reads `path` (`.c` through `gcc -E`, `.i` as is) and parses it with lang-c (GNU C11).
pub fn parse_file(path: &Path, opts: &FrontendOptions) -> Result<ParsedUnit, FrontendError> {
    let shown = path.display().to_string();
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let text = match ext {
        "c" | "h" => preprocess(path, opts)?,
        "i" => {
            let bytes = read_source(path)?;
            utf8(bytes, &shown)?
        }
        _ => return Err(FrontendError::FileType { path: shown }),
    };
    parse_preprocessed(text, &shown)
}

/// Parses already preprocessed text; `name` is the file name used where the text has no
/// line markers. The parts of agx's C library model ([`libc`]) the program uses are
/// appended to the text, which is then parsed again with them.
pub fn parse_preprocessed(text: String, name: &str) -> Result<ParsedUnit, FrontendError> {
    let unit = parse_text(text.clone(), name)?;
    let find = |unit: &ParsedUnit| libc::link(&unit.unit);
    let linked = if unit.deep {
        on_big_stack(|| find(&unit))?
    } else {
        find(&unit)
    };
    if linked.used.is_empty() {
        return Ok(unit);
    }
    drop(unit);
    let mut unit = parse_text(text + &linked.text, name)?;
    unit.linked = linked.used;
    Ok(unit)
}

/// At most this many implicit-`int` declarations are rewritten (each costs a parse).
const MAX_IMPLICIT_INT: usize = 256;

/// Parses preprocessed text, with C89's implicit `int` made explicit where the parser
/// stops at one ([`implicit_int`]). A syntax error that is not an implicit `int` is
/// reported where it stands in the text as given (the inserted `int`s taken out of its
/// column; they never change a line).
fn parse_text(mut text: String, name: &str) -> Result<ParsedUnit, FrontendError> {
    // Offsets in `text` where an `int ` was inserted.
    let mut inserted: Vec<usize> = Vec::new();
    loop {
        let (offset, mut error) = match parse_once(text.clone(), name)? {
            Attempt::Parsed(unit) => return Ok(unit),
            Attempt::Syntax { offset, error } => (offset, error),
        };
        match implicit_int::insertion_point(&text, offset) {
            Some(at) if inserted.len() < MAX_IMPLICIT_INT => {
                text.insert_str(at, "int ");
                for o in inserted.iter_mut().filter(|o| **o >= at) {
                    *o += "int ".len();
                }
                inserted.push(at);
            }
            _ => {
                if let FrontendError::Syntax { column, .. } = &mut error {
                    let line_start = text[..offset.min(text.len())]
                        .rfind('\n')
                        .map_or(0, |n| n + 1);
                    let before = inserted.iter().filter(|&&o| o >= line_start && o < offset);
                    *column -= before.count() * "int ".len();
                }
                return Err(error);
            }
        }
    }
}

/// The result of one parse: a unit, or a syntax error at a byte offset of the text.
enum Attempt {
    Parsed(ParsedUnit),
    Syntax { offset: usize, error: FrontendError },
}

/// Parses preprocessed text as it is.
fn parse_once(text: String, name: &str) -> Result<Attempt, FrontendError> {
    let (source, thread_locals) = blank_gnu_keywords(text);
    let map = SourceMap::new(&source, name, thread_locals);
    let shape = match nesting::scan(&source) {
        Ok(shape) => shape,
        Err(nesting::TooDeep::Nesting { offset, levels }) => {
            return Err(FrontendError::TooDeep {
                at: map.loc(&source, offset),
                levels,
                max: nesting::MAX_NESTING,
            })
        }
        Err(nesting::TooDeep::Chain { offset, operators }) => {
            return Err(FrontendError::TooLong {
                at: map.loc(&source, offset),
                operators,
                max: nesting::MAX_CHAIN,
            })
        }
    };
    let deep = !shape.is_shallow();
    let parse = move || {
        let config = lang_c::driver::Config::with_gcc();
        lang_c::driver::parse_preprocessed(&config, source)
    };
    let parsed = if deep { on_big_stack(parse)? } else { parse() };
    match parsed {
        Ok(parse) => Ok(Attempt::Parsed(ParsedUnit {
            unit: parse.unit,
            source: parse.source,
            map,
            deep,
            linked: Default::default(),
        })),
        Err(e) => {
            let at = map.loc(&e.source, e.offset);
            let mut expected: Vec<&str> = e.expected.iter().copied().collect();
            expected.sort_unstable();
            expected.truncate(12);
            Ok(Attempt::Syntax {
                offset: e.offset,
                error: FrontendError::Syntax {
                    at,
                    column: e.column,
                    expected: expected.join(" "),
                },
            })
        }
    }
}

fn preprocess(path: &Path, opts: &FrontendOptions) -> Result<String, FrontendError> {
    let shown = path.display().to_string();
    // Check the file itself first, so that a binary or non-UTF-8 file is named as such
    // (gcc would print pages of warnings about it).
    let bytes = read_source(path)?;
    utf8(bytes, &shown)?;
    let mut cmd = Command::new("gcc");
    cmd.arg("-E");
    for dir in &opts.include_dirs {
        cmd.arg("-I").arg(dir);
    }
    for def in &opts.defines {
        cmd.arg(format!("-D{def}"));
    }
    cmd.arg(path);
    let out = cmd.output().map_err(|reason| FrontendError::Io {
        path: "gcc".into(),
        reason,
    })?;
    if !out.status.success() {
        return Err(FrontendError::Preprocess {
            path: shown,
            message: gcc_error(&String::from_utf8_lossy(&out.stderr)),
        });
    }
    // A header that is not UTF-8 shows only in the preprocessed text.
    utf8(out.stdout, &shown)
}

/// Reads a source file; a missing file and a binary file get their own errors.
fn read_source(path: &Path) -> Result<Vec<u8>, FrontendError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|reason| match reason.kind() {
        std::io::ErrorKind::NotFound => FrontendError::NotFound {
            path: shown.clone(),
        },
        _ => FrontendError::Io {
            path: shown.clone(),
            reason,
        },
    })?;
    if let Some(offset) = bytes.iter().position(|&b| b == 0) {
        return Err(FrontendError::Binary {
            path: shown,
            offset,
        });
    }
    Ok(bytes)
}

/// The text of (preprocessed) source bytes, or where the first byte that is not UTF-8
/// stands (through the line markers of preprocessed text).
fn utf8(bytes: Vec<u8>, name: &str) -> Result<String, FrontendError> {
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let bytes = e.into_bytes();
        let byte = bytes[offset];
        // Every byte before `offset` is valid, so offsets agree with the lossy text.
        let text = String::from_utf8_lossy(&bytes);
        let map = SourceMap::new(&text, name, Vec::new());
        FrontendError::NotUtf8 {
            at: map.loc(&text, offset),
            byte,
        }
    })
}

/// gcc's first error line (`file:line:col: error: ...`), with a count of the lines left
/// out; its whole output when no line says `error`.
fn gcc_error(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    let first = lines.iter().position(|l| l.contains("error")).unwrap_or(0);
    match lines.get(first) {
        None => "gcc printed nothing".to_string(),
        Some(line) if lines.len() == 1 => line.trim().to_string(),
        Some(line) => format!(
            "{} ({} more line(s) from gcc)",
            line.trim(),
            lines.len() - 1
        ),
    }
}

/// Replaces GNU keywords lang-c does not know by spaces (keeping every byte offset) and
/// returns the offsets where `__thread` stood, so the lowering can make those globals
/// thread-local.
fn blank_gnu_keywords(mut text: String) -> (String, Vec<usize>) {
    let mut thread_locals = Vec::new();
    for kw in ["__thread", "_Thread_local"] {
        let mut from = 0;
        while let Some(pos) = text[from..].find(kw) {
            let at = from + pos;
            let end = at + kw.len();
            let before_ok = at == 0 || !is_ident_byte(text.as_bytes()[at - 1]);
            let after_ok = end == text.len() || !is_ident_byte(text.as_bytes()[end]);
            if before_ok && after_ok {
                text.replace_range(at..end, &" ".repeat(kw.len()));
                thread_locals.push(at);
            }
            from = end;
        }
    }
    thread_locals.sort_unstable();
    (text, thread_locals)
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}
