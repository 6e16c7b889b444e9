//! A witness as the text reports show it, written once for `agx verify` and `agx hunt`:
//! the inputs line and the numbered schedule.

use analysis::ir::StmtId;
use explorer::concrete::Witness;
use std::fmt::Write as _;

/// The inputs of a witness as `i32 5, u8 1, f64 0x3ff8000000000000 (1.5)`, or `(none)`:
/// a float is shown exactly, by its bits, and as the shortest decimal that reads back to
/// them.
pub fn inputs(witness: &Witness) -> String {
    if witness.inputs.is_empty() {
        return "(none)".to_string();
    }
    witness
        .inputs
        .iter()
        .map(|i| match i.ty.0 {
            analysis::ir::Scalar::Float { bits } => {
                let value = analysis::ir::float::to_f64(bits, i.value as u64);
                format!("{} {:#x} ({value:?})", i.ty.0, i.value as u64)
            }
            ty => format!("{ty} {}", i.value),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// One step of a schedule.
pub struct Step<'a> {
    pub thread: u32,
    pub stmt: StmtId,
    /// `file:line`.
    pub location: &'a str,
    /// `statement`, `reacquire` or `thread_end`.
    pub event: &'a str,
    /// The statement in the IR's text form, when the report has it.
    pub text: &'a str,
    /// A step of a thread standing at a goal location.
    pub goal: bool,
    /// The thread's start function (empty: not shown).
    pub function: &'a str,
    /// The source line's text (empty: not shown).
    pub source: &'a str,
}

/// `  args: ...` (when `main` was given arguments), `  inputs: ...` and
/// `  schedule (N steps):` with one numbered line per step.
pub fn write(out: &mut String, witness: &Witness, steps: &[Step<'_>]) {
    if !witness.args.is_empty() {
        let quoted: Vec<String> = witness.args.iter().map(|a| format!("{a:?}")).collect();
        let _ = writeln!(out, "  args: {}", quoted.join(" "));
    }
    let _ = writeln!(out, "  inputs: {}", inputs(witness));
    let _ = writeln!(out, "  schedule ({} steps):", steps.len());
    let label = |step: &Step<'_>| {
        if step.function.is_empty() {
            format!("thread {}", step.thread)
        } else {
            format!("thread {} ({})", step.thread, step.function)
        }
    };
    let width = steps.iter().map(|s| label(s).len()).max().unwrap_or(0);
    for (i, step) in steps.iter().enumerate() {
        let event = if step.event == "statement" {
            String::new()
        } else {
            format!("  ({})", step.event)
        };
        let mark = if step.goal { "  ◀ goal" } else { "" };
        let thread = label(step);
        let source = if step.source.is_empty() {
            String::new()
        } else {
            format!("\n          | {}", step.source)
        };
        let line = format!(
            "    {:>4}. {:<width$}  {:<28} {:<5} {}{event}{mark}{source}",
            i + 1,
            thread,
            step.location,
            step.stmt.to_string(),
            step.text,
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_line_up_and_name_events_and_goals() {
        let witness: Witness = serde_json::from_value(serde_json::json!({
            "format": "agx-witness", "version": 1, "program": "p.c", "data_model": "ilp32",
            "uninit": "nondet", "inputs": [], "schedule": [0, 1]
        }))
        .unwrap();
        let mut out = String::new();
        let steps = [
            Step {
                thread: 0,
                stmt: StmtId(5),
                location: "p.c:18",
                event: "statement",
                text: "r0 = load i32 &x",
                goal: false,
                function: "",
                source: "",
            },
            Step {
                thread: 1,
                stmt: StmtId(12),
                location: "p.c:3",
                event: "thread_end",
                text: "",
                goal: true,
                function: "",
                source: "",
            },
        ];
        write(&mut out, &witness, &steps);
        assert_eq!(
            out,
            "  inputs: (none)\n  schedule (2 steps):\n       1. thread 0  p.c:18                       s5    r0 = load i32 &x\n       2. thread 1  p.c:3                        s12     (thread_end)  ◀ goal\n"
        );
    }
}
