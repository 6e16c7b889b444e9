//! `agx ir FILE`: the IR as readable text (with source lines) or JSON.

use super::common::{source_line, InputArgs};
use anyhow::Result;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format.
    #[arg(long, default_value = "text", value_parser = ["text", "json"])]
    pub format: String,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let program = args.input.load()?;
    if args.format == "json" {
        println!("{}", serde_json::to_string_pretty(&program)?);
    } else {
        print!("{}", analysis::ir::render_program(&program, &source_line));
    }
    Ok(ExitCode::SUCCESS)
}
