use std::path::PathBuf;

use anyhow::{bail, Result};
use indicatif::{ProgressBar, ProgressStyle};

use crate::measure::run::{verify, ConfigSummary, Outcome, VerifyRequest};

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct VerifyArgs {
    /// Across the fleet: plan the work, or submit it to a scheduler.
    #[command(subcommand)]
    pub fleet: Option<super::fleet::FleetCommand>,
    /// The verification node this machine must be (a name under [nodes] in glossary.toml).
    #[arg(long, required = true)]
    pub node: Option<String>,
    /// Run only these experiments (folder names under measurements/): repeat the flag or
    /// give a comma-separated list.
    #[arg(long = "only", value_name = "ID", value_delimiter = ',')]
    pub only: Vec<String>,
    /// Time and write nothing. On a GPU machine: check the node, compile with NVRTC and
    /// resolve every configuration. Without a GPU: plan every configuration with the node's
    /// profile and check each launch against the kernel sources, and, where NVRTC is
    /// installed (on LD_LIBRARY_PATH: tests/nvrtc/install.sh), compile the kernels for the
    /// node's architecture.
    #[arg(long)]
    pub dry_run: bool,
    /// Print a machine-readable summary on stdout.
    #[arg(long)]
    pub json: bool,
    /// The glossary project's root folder.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Do not run the ncu pass (achieved occupancy and the experiments' ncu metrics).
    #[arg(long)]
    pub no_ncu: bool,
    /// The node's private SSH key, which signs every record written (default: the `key`
    /// path under the node's profile in glossary.toml).
    #[arg(long)]
    pub key: Option<PathBuf>,
    /// When some configs fail their check, still write the passing rows, marked partial
    /// (verify still exits 1).
    #[arg(long)]
    pub allow_partial: bool,
    /// Launch each configuration once and exit: the pass ncu profiles.
    #[arg(long, hide = true)]
    pub launch_once: bool,
    /// Write records to OUT/<experiment>/<node>.json instead of measurements/ (a
    /// scheduler task's output; `glossary records import` checks and moves them in).
    #[arg(long, value_name = "OUT")]
    pub out: Option<PathBuf>,
}

pub fn run(args: &VerifyArgs) -> Result<()> {
    if let Some(fleet) = &args.fleet {
        return super::fleet::run(fleet);
    }
    let Some(node) = &args.node else {
        bail!("verify needs --node NAME (or a subcommand: plan, submit)");
    };
    let req = VerifyRequest {
        root: args.root.clone(),
        node: node.clone(),
        only: args.only.clone(),
        dry_run: args.dry_run,
        ncu: !args.no_ncu,
        launch_once: args.launch_once,
        key: args.key.clone(),
        allow_partial: args.allow_partial,
        out: args.out.clone(),
    };
    let bar = if args.launch_once {
        ProgressBar::hidden()
    } else {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template("{elapsed:>4} [{bar:30}] {pos}/{len} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar
    };
    let report = verify(&req, &bar)?;
    bar.finish_and_clear();
    if args.launch_once {
        return Ok(());
    }
    if args.json {
        use std::io::Write;
        // A closed pipe (`| head`) is the reader's choice, not an error worth a panic.
        let _ = writeln!(
            std::io::stdout(),
            "{}",
            serde_json::to_string_pretty(&report)?
        );
    } else {
        if let Some(gpu) = &report.gpu {
            println!("node {}: {gpu}", report.node);
        }
        for (id, outcome) in &report.experiments {
            print_outcome(id, outcome);
        }
        for n in &report.notes {
            println!("note: {n}");
        }
    }
    if !report.all_passed() {
        bail!("verify did not pass: see the failures above");
    }
    Ok(())
}

fn print_outcome(id: &str, outcome: &Outcome) {
    let (configs, notes) = match outcome {
        Outcome::Failed {
            error,
            failed_record,
            configs,
        } => {
            println!("{id}: FAILED, record not replaced: {error}");
            if let Some(f) = failed_record {
                println!("  what failed: {}", f.display());
            }
            (configs, &Vec::new())
        }
        Outcome::Written {
            record,
            configs,
            partial,
            notes,
        } => {
            println!(
                "{id}: {} configs -> {}{}",
                configs.len(),
                record.display(),
                if *partial { " (PARTIAL)" } else { "" }
            );
            (configs, notes)
        }
        Outcome::Planned {
            axes,
            configs,
            notes,
        } => {
            print_planned(id, axes, configs);
            for n in notes {
                println!("  note: {n}");
            }
            return;
        }
    };
    print_configs(configs);
    for n in notes {
        println!("  note: {n}");
    }
}

/// A dry run's experiment in a line or two: how many configs and from which axes, a few
/// labels, and (where the driver was asked) the range of registers and occupancy.
fn print_planned(id: &str, axes: &[(String, usize)], configs: &[ConfigSummary]) {
    let failed = configs.iter().filter(|c| !c.passed).count();
    println!(
        "{id}: dry run, {}{}{}",
        plural(configs.len(), "config"),
        {
            // The product of the axes, then the configs listed one by one.
            let product: usize = if axes.is_empty() {
                0
            } else {
                axes.iter().map(|a| a.1).product()
            };
            let listed = configs.len().saturating_sub(product);
            let parts: Vec<String> = axes.iter().map(|(k, n)| format!("{k} {n}")).collect();
            match (axes.is_empty(), listed) {
                (true, _) => String::new(),
                (false, 0) => format!(" (axes {})", parts.join(" x ")),
                (false, n) => format!(" (axes {}, and {n} listed)", parts.join(" x ")),
            }
        },
        if failed > 0 {
            format!(", {failed} not launchable")
        } else {
            String::new()
        }
    );
    let labels: Vec<&str> = configs.iter().map(|c| c.label.as_str()).collect();
    let mut line = format!("  {}", some_of(&labels));
    let range = |v: Vec<f64>| {
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (!v.is_empty()).then_some((lo, hi))
    };
    if let Some((lo, hi)) = range(
        configs
            .iter()
            .filter_map(|c| c.registers)
            .map(f64::from)
            .collect(),
    ) {
        line.push_str(&format!("; registers {lo}..{hi}"));
    }
    if let Some((lo, hi)) = range(configs.iter().filter_map(|c| c.occupancy).collect()) {
        line.push_str(&format!(
            "; occupancy {:.1}%..{:.1}%",
            lo * 100.0,
            hi * 100.0
        ));
    }
    println!("{line}");
}

/// Up to eight labels in full; more as the first four, an ellipsis and the last.
fn some_of(labels: &[&str]) -> String {
    if labels.len() <= 8 {
        return labels.join(", ");
    }
    format!(
        "{}, ... {} ({} labels)",
        labels[..4].join(", "),
        labels[labels.len() - 1],
        labels.len()
    )
}

fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

fn print_configs(configs: &[crate::measure::run::ConfigSummary]) {
    let pct = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{:.1}%", v * 100.0));
    let num = |v: Option<f64>, d: usize| v.map_or("-".to_string(), |v| format!("{v:.d$}"));
    if configs.iter().all(|c| c.registers.is_none()) {
        if !configs.is_empty() {
            let labels: Vec<&str> = configs.iter().map(|c| c.label.as_str()).collect();
            println!("  configs: {}", labels.join(", "));
        }
        return;
    }
    // A long sweep prints its first and last rows.
    let shown: Vec<&crate::measure::run::ConfigSummary> = if configs.len() > 40 {
        configs
            .iter()
            .take(20)
            .chain(configs.iter().skip(configs.len() - 5))
            .collect()
    } else {
        configs.iter().collect()
    };
    println!(
        "  {:<12} {:>5} {:>8} {:>7} {:>9} {:>9} {:>10} {:>6} {:>16}  quantities",
        "label",
        "regs",
        "smem",
        "blk/SM",
        "occupancy",
        "achieved",
        "median ms",
        "rsd",
        "SM clock seen"
    );
    for c in shown {
        if let (false, Some(reason)) = (c.passed, &c.reason) {
            println!("  {:<12} FAILED: {reason}", c.label);
            continue;
        }
        let q: Vec<String> = c
            .quantities
            .iter()
            .map(|(k, v)| format!("{k}={}", v.map_or("-".into(), |v| format!("{v:.4}"))))
            .collect();
        println!(
            "  {:<12} {:>5} {:>8} {:>7} {:>9} {:>9} {:>10} {:>6} {:>16}  {}{}",
            c.label,
            c.registers.map_or("-".into(), |v| v.to_string()),
            c.smem_reserved.map_or("-".into(), |v| v.to_string()),
            c.blocks_per_sm.map_or("-".into(), |v| v.to_string()),
            pct(c.occupancy),
            pct(c.achieved_occupancy),
            num(c.median_ms, 4),
            pct(c.rsd),
            c.clock_seen(),
            q.join(" "),
            c.reason
                .as_deref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default(),
        );
    }
    if configs.len() > 40 {
        println!("  ... {} configs in all", configs.len());
    }
}
