use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Result;

use crate::pipeline::{build, BuildOptions};

#[derive(clap::Args, Debug)]
pub struct BuildArgs {
    /// The glossary project's root folder.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Output folder (default: <root>/site).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also render unpublished entries, each marked as a draft and kept out of search engines.
    #[arg(long)]
    pub drafts: bool,
}

pub fn run(args: &BuildArgs) -> Result<()> {
    let started = std::time::Instant::now();
    let opts = BuildOptions {
        root: args.root.clone(),
        out: args.out.clone(),
        drafts: args.drafts,
        today: chrono::Local::now().date_naive(),
    };
    let report = build(&opts)?;
    write!(std::io::stdout(), "{}", report.summary())?;
    let out = opts.out.unwrap_or_else(|| opts.root.join("site"));
    writeln!(
        std::io::stdout(),
        "wrote {} pages to {}{} in {:.0?}",
        report.pages_written,
        out.display(),
        if args.drafts {
            " (drafts included)"
        } else {
            ""
        },
        started.elapsed()
    )?;
    Ok(())
}
