//! Everything a build reads, loaded and checked once: config, content, measurements,
//! signatures. After `Project::load`, references between them are known to resolve.

use std::collections::HashSet;
use std::path::Path;

use crate::config::{Config, Layout};
use chrono::NaiveDate;
use tera::Tera;

use crate::content::{check_references, load_content_collecting, Content, Entry, EntryId, Known};
use crate::error::{Error, Location, Result};
use crate::measure::Library;
use crate::render::diagram::DiagramPresets;
use crate::render::navigation::Navigation;
use crate::render::{Assessment, RenderInput};
use crate::review::{load_signoffs, ReviewInput, SignOffs};

pub struct Project {
    pub layout: Layout,
    pub config: Config,
    pub content: Content,
    pub library: Library,
    pub signoffs: SignOffs,
    /// The presets the content's diagrams name, parsed and checked.
    pub diagrams: DiagramPresets,
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
        let mut errors = Vec::new();
        let (content, content_errors) = load_content_collecting(&layout.content());
        errors.extend(content_errors);
        let library = Library::load(&layout.measurements()).unwrap_or_else(|e| {
            errors.extend(e.flatten());
            Library::default()
        });
        let known: HashSet<_> = content.entries.iter().map(|e| &e.id).collect();
        let signoffs = load_signoffs(&layout.reviews(), &known).unwrap_or_else(|e| {
            errors.extend(e.flatten());
            SignOffs::default()
        });
        let mut diagrams = DiagramPresets::default();
        for entry in &content.entries {
            errors.extend(check_citations(entry, &config, &library));
            errors.extend(crate::content::check_section(entry, &config.sections));
            errors.extend(check_diagram(entry, &config, &layout, &mut diagrams));
        }
        Ok((
            Project {
                layout,
                config,
                content,
                library,
                signoffs,
                diagrams,
            },
            errors,
        ))
    }

    /// What the review workflow (sign, diff, status) reads of this project.
    pub fn review_input(&self) -> ReviewInput<'_> {
        ReviewInput {
            content: &self.content,
            library: &self.library,
            signoffs: &self.signoffs,
            reviews: self.layout.reviews(),
        }
    }

    /// What the renderer reads of this project, with the assessments and the gate's choice
    /// of pages. The renderer never sees the project itself.
    pub fn render_input<'a>(
        &'a self,
        assessments: &'a [Assessment],
        tera: &'a Tera,
        pages: &'a HashSet<EntryId>,
        published: &'a HashSet<EntryId>,
        today: NaiveDate,
    ) -> RenderInput<'a> {
        RenderInput {
            layout: &self.layout,
            config: &self.config,
            content: &self.content,
            signoffs: &self.signoffs,
            assessments,
            tera,
            pages,
            published,
            today,
            navigation: Navigation::new(&self.config, &self.content, pages),
        }
    }
}

/// An entry's references to experiments, nodes and columns, checked by content's
/// validation against what this project defines.
pub(crate) fn check_citations(entry: &Entry, config: &Config, library: &Library) -> Vec<Error> {
    check_references(
        entry,
        &Known {
            experiment: &|e| library.experiments.contains_key(e),
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
