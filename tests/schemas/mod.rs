//! Validation of the files agx writes against the schemas beside this file (see
//! README.md there): SARIF 2.1.0 logs and SV-COMP YAML violation witnesses.

#![allow(dead_code)]

use serde_json::Value;

/// Formats (uuid, date-time, uri) are asserted.
fn validator(schema: &str) -> jsonschema::Validator {
    // The SARIF schema's `language` patterns have an unescaped `]` outside a class, which
    // ECMA-262 reads as a literal and the validator's regex engine rejects: the same
    // patterns with the `]` escaped (the file itself stays as published).
    let text = schema.replace(r#"[a-zA-Z]{2}]?$""#, r#"[a-zA-Z]{2}\\]?$""#);
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the schema compiles")
}

fn errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

/// Panics with every schema error of `log` against the SARIF 2.1.0 schema.
pub fn check_sarif(log: &Value) {
    let v = validator(include_str!("sarif-schema-2.1.0.json"));
    let errs = errors(&v, log);
    assert!(
        errs.is_empty(),
        "SARIF schema errors: {errs:#?}\nin {log:#}"
    );
}

/// Panics with every problem of the YAML violation witness `yaml`: schema errors, an
/// unquoted `creation_time` (a YAML 1.1 reader loads it as a date), segments not ending in
/// one `follow` waypoint, a `target` outside the final segment or none in it.
pub fn check_witness(yaml: &str) {
    for line in yaml.lines() {
        if let Some(value) = line.trim_start().strip_prefix("creation_time:") {
            let value = value.trim_start();
            assert!(
                value.starts_with('\'') || value.starts_with('"'),
                "creation_time is not quoted: {line}"
            );
        }
    }
    let doc: Value = serde_norway::from_str(yaml).expect("the witness is YAML");
    let v = validator(include_str!("violation-witness.schema.json"));
    let errs = errors(&v, &doc);
    assert!(
        errs.is_empty(),
        "witness schema errors: {errs:#?}\nin {yaml}"
    );
    for entry in doc.as_array().unwrap() {
        let segments = entry["content"].as_array().unwrap();
        for (i, segment) in segments.iter().enumerate() {
            let waypoints = segment["segment"].as_array().unwrap();
            let follows: Vec<usize> = waypoints
                .iter()
                .enumerate()
                .filter(|(_, w)| w["waypoint"]["action"] == "follow")
                .map(|(j, _)| j)
                .collect();
            assert_eq!(
                follows,
                vec![waypoints.len() - 1],
                "segment {i} must end with its only follow waypoint: {segment}"
            );
            let targets = waypoints
                .iter()
                .filter(|w| w["waypoint"]["type"] == "target")
                .count();
            let last = i + 1 == segments.len();
            assert_eq!(
                targets,
                usize::from(last),
                "segment {i}: a target belongs in the final segment only, and it needs one"
            );
        }
    }
}
