//! Lowering: the lang-c AST to the IR's normal form.

use crate::frontend::{FrontendError, ParsedUnit};
use crate::ir::{DataModel, Program};

/// Lowers a parsed translation unit to IR.
pub fn lower(unit: &ParsedUnit, data_model: DataModel) -> Result<Program, FrontendError> {
    let _ = (unit, data_model);
    Err(FrontendError::Unsupported {
        at: unit.loc(0),
        construct: "lowering is being written".into(),
    })
}
