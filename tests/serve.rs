//! `glossary serve` over real TCP: pages with the live-reload script, paths outside the
//! site refused, rebuilds on save, a broken edit shown in the page and recovered from.

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
    let dir = tempfile::tempdir().expect("temp dir");
    small_site(dir.path());
    let root = dir.path().to_path_buf();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_glossary"));
    cmd.args(["serve", "--port", "0", "--root"]).arg(&root);
    if drafts {
        cmd.arg("--drafts");
    }
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
        body.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src &#39;self&#39;; script-src &#39;self&#39;;"),
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
    let (_, body) = raw_get(&server.addr, page);
    let generation: u64 = body
        .split("data-served=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .and_then(|n| n.parse().ok())
        .expect("served generation");

    // A long poll started now must return when the edit lands.
    let addr = server.addr.clone();
    let poll =
        std::thread::spawn(move || raw_get(&addr, &format!("/__livereload?since={generation}")));
    std::thread::sleep(Duration::from_millis(200));
    let entry = server.root.join("content/terms/warp-scheduler.md");
    let good = read(&entry);
    std::fs::write(&entry, good.replace("Each cycle", "Every single cycle")).expect("edit");
    let (status, answer) = poll.join().expect("poll thread");
    assert_eq!(status, 200);
    assert_ne!(answer.trim(), generation.to_string());
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
    std::fs::write(&entry, good.replace("Each cycle", "Every single cycle")).expect("edit");
    wait_until("the withdrawn page to be served with its banner", || {
        let (status, body) = raw_get(&server.addr, page);
        status == 200 && body.contains("withdrawn-banner") && body.contains("Every single cycle")
    });
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
}
