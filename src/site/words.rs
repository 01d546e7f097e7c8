//! Body words held for the search index, coded against one shared vocabulary.
//!
//! A build cuts each body into words in pass 1 and holds its distinct ones until the
//! search index is made, after pass 2 has begun: as text that was about 90 MB at 100,000
//! entries, the largest single part of the build's peak. Coded, each word is its number in
//! a [`Vocabulary`] every entry shares (most words recur across entries), written in one
//! to three bytes. The index then works on the numbers, and reads a word's text only to
//! sort the words and write the shards.

use std::borrow::Cow;
use std::hash::BuildHasher;
use std::sync::{Mutex, MutexGuard};

use hashbrown::HashTable;

use super::leb128;
use super::tokens::words;

/// Every distinct word coded so far, each numbered by when it was first seen. Shared by
/// the threads of pass 1: each entry cuts and hashes its words alone, then takes the lock
/// once to number its distinct ones.
pub struct Vocabulary {
    /// The words' hasher, for hashing outside the lock.
    hasher: foldhash::fast::RandomState,
    words: Mutex<Words>,
}

/// The words of a [`Vocabulary`], each found by its text or by its number.
#[derive(Default)]
pub struct Words {
    hasher: foldhash::fast::RandomState,
    /// Numbers, found by their word's hash.
    table: HashTable<u32>,
    /// Each number's word.
    text: Vec<Box<str>>,
}

/// One body's distinct words as vocabulary numbers, each in [`leb128`].
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct CodedWords(Box<[u8]>);

impl CodedWords {
    /// The vocabulary numbers, in the order they were coded.
    pub fn numbers(&self) -> impl Iterator<Item = u32> + '_ {
        let mut bytes = self.0.iter();
        // Only `Vocabulary::code` makes these, from `u32` numbers.
        std::iter::from_fn(move || leb128::next(&mut bytes).map(|n| n as u32))
    }
}

impl Vocabulary {
    /// The distinct words of `text`, cut as the index cuts them ([`super::tokens::tokens`]),
    /// coded in first-seen order.
    pub fn code(&self, text: &str) -> CodedWords {
        // The page's distinct words first, each with its hash, so the lock is taken once
        // and held only to number them (a distinct word is about one in three).
        let guess = text.len() / 16;
        let mut seen: HashTable<u32> = HashTable::with_capacity(guess);
        let mut distinct: Vec<(u64, Cow<'_, str>)> = Vec::with_capacity(guess);
        // A word to lowercase is lowercased here, copied only when it is new to the page.
        let mut lower = String::new();
        let mut cut = words(text);
        while let Some((as_written, fold)) = cut.next_as_written() {
            let word = match fold {
                false => as_written,
                true if as_written.is_ascii() => {
                    lower.clear();
                    lower.push_str(as_written);
                    lower.make_ascii_lowercase();
                    &lower
                }
                true => {
                    lower = as_written.to_lowercase();
                    &lower
                }
            };
            let hash = self.hasher.hash_one(word);
            if seen
                .find(hash, |&i| distinct[i as usize].1 == word)
                .is_some()
            {
                continue;
            }
            seen.insert_unique(hash, distinct.len() as u32, |&i| distinct[i as usize].0);
            let word = match fold {
                false => Cow::Borrowed(as_written),
                true => Cow::Owned(word.to_owned()),
            };
            distinct.push((hash, word));
        }
        let mut out = Vec::with_capacity(distinct.len() * 2);
        let mut vocabulary = self.lock();
        for (hash, word) in distinct {
            leb128::push(&mut out, u64::from(vocabulary.number_hashed(hash, word)));
        }
        CodedWords(out.into_boxed_slice())
    }

    /// The words, for the index to read and add to (it adds the titles' and summaries').
    pub fn lock(&self) -> MutexGuard<'_, Words> {
        self.words.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Default for Vocabulary {
    fn default() -> Self {
        let words = Words::default();
        Self {
            hasher: words.hasher.clone(),
            words: Mutex::new(words),
        }
    }
}

impl Words {
    /// `word`'s number, added if new.
    pub fn number(&mut self, word: &str) -> u32 {
        let hash = self.hasher.hash_one(word);
        self.number_hashed(hash, Cow::Borrowed(word))
    }

    /// `word`'s number if it has one.
    pub fn get(&self, word: &str) -> Option<u32> {
        let hash = self.hasher.hash_one(word);
        self.table
            .find(hash, |&i| &*self.text[i as usize] == word)
            .copied()
    }

    /// The word numbered `number`.
    pub fn word(&self, number: u32) -> &str {
        &self.text[number as usize]
    }

    fn number_hashed(&mut self, hash: u64, word: Cow<'_, str>) -> u32 {
        let Self {
            hasher,
            table,
            text,
        } = self;
        if let Some(&number) = table.find(hash, |&i| *text[i as usize] == *word) {
            return number;
        }
        let number = text.len() as u32;
        table.insert_unique(hash, number, |&i| hasher.hash_one(&*text[i as usize]));
        text.push(word.into_owned().into_boxed_str());
        number
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(vocabulary: &Vocabulary, coded: &CodedWords) -> Vec<String> {
        let words = vocabulary.lock();
        coded.numbers().map(|n| words.word(n).to_string()).collect()
    }

    #[test]
    fn coding_keeps_each_word_once_in_first_seen_order() {
        let vocabulary = Vocabulary::default();
        // Enough other words first that numbers past one and two bytes are used.
        for i in 0..20_000 {
            vocabulary.code(&format!("filler{i}"));
        }
        let text = "Warp slots, warp SLOTS; __global__ (sm_90). filler3 filler19999 É✓ é✓";
        let coded = vocabulary.code(text);
        assert_eq!(
            decode(&vocabulary, &coded),
            [
                "warp",
                "slots",
                "__global__",
                "sm_90",
                "filler3",
                "filler19999",
                "é"
            ]
        );
        // Shared words keep their numbers: coding again adds nothing and gives the same.
        assert_eq!(vocabulary.code(text), coded);
        // The last new word has the next number: nothing else was added.
        assert_eq!(vocabulary.lock().get("é"), Some(20_004));
        assert!(decode(&vocabulary, &vocabulary.code(" ,; ")).is_empty());
    }

    #[test]
    fn words_are_found_by_text_and_number() {
        let vocabulary = Vocabulary::default();
        vocabulary.code("warp slot");
        let mut words = vocabulary.lock();
        assert_eq!(words.get("slot"), Some(1));
        assert_eq!(words.get("lane"), None);
        assert_eq!(words.number("lane"), 2);
        assert_eq!((words.get("lane"), words.word(2)), (Some(2), "lane"));
    }
}
