//! The sharded search index of a small built site: the layout the browser script relies on
//! (manifest, shards by token prefix, document chunks), and that a rare and a common word
//! lead to the right entries when looked up the way `static/search.js` does.

mod support;
use support::signed as common;

use std::collections::BTreeSet;
use std::path::Path;

use common::*;

/// The JSON argument(s) of `glossarySearch.<call>(…);` in a script file.
fn call_args(script: &str, call: &str) -> String {
    let head = format!("glossarySearch.{call}(");
    script
        .strip_prefix(&head)
        .and_then(|s| s.trim_end().strip_suffix(");"))
        .unwrap_or_else(|| panic!("not a {call} script: {}", &script[..script.len().min(80)]))
        .to_string()
}

fn decode(list: &str) -> Vec<usize> {
    if let Some(bitmap) = list.strip_prefix('=') {
        // Base64 of a bitmap, bit i of byte i/8 for entry i (what `atob` reads).
        const A: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let sextets: Vec<u32> = bitmap
            .trim_end_matches('=')
            .chars()
            .map(|c| A.find(c).expect("base64") as u32)
            .collect();
        let bits: Vec<bool> = sextets
            .iter()
            .flat_map(|v| (0..6).rev().map(move |k| v >> k & 1 == 1))
            .collect();
        let bytes: Vec<u8> = bits
            .chunks(8)
            .filter(|c| c.len() == 8)
            .map(|c| c.iter().fold(0u8, |acc, &b| acc << 1 | b as u8))
            .collect();
        return (0..bytes.len() * 8)
            .filter(|i| bytes[i / 8] & (1 << (i % 8)) != 0)
            .collect();
    }
    let mut id = 0;
    list.split(',')
        .filter(|s| !s.is_empty())
        .enumerate()
        .map(|(k, gap)| {
            let gap = usize::from_str_radix(gap, 36).expect("base 36");
            id = if k == 0 { gap } else { id + gap };
            id
        })
        .collect()
}

struct Index {
    manifest: serde_json::Value,
    dir: std::path::PathBuf,
}

impl Index {
    fn open(site: &Path) -> Index {
        let dir = site.join("search");
        let manifest: serde_json::Value =
            serde_json::from_str(&call_args(&read(&dir.join("manifest.js")), "manifest"))
                .expect("manifest json");
        Index { manifest, dir }
    }

    fn keys(&self) -> Vec<String> {
        self.manifest["shards"]
            .as_object()
            .expect("shards")
            .keys()
            .cloned()
            .collect()
    }

    fn shard(&self, key: &str) -> serde_json::Value {
        let hex: String = key.bytes().map(|b| format!("{b:02x}")).collect();
        let text = read(&self.dir.join(format!("s-{hex}.js")));
        let args = call_args(&text, "shard");
        let (k, tokens) = args.split_once(',').expect("key, tokens");
        assert_eq!(serde_json::from_str::<String>(k).expect("key"), key);
        serde_json::from_str(tokens).expect("tokens json")
    }

    /// The urls of the entries containing `word` (title, summary or body).
    fn lookup(&self, word: &str) -> BTreeSet<String> {
        let Some(own) = self
            .keys()
            .into_iter()
            .filter(|k| word.starts_with(k.as_str()))
            .max_by_key(|k| k.len())
        else {
            return BTreeSet::new();
        };
        let shard = self.shard(&own);
        let Some(record) = shard.get(word) else {
            return BTreeSet::new();
        };
        let chunk = self.manifest["chunk"].as_u64().expect("chunk") as usize;
        (0..3)
            .flat_map(|f| decode(record[f].as_str().expect("id list")))
            .map(|id| {
                let docs = call_args(
                    &read(&self.dir.join(format!("d-{}.js", id / chunk))),
                    "docs",
                );
                let (_, list) = docs.split_once(',').expect("chunk, docs");
                let list: serde_json::Value = serde_json::from_str(list).expect("docs json");
                list[id % chunk][3].as_str().expect("url").to_string()
            })
            .collect()
    }
}

#[test]
fn search_index_is_sharded_by_token_prefix() {
    let dir = tempfile::tempdir().expect("temp dir");
    small_site(dir.path());
    let out = build(dir.path(), &[]);
    assert!(out.status.success(), "build failed: {}", stderr(&out));
    // The site's index holds published entries only (a `--drafts` preview's own index
    // lists its drafts too: tests/site_outputs.rs).
    let site = dir.path().join("site");
    let index = Index::open(&site);
    assert!(
        !site.join("search-index.js").exists(),
        "no single whole index"
    );
    assert_eq!(index.manifest["n"], 4, "the four published entries");

    let keys = index.keys();
    assert!(keys.len() > 20, "many small shards: {keys:?}");
    for key in &keys {
        assert!(
            (1..=2).contains(&key.chars().count()),
            "a small site needs no deeper split: {key}"
        );
        let size = index.manifest["shards"][key].as_u64().expect("size");
        let hex: String = key.bytes().map(|b| format!("{b:02x}")).collect();
        let file = std::fs::metadata(site.join(format!("search/s-{hex}.js"))).expect("shard file");
        assert_eq!(file.len(), size, "the manifest's size of {key}");
        for token in index.shard(key).as_object().expect("tokens").keys() {
            assert!(token.starts_with(key.as_str()), "{token} in shard {key}");
        }
    }

    // A rare word: only in the occupancy entry ('slots' is in the entries that link it too).
    assert_eq!(
        index.lookup("capacity"),
        BTreeSet::from(["terms/occupancy/index.html".to_string()])
    );
    // A common word: in several entries, drafts never.
    let common = index.lookup("the");
    assert!(common.len() >= 3, "{common:?}");
    assert!(common.contains("terms/occupancy/index.html"), "{common:?}");
    assert!(
        common.iter().all(|u| !u.contains("unsigned-draft")),
        "{common:?}"
    );
    assert!(index.lookup("draftonlyword").is_empty());
}
