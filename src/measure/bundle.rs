//! Experiment bundles: everything a reader needs to re-run one measured table on their own
//! GPU, in one JSON file the build writes into the site (`reproduce/<experiment>/<node>.json`).
//!
//! A bundle holds the experiment file and its kernels (each with its sha256), the cited
//! record's exact bytes and its node signature, the node's profile (its GPU and public
//! key), and the claims the site's pages make from that record. [`Bundle::check`] is what
//! `glossary reproduce` runs before anything else: every digest, the experiment digest the
//! record was measured under, and the node's signature over the record. A bundle is read
//! from the network, so it is treated as hostile: a size bound, strict fields, and an
//! allow-list of file names.

use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::config::Node;
use crate::content::Claim;

use super::record::Record;
use super::spec::{Experiment, EXPERIMENT_FILE};

/// The bundle format's version.
pub const BUNDLE_SCHEMA: u32 = 1;
/// The site folder bundles are written under.
pub const SITE_DIR: &str = "reproduce";
/// The largest bundle `reproduce` reads (the largest committed record is under 1 MB).
pub const MAX_BUNDLE_BYTES: u64 = 16 * 1024 * 1024;
/// Where, under the site's root, the bundle of (experiment, node) is written.
pub fn site_path(experiment: &str, node: &str) -> String {
    format!("{SITE_DIR}/{experiment}/{node}.json")
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bundle {
    pub bundle: u32,
    pub experiment: String,
    pub node: String,
    /// The node's profile as the site's glossary.toml gives it (its private-key path and
    /// scheduler settings left out): which GPU the record must come from, and the key it
    /// must be signed with.
    pub profile: Node,
    /// Who measured it, for a contributed node: the registered person's display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contributed_by: Option<String>,
    /// `experiment.yaml`, then each kernel in the order the experiment lists them.
    pub files: Vec<BundleFile>,
    /// The record file's exact bytes (as text: records are JSON) and digest.
    pub record: BundleFile,
    /// The node's SSH signature over the record's bytes.
    pub signature: String,
    /// The pages that show this record, with the claims each makes from it.
    #[serde(default)]
    pub pages: Vec<PageClaims>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BundleFile {
    pub path: String,
    pub sha256: String,
    pub text: String,
}

impl BundleFile {
    pub fn new(path: &str, text: String) -> BundleFile {
        BundleFile {
            path: path.to_string(),
            sha256: sha256(text.as_bytes()),
            text,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageClaims {
    /// `kind/slug`.
    pub entry: String,
    /// The page's URL under the site's `base_url`.
    pub url: String,
    pub claims: Vec<Claim>,
}

pub fn sha256(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// Why a bundle cannot be used. Each names what failed, so a reader can tell a damaged
/// download from a record the node never signed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BundleError {
    #[error("{what} is {size} bytes, over the {limit}-byte bound for a bundle")]
    TooLarge { what: String, size: u64, limit: u64 },
    #[error(
        "{what} is not a glossary experiment bundle (truncated, or another kind of file): {why}"
    )]
    NotABundle { what: String, why: String },
    #[error("bundle format {found} is not one this glossary reads ({BUNDLE_SCHEMA})")]
    Schema { found: u32 },
    #[error("bundle file name {path:?} is not allowed: names are plain file names of letters, digits, '_', '-' and '.'")]
    BadPath { path: String },
    #[error("bundle file {path}: its bytes hash to {actual}, not the {listed} the bundle lists (changed or damaged)")]
    Digest {
        path: String,
        listed: String,
        actual: String,
    },
    #[error("bundle files are {found:?}, but the experiment lists {expected:?}")]
    Files {
        found: Vec<String>,
        expected: Vec<String>,
    },
    #[error("the bundle's experiment does not parse: {0}")]
    Experiment(String),
    #[error("the record was measured under experiment digest {recorded}, but the bundle's files give {current}: they are not the experiment the record measured")]
    Stale { recorded: String, current: String },
    #[error("the record does not parse: {0}")]
    Record(String),
    #[error("the record is of {found}, but the bundle says {expected}")]
    Mismatch { expected: String, found: String },
    #[error("the record is not signed by node {node}: {why}")]
    Signature { node: String, why: String },
    #[error("{0}")]
    Io(String),
}

/// A checked bundle: its experiment laid out on disk and its record parsed.
pub struct Checked {
    pub bundle: Bundle,
    /// Which of the node's keys signed the record (its current key, or a retired one for
    /// a record fixed at its retirement).
    pub signed_by: crate::trust::node::SignedBy,
    pub experiment: Experiment,
    pub record: Record,
}

impl Bundle {
    /// Parse a downloaded or read bundle; `what` names it in errors (a URL or path).
    pub fn parse(what: &str, bytes: &[u8]) -> Result<Bundle, BundleError> {
        if bytes.len() as u64 > MAX_BUNDLE_BYTES {
            return Err(BundleError::TooLarge {
                what: what.to_string(),
                size: bytes.len() as u64,
                limit: MAX_BUNDLE_BYTES,
            });
        }
        // The schema first, so a future format gets its own message, not a field error.
        #[derive(Deserialize)]
        struct Head {
            bundle: u32,
        }
        let head: Head = serde_json::from_slice(bytes).map_err(|e| BundleError::NotABundle {
            what: what.to_string(),
            why: e.to_string(),
        })?;
        if head.bundle != BUNDLE_SCHEMA {
            return Err(BundleError::Schema { found: head.bundle });
        }
        serde_json::from_slice(bytes).map_err(|e| BundleError::NotABundle {
            what: what.to_string(),
            why: e.to_string(),
        })
    }

    /// Check everything that can be checked without a GPU, laying the experiment out under
    /// `dir/measurements/<id>/` (which `verify` then runs): file names, every digest, the
    /// experiment digest the record names, and the node's signature over the record.
    pub fn check(self, dir: &Path) -> Result<Checked, BundleError> {
        if !plain_name(&self.experiment) || !plain_name(&self.node) {
            return Err(BundleError::BadPath {
                path: format!("{}/{}", self.experiment, self.node),
            });
        }
        for f in self.files.iter().chain(std::iter::once(&self.record)) {
            let actual = sha256(f.text.as_bytes());
            if actual != f.sha256 {
                return Err(BundleError::Digest {
                    path: f.path.clone(),
                    listed: f.sha256.clone(),
                    actual,
                });
            }
        }
        for f in &self.files {
            if !plain_name(&f.path) {
                return Err(BundleError::BadPath {
                    path: f.path.clone(),
                });
            }
        }
        let exp_dir = dir.join("measurements").join(&self.experiment);
        std::fs::create_dir_all(&exp_dir)
            .map_err(|e| BundleError::Io(format!("{}: {e}", exp_dir.display())))?;
        for f in &self.files {
            let path = exp_dir.join(&f.path);
            std::fs::write(&path, &f.text)
                .map_err(|e| BundleError::Io(format!("{}: {e}", path.display())))?;
        }
        let experiment =
            Experiment::load(&exp_dir).map_err(|e| BundleError::Experiment(e.to_string()))?;
        let expected: Vec<String> = std::iter::once(EXPERIMENT_FILE.to_string())
            .chain(experiment.spec.kernels.iter().cloned())
            .collect();
        let found: Vec<String> = self.files.iter().map(|f| f.path.clone()).collect();
        if found != expected {
            return Err(BundleError::Files { found, expected });
        }
        let record: Record = serde_json::from_str(&self.record.text)
            .map_err(|e| BundleError::Record(e.to_string()))?;
        if record.experiment != self.experiment || record.node != self.node {
            return Err(BundleError::Mismatch {
                expected: format!("experiment {} on node {}", self.experiment, self.node),
                found: format!("experiment {} on node {}", record.experiment, record.node),
            });
        }
        if record.spec_digest != experiment.digest {
            return Err(BundleError::Stale {
                recorded: record.spec_digest.clone(),
                current: experiment.digest.clone(),
            });
        }
        let signed_by = crate::trust::node::check_node_record(
            &self.node,
            &self.profile,
            self.record.text.as_bytes(),
            Some(&self.signature),
            Path::new("the bundle's signature"),
            record.captured_at,
        )
        .map_err(|why| BundleError::Signature {
            node: self.node.clone(),
            why,
        })?;
        if record.gpu.name.trim() != self.profile.gpu {
            return Err(BundleError::Mismatch {
                expected: format!(
                    "a record from node {}'s GPU, {}",
                    self.node, self.profile.gpu
                ),
                found: format!("a record from a {}", record.gpu.name),
            });
        }
        Ok(Checked {
            bundle: self,
            signed_by,
            experiment,
            record,
        })
    }
}

/// A file or folder name that cannot climb out of the folder it is written into, nor hide:
/// letters, digits, `_`, `-`, `.`, not starting with `.`.
fn plain_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// The bundle of one cited (experiment, node), from the experiment's files on disk and the
/// record's bytes and signature as the build read them.
pub fn make(
    experiment: &Experiment,
    node: &str,
    profile: &Node,
    contributed_by: Option<String>,
    record_bytes: &[u8],
    signature: &str,
    pages: Vec<PageClaims>,
) -> crate::error::Result<Bundle> {
    let read = |name: &str| -> crate::error::Result<BundleFile> {
        let path = experiment.dir.join(name);
        let text = std::fs::read_to_string(&path).map_err(|e| crate::error::Error::io(&path, e))?;
        Ok(BundleFile::new(name, text))
    };
    let mut files = vec![read(EXPERIMENT_FILE)?];
    for k in &experiment.spec.kernels {
        files.push(read(k)?);
    }
    let mut profile = profile.clone();
    profile.key = None;
    profile.slurm = None;
    Ok(Bundle {
        bundle: BUNDLE_SCHEMA,
        experiment: experiment.id.clone(),
        node: node.to_string(),
        profile,
        contributed_by,
        files,
        record: BundleFile::new(
            &format!("records/{node}.json"),
            String::from_utf8_lossy(record_bytes).into_owned(),
        ),
        signature: signature.to_string(),
        pages,
    })
}
