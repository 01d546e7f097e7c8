//! The Content-Security-Policy every page carries (a `<meta http-equiv>` in the templates'
//! head, and a header from `serve`): scripts, styles and everything else only from the
//! site itself; no inline script or style, no event handler attribute, no plugin, no
//! `<base>` that would re-root the page's links, forms only to the site. An injected
//! `<script>` or `onerror=` (were any to get past the link and HTML checks) does not run.
//! The templates and static scripts hold nothing inline for this reason, and `serve`'s
//! live reload is a script file too.

/// The policy for a site; `remote_images` (glossary.toml's `allow_remote_images`) lets
/// images come from any https address as well.
pub fn policy(remote_images: bool) -> String {
    let images = if remote_images {
        "'self' https:"
    } else {
        "'self'"
    };
    format!(
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src {images}; \
         object-src 'none'; base-uri 'none'; form-action 'self'"
    )
}
