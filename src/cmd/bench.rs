//! `agx bench PATH...`: runs SV-COMP tasks and verify fixtures, scores, reports, compares.
//!
//! Exit code: 0 when no verdict is wrong, 1 when some verdict is wrong (so CI can fail
//! on it), 2 on an error of the bench itself (no tasks, unwritable output, ...).

use crate::bench::results::{Results, Settings, SCHEMA, SCHEMA_VERSION};
use crate::bench::run::{self, strategy_label, Plan};
use crate::bench::{compare, report, task};
use anyhow::{bail, Context, Result};
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

#[derive(clap::Args)]
#[command(after_help = "\
Each task runs as a child `agx verify SOURCE --format json --data-model M --timeout T` under \
the time and memory limits. Statuses: TRUE, FALSE, UNKNOWN, ERROR, TIMEOUT, OUT OF MEMORY, \
UNSUPPORTED (construct), NOT SUPPORTED (property; not run). SV-COMP score: +2 correct TRUE, \
+1 correct FALSE, -32 wrong TRUE, -16 wrong FALSE.\n\
Exit code: 0 no wrong verdict, 1 some wrong verdict, 2 error.")]
pub struct Args {
    /// Directories (searched recursively) or files: SV-COMP task definitions (`.yml`) and C
    /// fixtures with `// agx-verify:` directives.
    #[arg(value_name = "PATH", required_unless_present = "compare")]
    pub paths: Vec<PathBuf>,
    /// Tasks run in parallel.
    #[arg(long, short = 'j', default_value_t = 1, value_name = "N")]
    pub jobs: usize,
    /// Time limit per task in seconds.
    #[arg(long, default_value_t = 60, value_name = "SECS")]
    pub timeout: u64,
    /// Memory (address-space) limit per task in MiB; 0 for none.
    #[arg(long, default_value_t = 4096, value_name = "MIB")]
    pub memory: u64,
    /// Strategy to run (repeat, or separate with commas, to run several side by side);
    /// verify's default when absent.
    #[arg(long = "strategy", value_name = "S", value_delimiter = ',')]
    pub strategies: Vec<String>,
    /// Write one JSON record per task (schema `agx-bench-results`, version 1).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Write one CSV row per task.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Only the wrong verdicts and the summary tables, not one row per task.
    #[arg(long)]
    pub summary: bool,
    /// Compare two results files instead of running: verdicts gained and lost, ratios of
    /// runs and time per task, medians.
    #[arg(long, num_args = 2, value_names = ["OLD", "NEW"], conflicts_with_all = ["paths", "out", "csv"])]
    pub compare: Option<Vec<PathBuf>>,
    /// The program run as `PROGRAM verify ...` (default: this agx). For tests of the
    /// harness.
    #[arg(long, hide = true, value_name = "PROGRAM")]
    pub agx_command: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if let Some(files) = &args.compare {
        return run_compare(&files[0], &files[1]);
    }
    if args.jobs == 0 {
        bail!("--jobs must be at least 1");
    }
    if args.timeout == 0 {
        bail!("--timeout must be at least 1 second");
    }
    let discovery = task::discover(&args.paths);
    for problem in &discovery.problems {
        eprintln!("warning: {problem}");
    }
    if discovery.tasks.is_empty() {
        bail!(
            "no tasks (.yml definitions or fixtures with `// agx-verify:`) under {}",
            args.paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let plan = plan(&args)?;
    let created_unix_s = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let records = run::run_all(&discovery.tasks, &plan);
    let results = Results {
        schema: SCHEMA.to_string(),
        schema_version: SCHEMA_VERSION,
        agx_version: env!("CARGO_PKG_VERSION").to_string(),
        created_unix_s,
        settings: Settings {
            timeout_s: args.timeout,
            memory_mb: (args.memory > 0).then_some(args.memory),
            jobs: args.jobs,
            strategies: plan.strategies.iter().map(strategy_label).collect(),
        },
        records,
    };
    if let Some(path) = &args.out {
        write_file(path, &results.to_json()?)?;
    }
    if let Some(path) = &args.csv {
        write_file(path, &results.to_csv())?;
    }
    print_stdout(&report::render(
        &results,
        &discovery.problems,
        !args.summary,
    ))?;
    let wrong = results.records.iter().any(|r| r.outcome.is_wrong());
    Ok(if wrong {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn plan(args: &Args) -> Result<Plan> {
    let program: OsString = match &args.agx_command {
        Some(program) => program.clone().into_os_string(),
        None => std::env::current_exe()
            .context("locating the agx executable")?
            .into_os_string(),
    };
    let mut strategies: Vec<Option<String>> = Vec::new();
    for s in &args.strategies {
        let s = s.trim();
        if s.is_empty() {
            bail!("empty --strategy");
        }
        if !strategies.contains(&Some(s.to_string())) {
            strategies.push(Some(s.to_string()));
        }
    }
    if strategies.is_empty() {
        strategies.push(None);
    }
    Ok(Plan {
        program,
        timeout_secs: args.timeout,
        memory_bytes: (args.memory > 0).then(|| args.memory.saturating_mul(1 << 20)),
        jobs: args.jobs,
        strategies,
    })
}

fn run_compare(old: &Path, new: &Path) -> Result<ExitCode> {
    let old_results = Results::load(old)?;
    let new_results = Results::load(new)?;
    let comparison = compare::compare(&old_results, &new_results);
    print_stdout(&format!(
        "COMPARE {} -> {}\n\n{}",
        old.display(),
        new.display(),
        compare::render(&comparison)
    ))?;
    let wrong = new_results.records.iter().any(|r| r.outcome.is_wrong());
    Ok(if wrong {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn write_file(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

/// Prints to stdout; a closed pipe (`agx bench ... | head`) is not an error.
fn print_stdout(text: &str) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}
