//! Runtime memory: objects made of cells, with the access checks that find memory-safety
//! violations.
//!
//! A runtime object has a size in bytes and a sparse map from byte offset to [`Cell`]
//! (one scalar of a width). Cells never overlap: a store removes every cell it overlaps
//! before writing. A load of a byte range with no cell yields the object's default
//! ([`Loaded::Default`]: zero for static storage and `calloc`, the uninitialized-value
//! policy otherwise); a load that overlaps a cell without matching it exactly is type
//! punning, which the interpreter does not model.
//!
//! Object table indices are reused: a dead stack slot's index goes back to the stack pool,
//! a freed heap block's to the heap pool, each time with a new generation, so the category
//! of a stale pointer (stack or heap) is always known and its use is reported correctly.

use super::outcome::ViolationKind;
use super::value::{ObjRef, Value};
use crate::context::CellOwner;
use analysis::ir::{ObjId, Program, Scalar, StmtId};
use std::collections::BTreeMap;

/// Where a runtime object comes from (for messages, and for which pool reuses it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// A global or string literal.
    Static(ObjId),
    /// The instance of a `__thread` object for one thread.
    ThreadLocal { obj: ObjId, thread: u32 },
    /// A stack slot of one activation.
    Slot(ObjId),
    /// A block of `malloc`/`calloc` allocated at a statement.
    Heap { site: StmtId },
    /// The `argv` array (or its one string) given to `main`.
    Argv,
}

impl Origin {
    fn is_heap(self) -> bool {
        matches!(self, Origin::Heap { .. })
    }
    fn is_slot(self) -> bool {
        matches!(self, Origin::Slot(_))
    }
}

/// One scalar stored in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cell {
    pub value: Value,
    pub bytes: u8,
}

#[derive(Debug)]
struct RtObject {
    origin: Origin,
    size: u64,
    gen: u32,
    live: bool,
    /// Unwritten bytes read as zero (static storage, `calloc`) rather than uninitialized.
    zero_default: bool,
    read_only: bool,
    /// An object of a context's initial state: unwritten cells hold initial values.
    initial: Option<CellOwner>,
    cells: BTreeMap<u64, Cell>,
}

/// The result of a successful load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Loaded {
    Value(Value),
    /// No cell: the caller applies the uninitialized-value policy (and may store the
    /// chosen value so later reads agree).
    Uninit,
}

/// Why an access failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum MemFault {
    Violation(ViolationKind, String),
    Unsupported(String),
}

/// Which kind of access is being checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    Read,
    Write,
    /// The address of a mutex, condition variable or thread handle: must point into a live
    /// object, but its contents are not touched.
    Sync,
}

pub(crate) struct Memory<'p> {
    prog: &'p Program,
    objects: Vec<RtObject>,
    free_slots: Vec<u32>,
    free_heap: Vec<u32>,
    /// Bytes of live heap blocks (for the memory budget).
    pub heap_bytes: u64,
}

type MemResult<T> = Result<T, MemFault>;

impl<'p> Memory<'p> {
    pub fn new(prog: &'p Program) -> Self {
        Memory {
            prog,
            objects: Vec::new(),
            free_slots: Vec::new(),
            free_heap: Vec::new(),
            heap_bytes: 0,
        }
    }

    /// A new object (static storage and `argv`: never reused).
    /// How many objects were ever made (a freed one's index is reused).
    pub fn object_count(&self) -> usize {
        self.objects.len()
    }

    pub fn new_static(&mut self, origin: Origin, size: u64, read_only: bool) -> ObjRef {
        self.create(origin, size, true, read_only)
    }

    /// A stack slot of a new activation; its bytes are uninitialized.
    pub fn new_slot(&mut self, obj: ObjId) -> ObjRef {
        let size = self.prog.object(obj).size;
        match self.free_slots.pop() {
            Some(index) => self.reuse(index, Origin::Slot(obj), size, false),
            None => self.create(Origin::Slot(obj), size, false, false),
        }
    }

    /// A heap block of `size` bytes; `calloc` blocks (`zeroed`) read as zero.
    pub fn alloc(&mut self, site: StmtId, size: u64, zeroed: bool) -> ObjRef {
        let origin = Origin::Heap { site };
        self.heap_bytes = self.heap_bytes.saturating_add(size);
        match self.free_heap.pop() {
            Some(index) => self.reuse(index, origin, size, zeroed),
            None => self.create(origin, size, zeroed, false),
        }
    }

    fn create(&mut self, origin: Origin, size: u64, zero_default: bool, read_only: bool) -> ObjRef {
        let index = self.objects.len() as u32;
        self.objects.push(RtObject {
            origin,
            size,
            gen: 0,
            live: true,
            zero_default,
            read_only,
            initial: None,
            cells: BTreeMap::new(),
        });
        ObjRef { index, gen: 0 }
    }

    fn reuse(&mut self, index: u32, origin: Origin, size: u64, zero_default: bool) -> ObjRef {
        let o = &mut self.objects[index as usize];
        o.gen = o.gen.wrapping_add(1);
        o.origin = origin;
        o.size = size;
        o.live = true;
        o.zero_default = zero_default;
        o.read_only = false;
        o.initial = None;
        ObjRef { index, gen: o.gen }
    }

    /// Makes `obj` an object of a context's initial state owned by `owner`: its cells
    /// (an initializer's too) are forgotten, and read as initial values.
    pub fn make_initial(&mut self, obj: ObjRef, owner: CellOwner) {
        let o = &mut self.objects[obj.index as usize];
        o.cells.clear();
        o.zero_default = false;
        o.initial = Some(owner);
    }

    /// The owner of `obj` when it is an object of the initial state.
    pub fn initial_owner(&self, obj: ObjRef) -> Option<CellOwner> {
        self.objects[obj.index as usize].initial
    }

    /// Ends the lifetime of a stack slot or thread-local object.
    pub fn kill(&mut self, obj: ObjRef) {
        let o = &mut self.objects[obj.index as usize];
        if o.gen != obj.gen || !o.live {
            return;
        }
        o.live = false;
        o.cells.clear();
        if o.origin.is_slot() {
            self.free_slots.push(obj.index);
        }
    }

    /// `free(ptr)`.
    pub fn free(&mut self, ptr: Value) -> MemResult<()> {
        let (obj, offset) = match ptr {
            Value::Int(0) => return Ok(()),
            Value::Int(v) => {
                return Err(invalid_free(format!(
                    "free of the non-pointer value {v:#x}"
                )))
            }
            Value::Func(f) => {
                let name = &self.prog.function(f).name;
                return Err(invalid_free(format!("free of function pointer `{name}`")));
            }
            Value::Ptr { obj, offset } => (obj, offset),
        };
        let o = &self.objects[obj.index as usize];
        let alive = o.gen == obj.gen && o.live;
        if !alive && o.origin.is_heap() {
            let what = self.describe_stale(obj);
            let message = format!("double free of {what}");
            return Err(MemFault::Violation(ViolationKind::DoubleFree, message));
        }
        if !o.origin.is_heap() || !alive {
            let what = self.describe_stale(obj);
            return Err(invalid_free(format!(
                "free of {what}, which is not heap memory"
            )));
        }
        if offset != 0 {
            let what = self.describe(obj);
            return Err(invalid_free(format!(
                "free of a pointer to offset {offset} of {what} (not its start)"
            )));
        }
        let o = &mut self.objects[obj.index as usize];
        o.live = false;
        o.cells.clear();
        self.heap_bytes = self.heap_bytes.saturating_sub(o.size);
        self.free_heap.push(obj.index);
        Ok(())
    }

    /// Checks that `ptr` may be accessed for `bytes` bytes; returns the object and offset.
    pub fn check(&self, ptr: Value, bytes: u64, access: Access) -> MemResult<(ObjRef, u64)> {
        let (obj, offset) = match ptr {
            Value::Ptr { obj, offset } => (obj, offset),
            Value::Int(0) => {
                let message = "null pointer dereference".to_string();
                return Err(MemFault::Violation(ViolationKind::NullDereference, message));
            }
            Value::Int(v) => {
                let message = format!("dereference of the non-pointer value {v:#x}");
                return Err(MemFault::Violation(
                    ViolationKind::InvalidDereference,
                    message,
                ));
            }
            Value::Func(f) => {
                let name = &self.prog.function(f).name;
                let message = format!("dereference of function pointer `{name}` as data");
                return Err(MemFault::Violation(
                    ViolationKind::InvalidDereference,
                    message,
                ));
            }
        };
        let o = &self.objects[obj.index as usize];
        if o.gen != obj.gen || !o.live {
            return Err(self.stale_access(obj));
        }
        let in_bounds = offset >= 0
            && (offset as u64)
                .checked_add(bytes)
                .is_some_and(|end| end <= o.size);
        if !in_bounds {
            let what = self.describe(obj);
            let message = format!(
                "out-of-bounds access of {bytes} byte(s) at offset {offset} of {what} ({} bytes)",
                o.size
            );
            return Err(MemFault::Violation(ViolationKind::OutOfBounds, message));
        }
        if access == Access::Write && o.read_only {
            let what = self.describe(obj);
            let message = format!("write to read-only {what}");
            return Err(MemFault::Violation(ViolationKind::ReadOnlyWrite, message));
        }
        Ok((obj, offset as u64))
    }

    fn stale_access(&self, obj: ObjRef) -> MemFault {
        let o = &self.objects[obj.index as usize];
        let what = self.describe_stale(obj);
        if o.origin.is_heap() {
            MemFault::Violation(
                ViolationKind::UseAfterFree,
                format!("use after free of {what}"),
            )
        } else {
            let message = format!("use of {what} after its lifetime ended");
            MemFault::Violation(ViolationKind::DeadObject, message)
        }
    }

    /// Reads a scalar of type `ty` (already checked with [`Memory::check`]).
    pub fn load_checked(&self, obj: ObjRef, offset: u64, ty: Scalar) -> MemResult<Loaded> {
        let bytes = ty.bytes(self.prog.data_model);
        let o = &self.objects[obj.index as usize];
        let mut found = None;
        let low = offset.saturating_sub(7);
        for (&at, cell) in o.cells.range(low..offset + bytes) {
            if at + u64::from(cell.bytes) <= offset {
                continue;
            }
            if at == offset && u64::from(cell.bytes) == bytes {
                found = Some(cell.value);
            } else {
                return Err(self.punning(obj, offset, ty, at, cell));
            }
        }
        match found {
            Some(Value::Int(v)) => Ok(Loaded::Value(Value::Int(v))),
            Some(pointer) if ty == Scalar::Ptr => Ok(Loaded::Value(pointer)),
            Some(_) => Err(MemFault::Unsupported(format!(
                "type punning: a pointer stored at offset {offset} of {} is read as {ty}",
                self.describe(obj)
            ))),
            None if o.zero_default => Ok(Loaded::Value(Value::ZERO)),
            None => Ok(Loaded::Uninit),
        }
    }

    fn punning(&self, obj: ObjRef, offset: u64, ty: Scalar, at: u64, cell: &Cell) -> MemFault {
        MemFault::Unsupported(format!(
            "type punning: a {ty} read at offset {offset} of {} overlaps a {}-byte cell \
             written at offset {at}",
            self.describe(obj),
            cell.bytes
        ))
    }

    /// Writes a scalar of type `ty` (already checked with [`Memory::check`]).
    pub fn store_checked(&mut self, obj: ObjRef, offset: u64, ty: Scalar, value: Value) {
        let bits = ty.bits(self.prog.data_model);
        let cell = Cell {
            value: value.truncated(bits),
            bytes: bits / 8,
        };
        let cells = &mut self.objects[obj.index as usize].cells;
        if let Some(existing) = cells.get_mut(&offset) {
            if existing.bytes == cell.bytes {
                *existing = cell;
                return;
            }
        }
        let end = offset + u64::from(cell.bytes);
        let overlapping: Vec<u64> = cells
            .range(offset.saturating_sub(7)..end)
            .filter(|(&at, c)| at + u64::from(c.bytes) > offset)
            .map(|(&at, _)| at)
            .collect();
        for at in overlapping {
            cells.remove(&at);
        }
        cells.insert(offset, cell);
    }

    /// Writes a static initializer cell (no checks: the layout comes from the front end).
    pub fn init_cell(&mut self, obj: ObjRef, offset: u64, ty: Scalar, value: Value) {
        self.store_checked(obj, offset, ty, value);
    }

    /// A readable name of a live object: "`x`", "local `buf`", "heap block allocated at
    /// f.c:12".
    pub fn describe(&self, obj: ObjRef) -> String {
        let o = &self.objects[obj.index as usize];
        match o.origin {
            Origin::Static(id) => format!("`{}`", self.prog.object(id).name),
            Origin::ThreadLocal { obj, thread } => {
                format!(
                    "thread-local `{}` of thread {thread}",
                    self.prog.object(obj).name
                )
            }
            Origin::Slot(id) => format!("local `{}`", self.prog.object(id).name),
            Origin::Heap { site } => {
                let span = self.prog.stmt(site).span();
                format!("the heap block allocated at {}", self.prog.location(span))
            }
            Origin::Argv => "argv".to_string(),
        }
    }

    /// Like [`Memory::describe`] for a pointer whose object may have been reused since.
    fn describe_stale(&self, obj: ObjRef) -> String {
        let o = &self.objects[obj.index as usize];
        if o.gen == obj.gen {
            self.describe(obj)
        } else if o.origin.is_heap() {
            "a freed heap block".to_string()
        } else {
            "a local of a returned function".to_string()
        }
    }

    /// A readable address: "`m`", "`locks`+8".
    pub fn describe_addr(&self, obj: ObjRef, offset: u64) -> String {
        let base = self.describe(obj);
        if offset == 0 {
            base
        } else {
            format!("{base}+{offset}")
        }
    }
}

fn invalid_free(message: String) -> MemFault {
    MemFault::Violation(ViolationKind::InvalidFree, message)
}
