use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Result};

use crate::pipeline::check;

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Treat warnings (old sources) and stale measurements, unsupported or fragile claims as
    /// errors.
    #[arg(long)]
    pub strict: bool,
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
    write!(std::io::stdout(), "{}", report.summary())?;
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
