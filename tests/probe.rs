//! The probe before the DPOR search (issue 15, `explorer::symbolic::probe`): a bounded
//! non-preemptive run of the same engine. It finds bugs that need no preemption at once
//! (pthread-demo-datarace-2's kind: no lost update among many unprotected increments),
//! is counted apart in the statistics, and changes nothing else: with and without it the
//! verdicts agree, and where it finds nothing the search's runs and states are the same.

use analysis::FrontendOptions;
use explorer::symbolic::{self, Config, Reason, SearchOutcome, Strategy, Verdict};

/// Two threads each add 1 to `counter` `n` times without a lock; `main` asserts `check`
/// after joining them.
fn increments(n: usize, check: &str) -> String {
    format!(
        "#include <pthread.h>\n#include <assert.h>\nint counter = 0;\n\
         void *add(void *arg) {{\n    for (int i = 0; i < {n}; i++) {{\n        int tmp = counter;\n\
         \x20       counter = tmp + 1;\n    }}\n    return 0;\n}}\n\
         int main(void) {{\n    pthread_t a, b;\n    pthread_create(&a, 0, add, 0);\n\
         \x20   pthread_create(&b, 0, add, 0);\n    pthread_join(a, 0);\n    pthread_join(b, 0);\n\
         \x20   assert({check});\n    return 0;\n}}\n"
    )
}

fn verify(source: &str, name: &str, configure: impl Fn(&mut Config)) -> SearchOutcome {
    let dir = std::env::temp_dir().join(format!("agx-probe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let path = dir.join(name);
    std::fs::write(&path, source).expect("write program");
    let program = analysis::load_program(&path, &FrontendOptions::default()).expect("lowers");
    let mut c = Config::default();
    configure(&mut c);
    let out = symbolic::verify(&program, &c).expect("verify");
    let _ = std::fs::remove_file(&path);
    out
}

#[test]
fn the_probe_finds_a_run_without_lost_updates_and_the_search_does_not_run() {
    let source = increments(20, "counter != 40");
    for strategy in [Strategy::Dpor, Strategy::DporAg] {
        let out = verify(&source, "no_lost_update_20.c", |c| c.strategy = strategy);
        assert_eq!(out.verdict, Verdict::Violation, "{strategy:?}");
        assert_eq!(out.violations.len(), 1);
        assert_eq!(out.stats.probe_runs, 1, "{strategy:?}");
        assert!(out.stats.probe_states > 80, "{:?}", out.stats);
        assert_eq!(
            (out.stats.runs, out.stats.states),
            (0, 0),
            "{:?}",
            out.stats
        );
        assert!(out.stats.time_ms >= out.stats.probe_time_ms * 0.99);
        assert!(out.incomplete.is_empty(), "{:?}", out.incomplete);
        assert_eq!(out.strategy, strategy);
    }
}

/// Without the probe, 1,000 states of the search do not reach the run (the bug the probe
/// is for); with `all_violations` the search runs anyway and the probe's violation is
/// listed beside its bound.
#[test]
fn without_the_probe_the_search_misses_it_and_all_violations_keeps_the_probes() {
    let source = increments(20, "counter != 40");
    let off = verify(&source, "no_lost_update_off.c", |c| {
        c.probe = false;
        c.max_states = Some(1_000);
    });
    assert_eq!(off.verdict, Verdict::Unknown, "{:?}", off.stats);
    assert_eq!(off.stats.probe_states, 0);
    let all = verify(&source, "no_lost_update_all.c", |c| {
        c.all_violations = true;
        c.max_states = Some(1_000);
    });
    assert_eq!(all.verdict, Verdict::Violation, "{:?}", all.stats);
    assert_eq!(all.violations.len(), 1);
    // The non-preemptive run, then the other schedules (all_violations: every one).
    assert!(all.stats.probe_runs >= 1, "{:?}", all.stats);
    assert!(all.stats.states > 0, "the search ran: {:?}", all.stats);
    assert!(
        all.incomplete
            .iter()
            .any(|i| i.reason == Reason::StateBound),
        "{:?}",
        all.incomplete
    );
}

/// Differential: verdicts with and without the probe agree on small versions (where the
/// search decides on its own), and where the probe finds nothing the search's runs,
/// partial runs and states are those without it.
#[test]
fn the_probe_changes_no_verdict_and_no_search_count() {
    for n in 1..=3 {
        let total = 2 * n;
        for (check, expected) in [
            (format!("counter != {total}"), Verdict::Violation),
            (format!("counter == {total}"), Verdict::Violation),
            (format!("counter <= {total}"), Verdict::Safe),
            ("counter >= 1".to_string(), Verdict::Safe),
        ] {
            let source = increments(n, &check);
            for strategy in [Strategy::Dpor, Strategy::DporAg] {
                let name = format!("inc_{n}_{}.c", check.len());
                let on = verify(&source, &name, |c| c.strategy = strategy);
                let off = verify(&source, &name, |c| {
                    c.strategy = strategy;
                    c.probe = false;
                });
                let what = format!("n={n} assert({check}) {strategy:?}");
                assert_eq!(on.verdict, expected, "{what}");
                assert_eq!(off.verdict, expected, "{what}");
                assert!(on.stats.probe_states > 0, "{what}");
                if on.stats.states > 0 {
                    // The probe found nothing: the search is the one without it.
                    assert_eq!(on.stats.runs, off.stats.runs, "{what}");
                    assert_eq!(on.stats.partial_runs, off.stats.partial_runs, "{what}");
                    assert_eq!(on.stats.states, off.stats.states, "{what}");
                } else {
                    // The probe decided: the violation it reports is the search's.
                    assert_eq!(on.violations[0].span, off.violations[0].span, "{what}");
                }
            }
        }
    }
}

/// A short search that did not finish is not wasted: the search after it runs on its
/// engine with its summaries (`Engine::restart_with_summaries`), reaches the verdict of
/// a search without the probe, and explores fewer states than that search.
#[test]
fn the_search_after_a_short_search_prunes_what_that_one_explored() {
    for check in ["counter <= 6", "counter >= 2"] {
        let expected = Verdict::Safe;
        let source = increments(3, check);
        let off = verify(&source, "inc_resumed.c", |c| c.probe = false);
        assert_eq!(off.verdict, expected, "{check}: {off:?}");
        let half = off.stats.states / 2;
        // Time enough for the state bound to stop the short search on any machine.
        let on = verify(&source, "inc_resumed.c", |c| {
            c.probe_quick_states = Some(half);
            c.probe_quick_time = Some(Duration::from_secs(60));
        });
        assert_eq!(on.verdict, expected, "{check}: {:?}", on.stats);
        assert_eq!(on.stats.probe_quick_searches, 1, "{check}: {:?}", on.stats);
        assert!(
            on.stats.states < off.stats.states,
            "{check}: the search after the short one explored {} states, a fresh one {}",
            on.stats.states,
            off.stats.states
        );
    }
}

/// Where the clock stops the short search depends on the machine, so the search after
/// a short search the clock stopped starts afresh: its statistics are those of the
/// search without the probe. (A short search given no time at all is stopped by the
/// clock at its first node on any machine.)
#[test]
fn the_search_after_a_short_search_the_clock_stopped_counts_as_without_the_probe() {
    for check in ["counter <= 6", "counter >= 2"] {
        let source = increments(3, check);
        let off = verify(&source, "inc_clocked.c", |c| c.probe = false);
        let on = verify(&source, "inc_clocked.c", |c| {
            c.probe_quick_time = Some(Duration::ZERO)
        });
        assert_eq!(on.verdict, Verdict::Safe, "{check}: {:?}", on.stats);
        assert_eq!(on.stats.probe_quick_searches, 1, "{check}: {:?}", on.stats);
        assert_eq!(
            (on.stats.runs, on.stats.partial_runs, on.stats.states),
            (off.stats.runs, off.stats.partial_runs, off.stats.states),
            "{check}"
        );
    }
}

mod common;

use common::{project_root, stat, verify_json, witness};
use std::path::Path;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);

/// The line of `file` marked `// VIOLATION`.
fn marked_line(root: &Path, file: &str) -> u64 {
    let text = std::fs::read_to_string(root.join(file)).expect("fixture");
    text.lines()
        .position(|l| l.trim_end().ends_with("// VIOLATION"))
        .map(|i| i as u64 + 1)
        .expect("a // VIOLATION line")
}

fn verify_fixture(root: &Path, file: &str, configure: impl Fn(&mut Config)) -> SearchOutcome {
    let program =
        analysis::load_program(&root.join(file), &FrontendOptions::default()).expect("lowers");
    let mut c = Config::default();
    configure(&mut c);
    symbolic::verify(&program, &c).expect("verify")
}

/// fkp2013's kind (session 10): `main` creates a checker and then eight incrementers and
/// returns. The non-preemptive probe ends the program at `main`'s return, and the search
/// does not reach the one order that fails within 20,000 states; the probe's second
/// schedule (the newest thread first, the program's end last) is that order, and the
/// search does not run.
#[test]
fn the_newest_first_schedule_finds_what_the_search_does_not() {
    let root = project_root();
    let file = "fixtures/probe/newest_first.c";
    let line = marked_line(&root, file);
    for strategy in [Strategy::Dpor, Strategy::DporAg] {
        let off = verify_fixture(&root, file, |c| {
            c.strategy = strategy;
            c.probe_schedules = false;
            c.max_states = Some(20_000);
        });
        assert_eq!(
            off.verdict,
            Verdict::Unknown,
            "{strategy:?}: {:?}",
            off.stats
        );
        assert_eq!(off.stats.probe_schedules, 0);
        let on = verify_fixture(&root, file, |c| {
            c.strategy = strategy;
            c.max_states = Some(20_000);
        });
        assert_eq!(
            on.verdict,
            Verdict::Violation,
            "{strategy:?}: {:?}",
            on.stats
        );
        assert_eq!(on.violations[0].span.line, line as u32, "{strategy:?}");
        assert_eq!(on.stats.probe_schedules, 1, "{strategy:?}: {:?}", on.stats);
        assert_eq!((on.stats.runs, on.stats.states), (0, 0), "{:?}", on.stats);
    }
}

/// The same through `agx verify`: the violation, reported with the probe's statistics,
/// and a witness that replays on the interpreter to the marked line.
#[test]
fn agx_verify_reports_the_schedules_violation_and_its_witness_replays() {
    let root = project_root();
    let file = "fixtures/probe/newest_first.c";
    let line = marked_line(&root, file);
    for strategy in ["dpor", "dpor+ag"] {
        let on = verify_json(&root, file, &["--no-store", "--strategy", strategy]);
        assert_eq!(on["verdict"], "violation", "{strategy}: {on}");
        assert_eq!(
            on["violation"]["line"].as_u64(),
            Some(line),
            "{strategy}: {on}"
        );
        assert_eq!(stat(&on, "probe_schedules"), 1, "{strategy}: {on}");
        assert_eq!(stat(&on, "states"), 0, "{strategy}: the search ran: {on}");
        let run = witness::replay(&root, &root.join(file), &on, "probe", line, LIMIT)
            .unwrap_or_else(|e| panic!("{strategy}: {e}"));
        assert_eq!(run.code, Some(1), "{strategy}: {}", run.stderr);
        assert!(
            run.stderr.contains(&format!("newest_first.c:{line}")),
            "{strategy}: {}",
            run.stderr
        );
    }
}

/// A probe schedule stops after its run bound (`probe::PROBE_MAX_RUNS`, 16): a thread
/// that reads 40 range-checked inputs forks at each, and the probe no longer makes a run
/// per iteration before the search. The search after it is the one without the probe,
/// and a bug in an input class past the bound (`assert(hit)` fails only when the first
/// input is not 3: the other side of the first fork, which the probe's depth-first order
/// reaches last, at its 80th run) is found by the search.
#[test]
fn the_probe_stops_after_its_run_bound_and_the_search_is_unchanged() {
    let source = |check: &str| {
        format!(
            "#include <pthread.h>\n#include <stdlib.h>\n#include <assert.h>\n\
             unsigned __VERIFIER_nondet_uint(void);\nunsigned sum = 0, hit = 0;\n\
             void *t(void *a) {{\n  for (int i = 0; i < 40; i++) {{\n\
             \x20   unsigned v = __VERIFIER_nondet_uint();\n    if (!(v < 8)) abort();\n\
             \x20   if (i == 0 && v == 3) hit = 1;\n    sum += v;\n  }}\n  return 0;\n}}\n\
             int main(void) {{\n  pthread_t x;\n  pthread_create(&x, 0, t, 0);\n\
             \x20 pthread_join(x, 0);\n  assert({check});\n  return 0;\n}}\n"
        )
    };
    for (check, expected) in [("sum <= 280", Verdict::Safe), ("hit", Verdict::Violation)] {
        for strategy in [Strategy::Dpor, Strategy::DporAg] {
            let what = format!("assert({check}) {strategy:?}");
            let name = format!("range_checked_{}.c", check.len());
            // The first schedule only: the short search and the further schedules
            // run when the short search is stopped by its clock (1 s), which a loaded
            // machine running a debug build may do.
            let on = verify(&source(check), &name, |c| {
                c.strategy = strategy;
                c.probe_schedules = false;
                c.probe_thread_bounds = false;
            });
            let off = verify(&source(check), &name, |c| {
                c.strategy = strategy;
                c.probe = false;
            });
            assert_eq!(on.verdict, expected, "{what}");
            assert_eq!(off.verdict, expected, "{what}");
            let probe_runs = on.stats.probe_runs + on.stats.probe_partial_runs;
            assert_eq!(probe_runs, 16, "{what}: {:?}", on.stats);
            // All but the first were stopped by an out-of-range input (`blocked_runs`).
            assert_eq!(on.stats.probe_blocked_runs, 15, "{what}: {:?}", on.stats);
            // The search ran, and it is the one without the probe.
            assert!(on.stats.states > 0, "{what}: {:?}", on.stats);
            assert_eq!(on.stats.runs, off.stats.runs, "{what}");
            assert_eq!(on.stats.states, off.stats.states, "{what}");
        }
    }
}
