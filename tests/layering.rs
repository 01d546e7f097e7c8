//! Dependencies point one way: a module may use modules below it, never one above it.
//! This reads every `crate::` path in `src/` (code, not comments) and fails on an upward
//! one, so a new cycle is caught at `cargo test`, not in review.

use std::path::Path;

/// The crate's top-level modules, top to bottom. Modules on one row may use each other.
/// A new top-level module must be given a row here.
const LAYERS: &[&[&str]] = &[
    // Entry points: one file per subcommand.
    &["cmd"],
    &["serve"],
    // Verification across a fleet: plan, submit to a scheduler, import records back.
    &["fleet"],
    // A reader re-runs a published table: fetch a bundle, check it, run verify, compare.
    &["reproduce"],
    // The build flow: load → assess → gate → render → write, and incremental sessions.
    &["pipeline"],
    // The site as a whole: every page assembled, and the site-wide files (search index,
    // feed, sitemap, A-Z index, 404, static/), which take one page's pieces as data.
    &["site"],
    // One page: Markdown, tables, charts, diagrams, the sidebar, templates.
    &["render"],
    // The publish gate and the signature workflow it reads.
    &["review"],
    // Experiments and records (verify flow), which read the claim tests content defines.
    &["measure"],
    // Who may be trusted: people and node keys, SSH signatures (reads only config/error).
    &["trust"],
    // The content model, and the occupancy model that stands apart.
    &["content", "occupancy"],
    // Settings, the atomic file writer, and the build's cache of work kept between builds.
    &["config", "atomic", "build_cache"],
    // Leaves that use nothing of the crate: errors, names and text as a reader sees them,
    // the link schemes a page may carry, how deep a YAML file may nest, the allocator's
    // settings and live-heap counter, and rate units with the roofs they are read against.
    &[
        "error",
        "names",
        "visible",
        "link_scheme",
        "yaml_depth",
        "heap_count",
        "rates",
    ],
];

fn rank(module: &str) -> Option<usize> {
    LAYERS.iter().position(|row| row.contains(&module))
}

/// One upward import: `file` (in module `from`) uses `to`, which sits above it.
#[derive(Debug, PartialEq)]
struct Upward {
    file: String,
    line: usize,
    from: String,
    to: String,
}

/// Every top-level module a source file names through `crate::`, with its line. Comments
/// are skipped (a doc link is not a dependency); grouped `use crate::{a::x, b};` counts
/// each module.
fn crate_paths(source: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut in_group = false;
    for (i, raw) in source.lines().enumerate() {
        let code = raw.split("//").next().unwrap_or("");
        let mut rest = code;
        if in_group {
            // Continuation lines of a `use crate::{` that spans lines.
            let (inner, closed) = match rest.find('}') {
                Some(end) => (&rest[..end], true),
                None => (rest, false),
            };
            found.extend(group_heads(inner).into_iter().map(|m| (i + 1, m)));
            in_group = !closed;
            if in_group {
                continue;
            }
        }
        while let Some(at) = rest.find("crate::") {
            // `glossary_crate::` or `my_crate::` are not this crate.
            let before = rest[..at].chars().last();
            rest = &rest[at + "crate::".len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            if let Some(group) = rest.strip_prefix('{') {
                match group.find('}') {
                    Some(end) => {
                        found.extend(group_heads(&group[..end]).into_iter().map(|m| (i + 1, m)))
                    }
                    None => {
                        found.extend(group_heads(group).into_iter().map(|m| (i + 1, m)));
                        in_group = true;
                    }
                }
                continue;
            }
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                found.push((i + 1, name));
            }
        }
    }
    found
}

/// The first path segment of each item of a `{...}` group (nested groups skipped).
fn group_heads(inner: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut at_item_start = true;
    let mut word = String::new();
    for c in inner.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => at_item_start = true,
            c if at_item_start && depth == 0 && (c.is_alphanumeric() || c == '_') => word.push(c),
            _ => {
                if !word.is_empty() {
                    heads.push(std::mem::take(&mut word));
                    at_item_start = false;
                }
            }
        }
    }
    if !word.is_empty() {
        heads.push(word);
    }
    heads.retain(|h| h != "self");
    heads
}

/// The upward imports in one file of module `from`; unknown modules are errors too.
fn check_file(file: &str, from: &str, source: &str) -> Result<Vec<Upward>, String> {
    let Some(own) = rank(from) else {
        return Err(format!(
            "{file}: module `{from}` has no row in LAYERS (tests/layering.rs); add it"
        ));
    };
    let mut upward = Vec::new();
    for (line, to) in crate_paths(source) {
        if to == from {
            continue;
        }
        match rank(&to) {
            // Items of lib.rs itself (re-exports such as `crate::Result`) sit at the bottom.
            None if is_root_item(&to) => {}
            None => {
                return Err(format!(
                    "{file}:{line}: `crate::{to}` is not a module in LAYERS (tests/layering.rs)"
                ))
            }
            Some(r) if r < own => upward.push(Upward {
                file: file.to_string(),
                line,
                from: from.to_string(),
                to,
            }),
            Some(_) => {}
        }
    }
    Ok(upward)
}

/// Names lib.rs re-exports from `error` (the bottom layer).
fn is_root_item(name: &str) -> bool {
    matches!(name, "Error" | "Result")
}

#[test]
fn no_module_imports_one_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut upward = Vec::new();
    let mut problems = Vec::new();
    let mut files = 0;
    for entry in walkdir::WalkDir::new(&src) {
        let entry = entry.expect("src/ is readable");
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let rel = path.strip_prefix(&src).unwrap();
        let mut parts = rel.components().map(|c| c.as_os_str().to_string_lossy());
        let first = parts.next().unwrap().into_owned();
        // lib.rs and main.rs are the root; src/bin/ holds separate binaries.
        if rel.components().count() == 1 && (first == "lib.rs" || first == "main.rs") {
            continue;
        }
        if first == "bin" {
            continue;
        }
        let module = first.trim_end_matches(".rs").to_string();
        let text = std::fs::read_to_string(path).unwrap();
        files += 1;
        match check_file(&format!("src/{}", rel.display()), &module, &text) {
            Ok(found) => upward.extend(found),
            Err(e) => problems.push(e),
        }
    }
    assert!(files > 20, "found only {files} source files under {src:?}");
    for u in &upward {
        problems.push(format!(
            "{}:{}: `{}` imports `{}`, which sits above it (see LAYERS in tests/layering.rs)",
            u.file, u.line, u.from, u.to
        ));
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn every_layer_name_is_a_module() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for name in LAYERS.iter().flat_map(|row| row.iter()) {
        assert!(
            src.join(name).is_dir() || src.join(format!("{name}.rs")).is_file(),
            "LAYERS names `{name}`, which is not a module under src/"
        );
    }
}

// The checker itself, on small made-up sources.

#[test]
fn checker_flags_an_upward_use() {
    let source = "use crate::content::Entry;\nuse crate::pipeline::Project;\n";
    let found = check_file("src/review/x.rs", "review", source).unwrap();
    assert_eq!(
        found,
        [Upward {
            file: "src/review/x.rs".into(),
            line: 2,
            from: "review".into(),
            to: "pipeline".into(),
        }]
    );
}

#[test]
fn checker_flags_paths_in_code_and_in_groups() {
    let inline = "fn f() { let p = crate::render::pages::page_path(x); }\n";
    assert_eq!(check_file("f.rs", "content", inline).unwrap().len(), 1);
    let group = "use crate::{error::Result, serve::Server};\n";
    let found = check_file("f.rs", "render", group).unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].to, "serve");
    let multi = "use crate::{\n    config::Config,\n    pipeline::{Project, Session},\n};\n";
    let found = check_file("f.rs", "render", multi).unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!((found[0].line, found[0].to.as_str()), (3, "pipeline"));
}

#[test]
fn checker_allows_downward_and_same_row_and_ignores_comments() {
    let source = "//! See [`crate::pipeline::Project`].\n\
                  use crate::error::Result; // not crate::serve\n\
                  use crate::occupancy::Arch;\n\
                  use crate::content::{self, Entry};\n\
                  let s = \"other_crate::serve\";\n";
    assert_eq!(check_file("f.rs", "content", source).unwrap(), []);
}

#[test]
fn checker_refuses_a_module_without_a_row() {
    let err = check_file("src/newthing/mod.rs", "newthing", "").unwrap_err();
    assert!(err.contains("no row in LAYERS"), "{err}");
    let err = check_file("f.rs", "review", "use crate::newthing::X;\n").unwrap_err();
    assert!(err.contains("not a module in LAYERS"), "{err}");
}

// File-level circles: within one folder, which files import which. A circle between files of
// one folder is a sign that two jobs share it (STYLE.md, "One room, one job"), so a strongly
// connected component of more than `MAX_CIRCLE` files fails, printed with the imports that
// close it.

/// The most files one import circle inside a folder may hold.
const MAX_CIRCLE: usize = 3;

/// Folders whose circles are being taken apart in another change, not checked here yet.
const CIRCLE_EXEMPT: &[&str] = &[];

/// A token of Rust code, with its line; comments and literals are gone before this.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    PathSep,
    Open,
    Close,
    Comma,
    Semi,
    Other,
}

/// `source` with comments, string literals and char literals blanked (newlines kept), so
/// what is left is code: a path in a doc comment or a string is not an import.
fn code_only(source: &str) -> String {
    let c: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    let blank = |out: &mut String, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
                out.push(' ');
            }
        } else if c[i] == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
        } else if (c[i] == 'r' || (c[i] == 'b' && next == Some('r')))
            && !c[..i]
                .last()
                .is_some_and(|p| p.is_alphanumeric() || *p == '_')
            && raw_string_hashes(&c[i..]).is_some()
        {
            // r"..", r#".."#, br#".."#: ends at the quote followed by as many hashes.
            let start = if c[i] == 'b' { i + 2 } else { i + 1 };
            let hashes = raw_string_hashes(&c[i..]).unwrap();
            let mut j = start + hashes + 1;
            while j < c.len() {
                if c[j] == '"'
                    && c[j + 1..]
                        .iter()
                        .take(hashes)
                        .filter(|h| **h == '#')
                        .count()
                        == hashes
                {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            for &ch in &c[i..j.min(c.len())] {
                blank(&mut out, ch);
            }
            i = j;
        } else if c[i] == '"' {
            out.push(' ');
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    blank(&mut out, c[i]);
                    i += 1;
                }
                if i < c.len() {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c[i] == '\'' && char_literal_len(&c[i..]).is_some() {
            let n = char_literal_len(&c[i..]).unwrap();
            out.extend(std::iter::repeat_n(' ', n));
            i += n;
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// How many `#` open the raw string at the start of `c` (`r"`, `r#"`, `br##"`), if one does.
fn raw_string_hashes(c: &[char]) -> Option<usize> {
    let rest = if c.first() == Some(&'b') {
        &c[2..]
    } else {
        &c[1..]
    };
    let hashes = rest.iter().take_while(|h| **h == '#').count();
    (rest.get(hashes) == Some(&'"')).then_some(hashes)
}

/// The length of the char literal at the start of `c` (`'x'`, `'\n'`, `'\u{7f}'`); `None`
/// for a lifetime such as `'a`.
fn char_literal_len(c: &[char]) -> Option<usize> {
    if c.get(1) == Some(&'\\') {
        let end = c.iter().skip(2).position(|ch| *ch == '\'')? + 2;
        return (end <= 12).then_some(end + 1);
    }
    (c.get(2) == Some(&'\'')).then_some(3)
}

fn tokens(code: &str) -> Vec<(usize, Tok)> {
    let mut toks = Vec::new();
    let mut line = 1;
    let mut chars = code.chars().peekable();
    while let Some(ch) = chars.next() {
        match ch {
            '\n' => line += 1,
            c if c.is_whitespace() => {}
            c if c.is_alphabetic() || c == '_' => {
                let mut word = c.to_string();
                while let Some(&n) = chars.peek() {
                    if !(n.is_alphanumeric() || n == '_') {
                        break;
                    }
                    word.push(n);
                    chars.next();
                }
                toks.push((line, Tok::Ident(word)));
            }
            ':' if chars.peek() == Some(&':') => {
                chars.next();
                toks.push((line, Tok::PathSep));
            }
            '{' => toks.push((line, Tok::Open)),
            '}' => toks.push((line, Tok::Close)),
            ',' => toks.push((line, Tok::Comma)),
            ';' => toks.push((line, Tok::Semi)),
            _ => toks.push((line, Tok::Other)),
        }
    }
    toks
}

/// Every path into this crate that `source` (the file of module `module`) names, made
/// absolute (`super::x` in `render::pages` is `render::x`), with its line. Read: `use`
/// trees (groups included, `use x::` relative to the module as in a `mod.rs`), and
/// `crate::`, `super::`, `self::` paths anywhere in code. Inline modules (`mod tests {`)
/// count for `super`.
fn absolute_paths(source: &str, module: &[String]) -> Vec<(usize, Vec<String>)> {
    let toks = tokens(&code_only(source));
    let mut found = Vec::new();
    let mut depth = 0usize;
    // Inline modules open at this point: (name, brace depth inside it).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let here: Vec<String> = module
            .iter()
            .cloned()
            .chain(inline.iter().map(|(n, _)| n.clone()))
            .collect();
        let after_sep = i > 0 && toks[i - 1].1 == Tok::PathSep;
        match &toks[i].1 {
            Tok::Ident(w) if w == "mod" => {
                if let (Some((_, Tok::Ident(name))), Some((_, Tok::Open))) =
                    (toks.get(i + 1), toks.get(i + 2))
                {
                    depth += 1;
                    inline.push((name.clone(), depth));
                    i += 3;
                    continue;
                }
            }
            Tok::Ident(w) if w == "use" && !after_sep => {
                let mut paths = Vec::new();
                i = use_tree(&toks, i + 1, Vec::new(), &mut paths);
                for (line, path) in paths {
                    if let Some(abs) = resolve(&path, &here, true) {
                        found.push((line, abs));
                    }
                }
                continue;
            }
            Tok::Ident(w)
                if matches!(w.as_str(), "crate" | "super" | "self")
                    && !after_sep
                    && toks.get(i + 1).is_some_and(|t| t.1 == Tok::PathSep) =>
            {
                let line = toks[i].0;
                let mut path = vec![w.clone()];
                let mut j = i + 1;
                while let (Some((_, Tok::PathSep)), Some((_, Tok::Ident(seg)))) =
                    (toks.get(j), toks.get(j + 1))
                {
                    path.push(seg.clone());
                    j += 2;
                }
                if let Some(abs) = resolve(&path, &here, false) {
                    found.push((line, abs));
                }
                i = j;
                continue;
            }
            Tok::Open => depth += 1,
            Tok::Close => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// Reads one use tree from `toks[i]`, pushing each leaf path (prefix included) with its
/// line; returns the index after the tree (after the `;` at the top level).
fn use_tree(
    toks: &[(usize, Tok)],
    mut i: usize,
    prefix: Vec<String>,
    out: &mut Vec<(usize, Vec<String>)>,
) -> usize {
    let mut path = prefix;
    let top = path.is_empty();
    while i < toks.len() {
        match &toks[i].1 {
            Tok::Ident(w) if w == "as" => i += 2,
            Tok::Ident(w) => {
                path.push(w.clone());
                i += 1;
            }
            Tok::PathSep => i += 1,
            Tok::Open => {
                i += 1;
                loop {
                    i = use_tree(toks, i, path.clone(), out);
                    match toks.get(i).map(|t| &t.1) {
                        Some(Tok::Comma) => i += 1,
                        Some(Tok::Close) => {
                            i += 1;
                            break;
                        }
                        _ => break,
                    }
                    if toks.get(i).is_some_and(|t| t.1 == Tok::Close) {
                        i += 1;
                        break;
                    }
                }
                path.clear();
            }
            Tok::Comma | Tok::Close | Tok::Semi => break,
            Tok::Other => i += 1,
        }
    }
    if !path.is_empty() {
        let line = toks[i.min(toks.len() - 1)].0;
        out.push((line, path));
    }
    if top && toks.get(i).is_some_and(|t| t.1 == Tok::Semi) {
        i += 1;
    }
    i
}

/// `path` as seen from module `here`, made absolute; `None` for a path that leaves the crate
/// (`std::`, a dependency). In a `use`, a bare first segment is relative to `here`.
fn resolve(path: &[String], here: &[String], in_use: bool) -> Option<Vec<String>> {
    let first = path.first()?;
    let mut abs: Vec<String>;
    let mut rest = &path[1..];
    match first.as_str() {
        "crate" => abs = Vec::new(),
        "self" => abs = here.to_vec(),
        "super" => {
            abs = here.to_vec();
            abs.pop()?;
            while rest.first().is_some_and(|s| s == "super") {
                abs.pop()?;
                rest = &rest[1..];
            }
        }
        _ if in_use => {
            abs = here.to_vec();
            rest = path;
        }
        _ => return None,
    }
    abs.extend(rest.iter().filter(|s| *s != "self").cloned());
    Some(abs)
}

/// One folder of src/: its files and subfolders are the nodes (a subfolder counts as one),
/// `mod.rs` (or `lib.rs` at the top) among them.
struct Folder {
    /// Path below src/, "" for src/ itself.
    dir: String,
    nodes: Vec<String>,
    /// edges[a] = (b, where a first names b).
    edges: Vec<std::collections::BTreeMap<usize, String>>,
    lines: usize,
}

/// Every Rust file below src/ (src/bin/ and main.rs aside: separate crates), as
/// (path below src/ with `/`, text).
fn source_files() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(&src).sort_by_file_name() {
        let entry = entry.expect("src/ is readable");
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let rel = path
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel.starts_with("bin/") || rel == "main.rs" {
            continue;
        }
        files.push((rel, std::fs::read_to_string(path).unwrap()));
    }
    files
}

/// The module path of a file below src/ (`render/pages.rs` is `render::pages`).
fn module_of(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel.split('/').map(str::to_string).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts
}

/// The file-level import graph of every folder of the files given.
fn folders(files: &[(String, String)]) -> Vec<Folder> {
    let mut dirs: std::collections::BTreeSet<String> = Default::default();
    for (rel, _) in files {
        let mut dir = rel.rsplit_once('/').map_or("", |(d, _)| d).to_string();
        dirs.insert(dir.clone());
        while let Some((up, _)) = dir.rsplit_once('/') {
            dir = up.to_string();
            dirs.insert(dir.clone());
        }
        dirs.insert(String::new());
    }
    let mut out = Vec::new();
    for dir in dirs {
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        let folder_mod: Vec<String> = if dir.is_empty() {
            Vec::new()
        } else {
            dir.split('/').map(str::to_string).collect()
        };
        // The node of this folder a file below it belongs to.
        let node_of = |rel: &str| -> Option<String> {
            let below = rel.strip_prefix(&prefix)?;
            Some(match below.split_once('/') {
                Some((sub, _)) => format!("{sub}/"),
                None => below.to_string(),
            })
        };
        let own = if dir.is_empty() { "lib.rs" } else { "mod.rs" };
        let mut nodes: Vec<String> = files.iter().filter_map(|(r, _)| node_of(r)).collect();
        nodes.sort();
        nodes.dedup();
        let index = |n: &str| nodes.iter().position(|x| x == n);
        let mut edges = vec![std::collections::BTreeMap::new(); nodes.len()];
        // Items the folder's own module re-exports from a child (`pub use entry::Entry;`):
        // naming one is using that child, not mod.rs.
        let own_rel = format!("{prefix}{own}");
        let mut reexports = std::collections::BTreeMap::new();
        for (rel, text) in files.iter().filter(|(r, _)| *r == own_rel) {
            for (_, abs) in absolute_paths(text, &module_of(rel)) {
                let Some(child) = abs.get(folder_mod.len()) else {
                    continue;
                };
                if abs.len() < folder_mod.len() + 2 || abs[..folder_mod.len()] != folder_mod[..] {
                    continue;
                }
                if let Some(node) =
                    index(&format!("{child}.rs")).or_else(|| index(&format!("{child}/")))
                {
                    reexports.insert(abs.last().unwrap().clone(), node);
                }
            }
        }
        let mut lines = 0;
        for (rel, text) in files {
            let Some(from) = node_of(rel) else { continue };
            lines += text.lines().count();
            let from = index(&from).unwrap();
            for (line, abs) in absolute_paths(text, &module_of(rel)) {
                if abs.len() < folder_mod.len() || abs[..folder_mod.len()] != folder_mod[..] {
                    continue;
                }
                let target = abs.get(folder_mod.len()).and_then(|seg| {
                    index(&format!("{seg}.rs"))
                        .or_else(|| index(&format!("{seg}/")))
                        .or_else(|| reexports.get(seg).copied())
                });
                // An item of the folder's own module (`super::OutputFile`) is its mod.rs.
                let Some(to) = target.or_else(|| index(own)) else {
                    continue;
                };
                if to != from {
                    edges[from]
                        .entry(to)
                        .or_insert_with(|| format!("src/{rel}:{line}"));
                }
            }
        }
        out.push(Folder {
            dir,
            nodes,
            edges,
            lines,
        });
    }
    out
}

/// Strongly connected components of more than one node (Tarjan), each sorted.
fn circles(edges: &[std::collections::BTreeMap<usize, String>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        edges: &'a [std::collections::BTreeMap<usize, String>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        found: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in s.edges[v].keys() {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.found.push(comp);
            }
        }
    }
    let n = edges.len();
    let mut s = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        found: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.found.sort();
    s.found
}

/// A circle as text: its files, then each import inside it with where it is.
fn describe(folder: &Folder, circle: &[usize]) -> String {
    let names: Vec<&str> = circle.iter().map(|&i| folder.nodes[i].as_str()).collect();
    let mut text = format!(
        "src/{}: {} files import each other in a circle: {}",
        folder.dir,
        circle.len(),
        names.join(", ")
    );
    for &a in circle {
        for (b, at) in &folder.edges[a] {
            if circle.contains(b) {
                text.push_str(&format!(
                    "\n    {} -> {} ({at})",
                    folder.nodes[a], folder.nodes[*b]
                ));
            }
        }
    }
    text
}

#[test]
fn no_folder_holds_an_import_circle_of_more_than_three_files() {
    let files = source_files();
    let folders = folders(&files);
    let total: usize = files.iter().map(|(_, t)| t.lines().count()).sum();
    // The house in numbers (shown with --nocapture): rooms, circles, the largest room.
    let top = folders
        .iter()
        .filter(|f| !f.dir.is_empty() && !f.dir.contains('/'))
        .max_by_key(|f| f.lines)
        .unwrap();
    println!(
        "{} folders; largest top-level folder src/{}: {} of {} lines ({:.0}%)",
        folders.len(),
        top.dir,
        top.lines,
        total,
        100.0 * top.lines as f64 / total as f64
    );
    let mut problems = Vec::new();
    for folder in &folders {
        for circle in circles(&folder.edges) {
            let text = describe(folder, &circle);
            println!("{text}");
            let exempt = CIRCLE_EXEMPT
                .iter()
                .any(|d| folder.dir == *d || folder.dir.starts_with(&format!("{d}/")));
            if circle.len() > MAX_CIRCLE && !exempt {
                problems.push(text);
            }
        }
    }
    assert!(
        problems.is_empty(),
        "import circles of more than {MAX_CIRCLE} files in one folder: a folder holding \
         two jobs; split it so dependencies point one way\n{}",
        problems.join("\n")
    );
}

// The circle finder itself, on small made-up trees.

fn tree(files: &[(&str, &str)]) -> Vec<Folder> {
    let files: Vec<(String, String)> = files
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
    folders(&files)
}

fn circle_names(folders: &[Folder], dir: &str) -> Vec<Vec<String>> {
    let f = folders.iter().find(|f| f.dir == dir).unwrap();
    circles(&f.edges)
        .into_iter()
        .map(|c| c.into_iter().map(|i| f.nodes[i].clone()).collect())
        .collect()
}

#[test]
fn finds_a_circle_through_super_crate_and_group_paths() {
    let folders = tree(&[
        (
            "r/mod.rs",
            "pub mod a;\npub mod b;\npub mod c;\npub mod d;\n",
        ),
        ("r/a.rs", "use super::b::X;\n"),
        ("r/b.rs", "use crate::r::{c::Y, d};\n"),
        ("r/c.rs", "fn f() { crate::r::a::g(); }\n"),
        ("r/d.rs", "use std::fmt;\n"),
    ]);
    assert_eq!(circle_names(&folders, "r"), [["a.rs", "b.rs", "c.rs"]]);
}

#[test]
fn circle_finder_ignores_comments_strings_and_test_modules_reaching_their_file() {
    let folders = tree(&[
        ("r/mod.rs", "pub mod a;\npub mod b;\n"),
        ("r/a.rs", "use super::b::X;\n"),
        (
            "r/b.rs",
            "//! See [`super::a`].\nconst S: &str = \"super::a::f\";\nconst R: &str = r#\"crate::r::a\"#;\n\
             #[cfg(test)]\nmod tests {\n    use super::*;\n    use super::super::b::Z;\n}\n",
        ),
    ]);
    assert_eq!(circle_names(&folders, "r"), Vec::<Vec<String>>::new());
    // The same test module reaching a sibling closes a circle.
    let folders = tree(&[
        ("r/mod.rs", "pub mod a;\npub mod b;\n"),
        ("r/a.rs", "use super::b::X;\n"),
        (
            "r/b.rs",
            "#[cfg(test)]\nmod tests {\n    use super::super::a::Y;\n}\n",
        ),
    ]);
    assert_eq!(circle_names(&folders, "r"), [["a.rs", "b.rs"]]);
}

#[test]
fn a_subfolder_is_one_node_and_mod_rs_items_are_mod_rs() {
    // s/ -> mod.rs (Own is defined there) -> a.rs -> s/.
    let folders = tree(&[
        (
            "r/mod.rs",
            "pub mod a;\npub mod s;\nuse self::a::g;\npub struct Own;\n",
        ),
        ("r/a.rs", "use super::s::deep::Z;\n"),
        ("r/s/mod.rs", "pub mod deep;\n"),
        ("r/s/deep.rs", "use crate::r::Own;\n"),
    ]);
    assert_eq!(circle_names(&folders, "r"), [["a.rs", "mod.rs", "s/"]]);
    // Item is only re-exported by mod.rs: s/ uses a.rs itself.
    let folders = tree(&[
        ("r/mod.rs", "pub mod a;\npub mod s;\npub use a::Item;\n"),
        ("r/a.rs", "use super::s::deep::Z;\n"),
        ("r/s/mod.rs", "pub mod deep;\n"),
        ("r/s/deep.rs", "use crate::r::Item;\n"),
    ]);
    assert_eq!(circle_names(&folders, "r"), [["a.rs", "s/"]]);
}

#[test]
fn an_item_mod_rs_reexports_is_its_child_file() {
    // b.rs names `crate::r::Item`, which mod.rs takes from a.rs: b.rs uses a.rs.
    let folders = tree(&[
        (
            "r/mod.rs",
            "mod a;\nmod b;\npub use a::Item;\npub use b::Other;\n",
        ),
        ("r/a.rs", "use super::b::Other;\n"),
        ("r/b.rs", "fn f() -> crate::r::Item { todo!() }\n"),
    ]);
    assert_eq!(circle_names(&folders, "r"), [["a.rs", "b.rs"]]);
}
