//! The program-context options `verify` and `hunt` share (`--entry`, `--copies`,
//! `--from`): the start line of each entry function and the context's label.

use crate::driver::{Driver, Location};
use anyhow::Result;
use explorer::context::Context;

/// The label of the context of `--entry`, `--copies` and `--from`: empty without entries.
pub fn describe_context(entry: &[String], copies: u32, from: &[String]) -> String {
    if entry.is_empty() {
        return String::new();
    }
    let from = context_from(entry, from).unwrap_or_default();
    let threads: Vec<String> = entry
        .iter()
        .enumerate()
        .flat_map(|(i, f)| {
            let name = match from.get(i).and_then(Option::as_ref) {
                Some(loc) => format!("`{f}` from {loc}"),
                None => format!("`{f}`"),
            };
            std::iter::repeat_n(name, copies as usize)
        })
        .collect();
    let at = if from.iter().any(Option::is_some) {
        "threads of"
    } else {
        "threads at the entry of"
    };
    format!(
        "the context of {at} {} over a symbolic initial state",
        threads.join(", ")
    )
}

/// The context of `--entry`, `--copies` and `--from` on `driver`'s program; `None`
/// without entries.
pub fn context(
    driver: &Driver,
    entry: &[String],
    copies: u32,
    from: &[String],
) -> Result<Option<Context>> {
    if entry.is_empty() {
        return Ok(None);
    }
    let from = context_from(entry, from)?;
    driver.context(entry, copies, &from).map(Some)
}

/// The start line of each `--entry` function: `--from`'s items in order (`entry` or
/// `-` for the function's entry; missing items too).
pub fn context_from(entries: &[String], from: &[String]) -> Result<Vec<Option<Location>>> {
    if from.len() > entries.len() {
        anyhow::bail!(
            "--from has {} start points for {} --entry function(s): one per function",
            from.len(),
            entries.len()
        );
    }
    from.iter()
        .map(|item| match item.trim() {
            "" | "-" | "entry" => Ok(None),
            text => text
                .parse::<Location>()
                .map(Some)
                .map_err(|e| anyhow::anyhow!("--from {e}")),
        })
        .collect()
}
