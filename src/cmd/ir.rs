//! `agx ir FILE`: the IR as readable text (with source lines) or JSON.

use super::common::{source_line, InputArgs, TextOrJson};
use anyhow::Result;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    pub format: TextOrJson,
    /// Print sizes and front-end timings (parse, lower) instead of the IR.
    #[arg(long)]
    pub stats: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if args.stats {
        return stats(&args.input);
    }
    let program = args.input.load()?;
    if args.format == TextOrJson::Json {
        println!("{}", serde_json::to_string_pretty(&program)?);
    } else {
        print!("{}", analysis::ir::render_program(&program, &source_line));
    }
    Ok(ExitCode::SUCCESS)
}

fn stats(input: &InputArgs) -> Result<ExitCode> {
    let opts = input.options();
    let t0 = Instant::now();
    let unit = analysis::frontend::parse_file(&input.file, &opts)?;
    let t1 = Instant::now();
    let program = analysis::lower::lower(&unit, opts.data_model)?;
    let t2 = Instant::now();
    let blocks: usize = program.functions.iter().map(|f| f.blocks.len()).sum();
    let defined = program.functions.iter().filter(|f| f.is_defined()).count();
    println!("file:          {}", input.file.display());
    println!("source lines:  {}", unit.source.lines().count());
    println!(
        "functions:     {defined} defined, {} external",
        program.functions.len() - defined
    );
    println!("blocks:        {blocks}");
    println!("statements:    {}", program.stmt_count());
    println!("objects:       {}", program.objects.len());
    println!("preprocess+parse: {:.1} ms", ms(t1 - t0));
    println!("lower:            {:.1} ms", ms(t2 - t1));
    Ok(ExitCode::SUCCESS)
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
