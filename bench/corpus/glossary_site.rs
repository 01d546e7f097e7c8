//! Writing the corpus as a `glossary` project: config with a synthetic node, one synthetic
//! experiment and record, N term entries, and signatures that make every entry publish.

use std::fmt::Write as _;
use std::path::Path;

use rayon::prelude::*;

use glossary::config::Layout;
use glossary::error::{Error, Result};
use glossary::measure::record::{GpuInfo, Record, RECORD_SCHEMA};
use glossary::measure::spec::Experiment;
use glossary::pipeline::{assess_all, kept_material, Project};
use glossary::review::{save_signoffs, statement, Role, SignOff, Signature};
use glossary::trust::{Signer, REVIEW_NAMESPACE};

use super::model::{self, Corpus, Term};

const KERNEL: &str = "synthetic.cu";

/// Write the project under `root`, copying the site templates from `templates`.
pub fn write(corpus: &Corpus, root: &Path, templates: &Path) -> Result<()> {
    let layout = Layout::new(root);
    let keys = ThrowawayKeys::new(root)?;
    write_file(
        &root.join(glossary::config::CONFIG_FILE),
        &config(&keys.node),
    )?;
    write_file(&layout.people(), &people_toml(&keys))?;
    glossary::pipeline::copy_dir(templates, &layout.templates())?;
    write_experiment(corpus, &layout, &keys.node)?;
    let terms_dir = layout.content().join("terms");
    for term in &corpus.terms {
        let text = entry_text(corpus, term);
        write_file(&terms_dir.join(format!("{}.md", term.slug)), &text)?;
    }
    sign_all(corpus, root, &keys)
}

/// Keys made for this corpus alone, from the system's random source: the two fixture
/// people and the synthetic node. Their private halves are written to
/// `ROOT/throwaway-keys/` so a benchmark can sign more (`review sign --key`); they sign
/// nothing outside this generated folder.
struct ThrowawayKeys {
    author: Signer,
    reviewer: Signer,
    node: Signer,
}

impl ThrowawayKeys {
    fn new(root: &Path) -> Result<ThrowawayKeys> {
        let mut seeds = [[0u8; 32]; 3];
        let mut random =
            std::fs::File::open("/dev/urandom").map_err(|e| Error::io("/dev/urandom", e))?;
        for s in &mut seeds {
            std::io::Read::read_exact(&mut random, s).map_err(|e| Error::io("/dev/urandom", e))?;
        }
        let key = |seed: &[u8; 32], name: &str| {
            Signer::ed25519_from_seed(seed, name).map_err(|e| Error::Other(e.to_string()))
        };
        let keys = ThrowawayKeys {
            author: key(&seeds[0], model::AUTHOR)?,
            reviewer: key(&seeds[1], model::REVIEWER)?,
            node: key(&seeds[2], model::NODE)?,
        };
        let dir = root.join("throwaway-keys");
        for (name, k) in [
            (model::AUTHOR, &keys.author),
            (model::REVIEWER, &keys.reviewer),
            (model::NODE, &keys.node),
        ] {
            let path = dir.join(name);
            write_file(&path, &k.private_openssh().unwrap_or_default())?;
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
                    .map_err(|e| Error::io(&path, e))?;
            }
        }
        Ok(keys)
    }
}

fn public(k: &Signer) -> String {
    k.public_key().to_openssh().unwrap_or_default()
}

fn people_toml(keys: &ThrowawayKeys) -> String {
    format!(
        "# Fixture people of the synthetic benchmark corpus, with throwaway keys.\n[[person]]\nid = \"{a}\"\nname = \"{a}\"\nkeys = [\"{ak}\"]\n\n[[person]]\nid = \"{r}\"\nname = \"{r}\"\nkeys = [\"{rk}\"]\n",
        a = model::AUTHOR,
        ak = public(&keys.author),
        r = model::REVIEWER,
        rk = public(&keys.reviewer),
    )
}

fn config(node_key: &Signer) -> String {
    format!(
        r#"# A synthetic benchmark corpus written by glossary-corpus. Nothing in it was measured.
title = "GPU Glossary (synthetic benchmark corpus)"
base_url = "https://gpu-glossary.example.org"
description = "A generated corpus for timing builds; its numbers are synthetic, not measurements."

[review]
# The corpus's dates are fixed so it is the same on every run; keep them from going stale.
source_max_age_days = 100000

# Compute capability 0.0 and its architecture sm_00: no real GPU, but a pair that agrees,
# as glossary.toml's check requires.
[nodes.{node}]
gpu = "{gpu}"
compute_capability = "0.0"
arch = "sm_00"
sm_count = 1
public_key = "{key}"
"#,
        node = model::NODE,
        gpu = model::GPU_NAME,
        key = public(node_key),
    )
}

/// The experiment files, and a record carrying the digest the library computes for them
/// (so it is current) and labels that say it is synthetic.
fn write_experiment(corpus: &Corpus, layout: &Layout, node_key: &Signer) -> Result<()> {
    let dir = layout.measurements().join(model::EXPERIMENT);
    write_file(
        &dir.join(glossary::measure::spec::EXPERIMENT_FILE),
        &experiment_yaml(),
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
        compile_options: vec!["synthetic".into(), "--gpu-architecture=sm_00".into()],
        device: Default::default(),
        partial: false,
        configs: corpus.configs.clone(),
        extra: serde_json::Value::Null,
    };
    record.write_signed(&experiment.record_path(model::NODE), node_key)
}

/// A well-formed experiment whose configurations are the record's rows. `verify` is never
/// run on it: the record beside it is generated.
fn experiment_yaml() -> String {
    let mut y = format!(
        "# Synthetic: never run. Its record is generated by glossary-corpus.\ntitle: \"Synthetic benchmark experiment (never run; its record is generated)\"\nkernels: [{KERNEL}]\nparams:\n  n: 1048576\n  block: 128\n  elements_per_thread: 1\nbuffers:\n  x: {{type: f32, length: n, fill: {{uniform: [-1, 1]}}}}\n  out: {{type: f32, length: n, output: true, tolerance: {{ulps: 2}}}}\nlaunches:\n  - kernel: synthetic\n    args: [x, out, {{u64: n}}]\n    grid: ceil_div(n, block)\n    block: block\nreference:\n  config: {first}\nmetrics:\n  gbps: {{value: 8 * n / (median_ms * 1e6), unit: GB/s, heading: bandwidth, decimals: 1}}\n  loads_in_flight: {{value: warps_per_sm * 2 * elements_per_thread, heading: loads in flight / SM, decimals: 0}}\nconfigs:\n",
        first = model::ROWS[0]
    );
    for (i, row) in model::ROWS.iter().enumerate() {
        let _ = writeln!(
            y,
            "  - {{label: {row}, block: {}, elements_per_thread: 1}}",
            128u32 << i
        );
    }
    y
}

fn entry_text(corpus: &Corpus, term: &Term) -> String {
    let mut s = model::front_matter_head(corpus, term);
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

/// Sign every entry over what the build shows, as author-a and reviewer-b with their
/// throwaway keys, so every entry publishes. One assessment of the whole project, then
/// the signatures in parallel: this is the cost of `review sign --all-waiting` twice.
fn sign_all(corpus: &Corpus, root: &Path, keys: &ThrowawayKeys) -> Result<()> {
    let project = Project::load(root)?;
    let assessments = assess_all(&project, corpus.signed)?;
    let reviews = project.layout.reviews();
    let time = corpus
        .signed
        .and_hms_opt(12, 0, 0)
        .unwrap_or_default()
        .and_utc();
    let signed: Vec<Result<SignOff>> = assessments
        .par_iter()
        .map(|a| {
            let digest = &a.digest;
            let sig = |role: Role, person: &str, key: &Signer| -> Result<Signature> {
                // people.toml names each person by their id (`people_toml`).
                let msg = statement(&a.id, role, person, person, digest, &time);
                Ok(Signature {
                    person: person.into(),
                    name: person.into(),
                    time,
                    digest: digest.clone(),
                    signature: key
                        .sign(REVIEW_NAMESPACE, msg.as_bytes())
                        .map_err(|e| Error::Other(e.to_string()))?,
                })
            };
            Ok(SignOff {
                author: Some(sig(Role::Author, model::AUTHOR, &keys.author)?),
                reviewer: Some(sig(Role::Reviewer, model::REVIEWER, &keys.reviewer)?),
                ..Default::default()
            })
        })
        .collect();
    let mut items = Vec::with_capacity(signed.len());
    let mut errors = Vec::new();
    for (a, s) in assessments.iter().zip(&signed) {
        match (s, kept_material(a)) {
            (Ok(s), Ok(material)) => items.push((&a.id, s, material)),
            (Err(e), _) => errors.push(Error::Other(e.to_string())),
            (_, Err(e)) => errors.push(e),
        }
    }
    Error::collect(errors)?;
    // One flush to disk for all 2N files, as `review sign --all-waiting` writes them.
    save_signoffs(&reviews, &items)
}

pub(super) fn write_file(path: &Path, text: &str) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    std::fs::write(path, text).map_err(|e| Error::io(path, e))
}
