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
    &["render"],
    // The publish gate and the signature workflow it reads.
    &["review"],
    // Experiments and records (verify flow), which read the claim tests content defines.
    &["measure"],
    // Who may be trusted: people and node keys, SSH signatures (reads only config/error).
    &["trust"],
    // The content model, and the occupancy model that stands apart.
    &["content", "occupancy"],
    &["config", "atomic"],
    // Leaves that use nothing of the crate: errors, names and text as a reader sees them,
    // and the link schemes a page may carry.
    &["error", "names", "visible", "link_scheme"],
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

/// The sibling files a file of `folder` (a module folder under src/) uses: every
/// `super::NAME` and `crate::FOLDER::NAME` in its code (comments skipped).
fn sibling_uses(source: &str, folder: &str) -> Vec<String> {
    let mut found = Vec::new();
    let long = format!("crate::{folder}::");
    for raw in source.lines() {
        let code = raw.split("//").next().unwrap_or("");
        for prefix in ["super::", long.as_str()] {
            let mut rest = code;
            while let Some(at) = rest.find(prefix) {
                rest = &rest[at + prefix.len()..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    found.push(name);
                }
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// A circle of imports among `graph`'s files (file -> the files it uses), if there is one.
fn find_circle(graph: &std::collections::BTreeMap<String, Vec<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &std::collections::BTreeMap<String, Vec<String>>,
        path: &mut Vec<String>,
        done: &mut std::collections::BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            return Some(path[at..].to_vec());
        }
        if !done.insert(node.to_string()) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(circle) = visit(next, graph, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        None
    }
    let mut done = std::collections::BTreeSet::new();
    graph
        .keys()
        .find_map(|start| visit(start, graph, &mut Vec::new(), &mut done))
}

/// The files of src/review/ use each other one way: signoff, digest (data) → signature_file,
/// error → gate, signatures, resolve, input → status, sign, diff. A circle between files
/// of one folder is a sign that two jobs share it (the style guide).
#[test]
fn review_files_import_in_no_circle() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/review");
    let mut graph = std::collections::BTreeMap::new();
    for entry in std::fs::read_dir(&dir).expect("src/review/ is readable") {
        let path = entry.expect("entry").path();
        let Some(name) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if path.extension().is_none_or(|e| e != "rs") || name == "mod" {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        // A file's own tests (`use super::*`) are not a dependency on a sibling.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let uses: Vec<String> = sibling_uses(code, "review")
            .into_iter()
            .filter(|u| u != name && dir.join(format!("{u}.rs")).is_file())
            .collect();
        graph.insert(name.to_string(), uses);
    }
    assert!(graph.len() > 5, "found only {graph:?}");
    if let Some(circle) = find_circle(&graph) {
        panic!(
            "src/review/ files import each other in a circle: {} -> {}",
            circle.join(" -> "),
            circle[0]
        );
    }
}

#[test]
fn circle_finder_finds_a_circle_and_passes_a_one_way_graph() {
    let graph = |edges: &[(&str, &[&str])]| {
        edges
            .iter()
            .map(|(a, b)| (a.to_string(), b.iter().map(|s| s.to_string()).collect()))
            .collect::<std::collections::BTreeMap<String, Vec<String>>>()
    };
    let one_way = graph(&[("a", &["b", "c"]), ("b", &["c"]), ("c", &[])]);
    assert_eq!(find_circle(&one_way), None);
    let circle = graph(&[("a", &["b"]), ("b", &["c"]), ("c", &["a"])]);
    assert_eq!(find_circle(&circle).map(|c| c.len()), Some(3));
    assert_eq!(
        sibling_uses(
            "use super::gate::Role; // super::x\nuse crate::review::sign;\n",
            "review"
        ),
        ["gate", "sign"]
    );
}
