//! What a page shows of a highlighted block: per line, runs of text with one `hl-*` class
//! (or none), after a scope → class table (a token takes the class of its innermost scope
//! that the table names). Two highlighters agree on a block when these runs are equal.
//! `CLASSES` is the table the build used with syntect, kept here as it was; `CLASSES_NOW`
//! the one it uses with syntaxmate (the rows VS Code's grammar scopes need added; see
//! `languages.rs`), included from the build's source.

/// The build's table while it highlighted with syntect (before issue 41's switch).
pub const CLASSES: &[(&str, &str)] = &[
    ("comment", "hl-comment"),
    ("string", "hl-string"),
    ("constant.character", "hl-string"),
    ("constant.numeric", "hl-number"),
    ("punctuation.section.launch", "hl-launch"),
    ("storage.modifier.cuda", "hl-cuda"),
    ("variable.language.cuda", "hl-builtin"),
    ("support.function.cuda", "hl-builtin"),
    ("variable.other.register", "hl-builtin"),
    ("variable.other.constant.sass", "hl-builtin"),
    ("keyword.control.guard", "hl-cuda"),
    ("meta.control-code.sass", "hl-preproc"),
    ("keyword.other.directive", "hl-preproc"),
    ("keyword.control.import", "hl-preproc"),
    ("meta.preprocessor", "hl-preproc"),
    ("keyword.operator.word", "hl-keyword"),
    ("keyword.operator.logical.python", "hl-keyword"),
    ("keyword.operator", ""),
    ("keyword", "hl-keyword"),
    ("storage.type", "hl-type"),
    ("support.type", "hl-type"),
    ("storage.modifier", "hl-keyword"),
    ("constant.language", "hl-keyword"),
    ("variable.language", "hl-builtin"),
    ("support.function", "hl-builtin"),
];

/// The table the build uses now, with syntaxmate (`src/render/highlight/scope_classes.in`,
/// included, so the bench compares with exactly what the build shows): [`CLASSES`] plus
/// the rows VS Code's scope names need, judged in `languages.rs`.
pub const CLASSES_NOW: &[(&str, &str)] = build::CLASSES_NOW;

mod build {
    include!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../src/render/highlight/scope_classes.in"
    ));
    pub const CLASSES_NOW: &[(&str, &str)] = CLASSES;
}

/// Every class, for the themes of highlighters that report styles rather than scopes.
pub const ALL: &[&str] = &[
    "hl-comment",
    "hl-string",
    "hl-number",
    "hl-launch",
    "hl-cuda",
    "hl-builtin",
    "hl-preproc",
    "hl-keyword",
    "hl-type",
];

/// Per line, (class, text) runs; adjacent runs of one class merged, newlines dropped.
pub type Runs = Vec<Vec<(&'static str, String)>>;

/// Whether `prefix` is a prefix of `scope` atom by atom (`keyword` of `keyword.control`,
/// not of `keywords`), as syntect's `Scope::is_prefix_of`.
fn is_prefix(prefix: &str, scope: &str) -> bool {
    scope == prefix
        || (scope.starts_with(prefix) && scope.as_bytes().get(prefix.len()) == Some(&b'.'))
}

/// A scope → class table: (prefix, class), the most specific first.
pub type Table = &'static [(&'static str, &'static str)];

/// The class of a token whose scopes are `scopes` (outermost first) under `table`.
pub fn class_in<'a>(
    table: Table,
    scopes: impl DoubleEndedIterator<Item = &'a str>,
) -> &'static str {
    for scope in scopes.rev() {
        if let Some((_, class)) = table.iter().find(|(p, _)| is_prefix(p, scope)) {
            return class;
        }
    }
    ""
}

/// Builds [`Runs`] from text handed over in order with its class.
#[derive(Default)]
pub struct Builder {
    runs: Runs,
}

impl Builder {
    pub fn push(&mut self, class: &'static str, text: &str) {
        if self.runs.is_empty() {
            self.runs.push(Vec::new());
        }
        let mut pieces = text.split('\n').peekable();
        while let Some(piece) = pieces.next() {
            if !piece.is_empty() {
                let line = self.runs.last_mut().expect("a line");
                match line.last_mut() {
                    Some((c, t)) if *c == class => t.push_str(piece),
                    _ => line.push((class, piece.to_string())),
                }
            }
            if pieces.peek().is_some() {
                self.runs.push(Vec::new());
            }
        }
    }

    /// Start the next line (for highlighters that hand lines over without their newline).
    pub fn newline(&mut self) {
        self.push("", "\n");
    }

    pub fn finish(mut self) -> Runs {
        while self.runs.last().is_some_and(|l| l.is_empty()) {
            self.runs.pop();
        }
        self.runs
    }
}

pub fn first_difference(a: Option<&Runs>, b: Option<&Runs>) -> String {
    let (Some(a), Some(b)) = (a, b) else {
        return format!(
            "no output (reference {}, this {})",
            a.is_some(),
            b.is_some()
        );
    };
    for (n, (la, lb)) in a.iter().zip(b).enumerate() {
        if la != lb {
            return format!("line {}: syntect {:?}, this {:?}", n + 1, la, lb);
        }
    }
    format!("{} lines against {}", a.len(), b.len())
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn html_of(runs: &Runs) -> String {
    let mut out = String::new();
    for line in runs {
        for (class, text) in line {
            if class.is_empty() {
                out.push_str(&escape(text));
            } else {
                out.push_str(&format!("<span class=\"{class}\">{}</span>", escape(text)));
            }
        }
        out.push('\n');
    }
    out
}

/// An HTML page showing the blocks at `picks` as each highlighter colours them, in
/// columns, with the lines that differ from the first column's marked.
pub fn side_by_side(
    title: &str,
    heading: &str,
    intro: &str,
    names: &[&str],
    picks: &[usize],
    headings: &[String],
    outputs: &[Vec<Option<Runs>>],
) -> String {
    let mut html = String::from(
        "<!doctype html>\n<meta charset=\"utf-8\">\n<title>glossary: {title}</title>\n<style>\n\
         body{font:14px system-ui;margin:1em} table{border-collapse:collapse;table-layout:fixed;width:100%}\n\
         td,th{border:1px solid #ccc;vertical-align:top;padding:4px} pre{font:12px ui-monospace,monospace;white-space:pre-wrap;margin:0}\n\
         .hl-comment{color:#6a737d;font-style:italic}.hl-string{color:#032f62}.hl-number{color:#005cc5}\n\
         .hl-launch{color:#d73a49;font-weight:bold}.hl-cuda{color:#b31d28;font-weight:bold}.hl-builtin{color:#6f42c1}\n\
         .hl-preproc{color:#735c0f}.hl-keyword{color:#d73a49}.hl-type{color:#22863a}\n\
         .differs{background:#fff5b1}\n</style>\n\
         <h1>{heading}</h1>\n<p>{intro}</p>\n",
    )
    .replace("{title}", title)
    .replace("{heading}", heading)
    .replace("{intro}", intro);
    for (&i, heading) in picks.iter().zip(headings) {
        html.push_str(&format!("<h2>{}</h2>\n<table><tr>", escape(heading)));
        for n in names {
            html.push_str(&format!("<th>{}</th>", escape(n)));
        }
        html.push_str("</tr><tr>");
        let reference = outputs[0][i].as_ref();
        for out in outputs {
            html.push_str("<td><pre>");
            match &out[i] {
                None => html.push_str("(no output)"),
                Some(runs) => {
                    for (n, line) in runs.iter().enumerate() {
                        let differs = reference.and_then(|r| r.get(n)) != Some(line);
                        let one = html_of(&vec![line.clone()]);
                        if differs {
                            html.push_str(&format!(
                                "<span class=\"differs\">{}</span>\n",
                                one.trim_end_matches('\n')
                            ));
                        } else {
                            html.push_str(&one);
                        }
                    }
                }
            }
            html.push_str("</pre></td>");
        }
        html.push_str("</tr></table>\n");
    }
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn innermost_named_scope_wins() {
        assert_eq!(
            class_in(CLASSES, ["source.cuda", "comment.line"].into_iter()),
            "hl-comment"
        );
        assert_eq!(
            class_in(CLASSES, ["source.cuda", "keyword.operator.x"].into_iter()),
            ""
        );
        assert_eq!(
            class_in(CLASSES, ["source.cuda", "keywords"].into_iter()),
            ""
        );
    }

    /// The build's table now is the old one, in its order, plus rows for VS Code's names.
    #[test]
    fn the_table_now_is_the_old_one_plus_rows() {
        let old: Vec<_> = CLASSES_NOW
            .iter()
            .filter(|r| CLASSES.contains(r))
            .copied()
            .collect();
        assert_eq!(old, CLASSES);
        let shell = [
            "source.shell",
            "string.unquoted.argument.shell",
            "constant.other.option.dash.shell",
        ];
        assert_eq!(class_in(CLASSES_NOW, shell.into_iter()), "");
        let number = [
            "source.shell",
            "string.unquoted.argument.shell",
            "constant.numeric.integer.shell",
        ];
        assert_eq!(class_in(CLASSES_NOW, number.into_iter()), "hl-number");
    }
}
