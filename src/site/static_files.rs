//! `static/` at the project root: files copied to the site root (CNAME, robots.txt,
//! favicon.ico, .well-known/...). The site's own assets stay in `templates/static/`,
//! served under `static/`.
//!
//! Nothing here reaches the site unreviewed. An inert file (`inert`: an image, a font, a
//! PDF, plain text, by name and by content) is copied as it is. Any other file (HTML, SVG,
//! JavaScript, CSS, ...) is published only when a registered author and a different
//! reviewer signed its bytes (`review::static_file`), and is otherwise left out with the
//! gate's reasons in the build's report. A symlink is an error naming it (copied, it
//! could publish `.git/config` or a key), and so is a name the build itself writes.

use walkdir::WalkDir;

use crate::config::Layout;
use crate::error::{Error, Result};
use crate::review::{static_name, static_verdict, Refusal};
use crate::trust::People;

use crate::render::{csp, OutputFile};

/// Names the build itself writes at the site root (one list, in `config`, which the
/// redirect check reads too); a static file may not replace them nor be written among them.
pub use crate::config::SITE_ROOT_NAMES as GENERATED;

/// The headers file the build writes for hosts that read one (`render::csp::headers_file`).
pub use crate::config::HEADERS_FILE;

/// What `static/` gives the site.
#[derive(Default)]
pub struct StaticFiles {
    /// The files published, at their place under the site root.
    pub files: Vec<OutputFile>,
    /// Active files left out, as `static/<path>`, with the gate's reasons.
    pub refused: Vec<(String, Vec<Refusal>)>,
    /// Why each of them is not inert (`inert::inert`), by `static/<path>`.
    pub not_inert: std::collections::BTreeMap<String, String>,
    /// The policy of the signed pages (`render::csp::signed_page_policy`): what the
    /// `_headers` file sends.
    pub signed_policy: String,
}

/// Every file under `static/`, gated: see the module comment. Errors (symlinks, generated
/// names, unreadable files) are all reported together. A signed HTML page gets the signed
/// pages' Content-Security-Policy put in its head (`render::csp::with_meta_policy`): a
/// page written by hand carries none of its own, and without one it would run whatever
/// same-origin file it names as a script, signed or not.
pub fn static_files(
    layout: &Layout,
    people: &People,
    base_url: &str,
    remote_images: bool,
) -> Result<StaticFiles> {
    let (found, mut errors) = walk(layout);
    let reviews = layout.reviews();
    let mut out = StaticFiles::default();
    let mut signed: Vec<String> = Vec::new();
    let mut pages: Vec<OutputFile> = Vec::new();
    for (rel, bytes) in found {
        let file = |bytes| OutputFile {
            path: rel.split('/').collect(),
            bytes,
        };
        let why = match super::inert::inert(&rel, &bytes) {
            Ok(()) => {
                out.files.push(file(bytes));
                continue;
            }
            Err(why) => why,
        };
        match static_verdict(&reviews, &rel, &bytes, people) {
            Ok(v) if v.is_published() => {
                signed.push(rel.clone());
                if is_html_page(&rel) {
                    pages.push(file(bytes));
                } else {
                    out.files.push(file(bytes));
                }
            }
            Ok(v) => {
                out.not_inert.insert(static_name(&rel), why);
                out.refused.push((static_name(&rel), v.refusals));
            }
            Err(e) => errors.push(e),
        }
    }
    Error::collect(errors)?;
    let base = csp::base_path(base_url);
    out.signed_policy = csp::signed_page_policy(remote_images, &base, &signed);
    for mut page in pages {
        page.bytes = csp::with_meta_policy(&page.bytes, &out.signed_policy);
        out.files.push(page);
    }
    out.files.push(OutputFile {
        path: HEADERS_FILE.into(),
        bytes: csp::headers_file(&out.signed_policy).into_bytes(),
    });
    Ok(out)
}

/// Whether a browser opens the static file `rel` as an HTML page (by its name: what a
/// static host's content type follows).
fn is_html_page(rel: &str) -> bool {
    let lower = rel.to_ascii_lowercase();
    lower.ends_with(".html") || lower.ends_with(".htm")
}

/// The files of `static/` that must be signed to be published (not inert), as (path under
/// `static/`, bytes): what `review status` lists and `review sign` accepts. Files the build
/// refuses outright (symlinks, generated names) are left to its errors.
pub fn active_static_files(layout: &Layout) -> Vec<(String, Vec<u8>)> {
    walk(layout)
        .0
        .into_iter()
        .filter(|(rel, bytes)| super::inert::inert(rel, bytes).is_err())
        .collect()
}

/// Every regular file under `static/` as (path under `static/` with `/`, bytes), and an
/// error for each symlink, generated name, or file that cannot be read.
fn walk(layout: &Layout) -> (Vec<(String, Vec<u8>)>, Vec<Error>) {
    let dir = layout.static_files();
    let mut found = Vec::new();
    let mut errors = Vec::new();
    if !dir.is_dir() {
        return (found, errors);
    }
    // Links are not followed: each is an error below, naming it.
    for item in WalkDir::new(&dir).min_depth(1).sort_by_file_name() {
        let item = match item {
            Ok(item) => item,
            Err(e) => {
                let path = e.path().unwrap_or(&dir).to_path_buf();
                errors.push(Error::content(path, None, format!("cannot read: {e}")));
                continue;
            }
        };
        let rel_path = item.path().strip_prefix(&dir).unwrap_or(item.path());
        let rel = rel_path.to_string_lossy().replace('\\', "/");
        let first = rel.split('/').next().unwrap_or_default();
        if GENERATED.contains(&first) {
            // Once, at the name itself, not for every file below it.
            if item.depth() == 1 {
                errors.push(Error::content(
                    item.path(),
                    None,
                    format!("static/{first} is a name the build writes at the site root; a static file may not replace it or be written among it"),
                ));
            }
            continue;
        }
        let kind = item.file_type();
        if kind.is_symlink() {
            let to = std::fs::read_link(item.path())
                .map(|t| format!(" (to {})", t.display()))
                .unwrap_or_default();
            errors.push(Error::content(
                item.path(),
                None,
                format!("is a symlink{to}; static files are published as they are, so a link could publish any file of the machine: copy the file in place of the link"),
            ));
            continue;
        }
        if kind.is_dir() {
            continue;
        }
        if !kind.is_file() {
            errors.push(Error::content(item.path(), None, "is not a regular file"));
            continue;
        }
        match std::fs::read(item.path()) {
            Ok(b) => found.push((rel, b)),
            Err(e) => errors.push(Error::io(item.path(), e)),
        }
    }
    (found, errors)
}

/// Why the static file `rel` needs signatures (it is not inert), or None when it is inert:
/// for `review status` and `review sign`.
pub fn needs_signing(rel: &str, bytes: &[u8]) -> Option<String> {
    super::inert::inert(rel, bytes).err()
}
