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
    out.extend(m.claims.iter().flat_map(|c| m.claim_records(c)));
    if let Some(d) = &m.diagram {
        if let (Some(e), Some(n)) = (&d.experiment, &d.node) {
            out.push((e.clone(), n.clone()));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The digest of an entry with the cells its page shows (gathered by the assess stage),
/// with the signed text and its stored bytes: what `review sign` writes and `review diff`
/// compares.
pub fn signed_material(entry: &Entry, cells: BTreeMap<String, String>) -> SignedMaterial {
    let mut bytes = Vec::new();
    write_signed(entry, &cells, &mut bytes);
    let text = SignedText {
        entry: entry.id.to_string(),
        text: entry.raw.clone(),
        cells,
    };
    SignedMaterial {
        digest: format!("sha256:{}", hex::encode(Sha256::digest(&bytes))),
        text,
        bytes,
    }
}

/// The same digest as [`signed_material`], hashed as the bytes are made and keeping none
/// of them: a build needs only the digest, and holding every entry's signed text (a copy
/// of the file and of the expanded body) was most of its memory.
pub fn signed_digest(entry: &Entry, cells: &BTreeMap<String, String>) -> String {
    let mut hasher = HashWriter::default();
    write_signed(entry, cells, &mut hasher);
    format!("sha256:{}", hex::encode(hasher.finish()))
}

/// The stored form of a [`SignedText`], written from borrowed parts: the one place its
/// bytes are made, so the digest and the stored text cannot disagree.
fn write_signed(entry: &Entry, cells: &BTreeMap<String, String>, out: &mut impl std::io::Write) {
    /// [`SignedText`] borrowed: the same fields in the same order, so the same JSON.
    #[derive(Serialize)]
    struct Borrowed<'a> {
        entry: String,
        text: &'a str,
        cells: &'a BTreeMap<String, String>,
    }
    let text = Borrowed {
        entry: entry.id.to_string(),
        text: &entry.raw,
        cells,
    };
    // Serializing a struct of strings and a string map into memory or a hasher cannot fail.
    let _ = serde_json::to_writer_pretty(out, &text);
}

/// SHA-256 over what is written, in chunks: serde_json writes a JSON string in pieces
/// between escapes (every newline and quote of the file), and one hasher update per piece
/// was 2% of a build's time.
#[derive(Default)]
struct HashWriter {
    hasher: Sha256,
    pending: Vec<u8>,
}

impl HashWriter {
    const CHUNK: usize = 8 << 10;

    fn finish(mut self) -> impl AsRef<[u8]> {
        self.hasher.update(&self.pending);
        self.hasher.finalize()
    }
}

impl std::io::Write for HashWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.pending.len() + buf.len() > Self::CHUNK {
            self.hasher.update(&self.pending);
            self.pending.clear();
        }
        if buf.len() > Self::CHUNK {
            self.hasher.update(buf);
        } else {
            self.pending.extend_from_slice(buf);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::{EntryId, FrontMatter, Kind};

    fn entry() -> Entry {
        let raw = "---\ntitle: \"What is \\\"it\\\"?\"\nsummary: S.\n---\nBody ü \u{1F600}.\n";
        Entry {
            id: EntryId::new(Kind::Term, "it"),
            path: "content/terms/it.md".into(),
            raw: raw.into(),
            meta: serde_yaml::from_str::<FrontMatter>("title: t\nsummary: s\n").unwrap(),
            body: "Body.\n".into(),
            body_line: 5,
            thinned: None,
        }
    }

    #[test]
    fn digest_alone_equals_the_digest_of_the_stored_text() {
        let mut cells = BTreeMap::new();
        cells.insert("table 1 row a, column 1 ms".to_string(), "1.5".to_string());
        cells.insert("body as shown".to_string(), "Body \"quoted\"\n".to_string());
        let e = entry();
        let full = signed_material(&e, cells.clone());
        assert_eq!(signed_digest(&e, &cells), full.digest);
        // The stored bytes are the signed text's own JSON, so `review diff` reads back
        // exactly what was hashed.
        assert_eq!(serde_json::to_vec_pretty(&full.text).unwrap(), full.bytes);
    }
}
