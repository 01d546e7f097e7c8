//! HTTP for `serve`. Files come from the in-memory site, so no request path ever reaches
//! the file system; still, any path that tries to leave the site (`..`, encoded or not,
//! backslashes, absolute or non-path targets) is refused outright rather than normalised,
//! so a mistake in the lookup could never turn into a leak.

use std::sync::Arc;

use tiny_http::{Header, Method, Request, Response, Server};

use super::livereload::{
    error_page, script, script_at, Site, SiteState, ENDPOINT, SCRIPT_ENDPOINT, SCRIPT_JS,
};

/// Where a request path leads.
#[derive(Debug, PartialEq, Eq)]
pub enum Route {
    /// A file of the site, by its key (`terms/x/index.html`).
    File(String),
    /// A folder without its trailing slash: redirect so relative links resolve.
    AddSlash(String),
    /// The live-reload poll, with the generation the page has and, from a served page,
    /// its key (then the poll answers only when that page changed).
    LiveReload { since: u64, page: Option<String> },
    /// The live-reload script file the served pages load.
    LiveReloadScript,
    /// Outside the site or malformed: 403.
    Forbidden,
}

/// Serve requests until the process ends, one thread per request (live-reload polls wait).
pub fn run(http: Server, state: Arc<SiteState>) {
    for request in http.incoming_requests() {
        let state = state.clone();
        std::thread::spawn(move || {
            // A client that hangs up mid-response is not the server's problem.
            let _ = respond(request, &state);
        });
    }
}

fn respond(request: Request, state: &SiteState) -> std::io::Result<()> {
    if !matches!(request.method(), Method::Get | Method::Head) {
        return request.respond(text(405, "only GET and HEAD are served\n"));
    }
    match resolve(request.url()) {
        Route::Forbidden => request.respond(text(403, "forbidden: outside the site\n")),
        Route::LiveReload { since, page } => {
            let generation = state.wait_for_change(since, page.as_deref());
            request.respond(text(200, &generation.to_string()).with_header(no_store()))
        }
        Route::LiveReloadScript => request.respond(
            Response::from_string(SCRIPT_JS)
                .with_header(content_type(mime("x.js")))
                .with_header(no_store()),
        ),
        Route::AddSlash(path) => respond_redirect(request, &path),
        Route::File(key) => {
            let found = state.read(|site| find(site, &key));
            match found {
                Found::Redirect => respond_redirect(request, &key),
                Found::Missing => request.respond(text(404, "not found\n")),
                Found::Error {
                    message,
                    generation,
                } => request.respond(
                    Response::from_data(error_page(&message, generation, &key))
                        .with_status_code(500)
                        .with_header(content_type(HTML))
                        .with_header(no_store())
                        .with_header(csp()),
                ),
                Found::File {
                    status,
                    mime,
                    bytes,
                    generation,
                } => {
                    let body = if mime == HTML {
                        Body::injected(bytes, script(generation, &key))
                    } else {
                        Body::injected(bytes, String::new())
                    };
                    let len = body.len();
                    request.respond(
                        Response::new(
                            status.into(),
                            vec![content_type(mime), no_store(), csp()],
                            body,
                            Some(len),
                            None,
                        )
                        // With its length, not in chunks: the A-Z index of a large site is
                        // 21 MB, and chunks of 8 KB cost both sides a pass each.
                        .with_chunked_threshold(usize::MAX),
                    )
                }
            }
        }
    }
}

/// A served file as it goes out: the site's bytes (shared, not copied: a large index is
/// tens of MB and a polling page asks for it again and again) with the live-reload
/// `script` put in before `</body>` (see `livereload::inject`).
struct Body {
    bytes: Arc<Vec<u8>>,
    script: Vec<u8>,
    /// Where the script goes in `bytes`.
    at: usize,
    /// How much has been read.
    read: usize,
}

impl Body {
    fn injected(bytes: Arc<Vec<u8>>, script: String) -> Body {
        let at = if script.is_empty() {
            bytes.len()
        } else {
            script_at(&bytes)
        };
        Body {
            bytes,
            script: script.into_bytes(),
            at,
            read: 0,
        }
    }

    fn len(&self) -> usize {
        self.bytes.len() + self.script.len()
    }
}

impl std::io::Read for Body {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let (before, script) = (self.at, self.script.len());
        let from: &[u8] = if self.read < before {
            &self.bytes[self.read..before]
        } else if self.read < before + script {
            &self.script[self.read - before..]
        } else {
            &self.bytes[(self.read - script).min(self.bytes.len())..]
        };
        let n = from.len().min(buf.len());
        buf[..n].copy_from_slice(&from[..n]);
        self.read += n;
        Ok(n)
    }
}

/// What a file request gets, looked up under the site's read lock and answered after it.
enum Found {
    File {
        status: u16,
        /// Of the file served: the one asked for, or the 404 page.
        mime: &'static str,
        bytes: Arc<Vec<u8>>,
        generation: u64,
    },
    Redirect,
    Missing,
    Error {
        message: String,
        generation: u64,
    },
}

fn find(site: &Site, key: &str) -> Found {
    if let (Some(message), true) = (&site.error, key.ends_with(".html")) {
        return Found::Error {
            message: message.clone(),
            generation: site.generation,
        };
    }
    if let Some(bytes) = site.files.get(key) {
        return Found::File {
            status: 200,
            mime: mime(key),
            bytes: bytes.clone(),
            generation: site.generation,
        };
    }
    if site.files.contains_key(&format!("{key}/index.html")) {
        return Found::Redirect;
    }
    match site.files.get("404.html") {
        Some(bytes) => Found::File {
            status: 404,
            mime: HTML,
            bytes: bytes.clone(),
            generation: site.generation,
        },
        None => Found::Missing,
    }
}

/// Send `/dir` to `/dir/`, so the page's relative links resolve from the folder.
fn respond_redirect(request: Request, key: &str) -> std::io::Result<()> {
    let location = format!("/{}/", percent_encode(key));
    request.respond(
        Response::from_string(format!("see {location}\n"))
            .with_status_code(301)
            .with_header(header("Location", &location)),
    )
}

/// Keep a header value ASCII: escape every byte outside the unreserved set and `/`.
fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Map a request target to a site file, refusing anything that could leave the site.
pub fn resolve(target: &str) -> Route {
    let (path, query) = match target.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (target, None),
    };
    let path = path.split('#').next().unwrap_or(path);
    // Only origin-form targets ("/x/y"); "http://host/x", "*" and the like are refused.
    if !path.starts_with('/') || path.starts_with("//") {
        return Route::Forbidden;
    }
    let Some(decoded) = percent_decode(path) else {
        return Route::Forbidden;
    };
    if decoded.contains('\\') || decoded.contains('\0') || decoded.contains(':') {
        return Route::Forbidden;
    }
    if decoded == SCRIPT_ENDPOINT {
        return Route::LiveReloadScript;
    }
    if decoded == ENDPOINT {
        let param = |name: &str| {
            query
                .into_iter()
                .flat_map(|q| q.split('&'))
                .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
        };
        let since = param("since").and_then(|v| v.parse().ok()).unwrap_or(0);
        let page = param("page").and_then(percent_decode);
        return Route::LiveReload { since, page };
    }
    let mut segments = Vec::new();
    for seg in decoded[1..].split('/') {
        match seg {
            ".." | "." => return Route::Forbidden,
            "" => {}
            s => segments.push(s),
        }
    }
    let key = segments.join("/");
    if key.is_empty() {
        Route::File("index.html".into())
    } else if decoded.ends_with('/') {
        Route::File(format!("{key}/index.html"))
    } else if !segments.last().is_some_and(|s| s.contains('.')) {
        Route::AddSlash(key)
    } else {
        Route::File(key)
    }
}

/// Decode `%XX` escapes; None for a malformed escape or bytes that are not UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

const HTML: &str = "text/html; charset=utf-8";

fn mime(key: &str) -> &'static str {
    match key.rsplit_once('.').map(|(_, ext)| ext) {
        Some("html") => HTML,
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("json") => "application/json",
        Some("xml") => "application/xml",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("woff2") => "font/woff2",
        Some("txt") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn header(name: &str, value: &str) -> Header {
    // Names and values here are ASCII constants or paths we built; a failure is a bug in
    // this file, and an empty custom header is harmless.
    Header::from_bytes(name.as_bytes(), value.as_bytes())
        .unwrap_or_else(|_| Header::from_bytes(&b"X-Invalid"[..], &b""[..]).expect("ASCII header"))
}

fn content_type(value: &str) -> Header {
    header("Content-Type", value)
}

fn no_store() -> Header {
    header("Cache-Control", "no-store")
}

/// The pages' own policy (`render::csp`, images from anywhere allowed, as the page's
/// meta decides for its site), sent as a header too: it covers the error page, which
/// has no meta, and adds what a meta cannot say (`frame-ancestors`).
fn csp() -> Header {
    header(
        "Content-Security-Policy",
        &format!(
            "{}; frame-ancestors 'none'",
            crate::render::csp::policy(true)
        ),
    )
}

fn text(status: u16, body: &str) -> Response<std::io::Cursor<Vec<u8>>> {
    Response::from_string(body)
        .with_status_code(status)
        .with_header(content_type("text/plain; charset=utf-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_served_page_is_the_file_with_the_script_as_inject_makes_it() {
        use std::io::Read;
        for html in [
            &b"<html><body><p>x</p></body></html>"[..],
            b"no body tag",
            b"",
        ] {
            let want = super::super::livereload::inject(html, 4, "a/index.html");
            let mut body = Body::injected(Arc::new(html.to_vec()), script(4, "a/index.html"));
            assert_eq!(body.len(), want.len());
            // Small reads cross the script's ends.
            let mut got = Vec::new();
            let mut buf = [0u8; 7];
            loop {
                let n = body.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&buf[..n]);
            }
            assert_eq!(got, want);
        }
        let mut plain = Body::injected(Arc::new(b"body{}".to_vec()), String::new());
        let mut got = Vec::new();
        plain.read_to_end(&mut got).unwrap();
        assert_eq!(got, b"body{}");
    }

    #[test]
    fn site_paths_resolve_to_files() {
        assert_eq!(resolve("/"), Route::File("index.html".into()));
        assert_eq!(
            resolve("/terms/occupancy/"),
            Route::File("terms/occupancy/index.html".into())
        );
        assert_eq!(
            resolve("/terms/occupancy/index.html?x=1#top"),
            Route::File("terms/occupancy/index.html".into())
        );
        assert_eq!(
            resolve("/terms/occupancy"),
            Route::AddSlash("terms/occupancy".into())
        );
        assert_eq!(
            resolve("/static/style%2Ecss"),
            Route::File("static/style.css".into())
        );
        assert_eq!(
            resolve("/__livereload?since=4"),
            Route::LiveReload {
                since: 4,
                page: None
            }
        );
        assert_eq!(
            resolve("/__livereload?since=4&page=terms%2Fx%2Findex.html"),
            Route::LiveReload {
                since: 4,
                page: Some("terms/x/index.html".into())
            }
        );
    }

    #[test]
    fn paths_that_leave_the_site_are_forbidden() {
        for bad in [
            "/../etc/passwd",
            "/terms/../../etc/passwd",
            "/%2e%2e/etc/passwd",
            "/%2E%2E%2Fetc%2Fpasswd",
            "/static/..%2f..%2fCargo.toml",
            "/..\\Cargo.toml",
            "/%5c..%5cCargo.toml",
            "//etc/passwd",
            "http://127.0.0.1/etc/passwd",
            "etc/passwd",
            "/C:/Windows/win.ini",
            "/%zz",
            "/%c0%ae%c0%ae/etc/passwd",
            "/./index.html",
            "/a%00b",
        ] {
            assert_eq!(resolve(bad), Route::Forbidden, "{bad}");
        }
    }
}
