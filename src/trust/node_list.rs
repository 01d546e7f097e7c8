//! `nodes.json`, written by every build at the site root: each node's public key and its
//! fingerprint. A reproduce bundle carries its node's key in its own profile, and a
//! bundle vouching for itself proves nothing (an attacker re-signs an edited record with
//! their own key and puts that key in the profile); `glossary reproduce` trusts a bundle's
//! key only when it is the one the site lists here, remembered per site on first use
//! (`reproduce::pin`), or the one the reader names with `--trust-key`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::config::Config;

use super::sshsig;

/// The file's name at the site root.
pub use crate::config::NODES_FILE;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeList {
    pub nodes: BTreeMap<String, ListedNode>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListedNode {
    /// The OpenSSH public key line the node signs records with.
    pub public_key: String,
    /// `SHA256:...`, as `ssh-keygen -l` prints it.
    pub fingerprint: String,
    /// Keys the node retired, each with when and the records it signed (`glossary verify
    /// rotate-key`): `reproduce` judges a record signed by one of these by this entry,
    /// never by what the bundle says of it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub previous_keys: Vec<crate::config::PreviousKey>,
}

/// Whether `name` may be a node's name where it comes from outside (a bundle, a site's
/// list, `known_nodes`): 1 to 64 ASCII letters, digits, `_`, `-` and `.`, not starting
/// with `.` or `-`. An allow-list: a name with a newline, a space or an escape could write
/// lines into `known_nodes` or the terminal.
pub fn valid_node_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && !name.starts_with('.')
        && !name.starts_with('-')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

impl NodeList {
    /// A node list as a site serves it, refused unless every node is well-formed: a node
    /// name ([`valid_node_name`]), keys that parse and can sign, the fingerprint of the
    /// key listed, retirements, and record digests. Every problem is named, in one error.
    pub fn parse(bytes: &[u8]) -> Result<NodeList, String> {
        let list: NodeList =
            serde_json::from_slice(bytes).map_err(|e| format!("not a node list: {e}"))?;
        let mut problems = Vec::new();
        for (name, node) in &list.nodes {
            if !valid_node_name(name) {
                problems.push(format!(
                    "node name {:?} is not a node name (1 to 64 letters, digits, '_', '-', '.')",
                    name.chars().take(80).collect::<String>()
                ));
                continue;
            }
            let key = |line: &str| -> Result<ssh_key::PublicKey, String> {
                let k = sshsig::parse_public_key(line).map_err(|e| e.to_string())?;
                match sshsig::key_problem(&k) {
                    Some(why) => Err(format!("key {} {why}", sshsig::fingerprint(&k))),
                    None => Ok(k),
                }
            };
            match key(&node.public_key) {
                Err(e) => problems.push(format!("node {name}: public_key: {e}")),
                Ok(k) if sshsig::fingerprint(&k) != node.fingerprint => problems.push(format!(
                    "node {name}: fingerprint {} is not its public_key's ({})",
                    node.fingerprint.chars().take(80).collect::<String>(),
                    sshsig::fingerprint(&k)
                )),
                Ok(_) => {}
            }
            for (i, p) in node.previous_keys.iter().enumerate() {
                if let Err(e) = key(&p.key) {
                    problems.push(format!("node {name}: previous_keys[{i}]: {e}"));
                }
                for d in p.records.iter().flatten() {
                    if !super::node::is_record_digest(d) {
                        problems.push(format!(
                            "node {name}: previous_keys[{i}].records: {:?} is not a record digest",
                            d.chars().take(80).collect::<String>()
                        ));
                        break;
                    }
                }
            }
        }
        if problems.is_empty() {
            Ok(list)
        } else {
            Err(format!("not a usable node list: {}", problems.join("; ")))
        }
    }
}

/// The list of `config`'s nodes that have a usable public key.
pub fn node_list(config: &Config) -> NodeList {
    let nodes = config
        .nodes
        .iter()
        .filter_map(|(name, node)| {
            let line = node.public_key.as_deref()?;
            let key = sshsig::parse_public_key(line).ok()?;
            Some((
                name.clone(),
                ListedNode {
                    public_key: line.trim().to_string(),
                    fingerprint: sshsig::fingerprint(&key),
                    previous_keys: node.previous_keys.clone(),
                },
            ))
        })
        .collect();
    NodeList { nodes }
}
