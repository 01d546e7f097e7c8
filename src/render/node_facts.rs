//! What the site knows of each verification node, for the verification nodes page and the
//! home page: the profile in glossary.toml (GPU, compute capability, SMs, L2, memory,
//! datasheet, keys) beside what its records say (drivers and CUDA versions seen, kept runs
//! and the GPU units they ran on) and the entries that cite it. Made once per render
//! (`RenderInput::node_facts`); the page itself is `site::nodes_page`.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::config::Config;
use crate::content::{Content, Entry, EntryId};
use crate::measure::Library;

/// One node as the nodes page shows it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct NodeFacts {
    pub name: String,
    pub gpu: String,
    pub compute_capability: String,
    pub arch: String,
    pub sm_count: u32,
    /// "50 MiB": as a current record reports it, else as the profile gives it.
    pub l2: Option<String>,
    /// "79.6 GiB (85.5 GB)".
    pub memory: Option<String>,
    pub datasheet: Option<String>,
    /// A reader's GPU: who measures on it (their registered name).
    pub contributed_by: Option<String>,
    /// The `SHA256:` fingerprint of the key its records must carry now.
    pub key: Option<String>,
    /// Keys it signed with before, newest last, each with when it was retired.
    pub previous_keys: Vec<PreviousKeyFacts>,
    /// The driver versions and CUDA versions (driver API, NVRTC) its kept runs name.
    pub drivers: Vec<String>,
    pub cuda: Vec<String>,
    /// Kept runs of current experiments (each latest record and its kept history), and
    /// the distinct GPUs (by UUID) they ran on.
    pub runs: usize,
    pub gpu_units: usize,
    /// Experiments with a current record from this node, of all the project has.
    pub experiments_current: usize,
    pub experiments_total: usize,
    /// The entries whose tables or claims cite it, that this build lists.
    pub entries: Vec<CitingEntry>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PreviousKeyFacts {
    pub fingerprint: String,
    pub retired: String,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CitingEntry {
    pub title: String,
    /// From the nodes page (`nodes/index.html`).
    pub url: String,
    pub draft: bool,
}

/// "NVIDIA H200 (h200)" for each node, in name order, with a current record of at least
/// one experiment: the models a site's numbers come from.
pub fn measured_models(config: &Config, library: &Library) -> Vec<String> {
    config
        .nodes
        .iter()
        .filter(|(name, _)| {
            library
                .experiments
                .keys()
                .any(|exp| library.cite(config, exp, name).is_ok())
        })
        .map(|(name, profile)| format!("{} ({name})", profile.gpu))
        .collect()
}

/// "50 MiB", "141.0 GiB": whole MiB below a GiB, one decimal of GiB above.
pub fn bytes_text(n: u64) -> String {
    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;
    if n >= GIB {
        format!("{:.1} GiB", n as f64 / GIB as f64)
    } else if n % MIB == 0 {
        format!("{} MiB", n / MIB)
    } else {
        format!("{:.1} MiB", n as f64 / MIB as f64)
    }
}

/// Every node of `config`, in name order. `listed(id)`: whether this build shows the
/// entry (its page exists, or it is published); `published(id)`: whether the gate
/// published it (a preview marks the others); `name_of(id)`: a person's registered name.
pub fn node_facts(
    config: &Config,
    library: &Library,
    content: &Content,
    listed: &dyn Fn(&EntryId) -> bool,
    published: &dyn Fn(&EntryId) -> bool,
    name_of: &dyn Fn(&str) -> Option<String>,
) -> Vec<NodeFacts> {
    let mut citing: BTreeMap<&str, Vec<CitingEntry>> = BTreeMap::new();
    for entry in content.entries.iter().filter(|e| listed(&e.id)) {
        let nodes = cited_nodes(entry);
        for node in config.nodes.keys().filter(|n| nodes.contains(n.as_str())) {
            citing.entry(node).or_default().push(CitingEntry {
                title: entry.meta.title.clone(),
                url: entry.id.page_url("../"),
                draft: !published(&entry.id),
            });
        }
    }
    config
        .nodes
        .iter()
        .map(|(name, profile)| {
            let mut drivers = BTreeSet::new();
            let mut cuda = BTreeSet::new();
            let mut units = BTreeSet::new();
            let (mut runs, mut current) = (0, 0);
            let (mut l2, mut mem) = (None, None);
            for exp in library.experiments.keys() {
                let Ok(c) = library.cite(config, exp, name) else {
                    continue;
                };
                current += 1;
                let kept = std::iter::once(&*c.record)
                    .chain(c.history.iter().filter_map(|r| r.kept().ok().flatten()));
                for r in kept {
                    runs += 1;
                    drivers.insert(r.gpu.driver_version.clone());
                    cuda.insert(format!(
                        "driver API {}, NVRTC {}",
                        r.gpu.cuda_driver_api, r.gpu.nvrtc_version
                    ));
                    units.insert(r.gpu.uuid.clone());
                    l2 = l2.or(r.gpu.l2_bytes);
                    mem = mem.or(r.device.get("mem_bytes").map(|&m| m.max(0) as u64));
                }
            }
            let fingerprint = |k: &str| {
                crate::trust::sshsig::parse_public_key(k)
                    .map(|k| crate::trust::sshsig::fingerprint(&k))
                    .unwrap_or_else(|_| "(not a key)".into())
            };
            NodeFacts {
                name: name.clone(),
                gpu: profile.gpu.clone(),
                compute_capability: profile.compute_capability.clone(),
                arch: profile.arch.clone(),
                sm_count: profile.sm_count,
                l2: l2.or(profile.l2_bytes).map(bytes_text),
                // Both units: the driver's total in GiB, and in GB as datasheets count.
                memory: mem
                    .or(profile.mem_bytes)
                    .map(|m| format!("{} ({:.1} GB)", bytes_text(m), m as f64 / 1e9)),
                datasheet: profile.datasheet.clone(),
                contributed_by: profile
                    .contributed_by
                    .as_deref()
                    .map(|id| name_of(id).unwrap_or_else(|| id.to_string())),
                key: profile.public_key.as_deref().map(fingerprint),
                previous_keys: profile
                    .previous_keys
                    .iter()
                    .map(|p| PreviousKeyFacts {
                        fingerprint: fingerprint(&p.key),
                        retired: p.retired.format("%Y-%m-%d %H:%M UTC").to_string(),
                    })
                    .collect(),
                drivers: drivers.into_iter().collect(),
                cuda: cuda.into_iter().collect(),
                runs,
                gpu_units: units.len(),
                experiments_current: current,
                experiments_total: library.experiments.len(),
                entries: citing.remove(name.as_str()).unwrap_or_default(),
            }
        })
        .collect()
}

/// The nodes an entry's tables and claims cite. A build that let the page-only part of the
/// front matter go has it packed; read back only for an entry that has a table or a claim.
fn cited_nodes(entry: &Entry) -> BTreeSet<String> {
    let unthinned;
    let meta = match &entry.thinned {
        None => &entry.meta,
        Some(t) if !t.page_only.cites_records() => return BTreeSet::new(),
        Some(t) => {
            let mut meta = entry.meta.clone();
            if meta.unthin(&t.page_only).is_err() {
                return BTreeSet::new();
            }
            unthinned = meta;
            &unthinned
        }
    };
    let mut out: BTreeSet<String> = meta
        .measured
        .iter()
        .flat_map(|t| t.nodes().iter().cloned())
        .collect();
    out.extend(
        meta.claims
            .iter()
            .flat_map(|c| meta.claim_records(c))
            .map(|(_, n)| n),
    );
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes_read_as_the_card_reports_them() {
        assert_eq!(super::bytes_text(52428800), "50 MiB");
        assert_eq!(super::bytes_text(62914560), "60 MiB");
        assert_eq!(super::bytes_text(85520809984), "79.6 GiB");
        assert_eq!(super::bytes_text(150109880320), "139.8 GiB");
        assert_eq!(super::bytes_text(4194304 + 512), "4.0 MiB");
    }
}
