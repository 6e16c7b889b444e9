//! Lowers every C file of the SV-COMP concurrency corpus (`../shared/svcomp`, data kept
//! outside the repository) with `agx ir`, under the data model its task `.yml` names, and
//! checks that agx never crashes: each file either lowers, or is rejected with
//! `FILE:LINE: unsupported: CONSTRUCT`, or with `FILE:LINE: syntax error ...`. Every file
//! gcc itself rejects (the corpus has some that are not valid C) must get a syntax error.
//!
//! Prints the counts (lowered / unsupported by construct / syntax errors); see them with
//! `cargo test --test corpus -- --nocapture`. When the corpus is absent the tests say so
//! on stderr in every run, and fail under `AGX_REQUIRE_CORPUS=1` (see `corpus_gate`).

mod common;
mod corpus_gate;

use analysis::ir::DataModel;
use common::{agx_bin, files_with_ext, process, project_root};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const LOWER_LIMIT: Duration = Duration::from_secs(120);

/// The corpus tests' precondition as a test of its own: its name says, in every test
/// listing, whether the corpus tests checked anything.
#[test]
fn svcomp_corpus_present_or_skipped() {
    if let Some(corpus) = corpus_gate::corpus_or_skip("svcomp_corpus_present_or_skipped") {
        let files = files_with_ext(&corpus, &["c", "i"]).len();
        assert!(files > 0, "no .c or .i file under {}", corpus.display());
    }
}

#[test]
fn svcomp_corpus_lowers_or_fails_cleanly() {
    let Some(corpus) = corpus_gate::corpus_or_skip("svcomp_corpus_lowers_or_fails_cleanly") else {
        return;
    };
    let models = task_data_models(&corpus);
    let mut tally = Tally::default();
    for file in files_with_ext(&corpus, &["c", "i"]) {
        let rel = file
            .strip_prefix(&corpus)
            .unwrap_or(&file)
            .display()
            .to_string();
        let gcc_rejects = !gcc_accepts(&file);
        let file_models = models
            .get(&stem_key(&file))
            .cloned()
            .unwrap_or_else(|| vec![DataModel::Ilp32]);
        for model in file_models {
            let outcome = lower(&file, model);
            tally.add(&rel, model, gcc_rejects, outcome);
        }
    }
    tally.print();
    assert!(
        tally.runs > 0,
        "no .c or .i file under {}",
        corpus.display()
    );
    assert!(
        tally.bad.is_empty(),
        "{} of {} corpus files did not lower or fail cleanly:\n  {}",
        tally.bad.len(),
        tally.runs,
        tally.bad.join("\n  ")
    );
}

/// What `agx ir` did with one file.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Lowered,
    Unsupported(String),
    Syntax,
    /// Anything else: a crash, a timeout, a message without `file:line`, a semantic error.
    Bad(String),
}

fn lower(file: &Path, model: DataModel) -> Outcome {
    let model_arg = match model {
        DataModel::Ilp32 => "ilp32",
        DataModel::Lp64 => "lp64",
    };
    let args = vec![
        "ir".to_string(),
        file.display().to_string(),
        "--data-model".to_string(),
        model_arg.to_string(),
    ];
    let run = process::run(&agx_bin(), &args, &project_root(), LOWER_LIMIT);
    match run.code {
        Some(0) => Outcome::Lowered,
        Some(2) => classify_error(&run.stderr),
        _ => Outcome::Bad(format!(
            "{}; stderr: {}",
            run.ending(),
            common::fixture::excerpt(&run.stderr)
        )),
    }
}

/// Reads agx's `error: FILE:LINE: MESSAGE` line.
fn classify_error(stderr: &str) -> Outcome {
    let Some(line) = stderr.lines().find_map(|l| l.strip_prefix("error: ")) else {
        return Outcome::Bad(format!("no `error:` line; stderr: {stderr:?}"));
    };
    let Some((location, message)) = split_location(line) else {
        return Outcome::Bad(format!("the error names no FILE:LINE: {line:?}"));
    };
    if let Some(construct) = message.strip_prefix("unsupported: ") {
        Outcome::Unsupported(construct_name(construct))
    } else if message.starts_with("syntax error") {
        Outcome::Syntax
    } else {
        Outcome::Bad(format!(
            "neither unsupported nor a syntax error at {location}: {message}"
        ))
    }
}

/// Splits `FILE:LINE: MESSAGE` where LINE is a positive number.
fn split_location(line: &str) -> Option<(&str, &str)> {
    // The file name may itself contain ": ", so try every split point from the left.
    line.match_indices(": ").find_map(|(at, _)| {
        let location = &line[..at];
        let (file, number) = location.rsplit_once(':')?;
        let number: u32 = number.parse().ok()?;
        (!file.is_empty() && number > 0).then_some((location, &line[at + 2..]))
    })
}

/// The construct's name without the details that make every message unique (names of
/// functions, quoted code), so that counts group alike failures.
fn construct_name(text: &str) -> String {
    let cut = text.find(['`', '\'', '"', '(']).unwrap_or(text.len());
    let name = text[..cut].trim_end_matches([' ', ':', ',']).trim();
    if name.is_empty() {
        text.to_string()
    } else {
        name.to_string()
    }
}

/// Counts of the outcomes, and the files that broke the rules.
#[derive(Default)]
struct Tally {
    runs: usize,
    lowered: usize,
    unsupported: BTreeMap<String, Vec<String>>,
    syntax: Vec<String>,
    /// Syntax errors on files that gcc accepts: gaps of the parser, listed, not failures.
    syntax_gcc_accepts: Vec<String>,
    bad: Vec<String>,
}

impl Tally {
    fn add(&mut self, rel: &str, model: DataModel, gcc_rejects: bool, outcome: Outcome) {
        self.runs += 1;
        let name = format!("{rel} ({model:?})");
        match outcome {
            Outcome::Syntax => {
                if !gcc_rejects {
                    self.syntax_gcc_accepts.push(name.clone());
                }
                self.syntax.push(name);
            }
            _ if gcc_rejects => self.bad.push(format!(
                "{name}: gcc rejects it, agx gave {outcome:?} instead of a syntax error"
            )),
            Outcome::Lowered => self.lowered += 1,
            Outcome::Unsupported(construct) => {
                self.unsupported.entry(construct).or_default().push(name)
            }
            Outcome::Bad(why) => self.bad.push(format!("{name}: {why}")),
        }
    }

    fn print(&self) {
        let unsupported: usize = self.unsupported.values().map(Vec::len).sum();
        println!(
            "svcomp corpus: {} runs: {} lowered, {} unsupported, {} syntax errors, {} bad",
            self.runs,
            self.lowered,
            unsupported,
            self.syntax.len(),
            self.bad.len()
        );
        let mut by_count: Vec<_> = self.unsupported.iter().collect();
        by_count.sort_by_key(|(construct, files)| (std::cmp::Reverse(files.len()), *construct));
        for (construct, files) in by_count {
            println!(
                "  unsupported: {construct}: {} (e.g. {})",
                files.len(),
                files[0]
            );
        }
        if !self.syntax_gcc_accepts.is_empty() {
            println!(
                "  syntax errors on files gcc accepts: {}",
                self.syntax_gcc_accepts.join(", ")
            );
        }
    }
}

/// True if `gcc -fsyntax-only` accepts the file (the corpus has files that are not C).
fn gcc_accepts(file: &Path) -> bool {
    Command::new("gcc")
        .args(["-fsyntax-only", "-w"])
        .arg(file)
        .output()
        .map(|o| o.status.success())
        .unwrap_or_else(|e| panic!("cannot run gcc: {e}"))
}

/// `dir/stem`: a task names its source as `stem.i` while the corpus may keep `stem.c`.
fn stem_key(file: &Path) -> PathBuf {
    file.with_extension("")
}

/// The data models each source is used with, from the tasks' `.yml`
/// (`input_files` and `options.data_model`).
fn task_data_models(corpus: &Path) -> BTreeMap<PathBuf, Vec<DataModel>> {
    let mut models: BTreeMap<PathBuf, Vec<DataModel>> = BTreeMap::new();
    for yml in files_with_ext(corpus, &["yml"]) {
        let Ok(text) = std::fs::read_to_string(&yml) else {
            continue;
        };
        let dir = yml.parent().unwrap_or(corpus);
        let model = yml_data_model(&text);
        for input in yml_input_files(&text) {
            let used = models.entry(stem_key(&dir.join(input))).or_default();
            if !used.contains(&model) {
                used.push(model);
            }
        }
    }
    models
}

/// `options.data_model` (ILP32 when absent, as SV-COMP's default).
fn yml_data_model(text: &str) -> DataModel {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("data_model:"))
        .and_then(|v| unquote(v).parse().ok())
        .unwrap_or(DataModel::Ilp32)
}

/// The `input_files` value: one file, or a list of `- file` lines.
fn yml_input_files(text: &str) -> Vec<String> {
    let mut lines = text.lines();
    let mut files = Vec::new();
    while let Some(line) = lines.next() {
        let Some(value) = line.strip_prefix("input_files:") else {
            continue;
        };
        let value = unquote(value);
        if !value.is_empty() {
            files.push(value.to_string());
            continue;
        }
        for item in lines.by_ref() {
            match item.trim().strip_prefix("- ") {
                Some(f) => files.push(unquote(f).to_string()),
                None => break,
            }
        }
    }
    files
}

fn unquote(v: &str) -> &str {
    v.trim().trim_matches(['\'', '"'])
}

#[test]
fn errors_are_classified_by_their_message() {
    let unsupported = "error: a/b.c:12: unsupported: inline assembly\n";
    assert_eq!(
        classify_error(unsupported),
        Outcome::Unsupported("inline assembly".into())
    );
    let syntax = "error: x.i:3: syntax error at column 4: unexpected input\n";
    assert_eq!(classify_error(syntax), Outcome::Syntax);
    for bad in [
        "error: x.c:0: unsupported: thing\n",
        "error: x.c: preprocessing with gcc -E failed\n",
        "error: x.c:4: error: undeclared `y`\n",
        "thread 'main' panicked\n",
    ] {
        assert!(matches!(classify_error(bad), Outcome::Bad(_)), "{bad}");
    }
}

#[test]
fn construct_names_drop_the_details() {
    assert_eq!(construct_name("call of `foo` through x"), "call of");
    assert_eq!(
        construct_name("variable-length array"),
        "variable-length array"
    );
    assert_eq!(construct_name("`asm`"), "`asm`");
}

#[test]
fn task_files_give_inputs_and_data_model() {
    let single = "format_version: '2.0'\ninput_files: 'bigshot_p.i'\noptions:\n  language: C\n  data_model: LP64\n";
    assert_eq!(yml_input_files(single), ["bigshot_p.i"]);
    assert_eq!(yml_data_model(single), DataModel::Lp64);
    let list = "input_files:\n  - 'a.c'\n  - b.c\nproperties:\n";
    assert_eq!(yml_input_files(list), ["a.c", "b.c"]);
    assert_eq!(yml_data_model(list), DataModel::Ilp32);
}
