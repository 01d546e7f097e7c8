//! `glossary records import DIR...`: check records verify wrote elsewhere and move the
//! good ones into measurements/.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Result};

use crate::config::{Config, Layout};
use crate::fleet::{import, import_contributed, Verdict};
use crate::measure::Library;

#[derive(clap::Args, Debug)]
pub struct RecordsArgs {
    #[command(subcommand)]
    pub command: RecordsCommand,
}

#[derive(clap::Subcommand, Debug)]
pub enum RecordsCommand {
    /// Check each record under the folders (right node, right GPU, current experiment,
    /// well-formed, finished) and move the good ones into measurements/<id>/records/.
    Import(ImportArgs),
    /// List the kept runs of an experiment (capture time, GPU UUID, driver, each row's
    /// median and interval), oldest first.
    History(HistoryArgs),
}

#[derive(clap::Args, Debug)]
pub struct HistoryArgs {
    /// The experiment (its folder name under measurements/).
    pub id: String,
    /// Only this node's runs (default: every node with a record or history).
    #[arg(long)]
    pub node: Option<String>,
    /// Print the runs as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// The glossary project's root folder.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
}

#[derive(clap::Args, Debug)]
pub struct ImportArgs {
    /// Folders verify wrote to (`verify --out`, a `verify submit` output folder).
    #[arg(required_unless_present = "contributed", value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// A reader's contribution: a record `glossary reproduce` wrote (its `.sig` beside
    /// it), from a node profile with `contributed_by`. May be given more than once.
    #[arg(long, value_name = "FILE", conflicts_with = "dirs")]
    pub contributed: Vec<PathBuf>,
    /// Check only; move nothing.
    #[arg(long)]
    pub check: bool,
    /// Print the verdicts as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// The glossary project's root folder.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
}

pub fn run(args: &RecordsArgs) -> Result<()> {
    match &args.command {
        RecordsCommand::Import(a) => run_import(a),
        RecordsCommand::History(a) => run_history(a),
    }
}

#[derive(serde::Serialize)]
struct RunView {
    node: String,
    path: PathBuf,
    /// kept (held to the claims), other_version (an earlier experiment digest), bad.
    state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    problem: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    captured_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_uuid: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    driver: Option<String>,
    rows: Vec<RowView>,
}

#[derive(serde::Serialize)]
struct RowView {
    label: String,
    median_ms: Option<f64>,
    lo: Option<f64>,
    hi: Option<f64>,
    converged: Option<bool>,
}

fn run_history(args: &HistoryArgs) -> Result<()> {
    use crate::measure::history::{all_runs, node_dir, RunCheck, RunState};
    let config = Config::load(&args.root)?;
    let dir = Layout::new(&args.root).measurements().join(&args.id);
    if std::path::Path::new(&args.id).components().count() != 1 {
        bail!("`{}` is not an experiment name", args.id);
    }
    let exp = crate::measure::Experiment::load(&dir)?;
    let nodes: Vec<String> = match &args.node {
        Some(n) => {
            config.node(n)?;
            vec![n.clone()]
        }
        None => config
            .nodes
            .keys()
            .filter(|n| exp.record_path(n).is_file() || node_dir(&exp.records_dir(), n).is_dir())
            .cloned()
            .collect(),
    };
    if nodes.is_empty() {
        bail!("{} has no records on any node", args.id);
    }
    let entries = crate::content::load_content_collecting(&Layout::new(&args.root).content())
        .0
        .entries;
    let band = exp.spec.timing.tolerance();
    let roofed = exp.roofed();
    let mut views = Vec::new();
    let mut summaries = Vec::new();
    for node in &nodes {
        let profile = config.node(node)?;
        let trust = |bytes: &[u8],
                     sig: Option<&str>,
                     sig_path: &std::path::Path,
                     r: &crate::measure::Record| {
            crate::measure::library::run_trust(node, profile, bytes, sig, sig_path, r)
        };
        let check = RunCheck {
            experiment: &exp.id,
            node,
            spec_digest: &exp.digest,
            trust: &trust,
        };
        let runs = all_runs(&exp.records_dir(), &exp.record_path(node), &check)?;
        let kept: Vec<(String, &crate::measure::Record)> = runs
            .iter()
            .filter_map(|r| match &r.state {
                RunState::Kept(rec) => Some((r.name(), rec.as_ref())),
                _ => None,
            })
            .collect();
        summaries.push(crate::measure::units::unit_spread(node, &kept));
        // Share and bound claims read the node's peaks.
        let roofing = crate::measure::claims::Roofing {
            metrics: &roofed,
            node: profile,
        };
        summaries.extend(crate::measure::claims::on_runs(
            &entries, &exp.id, node, &kept, band, &roofing,
        ));
        for run in &runs {
            let (state, problem) = match &run.state {
                RunState::Kept(_) => ("kept", None),
                RunState::OtherVersion(_) => ("other_version", None),
                RunState::Bad(why) => ("bad", Some(why.clone())),
            };
            let r = run.record();
            views.push(RunView {
                node: node.clone(),
                path: run.path.clone(),
                state,
                problem,
                captured_at: r.map(|r| r.captured_at.to_rfc3339()),
                gpu_uuid: r.map(|r| r.gpu.uuid.clone()),
                driver: r.map(|r| r.gpu.driver_version.clone()),
                rows: r
                    .map(|r| {
                        r.configs
                            .iter()
                            .map(|c| {
                                let t = c.timing.as_ref();
                                let i = t.and_then(|t| t.interval.as_ref());
                                RowView {
                                    label: c.label.clone(),
                                    median_ms: t.map(|t| t.median_ms),
                                    lo: i.map(|i| i.lo),
                                    hi: i.map(|i| i.hi),
                                    converged: t.map(|t| t.converged),
                                }
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
            });
        }
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        let _ = writeln!(out, "{}", serde_json::to_string_pretty(&views)?);
        return Ok(());
    }
    for v in &views {
        let _ = writeln!(
            out,
            "{} {} [{}{}] GPU {} driver {} ({})",
            v.node,
            v.captured_at.as_deref().unwrap_or("?"),
            v.state,
            v.problem
                .as_deref()
                .map(|p| format!(": {p}"))
                .unwrap_or_default(),
            v.gpu_uuid.as_deref().unwrap_or("?"),
            v.driver.as_deref().unwrap_or("?"),
            v.path.display()
        );
        for r in &v.rows {
            let num = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.4}"));
            let _ = writeln!(
                out,
                "  {:<16} {:>10} [{}, {}]{}",
                r.label,
                num(r.median_ms),
                num(r.lo),
                num(r.hi),
                if r.converged == Some(false) {
                    "  not converged"
                } else {
                    ""
                }
            );
        }
    }
    for line in summaries.iter().flat_map(|s| s.lines()) {
        let _ = writeln!(out, "{line}");
    }
    Ok(())
}

fn run_import(args: &ImportArgs) -> Result<()> {
    let config = Config::load(&args.root)?;
    let layout = Layout::new(&args.root);
    let library = Library::load(&layout.measurements())?;
    let people = crate::trust::People::load(&layout.people())?;
    let report = if args.contributed.is_empty() {
        import(&config, &library, &people, &args.dirs, args.check)?
    } else {
        import_contributed(&config, &library, &people, &args.contributed, args.check)?
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        let _ = writeln!(out, "{}", serde_json::to_string_pretty(&report)?);
    } else {
        let verb = if args.check {
            "would import"
        } else {
            "imported"
        };
        for f in &report.files {
            match &f.verdict {
                Verdict::Imported { to } => {
                    let _ = writeln!(out, "{verb} {} -> {}", f.path.display(), to.display());
                }
                Verdict::Unchanged { at } => {
                    let _ = writeln!(
                        out,
                        "unchanged {} (the same record is at {})",
                        f.path.display(),
                        at.display()
                    );
                }
                Verdict::Refused { reasons } => {
                    let _ = writeln!(out, "refused {}:", f.path.display());
                    for r in reasons {
                        let _ = writeln!(out, "  {r}");
                    }
                }
            }
        }
        for w in &report.warnings {
            let _ = writeln!(out, "warning: {w}");
        }
    }
    if report.files.is_empty() {
        bail!(
            "no records under {}",
            args.dirs
                .iter()
                .chain(&args.contributed)
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if report.refused() > 0 {
        bail!(
            "{} record(s) refused, {} {}; the refused files were left where they were",
            report.refused(),
            report.imported(),
            if args.check {
                "would be imported"
            } else {
                "imported"
            }
        );
    }
    Ok(())
}
