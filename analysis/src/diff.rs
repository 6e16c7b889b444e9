//! Statement mapping between two versions of a program (Conc-iSE, Algorithm 3: `Δ_diff`
//! and `Δ_map`).
//!
//! Each statement gets a *normalized text*: its IR text with what an unrelated edit
//! renumbers taken out — a temporary register becomes the distance (in statements) to its
//! definition, a named register its C name (with its rank among the function's registers
//! of that name), a branch target its distance in blocks. Comments, blank lines and edits
//! elsewhere in the file leave it unchanged; a changed constant, operator, type, access
//! or callee changes it. Functions are matched by name and their sequences of normalized
//! texts diffed with `similar` (Myers): equal runs map old statements to new ones, a
//! replaced run makes its new statements *modified*, an inserted run *added*, a deleted
//! run *deleted*.
//!
//! A [`StmtFingerprint`] names a statement across versions (for stored summaries): a
//! stable hash (SHA-256, not `std`'s per-build hasher) of its function's name, its
//! normalized text, the normalized texts of its neighbours, and its rank among the
//! function's statements with the same triple.
//!
//! Objects (globals, stack slots, literals) are matched by name; one whose type, layout or
//! static initializer differs, or that is new, is reported in
//! [`ProgramDiff::changed_objects`]: no statement changed, yet its readers see other values.

use crate::ir::{display, BlockId, Function, ObjId, ObjectKind, Program, StmtId, StmtKind};
use sha2::{Digest, Sha256};
use similar::{capture_diff_slices, Algorithm, DiffOp};
use std::collections::HashMap;

/// A statement's name across versions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StmtFingerprint(pub u64);

/// `Δ_diff` and `Δ_map` of two versions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProgramDiff {
    /// `Δ_map`: every unchanged old statement → its new counterpart (indexed by old id).
    pub map: Vec<Option<StmtId>>,
    /// New statements with no old counterpart.
    pub added: Vec<StmtId>,
    /// New statements that replace old ones (a changed line, a changed constant, ...).
    pub modified: Vec<StmtId>,
    /// The old statements the modified ones replace (not deleted: they have successors).
    pub replaced: Vec<StmtId>,
    /// Old statements with no new counterpart.
    pub deleted: Vec<StmtId>,
    /// New objects that are new or whose type, layout or initializer changed.
    pub changed_objects: Vec<ObjId>,
}

impl ProgramDiff {
    /// No statement and no object changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.modified.is_empty()
            && self.deleted.is_empty()
            && self.changed_objects.is_empty()
    }

    /// The new counterpart of an unchanged old statement.
    pub fn new_of(&self, old: StmtId) -> Option<StmtId> {
        self.map.get(old.index()).copied().flatten()
    }
}

/// Diffs two versions of a program.
pub fn diff_programs(old: &Program, new: &Program) -> ProgramDiff {
    let mut d = ProgramDiff {
        map: vec![None; old.stmt_count()],
        ..ProgramDiff::default()
    };
    let old_texts = normalized_texts(old);
    let new_texts = normalized_texts(new);
    for f in &new.functions {
        let new_seq = &new_texts[f.id.index()];
        let old_f = old
            .function_named(&f.name)
            .filter(|o| header(o) == header(f));
        let Some(of) = old_f else {
            d.added.extend(new_seq.iter().map(|(s, _)| *s));
            continue;
        };
        diff_function(&old_texts[of.id.index()], new_seq, &mut d);
    }
    for f in &old.functions {
        let kept = new
            .function_named(&f.name)
            .is_some_and(|n| header(n) == header(f));
        if !kept {
            d.deleted
                .extend(old_texts[f.id.index()].iter().map(|(s, _)| *s));
        }
    }
    d.changed_objects = new
        .objects
        .iter()
        .filter(|o| {
            let before = old.objects.iter().find(|p| p.name == o.name);
            before.is_none_or(|b| object_text(old, b.id) != object_text(new, o.id))
        })
        .map(|o| o.id)
        .collect();
    for v in [
        &mut d.added,
        &mut d.modified,
        &mut d.replaced,
        &mut d.deleted,
    ] {
        v.sort();
    }
    d
}

fn diff_function(old: &[(StmtId, String)], new: &[(StmtId, String)], d: &mut ProgramDiff) {
    let a: Vec<&str> = old.iter().map(|(_, t)| t.as_str()).collect();
    let b: Vec<&str> = new.iter().map(|(_, t)| t.as_str()).collect();
    for op in capture_diff_slices(Algorithm::Myers, &a, &b) {
        match op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => {
                for i in 0..len {
                    d.map[old[old_index + i].0.index()] = Some(new[new_index + i].0);
                }
            }
            DiffOp::Delete {
                old_index, old_len, ..
            } => d
                .deleted
                .extend(old[old_index..old_index + old_len].iter().map(|s| s.0)),
            DiffOp::Insert {
                new_index, new_len, ..
            } => d
                .added
                .extend(new[new_index..new_index + new_len].iter().map(|s| s.0)),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                d.replaced
                    .extend(old[old_index..old_index + old_len].iter().map(|s| s.0));
                d.modified
                    .extend(new[new_index..new_index + new_len].iter().map(|s| s.0));
            }
        }
    }
}

/// What a function's statements mean besides their own text: parameters, result, flags.
fn header(f: &Function) -> String {
    let params: Vec<String> = f
        .params
        .iter()
        .map(|r| {
            let info = f.reg(*r);
            format!("{}:{}", info.name.as_deref().unwrap_or("_"), info.ty)
        })
        .collect();
    format!(
        "{}({}) -> {:?} atomic={} variadic={} defined={}",
        f.name,
        params.join(","),
        f.ret,
        f.atomic,
        f.variadic,
        f.is_defined()
    )
}

fn object_text(p: &Program, id: ObjId) -> String {
    let o = p.object(id);
    let init: Vec<String> = o
        .init
        .iter()
        .map(|c| format!("+{}={}", c.offset, display::operand_text(p, &c.value)))
        .collect();
    let kind = match &o.kind {
        ObjectKind::StackSlot { func } => format!("slot of {}", p.function(*func).name),
        other => format!("{other:?}"),
    };
    format!(
        "{kind} {} {} {:?} {}",
        o.c_type,
        o.size,
        o.layout,
        init.join(",")
    )
}

/// Every defined function's statements (terminators included) in program order with
/// their normalized texts, indexed by function id.
pub fn normalized_texts(p: &Program) -> Vec<Vec<(StmtId, String)>> {
    p.functions
        .iter()
        .map(|f| normalize_function(p, f))
        .collect()
}

fn normalize_function(p: &Program, f: &Function) -> Vec<(StmtId, String)> {
    let mut raw: Vec<(StmtId, BlockId, String)> = Vec::new();
    let mut defs: HashMap<u32, Vec<usize>> = HashMap::new();
    for &r in &f.params {
        defs.entry(r.0).or_default().push(0);
    }
    for b in &f.blocks {
        for s in &b.stmts {
            if let Some(r) = StmtKind::def(&s.kind) {
                defs.entry(r.0).or_default().push(raw.len());
            }
            raw.push((s.id, b.id, display::stmt_text(p, f, &s.kind)));
        }
        raw.push((b.term.id, b.id, display::term_text(p, f, &b.term.kind)));
    }
    let ranks = named_register_ranks(f);
    raw.iter()
        .enumerate()
        .map(|(pos, (id, block, text))| {
            let text = rewrite_ids(text, &|tok| match tok {
                IdToken::Reg(r, Some(name)) => {
                    format!("%{name}#{}", ranks.get(&r).copied().unwrap_or(0))
                }
                IdToken::Reg(r, None) => match defs.get(&r) {
                    Some(ds) => temp_distance(ds, pos),
                    None => "t?".into(),
                },
                IdToken::Block(b) => format!("bb{:+}", i64::from(b) - i64::from(block.0)),
            });
            (*id, text)
        })
        .collect()
}

/// A temporary's name relative to the statement at `pos`: the distance back to its
/// nearest definition before it (or forward to the first one, for a loop), with the
/// number of definitions.
fn temp_distance(defs: &[usize], pos: usize) -> String {
    let before = defs.iter().rev().find(|&&d| d <= pos);
    let rel = match before {
        Some(&d) => (pos - d) as i64,
        None => -((defs[0] - pos) as i64),
    };
    if defs.len() == 1 {
        format!("t{rel}")
    } else {
        format!("t{rel}/{}", defs.len())
    }
}

/// For each named register, its rank among the function's registers of that C name.
fn named_register_ranks(f: &Function) -> HashMap<u32, usize> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut out = HashMap::new();
    for (i, info) in f.regs.iter().enumerate() {
        if let Some(n) = &info.name {
            let k = seen.entry(n.as_str()).or_default();
            out.insert(i as u32, *k);
            *k += 1;
        }
    }
    out
}

enum IdToken<'a> {
    Reg(u32, Option<&'a str>),
    Block(u32),
}

/// Rewrites the register (`r3`, `r3.name`) and block (`bb2`) tokens of an IR text,
/// leaving string literals (`"..."`) and comments (`/* ... */`) as they are.
fn rewrite_ids(text: &str, f: &dyn Fn(IdToken) -> String) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut in_str = false;
    let mut in_comment = false;
    while i < bytes.len() {
        let c = bytes[i];
        if in_str {
            out.push(c as char);
            if c == b'\\' && i + 1 < bytes.len() {
                out.push(bytes[i + 1] as char);
                i += 2;
                continue;
            }
            in_str = c != b'"';
            i += 1;
            continue;
        }
        if in_comment {
            if text[i..].starts_with("*/") {
                in_comment = false;
            }
            out.push(c as char);
            i += 1;
            continue;
        }
        if c == b'"' {
            in_str = true;
        } else if text[i..].starts_with("/*") {
            in_comment = true;
        }
        let boundary = i == 0 || {
            let p = bytes[i - 1];
            !(p.is_ascii_alphanumeric() || matches!(p, b'_' | b'.' | b'&' | b'@' | b'$'))
        };
        if boundary {
            if let Some((tok, len)) = id_token(&text[i..]) {
                out.push_str(&f(tok));
                i += len;
                continue;
            }
        }
        // Multi-byte characters only occur inside literals and comments; copy bytes of
        // anything else verbatim by char.
        let ch = text[i..].chars().next().expect("in bounds");
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// A register or block token at the start of `s`, with its length.
fn id_token(s: &str) -> Option<(IdToken<'_>, usize)> {
    let digits = |t: &str| t.bytes().take_while(u8::is_ascii_digit).count();
    let ident_end = |t: &str, from: usize| {
        from + t[from..]
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count()
    };
    if let Some(rest) = s.strip_prefix("bb") {
        let n = digits(rest);
        if n > 0 && ident_end(s, 2 + n) == 2 + n {
            return Some((IdToken::Block(rest[..n].parse().ok()?), 2 + n));
        }
        return None;
    }
    let rest = s.strip_prefix('r')?;
    let n = digits(rest);
    if n == 0 {
        return None;
    }
    let reg: u32 = rest[..n].parse().ok()?;
    let after = 1 + n;
    if s[after..].starts_with('.') {
        let end = ident_end(s, after + 1);
        if end > after + 1 {
            return Some((IdToken::Reg(reg, Some(&s[after + 1..end])), end));
        }
    }
    (ident_end(s, after) == after).then_some((IdToken::Reg(reg, None), after))
}

/// Every statement's fingerprint, indexed by statement id.
pub fn fingerprints(p: &Program) -> Vec<StmtFingerprint> {
    let mut out = vec![StmtFingerprint(0); p.stmt_count()];
    for (f, seq) in p.functions.iter().zip(normalized_texts(p)) {
        let mut rank: HashMap<[u8; 32], u32> = HashMap::new();
        for i in 0..seq.len() {
            let prev = i.checked_sub(1).map_or("", |j| seq[j].1.as_str());
            let next = seq.get(i + 1).map_or("", |s| s.1.as_str());
            let mut h = Sha256::new();
            for part in [f.name.as_str(), &seq[i].1, prev, next] {
                h.update((part.len() as u64).to_le_bytes());
                h.update(part.as_bytes());
            }
            let base: [u8; 32] = h.clone().finalize().into();
            let k = rank.entry(base).or_default();
            h.update(k.to_le_bytes());
            *k += 1;
            let digest = h.finalize();
            let mut first = [0u8; 8];
            first.copy_from_slice(&digest[..8]);
            out[seq[i].0.index()] = StmtFingerprint(u64::from_le_bytes(first));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lower(name: &str, src: &str) -> Program {
        let path = std::env::temp_dir().join(format!("agx-diff-{name}-{}.c", std::process::id()));
        std::fs::write(&path, src).unwrap();
        let p = crate::load_program(&path, &Default::default());
        let _ = std::fs::remove_file(&path);
        p.expect("test program lowers")
    }

    fn lines(p: &Program, ids: &[StmtId]) -> Vec<u32> {
        let mut v: Vec<u32> = ids.iter().map(|s| p.stmt(*s).span().line).collect();
        v.dedup();
        v
    }

    const BASE: &str = "int g;\nint f(int a) {\n  int b = a + 1;\n  g = b;\n  return b * 2;\n}\nint main(void) {\n  int x = f(3);\n  return x;\n}\n";

    #[test]
    fn comments_and_blank_lines_are_not_changes() {
        let old = lower("c-old", BASE);
        let edited = BASE
            .replace(
                "int f(int a) {\n",
                "// helper\n\nint f(int a) { /* doc */\n",
            )
            .replace("  g = b;", "\n  g = b; // store");
        let new = lower("c-new", &edited);
        let d = diff_programs(&old, &new);
        assert!(d.is_empty(), "{d:?}");
        for s in 0..old.stmt_count() {
            assert!(d.new_of(StmtId(s as u32)).is_some());
        }
        // The fingerprints survive the shifted lines and renumbered nothing.
        assert_eq!(fingerprints(&old), fingerprints(&new));
    }

    #[test]
    fn changed_constant_is_modified_not_deleted() {
        let old = lower("k-old", BASE);
        let new = lower("k-new", &BASE.replace("a + 1", "a + 2"));
        let d = diff_programs(&old, &new);
        assert_eq!(lines(&new, &d.modified), vec![3]);
        assert_eq!(lines(&old, &d.replaced), vec![3]);
        assert!(d.deleted.is_empty() && d.added.is_empty(), "{d:?}");
        // The line after maps to its counterpart.
        let store_old = old.stmt_count() as u32;
        assert!((0..store_old).any(|s| d.new_of(StmtId(s)).is_some()));
    }

    #[test]
    fn added_statement_shifts_no_fingerprint_of_unrelated_code() {
        let old = lower("a-old", BASE);
        let new = lower(
            "a-new",
            &BASE.replace("  int x = f(3);\n", "  g = 7;\n  int x = f(3);\n"),
        );
        let d = diff_programs(&old, &new);
        assert_eq!(lines(&new, &d.added), vec![8]);
        assert!(d.modified.is_empty() && d.deleted.is_empty(), "{d:?}");
        // f is untouched: same fingerprints for all its statements.
        let (fo, fnew) = (fingerprints(&old), fingerprints(&new));
        let f_old = old.function_named("f").unwrap();
        let f_new = new.function_named("f").unwrap();
        let ids = |p: &Program, f: &Function| -> Vec<StmtId> {
            normalize_function(p, f).into_iter().map(|s| s.0).collect()
        };
        let a: Vec<_> = ids(&old, f_old).iter().map(|s| fo[s.index()]).collect();
        let b: Vec<_> = ids(&new, f_new).iter().map(|s| fnew[s.index()]).collect();
        assert_eq!(a, b);
    }

    #[test]
    fn deleted_statement_and_function() {
        let old = lower("d-old", BASE);
        let new = lower("d-new", &BASE.replace("  g = b;\n", ""));
        let d = diff_programs(&old, &new);
        assert_eq!(lines(&old, &d.deleted), vec![4]);
        assert!(d.modified.is_empty() && d.added.is_empty(), "{d:?}");
        let renamed = lower("d-ren", &BASE.replace("f(", "h("));
        let d = diff_programs(&old, &renamed);
        assert_eq!(lines(&old, &d.deleted), vec![3, 4, 5]);
        assert!(lines(&renamed, &d.added).contains(&3));
    }

    #[test]
    fn swapped_registers_are_a_change() {
        let src =
            "int main(void) {\n  int p = 1;\n  int q = 2;\n  int r = p - q;\n  return r;\n}\n";
        let old = lower("s-old", src);
        let new = lower("s-new", &src.replace("p - q", "q - p"));
        let d = diff_programs(&old, &new);
        assert_eq!(lines(&new, &d.modified), vec![4]);
    }

    #[test]
    fn changed_initializer_is_a_changed_object() {
        let old = lower("i-old", BASE);
        let new = lower("i-new", &BASE.replace("int g;", "int g = 4;"));
        let d = diff_programs(&old, &new);
        let names: Vec<&str> = d
            .changed_objects
            .iter()
            .map(|o| new.object(*o).name.as_str())
            .collect();
        assert_eq!(names, vec!["g"]);
        assert!(d.added.is_empty() && d.modified.is_empty() && d.deleted.is_empty());
    }

    #[test]
    fn id_tokens_spare_names_strings_and_comments() {
        let out = rewrite_ids("r1.x = r2 +i32 &r3obj \"r4\" /* r5 */ bb3", &|t| match t {
            IdToken::Reg(r, Some(n)) => format!("<{r}:{n}>"),
            IdToken::Reg(r, None) => format!("<{r}>"),
            IdToken::Block(b) => format!("<b{b}>"),
        });
        assert_eq!(out, "<1:x> = <2> +i32 &r3obj \"r4\" /* r5 */ <b3>");
    }
}
