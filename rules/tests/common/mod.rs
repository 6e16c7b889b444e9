//! What the rules crate's differential tests share: the fixture and corpus programs that
//! lower, with their facts.

use analysis::facts::{extract, Facts};
use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn c_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            c_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "c") {
            out.push(p);
        }
    }
}

/// Facts of every program under `dir` that lowers (programs outside the supported subset
/// are the front end's business, not this test's).
pub fn programs(dir: &Path) -> Vec<(PathBuf, Facts)> {
    let mut files = Vec::new();
    c_files(dir, &mut files);
    files.sort();
    files
        .into_iter()
        .filter(|f| !f.to_string_lossy().contains("/errors/"))
        .filter_map(|f| {
            let program = analysis::load_program(&f, &Default::default()).ok()?;
            Some((f, extract(&program)))
        })
        .collect()
}

/// Corpus programs that lowered when this floor was recorded (115 on 2026-11-25): fewer
/// means the front end lost programs and a corpus test silently checks less. Raise it
/// when more lower.
pub const MIN_CORPUS_PROGRAMS: usize = 115;

/// The facts of the SV-COMP corpus programs that lower (`../shared/svcomp`), at least
/// [`MIN_CORPUS_PROGRAMS`] of them; `None` when the corpus is absent, after saying so past
/// the harness's capture (every `cargo test` run shows the skip). With
/// `AGX_REQUIRE_CORPUS=1` (CI) an absent corpus is a failure. `AGX_SVCOMP_DIR` names the
/// corpus elsewhere (a git worktree has no `../shared` beside it).
pub fn corpus_programs(test: &str) -> Option<Vec<(PathBuf, Facts)>> {
    let dir = std::env::var_os("AGX_SVCOMP_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared/svcomp"));
    if !dir.is_dir() {
        let required = std::env::var("AGX_REQUIRE_CORPUS").is_ok_and(|v| !v.is_empty() && v != "0");
        assert!(
            !required,
            "{test}: no SV-COMP corpus at {} and AGX_REQUIRE_CORPUS is set",
            dir.display()
        );
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            format!(
                "SKIPPED {test}: no SV-COMP corpus at {} (checked nothing; \
                 AGX_REQUIRE_CORPUS=1 makes that a failure)\n",
                dir.display()
            )
            .as_bytes(),
        );
        return None;
    }
    let progs = programs(&dir);
    assert!(
        progs.len() >= MIN_CORPUS_PROGRAMS,
        "{test}: only {} corpus programs lower, fewer than the {MIN_CORPUS_PROGRAMS} recorded: \
         the front end lost some (or the corpus shrank); this test would check less",
        progs.len()
    );
    Some(progs)
}
