//! `agx impact FILE --changed LINE...`: change-impact analysis (Conc-iSE, Algorithm 3).
//! The changed lines are lines of FILE, the new version; with `--old OLD`, the changes are
//! found by mapping OLD's statements to FILE's (`analysis::diff`: normalized IR text, so
//! comments, blank lines and moved functions are no changes) and the impacted sets
//! computed by `driver::ChangeImpact`.
//!
//! Forward impact: what the changed statements may affect; backward impact: what may
//! affect them (both closures of control and data dependence with the happens-before
//! filter).

use super::common::{InputArgs, TextOrJson};
use super::rules::load_facts;
use super::slice::{lines_of, Line};
use crate::driver::{ChangeImpact, Driver, Lines};
use analysis::diff::ProgramDiff;
use analysis::facts::{Facts, StmtId};
use anyhow::{bail, Result};
use rules::{Analysis, Direction};
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
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
    /// Objects (by name) whose type or initializer changed, or that are new.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    changed_objects: Vec<String>,
    forward: Vec<Line>,
    backward: Vec<Line>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let impact = match &args.old {
        Some(old) => impact_of_versions(&args, old)?,
        None => impact_of_lines(&args)?,
    };
    if args.format == TextOrJson::Json {
        println!("{}", serde_json::to_string_pretty(&impact)?);
    } else {
        print!("{}", text(&impact));
    }
    Ok(ExitCode::SUCCESS)
}

/// `--changed LINE...` alone: the closures of the statements on those lines of FILE
/// (FILE may also be a facts directory).
fn impact_of_lines(args: &Args) -> Result<Impact> {
    let file = args.input.file.display().to_string();
    let changed: BTreeSet<u32> = args.changed.iter().copied().collect();
    if changed.is_empty() {
        bail!("nothing changed: give --changed LINE... or --old OLD with a different OLD");
    }
    let facts = load_facts(&args.input)?;
    let analysis = Analysis::run(&facts);
    let seeds = stmts_on_lines(&facts, &file, &changed);
    Ok(Impact {
        forward: lines_of(&facts, &analysis.slice(&seeds, Direction::Forward))
            .into_iter()
            .collect(),
        backward: lines_of(&facts, &analysis.slice(&seeds, Direction::Backward))
            .into_iter()
            .collect(),
        file,
        changed: changed.into_iter().collect(),
        deleted_in_old: Vec::new(),
        changed_objects: Vec::new(),
    })
}

/// `--old OLD`: Algorithm 3 over the statement mapping of OLD to FILE (comments, blank
/// lines and moved functions are no changes), plus the closures of any `--changed` lines.
fn impact_of_versions(args: &Args, old_path: &Path) -> Result<Impact> {
    let file = args.input.file.display().to_string();
    let new = Driver::new(args.input.load()?);
    let old_input = InputArgs {
        file: old_path.to_path_buf(),
        ..args.input.clone()
    };
    let old = Driver::new(old_input.load()?);
    let mut ci = ChangeImpact::compute(&old, &new);
    let extra = stmts_on_lines(new.facts(), &file, &args.changed.iter().copied().collect());
    for (dir, set) in [
        (Direction::Forward, &mut ci.forward),
        (Direction::Backward, &mut ci.backward),
    ] {
        set.extend(new.analysis().slice(&extra, dir));
    }
    let (changed, deleted_in_old) = changed_lines(&old, &new, &ci.diff, &file, &old_input);
    let mut changed: BTreeSet<u32> = changed;
    changed.extend(args.changed.iter().copied());
    Ok(Impact {
        forward: lines_of(new.facts(), &ci.forward).into_iter().collect(),
        backward: lines_of(new.facts(), &ci.backward).into_iter().collect(),
        file,
        changed: changed.into_iter().collect(),
        deleted_in_old: deleted_in_old.into_iter().collect(),
        changed_objects: ci
            .diff
            .changed_objects
            .iter()
            .map(|o| new.program().object(*o).name.clone())
            .collect(),
    })
}

/// Lines of FILE with an added or modified statement, or that lost a statement but keep
/// others; lines of OLD that lost all their statements (a modified line is not also
/// reported as deleted).
fn changed_lines(
    old: &Driver,
    new: &Driver,
    diff: &ProgramDiff,
    file: &str,
    old_input: &InputArgs,
) -> (BTreeSet<u32>, BTreeSet<u32>) {
    let in_file = |d: &Driver, name: &str, s: StmtId| -> Option<u32> {
        let span = d.program().stmt(s).span();
        (d.program().file_name(span.file) == name).then_some(span.line)
    };
    let old_name = old_input.file.display().to_string();
    let mut changed: BTreeSet<u32> = diff
        .added
        .iter()
        .chain(&diff.modified)
        .filter_map(|s| in_file(new, file, *s))
        .collect();
    let replaced: BTreeSet<u32> = diff
        .replaced
        .iter()
        .filter_map(|s| in_file(old, &old_name, *s))
        .collect();
    let mut deleted = BTreeSet::new();
    for &s in &diff.deleted {
        let Some(line) = in_file(old, &old_name, s) else {
            continue;
        };
        if replaced.contains(&line) {
            continue;
        }
        // A line that keeps some statements changed in place: report its new line.
        let kept = (0..old.program().stmt_count() as u32)
            .map(StmtId)
            .filter(|&o| in_file(old, &old_name, o) == Some(line))
            .find_map(|o| diff.new_of(o));
        match kept.and_then(|n| in_file(new, file, n)) {
            Some(new_line) => {
                changed.insert(new_line);
            }
            None => {
                deleted.insert(line);
            }
        }
    }
    (changed, deleted)
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
    let changed = if changed.is_empty() {
        "(none: the versions lower to the same statements)".to_string()
    } else {
        changed.join(", ")
    };
    let mut out = format!("changed lines of {}: {changed}\n", i.file);
    if !i.changed_objects.is_empty() {
        out.push_str(&format!(
            "changed objects (type or initializer): {}\n",
            i.changed_objects.join(", ")
        ));
    }
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
