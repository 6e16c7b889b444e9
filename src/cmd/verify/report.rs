//! `agx verify`'s report: the verdict, witness and statistics as text or JSON, the
//! `--graph` picture and `--witness-out` (split from `verify.rs`: what is printed, not how
//! the search is set up).

use super::*;

/// Prints the outcome as `--format` asks and writes `--witness-out` (`program` is `None`
/// when the budget ran out before the program was known; there is no violation then).
pub(super) fn report(
    args: &Args,
    program: Option<&Program>,
    outcome: &SearchOutcome,
    since: Option<&Incremental>,
    upgrades: &[Upgrade],
) -> Result<ExitCode> {
    if let (Some(path), Some(found)) = (&args.witness_out, outcome.violations.first()) {
        let text = serde_json::to_string_pretty(&found.witness)?;
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    if let (Some(path), Some(found), Some(program)) =
        (&args.graph, outcome.violations.first(), program)
    {
        let steps: Vec<GraphStep> = found
            .steps
            .iter()
            .map(|s| GraphStep {
                thread: s.thread,
                stmt: s.stmt,
                ir: s.text.clone(),
            })
            .collect();
        let violation = format!("VIOLATION: {}", found.message);
        dot::write(
            path,
            &execution_graph::graph(program, &entries(found), &steps, Some(&violation)),
        )?;
    }
    if args.format == TextOrJson::Json {
        let mut json = to_json(program, outcome);
        if let Some(s) = since {
            json["incremental"] = serde_json::to_value(s)?;
        }
        if !upgrades.is_empty() {
            json["from_main"] = serde_json::to_value(upgrades)?;
        }
        let context = context_label(args);
        if !context.is_empty() {
            json["context"] = Value::String(context);
        }
        println!("{}", serde_json::to_string(&json)?);
    } else {
        // Verdicts in colour on a terminal; anstream strips the escapes when stdout is not
        // one, or when NO_COLOR (or CLICOLOR=0) is set.
        anstream::print!(
            "{}",
            coloured(&to_text(
                program,
                outcome,
                !args.no_spurious_wakeups,
                checks(args),
                &context_label(args),
                upgrades
            ))
        );
        if let Some(s) = since {
            print!("{}", incremental_text(s));
        }
    }
    Ok(answer(outcome.verdict).into())
}

/// The `--since` line of the text report.
pub(super) fn incremental_text(s: &Incremental) -> String {
    let origin = match &s.old_verified_now {
        Some(why) => format!("verified now ({why})"),
        None => "from the store".to_string(),
    };
    let mut out = format!(
        "since {}: {} statements changed ({} changes harmless); {} summaries of the old version ({origin}); {} nodes pruned by them\n",
        s.since, s.changed_statements, s.harmless_statements, s.carried_summaries, s.carried_pruned
    );
    if let Some(b) = &s.blocked {
        out.push_str(&format!("  no summary reused: {b}\n"));
    }
    out
}

/// The entry functions of the context a violation was found from (none: `main`).
pub(super) fn entries(f: &Found) -> Vec<analysis::ir::FuncId> {
    f.witness
        .context
        .as_ref()
        .map(|c| c.threads.clone())
        .unwrap_or_default()
}

/// The reason a verdict is `unknown`: the most telling incomplete reason.
pub(super) fn reason(outcome: &SearchOutcome) -> Option<String> {
    if outcome.verdict != Verdict::Unknown {
        return None;
    }
    let order = [
        Reason::Timeout,
        Reason::Unsupported,
        Reason::UndefinedBehaviour,
        Reason::Solver,
        Reason::Unwind,
        Reason::MaxEvents,
        Reason::MaxThreads,
        Reason::PreemptionBound,
        Reason::ArgsBound,
    ];
    let pick = order
        .iter()
        .find_map(|&r| outcome.incomplete.iter().find(|i| i.reason == r))
        .or(outcome.incomplete.first())?;
    Some(format!("{}: {}", pick.reason, pick.detail))
}

pub(super) fn violation_json(program: &Program, f: &Found) -> Value {
    let mut v = json!({
        "kind": f.kind,
        "message": f.message,
        "file": program.file_name(f.span.file),
        "line": f.span.line,
        "location": f.location,
        "thread": f.thread,
    });
    if let Some(race) = &f.race {
        let access = |a: &RaceAccess| {
            json!({
                "thread": a.thread.0,
                "stmt": a.stmt,
                "file": program.file_name(a.span.file),
                "line": a.span.line,
                "location": a.location,
                "access": a.verb(),
                "atomic": a.atomic,
                "step": a.step,
            })
        };
        v["race"] = json!({
            "first": access(&race.first),
            "second": access(&race.second),
            "variable": race.variable,
        });
    }
    v
}

pub(super) fn to_json(program: Option<&Program>, o: &SearchOutcome) -> Value {
    let first = o.violations.first();
    let violations: Vec<Value> = program.map_or_else(Vec::new, |p| {
        o.violations.iter().map(|f| violation_json(p, f)).collect()
    });
    json!({
        "verdict": o.verdict,
        "reason": reason(o),
        "violation": violations.first(),
        "witness": first.map(|f| serde_json::to_value(&f.witness).unwrap_or(Value::Null)),
        "steps": first.map(|f| serde_json::to_value(&f.steps).unwrap_or(Value::Null)),
        "violations": violations,
        "incomplete": o.incomplete,
        "strategy": o.strategy.name(),
        "stats": o.stats,
    })
}

/// The report with its verdict words (`VIOLATION:`, `SAFE:`, `UNKNOWN:`) styled.
pub(super) fn coloured(text: &str) -> String {
    use anstyle::{AnsiColor, Style};
    let styles = [
        (
            "VIOLATION:",
            Style::new().bold().fg_color(Some(AnsiColor::Red.into())),
        ),
        (
            "SAFE:",
            Style::new().bold().fg_color(Some(AnsiColor::Green.into())),
        ),
        (
            "UNKNOWN:",
            Style::new().bold().fg_color(Some(AnsiColor::Yellow.into())),
        ),
    ];
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        match styles.iter().find(|(word, _)| line.starts_with(word)) {
            Some((word, style)) => {
                out.push_str(&format!("{style}{word}{style:#}{}", &line[word.len()..]));
            }
            None => out.push_str(line),
        }
    }
    out
}

/// What a `SAFE` verdict rules out, in words.
pub(super) fn safe_claim(checks: Checks) -> &'static str {
    match (checks.race, checks.no_assertions) {
        (true, true) => "no data race",
        (true, false) => "no data race and no assertion can fail",
        (false, true) => "no reported violation",
        (false, false) => "no assertion can fail",
    }
}

pub(super) fn to_text(
    program: Option<&Program>,
    o: &SearchOutcome,
    spurious: bool,
    checks: Checks,
    context: &str,
    upgrades: &[Upgrade],
) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    match o.verdict {
        Verdict::Violation => {
            // A violation is found in a program, so `program` is there.
            if let Some(program) = program {
                for f in &o.violations {
                    violation_text(&mut s, program, f);
                    if !context.is_empty() {
                        let _ = writeln!(s, "  feasible from this context: {context}");
                    }
                    if let Some(u) = upgrades.iter().find(|u| u.location == f.location) {
                        let _ = writeln!(s, "  {}", u.text());
                    }
                }
            }
        }
        Verdict::Safe => {
            // From a context, SAFE holds for every initial state the constraints allow.
            let scope = if context.is_empty() {
                String::new()
            } else {
                format!(" from {context}, for every initial state")
            };
            let wakeups = if spurious {
                ""
            } else {
                "; without spurious wake-ups of condition waits"
            };
            let _ = writeln!(
                s,
                "SAFE: {}{scope} (search complete, no bound hit{wakeups})",
                safe_claim(checks)
            );
        }
        Verdict::Unknown => {
            let _ = writeln!(s, "UNKNOWN: {}", reason(o).unwrap_or_default());
            for i in o.incomplete.iter().skip(1) {
                let _ = writeln!(s, "  also {}: {}", i.reason, i.detail);
            }
        }
    }
    let st = &o.stats;
    let _ = writeln!(
        s,
        "stats ({}): {} runs, {} partial runs, {} states, {} solver queries ({:.1} ms), {:.1} ms total",
        o.strategy.name(),
        st.runs,
        st.partial_runs,
        st.states,
        st.solver_queries,
        st.solver_time_ms,
        st.time_ms
    );
    if st.probe_states > 0 {
        // The further phases are named only when they ran (after a short search that
        // left the verdict open).
        let further = if st.probe_quick_searches > 0 {
            format!(
                "; then a short search, {} other schedules, {} thread-bounded searches",
                st.probe_schedules, st.probe_thread_bounds
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "probe (non-preemptive schedule first{further}): {} runs, {} partial runs, {} states, {:.1} ms",
            st.probe_runs,
            st.probe_partial_runs,
            st.probe_states,
            st.probe_time_ms
        );
    }
    if st.slice_skips > 0 {
        let _ = writeln!(
            s,
            "slice (§6.1): {} Type A cuts, {} Type B branches, {} Type B races",
            st.type_a_cuts, st.type_b_branches, st.type_b_races
        );
    }
    s
}

/// One violation: the message, why (the interleaving in one line), the witness.
pub(super) fn violation_text(s: &mut String, program: &Program, f: &Found) {
    use std::fmt::Write;
    let _ = writeln!(
        s,
        "VIOLATION: {} at {} (thread {})",
        f.message, f.location, f.thread
    );
    let plain: Vec<explain::Step> = f
        .steps
        .iter()
        .map(|st| explain::Step {
            thread: st.thread,
            stmt: st.stmt,
        })
        .collect();
    if let Some(summary) = explain::summary(program, &entries(f), &plain, &f.witness, f.thread) {
        let _ = writeln!(s, "  why: {summary}");
    }
    let functions = explain::thread_functions(program, &entries(f), &plain);
    let texts: Vec<String> = f
        .steps
        .iter()
        .map(|st| explain::statement_line(program, st.stmt).unwrap_or_default())
        .collect();
    let steps: Vec<witness_text::Step<'_>> = f
        .steps
        .iter()
        .zip(&texts)
        .map(|(step, source)| witness_text::Step {
            thread: step.thread,
            stmt: step.stmt,
            location: &step.location,
            event: &step.event,
            text: &step.text,
            goal: false,
            function: functions.get(&step.thread).map_or("", String::as_str),
            source,
        })
        .collect();
    witness_text::write(s, &f.witness, &steps);
}

#[cfg(test)]
mod tests {
    #[test]
    fn verdict_words_are_styled_and_the_rest_kept() {
        let text = "VIOLATION: x\n  step\nSAFE: y\nUNKNOWN: z\n";
        let styled = super::coloured(text);
        assert_eq!(styled.matches('\u{1b}').count(), 9, "{styled:?}");
        assert!(styled.contains("\u{1b}[1m\u{1b}[31mVIOLATION:\u{1b}[0m x\n  step\n"));
        let plain: String = anstream::adapter::strip_str(&styled).to_string();
        assert_eq!(plain, text);
    }
}
