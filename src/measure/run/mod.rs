//! Running experiments on the GPU: find the device and check it is the node's (`gpu`,
//! `node`), compile (`compile`), check and time (`timed`, with `correctness`, `stats`,
//! `dial`, `clocks`) or sweep the occupancy API (`sweep`), read achieved occupancy through
//! Nsight Compute (`ncu`), and write records.

pub mod clocks;
pub mod compile;
pub mod correctness;
pub mod dial;
pub mod error;
pub mod gpu;
pub mod inputs;
pub mod ncu;
pub mod node;
pub mod stats;
pub mod sweep;
pub mod timed;

use std::path::{Path, PathBuf};

use chrono::Utc;
use serde::Serialize;
use serde_json::json;

pub use error::RunError;

use crate::config::{Config, Layout};
use crate::measure::record::{ConfigRecord, ConfigStatus, Problem, Record, RECORD_SCHEMA};
use crate::measure::spec::{Experiment, Measure, EXPERIMENT_FILE};

/// What `glossary verify` was asked to do.
#[derive(Debug, Clone)]
pub struct VerifyRequest {
    pub root: PathBuf,
    pub node: String,
    pub only: Option<String>,
    /// Check, compile and resolve configurations; time nothing, write nothing.
    pub dry_run: bool,
    /// Read achieved occupancy under ncu when it is installed.
    pub achieved_occupancy: bool,
    /// The hidden mode ncu watches: launch each configuration once, nothing else.
    pub launch_once: bool,
    /// Write records to `<out>/<experiment>/<node>.json` instead of `measurements/`:
    /// a scheduler's task output, which `glossary records import` checks and moves in.
    pub out: Option<PathBuf>,
}

impl VerifyRequest {
    /// Where this run writes the record of `exp`.
    pub fn record_path(&self, exp: &Experiment) -> PathBuf {
        match &self.out {
            Some(out) => out.join(&exp.id).join(format!("{}.json", self.node)),
            None => exp.record_path(&self.node),
        }
    }
}

/// How one experiment went.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case", tag = "outcome")]
pub enum Outcome {
    Written {
        record: PathBuf,
        configs: Vec<ConfigSummary>,
        points: Option<usize>,
        notes: Vec<String>,
    },
    Planned {
        configs: Vec<ConfigSummary>,
        notes: Vec<String>,
    },
    /// The run failed as a whole: nothing was written, the previous record stands.
    Failed { error: String },
}

#[derive(Debug, Clone, Serialize)]
pub struct ConfigSummary {
    pub label: String,
    pub passed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub registers: Option<u32>,
    pub smem_reserved: Option<u32>,
    pub blocks_per_sm: Option<u32>,
    pub occupancy: Option<f64>,
    pub achieved_occupancy: Option<f64>,
    pub loads_in_flight: Option<u32>,
    pub median_ms: Option<f64>,
    pub gbps: Option<f64>,
    pub rsd: Option<f64>,
    pub converged: Option<bool>,
}

impl ConfigSummary {
    fn of(c: &ConfigRecord) -> ConfigSummary {
        let t = c.timing.as_ref();
        let (passed, reason) = match &c.status {
            ConfigStatus::Passed => (true, None),
            ConfigStatus::Failed { reason } => (false, Some(reason.clone())),
        };
        ConfigSummary {
            label: c.label.clone(),
            passed,
            reason,
            registers: Some(c.registers),
            smem_reserved: Some(c.smem_reserved),
            blocks_per_sm: Some(c.blocks_per_sm),
            occupancy: Some(c.occupancy),
            achieved_occupancy: c.achieved_occupancy,
            loads_in_flight: Some(c.loads_in_flight),
            median_ms: t.map(|t| t.median_ms),
            gbps: t.map(|t| t.gbps),
            rsd: t.map(|t| t.rsd),
            converged: t.map(|t| t.converged),
        }
    }

    fn planned(label: &str) -> ConfigSummary {
        ConfigSummary {
            label: label.into(),
            passed: true,
            reason: None,
            registers: None,
            smem_reserved: None,
            blocks_per_sm: None,
            occupancy: None,
            achieved_occupancy: None,
            loads_in_flight: None,
            median_ms: None,
            gbps: None,
            rsd: None,
            converged: None,
        }
    }
}

/// The report of a whole verify run.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub node: String,
    pub gpu: Option<String>,
    pub experiments: Vec<(String, Outcome)>,
}

impl Report {
    /// True when every experiment ran and every configuration passed its check.
    pub fn all_passed(&self) -> bool {
        self.experiments.iter().all(|(_, o)| match o {
            Outcome::Failed { .. } => false,
            Outcome::Written { configs, .. } | Outcome::Planned { configs, .. } => {
                configs.iter().all(|c| c.passed)
            }
        })
    }
}

/// The experiments under `measurements/`, all or the one asked for.
pub fn select_experiments(root: &Path, only: Option<&str>) -> crate::Result<Vec<Experiment>> {
    let dir = Layout::new(root).measurements();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| crate::Error::io(&dir, e))?
        .filter_map(|d| d.ok().map(|d| d.path()))
        .filter(|p| p.join(EXPERIMENT_FILE).is_file())
        .collect();
    dirs.sort();
    if let Some(id) = only {
        dirs.retain(|d| d.file_name().and_then(|s| s.to_str()) == Some(id));
        if dirs.is_empty() {
            return Err(crate::Error::Other(format!(
                "no experiment `{id}` (no {}/{id}/{EXPERIMENT_FILE})",
                dir.display()
            )));
        }
    }
    let mut experiments = Vec::new();
    let mut errors = Vec::new();
    for d in dirs {
        match Experiment::load(&d) {
            Ok(e) => experiments.push(e),
            Err(e) => errors.push(e),
        }
    }
    crate::Error::collect(errors)?;
    Ok(experiments)
}

/// Run `verify`. `progress` is advanced once per configuration (or sweep variant).
pub fn verify(req: &VerifyRequest, progress: &indicatif::ProgressBar) -> Result<Report, RunError> {
    let config = Config::load(&req.root)?;
    let profile = config.node(&req.node)?.clone();
    let experiments = select_experiments(&req.root, req.only.as_deref())?;
    let mut report = Report {
        node: req.node.clone(),
        gpu: None,
        experiments: Vec::new(),
    };
    if req.dry_run && !gpu::driver_present() {
        for e in &experiments {
            report.experiments.push((e.id.clone(), plan_only(e)));
        }
        return Ok(report);
    }
    let gpu = gpu::Gpu::open()?;
    node::check_node(
        &gpu.info.name,
        &gpu.info.compute_capability,
        &req.node,
        &profile,
    )?;
    report.gpu = Some(format!("{} ({})", gpu.info.name, gpu.info.uuid));
    progress.set_length(
        experiments
            .iter()
            .map(|e| match &e.spec.measure {
                Measure::Timed(t) => t.configs.len() as u64,
                Measure::OccupancySweep(s) => s.registers.len() as u64,
            })
            .sum(),
    );
    let clocks = if req.dry_run || req.launch_once {
        None
    } else {
        clocks::ClockMonitor::start(&gpu.info.uuid)
    };
    for exp in &experiments {
        progress.set_message(exp.id.clone());
        let outcome = match run_one(req, &gpu, exp, clocks.as_ref(), progress) {
            Ok(o) => o,
            Err(e) => Outcome::Failed {
                error: e.to_string(),
            },
        };
        report.experiments.push((exp.id.clone(), outcome));
    }
    Ok(report)
}

fn plan_only(e: &Experiment) -> Outcome {
    let configs = match &e.spec.measure {
        Measure::Timed(t) => t
            .configs
            .iter()
            .map(|c| ConfigSummary::planned(&c.label))
            .collect(),
        Measure::OccupancySweep(_) => Vec::new(),
    };
    Outcome::Planned {
        configs,
        notes: vec![
            "no CUDA driver on this machine: experiment parsed and validated; GPU checks skipped"
                .into(),
        ],
    }
}

fn run_one(
    req: &VerifyRequest,
    gpu: &gpu::Gpu,
    exp: &Experiment,
    clocks: Option<&clocks::ClockMonitor>,
    progress: &indicatif::ProgressBar,
) -> Result<Outcome, RunError> {
    let file = exp.path();
    let source = exp.kernel_source()?;
    let mut tick = |what: &str| {
        progress.inc(1);
        progress.set_message(format!("{}: {what}", exp.id));
    };
    let record_base = |compile_options: Vec<String>| Record {
        schema: RECORD_SCHEMA,
        experiment: exp.id.clone(),
        node: req.node.clone(),
        spec_digest: exp.digest.clone(),
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        captured_at: Utc::now(),
        gpu: gpu.info.clone(),
        compile_options,
        problem: Problem::default(),
        configs: Vec::new(),
        extra: serde_json::Value::Null,
    };
    match &exp.spec.measure {
        Measure::Timed(spec) => {
            let options = compile::options_for(&exp.spec.compile_options, &gpu.arch, &[]);
            let compiled = compile::compile(gpu, &file, &source, options)?;
            let prepared = timed::prepare(gpu, &file, spec, &compiled)?;
            if req.launch_once {
                timed::launch_once(gpu, spec, &prepared)?;
                return Ok(Outcome::Planned {
                    configs: prepared
                        .iter()
                        .map(|p| ConfigSummary::of(&p.record))
                        .collect(),
                    notes: vec!["launched each configuration once".into()],
                });
            }
            if req.dry_run {
                for p in &prepared {
                    tick(&p.spec.label);
                }
                return Ok(Outcome::Planned {
                    configs: prepared
                        .iter()
                        .map(|p| ConfigSummary::of(&p.record))
                        .collect(),
                    notes: vec![format!("compiled with {}", compiled.options.join(" "))],
                });
            }
            let mut configs = timed::run(gpu, spec, prepared, clocks, &mut tick)?;
            let mut notes = Vec::new();
            let achieved_source = if !req.achieved_occupancy {
                "not measured (--no-ncu)".to_string()
            } else if !ncu::available() {
                "not measured: ncu is not installed on this node".to_string()
            } else {
                progress.set_message(format!("{}: achieved occupancy under ncu", exp.id));
                match achieved_under_ncu(req, exp, &mut configs) {
                    Ok(()) => format!("ncu --clock-control none, metric {}", ncu::ACHIEVED_METRIC),
                    Err(e) => {
                        notes.push(format!("achieved occupancy not recorded: {e}"));
                        format!("not measured: {e}")
                    }
                }
            };
            let mut record = record_base(compiled.options.clone());
            record.problem = Problem {
                elements: spec.elements,
                bytes_per_launch: spec.elements * spec.bytes_per_element,
            };
            record.configs = configs;
            record.extra = json!({
                "workload": spec.workload,
                "axpy_a": timed::AXPY_A,
                "seed": spec.seed,
                "timing_policy": spec.timing,
                "carveout_percent": spec.carveout_percent,
                "l2_flush_bytes": spec.timing.flush_l2.then(|| 2 * gpu.info.l2_bytes.unwrap_or(64 << 20)),
                "sm_clock_source": if clocks.is_some() { "nvidia-smi --query-gpu=clocks.sm -lms 50 (read only)" } else { "not available" },
                "throttle_rule": format!("a sample is throttled when its batch saw the SM clock under {:.0}% of the driver's maximum", clocks::THROTTLE_FRACTION * 100.0),
                "achieved_occupancy_source": achieved_source,
                "device_limits": gpu.limits,
            });
            let path = req.record_path(exp);
            record.write_atomic(&path)?;
            Ok(Outcome::Written {
                record: path,
                configs: record.configs.iter().map(ConfigSummary::of).collect(),
                points: None,
                notes,
            })
        }
        Measure::OccupancySweep(spec) => {
            if req.launch_once {
                return Ok(Outcome::Planned {
                    configs: Vec::new(),
                    notes: vec!["an occupancy sweep launches nothing".into()],
                });
            }
            if req.dry_run {
                return Ok(Outcome::Planned {
                    configs: Vec::new(),
                    notes: vec![format!(
                        "would ask the driver {} times",
                        spec.registers.len() * spec.block_sizes.len() * spec.dynamic_smem.len()
                    )],
                });
            }
            let result = sweep::run(
                gpu,
                &file,
                &source,
                &exp.spec.compile_options,
                spec,
                &mut tick,
            )?;
            let points = result.points.len();
            let mut record = record_base(compile::options_for(
                &exp.spec.compile_options,
                &gpu.arch,
                &["--maxrregcount=<registers requested>".into()],
            ));
            record.extra =
                serde_json::to_value(&result).map_err(|e| RunError::Other(e.to_string()))?;
            let path = req.record_path(exp);
            record.write_atomic(&path)?;
            Ok(Outcome::Written {
                record: path,
                configs: Vec::new(),
                points: Some(points),
                notes: Vec::new(),
            })
        }
    }
}

/// Fill `achieved_occupancy` from an ncu pass over the same configurations, matched by
/// launch order and checked by kernel name.
fn achieved_under_ncu(
    req: &VerifyRequest,
    exp: &Experiment,
    configs: &mut [ConfigRecord],
) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let rows = ncu::achieved_occupancy(&exe, &req.root, &req.node, &exp.id)?;
    if rows.len() != configs.len() {
        return Err(format!(
            "ncu profiled {} launches for {} configurations",
            rows.len(),
            configs.len()
        ));
    }
    for (c, (kernel, _)) in configs.iter().zip(&rows) {
        if !kernel.starts_with(&c.kernel) {
            return Err(format!(
                "ncu launch order mismatch: expected {}, found {kernel}",
                c.kernel
            ));
        }
    }
    for (c, (_, v)) in configs.iter_mut().zip(rows) {
        c.achieved_occupancy = Some(v);
    }
    Ok(())
}
