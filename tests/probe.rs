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
    assert_eq!(all.stats.probe_runs, 1);
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
