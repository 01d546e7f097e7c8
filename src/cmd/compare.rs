//! `glossary compare OLD.json NEW.json [--fail-on slower|faster|ambiguous|different|any]`: every row
//! of two records of one experiment, both intervals, and a verdict.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};

use crate::measure::compare::{compare, Comparison};
use crate::measure::verdict::{Change, Estimate, DEFAULT_TOLERANCE};
use crate::measure::Record;

#[derive(clap::Args, Debug)]
pub struct CompareArgs {
    /// The earlier record.
    pub old: PathBuf,
    /// The later record.
    pub new: PathBuf,
    /// Exit 1 when some row has one of these verdicts (`any`: every verdict but SAME).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub fail_on: Vec<FailOn>,
    /// The SAME band, a fraction (0.05 = 5%). Default: the experiment's
    /// `timing: {reproducibility: ...}` as the new record keeps it, else 5%.
    #[arg(long)]
    pub tolerance: Option<f64>,
    /// Print the comparison as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailOn {
    Slower,
    Faster,
    Ambiguous,
    Different,
    Any,
}

impl FailOn {
    fn matches(self, c: Change) -> bool {
        match self {
            FailOn::Slower => c == Change::Slower,
            FailOn::Faster => c == Change::Faster,
            FailOn::Ambiguous => c == Change::Ambiguous,
            FailOn::Different => c == Change::Different,
            FailOn::Any => c != Change::Same,
        }
    }
}

/// The tolerance a record's experiment set, as its timing policy was recorded.
fn recorded_tolerance(r: &Record) -> Option<f64> {
    r.extra
        .get("timing_policy")?
        .get("reproducibility")?
        .as_f64()
        .filter(|t| *t > 0.0 && *t < 1.0)
}

pub fn run(args: &CompareArgs) -> Result<()> {
    let old = Record::load(&args.old)?;
    let new = Record::load(&args.new)?;
    let tolerance = match args.tolerance {
        Some(t) if !(t > 0.0 && t < 1.0) => {
            bail!("--tolerance {t} must be between 0 and 1 (0.05 = 5%)")
        }
        Some(t) => t,
        None => recorded_tolerance(&new).unwrap_or(DEFAULT_TOLERANCE),
    };
    let cmp = compare(&old, &new, tolerance)
        .with_context(|| format!("{} against {}", args.new.display(), args.old.display()))?;
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&cmp)?)?;
    } else {
        print_table(&mut out, &cmp, &old, &new)?;
    }
    let failing: Vec<&str> = cmp
        .rows
        .iter()
        .filter(|r| args.fail_on.iter().any(|f| f.matches(r.verdict)))
        .map(|r| r.label.as_str())
        .collect();
    if !failing.is_empty() {
        bail!(
            "{} row(s) with a verdict named by --fail-on: {}",
            failing.len(),
            failing.join(", ")
        );
    }
    Ok(())
}

fn print_table(
    out: &mut impl Write,
    cmp: &Comparison,
    old: &Record,
    new: &Record,
) -> std::io::Result<()> {
    writeln!(
        out,
        "{}: old captured {} on {}, new captured {} on {}; SAME within ±{:.1}% (median ms, 95% intervals; ratio new/old, conservative); the driver's answers must match exactly and counters (ncu) within ±{:.1}%, else DIFFERENT",
        cmp.experiment,
        old.captured_at.format("%Y-%m-%d %H:%M UTC"),
        old.gpu.uuid,
        new.captured_at.format("%Y-%m-%d %H:%M UTC"),
        new.gpu.uuid,
        cmp.tolerance * 100.0,
        cmp.counter_tolerance * 100.0
    )?;
    writeln!(
        out,
        "{:<16} {:>30} {:>30} {:>26}  verdict",
        "row", "old", "new", "new/old"
    )?;
    let show = |s: Option<crate::measure::compare::Span>, d: usize| {
        s.map_or("-".to_string(), |s| format!("{:.d$}", Estimate::from(s)))
    };
    for r in &cmp.rows {
        writeln!(
            out,
            "{:<16} {:>30} {:>30} {:>26}  {}{}",
            r.label,
            show(r.old, 4),
            show(r.new, 4),
            show(r.ratio, 3),
            r.verdict,
            if r.notes.is_empty() {
                String::new()
            } else {
                format!(" ({})", r.notes.join("; "))
            }
        )?;
    }
    let count = |c: Change| cmp.rows.iter().filter(|r| r.verdict == c).count();
    writeln!(
        out,
        "{} SAME, {} FASTER, {} SLOWER, {} AMBIGUOUS, {} DIFFERENT",
        count(Change::Same),
        count(Change::Faster),
        count(Change::Slower),
        count(Change::Ambiguous),
        count(Change::Different)
    )
}
