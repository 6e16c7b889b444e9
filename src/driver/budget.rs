//! The time budget of one command, counted from its start: the front end, the rule sets
//! run before the search (the pre-pass: facts, analyses, slices, abstraction) and the
//! search all spend it.
//!
//! The search checks its deadline itself. The front end and the rule sets cannot be
//! interrupted (ascent's fixpoints have no cancellation point, lang-c none either), so
//! [`Budget::run`] runs such work on a worker thread and stops *waiting* for it when the
//! budget runs out: the command then reports UNKNOWN naming the timeout and exits, and the
//! process's exit ends the abandoned worker. A cooperative check between rule sets would
//! leave each single rule set (the races rule set alone takes seconds on large programs)
//! and the front end unbounded, so the deadline would still be missed.

use std::fmt;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

/// The stack of a worker: the same as the main thread's (8 MiB), which the rule sets were
/// written against (deep programs lower on their own larger-stack thread).
const WORKER_STACK: usize = 8 << 20;

/// A command's time budget: its start and its limit (`None`: no limit).
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    started: Instant,
    limit: Option<Duration>,
}

/// Work that did not finish within the budget.
#[derive(Clone, Debug, PartialEq)]
pub struct Overrun {
    /// The command's whole budget.
    pub limit: Duration,
    /// Time spent when the command stopped waiting (since its start).
    pub spent: Duration,
    /// What was running, in words ("the front end and the pre-pass").
    pub stage: &'static str,
}

impl fmt::Display for Overrun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the time budget of {:.3} s ran out in {} (stopped waiting for it after {:.3} s)",
            self.limit.as_secs_f64(),
            self.stage,
            self.spent.as_secs_f64()
        )
    }
}

impl Budget {
    /// A budget starting now.
    pub fn start(limit: Option<Duration>) -> Budget {
        Budget {
            started: Instant::now(),
            limit,
        }
    }

    pub fn limit(&self) -> Option<Duration> {
        self.limit
    }

    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// What is left of the limit (zero once it has passed); `None` without a limit.
    pub fn left(&self) -> Option<Duration> {
        self.limit.map(|l| l.saturating_sub(self.elapsed()))
    }

    /// Runs `work` and returns its result, or [`Overrun`] when the budget runs out first.
    /// With a limit, `work` runs on a worker thread that is abandoned at the deadline (see
    /// the module documentation); without one, on the calling thread. A panic in `work`
    /// is resumed on the calling thread; a worker that cannot be started is an error.
    pub fn run<T: Send + 'static>(
        &self,
        stage: &'static str,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> anyhow::Result<Result<T, Overrun>> {
        let Some(limit) = self.limit else {
            return Ok(Ok(work()));
        };
        let (send, receive) = mpsc::sync_channel(1);
        let worker = thread::Builder::new()
            .name("agx-pre-pass".into())
            .stack_size(WORKER_STACK)
            .spawn(move || {
                // The receiver is gone when the command stopped waiting: nothing to do.
                let _ = send.send(work());
            })
            .map_err(|e| anyhow::anyhow!("cannot start the pre-pass thread: {e}"))?;
        match receive.recv_timeout(self.left().unwrap_or_default()) {
            Ok(result) => Ok(Ok(result)),
            Err(RecvTimeoutError::Timeout) => Ok(Err(Overrun {
                limit,
                spent: self.elapsed(),
                stage,
            })),
            Err(RecvTimeoutError::Disconnected) => match worker.join() {
                Err(panic) => std::panic::resume_unwind(panic),
                Ok(()) => unreachable!("the worker sends its result before it ends"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn work_that_outlasts_the_budget_is_abandoned_at_the_deadline() {
        // The work waits for a message sent only after `run` has returned: `run` must
        // stop waiting on its own, or this test never ends.
        let (release, wait) = mpsc::channel::<()>();
        let budget = Budget::start(Some(Duration::from_millis(50)));
        let result = budget
            .run("the pre-pass", move || wait.recv().is_ok())
            .unwrap();
        let overrun = result.unwrap_err();
        assert_eq!(overrun.stage, "the pre-pass");
        assert!(overrun.spent >= Duration::from_millis(50), "{overrun:?}");
        assert!(overrun.to_string().starts_with(
            "the time budget of 0.050 s ran out in the pre-pass (stopped waiting for it after 0.0"
        ));
        let _ = release.send(());
    }

    #[test]
    fn work_within_the_budget_or_without_one_returns_its_result() {
        let budget = Budget::start(Some(Duration::from_secs(600)));
        assert_eq!(budget.run("x", || 6 * 7).unwrap(), Ok(42));
        assert!(budget.left().unwrap() > Duration::from_secs(500));
        let unlimited = Budget::start(None);
        assert_eq!(unlimited.run("x", || "here").unwrap(), Ok("here"));
        assert_eq!(unlimited.left(), None);
    }

    #[test]
    #[should_panic(expected = "inside the worker")]
    fn a_panic_in_the_work_reaches_the_caller() {
        let budget = Budget::start(Some(Duration::from_secs(600)));
        let _ = budget.run("x", || -> u8 { panic!("inside the worker") });
    }

    #[test]
    fn a_spent_budget_stops_waiting_at_once() {
        let budget = Budget::start(Some(Duration::from_millis(1)));
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(budget.left(), Some(Duration::ZERO));
        let (_keep, wait) = mpsc::channel::<()>();
        let result = budget.run("the front end", move || wait.recv().is_ok());
        assert!(result.unwrap().is_err());
    }
}
