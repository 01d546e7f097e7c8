use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Result;

use crate::pipeline::{
    assess_all, assess_one, kept_material, review_status, sign_selected, Project, Selection,
};
use crate::review::{
    load_text, signing_key, signoff_path, FirstReview, ReviewError, Role, SinceSigned,
};

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
    /// Every entry's state (waiting for author, waiting for reviewer, held back, published),
    /// who signed when, and what is missing.
    Status {
        /// Machine-readable output with stable keys.
        #[arg(long)]
        json: bool,
    },
    /// Sign entries as their author or reviewer, with your SSH key: what each entry shows
    /// now (text, table cells, expanded numbers, diagram) is signed under your person id in
    /// content/people.toml, which the key decides. A file of static/ that is not an image,
    /// font, PDF or plain text is signed the same way, named `static/<path>`.
    Sign {
        /// `occupancy`, or `terms/occupancy` when several kinds use the slug, or
        /// `static/<path>`; several may be given.
        #[arg(
            required_unless_present = "all_waiting",
            conflicts_with = "all_waiting"
        )]
        slugs: Vec<String>,
        #[arg(long = "as", value_enum)]
        role: RoleArg,
        /// Sign every entry waiting for this role (`review status`: "waiting for author" or
        /// "waiting for reviewer"), except those you signed in the other role and those a
        /// stale measurement or an unsupported claim holds back.
        #[arg(long)]
        all_waiting: bool,
        /// Your SSH private key, or a public key whose private half is in ssh-agent
        /// (default: git's user.signingkey, the key you sign commits with).
        #[arg(long)]
        key: Option<PathBuf>,
    },
    /// What changed since the reviewer signed: the text as a unified diff, and every table
    /// cell or computed number old → new (for `static/<path>`, the file). On a first review
    /// (no reviewer has signed), all of it, then what changed since the author signed.
    Diff {
        /// `occupancy`, or `terms/occupancy` when several kinds use the slug, or
        /// `static/<path>`.
        slug: String,
    },
}

/// The static file `query` (`static/<path>`) names, as (path under static/, bytes), if it
/// is one the gate needs signatures for (`site::static_files`).
fn static_file(layout: &crate::config::Layout, query: &str) -> Result<(String, Vec<u8>)> {
    let rel = query.trim_start_matches("static/").trim_end_matches('/');
    let found = crate::site::static_files::active_static_files(layout);
    if let Some((rel, bytes)) = found.into_iter().find(|(r, _)| r == rel) {
        return Ok((rel, bytes));
    }
    let path = layout.static_files().join(rel);
    let why = match std::fs::read(&path) {
        Ok(bytes) if crate::site::static_files::needs_signing(rel, &bytes).is_none() => {
            "is an image, font, PDF or plain text: it is published without signatures"
        }
        Ok(_) => "is not published from static/ (a symlink, or a name the build writes; `glossary build` says which)",
        Err(_) => "does not exist",
    };
    anyhow::bail!("{}: {why}", path.display())
}

/// `review sign static/<path> ...`: each named static file signed in `role`; a line of
/// output for each.
fn sign_static_files(
    root: &std::path::Path,
    queries: &[String],
    role: Role,
    signer: &crate::trust::Signer,
) -> Result<Vec<String>> {
    if queries.is_empty() {
        return Ok(Vec::new());
    }
    let layout = crate::config::Layout::new(root);
    let people = crate::trust::People::load(&layout.people())?;
    let person = crate::review::signer_person(&people, signer)?;
    let mut lines = Vec::new();
    for q in queries {
        let (rel, bytes) = static_file(&layout, q)?;
        let now = chrono::Utc::now();
        let s =
            crate::review::sign_static(&layout.reviews(), &rel, &bytes, role, person, signer, now)?;
        lines.push(format!(
            "{} {} as {role}: {} ({}) at {} ({})\n",
            if s.replaced { "re-signed" } else { "signed" },
            crate::visible::Escaped(&s.name),
            crate::visible::Escaped(&person.name),
            person.id,
            now.format("%Y-%m-%d %H:%M UTC"),
            s.path.display()
        ));
    }
    Ok(lines)
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
        ReviewWhat::Sign {
            slugs,
            role,
            all_waiting,
            key,
        } => {
            // The key is settled before anything is loaded or written.
            let signer = signing_key(root, key.as_deref())?;
            let (statics, entries): (Vec<String>, Vec<String>) = slugs
                .iter()
                .cloned()
                .partition(|s| s.starts_with("static/"));
            let mut out = String::new();
            for line in sign_static_files(root, &statics, (*role).into(), &signer)? {
                out.push_str(&line);
            }
            let selection = if *all_waiting {
                Selection::AllWaiting
            } else {
                Selection::Named(entries)
            };
            let done = match selection {
                Selection::Named(ref e) if e.is_empty() && !statics.is_empty() => Vec::new(),
                _ => sign_selected(
                    root,
                    &selection,
                    (*role).into(),
                    &signer,
                    chrono::Utc::now(),
                )?,
            };
            for d in &done {
                use std::fmt::Write as _;
                let _ = writeln!(
                    out,
                    "{} {} as {}: {} ({}) at {} ({})",
                    if d.replaced { "re-signed" } else { "signed" },
                    d.entry,
                    d.role,
                    d.name,
                    d.signature.person,
                    d.signature.time.format("%Y-%m-%d %H:%M UTC"),
                    d.path.display()
                );
                if let Some((other, sig)) = &d.other_out_of_date {
                    let _ = writeln!(
                        out,
                        "note: the {other}'s signature ({} on {}) covers an earlier version; {} stays unpublished until they sign again (`glossary review diff {}` shows what changed)",
                        sig.person,
                        sig.date(),
                        d.entry,
                        d.entry
                    );
                }
            }
            if done.is_empty() && statics.is_empty() {
                out.push_str(
                    "nothing to sign: no entry is waiting for this role's signature from you\n",
                );
            }
            write!(std::io::stdout(), "{out}")?;
        }
        ReviewWhat::Diff { slug } if slug.starts_with("static/") => {
            let layout = crate::config::Layout::new(root);
            let (rel, bytes) = static_file(&layout, slug)?;
            let diff = crate::review::static_diff(&layout.reviews(), &rel, &bytes)?;
            write!(std::io::stdout(), "{diff}")?;
        }
        ReviewWhat::Diff { slug } => {
            let (project, ids) = Project::load_entries(root, std::slice::from_ref(slug))?;
            let id = &ids[0];
            let entry = project
                .content
                .get(id)
                .ok_or_else(|| ReviewError::UnknownEntry {
                    query: slug.clone(),
                })?;
            let a = assess_one(&project, entry, today)?;
            let signoff = project.signoffs.get(id);
            let (role, sig) = match signoff.map(|s| (&s.reviewer, &s.author)) {
                Some((Some(r), _)) => (Role::Reviewer, r),
                Some((None, Some(a))) => (Role::Author, a),
                _ => {
                    return Err(ReviewError::NothingSigned {
                        entry: id.to_string(),
                    }
                    .into())
                }
            };
            let reviews = project.layout.reviews();
            let signed =
                load_text(&reviews, &sig.digest).ok_or_else(|| ReviewError::NoSignedText {
                    path: signoff_path(&reviews, id).display().to_string(),
                    role,
                })?;
            let name = project
                .people
                .get(&sig.person)
                .map_or_else(|| sig.person.clone(), |p| p.name.clone());
            let now = kept_material(&a)?;
            let shown = if role == Role::Author {
                FirstReview::new(id, &name, sig.date(), &signed, now).to_string()
            } else {
                SinceSigned::new(id, role, &name, sig.date(), &signed, now).to_string()
            };
            write!(std::io::stdout(), "{shown}")?;
        }
    }
    Ok(())
}
