//! SARIF 2.1.0: static-analysis results as targets (reading), and results annotated with
//! verdicts and witnesses (writing).
//!
//! Reading is lenient — only what names source locations is used:
//! - each entry of `locations` is one location of the target; for a race or a deadlock,
//!   `relatedLocations` add the others (the second access, the other acquisition);
//! - a result that names fewer than two locations that way but has
//!   `codeFlows[].threadFlows[]` reaching two or more is a multi-location target: each
//!   thread flow contributes the last location it reaches (where that thread stands).
//!
//! The kind of a target comes from the result's `properties.kind` when present (agx
//! writes it), else from words in its rule id or message (`race`, `deadlock`,
//! `lock-order`/`lock order`, `assert`).
//!
//! Writing builds one run with the tool's rules and one result per finding; a witness
//! becomes a code flow with one thread flow per thread, each step carrying its global
//! `executionOrder`, so that the interleaving can be read back in order.

use serde_json::{json, Map, Value};

/// A source location: a file (as written in the SARIF `uri`, `file://` stripped) and a
/// 1-based line.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct SourceLocation {
    pub file: String,
    pub line: u32,
}

impl std::fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// What a target is about, as far as the SARIF says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    Race,
    Deadlock,
    Assertion,
    /// Anything else: a location to reach (several: to stand at together).
    Location,
}

/// One result of a SARIF log, read as a target.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SarifTarget {
    /// Position of the result in the log (0-based, across runs).
    pub index: usize,
    pub rule_id: Option<String>,
    pub message: String,
    pub kind: TargetKind,
    pub locations: Vec<SourceLocation>,
}

#[derive(Debug, thiserror::Error)]
pub enum SarifError {
    #[error("not JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("not a SARIF 2.1.0 log: {0}")]
    Shape(String),
}

/// Reads the targets of a SARIF log. Results that name no source location are skipped.
pub fn read_targets(text: &str) -> Result<Vec<SarifTarget>, SarifError> {
    let log: Value = serde_json::from_str(text)?;
    let runs = log
        .get("runs")
        .and_then(Value::as_array)
        .ok_or_else(|| SarifError::Shape("no `runs` array".into()))?;
    let mut out = Vec::new();
    let mut index = 0;
    for run in runs {
        for result in run
            .get("results")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(t) = read_result(index, result) {
                out.push(t);
            }
            index += 1;
        }
    }
    Ok(out)
}

fn read_result(index: usize, result: &Value) -> Option<SarifTarget> {
    let rule_id = result
        .get("ruleId")
        .and_then(Value::as_str)
        .map(str::to_string);
    let message = result
        .pointer("/message/text")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let kind = result
        .pointer("/properties/kind")
        .and_then(Value::as_str)
        .and_then(kind_named)
        .unwrap_or_else(|| kind_from_words(rule_id.as_deref().unwrap_or(""), &message));
    let mut explicit: Vec<SourceLocation> = list(result, "locations")
        .filter_map(|l| physical(l.get("physicalLocation")?))
        .collect();
    if matches!(kind, TargetKind::Race | TargetKind::Deadlock) {
        explicit.extend(
            list(result, "relatedLocations").filter_map(|l| physical(l.get("physicalLocation")?)),
        );
    }
    let from_flows = thread_flow_ends(result);
    let locations = if explicit.len() < 2 && from_flows.len() >= 2 {
        from_flows
    } else {
        explicit
    };
    (!locations.is_empty()).then_some(SarifTarget {
        index,
        rule_id,
        message,
        kind,
        locations,
    })
}

fn list<'v>(v: &'v Value, key: &str) -> impl Iterator<Item = &'v Value> {
    v.get(key).and_then(Value::as_array).into_iter().flatten()
}

/// The last located step of every thread flow of the result's first code flow.
fn thread_flow_ends(result: &Value) -> Vec<SourceLocation> {
    let Some(flow) = list(result, "codeFlows").next() else {
        return Vec::new();
    };
    list(flow, "threadFlows")
        .filter_map(|tf| {
            list(tf, "locations")
                .filter_map(|step| physical(step.pointer("/location/physicalLocation")?))
                .last()
        })
        .collect()
}

fn physical(p: &Value) -> Option<SourceLocation> {
    let uri = p.pointer("/artifactLocation/uri")?.as_str()?;
    let line = p.pointer("/region/startLine")?.as_u64()?;
    let file = uri.strip_prefix("file://").unwrap_or(uri).to_string();
    Some(SourceLocation {
        file,
        line: u32::try_from(line).ok()?,
    })
}

fn kind_named(name: &str) -> Option<TargetKind> {
    Some(match name {
        "race" | "data_race" => TargetKind::Race,
        "deadlock" => TargetKind::Deadlock,
        "assertion" => TargetKind::Assertion,
        "location" => TargetKind::Location,
        _ => return None,
    })
}

fn kind_from_words(rule_id: &str, message: &str) -> TargetKind {
    let text = format!("{rule_id} {message}").to_ascii_lowercase();
    if text.contains("race") {
        TargetKind::Race
    } else if text.contains("deadlock")
        || text.contains("lock-order")
        || text.contains("lock order")
    {
        TargetKind::Deadlock
    } else if text.contains("assert") || text.contains("reach_error") {
        TargetKind::Assertion
    } else {
        TargetKind::Location
    }
}

// ---- writing ----

/// A rule of the tool (one per kind of finding).
#[derive(Clone, Debug)]
pub struct Rule {
    pub id: String,
    pub name: String,
    pub description: String,
}

/// One step of a witness: a thread at a location, in global execution order.
#[derive(Clone, Debug)]
pub struct FlowStep {
    pub thread: u32,
    pub location: SourceLocation,
    /// What happens there (shown by SARIF viewers).
    pub text: String,
}

/// One finding to write.
#[derive(Clone, Debug)]
pub struct Finding {
    pub rule_id: String,
    /// `error`, `warning` or `note`.
    pub level: String,
    pub message: String,
    /// The first is the primary location, the others are related locations.
    pub locations: Vec<SourceLocation>,
    /// A witness, in execution order; written as one thread flow per thread.
    pub flow: Vec<FlowStep>,
    /// A message for the code flow (the witness's inputs, say).
    pub flow_message: Option<String>,
    /// Extra properties (`kind`, `verdict`, statistics, the witness itself).
    pub properties: Map<String, Value>,
}

fn physical_json(l: &SourceLocation) -> Value {
    json!({
        "artifactLocation": { "uri": l.file },
        "region": { "startLine": l.line },
    })
}

/// A SARIF 2.1.0 log of `findings` by tool `tool` (version `version`).
pub fn write_log(tool: &str, version: &str, rules: &[Rule], findings: &[Finding]) -> Value {
    let rules: Vec<Value> = rules
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "name": r.name,
                "shortDescription": { "text": r.description },
            })
        })
        .collect();
    let results: Vec<Value> = findings.iter().map(result_json).collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": { "name": tool, "version": version, "rules": rules } },
            "results": results,
        }],
    })
}

fn result_json(f: &Finding) -> Value {
    let mut r = Map::new();
    r.insert("ruleId".into(), json!(f.rule_id));
    r.insert("level".into(), json!(f.level));
    r.insert("message".into(), json!({ "text": f.message }));
    let primary: Vec<Value> = f
        .locations
        .iter()
        .take(1)
        .map(|l| json!({ "physicalLocation": physical_json(l) }))
        .collect();
    r.insert("locations".into(), Value::Array(primary));
    if f.locations.len() > 1 {
        let related: Vec<Value> = f
            .locations
            .iter()
            .enumerate()
            .skip(1)
            .map(|(i, l)| json!({ "id": i, "physicalLocation": physical_json(l) }))
            .collect();
        r.insert("relatedLocations".into(), Value::Array(related));
    }
    if !f.flow.is_empty() {
        r.insert("codeFlows".into(), json!([code_flow(f)]));
    }
    if !f.properties.is_empty() {
        r.insert("properties".into(), Value::Object(f.properties.clone()));
    }
    Value::Object(r)
}

fn code_flow(f: &Finding) -> Value {
    let mut threads: Vec<u32> = f.flow.iter().map(|s| s.thread).collect();
    threads.sort_unstable();
    threads.dedup();
    let thread_flows: Vec<Value> = threads
        .iter()
        .map(|&t| {
            let steps: Vec<Value> = f
                .flow
                .iter()
                .enumerate()
                .filter(|(_, s)| s.thread == t)
                .map(|(order, s)| {
                    json!({
                        "location": {
                            "physicalLocation": physical_json(&s.location),
                            "message": { "text": s.text },
                        },
                        "executionOrder": order + 1,
                    })
                })
                .collect();
            json!({ "id": format!("thread {t}"), "locations": steps })
        })
        .collect();
    let mut flow = Map::new();
    if let Some(m) = &f.flow_message {
        flow.insert("message".into(), json!({ "text": m }));
    }
    flow.insert("threadFlows".into(), Value::Array(thread_flows));
    Value::Object(flow)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(file: &str, line: u32) -> SourceLocation {
        SourceLocation {
            file: file.into(),
            line,
        }
    }

    #[test]
    fn single_locations_and_related_locations_of_a_race() {
        let text = r#"{"version":"2.1.0","runs":[{"results":[
          {"ruleId":"assert","message":{"text":"may fail"},
           "locations":[{"physicalLocation":{"artifactLocation":{"uri":"file://a.c"},"region":{"startLine":7}}}]},
          {"ruleId":"DataRace","message":{"text":"race on x"},
           "locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.c"},"region":{"startLine":3}}}],
           "relatedLocations":[{"physicalLocation":{"artifactLocation":{"uri":"a.c"},"region":{"startLine":9}}}]},
          {"ruleId":"noloc","message":{"text":"nowhere"}}
        ]}]}"#;
        let t = read_targets(text).unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].kind, TargetKind::Assertion);
        assert_eq!(t[0].locations, vec![loc("a.c", 7)]);
        assert_eq!(t[1].kind, TargetKind::Race);
        assert_eq!(t[1].locations, vec![loc("a.c", 3), loc("a.c", 9)]);
        assert_eq!(t[1].index, 1);
    }

    #[test]
    fn thread_flows_give_one_location_per_thread() {
        let step = |line: u32| json!({"location":{"physicalLocation":{"artifactLocation":{"uri":"d.c"},"region":{"startLine":line}}}});
        let log = json!({"version":"2.1.0","runs":[{"results":[{
            "ruleId":"lock-order", "message":{"text":"potential deadlock"},
            "locations":[{"physicalLocation":{"artifactLocation":{"uri":"d.c"},"region":{"startLine":4}}}],
            "codeFlows":[{"threadFlows":[
                {"locations":[step(3), step(4)]},
                {"locations":[step(10), step(11)]}]}]}]}]});
        let t = read_targets(&log.to_string()).unwrap();
        assert_eq!(t[0].kind, TargetKind::Deadlock);
        assert_eq!(t[0].locations, vec![loc("d.c", 4), loc("d.c", 11)]);
    }

    #[test]
    fn a_written_log_reads_back_as_the_same_targets() {
        let mut properties = Map::new();
        properties.insert("kind".into(), json!("race"));
        let finding = Finding {
            rule_id: "agx-race".into(),
            level: "warning".into(),
            message: "data race".into(),
            locations: vec![loc("r.c", 5), loc("r.c", 12)],
            flow: vec![
                FlowStep {
                    thread: 0,
                    location: loc("r.c", 20),
                    text: "create".into(),
                },
                FlowStep {
                    thread: 1,
                    location: loc("r.c", 5),
                    text: "write".into(),
                },
                FlowStep {
                    thread: 2,
                    location: loc("r.c", 12),
                    text: "read".into(),
                },
            ],
            flow_message: Some("inputs: none".into()),
            properties,
        };
        let rule = Rule {
            id: "agx-race".into(),
            name: "DataRace".into(),
            description: "d".into(),
        };
        let log = write_log("agx", "0.1.0", &[rule], &[finding]);
        assert_eq!(log["version"], "2.1.0");
        assert_eq!(
            log.pointer("/runs/0/results/0/codeFlows/0/threadFlows/2/locations/0/executionOrder"),
            Some(&json!(3))
        );
        let t = read_targets(&log.to_string()).unwrap();
        assert_eq!(t[0].kind, TargetKind::Race);
        assert_eq!(t[0].locations, vec![loc("r.c", 5), loc("r.c", 12)]);
    }

    #[test]
    fn errors_say_what_is_wrong() {
        assert!(matches!(read_targets("{"), Err(SarifError::Json(_))));
        let e = read_targets("{}").unwrap_err();
        assert_eq!(e.to_string(), "not a SARIF 2.1.0 log: no `runs` array");
    }
}
