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
pub const NODES_FILE: &str = "nodes.json";

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
    /// Keys the node retired, with when (`glossary verify rotate-key`): a bundle's profile
    /// may name only these as its previous keys.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub previous_keys: Vec<crate::config::PreviousKey>,
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
