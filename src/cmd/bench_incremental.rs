//! `agx bench --incremental PATH...`: Conc-iSE's Table 3 for agx. Every C program under
//! PATH (`.c`, `.i`) and every mutant kind of `bench::mutate` makes a version pair
//! (OLD, NEW); each pair runs as child `agx verify` processes: NEW from scratch (dpor+ag,
//! no store) and NEW `--since OLD` (+SCIA: OLD's stored summaries; OLD is verified once
//! per program first, filling a store in a temporary directory). +CIA (impact pruning
//! alone) has no column: agx has no `IS_fwd` pruning (see `explorer::symbolic::carry`).
//! A pair whose verdicts differ (neither unknown) is a failure (exit 1).

use anyhow::{Context, Result};
use bench::child::{self, End, Limits};
use bench::mutate::{mutate, Kind};
use serde_json::Value;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

/// One `agx verify` child's report.
struct Run {
    verdict: String,
    runs: u64,
    partial: u64,
    seconds: f64,
    carried_pruned: u64,
    read_ms: f64,
    write_ms: f64,
    /// `--since`'s own overheads: loading OLD and diffing the versions.
    old_load_ms: f64,
    diff_ms: f64,
}

fn verify(agx: &Path, args: &[&str], limits: Limits) -> Result<Option<Run>> {
    let mut c = Command::new(agx);
    c.arg("verify").args(args).args(["--format", "json"]);
    let done = child::run(c, limits).context("starting agx verify")?;
    let code = match done.end {
        End::Exited(c) => c,
        _ => {
            return Ok(Some(Run {
                verdict: "timeout".into(),
                runs: 0,
                partial: 0,
                seconds: done.wall.as_secs_f64(),
                carried_pruned: 0,
                read_ms: 0.0,
                write_ms: 0.0,
                old_load_ms: 0.0,
                diff_ms: 0.0,
            }))
        }
    };
    if code == 2 {
        return Ok(None);
    }
    let r: Value = serde_json::from_str(&done.stdout)
        .with_context(|| format!("agx verify {args:?}: {}", done.stderr))?;
    let n = |v: &Value| v.as_u64().unwrap_or(0);
    let ms = |v: &Value| v["ms"].as_f64().unwrap_or(0.0);
    Ok(Some(Run {
        verdict: r["verdict"].as_str().unwrap_or("?").to_string(),
        runs: n(&r["stats"]["runs"]),
        partial: n(&r["stats"]["partial_runs"]),
        seconds: done.wall.as_secs_f64(),
        carried_pruned: n(&r["incremental"]["carried_pruned"]),
        read_ms: ms(&r["incremental"]["store_read"]),
        write_ms: ms(&r["incremental"]["store_write"]),
        old_load_ms: r["incremental"]["old_load_ms"].as_f64().unwrap_or(0.0),
        diff_ms: r["incremental"]["diff_ms"].as_f64().unwrap_or(0.0),
    }))
}

fn sources(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut pending: Vec<PathBuf> = paths.to_vec();
    while let Some(p) = pending.pop() {
        if p.is_dir() {
            if let Ok(entries) = std::fs::read_dir(&p) {
                pending.extend(entries.flatten().map(|e| e.path()));
            }
        } else if p.extension().is_some_and(|e| e == "c" || e == "i") {
            out.push(p);
        }
    }
    out.sort();
    out
}

pub fn run(paths: &[PathBuf], timeout: Duration, memory_mib: u64) -> Result<ExitCode> {
    let agx = std::env::current_exe().context("finding this agx")?;
    let limits = Limits {
        wall: timeout + Duration::from_secs(5),
        memory_bytes: (memory_mib > 0).then_some(memory_mib << 20),
    };
    let secs = timeout.as_secs_f64().to_string();
    let work = tempfile::tempdir().context("creating a work directory")?;
    let store = work.path().join("summaries.sqlite3");
    let store_s = store.display().to_string();
    let mut table = String::new();
    let _ = writeln!(
        table,
        "{:<44} {:>8} | {:>6} {:>7} {:>8} | {:>6} {:>7} {:>8} {:>6} | {:>8}",
        "pair (program:mutation)",
        "verdict",
        "runs",
        "partial",
        "time s",
        "runs",
        "partial",
        "time s",
        "pruned",
        "old s"
    );
    let _ = writeln!(
        table,
        "{:<53} | {:^24} | {:^31} |",
        "", "from scratch (dpor+ag)", "+SCIA (--since OLD)"
    );
    let (mut total_scratch, mut total_since, mut pairs, mut wrong) = (0.0, 0.0, 0, 0);
    let (mut runs_scratch, mut runs_since) = (0u64, 0u64);
    let (mut reads, mut writes) = (Vec::new(), Vec::new());
    let (mut loads, mut diffs) = (Vec::new(), Vec::new());
    for old in sources(paths) {
        let Ok(text) = std::fs::read_to_string(&old) else {
            continue;
        };
        let old_s = old.display().to_string();
        let mut old_secs = None;
        for kind in Kind::ALL {
            if child::interrupted() {
                break;
            }
            let Some(m) = mutate(&text, kind, 0) else {
                continue;
            };
            let ext = old.extension().and_then(|e| e.to_str()).unwrap_or("c");
            let stem = old.file_stem().and_then(|s| s.to_str()).unwrap_or("p");
            let new = work.path().join(format!("{stem}.{kind}.{ext}"));
            std::fs::write(&new, &m.source)?;
            let new_s = new.display().to_string();
            let Some(scratch) = verify(&agx, &[&new_s, "--no-store", "--timeout", &secs], limits)?
            else {
                continue;
            };
            if old_secs.is_none() {
                let Some(o) = verify(
                    &agx,
                    &[&old_s, "--store", &store_s, "--timeout", &secs],
                    limits,
                )?
                else {
                    break;
                };
                old_secs = Some(o.seconds);
            }
            let Some(since) = verify(
                &agx,
                &[
                    &new_s,
                    "--since",
                    &old_s,
                    "--store",
                    &store_s,
                    "--timeout",
                    &secs,
                ],
                limits,
            )?
            else {
                continue;
            };
            let decided = |v: &str| v == "safe" || v == "violation";
            let differs = decided(&scratch.verdict)
                && decided(&since.verdict)
                && scratch.verdict != since.verdict;
            if differs {
                wrong += 1;
            }
            pairs += 1;
            total_scratch += scratch.seconds;
            total_since += since.seconds;
            runs_scratch += scratch.runs + scratch.partial;
            runs_since += since.runs + since.partial;
            reads.push(since.read_ms);
            writes.push(since.write_ms);
            loads.push(since.old_load_ms);
            diffs.push(since.diff_ms);
            let name = format!("{stem}:{kind}");
            let verdict = if differs {
                format!("DIFF {}/{}", scratch.verdict, since.verdict)
            } else {
                since.verdict.clone()
            };
            let _ = writeln!(
                table,
                "{:<44} {:>8} | {:>6} {:>7} {:>8.2} | {:>6} {:>7} {:>8.2} {:>6} | {:>8.2}",
                name,
                verdict,
                scratch.runs,
                scratch.partial,
                scratch.seconds,
                since.runs,
                since.partial,
                since.seconds,
                since.carried_pruned,
                old_secs.unwrap_or(0.0)
            );
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let size = std::fs::metadata(&store).map(|m| m.len()).unwrap_or(0);
    let _ = writeln!(
        table,
        "total: {pairs} pairs; from scratch {runs_scratch} runs (full+partial) in {total_scratch:.2} s; \
         +SCIA {runs_since} runs in {total_since:.2} s ({:.0}%); verdict differences: {wrong}",
        if total_scratch > 0.0 { 100.0 * total_since / total_scratch } else { 0.0 }
    );
    let _ = writeln!(
        table,
        "store: {size} bytes (SQLite) after all pairs; mean read {:.2} ms, mean write {:.2} ms per --since run",
        mean(&reads),
        mean(&writes)
    );
    let _ = writeln!(
        table,
        "--since overheads: mean {:.2} ms loading OLD, {:.2} ms diffing the versions per --since run",
        mean(&loads),
        mean(&diffs)
    );
    print!("{table}");
    Ok(ExitCode::from(u8::from(wrong > 0)))
}
