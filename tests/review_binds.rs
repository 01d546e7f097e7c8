//! What the sign-off binds, and text that is what it looks like: each test is an attack a
//! hostile contributor tried after both people signed (swap a figure, add its dark
//! variant, point it at `.git/config`, edit a cited Nsight Compute export, re-sign a record
//! with another driver), or text that would show the reviewer something other than what it
//! holds (ESC sequences, a lone CR, bidi overrides, C1 controls). Each must withdraw the
//! entry or be refused, naming what and where.

mod support;
use support::site as common;

use common::{days_ago, Site, NODE};
use glossary::content::{EntryId, Kind};
use glossary::review::Role;
use sha2::Digest as _;

const ENTRY: &str = "content/terms/pictured.md";
const PAGE: &str = "site/terms/pictured/index.html";

fn sha256(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(sha2::Sha256::digest(bytes)))
}

/// Sign `terms/<slug>` as `author-a` and `reviewer-b` over what it shows now.
fn sign_both(site: &Site, slug: &str) {
    let id = EntryId::new(Kind::Term, slug);
    let at = chrono::Utc::now();
    common::keys::sign_as(site.root(), &id, Role::Author, "author-a", at);
    common::keys::sign_as(site.root(), &id, Role::Reviewer, "reviewer-b", at);
}

fn term(body: &str) -> String {
    format!(
        "---\ntitle: What is pictured?\nname: pictured\nsummary: A term with a figure.\n---\n{body}\n"
    )
}

/// A term whose body shows `fig.svg` (beside it), signed by both.
fn pictured_site() -> Site {
    let site = Site::new("");
    site.write(
        ENTRY,
        &term("The first paragraph.\n\n![A small figure](fig.svg)"),
    );
    site.write(
        "content/terms/fig.svg",
        "<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
    );
    sign_both(&site, "pictured");
    let b = site.ok(&["build"]);
    assert!(b.stdout.contains("published 1, refused 0"), "{b:?}");
    site
}

/// The build refuses the entry and names `what` among its changes; the page is gone.
fn assert_withdrawn(site: &Site, what: &str) {
    let b = site.ok(&["build"]);
    assert!(
        b.stdout
            .contains("refused terms/pictured: changed since reviewed by reviewer-b on")
            && b.stdout.contains(what),
        "{what} not named:\n{b:?}"
    );
    assert!(!site.path(PAGE).exists(), "the page is still published");
}

#[test]
fn a_swapped_figure_withdraws_the_entry_and_the_diff_shows_both_digests() {
    let site = pictured_site();
    let old = sha256(site.read("content/terms/fig.svg").as_bytes());
    let swapped = "<svg xmlns=\"http://www.w3.org/2000/svg\"><text>another picture</text></svg>";
    site.write("content/terms/fig.svg", swapped);

    assert_withdrawn(&site, "figure terms/fig.svg changed");
    let d = site.ok(&["review", "diff", "pictured"]).stdout;
    assert!(d.contains("text: unchanged"), "{d}");
    assert!(
        d.contains(&format!(
            "figure terms/fig.svg: {old} → {}\n",
            sha256(swapped.as_bytes())
        )),
        "{d}"
    );
}

#[test]
fn an_added_dark_variant_withdraws_the_entry() {
    let site = pictured_site();
    let dark = "<svg xmlns=\"http://www.w3.org/2000/svg\"><rect/></svg>";
    site.write("content/terms/fig.dark.svg", dark);

    assert_withdrawn(&site, "figure terms/fig.dark.svg changed");
    let d = site.ok(&["review", "diff", "pictured"]).stdout;
    assert!(
        d.contains(&format!(
            "figure terms/fig.dark.svg: (not shown) → {}\n",
            sha256(dark.as_bytes())
        )),
        "{d}"
    );
    // Signed again, the dark variant is published beside the figure.
    sign_both(&site, "pictured");
    site.ok(&["build"]);
    assert!(site.read(PAGE).contains("media/terms/fig.dark.svg"));
}

#[cfg(unix)]
#[test]
fn a_figure_symlinked_to_project_files_outside_content_is_refused_naming_them() {
    for (target, why) in [
        (".git/config", "outside content/ and static/"),
        ("glossary.toml", "outside content/ and static/"),
        // An image, but not one of content/ or static/.
        ("templates/hidden.svg", "outside content/ and static/"),
        // Inside content/, but not an image: the site would publish the registry.
        ("content/people.toml", "which is not an image file"),
    ] {
        let site = Site::new("");
        site.write(".git/config", "[core]\n\trepositoryformatversion = 0\n");
        site.write("templates/hidden.svg", "<svg/>");
        site.write(
            ENTRY,
            &term("The first paragraph.\n\n![A small figure](fig.svg)"),
        );
        std::os::unix::fs::symlink(site.path(target), site.path("content/terms/fig.svg"))
            .expect("symlink");
        let b = site.run(&["build"]);
        assert!(!b.ok, "{target}: built\n{b:?}");
        let real = site.path(target).canonicalize().expect("target exists");
        assert!(
            b.stderr.contains(&format!(
                "{}:8:1: image `fig.svg` is a symlink to {}, {why}",
                site.path(ENTRY).display(),
                real.display()
            )),
            "{target}: {b:?}"
        );
        assert!(!site.path("site/media/terms/fig.svg").exists(), "{target}");
    }
}

/// A term whose body quotes launch 0 of an Nsight Compute export kept under
/// measurements/ (a real export of the repository's fixtures), signed by both.
fn profiled_site() -> Site {
    let site = Site::new("");
    let export = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ncu/day45-h200.csv"),
    )
    .expect("fixture export");
    site.write("measurements/ncu/profiled.csv", &export);
    site.write(
        ENTRY,
        &term("Launch 0 ran {{ ncu(export=\"ncu/profiled.csv\", launch=\"0\", show=\"waves\") }} waves."),
    );
    sign_both(&site, "pictured");
    let b = site.ok(&["build"]);
    assert!(b.stdout.contains("published 1, refused 0"), "{b:?}");
    site
}

#[test]
fn an_edited_ncu_export_withdraws_the_entry_even_where_the_page_shows_no_difference() {
    let site = profiled_site();
    let path = "measurements/ncu/profiled.csv";
    let old = site.read(path);
    // A log line more: the reader skips it, so every number shown is the same, but the
    // export is no longer the one the reviewer signed over.
    let edited = format!("==PROF== Disconnected from process 1\n{old}");
    site.write(path, &edited);

    assert_withdrawn(&site, "ncu export measurements/ncu/profiled.csv changed");
    let d = site.ok(&["review", "diff", "pictured"]).stdout;
    assert!(
        d.contains(&format!(
            "ncu export measurements/ncu/profiled.csv: {} → {}\n",
            sha256(old.as_bytes()),
            sha256(edited.as_bytes())
        )),
        "{d}"
    );
}

/// A term with a measured table of the fixture experiment's record, signed by both.
fn measured_site() -> Site {
    let site = Site::new("");
    site.experiment("tiny");
    site.record("tiny", &format!("{}T09:30:00Z", days_ago(3)));
    site.write(
        ENTRY,
        &format!(
            "---\ntitle: What is pictured?\nname: pictured\nsummary: A measured term.\n\
             measured:\n  - experiment: tiny\n    node: {NODE}\n    rows: [b256]\n    columns: [label, block_size]\n\
             ---\nThe first paragraph.\n"
        ),
    );
    sign_both(&site, "pictured");
    let b = site.ok(&["build"]);
    assert!(b.stdout.contains("published 1, refused 0"), "{b:?}");
    site
}

/// The record rewritten with `from` replaced by `to`, and signed again by the node (as a
/// holder of a swapped node key would).
fn resign_record(site: &Site, from: &str, to: &str) {
    let record = format!("measurements/tiny/records/{NODE}.json");
    let text = site.read(&record);
    assert!(text.contains(from), "{from} not in the record");
    site.write(&record, &text.replace(from, to));
    common::keys::sign_record(&site.path(&record), NODE);
}

#[test]
fn a_record_re_signed_with_another_driver_withdraws_the_entry() {
    let site = measured_site();
    resign_record(
        &site,
        "\"driver_version\": \"fixture\"",
        "\"driver_version\": \"999.99\"",
    );
    let provenance = format!("table 1 (tiny/{NODE}) provenance, node {NODE}");
    assert_withdrawn(&site, &format!("{provenance} changed"));
    let d = site.ok(&["review", "diff", "pictured"]).stdout;
    let line = d
        .lines()
        .find(|l| l.starts_with(&provenance))
        .unwrap_or_else(|| panic!("{d}"));
    assert!(
        line.contains("driver fixture,") && line.contains("driver 999.99,"),
        "{line}"
    );
}

#[test]
fn a_record_re_signed_with_another_capture_time_withdraws_the_entry() {
    let site = measured_site();
    let old = format!("{}T09:30:00Z", days_ago(3));
    let new = format!("{}T09:30:00Z", days_ago(40));
    resign_record(&site, &old, &new);
    assert_withdrawn(
        &site,
        &format!("table 1 (tiny/{NODE}) provenance, node {NODE}"),
    );
    let d = site.ok(&["review", "diff", "pictured"]).stdout;
    assert!(
        d.contains(&format!("captured {} 09:30 UTC", days_ago(40))),
        "{d}"
    );
}

#[test]
fn review_diff_and_status_print_no_raw_control_character() {
    // A record is written by a node, not an author: its fields reach `review diff` as
    // cells. A driver string that would erase the terminal's line must be shown escaped.
    let site = measured_site();
    resign_record(
        &site,
        "\"driver_version\": \"fixture\"",
        "\"driver_version\": \"fixture\\u001b[2K\\rerased \\u202e\\u009b\"",
    );
    let d = site.ok(&["review", "diff", "pictured"]).stdout;
    assert!(
        d.contains("driver fixture<U+001B>[2K<U+000D>erased <U+202E><U+009B>,"),
        "{d}"
    );
    let status = site.ok(&["review", "status"]).stdout;
    let build = site.ok(&["build"]).stdout;
    for (what, out) in [
        ("review diff", &d),
        ("review status", &status),
        ("build", &build),
    ] {
        assert!(
            !out.contains(['\u{1b}', '\r', '\u{202e}', '\u{9b}']),
            "{what} printed a raw control character:\n{out:?}"
        );
    }
}

#[test]
fn a_refusal_quoting_an_escaped_control_character_prints_it_escaped() {
    // A claim's sentence typed with YAML escapes: the file holds none, the sentence does,
    // and the refusal quotes it in `build` and `review status`.
    let site = Site::new("");
    site.experiment("tiny");
    site.record("tiny", &format!("{}T09:30:00Z", days_ago(3)));
    site.write(
        ENTRY,
        &format!(
            "---\ntitle: What is pictured?\nname: pictured\nsummary: A measured term.\n\
             measured:\n  - experiment: tiny\n    node: {NODE}\n    rows: [b256]\n    columns: [label, block_size]\n\
             claims:\n  - says: \"\\e[2K\\rblocks are huge\"\n    column: block_size\n    row: b256\n    above: 100000\n\
             ---\nThe first paragraph.\n"
        ),
    );
    let build = site.ok(&["build"]).stdout;
    let status = site.ok(&["review", "status"]).stdout;
    for (what, out) in [("build", &build), ("review status", &status)] {
        assert!(
            out.contains("claim \"<U+001B>[2K<U+000D>blocks are huge\" is not supported"),
            "{what}:\n{out}"
        );
        assert!(!out.contains(['\u{1b}', '\r']), "{what}: {out:?}");
    }
}

#[test]
fn each_control_character_class_in_an_entry_file_is_an_error_at_its_line_and_column() {
    let site = Site::new("");
    // Front matter and body alike; every one reported in the one run.
    site.write(
        ENTRY,
        "---\r\ntitle: \"What is \u{1b}[8mpictured?\"\r\nname: pictured\nsummary: A term.\n---\n\
         The first line.\u{1b}[2K\rhidden text\nA \u{202e}reversed\u{202c} word.\n\
         An \u{2066}isolate\u{2069}.\nA C1 \u{9b}2K escape.\nCRLF lines are fine.\r\n",
    );
    let b = site.run(&["build"]);
    assert!(!b.ok, "{b:?}");
    let path = site.path(ENTRY).display().to_string();
    for (at, what) in [
        ("2:17", "U+001B, ESC"),
        ("6:16", "U+001B, ESC"),
        (
            "6:20",
            "U+000D, a carriage return not followed by a line feed",
        ),
        ("7:3", "U+202E, a bidirectional override"),
        ("7:12", "U+202C, a bidirectional override"),
        ("8:4", "U+2066, a bidirectional isolate"),
        ("8:12", "U+2069, a bidirectional isolate"),
        ("9:6", "U+009B, a C1 control character"),
    ] {
        assert!(
            b.stderr.contains(&format!("{path}:{at}: {what}")),
            "{at} {what} not reported:\n{}",
            b.stderr
        );
    }
    assert_eq!(
        b.stderr.matches("entry files may not hold").count(),
        8,
        "{}",
        b.stderr
    );
    assert!(
        !b.stderr.contains(['\u{1b}', '\u{202e}', '\u{9b}']),
        "{:?}",
        b.stderr
    );
    assert!(!site.path("site").exists());
}

#[test]
fn an_error_quoting_an_escaped_control_character_prints_it_escaped() {
    // Typed as a YAML escape the file holds no control character, but the value does, and
    // the error about it quotes the value.
    let site = Site::new("");
    site.write(
        ENTRY,
        "---\ntitle: What is pictured?\nname: pictured\nsummary: A term.\nrelated: [\"gone\\e[2K\\r\"]\n---\nBody.\n",
    );
    let b = site.run(&["build"]);
    assert!(!b.ok, "{b:?}");
    assert!(
        b.stderr
            .contains("related term `gone<U+001B>[2K<U+000D>` does not exist"),
        "{:?}",
        b.stderr
    );
    assert!(!b.stderr.contains(['\u{1b}', '\r']), "{:?}", b.stderr);
}
