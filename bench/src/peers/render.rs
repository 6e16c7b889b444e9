//! The comparison as text: the per-task table, the goals and a summary per tool.

use super::*;
use crate::report::{expected_label, ratio_text, seconds, Table};
use std::fmt::Write as _;

/// The comparison as text: the per-task table, then the goals and a summary per tool.
pub fn render(c: &PeerComparison) -> String {
    let mut out = String::new();
    per_task(&mut out, c);
    goals(&mut out, c);
    per_tool(&mut out, c);
    if !c.without_peers.is_empty() {
        let _ = writeln!(
            out,
            "\nagx tasks without a peer row ({}): {}",
            c.without_peers.len(),
            c.without_peers.join(", ")
        );
    }
    out
}

fn per_task(out: &mut String, c: &PeerComparison) {
    let _ = writeln!(
        out,
        "AGX VS PEERS ({} tasks; runs = agx full + partial runs, exec = the peer's complete \
         executions, ratio = agx time / peer time when both gave a verdict; inputs: the program has \
         __VERIFIER_nondet or havocked inputs)",
        c.rows.len()
    );
    let mut header: Vec<String> = ["task", "expected", "inputs", "agx", "runs", "time"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    for tool in &c.tools {
        header.extend([tool.clone(), "exec".into(), "time".into(), "ratio".into()]);
    }
    header.push("goal".into());
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut table = Table::new(&header_refs);
    for r in &c.rows {
        let mut row = vec![
            r.agx.display_name(),
            expected_label(r.agx.expected).to_string(),
            match r.has_inputs {
                Some(true) => "yes",
                Some(false) => "no",
                None => "?",
            }
            .to_string(),
            verdict_mark(r.agx.status.label(), r.agx.outcome.is_wrong()),
            r.agx_runs()
                .map(|v| v.to_string())
                .unwrap_or_else(|| "-".into()),
            seconds(r.agx.wall_time_ms),
        ];
        let agx_verdict = matches!(r.agx.status, Status::True | Status::False);
        for p in &r.peers {
            match p {
                Some(p) => {
                    let wrong = p.verdict.as_bool().is_some()
                        && p.expected.is_some()
                        && p.verdict.as_bool() != p.expected;
                    row.extend([
                        verdict_mark(p.verdict.label(), wrong),
                        p.executions
                            .map(|v| v.to_string())
                            .unwrap_or_else(|| "-".into()),
                        format!("{:.2}s", p.seconds),
                        if p.seconds > 0.0 && p.verdict.as_bool().is_some() && agx_verdict {
                            ratio_text(r.agx.wall_time_ms as f64 / 1000.0 / p.seconds)
                        } else {
                            "-".into()
                        },
                    ]);
                }
                None => row.extend(["-".into(), "".into(), "".into(), "".into()]),
            }
        }
        row.push(goal_text(r));
        table.row(row);
    }
    let right: Vec<usize> = std::iter::once(4)
        .chain(std::iter::once(5))
        .chain((0..c.tools.len()).flat_map(|i| [7 + 4 * i, 8 + 4 * i, 9 + 4 * i]))
        .collect();
    out.push_str(&table.render(&right));
}

fn verdict_mark(label: &str, wrong: bool) -> String {
    if wrong {
        format!("{label}!")
    } else {
        label.to_string()
    }
}

/// `MISSED`, `SLOW (bar 0.60s)`, `runs > nidhugg 2`, joined; blank when every goal is met.
fn goal_text(r: &TaskRow) -> String {
    let mut parts = Vec::new();
    match &r.decide {
        DecideGoal::Missed => parts.push("MISSED".to_string()),
        DecideGoal::Slow { bar_s } => parts.push(format!("SLOW (bar {bar_s:.2}s)")),
        DecideGoal::Met | DecideGoal::NoBar => {}
    }
    if !r.runs_above.is_empty() {
        let above: Vec<String> = r
            .runs_above
            .iter()
            .map(|(tool, e)| format!("{tool} {e}"))
            .collect();
        parts.push(format!("runs > {}", above.join(", ")));
    }
    parts.join("; ")
}

fn goals(out: &mut String, c: &PeerComparison) {
    let bar: Vec<&TaskRow> = c.bar_tasks().collect();
    let missed: Vec<&TaskRow> = bar
        .iter()
        .copied()
        .filter(|r| r.decide == DecideGoal::Missed)
        .collect();
    let slow: Vec<&TaskRow> = bar
        .iter()
        .copied()
        .filter(|r| matches!(r.decide, DecideGoal::Slow { .. }))
        .collect();
    let _ = writeln!(
        out,
        "\nGOAL decide: {} tasks a peer decides correctly (FALSE, or TRUE from at least one \
         execution of a program without inputs); agx meets {} (correct within {TIME_FACTOR}x \
         the fastest such peer + {SLACK_S} s), misses {}, is slower on {}",
        bar.len(),
        bar.len() - missed.len() - slow.len(),
        missed.len(),
        slow.len()
    );
    if !missed.is_empty() {
        let _ = writeln!(out, "  missed: {}", names(&missed));
    }
    if !slow.is_empty() {
        let _ = writeln!(out, "  slower: {}", names(&slow));
    }
    let both: Vec<&TaskRow> = c.both_decided().collect();
    let above = rows_above(&both, |r| &r.runs_above);
    let _ = writeln!(
        out,
        "GOAL runs: {} tasks decided by agx and a peer; agx's runs exceed a deciding peer's \
         executions on {}",
        both.len(),
        above.len()
    );
    list_above(out, &above);
    let unblocked = rows_above(&both, |r| &r.runs_above_unblocked);
    let _ = writeln!(
        out,
        "GOAL runs less the blocked ones (agx's runs less the {} that ended in a \
         blocked wait, which the peers report apart from their executions): above on {}",
        both.iter()
            .map(|r| r.agx.blocked_runs.unwrap_or(0))
            .sum::<u64>(),
        unblocked.len()
    );
    list_above(out, &unblocked);
    let complete = rows_above(&both, |r| &r.runs_above_complete);
    let _ = writeln!(
        out,
        "GOAL runs counted as complete executions (agx's full runs less the blocked ones; \
         its {} partial runs ended early, at a sleep set (Nidhugg's \"sleep-set blocked\"), a \
         summary or a slice cut): above on {}",
        both.iter()
            .map(|r| r.agx.partial_runs.unwrap_or(0))
            .sum::<u64>(),
        complete.len()
    );
    list_above(out, &complete);
    let only_agx: Vec<&TaskRow> = c
        .rows
        .iter()
        .filter(|r| r.agx_decides() && !r.peers.iter().flatten().any(PeerRow::decides))
        .collect();
    let _ = writeln!(
        out,
        "agx decides {} tasks no peer decides{}",
        only_agx.len(),
        if only_agx.is_empty() {
            String::new()
        } else {
            format!(": {}", names(&only_agx))
        }
    );
}

fn per_tool(out: &mut String, c: &PeerComparison) {
    let _ = writeln!(out, "\nPER TOOL (on these {} tasks)", c.rows.len());
    let mut table = Table::new(&[
        "tool",
        "correct",
        "wrong",
        "no verdict",
        "median time ratio agx/tool",
    ]);
    let agx_correct = c.rows.iter().filter(|r| r.agx.outcome.is_correct()).count();
    let agx_wrong = c.rows.iter().filter(|r| r.agx.outcome.is_wrong()).count();
    table.row(vec![
        "agx".into(),
        agx_correct.to_string(),
        agx_wrong.to_string(),
        (c.rows.len() - agx_correct - agx_wrong).to_string(),
        String::new(),
    ]);
    for (i, tool) in c.tools.iter().enumerate() {
        let rows: Vec<&PeerRow> = c.rows.iter().filter_map(|r| r.peers[i].as_ref()).collect();
        let verdicts = |wrong: bool| {
            rows.iter()
                .filter(|p| {
                    let v = p.verdict.as_bool();
                    v.is_some() && p.expected.is_some() && (v != p.expected) == wrong
                })
                .count()
        };
        let (correct, wrong) = (verdicts(false), verdicts(true));
        table.row(vec![
            tool.clone(),
            correct.to_string(),
            wrong.to_string(),
            (rows.len() - correct - wrong).to_string(),
            c.median_time_ratio(i)
                .map(ratio_text)
                .unwrap_or_else(|| "-".into()),
        ]);
    }
    out.push_str(&table.render(&[1, 2, 3, 4]));
}

/// The rows whose runs, counted as `above` counts them, exceed a peer's executions.
fn rows_above<'a>(
    rows: &[&'a TaskRow],
    above: impl Fn(&TaskRow) -> &Vec<(String, u64)>,
) -> Vec<&'a TaskRow> {
    rows.iter()
        .copied()
        .filter(|r| !above(r).is_empty())
        .collect()
}

/// The `  above:` line under a runs goal, when some task is above.
fn list_above(out: &mut String, rows: &[&TaskRow]) {
    if !rows.is_empty() {
        let _ = writeln!(out, "  above: {}", names(rows));
    }
}

/// The tasks' names, comma-separated.
fn names(rows: &[&TaskRow]) -> String {
    rows.iter()
        .map(|r| r.agx.display_name())
        .collect::<Vec<_>>()
        .join(", ")
}
