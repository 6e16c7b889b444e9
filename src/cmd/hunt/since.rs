//! `agx hunt ... --since OLD`: the goals ranked by the change's impact (Conc-iSE's
//! `IS_fwd`, `driver::ChangeImpact`), so that what the change since OLD may affect is
//! hunted — and, with `--first`, confirmed — first.
//!
//! A goal is *impacted* at a location when one of the location's statements is in
//! `IS_fwd` (the forward closure of the added and modified statements, of the readers of
//! changed objects and of what deleted or replaced statements fed, under control and data
//! dependence). Goals where every location is impacted come first, then those impacted at
//! some location (and goals without locations, such as undefined behaviour anywhere, which
//! any change may affect), then the rest; the order within a rank is kept. No goal is
//! dropped: a goal outside `IS_fwd` may still be reachable in both versions, and hunt's
//! verdicts are about the new version alone, so ranking changes only the order (and what
//! `--first` and `--total-timeout` leave undecided), never a verdict.

use super::{Aim, Spec};
use crate::driver::ChangeImpact;
use analysis::ir::StmtId;
use std::collections::BTreeSet;

/// How much of a goal the change may affect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Impact {
    None,
    Some,
    All,
}

/// The goal's impact under `forward` (`IS_fwd` of the new version).
pub fn impact_of(spec: &Spec, forward: &BTreeSet<StmtId>) -> Impact {
    let goal = match &spec.goal {
        Ok(Aim::Guided(g)) => g,
        Ok(Aim::UndefinedBehaviour) | Err(_) => return Impact::Some,
    };
    let hit = goal
        .locations
        .iter()
        .filter(|l| l.stmts.iter().any(|s| forward.contains(s)))
        .count();
    match hit {
        0 => Impact::None,
        n if n == goal.locations.len() => Impact::All,
        _ => Impact::Some,
    }
}

/// `specs` ranked by impact (stable), and how many are impacted at all.
pub fn rank(specs: Vec<Spec>, impact: &ChangeImpact) -> (Vec<Spec>, usize) {
    let mut ranked: Vec<(Impact, Spec)> = specs
        .into_iter()
        .map(|s| (impact_of(&s, &impact.forward), s))
        .collect();
    ranked.sort_by_key(|r| std::cmp::Reverse(r.0));
    let impacted = ranked.iter().filter(|(i, _)| *i != Impact::None).count();
    (ranked.into_iter().map(|(_, s)| s).collect(), impacted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use explorer::guided::{Goal, GoalKind, GoalLocation};

    fn spec(label: &str, stmts: &[&[u32]]) -> Spec {
        Spec {
            origin: "test".into(),
            label: label.into(),
            goal: Ok(Aim::Guided(Goal {
                kind: GoalKind::Race,
                locations: stmts
                    .iter()
                    .map(|s| GoalLocation {
                        stmts: s.iter().map(|&i| StmtId(i)).collect(),
                        label: label.into(),
                    })
                    .collect(),
            })),
        }
    }

    #[test]
    fn goals_rank_by_how_many_locations_the_change_reaches() {
        let forward: BTreeSet<StmtId> = [StmtId(3), StmtId(7)].into();
        let specs = [
            spec("none", &[&[1], &[2]]),
            spec("some", &[&[3], &[4]]),
            spec("all", &[&[5, 7], &[3]]),
            spec("none2", &[&[9]]),
        ];
        let kinds: Vec<Impact> = specs.iter().map(|s| impact_of(s, &forward)).collect();
        assert_eq!(
            kinds,
            [Impact::None, Impact::Some, Impact::All, Impact::None]
        );
        let ub = Spec {
            origin: "ub".into(),
            label: "ub".into(),
            goal: Ok(Aim::UndefinedBehaviour),
        };
        assert_eq!(impact_of(&ub, &forward), Impact::Some);
    }
}
