//! C89's implicit `int`: a declaration with storage-class specifiers or qualifiers but no
//! type specifier (`static x;`, `register i;`, `const n = 3;`, `extern f();`) and an old
//! style function definition with no return type (`main(argc, argv) int argc; ... {`) have
//! type `int`. lang-c parses C11, where both are syntax errors.
//!
//! The rewrite is driven by the parser: only where lang-c reports a syntax error, and only
//! if the tokens there have exactly one of the two shapes above, is `int ` inserted before
//! the declarator, which is what C89 says the declaration means. Anywhere else (a missing
//! typedef, a typo) nothing is inserted and the parser's error stands. The insertion stays
//! within its line, so the source map's file:line for every byte is unchanged.

/// Words that may precede the declarator of an implicit-`int` declaration: storage
/// classes, qualifiers and function specifiers, none of which names a type.
const NON_TYPE_SPECIFIERS: &[&str] = &[
    "static",
    "extern",
    "register",
    "auto",
    "const",
    "volatile",
    "__const",
    "__volatile__",
    "inline",
    "__inline",
    "__inline__",
    "_Noreturn",
];

/// The C keywords an identifier at the error cannot be (it would not be a declarator).
const KEYWORDS: &[&str] = &[
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "_Bool",
    "_Noreturn",
];

#[derive(Debug, PartialEq)]
enum Token<'a> {
    Word(&'a str),
    Punct(u8),
    /// A string or character literal, or a number.
    Literal,
}

/// Where `int ` must be inserted so that the syntax error lang-c reported at `offset`
/// becomes the C89 implicit-`int` declaration it is, or `None` if the text there is not
/// one.
pub fn insertion_point(text: &str, offset: usize) -> Option<usize> {
    let scan = scan_upto(text, offset)?;
    let (at, first) = token_at(text, offset)?;
    let prefix = &scan.since_delimiter;
    let all_non_type = prefix
        .iter()
        .all(|t| matches!(t, Token::Word(w) if NON_TYPE_SPECIFIERS.contains(w)));
    if !all_non_type || scan.parens != 0 {
        return None;
    }
    match first {
        // `static x;`, `const n = 3;`, `extern f();`
        Token::Word(w) if !prefix.is_empty() && !KEYWORDS.contains(&w) => Some(at),
        // `static *p;`
        Token::Punct(b'*') if !prefix.is_empty() => Some(at),
        // `main(argc, argv) ...` at file scope, where only declarations stand.
        Token::Word(w) if scan.braces == 0 && !KEYWORDS.contains(&w) => {
            let after = token_at(text, at + w.len()).map(|(_, t)| t);
            (after == Some(Token::Punct(b'('))).then_some(at)
        }
        _ => None,
    }
}

/// The token starting at or after `offset` (after white space), with its offset.
fn token_at(text: &str, offset: usize) -> Option<(usize, Token<'_>)> {
    let bytes = text.as_bytes();
    let mut i = offset;
    while i < bytes.len() && bytes[i].is_ascii_whitespace() {
        i += 1;
    }
    let (token, _) = next_token(text, i)?;
    Some((i, token))
}

/// What the text before the error says about the place of the error.
struct Scan<'a> {
    /// Nesting depth of braces and parentheses at the error.
    braces: usize,
    parens: usize,
    /// The tokens since the last `;`, `{` or `}` (the start of the declaration).
    since_delimiter: Vec<Token<'a>>,
}

/// Tokenizes `text[..end]`, skipping white space and preprocessor lines (gcc's line
/// markers, `#pragma`). `None` if the braces or parentheses do not balance.
fn scan_upto(text: &str, end: usize) -> Option<Scan<'_>> {
    let bytes = text.as_bytes();
    let mut scan = Scan {
        braces: 0,
        parens: 0,
        since_delimiter: Vec::new(),
    };
    let mut i = 0;
    let mut line_start = true;
    while i < end.min(bytes.len()) {
        let b = bytes[i];
        if b == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if b.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if b == b'#' && line_start {
            i = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
            continue;
        }
        line_start = false;
        let (token, next) = next_token(text, i)?;
        match token {
            Token::Punct(b'{') => scan.braces += 1,
            Token::Punct(b'}') => scan.braces = scan.braces.checked_sub(1)?,
            Token::Punct(b'(') => scan.parens += 1,
            Token::Punct(b')') => scan.parens = scan.parens.checked_sub(1)?,
            _ => {}
        }
        if matches!(token, Token::Punct(b';' | b'{' | b'}')) {
            scan.since_delimiter.clear();
        } else {
            scan.since_delimiter.push(token);
        }
        i = next;
    }
    Some(scan)
}

/// The token at `i` (not white space) and the offset after it.
fn next_token(text: &str, i: usize) -> Option<(Token<'_>, usize)> {
    let bytes = text.as_bytes();
    let b = *bytes.get(i)?;
    if b.is_ascii_alphabetic() || b == b'_' {
        let end = i + bytes[i..]
            .iter()
            .take_while(|&&c| c.is_ascii_alphanumeric() || c == b'_')
            .count();
        return Some((Token::Word(&text[i..end]), end));
    }
    if b.is_ascii_digit() {
        let end = i + bytes[i..]
            .iter()
            .take_while(|&&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
            .count();
        return Some((Token::Literal, end));
    }
    if b == b'"' || b == b'\'' {
        let mut j = i + 1;
        while j < bytes.len() && bytes[j] != b {
            j += if bytes[j] == b'\\' { 2 } else { 1 };
        }
        return Some((Token::Literal, (j + 1).min(bytes.len())));
    }
    // A UTF-8 sequence outside a literal is one (invalid) token, not split.
    let len = text[i..].chars().next().map_or(1, char::len_utf8);
    Some((Token::Punct(b), i + len))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(text: &str, error_at: &str) -> Option<String> {
        let offset = text.find(error_at).expect("error marker in text");
        insertion_point(text, offset).map(|at| format!("{}int {}", &text[..at], &text[at..]))
    }

    #[test]
    fn storage_classes_and_qualifiers_without_a_type_get_int() {
        assert_eq!(
            rewrite("static x;\n", "x;").as_deref(),
            Some("static int x;\n")
        );
        assert_eq!(
            rewrite("int f() { register i; }", "i;").as_deref(),
            Some("int f() { register int i; }")
        );
        assert_eq!(
            rewrite("const volatile n = 3;", "n =").as_deref(),
            Some("const volatile int n = 3;")
        );
        assert_eq!(
            rewrite("extern h(int);", "h(").as_deref(),
            Some("extern int h(int);")
        );
        assert_eq!(
            rewrite("static *p;", "*p").as_deref(),
            Some("static int *p;")
        );
    }

    #[test]
    fn an_old_style_function_at_file_scope_gets_int() {
        let text = "# 1 \"t.c\"\nint g;\nmain(argc, argv) int argc; char **argv; { }";
        assert_eq!(
            rewrite(text, "main").as_deref(),
            Some("# 1 \"t.c\"\nint g;\nint main(argc, argv) int argc; char **argv; { }")
        );
    }

    #[test]
    fn other_syntax_errors_are_left_alone() {
        // An unknown type name, a statement, a keyword, a call in a function body.
        assert_eq!(rewrite("mytype x;", "x;"), None);
        assert_eq!(rewrite("int f() { g(1) }", "}"), None);
        assert_eq!(rewrite("static return;", "return"), None);
        assert_eq!(rewrite("int f() { g(1) h(2); }", "h("), None);
        // Inside parentheses (a parameter list, a `for` header).
        assert_eq!(rewrite("int f(register x);", "x)"), None);
        // A file-scope identifier not followed by `(`.
        assert_eq!(rewrite("x;", "x;"), None);
        // A `;` inside a string does not end the declaration.
        assert_eq!(rewrite("char *s = \";\"; t v;", "v;"), None);
    }
}
