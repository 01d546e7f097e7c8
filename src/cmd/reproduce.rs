//! `glossary reproduce URL|PATH`: re-run a published table's experiment on this machine's
//! GPU, compare, and write a signed contribution.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Result};

use crate::measure::verdict::Change;
use crate::reproduce::{reproduce, Report, Request};

#[derive(clap::Args, Debug)]
pub struct ReproduceArgs {
    /// The table's bundle, as its page prints it (`https://…/reproduce/<experiment>/<node>.json`),
    /// an `http://` URL on this machine, or a downloaded file.
    #[arg(value_name = "URL|PATH")]
    pub source: String,
    /// Check the bundle's digests and signature and plan the run; touch no GPU, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Do not run the ncu pass.
    #[arg(long)]
    pub no_ncu: bool,
    /// Your SSH private key, which signs the record (default: git's user.signingkey).
    #[arg(long)]
    pub key: Option<PathBuf>,
    /// Where the contribution (record, signature, report.md) is written.
    #[arg(long, default_value = "contribution")]
    pub out: PathBuf,
    /// The node name the record carries (default: contributed-<gpu>, e.g. contributed-tesla-t4).
    #[arg(long)]
    pub name: Option<String>,
    /// Plan as if the GPU had this many bytes of memory (a dry run on a machine without one).
    #[arg(long, value_name = "BYTES")]
    pub device_memory: Option<u64>,
    /// A node key to trust for a bundle read from a file or a mirror (repeatable): an
    /// OpenSSH public key line, a `.pub` file, a `SHA256:` fingerprint as the site's
    /// nodes.json lists it, or the site's nodes.json saved to a file (its current and
    /// retired keys, each record judged by the key that signed it). Without it, a URL's
    /// keys are checked against that site's nodes.json and remembered per site
    /// (~/.config/glossary/known_nodes); a file is refused.
    #[arg(long = "trust-key", value_name = "KEY")]
    pub trust_key: Vec<String>,
    /// Exit non-zero when a row is SLOWER or FASTER, or a claim does not hold.
    #[arg(long)]
    pub strict: bool,
}

pub fn run(args: &ReproduceArgs) -> Result<()> {
    let req = Request {
        source: args.source.clone(),
        dry_run: args.dry_run,
        ncu: !args.no_ncu,
        key: args.key.clone(),
        out: args.out.clone(),
        name: args.name.clone(),
        device_memory: args.device_memory,
        trust_keys: args.trust_key.clone(),
    };
    let bar = indicatif::ProgressBar::new(0);
    let report = reproduce(&req, &bar)?;
    bar.finish_and_clear();
    print(&report, args.dry_run)?;
    if args.strict && report.differs() {
        bail!("the reproduction differs from the published table (see above)");
    }
    Ok(())
}

/// Text from a bundle, which anyone may have written: control characters (terminal
/// escapes above all) are shown escaped, never sent to the terminal.
fn shown(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            if c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}') {
                c.escape_unicode().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}

fn print(r: &Report, dry_run: bool) -> Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "bundle {}: experiment {}, {} files, digests match; record of node {} ({}) signed by {}, trusted as {}",
        r.source, r.experiment, r.files, r.node, shown(&r.published_gpu), r.signed_by, r.pinned
    )?;
    if dry_run {
        writeln!(
            out,
            "dry run: {} configs planned for {}; nothing run, nothing written",
            r.planned_configs, r.local_gpu
        )?;
        return Ok(());
    }
    writeln!(out)?;
    if !r.same_gpu {
        writeln!(
            out,
            "this GPU is a {}, not the published {}: the rows side by side, each {}; the claims are judged",
            shown(&r.local_gpu),
            shown(&r.published_gpu),
            crate::reproduce::NOT_JUDGED
        )?;
    }
    // Line by line: a label from the bundle shows its control characters escaped.
    for line in r.rows_table(false).lines() {
        writeln!(out, "{}", shown(line))?;
    }
    if r.same_gpu {
        let slower: Vec<&str> = r
            .rows
            .iter()
            .filter(|x| x.verdict == Change::Slower)
            .map(|x| x.label.as_str())
            .collect();
        if !slower.is_empty() {
            writeln!(out, "SLOWER: {}", shown(&slower.join(", ")))?;
        }
        writeln!(
            out,
            "(SAME: times within the experiment's band; the driver's answers match exactly and counters within ±{:.0}%, else DIFFERENT)",
            crate::measure::compare::COUNTER_TOLERANCE * 100.0
        )?;
    }
    if !r.claims.is_empty() {
        writeln!(out, "\nclaims on this GPU:")?;
        for c in &r.claims {
            writeln!(
                out,
                "  {} {}: {} ({})",
                c.verdict, c.entry, c.says, c.detail
            )?;
        }
    }
    for p in &r.contribution {
        writeln!(out, "wrote {}", p.display())?;
    }
    Ok(())
}
