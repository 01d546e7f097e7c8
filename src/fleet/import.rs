//! `glossary records import`: take records that verify wrote elsewhere (a Slurm task's
//! output folder, a CI artifact) into `measurements/<id>/records/<node>.json`, each only
//! after it is checked: well-formed, from the node its name says, from that node's GPU,
//! measured on the experiment as it is now, and no older than the record it replaces.
//! The checked bytes are the bytes written, through a temporary file and a rename, so a
//! crash leaves either the old record or the new one; half-written and failed outputs are
//! refused by name before anything is read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::Utc;
use serde::Serialize;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::measure::record::{Record, RECORD_SCHEMA};
use crate::measure::Library;
use crate::trust::People;

/// What became of one file found under the folders given.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum Verdict {
    /// Checked and moved into place (or, with `check_only`, would be).
    Imported { to: PathBuf },
    /// The same bytes are already in place; the copy was left where it was.
    Unchanged { at: PathBuf },
    /// Not imported, for these reasons; the file was left where it was.
    Refused { reasons: Vec<String> },
}

#[derive(Debug, Clone, Serialize)]
pub struct FileVerdict {
    pub path: PathBuf,
    /// (experiment, node) when the file parsed far enough to say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub experiment: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    #[serde(flatten)]
    pub verdict: Verdict,
}

#[derive(Debug, Clone, Serialize)]
pub struct ImportReport {
    pub files: Vec<FileVerdict>,
    /// Things that went wrong after a record was in place (its source not removed).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl ImportReport {
    pub fn refused(&self) -> usize {
        self.files
            .iter()
            .filter(|f| matches!(f.verdict, Verdict::Refused { .. }))
            .count()
    }
    pub fn imported(&self) -> usize {
        self.files
            .iter()
            .filter(|f| matches!(f.verdict, Verdict::Imported { .. }))
            .count()
    }
}

/// Names that are never a finished record: tempfile's `.tmpXXXX`, editors' and
/// downloaders' partial files, and a failed run's report.
fn unfinished(name: &str) -> Option<&'static str> {
    if name.starts_with(".tmp")
        || name.ends_with(".tmp")
        || name.ends_with(".part")
        || name.ends_with(".partial")
    {
        Some("a temporary file: a write that did not finish")
    } else if name.ends_with(".failed.json") {
        Some("a failed run's output, not a record")
    } else {
        None
    }
}

/// Every file under `dirs` that import has a verdict on: record candidates (`*.json`)
/// and unfinished files. Other files (task logs, job scripts) are not records and are
/// passed over.
fn candidates(dirs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for dir in dirs {
        if !dir.is_dir() {
            return Err(Error::Other(format!(
                "{}: not a folder (import takes the folders verify wrote to)",
                dir.display()
            )));
        }
        for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
            let entry = entry.map_err(|e| Error::Other(format!("{}: {e}", dir.display())))?;
            if entry.file_type().is_dir() {
                continue;
            }
            let name = entry.file_name().to_string_lossy();
            if name.ends_with(".json") || unfinished(&name).is_some() {
                found.push(entry.into_path());
            }
        }
    }
    Ok(found)
}

/// A file that passed every check, waiting to be moved.
struct Accepted {
    path: PathBuf,
    bytes: Vec<u8>,
    /// The node's signature that came with it (`<file>.sig`), moved in beside it.
    signature: String,
    to: PathBuf,
}

/// Check every file under `dirs`, then (unless `check_only`) move each accepted record
/// into `measurements/`. Refusals do not stop the others; the report lists them all.
pub fn import(
    config: &Config,
    library: &Library,
    people: &People,
    dirs: &[PathBuf],
    check_only: bool,
) -> Result<ImportReport> {
    import_files(
        config,
        library,
        people,
        candidates(dirs)?,
        Source::Fleet,
        check_only,
    )
}

/// Where the files of an import come from, which decides what must be true of their node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Source {
    /// Folders verify wrote on the project's own nodes (or contributed ones, checked as
    /// contributed).
    Fleet,
    /// A reader's contribution (`glossary reproduce`): its node must be a contributed one.
    Contributed,
}

/// `records import --contributed FILE...`: each file a record `glossary reproduce` wrote
/// (its `.sig` beside it), checked as any import checks it and, in addition, from a node
/// profile the maintainer added for that contributor (`trust::contributed`).
pub fn import_contributed(
    config: &Config,
    library: &Library,
    people: &People,
    files: &[PathBuf],
    check_only: bool,
) -> Result<ImportReport> {
    import_files(
        config,
        library,
        people,
        files.to_vec(),
        Source::Contributed,
        check_only,
    )
}

fn import_files(
    config: &Config,
    library: &Library,
    people: &People,
    files: Vec<PathBuf>,
    source: Source,
    check_only: bool,
) -> Result<ImportReport> {
    let mut verdicts: Vec<FileVerdict> = Vec::new();
    let mut accepted: BTreeMap<(String, String), Vec<(usize, Accepted)>> = BTreeMap::new();
    for path in files {
        let mut v = FileVerdict {
            path: path.clone(),
            experiment: None,
            node: None,
            verdict: Verdict::Refused { reasons: vec![] },
        };
        match check(config, library, people, source, &path) {
            Err(reasons) => v.verdict = Verdict::Refused { reasons },
            Ok(checked) => {
                v.experiment = Some(checked.record.experiment.clone());
                v.node = Some(checked.record.node.clone());
                let to = library.experiments[&checked.record.experiment]
                    .record_path(&checked.record.node);
                match newest_in_place(&to, &checked) {
                    Ok(None) => v.verdict = Verdict::Unchanged { at: to },
                    Err(why) => v.verdict = Verdict::Refused { reasons: vec![why] },
                    Ok(Some(())) => {
                        let key = (
                            checked.record.experiment.clone(),
                            checked.record.node.clone(),
                        );
                        accepted.entry(key).or_default().push((
                            verdicts.len(),
                            Accepted {
                                path: path.clone(),
                                bytes: checked.bytes,
                                signature: checked.signature,
                                to: to.clone(),
                            },
                        ));
                        v.verdict = Verdict::Imported { to };
                    }
                }
            }
        }
        verdicts.push(v);
    }
    let mut warnings = Vec::new();
    for ((experiment, node), group) in accepted {
        if group.len() > 1 {
            // Two runs of one pair in one import: which is right is a person's call.
            let names: Vec<String> = group
                .iter()
                .map(|(_, a)| a.path.display().to_string())
                .collect();
            for (i, _) in &group {
                verdicts[*i].verdict = Verdict::Refused {
                    reasons: vec![format!(
                        "{} records of {experiment} on {node} in this import ({}); import one",
                        group.len(),
                        names.join(", ")
                    )],
                };
            }
            continue;
        }
        if check_only {
            continue;
        }
        let (i, a) = &group[0];
        match move_into_place(a) {
            Err(e) => {
                verdicts[*i].verdict = Verdict::Refused {
                    reasons: vec![format!("could not move it into place: {e}")],
                }
            }
            Ok(()) => {
                // The record is in place; a copy left behind is only untidy.
                let _ = std::fs::remove_file(crate::trust::node::signature_path(&a.path));
                if let Err(e) = std::fs::remove_file(&a.path) {
                    warnings.push(format!(
                        "{}: imported, but not removed: {e}",
                        a.path.display()
                    ));
                }
            }
        }
    }
    Ok(ImportReport {
        files: verdicts,
        warnings,
    })
}

/// Whether `checked` may take the place of the record at `to`: Ok(None) when those are its
/// very bytes, Ok(Some(())) when it was captured after the record in place and after every
/// run kept in the history, else why not. A record in place that cannot be read or parsed
/// is not replaced either: what it held cannot be compared, so it may be the newer.
fn newest_in_place(to: &Path, checked: &Checked) -> std::result::Result<Option<()>, String> {
    let at = |t: chrono::DateTime<Utc>| t.format("%Y-%m-%d %H:%M:%S%.3f UTC").to_string();
    let new = checked.record.captured_at;
    match read_bounded(to, MAX_RECORD_BYTES) {
        Ok(old) if old == checked.bytes => return Ok(None),
        Ok(old) => {
            let old: Record = serde_json::from_slice(&old).map_err(|e| {
                format!(
                    "the record in place, {}, does not parse ({e}), so this one cannot be shown to be newer: fix or remove it first",
                    to.display()
                )
            })?;
            if old.captured_at >= new {
                return Err(format!(
                    "not newer than the record in place ({} captured {}, this one {}): an import never replaces a record with an older or same-time capture",
                    to.display(),
                    at(old.captured_at),
                    at(new)
                ));
            }
        }
        Err(_) if !to.exists() && std::fs::symlink_metadata(to).is_err() => {}
        Err(why) => {
            return Err(format!(
                "the record in place, {}, cannot be read ({why}), so this one cannot be shown to be newer",
                to.display()
            ))
        }
    }
    // The history keeps every run; one newer than this capture means this one is a rollback
    // even when the latest record was removed.
    let runs = crate::measure::history::node_dir(
        to.parent().unwrap_or(Path::new(".")),
        &checked.record.node,
    );
    let newest = std::fs::read_dir(&runs)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let stem = name.strip_suffix(".json")?.to_string();
            chrono::NaiveDateTime::parse_from_str(&stem, "%Y%m%dT%H%M%S%.3fZ")
                .ok()
                .map(|t| (t.and_utc(), e.path()))
        })
        .max_by_key(|(t, _)| *t);
    if let Some((kept, path)) = newest {
        // Names keep milliseconds: a run is newer only when its name says a later time.
        let same_run = run_name_time(new) == kept;
        if kept > run_name_time(new)
            || (same_run && std::fs::read(&path).ok().as_deref() != Some(&checked.bytes[..]))
        {
            return Err(format!(
                "not newer than the run kept in {} (captured {}, this one {}): an import never replaces a record with an older capture",
                path.display(),
                at(kept),
                at(new)
            ));
        }
    }
    Ok(Some(()))
}

/// `at` as a kept run's file name holds it (to the millisecond).
fn run_name_time(at: chrono::DateTime<Utc>) -> chrono::DateTime<Utc> {
    let name = crate::measure::history::run_file_name(at);
    chrono::NaiveDateTime::parse_from_str(
        name.strip_suffix(".json").unwrap_or(&name),
        "%Y%m%dT%H%M%S%.3fZ",
    )
    .map(|t| t.and_utc())
    .unwrap_or(at)
}

struct Checked {
    record: Record,
    bytes: Vec<u8>,
    signature: String,
}

/// Every reason this file cannot be imported, or the record and its exact bytes.
fn check(
    config: &Config,
    library: &Library,
    people: &People,
    source: Source,
    path: &Path,
) -> std::result::Result<Checked, Vec<String>> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Some(why) = unfinished(&name) {
        return Err(vec![why.to_string()]);
    }
    let meta = std::fs::symlink_metadata(path).map_err(|e| vec![format!("cannot read it: {e}")])?;
    if !meta.file_type().is_file() {
        return Err(vec![
            "a link, not a file: import copies only what verify wrote".into(),
        ]);
    }
    let bytes = read_bounded(path, MAX_RECORD_BYTES).map_err(|why| vec![why])?;
    let record: Record = serde_json::from_slice(&bytes).map_err(|e| {
        vec![format!(
            "not a well-formed record (line {}, column {}): {e}",
            e.line(),
            e.column()
        )]
    })?;
    let mut reasons = Vec::new();
    if record.schema != RECORD_SCHEMA {
        reasons.push(format!(
            "record schema {} is not the {RECORD_SCHEMA} this glossary reads",
            record.schema
        ));
    }
    let stem = name.strip_suffix(".json").unwrap_or(&name);
    if stem != record.node {
        reasons.push(format!(
            "the file is named for node {stem} but the record says node {}",
            record.node
        ));
    }
    match config.node(&record.node) {
        Err(e) => reasons.push(e.to_string()),
        Ok(profile) => {
            if source == Source::Contributed && profile.contributed_by.is_none() {
                reasons.push(format!(
                    "node {} is not a contributed node: add `contributed_by = \"<person id>\"` (and that person's key as its public_key) to its profile in glossary.toml, or import it as a node's record",
                    record.node
                ));
            }
            if let Err(why) =
                crate::trust::contributed::check_profile(&record.node, profile, people)
            {
                reasons.push(why);
            }
            // Only what the node signed is a measurement of the node.
            let sig_path = crate::trust::node::signature_path(path);
            let sig = read_bounded(&sig_path, MAX_SIGNATURE_BYTES)
                .ok()
                .and_then(|b| String::from_utf8(b).ok());
            if let Err(why) = crate::trust::node::verify_node_record(
                &record.node,
                profile,
                &bytes,
                sig.as_deref(),
                &sig_path,
                record.captured_at,
            ) {
                reasons.push(format!("record not signed by node {}: {why}", record.node));
            }
            if record.gpu.name != profile.gpu
                || record.gpu.compute_capability != profile.compute_capability
            {
                reasons.push(format!(
                    "from the wrong GPU: node {} is {} (cc {}), the record was measured on {} (cc {})",
                    record.node,
                    profile.gpu,
                    profile.compute_capability,
                    record.gpu.name,
                    record.gpu.compute_capability
                ));
            }
        }
    }
    match library.experiments.get(&record.experiment) {
        None => reasons.push(format!(
            "no experiment `{}` in this project's measurements/",
            record.experiment
        )),
        Some(exp) => {
            if record.spec_digest != exp.digest {
                reasons.push(format!(
                    "measured on another version of {} (digest {}, the experiment is now {}): run verify again",
                    exp.id, record.spec_digest, exp.digest
                ));
            }
        }
    }
    if record.captured_at > Utc::now() + chrono::Duration::minutes(5) {
        reasons.push(format!(
            "captured in the future ({}): the node's clock is wrong",
            record.captured_at.format("%Y-%m-%d %H:%M:%S UTC")
        ));
    }
    if record.configs.is_empty() && record.extra.is_null() {
        reasons.push("records no results (no configurations, no sweep)".into());
    }
    if reasons.is_empty() {
        let sig_path = crate::trust::node::signature_path(path);
        let signature = read_bounded(&sig_path, MAX_SIGNATURE_BYTES)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .unwrap_or_default();
        Ok(Checked {
            record,
            bytes,
            signature,
        })
    } else {
        Err(reasons)
    }
}

/// The largest record file import reads. The largest record of the repository (a sweep
/// over every block size) is under 1 MB; a file far past it is not a record, and reading it
/// whole first would let one file cost its size in memory.
pub const MAX_RECORD_BYTES: u64 = 64 << 20;
/// The largest signature file read beside a record (an SSHSIG armour is a few hundred bytes).
const MAX_SIGNATURE_BYTES: u64 = 64 << 10;

/// The bytes of `path`, refused unread when its length is over `limit`, and read no further
/// than one byte past it (a file that grows while it is read, a FIFO or a device whose
/// length says nothing).
fn read_bounded(path: &Path, limit: u64) -> std::result::Result<Vec<u8>, String> {
    use std::io::Read;
    let too_big = |len: &dyn std::fmt::Display| {
        format!("{len} bytes, over the {limit} a record file may hold: not a record")
    };
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read it: {e}"))?;
    let len = file
        .metadata()
        .map_err(|e| format!("cannot read it: {e}"))?
        .len();
    if len > limit {
        return Err(too_big(&len));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read it: {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(too_big(&format!("more than {limit}")));
    }
    Ok(bytes)
}

/// Write the checked bytes beside their destination, sync, and rename over it (the one
/// atomic writer): at every instant the destination holds a whole record, old or new.
/// The record is kept as a run in the history too (`measure::history`).
fn move_into_place(a: &Accepted) -> Result<()> {
    crate::trust::node::write_with_signature(&a.to, &a.bytes, &a.signature)
        .map_err(|e| Error::Other(e.to_string()))?;
    let record: Record = serde_json::from_slice(&a.bytes)
        .map_err(|e| Error::Other(format!("{}: {e}", a.to.display())))?;
    let records_dir = a.to.parent().unwrap_or(std::path::Path::new("."));
    crate::measure::history::keep(
        records_dir,
        &record.node,
        record.captured_at,
        &a.bytes,
        &a.signature,
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file whose length says nothing (a device, a FIFO, one still growing) is read no
    /// further than one byte past the bound.
    #[test]
    fn a_stream_longer_than_its_length_says_is_cut_at_the_bound() {
        let why = read_bounded(Path::new("/dev/zero"), 1024).unwrap_err();
        assert_eq!(
            why,
            "more than 1024 bytes, over the 1024 a record file may hold: not a record"
        );
        let dir = tempfile::tempdir().unwrap();
        let small = dir.path().join("r.json");
        std::fs::write(&small, b"{}").unwrap();
        assert_eq!(read_bounded(&small, 2).unwrap(), b"{}");
        assert!(read_bounded(&small, 1).is_err());
    }
}
