//! The YAML violation witness `agx svcomp --witness-out` writes.
//!
//! Format: SV-COMP violation witness format 2.0 (one `violation_sequence` entry) with the
//! per-waypoint `thread_id` of the concurrency extension, format version 2.2 as read by
//! ConcurrentWitness2Test (the SV-COMP validator for ConcurrencySafety): the thread that
//! executes the waypoint, `0` for `main` and `1, 2, ...` for threads in creation order, and
//! segment order as the order across threads. Because `thread_id` is not a key of format
//! 2.0, `metadata.format_version` is `'2.2'`. `tests/schemas/` holds the schema every
//! witness the test suite writes is checked against.
//!
//! ```yaml
//! - entry_type: violation_sequence
//!   metadata:
//!     format_version: '2.2'
//!     uuid: 1b4e28ba-2fa1-4d2b-8b5f-2a6c2e0f3c71
//!     creation_time: '2025-01-01T12:00:00Z'   # quoted: a string, not a YAML date
//!     producer: {name: agx, version: 0.1.0}
//!     task:
//!       input_files: [pthread/lazy01.c]
//!       input_file_hashes: {pthread/lazy01.c: 3a5f...}
//!       specification: CHECK( init(main()), LTL(G ! call(reach_error())) )
//!       data_model: ILP32
//!       language: C
//!   content:
//!   - segment:                      # an input: the value a __VERIFIER_nondet_* call returned
//!     - waypoint:
//!         type: function_return
//!         action: follow
//!         location: {file_name: pthread/lazy01.c, line: 30, column: 34}  # the call's `)`
//!         constraint: {value: \result == 5, format: acsl_expression}
//!         thread_id: 0
//!   - segment:                      # one per step of the schedule
//!     - waypoint:
//!         type: assumption          # "this thread passes this statement"
//!         action: follow
//!         location: {file_name: pthread/lazy01.c, line: 21, column: 3}
//!         constraint: {value: '1', format: c_expression}
//!         thread_id: 1
//!   - segment:                      # the final segment: the violation
//!     - waypoint: {type: target, action: follow, location: {...}, thread_id: 2}
//! ```
//!
//! Columns are 1-based and point at the first character of the statement a step executes
//! (the front end's spans point at sub-expressions: a load of `j` in `i += j;` is moved to
//! the `i`); a `function_return` waypoint points at the closing parenthesis of the
//! `__VERIFIER_nondet_*` call. Only the input file is located: steps in headers are left
//! out (the witness then constrains less and stays valid), and a violation inside a
//! header function (an `assert` helper in `assert.h`) is targeted at its call site in the
//! input file.
//!
//! Where the steps come from: verify's witness is the replayable agx witness (threads
//! and input values, no locations); `agx svcomp` replays it with `agx run --witness`
//! and takes the located steps, the inputs (with the step they follow) and the
//! violation's call sites from the interpreter's execution ([`from_execution`]). A
//! witness that already carries located steps is used as it is:
//!
//! What is read: the steps of `witness.steps` (or `schedule` or
//! `trace`), in execution order, each an object with `thread` and a location — either a
//! `"file:line[:column]"` string under `location` or `file`, `line` and `col`/`column`
//! fields — and an optional `function`; a step with a `value` is an input. Inputs listed
//! apart under `witness.inputs` become waypoints only when they carry the index of the step
//! they precede (`step`): without it their place in the order is unknown, and leaving them
//! out keeps the witness valid (it then stands for more executions, among them the
//! violating one). The target is the location and thread of `violation`.

mod columns;

pub use columns::{nondet_call_end, statement_start};
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::io;
use std::path::Path;

/// The witness format version written: 2.0 plus the concurrency extension's `thread_id`.
pub const FORMAT_VERSION: &str = "2.2";

/// Why no witness could be written.
#[derive(Debug, thiserror::Error)]
pub enum WitnessError {
    #[error("reading {path}: {source}")]
    Read { path: String, source: io::Error },
    /// Verify's output or the replay lacks what the witness needs.
    #[error("{0}")]
    Invalid(String),
    #[error("writing the YAML: {0}")]
    Yaml(#[from] serde_norway::Error),
}

type Result<T, E = WitnessError> = std::result::Result<T, E>;

fn invalid(message: impl Into<String>) -> WitnessError {
    WitnessError::Invalid(message.into())
}

/// What the witness is about.
pub struct WitnessTask<'a> {
    /// The input file as given to agx (and named in the witness).
    pub input_file: &'a Path,
    /// The property file's text.
    pub specification: &'a str,
    /// `ILP32` or `LP64`.
    pub data_model: &'a str,
}

#[derive(Serialize)]
struct Entry {
    entry_type: &'static str,
    metadata: Metadata,
    content: Vec<Segment>,
}

#[derive(Serialize)]
struct Metadata {
    format_version: &'static str,
    uuid: String,
    creation_time: String,
    producer: Producer,
    task: TaskInfo,
}

#[derive(Serialize)]
struct Producer {
    name: &'static str,
    version: &'static str,
}

#[derive(Serialize)]
struct TaskInfo {
    input_files: Vec<String>,
    input_file_hashes: std::collections::BTreeMap<String, String>,
    specification: String,
    data_model: String,
    language: &'static str,
}

#[derive(Serialize)]
struct Segment {
    segment: Vec<WaypointItem>,
}

#[derive(Serialize)]
struct WaypointItem {
    waypoint: Waypoint,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum WaypointType {
    Assumption,
    FunctionReturn,
    Target,
}

#[derive(Serialize)]
struct Waypoint {
    #[serde(rename = "type")]
    kind: WaypointType,
    action: &'static str,
    location: Location,
    #[serde(skip_serializing_if = "Option::is_none")]
    constraint: Option<Constraint>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thread_id: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
struct Location {
    file_name: String,
    line: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    function: Option<String>,
}

#[derive(Serialize)]
struct Constraint {
    value: String,
    format: &'static str,
}

/// The witness YAML for verify's `violation` and `witness` objects.
pub fn violation_witness(
    task: &WitnessTask<'_>,
    violation: &Value,
    witness: &Value,
) -> Result<String> {
    let bytes = std::fs::read(task.input_file).map_err(|source| WitnessError::Read {
        path: task.input_file.display().to_string(),
        source,
    })?;
    let hash = format!("{:x}", Sha256::digest(&bytes));
    let input_name = task.input_file.display().to_string();
    let source = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = source.lines().collect();
    let mut waypoints = step_waypoints(task.input_file, witness)?;
    waypoints.push(target_waypoint(task.input_file, violation)?);
    let content = place(waypoints, &input_name, &lines);
    let entry = Entry {
        entry_type: "violation_sequence",
        metadata: Metadata {
            format_version: FORMAT_VERSION,
            uuid: uuid::Uuid::new_v4().to_string(),
            creation_time: humantime::format_rfc3339_seconds(std::time::SystemTime::now())
                .to_string(),
            producer: Producer {
                name: "agx",
                version: env!("CARGO_PKG_VERSION"),
            },
            task: TaskInfo {
                input_files: vec![input_name.clone()],
                input_file_hashes: [(input_name, hash)].into_iter().collect(),
                specification: task.specification.trim().to_string(),
                data_model: task.data_model.to_string(),
                language: "C",
            },
        },
        content,
    };
    Ok(quote_creation_time(&serde_norway::to_string(&vec![entry])?))
}

/// YAML 1.1 readers (PyYAML, which validators use) load an unquoted ISO 8601 time as a
/// timestamp, not the string the schema asks for; the emitter leaves it plain.
fn quote_creation_time(yaml: &str) -> String {
    let mut out = String::with_capacity(yaml.len() + 2);
    for line in yaml.split_inclusive('\n') {
        let trimmed = line.trim_start();
        match trimmed.strip_prefix("creation_time: ") {
            Some(value) if !value.starts_with('\'') && !value.starts_with('"') => {
                let indent = &line[..line.len() - trimmed.len()];
                let value = value.trim_end();
                out.push_str(&format!("{indent}creation_time: '{value}'\n"));
            }
            _ => out.push_str(line),
        }
    }
    out
}

/// Columns fixed against the input's text, waypoints that cannot be placed dropped,
/// repeated passes of one statement by one thread merged; one segment per waypoint.
fn place(waypoints: Vec<Waypoint>, input_name: &str, lines: &[&str]) -> Vec<Segment> {
    let mut out: Vec<Waypoint> = Vec::new();
    for mut w in waypoints {
        if w.location.file_name == input_name {
            let text = usize::try_from(w.location.line)
                .ok()
                .and_then(|l| l.checked_sub(1))
                .and_then(|l| lines.get(l));
            let Some(text) = text else {
                continue;
            };
            let column = w.location.column.unwrap_or(1).max(1);
            w.location.column = match w.kind {
                WaypointType::FunctionReturn => match nondet_call_end(text, column) {
                    Some(c) => Some(c),
                    None => continue,
                },
                _ => Some(statement_start(text, column)),
            };
        } else if w.kind == WaypointType::FunctionReturn {
            continue;
        }
        let repeated = out.last().is_some_and(|last| {
            last.kind == WaypointType::Assumption
                && w.kind == WaypointType::Assumption
                && last.thread_id == w.thread_id
                && last.location == w.location
        });
        if !repeated {
            out.push(w);
        }
    }
    out.into_iter().map(single).collect()
}

/// The `violation`, located `steps` and placed `inputs` of a replay by `agx run --witness W
/// --format json --trace` (the interpreter's execution: `files`, the names of the file ids;
/// `trace` steps with `thread`, `event` and `span` {file id, line, col}; `inputs` with
/// their `span`, `source` and the `step` count before them; `outcome` `violation` with its
/// `thread`, `span`, `location` and `call_sites`). Only steps in `input_file` are kept;
/// a violation in another file (a header) is placed at its innermost call site in the
/// input file. Only `__VERIFIER_nondet_*` inputs become waypoints.
pub fn from_execution(execution: &Value, input_file: &Path) -> Result<(Value, Value)> {
    let outcome = execution
        .get("outcome")
        .ok_or_else(|| invalid("the replay has no outcome"))?;
    if outcome.get("outcome").and_then(Value::as_str) != Some("violation") {
        return Err(invalid(format!(
            "the witness does not replay to a violation: {outcome}"
        )));
    }
    let file_id = input_file_id(execution, input_file).ok_or_else(|| {
        invalid(format!(
            "the replay names no file {} among its `files`",
            input_file.display()
        ))
    })?;
    let file = input_file.display().to_string();
    let span_of = |span: &Value| -> Option<(u64, u64, u64)> {
        Some((
            span.get("file")?.as_u64()?,
            span.get("line")?.as_u64()?,
            span.get("col").and_then(Value::as_u64).unwrap_or(0),
        ))
    };
    let located = |thread: Option<&Value>, line: u64, col: u64| serde_json::json!({"thread": thread, "file": file, "line": line, "col": col});
    let (line, col) = std::iter::once(outcome.get("span"))
        .chain(
            outcome
                .get("call_sites")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(Some),
        )
        .flatten()
        .filter_map(span_of)
        .find(|&(f, _, _)| f == file_id)
        .map(|(_, line, col)| (line, col))
        .ok_or_else(|| {
            invalid(format!(
                "the replayed violation is not located in {} (nor called from there): {outcome}",
                input_file.display()
            ))
        })?;
    let violation = located(outcome.get("thread"), line, col);
    let trace = execution
        .get("trace")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid("the replay has no trace"))?;
    let steps: Vec<Value> = trace
        .iter()
        .map(|step| {
            let statement = step
                .get("event")
                .and_then(Value::as_str)
                .is_none_or(|e| e == "statement");
            match step.get("span").and_then(span_of) {
                Some((f, line, col)) if statement && f == file_id => {
                    located(step.get("thread"), line, col)
                }
                _ => serde_json::json!({"skip": true, "thread": step.get("thread")}),
            }
        })
        .collect();
    let inputs: Vec<Value> = execution
        .get("inputs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|i| i.get("source").and_then(Value::as_str) == Some("nondet"))
        .filter_map(|i| {
            let (f, line, col) = span_of(i.get("span")?)?;
            (f == file_id).then(|| {
                let mut v = located(i.get("thread"), line, col);
                v["value"] = i.get("value").cloned().unwrap_or(Value::Null);
                v["step"] = i.get("step").cloned().unwrap_or(Value::Null);
                v
            })
        })
        .collect();
    Ok((
        violation,
        serde_json::json!({ "steps": steps, "inputs": inputs }),
    ))
}

/// The id of `input` among the execution's `files`: the same path, else the same file name.
fn input_file_id(execution: &Value, input: &Path) -> Option<u64> {
    let files: Vec<&str> = execution
        .get("files")?
        .as_array()?
        .iter()
        .map(|f| f.as_str().unwrap_or(""))
        .collect();
    let position = files
        .iter()
        .position(|f| Path::new(f) == input)
        .or_else(|| {
            files.iter().position(|f| {
                Path::new(f).file_name().is_some() && Path::new(f).file_name() == input.file_name()
            })
        })?;
    u64::try_from(position).ok()
}

/// One waypoint per step (and per placeable input), in execution order. Steps marked
/// `skip` (not in the input file) give no waypoint but count as steps for `inputs`.
fn step_waypoints(input_file: &Path, witness: &Value) -> Result<Vec<Waypoint>> {
    let steps = ["steps", "schedule", "trace"]
        .iter()
        .find_map(|key| witness.get(key).and_then(Value::as_array))
        .ok_or_else(|| {
            invalid("verify's witness has no `steps` (nor `schedule`, `trace`) list of steps")
        })?;
    let inputs: Vec<&Value> = witness
        .get("inputs")
        .and_then(Value::as_array)
        .map(|inputs| inputs.iter().filter(|i| i.get("step").is_some()).collect())
        .unwrap_or_default();
    let inputs_before = |index: usize| {
        inputs
            .iter()
            .filter(move |i| i.get("step").and_then(Value::as_u64) == Some(index as u64))
    };
    let mut waypoints = Vec::new();
    for (index, step) in steps.iter().enumerate() {
        for input in inputs_before(index) {
            let location = input_location(input, step, input_file)?;
            waypoints.push(input_waypoint(input, location)?);
        }
        if step.get("skip").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        let location = location_of(step, input_file)
            .ok_or_else(|| invalid(format!("witness step {index} has no location: {step}")))?;
        let waypoint = if step.get("value").is_some() {
            input_waypoint(step, location)?
        } else {
            Waypoint {
                kind: WaypointType::Assumption,
                action: "follow",
                location,
                constraint: Some(Constraint {
                    value: "1".to_string(),
                    format: "c_expression",
                }),
                thread_id: thread_of(step),
            }
        };
        waypoints.push(waypoint);
    }
    // Inputs read after the last step (before the violation).
    for input in inputs_before(steps.len()) {
        let location = location_of(input, input_file)
            .ok_or_else(|| invalid(format!("witness input has no location: {input}")))?;
        waypoints.push(input_waypoint(input, location)?);
    }
    Ok(waypoints)
}

/// An input's own location, else the location of the step it precedes.
fn input_location(input: &Value, step: &Value, input_file: &Path) -> Result<Location> {
    location_of(input, input_file)
        .or_else(|| location_of(step, input_file))
        .ok_or_else(|| invalid(format!("witness input has no location: {input}")))
}

/// The final waypoint: the target at the violation.
fn target_waypoint(input: &Path, violation: &Value) -> Result<Waypoint> {
    let location = location_of(violation, input)
        .ok_or_else(|| invalid(format!("verify's violation has no location: {violation}")))?;
    Ok(Waypoint {
        kind: WaypointType::Target,
        action: "follow",
        location,
        constraint: None,
        thread_id: thread_of(violation),
    })
}

fn input_waypoint(input: &Value, location: Location) -> Result<Waypoint> {
    let value = match input.get("value") {
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::String(s)) if s.parse::<i128>().is_ok() => s.clone(),
        other => {
            return Err(invalid(format!(
                "witness input value is not an integer: {other:?}"
            )))
        }
    };
    Ok(Waypoint {
        kind: WaypointType::FunctionReturn,
        action: "follow",
        location,
        constraint: Some(Constraint {
            value: format!("\\result == {value}"),
            format: "acsl_expression",
        }),
        thread_id: thread_of(input),
    })
}

fn single(waypoint: Waypoint) -> Segment {
    Segment {
        segment: vec![WaypointItem { waypoint }],
    }
}

fn thread_of(value: &Value) -> Option<u64> {
    value.get("thread").and_then(Value::as_u64)
}

/// The location of a step, input or violation: a `"file:line[:column]"` string under
/// `location`, or `file` + `line` (+ `col` / `column`) fields. A file whose name is the
/// input file's name is written as the input path.
fn location_of(value: &Value, input: &Path) -> Option<Location> {
    let (file, line, column) = match value.get("location").and_then(Value::as_str) {
        Some(text) => parse_location(text)?,
        None => (
            value.get("file").and_then(Value::as_str)?.to_string(),
            value.get("line").and_then(Value::as_u64)?,
            value
                .get("column")
                .or_else(|| value.get("col"))
                .and_then(Value::as_u64),
        ),
    };
    let same_file =
        Path::new(&file).file_name().is_some() && Path::new(&file).file_name() == input.file_name();
    Some(Location {
        file_name: if same_file {
            input.display().to_string()
        } else {
            file
        },
        line,
        column: column.filter(|&c| c > 0),
        function: value
            .get("function")
            .and_then(Value::as_str)
            .map(str::to_string),
    })
}

/// `file:line` or `file:line:column`, the file possibly containing colons.
fn parse_location(text: &str) -> Option<(String, u64, Option<u64>)> {
    let mut parts = text.rsplitn(3, ':');
    let last: u64 = parts.next()?.trim().parse().ok()?;
    let middle = parts.next()?;
    match (middle.trim().parse::<u64>(), parts.next()) {
        (Ok(line), Some(file)) => Some((file.to_string(), line, Some(last))),
        _ => {
            let file = text.rsplit_once(':')?.0;
            Some((file.to_string(), last, None))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn locations() {
        assert_eq!(parse_location("a/b.c:12"), Some(("a/b.c".into(), 12, None)));
        assert_eq!(
            parse_location("a/b.c:12:5"),
            Some(("a/b.c".into(), 12, Some(5)))
        );
        assert_eq!(parse_location("C:/x.c:3"), Some(("C:/x.c".into(), 3, None)));
        assert_eq!(parse_location("nowhere"), None);
        let input = Path::new("../shared/svcomp/pthread/lazy01.c");
        let loc = location_of(
            &json!({"location": "lazy01.c:21:3", "function": "t1"}),
            input,
        )
        .unwrap();
        assert_eq!(loc.file_name, "../shared/svcomp/pthread/lazy01.c");
        assert_eq!((loc.line, loc.column), (21, Some(3)));
        assert_eq!(loc.function.as_deref(), Some("t1"));
        let loc = location_of(&json!({"file": "pthread.h", "line": 4, "col": 0}), input).unwrap();
        assert_eq!(loc.file_name, "pthread.h");
        assert_eq!(loc.column, None);
    }

    fn fixture(dir: &Path) -> std::path::PathBuf {
        let input = dir.join("lazy01.c");
        let mut text = String::new();
        for line in 1..=40 {
            text.push_str(&match line {
                12 => "    x = y + 1;\n".to_string(),
                29 => "  int n = __VERIFIER_nondet_int();\n".to_string(),
                30 => "  data = 3;\n".to_string(),
                31 => "  int m = __VERIFIER_nondet_int();\n".to_string(),
                _ => format!("  s{line};\n"),
            });
        }
        std::fs::write(&input, text).unwrap();
        input
    }

    #[test]
    fn witness_yaml() {
        let dir = tempfile::tempdir().unwrap();
        let input = fixture(dir.path());
        let witness = json!({
            "steps": [
                {"thread": 0, "location": "lazy01.c:30:3", "function": "main"},
                {"thread": 1, "location": "lazy01.c:12:9", "function": "thread1"},
                {"thread": 1, "location": "lazy01.c:12:5", "function": "thread1"},
                {"thread": 0, "location": "lazy01.c:31:3", "value": -4}
            ],
            "inputs": [{"thread": 0, "value": 7, "step": 1, "location": "lazy01.c:29"}]
        });
        let violation = json!({"kind": "reach_error", "thread": 2, "location": "lazy01.c:20"});
        let task = WitnessTask {
            input_file: &input,
            specification: "CHECK( init(main()), LTL(G ! call(reach_error())) )\n",
            data_model: "ILP32",
        };
        let yaml = violation_witness(&task, &violation, &witness).unwrap();
        assert!(
            yaml.contains("creation_time: '"),
            "the time is a quoted string: {yaml}"
        );
        let as_json: Value = serde_norway::from_str(&yaml).unwrap();
        let schema: Value = serde_json::from_str(include_str!(
            "../../tests/schemas/violation-witness.schema.json"
        ))
        .unwrap();
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&as_json)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{errors:?}\n{yaml}");
        // Parse it back: one entry, four segments before the target.
        let doc: serde_norway::Value = serde_norway::from_str(&yaml).unwrap();
        let entry = &doc[0];
        assert_eq!(entry["entry_type"], "violation_sequence");
        assert_eq!(entry["metadata"]["format_version"], FORMAT_VERSION);
        assert!(entry["metadata"]["creation_time"].is_string());
        assert_eq!(entry["metadata"]["task"]["data_model"], "ILP32");
        let segments = entry["content"].as_sequence().unwrap();
        let waypoint = |i: usize| &segments[i]["segment"][0]["waypoint"];
        assert_eq!(segments.len(), 5, "{yaml}");
        assert_eq!(waypoint(0)["type"], "assumption");
        assert_eq!(waypoint(0)["thread_id"], 0);
        assert_eq!(waypoint(1)["type"], "function_return");
        assert_eq!(waypoint(1)["constraint"]["value"], "\\result == 7");
        assert_eq!(waypoint(1)["constraint"]["format"], "acsl_expression");
        // The `)` of `__VERIFIER_nondet_int()` on line 29.
        assert_eq!(waypoint(1)["location"]["column"], 33);
        // Two steps of thread 1 in the statement at 12:5 make one waypoint there.
        assert_eq!(waypoint(2)["thread_id"], 1);
        assert_eq!(waypoint(2)["location"]["line"], 12);
        assert_eq!(waypoint(2)["location"]["column"], 5);
        assert_eq!(waypoint(3)["constraint"]["value"], "\\result == -4");
        assert_eq!(waypoint(4)["type"], "target");
        assert_eq!(waypoint(4)["thread_id"], 2);
        assert_eq!(waypoint(4)["location"]["column"], 3);
        assert_eq!(
            waypoint(4)["location"]["file_name"],
            input.display().to_string()
        );
        let hashes = entry["metadata"]["task"]["input_file_hashes"]
            .as_mapping()
            .unwrap();
        let hash = hashes.values().next().unwrap().as_str().unwrap();
        assert_eq!(hash.len(), 64);
    }

    #[test]
    fn steps_from_an_interpreter_replay() {
        let execution = json!({
            "files": ["dir/lazy01.c", "dir/assert.h"],
            "outcome": {"outcome": "violation", "kind": "assertion", "message": "x",
                        "thread": 2, "span": {"file": 0, "line": 20, "col": 5},
                        "location": "dir/lazy01.c:20", "blocked": []},
            "trace": [
                {"thread": 0, "stmt": 3, "span": {"file": 0, "line": 30, "col": 3}, "event": "statement"},
                {"thread": 1, "stmt": 9, "span": {"file": 1, "line": 7, "col": 1}, "event": "statement"},
                {"thread": 2, "stmt": 12, "span": {"file": 0, "line": 19, "col": 0}, "event": "statement"},
                {"thread": 1, "stmt": 13, "span": {"file": 0, "line": 9, "col": 1}, "event": "thread_end"}
            ],
            "inputs": [
                {"source": "nondet", "thread": 0, "value": 5, "step": 1, "stmt": 2,
                 "span": {"file": 0, "line": 29, "col": 11}},
                {"source": "uninit", "thread": 0, "value": 0, "step": 0, "stmt": 1,
                 "span": {"file": 0, "line": 28, "col": 3}}
            ], "output": "", "stats": {}
        });
        let input = Path::new("dir/lazy01.c");
        let (violation, witness) = from_execution(&execution, input).unwrap();
        assert_eq!(
            violation,
            json!({"thread": 2, "file": "dir/lazy01.c", "line": 20, "col": 5})
        );
        let steps = witness["steps"].as_array().unwrap();
        assert_eq!(steps.len(), 4, "every trace step keeps its index");
        assert_eq!(steps[1]["skip"], true, "the step in file 1 is left out");
        assert_eq!(steps[2]["line"], 19);
        assert_eq!(steps[3]["skip"], true, "a thread end is no statement");
        let inputs = witness["inputs"].as_array().unwrap();
        assert_eq!(inputs.len(), 1, "only nondet inputs: {inputs:?}");
        assert_eq!(
            (inputs[0]["value"].as_i64(), inputs[0]["step"].as_u64()),
            (Some(5), Some(1))
        );
        let done = json!({"outcome": {"outcome": "completed", "exit_code": 0}, "trace": []});
        assert!(from_execution(&done, input).is_err());
    }

    #[test]
    fn a_violation_in_a_header_is_targeted_at_its_call_site() {
        let execution = json!({
            "files": ["dir/prog.c", "dir/assert.h"],
            "outcome": {"outcome": "violation", "kind": "reach_error", "message": "x",
                        "thread": 0, "span": {"file": 1, "line": 4, "col": 57},
                        "call_sites": [{"file": 0, "line": 30, "col": 3}],
                        "location": "dir/assert.h:4", "blocked": []},
            "trace": [{"thread": 0, "stmt": 3, "span": {"file": 0, "line": 21, "col": 5}, "event": "statement"}],
            "inputs": []
        });
        let (violation, witness) = from_execution(&execution, Path::new("dir/prog.c")).unwrap();
        assert_eq!(violation["line"], 30);
        assert_eq!(violation["file"], "dir/prog.c");
        assert_eq!(witness["steps"][0]["line"], 21);
        let elsewhere = Path::new("other.c");
        assert!(from_execution(&execution, elsewhere).is_err());
    }

    #[test]
    fn missing_parts_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("a.c");
        std::fs::write(&input, "int main() { reach_error(); }\n").unwrap();
        let task = WitnessTask {
            input_file: &input,
            specification: "",
            data_model: "ILP32",
        };
        let v = json!({"location": "a.c:1"});
        assert!(violation_witness(&task, &v, &json!({})).is_err());
        let no_loc = json!({"steps": [{"thread": 0}]});
        assert!(violation_witness(&task, &v, &no_loc).is_err());
        let steps = json!({"steps": []});
        assert!(violation_witness(&task, &json!({}), &steps).is_err());
        assert!(violation_witness(&task, &v, &steps).is_ok());
    }
}
