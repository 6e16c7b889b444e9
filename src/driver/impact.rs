//! Change impact between two versions (Conc-iSE, Algorithm 3): `IS_fwd`, what the changes
//! may affect, and `IS_bwd`, what may affect the changes, both closures of control and data
//! dependence with the happens-before filter (the `dependence` and `slice` rule sets).
//!
//! Seeds in the new version: added and modified statements, and the readers of objects
//! whose type or initializer changed. Deleted statements *and the old side of modified
//! ones* are closed over in the old version and the result mapped through `Δ_map`, then
//! closed over again in the new version: a replaced `x = 1` by `y = 1` no longer writes
//! `x`, which only the old version's dependences show (the paper analyses only deleted
//! statements in the old version; soundness first).

use super::Driver;
use analysis::diff::{diff_programs, ProgramDiff};
use analysis::facts::StmtId;
use rules::Direction;
use std::collections::{BTreeSet, HashSet};

/// The impacted sets of a new version against an old one.
#[derive(Debug)]
pub struct ChangeImpact {
    pub diff: ProgramDiff,
    /// `IS_fwd`: new statements the changes may affect.
    pub forward: BTreeSet<StmtId>,
    /// `IS_bwd`: new statements that may affect the changes.
    pub backward: BTreeSet<StmtId>,
}

impl ChangeImpact {
    pub fn compute(old: &Driver, new: &Driver) -> ChangeImpact {
        let diff = diff_programs(old.program(), new.program());
        let mut seeds: Vec<StmtId> = diff.added.clone();
        seeds.extend(&diff.modified);
        seeds.extend(readers_of_changed_objects(new, &diff));
        let gone: Vec<StmtId> = diff.deleted.iter().chain(&diff.replaced).copied().collect();
        let mut sets = [Direction::Forward, Direction::Backward].map(|dir| {
            let mut set = new.analysis().slice(&seeds, dir);
            if !gone.is_empty() {
                let mapped: Vec<StmtId> = old
                    .analysis()
                    .slice(&gone, dir)
                    .into_iter()
                    .filter_map(|s| diff.new_of(s))
                    .collect();
                set.extend(new.analysis().slice(&mapped, dir));
            }
            set
        });
        let backward = std::mem::take(&mut sets[1]);
        let forward = std::mem::take(&mut sets[0]);
        ChangeImpact {
            diff,
            forward,
            backward,
        }
    }
}

/// Statements of the new version that may read a cell of an object whose type, layout or
/// initializer changed (or that is new).
fn readers_of_changed_objects(new: &Driver, diff: &ProgramDiff) -> Vec<StmtId> {
    if diff.changed_objects.is_empty() {
        return Vec::new();
    }
    let names: HashSet<&str> = diff
        .changed_objects
        .iter()
        .map(|o| new.program().object(*o).name.as_str())
        .collect();
    let facts = new.facts();
    new.analysis()
        .data
        .read_cells
        .iter()
        .filter(|(_, obj, _)| names.contains(facts.obj_name(*obj)))
        .map(|(s, _, _)| *s)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn driver(name: &str, src: &str) -> Driver {
        let path = std::env::temp_dir().join(format!("agx-impact-{name}-{}.c", std::process::id()));
        std::fs::write(&path, src).unwrap();
        let program = analysis::load_program(&path, &Default::default());
        let _ = std::fs::remove_file(&path);
        Driver::new(program.expect("the test program lowers"))
    }

    fn lines(d: &Driver, set: &BTreeSet<StmtId>) -> BTreeSet<u32> {
        set.iter()
            .map(|s| d.program().stmt(*s).span().line)
            .collect()
    }

    const OLD: &str = "#include <assert.h>\nint x, y;\nint main(void) {\n  x = 1;\n  y = 2;\n  int a = x;\n  int b = y;\n  assert(a + b != 0);\n  return 0;\n}\n";

    #[test]
    fn replaced_write_impacts_the_old_readers() {
        // `x = 1` becomes `y = 1`: the read of x (line 6) now sees 0, which only the old
        // version's dependences show.
        let old = driver("r-old", OLD);
        let new = driver("r-new", &OLD.replace("  x = 1;", "  y = 1;"));
        let i = ChangeImpact::compute(&old, &new);
        let fwd = lines(&new, &i.forward);
        assert!(
            fwd.contains(&4) && fwd.contains(&6) && fwd.contains(&8),
            "{fwd:?}"
        );
    }

    #[test]
    fn changed_initializer_impacts_its_readers() {
        let old = driver("i-old", OLD);
        let new = driver("i-new", &OLD.replace("int x, y;", "int x, y = 3;"));
        let i = ChangeImpact::compute(&old, &new);
        let fwd = lines(&new, &i.forward);
        assert!(fwd.contains(&7) && fwd.contains(&8), "{fwd:?}");
        assert!(!fwd.contains(&6), "{fwd:?}");
    }

    #[test]
    fn unchanged_program_has_no_impact() {
        let old = driver("u-old", OLD);
        let new = driver("u-new", &OLD.replace("int main", "// comment\n\nint main"));
        let i = ChangeImpact::compute(&old, &new);
        assert!(i.diff.is_empty() && i.forward.is_empty() && i.backward.is_empty());
    }
}
