//! The `sscanf` model (analysis/src/lower/scanf.rs) makes every outcome reachable and
//! nothing more: in fixtures/lang/sscanf.c each `reach_error` marked `// TARGET` is
//! reachable for exactly one result of the call (EOF, 0, 1, 2 or 3 conversions, with
//! particular assigned values), and each marked `// NEVER` for none. `agx verify --target`
//! must find a violation at every TARGET, under every strategy, with a witness that
//! `agx run --witness` replays to the same line, and must prove every NEVER line safe.

mod common;

use common::{agx_bin, process, project_root, shown, witness};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);
const STRATEGIES: [&str; 3] = ["baseline", "dpor", "dpor+ag"];

/// 1-based numbers of the lines whose comment starts with `marker`.
fn lines_marked(text: &str, marker: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.contains(&format!("// {marker}")) && !l.starts_with("//"))
        .map(|(i, _)| i + 1)
        .collect()
}

fn verify(root: &Path, file: &Path, line: usize, strategy: &str) -> Result<Value, String> {
    let args: Vec<String> = [
        "verify",
        &shown(file),
        "--target",
        &format!("sscanf.c:{line}"),
        "--strategy",
        strategy,
        "--format",
        "json",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let run = process::run(&agx_bin(), &args, root, LIMIT);
    serde_json::from_str(run.stdout.trim())
        .map_err(|e| format!("not JSON ({}): {e}; stderr: {}", run.ending(), run.stderr))
}

/// Replays the witness of a violation with `agx run` and checks it stops at `line`.
fn replays_to(root: &Path, file: &Path, out: &Value, line: usize) -> Result<(), String> {
    let run = witness::replay(root, file, out, "sscanf", line as u64, LIMIT)?;
    if run.code == Some(1) && run.stderr.contains(&format!("sscanf.c:{line}:")) {
        Ok(())
    } else {
        Err(format!(
            "witness {} does not replay to line {line} ({}): {}",
            out["witness"],
            run.ending(),
            run.stderr.trim()
        ))
    }
}

fn check_line(root: &Path, file: &Path, line: usize, reachable: bool) -> Vec<String> {
    let mut failures = Vec::new();
    for strategy in STRATEGIES {
        let result = verify(root, file, line, strategy).and_then(|out| {
            let verdict = out["verdict"].as_str().unwrap_or("").to_string();
            match (reachable, verdict.as_str()) {
                (true, "violation") if out["violation"]["line"].as_u64() == Some(line as u64) => {
                    replays_to(root, file, &out, line)
                }
                (false, "safe") => Ok(()),
                _ => Err(format!(
                    "verdict {verdict} at {}, expected {} (reason: {})",
                    out["violation"]["line"],
                    if reachable { "violation" } else { "safe" },
                    out["reason"]
                )),
            }
        });
        if let Err(e) = result {
            failures.push(format!("line {line}, {strategy}: {e}"));
        }
    }
    failures
}

#[test]
fn every_sscanf_outcome_is_reachable_and_no_other() {
    let root = project_root();
    let file = root.join("fixtures/lang/sscanf.c");
    let text = std::fs::read_to_string(&file).expect("fixtures/lang/sscanf.c");
    let targets = lines_marked(&text, "TARGET");
    let never = lines_marked(&text, "NEVER");
    assert_eq!(
        (targets.len(), never.len()),
        (5, 3),
        "markers of the fixture"
    );
    let mut failures = Vec::new();
    for &line in &targets {
        failures.extend(check_line(&root, &file, line, true));
    }
    for &line in &never {
        failures.extend(check_line(&root, &file, line, false));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
