//! The searches held to the oracle: the library strategies and the CLI's `agx verify`
//! and `agx hunt`, each answer as one `Answer`.

use super::common::{agx_bin, process, project_root};
use super::Limits;
use explorer::symbolic::{self, Config, Reason, Repair, SearchOutcome, Strategy, Verdict};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

/// The slice `agx verify` gives the search for Type B pivots.
pub(crate) fn type_b_slice(program: &analysis::ir::Program) -> BTreeSet<analysis::ir::StmtId> {
    let facts = analysis::facts::extract(program);
    let analysis = rules::Analysis::run(&facts);
    analysis.backward_slice(&symbolic::type_b_criteria(program))
}

/// One search's answer, library or CLI.
pub(crate) struct Answer {
    pub(crate) name: String,
    pub(crate) verdict: Verdict,
    pub(crate) lines: BTreeSet<u32>,
    /// Stopped by a time-out or a solver give-up: it may miss violations.
    pub(crate) stopped: bool,
    pub(crate) detail: String,
}

pub(crate) fn library(
    program: &analysis::ir::Program,
    name: &str,
    strategy: Strategy,
    slice: Option<&BTreeSet<analysis::ir::StmtId>>,
    repair: Repair,
    limits: &Limits,
    tweak: &dyn Fn(&mut Config),
) -> Result<Answer, String> {
    let mut c = Config::default();
    c.strategy = strategy;
    c.slice = slice.is_some();
    c.relevant = slice.cloned();
    c.repair = repair;
    if let Ok(mode) = std::env::var("AGX_ORACLE_DPOR") {
        c.dpor = mode
            .parse()
            .unwrap_or_else(|e| panic!("AGX_ORACLE_DPOR={mode}: {e}"));
    }
    c.all_violations = true;
    c.timeout = Some(limits.search_timeout);
    c.max_states = Some(limits.states);
    tweak(&mut c);
    let o: SearchOutcome = symbolic::verify(program, &c).map_err(|e| format!("{name}: {e}"))?;
    Ok(Answer {
        name: name.to_string(),
        verdict: o.verdict,
        lines: o.violations.iter().map(|f| f.span.line).collect(),
        stopped: o.incomplete.iter().any(|i| {
            matches!(
                i.reason,
                Reason::Timeout | Reason::Solver | Reason::StateBound
            )
        }),
        detail: format!(
            "{:?} {:?} runs {}+{} {:?}",
            o.verdict,
            o.violations
                .iter()
                .map(|f| f.span.line)
                .collect::<BTreeSet<_>>(),
            o.stats.runs,
            o.stats.partial_runs,
            o.incomplete
        ),
    })
}

pub(crate) fn agx(args: &[String], limit: Duration) -> Result<Value, String> {
    let run = process::run(&agx_bin(), args, &project_root(), limit);
    if !matches!(run.code, Some(0) | Some(1) | Some(3)) {
        return Err(format!(
            "agx {args:?}: {} {}",
            run.ending(),
            run.stderr.trim()
        ));
    }
    serde_json::from_str(&run.stdout).map_err(|e| format!("agx {args:?}: not JSON ({e})"))
}

/// `agx verify FILE --all` with its own slice (the default strategy).
pub(crate) fn cli_verify(path: &Path, timeout: Duration) -> Result<Answer, String> {
    let args: Vec<String> = [
        "verify",
        &path.display().to_string(),
        "--all",
        "--format",
        "json",
        "--timeout",
        &timeout.as_secs().to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let v = agx(&args, timeout * 4 + Duration::from_secs(30))?;
    let verdict = match v["verdict"].as_str() {
        Some("violation") => Verdict::Violation,
        Some("safe") => Verdict::Safe,
        _ => Verdict::Unknown,
    };
    let lines = v["violations"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|f| f["line"].as_u64())
                .map(|l| l as u32)
                .collect()
        })
        .unwrap_or_default();
    let stopped = v["incomplete"].as_array().is_some_and(|a| {
        a.iter()
            .any(|i| matches!(i["reason"].as_str(), Some("timeout" | "solver")))
    });
    Ok(Answer {
        name: "agx verify (cli)".to_string(),
        verdict,
        lines,
        stopped,
        detail: format!("{verdict:?} reason {}", v["reason"]),
    })
}

/// `agx hunt FILE --target FILE:LINE`: its verdict and reason.
pub(crate) fn cli_hunt(
    path: &Path,
    line: u32,
    timeout: Duration,
) -> Result<(String, String), String> {
    let name = path.file_name().unwrap().to_string_lossy();
    let args: Vec<String> = [
        "hunt",
        &path.display().to_string(),
        "--target",
        &format!("{name}:{line}"),
        "--format",
        "json",
        "--jobs",
        "1",
        "--timeout",
        &(timeout.as_secs() * 2).to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let v = agx(&args, timeout * 8 + Duration::from_secs(30))?;
    let goal = &v[0];
    Ok((
        goal["verdict"].as_str().unwrap_or("?").to_string(),
        goal["reason"].as_str().unwrap_or("").to_string(),
    ))
}
