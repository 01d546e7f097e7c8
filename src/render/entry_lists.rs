//! The repeated parts of an entry page made as HTML here rather than by Tera loops: the
//! related terms, "where you meet this", a lesson's terms, the sources and a measured
//! table's head. In Tera each loop iteration with a macro call and a few lookups cost
//! about 30,000 instructions; making these here took 4.2% off a build's instructions
//! (callgrind, 1,000-entry corpus: see the README's Performance section). The sidebar's list and a table's rows are made the same
//! way (`navigation`, `pages::TableCtx`).
//!
//! Templates keep the sections, headings and list elements; these give the items. The
//! data stays in the page context too (`page.related`, `page.sources`, `t.headings`...) for
//! a template that lays a list out itself.

use serde::Serialize;

use super::escape::escape_into;
use super::tables::TableView;

/// A link to another page of this build: an entry without a page is left out of every
/// list, name and all (`pages::link_to`).
#[derive(Serialize, Clone)]
pub struct LinkCtx {
    pub name: String,
    pub url: String,
    /// The summary as HTML for the showing page (inline Markdown rendered).
    pub summary: Option<String>,
    pub aliases: Vec<String>,
    pub note: Option<String>,
    pub day: Option<u32>,
    pub draft: bool,
}

/// The link to an entry as the `link` macro of `entry_macros.html` writes it: an anchor,
/// a draft (in a `--drafts` preview) marked.
fn push_link(out: &mut String, item: &LinkCtx) {
    out.push_str("<a href=\"");
    escape_into(out, &item.url);
    out.push_str("\">");
    escape_into(out, &item.name);
    out.push_str("</a>");
    if item.draft {
        out.push_str(" <span class=\"draft-tag\">draft</span>");
    }
}

/// `<li>` per item: its link, then what `after` adds.
fn link_items(items: &[LinkCtx], after: impl Fn(&mut String, &LinkCtx)) -> String {
    let mut out = String::new();
    for item in items {
        out.push_str("<li>");
        push_link(&mut out, item);
        after(&mut out, item);
        out.push_str("</li>");
    }
    out
}

/// `<li>` per related term: its link and its summary (already HTML).
pub fn related(items: &[LinkCtx]) -> String {
    link_items(items, |out, item| {
        if let Some(summary) = item.summary.as_deref().filter(|s| !s.is_empty()) {
            out.push_str(" — <span class=\"summary\">");
            out.push_str(summary);
            out.push_str("</span>");
        }
    })
}

/// `<li>` per lesson that uses the term: its link and the lesson's note on it (text).
pub fn meet(items: &[LinkCtx]) -> String {
    link_items(items, |out, item| {
        if let Some(note) = item.note.as_deref().filter(|s| !s.is_empty()) {
            out.push_str(" — ");
            escape_into(out, note);
        }
    })
}

/// `<li>` per term a lesson lists: its link.
pub fn terms(items: &[LinkCtx]) -> String {
    link_items(items, |_, _| {})
}

/// A source as templates see it (`page.sources`).
#[derive(Serialize)]
pub struct SourceCtx {
    pub title: String,
    pub url: String,
    pub checked: String,
}

/// `<li>` per source, each followed by a line break and the list's indentation.
pub fn sources(items: &[SourceCtx]) -> String {
    let mut out = String::new();
    for s in items {
        // Loading refused any other source at its line (`content::is_web_url`), and a
        // build with errors still renders every page to find them all: a link the rule
        // refuses is never written, so the error is the entry's, at its line, and not
        // also a broken link "made by a template" (the `new term` scaffold's placeholder
        // address was reported so).
        if crate::content::is_web_url(&s.url) {
            out.push_str("<li><a href=\"");
            escape_into(&mut out, &s.url);
            out.push_str("\">");
            escape_into(&mut out, &s.title);
            out.push_str("</a>");
        } else {
            out.push_str("<li>");
            escape_into(&mut out, &s.title);
        }
        out.push_str(" <span class=\"checked\">(checked ");
        escape_into(&mut out, &s.checked);
        out.push_str(")</span></li>\n  ");
    }
    out
}

/// A measured table's `<thead>`: one row of headings, or for a table set side by side
/// (column groups per node) a row naming the nodes over a row of the measured columns,
/// the columns that name the row spanning both.
pub fn table_head(view: &TableView, class: impl Fn(usize) -> &'static str) -> String {
    let mut out = String::new();
    let Some(first) = view.groups.first().map(|g| g.first) else {
        out.push_str("<thead><tr>");
        for (i, h) in view.headings.iter().enumerate() {
            out.push_str("<th scope=\"col\" class=\"");
            out.push_str(class(i));
            out.push_str("\">");
            escape_into(&mut out, h);
            out.push_str("</th>");
        }
        out.push_str("</tr></thead>");
        return out;
    };
    out.push_str("<thead>\n        <tr>");
    for (i, h) in view.headings.iter().enumerate().take(first) {
        // A numeric column shared by every node (see `tables::side_by_side`) keeps its
        // alignment; the row's name needs no class.
        out.push_str(if class(i) == "num" {
            "<th scope=\"col\" rowspan=\"2\" class=\"num\">"
        } else {
            "<th scope=\"col\" rowspan=\"2\">"
        });
        escape_into(&mut out, h);
        out.push_str("</th>");
    }
    for g in &view.groups {
        out.push_str("<th scope=\"colgroup\" colspan=\"");
        out.push_str(&g.span.to_string());
        out.push_str("\" class=\"node-group\">");
        escape_into(&mut out, &g.node);
        if !g.gpu.is_empty() {
            out.push_str(" <span class=\"node-gpu\">(");
            if let Some(who) = &g.measured_by {
                out.push_str("measured by ");
                escape_into(&mut out, who);
                out.push_str("'s ");
            }
            escape_into(&mut out, &g.gpu);
            out.push_str(")</span>");
        }
        out.push_str("</th>");
    }
    out.push_str("</tr>\n        <tr>");
    for (i, h) in view.headings.iter().enumerate().skip(first) {
        // A node not measured yet: its one column's heading says so, under its GPU.
        let pending = view
            .groups
            .iter()
            .any(|g| g.first == i && g.pending.is_some());
        out.push_str(if pending {
            "<th scope=\"col\" class=\"pending-group\">"
        } else {
            "<th scope=\"col\" class=\"num\">"
        });
        escape_into(&mut out, h);
        out.push_str("</th>");
    }
    out.push_str("</tr>\n      </thead>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::tables::ColumnGroup;

    fn link(name: &str, url: &str, draft: bool) -> LinkCtx {
        LinkCtx {
            name: name.into(),
            url: url.into(),
            summary: Some("Fast <em>and</em> small.".into()),
            aliases: Vec::new(),
            note: Some("see \"warps\"".into()),
            day: None,
            draft,
        }
    }

    #[test]
    fn lists_link_what_is_built_escape_text_and_mark_drafts() {
        let items = [
            link("A & B", "../a/", false),
            link("Draft", "../d/", true),
            link("Noted", "../n/", false),
        ];
        assert_eq!(
            related(&items[..1]),
            "<li><a href=\"../a/\">A &amp; B</a> — <span class=\"summary\">Fast <em>and</em> \
             small.</span></li>"
        );
        assert_eq!(
            terms(&items[1..]),
            "<li><a href=\"../d/\">Draft</a> <span class=\"draft-tag\">draft</span></li>\
             <li><a href=\"../n/\">Noted</a></li>"
        );
        assert_eq!(
            meet(&items[2..]),
            "<li><a href=\"../n/\">Noted</a> — see &quot;warps&quot;</li>"
        );
        assert_eq!(related(&[]), "");
        let source = SourceCtx {
            title: "\"Hardware\" <notes>".into(),
            url: "https://x.org/?a=1&b=2".into(),
            checked: "2026-08-30".into(),
        };
        assert_eq!(
            sources(&[source]),
            "<li><a href=\"https://x.org/?a=1&amp;b=2\">&quot;Hardware&quot; &lt;notes&gt;</a> \
             <span class=\"checked\">(checked 2026-08-30)</span></li>\n  "
        );
        // An address loading refuses (the entry's error, at its line) is no link.
        for url in [
            "<<replace: that page's https address>>",
            "docs.nvidia.com/cuda",
            "",
        ] {
            let source = SourceCtx {
                title: "Guide".into(),
                url: url.into(),
                checked: "2026-08-30".into(),
            };
            assert_eq!(
                sources(&[source]),
                "<li>Guide <span class=\"checked\">(checked 2026-08-30)</span></li>\n  ",
                "{url}"
            );
        }
    }

    #[test]
    fn a_side_by_side_head_names_the_nodes_over_their_columns() {
        let mut view = TableView {
            experiment: "e".into(),
            node: "a, b".into(),
            groups: Vec::new(),
            caption: None,
            headings: vec!["label".into(), "ms".into()],
            numeric: vec![false, true],
            rows: Vec::new(),
            values: Vec::new(),
            intervals: Vec::new(),
            provenance: Vec::new(),
            stale: None,
            notes: Vec::new(),
            line: None,
            bar: None,
            roofs: Default::default(),
        };
        let class = |i: usize| if i == 0 { "label" } else { "num" };
        assert_eq!(
            table_head(&view, class),
            "<thead><tr><th scope=\"col\" class=\"label\">label</th>\
             <th scope=\"col\" class=\"num\">ms</th></tr></thead>"
        );
        view.headings.push("ms".into());
        view.groups = vec![
            ColumnGroup {
                node: "a".into(),
                gpu: "H200".into(),
                first: 1,
                span: 1,
                measured_by: None,
                pending: None,
            },
            ColumnGroup {
                node: "b<".into(),
                gpu: String::new(),
                first: 2,
                span: 1,
                measured_by: None,
                pending: None,
            },
        ];
        let head = table_head(&view, class);
        assert!(head.contains("<tr><th scope=\"col\" rowspan=\"2\">label</th><th scope=\"colgroup\" colspan=\"1\" class=\"node-group\">a <span class=\"node-gpu\">(H200)</span></th><th scope=\"colgroup\" colspan=\"1\" class=\"node-group\">b&lt;</th></tr>"), "{head}");
        assert!(head.contains("<tr><th scope=\"col\" class=\"num\">ms</th><th scope=\"col\" class=\"num\">ms</th></tr>"), "{head}");
    }
}
