//! agx's exit codes: one rule for every command, so that scripts and CI can act on the
//! answer without reading the report. [`TABLE`] is the one statement of the rule: `agx
//! --help` and the man page print it, the README repeats it.
//!
//! A violation outranks UNKNOWN: a hunt with one goal confirmed and another undecided
//! exits 1.

use std::process::ExitCode;

/// What a command's answer says about the program, as an exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Answer {
    /// No violation (or a command that judges nothing succeeded).
    NoViolation,
    /// Neither a violation nor a proof of its absence.
    Unknown,
    /// A violation (or a finding, or a wrong bench verdict).
    Violation,
}

/// Every exit code with its meaning, for `--help` and the man page.
pub const TABLE: [(u8, &str); 5] = [
    (
        0,
        "no violation: SAFE, every hunt goal REFUTED, SV-COMP TRUE, no warning, a run \
         without violation; success for the commands that judge no program",
    ),
    (
        1,
        "a violation found: VIOLATION, a hunt goal CONFIRMED, FALSE(...), a warning, a run \
         that violated a property; bench: a wrong verdict; rules run --compare: the engines \
         disagree",
    ),
    (
        2,
        "a usage or input error: bad arguments, unreadable files, C outside the supported \
         subset (named with file:line)",
    ),
    (
        3,
        "UNKNOWN: no violation found, and none ruled out (a bound, the time limit or an \
         interruption stopped the search; a run stopped at a bound)",
    ),
    (
        130,
        "bench interrupted by SIGINT or SIGTERM (the finished runs are reported and kept)",
    ),
];

/// [`TABLE`] as the text after `agx --help`.
pub fn help() -> String {
    let mut text = String::from("Exit codes:\n");
    for (code, meaning) in TABLE {
        text.push_str(&format!("  {code:>3}  {meaning}\n"));
    }
    text
}

/// The exit code of an error (`main` prints it); clap's usage errors exit with it too.
pub const ERROR: u8 = 2;

/// The exit code of an interrupted `agx bench`, as a shell reports death by SIGINT.
pub const INTERRUPTED: u8 = 130;

impl Answer {
    pub fn code(self) -> u8 {
        match self {
            Answer::NoViolation => 0,
            Answer::Violation => 1,
            Answer::Unknown => 3,
        }
    }

    /// The answer of several goals: any violation, else any unknown, else none.
    pub fn combine(answers: impl IntoIterator<Item = Answer>) -> Answer {
        answers.into_iter().max().unwrap_or(Answer::NoViolation)
    }

    /// `Violation` when `found`, else `NoViolation`.
    pub fn found(found: bool) -> Answer {
        if found {
            Answer::Violation
        } else {
            Answer::NoViolation
        }
    }
}

impl From<Answer> for ExitCode {
    fn from(answer: Answer) -> ExitCode {
        ExitCode::from(answer.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_and_a_violation_outranks_unknown() {
        let codes = [
            Answer::NoViolation.code(),
            Answer::Violation.code(),
            ERROR,
            Answer::Unknown.code(),
            INTERRUPTED,
        ];
        assert_eq!(codes, [0, 1, 2, 3, 130]);
        let documented: Vec<u8> = TABLE.iter().map(|(code, _)| *code).collect();
        assert_eq!(documented, codes);
        use Answer::*;
        assert_eq!(Answer::combine([]), NoViolation);
        assert_eq!(Answer::combine([NoViolation, Unknown]), Unknown);
        assert_eq!(
            Answer::combine([Unknown, Violation, NoViolation]),
            Violation
        );
        assert_eq!(Answer::found(true), Violation);
        assert_eq!(Answer::found(false), NoViolation);
    }
}
