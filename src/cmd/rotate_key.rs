//! `glossary verify rotate-key`: a node's new signing key in glossary.toml, the old one
//! kept as a previous key with the records it signed fixed (see `trust::rotation` and
//! `fleet::seal`), so those runs stay trusted and the old key signs nothing new.
//! `glossary verify seal-retired`: that list, for keys retired before lists were kept.

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
    /// When the old key stopped signing (RFC 3339, e.g. 2026-12-02T00:00:00Z; default: now;
    /// never in the future). Its records captured before this are listed as the ones it
    /// signed; it vouches for no other.
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
    let now = chrono::Utc::now();
    let retired = match &args.retired {
        None => now,
        Some(t) => chrono::DateTime::parse_from_rfc3339(t)
            .with_context(|| {
                format!("--retired {t}: write a time with its offset, as 2026-12-02T00:00:00Z")
            })?
            .with_timezone(&chrono::Utc),
    };
    if retired > now {
        // A retirement still to come would let the old key go on signing new records,
        // each dated before it, that would then be fixed as the key's.
        bail!(
            "--retired {}: that is in the future (it is now {}); a key is retired when it stops signing, now or earlier",
            retired.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        );
    }
    let config = Config::load(&args.root)?;
    let old_key = config
        .node(&args.node)?
        .public_key
        .as_deref()
        .and_then(|k| crate::trust::sshsig::parse_public_key(k).ok());
    let (records, files) = match &old_key {
        Some(k) => crate::fleet::seal::signed_records(
            &crate::config::Layout::new(&args.root).measurements(),
            &args.node,
            k,
            retired,
        )
        .with_context(|| {
            format!(
                "reading {}",
                crate::config::Layout::new(&args.root)
                    .measurements()
                    .display()
            )
        })?,
        None => (Vec::new(), Vec::new()),
    };
    let rotated = crate::trust::rotation::rotate(&text, &args.node, &new_key, retired, &records)
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
        "node {}: signing key is now {}; the previous key is kept in previous_keys, retired {}, vouching for the {} records it signed ({} files)",
        args.node,
        crate::trust::sshsig::fingerprint(signer.public_key()),
        retired.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        records.len(),
        files.len()
    );
    println!("re-measure with `glossary verify --node {} --key {}` so the latest records carry the new key", args.node, args.key.display());
    Ok(())
}

#[derive(clap::Args, Debug)]
pub struct SealRetiredArgs {
    /// The node whose previous keys get their records listed.
    #[arg(long)]
    pub node: String,
    /// The glossary project's root folder.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
}

/// For each of the node's previous keys with no `records` list (retired before lists were
/// kept), list the records under measurements/ it signed before its retirement. A list
/// already there is left as it is. Run it once, on a checkout holding every record the
/// key signed: what is not listed then is never trusted from that key.
pub fn seal_run(args: &SealRetiredArgs) -> Result<()> {
    let path = args.root.join(CONFIG_FILE);
    let mut text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let config = Config::load(&args.root)?;
    let profile = config.node(&args.node)?;
    let mut sealed = 0;
    for (i, previous) in profile.previous_keys.iter().enumerate() {
        if previous.records.is_some() {
            continue;
        }
        let key = crate::trust::sshsig::parse_public_key(&previous.key).map_err(|e| {
            anyhow::anyhow!(
                "{}: [nodes.{}] previous_keys[{i}]: {e}",
                path.display(),
                args.node
            )
        })?;
        let (records, files) = crate::fleet::seal::signed_records(
            &crate::config::Layout::new(&args.root).measurements(),
            &args.node,
            &key,
            previous.retired,
        )
        .with_context(|| {
            format!(
                "reading {}",
                crate::config::Layout::new(&args.root)
                    .measurements()
                    .display()
            )
        })?;
        text = crate::trust::rotation::seal(&text, &args.node, i, &records)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        println!(
            "node {}: previous key {} (retired {}) vouches for the {} records it signed ({} files)",
            args.node,
            crate::trust::sshsig::fingerprint(&key),
            previous
                .retired
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            records.len(),
            files.len()
        );
        sealed += 1;
    }
    if sealed == 0 {
        println!(
            "node {}: every previous key already lists its records; nothing changed",
            args.node
        );
        return Ok(());
    }
    crate::atomic::write_file(&path, text.as_bytes(), crate::atomic::Durability::Synced)?;
    Ok(())
}
