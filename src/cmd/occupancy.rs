//! `glossary occupancy`: compute a launch's occupancy, or read it back from
//! an Nsight Compute export, and print the interpretation.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use serde::Serialize;

use crate::occupancy::arch::{Arch, KnownGpu};
use crate::occupancy::interpret::{interpret, Finding, Reading};
use crate::occupancy::model::{compute, BlockLimits, Carveout, Launch, Occupancy, Resource};
use crate::occupancy::ncu::{read_ncu_csv, ModelComparison, NcuLaunch};

/// Arguments of the `occupancy` subcommand.
#[derive(Debug, Clone, clap::Args)]
pub struct OccupancyArgs {
    /// Target architecture: sm_75, sm_80, sm_86, sm_89, sm_90, sm_100, sm_120 (or "9.0").
    #[arg(long, required_unless_present = "from_ncu")]
    pub arch: Option<String>,
    /// Threads per block.
    #[arg(long, required_unless_present = "from_ncu")]
    pub block: Option<u32>,
    /// Registers per thread (from `nvcc -Xptxas -v` or `cuobjdump --dump-resource-usage`).
    #[arg(long, required_unless_present = "from_ncu")]
    pub regs: Option<u32>,
    /// Dynamic shared memory per block, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 0)]
    pub smem: u64,
    /// Static (`__shared__`) shared memory per block, in bytes.
    #[arg(long = "static-smem", value_name = "BYTES", default_value_t = 0)]
    pub static_smem: u64,
    /// Blocks in the grid; needed for waves.
    #[arg(long, value_name = "N")]
    pub grid: Option<u64>,
    /// SM count of the GPU; defaults to the architecture's reference GPU when --grid is given.
    #[arg(long, value_name = "N")]
    pub sms: Option<u32>,
    /// Preferred shared memory carveout, percent of the largest split.
    #[arg(long, value_name = "PCT")]
    pub carveout: Option<u32>,
    /// Named barriers per block.
    #[arg(long, default_value_t = 1)]
    pub barriers: u32,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Read launches from an `ncu --csv --page details` export instead.
    #[arg(
        long = "from-ncu",
        value_name = "FILE",
        conflicts_with_all = ["arch", "block", "regs", "smem", "static_smem", "grid", "sms", "carveout"]
    )]
    pub from_ncu: Option<PathBuf>,
}

/// Runs the subcommand, writing to stdout.
pub fn run(args: &OccupancyArgs) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    write_report(args, &mut out)
}

/// Runs the subcommand, writing to `out`.
pub fn write_report(args: &OccupancyArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    match &args.from_ncu {
        Some(path) => ncu_report(path, args.json, out),
        None => launch_report(args, out),
    }
}

/// Where the SM count used for waves came from.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
enum SmCountSource {
    Given,
    Assumed {
        gpu: &'static str,
        source: &'static str,
    },
}

#[derive(Serialize)]
struct LaunchReport<'a> {
    #[serde(flatten)]
    occupancy: &'a Occupancy,
    sm_count_source: Option<SmCountSource>,
    findings: Vec<Finding>,
}

fn launch_report(args: &OccupancyArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    // clap enforces these unless --from-ncu is given; this guards callers
    // that build OccupancyArgs by hand.
    let arch_text = args.arch.as_deref().context("--arch is required")?;
    let block = args.block.context("--block is required")?;
    let regs = args.regs.context("--regs is required")?;
    let arch: Arch = arch_text.parse()?;

    let mut launch = Launch::new(block, regs)
        .with_dynamic_shared_memory(args.smem)
        .with_static_shared_memory(args.static_smem)
        .with_barriers(args.barriers);
    if let Some(pct) = args.carveout {
        launch = launch.with_carveout(Carveout::Percent(pct));
    }
    if let Some(grid) = args.grid {
        launch = launch.with_grid(grid);
    }
    let (sm_count, sm_count_source) = match (args.sms, args.grid) {
        (Some(sms), _) => (Some(sms), Some(SmCountSource::Given)),
        (None, Some(_)) => {
            let gpu: &KnownGpu = arch.reference_gpu();
            (
                Some(gpu.sm_count),
                Some(SmCountSource::Assumed {
                    gpu: gpu.name,
                    source: gpu.source,
                }),
            )
        }
        (None, None) => (None, None),
    };
    let occ = compute(arch, &launch, sm_count)?;
    let findings = interpret(&Reading::from(&occ));

    if args.json {
        let report = LaunchReport {
            occupancy: &occ,
            sm_count_source,
            findings,
        };
        serde_json::to_writer_pretty(&mut *out, &report)?;
        writeln!(out)?;
        return Ok(());
    }

    writeln!(
        out,
        "{arch}: {} threads/block ({} warps), {} registers/thread, {} B static + {} B dynamic shared memory",
        occ.block_size, occ.warps_per_block, occ.registers_per_thread, args.static_smem, args.smem
    )?;
    writeln!(
        out,
        "  allocated per block: {} registers, {} B shared memory (with the driver's reservation); \
         shared memory split assumed: {} KiB per SM",
        occ.registers_per_block,
        occ.shared_memory_per_block,
        occ.shared_memory_per_sm / 1024
    )?;
    writeln!(out)?;
    write_limits_table(out, |r| occ.limits.get(r), occ.binding, &occ.tied)?;
    writeln!(out)?;
    writeln!(
        out,
        "Resident per SM: {} blocks, {} of {} warps -> theoretical occupancy {:.1}%",
        occ.blocks_per_sm,
        occ.warps_per_sm,
        occ.max_warps_per_sm,
        occ.occupancy * 100.0
    )?;
    match (occ.waves, occ.last_wave_fill, sm_count_source) {
        (Some(waves), Some(fill), Some(source)) => {
            let whose = match source {
                SmCountSource::Given => String::new(),
                SmCountSource::Assumed { gpu, .. } => {
                    format!(", assuming {gpu}; pass --sms for another part")
                }
            };
            writeln!(
                out,
                "Waves: {waves:.2} on {} SMs{whose}; last wave {:.0}% full",
                occ.sm_count.unwrap_or_default(),
                fill * 100.0
            )?;
        }
        _ => writeln!(out, "Waves: not computed (give --grid)")?,
    }
    writeln!(out)?;
    write_findings(out, &findings)?;
    Ok(())
}

fn write_limits_table(
    out: &mut dyn Write,
    limit: impl Fn(Resource) -> Option<u32>,
    binding: Resource,
    tied: &[Resource],
) -> std::io::Result<()> {
    writeln!(out, "  {:<15} {:>10}", "resource", "blocks/SM")?;
    for resource in Resource::ALL {
        let value = limit(resource).map_or_else(|| "no limit".to_string(), |v| v.to_string());
        let mark = if resource == binding {
            "  <- binding"
        } else if tied.contains(&resource) {
            "  (tied)"
        } else {
            ""
        };
        writeln!(out, "  {:<15} {:>10}{mark}", resource.label(), value)?;
    }
    Ok(())
}

fn write_findings(out: &mut dyn Write, findings: &[Finding]) -> std::io::Result<()> {
    writeln!(out, "Interpretation:")?;
    for f in findings {
        writeln!(out, "  - {}", f.message)?;
    }
    Ok(())
}

#[derive(Serialize)]
struct NcuKernelReport<'a> {
    #[serde(flatten)]
    launch: &'a NcuLaunch,
    blocks_per_sm: u32,
    binding: Resource,
    tied: Vec<Resource>,
    model_check: ModelComparison,
    findings: Vec<Finding>,
}

#[derive(Serialize)]
struct NcuReport<'a> {
    source: &'a str,
    kernels: Vec<NcuKernelReport<'a>>,
    skipped: &'a [crate::occupancy::ncu::SkippedLaunch],
}

fn ncu_report(path: &std::path::Path, json: bool, out: &mut dyn Write) -> anyhow::Result<()> {
    let export = read_ncu_csv(path)?;
    let kernels: Vec<NcuKernelReport> = export
        .launches
        .iter()
        .map(|launch| {
            let reading = launch.reading();
            NcuKernelReport {
                launch,
                blocks_per_sm: launch.blocks_per_sm(),
                binding: reading.binding,
                tied: reading.tied.clone(),
                model_check: launch.compare_with_model(),
                findings: interpret(&reading),
            }
        })
        .collect();

    if json {
        let report = NcuReport {
            source: &export.source,
            kernels,
            skipped: &export.skipped,
        };
        serde_json::to_writer_pretty(&mut *out, &report)?;
        writeln!(out)?;
        return Ok(());
    }

    writeln!(
        out,
        "{}: {} profiled launch(es)",
        export.source,
        kernels.len()
    )?;
    for k in &kernels {
        let l = k.launch;
        writeln!(out)?;
        writeln!(out, "Launch {} (line {}): {}", l.id, l.line, l.kernel_name)?;
        writeln!(
            out,
            "  block {}, grid {}, {} registers/thread, CC {}",
            l.block_size,
            l.grid_size,
            l.registers_per_thread,
            l.compute_capability.as_deref().unwrap_or("?")
        )?;
        let limits = BlockLimits::from(l.limits);
        write_limits_table(out, |r| limits.get(r), k.binding, &k.tied)?;
        let achieved = l.achieved_occupancy.map_or_else(
            || "not in export".to_string(),
            |a| format!("{:.1}%", a * 100.0),
        );
        writeln!(
            out,
            "  theoretical {:.1}%, achieved {achieved}, {} blocks/SM",
            l.theoretical_occupancy * 100.0,
            k.blocks_per_sm
        )?;
        match (
            &k.model_check.skipped_because,
            k.model_check.differences.is_empty(),
        ) {
            (Some(why), _) => writeln!(out, "  model check: not run ({why})")?,
            (None, true) => writeln!(out, "  model check: the model reproduces these limits")?,
            (None, false) => writeln!(
                out,
                "  model check: differs ({})",
                k.model_check.differences.join("; ")
            )?,
        }
        write_findings(out, &k.findings)?;
    }
    for s in &export.skipped {
        writeln!(out)?;
        writeln!(
            out,
            "Launch {} (line {}): {}: skipped, {}",
            s.id, s.line, s.kernel_name, s.reason
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct TestCli {
        #[command(flatten)]
        args: OccupancyArgs,
    }

    fn run(argv: &[&str]) -> anyhow::Result<String> {
        let cli =
            TestCli::try_parse_from(std::iter::once("occupancy").chain(argv.iter().copied()))?;
        let mut out = Vec::new();
        write_report(&cli.args, &mut out)?;
        Ok(String::from_utf8(out)?)
    }

    #[test]
    fn json_has_the_documented_top_level_keys() {
        let text = run(&[
            "--arch", "sm_90", "--block", "256", "--regs", "64", "--json",
        ])
        .unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["blocks_per_sm"], 4);
        assert_eq!(v["warps_per_sm"], 32);
        assert_eq!(v["occupancy"], 0.5);
        assert_eq!(v["binding"], "registers");
        assert!(v["waves"].is_null());
        for key in ["registers", "shared_memory", "warps", "blocks", "barriers"] {
            assert!(v["limits"].get(key).is_some(), "limits.{key}");
        }
        assert_eq!(v["limits"]["registers"], 4);
        assert_eq!(v["arch"], "sm_90");
    }

    #[test]
    fn grid_without_sms_assumes_the_reference_gpu() {
        let text = run(&[
            "--arch", "sm_90", "--block", "256", "--regs", "32", "--grid", "65536", "--json",
        ])
        .unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["sm_count"], 132);
        assert_eq!(v["sm_count_source"]["gpu"], "NVIDIA H200");
        assert!((v["waves"].as_f64().unwrap() - 62.06).abs() < 0.01);
    }

    #[test]
    fn text_output_marks_the_binding_resource_and_interprets() {
        let text = run(&[
            "--arch", "sm_90", "--block", "128", "--regs", "32", "--smem", "49152", "--grid",
            "100", "--sms", "132",
        ])
        .unwrap();
        assert!(
            text.contains("shared memory") && text.contains("<- binding"),
            "{text}"
        );
        assert!(text.contains("theoretical occupancy 25.0%"), "{text}");
        assert!(text.contains("Interpretation:"), "{text}");
        assert!(text.contains("0.19 waves"), "{text}");
    }

    #[test]
    fn invalid_launch_is_an_error_not_a_panic() {
        let err = run(&["--arch", "sm_90", "--block", "2048", "--regs", "32"]).unwrap_err();
        assert!(err.to_string().contains("2048"), "{err}");
        let err = run(&["--arch", "sm_42", "--block", "256", "--regs", "32"]).unwrap_err();
        assert!(err.to_string().contains("sm_42"), "{err}");
        assert!(
            run(&["--block", "256"]).is_err(),
            "--arch and --regs are required"
        );
    }

    #[test]
    fn from_ncu_reads_the_recorded_h200_export() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/occupancy/testdata/h200_ncu_details.csv"
        );
        let text = run(&["--from-ncu", path]).unwrap();
        assert!(text.contains("4 profiled launch(es)"), "{text}");
        assert!(text.contains("reg_heavy"), "{text}");
        assert!(!text.contains("model check: differs"), "{text}");

        let json = run(&["--from-ncu", path, "--json"]).unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let kernels = v["kernels"].as_array().unwrap();
        assert_eq!(kernels.len(), 4);
        assert_eq!(kernels[1]["binding"], "shared_memory");
        assert_eq!(kernels[3]["binding"], "registers");
        let verdicts: Vec<&str> = kernels[2]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["verdict"].as_str().unwrap())
            .collect();
        assert!(verdicts.contains(&"not_warp_multiple"), "{verdicts:?}");
        assert!(verdicts.contains(&"underfilled"), "{verdicts:?}");
        assert!(verdicts.contains(&"large_gap"), "{verdicts:?}");
    }

    #[test]
    fn from_ncu_conflicts_with_launch_flags() {
        assert!(run(&["--from-ncu", "x.csv", "--arch", "sm_90"]).is_err());
    }
}
