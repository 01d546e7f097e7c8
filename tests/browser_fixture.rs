//! Writes the signed fixture site the browser tests (`tests/browser/`) serve. The
//! signatures must match the digests the build computes, so they are made here, with the
//! library, rather than by the JavaScript tests.

mod support;
use support::signed as common;

#[test]
#[ignore = "a fixture writer for tests/browser/run.sh, not a test"]
fn write_browser_fixture() {
    let Ok(out) = std::env::var("GLOSSARY_FIXTURE_OUT") else {
        panic!("set GLOSSARY_FIXTURE_OUT to the (empty) folder to write the fixture site into");
    };
    let out = std::path::PathBuf::from(out);
    std::fs::create_dir_all(&out).expect("create fixture folder");
    common::small_site(&out);
}
