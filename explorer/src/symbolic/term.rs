//! Hash-consed symbolic terms over bit-vectors and booleans.
//!
//! Every term lives in a [`TermPool`] and is named by a [`TermId`]; structurally equal
//! terms get the same id, so equality of ids is equality of terms, and caches (solver
//! translation, query results, substitution) key on ids. Constructors fold constants and
//! apply a few sound identities so that concrete branches never reach the solver.
//!
//! Semantics are those of SMT-LIB `QF_BV` (which is also C's for the operations the
//! engine emits: wrap-around arithmetic, truncating signed division, `srem` taking the
//! sign of the dividend, shifts by at least the width as SMT-LIB defines them). Division
//! by zero is never folded: the engine guards it with a side condition first.

use super::fp::FpOp;
use super::names::{ObjInst, ThreadKey};
use analysis::ir::RegId;

/// A term in a [`TermPool`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TermId(u32);

impl TermId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The sort of a term.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sort {
    Bool,
    /// A bit-vector of the given width (1..=64).
    Bv(u8),
}

/// A free variable.
///
/// `Input` variables are the inputs of the current run; the others name parts of a
/// program state and appear only in weakest preconditions and summaries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Var {
    /// The `index`-th input (nondet value) read by a thread in the current run.
    Input { thread: ThreadKey, index: u32 },
    /// In a summary: the input a thread reads `index` reads after the summarized node.
    Fut { thread: ThreadKey, index: u32 },
    /// The value of a register of the frame at `depth` of a thread's call stack (for a
    /// pointer register: its offset).
    Reg {
        thread: ThreadKey,
        depth: u32,
        reg: RegId,
    },
    /// The value of the cell at `offset` of a memory object (for a pointer: its offset).
    Cell { obj: ObjInst, offset: u64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum CmpOp {
    Eq,
    Ult,
    Ule,
    Slt,
    Sle,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum BvOp {
    Add,
    Sub,
    Mul,
    UDiv,
    SDiv,
    URem,
    SRem,
    Shl,
    LShr,
    AShr,
    And,
    Or,
    Xor,
}

/// The structure of a term.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    BoolConst(bool),
    BvConst {
        width: u8,
        value: u64,
    },
    Var {
        var: Var,
        width: u8,
    },
    Not(TermId),
    And(TermId, TermId),
    Or(TermId, TermId),
    Ite(TermId, TermId, TermId),
    Cmp(CmpOp, TermId, TermId),
    Bin(BvOp, TermId, TermId),
    Neg(TermId),
    BNot(TermId),
    /// Zero extension to `width` bits.
    ZExt(TermId, u8),
    /// Sign extension to `width` bits.
    SExt(TermId, u8),
    /// The low `width` bits.
    Trunc(TermId, u8),
    /// A floating-point operation on float bit patterns (see `fp`); a unary operation has
    /// its operand twice.
    Fp(FpOp, TermId, TermId),
}
pub use super::fold::{fold_bin, mask, signed};

/// The arena of terms.
#[derive(Default)]
pub struct TermPool {
    nodes: Vec<Node>,
    sorts: Vec<Sort>,
    sizes: Vec<u32>,
    /// A 64-bit Bloom filter of the variables each term contains.
    blooms: Vec<u64>,
    /// Whether each term mentions an `Input` or `Fut` variable (most summaries of
    /// programs without inputs mention none, and renaming inputs can skip them).
    has_inputs: Vec<bool>,
    index: std::collections::HashMap<Node, TermId, MixedBuild>,
    /// [`TermPool::vars`] of the terms asked for by [`TermPool::vars_cached`]: terms are
    /// immutable and never freed, so a term's variables never change (a summary is
    /// instantiated at every node whose key it names; walking its DAG each time was a
    /// fifth of reorder_5's search).
    vars_memo: rustc_hash::FxHashMap<TermId, std::rc::Rc<[(Var, u8)]>>,
    /// [`super::model::topological`] of the terms asked for by
    /// [`TermPool::topological_cached`] (a summary is evaluated at every node whose key
    /// it names; walking, hashing and sorting its DAG each time was most of the cost).
    topo_memo: rustc_hash::FxHashMap<TermId, std::rc::Rc<[TermId]>>,
}

/// FxHash with a final avalanche (murmur3's `fmix64`): term nodes are tuples of small
/// sequential ids, whose plain Fx hashes cluster and make the interning table probe long.
#[derive(Clone, Copy, Default)]
pub struct MixedBuild;

impl std::hash::BuildHasher for MixedBuild {
    type Hasher = Mixed;
    fn build_hasher(&self) -> Mixed {
        Mixed(rustc_hash::FxHasher::default())
    }
}

pub struct Mixed(rustc_hash::FxHasher);

impl std::hash::Hasher for Mixed {
    fn write(&mut self, bytes: &[u8]) {
        self.0.write(bytes);
    }
    fn write_u8(&mut self, i: u8) {
        self.0.write_u8(i);
    }
    fn write_u32(&mut self, i: u32) {
        self.0.write_u32(i);
    }
    fn write_u64(&mut self, i: u64) {
        self.0.write_u64(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.0.write_usize(i);
    }
    fn finish(&self) -> u64 {
        let mut h = self.0.finish();
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

impl TermPool {
    pub fn new() -> TermPool {
        TermPool::default()
    }

    pub fn node(&self, t: TermId) -> &Node {
        &self.nodes[t.index()]
    }

    pub fn sort(&self, t: TermId) -> Sort {
        self.sorts[t.index()]
    }

    /// Width of a bit-vector term (1 for booleans).
    pub fn width(&self, t: TermId) -> u8 {
        match self.sort(t) {
            Sort::Bool => 1,
            Sort::Bv(w) => w,
        }
    }

    /// The Bloom filter of the variables in `t`: if `bloom(t) & var_bloom(v) == 0`,
    /// `v` does not occur in `t`.
    pub fn bloom(&self, t: TermId) -> u64 {
        self.blooms[t.index()]
    }

    /// Number of distinct subterms (the size of the term as a DAG), but stopping once it
    /// exceeds `cap` (then some number above `cap` is returned).
    pub fn dag_size(&self, t: TermId, cap: u32) -> u32 {
        if self.size(t) <= cap {
            return self.size(t);
        }
        // Sized for the cap up front: growing the set by rehashing was a tenth of the
        // search's time on long runs (the walk usually reaches the cap).
        let mut seen = rustc_hash::FxHashSet::with_capacity_and_hasher(
            (cap as usize).saturating_add(1),
            Default::default(),
        );
        let mut stack = vec![t];
        while let Some(x) = stack.pop() {
            if seen.insert(x) {
                if seen.len() as u32 > cap {
                    break;
                }
                stack.extend_from_slice(&self.children(self.node(x)));
            }
        }
        seen.len() as u32
    }

    /// Number of nodes of the term as a tree, saturating: a cheap size measure.
    pub fn size(&self, t: TermId) -> u32 {
        self.sizes[t.index()]
    }

    fn intern(&mut self, node: Node, sort: Sort) -> TermId {
        if let Some(&id) = self.index.get(&node) {
            return id;
        }
        let kids = kids_of(&node);
        let size = 1u32.saturating_add(
            kids.iter()
                .fold(0u32, |acc, c| acc.saturating_add(self.sizes[c.index()])),
        );
        let bloom = match &node {
            Node::Var { var, .. } => var_bloom(*var),
            _ => kids.iter().fold(0, |acc, c| acc | self.blooms[c.index()]),
        };
        let id = TermId(self.nodes.len() as u32);
        self.nodes.push(node.clone());
        self.sorts.push(sort);
        self.sizes.push(size);
        self.blooms.push(bloom);
        self.has_inputs.push(match &node {
            Node::Var { var, .. } => matches!(var, Var::Input { .. } | Var::Fut { .. }),
            _ => kids.iter().any(|c| self.has_inputs[c.index()]),
        });
        self.index.insert(node, id);
        id
    }

    /// The direct subterms of a node (without allocating: this runs for every node
    /// of every term walk).
    pub fn children(&self, node: &Node) -> Kids {
        kids_of(node)
    }

    // ---- constants and variables ----

    pub fn bool_const(&mut self, b: bool) -> TermId {
        self.intern(Node::BoolConst(b), Sort::Bool)
    }

    pub fn tru(&mut self) -> TermId {
        self.bool_const(true)
    }

    pub fn fals(&mut self) -> TermId {
        self.bool_const(false)
    }

    pub fn bv_const(&mut self, value: u64, width: u8) -> TermId {
        debug_assert!((1..=64).contains(&width));
        self.intern(
            Node::BvConst {
                width,
                value: mask(value, width),
            },
            Sort::Bv(width),
        )
    }

    pub fn var(&mut self, var: Var, width: u8) -> TermId {
        self.intern(Node::Var { var, width }, Sort::Bv(width))
    }

    pub fn as_bool(&self, t: TermId) -> Option<bool> {
        match self.node(t) {
            Node::BoolConst(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_bv(&self, t: TermId) -> Option<u64> {
        match self.node(t) {
            Node::BvConst { value, .. } => Some(*value),
            _ => None,
        }
    }

    pub fn is_true(&self, t: TermId) -> bool {
        self.as_bool(t) == Some(true)
    }

    pub fn is_false(&self, t: TermId) -> bool {
        self.as_bool(t) == Some(false)
    }

    // ---- boolean connectives ----

    pub fn not(&mut self, a: TermId) -> TermId {
        match *self.node(a) {
            Node::BoolConst(b) => self.bool_const(!b),
            Node::Not(x) => x,
            _ => self.intern(Node::Not(a), Sort::Bool),
        }
    }

    pub fn and(&mut self, a: TermId, b: TermId) -> TermId {
        match (self.as_bool(a), self.as_bool(b)) {
            (Some(false), _) | (_, Some(false)) => return self.fals(),
            (Some(true), _) => return b,
            (_, Some(true)) => return a,
            _ => {}
        }
        if a == b {
            return a;
        }
        if self.is_negation_of(a, b) {
            return self.fals();
        }
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        self.intern(Node::And(a, b), Sort::Bool)
    }

    pub fn or(&mut self, a: TermId, b: TermId) -> TermId {
        match (self.as_bool(a), self.as_bool(b)) {
            (Some(true), _) | (_, Some(true)) => return self.tru(),
            (Some(false), _) => return b,
            (_, Some(false)) => return a,
            _ => {}
        }
        if a == b {
            return a;
        }
        if self.is_negation_of(a, b) {
            return self.tru();
        }
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        self.intern(Node::Or(a, b), Sort::Bool)
    }

    fn is_negation_of(&self, a: TermId, b: TermId) -> bool {
        matches!(self.node(a), Node::Not(x) if *x == b)
            || matches!(self.node(b), Node::Not(x) if *x == a)
    }

    /// `if c then a else b`, for two terms of the same sort.
    pub fn ite(&mut self, c: TermId, a: TermId, b: TermId) -> TermId {
        debug_assert_eq!(self.sort(a), self.sort(b));
        if let Some(cv) = self.as_bool(c) {
            return if cv { a } else { b };
        }
        if a == b {
            return a;
        }
        if let Node::Not(x) = *self.node(c) {
            return self.ite(x, b, a);
        }
        let sort = self.sort(a);
        if sort == Sort::Bool {
            // ite(c, true, false) = c and friends.
            match (self.as_bool(a), self.as_bool(b)) {
                (Some(true), Some(false)) => return c,
                (Some(false), Some(true)) => return self.not(c),
                (Some(true), _) => return self.or(c, b),
                (Some(false), _) => {
                    let nc = self.not(c);
                    return self.and(nc, b);
                }
                (_, Some(true)) => {
                    let nc = self.not(c);
                    return self.or(nc, a);
                }
                (_, Some(false)) => return self.and(c, a),
                _ => {}
            }
        }
        self.intern(Node::Ite(c, a, b), sort)
    }

    // ---- comparisons ----

    pub fn cmp(&mut self, op: CmpOp, a: TermId, b: TermId) -> TermId {
        debug_assert_eq!(self.sort(a), self.sort(b));
        let w = self.width(a);
        if let (Some(x), Some(y)) = (self.as_bv(a), self.as_bv(b)) {
            let r = match op {
                CmpOp::Eq => x == y,
                CmpOp::Ult => x < y,
                CmpOp::Ule => x <= y,
                CmpOp::Slt => signed(x, w) < signed(y, w),
                CmpOp::Sle => signed(x, w) <= signed(y, w),
            };
            return self.bool_const(r);
        }
        if a == b {
            let r = matches!(op, CmpOp::Eq | CmpOp::Ule | CmpOp::Sle);
            return self.bool_const(r);
        }
        if op == CmpOp::Eq {
            if let Some(t) = self.fold_eq_ite(a, b) {
                return t;
            }
            // Canonical operand order for a commutative comparison.
            let (a, b) = if a <= b { (a, b) } else { (b, a) };
            return self.intern(Node::Cmp(op, a, b), Sort::Bool);
        }
        self.intern(Node::Cmp(op, a, b), Sort::Bool)
    }

    /// `ite(c, k1, k2) == k3` with constants folds to `c`, `!c`, `true` or `false`;
    /// this is how C's `int` truth values (`x < y` as 0/1) meet branch tests.
    fn fold_eq_ite(&mut self, a: TermId, b: TermId) -> Option<TermId> {
        let (ite, k) = match (self.node(a), self.as_bv(b), self.node(b), self.as_bv(a)) {
            (Node::Ite(..), Some(k), _, _) => (a, k),
            (_, _, Node::Ite(..), Some(k)) => (b, k),
            _ => return None,
        };
        let Node::Ite(c, x, y) = *self.node(ite) else {
            return None;
        };
        let (kx, ky) = (self.as_bv(x)?, self.as_bv(y)?);
        Some(match (kx == k, ky == k) {
            (true, true) => self.tru(),
            (true, false) => c,
            (false, true) => self.not(c),
            (false, false) => self.fals(),
        })
    }

    pub fn eq(&mut self, a: TermId, b: TermId) -> TermId {
        self.cmp(CmpOp::Eq, a, b)
    }

    pub fn ne(&mut self, a: TermId, b: TermId) -> TermId {
        let e = self.eq(a, b);
        self.not(e)
    }

    /// `a != 0` for a bit-vector: C's truth test.
    pub fn is_nonzero(&mut self, a: TermId) -> TermId {
        let w = self.width(a);
        let z = self.bv_const(0, w);
        self.ne(a, z)
    }

    /// A boolean as a 0/1 bit-vector of `width` bits.
    pub fn bool_to_bv(&mut self, c: TermId, width: u8) -> TermId {
        let one = self.bv_const(1, width);
        let zero = self.bv_const(0, width);
        self.ite(c, one, zero)
    }

    // ---- bit-vector arithmetic ----

    pub fn bin(&mut self, op: BvOp, a: TermId, b: TermId) -> TermId {
        debug_assert_eq!(self.sort(a), self.sort(b));
        let w = self.width(a);
        if let (Some(x), Some(y)) = (self.as_bv(a), self.as_bv(b)) {
            if let Some(v) = fold_bin(op, x, y, w) {
                return self.bv_const(v, w);
            }
        }
        if let Some(t) = self.identity(op, a, b, w) {
            return t;
        }
        if let Some(t) = self.fold_offsets(op, a, b, w) {
            return t;
        }
        let commutative = matches!(op, BvOp::Add | BvOp::Mul | BvOp::And | BvOp::Or | BvOp::Xor);
        let (a, b) = if commutative && b < a { (b, a) } else { (a, b) };
        self.intern(Node::Bin(op, a, b), Sort::Bv(w))
    }

    /// `(x + k1) + k2 = x + (k1 + k2)` and `x - k = x + (-k)` (modular arithmetic, so
    /// exact): counters incremented in a loop stay one addition deep.
    fn fold_offsets(&mut self, op: BvOp, a: TermId, b: TermId, w: u8) -> Option<TermId> {
        let (x, k) = match (op, self.as_bv(a), self.as_bv(b)) {
            (BvOp::Add, None, Some(k)) => (a, k),
            (BvOp::Add, Some(k), None) => (b, k),
            (BvOp::Sub, None, Some(k)) => {
                let neg = self.bv_const(k.wrapping_neg(), w);
                return Some(self.bin(BvOp::Add, a, neg));
            }
            _ => return None,
        };
        let Node::Bin(BvOp::Add, p, q) = *self.node(x) else {
            return None;
        };
        let (inner, k1) = match (self.as_bv(p), self.as_bv(q)) {
            (Some(k1), None) => (q, k1),
            (None, Some(k1)) => (p, k1),
            _ => return None,
        };
        let sum = self.bv_const(k1.wrapping_add(k), w);
        Some(self.bin(BvOp::Add, inner, sum))
    }

    /// Algebraic identities with one constant operand (or equal operands).
    fn identity(&mut self, op: BvOp, a: TermId, b: TermId, w: u8) -> Option<TermId> {
        let ones = mask(u64::MAX, w);
        let (ka, kb) = (self.as_bv(a), self.as_bv(b));
        match op {
            BvOp::Add | BvOp::Or | BvOp::Xor if kb == Some(0) => Some(a),
            BvOp::Add | BvOp::Or | BvOp::Xor if ka == Some(0) => Some(b),
            BvOp::Sub | BvOp::Shl | BvOp::LShr | BvOp::AShr if kb == Some(0) => Some(a),
            BvOp::Mul | BvOp::And if kb == Some(0) || ka == Some(0) => Some(self.bv_const(0, w)),
            BvOp::Mul | BvOp::UDiv | BvOp::SDiv if kb == Some(1) => Some(a),
            BvOp::Mul if ka == Some(1) => Some(b),
            BvOp::And if kb == Some(ones) => Some(a),
            BvOp::And if ka == Some(ones) => Some(b),
            BvOp::Or if kb == Some(ones) || ka == Some(ones) => Some(self.bv_const(ones, w)),
            BvOp::Sub | BvOp::Xor if a == b => Some(self.bv_const(0, w)),
            BvOp::And | BvOp::Or if a == b => Some(a),
            _ => None,
        }
    }

    pub fn neg(&mut self, a: TermId) -> TermId {
        let w = self.width(a);
        if let Some(x) = self.as_bv(a) {
            return self.bv_const(x.wrapping_neg(), w);
        }
        self.intern(Node::Neg(a), Sort::Bv(w))
    }

    pub fn bnot(&mut self, a: TermId) -> TermId {
        let w = self.width(a);
        if let Some(x) = self.as_bv(a) {
            return self.bv_const(!x, w);
        }
        if let Node::BNot(x) = *self.node(a) {
            return x;
        }
        self.intern(Node::BNot(a), Sort::Bv(w))
    }

    /// Resizes a bit-vector to `width` bits: truncation, or sign / zero extension.
    pub fn resize(&mut self, a: TermId, width: u8, signed_ext: bool) -> TermId {
        let w = self.width(a);
        if width == w {
            return a;
        }
        if width < w {
            return self.trunc(a, width);
        }
        if signed_ext {
            self.sext(a, width)
        } else {
            self.zext(a, width)
        }
    }

    fn trunc(&mut self, a: TermId, width: u8) -> TermId {
        if let Some(x) = self.as_bv(a) {
            return self.bv_const(x, width);
        }
        match *self.node(a) {
            // Truncating an extension back to (at least) the original width.
            Node::ZExt(x, _) | Node::SExt(x, _) if self.width(x) == width => return x,
            Node::ZExt(x, _) | Node::SExt(x, _) if self.width(x) > width => {
                return self.trunc(x, width)
            }
            Node::Trunc(x, _) => return self.trunc(x, width),
            Node::Ite(c, x, y) if self.is_const(x) && self.is_const(y) => {
                let (x, y) = (self.trunc(x, width), self.trunc(y, width));
                return self.ite(c, x, y);
            }
            _ => {}
        }
        self.intern(Node::Trunc(a, width), Sort::Bv(width))
    }

    fn zext(&mut self, a: TermId, width: u8) -> TermId {
        if let Some(x) = self.as_bv(a) {
            return self.bv_const(x, width);
        }
        match *self.node(a) {
            Node::ZExt(x, _) => return self.zext(x, width),
            Node::Ite(c, x, y) if self.is_const(x) && self.is_const(y) => {
                let (x, y) = (self.zext(x, width), self.zext(y, width));
                return self.ite(c, x, y);
            }
            _ => {}
        }
        self.intern(Node::ZExt(a, width), Sort::Bv(width))
    }

    fn sext(&mut self, a: TermId, width: u8) -> TermId {
        let w = self.width(a);
        if let Some(x) = self.as_bv(a) {
            return self.bv_const(signed(x, w) as u64, width);
        }
        match *self.node(a) {
            Node::SExt(x, _) => return self.sext(x, width),
            Node::Ite(c, x, y) if self.is_const(x) && self.is_const(y) => {
                let (x, y) = (self.sext(x, width), self.sext(y, width));
                return self.ite(c, x, y);
            }
            _ => {}
        }
        self.intern(Node::SExt(a, width), Sort::Bv(width))
    }

    fn is_const(&self, t: TermId) -> bool {
        matches!(self.node(t), Node::BvConst { .. } | Node::BoolConst(_))
    }

    /// Rebuilds a node from (possibly new) children through the folding constructors.
    pub fn rebuild(&mut self, node: &Node, kids: &[TermId]) -> TermId {
        match *node {
            Node::BoolConst(b) => self.bool_const(b),
            Node::BvConst { width, value } => self.bv_const(value, width),
            Node::Var { var, width } => self.var(var, width),
            Node::Not(_) => self.not(kids[0]),
            Node::And(..) => self.and(kids[0], kids[1]),
            Node::Or(..) => self.or(kids[0], kids[1]),
            Node::Ite(..) => self.ite(kids[0], kids[1], kids[2]),
            Node::Cmp(op, ..) => self.cmp(op, kids[0], kids[1]),
            Node::Bin(op, ..) => self.bin(op, kids[0], kids[1]),
            Node::Neg(_) => self.neg(kids[0]),
            Node::BNot(_) => self.bnot(kids[0]),
            Node::ZExt(_, w) => self.zext(kids[0], w),
            Node::SExt(_, w) => self.sext(kids[0], w),
            Node::Trunc(_, w) => self.trunc(kids[0], w),
            Node::Fp(op, ..) => self.fp(op, kids[0], kids[1]),
        }
    }

    /// Whether `t` mentions an `Input` or `Fut` variable.
    pub fn has_inputs(&self, t: TermId) -> bool {
        self.has_inputs[t.index()]
    }

    /// The `Input` and `Fut` variables of `t`, sorted (as [`TermPool::vars`] would list
    /// them); the walk skips subterms that mention none. For `summary::rename_inputs`,
    /// the reference of the search's memoized renaming.
    #[cfg(test)]
    pub fn input_vars(&self, t: TermId) -> Vec<(Var, u8)> {
        let mut out = Vec::new();
        if !self.has_inputs[t.index()] {
            return out;
        }
        let mut seen = rustc_hash::FxHashSet::default();
        let mut stack = vec![t];
        while let Some(t) = stack.pop() {
            if !seen.insert(t) {
                continue;
            }
            let node = self.node(t);
            if let Node::Var { var, width } = *node {
                out.push((var, width));
            }
            let kids = self.children(node);
            stack.extend(kids.iter().filter(|k| self.has_inputs[k.index()]));
        }
        out.sort();
        out
    }

    /// A floating-point operation on `a` (and `b`; `a` again for a unary one), folded
    /// when the operands are constants.
    pub fn fp(&mut self, op: FpOp, a: TermId, b: TermId) -> TermId {
        let width = self.width(a);
        if let (Some(x), Some(y)) = (self.as_bv(a), self.as_bv(b)) {
            let v = op.eval(width, x, y);
            return if op.is_bool() {
                self.bool_const(v != 0)
            } else {
                self.bv_const(v, op.width(width))
            };
        }
        let sort = if op.is_bool() {
            Sort::Bool
        } else {
            Sort::Bv(op.width(width))
        };
        self.intern(Node::Fp(op, a, b), sort)
    }

    /// [`TermPool::vars`], computed once per term (from its cached
    /// [`TermPool::topological_cached`] order, which holds every subterm once: the
    /// concrete prune check asks for both, and one walk of the DAG is enough).
    pub fn vars_cached(&mut self, t: TermId) -> std::rc::Rc<[(Var, u8)]> {
        if let Some(v) = self.vars_memo.get(&t) {
            return v.clone();
        }
        // A summary grows as `ps ∨ wp` (and a wp as conjunctions): when one side's
        // variables are known, the other side's are found by walking only it, and the
        // two sorted lists merged (the same list: a variable term is one id).
        let v: std::rc::Rc<[(Var, u8)]> = match self.halves(t, |p, x| p.vars_memo.contains_key(&x))
        {
            Some((a, b)) => {
                let va = self.vars_memo.get(&a).cloned();
                let vb = self.vars_memo.get(&b).cloned();
                let va = va.unwrap_or_else(|| self.vars(a).into());
                let vb = vb.unwrap_or_else(|| self.vars(b).into());
                merge_sorted(&va, &vb).into()
            }
            None => {
                let order = self.topological_cached(t);
                let mut vars: Vec<(Var, u8)> = order
                    .iter()
                    .filter_map(|&x| match *self.node(x) {
                        Node::Var { var, width } => Some((var, width)),
                        _ => None,
                    })
                    .collect();
                vars.sort();
                vars.into()
            }
        };
        self.vars_memo.insert(t, v.clone());
        v
    }

    /// [`TermPool::vars_cached`] of `t` if it was asked before.
    pub fn vars_known(&self, t: TermId) -> Option<std::rc::Rc<[(Var, u8)]>> {
        self.vars_memo.get(&t).cloned()
    }

    /// [`super::model::topological`], computed once per term.
    pub fn topological_cached(&mut self, t: TermId) -> std::rc::Rc<[TermId]> {
        if let Some(v) = self.topo_memo.get(&t) {
            return v.clone();
        }
        // As for the variables: a conjunction or disjunction one of whose sides has its
        // order known is the merge of the sides' orders (both ascending) and then itself
        // (created after its subterms, so the largest id).
        let v: std::rc::Rc<[TermId]> = match self.halves(t, |p, x| p.topo_memo.contains_key(&x)) {
            Some((a, b)) => {
                let ta = self.topo_memo.get(&a).cloned();
                let tb = self.topo_memo.get(&b).cloned();
                let ta = ta.unwrap_or_else(|| super::model::topological(self, a).into());
                let tb = tb.unwrap_or_else(|| super::model::topological(self, b).into());
                let mut order = merge_sorted(&ta, &tb);
                debug_assert!(order.last().is_none_or(|&x| x < t));
                order.push(t);
                order.into()
            }
            None => super::model::topological(self, t).into(),
        };
        self.topo_memo.insert(t, v.clone());
        v
    }

    /// The two sides of a conjunction or disjunction `t` when `known` holds for one of
    /// them.
    fn halves(&self, t: TermId, known: impl Fn(&Self, TermId) -> bool) -> Option<(TermId, TermId)> {
        match *self.node(t) {
            Node::And(a, b) | Node::Or(a, b) if known(self, a) || known(self, b) => Some((a, b)),
            _ => None,
        }
    }

    /// The free variables of a term.
    pub fn vars(&self, t: TermId) -> Vec<(Var, u8)> {
        let mut seen = rustc_hash::FxHashSet::default();
        let mut out = Vec::new();
        let mut stack = vec![t];
        while let Some(t) = stack.pop() {
            if !seen.insert(t) {
                continue;
            }
            let node = self.node(t);
            if let Node::Var { var, width } = *node {
                out.push((var, width));
            }
            stack.extend_from_slice(&self.children(node));
        }
        out.sort();
        out
    }
}

/// The sorted union of two sorted lists without repeats.
fn merge_sorted<T: Ord + Copy>(a: &[T], b: &[T]) -> Vec<T> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// The direct subterms of a node, at most three, held inline.
#[derive(Clone, Copy, Debug)]
pub struct Kids {
    ids: [TermId; 3],
    len: u8,
}

impl Kids {
    /// Replaces the `i`-th child.
    pub fn set(&mut self, i: usize, t: TermId) {
        self.ids[..usize::from(self.len)][i] = t;
    }
}

impl std::ops::Deref for Kids {
    type Target = [TermId];
    fn deref(&self) -> &[TermId] {
        &self.ids[..usize::from(self.len)]
    }
}

fn kids_of(node: &Node) -> Kids {
    let none = TermId(0);
    let (ids, len) = match *node {
        Node::BoolConst(_) | Node::BvConst { .. } | Node::Var { .. } => ([none; 3], 0),
        Node::Not(a) | Node::Neg(a) | Node::BNot(a) => ([a, none, none], 1),
        Node::ZExt(a, _) | Node::SExt(a, _) | Node::Trunc(a, _) => ([a, none, none], 1),
        Node::And(a, b)
        | Node::Or(a, b)
        | Node::Cmp(_, a, b)
        | Node::Bin(_, a, b)
        | Node::Fp(_, a, b) => ([a, b, none], 2),
        Node::Ite(c, a, b) => ([c, a, b], 3),
    };
    Kids { ids, len }
}

/// The Bloom bit of a variable.
pub fn var_bloom(v: Var) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    v.hash(&mut h);
    1u64 << (h.finish() >> 58)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(p: &mut TermPool, i: u32) -> TermId {
        p.var(
            Var::Input {
                thread: ThreadKey(0),
                index: i,
            },
            32,
        )
    }

    #[test]
    fn constants_fold() {
        let mut p = TermPool::new();
        let a = p.bv_const(7, 32);
        let b = p.bv_const(u64::from(u32::MAX), 32); // -1
        let s = p.bin(BvOp::Add, a, b);
        assert_eq!(p.as_bv(s), Some(6));
        let lt = p.cmp(CmpOp::Slt, b, a);
        assert!(p.is_true(lt));
        let ult = p.cmp(CmpOp::Ult, b, a);
        assert!(p.is_false(ult));
        let d = p.bin(BvOp::SDiv, b, a);
        assert_eq!(p.as_bv(d), Some(0));
    }

    #[test]
    fn division_by_zero_is_not_folded() {
        let mut p = TermPool::new();
        let a = p.bv_const(7, 32);
        let z = p.bv_const(0, 32);
        let d = p.bin(BvOp::UDiv, a, z);
        assert!(p.as_bv(d).is_none());
    }

    #[test]
    fn c_truth_values_fold_to_conditions() {
        let mut p = TermPool::new();
        let x = input(&mut p, 0);
        let five = p.bv_const(5, 32);
        let c = p.cmp(CmpOp::Slt, x, five);
        let as_int = p.bool_to_bv(c, 32);
        let test = p.is_nonzero(as_int);
        assert_eq!(test, c);
        let widened = p.resize(as_int, 64, true);
        let test64 = p.is_nonzero(widened);
        assert_eq!(test64, c);
    }

    #[test]
    fn hash_consing_shares_terms() {
        let mut p = TermPool::new();
        let x = input(&mut p, 0);
        let y = input(&mut p, 1);
        let a = p.bin(BvOp::Add, x, y);
        let b = p.bin(BvOp::Add, y, x);
        assert_eq!(a, b);
        let e = a_eq(&mut p, x, y);
        let n = p.not(e);
        let nn = p.not(n);
        assert_eq!(nn, e);
    }

    /// The cached variables and order of a conjunction or disjunction built from
    /// sides whose own are cached (a summary growing as `ps ∨ wp`) equal the walk's.
    #[test]
    fn cached_vars_and_order_of_a_growing_disjunction_equal_the_walk() {
        let mut p = TermPool::new();
        let mut ps: Option<TermId> = None;
        for i in 0..40u32 {
            let x = input(&mut p, i % 7);
            let y = p.var(
                Var::Cell {
                    obj: ObjInst(i % 3),
                    offset: u64::from(i % 5),
                },
                if i % 4 == 0 { 8 } else { 32 },
            );
            let y = p.resize(y, 32, false);
            let k = p.bv_const(u64::from(i), 32);
            let s = p.bin(BvOp::Add, x, y);
            let c = p.cmp(CmpOp::Ult, s, k);
            let d = p.cmp(CmpOp::Eq, y, k);
            let wp = if i % 3 == 0 { p.and(c, d) } else { p.or(c, d) };
            if i % 5 == 0 {
                // Sometimes one side was asked for before, sometimes the other.
                p.vars_cached(wp);
                p.topological_cached(wp);
            }
            let next = match ps {
                None => wp,
                Some(ps) if i % 2 == 0 => p.or(ps, wp),
                Some(ps) => p.and(wp, ps),
            };
            if i % 3 != 1 {
                assert_eq!(&*p.vars_cached(next), &p.vars(next)[..]);
                assert_eq!(
                    &*p.topological_cached(next),
                    &super::super::model::topological(&p, next)[..]
                );
            }
            ps = Some(next);
        }
    }

    fn a_eq(p: &mut TermPool, a: TermId, b: TermId) -> TermId {
        p.eq(a, b)
    }
}
