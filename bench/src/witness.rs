//! The YAML violation witness `agx svcomp --witness-out` writes.
//!
//! Format: SV-COMP violation witness format 2.0 (one `violation_sequence` entry), with the
//! per-waypoint `thread_id` of the concurrency extension (format 2.2 as read by
//! ConcurrentWitness2Test): the thread that executes the waypoint, `0` for `main` and
//! `1, 2, ...` for threads in creation order, and segment order as the order across
//! threads. `metadata.format_version` stays `"2.0"`: apart from `thread_id` every key is
//! of format 2.0.
//!
//! ```yaml
//! - entry_type: violation_sequence
//!   metadata:
//!     format_version: '2.0'
//!     uuid: 1b4e28ba-2fa1-4d2b-8b5f-2a6c2e0f3c71
//!     creation_time: 2025-01-01T12:00:00Z
//!     producer: {name: agx, version: 0.1.0}
//!     task:
//!       input_files: [pthread/lazy01.c]
//!       input_file_hashes: {pthread/lazy01.c: 3a5f...}
//!       specification: CHECK( init(main()), LTL(G ! call(reach_error())) )
//!       data_model: ILP32
//!       language: C
//!   content:
//!   - segment:                      # one per step of the schedule
//!     - waypoint:
//!         type: assumption          # "this thread passes this statement"
//!         action: follow
//!         location: {file_name: pthread/lazy01.c, line: 21, column: 3, function: thread1}
//!         constraint: {value: '1', format: c_expression}
//!         thread_id: 1
//!   - segment:                      # an input: the value a __VERIFIER_nondet_* call returned
//!     - waypoint:
//!         type: function_return
//!         action: follow
//!         location: {file_name: pthread/lazy01.c, line: 30}
//!         constraint: {value: \result == 5, format: c_expression}
//!         thread_id: 0
//!   - segment:                      # the final segment: the violation
//!     - waypoint: {type: target, action: follow, location: {...}, thread_id: 2}
//! ```
//!
//! Where the steps come from: verify's witness is the replayable agx witness (threads
//! and input values, no locations); `agx svcomp` replays it with `agx run --witness`
//! and takes the located steps from the interpreter's trace ([`from_execution`]). A
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
//!
//! Limitation: locations are the ones the front end reports, i.e. the files named by the
//! line markers of the preprocessed text. Steps in the input file are written with the
//! input file's path as given to agx; steps in other files (headers) keep their own names.

use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::io;

/// Why no witness could be written.
#[derive(Debug, thiserror::Error)]
pub enum WitnessError {
    #[error("reading {path}: {source}")]
    Read { path: String, source: io::Error },
    /// Verify's output or the replay lacks what the witness needs.
    #[error("{0}")]
    Invalid(String),
    #[error("writing the YAML: {0}")]
    Yaml(#[from] serde_yaml::Error),
}

type Result<T, E = WitnessError> = std::result::Result<T, E>;

fn invalid(message: impl Into<String>) -> WitnessError {
    WitnessError::Invalid(message.into())
}
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

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

#[derive(Serialize)]
struct Waypoint {
    #[serde(rename = "type")]
    kind: &'static str,
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
    let hash = hex(&Sha256::digest(&bytes));
    let input_name = task.input_file.display().to_string();
    let mut content = step_segments(task.input_file, witness)?;
    content.push(target_segment(task.input_file, violation)?);
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let entry = Entry {
        entry_type: "violation_sequence",
        metadata: Metadata {
            format_version: "2.0",
            uuid: uuid_from(&[
                hash.as_bytes(),
                &now.to_le_bytes(),
                &std::process::id().to_le_bytes(),
            ]),
            creation_time: iso8601_utc(now),
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
    Ok(serde_yaml::to_string(&vec![entry])?)
}

/// The `violation` and located `steps` of a replay by `agx run --witness W --format json
/// --trace` (the interpreter's execution: `trace` steps with `thread` and `span` {file id,
/// line, col}, and `outcome` `violation` with its `thread`, `span` and `"file:line"`
/// `location`). The execution names no files, only file ids: the violation's location
/// gives the name of its file id, and steps in other files (headers) are left out, which
/// keeps the witness valid (it constrains less). Inputs are left out for the same reason:
/// the execution does not say at which step each was read.
pub fn from_execution(execution: &Value) -> Result<(Value, Value)> {
    let outcome = execution
        .get("outcome")
        .ok_or_else(|| invalid("the replay has no outcome"))?;
    if outcome.get("outcome").and_then(Value::as_str) != Some("violation") {
        return Err(invalid(format!(
            "the witness does not replay to a violation: {outcome}"
        )));
    }
    let (file, _, _) = outcome
        .get("location")
        .and_then(Value::as_str)
        .and_then(parse_location)
        .ok_or_else(|| invalid(format!("the replayed violation has no location: {outcome}")))?;
    let span_of = |v: &Value| -> Option<(u64, u64, u64)> {
        let span = v.get("span")?;
        Some((
            span.get("file")?.as_u64()?,
            span.get("line")?.as_u64()?,
            span.get("col").and_then(Value::as_u64).unwrap_or(0),
        ))
    };
    let (file_id, line, col) =
        span_of(outcome).ok_or_else(|| invalid("the replayed violation has no span"))?;
    let located = |thread: Option<&Value>, line: u64, col: u64| serde_json::json!({"thread": thread, "file": file, "line": line, "col": col});
    let steps: Vec<Value> = execution
        .get("trace")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid("the replay has no trace"))?
        .iter()
        .filter_map(|step| {
            let (f, line, col) = span_of(step)?;
            (f == file_id).then(|| located(step.get("thread"), line, col))
        })
        .collect();
    let violation = located(outcome.get("thread"), line, col);
    Ok((violation, serde_json::json!({ "steps": steps })))
}

/// One segment per step (and per placeable input), in execution order.
fn step_segments(input_file: &Path, witness: &Value) -> Result<Vec<Segment>> {
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
    let mut segments = Vec::new();
    for (index, step) in steps.iter().enumerate() {
        for input in inputs
            .iter()
            .filter(|i| i.get("step").and_then(Value::as_u64) == Some(index as u64))
        {
            let location = input_location(input, step, input_file)?;
            segments.push(single(input_waypoint(input, location)?));
        }
        let location = location_of(step, input_file)
            .ok_or_else(|| invalid(format!("witness step {index} has no location: {step}")))?;
        let waypoint = if step.get("value").is_some() {
            input_waypoint(step, location)?
        } else {
            Waypoint {
                kind: "assumption",
                action: "follow",
                location,
                constraint: Some(Constraint {
                    value: "1".to_string(),
                    format: "c_expression",
                }),
                thread_id: thread_of(step),
            }
        };
        segments.push(single(waypoint));
    }
    Ok(segments)
}

/// An input's own location, else the location of the step it precedes.
fn input_location(input: &Value, step: &Value, input_file: &Path) -> Result<Location> {
    location_of(input, input_file)
        .or_else(|| location_of(step, input_file))
        .ok_or_else(|| invalid(format!("witness input has no location: {input}")))
}

/// The final segment: the target at the violation.
fn target_segment(input: &Path, violation: &Value) -> Result<Segment> {
    let location = location_of(violation, input)
        .ok_or_else(|| invalid(format!("verify's violation has no location: {violation}")))?;
    Ok(single(Waypoint {
        kind: "target",
        action: "follow",
        location,
        constraint: None,
        thread_id: thread_of(violation),
    }))
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
        kind: "function_return",
        action: "follow",
        location,
        constraint: Some(Constraint {
            value: format!("\\result == {value}"),
            format: "c_expression",
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

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A version-4-shaped UUID from a hash of `parts` (unique per input, time and process).
fn uuid_from(parts: &[&[u8]]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part);
    }
    let mut b: [u8; 16] = hasher.finalize()[..16].try_into().unwrap_or([0; 16]);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = hex(&b);
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// `YYYY-MM-DDTHH:MM:SSZ` of a Unix time (proleptic Gregorian calendar).
fn iso8601_utc(unix_secs: u64) -> String {
    let days = (unix_secs / 86_400) as i64;
    let secs = unix_secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dates() {
        assert_eq!(iso8601_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso8601_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(iso8601_utc(1_700_000_000), "2023-11-14T22:13:20Z");
    }

    #[test]
    fn uuid_shape() {
        let u = uuid_from(&[b"x"]);
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "4");
        assert!(matches!(&u[19..20], "8" | "9" | "a" | "b"), "{u}");
        assert_ne!(u, uuid_from(&[b"y"]));
    }

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

    #[test]
    fn witness_yaml() {
        let dir = std::env::temp_dir().join(format!("agx-witness-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let input = dir.join("lazy01.c");
        std::fs::write(&input, "int main() { return 0; }\n").unwrap();
        let witness = json!({
            "steps": [
                {"thread": 0, "location": "lazy01.c:30:3", "function": "main"},
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
        // Parse it back: one entry, four segments before the target.
        let doc: serde_yaml::Value = serde_yaml::from_str(&yaml).unwrap();
        let entry = &doc[0];
        assert_eq!(entry["entry_type"], "violation_sequence");
        assert_eq!(entry["metadata"]["format_version"], "2.0");
        assert_eq!(entry["metadata"]["task"]["data_model"], "ILP32");
        let segments = entry["content"].as_sequence().unwrap();
        let waypoint = |i: usize| &segments[i]["segment"][0]["waypoint"];
        assert_eq!(segments.len(), 5);
        assert_eq!(waypoint(0)["type"], "assumption");
        assert_eq!(waypoint(0)["thread_id"], 0);
        assert_eq!(waypoint(1)["type"], "function_return");
        assert_eq!(waypoint(1)["constraint"]["value"], "\\result == 7");
        assert_eq!(waypoint(2)["thread_id"], 1);
        assert_eq!(waypoint(2)["location"]["line"], 12);
        assert_eq!(waypoint(3)["constraint"]["value"], "\\result == -4");
        assert_eq!(waypoint(4)["type"], "target");
        assert_eq!(waypoint(4)["thread_id"], 2);
        assert_eq!(
            waypoint(4)["location"]["file_name"],
            input.display().to_string()
        );
        let hashes = entry["metadata"]["task"]["input_file_hashes"]
            .as_mapping()
            .unwrap();
        let hash = hashes.values().next().unwrap().as_str().unwrap();
        assert_eq!(hash.len(), 64);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn steps_from_an_interpreter_replay() {
        let execution = json!({
            "outcome": {"outcome": "violation", "kind": "assertion", "message": "x",
                        "thread": 2, "span": {"file": 0, "line": 20, "col": 5},
                        "location": "dir/lazy01.c:20", "blocked": []},
            "trace": [
                {"thread": 0, "stmt": 3, "span": {"file": 0, "line": 30, "col": 3}, "event": "statement"},
                {"thread": 1, "stmt": 9, "span": {"file": 1, "line": 7, "col": 1}, "event": "statement"},
                {"thread": 2, "stmt": 12, "span": {"file": 0, "line": 19, "col": 0}, "event": "statement"}
            ],
            "inputs": [], "output": "", "stats": {}
        });
        let (violation, witness) = from_execution(&execution).unwrap();
        assert_eq!(
            violation,
            json!({"thread": 2, "file": "dir/lazy01.c", "line": 20, "col": 5})
        );
        let steps = witness["steps"].as_array().unwrap();
        assert_eq!(steps.len(), 2, "the step in file 1 is left out");
        assert_eq!(steps[1]["line"], 19);
        let done = json!({"outcome": {"outcome": "completed", "exit_code": 0}, "trace": []});
        assert!(from_execution(&done).is_err());
    }

    #[test]
    fn missing_parts_are_errors() {
        let dir = std::env::temp_dir().join(format!("agx-witness-e-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let input = dir.join("a.c");
        std::fs::write(&input, "").unwrap();
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
        std::fs::remove_dir_all(&dir).ok();
    }
}
