//! SV-COMP scoring.
//!
//! A verdict is compared with the expected one: TRUE on a task whose property holds is
//! *correct true* (+2), FALSE on a violated one *correct false* (+1), TRUE on a violated
//! one *wrong true* (−32), FALSE on one that holds *wrong false* (−16). Every other status
//! (UNKNOWN, ERROR, TIMEOUT, OUT OF MEMORY) scores 0, as in SV-COMP. Tasks with an
//! unsupported construct or property, and tasks without an expected verdict, are counted
//! apart and never scored either way. A verdict against an expectation the project
//! disputes (`crate::disputed`, each with its evidence) is *disputed*: scored 0 and listed
//! apart, neither correct nor wrong.

use super::verify::Status;
use serde::{Deserialize, Serialize};

/// A verdict judged against the expectation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Correctness {
    CorrectTrue,
    CorrectFalse,
    WrongTrue,
    WrongFalse,
    /// No verdict: UNKNOWN, ERROR, TIMEOUT or OUT OF MEMORY.
    NoVerdict,
    /// An unsupported construct or property.
    Unsupported,
    /// A verdict on a task without an expected verdict.
    NoExpectation,
    /// A verdict against an expectation listed in `crate::disputed`.
    Disputed,
}

impl Correctness {
    /// Judges `status` against `expected` (`Some(true)`: the property holds).
    pub fn of(expected: Option<bool>, status: Status) -> Correctness {
        let verdict = match status {
            Status::True => true,
            Status::False => false,
            Status::Unsupported | Status::NotSupported => return Correctness::Unsupported,
            Status::Unknown | Status::Error | Status::Timeout | Status::OutOfMemory => {
                return Correctness::NoVerdict
            }
        };
        match (expected, verdict) {
            (None, _) => Correctness::NoExpectation,
            (Some(true), true) => Correctness::CorrectTrue,
            (Some(false), false) => Correctness::CorrectFalse,
            (Some(false), true) => Correctness::WrongTrue,
            (Some(true), false) => Correctness::WrongFalse,
        }
    }

    /// Judges `status` on `property` of `task` against `expected`, except that a verdict
    /// contradicting an expectation the project disputes is [`Correctness::Disputed`].
    pub fn judge(task: &str, property: &str, expected: Option<bool>, status: Status) -> Self {
        let outcome = Correctness::of(expected, status);
        let disputed = crate::disputed::find(task, property)
            .is_some_and(|d| expected == Some(d.expected) && outcome.is_wrong());
        if disputed {
            Correctness::Disputed
        } else {
            outcome
        }
    }

    /// The SV-COMP score.
    pub fn score(self) -> i64 {
        match self {
            Correctness::CorrectTrue => 2,
            Correctness::CorrectFalse => 1,
            Correctness::WrongTrue => -32,
            Correctness::WrongFalse => -16,
            Correctness::NoVerdict
            | Correctness::Unsupported
            | Correctness::NoExpectation
            | Correctness::Disputed => 0,
        }
    }

    pub fn is_wrong(self) -> bool {
        matches!(self, Correctness::WrongTrue | Correctness::WrongFalse)
    }

    pub fn is_correct(self) -> bool {
        matches!(self, Correctness::CorrectTrue | Correctness::CorrectFalse)
    }
}

/// Counts and score over a set of tasks.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub tasks: u32,
    pub correct_true: u32,
    pub correct_false: u32,
    pub wrong_true: u32,
    pub wrong_false: u32,
    /// Status UNKNOWN (verify gave up, naming a bound).
    pub unknown: u32,
    pub error: u32,
    pub timeout: u32,
    pub out_of_memory: u32,
    /// Unsupported language construct.
    pub unsupported: u32,
    /// Property not checked by agx.
    pub not_supported: u32,
    /// A verdict where none was expected.
    pub no_expectation: u32,
    /// A verdict against a disputed expectation (`crate::disputed`).
    pub disputed: u32,
    pub score: i64,
}

impl Tally {
    /// Counts one task judged `outcome` with `status`.
    pub fn add(&mut self, outcome: Correctness, status: Status) {
        self.tasks += 1;
        self.score += outcome.score();
        let counter = match (outcome, status) {
            (Correctness::CorrectTrue, _) => &mut self.correct_true,
            (Correctness::CorrectFalse, _) => &mut self.correct_false,
            (Correctness::WrongTrue, _) => &mut self.wrong_true,
            (Correctness::WrongFalse, _) => &mut self.wrong_false,
            (Correctness::NoExpectation, _) => &mut self.no_expectation,
            (Correctness::Disputed, _) => &mut self.disputed,
            (_, Status::NotSupported) => &mut self.not_supported,
            (_, Status::Unsupported) => &mut self.unsupported,
            (_, Status::Timeout) => &mut self.timeout,
            (_, Status::OutOfMemory) => &mut self.out_of_memory,
            (_, Status::Error) => &mut self.error,
            (_, _) => &mut self.unknown,
        };
        *counter += 1;
    }

    pub fn correct(&self) -> u32 {
        self.correct_true + self.correct_false
    }

    pub fn wrong(&self) -> u32 {
        self.wrong_true + self.wrong_false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes() {
        use Correctness::*;
        assert_eq!(Correctness::of(Some(true), Status::True), CorrectTrue);
        assert_eq!(Correctness::of(Some(false), Status::False), CorrectFalse);
        assert_eq!(Correctness::of(Some(false), Status::True), WrongTrue);
        assert_eq!(Correctness::of(Some(true), Status::False), WrongFalse);
        assert_eq!(Correctness::of(None, Status::False), NoExpectation);
        assert_eq!(Correctness::of(Some(true), Status::Timeout), NoVerdict);
        assert_eq!(
            Correctness::of(Some(false), Status::Unsupported),
            Unsupported
        );
        assert_eq!(
            Correctness::of(Some(false), Status::NotSupported),
            Unsupported
        );
    }

    #[test]
    fn sv_comp_score_arithmetic() {
        fn add(t: &mut Tally, expected: Option<bool>, status: Status) {
            t.add(Correctness::of(expected, status), status);
        }
        let mut t = Tally::default();
        for _ in 0..3 {
            add(&mut t, Some(true), Status::True); // +2 each
        }
        add(&mut t, Some(false), Status::False); // +1
        add(&mut t, Some(false), Status::False); // +1
        add(&mut t, Some(false), Status::True); // -32
        add(&mut t, Some(true), Status::False); // -16
        add(&mut t, Some(true), Status::Unknown);
        add(&mut t, Some(true), Status::Error);
        add(&mut t, Some(false), Status::Timeout);
        add(&mut t, Some(false), Status::OutOfMemory);
        add(&mut t, Some(true), Status::Unsupported);
        add(&mut t, Some(false), Status::NotSupported);
        add(&mut t, None, Status::True);
        assert_eq!(t.score, 3 * 2 + 2 - 32 - 16);
        assert_eq!(t.tasks, 14);
        assert_eq!((t.correct_true, t.correct_false), (3, 2));
        assert_eq!((t.wrong_true, t.wrong_false), (1, 1));
        assert_eq!(
            (t.unknown, t.error, t.timeout, t.out_of_memory),
            (1, 1, 1, 1)
        );
        assert_eq!(
            (t.unsupported, t.not_supported, t.no_expectation),
            (1, 1, 1)
        );
        assert_eq!((t.correct(), t.wrong()), (5, 2));
    }

    #[test]
    fn a_disputed_expectation_is_neither_correct_nor_wrong() {
        let lamport = "pthread-atomic/lamport";
        let judged = Correctness::judge(lamport, "no-data-race", Some(true), Status::False);
        assert_eq!(judged, Correctness::Disputed);
        assert_eq!(judged.score(), 0);
        assert!(!judged.is_wrong() && !judged.is_correct());
        // Agreeing with the file, or another property of the task, is judged as usual.
        let agrees = Correctness::judge(lamport, "no-data-race", Some(true), Status::True);
        assert_eq!(agrees, Correctness::CorrectTrue);
        let other = Correctness::judge(lamport, "unreach-call", Some(true), Status::False);
        assert_eq!(other, Correctness::WrongFalse);
        let mut t = Tally::default();
        t.add(judged, Status::False);
        assert_eq!((t.disputed, t.wrong(), t.correct(), t.score), (1, 0, 0, 0));
    }
}
