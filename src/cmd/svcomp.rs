//! `agx svcomp --property FILE.prp TASK`: one SV-COMP task, answered the way SV-COMP
//! verifiers answer, so that BenchExec-style runners can call agx.
//!
//! Runs `agx verify` on the task's source in a child process (the same contract and limits
//! as `agx bench`) and prints, as the last line of stdout, one of
//! `Result: TRUE`, `Result: FALSE(unreach-call)`, `Result: UNKNOWN`; why there is no
//! verdict goes to stderr. For FALSE, `--witness-out FILE` writes a YAML violation
//! witness: format 2.0 with the concurrency extension's `thread_id` on every waypoint,
//! hence `format_version: '2.2'` (see `bench::witness` for the exact shape).
//!
//! Exit codes (`cmd::exit`): 0 TRUE, 1 FALSE, 3 UNKNOWN, 2 when agx verify failed (the
//! line is then `Result: UNKNOWN`) or the witness could not be written.

use super::bench::MIN_MEMORY_MIB;
use super::common::Seconds;
use super::exit::{self, Answer};
use analysis::ir::DataModel;
use anyhow::{anyhow, bail, Context, Result};
use bench::child::{self, End, Limits};
use bench::task::{resolve_source, Definition, Property};
use bench::verify::{self, data_model_flag, Status, VerifyCall};
use bench::witness::{self, WitnessTask};
use explorer::symbolic::Strategy;
use serde_json::Value;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

/// The format tag of agx's own replayable witness (`explorer::concrete::Witness`).
const AGX_WITNESS: &str = "agx-witness";

#[derive(clap::Args)]
#[command(after_help = "\
Prints `Result: TRUE`, `Result: FALSE(unreach-call)`, `Result: FALSE(no-data-race)` or \
`Result: UNKNOWN` as the last line of stdout. Supported properties: unreach-call (CHECK( init(main()), LTL(G ! call(reach_error())) )) \
and no-data-race (CHECK( init(main()), LTL(G ! data-race) ), checked by `agx verify --check race \
--no-assertions`); others answer UNKNOWN. Witness: YAML violation witness, format 2.0 with the concurrency \
extension's `thread_id` on every waypoint (format_version '2.2'; 0 = main, then creation order): \
one segment per step of the schedule in the input file (an `assumption` waypoint at the start \
of the statement), a `function_return` waypoint (`\\result == v`, acsl_expression) at the `)` \
of each __VERIFIER_nondet_* call, and a final `target` waypoint at the violation (its call site \
in the input file when it happens in a header).\n\
Exit code: 0 TRUE, 1 FALSE(...), 3 UNKNOWN, 2 error (agx's one rule, `agx --help`).")]
pub struct Args {
    /// The SV-COMP property file.
    #[arg(long, value_name = "FILE.prp")]
    pub property: PathBuf,
    /// The task: an SV-COMP task definition (`.yml`) or a C source (`.c`, `.i`).
    #[arg(value_name = "TASK")]
    pub task: PathBuf,
    /// Data model; default: the definition's, ILP32 for a source or a definition without one.
    #[arg(long, value_name = "ilp32|lp64")]
    pub data_model: Option<DataModel>,
    /// Exploration strategy (verify's default when absent).
    #[arg(long, value_name = "baseline|dpor|dpor+ag")]
    pub strategy: Option<Strategy>,
    /// Time limit in seconds: more than 0, at most 1000000, fractions allowed.
    #[arg(long, default_value = "900", value_name = "SECS")]
    pub timeout: Seconds,
    /// Memory (address-space) limit in MiB: 0 for none (runners usually enforce their own),
    /// else at least 256.
    #[arg(long, default_value_t = 0, value_name = "MIB")]
    pub memory: u64,
    /// Where to write the YAML violation witness when the result is FALSE.
    #[arg(long, value_name = "FILE")]
    pub witness_out: Option<PathBuf>,
    /// The program run as `PROGRAM verify ...` (default: this agx). For tests.
    #[arg(long, hide = true, value_name = "PROGRAM")]
    pub agx_command: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let specification = std::fs::read_to_string(&args.property)
        .with_context(|| format!("reading {}", args.property.display()))?;
    let property = Property::from_text(&specification).unwrap_or_else(|| {
        Property::Other(args.property.file_stem().map_or_else(
            || args.property.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        ))
    });
    if args.memory != 0 && args.memory < MIN_MEMORY_MIB && args.agx_command.is_none() {
        bail!(
            "--memory {} MiB is below the minimum of {MIN_MEMORY_MIB} MiB; 0 means no limit",
            args.memory
        );
    }
    let (source, task_data_model) = source_of(&args.task)?;
    let data_model = args.data_model.unwrap_or(task_data_model);
    if !property.is_checked() {
        eprintln!("agx: property {property} is not supported");
        println!("Result: UNKNOWN");
        return Ok(Answer::Unknown.into());
    }
    let extra_args: Vec<String> = property
        .verify_args()
        .iter()
        .map(|a| a.to_string())
        .collect();
    let call = VerifyCall {
        source: &source,
        data_model,
        strategy: args.strategy.map(Strategy::name),
        timeout_secs: args.timeout.get(),
        extra_args: &extra_args,
    };
    let program = match &args.agx_command {
        Some(p) => p.clone().into_os_string(),
        None => std::env::current_exe()
            .context("locating the agx executable")?
            .into_os_string(),
    };
    let memory_bytes = (args.memory > 0).then(|| args.memory.saturating_mul(1 << 20));
    let limit = args.timeout.duration();
    let limits = Limits {
        wall: limit + Duration::from_secs(2) + limit / 10,
        memory_bytes,
    };
    let finished = child::run(call.command(&program), limits)
        .with_context(|| format!("running {}", program.to_string_lossy()))?;
    let replay = Replay {
        program: &program,
        source: &source,
        data_model,
        limits,
    };
    eprint!("{}", finished.stderr);
    let judged = verify::judge(&finished, memory_bytes);
    let reason = judged.reason.clone().unwrap_or_default();
    match judged.status {
        Status::False => {
            let written = args
                .witness_out
                .as_deref()
                .map(|path| write_witness(path, &replay, &specification, &judged));
            println!("Result: FALSE({})", property.name());
            if let Some(Err(e)) = written {
                eprintln!("error: witness not written: {e:#}");
                return Ok(ExitCode::from(exit::ERROR));
            }
            Ok(Answer::Violation.into())
        }
        Status::True => {
            println!("Result: TRUE");
            Ok(Answer::NoViolation.into())
        }
        Status::Error => {
            eprintln!("agx: agx verify failed: {reason}");
            println!("Result: UNKNOWN");
            Ok(ExitCode::from(exit::ERROR))
        }
        other => {
            eprintln!("agx: {}: {reason}", other.label());
            println!("Result: UNKNOWN");
            Ok(Answer::Unknown.into())
        }
    }
}

/// The source and data model of a task given as a definition or as a source.
fn source_of(task: &Path) -> Result<(PathBuf, DataModel)> {
    let is_definition = task.extension().is_some_and(|e| e == "yml" || e == "yaml");
    if !is_definition {
        if !task.is_file() {
            return Err(anyhow!("{}: no such file", task.display()));
        }
        return Ok((task.to_path_buf(), DataModel::Ilp32));
    }
    let text =
        std::fs::read_to_string(task).with_context(|| format!("reading {}", task.display()))?;
    let at = |e: String| anyhow!("{}: {e}", task.display());
    let definition = Definition::parse(&text).map_err(at)?;
    let dir = task.parent().unwrap_or(Path::new("."));
    let name = definition.input_file().map_err(at)?;
    let source = resolve_source(dir, name, Path::exists).map_err(at)?;
    Ok((source, definition.data_model().map_err(at)?))
}

/// How to replay verify's witness with `agx run` (for the step locations).
struct Replay<'a> {
    program: &'a OsStr,
    source: &'a Path,
    data_model: DataModel,
    limits: Limits,
}

impl Replay<'_> {
    /// The JSON execution of `agx run SOURCE --witness W --format json --trace`.
    fn execution(&self, witness: &Value) -> Result<Value> {
        let file = tempfile::Builder::new()
            .prefix("agx-svcomp-witness-")
            .suffix(".json")
            .tempfile()
            .context("creating a temporary file for the witness")?;
        std::fs::write(file.path(), serde_json::to_string(witness)?)
            .with_context(|| format!("writing {}", file.path().display()))?;
        let mut command = Command::new(self.program);
        command
            .arg("run")
            .arg(self.source)
            .args([
                "--data-model",
                data_model_flag(self.data_model),
                "--witness",
            ])
            .arg(file.path())
            .args(["--format", "json", "--trace"]);
        let finished = child::run(command, self.limits);
        drop(file);
        let finished = finished.context("replaying the witness with agx run")?;
        if finished.end != End::Exited(1) {
            bail!(
                "the witness does not replay to a violation ({:?}): {}",
                finished.end,
                finished.stderr.trim()
            );
        }
        serde_json::from_str(&finished.stdout).context("agx run's JSON")
    }
}

/// Writes the YAML witness of verify's violation.
fn write_witness(
    path: &Path,
    replay: &Replay<'_>,
    specification: &str,
    judged: &verify::Judged,
) -> Result<()> {
    let output = judged
        .output
        .as_ref()
        .ok_or_else(|| anyhow!("verify gave no output"))?;
    let violation = output
        .violation
        .as_ref()
        .ok_or_else(|| anyhow!("verify's output has no `violation`"))?;
    let steps = output
        .witness
        .as_ref()
        .ok_or_else(|| anyhow!("verify's output has no `witness`"))?;
    let (violation, steps) = if steps.get("format").and_then(Value::as_str) == Some(AGX_WITNESS) {
        witness::from_execution(&replay.execution(steps)?, replay.source)?
    } else {
        (violation.clone(), steps.clone())
    };
    let task = WitnessTask {
        input_file: replay.source,
        specification,
        data_model: match replay.data_model {
            DataModel::Ilp32 => "ILP32",
            DataModel::Lp64 => "LP64",
        },
    };
    let yaml = witness::violation_witness(&task, &violation, &steps)?;
    std::fs::write(path, yaml).with_context(|| format!("writing {}", path.display()))
}
