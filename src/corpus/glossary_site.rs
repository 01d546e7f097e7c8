//! Writing the corpus as a `glossary` project: config with a synthetic node, one synthetic
//! experiment and record, N term entries, and signatures that make every entry publish.

use std::fmt::Write as _;
use std::path::Path;

use crate::config::Layout;
use crate::content::load_content;
use crate::error::{Error, Result};
use crate::measure::record::{GpuInfo, Problem, Record, RECORD_SCHEMA};
use crate::measure::spec::Experiment;
use crate::measure::Library;
use crate::review::{save_signoff, signed_digest, SignOff, Signature};

use super::model::{self, Corpus, Term};

const KERNEL: &str = "synthetic.cu";

/// Write the project under `root`, copying the site templates from `templates`.
pub fn write(corpus: &Corpus, root: &Path, templates: &Path) -> Result<()> {
    let layout = Layout::new(root);
    write_file(&root.join(crate::config::CONFIG_FILE), &config())?;
    copy_dir(templates, &layout.templates())?;
    write_experiment(corpus, &layout)?;
    let terms_dir = layout.content().join("terms");
    for term in &corpus.terms {
        let text = entry_text(corpus, term);
        write_file(&terms_dir.join(format!("{}.md", term.slug)), &text)?;
    }
    sign_all(corpus, &layout)
}

fn config() -> String {
    format!(
        r#"# A synthetic benchmark corpus written by glossary-corpus. Nothing in it was measured.
title = "GPU Glossary (synthetic benchmark corpus)"
base_url = "https://gpu-glossary.example.org"
description = "A generated corpus for timing builds; its numbers are synthetic, not measurements."

[review]
# The corpus's dates are fixed so it is the same on every run; keep them from going stale.
source_max_age_days = 100000

[nodes.{node}]
gpu = "{gpu}"
compute_capability = "0.0"
arch = "none"
sm_count = 1
"#,
        node = model::NODE,
        gpu = model::GPU_NAME,
    )
}

/// The experiment files, and a record carrying the digest the library computes for them
/// (so it is current) and labels that say it is synthetic.
fn write_experiment(corpus: &Corpus, layout: &Layout) -> Result<()> {
    let dir = layout.measurements().join(model::EXPERIMENT);
    write_file(
        &dir.join(crate::measure::spec::EXPERIMENT_FILE),
        &format!(
            "title: Synthetic benchmark experiment (never run; its record is generated)\nkernels: [{KERNEL}]\n"
        ),
    )?;
    write_file(
        &dir.join(KERNEL),
        "// Synthetic: this kernel is never compiled or run.\n__global__ void synthetic() {}\n",
    )?;
    let experiment = Experiment::load(&dir)?;
    let record = Record {
        schema: RECORD_SCHEMA,
        experiment: model::EXPERIMENT.into(),
        node: model::NODE.into(),
        spec_digest: experiment.digest.clone(),
        tool_version: model::TOOL_VERSION.into(),
        captured_at: corpus.captured_at,
        gpu: GpuInfo {
            name: model::GPU_NAME.into(),
            uuid: "synthetic".into(),
            compute_capability: "0.0".into(),
            sm_count: 1,
            driver_version: "synthetic".into(),
            cuda_driver_api: "synthetic".into(),
            nvrtc_version: "synthetic".into(),
            l2_bytes: None,
        },
        compile_options: vec!["synthetic".into()],
        problem: Problem {
            elements: 1 << 20,
            bytes_per_launch: 8 << 20,
        },
        configs: corpus.configs.clone(),
        extra: serde_json::Value::Null,
    };
    record.write_atomic(&experiment.record_path(model::NODE))
}

/// YAML double-quoted scalar.
fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn entry_text(corpus: &Corpus, term: &Term) -> String {
    let mut s = String::from("---\n");
    let _ = writeln!(s, "title: {}", quoted(&format!("What is {}?", term.name)));
    let _ = writeln!(s, "name: {}", quoted(&term.name));
    let _ = writeln!(s, "summary: {}", quoted(&term.summary));
    let related: Vec<&str> = term
        .related
        .iter()
        .map(|&j| corpus.terms[j].slug.as_str())
        .collect();
    let _ = writeln!(s, "related: [{}]", related.join(", "));
    s.push_str("sources:\n");
    for (title, url) in &term.sources {
        let _ = writeln!(
            s,
            "  - title: {}\n    url: {url}\n    checked: {}",
            quoted(title),
            corpus.checked
        );
    }
    let _ = writeln!(
        s,
        "measured:\n  - experiment: {}\n    node: {}\n    rows: [{}]\n    columns: [{}]\n    caption: \"Synthetic numbers from a generated record, not a measurement.\"",
        model::EXPERIMENT,
        model::NODE,
        term.rows.join(", "),
        model::COLUMNS.join(", ")
    );
    s.push_str("---\n");
    s.push_str(&term.body_head);
    let (row, column) = term.quoted;
    let _ = write!(s, "{{{{ value(row=\"{row}\", column=\"{column}\") }}}}");
    s.push_str(&term.body_tail);
    s
}

/// Sign every entry as the library computes its digest, so every entry publishes.
fn sign_all(corpus: &Corpus, layout: &Layout) -> Result<()> {
    let content = load_content(&layout.content())?;
    let library = Library::load(&layout.measurements())?;
    for entry in &content.entries {
        let material = signed_digest(entry, &library);
        let sig = |name: &str| Signature {
            name: name.into(),
            date: corpus.signed,
            digest: material.digest.clone(),
            records: material.records.clone(),
            text: None,
        };
        let signoff = SignOff {
            author: Some(sig(model::AUTHOR)),
            reviewer: Some(sig(model::REVIEWER)),
        };
        save_signoff(&layout.reviews(), &entry.id, &signoff)?;
    }
    Ok(())
}

pub(super) fn write_file(path: &Path, text: &str) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    std::fs::write(path, text).map_err(|e| Error::io(path, e))
}

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    for item in walkdir::WalkDir::new(from) {
        let item = item.map_err(|e| Error::Other(format!("{}: {e}", from.display())))?;
        let rel = item.path().strip_prefix(from).unwrap_or(item.path());
        let dest = to.join(rel);
        if item.file_type().is_dir() {
            std::fs::create_dir_all(&dest).map_err(|e| Error::io(&dest, e))?;
        } else if item.file_type().is_file() {
            std::fs::copy(item.path(), &dest).map_err(|e| Error::io(item.path(), e))?;
        }
    }
    Ok(())
}
