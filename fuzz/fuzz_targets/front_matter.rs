//! A content file: split into front matter and body, the front matter parsed, as every
//! read of an entry does (`content::load`).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let path = Path::new("content/terms/fuzz.md");
    if let Ok(split) = glossary::content::split_front_matter(path, text) {
        let _ = glossary::content::parse_front_matter(path, &split);
    }
});
