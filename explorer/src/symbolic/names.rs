//! Stable names for threads and memory objects, shared by all runs of one search.
//!
//! Runtime thread ids (creation order, as the interpreter numbers them) can differ
//! between schedules; summaries and control-location keys must not. A thread is named by
//! its creator and the creator's creation count ([`ThreadName`]); a memory object by its
//! owner and role ([`ObjName`]). Both are interned into small integers.

use analysis::ir::{ObjId, StmtId};
use indexmap::IndexSet;

/// An interned [`ThreadName`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ThreadKey(pub u32);

/// An interned [`ObjName`]: one instance of a memory object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjInst(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ThreadName {
    Main,
    /// The `seq`-th thread created by `parent`.
    Child {
        parent: ThreadKey,
        seq: u32,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ObjName {
    /// A global or string literal (one instance).
    Static(ObjId),
    /// A `__thread` global's instance in one thread.
    ThreadLocal { thread: ThreadKey, obj: ObjId },
    /// A stack slot of the activation at `depth` of a thread's call stack.
    Slot {
        thread: ThreadKey,
        depth: u32,
        obj: ObjId,
    },
    /// The `seq`-th object a thread allocated at allocation site `site`.
    Heap {
        thread: ThreadKey,
        site: StmtId,
        seq: u32,
    },
    /// `main`'s `argv` array (1) and the string it points to (0).
    Argv(u8),
    /// Stands for every stack slot that died while a pointer to it was still held.
    Dead,
}

#[derive(Default)]
pub struct Names {
    threads: IndexSet<ThreadName>,
    objects: IndexSet<ObjName>,
}

impl Names {
    pub fn thread(&mut self, name: ThreadName) -> ThreadKey {
        ThreadKey(self.threads.insert_full(name).0 as u32)
    }

    /// The key of a thread name already interned.
    pub fn lookup_thread(&self, name: ThreadName) -> Option<ThreadKey> {
        self.threads
            .get_index_of(&name)
            .map(|i| ThreadKey(i as u32))
    }

    pub fn object(&mut self, name: ObjName) -> ObjInst {
        ObjInst(self.objects.insert_full(name).0 as u32)
    }
}
