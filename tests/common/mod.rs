//! Helpers shared by the end-to-end tests: running the `agx` binary with a time limit,
//! finding files, and reading the fixtures' `// agx-*` directives (format in
//! fixtures/README.md).
//!
//! Each test crate compiles this module anew and uses only part of it.
#![allow(dead_code)]

pub mod agx_schema;
pub mod fixture;
pub mod gen;
pub mod gen_shapes;
pub mod gen_spin;
pub mod process;
pub mod witness;

use std::path::{Path, PathBuf};
use std::time::Duration;

/// The project root (where Cargo.toml, fixtures/ and tests/ are).
pub fn project_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `agx` binary Cargo built for these tests.
pub fn agx_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_agx"))
}

/// Every file under `dir` (recursively) whose extension is one of `exts`, sorted.
/// Unreadable directories are skipped: the callers compare against a listing they know.
pub fn files_with_ext(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| exts.contains(&e))
            {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// `path` relative to the project root when it lies inside it, for short messages.
pub fn shown(path: &Path) -> String {
    path.strip_prefix(project_root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// `agx verify FILE EXTRA.. --format json` run from `root`, at most two minutes: the
/// parsed report (a panic naming the run when stdout is not JSON).
pub fn verify_json(root: &Path, file: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "verify".to_string(),
        shown(&root.join(file)),
        "--format".into(),
        "json".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let run = process::run(&agx_bin(), &args, root, Duration::from_secs(120));
    serde_json::from_str(run.stdout.trim())
        .unwrap_or_else(|e| panic!("{file} {extra:?}: not JSON ({e}): {}", run.stderr))
}

/// The counter `key` of a verify report's `stats`.
pub fn stat(report: &serde_json::Value, key: &str) -> u64 {
    report["stats"][key]
        .as_u64()
        .unwrap_or_else(|| panic!("no stats.{key} in {report}"))
}
