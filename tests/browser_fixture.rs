//! Writes the signed fixture sites the browser tests (`tests/browser/`) serve. The
//! signatures must match the digests the build computes, so they are made here, with the
//! library, rather than by the JavaScript tests.

mod support;
use support::signed as common;

fn out_dir(var: &str) -> std::path::PathBuf {
    let Ok(out) = std::env::var(var) else {
        panic!("set {var} to the (empty) folder to write the fixture site into");
    };
    let out = std::path::PathBuf::from(out);
    std::fs::create_dir_all(&out).expect("create fixture folder");
    out
}

#[test]
#[ignore = "a fixture writer for tests/browser/run.sh, not a test"]
fn write_browser_fixture() {
    common::small_site(&out_dir("GLOSSARY_FIXTURE_OUT"));
}

/// The small site plus `tests/fixtures/sites/search` (an entry with the alias "SM" and a
/// summary with inline Markdown, and "SM clock"), every entry but the draft signed.
#[test]
#[ignore = "a fixture writer for tests/browser/run.sh, not a test"]
fn write_search_fixture() {
    let out = out_dir("GLOSSARY_SEARCH_FIXTURE_OUT");
    common::small_site(&out);
    common::copy_dir(
        &common::repo().join("tests/fixtures/sites/search/content"),
        &out.join("content"),
    );
    common::sign_entries(&out, &["terms/unsigned-draft"]);
}

/// `tests/fixtures/sites/imported`, every entry signed (see tests/imported_fixture.rs).
#[test]
#[ignore = "a fixture writer for tests/browser/run.sh, not a test"]
fn write_imported_fixture() {
    common::imported_site(&out_dir("GLOSSARY_IMPORTED_FIXTURE_OUT"));
}

/// Issue 53: the small site with a signed page in `static/` that loads, as scripts and a
/// stylesheet, a signed script, a signed script edited since, and inert files whose bytes
/// are also script (`notes.txt`, `CNAME`): only the signed, unedited one may run.
#[test]
#[ignore = "a fixture writer for tests/browser/run.sh, not a test"]
fn write_static_scripts_fixture() {
    let out = out_dir("GLOSSARY_STATIC_SCRIPTS_FIXTURE_OUT");
    common::small_site(&out);
    // The listeners are a signed script of their own, not inline: `serve`'s header policy
    // runs no inline script.
    let page = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>A signed page</title>\n\
<script src=\"/watch.js\"></script>\n<script src=\"/app.js\"></script>\n<script src=\"/late.js\"></script>\n\
<script src=\"/notes.txt\"></script>\n<script src=\"/CNAME\"></script>\n\
<link rel=\"stylesheet\" href=\"/notes.txt\">\n\
</head><body><p>A signed page.</p></body></html>\n";
    let watch = "window.ran = []; window.blocked = [];\n\
document.addEventListener('securitypolicyviolation', function (e) { window.blocked.push(e.blockedURI); });\n\
window.addEventListener('error', function (e) { if (e instanceof ErrorEvent) window.ran.push('error: ' + e.message); }, true);\n";
    let files = [
        ("page.html", page),
        ("watch.js", watch),
        ("app.js", "window.ran.push('app.js');\n"),
        ("late.js", "window.ran.push('late.js as signed');\n"),
    ];
    let people = glossary::trust::People::load(&out.join("content/people.toml")).unwrap();
    let reviews = out.join("content/reviews");
    let now = chrono::Utc::now();
    std::fs::create_dir_all(out.join("static")).unwrap();
    for (rel, text) in files {
        std::fs::write(out.join("static").join(rel), text).unwrap();
        for (role, person) in [
            (glossary::review::Role::Author, "author-a"),
            (glossary::review::Role::Reviewer, "reviewer-b"),
        ] {
            glossary::review::sign_static(
                &reviews,
                rel,
                text.as_bytes(),
                role,
                people.get(person).unwrap(),
                &support::keys::signer(person),
                now,
            )
            .unwrap();
        }
    }
    // Edited after both signed: the gate leaves it out.
    std::fs::write(
        out.join("static/late.js"),
        "window.ran.push('late.js edited, unsigned');\n",
    )
    .unwrap();
    // Inert by name and content, and script all the same: a ReferenceError and a
    // SyntaxError, were they run.
    std::fs::write(out.join("static/CNAME"), "glossary.test\n").unwrap();
    std::fs::write(out.join("static/notes.txt"), "glossary notes\n").unwrap();
}
