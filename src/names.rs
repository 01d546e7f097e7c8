//! Names as a reader sees them (Unicode TS #39 and the Unicode identifier rules): two
//! spellings that a reader cannot tell apart must never count as two people (the gate), nor
//! as two names of entries (the A-Z index and search, `content::validate`).
//!
//! The Unicode work is done by maintained crates (`unicode-normalization`, `caseless`,
//! `unicode-security`), not by a hand-kept list of suspicious characters.

use unicode_normalization::UnicodeNormalization;
use unicode_security::general_security_profile::{GeneralSecurityProfile, IdentifierType};

/// Whether `c` is a default-ignorable code point (zero-width space and joiners, soft hyphen,
/// BOM, bidi marks and overrides, variation selectors, ...): drawn as nothing.
pub fn is_default_ignorable(c: char) -> bool {
    c.identifier_type() == Some(IdentifierType::Default_Ignorable)
}

/// Explicit bidirectional formatting characters (UAX #9): they reorder what is shown.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// The comparison form: default-ignorable code points removed, NFKC, full case folding,
/// NFKC again (folding can denormalize), white space collapsed and trimmed.
/// "Author One", "AUTHOR  ONE", "Ａｕｔｈｏｒ Ｏｎｅ" and "Author\u{200B} One" agree.
pub fn canonical_name(name: &str) -> String {
    let visible: String = name.chars().filter(|c| !is_default_ignorable(*c)).collect();
    spelling(&visible)
}

/// [`canonical_name`] with the invisible characters kept: what case, width and white space
/// do not change. "SM" and "ｓｍ" are one spelling; "S\u{200B}M" is another, which looks
/// the same ([`skeleton`]).
pub fn spelling(name: &str) -> String {
    // ASCII is its own NFKC form and folds to its lower case: the same result, without the
    // normalizer's work, for the names most sites have (every entry's, at each build).
    if name.is_ascii() {
        let lower = name.to_ascii_lowercase();
        return lower.split_whitespace().collect::<Vec<_>>().join(" ");
    }
    let nfkc: String = name.nfkc().collect();
    let folded: String = caseless::default_case_fold_str(&nfkc).nfkc().collect();
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The UTS #39 confusable skeleton of the canonical form: "Аuthor" with a Cyrillic А and
/// "Author" share one.
pub fn skeleton(name: &str) -> String {
    let canonical = canonical_name(name);
    let skel: String = unicode_security::skeleton(&canonical).collect();
    // The skeleton of a case-folded string may hold capitals again (prototypes are mixed
    // case); fold once more so case never separates two skeletons.
    caseless::default_case_fold_str(&skel)
}

/// Why a display name cannot be used, if it cannot: it must show, to a reader, exactly what
/// it is. Hidden characters are refused rather than stripped, so a file never holds a name
/// that differs from what its author saw.
pub fn name_problem(name: &str) -> Option<String> {
    let mut hidden = Vec::new();
    for c in name.chars() {
        let what = if is_bidi_control(c) {
            "a bidirectional control character"
        } else if is_default_ignorable(c) {
            "an invisible character"
        } else if c.is_control() {
            "a control character"
        } else {
            continue;
        };
        hidden.push(format!("U+{:04X} ({what})", c as u32));
    }
    if !hidden.is_empty() {
        hidden.dedup();
        return Some(format!("holds {}", hidden.join(", ")));
    }
    let canonical = canonical_name(name);
    if canonical.is_empty() {
        return Some("is empty once white space and invisible characters are removed".into());
    }
    if !canonical.chars().any(char::is_alphanumeric) {
        return Some("has no letter or digit".into());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spelling_of_ascii_is_the_normalized_path() {
        // The fast path against the general one (NFKC, case fold, NFKC, white space).
        for name in [
            "SM",
            "  Warp   Group ",
            "l2\tcache",
            "A\x0bB",
            "MiXeD 42 _-.",
            "",
        ] {
            let general: String = {
                let nfkc: String = name.nfkc().collect();
                let folded: String = caseless::default_case_fold_str(&nfkc).nfkc().collect();
                folded.split_whitespace().collect::<Vec<_>>().join(" ")
            };
            assert_eq!(spelling(name), general, "{name:?}");
        }
        assert_eq!(spelling("ＳＭ"), "sm");
        assert_ne!(spelling("S\u{200B}M"), "sm");
        assert_eq!(skeleton("S\u{200B}M"), skeleton("SM"));
        // Why content::validate never takes two ASCII spellings for look-alikes.
        assert_eq!(skeleton("modem"), skeleton("modern"));
    }

    #[test]
    fn spellings_of_one_name_share_a_canonical_form() {
        for other in [
            " author one",
            "AUTHOR ONE",
            "Author\tOne ",
            "Ａｕｔｈｏｒ Ｏｎｅ",
            "Author\u{200B} One",
            "\u{FEFF}Author One",
            "Au\u{00AD}thor One",
        ] {
            assert_eq!(canonical_name(other), "author one", "{other:?}");
        }
        // Full case folding, not lowercasing: ß folds to ss.
        assert_eq!(canonical_name("STRASSE"), canonical_name("straße"));
        assert_eq!(canonical_name("Jos\u{e9}"), canonical_name("JOSE\u{301}"));
    }

    #[test]
    fn confusables_share_a_skeleton() {
        // A Cyrillic А (U+0410) in place of a Latin A.
        assert_eq!(skeleton("\u{0410}uthor One"), skeleton("Author One"));
        assert_eq!(skeleton("rn"), skeleton("m"));
        assert_ne!(skeleton("Author One"), skeleton("Author Two"));
    }

    #[test]
    fn hidden_characters_are_named() {
        for (name, what) in [
            ("A\u{200B}B", "U+200B (an invisible character)"),
            ("A\u{200D}B", "U+200D (an invisible character)"),
            ("A\u{00AD}B", "U+00AD (an invisible character)"),
            ("\u{FEFF}AB", "U+FEFF (an invisible character)"),
            ("A\u{202E}B", "U+202E (a bidirectional control character)"),
            ("A\u{7}B", "U+0007 (a control character)"),
        ] {
            let p = name_problem(name).unwrap_or_default();
            assert!(p.contains(what), "{name:?}: {p}");
        }
    }

    #[test]
    fn blank_and_punctuation_only_names_are_refused() {
        assert!(name_problem("   ").unwrap().contains("empty"));
        assert!(name_problem("\u{200B}\u{200B}").is_some());
        assert!(name_problem("-").unwrap().contains("no letter"));
        assert_eq!(name_problem("Reviewer B"), None);
        assert_eq!(name_problem("José Núñez"), None);
    }
}
