//! Replaying the witness of an `agx verify --format json` report with `agx run --witness`.

use super::{agx_bin, agx_schema, process, shown};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// Checks `out["witness"]` against the agx-witness schema, writes it to a temporary file named after `tag` and `line`, runs
/// `agx run FILE --witness W` from `root`, removes the file, and returns the run for the
/// caller to judge (a replayed violation exits with 1 and names its line on stderr).
pub fn replay(
    root: &Path,
    file: &Path,
    out: &Value,
    tag: &str,
    line: u64,
    limit: Duration,
) -> Result<process::Finished, String> {
    agx_schema::assert_witness(&out["witness"], &format!("{tag} witness of line {line}"));
    let dir = std::env::temp_dir().join(format!("agx-{tag}-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("w");
    let witness = dir.join(format!("{stem}-{line}.json"));
    std::fs::write(&witness, out["witness"].to_string()).map_err(|e| e.to_string())?;
    let args = vec![
        "run".to_string(),
        shown(file),
        "--witness".to_string(),
        witness.display().to_string(),
    ];
    let run = process::run(&agx_bin(), &args, root, limit);
    let _ = std::fs::remove_file(&witness);
    Ok(run)
}
