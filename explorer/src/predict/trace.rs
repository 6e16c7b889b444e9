//! Observed traces: what one concrete run did, per thread, in a versioned JSON file
//! (`agx run --save-trace T.json`), and the way back from the file to the run.
//!
//! ```json
//! { "format": "agx-trace", "version": 1, "program": "s7.c",
//!   "witness": { "format": "agx-witness", ... "schedule": [0, 0, 1, 1, 2] },
//!   "outcome": "completed, exit code 0",
//!   "threads": [ { "thread": 1, "function": "t1", "events": [
//!       { "step": 2, "stmt": 7, "at": "s7.c:9", "kind": "read", "address": "`x`",
//!         "value": { "int": 0 } },
//!       { "step": 3, "stmt": 9, "at": "s7.c:10", "kind": "sync", "op": "lock",
//!         "object": "`l`" },
//!       { "step": 5, "stmt": 14, "at": "s7.c:12", "kind": "branch", "taken": true },
//!       { "step": 9, "stmt": 20, "at": "s7.c:13", "kind": "thread_end" } ] } ] }
//! ```
//! Events are the thread's reads and writes (address and value), synchronizations (the
//! object, and the thread created or joined), branch outcomes and inputs, in the order
//! the thread executed them; `step` is the index of the scheduling step they belong to
//! (the witness's schedule). The witness reproduces the run; [`ObservedTrace::check`]
//! re-runs it and compares the events, so a trace never silently describes another
//! program.

use crate::concrete::{
    self, Execution, RecordedValue, RunConfig, RuntimeError, StmtNote, StmtRecord, UninitPolicy,
    Witness,
};
use analysis::ir::{Callee, Program, Rvalue, StmtKind, StmtRef};
use serde::{Deserialize, Serialize};

/// The format tag of a trace file.
pub const TRACE_FORMAT: &str = "agx-trace";
/// The trace version this build writes and reads.
pub const TRACE_VERSION: u32 = 1;

/// One observed run, per thread.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObservedTrace {
    pub format: String,
    pub version: u32,
    /// The program file (informational).
    pub program: String,
    /// The schedule and inputs that reproduce the run.
    pub witness: Witness,
    /// How the run ended, as `agx run` words it.
    pub outcome: String,
    pub threads: Vec<ThreadTrace>,
}

/// The events of one thread, in its order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadTrace {
    pub thread: u32,
    /// Its start function.
    pub function: String,
    pub events: Vec<TraceEvent>,
}

/// One event of a thread.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceEvent {
    /// The scheduling step it belongs to.
    pub step: u64,
    /// The IR statement (`agx ir`).
    pub stmt: u32,
    /// `file:line`.
    pub at: String,
    #[serde(flatten)]
    pub detail: EventDetail,
}

/// What an event did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EventDetail {
    Read {
        address: String,
        value: RecordedValue,
    },
    Write {
        address: String,
        value: RecordedValue,
    },
    /// `op` is the IR's name (`lock`, `unlock`, `thread_create`, `cond_wait`, ...).
    Sync {
        op: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        object: Option<String>,
        /// The thread created or joined.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        thread: Option<u32>,
    },
    /// A woken `pthread_cond_wait` re-acquired its mutex.
    Reacquire,
    Branch {
        taken: bool,
    },
    Input {
        value: RecordedValue,
    },
    ThreadEnd,
}

/// What is wrong with a trace file.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("not an agx trace: format is `{0}`, expected `{TRACE_FORMAT}`")]
    Format(String),
    #[error("trace version {0} is not supported (this build reads {TRACE_VERSION})")]
    Version(u32),
    #[error("replaying the trace's witness failed: {0}")]
    Replay(RuntimeError),
    #[error(
        "the trace does not match the program: thread {thread} differs at its event {index} \
         ({detail})"
    )]
    Mismatch {
        thread: u32,
        index: usize,
        detail: String,
    },
}

impl ObservedTrace {
    /// The trace of `execution`, a run of `program` under `config` that recorded its
    /// trace and statements.
    pub fn from_execution(
        program_name: &str,
        program: &Program,
        config: &RunConfig,
        execution: &Execution,
    ) -> ObservedTrace {
        let mut threads: Vec<ThreadTrace> = Vec::new();
        for record in &execution.statements {
            let t = record.thread.0 as usize;
            while threads.len() <= t {
                threads.push(ThreadTrace {
                    thread: threads.len() as u32,
                    function: String::new(),
                    events: Vec::new(),
                });
            }
            if threads[t].function.is_empty() {
                let func = program.stmt_locs[record.stmt.index()].func;
                threads[t].function = program.function(func).name.clone();
            }
            let uninit_inputs = config.uninit == UninitPolicy::Nondet;
            if let Some(detail) = event_detail(program, record, uninit_inputs) {
                let span = program.stmt(record.stmt).span();
                threads[t].events.push(TraceEvent {
                    step: record.step,
                    stmt: record.stmt.0,
                    at: program.location(span),
                    detail,
                });
            }
        }
        ObservedTrace {
            format: TRACE_FORMAT.to_string(),
            version: TRACE_VERSION,
            program: program_name.to_string(),
            witness: Witness::from_execution(program_name, program, config, execution),
            outcome: outcome_words(&execution.outcome),
            threads,
        }
    }

    /// The configuration that reproduces the run, recording what predict needs.
    pub fn replay_config(&self) -> RunConfig {
        let mut config = self.witness.config();
        config.record_trace = true;
        config.record_statements = true;
        config
    }

    /// Checks the format and re-runs the witness on `program`: the execution, provided
    /// it shows exactly this trace's events.
    pub fn check(&self, program: &Program) -> Result<Execution, TraceError> {
        if self.format != TRACE_FORMAT {
            return Err(TraceError::Format(self.format.clone()));
        }
        if self.version != TRACE_VERSION {
            return Err(TraceError::Version(self.version));
        }
        self.witness.check(program).map_err(TraceError::Replay)?;
        let config = self.replay_config();
        let execution = concrete::run(program, &config).map_err(TraceError::Replay)?;
        let again = ObservedTrace::from_execution(&self.program, program, &config, &execution);
        compare(&self.threads, &again.threads)?;
        Ok(execution)
    }
}

fn compare(file: &[ThreadTrace], run: &[ThreadTrace]) -> Result<(), TraceError> {
    for t in 0..file.len().max(run.len()) {
        let (a, b) = (file.get(t), run.get(t));
        let (ea, eb) = (
            a.map_or(&[][..], |x| &x.events[..]),
            b.map_or(&[][..], |x| &x.events[..]),
        );
        for i in 0..ea.len().max(eb.len()) {
            if ea.get(i) != eb.get(i) {
                let detail = match (ea.get(i), eb.get(i)) {
                    (Some(x), Some(y)) => format!(
                        "the file has {:?} at {}, the run {:?} at {}",
                        x.detail, x.at, y.detail, y.at
                    ),
                    (Some(x), None) => format!("the run ends before {:?} at {}", x.detail, x.at),
                    (None, Some(y)) => format!("the file ends before {:?} at {}", y.detail, y.at),
                    (None, None) => unreachable!("one side has event {i}"),
                };
                return Err(TraceError::Mismatch {
                    thread: t as u32,
                    index: i,
                    detail,
                });
            }
        }
    }
    Ok(())
}

fn outcome_words(outcome: &concrete::RunOutcome) -> String {
    match outcome {
        concrete::RunOutcome::Completed { exit_code } => {
            format!("completed, exit code {exit_code}")
        }
        concrete::RunOutcome::Violation(v) => format!("violation ({}) at {}", v.kind, v.location),
        concrete::RunOutcome::AssumeViolated { .. } => "assumption false".to_string(),
        concrete::RunOutcome::Aborted { .. } => "aborted".to_string(),
        concrete::RunOutcome::BoundHit { bound } => format!("stopped at the bound of {bound}"),
    }
}

/// The trace event of a recorded statement, if it is one.
fn event_detail(
    program: &Program,
    record: &StmtRecord,
    uninit_inputs: bool,
) -> Option<EventDetail> {
    Some(match &record.note {
        StmtNote::Load { what, value, .. } => EventDetail::Read {
            address: what.clone(),
            value: *value,
        },
        StmtNote::Store { what, value, .. } => EventDetail::Write {
            address: what.clone(),
            value: *value,
        },
        StmtNote::Sync { what, other, .. } => {
            let StmtRef::Stmt(stmt) = program.stmt(record.stmt) else {
                return None;
            };
            let StmtKind::Sync { op, .. } = &stmt.kind else {
                return None;
            };
            let thread = match (op, other) {
                (
                    analysis::ir::SyncOp::ThreadCreate { .. }
                    | analysis::ir::SyncOp::ThreadJoin { .. },
                    Some(RecordedValue::Int(t)),
                ) => Some(*t as u32),
                _ => None,
            };
            EventDetail::Sync {
                op: op.name().to_string(),
                object: what.clone(),
                thread,
            }
        }
        StmtNote::Reacquire => EventDetail::Reacquire,
        StmtNote::ThreadEnd => EventDetail::ThreadEnd,
        StmtNote::Branch(taken) => EventDetail::Branch { taken: *taken },
        StmtNote::Value(value) if is_input(program, record, uninit_inputs) => {
            EventDetail::Input { value: *value }
        }
        _ => return None,
    })
}

/// Whether the recorded statement read an input (`Nondet`, an external's result, an
/// uninitialized value under the nondet policy).
pub(crate) fn is_input(program: &Program, record: &StmtRecord, uninit_inputs: bool) -> bool {
    match program.stmt(record.stmt) {
        StmtRef::Stmt(s) => match &s.kind {
            StmtKind::Nondet { .. } | StmtKind::Havoc { dst: Some(_), .. } => true,
            // A call that entered no function called an external one.
            StmtKind::Call { callee, .. } => {
                matches!(record.note, StmtNote::Value(_))
                    && match callee {
                        Callee::Direct(f) => !program.function(*f).is_defined(),
                        Callee::Indirect(_) => true,
                    }
            }
            StmtKind::Assign {
                value: Rvalue::Uninit(_),
                ..
            } => uninit_inputs,
            _ => false,
        },
        StmtRef::Term(_) => false,
    }
}
