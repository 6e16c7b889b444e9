//! The progress display of a search, in the CLI: the symbolic engine (a library) prints
//! nothing itself and tells a [`ProgressObserver`] how far it has come; here that becomes
//! one indicatif line on stderr, only on a terminal, from the engine's first report on
//! (a search shorter than a second shows none), cleared when the search ends.
//! `agx hunt` draws its own line (`hunt/watch.rs`) and gives its searches no observer,
//! so two lines never interleave.

use explorer::symbolic::{ProgressObserver, SearchProgress};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Duration;

/// A search's progress line: the bar to clear at the end and the observer that feeds it;
/// `None` when stderr is not a terminal.
pub fn search_line(command: &str) -> Option<(ProgressBar, ProgressObserver)> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    // Hidden until the engine's first report (about a second in): a search that ends
    // sooner leaves no line flickering on the terminal.
    let bar = ProgressBar::hidden();
    let template = format!("{command} [{{elapsed_precise}}] {{spinner}} {{msg}}");
    bar.set_style(
        ProgressStyle::with_template(&template)
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    let shown = bar.clone();
    let observer = ProgressObserver(Arc::new(move |p: SearchProgress| {
        if shown.is_hidden() {
            shown.set_draw_target(ProgressDrawTarget::stderr_with_hz(4));
            shown.enable_steady_tick(Duration::from_millis(250));
        }
        shown.set_message(message(&p));
    }));
    Some((bar, observer))
}

/// What the line says about a search.
fn message(p: &SearchProgress) -> String {
    format!(
        "{} runs, {} partial, {} states",
        p.runs, p.partial_runs, p.states
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_runs_partial_runs_and_states() {
        let p = SearchProgress {
            runs: 12,
            partial_runs: 3,
            states: 480,
            elapsed: Duration::from_secs(2),
        };
        assert_eq!(message(&p), "12 runs, 3 partial, 480 states");
    }
}
