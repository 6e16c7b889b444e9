//! Helpers of this crate's unit tests.

use analysis::ir::Program;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Two threads that write `x` and `y` in opposite orders, and an assertion that holds:
/// a small program dpor+ag records summaries on (the summary export's tests).
pub(crate) const RACY: &str = "#include <pthread.h>\n#include <assert.h>\nint x, y;\n\
void *t1(void *a) { x = 1; y = x + 1; return 0; }\n\
void *t2(void *a) { y = 2; x = y + 1; return 0; }\n\
int main(void) {\n  pthread_t a, b;\n  pthread_create(&a, 0, t1, 0);\n  pthread_create(&b, 0, t2, 0);\n\
  pthread_join(a, 0);\n  pthread_join(b, 0);\n  assert(x < 10);\n  return 0;\n}\n";

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
