//! Every language but CUDA, PTX and SASS (issue #41): the repository's other fences, as the
//! build highlighted them before issue 41 (syntect's bundled Sublime grammars, `syntax_for`'s name
//! mapping) and as syntaxmate 0.2.1 would (its bundled VS Code/Shiki grammars), both
//! through the same scope → class table (`classes::CLASSES`), and both again through
//! `classes::CLASSES_NOW`, the table with the rows VS Code's scope names need.
//!
//! The fences are those of content/, docs/src/, README.md and the realistic test corpus
//! (tests/fixtures/sites/corpus/content), found with pulldown-cmark under the build's
//! options, their language the info string's first word, lower case (`text` or none:
//! plain). Printed: per language, blocks, lines, blocks identical, each side's coverage
//! (the share of non-whitespace characters with a class) and characters per class; the
//! time a block takes, on a fresh highlighter (grammars loaded on first use, as a build
//! pays once) and warm; and `side-by-side-languages.html`, per language its most
//! different block(s) in columns.
//!
//!   cargo run --release --manifest-path bench/highlighters/Cargo.toml -- languages
//!   ... -- languages scopes  (also: every distinct scope stack each side gives, an example)
//!   ... -- languages diffs   (also: every line on which the outputs differ)

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use syntaxmate::{Catalog, TokenizerOptions};

use crate::classes::{self, Builder, Runs, ALL, CLASSES, CLASSES_NOW};
use crate::{syntaxmate_run, syntect_run};

/// A fenced block: where it is (file:line), its language as the build sees it, its code.
pub struct Fence {
    pub origin: String,
    pub lang: String,
    pub code: String,
}

/// Languages glossary highlights with its own grammars (compared in `main`).
const OWN: &[&str] = &["cuda", "cu", "cuh", "ptx", "sass"];

pub fn fences() -> Vec<Fence> {
    let root = crate::repo_root();
    let mut files = Vec::new();
    for dir in ["content", "docs/src", "tests/fixtures/sites/corpus/content"] {
        markdown_files(&root.join(dir), &mut files);
    }
    files.sort();
    files.push(root.join("README.md"));
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_STRIKETHROUGH;
    let mut out = Vec::new();
    for f in files {
        let rel = f.strip_prefix(&root).unwrap_or(&f).display().to_string();
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        // Front matter (`---` … `---`) is not markdown to the build.
        let body_at = text
            .strip_prefix("---\n")
            .and_then(|rest| rest.find("\n---\n").map(|end| 4 + end + 5))
            .unwrap_or(0);
        let body = &text[body_at..];
        let mut open: Option<(usize, String, String)> = None;
        for (event, range) in Parser::new_ext(body, options).into_offset_iter() {
            match event {
                Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                    let line = text[..body_at + range.start].lines().count() + 1;
                    let lang = info
                        .split_whitespace()
                        .next()
                        .unwrap_or("")
                        .to_ascii_lowercase();
                    open = Some((line, lang, String::new()));
                }
                Event::Text(t) => {
                    if let Some((_, _, code)) = &mut open {
                        code.push_str(&t);
                    }
                }
                Event::End(TagEnd::CodeBlock) => {
                    if let Some((line, lang, code)) = open.take() {
                        if !OWN.contains(&lang.as_str()) {
                            out.push(Fence {
                                origin: format!("{rel}:{line}"),
                                lang,
                                code,
                            });
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// A highlighter timed: its name and how to make a fresh one.
type Timed = (&'static str, fn() -> Highlight);

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            markdown_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "md") {
            out.push(p);
        }
    }
}

type Highlight = Box<dyn FnMut(&str, &str) -> Option<Runs>>;

struct Side {
    name: &'static str,
    fresh: fn() -> Highlight,
}

/// The four outputs compared: each engine under the build's table before the switch (syntect's) and now.
const SIDES: [Side; 4] = [
    Side {
        name: "syntect 5, Sublime default grammars (the build before the switch), CLASSES",
        fresh: || Box::new(syntect_run::bundled(true, CLASSES)),
    },
    Side {
        name: "syntaxmate 0.2.1, bundled VS Code/Shiki grammars, CLASSES",
        fresh: || {
            Box::new(syntaxmate_run::bundled(
                TokenizerOptions::default(),
                CLASSES,
            ))
        },
    },
    Side {
        name: "syntect 5, Sublime default grammars, CLASSES_NOW",
        fresh: || Box::new(syntect_run::bundled(true, CLASSES_NOW)),
    },
    Side {
        name: "syntaxmate 0.2.1, bundled grammars, CLASSES_NOW",
        fresh: || {
            Box::new(syntaxmate_run::bundled(
                TokenizerOptions::default(),
                CLASSES_NOW,
            ))
        },
    },
];

/// What the build shows when there is no grammar (or it fails): the code, plain.
fn plain(code: &str) -> Runs {
    let mut b = Builder::default();
    b.push("", code);
    b.finish()
}

/// Non-whitespace characters per class ("" for none).
fn chars_per_class(runs: &Runs, into: &mut BTreeMap<&'static str, usize>) {
    for line in runs {
        for (class, text) in line {
            *into.entry(class).or_default() += text.chars().filter(|c| !c.is_whitespace()).count();
        }
    }
}

fn coverage(counts: &BTreeMap<&'static str, usize>) -> f64 {
    let all: usize = counts.values().sum();
    let coloured: usize = counts
        .iter()
        .filter(|(c, _)| !c.is_empty())
        .map(|(_, n)| n)
        .sum();
    if all == 0 {
        0.0
    } else {
        100.0 * coloured as f64 / all as f64
    }
}

/// Whether two outputs look the same: every non-whitespace character with the same class
/// (a class on whitespace alone, as VS Code's C++ comments take the spaces before `//`,
/// shows nothing).
fn looks_same(a: &Runs, b: &Runs) -> bool {
    let visible = |r: &Runs| -> Vec<Vec<(&'static str, char)>> {
        r.iter()
            .map(|line| {
                line.iter()
                    .flat_map(|(c, t)| {
                        t.chars()
                            .filter(|ch| !ch.is_whitespace())
                            .map(move |ch| (*c, ch))
                    })
                    .collect()
            })
            .collect()
    };
    visible(a) == visible(b)
}

/// Non-whitespace characters per (class in `a`, class in `b`) where the two differ.
fn moves(a: &Runs, b: &Runs, into: &mut BTreeMap<(&'static str, &'static str), usize>) {
    let chars = |line: Option<&Vec<(&'static str, String)>>| -> Vec<&'static str> {
        line.map_or(Vec::new(), |l| {
            l.iter()
                .flat_map(|(c, t)| t.chars().filter(|ch| !ch.is_whitespace()).map(move |_| *c))
                .collect()
        })
    };
    for n in 0..a.len().max(b.len()) {
        for (x, y) in chars(a.get(n)).into_iter().zip(chars(b.get(n))) {
            if x != y {
                *into.entry((x, y)).or_default() += 1;
            }
        }
    }
}

fn differing_lines(a: &Runs, b: &Runs) -> usize {
    (0..a.len().max(b.len()))
        .filter(|&n| a.get(n) != b.get(n))
        .count()
}

/// What `time` measures, in microseconds, each the median of 3 rounds.
struct Timing {
    /// A fence, over a first pass of all fences on a fresh highlighter: grammars loaded
    /// and prepared as they are first needed, as a build pays them once.
    cold: f64,
    /// Per language, its first fence in that pass (its grammar's loading included).
    first: BTreeMap<String, f64>,
    /// A fence, over a second pass of the same fences (everything loaded; a line memo or
    /// line cache serves the lines it kept from the first pass).
    warm: f64,
    /// Per language, a fence in the second pass.
    per_lang: BTreeMap<String, f64>,
}

/// Three rounds, each on a fresh highlighter: a first and a second pass over `fences`.
fn time(fresh: fn() -> Highlight, fences: &[Fence]) -> Timing {
    let mut cold = Vec::new();
    let mut warm = Vec::new();
    let mut first: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut per_lang: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for round in 0..3 {
        let started = Instant::now();
        let mut run = fresh();
        for f in fences {
            let t = Instant::now();
            std::hint::black_box(run(&f.lang, &f.code));
            let v = first.entry(f.lang.clone()).or_default();
            if v.len() == round {
                v.push(t.elapsed().as_secs_f64() * 1e6);
            }
        }
        cold.push(started.elapsed().as_secs_f64() * 1e6 / fences.len() as f64);
        let mut sums: BTreeMap<String, (f64, usize)> = BTreeMap::new();
        let started = Instant::now();
        for f in fences {
            let t = Instant::now();
            std::hint::black_box(run(&f.lang, &f.code));
            let e = sums.entry(f.lang.clone()).or_default();
            e.0 += t.elapsed().as_secs_f64() * 1e6;
            e.1 += 1;
        }
        warm.push(started.elapsed().as_secs_f64() * 1e6 / fences.len() as f64);
        for (l, (s, n)) in sums {
            per_lang.entry(l).or_default().push(s / n as f64);
        }
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let medians =
        |m: BTreeMap<String, Vec<f64>>| m.into_iter().map(|(l, v)| (l, median(v))).collect();
    Timing {
        cold: median(cold),
        first: medians(first),
        warm: median(warm),
        per_lang: medians(per_lang),
    }
}

fn short(class: &str) -> &str {
    if class.is_empty() {
        "none"
    } else {
        class.trim_start_matches("hl-")
    }
}

/// One line's runs, compactly: `class«text»`, plain text bare.
fn compact(line: Option<&Vec<(&'static str, String)>>) -> String {
    match line {
        None => "(no line)".into(),
        Some(runs) => runs
            .iter()
            .map(|(c, t)| {
                if c.is_empty() {
                    t.clone()
                } else {
                    format!("{}«{t}»", short(c))
                }
            })
            .collect(),
    }
}

pub fn run(show_scopes: bool, show_diffs: bool) {
    let fences = fences();
    let catalog = Catalog::bundled();
    let set = syntect::parsing::SyntaxSet::load_defaults_newlines();
    let langs: BTreeSet<&str> = fences.iter().map(|f| f.lang.as_str()).collect();
    let lines: usize = fences.iter().map(|f| f.code.lines().count()).sum();
    println!(
        "## Other languages: {} fences, {} lines, in {} languages\n",
        fences.len(),
        lines,
        langs.len()
    );
    println!("| fence language | syntect grammar (the build) | syntaxmate catalog language |");
    println!("|---|---|---|");
    for l in &langs {
        println!(
            "| {} | {} | {} |",
            if l.is_empty() { "(none)" } else { l },
            syntect_run::bundled_name(&set, l).unwrap_or_else(|| "plain".into()),
            syntaxmate_run::bundled_language(&catalog, l).unwrap_or_else(|| "plain".into())
        );
    }

    // Every fence through each side; no grammar (or a failing one) is shown plain.
    let mut failed = vec![0; SIDES.len()];
    let outputs: Vec<Vec<Runs>> = SIDES
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let mut run = (s.fresh)();
            fences
                .iter()
                .map(|f| {
                    let has_grammar = if k % 2 == 0 {
                        syntect_run::bundled_name(&set, &f.lang).is_some()
                    } else {
                        syntaxmate_run::bundled_language(&catalog, &f.lang).is_some()
                    };
                    run(&f.lang, &f.code).unwrap_or_else(|| {
                        if has_grammar {
                            failed[k] += 1;
                        }
                        plain(&f.code)
                    })
                })
                .collect()
        })
        .collect();
    for (k, n) in failed.iter().enumerate() {
        if *n > 0 {
            println!("\n{}: {n} fences failed and are shown plain", SIDES[k].name);
        }
    }

    println!(
        "\nIdentical: syntaxmate's fences whose (class, text) runs equal syntect's, line by line \
         (CLASSES both sides; then CLASSES_NOW both sides). Look the same: equal but for \
         classes on whitespace alone. Coverage (last four): the share of non-whitespace \
         characters that get a class.\n"
    );
    println!("| language | blocks | lines | identical | look the same | identical, NOW | look the same, NOW | syntect | syntaxmate | syntect, NOW | syntaxmate, NOW |");
    println!("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
    let mut per_class: BTreeMap<&str, Vec<BTreeMap<&'static str, usize>>> = BTreeMap::new();
    let mut totals = vec![BTreeMap::new(); SIDES.len()];
    let mut ident = [0usize; 4];
    for l in &langs {
        let idx: Vec<usize> = (0..fences.len())
            .filter(|&i| fences[i].lang == *l)
            .collect();
        let mut counts = vec![BTreeMap::new(); SIDES.len()];
        for &i in &idx {
            for k in 0..SIDES.len() {
                chars_per_class(&outputs[k][i], &mut counts[k]);
                chars_per_class(&outputs[k][i], &mut totals[k]);
            }
        }
        let same = |a: usize, b: usize| {
            idx.iter()
                .filter(|&&i| outputs[a][i] == outputs[b][i])
                .count()
        };
        let looks = |a: usize, b: usize| {
            idx.iter()
                .filter(|&&i| looks_same(&outputs[a][i], &outputs[b][i]))
                .count()
        };
        ident[0] += same(0, 1);
        ident[1] += looks(0, 1);
        ident[2] += same(2, 3);
        ident[3] += looks(2, 3);
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {:.1}% | {:.1}% | {:.1}% | {:.1}% |",
            if l.is_empty() { "(none)" } else { l },
            idx.len(),
            idx.iter()
                .map(|&i| fences[i].code.lines().count())
                .sum::<usize>(),
            same(0, 1),
            looks(0, 1),
            same(2, 3),
            looks(2, 3),
            coverage(&counts[0]),
            coverage(&counts[1]),
            coverage(&counts[2]),
            coverage(&counts[3]),
        );
        per_class.insert(l, counts);
    }
    println!(
        "| all | {} | {} | {} | {} | {} | {} | {:.1}% | {:.1}% | {:.1}% | {:.1}% |",
        fences.len(),
        lines,
        ident[0],
        ident[1],
        ident[2],
        ident[3],
        coverage(&totals[0]),
        coverage(&totals[1]),
        coverage(&totals[2]),
        coverage(&totals[3]),
    );

    println!("\nNon-whitespace characters per class (none = no class):\n");
    print!("| language | side |");
    for c in std::iter::once("").chain(ALL.iter().copied()) {
        print!(" {} |", short(c));
    }
    println!();
    println!("|---|---|{}", "--:|".repeat(ALL.len() + 1));
    for (l, counts) in &per_class {
        for (k, side) in ["syntect", "syntaxmate", "syntect, NOW", "syntaxmate, NOW"]
            .iter()
            .enumerate()
        {
            // The build's table now's syntect row only where it changes syntect's output.
            if k == 2 && counts[2] == counts[0] {
                continue;
            }
            print!("| {} | {side} |", if l.is_empty() { "(none)" } else { l });
            for c in std::iter::once("").chain(ALL.iter().copied()) {
                print!(" {} |", counts[k].get(c).copied().unwrap_or(0));
            }
            println!();
        }
    }

    // Where the classes move: characters syntect gives one class and syntaxmate another.
    println!("\nWhere they differ, non-whitespace characters by (syntect's class → syntaxmate's), CLASSES_NOW both sides:\n");
    for l in &langs {
        let mut m = BTreeMap::new();
        for i in (0..fences.len()).filter(|&i| fences[i].lang == *l) {
            moves(&outputs[2][i], &outputs[3][i], &mut m);
        }
        if m.is_empty() {
            continue;
        }
        let mut m: Vec<_> = m.into_iter().collect();
        m.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
        println!(
            "- {}: {}",
            l,
            m.iter()
                .map(|((x, y), n)| format!("{} → {} {n}", short(x), short(y)))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }

    // Where the build's table now changes what the build showed before (syntect's output).
    let changed: Vec<usize> = (0..fences.len())
        .filter(|&i| outputs[0][i] != outputs[2][i])
        .collect();
    println!(
        "\nCLASSES_NOW changes syntect's output (the build before the switch) in {} of {} fences{}",
        changed.len(),
        fences.len(),
        if changed.is_empty() { "." } else { ":" }
    );
    for &i in changed.iter().take(8) {
        println!(
            "  {} ({}): {}",
            fences[i].origin,
            fences[i].lang,
            classes::first_difference(Some(&outputs[0][i]), Some(&outputs[2][i]))
                .replace("syntect", "CLASSES")
                .replace("this", "NOW")
        );
    }

    // Timing.
    let started = Instant::now();
    let set2 = std::hint::black_box(syntect::parsing::SyntaxSet::load_defaults_newlines());
    let t_set = started.elapsed().as_secs_f64() * 1e3;
    drop(set2);
    let started = Instant::now();
    let cat2 = std::hint::black_box(Catalog::bundled());
    let t_cat = started.elapsed().as_secs_f64() * 1e3;
    drop(cat2);
    println!(
        "\nTiming, µs a fence over all {} fences, median of 3 rounds, each on a fresh highlighter: \
         a first pass (grammars loaded and prepared on first use, what a build pays once) and a \
         second pass over the same fences (the engine warm; where a memo or line cache is on it \
         serves the lines it kept, so only the rows without one measure highlighting). Loading \
         alone: SyntaxSet::load_defaults_newlines {t_set:.1} ms, Catalog::bundled {t_cat:.1} ms.\n",
        fences.len()
    );
    let timed: [Timed; 4] = [
        ("syntect, the build's line memo (as the build)", || {
            Box::new(syntect_run::bundled(true, CLASSES))
        }),
        ("syntect, no memo", || {
            Box::new(syntect_run::bundled(false, CLASSES))
        }),
        ("syntaxmate, its line cache (default)", || {
            Box::new(syntaxmate_run::bundled(
                TokenizerOptions::default(),
                CLASSES,
            ))
        }),
        ("syntaxmate, line cache off", || {
            Box::new(syntaxmate_run::bundled(
                TokenizerOptions {
                    line_cache_entries: 0,
                    ..TokenizerOptions::default()
                },
                CLASSES,
            ))
        }),
    ];
    let mut results = Vec::new();
    for (name, fresh) in timed {
        results.push((name, time(fresh, &fences)));
    }
    let label = |l: &str| {
        if l.is_empty() {
            "(none)".to_string()
        } else {
            l.to_string()
        }
    };
    print!("| highlighter | first pass | second pass |");
    for l in &langs {
        print!(" 2nd, {} |", label(l));
    }
    println!();
    println!("|---|--:|--:|{}", "--:|".repeat(langs.len()));
    for (name, t) in &results {
        print!("| {name} | {:.1} | {:.1} |", t.cold, t.warm);
        for l in &langs {
            print!(" {:.1} |", t.per_lang.get(*l).copied().unwrap_or(0.0));
        }
        println!();
    }
    println!("\nThe first fence of each language in the first pass (µs; its grammar loaded, prepared, first used):\n");
    print!("| highlighter |");
    for l in &langs {
        print!(" {} |", label(l));
    }
    println!();
    println!("|---|{}", "--:|".repeat(langs.len()));
    for (name, t) in &results {
        print!("| {name} |");
        for l in &langs {
            print!(" {:.0} |", t.first.get(*l).copied().unwrap_or(0.0));
        }
        println!();
    }

    // Side by side: per language, its most different fences (up to two), else its longest.
    let mut picks: Vec<usize> = Vec::new();
    for l in &langs {
        let mut idx: Vec<usize> = (0..fences.len())
            .filter(|&i| fences[i].lang == *l)
            .collect();
        let diff = |i: usize| {
            differing_lines(&outputs[0][i], &outputs[1][i])
                + differing_lines(&outputs[0][i], &outputs[3][i])
        };
        idx.sort_by_key(|&i| {
            (
                std::cmp::Reverse(diff(i)),
                std::cmp::Reverse(fences[i].code.len()),
            )
        });
        let differing = idx.iter().filter(|&&i| diff(i) > 0).count();
        picks.extend(idx.iter().take(differing.clamp(1, 2)));
    }
    let headings: Vec<String> = picks
        .iter()
        .map(|&i| {
            let f: &Fence = &fences[i];
            let n = fences.iter().filter(|g| g.lang == f.lang).count();
            format!(
                "{} — {} ({} fences of it; this one: {} of {} lines differ between syntect and syntaxmate, {} with the build's table now)",
                if f.lang.is_empty() { "(none)" } else { &f.lang },
                f.origin,
                n,
                differing_lines(&outputs[0][i], &outputs[1][i]),
                outputs[0][i].len(),
                differing_lines(&outputs[0][i], &outputs[3][i]),
            )
        })
        .collect();
    let opt: Vec<Vec<Option<Runs>>> = [0, 1, 3]
        .iter()
        .map(|&k| outputs[k].iter().cloned().map(Some).collect())
        .collect();
    let names = [SIDES[0].name, SIDES[1].name, SIDES[3].name];
    let html = classes::side_by_side(
        "other languages side by side",
        "The repository's other languages as syntect and syntaxmate colour them",
        "Made by <code>cargo run --release --manifest-path bench/highlighters/Cargo.toml</code> \
         (or <code>-- languages</code>): every fence of content/, docs/src/, README.md and \
         tests/fixtures/sites/corpus/content in a language other than CUDA, PTX and SASS; per \
         language, its most different fences (or its longest, where all agree). Columns: syntect \
         with Sublime Text's default grammars, as the build highlighted these before the switch; syntaxmate \
         0.2.1 with its bundled VS Code/Shiki grammars, through the same scope → <code>hl-*</code> \
         table (<code>CLASSES</code>, src/render/highlight/library.rs); and syntaxmate through \
         <code>CLASSES_NOW</code>, that table with the rows VS Code's scope names need \
         (bench/highlighters/src/classes.rs). Lines that differ from the first column are marked.",
        &names,
        &picks,
        &headings,
        &opt,
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("side-by-side-languages.html");
    std::fs::write(&path, html).expect("writes side-by-side-languages.html");
    println!("\nother languages side by side: {}", path.display());

    if show_scopes {
        scopes(&fences, &catalog, &set);
    }
    if show_diffs {
        // Every line where syntaxmate (either table) differs from syntect (the build).
        for (i, f) in fences.iter().enumerate() {
            let (a, b, d) = (&outputs[0][i], &outputs[1][i], &outputs[3][i]);
            for n in 0..a.len().max(b.len()).max(d.len()) {
                if a.get(n) != b.get(n) || a.get(n) != d.get(n) {
                    println!("\n{} line {} ({})", f.origin, n + 1, f.lang);
                    println!("  syntect    {}", compact(a.get(n)));
                    println!("  syntaxmate {}", compact(b.get(n)));
                    if d.get(n) != b.get(n) {
                        println!("  now        {}", compact(d.get(n)));
                    }
                }
            }
        }
    }
}

/// Per language, every distinct scope stack (syntect: its stack as a string; syntaxmate:
/// its scope names) with the class each table gives it and one example of its text.
fn scopes(fences: &[Fence], catalog: &Catalog, set: &syntect::parsing::SyntaxSet) {
    let langs: BTreeSet<&str> = fences.iter().map(|f| f.lang.as_str()).collect();
    for l in langs {
        let mut mate = Vec::new();
        let mut sub = Vec::new();
        for f in fences.iter().filter(|f| f.lang == l) {
            syntaxmate_run::scopes_of(catalog, l, &f.code, &mut mate);
            syntect_run::scopes_of(set, l, &f.code, &mut sub);
        }
        for (side, list) in [("syntect", sub), ("syntaxmate", mate)] {
            let mut seen: BTreeMap<String, (String, usize)> = BTreeMap::new();
            for (stack, text) in list {
                let e = seen.entry(stack).or_insert((text, 0));
                e.1 += 1;
            }
            println!("\n### scopes: {l} / {side}");
            for (stack, (text, n)) in seen {
                let scopes: Vec<&str> = stack.split(' ').collect();
                println!(
                    "{:>8} {:>8} {n:>4}  {stack}  «{}»",
                    short(classes::class_in(CLASSES, scopes.iter().copied())),
                    short(classes::class_in(CLASSES_NOW, scopes.iter().copied())),
                    text.chars().take(30).collect::<String>()
                );
            }
        }
    }
}
