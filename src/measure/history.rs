//! Runs, not a run: every record `verify` (or `records import`) writes is also kept,
//! signed, as `measurements/<id>/records/history/<node>/<capture time>.json` (+ `.sig`).
//! The latest stays at `records/<node>.json`, where tables cite it; claims must hold on
//! every kept run of the current experiment (`measure::claims`).
//!
//! History files are read as hostile: only regular files whose names are capture times
//! (digits, `T`, `.`, `Z`) ending `.json`, at most [`MAX_RUNS`] per node and
//! [`MAX_RUN_BYTES`] each; each must carry the node's signature and be a record of this
//! experiment on this node. A run of an earlier version of the experiment (another digest)
//! is kept on disk but not held to today's claims.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};

use crate::atomic::{write_file, Durability};
use crate::error::{Error, Result};

use super::record::Record;

pub const HISTORY_DIR: &str = "history";
/// More runs than any node makes of one experiment: a folder past this is refused.
pub const MAX_RUNS: usize = 1000;
/// A record of the largest sweep is a few MiB; anything past this is not one.
pub const MAX_RUN_BYTES: u64 = 64 << 20;

/// `records/history/<node>/`.
pub fn node_dir(records_dir: &Path, node: &str) -> PathBuf {
    records_dir.join(HISTORY_DIR).join(node)
}

/// The file name of a run captured at `at`: `20261201T101530.123Z.json`, which sorts by
/// time.
pub fn run_file_name(at: DateTime<Utc>) -> String {
    format!("{}.json", at.format("%Y%m%dT%H%M%S%.3fZ"))
}

fn is_run_file_name(name: &str) -> bool {
    name.strip_suffix(".json").is_some_and(|stem| {
        !stem.is_empty()
            && stem.len() <= 32
            && stem
                .bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'T' | b'.' | b'Z'))
    })
}

/// Keep `bytes` (a record captured at `at`) and its signature as a run in the history.
/// The same bytes already kept are left as they are.
pub fn keep(
    records_dir: &Path,
    node: &str,
    at: DateTime<Utc>,
    bytes: &[u8],
    sig: &str,
) -> Result<PathBuf> {
    let path = node_dir(records_dir, node).join(run_file_name(at));
    if std::fs::read(&path).is_ok_and(|b| b == bytes) {
        return Ok(path);
    }
    write_file(&path, bytes, Durability::Synced)?;
    write_file(
        &crate::trust::node::signature_path(&path),
        sig.as_bytes(),
        Durability::Synced,
    )?;
    Ok(path)
}

/// One kept run as read from disk.
#[derive(Debug)]
pub struct Run {
    pub path: PathBuf,
    /// sha256 of the file's bytes.
    pub digest: String,
    pub state: RunState,
}

#[derive(Debug)]
pub enum RunState {
    /// Signed by the node, of this experiment as it is now: held to its claims.
    Kept(Arc<Record>),
    /// Signed, but of an earlier version of the experiment (its digest).
    OtherVersion(Arc<Record>),
    /// Not usable, and why: claims citing the record are refused until it is removed or
    /// fixed (a run that cannot be trusted cannot be ignored either).
    Bad(String),
}

impl Run {
    /// The record when it is held to today's claims, None when it is of another version,
    /// Err why it cannot be read or trusted.
    pub fn kept(&self) -> std::result::Result<Option<&Record>, &str> {
        match &self.state {
            RunState::Kept(r) => Ok(Some(r)),
            RunState::OtherVersion(_) => Ok(None),
            RunState::Bad(why) => Err(why),
        }
    }

    pub fn record(&self) -> Option<&Arc<Record>> {
        match &self.state {
            RunState::Kept(r) | RunState::OtherVersion(r) => Some(r),
            RunState::Bad(_) => None,
        }
    }

    /// `2026-12-01 10:15:30 UTC (history/h200/20261201T101530.000Z.json)`.
    pub fn name(&self) -> String {
        let file = self
            .path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        match self.record() {
            Some(r) => format!(
                "captured {} ({file})",
                r.captured_at.format("%Y-%m-%d %H:%M:%S UTC")
            ),
            None => file,
        }
    }
}

/// `(bytes, signature text, signature path, parsed record)` -> Ok, or why not trusted.
pub type TrustCheck<'a> =
    dyn Fn(&[u8], Option<&str>, &Path, &Record) -> std::result::Result<(), String> + 'a;

/// What makes a run trustworthy besides its bytes: checked by the caller, which knows the
/// node's key and profile.
pub struct RunCheck<'a> {
    pub experiment: &'a str,
    pub node: &'a str,
    pub spec_digest: &'a str,
    /// The node's signature on the bytes (`Err` why not) and whether the record is of
    /// the node's GPU (`Err` what it is instead).
    pub trust: &'a TrustCheck<'a>,
}

/// Every run kept for `node`, oldest first; `skip` is the latest record's digest (the
/// newest run is a copy of it). A folder that cannot be listed is an empty history.
pub fn load(records_dir: &Path, check: &RunCheck<'_>, skip: Option<&str>) -> Vec<Run> {
    let dir = node_dir(records_dir, check.node);
    let Ok(read) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<(PathBuf, std::fs::Metadata)> = Vec::new();
    let mut runs = Vec::new();
    for entry in read.filter_map(|e| e.ok()) {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".json.sig") {
            continue;
        }
        // symlink_metadata: a link is not a run, wherever it points.
        let meta = std::fs::symlink_metadata(&path);
        match meta {
            Ok(m) if m.is_file() && is_run_file_name(&name) => files.push((path, m)),
            _ => runs.push(Run {
                path,
                digest: String::new(),
                state: RunState::Bad(
                    "not a run: history holds only <capture time>.json files and their .sig".into(),
                ),
            }),
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    if files.len() > MAX_RUNS {
        return vec![Run {
            path: dir,
            digest: String::new(),
            state: RunState::Bad(format!(
                "{} runs kept, more than the {MAX_RUNS} a history may hold",
                files.len()
            )),
        }];
    }
    for (path, meta) in files {
        let state = if meta.len() > MAX_RUN_BYTES {
            RunState::Bad(format!("larger than {MAX_RUN_BYTES} bytes"))
        } else {
            match std::fs::read(&path) {
                Err(e) => RunState::Bad(format!("unreadable: {e}")),
                Ok(bytes) => {
                    let digest = format!("sha256:{}", hex::encode(Sha256::digest(&bytes)));
                    if skip == Some(digest.as_str()) {
                        continue;
                    }
                    let state = judge_run(&path, &bytes, check);
                    runs.push(Run {
                        path,
                        digest,
                        state,
                    });
                    continue;
                }
            }
        };
        runs.push(Run {
            path,
            digest: String::new(),
            state,
        });
    }
    runs
}

fn judge_run(path: &Path, bytes: &[u8], check: &RunCheck<'_>) -> RunState {
    let record: Record = match serde_json::from_slice(bytes) {
        Ok(r) => r,
        Err(e) => return RunState::Bad(format!("does not parse: {e}")),
    };
    if record.experiment != check.experiment || record.node != check.node {
        return RunState::Bad(format!(
            "a record of {}/{}, not {}/{}",
            record.experiment, record.node, check.experiment, check.node
        ));
    }
    let sig_path = crate::trust::node::signature_path(path);
    let sig = crate::trust::node::read_signature(&sig_path);
    if let Err(why) = (check.trust)(bytes, sig.as_deref(), &sig_path, &record) {
        return RunState::Bad(why);
    }
    let record = Arc::new(record);
    if record.spec_digest == check.spec_digest {
        RunState::Kept(record)
    } else {
        RunState::OtherVersion(record)
    }
}

/// Every run of `experiment`'s records dir for `node`, for `glossary records history`:
/// the history, and the latest record when no history run has its bytes.
pub fn all_runs(records_dir: &Path, latest: &Path, check: &RunCheck<'_>) -> Result<Vec<Run>> {
    let mut runs = load(records_dir, check, None);
    if let Ok(bytes) = std::fs::read(latest) {
        let digest = format!("sha256:{}", hex::encode(Sha256::digest(&bytes)));
        if !runs.iter().any(|r| r.digest == digest) {
            let state = judge_run(latest, &bytes, check);
            runs.push(Run {
                path: latest.to_path_buf(),
                digest,
                state,
            });
        }
    } else if runs.is_empty() {
        return Err(Error::Other(format!(
            "no record at {} and no history at {}",
            latest.display(),
            node_dir(records_dir, check.node).display()
        )));
    }
    runs.sort_by_key(|r| r.record().map(|r| r.captured_at));
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_names_are_capture_times_and_nothing_else() {
        let at = DateTime::parse_from_rfc3339("2026-12-01T10:15:30.123Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(run_file_name(at), "20261201T101530.123Z.json");
        assert!(is_run_file_name(&run_file_name(at)));
        for bad in [
            "../h200.json",
            "a.json",
            ".json",
            "20261201T101530Z.json.sig",
            "x",
        ] {
            assert!(!is_run_file_name(bad), "{bad}");
        }
    }
}
