//! `glossary verify init-node NAME`: on the GPU machine, make a new verification node. Reads
//! the GPU from the driver, makes the node's key pair (the private half stays on this
//! machine) and adds `[nodes.NAME]` to glossary.toml, or prints it (`--print`).

use std::path::PathBuf;

use anyhow::{anyhow, bail, Context, Result};

use crate::config::{Config, CONFIG_FILE};
use crate::fleet::init_node::{add_node, check_name, section, NewNode};

#[derive(clap::Args, Debug)]
pub struct InitNodeArgs {
    /// The new node's name (lowercase letters, digits, `-`, `_`): records will be
    /// measurements/<experiment>/records/NAME.json, entries cite it as `node: NAME`.
    pub name: String,
    /// Where to make the node's private key (default: ~/.config/glossary/NAME_ed25519).
    /// Never overwritten; its public half goes to FILE.pub and into the profile.
    #[arg(long, value_name = "FILE")]
    pub key: Option<PathBuf>,
    /// The GPU model's datasheet (an https address), for the verification nodes page.
    #[arg(long, value_name = "URL")]
    pub datasheet: Option<String>,
    /// Print the `[nodes.NAME]` section instead of adding it to glossary.toml (for a
    /// GPU machine without the project's checkout).
    #[arg(long)]
    pub print: bool,
    /// The glossary project's root folder.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
}

pub fn run(args: &InitNodeArgs) -> Result<()> {
    check_name(&args.name).map_err(|e| anyhow!(e))?;
    if let Some(url) = &args.datasheet {
        crate::config::check_datasheet(url).map_err(|e| anyhow!("--datasheet: {e}"))?;
    }
    let path = args.root.join(CONFIG_FILE);
    // The name must be free before a key is made for it.
    let text = match args.print {
        true => None,
        false => {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {} (or give --print)", path.display()))?;
            let config = Config::load(&args.root)?;
            if config.nodes.contains_key(&args.name) {
                bail!(
                    "{}: already has [nodes.{}]: pick another name, or edit that profile by hand",
                    path.display(),
                    args.name
                );
            }
            Some(text)
        }
    };
    let facts = crate::measure::run::gpu::read_device().map_err(|e| {
        anyhow!("{e}\ninit-node reads the GPU's name, compute capability, SMs, L2 and memory from the CUDA driver: run it on the machine whose GPU becomes node {}; nothing was written", args.name)
    })?;
    let key = match &args.key {
        // As an absolute path: `key =` in the profile is read relative to the project root,
        // not to where this command ran.
        Some(k) => std::path::absolute(k).with_context(|| format!("--key {}", k.display()))?,
        None => {
            let home = std::env::var_os("HOME")
                .ok_or_else(|| anyhow!("HOME is not set: name the key file with --key"))?;
            PathBuf::from(home).join(format!(".config/glossary/{}_ed25519", args.name))
        }
    };
    let public_key = crate::trust::keygen::new_key_pair(
        &key,
        &format!("glossary verification node {}", args.name),
    )
    .map_err(|e| anyhow!(e))?;
    let node = NewNode {
        name: &args.name,
        facts: &facts,
        public_key: &public_key,
        key: &key,
        datasheet: args.datasheet.as_deref(),
    };
    println!(
        "node {}: {} (cc {}, {}, {} SMs, {} MiB L2, {} MiB), {}",
        args.name,
        facts.name,
        facts.compute_capability,
        facts.arch,
        facts.sm_count,
        facts.l2_bytes >> 20,
        facts.mem_bytes >> 20,
        facts.uuid
    );
    println!(
        "private key: {} (mode 0600; keep it on this machine, never commit it)",
        key.display()
    );
    match text {
        None => print!("\n{}", section(&node)),
        Some(text) => {
            let new = add_node(&text, &node).map_err(|e| anyhow!("{}: {e}", path.display()))?;
            // The new file must load as a build loads it (the arch checks, the keys) before
            // it replaces the old one.
            let dir = tempfile::tempdir()?;
            std::fs::write(dir.path().join(CONFIG_FILE), &new)?;
            Config::load(dir.path()).context("glossary.toml with the new node")?;
            crate::atomic::write_file(&path, new.as_bytes(), crate::atomic::Durability::Synced)?;
            println!("added [nodes.{}] to {}", args.name, path.display());
        }
    }
    println!(
        "next: glossary verify plan --node {0}, then glossary verify --node {0} --key {1}",
        args.name,
        key.display()
    );
    Ok(())
}
