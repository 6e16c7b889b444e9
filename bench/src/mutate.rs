//! Version pairs for incremental verification (issue 11): small source edits of a C
//! program, the kinds of change Conc-iSE's evaluation makes — a changed constant, an
//! added or deleted statement, a moved lock, a moved or negated assertion.
//!
//! Edits are textual and line-based, on lines inside function bodies that hold one
//! simple statement, so most mutants still compile; a caller drops the ones agx rejects.
//! Only the program's own code is edited: in preprocessed input (`.i`, or `gcc -E`
//! output) the line markers `# N "file" ...` tell which lines came from an included
//! header, and those are never candidates (an edit of a libc struct field is no change
//! of the program); a line counts as in a function body only inside the braces of a
//! definition (`{` after a `)` at file scope), not of a struct, union, enum or
//! initializer ([`own_body_lines`]).
//! Everything is deterministic: the `i`-th mutant of a kind is always the same edit.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    ChangedConstant,
    AddedStatement,
    DeletedStatement,
    MovedLock,
    MovedAssertion,
    NegatedAssertion,
}

impl Kind {
    pub const ALL: [Kind; 6] = [
        Kind::ChangedConstant,
        Kind::AddedStatement,
        Kind::DeletedStatement,
        Kind::MovedLock,
        Kind::MovedAssertion,
        Kind::NegatedAssertion,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::ChangedConstant => "constant",
            Kind::AddedStatement => "added",
            Kind::DeletedStatement => "deleted",
            Kind::MovedLock => "moved-lock",
            Kind::MovedAssertion => "moved-assert",
            Kind::NegatedAssertion => "negated-assert",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One edited version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mutant {
    pub kind: Kind,
    /// The 1-based line the edit is about (in the old version).
    pub line: usize,
    pub source: String,
}

/// The `pick`-th candidate edit of `kind` (modulo the number of candidates), or `None`
/// when the program offers none.
pub fn mutate(source: &str, kind: Kind, pick: usize) -> Option<Mutant> {
    let lines: Vec<&str> = source.lines().collect();
    let own = own_body_lines(&lines);
    let candidates: Vec<usize> = (0..lines.len())
        .filter(|&i| applies(kind, &lines, i) && edited_lines(kind, i).all(|j| own[j]))
        .collect();
    if candidates.is_empty() {
        return None;
    }
    let i = candidates[pick % candidates.len()];
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    match kind {
        Kind::ChangedConstant => out[i] = bump_constant(lines[i])?,
        Kind::AddedStatement => out.insert(i + 1, lines[i].to_string()),
        Kind::DeletedStatement => {
            out.remove(i);
        }
        Kind::MovedLock => out.swap(i, i + 1),
        Kind::MovedAssertion => out.swap(i - 1, i),
        Kind::NegatedAssertion => out[i] = negate_assertion(lines[i])?,
    }
    let mut text = out.join("\n");
    text.push('\n');
    Some(Mutant {
        kind,
        line: i + 1,
        source: text,
    })
}

/// The lines an edit of `kind` at line `i` touches.
fn edited_lines(kind: Kind, i: usize) -> std::ops::RangeInclusive<usize> {
    match kind {
        Kind::MovedLock => i..=i + 1,
        Kind::MovedAssertion => i - 1..=i,
        _ => i..=i,
    }
}

/// For each line: does it lie inside a function body of the program's own file?
///
/// The own file is the one named by the first line marker (`# 1 "prog.c"`, or
/// `#line 1 "prog.c"`); text after a marker naming another file (a header, or gcc's
/// `<built-in>`) is not own until a marker names it again. Without markers every line
/// is own. A body is the text between a `{` at brace depth 0 whose file-scope text
/// before it (since the last `;` or `}` at depth 0) ends with `)` and holds no `=`,
/// and its matching `}`, unless the function is the implementation's
/// ([`implementation_function`]: what still tells header code apart when the markers
/// were stripped); a line is in it when the line starts inside it. Braces in
/// comments, string and character literals do not count.
pub fn own_body_lines(lines: &[&str]) -> Vec<bool> {
    let mut out = Vec::with_capacity(lines.len());
    let mut main_file: Option<String> = None;
    let mut own = true;
    let mut depth = 0usize;
    let mut in_function = false;
    let mut head = String::new();
    let mut in_comment = false;
    for line in lines {
        if !in_comment {
            if let Some(file) = marker_file(line) {
                let main = main_file.get_or_insert_with(|| file.clone());
                own = *main == file;
                out.push(false);
                continue;
            }
        }
        out.push(own && in_function && depth > 0);
        let b = line.as_bytes();
        let mut i = 0;
        let mut quote: Option<u8> = None;
        while i < b.len() {
            let c = b[i];
            if in_comment {
                if c == b'*' && b.get(i + 1) == Some(&b'/') {
                    in_comment = false;
                    i += 1;
                }
            } else if let Some(q) = quote {
                if c == b'\\' {
                    i += 1;
                } else if c == q {
                    quote = None;
                }
            } else {
                match c {
                    b'/' if b.get(i + 1) == Some(&b'/') => break,
                    b'/' if b.get(i + 1) == Some(&b'*') => {
                        in_comment = true;
                        i += 1;
                    }
                    b'"' | b'\'' => quote = Some(c),
                    b'{' => {
                        if depth == 0 {
                            let h = head.trim_end();
                            in_function =
                                h.ends_with(')') && !h.contains('=') && !implementation_function(h);
                        }
                        depth += 1;
                    }
                    b'}' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            in_function = false;
                            head.clear();
                        }
                    }
                    b';' if depth == 0 => head.clear(),
                    _ if depth == 0 => head.push(c as char),
                    _ => {}
                }
            }
            i += 1;
        }
        if depth == 0 {
            head.push(' ');
        }
    }
    out
}

/// Is the definition whose head (the text before its `{`) is `head` the C
/// implementation's rather than the program's? Its name is reserved (`__x`, `_X`: C11
/// 7.1.3), or it is a GNU `extern inline` header function. This tells header code
/// apart in preprocessed text whose line markers were stripped (SV-COMP's `.c` files).
fn implementation_function(head: &str) -> bool {
    let mut head = head.trim_end();
    loop {
        let Some((before, name)) = last_call(head) else {
            return false;
        };
        // `f(void) __attribute__((noreturn))`: the name is before the attribute.
        if matches!(name, "__attribute__" | "__asm__" | "asm") {
            head = before[..before.len() - name.len()].trim_end();
            continue;
        }
        let reserved = name.starts_with("__")
            || (name.starts_with('_') && name[1..].starts_with(|c: char| c.is_ascii_uppercase()));
        let words: Vec<&str> = before.split_whitespace().collect();
        let extern_inline = words.contains(&"extern")
            && words
                .iter()
                .any(|w| matches!(*w, "inline" | "__inline" | "__inline__"));
        return reserved || extern_inline;
    }
}

/// For a text ending with `)`: the text before the matching `(` (trimmed) and the
/// identifier that ends it.
fn last_call(text: &str) -> Option<(&str, &str)> {
    let b = text.as_bytes();
    let mut depth = 0i32;
    let mut open = None;
    for i in (0..b.len()).rev() {
        match b[i] {
            b')' => depth += 1,
            b'(' => {
                depth -= 1;
                if depth == 0 {
                    open = Some(i);
                    break;
                }
            }
            _ => {}
        }
    }
    let before = text[..open?].trim_end();
    let start = before
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    Some((before, &before[start..]))
}

/// The file a preprocessor line marker names (`# 12 "x.h" 1 3 4`, `#line 12 "x.h"`).
fn marker_file(line: &str) -> Option<String> {
    let t = line.trim_start().strip_prefix('#')?.trim_start();
    let t = t.strip_prefix("line").unwrap_or(t).trim_start();
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return None;
    }
    let rest = t[digits..].trim_start().strip_prefix('"')?;
    let end = rest.find('"')?;
    Some(rest[..end].to_string())
}

/// A statement line inside a body: indented, one `;` at the end, no block or control
/// keyword, not a declaration, not a return.
fn simple_statement(line: &str) -> bool {
    let t = line.trim();
    let indented = line.starts_with(' ') || line.starts_with('\t');
    const NOT: [&str; 18] = [
        "int ",
        "char ",
        "long ",
        "unsigned ",
        "short ",
        "pthread_",
        "void",
        "struct ",
        "static ",
        "const ",
        "return",
        "if",
        "for",
        "while",
        "else",
        "do",
        "switch",
        "case",
    ];
    indented
        && t.ends_with(';')
        && t.matches(';').count() == 1
        && !t.contains('{')
        && !t.contains('}')
        && !t.starts_with("//")
        && !t.starts_with('#')
        && (!NOT.iter().any(|k| t.starts_with(k))
            || t.starts_with("pthread_mutex_lock")
            || t.starts_with("pthread_mutex_unlock"))
}

fn is_assert(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("assert(") && t.ends_with(");") && simple_statement(line)
}

fn applies(kind: Kind, lines: &[&str], i: usize) -> bool {
    let l = lines[i];
    match kind {
        Kind::ChangedConstant => {
            (simple_statement(l) || is_condition(l)) && bump_constant(l).is_some()
        }
        Kind::AddedStatement | Kind::DeletedStatement => {
            simple_statement(l) && !is_assert(l) && !l.contains("pthread_")
        }
        Kind::MovedLock => {
            l.trim().starts_with("pthread_mutex_lock(")
                && lines.get(i + 1).is_some_and(|n| {
                    simple_statement(n) && !n.contains("pthread_") && !is_assert(n)
                })
        }
        Kind::MovedAssertion => {
            is_assert(l)
                && i > 0
                && simple_statement(lines[i - 1])
                && !lines[i - 1].contains("pthread_")
        }
        Kind::NegatedAssertion => is_assert(l),
    }
}

/// An `if`/`while` condition line (its constants are worth changing too).
fn is_condition(line: &str) -> bool {
    let t = line.trim();
    (t.starts_with("if (") || t.starts_with("while (")) && line.starts_with(' ')
}

/// The line with its first decimal literal (outside identifiers) increased by one.
fn bump_constant(line: &str) -> Option<String> {
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit()
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'));
        if starts {
            let mut j = i;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            if j < b.len() && (b[j].is_ascii_alphabetic() || b[j] == b'_' || b[j] == b'.') {
                i = j;
                continue;
            }
            let n: u64 = line[i..j].parse().ok()?;
            return Some(format!("{}{}{}", &line[..i], n + 1, &line[j..]));
        }
        i += 1;
    }
    None
}

fn negate_assertion(line: &str) -> Option<String> {
    let start = line.find("assert(")? + "assert(".len();
    let end = line.rfind(");")?;
    Some(format!(
        "{}!({}){}",
        &line[..start],
        &line[start..end],
        &line[end..]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: &str = "int g;\nvoid *t(void *a) {\n    pthread_mutex_lock(&m);\n    g = g + 10;\n    pthread_mutex_unlock(&m);\n    return 0;\n}\nint main(void) {\n    int x = 3;\n    g = x;\n    assert(g != 7);\n    return 0;\n}\n";

    #[test]
    fn every_kind_edits_the_expected_line() {
        let m = mutate(P, Kind::ChangedConstant, 0).unwrap();
        assert!(m.source.contains("g = g + 11;"), "{}", m.source);
        let m = mutate(P, Kind::AddedStatement, 0).unwrap();
        assert_eq!(m.source.matches("g = g + 10;").count(), 2);
        let m = mutate(P, Kind::DeletedStatement, 1).unwrap();
        assert!(!m.source.contains("    g = x;"), "{}", m.source);
        let m = mutate(P, Kind::MovedLock, 0).unwrap();
        assert!(m
            .source
            .contains("    g = g + 10;\n    pthread_mutex_lock(&m);"));
        let m = mutate(P, Kind::MovedAssertion, 0).unwrap();
        assert!(m.source.contains("    assert(g != 7);\n    g = x;"));
        let m = mutate(P, Kind::NegatedAssertion, 0).unwrap();
        assert!(m.source.contains("assert(!(g != 7));"));
    }

    /// Preprocessed text: a libc header's struct with statement-like fields, an
    /// initializer and a struct of the program, then its functions.
    const I: &str = "# 1 \"prog.c\"\n# 1 \"<built-in>\"\n# 1 \"prog.c\"\n# 1 \"/usr/include/stdio.h\" 1 3 4\nstruct _IO_FILE {\n    _IO_lock_t *_lock;\n    __off64_t _offset;\n};\nextern int f(void) { return 0; }\n    static_thing = 4;\n# 3 \"prog.c\" 2\nstruct s {\n    long_t field;\n};\nint tab[2] = {\n    1 };\nint g;\nvoid *t(void *a) /* { */\n{\n    char *s = \"}\";\n    g = g + 10;\n    if (g) {\n        g = 2; // }\n    }\n    return 0;\n}\n    h = 5;\n";

    /// The trimmed lines `own` marks.
    fn trimmed_own<'a>(lines: &[&'a str], own: &[bool]) -> Vec<&'a str> {
        lines
            .iter()
            .zip(own)
            .filter(|(_, o)| **o)
            .map(|(l, _)| l.trim())
            .collect()
    }

    #[test]
    fn only_own_function_bodies_are_edited() {
        let lines: Vec<&str> = I.lines().collect();
        let own = own_body_lines(&lines);
        let own_text = trimmed_own(&lines, &own);
        assert_eq!(
            own_text,
            vec![
                "char *s = \"}\";",
                "g = g + 10;",
                "if (g) {",
                "g = 2; // }",
                "}",
                "return 0;",
                "}"
            ]
        );
        // Every mutant of every kind edits the program's own statements only.
        for kind in Kind::ALL {
            for pick in 0..8 {
                if let Some(m) = mutate(I, kind, pick) {
                    assert!(
                        own[m.line - 1],
                        "{kind} edited line {}: {}",
                        m.line,
                        lines[m.line - 1]
                    );
                }
            }
        }
        let m = mutate(I, Kind::DeletedStatement, 0).unwrap();
        assert!(!m.source.contains("    g = g + 10;"), "{}", m.source);
        // It is the only candidate.
        assert_eq!(mutate(I, Kind::DeletedStatement, 1), Some(m));
        // Without markers: header functions by their reserved or `extern inline` names.
        let stripped = "typedef struct {\n    int __lock;\n    unsigned int __count;\n} m_t;\nstatic __inline __uint16_t\n__bswap_16 (__uint16_t __bsx)\n{\n  return x;\n}\nextern __inline __attribute__ ((__gnu_inline__)) unsigned int\ngnu_dev_major (unsigned long long int __dev)\n{\n  __dev = 1;\n}\nint _Exit_like(void) {\n    y = 1;\n}\nvoid *thr(void *arg) __attribute__ ((unused))\n{\n    x = 1;\n}\n";
        let lines: Vec<&str> = stripped.lines().collect();
        let own = own_body_lines(&lines);
        let own_text = trimmed_own(&lines, &own);
        assert_eq!(own_text, vec!["x = 1;", "}"]);
        // Without markers every body line is own (the unpreprocessed test program).
        let p: Vec<&str> = P.lines().collect();
        assert_eq!(own_body_lines(&p).iter().filter(|o| **o).count(), 10);
    }

    #[test]
    fn no_candidate_no_mutant() {
        assert!(mutate("int main(void) { return 0; }\n", Kind::MovedLock, 0).is_none());
        // Identifiers with digits and suffixed literals are not constants.
        assert_eq!(bump_constant("    x2 = 5u;"), None);
        assert_eq!(
            bump_constant("    x = y1 + 0;").as_deref(),
            Some("    x = y1 + 1;")
        );
    }
}
