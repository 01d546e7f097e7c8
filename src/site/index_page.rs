//! The home page, `index.html`: the contents by section (when glossary.toml declares
//! sections), the terms by topic (when a term names one), every term A-Z with its aliases
//! and a jump bar of letters, lessons by day, guides.
//!
//! The A-Z list is the largest file of a large site (21 MB at 100,000 terms) and the page
//! an author looks at after renaming a term, so it is made in parts: each letter group is
//! rendered on its own through `index_letter.html`, and `index.html` puts the groups'
//! HTML in place. [`AzIndex`] keeps every row and every group's HTML between `serve`
//! rebuilds: after an edit only the changed entries' rows are remade and only the groups
//! they leave or join are rendered again. A build makes the same parts the same way, so
//! both write the same bytes.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;

use rayon::prelude::*;
use serde::Serialize;
use tera::Context;

use super::site_links::{page_links, PageLinks};
use crate::content::{Entry, EntryId, Kind, Topic};
use crate::error::Result;
use crate::render::entry_lists::LinkCtx;
use crate::render::escape::escape_into;
use crate::render::navigation::{index_letter, list_label, sort_key};
use crate::render::pages::{link_to, site_ctx};
use crate::render::templates::{render as render_template, LETTER_TEMPLATE};
use crate::render::{OutputFile, RenderInput};

/// The home page of a build. Nothing is kept for a later render, so each letter group's
/// rows are made only while the group is rendered: [`AzIndex`] holds every row, which at
/// 100,000 terms (with its keys and the vector it is built from) was over 100 MB at the
/// build's peak. The groups and the page are made as [`AzIndex::render`] makes them.
pub fn render_index(input: &RenderInput<'_>) -> Result<OutputFile> {
    let terms: Vec<&Entry> = input
        .content
        .of_kind(Kind::Term)
        .filter(|e| input.pages.contains(&e.id))
        .collect();
    let mut places: Vec<(RowKey, &Entry)> = terms
        .par_iter()
        .flat_map_iter(|e| row_keys(e).map(move |key| (key, *e)))
        .collect();
    // Keys are unique (each names its term and its row of that term).
    places.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let letters: Vec<String> = places.iter().map(|(key, _)| index_letter(&key.1)).collect();
    let runs = letter_runs(letters.iter().map(String::as_str).zip(&places));
    let rendered: Vec<Group> = runs
        .par_iter()
        .map(|(letter, _, rows)| {
            let rows: Vec<IndexRow> = rows
                .iter()
                .filter_map(|(key, e)| term_rows(input, e).into_iter().nth(key.3))
                .map(|(_, row)| row)
                .collect();
            let (html, facts, lines) = render_group(input, letter, rows.iter().collect(), false)?;
            Ok(Group {
                versions: Vec::new(),
                html,
                facts,
                lines,
            })
        })
        .collect::<Result<_>>()?;
    let order: Vec<(String, usize)> = runs
        .iter()
        .map(|(letter, nth, _)| (letter.to_string(), *nth))
        .collect();
    let az = AzIndex {
        rows: BTreeMap::new(),
        keys: HashMap::new(),
        marked_up: BTreeSet::new(),
        groups: order.iter().cloned().zip(rendered).collect(),
        facts: false,
        next_version: 0,
        touched: BTreeSet::new(),
        pages_changed: false,
    };
    Ok(az.page(input, &order, &BTreeSet::new())?.0)
}

/// One row of the A-Z index: a term, or one of its aliases pointing at it.
#[derive(Serialize)]
struct IndexRow {
    /// What the row is listed as.
    name: String,
    /// For an alias row: the entry it stands for.
    see: Option<LinkCtx>,
    /// For a term row: the term.
    term: Option<LinkCtx>,
}

/// Where a row sorts: by [`sort_key`], then name, then (for equal names) as the terms
/// come in id order, an entry's aliases before its name.
type RowKey = (String, String, EntryId, usize);

struct Row {
    row: IndexRow,
    /// Its heading, [`index_letter`] of its name.
    letter: String,
    /// Unique to this row as made: a group whose rows have the same versions as when it
    /// was rendered renders the same.
    version: u64,
}

/// A rendered letter group.
struct Group {
    /// The versions of its rows when rendered.
    versions: Vec<u64>,
    html: String,
    /// Its links and ids, as a piece of `index.html` (lines counted from its start).
    facts: PageLinks,
    lines: usize,
}

#[derive(Serialize)]
struct LetterGroup<'a> {
    letter: &'a str,
    /// The heading's id, `letter-a` (`letter-num` for digits and symbols).
    id: String,
    rows: Vec<&'a IndexRow>,
}

/// A rendered letter group, as `index.html` sees it.
#[derive(Serialize)]
struct GroupHtml<'a> {
    letter: &'a str,
    id: String,
    html: &'a str,
}

/// A letter of the jump bar; `id` is None when no name starts with it.
#[derive(Serialize)]
struct LetterLink {
    letter: String,
    id: Option<String>,
}

/// The A-Z rows of every term with a page, and the HTML of each letter group, kept
/// between renders. Rows are remade only for the entries [`AzIndex::touch`] names (and,
/// when pages came or went, for those whose summary has markup: it may link to them).
pub struct AzIndex {
    rows: BTreeMap<RowKey, Row>,
    /// Each term's rows' keys.
    keys: HashMap<EntryId, Vec<RowKey>>,
    /// Terms whose summary has inline markup (its links depend on which pages exist).
    marked_up: BTreeSet<EntryId>,
    /// Rendered groups by (letter, which group of that letter).
    groups: HashMap<(String, usize), Group>,
    /// Whether to note each group's links and ids (see [`AzIndex::render`]).
    facts: bool,
    next_version: u64,
    /// Entries whose rows may be stale: remade by the next render, forgotten by
    /// [`AzIndex::settle`] once that render is kept.
    touched: BTreeSet<EntryId>,
    pages_changed: bool,
}

impl AzIndex {
    /// Every term's rows; no group rendered yet. With `facts`, each group's links and ids
    /// are noted as it is rendered, for [`AzIndex::render`] to hand back.
    pub fn new(input: &RenderInput<'_>, facts: bool) -> AzIndex {
        // (the term, its rows, whether its summary has markup)
        type Made = (EntryId, Vec<(RowKey, IndexRow)>, bool);
        let made: Vec<Made> = input
            .content
            .of_kind(Kind::Term)
            .collect::<Vec<_>>()
            .par_iter()
            .filter(|e| input.pages.contains(&e.id))
            .map(|e| (e.id.clone(), term_rows(input, e), has_markup(e)))
            .collect();
        let mut az = AzIndex {
            rows: BTreeMap::new(),
            keys: HashMap::with_capacity(made.len()),
            marked_up: BTreeSet::new(),
            groups: HashMap::new(),
            facts,
            next_version: 0,
            touched: BTreeSet::new(),
            pages_changed: false,
        };
        let mut all = Vec::with_capacity(made.len());
        for (id, rows, marked_up) in made {
            if marked_up {
                az.marked_up.insert(id.clone());
            }
            az.keys
                .insert(id, rows.iter().map(|(k, _)| k.clone()).collect());
            for (key, row) in rows {
                all.push((key, az.row(row)));
            }
        }
        az.rows = all.into_iter().collect();
        az
    }

    /// `ids` changed (their text, or whether they are published or have a page): their
    /// rows are remade at the next render.
    pub fn touch<'a>(&mut self, ids: impl IntoIterator<Item = &'a EntryId>) {
        self.touched
            .extend(ids.into_iter().filter(|id| id.kind == Kind::Term).cloned());
    }

    /// Some entry gained or lost its page: summaries that link to it change.
    pub fn pages_changed(&mut self) {
        self.pages_changed = true;
    }

    /// The render since the last touch is the one kept: forget what was touched.
    pub fn settle(&mut self) {
        self.touched.clear();
        self.pages_changed = false;
    }

    /// The home page as `input` has it, remaking the touched rows and the groups whose
    /// rows changed. What was touched stays touched until [`AzIndex::settle`], so a render
    /// that is thrown away (the edit failed and was undone) is not trusted later.
    ///
    /// With facts, also the page's links and ids for the link check: every id, but the
    /// links of the parts made now only. A group's HTML follows from its rows alone, so
    /// the links of a group rendered before were checked then and are unchanged; checking
    /// the 100,000 links of a large index on every save would take longer than the rest
    /// of the save.
    pub fn render(&mut self, input: &RenderInput<'_>) -> Result<(OutputFile, PageLinks)> {
        let mut remake: BTreeSet<EntryId> = self.touched.clone();
        if self.pages_changed {
            remake.extend(self.marked_up.iter().cloned());
        }
        for id in &remake {
            for key in self.keys.remove(id).unwrap_or_default() {
                self.rows.remove(&key);
            }
            self.marked_up.remove(id);
            let Some(e) = input.content.get(id) else {
                continue;
            };
            if !input.pages.contains(id) {
                continue;
            }
            if has_markup(e) {
                self.marked_up.insert(id.clone());
            }
            let rows = term_rows(input, e);
            self.keys
                .insert(id.clone(), rows.iter().map(|(k, _)| k.clone()).collect());
            for (key, row) in rows {
                let row = self.row(row);
                self.rows.insert(key, row);
            }
        }

        let runs = letter_runs(self.rows.values().map(|row| (row.letter.as_str(), row)));
        let versions = |rows: &[&Row]| rows.iter().map(|r| r.version).collect::<Vec<u64>>();
        let stale: Vec<usize> = (0..runs.len())
            .filter(|&i| {
                let (letter, nth, rows) = &runs[i];
                match self.groups.get(&(letter.to_string(), *nth)) {
                    Some(g) => g.versions != versions(rows),
                    None => true,
                }
            })
            .collect();
        let facts = self.facts;
        let rendered: Vec<(usize, Group)> = stale
            .par_iter()
            .map(|&i| {
                let (letter, _, rows) = &runs[i];
                let (html, facts, lines) =
                    render_group(input, letter, rows.iter().map(|r| &r.row).collect(), facts)?;
                let versions = versions(rows);
                Ok((
                    i,
                    Group {
                        versions,
                        html,
                        facts,
                        lines,
                    },
                ))
            })
            .collect::<Result<_>>()?;
        let made_now: BTreeSet<usize> = rendered.iter().map(|(i, _)| *i).collect();
        let mut groups: HashMap<(String, usize), Group> = HashMap::with_capacity(runs.len());
        let mut fresh: HashMap<usize, Group> = rendered.into_iter().collect();
        for (i, (letter, nth, _)) in runs.iter().enumerate() {
            let key = (letter.to_string(), *nth);
            // Not rendered now: cached with these very rows (see `stale`).
            if let Some(g) = fresh.remove(&i).or_else(|| self.groups.remove(&key)) {
                groups.insert(key, g);
            }
        }
        let order: Vec<(String, usize)> = runs
            .iter()
            .map(|(letter, nth, _)| (letter.to_string(), *nth))
            .collect();
        self.groups = groups;
        self.page(input, &order, &made_now)
    }

    fn row(&mut self, row: IndexRow) -> Row {
        self.next_version += 1;
        Row {
            letter: index_letter(&row.name),
            row,
            version: self.next_version,
        }
    }

    /// `index.html` around the rendered groups, in `order`. The template is rendered with
    /// a marker for each group's HTML, put in afterwards: through Tera's context the
    /// 21 MB of a 100,000-term index would be copied several times over. A template that
    /// does anything but print `g.html` as it is gets the HTML itself instead.
    fn page(
        &self,
        input: &RenderInput<'_>,
        order: &[(String, usize)],
        made_now: &BTreeSet<usize>,
    ) -> Result<(OutputFile, PageLinks)> {
        let group = |i: usize| self.groups.get(&order[i]);
        let html_of = |i: usize| group(i).map_or("", |g| g.html.as_str());
        let marks: Vec<String> = (0..order.len()).map(group_mark).collect();
        let marked = self.shell(input, order, &|i| &marks[i])?;
        let file = |bytes| OutputFile {
            path: PathBuf::from("index.html"),
            bytes,
        };
        let Some(bytes) = splice(&marked, order.len(), &html_of) else {
            // The groups are not where the marks were: the page is checked whole.
            let page = file(self.shell(input, order, &html_of)?.into_bytes());
            let facts = if self.facts {
                page_links(&page).1
            } else {
                PageLinks::default()
            };
            return Ok((page, facts));
        };
        let mut facts = PageLinks::default();
        if self.facts {
            // The shell's own links and ids, then each group's at the line it starts on.
            let pieces: Vec<&str> = marked.split(OPEN_MARK).collect();
            let mut lines = 0;
            for (i, piece) in pieces.iter().enumerate() {
                // Past the first piece, each starts with the rest of a mark.
                let text = match i {
                    0 => piece,
                    _ => piece.split_once("-->").map_or("", |(_, rest)| rest),
                };
                let shell = page_links(&file(text.as_bytes().to_vec())).1;
                facts.append(&shell, lines, false);
                lines += text.matches('\n').count();
                if let Some(g) = (i < order.len()).then(|| group(i)).flatten() {
                    facts.append(&g.facts, lines, !made_now.contains(&i));
                    lines += g.lines;
                }
            }
        }
        Ok((file(bytes), facts))
    }

    /// `index.html` with `html(i)` as the `i`th group's HTML.
    fn shell<'h>(
        &self,
        input: &RenderInput<'_>,
        order: &[(String, usize)],
        html: &dyn Fn(usize) -> &'h str,
    ) -> Result<String> {
        let groups: Vec<GroupHtml<'_>> = order
            .iter()
            .enumerate()
            .map(|(i, key)| GroupHtml {
                letter: &key.0,
                id: letter_id(&key.0),
                html: html(i),
            })
            .collect();
        // Symbols and digits first, as they sort; then every letter, linked where used.
        let mut jump: Vec<LetterLink> = groups
            .iter()
            .filter(|g| g.letter == "#")
            .map(|g| LetterLink {
                letter: g.letter.to_string(),
                id: Some(g.id.clone()),
            })
            .collect();
        jump.extend(('A'..='Z').map(|c| {
            let letter = c.to_string();
            let used = groups.iter().any(|g| g.letter == letter);
            LetterLink {
                id: used.then(|| letter_id(&letter)),
                letter,
            }
        }));
        // Letters outside A-Z (Greek, Cyrillic, CJK; accented Latin letters fold into A-Z,
        // see `index_letter`) get their own entries after Z, as their groups sort.
        jump.extend(
            groups
                .iter()
                .filter(|g| {
                    g.letter != "#"
                        && !(g.letter.len() == 1 && g.letter.as_bytes()[0].is_ascii_uppercase())
                })
                .map(|g| LetterLink {
                    letter: g.letter.to_string(),
                    id: Some(g.id.clone()),
                }),
        );
        // `link_to` leaves out what other pages may not show (`RenderInput::listed`).
        let listed = |kind| {
            input
                .content
                .of_kind(kind)
                .filter_map(|e| link_to(input, e, None, true))
        };
        let mut lessons: Vec<LinkCtx> = listed(Kind::Lesson).collect();
        lessons.sort_by_key(|l| (l.day, l.name.clone()));
        let mut guides: Vec<LinkCtx> = listed(Kind::Guide).collect();
        guides.sort_by_key(|g| sort_key(&g.name));
        let contents = if input.navigation.has_sections(input.config) {
            input.navigation.sidebar(None, "")
        } else {
            Vec::new()
        };
        let mut ctx = Context::new();
        ctx.insert(
            "site",
            &site_ctx(input.config, input.drafts, "", input.pages),
        );
        ctx.insert("root", "");
        ctx.insert(
            "canonical",
            &format!("{}/", input.config.base_url.trim_end_matches('/')),
        );
        // Its errors are the build's (`assemble`); here only its HTML.
        let home = super::home::home(input).map(|h| h.html);
        ctx.insert("home", &home);
        ctx.insert("measured_on", &measured_on(input));
        ctx.insert("contents", &contents);
        ctx.insert("topics", &topic_groups(input));
        ctx.insert("jump", &jump);
        ctx.insert("letters", &groups);
        ctx.insert("lessons", &lessons);
        ctx.insert("guides", &guides);
        render_template(input.tera, "index.html", &ctx, &input.layout.templates())
    }
}

/// The GPU models the site's numbers come from, as one phrase ("NVIDIA H200 (h200) and
/// NVIDIA H100 80GB HBM3 (h100)"): each node with a current record of an experiment.
/// Empty when there is none. Read from the records alone (their checks are made once per
/// build and kept), not from the entries: `serve` remakes the home page on every edit.
fn measured_on(input: &RenderInput<'_>) -> String {
    let models: Vec<String> =
        crate::render::node_facts::measured_models(input.config, input.library);
    match models.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// One topic's terms on the home page.
#[derive(Serialize, Debug, PartialEq)]
struct TopicGroup {
    /// "Memory", ..., and "Other" for the terms without a topic.
    title: &'static str,
    /// The heading's id: `topic-memory`, ..., `topic-other`.
    id: String,
    /// The terms as list items, `<li><a href="URL">NAME</a></li>` (a draft marked), A-Z.
    /// Made here, as the sidebar's lists are: a Tera loop per link is slow on a large site.
    list: String,
}

/// The terms the home page lists, grouped by topic in [`Topic::ALL`]'s order, A-Z within
/// a group (as the A-Z index sorts), the terms without a topic last under "Other". Empty
/// when no listed term names a topic: a site that does not use topics gets no second list
/// of every term.
fn topic_groups(input: &RenderInput<'_>) -> Vec<TopicGroup> {
    let listed = |e: &&Entry| input.listed(&e.id) && input.pages.contains(&e.id);
    let terms = || input.content.of_kind(Kind::Term).filter(listed);
    if !terms().any(|e| e.meta.topic.is_some()) {
        return Vec::new();
    }
    let mut placed: Vec<(usize, String, &Entry)> = terms()
        .map(|e| (Topic::rank(e.meta.topic), sort_key(list_label(e)), e))
        .collect();
    placed.sort_by(|a, b| (a.0, &a.1, &a.2.id).cmp(&(b.0, &b.1, &b.2.id)));
    let mut groups: Vec<TopicGroup> = Vec::new();
    let mut last = None;
    for (rank, _, e) in placed {
        if last != Some(rank) {
            let (title, slug) = match Topic::ALL.get(rank) {
                Some(t) => (t.title(), t.slug()),
                None => ("Other", "other"),
            };
            groups.push(TopicGroup {
                title,
                id: format!("topic-{slug}"),
                list: String::new(),
            });
            last = Some(rank);
        }
        // Pushed just above.
        let Some(list) = groups.last_mut().map(|g| &mut g.list) else {
            continue;
        };
        list.push_str("<li><a href=\"");
        escape_into(list, &e.id.page_url(""));
        list.push_str("\">");
        escape_into(list, list_label(e));
        list.push_str("</a>");
        if !input.published.contains(&e.id) {
            list.push_str(" <span class=\"draft-tag\">draft</span>");
        }
        list.push_str("</li>");
    }
    groups
}

/// Stands for the `i`th group's HTML while `index.html` is rendered. Markup, so a
/// template that escapes it (or changes it any other way) shows as a missing mark.
fn group_mark(i: usize) -> String {
    format!("{OPEN_MARK}{i}-->")
}

const OPEN_MARK: &str = "<!--glossary:az-group:";

/// `page` with each group's mark replaced by its HTML; None unless every mark is there
/// exactly once, in order.
fn splice<'h>(page: &str, groups: usize, html: &dyn Fn(usize) -> &'h str) -> Option<Vec<u8>> {
    let size = page.len() + (0..groups).map(|i| html(i).len()).sum::<usize>();
    let mut out = Vec::with_capacity(size);
    let mut rest = page;
    let mut next = 0;
    while let Some(at) = rest.find(OPEN_MARK) {
        let mark = group_mark(next);
        if next == groups || !rest[at..].starts_with(&mark) {
            return None;
        }
        out.extend_from_slice(&rest.as_bytes()[..at]);
        out.extend_from_slice(html(next).as_bytes());
        rest = &rest[at + mark.len()..];
        next += 1;
    }
    out.extend_from_slice(rest.as_bytes());
    (next == groups).then_some(out)
}

/// Groups are runs of rows under one heading, in sorted order: each with its heading,
/// which run of that heading it is, and its rows.
fn letter_runs<'a, T>(rows: impl Iterator<Item = (&'a str, T)>) -> Vec<(&'a str, usize, Vec<T>)> {
    let mut runs: Vec<(&str, usize, Vec<T>)> = Vec::new();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (letter, row) in rows {
        match runs.last_mut() {
            Some((last, _, rows)) if *last == letter => rows.push(row),
            _ => {
                let nth = seen.entry(letter).or_insert(0);
                runs.push((letter, *nth, vec![row]));
                *nth += 1;
            }
        }
    }
    runs
}

/// One letter group's HTML, with (when `facts`) its links and ids and its line count.
fn render_group(
    input: &RenderInput<'_>,
    letter: &str,
    rows: Vec<&IndexRow>,
    facts: bool,
) -> Result<(String, PageLinks, usize)> {
    let g = LetterGroup {
        letter,
        id: letter_id(letter),
        rows,
    };
    let mut ctx = Context::new();
    ctx.insert("g", &g);
    let html = render_template(input.tera, LETTER_TEMPLATE, &ctx, &input.layout.templates())?;
    if !facts {
        return Ok((html, PageLinks::default(), 0));
    }
    let piece = OutputFile {
        path: PathBuf::from("index.html"),
        bytes: html.into_bytes(),
    };
    let facts = page_links(&piece).1;
    let lines = piece.bytes.iter().filter(|&&b| b == b'\n').count();
    // Made from a String just now.
    let html = String::from_utf8(piece.bytes).unwrap_or_default();
    Ok((html, facts, lines))
}

/// Where a term's rows sort, in the order [`term_rows`] makes them: one per alias, then
/// its own.
fn row_keys(e: &Entry) -> impl Iterator<Item = RowKey> + '_ {
    let place = |name: &str, at: usize| (sort_key(name), name.to_string(), e.id.clone(), at);
    let aliases = e.meta.aliases.iter().enumerate();
    aliases
        .map(move |(i, alias)| place(alias, i))
        .chain(std::iter::once(place(list_label(e), e.meta.aliases.len())))
}

/// A term's rows: one per alias (pointing at it), then its own; none for a term other
/// pages may not show (`RenderInput::listed`: unpublished, outside a drafts preview).
fn term_rows(input: &RenderInput<'_>, e: &Entry) -> Vec<(RowKey, IndexRow)> {
    let Some(link) = link_to(input, e, None, true) else {
        return Vec::new();
    };
    let mut keys = row_keys(e);
    let mut rows: Vec<(RowKey, IndexRow)> = Vec::with_capacity(e.meta.aliases.len() + 1);
    for (alias, key) in e.meta.aliases.iter().zip(&mut keys) {
        let see = LinkCtx {
            summary: None,
            aliases: Vec::new(),
            ..link.clone()
        };
        rows.push((
            key,
            IndexRow {
                name: alias.clone(),
                see: Some(see),
                term: None,
            },
        ));
    }
    if let Some(key) = keys.next() {
        rows.push((
            key,
            IndexRow {
                name: link.name.clone(),
                see: None,
                term: Some(link),
            },
        ));
    }
    rows
}

/// Whether `e`'s summary may link to other entries: a link needs `[` (or `<` for an
/// autolink) in the Markdown (see `inline::render_inline`).
fn has_markup(e: &Entry) -> bool {
    e.meta.summary.contains(['[', '<'])
}

fn letter_id(letter: &str) -> String {
    match letter {
        "#" => "letter-num".into(),
        l => format!("letter-{}", l.to_lowercase()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_go_where_their_marks_are_and_only_there() {
        let html = |i: usize| ["<h3>A</h3>", "<h3>B</h3>"][i];
        let page = format!("<main>{}{}</main>", group_mark(0), group_mark(1));
        assert_eq!(
            splice(&page, 2, &html).unwrap(),
            b"<main><h3>A</h3><h3>B</h3></main>"
        );
        // Escaped, missing, repeated or out of order: the template is rendered with the
        // HTML itself instead.
        let escaped = page.replace('<', "&lt;");
        assert_eq!(splice(&escaped, 2, &html), None);
        let missing = format!("<main>{}</main>", group_mark(0));
        assert_eq!(splice(&missing, 2, &html), None);
        let twice = format!("{page}{}", group_mark(1));
        assert_eq!(splice(&twice, 2, &html), None);
        let swapped = format!("{}{}", group_mark(1), group_mark(0));
        assert_eq!(splice(&swapped, 2, &html), None);
    }
}
