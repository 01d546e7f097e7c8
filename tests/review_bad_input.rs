//! Signature files that are wrong are errors naming the file, and are never overwritten;
//! old sources are warnings that `check --strict` turns into errors.

mod support;
use support::site as common;

use common::{days_ago, Site};

const SIGNATURES: &str = "content/reviews/terms/occupancy.yaml";

fn site_with_term() -> Site {
    let site = Site::new("");
    site.term("occupancy", days_ago(10), None);
    site
}

/// Every command that reads signatures fails naming the file, and signing leaves it as is.
/// `named` is how the error names the file (with a line where one is known).
fn assert_named_and_untouched(site: &Site, file: &str, named: &str, what: &str) {
    let before = site.read(file);
    let key = common::keys::key("author-a").private;
    for args in [
        &["review", "status"][..],
        &[
            "review",
            "sign",
            "occupancy",
            "--as",
            "author",
            "--key",
            key.to_str().expect("utf-8 path"),
        ],
        &["review", "diff", "occupancy"],
        &["build"],
        &["check"],
    ] {
        let r = site.run(args);
        assert!(!r.ok, "{args:?} accepted {what}:\n{r:?}");
        assert!(
            r.stderr.contains(named),
            "{args:?} did not name {named}:\n{r:?}"
        );
        assert!(r.stderr.contains(what), "{args:?}: {r:?}");
        assert_eq!(site.read(file), before, "{args:?} changed {file}");
    }
    assert!(!site.path("site").exists(), "a build wrote a site");
}

#[test]
fn unparseable_signature_file_is_named_and_never_overwritten() {
    let site = site_with_term();
    site.write(SIGNATURES, "author: [this is: not a signature\n");
    assert_named_and_untouched(&site, SIGNATURES, SIGNATURES, "signature file");
}

#[test]
fn malformed_date_is_named_with_its_line() {
    let site = site_with_term();
    site.write(
        SIGNATURES,
        "author:\n  person: author-a\n  time: 2026-02-30T10:00:00Z\n  digest: sha256:00\n  signature: x\n",
    );
    assert_named_and_untouched(
        &site,
        SIGNATURES,
        &format!("{SIGNATURES}:3:"),
        "input is out of range",
    );
}

#[test]
fn signature_file_for_unknown_entry_is_named() {
    let site = site_with_term();
    let stray = "content/reviews/terms/no-such-term.yaml";
    site.write(
        stray,
        "author:\n  person: author-a\n  time: 2026-01-01T10:00:00Z\n  digest: sha256:00\n  signature: x\n",
    );
    let r = site.run(&["review", "status"]);
    assert!(!r.ok, "{r:?}");
    assert!(r.stderr.contains(stray), "{r:?}");
    assert!(
        r.stderr.contains("unknown entry `terms/no-such-term`"),
        "{r:?}"
    );
    let r = site.run(&["build"]);
    assert!(!r.ok && r.stderr.contains(stray), "{r:?}");
}

#[test]
fn old_sources_warn_in_status_and_check_and_fail_check_strict() {
    let site = Site::new("");
    site.term("occupancy", days_ago(400), None);
    site.term("warp", days_ago(10), None);
    let warning = format!(
        "source \"A source about occupancy\" was last checked on {}",
        days_ago(400)
    );

    let r = site.ok(&["check"]);
    assert!(
        r.stdout
            .contains(&format!("warning terms/occupancy: {warning}")),
        "{r:?}"
    );
    assert!(!r.stdout.contains("warning terms/warp"), "{r:?}");
    assert!(r.stdout.contains("check passed"), "{r:?}");

    let r = site.run(&["check", "--strict"]);
    assert!(!r.ok, "--strict passed with an old source:\n{r:?}");
    assert!(r.stderr.contains("1 problem(s) under --strict"), "{r:?}");

    let s = site.ok(&["review", "status"]).stdout;
    assert!(s.contains(&format!("warning: {warning}")), "{s}");
    let j: serde_json::Value =
        serde_json::from_str(&site.ok(&["review", "status", "--json"]).stdout).expect("json");
    let warned: Vec<&str> = j["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter(|e| !e["warnings"].as_array().expect("warnings").is_empty())
        .map(|e| e["entry"].as_str().expect("entry"))
        .collect();
    assert_eq!(warned, ["terms/occupancy"]);
}

#[test]
fn source_age_limit_comes_from_glossary_toml() {
    let site = Site::new("[review]\nsource_max_age_days = 500\n");
    site.term("occupancy", days_ago(400), None);
    let r = site.ok(&["check", "--strict"]);
    assert!(!r.stdout.contains("warning"), "{r:?}");

    let site = Site::new("[review]\nsource_max_age_days = 5\n");
    site.term("occupancy", days_ago(10), None);
    let r = site.run(&["check", "--strict"]);
    assert!(!r.ok, "{r:?}");
    assert!(r.stdout.contains("the limit is 5"), "{r:?}");
}

/// An `ssh-ed25519` line holding the identity point (`01 00..00`): a small-order key, for
/// which a signature (R = identity, S = 0) verifies under the non-strict check for any text.
fn small_order_key_line(comment: &str) -> String {
    let mut point = [0u8; 32];
    point[0] = 1;
    ssh_key::PublicKey::new(
        ssh_key::public::KeyData::Ed25519(ssh_key::public::Ed25519PublicKey(point)),
        comment,
    )
    .to_openssh()
    .expect("encodes")
}

#[test]
fn a_small_order_reviewer_key_is_an_error_at_its_line_in_people_toml() {
    let site = site_with_term();
    let author = common::keys::key("author-a").public;
    site.write(
        "content/people.toml",
        &format!(
            "[[person]]\nid = \"author-a\"\nname = \"Author A\"\nkeys = [\"{author}\"]\n\n[[person]]\nid = \"reviewer-b\"\nname = \"Reviewer B\"\nkeys = [\"{}\"]\n",
            small_order_key_line("reviewer-b@laptop")
        ),
    );
    for args in [&["build"][..], &["check"], &["review", "status"]] {
        let r = site.run(args);
        assert!(!r.ok, "{args:?} accepted a small-order key:\n{r:?}");
        assert!(
            r.stderr
                .contains("content/people.toml:9:9: person `reviewer-b`: key SHA256:")
                && r.stderr.contains("small-order (weak) point"),
            "{args:?}: {r:?}"
        );
    }
    assert!(!site.path("site").exists(), "a build wrote a site");
}

#[test]
fn a_small_order_node_key_is_an_error_at_its_line_in_glossary_toml() {
    let site = site_with_term();
    let config = site.read("glossary.toml");
    let (at, line) = config
        .lines()
        .enumerate()
        .find(|(_, l)| l.starts_with("public_key = "))
        .expect("the fixture node's public_key");
    site.write(
        "glossary.toml",
        &config.replace(
            line,
            &format!("public_key = \"{}\"", small_order_key_line("node")),
        ),
    );
    let r = site.run(&["build"]);
    assert!(!r.ok, "a small-order node key was accepted:\n{r:?}");
    let place = format!("glossary.toml:{}:14: [nodes.", at + 1);
    assert!(
        r.stderr.contains(&place) && r.stderr.contains("small-order (weak) point"),
        "{place}: {r:?}"
    );
    assert!(!site.path("site").exists(), "a build wrote a site");
}
