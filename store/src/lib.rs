//! The summary store: what one `agx verify` learned about a program (the dpor+ag search's
//! predicate summaries), kept for `agx verify NEW --since OLD` to reuse.
//!
//! One [`Record`] per program, found by the program's fingerprint (a hash of its lowered
//! IR, computed by the caller) and replaced by each later write. A record carries its
//! [`Meta`] — store schema, agx version, program fingerprint — and is stored as JSON with
//! a SHA-256 checksum. A read returns [`Lookup::Ignored`] with the reason for a record of
//! another schema or agx version (stale), of another program (foreign) or whose checksum
//! does not match (damaged): such a record is never trusted, only overwritten.
//!
//! Backends ([`Location`]):
//! - **SQLite** (default; `.agx/summaries.sqlite3` in the project): one file, WAL journal,
//!   each write one `BEGIN IMMEDIATE` transaction with a busy timeout, so two agx
//!   processes writing at once serialize, and a process killed mid-write leaves the last
//!   committed state (SQLite's journal rolls the torn transaction back on the next open).
//! - **Redis** (`redis://HOST:PORT`): one key per program, written with one `SET`, which
//!   Redis applies atomically: concurrent writers leave one whole record, a killed writer
//!   none or one.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The layout of [`Record`]; a record of another schema is stale.
pub const SCHEMA: u32 = 2;

/// The default store file, relative to the project directory.
pub const DEFAULT_FILE: &str = ".agx/summaries.sqlite3";

/// What a record is about and who wrote it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meta {
    pub schema: u32,
    pub agx_version: String,
    /// The fingerprint of the program the summaries were learned on.
    pub program: String,
}

impl Meta {
    /// The meta of a record this agx writes for `program`.
    pub fn current(agx_version: &str, program: &str) -> Meta {
        Meta {
            schema: SCHEMA,
            agx_version: agx_version.to_string(),
            program: program.to_string(),
        }
    }
}

/// One summary: the node it holds at, in a form stable across program versions, and its
/// formula in a stable text form (both defined by the explorer).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredSummary {
    pub node: Vec<u64>,
    pub formula: String,
}

/// Everything stored about one program.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub meta: Meta,
    pub summaries: Vec<StoredSummary>,
}

/// The result of a read.
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup {
    Found(Record),
    /// No record for the program.
    Missing,
    /// A record was there but cannot be trusted (the reason says why).
    Ignored(String),
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("summary store {at}: {source}")]
    Sqlite {
        at: String,
        #[source]
        source: rusqlite::Error,
    },
    #[error("summary store {at}: {source}")]
    Redis {
        at: String,
        #[source]
        source: redis::RedisError,
    },
    #[error("summary store {at}: {source}")]
    Io {
        at: String,
        #[source]
        source: std::io::Error,
    },
    #[error("summary store: `{0}` is neither a file path nor redis://HOST:PORT")]
    BadLocation(String),
}

/// Where the store is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    File(PathBuf),
    Redis(String),
}

impl Location {
    /// `redis://...` (or `rediss://`) is a Redis server, anything else a file path.
    pub fn parse(spec: &str) -> Result<Location, StoreError> {
        if spec.is_empty() {
            return Err(StoreError::BadLocation(spec.into()));
        }
        if spec.starts_with("redis://") || spec.starts_with("rediss://") {
            return Ok(Location::Redis(spec.into()));
        }
        if spec.contains("://") {
            return Err(StoreError::BadLocation(spec.into()));
        }
        Ok(Location::File(PathBuf::from(spec)))
    }

    /// The default store of the project in `dir`.
    pub fn default_in(dir: &Path) -> Location {
        Location::File(dir.join(DEFAULT_FILE))
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::File(p) => write!(f, "{}", p.display()),
            Location::Redis(url) => write!(f, "{url}"),
        }
    }
}

/// An open store.
pub struct Store {
    at: Location,
    backend: Backend,
}

enum Backend {
    Sqlite(rusqlite::Connection),
    Redis(redis::Connection),
}

/// How long a writer waits for another one before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

impl Store {
    /// Opens (creating when needed) the store at `at`.
    pub fn open(at: &Location) -> Result<Store, StoreError> {
        let backend = match at {
            Location::File(path) => Backend::Sqlite(open_sqlite(path)?),
            Location::Redis(url) => Backend::Redis(open_redis(url)?),
        };
        Ok(Store {
            at: at.clone(),
            backend,
        })
    }

    pub fn location(&self) -> &Location {
        &self.at
    }

    /// Writes `record`, replacing any record of its program. Returns the bytes written.
    pub fn write(&mut self, record: &Record) -> Result<usize, StoreError> {
        let payload = serde_json::to_vec(record).expect("records serialize");
        let checksum = checksum(&payload);
        let at = self.at.to_string();
        match &mut self.backend {
            Backend::Sqlite(c) => {
                let sql = |source| StoreError::Sqlite {
                    at: at.clone(),
                    source,
                };
                let tx = c
                    .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                    .map_err(sql)?;
                tx.execute(
                    "INSERT OR REPLACE INTO records (program, checksum, payload) \
                     VALUES (?1, ?2, ?3)",
                    rusqlite::params![record.meta.program, checksum, payload],
                )
                .map_err(sql)?;
                tx.commit().map_err(sql)?;
            }
            Backend::Redis(c) => {
                let mut value = checksum.into_bytes();
                value.push(b'\n');
                value.extend_from_slice(&payload);
                redis::cmd("SET")
                    .arg(redis_key(&record.meta.program))
                    .arg(value)
                    .exec(c)
                    .map_err(|source| StoreError::Redis { at, source })?;
            }
        }
        Ok(payload.len())
    }

    /// Reads the record of `program` as written by `agx_version`.
    pub fn read(&mut self, agx_version: &str, program: &str) -> Result<Lookup, StoreError> {
        let at = self.at.to_string();
        let raw: Option<(String, Vec<u8>)> = match &mut self.backend {
            Backend::Sqlite(c) => {
                let mut q = c
                    .prepare_cached("SELECT checksum, payload FROM records WHERE program = ?1")
                    .map_err(|source| StoreError::Sqlite {
                        at: at.clone(),
                        source,
                    })?;
                let mut rows = q
                    .query_map([program], |r| Ok((r.get(0)?, r.get(1)?)))
                    .map_err(|source| StoreError::Sqlite {
                        at: at.clone(),
                        source,
                    })?;
                rows.next()
                    .transpose()
                    .map_err(|source| StoreError::Sqlite { at, source })?
            }
            Backend::Redis(c) => {
                let value: Option<Vec<u8>> = redis::cmd("GET")
                    .arg(redis_key(program))
                    .query(c)
                    .map_err(|source| StoreError::Redis { at, source })?;
                value.map(|v| match v.iter().position(|&b| b == b'\n') {
                    Some(i) => (
                        String::from_utf8_lossy(&v[..i]).into_owned(),
                        v[i + 1..].to_vec(),
                    ),
                    None => (String::new(), v),
                })
            }
        };
        let Some((sum, payload)) = raw else {
            return Ok(Lookup::Missing);
        };
        Ok(check(&sum, &payload, agx_version, program))
    }
}

/// Decodes a stored record, or says why it cannot be trusted.
fn check(sum: &str, payload: &[u8], agx_version: &str, program: &str) -> Lookup {
    if checksum(payload) != sum {
        return Lookup::Ignored("damaged: checksum mismatch".into());
    }
    let record: Record = match serde_json::from_slice(payload) {
        Ok(r) => r,
        Err(e) => return Lookup::Ignored(format!("unreadable: {e}")),
    };
    let m = &record.meta;
    if m.schema != SCHEMA {
        return Lookup::Ignored(format!(
            "stale: store schema {} (this agx: {SCHEMA})",
            m.schema
        ));
    }
    if m.agx_version != agx_version {
        return Lookup::Ignored(format!(
            "stale: written by agx {} (this is {agx_version})",
            m.agx_version
        ));
    }
    if m.program != program {
        return Lookup::Ignored(format!("foreign: a record of program {}", m.program));
    }
    Lookup::Found(record)
}

fn checksum(payload: &[u8]) -> String {
    format!("{:x}", Sha256::digest(payload))
}

fn redis_key(program: &str) -> String {
    format!("agx:summaries:{program}")
}

fn open_sqlite(path: &Path) -> Result<rusqlite::Connection, StoreError> {
    let at = path.display().to_string();
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| StoreError::Io {
            at: at.clone(),
            source,
        })?;
    }
    let sql = |source| StoreError::Sqlite {
        at: at.clone(),
        source,
    };
    let c = rusqlite::Connection::open(path).map_err(sql)?;
    c.busy_timeout(BUSY_TIMEOUT).map_err(sql)?;
    retry_while_busy(|| set_up_sqlite(&c)).map_err(sql)?;
    Ok(c)
}

/// WAL mode and the schema, once per file. WAL: readers never block the writer; a commit
/// is one append, durable at NORMAL against a process crash (the WAL is replayed or
/// discarded on the next open). The table is created in an IMMEDIATE transaction so that
/// no read lock has to be upgraded.
fn set_up_sqlite(c: &rusqlite::Connection) -> rusqlite::Result<()> {
    let mode: String = c.query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        c.pragma_update(None, "journal_mode", "WAL")?;
    }
    c.pragma_update(None, "synchronous", "NORMAL")?;
    c.execute_batch(
        "BEGIN IMMEDIATE;
         CREATE TABLE IF NOT EXISTS records (
             program TEXT PRIMARY KEY,
             checksum TEXT NOT NULL,
             payload BLOB NOT NULL
         );
         COMMIT;",
    )
    .inspect_err(|_| {
        let _ = c.execute_batch("ROLLBACK");
    })
}

/// Runs `step` again while SQLite answers BUSY or LOCKED, up to [`BUSY_TIMEOUT`]. SQLite
/// does not call its busy handler where waiting could deadlock (a journal-mode change
/// while another connection opens the same new file, a read lock upgraded to a write
/// lock), so two agx processes creating one store at once see `database is locked` at
/// once; the loser waits here instead.
fn retry_while_busy<T>(mut step: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let start = std::time::Instant::now();
    let mut pause = Duration::from_millis(2);
    loop {
        match step() {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if matches!(
                    e.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) && start.elapsed() < BUSY_TIMEOUT =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(100));
            }
            other => return other,
        }
    }
}

fn open_redis(url: &str) -> Result<redis::Connection, StoreError> {
    let err = |source| StoreError::Redis {
        at: url.to_string(),
        source,
    };
    let client = redis::Client::open(url).map_err(err)?;
    client
        .get_connection_with_timeout(Duration::from_secs(5))
        .map_err(err)
}

/// `PRAGMA integrity_check` of a SQLite store: `"ok"` when sound (for tests and doctors).
pub fn sqlite_integrity(path: &Path) -> Result<String, StoreError> {
    let sql = |source| StoreError::Sqlite {
        at: path.display().to_string(),
        source,
    };
    let c = rusqlite::Connection::open(path).map_err(sql)?;
    c.busy_timeout(BUSY_TIMEOUT).map_err(sql)?;
    c.query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .map_err(sql)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn record(program: &str, n: usize) -> Record {
        Record {
            meta: Meta::current("0.1.0", program),
            summaries: (0..n)
                .map(|i| StoredSummary {
                    node: vec![i as u64, 7],
                    formula: format!("(bvslt (input 0 0 32) #x{i:08x})"),
                })
                .collect(),
        }
    }

    fn open_temp() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&Location::default_in(dir.path())).unwrap();
        (dir, store)
    }

    #[test]
    fn round_trip_and_replace() {
        let (_d, mut s) = open_temp();
        assert_eq!(s.read("0.1.0", "p1").unwrap(), Lookup::Missing);
        s.write(&record("p1", 3)).unwrap();
        s.write(&record("p2", 1)).unwrap();
        assert_eq!(
            s.read("0.1.0", "p1").unwrap(),
            Lookup::Found(record("p1", 3))
        );
        s.write(&record("p1", 5)).unwrap();
        assert_eq!(
            s.read("0.1.0", "p1").unwrap(),
            Lookup::Found(record("p1", 5))
        );
        assert_eq!(
            s.read("0.1.0", "p2").unwrap(),
            Lookup::Found(record("p2", 1))
        );
    }

    #[test]
    fn stale_and_foreign_records_are_ignored() {
        let (_d, mut s) = open_temp();
        s.write(&record("p1", 2)).unwrap();
        assert!(
            matches!(s.read("0.2.0", "p1").unwrap(), Lookup::Ignored(r) if r.starts_with("stale"))
        );
        let mut old_schema = record("p3", 1);
        old_schema.meta.schema = SCHEMA + 1;
        s.write(&old_schema).unwrap();
        assert!(
            matches!(s.read("0.1.0", "p3").unwrap(), Lookup::Ignored(r) if r.contains("schema"))
        );
        // A record filed under one program that claims another.
        let payload = serde_json::to_vec(&record("other", 1)).unwrap();
        assert!(matches!(
            check(&checksum(&payload), &payload, "0.1.0", "p9"),
            Lookup::Ignored(r) if r.starts_with("foreign")
        ));
    }

    #[test]
    fn damaged_record_is_ignored() {
        let (dir, mut s) = open_temp();
        s.write(&record("p1", 2)).unwrap();
        drop(s);
        let c = rusqlite::Connection::open(dir.path().join(DEFAULT_FILE)).unwrap();
        c.execute(
            "UPDATE records SET payload = CAST('{\"meta\":1}' AS BLOB) WHERE program = 'p1'",
            [],
        )
        .unwrap();
        drop(c);
        let mut s = Store::open(&Location::default_in(dir.path())).unwrap();
        assert!(
            matches!(s.read("0.1.0", "p1").unwrap(), Lookup::Ignored(r) if r.starts_with("damaged"))
        );
    }

    #[test]
    fn locations_parse() {
        assert_eq!(
            Location::parse("redis://127.0.0.1:6379").unwrap(),
            Location::Redis("redis://127.0.0.1:6379".into())
        );
        assert_eq!(
            Location::parse("x/s.db").unwrap(),
            Location::File("x/s.db".into())
        );
        assert!(Location::parse("memcache://h:1").is_err());
        assert!(Location::parse("").is_err());
    }
}
