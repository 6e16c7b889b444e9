//! A cheap scan of preprocessed text that bounds how deeply the program nests, before the
//! recursive parser (lang-c) and the recursive lowering see it.
//!
//! Both recurse once per level of syntactic nesting, so a program nested deeply enough
//! would overflow any stack. The scan reads tokens (skipping line markers, strings,
//! character constants and comments) and computes, at every token, an over-approximation of
//! the nesting the parser and the lowering will recurse through:
//!
//! - `depth`: the brackets `( [ {` open at that point (a call's parentheses count
//!   [`CALL_WEIGHT`] levels: lang-c parses nested calls in quadratic time and memory), plus, in each of them, the tokens
//!   that nest the rest of their statement or expression: `if while for switch do else
//!   case default` (an `else` continues its `if`), `?`, the assignment operators, `&&`, `||` and prefix (unary)
//!   operators. A level's count restarts after `;`, `,`, `{` and `}`, except that an
//!   `else` continues the statement it belongs to (so a chain of `else if` counts every
//!   link);
//! - `chain`: the binary operators of one expression (at each bracket level, since the last
//!   `;`, `,`, `{` or `}`, summed over the open brackets). A left-associative chain such as
//!   `1 + 1 + ... + 1` is one deep tree; the lowering walks its left spine iteratively,
//!   but other passes (constant folding, typing) recurse on it.
//!
//! Programs within [`MAX_NESTING`] and [`MAX_CHAIN`] are parsed and lowered on a thread
//! with a [`STACK_SIZE`] stack, which the tests show holds them.

/// The deepest nesting agx accepts (brackets and nesting statements and operators).
pub const MAX_NESTING: usize = 5_000;
/// The longest chain of binary operators in one expression agx accepts.
pub const MAX_CHAIN: usize = 25_000;
/// The stack of the thread that parses and lowers a program.
pub const STACK_SIZE: usize = 512 << 20;
/// The levels the parentheses of a call count for (1,000 nested calls at most).
pub const CALL_WEIGHT: usize = 5;
/// Programs nesting less than this are parsed and lowered on the caller's stack.
pub(crate) const SHALLOW: usize = 100;

/// What the scan found: the maxima, or where a limit is first exceeded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nesting {
    pub depth: usize,
    pub chain: usize,
}

/// A limit exceeded at byte `offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TooDeep {
    Nesting { offset: usize, levels: usize },
    Chain { offset: usize, operators: usize },
}

impl Nesting {
    /// Whether the program is shallow enough for the caller's stack.
    pub fn is_shallow(&self) -> bool {
        self.depth < SHALLOW && self.chain < SHALLOW
    }
}

#[derive(Clone, Copy, Default)]
struct Level {
    /// The levels the bracket that opened this one counts for.
    open: usize,
    nest: usize,
    /// The part of `nest` from statement keywords (`if`, `while`, ...).
    keywords: usize,
    chain: usize,
    /// The nesting count of the statement a `;` or `}` just ended (for `else`).
    ended: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Prev {
    /// Start, an operator or an opening bracket: a following `-`, `*`, `&` is prefix.
    Operator,
    /// An identifier, a constant or a closing bracket: a following `-` is binary.
    Operand,
}

/// Scans preprocessed text with the limits [`MAX_NESTING`] and [`MAX_CHAIN`].
pub fn scan(text: &str) -> Result<Nesting, TooDeep> {
    scan_with(text, MAX_NESTING, MAX_CHAIN)
}

pub(crate) fn scan_with(
    text: &str,
    max_nesting: usize,
    max_chain: usize,
) -> Result<Nesting, TooDeep> {
    let b = text.as_bytes();
    let mut levels = vec![Level::default()];
    // Running sums over `levels` of `nest` (plus one per open bracket) and of `chain`.
    let (mut depth, mut chain) = (0usize, 0usize);
    let mut max = Nesting { depth: 0, chain: 0 };
    let mut prev = Prev::Operator;
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if line_start && c == b'#' {
            // A line marker or a directive left in the text: skip the line.
            i = skip_line(b, i);
            continue;
        }
        line_start = false;
        let top = levels.len() - 1;
        let mut nests = false;
        let mut binary = false;
        match c {
            b'"' | b'\'' => {
                i = skip_quoted(b, i);
                prev = Prev::Operand;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = skip_line(b, i);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                continue;
            }
            _ if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' && next_is_digit(b, i) => {
                let end = ident_end(b, i);
                let word = &text[i..end];
                i = end;
                if word == "else" {
                    // Continues the statement that just ended (its `if` counted already).
                    let l = &mut levels[top];
                    depth = depth - l.nest + l.ended;
                    l.nest = l.ended;
                    l.keywords = l.ended;
                    prev = Prev::Operator;
                } else if matches!(
                    word,
                    "if" | "while" | "for" | "switch" | "do" | "case" | "default"
                ) {
                    levels[top].keywords += 1;
                    nests = true;
                    prev = Prev::Operator;
                } else if word == "sizeof" {
                    nests = true;
                    prev = Prev::Operator;
                } else if matches!(word, "return") {
                    prev = Prev::Operator;
                } else {
                    prev = Prev::Operand;
                }
            }
            b'(' | b'[' | b'{' => {
                i += 1;
                if c == b'{' {
                    end_statement(&mut levels[top], &mut depth, &mut chain, false);
                }
                // The parentheses of a call (after an operand) weigh more: lang-c's
                // parser takes time and memory quadratic in the nesting of calls.
                let open = if c == b'(' && prev == Prev::Operand {
                    CALL_WEIGHT
                } else {
                    1
                };
                levels.push(Level {
                    open,
                    ..Level::default()
                });
                depth += open;
                prev = Prev::Operator;
            }
            b')' | b']' | b'}' => {
                i += 1;
                if levels.len() > 1 {
                    let l = levels.pop().expect("an open bracket");
                    depth -= l.nest + l.open;
                    chain -= l.chain;
                }
                if c == b'}' {
                    let top = levels.len() - 1;
                    end_statement(&mut levels[top], &mut depth, &mut chain, true);
                    prev = Prev::Operator;
                } else {
                    prev = Prev::Operand;
                }
            }
            b';' | b',' => {
                i += 1;
                end_statement(&mut levels[top], &mut depth, &mut chain, c == b';');
                prev = Prev::Operator;
            }
            _ => {
                let (len, kind) = punctuator(&b[i..]);
                i += len.max(1);
                match kind {
                    Punct::Assign | Punct::Question | Punct::Logical => nests = true,
                    Punct::Colon => {}
                    Punct::IncDec if prev == Prev::Operator => nests = true,
                    // A postfix `x++` leaves an operand.
                    Punct::IncDec => continue,
                    Punct::Either if prev == Prev::Operator => nests = true,
                    Punct::Either | Punct::Binary => binary = true,
                    Punct::Prefix => nests = true,
                    // `p->a->b`: a left-deep chain, like binary operators.
                    Punct::Member => binary = true,
                }
                prev = Prev::Operator;
            }
        }
        let top = levels.len() - 1;
        if nests {
            levels[top].nest += 1;
            depth += 1;
            if depth > max_nesting {
                return Err(TooDeep::Nesting {
                    offset: start,
                    levels: depth,
                });
            }
        }
        if binary {
            levels[top].chain += 1;
            chain += 1;
            if chain > max_chain {
                return Err(TooDeep::Chain {
                    offset: start,
                    operators: chain,
                });
            }
        }
        if depth > max_nesting {
            return Err(TooDeep::Nesting {
                offset: start,
                levels: depth,
            });
        }
        max.depth = max.depth.max(depth);
        max.chain = max.chain.max(chain);
    }
    Ok(max)
}

/// `;`, `,`, `{` or `}` ends what the current level's counts were counting.
fn end_statement(l: &mut Level, depth: &mut usize, chain: &mut usize, remember: bool) {
    l.ended = if remember { l.keywords } else { 0 };
    *depth -= l.nest;
    *chain -= l.chain;
    l.nest = 0;
    l.keywords = 0;
    l.chain = 0;
}

#[derive(Clone, Copy)]
enum Punct {
    Assign,
    Question,
    Colon,
    Logical,
    IncDec,
    /// `- + * &`: prefix after an operator, binary after an operand.
    Either,
    Binary,
    /// `! ~`
    Prefix,
    /// `->`, `.`
    Member,
}

fn punctuator(s: &[u8]) -> (usize, Punct) {
    let two = |a: u8, b: u8| s.first() == Some(&a) && s.get(1) == Some(&b);
    for op in ["<<=", ">>="] {
        if s.starts_with(op.as_bytes()) {
            return (3, Punct::Assign);
        }
    }
    if s.starts_with(b"...") {
        return (3, Punct::Member);
    }
    if two(b'-', b'>') {
        return (2, Punct::Member);
    }
    if two(b'+', b'+') || two(b'-', b'-') {
        return (2, Punct::IncDec);
    }
    if two(b'&', b'&') || two(b'|', b'|') {
        return (2, Punct::Logical);
    }
    if two(b'=', b'=') || two(b'!', b'=') || two(b'<', b'=') || two(b'>', b'=') {
        return (2, Punct::Binary);
    }
    if two(b'<', b'<') || two(b'>', b'>') {
        return (2, Punct::Binary);
    }
    if s.len() >= 2 && s[1] == b'=' && b"*/%+-&^|".contains(&s[0]) {
        return (2, Punct::Assign);
    }
    match s.first() {
        Some(b'=') => (1, Punct::Assign),
        Some(b'?') => (1, Punct::Question),
        Some(b':') => (1, Punct::Colon),
        Some(b'-' | b'+' | b'*' | b'&') => (1, Punct::Either),
        Some(b'/' | b'%' | b'<' | b'>' | b'^' | b'|') => (1, Punct::Binary),
        Some(b'!' | b'~') => (1, Punct::Prefix),
        Some(b'.') => (1, Punct::Member),
        _ => (1, Punct::Member),
    }
}

fn next_is_digit(b: &[u8], i: usize) -> bool {
    b.get(i + 1).is_some_and(u8::is_ascii_digit)
}

/// The end of an identifier or a number (with its suffixes, exponents and `.`).
fn ident_end(b: &[u8], mut i: usize) -> usize {
    let number = b[i].is_ascii_digit() || b[i] == b'.';
    while i < b.len() {
        let c = b[i];
        let word = c.is_ascii_alphanumeric() || c == b'_' || number && c == b'.';
        let exponent_sign =
            number && (c == b'+' || c == b'-') && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P');
        if !(word || exponent_sign) {
            break;
        }
        i += 1;
    }
    i
}

fn skip_line(b: &[u8], i: usize) -> usize {
    b[i..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |e| i + e)
}

fn skip_quoted(b: &[u8], i: usize) -> usize {
    let quote = b[i];
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            c if c == quote => return j + 1,
            b'\n' => return j,
            _ => j += 1,
        }
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth(src: &str) -> usize {
        scan_with(src, usize::MAX, usize::MAX).unwrap().depth
    }

    fn chain(src: &str) -> usize {
        scan_with(src, usize::MAX, usize::MAX).unwrap().chain
    }

    #[test]
    fn brackets_and_nesting_statements_count() {
        assert_eq!(depth("int x;"), 0);
        assert_eq!(depth("{ return ((1)); }"), 3);
        // `{`, `if`, `if`, `(b` (or `=`).
        assert_eq!(depth("{ if (a) if (b) x = 1; }"), 4);
        // Each statement restarts the count; an `else if` chain keeps counting.
        assert_eq!(depth("{ if (a) x; if (b) y; }"), 3);
        assert_eq!(depth("{ if (a) x; else if (b) y; else if (c) z; }"), 5);
        // A prefix minus nests, a binary one does not.
        assert_eq!(depth("int x = - - - 1;"), 4);
        assert_eq!(depth("int x = a - b - c;"), 1);
        // `f(` counts 5, `(1` one.
        assert_eq!(depth("int x = f(g((1)));"), 1 + 5 + 5 + 1);
        assert_eq!(chain("int x = a - b - c;"), 2);
        assert_eq!(chain("int x = a - b, y = c - d;"), 1);
        assert_eq!(chain("int x = 2 * f(a + b + c, d);"), 3);
    }

    #[test]
    fn strings_comments_and_markers_are_skipped() {
        assert_eq!(
            depth("# 1 \"((((.c\"\nchar *s = \"((((\"; /* (( */ char c = '(';"),
            1
        );
        assert_eq!(chain("double d = 1.5e+3 + 2;"), 1);
    }

    #[test]
    fn limits_name_the_place_and_the_count() {
        let src = format!("int x = {}1{};", "(".repeat(10), ")".repeat(10));
        assert_eq!(
            scan_with(&src, 5, 100),
            Err(TooDeep::Nesting {
                offset: 12,
                levels: 6
            })
        );
        let sum = format!("int x = 1{};", "+1".repeat(20));
        assert_eq!(
            scan_with(&sum, 100, 10),
            Err(TooDeep::Chain {
                offset: 29,
                operators: 11
            })
        );
    }
}
