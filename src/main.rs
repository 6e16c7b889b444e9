//! agx: finds concurrency bugs in multithreaded C programs.
//!
//! The binary is a thin CLI: it parses arguments into typed options, calls the library
//! crates (analysis → rules → explorer) and prints reports. Exit codes (`cmd::exit`): 0 no
//! violation, 1 violation found, 2 usage or input error, 3 unknown.

mod cmd;
mod driver;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "agx",
    version,
    about = "Finds concurrency bugs in multithreaded C programs",
    after_help = cmd::exit::help()
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the IR of a C program.
    Ir(cmd::ir::Args),
    /// Run a program concretely under a schedule and inputs.
    Run(cmd::run::Args),
    /// Search every input and schedule for assertion failures (symbolic execution).
    Verify(cmd::verify::Args),
    /// Run SV-COMP tasks and verify fixtures, score the verdicts, compare runs.
    Bench(cmd::bench::Args),
    /// Answer one SV-COMP task (`Result: TRUE|FALSE(unreach-call)|UNKNOWN`), with a witness.
    Svcomp(cmd::svcomp::Args),
    /// Write the facts of a program as Soufflé-compatible `.facts` files.
    Facts(cmd::facts::Args),
    /// List, run and time the Datalog rule sets.
    Rules(cmd::rules::Args),
    /// Backward slices, abstract systems and a ranking of target locations.
    Slice(cmd::slice::Args),
    /// Change impact: what changed lines may affect and what may affect them.
    Impact(cmd::impact::Args),
    /// Confirm or refute targets fast: abstraction-guided symbolic execution.
    Hunt(cmd::hunt::Args),
    /// agx's static warnings (data races, lock-order inversions, assertions) as SARIF.
    Warnings(cmd::warnings::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) to stdout.
    Completions {
        #[arg(value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) to stdout: `agx man > agx.1`.
    Man,
}

fn main() -> ExitCode {
    // A closed pipe on stdout (`agx ir big.c | head -1`) ends agx quietly, as it ends
    // other Unix tools: Rust starts with SIGPIPE ignored, which turns the write into an
    // error and every `println!` into a panic.
    // SAFETY: called before any thread starts; SIG_DFL is a valid disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Ir(args) => cmd::ir::run(args),
        Command::Run(args) => cmd::run::run(args),
        Command::Verify(args) => cmd::verify::run(args),
        Command::Bench(args) => cmd::bench::run(args),
        Command::Svcomp(args) => cmd::svcomp::run(args),
        Command::Facts(args) => cmd::facts::run(args),
        Command::Rules(args) => cmd::rules::run(args),
        Command::Slice(args) => cmd::slice::run(args),
        Command::Impact(args) => cmd::impact::run(args),
        Command::Hunt(args) => cmd::hunt::run(args),
        Command::Warnings(args) => cmd::warnings::run(args),
        Command::Completions { shell } => {
            let mut command = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut command, "agx", &mut std::io::stdout());
            Ok(ExitCode::SUCCESS)
        }
        Command::Man => {
            let command = <Cli as clap::CommandFactory>::command();
            man_page(command, &mut std::io::stdout())
                .map(|()| ExitCode::SUCCESS)
                .map_err(anyhow::Error::from)
        }
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(cmd::exit::ERROR)
        }
    }
}

/// The man page: clap_mangen's sections, with an EXIT STATUS section (man-pages(7)'s
/// name) from `cmd::exit::TABLE` in place of its generic EXTRA section.
fn man_page(command: clap::Command, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    use clap_mangen::roff::{bold, roman, Roff};
    let man = clap_mangen::Man::new(command);
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    man.render_subcommands_section(out)?;
    let mut exit = Roff::new();
    exit.control("SH", ["EXIT STATUS"]);
    for (code, meaning) in cmd::exit::TABLE {
        exit.control("TP", []);
        exit.text([bold(code.to_string())]);
        exit.text([roman(meaning)]);
    }
    exit.to_writer(out)?;
    man.render_version_section(out)
}
