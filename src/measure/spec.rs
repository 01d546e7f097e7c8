//! Experiment files: `measurements/<id>/experiment.yaml` and the kernel sources beside it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Error, Location, Result};

pub const EXPERIMENT_FILE: &str = "experiment.yaml";

/// An experiment as found on disk: its parsed spec and the digest of everything that
/// determines its numbers. A record whose digest differs from this is stale.
#[derive(Debug, Clone)]
pub struct Experiment {
    pub id: String,
    pub dir: PathBuf,
    pub spec: ExperimentSpec,
    /// sha256 over the experiment file and each kernel source, in the order listed.
    pub digest: String,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentSpec {
    pub title: String,
    /// Kernel source files beside the experiment file, compiled together by NVRTC.
    pub kernels: Vec<String>,
    /// NVRTC options; `--gpu-architecture` for the device is added at run time.
    #[serde(default)]
    pub compile_options: Vec<String>,
    /// The rest is read by `verify`; the site builder only needs the digest.
    #[serde(flatten)]
    pub run: serde_yaml::Value,
}

impl Experiment {
    pub fn load(dir: &Path) -> Result<Experiment> {
        let id = dir
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        let path = dir.join(EXPERIMENT_FILE);
        let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        let text = String::from_utf8_lossy(&bytes);
        let spec: ExperimentSpec = serde_yaml::from_str(&text).map_err(|e| {
            let at = e.location().map(|l| Location {
                line: l.line(),
                column: l.column(),
            });
            Error::content(&path, at, e.to_string())
        })?;
        let mut hasher = Sha256::new();
        hash_part(&mut hasher, EXPERIMENT_FILE, &bytes);
        for k in &spec.kernels {
            if k.contains('/') || k.contains('\\') || k.starts_with('.') {
                return Err(Error::content(
                    &path,
                    None,
                    format!("kernel `{k}` must be a file name beside the experiment file"),
                ));
            }
            let kpath = dir.join(k);
            let kbytes = std::fs::read(&kpath).map_err(|e| Error::io(&kpath, e))?;
            hash_part(&mut hasher, k, &kbytes);
        }
        Ok(Experiment {
            id,
            dir: dir.to_path_buf(),
            spec,
            digest: format!("sha256:{}", hex::encode(hasher.finalize())),
        })
    }

    pub fn records_dir(&self) -> PathBuf {
        self.dir.join("records")
    }

    pub fn record_path(&self, node: &str) -> PathBuf {
        self.records_dir().join(format!("{node}.json"))
    }
}

/// Length-prefixed so that moving bytes between files changes the digest.
fn hash_part(hasher: &mut Sha256, name: &str, bytes: &[u8]) {
    hasher.update((name.len() as u64).to_le_bytes());
    hasher.update(name.as_bytes());
    hasher.update((bytes.len() as u64).to_le_bytes());
    hasher.update(bytes);
}
