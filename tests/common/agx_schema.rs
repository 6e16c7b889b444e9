//! Validation against agx's own JSON schemas in docs/schemas (JSON Schema 2020-12, with
//! `$ref`s between the files resolved from that folder). Every test that writes an agx
//! JSON witness checks it here before using it, so no witness the suite writes escapes
//! its documented schema.

use super::project_root;
use serde_json::Value;

/// Resolves a schema's `$ref` to another file of docs/schemas by its file name.
struct SchemaFolder;

impl jsonschema::Retrieve for SchemaFolder {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let name = uri.path().as_str().rsplit('/').next().unwrap_or_default();
        let text = std::fs::read_to_string(project_root().join("docs/schemas").join(name))?;
        Ok(serde_json::from_str(&text)?)
    }
}

fn validator(schema: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(project_root().join("docs/schemas").join(schema))
        .expect("the schema file");
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::options()
        .with_retriever(SchemaFolder)
        .build(&schema)
        .expect("the schema compiles")
}

/// Every schema error of `instance` against docs/schemas/`schema`, one line each.
pub fn errors(schema: &str, instance: &Value) -> Vec<String> {
    validator(schema)
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

/// Panics with every schema error of `instance` against docs/schemas/`schema`.
pub fn assert_valid(schema: &str, instance: &Value, what: &str) {
    let errs = errors(schema, instance);
    assert!(
        errs.is_empty(),
        "{what} against {schema}: {errs:#?}\n{instance:#}"
    );
}

/// Panics unless `witness` is a valid agx witness (docs/schemas/agx-witness.schema.json).
pub fn assert_witness(witness: &Value, what: &str) {
    assert_valid("agx-witness.schema.json", witness, what);
}
