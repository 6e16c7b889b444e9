//! Abstract traces (Eq. 7) and abstract trace sets.
//!
//! For a goal location `l_i`: `P_i = {⟨l_0, …, l_i⟩ | l_0 the start of main,
//! (l_k, l_{k+1}) ∈ E_α, no location repeated}`. The set can be exponential, so traces are
//! enumerated best first by `(call sites, length)` — a uniform-cost search over simple
//! paths whose costs only grow, so paths come out in order — and the first
//! [`Config::max_traces`](super::Config) are kept. Trace sets are the product
//! `P_0 × … × P_{t-1}`, ranked by the summed key: the paper's initial trace sets are those
//! with the fewest call sites.

use analysis::ir::StmtId;
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};

/// An edge of the abstract system.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EdgeKind {
    /// A control-flow path with no other abstract location on it (Eq. 5).
    Flow,
    /// A call or thread creation to the callee's start (Eq. 6).
    Call,
}

/// What the search needs to know of an abstract location.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct AbstractNode {
    /// A call site or thread creation (counted when ranking traces).
    pub call_site: bool,
}

/// The abstract system `A = ⟨L_α, E_α⟩`, as plain data.
#[derive(Clone, Debug, Default, Serialize)]
pub struct AbstractGraph {
    /// The start of `main`, where every abstract trace starts.
    pub start: Option<StmtId>,
    pub nodes: BTreeMap<StmtId, AbstractNode>,
    pub edges: Vec<(StmtId, StmtId, EdgeKind)>,
}

/// An abstract trace with its ranking key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ranked {
    pub trace: Vec<StmtId>,
    pub call_sites: usize,
}

impl Ranked {
    pub fn key(&self) -> (usize, usize) {
        (self.call_sites, self.trace.len())
    }
}

/// A partial path in the enumeration: (call sites, length, insertion order, path).
type Partial = (usize, usize, u64, Vec<StmtId>);

/// Partial paths popped before the enumeration gives up (it keeps what it found).
const MAX_EXPANSIONS: usize = 50_000;

impl AbstractGraph {
    fn successors(&self) -> HashMap<StmtId, Vec<StmtId>> {
        let mut succ: HashMap<StmtId, Vec<StmtId>> = HashMap::new();
        for &(a, b, _) in &self.edges {
            let list = succ.entry(a).or_default();
            if !list.contains(&b) {
                list.push(b);
            }
        }
        for list in succ.values_mut() {
            list.sort();
        }
        succ
    }

    fn is_call_site(&self, s: StmtId) -> bool {
        self.nodes.get(&s).is_some_and(|n| n.call_site)
    }

    /// Up to `limit` abstract traces (Eq. 7) from the start to any of `ends`, best first
    /// by (call sites, length).
    pub fn traces_to(&self, ends: &[StmtId], limit: usize) -> Vec<Ranked> {
        let Some(start) = self.start else {
            return Vec::new();
        };
        let succ = self.successors();
        let mut out = Vec::new();
        let mut heap: BinaryHeap<Reverse<Partial>> = BinaryHeap::new();
        let mut order = 0u64;
        heap.push(Reverse((
            self.is_call_site(start) as usize,
            1,
            order,
            vec![start],
        )));
        let mut expansions = 0;
        while let Some(Reverse((calls, len, _, path))) = heap.pop() {
            let last = *path.last().expect("paths are non-empty");
            if ends.contains(&last) {
                out.push(Ranked {
                    trace: path,
                    call_sites: calls,
                });
                if out.len() >= limit {
                    break;
                }
                continue;
            }
            expansions += 1;
            if expansions > MAX_EXPANSIONS {
                break;
            }
            for &next in succ.get(&last).into_iter().flatten() {
                if path.contains(&next) {
                    continue;
                }
                let mut longer = path.clone();
                longer.push(next);
                order += 1;
                let calls = calls + self.is_call_site(next) as usize;
                heap.push(Reverse((calls, len + 1, order, longer)));
            }
        }
        out
    }
}

/// One trace set: a trace per goal location, with its summed key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceSetChoice {
    pub traces: Vec<Vec<StmtId>>,
    pub call_sites: usize,
    pub length: usize,
}

/// The product of the per-location trace lists, ranked by (call sites, length), at most
/// `limit` sets. Empty if any list is empty.
pub fn trace_sets(per_location: &[Vec<Ranked>], limit: usize) -> Vec<TraceSetChoice> {
    if per_location.is_empty() || per_location.iter().any(Vec::is_empty) {
        return Vec::new();
    }
    // Enumerate the product by index vectors in order of summed key: a small best-first
    // search over the grid of indices (each list is sorted by key).
    let key_of = |idx: &[usize]| -> (usize, usize) {
        idx.iter()
            .zip(per_location)
            .map(|(&i, list)| list[i].key())
            .fold((0, 0), |a, k| (a.0 + k.0, a.1 + k.1))
    };
    let start = vec![0usize; per_location.len()];
    let mut heap = BinaryHeap::new();
    let mut seen = std::collections::HashSet::new();
    heap.push(Reverse((key_of(&start), start.clone())));
    seen.insert(start);
    let mut out = Vec::new();
    while let Some(Reverse(((calls, length), idx))) = heap.pop() {
        out.push(TraceSetChoice {
            traces: idx
                .iter()
                .zip(per_location)
                .map(|(&i, list)| list[i].trace.clone())
                .collect(),
            call_sites: calls,
            length,
        });
        if out.len() >= limit {
            break;
        }
        for d in 0..idx.len() {
            if idx[d] + 1 < per_location[d].len() {
                let mut next = idx.clone();
                next[d] += 1;
                if seen.insert(next.clone()) {
                    heap.push(Reverse((key_of(&next), next)));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(i: u32) -> StmtId {
        StmtId(i)
    }

    /// 0 → 1 → 3 and 0 → 2 → 3, 2 a call site; a cycle 3 → 0.
    fn diamond() -> AbstractGraph {
        let mut nodes = BTreeMap::new();
        for i in 0..4 {
            nodes.insert(s(i), AbstractNode { call_site: i == 2 });
        }
        AbstractGraph {
            start: Some(s(0)),
            nodes,
            edges: vec![
                (s(0), s(1), EdgeKind::Flow),
                (s(0), s(2), EdgeKind::Flow),
                (s(1), s(3), EdgeKind::Flow),
                (s(2), s(3), EdgeKind::Call),
                (s(3), s(0), EdgeKind::Flow),
            ],
        }
    }

    #[test]
    fn traces_come_fewest_call_sites_first_and_never_repeat_a_location() {
        let g = diamond();
        let traces = g.traces_to(&[s(3)], 10);
        let paths: Vec<Vec<u32>> = traces
            .iter()
            .map(|r| r.trace.iter().map(|x| x.0).collect())
            .collect();
        assert_eq!(paths, vec![vec![0, 1, 3], vec![0, 2, 3]]);
        assert_eq!(traces[1].call_sites, 1);
    }

    #[test]
    fn no_trace_without_a_path() {
        let g = diamond();
        assert!(g.traces_to(&[s(9)], 10).is_empty());
        let empty = AbstractGraph::default();
        assert!(empty.traces_to(&[s(0)], 10).is_empty());
    }

    #[test]
    fn trace_sets_are_the_product_ranked_by_summed_key() {
        let g = diamond();
        let p = g.traces_to(&[s(3)], 10);
        let q = g.traces_to(&[s(1)], 10);
        let sets = trace_sets(&[p.clone(), q], 10);
        assert_eq!(sets.len(), 2);
        assert_eq!(sets[0].call_sites, 0);
        assert_eq!(sets[1].call_sites, 1);
        assert!(trace_sets(&[p, Vec::new()], 10).is_empty());
    }
}
