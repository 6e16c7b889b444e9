//! Where threads stand, over the symbolic engine's state types.
//!
//! The guided search drives steps with the engine's one step function
//! ([`Engine::exec_next`], which reports the statement each call ran) and keeps one
//! [`crate::symbolic::engine::PathCond`] per search state; this module adds the positions
//! it ranks and matches abstract locations against.

use crate::symbolic::engine::Engine;
use crate::symbolic::state::{State, Status, Tid};
use analysis::ir::StmtId;

/// The statement a thread stands at between steps (its pending visible event), if any.
pub fn pending_stmt(e: &Engine<'_>, st: &State, t: Tid) -> Option<StmtId> {
    let th = &st.threads[t];
    match th.status {
        Status::AtEvent => {
            let f = th.frames.last()?;
            let block = &e.setup.prog.function(f.func).blocks[f.block as usize];
            Some(
                block
                    .stmts
                    .get(f.index as usize)
                    .map_or(block.term.id, |s| s.id),
            )
        }
        Status::Waiting { stmt, .. } | Status::Reacquire { stmt, .. } => Some(stmt),
        Status::Ending { stmt, .. } => Some(stmt),
        _ => None,
    }
}

/// The first statement of the block a thread's top frame is in (where a branch went).
pub fn block_start(e: &Engine<'_>, st: &State, t: Tid) -> Option<StmtId> {
    let f = st.threads[t].frames.last()?;
    let block = &e.setup.prog.function(f.func).blocks[f.block as usize];
    Some(block.stmts.first().map_or(block.term.id, |s| s.id))
}
