//! Comparing names: the gate must not be fooled by spacing, case or Unicode spelling.

use unicode_normalization::UnicodeNormalization;

/// A name in a canonical form: NFKC-normalized, case-folded, with runs of white space
/// collapsed and the ends trimmed. "Author One", " author  one" and "AUTHOR ONE" agree,
/// as do the composed and decomposed spellings of "José".
pub fn canonical_name(name: &str) -> String {
    let folded: String = name.nfkc().flat_map(char::to_lowercase).collect();
    // Lowercasing can produce decomposed sequences; normalize once more.
    let folded: String = folded.nfkc().collect();
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether a name is present at all once spacing is ignored.
pub fn is_named(name: &str) -> bool {
    !canonical_name(name).is_empty()
}

pub fn same_person(a: &str, b: &str) -> bool {
    canonical_name(a) == canonical_name(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_person_in_several_spellings() {
        for other in [
            " author one",
            "AUTHOR ONE",
            "Author\tOne ",
            "author  one",
            "Ａｕｔｈｏｒ Ｏｎｅ",
        ] {
            assert!(same_person("Author One", other), "{other:?}");
        }
        assert!(same_person("Jos\u{e9}", "JOSE\u{301}"));
        assert!(!same_person("Author One", "Author Two"));
    }

    #[test]
    fn blank_is_not_a_name() {
        assert!(!is_named("   "));
        assert!(is_named(" a "));
    }
}
