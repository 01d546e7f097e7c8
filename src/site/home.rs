//! The home page's own text: `content/index.md`, Markdown shown on `index.html` above the
//! contents (a migrated glossary's README, a welcome). It is site text, as glossary.toml's
//! `description` and `footer` are, not an entry: it has no front matter, is not signed,
//! and calls no body function, so it can show no measured number. Links are written
//! relative to the site root (the home page's own folder) and follow the body rules: a
//! link to an entry without a page is text, and images are checked, and copied, as an
//! entry's are (beside it in `content/`, or in `content/figures/`).

use std::path::{Path, PathBuf};

use crate::error::{Error, Location};
use crate::render::figures::Figures;
use crate::render::links::LinkTarget;
use crate::render::markdown::{render, LinkPolicy};
use crate::render::template_ids::TemplateIds;
use crate::render::RenderInput;

/// The file under `content/`.
pub const HOME_FILE: &str = "index.md";

/// The home text as the home page shows it, with what is wrong in it and the images to
/// copy.
pub struct Home {
    pub html: String,
    pub errors: Vec<Error>,
    /// (the image file, its path in the site).
    pub copies: Vec<(PathBuf, String)>,
}

/// `content/index.md` rendered for the home page; None when there is none.
pub fn home(input: &RenderInput<'_>) -> Option<Home> {
    let path = input.layout.content().join(HOME_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            return Some(Home {
                html: String::new(),
                errors: vec![Error::io(&path, e)],
                copies: Vec::new(),
            })
        }
    };
    Some(render_home(input, &path, &text))
}

fn render_home(input: &RenderInput<'_>, path: &Path, text: &str) -> Home {
    let at = |line: usize| Some(Location { line, column: 1 });
    let mut errors = Vec::new();
    if text.starts_with("---\n") || text.starts_with("---\r\n") {
        errors.push(Error::content(
            path,
            at(1),
            "the home page's text has no front matter: it is Markdown shown above the \
             contents, not an entry (write an entry under content/terms/, lessons/ or guides/)"
                .to_string(),
        ));
    }
    if let Some(i) = text.find('\0') {
        errors.push(Error::content(
            path,
            at(text[..i].matches('\n').count() + 1),
            "holds a NUL character".to_string(),
        ));
        return Home {
            html: String::new(),
            errors,
            copies: Vec::new(),
        };
    }
    let reserved = TemplateIds::of_template(input.tera, "index.html");
    let policy = LinkPolicy {
        page_path: "",
        linkable: input.pages,
        reserved_ids: &reserved,
        figures: Some((
            path,
            Figures {
                layout: input.layout,
                allow: &input.config.content,
            },
        )),
    };
    let r = render(text, 1, &policy);
    for (line, problem) in &r.problems {
        errors.push(Error::content(path, at(*line), problem.clone()));
    }
    // A link to an entry nobody wrote; links to other files of the site are checked in the
    // generated page, as the footer's are.
    for (target, line) in &r.links {
        if let LinkTarget::Entry { id, .. } = target {
            if input.content.get(id).is_none() {
                errors.push(Error::content(
                    path,
                    at(*line),
                    format!("link to missing page `{id}`"),
                ));
            }
        }
    }
    Home {
        html: r.html,
        errors,
        copies: r.copies,
    }
}
