//! Property test of slice soundness against the reference interpreter: on small generated
//! programs, changing any statement outside the backward slice of a target must not
//! change what the target computes (`agx run` on the same inputs prints the same value).
//!
//! The programs are sequential (globals, locals, a pointer, a called function, branches)
//! so that one run per input is the whole behaviour; a concurrent version needs an
//! exhaustive exploration of schedules to compare outcome sets, not single runs.

mod common;

use common::{agx_bin, process, project_root};
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

/// A small deterministic generator (64-bit LCG), so failures reproduce from the seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

const HEADER: usize = 4;

/// One program: a header, statement lines (each with one integer literal to mutate),
/// and a final line that prints the target value. Returns (lines, target line number).
fn generate(rng: &mut Rng) -> (Vec<String>, u32) {
    let mut lines = vec![
        "int g0, g1, g2, g3; int *q = &g0;".to_string(),
        "int h(int p) { g3 = p + g1; return p * 2 + g2; }".to_string(),
        "int main(void) { int a = __VERIFIER_nondet_int(); int b = __VERIFIER_nondet_int();"
            .to_string(),
        "  int c = 0;".to_string(),
    ];
    assert_eq!(lines.len(), HEADER);
    let var = |rng: &mut Rng| ["g0", "g1", "g2", "g3", "a", "b", "c"][rng.next(7) as usize];
    let global = |rng: &mut Rng| ["g0", "g1", "g2", "g3"][rng.next(4) as usize];
    for _ in 0..(6 + rng.next(6)) {
        let k = 1 + rng.next(9);
        let expr = match rng.next(4) {
            0 => format!("{k}"),
            1 => format!("{} + {k}", var(rng)),
            2 => format!("{} * {k}", var(rng)),
            _ => format!("{} - {} + {k}", var(rng), var(rng)),
        };
        let dst = if rng.next(3) == 0 {
            ["a", "b", "c"][rng.next(3) as usize]
        } else {
            global(rng)
        };
        let line = match rng.next(6) {
            0 => format!("  if ({} > {k}) {dst} = {};", var(rng), var(rng)),
            1 => format!("  {dst} = h({expr});"),
            2 => format!("  q = &{}; *q = {expr};", global(rng)),
            3 => format!("  if ({expr} < 5) {dst} = 0; else {dst} = {};", var(rng)),
            _ => format!("  {dst} = {expr};"),
        };
        lines.push(line);
    }
    lines.push(format!("  printf(\"%d\\n\", {} + {});", var(rng), var(rng)));
    let target = lines.len() as u32;
    lines.push("  return 0; }".to_string());
    (lines, target)
}

/// The line with its first integer literal (not a digit of a name) increased by 1000.
fn mutate(line: &str) -> Option<String> {
    let bytes = line.as_bytes();
    let start = (0..bytes.len()).find(|&i| {
        bytes[i].is_ascii_digit()
            && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_'))
    })?;
    let end = start + line[start..].find(|c: char| !c.is_ascii_digit())?;
    let k: u64 = line[start..end].parse().ok()?;
    Some(format!("{}{}{}", &line[..start], k + 1000, &line[end..]))
}

fn agx(args: &[String]) -> process::Finished {
    process::run(&agx_bin(), args, &project_root(), Duration::from_secs(60))
}

fn outputs(file: &Path) -> Vec<String> {
    let inputs = ["0,0", "1,-1", "7,2", "-4,12"];
    inputs
        .iter()
        .map(|i| {
            let run = agx(&[
                "run".into(),
                file.display().to_string(),
                "--input".into(),
                i.to_string(),
            ]);
            format!("{:?} {}", run.code, run.stdout)
        })
        .collect()
}

fn slice_lines(file: &Path, target: u32) -> BTreeSet<u32> {
    let run = agx(&[
        "slice".into(),
        file.display().to_string(),
        "--target".into(),
        format!("{}:{target}", file.display()),
        "--format".into(),
        "json".into(),
    ]);
    assert_eq!(run.code, Some(0), "agx slice: {}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    v[0]["slice"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["line"].as_u64().unwrap() as u32)
        .collect()
}

#[test]
fn changing_a_statement_outside_the_slice_never_changes_the_target() {
    let dir = std::env::temp_dir().join(format!("agx-slice-prop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng(0x5eed);
    let (mut outside, mut inside_changed) = (0, 0);
    for case in 0..12 {
        let (lines, target) = generate(&mut rng);
        let file = dir.join(format!("p{case}.c"));
        std::fs::write(&file, lines.join("\n") + "\n").unwrap();
        let slice = slice_lines(&file, target);
        let base = outputs(&file);
        for (i, line) in lines.iter().enumerate().skip(HEADER) {
            let number = i as u32 + 1;
            if number == target {
                continue;
            }
            let Some(changed) = mutate(line) else {
                continue;
            };
            let mut mutant = lines.clone();
            mutant[i] = changed;
            let mfile = dir.join(format!("p{case}_m{number}.c"));
            std::fs::write(&mfile, mutant.join("\n") + "\n").unwrap();
            let out = outputs(&mfile);
            if slice.contains(&number) {
                inside_changed += usize::from(out != base);
            } else {
                outside += 1;
                assert_eq!(
                    out,
                    base,
                    "case {case}: line {number} is outside the slice {slice:?} of line {target} \
                     but changing it changes the output\n{}",
                    lines.join("\n")
                );
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(
        outside > 0,
        "no statement fell outside a slice: the test checked nothing"
    );
    assert!(
        inside_changed > 0,
        "no mutation inside a slice changed the output"
    );
}
