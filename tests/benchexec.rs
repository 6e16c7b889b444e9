//! agx's BenchExec tool-info module (docs/benchexec, docs/BENCHEXEC.md) against
//! BenchExec's API and the real binary, by tests/benchexec/check_tool_info.py. It needs a
//! Python with BenchExec (`AGX_BENCHEXEC_PYTHON`, default `python3`); without one the test
//! says SKIPPED past the harness's capture, and `AGX_REQUIRE_BENCHEXEC=1` makes that a
//! failure. The manual check without this test is in docs/BENCHEXEC.md.

mod common;

use common::{agx_bin, project_root};
use std::process::Command;

#[test]
fn the_tool_info_module_runs_agx_and_reads_its_answers() {
    let python = std::env::var("AGX_BENCHEXEC_PYTHON").unwrap_or_else(|_| "python3".into());
    let work = project_root()
        .join("target")
        .join(format!("benchexec-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    let agx_dir = agx_bin().parent().unwrap().to_path_buf();
    let run = Command::new(&python)
        .arg(project_root().join("tests/benchexec/check_tool_info.py"))
        .arg(&agx_dir)
        .arg(env!("CARGO_PKG_VERSION"))
        .arg(&work)
        .current_dir(project_root())
        .output();
    let _ = std::fs::remove_dir_all(&work);
    let required = std::env::var("AGX_REQUIRE_BENCHEXEC").is_ok_and(|v| v == "1");
    let skip = |why: &str| {
        assert!(!required, "AGX_REQUIRE_BENCHEXEC=1 but {why}");
        // Past the harness's capture, so that a skip is seen.
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            format!("SKIPPED the_tool_info_module_runs_agx_and_reads_its_answers: {why}\n")
                .as_bytes(),
        );
    };
    let Ok(out) = run else {
        return skip(&format!("no {python}"));
    };
    if out.status.code() == Some(77) {
        return skip(&format!("BenchExec is not importable by {python}"));
    }
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("tool-info module ok"));
}
