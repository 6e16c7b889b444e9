//! agx explorer: the reference interpreter and the symbolic search.
//!
//! - [`concrete`]: the reference interpreter. It fixes the semantics of the IR (values,
//!   memory, threads, scheduling, inputs) that every symbolic engine must agree with, and
//!   replays witnesses.

pub mod concrete;
pub mod symbolic;
pub mod guided;
