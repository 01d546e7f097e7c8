//! Which keys a bundle's record may be signed with, decided outside the bundle. A bundle
//! names its node's keys in its own profile; taken alone, they vouch for nothing (an
//! attacker edits a kernel, re-signs the record with their own key and puts that key in
//! the profile, as its current key or as a "previous" one). So the node's whole key
//! history (its current key, and every key it retired with when and the records each
//! signed) is taken only from:
//! - the reader's `--trust-key` values: key lines, `.pub` files, `SHA256:` fingerprints,
//!   or the site's `nodes.json` saved to a file: for a downloaded file or a mirror; or
//! - for a bundle fetched from a site, that site's `nodes.json` (`trust::node_list`),
//!   remembered whole per site and node on first use in `known_nodes` (like ssh's
//!   `known_hosts`: `$XDG_CONFIG_HOME/glossary/known_nodes`, else
//!   `~/.config/glossary/known_nodes`), and refused loudly, naming what changed, if the
//!   site later lists another current key, adds or drops a previous key, or moves a
//!   retirement or a retired key's records.
//!
//! The record is then judged by the key that signed it (`trust::node::check_node_record`):
//! the current key, or a retired key for the records fixed at its retirement only.
//!
//! Sites are compared by origin, normalised ([`origin_of`]): scheme and host in lower
//! case, `localhost` and every loopback address as `127.0.0.1`, no default port, no
//! userinfo. One host is one site whatever the path: whoever serves one path of a host
//! serves every other, so a sub-path is no fresh start. A node name the site adds after
//! first use is remembered like the first, and said so.
//!
//! A bundle read from a path with no `--trust-key` is refused, saying how to proceed.
//!
//! The limit: on first use, the reader trusts what the site serves (its node list and the
//! bundle come from one place); a site compromised before a reader's first use, or a
//! reader who deletes the remembered line, gets no warning. The signer's fingerprint is
//! printed in every verdict so it can be compared with one published elsewhere.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use ssh_key::PublicKey;

use crate::config::PreviousKey;
use crate::trust::node_list::{valid_node_name, ListedNode, NodeList, NODES_FILE};
use crate::trust::sshsig::{fingerprint, key_material, parse_public_key};

/// The largest `known_nodes` read: a line per site and node is far below it.
const MAX_KNOWN_NODES_BYTES: u64 = 4 << 20;

/// How the node's key history came to be trusted, for the verdict line.
#[derive(Debug, Clone, PartialEq)]
pub enum Pinned {
    /// The reader's `--trust-key` keys.
    TrustKey,
    /// A node list the reader saved to a file and named with `--trust-key`.
    TrustList { file: String },
    /// The site's node list, remembered now for the first time. `others` are the nodes
    /// remembered earlier for the same site: a new node name at a known site.
    FirstUse {
        site: String,
        file: PathBuf,
        others: Vec<String>,
    },
    /// The site's node list, as remembered.
    Remembered { site: String },
}

impl std::fmt::Display for Pinned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Pinned::TrustKey => write!(
                f,
                "a key you named (--trust-key), for whatever it signs: a bare key carries no retirement (the site's {NODES_FILE} saved to a file holds a retired key to its records)"
            ),
            Pinned::TrustList { file } => {
                write!(f, "the node list you trust (--trust-key {file})")
            }
            Pinned::FirstUse {
                site,
                file,
                others,
            } if others.is_empty() => write!(
                f,
                "the keys {site}{NODES_FILE} lists, remembered now (first use) in {}",
                file.display()
            ),
            Pinned::FirstUse {
                site,
                file,
                others,
            } => write!(
                f,
                "the keys {site}{NODES_FILE} lists, remembered now in {}: NOTE a node name this site did not list before (remembered for it: {}); check it is the site's",
                file.display(),
                others.join(", ")
            ),
            Pinned::Remembered { site } => {
                write!(f, "the keys {site}{NODES_FILE} lists, as remembered")
            }
        }
    }
}

/// What the pin settled: the node's trusted key history, and how it is trusted.
#[derive(Debug, Clone)]
pub struct Trusted {
    /// The node's current key and its retired keys, as the trusted source lists them.
    pub keys: ListedNode,
    pub how: Pinned,
}

/// Where remembered node keys are kept.
pub fn known_nodes_file() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("glossary").join("known_nodes"))
}

/// A bundle URL's site, normalised: `(origin, site)`, where `origin` is what the pin is
/// kept under (`https://x.org`, `http://127.0.0.1:8000`) and `site` is the folder above
/// the URL's `reproduce/` folder, with a final `/` (`https://x.org/glossary/`), where the
/// site's `nodes.json` is read. Every respelling of one site gives one origin: scheme and
/// host in lower case, a host's final dot dropped, loopback as `127.0.0.1`, the default
/// port dropped (and a port's leading zeros), userinfo dropped; the path's `.`, `..` and
/// empty segments resolved.
pub fn origin_of(url: &str) -> Result<(String, String), String> {
    let parsed = url::Url::parse(url).map_err(|e| format!("{url} is not a URL: {e}"))?;
    let scheme = parsed.scheme().to_ascii_lowercase();
    if scheme != "https" && scheme != "http" {
        return Err(format!("{url}: only https:// and http:// sites are pinned"));
    }
    let host = match parsed.host() {
        None => return Err(format!("{url} names no host")),
        Some(url::Host::Domain(d)) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            if d == "localhost" || d.ends_with(".localhost") {
                "127.0.0.1".to_string()
            } else {
                d
            }
        }
        Some(url::Host::Ipv4(ip)) if ip.is_loopback() => "127.0.0.1".to_string(),
        Some(url::Host::Ipv4(ip)) => ip.to_string(),
        Some(url::Host::Ipv6(ip)) if ip.is_loopback() => "127.0.0.1".to_string(),
        Some(url::Host::Ipv6(ip)) => format!("[{ip}]"),
    };
    let origin = match parsed.port() {
        Some(p) => format!("{scheme}://{host}:{p}"),
        None => format!("{scheme}://{host}"),
    };
    // The path's segments, empty ones (`//`) dropped; `url` has resolved `.` and `..`.
    let segments: Vec<&str> = parsed
        .path_segments()
        .into_iter()
        .flatten()
        .filter(|s| !s.is_empty() && *s != "." && *s != ".." && *s != "%2e" && *s != "%2E")
        .collect();
    let dir = crate::measure::bundle::SITE_DIR;
    let above = segments
        .iter()
        .rposition(|s| *s == dir)
        .map_or(&segments[..0], |i| &segments[..i]);
    let mut site = format!("{origin}/");
    for s in above {
        site.push_str(s);
        site.push('/');
    }
    Ok((origin, site))
}

/// Settle which of `node`'s keys are trusted, and check that `signer` (the key that signed
/// the bundle's record) is one of them; `fetch_list` fetches the site's node list (a URL
/// source only). Every refusal names the signer's key and says what to do.
pub fn pin(
    source: &str,
    node: &str,
    signer: &PublicKey,
    trust_keys: &[String],
    known_nodes: Option<&Path>,
    fetch_list: &dyn Fn(&str) -> anyhow::Result<Vec<u8>>,
) -> anyhow::Result<Trusted> {
    // The name goes into messages and into known_nodes: it is checked before either.
    if !valid_node_name(node) {
        anyhow::bail!(
            "{source}: the bundle's node name {:?} is not a node name (1 to 64 letters, digits, '_', '-', '.'): refused, nothing run",
            node.chars().take(80).collect::<String>()
        );
    }
    let fp = fingerprint(signer);
    let trusted = if !trust_keys.is_empty() {
        from_trust_keys(node, signer, trust_keys)?
    } else {
        let lower = source.to_ascii_lowercase();
        if !(lower.starts_with("https://") || lower.starts_with("http://")) {
            anyhow::bail!(
                "{source} is a file: its record of node {node} is signed by key {fp}, and a bundle vouches for no key by itself. Reproduce from the site's URL (its {NODES_FILE} lists each node's keys), or pass --trust-key with node {node}'s key or fingerprint as the site publishes it, or the site's {NODES_FILE} saved to a file"
            );
        }
        from_site(source, node, signer, known_nodes, fetch_list)?
    };
    let whose = match &trusted.how {
        Pinned::TrustKey => "the keys you trust (--trust-key)".to_string(),
        Pinned::TrustList { file } => file.clone(),
        Pinned::FirstUse { site, .. } | Pinned::Remembered { site } => {
            format!("{site}{NODES_FILE}")
        }
    };
    signer_listed(signer, &trusted.keys).map_err(|listed| {
        anyhow::anyhow!(
            "the bundle's record of node {node} is signed by key {fp}, which {whose} lists neither as node {node}'s key ({listed}): refused, nothing run"
        )
    })?;
    Ok(trusted)
}

/// Ok when `signer` is `keys`' current key or one of its previous keys; else the keys
/// listed, for the message.
fn signer_listed(signer: &PublicKey, keys: &ListedNode) -> Result<(), String> {
    let mine = key_material(signer);
    let same = |line: &str| parse_public_key(line).ok().and_then(|k| key_material(&k)) == mine;
    if mine.is_some() && (same(&keys.public_key) || keys.previous_keys.iter().any(|p| same(&p.key)))
    {
        return Ok(());
    }
    let mut shown = keys.fingerprint.clone();
    if keys.previous_keys.is_empty() {
        shown.push_str(") nor as one of its previous keys (it lists none");
    } else {
        let previous: Vec<String> = keys
            .previous_keys
            .iter()
            .map(|p| shown_key(&p.key))
            .collect();
        shown.push_str(&format!(
            ") nor as one of its previous keys ({}",
            previous.join(", ")
        ));
    }
    Err(shown)
}

fn shown_key(line: &str) -> String {
    parse_public_key(line)
        .map(|k| fingerprint(&k))
        .unwrap_or_else(|_| {
            crate::visible::escape(&line.chars().take(60).collect::<String>()).into_owned()
        })
}

/// The history `--trust-key` gives: node lists saved from the site (their entry for
/// `node`), and bare keys or fingerprints (trusted as the node's key, whatever the bundle
/// says of them). A bare key that a given list names as retired is judged as retired.
fn from_trust_keys(
    node: &str,
    signer: &PublicKey,
    trust_keys: &[String],
) -> anyhow::Result<Trusted> {
    let mut list: Option<(String, ListedNode)> = None;
    let mut bare: Vec<String> = Vec::new();
    for t in trust_keys {
        let t = t.trim();
        match trusted_value(t)? {
            TrustValue::Fingerprint(f) => bare.push(f),
            TrustValue::Key(k) => bare.push(fingerprint(&k)),
            TrustValue::List(l) => {
                if list.is_some() {
                    anyhow::bail!(
                        "--trust-key {t}: a second node list; pass one site's {NODES_FILE}"
                    );
                }
                let entry = l.nodes.get(node).cloned().ok_or_else(|| {
                    anyhow::anyhow!(
                        "--trust-key {t}: that node list has no node {node} (it lists {})",
                        l.nodes.keys().cloned().collect::<Vec<_>>().join(", ")
                    )
                })?;
                list = Some((t.to_string(), entry));
            }
        }
    }
    let fp = fingerprint(signer);
    if let Some((file, keys)) = list {
        let listed = signer_listed(signer, &keys).is_ok();
        if listed || !bare.contains(&fp) {
            return Ok(Trusted {
                keys,
                how: Pinned::TrustList { file },
            });
        }
    }
    if bare.contains(&fp) {
        let line = signer.to_openssh().map_err(|e| anyhow::anyhow!("{e}"))?;
        return Ok(Trusted {
            keys: ListedNode {
                public_key: line,
                fingerprint: fp,
                previous_keys: Vec::new(),
            },
            how: Pinned::TrustKey,
        });
    }
    anyhow::bail!(
        "the bundle's record of node {node} is signed by key {fp}, which is none of the keys you trust (--trust-key {}): refused, nothing run",
        bare.join(", --trust-key ")
    )
}

enum TrustValue {
    Fingerprint(String),
    Key(PublicKey),
    List(NodeList),
}

/// One `--trust-key` value: a `SHA256:` fingerprint, a key line, or a file holding a key
/// line (`.pub`) or a node list (the site's `nodes.json`), checked whole.
fn trusted_value(t: &str) -> anyhow::Result<TrustValue> {
    if t.starts_with("SHA256:") {
        return Ok(TrustValue::Fingerprint(t.to_string()));
    }
    if let Ok(k) = parse_public_key(t) {
        return Ok(TrustValue::Key(k));
    }
    let bytes = super::fetch::fetch(t).map_err(|e| {
        anyhow::anyhow!("--trust-key {t}: not a public key line, a SHA256: fingerprint, nor a readable .pub or {NODES_FILE} file ({e})")
    })?;
    let text = String::from_utf8_lossy(&bytes);
    if let Ok(k) = parse_public_key(text.trim()) {
        return Ok(TrustValue::Key(k));
    }
    let list = NodeList::parse(&bytes).map_err(|e| {
        anyhow::anyhow!("--trust-key {t}: neither a public key nor a node list: {e}")
    })?;
    Ok(TrustValue::List(list))
}

/// One remembered node of one site: a JSON object a line, every field checked when read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct KnownNode {
    /// The site's origin, as [`origin_of`] writes it.
    site: String,
    node: String,
    key: String,
    /// None for a line written before previous keys were remembered (`site node key`):
    /// the history is remembered at its next use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    previous: Option<Vec<KnownPrevious>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct KnownPrevious {
    key: String,
    retired: String,
    /// How many records the key vouches for, and the digest of their sorted digests
    /// (one a line): any record added or removed changes it. None: the site fixes no list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    records: Option<(usize, String)>,
}

impl KnownNode {
    fn of(site: &str, node: &str, keys: &ListedNode) -> KnownNode {
        KnownNode {
            site: site.to_string(),
            node: node.to_string(),
            key: keys.public_key.trim().to_string(),
            previous: Some(keys.previous_keys.iter().map(KnownPrevious::of).collect()),
        }
    }
}

impl KnownPrevious {
    fn of(p: &PreviousKey) -> KnownPrevious {
        KnownPrevious {
            key: p.key.trim().to_string(),
            retired: p.retired.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            records: p.records.as_ref().map(|r| {
                let mut sorted = r.clone();
                sorted.sort();
                (
                    sorted.len(),
                    crate::trust::node::record_digest(sorted.join("\n").as_bytes()),
                )
            }),
        }
    }
}

/// Every line of `known_nodes`, each checked: a bad line is an error naming the file and
/// line (never skipped: a line that does not parse may be a pin someone broke on purpose),
/// and two lines for one site and node are too.
fn read_known(file: &Path) -> anyhow::Result<Vec<KnownNode>> {
    let meta = match std::fs::symlink_metadata(file) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => anyhow::bail!("{}: {e}", file.display()),
    };
    if !meta.file_type().is_file() {
        anyhow::bail!(
            "{}: not a regular file (a link or a folder): refused",
            file.display()
        );
    }
    if meta.len() > MAX_KNOWN_NODES_BYTES {
        anyhow::bail!(
            "{}: {} bytes, over the {MAX_KNOWN_NODES_BYTES} a known_nodes file may hold",
            file.display(),
            meta.len()
        );
    }
    let text =
        std::fs::read_to_string(file).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    let mut known: Vec<KnownNode> = Vec::new();
    let mut errors = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = format!("{}:{}", file.display(), n + 1);
        if line.trim().is_empty() {
            continue;
        }
        match parse_known(line) {
            Err(why) => errors.push(format!("{at}: {why}")),
            Ok(k) => {
                if let Some(i) = known
                    .iter()
                    .position(|o| o.site == k.site && o.node == k.node)
                {
                    errors.push(format!(
                        "{at}: a second line for node {} at {} (the first is line {}): one line a node; delete the one that is wrong",
                        k.node,
                        k.site,
                        i + 1
                    ));
                } else {
                    known.push(k);
                }
            }
        }
    }
    if !errors.is_empty() {
        anyhow::bail!(
            "{} is damaged, so no remembered key can be relied on; nothing run:\n{}",
            file.display(),
            errors.join("\n")
        );
    }
    Ok(known)
}

/// One line: a JSON object, or an older `site node key` line; every field checked.
fn parse_known(line: &str) -> Result<KnownNode, String> {
    let k = if line.starts_with('{') {
        serde_json::from_str::<KnownNode>(line)
            .map_err(|e| format!("not a remembered node: {e}"))?
    } else {
        let mut parts = line.splitn(3, ' ');
        let (Some(site), Some(node), Some(key)) = (parts.next(), parts.next(), parts.next()) else {
            return Err("not a remembered node (a JSON object, or `site node key`)".into());
        };
        KnownNode {
            site: origin_of(site)?.0,
            node: node.to_string(),
            key: key.to_string(),
            previous: None,
        }
    };
    if origin_of(&k.site).map(|(o, _)| o).as_deref() != Ok(k.site.as_str()) {
        return Err(format!(
            "site {:?} is not an origin as glossary writes one",
            shown_key(&k.site)
        ));
    }
    if !valid_node_name(&k.node) {
        return Err(format!(
            "node name {:?} is not a node name",
            shown_key(&k.node)
        ));
    }
    check_key(&k.key).map_err(|e| format!("key: {e}"))?;
    for (i, p) in k.previous.iter().flatten().enumerate() {
        check_key(&p.key).map_err(|e| format!("previous[{i}] key: {e}"))?;
        chrono::DateTime::parse_from_rfc3339(&p.retired)
            .map_err(|e| format!("previous[{i}] retired {:?}: {e}", shown_key(&p.retired)))?;
        if let Some((_, d)) = &p.records {
            if !crate::trust::node::is_record_digest(d) {
                return Err(format!(
                    "previous[{i}] records: {:?} is not a digest",
                    shown_key(d)
                ));
            }
        }
    }
    Ok(k)
}

fn check_key(line: &str) -> Result<(), String> {
    let k = parse_public_key(line).map_err(|e| e.to_string())?;
    match crate::trust::sshsig::key_problem(&k) {
        Some(why) => Err(format!("key {} {why}", fingerprint(&k))),
        None => Ok(()),
    }
}

fn same_key(a: &str, b: &str) -> bool {
    let m = |l: &str| parse_public_key(l).ok().and_then(|k| key_material(&k));
    m(a).is_some() && m(a) == m(b)
}

/// What differs between the remembered history and the one the site lists now, each
/// named; empty when they agree. `None` for a remembered line without its history.
fn changes(was: &KnownNode, now: &KnownNode) -> Vec<String> {
    let mut out = Vec::new();
    if !same_key(&was.key, &now.key) {
        out.push(format!(
            "its key: remembered {}, now {}",
            shown_key(&was.key),
            shown_key(&now.key)
        ));
    }
    let (Some(before), Some(after)) = (&was.previous, &now.previous) else {
        return out;
    };
    for p in before {
        match after.iter().find(|a| same_key(&a.key, &p.key)) {
            None => out.push(format!(
                "previous key {} (retired {}) is no longer listed",
                shown_key(&p.key),
                p.retired
            )),
            Some(a) => {
                if a.retired != p.retired {
                    out.push(format!(
                        "previous key {}: retired {} remembered, now {}",
                        shown_key(&p.key),
                        p.retired,
                        shown_key(&a.retired)
                    ));
                }
                if a.records != p.records {
                    let shown = |r: &Option<(usize, String)>| match r {
                        None => "no list".to_string(),
                        Some((n, d)) => format!("{n} records, {}", &d[..d.len().min(19)]),
                    };
                    out.push(format!(
                        "previous key {}: the records it signed changed ({} remembered, now {})",
                        shown_key(&p.key),
                        shown(&p.records),
                        shown(&a.records)
                    ));
                }
            }
        }
    }
    for a in after {
        if !before.iter().any(|p| same_key(&a.key, &p.key)) {
            out.push(format!(
                "previous key {} (retired {}) was not listed before",
                shown_key(&a.key),
                shown_key(&a.retired)
            ));
        }
    }
    out
}

/// The site's node list for `node`, checked whole, then held to what `known_nodes`
/// remembers for the site's origin (or remembered now, on first use).
fn from_site(
    source: &str,
    node: &str,
    signer: &PublicKey,
    known_nodes: Option<&Path>,
    fetch_list: &dyn Fn(&str) -> anyhow::Result<Vec<u8>>,
) -> anyhow::Result<Trusted> {
    let fp = fingerprint(signer);
    let (origin, site) = origin_of(source).map_err(|e| anyhow::anyhow!("{e}"))?;
    let list_url = format!("{site}{NODES_FILE}");
    let bytes = fetch_list(&list_url).map_err(|e| {
        anyhow::anyhow!("cannot read the site's node list {list_url} to check the key {fp} that signed node {node}'s record: {e}; pass --trust-key with the key the site publishes to go on")
    })?;
    let list = NodeList::parse(&bytes).map_err(|e| anyhow::anyhow!("{list_url}: {e}"))?;
    let listed = list.nodes.get(node).cloned().ok_or_else(|| {
        anyhow::anyhow!(
            "{list_url} lists no node {node}: the key {fp} that signed the bundle's record is not the site's; refused"
        )
    })?;
    let Some(file) = known_nodes else {
        anyhow::bail!("no home folder to remember node keys in (set HOME or XDG_CONFIG_HOME), and no --trust-key: refused");
    };
    let mut known = read_known(file)?;
    let now = KnownNode::of(&origin, node, &listed);
    if let Some(i) = known
        .iter()
        .position(|k| k.site == origin && k.node == node)
    {
        let was = &known[i];
        let changed = changes(was, &now);
        if !changed.is_empty() {
            anyhow::bail!(
                "WARNING: THE KEYS OF NODE {node} AT {origin} HAVE CHANGED.\n{}\nRemembered in {} for {origin}; {list_url} now lists otherwise, and the bundle's record is signed by {fp}.\nSomeone may be serving forged records, or the site's maintainers rotated the node's key. Refused, nothing run. If you know the keys were replaced, delete node {node}'s line for {origin} from {} and run again.",
                changed.iter().map(|c| format!("- {c}")).collect::<Vec<_>>().join("\n"),
                file.display(),
                file.display()
            );
        }
        if was.previous.is_none() {
            // A line from before histories were kept: its key held; the history is
            // remembered from now.
            known[i] = now;
            write_known(file, &known)?;
        }
        return Ok(Trusted {
            keys: listed,
            how: Pinned::Remembered { site },
        });
    }
    let others: Vec<String> = known
        .iter()
        .filter(|k| k.site == origin)
        .map(|k| k.node.clone())
        .collect();
    known.push(now);
    write_known(file, &known)?;
    Ok(Trusted {
        keys: listed,
        how: Pinned::FirstUse {
            site,
            file: file.to_path_buf(),
            others,
        },
    })
}

/// The whole file, a JSON object a line, written through the one atomic writer.
fn write_known(file: &Path, known: &[KnownNode]) -> anyhow::Result<()> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
    }
    let mut text = String::new();
    for k in known {
        text.push_str(&serde_json::to_string(k)?);
        text.push('\n');
    }
    crate::atomic::write_file(file, text.as_bytes(), crate::atomic::Durability::Synced)?;
    Ok(())
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

    fn retired(k: &PublicKey, at: &str, records: &[&str]) -> PreviousKey {
        PreviousKey {
            key: k.to_openssh().unwrap(),
            retired: chrono::DateTime::parse_from_rfc3339(at)
                .unwrap()
                .with_timezone(&chrono::Utc),
            records: Some(records.iter().map(|r| r.to_string()).collect()),
        }
    }

    fn entry(current: &PublicKey, previous: Vec<PreviousKey>) -> ListedNode {
        ListedNode {
            public_key: current.to_openssh().unwrap(),
            fingerprint: fingerprint(current),
            previous_keys: previous,
        }
    }

    fn list_of(nodes: &[(&str, ListedNode)]) -> Vec<u8> {
        serde_json::to_vec(&NodeList {
            nodes: nodes
                .iter()
                .map(|(n, e)| (n.to_string(), e.clone()))
                .collect(),
        })
        .unwrap()
    }

    const D1: &str = "sha256:1111111111111111111111111111111111111111111111111111111111111111";
    const D2: &str = "sha256:2222222222222222222222222222222222222222222222222222222222222222";

    /// Issue 53: one site, however spelled, is one origin; the site's folder is the one
    /// above `reproduce/`.
    #[test]
    fn every_respelling_of_a_site_is_one_origin() {
        let o = |u: &str| origin_of(u).unwrap();
        let base = ("https://x.org".to_string(), "https://x.org/".to_string());
        assert_eq!(o("https://x.org/reproduce/e/h200.json"), base);
        for u in [
            "HTTPS://X.ORG/reproduce/e/h200.json",
            "https://x.org:443/reproduce/e/h200.json",
            "https://x.org:0443/reproduce/e/h200.json",
            "https://user:pw@x.org/reproduce/e/h200.json",
            "https://x.org./reproduce/e/h200.json",
            "https://x.org//reproduce/e/h200.json",
            "https://x.org/./reproduce/e/h200.json",
            "https://x.org/a/../reproduce/e/h200.json",
        ] {
            assert_eq!(o(u), base, "{u}");
        }
        // A sub-path is the same origin (the pin's key), with its own folder.
        assert_eq!(
            o("https://x.org/glossary/reproduce/e/h200.json"),
            ("https://x.org".into(), "https://x.org/glossary/".into())
        );
        let local = (
            "http://127.0.0.1:8000".to_string(),
            "http://127.0.0.1:8000/".to_string(),
        );
        for u in [
            "http://127.0.0.1:8000/reproduce/e/h200.json",
            "http://localhost:8000/reproduce/e/h200.json",
            "http://LOCALHOST:08000/reproduce/e/h200.json",
            "http://[::1]:8000/reproduce/e/h200.json",
            "http://127.1:8000/reproduce/e/h200.json",
        ] {
            assert_eq!(o(u), local, "{u}");
        }
        assert_ne!(o("https://x.org:8443/reproduce/e/h.json").0, base.0);
        assert_ne!(o("http://x.org/reproduce/e/h.json").0, base.0);
    }

    /// Issue 53: the first use remembers the node's whole key history; a later list that
    /// adds a previous key, drops one, moves a retirement, changes a retired key's records
    /// or the current key is refused, naming what changed, however the site is spelled.
    #[test]
    fn the_pin_covers_the_whole_key_history() {
        let dir = tempfile::tempdir().unwrap();
        let known = dir.path().join("glossary/known_nodes");
        let (cur, old, evil) = (key(1), key(2), key(3));
        let genuine = entry(&cur, vec![retired(&old, "2026-12-04T00:00:00Z", &[D1])]);
        let url = "https://x.org/reproduce/e/h200.json";
        let run = |url: &str, signer: &PublicKey, listed: &ListedNode| {
            let bytes = list_of(&[("h200", listed.clone())]);
            pin(url, "h200", signer, &[], Some(&known), &move |_| {
                Ok(bytes.clone())
            })
        };
        let first = run(url, &old, &genuine).unwrap();
        assert!(
            matches!(first.how, Pinned::FirstUse { .. }),
            "{:?}",
            first.how
        );
        let again = run(url, &cur, &genuine).unwrap();
        assert_eq!(
            again.how,
            Pinned::Remembered {
                site: "https://x.org/".into()
            }
        );
        let hostile = [
            (
                entry(
                    &cur,
                    vec![
                        retired(&old, "2026-12-04T00:00:00Z", &[D1]),
                        retired(&evil, "2026-12-01T00:00:00Z", &[D2]),
                    ],
                ),
                format!(
                    "previous key {} (retired 2026-12-01T00:00:00Z) was not listed before",
                    fingerprint(&evil)
                ),
            ),
            (
                entry(&cur, vec![]),
                format!(
                    "previous key {} (retired 2026-12-04T00:00:00Z) is no longer listed",
                    fingerprint(&old)
                ),
            ),
            (
                entry(&cur, vec![retired(&old, "2026-12-09T00:00:00Z", &[D1])]),
                "retired 2026-12-04T00:00:00Z remembered, now 2026-12-09T00:00:00Z".into(),
            ),
            (
                entry(&cur, vec![retired(&old, "2026-12-04T00:00:00Z", &[D1, D2])]),
                "the records it signed changed (1 records".into(),
            ),
            (
                entry(&evil, vec![retired(&old, "2026-12-04T00:00:00Z", &[D1])]),
                format!(
                    "its key: remembered {}, now {}",
                    fingerprint(&cur),
                    fingerprint(&evil)
                ),
            ),
        ];
        for (listed, says) in hostile {
            for spelling in [
                url,
                "https://X.org:443//x/../reproduce/e/h200.json",
                "https://a@x.org/sub/reproduce/e/h200.json",
            ] {
                let e = run(spelling, &old, &listed).unwrap_err().to_string();
                assert!(
                    e.contains("HAVE CHANGED") && e.contains(&says),
                    "{spelling}: {e}"
                );
            }
        }
        // The file holds one line for the node, a JSON object.
        let text = std::fs::read_to_string(&known).unwrap();
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(
            text.starts_with("{\"site\":\"https://x.org\",\"node\":\"h200\""),
            "{text}"
        );
    }

    /// Issue 53: a node name the site did not list before is remembered and said so; a
    /// name that could write lines is refused before anything is fetched or written.
    #[test]
    fn a_new_node_at_a_known_site_says_so_and_a_bad_name_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let known = dir.path().join("known_nodes");
        let (a, b) = (key(1), key(2));
        let bytes = list_of(&[("h200", entry(&a, vec![])), ("h100", entry(&b, vec![]))]);
        let fetch = move |_: &str| Ok(bytes.clone());
        pin(
            "https://x.org/reproduce/e/h200.json",
            "h200",
            &a,
            &[],
            Some(&known),
            &fetch,
        )
        .unwrap();
        let t = pin(
            "https://x.org/reproduce/e/h100.json",
            "h100",
            &b,
            &[],
            Some(&known),
            &fetch,
        )
        .unwrap();
        assert_eq!(
            t.how,
            Pinned::FirstUse {
                site: "https://x.org/".into(),
                file: known.clone(),
                others: vec!["h200".into()]
            }
        );
        assert!(t
            .how
            .to_string()
            .contains("NOTE a node name this site did not list before"));
        let before = std::fs::read(&known).unwrap();
        let no_fetch =
            |_: &str| -> anyhow::Result<Vec<u8>> { panic!("nothing is fetched for a bad name") };
        for name in [
            "h200\nhttps://evil.org h200 ssh-ed25519 AAAA",
            "h 200",
            "",
            "../h200",
            "h200\u{1b}[2J",
        ] {
            let e = pin(
                "https://x.org/reproduce/e/x.json",
                name,
                &a,
                &[],
                Some(&known),
                &no_fetch,
            )
            .unwrap_err()
            .to_string();
            assert!(e.contains("is not a node name"), "{e}");
            assert!(!e.contains('\n'), "{e:?}");
        }
        assert_eq!(std::fs::read(&known).unwrap(), before);
    }

    /// Issue 53: every line of known_nodes is checked; a damaged or doubled line is an
    /// error naming the file and line, never skipped; a line in the older `site node key`
    /// form keeps its key and gains the history.
    #[test]
    fn known_nodes_is_read_strictly() {
        let dir = tempfile::tempdir().unwrap();
        let known = dir.path().join("known_nodes");
        let (a, evil) = (key(1), key(3));
        let bytes = list_of(&[(
            "h200",
            entry(&a, vec![retired(&key(2), "2026-12-04T00:00:00Z", &[D1])]),
        )]);
        let fetch = move |_: &str| Ok(bytes.clone());
        let url = "https://x.org/reproduce/e/h200.json";
        let line = |site: &str, node: &str, k: &PublicKey| {
            format!(
                "{{\"site\":\"{site}\",\"node\":\"{node}\",\"key\":\"{}\",\"previous\":[]}}\n",
                k.to_openssh().unwrap()
            )
        };
        for (text, says) in [
            (line("https://X.org", "h200", &a), ":1: site"),
            (line("https://x.org", "h 200", &a), ":1: node name"),
            (
                format!(
                    "{}{}",
                    line("https://x.org", "h200", &a),
                    line("https://x.org", "h200", &evil)
                ),
                ":2: a second line for node h200",
            ),
            (
                "{\"site\":\"https://x.org\"}\n".to_string(),
                ":1: not a remembered node",
            ),
            (
                line("https://x.org", "h200", &a)
                    .replace("\"previous\":[]", "\"previous\":[],\"extra\":1"),
                ":1: not a remembered node",
            ),
        ] {
            std::fs::write(&known, &text).unwrap();
            let e = pin(url, "h200", &a, &[], Some(&known), &fetch)
                .unwrap_err()
                .to_string();
            assert!(e.contains(&format!("known_nodes{says}")), "{text}: {e}");
        }
        // The older form: the key held, the history remembered from now.
        std::fs::write(
            &known,
            format!("https://x.org/ h200 {}\n", a.to_openssh().unwrap()),
        )
        .unwrap();
        let t = pin(url, "h200", &a, &[], Some(&known), &fetch).unwrap();
        assert!(matches!(t.how, Pinned::Remembered { .. }));
        let text = std::fs::read_to_string(&known).unwrap();
        assert!(text.contains("\"previous\":[{"), "{text}");
        std::fs::write(
            &known,
            format!("https://x.org/ h200 {}\n", evil.to_openssh().unwrap()),
        )
        .unwrap();
        let e = pin(url, "h200", &a, &[], Some(&known), &fetch)
            .unwrap_err()
            .to_string();
        assert!(e.contains("its key: remembered"), "{e}");
    }

    /// Issue 53: `--trust-key` takes several keys or the site's nodes.json saved to a
    /// file; a record is judged by the key that signed it, and a refusal names that key.
    #[test]
    fn trust_keys_are_several_or_a_saved_node_list() {
        let dir = tempfile::tempdir().unwrap();
        let (cur, old, evil) = (key(1), key(2), key(3));
        let no_fetch = |_: &str| -> anyhow::Result<Vec<u8>> { panic!("a file fetches nothing") };
        let e = pin("b.json", "h200", &old, &[], None, &no_fetch)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("pass --trust-key") && e.contains(&fingerprint(&old)),
            "{e}"
        );
        // Several keys: the signer's is among them.
        let keys = vec![fingerprint(&cur), old.to_openssh().unwrap()];
        let t = pin("b.json", "h200", &old, &keys, None, &no_fetch).unwrap();
        assert_eq!(t.how, Pinned::TrustKey);
        assert_eq!(t.keys.fingerprint, fingerprint(&old));
        let e = pin("b.json", "h200", &evil, &keys, None, &no_fetch)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("signed by key {}", fingerprint(&evil))),
            "{e}"
        );
        assert!(
            e.contains(&fingerprint(&cur)) && e.contains(&fingerprint(&old)),
            "{e}"
        );
        // The site's list, saved: the retired key is judged as retired, by the list.
        let saved = dir.path().join("nodes.json");
        std::fs::write(
            &saved,
            list_of(&[(
                "h200",
                entry(&cur, vec![retired(&old, "2026-12-04T00:00:00Z", &[D1])]),
            )]),
        )
        .unwrap();
        let arg = vec![saved.display().to_string()];
        let t = pin("b.json", "h200", &old, &arg, None, &no_fetch).unwrap();
        assert_eq!(
            t.how,
            Pinned::TrustList {
                file: saved.display().to_string()
            }
        );
        assert_eq!(t.keys.previous_keys.len(), 1);
        let e = pin("b.json", "h200", &evil, &arg, None, &no_fetch)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("signed by key {}", fingerprint(&evil)))
                && e.contains("nor as one of its previous keys")
                && e.contains(&fingerprint(&old)),
            "{e}"
        );
        let e = pin("b.json", "t4", &old, &arg, None, &no_fetch)
            .unwrap_err()
            .to_string();
        assert!(e.contains("has no node t4"), "{e}");
    }
}
