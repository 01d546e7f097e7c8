//! The build: load (`project`) → check and gate (`assess`) → render (`crate::render`) →
//! write atomically (`output`).

mod assess;
mod output;
mod project;

use std::collections::HashSet;
use std::path::PathBuf;

use chrono::NaiveDate;
use serde::Serialize;

pub use assess::{assess_all, Assessment};
pub use output::{write_site, OutputFile, MARKER};
pub use project::Project;

use crate::content::EntryId;
use crate::error::Result;
use crate::render::pages::{render_site, RenderInput};
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
    fn from_assessments(assessments: &[Assessment]) -> Report {
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

/// A site rendered in memory: what `build` writes to disk and what `serve` serves.
pub struct RenderedSite {
    pub report: Report,
    pub files: Vec<OutputFile>,
    /// `templates/static`, copied to (or served at) `static/`.
    pub static_dir: PathBuf,
    /// Where `build` writes it: `--out`, or `<root>/site`.
    pub out: PathBuf,
}

/// Load, check, gate and render the whole site into memory. This is the one rebuild entry
/// point: `build` writes its result and `serve` swaps it in after every save, so making
/// rebuilds incremental means changing this function only.
pub fn render(opts: &BuildOptions) -> Result<RenderedSite> {
    let project = Project::load(&opts.root)?;
    let tera = load_templates(&project.layout.templates())?;
    let assessments = assess_all(&project, opts.today)?;
    let mut report = Report::from_assessments(&assessments);
    let published: HashSet<EntryId> = report.published.iter().cloned().collect();
    let pages: HashSet<EntryId> = if opts.drafts {
        assessments.iter().map(|a| a.id.clone()).collect()
    } else {
        published.clone()
    };
    let files = render_site(&RenderInput {
        project: &project,
        assessments: &assessments,
        tera: &tera,
        pages: &pages,
        published: &published,
        today: opts.today,
    })?;
    report.pages_written = files.len();
    Ok(RenderedSite {
        report,
        files,
        static_dir: project.layout.templates().join("static"),
        out: opts
            .out
            .clone()
            .unwrap_or_else(|| project.layout.default_output()),
    })
}

/// Load, check, gate, render and write the site. On any error nothing is written.
pub fn build(opts: &BuildOptions) -> Result<Report> {
    let site = render(opts)?;
    write_site(&site.out, &site.files, Some(&site.static_dir))?;
    Ok(site.report)
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
        today,
    })?;
    Ok(report)
}
