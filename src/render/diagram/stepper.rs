//! The `occupancy-stepper` diagram: one SM's warp slots on the entry's node, drawn once
//! per step of a preset. A step is a configuration label of the experiment's record; what
//! is resident comes from the occupancy model, which must agree with the driver's count
//! in the record, and what was measured (loads in flight, GB/s) comes from the record.
//!
//! Every step is in the HTML, so the figure reads without JavaScript; `stepper.js` turns
//! the list into a one-step-at-a-time widget.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::config::Config;
use crate::content::DiagramRef;
use crate::measure::record::{ConfigRecord, ConfigStatus};
use crate::occupancy::{compute, Arch, Launch, Occupancy, OccupancyError};
use crate::render::escape::escape;
use crate::render::values::Resolved;

use super::presets::load_preset;
use super::{DiagramError, DiagramKind};

/// `templates/diagrams/occupancy-stepper/<name>.yaml`.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StepperPreset {
    /// Shown as the figure's caption heading.
    pub title: String,
    /// A sentence or two under the title: what changes from step to step.
    pub description: String,
    /// Configuration labels of the cited record, in the order they are shown.
    pub steps: Vec<String>,
    /// The per-SM resource drawn as a bar under the warp slots: the one the steps move.
    #[serde(default)]
    pub bar: Bar,
    /// Record quantities each step shows beside the residency, by name (any table column
    /// name). Empty: loads in flight per SM and measured bandwidth, the Day 45 pair.
    #[serde(default)]
    pub shows: Vec<String>,
}

/// Which of the SM's pools the figure draws under its warp slots.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Bar {
    #[default]
    SharedMemory,
    Registers,
}

impl StepperPreset {
    fn validate(&self) -> Result<(), String> {
        if self.steps.is_empty() {
            return Err("`steps` is empty: list the record's configuration labels to show".into());
        }
        distinct_and_named(&self.steps, "`steps` has an empty label", |s| {
            format!("step `{s}` is listed twice")
        })?;
        distinct_and_named(&self.shows, "`shows` has an empty name", |q| {
            format!("`shows` lists `{q}` twice")
        })?;
        Ok(())
    }
}

/// One rule for a preset's lists: every item named, none listed twice.
fn distinct_and_named(
    items: &[String],
    empty: &str,
    twice: impl Fn(&str) -> String,
) -> Result<(), String> {
    let mut seen = HashSet::new();
    for item in items {
        if item.trim().is_empty() {
            return Err(empty.into());
        }
        if !seen.insert(item) {
            return Err(twice(item));
        }
    }
    Ok(())
}

pub(super) fn check(
    d: &DiagramRef,
    templates: &Path,
    config: &Config,
) -> Result<StepperPreset, DiagramError> {
    let kind = DiagramKind::OccupancyStepper.name();
    let (path, preset): (PathBuf, StepperPreset) = load_preset(templates, kind, &d.preset)?;
    preset
        .validate()
        .map_err(|message| DiagramError::BadPreset {
            path,
            line: None,
            message,
        })?;
    if d.experiment.is_none() {
        return Err(DiagramError::MissingField {
            kind,
            field: "experiment",
        });
    }
    let Some(node) = &d.node else {
        return Err(DiagramError::MissingField {
            kind,
            field: "node",
        });
    };
    // An unknown node is reported by the citation check; only its architecture is ours.
    if let Some(n) = config.nodes.get(node) {
        n.arch
            .parse::<Arch>()
            .map_err(|e| DiagramError::UnknownArch {
                node: node.clone(),
                arch: n.arch.clone(),
                why: e.to_string(),
            })?;
    }
    Ok(preset)
}

/// A step the renderer cannot draw. Each is a build error, not a refusal: the preset or
/// the model is wrong, not the entry's prose.
#[derive(Debug, thiserror::Error)]
pub enum StepError {
    #[error("diagram step `{label}`: the record of {experiment} on {node} has no configuration `{label}`")]
    MissingStep {
        label: String,
        experiment: String,
        node: String,
    },
    #[error("diagram step `{label}`: {source}")]
    Model {
        label: String,
        #[source]
        source: OccupancyError,
    },
    #[error(
        "diagram step `{label}`: the occupancy model gives {model} resident blocks per SM for {launch}, \
         but the driver recorded {driver}; the model must agree with the driver"
    )]
    Disagrees {
        label: String,
        launch: String,
        model: u32,
        driver: u32,
    },
    #[error("diagram step `{label}`: the record of {experiment} has no `{quantity}` for it (the preset's `shows`)")]
    MissingQuantity {
        label: String,
        experiment: String,
        quantity: String,
    },
    #[error("diagram: node `{node}`: {why}")]
    Node { node: String, why: String },
}

/// One step's numbers: the launch as recorded, residency from the model, and what the
/// record measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub label: String,
    pub static_smem: u64,
    /// The never-read dynamic shared memory the configuration reserves.
    pub reserved_smem: u64,
    pub model: Occupancy,
    /// The record's `loads_in_flight` quantity, where it has one.
    pub loads_in_flight: Option<u32>,
    /// Measured bandwidth; `None` when the configuration failed its check on the node.
    pub gbps: Option<f64>,
    /// The preset's `shows`: (heading, value as the table shows it, or None).
    pub shown: Vec<(String, Option<String>)>,
    pub failure: Option<String>,
}

/// Residency of one recorded configuration, from the model, checked against the driver;
/// `shows` names the record quantities the step also shows.
pub fn step(arch: Arch, c: &ConfigRecord, shows: &[String]) -> Result<Step, StepError> {
    let launch = Launch::new(c.block_size, c.registers)
        .with_static_shared_memory(c.static_smem.into())
        .with_dynamic_shared_memory(c.smem_reserved.into());
    let model = compute(arch, &launch, None).map_err(|source| StepError::Model {
        label: c.label.clone(),
        source,
    })?;
    if model.blocks_per_sm != c.blocks_per_sm {
        return Err(StepError::Disagrees {
            label: c.label.clone(),
            launch: format!(
                "{}-thread blocks at {} registers per thread with {} B static and {} B dynamic shared memory on {arch}",
                c.block_size, c.registers, c.static_smem, c.smem_reserved
            ),
            model: model.blocks_per_sm,
            driver: c.blocks_per_sm,
        });
    }
    Ok(Step {
        label: c.label.clone(),
        static_smem: c.static_smem.into(),
        reserved_smem: c.smem_reserved.into(),
        model,
        loads_in_flight: c.number("loads_in_flight").map(|v| v as u32),
        gbps: c.number("gbps"),
        shown: shown(c, shows)?,
        failure: match &c.status {
            ConfigStatus::Passed => None,
            ConfigStatus::Failed { reason, .. } | ConfigStatus::NotLaunchable { reason } => {
                Some(reason.clone())
            }
        },
    })
}

/// The preset's `shows` for one configuration. A passed configuration must have every
/// one; a failed one has no timing, and says so where the value would be.
fn shown(c: &ConfigRecord, shows: &[String]) -> Result<Vec<(String, Option<String>)>, StepError> {
    shows
        .iter()
        .map(|q| {
            // The name until `render` puts the record's heading (with its unit) in.
            let heading = q.clone();
            let value = c.column(q).map(|v| v.display());
            if value.is_none() && matches!(c.status, ConfigStatus::Passed) {
                return Err(StepError::MissingQuantity {
                    label: c.label.clone(),
                    experiment: String::new(),
                    quantity: q.clone(),
                });
            }
            Ok((heading, value))
        })
        .collect()
}

/// The figure for an entry's diagram. With a current record, every step is drawn; without
/// one, the figure says so and draws nothing it would have to make up.
pub fn render(
    d: &DiagramRef,
    preset: &StepperPreset,
    config: &Config,
    resolved: &Resolved,
) -> Result<String, StepError> {
    let experiment = d.experiment.clone().unwrap_or_default();
    let node = d.node.clone().unwrap_or_default();
    let node_error = |why: String| StepError::Node {
        node: node.clone(),
        why,
    };
    let node_config = config
        .nodes
        .get(&node)
        .ok_or_else(|| node_error("not under [nodes] in glossary.toml".into()))?;
    let arch: Arch = node_config
        .arch
        .parse()
        .map_err(|e: OccupancyError| node_error(e.to_string()))?;

    let figure = Figure {
        alt: d.alt.as_deref().unwrap_or_default(),
        preset,
        experiment: &experiment,
        node: &node,
        gpu: &node_config.gpu,
    };
    match resolved.get(&(experiment.clone(), node.clone())) {
        Some(Ok(record)) => {
            let steps = preset
                .steps
                .iter()
                .map(|label| {
                    let c = record.config(label).ok_or_else(|| StepError::MissingStep {
                        label: label.clone(),
                        experiment: experiment.clone(),
                        node: node.clone(),
                    })?;
                    let mut s = step(arch, c, &preset.shows).map_err(|e| match e {
                        StepError::MissingQuantity {
                            label, quantity, ..
                        } => StepError::MissingQuantity {
                            label,
                            experiment: experiment.clone(),
                            quantity,
                        },
                        other => other,
                    })?;
                    // Headings and values as a table shows them (`values`: a size in
                    // the unit a reader uses, each unit once).
                    for (shown, name) in s.shown.iter_mut().zip(&preset.shows) {
                        shown.0 = crate::render::values::column_heading(record, name);
                        let unit = crate::render::values::column_unit(record, name);
                        if let Some(v) = c.column(name) {
                            shown.1 = Some(crate::render::values::cell_shown(&v, unit));
                        }
                    }
                    Ok(s)
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(figure.with_steps(&steps))
        }
        Some(Err(why)) => Ok(figure.without_record(&why.to_string())),
        None => Ok(figure.without_record("the record was not resolved")),
    }
}

struct Figure<'a> {
    alt: &'a str,
    preset: &'a StepperPreset,
    experiment: &'a str,
    node: &'a str,
    gpu: &'a str,
}

const ID: &str = "occupancy-stepper";

impl Figure<'_> {
    fn open(&self, out: &mut String, interactive: bool) {
        let data = if interactive { " data-stepper" } else { "" };
        let _ = write!(
            out,
            r#"<figure class="stepper" id="{ID}" aria-label="{alt}"{data}>"#,
            alt = escape(self.alt),
        );
        let _ = write!(
            out,
            r#"<figcaption class="stepper-caption"><strong class="stepper-title">{}</strong> {} <span class="stepper-source">One SM of the {} (node <code>{}</code>), configurations from the <code>{}</code> record. Resident blocks, warps and the binding resource come from glossary's occupancy model, which agrees with the driver's count at every step; loads in flight and bandwidth are as measured.</span></figcaption>"#,
            escape(&self.preset.title),
            escape(&self.preset.description),
            escape(self.gpu),
            escape(self.node),
            escape(self.experiment),
        );
    }

    fn with_steps(&self, steps: &[Step]) -> String {
        let mut out = String::new();
        self.open(&mut out, true);
        let n = steps.len();
        // Controls and progress stay hidden until stepper.js runs: without it, the list
        // below shows every step at once and needs neither.
        let _ = write!(
            out,
            r#"<div class="stepper-controls" hidden><button type="button" class="stepper-prev" aria-controls="{ID}-steps">Previous</button><p class="stepper-status" aria-live="polite" aria-atomic="true"></p><button type="button" class="stepper-next" aria-controls="{ID}-steps">Next</button></div>"#
        );
        out.push_str(r#"<ol class="stepper-progress" hidden>"#);
        for s in steps {
            let _ = write!(out, "<li><code>{}</code></li>", escape(&s.label));
        }
        out.push_str("</ol>");
        let _ = write!(out, r#"<ol class="stepper-steps" id="{ID}-steps">"#);
        for (i, s) in steps.iter().enumerate() {
            step_item(&mut out, s, self.preset.bar, i + 1, n);
        }
        out.push_str("</ol></figure>");
        out
    }

    fn without_record(&self, why: &str) -> String {
        let mut out = String::new();
        self.open(&mut out, false);
        let _ = write!(
            out,
            r#"<p class="stepper-missing">No current record of <code>{}</code> on <code>{}</code> ({}), so no step is drawn: every number in this diagram comes from that record. Steps waiting for it: {}.</p></figure>"#,
            escape(self.experiment),
            escape(self.node),
            escape(why),
            self.preset
                .steps
                .iter()
                .map(|s| format!("<code>{}</code>", escape(s)))
                .collect::<Vec<_>>()
                .join(", "),
        );
        out
    }
}

/// What the live region announces for a step.
fn summary(s: &Step, number: usize, of: usize) -> String {
    format!("Step {number} of {of}: {}. {}", s.label, residency(s))
}

/// The numbers of a step in one sentence: the SVG's text alternative.
fn residency(s: &Step) -> String {
    let m = &s.model;
    if !s.shown.is_empty() {
        let shown: Vec<String> = s
            .shown
            .iter()
            .map(|(h, v)| format!("{h} {}", v.as_deref().unwrap_or("not recorded")))
            .collect();
        return format!(
            "{regs} registers per thread; {blocks} {noun} resident, {warps} of {max} warp slots ({occ}), bound by {binding}; {shown}.",
            regs = m.registers_per_thread,
            blocks = m.blocks_per_sm,
            noun = if m.blocks_per_sm == 1 { "block" } else { "blocks" },
            warps = m.warps_per_sm,
            max = m.max_warps_per_sm,
            occ = percent(m.occupancy),
            binding = binding(m),
            shown = shown.join("; "),
        );
    }
    let measured = match (s.gbps, &s.failure) {
        (Some(gbps), _) => format!("{gbps:.1} GB/s measured"),
        (None, Some(_)) => "failed its check, no bandwidth".into(),
        (None, None) => "no bandwidth recorded".into(),
    };
    format!(
        "{reserved} reserved per block; {blocks} {noun} resident, {warps} of {max} warp slots ({occ}), bound by {binding}; {loads} loads in flight; {measured}.",
        reserved = bytes(s.reserved_smem),
        blocks = m.blocks_per_sm,
        noun = if m.blocks_per_sm == 1 { "block" } else { "blocks" },
        warps = m.warps_per_sm,
        max = m.max_warps_per_sm,
        occ = percent(m.occupancy),
        binding = binding(m),
        loads = s.loads_in_flight.map_or("unrecorded".into(), |l| l.to_string()),
    )
}

fn step_item(out: &mut String, s: &Step, bar: Bar, number: usize, of: usize) {
    let m = &s.model;
    let id = format!("{ID}-step-{number}");
    let _ = write!(
        out,
        r#"<li class="stepper-step" id="{id}" data-status="{status}"><h3 class="stepper-step-title"><span class="stepper-step-number">Step {number} of {of}:</span> <code>{label}</code></h3><div class="stepper-step-body">"#,
        status = escape(&summary(s, number, of)),
        label = escape(&s.label),
    );
    out.push_str(&sm_svg(s, bar, &id));
    let measured = match (s.gbps, &s.failure) {
        (Some(gbps), _) => format!("{gbps:.1} GB/s"),
        (None, Some(reason)) => format!("none: failed its check ({})", escape(reason)),
        (None, None) => "none recorded".into(),
    };
    let rows = [
        (
            "Block",
            format!(
                "{} threads ({} warps), {} registers per thread",
                m.block_size, m.warps_per_block, m.registers_per_thread
            ),
        ),
        (
            "Shared memory reserved per block",
            if s.static_smem == 0 {
                bytes(s.reserved_smem)
            } else {
                format!("{} (plus {} static)", bytes(s.reserved_smem), bytes(s.static_smem))
            },
        ),
        (
            "Shared memory a block takes",
            format!(
                "{} of {} per SM (static and reserved, plus the driver's per-block share, rounded up)",
                bytes(m.shared_memory_per_block),
                bytes(m.shared_memory_per_sm)
            ),
        ),
        ("Resident blocks", m.blocks_per_sm.to_string()),
        (
            "Resident warps",
            format!("{} of {}", m.warps_per_sm, m.max_warps_per_sm),
        ),
        ("Theoretical occupancy", percent(m.occupancy)),
        ("Binding resource", binding(m)),
    ];
    let mut rows: Vec<(String, String)> =
        rows.into_iter().map(|(t, v)| (t.to_string(), v)).collect();
    if bar == Bar::Registers {
        rows.insert(
            2,
            (
                "Registers a block takes".into(),
                format!(
                    "{} of {} per SM (per warp, rounded up to the allocation unit)",
                    m.registers_per_block,
                    m.arch.limits().registers_per_sm
                ),
            ),
        );
    }
    if s.shown.is_empty() {
        rows.push((
            "Loads in flight per SM".into(),
            s.loads_in_flight.map_or("—".into(), |l| l.to_string()),
        ));
        rows.push(("Measured bandwidth".into(), measured));
    } else {
        for (heading, value) in &s.shown {
            let value = match (value, &s.failure) {
                (Some(v), _) => escape(v),
                (None, Some(reason)) => format!("none: failed its check ({})", escape(reason)),
                (None, None) => "not recorded".into(),
            };
            rows.push((capitalised(heading), value));
        }
    }
    out.push_str(r#"<dl class="stepper-numbers">"#);
    for (term, value) in rows {
        // `value` is already escaped where it holds text from files.
        let _ = write!(out, "<div><dt>{}</dt><dd>{value}</dd></div>", escape(&term));
    }
    out.push_str("</dl></div></li>");
}

const COLUMNS: u32 = 8;
const CELL: u32 = 30;
const GAP: u32 = 4;
const PAD: u32 = 6;
const TEXT_ROW: u32 = 22;
const BAR: u32 = 18;
/// Block colours cycle through this many classes (`block-0` ...), defined in
/// stepper.css for light and dark mode; the fills below are the light-mode fallback.
const LIGHT_FILLS: [&str; 6] = [
    "#1f5fa8", "#a04a12", "#2b6e2f", "#7a3b9e", "#a3224a", "#00686b",
];

/// One SM: a grid of warp slots, each filled slot numbered and coloured by its block,
/// and a bar of the SM's shared memory split the same way.
fn sm_svg(s: &Step, bar: Bar, id: &str) -> String {
    let m = &s.model;
    let rows = m.max_warps_per_sm.div_ceil(COLUMNS);
    let grid_w = COLUMNS * (CELL + GAP) - GAP;
    let grid_h = rows * (CELL + GAP) - GAP;
    let width = grid_w + 2 * PAD;
    let grid_top = TEXT_ROW;
    let bar_label = grid_top + grid_h + TEXT_ROW;
    let bar_top = bar_label + 6;
    let height = bar_top + BAR + PAD;

    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg class="stepper-sm" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" aria-labelledby="{id}-svg-title" xmlns="http://www.w3.org/2000/svg"><title id="{id}-svg-title">{title}</title>"#,
        title = escape(&format!("{}: {}", s.label, residency(s))),
    );
    let _ = write!(
        svg,
        r#"<text class="stepper-text" x="{PAD}" y="{y}" fill="currentColor">Warp slots: {} of {} filled</text>"#,
        m.warps_per_sm,
        m.max_warps_per_sm,
        y = TEXT_ROW - 7,
    );
    for slot in 0..m.max_warps_per_sm {
        let x = PAD + (slot % COLUMNS) * (CELL + GAP);
        let y = grid_top + (slot / COLUMNS) * (CELL + GAP);
        if slot < m.warps_per_sm {
            let block = slot / m.warps_per_block.max(1);
            let colour = block as usize % LIGHT_FILLS.len();
            let _ = write!(
                svg,
                r##"<rect class="slot block-{colour}" x="{x}" y="{y}" width="{CELL}" height="{CELL}" rx="3" fill="{fill}"/><text class="slot-text" x="{tx}" y="{ty}" text-anchor="middle" fill="#ffffff">{n}</text>"##,
                fill = LIGHT_FILLS[colour],
                tx = x + CELL / 2,
                ty = y + CELL / 2 + 4,
                n = block + 1,
            );
        } else {
            let _ = write!(
                svg,
                r##"<rect class="slot empty" x="{x}" y="{y}" width="{w}" height="{w}" rx="3" fill="none" stroke="#6b7280" stroke-width="1.5" stroke-dasharray="4 3"/>"##,
                x = x as f64 + 0.75,
                y = y as f64 + 0.75,
                w = CELL as f64 - 1.5,
            );
        }
    }
    // The pool the steps move, split block by block: shared memory or the register file.
    let (pool, per_block, per_sm, class, shown) = match bar {
        Bar::SharedMemory => (
            "Shared memory",
            m.shared_memory_per_block,
            m.shared_memory_per_sm,
            "smem",
            (
                bytes(m.shared_memory_per_block),
                bytes(m.shared_memory_per_sm),
            ),
        ),
        Bar::Registers => {
            let per_sm = u64::from(m.arch.limits().registers_per_sm);
            (
                "Register file",
                m.registers_per_block,
                per_sm,
                "regs",
                (
                    format!("{} registers", m.registers_per_block),
                    per_sm.to_string(),
                ),
            )
        }
    };
    let _ = write!(
        svg,
        r#"<text class="stepper-text" x="{PAD}" y="{y}" fill="currentColor">{pool}: {blocks} × {per_block_shown} of {per_sm_shown}</text>"#,
        y = bar_label,
        blocks = m.blocks_per_sm,
        per_block_shown = shown.0,
        per_sm_shown = shown.1,
    );
    let _ = write!(
        svg,
        r##"<rect class="{class}-free" x="{PAD}" y="{bar_top}" width="{grid_w}" height="{BAR}" fill="none" stroke="#6b7280" stroke-width="1.5"/>"##
    );
    let pool_size = per_sm.max(1) as f64;
    let mut x = PAD as f64;
    for block in 0..m.blocks_per_sm {
        let w = per_block as f64 / pool_size * f64::from(grid_w);
        let colour = block as usize % LIGHT_FILLS.len();
        let _ = write!(
            svg,
            r#"<rect class="{class} block-{colour}" x="{x:.1}" y="{bar_top}" width="{w:.1}" height="{BAR}" fill="{fill}"/>"#,
            fill = LIGHT_FILLS[colour],
            w = (w - 1.0).max(1.0),
        );
        x += w;
    }
    svg.push_str("</svg>");
    svg
}

fn binding(m: &Occupancy) -> String {
    let others: Vec<&str> = m
        .tied
        .iter()
        .filter(|&&r| r != m.binding)
        .map(|r| r.label())
        .collect();
    if others.is_empty() {
        m.binding.label().to_string()
    } else {
        format!("{} (tied with {})", m.binding.label(), others.join(", "))
    }
}

/// "median (ms)" -> "Median (ms)", for a definition-list term.
fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn percent(f: f64) -> String {
    format!("{:.1}%", f * 100.0)
}

/// Shared memory sizes as the CUDA documentation writes them: KiB when whole.
fn bytes(n: u64) -> String {
    if n == 0 {
        "0 B".into()
    } else if n.is_multiple_of(1024) {
        format!("{} KiB", n / 1024)
    } else {
        format!("{n} B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::record::{Quantity, Timing};
    use crate::occupancy::Resource;

    fn config(label: &str, reserved: u32, driver_blocks: u32) -> ConfigRecord {
        ConfigRecord {
            label: label.into(),
            kernel: "axpy".into(),
            status: ConfigStatus::Passed,
            block_size: 512,
            smem_reserved: reserved,
            grid_size: 1024,
            registers: 16,
            static_smem: 0,
            local_bytes: 0,
            blocks_per_sm: driver_blocks,
            warps_per_sm: driver_blocks * 16,
            occupancy: f64::from(driver_blocks) / 4.0,
            waves: 1.0,
            achieved_occupancy: None,
            timing: Some(Timing {
                samples_ms: vec![1.0],
                median_ms: 1.0,
                min_ms: 1.0,
                max_ms: 1.0,
                rsd: 0.0,
                sm_clock_mhz: None,
                throttled_samples: Some(0),
                unobserved_samples: 0,
                converged: true,
                host_median_ms: None,
                interval: None,
            }),
            quantities: [
                (
                    "gbps".to_string(),
                    Quantity::metric(1234.5, "GB/s", None, 1),
                ),
                (
                    "loads_in_flight".to_string(),
                    Quantity::metric(f64::from(driver_blocks * 512), "", None, 0),
                ),
            ]
            .into(),
            ..Default::default()
        }
    }

    #[test]
    fn full_sm_is_bound_by_warps() {
        let s = step(Arch::Sm90, &config("tlp1", 0, 4), &[]).unwrap();
        assert_eq!(s.model.blocks_per_sm, 4);
        assert_eq!(s.model.warps_per_sm, 64);
        assert_eq!(s.model.max_warps_per_sm, 64);
        assert_eq!(s.model.binding, Resource::Warps);
        assert_eq!(s.gbps, Some(1234.5));
        assert_eq!(s.loads_in_flight, Some(2048));
    }

    #[test]
    fn reservation_removes_whole_blocks_and_binds_on_shared_memory() {
        // 228 KiB per SM on sm_90, less the driver's 1 KiB per block: 80 KiB fits twice.
        let s = step(Arch::Sm90, &config("b2", 80 * 1024, 2), &[]).unwrap();
        assert_eq!(s.model.blocks_per_sm, 2);
        assert_eq!(s.model.warps_per_sm, 32);
        assert_eq!(s.model.occupancy, 0.5);
        assert_eq!(s.model.binding, Resource::SharedMemory);
        assert_eq!(s.reserved_smem, 80 * 1024);
    }

    #[test]
    fn turing_has_32_slots() {
        let mut c = config("t4", 0, 2);
        c.block_size = 256;
        c.blocks_per_sm = 4;
        let s = step(Arch::Sm75, &c, &[]).unwrap();
        assert_eq!(s.model.max_warps_per_sm, 32);
        assert_eq!(s.model.warps_per_sm, 32);
    }

    #[test]
    fn model_disagreeing_with_driver_is_an_error_naming_the_step() {
        let err = step(Arch::Sm90, &config("half", 0, 2), &[]).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("step `half`"), "{msg}");
        assert!(msg.contains("model gives 4"), "{msg}");
        assert!(msg.contains("driver recorded 2"), "{msg}");
    }

    #[test]
    fn impossible_launch_is_an_error_naming_the_step() {
        let mut c = config("huge", 0, 1);
        c.block_size = 2048;
        let msg = step(Arch::Sm90, &c, &[]).unwrap_err().to_string();
        assert!(msg.contains("step `huge`"), "{msg}");
    }

    #[test]
    fn svg_draws_every_slot_and_fills_the_resident_ones() {
        let s = step(Arch::Sm90, &config("b3", 72 * 1024, 3), &[]).unwrap();
        assert_eq!(s.model.blocks_per_sm, 3);
        let svg = sm_svg(&s, Bar::SharedMemory, "x");
        assert_eq!(svg.matches(r#"class="slot "#).count(), 64);
        assert_eq!(svg.matches(r#"class="slot empty""#).count(), 16);
        for block in 0..3 {
            let filled = format!(r#"class="slot block-{block}""#);
            assert_eq!(svg.matches(&filled).count(), 16, "block {block}");
        }
        assert_eq!(svg.matches(r#"class="smem block-"#).count(), 3);
    }

    #[test]
    fn register_bar_splits_the_register_file_block_by_block() {
        // 96 registers per thread, 256-thread blocks: 2 blocks of 24,576 registers each.
        let mut c = config("free", 0, 2);
        c.block_size = 256;
        c.registers = 96;
        c.warps_per_sm = 16;
        c.occupancy = 0.25;
        let s = step(Arch::Sm90, &c, &["registers".into(), "median_ms".into()]).unwrap();
        assert_eq!(s.model.binding, Resource::Registers);
        let svg = sm_svg(&s, Bar::Registers, "x");
        assert_eq!(svg.matches(r#"class="regs block-"#).count(), 2);
        assert!(
            svg.contains("Register file: 2 × 24576 registers of 65536"),
            "{svg}"
        );
        assert!(!svg.contains("Shared memory"), "{svg}");
        assert_eq!(
            s.shown,
            [
                ("registers".to_string(), Some("96".to_string())),
                ("median_ms".to_string(), Some("1.000".to_string())),
            ]
        );
        assert!(residency(&s).starts_with("96 registers per thread; 2 blocks resident"));
    }

    #[test]
    fn shows_must_name_quantities_the_record_has() {
        let p: StepperPreset = serde_yaml::from_str(
            "title: T\ndescription: D\nsteps: [a]\nbar: registers\nshows: [median_ms, speed]\n",
        )
        .unwrap();
        assert_eq!(p.bar, Bar::Registers);
        assert!(p.validate().is_ok());
        let c = config("a", 0, 4);
        let err = step(Arch::Sm90, &c, &["speed".into()])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("step `a`") && err.contains("no `speed`"),
            "{err}"
        );
    }

    #[test]
    fn preset_parses_and_rejects_empty_or_repeated_steps() {
        let p: StepperPreset =
            serde_yaml::from_str("title: T\ndescription: D\nsteps: [a, b]\n").unwrap();
        assert_eq!(p.steps, ["a", "b"]);
        assert!(p.validate().is_ok());
        let empty: StepperPreset =
            serde_yaml::from_str("title: T\ndescription: D\nsteps: []\n").unwrap();
        assert!(empty.validate().is_err());
        let twice: StepperPreset =
            serde_yaml::from_str("title: T\ndescription: D\nsteps: [a, a]\n").unwrap();
        assert!(twice
            .validate()
            .unwrap_err()
            .contains("`a` is listed twice"));
        let shows_twice: StepperPreset =
            serde_yaml::from_str("title: T\ndescription: D\nsteps: [a]\nshows: [x, x]\n").unwrap();
        assert_eq!(
            shows_twice.validate().unwrap_err(),
            "`shows` lists `x` twice"
        );
        let shows_blank: StepperPreset =
            serde_yaml::from_str("title: T\ndescription: D\nsteps: [a]\nshows: [' ']\n").unwrap();
        assert_eq!(
            shows_blank.validate().unwrap_err(),
            "`shows` has an empty name"
        );
        assert!(serde_yaml::from_str::<StepperPreset>(
            "title: T\ndescription: D\nsteps: [a]\nextra: 1\n"
        )
        .is_err());
    }

    #[test]
    fn shipped_presets_parse() {
        let templates = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
        for name in ["residency-dials", "ilp-dials", "register-budgets"] {
            let (_, p): (_, StepperPreset) =
                load_preset(&templates, "occupancy-stepper", name).unwrap();
            p.validate().unwrap();
        }
    }

    #[test]
    fn unknown_preset_is_refused_at_check() {
        let templates = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
        let d: DiagramRef = serde_yaml::from_str(
            "kind: occupancy-stepper\npreset: no-such-preset\nexperiment: e\nnode: n\nalt: A\n",
        )
        .unwrap();
        let config: Config = toml::from_str("title = \"t\"\nbase_url = \"u\"\n").unwrap();
        let err = check(&d, &templates, &config).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("unknown occupancy-stepper preset `no-such-preset`"),
            "{msg}"
        );
        assert!(msg.contains("residency-dials"), "{msg}");
        assert_eq!(err.about(&d), "no-such-preset");
    }

    #[test]
    fn stepper_needs_experiment_and_node() {
        let templates = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
        let d: DiagramRef =
            serde_yaml::from_str("kind: occupancy-stepper\npreset: residency-dials\nalt: A\n")
                .unwrap();
        let config: Config = toml::from_str("title = \"t\"\nbase_url = \"u\"\n").unwrap();
        let msg = check(&d, &templates, &config).unwrap_err().to_string();
        assert!(msg.contains("needs `experiment`"), "{msg}");
    }
}
