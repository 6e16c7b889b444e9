//! agx explorer: the reference interpreter and the searches over inputs and schedules.
//!
//! - [`concrete`]: the reference interpreter. It fixes the semantics of the IR (values,
//!   memory, threads, scheduling, inputs) that every symbolic engine must agree with, and
//!   replays witnesses.
//! - [`symbolic`]: exhaustive symbolic execution (`agx verify`): baseline, DPOR, and DPOR
//!   with assertion-guided pruning.
//! - [`guided`]: abstraction-guided symbolic execution (`agx hunt`): abstract traces,
//!   ranked greedy search, refinement, parallel trials.

pub mod concrete;
pub mod context;
pub mod guided;
pub mod predict;
pub mod symbolic;

#[cfg(test)]
mod test_support;
