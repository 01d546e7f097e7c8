//! giallo (Zola's highlighter since 0.22): a TextMate engine on Oniguruma's regex sets,
//! which reports each token's style under a VS Code theme rather than its scopes. So the
//! theme here is the class table itself: one rule per table row, its scope the row's
//! prefix and its colour standing for the row's class (`#0000NN`, or the default colour
//! for the rows that leave a token uncoloured). VS Code's theme rules pick the most
//! specific prefix matching the innermost scope it can, which is what the table's order
//! (most specific first, innermost scope first) does.

use std::collections::HashMap;

use giallo::{Color, HighlightOptions, Registry, ThemeVariant};

use crate::classes::{Builder, Runs, ALL, CLASSES};
use crate::Block;

const GRAMMARS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../src/render/highlight/syntaxes"
);

fn colour(class: &str) -> String {
    match ALL.iter().position(|c| *c == class) {
        Some(k) => format!("#0000{:02x}", k + 1),
        None => "#000000".into(),
    }
}

/// The class table as a VS Code theme, written beside the grammars.
fn theme_file() -> std::path::PathBuf {
    let rules: Vec<serde_json::Value> = CLASSES
        .iter()
        .map(|(scope, class)| {
            serde_json::json!({"scope": scope, "settings": {"foreground": colour(class)}})
        })
        .collect();
    let theme = serde_json::json!({
        "name": "glossary-classes",
        "type": "light",
        "colors": {"editor.foreground": "#000000", "editor.background": "#ffffff"},
        "tokenColors": rules,
    });
    let path = std::env::temp_dir().join("glossary-highlighters-classes.theme.json");
    std::fs::write(&path, serde_json::to_string_pretty(&theme).expect("json")).expect("theme");
    path
}

pub fn highlighter() -> impl FnMut(&Block) -> Option<Runs> {
    let mut registry = Registry::default();
    for name in ["cuda", "ptx", "sass"] {
        registry
            .add_grammar_from_path(format!("{GRAMMARS}/{name}.tmLanguage.json"))
            .expect("grammar");
    }
    registry.add_theme_from_path(theme_file()).expect("theme");
    registry.link_grammars();
    let by_colour: HashMap<Color, &'static str> = ALL
        .iter()
        .map(|c| (Color::from_hex(&colour(c)).expect("colour"), *c))
        .chain([(Color::from_hex("#000000").expect("colour"), "")])
        .collect();
    move |b: &Block| {
        let options = HighlightOptions::new(b.lang, ThemeVariant::Single("glossary-classes"))
            .merge_whitespace(false)
            .merge_same_style_tokens(false);
        let code = registry.highlight(&b.code, &options).ok()?;
        let mut out = Builder::default();
        for (n, line) in code.tokens.iter().enumerate() {
            if n > 0 {
                out.newline();
            }
            for token in line {
                let ThemeVariant::Single(style) = &token.style else {
                    return None;
                };
                let class = by_colour.get(&style.foreground).copied().unwrap_or("?");
                out.push(class, &token.text);
            }
        }
        Some(out.finish())
    }
}
