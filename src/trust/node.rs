//! A node's signature on the records it measured: `records/<node>.json.sig` beside
//! `records/<node>.json`, an SSH signature (namespace `glossary-record`) over the record
//! file's exact bytes, made with the node's key when `verify` writes the record. A number
//! edited by hand, or a record written by anyone without the node's private key, no
//! longer verifies against the public key in the node's profile in `glossary.toml`.

use std::path::{Path, PathBuf};

use crate::config::{Config, CONFIG_FILE};
use crate::error::Error;

use super::file::{read_trust_text, MAX_SIGNATURE_BYTES};
use super::sshsig::{self, Signer, SshError, RECORD_NAMESPACE};

/// The nodes' public keys, checked once when glossary.toml is loaded for a build: each must
/// be a key that can sign ([`sshsig::key_problem`]: Ed25519, not small order, canonical),
/// and no two nodes may hold one key (compared by key material, in any encoding). A record
/// names its node and is signed by the node's key; with one key for two nodes, either
/// node's holder signs records as the other. Each error is at the key's line in
/// `config_path`.
pub fn check_node_keys(config: &Config, config_path: &Path) -> Vec<Error> {
    let mut errors = Vec::new();
    let mut owner: std::collections::BTreeMap<[u8; 32], String> = Default::default();
    for (node, profile) in &config.nodes {
        let at = config.public_key_at.get(node).copied();
        let current = profile
            .public_key
            .as_deref()
            .map(|k| (k, "public_key".to_string()));
        let previous = profile
            .previous_keys
            .iter()
            .enumerate()
            .map(|(i, p)| (p.key.as_str(), format!("previous_keys[{i}]")));
        for (text, field) in current.into_iter().chain(previous) {
            let mut err = |message: String| errors.push(Error::content(config_path, at, message));
            let key = match sshsig::parse_public_key(text) {
                Ok(k) => k,
                Err(e) => {
                    err(format!("[nodes.{node}] {field}: {e}"));
                    continue;
                }
            };
            if let Some(point) = sshsig::key_material(&key) {
                let me = if field == "public_key" {
                    node.clone()
                } else {
                    format!("{node} ({field})")
                };
                if let Some(other) = owner.insert(point, me) {
                    err(format!(
                        "[nodes.{node}] {field} is key {}, which node {other} has too (the same Ed25519 key, in any encoding): each node signs its records with a key of its own, or either signs as the other, and a rotation needs a new key",
                        sshsig::fingerprint(&key)
                    ));
                    continue;
                }
            }
            if let Some(why) = sshsig::key_problem(&key) {
                err(format!(
                    "[nodes.{node}] {field}: key {} {why}",
                    sshsig::fingerprint(&key)
                ));
            }
        }
    }
    for (node, profile) in &config.nodes {
        let at = config.public_key_at.get(node).copied();
        for (i, previous) in profile.previous_keys.iter().enumerate() {
            for (j, digest) in previous.records.iter().flatten().enumerate() {
                if !is_record_digest(digest) {
                    errors.push(Error::content(
                        config_path,
                        at,
                        format!("[nodes.{node}] previous_keys[{i}].records[{j}] is {digest:?}, not a record digest (`sha256:` and 64 lower-case hex digits, as `glossary verify seal-retired` writes them)"),
                    ));
                }
            }
        }
    }
    errors
}

/// Where a record's signature lives.
pub fn signature_path(record: &Path) -> PathBuf {
    let mut name = record.file_name().unwrap_or_default().to_os_string();
    name.push(".sig");
    record.with_file_name(name)
}

/// A record's signature file as text, if it is one the project may trust (a regular file
/// of at most [`MAX_SIGNATURE_BYTES`]); [`verify_record`] says why one was not.
pub fn read_signature(sig_path: &Path) -> Option<String> {
    read_trust_text(sig_path, MAX_SIGNATURE_BYTES).ok()
}

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error(transparent)]
    Write(#[from] crate::error::Error),
    #[error(transparent)]
    Sign(#[from] SshError),
}

/// Sign `bytes` with the node's key and write record and signature, each atomically
/// (temp file + rename). The signature is made before anything is written, so a key that
/// cannot sign leaves the old record and its signature in place.
pub fn write_signed(path: &Path, bytes: &[u8], signer: &Signer) -> Result<(), WriteError> {
    let sig = signer.sign(RECORD_NAMESPACE, bytes)?;
    write_with_signature(path, bytes, &sig)
}

/// Write a record and the signature it came with (an import of what verify wrote
/// elsewhere), each atomically.
pub fn write_with_signature(path: &Path, bytes: &[u8], sig: &str) -> Result<(), WriteError> {
    use crate::atomic::{write_file, Durability};
    // Record first: between the two writes the old signature sits beside the new record,
    // which reads as "not signed", never as a record signed that the node did not sign.
    write_file(path, bytes, Durability::Synced)?;
    write_file(&signature_path(path), sig.as_bytes(), Durability::Synced)?;
    Ok(())
}

/// Whether `bytes` carry `node`'s signature, checked against the node's public key from
/// its profile. The error says why not, for "record not signed by node NAME: ...".
pub fn verify_record(
    node: &str,
    public_key: Option<&str>,
    bytes: &[u8],
    signature: Option<&str>,
    sig_path: &Path,
) -> Result<(), String> {
    let Some(public_key) = public_key else {
        return Err(format!(
            "glossary.toml gives node {node} no public_key, so no record of it can be checked"
        ));
    };
    let key = sshsig::parse_public_key(public_key)
        .map_err(|e| format!("node {node}'s public_key in {CONFIG_FILE}: {e}"))?;
    if let Some(why) = sshsig::key_problem(&key) {
        return Err(format!(
            "node {node}'s public_key in {CONFIG_FILE}: key {} {why}",
            sshsig::fingerprint(&key)
        ));
    }
    let Some(signature) = signature else {
        // A signature file that is there but was not read says why, by name: a symlink,
        // a 1 GiB file, bytes that are not text; only a missing one is "there is no".
        return Err(match read_trust_text(sig_path, MAX_SIGNATURE_BYTES) {
            Err(e) if !e.is_missing() => e.to_string(),
            _ => format!("there is no {}", sig_path.display()),
        });
    };
    sshsig::verify(
        signature,
        RECORD_NAMESPACE,
        bytes,
        std::slice::from_ref(&key),
        &format!("node {node}"),
    )
    .map_err(|e| format!("its signature {e}"))
}

/// Which of a node's keys signed a record, for verdicts that name the signer (never the
/// node's current key when another key signed).
#[derive(Debug, Clone, PartialEq)]
pub enum SignedBy {
    /// The node's `public_key`.
    Current { fingerprint: String },
    /// One of its `previous_keys`, retired at `retired`, whose fixed records list holds
    /// this record among `sealed` ones.
    Previous {
        fingerprint: String,
        retired: chrono::DateTime<chrono::Utc>,
        sealed: usize,
    },
}

impl SignedBy {
    pub fn fingerprint(&self) -> &str {
        match self {
            SignedBy::Current { fingerprint } | SignedBy::Previous { fingerprint, .. } => {
                fingerprint
            }
        }
    }
}

impl std::fmt::Display for SignedBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SignedBy::Current { fingerprint } => {
                write!(f, "key {fingerprint} (the node's current key)")
            }
            SignedBy::Previous {
                fingerprint,
                retired,
                sealed,
            } => write!(
                f,
                "key {fingerprint} (a previous key of the node, retired {}; this record is one of the {sealed} it signed, fixed at its retirement)",
                retired.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            ),
        }
    }
}

/// A record file's digest as a retired key's `records` list holds it.
pub fn record_digest(bytes: &[u8]) -> String {
    use sha2::Digest;
    format!("sha256:{}", hex::encode(sha2::Sha256::digest(bytes)))
}

/// Whether `text` is a digest as [`record_digest`] writes it: `sha256:` and 64 lower-case
/// hex digits.
pub fn is_record_digest(text: &str) -> bool {
    text.strip_prefix("sha256:").is_some_and(|h| {
        h.len() == 64
            && h.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// [`check_node_record`], for callers that need only whether.
pub fn verify_node_record(
    node: &str,
    profile: &crate::config::Node,
    bytes: &[u8],
    signature: Option<&str>,
    sig_path: &Path,
    captured_at: chrono::DateTime<chrono::Utc>,
) -> Result<(), String> {
    check_node_record(node, profile, bytes, signature, sig_path, captured_at).map(|_| ())
}

/// Whether `bytes` carry `node`'s signature, and by which key: its current key, or a key
/// it retired whose fixed `records` list (the digests of what it signed, written when it
/// was retired) holds these bytes. The one rule for a node's records (latest, history,
/// imports, bundles): a rotation keeps every run the old key signed while it was the
/// node's, and a retired key signs nothing new, even backdated, since a new record's
/// digest is in no list. The record must also say it was captured before the retirement.
pub fn check_node_record(
    node: &str,
    profile: &crate::config::Node,
    bytes: &[u8],
    signature: Option<&str>,
    sig_path: &Path,
    captured_at: chrono::DateTime<chrono::Utc>,
) -> Result<SignedBy, String> {
    let current = verify_record(
        node,
        profile.public_key.as_deref(),
        bytes,
        signature,
        sig_path,
    );
    let why = match current {
        Ok(()) => {
            let fingerprint = profile
                .public_key
                .as_deref()
                .and_then(|k| sshsig::parse_public_key(k).ok())
                .map(|k| sshsig::fingerprint(&k))
                .unwrap_or_default();
            return Ok(SignedBy::Current { fingerprint });
        }
        Err(why) => why,
    };
    let Some(parsed) = signature.and_then(|s| sshsig::parse_signature(s).ok()) else {
        return Err(why);
    };
    for previous in &profile.previous_keys {
        let Ok(key) = sshsig::parse_public_key(&previous.key) else {
            continue; // refused when glossary.toml is loaded (check_node_keys)
        };
        if parsed.public_key_data() != key.key_data() {
            continue;
        }
        let fingerprint = sshsig::fingerprint(&key);
        let retired = previous
            .retired
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        if let Some(problem) = sshsig::key_problem(&key) {
            return Err(format!(
                "node {node}'s previous key {fingerprint} {problem}"
            ));
        }
        parsed
            .verify(
                RECORD_NAMESPACE,
                bytes,
                std::slice::from_ref(&key),
                &format!("node {node}"),
            )
            .map_err(|e| format!("its signature (by previous key {fingerprint}) {e}"))?;
        let Some(sealed) = &previous.records else {
            return Err(format!(
                "its signature was made with key {fingerprint}, which node {node} retired on {retired}, and glossary.toml fixes no list of the records that key signed (previous_keys `records`), so it vouches for none: run `glossary verify seal-retired --node {node}` to list the records it signed"
            ));
        };
        let digest = record_digest(bytes);
        if !sealed.contains(&digest) {
            return Err(format!(
                "its signature was made with key {fingerprint}, which node {node} retired on {retired}; this record ({}) is not one of the {} records that key signed before its retirement (previous_keys `records`): a retired key signs nothing new",
                &digest[.."sha256:".len() + 12],
                sealed.len()
            ));
        }
        if captured_at >= previous.retired {
            return Err(format!(
                "its signature was made with key {fingerprint}, which node {node} retired on {retired} (previous_keys), but the record says it was captured on {}, after that",
                captured_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            ));
        }
        return Ok(SignedBy::Previous {
            fingerprint,
            retired: previous.retired,
            sealed: sealed.len(),
        });
    }
    let signed_by_current = profile
        .public_key
        .as_deref()
        .and_then(|k| sshsig::parse_public_key(k).ok())
        .is_some_and(|k| k.key_data() == parsed.public_key_data());
    if profile.previous_keys.is_empty() || signed_by_current {
        Err(why)
    } else {
        Err(format!(
            "{why}, nor to any of its {} previous_keys",
            profile.previous_keys.len()
        ))
    }
}

/// A node's private key: `--key FILE`, else the profile's `key` path (`~/` expanded,
/// relative paths from the project root). Its public half must be the profile's.
pub fn node_signer(
    node: &str,
    root: &Path,
    key_arg: Option<&Path>,
    profile_key: Option<&Path>,
    profile_public: Option<&str>,
) -> Result<Signer, String> {
    let path = match (key_arg, profile_key) {
        (Some(k), _) => k.to_path_buf(),
        (None, Some(k)) => match k.to_str().and_then(|s| s.strip_prefix("~/")) {
            Some(rest) => std::env::var_os("HOME")
                .map(|h| PathBuf::from(h).join(rest))
                .unwrap_or_else(|| k.to_path_buf()),
            None if k.is_relative() => root.join(k),
            None => k.to_path_buf(),
        },
        (None, None) => {
            return Err(format!(
                "verify signs the records it writes with node {node}'s key: pass --key FILE, or set `key = \"PATH\"` under [nodes.{node}] in glossary.toml (the private key stays on the node, outside the repository)"
            ))
        }
    };
    let signer = Signer::from_file(&path).map_err(|e| e.to_string())?;
    let Some(public) = profile_public else {
        return Err(format!(
            "glossary.toml gives node {node} no public_key; add `public_key = \"{}\"` under [nodes.{node}] so builds can check its records",
            signer.public_key().to_openssh().unwrap_or_default()
        ));
    };
    let public = sshsig::parse_public_key(public).map_err(|e| e.to_string())?;
    if public.key_data() != signer.public_key().key_data() {
        return Err(format!(
            "{} is key {}, but node {node}'s public_key in glossary.toml is {}",
            path.display(),
            sshsig::fingerprint(signer.public_key()),
            sshsig::fingerprint(&public)
        ));
    }
    Ok(signer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signed_record_verifies_and_an_edited_one_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("records/h200.json");
        let node = Signer::ed25519_from_seed(&[7; 32], "h200").unwrap();
        let public = node.public_key().to_openssh().unwrap();
        write_signed(&path, b"{\"median_ms\": 1.5}\n", &node).unwrap();
        let sig_path = signature_path(&path);
        assert!(sig_path.ends_with("records/h200.json.sig"));
        let sig = std::fs::read_to_string(&sig_path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(
            verify_record("h200", Some(&public), &bytes, Some(&sig), &sig_path),
            Ok(())
        );
        let e = verify_record(
            "h200",
            Some(&public),
            b"{\"median_ms\": 1.4}\n",
            Some(&sig),
            &sig_path,
        )
        .unwrap_err();
        assert!(e.contains("does not verify"), "{e}");
        let e = verify_record("h200", Some(&public), &bytes, None, &sig_path).unwrap_err();
        assert!(e.contains("h200.json.sig"), "{e}");
        let other = Signer::ed25519_from_seed(&[8; 32], "x").unwrap();
        let forged = other.sign(RECORD_NAMESPACE, &bytes).unwrap();
        let e = verify_record("h200", Some(&public), &bytes, Some(&forged), &sig_path).unwrap_err();
        assert!(e.contains("not registered to node h200"), "{e}");
    }

    /// Issue 37: a signature file that is there but cannot be trusted is named with why,
    /// never reported as missing (a 1 GiB file: "there is no ...json.sig") nor parsed (10 MB
    /// of 'A's: "PEM preamble contains invalid data"); a symlinked one is refused by name.
    #[test]
    fn an_unreadable_signature_file_says_why_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("records/h200.json");
        let node = Signer::ed25519_from_seed(&[7; 32], "h200").unwrap();
        let public = node.public_key().to_openssh().unwrap();
        write_signed(&path, b"{}\n", &node).unwrap();
        let sig_path = signature_path(&path);
        let good = std::fs::read_to_string(&sig_path).unwrap();
        let check = || {
            let sig = read_signature(&sig_path);
            verify_record("h200", Some(&public), b"{}\n", sig.as_deref(), &sig_path)
        };
        assert_eq!(check(), Ok(()));

        // 10 MB of 'A's, and a sparse 1 GiB file (no disk used).
        std::fs::write(&sig_path, vec![b'A'; 10 << 20]).unwrap();
        let e = check().unwrap_err();
        assert!(
            e.contains("h200.json.sig is too large: 10485760 bytes"),
            "{e}"
        );
        let f = std::fs::File::create(&sig_path).unwrap();
        f.set_len(1 << 30).unwrap();
        drop(f);
        let e = check().unwrap_err();
        assert!(
            e.contains("h200.json.sig is too large: 1073741824 bytes"),
            "{e}"
        );

        // The good signature, behind a symlink.
        let elsewhere = dir.path().join("elsewhere.sig");
        std::fs::write(&elsewhere, &good).unwrap();
        std::fs::remove_file(&sig_path).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &sig_path).unwrap();
        let e = check().unwrap_err();
        assert!(e.contains("h200.json.sig is a symlink"), "{e}");

        std::fs::remove_file(&sig_path).unwrap();
        let e = check().unwrap_err();
        assert!(
            e.contains("there is no") && e.contains("h200.json.sig"),
            "{e}"
        );
    }

    use crate::trust::sshsig::tests::{ed25519_key, point, SMALL_ORDER};

    /// glossary.toml with a node per (name, public key line), loaded as a build loads it.
    fn config_with(nodes: &[(&str, String)]) -> (tempfile::TempDir, Config) {
        let dir = tempfile::tempdir().unwrap();
        let mut text = String::from("title = \"t\"\nbase_url = \"https://x.org\"\n");
        for (name, key) in nodes {
            text.push_str(&format!("\n[nodes.{name}]\ngpu = \"NVIDIA H200\"\ncompute_capability = \"9.0\"\narch = \"sm_90\"\nsm_count = 132\npublic_key = \"{key}\"\n"));
        }
        std::fs::write(dir.path().join(CONFIG_FILE), text).unwrap();
        let config = Config::load(dir.path()).unwrap();
        (dir, config)
    }

    fn errors(config: &Config) -> Vec<String> {
        check_node_keys(config, Path::new("glossary.toml"))
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    fn good(n: u8) -> String {
        Signer::ed25519_from_seed(&[n; 32], "node")
            .unwrap()
            .public_key()
            .to_openssh()
            .unwrap()
    }

    #[test]
    fn a_small_order_node_key_is_an_error_at_its_line_and_signs_nothing() {
        let weak = ed25519_key(point(SMALL_ORDER[0]), "node h200")
            .to_openssh()
            .unwrap();
        let (_dir, config) = config_with(&[("h100", good(1)), ("h200", weak.clone())]);
        let e = errors(&config);
        assert_eq!(e.len(), 1, "{e:?}");
        // Line 16, column 14: h200's public_key string.
        assert!(
            e[0].starts_with("glossary.toml:16:14: [nodes.h200] public_key: key SHA256:"),
            "{e:?}"
        );
        assert!(e[0].contains("small-order (weak) point"), "{e:?}");
        // A record with a forged signature (R = identity, S = 0) under it is not signed.
        let mut forged = point(SMALL_ORDER[0]).to_vec();
        forged.extend_from_slice(&[0; 32]);
        let sig = ssh_key::SshSig::new(
            sshsig::parse_public_key(&weak).unwrap().key_data().clone(),
            RECORD_NAMESPACE,
            ssh_key::HashAlg::Sha512,
            ssh_key::Signature::new(ssh_key::Algorithm::Ed25519, forged).unwrap(),
        )
        .unwrap()
        .to_pem(ssh_key::LineEnding::LF)
        .unwrap();
        let why = verify_record(
            "h200",
            Some(&weak),
            b"{}",
            Some(&sig),
            Path::new("h200.json.sig"),
        )
        .unwrap_err();
        assert!(why.contains("small-order (weak) point"), "{why}");
    }

    #[test]
    fn one_key_for_two_nodes_is_an_error_naming_both() {
        let (_dir, config) = config_with(&[
            ("h100", good(1)),
            ("h200", good(1).replace("node", "other comment")),
        ]);
        let e = errors(&config);
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(
            e[0].starts_with("glossary.toml:16:14: [nodes.h200] public_key is key SHA256:"),
            "{e:?}"
        );
        assert!(e[0].contains("which node h100 has too"), "{e:?}");
        let (_dir, config) = config_with(&[("h100", good(1)), ("h200", good(2))]);
        assert!(errors(&config).is_empty());
    }

    #[test]
    fn the_key_must_be_the_profiles() {
        let dir = tempfile::tempdir().unwrap();
        let key = Signer::ed25519_from_seed(&[7; 32], "h200").unwrap();
        let file = dir.path().join("node_key");
        std::fs::write(&file, key.private_openssh().unwrap()).unwrap();
        let other = Signer::ed25519_from_seed(&[9; 32], "x").unwrap();
        let e = node_signer(
            "h200",
            dir.path(),
            Some(&file),
            None,
            Some(&other.public_key().to_openssh().unwrap()),
        )
        .err()
        .unwrap();
        assert!(e.contains("but node h200's public_key"), "{e}");
        assert!(node_signer("h200", dir.path(), None, None, None).is_err());
        let ok = node_signer(
            "h200",
            dir.path(),
            None,
            Some(Path::new("node_key")),
            Some(&key.public_key().to_openssh().unwrap()),
        );
        assert!(ok.is_ok());
    }

    fn at(t: &str) -> chrono::DateTime<chrono::Utc> {
        chrono::DateTime::parse_from_rfc3339(t)
            .unwrap()
            .with_timezone(&chrono::Utc)
    }

    /// A node with `current` as its key and `previous` retired at the times given, each
    /// vouching for the record `{}` only.
    fn profile(current: &Signer, previous: &[(&Signer, &str)]) -> crate::config::Node {
        crate::config::Node {
            gpu: "NVIDIA H200".into(),
            compute_capability: "9.0".into(),
            arch: "sm_90".into(),
            sm_count: 132,
            public_key: Some(current.public_key().to_openssh().unwrap()),
            previous_keys: previous
                .iter()
                .map(|(k, t)| crate::config::PreviousKey {
                    key: k.public_key().to_openssh().unwrap(),
                    retired: at(t),
                    records: Some(vec![record_digest(b"{}")]),
                })
                .collect(),
            key: None,
            gpu_uuids: vec![],
            l2_bytes: None,
            mem_bytes: None,
            slurm: None,
            datasheet: None,
            contributed_by: None,
            peaks: Default::default(),
        }
    }

    #[test]
    fn a_retired_key_vouches_only_for_records_captured_before_its_retirement() {
        let old = Signer::ed25519_from_seed(&[1; 32], "old").unwrap();
        let new = Signer::ed25519_from_seed(&[2; 32], "new").unwrap();
        let stranger = Signer::ed25519_from_seed(&[3; 32], "x").unwrap();
        let p = profile(&new, &[(&old, "2026-12-04T00:00:00Z")]);
        let bytes = b"{}";
        let path = Path::new("records/h200.json.sig");
        let by = |k: &Signer| k.sign(RECORD_NAMESPACE, bytes).unwrap();
        let check = |sig: &str, captured: &str| {
            verify_node_record("h200", &p, bytes, Some(sig), path, at(captured))
        };
        assert_eq!(check(&by(&new), "2026-12-05T00:00:00Z"), Ok(()));
        assert_eq!(check(&by(&old), "2026-12-03T06:00:00Z"), Ok(()));
        let e = check(&by(&old), "2026-12-04T00:00:00Z").unwrap_err();
        assert!(
            e.contains("retired on 2026-12-04T00:00:00Z") && e.contains("after that"),
            "{e}"
        );
        let e = check(&by(&stranger), "2026-12-03T06:00:00Z").unwrap_err();
        assert!(e.contains("not registered to node h200"), "{e}");
        // An edited record does not verify under the old key either.
        let e = verify_node_record(
            "h200",
            &p,
            b"{ }",
            Some(&by(&old)),
            path,
            at("2026-12-01T00:00:00Z"),
        )
        .unwrap_err();
        assert!(e.contains("previous key"), "{e}");
        // Without the previous key listed, the old run is refused as before a rotation.
        let bare = profile(&new, &[]);
        let e = verify_node_record(
            "h200",
            &bare,
            bytes,
            Some(&by(&old)),
            path,
            at("2026-12-03T06:00:00Z"),
        )
        .unwrap_err();
        assert!(e.contains("not registered"), "{e}");
    }

    /// Issue 53: a retired key signs nothing new. A record its holder signs now, dated
    /// before the retirement (backdated), is in no fixed list and is refused, naming the
    /// signer's key; a key retired with no list vouches for nothing; each verdict names
    /// the key that signed, not the node's current key.
    #[test]
    fn a_retired_key_vouches_only_for_the_records_fixed_at_its_retirement() {
        let old = Signer::ed25519_from_seed(&[1; 32], "old").unwrap();
        let new = Signer::ed25519_from_seed(&[2; 32], "new").unwrap();
        let p = profile(&new, &[(&old, "2026-12-04T00:00:00Z")]);
        let path = Path::new("records/h200.json.sig");
        let captured = at("2026-12-03T06:00:00Z");
        let old_fp = sshsig::fingerprint(old.public_key());
        // The fixed record: accepted, named as signed by the retired key.
        let sig = old.sign(RECORD_NAMESPACE, b"{}").unwrap();
        let by = check_node_record("h200", &p, b"{}", Some(&sig), path, captured).unwrap();
        assert_eq!(
            by,
            SignedBy::Previous {
                fingerprint: old_fp.clone(),
                retired: at("2026-12-04T00:00:00Z"),
                sealed: 1
            }
        );
        assert!(
            by.to_string().contains("retired 2026-12-04T00:00:00Z"),
            "{by}"
        );
        // A backdated record the retired key signs today.
        let forged = br#"{"median_ms": 0.1}"#;
        let sig = old.sign(RECORD_NAMESPACE, forged).unwrap();
        let e = check_node_record("h200", &p, forged, Some(&sig), path, captured).unwrap_err();
        assert!(
            e.contains(&old_fp) && e.contains("not one of the 1 records that key signed"),
            "{e}"
        );
        // A key retired before lists were kept vouches for nothing until it is sealed.
        let mut unsealed = p.clone();
        unsealed.previous_keys[0].records = None;
        let sig = old.sign(RECORD_NAMESPACE, b"{}").unwrap();
        let e =
            check_node_record("h200", &unsealed, b"{}", Some(&sig), path, captured).unwrap_err();
        assert!(e.contains("seal-retired --node h200"), "{e}");
        // The current key's record names the current key.
        let sig = new.sign(RECORD_NAMESPACE, forged).unwrap();
        let by = check_node_record("h200", &p, forged, Some(&sig), path, captured).unwrap();
        assert_eq!(
            by.fingerprint(),
            sshsig::fingerprint(new.public_key()),
            "{by}"
        );
        // A stranger's key is named, and so is that it is none of the node's keys.
        let stranger = Signer::ed25519_from_seed(&[3; 32], "x").unwrap();
        let sig = stranger.sign(RECORD_NAMESPACE, b"{}").unwrap();
        let e = check_node_record("h200", &p, b"{}", Some(&sig), path, captured).unwrap_err();
        assert!(
            e.contains(&sshsig::fingerprint(stranger.public_key()))
                && e.contains("nor to any of its 1 previous_keys"),
            "{e}"
        );
    }

    #[test]
    fn a_malformed_record_digest_is_an_error_at_the_key() {
        let a = Signer::ed25519_from_seed(&[4; 32], "a").unwrap();
        let b = Signer::ed25519_from_seed(&[5; 32], "b").unwrap();
        let mut config: Config =
            toml::from_str("title = \"t\"\nbase_url = \"https://x.example\"\n").unwrap();
        let mut p = profile(&a, &[(&b, "2026-12-04T00:00:00Z")]);
        p.previous_keys[0].records = Some(vec!["sha256:ABC".into()]);
        config.nodes.insert("h200".into(), p);
        let e = check_node_keys(&config, Path::new("glossary.toml"));
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(
            e[0].to_string().contains("previous_keys[0].records[0]"),
            "{e:?}"
        );
    }

    #[test]
    fn a_previous_key_shared_with_another_node_is_refused() {
        let a = Signer::ed25519_from_seed(&[4; 32], "a").unwrap();
        let b = Signer::ed25519_from_seed(&[5; 32], "b").unwrap();
        let mut config: Config =
            toml::from_str("title = \"t\"\nbase_url = \"https://x.example\"\n").unwrap();
        config
            .nodes
            .insert("h200".into(), profile(&a, &[(&b, "2026-12-04T00:00:00Z")]));
        config.nodes.insert("t4".into(), profile(&b, &[]));
        let e = check_node_keys(&config, Path::new("glossary.toml"));
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].to_string().contains("previous_keys[0]"), "{e:?}");
    }
}
