//! `agx impact FILE --changed LINE...`: change-impact analysis (Conc-iSE, Algorithm 3).
//! The changed lines are lines of FILE, the new version; with `--old OLD`, the changed
//! lines are found by a line diff of OLD against FILE instead (added and modified lines of
//! FILE), and deleted lines of OLD are analysed in OLD and mapped to FILE.
//!
//! Forward impact: what the changed statements may affect; backward impact: what may
//! affect them (both closures of control and data dependence with the happens-before
//! filter).

use super::common::{InputArgs, TextOrJson};
use super::rules::load_facts;
use super::slice::{lines_of, Line};
use crate::driver::Lines;
use analysis::facts::{Facts, StmtId};
use anyhow::{bail, Context, Result};
use rules::{Analysis, Direction};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: InputArgs,
    /// Changed lines of FILE (repeatable, or comma-separated).
    #[arg(long, value_delimiter = ',', num_args = 1.., value_name = "LINE")]
    pub changed: Vec<u32>,
    /// The old version: changed lines come from a line diff of OLD against FILE.
    #[arg(long, value_name = "OLD")]
    pub old: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    pub format: TextOrJson,
}

#[derive(Serialize)]
struct Impact {
    file: String,
    changed: Vec<u32>,
    deleted_in_old: Vec<u32>,
    forward: Vec<Line>,
    backward: Vec<Line>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let file = args.input.file.display().to_string();
    let mut changed: BTreeSet<u32> = args.changed.iter().copied().collect();
    let mut deleted = Vec::new();
    let mut line_map = HashMap::new();
    if let Some(old) = &args.old {
        let diff = line_diff(old, &args.input.file)?;
        changed.extend(diff.changed_new);
        deleted = diff.deleted_old;
        line_map = diff.old_to_new;
    }
    if changed.is_empty() && deleted.is_empty() {
        bail!("nothing changed: give --changed LINE... or --old OLD with a different OLD");
    }
    let facts = load_facts(&args.input)?;
    let analysis = Analysis::run(&facts);
    let seeds = stmts_on_lines(&facts, &file, &changed);
    let mut forward = lines_of(&facts, &analysis.slice(&seeds, Direction::Forward));
    let mut backward = lines_of(&facts, &analysis.slice(&seeds, Direction::Backward));
    if !deleted.is_empty() {
        // Deleted statements: their impact in the old version, mapped to the new one.
        let old_input = InputArgs {
            file: args.old.clone().unwrap_or_default(),
            ..args.input.clone()
        };
        let old_facts = load_facts(&old_input)?;
        let old_analysis = Analysis::run(&old_facts);
        let old_name = old_input.file.display().to_string();
        let old_seeds = stmts_on_lines(&old_facts, &old_name, &deleted.iter().copied().collect());
        for dir in [Direction::Forward, Direction::Backward] {
            let old_lines = lines_of(&old_facts, &old_analysis.slice(&old_seeds, dir));
            let mapped: BTreeSet<u32> = old_lines
                .iter()
                .filter_map(|l| line_map.get(&l.line).copied())
                .collect();
            let mapped_seeds = stmts_on_lines(&facts, &file, &mapped);
            let set = lines_of(&facts, &analysis.slice(&mapped_seeds, dir));
            match dir {
                Direction::Forward => forward.extend(set),
                Direction::Backward => backward.extend(set),
            }
        }
    }
    let impact = Impact {
        file,
        changed: changed.into_iter().collect(),
        deleted_in_old: deleted,
        forward: forward.into_iter().collect(),
        backward: backward.into_iter().collect(),
    };
    if args.format == TextOrJson::Json {
        println!("{}", serde_json::to_string_pretty(&impact)?);
    } else {
        print!("{}", text(&impact));
    }
    Ok(ExitCode::SUCCESS)
}

/// Every statement on the given lines of `file` (a changed line changes as a whole).
fn stmts_on_lines(facts: &Facts, file: &str, lines: &BTreeSet<u32>) -> Vec<StmtId> {
    let Some(file) = Lines::of_facts(facts).find_file(file) else {
        return Vec::new();
    };
    facts
        .stmt_line
        .iter()
        .filter(|&&(_, f, l)| f == file && lines.contains(&l))
        .map(|s| s.0)
        .collect()
}

fn join_lines(lines: &[Line], file: &str) -> String {
    let parts: Vec<String> = lines
        .iter()
        .map(|l| {
            if l.file == file {
                l.line.to_string()
            } else {
                format!("{}:{}", l.file, l.line)
            }
        })
        .collect();
    parts.join(", ")
}

fn text(i: &Impact) -> String {
    let changed: Vec<String> = i.changed.iter().map(u32::to_string).collect();
    let mut out = format!("changed lines of {}: {}\n", i.file, changed.join(", "));
    if !i.deleted_in_old.is_empty() {
        let d: Vec<String> = i.deleted_in_old.iter().map(u32::to_string).collect();
        out.push_str(&format!(
            "deleted lines of the old version: {}\n",
            d.join(", ")
        ));
    }
    out.push_str(&format!(
        "forward impact: {}\n",
        join_lines(&i.forward, &i.file)
    ));
    out.push_str(&format!(
        "backward impact: {}\n",
        join_lines(&i.backward, &i.file)
    ));
    out
}

/// The result of diffing two versions line by line.
pub struct LineDiff {
    /// Lines of the new version that are added or modified.
    pub changed_new: Vec<u32>,
    /// Lines of the old version with no counterpart in the new one.
    pub deleted_old: Vec<u32>,
    /// `Δ_map`: unchanged old line → its new line.
    pub old_to_new: HashMap<u32, u32>,
}

/// Longest-common-subsequence diff of two files' lines (trailing blanks ignored).
pub fn line_diff(old: &std::path::Path, new: &std::path::Path) -> Result<LineDiff> {
    let read = |p: &std::path::Path| -> Result<Vec<String>> {
        let text =
            std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
        Ok(text.lines().map(|l| l.trim_end().to_string()).collect())
    };
    let (a, b) = (read(old)?, read(new)?);
    Ok(diff_lines(&a, &b))
}

pub fn diff_lines(a: &[String], b: &[String]) -> LineDiff {
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = LineDiff {
        changed_new: Vec::new(),
        deleted_old: Vec::new(),
        old_to_new: HashMap::new(),
    };
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            out.old_to_new.insert(i as u32 + 1, j as u32 + 1);
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.changed_new.push(j as u32 + 1);
            j += 1;
        } else {
            out.deleted_old.push(i as u32 + 1);
            i += 1;
        }
    }
    // A deleted old line next to an added new one is a modification: the new line is
    // already in `changed_new`, so the old one needs no separate mapping.
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<String> {
        s.lines().map(str::to_string).collect()
    }

    #[test]
    fn modified_line_is_changed_and_others_map() {
        let d = diff_lines(&lines("a\nb\nc\n"), &lines("a\nB\nc\n"));
        assert_eq!(d.changed_new, vec![2]);
        assert_eq!(d.deleted_old, vec![2]);
        assert_eq!(d.old_to_new.get(&3), Some(&3));
    }

    #[test]
    fn added_and_deleted_lines() {
        let d = diff_lines(&lines("a\nx\nb\n"), &lines("a\nb\ny\n"));
        assert_eq!(d.changed_new, vec![3]);
        assert_eq!(d.deleted_old, vec![2]);
        assert_eq!(d.old_to_new.get(&3), Some(&2));
    }
}
