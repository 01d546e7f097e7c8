use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Result;

use crate::pipeline::{build, BuildOptions, Listed};

#[derive(clap::Args, Debug)]
pub struct BuildArgs {
    /// The glossary project's root folder.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Output folder (default: <root>/site).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// A preview that also renders unpublished entries, each marked as a draft: written to
    /// site-drafts/ (not site/), every page marked noindex with a preview banner. A normal
    /// build refuses to write into a drafts folder, and the reverse.
    #[arg(long)]
    pub drafts: bool,
    /// List every warning (old sources) and every note on the cited records (rows that
    /// did not converge), not only how many there are.
    #[arg(long)]
    pub verbose: bool,
}

pub fn run(args: &BuildArgs) -> Result<()> {
    let started = std::time::Instant::now();
    let opts = BuildOptions {
        root: args.root.clone(),
        out: args.out.clone(),
        drafts: args.drafts,
        today: chrono::Local::now().date_naive(),
        base_url: None,
        keep_bodies_up_to: crate::pipeline::KEEP_BODIES_UP_TO,
    };
    let report = build(&opts)?;
    let listed = Listed {
        warnings: args.verbose,
        notes: args.verbose,
    };
    // Only the refusals, then one line of counts: the rest `--verbose` lists.
    write!(std::io::stdout(), "{}", report.listing(listed))?;
    if let (true, Some(cache)) = (args.verbose, report.cache) {
        writeln!(
            std::io::stdout(),
            "build cache: reused {} highlighted blocks and {} verified signatures; refused {} entries that did not verify (done again)",
            cache.blocks_reused,
            cache.signatures_reused,
            cache.refused
        )?;
    }
    let layout = crate::config::Layout::new(&opts.root);
    let out = opts.out.unwrap_or_else(|| {
        if args.drafts {
            layout.drafts_output()
        } else {
            layout.default_output()
        }
    });
    writeln!(
        std::io::stdout(),
        "{}; wrote {} pages{} to {} in {:.0?}",
        report.counts(listed),
        report.pages_written,
        if args.drafts {
            " (drafts included)"
        } else {
            ""
        },
        out.display(),
        started.elapsed()
    )?;
    Ok(())
}
