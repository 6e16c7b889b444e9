//! The reference interpreter on C programs lowered by the front end.
//!
//! - Thread fixtures (`fixtures/conc`, `fixtures/interp`) under random schedules and random
//!   inputs: a run is a function of its configuration, and the witness of every run
//!   replays to the same outcome, trace and output.
//! - The SV-COMP concurrency corpus (`../shared/svcomp`, skipped when absent): no runtime
//!   error other than "unsupported", and no assertion or `reach_error` violation on a task
//!   whose expected verdict for `unreach-call` is `true`.

use analysis::ir::{DataModel, Program};
use analysis::{load_program, FrontendOptions};
use explorer::concrete::{
    replay, run, InputPolicy, RunConfig, RunOutcome, RuntimeError, SchedulePolicy, ViolationKind,
    Witness,
};
use std::path::{Path, PathBuf};

fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The `.c` files directly under `dir`, sorted.
fn c_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "c"));
    files.sort();
    files
}

fn load(path: &Path, data_model: DataModel) -> Option<Program> {
    let options = FrontendOptions {
        data_model,
        ..FrontendOptions::default()
    };
    load_program(path, &options).ok()
}

fn random_config(seed: u64, max_statements: u64) -> RunConfig {
    let mut config = RunConfig::default();
    config.schedule = SchedulePolicy::Random { seed };
    config.inputs = InputPolicy::random(seed);
    config.max_statements = max_statements;
    config
}

#[test]
fn random_runs_of_thread_fixtures_are_deterministic_and_their_witnesses_replay() {
    let root = project_root().join("fixtures");
    let mut runs = 0;
    for path in [c_files(&root.join("conc")), c_files(&root.join("interp"))].concat() {
        let Some(program) = load(&path, DataModel::Ilp32) else {
            continue;
        };
        let name = path.display().to_string();
        for seed in 0..12 {
            let config = random_config(seed, 1_000_000);
            let first = run(&program, &config);
            let second = run(&program, &config);
            assert_eq!(first, second, "{name} seed {seed}: two runs differ");
            let Ok(execution) = first else { continue };
            let witness = Witness::from_execution(&name, &program, &config, &execution);
            let replayed = replay(&program, &witness)
                .unwrap_or_else(|e| panic!("{name} seed {seed}: replay failed: {e}"));
            assert_eq!(replayed.outcome, execution.outcome, "{name} seed {seed}");
            assert_eq!(replayed.trace, execution.trace, "{name} seed {seed}");
            assert_eq!(replayed.output, execution.output, "{name} seed {seed}");
            runs += 1;
        }
    }
    assert!(runs > 100, "only {runs} runs: are the fixtures there?");
}

/// One row of the corpus index: the task's file, whether `unreach-call` is expected to
/// hold, and its data model.
struct Task {
    file: PathBuf,
    unreachable_error: bool,
    data_model: DataModel,
}

fn corpus_tasks(corpus: &Path) -> Vec<Task> {
    let Ok(index) = std::fs::read_to_string(corpus.join("INDEX.tsv")) else {
        return Vec::new();
    };
    let mut tasks = Vec::new();
    for line in index.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let [folder, stem, source, property, verdict, ..] = cols[..] else {
            continue;
        };
        if property != "unreach-call" {
            continue;
        }
        let yml = std::fs::read_to_string(corpus.join(folder).join(format!("{stem}.yml")));
        let data_model = if yml.is_ok_and(|y| y.contains("LP64")) {
            DataModel::Lp64
        } else {
            DataModel::Ilp32
        };
        tasks.push(Task {
            file: corpus.join(folder).join(source),
            unreachable_error: verdict == "true",
            data_model,
        });
    }
    tasks
}

/// A skip written past the test harness's capture (so every `cargo test` shows it), or a
/// failure when `AGX_REQUIRE_CORPUS=1` (CI): a corpus test must not pass on nothing.
fn skip_without_corpus(test: &str, corpus: &std::path::Path) {
    let required = std::env::var("AGX_REQUIRE_CORPUS").is_ok_and(|v| !v.is_empty() && v != "0");
    assert!(
        !required,
        "{test}: no SV-COMP corpus at {} and AGX_REQUIRE_CORPUS is set",
        corpus.display()
    );
    let _ = std::io::Write::write_all(
        &mut std::io::stderr(),
        format!(
            "SKIPPED {test}: no SV-COMP corpus at {} (checked nothing; AGX_REQUIRE_CORPUS=1 \
             makes that a failure)\n",
            corpus.display()
        )
        .as_bytes(),
    );
}

#[test]
fn the_svcomp_corpus_runs_without_internal_errors_or_false_alarms() {
    let corpus = project_root().join("../shared/svcomp");
    let tasks = corpus_tasks(&corpus);
    if tasks.is_empty() {
        skip_without_corpus(
            "the_svcomp_corpus_runs_without_internal_errors_or_false_alarms",
            &corpus,
        );
        return;
    }
    let (mut runs, mut unsupported) = (0, 0);
    for task in &tasks {
        let Some(program) = load(&task.file, task.data_model) else {
            continue;
        };
        let name = task.file.display();
        let mut configs = vec![RunConfig::default()];
        configs.extend((0..3).map(|seed| random_config(seed, 300_000)));
        for mut config in configs {
            config.max_statements = config.max_statements.min(300_000);
            config.record_trace = false;
            match run(&program, &config) {
                Ok(execution) => {
                    runs += 1;
                    if let RunOutcome::Violation(v) = &execution.outcome {
                        let property =
                            matches!(v.kind, ViolationKind::Assertion | ViolationKind::ReachError);
                        assert!(
                            !(property && task.unreachable_error),
                            "{name}: {} at {} although the task's error is unreachable",
                            v.message,
                            v.location
                        );
                    }
                }
                Err(RuntimeError::Unsupported { .. }) => unsupported += 1,
                Err(e) => panic!("{name}: {e}"),
            }
        }
    }
    println!("corpus: {runs} runs, {unsupported} stopped at unsupported behaviour");
    assert!(runs > 0);
}
