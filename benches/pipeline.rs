//! Per-page cost of each build stage, on one entry of the synthetic benchmark corpus
//! (bench/corpus/): front matter, page content (value expansion), Markdown, highlighting,
//! template.
//! Whole-site numbers, and Hugo beside them, come from bench/run.sh.

#[path = "../bench/corpus/mod.rs"]
mod corpus;

use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, SamplingMode};

use glossary::content::{split_front_matter, IdSet};
use glossary::pipeline::{assess_all, page_shown, Project};
use glossary::render::highlight::code_block;
use glossary::render::markdown::{render, LinkPolicy};
use glossary::render::pages::{render_page, render_page_markdown};
use glossary::render::templates::load_templates;

fn stages(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path().join("corpus");
    let templates = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
    corpus::write_glossary(&corpus::generate(100), &root, &templates).expect("corpus");
    let project = Project::load(&root).expect("corpus loads");
    let today = chrono::Local::now().date_naive();
    let assessments = assess_all(&project, today).expect("corpus assesses");
    let tera = load_templates(&project.layout.templates()).expect("templates");
    let ids: IdSet = assessments.iter().map(|a| a.id.clone()).collect();
    let entry = &project.content.entries[0];
    let assessment = &assessments[0];
    let code = entry
        .body
        .split("```cuda\n")
        .nth(1)
        .and_then(|s| s.split("```").next())
        .expect("a cuda block")
        .to_string();

    c.bench_function("front matter: split and parse", |b| {
        b.iter(|| {
            let split = split_front_matter(&entry.path, &entry.raw).expect("splits");
            glossary::content::parse_front_matter(&entry.path, &split).expect("parses")
        })
    });
    c.bench_function(
        "page content: records cited, tables, value() calls expanded",
        |b| b.iter(|| page_shown(&project, entry, None).expect("expands")),
    );
    let shown = assessment
        .shown
        .as_ref()
        .expect("assess_all keeps what pages show");
    let page_path = entry.id.url_path();
    let policy = LinkPolicy {
        page_path: &page_path,
        linkable: &ids,
        figures: None,
        reserved_ids: &Default::default(),
    };
    c.bench_function("markdown: body to HTML (code block cached)", |b| {
        b.iter(|| render(&shown.markdown, entry.body_line, &policy))
    });
    c.bench_function("highlight: 16-line CUDA block (cached)", |b| {
        b.iter(|| code_block("cuda", &code))
    });
    // The highlighter caches by content; a counter in a comment makes every block new.
    // Few, short samples: every distinct block stays in the cache for the process's life.
    let mut group = c.benchmark_group("highlight");
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_millis(300));
    let mut n = 0u64;
    group.bench_function("16-line CUDA block (first sight)", |b| {
        b.iter_batched(
            || {
                n += 1;
                format!("// {n}\n{code}")
            },
            |code| code_block("cuda", &code),
            BatchSize::SmallInput,
        )
    });
    group.finish();

    let input = project.render_input(&assessments, &tera, &ids, &ids, today, false);
    c.bench_function("template: term page", |b| {
        b.iter_batched(
            || render_page_markdown(&input, entry, Some(assessment)).expect("renders"),
            |r| render_page(&input, entry, assessment, r).expect("renders"),
            BatchSize::SmallInput,
        )
    });
}

criterion_group!(benches, stages);
criterion_main!(benches);
