//! HTTP for `serve`. Files come from the in-memory site, so no request path ever reaches
//! the file system; still, any path that tries to leave the site (`..`, encoded or not,
//! backslashes, absolute or non-path targets) is refused outright rather than normalised,
//! so a mistake in the lookup could never turn into a leak.

use std::sync::Arc;

use tiny_http::{Header, Method, Request, Response, Server};

use super::livereload::{error_page, inject, SiteState, ENDPOINT};

/// Where a request path leads.
#[derive(Debug, PartialEq, Eq)]
pub enum Route {
    /// A file of the site, by its key (`terms/x/index.html`).
    File(String),
    /// A folder without its trailing slash: redirect so relative links resolve.
    AddSlash(String),
    /// The live-reload poll, with the generation the page has.
    LiveReload { since: u64 },
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
    let resolved = resolve(request.url());
    let snapshot = state.snapshot();
    match resolved {
        Route::Forbidden => request.respond(text(403, "forbidden: outside the site\n")),
        Route::LiveReload { since } => {
            let generation = if since == snapshot.generation {
                state.wait_for_change(since)
            } else {
                snapshot.generation
            };
            request.respond(text(200, &generation.to_string()).with_header(no_store()))
        }
        Route::AddSlash(path) => respond_redirect(request, &path),
        Route::File(key) => {
            let is_html = key.ends_with(".html");
            if let (Some(message), true) = (&snapshot.error, is_html) {
                let page = error_page(message, snapshot.generation);
                return request.respond(
                    Response::from_data(page)
                        .with_status_code(500)
                        .with_header(content_type("text/html; charset=utf-8"))
                        .with_header(no_store()),
                );
            }
            let (status, key) = if snapshot.files.contains_key(&key) {
                (200, key)
            } else if snapshot.files.contains_key(&format!("{key}/index.html")) {
                return respond_redirect(request, &key);
            } else {
                (404, "404.html".to_string())
            };
            let Some(bytes) = snapshot.files.get(&key) else {
                return request.respond(text(404, "not found\n"));
            };
            let body = if key.ends_with(".html") {
                inject(bytes, snapshot.generation)
            } else {
                bytes.to_vec()
            };
            request.respond(
                Response::from_data(body)
                    .with_status_code(status)
                    .with_header(content_type(mime(&key)))
                    .with_header(no_store()),
            )
        }
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
    if decoded == ENDPOINT {
        let since = query
            .into_iter()
            .flat_map(|q| q.split('&'))
            .find_map(|kv| kv.strip_prefix("since="))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        return Route::LiveReload { since };
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

fn mime(key: &str) -> &'static str {
    match key.rsplit_once('.').map(|(_, ext)| ext) {
        Some("html") => "text/html; charset=utf-8",
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

fn text(status: u16, body: &str) -> Response<std::io::Cursor<Vec<u8>>> {
    Response::from_string(body)
        .with_status_code(status)
        .with_header(content_type("text/plain; charset=utf-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

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
            Route::LiveReload { since: 4 }
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
