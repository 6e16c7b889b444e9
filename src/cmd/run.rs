//! `agx run FILE`: concrete execution under a schedule and inputs.

use super::common::InputArgs;
use anyhow::Result;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: InputArgs,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let _program = args.input.load()?;
    anyhow::bail!("agx run: the reference interpreter is not wired yet")
}
