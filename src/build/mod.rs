//! The build: load (`project`) → check and gate (`assess`) → render (`crate::render`) →
//! write atomically (`output`).

mod assess;
mod output;
mod project;
mod session;

use std::collections::HashSet;
use std::path::PathBuf;

use chrono::NaiveDate;
use serde::Serialize;

use assess::assess;
pub use assess::{assess_all, Assessment};
pub use output::{write_site, OutputFile, Staging, MARKER};
pub use project::Project;
pub use session::{Rebuilt, Session};

use crate::content::EntryId;
use crate::error::Result;
use crate::render::pages::{render_site, render_site_into, RenderInput, SiteLinks};
use crate::render::templates::load_templates;
use crate::review::Refusal;

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
pub struct Report {
    pub published: Vec<EntryId>,
    pub refused: Vec<(EntryId, Vec<Refusal>)>,
    pub warnings: Vec<(EntryId, String)>,
    pub pages_written: usize,
}

impl Report {
    pub(crate) fn from_assessments(assessments: &[Assessment]) -> Report {
        let mut r = Report::default();
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

/// Load, check, gate, render and write the site. On any error nothing is written.
pub fn build(opts: &BuildOptions) -> Result<Report> {
    let project = Project::load(&opts.root)?;
    let tera = load_templates(&project.layout.templates())?;
    let assessments = assess_all(&project, opts.today)?;
    Ok(render_and_write(opts, &project, &tera, &assessments)?.report)
}

/// What a full build decided and wrote.
pub(crate) struct Written {
    pub report: Report,
    pub pages: HashSet<EntryId>,
    pub published: HashSet<EntryId>,
    pub links: SiteLinks,
}

/// Render every page straight into the staging folder and swap it in.
pub(crate) fn render_and_write(
    opts: &BuildOptions,
    project: &Project,
    tera: &tera::Tera,
    assessments: &[Assessment],
) -> Result<Written> {
    let mut report = Report::from_assessments(assessments);
    let published: HashSet<EntryId> = report.published.iter().cloned().collect();
    let pages = pages_of(opts, assessments, &published);
    let out = output_dir(opts, project);
    let staging = Staging::begin(&out)?;
    let written = std::sync::atomic::AtomicUsize::new(0);
    let links = render_site_into(
        &RenderInput {
            project,
            assessments,
            tera,
            pages: &pages,
            published: &published,
        },
        &|f| {
            written.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            staging.write(&f.path, &f.bytes)
        },
    )?;
    staging.finish(Some(&project.layout.templates().join("static")))?;
    report.pages_written = written.into_inner();
    Ok(Written {
        report,
        pages,
        published,
        links,
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

fn output_dir(opts: &BuildOptions, project: &Project) -> PathBuf {
    opts.out
        .clone()
        .unwrap_or_else(|| project.layout.default_output())
}

/// Everything `build` checks, without writing: errors, refusals, warnings. Rendering runs
/// too (with drafts, into memory) so template and link errors are found.
pub fn check(root: &std::path::Path, today: NaiveDate) -> Result<Report> {
    let project = Project::load(root)?;
    let tera = load_templates(&project.layout.templates())?;
    let assessments = assess_all(&project, today)?;
    let report = Report::from_assessments(&assessments);
    let published: HashSet<EntryId> = report.published.iter().cloned().collect();
    let pages: HashSet<EntryId> = assessments.iter().map(|a| a.id.clone()).collect();
    render_site(&RenderInput {
        project: &project,
        assessments: &assessments,
        tera: &tera,
        pages: &pages,
        published: &published,
    })?;
    Ok(report)
}
