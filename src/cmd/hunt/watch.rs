//! What a long hunt shows and how it ends early: a progress line on stderr (round, goal,
//! decided goals, time; only on a terminal and without `--quiet`), the overall
//! `--total-timeout` checked before every goal's round, and SIGINT/SIGTERM answered with
//! the report of the best results so far (the goals not decided yet UNKNOWN, naming the
//! interruption) instead of dying with nothing. Without `--quiet`, each goal is announced
//! on stderr the moment a round decides it (the report on stdout still comes at the end).
//!
//! The search cannot be stopped from outside (its only stop is its own deadline), so an
//! interruption is answered by a watcher thread: it prints the report from the latest
//! result of every goal and ends the process with `_exit` (a Z3 search may still be
//! running on another thread; no destructor may run under it). A second signal ends agx
//! at once (`bench::child`'s handler).

use super::{Format, GoalOutcome, Spec};
use analysis::ir::Program;
use explorer::guided::{Hunt, Verdict};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A spinner naming the stage before the goals are known (the front end and the
/// analyses), on a terminal and without `--quiet`.
pub fn stage_spinner(show_progress: bool, stage: &str) -> Option<ProgressBar> {
    (show_progress && std::io::stderr().is_terminal()).then(|| {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(4));
        bar.set_style(
            ProgressStyle::with_template("hunt [{elapsed_precise}] {spinner} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_message(stage.to_string());
        bar.enable_steady_tick(Duration::from_millis(250));
        bar
    })
}

/// The hunt's shared state: the latest result of every goal, and who reports.
pub struct Watch {
    started: Instant,
    /// The latest round's result of each goal (`None` before its first round).
    latest: Mutex<Vec<Option<Hunt>>>,
    /// Rounds each goal has been hunted in.
    rounds: Mutex<Vec<u32>>,
    /// Set by whoever prints the report (the hunt at its end, or the watcher).
    reported: AtomicBool,
    done: AtomicBool,
    progress: Option<ProgressBar>,
    /// Each goal's label, and whether a decided goal is announced on stderr at once
    /// (without `--quiet`): the report comes at the end, a verdict as soon as it is known.
    labels: Vec<String>,
    announce: bool,
    /// The overall deadline (`--total-timeout`), with its length for the reason.
    deadline: Option<(Instant, Duration)>,
}

impl Watch {
    pub fn new(
        started: Instant,
        labels: Vec<String>,
        show_progress: bool,
        total: Option<Duration>,
    ) -> Watch {
        let goals = labels.len();
        let progress = (show_progress && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::with_draw_target(
                Some(goals as u64),
                ProgressDrawTarget::stderr_with_hz(4),
            );
            bar.set_style(
                ProgressStyle::with_template(
                    "hunt [{elapsed_precise}] {pos}/{len} decided · {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar.enable_steady_tick(Duration::from_millis(250));
            bar
        });
        Watch {
            started,
            latest: Mutex::new(vec![None; goals]),
            rounds: Mutex::new(vec![0; goals]),
            reported: AtomicBool::new(false),
            done: AtomicBool::new(false),
            progress,
            labels,
            announce: show_progress,
            deadline: total.map(|t| (started + t, t)),
        }
    }

    /// Before goal `i`'s round: the progress line, and the time the overall deadline
    /// leaves (`Err` with the reason when none is left).
    pub fn before_round(&self, i: usize, label: &str) -> Result<Option<Duration>, String> {
        let round = {
            let mut rounds = lock(&self.rounds);
            rounds[i] += 1;
            rounds[i]
        };
        if let Some(bar) = &self.progress {
            bar.set_message(format!(
                "round {round} (guided trials, then the exhaustive search) · goal {}: {label}",
                i + 1
            ));
        }
        let Some((deadline, total)) = self.deadline else {
            return Ok(None);
        };
        match deadline.checked_duration_since(Instant::now()) {
            Some(left) if !left.is_zero() => Ok(Some(left)),
            _ => Err(format!(
                "timeout: the overall time budget (--total-timeout {:.3} s) ran out before \
                 this goal's round {round} ({:.3} s spent)",
                total.as_secs_f64(),
                self.started.elapsed().as_secs_f64()
            )),
        }
    }

    /// After goal `i`'s round.
    pub fn after_round(&self, i: usize, hunt: &Hunt) {
        let mut latest = lock(&self.latest);
        let newly_decided = hunt.verdict != Verdict::Unknown
            && latest[i]
                .as_ref()
                .is_none_or(|h| h.verdict == Verdict::Unknown);
        latest[i] = Some(hunt.clone());
        if newly_decided && self.announce {
            self.announce_decided(i, hunt.verdict);
        }
        if let Some(bar) = &self.progress {
            let decided = latest
                .iter()
                .flatten()
                .filter(|h| h.verdict != Verdict::Unknown)
                .count();
            bar.set_position(decided as u64);
        }
    }

    /// One stderr line for a goal just decided, above the progress line on a terminal.
    fn announce_decided(&self, i: usize, verdict: Verdict) {
        let line = format!(
            "hunt: goal {} decided: {} ({}) after {:.1} s",
            i + 1,
            verdict.name(),
            self.labels[i],
            self.started.elapsed().as_secs_f64()
        );
        match &self.progress {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }

    /// Ends the watching (the hunt is over, or failed) and the progress line.
    pub fn stop(&self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(bar) = &self.progress {
            bar.finish_and_clear();
        }
    }

    /// Claims the right to print the report; `false` when the watcher already has (it
    /// then ends the process).
    pub fn claim_report(&self) -> bool {
        self.stop();
        !self.reported.swap(true, Ordering::SeqCst)
    }

    /// Waits (on its own thread) until the hunt ends, a signal arrives or the overall
    /// deadline has passed by [`DEADLINE_GRACE`]; then prints the report of the results
    /// so far and ends the process with its exit code. The searches check the deadline
    /// themselves, but one solver query can run far past it (Z3 does not always stop at
    /// its timeout: pthread-ext/08_rand_cas's queries ran 55 s past a 5 s budget).
    pub fn watch(&self, program: &Program, specs: &[Spec], format: Format, context: &str) {
        while !self.done.load(Ordering::Relaxed) {
            let why = if bench::child::interrupted() {
                Some("interrupted: SIGINT or SIGTERM".to_string())
            } else {
                self.deadline
                    .filter(|(at, _)| Instant::now() >= *at + DEADLINE_GRACE)
                    .map(|(_, total)| {
                        format!(
                            "timeout: the overall budget of {:.3} s ran out while a search was \
                             still running",
                            total.as_secs_f64()
                        )
                    })
            };
            if let Some(why) = why {
                if !self.claim_report() {
                    return;
                }
                let outcomes = self.so_far(specs, &why);
                let code = super::print_report(program, &outcomes, format, context)
                    .map_or(crate::cmd::exit::ERROR, |answer| answer.code());
                let _ = std::io::stdout().flush();
                let _ = std::io::stderr().flush();
                // SAFETY: ends the process without running destructors, which a search
                // still running on another thread could race with.
                unsafe { libc::_exit(i32::from(code)) }
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Every goal with its best result so far: a decided round's verdict, else UNKNOWN
    /// naming the interruption (`why`).
    fn so_far(&self, specs: &[Spec], why: &str) -> Vec<GoalOutcome> {
        let latest = lock(&self.latest);
        let secs = self.started.elapsed().as_secs_f64();
        specs
            .iter()
            .zip(latest.iter())
            .map(|(spec, hunt)| {
                let hunt = match hunt {
                    Some(h) if h.verdict != Verdict::Unknown => h.clone(),
                    earlier => {
                        let mut h = Hunt::without_search(
                            Verdict::Unknown,
                            None,
                            String::new(),
                            Instant::now(),
                        );
                        if let Some(e) = earlier {
                            h.stats = e.stats.clone();
                        }
                        h.reason = Some(format!(
                            "{why} after {secs:.1} s, before this goal was decided"
                        ));
                        h
                    }
                };
                GoalOutcome {
                    spec: spec.clone(),
                    hunt,
                }
            })
            .collect()
    }
}

/// How long past the overall deadline the watcher lets a search run before it reports
/// the results so far and ends the process.
const DEADLINE_GRACE: Duration = Duration::from_millis(500);

/// A poisoned lock still holds the results: a panicking round is reported by the hunt.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
