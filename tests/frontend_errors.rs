//! Inputs agx cannot read give one clear line on stderr and exit code 2: a missing file,
//! a binary file, a file that is not UTF-8 (itself or through a header), a file gcc cannot
//! preprocess, a semantic error (no doubled "error:").

mod common;

use common::{agx_bin, process, project_root};
use std::path::PathBuf;
use std::time::Duration;

/// `agx run FILE`: exit code and stderr.
fn run(file: &str) -> (Option<i32>, String) {
    let args = vec!["run".to_string(), file.to_string()];
    let run = process::run(&agx_bin(), &args, &project_root(), Duration::from_secs(60));
    (run.code, run.stderr)
}

fn temp_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agx-frontend-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Checks one line `error: EXPECTED` on stderr and exit code 2.
fn one_line(file: &str, expected: &str) {
    let (code, stderr) = run(file);
    assert_eq!(code, Some(2), "{file}: {stderr}");
    assert_eq!(stderr, format!("error: {expected}\n"), "{file}");
}

#[test]
fn unreadable_inputs_are_one_clear_line() {
    let dir = temp_dir();
    let path = |name: &str| dir.join(name).display().to_string();

    one_line(
        &path("missing.c"),
        &format!("{}: no such file", path("missing.c")),
    );
    one_line(
        &path("missing.i"),
        &format!("{}: no such file", path("missing.i")),
    );

    let mut binary = b"\x7fELF\x02\x01\x01".to_vec();
    binary.extend([0u8; 64]);
    binary.extend(b"int main() { return 0; }\n");
    std::fs::write(path("binary.c"), &binary).unwrap();
    one_line(
        &path("binary.c"),
        &format!(
            "{}: not a C source file (binary data: a NUL byte at offset 7)",
            path("binary.c")
        ),
    );

    std::fs::write(
        path("latin1.c"),
        b"int main(void) {\n    char *s = \"caf\xe9\";\n    return 0;\n}\n",
    )
    .unwrap();
    one_line(
        &path("latin1.c"),
        &format!(
            "{}:2: not UTF-8 text (byte 0xE9); agx reads UTF-8 source files",
            path("latin1.c")
        ),
    );

    // Through a header: found in gcc's output, located through its line markers.
    std::fs::write(path("latin1.h"), b"int x;\nchar *s = \"caf\xe9\";\n").unwrap();
    std::fs::write(
        path("uses_header.c"),
        "#include \"latin1.h\"\nint main(void) { return x; }\n",
    )
    .unwrap();
    let (code, stderr) = run(&path("uses_header.c"));
    assert_eq!(code, Some(2));
    assert!(
        stderr.starts_with("error: ")
            && stderr.contains("latin1.h:2: not UTF-8 text (byte 0xE9)")
            && stderr.lines().count() == 1,
        "{stderr}"
    );

    std::fs::write(
        path("no_header.c"),
        "#include \"not_there.h\"\nint main(void) { return 0; }\n",
    )
    .unwrap();
    let (code, stderr) = run(&path("no_header.c"));
    assert_eq!(code, Some(2));
    assert!(
        stderr.lines().count() == 1
            && stderr.contains("preprocessing with gcc -E failed: ")
            && stderr
                .contains("no_header.c:1:10: fatal error: not_there.h: No such file or directory"),
        "{stderr}"
    );

    std::fs::write(path("undeclared.c"), "int main(void) { return y; }\n").unwrap();
    one_line(
        &path("undeclared.c"),
        &format!(
            "{}:1: use of undeclared identifier `y`",
            path("undeclared.c")
        ),
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
