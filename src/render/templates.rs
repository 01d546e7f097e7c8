//! The Tera templates under `templates/`, compiled once per build.

use std::path::Path;

use tera::Tera;

use crate::error::{Error, Result};

pub fn load_templates(dir: &Path) -> Result<Tera> {
    let glob = format!("{}/**/*.html", dir.display());
    let mut tera = Tera::new(&glob).map_err(|e| Error::Template {
        path: dir.to_path_buf(),
        message: error_chain(&e),
    })?;
    for required in [
        "term.html",
        "lesson.html",
        "guide.html",
        "index.html",
        super::index_page::LETTER_TEMPLATE,
    ] {
        if !tera.get_template_names().any(|n| n == required) {
            let mut message = String::from("template is missing");
            if required == super::index_page::LETTER_TEMPLATE {
                // Template sets made before the A-Z index was rendered a letter at a time.
                message.push_str(
                    ": the home page's A-Z index renders each letter group through it; copy \
                     templates/index_letter.html from glossary's own templates, and in \
                     index.html print each group with `{% for g in letters %}{{ g.html | safe \
                     }}{% endfor %}`",
                );
            }
            return Err(Error::Template {
                path: dir.join(required),
                message,
            });
        }
    }
    tera.autoescape_on(vec![".html"]);
    // Tera's default escaper also turns `/` into `&#x2F;`, which is valid but makes every
    // URL in the output unreadable; `&<>"'` are all that HTML text and quoted attributes
    // need.
    tera.set_escape_fn(super::escape::escape);
    Ok(tera)
}

pub fn render(tera: &Tera, name: &str, ctx: &tera::Context, dir: &Path) -> Result<String> {
    tera.render(name, ctx).map_err(|e| Error::Template {
        path: dir.join(name),
        message: error_chain(&e),
    })
}

/// [`render`] into bytes for a file, in a buffer of `capacity` to start with: Tera's own
/// `render` starts at 2 KB, copies the page as it grows, then checks it is UTF-8 again.
pub fn render_bytes(
    tera: &Tera,
    name: &str,
    ctx: &tera::Context,
    dir: &Path,
    capacity: usize,
) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(capacity);
    tera.render_to(name, ctx, &mut out)
        .map_err(|e| Error::Template {
            path: dir.join(name),
            message: error_chain(&e),
        })?;
    Ok(out)
}

/// Tera nests the useful message in `source()`; show the whole chain on one line.
pub fn error_chain(e: &tera::Error) -> String {
    let mut msg = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        src = s.source();
    }
    msg
}
