//! Which key a bundle's record must be signed with, decided outside the bundle. A bundle
//! names its node's key in its own profile; taken alone, that key vouches for nothing (an
//! attacker edits a kernel, re-signs the record with their own key and puts that key in
//! the profile). So the key is trusted only when it is:
//! - the key the reader names with `--trust-key` (a key line, a `.pub` file or a
//!   `SHA256:` fingerprint): for a downloaded file or a mirror; or
//! - for a bundle fetched from a site, the key that site's `nodes.json` lists for the node
//!   (`trust::node_list`), remembered per site and node on first use in
//!   `known_nodes` (like ssh's `known_hosts`: `$XDG_CONFIG_HOME/glossary/known_nodes`, else
//!   `~/.config/glossary/known_nodes`), and refused loudly if the site later lists another.
//!
//! A bundle read from a path with no `--trust-key` is refused, saying how to proceed.
//!
//! The limit: on first use, the reader trusts what the site serves (its node list and the
//! bundle come from one place); a site compromised before a reader's first use, or a
//! reader who deletes the remembered line, gets no warning. The fingerprint is printed in
//! every verdict so it can be compared with one published elsewhere.

use std::path::{Path, PathBuf};

use ssh_key::PublicKey;

use crate::trust::node_list::{NodeList, NODES_FILE};
use crate::trust::sshsig::{fingerprint, key_material, parse_public_key};

/// How the bundle's key came to be trusted, for the verdict line.
#[derive(Debug, Clone, PartialEq)]
pub enum Pinned {
    /// The reader's `--trust-key`.
    TrustKey,
    /// The site's node list, remembered now for the first time.
    FirstUse { site: String, file: PathBuf },
    /// The site's node list, the key remembered earlier.
    Remembered { site: String },
}

impl std::fmt::Display for Pinned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Pinned::TrustKey => write!(f, "the key you trust (--trust-key)"),
            Pinned::FirstUse { site, file } => write!(
                f,
                "the key {site}{NODES_FILE} lists, remembered now (first use) in {}",
                file.display()
            ),
            Pinned::Remembered { site } => {
                write!(f, "the key {site}{NODES_FILE} lists, as remembered")
            }
        }
    }
}

/// Where remembered node keys are kept.
pub fn known_nodes_file() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("glossary").join("known_nodes"))
}

/// The site a bundle URL belongs to: everything before its `reproduce/` folder, with a
/// final `/` (`https://x.org/glossary/reproduce/e/n.json` → `https://x.org/glossary/`).
pub fn site_of(url: &str) -> String {
    let path_start = url.find("://").map_or(0, |i| i + 3);
    let host_end = url[path_start..]
        .find('/')
        .map_or(url.len(), |i| path_start + i);
    match url[host_end..].rfind(&format!("/{}/", crate::measure::bundle::SITE_DIR)) {
        Some(i) => url[..host_end + i + 1].to_string(),
        None => format!("{}/", &url[..host_end]),
    }
}

/// Decide whether `key`, the bundle's key for `node`, is trusted; `fetch_list` fetches the
/// site's node list (a URL source only). Every refusal says what to do.
/// `previous` is the bundle profile's retired keys: from a site, each must be one the
/// site's list names with the same retirement; with `--trust-key` the caller drops them
/// (only the trusted key counts).
#[allow(clippy::too_many_arguments)]
pub fn pin(
    source: &str,
    node: &str,
    key: &PublicKey,
    previous: &[crate::config::PreviousKey],
    trust_key: Option<&str>,
    known_nodes: Option<&Path>,
    fetch_list: &dyn Fn(&str) -> anyhow::Result<Vec<u8>>,
) -> anyhow::Result<Pinned> {
    let fp = fingerprint(key);
    if let Some(trusted) = trust_key {
        return if trusted_matches(trusted, key)? {
            Ok(Pinned::TrustKey)
        } else {
            anyhow::bail!(
                "the bundle's record of node {node} is signed by key {fp}, which is not the key you trust (--trust-key {}): refused, nothing run",
                shown_trusted(trusted)
            )
        };
    }
    let lower = source.to_ascii_lowercase();
    if !(lower.starts_with("https://") || lower.starts_with("http://")) {
        anyhow::bail!(
            "{source} is a file: a bundle names its own node's key ({fp}), which vouches for nothing by itself. Reproduce from the site's URL (its {NODES_FILE} lists each node's key), or pass --trust-key with node {node}'s key or fingerprint as the site publishes it"
        );
    }
    let site = site_of(source);
    let list_url = format!("{site}{NODES_FILE}");
    let bytes = fetch_list(&list_url).map_err(|e| {
        anyhow::anyhow!("cannot read the site's node list {list_url} to check node {node}'s key {fp}: {e}; pass --trust-key with the key the site publishes to go on")
    })?;
    let list: NodeList = serde_json::from_slice(&bytes)
        .map_err(|e| anyhow::anyhow!("{list_url} is not a node list: {e}"))?;
    let listed = list.nodes.get(node).ok_or_else(|| {
        anyhow::anyhow!(
            "{list_url} lists no node {node}: the bundle's key {fp} is not the site's; refused"
        )
    })?;
    let listed_key = parse_public_key(&listed.public_key)
        .map_err(|e| anyhow::anyhow!("{list_url}: node {node}'s key: {e}"))?;
    if key_material(&listed_key) != key_material(key) {
        anyhow::bail!(
            "the bundle's record of node {node} is signed by key {fp}, but {list_url} lists {} for it: refused, nothing run",
            fingerprint(&listed_key)
        );
    }
    // A retired key in the bundle's profile would let a record it signs verify: each must
    // be one the site lists, retired at the same time.
    for p in previous {
        let same = |l: &crate::config::PreviousKey| {
            l.retired == p.retired
                && parse_public_key(&l.key).ok().and_then(|k| key_material(&k))
                    == parse_public_key(&p.key).ok().and_then(|k| key_material(&k))
        };
        if !listed.previous_keys.iter().any(same) {
            let shown = parse_public_key(&p.key)
                .map(|k| fingerprint(&k))
                .unwrap_or_else(|_| p.key.chars().take(40).collect());
            anyhow::bail!(
                "the bundle's profile of node {node} names a retired key {shown} that {list_url} does not list: refused, nothing run"
            );
        }
    }
    let Some(file) = known_nodes else {
        anyhow::bail!("no home folder to remember node keys in (set HOME or XDG_CONFIG_HOME), and no --trust-key: refused");
    };
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => anyhow::bail!("{}: {e}", file.display()),
    };
    for (n, line) in text.lines().enumerate() {
        let mut parts = line.splitn(3, ' ');
        let (Some(s), Some(nd), Some(k)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        if s != site || nd != node {
            continue;
        }
        let remembered = parse_public_key(k)
            .map_err(|e| anyhow::anyhow!("{}:{}: {e}", file.display(), n + 1))?;
        if key_material(&remembered) == key_material(key) {
            return Ok(Pinned::Remembered { site });
        }
        anyhow::bail!(
            "WARNING: THE KEY OF NODE {node} AT {site} HAS CHANGED.\nRemembered: {} ({}:{}).\nThe site now lists and the bundle is signed by: {fp}.\nSomeone may be serving forged records, or the site's maintainers replaced the node's key. Refused, nothing run. If you know the key was replaced, delete line {} of {} and run again.",
            fingerprint(&remembered),
            file.display(),
            n + 1,
            n + 1,
            file.display()
        );
    }
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
    }
    let line = format!(
        "{site} {node} {}\n",
        key.to_openssh().map_err(|e| anyhow::anyhow!("{e}"))?
    );
    let mut all = text;
    if !all.is_empty() && !all.ends_with('\n') {
        all.push('\n');
    }
    all.push_str(&line);
    crate::atomic::write_file(file, all.as_bytes(), crate::atomic::Durability::Synced)?;
    Ok(Pinned::FirstUse {
        site,
        file: file.to_path_buf(),
    })
}

/// Whether `--trust-key` (a key line, a `.pub` file, or a `SHA256:` fingerprint) names
/// `key`.
fn trusted_matches(trusted: &str, key: &PublicKey) -> anyhow::Result<bool> {
    let t = trusted.trim();
    if t.starts_with("SHA256:") {
        return Ok(t == fingerprint(key));
    }
    let line = if parse_public_key(t).is_ok() {
        t.to_string()
    } else {
        std::fs::read_to_string(t).map_err(|e| {
            anyhow::anyhow!("--trust-key {t}: not a public key line, a SHA256: fingerprint, nor a readable .pub file ({e})")
        })?
    };
    let trusted = parse_public_key(&line).map_err(|e| anyhow::anyhow!("--trust-key: {e}"))?;
    Ok(key_material(&trusted) == key_material(key))
}

fn shown_trusted(trusted: &str) -> String {
    match parse_public_key(trusted) {
        Ok(k) => fingerprint(&k),
        Err(_) => trusted.chars().take(80).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trust::Signer;

    fn key(n: u8) -> PublicKey {
        Signer::ed25519_from_seed(&[n; 32], "node")
            .unwrap()
            .public_key()
            .clone()
    }

    fn list(k: &PublicKey) -> Vec<u8> {
        let line = k.to_openssh().unwrap();
        format!(
            "{{\"nodes\":{{\"h200\":{{\"public_key\":\"{line}\",\"fingerprint\":\"{}\"}}}}}}",
            fingerprint(k)
        )
        .into_bytes()
    }

    #[test]
    fn the_site_is_the_folder_above_reproduce() {
        assert_eq!(
            site_of("https://x.org/glossary/reproduce/e/h200.json"),
            "https://x.org/glossary/"
        );
        assert_eq!(
            site_of("https://x.org/reproduce/e/h200.json"),
            "https://x.org/"
        );
        assert_eq!(
            site_of("http://127.0.0.1:8000/x.json"),
            "http://127.0.0.1:8000/"
        );
    }

    /// Issue 37: the site's key is remembered on first use, and a bundle re-signed with
    /// another key (in its own profile) is refused, loudly when the site changed its list.
    #[test]
    fn a_key_is_pinned_per_site_and_a_change_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let known = dir.path().join("glossary/known_nodes");
        let url = "https://x.org/reproduce/e/h200.json";
        let (good, evil) = (key(1), key(2));
        let site_lists = |k: PublicKey| move |_: &str| Ok(list(&k));
        let first = pin(
            url,
            "h200",
            &good,
            &[],
            None,
            Some(&known),
            &site_lists(good.clone()),
        )
        .unwrap();
        assert!(matches!(first, Pinned::FirstUse { .. }), "{first:?}");
        let again = pin(
            url,
            "h200",
            &good,
            &[],
            None,
            Some(&known),
            &site_lists(good.clone()),
        )
        .unwrap();
        assert!(matches!(again, Pinned::Remembered { .. }), "{again:?}");
        // The bundle re-signed with the attacker's key, the site's list untouched.
        let e = pin(
            url,
            "h200",
            &evil,
            &[],
            None,
            Some(&known),
            &site_lists(good.clone()),
        )
        .unwrap_err();
        assert!(
            e.to_string().contains(&format!(
                "but https://x.org/nodes.json lists {}",
                fingerprint(&good)
            )),
            "{e}"
        );
        // The attacker controls the site's list too: the remembered key refuses it.
        let e = pin(
            url,
            "h200",
            &evil,
            &[],
            None,
            Some(&known),
            &site_lists(evil.clone()),
        )
        .unwrap_err();
        assert!(e.to_string().contains("HAS CHANGED"), "{e}");
        assert!(e.to_string().contains(&fingerprint(&good)), "{e}");
    }

    #[test]
    fn a_file_needs_a_trusted_key_and_gets_only_that_one() {
        let (good, evil) = (key(1), key(2));
        let no_fetch = |_: &str| -> anyhow::Result<Vec<u8>> { panic!("a file fetches nothing") };
        let e = pin("bundle.json", "h200", &evil, &[], None, None, &no_fetch).unwrap_err();
        assert!(e.to_string().contains("pass --trust-key"), "{e}");
        let fp = fingerprint(&good);
        assert_eq!(
            pin(
                "bundle.json",
                "h200",
                &good,
                &[],
                Some(&fp),
                None,
                &no_fetch
            )
            .unwrap(),
            Pinned::TrustKey
        );
        let line = good.to_openssh().unwrap();
        assert!(pin(
            "bundle.json",
            "h200",
            &good,
            &[],
            Some(&line),
            None,
            &no_fetch
        )
        .is_ok());
        let e = pin(
            "bundle.json",
            "h200",
            &evil,
            &[],
            Some(&fp),
            None,
            &no_fetch,
        )
        .unwrap_err();
        assert!(e.to_string().contains("not the key you trust"), "{e}");
    }
}
