//! The element ids an entry page's template gives its own parts (`id="sources"`,
//! `id="main"`, ...), read once from the compiled templates. The Markdown renderer keeps
//! automatic heading ids off them, refuses an explicit `{#id}` that repeats one, and body
//! links may name them (`[sources](#sources)`).

use std::collections::HashSet;

use tera::ast::Node;
use tera::Tera;

use crate::content::Kind;

/// The literal ids of each kind's entry template, with everything it extends, imports and
/// includes. An id made by an expression (`id="caption-{{ n }}"`) is not known here; the
/// generated-page check (`site_links`) still finds one that repeats.
#[derive(Debug, Default, Clone)]
pub struct TemplateIds {
    by_kind: [HashSet<String>; Kind::ALL.len()],
}

impl TemplateIds {
    pub fn of(tera: &Tera) -> TemplateIds {
        let mut ids = TemplateIds::default();
        for (i, kind) in Kind::ALL.into_iter().enumerate() {
            let mut seen = HashSet::new();
            collect(
                tera,
                &format!("{}.html", kind.singular()),
                &mut seen,
                &mut ids.by_kind[i],
            );
        }
        ids
    }

    /// The ids of template `name` (`index.html`) and everything it reaches.
    pub fn of_template(tera: &Tera, name: &str) -> HashSet<String> {
        let mut ids = HashSet::new();
        collect(tera, name, &mut HashSet::new(), &mut ids);
        ids
    }

    /// The ids the page template of `kind` uses.
    pub fn of_kind(&self, kind: Kind) -> &HashSet<String> {
        let i = Kind::ALL.iter().position(|k| *k == kind).unwrap_or(0);
        &self.by_kind[i]
    }
}

/// The ids in template `name` and every template it reaches, each template read once.
fn collect(tera: &Tera, name: &str, seen: &mut HashSet<String>, ids: &mut HashSet<String>) {
    if !seen.insert(name.to_string()) {
        return;
    }
    let Ok(template) = tera.get_template(name) else {
        return; // a missing template is load_templates's error to report
    };
    let mut reached: Vec<String> = template.parents.clone();
    reached.extend(template.imported_macro_files.iter().map(|(f, _)| f.clone()));
    walk(&template.ast, ids, &mut reached);
    for other in reached {
        collect(tera, &other, seen, ids);
    }
}

fn walk(nodes: &[Node], ids: &mut HashSet<String>, reached: &mut Vec<String>) {
    for node in nodes {
        match node {
            Node::Text(text) => ids.extend(literal_ids(text).map(str::to_string)),
            Node::Include(_, names, _) => reached.extend(names.iter().cloned()),
            Node::ImportMacro(_, file, _) | Node::Extends(_, file) => reached.push(file.clone()),
            Node::MacroDefinition(_, m, _) => walk(&m.body, ids, reached),
            Node::Block(_, b, _) => walk(&b.body, ids, reached),
            Node::FilterSection(_, f, _) => walk(&f.body, ids, reached),
            Node::Forloop(_, f, _) => {
                walk(&f.body, ids, reached);
                walk(f.empty_body.as_deref().unwrap_or_default(), ids, reached);
            }
            Node::If(cond, _) => {
                for (_, _, body) in &cond.conditions {
                    walk(body, ids, reached);
                }
                walk(
                    cond.otherwise.as_ref().map_or(&[], |(_, b)| b),
                    ids,
                    reached,
                );
            }
            _ => {}
        }
    }
}

/// The values of ` id="…"` attributes wholly inside `text`: one cut short by a `{{ … }}`
/// ends the text node before its closing quote and is skipped.
fn literal_ids(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices(" id=\"")
        .filter_map(move |(at, needle)| {
            let value = &text[at + needle.len()..];
            let end = value.find('"')?;
            Some(&value[..end]).filter(|v| !v.is_empty())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_literal_ids_through_extends_imports_and_blocks() {
        let mut tera = Tera::default();
        tera.add_raw_templates(vec![
            ("base.html", "<main id=\"main\">{% block body %}{% endblock %}</main>"),
            (
                "parts.html",
                "{% macro s() %}<section id=\"sources\"><p id=\"cap-{{ 1 }}\"></p></section>{% endmacro %}",
            ),
            (
                "term.html",
                "{% extends \"base.html\" %}{% import \"parts.html\" as p %}{% block body %}{% if x %}<h2 id=\"related\">R</h2>{% endif %}{% endblock %}",
            ),
            ("lesson.html", "<div id=\"lesson-only\"></div>"),
        ])
        .unwrap();
        let ids = TemplateIds::of(&tera);
        let mut term: Vec<&str> = ids.of_kind(Kind::Term).iter().map(|s| s.as_str()).collect();
        term.sort();
        assert_eq!(term, ["main", "related", "sources"]);
        assert!(ids.of_kind(Kind::Lesson).contains("lesson-only"));
        assert!(ids.of_kind(Kind::Guide).is_empty());
    }
}
