//! `agx hunt` reports: text, JSON and SARIF.
//!
//! JSON: an array, one object per goal:
//! ```json
//! {"goal": 1, "origin": "--target", "target": "f.c:10", "kind": "reach",
//!  "locations": [{"label": "f.c:10", "stmts": ["s4"]}],
//!  "verdict": "confirmed" | "refuted" | "unknown", "found_by": "static" | "guided" |
//!  "exhaustive" | "pct" | "predict" | null, "reason": "..." | null, "message": "..." | null,
//!  "witness": <agx-witness> | null, "steps": [{"thread", "stmt", "location", "event"}],
//!  "goal_threads": [{"thread", "stmt", "location"}], "blocked": [...],
//!  "refinements": [{"branch", "definition", "added", "releases"}],
//!  "initial_traces": [["s22@f.c:21", ...]], "final_traces": [[...]],
//!  "stats": {"states", "states_decisive", "expanded", "expanded_decisive",
//!            "refinements", "trace_length", "trace_sets_tried", "trace_sets",
//!            "exhaustive_states", "rounds", "solver_queries", "time_ms"}}
//! ```

use super::super::explain;
use super::super::run::step_text;
use super::super::warnings::sarif_rules;
use super::super::witness_text;
use super::{Format, GoalOutcome};
use crate::driver::Overrun;
use analysis::ir::{Program, StmtId};
use analysis::sarif::{self, Finding, FlowStep, ResultKind, Rule, SourceLocation};
use explorer::concrete::EventKind;
use explorer::guided::{GoalKind, Hunt, Verdict};
use serde_json::{json, Map, Value};
use std::fmt::Write as _;

fn stmt_label(program: &Program, s: StmtId) -> String {
    let span = program.stmt(s).span();
    format!("{s}@{}", program.location(span))
}

fn trace_labels(program: &Program, traces: &[Vec<StmtId>]) -> Vec<Vec<String>> {
    traces
        .iter()
        .map(|t| t.iter().map(|&s| stmt_label(program, s)).collect())
        .collect()
}

fn stats_line(h: &Hunt) -> String {
    let s = &h.stats;
    let mut line = format!(
        "{} states generated, {} expanded ({} / {} in the deciding trial), {} refinement(s), abstract trace length {}, {} of {} trace set(s) tried, {} round(s), {:.1} ms",
        s.states,
        s.expanded,
        s.states_decisive,
        s.expanded_decisive,
        s.refinements,
        s.trace_length,
        s.trace_sets_tried,
        s.trace_sets,
        s.rounds,
        s.time_ms
    );
    if s.exhaustive_states > 0 {
        let _ = write!(line, " (exhaustive search: {} states)", s.exhaustive_states);
    }
    line
}

pub fn text(program: &Program, outcomes: &[GoalOutcome]) -> String {
    let mut s = String::new();
    for (i, o) in outcomes.iter().enumerate() {
        let kind = o.spec.kind_name();
        let _ = writeln!(
            s,
            "goal {}: {} [{}, {}]",
            i + 1,
            o.spec.label,
            kind,
            o.spec.origin
        );
        let h = &o.hunt;
        let by = h.found_by.map(|b| {
            format!(
                " ({})",
                serde_json::to_value(b)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default()
            )
        });
        match (&h.evidence, &h.reason) {
            (Some(ev), _) => {
                let _ = writeln!(
                    s,
                    "  {}{}: {}",
                    h.verdict.name(),
                    by.unwrap_or_default(),
                    ev.message
                );
                evidence_text(program, o, &mut s);
            }
            (None, reason) => {
                let _ = writeln!(
                    s,
                    "  {}{}: {}",
                    h.verdict.name(),
                    by.unwrap_or_default(),
                    reason.as_deref().unwrap_or("")
                );
            }
        }
        for r in &h.refinements {
            let _ = writeln!(
                s,
                "  refinement: branch {} failed; added definition {} via {}",
                stmt_label(program, r.branch),
                stmt_label(program, r.definition),
                r.added
                    .iter()
                    .map(|&x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(" → ")
            );
        }
        let _ = writeln!(s, "  stats: {}", stats_line(h));
        s.push('\n');
    }
    let count = |v: Verdict| outcomes.iter().filter(|o| o.hunt.verdict == v).count();
    let _ = writeln!(
        s,
        "{} goal(s): {} confirmed, {} refuted, {} unknown",
        outcomes.len(),
        count(Verdict::Confirmed),
        count(Verdict::Refuted),
        count(Verdict::Unknown)
    );
    s
}

/// The witness explained as verify explains its own: a `why:` line for a goal reached in
/// one thread (a race's and a deadlock's message already name every thread), then every
/// step with its thread's start function, its IR statement and its source line.
fn evidence_text(program: &Program, o: &GoalOutcome, s: &mut String) {
    let Some(ev) = &o.hunt.evidence else { return };
    let is_race = matches!(o.spec.guided(), Some(g) if g.kind == GoalKind::Race || g.kind == GoalKind::Together);
    let marked = if is_race { ev.goal_threads.len() } else { 0 };
    let first_marked = ev.steps.len().saturating_sub(marked);
    let plain: Vec<explain::Step> = ev
        .steps
        .iter()
        .map(|st| explain::Step {
            thread: st.thread,
            stmt: st.stmt,
        })
        .collect();
    let entries = ev
        .witness
        .context
        .as_ref()
        .map(|c| c.threads.clone())
        .unwrap_or_default();
    let failing = ev
        .goal_threads
        .first()
        .map(|&(t, _)| t)
        .or(ev.steps.last().map(|st| st.thread));
    if let (false, true, Some(failing)) = (is_race, ev.blocked.is_empty(), failing) {
        if let Some(summary) = explain::summary(program, &entries, &plain, &ev.witness, failing) {
            let _ = writeln!(s, "  why: {summary}");
        }
    }
    let functions = explain::thread_functions(program, &entries, &plain);
    let texts: Vec<(String, String)> = ev
        .steps
        .iter()
        .map(|st| {
            let event = match st.event.as_str() {
                "reacquire" => EventKind::Reacquire,
                "thread_end" => EventKind::ThreadEnd,
                _ => EventKind::Statement,
            };
            (
                step_text(program, st.stmt, event),
                explain::statement_line(program, st.stmt).unwrap_or_default(),
            )
        })
        .collect();
    let steps: Vec<witness_text::Step<'_>> = ev
        .steps
        .iter()
        .zip(&texts)
        .enumerate()
        .map(|(i, (step, (text, source)))| witness_text::Step {
            thread: step.thread,
            stmt: step.stmt,
            location: &step.location,
            // The IR text already says the thread ends.
            event: if step.event == "thread_end" {
                "statement"
            } else {
                &step.event
            },
            text,
            goal: i >= first_marked,
            function: functions.get(&step.thread).map_or("", String::as_str),
            source,
        })
        .collect();
    witness_text::write(s, &ev.witness, &steps);
    for b in &ev.blocked {
        let _ = writeln!(s, "  blocked: {b}");
    }
}

pub fn json(program: &Program, outcomes: &[GoalOutcome]) -> Value {
    let items: Vec<Value> = outcomes
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let h = &o.hunt;
            let (kind, locations) = match o.spec.guided() {
                Some(g) => (
                    json!(g.kind),
                    g.locations
                        .iter()
                        .map(|l| json!({"label": l.label, "stmts": l.stmts.iter().map(|s| s.to_string()).collect::<Vec<_>>()}))
                        .collect::<Vec<_>>(),
                ),
                None if o.spec.goal.is_ok() => (json!(o.spec.kind_name()), Vec::new()),
                None => (Value::Null, Vec::new()),
            };
            let ev = h.evidence.as_ref();
            json!({
                "goal": i + 1,
                "origin": o.spec.origin,
                "target": o.spec.label,
                "kind": kind,
                "locations": locations,
                "verdict": h.verdict,
                "found_by": h.found_by,
                "reason": h.reason,
                "message": ev.map(|e| e.message.clone()),
                "witness": ev.map(|e| serde_json::to_value(&e.witness).unwrap_or(Value::Null)),
                "steps": ev.map(|e| serde_json::to_value(&e.steps).unwrap_or(Value::Null)).unwrap_or(json!([])),
                "goal_threads": ev.map(|e| e.goal_threads.iter().map(|&(t, s)| json!({
                    "thread": t, "stmt": s.to_string(), "location": program.location(program.stmt(s).span()),
                })).collect::<Vec<_>>()).unwrap_or_default(),
                "blocked": ev.map(|e| serde_json::to_value(&e.blocked).unwrap_or(Value::Null)).unwrap_or(json!([])),
                "refinements": h.refinements.iter().map(|r| json!({
                    "branch": stmt_label(program, r.branch),
                    "definition": stmt_label(program, r.definition),
                    "added": r.added.iter().map(|&s| stmt_label(program, s)).collect::<Vec<_>>(),
                    "releases": r.releases.iter().map(|&s| stmt_label(program, s)).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
                "initial_traces": trace_labels(program, &h.initial_traces),
                "final_traces": trace_labels(program, &h.final_traces),
                "stats": h.stats,
            })
        })
        .collect();
    Value::Array(items)
}

fn source_location(program: &Program, s: StmtId) -> SourceLocation {
    let span = program.stmt(s).span();
    SourceLocation {
        file: program.file_name(span.file).to_string(),
        line: span.line,
    }
}

fn rule_for(o: &GoalOutcome) -> &'static str {
    match o.spec.guided().map(|g| g.kind) {
        Some(GoalKind::Race) => "agx-race",
        Some(GoalKind::Deadlock) => "agx-lock-order",
        Some(GoalKind::Reach) => "agx-assertion",
        _ => "agx-goal",
    }
}

/// agx's warning rules and `agx-goal`, the rule of a goal given by location.
fn goal_rules() -> Vec<Rule> {
    let mut rules = sarif_rules();
    rules.push(Rule {
        id: "agx-goal".into(),
        name: "Goal".into(),
        description: "Threads standing at given locations at the same time".into(),
        full_description: "A goal given to `agx hunt`: threads standing at the given \
            locations at the same time, searched for with a guided symbolic search."
            .into(),
        help: "A confirmed goal comes with a witness `agx run --witness` replays.".into(),
        precision: analysis::sarif::Precision::High,
        tags: vec!["concurrency".into()],
    });
    rules
}

pub fn sarif(program: &Program, outcomes: &[GoalOutcome]) -> Value {
    let findings: Vec<Finding> = outcomes.iter().map(|o| finding(program, o)).collect();
    sarif::write_log("agx", env!("CARGO_PKG_VERSION"), &goal_rules(), &findings)
}

fn finding(program: &Program, o: &GoalOutcome) -> Finding {
    let h = &o.hunt;
    let locations: Vec<SourceLocation> = match o.spec.guided() {
        Some(g) => g
            .locations
            .iter()
            .filter_map(|l| l.stmts.first().map(|&s| source_location(program, s)))
            .collect(),
        None => Vec::new(),
    };
    // Confirmed: a problem (an alert); refuted: a check that passed, no alert; unknown:
    // undecided ("open"). SARIF gives results of kind other than `fail` level `none`.
    let (kind, level) = match h.verdict {
        Verdict::Confirmed => (ResultKind::Fail, "error"),
        Verdict::Unknown => (ResultKind::Open, "none"),
        Verdict::Refuted => (ResultKind::Pass, "none"),
    };
    let ev = h.evidence.as_ref();
    let message = match (ev, &h.reason) {
        (Some(e), _) => format!("{}: {}", h.verdict.name(), e.message),
        (None, Some(r)) => format!("{} ({}): {r}", h.verdict.name(), o.spec.label),
        (None, None) => format!("{} ({})", h.verdict.name(), o.spec.label),
    };
    let flow: Vec<FlowStep> = ev
        .map(|e| {
            e.steps
                .iter()
                .map(|st| FlowStep {
                    thread: st.thread,
                    location: source_location(program, st.stmt),
                    text: format!("thread {} runs {} ({})", st.thread, st.stmt, st.event),
                })
                .collect()
        })
        .unwrap_or_default();
    let flow_message = ev.map(|e| format!("witness; inputs: {}", witness_text::inputs(&e.witness)));
    let mut properties = Map::new();
    if let Some(g) = o.spec.guided() {
        properties.insert("kind".into(), json!(sarif_kind(g.kind)));
    }
    properties.insert("verdict".into(), json!(h.verdict));
    properties.insert("found_by".into(), json!(h.found_by));
    properties.insert("reason".into(), json!(h.reason));
    properties.insert("origin".into(), json!(o.spec.origin));
    properties.insert("stats".into(), json!(h.stats));
    if let Some(e) = ev {
        properties.insert(
            "witness".into(),
            serde_json::to_value(&e.witness).unwrap_or(Value::Null),
        );
    }
    Finding {
        rule_id: rule_for(o).into(),
        level: level.into(),
        kind,
        message,
        locations,
        flow,
        flow_message,
        properties,
    }
}

fn sarif_kind(k: GoalKind) -> &'static str {
    match k {
        GoalKind::Race => "race",
        GoalKind::Deadlock => "deadlock",
        GoalKind::Reach => "assertion",
        GoalKind::Together => "location",
    }
}

/// The report when the budget ran out before the goals were known (in the front end or
/// the pre-pass): one undecided entry for the whole program, in the shape of a goal's.
pub fn pre_pass_overrun(format: Format, file: &str, overrun: &Overrun) -> String {
    let reason = format!("timeout: {overrun}");
    let stats = explorer::guided::HuntStats {
        time_ms: overrun.spent.as_secs_f64() * 1000.0,
        ..Default::default()
    };
    match format {
        Format::Text => format!(
            "goals of {file}: UNKNOWN: {reason}\n  stats: {:.1} ms\n",
            stats.time_ms
        ),
        Format::Json => {
            let entry = json!({
                "goal": null, "origin": "pre-pass", "target": file, "kind": null,
                "locations": [], "verdict": Verdict::Unknown, "found_by": null,
                "reason": reason, "message": null, "witness": null, "steps": [],
                "goal_threads": [], "blocked": [], "refinements": [],
                "initial_traces": [], "final_traces": [], "stats": stats,
            });
            format!("{:#}\n", Value::Array(vec![entry]))
        }
        Format::Sarif => {
            let mut properties = Map::new();
            properties.insert("verdict".into(), json!(Verdict::Unknown));
            properties.insert("reason".into(), json!(reason));
            properties.insert("origin".into(), json!("pre-pass"));
            properties.insert("stats".into(), json!(stats));
            let finding = Finding {
                rule_id: "agx-goal".into(),
                level: "none".into(),
                kind: ResultKind::Open,
                message: format!("unknown ({file}): {reason}"),
                locations: Vec::new(),
                flow: Vec::new(),
                flow_message: None,
                properties,
            };
            let log = sarif::write_log("agx", env!("CARGO_PKG_VERSION"), &goal_rules(), &[finding]);
            format!("{:#}\n", log)
        }
    }
}
