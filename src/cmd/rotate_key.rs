//! `glossary verify rotate-key`: a node's new signing key in glossary.toml, the old one
//! kept as a previous key (see `trust::rotation`), so the runs it signed stay trusted.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};

use crate::config::{Config, CONFIG_FILE};
use crate::trust::Signer;

#[derive(clap::Args, Debug)]
pub struct RotateKeyArgs {
    /// The node whose key changes (a name under [nodes] in glossary.toml).
    #[arg(long)]
    pub node: String,
    /// The node's new private key (made with `ssh-keygen -t ed25519 -f FILE -N ''`); only
    /// its public half is written to glossary.toml.
    #[arg(long, value_name = "FILE")]
    pub key: PathBuf,
    /// When the old key stops signing (RFC 3339, e.g. 2026-12-02T00:00:00Z; default: now).
    /// Records it signed are trusted only if captured before this.
    #[arg(long, value_name = "TIME")]
    pub retired: Option<String>,
    /// The glossary project's root folder.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
}

pub fn run(args: &RotateKeyArgs) -> Result<()> {
    let path = args.root.join(CONFIG_FILE);
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let signer = Signer::from_file(&args.key)?;
    let new_key = signer
        .public_key()
        .to_openssh()
        .context("writing the new public key")?;
    let retired = match &args.retired {
        None => chrono::Utc::now(),
        Some(t) => chrono::DateTime::parse_from_rfc3339(t)
            .with_context(|| {
                format!("--retired {t}: write a time with its offset, as 2026-12-02T00:00:00Z")
            })?
            .with_timezone(&chrono::Utc),
    };
    let rotated = crate::trust::rotation::rotate(&text, &args.node, &new_key, retired)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    // The result must pass every check a build makes of the nodes' keys before it is
    // written: a rotation never leaves a glossary.toml that no longer loads.
    let mut config: Config = toml::from_str(&rotated)
        .with_context(|| format!("{} after the rotation", path.display()))?;
    config.public_key_at.clear();
    let problems = crate::trust::node::check_node_keys(&config, &path);
    if !problems.is_empty() {
        for p in &problems {
            eprintln!("error: {p}");
        }
        bail!("the rotated glossary.toml would not load; nothing written");
    }
    crate::atomic::write_file(&path, rotated.as_bytes(), crate::atomic::Durability::Synced)?;
    println!(
        "node {}: signing key is now {}; the previous key is kept in previous_keys, retired {}",
        args.node,
        crate::trust::sshsig::fingerprint(signer.public_key()),
        retired.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    );
    println!("re-measure with `glossary verify --node {} --key {}` so the latest records carry the new key", args.node, args.key.display());
    Ok(())
}
