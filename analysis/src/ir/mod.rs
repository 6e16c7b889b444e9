//! The concurrent IR: the one language every later stage of agx speaks.
//!
//! A [`Program`] is a set of memory [`Object`]s (globals, string literals and the stack
//! slots of address-taken or aggregate locals) and [`Function`]s made of basic [`Block`]s.
//!
//! # Normal form
//! Every [`Stmt`] does at most one shared-memory access ([`StmtKind::Load`] /
//! [`StmtKind::Store`]) or one synchronization ([`StmtKind::Sync`]); all other statements
//! touch only registers. Branch conditions ([`TermKind::Branch`]) read a register or a
//! constant, never memory. So one statement is one event of the papers, and the
//! alpha / beta / gamma classification is [`StmtKind::event_class`].
//!
//! # Memory
//! Memory is a set of objects. A pointer is `(object, byte offset)`; a *cell* is the scalar
//! stored at one byte offset of an object (the unit of field sensitivity). Sizes and offsets
//! follow the C layout of the chosen [`DataModel`], so `sizeof`, `offsetof` and pointer
//! arithmetic mean what they mean in C. Reading a cell with a different width than it was
//! written with (type punning) is reported by the engines, not silently reinterpreted.
//!
//! Registers are the locals whose address is never taken; they are thread-local by
//! construction. Scalars are integers of a fixed width ([`Scalar::Int`]) or pointers
//! ([`Scalar::Ptr`], whose width the data model gives).

pub(crate) mod display;
pub mod float;
pub mod printf;
mod program;
mod stmt;
mod values;

pub use display::{render_program, stmt_text};
pub use program::*;
pub use stmt::*;
pub use values::*;

use serde::Serialize;

/// Integer widths of C types: ILP32 (the default, as SV-COMP's 32-bit tasks) or LP64.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum DataModel {
    #[default]
    Ilp32,
    Lp64,
}

impl DataModel {
    /// Width of `long` and of pointers, in bits.
    pub fn pointer_bits(self) -> u8 {
        match self {
            DataModel::Ilp32 => 32,
            DataModel::Lp64 => 64,
        }
    }
    pub fn pointer_bytes(self) -> u64 {
        u64::from(self.pointer_bits() / 8)
    }
}

impl std::str::FromStr for DataModel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "ilp32" => Ok(DataModel::Ilp32),
            "lp64" => Ok(DataModel::Lp64),
            other => Err(format!(
                "unknown data model `{other}` (expected ilp32 or lp64)"
            )),
        }
    }
}

/// A dense `u32` id with a display prefix (`f3`, `bb1`, `s42`); also used for the ids of
/// the facts.
macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, ::serde::Serialize, ::serde::Deserialize,
        )]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}
pub(crate) use id_type;

id_type!(
    /// A function of the program (defined or external).
    FuncId,
    "f"
);
id_type!(
    /// A basic block within one function.
    BlockId,
    "bb"
);
id_type!(
    /// A register (non-address-taken scalar local or temporary) within one function.
    RegId,
    "r"
);
id_type!(
    /// A static memory object: global, string literal, or stack slot of a function.
    ObjId,
    "@"
);
id_type!(
    /// A statement or terminator, numbered across the whole program in program order.
    StmtId,
    "s"
);
id_type!(
    /// A source file named by the line markers of the preprocessed text.
    FileId,
    "file"
);

/// A position in an original (not preprocessed) source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Span {
    pub file: FileId,
    pub line: u32,
    pub col: u32,
}
