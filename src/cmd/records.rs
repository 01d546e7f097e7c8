//! `glossary records import DIR...`: check records verify wrote elsewhere and move the
//! good ones into measurements/.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Result};

use crate::config::{Config, Layout};
use crate::fleet::{import, import_contributed, Verdict};
use crate::measure::Library;

#[derive(clap::Args, Debug)]
pub struct RecordsArgs {
    #[command(subcommand)]
    pub command: RecordsCommand,
}

#[derive(clap::Subcommand, Debug)]
pub enum RecordsCommand {
    /// Check each record under the folders (right node, right GPU, current experiment,
    /// well-formed, finished) and move the good ones into measurements/<id>/records/.
    Import(ImportArgs),
}

#[derive(clap::Args, Debug)]
pub struct ImportArgs {
    /// Folders verify wrote to (`verify --out`, a `verify submit` output folder).
    #[arg(required_unless_present = "contributed", value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// A reader's contribution: a record `glossary reproduce` wrote (its `.sig` beside
    /// it), from a node profile with `contributed_by`. May be given more than once.
    #[arg(long, value_name = "FILE", conflicts_with = "dirs")]
    pub contributed: Vec<PathBuf>,
    /// Check only; move nothing.
    #[arg(long)]
    pub check: bool,
    /// Print the verdicts as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// The glossary project's root folder.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
}

pub fn run(args: &RecordsArgs) -> Result<()> {
    match &args.command {
        RecordsCommand::Import(a) => run_import(a),
    }
}

fn run_import(args: &ImportArgs) -> Result<()> {
    let config = Config::load(&args.root)?;
    let layout = Layout::new(&args.root);
    let library = Library::load(&layout.measurements())?;
    let people = crate::trust::People::load(&layout.people())?;
    let report = if args.contributed.is_empty() {
        import(&config, &library, &people, &args.dirs, args.check)?
    } else {
        import_contributed(&config, &library, &people, &args.contributed, args.check)?
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        let _ = writeln!(out, "{}", serde_json::to_string_pretty(&report)?);
    } else {
        let verb = if args.check {
            "would import"
        } else {
            "imported"
        };
        for f in &report.files {
            match &f.verdict {
                Verdict::Imported { to } => {
                    let _ = writeln!(out, "{verb} {} -> {}", f.path.display(), to.display());
                }
                Verdict::Unchanged { at } => {
                    let _ = writeln!(
                        out,
                        "unchanged {} (the same record is at {})",
                        f.path.display(),
                        at.display()
                    );
                }
                Verdict::Refused { reasons } => {
                    let _ = writeln!(out, "refused {}:", f.path.display());
                    for r in reasons {
                        let _ = writeln!(out, "  {r}");
                    }
                }
            }
        }
        for w in &report.warnings {
            let _ = writeln!(out, "warning: {w}");
        }
    }
    if report.files.is_empty() {
        bail!(
            "no records under {}",
            args.dirs
                .iter()
                .chain(&args.contributed)
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if report.refused() > 0 {
        bail!(
            "{} record(s) refused, {} {}; the refused files were left where they were",
            report.refused(),
            report.imported(),
            if args.check {
                "would be imported"
            } else {
                "imported"
            }
        );
    }
    Ok(())
}
