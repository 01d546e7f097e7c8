//! A new verification node's profile, `[nodes.NAME]`, from what the driver reports of the
//! GPU (`measure::run::gpu::read_device`) and the node's public key: written at the end of
//! glossary.toml (everything already there kept as written) or printed for the maintainer
//! to paste. `glossary verify init-node NAME` runs it on the GPU machine.

use std::path::Path;

use crate::measure::run::gpu::DeviceFacts;

/// The longest node name: it names a record file (`records/<node>.json`) and a column group.
const MAX_NAME: usize = 32;

/// Whether `name` may name a node: lowercase ASCII letters, digits, `-` and `_`, starting
/// with a letter or digit (it becomes a file name and a TOML key).
pub fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
        && name.as_bytes()[0].is_ascii_alphanumeric();
    match ok {
        true => Ok(()),
        false => Err(format!(
            "`{name}` cannot name a node: use 1 to {MAX_NAME} lowercase letters, digits, `-` or `_`, starting with a letter or digit (as h100, t4, lab-a100)"
        )),
    }
}

/// What a new node's profile holds beyond the GPU's facts.
pub struct NewNode<'a> {
    pub name: &'a str,
    pub facts: &'a DeviceFacts,
    /// The node's public key line (`ssh-ed25519 AAAA... comment`).
    pub public_key: &'a str,
    /// Where the private half is on the GPU machine, as `key =` says it.
    pub key: &'a Path,
    /// The GPU model's datasheet, for the nodes page.
    pub datasheet: Option<&'a str>,
}

/// The `[nodes.NAME]` section, commented: TOML a maintainer can read and paste.
pub fn section(n: &NewNode<'_>) -> String {
    let q = |s: &str| toml_edit::value(s).to_string().trim().to_string();
    let mut out = format!(
        "[nodes.{name}]\n\
         # As the driver reported them on {uuid} (`glossary verify init-node`).\n\
         gpu = {gpu}\n\
         compute_capability = {cc}\n\
         arch = {arch}\n\
         sm_count = {sms}\n\
         l2_bytes = {l2}\n\
         mem_bytes = {mem}\n",
        name = n.name,
        uuid = n.facts.uuid,
        gpu = q(&n.facts.name),
        cc = q(&n.facts.compute_capability),
        arch = q(&n.facts.arch),
        sms = n.facts.sm_count,
        l2 = n.facts.l2_bytes,
        mem = n.facts.mem_bytes,
    );
    if let Some(url) = n.datasheet {
        out.push_str(&format!("datasheet = {}\n", q(url)));
    }
    out.push_str(&format!(
        "# Records of this node are cited only with this key's signature. The private half stays\n\
         # on the GPU machine, at `key` (never in the repository).\n\
         public_key = {}\n\
         key = {}\n",
        q(n.public_key),
        q(&n.key.to_string_lossy()),
    ));
    out
}

/// `text` (glossary.toml) with the new node's section added at its end. Refused: a name
/// glossary.toml already has (a node's profile is edited by hand, its key rotated with
/// `verify rotate-key`), and a file that does not parse.
pub fn add_node(text: &str, n: &NewNode<'_>) -> Result<String, String> {
    check_name(n.name)?;
    let doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e| format!("glossary.toml does not parse: {e}"))?;
    if doc.get("nodes").and_then(|t| t.get(n.name)).is_some() {
        return Err(format!(
            "glossary.toml already has [nodes.{}]: pick another name, or edit that profile by hand",
            n.name
        ));
    }
    let mut out = text.to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push('\n');
    out.push_str(&section(n));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> DeviceFacts {
        DeviceFacts {
            name: "NVIDIA H100 80GB HBM3".into(),
            compute_capability: "9.0".into(),
            arch: "sm_90".into(),
            sm_count: 132,
            l2_bytes: 52428800,
            mem_bytes: 85520809984,
            uuid: "GPU-00000000-0000-0000-0000-000000000000".into(),
        }
    }

    #[test]
    fn the_section_is_added_at_the_end_keeping_the_file_and_loads_as_a_node() {
        let f = facts();
        let n = NewNode {
            name: "lab-h100",
            facts: &f,
            public_key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAddjF77XL+qhkQ3DC+RnRNdMNZggW65xykKG5Qm3EJq node lab-h100",
            key: Path::new("~/.config/glossary/lab-h100_ed25519"),
            datasheet: Some("https://www.nvidia.com/en-us/data-center/h100/"),
        };
        let before = "# Site settings, kept as written.\ntitle = \"t\"\nbase_url = \"https://e.org\"\n\n[nodes.t4] # a comment\ngpu = \"Tesla T4\"\ncompute_capability = \"7.5\"\narch = \"sm_75\"\nsm_count = 40\n";
        let after = add_node(before, &n).unwrap();
        assert!(after.starts_with(before), "{after}");
        let config: crate::config::Config = toml::from_str(&after).unwrap();
        let node = &config.nodes["lab-h100"];
        assert_eq!(node.gpu, "NVIDIA H100 80GB HBM3");
        assert_eq!(
            (
                node.compute_capability.as_str(),
                node.arch.as_str(),
                node.sm_count
            ),
            ("9.0", "sm_90", 132)
        );
        assert_eq!(
            (node.l2_bytes, node.mem_bytes),
            (Some(52428800), Some(85520809984))
        );
        assert_eq!(node.public_key.as_deref(), Some(n.public_key));
        assert_eq!(node.key.as_deref(), Some(n.key));
        assert_eq!(node.datasheet.as_deref(), n.datasheet);
        // The name is taken now; a bad name is refused before anything is read.
        let said = add_node(&after, &n).unwrap_err();
        assert!(said.contains("already has [nodes.lab-h100]"), "{said}");
        for bad in ["", "H100", "-x", "a b", "a.b", "a]b", &"x".repeat(33)] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
        // A quote in the driver's name stays a TOML string.
        let mut odd = facts();
        odd.name = "GPU \"x\" \\ y".into();
        let text = add_node(before, &NewNode { facts: &odd, ..n }).unwrap();
        let config: crate::config::Config = toml::from_str(&text).unwrap();
        assert_eq!(config.nodes["lab-h100"].gpu, "GPU \"x\" \\ y");
    }
}
