//! Body words held for the search index, coded against one shared vocabulary.
//!
//! A build notes each body's distinct words in pass 1 ([`super::search::distinct_words`])
//! and holds them until the search index is made, after pass 2 has begun: as text that was
//! about 90 MB at 100,000 entries, the largest single part of the build's peak. Coded, each
//! word is its number in a [`Vocabulary`] every entry shares (most words recur across
//! entries), written in one to three bytes.

use std::sync::Mutex;

use indexmap::IndexSet;

use super::leb128;

/// Every distinct word of the bodies coded so far, each numbered by when it was first
/// seen. Shared by the threads of pass 1: each entry takes the lock once for all its words.
#[derive(Default)]
pub struct Vocabulary {
    words: Mutex<IndexSet<Box<str>, foldhash::fast::RandomState>>,
}

/// One body's distinct words as vocabulary numbers, each in [`leb128`].
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct CodedWords(Box<[u8]>);

impl Vocabulary {
    /// `words` (separated by single spaces, as `distinct_words` makes them), coded.
    pub fn code(&self, words: &str) -> CodedWords {
        let mut out = Vec::with_capacity(words.len() / 4);
        let mut vocabulary = self.words.lock().unwrap_or_else(|p| p.into_inner());
        for word in words.split(' ').filter(|w| !w.is_empty()) {
            let number = match vocabulary.get_index_of(word) {
                Some(i) => i,
                None => vocabulary.insert_full(word.into()).0,
            };
            leb128::push(&mut out, number as u64);
        }
        CodedWords(out.into_boxed_slice())
    }

    /// The words `coded` stands for, separated by single spaces: what [`Vocabulary::code`]
    /// was given.
    pub fn decode(&self, coded: &CodedWords) -> String {
        let vocabulary = self.words.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = String::new();
        let mut bytes = coded.0.iter();
        while let Some(number) = leb128::next(&mut bytes) {
            // Only this vocabulary's `code` makes the numbers, so each is in it.
            if let Some(word) = vocabulary.get_index(number as usize) {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(word);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_gives_back_the_words_in_order() {
        let vocabulary = Vocabulary::default();
        // Enough other words first that numbers past one and two bytes are used.
        for i in 0..20_000 {
            vocabulary.code(&format!("filler{i}"));
        }
        let words = "warp slot __global__ sm_90 filler3 filler19999 é✓";
        let coded = vocabulary.code(words);
        assert_eq!(vocabulary.decode(&coded), words);
        // Shared words keep their numbers: coding again adds nothing and gives the same.
        assert_eq!(vocabulary.code(words), coded);
        assert_eq!(vocabulary.decode(&vocabulary.code("")), "");
    }
}
