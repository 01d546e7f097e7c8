//! The editorial review workflow, end to end: `glossary review sign/status/diff` and
//! `glossary build` on a fixture site, asserting on what a signer sees.

mod support;
use support::site as common;

use common::{days_ago, Site, NODE};
use serde_json::Value;

const ENTRY: &str = "terms/occupancy";
const SIGNATURES: &str = "content/reviews/terms/occupancy.yaml";
const PAGE: &str = "site/terms/occupancy/index.html";

/// A site with one term citing one current record.
fn signed_site_fixture() -> Site {
    let site = Site::new("");
    site.experiment("tiny");
    site.record("tiny", &format!("{}T09:30:00Z", days_ago(3)));
    site.term("occupancy", days_ago(20), Some("tiny"));
    site
}

fn status_of(site: &Site, entry: &str) -> Value {
    let r = site.ok(&["review", "status", "--json"]);
    let all: Value = serde_json::from_str(&r.stdout).expect("status --json is JSON");
    all["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .find(|e| e["entry"] == entry)
        .unwrap_or_else(|| panic!("{entry} not in status:\n{}", r.stdout))
        .clone()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|s| s.as_str().expect("string").to_string())
        .collect()
}

/// `review sign occupancy --as ROLE --key KEY` with `person`'s throwaway key.
fn sign(site: &Site, role: &str, person: &str) -> common::Run {
    let key = common::keys::key(person).private;
    site.run(&[
        "review",
        "sign",
        "occupancy",
        "--as",
        role,
        "--key",
        key.to_str().expect("utf-8 path"),
    ])
}

fn edit_body(site: &Site) {
    let path = "content/terms/occupancy.md";
    let text = site.read(path).replace(
        "The second paragraph.",
        "The second paragraph, now rewritten.",
    );
    site.write(path, &text);
}

#[test]
fn entry_goes_from_unsigned_to_published_to_changed_and_back() {
    let site = signed_site_fixture();

    // Unsigned: waiting for its author, naming both missing signatures, and no page.
    let s = status_of(&site, ENTRY);
    assert_eq!(s["state"], "waiting_for_author");
    assert_eq!(
        strings(&s["missing"]),
        ["author signature", "reviewer signature"]
    );
    assert_eq!(s["published"], false);
    let b = site.ok(&["build"]);
    assert!(
        b.stdout
            .contains("refused terms/occupancy: no named author"),
        "{b:?}"
    );
    assert!(!site.path(PAGE).exists());

    // The author signs: waiting for a reviewer.
    let r = sign(&site, "author", "author-a");
    assert!(r.ok, "{r:?}");
    assert!(
        r.stdout
            .contains("signed terms/occupancy as author: author-a (author-a) at"),
        "{r:?}"
    );
    let s = status_of(&site, ENTRY);
    assert_eq!(s["state"], "waiting_for_reviewer");
    assert_eq!(s["author"]["name"], "author-a");
    assert_eq!(s["author"]["current"], true);
    assert_eq!(strings(&s["missing"]), ["reviewer signature"]);
    let author_date = s["author"]["date"].as_str().expect("date").to_string();
    // A first review: nothing reviewed yet, so the diff is all of it to read.
    let d = site.ok(&["review", "diff", "occupancy"]).stdout;
    assert!(
        d.starts_with(&format!(
            "terms/occupancy: first review (no reviewer has signed it): all of it, as it is now; its author author-a signed on {author_date}\n"
        )),
        "{d}"
    );
    assert!(d.contains(&site.read("content/terms/occupancy.md")), "{d}");
    assert!(
        d.ends_with("--- unchanged since its author signed it ---\n"),
        "{d}"
    );

    // The reviewer signs: published, and the build publishes it.
    assert!(sign(&site, "reviewer", "reviewer-b").ok);
    let s = status_of(&site, ENTRY);
    assert_eq!(s["state"], "published", "{s}");
    assert!(strings(&s["missing"]).is_empty());
    assert_eq!(s["published"], true);
    let review_date = s["reviewer"]["date"].as_str().expect("date").to_string();
    let table = site.ok(&["review", "status"]).stdout;
    let row = table
        .lines()
        .find(|l| l.starts_with(ENTRY))
        .expect("a row for the entry");
    assert!(row.contains("published"), "{table}");
    assert!(
        row.contains(&format!("reviewer-b {review_date}")),
        "{table}"
    );

    let b = site.ok(&["build"]);
    assert!(b.stdout.contains("published 1, refused 0"), "{b:?}");
    let page = site.read(PAGE);
    assert!(
        page.contains("<dt>Written by</dt><dd>author-a</dd>"),
        "{page}"
    );
    assert!(
        page.contains("<dt>Reviewed by</dt><dd>reviewer-b</dd>"),
        "{page}"
    );
    assert!(
        page.contains(&format!("<dt>Written on</dt><dd>{author_date}</dd>")),
        "{page}"
    );
    // Last checked: the newer of the record's capture (3 days ago) and the source (20).
    assert!(
        page.contains(&format!("<dt>Last checked on</dt><dd>{}</dd>", days_ago(3))),
        "{page}"
    );
    let index = site.read("site/index.html");
    assert!(
        index.contains("href=\"terms/occupancy/index.html\">occupancy</a>"),
        "{index}"
    );

    // The text is edited: waiting for the author again, refused with the reviewer's name and date, page gone.
    edit_body(&site);
    let s = status_of(&site, ENTRY);
    assert_eq!(s["state"], "waiting_for_author");
    assert_eq!(s["reviewer"]["current"], false);
    let missing = strings(&s["missing"]).join("; ");
    assert!(
        missing.contains(&format!(
            "changed since reviewed by reviewer-b on {review_date}"
        )),
        "{missing}"
    );
    let b = site.ok(&["build"]);
    assert!(
        b.stdout.contains(&format!(
            "refused terms/occupancy: changed since reviewed by reviewer-b on {review_date}"
        )),
        "{b:?}"
    );
    assert!(!site.path(PAGE).exists());
    assert!(!site.read("site/index.html").contains("terms/occupancy/"));

    // The diff shows the edit against the text the reviewer signed.
    let d = site.ok(&["review", "diff", "occupancy"]).stdout;
    assert!(
        d.contains(&format!(
            "changes since reviewed by reviewer-b on {review_date}"
        )),
        "{d}"
    );
    assert!(d.contains("\n-The second [-paragraph.-]\n"), "{d}");
    assert!(
        d.contains("\n+The second {+paragraph, now rewritten.+}\n"),
        "{d}"
    );

    // The author re-signs: the reviewer's old signature stays, and the entry waits for it.
    let r = sign(&site, "author", "author-a");
    assert!(r.ok, "{r:?}");
    assert!(
        r.stdout.starts_with("re-signed terms/occupancy as author"),
        "{r:?}"
    );
    assert!(
        r.stdout.contains("the reviewer's signature (reviewer-b on"),
        "{r:?}"
    );
    let s = status_of(&site, ENTRY);
    assert_eq!(s["state"], "waiting_for_reviewer");
    assert_eq!(s["author"]["current"], true);
    assert_eq!(s["reviewer"]["current"], false);
    assert!(
        site.ok(&["build"])
            .stdout
            .contains("changed since reviewed by reviewer-b"),
        "refused until the reviewer re-signs"
    );

    // The reviewer re-signs: published again, with the new text.
    assert!(sign(&site, "reviewer", "reviewer-b").ok);
    assert_eq!(status_of(&site, ENTRY)["state"], "published");
    let b = site.ok(&["build"]);
    assert!(b.stdout.contains("published 1, refused 0"), "{b:?}");
    assert!(site.read(PAGE).contains("now rewritten"));
    let d = site.ok(&["review", "diff", "terms/occupancy"]).stdout;
    assert!(d.contains("unchanged since reviewed by reviewer-b"), "{d}");
}

#[test]
fn re_measured_record_withdraws_naming_its_provenance_and_each_moved_cell() {
    let site = signed_site_fixture();
    assert!(sign(&site, "author", "author-a").ok);
    assert!(sign(&site, "reviewer", "reviewer-b").ok);
    assert_eq!(status_of(&site, ENTRY)["state"], "published");

    // The same record signed again by the node: nothing the page shows moved, still published.
    let record = format!("measurements/tiny/records/{NODE}.json");
    common::keys::sign_record(&site.path(&record), NODE);
    assert_eq!(status_of(&site, ENTRY)["state"], "published");

    // Re-measured with the same numbers: the provenance line under the table shows the new
    // capture time, so the sign-off is withdrawn and the diff names that line, old → new.
    site.record("tiny", &format!("{}T08:00:00Z", days_ago(1)));
    let s = status_of(&site, ENTRY);
    assert_eq!(s["state"], "waiting_for_author", "{s}");
    let d = site.ok(&["review", "diff", "occupancy"]).stdout;
    assert!(d.contains("text: unchanged"), "{d}");
    let provenance = d
        .lines()
        .find(|l| l.starts_with(&format!("table 1 (tiny/{NODE}) provenance, node {NODE}: ")))
        .unwrap_or_else(|| panic!("no provenance line in\n{d}"));
    assert!(
        provenance.contains(&format!("captured {} 09:30 UTC", days_ago(3)))
            && provenance.contains(" → "),
        "{provenance}"
    );
    assert!(
        provenance.ends_with(&format!(
            "captured {} 08:00 UTC by glossary fixture",
            days_ago(1)
        )),
        "{provenance}"
    );
    assert!(sign(&site, "author", "author-a").ok);
    assert!(sign(&site, "reviewer", "reviewer-b").ok);
    let s = status_of(&site, ENTRY);
    assert_eq!(s["state"], "published");
    let review_date = s["reviewer"]["date"].as_str().expect("date").to_string();

    // Re-measured, and a cell the table shows moved: changed, the build's refusal names
    // the cell, and the diff shows it old → new.
    let text = site
        .read(&record)
        .replace("\"block_size\": 256", "\"block_size\": 512");
    site.write(&record, &text);
    common::keys::sign_record(&site.path(&record), NODE);
    let s = status_of(&site, ENTRY);
    assert_eq!(s["state"], "waiting_for_author", "{s}");
    let b = site.ok(&["build"]);
    assert!(
        b.stdout.contains(&format!(
            "refused terms/occupancy: changed since reviewed by reviewer-b on {review_date} (table 1 (tiny/{NODE}) row b256, column 2 block size (threads) changed; `glossary review diff` shows how)"
        )),
        "{b:?}"
    );
    let d = site.ok(&["review", "diff", "occupancy"]).stdout;
    assert!(d.contains("text: unchanged"), "{d}");
    assert!(
        d.contains(&format!("table 1 (tiny/{NODE}) row b256, ")) && d.contains(": 256 → 512"),
        "{d}"
    );
}

#[test]
fn self_review_is_refused_whatever_the_name() {
    let site = signed_site_fixture();
    assert!(sign(&site, "author", "author-a").ok);
    let before = site.read(SIGNATURES);
    // The key decides who signs: author-a's key cannot review what author-a wrote.
    let r = sign(&site, "reviewer", "author-a");
    assert!(!r.ok, "author-a was allowed to review:\n{r:?}");
    assert!(r.stderr.contains("as its author on"), "{r:?}");
    assert_eq!(site.read(SIGNATURES), before, "the refusal wrote nothing");
    assert_eq!(status_of(&site, ENTRY)["state"], "waiting_for_reviewer");

    // The same key registered under a second, differently spelled name is refused at load,
    // naming both entries; nothing is signed.
    let key = common::keys::key("author-a").public;
    let people = site.read("content/people.toml");
    site.write(
        "content/people.toml",
        &format!("{people}[[person]]\nid = \"a-second-name\"\nname = \"A. Author\"\nkeys = [\"{key}\"]\n"),
    );
    let r = sign(&site, "reviewer", "author-a");
    assert!(!r.ok, "{r:?}");
    assert!(
        r.stderr
            .contains("is registered to both `author-a` and `a-second-name`"),
        "{r:?}"
    );
    assert_eq!(site.read(SIGNATURES), before);
    site.write("content/people.toml", &people);

    // The other way round: the reviewer may not become the author.
    assert!(sign(&site, "reviewer", "reviewer-b").ok);
    let r = sign(&site, "author", "reviewer-b");
    assert!(!r.ok, "{r:?}");
    assert!(r.stderr.contains("as its reviewer on"), "{r:?}");
    assert_eq!(status_of(&site, ENTRY)["author"]["name"], "author-a");
}

#[test]
fn signing_key_defaults_to_git_signingkey_and_must_be_registered() {
    let site = signed_site_fixture();
    // No --key, no git setting anywhere: a clear error, and no signature file.
    let r = site.run(&["review", "sign", "occupancy", "--as", "author"]);
    assert!(!r.ok, "{r:?}");
    assert!(
        r.stderr.contains("no signing key: pass --key FILE"),
        "{r:?}"
    );
    assert!(!site.path(SIGNATURES).exists());

    // A key nobody registered signs nothing.
    let stranger = common::keys::key("unregistered-person").private;
    let r = site.run(&[
        "review",
        "sign",
        "occupancy",
        "--as",
        "author",
        "--key",
        stranger.to_str().expect("utf-8"),
    ]);
    assert!(!r.ok, "{r:?}");
    assert!(r.stderr.contains("is not registered to anyone in"), "{r:?}");
    assert!(!site.path(SIGNATURES).exists());

    // git's user.signingkey in the site's repository is used (the public half, as git
    // users set it; the private half sits beside it).
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(site.root())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", site.root())
            .status()
            .expect("git runs")
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "--quiet"]);
    let public = common::keys::key("author-a").private.with_extension("pub");
    git(&["config", "user.signingkey", public.to_str().expect("utf-8")]);
    let r = site.ok(&["review", "sign", "occupancy", "--as", "author"]);
    assert!(
        r.stdout.contains("as author: author-a (author-a) at"),
        "{r:?}"
    );
}

#[test]
fn bare_slug_used_by_two_kinds_asks_which() {
    let site = signed_site_fixture();
    site.write(
        "content/lessons/occupancy.md",
        "---\ntitle: Occupancy, the lesson\nsummary: A lesson.\nday: 1\n---\nBody.\n",
    );
    let r = sign(&site, "author", "author-a");
    assert!(!r.ok, "{r:?}");
    assert!(r.stderr.contains("e.g. `terms/occupancy`"), "{r:?}");
    assert!(r.stderr.contains("lessons/occupancy"), "{r:?}");
    let key = common::keys::key("author-a").private;
    let key = key.to_str().expect("utf-8");
    site.ok(&[
        "review",
        "sign",
        "lessons/occupancy",
        "--as",
        "author",
        "--key",
        key,
    ]);
    assert!(site
        .path("content/reviews/lessons/occupancy.yaml")
        .is_file());
    assert!(!site.path(SIGNATURES).exists());

    let r = site.run(&["review", "sign", "warp", "--as", "author", "--key", key]);
    assert!(!r.ok && r.stderr.contains("no entry `warp`"), "{r:?}");
}

#[test]
fn diff_without_any_signature_says_so() {
    let site = signed_site_fixture();
    let r = site.run(&["review", "diff", "occupancy"]);
    assert!(!r.ok, "{r:?}");
    assert!(
        r.stderr.contains("terms/occupancy has no signature yet"),
        "{r:?}"
    );

    // With only the author's signature, the diff is against the author's text.
    assert!(sign(&site, "author", "author-a").ok);
    edit_body(&site);
    let d = site.ok(&["review", "diff", "occupancy"]).stdout;
    assert!(
        d.contains("changes since signed by its author author-a"),
        "{d}"
    );
    assert!(
        d.contains("+The second {+paragraph, now rewritten.+}"),
        "{d}"
    );
}

#[test]
fn diff_of_a_one_word_edit_is_one_diff_with_the_word_marked() {
    let site = Site::new("");
    site.experiment("tiny");
    site.record("tiny", &format!("{}T09:30:00Z", days_ago(3)));
    let path = "content/terms/occupancy.md";
    site.write(
        path,
        &format!(
            "---\ntitle: What is occupancy?\nname: occupancy\nsummary: A term.\n\
             measured:\n  - experiment: tiny\n    node: {NODE}\n    rows: [b256]\n    columns: [label, block_size]\n\
             ---\nBlocks of {{{{ value(row=\"b256\", column=\"block_size\") }}}} threads.\n\n\
             A paragraph with one word to change.\n"
        ),
    );
    assert!(sign(&site, "author", "author-a").ok);
    assert!(sign(&site, "reviewer", "reviewer-b").ok);
    site.write(path, &site.read(path).replace("one word", "a word"));

    let d = site.ok(&["review", "diff", "occupancy"]).stdout;
    assert!(
        d.contains("\n-A paragraph with [-one-] word to change.\n+A paragraph with {+a+} word to change.\n"),
        "{d}"
    );
    // The body as shown changed on that line only: its diff would repeat the paragraph.
    assert_eq!(d.matches("word to change").count(), 2, "{d}");
    assert!(!d.contains("body as shown"), "{d}");

    // A number that moves where the text did not is shown as the page shows it.
    let record = format!("measurements/tiny/records/{NODE}.json");
    let text = site
        .read(&record)
        .replace("\"block_size\": 256", "\"block_size\": 512");
    site.write(&record, &text);
    common::keys::sign_record(&site.path(&record), NODE);
    let d = site.ok(&["review", "diff", "occupancy"]).stdout;
    assert!(d.contains("--- body as shown as signed"), "{d}");
    assert!(
        d.contains("\n-Blocks of [-256-] threads.\n+Blocks of {+512+} threads.\n"),
        "{d}"
    );
}

/// `review sign --all-waiting --as ROLE` with `person`'s key.
fn sign_all_waiting(site: &Site, role: &str, person: &str) -> common::Run {
    let key = common::keys::key(person).private;
    site.run(&[
        "review",
        "sign",
        "--all-waiting",
        "--as",
        role,
        "--key",
        key.to_str().expect("utf-8 path"),
    ])
}

#[test]
fn all_waiting_signs_what_status_says_waits_for_that_role() {
    let site = signed_site_fixture();
    site.term("warp", days_ago(20), None);
    let table = site.ok(&["review", "status"]).stdout;
    let state = |entry: &str| status_of(&site, entry)["state"].clone();
    assert_eq!(state("terms/warp"), "waiting_for_author");
    assert!(
        table.contains("0 published, 2 waiting for author, 0 waiting for reviewer"),
        "{table}"
    );

    // Nothing waits for a reviewer yet: the reviewer's --all-waiting signs nothing.
    let r = sign_all_waiting(&site, "reviewer", "reviewer-b");
    assert!(r.ok && r.stdout.contains("nothing to sign"), "{r:?}");

    // The author signs one entry; the reviewer's --all-waiting signs exactly that one.
    assert!(sign(&site, "author", "author-a").ok);
    assert_eq!(state(ENTRY), "waiting_for_reviewer");
    let table = site.ok(&["review", "status"]).stdout;
    let row = table.lines().find(|l| l.starts_with(ENTRY)).unwrap();
    assert!(row.contains("waiting for reviewer"), "{table}");
    let r = sign_all_waiting(&site, "reviewer", "reviewer-b");
    assert!(r.ok, "{r:?}");
    assert!(
        r.stdout.contains("signed terms/occupancy as reviewer"),
        "{r:?}"
    );
    assert!(!r.stdout.contains("terms/warp"), "{r:?}");
    assert_eq!(state(ENTRY), "published");
    assert_eq!(state("terms/warp"), "waiting_for_author");

    // The author's --all-waiting signs the entry that waits for its author.
    let r = sign_all_waiting(&site, "author", "author-a");
    assert!(r.ok, "{r:?}");
    assert!(r.stdout.contains("signed terms/warp as author"), "{r:?}");
    assert!(!r.stdout.contains("terms/occupancy"), "{r:?}");
    assert_eq!(state("terms/warp"), "waiting_for_reviewer");
}

/// The no-key hint's command, run as written in a project that is not a git repository
/// (the book's first site is not one), makes the next `review sign` work without `--key`.
#[test]
fn the_no_key_hint_works_outside_a_git_repository() {
    let site = signed_site_fixture();
    let r = site.run(&["review", "sign", "occupancy", "--as", "author"]);
    assert!(!r.ok, "{r:?}");
    let in_repo = std::process::Command::new("git")
        .args(["rev-parse", "--git-dir"])
        .current_dir(site.root())
        .output()
        .expect("git runs");
    assert!(
        !in_repo.status.success(),
        "the fixture is inside a git repository"
    );
    // The command between the hint's backticks, with the example key replaced by the
    // author's (the public half; the private half sits beside it).
    let hint = r
        .stderr
        .split('`')
        .find(|part| part.starts_with("git config"))
        .unwrap_or_else(|| panic!("no git command in the hint: {}", r.stderr));
    assert!(hint.contains("~/.ssh/id_ed25519.pub"), "{hint}");
    let public = common::keys::key("author-a").private.with_extension("pub");
    let command = hint.replace("~/.ssh/id_ed25519.pub", public.to_str().expect("utf-8"));
    // With the environment the binary runs under (its own global git config file).
    let env: Vec<(String, String)> = site
        .command(&[])
        .get_envs()
        .filter_map(|(k, v)| Some((k.to_str()?.into(), v?.to_str()?.into())))
        .collect();
    let out = std::process::Command::new("bash")
        .args(["-c", &command])
        .current_dir(site.root())
        .envs(env)
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "`{command}` failed outside a repository: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = site.ok(&["review", "sign", "occupancy", "--as", "author"]);
    assert!(
        r.stdout.contains("as author: author-a (author-a) at"),
        "{r:?}"
    );
}
