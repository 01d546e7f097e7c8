//! What a signature covers: everything the entry controls on its page. That is its kind
//! and slug, its file (front matter and body), and every number records and the
//! occupancy model put on the page: table cells, the body with its `value()`, `ratio()`
//! and `occupancy()` calls expanded, and the diagram's preset and drawing. Renaming the
//! entry, re-measuring a number it shows, or a model change that moves one, changes the
//! digest and so withdraws the signatures; a re-measurement that moves nothing shown
//! does not.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::content::Entry;

/// The signed text, stored once under its digest (`content/reviews/texts/`). Serialized
/// as JSON with sorted keys, so equal content has equal bytes and an equal digest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignedText {
    /// `kind/slug`.
    pub entry: String,
    /// The entry file as written.
    pub text: String,
    /// What the page shows that the file does not hold, by name: `table EXP/NODE ROW
    /// COLUMN`, `body` (the body with its calls expanded, when it has calls), `diagram
    /// preset`, `diagram`.
    pub cells: BTreeMap<String, String>,
}

/// The material a signature binds, and its digest.
#[derive(Debug, Clone, PartialEq)]
pub struct SignedMaterial {
    pub digest: String,
    pub text: SignedText,
    /// The stored form of `text`; its sha256 is the digest.
    pub bytes: Vec<u8>,
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

/// The digest of an entry with the cells its page shows (gathered by the assess stage).
pub fn signed_material(entry: &Entry, cells: BTreeMap<String, String>) -> SignedMaterial {
    let text = SignedText {
        entry: entry.id.to_string(),
        text: entry.raw.clone(),
        cells,
    };
    // Serializing a struct of strings and a string map cannot fail.
    let bytes = serde_json::to_vec_pretty(&text).unwrap_or_default();
    SignedMaterial {
        digest: format!("sha256:{}", hex::encode(Sha256::digest(&bytes))),
        text,
        bytes,
    }
}
