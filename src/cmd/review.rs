use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Result;

use crate::pipeline::{assess_all, review_status, Project};
use crate::review::{diff_since_signed, git_user_name, resolve_entry, sign, ReviewError, Role};

#[derive(clap::Args, Debug)]
pub struct ReviewArgs {
    #[command(subcommand)]
    pub what: ReviewWhat,
    /// The glossary project's root folder.
    #[arg(long, default_value = ".", global = true)]
    pub root: PathBuf,
}

#[derive(clap::Subcommand, Debug)]
pub enum ReviewWhat {
    /// Every entry's state (draft, changed, ready), who signed when, and what is missing.
    Status {
        /// Machine-readable output with stable keys.
        #[arg(long)]
        json: bool,
    },
    /// Sign an entry's current text and cited records as its author or reviewer.
    Sign {
        /// `occupancy`, or `terms/occupancy` when several kinds use the slug.
        slug: String,
        #[arg(long = "as", value_enum)]
        role: RoleArg,
        /// The signer's name (default: git's user.name).
        #[arg(long)]
        name: Option<String>,
    },
    /// A unified diff of what changed since the reviewer (else the author) signed.
    Diff { slug: String },
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum RoleArg {
    Author,
    Reviewer,
}

impl From<RoleArg> for Role {
    fn from(r: RoleArg) -> Role {
        match r {
            RoleArg::Author => Role::Author,
            RoleArg::Reviewer => Role::Reviewer,
        }
    }
}

pub fn run(args: &ReviewArgs) -> Result<()> {
    let today = chrono::Local::now().date_naive();
    let root = &args.root;
    match &args.what {
        ReviewWhat::Status { json } => {
            let project = Project::load(root)?;
            let assessments = assess_all(&project, today)?;
            let report = review_status(&project, &assessments);
            if *json {
                writeln!(
                    std::io::stdout(),
                    "{}",
                    serde_json::to_string_pretty(&report)?
                )?;
            } else {
                write!(std::io::stdout(), "{}", report.to_table())?;
            }
        }
        ReviewWhat::Sign { slug, role, name } => {
            // The name is settled before anything is loaded or written.
            let name = match name {
                Some(n) => n.clone(),
                None => git_user_name(root).ok_or_else(|| ReviewError::NoSignerName {
                    root: root.display().to_string(),
                })?,
            };
            let project = Project::load(root)?;
            let id = resolve_entry(&project.content, slug)?;
            let done = sign(&project.review_input(), &id, (*role).into(), &name, today)?;
            writeln!(
                std::io::stdout(),
                "{} {} as {}: {} on {} ({})",
                if done.replaced { "re-signed" } else { "signed" },
                done.entry,
                done.role,
                done.signature.name,
                done.signature.date,
                done.path.display()
            )?;
            if let Some((other, sig)) = &done.other_out_of_date {
                writeln!(std::io::stdout(),
                    "note: the {other}'s signature ({} on {}) covers an earlier version; {} stays unpublished until they sign again (`glossary review diff {}` shows what changed)",
                    sig.name, sig.date, done.entry, done.entry
                )?;
            }
        }
        ReviewWhat::Diff { slug } => {
            let project = Project::load(root)?;
            let id = resolve_entry(&project.content, slug)?;
            write!(
                std::io::stdout(),
                "{}",
                diff_since_signed(&project.review_input(), &id)?
            )?;
        }
    }
    Ok(())
}
