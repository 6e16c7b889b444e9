//! `agx facts` and `agx rules` end to end: facts written and read back give the same
//! results, both engines agree, every rule set is listed and timed.

mod common;

use common::{agx_bin, process, project_root};
use std::time::Duration;

fn agx(args: &[&str]) -> (Option<i32>, String, String) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let run = process::run(&agx_bin(), &args, &project_root(), Duration::from_secs(300));
    (run.code, run.stdout, run.stderr)
}

#[test]
fn rules_list_names_every_rule_set() {
    let (code, out, _) = agx(&["rules", "list"]);
    assert_eq!(code, Some(0));
    for r in rules::RULE_SETS {
        assert!(out.contains(r.name), "{} missing from:\n{out}", r.name);
    }
    // Every rule set is shipped as .dl, and its line names the file.
    for r in rules::RULE_SETS {
        let (_, file, _) = rules::dl::SHIPPED
            .iter()
            .find(|s| s.0 == r.name)
            .unwrap_or_else(|| panic!("{} has no .dl", r.name));
        let line = out
            .lines()
            .find(|l| l.split_whitespace().next() == Some(r.name))
            .unwrap_or_else(|| panic!("no line for {}", r.name));
        assert!(line.contains(&format!("rules/dl/{file}")), "{line}");
    }
}

#[test]
fn facts_directory_gives_the_same_slices_as_the_program() {
    let dir = std::env::temp_dir().join(format!("agx-facts-cli-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let (code, _, err) = agx(&["facts", "fixtures/paper/s2_impact.c", "-o", d]);
    assert_eq!(code, Some(0), "{err}");
    assert!(dir.join("schema.dl").is_file());
    assert!(dir.join("cfg_edge.facts").is_file());
    let (c1, from_program, _) = agx(&["rules", "run", "fixtures/paper/s2_impact.c"]);
    let (c2, from_facts, _) = agx(&["rules", "run", d]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!((c1, c2), (Some(0), Some(0)));
    // Same relation sizes (times differ): drop the time column.
    let sizes = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| l.contains('='))
            .map(|l| l.split("ms").nth(1).unwrap_or("").trim().to_string())
            .collect()
    };
    assert_eq!(sizes(&from_program), sizes(&from_facts));
}

#[test]
fn engines_agree_on_the_paper_fixtures() {
    for f in [
        "s1_slice.c",
        "s2_impact.c",
        "s3_happens_before.c",
        "s6_abstract_system.c",
    ] {
        let path = format!("fixtures/paper/{f}");
        let (code, out, err) = agx(&["rules", "run", &path, "--compare"]);
        assert_eq!(code, Some(0), "{f}: {out}{err}");
        assert!(out.contains("ascent and crepe agree"), "{f}: {out}");
    }
}

#[test]
fn rules_time_reports_every_rule_set() {
    let (code, out, err) = agx(&[
        "rules",
        "time",
        "fixtures/paper/s6_abstract_system.c",
        "--repeat",
        "2",
    ]);
    assert_eq!(code, Some(0), "{err}");
    for r in rules::RULE_SETS {
        assert!(out.contains(r.name), "{} not timed:\n{out}", r.name);
    }
}

#[test]
fn unknown_rule_set_is_an_error() {
    let (code, _, err) = agx(&[
        "rules",
        "run",
        "fixtures/paper/s1_slice.c",
        "--rule-set",
        "nope",
    ]);
    assert_eq!(code, Some(2));
    assert!(err.contains("unknown rule set `nope`"), "{err}");
}
