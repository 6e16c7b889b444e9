//! Symbolic predictive analysis (Wang et al., "Symbolic predictive analysis for
//! concurrent programs", FM 2009, "Fusion"; seed paper 004): from one observed run, find
//! a violation in another interleaving of the same per-thread paths.
//!
//! [`trace`] is the observed trace file; [`ctp`] builds the concurrent trace program in
//! concurrent SSA; [`encode`] the formula over order variables with the context bound.
//! [`predict`] grows the bound 1, 2, 3, ... (or checks the one given), lifts an unsat
//! core that does not use the bound to every bound (§5.3), and turns a model into a
//! schedule and inputs that are replayed on the whole program by the concrete
//! interpreter: only a replay that fails at the predicted assertion is a PREDICTED
//! violation; any other replay is "not realizable", never a bug.

pub mod ctp;
pub mod encode;
pub mod trace;

use crate::concrete::{
    self, Execution, InputType, RunOutcome, RuntimeError, ThreadId, ViolationKind, Witness,
    WitnessInput, WITNESS_FORMAT, WITNESS_VERSION,
};
use analysis::ir::{sign_extend, truncate, Failure, Program, Span};
use ctp::Ctp;
use encode::Encoding;
use z3::ast::{Bool, Int};
use z3::SatResult;

pub use trace::{ObservedTrace, TraceError};

/// What `predict` was asked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PredictOptions {
    /// Check this context bound only; `None`: grow it from 1.
    pub context_bound: Option<u32>,
    /// Give up at this instant ([`PredictError::Deadline`]): the encoding is quadratic in
    /// the sections and writes of a cell, so a long trace (13,600 events of
    /// queue_longer) can take gigabytes and minutes. `None`: no limit.
    pub deadline: Option<std::time::Instant>,
}

/// The answer of the predictive analysis on one trace.
#[derive(Debug)]
pub enum Prediction {
    /// The observed run itself fails.
    Observed { location: String, failure: Failure },
    /// A violation in another interleaving, replayed on the whole program.
    Predicted {
        location: String,
        failure: Failure,
        context_bound: u32,
        witness: Witness,
    },
    /// The formula has a model, but its interleaving does not replay to the failure.
    NotRealizable {
        location: String,
        context_bound: u32,
        witness: Witness,
        reason: String,
    },
    /// No interleaving of the trace violates a property, within `Some(bound)`
    /// context switches, or under every bound (`None`).
    NoViolation {
        bound: Option<u32>,
        properties: usize,
    },
}

#[derive(Debug, thiserror::Error)]
pub enum PredictError {
    #[error(transparent)]
    Trace(#[from] TraceError),
    #[error(transparent)]
    Ctp(#[from] ctp::CtpError),
    #[error("the solver gave up (context bound {0})")]
    Unknown(u32),
    #[error("the time budget ran out")]
    Deadline,
}

/// Predicts from `trace` on `program`.
pub fn predict(
    program: &Program,
    trace: &ObservedTrace,
    options: &PredictOptions,
) -> Result<Prediction, PredictError> {
    let execution = trace.check(program)?;
    predict_execution(program, trace, &execution, options)
}

fn predict_execution(
    program: &Program,
    trace: &ObservedTrace,
    execution: &Execution,
    options: &PredictOptions,
) -> Result<Prediction, PredictError> {
    let ctp = ctp::build(program, execution, trace.witness.uninit)?;
    if let Some((span, failure)) = &ctp.observed_failure {
        return Ok(Prediction::Observed {
            location: program.location(*span),
            failure: failure.clone(),
        });
    }
    if ctp.properties.is_empty() {
        return Ok(Prediction::NoViolation {
            bound: None,
            properties: 0,
        });
    }
    // O_end never needs to exceed the number of events: past it the bound is vacuous.
    let vacuous = ctp.events.len() as u32 + 1;
    let mut k = options.context_bound.unwrap_or(1);
    // Threads whose events may run: `main` and the threads of the properties at first;
    // an unsat core that names idle threads releases some of them (doubling the set)
    // and the formula is built again, so a bug that needs one of a hundred similar
    // threads is found without encoding the interleavings of all hundred. Only a core
    // without idle threads (and without the bound) is an answer for the whole trace
    // program.
    let mut active = vec![false; ctp.by_thread.len()];
    active[0] = true;
    for p in &ctp.properties {
        active[p.thread as usize] = true;
    }
    let deadline = options.deadline;
    let mut encoding = encode::encode(&ctp, &active, deadline).ok_or(PredictError::Deadline)?;
    let mut bound = bound_literal(&encoding, k);
    loop {
        let idle: Vec<Bool> = (0..active.len())
            .filter(|&t| !active[t])
            .map(|t| encoding.idle[t].clone())
            .collect();
        match check(&encoding, &bound, &idle, deadline)? {
            SatResult::Sat => {
                // The smallest bound that works with these threads.
                for smaller in 1..k {
                    let b = bound_literal(&encoding, smaller);
                    if check(&encoding, &b, &idle, deadline)? == SatResult::Sat {
                        return Ok(realize(program, trace, &ctp, &encoding, smaller));
                    }
                }
                if check(&encoding, &bound, &idle, deadline)? != SatResult::Sat {
                    return Err(PredictError::Unknown(k));
                }
                return Ok(realize(program, trace, &ctp, &encoding, k));
            }
            SatResult::Unknown => return Err(PredictError::Unknown(k)),
            SatResult::Unsat => {}
        }
        let core = encoding.solver.get_unsat_core();
        let idle_in_core: Vec<usize> = (0..active.len())
            .filter(|&t| !active[t] && core.contains(&encoding.idle[t]))
            .collect();
        let bounded = core.contains(&bound);
        if idle_in_core.is_empty() && (!bounded || k >= vacuous) {
            return Ok(Prediction::NoViolation {
                bound: None,
                properties: ctp.properties.len(),
            });
        }
        if idle_in_core.is_empty() && options.context_bound.is_some() {
            return Ok(Prediction::NoViolation {
                bound: Some(k),
                properties: ctp.properties.len(),
            });
        }
        // Relax what the core names: the bound (when growing it) and idle threads.
        if bounded && options.context_bound.is_none() && k < vacuous {
            k += 1;
        }
        if !idle_in_core.is_empty() {
            let released = active.iter().filter(|&&a| a).count();
            for t in idle_in_core.into_iter().take(released.max(1)) {
                active[t] = true;
            }
            encoding = encode::encode(&ctp, &active, deadline).ok_or(PredictError::Deadline)?;
        }
        bound = bound_literal(&encoding, k);
    }
}

/// Checks the formula under `bound` and the `idle` assumptions, within `deadline` (the
/// solver's own timeout is what is left of it).
fn check(
    encoding: &Encoding,
    bound: &Bool,
    idle: &[Bool],
    deadline: Option<std::time::Instant>,
) -> Result<SatResult, PredictError> {
    if let Some(d) = deadline {
        let left = d.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return Err(PredictError::Deadline);
        }
        let mut params = z3::Params::new();
        params.set_u32(
            "timeout",
            u32::try_from(left.as_millis()).unwrap_or(u32::MAX).max(1),
        );
        encoding.solver.set_params(&params);
    }
    let mut assumptions = vec![bound.clone()];
    assumptions.extend(idle.iter().cloned());
    let result = encoding.solver.check_assumptions(&assumptions);
    let expired = deadline.is_some_and(|d| std::time::Instant::now() >= d);
    if result == SatResult::Unknown && expired {
        return Err(PredictError::Deadline);
    }
    Ok(result)
}

/// The tracked literal `cb{k} → O_end ≤ k`.
fn bound_literal(encoding: &Encoding, k: u32) -> Bool {
    let bound = Bool::new_const(format!("cb{k}"));
    encoding
        .solver
        .assert(bound.implies(encoding.end.le(Int::from_u64(u64::from(k)))));
    bound
}

/// The schedule and inputs of the model, replayed on the whole program.
fn realize(
    program: &Program,
    trace: &ObservedTrace,
    ctp: &Ctp,
    enc: &Encoding,
    k: u32,
) -> Prediction {
    let model = enc
        .solver
        .get_model()
        .expect("a satisfiable query has a model");
    let value = |i: &Int| model.eval(i, true).and_then(|v| v.as_i64()).unwrap_or(0);
    let end = value(&enc.end);
    let chosen = enc
        .chosen
        .iter()
        .position(|c| model.eval(c, true).and_then(|b| b.as_bool()) == Some(true))
        .unwrap_or(0);
    let property = &ctp.properties[chosen];
    // The prefix: every event ordered before the failing step, then the failing
    // thread's events of that step's segment, in program order.
    let mut prefix: Vec<(i64, bool, u32, usize)> = Vec::new();
    for (i, e) in ctp.events.iter().enumerate() {
        let o = value(&enc.order[i]);
        let in_failing_segment = Some(e.thread) == property.step_of.map(|s| ctp.events[s].thread)
            && o == end
            && property.step_of.is_some_and(|s| i <= s);
        if o < end || in_failing_segment {
            prefix.push((o, in_failing_segment, e.thread, i));
        }
    }
    prefix.sort();
    let position: rustc_hash::FxHashMap<usize, usize> = prefix
        .iter()
        .enumerate()
        .map(|(p, &(_, _, _, e))| (e, p))
        .collect();
    let schedule: Vec<ThreadId> = prefix.iter().map(|&(_, _, t, _)| ThreadId(t)).collect();
    let mut inputs: Vec<(i64, usize, WitnessInput)> = Vec::new();
    for (n, input) in ctp.inputs.iter().enumerate() {
        let at = match input.step_of {
            None => -1,
            Some(e) => match position.get(&e) {
                Some(&p) => p as i64,
                None => continue,
            },
        };
        let bits = model
            .eval(&input.var, true)
            .and_then(|v| v.as_u64())
            .unwrap_or(0);
        let w = input.ty.bits(program.data_model);
        let value = if input.ty.is_signed() {
            i128::from(sign_extend(bits, w))
        } else {
            i128::from(truncate(bits, w))
        };
        inputs.push((
            at,
            n,
            WitnessInput {
                value,
                ty: InputType(input.ty),
            },
        ));
    }
    inputs.sort_by_key(|&(at, n, _)| (at, n));
    let witness = Witness {
        format: WITNESS_FORMAT.to_string(),
        version: WITNESS_VERSION,
        program: trace.program.clone(),
        data_model: trace.witness.data_model.clone(),
        uninit: trace.witness.uninit,
        inputs: inputs.into_iter().map(|(_, _, i)| i).collect(),
        schedule,
        spurious_wakeups: false,
        data_races: false,
        args: trace.witness.args.clone(),
        context: trace.witness.context.clone(),
    };
    let location = program.location(property.span);
    match check_replay(program, &witness, property.span) {
        Ok(()) => Prediction::Predicted {
            location,
            failure: property.failure.clone(),
            context_bound: k,
            witness,
        },
        Err(reason) => Prediction::NotRealizable {
            location,
            context_bound: k,
            witness,
            reason,
        },
    }
}

/// Replays `witness` on the whole program: `Ok` when it fails at `span` with an
/// assertion or `reach_error`, else why not (the interleaving left the trace program).
pub fn check_replay(program: &Program, witness: &Witness, span: Span) -> Result<(), String> {
    let run = concrete::replay(program, witness);
    match run {
        Ok(Execution {
            outcome: RunOutcome::Violation(v),
            ..
        }) if matches!(v.kind, ViolationKind::Assertion | ViolationKind::ReachError)
            && v.span == span =>
        {
            Ok(())
        }
        Ok(e) => Err(match e.outcome {
            RunOutcome::Violation(v) => {
                format!("the replay fails elsewhere: {} at {}", v.kind, v.location)
            }
            RunOutcome::Completed { exit_code } => {
                format!("the replay completes (exit code {exit_code}) without the failure")
            }
            RunOutcome::AssumeViolated { .. } => "the replay violates an assumption".to_string(),
            RunOutcome::Aborted { .. } => "the replay aborts".to_string(),
            RunOutcome::BoundHit { bound } => format!("the replay hits the bound of {bound}"),
        }),
        Err(RuntimeError::ScheduleDiverged { step, thread, .. }) => Err(format!(
            "the schedule diverges at step {step}: thread {thread} cannot run there"
        )),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concrete::{RunConfig, ScheduleFallback, SchedulePolicy};

    fn s7() -> Program {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/predict/s7_fusion.c");
        analysis::load_program(&path, &Default::default()).expect("the fixture lowers")
    }

    /// The observed run of the paper: thread 1 to its end, then thread 2.
    fn observed(program: &Program) -> ObservedTrace {
        let mut config = RunConfig::default();
        let order = [0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2];
        config.schedule = SchedulePolicy::List {
            threads: order.iter().map(|&t| ThreadId(t)).collect(),
            then: ScheduleFallback::RoundRobin,
        };
        config.record_statements = true;
        let execution = concrete::run(program, &config).expect("runs");
        assert!(!execution.is_violation());
        ObservedTrace::from_execution("s7_fusion.c", program, &config, &execution)
    }

    fn witness(schedule: &[u32]) -> Witness {
        Witness {
            format: WITNESS_FORMAT.into(),
            version: WITNESS_VERSION,
            program: "s7_fusion.c".into(),
            data_model: "ilp32".into(),
            uninit: crate::concrete::UninitPolicy::Zero,
            inputs: Vec::new(),
            schedule: schedule.iter().map(|&t| ThreadId(t)).collect(),
            spurious_wakeups: false,
            data_races: false,
            args: Vec::new(),
            context: None,
        }
    }

    #[test]
    fn s7_needs_two_context_switches_and_the_prediction_replays() {
        let program = s7();
        let trace = observed(&program);
        let bound = |k| PredictOptions {
            context_bound: Some(k),
            ..PredictOptions::default()
        };
        let late = PredictOptions {
            deadline: Some(std::time::Instant::now()),
            ..PredictOptions::default()
        };
        let err = predict(&program, &trace, &late).unwrap_err();
        assert!(matches!(err, PredictError::Deadline), "{err}");
        let one = predict(&program, &trace, &bound(1)).unwrap();
        assert!(
            matches!(
                one,
                Prediction::NoViolation {
                    bound: Some(1),
                    properties: 1
                }
            ),
            "{one:?}"
        );
        let two = predict(&program, &trace, &bound(2)).unwrap();
        let Prediction::Predicted {
            witness, location, ..
        } = two
        else {
            panic!("{two:?}")
        };
        assert!(location.ends_with("s7_fusion.c:34"), "{location}");
        let replay = concrete::replay(&program, &witness).unwrap();
        assert!(replay.is_violation(), "{replay:?}");
    }

    #[test]
    fn an_interleaving_that_leaves_the_trace_program_is_not_realizable() {
        let program = s7();
        let trace = observed(&program);
        let Prediction::Predicted { witness: good, .. } =
            predict(&program, &trace, &PredictOptions::default()).unwrap()
        else {
            panic!("S7 predicts a violation")
        };
        let assert_span = match concrete::replay(&program, &good).unwrap().outcome {
            RunOutcome::Violation(v) => v.span,
            other => panic!("{other:?}"),
        };
        assert_eq!(check_replay(&program, &good, assert_span), Ok(()));
        // Thread 2 scheduled before main created it: the schedule diverges.
        let diverging = check_replay(&program, &witness(&[0, 2, 2]), assert_span).unwrap_err();
        assert!(diverging.contains("diverges at step 1"), "{diverging}");
        // The observed order replays without the failure.
        let observed_order: Vec<u32> = trace.witness.schedule.iter().map(|t| t.0).collect();
        let passing = check_replay(&program, &witness(&observed_order), assert_span).unwrap_err();
        assert!(passing.contains("completes"), "{passing}");
    }

    #[test]
    fn a_trace_of_another_program_is_refused() {
        let program = s7();
        let mut trace = observed(&program);
        if let Some(trace::EventDetail::Write { value, .. }) = trace.threads[1]
            .events
            .iter_mut()
            .map(|e| &mut e.detail)
            .find(|d| matches!(d, trace::EventDetail::Write { .. }))
        {
            *value = crate::concrete::RecordedValue::Int(99);
        }
        let err = predict(&program, &trace, &PredictOptions::default()).unwrap_err();
        assert!(
            err.to_string().contains("does not match the program"),
            "{err}"
        );
    }
}
