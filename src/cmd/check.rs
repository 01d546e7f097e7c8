use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Result};

use crate::pipeline::{check, Listed};

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// The glossary project's root folder.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Treat warnings (old sources) and stale measurements, unsupported or fragile claims
    /// as errors: what is the author's to fix. Notes on the cited records (rows that did
    /// not converge) are the node's concern and stay notes.
    #[arg(long)]
    pub strict: bool,
    /// List every note on the cited records too, not only how many there are.
    #[arg(long)]
    pub verbose: bool,
}

/// Exit status 1 on any error, listing every one.
pub fn run(args: &CheckArgs) -> Result<()> {
    let today = chrono::Local::now().date_naive();
    let report = match check(&args.root, today) {
        Ok(r) => r,
        Err(e) => {
            let all = e.flatten();
            for e in &all {
                eprintln!("error: {e}");
            }
            bail!("{} error(s)", all.len());
        }
    };
    // The author's warnings always, as `check` is what an author runs before review.
    let listed = Listed {
        warnings: true,
        notes: args.verbose,
    };
    write!(std::io::stdout(), "{}", report.summary(listed))?;
    if args.strict {
        let mut n = report.warnings.len();
        for (_, reasons) in &report.refused {
            n += reasons.iter().filter(|r| r.is_about_measurements()).count();
        }
        if n > 0 {
            bail!("{n} problem(s) under --strict (warnings, stale measurements, unsupported or fragile claims)");
        }
    }
    writeln!(std::io::stdout(), "check passed")?;
    Ok(())
}
