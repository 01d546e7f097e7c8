//! The build: load (`project`) → check and gate (`assess`) → render (`crate::render`) →
//! write atomically (`output`). This is the only module that knows every stage; the
//! stages below it are handed what they need (`Project::render_input`,
//! `Project::review_input`) and never reach back up.

mod assess;
mod bundles;
mod cache;
mod output;
mod project;
mod session;
mod signing;

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use serde::Serialize;

use assess::{assess, assess_checked, assess_collecting, check_all_signoffs, Keep};
pub use assess::{assess_all, assess_one, page_shown};
pub use output::{copy_dir, write_site, Staging, DRAFTS_MARKER, MARKER};
pub use project::Project;
pub use session::{Rebuilt, Session};
pub use signing::{kept_material, sign_selected, Selection};

use crate::content::{Entry, EntryId, IdSet};
use crate::error::{Error, Result};
use crate::render::markdown::RenderedMarkdown;
use crate::render::pages::outline_of;
use crate::render::template_ids::TemplateIds;
use crate::render::templates::load_templates;
use crate::render::{Assessment, OutputFile, Restore, Shown};
use crate::review::{status_report, Gated, Refusal, StatusReport};
use crate::site::assemble::{render_site_into, render_site_into_with, Retain, SiteLinks};
use crate::site::site_links::{page_links, SiteLinkIndex};
use crate::site::words::Vocabulary;

#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub root: PathBuf,
    /// Defaults to `<root>/site`.
    pub out: Option<PathBuf>,
    /// Render unpublished entries too, each marked as a draft.
    pub drafts: bool,
    /// "Today", for source-age warnings; injectable for tests.
    pub today: NaiveDate,
    /// In place of glossary.toml's `base_url` for this build: `serve` gives its own
    /// address, so that a served page's absolute links and its reproduce commands point at
    /// the server rather than at the published site (as `zola serve` does).
    pub base_url: Option<String>,
    /// Sites of up to this many entries keep each entry's body from its assessment to its
    /// page; larger ones read it again ([`KEEP_BODIES_UP_TO`], the default; tests set 0 to
    /// take the large sites' path on a small one).
    pub keep_bodies_up_to: usize,
}

impl BuildOptions {
    /// The project's settings as this build reads them: the one place an option overrides
    /// glossary.toml.
    pub(crate) fn configure(&self, project: &mut Project) {
        if let Some(url) = &self.base_url {
            project.config.base_url.clone_from(url);
        }
    }
}

/// What a build (or check) found, entry by entry.
#[derive(Debug, Clone, Serialize, Default)]
pub struct BuildReport {
    pub published: Vec<EntryId>,
    pub refused: Vec<(EntryId, Vec<Refusal>)>,
    /// `static/` files the gate left out (`site::static_files`), as `static/<path>`.
    pub static_refused: Vec<(String, Vec<Refusal>)>,
    /// Why each of those is not inert (`site::inert`), for the report's line.
    #[serde(skip)]
    pub static_not_inert: std::collections::BTreeMap<String, String>,
    /// Old sources: the author's to fix, errors under `check --strict`.
    pub warnings: Vec<(EntryId, String)>,
    /// Notes on measurements (`Assessment::notes`): not the author's to fix.
    pub notes: Vec<(EntryId, String)>,
    /// HTML pages written (entries, lists, redirects, the home page, 404).
    pub pages_written: usize,
    /// Every file written: pages, search index shards, feeds, bundles.
    pub files_written: usize,
    /// What the build cache saved this build (`crate::build_cache`), where there was one.
    #[serde(skip)]
    pub cache: Option<CacheUse>,
}

/// What a build took from its cache instead of doing again, and what it refused there.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheUse {
    pub blocks_reused: usize,
    pub signatures_reused: usize,
    /// Entries whose tag did not verify (changed, or not made on this machine): ignored,
    /// their work done again.
    pub refused: usize,
}

/// What [`BuildReport::summary`] lists line by line; the rest it counts.
#[derive(Debug, Clone, Copy, Default)]
pub struct Listed {
    pub warnings: bool,
    pub notes: bool,
}

impl BuildReport {
    pub(crate) fn from_assessments(assessments: &[Assessment]) -> BuildReport {
        let mut r = BuildReport::refusals_of(assessments);
        r.published = assessments
            .iter()
            .filter(|a| a.verdict.is_published())
            .map(|a| a.id.clone())
            .collect();
        r
    }

    /// Bring the report up to date after the assessments at `changed` (indexes into
    /// `assessments`) were replaced. The published list is edited in place rather than
    /// made again: at 100,000 entries a new list (an id copied per entry, the old one
    /// freed) was 15-20 ms of every edit in `serve`. The refusals and warnings, usually
    /// few, are gathered again.
    pub(crate) fn update(&mut self, assessments: &[Assessment], changed: &[usize]) {
        let mut changed = changed.to_vec();
        changed.sort_unstable();
        changed.dedup();
        for i in changed {
            let Some(a) = assessments.get(i) else {
                continue;
            };
            // Taken in ascending order, the list's part before entry `i` is already
            // final: the entry is listed exactly when it is at the next place.
            let at = assessments[..i]
                .iter()
                .filter(|a| a.verdict.is_published())
                .count();
            let listed = self.published.get(at) == Some(&a.id);
            match (a.verdict.is_published(), listed) {
                (true, false) => self.published.insert(at, a.id.clone()),
                (false, true) => {
                    self.published.remove(at);
                }
                _ => {}
            }
        }
        let fresh = BuildReport::refusals_of(assessments);
        self.refused = fresh.refused;
        self.warnings = fresh.warnings;
        self.notes = fresh.notes;
    }

    /// [`BuildReport::from_assessments`] without the published list.
    fn refusals_of(assessments: &[Assessment]) -> BuildReport {
        let mut r = BuildReport::default();
        for a in assessments {
            if !a.verdict.is_published() {
                r.refused.push((a.id.clone(), a.verdict.refusals.clone()));
            }
            for w in &a.warnings {
                r.warnings.push((a.id.clone(), w.clone()));
            }
            for n in &a.notes {
                r.notes.push((a.id.clone(), n.clone()));
            }
        }
        r
    }

    /// The summary `check` and `serve` print: one line per refused entry, each warning and
    /// note where `listed` asks for them, then [`BuildReport::counts`] on one line.
    pub fn summary(&self, listed: Listed) -> String {
        let mut s = self.listing(listed);
        s.push_str(&self.counts(listed));
        s.push('\n');
        s
    }

    /// One line per refused entry (and static file), then each warning and note where
    /// `listed` asks for them.
    pub fn listing(&self, listed: Listed) -> String {
        let mut s = String::new();
        for (id, reasons) in &self.refused {
            let reasons: Vec<String> = reasons.iter().map(|r| r.to_string()).collect();
            s.push_str(&format!("  refused {id}: {}\n", reasons.join("; ")));
        }
        for (file, reasons) in &self.static_refused {
            let reasons: Vec<String> = reasons.iter().map(|r| r.to_string()).collect();
            let why = self
                .static_not_inert
                .get(file)
                .map_or(String::new(), |w| format!(": {w}"));
            s.push_str(&format!(
                "  refused {}: not inert{}; published only when signed like an entry: {}\n",
                crate::visible::Escaped(file),
                crate::visible::Escaped(why),
                reasons.join("; ")
            ));
        }
        if listed.warnings {
            for (id, w) in &self.warnings {
                s.push_str(&format!("  warning {id}: {w}\n"));
            }
        }
        if listed.notes {
            for (id, n) in &self.notes {
                s.push_str(&format!("  note {id}: {n}\n"));
            }
        }
        s
    }

    /// The counts, without a newline: `published P, refused R`, then how many warnings
    /// and notes `listed` left unlisted. A plain build prints its refusals and this line
    /// (with what it wrote), nothing else.
    pub fn counts(&self, listed: Listed) -> String {
        let mut s = format!(
            "published {}, refused {}",
            self.published.len(),
            self.refused.len()
        );
        let count = |n: usize, one: &str, many: &str| match n {
            1 => format!("1 {one}"),
            n => format!("{n} {many}"),
        };
        let mut unlisted = Vec::new();
        if !listed.warnings && !self.warnings.is_empty() {
            unlisted.push(count(
                self.warnings.len(),
                "warning, the author's to fix",
                "warnings, the author's to fix",
            ));
        }
        if !listed.notes && !self.notes.is_empty() {
            unlisted.push(count(
                self.notes.len(),
                "note on measurements, not an error",
                "notes on measurements, not errors",
            ));
        }
        if !unlisted.is_empty() {
            s.push_str(&format!(
                "; {} (`--verbose` lists them)",
                unlisted.join(", ")
            ));
        }
        s
    }
}

/// Load, check, gate, render and write the site. On any error nothing is written, and
/// every error of every phase is reported, sorted by file and line.
///
/// Memory: each entry is assessed as it is read and its text dropped at once
/// ([`Entry::thin`]), so a large site's texts are never all in memory. That path only
/// knows whether something failed; a project with errors is loaded again whole, which
/// finds and reports every error with its line.
pub fn build(opts: &BuildOptions) -> Result<BuildReport> {
    match build_streaming(opts)? {
        Some(report) => Ok(report),
        None => build_whole(opts),
    }
}

/// [`Restore`](crate::render::input::Restore) for this build: an entry kept whole (a small
/// site) is read as it is; a thinned one again from its file, which `reread` refuses if it
/// changed since it was assessed, so the calls found then are where they were.
fn restore_for(
    project: &Project,
) -> impl for<'e> Fn(&'e Entry, &Assessment) -> Result<(Cow<'e, Entry>, Shown)> + Sync + '_ {
    move |e, a| {
        let whole = match e.thinned {
            Some(_) => Cow::Owned(crate::content::reread(e)?),
            None => Cow::Borrowed(e),
        };
        let shown = page_shown(project, &whole, Some(&a.body_calls))?;
        Ok((whole, shown))
    }
}

/// Up to this many entries a build keeps each entry's body and front matter from its
/// assessment to its page (its file's text aside); past it, it lets them go and reads the
/// file again for the page. At 10,000 entries of the benchmark corpus keeping them is about
/// 30 MB more at the peak and 3% less CPU time (each file read and parsed once, not twice);
/// at 100,000 they would be 300 MB.
pub const KEEP_BODIES_UP_TO: usize = 20_000;

/// The build of a project with no errors, assessing each entry as it is read. None: there
/// was an error (nothing written); `build_whole` reports it.
///
/// Each entry read is assessed and its pass 1 outline made (`render::pages::outline_of`)
/// while its text is in memory; then its file's text is dropped and, on a site of more
/// than [`KEEP_BODIES_UP_TO`] entries, also its body, what only its page reads of its front
/// matter and what its page shows, made again from its file when its page
/// is rendered (`content::reread`, which refuses a file changed in between, then
/// `assess::page_content`).
fn build_streaming(opts: &BuildOptions) -> Result<Option<BuildReport>> {
    let today = opts.today;
    /// What is made before the entries are read.
    struct Prepare {
        checks: std::collections::HashMap<EntryId, crate::review::SignatureChecks>,
        tera: Result<tera::Tera>,
        template_ids: TemplateIds,
    }
    // An entry no signature file names has nothing to verify (the default checks).
    let unsigned = crate::review::SignatureChecks::default();
    let vocabulary = Vocabulary::default();
    // Blocks highlighted and signatures verified by earlier builds into this output.
    let caches = cache::Caches::open(&planned_output(
        opts,
        &crate::config::Layout::new(&opts.root),
    ))?;
    let visit = |project: &Project, prepared: &Prepare, e: &mut Entry, of: usize| {
        let (checks, template_ids) = (&prepared.checks, &prepared.template_ids);
        // A diagram's preset is loaded after the content: such an entry is assessed then.
        if e.meta.diagram.is_some() {
            return None;
        }
        // What thinning sets aside is checked now: the checks after the load would find
        // it gone. (Only that something failed matters here; `build_whole` reports it.)
        let alone = crate::content::check_page_only(e).into_iter();
        if let Some(error) = alone
            .chain(project::check_citations(
                e,
                &project.config,
                &project.library,
            ))
            .next()
        {
            return Some(Err(error));
        }
        let checked = checks.get(&e.id).unwrap_or(&unsigned);
        let assessed = assess_checked(project, e, today, Keep::Digest, Some(checked));
        // The outline boxed: what every visit makes stays in one vector until the load
        // ends, and the assessments are then collected in its place (a smaller element
        // is about 10 MB less at 100,000 entries, there and to the end of the build).
        // Its search words coded at once (`site::words`): as text, every entry's were
        // the largest part of the peak.
        let assessed = assessed.map(|mut a| {
            let outline = a.shown.take().map(|shown| {
                let mut outline = outline_of(
                    &project.layout,
                    &project.config,
                    template_ids,
                    e,
                    &shown.markdown,
                );
                let words = vocabulary.code(&std::mem::take(&mut outline.text));
                (Box::new(outline), words)
            });
            (a, outline)
        });
        // A large site's texts are let go and read again for each page; a small one's
        // bodies are kept, so its pages are made without reading the files again.
        if of > opts.keep_bodies_up_to {
            e.thin();
        } else {
            // CPU time over memory on a small site: see the function.
            crate::heap_count::small_site_keeps_freed_memory_briefly();
            e.raw = String::new();
        }
        Some(assessed)
    };
    // Every signature verified up front; then only who signed what and when is kept. The
    // templates are loaded meanwhile (one thread's work): the entries' outlines, made as
    // they are read, keep heading ids off the templates' ids.
    let prepare = |project: &mut Project| {
        project.verified = caches.as_ref().map(|c| c.verified.clone());
        let templates = crate::config::Layout::new(&opts.root).templates();
        let (checks, tera) = rayon::join(
            || check_all_signoffs(project),
            || load_templates(&templates),
        );
        // Made again rather than thinned in place: built from sorted pairs at once, a
        // BTreeMap's nodes are full, where inserted one by one (as loaded) they are about
        // half empty (some 18 MB at 100,000 entries, kept to the end of the build).
        let signoffs = std::mem::take(&mut project.signoffs);
        project.signoffs = signoffs
            .into_iter()
            .map(|(id, mut signoff)| {
                signoff.thin();
                (id, signoff)
            })
            .collect();
        let template_ids = tera.as_ref().map(TemplateIds::of).unwrap_or_default();
        Prepare {
            checks,
            tera,
            template_ids,
        }
    };
    let (mut project, prepared, mut visited, failed) =
        Project::load_visiting(&opts.root, prepare, &visit)?;
    let Prepare { checks, tera, .. } = prepared;
    // A template error is reported by `build_whole`, with the rest.
    let (false, Ok(tera)) = (failed, tera) else {
        return Ok(None);
    };
    opts.configure(&mut project);
    // What the visits made is in entry order. Entries with a diagram were left for now.
    for (e, made) in project.content.entries.iter().zip(&mut visited) {
        if let Some(made @ None) = made {
            let checked = checks.get(&e.id).unwrap_or(&unsigned);
            let assessed = assess_checked(&project, e, today, Keep::Digest, Some(checked));
            *made = Some(assessed.map(|a| (a, None)));
        }
    }
    drop(checks);
    if visited
        .iter()
        .any(|made| !matches!(made, Some(Some(Ok(_)))))
    {
        return Ok(None);
    }
    let (outlines, words): (Vec<_>, Vec<_>) = visited
        .iter_mut()
        .map(|made| made.as_mut().and_then(Option::as_mut))
        .map(|made| made.and_then(|made| made.as_mut().ok()?.1.take()))
        .map(|made| made.map(|(outline, words)| (Some(*outline), Some(words))))
        .map(Option::unwrap_or_default)
        .unzip();
    // Collected in place (`filter_map` over the vector's own iterator reuses its buffer):
    // a second vector would hold every assessment twice for a moment, about 50 MB at
    // 100,000 entries, at the build's peak.
    let assessments: Vec<Assessment> = visited
        .into_iter()
        .filter_map(|made| Some(made??.ok()?.0))
        .collect();
    let out = output_dir(opts, &project)?;
    let static_dir = project.layout.templates().join("static");
    let staging = Staging::begin(&out, opts.drafts)?;
    let restore = restore_for(&project);
    let site = render_through_prepared(
        opts,
        &project,
        &tera,
        &assessments,
        Prepared {
            outlines,
            restore: Some(&restore),
            retain: Retain::Nothing {
                vocabulary: &vocabulary,
                words,
            },
        },
        &|f| staging.write(&f.path, &f.bytes),
    );
    // A render error may name a line only the dropped text gives: report from the whole
    // project. The staging folder is abandoned; the site is untouched.
    let Ok(mut site) = site else { return Ok(None) };
    site.site_links.check(&static_dir, None)?;
    staging.finish(Some(&static_dir))?;
    if let Some(caches) = &caches {
        caches.save();
        site.report.cache = Some(caches.usage());
    }
    site.report.pages_written = site.pages_made;
    site.report.files_written = site.files_made;
    drop(restore); // it borrows `project`, handed over below
                   // Freeing a large project takes a while; hand it to a thread so the caller (the CLI,
                   // about to exit) does not wait for it.
    std::thread::spawn(move || drop((project, tera, assessments, site.site_links)));
    Ok(Some(site.report))
}

/// The build with the whole project in memory: every error of every phase reported.
fn build_whole(opts: &BuildOptions) -> Result<BuildReport> {
    let (mut project, mut errors) = Project::load_collecting(&opts.root)?;
    opts.configure(&mut project);
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
    let out = output_dir(opts, &project)?;
    let static_dir = project.layout.templates().join("static");
    let staging = Staging::begin(&out, opts.drafts)?;
    let mut site = render_through(opts, &project, &tera, &assessments, &|f| {
        staging.write(&f.path, &f.bytes)
    })?;
    site.site_links.check(&static_dir, None)?;
    staging.finish(Some(&static_dir))?;
    site.report.pages_written = site.pages_made;
    site.report.files_written = site.files_made;
    // Freeing a 10,000-entry project takes about a tenth of a second; hand it to a thread
    // so the caller (the CLI, about to exit) does not wait for it.
    std::thread::spawn(move || drop((project, tera, assessments, site.site_links)));
    Ok(site.report)
}

/// What a whole-site render decided and found.
pub(crate) struct Rendered {
    pub report: BuildReport,
    /// The entries that got a page, where not just the published ones (a drafts build):
    /// a second set of every published id was about 8 MB at 100,000 entries.
    pub pages: Option<IdSet>,
    pub published: IdSet,
    pub links: SiteLinks,
    /// The links templates made, not yet checked.
    pub site_links: SiteLinkIndex,
    pub files_made: usize,
    /// Of those, HTML pages.
    pub pages_made: usize,
}

/// What a build made before rendering that the render would otherwise make itself.
#[derive(Default)]
pub(crate) struct Prepared<'a> {
    /// Pass 1 outlines, by entry (`content.entries` order), where already made.
    pub outlines: Vec<Option<RenderedMarkdown>>,
    /// How to make again what assessments let go.
    pub restore: Option<&'a Restore<'a>>,
    /// What the render keeps of pass 1 (by default the links and search words, as `serve`
    /// needs them).
    pub retain: Retain<'a>,
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
    render_through_prepared(opts, project, tera, assessments, Prepared::default(), sink)
}

/// [`render_through`], with what the build [`Prepared`].
fn render_through_prepared<'a>(
    opts: &BuildOptions,
    project: &'a Project,
    tera: &'a tera::Tera,
    assessments: &'a [Assessment],
    prepared: Prepared<'a>,
    sink: &(dyn Fn(OutputFile) -> Result<()> + Sync),
) -> Result<Rendered> {
    let mut report = BuildReport::from_assessments(assessments);
    let published: IdSet = report.published.iter().cloned().collect();
    let pages = opts
        .drafts
        .then(|| assessments.iter().map(|a| a.id.clone()).collect());
    let gathered = std::sync::Mutex::new((SiteLinkIndex::default(), 0usize, 0usize));
    let mut input = project.render_input(
        assessments,
        tera,
        pages.as_ref().unwrap_or(&published),
        &published,
        opts.today,
        opts.drafts,
    );
    input.restore = prepared.restore;
    // The bundles of the tables the rendered pages show, for `glossary reproduce`, made
    // alongside the pages: alone at the end, they were a single-threaded stretch of a
    // large build (each citing entry's claims read back from its file).
    let (links, bundles) = rayon::join(
        || {
            render_site_into_with(&input, prepared.outlines, prepared.retain, &|f| {
                let facts = page_links(&f);
                let page = f.path.extension().is_some_and(|e| e == "html");
                sink(f)?;
                let mut g = gathered.lock().unwrap_or_else(|p| p.into_inner());
                g.0.insert(facts);
                g.1 += 1;
                g.2 += usize::from(page);
                Ok(())
            })
        },
        || bundles::site_bundles(project, pages.as_ref().unwrap_or(&published)),
    );
    let links = links?;
    report.static_refused.clone_from(&links.static_refused);
    report.static_not_inert.clone_from(&links.static_not_inert);
    let (site_links, mut files_made, pages_made) =
        gathered.into_inner().unwrap_or_else(|p| p.into_inner());
    for f in bundles? {
        sink(f)?;
        files_made += 1;
    }
    Ok(Rendered {
        report,
        pages,
        published,
        links,
        site_links,
        files_made,
        pages_made,
    })
}

/// `--out`, else `site/`, or `site-drafts/` for a drafts preview: a preview never lands
/// where the deployable site is by default.
fn output_dir(opts: &BuildOptions, project: &Project) -> Result<PathBuf> {
    let out = planned_output(opts, &project.layout);
    refuse_output_among_inputs(&out, &project.layout)?;
    if opts.drafts {
        refuse_drafts_into_site(&out, &project.layout)?;
    }
    Ok(out)
}

/// Where a build writes, before checking that it may ([`output_dir`]).
fn planned_output(opts: &BuildOptions, layout: &crate::config::Layout) -> PathBuf {
    opts.out.clone().unwrap_or_else(|| {
        if opts.drafts {
            layout.drafts_output()
        } else {
            layout.default_output()
        }
    })
}

/// A drafts preview never goes where the deployable site is published (`site/`), whether
/// or not that folder exists yet: on a fresh checkout there is no site (nor its marker) to
/// protect, and a preview written there would be the folder a deploy picks up. Compared
/// resolved, so `site/.`, `x/../site` or a symlink to it are the same folder.
fn refuse_drafts_into_site(out: &Path, layout: &crate::config::Layout) -> Result<()> {
    if resolved(out)? != resolved(&layout.default_output())? {
        return Ok(());
    }
    Err(Error::Other(format!(
        "{}: refusing to write a drafts preview there: it is the folder the site is published \
         to ({}); a drafts preview goes to its own folder (default site-drafts/)",
        out.display(),
        layout.default_output().display()
    )))
}

/// The output may not be the project root nor lie inside a folder the build reads
/// (content/, templates/, measurements/, static/): the next build would read the last
/// one's pages back (templates/static/ is copied into the site, so a site there grew by
/// its own copy on every build) or take them for content. Paths are compared resolved
/// (`..` and symlinks), so another spelling of the same folder is refused too.
fn refuse_output_among_inputs(out: &Path, layout: &crate::config::Layout) -> Result<()> {
    let out_real = resolved(out)?;
    let root = resolved(&layout.root)?;
    let inputs = [
        layout.content(),
        layout.templates(),
        layout.measurements(),
        layout.static_files(),
    ];
    let inside = inputs
        .iter()
        .map(|dir| resolved(dir))
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .zip(&inputs)
        .find(|(dir, _)| out_real.starts_with(dir));
    let why = if out_real == root {
        "it is the project's root".to_string()
    } else if let Some((_, dir)) = inside {
        let name = dir.file_name().unwrap_or_default().to_string_lossy();
        format!("it is inside {name}/, which the build reads")
    } else {
        return Ok(());
    };
    Err(Error::Other(format!(
        "{}: refusing to write the site there: {why}; choose another --out (default site/)",
        out.display()
    )))
}

/// `p` made absolute, with `.` and `..` taken out and the longest part of it that exists
/// resolved through symlinks (the output folder need not exist yet).
fn resolved(p: &Path) -> Result<PathBuf> {
    use std::path::Component;
    let mut lexical = PathBuf::new();
    for c in output::absolute(p)?.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                lexical.pop();
            }
            c => lexical.push(c),
        }
    }
    let mut existing = lexical.as_path();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => break,
        }
    }
    let mut real = existing
        .canonicalize()
        .unwrap_or_else(|_| existing.to_path_buf());
    real.extend(rest.iter().rev());
    Ok(real)
}

/// `review status`: each entry's standing, read off the verdicts of the same assessment a
/// build makes.
pub fn review_status(project: &Project, assessments: &[Assessment]) -> StatusReport {
    let mut report = status_report(project.content.entries.iter().filter_map(|e| {
        let a = assessments.iter().find(|a| a.id == e.id)?;
        Some(Gated {
            entry: &e.id,
            title: &e.meta.title,
            signoff: project.signoffs.get(&e.id),
            verdict: &a.verdict,
            digest: &a.digest,
            warnings: &a.warnings,
            people: &project.people,
        })
    }));
    report.entries.extend(static_status(project));
    report
}

/// The `static/` files that must be signed to be published, each gated as the build
/// gates it (`site::static_files`), as status rows after the entries. A file whose
/// signatures do not load is left to the build's error.
fn static_status(project: &Project) -> Vec<crate::review::EntryStatus> {
    use crate::review::{entry_status, load_static_signoff, static_material, static_name};
    let reviews = project.layout.reviews();
    crate::site::static_files::active_static_files(&project.layout)
        .into_iter()
        .filter_map(|(rel, bytes)| {
            let signoff = load_static_signoff(&reviews, &rel).ok()?;
            let verdict =
                crate::review::static_verdict(&reviews, &rel, &bytes, &project.people).ok()?;
            let digest = static_material(&rel, &bytes).digest;
            let name = static_name(&rel);
            Some(entry_status(Gated {
                entry: &name,
                title: "static file",
                signoff: signoff.as_ref(),
                verdict: &verdict,
                digest: &digest,
                warnings: &[],
                people: &project.people,
            }))
        })
        .collect()
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
/// rendered as a draft. Each file is dropped once its links are noted, so `check` never
/// holds the site's HTML (at 100,000 entries that is over a gigabyte).
fn render_errors(
    project: &Project,
    tera: &tera::Tera,
    assessments: &[Assessment],
    today: NaiveDate,
) -> Vec<Error> {
    let report = BuildReport::from_assessments(assessments);
    let published: IdSet = report.published.iter().cloned().collect();
    let pages: IdSet = assessments.iter().map(|a| a.id.clone()).collect();
    let index = std::sync::Mutex::new(SiteLinkIndex::default());
    let made = render_site_into(
        &project.render_input(assessments, tera, &pages, &published, today, false),
        &|f| {
            let facts = page_links(&f);
            index
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(facts);
            Ok(())
        },
    );
    let checked = made.and_then(|_| {
        let index = index.into_inner().unwrap_or_else(|p| p.into_inner());
        index.check(&project.layout.templates().join("static"), None)
    });
    checked.err().map(Error::flatten).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
        walkdir::WalkDir::new(dir)
            .into_iter()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                let bytes = std::fs::read(e.path()).unwrap();
                (e.path().strip_prefix(dir).unwrap().to_path_buf(), bytes)
            })
            .collect()
    }

    /// Updated in place after edits, the report is the one made afresh from the same
    /// assessments: entries published and refused by turns, several per edit, the same
    /// one twice in an edit, at the first and last places.
    #[test]
    fn an_updated_report_is_the_report_made_afresh() {
        use crate::content::Kind;
        use crate::review::{Refusal, Verdict};
        let assessment = |i: usize, published: bool| Assessment {
            id: EntryId::new(Kind::Term, format!("t{i}")),
            verdict: Verdict {
                refusals: if published {
                    vec![]
                } else {
                    vec![Refusal::NoAuthor]
                },
            },
            digest: String::new(),
            material: None,
            shown: None,
            body_calls: Box::new([]),
            last_checked: None,
            warnings: if i.is_multiple_of(7) {
                vec![format!("w{i}")]
            } else {
                vec![]
            },
            notes: if i.is_multiple_of(5) {
                vec![format!("n{i}")]
            } else {
                vec![]
            },
        };
        let n = 40;
        let mut assessments: Vec<Assessment> = (0..n).map(|i| assessment(i, i % 3 != 0)).collect();
        let mut report = BuildReport::from_assessments(&assessments);
        let mut seed = 12345u64;
        let mut next = |m: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % m
        };
        for edit in 0..300 {
            let mut picked: Vec<usize> = (0..1 + next(4)).map(|_| next(n)).collect();
            if edit % 50 == 0 {
                picked.extend([0, n - 1, 0]);
            }
            for &i in &picked {
                let flip = !assessments[i].verdict.is_published();
                assessments[i] = assessment(i, flip);
            }
            report.update(&assessments, &picked);
            let fresh = BuildReport::from_assessments(&assessments);
            assert_eq!(report.published, fresh.published, "edit {edit}");
            let all = Listed {
                warnings: true,
                notes: true,
            };
            assert_eq!(report.summary(all), fresh.summary(all), "edit {edit}");
        }
    }

    /// The build that assesses entries as it reads them must write what the build holding
    /// the whole project writes, whether it keeps their bodies for their pages or reads
    /// them again (as past [`KEEP_BODIES_UP_TO`] entries): the repository's own content
    /// (diagrams, measured tables, value calls) and the realistic corpus fixture, as drafts
    /// so every page is made.
    #[test]
    fn streaming_build_writes_what_the_whole_build_writes() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let fixture = tempfile::tempdir().unwrap();
        copy_dir(&repo.join("tests/fixtures/sites/corpus"), fixture.path()).unwrap();
        copy_dir(&repo.join("templates"), &fixture.path().join("templates")).unwrap();
        let today = chrono::Local::now().date_naive();
        for root in [repo.to_path_buf(), fixture.path().to_path_buf()] {
            let tmp = tempfile::tempdir().unwrap();
            let opts = |out: &str, keep_bodies_up_to| BuildOptions {
                root: root.clone(),
                out: Some(tmp.path().join(out)),
                drafts: true,
                // Today, as `glossary build` takes it: the repository's content holds
                // sources checked up to today, and a fixed past date would make each
                // newer one an error ("checked in the future"). Both builds share it.
                today,
                base_url: None,
                keep_bodies_up_to,
            };
            let streamed = build_streaming(&opts("streamed", KEEP_BODIES_UP_TO)).unwrap();
            let streamed = streamed.expect("the project builds without errors");
            let reread = build_streaming(&opts("reread", 0)).unwrap();
            let reread = reread.expect("the project builds without errors");
            let whole = build_whole(&opts("whole", KEEP_BODIES_UP_TO)).unwrap();
            let all = Listed {
                warnings: true,
                notes: true,
            };
            assert_eq!(streamed.summary(all), whole.summary(all));
            assert_eq!(reread.summary(all), whole.summary(all));
            assert_eq!(streamed.pages_written, whole.pages_written);
            let b = snapshot(&tmp.path().join("whole"));
            for made in ["streamed", "reread"] {
                let a = snapshot(&tmp.path().join(made));
                assert!(a.len() > 10, "{}: only {} files", root.display(), a.len());
                assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
                for (path, bytes) in &a {
                    assert!(
                        bytes == &b[path],
                        "{}, {made}: {} differs",
                        root.display(),
                        path.display()
                    );
                }
            }
        }
    }
}
