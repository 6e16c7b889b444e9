//! One module per subcommand; each has an `Args` (clap) and a `run(Args) -> Result<ExitCode>`.

pub mod bench;
pub mod common;
pub mod ir;
pub mod run;
pub mod svcomp;
pub mod facts;
pub mod impact;
pub mod rules;
pub mod slice;
pub mod verify;
