//! The people registry, `content/people.toml`: who may sign, under which name, with which
//! SSH keys. Like git's allowed-signers file, it maps identities to keys; unlike a name
//! typed on the command line, a person here is whoever holds one of their keys.
//!
//! ```toml
//! [[person]]
//! id = "author-a"              # what signature files name
//! name = "Author A"            # the byline
//! keys = ["ssh-ed25519 AAAA... author-a@laptop"]
//! ```
//!
//! Checked once at load (then trusted): ids are unique, every name shows what it is (no
//! invisible, bidi or control characters, not blank) and no two names look alike (same
//! canonical form or same UTS #39 confusable skeleton), every key is one that can sign
//! (`sshsig::key_problem`: Ed25519, a canonical point of large order), and no key belongs
//! to two people, keys compared by their Ed25519 point whatever their encoding.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use ssh_key::PublicKey;

use crate::error::{Error, Location, Result};

use super::sshsig::{fingerprint, key_material, key_problem, parse_public_key};
use crate::names::{
    ascii_fold, canonical_name, folded_skeleton, person_name_allowed_part, person_name_problem,
    skeleton,
};

pub const PEOPLE_FILE: &str = "people.toml";

#[derive(Debug, Clone)]
pub struct Person {
    pub id: String,
    pub name: String,
    pub keys: Vec<PublicKey>,
}

/// Every registered person, by id.
#[derive(Debug, Clone, Default)]
pub struct People {
    pub path: PathBuf,
    by_id: BTreeMap<String, Person>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    person: Vec<toml::Spanned<RawPerson>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPerson {
    id: toml::Spanned<String>,
    name: toml::Spanned<String>,
    #[serde(default)]
    keys: Vec<toml::Spanned<String>>,
}

impl People {
    /// Load `path`; a missing file is an empty registry (nobody can sign). It must be a
    /// regular file (`trust::file`): a symlink to a registry outside the project is refused.
    pub fn load(path: &Path) -> Result<People> {
        let text = match super::file::read_trust_text(path, super::file::MAX_TRUST_FILE_BYTES) {
            Ok(t) => t,
            Err(e) if e.is_missing() => {
                return Ok(People {
                    path: path.to_path_buf(),
                    by_id: BTreeMap::new(),
                })
            }
            Err(e) => return Err(Error::content(path, None, e.why())),
        };
        People::parse(path, &text)
    }

    pub fn parse(path: &Path, text: &str) -> Result<People> {
        let at = |offset: usize| {
            let before = &text[..offset.min(text.len())];
            Some(Location {
                line: before.matches('\n').count() + 1,
                column: before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1,
            })
        };
        let file: File = toml::from_str(text).map_err(|e| {
            Error::content(
                path,
                e.span().and_then(|s| at(s.start)),
                e.message().to_string(),
            )
        })?;
        let mut errors = Vec::new();
        let mut err =
            |offset: usize, msg: String| errors.push(Error::content(path, at(offset), msg));
        let mut by_id: BTreeMap<String, Person> = BTreeMap::new();
        // What each check has seen so far: the first person it belongs to.
        let mut canonical: BTreeMap<String, (String, String)> = BTreeMap::new();
        let mut skeletons: BTreeMap<String, (String, String)> = BTreeMap::new();
        // Keys by key material (the Ed25519 point), not by encoding: an
        // `sk-ssh-ed25519@openssh.com` line holds the same point as an `ssh-ed25519` one.
        let mut key_owner: BTreeMap<[u8; 32], String> = BTreeMap::new();
        for raw in &file.person {
            let p = raw.get_ref();
            let id = p.id.get_ref().clone();
            let name = p.name.get_ref().clone();
            let id_ok = !id.is_empty()
                && id
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
            if !id_ok {
                err(
                    p.id.span().start,
                    format!("person id {id:?}: use lowercase ASCII letters, digits and '-' (e.g. \"author-a\")"),
                );
                continue;
            }
            if by_id.contains_key(&id) {
                err(p.id.span().start, format!("person id `{id}` is used twice"));
                continue;
            }
            let mut ok = true;
            if let Some(problem) = person_name_problem(&name) {
                err(
                    p.name.span().start,
                    format!("person `{id}`: name {name:?} {problem}"),
                );
                ok = false;
            }
            // Compared whether or not the name is allowed, so that a look-alike is also
            // reported naming the person it imitates.
            let shown = person_name_allowed_part(&name);
            let c = canonical_name(&shown);
            // UTS #39's skeleton of the name as written ("AIice" and "Alice"), and that of
            // its case-folded form too, so that a look-alike letter and a change of case
            // together ("Fаa AIa" beside "Faa Aia") are not two names either; and the
            // skeleton as written, case-folded and taken again (a skeleton is a fixed point,
            // but its folded form need not be: "m" is "rn" while "M" is itself), so a
            // Cyrillic "Н" with a changed case ("Нabaa BaMa" beside "Habaa Bama") is caught.
            // Last, the skeleton with combining marks, end punctuation and repeated spaces
            // folded away ("Bob\u{0323} Reviewer", "Bob Reviewer." beside "Bob Reviewer").
            // And one with `i` read as `l`: a capital I's prototype is `l` while a small
            // i's is `i`, so a case change on one letter and an I-for-l swap on another
            // ("BaIqIcc" beside "Baiqlcc") part every skeleton above. This also takes
            // "Ali" and "All" for one name: the refusal names both, and a registry is
            // better off asking than letting a look-alike in.
            let as_written = skeleton(&shown);
            let folded = folded_skeleton(&shown);
            let i_as_l = as_written.replace('i', "l");
            let mut looks = vec![
                i_as_l,
                skeleton(&canonical_name(&as_written)),
                as_written,
                skeleton(&c),
                skeleton(&canonical_name(&folded)),
                folded,
            ];
            // Past UTS #39 (issue 53): the name transliterated to ASCII, spaces and
            // punctuation dropped, `w`/`vv` and `m`/`rn` taken as one ("Bob Reʋiewer", "Boɓ
            // Reviewer", "Bob Revievver", "BobReviewer" beside "Bob Reviewer"). Kept apart
            // from the skeletons by a prefix: a fold is compared with folds only.
            if let Some(fold) = ascii_fold(&shown).filter(|f| !f.is_empty()) {
                looks.push(format!("ascii:{fold}"));
            }
            if !c.is_empty() {
                if let Some((other, other_name)) = canonical.get(&c) {
                    err(
                        p.name.span().start,
                        format!("person `{id}` ({name:?}) and person `{other}` ({other_name:?}) have the same name once case, width and spacing are ignored; one person has one entry"),
                    );
                    ok = false;
                } else if let Some((other, other_name)) =
                    looks.iter().find_map(|l| skeletons.get(l))
                {
                    err(
                        p.name.span().start,
                        format!("person `{id}` ({name:?}) and person `{other}` ({other_name:?}) have names that look the same (Unicode confusables, UTS #39, or the same letters once transliterated to ASCII with spaces and punctuation dropped); one person has one entry"),
                    );
                    ok = false;
                }
                canonical
                    .entry(c)
                    .or_insert_with(|| (id.clone(), name.clone()));
                for look in looks {
                    skeletons
                        .entry(look)
                        .or_insert_with(|| (id.clone(), name.clone()));
                }
            }
            if p.keys.is_empty() {
                err(
                    raw.span().start,
                    format!("person `{id}` has no keys: add the SSH public key they sign with"),
                );
                ok = false;
            }
            let mut keys = Vec::new();
            for k in &p.keys {
                let key = match parse_public_key(k.get_ref()) {
                    Ok(key) => key,
                    Err(e) => {
                        err(k.span().start, format!("person `{id}`: {e}"));
                        ok = false;
                        continue;
                    }
                };
                // The same point under two people is refused even when the key cannot
                // sign, so the message names both.
                if let Some(point) = key_material(&key) {
                    match key_owner.get(&point) {
                        Some(other) if other != &id => {
                            err(
                                k.span().start,
                                format!("key {} is registered to both `{other}` and `{id}` (the same Ed25519 key, in any encoding or with any comment, is one key): one key, one person", fingerprint(&key)),
                            );
                            ok = false;
                            continue;
                        }
                        _ => {
                            key_owner.insert(point, id.clone());
                        }
                    }
                }
                if let Some(why) = key_problem(&key) {
                    err(
                        k.span().start,
                        format!("person `{id}`: key {} {why}", fingerprint(&key)),
                    );
                    ok = false;
                    continue;
                }
                keys.push(key);
            }
            if ok {
                by_id.insert(id.clone(), Person { id, name, keys });
            }
        }
        Error::collect(errors)?;
        Ok(People {
            path: path.to_path_buf(),
            by_id,
        })
    }

    pub fn get(&self, id: &str) -> Option<&Person> {
        self.by_id.get(id)
    }

    /// The person a key is registered to.
    pub fn by_key(&self, key: &PublicKey) -> Option<&Person> {
        self.by_id
            .values()
            .find(|p| p.keys.iter().any(|k| k.key_data() == key.key_data()))
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Person> {
        self.by_id.values()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trust::sshsig::Signer;

    fn key(n: u8) -> String {
        Signer::ed25519_from_seed(&[n; 32], "t")
            .unwrap()
            .public_key()
            .to_openssh()
            .unwrap()
    }

    fn person(id: &str, name: &str, k: u8) -> String {
        format!(
            "[[person]]\nid = \"{id}\"\nname = \"{name}\"\nkeys = [\"{}\"]\n",
            key(k)
        )
    }

    fn load(text: &str) -> std::result::Result<People, String> {
        People::parse(Path::new("content/people.toml"), text).map_err(|e| e.to_string())
    }

    #[test]
    fn loads_two_people_and_finds_them_by_key() {
        let p = load(&(person("author-a", "Author A", 1) + &person("reviewer-b", "Reviewer B", 2)))
            .unwrap();
        let k = parse_public_key(&key(2)).unwrap();
        assert_eq!(p.by_key(&k).unwrap().id, "reviewer-b");
        assert_eq!(p.get("author-a").unwrap().name, "Author A");
    }

    #[test]
    fn a_confusable_name_is_an_error_naming_both() {
        let e =
            load(&(person("author-a", "Author A", 1) + &person("author-x", "\u{0410}uthor A", 2)))
                .unwrap_err();
        assert!(e.contains("`author-x`") && e.contains("`author-a`"), "{e}");
        assert!(e.contains("look the same"), "{e}");
        assert!(e.contains("content/people.toml:7:8: person `author-x` (\"\u{0410}uthor A\") and person `author-a`"), "{e}");
    }

    /// The look-alikes the security review registered as second people: each is refused,
    /// the error at the second name's line naming both people.
    #[test]
    fn look_alikes_that_case_folding_hides_are_refused_naming_both() {
        for (twin, why) in [
            // Capital I (U+0049) for l: the skeleton of the name as written.
            ("AIice Author", "look the same"),
            // A Cyrillic І (U+0406) for I among Latin letters.
            ("Al\u{0456}ce Author", "look the same"),
            ("Alice Author\u{2800}", "U+2800"),
            ("Alice Author\u{E000}", "U+E000 (a private-use character)"),
        ] {
            let e = load(&(person("author-a", "Alice Author", 1) + &person("author-x", twin, 2)))
                .unwrap_err();
            assert!(e.contains(why), "{twin:?}: {e}");
            assert!(
                e.contains("content/people.toml:7:8: person `author-x`")
                    && e.contains("and person `author-a` (\"Alice Author\")"),
                "{twin:?}: {e}"
            );
        }
        // The Cyrillic І among Latin letters is also mixed scripts, alone.
        let e = load(&person("author-x", "\u{0406}van Author", 2)).unwrap_err();
        assert!(e.contains("moderately restrictive"), "{e}");
    }

    /// Issue 37: a combining mark, end punctuation or doubled spaces do not make a second
    /// name beside "Bob Reviewer".
    #[test]
    fn marks_end_punctuation_and_spaces_are_folded_before_comparing() {
        for twin in [
            "Bob\u{0323} Reviewer",
            "Bob Reviewer.",
            ".Bob Reviewer",
            "Bo\u{0301}b  Re\u{0300}viewer,",
            "B\u{00F6}b Reviewer",
        ] {
            let e =
                load(&(person("reviewer-b", "Bob Reviewer", 1) + &person("reviewer-x", twin, 2)))
                    .unwrap_err();
            assert!(
                e.contains("person `reviewer-x`") && e.contains("and person `reviewer-b`"),
                "{twin:?}: {e}"
            );
        }
        // Registered the other way round, too.
        let e = load(
            &(person("reviewer-x", "Bob Reviewer.", 2) + &person("reviewer-b", "Bob Reviewer", 1)),
        )
        .unwrap_err();
        assert!(e.contains("look the same"), "{e}");
    }

    #[test]
    fn two_different_names_in_two_scripts_load() {
        let cyrillic = "\u{0410}\u{043b}\u{0435}\u{043a}\u{0441}\u{0435}\u{0439} \u{0418}\u{0432}\u{0430}\u{043d}\u{043e}\u{0432}";
        let p = load(
            &(person("author-a", cyrillic, 1)
                + &person("author-b", "Alexei Ivanov", 2)
                + &person("author-c", "\u{5c71}\u{7530} \u{592a}\u{90ce}", 3)
                + &person("author-d", "Yamada Taro", 4)),
        )
        .unwrap();
        assert_eq!(p.get("author-a").unwrap().name, cyrillic);
        assert_eq!(p.iter().count(), 4);
    }

    #[test]
    fn the_same_name_in_another_case_is_an_error_naming_both() {
        let e = load(&(person("author-a", "Author A", 1) + &person("author-x", "AUTHOR  A", 2)))
            .unwrap_err();
        assert!(e.contains("`author-x`") && e.contains("`author-a`"), "{e}");
    }

    #[test]
    fn invisible_names_are_refused() {
        let e = load(&person("ghost", "\u{200B}\u{200B}", 1)).unwrap_err();
        assert!(e.contains("U+200B"), "{e}");
        let e = load(&person("dash", "-", 1)).unwrap_err();
        assert!(e.contains("no letter"), "{e}");
    }

    #[test]
    fn one_key_under_two_ids_is_refused() {
        let e =
            load(&(person("author-a", "Author A", 1) + &person("other-name", "Someone Else", 1)))
                .unwrap_err();
        assert!(
            e.contains("registered to both `author-a` and `other-name`"),
            "{e}"
        );
    }

    use crate::trust::sshsig::tests::{ed25519_key, non_canonical_encodings, point, SMALL_ORDER};

    fn line_of(key: &PublicKey) -> String {
        key.to_openssh().unwrap()
    }

    /// A registry of author-a (a good key) and reviewer-b holding `line`.
    fn with_reviewer_key(line: &str) -> String {
        person("author-a", "Author A", 1)
            + &format!(
                "[[person]]\nid = \"reviewer-b\"\nname = \"Reviewer B\"\nkeys = [\"{line}\"]\n"
            )
    }

    #[test]
    fn a_small_order_key_is_an_error_at_its_line() {
        for hex_bytes in SMALL_ORDER {
            let weak = line_of(&ed25519_key(point(hex_bytes), "reviewer-b@laptop"));
            assert!(weak.starts_with("ssh-ed25519 AAAA"), "{weak}");
            let e = load(&with_reviewer_key(&weak)).unwrap_err();
            // Line 8, column 9: the key string in reviewer-b's `keys = [...]`.
            assert!(
                e.starts_with("content/people.toml:8:9: person `reviewer-b`: key SHA256:"),
                "{e}"
            );
            assert!(e.contains("small-order (weak) point"), "{e}");
        }
    }

    #[test]
    fn a_non_canonical_key_is_an_error_at_its_line() {
        for b in non_canonical_encodings() {
            let e = load(&with_reviewer_key(&line_of(&ed25519_key(b, "x")))).unwrap_err();
            assert!(e.starts_with("content/people.toml:8:9:"), "{e}");
            assert!(e.contains("non-canonical encoding"), "{e}");
        }
    }

    /// The same key registered again in its security-key encoding (any application
    /// string, any comment) is one key: the error names both people.
    #[test]
    fn one_key_in_its_sk_encoding_under_two_ids_is_refused() {
        let plain = parse_public_key(&key(1)).unwrap();
        let point = crate::trust::sshsig::key_material(&plain).unwrap();
        let sk = PublicKey::new(
            ssh_key::public::KeyData::SkEd25519(ssh_key::public::SkEd25519::new(
                ssh_key::public::Ed25519PublicKey(point),
                "ssh:anything",
            )),
            "reviewer-b@yubikey",
        );
        let sk_line = line_of(&sk);
        assert!(
            sk_line.starts_with("sk-ssh-ed25519@openssh.com AAAA"),
            "{sk_line}"
        );
        let e = load(&with_reviewer_key(&sk_line)).unwrap_err();
        assert!(e.starts_with("content/people.toml:8:9:"), "{e}");
        assert!(
            e.contains("registered to both `author-a` and `reviewer-b`"),
            "{e}"
        );
        // Alone, a security key registers and signs (see sshsig's tests).
        let alone = format!(
            "[[person]]\nid = \"reviewer-b\"\nname = \"Reviewer B\"\nkeys = [\"{sk_line}\"]\n"
        );
        assert!(load(&alone).is_ok());
    }

    /// Issue 53: look-alikes that UTS #39 does not list load as a second person no more;
    /// each refusal names both.
    #[test]
    fn look_alikes_past_uts_39_are_refused_naming_both() {
        for twin in [
            "Bob Re\u{028B}iewer",
            "Bo\u{0253} Reviewer",
            "Bob R\u{025B}viewer",
            "Bob R\u{01DD}viewer",
            "Bob Revievver",
            "Bob-Reviewer",
            "BobReviewer",
        ] {
            let text = person("reviewer-b", "Bob Reviewer", 1) + &person("reviewer-x", twin, 2);
            let e = load(&text).expect_err(twin);
            assert!(
                e.contains(&format!(
                    "person `reviewer-x` ({twin:?}) and person `reviewer-b` (\"Bob Reviewer\")"
                )) && e.contains("look the same"),
                "{twin}: {e}"
            );
        }
        // Two different names still load.
        let text =
            person("reviewer-b", "Bob Reviewer", 1) + &person("reviewer-x", "Rob Reviewer", 2);
        assert!(load(&text).is_ok());
    }

    use proptest::prelude::*;

    /// Letters and what a reader takes for them (UTS #39's confusables: Cyrillic and
    /// Greek look-alikes, capital I and digit 1 for l, digit 0 for O, "rn" for m).
    const LOOK_ALIKES: &[(char, &str)] = &[
        ('a', "\u{0430}"),
        ('c', "\u{0441}"),
        ('e', "\u{0435}"),
        ('i', "\u{0456}"),
        ('j', "\u{0458}"),
        ('o', "\u{043E}"),
        ('o', "\u{03BF}"),
        ('p', "\u{0440}"),
        ('s', "\u{0455}"),
        ('x', "\u{0445}"),
        ('y', "\u{0443}"),
        ('l', "I"),
        ('l', "1"),
        ('l', "\u{04CF}"),
        ('m', "rn"),
        ('A', "\u{0410}"),
        ('A', "\u{0391}"),
        ('B', "\u{0412}"),
        ('C', "\u{0421}"),
        ('E', "\u{0415}"),
        ('H', "\u{041D}"),
        ('I', "\u{0406}"),
        ('I', "l"),
        ('K', "\u{041A}"),
        ('M', "\u{041C}"),
        ('O', "\u{041E}"),
        ('O', "0"),
        ('P', "\u{0420}"),
        ('T', "\u{0422}"),
        ('X', "\u{0425}"),
    ];

    /// Drawn as nothing, or as a blank: default-ignorables and blank look-alikes.
    const UNSEEN: &[char] = &[
        '\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{00AD}', '\u{FEFF}', '\u{034F}',
        '\u{180E}', '\u{2800}', '\u{3164}', '\u{115F}', '\u{1160}', '\u{FFA0}', '\u{E000}',
        '\u{F8FF}',
    ];

    /// One edit that leaves a name looking as it did (or differing in case only).
    #[derive(Debug, Clone)]
    enum Edit {
        LookAlike(prop::sample::Index, prop::sample::Index),
        Insert(prop::sample::Index, prop::sample::Index),
        Case(prop::sample::Index),
    }

    fn edit() -> impl Strategy<Value = Edit> {
        prop_oneof![
            (any::<prop::sample::Index>(), any::<prop::sample::Index>())
                .prop_map(|(a, b)| Edit::LookAlike(a, b)),
            (any::<prop::sample::Index>(), any::<prop::sample::Index>())
                .prop_map(|(a, b)| Edit::Insert(a, b)),
            any::<prop::sample::Index>().prop_map(Edit::Case),
        ]
    }

    /// `name` with `edits` made, each to a letter as first written (a look-alike of a
    /// letter whose case was changed is a look-alike of another letter: "i" to "I" to
    /// "l" reads as "l", not as "i").
    fn apply(name: &str, edits: &[Edit]) -> String {
        // One segment per original character, and whether it was changed.
        let mut segments: Vec<(String, bool)> =
            name.chars().map(|c| (c.to_string(), false)).collect();
        let mut inserted: Vec<(usize, char)> = Vec::new();
        for edit in edits {
            let untouched: Vec<usize> = (0..segments.len()).filter(|&i| !segments[i].1).collect();
            match edit {
                Edit::LookAlike(at, which) => {
                    let options: Vec<(usize, &str)> = untouched
                        .iter()
                        .flat_map(|&i| {
                            let c = segments[i].0.chars().next();
                            LOOK_ALIKES
                                .iter()
                                .filter(move |(from, _)| Some(*from) == c)
                                .map(move |(_, to)| (i, *to))
                        })
                        .collect();
                    if options.is_empty() {
                        continue;
                    }
                    let (i, to) = options[at.index(options.len()) + which.index(1)];
                    segments[i] = (to.to_string(), true);
                }
                Edit::Insert(at, which) => {
                    inserted.push((
                        at.index(segments.len() + 1),
                        UNSEEN[which.index(UNSEEN.len())],
                    ));
                }
                Edit::Case(at) => {
                    let latin: Vec<usize> = untouched
                        .into_iter()
                        .filter(|&i| segments[i].0.chars().all(|c| c.is_ascii_alphabetic()))
                        .collect();
                    if latin.is_empty() {
                        continue;
                    }
                    let i = latin[at.index(latin.len())];
                    let c = segments[i].0.chars().next().unwrap_or('a');
                    let other = match c.is_ascii_uppercase() {
                        true => c.to_ascii_lowercase(),
                        false => c.to_ascii_uppercase(),
                    };
                    segments[i] = (other.to_string(), true);
                }
            }
        }
        let mut out = String::new();
        for (i, (segment, _)) in segments.iter().enumerate() {
            out.extend(inserted.iter().filter(|(at, _)| *at == i).map(|(_, c)| c));
            out.push_str(segment);
        }
        out.extend(
            inserted
                .iter()
                .filter(|(at, _)| *at == segments.len())
                .map(|(_, c)| c),
        );
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Any two names a reader cannot tell apart (look-alike letters, invisible or
        /// blank characters, another case) are refused together: the second person's
        /// error names the first.
        #[test]
        fn names_that_render_the_same_are_refused_together(
            name in "[A-Z][a-z]{1,8}( [A-Z][a-z]{1,8}){0,2}",
            edits in prop::collection::vec(edit(), 1..4),
        ) {
            let twin = apply(&name, &edits);
            prop_assume!(twin != name);
            let text = person("author-a", &name, 1) + &person("author-x", &twin, 2);
            let e = match load(&text) {
                Ok(_) => return Err(TestCaseError::fail(format!("{name:?} / {twin:?} both load"))),
                Err(e) => e,
            };
            // Refused either as a look-alike of the first (naming both people) or, when
            // the edits also changed case so the two no longer share a skeleton, by the
            // rule on one name that the look-alike letter breaks (mixed scripts, blank or
            // invisible characters): either way the second cannot load.
            prop_assert!(
                e.contains("person `author-x`")
                    && (e.contains("and person `author-a`")
                        || e.contains("mixes the scripts")
                        || e.contains("character")),
                "{name:?} / {twin:?}: {e}"
            );
        }

        /// Issue 53: a Latin name respelled as a skimming reader would not notice (spaces
        /// dropped or turned to punctuation, `w` as `vv`, `m` as `rn`, a letter for its
        /// IPA or hooked look-alike, a hyphen put in) is refused, naming the first person.
        #[test]
        fn latin_respellings_are_refused_naming_both(
            name in "[A-Z][a-z]{2,8}( [A-Z][a-z]{2,8}){1,2}",
            edits in prop::collection::vec((any::<prop::sample::Index>(), 0usize..4), 1..4),
        ) {
            const RESPELL: &[(char, &str)] = &[
                ('w', "vv"), ('m', "rn"), ('v', "\u{028B}"), ('b', "\u{0253}"),
                ('e', "\u{025B}"), ('e', "\u{01DD}"), ('d', "\u{0257}"), ('o', "\u{0254}"),
            ];
            let mut twin: Vec<String> = name.chars().map(String::from).collect();
            for (at, how) in &edits {
                let i = at.index(twin.len());
                let c = twin[i].chars().next().unwrap_or(' ');
                // A slot an earlier edit respelled (`w` as `vv`) keeps its other letters:
                // only its first is respelled again, so the twin still reads as the name.
                let rest: String = twin[i].chars().skip(1).collect();
                if c == ' ' && *how < 3 {
                    // A space dropped, or a hyphen or dot for it.
                    twin[i] = ["", "-", "."][*how].to_string();
                } else if let Some((_, to)) = RESPELL.iter().filter(|(from, _)| *from == c).nth(*how % 2) {
                    twin[i] = format!("{to}{rest}");
                } else if let Some((_, to)) = RESPELL.iter().find(|(from, _)| *from == c) {
                    twin[i] = format!("{to}{rest}");
                } else if i > 0 {
                    twin.insert(i, "-".into());
                }
            }
            let twin: String = twin.concat();
            prop_assume!(twin != name);
            let text = person("author-a", &name, 1) + &person("author-x", &twin, 2);
            let e = match load(&text) {
                Ok(_) => return Err(TestCaseError::fail(format!("{name:?} / {twin:?} both load"))),
                Err(e) => e,
            };
            prop_assert!(
                e.contains("person `author-x`") && e.contains("and person `author-a`"),
                "{name:?} / {twin:?}: {e}"
            );
        }

        /// One key, whatever its encoding (`ssh-ed25519`, `sk-ssh-ed25519@openssh.com` with
        /// any application string) and comment, is one key.
        #[test]
        fn any_encoding_of_one_key_is_one_key(
            seed in any::<[u8; 32]>(),
            application in "[ -~]{0,40}",
            comments in ("[a-zA-Z0-9@. _-]{0,30}", "[a-zA-Z0-9@. _-]{0,30}"),
            sk in (any::<bool>(), any::<bool>()),
        ) {
            let signer = Signer::ed25519_from_seed(&seed, "x").unwrap();
            let point = crate::trust::sshsig::key_material(signer.public_key()).unwrap();
            let encode = |as_sk: bool, comment: &str| {
                let data = match as_sk {
                    true => ssh_key::public::KeyData::SkEd25519(ssh_key::public::SkEd25519::new(
                        ssh_key::public::Ed25519PublicKey(point),
                        application.clone(),
                    )),
                    false => ssh_key::public::KeyData::Ed25519(ssh_key::public::Ed25519PublicKey(point)),
                };
                PublicKey::new(data, comment.trim()).to_openssh().unwrap()
            };
            let one = |id: &str, name: &str, line: String| {
                format!("[[person]]\nid = \"{id}\"\nname = \"{name}\"\nkeys = [\"{line}\"]\n")
            };
            let text = one("author-a", "Author A", encode(sk.0, &comments.0))
                + &one("reviewer-b", "Reviewer B", encode(sk.1, &comments.1));
            let e = match load(&text) {
                Ok(_) => return Err(TestCaseError::fail(format!("both load:\n{text}"))),
                Err(e) => e,
            };
            prop_assert!(e.contains("registered to both `author-a` and `reviewer-b`"), "{e}");
        }
    }

    /// Issue 37: people.toml as a symlink (to a registry outside the project) is refused,
    /// naming the link, though the file it points at would load.
    #[test]
    fn a_symlinked_registry_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.toml");
        std::fs::write(&outside, person("author-a", "Author A", 1)).unwrap();
        assert!(People::load(&outside).is_ok());
        let link = dir.path().join("people.toml");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        let e = People::load(&link).unwrap_err().to_string();
        assert!(
            e.contains("people.toml") && e.contains("is a symlink"),
            "{e}"
        );
    }

    #[test]
    fn a_missing_file_is_an_empty_registry() {
        let p = People::load(Path::new("/nonexistent/people.toml")).unwrap();
        assert!(p.is_empty());
    }
}
