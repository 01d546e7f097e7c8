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
