//! The await reduction (issue 15): a failing `assume` inside an atomic section that has
//! had no effect visible to other threads blocks the thread instead of ending the run.
//!
//! SV-COMP's `__VERIFIER_atomic_acquire(int *m) { assume_abort_if_not(*m == 0); *m = 1; }`
//! is an *await*: the section runs atomically, and where its condition is false the
//! interpreter's semantics ends the whole run (`abort()`, or an infeasible `assume`).
//! Each such attempt is a run of its own that finds nothing: on pthread-ext's
//! 25_stack, 2,261 of 2,263 runs were aborted acquires (docs/performance.md, session 7).
//! Nidhugg and GenMC treat such an assume as blocking the thread; so does this engine
//! when `Config::await_assumes` is on.
//!
//! **The rule.** Let thread `t`'s step start with `AtomicBegin` (the outermost one: a
//! step's pending event is its only visible event outside a section, so a section always
//! starts a step) and let `t`, still inside that section, reach a failing `assume` (the
//! `false` side of `__VERIFIER_assume`) or `abort()`. If, up to that point, the step
//! 1. wrote nothing other threads can see (no store — even to a private object —, no
//!    synchronization other than `AtomicBegin`, no thread creation or end, no `free`:
//!    `StepCtx::shared_effect` is unset),
//! 2. consumed no input and allocated no heap block,
//!
//! then `t` gets the status [`Status::Awaiting`](super::state::Status::Awaiting): the
//! atomic section is left (nobody owns it), `t` takes no further step in this run, the
//! other threads go on, and a run in which only awaiting (or spinning) threads remain
//! besides blocked ones is not a deadlock. The step stays on the path as a step of `t`
//! whose footprint is the section's reads (`StepCtx::foot`), so DPOR's race detection
//! sees a later write to what the assume read as racing with it. Its interpreter events
//! are *void*: a marker on the trace ([`super::path::TraceItem::void_from`]) removes them
//! from witnesses, whose schedule then never runs the failed attempt.
//! Otherwise (the section wrote something, or there is no section) the run ends as before.
//!
//! **Soundness.** Let `ρ = α · σ · β` be a run of the interpreter where `σ` is `t`'s
//! attempt: the events of `t` from `AtomicBegin` to the failing assume, with no visible
//! effect (1, 2). Since `σ` is atomic, no event of another thread lies inside it; since
//! it writes nothing shared and consumes no input, deleting it changes no value read in
//! `β` and no input consumed there: `α · β` is a run of the interpreter in which `t`
//! stands at its `AtomicBegin`, not yet scheduled. Conversely every run `α · β` in which
//! `t` is never scheduled again is a run in which `t` stays at that `AtomicBegin`, and
//! (in the interpreter, where the attempt would end the run) every continuation that
//! schedules `t` is either a successful attempt, explored where the engine explores `t`'s
//! step after `α · β'` for the prefixes `β'` of `β`, or a failing one, which ends the run
//! without a violation. So the violations reachable by the interpreter are those reachable
//! when failing attempts block: every statement of the other threads reachable after a
//! failed attempt is reachable in `α · β`, and every statement of `t` after its section
//! is reached by a successful attempt. The search explores the successful attempts:
//! the failed one's footprint holds every read the condition depends on (a false
//! condition reads only memory and registers, and registers depend on earlier reads of
//! `t`, which are on the path); a write `w` in `β` by another thread that makes the
//! condition true changes a value the section read, so it races with `t`'s step (the
//! two are dependent and unordered: `t` ran nothing afterwards), and DPOR explores the
//! reversal, `w` before `t`'s attempt — by the same argument as for spin loops
//! (`analysis::spin`), whose failing iterations are exactly such attempts without a
//! section. With the attempt left out of the witness, the replayed run is `α · β`, a
//! run of the interpreter; a violation is reported only when it replays.
//!
//! Not reduced: an assume that fails after a store in the section (the program's abort
//! semantics: the run ends), outside an atomic section, or in `main`'s first step; the
//! guided search, data-race checking and a preemption bound run without the reduction
//! (like the spin-loop reduction: a witness's preemptions or a race's access would lie in
//! the void events). The baseline search (`Strategy::Baseline`, every interleaving) runs
//! without it too: it saves runs only through DPOR, where an aborted run's step races
//! with every thread (the run's end touches everything) and the failed section's step
//! only with writes to what it read; without DPOR, a run that goes on past the failed
//! attempt is explored in every interleaving of the rest (measured: 398 runs against 368
//! on `fixtures/verify/await_lock_order.c`).

use super::engine::Engine;
use super::path::TraceItem;
use super::state::{State, Status, Tid};
use super::step::StepCtx;

/// Where the outermost atomic section of a step began (recorded at its `AtomicBegin`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SectionStart {
    pub tid: Tid,
    /// Index of the `AtomicBegin` event on the path's trace.
    pub trace: usize,
    /// The path's inputs at that point.
    pub inputs: usize,
    /// The thread's heap allocations at that point.
    pub allocs: u64,
}

/// The heap blocks thread `t` has allocated (all sites).
fn allocations(st: &State, t: Tid) -> u64 {
    st.threads[t].allocs.values().map(|&n| u64::from(n)).sum()
}

impl<'p> Engine<'p> {
    /// At an `AtomicBegin` of thread `t` that opens its outermost section: note where
    /// the section began when it starts the step with nothing visible done yet.
    pub(super) fn note_section_start(&self, st: &State, t: Tid, k: &mut StepCtx) {
        k.section = None;
        if !self.setup.await_on || k.tid != Some(t) || k.shared_effect.is_some() {
            return;
        }
        let Some(trace) = self.path.trace.len().checked_sub(1) else {
            return;
        };
        k.section = Some(SectionStart {
            tid: t,
            trace,
            inputs: self.path.inputs.len(),
            allocs: allocations(st, t),
        });
    }

    /// May thread `t`, at a failing assume or `abort()`, await instead of ending the run?
    /// (The module doc's conditions.)
    pub(super) fn may_await(&self, st: &State, t: Tid, k: &StepCtx) -> bool {
        let Some(s) = k.section else {
            return false;
        };
        self.setup.await_on
            && s.tid == t
            && k.tid == Some(t)
            && st.atomic_owner == Some(t)
            && st.threads[t].atomic > 0
            && k.shared_effect.is_none()
            && k.created.is_empty()
            && self.path.inputs.len() == s.inputs
            && allocations(st, t) == s.allocs
    }

    /// Puts thread `t` in the awaiting status, its section left. `noted`: the marker
    /// that voids the section's events is written now (else when the thread is next
    /// driven, see [`Engine::note_await`]).
    pub(super) fn start_await(&mut self, st: &mut State, t: Tid, k: &StepCtx, now: bool) {
        let th = &mut st.threads[t];
        th.status = Status::Awaiting { noted: false };
        th.atomic = 0;
        st.atomic_owner = None;
        if now {
            self.note_await(st, t, k);
        }
    }

    /// Writes the marker that voids the events of `t`'s failed section since its
    /// `AtomicBegin`, and counts the await.
    pub(super) fn note_await(&mut self, st: &mut State, t: Tid, k: &StepCtx) {
        let Some(s) = k.section else {
            return;
        };
        st.threads[t].status = Status::Awaiting { noted: true };
        self.search.stats.awaits += 1;
        let last = self.path.trace.get(s.trace).copied();
        if let Some(begin) = last {
            self.path.trace.push(TraceItem {
                void_from: Some(s.trace as u32),
                ..begin
            });
        }
        self.trace_event(|| format!("thread {t} awaits (its atomic section failed)"));
    }
}

/// The interpreter steps of a trace: every item but the await markers and the events
/// they void (the items of the marker's thread from the marker's index on).
pub fn interpreter_steps(trace: &[TraceItem]) -> Vec<TraceItem> {
    if trace.iter().all(|i| i.void_from.is_none()) {
        return trace.to_vec();
    }
    let mut keep = vec![true; trace.len()];
    for (j, item) in trace.iter().enumerate() {
        if let Some(from) = item.void_from {
            keep[j] = false;
            for i in from as usize..j {
                if trace[i].tid == item.tid {
                    keep[i] = false;
                }
            }
        }
    }
    trace
        .iter()
        .zip(keep)
        .filter(|(_, k)| *k)
        .map(|(i, _)| *i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::interpreter_steps;
    use crate::concrete::{replay, EventKind, RunOutcome};
    use crate::symbolic::path::TraceItem;
    use crate::symbolic::{verify, Config, SearchOutcome, Strategy, Verdict};
    use crate::test_support::lower;
    use analysis::ir::{FileId, Span, StmtId};

    /// A lock of atomic functions; `$CHECK` is the acquire's test (before `*l = 1`).
    const LOCK: &str = r#"
#include <assert.h>
#include <pthread.h>
extern void abort(void);
extern void __VERIFIER_assume(int);
int m = 0, x = 0, attempts = 0;
void __VERIFIER_atomic_acquire(int *l) {
    $CHECK
    *l = 1;
}
void __VERIFIER_atomic_release(int *l) {
    if (*l != 1) abort();
    *l = 0;
}
void *writer(void *arg) {
    __VERIFIER_atomic_acquire(&m);
    x = 1;
    x = 2;
    __VERIFIER_atomic_release(&m);
    return 0;
}
void *reader(void *arg) {
    __VERIFIER_atomic_acquire(&m);
    assert(x != 2);
    __VERIFIER_atomic_release(&m);
    return 0;
}
int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, writer, 0);
    pthread_create(&b, 0, reader, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    return 0;
}
"#;

    fn search(prog: &analysis::ir::Program, strategy: Strategy, on: bool) -> SearchOutcome {
        let cfg = Config {
            strategy,
            await_assumes: on,
            all_violations: true,
            ..Config::default()
        };
        verify(prog, &cfg).expect("searches")
    }

    #[test]
    fn a_failed_acquire_awaits_and_the_violation_after_its_reversal_replays() {
        for (name, check) in [
            ("await_abort.c", "if (*l != 0) abort();"),
            ("await_assume.c", "__VERIFIER_assume(*l == 0);"),
        ] {
            let prog = lower(name, &LOCK.replace("$CHECK", check));
            let base = search(&prog, Strategy::Baseline, true);
            assert_eq!(base.stats.awaits, 0, "{name}: the baseline search awaits");
            assert_eq!(base.verdict, Verdict::Violation, "{name}");
            for strategy in [Strategy::Dpor, Strategy::DporAg] {
                let on = search(&prog, strategy, true);
                let off = search(&prog, strategy, false);
                assert_eq!(on.verdict, Verdict::Violation, "{name} {strategy:?}");
                assert_eq!(off.verdict, Verdict::Violation, "{name} {strategy:?}");
                assert!(on.stats.awaits > 0, "{name} {strategy:?}: no await");
                assert_eq!(off.stats.awaits, 0, "{name} {strategy:?}");
                assert!(
                    on.stats.runs < off.stats.runs,
                    "{name} {strategy:?}: {} runs with awaits, {} without",
                    on.stats.runs,
                    off.stats.runs
                );
                for found in &on.violations {
                    let run = replay(&prog, &found.witness).expect("replays");
                    assert!(
                        matches!(run.outcome, RunOutcome::Violation(ref v) if v.span == found.span),
                        "{name} {strategy:?}: the witness does not replay"
                    );
                    assert_eq!(found.steps.len(), found.witness.schedule.len());
                }
            }
        }
    }

    #[test]
    fn a_section_that_stored_before_its_failing_assume_ends_the_run_as_before() {
        let src = LOCK.replace(
            "$CHECK",
            "attempts = attempts + 1;\n    if (*l != 0) abort();",
        );
        let prog = lower("await_stored.c", &src);
        for strategy in [Strategy::Dpor, Strategy::DporAg] {
            let on = search(&prog, strategy, true);
            let off = search(&prog, strategy, false);
            assert_eq!(on.stats.awaits, 0, "{strategy:?}");
            assert_eq!(on.verdict, Verdict::Violation);
            assert_eq!(
                (on.stats.runs, on.stats.partial_runs),
                (off.stats.runs, off.stats.partial_runs),
                "{strategy:?}: the reduction changed a search it does not apply to"
            );
        }
    }

    #[test]
    fn an_awaiting_thread_beside_a_blocked_one_is_not_a_deadlock() {
        // main holds the lock for good and joins the thread, whose acquire fails: the
        // interpreter aborts there (no deadlock); with the reduction the thread awaits
        // and main stays blocked, which must not be reported as a deadlock either.
        let src = r#"
#include <pthread.h>
extern void abort(void);
int m = 0;
void __VERIFIER_atomic_acquire(int *l) {
    if (*l != 0) abort();
    *l = 1;
}
void *t(void *arg) {
    __VERIFIER_atomic_acquire(&m);
    return 0;
}
int main(void) {
    pthread_t h;
    __VERIFIER_atomic_acquire(&m);
    pthread_create(&h, 0, t, 0);
    pthread_join(h, 0);
    return 0;
}
"#;
        let prog = lower("await_join.c", src);
        for on in [true, false] {
            let mut cfg = Config {
                strategy: Strategy::Dpor,
                await_assumes: on,
                ..Config::default()
            };
            cfg.checks.deadlock = true;
            let out = verify(&prog, &cfg).expect("searches");
            assert_eq!(
                out.verdict,
                Verdict::Safe,
                "await {on}: {:?}",
                out.violations
            );
            assert_eq!(out.stats.awaits > 0, on);
        }
    }

    #[test]
    fn a_marker_voids_its_threads_events_from_its_index() {
        let item = |tid, stmt| TraceItem {
            tid,
            stmt: StmtId(stmt),
            span: Span {
                file: FileId(0),
                line: 1,
                col: 1,
            },
            event: EventKind::Statement,
            void_from: None,
        };
        let mut trace = vec![item(0, 0), item(1, 1), item(1, 2), item(2, 3)];
        // Thread 1's section began at index 1 (thread 2 ran after it in another step).
        trace.push(TraceItem {
            void_from: Some(1),
            ..item(1, 1)
        });
        trace.push(item(2, 4));
        let kept: Vec<(usize, u32)> = interpreter_steps(&trace)
            .iter()
            .map(|i| (i.tid, i.stmt.0))
            .collect();
        assert_eq!(kept, vec![(0, 0), (2, 3), (2, 4)]);
    }
}
