//! HTTP for `serve`. Files come from the in-memory site, so no request path ever reaches
//! the file system; still, any path that tries to leave the site (`..`, encoded or not,
//! backslashes, absolute or non-path targets) is refused outright rather than normalised,
//! so a mistake in the lookup could never turn into a leak.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::body::{Bytes, Frame, Incoming, SizeHint};
use hyper::header::{
    HeaderValue, ALLOW, CACHE_CONTROL, CONTENT_TYPE, HOST, LOCATION, X_CONTENT_TYPE_OPTIONS,
};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::error_page::{self, BuildFailure};
use super::limits::{Activity, Limits, Watched, MAX_HEADER_BYTES};
use super::livereload::{script, script_at, Site, SiteState, ENDPOINT, SCRIPT_ENDPOINT, SCRIPT_JS};

type Response = hyper::Response<Body>;

/// Where a request path leads.
#[derive(Debug, PartialEq, Eq)]
pub enum Route {
    /// A file of the site, by its key (`terms/x/index.html`, `CNAME`), or a folder
    /// without its trailing slash (`terms/x`), which the site's files tell apart: a
    /// file's name need not have an extension.
    File(String),
    /// The live-reload poll, with the generation the page has and, from a served page,
    /// its key (then the poll answers only when that page changed).
    LiveReload { since: u64, page: Option<String> },
    /// The live-reload script file the served pages load.
    LiveReloadScript,
    /// Outside the site or malformed: 403.
    Forbidden,
}

/// Serve connections until the process ends, each a task on the runtime this runs on (a
/// live-reload poll waits as a task, not a thread), within `limits` (see `limits`).
pub async fn run(listener: TcpListener, state: Arc<SiteState>, limits: Limits) {
    // The address requests must name (see `host_allowed`); a listener without one accepts
    // nothing anyway.
    let Ok(bound) = listener.local_addr() else {
        return;
    };
    let mut http = http1::Builder::new();
    // Over the bound, hyper answers 431 and closes without reading further. Its own
    // header timer counts from when it starts waiting for a request, idle time included,
    // so it is off: `limits` times the head from its first byte, and idleness apart.
    http.max_header_size(MAX_HEADER_BYTES)
        .header_read_timeout(None);
    let http = Arc::new(http);
    let permits = Arc::new(Semaphore::new(limits.max_connections));
    let mut warned = false;
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors, or a connection reset before it was taken:
                // go on, but without spinning on an error that repeats.
                if !warned {
                    eprintln!("warning: accepting a connection: {e}");
                    warned = true;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        match permits.clone().try_acquire_owned() {
            Ok(permit) => {
                tokio::spawn(connection(
                    stream,
                    bound,
                    state.clone(),
                    http.clone(),
                    limits,
                    permit,
                ));
            }
            Err(_) => refuse(stream),
        }
    }
}

/// One connection past the bound: told so if its socket takes the answer at once, then
/// closed. Never waited on, so a flood of them cannot queue up.
fn refuse(stream: TcpStream) {
    const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nContent-Length: 27\r\nConnection: close\r\nRetry-After: 1\r\n\r\ntoo many open connections\r\n";
    let _ = stream.try_write(BUSY);
}

/// Serve one connection until the client closes it or it breaks a time limit.
async fn connection(
    stream: TcpStream,
    bound: SocketAddr,
    state: Arc<SiteState>,
    http: Arc<http1::Builder>,
    limits: Limits,
    _permit: OwnedSemaphorePermit,
) {
    // Responses go out in one write where they can; with Nagle on, a kept-alive
    // connection's second response could wait for the client's delayed ACK (~40 ms).
    let _ = stream.set_nodelay(true);
    let activity = Activity::new();
    let io = TokioIo::new(Watched::new(stream, activity.clone()));
    let service = {
        let activity = activity.clone();
        service_fn(move |request| {
            let state = state.clone();
            let handling = activity.handling();
            async move {
                let response = nosniff(respond(request, bound, &state).await);
                drop(handling);
                Ok::<_, Infallible>(response)
            }
        })
    };
    let conn = http.serve_connection(io, service);
    tokio::pin!(conn);
    loop {
        // Dropping the connection closes its socket, mid-response or not.
        let Ok(wait) = activity.check(&limits) else {
            return;
        };
        tokio::select! {
            // Closed by the client, or broken: either way, nothing to answer.
            _ = conn.as_mut() => return,
            _ = tokio::time::sleep(wait) => {}
            // A head began while the timer slept toward the idle deadline: its own,
            // shorter deadline is timed from now on.
            _ = activity.head_begun() => {}
        }
    }
}

async fn respond(request: Request<Incoming>, bound: SocketAddr, state: &SiteState) -> Response {
    // Before anything is read from the site: a page of another site whose name an
    // attacker points at this machine (DNS rebinding) is same-origin with that name, and
    // could read drafts and the error page's absolute paths. Its requests carry its name.
    let host = request.headers().get(HOST).and_then(|h| h.to_str().ok());
    if !host.is_some_and(|h| host_allowed(h, bound)) {
        return text(
            421,
            &format!(
                "misdirected request: this preview answers only to the address it listens \
                 on, {} (or localhost at that port)\n",
                super::own_url(bound)
            ),
        );
    }
    if !matches!(*request.method(), Method::GET | Method::HEAD) {
        let mut response = text(405, "only GET and HEAD are served\n");
        response
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    // The target as sent: origin form prints as it came, anything else (absolute form,
    // `*`) keeps its scheme or star and is refused by `resolve`.
    let target = request.uri().to_string();
    match resolve(&target) {
        Route::Forbidden => text(403, "forbidden: outside the site\n"),
        Route::LiveReload { since, page } => {
            let generation = state.wait_for_change(since, page.as_deref()).await;
            no_store(text(200, &generation.to_string()))
        }
        Route::LiveReloadScript => no_store(response(200, mime("x.js"), Body::one(SCRIPT_JS))),
        Route::File(key) => match state.read(|site| find(site, &key)) {
            Found::Redirect => redirect(&key),
            Found::Missing => text(404, "not found\n"),
            Found::Error {
                failure,
                generation,
            } => csp(no_store(response(
                500,
                HTML,
                Body::one(error_page::render(&failure, generation, &key)),
            ))),
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
                // With its length (from the body's exact size), not in chunks.
                csp(no_store(response(status, mime, body)))
            }
        },
    }
}

/// A response body: a few chunks, sent in order, with their total length known up front
/// (so it goes out with Content-Length). A served file is the site's bytes, shared rather
/// than copied (a large index is tens of MB and a polling page asks for it again and
/// again), with the live-reload `script` put in before `</body>` (see
/// `livereload::inject`).
pub struct Body {
    chunks: VecDeque<Bytes>,
    len: u64,
}

/// A site file's bytes as a `Bytes` owner.
struct Shared(Arc<Vec<u8>>);

impl AsRef<[u8]> for Shared {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl Body {
    fn one(bytes: impl Into<Bytes>) -> Body {
        Body::chunks([bytes.into()])
    }

    fn chunks(chunks: impl IntoIterator<Item = Bytes>) -> Body {
        let chunks: VecDeque<Bytes> = chunks.into_iter().filter(|c| !c.is_empty()).collect();
        let len = chunks.iter().map(|c| c.len() as u64).sum();
        Body { chunks, len }
    }

    fn injected(bytes: Arc<Vec<u8>>, script: String) -> Body {
        let at = if script.is_empty() {
            bytes.len()
        } else {
            script_at(&bytes)
        };
        let whole = Bytes::from_owner(Shared(bytes));
        Body::chunks([whole.slice(..at), Bytes::from(script), whole.slice(at..)])
    }
}

impl hyper::body::Body for Body {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let chunk = self.chunks.pop_front();
        if let Some(chunk) = &chunk {
            self.len -= chunk.len() as u64;
        }
        Poll::Ready(chunk.map(|c| Ok(Frame::data(c))))
    }

    fn is_end_stream(&self) -> bool {
        self.chunks.is_empty()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.len)
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
        failure: BuildFailure,
        generation: u64,
    },
}

fn find(site: &Site, key: &str) -> Found {
    if let (Some(failure), true) = (&site.error, key.ends_with(".html")) {
        return Found::Error {
            failure: failure.clone(),
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
    // Missing perhaps only because the build failed (none has worked yet, or the page is
    // new): the error says why.
    if let Some(failure) = &site.error {
        return Found::Error {
            failure: failure.clone(),
            generation: site.generation,
        };
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
fn redirect(key: &str) -> Response {
    let location = format!("/{}/", percent_encode(key));
    let mut response = text(301, &format!("see {location}\n"));
    if let Ok(value) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(LOCATION, value);
    }
    response
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

fn response(status: u16, mime: &'static str, body: Body) -> Response {
    let mut response = hyper::Response::new(body);
    *response.status_mut() =
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(mime));
    response
}

/// Whether a request's `Host` names the address the server listens on (`bound`): that
/// address, or `localhost` where it is a loopback or every address, at its port (none only
/// for port 80). Where it listens on every address, any IP literal: a page can send an
/// address as its Host only by being loaded from that address, which no rebinding does.
/// Anything else, a name included, is refused: only a name can be rebound.
pub fn host_allowed(host: &str, bound: SocketAddr) -> bool {
    let bracketed = host.starts_with('[');
    let (name, port) = match host.strip_prefix('[') {
        Some(rest) => {
            let Some((ip, after)) = rest.split_once(']') else {
                return false;
            };
            match (after, after.strip_prefix(':')) {
                ("", _) => (ip, None),
                (_, Some(port)) => (ip, Some(port)),
                (_, None) => return false,
            }
        }
        None => match host.split_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (host, None),
        },
    };
    let port_ok = match port {
        // Written as a browser writes it: digits, no leading zero, no sign.
        Some(p) => p
            .parse::<u16>()
            .is_ok_and(|n| n.to_string() == p && n == bound.port()),
        None => bound.port() == 80,
    };
    if !port_ok {
        return false;
    }
    let ip = bound.ip();
    if name.eq_ignore_ascii_case("localhost") {
        return ip.is_loopback() || ip.is_unspecified();
    }
    match name.parse::<IpAddr>() {
        Ok(asked) if bracketed == asked.is_ipv6() => ip.is_unspecified() || asked == ip,
        _ => false,
    }
}

/// Every response says its content type is the one to use: a browser does not guess a
/// script or a style sheet from a file's bytes (an unsigned text file that reads as
/// JavaScript is run as nothing).
fn nosniff(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response
}

fn no_store(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The pages' own policy (`render::csp`, images from anywhere allowed, as the page's
/// meta decides for its site), sent as a header too: it covers the error page, which
/// has no meta, and adds what a meta cannot say (`frame-ancestors`).
fn csp(mut response: Response) -> Response {
    let policy = format!(
        "{}; frame-ancestors 'none'",
        crate::render::csp::policy(true)
    );
    if let Ok(value) = HeaderValue::from_str(&policy) {
        response
            .headers_mut()
            .insert(hyper::header::CONTENT_SECURITY_POLICY, value);
    }
    response
}

fn text(status: u16, body: &str) -> Response {
    response(
        status,
        "text/plain; charset=utf-8",
        Body::one(body.to_string()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::body::Body as _;

    /// Every byte of `body`, read frame by frame as hyper does.
    fn collect(mut body: Body) -> Vec<u8> {
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        let mut got = Vec::new();
        let whole = body.size_hint().exact().expect("an exact length");
        while let Poll::Ready(Some(frame)) = Pin::new(&mut body).poll_frame(&mut cx) {
            got.extend_from_slice(frame.unwrap().data_ref().unwrap());
        }
        assert!(body.is_end_stream());
        assert_eq!(got.len() as u64, whole);
        got
    }

    #[test]
    fn a_served_page_is_the_file_with_the_script_as_inject_makes_it() {
        for html in [
            &b"<html><body><p>x</p></body></html>"[..],
            b"no body tag",
            b"",
        ] {
            let want = super::super::livereload::inject(html, 4, "a/index.html");
            let body = Body::injected(Arc::new(html.to_vec()), script(4, "a/index.html"));
            assert_eq!(body.size_hint().exact(), Some(want.len() as u64));
            assert_eq!(collect(body), want);
        }
        let plain = Body::injected(Arc::new(b"body{}".to_vec()), String::new());
        assert_eq!(collect(plain), b"body{}");
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
        // A folder or a file without an extension: the site's files decide (`find`).
        assert_eq!(
            resolve("/terms/occupancy"),
            Route::File("terms/occupancy".into())
        );
        assert_eq!(resolve("/CNAME"), Route::File("CNAME".into()));
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
    fn only_the_bound_address_and_localhost_are_answered() {
        let at = |bound: &str, host: &str| host_allowed(host, bound.parse().unwrap());
        for ok in ["127.0.0.1:8000", "localhost:8000", "LocalHost:8000"] {
            assert!(at("127.0.0.1:8000", ok), "{ok}");
        }
        for refused in [
            // A rebound name, at the right port or none.
            "attacker.example:8000",
            "attacker.example",
            "127.0.0.1.nip.io:8000",
            "localhost.:8000",
            // Another address, port, or spelling of the port.
            "127.0.0.2:8000",
            "192.168.1.5:8000",
            "127.0.0.1:8001",
            "127.0.0.1",
            "127.0.0.1:08000",
            "127.0.0.1:+8000",
            "[::1]:8000",
            "[127.0.0.1]:8000",
            "127.0.0.1:8000:8000",
            "[::1",
            "",
        ] {
            assert!(!at("127.0.0.1:8000", refused), "{refused}");
        }
        assert!(at("[::1]:9", "[::1]:9"));
        assert!(at("[::1]:9", "localhost:9"));
        assert!(!at("[::1]:9", "::1:9"));
        assert!(!at("[::1]:9", "[::1]x:9"));
        // Port 80 may go unwritten.
        assert!(at("127.0.0.1:80", "127.0.0.1"));
        // Listening on a LAN address: that address only, not localhost.
        assert!(at("192.168.1.5:8000", "192.168.1.5:8000"));
        assert!(!at("192.168.1.5:8000", "localhost:8000"));
        // On every address: any address of the machine, never a name but localhost.
        assert!(at("0.0.0.0:8000", "10.0.0.7:8000"));
        assert!(at("0.0.0.0:8000", "localhost:8000"));
        assert!(!at("0.0.0.0:8000", "attacker.example:8000"));
        assert!(at("[::]:8000", "[fe80::1]:8000"));
    }

    fn site_of(files: &[(&str, &str)]) -> SiteState {
        use super::super::rebuild::{RebuildOutcome, SiteUpdate};
        SiteState::new(RebuildOutcome::Built {
            update: SiteUpdate {
                full: true,
                files: files
                    .iter()
                    .map(|(k, v)| (k.to_string(), Arc::new(v.as_bytes().to_vec())))
                    .collect(),
                removed: Vec::new(),
            },
            summary: String::new(),
            took: Duration::ZERO,
        })
    }

    #[test]
    fn a_file_without_an_extension_is_served_and_a_folder_is_redirected() {
        let state = site_of(&[
            ("CNAME", "glossary.test\n"),
            ("terms/x/index.html", "<p>x</p>"),
            ("404.html", "nf"),
        ]);
        let found = |target: &str| {
            let Route::File(key) = resolve(target) else {
                panic!("{target} is no file route");
            };
            state.read(|site| match find(site, &key) {
                Found::File { status, bytes, .. } => {
                    format!("{status} {}", String::from_utf8_lossy(&bytes))
                }
                Found::Redirect => "redirect".to_string(),
                Found::Missing => "missing".to_string(),
                Found::Error { .. } => "error".to_string(),
            })
        };
        assert_eq!(found("/CNAME"), "200 glossary.test\n");
        assert_eq!(found("/terms/x"), "redirect");
        assert_eq!(found("/terms/x/"), "200 <p>x</p>");
        assert_eq!(found("/terms/y"), "404 nf");
        // While the site does not build, a page is the error page, and so is a path the
        // failed build may be why there is nothing at; files that are there are served.
        state.publish(super::super::rebuild::RebuildOutcome::Failed {
            failure: BuildFailure {
                when: super::super::error_page::When::Start,
                problems: Vec::new(),
            },
            statics: Vec::new(),
            took: Duration::ZERO,
        });
        assert_eq!(found("/terms/x/"), "error");
        assert_eq!(found("/terms/new"), "error");
        assert_eq!(found("/CNAME"), "200 glossary.test\n");
        assert_eq!(found("/terms/x"), "redirect");
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
