//! Several goals hunted in rounds of growing budgets.
//!
//! Hunting goals one after the other to the full bound lets one hard goal hold up the
//! rest: with `--assertions`, an assertion that no run violates can use the whole state
//! bound and time budget before an easy violation next to it is even tried. And a goal
//! that the exhaustive fallback decides in a few hundred states (a refutation, or a
//! violation the abstraction does not guide to) would first be searched to the full
//! bound by the guided trials.
//!
//! So every goal still undecided is hunted again in each round, with the guided trials'
//! state bound and the exhaustive search's state bound both set to the round's budget:
//! `b_k = min(FIRST_ROUND_STATES · 10^k, max_states)`. The last round uses the
//! configured bounds (`max_states`, and no state bound on the exhaustive search).
//! A goal leaves the rounds when it is CONFIRMED or REFUTED, when its time budget
//! (`timeout`, over all its rounds) is spent, or after the last round. A round repeats
//! the work of the earlier ones, at most `1/9` of its own, since the budgets grow
//! tenfold; the statistics of a goal add up every round it took part in.
//!
//! With `--first` (`stop_at_first`), the first CONFIRMED goal ends the hunt, as
//! `agx verify` stops at its first violation; the goals left are UNKNOWN.
//!
//! Verdicts keep their meaning: each round's CONFIRMED has a replayed witness and each
//! REFUTED comes from a search that finished without hitting a bound; an UNKNOWN after
//! the last round names the bounds of that round.

use super::{Config, Hunt, HuntStats, Verdict};
use std::time::Duration;

/// The budget of the first round, in scheduling nodes.
pub const FIRST_ROUND_STATES: u64 = 2_000;

/// The state budgets of the rounds, ending with `max_states`.
pub fn round_budgets(max_states: u64) -> Vec<u64> {
    let mut budgets = Vec::new();
    let mut b = FIRST_ROUND_STATES;
    while b < max_states {
        budgets.push(b);
        b = b.saturating_mul(10);
    }
    budgets.push(max_states);
    budgets
}

/// Hunts goals `0..goals` in rounds; `hunt_goal(i, cfg)` hunts goal `i` under the round's
/// configuration. With `stop_at_first`, the first CONFIRMED goal ends the hunt: the goals
/// still undecided are UNKNOWN ("not hunted further"). Returns one hunt per goal, in goal
/// order.
pub fn hunt_in_rounds<E>(
    goals: usize,
    cfg: &Config,
    stop_at_first: bool,
    mut hunt_goal: impl FnMut(usize, &Config) -> Result<Hunt, E>,
) -> Result<Vec<Hunt>, E> {
    let budgets = round_budgets(cfg.max_states);
    let mut decided: Vec<Option<Hunt>> = vec![None; goals];
    let mut spent: Vec<HuntStats> = vec![HuntStats::default(); goals];
    let mut stopped_at = None;
    for (round, &budget) in budgets.iter().enumerate() {
        let last = round + 1 == budgets.len();
        for goal in 0..goals {
            if decided[goal].is_some() || stopped_at.is_some() {
                continue;
            }
            let used = Duration::from_secs_f64(spent[goal].time_ms / 1000.0);
            let round_cfg = Config {
                max_states: budget,
                exhaustive_max_states: if last {
                    cfg.exhaustive_max_states
                } else {
                    Some(budget)
                },
                timeout: cfg.timeout.saturating_sub(used),
                ..cfg.clone()
            };
            let mut hunt = hunt_goal(goal, &round_cfg)?;
            add_earlier_rounds(&mut hunt.stats, &spent[goal]);
            let out_of_time = hunt.stats.time_ms / 1000.0 >= cfg.timeout.as_secs_f64();
            // A goal decided without a search (or that a search cannot help) is final.
            let searched = hunt.stats.states > spent[goal].states;
            if stop_at_first && hunt.verdict == Verdict::Confirmed {
                stopped_at = Some(goal);
            }
            if hunt.verdict != Verdict::Unknown || last || out_of_time || !searched {
                decided[goal] = Some(hunt);
            } else {
                spent[goal] = hunt.stats;
            }
        }
    }
    Ok(decided
        .into_iter()
        .zip(spent)
        .map(|(hunt, spent)| match (hunt, stopped_at) {
            (Some(hunt), _) => hunt,
            (None, Some(first)) => not_hunted_further(first, spent),
            (None, None) => unreachable!("the last round decides every goal"),
        })
        .collect())
}

/// An undecided goal when the hunt stopped at the first confirmed goal `first`.
fn not_hunted_further(first: usize, stats: HuntStats) -> Hunt {
    let reason = format!(
        "not hunted further: the hunt stopped at the first confirmed goal (goal {})",
        first + 1
    );
    Hunt::without_evidence(Verdict::Unknown, None, reason, stats)
}

/// Adds the work of the earlier rounds (`before`) to this round's statistics.
fn add_earlier_rounds(stats: &mut HuntStats, before: &HuntStats) {
    stats.states += before.states;
    stats.expanded += before.expanded;
    stats.exhaustive_states += before.exhaustive_states;
    stats.solver_queries += before.solver_queries;
    stats.time_ms += before.time_ms;
    stats.rounds = before.rounds + 1;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hunt(verdict: Verdict, states: u64) -> Hunt {
        Hunt {
            verdict,
            found_by: None,
            reason: None,
            evidence: None,
            initial_traces: Vec::new(),
            final_traces: Vec::new(),
            refinements: Vec::new(),
            stats: HuntStats {
                states,
                time_ms: 1.0,
                ..HuntStats::default()
            },
        }
    }

    #[test]
    fn budgets_grow_tenfold_up_to_the_bound() {
        assert_eq!(round_budgets(200_000), vec![2_000, 20_000, 200_000]);
        assert_eq!(round_budgets(2_000), vec![2_000]);
        assert_eq!(round_budgets(500), vec![500]);
    }

    #[test]
    fn an_easy_goal_is_decided_before_a_hard_one_uses_the_full_bound() {
        let cfg = Config::default();
        let mut calls: Vec<(usize, u64, Option<u64>)> = Vec::new();
        let hunts = hunt_in_rounds(2, &cfg, false, |goal, c| {
            calls.push((goal, c.max_states, c.exhaustive_max_states));
            Ok::<_, ()>(match goal {
                // Goal 0 never decides: it uses each round's whole budget.
                0 => hunt(Verdict::Unknown, c.max_states),
                // Goal 1 is confirmed once the budget reaches 20 000 states.
                _ if c.max_states >= 20_000 => hunt(Verdict::Confirmed, 15_000),
                _ => hunt(Verdict::Unknown, c.max_states),
            })
        })
        .unwrap();
        assert_eq!(
            calls,
            vec![
                (0, 2_000, Some(2_000)),
                (1, 2_000, Some(2_000)),
                (0, 20_000, Some(20_000)),
                (1, 20_000, Some(20_000)),
                (0, 200_000, None),
            ]
        );
        assert_eq!(hunts[1].verdict, Verdict::Confirmed);
        assert_eq!(hunts[1].stats.states, 2_000 + 15_000);
        assert_eq!(hunts[1].stats.rounds, 2);
        assert_eq!(hunts[0].verdict, Verdict::Unknown);
        assert_eq!(hunts[0].stats.states, 222_000);
        assert_eq!(hunts[0].stats.rounds, 3);
    }

    #[test]
    fn the_first_confirmation_can_end_the_hunt() {
        let mut calls = Vec::new();
        let hunts = hunt_in_rounds(3, &Config::default(), true, |goal, c| {
            calls.push(goal);
            Ok::<_, ()>(match goal {
                1 if c.max_states >= 20_000 => hunt(Verdict::Confirmed, 100),
                _ => hunt(Verdict::Unknown, c.max_states),
            })
        })
        .unwrap();
        assert_eq!(calls, vec![0, 1, 2, 0, 1]);
        assert_eq!(hunts[1].verdict, Verdict::Confirmed);
        for other in [0, 2] {
            assert_eq!(hunts[other].verdict, Verdict::Unknown);
            assert!(hunts[other]
                .reason
                .as_deref()
                .unwrap()
                .contains("first confirmed goal (goal 2)"));
        }
        assert_eq!(hunts[0].stats.states, 22_000);
    }

    #[test]
    fn a_goal_without_a_search_is_not_hunted_again() {
        let mut calls = 0;
        let hunts = hunt_in_rounds(1, &Config::default(), false, |_, _| {
            calls += 1;
            Ok::<_, ()>(hunt(Verdict::Unknown, 0))
        })
        .unwrap();
        assert_eq!(calls, 1);
        assert_eq!(hunts[0].stats.rounds, 1);
    }
}
