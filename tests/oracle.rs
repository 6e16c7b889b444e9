//! An oracle independent of the strategies (issue 10): for every program, random
//! concrete runs on the reference interpreter (`explorer::concrete`: schedules uniformly
//! random at each step or by PCT priorities, spurious wake-ups, inputs biased toward
//! small values and the program's constants) find
//! violations; every search must then agree with them:
//!
//! - **SAFE with a concrete violation** (an assertion, or undefined behaviour such as a
//!   null dereference, which makes SAFE impossible without `--check memory`) is a
//!   failure, whatever the strategy;
//! - a search that finished (no time-out, no solver give-up) must report every
//!   assertion line that failed concretely (with `--all`);
//! - `agx hunt --target FILE:LINE` must not REFUTE a line that failed concretely;
//! - a generated program that does not lower, a search error (a witness that does not
//!   replay) and an interpreter error are failures too.
//!
//! The searches: `baseline`, `dpor`, `dpor+ag --no-slice`, `dpor+ag` with the Type B
//! slice (library, as `agx verify` builds it), `dpor+ag --repair add` with the slice, and
//! the CLI itself (`agx verify --all`, the default strategy, slice computed by agx).
//!
//! Which check catches which of issue 10's wrong verdicts (as of the tree before the
//! fixes; see `PINNED` and `CATCHING_SEEDS`):
//! (1) printf-only branch: dpor+ag / CLI verify SAFE against a concrete violation;
//! (2) partial join: dpor+ag / CLI verify SAFE;
//! (3) atomic section in a branch: dpor+ag / CLI verify SAFE;
//! (4) function pointer through `pthread_join`: hunt REFUTED;
//! (5) function returning a function pointer: the program does not lower (inner
//!     parameter named differently), or the expected concrete violation of the pinned
//!     program is missing (the same name: wrong parameter list in both engines);
//! (6) null dereference on a cut branch: dpor+ag SAFE against a concrete null
//!     dereference;
//! (7) spurious wake-ups: the automatic schedules never choose a waiting thread, so
//!     after every run that waits on a condition a follow-up run replays it (same inputs)
//!     to the wait, a few steps more, and names the waiter (an explicit spurious
//!     wake-up); before the interpreter could express that, the pinned program's
//!     expected concrete violation was missing; now every search must find it too.
//!
//! Environment: `AGX_ORACLE_PROGRAMS=N` checks N generated programs from seed
//! `AGX_ORACLE_SEED` (default: the CI list, `CATCHING_SEEDS` and seeds 1..=CI_PROGRAMS);
//! `AGX_ORACLE_RUNS` / `AGX_ORACLE_RUN_MS` bound the concrete runs per program (count,
//! milliseconds; default 2000, 300); `AGX_ORACLE_TIMEOUT` is each search's budget in
//! seconds (default 5) and `AGX_ORACLE_STATES` its scheduling nodes (default 8000;
//! a search stopped by either is only held to the SAFE rule);
//! `AGX_ORACLE_FAILURES=DIR` keeps every failing program there (with its report).
//! `scripts/soak.sh N` runs N programs in a release build.

mod common;

use analysis::FrontendOptions;
use common::gen::{self, Family};
use common::{agx_bin, process, project_root};
use explorer::concrete::{
    self, EventKind, Execution, InputFallback, InputPolicy, InputValue, RunConfig, RunOutcome,
    RuntimeError, ScheduleFallback, SchedulePolicy, ThreadId, UninitPolicy, ViolationKind,
};
use explorer::symbolic::{self, Config, Reason, Repair, SearchOutcome, Strategy, Verdict};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Generated programs of the CI run (after `CATCHING_SEEDS`).
const CI_PROGRAMS: u64 = 32;

/// Seeds whose programs caught one of issue 10's wrong verdicts on the tree before the
/// fixes: (seed, the case, who was wrong). They stay in the CI list. "ag" is
/// dpor+ag with the slice, `--repair add` and `agx verify`, all three SAFE.
const CATCHING_SEEDS: &[(u64, u32, &str)] = &[
    (78, 1, "printf-only branch: ag SAFE"),
    (111, 1, "printf-only branch: ag SAFE"),
    (19, 2, "partial join: ag SAFE (found by a PCT run)"),
    (82, 2, "partial join: ag SAFE"),
    (156, 2, "partial join: ag SAFE"),
    (52, 3, "atomic section in a branch: ag SAFE"),
    (75, 3, "atomic section in a branch: ag SAFE"),
    (96, 4, "function pointer through join: agx hunt REFUTED"),
    (212, 4, "function pointer through join: agx hunt REFUTED"),
    (60, 5, "pick's inner parameter named v: does not lower"),
    (127, 5, "pick's inner parameter named v: does not lower"),
    (33, 6, "null dereference on a cut branch: ag SAFE"),
    (56, 6, "null dereference on a cut branch: ag SAFE"),
];

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// Bounds of one program's check.
struct Limits {
    runs: u64,
    run_time: Duration,
    search_timeout: Duration,
    /// Scheduling nodes per library search (a deterministic budget besides the time).
    states: u64,
}

impl Limits {
    fn from_env() -> Limits {
        Limits {
            runs: env_u64("AGX_ORACLE_RUNS").unwrap_or(2_000),
            run_time: Duration::from_millis(env_u64("AGX_ORACLE_RUN_MS").unwrap_or(300)),
            search_timeout: Duration::from_secs(env_u64("AGX_ORACLE_TIMEOUT").unwrap_or(5)),
            states: env_u64("AGX_ORACLE_STATES").unwrap_or(8_000),
        }
    }
}

/// What the random concrete runs found.
#[derive(Default)]
struct Concrete {
    runs: u64,
    /// Failed assertion (and reach_error) lines, with the seed of the first run.
    assertions: BTreeMap<u32, u64>,
    /// Undefined behaviour (memory, division, lock/join misuse): `kind at line`, seed.
    undefined: BTreeMap<String, u64>,
    /// Interpreter errors (behaviour outside the model): a failure for generated code.
    errors: BTreeSet<String>,
}

impl Concrete {
    fn any_violation(&self) -> bool {
        !self.assertions.is_empty() || !self.undefined.is_empty()
    }
}

/// splitmix64, to derive run seeds.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The integer literals of the program text (and their negations, where written so).
fn constants(text: &str) -> Vec<i128> {
    let bytes = text.as_bytes();
    let mut found = BTreeSet::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts = bytes[i].is_ascii_digit()
            && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_'));
        if starts {
            let j = (i..bytes.len())
                .find(|&j| !bytes[j].is_ascii_digit())
                .unwrap_or(bytes.len());
            if let Ok(v) = text[i..j].parse::<i128>() {
                found.insert(v);
                if i > 0 && bytes[i - 1] == b'-' {
                    found.insert(-v);
                }
            }
            i = j;
        } else {
            i += 1;
        }
    }
    found.into_iter().collect()
}

/// The inputs of one run: mostly the program's constants (or next to them) and small
/// values, so branches on inputs go both ways; some random bits.
fn inputs(seed: u64, pool: &[i128]) -> InputPolicy {
    let mut r = seed;
    let mut next = |n: u64| {
        r = mix(r);
        r % n
    };
    let values = (0..32)
        .map(|_| {
            let v = match next(10) {
                0..=3 if !pool.is_empty() => {
                    pool[next(pool.len() as u64) as usize] + [0, 0, 0, 1, -1][next(5) as usize]
                }
                0..=6 => next(6) as i128 - 2,
                7 | 8 => next(2) as i128,
                _ => i128::from(next(u64::MAX) as u32 as i32),
            };
            InputValue::any(v)
        })
        .collect();
    InputPolicy {
        values,
        fallback: InputFallback::Random { seed: mix(seed) },
    }
}

/// Whether `stmt` is a `pthread_cond_wait`.
fn is_cond_wait(program: &analysis::ir::Program, stmt: analysis::ir::StmtId) -> bool {
    use analysis::ir::{StmtKind, StmtRef, SyncOp};
    matches!(program.stmt(stmt), StmtRef::Stmt(st)
        if matches!(st.kind, StmtKind::Sync { op: SyncOp::CondWait { .. }, .. }))
}

impl Concrete {
    /// Records the end of one run; `run_seed` names it in reports.
    fn record(&mut self, result: Result<&Execution, String>, run_seed: u64) {
        match result {
            Ok(e) => {
                if let RunOutcome::Violation(v) = &e.outcome {
                    match v.kind {
                        ViolationKind::Assertion | ViolationKind::ReachError => {
                            self.assertions.entry(v.span.line).or_insert(run_seed);
                        }
                        // Without `--check deadlock` a deadlocked run simply ends.
                        ViolationKind::Deadlock => {}
                        kind => {
                            self.undefined
                                .entry(format!("{} at line {}", kind.name(), v.span.line))
                                .or_insert(run_seed);
                        }
                    }
                }
            }
            Err(e) => {
                self.errors.insert(e);
            }
        }
    }
}

fn concrete_runs(
    program: &analysis::ir::Program,
    text: &str,
    seed: u64,
    limits: &Limits,
) -> Concrete {
    let pool = constants(text);
    let mut found = Concrete::default();
    let start = Instant::now();
    // The longest run so far, in steps: the horizon of the priority schedules' changes.
    let mut longest = 1;
    while found.runs < limits.runs && (found.runs < 20 || start.elapsed() < limits.run_time) {
        let run_seed = mix(seed.wrapping_mul(1_000_003).wrapping_add(found.runs));
        let mut config = RunConfig::default();
        // Half the runs choose uniformly at every step; the others by PCT priorities
        // with 0-3 change points, which starve threads for long stretches (orders a
        // uniform choice almost never takes: `main` reading before a thread's first
        // step, one thread running to its end first).
        config.schedule = if found.runs % 2 == 0 {
            SchedulePolicy::Random { seed: run_seed }
        } else {
            SchedulePolicy::Priority {
                seed: run_seed,
                changes: (found.runs / 2 % 4) as u32,
                horizon: longest,
            }
        };
        found.runs += 1;
        config.inputs = inputs(mix(run_seed), &pool);
        config.uninit = UninitPolicy::Nondet;
        config.max_steps = Some(3_000);
        config.max_statements = 200_000;
        config.record_trace = true;
        let run = concrete::run(program, &config);
        found.record(run.as_ref().map_err(|e| e.to_string()), run_seed);
        let Ok(e) = run else { continue };
        longest = longest.max(e.stats.steps);
        // Spurious wake-ups (issue 10, case 7): the automatic policies never choose a
        // waiting thread, an explicit schedule entry may. Replay this run up to a
        // `pthread_cond_wait` (same inputs), a few steps more while the waiter still
        // waits, then name the waiter; a random schedule continues.
        let waits: Vec<(usize, ThreadId)> = e
            .trace
            .iter()
            .enumerate()
            .filter(|(_, s)| s.event == EventKind::Statement && is_cond_wait(program, s.stmt))
            .map(|(i, s)| (i, s.thread))
            .collect();
        if waits.is_empty() {
            continue;
        }
        let (i, waiter) = waits[(mix(run_seed ^ 1) % waits.len() as u64) as usize];
        let schedule = e.schedule();
        let woken = (i + 1..schedule.len())
            .find(|&j| schedule[j] == waiter)
            .unwrap_or(schedule.len());
        let extra = (mix(run_seed ^ 2) % 3) as usize;
        let mut threads: Vec<ThreadId> = schedule[..(i + 1 + extra).min(woken)].to_vec();
        threads.push(waiter);
        let follow_seed = mix(run_seed ^ 3);
        let mut follow = config.clone();
        follow.schedule = SchedulePolicy::List {
            threads,
            then: ScheduleFallback::Random { seed: follow_seed },
        };
        found.runs += 1;
        match concrete::run(program, &follow) {
            // The mutex was taken again before the wake-up: no such run.
            Err(RuntimeError::ScheduleDiverged { .. }) => {}
            other => found.record(other.as_ref().map_err(|e| e.to_string()), follow_seed),
        }
    }
    found
}

/// The slice `agx verify` gives the search for Type B pivots.
fn type_b_slice(program: &analysis::ir::Program) -> BTreeSet<analysis::ir::StmtId> {
    let facts = analysis::facts::extract(program);
    let analysis = rules::Analysis::run(&facts);
    analysis.backward_slice(&symbolic::type_b_criteria(program))
}

/// One search's answer, library or CLI.
struct Answer {
    name: String,
    verdict: Verdict,
    lines: BTreeSet<u32>,
    /// Stopped by a time-out or a solver give-up: it may miss violations.
    stopped: bool,
    detail: String,
}

fn library(
    program: &analysis::ir::Program,
    name: &str,
    strategy: Strategy,
    slice: Option<&BTreeSet<analysis::ir::StmtId>>,
    repair: Repair,
    limits: &Limits,
) -> Result<Answer, String> {
    let mut c = Config::default();
    c.strategy = strategy;
    c.slice = slice.is_some();
    c.relevant = slice.cloned();
    c.repair = repair;
    c.all_violations = true;
    c.timeout = Some(limits.search_timeout);
    c.max_states = Some(limits.states);
    let o: SearchOutcome = symbolic::verify(program, &c).map_err(|e| format!("{name}: {e}"))?;
    Ok(Answer {
        name: name.to_string(),
        verdict: o.verdict,
        lines: o.violations.iter().map(|f| f.span.line).collect(),
        stopped: o.incomplete.iter().any(|i| {
            matches!(
                i.reason,
                Reason::Timeout | Reason::Solver | Reason::StateBound
            )
        }),
        detail: format!(
            "{:?} {:?} runs {}+{} {:?}",
            o.verdict,
            o.violations
                .iter()
                .map(|f| f.span.line)
                .collect::<BTreeSet<_>>(),
            o.stats.runs,
            o.stats.partial_runs,
            o.incomplete
        ),
    })
}

fn agx(args: &[String], limit: Duration) -> Result<Value, String> {
    let run = process::run(&agx_bin(), args, &project_root(), limit);
    if !matches!(run.code, Some(0) | Some(1) | Some(3)) {
        return Err(format!(
            "agx {args:?}: {} {}",
            run.ending(),
            run.stderr.trim()
        ));
    }
    serde_json::from_str(&run.stdout).map_err(|e| format!("agx {args:?}: not JSON ({e})"))
}

/// `agx verify FILE --all` with its own slice (the default strategy).
fn cli_verify(path: &Path, timeout: Duration) -> Result<Answer, String> {
    let args: Vec<String> = [
        "verify",
        &path.display().to_string(),
        "--all",
        "--format",
        "json",
        "--timeout",
        &timeout.as_secs().to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let v = agx(&args, timeout * 4 + Duration::from_secs(30))?;
    let verdict = match v["verdict"].as_str() {
        Some("violation") => Verdict::Violation,
        Some("safe") => Verdict::Safe,
        _ => Verdict::Unknown,
    };
    let lines = v["violations"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|f| f["line"].as_u64())
                .map(|l| l as u32)
                .collect()
        })
        .unwrap_or_default();
    let stopped = v["incomplete"].as_array().is_some_and(|a| {
        a.iter()
            .any(|i| matches!(i["reason"].as_str(), Some("timeout" | "solver")))
    });
    Ok(Answer {
        name: "agx verify (cli)".to_string(),
        verdict,
        lines,
        stopped,
        detail: format!("{verdict:?} reason {}", v["reason"]),
    })
}

/// `agx hunt FILE --target FILE:LINE`: its verdict and reason.
fn cli_hunt(path: &Path, line: u32, timeout: Duration) -> Result<(String, String), String> {
    let name = path.file_name().unwrap().to_string_lossy();
    let args: Vec<String> = [
        "hunt",
        &path.display().to_string(),
        "--target",
        &format!("{name}:{line}"),
        "--format",
        "json",
        "--jobs",
        "1",
        "--timeout",
        &(timeout.as_secs() * 2).to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let v = agx(&args, timeout * 8 + Duration::from_secs(30))?;
    let goal = &v[0];
    Ok((
        goal["verdict"].as_str().unwrap_or("?").to_string(),
        goal["reason"].as_str().unwrap_or("").to_string(),
    ))
}

/// The result of checking one program.
struct Checked {
    concrete: Concrete,
    /// Every search finished (none stopped by its time budget).
    finished: bool,
    mismatches: Vec<String>,
    report: String,
    /// Seconds per stage (concrete runs, each search, the hunts).
    times: Vec<(String, f64)>,
}

/// Runs the oracle on the program in `path` (its text `text`).
fn check(path: &Path, text: &str, seed: u64, limits: &Limits) -> Checked {
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
    let plans: [(&str, Strategy, bool, Repair); 5] = [
        ("baseline", Strategy::Baseline, false, Repair::Strict),
        ("dpor", Strategy::Dpor, false, Repair::Strict),
        (
            "dpor+ag --no-slice",
            Strategy::DporAg,
            false,
            Repair::Strict,
        ),
        ("dpor+ag", Strategy::DporAg, true, Repair::Strict),
        ("dpor+ag --repair add", Strategy::DporAg, true, Repair::Add),
    ];
    let mut searches = Vec::new();
    for (name, strategy, sliced, repair) in plans {
        let slice = sliced.then_some(&slice);
        searches.push(library(&program, name, strategy, slice, repair, limits));
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
    let finished = answers.len() == 6 && answers.iter().all(|a| !a.stopped);
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

fn failures_dir() -> PathBuf {
    match std::env::var_os("AGX_ORACLE_FAILURES") {
        Some(d) => PathBuf::from(d),
        None => std::env::temp_dir().join(format!("agx-oracle-failures-{}", std::process::id())),
    }
}

/// The generated programs: the CI list, or the soak range from the environment.
/// A change of the generator changes every seed's program: the catching seeds must
/// still hold their family (else find new ones with `scripts/soak.sh` on a tree without
/// the fixes).
#[test]
fn catching_seeds_still_generate_their_family() {
    for (seed, case, what) in CATCHING_SEEDS {
        let family = Family::ALL[*case as usize - 1];
        assert!(
            gen::program(*seed).families.contains(&family),
            "seed {seed} ({what}) no longer generates {family:?}"
        );
    }
}

#[test]
fn random_programs_agree_with_random_concrete_runs() {
    let seeds: Vec<u64> = match env_u64("AGX_ORACLE_PROGRAMS") {
        Some(n) => {
            let first = env_u64("AGX_ORACLE_SEED").unwrap_or(1);
            (first..first + n).collect()
        }
        None => {
            let mut s: Vec<u64> = CATCHING_SEEDS.iter().map(|(s, _, _)| *s).collect();
            s.extend(1..=CI_PROGRAMS);
            s.sort();
            s.dedup();
            s
        }
    };
    let limits = Limits::from_env();
    let dir = std::env::temp_dir().join(format!("agx-oracle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let failures = failures_dir();
    let start = Instant::now();
    let (mut finished, mut with_violation, mut failing) = (0, 0, 0);
    let mut families: BTreeMap<Family, (u64, u64)> = BTreeMap::new();
    let mut messages = Vec::new();
    let mut stage_times: BTreeMap<String, f64> = BTreeMap::new();
    for (i, &seed) in seeds.iter().enumerate() {
        let generated = gen::program(seed);
        let path = dir.join(format!("oracle_{seed}.c"));
        std::fs::write(&path, &generated.text).expect("write program");
        let checked = check(&path, &generated.text, seed, &limits);
        finished += u64::from(checked.finished);
        for (stage, secs) in &checked.times {
            *stage_times.entry(stage.clone()).or_default() += secs;
        }
        with_violation += u64::from(checked.concrete.any_violation());
        for f in &generated.families {
            let e = families.entry(*f).or_default();
            e.0 += 1;
            e.1 += u64::from(!checked.mismatches.is_empty());
        }
        if !checked.mismatches.is_empty() {
            failing += 1;
            std::fs::create_dir_all(&failures).expect("failures directory");
            let kept = failures.join(format!("oracle_{seed}.c"));
            let note = format!(
                "seed {seed} families {:?}\n{}\n{}",
                generated.families,
                checked.mismatches.join("\n"),
                checked.report
            );
            std::fs::write(&kept, &generated.text).expect("write failing program");
            std::fs::write(kept.with_extension("txt"), &note).expect("write report");
            messages.push(format!("{} — {note}", kept.display()));
            eprintln!("MISMATCH {}\n{note}", kept.display());
        }
        let _ = std::fs::remove_file(&path);
        let done = i + 1;
        if done % 100 == 0 {
            eprintln!(
                "oracle: {done} of {} programs, {failing} mismatches, {:.0} s",
                seeds.len(),
                start.elapsed().as_secs_f64()
            );
        }
    }
    let _ = std::fs::remove_dir(&dir);
    println!(
        "oracle: programs {}, finished {finished}, concrete violations found {with_violation}, \
         mismatches {failing} ({:.1} s, {:.2} s per program)",
        seeds.len(),
        start.elapsed().as_secs_f64(),
        start.elapsed().as_secs_f64() / seeds.len().max(1) as f64
    );
    let stages: Vec<String> = stage_times
        .iter()
        .map(|(s, t)| format!("{s} {t:.1} s"))
        .collect();
    println!("  time by stage: {}", stages.join(", "));
    for (f, (n, bad)) in &families {
        println!("  family {f:?}: {n} programs, {bad} failing");
    }
    if failing > 0 {
        println!("failing programs kept in {}", failures.display());
    }
    assert!(
        messages.is_empty(),
        "{failing} of {} programs disagree with the concrete runs:\n{}",
        seeds.len(),
        messages.join("\n")
    );
    // The generator produces every family (a regression in it would hide them).
    if env_u64("AGX_ORACLE_PROGRAMS").is_none() {
        for f in Family::ALL {
            assert!(families.contains_key(&f), "no CI program of family {f:?}");
        }
    }
}

/// What the concrete runs of a pinned program must find (a fact of C, checked with gcc
/// where the interpreter got it wrong).
enum Expect {
    /// The assertion on this line fails on some run.
    Assertion(u32),
    /// Some run has undefined behaviour of this kind (`ViolationKind::name`).
    Undefined(&'static str),
}

/// Issue 10's wrong verdicts as small programs. Each fails on the tree before the fixes
/// (the check that catches it in the comment) and must pass after them.
const PINNED: &[(&str, &str, Expect)] = &[
    // (1) dpor+ag, agx verify: SAFE against the concrete violation.
    (
        "case1_printf_only_branch",
        "#include <stdio.h>
#include <assert.h>
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int k = __VERIFIER_nondet_int();
  if (k == 0) printf(\"zero\\n\");
  assert(k != 1);
  return 0;
}
",
        Expect::Assertion(7),
    ),
    // (2) dpor+ag, agx verify: SAFE (the race on y is dropped, its order kept).
    (
        "case2_partial_join",
        "#include <pthread.h>
#include <assert.h>
int x, y;
void *t0(void *a) { x = 1; y = 1; return 0; }
void *t1(void *a) { y = 2; return 0; }
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, t0, 0);
  pthread_create(&q, 0, t1, 0);
  pthread_join(q, 0);
  assert(x == 1);
  return 0;
}
",
        Expect::Assertion(11),
    ),
    // (2), the second shape of the issue: a read-write of x on an input branch races
    // with t0's store.
    (
        "case2b_branch_rewrites_racy_global",
        "#include <pthread.h>
#include <assert.h>
extern int __VERIFIER_nondet_int(void);
int x;
void *t0(void *a) { x = 1; return 0; }
void *t1(void *a) {
  int k = __VERIFIER_nondet_int();
  if (k == 0) { int r = x; x = r; }
  return 0;
}
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, t0, 0);
  pthread_create(&q, 0, t1, 0);
  pthread_join(p, 0);
  pthread_join(q, 0);
  assert(x == 1);
  return 0;
}
",
        Expect::Assertion(17),
    ),
    // (3) dpor+ag, agx verify: SAFE (the branches that open and close the section are cut).
    (
        "case3_atomic_section_in_a_branch",
        "#include <pthread.h>
#include <assert.h>
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);
int x;
void *t1(void *a) {
  int k = __VERIFIER_nondet_int();
  if (k) __VERIFIER_atomic_begin();
  x = 1;
  x = 0;
  if (k) __VERIFIER_atomic_end();
  return 0;
}
void *t2(void *a) {
  assert(x != 1);
  return 0;
}
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, t1, 0);
  pthread_create(&q, 0, t2, 0);
  return 0;
}
",
        Expect::Assertion(16),
    ),
    // (4) agx hunt: REFUTED ("function `bad` is never called").
    (
        "case4_function_pointer_through_join",
        "#include <pthread.h>
#include <assert.h>
void bad(void) {
  assert(0);
}
void *t(void *a) { return (void *)bad; }
int main(void) {
  pthread_t th;
  void *r;
  pthread_create(&th, 0, t, 0);
  pthread_join(th, &r);
  ((void (*)(void))r)();
  return 0;
}
",
        Expect::Assertion(4),
    ),
    // (4) through pthread_exit.
    (
        "case4b_function_pointer_through_exit",
        "#include <pthread.h>
#include <assert.h>
void bad(void) {
  assert(0);
}
void *t(void *a) { pthread_exit((void *)bad); }
int main(void) {
  pthread_t th;
  void *r;
  pthread_create(&th, 0, t, 0);
  pthread_join(th, &r);
  ((void (*)(void))r)();
  return 0;
}
",
        Expect::Assertion(4),
    ),
    // (5) the inner parameter list taken for pick's: `pick(k: u8)`, so pick(256) returns
    // null and no run fails; gcc's binary aborts at line 3 (the expected concrete
    // violation is missing).
    (
        "case5_function_returning_function_pointer",
        "#include <assert.h>
void f(unsigned char c) {
  assert(c != 0);
}
void (*pick(int k))(unsigned char k) {
  if (k == 256)
    return f;
  return 0;
}
int main(void) {
  void (*g)(unsigned char) = pick(256);
  if (g)
    g(0);
  return 0;
}
",
        Expect::Assertion(3),
    ),
    // (5) with another inner name: the program does not lower (`k` undeclared).
    (
        "case5b_inner_parameter_named_differently",
        "#include <assert.h>
void f(unsigned char c) {
  assert(c != 0);
}
void (*pick(int k))(unsigned char c) {
  if (k == 256)
    return f;
  return 0;
}
int main(void) {
  void (*g)(unsigned char) = pick(256);
  if (g)
    g(0);
  return 0;
}
",
        Expect::Assertion(3),
    ),
    // (6) dpor+ag: SAFE where a run dereferences null (baseline and dpor: UNKNOWN).
    (
        "case6_null_dereference_on_a_cut_branch",
        "#include <pthread.h>
#include <assert.h>
extern int __VERIFIER_nondet_int(void);
int *np;
int stat, g;
void *t(void *a) {
  int c = __VERIFIER_nondet_int();
  if (c == 2) stat = 1; else stat = *np;
  g = 1;
  return 0;
}
int main(void) {
  pthread_t th;
  pthread_create(&th, 0, t, 0);
  pthread_join(th, 0);
  assert(g == 1);
  return 0;
}
",
        Expect::Undefined("null dereference"),
    ),
    // (7) POSIX lets pthread_cond_wait return without a signal; with `if` instead of
    // `while`, `a` is then 0. The searches said SAFE and no run could show it.
    (
        "case7_spurious_wakeup",
        "#include <pthread.h>
#include <assert.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
int ready = 0;
void *t(void *arg) {
  pthread_mutex_lock(&m);
  ready = 1;
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&m);
  return 0;
}
int main(void) {
  pthread_t th;
  pthread_create(&th, 0, t, 0);
  pthread_mutex_lock(&m);
  if (!ready)
    pthread_cond_wait(&cv, &m);
  int a = ready;
  pthread_mutex_unlock(&m);
  assert(a == 1);
  pthread_join(th, 0);
  return 0;
}
",
        Expect::Assertion(21),
    ),
];

/// Checks one pinned program: the oracle, and the concrete finding it must have.
fn pinned(name: &str) {
    let (_, text, expect) = PINNED
        .iter()
        .find(|(n, _, _)| *n == name)
        .expect("a pinned program");
    let dir = std::env::temp_dir().join(format!("agx-oracle-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let path = dir.join(format!("{name}.c"));
    std::fs::write(&path, text).expect("write program");
    let checked = check(&path, text, 1, &Limits::from_env());
    let mut problems = checked.mismatches.clone();
    let found = match expect {
        Expect::Assertion(line) => checked.concrete.assertions.contains_key(line),
        Expect::Undefined(kind) => checked
            .concrete
            .undefined
            .keys()
            .any(|k| k.starts_with(kind)),
    };
    // Only meaningful when the program lowered (else the mismatch says why).
    if !found && checked.concrete.runs > 0 {
        problems.push(format!(
            "the concrete runs do not find the expected {}",
            match expect {
                Expect::Assertion(line) => format!("assertion failure at line {line}"),
                Expect::Undefined(kind) => kind.to_string(),
            }
        ));
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        problems.is_empty(),
        "{name}:\n{}\n{}",
        problems.join("\n"),
        checked.report
    );
}

#[test]
fn case1_printf_only_branch() {
    pinned("case1_printf_only_branch");
}

#[test]
fn case2_partial_join() {
    pinned("case2_partial_join");
}

#[test]
fn case2b_branch_rewrites_racy_global() {
    pinned("case2b_branch_rewrites_racy_global");
}

#[test]
fn case3_atomic_section_in_a_branch() {
    pinned("case3_atomic_section_in_a_branch");
}

#[test]
fn case4_function_pointer_through_join() {
    pinned("case4_function_pointer_through_join");
}

#[test]
fn case4b_function_pointer_through_exit() {
    pinned("case4b_function_pointer_through_exit");
}

#[test]
fn case5_function_returning_function_pointer() {
    pinned("case5_function_returning_function_pointer");
}

#[test]
fn case5b_inner_parameter_named_differently() {
    pinned("case5b_inner_parameter_named_differently");
}

#[test]
fn case6_null_dereference_on_a_cut_branch() {
    pinned("case6_null_dereference_on_a_cut_branch");
}

#[test]
fn case7_spurious_wakeup() {
    pinned("case7_spurious_wakeup");
}
