//! Reading order: the contents sidebar, grouped by section, and previous/next links.
//!
//! Sections are declared in glossary.toml (`[[sections]]`, in reading order); an entry
//! joins one with `section:` and takes its place in it with `order:`. Entries that name
//! no section follow the declared sections, grouped by kind (lessons by day, then guides,
//! then terms A-Z, by topic when terms name one: each topic in `Topic::ALL`'s order, then
//! the terms without one). Previous/next follow the sidebar from top to bottom.
//!
//! A sidebar lists every page while the site is small enough for that to stay cheap; a
//! larger site lists the section headings and, in the current section, a window of pages
//! around the current one, so pages stay small and a build stays linear in the number of
//! entries.

use std::collections::HashMap;

use serde::Serialize;
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

use crate::config::Config;
use crate::content::{Content, Entry, EntryId, IdSet, Kind, Topic};

use super::escape::escape_into;

/// Up to this many pages, every sidebar lists every page.
pub const FULL_SIDEBAR_PAGES: usize = 250;
/// Otherwise, how many neighbours on each side of the current page the sidebar lists.
const WINDOW: usize = 12;
/// ... and how many pages of each other section, as a way in.
const FIRST_PAGES: usize = 3;

/// The label an entry has in lists: a lesson's title ("Day 45 — occupancy"), otherwise
/// its short name.
pub fn list_label(e: &Entry) -> &str {
    match e.id.kind {
        Kind::Lesson => &e.meta.title,
        _ => e.name(),
    }
}

#[derive(Clone, Debug, PartialEq)]
struct Group {
    title: String,
    /// See [`Placing::bucket`].
    bucket: usize,
    /// Positions in `Navigation::order`, contiguous.
    start: usize,
    end: usize,
}

/// The site's reading order for one build.
#[derive(Clone, Debug, PartialEq)]
pub struct Navigation {
    /// Every page of the build, in reading order: (id, label).
    order: Vec<(EntryId, String)>,
    groups: Vec<Group>,
    position: HashMap<EntryId, usize>,
    /// How many sections glossary.toml declares: the buckets before the kinds' own.
    sections: usize,
}

#[derive(Serialize, Debug, PartialEq)]
pub struct NavLink {
    pub label: String,
    pub url: String,
}

#[derive(Serialize, Debug)]
pub struct SidebarGroup {
    pub title: String,
    /// The section's own page (`content/sections/`), which the title links to rather than
    /// the list listing it.
    pub url: Option<String>,
    /// Whether that page is the one showing the sidebar.
    pub head_current: bool,
    /// Pages in the group (a window of them on a large site) as list items, each
    /// `<li><a href="URL">LABEL</a></li>`, the current page's link with
    /// `aria-current="page"`. Made here rather than in the template, as mdBook makes its
    /// table of contents: looping over every page's link in Tera was about a tenth of a
    /// build's instructions (a template's loop iteration and lookups cost ~15,000
    /// instructions a link).
    pub list: String,
    /// Pages of the group not listed before and after the window.
    pub hidden_before: usize,
    pub hidden_after: usize,
    /// Whether this page is in the group.
    pub current: bool,
}

impl Navigation {
    pub fn new(config: &Config, content: &Content, pages: &IdSet) -> Navigation {
        let placing = Placing::new(config);
        let mut listed: Vec<&Entry> = content
            .entries
            .iter()
            .filter(|e| pages.contains(&e.id))
            .collect();
        listed.sort_by_cached_key(|e| placing.key(e));
        let mut groups: Vec<Group> = Vec::new();
        let mut order = Vec::with_capacity(listed.len());
        for (i, e) in listed.iter().enumerate() {
            let b = placing.bucket(e);
            match groups.last_mut() {
                Some(g) if g.bucket == b => g.end = i + 1,
                _ => groups.push(Group {
                    title: placing.title(b),
                    bucket: b,
                    start: i,
                    end: i + 1,
                }),
            }
            order.push((e.id.clone(), list_label(e).to_string()));
        }
        let position = order
            .iter()
            .enumerate()
            .map(|(i, (id, _))| (id.clone(), i))
            .collect();
        Navigation {
            order,
            groups,
            position,
            sections: config.sections.len(),
        }
    }

    /// Put `id` where `content` and `pages` now place it (or take it out when it has no
    /// page): what [`Navigation::new`] would make, without sorting every page again (a
    /// new order of 100,000 pages took 60 ms): one search for its new place and one pass
    /// over the positions.
    pub fn relocate(&mut self, config: &Config, content: &Content, pages: &IdSet, id: &EntryId) {
        let placing = Placing::new(config);
        self.sections = config.sections.len();
        let removed = self.position.remove(id);
        if let Some(i) = removed {
            self.order.remove(i);
            for g in &mut self.groups {
                if g.start > i {
                    g.start -= 1;
                }
                if g.end > i {
                    g.end -= 1;
                }
            }
            self.groups.retain(|g| g.start < g.end);
        }
        let inserted = content.get(id).filter(|_| pages.contains(id)).map(|e| {
            let key = placing.key(e);
            let j = self.order.partition_point(|(other, _)| {
                content.get(other).map(|o| placing.key(o)) < Some(key.clone())
            });
            self.order
                .insert(j, (id.clone(), list_label(e).to_string()));
            let b = placing.bucket(e);
            let joined = self.groups.iter().any(|g| g.bucket == b);
            for g in &mut self.groups {
                if g.bucket == b {
                    g.end += 1;
                } else if g.start >= j {
                    g.start += 1;
                    g.end += 1;
                }
            }
            if !joined {
                let at = self.groups.partition_point(|g| g.bucket < b);
                let title = placing.title(b);
                self.groups.insert(
                    at,
                    Group {
                        title,
                        bucket: b,
                        start: j,
                        end: j + 1,
                    },
                );
            }
            j
        });
        // Each page after the old place comes one earlier, then each from the new place
        // on one later: in one pass over the map's own memory rather than a lookup per
        // page that moved, whose cache misses made a rename across a 100,000-page site
        // take 20 ms.
        for at in self.position.values_mut() {
            if removed.is_some_and(|i| *at > i) {
                *at -= 1;
            }
            if inserted.is_some_and(|j| *at >= j) {
                *at += 1;
            }
        }
        if let Some(j) = inserted {
            self.position.insert(id.clone(), j);
        }
    }

    fn url(&self, i: usize, root: &str) -> String {
        self.order[i].0.page_url(root)
    }

    fn link(&self, i: usize, root: &str) -> NavLink {
        NavLink {
            label: self.order[i].1.clone(),
            url: self.url(i, root),
        }
    }

    /// The pages before and after `id` in reading order.
    pub fn prev_next(&self, id: &EntryId, root: &str) -> (Option<NavLink>, Option<NavLink>) {
        let Some(&i) = self.position.get(id) else {
            return (None, None);
        };
        let prev = i.checked_sub(1).map(|p| self.link(p, root));
        let next = (i + 1 < self.order.len()).then(|| self.link(i + 1, root));
        (prev, next)
    }

    /// The sidebar as seen from `current` (None: from a page that is no entry).
    pub fn sidebar(&self, current: Option<&EntryId>, root: &str) -> Vec<SidebarGroup> {
        let here = current.and_then(|id| self.position.get(id)).copied();
        let full = self.order.len() <= FULL_SIDEBAR_PAGES;
        // Beside topic groups, the terms without a topic are the other ones.
        let other_terms = self.sections + TERMS_BUCKET + Topic::ALL.len();
        let topics = self
            .groups
            .iter()
            .any(|g| (self.sections + TERMS_BUCKET..other_terms).contains(&g.bucket));
        self.groups
            .iter()
            .map(|g| {
                let is_current = here.is_some_and(|h| (g.start..g.end).contains(&h));
                // A section page sorts first in its group and heads it.
                let head = (self.order[g.start].0.kind == Kind::Section).then_some(g.start);
                let first = g.start + usize::from(head.is_some());
                let (from, to) = match (full, here) {
                    (true, _) => (first, g.end),
                    (false, Some(h)) if is_current => (
                        h.saturating_sub(WINDOW).max(first),
                        (h + WINDOW + 1).min(g.end).max(first),
                    ),
                    // A large site's other sections: the first few pages as a way in.
                    (false, _) => (first, (first + FIRST_PAGES).min(g.end)),
                };
                let mut list = String::with_capacity((to - from) * 80);
                for i in from..to {
                    list.push_str("<li><a href=\"");
                    escape_into(&mut list, &self.url(i, root));
                    list.push('"');
                    if Some(i) == here {
                        list.push_str(" aria-current=\"page\"");
                    }
                    list.push('>');
                    escape_into(&mut list, &self.order[i].1);
                    list.push_str("</a></li>");
                }
                SidebarGroup {
                    title: match topics && g.bucket == other_terms {
                        true => "Other terms".to_string(),
                        false => g.title.clone(),
                    },
                    url: head.map(|i| self.url(i, root)),
                    head_current: head.is_some() && head == here,
                    list,
                    hidden_before: from - first,
                    hidden_after: g.end - to,
                    current: is_current,
                }
            })
            .collect()
    }

    /// The pages whose sidebar or previous/next links change when the page `id` comes,
    /// goes or moves at its place in this order: its neighbours within the sidebar's
    /// window, the pages at either end of its section (whether they say that more pages
    /// come before or after them flips), and, when it is among its section's first pages,
    /// every page of the other sections (their sidebars list those). None on a small site,
    /// where every sidebar lists every page. The sidebar says that more pages exist, not
    /// how many, so that moving one page changes a few dozen others, not every page after
    /// it.
    pub fn shown_near(&self, id: &EntryId) -> Option<Vec<EntryId>> {
        // A section page heads its group in every sidebar.
        if id.kind == Kind::Section {
            return None;
        }
        let Some(&i) = self.position.get(id) else {
            return Some(Vec::new());
        };
        let g = self.groups.iter().find(|g| (g.start..g.end).contains(&i))?;
        if self.order.len() <= FULL_SIDEBAR_PAGES {
            return None;
        }
        let (before, after) = if i - g.start < FIRST_PAGES {
            (0..g.start, g.end..self.order.len())
        } else {
            (0..0, 0..0)
        };
        let window = i.saturating_sub(WINDOW).max(g.start)..(i + WINDOW + 1).min(g.end);
        // Previous/next links cross into the neighbouring sections.
        let pager = i.saturating_sub(1)..(i + 2).min(self.order.len());
        let head = g.start..(g.start + WINDOW + 2).min(g.end);
        let tail = g.end.saturating_sub(WINDOW + 2).max(g.start)..g.end;
        Some(
            [window, pager, head, tail, before, after]
                .into_iter()
                .flatten()
                .map(|p| self.order[p].0.clone())
                .collect(),
        )
    }

    /// The pages a section's own page lists below its body: the rest of its group, in
    /// reading order (what the sidebar lists under it, from the same pages of the build).
    /// Empty for any other page.
    pub fn section_members(&self, id: &EntryId) -> Vec<&EntryId> {
        let Some(&i) = self.position.get(id).filter(|_| id.kind == Kind::Section) else {
            return Vec::new();
        };
        match self.groups.iter().find(|g| g.start == i) {
            Some(g) => self.order[g.start + 1..g.end]
                .iter()
                .map(|(id, _)| id)
                .collect(),
            None => Vec::new(),
        }
    }

    /// Whether any section is declared and used: the index then lists the contents.
    pub fn has_sections(&self, config: &Config) -> bool {
        let declared = config.sections.len();
        self.groups.iter().any(|g| g.bucket < declared)
    }
}

/// Where an entry goes in the reading order: its bucket (a declared section, else
/// lessons, guides, terms without one) and its place in it.
struct Placing<'a> {
    config: &'a Config,
    declared: HashMap<&'a str, usize>,
}

impl<'a> Placing<'a> {
    fn new(config: &'a Config) -> Placing<'a> {
        let declared = config
            .sections
            .iter()
            .enumerate()
            .map(|(i, s)| (s.slug.as_str(), i))
            .collect();
        Placing { config, declared }
    }

    /// 0..n: the declared sections; then lessons, guides, and terms without one: a bucket
    /// per topic, in [`Topic::ALL`]'s order, then the terms without a topic. A section
    /// this build does not know (checked at load) falls to its kind's bucket.
    fn bucket(&self, e: &Entry) -> usize {
        match e.section().and_then(|s| self.declared.get(s)) {
            Some(&i) => i,
            None => {
                self.config.sections.len()
                    + match e.id.kind {
                        Kind::Lesson => 0,
                        Kind::Guide | Kind::Section => 1,
                        Kind::Term => TERMS_BUCKET + Topic::rank(e.meta.topic),
                    }
            }
        }
    }

    fn key(&self, e: &Entry) -> (usize, i64, u32, String, EntryId) {
        (
            self.bucket(e),
            match e.id.kind {
                Kind::Section => i64::MIN,
                _ => e.meta.order.unwrap_or(i64::MAX),
            },
            e.meta.day.unwrap_or(u32::MAX),
            sort_key(list_label(e)),
            e.id.clone(),
        )
    }

    fn title(&self, bucket: usize) -> String {
        match bucket.checked_sub(self.config.sections.len()) {
            None => self.config.sections[bucket].title.clone(),
            Some(0) => "Lessons".into(),
            Some(1) => "Guides".into(),
            // The terms without a topic are "Terms" on a site that uses none, "Other
            // terms" beside topic groups (decided in `sidebar`, from the groups shown).
            Some(k) => match Topic::ALL.get(k - TERMS_BUCKET) {
                Some(topic) => topic.title().into(),
                None => "Terms".into(),
            },
        }
    }
}

/// The first bucket of terms after the declared sections (lessons are 0, guides 1).
const TERMS_BUCKET: usize = 2;

/// How names sort in lists and the A-Z index: case- and accent-insensitively, ignoring
/// leading punctuation (`__syncthreads` sorts under S, `Éclair` and `Ärger` with the E and
/// A names). Names with no letter first (`3D grid`, `²`, only punctuation) sort before
/// every letter, so that [`index_letter`]'s `#` group is one run; a name's exact spelling
/// breaks ties where the callers need an order.
pub fn sort_key(name: &str) -> String {
    let name = name_start(name);
    // Most names are ASCII, where folding changes nothing but the case.
    let mut key: String = match name.is_ascii() {
        true => name.to_ascii_lowercase(),
        false => folded(name).collect(),
    };
    if !key.starts_with(|c: char| c.is_alphabetic()) {
        // Below every letter. ASCII digits sort there already, so ASCII names keep their
        // order; the key is never shown.
        key.insert(0, '\u{1}');
    }
    key
}

/// The A-Z heading a name is listed under: its first letter as [`sort_key`] folds it,
/// upper case (`Éclair` under E), or `#` for a digit or symbol.
///
/// A letter outside A-Z after folding (Greek, Cyrillic, CJK: `α`, `Ж`, `共`) gets its own
/// group, which sorts after Z (the keys compare by code point) and is listed after Z in
/// the jump bar. The heading is a function of the sort key's first character alone, and a
/// different one for each character, so each heading's rows are one run of the sorted
/// list: a letter whose upper case would not turn back into it (`ς` -> `Σ`)
/// stays as it is rather than join a group that sorts elsewhere.
pub fn index_letter(name: &str) -> String {
    match folded(name_start(name)).next() {
        Some(c) if c.is_alphabetic() => {
            let upper: String = c.to_uppercase().collect();
            let mut back = upper.chars().flat_map(char::to_lowercase);
            if back.next() == Some(c) && back.next().is_none() {
                upper
            } else {
                c.to_string()
            }
        }
        _ => "#".into(),
    }
}

/// `name` from its first letter or digit.
fn name_start(name: &str) -> &str {
    name.trim_start_matches(|c: char| !c.is_alphanumeric())
}

/// `s` as names compare: lower case, with accents and other combining marks dropped
/// (canonical decomposition, NFD: `É` is `E` and a combining acute accent), and the Latin
/// letters NFD leaves whole spelled as a reader of the language files them (`ø` as `o`,
/// `æ` as `ae`, `ł` as `l`, `ß` as `ss`, dotless `ı` as `i`). Other scripts stay as they are.
fn folded(s: &str) -> impl Iterator<Item = char> + '_ {
    s.chars()
        .flat_map(char::to_lowercase)
        .nfd()
        .filter(|&c| !is_combining_mark(c))
        .flat_map(|c| {
            let ascii = is_latin_letter(c)
                .then(|| deunicode::deunicode_char(c))
                .flatten()
                .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphabetic()));
            let (one, many) = match ascii {
                Some(s) => (None, Some(s.chars().flat_map(char::to_lowercase))),
                None => (Some(c), None),
            };
            one.into_iter().chain(many.into_iter().flatten())
        })
}

/// A letter of the Latin script beyond ASCII (Latin-1, Extended-A and -B, IPA, Extended
/// Additional).
fn is_latin_letter(c: char) -> bool {
    c.is_alphabetic() && matches!(c, '\u{c0}'..='\u{2af}' | '\u{1e00}'..='\u{1eff}')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Section;
    use std::path::PathBuf;

    fn entry(kind: Kind, slug: &str, yaml: &str) -> Entry {
        let meta = serde_yaml::from_str(yaml).expect("front matter");
        Entry {
            id: EntryId::new(kind, slug),
            path: PathBuf::from(format!("{slug}.md")),
            raw: String::new(),
            meta,
            body: String::new(),
            body_line: 1,
            thinned: None,
        }
    }

    fn config(sections: &[(&str, &str)]) -> Config {
        let mut c: Config =
            toml::from_str("title = \"t\"\nbase_url = \"https://x.org\"\n").unwrap();
        c.sections = sections
            .iter()
            .map(|(s, t)| Section {
                slug: s.to_string(),
                title: t.to_string(),
            })
            .collect();
        c
    }

    fn site() -> (Config, Content, IdSet) {
        let entries = vec![
            entry(
                Kind::Term,
                "warp",
                "title: W\nname: warp\nsummary: s\nsection: hw\norder: 2\n",
            ),
            entry(
                Kind::Term,
                "sm",
                "title: S\nname: SM\nsummary: s\nsection: hw\norder: 1\n",
            ),
            entry(
                Kind::Term,
                "block",
                "title: B\nname: block\nsummary: s\nsection: sw\n",
            ),
            entry(
                Kind::Term,
                "grid",
                "title: G\nname: grid\nsummary: s\nsection: sw\n",
            ),
            entry(Kind::Term, "loose", "title: L\nname: loose\nsummary: s\n"),
            entry(
                Kind::Lesson,
                "day-2",
                "title: Day 2 — b\nsummary: s\nday: 2\n",
            ),
            entry(
                Kind::Lesson,
                "day-1",
                "title: Day 1 — a\nsummary: s\nday: 1\n",
            ),
        ];
        let content = Content::from_entries(entries);
        let pages = content.entries.iter().map(|e| e.id.clone()).collect();
        (
            config(&[("sw", "Software"), ("hw", "Hardware")]),
            content,
            pages,
        )
    }

    /// The link texts of a group's list, in order.
    fn labels(list: &str) -> Vec<String> {
        list.split("</a></li>")
            .filter_map(|item| item.rsplit_once('>').map(|(_, label)| label.to_string()))
            .collect()
    }

    #[test]
    fn sections_in_declared_order_then_by_order_then_name() {
        let (config, content, pages) = site();
        let nav = Navigation::new(&config, &content, &pages);
        let groups = nav.sidebar(None, "");
        let shown: Vec<(String, Vec<String>)> = groups
            .iter()
            .map(|g| (g.title.clone(), labels(&g.list)))
            .collect();
        assert_eq!(
            shown,
            vec![
                ("Software".into(), vec!["block".into(), "grid".into()]),
                ("Hardware".into(), vec!["SM".into(), "warp".into()]),
                (
                    "Lessons".into(),
                    vec!["Day 1 — a".into(), "Day 2 — b".into()]
                ),
                ("Terms".into(), vec!["loose".into()]),
            ]
        );
        assert!(nav.has_sections(&config));
    }

    #[test]
    fn previous_and_next_cross_section_boundaries() {
        let (config, content, pages) = site();
        let nav = Navigation::new(&config, &content, &pages);
        let (prev, next) = nav.prev_next(&EntryId::new(Kind::Term, "grid"), "../../");
        assert_eq!(prev.unwrap().url, "../../terms/block/index.html");
        assert_eq!(next.unwrap().label, "SM");
        let (prev, _) = nav.prev_next(&EntryId::new(Kind::Term, "block"), "");
        assert!(prev.is_none());
        let (_, next) = nav.prev_next(&EntryId::new(Kind::Term, "loose"), "");
        assert!(next.is_none());
    }

    #[test]
    fn sidebar_marks_the_current_page_and_section() {
        let (config, content, pages) = site();
        let nav = Navigation::new(&config, &content, &pages);
        let groups = nav.sidebar(Some(&EntryId::new(Kind::Term, "warp")), "../../");
        let hw = &groups[1];
        assert!(hw.current && !groups[0].current);
        let items: Vec<&str> = hw.list.split_inclusive("</li>").collect();
        assert!(!items[0].contains("aria-current"), "{}", hw.list);
        assert_eq!(
            items[1],
            r#"<li><a href="../../terms/warp/index.html" aria-current="page">warp</a></li>"#
        );
        assert_eq!(hw.list.matches("aria-current").count(), 1, "{}", hw.list);
    }

    #[test]
    fn large_sites_show_a_window() {
        let entries: Vec<Entry> = (0..600)
            .map(|i| {
                entry(
                    Kind::Term,
                    &format!("t{i:03}"),
                    &format!("title: T\nname: t{i:03}\nsummary: s\n"),
                )
            })
            .collect();
        let content = Content::from_entries(entries);
        let pages = content.entries.iter().map(|e| e.id.clone()).collect();
        let nav = Navigation::new(&config(&[]), &content, &pages);
        let g = nav.sidebar(Some(&EntryId::new(Kind::Term, "t300")), "");
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].list.matches("<li>").count(), 2 * WINDOW + 1);
        assert_eq!(g[0].hidden_before, 300 - WINDOW);
        assert_eq!(g[0].hidden_after, 600 - 301 - WINDOW);
    }

    #[test]
    fn index_letters_skip_leading_punctuation() {
        assert_eq!(index_letter("__syncthreads"), "S");
        assert_eq!(index_letter("3D grid"), "#");
        assert_eq!(sort_key("__syncthreads"), "syncthreads");
    }

    /// The A-Z index groups rows by heading as the sorted list runs, so a heading must
    /// never come back after another one.
    fn headings_in_sorted_order(names: &[&str]) -> Vec<String> {
        let mut names = names.to_vec();
        names.sort_by_key(|n| (sort_key(n), n.to_string()));
        let mut headings: Vec<String> = names.iter().map(|n| index_letter(n)).collect();
        headings.dedup();
        headings
    }

    #[test]
    fn accented_latin_names_file_and_sort_under_their_base_letter() {
        assert_eq!(index_letter("Éclair"), "E");
        assert_eq!(index_letter("ärger"), "A");
        assert_eq!(index_letter("__Ötzi"), "O");
        let mut names = vec!["Warp", "Éclair", "Eager", "Zeta", "Ärger", "Alpha", "Ef"];
        names.sort_by_key(|n| sort_key(n));
        assert_eq!(
            names,
            ["Alpha", "Ärger", "Eager", "Éclair", "Ef", "Warp", "Zeta"]
        );
        assert_eq!(headings_in_sorted_order(&names), ["A", "E", "W", "Z"]);
    }

    #[test]
    fn latin_letters_without_a_decomposition_file_under_the_letter_read() {
        assert_eq!(index_letter("Ørsted"), "O");
        assert_eq!(index_letter("Æther"), "A");
        assert_eq!(index_letter("Łódź"), "L");
        assert_eq!(index_letter("ßeta"), "S");
        let mut names = vec![
            "Zeta", "Ørsted", "Oak", "Ox", "Łódź", "Lane", "Æther", "Aft",
        ];
        names.sort_by_key(|n| sort_key(n));
        assert_eq!(
            names,
            ["Æther", "Aft", "Lane", "Łódź", "Oak", "Ørsted", "Ox", "Zeta"]
        );
        assert_eq!(headings_in_sorted_order(&names), ["A", "L", "O", "Z"]);
    }

    #[test]
    fn other_scripts_get_their_own_groups_after_z_and_symbols_stay_first() {
        assert_eq!(index_letter("αλφα"), "Α");
        assert_eq!(index_letter("Ψ-function"), "Ψ");
        assert_eq!(index_letter("Жук"), "Ж");
        assert_eq!(index_letter("共享内存"), "共");
        assert_eq!(index_letter("²-norm"), "#");
        assert_eq!(index_letter("..."), "#");
        let names = [
            "Zeta",
            "αλφα",
            "Άλφα",
            "3D grid",
            "²-norm",
            "Жук",
            "共享内存",
            "...",
            "ıx",
            "Ix",
            "ςx",
            "Σx",
            "Warp",
        ];
        assert_eq!(
            headings_in_sorted_order(&names),
            ["#", "I", "W", "Z", "Α", "ς", "Σ", "Ж", "共"]
        );
    }

    #[test]
    fn ascii_names_keep_their_order() {
        // The keys changed for names that start with a digit or symbol; the order did not.
        let mut names = vec!["b", "_a", "3D", "A", "10x", "", "#!", "a b", "Z", "0"];
        names.sort_by_key(|n| sort_key(n));
        let mut old = names.clone();
        old.sort_by_key(|n| {
            n.trim_start_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        });
        assert_eq!(names, old);
    }

    #[test]
    fn relocating_one_entry_gives_what_a_new_order_would() {
        let (config, mut content, mut pages) = site();
        let mut nav = Navigation::new(&config, &content, &pages);
        let moves: Vec<(&str, &str, bool)> = vec![
            // Renamed within its section, to another section, out of every section, a
            // page that goes (the last of its group), and comes back.
            (
                "warp",
                "title: W\nname: a warp\nsummary: s\nsection: hw\n",
                true,
            ),
            (
                "block",
                "title: B\nname: block\nsummary: s\nsection: hw\norder: 1\n",
                true,
            ),
            ("sm", "title: S\nname: zz\nsummary: s\n", true),
            ("loose", "title: L\nname: loose\nsummary: s\n", false),
            (
                "grid",
                "title: G\nname: grid\nsummary: s\nsection: sw\n",
                false,
            ),
            (
                "grid",
                "title: G\nname: grid\nsummary: s\nsection: sw\n",
                true,
            ),
            ("loose", "title: L\nname: aaa\nsummary: s\n", true),
            // Into a topic group of its own, then another topic, then none again.
            (
                "loose",
                "title: L\nname: aaa\nsummary: s\ntopic: tools\n",
                true,
            ),
            (
                "sm",
                "title: S\nname: zz\nsummary: s\ntopic: memory\n",
                true,
            ),
            (
                "loose",
                "title: L\nname: aaa\nsummary: s\ntopic: memory\n",
                true,
            ),
            ("sm", "title: S\nname: zz\nsummary: s\n", true),
        ];
        for (slug, yaml, has_page) in moves {
            let e = entry(Kind::Term, slug, yaml);
            let id = e.id.clone();
            content.replace(e);
            if has_page {
                pages.insert(id.clone());
            } else {
                pages.remove(&id);
            }
            nav.relocate(&config, &content, &pages, &id);
            assert_eq!(
                nav,
                Navigation::new(&config, &content, &pages),
                "after {slug}"
            );
        }
    }

    #[test]
    fn unsectioned_terms_are_grouped_by_topic_in_its_order_then_the_others() {
        let entries = vec![
            entry(
                Kind::Term,
                "z",
                "title: Z\nname: zeta\nsummary: s\ntopic: tools\n",
            ),
            entry(
                Kind::Term,
                "b",
                "title: B\nname: beta\nsummary: s\ntopic: memory\n",
            ),
            entry(
                Kind::Term,
                "a",
                "title: A\nname: alpha\nsummary: s\ntopic: memory\n",
            ),
            entry(
                Kind::Term,
                "x",
                "title: X\nname: xi\nsummary: s\ntopic: execution\n",
            ),
            entry(Kind::Term, "o", "title: O\nname: omega\nsummary: s\n"),
            entry(
                Kind::Term,
                "s",
                "title: S\nname: sm\nsummary: s\nsection: hw\ntopic: tools\n",
            ),
        ];
        let content = Content::from_entries(entries);
        let pages = content.entries.iter().map(|e| e.id.clone()).collect();
        let hw = config(&[("hw", "Hardware")]);
        let nav = Navigation::new(&hw, &content, &pages);
        let shown: Vec<(String, Vec<String>)> = nav
            .sidebar(None, "")
            .iter()
            .map(|g| (g.title.clone(), labels(&g.list)))
            .collect();
        let group = |t: &str, names: &[&str]| {
            (t.to_string(), names.iter().map(|n| n.to_string()).collect())
        };
        // A term in a section stays there; the rest by topic, the topicless last.
        assert_eq!(
            shown,
            vec![
                group("Hardware", &["sm"]),
                group("Memory", &["alpha", "beta"]),
                group("Execution", &["xi"]),
                group("Tools", &["zeta"]),
                group("Other terms", &["omega"]),
            ]
        );
        let (_, next) = nav.prev_next(&EntryId::new(Kind::Term, "b"), "");
        assert_eq!(next.unwrap().label, "xi");
        assert!(nav.has_sections(&hw));
        let none = config(&[]);
        assert!(!Navigation::new(&none, &content, &pages).has_sections(&none));
    }
}
