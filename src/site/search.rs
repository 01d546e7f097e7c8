//! The static search index. Built at build time from published entries only and searched
//! in the reader's browser by `static/search.js`: no server, no third-party service.
//!
//! One query must not download the whole index (at 100,000 entries a single file would be
//! over 100 MB), so the index is an inverted index split into shards by token prefix:
//!
//! - `search/manifest.js`: the number of entries, the documents' chunk size and every
//!   shard's key and size. Small (a few KB at 10,000 entries).
//! - `search/s-<hex of key>.js`: the tokens starting with `key` (two characters, or the
//!   whole token when shorter), each with the ids of the entries that contain it, split by
//!   where: title/name, summary, body. A shard over [`SHARD_BUDGET`] is split one
//!   character deeper, so a common prefix ("th") does not make one huge file; the token
//!   equal to the key stays in the key's shard, so a word is always in the shard whose
//!   key is its longest prefix in the manifest.
//! - `search/d-<n>.js`: entries `n*CHUNK ..` as `[name, kind, summary, url]`, loaded only
//!   for the results shown. The summary is the HTML pages show (inline Markdown rendered
//!   and escaped by `inline.rs`, links from the site root); `search.js` copies only its
//!   text, `a`, `code`, `em`, `strong` and `del` into the page.
//!
//! Each file is a script that calls `glossarySearch.*` (defined by `search.js`) rather than
//! JSON, so search also works on a site opened straight from disk (browsers refuse `fetch`
//! on `file://`). Entry ids follow the names' order, so ties rank alphabetically without
//! loading every matching entry's name.

use std::fmt::Write as _;
use std::path::PathBuf;

use super::leb128;
use super::published::PublishedPage;
use super::tokens::{tokens, words};
use super::words::{CodedWords, Vocabulary, Words};
use crate::error::Result;
use crate::render::pages::entry_inline;
use crate::render::{OutputFile, RenderInput};

/// The global the index scripts call; `search.js` defines it.
pub const SCRIPT_GLOBAL: &str = "glossarySearch";
/// Where the index files go, relative to the site root.
pub const DIR: &str = "search";
/// Entries per document chunk: ten results touch at most ten chunks of ~13 KB (at
/// 100,000 entries the worst one-word query then downloads ~450 KB in all).
pub const CHUNK: usize = 64;
/// A shard larger than this (bytes) is split one character deeper.
pub const SHARD_BUDGET: usize = 96 * 1024;
/// The first characters of a token that name its shard before any split.
const KEY_CHARS: usize = 2;

/// Where in an entry a token occurs; the highest wins, and ranks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Field {
    Body = 0,
    Summary = 1,
    Title = 2,
}

/// Per token: the entries it occurs in, each under the highest field it occurs in there,
/// as `id * 4 + field` in increasing order (entries are noted in id order), held as the
/// gaps between them in LEB128 (7 bits a byte). The index of a 100,000-entry site notes
/// about 18 million of these, most a byte or two apart: as three `Vec<u32>` per token,
/// they and the token table were over 100 MB of the build's peak.
#[derive(Default)]
struct Postings {
    gaps: Vec<u8>,
    len: u32,
    last: u64,
}

impl Postings {
    /// Note entry `id` under `field`; `id` is larger than every id already noted.
    fn push(&mut self, id: u32, field: Field) {
        let value = (u64::from(id) << 2) | field as u64;
        // `last` starts at 0, so the first gap is the first value.
        leb128::push(&mut self.gaps, value - self.last);
        self.last = value;
        self.len += 1;
    }

    /// How many entries have the token.
    fn len(&self) -> usize {
        self.len as usize
    }

    /// The ids under each field (indexed by [`Field`]), in increasing order.
    fn by_field(&self) -> [Vec<u32>; 3] {
        let mut lists: [Vec<u32>; 3] = Default::default();
        let mut bytes = self.gaps.iter();
        let mut value = 0u64;
        while let Some(gap) = leb128::next(&mut bytes) {
            value += gap;
            lists[(value & 3) as usize].push((value >> 2) as u32);
        }
        lists
    }
}

/// A normalized whole title, name or alias (tokens joined by one space) and the entry it
/// names, kept with the name's rarest token, whose shard a query of exactly that name
/// loads, so it answers "is this exactly a name": an abbreviation like "SM" then ranks the
/// entry it names first. A flat list sorted once rather than a map per token: at 100,000
/// entries a map per token was about 90 MB of the build's peak.
struct WholeName {
    /// The rarest token's place in the sorted token list.
    token: u32,
    name: String,
    id: u32,
}

/// Each published page's body words, in the order of the pages given with them: lent
/// where the caller keeps them (`serve` remakes the index after an edit; as
/// [`super::tokens::distinct_words`] makes them), or coded and given, so the index lets each go once it
/// is noted (a build: see [`super::words`]).
pub enum Bodies<'a> {
    Lent(Vec<&'a str>),
    Coded(&'a Vocabulary, Vec<CodedWords>),
}

impl Bodies<'_> {
    /// Page `i`'s words as numbers in `words`; coded ones are let go.
    fn note(&mut self, i: usize, words: &mut Words, mut note: impl FnMut(u32)) {
        match self {
            Bodies::Lent(v) => {
                let text = v.get(i).copied().unwrap_or_default();
                text.split(' ')
                    .filter(|w| !w.is_empty())
                    .for_each(|w| note(words.number(w)));
            }
            Bodies::Coded(_, v) => {
                if let Some(coded) = v.get_mut(i).map(std::mem::take) {
                    coded.numbers().for_each(note);
                }
            }
        }
    }
}

/// Asked now and then while the index is made; true gives up (None): `serve` makes the
/// index between saves and drops it for a save that comes meanwhile (at 100,000 entries
/// it takes seconds).
pub type Stop<'a> = &'a (dyn Fn() -> bool + Sync);

pub fn index_files(
    input: &RenderInput<'_>,
    pages: &[PublishedPage<'_>],
    bodies: Bodies<'_>,
) -> Vec<OutputFile> {
    index_files_until(input, pages, bodies, &|| false).unwrap_or_default()
}

/// [`index_files`], or None when `stop` says so.
pub fn index_files_until(
    input: &RenderInput<'_>,
    pages: &[PublishedPage<'_>],
    bodies: Bodies<'_>,
    stop: Stop<'_>,
) -> Option<Vec<OutputFile>> {
    let mut files = Vec::new();
    let made = index_files_into(input, pages, bodies, stop, &mut |f| {
        files.push(f);
        Ok(())
    });
    made.ok()??;
    Some(files)
}

/// The index files, each handed to `out` as soon as it is made (a build writes them at
/// once: held until the end, the shards were about 45 MB at 100,000 entries besides the
/// index they are made from). None when `stop` says so.
pub fn index_files_into(
    input: &RenderInput<'_>,
    pages: &[PublishedPage<'_>],
    mut bodies: Bodies<'_>,
    stop: Stop<'_>,
    out: &mut dyn FnMut(OutputFile) -> Result<()>,
) -> Result<Option<()>> {
    // Ids in name order, so equal scores rank alphabetically by id alone; each with its
    // place in `pages` (and `bodies`).
    let mut order: Vec<(usize, &PublishedPage<'_>)> = pages.iter().enumerate().collect();
    order.sort_by_cached_key(|(_, p)| (p.entry.name().to_lowercase(), p.file_url()));
    // The summary as pages show it (inline Markdown: links, code), with links written from
    // the site root: search.js puts the showing page's root in front. Its plain text is
    // what is searched, so link targets and markup are not words.
    let mut summaries: Vec<crate::render::inline::Inline> = order
        .iter()
        .map(|(_, p)| entry_inline(input, p.entry, &p.entry.meta.summary, ""))
        .collect();
    if stop() {
        return Ok(None);
    }

    // The index works on word numbers: a build's bodies come as numbers in its
    // vocabulary, and the other words (and `serve`'s lent bodies) are numbered there too.
    let mut own = Words::default();
    let mut lock = match &bodies {
        Bodies::Coded(vocabulary, _) => Some(vocabulary.lock()),
        Bodies::Lent(_) => None,
    };
    let vocabulary: &mut Words = match &mut lock {
        Some(locked) => locked,
        None => &mut own,
    };
    // By word number: its postings; the entry it was last noted for and the highest
    // field there; the words the entry being noted has.
    let mut index: Vec<Postings> = Vec::new();
    let mut noted: Vec<(u32, Field)> = Vec::new();
    let mut has: Vec<u32> = Vec::new();
    // (a whole title, name or alias as its words joined by one space, its entry id)
    let mut whole_names: Vec<(String, u32)> = Vec::new();
    for (id, &(at, page)) in order.iter().enumerate() {
        if id % 1024 == 0 && stop() {
            return Ok(None);
        }
        let id = id as u32;
        let meta = &page.entry.meta;
        let mut note = |number: u32, field: Field| {
            let number = number as usize;
            if number >= noted.len() {
                noted.resize(number + 1, (u32::MAX, Field::Body));
            }
            let slot = &mut noted[number];
            if slot.0 == id {
                slot.1 = slot.1.max(field);
            } else {
                *slot = (id, field);
                has.push(number as u32);
            }
        };
        bodies.note(at, vocabulary, |number| note(number, Field::Body));
        // Only the HTML is read again (for the documents); the text goes once noted.
        let summary = std::mem::take(&mut summaries[id as usize].text);
        let mut names = vec![meta.title.as_str(), page.entry.name()];
        // Aliases (abbreviations, other names) are found as the name is.
        names.extend(meta.aliases.iter().map(String::as_str));
        for (text, field) in std::iter::once((summary.as_str(), Field::Summary))
            .chain(names.iter().map(|&name| (name, Field::Title)))
        {
            for word in words(text) {
                note(vocabulary.number(&word), field);
            }
        }
        index.resize_with(noted.len(), Postings::default);
        for number in has.drain(..) {
            index[number as usize].push(id, noted[number as usize].1);
        }
        // The whole title, name or alias equal to the query ranks first: "SM" finds the
        // entry that has it as its abbreviation before every entry that mentions SMs.
        for name in names {
            let words = tokens(name).collect::<Vec<_>>().join(" ");
            if !words.is_empty() {
                whole_names.push((words, id));
            }
        }
    }
    drop((noted, has, bodies));

    if stop() {
        return Ok(None);
    }
    // The words of published entries, sorted; and each word's place in that list.
    let mut sorted: Vec<u32> = (0..index.len() as u32)
        .filter(|&number| index[number as usize].len() > 0)
        .collect();
    sorted.sort_unstable_by(|&a, &b| vocabulary.word(a).cmp(vocabulary.word(b)));
    let mut place = vec![u32::MAX; index.len()];
    for (i, &number) in sorted.iter().enumerate() {
        place[number as usize] = i as u32;
    }
    // Each whole name is kept with its rarest word, which every query equal to it loads:
    // under the first word, 10,000 titles "What is …?" would all sit with "what". Every
    // word of a name was noted above, so each has its number.
    let mut names: Vec<WholeName> = whole_names
        .into_iter()
        .filter_map(|(name, id)| {
            let number = name
                .split(' ')
                .filter_map(|w| Some((vocabulary.get(w)?, w)))
                .min_by_key(|&(number, w)| (index[number as usize].len(), w))?
                .0;
            Some(WholeName {
                token: place[number as usize],
                name,
                id,
            })
        })
        .collect();
    drop(place);
    // By word, then by name (as the records list them), then by id; one id per name.
    names.sort_unstable_by(|a, b| (a.token, &a.name, a.id).cmp(&(b.token, &b.name, b.id)));
    names.dedup_by(|a, b| (a.token, &a.name, a.id) == (b.token, &b.name, b.id));
    let n = order.len();
    let mut names = names.into_iter().peekable();
    // Records are made and written one top-level group (the tokens of one shard key
    // before any split) at a time: the groups are independent, and all records at once
    // were about 40 MB at 100,000 entries, at the build's peak.
    let mut shards = Vec::new();
    let mut group: Vec<(&str, String)> = Vec::new();
    for (i, &number) in sorted.iter().enumerate() {
        let token = vocabulary.word(number);
        // Let go once in its record.
        let p = std::mem::take(&mut index[number as usize]);
        let same = |(last, _): &(&str, String)| prefix(last, KEY_CHARS) == prefix(token, KEY_CHARS);
        if !group.last().is_none_or(same) {
            split_shards(&mut group, None, out, &mut shards)?;
            group.clear();
        }
        let mut own = Vec::new();
        while let Some(name) = names.next_if(|w| w.token as usize == i) {
            own.push(name);
        }
        let record = record_json(token, &p, &own, n);
        group.push((token, record));
    }
    split_shards(&mut group, None, out, &mut shards)?;
    drop((group, index, sorted));
    drop(lock);

    for (i, (chunk, summaries)) in order.chunks(CHUNK).zip(summaries.chunks(CHUNK)).enumerate() {
        let docs: Vec<(&str, &str, &str, String)> = chunk
            .iter()
            .zip(summaries)
            .map(|((_, p), summary)| {
                (
                    p.entry.name(),
                    p.entry.id.kind.singular(),
                    summary.html.as_str(),
                    p.file_url(),
                )
            })
            .collect();
        let json = serde_json::to_string(&docs).unwrap_or_else(|_| "[]".into());
        out(script(
            format!("d-{i}.js"),
            format!("{SCRIPT_GLOBAL}.docs({i},{json});\n"),
        ))?;
    }

    let mut manifest =
        format!("{SCRIPT_GLOBAL}.manifest({{\"n\":{n},\"chunk\":{CHUNK},\"shards\":{{");
    for (i, (key, size)) in shards.iter().enumerate() {
        if i > 0 {
            manifest.push(',');
        }
        let _ = write!(manifest, "{}:{size}", json_string(key));
    }
    manifest.push_str("}});\n");
    out(script("manifest.js".into(), manifest))?;
    Ok(Some(()))
}

/// The shard file name for `key`: hex of its UTF-8, so any word makes a safe file name.
pub fn shard_file(key: &str) -> String {
    let mut name = String::from("s-");
    for b in key.as_bytes() {
        let _ = write!(name, "{b:02x}");
    }
    name.push_str(".js");
    name
}

fn script(name: String, text: String) -> OutputFile {
    // `</` inside a string is harmless in a .js file, but escaping it keeps the same text
    // safe if someone inlines it into a page.
    let text = if text.contains("</") {
        text.replace("</", "<\\/")
    } else {
        text
    };
    OutputFile {
        path: PathBuf::from(DIR).join(name),
        bytes: text.into_bytes(),
    }
}

fn prefix(token: &str, chars: usize) -> &str {
    match token.char_indices().nth(chars) {
        Some((i, _)) => &token[..i],
        None => token,
    }
}

/// Writes `records` (sorted by token) as shards. At the top (`key` None) tokens are
/// grouped by their first [`KEY_CHARS`] characters; a group over budget keeps only the
/// token equal to its key and splits the rest one character deeper. Each record is let
/// go once in its shard, so the index is not held twice (records and shards).
fn split_shards(
    records: &mut [(&str, String)],
    key: Option<&str>,
    out: &mut dyn FnMut(OutputFile) -> Result<()>,
    shards: &mut Vec<(String, usize)>,
) -> Result<()> {
    let depth = key.map_or(KEY_CHARS, |k| k.chars().count() + 1);
    let groups = records.chunk_by_mut(|a, b| prefix(a.0, depth) == prefix(b.0, depth));
    for group in groups {
        let group_key = prefix(group[0].0, depth).to_string();
        let group_key = group_key.as_str();
        let size: usize = group.iter().map(|r| r.1.len() + 1).sum();
        let longer = group.iter().any(|r| r.0.len() > group_key.len());
        if size <= SHARD_BUDGET || !longer {
            emit(group_key, group, out, shards)?;
            continue;
        }
        // Sorted, so the token equal to the key (if any) comes first.
        let (own, rest) = match group.first() {
            Some(first) if first.0 == group_key => group.split_at_mut(1),
            _ => group.split_at_mut(0),
        };
        if !own.is_empty() {
            emit(group_key, own, out, shards)?;
        }
        split_shards(rest, Some(group_key), out, shards)?;
    }
    Ok(())
}

fn emit(
    key: &str,
    group: &mut [(&str, String)],
    out: &mut dyn FnMut(OutputFile) -> Result<()>,
    shards: &mut Vec<(String, usize)>,
) -> Result<()> {
    let mut text = format!("{SCRIPT_GLOBAL}.shard({},{{", json_string(key));
    for (i, (_, record)) in group.iter_mut().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(record);
        *record = String::new();
    }
    text.push_str("});\n");
    shards.push((key.to_string(), text.len()));
    out(script(shard_file(key), text))
}

/// `"token":[title,summary,body]` or `…,{name:ids}]`, each id list encoded by [`ids`].
/// `names` are the token's whole names, sorted by name and then id.
fn record_json(token: &str, p: &Postings, names: &[WholeName], n: usize) -> String {
    let mut out = json_string(token);
    out.push_str(":[");
    let lists = p.by_field();
    for (i, field) in [Field::Title, Field::Summary, Field::Body]
        .into_iter()
        .enumerate()
    {
        if i > 0 {
            out.push(',');
        }
        out.push('"');
        out.push_str(&ids(&lists[field as usize], n));
        out.push('"');
    }
    if !names.is_empty() {
        out.push_str(",{");
        for (i, group) in names.chunk_by(|a, b| a.name == b.name).enumerate() {
            if i > 0 {
                out.push(',');
            }
            let list: Vec<u32> = group.iter().map(|w| w.id).collect();
            let _ = write!(out, "{}:\"{}\"", json_string(&group[0].name), ids(&list, n));
        }
        out.push('}');
    }
    out.push(']');
    out
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// A sorted id list as the shorter of: gaps in base 36 joined by `,` (rare words), or
/// `=` and a base64 bitmap of all `n` entries (common words: at most n/6 characters, so a
/// word in every one of 100,000 entries costs 17 KB).
pub fn ids(list: &[u32], n: usize) -> String {
    let mut sparse = String::new();
    let mut prev = 0u32;
    for (i, &id) in list.iter().enumerate() {
        if i > 0 {
            sparse.push(',');
        }
        push_base36(&mut sparse, if i == 0 { id } else { id - prev });
        prev = id;
    }
    let bitmap_len = n.div_ceil(6) + 1;
    if sparse.len() <= bitmap_len {
        return sparse;
    }
    let mut bits = vec![0u8; n.div_ceil(8)];
    for &id in list {
        bits[id as usize / 8] |= 1 << (id % 8);
    }
    let mut out = String::from("=");
    out.push_str(&base64(&bits));
    out
}

fn push_base36(out: &mut String, mut v: u32) {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut buf = [0u8; 7];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = DIGITS[(v % 36) as usize];
        v /= 36;
        if v == 0 {
            break;
        }
    }
    out.extend(buf[i..].iter().map(|&b| b as char));
}

/// Standard base64 with padding, as the browser's `atob` reads it.
fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let b = [c[0], *c.get(1).unwrap_or(&0), *c.get(2).unwrap_or(&0)];
        let v = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= c.len() {
                out.push(A[((v >> (18 - 6 * k)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ids read back under the fields they were noted with, whatever their gaps' widths.
    #[test]
    fn postings_give_each_fields_ids_back() {
        let noted = [0, 1, 31, 32, 127, 300, 16_383, 16_384, 2_000_000, u32::MAX];
        let fields = [Field::Body, Field::Title, Field::Summary];
        let mut p = Postings::default();
        let mut want: [Vec<u32>; 3] = Default::default();
        for (i, &id) in noted.iter().enumerate() {
            let field = fields[i % 3];
            p.push(id, field);
            want[field as usize].push(id);
        }
        assert_eq!((p.by_field(), p.len()), (want, noted.len()));
    }

    #[test]
    fn id_lists_are_gaps_when_sparse_and_a_bitmap_when_dense() {
        assert_eq!(ids(&[3, 5, 40], 1000), "3,2,z");
        let all: Vec<u32> = (0..24).collect();
        assert_eq!(ids(&all, 24), "=////");
        assert_eq!(base64(b"Ma"), "TWE=");
        assert_eq!(base64(b"M"), "TQ==");
    }

    #[test]
    fn shard_names_are_hex_of_the_key() {
        assert_eq!(shard_file("sm"), "s-736d.js");
        assert_eq!(prefix("wärp", 2), "wä");
        assert_eq!(prefix("a", 2), "a");
    }
}

#[cfg(test)]
mod split_tests {
    use super::*;

    #[test]
    fn an_over_budget_prefix_splits_one_character_deeper() {
        // 300 tokens starting "th", each record ~0.5 KB: over budget for one shard.
        let mut records: Vec<(String, String)> = (0..300)
            .map(|i| {
                let token = format!("th{}{i}", (b'a' + (i % 3) as u8) as char);
                let record = format!("\"{token}\":[\"{}\",\"\",\"\"]", "x".repeat(500));
                (token, record)
            })
            .collect();
        records.push(("th".into(), "\"th\":[\"0\",\"\",\"\"]".into()));
        records.push(("ok".into(), "\"ok\":[\"0\",\"\",\"\"]".into()));
        records.sort();
        let mut records: Vec<(&str, String)> = records
            .iter()
            .map(|(token, record)| (token.as_str(), record.clone()))
            .collect();
        let (mut files, mut shards) = (Vec::new(), Vec::new());
        let mut keep = |f| {
            files.push(f);
            Ok(())
        };
        split_shards(&mut records, None, &mut keep, &mut shards).unwrap();
        let keys: Vec<&str> = shards.iter().map(|s| s.0.as_str()).collect();
        assert_eq!(keys, ["ok", "th", "tha", "thb", "thc"]);
        assert!(shards.iter().all(|s| s.1 <= SHARD_BUDGET), "{shards:?}");
        let th = String::from_utf8_lossy(&files[1].bytes).into_owned();
        assert_eq!(
            th,
            "glossarySearch.shard(\"th\",{\"th\":[\"0\",\"\",\"\"]});\n"
        );
    }
}
