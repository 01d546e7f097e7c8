//! The build: load (`project`) → check and gate (`assess`) → render (`crate::render`) →
//! write atomically (`output`). This is the only module that knows every stage; the
//! stages below it are handed what they need (`Project::render_input`,
//! `Project::review_input`) and never reach back up.

mod assess;
mod output;
mod project;
mod session;
mod signing;

use std::collections::HashSet;
use std::path::PathBuf;

use chrono::NaiveDate;
use serde::Serialize;

use assess::{assess, assess_collecting, Keep};
pub use assess::{assess_all, assess_one};
pub use output::{copy_dir, write_site, Staging, DRAFTS_MARKER, MARKER};
pub use project::Project;
pub use session::{Rebuilt, Session};
pub use signing::{kept_material, sign_selected, Selection};

use crate::content::EntryId;
use crate::error::{Error, Result};
use crate::render::pages::{render_site, render_site_into, SiteLinks};
use crate::render::site_links::{page_links, SiteLinkIndex};
use crate::render::templates::load_templates;
use crate::render::{Assessment, OutputFile};
use crate::review::{status_report, Gated, Refusal, StatusReport};

#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub root: PathBuf,
    /// Defaults to `<root>/site`.
    pub out: Option<PathBuf>,
    /// Render unpublished entries too, each marked as a draft.
    pub drafts: bool,
    /// "Today", for source-age warnings; injectable for tests.
    pub today: NaiveDate,
}

/// What a build (or check) found, entry by entry.
#[derive(Debug, Clone, Serialize, Default)]
pub struct BuildReport {
    pub published: Vec<EntryId>,
    pub refused: Vec<(EntryId, Vec<Refusal>)>,
    pub warnings: Vec<(EntryId, String)>,
    pub pages_written: usize,
}

impl BuildReport {
    pub(crate) fn from_assessments(assessments: &[Assessment]) -> BuildReport {
        let mut r = BuildReport::default();
        for a in assessments {
            if a.verdict.is_published() {
                r.published.push(a.id.clone());
            } else {
                r.refused.push((a.id.clone(), a.verdict.refusals.clone()));
            }
            for w in &a.warnings {
                r.warnings.push((a.id.clone(), w.clone()));
            }
        }
        r
    }

    /// The summary `build` prints: counts, then one line per refused entry.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "published {}, refused {}\n",
            self.published.len(),
            self.refused.len()
        );
        for (id, reasons) in &self.refused {
            let reasons: Vec<String> = reasons.iter().map(|r| r.to_string()).collect();
            s.push_str(&format!("  refused {id}: {}\n", reasons.join("; ")));
        }
        for (id, w) in &self.warnings {
            s.push_str(&format!("  warning {id}: {w}\n"));
        }
        s
    }
}

/// Load, check, gate, render and write the site. On any error nothing is written, and
/// every error of every phase is reported, sorted by file and line.
pub fn build(opts: &BuildOptions) -> Result<BuildReport> {
    let (project, mut errors) = Project::load_collecting(&opts.root)?;
    let tera = load_templates(&project.layout.templates());
    let (assessments, assess_errors) = assess_collecting(&project, opts.today, Keep::Digest);
    errors.extend(assess_errors);
    let tera = match tera {
        Ok(tera) if errors.is_empty() => tera,
        Ok(tera) => {
            // Already failed: render in memory, as `check` does, only to find the link
            // and template errors too.
            errors.extend(render_errors(&project, &tera, &assessments, opts.today));
            return Err(Error::sorted(errors).unwrap_err());
        }
        Err(e) => {
            errors.push(e);
            return Err(Error::sorted(errors).unwrap_err());
        }
    };
    let out = output_dir(opts, &project);
    let static_dir = project.layout.templates().join("static");
    let staging = Staging::begin(&out, opts.drafts)?;
    let mut site = render_through(opts, &project, &tera, &assessments, &|f| {
        staging.write(&f.path, &f.bytes)
    })?;
    site.site_links.check(&static_dir, None)?;
    staging.finish(Some(&static_dir))?;
    site.report.pages_written = site.files_made;
    // Freeing a 10,000-entry project takes about a tenth of a second; hand it to a thread
    // so the caller (the CLI, about to exit) does not wait for it.
    std::thread::spawn(move || drop((project, tera, assessments, site.site_links)));
    Ok(site.report)
}

/// What a whole-site render decided and found.
pub(crate) struct Rendered {
    pub report: BuildReport,
    pub pages: HashSet<EntryId>,
    pub published: HashSet<EntryId>,
    pub links: SiteLinks,
    /// The links templates made, not yet checked.
    pub site_links: SiteLinkIndex,
    pub files_made: usize,
}

/// Render every file and hand each to `sink` as it is made (`build` streams them into the
/// staging folder, so pages are never all in memory at once), gathering the links
/// templates made for the caller to check.
pub(crate) fn render_through(
    opts: &BuildOptions,
    project: &Project,
    tera: &tera::Tera,
    assessments: &[Assessment],
    sink: &(dyn Fn(OutputFile) -> Result<()> + Sync),
) -> Result<Rendered> {
    let report = BuildReport::from_assessments(assessments);
    let published: HashSet<EntryId> = report.published.iter().cloned().collect();
    let pages = pages_of(opts, assessments, &published);
    let gathered = std::sync::Mutex::new((SiteLinkIndex::default(), 0usize));
    let links = render_site_into(
        &project.render_input(
            assessments,
            tera,
            &pages,
            &published,
            opts.today,
            opts.drafts,
        ),
        &|f| {
            let facts = page_links(&f);
            sink(f)?;
            let mut g = gathered.lock().unwrap_or_else(|p| p.into_inner());
            g.0.insert(facts);
            g.1 += 1;
            Ok(())
        },
    )?;
    let (site_links, files_made) = gathered.into_inner().unwrap_or_else(|p| p.into_inner());
    Ok(Rendered {
        report,
        pages,
        published,
        links,
        site_links,
        files_made,
    })
}

/// The entries that get a page: the published ones, or all of them with `--drafts`.
fn pages_of(
    opts: &BuildOptions,
    assessments: &[Assessment],
    published: &HashSet<EntryId>,
) -> HashSet<EntryId> {
    if opts.drafts {
        assessments.iter().map(|a| a.id.clone()).collect()
    } else {
        published.clone()
    }
}

/// `--out`, else `site/`, or `site-drafts/` for a drafts preview: a preview never lands
/// where the deployable site is by default.
fn output_dir(opts: &BuildOptions, project: &Project) -> PathBuf {
    opts.out.clone().unwrap_or_else(|| {
        if opts.drafts {
            project.layout.drafts_output()
        } else {
            project.layout.default_output()
        }
    })
}

/// `review status`: each entry's standing, read off the verdicts of the same assessment a
/// build makes.
pub fn review_status(project: &Project, assessments: &[Assessment]) -> StatusReport {
    status_report(project.content.entries.iter().filter_map(|e| {
        let a = assessments.iter().find(|a| a.id == e.id)?;
        Some(Gated {
            entry: e,
            signoff: project.signoffs.get(&e.id),
            verdict: &a.verdict,
            digest: &a.digest,
            warnings: &a.warnings,
            people: &project.people,
        })
    }))
}

/// Everything `build` checks, without writing: errors, refusals, warnings. Rendering runs
/// too (with drafts, into memory) so template and link errors are found. Every error of
/// every phase is reported together, sorted by file and line.
pub fn check(root: &std::path::Path, today: NaiveDate) -> Result<BuildReport> {
    let (project, mut errors) = Project::load_collecting(root)?;
    let (assessments, assess_errors) = assess_collecting(&project, today, Keep::Digest);
    errors.extend(assess_errors);
    match load_templates(&project.layout.templates()) {
        Ok(tera) => errors.extend(render_errors(&project, &tera, &assessments, today)),
        Err(e) => errors.push(e),
    }
    Error::sorted(errors)?;
    Ok(BuildReport::from_assessments(&assessments))
}

/// The errors rendering finds (body links, templates, links templates make), every page
/// rendered as a draft into memory.
fn render_errors(
    project: &Project,
    tera: &tera::Tera,
    assessments: &[Assessment],
    today: NaiveDate,
) -> Vec<Error> {
    let report = BuildReport::from_assessments(assessments);
    let published: HashSet<EntryId> = report.published.iter().cloned().collect();
    let pages: HashSet<EntryId> = assessments.iter().map(|a| a.id.clone()).collect();
    let files =
        render_site(&project.render_input(assessments, tera, &pages, &published, today, false));
    let checked = files.and_then(|files| {
        crate::render::site_links::check_site_links(
            &files,
            &project.layout.templates().join("static"),
        )
    });
    checked.err().map(Error::flatten).unwrap_or_default()
}
