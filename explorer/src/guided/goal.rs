//! Goal states, witnesses and their replay.
//!
//! A witness is built from a search state's path condition (inputs from its model, in the
//! interpreter's consumption order) and its schedule; it is replayed on the reference
//! interpreter ([`crate::concrete`]) and the replay, not the symbolic state, decides:
//! - reach, error site: the replay ends with a violation at the site;
//! - reach, any other statement: the replay takes exactly the symbolic path's steps
//!   (same thread and statement at every step), the last one running the location;
//! - race / together: the schedule ends with one step of each goal thread, and the
//!   replay's last steps are exactly those threads at the goal statements — for a race,
//!   the two conflicting accesses adjacent;
//! - deadlock: the replay ends with the interpreter's deadlock, every goal thread blocked
//!   at its goal statement.

use super::{Evidence, Goal, GoalKind, Step};
use crate::concrete::{self, EventKind, Execution, RunOutcome, Witness};
use crate::symbolic::stepping::{Node, Path, Stepper, Tid};
use analysis::ir::{Program, StmtId, StmtRef, TermKind};

/// Threads standing at the goal locations of a node goal, one per location (in order),
/// if the node is a goal state.
pub fn node_goal(e: &Stepper<'_>, node: &Node, goal: &Goal) -> Option<Vec<(Tid, StmtId)>> {
    let enabled = e.enabled(node);
    let candidates: Vec<Tid> = match goal.kind {
        GoalKind::Reach => return None,
        GoalKind::Race | GoalKind::Together => enabled,
        GoalKind::Deadlock => {
            if !enabled.is_empty() {
                return None;
            }
            node.live_threads()
        }
    };
    let at: Vec<(Tid, StmtId)> = candidates
        .iter()
        .filter_map(|&t| e.pending_stmt(node, t).map(|s| (t, s)))
        .collect();
    let mut chosen = Vec::new();
    assign(e, node, goal, &at, &mut chosen).then_some(chosen)
}

/// Assigns distinct threads to the goal locations from `chosen.len()` on.
fn assign(
    e: &Stepper<'_>,
    node: &Node,
    goal: &Goal,
    at: &[(Tid, StmtId)],
    chosen: &mut Vec<(Tid, StmtId)>,
) -> bool {
    let Some(loc) = goal.locations.get(chosen.len()) else {
        return goal.kind != GoalKind::Race || conflicting(e, node, chosen);
    };
    for &(t, s) in at {
        if loc.stmts.contains(&s) && !chosen.iter().any(|c| c.0 == t) {
            chosen.push((t, s));
            if assign(e, node, goal, at, chosen) {
                return true;
            }
            chosen.pop();
        }
    }
    false
}

/// Whether the pending events of the two chosen threads touch a common memory cell, one
/// writing.
fn conflicting(e: &Stepper<'_>, node: &Node, pair: &[(Tid, StmtId)]) -> bool {
    let [(a, _), (b, _)] = pair else {
        return false;
    };
    e.conflicting(node, *a, *b)
}

/// Replays a witness for exactly its schedule's length (a run that would go on after the
/// listed steps stops there with a bound, instead of following a fallback schedule).
pub fn replay(prog: &Program, w: &Witness) -> Result<Execution, String> {
    w.check(prog).map_err(|e| e.to_string())?;
    let mut cfg = w.config();
    cfg.max_steps = Some(w.schedule.len() as u64);
    concrete::run(prog, &cfg).map_err(|e| e.to_string())
}

fn steps_of(prog: &Program, exec: &Execution) -> Vec<Step> {
    exec.trace
        .iter()
        .map(|s| Step {
            thread: s.thread.0,
            stmt: s.stmt,
            location: prog.location(s.span),
            event: match s.event {
                EventKind::Statement => "statement",
                EventKind::Reacquire => "reacquire",
                EventKind::ThreadEnd => "thread_end",
            }
            .to_string(),
        })
        .collect()
}

fn evidence(
    prog: &Program,
    w: Witness,
    exec: &Execution,
    goal_threads: Vec<(u32, StmtId)>,
    message: String,
) -> Evidence {
    let blocked = match &exec.outcome {
        RunOutcome::Violation(v) => v.blocked.clone(),
        _ => Vec::new(),
    };
    Evidence {
        witness: w,
        steps: steps_of(prog, exec),
        goal_threads,
        blocked,
        message,
    }
}

fn is_error_site(prog: &Program, s: StmtId) -> bool {
    matches!(prog.stmt(s), StmtRef::Term(t) if matches!(&t.kind, TermKind::Error(f) if f.is_reach_goal()))
}

/// Confirms a reach goal met at statement `s` by thread `t` on `path`.
pub fn confirm_reach(
    prog: &Program,
    w: Witness,
    path: &Path,
    t: Tid,
    s: StmtId,
) -> Result<Evidence, String> {
    let exec = replay(prog, &w)?;
    let span = prog.stmt(s).span();
    if is_error_site(prog, s) {
        return match &exec.outcome {
            RunOutcome::Violation(v) if v.span == span => {
                let message = format!("{} at {}", v.message, v.location);
                let thread = v.thread.0;
                Ok(evidence(prog, w, &exec, vec![(thread, s)], message))
            }
            other => Err(format!(
                "the replay ended with {} instead of the violation at {}",
                describe(other),
                prog.location(span)
            )),
        };
    }
    let same = exec.trace.len() == path.len()
        && exec
            .trace
            .iter()
            .zip(&path.steps())
            .all(|(c, &(t, s))| c.thread.0 as usize == t && c.stmt == s);
    if !same {
        return Err(format!(
            "the replay did not take the path that reaches {}",
            prog.location(span)
        ));
    }
    let message = format!("thread {t} reached {}", prog.location(span));
    Ok(evidence(prog, w, &exec, vec![(t as u32, s)], message))
}

/// Confirms a node goal: `threads` stand at the goal locations at the end of `path`.
pub fn confirm_node(
    e: &Stepper<'_>,
    goal: &Goal,
    path: &Path,
    threads: &[(Tid, StmtId)],
) -> Result<Evidence, String> {
    let prog = e.program();
    let goal_threads: Vec<(u32, StmtId)> = threads.iter().map(|&(t, s)| (t as u32, s)).collect();
    if goal.kind == GoalKind::Deadlock {
        let w = e.witness(path, &[]);
        let exec = replay(prog, &w)?;
        return match &exec.outcome {
            RunOutcome::Violation(v) if v.kind == concrete::ViolationKind::Deadlock => {
                let all_blocked = threads.iter().all(|&(t, s)| {
                    let span = prog.stmt(s).span();
                    v.blocked
                        .iter()
                        .any(|b| b.thread.0 as usize == t && b.span == span)
                });
                if !all_blocked {
                    return Err("the replay deadlocked with other threads blocked".into());
                }
                let message = format!("deadlock: {}", blocked_text(&v.blocked));
                Ok(evidence(prog, w, &exec, goal_threads, message))
            }
            other => Err(format!(
                "the replay ended with {} instead of a deadlock",
                describe(other)
            )),
        };
    }
    let extra: Vec<Tid> = threads.iter().map(|&(t, _)| t).collect();
    let w = e.witness(path, &extra);
    let exec = replay(prog, &w)?;
    let n = threads.len();
    let tail = exec.trace.len().checked_sub(n).map(|i| &exec.trace[i..]);
    let shown = tail.is_some_and(|tail| {
        tail.iter()
            .zip(threads)
            .all(|(step, &(t, s))| step.thread.0 as usize == t && step.stmt == s)
    }) && exec.trace.len() == w.schedule.len();
    if !shown {
        return Err(
            "the replay's last steps are not the goal threads at the goal locations".into(),
        );
    }
    let places: Vec<String> = threads
        .iter()
        .map(|&(t, s)| format!("thread {t} at {}", prog.location(prog.stmt(s).span())))
        .collect();
    let what = if goal.kind == GoalKind::Race {
        "race: conflicting accesses run back to back"
    } else {
        "goal state"
    };
    let message = format!("{what}: {}", places.join(", "));
    Ok(evidence(prog, w, &exec, goal_threads, message))
}

/// Confirms a witness found by another search (the exhaustive fallback) against a goal.
pub fn confirm_found(prog: &Program, goal: &Goal, w: Witness) -> Result<Evidence, String> {
    let exec = replay(prog, &w)?;
    let RunOutcome::Violation(v) = &exec.outcome else {
        return Err(format!("the replay ended with {}", describe(&exec.outcome)));
    };
    let at = |s: StmtId| prog.stmt(s).span();
    match goal.kind {
        GoalKind::Reach => {
            let hit = goal.locations[0].stmts.iter().find(|&&s| at(s) == v.span);
            match hit {
                Some(&s) => {
                    let message = format!("{} at {}", v.message, v.location);
                    let thread = v.thread.0;
                    Ok(evidence(prog, w, &exec, vec![(thread, s)], message))
                }
                None => Err(format!(
                    "the violation is at {}, not at the goal",
                    v.location
                )),
            }
        }
        GoalKind::Deadlock => {
            let mut threads = Vec::new();
            for loc in &goal.locations {
                let found = v.blocked.iter().find(|b| {
                    loc.stmts.iter().any(|&s| at(s) == b.span)
                        && !threads.iter().any(|x: &(u32, StmtId)| x.0 == b.thread.0)
                });
                match found {
                    Some(b) => {
                        let s = *loc
                            .stmts
                            .iter()
                            .find(|&&s| at(s) == b.span)
                            .expect("found by span");
                        threads.push((b.thread.0, s));
                    }
                    None => {
                        return Err(format!(
                            "the deadlock found ({}) is not the goal's",
                            blocked_text(&v.blocked)
                        ))
                    }
                }
            }
            let message = format!("deadlock: {}", blocked_text(&v.blocked));
            Ok(evidence(prog, w, &exec, threads, message))
        }
        _ => Err("the exhaustive search does not check this kind of goal".into()),
    }
}

fn blocked_text(blocked: &[concrete::BlockedThread]) -> String {
    let parts: Vec<String> = blocked.iter().map(|b| b.to_string()).collect();
    parts.join("; ")
}

fn describe(o: &RunOutcome) -> String {
    match o {
        RunOutcome::Violation(v) => format!("{} at {}", v.kind, v.location),
        RunOutcome::Completed { exit_code } => format!("completion (exit code {exit_code})"),
        RunOutcome::AssumeViolated { .. } => "a false assume".into(),
        RunOutcome::Aborted { .. } => "abort()".into(),
        RunOutcome::BoundHit { bound } => format!("the end of the schedule ({bound})"),
    }
}
