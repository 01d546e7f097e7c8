//! The book's walkthrough (`docs/src/first-site.md`), run as a new user would run it:
//! its shell blocks and its files (fenced blocks whose info string names one, as in
//! ```` ```toml file=glossary.toml ````), in the chapter's order, as one shell script in an
//! empty folder, with `glossary` on `PATH` and `GLOSSARY_CLONE` at this repository. Nothing
//! is added that the chapter does not show; the assertions after it check that the site
//! holds what the chapter says it holds.

use std::path::Path;
use std::process::Command;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

/// A step of the chapter: a file to write, or shell lines to run.
#[derive(Debug)]
enum Step {
    File { path: String, text: String },
    Shell(String),
}

/// The chapter's steps, in order: fenced blocks marked with `file=PATH`, and `sh` blocks.
fn steps(chapter: &str) -> Vec<Step> {
    let mut out = Vec::new();
    let mut current: Option<(Option<String>, String)> = None;
    for event in Parser::new_ext(chapter, Options::empty()) {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                let mut words = info.split_whitespace();
                let lang = words.next().unwrap_or("");
                let file = words
                    .find_map(|w| w.strip_prefix("file="))
                    .map(String::from);
                if file.is_some() || lang == "sh" {
                    current = Some((file, String::new()));
                }
            }
            Event::Text(t) => {
                if let Some((_, text)) = current.as_mut() {
                    text.push_str(&t);
                }
            }
            Event::End(TagEnd::CodeBlock) => match current.take() {
                Some((Some(path), text)) => out.push(Step::File { path, text }),
                Some((None, text)) => out.push(Step::Shell(text)),
                None => {}
            },
            _ => {}
        }
    }
    out
}

/// The steps as one bash script: a file is written with a quoted heredoc (its text
/// exactly, nothing expanded), shell lines run as they are, in one shell so that `cd`
/// carries on as it does for the reader.
fn script(steps: &[Step]) -> String {
    let mut s = String::from("set -euo pipefail\n");
    for step in steps {
        match step {
            Step::File { path, text } => {
                assert!(
                    !text.contains("GLOSSARY_BOOK_EOF"),
                    "{path} holds the heredoc marker"
                );
                s.push_str(&format!(
                    "mkdir -p \"$(dirname '{path}')\"\ncat > '{path}' <<'GLOSSARY_BOOK_EOF'\n{text}GLOSSARY_BOOK_EOF\n"
                ));
            }
            Step::Shell(lines) => {
                s.push_str(lines);
                s.push('\n');
            }
        }
    }
    s
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_first_site_chapter_runs_as_written() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let chapter = read(&repo.join("docs/src/first-site.md"));
    let steps = steps(&chapter);
    // What the chapter promises a new user writes: each kind of file at least once.
    let files: Vec<&str> = steps
        .iter()
        .filter_map(|s| match s {
            Step::File { path, .. } => Some(path.as_str()),
            Step::Shell(_) => None,
        })
        .collect();
    for wanted in [
        "glossary.toml",
        "measurements/scale-variants/experiment.yaml",
        "content/terms/warp.md",
        "content/terms/warp-lanes.svg",
        "content/sections/hardware.md",
        "content/index.md",
    ] {
        assert!(
            files.contains(&wanted),
            "the chapter writes no {wanted}: {files:?}"
        );
    }
    let bin = Path::new(env!("CARGO_BIN_EXE_glossary"));
    let dir = tempfile::tempdir().expect("temp dir");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .arg("-c")
        .arg(script(&steps))
        .current_dir(dir.path())
        .env("PATH", path)
        .env("GLOSSARY_CLONE", repo)
        .output()
        .expect("run bash");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the chapter's steps failed:\n{stdout}\n{stderr}"
    );
    // What the chapter says the reader sees.
    assert!(
        stdout.contains("naive-b128, naive-b256, unrolled-4-b128, unrolled-4-b256"),
        "the dry run's labels:\n{stdout}"
    );
    let site = dir.path().join("gpu-notes/site-drafts");
    let warp = read(&site.join("terms/warp/index.html"));
    assert!(
        warp.contains(
            "<figcaption>One <strong>warp</strong>: 32 lanes that issue together</figcaption>"
        ),
        "{warp}"
    );
    assert!(site.join("media/terms/warp-lanes.svg").is_file());
    let section = read(&site.join("sections/hardware/index.html"));
    let listed = section
        .split("id=\"in-this-section\"")
        .nth(1)
        .expect("the section page lists its terms");
    assert!(
        listed.contains(">warp</a>") && listed.contains("The 32 threads an SM schedules together"),
        "{listed}"
    );
    let home = read(&site.join("index.html"));
    assert!(
        home.contains(
            "Notes from learning CUDA. Start with the <a href=\"terms/warp/index.html\">warp</a>."
        ) && home.find("class=\"body home\"") < home.find("id=\"contents\""),
        "{home}"
    );
    let redirect = read(&site.join("gpu-glossary/device-software/warp/index.html"));
    assert!(
        redirect.contains("url=../../../terms/warp/index.html"),
        "{redirect}"
    );

    // Signed and published, in a project that is not a git repository: the term and the
    // section page each with two signatures.
    let project = dir.path().join("gpu-notes");
    let git = Command::new("git")
        .args(["rev-parse", "--git-dir"])
        .current_dir(&project)
        .output()
        .expect("git runs");
    assert!(
        !git.status.success(),
        "the walkthrough ran inside a git repository"
    );
    let waiting = stdout
        .lines()
        .filter(|l| {
            (l.starts_with("terms/warp ") || l.starts_with("sections/hardware "))
                && l.contains("waiting for reviewer")
        })
        .count();
    assert_eq!(
        waiting, 2,
        "review status after the author signed:\n{stdout}"
    );
    assert!(
        stdout.contains("terms/warp: first review (no reviewer has signed it)"),
        "review diff on a first review:\n{stdout}"
    );
    assert!(stdout.contains("published 2, refused 0"), "{stdout}");
    let published = project.join("site");
    let warp = read(&published.join("terms/warp/index.html"));
    assert!(
        warp.contains("Author A") && warp.contains("Reviewer B"),
        "the byline names both signers:\n{warp}"
    );
    let section = read(&published.join("sections/hardware/index.html"));
    assert!(section.contains(">warp</a>"), "{section}");
    // §7, a second node: its plan lists what it has to measure, its dry run plans the
    // experiment from its profile, `check` calls the citing table stale, and the nodes
    // page says what the node is before its first record.
    assert!(
        stdout.contains("lab-h100  scale-variants")
            && stdout.contains("missing: no record from this node"),
        "the new node's plan:\n{stdout}"
    );
    assert_eq!(
        stdout
            .matches("naive-b128, naive-b256, unrolled-4-b128, unrolled-4-b256")
            .count(),
        2,
        "both nodes' dry runs:\n{stdout}"
    );
    assert!(
        stdout.contains("refused terms/unrolling")
            && stdout.contains("measurement scale-variants/lab-h100: no record at"),
        "check calls the table citing the new node stale:\n{stdout}\n{stderr}"
    );
    assert!(site.join("terms/unrolling/index.html").is_file());
    let nodes = read(&site.join("nodes/index.html"));
    let lab = &nodes[nodes
        .find("id=\"lab-h100\"")
        .expect("the new node's section")..];
    for fact in [
        "NVIDIA H100 80GB HBM3 (<a href=\"https://www.nvidia.com/en-us/data-center/h100/\">datasheet</a>)",
        "<dt>L2</dt><dd>50 MiB</dd>",
        "<dt>Memory</dt><dd>79.6 GiB (85.5 GB)</dd>",
        "<code class=\"fingerprint\">SHA256:",
        "not measured yet",
        "What does unrolling buy?</a> <span class=\"draft-tag\">draft</span>",
    ] {
        assert!(lab.contains(fact), "{fact}:\n{lab}");
    }
    // The private half was made outside the project, and nothing in it holds one.
    assert!(dir.path().join("node-keys/lab-h100_ed25519").is_file());
    assert!(!read(&dir.path().join("gpu-notes/glossary.toml")).contains("PRIVATE KEY"));
}

/// The script is the chapter's text: a file's content arrives byte for byte (a `$` or a
/// backtick is not expanded), and a shell block's lines run in order.
#[test]
fn files_are_written_exactly_and_commands_run_in_order() {
    let chapter = "Text.\n\n```sh\necho one > order\n```\n\n```toml file=a/b.toml\nx = \"$HOME `id`\"\n```\n\n```sh\necho two >> order\n```\n";
    let steps = steps(chapter);
    assert_eq!(steps.len(), 3, "{steps:?}");
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new("bash")
        .arg("-c")
        .arg(script(&steps))
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(read(&dir.path().join("a/b.toml")), "x = \"$HOME `id`\"\n");
    assert_eq!(read(&dir.path().join("order")), "one\ntwo\n");
    // A failing command stops the script, as it would stop the reader.
    let failing = steps_of_failing();
    let out = Command::new("bash")
        .arg("-c")
        .arg(script(&failing))
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(!dir.path().join("after").exists());
}

fn steps_of_failing() -> Vec<Step> {
    steps("```sh\nfalse\ntouch after\n```\n")
}
