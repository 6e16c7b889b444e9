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
    let uri = uri.strip_prefix("file://").unwrap_or(uri);
    let file = percent_encoding::percent_decode_str(uri)
        .decode_utf8_lossy()
        .into_owned();
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

/// How sure a rule's results are (SARIF rule property `precision`, read by code scanning).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Precision {
    VeryHigh,
    High,
    #[default]
    Medium,
    Low,
}

/// A rule of the tool (one per kind of finding).
#[derive(Clone, Debug, Default)]
pub struct Rule {
    pub id: String,
    pub name: String,
    /// One sentence.
    pub description: String,
    /// What the rule checks and how (empty: the short description).
    pub full_description: String,
    /// What to do about a result (empty: none written).
    pub help: String,
    pub precision: Precision,
    /// Category tags (`concurrency`, `correctness`, ...).
    pub tags: Vec<String>,
}

/// A SARIF result kind: `fail` is a problem; `pass` a check that found none (a refuted
/// target), shown by no viewer as an alert; `open` undecided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ResultKind {
    #[default]
    Fail,
    Pass,
    Open,
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
#[derive(Clone, Debug, Default)]
pub struct Finding {
    pub rule_id: String,
    /// `error`, `warning` or `note` for a `fail` result; other kinds are written with
    /// level `none`, as SARIF requires.
    pub level: String,
    pub kind: ResultKind,
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

/// The base every relative `artifactLocation.uri` is resolved against: the directory agx
/// ran in (normally the repository root). Left undefined in the log (no absolute path
/// leaks); code scanning and agx itself resolve it to the checkout / working directory.
pub const SRCROOT: &str = "SRCROOT";

/// The SARIF 2.1.0 log object model agx writes (a subset of the standard's).
mod model {
    use serde::Serialize;
    use serde_json::{Map, Value};

    #[derive(Serialize)]
    pub struct Log {
        #[serde(rename = "$schema")]
        pub schema: &'static str,
        pub version: &'static str,
        pub runs: Vec<Run>,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Run {
        pub tool: Tool,
        pub invocations: Vec<Invocation>,
        pub automation_details: AutomationDetails,
        pub column_kind: &'static str,
        pub results: Vec<SarifResult>,
    }

    #[derive(Serialize)]
    pub struct Tool {
        pub driver: Driver,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Driver {
        pub name: String,
        pub version: String,
        pub semantic_version: String,
        pub rules: Vec<ReportingDescriptor>,
    }

    #[derive(Serialize)]
    pub struct Message {
        pub text: String,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct MultiformatMessage {
        pub text: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub markdown: Option<String>,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct ReportingDescriptor {
        pub id: String,
        pub name: String,
        pub short_description: MultiformatMessage,
        pub full_description: MultiformatMessage,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub help: Option<MultiformatMessage>,
        pub default_configuration: Configuration,
        pub properties: RuleProperties,
    }

    #[derive(Serialize)]
    pub struct Configuration {
        pub level: &'static str,
    }

    #[derive(Serialize)]
    pub struct RuleProperties {
        pub precision: super::Precision,
        pub tags: Vec<String>,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Invocation {
        pub execution_successful: bool,
        pub arguments: Vec<String>,
    }

    #[derive(Serialize)]
    pub struct AutomationDetails {
        pub id: String,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct SarifResult {
        pub rule_id: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub rule_index: Option<usize>,
        pub kind: super::ResultKind,
        pub level: String,
        pub message: Message,
        pub locations: Vec<Location>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        pub related_locations: Vec<Location>,
        pub partial_fingerprints: Map<String, Value>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        pub code_flows: Vec<CodeFlow>,
        #[serde(skip_serializing_if = "Map::is_empty")]
        pub properties: Map<String, Value>,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Location {
        #[serde(skip_serializing_if = "Option::is_none")]
        pub id: Option<usize>,
        pub physical_location: PhysicalLocation,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub message: Option<Message>,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct PhysicalLocation {
        pub artifact_location: ArtifactLocation,
        pub region: Region,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct ArtifactLocation {
        pub uri: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub uri_base_id: Option<&'static str>,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Region {
        pub start_line: u32,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct CodeFlow {
        #[serde(skip_serializing_if = "Option::is_none")]
        pub message: Option<Message>,
        pub thread_flows: Vec<ThreadFlow>,
    }

    #[derive(Serialize)]
    pub struct ThreadFlow {
        pub id: String,
        pub locations: Vec<ThreadFlowLocation>,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct ThreadFlowLocation {
        pub location: Location,
        pub execution_order: usize,
    }
}

/// Characters percent-encoded in a URI path: controls, space and what would end or
/// change the path (`#`, `?`, `%`, quotes, brackets, ...); `/` separates segments.
const PATH: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b']')
    .add(b'\\')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// The `artifactLocation` of `file`: relative to [`SRCROOT`] (the working directory) when
/// it is relative or lies under it, else a `file://` URI; percent-encoded.
fn artifact_location(file: &str) -> model::ArtifactLocation {
    let path = std::path::Path::new(file);
    let relative = if path.is_absolute() {
        std::env::current_dir()
            .ok()
            .and_then(|cwd| path.strip_prefix(cwd).ok().map(|p| p.to_path_buf()))
    } else {
        Some(path.components().collect())
    };
    let encode = |p: &str| percent_encoding::utf8_percent_encode(p, PATH).to_string();
    match relative {
        Some(rel) => model::ArtifactLocation {
            uri: encode(&rel.to_string_lossy().replace('\\', "/")),
            uri_base_id: Some(SRCROOT),
        },
        None => model::ArtifactLocation {
            uri: format!("file://{}", encode(file)),
            uri_base_id: None,
        },
    }
}

fn location(l: &SourceLocation, id: Option<usize>, message: Option<String>) -> model::Location {
    model::Location {
        id,
        physical_location: model::PhysicalLocation {
            artifact_location: artifact_location(&l.file),
            region: model::Region {
                start_line: l.line.max(1),
            },
        },
        message: message.map(|text| model::Message { text }),
    }
}

/// A fingerprint of a result that survives re-runs and unrelated edits: its rule, kind
/// and the files and lines of its locations, hashed.
fn fingerprint(f: &Finding) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    hasher.update(f.rule_id.as_bytes());
    for l in &f.locations {
        hasher.update(b"\0");
        hasher.update(artifact_location(&l.file).uri.as_bytes());
        hasher.update(l.line.to_le_bytes());
    }
    // The digest's own hex, its first 16 bytes (32 digits).
    format!("{:.32x}", hasher.finalize())
}

/// A SARIF 2.1.0 log of `findings` by tool `tool` (version `version`). The run's
/// automation id is `tool/COMMAND/` (the subcommand agx ran), its invocation the
/// command line's arguments.
pub fn write_log(tool: &str, version: &str, rules: &[Rule], findings: &[Finding]) -> Value {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let command = arguments.first().cloned().unwrap_or_default();
    let descriptors = rules
        .iter()
        .map(|r| model::ReportingDescriptor {
            id: r.id.clone(),
            name: r.name.clone(),
            short_description: model::MultiformatMessage {
                text: r.description.clone(),
                markdown: None,
            },
            full_description: model::MultiformatMessage {
                text: if r.full_description.is_empty() {
                    r.description.clone()
                } else {
                    r.full_description.clone()
                },
                markdown: None,
            },
            help: (!r.help.is_empty()).then(|| model::MultiformatMessage {
                text: r.help.clone(),
                markdown: Some(r.help.clone()),
            }),
            default_configuration: model::Configuration { level: "warning" },
            properties: model::RuleProperties {
                precision: r.precision,
                tags: r.tags.clone(),
            },
        })
        .collect();
    let results = findings
        .iter()
        .map(|f| result(f, rules.iter().position(|r| r.id == f.rule_id)))
        .collect();
    let log = model::Log {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: vec![model::Run {
            tool: model::Tool {
                driver: model::Driver {
                    name: tool.to_string(),
                    version: version.to_string(),
                    semantic_version: version.to_string(),
                    rules: descriptors,
                },
            },
            invocations: vec![model::Invocation {
                execution_successful: true,
                arguments,
            }],
            automation_details: model::AutomationDetails {
                id: format!("{tool}/{command}/"),
            },
            column_kind: "unicodeCodePoints",
            results,
        }],
    };
    serde_json::to_value(log).unwrap_or(Value::Null)
}

fn result(f: &Finding, rule_index: Option<usize>) -> model::SarifResult {
    let mut fingerprints = Map::new();
    fingerprints.insert("agxFingerprint/v1".into(), json!(fingerprint(f)));
    model::SarifResult {
        rule_id: f.rule_id.clone(),
        rule_index,
        kind: f.kind,
        level: match f.kind {
            ResultKind::Fail => f.level.clone(),
            ResultKind::Pass | ResultKind::Open => "none".into(),
        },
        message: model::Message {
            text: f.message.clone(),
        },
        locations: f
            .locations
            .iter()
            .take(1)
            .map(|l| location(l, None, None))
            .collect(),
        related_locations: f
            .locations
            .iter()
            .enumerate()
            .skip(1)
            .map(|(i, l)| location(l, Some(i), None))
            .collect(),
        partial_fingerprints: fingerprints,
        code_flows: if f.flow.is_empty() {
            Vec::new()
        } else {
            vec![code_flow(f)]
        },
        properties: f.properties.clone(),
    }
}

fn code_flow(f: &Finding) -> model::CodeFlow {
    let mut threads: Vec<u32> = f.flow.iter().map(|s| s.thread).collect();
    threads.sort_unstable();
    threads.dedup();
    let thread_flows = threads
        .iter()
        .map(|&t| model::ThreadFlow {
            id: format!("thread {t}"),
            locations: f
                .flow
                .iter()
                .enumerate()
                .filter(|(_, s)| s.thread == t)
                .map(|(order, s)| model::ThreadFlowLocation {
                    location: location(&s.location, None, Some(s.text.clone())),
                    execution_order: order + 1,
                })
                .collect(),
        })
        .collect();
    model::CodeFlow {
        message: f
            .flow_message
            .as_ref()
            .map(|m| model::Message { text: m.clone() }),
        thread_flows,
    }
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
            ..Finding::default()
        };
        let rule = Rule {
            id: "agx-race".into(),
            name: "DataRace".into(),
            description: "d".into(),
            ..Rule::default()
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
    fn uris_are_repository_relative_percent_encoded_and_read_back() {
        let relative = artifact_location("dir with space/a#b[1].c");
        assert_eq!(relative.uri, "dir%20with%20space/a%23b%5B1%5D.c");
        assert_eq!(relative.uri_base_id, Some(SRCROOT));
        // Under the working directory (SRCROOT): relative, no absolute path leaks.
        let cwd = std::env::current_dir().unwrap();
        let under = artifact_location(&cwd.join("src/x y.c").to_string_lossy());
        assert_eq!(under.uri, "src/x%20y.c");
        assert_eq!(under.uri_base_id, Some(SRCROOT));
        // Elsewhere: a file URI, still encoded.
        let outside = artifact_location("/nonexistent-agx-dir/x y.c");
        assert_eq!(outside.uri, "file:///nonexistent-agx-dir/x%20y.c");
        assert_eq!(outside.uri_base_id, None);
        // What is written reads back as the same file.
        let finding = Finding {
            rule_id: "agx-assertion".into(),
            level: "warning".into(),
            message: "m".into(),
            locations: vec![loc("dir with space/a#b[1].c", 3)],
            ..Finding::default()
        };
        let log = write_log("agx", "0.1.0", &[], &[finding]);
        let t = read_targets(&log.to_string()).unwrap();
        assert_eq!(t[0].locations, vec![loc("dir with space/a#b[1].c", 3)]);
    }

    #[test]
    fn errors_say_what_is_wrong() {
        assert!(matches!(read_targets("{"), Err(SarifError::Json(_))));
        let e = read_targets("{}").unwrap_err();
        assert_eq!(e.to_string(), "not a SARIF 2.1.0 log: no `runs` array");
    }
}
