//! `agx bench --incremental PATH...`: Conc-iSE's Table 3 for agx. Every C program under
//! PATH (`.c`, `.i`) and every mutant kind of `bench::mutate` makes a version pair
//! (OLD, NEW). OLD is verified first, filling a store in a temporary directory; a
//! program whose verification is undecided, or took less CPU time than
//! `--min-search-ms`, makes no pairs (its table would measure process start-up). Each
//! pair then runs as child `agx verify` processes: NEW from scratch (dpor+ag, no store),
//! NEW from scratch storing its summaries (what a plain `agx verify` costs), and NEW
//! `--since OLD` (+SCIA: OLD's stored summaries; OLD's own verification is not charged
//! to it). Times are the children's CPU times; the report's search time and `--since`'s
//! fixed costs (OLD's load and slice, the diff, the store's read and write) split them.
//! +CIA (impact pruning alone) has no column: Alg. 2's `IS_fwd` pruning is unsound, and
//! its sound form is a carried summary at a node no harmful change can reach (see
//! `explorer::symbolic::carry`), which +SCIA is.
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
#[derive(Default)]
struct Run {
    verdict: String,
    runs: u64,
    partial: u64,
    /// The child's CPU time (user + system), start-up and every thread included.
    cpu_s: f64,
    /// The search alone (`stats.time_ms`).
    search_ms: f64,
    states: u64,
    carried_pruned: u64,
    /// Nodes where no harmful change can still run, and those of them whose key had a
    /// carried summary.
    carried_clean: u64,
    carried_matched: u64,
    carried_summaries: u64,
    changed: u64,
    harmless: u64,
    read_ms: f64,
    write_ms: f64,
    /// `--since`'s own overheads: loading OLD, its Type B slice, diffing the versions.
    old_load_ms: f64,
    old_slice_ms: f64,
    diff_ms: f64,
}

impl Run {
    /// `--since`'s fixed costs besides the search (OLD's load runs on a thread beside
    /// NEW's front end, so part of it is hidden in wall time, none in CPU time).
    fn fixed_ms(&self) -> f64 {
        self.old_load_ms + self.old_slice_ms + self.diff_ms + self.read_ms + self.write_ms
    }

    fn total_runs(&self) -> u64 {
        self.runs + self.partial
    }
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
                cpu_s: done.cpu.as_secs_f64(),
                ..Run::default()
            }))
        }
    };
    if code == 2 {
        return Ok(None);
    }
    let r: Value = serde_json::from_str(&done.stdout)
        .with_context(|| format!("agx verify {args:?}: {}", done.stderr))?;
    let n = |v: &Value| v.as_u64().unwrap_or(0);
    let f = |v: &Value| v.as_f64().unwrap_or(0.0);
    let inc = &r["incremental"];
    Ok(Some(Run {
        verdict: r["verdict"].as_str().unwrap_or("?").to_string(),
        runs: n(&r["stats"]["runs"]),
        partial: n(&r["stats"]["partial_runs"]),
        cpu_s: done.cpu.as_secs_f64(),
        search_ms: f(&r["stats"]["time_ms"]),
        states: n(&r["stats"]["states"]),
        carried_pruned: n(&inc["carried_pruned"]),
        carried_clean: n(&r["stats"]["carried_clean"]),
        carried_matched: n(&r["stats"]["carried_matched"]),
        carried_summaries: n(&inc["carried_summaries"]),
        changed: n(&inc["changed_statements"]),
        harmless: n(&inc["harmless_statements"]),
        read_ms: f(&inc["store_read"]["ms"]),
        write_ms: f(&inc["store_write"]["ms"]),
        old_load_ms: f(&inc["old_load_ms"]),
        old_slice_ms: f(&inc["old_slice_ms"]),
        diff_ms: f(&inc["diff_ms"]),
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

/// Sums over the pairs.
#[derive(Default)]
struct Totals {
    pairs: usize,
    wrong: usize,
    scratch_runs: u64,
    scratch_cpu: f64,
    scratch_search: f64,
    stored_cpu: f64,
    since_runs: u64,
    since_cpu: f64,
    since_search: f64,
    since_fixed: f64,
    pruned: u64,
    clean: u64,
    matched: u64,
    states: u64,
    reads: Vec<f64>,
    writes: Vec<f64>,
    loads: Vec<f64>,
    slices: Vec<f64>,
    diffs: Vec<f64>,
}

fn percent(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        100.0 * part / whole
    } else {
        0.0
    }
}

fn decided(verdict: &str) -> bool {
    verdict == "safe" || verdict == "violation"
}

pub fn run(
    paths: &[PathBuf],
    timeout: Duration,
    memory_mib: u64,
    min_search_ms: u64,
) -> Result<ExitCode> {
    let agx = std::env::current_exe().context("finding this agx")?;
    let limits = Limits {
        wall: timeout + Duration::from_secs(5),
        memory_bytes: (memory_mib > 0).then_some(memory_mib << 20),
    };
    let secs = timeout.as_secs_f64().to_string();
    let work = tempfile::tempdir().context("creating a work directory")?;
    let store = work.path().join("summaries.sqlite3");
    let store_s = store.display().to_string();
    // Scratch runs that store their summaries, as every plain `agx verify` does, write
    // to a store of their own (the +SCIA runs must read OLD's records only).
    let plain_store = work.path().join("plain.sqlite3").display().to_string();
    let mut table = String::new();
    let _ = writeln!(
        table,
        "{:<40} {:>9} | {:>6} {:>7} {:>7} {:>7} | {:>6} {:>7} {:>7} {:>6} {:>6} {:>5} {:>5} {:>6} | {:>7}",
        "pair (program:mutation)",
        "verdict",
        "runs",
        "cpu s",
        "srch s",
        "+st s",
        "runs",
        "cpu s",
        "srch s",
        "fix ms",
        "pruned",
        "clean",
        "harml",
        "sums",
        "old s"
    );
    let _ = writeln!(
        table,
        "{:<50} | {:^30} | {:^57} |",
        "", "from scratch (dpor+ag)", "+SCIA (--since OLD)"
    );
    let mut t = Totals::default();
    let mut skipped: Vec<String> = Vec::new();
    for old in sources(paths) {
        if child::interrupted() {
            break;
        }
        let Ok(text) = std::fs::read_to_string(&old) else {
            continue;
        };
        let old_s = old.display().to_string();
        // OLD first: it fills the store, and its CPU time decides whether the program's
        // search is worth measuring (not charged to any +SCIA run: the paper measures
        // NEW's run given OLD's stored results).
        let Some(o) = verify(
            &agx,
            &[&old_s, "--store", &store_s, "--timeout", &secs],
            limits,
        )?
        else {
            continue;
        };
        if !decided(&o.verdict) {
            skipped.push(format!("{old_s}: {} from scratch", o.verdict));
            continue;
        }
        if o.cpu_s * 1000.0 < min_search_ms as f64 {
            continue;
        }
        let ext = old.extension().and_then(|e| e.to_str()).unwrap_or("c");
        let stem = old.file_stem().and_then(|s| s.to_str()).unwrap_or("p");
        for kind in Kind::ALL {
            if child::interrupted() {
                break;
            }
            let Some(m) = mutate(&text, kind, 0) else {
                continue;
            };
            let new = work.path().join(format!("{stem}.{kind}.{ext}"));
            std::fs::write(&new, &m.source)?;
            let new_s = new.display().to_string();
            let Some(scratch) = verify(&agx, &[&new_s, "--no-store", "--timeout", &secs], limits)?
            else {
                continue;
            };
            let Some(stored) = verify(
                &agx,
                &[&new_s, "--store", &plain_store, "--timeout", &secs],
                limits,
            )?
            else {
                continue;
            };
            let since_args: [&str; 7] = [
                new_s.as_str(),
                "--since",
                &old_s,
                "--store",
                &store_s,
                "--timeout",
                &secs,
            ];
            let Some(since) = verify(&agx, &since_args, limits)? else {
                continue;
            };
            let differs = decided(&scratch.verdict)
                && decided(&since.verdict)
                && scratch.verdict != since.verdict;
            t.wrong += usize::from(differs);
            t.pairs += 1;
            t.scratch_runs += scratch.total_runs();
            t.scratch_cpu += scratch.cpu_s;
            t.scratch_search += scratch.search_ms / 1000.0;
            t.stored_cpu += stored.cpu_s;
            t.since_runs += since.total_runs();
            t.since_cpu += since.cpu_s;
            t.since_search += since.search_ms / 1000.0;
            t.since_fixed += since.fixed_ms() / 1000.0;
            t.pruned += since.carried_pruned;
            t.clean += since.carried_clean;
            t.matched += since.carried_matched;
            t.states += since.states;
            t.reads.push(since.read_ms);
            t.writes.push(since.write_ms);
            t.loads.push(since.old_load_ms);
            t.slices.push(since.old_slice_ms);
            t.diffs.push(since.diff_ms);
            let verdict = if differs {
                format!("DIFF {}/{}", scratch.verdict, since.verdict)
            } else {
                since.verdict.clone()
            };
            let _ = writeln!(
                table,
                "{:<40} {:>9} | {:>6} {:>7.2} {:>7.2} {:>7.2} | {:>6} {:>7.2} {:>7.2} {:>6.0} {:>6} {:>4.0}% {:>2}/{:<2} {:>6} | {:>7.2}",
                format!("{stem}:{kind}"),
                verdict,
                scratch.total_runs(),
                scratch.cpu_s,
                scratch.search_ms / 1000.0,
                stored.cpu_s,
                since.total_runs(),
                since.cpu_s,
                since.search_ms / 1000.0,
                since.fixed_ms(),
                since.carried_pruned,
                percent(since.carried_clean as f64, since.states as f64),
                since.harmless,
                since.changed,
                since.carried_summaries,
                o.cpu_s
            );
        }
    }
    summary(&mut table, &t, &store, min_search_ms, &skipped);
    print!("{table}");
    Ok(ExitCode::from(u8::from(t.wrong > 0)))
}

/// The totals and the store's costs under the table.
fn summary(table: &mut String, t: &Totals, store: &Path, min_search_ms: u64, skipped: &[String]) {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let size = std::fs::metadata(store).map(|m| m.len()).unwrap_or(0);
    let _ = writeln!(
        table,
        "columns: runs = full + partial; cpu s = the child's CPU time; srch s = the search's wall-clock time (stats.time_ms, far above CPU time on a loaded machine); \
         +st s = scratch storing its summaries (plain `agx verify`); fix ms = --since's load, \
         slice, diff, store read and write (wall-clock); clean = nodes where no harmful change can still run; \
         harml = harmless / changed statements; \
         sums = OLD's summaries carried"
    );
    let _ = writeln!(
        table,
        "total: {} pairs (programs whose own verification took >= {min_search_ms} ms CPU); \
         from scratch {} runs in {:.2} s CPU ({:.2} s search; {:.2} s storing summaries); \
         +SCIA {} runs in {:.2} s CPU ({:.0}%; {:.2} s search = {:.0}% of scratch's, {:.2} s fixed); \
         verdict differences: {}",
        t.pairs,
        t.scratch_runs,
        t.scratch_cpu,
        t.scratch_search,
        t.stored_cpu,
        t.since_runs,
        t.since_cpu,
        percent(t.since_cpu, t.scratch_cpu),
        t.since_search,
        percent(t.since_search, t.scratch_search),
        t.since_fixed,
        t.wrong
    );
    let _ = writeln!(
        table,
        "+SCIA nodes: {} visited, {} clean ({:.0}%), {} of them with a carried summary, {} pruned by one",
        t.states,
        t.clean,
        percent(t.clean as f64, t.states as f64),
        t.matched,
        t.pruned
    );
    let _ = writeln!(
        table,
        "store: {size} bytes (SQLite) after all pairs; mean read {:.2} ms, mean write {:.2} ms per --since run",
        mean(&t.reads),
        mean(&t.writes)
    );
    let _ = writeln!(
        table,
        "--since overheads: mean {:.2} ms loading OLD, {:.2} ms OLD's slice, {:.2} ms diffing per --since run",
        mean(&t.loads),
        mean(&t.slices),
        mean(&t.diffs)
    );
    for s in skipped {
        let _ = writeln!(table, "skipped {s}");
    }
}
