//! The Content-Security-Policy every page carries (a `<meta http-equiv>` in the templates'
//! head, and a header from `serve`): everything else only from the site itself; no inline
//! script or style, no event handler attribute, no plugin, no `<base>` that would re-root
//! the page's links, forms only to the site. An injected `<script>` or `onerror=` (were any
//! to get past the link and HTML checks) does not run. The templates and static scripts
//! hold nothing inline for this reason, and `serve`'s live reload is a script file too.
//!
//! Scripts and stylesheets by path, not `'self'` (issue 53): a host that sends no
//! `X-Content-Type-Options: nosniff` (Python's `http.server`, many static hosts) lets a
//! browser run any same-origin file as a script whatever its type, so `'self'` would let a
//! page run an unsigned `notes.txt` or `CNAME`. Only the folders the build itself writes
//! (`static/`: `templates/static/` copied; `search/`: the index shards `search.js` loads),
//! `serve`'s live-reload script at the root and, on a signed `static/` page, the signed
//! `static/` files ([`signed_page_policy`]) may be loaded as script or style. No file of
//! `static/` can be written into those folders (`site::static_files::GENERATED`), so
//! everything these paths reach was made by the build or signed.
//!
//! Paths are host-less (`*:*/static/`: any host and port, this path; Chromium matches a
//! source without a port only on the scheme's default port), so the policy holds whatever
//! name the site is reached by (its published address, `serve`'s, a local copy's), under
//! the path of glossary.toml's `base_url`. A cross-origin file at such a path is loaded
//! only if a page names it, and the build's pages name none; a signed page's choices are
//! signed.

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// The build's own folders that scripts and stylesheets load from, under the site's path.
const BUILT: &[&str] = &["static/", "search/"];

/// `serve`'s live-reload script (`serve::livereload::SCRIPT_ENDPOINT`), always at the
/// server's root. On a published site nothing can be there: `static/__livereload.js` is
/// not inert, so it is published only when signed.
const LIVE_RELOAD: &str = "/__livereload.js";

/// The scheme of a site opened from disk.
const FROM_DISK: &str = "file:";

/// What stays as it is in a path of a source expression: CSP needs `;`, `,` and spaces
/// (and anything not a plain URL character) percent-encoded.
const PATH: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'/')
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// The path part of `base_url` (`/` for `https://g.test`, `/glossary/` for
/// `https://x.github.io/glossary`), always beginning and ending with `/`.
pub fn base_path(base_url: &str) -> String {
    let after_scheme = base_url
        .split_once("://")
        .map_or(base_url, |(_, rest)| rest);
    let path = after_scheme
        .find('/')
        .map_or("", |i| &after_scheme[i..])
        .split(['?', '#'])
        .next()
        .unwrap_or_default();
    let trimmed = path.trim_matches('/');
    if trimmed.is_empty() {
        "/".into()
    } else {
        format!("/{trimmed}/")
    }
}

/// A host-less source expression for `path` (absolute, `/static/`).
fn source(path: &str) -> String {
    format!("*:*{}", utf8_percent_encode(path, PATH))
}

/// The folders a site under `base` is reached at: `base`, and the root too when `base` is
/// a sub-path (a copy of the site looked at locally, at the root of `http.server` or
/// `serve`, is the same origin's files all the same).
fn bases(base: &str) -> Vec<&str> {
    if base == "/" {
        vec!["/"]
    } else {
        vec![base, "/"]
    }
}

/// The sources scripts and styles of the build's own pages may come from.
fn built_sources(base: &str) -> Vec<String> {
    let mut out: Vec<String> = bases(base)
        .into_iter()
        .flat_map(|b| BUILT.iter().map(move |d| source(&format!("{b}{d}"))))
        .collect();
    out.push(source(LIVE_RELOAD));
    // A site opened from disk (`file://`, which the relative links allow): no host to
    // match a path under, so the scheme. A served page never loads a `file:` URL, so this
    // opens nothing on a published site.
    out.push(FROM_DISK.into());
    out
}

fn assemble(remote_images: bool, scripts: &str, styles: &str) -> String {
    let images = if remote_images {
        "'self' https:"
    } else {
        "'self'"
    };
    format!(
        "default-src 'self'; script-src {scripts}; style-src {styles}; img-src {images}; \
         object-src 'none'; base-uri 'none'; form-action 'self'"
    )
}

/// The policy `serve` sends as a header with every response (its error pages have no
/// meta); `remote_images` (glossary.toml's `allow_remote_images`) lets images come from
/// any https address too. Scripts and styles from the site (`'self'`): both policies are
/// enforced, so each page's meta ([`policy_at`], [`signed_page_policy`]) narrows them to
/// the build's and signed files, and the header must not refuse what the meta allows.
pub fn policy(remote_images: bool) -> String {
    assemble(remote_images, "'self'", "'self'")
}

/// The policy of the build's own pages for a site under `base` ([`base_path`]).
pub fn policy_at(remote_images: bool, base: &str) -> String {
    let built = built_sources(base).join(" ");
    assemble(remote_images, &built, &built)
}

/// The policy put into a signed `static/` page (`site::static_files`): the build's own
/// sources, each signed `static/` file published (`signed`, paths under the site root),
/// and inline script and style, which are part of the bytes both people signed. Nothing
/// else: an unsigned file, or a signed one edited since (the gate then leaves it out),
/// does not run on the page; nor does `eval` of one fetched (no `'unsafe-eval'`).
pub fn signed_page_policy(remote_images: bool, base: &str, signed: &[String]) -> String {
    let mut sources = vec!["'unsafe-inline'".to_string()];
    sources.extend(built_sources(base));
    for b in bases(base) {
        sources.extend(signed.iter().map(|p| source(&format!("{b}{p}"))));
    }
    let sources = sources.join(" ");
    assemble(remote_images, &sources, &sources)
}

/// `html` (a signed page) with `policy` as a `<meta http-equiv>` placed first in its head:
/// right after its doctype, if it begins with one (else at its very start), so that it
/// comes before any script of the page (a policy in a meta covers only what follows it).
/// Before `<html>` and `<head>`, the parser opens the head itself and takes the meta into
/// it; the page's own tags then add to that head.
pub fn with_meta_policy(html: &[u8], policy: &str) -> Vec<u8> {
    let meta = format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n",
        super::escape::escape(policy)
    );
    let start = html.strip_prefix(b"\xEF\xBB\xBF").map_or(0, |_| 3);
    let rest = &html[start..];
    let lead = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
    let doctype_end = rest[lead..]
        .get(..9)
        .filter(|p| p.eq_ignore_ascii_case(b"<!doctype"))
        .and_then(|_| rest[lead..].iter().position(|&b| b == b'>'))
        .map(|i| start + lead + i + 1);
    let at = doctype_end.unwrap_or(start);
    let mut out = Vec::with_capacity(html.len() + meta.len() + 1);
    out.extend_from_slice(&html[..at]);
    if doctype_end.is_some() {
        out.push(b'\n');
    }
    out.extend_from_slice(meta.as_bytes());
    out.extend_from_slice(&html[at..]);
    out
}

/// The `_headers` file (Netlify, Cloudflare Pages and hosts that read it): `nosniff` and
/// the signed pages' policy for every path. A page's own meta policy, where it has one,
/// narrows this further (the two are both enforced).
pub fn headers_file(policy: &str) -> String {
    format!("/*\n  X-Content-Type-Options: nosniff\n  Content-Security-Policy: {policy}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_and_styles_come_from_the_build_s_folders_only() {
        let p = policy_at(false, "/");
        assert!(
            p.contains("script-src *:*/static/ *:*/search/ *:*/__livereload.js file:;"),
            "{p}"
        );
        assert!(
            p.contains("style-src *:*/static/ *:*/search/ *:*/__livereload.js file:;"),
            "{p}"
        );
        assert!(!p.contains("script-src 'self'"), "{p}");
        assert_eq!(base_path("https://g.test"), "/");
        assert_eq!(base_path("https://x.github.io/glossary"), "/glossary/");
        assert_eq!(base_path("http://127.0.0.1:1/a/b/?q"), "/a/b/");
        let s = signed_page_policy(false, "/g/", &["app.js".into(), "a b;c.css".into()]);
        assert!(
            s.contains("script-src 'unsafe-inline' *:*/g/static/ *:*/g/search/ *:*/static/ *:*/search/ *:*/__livereload.js file: *:*/g/app.js *:*/g/a%20b%3Bc.css *:*/app.js *:*/a%20b%3Bc.css;"),
            "{s}"
        );
    }

    #[test]
    fn the_meta_goes_after_the_doctype_or_first() {
        let m = with_meta_policy(b"<!DOCTYPE html><html><head><script src=x></script>", "a");
        assert_eq!(
            String::from_utf8(m).unwrap(),
            "<!DOCTYPE html>\n<meta http-equiv=\"Content-Security-Policy\" content=\"a\">\n<html><head><script src=x></script>"
        );
        let m = with_meta_policy(b"<script src=x></script>", "'none'");
        assert!(String::from_utf8(m).unwrap().starts_with(
            "<meta http-equiv=\"Content-Security-Policy\" content=\"&#39;none&#39;\">\n<script"
        ));
    }
}
