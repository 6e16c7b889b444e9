//! Helpers of this crate's unit tests.

use analysis::ir::Program;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Lowers C source `src` written as a file named `name` (the front end reads files).
/// Each call gets a directory of its own, so tests running in parallel never share a
/// file, and the program's locations name `name` as given.
pub(crate) fn lower(name: &str, src: &str) -> Program {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir()
        .join(format!("agx-unit-{}", std::process::id()))
        .join(call.to_string());
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, src).expect("writes the source");
    analysis::load_program(&path, &Default::default()).expect("lowers")
}
