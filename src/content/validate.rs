//! Checks that need the whole set of entries: duplicates and references.

use std::collections::{HashMap, HashSet};

use crate::error::{Error, Location};

use super::entry::{Entry, Kind};
use super::front_matter::{
    line_of_item_field, line_of_nth_reference, line_of_reference, split_front_matter,
};

/// Slugs become folder names in the output, so they are kept to a safe alphabet: no dots,
/// slashes or separators can reach the file system.
pub fn is_valid_slug(slug: &str) -> bool {
    slug_problem(slug).is_none()
}

/// The longest slug, in characters: a folder name of the site (and a file name with `.md`
/// or `.yaml` after it), well inside the 255 bytes file systems allow.
pub const MAX_SLUG_LEN: usize = 128;

/// Why `slug` cannot be one, to follow "slug `...` " in a message; None when it can.
pub fn slug_problem(slug: &str) -> Option<String> {
    let alphabet = slug
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if slug.is_empty() || !alphabet {
        Some("must match [a-z0-9-]+".into())
    } else if slug.len() > MAX_SLUG_LEN {
        Some(format!(
            "is {} characters long; the most is {MAX_SLUG_LEN}",
            slug.len()
        ))
    } else {
        None
    }
}

/// Whether `url` may be an entry's link off the site (a source's `url`): an absolute
/// `http://` or `https://` URL with a host. Anything else would be written into the page
/// as a live link: `javascript:` and `data:` run in the reader's browser, and a relative
/// path points into the site, which a source never is.
pub fn is_web_url(url: &str) -> bool {
    // The scheme as a browser reads it (the one rule for every link), and then spelled
    // out plainly at the start: no tab or space for a browser to drop first.
    if crate::link_scheme::check(url).is_err()
        || !matches!(
            crate::link_scheme::scheme(url).as_deref(),
            Some("http" | "https")
        )
    {
        return false;
    }
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    let rest = if lower.starts_with("https://") {
        &url[8..]
    } else if lower.starts_with("http://") {
        &url[7..]
    } else {
        return false;
    };
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    !host.is_empty()
        && !host.starts_with(['.', ':'])
        && host
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']' | '_'))
        && !url
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || matches!(c, '"' | '<' | '>'))
}

/// Checks across entries; `broken` ones (placeholders for files that failed to parse) count
/// as existing for references but are not checked themselves.
pub(super) fn check_entries(entries: &[Entry], broken: &super::entry::IdSet) -> Vec<Error> {
    let mut errors = Vec::new();
    let mut seen: HashMap<_, &Entry> = HashMap::new();
    for e in entries {
        if let Some(first) = seen.insert(&e.id, e) {
            errors.push(Error::content(
                &e.path,
                None,
                format!(
                    "duplicate slug `{}`: {} already uses it",
                    e.id.slug,
                    first.path.display()
                ),
            ));
        }
    }
    let terms: HashSet<&str> = entries
        .iter()
        .filter(|e| e.id.kind == Kind::Term)
        .map(|e| e.id.slug.as_str())
        .collect();

    // In parallel (the order of the errors kept): a serial pass was a visible stretch of a
    // large build with one core idle.
    use rayon::prelude::*;
    let per_entry: Vec<Vec<Error>> = entries
        .par_iter()
        .filter(|e| !broken.contains(&e.id))
        .map(|e| check_one(e, &|s: &str| terms.contains(s)))
        .collect();
    errors.extend(per_entry.into_iter().flatten());
    errors.extend(check_aliases(entries));
    errors
}

/// An alias names one entry: two entries answering to the same name would make the A-Z
/// index and search point two ways. Names and aliases are compared as spelled
/// ([`crate::names::spelling`]: case and width aside), and, where one of the two is not
/// plain ASCII, as a reader sees them ([`crate::names::skeleton`]: invisible characters and
/// look-alike letters too), so an alias `ЅM` with a Cyrillic `Ѕ`, or `S\u{200B}M`, clashes
/// with a name `SM`. Two terms may share a name spelled alike (the index lists both), but
/// not two spellings that look alike. Two ASCII spellings are never taken for look-alikes:
/// "modem" and "modern" share a skeleton, and a reader tells them apart.
fn check_aliases(entries: &[Entry]) -> Vec<Error> {
    use rayon::prelude::*;
    let is_named = |e: &Entry| e.id.kind == Kind::Term;
    // Skeletons (Unicode normalization and the confusables table, a few microseconds a
    // name) only when some name or alias could be a look-alike, and then in parallel.
    let look_alikes = entries.par_iter().any(|e| {
        (is_named(e) && !e.name().is_ascii()) || e.meta.aliases.iter().any(|a| !a.is_ascii())
    });
    let keyed: Vec<(&Entry, Option<Seen<'_>>, Vec<Seen<'_>>)> = entries
        .par_iter()
        .map(|e| {
            let seen = |s| Seen::of(s, look_alikes);
            let aliases = e.meta.aliases.iter().map(|a| seen(a)).collect();
            (e, is_named(e).then(|| seen(e.name())), aliases)
        })
        .collect();
    let mut errors = Vec::new();
    let mut names: HashMap<&str, Named<'_>> = HashMap::new();
    let mut looks: HashMap<&str, Vec<Named<'_>>> = HashMap::new();
    for (e, name, _) in &keyed {
        let Some(name) = name else { continue };
        if let Some((other, first)) = look_alike(&looks, e, name) {
            errors.push(Error::content(
                &e.path,
                line_of_name(e),
                format!(
                    "name `{}` looks the same as `{}`, the name of `{}` ({}), but is spelled \
                     with other characters ({}): a reader could not tell them apart",
                    name.written,
                    first.written,
                    other.id,
                    other.path.display(),
                    name.differing(first)
                ),
            ));
            continue;
        }
        names.entry(&name.spelling).or_insert((e, name));
        if let Some(key) = &name.key {
            looks.entry(key).or_default().push((e, name));
        }
    }
    let mut aliases: HashMap<&str, Named<'_>> = HashMap::new();
    for (e, _, seen) in &keyed {
        for alias in seen {
            let a = alias.written;
            let (other, first, message) = if let Some((other, first)) =
                of_another(names.get(alias.spelling.as_str()), e)
                    .or_else(|| of_another(aliases.get(alias.spelling.as_str()), e))
            {
                let message = format!(
                    "alias `{a}` is already a name or alias of `{}` ({})",
                    other.id,
                    other.path.display()
                );
                (other, first, message)
            } else if let Some((other, first)) = look_alike(&looks, e, alias) {
                let message = format!(
                    "alias `{a}` looks the same as `{}`, a name or alias of `{}` ({}), but is \
                     spelled with other characters ({}): a reader could not tell them apart",
                    first.written,
                    other.id,
                    other.path.display(),
                    alias.differing(first)
                );
                (other, first, message)
            } else {
                aliases.insert(&alias.spelling, (e, alias));
                if let Some(key) = &alias.key {
                    looks.entry(key).or_default().push((e, alias));
                }
                continue;
            };
            // The clash is reported where it was made: in the file changed last. The other
            // file was fine before; an author who just added a term whose name an old
            // entry had as an alias should not be sent to the old entry.
            if modified_later(&other.path, &e.path) {
                let is_name = is_named(other) && first.written == other.name();
                let (what, at) = if is_name {
                    ("name", line_of_name(other))
                } else {
                    let line = split_front_matter(&other.path, &other.raw)
                        .ok()
                        .and_then(|s| line_of_alias(&s, first.written));
                    ("alias", line.map(|line| Location { line, column: 1 }))
                };
                errors.push(Error::content(
                    &other.path,
                    at,
                    format!(
                        "{what} `{}` clashes with the alias `{a}` of `{}` ({}), which was there \
                         before this file changed: rename or drop one of them",
                        first.written,
                        e.id,
                        e.path.display()
                    ),
                ));
                continue;
            }
            let line = split_front_matter(&e.path, &e.raw)
                .ok()
                .and_then(|s| line_of_alias(&s, a));
            errors.push(Error::content(
                &e.path,
                line.map(|line| Location { line, column: 1 }),
                message,
            ));
        }
    }
    errors
}

/// Whether file `a` was modified after file `b` (false when either time is unknown, or
/// they are equal).
fn modified_later(a: &std::path::Path, b: &std::path::Path) -> bool {
    let time = |p: &std::path::Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    matches!((time(a), time(b)), (Some(ta), Some(tb)) if ta > tb)
}

/// A name or alias, with the entry that has it.
type Named<'a> = (&'a Entry, &'a Seen<'a>);

/// What was found, unless it is `e`'s own.
fn of_another<'a>(found: Option<&Named<'a>>, e: &Entry) -> Option<Named<'a>> {
    found.filter(|(o, _)| o.id != e.id).copied()
}

/// A spelling of another entry's that `s` looks the same as.
fn look_alike<'a>(
    looks: &HashMap<&str, Vec<Named<'a>>>,
    e: &Entry,
    s: &Seen<'_>,
) -> Option<Named<'a>> {
    looks
        .get(s.key.as_deref()?)?
        .iter()
        .find(|(o, other)| o.id != e.id && other.looks_alike(s))
        .copied()
}

/// A name or alias as written, as spelled ([`crate::names::spelling`]) and, when look-alikes
/// are compared, as seen (its confusable skeleton).
struct Seen<'a> {
    written: &'a str,
    spelling: String,
    key: Option<String>,
}

impl<'a> Seen<'a> {
    fn of(written: &'a str, look_alikes: bool) -> Seen<'a> {
        Seen {
            written,
            spelling: crate::names::spelling(written),
            key: look_alikes.then(|| crate::names::skeleton(written)),
        }
    }

    /// Another spelling that a reader would take for this one (same skeleton assumed).
    fn looks_alike(&self, other: &Seen<'_>) -> bool {
        self.spelling != other.spelling && !(self.written.is_ascii() && other.written.is_ascii())
    }

    /// What sets this spelling apart from the other's, as code points: its invisible
    /// characters ("U+200B (invisible)") and the letters the other lacks ("U+0405 \"Ѕ\"").
    fn differing(&self, other: &Seen<'_>) -> String {
        let mut own: Vec<String> = Vec::new();
        for c in self.written.chars() {
            let hidden = crate::names::is_default_ignorable(c) || c.is_control();
            let theirs = other.spelling.contains(c) || other.written.contains(c);
            let shown = match hidden {
                true => format!("U+{:04X} (invisible)", c as u32),
                false => format!("U+{:04X} \"{c}\"", c as u32),
            };
            if (hidden || !theirs) && !own.contains(&shown) {
                own.push(shown);
            }
        }
        match own.is_empty() {
            true => "the same letters in another form".to_string(),
            false => own.join(", "),
        }
    }
}

/// The line of an entry's `name:`, or of its `title:` when the title is its name.
fn line_of_name(e: &Entry) -> Option<Location> {
    let split = split_front_matter(&e.path, &e.raw).ok()?;
    let key = match e.meta.name {
        Some(_) => "name:",
        None => "title:",
    };
    let at = split.yaml.lines().position(|l| l.starts_with(key))?;
    Some(Location {
        line: split.yaml_line + at,
        column: 1,
    })
}

fn line_of_alias(split: &super::front_matter::Split<'_>, alias: &str) -> Option<usize> {
    line_of_reference(split, "aliases", alias).or_else(|| {
        split
            .yaml
            .lines()
            .position(|l| l.trim_start().starts_with("aliases:"))
            .map(|i| split.yaml_line + i)
    })
}

/// A term named twice in one list (`related`, `terms`): the page would list it twice. The
/// error is at the second mention.
fn listed_twice<'a>(e: &Entry, key: &str, slugs: impl Iterator<Item = &'a str>) -> Vec<Error> {
    let mut listed: HashMap<&str, usize> = HashMap::new();
    let mut errors = Vec::new();
    for s in slugs {
        let times = listed.entry(s).or_default();
        *times += 1;
        if *times == 2 {
            let line = split_front_matter(&e.path, &e.raw)
                .ok()
                .and_then(|split| line_of_nth_reference(&split, key, s, 1));
            errors.push(Error::content(
                &e.path,
                line.map(|line| Location { line, column: 1 }),
                format!("term `{s}` is listed twice in `{key}`: keep one"),
            ));
        }
    }
    errors
}

/// An entry's `section` must be one glossary.toml declares.
/// A section page (`content/sections/<slug>.md`) must be named for one, and says no other.
pub fn check_section(e: &Entry, sections: &[crate::config::Section]) -> Option<Error> {
    if e.id.kind == Kind::Section {
        if let Some(other) = e.meta.section.as_ref().filter(|s| **s != e.id.slug) {
            return Some(error_at(
                e,
                "section",
                other,
                format!(
                    "a section page is the page of the section it is named for (`{}`); \
                     remove `section: {other}`",
                    e.id.slug
                ),
            ));
        }
    }
    let s = e.section()?;
    if sections.iter().any(|d| d.slug == s) {
        return None;
    }
    let line = split_front_matter(&e.path, &e.raw)
        .ok()
        .and_then(|split| line_of_reference(&split, "section", s));
    if e.id.kind == Kind::Section {
        return Some(Error::content(
            &e.path,
            None,
            format!(
                "`{}` is no section: a section page's file is named for a `[[sections]]` slug \
                 of glossary.toml",
                e.id.slug
            ),
        ));
    }
    let known = if sections.is_empty() {
        "glossary.toml declares no `[[sections]]`".to_string()
    } else {
        format!(
            "glossary.toml declares: {}",
            sections
                .iter()
                .map(|d| d.slug.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    Some(Error::content(
        &e.path,
        line.map(|line| Location { line, column: 1 }),
        format!("unknown section `{s}` ({known})"),
    ))
}

/// An error in `e`'s front matter, at the line of `key:` that mentions `needle` when the
/// entry's text is at hand.
pub(super) fn error_at(e: &Entry, key: &str, needle: &str, msg: String) -> Error {
    let line = split_front_matter(&e.path, &e.raw)
        .ok()
        .and_then(|s| line_of_reference(&s, key, needle));
    Error::content(&e.path, line.map(|line| Location { line, column: 1 }), msg)
}

/// How a placeholder starts: `<<replace: WHAT>>` marks where `glossary new term` left
/// the author something to write. An entry holding one fails `check`.
pub const PLACEHOLDER: &str = "<<replace:";

/// A placeholder written for `what` (what the author is to write there).
pub fn placeholder(what: &str) -> String {
    format!("{PLACEHOLDER} {what}>>")
}

/// Every placeholder left in the file (front matter or body), at its line and column,
/// saying what to write there.
fn check_placeholders(e: &Entry) -> Vec<Error> {
    let mut errors = Vec::new();
    for (i, line) in e.raw.lines().enumerate() {
        for (at, _) in line.match_indices(PLACEHOLDER) {
            let rest = &line[at + PLACEHOLDER.len()..];
            let what = rest.find(">>").map_or(rest, |end| &rest[..end]).trim();
            errors.push(Error::content(
                &e.path,
                Some(Location {
                    line: i + 1,
                    column: line[..at].chars().count() + 1,
                }),
                format!("placeholder left by `glossary new term`: write {what} in place of `{PLACEHOLDER} {what}>>`"),
            ));
        }
    }
    errors
}

/// `is_term` says whether a term slug exists.
pub(super) fn check_one(e: &Entry, is_term: &dyn Fn(&str) -> bool) -> Vec<Error> {
    let mut errors = check_placeholders(e);
    errors.extend(check_page_only(e));
    let m = &e.meta;
    let mut err = |key: &str, needle: &str, msg: String| errors.push(error_at(e, key, needle, msg));

    if m.title.trim().is_empty() {
        err("title", "title", "`title` is empty".into());
    }
    // The name stands for the entry in lists and the A-Z index: a blank one is a link
    // with no text.
    if m.name.as_deref().is_some_and(|n| n.trim().is_empty()) {
        err("name", "name", "`name` is empty".into());
    }
    if m.summary.trim().is_empty() {
        err("summary", "summary", "`summary` is empty".into());
    } else if m.summary.trim().contains('\n') {
        err("summary", "summary", "`summary` must be one line".into());
    }
    for a in &m.aliases {
        if a.trim().is_empty() || a.contains('\n') {
            err(
                "aliases",
                a,
                "an alias must be a non-empty single line".into(),
            );
        }
    }
    for (key, value) in [("credit", &m.credit), ("license", &m.license)] {
        if value.as_deref().is_some_and(|v| v.trim().is_empty()) {
            err(key, key, format!("`{key}` is empty"));
        }
    }
    if m.license.is_some() && m.credit.is_none() {
        err(
            "license",
            "license",
            "`license` needs a `credit` saying whose text is used under it".into(),
        );
    }
    match (e.id.kind, m.day) {
        (Kind::Lesson, None) => err("title", "title", "a lesson needs a `day` number".into()),
        (Kind::Term | Kind::Guide | Kind::Section, Some(_)) => {
            err("day", "day", "`day` is only for lessons".into())
        }
        _ => {}
    }
    if let (Some(topic), false) = (m.topic, e.id.kind == Kind::Term) {
        err(
            "topic",
            "topic",
            format!(
                "`topic` is only for terms (a {} is not listed by topic); remove `topic: {}`",
                e.id.kind.singular(),
                topic.slug()
            ),
        );
    }
    if e.id.kind == Kind::Term && !m.terms.is_empty() {
        err(
            "terms",
            "terms",
            "`terms` is for lessons and guides; a term's lessons are found from the lessons that list it".into(),
        );
    }
    for r in &m.related {
        if !is_term(r.as_str()) {
            err(
                "related",
                r,
                format!("related term `{r}` does not exist (no content/terms/{r}.md)"),
            );
        } else if e.id.kind == Kind::Term && r == &e.id.slug {
            err("related", r, "a term cannot be related to itself".into());
        }
    }
    // Errors whose line is found otherwise than by `err`'s first mention of a key.
    let mut placed = listed_twice(e, "related", m.related.iter().map(String::as_str));
    placed.extend(listed_twice(e, "terms", m.terms.iter().map(|u| u.slug())));
    for u in &m.terms {
        let s = u.slug();
        if !is_term(s) {
            err(
                "terms",
                s,
                format!("term `{s}` does not exist (no content/terms/{s}.md)"),
            );
        }
    }
    if m.diagram.is_some() && e.id.kind != Kind::Term {
        err(
            "diagram",
            "diagram",
            format!(
                "`diagram` is only for terms; a {} page has no Diagram section",
                e.id.kind.singular()
            ),
        );
    }
    if let Some(d) = &m.diagram {
        if d.alt.as_deref().is_none_or(|a| a.trim().is_empty()) {
            err(
                "diagram",
                "diagram",
                format!("diagram `{}` has no `alt` text: it is the figure's accessible name and is required", d.kind),
            );
        }
    }
    errors.extend(placed);
    errors
}

/// The checks of an entry's sources, measured tables and claims alone: part of
/// [`check_one`], and what a build makes of each entry before `Entry::thin` sets these
/// fields aside.
pub fn check_page_only(e: &Entry) -> Vec<Error> {
    let mut errors = Vec::new();
    let m = &e.meta;
    for (i, source) in m.sources.iter().enumerate() {
        // A placeholder is its own error (check_placeholders), not also a bad address.
        if !is_web_url(&source.url) && !source.url.contains(PLACEHOLDER) {
            let line = split_front_matter(&e.path, &e.raw)
                .ok()
                .and_then(|split| line_of_item_field(&split, "sources", i, "url"));
            errors.push(Error::content(
                &e.path,
                line.map(|line| Location { line, column: 1 }),
                format!(
                    "source \"{}\": url `{}` must be an absolute http:// or https:// address",
                    source.title,
                    crate::link_scheme::shown(&source.url)
                ),
            ));
        }
    }

    let mut err = |key: &str, needle: &str, msg: String| errors.push(error_at(e, key, needle, msg));
    for c in &m.claims {
        if let Err(why) = c.test() {
            err("claims", &c.column, format!("claim \"{}\": {why}", c.says));
        }
        if m.measured.is_empty() && (c.experiment.is_none() || c.node.is_none()) {
            err(
                "claims",
                &c.column,
                format!("claim \"{}\" names no experiment and node, and there is no measured table to default to", c.says),
            );
        }
    }
    for t in &m.measured {
        match (&t.node, t.nodes.as_slice()) {
            (None, []) => err(
                "measured",
                &t.experiment,
                format!(
                    "measured table `{}` needs `node` (one) or `nodes` (several, side by side)",
                    t.experiment
                ),
            ),
            (Some(_), [_, ..]) => err(
                "measured",
                &t.experiment,
                format!(
                    "measured table `{}` gives both `node` and `nodes`: keep one",
                    t.experiment
                ),
            ),
            (None, nodes) => {
                let mut seen = HashSet::new();
                for n in nodes {
                    if !seen.insert(n) {
                        err(
                            "measured",
                            n,
                            format!("measured table `{}` lists node `{n}` twice", t.experiment),
                        );
                    }
                }
            }
            _ => {}
        }
        if t.rows.is_empty() || t.columns.is_empty() {
            err(
                "measured",
                &t.experiment,
                format!(
                    "measured table `{}` needs `rows` and `columns`",
                    t.experiment
                ),
            );
        }
        if let Some(chart) = &t.chart {
            let axes = chart.x.iter().map(|x| ("x", x)).chain([("y", &chart.y)]);
            for (axis, column) in axes {
                if !t.columns.contains(column) {
                    err(
                        "measured",
                        column,
                        format!(
                            "line chart of table `{}`: its {axis} axis `{column}` is not one of the table's columns ({})",
                            t.experiment,
                            t.columns.join(", ")
                        ),
                    );
                } else if column == "label" {
                    err(
                        "measured",
                        column,
                        format!(
                            "line chart of table `{}`: its {axis} axis must be a numeric column, not `label`",
                            t.experiment
                        ),
                    );
                }
            }
        }
    }
    errors
}

/// What the rest of the project defines, so an entry's references to it are checked here
/// with the entry's other checks. The pipeline fills it from glossary.toml and
/// measurements/ (which sit above content and cannot be named here).
pub struct Known<'a> {
    /// Experiments under measurements/.
    pub experiment: &'a dyn Fn(&str) -> bool,
    /// Nodes under [nodes] in glossary.toml.
    pub node: &'a dyn Fn(&str) -> bool,
    /// Whether (experiment, node, column) names a quantity the experiment or its record
    /// on that node has.
    pub column: &'a dyn Fn(&str, &str, &str) -> bool,
}

/// Citations must name an experiment and node that exist and columns that exist. (Whether
/// the record is current is not an error: the gate refuses the entry.)
pub fn check_references(entry: &Entry, known: &Known<'_>) -> Vec<Error> {
    let mut errors = Vec::new();
    let mut err = |key: &str, needle: &str, msg: String| {
        let line = split_front_matter(&entry.path, &entry.raw)
            .ok()
            .and_then(|s| line_of_reference(&s, key, needle));
        errors.push(Error::content(
            &entry.path,
            line.map(|line| Location { line, column: 1 }),
            msg,
        ));
    };
    let cite = |key: &str, exp: &str, node: &str, err: &mut dyn FnMut(&str, &str, String)| {
        if !(known.experiment)(exp) {
            err(
                key,
                exp,
                format!("unknown experiment `{exp}` (no measurements/{exp}/experiment.yaml)"),
            );
        }
        if !(known.node)(node) {
            err(
                key,
                node,
                format!("unknown node `{node}` (not under [nodes] in glossary.toml)"),
            );
        }
    };
    for t in &entry.meta.measured {
        for node in t.nodes() {
            cite("measured", &t.experiment, node, &mut err);
        }
        for c in &t.columns {
            for node in t.nodes() {
                if !(known.column)(&t.experiment, node, c) {
                    err(
                        "measured",
                        c,
                        format!(
                            "unknown column `{c}` in measured table `{}`: neither the experiment nor its {node} record has it",
                            t.experiment
                        ),
                    );
                }
            }
        }
    }
    // A claim reads its own experiment and node, each else the first measured table's.
    for c in &entry.meta.claims {
        for (e, n) in entry.meta.claim_records(c) {
            let (e, n) = (e.as_str(), n.as_str());
            if !(known.column)(e, n, &c.column) {
                err(
                    "claims",
                    &c.column,
                    format!(
                        "claim \"{}\": unknown column `{}`: neither the experiment `{e}` nor its {n} record has it",
                        c.says, c.column
                    ),
                );
            }
        }
        if let (Some(e), Some(n)) = (&c.experiment, &c.node) {
            cite("claims", e, n, &mut err);
        }
    }
    if let Some(d) = &entry.meta.diagram {
        if let (Some(e), Some(n)) = (&d.experiment, &d.node) {
            cite("diagram", e, n, &mut err);
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_absolute_web_addresses_are_source_urls() {
        for good in [
            "https://docs.nvidia.com/cuda/",
            "http://example.org",
            "HTTPS://Example.org/a?b=c#d",
            "https://[::1]:8080/x",
        ] {
            assert!(is_web_url(good), "{good:?}");
        }
        for bad in [
            "javascript:alert(document.cookie)",
            "JavaScript:alert(1)",
            "data:text/html,hi",
            "../../index.html",
            "/terms/a/",
            "not a url at all",
            "https://",
            "https:///path",
            "https://a.example/x y",
            "https://a.example/\"onmouseover=",
            "//a.example/",
            "",
        ] {
            assert!(!is_web_url(bad), "{bad:?}");
        }
    }

    #[test]
    fn slugs_are_a_safe_alphabet() {
        assert!(is_valid_slug("day-45-occupancy"));
        for bad in ["", "..", "a/b", "A", "a.b", "a b", "é"] {
            assert!(!is_valid_slug(bad), "{bad:?}");
            assert_eq!(slug_problem(bad).as_deref(), Some("must match [a-z0-9-]+"));
        }
        assert!(is_valid_slug(&"a".repeat(MAX_SLUG_LEN)));
        assert_eq!(
            slug_problem(&"a".repeat(300)).as_deref(),
            Some("is 300 characters long; the most is 128")
        );
    }
}
