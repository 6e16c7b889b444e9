//! Version pairs for incremental verification (issue 11): small source edits of a C
//! program, the kinds of change Conc-iSE's evaluation makes — a changed constant, an
//! added or deleted statement, a moved lock, a moved or negated assertion.
//!
//! Edits are textual and line-based, on lines inside function bodies that hold one
//! simple statement, so most mutants still compile; a caller drops the ones agx rejects.
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
    let candidates: Vec<usize> = (0..lines.len())
        .filter(|&i| applies(kind, &lines, i))
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
