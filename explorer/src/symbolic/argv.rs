//! Symbolic command-line arguments ([`super::Config::symbolic_args`], issue 18): one
//! start state per shape of `argv` (how many arguments, how long each is), every byte
//! before a NUL a fresh solver input of `main`'s thread in `1..=127`.
//!
//! Why one start per shape instead of a symbolic `argc` and symbolic lengths: each
//! string keeps a concrete object size (its length plus the NUL), so reading past an
//! argument's NUL is out of bounds exactly as in the interpreter replaying the witness,
//! and `argv[argc]` is a concrete NULL. Shapes number `sum_{k<=N} (LEN+1)^k`, so the
//! bound is meant to be small (KLEE's `--sym-args` has the same cost in forks).
//! Bytes are ASCII (`1..=127`) because a witness's `args` are UTF-8 strings; a SAFE
//! under symbolic arguments is therefore never claimed: the search ends at best
//! `Unknown` naming [`Reason::ArgsBound`] with the bound (unless `main` declares no
//! parameters, so no argument can matter).

use super::engine::Engine;
use super::names::ThreadName;
use super::step::StepCtx;
use super::term::{CmpOp, TermId, Var};
use super::{Reason, SymbolicArgs, VerifyError};

impl<'p> Engine<'p> {
    /// Explores `main` under every shape of `argv` within `bound`.
    /// A `main` without parameters cannot see its arguments: one start, and no bound.
    pub(super) fn explore_symbolic_args(&mut self, bound: SymbolicArgs) -> Result<(), VerifyError> {
        let prog = self.setup.prog;
        if prog.function(prog.main).params.is_empty() {
            let st = self.initial_state()?;
            let _ = self.explore_step(st, 0, StepCtx::initial());
            return Ok(());
        }
        for shape in shapes(bound) {
            if self.search.stop {
                break;
            }
            let (words, vars, guard) = self.symbolic_words(&shape);
            let mut st = self.initial_state_with(&words)?;
            st.threads[0].inputs = vars.iter().map(|v| v.len() as u32).sum();
            self.path.argv = vars;
            let _ = self.under(guard, None, |e| e.explore_step(st, 0, StepCtx::initial()));
            self.path.argv.clear();
        }
        self.incomplete(
            Reason::ArgsBound,
            format!(
                "argv[1..] was explored as at most {} argument(s) of at most {} ASCII byte(s) each",
                bound.max_count, bound.max_len
            ),
        );
        Ok(())
    }

    /// `argv[0] = "main"` and one argument per entry of `shape`, its bytes fresh
    /// inputs; the inputs per argument and the condition that each is in `1..=127`.
    fn symbolic_words(&mut self, shape: &[u32]) -> (Vec<Vec<TermId>>, Vec<Vec<Var>>, TermId) {
        let key = self.names.thread(ThreadName::Main);
        let mut words = vec!["main"
            .bytes()
            .map(|b| self.pool.bv_const(u64::from(b), 8))
            .collect::<Vec<_>>()];
        let (mut all_vars, mut guard) = (Vec::new(), self.pool.tru());
        let (lo, hi) = (self.pool.bv_const(1, 8), self.pool.bv_const(127, 8));
        let mut index = 0;
        for &len in shape {
            let (mut word, mut vars) = (Vec::new(), Vec::new());
            for _ in 0..len {
                let var = Var::Input { thread: key, index };
                index += 1;
                let t = self.pool.var(var, 8);
                let above = self.pool.cmp(CmpOp::Ule, lo, t);
                let below = self.pool.cmp(CmpOp::Ule, t, hi);
                guard = self.pool.and(guard, above);
                guard = self.pool.and(guard, below);
                word.push(t);
                vars.push(var);
            }
            words.push(word);
            all_vars.push(vars);
        }
        (words, all_vars, guard)
    }
}

/// Every list of at most `max_count` lengths, each at most `max_len`: fewest and
/// shortest first, so a small witness is found first.
fn shapes(bound: SymbolicArgs) -> Vec<Vec<u32>> {
    let mut all: Vec<Vec<u32>> = vec![Vec::new()];
    let mut layer: Vec<Vec<u32>> = vec![Vec::new()];
    for _ in 0..bound.max_count {
        layer = layer
            .iter()
            .flat_map(|s| {
                (0..=bound.max_len).map(move |l| {
                    let mut t = s.clone();
                    t.push(l);
                    t
                })
            })
            .collect();
        all.extend(layer.iter().cloned());
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_cover_every_count_and_length_within_the_bound() {
        let s = shapes(SymbolicArgs {
            max_count: 2,
            max_len: 1,
        });
        assert_eq!(
            s,
            vec![
                vec![],
                vec![0],
                vec![1],
                vec![0, 0],
                vec![0, 1],
                vec![1, 0],
                vec![1, 1]
            ]
        );
        assert_eq!(
            shapes(SymbolicArgs {
                max_count: 0,
                max_len: 5
            }),
            vec![Vec::<u32>::new()]
        );
    }
}
