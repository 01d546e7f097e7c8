//! How text is cut into search words, once for the index, the coded body words and
//! `search.js` alike: split on white space, punctuation dropped at the ends, lowercased.

use std::borrow::Cow;

/// The words of `s` as the index and the script both cut them: split on white space,
/// punctuation dropped at the ends only (so `__global__` and `sm_90` stay whole),
/// lowercased. `search.js` must cut queries the same way.
pub fn tokens(s: &str) -> impl Iterator<Item = String> + '_ {
    words(s).map(Cow::into_owned)
}

/// [`tokens`] without copying the words that are already lowercase (most of them).
pub fn words(s: &str) -> WordsOf<'_> {
    WordsOf { s, at: 0 }
}

/// The iterator [`words`] returns: one pass over the bytes, ASCII by table and any other
/// character by its Unicode properties (white space, alphanumeric), as `char` defines them.
pub struct WordsOf<'a> {
    s: &'a str,
    at: usize,
}

/// What a byte is to [`WordsOf`].
#[derive(Clone, Copy, PartialEq)]
enum Class {
    /// A lowercase ASCII letter, a digit or `_`.
    Word,
    /// An uppercase ASCII letter: a word with one is lowercased.
    Upper,
    /// Ends a word (`char::is_whitespace` in ASCII: tab, line feed, vertical tab, form
    /// feed, carriage return, space).
    Space,
    /// Other ASCII: kept inside a word, trimmed at its ends.
    Punctuation,
    /// The first byte of a character past ASCII (never another byte: each character is
    /// stepped over whole).
    Other,
}

const CLASS: [Class; 256] = {
    let mut table = [Class::Other; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        table[b] = if c.is_ascii_uppercase() {
            Class::Upper
        } else if c.is_ascii_alphanumeric() || c == b'_' {
            Class::Word
        } else if matches!(c, b'\t'..=b'\r' | b' ') {
            Class::Space
        } else {
            Class::Punctuation
        };
        b += 1;
    }
    table
};

impl<'a> WordsOf<'a> {
    /// The next word as written, and whether it must be lowercased (it has an uppercase
    /// or a non-ASCII character): the caller may lowercase it into a buffer of its own.
    /// Inlined: called once a word, for every word of every page.
    #[inline]
    pub(super) fn next_as_written(&mut self) -> Option<(&'a str, bool)> {
        let (s, bytes) = (self.s, self.s.as_bytes());
        // The word's kept part `first..last`; whether it needs lowercasing (an uppercase
        // or non-ASCII character in it), and whether what follows its last word character
        // so far would make it so (non-ASCII punctuation inside a word).
        let mut first = None;
        let mut last = 0;
        let (mut fold, mut pending) = (false, false);
        let mut i = self.at;
        while i < bytes.len() {
            let word_at = i;
            match CLASS[bytes[i] as usize] {
                Class::Word | Class::Upper => {
                    // A run of ASCII word characters, the most of any text.
                    while let Some(&b) = bytes.get(i) {
                        match CLASS[b as usize] {
                            Class::Word => {}
                            Class::Upper => fold = true,
                            _ => break,
                        }
                        i += 1;
                    }
                }
                Class::Space if first.is_some() => break,
                Class::Space | Class::Punctuation => {
                    i += 1;
                    continue;
                }
                Class::Other => {
                    let c = s[i..].chars().next().unwrap_or_default();
                    i += c.len_utf8();
                    if c.is_whitespace() {
                        if first.is_some() {
                            break;
                        }
                        continue;
                    }
                    if !c.is_alphanumeric() {
                        pending = true;
                        continue;
                    }
                    fold = true;
                }
            }
            // `word_at..i` are word characters.
            if first.is_none() {
                first = Some(word_at);
            } else {
                fold |= pending;
            }
            pending = false;
            last = i;
        }
        self.at = i;
        Some((&s[first?..last], fold))
    }
}

impl<'a> Iterator for WordsOf<'a> {
    type Item = Cow<'a, str>;

    fn next(&mut self) -> Option<Cow<'a, str>> {
        let (word, fold) = self.next_as_written()?;
        Some(if fold {
            Cow::Owned(word.to_lowercase())
        } else {
            Cow::Borrowed(word)
        })
    }
}

/// The body's distinct words in first-seen order, separated by single spaces: all the
/// index needs of a body, and a fraction of its size (kept per published entry between
/// serve rebuilds).
pub fn distinct_words(s: &str) -> String {
    let mut seen = foldhash::HashSet::default();
    let mut out = String::with_capacity(s.len() / 2);
    for word in words(s) {
        if !seen.contains(&word) {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&word);
            seen.insert(word);
        }
    }
    // Kept per entry until the index is made: at the size guessed above, a quarter of it
    // would be spare (about 30 MB at 100,000 entries). Copied, as `shrink_to_fit` may
    // leave the block as it was (mimalloc keeps a block shrunk by less than half).
    String::from(out.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule as `search.js` states it, one step at a time: what the one-pass cutter
    /// must give.
    fn cut_by_the_rule(s: &str) -> Vec<String> {
        s.split_whitespace()
            .map(|w| w.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_')))
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    }

    #[test]
    fn words_are_cut_as_the_rule_says() {
        let samples = [
            "Warp slots, warp SLOTS; __global__ (sm_90).",
            "  leading\tand\x0btrailing\u{85}white\u{a0}space\u{3000}  ",
            "\"quoted\" — dashes—inside… «Français» ÉCOLE straße ΣΟΦΟΣ İstanbul xİ",
            "a-b a_b -a- __ -- x² ½ ٣ 日本語 emoji✓ ✓ é́ e\u{301}",
            "",
            " ,;. ",
        ];
        for s in samples {
            let fast: Vec<String> = tokens(s).collect();
            assert_eq!(fast, cut_by_the_rule(s), "{s:?}");
        }
        // Words already lowercase are not copied.
        assert!(words("warp sm_90 (slot)").all(|w| matches!(w, Cow::Borrowed(_))));
    }

    proptest::proptest! {
        #[test]
        fn any_text_is_cut_as_the_rule_says(s in "(?s)[ -~\t\n\x0b\x0c\r\u{85}\u{a0}é́É¹ΣİẞÅ✓日_\\-]{0,40}") {
            let fast: Vec<String> = tokens(&s).collect();
            proptest::prop_assert_eq!(fast, cut_by_the_rule(&s));
        }
    }

    #[test]
    fn keeps_each_word_once_in_first_seen_order() {
        assert_eq!(
            distinct_words("Warp slots, warp SLOTS; __global__ (sm_90)."),
            "warp slots __global__ sm_90"
        );
    }
}
