//! `agx facts FILE -o DIR`: the input relations of the rule sets, one Soufflé-compatible
//! `<relation>.facts` TSV per relation plus `schema.dl`.

use super::common::InputArgs;
use anyhow::{Context, Result};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: InputArgs,
    /// Directory to write the `.facts` files to (created if missing).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: PathBuf,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let program = args.input.load()?;
    let facts = analysis::facts::extract(&program);
    analysis::facts::write_dir(&facts, &args.output)
        .with_context(|| format!("writing facts to {}", args.output.display()))?;
    let sizes = facts.sizes();
    let tuples: usize = sizes.iter().map(|s| s.1).sum();
    eprintln!(
        "wrote {} relations ({tuples} tuples) and schema.dl to {}",
        sizes.len(),
        args.output.display()
    );
    Ok(ExitCode::SUCCESS)
}
