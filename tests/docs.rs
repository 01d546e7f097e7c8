//! The README and the book (`docs/src/`) say only what is true of the code:
//! - every relative link and `#fragment` in them reaches a file and a heading;
//! - every `glossary ...` command in their shell code blocks parses against the real CLI
//!   (the built binary, run with the same arguments and `--help`: clap checks every
//!   subcommand, flag, value and positional before it answers help);
//! - the README's commands table names every subcommand and every flag clap defines, and
//!   no flag clap does not;
//! - the README's layout names every top-level module of `src/`;
//! - the README's first set-up command builds the repository's own content.
//!
//! The rules are written for authors in `docs/src/contributing.md`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::process::Command;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn glossary() -> Command {
    Command::new(env!("CARGO_BIN_EXE_glossary"))
}

fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_HEADING_ATTRIBUTES
}

/// README.md and every Markdown file of the book, as (path relative to the repo, text).
fn doc_files() -> Vec<(PathBuf, String)> {
    let mut files = vec![PathBuf::from("README.md")];
    for e in walkdir::WalkDir::new(repo().join("docs/src")).sort_by_file_name() {
        let e = e.expect("reading docs/src");
        if e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "md") {
            files.push(e.path().strip_prefix(repo()).unwrap().to_path_buf());
        }
    }
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(repo().join(&p))
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, text)
        })
        .collect()
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count() + 1
}

// ---------------------------------------------------------------------------------------
// Links
// ---------------------------------------------------------------------------------------

/// A heading's anchor as mdBook and GitHub make it: lower case, letters, digits, `-` and
/// `_` kept, white space to `-`, everything else dropped; a repeat gets `-1`, `-2`, ...
fn anchor(text: &str) -> String {
    text.chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_lowercase().next().unwrap_or(c))
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// Every anchor a Markdown file's headings give (explicit `{#id}` ones included).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut in_heading: Option<(Option<String>, String)> = None;
    for event in Parser::new_ext(text, options()) {
        match event {
            Event::Start(Tag::Heading { id, .. }) => {
                in_heading = Some((id.map(|i| i.to_string()), String::new()))
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, s)) = in_heading.as_mut() {
                    s.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let (id, s) = in_heading.take().unwrap();
                let base = id.unwrap_or_else(|| anchor(&s));
                let n = seen.entry(base.clone()).or_insert(0);
                out.insert(if *n == 0 {
                    base.clone()
                } else {
                    format!("{base}-{n}")
                });
                *n += 1;
            }
            _ => {}
        }
    }
    out
}

fn has_scheme(url: &str) -> bool {
    url.split_once(':').is_some_and(|(s, _)| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    })
}

/// `a/b/../c` without touching the file system; None when it climbs above the start.
fn normalize(p: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    Some(out)
}

/// Problems with one link from `file` (relative to the repo), or none.
fn check_link(
    file: &Path,
    dest: &str,
    anchor_cache: &mut BTreeMap<PathBuf, BTreeSet<String>>,
) -> Option<String> {
    if has_scheme(dest) {
        let scheme = dest.split(':').next().unwrap().to_ascii_lowercase();
        return (!["http", "https", "mailto"].contains(&scheme.as_str()))
            .then(|| format!("link `{dest}`: only http, https and mailto links leave the docs"));
    }
    if dest.is_empty() {
        return Some("a link with no destination".into());
    }
    let (path, fragment) = match dest.split_once('#') {
        Some((p, f)) => (p, Some(f)),
        None => (dest, None),
    };
    if path.starts_with('/') {
        return Some(format!("link `{dest}`: write links relative to the file"));
    }
    let target = if path.is_empty() {
        file.to_path_buf()
    } else {
        let joined = file.parent().unwrap().join(path);
        match normalize(&joined) {
            Some(t) => t,
            None => return Some(format!("link `{dest}` climbs out of the repository")),
        }
    };
    // The book is published on its own: a chapter may link only inside docs/src.
    if file.starts_with("docs/src") && !target.starts_with("docs/src") {
        return Some(format!(
            "link `{dest}` leaves the book (docs/src): name a repository file as `code`, not a link"
        ));
    }
    let on_disk = repo().join(&target);
    if !on_disk.exists() {
        return Some(format!(
            "link `{dest}`: {} does not exist",
            target.display()
        ));
    }
    if let Some(f) = fragment {
        if target.extension().is_none_or(|x| x != "md") {
            return Some(format!("link `{dest}`: a #fragment needs a Markdown file"));
        }
        let set = anchor_cache
            .entry(target.clone())
            .or_insert_with(|| anchors(&std::fs::read_to_string(&on_disk).unwrap_or_default()));
        if !set.contains(f) {
            return Some(format!(
                "link `{dest}`: {} has no heading with the anchor #{f}",
                target.display()
            ));
        }
    }
    None
}

/// Every link and image destination in a Markdown text, with its byte offset.
fn links(text: &str) -> Vec<(usize, String)> {
    Parser::new_ext(text, options())
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                Some((range.start, dest_url.to_string()))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn every_relative_link_and_fragment_resolves() {
    let mut cache = BTreeMap::new();
    let mut errors = Vec::new();
    let mut checked = 0;
    for (file, text) in doc_files() {
        for (offset, dest) in links(&text) {
            checked += 1;
            if let Some(e) = check_link(&file, &dest, &mut cache) {
                errors.push(format!(
                    "{}:{}: {e}",
                    file.display(),
                    line_of(&text, offset)
                ));
            }
        }
    }
    assert!(errors.is_empty(), "broken links:\n{}", errors.join("\n"));
    assert!(
        checked > 30,
        "only {checked} links found: is the parser reading the files?"
    );
}

#[test]
fn the_link_check_refuses_what_it_should() {
    let mut cache = BTreeMap::new();
    let readme = Path::new("README.md");
    let chapter = Path::new("docs/src/SUMMARY.md");
    assert!(check_link(readme, "docs/src/SUMMARY.md", &mut cache).is_none());
    assert!(check_link(readme, "docs/src/no-such-chapter.md", &mut cache).is_some());
    assert!(check_link(readme, "#set-up", &mut cache).is_none());
    assert!(check_link(readme, "#no-such-heading", &mut cache).is_some());
    assert!(check_link(chapter, "../../src/lib.rs", &mut cache).is_some());
    assert!(check_link(chapter, "javascript:alert(1)", &mut cache).is_some());
    assert!(check_link(chapter, "https://example.org/", &mut cache).is_none());
    assert_eq!(anchor("Set-up: two commands"), "set-up-two-commands");
}

/// mdBook builds a chapter only when SUMMARY.md lists it (and `create-missing = false`
/// makes a listed one that is missing an error); a chapter it does not list is lost.
#[test]
fn every_chapter_is_in_the_summary() {
    let summary = std::fs::read_to_string(repo().join("docs/src/SUMMARY.md")).unwrap();
    let listed: BTreeSet<String> = links(&summary).into_iter().map(|(_, d)| d).collect();
    for (file, _) in doc_files() {
        let Ok(rel) = file.strip_prefix("docs/src") else {
            continue;
        };
        let rel = rel.to_string_lossy().to_string();
        if rel != "SUMMARY.md" {
            assert!(
                listed.contains(&rel),
                "docs/src/{rel} is not listed in SUMMARY.md"
            );
        }
    }
    let book = std::fs::read_to_string(repo().join("docs/book.toml")).unwrap();
    assert!(book.contains("create-missing = false"), "docs/book.toml");
}

// ---------------------------------------------------------------------------------------
// Commands in code blocks
// ---------------------------------------------------------------------------------------

/// Languages whose fenced blocks are shell a reader types.
const SHELL: &[&str] = &["sh", "bash", "console", "shell"];

/// Shell code blocks of a Markdown text, as (line number of the block's first line, text).
fn shell_blocks(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (event, range) in Parser::new_ext(text, options()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang)))
                if SHELL.contains(&lang.split([' ', ',']).next().unwrap_or("")) =>
            {
                current = Some((line_of(text, range.start) + 1, String::new()));
            }
            Event::Text(t) => {
                if let Some((_, s)) = current.as_mut() {
                    s.push_str(&t);
                }
            }
            Event::End(TagEnd::CodeBlock) => out.extend(current.take()),
            _ => {}
        }
    }
    out
}

/// Separators between shell commands, as shlex leaves them.
fn is_separator(t: &str) -> bool {
    matches!(
        t,
        "&&" | "||" | ";" | "|" | "&" | "(" | ")" | "do" | "then" | "done"
    ) || t.starts_with('>')
        || t.starts_with('<')
        || t.starts_with("2>")
}

/// The `glossary` invocations in one logical shell line: the arguments after each
/// `glossary` word (and after `cargo run ... --`), up to the next separator.
fn invocations(line: &str) -> Result<Vec<Vec<String>>, String> {
    let line = line
        .trim_start()
        .strip_prefix("$ ")
        .unwrap_or(line.trim_start());
    let words = shlex::split(line).ok_or_else(|| format!("not shell words: {line}"))?;
    // `done;` and `5;` are a word and a separator.
    let mut tokens = Vec::new();
    for w in words {
        match w.strip_suffix(';') {
            Some(rest) if !rest.is_empty() => {
                tokens.push(rest.to_string());
                tokens.push(";".to_string());
            }
            _ => tokens.push(w),
        }
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        let prev_is_flag = i > 0 && tokens[i - 1].starts_with("--");
        let start = if (t == "glossary" || t.ends_with("/glossary")) && !prev_is_flag {
            Some(i + 1)
        } else if t == "cargo" && tokens.get(i + 1).is_some_and(|x| x == "run") {
            // `cargo run [cargo flags] -- ARGS` runs the glossary binary with ARGS.
            let rest = &tokens[i..];
            let end = rest
                .iter()
                .position(|x| is_separator(x))
                .unwrap_or(rest.len());
            let args = rest[..end].iter().position(|x| x == "--");
            // Another package's binary (`--manifest-path bench/highlighters/Cargo.toml`)
            // takes its own arguments.
            let cargo_flags = &rest[..args.unwrap_or(end)];
            let other_package = cargo_flags
                .iter()
                .position(|x| x == "--manifest-path")
                .and_then(|p| cargo_flags.get(p + 1))
                .is_some_and(|path| path != "Cargo.toml");
            args.filter(|_| !other_package).map(|p| i + p + 1)
        } else {
            None
        };
        if let Some(s) = start {
            let end = tokens[s..]
                .iter()
                .position(|x| is_separator(x))
                .map_or(tokens.len(), |p| s + p);
            out.push(tokens[s..end].to_vec());
            i = end;
        } else {
            i += 1;
        }
    }
    Ok(out)
}

/// Every glossary command shown in the README's and the book's shell blocks, with where.
fn shown_commands() -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for (file, text) in doc_files() {
        for (first_line, block) in shell_blocks(&text) {
            let mut logical = String::new();
            let mut logical_start = first_line;
            for (n, raw) in block.lines().enumerate() {
                if logical.is_empty() {
                    logical_start = first_line + n;
                }
                // A backslash at the end continues the command on the next line.
                if let Some(head) = raw.strip_suffix('\\') {
                    logical.push_str(head);
                    logical.push(' ');
                    continue;
                }
                logical.push_str(raw);
                let at = format!("{}:{logical_start}", file.display());
                match invocations(&logical) {
                    Ok(found) => out.extend(found.into_iter().map(|args| (at.clone(), args))),
                    Err(e) => out.push((at, vec![format!("<{e}>")])),
                }
                logical.clear();
            }
        }
    }
    out
}

/// Why the real CLI refuses `args`, or None when it parses them: clap checks the
/// subcommands, every flag, every value's type and the positionals before it answers
/// `--help`, and runs nothing.
fn parse_error(args: &[String]) -> Option<String> {
    let o = glossary()
        .args(args)
        .arg("--help")
        .output()
        .expect("running glossary");
    (!o.status.success()).then(|| {
        String::from_utf8_lossy(&o.stderr)
            .lines()
            .next()
            .unwrap_or("")
            .to_string()
    })
}

#[test]
fn every_command_shown_parses_against_the_cli() {
    let commands = shown_commands();
    let mut errors = Vec::new();
    for (at, args) in &commands {
        if args.is_empty() {
            errors.push(format!("{at}: `glossary` with no subcommand"));
        } else if let Some(e) = parse_error(args) {
            errors.push(format!("{at}: glossary {}: {e}", args.join(" ")));
        }
    }
    assert!(
        errors.is_empty(),
        "commands the CLI refuses:\n{}",
        errors.join("\n")
    );
    // Every subcommand is shown at least once somewhere, so a reader sees each in use.
    let tree = cli_tree();
    let shown: BTreeSet<String> = commands.iter().map(|(_, a)| path_of(&tree, a)).collect();
    let unshown: Vec<&String> = tree
        .iter()
        .filter(|(p, c)| c.runnable && !shown.contains(*p))
        .map(|(p, _)| p)
        .collect();
    assert!(
        unshown.is_empty(),
        "subcommands no example shows: {unshown:?}"
    );
}

#[test]
fn the_command_check_refuses_a_flag_that_does_not_exist() {
    let line = "glossary build --drafts && glossary serve --port 0 --bogus # a comment";
    let found = invocations(line).unwrap();
    assert_eq!(found.len(), 2);
    assert!(parse_error(&found[0]).is_none());
    let e = parse_error(&found[1]).expect("--bogus parses");
    assert!(e.contains("--bogus"), "{e}");
    assert!(parse_error(&[
        "review".into(),
        "sign".into(),
        "x".into(),
        "--as".into(),
        "nobody".into()
    ])
    .is_some());
    let cargo = invocations("cargo run --release -- build --out /tmp/x > log").unwrap();
    assert_eq!(cargo, [["build", "--out", "/tmp/x"]]);
    let bench = "cargo run --release --manifest-path bench/highlighters/Cargo.toml -- languages";
    assert!(invocations(bench).unwrap().is_empty());
    let own = invocations("cargo run --manifest-path Cargo.toml -- check").unwrap();
    assert_eq!(own, [["check"]]);
}

// ---------------------------------------------------------------------------------------
// The commands table
// ---------------------------------------------------------------------------------------

/// One (sub)command as its `--help` describes it.
#[derive(Debug, Default)]
struct CliCommand {
    /// It can run as it is (not only through a subcommand).
    runnable: bool,
    /// Its visible long flags, `--help` and `--version` aside.
    flags: BTreeSet<String>,
    /// Its arguments and flags whose help line says nothing but a default.
    undescribed: Vec<String>,
}

/// Every (sub)command path ("", "build", "verify plan", ...) read from the binary's help.
fn cli_tree() -> BTreeMap<String, CliCommand> {
    let mut tree = BTreeMap::new();
    let mut todo = vec![String::new()];
    while let Some(path) = todo.pop() {
        let mut cmd = glossary();
        cmd.args(path.split_whitespace()).arg("--help");
        let help = String::from_utf8(cmd.output().unwrap().stdout).unwrap();
        let mut section = "";
        let mut c = CliCommand::default();
        for line in help.lines() {
            if let Some(u) = line.strip_prefix("Usage: ").or_else(|| {
                line.trim_start()
                    .starts_with("glossary ")
                    .then_some(line.trim_start())
            }) {
                c.runnable |= !u.trim_end().ends_with("<COMMAND>");
            }
            if !line.starts_with(' ') && line.ends_with(':') {
                section = line;
                continue;
            }
            let word = line.split_whitespace().next().unwrap_or("");
            if matches!(section, "Options:" | "Arguments:") && line.starts_with("  ") {
                // `  SPEC  Description [default: x]`: the description follows the first
                // gap of two spaces after the spec.
                let spec = line.trim_start();
                let described = spec
                    .split_once("  ")
                    .map(|(_, d)| d.trim())
                    .is_some_and(|d| !d.is_empty() && !d.starts_with("[default"));
                if !described && !spec.starts_with("-h, --help") && !spec.starts_with("-V,") {
                    c.undescribed
                        .push(spec.split("  ").next().unwrap_or(spec).to_string());
                }
            }
            match section {
                "Commands:" if !word.is_empty() && word != "help" => {
                    todo.push(format!("{path} {word}").trim().to_string())
                }
                "Options:" => {
                    // `  -s, --long <VALUE>  Description`: the flags end at the gap
                    // before the description.
                    let spec = line.trim_start().split("  ").next().unwrap_or("");
                    for w in spec.split([' ', ',']) {
                        if w.starts_with("--") && w != "--help" && w != "--version" {
                            c.flags.insert(w.to_string());
                        }
                    }
                }
                _ => {}
            }
        }
        tree.insert(path, c);
    }
    tree
}

/// Every argument and flag of every subcommand says what it is in `--help`: a reader who
/// runs `glossary new term --help` learns what SLUG is.
#[test]
fn every_argument_and_flag_has_help() {
    let missing: Vec<String> = cli_tree()
        .iter()
        .flat_map(|(path, c)| {
            c.undescribed
                .iter()
                .map(move |a| format!("glossary {path}: {a}"))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "arguments and flags with no help text (a `///` comment on the field):\n{}",
        missing.join("\n")
    );
}

/// The longest (sub)command path that `words` start with.
fn path_of(tree: &BTreeMap<String, CliCommand>, words: &[String]) -> String {
    let mut path = String::new();
    for w in words {
        let next = format!("{path} {w}").trim().to_string();
        if tree.contains_key(&next) {
            path = next;
        } else {
            break;
        }
    }
    path
}

/// The README's commands table: for each row, the command path its first cell names and
/// every `--flag` the row mentions.
fn readme_table(tree: &BTreeMap<String, CliCommand>) -> Vec<(usize, String, BTreeSet<String>)> {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let start = readme
        .find("\n## Commands")
        .expect("README: no `## Commands` section");
    let section_end = readme[start + 1..]
        .find("\n## ")
        .map_or(readme.len(), |p| start + 1 + p);
    let section = &readme[start..section_end];
    let first_line = line_of(&readme, start) + 1;
    let mut rows = Vec::new();
    for (n, line) in section.lines().enumerate() {
        let Some(cells) = line.strip_prefix("| `glossary") else {
            continue;
        };
        let first = cells.split(" | ").next().unwrap_or("");
        let words: Vec<String> = first
            .split(|c: char| c.is_whitespace() || c == '`')
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect();
        let path = path_of(tree, &words);
        // Flags of the command cell only: a description may mention another
        // command's flags (`verify --dry-run`).
        let flags = first
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .filter(|w| w.starts_with("--") && w.len() > 2)
            .map(str::to_string)
            .collect();
        rows.push((first_line + n - 1, path, flags));
    }
    rows
}

#[test]
fn the_commands_table_lists_every_subcommand_and_flag() {
    let tree = cli_tree();
    assert!(tree.contains_key("verify plan"), "help not read: {tree:?}");
    let rows = readme_table(&tree);
    let mut errors = Vec::new();
    let mut covered: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (line, path, flags) in &rows {
        let c = &tree[path];
        if path.is_empty() || !c.runnable {
            errors.push(format!(
                "README.md:{line}: the row names no runnable subcommand"
            ));
        }
        for f in flags {
            if !c.flags.contains(f) {
                errors.push(format!(
                    "README.md:{line}: `glossary {path}` has no flag {f}"
                ));
            }
        }
        covered
            .entry(path)
            .or_default()
            .extend(flags.iter().map(String::as_str));
    }
    for (path, c) in &tree {
        if !c.runnable || path.is_empty() {
            continue;
        }
        match covered.get(path.as_str()) {
            None => errors.push(format!("README.md: no row for `glossary {path}`")),
            Some(shown) => {
                for f in &c.flags {
                    if !shown.contains(f.as_str()) {
                        errors.push(format!("README.md: `glossary {path}`'s row omits {f}"));
                    }
                }
            }
        }
    }
    assert!(
        errors.is_empty(),
        "the commands table drifted from the CLI:\n{}",
        errors.join("\n")
    );
}

// ---------------------------------------------------------------------------------------
// Layout and set-up
// ---------------------------------------------------------------------------------------

/// The README's first ```-block under `## Layout`.
fn readme_layout() -> String {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let section = &readme[readme.find("\n## Layout").expect("README: no `## Layout`")..];
    let start = section.find("```").unwrap();
    let body = &section[start + 3..];
    let body = &body[body.find('\n').unwrap() + 1..];
    body[..body.find("```").unwrap()].to_string()
}

#[test]
fn the_layout_names_every_top_level_module() {
    let layout = readme_layout();
    let mut missing = Vec::new();
    for e in std::fs::read_dir(repo().join("src")).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().to_string();
        let shown = if e.file_type().unwrap().is_dir() {
            format!("{name}/")
        } else {
            name.clone()
        };
        if !layout.contains(&shown) {
            missing.push(format!("src/{shown}"));
        }
    }
    assert!(
        missing.is_empty(),
        "README.md's layout does not name: {missing:?}"
    );
}

/// The README's set-up commands, as the lines of the first shell block under `## Set-up`.
fn setup_lines() -> Vec<String> {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let at = readme.find("\n## Set-up").expect("README: no `## Set-up`");
    let (_, block) = shell_blocks(&readme[at..])
        .into_iter()
        .next()
        .expect("no set-up block");
    block.lines().map(str::to_string).collect()
}

/// The first set-up command runs the main job on the repository's own content: its
/// `glossary` invocation, pointed at a temporary output folder, builds it.
#[test]
fn the_first_setup_command_builds_the_repository() {
    let lines = setup_lines();
    assert_eq!(lines.len(), 2, "two set-up commands: {lines:?}");
    let found = invocations(&lines[0]).unwrap();
    assert_eq!(found.len(), 1, "{}", lines[0]);
    // The second is the test script CI runs, and that script runs the tests and ends by
    // naming the ones that skipped themselves (cargo counts them passed).
    let command = lines[1].split('#').next().unwrap().trim();
    assert_eq!(command, "tests/run.sh", "the second runs the tests");
    let script = std::fs::read_to_string(repo().join(command)).unwrap();
    assert!(script.contains("cargo test --locked"), "{script}");
    assert!(
        script.trim_end().lines().rev().nth(1) == Some("tests/skipped.sh"),
        "{command} must end by listing the skipped tests:\n{script}"
    );
    assert!(
        std::fs::read_to_string(repo().join(".ci/run"))
            .unwrap()
            .lines()
            .any(|l| l.trim() == command),
        ".ci/run must run the README's test command: {command}"
    );
    let out = tempfile::tempdir().unwrap();
    let site = out.path().join("site");
    let o = glossary()
        .current_dir(repo())
        .args(&found[0])
        .arg("--out")
        .arg(&site)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "glossary {}: {}",
        found[0].join(" "),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(site.join("index.html").is_file());
}
