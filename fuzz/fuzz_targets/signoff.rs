//! A sign-off file (`content/reviews/<kind>/<slug>.yaml`), as the gate reads it: the
//! writer's own layout by the fast path, anything else by serde_norway.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(signoff) = glossary::review::read_signature_file(text) {
        // What was read writes back and reads the same (the fast path's promise).
        if let Ok(written) = glossary::review::write_signature_file(&signoff) {
            let again = glossary::review::read_signature_file(&written);
            assert_eq!(again.ok(), Some(signoff), "{written}");
        }
    }
});
