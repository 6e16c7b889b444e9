//! The oracle of the C library model's run-time formatter (`analysis/libc/format.c`,
//! behind vprintf, vsnprintf, snprintf and sprintf with specs or floats): the model is
//! compiled natively with gcc (its `va_arg`, `malloc` and `printf` are C's) together with
//! `tests/libc_format/vs_glibc.c`, which formats random doubles and integers with random
//! flags, widths, precisions and length modifiers through the model and through glibc's
//! `vsnprintf` and counts the differences. That agx runs the same C as gcc does is checked
//! by the fixtures (`fixtures/lang/vprintf_family.c`, `fixtures/check-gcc.sh`).

mod common;

use common::{process, project_root};
use std::time::Duration;

#[test]
fn the_model_formats_as_glibc_does() {
    let root = project_root();
    let dir = std::env::temp_dir().join(format!("agx-libc-format-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("vs_glibc");
    let compile = process::run(
        std::path::Path::new("gcc"),
        &[
            "-O1".to_string(),
            "-w".to_string(),
            "-o".to_string(),
            exe.display().to_string(),
            "tests/libc_format/vs_glibc.c".to_string(),
        ],
        &root,
        Duration::from_secs(120),
    );
    assert_eq!(compile.code, Some(0), "gcc: {}", compile.stderr);
    // 100,000 random conversions of each kind, with two seeds.
    for seed in ["1", "20261127"] {
        let run = process::run(
            &exe,
            &["100000".to_string(), seed.to_string()],
            &root,
            Duration::from_secs(120),
        );
        assert_eq!(
            run.code,
            Some(0),
            "seed {seed}: the model differs from glibc:\n{}{}",
            run.stdout,
            run.stderr
        );
        assert!(
            run.stdout.contains("200008 cases, 0 differ"),
            "{}",
            run.stdout
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
