//! Checking one program: the concrete runs, every search, and the rules they must keep
//! against what the runs found.

use super::runs::{concrete_runs, Concrete};
use super::searches::{cli_hunt, cli_verify, library, type_b_slice};
use super::Limits;
use analysis::FrontendOptions;
use explorer::symbolic::{Config, DporMode, Repair, Strategy, Verdict};
use std::path::Path;
use std::time::Instant;

/// The result of checking one program.
pub(crate) struct Checked {
    pub(crate) concrete: Concrete,
    /// Every search finished (none stopped by its time budget).
    pub(crate) finished: bool,
    pub(crate) mismatches: Vec<String>,
    pub(crate) report: String,
    /// Seconds per stage (concrete runs, each search, the hunts).
    pub(crate) times: Vec<(String, f64)>,
}

/// Runs the oracle on the program in `path` (its text `text`).
pub(crate) fn check(path: &Path, text: &str, seed: u64, limits: &Limits) -> Checked {
    check_with(path, text, seed, limits, false)
}

/// A search besides the default plans: its name, strategy and how its configuration
/// differs from the defaults (unsliced, strict repair).
type Extra = (&'static str, Strategy, fn(&mut Config));

/// The extra searches of `check_with(.., true)`: classic DPOR (the default is source
/// sets) under dpor and dpor+ag, dpor+ag without the probe and the spin-loop and
/// await reductions, and dpor+ag whose short search stops after 20 states, so that the
/// search after it runs on its engine with its summaries.
const EXTRA: [Extra; 4] = [
    ("dpor classic", Strategy::Dpor, |c| {
        c.dpor = DporMode::Classic
    }),
    ("dpor+ag classic --no-slice", Strategy::DporAg, |c| {
        c.dpor = DporMode::Classic
    }),
    (
        "dpor+ag --no-slice, no probe, spin or await reduction",
        Strategy::DporAg,
        |c| {
            c.probe = false;
            c.spin_loops = false;
            c.await_assumes = false;
        },
    ),
    (
        "dpor+ag --no-slice after a 20-state short search",
        Strategy::DporAg,
        |c| {
            c.probe_quick_states = Some(20);
            c.probe_quick_time = Some(std::time::Duration::from_secs(60));
        },
    ),
];

/// [`check`], with the searches of [`EXTRA`] too when `extra`.
pub(crate) fn check_with(
    path: &Path,
    text: &str,
    seed: u64,
    limits: &Limits,
    extra: bool,
) -> Checked {
    let program = match analysis::load_program(path, &FrontendOptions::default()) {
        Ok(p) => p,
        Err(e) => {
            return Checked {
                concrete: Concrete::default(),
                finished: false,
                mismatches: vec![format!("the program does not lower: {e}")],
                report: String::new(),
                times: Vec::new(),
            }
        }
    };
    let mut times: Vec<(String, f64)> = Vec::new();
    let mut clock = Instant::now();
    let mut lap = |name: &str, times: &mut Vec<(String, f64)>| {
        times.push((name.to_string(), clock.elapsed().as_secs_f64()));
        clock = Instant::now();
    };
    let concrete = concrete_runs(&program, text, seed, limits);
    lap("concrete", &mut times);
    let mut mismatches: Vec<String> = concrete
        .errors
        .iter()
        .map(|e| format!("interpreter error: {e}"))
        .collect();
    let t = limits.search_timeout;
    let slice = type_b_slice(&program);
    // (name, strategy, sliced, repair, summaries relative to sleep sets)
    let plans: [(&str, Strategy, bool, Repair, bool); 6] = [
        ("baseline", Strategy::Baseline, false, Repair::Strict, true),
        ("dpor", Strategy::Dpor, false, Repair::Strict, true),
        (
            "dpor+ag --no-slice",
            Strategy::DporAg,
            false,
            Repair::Strict,
            true,
        ),
        ("dpor+ag", Strategy::DporAg, true, Repair::Strict, true),
        (
            "dpor+ag, sleep-free summaries only",
            Strategy::DporAg,
            true,
            Repair::Strict,
            false,
        ),
        (
            "dpor+ag --repair add",
            Strategy::DporAg,
            true,
            Repair::Add,
            true,
        ),
    ];
    let mut searches = Vec::new();
    for (name, strategy, sliced, repair, relative) in plans {
        let slice = sliced.then_some(&slice);
        searches.push(library(
            &program,
            name,
            strategy,
            slice,
            repair,
            limits,
            &|c: &mut Config| c.sleep_summaries = relative,
        ));
        lap(name, &mut times);
    }
    let extras: &[Extra] = if extra { &EXTRA } else { &[] };
    for &(name, strategy, tweak) in extras {
        searches.push(library(
            &program,
            name,
            strategy,
            None,
            Repair::Strict,
            limits,
            &tweak,
        ));
        lap(name, &mut times);
    }
    searches.push(cli_verify(path, t));
    lap("cli verify", &mut times);
    let mut answers = Vec::new();
    for s in searches {
        match s {
            Ok(a) => answers.push(a),
            Err(e) => mismatches.push(format!("search error: {e}")),
        }
    }
    for a in &answers {
        // Families (1), (2), (3), (6): SAFE where a run violates an assertion or has
        // undefined behaviour.
        if a.verdict == Verdict::Safe && concrete.any_violation() {
            mismatches.push(format!(
                "{}: SAFE, but concrete runs violate {:?} {:?}",
                a.name, concrete.assertions, concrete.undefined
            ));
            continue;
        }
        // A finished search with `--all` reaches every violated assertion.
        if !a.stopped {
            for (line, run_seed) in &concrete.assertions {
                if !a.lines.contains(line) {
                    mismatches.push(format!(
                        "{}: misses the assertion at line {line} (concrete run seed {run_seed}): {}",
                        a.name, a.detail
                    ));
                }
            }
        }
    }
    // Summaries relative to sleep sets against sleep-free summaries only: finished,
    // both reach the same violated lines (each is replayed, so neither may miss one).
    let by_name = |n: &str| answers.iter().find(|a| a.name == n);
    if let (Some(rel), Some(free)) = (
        by_name("dpor+ag"),
        by_name("dpor+ag, sleep-free summaries only"),
    ) {
        if !rel.stopped && !free.stopped && rel.lines != free.lines {
            mismatches.push(format!(
                "dpor+ag with summaries under sleep sets reaches {:?}, with sleep-free \
                 summaries only {:?}: {} / {}",
                rel.lines, free.lines, rel.detail, free.detail
            ));
        }
    }
    // Family (4): hunt must not refute a location a concrete run reaches.
    let mut hunts = Vec::new();
    for line in concrete.assertions.keys() {
        match cli_hunt(path, *line, t) {
            Ok((verdict, reason)) => {
                if verdict == "refuted" {
                    mismatches.push(format!(
                        "agx hunt: REFUTED line {line}, which a concrete run violates ({reason})"
                    ));
                }
                hunts.push(format!("hunt line {line}: {verdict} {reason}"));
            }
            Err(e) => mismatches.push(format!("hunt error: {e}")),
        }
    }
    lap("hunt", &mut times);
    let finished = answers.len() == 7 + extras.len() && answers.iter().all(|a| !a.stopped);
    let mut report = format!(
        "concrete: {} runs, assertions {:?}, undefined {:?}\n",
        concrete.runs, concrete.assertions, concrete.undefined
    );
    for a in &answers {
        report += &format!("  {}: {}\n", a.name, a.detail);
    }
    for h in hunts {
        report += &format!("  {h}\n");
    }
    Checked {
        concrete,
        finished,
        mismatches,
        report,
        times,
    }
}
