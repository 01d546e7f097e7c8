//! Diagrams drawn at build time. A kind is code (one module each); a preset is data, a
//! file under `templates/diagrams/<kind>/<preset>.yaml`, so a new preset needs no code.
//!
//! `check` runs at load: it parses the entry's preset and validates it against the
//! config, and `Project` keeps the result in [`DiagramPresets`]. `render` runs when an
//! entry is assessed, with its resolved records, and trusts what `check` accepted.

mod presets;
pub mod stepper;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::content::{DiagramRef, Entry};
use crate::error::{Error, Location, Result};
use crate::render::values::Resolved;

pub use stepper::StepperPreset;

/// The diagram kinds this build can draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiagramKind {
    OccupancyStepper,
}

impl DiagramKind {
    pub const ALL: [DiagramKind; 1] = [DiagramKind::OccupancyStepper];

    pub fn name(self) -> &'static str {
        match self {
            DiagramKind::OccupancyStepper => "occupancy-stepper",
        }
    }

    pub fn parse(name: &str) -> Option<DiagramKind> {
        DiagramKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// A preset file, parsed and validated for its kind.
#[derive(Debug, Clone)]
pub enum Preset {
    OccupancyStepper(StepperPreset),
}

/// Why an entry's diagram cannot be drawn; found at load time.
#[derive(Debug, thiserror::Error)]
pub enum DiagramError {
    #[error("unknown diagram kind `{kind}` (known: {})", DiagramKind::ALL.map(DiagramKind::name).join(", "))]
    UnknownKind { kind: String },
    #[error(
        "unknown {kind} preset `{preset}` (no {}; known: {})",
        path.display(),
        if known.is_empty() { "none".to_string() } else { known.join(", ") }
    )]
    UnknownPreset {
        kind: String,
        preset: String,
        path: PathBuf,
        known: Vec<String>,
    },
    #[error("preset {}{}: {message}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    BadPreset {
        path: PathBuf,
        line: Option<usize>,
        message: String,
    },
    #[error("a {kind} diagram needs `{field}`")]
    MissingField {
        kind: &'static str,
        field: &'static str,
    },
    #[error(
        "node `{node}` has architecture `{arch}`, which the occupancy model does not know: {why}"
    )]
    UnknownArch {
        node: String,
        arch: String,
        why: String,
    },
}

impl DiagramError {
    /// The front-matter value the error is about, so the caller can point at its line.
    pub fn about<'a>(&self, d: &'a DiagramRef) -> &'a str {
        match self {
            DiagramError::UnknownKind { .. } => &d.kind,
            DiagramError::UnknownPreset { .. } | DiagramError::BadPreset { .. } => &d.preset,
            DiagramError::UnknownArch { .. } => d.node.as_deref().unwrap_or("diagram"),
            DiagramError::MissingField { .. } => "diagram",
        }
    }
}

/// Every preset the content's diagrams name, loaded once by `Project::load`.
#[derive(Debug, Default)]
pub struct DiagramPresets {
    by_name: BTreeMap<(String, String), Preset>,
}

impl DiagramPresets {
    pub fn insert(&mut self, d: &DiagramRef, preset: Preset) {
        self.by_name
            .insert((d.kind.clone(), d.preset.clone()), preset);
    }

    pub fn get(&self, d: &DiagramRef) -> Option<&Preset> {
        self.by_name.get(&(d.kind.clone(), d.preset.clone()))
    }
}

/// Reject a diagram the renderer cannot draw, at load time; return its parsed preset.
pub fn check(
    d: &DiagramRef,
    templates: &Path,
    config: &Config,
) -> std::result::Result<Preset, DiagramError> {
    match DiagramKind::parse(&d.kind) {
        Some(DiagramKind::OccupancyStepper) => {
            stepper::check(d, templates, config).map(Preset::OccupancyStepper)
        }
        None => Err(DiagramError::UnknownKind {
            kind: d.kind.clone(),
        }),
    }
}

/// Draw an entry's diagram as HTML: a figure whose accessible name is the alt text.
/// A problem only visible with the record in hand (a step the record lacks, the model
/// disagreeing with the driver) is an error naming the entry file and the preset line.
pub fn render(
    entry: &Entry,
    d: &DiagramRef,
    presets: &DiagramPresets,
    config: &Config,
    resolved: &Resolved,
) -> Result<String> {
    let preset = presets.get(d).ok_or_else(|| {
        Error::Other(format!(
            "{}: diagram preset `{}` was not loaded",
            entry.path.display(),
            d.preset
        ))
    })?;
    let drawn = match preset {
        Preset::OccupancyStepper(p) => stepper::render(d, p, config, resolved),
    };
    drawn.map_err(|why| {
        let line = crate::content::split_front_matter(&entry.path, &entry.raw)
            .ok()
            .and_then(|s| crate::content::line_of_reference(&s, "diagram", &d.preset));
        Error::content(
            &entry.path,
            line.map(|line| Location { line, column: 1 }),
            why.to_string(),
        )
    })
}
