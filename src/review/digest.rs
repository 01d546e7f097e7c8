//! What a signature covers: the entry file as written, plus every record it cites.

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use crate::content::Entry;
use crate::measure::Library;

/// The material a signature binds, and its digest.
#[derive(Debug, Clone, PartialEq)]
pub struct SignedMaterial {
    pub digest: String,
    /// `experiment/node` -> digest of that record file ("missing" when there is none).
    pub records: BTreeMap<String, String>,
}

/// Every (experiment, node) the entry cites: tables, claims and its diagram.
pub fn cited_records(entry: &Entry) -> Vec<(String, String)> {
    let m = &entry.meta;
    let mut out: Vec<(String, String)> = m
        .measured
        .iter()
        .flat_map(|t| t.nodes().iter().map(|n| (t.experiment.clone(), n.clone())))
        .collect();
    out.extend(m.claims.iter().filter_map(|c| m.claim_record(c)));
    if let Some(d) = &m.diagram {
        if let (Some(e), Some(n)) = (&d.experiment, &d.node) {
            out.push((e.clone(), n.clone()));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Digest of the entry's text and its cited records. Signatures are kept in their own
/// files, so the entry text never contains them and signing never changes the digest.
pub fn signed_digest(entry: &Entry, library: &Library) -> SignedMaterial {
    let mut h = Sha256::new();
    h.update(b"entry\0");
    h.update((entry.raw.len() as u64).to_le_bytes());
    h.update(entry.raw.as_bytes());
    let mut records = BTreeMap::new();
    for (exp, node) in cited_records(entry) {
        let rd = library
            .record_digest(&exp, &node)
            .unwrap_or_else(|| "missing".to_string());
        h.update(b"record\0");
        h.update(exp.as_bytes());
        h.update(b"/");
        h.update(node.as_bytes());
        h.update(b"\0");
        h.update(rd.as_bytes());
        records.insert(format!("{exp}/{node}"), rd);
    }
    SignedMaterial {
        digest: format!("sha256:{}", hex::encode(h.finalize())),
        records,
    }
}
