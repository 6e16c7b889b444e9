//! Columns in C source lines, as SV-COMP witnesses want them: where the statement holding
//! a column starts, and where a `__VERIFIER_nondet_*` call ends. A scan of one line's
//! text (literals, comments and parentheses respected), not a parse.

/// The 1-based column of the first character of the statement that the 1-based byte
/// column `column` of `line` lies in: after the last `;`, `{` or `}` outside parentheses,
/// string and character literals and comments, before `column`. A statement that began
/// on an earlier line starts, as far as this line goes, at its first token; a column in
/// the whitespace before a statement (or absent: 1) gives that statement.
pub fn statement_start(line: &str, column: u64) -> u64 {
    let bytes = line.as_bytes();
    let last_token = bytes
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .unwrap_or(0);
    let limit = usize::try_from(column.saturating_sub(1))
        .unwrap_or(usize::MAX)
        .min(last_token);
    let mut depth = 0i32;
    let mut start = 0usize;
    let mut i = 0usize;
    while i < limit {
        match bytes[i] {
            b'"' | b'\'' => {
                let quote = bytes[i];
                i += 1;
                while i < bytes.len() && bytes[i] != quote {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => break,
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
                    i += 1;
                }
                i += 1;
                if depth == 0 {
                    start = i + 1;
                }
            }
            b'(' => depth += 1,
            b')' => depth = (depth - 1).max(0),
            b';' | b'{' | b'}' if depth == 0 => start = i + 1,
            _ => {}
        }
        i += 1;
    }
    let start = start.min(limit);
    let first = bytes[start..]
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .map_or(start, |p| start + p);
    first as u64 + 1
}

/// The 1-based column of the `)` that closes the first `__VERIFIER_nondet_*(...)` call
/// on `line` at or after `column` (else anywhere on the line).
pub fn nondet_call_end(line: &str, column: u64) -> Option<u64> {
    const NAME: &str = "__VERIFIER_nondet_";
    let from = usize::try_from(column.saturating_sub(1))
        .unwrap_or(0)
        .min(line.len());
    let at = line
        .get(from..)
        .and_then(|rest| rest.find(NAME).map(|p| from + p))
        .or_else(|| line.find(NAME))?;
    let bytes = line.as_bytes();
    let open = at + line[at..].find('(')?;
    let mut depth = 0;
    for (i, &b) in bytes.iter().enumerate().skip(open) {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i as u64 + 1);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statement_starts() {
        // `i+=j;`: the load of `j` (column 8) belongs to the statement at column 5.
        assert_eq!(statement_start("    i+=j;", 8), 5);
        // The condition of a `for` is inside its parentheses: the statement is the `for`.
        assert_eq!(statement_start("  for (k = 0; k < NUM; k++) {", 15), 3);
        // After a `{` or `;` on the same line a new statement starts.
        assert_eq!(statement_start("  if (x) { y = 1; z = y; }", 19), 19);
        assert_eq!(statement_start("  if (x) { y = 1; z = y; }", 23), 19);
        // Literals and comments do not end statements.
        assert_eq!(statement_start(r#"  printf("a;b", x);"#, 17), 3);
        assert_eq!(statement_start("  /* c; */ x = 1;", 14), 12);
        // A column past the text, or at the first token, stays in range.
        assert_eq!(statement_start("  x = 1;", 99), 3);
        assert_eq!(statement_start("  x = 1;", 3), 3);
        assert_eq!(statement_start("", 1), 1);
    }

    #[test]
    fn nondet_call_ends() {
        let line = "  int n = __VERIFIER_nondet_uint();";
        assert_eq!(nondet_call_end(line, 7), Some(34));
        assert_eq!(&line[33..34], ")");
        assert_eq!(
            nondet_call_end("  f(__VERIFIER_nondet_int(), g(1));", 1),
            Some(27)
        );
        assert_eq!(nondet_call_end("  x = y;", 1), None);
    }
}
