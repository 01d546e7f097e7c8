//! The Tera templates under `templates/`, compiled once per build.

use std::path::Path;

use tera::Tera;

use crate::content::is_side_file;
use crate::error::{Error, Result};

/// The template of one letter group; it sees only `g` (`letter`, `id`, `rows`).
pub const LETTER_TEMPLATE: &str = "index_letter.html";

/// Every `*.html` under `dir`, compiled. Side files that editors and operating systems
/// leave there (`._base.html`, macOS metadata that is not UTF-8; anything in a hidden
/// folder; see [`is_side_file`]) are skipped by the same rule as in `content/`: Tera's own
/// glob loads them, and one stopped every build. Every template that does not parse is
/// reported, not only the first.
pub fn load_templates(dir: &Path) -> Result<Tera> {
    let mut tera = Tera::default();
    let mut errors = Vec::new();
    let files = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .sort_by(crate::content::by_file_name)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !is_side_file(e.file_name()));
    let is_template = |path: &Path| {
        path.extension().is_some_and(|x| x == "html")
            && path.file_name().is_some_and(|n| !is_side_file(n))
    };
    for file in files {
        let file = match file {
            Ok(f) => f,
            // A link to nowhere (an Emacs lock, `.#base.html`) is met here, before
            // `filter_entry` sees it; one named as a template is a mistake to report.
            Err(e) => {
                if let Some(path) = e.path().filter(|p| is_template(p)) {
                    errors.push(Error::Template {
                        path: path.to_path_buf(),
                        message: unreadable_entry(path, &e),
                    });
                }
                continue;
            }
        };
        let path = file.path();
        if !file.file_type().is_file() || !is_template(path) {
            continue;
        }
        // Named as Tera's glob names them: the path below `dir`, with `/`.
        let Ok(rel) = path.strip_prefix(dir) else {
            continue;
        };
        let name = rel.to_string_lossy().replace('\\', "/");
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                errors.push(Error::io(path, e));
                continue;
            }
        };
        // Added one at a time, each error is its file's own. A template that parsed is
        // kept even when its parent is not loaded yet: inheritance is checked once all are.
        if let Err(e) = tera.add_raw_template(&name, &text) {
            if !tera.get_template_names().any(|n| n == name) {
                errors.push(Error::Template {
                    path: path.to_path_buf(),
                    message: error_chain(&e),
                });
            }
        }
    }
    if errors.is_empty() {
        // Parents and macro files, now that every template is in.
        if let Err(e) = tera.add_raw_templates(Vec::<(&str, &str)>::new()) {
            errors.push(Error::Template {
                path: dir.to_path_buf(),
                message: error_chain(&e),
            });
        }
    }
    match errors.len() {
        0 => {}
        1 => return Err(errors.remove(0)),
        _ => return Err(Error::Many(errors)),
    }
    for required in [
        "term.html",
        "lesson.html",
        "guide.html",
        "index.html",
        LETTER_TEMPLATE,
    ] {
        if !tera.get_template_names().any(|n| n == required) {
            let mut message = String::from("template is missing");
            if required == LETTER_TEMPLATE {
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

/// Why the walk could not read `path`, said for a person: a link to nowhere names where
/// it points.
fn unreadable_entry(path: &Path, e: &walkdir::Error) -> String {
    match std::fs::read_link(path) {
        Ok(target) if !path.exists() => format!(
            "a symbolic link to {}, which does not exist: remove the link or restore its \
             target",
            target.display()
        ),
        _ => match e.io_error() {
            Some(io) => format!("cannot be read: {io}"),
            None => e.to_string(),
        },
    }
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
            message: with_upgrade_hint(error_chain(&e)),
        })?;
    Ok(out)
}

/// Template sets copied from an older glossary loop over what is now given as HTML: say
/// what to write instead.
fn with_upgrade_hint(mut message: String) -> String {
    const MOVED: [(&str, &str); 2] = [
        (
            "`g.items` not found",
            "the sidebar's pages are now one list `g.list` (HTML): in entry_macros.html \
             and index.html write `<ol>{{ g.list | safe }}</ol>` instead of looping over \
             `g.items`, as glossary's own templates do",
        ),
        (
            "`t.cells` not found",
            "a measured table's rows are now `t.body` (HTML): in entry_macros.html write \
             `{{ t.body | safe }}` inside `<tbody>` instead of looping over `t.cells`, as \
             glossary's own templates do (the cells are still in `t.rows`)",
        ),
    ];
    if let Some((_, hint)) = MOVED.iter().find(|(found, _)| message.contains(found)) {
        message.push_str("; ");
        message.push_str(hint);
    }
    message
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_older_template_looping_over_the_sidebar_is_told_what_to_write() {
        let mut tera = Tera::default();
        tera.add_raw_template(
            "old.html",
            "{% for g in groups %}<ol>{% for i in g.items %}{{ i.label }}{% endfor %}</ol>{% endfor %}",
        )
        .unwrap();
        let mut ctx = tera::Context::new();
        ctx.insert("groups", &[serde_json::json!({ "list": "<li>x</li>" })]);
        let err = render_bytes(&tera, "old.html", &ctx, Path::new("templates"), 0).unwrap_err();
        let message = err.to_string();
        assert!(message.contains("`g.items` not found"), "{message}");
        assert!(message.contains("{{ g.list | safe }}"), "{message}");
    }
}
