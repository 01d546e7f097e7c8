//! Running experiments on the GPU: find the device and check it is the node's (`gpu`,
//! `node`); plan every configuration (`spec::plan`), check kernel signatures, compile and
//! resolve every launch against the driver (`prepare`) for every experiment before any
//! runs; then check against the reference and time (`timed`, with `buffers`,
//! `correctness`, `stats`, `dial`, `clocks`), read ncu metrics in one pass (`ncu`),
//! derive metrics (`metrics`) and write records (`write_outcome`, the one writer).

pub mod buffers;
pub mod clocks;
pub mod compile;
pub mod correctness;
pub mod dial;
pub mod error;
pub mod gpu;
pub mod inputs;
pub mod metrics;
pub mod ncu;
pub mod node;
pub mod offline;
pub mod prepare;
pub mod stats;
pub mod timed;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::Utc;
use serde::Serialize;
use serde_json::json;

pub use error::RunError;

use crate::config::{Config, Layout};
use crate::measure::record::{
    ConfigRecord, ConfigStatus, Quantity, Record, TimedLaunch, CLOCK_EVENTS, RECORD_SCHEMA,
    TIMED_LAUNCHES,
};
use crate::measure::spec::plan::{device_from_profile, ConfigPlan, DeviceVars};
use crate::measure::spec::{signature, Experiment, Mode, EXPERIMENT_FILE};

/// What `glossary verify` was asked to do.
#[derive(Debug, Clone)]
pub struct VerifyRequest {
    pub root: PathBuf,
    pub node: String,
    /// The experiments to run, by id; empty: every experiment.
    pub only: Vec<String>,
    /// Check, compile and resolve configurations; time nothing, write nothing.
    pub dry_run: bool,
    /// Run the ncu pass (achieved occupancy and the experiments' ncu metrics) when ncu
    /// is installed.
    pub ncu: bool,
    /// The hidden mode ncu watches: launch each configuration once, nothing else.
    pub launch_once: bool,
    /// Write the passing rows (marked partial) even when some configs failed.
    pub allow_partial: bool,
    /// The node's private key (else the profile's `key` path): every record written is
    /// signed with it (see `trust::node`).
    pub key: Option<PathBuf>,
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

    /// Where this run says what failed, beside the record it would have written.
    pub fn failed_record_path(&self, exp: &Experiment) -> PathBuf {
        match &self.out {
            Some(out) => out.join(&exp.id).join(format!("{}.failed.json", self.node)),
            None => exp.failed_record_path(&self.node),
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
        /// Written with `--allow-partial` although some configs failed.
        partial: bool,
        notes: Vec<String>,
    },
    Planned {
        /// Each axis and its number of values, in the file's order.
        axes: Vec<(String, usize)>,
        configs: Vec<ConfigSummary>,
        notes: Vec<String>,
    },
    /// Not every config passed, or the run failed as a whole: the previous record stands.
    Failed {
        error: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        failed_record: Option<PathBuf>,
        configs: Vec<ConfigSummary>,
    },
}

#[derive(Debug, Clone, Serialize)]
pub struct ConfigSummary {
    pub label: String,
    pub passed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub kernel: Option<String>,
    pub registers: Option<u32>,
    pub smem_reserved: Option<u32>,
    pub blocks_per_sm: Option<u32>,
    pub occupancy: Option<f64>,
    pub achieved_occupancy: Option<f64>,
    pub median_ms: Option<f64>,
    pub rsd: Option<f64>,
    pub converged: Option<bool>,
    /// The median SM clock the readings saw; None where no reading covered a sample (no
    /// "clock seen" is claimed for such a row).
    pub sm_clock_mhz: Option<u32>,
    /// The share of the row's samples a clock reading covered.
    pub clock_coverage: Option<f64>,
    /// Samples a reading saw throttled (None: no reading covered any).
    pub throttled_samples: Option<u32>,
    /// Metrics and ncu metrics by name (None: not measured).
    pub quantities: BTreeMap<String, Option<f64>>,
}

impl ConfigSummary {
    fn of(c: &ConfigRecord) -> ConfigSummary {
        let t = c.timing.as_ref();
        let (passed, reason) = match &c.status {
            ConfigStatus::Passed => (true, None),
            ConfigStatus::NotLaunchable { reason } => {
                (true, Some(format!("not launchable: {reason}")))
            }
            ConfigStatus::Failed { reason, .. } => (false, Some(reason.clone())),
        };
        ConfigSummary {
            label: c.label.clone(),
            passed,
            reason,
            kernel: Some(c.kernel.clone()),
            registers: Some(c.registers),
            smem_reserved: Some(c.smem_reserved),
            blocks_per_sm: Some(c.blocks_per_sm),
            occupancy: Some(c.occupancy),
            achieved_occupancy: c.achieved_occupancy,
            median_ms: t.map(|t| t.median_ms),
            rsd: t.map(|t| t.rsd),
            converged: t.map(|t| t.converged),
            sm_clock_mhz: t.and_then(|t| t.sm_clock_mhz),
            clock_coverage: c.clock_coverage(),
            throttled_samples: t.and_then(|t| t.throttled_samples),
            quantities: c
                .quantities
                .iter()
                .map(|(k, q)| (k.clone(), q.value))
                .collect(),
        }
    }

    /// "1980 MHz (100%)": the median SM clock the readings saw and the share of the
    /// row's samples they covered, with "throttled" where a reading saw some throttled;
    /// "-" where no reading covered any sample: no clock is claimed as seen for such a row.
    pub fn clock_seen(&self) -> String {
        match (self.sm_clock_mhz, self.clock_coverage) {
            (Some(mhz), Some(share)) if share > 0.0 => format!(
                "{mhz} MHz ({:.0}%){}",
                share * 100.0,
                if self.throttled_samples.is_some_and(|n| n > 0) {
                    " throttled"
                } else {
                    ""
                }
            ),
            _ => "-".to_string(),
        }
    }

    fn planned(p: &ConfigPlan) -> ConfigSummary {
        ConfigSummary {
            label: p.label.clone(),
            passed: true,
            reason: None,
            kernel: Some(p.timed_launch().kernel.clone()),
            registers: None,
            smem_reserved: None,
            blocks_per_sm: None,
            occupancy: None,
            achieved_occupancy: None,
            median_ms: None,
            rsd: None,
            converged: None,
            sm_clock_mhz: None,
            clock_coverage: None,
            throttled_samples: None,
            quantities: BTreeMap::new(),
        }
    }
}

/// The report of a whole verify run.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub node: String,
    pub gpu: Option<String>,
    /// What holds for the whole run (said once, not per experiment).
    pub notes: Vec<String>,
    pub experiments: Vec<(String, Outcome)>,
}

impl Report {
    /// True when every experiment ran and every configuration passed its check.
    pub fn all_passed(&self) -> bool {
        self.experiments.iter().all(|(_, o)| match o {
            Outcome::Failed { .. } => false,
            Outcome::Written { partial, .. } => !partial,
            Outcome::Planned { configs, .. } => configs.iter().all(|c| c.passed),
        })
    }
}

fn axis_sizes(exp: &Experiment) -> Vec<(String, usize)> {
    exp.spec
        .axes
        .iter()
        .map(|(k, v)| (k.clone(), v.len()))
        .collect()
}

/// The experiments under `measurements/`: all, or those in `only` (every id unknown there
/// is an error, all named at once).
pub fn select_experiments(root: &Path, only: &[String]) -> crate::Result<Vec<Experiment>> {
    let dir = Layout::new(root).measurements();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| crate::Error::io(&dir, e))?
        .filter_map(|d| d.ok().map(|d| d.path()))
        .filter(|p| p.join(EXPERIMENT_FILE).is_file())
        .collect();
    dirs.sort();
    if !only.is_empty() {
        let id_of = |d: &PathBuf| d.file_name().and_then(|s| s.to_str()).map(str::to_string);
        let missing: Vec<crate::Error> = only
            .iter()
            .filter(|id| !dirs.iter().any(|d| id_of(d).as_ref() == Some(*id)))
            .map(|id| {
                crate::Error::Other(format!(
                    "no experiment `{id}` (no {}/{id}/{EXPERIMENT_FILE})",
                    dir.display()
                ))
            })
            .collect();
        crate::Error::collect(missing)?;
        dirs.retain(|d| id_of(d).is_some_and(|id| only.contains(&id)));
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

/// Plan every experiment and check its launches against the kernels' source signatures:
/// everything that can be known without a GPU. Every problem of every experiment at once.
pub fn plan_all(
    experiments: &[Experiment],
    device: &DeviceVars,
) -> Result<Vec<Vec<ConfigPlan>>, RunError> {
    let mut errors = Vec::new();
    let mut plans = Vec::new();
    for exp in experiments {
        match plan_one(exp, device) {
            Ok(p) => plans.push(p),
            Err(e) => errors.extend(e.flatten()),
        }
    }
    crate::Error::collect(errors)?;
    Ok(plans)
}

fn plan_one(exp: &Experiment, device: &DeviceVars) -> crate::Result<Vec<ConfigPlan>> {
    let plans = exp.plan(device)?;
    let source = exp.kernel_source()?;
    let sigs = signature::scan(&source.text);
    let files = exp.spec.kernels.join(", ");
    let mut seen = Vec::new();
    let mut errors = Vec::new();
    for p in &plans {
        for (near, msg) in signature::check(p, &sigs, &files) {
            if !seen.contains(&msg) {
                errors.push(exp.error_at(Some(&near), msg.clone()));
                seen.push(msg);
            }
        }
    }
    crate::Error::collect(errors)?;
    Ok(plans)
}

/// Run `verify`. `progress` is advanced once per configuration.
pub fn verify(req: &VerifyRequest, progress: &indicatif::ProgressBar) -> Result<Report, RunError> {
    let config = Config::load(&req.root)?;
    let profile = config.node(&req.node)?.clone();
    let experiments = select_experiments(&req.root, &req.only)?;
    let mut report = Report {
        node: req.node.clone(),
        gpu: None,
        notes: Vec::new(),
        experiments: Vec::new(),
    };
    if req.dry_run && !gpu::driver_present() {
        let plans = plan_all(&experiments, &device_from_profile(&profile))?;
        // With NVRTC here, compile too: every experiment, every error, before reporting.
        let compiled = gpu::nvrtc_present();
        if compiled {
            let mut errors = Vec::new();
            for (e, p) in experiments.iter().zip(&plans) {
                match offline::compile_experiment(e, p, &profile.arch) {
                    Ok(()) => {}
                    Err(RunError::Spec(e)) => errors.extend(e.flatten()),
                    Err(e) => errors.push(crate::Error::Other(e.to_string())),
                }
            }
            crate::Error::collect(errors)?;
        }
        report.notes.push(if compiled {
            format!(
                "no CUDA driver on this machine: experiments parsed, configs planned with node {node}'s profile, kernels compiled with NVRTC for {arch} and every launch's kernel found in them; the driver's checks (registers, occupancy, whether each launch fits) skipped",
                node = req.node,
                arch = profile.arch
            )
        } else {
            format!(
                "no CUDA driver on this machine: experiments parsed, configs planned with node {}'s profile, launches checked against the kernel sources; compiling (no NVRTC here either) and the driver's checks skipped",
                req.node
            )
        });
        for (e, p) in experiments.iter().zip(plans) {
            report.experiments.push((
                e.id.clone(),
                Outcome::Planned {
                    axes: axis_sizes(e),
                    configs: p.iter().map(ConfigSummary::planned).collect(),
                    notes: Vec::new(),
                },
            ));
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
    node::check_node_shape(&gpu.info, &gpu.arch, &req.node, &profile).map_err(RunError::Other)?;
    // The key is checked before anything is measured: a run that cannot sign its records
    // would spend the node's time for records no build accepts.
    let signer = if req.dry_run || req.launch_once {
        None
    } else {
        Some(
            crate::trust::node::node_signer(
                &req.node,
                &req.root,
                req.key.as_deref(),
                profile.key.as_deref(),
                profile.public_key.as_deref(),
            )
            .map_err(RunError::Other)?,
        )
    };
    report.gpu = Some(format!("{} ({})", gpu.info.name, gpu.info.uuid));
    // Everything that can be wrong with a file, for every experiment, before any runs.
    let plans = plan_all(&experiments, &gpu.device)?;
    let mut prepared = Vec::new();
    let mut errors = Vec::new();
    for (exp, p) in experiments.iter().zip(plans) {
        let flush = if exp.spec.timing.flush_l2 && !req.launch_once {
            timed::flush_bytes(&gpu)
        } else {
            0
        };
        match prepare::prepare(&gpu, exp, p, flush) {
            Ok(p) => prepared.push(p),
            Err(RunError::Spec(e)) => errors.extend(e.flatten()),
            Err(e) => return Err(e),
        }
    }
    crate::Error::collect(errors)?;
    if req.launch_once {
        for (exp, p) in experiments.iter().zip(&prepared) {
            if exp.spec.mode == Mode::Timed {
                timed::launch_once(&gpu, exp.spec.seed, p)?;
            }
        }
        return Ok(report);
    }
    if req.dry_run {
        report
            .notes
            .push("compiled and resolved every launch; ran nothing".into());
        for (exp, p) in experiments.iter().zip(&prepared) {
            report.experiments.push((
                exp.id.clone(),
                Outcome::Planned {
                    axes: axis_sizes(exp),
                    configs: p.iter().map(|c| ConfigSummary::of(&c.record)).collect(),
                    notes: Vec::new(),
                },
            ));
        }
        return Ok(report);
    }
    progress.set_length(prepared.iter().map(|p| p.len() as u64).sum());
    let clocks = clocks::ClockMonitor::start(&gpu.info.uuid);
    for (exp, p) in experiments.iter().zip(prepared) {
        progress.set_message(exp.id.clone());
        let outcome = match run_one(
            req,
            (&gpu, &profile),
            exp,
            p,
            clocks.as_ref(),
            signer.as_ref(),
            progress,
        ) {
            Ok(o) => o,
            Err(e) => Outcome::Failed {
                error: e.to_string(),
                failed_record: None,
                configs: Vec::new(),
            },
        };
        report.experiments.push((exp.id.clone(), outcome));
    }
    Ok(report)
}

/// Run one experiment on `gpu`, the GPU of node profile `profile`.
fn run_one(
    req: &VerifyRequest,
    (gpu, profile): (&gpu::Gpu, &crate::config::Node),
    exp: &Experiment,
    prepared: Vec<prepare::PreparedConfig>,
    clocks: Option<&clocks::ClockMonitor>,
    signer: Option<&crate::trust::Signer>,
    progress: &indicatif::ProgressBar,
) -> Result<Outcome, RunError> {
    let mut tick = |what: &str| {
        progress.inc(1);
        progress.set_message(format!("{}: {what}", exp.id));
    };
    let spec = &exp.spec;
    let launches_per_config: Vec<(usize, usize, String)> = prepared
        .iter()
        .map(|p| {
            (
                p.launches.len(),
                p.plan.timed,
                p.timed().plan.kernel.clone(),
            )
        })
        .collect();
    // The rows whose timed launch is not one plain launch a sample, as the record says.
    let timed_launches: BTreeMap<String, TimedLaunch> = prepared
        .iter()
        .filter_map(|p| {
            let l = &p.timed().plan;
            (l.cluster.is_some() || !l.sampling.is_once()).then(|| {
                (
                    p.plan.label.clone(),
                    TimedLaunch {
                        cluster: l.cluster,
                        repeat: l.sampling.repeat,
                        graph: l.sampling.graph,
                    },
                )
            })
        })
        .collect();
    let (mut configs, clock_events) = timed::run(
        gpu,
        spec.mode,
        spec.seed,
        &spec.timing,
        prepared,
        clocks,
        &mut tick,
    )?;
    let mut notes = Vec::new();
    let ncu_source = if spec.mode == Mode::Occupancy {
        "not applicable: nothing is launched".to_string()
    } else if !req.ncu {
        mark_not_measured(spec, &mut configs, "not measured (--no-ncu)");
        "not measured (--no-ncu)".to_string()
    } else if !ncu::available() {
        mark_not_measured(
            spec,
            &mut configs,
            "not measured: ncu is not installed on this node",
        );
        "not measured: ncu is not installed on this node".to_string()
    } else {
        progress.set_message(format!("{}: ncu metrics", exp.id));
        match ncu_pass(req, exp, &launches_per_config, &mut configs) {
            Ok(()) => "ncu --clock-control none, one pass over every launch".to_string(),
            Err(e) => {
                notes.push(format!("ncu metrics not recorded: {e}"));
                mark_not_measured(spec, &mut configs, &format!("not measured: {e}"));
                format!("not measured: {e}")
            }
        }
    };
    for c in &mut configs {
        metrics::apply(spec, &gpu.device, c);
    }
    let mut record = Record {
        schema: RECORD_SCHEMA,
        experiment: exp.id.clone(),
        node: req.node.clone(),
        spec_digest: exp.digest.clone(),
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        captured_at: Utc::now(),
        gpu: gpu.info.clone(),
        compile_options: compile::options_for(&spec.compile_options, &gpu.arch, &[]),
        device: gpu.device.clone(),
        partial: false,
        configs,
        extra: json!({
            "mode": spec.mode,
            "seed": spec.seed,
            "timing_policy": spec.timing,
            "l2_flush_bytes": (spec.timing.flush_l2 && spec.mode == Mode::Timed).then(|| timed::flush_bytes(gpu)),
            "sm_clock_source": clocks.map_or("not available".to_string(), |c| c.source.describe()),
            "throttle_rule": format!("a sample is throttled when a clock reading during its batch saw the SM clock under {:.0}% of the driver's maximum, or a clock-event reason that pulls the clock down ({})", clocks::THROTTLE_FRACTION * 100.0, clocks::REASONS.iter().filter(|r| r.2).map(|r| r.1).collect::<Vec<_>>().join(", ")),
            "ncu_source": ncu_source,
            "achieved_occupancy_metric": ncu::ACHIEVED_METRIC,
            "device_limits": gpu.limits,
        }),
    };
    if !timed_launches.is_empty() {
        record.extra[TIMED_LAUNCHES] = json!(timed_launches);
    }
    if !clock_events.is_empty() {
        record.extra[CLOCK_EVENTS] = json!(clock_events);
    }
    let paths = (req.record_path(exp), req.failed_record_path(exp));
    // Before anything is written: the claims this run would flip or make ambiguous.
    let entries = crate::content::load_content_collecting(&Layout::new(&req.root).content())
        .0
        .entries;
    let old = Record::load(&exp.record_path(&req.node)).ok();
    let roofed = exp.roofed();
    let roofing = crate::measure::claims::Roofing {
        metrics: &roofed,
        node: profile,
    };
    for line in crate::measure::claims::preview(&entries, old.as_ref(), &record, &roofing) {
        progress.println(format!("  claim: {line}"));
        notes.push(format!("claim: {line}"));
    }
    for line in crate::measure::roofs::shares_said(&roofed, profile, &record) {
        progress.println(format!("  share: {line}"));
        notes.push(format!("share: {line}"));
    }
    let outcome = write_checked(
        paths,
        record,
        (&roofed, spec.timing.tolerance(), profile),
        req.allow_partial,
        notes,
        signer,
    )?;
    if let (Outcome::Written { record, .. }, None, Some(_)) = (&outcome, &req.out, signer) {
        keep_in_history(exp, &req.node, record)?;
    }
    Ok(outcome)
}

/// Keep the record just written (and its signature) as a run in the history
/// (`measure::history`), beside the latest.
fn keep_in_history(exp: &Experiment, node: &str, path: &Path) -> Result<(), RunError> {
    let bytes = std::fs::read(path).map_err(|e| crate::Error::io(path, e))?;
    let sig_path = crate::trust::node::signature_path(path);
    let sig = std::fs::read_to_string(&sig_path).map_err(|e| crate::Error::io(&sig_path, e))?;
    let record = Record::load(path)?;
    crate::measure::history::keep(&exp.records_dir(), node, record.captured_at, &bytes, &sig)?;
    Ok(())
}

/// [`write_outcome`], after the one check a record must pass before it is written at
/// all: no passed row above its roof (`measure::roofs::above_roof`). A row faster than
/// the node's peaks allow has a wrong byte or FLOP count, or work the compiler removed;
/// its record is refused whole, nothing is written, and the previous record stands.
pub fn write_checked(
    paths: (PathBuf, PathBuf),
    record: Record,
    (roofed, band, profile): (&[crate::measure::roofs::Roofed], f64, &crate::config::Node),
    allow_partial: bool,
    notes: Vec<String>,
    signer: Option<&crate::trust::Signer>,
) -> Result<Outcome, RunError> {
    let above = crate::measure::roofs::above_roof(roofed, band, profile, &record);
    if !above.is_empty() {
        return Err(RunError::Other(format!(
            "{} row(s) above the node's peaks (glossary.toml [nodes.{}.peaks]); no record written, {} stays as it was: {}",
            above.len(),
            record.node,
            paths.0.display(),
            above
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        )));
    }
    write_outcome(paths, record, allow_partial, notes, signer)
}

/// The one place records are written. Every config passed: `records/<node>.json`, and
/// any earlier `<node>.failed.json` is removed. Otherwise `<node>.failed.json` says what
/// failed and the good record stays (unless `allow_partial`, which writes the record
/// marked partial). A record is written with the node's signature beside it (`signer`;
/// only tests pass None, and get a record no build accepts).
pub fn write_outcome(
    (path, failed_path): (PathBuf, PathBuf),
    mut record: Record,
    allow_partial: bool,
    notes: Vec<String>,
    signer: Option<&crate::trust::Signer>,
) -> Result<Outcome, RunError> {
    let write = |record: &Record| -> Result<(), RunError> {
        match signer {
            Some(s) => record.write_signed(&path, s)?,
            None => record.write_atomic(&path)?,
        }
        Ok(())
    };
    let failed: Vec<&ConfigRecord> = record
        .configs
        .iter()
        .filter(|c| matches!(c.status, ConfigStatus::Failed { .. }))
        .collect();
    let summaries: Vec<ConfigSummary> = record.configs.iter().map(ConfigSummary::of).collect();
    if failed.is_empty() {
        write(&record)?;
        if failed_path.exists() {
            std::fs::remove_file(&failed_path).map_err(|e| crate::Error::io(&failed_path, e))?;
        }
        return Ok(Outcome::Written {
            record: path,
            configs: summaries,
            partial: false,
            notes,
        });
    }
    let error = format!(
        "{} of {} configs failed their check ({}); {}",
        failed.len(),
        record.configs.len(),
        failed
            .iter()
            .map(|c| c.label.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        if allow_partial {
            format!(
                "the passing rows were written to {} marked partial (--allow-partial)",
                path.display()
            )
        } else {
            format!("{} was left as it was", path.display())
        }
    );
    record.write_atomic(&failed_path)?;
    if allow_partial {
        record.partial = true;
        write(&record)?;
        return Ok(Outcome::Written {
            record: path,
            configs: summaries,
            partial: true,
            notes: [notes, vec![error]].concat(),
        });
    }
    Ok(Outcome::Failed {
        error,
        failed_record: Some(failed_path),
        configs: summaries,
    })
}

fn mark_not_measured(
    spec: &crate::measure::spec::ExperimentSpec,
    configs: &mut [ConfigRecord],
    why: &str,
) {
    for c in configs {
        for m in &spec.ncu_metrics {
            c.quantities.insert(
                m.clone(),
                Quantity {
                    value: None,
                    unit: String::new(),
                    heading: None,
                    decimals: None,
                    source: "ncu".into(),
                    not_measured: Some(why.to_string()),
                    timed: false,
                    interval: None,
                },
            );
        }
    }
}

/// Fill achieved occupancy and the experiment's ncu metrics from one ncu pass over the
/// same launches, matched by launch order and checked by kernel name.
fn ncu_pass(
    req: &VerifyRequest,
    exp: &Experiment,
    launches: &[(usize, usize, String)],
    configs: &mut [ConfigRecord],
) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let mut metrics = vec![ncu::ACHIEVED_METRIC.to_string()];
    metrics.extend(exp.spec.ncu_metrics.iter().cloned());
    let rows = ncu::profile(&exe, &req.root, &req.node, &exp.id, &metrics)?;
    let expected: usize = launches.iter().map(|l| l.0).sum();
    if rows.len() != expected {
        return Err(format!(
            "ncu profiled {} launches, the configurations make {expected}",
            rows.len()
        ));
    }
    let mut at = 0;
    for (c, (count, timed, kernel)) in configs.iter_mut().zip(launches) {
        let row = &rows[at + timed];
        at += count;
        if !row.kernel.starts_with(kernel.as_str()) {
            return Err(format!(
                "ncu launch order mismatch: expected {kernel}, found {}",
                row.kernel
            ));
        }
        c.achieved_occupancy = row
            .metrics
            .get(ncu::ACHIEVED_METRIC)
            .map(|(_, v)| v / 100.0);
        for m in &exp.spec.ncu_metrics {
            let (unit, v) = row.metrics.get(m).cloned().unwrap_or_default();
            c.quantities.insert(
                m.clone(),
                Quantity {
                    value: Some(v),
                    unit,
                    heading: None,
                    decimals: Some(if v.abs() >= 100.0 { 0 } else { 2 }),
                    source: "ncu".into(),
                    not_measured: None,
                    timed: false,
                    interval: None,
                },
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
