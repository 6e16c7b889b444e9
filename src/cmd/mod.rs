//! One module per subcommand; each has an `Args` (clap) and a `run(Args) -> Result<ExitCode>`.

pub mod bench;
pub mod bench_entries;
pub mod bench_incremental;
pub mod common;
pub mod context_args;
pub mod context_upgrade;
pub mod dot;
pub mod execution_graph;
pub mod exit;
pub mod explain;
pub mod facts;
pub mod hunt;
pub mod impact;
pub mod ir;
pub mod predict;
pub mod progress;
pub mod rules;
pub mod run;
pub mod slice;
pub mod svcomp;
pub mod user_rules;
pub mod verify;
pub mod warnings;
pub mod witness_text;
