//! Names as a reader sees them (Unicode TS #39 and the Unicode identifier rules): two
//! spellings that a reader cannot tell apart must never count as two people (the gate), nor
//! as two names of entries (the A-Z index and search, `content::validate`).
//!
//! Two rules, one place each. People (`trust::people`): [`person_name_problem`] (an
//! allow-list of characters, scripts mixed no further than UTS #39's moderately
//! restrictive level) and no two names alike by [`canonical_name`] or [`skeleton`], ASCII
//! pairs included ("AIice" and "Alice" are one name: that is the attack). Entry names and
//! aliases (`content::validate::check_aliases`): the same [`spelling`] and [`skeleton`],
//! but two ASCII spellings are never look-alikes there ("modem" and "modern" are two terms).
//!
//! The Unicode work is done by maintained crates (`unicode-normalization`, `caseless`,
//! `unicode-security`), not by a hand-kept list of suspicious characters.

use unicode_normalization::UnicodeNormalization;
use unicode_script::{Script, UnicodeScript};
use unicode_security::general_security_profile::{GeneralSecurityProfile, IdentifierType};
use unicode_security::{RestrictionLevel, RestrictionLevelDetection};

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

/// What two names are compared by to tell whether a reader could take one for the other:
/// the UTS #39 confusable skeleton of the name as written (`skeleton(X)` =
/// NFD, default-ignorables removed, each character to its prototype, NFD: the crate's
/// `unicode_security::skeleton`), then case-folded (and NFKC, white space collapsed) so two
/// skeletons are compared case aside. Taking the skeleton first matters: capital I (U+0049)
/// has the prototype `l`, so "AIice" and "Alice" share one, which folding "AIice" to
/// "aiice" first would hide. "Аuthor" with a Cyrillic А and "Author" share one too.
pub fn skeleton(name: &str) -> String {
    let skel: String = unicode_security::skeleton(name).collect();
    let folded: String = caseless::default_case_fold_str(&skel).nfkc().collect();
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A person's name as a reader skimming a byline takes it, past what UTS #39 lists:
/// transliterated to ASCII (`deunicode`: "Reʋiewer", "Boɓ", "Rɛviewer" to plain letters),
/// lower case, every space and punctuation mark dropped ("Bob-Reviewer", "BobReviewer"),
/// letters a reader confuses taken as one (`i` and `1` as `l`, `0` as `o`, a turned `ǝ`,
/// which transliterates to `@`, as `e`), and the pairs that draw as one letter folded
/// (`w` as `vv`, `m` as `rn`, `d` as `cl`). Two people whose names agree here are refused
/// as one name (`trust::people`); the refusal names both, so a real second person with a
/// near name can be told apart in the registry, which is better than a look-alike signing.
///
/// Only for names in the Latin script (with common marks and punctuation): None for any
/// other, whose transliteration would take two different names for one (two Chinese
/// names of one reading); look-alikes across scripts are UTS #39's ([`skeleton`]).
pub fn ascii_fold(name: &str) -> Option<String> {
    let latin = name.chars().all(|c| {
        matches!(
            c.script(),
            Script::Latin | Script::Common | Script::Inherited
        )
    });
    if !latin {
        return None;
    }
    let ascii = deunicode::deunicode_with_tofu(name, "?").to_ascii_lowercase();
    let letters: String = ascii
        .chars()
        .filter_map(|c| match c {
            'i' | '1' | '|' => Some('l'),
            '0' => Some('o'),
            '@' => Some('e'),
            'a'..='z' | '2'..='9' => Some(c),
            _ => None,
        })
        .collect();
    // Each single letter spelled as the pair it looks like, not the pairs folded into
    // letters: expanding is the same whatever the order ("vw" and "wv" are both "vvv"),
    // folding is not ("vvv" would fold to "wv").
    Some(
        letters
            .replace('w', "vv")
            .replace('m', "rn")
            .replace('d', "cl"),
    )
}

/// [`skeleton`] of a person's name with what a reader easily overlooks taken out first:
/// combining marks (NFD, then every mark dropped: "Bob\u{0323}" with a dot below is "Bob"),
/// punctuation and spaces at either end ("Bob Reviewer." is "Bob Reviewer"), and repeated
/// spaces. Two people whose names agree here are one name to a reader skimming a byline,
/// so the registry refuses the second (`trust::people`). Names that differ only so are
/// rare among real people, and the refusal names both, so the second can be told apart.
pub fn folded_skeleton(name: &str) -> String {
    let bare: String = name
        .nfd()
        .filter(|&c| !unicode_normalization::char::is_combining_mark(c))
        .collect();
    let trimmed = bare.trim_matches(|c: char| !c.is_alphanumeric());
    let spaced = trimmed.split_whitespace().collect::<Vec<_>>().join(" ");
    skeleton(&spaced)
}

/// Punctuation a person's name may hold besides letters, marks and digits: the space
/// between its parts, hyphen, apostrophe (ASCII and typographic), period, comma.
const NAME_PUNCTUATION: [char; 6] = [' ', '-', '\'', '\u{2019}', '.', ','];

fn is_private_use(c: char) -> bool {
    matches!(c, '\u{E000}'..='\u{F8FF}' | '\u{F0000}'..='\u{FFFFD}' | '\u{100000}'..='\u{10FFFD}')
}

/// Whether a person's name may hold `c` (the allow-list of [`person_name_problem`]).
fn person_name_char(c: char) -> bool {
    NAME_PUNCTUATION.contains(&c)
        || (c.identifier_allowed() && !is_default_ignorable(c) && !c.is_control())
}

/// `name` with the characters [`person_name_problem`] refuses left out: what a refused
/// name is compared by, so the error can name the person it imitates ("Alice\u{E000}"
/// is "Alice" with something a reader may not see).
pub fn person_name_allowed_part(name: &str) -> String {
    name.chars().filter(|&c| person_name_char(c)).collect()
}

/// Why a person's display name (content/people.toml) cannot be used, if it cannot: it must
/// show, to a reader, exactly what it is, in one script as UTS #39 allows. By allow-list:
/// each character is one that UTS #39's General Security Profile allows in identifiers
/// (letters, marks and digits of the scripts in modern use), or [`NAME_PUNCTUATION`];
/// anything else (a blank-looking U+2800 or U+3164, a private-use character, a symbol) is
/// refused, and named. The scripts may mix only as UTS #39's Moderately Restrictive level
/// allows: one script, or Latin with one other that is not Cyrillic or Greek (so "Müller",
/// "Алексей Иванов", "山田 太郎" and "Tanaka 太郎" load, "Аlice" with a Cyrillic А does
/// not). Hidden characters are refused rather than stripped, so a file never holds a name
/// that differs from what its author saw.
pub fn person_name_problem(name: &str) -> Option<String> {
    let mut refused = Vec::new();
    for c in name.chars() {
        let what = if is_bidi_control(c) {
            "a bidirectional control character"
        } else if is_default_ignorable(c) {
            "an invisible character"
        } else if c.is_control() {
            "a control character"
        } else if is_private_use(c) {
            "a private-use character"
        } else if person_name_char(c) {
            continue;
        } else if c.is_whitespace() {
            "a space other than U+0020"
        } else {
            "not a letter, mark or digit that UTS #39 allows in identifiers, nor name punctuation"
        };
        let shown = format!("U+{:04X} ({what})", c as u32);
        if !refused.contains(&shown) {
            refused.push(shown);
        }
    }
    if !refused.is_empty() {
        return Some(format!("holds {}", refused.join(", ")));
    }
    let canonical = canonical_name(name);
    if canonical.is_empty() {
        return Some("is empty once white space and invisible characters are removed".into());
    }
    if !canonical.chars().any(char::is_alphanumeric) {
        return Some("has no letter or digit".into());
    }
    // The restriction level is taken over the letters (its detection calls a string with
    // a space "unrestricted", space not being an identifier character).
    let letters: String = name
        .chars()
        .filter(|c| !NAME_PUNCTUATION.contains(c))
        .collect();
    if letters.as_str().detect_restriction_level() > RestrictionLevel::ModeratelyRestrictive {
        let mut scripts: Vec<&str> = Vec::new();
        for c in letters.chars() {
            let script = c.script();
            if !matches!(script, Script::Common | Script::Inherited | Script::Unknown)
                && !scripts.contains(&script.full_name())
            {
                scripts.push(script.full_name());
            }
        }
        return Some(format!(
            "mixes the scripts {} beyond UTS #39's moderately restrictive level: write a name in one script, or in Latin with one other script that is not Cyrillic or Greek",
            scripts.join(" and ")
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 53: look-alikes UTS #39 does not list fold to one name.
    #[test]
    fn look_alikes_past_uts_39_fold_to_one_name() {
        let bob = ascii_fold("Bob Reviewer").unwrap();
        for twin in [
            "Bob Re\u{028B}iewer",
            "Bo\u{0253} Reviewer",
            "Bob R\u{025B}viewer",
            "Bob R\u{01DD}viewer",
            "Bob Revievver",
            "Bob-Reviewer",
            "BobReviewer",
            "bob reviewer.",
            "B0b Revlewer",
        ] {
            assert_eq!(ascii_fold(twin).as_deref(), Some(bob.as_str()), "{twin}");
        }
        assert_ne!(ascii_fold("Rob Reviewer"), Some(bob));
        assert_eq!(ascii_fold("Barney"), ascii_fold("Bamey"));
        assert_eq!(ascii_fold("李明"), None);
    }

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
            let p = person_name_problem(name).unwrap_or_default();
            assert!(p.contains(what), "{name:?}: {p}");
        }
    }

    #[test]
    fn the_skeleton_is_taken_before_case_folding() {
        // Capital I's prototype is l: "AIice" reads as "Alice".
        assert_eq!(skeleton("AIice Author"), skeleton("Alice Author"));
        assert_eq!(skeleton("AIICE"), skeleton("Allce"));
        // Case aside once skeletons are made ("ALICE" and "alice" are one name by
        // canonical_name; their skeletons differ, as capital I's prototype is l).
        assert_eq!(skeleton("AUTHOR"), skeleton("author"));
        assert_ne!(skeleton("ALICE"), skeleton("alice"));
        assert_eq!(canonical_name("ALICE"), canonical_name("alice"));
        assert_ne!(skeleton("Alice Author"), skeleton("Alice Auteur"));
    }

    #[test]
    fn blank_looking_and_private_use_characters_are_refused() {
        for (name, what) in [
            ("Alice Author\u{2800}", "U+2800 (not a letter"),
            ("Alice\u{3164}Author", "U+3164"),
            ("\u{115F}Alice", "U+115F"),
            ("Alice\u{1160}", "U+1160"),
            ("Alice\u{FFA0}", "U+FFA0"),
            ("Alice\u{E000}", "U+E000 (a private-use character)"),
            ("Alice\u{F8FF}", "U+F8FF (a private-use character)"),
            ("Alice\u{F0000}", "U+F0000 (a private-use character)"),
            ("Alice\u{10FFFD}", "U+10FFFD (a private-use character)"),
            ("Alice\u{00A0}Author", "U+00A0 (a space other than U+0020)"),
            ("Alice \u{2605}", "U+2605 (not a letter"),
        ] {
            let p = person_name_problem(name).unwrap_or_default();
            assert!(p.contains(what), "{name:?}: {p}");
        }
    }

    #[test]
    fn a_name_mixing_scripts_beyond_moderately_restrictive_is_refused() {
        // A Cyrillic І (U+0406) and a Cyrillic А among Latin letters; Greek with Latin.
        for name in [
            "\u{0406}van Author",
            "\u{0410}lice Author",
            "Alexei \u{0418}\u{0432}\u{0430}\u{043d}\u{043e}\u{0432}",
            "\u{03b1}lice",
        ] {
            let p = person_name_problem(name).unwrap_or_default();
            assert!(p.contains("moderately restrictive"), "{name:?}: {p}");
        }
        let p = person_name_problem("\u{0406}van").unwrap();
        assert!(
            p.contains("Latin and Cyrillic") || p.contains("Cyrillic and Latin"),
            "{p}"
        );
        // One script each, or Latin with Han/Kana: allowed.
        for name in [
            "\u{0410}\u{043b}\u{0435}\u{043a}\u{0441}\u{0435}\u{0439} \u{0418}\u{0432}\u{0430}\u{043d}\u{043e}\u{0432}",
            "Alexei Ivanov",
            "\u{5c71}\u{7530} \u{592a}\u{90ce}",
            "Tanaka \u{592a}\u{90ce}",
            "J\u{00fc}rgen M\u{00fc}ller-L\u{00fc}denscheid",
            "Se\u{00e1}n O\u{2019}Brien, Jr.",
            "D'Angelo",
            "\u{0391}\u{03bd}\u{03bd}\u{03b1}",
        ] {
            assert_eq!(person_name_problem(name), None, "{name:?}");
        }
    }

    #[test]
    fn blank_and_punctuation_only_names_are_refused() {
        assert!(person_name_problem("   ").unwrap().contains("empty"));
        assert!(person_name_problem("\u{200B}\u{200B}").is_some());
        assert!(person_name_problem("-").unwrap().contains("no letter"));
        assert_eq!(person_name_problem("Reviewer B"), None);
        assert_eq!(person_name_problem("José Núñez"), None);
    }
}
