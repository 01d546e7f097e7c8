//! A reproduce bundle, as `glossary reproduce` reads one it fetched: parsed, then checked
//! (names, digests, the experiment laid out and loaded, the record and its signature).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Ok(bundle) = glossary::measure::bundle::Bundle::parse("fuzz.json", bytes) else {
        return;
    };
    let Ok(dir) = tempfile::tempdir() else {
        return;
    };
    let _ = bundle.check(dir.path());
});
