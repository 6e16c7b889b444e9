//! Every C fixture under fixtures/ runs through `agx run` and must behave as its
//! `// agx-*` directives declare (format: fixtures/README.md): exit code, violation kind
//! and line, stdout, stderr fragments. All differences are listed together.

mod common;

use common::fixture::{self, Directives, Expect};
use common::{agx_bin, files_with_ext, process, project_root, shown};
use std::path::Path;
use std::time::Duration;

/// Long enough for gcc -E and a run of any fixture; a fixture that spins forever under its
/// schedule is a failure, not a hung test.
const RUN_LIMIT: Duration = Duration::from_secs(60);

/// Directories whose every `.c` file must carry directives (the others may hold inputs of
/// other tests that only follow the format where they choose to).
const STRICT_DIRS: [&str; 3] = ["lang", "conc", "errors"];

#[test]
fn every_fixture_behaves_as_declared() {
    let root = project_root();
    let fixtures = root.join("fixtures");
    let mut failures = Vec::new();
    let mut skipped = Vec::new();
    let mut cases_run = 0;
    for path in files_with_ext(&fixtures, &["c"]) {
        let rel = path.strip_prefix(&fixtures).expect("under fixtures/");
        if rel.starts_with("support") {
            continue;
        }
        let directives = match read_directives(&path) {
            Ok(Some(d)) => d,
            Ok(None) if STRICT_DIRS.iter().any(|d| rel.starts_with(d)) => {
                failures.push(format!("{}: no `// agx-expect` directive", shown(&path)));
                continue;
            }
            Ok(None) => {
                skipped.push(shown(&path));
                continue;
            }
            Err(e) => {
                failures.push(format!("{}: {e}", shown(&path)));
                continue;
            }
        };
        for case in &directives.cases {
            cases_run += 1;
            let mut args = vec!["run".to_string(), shown(&path)];
            args.extend(case.args.iter().cloned());
            let run = process::run(&agx_bin(), &args, &root, RUN_LIMIT);
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            for diff in fixture::differences(case, name, &run) {
                failures.push(format!("{} [{}]: {diff}", shown(&path), case.label()));
            }
        }
    }
    println!("fixture cases run: {cases_run}");
    if !skipped.is_empty() {
        println!("without directives (not checked): {}", skipped.join(", "));
    }
    assert!(
        cases_run > 0,
        "no fixture found under {}",
        fixtures.display()
    );
    assert!(
        failures.is_empty(),
        "{} fixture check(s) failed:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

/// The fixture's directives, `None` if it has none at all.
fn read_directives(path: &Path) -> Result<Option<Directives>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    if !fixture::has_directives(&text) {
        return Ok(None);
    }
    fixture::parse(&text).map(Some)
}

#[test]
fn verify_directives_are_left_to_the_verify_harness() {
    let d = fixture::parse("// agx-verify: safe --unwind 3\n// agx-expect: ok\n").unwrap();
    assert_eq!(d.cases.len(), 1);
    assert!(d.cases[0].args.is_empty());
}

#[test]
fn directives_without_run_lines_make_one_case() {
    let text = "// agx-expect: ok\n// agx-stdout: a b\n// agx-stdout:\n//  agx-stdout: no\n";
    let d = fixture::parse(text).unwrap();
    assert_eq!(d.cases.len(), 1);
    let case = &d.cases[0];
    assert!(case.args.is_empty());
    assert_eq!(case.expect, Expect::Ok);
    let multi = fixture::parse("// agx-expect: violation  null dereference\n").unwrap();
    assert_eq!(
        multi.cases[0].expect,
        Expect::Violation("null dereference".into())
    );
    assert_eq!(case.expected_stdout(), "a b\n\n");
}

#[test]
fn run_lines_open_cases() {
    let text = "\
// agx-gcc: skip ilp32 only
// agx-run: --input 1,2 --schedule round-robin
// agx-expect: violation assertion
// agx-expect-line: 12
// agx-stdout:   indented
// agx-run:
// agx-expect: error
// agx-stderr-contains: unsupported: bit-field
int main(void) { return 0; }
";
    let d = fixture::parse(text).unwrap();
    assert_eq!(d.gcc_skip.as_deref(), Some("ilp32 only"));
    assert_eq!(d.cases.len(), 2);
    assert_eq!(
        d.cases[0].args,
        ["--input", "1,2", "--schedule", "round-robin"]
    );
    assert_eq!(d.cases[0].expect, Expect::Violation("assertion".into()));
    assert_eq!(d.cases[0].line, Some(12));
    assert_eq!(d.cases[0].stdout, ["  indented"]);
    assert!(d.cases[1].args.is_empty());
    assert_eq!(d.cases[1].expect, Expect::Error);
    assert_eq!(d.cases[1].stderr_contains, ["unsupported: bit-field"]);
}

#[test]
fn malformed_directives_are_rejected_with_their_line() {
    let cases = [
        ("// agx-expect: fine\n", "line 1"),
        ("// agx-expct: ok\n", "unknown directive"),
        ("// agx-expect: ok\n// agx-expect: ok\n", "second"),
        ("// agx-stdout: x\n", "no `agx-expect`"),
        (
            "// agx-expect: ok\n// agx-run: x\n// agx-expect: ok\n",
            "before the first",
        ),
        ("// agx-expect: violation\n", "violation KIND"),
        ("// agx-expect: ok\n// agx-expect-line: x\n", "line number"),
    ];
    for (text, fragment) in cases {
        let err = fixture::parse(text).expect_err(text);
        assert!(err.contains(fragment), "{text:?}: {err}");
    }
}

#[test]
fn locations_match_whole_file_names_and_lines() {
    let text = "error: fixtures/errors/vla.c:9: unsupported: x\nat other.c:80";
    assert!(fixture::names_location(text, "vla.c", 9));
    assert!(!fixture::names_location(text, "vla.c", 90));
    assert!(!fixture::names_location(text, "la.c", 9));
    assert!(fixture::names_location(text, "other.c", 80));
    assert!(!fixture::names_location(text, "other.c", 8));
}

#[test]
fn run_differences_name_what_differs() {
    let case = fixture::parse("// agx-expect: violation deadlock\n// agx-stdout: hi\n")
        .unwrap()
        .cases
        .remove(0);
    let finished = |code, stdout: &str, stderr: &str| process::Finished {
        code: Some(code),
        signal: None,
        timed_out: false,
        stdout: stdout.into(),
        stderr: stderr.into(),
    };
    let report = "agx run: VIOLATION (deadlock) in thread 0 at dir/f.c:40: deadlock: ...\n";
    let good = finished(1, "hi\n", report);
    assert!(fixture::differences(&case, "f.c", &good).is_empty());
    let wrong_code = fixture::differences(&case, "f.c", &finished(0, "hi\n", ""));
    assert!(wrong_code[0].contains("exit code 0"), "{wrong_code:?}");
    let other_kind = "agx run: VIOLATION (assertion) in thread 0 at f.c:40: x\n";
    let wrong_kind = fixture::differences(&case, "f.c", &finished(1, "hi\n", other_kind));
    assert!(wrong_kind[0].contains("got `assertion`"), "{wrong_kind:?}");
    let no_report = fixture::differences(&case, "f.c", &finished(1, "hi\n", "deadlock"));
    assert!(
        no_report[0].contains("expected a `VIOLATION"),
        "{no_report:?}"
    );
    let wrong_out = fixture::differences(&case, "f.c", &finished(1, "ho\n", report));
    assert!(wrong_out[0].contains("line 1"), "{wrong_out:?}");
    let mut at_line = case.clone();
    at_line.line = Some(41);
    let wrong_line = fixture::differences(&at_line, "f.c", &good);
    assert!(
        wrong_line[0].contains("got it at dir/f.c:40"),
        "{wrong_line:?}"
    );
}

#[test]
fn violation_reports_are_read_from_the_report_line() {
    let stderr = "warning: x\nagx run: VIOLATION (null dereference) in thread 2 at a/b.c:7: boom\n";
    assert_eq!(
        fixture::violation_report(stderr),
        Some(("null dereference", "a/b.c:7"))
    );
    assert_eq!(fixture::violation_report("agx run: completed"), None);
}
