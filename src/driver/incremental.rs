//! Incremental verification (Conc-iSE): the summary store of `agx verify` and what
//! `--since OLD` carries from the old version's record to the new search.
//!
//! Every dpor+ag `agx verify` without `--target` writes its summaries, in the stable
//! form of `explorer::symbolic::carry`, as one record of the store (`agx-store`), found
//! by [`record_key`]: a hash of the lowered program and of every option the summaries
//! depend on. `--since OLD` reads OLD's record (verifying OLD first when there is none
//! or it cannot be trusted) and hands the search the summaries with the
//! [`carry::Changes`] of the new version, which decide where they may prune.

use analysis::diff::diff_programs;
use analysis::ir::Program;
use anyhow::Result;
use explorer::symbolic::carry::{self, Carried, CarriedSummary, Changes, Imported, Slices};
use explorer::symbolic::Config;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;
use store::{Location, Lookup, Meta, Record, Store, StoredSummary};

/// The agx version records are written by (a record of another one is stale).
pub const AGX_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The project directory of a program: the nearest ancestor of its directory holding
/// `.agx` or `.git`, else the current directory. A program outside any project (a
/// downloaded benchmark, a shared corpus) gets no `.agx/` written beside it: that
/// directory may be read-only or belong to someone else.
pub fn project_dir(file: &Path) -> PathBuf {
    let dir = file
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    dir.ancestors()
        .find(|d| d.join(".agx").exists() || d.join(".git").exists())
        .map_or_else(
            || std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
            Path::to_path_buf,
        )
}

/// Where `--store`/`--no-store` put the store for `file` (`None`: no store).
pub fn store_location(file: &Path, spec: Option<&str>, off: bool) -> Result<Option<Location>> {
    if off {
        return Ok(None);
    }
    Ok(Some(match spec {
        Some(s) => Location::parse(s)?,
        None => Location::default_in(&project_dir(file)),
    }))
}

/// The record key of a program verified with `config`: SHA-256 of its lowered functions
/// and objects and of the options its summaries depend on.
pub fn record_key(program: &Program, config: &Config) -> String {
    let mut h = Sha256::new();
    h.update(serde_json::to_vec(&program.functions).expect("IR serializes"));
    h.update(serde_json::to_vec(&program.objects).expect("IR serializes"));
    let options = format!(
        "{:?} slice={} unwind={:?} max_events={} max_threads={} uninit={:?} checks={:?} \
         all={} bound={} repair={:?} spurious={} spin={} dm={:?}",
        config.strategy,
        config.slice,
        config.unwind,
        config.max_events,
        config.max_threads,
        config.uninit,
        config.checks,
        config.all_violations,
        config.summary_size_bound,
        config.repair,
        config.spurious_wakeups,
        config.spin_loops,
        program.data_model,
    );
    h.update(options.as_bytes());
    // Appended only when off, so keys with the await reduction on stay as they were.
    if !config.await_assumes {
        h.update(b" await=false");
    }
    // Appended only when not the default, so existing keys stay as they were.
    if config.dpor != explorer::symbolic::DporMode::default() {
        h.update(format!(" dpor={}", config.dpor.name()).as_bytes());
    }
    // `main`'s arguments decide the start state: a record of one invocation is not
    // offered to another (appended only when given, so keys without them stay as they were).
    if !config.args.is_empty() || config.symbolic_args.is_some() {
        h.update(
            format!(
                " args={:?} symbolic_args={:?}",
                config.args, config.symbolic_args
            )
            .as_bytes(),
        );
    }
    format!("{:x}", h.finalize())
}

/// Can this configuration's summaries be stored? (dpor+ag computes them; summaries of a
/// search restricted to `--target`s are about those targets only, and those of a search
/// from a program context (`--entry`) about that context's initial states only.)
pub fn storable(config: &Config) -> bool {
    config.strategy == explorer::symbolic::Strategy::DporAg
        && config.targets.is_none()
        && config.context.is_none()
}

/// What a store access cost.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct StoreIo {
    pub bytes: usize,
    pub ms: f64,
}

/// The largest record `write` stores. Summaries of a long search can run to hundreds of
/// megabytes (a 7,200-step run of queue_ok_longer: 440 MB), which cost more to write and
/// read back than re-verifying saves; such a record is not written.
pub const MAX_RECORD_BYTES: usize = 64 << 20;

/// The error for a record of `summaries` summaries over [`MAX_RECORD_BYTES`].
pub fn over_limit(summaries: usize) -> anyhow::Error {
    anyhow::anyhow!(
        "the record is over the store's limit of {} MiB ({summaries} summaries)",
        MAX_RECORD_BYTES >> 20
    )
}

/// Writes `summaries` as the record `key`, unless its formulas exceed
/// [`MAX_RECORD_BYTES`] (an error saying so; nothing is written).
pub fn write(at: &Location, key: &str, summaries: &[CarriedSummary]) -> Result<StoreIo> {
    let started = Instant::now();
    let mut stored = Vec::with_capacity(summaries.len());
    let mut size = 0usize;
    for s in summaries {
        let formula = Carried::encode(s);
        size += formula.len() + carry::stored_key_size(s);
        if size > MAX_RECORD_BYTES {
            return Err(over_limit(summaries.len()));
        }
        stored.push(StoredSummary {
            node: s.key.clone(),
            formula,
        });
    }
    let mut store = Store::open(at)?;
    let record = Record {
        meta: Meta::current(AGX_VERSION, key),
        summaries: stored,
    };
    let bytes = store.write(&record)?;
    // Closing is part of the cost (SQLite may checkpoint its journal then).
    drop(store);
    Ok(StoreIo {
        bytes,
        ms: started.elapsed().as_secs_f64() * 1000.0,
    })
}

/// The outcome of reading a record.
pub enum Read {
    /// The summaries by key, their formulas still as stored text ([`Carried::Text`]).
    Found(Vec<(Vec<u64>, Carried)>),
    /// Nothing stored, or a record that cannot be trusted (the reason).
    Unusable(String),
}

/// Reads the record `key`. The record's checksum and meta are checked here; each
/// summary's formula is decoded only when the new search meets its key.
pub fn read(at: &Location, key: &str) -> Result<(Read, StoreIo)> {
    let started = Instant::now();
    let mut store = Store::open(at)?;
    let lookup = store.read(AGX_VERSION, key)?;
    drop(store);
    let mut bytes = 0;
    let read = match lookup {
        Lookup::Missing => Read::Unusable("no record of the old version".into()),
        Lookup::Ignored(why) => Read::Unusable(format!("the old version's record: {why}")),
        Lookup::Found(r) => Read::Found(
            r.summaries
                .into_iter()
                .map(|s| {
                    bytes += s.formula.len() + 8 * s.node.len();
                    (s.node, Carried::Text(s.formula))
                })
                .collect(),
        ),
    };
    Ok((
        read,
        StoreIo {
            bytes,
            ms: started.elapsed().as_secs_f64() * 1000.0,
        },
    ))
}

/// What the new search imports from the old version, and what the report says of it.
/// With both versions' Type B slices, changes outside them are harmless
/// (`explorer::symbolic::carry`'s module doc).
pub fn import(
    old: &Program,
    new: &Program,
    summaries: Vec<(Vec<u64>, Carried)>,
    slices: Option<Slices<'_>>,
) -> Imported {
    let diff = diff_programs(old, new);
    let trusted = carry::trusted_fingerprints(old, new, &diff);
    let changes = Changes::between(old, new, &diff, slices);
    let summaries: HashMap<Vec<u64>, Carried> = summaries.into_iter().collect();
    Imported {
        summaries,
        changes,
        trusted: Some(trusted),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--since` finds OLD's record without computing OLD's Type B slice, so the key must
    /// not depend on it (the slice is a function of the program and `slice`, both keyed).
    #[test]
    fn the_record_key_does_not_need_the_type_b_slice() {
        let path = std::env::temp_dir().join(format!("agx-key-{}.c", std::process::id()));
        std::fs::write(&path, "int x;\nint main(void) { x = 1; return x; }\n").unwrap();
        let program = analysis::load_program(&path, &Default::default());
        let _ = std::fs::remove_file(&path);
        let program = program.expect("the test program lowers");
        let unsliced = Config::default();
        let mut sliced = Config::default();
        sliced.relevant = Some(Default::default());
        assert_eq!(
            record_key(&program, &unsliced),
            record_key(&program, &sliced)
        );
        let mut other_options = Config::default();
        other_options.unwind = Some(unsliced.unwind.map_or(3, |u| u + 1));
        assert_ne!(
            record_key(&program, &unsliced),
            record_key(&program, &other_options)
        );
    }

    #[test]
    fn a_record_over_the_limit_is_not_written() {
        let d = tempfile::tempdir().unwrap();
        let at = Location::File(d.path().join("summaries.sqlite3"));
        let huge = CarriedSummary {
            key: vec![0; MAX_RECORD_BYTES / 8 + 1],
            formula: Vec::new(),
            accesses: Vec::new(),
            sleep: Vec::new(),
        };
        let err = write(&at, "k", &[huge]).expect_err("over the limit");
        assert!(err.to_string().contains("over the store's limit"), "{err}");
        assert!(!d.path().join("summaries.sqlite3").exists());
        let small = CarriedSummary {
            key: vec![1, 2, 3],
            formula: Vec::new(),
            accesses: Vec::new(),
            sleep: Vec::new(),
        };
        assert!(write(&at, "k", &[small]).expect("written").bytes > 0);
    }

    #[test]
    fn a_read_keeps_formulas_as_text_that_decodes_to_what_was_written() {
        use explorer::symbolic::carry::{SEvent, SLoc, SNode, SSleeper};
        let d = tempfile::tempdir().unwrap();
        let at = Location::File(d.path().join("summaries.sqlite3"));
        let written = vec![
            CarriedSummary {
                key: vec![1, 2],
                formula: vec![SNode::Bv(32, 7), SNode::Bool(true), SNode::Not(1)],
                accesses: Vec::new(),
                // Stored with the sleep set it is relative to.
                sleep: vec![SSleeper {
                    thread: vec![0],
                    event: vec![SEvent {
                        loc: SLoc::All,
                        write: true,
                        role: 0,
                    }],
                }],
            },
            CarriedSummary {
                key: vec![3],
                formula: vec![SNode::Bool(false)],
                accesses: Vec::new(),
                sleep: Vec::new(),
            },
        ];
        write(&at, "k", &written).expect("written");
        let (Read::Found(read), _) = read(&at, "k").expect("read") else {
            panic!("the record was written");
        };
        assert_eq!(read.len(), written.len());
        for ((key, carried), w) in read.iter().zip(&written) {
            assert!(matches!(carried, Carried::Text(_)), "not decoded on read");
            assert_eq!(carried.decode(key).as_deref(), Some(w));
        }
        // A text that does not decode gives no summary (never a wrong one).
        assert_eq!(Carried::Text("[1]".into()).decode(&[1]), None);
    }

    #[test]
    fn project_dir_is_the_nearest_marked_ancestor() {
        let d = tempfile::tempdir().unwrap();
        let sub = d.path().join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::create_dir_all(d.path().join("a/.agx")).unwrap();
        let found = project_dir(&sub.join("p.c"));
        assert_eq!(found, d.path().join("a").canonicalize().unwrap());
    }

    #[test]
    fn a_program_outside_any_project_uses_the_current_directory() {
        let d = tempfile::tempdir().unwrap();
        let unmarked = d
            .path()
            .ancestors()
            .all(|a| !a.join(".agx").exists() && !a.join(".git").exists());
        if unmarked {
            assert_eq!(
                project_dir(&d.path().join("p.c")),
                std::env::current_dir().unwrap()
            );
        }
    }
}
