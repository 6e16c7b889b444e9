//! agx analysis: the front end (C to IR) and, over the IR, the facts the rule sets read.
//!
//! Data flows one way: [`frontend`] parses C, [`lower`] turns the AST into the
//! [`ir::Program`], and later stages only ever see the IR.
//!
//! Architecture invariant: this crate knows nothing of the rules or the explorer.

pub mod diff;
pub mod facts;
pub mod frontend;
pub mod ir;
pub mod lower;
pub mod sarif;

pub use frontend::{FrontendError, FrontendOptions};
pub use ir::Program;

/// Reads a C file (`.c` through `gcc -E`, or `.i`) and lowers it to IR.
pub fn load_program(
    path: &std::path::Path,
    opts: &FrontendOptions,
) -> Result<Program, FrontendError> {
    let unit = frontend::parse_file(path, opts)?;
    lower::lower(&unit, opts.data_model)
}
