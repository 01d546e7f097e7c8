//! `glossary verify plan` and `glossary verify submit`: the fleet's work list, and that
//! list handed to Slurm.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::config::{Config, Layout};
use crate::fleet::slurm::{self, Submission};
use crate::fleet::Plan;
use crate::measure::Library;

#[derive(clap::Subcommand, Debug)]
pub enum FleetCommand {
    /// Every (node, experiment) pair whose record is missing, stale or from the wrong GPU.
    Plan(PlanArgs),
    /// Hand the plan to a batch scheduler: one job array per node, a task per experiment.
    Submit(SubmitArgs),
    /// Give a node a new signing key: its current public_key moves to previous_keys with
    /// the time it was retired and the records it signed, so those runs stay trusted.
    RotateKey(super::rotate_key::RotateKeyArgs),
    /// List the records each of a node's previous keys signed (for keys retired before
    /// rotate-key kept that list): a retired key vouches for those and nothing new.
    SealRetired(super::rotate_key::SealRetiredArgs),
    /// On the GPU machine: read the GPU, make the node's key pair (the private half stays
    /// here) and add its [nodes.NAME] profile to glossary.toml (or print it).
    InitNode(super::init_node::InitNodeArgs),
}

#[derive(clap::Args, Debug)]
pub struct Selection {
    /// Only this node (repeatable); default: every node in glossary.toml.
    #[arg(long = "node", value_name = "NAME")]
    pub nodes: Vec<String>,
    /// Only this experiment (repeatable); default: every experiment under measurements/.
    #[arg(long = "only", value_name = "ID")]
    pub only: Vec<String>,
    /// The glossary project's root folder.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
}

#[derive(clap::Args, Debug)]
pub struct PlanArgs {
    #[command(flatten)]
    pub selection: Selection,
    /// Print the work list as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct SubmitArgs {
    #[command(flatten)]
    pub selection: Selection,
    /// Submit to Slurm with sbatch (the scheduler this command knows).
    #[arg(long, required = true)]
    pub slurm: bool,
    /// Print the job scripts; submit nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The folder tasks write to, one subfolder per node and experiment, visible from
    /// every node (default: fleet-runs/<time> under the project root).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// The glossary binary as the nodes see it (default: this one).
    #[arg(long, value_name = "PATH")]
    pub glossary: Option<PathBuf>,
    /// Tasks run `verify --dry-run`: check the node and compile, record nothing (a
    /// rehearsal of the whole path without spending GPU time).
    #[arg(long)]
    pub verify_dry_run: bool,
    /// Wait until every job array has finished; exit 1 if a task failed.
    #[arg(long)]
    pub wait: bool,
}

pub fn run(cmd: &FleetCommand) -> Result<()> {
    match cmd {
        FleetCommand::Plan(a) => plan(a),
        FleetCommand::Submit(a) => submit(a),
        FleetCommand::RotateKey(a) => super::rotate_key::run(a),
        FleetCommand::SealRetired(a) => super::rotate_key::seal_run(a),
        FleetCommand::InitNode(a) => super::init_node::run(a),
    }
}

/// The project's config and measurements, with the selection checked against them.
fn load(sel: &Selection) -> Result<(Config, Library, Plan)> {
    let config = Config::load(&sel.root)?;
    let library = Library::load(&Layout::new(&sel.root).measurements())?;
    let mut unknown = Vec::new();
    for n in &sel.nodes {
        if let Err(e) = config.node(n) {
            unknown.push(e.to_string());
        }
    }
    for id in &sel.only {
        if !library.experiments.contains_key(id) {
            unknown.push(format!(
                "no experiment `{id}` (measurements/ has: {})",
                library
                    .experiments
                    .keys()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    if !unknown.is_empty() {
        bail!("{}", unknown.join("; "));
    }
    let plan = Plan::make(&config, &library, &sel.nodes, &sel.only);
    Ok((config, library, plan))
}

fn plan(args: &PlanArgs) -> Result<()> {
    let (_, _, plan) = load(&args.selection)?;
    let mut out = std::io::stdout().lock();
    // A closed pipe (`| head`) is the reader's choice, not an error.
    if args.json {
        let _ = writeln!(out, "{}", serde_json::to_string_pretty(&plan)?);
        return Ok(());
    }
    if plan.work.is_empty() {
        let _ = writeln!(
            out,
            "nothing to measure: all {} (node, experiment) pairs are current",
            plan.current
        );
        return Ok(());
    }
    let _ = writeln!(
        out,
        "{} (node, experiment) pair(s) to measure, {} current:",
        plan.work.len(),
        plan.current
    );
    let nw = plan.work.iter().map(|w| w.node.len()).max().unwrap_or(0);
    let ew = plan
        .work
        .iter()
        .map(|w| w.experiment.len())
        .max()
        .unwrap_or(0);
    for w in &plan.work {
        let _ = writeln!(
            out,
            "  {:<nw$}  {:<ew$}  {}",
            w.node,
            w.experiment,
            w.reason.describe()
        );
    }
    Ok(())
}

fn absolute(p: &Path) -> Result<PathBuf> {
    std::path::absolute(p).with_context(|| format!("{}: cannot make it absolute", p.display()))
}

fn submit(args: &SubmitArgs) -> Result<()> {
    let (config, _, plan) = load(&args.selection)?;
    if plan.work.is_empty() {
        println!(
            "nothing to measure: all {} (node, experiment) pairs are current",
            plan.current
        );
        return Ok(());
    }
    let root = absolute(&args.selection.root)?;
    let out = match &args.out {
        Some(o) => absolute(o)?,
        None => root
            .join("fleet-runs")
            .join(chrono::Utc::now().format("%Y%m%dT%H%M%SZ").to_string()),
    };
    let glossary = match &args.glossary {
        Some(g) => absolute(g)?,
        None => {
            std::env::current_exe().context("cannot find this program's path; pass --glossary")?
        }
    };
    let sub = Submission {
        glossary,
        root: root.clone(),
        out: out.clone(),
        verify_dry_run: args.verify_dry_run,
    };
    let groups = plan.by_node();
    let jobs = slurm::scripts(&config, &root, &groups, &sub)?;
    if args.dry_run {
        for job in &jobs {
            println!(
                "# ---- {} (not submitted: --dry-run)",
                job.script_path(&sub).display()
            );
            for w in plan.work.iter().filter(|w| w.node == job.node) {
                println!("# {}: {}", w.experiment, w.reason.describe());
            }
            print!("{}", job.script);
        }
        return Ok(());
    }
    let submitted = slurm::submit(&jobs, &sub, args.wait)?;
    let mut failed = Vec::new();
    for s in &submitted {
        let state = match s.finished_ok {
            None => "submitted".to_string(),
            Some(true) => "finished".to_string(),
            Some(false) => {
                failed.push(s.node.clone());
                "finished with a failed task".to_string()
            }
        };
        println!(
            "node {}: job {} ({} task(s)) {state}; output in {}",
            s.node,
            s.job_id,
            s.tasks,
            out.join(&s.node).display()
        );
    }
    println!(
        "when the jobs have finished: glossary records import {}",
        out.display()
    );
    if !failed.is_empty() {
        bail!(
            "a task failed on node(s) {}: see the slurm-*.out files and verify.log under {}",
            failed.join(", "),
            out.display()
        );
    }
    Ok(())
}
