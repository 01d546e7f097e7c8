//! What a retired key signed, fixed when it is retired: the digests of every record file
//! (latest and kept runs) under `measurements/*/records/` that carries the node's
//! signature by that key and says it was captured before the retirement. They are written
//! into the key's `records` list in glossary.toml (`trust::rotation`), and from then on
//! the key vouches for those records and no other (`trust::node::check_node_record`): the
//! holder of a retired key, lost or leaked, cannot sign a backdated record that a build,
//! an import or a reader's `reproduce` would take.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use ssh_key::PublicKey;

use crate::measure::history;
use crate::measure::record::Record;
use crate::trust::node::{read_signature, record_digest, signature_path};
use crate::trust::sshsig::{self, RECORD_NAMESPACE};

/// The records `key` signed for `node` under `measurements` that were captured before
/// `retired`, as sorted, distinct digests, with the files they came from (for the
/// command's report). Files that cannot be read, or that another key signed, are not
/// this key's and are passed over; so are records it signed after `retired`.
pub fn signed_records(
    measurements: &Path,
    node: &str,
    key: &PublicKey,
    retired: DateTime<Utc>,
) -> std::io::Result<(Vec<String>, Vec<PathBuf>)> {
    let mut files = Vec::new();
    let mut experiments: Vec<PathBuf> = match std::fs::read_dir(measurements) {
        Ok(dir) => dir
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e),
    };
    experiments.sort();
    for exp in experiments {
        let records = exp.join("records");
        let latest = records.join(format!("{node}.json"));
        if latest.is_file() {
            files.push(latest);
        }
        if let Ok(dir) = std::fs::read_dir(history::node_dir(&records, node)) {
            let mut runs: Vec<PathBuf> = dir
                .filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect();
            runs.sort();
            files.extend(runs);
        }
    }
    let mut digests = Vec::new();
    let mut found = Vec::new();
    for path in files {
        if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_file()) {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let Some(sig) = read_signature(&signature_path(&path)) else {
            continue;
        };
        let Ok(parsed) = sshsig::parse_signature(&sig) else {
            continue;
        };
        if parsed.public_key_data() != key.key_data()
            || parsed
                .verify(RECORD_NAMESPACE, &bytes, std::slice::from_ref(key), node)
                .is_err()
        {
            continue;
        }
        let Ok(record) = serde_json::from_slice::<Record>(&bytes) else {
            continue;
        };
        if record.node != node || record.captured_at >= retired {
            continue;
        }
        digests.push(record_digest(&bytes));
        found.push(path);
    }
    digests.sort();
    digests.dedup();
    Ok((digests, found))
}
