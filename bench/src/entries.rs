//! `agx bench --from-entries`: the soundness and the yield of program contexts (issue 13,
//! seed paper 003). Each task is verified twice with `--all`: from `main`, and from the
//! context of the thread functions `main` creates (`agx verify --thread-entries`: each
//! thread at its entry over a symbolic initial state). A context over-approximates the
//! states its threads can start from, so every violation a created thread reaches from
//! `main` must be found from the context too; one that is not, while the context's search
//! finished, is a **miss** (a soundness bug of contexts). Violations `main` itself hits
//! (after its joins, say) lie outside the context and are only counted. Violations found
//! only from the context are "not confirmed from main": real from some initial state,
//! perhaps not from `main`'s.

use serde_json::Value;
use std::collections::BTreeSet;

/// What one `agx verify --all --format json` child reported.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Search {
    /// `safe`, `violation`, `unknown`, or the bench's `timeout` / `error`.
    pub verdict: String,
    /// Violated locations (`file:line`) hit by a created thread (thread index > 0).
    pub by_threads: BTreeSet<String>,
    /// Violated locations hit by `main` (thread 0).
    pub by_main: BTreeSet<String>,
    /// Whether the search ended without hitting any bound: every violation is listed.
    pub complete: bool,
    pub seconds: f64,
}

impl Search {
    /// Reads verify's JSON report (`src/cmd/verify.rs` documents the schema).
    pub fn from_json(report: &Value, seconds: f64) -> Search {
        let verdict = report["verdict"].as_str().unwrap_or("error").to_string();
        let mut search = Search {
            complete: verdict != "unknown"
                && report["incomplete"].as_array().is_none_or(Vec::is_empty),
            verdict,
            seconds,
            ..Search::default()
        };
        for v in report["violations"].as_array().into_iter().flatten() {
            let Some(location) = v["location"].as_str() else {
                continue;
            };
            if v["thread"].as_u64() == Some(0) {
                search.by_main.insert(location.to_string());
            } else {
                search.by_threads.insert(location.to_string());
            }
        }
        search
    }

    /// A search the bench stopped (time or memory limit) or that could not run.
    pub fn ended(verdict: &str, seconds: f64) -> Search {
        Search {
            verdict: verdict.to_string(),
            seconds,
            ..Search::default()
        }
    }

    /// Every violated location.
    pub fn locations(&self) -> BTreeSet<String> {
        self.by_threads.union(&self.by_main).cloned().collect()
    }
}

/// One task's two searches side by side.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// Locations a created thread violates from `main` that the finished context search
    /// did not find: soundness bugs.
    pub missed: Vec<String>,
    /// Locations a created thread violates from `main` that the context search, cut by a
    /// bound, had not found (yet): undecided.
    pub undecided: Vec<String>,
    /// Locations found from the context and not from `main`.
    pub context_only: Vec<String>,
}

/// Compares the search from `main` with the one from the thread entries.
pub fn compare(main: &Search, context: &Search) -> Comparison {
    let found = context.locations();
    let unfound: Vec<String> = main.by_threads.difference(&found).cloned().collect();
    let (missed, undecided) = if context.complete {
        (unfound, Vec::new())
    } else {
        (Vec::new(), unfound)
    };
    Comparison {
        missed,
        undecided,
        context_only: found.difference(&main.locations()).cloned().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn report(verdict: &str, violations: &[(&str, u64)], incomplete: bool) -> Value {
        let v: Vec<Value> = violations
            .iter()
            .map(|(l, t)| json!({"location": l, "thread": t}))
            .collect();
        let inc: Vec<Value> = if incomplete {
            vec![json!({"reason": "timeout", "detail": ""})]
        } else {
            Vec::new()
        };
        json!({"verdict": verdict, "violations": v, "incomplete": inc})
    }

    #[test]
    fn a_thread_violation_the_finished_context_lacks_is_a_miss() {
        let main = Search::from_json(
            &report("violation", &[("a.c:5", 1), ("a.c:20", 0)], false),
            1.0,
        );
        let context = Search::from_json(&report("safe", &[], false), 1.0);
        let c = compare(&main, &context);
        assert_eq!(c.missed, vec!["a.c:5".to_string()]);
        assert!(c.undecided.is_empty() && c.context_only.is_empty());
    }

    #[test]
    fn a_cut_context_search_leaves_the_violation_undecided() {
        let main = Search::from_json(&report("violation", &[("a.c:5", 2)], false), 1.0);
        let context = Search::from_json(&report("unknown", &[], true), 1.0);
        assert!(!context.complete);
        let c = compare(&main, &context);
        assert!(c.missed.is_empty());
        assert_eq!(c.undecided, vec!["a.c:5".to_string()]);
    }

    #[test]
    fn main_s_own_violations_are_not_asked_of_the_context_and_extra_ones_are_listed() {
        let main = Search::from_json(&report("violation", &[("a.c:20", 0)], false), 1.0);
        let context = Search::from_json(
            &report("violation", &[("a.c:5", 1), ("a.c:20", 1)], false),
            1.0,
        );
        let c = compare(&main, &context);
        assert!(c.missed.is_empty() && c.undecided.is_empty());
        assert_eq!(c.context_only, vec!["a.c:5".to_string()]);
    }
}
