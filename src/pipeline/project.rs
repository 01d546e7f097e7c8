//! Everything a build reads, loaded and checked once: config, content, measurements,
//! signatures. After `Project::load`, references between them are known to resolve.

use std::collections::HashSet;
use std::path::Path;

use crate::config::{Config, Layout};
use chrono::NaiveDate;
use tera::Tera;

use crate::content::{
    check_references, list_content, load_content_collecting, load_listed_visiting, read_entry,
    Content, Entry, EntryId, IdSet, Kind, Known,
};
use crate::error::{Error, Location, Result};
use crate::measure::Library;
use crate::render::diagram::DiagramPresets;
use crate::render::navigation::Navigation;
use crate::render::{Assessment, RenderInput};
use crate::review::{
    load_all_signoffs, load_signoff, load_signoffs, resolve_entry, signoff_path, ReviewError,
    ReviewInput, SignOffs,
};
use crate::trust::People;

pub struct Project {
    pub layout: Layout,
    pub config: Config,
    pub content: Content,
    pub library: Library,
    pub signoffs: SignOffs,
    /// Who may sign, with which keys; every signature is checked against it.
    pub people: People,
    /// The presets the content's diagrams name, parsed and checked.
    pub diagrams: DiagramPresets,
    /// Signatures verified by earlier builds (`crate::build_cache`), where a build uses
    /// its cache: the gate skips verifying them again.
    pub verified: Option<std::sync::Arc<crate::build_cache::Store>>,
}

impl Project {
    /// Load and cross-check. Errors from every part are reported together.
    pub fn load(root: &Path) -> Result<Project> {
        let (project, errors) = Project::load_collecting(root)?;
        Error::sorted(errors)?;
        Ok(project)
    }

    /// Load and cross-check, returning the project together with every error found, so a
    /// build or check can go on to find the errors of later phases in the same run. An
    /// entry whose front matter is broken is still in the project (see
    /// `load_content_collecting`), so references to it do not add errors of their own.
    /// Only an unreadable glossary.toml stops here.
    pub fn load_collecting(root: &Path) -> Result<(Project, Vec<Error>)> {
        let layout = Layout::new(root);
        let config = Config::load(root)?;
        let mut errors =
            crate::trust::node::check_node_keys(&config, &root.join(crate::config::CONFIG_FILE));
        let (content, content_errors) = load_content_collecting(&layout.content());
        errors.extend(content_errors);
        let (library, library_errors) = Library::load_collecting(&layout.measurements());
        errors.extend(library_errors);
        let people = People::load(&layout.people()).unwrap_or_else(|e| {
            errors.extend(e.flatten());
            People::default()
        });
        let known: HashSet<_> = content.entries.iter().map(|e| &e.id).collect();
        let signoffs = load_signoffs(&layout.reviews(), &known).unwrap_or_else(|e| {
            errors.extend(e.flatten());
            SignOffs::default()
        });
        let mut project = Project {
            layout,
            config,
            content,
            library,
            signoffs,
            people,
            diagrams: DiagramPresets::default(),
            verified: None,
        };
        errors.extend(project.check_entries());
        errors.extend(project.check_footer());
        errors.extend(project.check_contributed());
        Ok((project, errors))
    }

    /// Each contributed node's profile against the people registry (`trust::contributed`):
    /// its key must be its contributor's.
    fn check_contributed(&self) -> Vec<Error> {
        let path = self.layout.root.join(crate::config::CONFIG_FILE);
        self.config
            .nodes
            .iter()
            .filter_map(|(name, node)| {
                crate::trust::contributed::check_profile(name, node, &self.people).err()
            })
            .map(|why| Error::content(&path, None, why))
            .collect()
    }

    /// glossary.toml's `footer` may link to entries: each must exist. (A link to an entry
    /// that exists but has no page in a build becomes plain text there, as everywhere.)
    /// Checked here once, not on every page the footer is shown on.
    fn check_footer(&self) -> Vec<Error> {
        use crate::render::inline::{render_inline, InlineContext};
        use crate::render::links::LinkTarget;
        let Some(footer) = &self.config.footer else {
            return Vec::new();
        };
        let none = IdSet::default();
        let cx = InlineContext {
            written_at: "",
            root: "",
            linkable: &none,
        };
        let footer = render_inline(footer, &cx);
        let refused = footer
            .refused
            .into_iter()
            .map(|why| format!("`footer`: {why}"));
        footer
            .links
            .into_iter()
            .filter_map(|target| match target {
                LinkTarget::Entry { id, .. } if self.content.get(&id).is_none() => Some(format!(
                    "`footer` links to `{id}/`, which is no entry (no content/{}/{}.md)",
                    id.kind.dir(),
                    id.slug
                )),
                _ => None,
            })
            .chain(refused)
            .map(|message| Error::Config {
                path: self.layout.root.join(crate::config::CONFIG_FILE),
                message,
            })
            .collect()
    }

    /// Per entry, what needs the rest of the project: citations, section, diagram (whose
    /// preset is kept for rendering).
    fn check_entries(&mut self) -> Vec<Error> {
        use rayon::prelude::*;
        // Citations and sections are checked in parallel: one thread over 100,000 entries
        // left the other core idle for most of a second. Diagrams load their presets (once
        // each), so they are checked after, in order.
        let (config, library) = (&self.config, &self.library);
        let mut per_entry: Vec<Vec<Error>> = self
            .content
            .entries
            .par_iter()
            .map(|entry| {
                let mut errors = check_citations(entry, config, library);
                errors.extend(crate::content::check_section(entry, &config.sections));
                errors
            })
            .collect();
        for (entry, errors) in self.content.entries.iter().zip(&mut per_entry) {
            errors.extend(check_diagram(
                entry,
                &self.config,
                &self.layout,
                &mut self.diagrams,
            ));
        }
        let mut errors: Vec<Error> = per_entry.into_iter().flatten().collect();
        errors.extend(crate::content::check_redirects(&self.content.entries));
        errors
    }

    /// Load as [`Project::load_collecting`] does, handing each entry to `visit` as soon as
    /// it is read, with the project as loaded so far: everything but the content and the
    /// diagram presets (an entry with a diagram is best left for after the load), and
    /// what `prepare` made of that project before the content was read (a build verifies
    /// every signature there, in batches, then lets the signatures' text go), which is
    /// handed back. A build assesses and thins each entry there, so it never holds every
    /// entry's text.
    ///
    /// Whether there were errors is all this tells: their messages may lack the lines a
    /// thinned entry's text would give. On any error, load with `load_collecting` to
    /// report them.
    #[allow(clippy::type_complexity)]
    pub(crate) fn load_visiting<P: Send + Sync, T: Send>(
        root: &Path,
        prepare: impl FnOnce(&mut Project) -> P + Send,
        visit: &(dyn Fn(&Project, &P, &mut Entry, usize) -> T + Sync),
    ) -> Result<(Project, P, Vec<Option<T>>, bool)> {
        let layout = Layout::new(root);
        let config = Config::load(root)?;
        let mut failed =
            !crate::trust::node::check_node_keys(&config, &root.join(crate::config::CONFIG_FILE))
                .is_empty();
        let (library, library_errors) = Library::load_collecting(&layout.measurements());
        failed |= !library_errors.is_empty();
        let people = People::load(&layout.people()).unwrap_or_else(|_| {
            failed = true;
            People::default()
        });
        let signoffs = load_all_signoffs(&layout.reviews()).unwrap_or_else(|_| {
            failed = true;
            SignOffs::default()
        });
        let mut project = Project {
            layout,
            config,
            content: Content::default(),
            library,
            signoffs,
            people,
            diagrams: DiagramPresets::default(),
            verified: None,
        };
        failed |= !project.check_contributed().is_empty();
        // The content folder is walked (one thread) while `prepare` runs.
        let content_dir = project.layout.content();
        let (prepared, listing) =
            rayon::join(|| prepare(&mut project), || list_content(&content_dir));
        let (content, visited, errors) =
            load_listed_visiting(listing, &|e, of| visit(&project, &prepared, e, of));
        failed |= !errors.is_empty();
        // Signatures for an entry that does not exist.
        failed |= project.signoffs.keys().any(|id| content.get(id).is_none());
        project.content = content;
        failed |= !project.check_entries().is_empty();
        failed |= !project.check_footer().is_empty();
        Ok((project, prepared, visited, failed))
    }

    /// What the review workflow (sign, diff, status) reads of this project.
    pub fn review_input(&self) -> ReviewInput<'_> {
        ReviewInput {
            content: &self.content,
            library: &self.library,
            signoffs: &self.signoffs,
            people: &self.people,
            reviews: self.layout.reviews(),
        }
    }

    /// What the renderer reads of this project, with the assessments and the gate's choice
    /// of pages. The renderer never sees the project itself.
    pub fn render_input<'a>(
        &'a self,
        assessments: &'a [Assessment],
        tera: &'a Tera,
        pages: &'a IdSet,
        published: &'a IdSet,
        today: NaiveDate,
        drafts: bool,
    ) -> RenderInput<'a> {
        let navigation = Navigation::new(&self.config, &self.content, pages);
        self.render_input_with(
            assessments,
            tera,
            pages,
            published,
            today,
            drafts,
            std::borrow::Cow::Owned(navigation),
        )
    }

    /// [`Project::render_input`] with a reading order the caller already has.
    #[allow(clippy::too_many_arguments)]
    pub fn render_input_with<'a>(
        &'a self,
        assessments: &'a [Assessment],
        tera: &'a Tera,
        pages: &'a IdSet,
        published: &'a IdSet,
        today: NaiveDate,
        drafts: bool,
        navigation: std::borrow::Cow<'a, Navigation>,
    ) -> RenderInput<'a> {
        RenderInput {
            layout: &self.layout,
            config: &self.config,
            content: &self.content,
            signoffs: &self.signoffs,
            people: &self.people,
            assessments,
            tera,
            template_ids: crate::render::template_ids::TemplateIds::of(tera),
            pages,
            published,
            today,
            navigation,
            drafts,
            restore: None,
            library: &self.library,
            node_facts: std::sync::OnceLock::new(),
        }
    }
}

impl Project {
    /// Load what signing or diffing `queries` needs, and only that: config, people,
    /// measurements, the named entries and their signatures. Signing one entry of a
    /// 10,000-entry site reads a handful of files, not the site. A query whose file is not
    /// at `content/<kind>/<slug>.md` (a `slug:` in front matter) falls back to a full load.
    /// Returns the project and the entries the queries name, in order.
    pub fn load_entries(root: &Path, queries: &[String]) -> Result<(Project, Vec<EntryId>)> {
        let layout = Layout::new(root);
        let mut found: Vec<(Kind, std::path::PathBuf)> = Vec::new();
        for q in queries {
            let q = q.trim();
            let candidates: Vec<(Kind, &str)> = match EntryId::parse(q) {
                Some(id) => vec![(id.kind, q.rsplit('/').next().unwrap_or(q))],
                None => Kind::ALL.into_iter().map(|k| (k, q)).collect(),
            };
            let hits: Vec<(Kind, std::path::PathBuf)> = candidates
                .into_iter()
                .filter(|(_, slug)| crate::content::is_valid_slug(slug))
                .map(|(k, slug)| (k, layout.content().join(k.dir()).join(format!("{slug}.md"))))
                .filter(|(_, p)| p.is_file())
                .collect();
            match hits.len() {
                1 => found.extend(hits),
                0 => return Project::load_all_for(root, queries),
                _ => {
                    return Err(ReviewError::AmbiguousEntry {
                        query: q.to_string(),
                        candidates: hits
                            .iter()
                            .map(|(k, p)| {
                                format!(
                                    "{}/{}",
                                    k.dir(),
                                    p.file_stem().and_then(|s| s.to_str()).unwrap_or_default()
                                )
                            })
                            .collect(),
                    }
                    .into())
                }
            }
        }
        let config = Config::load(root)?;
        let mut errors = Vec::new();
        let mut entries = Vec::new();
        for (kind, path) in found {
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default()
                .to_string();
            match read_entry(kind, path) {
                // A `slug:` that differs from the file name: the full load sorts it out.
                Ok(e) if e.id.slug != stem => return Project::load_all_for(root, queries),
                Ok(e) => entries.push(e),
                Err(e) => errors.push(e),
            }
        }
        let ids: Vec<EntryId> = entries.iter().map(|e| e.id.clone()).collect();
        // The experiments these entries cite, and only those.
        let cited: std::collections::BTreeSet<String> =
            entries.iter().flat_map(cited_experiments).collect();
        let (library, library_errors) =
            Library::load_only(&layout.measurements(), cited.iter().map(String::as_str));
        errors.extend(library_errors);
        let people = People::load(&layout.people()).unwrap_or_else(|e| {
            errors.extend(e.flatten());
            People::default()
        });
        let known: HashSet<&EntryId> = ids.iter().collect();
        let mut signoffs = SignOffs::new();
        for id in &ids {
            let path = signoff_path(&layout.reviews(), id);
            if path.is_file() {
                match load_signoff(&layout.reviews(), &path, &known) {
                    Ok((id, s)) => {
                        signoffs.insert(id, s);
                    }
                    Err(e) => errors.push(e),
                }
            }
        }
        let mut diagrams = DiagramPresets::default();
        for entry in &entries {
            errors.extend(check_citations(entry, &config, &library));
            errors.extend(check_diagram(entry, &config, &layout, &mut diagrams));
        }
        errors.sort_by_cached_key(|e| e.to_string());
        Error::collect(errors)?;
        let mut unique = Vec::new();
        for e in entries {
            if !unique.iter().any(|u: &Entry| u.id == e.id) {
                unique.push(e);
            }
        }
        Ok((
            Project {
                layout,
                config,
                content: Content::from_entries(unique),
                library,
                signoffs,
                people,
                diagrams,
                verified: None,
            },
            ids,
        ))
    }

    fn load_all_for(root: &Path, queries: &[String]) -> Result<(Project, Vec<EntryId>)> {
        let project = Project::load(root)?;
        let ids = queries
            .iter()
            .map(|q| resolve_entry(&project.content, q))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        Ok((project, ids))
    }
}

/// Every experiment an entry names: its tables, claims, diagram and `experiment=` in
/// body calls (whose records `value()` reads must be among them to resolve).
fn cited_experiments(entry: &Entry) -> Vec<String> {
    let mut out: Vec<String> = crate::review::cited_records(entry)
        .into_iter()
        .map(|(e, _)| e)
        .collect();
    out.extend(
        entry
            .meta
            .claims
            .iter()
            .filter_map(|c| c.experiment.clone()),
    );
    if let Some(d) = &entry.meta.diagram {
        out.extend(d.experiment.clone());
    }
    out
}

/// Citations must name an experiment and node that exist and columns that exist. (Whether
/// the record is current is not an error: it refuses the entry, see `assess`.)
/// An entry's references to experiments, nodes and columns, checked by content's
/// validation against what this project defines.
pub(crate) fn check_citations(entry: &Entry, config: &Config, library: &Library) -> Vec<Error> {
    check_references(
        entry,
        &Known {
            // A broken experiment is known: its load reported what is wrong with it.
            experiment: &|e| library.experiments.contains_key(e) || library.broken.contains(e),
            node: &|n| config.nodes.contains_key(n),
            // Any quantity the experiment records (built in, a param, a metric, an ncu
            // metric) or its record on that node has.
            column: &|e, n, c| {
                library
                    .experiments
                    .get(e)
                    .is_none_or(|x| x.knows(c) || library.record(e, n).is_some_and(|r| r.knows(c)))
            },
        },
    )
}

/// A diagram's kind and preset must exist; the parsed preset is kept for rendering.
fn check_diagram(
    entry: &Entry,
    config: &Config,
    layout: &Layout,
    diagrams: &mut DiagramPresets,
) -> Option<Error> {
    let d = entry.meta.diagram.as_ref()?;
    match crate::render::diagram::check(d, &layout.templates(), config) {
        Ok(preset) => {
            diagrams.insert(d, preset);
            None
        }
        Err(why) => {
            let line = crate::content::split_front_matter(&entry.path, &entry.raw)
                .ok()
                .and_then(|s| crate::content::line_of_reference(&s, "diagram", why.about(d)));
            Some(Error::content(
                &entry.path,
                line.map(|line| Location { line, column: 1 }),
                why.to_string(),
            ))
        }
    }
}
