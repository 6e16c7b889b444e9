//! Witnesses: the inputs (values from the model of the path condition, in the
//! interpreter's consumption order) and the schedule (the thread of every interpreter
//! step on the path) of a violation, replayed on the reference interpreter before the
//! violation is reported.

use super::engine::{Engine, InputRec, TraceItem};
use super::model::Assignment;
use super::{describe_run_outcome, Found, VerifyError, WitnessStep};
use crate::concrete::{
    replay, EventKind, InputType, RunOutcome, ThreadId, ViolationKind, Witness, WitnessInput,
    WITNESS_FORMAT, WITNESS_VERSION,
};
use analysis::ir::{sign_extend, truncate, DataModel, Span};

/// The witness of the current path, replayed: the violation must recur at the same
/// place with the same kind.
pub fn build_and_replay(
    e: &Engine<'_>,
    model: &Assignment,
    kind: ViolationKind,
    message: &str,
    span: Span,
) -> Result<Found, VerifyError> {
    let witness = of_path(e, &e.path.inputs, model, &e.path.trace);
    let replayed = replay(e.setup.prog, &witness).map(|x| x.outcome);
    let ok = matches!(&replayed, Ok(RunOutcome::Violation(v)) if v.kind == kind && v.span == span);
    if !ok {
        return Err(VerifyError::WitnessDidNotReplay {
            kind,
            location: e.location(span),
            replayed: describe_run_outcome(&replayed),
        });
    }
    let thread = match &replayed {
        Ok(RunOutcome::Violation(v)) => v.thread.0,
        _ => 0,
    };
    let steps = super::awaits::interpreter_steps(&e.path.trace)
        .iter()
        .map(|s| WitnessStep {
            thread: s.tid as u32,
            stmt: s.stmt,
            location: e.location(s.span),
            event: match s.event {
                EventKind::Statement => "statement",
                EventKind::Reacquire => "reacquire",
                EventKind::ThreadEnd => "thread_end",
            }
            .to_string(),
            text: statement_text(e.setup.prog, s.stmt),
        })
        .collect();
    Ok(Found {
        kind,
        message: message.to_string(),
        thread,
        span,
        location: e.location(span),
        witness,
        steps,
        race: None,
    })
}

/// The strings the model spells with symbolic arguments' inputs (ASCII by their
/// constraint, see [`super::argv`]).
fn symbolic_args(argv: &[Vec<super::term::Var>], model: &Assignment) -> Vec<String> {
    argv.iter()
        .map(|vars| {
            vars.iter()
                .map(|&v| char::from((model.get(v) & 0x7f) as u8))
                .collect()
        })
        .collect()
}

/// A statement in the IR's text form (a thread's end shows its terminator).
pub(super) fn statement_text(prog: &analysis::ir::Program, id: analysis::ir::StmtId) -> String {
    let func = prog.function(prog.stmt_locs[id.index()].func);
    match prog.stmt(id) {
        analysis::ir::StmtRef::Stmt(s) => analysis::ir::stmt_text(prog, func, &s.kind),
        analysis::ir::StmtRef::Term(t) => match &t.kind {
            analysis::ir::TermKind::Return(_) => format!("return from {}", func.name),
            analysis::ir::TermKind::ThreadExit(_) => "pthread_exit".to_string(),
            _ => "end".to_string(),
        },
    }
}

/// The witness of a path: the inputs it read, valued by `model` (which satisfies its
/// condition; with Type B branch pivots on the path, see [`super::type_b`], the
/// condition without the explored sides' guards), and the thread of every step of `trace`
/// (its interpreter steps: the events of failed atomic sections left out, see
/// [`super::awaits`]).
pub fn of_path(
    e: &Engine<'_>,
    inputs: &[InputRec],
    model: &Assignment,
    trace: &[TraceItem],
) -> Witness {
    let dm = e.setup.prog.data_model;
    let inputs = inputs
        .iter()
        .map(|r| {
            let bits = r.ty.bits(dm);
            let raw = truncate(model.get(r.var), bits);
            let value = if r.ty.is_signed() {
                i128::from(sign_extend(raw, bits))
            } else {
                i128::from(raw)
            };
            WitnessInput {
                value,
                ty: InputType(r.ty),
            }
        })
        .collect();
    Witness {
        format: WITNESS_FORMAT.to_string(),
        version: WITNESS_VERSION,
        program: e.setup.cfg.program_name.clone(),
        data_model: match dm {
            DataModel::Ilp32 => "ilp32",
            DataModel::Lp64 => "lp64",
        }
        .to_string(),
        uninit: e.setup.cfg.uninit,
        inputs,
        schedule: super::awaits::interpreter_steps(trace)
            .iter()
            .map(|s| ThreadId(s.tid as u32))
            .collect(),
        spurious_wakeups: e.setup.cfg.spurious_wakeups,
        data_races: false,
        args: if e.path.argv.is_empty() {
            e.setup.cfg.args.clone()
        } else {
            symbolic_args(&e.path.argv, model)
        },
        context: e.setup.cfg.context.clone(),
    }
}
