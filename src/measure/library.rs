//! The measurements a build can cite: every experiment under `measurements/` and its
//! records, loaded once, and the one rule that decides whether a citation is current.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};

use crate::config::Config;
use crate::error::{Error, Result};

use super::history::{self, Run, RunCheck};
use super::record::Record;
use super::spec::{Experiment, EXPERIMENT_FILE};

#[derive(Debug, Default)]
pub struct Library {
    pub experiments: BTreeMap<String, Experiment>,
    /// Experiments whose folder holds an experiment file that could not be loaded: the
    /// load reported why, once, and a citation of one is not also "unknown".
    pub broken: std::collections::BTreeSet<String>,
    /// (experiment id, node) -> the record file's parse result. A record that does not
    /// parse makes citations of it stale rather than failing the whole build.
    records: BTreeMap<(String, String), LoadedRecord>,
}

#[derive(Debug)]
struct LoadedRecord {
    parsed: std::result::Result<Arc<Record>, String>,
    /// [`Record::provenance`], made once: every table citing the record shows it, and
    /// formatting it per table (its date above all) was 1% of a build's CPU.
    provenance: Arc<str>,
    /// sha256 of the file's bytes: what a signature binds.
    digest: String,
    /// The file's bytes and its node signature (`<node>.json.sig`), checked against the
    /// node's key on first citation (the key is in the config, which loading does not see).
    bytes: Vec<u8>,
    signature: Option<String>,
    sig_path: PathBuf,
    signed: std::sync::OnceLock<std::result::Result<(), String>>,
    /// The kept runs besides this one (`measure::history`), read on first citation.
    history: std::sync::OnceLock<Arc<[Run]>>,
}

/// What a build needs to know about one cited (experiment, node).
#[derive(Debug)]
pub struct Citation<'a> {
    pub experiment: &'a Experiment,
    pub record: Arc<Record>,
    /// The record's [`Record::provenance`].
    pub provenance: Arc<str>,
    /// Every other kept run of this experiment on this node, oldest first: claims must
    /// hold on each ([`super::claims::check_claim`]).
    pub history: Arc<[Run]>,
    /// Each roofed metric of each passed row against the node's peaks, by (row, metric)
    /// (`super::roofs::readings`): shares for tables, claims and the roofline chart.
    pub roofs: BTreeMap<(String, String), super::roofs::RoofReading>,
    /// Rows the node's peaks make impossible (`super::roofs::above_roof`): citing one is
    /// an error ([`Citation::row`]).
    pub above_roof: Vec<super::roofs::AboveRoof>,
    /// The node's peaks for this record's GPU (`super::roofs::node_peaks`): what a chart
    /// draws as roofs.
    pub peaks: Vec<super::roofs::NodePeak>,
}

/// Why a cited measurement cannot be used.
#[derive(Debug, Clone, PartialEq)]
pub enum Staleness {
    Missing {
        path: PathBuf,
    },
    Unreadable {
        path: PathBuf,
        why: String,
    },
    WrongNode {
        expected: String,
        found: String,
    },
    NotSigned {
        node: String,
        why: String,
    },
    /// The record names another experiment (copied from another experiment's folder):
    /// not "changed", which would send the reader to re-measure the wrong thing.
    OtherExperiment {
        path: PathBuf,
        expected: String,
        found: String,
    },
    Changed {
        recorded: String,
        current: String,
    },
    RowMissing {
        row: String,
    },
    RowFailed {
        row: String,
        reason: String,
    },
    ValueMissing {
        row: String,
        column: String,
    },
    /// The row is above its roof in the node's peaks by more than the band: the record,
    /// or the peak in glossary.toml, is wrong.
    AboveRoof(Box<super::roofs::AboveRoof>),
}

impl fmt::Display for Staleness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Staleness::Missing { path } => write!(f, "no record at {} (run `glossary verify` on the node)", path.display()),
            Staleness::Unreadable { path, why } => write!(f, "record {} is unreadable: {why}", path.display()),
            Staleness::WrongNode { expected, found } => {
                write!(f, "record is from the wrong node: expected {expected}, found {found}")
            }
            Staleness::OtherExperiment { path, expected, found } => write!(
                f,
                "record {} is a record of experiment `{found}`, not of `{expected}` (copied from another experiment's folder?)",
                path.display()
            ),
            Staleness::Changed { recorded, current } => write!(
                f,
                "record is stale: the experiment changed since it was measured (recorded {}, now {})",
                short_digest(recorded),
                short_digest(current)
            ),
            Staleness::NotSigned { node, why } => {
                write!(f, "record not signed by node {node}: {why}")
            }
            Staleness::RowMissing { row } => write!(f, "record has no row `{row}`"),
            Staleness::RowFailed { row, reason } => {
                write!(f, "row `{row}` failed its correctness check on the node: {reason}")
            }
            Staleness::ValueMissing { row, column } => {
                write!(f, "row `{row}` has no value for `{column}` in the record")
            }
            Staleness::AboveRoof(a) => write!(
                f,
                "{a}; if the record is right, the peak in glossary.toml [nodes.{}.peaks] {} is wrong",
                a.node, a.roof
            ),
        }
    }
}

/// The first 12 characters of a digest, for messages. A record's digest is read from a
/// file anyone may edit, so it is cut at a character, never inside one.
pub fn short_digest(digest: &str) -> &str {
    let d = digest.strip_prefix("sha256:").unwrap_or(digest);
    d.char_indices().nth(12).map_or(d, |(end, _)| &d[..end])
}

impl Library {
    pub fn load(measurements: &Path) -> Result<Library> {
        let (lib, errors) = Library::load_collecting(measurements);
        Error::collect(errors)?;
        Ok(lib)
    }

    /// Every experiment under `measurements` that loads, with the errors of those that do
    /// not (their ids in [`Library::broken`]): one bad experiment file is one error, and
    /// the others stay known.
    pub fn load_collecting(measurements: &Path) -> (Library, Vec<Error>) {
        let Ok(read) = std::fs::read_dir(measurements) else {
            return (Library::default(), Vec::new());
        };
        let mut dirs: Vec<PathBuf> = read
            .filter_map(|d| d.ok().map(|d| d.path()))
            .filter(|p| p.join(EXPERIMENT_FILE).is_file())
            .collect();
        dirs.sort();
        Library::load_dirs(dirs)
    }

    /// The named experiments alone, with their records: what one entry's citations need
    /// (signing one entry reads the experiments it cites, not every one). A name with no
    /// experiment folder is left out, as `load` would leave it out, so the citation check
    /// reports it the same way.
    pub fn load_only<'a>(
        measurements: &Path,
        experiments: impl IntoIterator<Item = &'a str>,
    ) -> (Library, Vec<Error>) {
        let mut dirs: Vec<PathBuf> = experiments
            .into_iter()
            .filter(|id| {
                let p = Path::new(id);
                p.components().count() == 1
                    && matches!(p.components().next(), Some(std::path::Component::Normal(_)))
            })
            .map(|id| measurements.join(id))
            .filter(|p| p.join(EXPERIMENT_FILE).is_file())
            .collect();
        dirs.sort();
        dirs.dedup();
        Library::load_dirs(dirs)
    }

    fn load_dirs(dirs: Vec<PathBuf>) -> (Library, Vec<Error>) {
        let mut lib = Library::default();
        let mut errors = Vec::new();
        for dir in dirs {
            match Experiment::load(&dir) {
                Ok(exp) => {
                    if let Ok(recs) = std::fs::read_dir(exp.records_dir()) {
                        for r in recs.filter_map(|r| r.ok().map(|r| r.path())) {
                            if r.extension().is_some_and(|x| x == "json") {
                                let node = r
                                    .file_stem()
                                    .and_then(|s| s.to_str())
                                    .unwrap_or_default()
                                    .to_string();
                                // Read once, through the bound a kept run has: the
                                // digest and the parse are of the same bytes.
                                let read = crate::config::read_bounded(&r, history::MAX_RUN_BYTES);
                                let bytes = read.as_ref().cloned().unwrap_or_default();
                                let digest =
                                    format!("sha256:{}", hex::encode(Sha256::digest(&bytes)));
                                let parsed = read
                                    .and_then(|b| {
                                        let text = String::from_utf8(b).map_err(|_| {
                                            Error::content(&r, None, "record is not UTF-8 text")
                                        })?;
                                        Record::parse(&r, &text)
                                    })
                                    .map(Arc::new)
                                    .map_err(|e| e.to_string());
                                let provenance = parsed
                                    .as_ref()
                                    .map_or_else(|_| "".into(), |r| r.provenance().into());
                                let sig_path = crate::trust::node::signature_path(&r);
                                let signature = crate::trust::node::read_signature(&sig_path);
                                lib.records.insert(
                                    (exp.id.clone(), node),
                                    LoadedRecord {
                                        parsed,
                                        provenance,
                                        digest,
                                        bytes,
                                        signature,
                                        sig_path,
                                        signed: Default::default(),
                                        history: Default::default(),
                                    },
                                );
                            }
                        }
                    }
                    lib.experiments.insert(exp.id.clone(), exp);
                }
                Err(e) => {
                    if let Some(id) = dir.file_name().and_then(|n| n.to_str()) {
                        lib.broken.insert(id.to_string());
                    }
                    errors.extend(e.flatten())
                }
            }
        }
        (lib, errors)
    }

    pub fn record(&self, experiment: &str, node: &str) -> Option<&Arc<Record>> {
        self.records
            .get(&(experiment.to_string(), node.to_string()))
            .and_then(|r| r.parsed.as_ref().ok())
    }

    /// The record file's exact bytes and its node signature, as loaded: what a bundle
    /// carries so a reader can check the signature themselves.
    pub fn record_file(&self, experiment: &str, node: &str) -> Option<(&[u8], Option<&str>)> {
        self.records
            .get(&(experiment.to_string(), node.to_string()))
            .map(|r| (r.bytes.as_slice(), r.signature.as_deref()))
    }

    /// Digest of the record file's bytes, if there is one.
    pub fn record_digest(&self, experiment: &str, node: &str) -> Option<String> {
        self.records
            .get(&(experiment.to_string(), node.to_string()))
            .map(|r| r.digest.clone())
    }

    /// Resolve a citation of `experiment` measured on `node`, or say why it is stale. The
    /// experiment and node must exist (checked at load, as errors).
    pub fn cite(
        &self,
        config: &Config,
        experiment: &str,
        node: &str,
    ) -> std::result::Result<Citation<'_>, Staleness> {
        let Some(exp) = self.experiments.get(experiment) else {
            return Err(Staleness::Missing {
                path: PathBuf::from("measurements").join(experiment),
            });
        };
        let path = exp.record_path(node);
        let Some(loaded) = self
            .records
            .get(&(experiment.to_string(), node.to_string()))
        else {
            return Err(Staleness::Missing { path });
        };
        let record = match &loaded.parsed {
            Err(why) => {
                return Err(Staleness::Unreadable {
                    path,
                    why: why.clone(),
                })
            }
            Ok(r) => r.clone(),
        };
        if let Ok(profile) = config.node(node) {
            // Checked first: no other field of a record means anything unless the node
            // signed it.
            let signed = loaded.signed.get_or_init(|| {
                crate::trust::node::verify_node_record(
                    node,
                    profile,
                    &loaded.bytes,
                    loaded.signature.as_deref(),
                    &loaded.sig_path,
                    record.captured_at,
                )
            });
            if let Err(why) = signed {
                return Err(Staleness::NotSigned {
                    node: node.to_string(),
                    why: why.clone(),
                });
            }
            node_mismatch(node, profile, &record)?;
        }
        if record.experiment != experiment {
            return Err(Staleness::OtherExperiment {
                path,
                expected: experiment.to_string(),
                found: record.experiment.clone(),
            });
        }
        if record.spec_digest != exp.digest {
            return Err(Staleness::Changed {
                recorded: record.spec_digest.clone(),
                current: exp.digest.clone(),
            });
        }
        let history = loaded
            .history
            .get_or_init(|| {
                let profile = config.node(node).ok();
                let trust = |bytes: &[u8], sig: Option<&str>, sig_path: &Path, r: &Record| {
                    profile.map_or(Ok(()), |p| run_trust(node, p, bytes, sig, sig_path, r))
                };
                let check = RunCheck {
                    experiment,
                    node,
                    spec_digest: &exp.digest,
                    trust: &trust,
                };
                history::load(&exp.records_dir(), &check, Some(&loaded.digest)).into()
            })
            .clone();
        let (roofs, above_roof, peaks) = match config.node(node) {
            Ok(profile) if !profile.peaks.is_empty() => {
                let roofed = exp.roofed();
                (
                    super::roofs::readings(&roofed, profile, &record),
                    super::roofs::above_roof(
                        &roofed,
                        exp.spec.timing.tolerance(),
                        profile,
                        &record,
                    ),
                    super::roofs::node_peaks(profile, &record),
                )
            }
            _ => Default::default(),
        };
        Ok(Citation {
            experiment: exp,
            record,
            provenance: loaded.provenance.clone(),
            history,
            roofs,
            above_roof,
            peaks,
        })
    }
}

/// Whether a kept run is `node`'s: signed with its key, and of its GPU (see
/// [`node_mismatch`]). The one rule for history runs, at build and in `records history`.
pub fn run_trust(
    node: &str,
    profile: &crate::config::Node,
    bytes: &[u8],
    sig: Option<&str>,
    sig_path: &Path,
    record: &Record,
) -> std::result::Result<(), String> {
    crate::trust::node::verify_node_record(node, profile, bytes, sig, sig_path, record.captured_at)
        .map_err(|why| format!("not signed by node {node}: {why}"))?;
    node_mismatch(node, profile, record).map_err(|s| s.to_string())
}

/// Whether `record` is of `node` as its profile describes it (GPU, compute capability,
/// SMs, architecture, and its UUID when the profile lists them): the latest record and
/// every kept run are held to the same rule.
pub fn node_mismatch(
    node: &str,
    profile: &crate::config::Node,
    record: &Record,
) -> std::result::Result<(), Staleness> {
    let matches = record.node == node
        && record.gpu.name == profile.gpu
        && record.gpu.compute_capability == profile.compute_capability
        && record.gpu.sm_count == profile.sm_count
        && record
            .compile_options
            .iter()
            .any(|o| crate::measure::spec::option_names_arch(o, &profile.arch))
        && (profile.gpu_uuids.is_empty() || profile.gpu_uuids.contains(&record.gpu.uuid));
    if matches {
        return Ok(());
    }
    Err(Staleness::WrongNode {
        expected: format!(
            "{node} ({}, cc {}, {} SMs, {})",
            profile.gpu, profile.compute_capability, profile.sm_count, profile.arch
        ),
        found: format!(
            "{} ({}, cc {}, {} SMs, {}{})",
            record.node,
            record.gpu.name,
            record.gpu.compute_capability,
            record.gpu.sm_count,
            record
                .compile_options
                .iter()
                .find_map(|o| o.strip_prefix("--gpu-architecture="))
                .unwrap_or("no --gpu-architecture"),
            if profile.gpu_uuids.is_empty() {
                String::new()
            } else {
                format!(", GPU {}", record.gpu.uuid)
            }
        ),
    })
}

impl Citation<'_> {
    /// A numeric cell, or why it is not available.
    pub fn number(&self, row: &str, column: &str) -> std::result::Result<f64, Staleness> {
        let cfg = self.row(row)?;
        cfg.column(column)
            .and_then(|v| v.as_f64())
            .ok_or_else(|| Staleness::ValueMissing {
                row: row.into(),
                column: column.into(),
            })
    }

    /// A row that exists and passed its correctness check.
    pub fn row(&self, row: &str) -> std::result::Result<&super::ConfigRecord, Staleness> {
        let cfg = self
            .record
            .config(row)
            .ok_or_else(|| Staleness::RowMissing { row: row.into() })?;
        if let Some(reason) = cfg.status.problem() {
            return Err(Staleness::RowFailed {
                row: row.into(),
                reason: reason.to_string(),
            });
        }
        if let Some(a) = self.above_roof.iter().find(|a| a.row == row) {
            return Err(Staleness::AboveRoof(Box::new(a.clone())));
        }
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::{node_mismatch, short_digest};

    #[test]
    fn a_record_compiled_for_sm_90a_is_the_sm_90_nodes_and_no_other_target_is() {
        let profile: crate::config::Node = serde_json::from_value(serde_json::json!({
            "gpu": "NVIDIA H200", "compute_capability": "9.0", "arch": "sm_90", "sm_count": 132,
        }))
        .unwrap();
        let compiled_for = |arch: &str| {
            let mut r = crate::measure::record::test_record("GPU-1", serde_json::json!([]));
            r.compile_options = vec!["--std=c++17".into(), format!("--gpu-architecture={arch}")];
            node_mismatch("h200", &profile, &r)
        };
        assert!(compiled_for("sm_90").is_ok());
        // `arch_specific: true` compiles wgmma kernels for the node's sm_90a.
        assert!(compiled_for("sm_90a").is_ok());
        assert!(compiled_for("sm_89").is_err());
        assert!(compiled_for("sm_100a").is_err());
    }

    #[test]
    fn short_digest_cuts_at_a_character_not_inside_one() {
        assert_eq!(short_digest("sha256:0123456789abcdef"), "0123456789ab");
        assert_eq!(short_digest("abc"), "abc");
        // A hand-edited record: byte 12 falls inside a two-byte character.
        assert_eq!(short_digest("sha256:aaaaaaaaaaaéé"), "aaaaaaaaaaaé");
        assert_eq!(short_digest("ééééééééééééééé"), "éééééééééééé");
    }
}
