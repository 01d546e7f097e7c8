//! A node's key rotation as an edit of glossary.toml: the node's `public_key` moves into
//! its `previous_keys` with the time it was retired and the digests of the records it
//! signed (`records`, fixed then: a retired key vouches for those and nothing new), and
//! the new key takes its place.
//! Everything else in the file (comments, order, other nodes) is kept as written, since
//! people maintain glossary.toml by hand.

use chrono::{DateTime, SecondsFormat, Utc};
use toml_edit::{value, Array, ArrayOfTables, DocumentMut, Item, Table};

/// `text` (glossary.toml) with `node`'s key rotated to `new_key` (an OpenSSH public key
/// line), the old one retired at `retired` with `records` (the digests of what it
/// signed, `fleet::seal`). Refused: an unknown node, a node without a
/// current key (there is nothing to retire: set `public_key` instead), and a new key that
/// is the current one or one it retired before (a rotation that changes nothing, or that
/// brings back a key someone chose to retire).
pub fn rotate(
    text: &str,
    node: &str,
    new_key: &str,
    retired: DateTime<Utc>,
    records: &[String],
) -> Result<String, String> {
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e| format!("glossary.toml does not parse: {e}"))?;
    let profile = doc
        .get_mut("nodes")
        .and_then(|n| n.get_mut(node))
        .and_then(Item::as_table_mut)
        .ok_or_else(|| format!("glossary.toml has no [nodes.{node}]"))?;
    let current = profile
        .get("public_key")
        .and_then(Item::as_str)
        .map(str::to_string)
        .ok_or_else(|| {
            format!("[nodes.{node}] has no public_key to retire: set `public_key = \"{new_key}\"` instead")
        })?;
    let material = |k: &str| {
        super::sshsig::parse_public_key(k)
            .ok()
            .map(|k| k.key_data().clone())
    };
    let new_material =
        material(new_key).ok_or_else(|| format!("`{new_key}` is not a public key"))?;
    if material(&current).as_ref() == Some(&new_material) {
        return Err(format!(
            "the new key is node {node}'s current key: make a new key pair (ssh-keygen -t ed25519 -f FILE -N '')"
        ));
    }
    let mut previous = read_previous(profile)?;
    for (i, entry) in previous.iter().enumerate() {
        if material(&entry.key).as_ref() == Some(&new_material) {
            return Err(format!(
                "the new key is [nodes.{node}] previous_keys[{i}], a key the node retired: make a new key pair"
            ));
        }
    }
    previous.push(Retired {
        key: current,
        retired: retired
            .to_rfc3339_opts(SecondsFormat::Secs, true)
            .parse()
            .map_err(|e| format!("{e}"))?,
        records: Some(records.to_vec()),
    });
    write_previous(profile, &previous);
    // Indexing keeps the key as written, with the comment lines above it; `insert` would
    // replace them.
    profile["public_key"] = value(new_key);
    Ok(doc.to_string())
}

/// `text` with `records` fixed for `node`'s previous key `index`, which has none yet (a
/// key retired before lists were kept). A list once fixed is never changed here: adding
/// to it is what a retired key must not be able to do.
pub fn seal(text: &str, node: &str, index: usize, records: &[String]) -> Result<String, String> {
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e| format!("glossary.toml does not parse: {e}"))?;
    let profile = doc
        .get_mut("nodes")
        .and_then(|n| n.get_mut(node))
        .and_then(Item::as_table_mut)
        .ok_or_else(|| format!("glossary.toml has no [nodes.{node}]"))?;
    let mut previous = read_previous(profile)?;
    let entry = previous
        .get_mut(index)
        .ok_or_else(|| format!("[nodes.{node}] has no previous_keys[{index}]"))?;
    if entry.records.is_some() {
        return Err(format!(
            "[nodes.{node}] previous_keys[{index}] already lists the records it signed; that list is not changed"
        ));
    }
    entry.records = Some(records.to_vec());
    write_previous(profile, &previous);
    Ok(doc.to_string())
}

/// One `previous_keys` entry, as written.
struct Retired {
    key: String,
    retired: toml_edit::Datetime,
    records: Option<Vec<String>>,
}

/// The node's `previous_keys`, whether written as an array of inline tables or as
/// `[[nodes.NAME.previous_keys]]` tables.
fn read_previous(profile: &Table) -> Result<Vec<Retired>, String> {
    let shape = || {
        "previous_keys must be a list of {key, retired, records}: [[nodes.NAME.previous_keys]] tables, or previous_keys = [{key = \"...\", retired = 2026-12-02T00:00:00Z}]".to_string()
    };
    let entry = |get: &dyn Fn(&str) -> Option<toml_edit::Value>| -> Result<Retired, String> {
        let key = get("key")
            .and_then(|v| v.as_str().map(str::to_string))
            .ok_or_else(shape)?;
        let retired = get("retired")
            .and_then(|v| v.as_datetime().copied())
            .ok_or_else(shape)?;
        let records = match get("records") {
            None => None,
            Some(v) => Some(
                v.as_array()
                    .ok_or_else(shape)?
                    .iter()
                    .map(|d| d.as_str().map(str::to_string).ok_or_else(shape))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
        };
        Ok(Retired {
            key,
            retired,
            records,
        })
    };
    match profile.get("previous_keys") {
        None => Ok(Vec::new()),
        Some(Item::ArrayOfTables(tables)) => tables
            .iter()
            .map(|t| entry(&|k| t.get(k).and_then(Item::as_value).cloned()))
            .collect(),
        Some(item) => item
            .as_array()
            .ok_or_else(shape)?
            .iter()
            .map(|v| {
                let t = v.as_inline_table().ok_or_else(shape)?;
                entry(&|k| t.get(k).cloned())
            })
            .collect(),
    }
}

/// Write `previous` as `[[nodes.NAME.previous_keys]]` tables, each `records` list one
/// digest a line: a list of dozens of digests does not fit an inline table's one line.
fn write_previous(profile: &mut Table, previous: &[Retired]) {
    let mut tables = ArrayOfTables::new();
    for p in previous {
        let mut t = Table::new();
        t.insert("key", value(p.key.as_str()));
        t.insert("retired", value(p.retired));
        if let Some(records) = &p.records {
            let mut list = Array::new();
            for d in records {
                list.push_formatted(toml_edit::Value::from(d.as_str()).decorated("\n  ", ""));
            }
            list.set_trailing_comma(!records.is_empty());
            list.set_trailing("\n");
            t.insert("records", value(list));
        }
        tables.push(t);
    }
    profile.remove("previous_keys");
    profile.insert("previous_keys", Item::ArrayOfTables(tables));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::trust::Signer;

    fn key(seed: u8) -> String {
        Signer::ed25519_from_seed(&[seed; 32], "node")
            .unwrap()
            .public_key()
            .to_openssh()
            .unwrap()
    }

    fn config(text: &str) -> Config {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn the_current_key_moves_to_previous_keys_with_its_retirement() {
        let text = format!(
            "title = \"t\"\nbase_url = \"https://x.example\"\n\n# the node\n[nodes.h200]\ngpu = \"NVIDIA H200\"\ncompute_capability = \"9.0\"\narch = \"sm_90\"\nsm_count = 132\n# the key\npublic_key = \"{}\"\n",
            key(1)
        );
        let at = DateTime::parse_from_rfc3339("2026-12-04T18:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let once = rotate(&text, "h200", &key(2), at, &[]).unwrap();
        assert!(once.contains("# the node"), "comments kept:\n{once}");
        assert!(
            once.contains("# the key\npublic_key = "),
            "the key's comment kept:\n{once}"
        );
        let c = config(&once);
        let h200 = &c.nodes["h200"];
        assert_eq!(h200.public_key.as_deref(), Some(key(2).as_str()));
        assert_eq!(h200.previous_keys.len(), 1);
        assert_eq!(h200.previous_keys[0].key, key(1));
        assert_eq!(h200.previous_keys[0].retired, at);
        // A second rotation appends; the first retirement stays as it was.
        let later = at + chrono::Duration::days(30);
        let twice = rotate(&once, "h200", &key(3), later, &[]).unwrap();
        let c = config(&twice);
        let keys: Vec<_> = c.nodes["h200"]
            .previous_keys
            .iter()
            .map(|p| (p.key.clone(), p.retired))
            .collect();
        assert_eq!(keys, vec![(key(1), at), (key(2), later)]);
    }

    #[test]
    fn a_rotation_to_the_same_or_a_retired_key_is_refused() {
        let text = format!(
            "title = \"t\"\nbase_url = \"https://x.example\"\n[nodes.h200]\ngpu = \"g\"\ncompute_capability = \"9.0\"\narch = \"sm_90\"\nsm_count = 1\npublic_key = \"{}\"\n",
            key(1)
        );
        let now = Utc::now();
        let e = rotate(&text, "h200", &key(1), now, &[]).unwrap_err();
        assert!(e.contains("current key"), "{e}");
        let once = rotate(&text, "h200", &key(2), now, &[]).unwrap();
        let e = rotate(&once, "h200", &key(1), now, &[]).unwrap_err();
        assert!(e.contains("previous_keys[0]"), "{e}");
        let e = rotate(&text, "t4", &key(2), now, &[]).unwrap_err();
        assert!(e.contains("no [nodes.t4]"), "{e}");
    }

    /// Issue 53: a rotation writes the retired key's records, one digest a line, turning
    /// an inline `previous_keys` into tables without losing an entry; `seal` fills in a
    /// list that is missing and never changes one that is there.
    #[test]
    fn the_retired_keys_records_are_written_and_a_list_is_never_changed() {
        let d = |c: char| format!("sha256:{}", c.to_string().repeat(64));
        let text = format!(
            "title = \"t\"\nbase_url = \"https://x.example\"\n[nodes.h200]\ngpu = \"g\"\ncompute_capability = \"9.0\"\narch = \"sm_90\"\nsm_count = 1\npublic_key = \"{}\"\nprevious_keys = [{{ key = \"{}\", retired = 2026-12-01T00:00:00Z }}]\n",
            key(2),
            key(1)
        );
        let at = DateTime::parse_from_rfc3339("2026-12-04T18:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let once = rotate(&text, "h200", &key(3), at, &[d('a'), d('b')]).unwrap();
        assert!(
            once.contains(&format!(
                "records = [\n  \"{}\",\n  \"{}\",\n]",
                d('a'),
                d('b')
            )),
            "{once}"
        );
        let c = config(&once);
        let p = &c.nodes["h200"].previous_keys;
        assert_eq!(p.len(), 2);
        assert_eq!(
            (p[0].key.as_str(), p[0].records.as_ref()),
            (key(1).as_str(), None)
        );
        assert_eq!(p[1].records, Some(vec![d('a'), d('b')]));
        let sealed = seal(&once, "h200", 0, &[d('c')]).unwrap();
        assert_eq!(
            config(&sealed).nodes["h200"].previous_keys[0].records,
            Some(vec![d('c')])
        );
        let e = seal(&sealed, "h200", 1, &[d('c')]).unwrap_err();
        assert!(e.contains("already lists the records"), "{e}");
        let e = seal(&sealed, "h200", 0, &[]).unwrap_err();
        assert!(e.contains("already lists the records"), "{e}");
    }
}
