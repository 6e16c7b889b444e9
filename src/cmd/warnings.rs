//! `agx warnings FILE`: agx's own static warnings — data races (conflicting accesses that
//! may happen in parallel with no common lock), lock-order inversions (potential
//! deadlocks) and assertions — ranked, as SARIF 2.1.0 (default), text or JSON. Each
//! warning is a target `agx hunt` can confirm or refute (`agx hunt FILE --warnings`, or
//! `agx hunt FILE --sarif` on this output).
//!
//! Ranking: cheapest to check first — the summed length of the shortest abstract traces
//! to the warning's locations, then races and deadlocks before assertions. A warning with
//! no abstract trace to one of its locations is statically unreachable and not reported.
//!
//! Exit codes (`cmd::exit`), as linters have them: 0 no warning, 1 some warning, 2 error.

use super::common::InputArgs;
use super::exit::Answer;
use analysis::facts::{Facts, StmtId};
use analysis::sarif::{self, Finding, Precision, Rule, SourceLocation};
use anyhow::Result;
use rules::lock_order::{self, Inversion};
use rules::races::{self, Lock, Race};
use rules::Analysis;
use serde::Serialize;
use serde_json::{json, Map};
use std::collections::{BTreeSet, HashSet};
use std::fmt::Write as _;
use std::process::ExitCode;

/// `--format` of `agx warnings`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Sarif,
    Text,
    Json,
}

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Sarif)]
    pub format: Format,
    /// Leave out the assertions (only races and lock-order inversions).
    #[arg(long)]
    pub no_assertions: bool,
    /// Report the findings of user checkers instead: every `.output` relation
    /// `(stmt: symbol, message: symbol)` of these rules files, its name the rule id.
    #[arg(long, value_name = "RULES.dl")]
    pub rules: Vec<std::path::PathBuf>,
}

/// What a warning is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    Race,
    Deadlock,
    Assertion,
}

impl WarningKind {
    pub fn rule_id(self) -> &'static str {
        match self {
            WarningKind::Race => "agx-race",
            WarningKind::Deadlock => "agx-lock-order",
            WarningKind::Assertion => "agx-assertion",
        }
    }

    /// The target kind a SARIF reader gives it.
    pub fn sarif_kind(self) -> &'static str {
        match self {
            WarningKind::Race => "race",
            WarningKind::Deadlock => "deadlock",
            WarningKind::Assertion => "assertion",
        }
    }
}

/// A ranked static warning.
#[derive(Clone, Debug, Serialize)]
pub struct Warning {
    pub rank: usize,
    pub kind: WarningKind,
    /// One statement per location (a race's two accesses, a deadlock's two acquisitions).
    pub stmts: Vec<StmtId>,
    pub locations: Vec<SourceLocation>,
    pub message: String,
    /// Summed length of the shortest abstract traces to the locations.
    pub cost: usize,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let program = args.input.load()?;
    let facts = analysis::facts::extract(&program);
    if !args.rules.is_empty() {
        let findings = super::user_rules::print_findings(&args.rules, &facts, args.format)?;
        return Ok(Answer::found(findings > 0).into());
    }
    let analysis = Analysis::run(&facts);
    let warnings = compute(&facts, &analysis, !args.no_assertions);
    match args.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&warnings)?),
        Format::Text => print!("{}", text(&warnings)),
        Format::Sarif => println!("{}", serde_json::to_string_pretty(&to_sarif(&warnings))?),
    }
    Ok(Answer::found(!warnings.is_empty()).into())
}

/// Every warning of a program, ranked (rank 1 first).
pub fn compute(facts: &Facts, analysis: &Analysis, assertions: bool) -> Vec<Warning> {
    let race_result = races::run(&races::Inputs {
        facts,
        points_to: &analysis.points_to,
        call_graph: &analysis.call_graph,
        data: &analysis.data,
        happens_before: &analysis.happens_before,
    });
    let order = lock_order::run(
        &race_result.locksets,
        &analysis.call_graph,
        &analysis.happens_before,
    );
    let lines = facts.stmt_lines();
    let loc = |s: StmtId| -> SourceLocation {
        match lines.get(s.index()).copied().flatten() {
            Some((f, line)) => SourceLocation {
                file: facts.names.files[f.index()].clone(),
                line,
            },
            None => SourceLocation {
                file: "?".into(),
                line: 0,
            },
        }
    };
    let mut out = Vec::new();
    let mut seen_lines = HashSet::new();
    let mut ordered_races = race_result.races.clone();
    // Write-write races first, so that the kept race of a pair of lines is the strongest.
    ordered_races.sort_by_key(|r| (!(r.first_writes && r.second_writes), r.first, r.second));
    for r in &ordered_races {
        let locations = vec![loc(r.first), loc(r.second)];
        if seen_lines.insert(locations.clone()) {
            out.push(race_warning(facts, r, locations));
        }
    }
    for inv in &order.inversions {
        let locations = vec![loc(inv.first), loc(inv.second)];
        out.push(deadlock_warning(facts, inv, locations));
    }
    if assertions {
        for &(e,) in &facts.error_site {
            out.push(Warning {
                rank: 0,
                kind: WarningKind::Assertion,
                stmts: vec![e],
                locations: vec![loc(e)],
                message: format!("assertion or reach_error() at {}", loc(e)),
                cost: 0,
            });
        }
    }
    rank(facts, analysis, out)
}

fn cell_name(facts: &Facts, obj: analysis::facts::Obj, offset: i64) -> String {
    let name = facts.obj_name(obj);
    match offset {
        0 => format!("`{name}`"),
        analysis::facts::ANY_OFFSET => format!("`{name}[*]`"),
        k => format!("`{name}`+{k}"),
    }
}

fn race_warning(facts: &Facts, r: &Race, locations: Vec<SourceLocation>) -> Warning {
    let access = |w: bool| if w { "write" } else { "read" };
    let message = format!(
        "data race on {}: {} at {} and {} at {} may run in parallel with no common lock",
        cell_name(facts, r.cell.obj, r.cell.offset),
        access(r.first_writes),
        locations[0],
        access(r.second_writes),
        locations[1]
    );
    Warning {
        rank: 0,
        kind: WarningKind::Race,
        stmts: vec![r.first, r.second],
        locations,
        message,
        cost: 0,
    }
}

fn lock_name(facts: &Facts, l: Lock) -> String {
    match l {
        Lock::Mutex(o, k) => cell_name(facts, o, k),
        Lock::Atomic => "the atomic section".into(),
    }
}

fn deadlock_warning(facts: &Facts, inv: &Inversion, locations: Vec<SourceLocation>) -> Warning {
    let message = format!(
        "lock-order inversion (potential deadlock): {} takes {} holding {}; {} takes {} holding {}",
        locations[0],
        lock_name(facts, inv.second_lock),
        lock_name(facts, inv.first_lock),
        locations[1],
        lock_name(facts, inv.first_lock),
        lock_name(facts, inv.second_lock)
    );
    Warning {
        rank: 0,
        kind: WarningKind::Deadlock,
        stmts: vec![inv.first, inv.second],
        locations,
        message,
        cost: 0,
    }
}

/// Costs each warning by its abstract traces, drops the statically unreachable ones,
/// and numbers the rest cheapest first.
fn rank(facts: &Facts, analysis: &Analysis, warnings: Vec<Warning>) -> Vec<Warning> {
    let mut kept: Vec<Warning> = warnings
        .into_iter()
        .filter_map(|mut w| {
            let distinct: BTreeSet<StmtId> = w.stmts.iter().copied().collect();
            let targets: Vec<StmtId> = distinct.into_iter().collect();
            let system = analysis.abstract_system(facts, &targets);
            let mut cost = 0;
            for &s in &w.stmts {
                cost += system.shortest_trace(s)?.len();
            }
            w.cost = cost;
            Some(w)
        })
        .collect();
    kept.sort_by_key(|w| (w.cost, w.kind, w.stmts.clone()));
    for (i, w) in kept.iter_mut().enumerate() {
        w.rank = i + 1;
    }
    kept
}

fn text(warnings: &[Warning]) -> String {
    let mut s = String::new();
    if warnings.is_empty() {
        s.push_str("no warnings\n");
    }
    for w in warnings {
        let _ = writeln!(s, "{:>3}. [{}] {}", w.rank, w.kind.rule_id(), w.message);
    }
    s
}

/// The rules agx's SARIF output uses.
pub fn sarif_rules() -> Vec<Rule> {
    let tags = |more: &str| {
        ["concurrency", "correctness", more]
            .iter()
            .map(|t| t.to_string())
            .collect()
    };
    vec![
        Rule {
            id: WarningKind::Race.rule_id().into(),
            name: "DataRace".into(),
            description: "Conflicting accesses that may run in parallel with no common lock".into(),
            full_description: "Two accesses to the same memory location, at least one a write, \
                in threads that may run at the same time, with no lock held in common and no \
                ordering by thread creation or join. `agx warnings` reports candidates from a \
                static may-analysis; `agx hunt` confirms one with a replayable execution or \
                refutes it."
                .into(),
            help: "Protect both accesses with the same mutex, make the variable atomic, or \
                order the threads (create after the write, join before the read). Run \
                `agx hunt FILE --warnings` to get an interleaving that shows the race."
                .into(),
            precision: Precision::Medium,
            tags: tags("data-race"),
        },
        Rule {
            id: WarningKind::Deadlock.rule_id().into(),
            name: "LockOrderInversion".into(),
            description: "Two acquisitions that take each other's held lock (potential deadlock)"
                .into(),
            full_description: "Two threads acquire the same two mutexes in opposite orders: \
                each may hold one and wait for the other forever."
                .into(),
            help: "Acquire the mutexes in one global order everywhere, or take both under a \
                third lock. `agx hunt FILE --warnings` searches for a schedule that deadlocks."
                .into(),
            precision: Precision::Medium,
            tags: tags("deadlock"),
        },
        Rule {
            id: WarningKind::Assertion.rule_id().into(),
            name: "Assertion".into(),
            description: "An assertion or reach_error() call that may be reached".into(),
            full_description: "An `assert` that may fail, or a `reach_error()` call that may be \
                reached, under some schedule and input."
                .into(),
            help: "`agx verify FILE` decides whether the assertion can fail and prints the \
                interleaving when it can."
                .into(),
            precision: Precision::Low,
            tags: tags("assertion"),
        },
    ]
}

fn to_sarif(warnings: &[Warning]) -> serde_json::Value {
    let findings: Vec<Finding> = warnings
        .iter()
        .map(|w| {
            let mut properties = Map::new();
            properties.insert("kind".into(), json!(w.kind.sarif_kind()));
            properties.insert("rank".into(), json!(w.rank));
            properties.insert("cost".into(), json!(w.cost));
            Finding {
                rule_id: w.kind.rule_id().into(),
                level: "warning".into(),
                message: w.message.clone(),
                locations: w.locations.clone(),
                flow: Vec::new(),
                flow_message: None,
                properties,
                ..Finding::default()
            }
        })
        .collect();
    sarif::write_log("agx", env!("CARGO_PKG_VERSION"), &sarif_rules(), &findings)
}
