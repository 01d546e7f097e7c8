//! User input never panics the tool: bad input is an error naming the file, and a reader
//! closing the pipe early is not an error at all.

mod support;

use std::io::Read;
use std::path::Path;
use std::process::Stdio;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use support::*;

/// A panic prints "panicked" and exits with 101; an error exits with 1.
fn assert_no_panic(out: &std::process::Output) {
    let err = stderr(out);
    assert!(!err.contains("panicked"), "{err}");
    assert_ne!(out.status.code(), Some(101), "{err}");
}

#[test]
fn ratio_with_huge_decimals_is_an_error_naming_the_file() {
    let site = valid_site();
    let root = site.path();
    let alpha = read(root, "content/terms/alpha.md")
        .replace("to=\"full\") }}", "to=\"full\", decimals=70000) }}");
    assert!(alpha.contains("decimals=70000"));
    write(root, "content/terms/alpha.md", &alpha);
    for command in [&["check"][..], &["build", "--drafts"]] {
        let out = run(root, command);
        assert_no_panic(&out);
        assert_eq!(out.status.code(), Some(1), "{command:?}");
        let err = stderr(&out);
        assert!(err.contains("content/terms/alpha.md"), "{err}");
        assert!(
            err.contains("ratio(): `decimals` must be a whole number from 0 to 12, not 70000"),
            "{err}"
        );
    }
    // Twelve is allowed and prints twelve decimals (1.5 ms / 1.0 ms at 800 / 1200 GB/s).
    write(
        root,
        "content/terms/alpha.md",
        &alpha.replace("decimals=70000", "decimals=12"),
    );
    let out = run(root, &["build", "--drafts"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let page = read(root, "site-drafts/terms/alpha/index.html");
    assert!(page.contains("0.666666666667"), "twelve decimals expected");
}

/// A record's `spec_digest` is text anyone may edit; a multi-byte character where the
/// short form is cut must not panic the build.
#[test]
fn a_hand_edited_spec_digest_refuses_the_entry_without_panicking() {
    let site = valid_site();
    let root = site.path();
    write_record(root, |r| r.spec_digest = "sha256:aaaaaaaaaaaéé".into());
    let out = run(root, &["build", "--drafts"]);
    assert_no_panic(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = stdout(&out);
    assert!(
        report.contains("refused terms/alpha") && report.contains("aaaaaaaaaaaé"),
        "{report}"
    );
}

/// `glossary review status | head -1`: the reader leaves after one line. More output than
/// a pipe buffers (64 KiB) makes sure the tool is still writing when it does.
#[test]
fn review_status_into_a_closed_pipe_exits_quietly() {
    let site = empty_site();
    let root = site.path();
    for i in 0..900 {
        write(
            root,
            &format!("content/terms/entry-{i:04}.md"),
            &term(&format!("What is entry {i}?"), "A test entry.", "", "Body."),
        );
    }
    let mut child = bin()
        .args(["review", "status", "--root"])
        .arg(root)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    let mut stdout = child.stdout.take().unwrap();
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    assert_no_panic(&out);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
}

// Property: whatever the front matter, body or experiment file holds, `check` returns
// (errors or a report); it never panics. Each case mutates the valid test site.

/// Text pieces that stress parsers: YAML syntax, Tera/call syntax, numbers at limits,
/// multi-byte characters, control characters.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(": ".to_string()),
        Just("\n".to_string()),
        Just("  - ".to_string()),
        Just("{".to_string()),
        Just("}}".to_string()),
        Just("{{".to_string()),
        Just("[".to_string()),
        Just("\"".to_string()),
        Just("'".to_string()),
        Just("&a ".to_string()),
        Just("*a".to_string()),
        Just("!!binary ".to_string()),
        Just("---\n".to_string()),
        Just("é".to_string()),
        Just("\u{202e}".to_string()),
        Just("\0".to_string()),
        Just("\r\n".to_string()),
        Just("18446744073709551616".to_string()),
        Just("-1".to_string()),
        Just("1e309".to_string()),
        Just("NaN".to_string()),
        Just("65536".to_string()),
        prop::collection::vec(prop::char::range('a', 'z'), 1..8)
            .prop_map(|v| v.into_iter().collect::<String>()),
        any::<u32>().prop_map(|n| n.to_string()),
    ]
}

fn noise() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..12).prop_map(|v| v.concat())
}

/// A `value()`/`ratio()` call with arguments that may be missing, repeated, of the wrong
/// type, or out of range.
fn call() -> impl Strategy<Value = String> {
    let arg = prop_oneof![
        Just("row=\"full\"".to_string()),
        Just("row=\"half\"".to_string()),
        Just("row=\"nope\"".to_string()),
        Just("column=\"gbps\"".to_string()),
        Just("column=\"median_ms\"".to_string()),
        Just("column=\"é\"".to_string()),
        Just("of=\"half\"".to_string()),
        Just("to=\"full\"".to_string()),
        Just("experiment=\"axpy-test\"".to_string()),
        Just("node=\"testnode\"".to_string()),
        Just("node=\"other\"".to_string()),
        any::<u64>().prop_map(|n| format!("decimals={n}")),
        (0u64..20).prop_map(|n| format!("decimals={n}")),
        Just("decimals=\"two\"".to_string()),
        Just("decimals=-3".to_string()),
        piece().prop_map(|p| format!("x={p}")),
    ];
    let any_call = (
        prop_oneof![
            Just("value"),
            Just("ratio"),
            Just("occupancy"),
            Just("nope")
        ],
        prop::collection::vec(arg, 0..6),
    )
        .prop_map(|(f, args)| format!("{{{{ {f}({}) }}}}", args.join(", ")));
    // Well-formed calls that reach the formatting, with any number of decimals.
    let formatted = any::<u64>().prop_map(|n| {
        format!("{{{{ ratio(column=\"gbps\", of=\"half\", to=\"full\", decimals={n}) }}}}")
    });
    prop_oneof![any_call, formatted]
}

fn body() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![call(), noise(), Just("text ".to_string())],
        0..6,
    )
    .prop_map(|v| v.concat())
}

/// One way to break a valid file: insert noise at a point, cut it at a point, or replace
/// the text between two points.
#[derive(Debug, Clone)]
enum Edit {
    Insert(usize, String),
    Cut(usize),
    Replace(usize, usize, String),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), noise()).prop_map(|(at, s)| Edit::Insert(at, s)),
        any::<usize>().prop_map(Edit::Cut),
        (any::<usize>(), 0usize..40, noise()).prop_map(|(at, n, s)| Edit::Replace(at, n, s)),
    ]
}

fn apply(text: &str, edit: &Edit) -> String {
    // Edits land on character boundaries; the noise itself brings the odd characters.
    let at = |i: usize| {
        let n = text.chars().count();
        text.char_indices()
            .map(|(b, _)| b)
            .chain([text.len()])
            .nth(i % (n + 1))
            .unwrap()
    };
    match edit {
        Edit::Insert(i, s) => format!("{}{s}{}", &text[..at(*i)], &text[at(*i)..]),
        Edit::Cut(i) => text[..at(*i)].to_string(),
        Edit::Replace(i, n, s) => {
            let start = at(*i);
            let end = (start + n).min(text.len());
            let end = (end..=text.len())
                .find(|e| text.is_char_boundary(*e))
                .unwrap();
            format!("{}{s}{}", &text[..start], &text[end..])
        }
    }
}

fn front_matter_of(text: &str) -> (&str, &str) {
    let end = text[4..].find("\n---\n").map(|i| i + 4 + 5).unwrap();
    text.split_at(end)
}

/// Errors are expected and fine; only a panic fails the property. Returns whether the
/// input was refused with an error.
fn check(root: &Path) -> bool {
    let today = chrono::NaiveDate::from_ymd_opt(2026, 12, 1).unwrap();
    glossary::pipeline::check(root, today).is_err()
}

/// Kept modest so CI stays fast: each case loads, assesses and renders a small site.
const CASES: u32 = 48;

#[test]
fn check_returns_errors_never_panics_on_any_input() {
    let site = valid_site();
    let root = site.path();
    let alpha = read(root, "content/terms/alpha.md");
    let experiment_path = format!("measurements/{EXPERIMENT}/experiment.yaml");
    let experiment = read(root, &experiment_path);
    let (front, rest) = front_matter_of(&alpha);
    let (front, rest) = (front.to_string(), rest.to_string());

    let errors = std::cell::Cell::new(0u32);
    let mut runner = TestRunner::new(Config {
        cases: CASES,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(
        &(edit(), body(), edit(), 0u8..3),
        |(front_edit, new_body, exp_edit, which)| {
            // Each case breaks one or more files of the same site; reset them first.
            let (f, b, e) = match which {
                0 => (apply(&front, &front_edit), rest.clone(), experiment.clone()),
                1 => (front.clone(), new_body.clone(), experiment.clone()),
                _ => (
                    apply(&front, &front_edit),
                    new_body.clone(),
                    apply(&experiment, &exp_edit),
                ),
            };
            write(root, "content/terms/alpha.md", &format!("{f}{b}"));
            write(root, &experiment_path, &e);
            if check(root) {
                errors.set(errors.get() + 1);
            }
            Ok(())
        },
    );
    // Leave the fixture as it was, then report (proptest shrinks to the smallest input).
    write(root, "content/terms/alpha.md", &alpha);
    write(root, &experiment_path, &experiment);
    if let Err(e) = result {
        panic!("check panicked: {e}");
    }
    // The inputs reach the parsers: most cases are refused with errors.
    assert!(
        errors.get() > CASES / 4,
        "only {} of {CASES} cases were errors",
        errors.get()
    );
}

// Hostile input (issue 37): every file below is an error naming the file (and its line),
// never a panic (exit 101), a stack overflow (abort, 134) or a stall.

/// The commands that read a whole project.
const READERS: [&[&str]; 3] = [&["check"], &["build", "--drafts"], &["review", "status"]];

#[test]
fn a_content_file_name_outside_the_allow_list_is_an_error_naming_it() {
    for (name, shown) in [
        ("a\u{200B}b.md", "a<U+200B>b.md"),
        ("a\u{202E}b.md", "a<U+202E>b.md"),
        ("a\u{1}b.md", "a<U+0001>b.md"),
    ] {
        let site = valid_site();
        let root = site.path();
        write(
            root,
            &format!("content/terms/{name}"),
            &term("What is ab?", "Ab.", "", "Body."),
        );
        for command in READERS {
            let out = run(root, command);
            assert_no_panic(&out);
            assert_eq!(out.status.code(), Some(1), "{command:?}: {}", text(&out));
            let err = stderr(&out);
            assert!(
                err.contains(&format!("content/terms/{shown}: the name holds U+")),
                "{command:?}: {err}"
            );
            assert!(!err.contains(name), "the raw name is never printed: {err}");
        }
    }
}

fn experiment_path() -> String {
    format!("measurements/{EXPERIMENT}/experiment.yaml")
}

/// The valid site with experiment parameter `n` set to the expression `expr`.
fn site_with_param(expr: &str) -> tempfile::TempDir {
    let site = valid_site();
    let root = site.path();
    let text = read(root, &experiment_path()).replace("{n: 1048576,", &format!("{{n: \"{expr}\","));
    assert!(text.contains(expr));
    write(root, &experiment_path(), &text);
    site
}

#[test]
fn parentheses_nested_20000_deep_are_an_error_at_the_param_not_a_stack_overflow() {
    let deep = format!("{}1048576{}", "(".repeat(20_000), ")".repeat(20_000));
    let site = site_with_param(&deep);
    let root = site.path();
    for command in [&["check"][..], &["verify", "--node", NODE, "--dry-run"]] {
        let out = run(root, command);
        assert_no_panic(&out);
        assert_eq!(out.status.code(), Some(1), "{command:?}: {}", text(&out));
        let err = stderr(&out);
        assert!(
            err.contains(&format!("{}:4:", experiment_path())),
            "{command:?}: the file and the line of `params`: {err}"
        );
        assert!(
            err.contains("the expression nests too deep: 64 levels at most"),
            "{err}"
        );
        assert!(
            err.len() < 2000,
            "the expression is not quoted whole: {err}"
        );
    }
}

#[test]
fn integer_division_of_the_smallest_integer_by_minus_one_is_an_error() {
    for expr in [
        "ceil_div(-9223372036854775807 - 1, -1)",
        "floor_div(-9223372036854775807 - 1, -1)",
        "(-9223372036854775807 - 1) / -1",
    ] {
        let site = site_with_param(expr);
        let root = site.path();
        // `check` does not evaluate params (a param's value may depend on the GPU);
        // planning the runs does.
        let out = run(root, &["verify", "--node", NODE, "--dry-run"]);
        assert_no_panic(&out);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        let err = stderr(&out);
        assert!(err.contains(&format!("{}:4:", experiment_path())), "{err}");
        assert!(err.contains("integer overflow"), "{err}");
    }
}

/// One bad experiment file is one error: the entries citing it, and the other
/// experiments, are not reported as unknown too.
#[test]
fn one_bad_experiment_file_is_reported_once() {
    let site = site_with_param("(1");
    let root = site.path();
    let out = run(root, &["check"]);
    assert_no_panic(&out);
    let err = stderr(&out);
    assert!(err.contains(&format!("{}:4:", experiment_path())), "{err}");
    assert!(
        err.contains("error: 1 error(s)") || err.matches("error:").count() == 1,
        "{err}"
    );
    assert!(!err.contains("unknown experiment"), "{err}");

    // A second, broken experiment beside the good one: the good one's citations stand.
    let site = valid_site();
    let root = site.path();
    let good = read(root, &experiment_path());
    write(
        root,
        "measurements/broken-copy/experiment.yaml",
        &good.replace("{n: 1048576,", "{n: \"(1\","),
    );
    write(
        root,
        "measurements/broken-copy/kernel.cu",
        &read(root, &format!("measurements/{EXPERIMENT}/kernel.cu")),
    );
    let out = run(root, &["check"]);
    let err = stderr(&out);
    assert!(
        err.contains("measurements/broken-copy/experiment.yaml:4:"),
        "{err}"
    );
    assert_eq!(
        err.matches("error:").count(),
        2,
        "the error and the count: {err}"
    );
}

/// 100,000 nested lists (200 KB): libyaml took 90 s on this in front matter and about 38 s
/// in an experiment or sign-off file. Each is now an error at its line, at once.
#[test]
fn yaml_nested_100000_deep_is_an_error_at_its_line_in_well_under_a_second_of_parsing() {
    let deep = format!("{}x{}", "[".repeat(100_000), "]".repeat(100_000));
    let site = valid_site();
    let root = site.path();
    let alpha = read(root, "content/terms/alpha.md");
    write(
        root,
        "content/terms/alpha.md",
        &alpha.replacen(
            "name: alpha\n",
            &format!("name: alpha\naliases: {deep}\n"),
            1,
        ),
    );
    let experiment = read(root, &experiment_path());
    write(
        root,
        &experiment_path(),
        &experiment.replacen("kernels:", &format!("notes: {deep}\nkernels:"), 1),
    );
    write(
        root,
        "content/reviews/terms/beta.yaml",
        &format!("author: {deep}\n"),
    );
    for command in READERS {
        let start = std::time::Instant::now();
        let out = run(root, command);
        let took = start.elapsed();
        assert_no_panic(&out);
        assert_eq!(out.status.code(), Some(1), "{command:?}: {}", text(&out));
        let err = stderr(&out);
        for at in [
            "content/terms/alpha.md:5:",
            &format!("{}:2:", experiment_path()),
            "content/reviews/terms/beta.yaml:1:",
        ] {
            assert!(err.contains(at), "{command:?}: {at} expected in {err}");
        }
        assert_eq!(
            err.matches("nest deeper than 64 levels").count(),
            3,
            "{command:?}: {err}"
        );
        // A debug build on a busy machine, three files: seconds of margin, not 90.
        assert!(took.as_secs() < 10, "{command:?} took {took:?}");
    }
}

/// A record copied in from another experiment's folder is named as such, not as "the
/// experiment changed since it was measured" (which sends its reader to re-measure).
#[test]
fn a_record_of_another_experiment_is_reported_as_one() {
    let site = valid_site();
    let root = site.path();
    write_record(root, |r| {
        r.experiment = "other-experiment".into();
        r.spec_digest = format!("sha256:{}", "ab".repeat(32));
    });
    let out = run(root, &["build", "--drafts"]);
    assert_no_panic(&out);
    let report = stdout(&out);
    assert!(
        report.contains(&format!(
            "is a record of experiment `other-experiment`, not of `{EXPERIMENT}`"
        )),
        "{report}"
    );
    assert!(!report.contains("the experiment changed"), "{report}");
}

/// A lesson without `day` gets the one error that says so, not a template error too.
#[test]
fn a_lesson_without_day_gets_only_the_missing_day_error() {
    let site = valid_site();
    let root = site.path();
    let lesson = read(root, "content/lessons/day-1-basics.md");
    write(
        root,
        "content/lessons/day-1-basics.md",
        &lesson.replace("day: 1\n", ""),
    );
    for command in [&["check"][..], &["build", "--drafts"]] {
        let out = run(root, command);
        assert_no_panic(&out);
        assert_eq!(out.status.code(), Some(1), "{command:?}: {}", text(&out));
        let err = stderr(&out);
        assert!(err.contains("content/lessons/day-1-basics.md"), "{err}");
        assert!(err.contains("day"), "{err}");
        assert!(
            !err.to_lowercase().contains("template"),
            "{command:?}: {err}"
        );
        assert!(!err.contains("concat"), "{command:?}: {err}");
        let errors = err
            .lines()
            .filter(|l| l.starts_with("error: ") && !l.ends_with(" error(s)"))
            .count();
        assert_eq!(errors, 1, "one error alone: {err}");
    }
}

/// Bodies nested about a megabyte deep, in each way Markdown, raw HTML and SVG nest:
/// refused or rendered, at once, never a stack overflow.
#[test]
fn bodies_nested_a_megabyte_deep_never_overflow_nor_stall() {
    let n = 100_000;
    let bodies = [
        (
            "raw HTML",
            format!("{}x{}", "<div>".repeat(n), "</div>".repeat(n)),
        ),
        ("unclosed raw HTML", "<span><div><b>".repeat(n)),
        ("block quotes", format!("{}x", "> ".repeat(n))),
        ("lists", format!("{}x", "- ".repeat(n))),
        ("links", format!("{}x{}", "[".repeat(n), "](y)".repeat(n))),
        ("emphasis", format!("{}x{}", "*_".repeat(n), "_*".repeat(n))),
    ];
    let site = valid_site();
    let root = site.path();
    let config = read(root, "glossary.toml");
    write(
        root,
        "glossary.toml",
        &format!("{config}\n[content]\nallow_html = true\n"),
    );
    for (what, body) in bodies {
        write(
            root,
            "content/terms/delta.md",
            &term("What is delta?", "Delta.", "", &body),
        );
        let start = std::time::Instant::now();
        let out = run(root, &["build", "--drafts"]);
        let took = start.elapsed();
        assert_no_panic(&out);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{what}: {:?}",
            out.status
        );
        if what.contains("HTML") {
            let said = text(&out);
            assert!(
                said.contains("the HTML nests deeper than 256 elements"),
                "{what}: {said}"
            );
        }
        // A debug build on a busy machine: a bound on stalls (html5ever took over ten
        // minutes on the first before its depth was measured), not a benchmark.
        assert!(took.as_secs() < 30, "{what} took {took:?}");
    }
}

/// Files past their kind's size bound are refused by name, read no further than the bound.
#[test]
fn an_oversized_entry_or_experiment_file_is_refused_by_name() {
    let site = valid_site();
    let root = site.path();
    let big = format!("{}\n", "word ".repeat(1_000_000));
    write(
        root,
        "content/terms/delta.md",
        &term("What is delta?", "Delta.", "", &big),
    );
    let experiment = read(root, &experiment_path());
    write(
        root,
        &experiment_path(),
        &format!("{experiment}# {}\n", "x".repeat(1 << 20)),
    );
    let out = run(root, &["check"]);
    assert_no_panic(&out);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let err = stderr(&out);
    assert!(
        err.contains("content/terms/delta.md: the file is over 4096 KiB"),
        "{err}"
    );
    assert!(
        err.contains(&format!("{}: the file is over 1024 KiB", experiment_path())),
        "{err}"
    );
}
