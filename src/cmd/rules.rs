//! `agx rules`: list the rule sets, run them on a program or a facts directory and print
//! relation sizes and times, or time them over several runs.

use super::common::InputArgs;
use analysis::facts::{Facts, StmtId};
use anyhow::{bail, Context, Result};
use rules::{Analysis, DatalogEngine, Timing, RULE_SETS};
use std::collections::BTreeSet;
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: RulesCommand,
}

#[derive(clap::Subcommand)]
pub enum RulesCommand {
    /// List the rule sets.
    List,
    /// Run the rule sets once and print each one's relation sizes and time.
    Run(RunArgs),
    /// Run the rule sets several times and print the fastest and median time of each.
    Time(TimeArgs),
    /// Evaluate user rules (Soufflé syntax subset) over the facts of a program.
    Eval(super::user_rules::EvalArgs),
    /// Print the tuples of a fact or built-in relation, with source lines.
    Print(super::user_rules::PrintArgs),
}

#[derive(clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Only show these rule sets (all run anyway, since later ones need earlier results).
    #[arg(long = "rule-set", value_name = "NAME")]
    pub rule_sets: Vec<String>,
    /// Engine for the rule sets that have a crepe twin.
    #[arg(long, value_enum, default_value_t = EngineChoice::Ascent)]
    pub engine: EngineChoice,
    /// Run both engines and check that they agree (exit 1 if not).
    #[arg(long)]
    pub compare: bool,
}

#[derive(clap::Args)]
pub struct TimeArgs {
    #[command(flatten)]
    pub run: RunArgs,
    /// How many runs.
    #[arg(long, default_value_t = 5)]
    pub repeat: usize,
    /// Leave out the interpreted `.dl` rule sets (rules/dl/) beside the compiled ones.
    #[arg(long)]
    pub no_interpreted: bool,
}

/// Reads facts from a facts directory (written by `agx facts`) or from a C program.
pub fn load_facts(input: &InputArgs) -> Result<Facts> {
    if input.file.is_dir() {
        return analysis::facts::load_dir(&input.file)
            .with_context(|| format!("reading facts from {}", input.file.display()));
    }
    let program = input.load()?;
    Ok(analysis::facts::extract(&program))
}

/// `--engine`: which Datalog engine runs the rule sets that have a crepe twin.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineChoice {
    Ascent,
    Crepe,
}

fn engine(choice: EngineChoice) -> DatalogEngine {
    match choice {
        EngineChoice::Ascent => DatalogEngine::Ascent,
        EngineChoice::Crepe => DatalogEngine::Crepe,
    }
}

fn check_names(names: &[String]) -> Result<()> {
    for n in names {
        if !RULE_SETS.iter().any(|r| r.name == n) {
            let known: Vec<_> = RULE_SETS.iter().map(|r| r.name).collect();
            bail!("unknown rule set `{n}` (known: {})", known.join(", "));
        }
    }
    Ok(())
}

/// Runs every rule set, the target-dependent ones on every error site.
fn analyze(facts: &Facts, engine: DatalogEngine) -> (Analysis, Vec<StmtId>) {
    let targets: Vec<StmtId> = facts.error_site.iter().map(|e| e.0).collect();
    let mut analysis = Analysis::run_with(facts, engine);
    analysis.time_target_rule_sets(facts, &targets);
    (analysis, targets)
}

pub fn run(args: Args) -> Result<ExitCode> {
    match args.command {
        RulesCommand::List => {
            for r in RULE_SETS {
                let twin = if r.crepe {
                    " [ascent, crepe]"
                } else {
                    " [ascent]"
                };
                let dl = rules::dl::SHIPPED
                    .iter()
                    .find(|s| s.0 == r.name)
                    .map(|s| format!(" rules/dl/{}", s.1))
                    .unwrap_or_default();
                println!("{:<16} {}{twin}{dl}", r.name, r.summary);
                for b in rules::dl::builtin::BUILTINS
                    .iter()
                    .filter(|b| b.rule_set == r.name)
                {
                    let cols: Vec<String> = b
                        .columns
                        .iter()
                        .map(|(n, t)| {
                            format!("{n}: {}", if *t == 'n' { "number" } else { "symbol" })
                        })
                        .collect();
                    println!("    {}({})  {}", b.name, cols.join(", "), b.doc);
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        RulesCommand::Eval(a) => super::user_rules::eval(a),
        RulesCommand::Print(a) => super::user_rules::print(a),
        RulesCommand::Run(a) => run_once(a),
        RulesCommand::Time(a) => time(a),
    }
}

fn shown<'a>(t: &'a Timing, filter: &'a [String]) -> bool {
    filter.is_empty() || filter.iter().any(|n| n == t.rule_set)
}

fn run_once(args: RunArgs) -> Result<ExitCode> {
    check_names(&args.rule_sets)?;
    let facts = load_facts(&args.input)?;
    let (analysis, targets) = analyze(&facts, engine(args.engine));
    println!("{} error sites as targets", targets.len());
    for t in analysis
        .timings
        .iter()
        .filter(|t| shown(t, &args.rule_sets))
    {
        let sizes: Vec<String> = t.sizes.iter().map(|(n, s)| format!("{n}={s}")).collect();
        println!(
            "{:<16} {:<6} {:>9.3} ms  {}",
            t.rule_set,
            t.engine.name(),
            t.duration.as_secs_f64() * 1e3,
            sizes.join(" ")
        );
    }
    let total: Duration = analysis.timings.iter().map(|t| t.duration).sum();
    println!("total {:.3} ms", total.as_secs_f64() * 1e3);
    if args.compare {
        return compare(&facts, &analysis, &targets);
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs the crepe twins and checks they agree with ascent.
fn compare(facts: &Facts, ascent: &Analysis, targets: &[StmtId]) -> Result<ExitCode> {
    let crepe = Analysis::run_with(facts, DatalogEngine::Crepe);
    let mut disagreements = Vec::new();
    let pts_a = &ascent.points_to;
    let pts_c = &crepe.points_to;
    if pts_a.var_points_to != pts_c.var_points_to || pts_a.cell_points_to != pts_c.cell_points_to {
        disagreements.push("points-to: pt/cpt differ".to_string());
    }
    if pts_a.call_edges != pts_c.call_edges || pts_a.thread_edges != pts_c.thread_edges {
        disagreements.push("points-to: call graph differs".to_string());
    }
    let mut checked = 0;
    for dir in [rules::Direction::Backward, rules::Direction::Forward] {
        let all_a: BTreeSet<StmtId> = ascent.slice(targets, dir);
        let all_c = crepe.slice(targets, dir);
        checked += 1;
        if all_a != all_c {
            disagreements.push(format!("slice {dir:?} of all targets differs"));
        }
        for &t in targets {
            checked += 1;
            if ascent.slice(&[t], dir) != crepe.slice(&[t], dir) {
                disagreements.push(format!("slice {dir:?} of {t} differs"));
            }
        }
    }
    if disagreements.is_empty() {
        println!("compare: ascent and crepe agree (points-to, call graph, {checked} slices)");
        Ok(ExitCode::SUCCESS)
    } else {
        for d in &disagreements {
            println!("compare: {d}");
        }
        Ok(ExitCode::from(1))
    }
}

fn time(args: TimeArgs) -> Result<ExitCode> {
    check_names(&args.run.rule_sets)?;
    if args.repeat == 0 {
        bail!("--repeat must be at least 1");
    }
    let facts = load_facts(&args.run.input)?;
    let mut runs: Vec<Vec<Timing>> = Vec::new();
    for _ in 0..args.repeat {
        runs.push(analyze(&facts, engine(args.run.engine)).0.timings);
    }
    println!(
        "{:<16} {:<6} {:>10} {:>10}",
        "rule set", "engine", "min ms", "median ms"
    );
    let mut total_min = 0.0;
    for (i, t) in runs[0].iter().enumerate() {
        if !shown(t, &args.run.rule_sets) {
            continue;
        }
        let mut times: Vec<f64> = runs
            .iter()
            .map(|r| r[i].duration.as_secs_f64() * 1e3)
            .collect();
        times.sort_by(f64::total_cmp);
        total_min += times[0];
        println!(
            "{:<16} {:<6} {:>10.3} {:>10.3}",
            t.rule_set,
            t.engine.name(),
            times[0],
            times[times.len() / 2]
        );
    }
    println!("{:<16} {:<6} {:>10.3}", "total", "", total_min);
    if !args.no_interpreted {
        println!();
        super::user_rules::time_interpreted(&facts, &runs, args.repeat, &args.run.rule_sets)?;
    }
    Ok(ExitCode::SUCCESS)
}
