//! `agx bench --compare OLD NEW`: what changed between two results files.
//!
//! Records are matched by (task, property, strategy), a run of verify's default strategy
//! counting as a run of the strategy verify reported having used. A change of status is
//! - *wrong now* when the new verdict is wrong and the old one was not (listed first),
//! - *fixed* when the old verdict was wrong and the new one is not,
//! - *gained* when the new verdict is correct and the old one was not,
//! - *lost* when the old verdict was correct and the new one is not,
//! - *other* otherwise (e.g. UNKNOWN → TIMEOUT).
//!
//! For records both runs decided (TRUE/FALSE), the ratios new/old of runs and wall time,
//! with their medians; and per strategy the score and counts before and after.

use super::median;
use super::report::{expected_label, ratio, ratio_text, seconds, Table};
use super::results::{Record, Results};
use super::score::Tally;
use super::verify::Status;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

type Key = (String, String, String);

/// A status change of one record.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub name: String,
    pub strategy: String,
    pub expected: Option<bool>,
    pub old: Status,
    pub new: Status,
}

/// Ratios new/old of one record both runs decided.
#[derive(Clone, Debug, PartialEq)]
pub struct RatioRow {
    pub name: String,
    pub strategy: String,
    pub runs: (Option<u64>, Option<u64>),
    pub time_ms: (u64, u64),
}

impl RatioRow {
    pub fn runs_ratio(&self) -> Option<f64> {
        ratio(self.runs.0.map(|v| v as f64), self.runs.1.map(|v| v as f64))
    }
    pub fn time_ratio(&self) -> Option<f64> {
        ratio(Some(self.time_ms.0 as f64), Some(self.time_ms.1 as f64))
    }
}

/// Everything that differs between two runs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    pub wrong_now: Vec<Change>,
    pub fixed: Vec<Change>,
    pub gained: Vec<Change>,
    pub lost: Vec<Change>,
    pub other: Vec<Change>,
    pub only_old: Vec<String>,
    pub only_new: Vec<String>,
    pub ratios: Vec<RatioRow>,
    /// Per strategy: the tallies of the old and the new run.
    pub tallies: BTreeMap<String, (Tally, Tally)>,
}

impl Comparison {
    pub fn median_runs_ratio(&self) -> Option<f64> {
        let v: Vec<f64> = self
            .ratios
            .iter()
            .filter_map(RatioRow::runs_ratio)
            .collect();
        median(&v)
    }
    pub fn median_time_ratio(&self) -> Option<f64> {
        let v: Vec<f64> = self
            .ratios
            .iter()
            .filter_map(RatioRow::time_ratio)
            .collect();
        median(&v)
    }
}

/// Compares two runs. A new record is paired with the old record of the same task,
/// property and requested strategy; failing that, with the old record whose resolved
/// strategy (what verify reported using for its default) is the same, so a run of the
/// default strategy compares with one that named it.
pub fn compare(old: &Results, new: &Results) -> Comparison {
    let by_key: BTreeMap<Key, &Record> = old.records.iter().map(|r| (r.key(), r)).collect();
    let by_resolved: BTreeMap<Key, &Record> =
        old.records.iter().map(|r| (r.resolved_key(), r)).collect();
    let mut c = Comparison::default();
    let mut paired: BTreeSet<Key> = BTreeSet::new();
    for n in &new.records {
        c.tallies
            .entry(n.strategy.clone())
            .or_default()
            .1
            .add(n.outcome, n.status);
        let partner = by_key
            .get(&n.key())
            .or_else(|| by_resolved.get(&n.resolved_key()));
        let Some(o) = partner else {
            c.only_new.push(label(n));
            continue;
        };
        paired.insert(o.key());
        if o.status != n.status {
            classify_change(&mut c, o, n);
        }
        if decided(o) && decided(n) {
            c.ratios.push(RatioRow {
                name: n.display_name(),
                strategy: n.strategy.clone(),
                runs: (o.runs, n.runs),
                time_ms: (o.wall_time_ms, n.wall_time_ms),
            });
        }
    }
    for r in &old.records {
        c.tallies
            .entry(r.strategy.clone())
            .or_default()
            .0
            .add(r.outcome, r.status);
        if !paired.contains(&r.key()) {
            c.only_old.push(label(r));
        }
    }
    c
}

fn classify_change(c: &mut Comparison, o: &Record, n: &Record) {
    let change = Change {
        name: n.display_name(),
        strategy: n.strategy.clone(),
        expected: n.expected,
        old: o.status,
        new: n.status,
    };
    let list = if n.outcome.is_wrong() {
        &mut c.wrong_now
    } else if o.outcome.is_wrong() {
        &mut c.fixed
    } else if n.outcome.is_correct() {
        &mut c.gained
    } else if o.outcome.is_correct() {
        &mut c.lost
    } else {
        &mut c.other
    };
    list.push(change);
}

fn decided(r: &Record) -> bool {
    matches!(r.status, Status::True | Status::False)
}

fn label(r: &Record) -> String {
    format!("{} ({})", r.display_name(), r.strategy)
}

/// The comparison as text.
pub fn render(c: &Comparison) -> String {
    let mut out = String::new();
    changes(&mut out, "WRONG NOW", &c.wrong_now);
    changes(&mut out, "FIXED (was wrong)", &c.fixed);
    changes(&mut out, "LOST (was correct)", &c.lost);
    changes(&mut out, "GAINED (now correct)", &c.gained);
    changes(&mut out, "OTHER STATUS CHANGES", &c.other);
    for (title, names) in [("ONLY IN OLD", &c.only_old), ("ONLY IN NEW", &c.only_new)] {
        if !names.is_empty() {
            let _ = writeln!(out, "\n{title} ({})", names.len());
            for name in names {
                let _ = writeln!(out, "  {name}");
            }
        }
    }
    scores(&mut out, c);
    ratios(&mut out, c);
    out.trim_start().to_string()
}

fn changes(out: &mut String, title: &str, changes: &[Change]) {
    let _ = writeln!(out, "\n{title} ({})", changes.len());
    if changes.is_empty() {
        return;
    }
    let mut table = Table::new(&["task", "strategy", "expected", "old", "new"]);
    for ch in changes {
        table.row(vec![
            ch.name.clone(),
            ch.strategy.clone(),
            expected_label(ch.expected).to_string(),
            ch.old.label().to_string(),
            ch.new.label().to_string(),
        ]);
    }
    out.push_str(&table.render(&[]));
}

fn scores(out: &mut String, c: &Comparison) {
    let _ = writeln!(out, "\nSCORE (old -> new)");
    let mut table = Table::new(&["strategy", "tasks", "score", "correct", "wrong"]);
    for (strategy, (old, new)) in &c.tallies {
        table.row(vec![
            strategy.clone(),
            format!("{} -> {}", old.tasks, new.tasks),
            format!("{} -> {}", old.score, new.score),
            format!("{} -> {}", old.correct(), new.correct()),
            format!("{} -> {}", old.wrong(), new.wrong()),
        ]);
    }
    out.push_str(&table.render(&[1, 2, 3, 4]));
}

fn ratios(out: &mut String, c: &Comparison) {
    let _ = writeln!(
        out,
        "\nRATIOS new / old ({} tasks both decided; < 1 means the new run did less)",
        c.ratios.len()
    );
    let mut table = Table::new(&[
        "task",
        "strategy",
        "runs old",
        "runs new",
        "runs ratio",
        "time old",
        "time new",
        "time ratio",
    ]);
    let text = |r: Option<f64>| r.map(ratio_text).unwrap_or_else(|| "-".into());
    let count = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_else(|| "-".into());
    for r in &c.ratios {
        table.row(vec![
            r.name.clone(),
            r.strategy.clone(),
            count(r.runs.0),
            count(r.runs.1),
            text(r.runs_ratio()),
            seconds(r.time_ms.0),
            seconds(r.time_ms.1),
            text(r.time_ratio()),
        ]);
    }
    table.row(vec![
        "MEDIAN".into(),
        String::new(),
        String::new(),
        String::new(),
        text(c.median_runs_ratio()),
        String::new(),
        String::new(),
        text(c.median_time_ratio()),
    ]);
    out.push_str(&table.render(&[2, 3, 4, 5, 6, 7]));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::tests::{sample_record, sample_results};
    use crate::score::Correctness;

    fn with_status(mut r: Record, status: Status) -> Record {
        r.status = status;
        r.outcome = Correctness::of(r.expected, status);
        r.score = r.outcome.score();
        r
    }

    #[test]
    fn identical_runs_have_no_changes_and_unit_ratios() {
        let results = sample_results(vec![
            sample_record("p/a", Status::False, false),
            sample_record("p/b", Status::True, true),
        ]);
        let round_tripped = Results::parse(&results.to_json().unwrap()).unwrap();
        let c = compare(&results, &round_tripped);
        assert!(c.wrong_now.is_empty() && c.gained.is_empty() && c.lost.is_empty());
        assert!(c.only_old.is_empty() && c.only_new.is_empty());
        assert_eq!(c.ratios.len(), 2);
        assert_eq!(c.median_runs_ratio(), Some(1.0));
        assert_eq!(c.median_time_ratio(), Some(1.0));
    }

    #[test]
    fn runs_of_the_default_strategy_pair_whatever_verify_reported() {
        // A killed or failed run has no `strategy_used`; the same task's finished run of
        // the same (default) request does.
        let mut killed = sample_record("p/a", Status::Timeout, true);
        killed.strategy = "default".into();
        killed.strategy_used = None;
        let mut finished = sample_record("p/a", Status::True, true);
        finished.strategy = "default".into();
        finished.strategy_used = Some("dpor+ag".into());
        for (old, new) in [(&killed, &finished), (&finished, &killed)] {
            let c = compare(
                &sample_results(vec![old.clone()]),
                &sample_results(vec![new.clone()]),
            );
            assert!(c.only_old.is_empty() && c.only_new.is_empty(), "{c:?}");
            assert_eq!(c.gained.len() + c.lost.len(), 1, "{c:?}");
            assert_eq!(c.tallies.keys().collect::<Vec<_>>(), vec!["default"]);
        }
    }

    #[test]
    fn default_strategy_matches_the_strategy_verify_used() {
        let mut old = sample_record("p/a", Status::True, true);
        old.strategy = "default".into();
        old.strategy_used = Some("dpor".into());
        let new = sample_record("p/a", Status::True, true);
        let c = compare(&sample_results(vec![old]), &sample_results(vec![new]));
        assert!(c.only_old.is_empty() && c.only_new.is_empty(), "{c:?}");
        assert_eq!(c.ratios.len(), 1);
    }

    #[test]
    fn classifies_changes() {
        let old = sample_results(vec![
            sample_record("p/gain", Status::Timeout, false),
            sample_record("p/lose", Status::True, true),
            sample_record("p/break", Status::Unknown, false),
            sample_record("p/fix", Status::True, false),
            sample_record("p/other", Status::Unknown, true),
            sample_record("p/gone", Status::True, true),
        ]);
        let mut faster = sample_record("p/gain", Status::False, false);
        faster.runs = Some(6);
        let new = sample_results(vec![
            faster,
            with_status(sample_record("p/lose", Status::True, true), Status::Error),
            with_status(sample_record("p/break", Status::True, false), Status::True),
            with_status(sample_record("p/fix", Status::True, false), Status::False),
            with_status(
                sample_record("p/other", Status::Unknown, true),
                Status::Timeout,
            ),
            sample_record("p/new", Status::True, true),
        ]);
        let c = compare(&old, &new);
        let names = |v: &[Change]| v.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&c.gained), vec!["p/gain"]);
        assert_eq!(names(&c.lost), vec!["p/lose"]);
        assert_eq!(names(&c.wrong_now), vec!["p/break"]);
        assert_eq!(names(&c.fixed), vec!["p/fix"]);
        assert_eq!(names(&c.other), vec!["p/other"]);
        assert_eq!(c.only_old, vec!["p/gone (dpor)"]);
        assert_eq!(c.only_new, vec!["p/new (dpor)"]);
        let (old_tally, new_tally) = &c.tallies["dpor"];
        assert_eq!(old_tally.score, 2 - 32 + 2);
        assert_eq!(new_tally.score, 1 + -32 + 1 + 2);
        // Only p/fix was decided in both runs.
        assert_eq!(c.ratios.len(), 1);
        let text = render(&c);
        assert!(text.starts_with("WRONG NOW (1)"), "{text}");
        insta::assert_snapshot!(text);
    }
}
