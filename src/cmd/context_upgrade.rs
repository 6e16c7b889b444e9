//! The upgrade of a violation found from a program context (`agx verify --entry`,
//! issue 13): a context over-approximates `main`'s states, so its violation may need an
//! initial state `main` never produces. verify then runs `agx hunt` from `main` toward
//! the violated location (a child process of this agx, `--target FILE:LINE`, one job,
//! within `--confirm-from-main SECS`) and reports whether main reaches it too (the
//! verdict holds for the program), refutes it (hunt's exhaustive search from main
//! finished without it), or neither within the budget.

use super::common::InputArgs;
use serde::Serialize;
use std::process::Command;
use std::time::{Duration, Instant};

/// What the hunt from `main` said about one violated location.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "from_main", rename_all = "snake_case")]
pub enum FromMain {
    /// `main` reaches the violation too: the verdict holds for the program.
    Confirmed { seconds: f64 },
    /// `main` cannot reach it: hunt's search from main finished without it.
    Refuted { seconds: f64, reason: String },
    /// Neither within the budget (or the hunt could not run): the violation stays
    /// feasible from the context only.
    NotConfirmed { seconds: f64, reason: String },
}

/// One location's upgrade.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Upgrade {
    pub location: String,
    pub budget_seconds: f64,
    #[serde(flatten)]
    pub outcome: FromMain,
}

impl Upgrade {
    /// The report's line about it.
    pub fn text(&self) -> String {
        match &self.outcome {
            FromMain::Confirmed { seconds } => format!(
                "also found from main: `agx hunt --target {}` reached it ({seconds:.2} s), so the violation holds for the program",
                self.location
            ),
            FromMain::Refuted { reason, .. } => format!(
                "not reachable from main: `agx hunt --target {}` refutes it ({reason}); the violation needs an initial state main does not produce",
                self.location
            ),
            FromMain::NotConfirmed { reason, .. } => format!(
                "not confirmed from main within {} s ({reason})",
                self.budget_seconds
            ),
        }
    }
}

/// Hunts from `main` toward `location` (`file:line`) within `budget`.
pub fn from_main(input: &InputArgs, location: &str, budget: Duration) -> Upgrade {
    let started = Instant::now();
    let outcome = match hunt(input, location, budget) {
        Ok((verdict, reason)) => {
            let seconds = started.elapsed().as_secs_f64();
            match verdict.as_str() {
                "confirmed" => FromMain::Confirmed { seconds },
                "refuted" => FromMain::Refuted { seconds, reason },
                _ => FromMain::NotConfirmed { seconds, reason },
            }
        }
        Err(reason) => FromMain::NotConfirmed {
            seconds: started.elapsed().as_secs_f64(),
            reason,
        },
    };
    Upgrade {
        location: location.to_string(),
        budget_seconds: budget.as_secs_f64(),
        outcome,
    }
}

/// The child `agx hunt`'s verdict and reason for the one goal.
fn hunt(input: &InputArgs, location: &str, budget: Duration) -> Result<(String, String), String> {
    let agx = std::env::current_exe().map_err(|e| format!("finding this agx: {e}"))?;
    let mut c = Command::new(agx);
    c.arg("hunt").arg(&input.file);
    for dir in &input.include {
        c.arg("-I").arg(dir);
    }
    for d in &input.define {
        c.arg("-D").arg(d);
    }
    let data_model = match input.data_model {
        analysis::ir::DataModel::Ilp32 => "ilp32",
        analysis::ir::DataModel::Lp64 => "lp64",
    };
    c.args(["--data-model", data_model, "--target", location]);
    c.args(["--jobs", "1", "--quiet", "--format", "json", "--timeout"]);
    c.arg(budget.as_secs_f64().to_string());
    let out = c.output().map_err(|e| format!("running agx hunt: {e}"))?;
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|_| {
        let stderr = String::from_utf8_lossy(&out.stderr);
        format!(
            "agx hunt failed: {}",
            stderr.lines().last().unwrap_or("no output")
        )
    })?;
    let goal = &report[0];
    let verdict = goal["verdict"].as_str().unwrap_or("unknown").to_string();
    let reason = goal["reason"]
        .as_str()
        .map_or_else(|| "no reason given".to_string(), str::to_string);
    Ok((verdict, reason))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lines_say_which_way_main_went() {
        let up = |outcome| Upgrade {
            location: "a.c:5".into(),
            budget_seconds: 10.0,
            outcome,
        };
        assert!(up(FromMain::Confirmed { seconds: 0.5 })
            .text()
            .starts_with("also found from main"));
        let refuted = up(FromMain::Refuted {
            seconds: 1.0,
            reason: "explored every schedule".into(),
        });
        assert!(refuted
            .text()
            .contains("refutes it (explored every schedule)"));
        let open = up(FromMain::NotConfirmed {
            seconds: 10.0,
            reason: "timeout".into(),
        });
        assert_eq!(open.text(), "not confirmed from main within 10 s (timeout)");
    }
}
