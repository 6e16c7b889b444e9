//! Verification tasks: SV-COMP task definitions and the project's verify fixtures.
//!
//! A task definition (`.yml`, format 1.0 to 2.0) names its input file, one or more
//! properties each with a property file and an expected verdict, and (from 1.1 on) options
//! such as the data model:
//!
//! ```yaml
//! format_version: '2.0'
//! input_files: 'bigshot_p.i'
//! properties:
//!   - property_file: ../properties/unreach-call.prp
//!     expected_verdict: false
//! options:
//!   language: C
//!   data_model: ILP32
//! ```
//!
//! Each (definition, property) pair is one [`Task`], as in SV-COMP. Rules applied here:
//! - the source is the file the definition names; where it is absent and the name ends in
//!   `.i`, the `.c` of the same stem (../shared/svcomp keeps the original `.c` instead of
//!   the preprocessed `.i`);
//! - a definition without `options.data_model` (formats 1.0 and 1.1) is ILP32, the data
//!   model of every SV-COMP concurrency task;
//! - the property is read from the property file's text (see [`Property::from_text`]); a
//!   property file that does not exist gives [`Property::Other`] named after its stem, so
//!   the task is reported as "not supported", never run.
//!
//! A fixture is a C file with `// agx-verify:` directives (see [`parse_fixture_cases`]);
//! each case is a task on the unreach-call property (every assertion and `reach_error`
//! call), expected TRUE for `safe` and FALSE for `violation`, with the case's options
//! passed on to `agx verify`.

use analysis::ir::DataModel;
use serde::Deserialize;
use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

/// What a task asks to check.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Property {
    /// `CHECK( init(main()), LTL(G ! call(reach_error())) )`: no call of `reach_error`
    /// (agx also treats failing `assert`s as such calls, as the SV-COMP sources define
    /// `assert` through `reach_error`).
    UnreachCall,
    /// `CHECK( init(main()), LTL(G ! data-race) )`: no data race.
    NoDataRace,
    /// Anything else, named by the property file's stem.
    Other(String),
}

impl Property {
    /// The property's short name as SV-COMP writes it (`unreach-call`, `no-data-race`).
    pub fn name(&self) -> &str {
        match self {
            Property::UnreachCall => "unreach-call",
            Property::NoDataRace => "no-data-race",
            Property::Other(name) => name,
        }
    }

    /// Whether `agx verify` checks this property (tasks of other properties are reported
    /// as "not supported" instead of being run).
    pub fn is_checked(&self) -> bool {
        matches!(self, Property::UnreachCall | Property::NoDataRace)
    }

    /// The `agx verify` options that check this property: no-data-race reports data
    /// races only (`reach_error` is an ordinary function there).
    pub fn verify_args(&self) -> &'static [&'static str] {
        match self {
            Property::NoDataRace => &["--check", "race", "--no-assertions"],
            Property::UnreachCall | Property::Other(_) => &[],
        }
    }

    /// Recognises the two SV-COMP concurrency properties from a `.prp` text, ignoring
    /// white space; `None` for any other property (other entry points included).
    pub fn from_text(text: &str) -> Option<Property> {
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        match compact.as_str() {
            "CHECK(init(main()),LTL(G!call(reach_error())))" => Some(Property::UnreachCall),
            "CHECK(init(main()),LTL(G!data-race))" => Some(Property::NoDataRace),
            _ => None,
        }
    }

    /// Reads and recognises a property file; an unreadable or unknown one is
    /// [`Property::Other`] named after the file's stem.
    pub fn from_file(path: &Path) -> Property {
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        match std::fs::read_to_string(path) {
            Ok(text) => Property::from_text(&text).unwrap_or(Property::Other(stem)),
            Err(_) => Property::Other(stem),
        }
    }
}

impl fmt::Display for Property {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One thing to verify: a program, a property, the verdict expected for it.
#[derive(Clone, Debug)]
pub struct Task {
    /// `folder/name`: the definition's directory name and file stem.
    pub id: String,
    /// The directory name of the definition (the unit of the per-folder table).
    pub folder: String,
    /// The `.yml` definition or the fixture.
    pub definition: PathBuf,
    /// The C source to verify, or why it could not be found.
    pub source: Result<PathBuf, String>,
    pub property: Property,
    /// `Some(true)` when the property holds, `Some(false)` when it is violated, `None` when
    /// the definition gives no expected verdict (such tasks are run but never scored).
    pub expected: Option<bool>,
    pub data_model: DataModel,
    /// Options for `agx verify` from a fixture header.
    pub extra_args: Vec<String>,
}

/// The serde view of a task definition: only the fields agx uses.
#[derive(Debug, Deserialize)]
pub struct Definition {
    pub input_files: InputFiles,
    #[serde(default)]
    pub properties: Vec<PropertyEntry>,
    #[serde(default)]
    pub options: Options,
}

/// `input_files` is a single name or a list of names.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum InputFiles {
    One(String),
    Many(Vec<String>),
}

#[derive(Debug, Deserialize)]
pub struct PropertyEntry {
    pub property_file: String,
    pub expected_verdict: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
pub struct Options {
    pub language: Option<String>,
    pub data_model: Option<String>,
}

impl Definition {
    /// Parses the YAML text of a task definition.
    pub fn parse(text: &str) -> Result<Definition, String> {
        serde_norway::from_str(text).map_err(|e| format!("not a task definition: {e}"))
    }

    /// The single input file; several input files are not supported.
    pub fn input_file(&self) -> Result<&str, String> {
        match &self.input_files {
            InputFiles::One(name) => Ok(name),
            InputFiles::Many(names) if names.len() == 1 => Ok(&names[0]),
            InputFiles::Many(names) => Err(format!(
                "{} input files; agx verifies single-file tasks only",
                names.len()
            )),
        }
    }

    /// The data model, ILP32 when the definition does not say.
    pub fn data_model(&self) -> Result<DataModel, String> {
        match &self.options.data_model {
            None => Ok(DataModel::Ilp32),
            Some(name) => name.parse(),
        }
    }
}

/// The source a definition in `dir` names: `name` itself, else the `.c` of the same stem
/// when `name` is a `.i`. `exists` is the file-system test (a parameter for tests).
pub fn resolve_source(
    dir: &Path,
    name: &str,
    exists: impl Fn(&Path) -> bool,
) -> Result<PathBuf, String> {
    let named = dir.join(name);
    if exists(&named) {
        return Ok(named);
    }
    if named.extension().is_some_and(|ext| ext == "i") {
        let original = named.with_extension("c");
        if exists(&original) {
            return Ok(original);
        }
        return Err(format!(
            "source not found: {} (nor {})",
            named.display(),
            original.display()
        ));
    }
    Err(format!("source not found: {}", named.display()))
}

/// The tasks of one definition file whose text is `text`.
pub fn tasks_from_definition(path: &Path, text: &str) -> Result<Vec<Task>, String> {
    let definition = Definition::parse(text)?;
    if let Some(language) = &definition.options.language {
        if !language.eq_ignore_ascii_case("C") {
            return Err(format!("language {language}: agx verifies C only"));
        }
    }
    let data_model = definition.data_model()?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let source = definition
        .input_file()
        .and_then(|name| resolve_source(dir, name, Path::exists));
    let (folder, id) = folder_and_id(path);
    let tasks = definition
        .properties
        .iter()
        .map(|entry| Task {
            id: id.clone(),
            folder: folder.clone(),
            definition: path.to_path_buf(),
            source: source.clone(),
            property: Property::from_file(&dir.join(&entry.property_file)),
            expected: entry.expected_verdict,
            data_model,
            extra_args: Vec::new(),
        })
        .collect();
    Ok(tasks)
}

/// One `agx verify` case of a fixture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixtureCase {
    /// `Some(true)` safe, `Some(false)` violation, `None` when the fixture expects no
    /// verdict (`unknown`).
    pub expected: Option<bool>,
    /// The violation kind named after `violation`, if any.
    pub kind: Option<String>,
    /// Options for `agx verify`.
    pub args: Vec<String>,
}

/// The directive that starts a verify case.
pub const VERIFY_DIRECTIVE: &str = "// agx-verify:";
const EXPECT_DIRECTIVE: &str = "// agx-expect:";
const RUN_DIRECTIVE: &str = "// agx-run:";

/// The verify cases of a fixture (see fixtures/README.md for the directive syntax:
/// directives start at column 0). Two forms are read:
/// - `// agx-verify: safe|violation [KIND] [OPTIONS]`: expectation and options on one line;
/// - `// agx-verify: [OPTIONS]` followed, before the next `agx-verify`/`agx-run` line, by
///   `// agx-expect: safe|ok|violation [KIND]|unknown` (`error` cases are rejections, not
///   verdicts, and are left out).
///
/// Errors name the line.
pub fn parse_fixture_cases(text: &str) -> Result<Vec<FixtureCase>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut cases = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let Some(value) = line.strip_prefix(VERIFY_DIRECTIVE) else {
            continue;
        };
        let words: Vec<&str> = value.split_whitespace().collect();
        let at = |msg: String| format!("line {}: {msg}", index + 1);
        let case = match words.first() {
            Some(&("safe" | "violation" | "unknown")) => expectation(&words).map_err(at)?,
            _ => {
                let expect = lines[index + 1..]
                    .iter()
                    .take_while(|l| {
                        !l.starts_with(VERIFY_DIRECTIVE) && !l.starts_with(RUN_DIRECTIVE)
                    })
                    .find_map(|l| l.strip_prefix(EXPECT_DIRECTIVE))
                    .ok_or_else(|| {
                        at(format!(
                            "`{VERIFY_DIRECTIVE}` case without `{EXPECT_DIRECTIVE}`"
                        ))
                    })?;
                let expect: Vec<&str> = expect.split_whitespace().collect();
                if expect.first() == Some(&"error") {
                    continue;
                }
                let mut case = expectation(&expect).map_err(at)?;
                case.args = words.iter().map(|w| w.to_string()).collect();
                case
            }
        };
        cases.push(case);
    }
    Ok(cases)
}

/// `safe`, `ok`, `unknown` or `violation [KIND]`, then options.
fn expectation(words: &[&str]) -> Result<FixtureCase, String> {
    let (expected, rest) = match words.split_first() {
        Some((&("safe" | "ok"), rest)) => (Some(true), rest),
        Some((&"violation", rest)) => (Some(false), rest),
        Some((&"unknown", rest)) => (None, rest),
        other => {
            return Err(format!(
                "expected `safe`, `violation` or `unknown`, found {}",
                other.map_or("nothing".to_string(), |(w, _)| format!("`{w}`"))
            ))
        }
    };
    let (kind, args) = match rest.split_first() {
        Some((kind, args)) if expected == Some(false) && !kind.starts_with('-') => {
            (Some(kind.to_string()), args)
        }
        _ => (None, rest),
    };
    Ok(FixtureCase {
        expected,
        kind,
        args: args.iter().map(|w| w.to_string()).collect(),
    })
}

/// The tasks of a fixture: none for a C file without `agx-verify` cases; `folder/stem`,
/// or `folder/stem#N` when the fixture has several cases.
pub fn tasks_from_fixture(path: &Path, text: &str) -> Result<Vec<Task>, String> {
    let cases = parse_fixture_cases(text)?;
    let (folder, id) = folder_and_id(path);
    let several = cases.len() > 1;
    cases
        .into_iter()
        .enumerate()
        .map(|(i, case)| {
            // A violation of another kind than an assertion or reach_error is not an
            // unreach-call violation: such cases are reported as not supported.
            let property = match case.kind.as_deref() {
                None | Some("assertion" | "reach_error") => Property::UnreachCall,
                Some(kind) => Property::Other(format!("violation-{kind}")),
            };
            Ok(Task {
                id: if several {
                    format!("{id}#{}", i + 1)
                } else {
                    id.clone()
                },
                folder: folder.clone(),
                definition: path.to_path_buf(),
                source: Ok(path.to_path_buf()),
                property,
                expected: case.expected,
                data_model: data_model_in_args(&case.args)?,
                extra_args: without_data_model(&case.args),
            })
        })
        .collect()
}

/// Fixture options less `--data-model` and its value (the bench passes the data model).
fn without_data_model(args: &[String]) -> Vec<String> {
    let mut kept = Vec::new();
    let mut skip_value = false;
    for arg in args {
        if std::mem::take(&mut skip_value) {
            continue;
        }
        if arg == "--data-model" {
            skip_value = true;
        } else if !arg.starts_with("--data-model=") {
            kept.push(arg.clone());
        }
    }
    kept
}

/// `--data-model X` or `--data-model=X` among header options (the bench passes the data
/// model itself, so it is taken out of the options), ILP32 when absent.
fn data_model_in_args(args: &[String]) -> Result<DataModel, String> {
    for (i, arg) in args.iter().enumerate() {
        if let Some(value) = arg.strip_prefix("--data-model=") {
            return value.parse();
        }
        if arg == "--data-model" {
            return args
                .get(i + 1)
                .ok_or_else(|| "--data-model needs a value".to_string())?
                .parse();
        }
    }
    Ok(DataModel::Ilp32)
}

/// (`folder`, `folder/stem`) of a definition path.
fn folder_and_id(path: &Path) -> (String, String) {
    let folder = path
        .parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| ".".to_string());
    let stem = path
        .file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let id = format!("{folder}/{stem}");
    (folder, id)
}

/// Everything found under the paths given to `agx bench`.
#[derive(Debug, Default)]
pub struct Discovery {
    pub tasks: Vec<Task>,
    /// Definitions or fixtures that could not be read, as `path: reason`.
    pub problems: Vec<String>,
}

/// Finds the tasks under `roots`: `.yml` definitions and C files with a fixture header,
/// searched recursively in sorted order; each file is read once even if named twice.
pub fn discover(roots: &[PathBuf]) -> Discovery {
    let mut files = BTreeSet::new();
    let mut discovery = Discovery::default();
    for root in roots {
        if root.is_dir() {
            collect_files(root, &mut files, &mut discovery.problems);
        } else if root.is_file() {
            files.insert(root.clone());
        } else {
            discovery
                .problems
                .push(format!("{}: no such file or directory", root.display()));
        }
    }
    let mut seen_paths = BTreeSet::new();
    let mut seen_keys = BTreeSet::new();
    for file in files {
        let canonical = file.canonicalize().unwrap_or_else(|_| file.clone());
        if !seen_paths.insert(canonical) {
            continue;
        }
        for task in read_tasks(&file, &mut discovery.problems) {
            let key = (task.id.clone(), task.property.clone());
            if seen_keys.insert(key) {
                discovery.tasks.push(task);
            } else {
                discovery.problems.push(format!(
                    "{}: task {} ({}) is already defined elsewhere; skipped",
                    file.display(),
                    task.id,
                    task.property
                ));
            }
        }
    }
    discovery
}

/// The tasks a file defines (none for files that are neither definitions nor fixtures).
fn read_tasks(file: &Path, problems: &mut Vec<String>) -> Vec<Task> {
    let extension = file.extension().and_then(|e| e.to_str()).unwrap_or("");
    if !matches!(extension, "yml" | "yaml" | "c" | "i") {
        return Vec::new();
    }
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) => {
            problems.push(format!("{}: {e}", file.display()));
            return Vec::new();
        }
    };
    let result = if matches!(extension, "yml" | "yaml") {
        tasks_from_definition(file, &text)
    } else {
        tasks_from_fixture(file, &text)
    };
    result.unwrap_or_else(|e| {
        problems.push(format!("{}: {e}", file.display()));
        Vec::new()
    })
}

/// Adds the files under `dir` to `files`, skipping hidden directories and `target`.
fn collect_files(dir: &Path, files: &mut BTreeSet<PathBuf>, problems: &mut Vec<String>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            problems.push(format!("{}: {e}", dir.display()));
            return;
        }
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() {
            if !name.starts_with('.') && name != "target" {
                collect_files(&path, files, problems);
            }
        } else {
            files.insert(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A copy of a format 2.0 definition as the corpus writes them.
    const FORMAT_2_0: &str = "format_version: '2.0'\n\n\
        # old file name: bigshot_p_false-unreach-call.i\n\
        input_files: 'bigshot_p.i'\n\n\
        properties:\n  - property_file: ../properties/unreach-call.prp\n    expected_verdict: false\n\n\
        options:\n  language: C\n  data_model: ILP32\n";

    /// Format 1.0: no options, so no data model.
    const FORMAT_1_0: &str = "format_version: '1.0'\n\
        input_files: 'fib_bench_longer-1.i'\n\
        properties:\n  - property_file: ../properties/unreach-call.prp\n    expected_verdict: true\n";

    /// Two properties, a list of input files, LP64.
    const TWO_PROPERTIES: &str = "format_version: '2.0'\n\
        input_files:\n  - 'read_write_lock-1.i'\n\
        properties:\n  - property_file: ../properties/unreach-call.prp\n    expected_verdict: true\n\
        \x20 - property_file: ../properties/no-data-race.prp\n    expected_verdict: false\n\
        options:\n  language: C\n  data_model: LP64\n";

    #[test]
    fn parses_format_2_0() {
        let d = Definition::parse(FORMAT_2_0).unwrap();
        assert_eq!(d.input_file().unwrap(), "bigshot_p.i");
        assert_eq!(d.properties.len(), 1);
        assert_eq!(
            d.properties[0].property_file,
            "../properties/unreach-call.prp"
        );
        assert_eq!(d.properties[0].expected_verdict, Some(false));
        assert_eq!(d.data_model().unwrap(), DataModel::Ilp32);
    }

    #[test]
    fn format_1_0_defaults_to_ilp32() {
        let d = Definition::parse(FORMAT_1_0).unwrap();
        assert_eq!(d.input_file().unwrap(), "fib_bench_longer-1.i");
        assert_eq!(d.properties[0].expected_verdict, Some(true));
        assert_eq!(d.data_model().unwrap(), DataModel::Ilp32);
    }

    #[test]
    fn list_of_inputs_and_two_properties() {
        let d = Definition::parse(TWO_PROPERTIES).unwrap();
        assert_eq!(d.input_file().unwrap(), "read_write_lock-1.i");
        let expected: Vec<_> = d.properties.iter().map(|p| p.expected_verdict).collect();
        assert_eq!(expected, vec![Some(true), Some(false)]);
        assert_eq!(d.data_model().unwrap(), DataModel::Lp64);
    }

    #[test]
    fn rejects_several_inputs_and_bad_yaml() {
        let d = Definition::parse("input_files: [a.i, b.i]\nproperties: []\n").unwrap();
        assert!(d.input_file().unwrap_err().contains("2 input files"));
        assert!(Definition::parse("properties: [").is_err());
        assert!(
            Definition::parse("properties: []\n").is_err(),
            "input_files is required"
        );
        let d = Definition::parse("input_files: a.i\noptions:\n  data_model: ILP16\n").unwrap();
        assert!(d.data_model().is_err());
    }

    #[test]
    fn source_is_the_named_file_else_the_c_of_the_same_stem() {
        let dir = Path::new("/corpus/pthread");
        let only_c = |p: &Path| p == Path::new("/corpus/pthread/bigshot_p.c");
        assert_eq!(
            resolve_source(dir, "bigshot_p.i", only_c).unwrap(),
            PathBuf::from("/corpus/pthread/bigshot_p.c")
        );
        let both = |_: &Path| true;
        assert_eq!(
            resolve_source(dir, "bigshot_p.i", both).unwrap(),
            PathBuf::from("/corpus/pthread/bigshot_p.i")
        );
        let none = |_: &Path| false;
        let err = resolve_source(dir, "bigshot_p.i", none).unwrap_err();
        assert!(
            err.contains("bigshot_p.i") && err.contains("bigshot_p.c"),
            "{err}"
        );
        assert!(resolve_source(dir, "reorder_5.c", none).is_err());
    }

    #[test]
    fn recognises_property_texts() {
        assert_eq!(
            Property::from_text("CHECK( init(main()), LTL(G ! call(reach_error())) )\n"),
            Some(Property::UnreachCall)
        );
        assert_eq!(
            Property::from_text("CHECK( init(main()), LTL(G ! data-race) )"),
            Some(Property::NoDataRace)
        );
        assert_eq!(
            Property::from_text("CHECK( init(main()), LTL(G valid-free) )"),
            None
        );
        assert_eq!(
            Property::from_text("CHECK( init(start()), LTL(G ! call(reach_error())) )"),
            None
        );
        assert!(Property::UnreachCall.is_checked());
        assert!(Property::NoDataRace.is_checked());
        assert_eq!(
            Property::NoDataRace.verify_args(),
            ["--check", "race", "--no-assertions"]
        );
        assert!(Property::UnreachCall.verify_args().is_empty());
        assert_eq!(
            Property::from_file(Path::new("/nonexistent/no-data-races.prp")),
            Property::Other("no-data-races".into())
        );
    }

    #[test]
    fn tasks_per_property_with_folder_ids() {
        let path = Path::new("/nonexistent/pthread-atomic/read_write_lock-1b.yml");
        let tasks = tasks_from_definition(path, TWO_PROPERTIES).unwrap();
        assert_eq!(tasks.len(), 2);
        assert_eq!(tasks[0].id, "pthread-atomic/read_write_lock-1b");
        assert_eq!(tasks[0].folder, "pthread-atomic");
        // The property files do not exist under /nonexistent: named after their stems.
        assert_eq!(tasks[0].property, Property::Other("unreach-call".into()));
        assert_eq!(tasks[1].expected, Some(false));
        assert!(tasks[0].source.as_ref().unwrap_err().contains("not found"));
        assert_eq!(tasks[0].data_model, DataModel::Lp64);
    }

    #[test]
    fn non_c_language_is_rejected() {
        let text = "input_files: a.i\noptions:\n  language: Java\n";
        assert!(tasks_from_definition(Path::new("x/a.yml"), text)
            .unwrap_err()
            .contains("Java"));
    }

    #[test]
    fn fixture_cases_inline() {
        let text = "/* counter */\n// agx-verify: safe --unwind 3\n// agx-verify: violation assertion --strategy dpor\nint x;\n";
        let cases = parse_fixture_cases(text).unwrap();
        assert_eq!(
            cases,
            vec![
                FixtureCase {
                    expected: Some(true),
                    kind: None,
                    args: vec!["--unwind".into(), "3".into()]
                },
                FixtureCase {
                    expected: Some(false),
                    kind: Some("assertion".into()),
                    args: vec!["--strategy".into(), "dpor".into()]
                },
            ]
        );
        assert_eq!(
            parse_fixture_cases("int main() { return 0; }\n"),
            Ok(vec![])
        );
        // Directives start at column 0.
        assert_eq!(parse_fixture_cases("  // agx-verify: safe\n"), Ok(vec![]));
        let err = parse_fixture_cases("\n\n// agx-verify: maybe\n").unwrap_err();
        assert!(err.starts_with("line 3:"), "{err}");
    }

    #[test]
    fn fixture_cases_with_expect_lines() {
        let text = "// agx-run: --schedule 0,1\n// agx-expect: violation assertion\n\
            // agx-verify: --unwind 2\n// agx-expect: violation reach_error\n\
            // agx-verify:\n// agx-expect: ok\n\
            // agx-verify: --max-events 3\n// agx-expect: error\n\
            // agx-verify: --unwind 1\n// agx-expect: unknown\n";
        let cases = parse_fixture_cases(text).unwrap();
        let summary: Vec<_> = cases
            .iter()
            .map(|c| (c.expected, c.kind.as_deref(), c.args.join(" ")))
            .collect();
        assert_eq!(
            summary,
            vec![
                (Some(false), Some("reach_error"), "--unwind 2".to_string()),
                (Some(true), None, String::new()),
                (None, None, "--unwind 1".to_string()),
            ]
        );
        let missing = "// agx-verify: --unwind 2\n// agx-run:\n// agx-expect: ok\n";
        assert!(parse_fixture_cases(missing)
            .unwrap_err()
            .contains("without"));
    }

    #[test]
    fn fixture_tasks() {
        let text = "// agx-verify: violation --data-model lp64 --unwind 2\n";
        let tasks = tasks_from_fixture(Path::new("fixtures/verify/race.c"), text).unwrap();
        let task = &tasks[0];
        assert_eq!(task.id, "verify/race");
        assert_eq!(task.expected, Some(false));
        assert_eq!(task.data_model, DataModel::Lp64);
        assert_eq!(task.extra_args, vec!["--unwind", "2"]);
        assert_eq!(task.property, Property::UnreachCall);
        let text = "// agx-verify: safe --data-model=ilp32\n// agx-verify: violation deadlock\n";
        let tasks = tasks_from_fixture(Path::new("f/a.c"), text).unwrap();
        assert_eq!(tasks[0].id, "f/a#1");
        assert!(tasks[0].extra_args.is_empty());
        assert_eq!(
            tasks[1].property,
            Property::Other("violation-deadlock".into())
        );
    }
}
