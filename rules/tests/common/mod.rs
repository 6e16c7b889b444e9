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
