//! Bad command-line input never crashes agx: impossible time limits, targets that name no
//! statement, and a reader that closes the pipe early all end with a clear message (or
//! quietly), never a panic.

mod common;

use common::{agx_bin, project_root};
use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};

/// The fixture the tests point at: a reach_error on line 10, nothing on line 2 but a
/// declaration, a plain statement on line 12.
const PROGRAM: &str = "fixtures/paper/s6_abstract_system.c";

fn agx(args: &[&str]) -> Output {
    Command::new(agx_bin())
        .args(args)
        .current_dir(project_root())
        .stdin(Stdio::null())
        .output()
        .expect("agx runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit 2 with `needle` on stderr and no panic.
fn assert_error(o: &Output, needle: &str, what: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{what}: {err}");
    assert!(!err.contains("panicked"), "{what} panicked: {err}");
    assert!(err.contains(needle), "{what}: no `{needle}` in: {err}");
}

#[test]
fn every_command_rejects_the_same_impossible_timeouts() {
    let prp = project_root().join("target/bad-input-unreach.prp");
    std::fs::write(
        &prp,
        "CHECK( init(main()), LTL(G ! call(reach_error())) )\n",
    )
    .unwrap();
    let prp = prp.to_str().unwrap().to_string();
    let commands: [Vec<&str>; 4] = [
        vec!["verify", PROGRAM],
        vec!["hunt", PROGRAM, "--assertions"],
        vec!["svcomp", "--property", &prp, PROGRAM],
        vec!["bench", "fixtures/verify"],
    ];
    for command in &commands {
        for bad in ["1e19", "inf", "nan", "0", "-1", "1000001", "ten"] {
            // `--timeout=-1`: with a space, clap would read `-1` as a flag.
            let value = format!("--timeout={bad}");
            let mut args = command.clone();
            args.push(&value);
            let o = agx(&args);
            assert_error(&o, "--timeout", &format!("{} --timeout {bad}", command[0]));
        }
    }
    // svcomp and bench refuse a memory limit agx verify cannot start under.
    let o = agx(&["svcomp", "--property", &prp, PROGRAM, "--memory", "100"]);
    assert_error(&o, "minimum of 256 MiB", "svcomp --memory 100");
    // The largest accepted value and a fraction are accepted: the violation is found, or
    // (a fraction on a loaded machine) the budget runs out; never a usage error.
    for (good, codes) in [("1000000", &[1][..]), ("0.5", &[1, 3][..])] {
        let o = agx(&["verify", PROGRAM, "--timeout", good]);
        let code = o.status.code().unwrap_or(-1);
        assert!(codes.contains(&code), "--timeout {good}: exit {code}: {}", stderr(&o));
    }
}

#[test]
fn targets_naming_no_statement_are_errors_that_name_the_location() {
    let beyond = "s6_abstract_system.c:99999";
    let declaration = "s6_abstract_system.c:2";
    for (args, needle) in [
        (vec!["verify", PROGRAM, "--target", beyond], beyond),
        (
            vec!["verify", PROGRAM, "--target", declaration],
            declaration,
        ),
        (vec!["verify", PROGRAM, "--target", "other.c:10"], "other.c"),
        (vec!["hunt", PROGRAM, "--target", beyond], beyond),
        (vec!["hunt", PROGRAM, "--target", declaration], declaration),
        (vec!["slice", PROGRAM, "--target", beyond], beyond),
        (vec!["slice", PROGRAM, "--target", declaration], declaration),
        (
            vec!["verify", PROGRAM, "--target", "s6_abstract_system.c"],
            "FILE:LINE",
        ),
        (
            vec!["verify", PROGRAM, "--target", "s6_abstract_system.c:0"],
            "from 1",
        ),
    ] {
        let o = agx(&args);
        assert_error(&o, needle, &args.join(" "));
    }
    // A statement that is not an assertion: verify would check nothing there.
    let o = agx(&["verify", PROGRAM, "--target", "s6_abstract_system.c:12"]);
    assert_error(&o, "no assertion or reach_error", "verify --target :12");
    // With --check memory, any statement can be a target.
    let o = agx(&[
        "verify",
        PROGRAM,
        "--check",
        "memory",
        "--target",
        "s6_abstract_system.c:12",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // The assertion itself is still found.
    let o = agx(&["verify", PROGRAM, "--target", "s6_abstract_system.c:10"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

#[test]
fn a_reader_that_closes_the_pipe_early_ends_agx_quietly() {
    // Enough IR that agx is still writing when the reader has gone (a pipe holds 64 KiB).
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join("broken-pipe.c");
    let mut text = String::from("int x;\n");
    for i in 0..3000 {
        text.push_str(&format!("void f{i}(void) {{ x = x + {i}; x = x * 2; }}\n"));
    }
    text.push_str("int main(void) { f0(); return x; }\n");
    std::fs::write(&file, text).unwrap();
    for format in ["text", "json"] {
        let mut child = Command::new(agx_bin())
            .args(["ir", file.to_str().unwrap(), "--format", format])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        assert!(!first.is_empty());
        // The reader (and with it the pipe) is gone: like `agx ir big.c | head -1`.
        let o = child.wait_with_output().unwrap();
        let err = stderr(&o);
        assert!(err.is_empty(), "{format}: stderr: {err}");
        use std::os::unix::process::ExitStatusExt;
        assert!(
            o.status.code() == Some(0) || o.status.signal() == Some(13),
            "{format}: {:?}",
            o.status
        );
    }
}
