//! Times every rule set on a C program or a facts directory, like `agx rules time`, without
//! the rest of agx: `cargo run -p agx-rules --release --example time_rule_sets -- FILE`.

use analysis::facts::{Facts, StmtId};
use rules::Analysis;
use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(path) = std::env::args().nth(1) else {
        return Err("usage: time_rule_sets FILE.c|FACTS_DIR [REPEAT]".into());
    };
    let repeat: usize = std::env::args().nth(2).map_or(Ok(3), |r| r.parse())?;
    let path = Path::new(&path);
    let facts: Facts = if path.is_dir() {
        analysis::facts::load_dir(path)?
    } else {
        let program = analysis::load_program(path, &Default::default())?;
        analysis::facts::extract(&program)
    };
    let targets: Vec<StmtId> = facts.error_site.iter().map(|e| e.0).collect();
    let mut best: Vec<(&'static str, f64, String)> = Vec::new();
    for run in 0..repeat.max(1) {
        let mut a = Analysis::run(&facts);
        a.time_target_rule_sets(&facts, &targets);
        for (i, t) in a.timings.iter().enumerate() {
            let ms = t.duration.as_secs_f64() * 1e3;
            let sizes: Vec<String> = t.sizes.iter().map(|(n, s)| format!("{n}={s}")).collect();
            if run == 0 {
                best.push((t.rule_set, ms, sizes.join(" ")));
            } else if ms < best[i].1 {
                best[i].1 = ms;
            }
        }
    }
    let tuples: usize = facts.sizes().iter().map(|s| s.1).sum();
    println!("{} input tuples, {} error sites", tuples, targets.len());
    for (name, ms, sizes) in &best {
        println!("{name:<16} {ms:>10.3} ms  {sizes}");
    }
    println!(
        "{:<16} {:>10.3} ms",
        "total",
        best.iter().map(|b| b.1).sum::<f64>()
    );
    Ok(())
}
