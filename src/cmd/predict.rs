//! `agx predict FILE --trace T.json [--context-bound K]`: symbolic predictive analysis of
//! an observed trace (`explorer::predict`). Exit codes (`cmd::exit`): 1 a violation
//! (predicted and replayed, or already in the observed run), 0 none in any interleaving
//! of the trace, 3 none within the given context bound or not realizable, 2 error.

use super::common::InputArgs;
use super::exit::Answer;
use anyhow::{Context, Result};
use explorer::predict::{self, ObservedTrace, PredictOptions, Prediction};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub program: InputArgs,
    /// The observed trace (`agx run --save-trace T.json`).
    #[arg(long, value_name = "T.json")]
    pub trace: PathBuf,
    /// Check interleavings with at most K context switches up to the failure; without
    /// it, K grows 1, 2, 3, ... until a violation, or an unsat core without the bound.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(0..=1_000_000))]
    pub context_bound: Option<u32>,
    /// Give up after SECS seconds (exit 3, UNKNOWN naming the time budget). Default: no
    /// limit (a long trace's encoding grows with the square of its lock sections).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<super::common::Seconds>,
    /// Write the witness of a predicted violation to FILE.
    #[arg(long, value_name = "FILE")]
    pub save_witness: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let program = args.program.load()?;
    let text = std::fs::read_to_string(&args.trace)
        .with_context(|| format!("reading {}", args.trace.display()))?;
    let trace: ObservedTrace = serde_json::from_str(&text)
        .with_context(|| format!("{}: not an agx trace", args.trace.display()))?;
    let options = PredictOptions {
        context_bound: args.context_bound,
        deadline: args
            .timeout
            .map(|t| std::time::Instant::now() + t.duration()),
    };
    let prediction = match predict::predict(&program, &trace, &options) {
        Ok(p) => p,
        Err(predict::PredictError::Deadline) => {
            let secs = args.timeout.map_or(0.0, |t| t.get());
            println!("UNKNOWN: the time budget of {secs} s ran out before the prediction finished");
            return Ok(Answer::Unknown.into());
        }
        Err(e) => {
            return Err(e).with_context(|| format!("predicting from {}", args.trace.display()))
        }
    };
    let (text, code) = report(&prediction);
    print!("{text}");
    if let (Prediction::Predicted { witness, .. }, Some(path)) = (&prediction, &args.save_witness) {
        let json = serde_json::to_string_pretty(witness)?;
        std::fs::write(path, json + "\n").with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(code.into())
}

fn report(prediction: &Prediction) -> (String, Answer) {
    match prediction {
        Prediction::Observed { location, failure } => (
            format!("VIOLATION (observed): {failure} at {location}: the trace itself fails\n"),
            Answer::Violation,
        ),
        Prediction::Predicted {
            location,
            failure,
            context_bound,
            witness,
        } => {
            let schedule: Vec<String> = witness.schedule.iter().map(|t| t.to_string()).collect();
            let json = serde_json::to_string(witness).expect("a witness serializes");
            (
                format!(
                    "PREDICTED: {failure} at {location}, in an interleaving of the trace with at \
                     most {context_bound} context switch(es); the witness replays on the program\n  \
                     schedule: {}\n  witness: {json}\n",
                    schedule.join(",")
                ),
                Answer::Violation,
            )
        }
        Prediction::NotRealizable {
            location,
            context_bound,
            reason,
            ..
        } => (
            format!(
                "NOT REALIZABLE: the trace program fails at {location} (context bound \
                 {context_bound}), but the interleaving leaves it in the whole program: \
                 {reason}; no violation reported\n"
            ),
            Answer::Unknown,
        ),
        Prediction::NoViolation {
            bound: Some(k),
            properties,
        } => (
            format!(
                "NO VIOLATION within context bound {k}: no interleaving of the trace with at most \
                 {k} context switch(es) fails any of its {properties} assertion(s)\n"
            ),
            Answer::Unknown,
        ),
        Prediction::NoViolation {
            bound: None,
            properties,
        } => (
            format!(
                "NO VIOLATION in any interleaving of the trace (every context bound): none of \
                 its {properties} assertion(s) fails\n"
            ),
            Answer::NoViolation,
        ),
    }
}
