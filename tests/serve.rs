//! `glossary serve` over real TCP: pages with the live-reload script, paths outside the
//! site refused, rebuilds on save, a broken edit shown in the page and recovered from; and
//! the bounds on what clients can hold (oversized headers, idle and slow connections, the
//! number of connections). How fast and how small it stays under them is measured by
//! `bench/serve_limits.sh`, not asserted here.

mod support;
use support::signed as common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

struct Server {
    child: Child,
    addr: String,
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    /// What serve has printed to stdout since it started serving.
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(drafts: bool) -> Server {
    start_with(drafts, &[])
}

/// With extra `serve` arguments (the hidden `--test-...` limits).
fn start_with(drafts: bool, extra: &[&str]) -> Server {
    start_prepared(drafts, extra, |_| {})
}

/// With the fixture site changed by `prepare` before serve starts.
fn start_prepared(drafts: bool, extra: &[&str], prepare: impl FnOnce(&std::path::Path)) -> Server {
    let dir = tempfile::tempdir().expect("temp dir");
    small_site(dir.path());
    prepare(dir.path());
    let root = dir.path().to_path_buf();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_glossary"));
    cmd.args(["serve", "--port", "0", "--root"]).arg(&root);
    if drafts {
        cmd.arg("--drafts");
    }
    cmd.args(extra);
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start serve");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let addr = loop {
        let line = lines
            .next()
            .expect("serve printed its address before exiting")
            .expect("read stdout");
        if let Some(rest) = line.split("at http://").nth(1) {
            break rest.split('/').next().expect("host:port").to_string();
        }
    };
    // Keep draining stdout so the server never blocks on a full pipe.
    let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = log.clone();
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            kept.lock().unwrap_or_else(|p| p.into_inner()).push(line);
        }
    });
    Server {
        child,
        addr,
        _dir: dir,
        root,
        log,
    }
}

/// Send a raw request line (no client-side normalisation); return (status, body).
fn raw_get(addr: &str, target: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).expect("read");
    let text = String::from_utf8_lossy(&buf).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

fn wait_until(what: &str, mut ok: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ok() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A preview of a migration tries its old URLs: `serve --drafts` serves the redirect pages
/// of drafts too, and a plain `serve` (which shows only published entries) does not.
#[test]
fn serve_drafts_serves_a_drafts_redirect_pages() {
    let prepare = |root: &std::path::Path| {
        let file = root.join("content/terms/unsigned-draft.md");
        let text = std::fs::read_to_string(&file).expect("fixture draft");
        let text = text.replacen("---\n", "---\nredirect_from: [/old/unsigned-draft]\n", 1);
        std::fs::write(&file, text).expect("write draft");
    };
    let server = start_prepared(true, &[], prepare);
    let (status, body) = raw_get(&server.addr, "/old/unsigned-draft/");
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("url=../../terms/unsigned-draft/index.html"),
        "{body}"
    );
    drop(server);
    let server = start_prepared(false, &[], prepare);
    let (status, _) = raw_get(&server.addr, "/old/unsigned-draft/");
    assert_eq!(status, 404);
}

#[test]
fn serves_pages_with_live_reload_script_and_refuses_paths_outside_the_site() {
    let server = start(false);
    let (status, body) = raw_get(&server.addr, "/");
    assert_eq!(status, 200);
    assert!(body.contains("Fixture Glossary"));
    assert!(
        body.contains("<script src=\"/__livereload.js\" data-served=\""),
        "script injected into served HTML"
    );
    // As a file: the pages' Content-Security-Policy runs no inline script.
    assert!(
        body.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src &#39;self&#39;; script-src *:*/static/ *:*/search/ *:*/__livereload.js file:;"),
        "{body}"
    );
    let (status, js) = raw_get(&server.addr, "/__livereload.js");
    assert_eq!(status, 200);
    assert!(js.contains("fetch('/__livereload?since="), "{js}");
    let built = server.root.join("site");
    assert!(!built.exists(), "serve builds into memory, not into site/");

    let (status, body) = raw_get(&server.addr, "/terms/occupancy/");
    assert_eq!(status, 200);
    assert!(body.contains("hl-cuda"));
    let (status, _) = raw_get(&server.addr, "/terms/occupancy");
    assert_eq!(status, 301);
    let (status, body) = raw_get(&server.addr, "/static/style.css");
    assert_eq!(status, 200);
    assert!(!body.contains("__livereload"), "only HTML gets the script");

    for bad in [
        "/../Cargo.toml",
        "/../../../../etc/passwd",
        "/terms/../../glossary.toml",
        "/%2e%2e/glossary.toml",
        "/%2E%2E%2Fglossary.toml",
        "/static/..%2f..%2fglossary.toml",
        "/..\\glossary.toml",
        "/%5c..%5cglossary.toml",
        "//etc/passwd",
        "/etc/../../passwd",
        "http://127.0.0.1/../glossary.toml",
    ] {
        let (status, body) = raw_get(&server.addr, bad);
        assert!(status == 403 || status == 404, "{bad}: status {status}");
        assert!(!body.contains("base_url"), "{bad} leaked glossary.toml");
        assert!(!body.contains("root:"), "{bad} leaked /etc/passwd");
    }
    let (status, body) = raw_get(&server.addr, "/no/such/page/");
    assert_eq!(status, 404);
    assert!(body.contains("Page not found"));
}

#[test]
fn a_save_rebuilds_a_broken_save_shows_its_error_and_the_next_good_save_recovers() {
    let server = start(true);
    let page = "/terms/warp-scheduler/";
    let entry = server.root.join("content/terms/warp-scheduler.md");
    let good = read(&entry);
    // A long poll started now must return when the edit lands.
    edit_during_a_poll(&server, page, Duration::from_millis(200));
    wait_until("the edit to be served", || {
        raw_get(&server.addr, page).1.contains("Every single cycle")
    });

    // Break the front matter: the page shows the error, naming the file.
    std::fs::write(&entry, good.replacen("title:", "title: [unclosed", 1)).expect("break");
    wait_until("the error page", || {
        let (status, body) = raw_get(&server.addr, page);
        status == 500 && body.contains("Build failed") && body.contains("warp-scheduler.md")
    });
    // Non-HTML files are still served from the last good build.
    assert_eq!(raw_get(&server.addr, "/static/style.css").0, 200);

    std::fs::write(&entry, good.replace("Each cycle", "Recovered: each cycle")).expect("fix");
    wait_until("recovery", || {
        let (status, body) = raw_get(&server.addr, page);
        status == 200 && body.contains("Recovered: each cycle")
    });
}

/// The first page a writer sees after `glossary new term` and `serve --drafts`: no build
/// has worked, yet the page is styled like the site (its style sheet is served), names
/// each problem by its file and line, and says what happened: nothing was saved.
#[test]
fn a_project_that_does_not_build_at_start_shows_what_and_where_styled_like_the_site() {
    let server = start_prepared(true, &[], |root| {
        let out = Command::new(env!("CARGO_BIN_EXE_glossary"))
            .args(["new", "term", "shared-memory", "--root"])
            .arg(root)
            .output()
            .expect("run new term");
        assert!(out.status.success(), "{out:?}");
    });
    let (status, page) = raw_get(&server.addr, "/");
    assert_eq!(status, 500, "{page}");
    assert!(
        page.contains("<h1><code>content/terms/shared-memory.md</code> does not build</h1>"),
        "{page}"
    );
    assert!(
        page.contains("The project as serve found it does not build: 5 problems"),
        "{page}"
    );
    assert!(!page.contains("last save"), "nothing was saved: {page}");
    for place in [
        "Line 2, column 9:",
        "Line 4, column 11:",
        "Line 9, column 11:",
        "Line 12, column 1:",
    ] {
        assert!(page.contains(place), "{place}: {page}");
    }
    assert!(
        page.contains("<code>content/terms/shared-memory.md:9:11</code>"),
        "{page}"
    );
    // No absolute path of the project, and no error "made by a template".
    assert!(!page.contains(&*server.root.to_string_lossy()), "{page}");
    assert!(!page.contains("template"), "{page}");
    assert!(page.contains("<link rel=\"stylesheet\" href=\"/static/style.css\">"));
    let (status, css) = raw_get(&server.addr, "/static/style.css");
    assert_eq!(
        status, 200,
        "the site's style sheet, with no build that worked"
    );
    assert!(css.contains(".serve-error"), "{css}");

    // After an edit: which file changed.
    let entry = server.root.join("content/terms/warp-scheduler.md");
    std::fs::write(
        &entry,
        read(&entry).replacen("title:", "title: [unclosed", 1),
    )
    .expect("break");
    wait_until("the changed file named", || {
        raw_get(&server.addr, "/")
            .1
            .contains("After <code>content/terms/warp-scheduler.md</code> changed")
    });
}

#[test]
fn an_edit_that_withdraws_a_published_entry_shows_it_with_a_banner_and_logs_why() {
    let server = start(false);
    let page = "/terms/warp-scheduler/";
    let (status, body) = raw_get(&server.addr, page);
    assert_eq!(status, 200);
    assert!(!body.contains("withdrawn-banner"));
    // The signed text changes: its sign-off no longer covers it.
    let entry = server.root.join("content/terms/warp-scheduler.md");
    let good = read(&entry);
    let edited = good
        .replace("Each cycle", "Every single cycle")
        .replace("summary: The unit", "summary: Unsigned, the unit");
    assert_ne!(edited, good.replace("Each cycle", "Every single cycle"));
    std::fs::write(&entry, edited).expect("edit");
    wait_until("the withdrawn page to be served with its banner", || {
        let (status, body) = raw_get(&server.addr, page);
        status == 200 && body.contains("withdrawn-banner") && body.contains("Every single cycle")
    });
    // Other pages leave it out, as a build would: occupancy's related terms no longer
    // show its name or its summary, old or (never signed) new.
    let related = "/terms/occupancy/";
    wait_until("occupancy to drop the withdrawn term", || {
        let (status, body) = raw_get(&server.addr, related);
        status == 200 && !body.contains("warp-scheduler/index.html\">warp scheduler</a> —")
    });
    let (_, body) = raw_get(&server.addr, related);
    assert!(!body.contains("Unsigned, the unit"), "{body}");
    assert!(!body.contains("The unit of an SM that picks"), "{body}");
    let (_, body) = raw_get(&server.addr, page);
    assert!(body.contains("Withdrawn by an edit"), "{body}");
    assert!(
        body.contains("<meta name=\"robots\" content=\"noindex\">"),
        "{body}"
    );
    wait_until("the log line", || {
        server
            .log
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.starts_with("withdrawn: terms/warp-scheduler: "))
    });
    // Put back, it is published again: no banner.
    std::fs::write(&entry, &good).expect("restore");
    wait_until("the page published again", || {
        let (status, body) = raw_get(&server.addr, page);
        status == 200 && !body.contains("withdrawn-banner") && body.contains("Each cycle")
    });
    wait_until("occupancy to list it again", || {
        raw_get(&server.addr, related)
            .1
            .contains("The unit of an SM that picks")
    });
}

/// The small site with a section (so the home page shows Contents) holding both terms, and
/// a home text that links to the warp scheduler: the places the withdrawn term
/// stayed. The edited terms are signed again, later than the fixture's first signatures.
fn site_with_contents_and_home_text(root: &std::path::Path) {
    let config = read(&root.join("glossary.toml")).replacen(
        "\n[nodes.",
        "\n[[sections]]\nslug = \"basics\"\ntitle = \"The basics\"\n\n[nodes.",
        1,
    );
    std::fs::write(root.join("glossary.toml"), config).expect("write glossary.toml");
    for slug in ["warp-scheduler", "occupancy"] {
        let path = root.join(format!("content/terms/{slug}.md"));
        let text = read(&path).replacen("---\n", "---\nsection: basics\n", 1);
        std::fs::write(&path, text).expect("write term");
    }
    std::fs::write(
        root.join("content/index.md"),
        "Start with [the warp scheduler](terms/warp-scheduler/).\n",
    )
    .expect("write home text");
    let time = chrono::DateTime::parse_from_rfc3339("2026-11-03T12:00:00Z")
        .expect("time")
        .to_utc();
    for slug in ["warp-scheduler", "occupancy"] {
        let id = glossary::content::EntryId::new(glossary::content::Kind::Term, slug);
        for (role, person) in [
            (glossary::review::Role::Author, "author-a"),
            (glossary::review::Role::Reviewer, "reviewer-b"),
        ] {
            support::keys::sign_as(root, &id, role, person, time);
        }
    }
}

/// `raw_get`'s bytes, unconverted (the site has images).
fn raw_get_bytes(addr: &str, target: &str) -> (u16, Vec<u8>) {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    read_response(&mut s).expect("a response")
}

/// A served page less the live-reload tag serve adds (`livereload::script`).
fn without_reload_script(mut body: Vec<u8>) -> Vec<u8> {
    let start = b"<script src=\"/__livereload.js\"";
    let end = b"</script>\n";
    if let Some(at) = body.windows(start.len()).position(|w| w == start) {
        let len = body[at..]
            .windows(end.len())
            .position(|w| w == end)
            .expect("the tag is closed")
            + end.len();
        body.drain(at..at + len);
    }
    body
}

/// Every file a plain build of `root` (for serve's address) writes, as serve serves it:
/// the paths whose bytes differ, or that serve does not answer with 200.
fn differences_from_a_build(server: &Server) -> Vec<String> {
    let out = tempfile::tempdir().expect("temp dir");
    let site = out.path().join("site");
    glossary::pipeline::build(&glossary::pipeline::BuildOptions {
        root: server.root.clone(),
        out: Some(site.clone()),
        drafts: false,
        today: chrono::Local::now().date_naive(),
        base_url: Some(format!("http://{}/", server.addr)),
        keep_bodies_up_to: glossary::pipeline::KEEP_BODIES_UP_TO,
    })
    .expect("the build succeeds");
    let mut differ = Vec::new();
    let mut compared = 0;
    for item in walkdir::WalkDir::new(&site) {
        let item = item.expect("walk the build");
        let rel = item.path().strip_prefix(&site).expect("under site");
        let rel = rel.to_string_lossy().replace('\\', "/");
        // The build's marker file is no page of the site.
        if !item.file_type().is_file() || rel.starts_with('.') {
            continue;
        }
        let built = std::fs::read(item.path()).expect("read a built file");
        let (status, served) = raw_get_bytes(&server.addr, &format!("/{rel}"));
        compared += 1;
        if status != 200 {
            differ.push(format!("{rel}: served with status {status}"));
        } else if without_reload_script(served) != built {
            differ.push(rel);
        }
    }
    assert!(compared > 10, "only {compared} files compared");
    differ
}

/// The bug: after an edit withdrew a published term, the running serve kept it in
/// the home page's Contents and linked it from the home page's body (and other pages)
/// while a fresh build left it out. Every file a build writes is served as the build
/// writes it, after serve caught up with the edit.
#[test]
fn after_an_edit_withdraws_a_term_every_page_is_what_a_build_writes() {
    let server = start_prepared(false, &[], site_with_contents_and_home_text);
    let (_, home) = raw_get(&server.addr, "/");
    assert!(
        home.contains("href=\"terms/warp-scheduler/index.html\">the warp scheduler</a>"),
        "{home}"
    );
    assert!(
        home.contains("The basics"),
        "the home page shows Contents: {home}"
    );
    assert_eq!(differences_from_a_build(&server), Vec::<String>::new());

    let entry = server.root.join("content/terms/warp-scheduler.md");
    let before = server.log.lock().unwrap().len();
    std::fs::write(
        &entry,
        read(&entry).replace("Each cycle", "Every single cycle"),
    )
    .expect("edit");
    wait_until("serve to catch up with the edit", || {
        server.log.lock().unwrap()[before..]
            .iter()
            .any(|l| l.starts_with("caught up:"))
    });
    let (status, page) = raw_get(&server.addr, "/terms/warp-scheduler/");
    assert!(
        status == 200 && page.contains("withdrawn-banner"),
        "the withdrawn page is still served, with its banner: {page}"
    );
    assert_eq!(differences_from_a_build(&server), Vec::<String>::new());
    let (_, home) = raw_get(&server.addr, "/");
    assert!(!home.contains("terms/warp-scheduler/"), "{home}");

    // Put back as signed: published again, everywhere a build shows it.
    let before = server.log.lock().unwrap().len();
    std::fs::write(
        &entry,
        read(&entry).replace("Every single cycle", "Each cycle"),
    )
    .expect("restore");
    wait_until("serve to catch up with the restore", || {
        server.log.lock().unwrap()[before..]
            .iter()
            .any(|l| l.starts_with("caught up:"))
    });
    assert_eq!(differences_from_a_build(&server), Vec::<String>::new());
    let (_, home) = raw_get(&server.addr, "/");
    assert!(home.contains("terms/warp-scheduler/"), "{home}");
}

/// A raw request's whole answer, head and body, as text.
fn exchange(addr: &str, request: &str) -> String {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    s.write_all(request.as_bytes()).expect("send");
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).expect("read");
    String::from_utf8_lossy(&buf).into_owned()
}

/// DNS rebinding: a page of `attacker.example`, its name pointed at 127.0.0.1, is
/// same-origin with what it loads from there, so it could read `serve --drafts` and the
/// error page's absolute paths. Its requests name it in `Host`; they are refused.
#[test]
fn a_request_for_another_host_name_is_refused_and_every_answer_says_nosniff() {
    let server = start(true);
    let port = server.addr.rsplit(':').next().expect("port");
    let get = |target: &str, host: &str| {
        exchange(
            &server.addr,
            &format!("GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
        )
    };
    for host in [
        format!("attacker.example:{port}"),
        "attacker.example".to_string(),
        format!("127.0.0.1.nip.io:{port}"),
        format!("127.0.0.1:{}", port.parse::<u32>().unwrap() + 1),
    ] {
        for target in ["/", "/terms/unsigned-draft/", "/static/style.css"] {
            let answer = get(target, &host);
            assert!(
                answer.starts_with("HTTP/1.1 421 "),
                "{host}{target}: {answer}"
            );
            assert!(!answer.contains("unsigned"), "{answer}");
        }
    }
    // No Host at all (HTTP/1.0 may leave it out).
    let answer = exchange(&server.addr, "GET / HTTP/1.0\r\n\r\n");
    assert!(
        answer.starts_with("HTTP/1.0 421 ") || answer.starts_with("HTTP/1.1 421 "),
        "{answer}"
    );
    // The address and localhost are answered, a draft included.
    for host in [server.addr.clone(), format!("localhost:{port}")] {
        let answer = get("/terms/unsigned-draft/", &host);
        assert!(answer.starts_with("HTTP/1.1 200 "), "{host}: {answer}");
    }

    // Every kind of answer: a page, a style sheet, the reload script, a redirect, a
    // missing page, a forbidden path, a refused method, a refused host; then the error
    // page of a broken build.
    let nosniff = |answer: &str| {
        answer
            .split("\r\n\r\n")
            .next()
            .unwrap_or_default()
            .lines()
            .any(|l| l.eq_ignore_ascii_case("x-content-type-options: nosniff"))
    };
    let mut answers = Vec::new();
    for target in [
        "/",
        "/static/style.css",
        "/__livereload.js",
        "/terms/occupancy",
        "/no/such/page/",
        "/%2e%2e/glossary.toml",
    ] {
        answers.push(get(target, &server.addr));
    }
    answers.push(exchange(
        &server.addr,
        &format!(
            "POST / HTTP/1.1\r\nHost: {}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            server.addr
        ),
    ));
    answers.push(get("/", "attacker.example"));
    let entry = server.root.join("content/terms/warp-scheduler.md");
    std::fs::write(
        &entry,
        read(&entry).replacen("title:", "title: [unclosed", 1),
    )
    .expect("break");
    wait_until("the error page", || {
        raw_get(&server.addr, "/terms/warp-scheduler/").0 == 500
    });
    answers.push(get("/terms/warp-scheduler/", &server.addr));
    let statuses: Vec<&str> = answers
        .iter()
        .map(|a| a.split(' ').nth(1).unwrap_or_default())
        .collect();
    assert_eq!(
        statuses,
        ["200", "200", "200", "301", "404", "403", "405", "421", "500"]
    );
    for answer in &answers {
        assert!(nosniff(answer), "{answer}");
    }
}

/// `static/` (CNAME, robots.txt) is a source like the others: made, edited and added to
/// while serve runs, each change is served; and a file without an extension is served as
/// it is (`/CNAME` was redirected to `/CNAME/` and then not found).
#[test]
fn static_files_are_watched_and_served_without_an_extension() {
    let server = start(false);
    let dir = server.root.join("static");
    assert!(!dir.exists());
    std::fs::create_dir(&dir).expect("make static/");
    std::fs::write(dir.join("CNAME"), "glossary.test\n").expect("write CNAME");
    wait_until("CNAME to be served", || {
        raw_get(&server.addr, "/CNAME") == (200, "glossary.test\n".to_string())
    });
    std::fs::write(dir.join("CNAME"), "docs.glossary.test\n").expect("edit CNAME");
    wait_until("the edited CNAME to be served", || {
        raw_get(&server.addr, "/CNAME") == (200, "docs.glossary.test\n".to_string())
    });
    std::fs::create_dir(dir.join(".well-known")).expect("make .well-known/");
    std::fs::write(
        dir.join(".well-known/security.txt"),
        "Contact: mailto:x@glossary.test\n",
    )
    .expect("write security.txt");
    wait_until("a file added in a new folder to be served", || {
        raw_get(&server.addr, "/.well-known/security.txt").0 == 200
    });
    std::fs::remove_file(dir.join("CNAME")).expect("remove CNAME");
    wait_until("the removed CNAME to be gone", || {
        raw_get(&server.addr, "/CNAME").0 == 404
    });
}

/// One response read off a kept-alive connection (by its Content-Length): (status, body).
fn read_response(s: &mut TcpStream) -> std::io::Result<(u16, Vec<u8>)> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if s.read(&mut byte)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; len];
    s.read_exact(&mut body)?;
    Ok((status, body))
}

fn connect(addr: &str) -> TcpStream {
    let s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    s
}

/// Whether the server closed `s` (end of stream or reset) within `within`; anything it
/// sends first is skipped.
fn closed_within(s: &mut TcpStream, within: Duration) -> bool {
    s.set_read_timeout(Some(within)).expect("timeout");
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return false
            }
            Err(_) => return true,
        }
    }
}

/// A number of /proc/PID/status: VmRSS and VmHWM (in kB), Threads.
fn proc_status(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .expect("proc status")
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("field in proc status")
}

/// This test process and the server it starts each hold one descriptor a connection.
fn allow_open_files(n: u64) {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: valid resource, pointer to an rlimit.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit), 0);
        if limit.rlim_cur < n {
            limit.rlim_cur = n.min(limit.rlim_max);
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}

#[test]
fn head_is_answered_without_a_body_and_other_methods_get_405() {
    let server = start(false);
    let mut s = connect(&server.addr);
    write!(
        s,
        "HEAD /static/style.css HTTP/1.1\r\nHost: {0}\r\n\r\n",
        server.addr
    )
    .unwrap();
    let mut head = String::new();
    let mut reader = BufReader::new(s.try_clone().unwrap());
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        head.push_str(&line);
        if line == "\r\n" {
            break;
        }
    }
    let lower = head.to_ascii_lowercase();
    assert!(lower.starts_with("http/1.1 200"), "{head}");
    assert!(lower.contains("content-type: text/css"), "{head}");
    assert!(lower.contains("cache-control: no-store"), "{head}");
    let len: usize = lower
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|n| n.trim().parse().ok())
        .expect("HEAD keeps the length");
    assert!(len > 0);
    // No body: the next response on the connection follows at once.
    write!(
        s,
        "GET /static/style.css HTTP/1.1\r\nHost: {0}\r\n\r\n",
        server.addr
    )
    .unwrap();
    let mut next = String::new();
    reader.read_line(&mut next).unwrap();
    assert!(next.starts_with("HTTP/1.1 200"), "{next:?}");

    let mut s = connect(&server.addr);
    write!(
        s,
        "POST / HTTP/1.1\r\nHost: {0}\r\nContent-Length: 0\r\n\r\n",
        server.addr
    )
    .unwrap();
    let (status, _) = read_response(&mut s).unwrap();
    assert_eq!(status, 405);
}

#[test]
fn request_headers_over_64_kb_get_431_and_a_256_mb_one_is_not_read() {
    let server = start(false);
    let pid = server.child.id();
    let request = |header_bytes: usize| {
        let mut s = connect(&server.addr);
        let filler = "a".repeat(header_bytes);
        write!(
            s,
            "GET / HTTP/1.1\r\nHost: {0}\r\nX-Filler: {filler}\r\n\r\n",
            server.addr
        )
        .unwrap();
        read_response(&mut s).map(|(status, _)| status)
    };
    assert_eq!(
        request(60 * 1024).unwrap(),
        200,
        "60 KB is within the bound"
    );
    assert_eq!(request(70 * 1024).unwrap(), 431);

    // 256 MB, streamed: the server answers and closes long before it is all sent.
    let rss_before = proc_status(pid, "VmRSS");
    let mut s = connect(&server.addr);
    let mut writer = s.try_clone().unwrap();
    let send = std::thread::spawn(move || {
        let chunk = vec![b'a'; 64 * 1024];
        let mut sent = 0usize;
        if writer
            .write_all(b"GET / HTTP/1.1\r\nHost: x\r\nX-Filler: ")
            .is_err()
        {
            return sent;
        }
        while sent < 256 << 20 {
            match writer.write(&chunk) {
                Ok(n) => sent += n,
                Err(_) => break,
            }
        }
        sent
    });
    let mut answer = Vec::new();
    let mut buf = [0u8; 1024];
    while let Ok(n) = s.read(&mut buf) {
        if n == 0 {
            break;
        }
        answer.extend_from_slice(&buf[..n]);
    }
    let sent = send.join().unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 431"),
        "answered {answer:?}"
    );
    assert!(
        sent < 64 << 20,
        "the server kept reading: {} MB of the header went out",
        sent >> 20
    );
    let grew_mb = proc_status(pid, "VmHWM").saturating_sub(rss_before) / 1024;
    assert!(grew_mb < 100, "the server grew {grew_mb} MB");
    assert_eq!(raw_get(&server.addr, "/").0, 200, "and goes on serving");
}

#[test]
fn idle_and_slow_connections_are_closed_after_their_timeouts_but_a_waiting_poll_is_not() {
    let server = start_with(
        true,
        &[
            "--test-idle-timeout-ms",
            "500",
            "--test-header-timeout-ms",
            "500",
        ],
    );
    // Connected, never a byte: closed once idle for the timeout, not before.
    let started = Instant::now();
    let mut silent = connect(&server.addr);
    assert!(closed_within(&mut silent, Duration::from_secs(10)));
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(400), "closed after {took:?}");

    // Kept alive after a response, then idle: closed.
    let mut kept = connect(&server.addr);
    write!(kept, "GET / HTTP/1.1\r\nHost: {0}\r\n\r\n", server.addr).unwrap();
    assert_eq!(read_response(&mut kept).unwrap().0, 200);
    assert!(closed_within(&mut kept, Duration::from_secs(10)));

    // A header trickled a byte at a time: never idle, but never complete, and closed
    // when its time is up while it is still being sent.
    let mut slow = connect(&server.addr);
    let started = Instant::now();
    write!(slow, "GET / HTTP/1.1\r\nX-Slow: ").unwrap();
    let mut closed = false;
    while started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(100));
        if slow.write_all(b"a").is_err() || closed_within(&mut slow, Duration::from_millis(1)) {
            closed = true;
            break;
        }
    }
    assert!(closed, "a trickled header kept its connection");

    // A live-reload poll waits past the idle timeout and still gets its answer.
    edit_during_a_poll(
        &server,
        "/terms/warp-scheduler/",
        Duration::from_millis(1500),
    );
}

/// Hostile files appearing while serve runs (issue 37): a content file named with a
/// zero-width space, and an experiment parameter nested 20,000 parentheses deep (a stack
/// overflow before). Each is a failed rebuild the browser shows, naming the file; the
/// server goes on, and serves the site again once the file is gone.
#[test]
fn a_hostile_file_appearing_is_a_failed_rebuild_and_serve_goes_on() {
    let mut server = start(false);
    let experiment = server
        .root
        .join("measurements/fixture-sweep/experiment.yaml");
    let good = read(&experiment);
    let deep = format!("{}1048576{}", "(".repeat(20_000), ")".repeat(20_000));
    let named = server.root.join("content/terms/a\u{200B}b.md");
    // (what serve must say, how to make the hostile file, how to take it away)
    type Case<'a> = (&'a str, Box<dyn Fn() + 'a>, Box<dyn Fn() + 'a>);
    let cases: [Case; 2] = [
        (
            "the name holds U+200B",
            Box::new(|| {
                std::fs::write(&named, "---\ntitle: T\nsummary: S\n---\nBody.\n").expect("write")
            }),
            Box::new(|| std::fs::remove_file(&named).expect("remove")),
        ),
        (
            "the expression nests too deep",
            Box::new(|| {
                let text = good.replace("{n: 1048576,", &format!("{{n: \"{deep}\","));
                std::fs::write(&experiment, text).expect("write")
            }),
            Box::new(|| std::fs::write(&experiment, &good).expect("restore")),
        ),
    ];
    for (message, break_it, mend_it) in cases {
        break_it();
        wait_until(message, || {
            let (_, body) = raw_get(&server.addr, "/");
            body.contains(&message.replace('<', "&lt;").replace('>', "&gt;"))
                || body.contains(message)
        });
        let (_, body) = raw_get(&server.addr, "/");
        // The file's name as the terminal shows it, its invisible character spelled out.
        assert!(!body.contains('\u{200B}'), "{body}");
        assert!(
            server.child.try_wait().expect("wait").is_none(),
            "serve exited"
        );
        mend_it();
        wait_until("the site served again", || {
            let (status, body) = raw_get(&server.addr, "/");
            status == 200 && !body.contains(message)
        });
    }
}

/// A head sent in part and then left: closed when the head's time is up (10 s by default,
/// 500 ms here), not at the longer idle timeout the connection's timer was asleep toward.
#[test]
fn an_incomplete_head_is_closed_at_the_head_timeout_not_the_idle_one() {
    let server = start_with(
        false,
        &[
            "--test-idle-timeout-ms",
            "6000",
            "--test-header-timeout-ms",
            "500",
        ],
    );
    let mut partial = connect(&server.addr);
    let started = Instant::now();
    write!(partial, "GET / HTTP/1.1\r\nHost: {0}\r\n", server.addr).unwrap();
    assert!(
        closed_within(&mut partial, Duration::from_secs(4)),
        "still open after {:?}: timed as idle",
        started.elapsed()
    );
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(400), "closed after {took:?}");
}

#[test]
fn connections_past_the_bound_are_closed_at_once_and_served_again_when_one_frees() {
    let bound = 20;
    let server = start_with(false, &["--test-max-connections", &bound.to_string()]);
    // Each answered once, so the server holds all of them.
    let mut held: Vec<TcpStream> = (0..bound)
        .map(|_| {
            let mut s = connect(&server.addr);
            write!(s, "GET / HTTP/1.1\r\nHost: {0}\r\n\r\n", server.addr).unwrap();
            assert_eq!(read_response(&mut s).unwrap().0, 200);
            s
        })
        .collect();
    for _ in 0..5 {
        let mut extra = connect(&server.addr);
        let _ = write!(extra, "GET / HTTP/1.1\r\nHost: {0}\r\n\r\n", server.addr);
        let started = Instant::now();
        match read_response(&mut extra) {
            Ok((status, _)) => assert_eq!(status, 503, "past the bound"),
            Err(e) => assert!(
                !matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ),
                "left waiting: {e}"
            ),
        }
        assert!(closed_within(&mut extra, Duration::from_secs(5)));
        assert!(started.elapsed() < Duration::from_secs(5));
    }
    // The held ones are still served.
    write!(held[0], "GET / HTTP/1.1\r\nHost: {0}\r\n\r\n", server.addr).unwrap();
    assert_eq!(read_response(&mut held[0]).unwrap().0, 200);
    held.pop();
    wait_until("a freed place to be served", || {
        // Refused (503, or reset) until the server has seen the close.
        let mut s = connect(&server.addr);
        write!(s, "GET / HTTP/1.1\r\nHost: {0}\r\n\r\n", server.addr).is_ok()
            && read_response(&mut s).is_ok_and(|(status, _)| status == 200)
    });
}

#[test]
fn a_get_is_answered_while_a_thousand_idle_connections_are_open() {
    let idle = 1000;
    allow_open_files(4096);
    let server = start(false);
    let pid = server.child.id();
    let open: Vec<TcpStream> = (0..idle).map(|_| connect(&server.addr)).collect();
    let fds = || std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |d| d.count());
    wait_until("the server to hold the idle connections", || fds() >= idle);
    let (status, body) = raw_get(&server.addr, "/");
    assert_eq!(status, 200);
    assert!(body.contains("Fixture Glossary"));
    assert!(fds() >= idle, "the idle connections are still open");
    drop(open);
}

#[test]
fn waiting_live_reload_polls_take_no_thread_each() {
    let polls = 300;
    allow_open_files(4096);
    let server = start(false);
    let pid = server.child.id();
    let threads = || proc_status(pid, "Threads");
    let before = threads();
    let (_, body) = raw_get(&server.addr, "/");
    let generation = served_generation(&body);
    let waiting: Vec<TcpStream> = (0..polls)
        .map(|_| {
            let mut s = connect(&server.addr);
            write!(
                s,
                "GET /__livereload?since={generation}&page=index.html HTTP/1.1\r\nHost: {0}\r\n\r\n",
                server.addr
            )
            .unwrap();
            s
        })
        .collect();
    let fds = || std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |d| d.count());
    wait_until("the server to hold the polls", || fds() >= polls);
    // Give a thread-per-request server time to have started its threads.
    std::thread::sleep(Duration::from_millis(300));
    let during = threads();
    assert!(
        during < before + 10,
        "{polls} waiting polls: {before} threads before, {during} during"
    );
    assert_eq!(raw_get(&server.addr, "/").0, 200);
    drop(waiting);
}

/// The site generation a served page carries (its live-reload script's `data-served`).
/// Start a live-reload poll from `page`'s generation, wait `before_edit`, then edit the
/// warp-scheduler entry ("Each cycle" -> "Every single cycle"): the poll must answer 200
/// with a new generation.
fn edit_during_a_poll(server: &Server, page: &str, before_edit: Duration) {
    let (_, body) = raw_get(&server.addr, page);
    let generation = served_generation(&body);
    let addr = server.addr.clone();
    let poll =
        std::thread::spawn(move || raw_get(&addr, &format!("/__livereload?since={generation}")));
    std::thread::sleep(before_edit);
    let entry = server.root.join("content/terms/warp-scheduler.md");
    let good = read(&entry);
    assert!(good.contains("Each cycle"), "the fixture's text to edit");
    std::fs::write(&entry, good.replace("Each cycle", "Every single cycle")).expect("edit");
    let (status, answer) = poll.join().expect("poll thread");
    assert_eq!(status, 200);
    assert_ne!(answer.trim(), generation.to_string());
}

fn served_generation(body: &str) -> u64 {
    body.split("data-served=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .and_then(|n| n.parse().ok())
        .expect("served generation")
}
