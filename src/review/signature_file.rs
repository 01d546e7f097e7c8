//! A signature file's text: [`write`] makes it (serde_norway's YAML of a [`SignOff`]) and
//! [`read`] reads it, so the writer and the reader are one rule in one place.
//!
//! Why `read` has a fast path: a cold build reads one signature file per entry, and libyaml
//! reads these ~1 KB files at tens of ns per byte: parsing them was 3.8% of a 10,000-entry
//! build's CPU (perf), and 171 M of its 3,292 M instructions at 1,000 entries (callgrind,
//! about 170 K a file). The files are machine-written, so nearly every one is exactly the
//! layout [`write`] produces for a signature made by `review sign`; [`canonical`] reads
//! that one layout in a single pass (16 M at 1,000 entries, a tenth of the cost) and
//! declines anything else. serde_norway reads whatever it declines (comments, quoting,
//! another key order or indentation, unknown keys, CRLF, tabs, bad values), so what is
//! accepted, what it means and every error message with its line and column stay
//! serde_norway's.
//!
//! The fast path accepts only text [`write`] itself produces for the value it reads, and
//! only scalars whose YAML reading is their literal text: a person id of lowercase letters,
//! digits and `-` starting with a letter and not a YAML 1.1 boolean or null word, a
//! whole-second UTC time, a `sha256:` digest of 64 lowercase hex digits, and the armored
//! signature as a `|` block of printable ASCII lines, each indented by exactly four
//! spaces, starting and ending with a non-space. Checking instead that serde_norway would
//! re-emit the file byte for byte would cost about 160 K instructions a file, nearly as
//! much as parsing it, so the grammar is this narrow instead; the tests check both
//! directions (the writer's output is taken by the fast path and read the same by both
//! readers; an edited file or a hand-typed value is either declined or read the same by
//! both, and then is the writer's own text for that value).

use chrono::{DateTime, Utc};
use serde::de::IntoDeserializer;
use serde::Deserialize;

use super::signoff::{SignOff, Signature};

/// The text of a signature file.
pub fn write(signoff: &SignOff) -> Result<String, serde_yaml::Error> {
    serde_yaml::to_string(signoff)
}

/// Read a signature file's text: the writer's own layout directly, anything else (and
/// every error) through serde_norway, once its nesting is known to be shallow enough for
/// libyaml to read it quickly ([`crate::yaml_depth`]).
pub fn read(text: &str) -> Result<SignOff, ReadError> {
    match canonical(text) {
        Some(signoff) => Ok(signoff),
        None => {
            crate::yaml_depth::check(text).map_err(ReadError::TooDeep)?;
            serde_yaml::from_str(text).map_err(ReadError::Yaml)
        }
    }
}

/// Why a signature file could not be read.
#[derive(Debug)]
pub enum ReadError {
    Yaml(serde_yaml::Error),
    TooDeep(crate::yaml_depth::TooDeep),
}

/// A 1-based line and column in the file.
pub struct At {
    line: usize,
    column: usize,
}

impl At {
    pub fn line(&self) -> usize {
        self.line
    }

    pub fn column(&self) -> usize {
        self.column
    }
}

impl ReadError {
    pub fn location(&self) -> Option<At> {
        match self {
            ReadError::Yaml(e) => e.location().map(|l| At {
                line: l.line(),
                column: l.column(),
            }),
            ReadError::TooDeep(d) => Some(At {
                line: d.line,
                column: d.column,
            }),
        }
    }
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Yaml(e) => e.fmt(f),
            ReadError::TooDeep(d) => d.fmt(f),
        }
    }
}

/// The sign-off in `text` if it is exactly in [`write`]'s layout with safe scalars (see
/// the module comment), else `None`.
fn canonical(text: &str) -> Option<SignOff> {
    let mut rest = text;
    let mut signoff = SignOff::default();
    if let Some(after) = rest.strip_prefix("author:\n") {
        let (signature, after) = signature(after)?;
        signoff.author = Some(signature);
        rest = after;
    }
    if let Some(after) = rest.strip_prefix("reviewer:\n") {
        let (signature, after) = signature(after)?;
        signoff.reviewer = Some(signature);
        rest = after;
    }
    // An empty sign-off is written `{}`: rare, and left to serde_norway.
    let any = signoff.author.is_some() || signoff.reviewer.is_some();
    (rest.is_empty() && any).then_some(signoff)
}

/// One role's signature: its four fields in the writer's order, and the text after it.
fn signature(text: &str) -> Option<(Signature, &str)> {
    let (person, rest) = field(text, "  person: ")?;
    let (name, rest) = field(rest, "  name: ")?;
    let (time, rest) = field(rest, "  time: ")?;
    let (digest, rest) = field(rest, "  digest: ")?;
    let mut rest = rest.strip_prefix("  signature: |\n")?;
    if !is_person(person) || !is_plain_name(name) || !is_time(time) || !is_digest(digest) {
        return None;
    }
    // The same conversion serde_norway's reading of the plain scalar goes through.
    let time = DateTime::<Utc>::deserialize(
        IntoDeserializer::<serde::de::value::Error>::into_deserializer(time),
    )
    .ok()?;
    let mut armored = String::with_capacity(rest.len().min(1024));
    while let Some(indented) = rest.strip_prefix("    ") {
        let (line, after) = indented.split_once('\n')?;
        if !is_block_line(line) {
            return None;
        }
        armored.push_str(line);
        armored.push('\n');
        rest = after;
    }
    if armored.is_empty() {
        return None;
    }
    let signature = Signature {
        person: person.to_string(),
        name: name.to_string(),
        time,
        digest: digest.to_string(),
        signature: armored,
    };
    Some((signature, rest))
}

/// `key` then a value up to the end of the line, and the text after that line.
fn field<'a>(text: &'a str, key: &str) -> Option<(&'a str, &'a str)> {
    text.strip_prefix(key)?.split_once('\n')
}

/// A person id YAML reads as itself when plain: `[a-z][a-z0-9-]*`, not a word YAML 1.1
/// reads as a boolean or null (serde_norway reads those as text too, but the fast path
/// need not rely on it).
fn is_person(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_lowercase()
        && b.iter()
            .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
        && !matches!(
            s,
            "y" | "n" | "yes" | "no" | "on" | "off" | "true" | "false" | "null"
        )
}

/// A display name YAML reads as itself when plain: ASCII letters and digits, single spaces,
/// `-` and `.`, starting with a letter and ending with a letter, digit or `.`, and not a
/// word YAML 1.1 reads as a boolean or null in any case ("No"). Any other name (accents,
/// other scripts, apostrophes) is left to serde_norway.
fn is_plain_name(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphabetic()
        && (b[b.len() - 1].is_ascii_alphanumeric() || b[b.len() - 1] == b'.')
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b' ' | b'-' | b'.'))
        && !s.contains("  ")
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "y" | "n" | "yes" | "no" | "on" | "off" | "true" | "false" | "null"
        )
}

/// `YYYY-MM-DDTHH:MM:SSZ`, what chrono writes for a whole-second UTC time.
fn is_time(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 20
        && b.iter().enumerate().all(|(i, &c)| match i {
            4 | 7 => c == b'-',
            10 => c == b'T',
            13 | 16 => c == b':',
            19 => c == b'Z',
            _ => c.is_ascii_digit(),
        })
}

/// `sha256:` and 64 lowercase hex digits.
fn is_digest(s: &str) -> bool {
    s.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
    })
}

/// A line of a `|` block that means itself: printable ASCII, not starting with a space
/// (that would change the block's indentation) nor ending with one.
fn is_block_line(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0] != b' '
        && b[b.len() - 1] != b' '
        && b.iter().all(|&c| (b' '..=b'~').contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What serde_norway alone makes of `text`: the value, or the error as a user sees it.
    fn by_serde(text: &str) -> Result<SignOff, String> {
        serde_yaml::from_str(text).map_err(|e| e.to_string())
    }

    fn armored(lines: &[String]) -> String {
        let mut s = String::from("-----BEGIN SSH SIGNATURE-----\n");
        for l in lines {
            s.push_str(l);
            s.push('\n');
        }
        s.push_str("-----END SSH SIGNATURE-----\n");
        s
    }

    fn signature_in(
        person: String,
        name: String,
        secs: i64,
        digest: String,
        lines: Vec<String>,
    ) -> Signature {
        Signature {
            person,
            name,
            time: DateTime::from_timestamp(secs, 0).unwrap(),
            digest,
            signature: armored(&lines),
        }
    }

    /// Signatures as `review sign` makes them: the fast path must take all of these.
    fn canonical_signature() -> impl Strategy<Value = Signature> {
        (
            "[a-z][a-z0-9-]{0,20}".prop_filter("not a YAML word", |p| is_person(p)),
            "[A-Z][a-z]{0,8}( [A-Z][a-z.-]{0,8}[a-z.])?"
                .prop_filter("not a YAML word", |n| is_plain_name(n)),
            0i64..253_402_300_799, // up to 9999-12-31T23:59:59Z
            "[0-9a-f]{64}",
            prop::collection::vec("[A-Za-z0-9+/]{1,70}=?", 1..6),
        )
            .prop_map(|(p, n, t, d, l)| signature_in(p, n, t, format!("sha256:{d}"), l))
    }

    /// Any signature, hand-edited ones included: odd people, times with fractions,
    /// digests and signatures with any text.
    fn any_signature() -> impl Strategy<Value = Signature> {
        (
            prop_oneof![
                "[a-z][a-z0-9-]{0,8}",
                Just("yes".to_string()),
                Just("null".to_string()),
                Just("123".to_string()),
                ".{0,12}",
            ],
            prop_oneof![
                "[A-Za-z][A-Za-z .-]{0,12}",
                Just("No".to_string()),
                Just("Null".to_string()),
                Just("Author  A".to_string()),
                Just("Author A ".to_string()),
                ".{0,12}",
            ],
            -100_000_000_000i64..253_402_300_799,
            0u32..1_000_000_000,
            prop_oneof![
                "[0-9a-f]{64}".prop_map(|d| format!("sha256:{d}")),
                ".{0,70}"
            ],
            prop_oneof![
                prop::collection::vec("[A-Za-z0-9+/= ]{0,70}", 0..4).prop_map(|l| armored(&l)),
                ".{0,80}",
            ],
        )
            .prop_map(|(person, name, secs, nanos, digest, signature)| Signature {
                person,
                name,
                time: DateTime::from_timestamp(secs, nanos).unwrap(),
                digest,
                signature,
            })
    }

    fn signoff<S: Strategy<Value = Signature>>(
        signature: fn() -> S,
    ) -> impl Strategy<Value = SignOff> {
        (prop::option::of(signature()), prop::option::of(signature())).prop_map(
            |(author, reviewer)| SignOff {
                author,
                reviewer,
                ..Default::default()
            },
        )
    }

    /// Edits a person might make to a file, at a byte position.
    const EDITS: &[&str] = &[
        " ",
        "  ",
        "\t",
        "\r",
        "\n",
        "#",
        "# note\n",
        "'",
        "\"",
        ":",
        ": ",
        "-",
        "- ",
        "|",
        "|-",
        ">",
        "&a",
        "*a",
        "!",
        "~",
        "x",
        "0",
        "---\n",
        "...\n",
        "\u{FEFF}",
        "é",
        "extra: 1\n",
    ];

    /// Where to edit: anywhere (`near` 0), or `column` bytes after a line's start (1) or
    /// before its end (2), where the layout's structure is.
    fn edit_position(text: &str, at: prop::sample::Index, near: u8, column: usize) -> usize {
        let lines: Vec<(usize, usize)> = text
            .split_inclusive('\n')
            .scan(0, |start, line| {
                let here = *start;
                *start += line.len();
                Some((here, here + line.trim_end_matches('\n').len()))
            })
            .collect();
        let mut i = match (near, lines.is_empty()) {
            (1, false) => lines[at.index(lines.len())].0 + column,
            (2, false) => lines[at.index(lines.len())].1.saturating_sub(column),
            _ => at.index(text.len() + 1),
        }
        .min(text.len());
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn the_writers_output_is_taken_by_the_fast_path_as_serde_norway_reads_it(
            s in signoff(canonical_signature)
                .prop_filter("something signed", |s| s.author.is_some() || s.reviewer.is_some())
        ) {
            let text = write(&s).unwrap();
            prop_assert_eq!(canonical(&text), Some(s.clone()), "{}", text);
            prop_assert_eq!(by_serde(&text), Ok(s));
        }

        #[test]
        fn any_written_sign_off_reads_as_serde_norway_reads_it(s in signoff(any_signature)) {
            let text = write(&s).unwrap();
            let fast = canonical(&text);
            if let Some(v) = &fast {
                prop_assert_eq!(&write(v).unwrap(), &text);
            }
            prop_assert_eq!(read(&text).map_err(|e| e.to_string()), by_serde(&text), "{}", text);
        }

        /// The soundness property: whatever the fast path takes, serde_norway reads as
        /// the same value, and it is the writer's own text for that value.
        #[test]
        fn an_edited_file_is_declined_or_read_as_serde_norway_reads_it(
            s in signoff(canonical_signature),
            edits in prop::collection::vec(
                (any::<prop::sample::Index>(), 0..3u8, 0..10usize, 0..EDITS.len(), any::<bool>()),
                1..4,
            ),
        ) {
            let mut text = write(&s).unwrap();
            for (at, near, column, edit, replace) in edits {
                let i = edit_position(&text, at, near, column);
                if replace && i < text.len() {
                    let mut end = i + 1;
                    while !text.is_char_boundary(end) {
                        end += 1;
                    }
                    text.replace_range(i..end, EDITS[edit]);
                } else {
                    text.insert_str(i, EDITS[edit]);
                }
            }
            if let Some(v) = canonical(&text) {
                prop_assert_eq!(&write(&v).unwrap(), &text);
                prop_assert_eq!(by_serde(&text), Ok(v), "{}", text);
            }
            prop_assert_eq!(read(&text).map_err(|e| e.to_string()), by_serde(&text), "{}", text);
        }

        /// A value typed by hand, with characters that mean something to YAML, in place of
        /// one the writer wrote.
        #[test]
        fn a_hand_typed_value_is_declined_or_read_as_serde_norway_reads_it(
            field in 0..4usize,
            value in prop_oneof![
                "[a-z0-9 :#'\"&*!|>{}\\[\\],%@`?~.=+/-]{0,10}",
                "[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(Z|z|[+-][0-9]{2}:?[0-9]{2}|\\.[0-9]{1,3}Z)?",
            ],
        ) {
            let (old, new) = match field {
                0 => ("person: reviewer-b", format!("person: {value}")),
                1 => ("time: 2026-02-01T12:00:00Z", format!("time: {value}")),
                2 => ("digest: sha256:41a23ee11ede923f2e4519a299f438991cabd0b3888ad9b200fcb821889bfc52", format!("digest: {value}")),
                _ => ("    1RJnpBuzMBrOO0I+b8LE9BfBYx8dQh6Tdq3gw=", format!("    {value}")),
            };
            let text = FILE.replacen(old, &new, 1);
            if let Some(v) = canonical(&text) {
                prop_assert_eq!(&write(&v).unwrap(), &text);
                prop_assert_eq!(by_serde(&text), Ok(v), "{}", text);
            }
            prop_assert_eq!(read(&text).map_err(|e| e.to_string()), by_serde(&text), "{}", text);
        }
    }

    const FILE: &str = "\
author:
  person: author-a
  name: Author A
  time: 2026-02-01T12:00:00Z
  digest: sha256:41a23ee11ede923f2e4519a299f438991cabd0b3888ad9b200fcb821889bfc52
  signature: |
    -----BEGIN SSH SIGNATURE-----
    U1NIU0lHAAAAAQAAADMAAAALc3NoLWVkMjU1MTkAAAAgxIsB43TBgDdPAbNjExyuYsv1DE
    1RJnpBuzMBrOO0I+b8LE9BfBYx8dQh6Tdq3gw=
    -----END SSH SIGNATURE-----
reviewer:
  person: reviewer-b
  name: Reviewer B
  time: 2026-02-01T12:00:00Z
  digest: sha256:41a23ee11ede923f2e4519a299f438991cabd0b3888ad9b200fcb821889bfc52
  signature: |
    -----BEGIN SSH SIGNATURE-----
    U1NIU0lHAAAAAQAAADMAAAALc3NoLWVkMjU1MTkAAAAg/cZSblqk3FDtuXmsqyuwDL+7m5
    si05vhXAYgIiq8GwXMinQsUyBk931XfbJ1YQQ=
    -----END SSH SIGNATURE-----
";

    #[test]
    fn a_signed_file_is_read_by_the_fast_path() {
        let fast = canonical(FILE).expect("the writer's layout");
        assert_eq!(Ok(fast.clone()), by_serde(FILE));
        assert_eq!(write(&fast).unwrap(), FILE);
        // Only the author has signed: the writer leaves the reviewer out.
        let author_only = FILE.split("reviewer:").next().unwrap();
        let fast = canonical(author_only).expect("one role");
        assert!(fast.reviewer.is_none());
        assert_eq!(Ok(fast), by_serde(author_only));
    }

    #[test]
    fn the_fast_path_declines_what_it_was_not_written_as() {
        let reviewer_person = "  person: reviewer-b\n";
        let cases: Vec<(&str, String)> = vec![
            ("comment line", FILE.replace("reviewer:\n", "# checked\nreviewer:\n")),
            ("comment after a value", FILE.replace("person: reviewer-b", "person: reviewer-b # me")),
            ("quoted person", FILE.replace("person: reviewer-b", "person: 'reviewer-b'")),
            ("double-quoted person", FILE.replace("person: reviewer-b", "person: \"reviewer-b\"")),
            ("person yes", FILE.replace("person: reviewer-b", "person: yes")),
            ("person null", FILE.replace("person: reviewer-b", "person: null")),
            ("person 123", FILE.replace("person: reviewer-b", "person: 123")),
            ("person ~", FILE.replace("person: reviewer-b", "person: ~")),
            ("name No", FILE.replace("name: Reviewer B", "name: No")),
            ("quoted name", FILE.replace("name: Reviewer B", "name: 'Reviewer B'")),
            ("accented name", FILE.replace("name: Reviewer B", "name: R\u{e9}viewer B")),
            ("name with two spaces", FILE.replace("name: Reviewer B", "name: Reviewer  B")),
            ("missing name", FILE.replace("  name: Reviewer B\n", "")),
            ("empty person", FILE.replace("person: reviewer-b", "person:")),
            ("extra key", FILE.replace(reviewer_person, &format!("{reviewer_person}  note: hi\n"))),
            ("unknown role", FILE.replace("reviewer:", "editor:")),
            ("missing digest", FILE.replacen("  digest: sha256:41a23ee11ede923f2e4519a299f438991cabd0b3888ad9b200fcb821889bfc52\n", "", 1)),
            ("reviewer first", {
                let (a, r) = FILE.split_at(FILE.find("reviewer:").unwrap());
                format!("{r}{a}")
            }),
            ("author twice", FILE.replace("reviewer:", "author:")),
            ("CRLF", FILE.replace('\n', "\r\n")),
            ("trailing space after a value", FILE.replace("reviewer-b\n", "reviewer-b \n")),
            ("trailing space in the block", FILE.replace("gw=\n", "gw= \n")),
            ("tab indentation", FILE.replace("  person", "\tperson")),
            ("tab in the block", FILE.replace("\n    U1NIU0lH", "\n    \tU1NIU0lH")),
            ("deeper block line", FILE.replace("\n    U1NIU0lH", "\n     U1NIU0lH")),
            ("blank line in the block", FILE.replace("gw=\n", "gw=\n\n")),
            ("folded block", FILE.replace("signature: |", "signature: >")),
            ("strip chomping", FILE.replace("signature: |", "signature: |-")),
            ("no final newline", FILE.trim_end().to_string()),
            ("trailing blank line", format!("{FILE}\n")),
            ("document start", format!("---\n{FILE}")),
            ("document end", format!("{FILE}...\n")),
            ("byte order mark", format!("\u{FEFF}{FILE}")),
            ("time with offset", FILE.replace("12:00:00Z", "13:00:00+01:00")),
            ("time with fraction", FILE.replace("12:00:00Z", "12:00:00.5Z")),
            ("impossible date", FILE.replace("2026-02-01", "2026-02-30")),
            ("short digest", FILE.replace("bfc52\n", "\n")),
            ("upper-case digest", FILE.replace("sha256:41a", "sha256:41A")),
            ("indented by four", FILE.replace("  person", "    person")),
            ("empty", String::new()),
            ("empty mapping", "{}\n".to_string()),
        ];
        for (what, text) in cases {
            assert!(
                canonical(&text).is_none(),
                "{what}: taken by the fast path\n{text}"
            );
            let read = read(&text).map_err(|e| e.to_string());
            assert_eq!(read, by_serde(&text), "{what}");
        }
    }

    #[test]
    fn errors_still_name_the_line_and_column() {
        let text = FILE.replace(
            "  person: author-a\n",
            "  person: author-a\n  colour: red\n",
        );
        let err = read(&text).unwrap_err();
        assert!(err.location().is_some(), "{err}");
        assert!(err.to_string().contains("unknown field `colour`"), "{err}");
        assert!(err.to_string().contains("line 3"), "{err}");
    }
}
