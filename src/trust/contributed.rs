//! Contributed nodes: a reader's GPU whose records come back through `glossary
//! reproduce`. Its profile in glossary.toml names the registered person who measures on
//! it (`contributed_by`), and its `public_key` must be one of that person's keys in
//! content/people.toml: a record of it is then as good as the person's signature, no more.

use crate::config::Node;

use super::sshsig::parse_public_key;
use super::People;

/// Why a contributed profile cannot be trusted, if it cannot. A profile without
/// `contributed_by` is the project's own node: nothing to check here.
pub fn check_profile(node: &str, profile: &Node, people: &People) -> Result<(), String> {
    let Some(id) = &profile.contributed_by else {
        return Ok(());
    };
    let Some(person) = people.get(id) else {
        return Err(format!(
            "node {node} is contributed_by `{id}`, who is not registered in {}",
            super::PEOPLE_FILE
        ));
    };
    let Some(key) = &profile.public_key else {
        return Err(format!(
            "node {node} (contributed by `{id}`) has no public_key: set it to the key `{id}` signs with"
        ));
    };
    let key = parse_public_key(key).map_err(|e| format!("node {node}'s public_key: {e}"))?;
    if person.keys.iter().any(|k| k.key_data() == key.key_data()) {
        Ok(())
    } else {
        Err(format!(
            "node {node}'s public_key is not one of `{id}`'s keys in {}: a contributed node signs with its contributor's key",
            super::PEOPLE_FILE
        ))
    }
}
