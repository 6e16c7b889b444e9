//! The ends of runs: a leaf's verdict (a violation reported with its replayed witness,
//! a bound or undefined behaviour noted), the continuation past an eager end, and the
//! accesses and races a run's last step contributes to DPOR and the summaries.

use super::dpor::{Access, Loc};
use super::engine::{set_clock, Engine, Sub};
use super::smt::Answer;
use super::state::{State, Tid};
use super::step::StepCtx;
use super::summary::Accesses;
use super::Reason;
use super::{Checks, Strategy};
use crate::concrete::ViolationKind;
use analysis::ir::Span;
/// How a run ends inside a step.
#[derive(Clone, Debug)]
pub enum End {
    /// The program completed (main returned, `exit`, every thread ended).
    Completed,
    /// `abort()`.
    Aborted,
    /// A property violation (reported or not, depending on [`Checks`]).
    Violation {
        kind: ViolationKind,
        message: String,
        span: Span,
        tid: Tid,
    },
    /// The run ends in a thread's local code without a violation: a false `assume`
    /// (and, with a `gap`, an `abort()` or `exit()`). `gap`: this happened after the step
    /// had effects on other threads; the interpreter ends the run there, while SV-COMP's
    /// semantics only stops the thread, which may let other threads reach more (the
    /// engine explores that continuation too, see [`Engine::frozen_check`]).
    AssumeFalse { gap: Option<String> },
    /// No thread can run and some have not ended.
    Deadlock { span: Span, tid: Tid },
    /// Behaviour outside the model.
    Unsupported(String),
    /// A bound stopped the run: (reason, detail).
    Bound(Reason, String),
}

fn is_assertion(kind: ViolationKind) -> bool {
    matches!(kind, ViolationKind::Assertion | ViolationKind::ReachError)
}

impl<'p> Engine<'p> {
    // ---- the ends of runs ----

    /// A run ends inside a step.
    pub fn leaf(&mut self, st: &State, end: End, k: &StepCtx) -> Sub {
        self.count_run(matches!(end, End::Aborted | End::AssumeFalse { .. }));
        self.trace_event(|| format!("run ends ({end:?})"));
        if k.tid.is_some() {
            // For optimal DPOR's `NodeInfo::cut`.
            self.search.dpor.ended_in_step += 1;
        }
        self.races_at_end(st, k);
        if let Some(t) = k.tid.filter(|_| self.setup.cfg.checks.race) {
            self.races_of_section(t, &k.foot, true);
        }
        let start = match (k.tid, self.search.dpor.nodes.last()) {
            (Some(t), Some(n)) => n.clocks.get(t).cloned().unwrap_or_default(),
            _ => Default::default(),
        };
        let rw = self.step_rw(st, k, &start, true);
        let safe = match end {
            End::Completed | End::Aborted => true,
            End::AssumeFalse { gap } => {
                if let Some(what) = gap {
                    self.frozen_check(st, k, what);
                }
                true
            }
            End::Deadlock { span, tid } => {
                if self.setup.cfg.checks.deadlock && !self.path.frozen.is_empty() {
                    let what = self.path.frozen.last().cloned().unwrap_or_default();
                    let detail = format!(
                        "a deadlock at {} is reachable if {what}",
                        self.location(span)
                    );
                    self.incomplete(Reason::EagerEnd, detail);
                    false
                } else if self.setup.cfg.checks.deadlock {
                    let message = "deadlock: no thread can run".to_string();
                    self.report(ViolationKind::Deadlock, message, span, tid);
                    false
                } else {
                    true
                }
            }
            End::Violation {
                kind,
                message,
                span,
                tid,
            } => {
                if self.reported(kind, span) && !self.path.frozen.is_empty() {
                    let what = self.path.frozen.last().cloned().unwrap_or_default();
                    let detail = format!(
                        "{message} at {} is reachable if {what}",
                        self.location(span)
                    );
                    self.incomplete(Reason::EagerEnd, detail);
                } else if self.reported(kind, span) {
                    self.report(kind, message, span, tid);
                } else if !is_assertion(kind) {
                    let detail = format!("{message} at {}", self.location(span));
                    self.incomplete(Reason::UndefinedBehaviour, detail);
                } else if kind == ViolationKind::ReachError
                    && self.setup.cfg.checks.no_assertions
                    && !self.setup.reach_error_ends_program
                {
                    // The program could go on past it (SV-COMP's `reach_error` is an
                    // ordinary function); the interpreter ends the run here. (A failed
                    // `assert` aborts the program: nothing follows it, and neither does
                    // a `reach_error` whose definition aborts.)
                    let detail = format!(
                        "{message} at {} ends the run here; what follows is not checked",
                        self.location(span)
                    );
                    self.incomplete(Reason::Unsupported, detail);
                }
                false
            }
            End::Unsupported(what) => {
                self.incomplete(Reason::Unsupported, what);
                false
            }
            End::Bound(reason, detail) => {
                self.incomplete(reason, detail);
                false
            }
        };
        let wp = self.pool.bool_const(safe);
        Sub { wp, rw }
    }

    /// Counts a run that ended; `blocked`: a thread of it waits forever or an `assume` or
    /// `abort()` stopped it. The continuation explored with a stopped thread
    /// ([`Engine::frozen_check`]) is blocked too: the peers' "assume-blocked" executions.
    pub fn count_run(&mut self, blocked: bool) {
        self.search.stats.runs += 1;
        if blocked || !self.path.frozen.is_empty() {
            self.search.stats.blocked_runs += 1;
        }
    }

    /// A run ended in thread `k.cur`'s local code after the step affected other threads.
    /// The interpreter (whose runs witnesses must be) ends the run there; SV-COMP's
    /// interleaving semantics would only stop that thread. The continuation with the
    /// thread stopped is explored too: a violation found there cannot be replayed, so it
    /// makes the verdict `unknown` (reason `eager-end`) instead of being reported.
    pub fn frozen_check(&mut self, st: &State, k: &StepCtx, what: String) {
        let t = k.cur;
        if st.atomic_owner == Some(t) {
            return;
        }
        let mut frozen = st.clone();
        frozen.threads[t].status = super::state::Status::Stopped;
        let (trace, inputs) = (self.path.trace.len(), self.path.inputs.len());
        self.path.frozen.push(what);
        let mut k2 = k.clone();
        let _ = match k2.resume.pop() {
            Some(c) => self.explore_step(frozen, c, k2),
            None => self.end_step(frozen, k2),
        };
        self.path.frozen.pop();
        self.path.trace.truncate(trace);
        self.path.inputs.truncate(inputs);
    }

    /// Is a violation of this kind at this place reported?
    fn reported(&self, kind: ViolationKind, span: Span) -> bool {
        let Checks {
            deadlock,
            memory,
            no_assertions,
            ..
        } = self.setup.cfg.checks;
        let kind_ok = match kind {
            ViolationKind::Assertion | ViolationKind::ReachError => !no_assertions,
            ViolationKind::Deadlock => deadlock,
            _ => memory,
        };
        let place_ok = match &self.setup.cfg.targets {
            None => true,
            Some(ts) => ts.iter().any(|&(f, l)| span.file == f && span.line == l),
        };
        kind_ok && place_ok
    }

    /// Builds, replays and records the witness of a violation on the current path (once
    /// per kind and place).
    fn report(&mut self, kind: ViolationKind, message: String, span: Span, tid: Tid) {
        if self
            .search
            .found
            .iter()
            .any(|f| f.kind == kind && f.span == span)
        {
            return;
        }
        // Prefer inputs under which the explored sides of the path's Type B branch
        // pivots really run: the interpreter then follows the path exactly.
        let mut model = self.path.model.clone();
        let mut exact = true;
        if !self.path.dropped_guards.is_empty() {
            let mut all = self.pool.tru();
            for &g in &self.path.dropped_guards.clone() {
                all = self.pool.and(all, g);
            }
            let wanted = self.wanted();
            match self.smt.check(&self.pool, &self.path.pcon, all, &wanted) {
                Answer::Sat(m) => {
                    for (v, val) in m.iter() {
                        model.set(*v, *val);
                    }
                }
                _ => exact = false,
            }
        }
        match super::witness::build_and_replay(self, &model, kind, &message, span) {
            Err(_) if !exact => {
                // Only a skipped side leads here with these inputs, and the replay took
                // a different schedule through it: redo the search without Type B
                // branch pivots (sound either way; this finds a replayable witness).
                self.search.retry_without_type_b = true;
                self.search.stop = true;
            }
            Ok(found) => {
                let _ = tid;
                self.search.found.push(found);
                if !self.setup.cfg.all_violations {
                    self.search.stop = true;
                }
            }
            Err(e) => {
                self.search.error = Some(e);
                self.search.stop = true;
            }
        }
    }

    /// The accesses of the current step as RVar/WVar entries, with the thread's clock
    /// before the step.
    /// A step that ends the run touches everything (other threads are cut off).
    pub fn step_rw(
        &self,
        st: &State,
        k: &StepCtx,
        clock: &super::dpor::VClock,
        ends_run: bool,
    ) -> Accesses {
        let mut rw = Accesses::default();
        if !self.setup.wp_on {
            return rw;
        }
        if let Some(t) = k.tid {
            if ends_run && self.defers_exit() && Self::ends_program(st, t) {
                // A deferred exit's races are never reversed (see `search`, "Exit
                // deferral"): repairing them for a pruned subtree would only schedule
                // every enabled thread where the exit cannot run.
                return rw;
            }
            let key = st.threads[t].key;
            let mut add = |a: Access| {
                let last = self.search.dpor.last_race(t, clock, &a);
                rw.add((key, a), clock, last);
            };
            for a in &k.foot {
                add(*a);
            }
            let others_live = (0..st.threads.len()).any(|u| u != t && st.is_live(u));
            if ends_run && others_live {
                add(Access::write(Loc::All));
            }
        }
        rw
    }

    /// At the end of a run inside a step: the step (which ends the run, so it is
    /// dependent with everything) races with every other thread's pending event.
    /// Returns the step's clock.
    fn races_at_end(&mut self, st: &State, k: &StepCtx) -> super::dpor::VClock {
        let Some(t) = k.tid else {
            return Default::default();
        };
        if self.setup.cfg.strategy == Strategy::Baseline {
            return Default::default();
        }
        let node = self.search.dpor.nodes.len() - 1;
        let start = self.search.dpor.nodes[node]
            .clocks
            .get(t)
            .cloned()
            .unwrap_or_default();
        let foot = vec![Access::write(Loc::All)];
        let clock = self.search.dpor.clock_of(t, &start, &foot);
        let step = super::dpor::EventInfo {
            tid: t,
            node,
            foot,
            clock: clock.clone(),
        };
        self.search.dpor.push_step(step, false);
        let mut clocks = self.search.dpor.nodes[node].clocks.clone();
        set_clock(&mut clocks, t, clock.clone());
        for p in 0..st.threads.len() {
            if p == t || !st.is_live(p) {
                continue;
            }
            if let Some(foot) = self.pending_footprint(st, p) {
                let c = clocks.get(p).cloned().unwrap_or_default();
                self.search.dpor.races_of_pending(p, &c, &foot);
            }
        }
        self.search.dpor.pop_step();
        clock
    }
}

#[cfg(test)]
mod tests {
    use crate::symbolic::{verify, Config, Strategy, Verdict};
    use crate::test_support::lower;

    /// A thread reads an input and stops where it is out of range (`stop`: an `assume`
    /// or an `abort()`), then `main` asserts what the in-range side guarantees.
    fn checked_input(stop: &str) -> String {
        format!(
            "#include <pthread.h>\n#include <stdlib.h>\n#include <assert.h>\n\
             unsigned __VERIFIER_nondet_uint(void);\nvoid __VERIFIER_assume(int);\n\
             unsigned x = 0;\n\
             void *t(void *a) {{\n  unsigned v = __VERIFIER_nondet_uint();\n  {stop}\n\
             \x20 x = v;\n  return 0;\n}}\n\
             int main(void) {{\n  pthread_t h;\n  pthread_create(&h, 0, t, 0);\n\
             \x20 pthread_join(h, 0);\n  assert(x < 8);\n  return 0;\n}}\n"
        )
    }

    /// The peers count an execution that an `assume` or `abort()` stopped as blocked,
    /// apart from complete ones: so does `blocked_runs`.
    #[test]
    fn a_run_a_failed_assume_or_abort_ends_is_blocked() {
        for (name, stop) in [
            ("assume.c", "__VERIFIER_assume(v < 8);"),
            ("abort.c", "if (!(v < 8)) abort();"),
        ] {
            let prog = lower(name, &checked_input(stop));
            let config = Config {
                strategy: Strategy::Dpor,
                probe: false,
                ..Config::default()
            };
            let out = verify(&prog, &config).expect("verifies");
            assert_eq!(out.verdict, Verdict::Safe, "{name}");
            // One complete run; the rest were stopped. The `abort()` ends the step that
            // created the thread (which runs the new thread's local code), after the
            // creation: the run with only that thread stopped (`main` then waits for it
            // forever, `Engine::frozen_check`) is explored too, and is blocked as well.
            let s = &out.stats;
            let stopped = if name == "abort.c" { 2 } else { 1 };
            assert_eq!(
                (s.runs, s.blocked_runs),
                (1 + stopped, stopped),
                "{name}: {s:?}"
            );
        }
    }

    /// Under `--no-assertions` a `reach_error()` call ends the run. That is the program's
    /// end only when its definition aborts; a race-free program that reaches it is SAFE
    /// then, and UNKNOWN when `reach_error` returns and its caller could go on to race.
    #[test]
    fn reach_error_ends_a_race_check_s_run_only_when_its_definition_aborts() {
        let program = |def: &str| {
            format!(
                "#include <pthread.h>\n#include <assert.h>\n{def}\n\
                 int x;\npthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;\n\
                 void *t(void *a) {{ pthread_mutex_lock(&m); x = x + 1; \
                 pthread_mutex_unlock(&m); return 0; }}\n\
                 int main(void) {{\n  pthread_t h;\n  pthread_create(&h, 0, t, 0);\n\
                 \x20 pthread_mutex_lock(&m);\n  int v = x;\n  pthread_mutex_unlock(&m);\n\
                 \x20 if (v == 0) reach_error();\n  pthread_join(h, 0);\n  return 0;\n}}\n"
            )
        };
        let config = Config {
            checks: crate::symbolic::Checks {
                race: true,
                no_assertions: true,
                ..Default::default()
            },
            ..Config::default()
        };
        for (def, expected) in [
            ("void reach_error() { assert(0); }", Verdict::Safe),
            ("void reach_error() {}", Verdict::Unknown),
        ] {
            let prog = lower("reach.c", &program(def));
            let out = verify(&prog, &config).expect("verifies");
            assert_eq!(out.verdict, expected, "{def}: {:?}", out.incomplete);
        }
    }
}
