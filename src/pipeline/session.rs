//! Incremental rebuilds for `serve`: keep the loaded project, the verdicts and the link
//! graph in memory, and on a change re-read, re-check and re-render only what depends on
//! the changed files.
//!
//! What depends on an entry's file or signatures:
//! - its own page (body, tables, byline, verdict);
//! - when what other pages show of it changes (name, title, summary, day, whether it has a
//!   page, whether it is published): pages listing it as related, pages whose body links
//!   to it, lessons and guides listing it (a term), the terms it lists (a lesson's "where
//!   you meet this"), and the index;
//! - when its headings change: pages whose body links to it (their anchor checks);
//! - when the terms it lists change: those terms' "where you meet this".
//!
//! Anything else (templates, glossary.toml, measurements, static files, an entry added,
//! removed or renamed) rebuilds the whole site, atomically, as `build` does.
//!
//! What the author is looking at comes first: [`Session::edit`] re-renders the changed
//! entries' pages (and the index when what it lists changed) and checks every link the
//! change could break; the other pages that show something of the entries and the
//! site-wide files (search index, sitemap, feed) are left to [`Session::catch_up`], which
//! `serve` calls a slice at a time while no save is waiting. [`Session::rebuild`] does
//! both at once.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use tera::Tera;

use crate::atomic::{write_file_if_changed, Durability};
use crate::content::{load_entry, Entry, EntryId, IdSet, Kind};
use crate::error::{Error, Result};
use crate::render::navigation::{list_label, Navigation};
use crate::render::pages::{page_path, render_page, render_page_markdown};
use crate::render::templates::load_templates;
use crate::review::{load_signoff, signoff_path};
use crate::site::assemble::{render_site_wide_from, SiteLinks};
use crate::site::body_links::{check_inline_links, check_links, linked_entries};
use crate::site::index_page::AzIndex;
use crate::site::search::Stop;
use crate::site::site_links::{page_links, KeptLinks, PageLinks, SiteLinkIndex};
use crate::site::tokens::distinct_words;

use super::assess::Keep;
use super::output::absolute;
use super::project::check_citations;
use super::{
    assess, assess_collecting, render_through, write_site, Assessment, BuildOptions, BuildReport,
    OutputFile, Project,
};

/// A build kept in memory between edits. It hands back the files it made; `serve` swaps
/// them into what it serves, and [`Rebuilt::write_to`] writes them to a folder.
pub struct Session {
    opts: BuildOptions,
    root: PathBuf,
    out: PathBuf,
    state: State,
    /// Changed paths not yet applied because the last rebuild failed (say, a front matter
    /// typo): they are retried with the next change, so no edit is ever lost.
    pending: BTreeSet<PathBuf>,
}

struct State {
    project: Project,
    tera: Tera,
    /// One per entry, in the order of `project.content.entries`.
    assessments: Vec<Assessment>,
    pages: IdSet,
    published: IdSet,
    links: SiteLinks,
    /// The links and ids of every file made, for checking the links templates make.
    site_links: SiteLinkIndex,
    /// Entry -> the pages whose body links to it.
    linked_from: HashMap<EntryId, IdSet>,
    /// Term slug -> the entries that list it as related.
    related_from: HashMap<String, IdSet>,
    /// Entry file, relative to the root -> its index in `project.content.entries`.
    by_file: HashMap<PathBuf, usize>,
    /// The search index files of the last build: shards come and go with the words in
    /// published entries, so a rebuild removes the ones it no longer makes.
    search_files: BTreeSet<PathBuf>,
    /// The experiment bundles of the last build (`reproduce/`): remade on every edit, since
    /// an edited entry, claim or record changes them, and removed when no page cites one.
    bundle_files: BTreeMap<PathBuf, Vec<u8>>,
    report: Arc<BuildReport>,
    /// The reading order of `pages`, remade only when an entry's place in it changes.
    navigation: Navigation,
    /// The index's rows and rendered letter groups: a name change re-renders two groups,
    /// not the whole list.
    az: AzIndex,
    /// Pages an edit changed that are not yet re-rendered (see [`Session::catch_up`]).
    deferred: BTreeSet<EntryId>,
    /// Whether the index is behind (an entry's draft mark or page came or went).
    deferred_index: bool,
    /// Whether the site-wide files are behind the published entries.
    deferred_site_wide: bool,
    /// Deferred work that failed: left until the next edit, so it is not retried in a loop.
    stalled: bool,
    /// See [`Session::show_withdrawn`]: published entries an edit withdrew keep a page,
    /// marked as withdrawn, in a session that serves from memory.
    show_withdrawn: bool,
    /// Those entries. Their page is rendered and served, but they are not in `pages`:
    /// `pages` is what a build would give a page, and every other page (the home page's
    /// contents and body, sidebars, lists, body links) is rendered from it, so it is
    /// byte for byte what a build writes. Kept in `pages`, a withdrawn entry stayed in
    /// the home page's contents and body links after the edit.
    withdrawn: IdSet,
}

/// Pages re-rendered per [`Session::catch_up`] call: small enough that a save arriving
/// meanwhile waits only a few milliseconds.
const CATCH_UP_PAGES: usize = 64;

/// What one rebuild made.
pub struct Rebuilt {
    /// Shared with the session, which keeps the latest.
    pub report: Arc<BuildReport>,
    /// Whether this is the whole site (the first build, or a change that needed all of
    /// it): `files` then replace every file; otherwise they replace only those paths.
    pub full: bool,
    /// The files made, by path relative to the site root.
    pub files: Vec<OutputFile>,
    /// Files of the previous build that no longer exist (an entry that lost its page).
    pub removed: Vec<PathBuf>,
    /// `templates/static`, served at `static/`.
    pub static_dir: PathBuf,
    /// Made by a `--drafts` session: written only to a drafts folder (see `output`).
    pub drafts: bool,
}

impl Rebuilt {
    /// Fold a later rebuild's files into this one.
    pub fn merge(&mut self, later: Rebuilt) {
        if later.full {
            *self = later;
            return;
        }
        let made: HashSet<&PathBuf> = later.files.iter().map(|f| &f.path).collect();
        self.files.retain(|f| !made.contains(&f.path));
        let gone: HashSet<&PathBuf> = later.removed.iter().collect();
        self.files.retain(|f| !gone.contains(&f.path));
        self.removed.retain(|p| !made.contains(p));
        self.removed.extend(later.removed.iter().cloned());
        self.files.extend(later.files);
        self.report = later.report;
    }

    /// Bring the site folder `out` up to date: a whole site is swapped in atomically as
    /// `build` does; single files are each replaced atomically.
    pub fn write_to(&self, out: &Path) -> Result<()> {
        if self.full {
            return write_site(out, &self.files, Some(&self.static_dir), self.drafts);
        }
        for f in &self.files {
            write_live(&out.join(&f.path), &f.bytes)?;
        }
        for path in &self.removed {
            let file = out.join(path);
            if file.is_file() {
                std::fs::remove_file(&file).map_err(|e| Error::io(&file, e))?;
                if let Some(dir) = file.parent() {
                    // Only succeeds when the page's folder is now empty.
                    let _ = std::fs::remove_dir(dir);
                }
            }
        }
        Ok(())
    }
}

/// How one changed path is handled.
enum Change {
    Entry(usize),
    Signatures(EntryId),
    Full,
    Ignore,
}

/// The facts other pages show of an entry: if none changed, no other page changes.
#[derive(PartialEq)]
struct Shown {
    name: String,
    title: String,
    summary: String,
    aliases: Vec<String>,
    day: Option<u32>,
    has_page: bool,
    published: bool,
}

impl Session {
    /// Render the whole site (as `build` does, into memory) and keep what an incremental
    /// rebuild needs. The files come back in the first [`Rebuilt`].
    pub fn start(opts: BuildOptions) -> Result<(Session, Rebuilt)> {
        let root = absolute(&opts.root)?;
        let (state, site) = State::load(&opts)?;
        let out = absolute(&super::output_dir(&opts, &state.project)?)?;
        let session = Session {
            opts,
            root,
            out,
            state,
            pending: BTreeSet::new(),
        };
        Ok((session, site))
    }

    pub fn report(&self) -> &BuildReport {
        &self.state.report
    }

    /// Where `build` would write the site (`--out`, or `<root>/site`); changes there are
    /// ignored.
    pub fn out_dir(&self) -> &Path {
        &self.out
    }

    /// The files that change after the files at `changed` changed (paths as a file
    /// watcher reports them), deferred work included. On error the session is as before
    /// the call.
    pub fn rebuild(&mut self, changed: &[PathBuf]) -> Result<Rebuilt> {
        let mut site = self.edit(changed)?;
        while let Some(more) = self.catch_up() {
            site.merge(more?);
        }
        Ok(site)
    }

    /// Whether an edit left work for [`Session::catch_up`].
    pub fn is_behind(&self) -> bool {
        let s = &self.state;
        !s.stalled && (s.deferred_index || !s.deferred.is_empty() || s.deferred_site_wide)
    }

    /// Deferred work, one slice at a time: pages that show something of an edited entry,
    /// then the site-wide files. None when nothing is left (or the last slice failed:
    /// then the next edit retries).
    pub fn catch_up(&mut self) -> Option<Result<Rebuilt>> {
        self.catch_up_until(&|| false)
    }

    /// [`Session::catch_up`], giving up the site-wide files (seconds of work at 100,000
    /// entries) as soon as `stop` says a save is waiting: they stay deferred, and the
    /// save is not kept waiting for them.
    pub fn catch_up_until(&mut self, stop: Stop<'_>) -> Option<Result<Rebuilt>> {
        let state = &mut self.state;
        if state.stalled {
            return None;
        }
        let mut next = Next::default();
        if state.deferred_index {
            next.index = true;
        } else if !state.deferred.is_empty() {
            next.pages = std::iter::from_fn(|| state.deferred.pop_first())
                .take(CATCH_UP_PAGES)
                .collect();
        } else if state.deferred_site_wide {
            next.site_wide = true;
            next.stop = Some(stop);
        } else {
            return None;
        }
        let result = state.apply(&self.opts, &BTreeSet::new(), &Undo::default(), &next);
        match &result {
            // `apply` says whether the site-wide files were made.
            Ok(_) => state.deferred_index &= !next.index,
            Err(_) => {
                state.deferred.extend(next.pages);
                state.stalled = true;
            }
        }
        Some(result)
    }

    /// The changed entries' own pages now, the rest deferred to [`Session::catch_up`]. On
    /// error the session is as before the call.
    pub fn edit(&mut self, changed: &[PathBuf]) -> Result<Rebuilt> {
        self.state.stalled = false;
        for p in changed {
            let p = absolute(p)?;
            self.pending.insert(p);
        }
        let changes: Vec<Change> = self.pending.iter().map(|p| self.classify(p)).collect();
        let result = if changes.iter().any(|c| matches!(c, Change::Full)) {
            self.full()
        } else {
            let mut entries = BTreeSet::new();
            let mut signatures = BTreeSet::new();
            for c in changes {
                match c {
                    Change::Entry(i) => {
                        entries.insert(i);
                    }
                    Change::Signatures(id) => {
                        signatures.insert(id);
                    }
                    Change::Full | Change::Ignore => {}
                }
            }
            self.incremental(&entries, &signatures)
        };
        if result.is_ok() {
            self.pending.clear();
        }
        result
    }

    fn classify(&self, path: &Path) -> Change {
        if path.starts_with(&self.out) {
            return Change::Ignore;
        }
        let Ok(rel) = path.strip_prefix(&self.root) else {
            return Change::Ignore;
        };
        let parts: Vec<&str> = rel
            .components()
            .filter_map(|c| match c {
                Component::Normal(s) => s.to_str(),
                _ => None,
            })
            .collect();
        // Copied to the site as they are, `.well-known/` included: what a build reads.
        if parts.first() == Some(&"static") {
            return Change::Full;
        }
        // Editor swap files, version control, and our own staging folders.
        if parts.iter().any(|p| p.starts_with('.') || p.ends_with('~')) {
            return Change::Ignore;
        }
        match parts[..] {
            // Signed texts are read by `review diff` only; a signature file changes with them.
            ["content", "reviews", crate::review::TEXTS_DIR, _] => Change::Ignore,
            // Who may sign decides every verdict.
            ["content", crate::trust::PEOPLE_FILE] => Change::Full,
            // An entry's sign-off log is read with its signature file.
            ["content", "reviews", crate::review::LOG_DIR, dir, file] => {
                match (Kind::from_dir(dir), file.strip_suffix(".jsonl")) {
                    (Some(kind), Some(slug)) => Change::Signatures(EntryId::new(kind, slug)),
                    _ => Change::Full,
                }
            }
            ["content", "reviews", dir, file] => {
                match (Kind::from_dir(dir), file.strip_suffix(".yaml")) {
                    (Some(kind), Some(slug)) => Change::Signatures(EntryId::new(kind, slug)),
                    _ => Change::Full,
                }
            }
            ["content", dir, file] if Kind::from_dir(dir).is_some() => {
                if !file.ends_with(".md") {
                    return Change::Ignore;
                }
                match self.state.by_file.get(rel) {
                    Some(&i) if path.is_file() => Change::Entry(i),
                    // Added or removed: the set of pages changes.
                    _ => Change::Full,
                }
            }
            ["content", ..] if !rel.extension().is_some_and(|x| x == "md" || x == "yaml") => {
                Change::Ignore
            }
            _ => Change::Full,
        }
    }

    fn full(&mut self) -> Result<Rebuilt> {
        let (mut state, site) = State::load(&self.opts)?;
        // A whole new build knows no earlier publication: withdrawn pages start again
        // from the entries published now.
        state.show_withdrawn = self.state.show_withdrawn;
        self.state = state;
        Ok(site)
    }

    /// From now on, a published entry that an edit withdraws (its text changed after its
    /// sign-off, a signature removed) keeps its page, rendered with the current text and a
    /// banner saying why it is no longer published, as a drafts preview shows drafts: for
    /// `serve`, which serves from memory, so an author sees what the edit did rather than a
    /// 404. Off in a `--drafts` session (every refused entry has a page there already).
    /// Only for a session whose files are served, never written to a site folder.
    pub fn show_withdrawn(&mut self) {
        self.state.show_withdrawn = !self.opts.drafts;
    }

    fn incremental(
        &mut self,
        entries: &BTreeSet<usize>,
        signatures: &BTreeSet<EntryId>,
    ) -> Result<Rebuilt> {
        // Read everything first: a file that does not parse changes nothing.
        let project = &self.state.project;
        let mut new_entries = Vec::new();
        let mut errors = Vec::new();
        let mut renamed = false;
        for &i in entries {
            let old = &project.content.entries[i];
            match load_entry(old.id.kind, old.path.clone(), &project.content) {
                // A moved page, or moved old paths: the set of pages written changes,
                // and redirects are checked across the whole content.
                Ok(e) if e.id != old.id || e.meta.redirect_from != old.meta.redirect_from => {
                    renamed = true
                }
                Ok(e) => {
                    errors.extend(check_citations(&e, &project.config, &project.library));
                    errors.extend(crate::content::check_section(&e, &project.config.sections));
                    new_entries.push(e);
                }
                Err(e) => errors.push(e),
            }
        }
        if renamed {
            // A `slug:` edit moves a page: the set of pages changes.
            return self.full();
        }
        let reviews = project.layout.reviews();
        let mut new_signoffs = Vec::new();
        for id in signatures {
            let path = signoff_path(&reviews, id);
            if !path.is_file() {
                new_signoffs.push((id.clone(), None));
                continue;
            }
            let known: HashSet<&EntryId> =
                project.content.get(id).map(|e| &e.id).into_iter().collect();
            match load_signoff(&reviews, &path, &known) {
                Ok((id, s)) => new_signoffs.push((id, Some(s))),
                Err(e) => errors.push(e),
            }
        }
        Error::collect(errors)?;

        // Apply, remembering how to undo it if checking or rendering fails.
        let project = &mut self.state.project;
        let mut undo = Undo::default();
        let mut changed: BTreeSet<EntryId> = BTreeSet::new();
        for e in new_entries {
            changed.insert(e.id.clone());
            if let Some(old) = project.content.replace(e) {
                undo.entries.push(old);
            }
        }
        for (id, s) in new_signoffs {
            changed.insert(id.clone());
            let old = match s {
                Some(s) => project.signoffs.insert(id.clone(), s),
                None => project.signoffs.remove(&id),
            };
            undo.signoffs.push((id, old));
        }
        match self
            .state
            .apply(&self.opts, &changed, &undo, &Next::default())
        {
            Ok(r) => Ok(r),
            Err(e) => {
                let state = &mut self.state;
                let moved: Vec<EntryId> = undo.entries.iter().map(|e| e.id.clone()).collect();
                undo.revert(&mut state.project);
                for id in &moved {
                    state.navigation.relocate(
                        &state.project.config,
                        &state.project.content,
                        &state.pages,
                        id,
                    );
                }
                Err(e)
            }
        }
    }
}

/// What to render now besides the changed entries' pages (deferred work).
#[derive(Default)]
struct Next<'a> {
    pages: BTreeSet<EntryId>,
    index: bool,
    site_wide: bool,
    /// When to give up the site-wide files.
    stop: Option<Stop<'a>>,
}

/// The entries and signatures an incremental rebuild replaced, to put back on failure.
#[derive(Default)]
struct Undo {
    entries: Vec<Entry>,
    signoffs: Vec<(EntryId, Option<crate::review::SignOff>)>,
}

impl Undo {
    fn revert(self, project: &mut Project) {
        for e in self.entries {
            project.content.replace(e);
        }
        for (id, s) in self.signoffs {
            match s {
                Some(s) => project.signoffs.insert(id, s),
                None => project.signoffs.remove(&id),
            };
        }
    }

    fn old_entry(&self, id: &EntryId) -> Option<&Entry> {
        self.entries.iter().find(|e| &e.id == id)
    }
}

impl State {
    fn load(opts: &BuildOptions) -> Result<(State, Rebuilt)> {
        let mut project = Project::load(&opts.root)?;
        opts.configure(&mut project);
        // The build cache `build` keeps beside the same output: serve's first build skips
        // the blocks and signatures an earlier build (or serve) did; its edits keep using it.
        let caches = super::cache::Caches::open(&super::planned_output(opts, &project.layout))?;
        project.verified = caches.as_ref().map(|c| c.verified.clone());
        let tera = load_templates(&project.layout.templates())?;
        // The digests only: serve never signs, and holds every assessment between edits.
        let (assessments, errors) = assess_collecting(&project, opts.today, Keep::Digest);
        Error::sorted(errors)?;
        let files = std::sync::Mutex::new(Vec::new());
        let mut rendered = render_through(opts, &project, &tera, &assessments, &|f| {
            files.lock().unwrap_or_else(|p| p.into_inner()).push(f);
            Ok(())
        })?;
        let static_dir = project.layout.templates().join("static");
        rendered.site_links.check(&static_dir, None)?;
        if let Some(caches) = &caches {
            caches.save();
        }
        let mut files = files.into_inner().unwrap_or_else(|p| p.into_inner());
        files.sort_by(|a, b| a.path.cmp(&b.path));
        rendered.report.pages_written = files
            .iter()
            .filter(|f| f.path.extension().is_some_and(|e| e == "html"))
            .count();
        rendered.report.files_written = files.len();
        let mut linked_from: HashMap<EntryId, IdSet> = HashMap::new();
        for (from, tos) in &rendered.links.links_to {
            for to in tos {
                linked_from
                    .entry(to.clone())
                    .or_default()
                    .insert(from.clone());
            }
        }
        let mut related_from: HashMap<String, IdSet> = HashMap::new();
        for e in &project.content.entries {
            for r in &e.meta.related {
                related_from
                    .entry(r.clone())
                    .or_default()
                    .insert(e.id.clone());
            }
        }
        let by_file = project
            .content
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let rel = e.path.strip_prefix(&project.layout.root).unwrap_or(&e.path);
                (rel.to_path_buf(), i)
            })
            .collect();
        let search_files = search_files(&files);
        let bundle_files = bundle_files(&files);
        // Serve keeps both sets (an edit can publish or withdraw one entry).
        let pages = (rendered.pages.take()).unwrap_or_else(|| rendered.published.clone());
        let navigation = Navigation::new(&project.config, &project.content, &pages);
        // The index's parts, rendered once more now so the first edit finds them.
        let input = project.render_input_with(
            &assessments,
            &tera,
            &pages,
            &rendered.published,
            opts.today,
            opts.drafts,
            std::borrow::Cow::Borrowed(&navigation),
        );
        let mut az = AzIndex::new(&input, true);
        az.render(&input)?;
        az.settle();
        let report = Arc::new(rendered.report);
        let site = Rebuilt {
            report: Arc::clone(&report),
            full: true,
            files,
            removed: Vec::new(),
            static_dir,
            drafts: opts.drafts,
        };
        let state = State {
            project,
            tera,
            assessments,
            pages,
            published: rendered.published,
            links: rendered.links,
            site_links: rendered.site_links,
            linked_from,
            related_from,
            by_file,
            search_files,
            bundle_files,
            report,
            navigation,
            az,
            deferred: BTreeSet::new(),
            deferred_index: false,
            deferred_site_wide: false,
            stalled: false,
            show_withdrawn: false,
            withdrawn: IdSet::default(),
        };
        Ok((state, site))
    }

    fn index_of(&self, id: &EntryId) -> Option<usize> {
        self.project
            .content
            .entries
            .binary_search_by(|e| e.id.cmp(id))
            .ok()
    }

    fn shown(&self, e: &Entry) -> Shown {
        Shown {
            name: e.name().to_string(),
            title: e.meta.title.clone(),
            summary: e.meta.summary.clone(),
            aliases: e.meta.aliases.clone(),
            day: e.meta.day,
            has_page: self.pages.contains(&e.id),
            published: self.published.contains(&e.id),
        }
    }

    /// Re-assess `changed` (already swapped into the project) and re-render their pages,
    /// the index if what it lists of them changed, and what `next` asks for; the other
    /// pages that depend on them, and the index if only their draft marks changed, are
    /// deferred. Nothing in `self` but the project is modified until everything rendered
    /// and checked.
    fn apply(
        &mut self,
        opts: &BuildOptions,
        changed: &BTreeSet<EntryId>,
        undo: &Undo,
        next: &Next,
    ) -> Result<Rebuilt> {
        let (also, site_wide) = (&next.pages, next.site_wide);
        // Their index rows are remade at the next render of the index (now or deferred).
        self.az.touch(changed);
        let project = &self.project;
        let mut assessed = Vec::new();
        for id in changed {
            let (Some(i), Some(e)) = (self.index_of(id), project.content.get(id)) else {
                continue;
            };
            assessed.push((i, assess(project, e, opts.today, Keep::Digest)?));
        }

        // Which pages have one, and which are published, after the change (copied only
        // when an entry gains or loses its page or publication).
        let mut new_pages: Option<(IdSet, IdSet)> = None;
        let mut later: BTreeSet<EntryId> = BTreeSet::new();
        let mut index_changed = next.index;
        let mut index_behind = false;
        // Entries whose place in the reading order changed.
        let mut moved: Vec<EntryId> = Vec::new();
        // Committed with the rest, once everything rendered and checked.
        let mut withdrawn = self.withdrawn.clone();
        for (i, a) in &assessed {
            let e = &project.content.entries[*i];
            let before = match undo.old_entry(&e.id) {
                Some(old) => self.shown(old),
                None => self.shown(e),
            };
            let is_published = a.verdict.is_published();
            let was_listed = self.published.contains(&e.id) || self.withdrawn.contains(&e.id);
            if self.show_withdrawn && !is_published && was_listed {
                withdrawn.insert(e.id.clone());
            } else {
                withdrawn.remove(&e.id);
            }
            // As a build has it: a withdrawn entry's page is served, but no other page
            // links to it or lists it (see `State::withdrawn`).
            let has_page = opts.drafts || is_published;
            let (had_page, was_published) = match &new_pages {
                Some((p, q)) => (p.contains(&e.id), q.contains(&e.id)),
                None => (self.pages.contains(&e.id), self.published.contains(&e.id)),
            };
            // Copied only when one changes: two sets of 100,000 ids take milliseconds.
            if (has_page, is_published) != (had_page, was_published) {
                let (pages, published) =
                    new_pages.get_or_insert_with(|| (self.pages.clone(), self.published.clone()));
                if is_published {
                    published.insert(e.id.clone());
                } else {
                    published.remove(&e.id);
                }
                if has_page {
                    pages.insert(e.id.clone());
                } else {
                    pages.remove(&e.id);
                }
            }
            let after = Shown {
                has_page,
                published: is_published,
                ..self.shown(e)
            };
            // Sidebars and previous/next links show where an entry sits in the reading
            // order: moving it changes the pages near its old and new places.
            let placed = |x: &Entry, has_page: bool| {
                (
                    list_label(x).to_string(),
                    x.meta.section.clone(),
                    x.meta.topic,
                    x.meta.order,
                    x.meta.day,
                    has_page,
                )
            };
            let old = undo.old_entry(&e.id).unwrap_or(e);
            if placed(old, before.has_page) != placed(e, after.has_page) {
                index_changed = true;
                moved.push(e.id.clone());
            }
            if before != after {
                // The index lists names, summaries and aliases (the author may be looking
                // for the new one); a draft mark alone can wait.
                let listed = |s: &Shown| {
                    (
                        s.name.clone(),
                        s.title.clone(),
                        s.summary.clone(),
                        s.aliases.clone(),
                        s.day,
                    )
                };
                if listed(&before) != listed(&after) {
                    index_changed = true;
                } else {
                    index_behind = true;
                }
                later.extend(self.shown_on(e));
                if let Some(old) = undo.old_entry(&e.id) {
                    later.extend(self.shown_on(old));
                }
            }
            if let Some(old) = undo.old_entry(&e.id) {
                let uses = |x: &Entry| -> Vec<(String, Option<String>)> {
                    x.term_uses()
                        .iter()
                        .map(|u| (u.slug().to_string(), u.note().map(str::to_string)))
                        .collect()
                };
                if uses(old) != uses(e) {
                    for (slug, _) in uses(old).into_iter().chain(uses(e)) {
                        later.insert(EntryId::new(Kind::Term, slug));
                    }
                }
            }
        }
        let (pages, published) = match &new_pages {
            Some((p, q)) => (p, q),
            None => (&self.pages, &self.published),
        };
        if changed
            .iter()
            .any(|id| pages.contains(id) != self.pages.contains(id))
        {
            self.az.pages_changed();
        }
        // Moved in place (a new order of 100,000 pages takes 60 ms); a failed edit moves
        // them back (see `Session::incremental`).
        let near_before: Vec<Option<Vec<EntryId>>> = moved
            .iter()
            .map(|id| self.navigation.shown_near(id))
            .collect();
        for id in &moved {
            self.navigation
                .relocate(&project.config, &project.content, pages, id);
        }
        let navigation = &self.navigation;
        for (id, before) in moved.iter().zip(near_before) {
            match (before, navigation.shown_near(id)) {
                (Some(old), Some(new)) => later.extend(old.into_iter().chain(new)),
                _ => later.extend(pages.iter().cloned()),
            }
        }

        let input = project.render_input_with(
            &self.assessments,
            &self.tera,
            pages,
            published,
            opts.today,
            opts.drafts,
            std::borrow::Cow::Borrowed(navigation),
        );
        let assessment_of = |id: &EntryId| -> Option<&Assessment> {
            let i = self.index_of(id)?;
            assessed
                .iter()
                .find(|(j, _)| *j == i)
                .map(|(_, a)| a)
                .or_else(|| self.assessments.get(i))
        };

        // Markdown first: a page whose headings changed makes its linkers re-check anchors
        // (now: a broken link is this edit's error).
        let now: BTreeSet<EntryId> = changed.union(also).cloned().collect();
        let mut rendered = Vec::new();
        let mut more = BTreeSet::new();
        for id in &now {
            let Some(e) = project.content.get(id) else {
                continue;
            };
            if !pages.contains(id) && !withdrawn.contains(id) {
                continue;
            }
            let r = render_page_markdown(&input, e, assessment_of(id))?;
            if self.links.headings.get(id) != Some(&r.heading_ids) {
                more.extend(self.linked_from.get(id).into_iter().flatten().cloned());
            }
            rendered.push((e, r));
        }
        for id in more.difference(&now) {
            let served = pages.contains(id) || withdrawn.contains(id);
            if let (Some(e), true) = (project.content.get(id), served) {
                let r = render_page_markdown(&input, e, assessment_of(id))?;
                rendered.push((e, r));
            }
        }
        let headings: HashMap<&EntryId, &[String]> = rendered
            .iter()
            .map(|(e, r)| (&e.id, r.heading_ids.as_slice()))
            .collect();
        let mut errors = Vec::new();
        for (e, r) in &rendered {
            let headings_of = |id: &EntryId| {
                headings
                    .get(id)
                    .copied()
                    .or_else(|| self.links.headings.get(id).map(Vec::as_slice))
            };
            errors.extend(check_links(&input, e, r, pages, &headings_of));
            errors.extend(check_inline_links(&input, e, pages, &headings_of));
        }
        Error::collect(errors)?;

        let new_links: Vec<(EntryId, Vec<String>, Vec<EntryId>, String)> = rendered
            .iter()
            .map(|(e, r)| {
                (
                    e.id.clone(),
                    r.heading_ids.clone(),
                    linked_entries(r),
                    // Kept between rebuilds for the search index: the distinct words only.
                    distinct_words(&r.text),
                )
            })
            .collect();
        let made_now: IdSet = new_links.iter().map(|l| l.0.clone()).collect();
        let mut files = rendered
            .into_par_iter()
            .map(|(e, r)| {
                let a = assessment_of(&e.id).ok_or_else(|| {
                    Error::Other(format!("{}: no assessment (a glossary bug)", e.id))
                })?;
                render_page(&input, e, a, r)
            })
            .collect::<Result<Vec<_>>>()?;
        // The search index, sitemap, feed and search page list every published entry with
        // its text: behind when a changed entry is or was published. The texts are kept
        // now; the files are remade by a later `catch_up`.
        let wide_behind = changed
            .iter()
            .any(|id| input.drafts || self.published.contains(id) || published.contains(id));
        let mut texts_undo: Vec<(EntryId, Option<String>)> = Vec::new();
        if wide_behind {
            for (id, _, _, text) in &new_links {
                if changed.contains(id) && (published.contains(id) || input.searched(id)) {
                    let old = self.links.texts.insert(id.clone(), text.clone());
                    texts_undo.push((id.clone(), old));
                }
            }
            for id in changed {
                if !published.contains(id) && !input.searched(id) {
                    let old = self.links.texts.remove(id);
                    texts_undo.push((id.clone(), old));
                }
            }
        }
        // The index and the site-wide files each list every entry: make them side by side.
        let texts = &self.links.texts;
        let az = &mut self.az;
        let (index, wide) = rayon::join(
            || index_changed.then(|| az.render(&input)).transpose(),
            || {
                let stop = next.stop.unwrap_or(&|| false);
                site_wide
                    .then(|| render_site_wide_from(&input, texts, stop))
                    .transpose()
                    .map(Option::flatten)
            },
        );
        // The index's links and ids come with it (see `AzIndex::render`).
        let mut index_facts = None;
        let wide_made;
        match index.and_then(|i| wide.map(|w| (i, w))) {
            Ok((index, wide)) => {
                wide_made = wide.is_some();
                if let Some((file, facts)) = index {
                    index_facts = Some((file.path.to_string_lossy().replace('\\', "/"), facts));
                    files.push(file);
                }
                files.extend(wide.into_iter().flatten());
            }
            Err(e) => {
                restore_texts(&mut self.links.texts, texts_undo);
                return Err(e);
            }
        }
        let mut removed: Vec<PathBuf> = changed
            .iter()
            .filter(|id| self.pages.contains(*id) && !pages.contains(*id))
            .filter(|id| !withdrawn.contains(*id))
            .map(page_path)
            .collect();
        let new_search_files = wide_made.then(|| search_files(&files));
        if let Some(new) = &new_search_files {
            removed.extend(self.search_files.difference(new).cloned());
        }
        // The bundles of the tables the pages now show (one small file per cited experiment
        // and node), so `reproduce` against `serve` reads what a full build would write.
        let bundles = match super::bundles::site_bundles(project, pages) {
            Ok(b) => b,
            Err(e) => {
                restore_texts(&mut self.links.texts, texts_undo);
                return Err(e);
            }
        };
        let new_bundle_files = bundle_files(&bundles);
        removed.extend(
            self.bundle_files
                .keys()
                .filter(|p| !new_bundle_files.contains_key(*p))
                .cloned(),
        );
        // Only the ones whose bytes changed are handed out (a catch-up that makes nothing
        // new hands out nothing).
        let bundles: Vec<OutputFile> = bundles
            .into_iter()
            .filter(|f| self.bundle_files.get(&f.path) != Some(&f.bytes))
            .collect();

        // The links templates made in the new files, checked against the whole site.
        let mut facts: Vec<(String, PageLinks)> = files
            .par_iter()
            .filter(|f| {
                index_facts
                    .as_ref()
                    .is_none_or(|(p, _)| f.path != Path::new(p))
            })
            .map(page_links)
            .collect();
        facts.extend(index_facts);
        let made: Vec<String> = facts.iter().map(|(p, _)| p.clone()).collect();
        let mut links_undo: Vec<(String, Option<KeptLinks>)> = Vec::new();
        for path in &removed {
            let key = path.to_string_lossy().replace('\\', "/");
            links_undo.push((key.clone(), self.site_links.take(&key)));
        }
        for (path, page) in facts {
            links_undo.push((path.clone(), self.site_links.take(&path)));
            self.site_links.insert((path, page));
        }
        let static_dir = project.layout.templates().join("static");
        if let Err(e) = self.site_links.check(&static_dir, Some(&made)) {
            for (path, old) in links_undo.into_iter().rev() {
                self.site_links.take(&path);
                if let Some(old) = old {
                    self.site_links.put_back(path, old);
                }
            }
            restore_texts(&mut self.links.texts, texts_undo);
            return Err(e);
        }

        // Everything made and checked: commit the new state.
        let reassessed: Vec<usize> = assessed.iter().map(|(i, _)| *i).collect();
        for (i, a) in assessed {
            self.assessments[i] = a;
        }
        for id in changed {
            if let Some(old) = undo.old_entry(id) {
                for r in &old.meta.related {
                    if let Some(set) = self.related_from.get_mut(r) {
                        set.remove(id);
                    }
                }
            }
            if let Some(e) = self.project.content.get(id) {
                for r in &e.meta.related {
                    self.related_from
                        .entry(r.clone())
                        .or_default()
                        .insert(id.clone());
                }
            }
        }
        for (id, headings, links, _) in new_links {
            if let Some(old) = self.links.links_to.get(&id) {
                for to in old {
                    if let Some(set) = self.linked_from.get_mut(to) {
                        set.remove(&id);
                    }
                }
            }
            for to in &links {
                self.linked_from
                    .entry(to.clone())
                    .or_default()
                    .insert(id.clone());
            }
            self.links.headings.insert(id.clone(), headings);
            self.links.links_to.insert(id, links);
        }
        if let Some(new) = new_search_files {
            self.search_files = new;
        }
        self.bundle_files = new_bundle_files;
        // Not pages: a full build hands them to the sink past the link facts too.
        files.extend(bundles);
        if let Some((pages, published)) = new_pages {
            self.pages = pages;
            self.published = published;
        }
        self.withdrawn = withdrawn;
        if index_changed {
            self.az.settle();
        }
        drop_elsewhere(links_undo);
        self.deferred
            .extend(later.into_iter().filter(|id| !made_now.contains(id)));
        for id in &made_now {
            self.deferred.remove(id);
        }
        self.deferred_site_wide = (self.deferred_site_wide && !wide_made) || wide_behind;
        self.deferred_index = (self.deferred_index || index_behind) && !index_changed;
        // The report is shared with the rebuilds handed out, not copied into each (a copy
        // held every published id: milliseconds of each edit at 100,000 entries); `serve`
        // lets go of its share before the next edit, so this updates it in place.
        let pages_written = self.site_links.len();
        if !reassessed.is_empty() {
            Arc::make_mut(&mut self.report).update(&self.assessments, &reassessed);
        }
        if self.report.pages_written != pages_written {
            Arc::make_mut(&mut self.report).pages_written = pages_written;
        }
        Ok(Rebuilt {
            report: Arc::clone(&self.report),
            full: false,
            files,
            removed,
            static_dir,
            drafts: opts.drafts,
        })
    }

    /// The pages that show something of `e`: see the module comment.
    fn shown_on(&self, e: &Entry) -> Vec<EntryId> {
        let content = &self.project.content;
        let mut ids: Vec<EntryId> = Vec::new();
        ids.extend(self.linked_from.get(&e.id).into_iter().flatten().cloned());
        if e.id.kind == Kind::Term {
            ids.extend(
                self.related_from
                    .get(&e.id.slug)
                    .into_iter()
                    .flatten()
                    .cloned(),
            );
            ids.extend(content.uses_of(&e.id.slug).map(|(x, _)| x.id.clone()));
        }
        ids.extend(
            e.term_uses()
                .iter()
                .map(|u| EntryId::new(Kind::Term, u.slug())),
        );
        // Its section's page lists it, with its summary.
        if e.id.kind != Kind::Section {
            ids.extend(e.section().map(|s| EntryId::new(Kind::Section, s)));
        }
        ids
    }
}

fn restore_texts(texts: &mut HashMap<EntryId, String>, undo: Vec<(EntryId, Option<String>)>) {
    for (id, old) in undo.into_iter().rev() {
        match old {
            Some(t) => texts.insert(id, t),
            None => texts.remove(&id),
        };
    }
}

/// Free what an edit replaced on another thread: the old links of a 100,000-row index
/// take tens of milliseconds to free, which the author would otherwise wait for.
fn drop_elsewhere<T: Send + 'static>(value: T) {
    // Should no thread start, the value is simply dropped here.
    let _ = std::thread::Builder::new().spawn(move || drop(value));
}

/// Replace one file of the live site so a reader never sees half of it; unchanged bytes
/// are not rewritten.
fn write_live(dest: &Path, bytes: &[u8]) -> Result<bool> {
    write_file_if_changed(dest, bytes, Durability::Cached)
}

/// The experiment bundles among `files`, and the node list made with them (see
/// `pipeline::bundles`).
fn bundle_files(files: &[OutputFile]) -> BTreeMap<PathBuf, Vec<u8>> {
    files
        .iter()
        .filter(|f| {
            f.path.starts_with(crate::measure::bundle::SITE_DIR)
                || f.path == Path::new(crate::trust::node_list::NODES_FILE)
        })
        .map(|f| (f.path.clone(), f.bytes.clone()))
        .collect()
}

/// The search index files among `files` (the scripts under `search/`, beside the search
/// page; see `site::search`).
fn search_files(files: &[OutputFile]) -> BTreeSet<PathBuf> {
    files
        .iter()
        .filter(|f| {
            f.path.starts_with(crate::site::search::DIR)
                && f.path.extension().is_some_and(|x| x == "js")
        })
        .map(|f| f.path.clone())
        .collect()
}
