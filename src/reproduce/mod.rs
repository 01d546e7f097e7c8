//! `glossary reproduce URL|PATH`: a reader re-runs one measured table on their own GPU.
//!
//! The flow, each step before the next:
//! 1. `fetch`: the bundle's bytes, bounded (HTTPS, or HTTP from loopback only, or a file);
//! 2. `pin`: the node's keys (current and retired, with the records each retired key
//!    signed) are taken only from the site's `nodes.json` (remembered whole per site on
//!    first use) or from `--trust-key`, never from the bundle; the record's signer must
//!    be one of them;
//! 3. `measure::bundle`: every digest, the experiment digest the record names, and the
//!    node's signature over the record, checked before anything runs; the experiment is
//!    laid out in a private work folder;
//! 4. verify's own machinery (`measure::run::verify`) on the local GPU, as a node whose
//!    profile is this GPU and whose key is the reader's SSH key, so the record it writes
//!    has the same schema and provenance as any node's;
//! 5. `compare`: row by row, the published estimate against the reader's (SAME, FASTER,
//!    SLOWER, AMBIGUOUS by `measure::verdict::change`), then every claim the site's pages
//!    make from the record, re-checked on the reader's record;
//! 6. `contribution`: the signed record and a short Markdown report, written only when
//!    everything before succeeded.
//!
//! `--dry-run` stops after planning: no GPU is touched and nothing is written.

pub mod compare;
pub mod contribution;
pub mod fetch;
pub mod pin;

use std::path::{Path, PathBuf};

use crate::config::Node;
use crate::measure::bundle::{Bundle, Checked};
use crate::measure::run::{self, gpu, Outcome, VerifyRequest};
use crate::trust::Signer;

pub use crate::measure::compare::RowChange;
pub use compare::ClaimCheck;

#[derive(Debug, Clone)]
pub struct Request {
    /// The bundle: an `https://` URL, an `http://` URL on loopback, or a path.
    pub source: String,
    /// Check the bundle and plan the run; run nothing, write nothing.
    pub dry_run: bool,
    pub ncu: bool,
    /// The reader's SSH key (else git's `user.signingkey`).
    pub key: Option<PathBuf>,
    /// Where the contribution is written.
    pub out: PathBuf,
    /// The node name the contribution's record carries (the maintainer's profile name).
    pub name: Option<String>,
    /// Plan as if the GPU had this many bytes of memory (a dry run without a GPU).
    pub device_memory: Option<u64>,
    /// The node keys the reader trusts (key lines, `.pub` files, fingerprints, or the
    /// site's `nodes.json` saved to a file): for a bundle read from a file or a mirror
    /// (`pin`).
    pub trust_keys: Vec<String>,
}

/// What happened, for the command to print.
#[derive(Debug)]
pub struct Report {
    pub source: String,
    pub experiment: String,
    pub node: String,
    pub published_gpu: String,
    /// The key that signed the record, and which of the node's keys it is (current, or
    /// retired when).
    pub signed_by: String,
    /// Why the node's keys are trusted (`pin::Pinned`), for the verdict line.
    pub pinned: String,
    pub files: usize,
    /// The GPU the run was planned or made on.
    pub local_gpu: String,
    pub planned_configs: usize,
    /// Row by row (empty on a dry run). On another model the rows are shown side by side
    /// but their verdicts are not judged ([`Report::row_verdict`]).
    pub rows: Vec<RowChange>,
    /// False when the reader's GPU is another model: times are shown, not judged; claims
    /// are judged.
    pub same_gpu: bool,
    pub claims: Vec<ClaimCheck>,
    /// The contribution's files, when one was written.
    pub contribution: Vec<PathBuf>,
}

/// What a row says instead of SAME/SLOWER when the run was on another GPU model than the
/// bundle's node: another model's times differ for reasons of its own (its memory, L2,
/// clocks), so the band that judges a re-run of the same model does not apply.
pub const NOT_JUDGED: &str = "another model: not judged";

impl Report {
    /// A row's verdict as the reader sees it: the band's verdict on the bundle's own model,
    /// [`NOT_JUDGED`] on another.
    pub fn row_verdict(&self, row: &RowChange) -> String {
        match self.same_gpu {
            true => row.verdict.to_string(),
            false => NOT_JUDGED.to_string(),
        }
    }

    /// Whether the reproduction differs from the published table: a row judged other than
    /// SAME (on the bundle's own model only), or a claim that does not hold.
    pub fn differs(&self) -> bool {
        use crate::measure::verdict::Change;
        (self.same_gpu
            && self.rows.iter().any(|r| {
                matches!(
                    r.verdict,
                    Change::Slower | Change::Faster | Change::Different
                )
            }))
            || self.claims.iter().any(|c| !c.verdict.starts_with("holds"))
    }

    /// The rows side by side, published and this run, with each row's verdict: what
    /// `reproduce` prints and its contribution's report holds (`markdown` for a table).
    pub fn rows_table(&self, markdown: bool) -> String {
        use std::fmt::Write as _;
        let e = |e: &Option<crate::measure::compare::Span>| {
            e.map_or("-".to_string(), |s| {
                format!("{:.4}", crate::measure::verdict::Estimate::from(s))
            })
        };
        let mut out = String::new();
        let mine = match self.same_gpu {
            true => "this GPU ms [95% CI]".to_string(),
            false => format!("{} ms [95% CI]", self.local_gpu),
        };
        let theirs = format!("{} ms [95% CI]", self.node);
        if markdown {
            let _ = writeln!(
                out,
                "| row | {theirs} | {mine} | verdict |\n|---|---|---|---|"
            );
        } else {
            let _ = writeln!(out, "{:<14} {:>28} {:>28}  verdict", "row", theirs, mine);
        }
        for row in &self.rows {
            let verdict = self.row_verdict(row);
            if markdown {
                let cell = |t: &str| {
                    t.chars()
                        .filter(|c| !c.is_control())
                        .collect::<String>()
                        .replace('|', "\\|")
                };
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {verdict} |",
                    cell(&row.label),
                    e(&row.old),
                    e(&row.new)
                );
            } else {
                let notes = match row.notes.is_empty() || !self.same_gpu {
                    true => String::new(),
                    false => format!(" ({})", row.notes.join("; ")),
                };
                let _ = writeln!(
                    out,
                    "{:<14} {:>28} {:>28}  {verdict}{notes}",
                    row.label,
                    e(&row.old),
                    e(&row.new)
                );
            }
        }
        out
    }
}

/// Whether the reader's GPU (`local`, as the driver reports it) is the bundle's node's
/// model: the same name and compute capability, as a node's own check compares them.
/// Only then are its rows judged SAME/SLOWER.
pub fn same_model(published: &Node, local: &Node) -> bool {
    local.gpu == published.gpu && local.compute_capability == published.compute_capability
}

/// The default node name of a contribution: `contributed-` and the GPU's name as a slug
/// (`contributed-tesla-t4`).
pub fn default_name(gpu: &str) -> String {
    let mut slug = String::from("contributed");
    for part in gpu
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|p| !p.is_empty())
    {
        slug.push('-');
        slug.push_str(&part.to_ascii_lowercase());
    }
    slug
}

pub fn reproduce(req: &Request, progress: &indicatif::ProgressBar) -> anyhow::Result<Report> {
    let bytes = fetch::fetch(&req.source)?;
    let mut bundle = Bundle::parse(&req.source, &bytes)?;
    // The key is read from the record's signature, and the node's keys are settled
    // outside the bundle (its profile's keys vouch for nothing) before the signature is
    // checked against them.
    let Some(signer) = crate::trust::sshsig::parse_signature(&bundle.signature)
        .ok()
        .map(|s| ssh_key::PublicKey::new(s.public_key_data().clone(), ""))
    else {
        anyhow::bail!(
            "{}: the bundle's signature over node {}'s record is not an SSH signature, so the record cannot be checked",
            req.source,
            crate::visible::escape(&bundle.node.chars().take(80).collect::<String>())
        );
    };
    let trusted = pin::pin(
        &req.source,
        &bundle.node,
        &signer,
        &req.trust_keys,
        pin::known_nodes_file().as_deref(),
        &|url| Ok(fetch::fetch(url)?),
    )?;
    bundle.profile.public_key = Some(trusted.keys.public_key.clone());
    bundle.profile.previous_keys = trusted.keys.previous_keys.clone();
    let work = tempfile::tempdir()?;
    let checked = bundle.check(work.path())?;
    let mut report = Report {
        source: req.source.clone(),
        experiment: checked.bundle.experiment.clone(),
        node: checked.bundle.node.clone(),
        published_gpu: checked.bundle.profile.gpu.clone(),
        // A bare --trust-key carries no history: the key is the one the reader named, not
        // the node's current or a retired one.
        signed_by: match trusted.how {
            pin::Pinned::TrustKey => format!("key {}", checked.signed_by.fingerprint()),
            _ => checked.signed_by.to_string(),
        },
        pinned: trusted.how.to_string(),
        files: checked.bundle.files.len(),
        local_gpu: String::new(),
        planned_configs: 0,
        rows: Vec::new(),
        same_gpu: false,
        claims: Vec::new(),
        contribution: Vec::new(),
    };
    // The reader's key is checked before the GPU's time is spent, as verify checks a
    // node's.
    let key = reader_key(req)?;
    let signer = key.as_deref().map(Signer::from_file).transpose()?;
    let local = local_profile(&checked, req, signer.as_ref())?;
    report.local_gpu = local.gpu.clone();
    report.same_gpu = same_model(&checked.bundle.profile, &local);
    let name = req.name.clone().unwrap_or_else(|| default_name(&local.gpu));
    write_project(work.path(), &name, &local)?;
    let out = work.path().join("out");
    let verify_req = VerifyRequest {
        root: work.path().to_path_buf(),
        node: name.clone(),
        only: vec![checked.bundle.experiment.clone()],
        dry_run: req.dry_run,
        ncu: req.ncu,
        launch_once: false,
        allow_partial: false,
        key,
        out: Some(out.clone()),
    };
    // Errors name files of the private work folder; a reader knows them as the bundle's.
    let verified = run::verify(&verify_req, progress).map_err(|e| {
        let shown = format!("{}/measurements/", work.path().display());
        anyhow::anyhow!(
            "{}",
            e.to_string().replace(&shown, &format!("{} ", req.source))
        )
    })?;
    let Some((_, outcome)) = verified.experiments.into_iter().next() else {
        anyhow::bail!("verify ran no experiment for the bundle");
    };
    match outcome {
        Outcome::Planned { configs, .. } => {
            if let Some(failed) = configs.iter().find(|c| !c.passed) {
                anyhow::bail!(
                    "config {} cannot run here: {}",
                    failed.label,
                    failed.reason.as_deref().unwrap_or("refused")
                );
            }
            report.planned_configs = configs.len();
            Ok(report)
        }
        Outcome::Failed { error, .. } => {
            anyhow::bail!("the run on this GPU failed, nothing was written: {error}")
        }
        Outcome::Written {
            record, configs, ..
        } => {
            report.planned_configs = configs.len();
            let mine_bytes = std::fs::read(&record)?;
            let mine: crate::measure::Record = serde_json::from_slice(&mine_bytes)?;
            // On another model too: shown side by side, judged only on the same model.
            report.rows = compare::rows(&checked, &mine)?;
            report.claims = compare::claims(&checked, &mine);
            report.contribution = contribution::write(&req.out, &checked, &record, &mine, &report)?;
            Ok(report)
        }
    }
}

/// The profile the run is made under: this GPU's (as the driver reports it) with the
/// reader's key, or, on a dry run with no driver, the published node's.
fn local_profile(
    checked: &Checked,
    req: &Request,
    signer: Option<&Signer>,
) -> anyhow::Result<Node> {
    let public_key = signer.and_then(|s| s.public_key().to_openssh().ok());
    if req.dry_run && !gpu::driver_present() {
        let mut p = checked.bundle.profile.clone();
        if let Some(m) = req.device_memory {
            p.mem_bytes = Some(m);
        }
        p.public_key = public_key;
        p.previous_keys.clear();
        return Ok(p);
    }
    let gpu = gpu::Gpu::open()?;
    Ok(Node {
        gpu: gpu.info.name.trim().to_string(),
        compute_capability: gpu.info.compute_capability.clone(),
        arch: gpu.arch.clone(),
        sm_count: gpu.info.sm_count,
        public_key,
        previous_keys: Vec::new(),
        key: None,
        gpu_uuids: Vec::new(),
        l2_bytes: gpu.info.l2_bytes,
        mem_bytes: req.device_memory,
        slurm: None,
        datasheet: None,
        contributed_by: None,
        peaks: Default::default(),
    })
}

/// A project of one experiment and one node, which verify runs as it runs any.
fn write_project(root: &Path, name: &str, node: &Node) -> anyhow::Result<()> {
    #[derive(serde::Serialize)]
    struct Project<'a> {
        title: &'a str,
        base_url: &'a str,
        nodes: std::collections::BTreeMap<&'a str, &'a Node>,
    }
    let text = toml::to_string(&Project {
        title: "reproduce",
        base_url: "http://localhost/",
        nodes: [(name, node)].into_iter().collect(),
    })?;
    std::fs::write(root.join(crate::config::CONFIG_FILE), text)?;
    Ok(())
}

/// The reader's key file: `--key`, else git's `user.signingkey` (the key a reader already
/// signs commits with). None on a dry run without `--key`: nothing is signed.
fn reader_key(req: &Request) -> anyhow::Result<Option<PathBuf>> {
    if let Some(k) = &req.key {
        return Ok(Some(k.clone()));
    }
    if req.dry_run {
        return Ok(None);
    }
    let value = std::process::Command::new("git")
        .args(["config", "--get", "user.signingkey"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    if value.is_empty() || value.starts_with("key::") || value.starts_with("ssh-") {
        anyhow::bail!(
            "reproduce signs the record it writes with your SSH key: pass --key ~/.ssh/id_ed25519 (or set git's user.signingkey to the key's path)"
        );
    }
    Ok(Some(match value.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME")
            .map(|h| PathBuf::from(h).join(rest))
            .unwrap_or_else(|| PathBuf::from(&value)),
        None => PathBuf::from(&value),
    }))
}
