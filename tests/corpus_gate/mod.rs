//! The SV-COMP corpus (`../shared/svcomp` or `$AGX_SVCOMP_DIR`, kept outside the
//! repository) for the tests that walk it. When it is absent such a test cannot check anything, and must not pass
//! silently: the skip is written to stderr directly (past the test harness's capture, so
//! it shows in every `cargo test` run, not only with `--nocapture`), and with
//! `AGX_REQUIRE_CORPUS=1` (CI sets it) the absence is a failure instead.
#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;

/// The environment variable that turns a skip into a failure.
pub const REQUIRE: &str = "AGX_REQUIRE_CORPUS";

/// Whether the environment asks for the corpus to be there.
pub fn required() -> bool {
    std::env::var(REQUIRE).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The corpus directory, or `None` after saying (uncaptured) that `test` checked nothing;
/// panics instead when [`required`].
pub fn corpus_or_skip(test: &str) -> Option<PathBuf> {
    // `AGX_SVCOMP_DIR` names the corpus elsewhere (a git worktree has no `../shared`).
    let corpus = std::env::var_os("AGX_SVCOMP_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/svcomp"));
    if corpus.is_dir() {
        return Some(corpus);
    }
    assert!(
        !required(),
        "{test}: the SV-COMP corpus is not at {} and {REQUIRE} is set",
        corpus.display()
    );
    let _ = std::io::stderr().write_all(
        format!(
            "SKIPPED {test}: no SV-COMP corpus at {} (this test checked nothing; set \
             {REQUIRE}=1 to make that a failure)\n",
            corpus.display()
        )
        .as_bytes(),
    );
    None
}
