//! The driver layer between the CLI's arguments and the library crates: what several
//! commands do the same way with a program before they print anything.
//!
//! - [`location`]: the one target type, `FILE:LINE`, and its resolution to statements.

pub mod location;

pub use location::{Lines, Location};
