//! Reader for Nsight Compute "details" CSV exports:
//!
//! ```text
//! ncu --csv --page details --section LaunchStats --section Occupancy ./app > report.csv
//! ```
//!
//! The export has one row per (launch, metric) with the columns `"ID"`,
//! `"Kernel Name"`, `"Block Size"`, `"Grid Size"`, `"CC"`, `"Section Name"`,
//! `"Metric Name"`, `"Metric Unit"`, `"Metric Value"` (and more). What real
//! exports contain, seen in `testdata/h200_ncu_details.csv`:
//! - `==PROF==` log lines before the header when stdout is redirected;
//! - rule rows (an empty metric name, text in `"Rule Description"`);
//! - thousands separators in values (`"65,536"`);
//! - `n/a` / `nan` values for a launch that failed or was not profiled.
//!
//! Columns are found by header name, so extra or reordered columns are fine.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;

use super::arch::Arch;
use super::interpret::Reading;
use super::model::{self, BlockLimits, Carveout, Launch, Resource};

/// Why an export could not be read. Every case names the file, and the line
/// where one is known.
#[derive(Debug, thiserror::Error)]
pub enum NcuError {
    // The cause is part of the message (not a `#[source]`), so it shows up
    // once whether the caller prints with `{}` or walks the chain with `{:#}`.
    #[error("cannot read {path}: {cause}")]
    Io { path: String, cause: std::io::Error },
    #[error(
        "{path}: no Nsight Compute header row (a line starting with \"ID\"); \
         export with `ncu --csv --page details --section LaunchStats --section Occupancy`"
    )]
    NoHeader { path: String },
    #[error("{path}:{line}: header has no \"{column}\" column")]
    MissingColumn {
        path: String,
        line: u64,
        column: &'static str,
    },
    #[error("{path}:{line}: malformed CSV: {cause}")]
    Csv {
        path: String,
        line: u64,
        cause: csv::Error,
    },
    #[error("{path}:{line}: row has {found} fields, too few to hold \"Metric Value\"")]
    ShortRow {
        path: String,
        line: u64,
        found: usize,
    },
    #[error("{path}:{line}: launch {id}: \"{metric}\" value \"{value}\" is not a number")]
    BadValue {
        path: String,
        line: u64,
        id: String,
        metric: String,
        value: String,
    },
    #[error("{path}:{line}: launch {id}: \"{metric}\" has unit \"{unit}\", which this reader does not convert")]
    BadUnit {
        path: String,
        line: u64,
        id: String,
        metric: String,
        unit: String,
    },
    #[error(
        "{path}: launch {id} ({kernel}, rows from line {line}) has no \"{metric}\" metric; \
         collect it with `--section {section}`"
    )]
    MissingMetric {
        path: String,
        line: u64,
        id: String,
        kernel: String,
        metric: &'static str,
        section: &'static str,
    },
    #[error("{path}: no kernel launches in the export")]
    NoLaunches { path: String },
}

/// Per-resource block limits as Nsight Compute reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct NcuBlockLimits {
    pub registers: u32,
    pub shared_memory: u32,
    pub warps: u32,
    pub blocks: u32,
    pub barriers: Option<u32>,
}

impl From<NcuBlockLimits> for BlockLimits {
    fn from(l: NcuBlockLimits) -> BlockLimits {
        BlockLimits {
            registers: Some(l.registers),
            shared_memory: Some(l.shared_memory),
            warps: l.warps,
            blocks: l.blocks,
            barriers: l.barriers,
        }
    }
}

/// One profiled kernel launch.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NcuLaunch {
    /// The export's launch ID (`"ID"` column).
    pub id: String,
    pub kernel_name: String,
    /// `"CC"` column, e.g. "9.0".
    pub compute_capability: Option<String>,
    /// Line of the launch's first row in the file.
    pub line: u64,
    pub block_size: u32,
    pub grid_size: u64,
    pub registers_per_thread: u32,
    /// The L1/shared split the driver chose for this launch, in bytes.
    pub shared_memory_config_size: Option<u64>,
    pub driver_shared_memory_per_block: Option<u64>,
    pub dynamic_shared_memory_per_block: Option<u64>,
    pub static_shared_memory_per_block: Option<u64>,
    pub sm_count: Option<u32>,
    pub waves_per_sm: Option<f64>,
    pub limits: NcuBlockLimits,
    /// 0..=1.
    pub theoretical_occupancy: f64,
    pub theoretical_active_warps: Option<f64>,
    /// 0..=1; absent when the export lacks it.
    pub achieved_occupancy: Option<f64>,
    pub achieved_active_warps: Option<f64>,
}

/// A launch present in the export but without usable values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedLaunch {
    pub id: String,
    pub kernel_name: String,
    pub line: u64,
    pub reason: String,
}

/// Everything read from one export.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NcuExport {
    pub source: String,
    /// `sha256:` of the text read: what a page citing the export is signed over (the
    /// review digest binds it, so an edited export withdraws the page's sign-off).
    #[serde(skip)]
    pub digest: String,
    pub launches: Vec<NcuLaunch>,
    pub skipped: Vec<SkippedLaunch>,
}

/// How the model's numbers compare with what Nsight Compute reported.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelComparison {
    pub arch: Option<Arch>,
    /// Empty when the model reproduces every compared figure.
    pub differences: Vec<String>,
    /// Set when no comparison was possible.
    pub skipped_because: Option<String>,
}

impl NcuLaunch {
    pub fn binding(&self) -> Vec<Resource> {
        BlockLimits::from(self.limits).binding()
    }

    pub fn blocks_per_sm(&self) -> u32 {
        BlockLimits::from(self.limits).min()
    }

    /// The numbers the interpretation rules read.
    pub fn reading(&self) -> Reading {
        let tied = self.binding();
        let last_wave_fill = self.sm_count.map(|sms| {
            model::Waves::new(
                self.grid_size.max(1),
                self.blocks_per_sm().max(1),
                sms.max(1),
            )
            .last_wave_fill
        });
        Reading {
            block_size: self.block_size,
            binding: tied[0],
            tied,
            theoretical: self.theoretical_occupancy,
            achieved: self.achieved_occupancy,
            waves: self.waves_per_sm,
            last_wave_fill,
        }
    }

    /// Re-derives the launch's limits with the model, using the shared
    /// memory split the driver actually chose, and lists disagreements.
    ///
    /// Barriers are left out: the export does not say how many named
    /// barriers the kernel uses, and for one-barrier kernels on the H200
    /// ncu printed 32 where the calculator's rule gives 64 (never binding
    /// either way).
    pub fn compare_with_model(&self) -> ModelComparison {
        let arch = match self
            .compute_capability
            .as_deref()
            .map(Arch::from_compute_capability)
        {
            Some(Ok(arch)) => arch,
            Some(Err(e)) => return ModelComparison::skipped(None, e.to_string()),
            None => return ModelComparison::skipped(None, "the export has no CC column".into()),
        };
        let mut launch = Launch::new(self.block_size, self.registers_per_thread)
            .with_static_shared_memory(self.static_shared_memory_per_block.unwrap_or(0))
            .with_dynamic_shared_memory(self.dynamic_shared_memory_per_block.unwrap_or(0))
            .with_grid(self.grid_size.max(1));
        if let Some(bytes) = self.shared_memory_config_size {
            launch = launch.with_carveout(Carveout::Bytes(bytes));
        }
        let occ = match model::compute(arch, &launch, self.sm_count) {
            Ok(occ) => occ,
            Err(e) => return ModelComparison::skipped(Some(arch), e.to_string()),
        };
        let mut differences = Vec::new();
        let mut compare = |what: &str, model: Option<u32>, ncu: u32| {
            // The model's "no limit" and a limit above every other one are the
            // same fact; only compare when the model has a number.
            if let Some(m) = model {
                if m != ncu {
                    differences.push(format!("{what}: model {m}, ncu {ncu}"));
                }
            }
        };
        compare(
            "registers limit",
            occ.limits.registers,
            self.limits.registers,
        );
        compare(
            "shared memory limit",
            occ.limits.shared_memory,
            self.limits.shared_memory,
        );
        compare("warps limit", Some(occ.limits.warps), self.limits.warps);
        compare("blocks limit", Some(occ.limits.blocks), self.limits.blocks);
        if (occ.occupancy - self.theoretical_occupancy).abs() > 0.005 {
            differences.push(format!(
                "theoretical occupancy: model {:.1}%, ncu {:.1}%",
                occ.occupancy * 100.0,
                self.theoretical_occupancy * 100.0
            ));
        }
        if let Some(reserved) = self.driver_shared_memory_per_block {
            let expected = arch.limits().reserved_shared_memory_per_block;
            if reserved != expected {
                differences.push(format!(
                    "driver shared memory per block: table {expected} B, ncu {reserved} B"
                ));
            }
        }
        ModelComparison {
            arch: Some(arch),
            differences,
            skipped_because: None,
        }
    }
}

impl ModelComparison {
    fn skipped(arch: Option<Arch>, why: String) -> ModelComparison {
        ModelComparison {
            arch,
            differences: Vec::new(),
            skipped_because: Some(why),
        }
    }
}

/// Reads an export from disk.
pub fn read_ncu_csv(path: &Path) -> Result<NcuExport, NcuError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|cause| NcuError::Io {
        path: name.clone(),
        cause,
    })?;
    parse_ncu_csv(&text, &name)
}

/// Parses export text; `source` names it in errors.
pub fn parse_ncu_csv(text: &str, source: &str) -> Result<NcuExport, NcuError> {
    let path = source.to_string();
    // Skip ncu's own log lines that precede the table on stdout.
    let (header_index, header_offset) = text
        .split_inclusive('\n')
        .scan(0usize, |offset, line| {
            let start = *offset;
            *offset += line.len();
            Some((start, line))
        })
        .enumerate()
        .find(|(_, (_, line))| line.trim_start().starts_with("\"ID\""))
        .map(|(i, (start, _))| (i as u64, start))
        .ok_or_else(|| NcuError::NoHeader { path: path.clone() })?;
    let first_line = header_index + 1;

    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(&text.as_bytes()[header_offset..]);
    let header = reader
        .headers()
        .map_err(|cause| NcuError::Csv {
            path: path.clone(),
            line: first_line,
            cause,
        })?
        .clone();
    let column = |name: &'static str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| NcuError::MissingColumn {
                path: path.clone(),
                line: first_line,
                column: name,
            })
    };
    let cols = Columns {
        id: column("ID")?,
        kernel: column("Kernel Name")?,
        metric: column("Metric Name")?,
        unit: column("Metric Unit")?,
        value: column("Metric Value")?,
        block: header.iter().position(|h| h == "Block Size"),
        grid: header.iter().position(|h| h == "Grid Size"),
        cc: header.iter().position(|h| h == "CC"),
    };

    let mut order: Vec<String> = Vec::new();
    let mut rows: HashMap<String, RawLaunch> = HashMap::new();
    for record in reader.records() {
        let record = record.map_err(|cause| NcuError::Csv {
            path: path.clone(),
            line: header_index + cause.position().map_or(0, |p| p.line()),
            cause,
        })?;
        let line = header_index + record.position().map_or(0, |p| p.line());
        if record.iter().all(|f| f.trim().is_empty()) {
            continue;
        }
        // ncu interleaves its log ("==PROF== ...", "==WARNING== ...") with
        // the table when both go to stdout.
        if record.len() == 1 && record[0].trim_start().starts_with("==") {
            continue;
        }
        if record.len() <= cols.value {
            return Err(NcuError::ShortRow {
                path: path.clone(),
                line,
                found: record.len(),
            });
        }
        let id = record[cols.id].to_string();
        let raw = rows.entry(id.clone()).or_insert_with(|| {
            order.push(id.clone());
            let field = |c: Option<usize>| c.and_then(|c| record.get(c)).map(str::to_string);
            RawLaunch {
                id: id.clone(),
                kernel: record[cols.kernel].to_string(),
                line,
                block_column: field(cols.block),
                grid_column: field(cols.grid),
                cc: field(cols.cc).filter(|s| !s.is_empty()),
                metrics: HashMap::new(),
            }
        });
        let metric = record[cols.metric].trim();
        // Rule rows carry advice text, not a metric.
        if metric.is_empty() {
            continue;
        }
        raw.metrics.entry(metric.to_string()).or_insert(RawMetric {
            unit: record[cols.unit].trim().to_string(),
            value: record[cols.value].trim().to_string(),
            line,
        });
    }

    let mut export = NcuExport {
        source: path.clone(),
        digest: {
            use sha2::Digest as _;
            format!(
                "sha256:{}",
                hex::encode(sha2::Sha256::digest(text.as_bytes()))
            )
        },
        launches: Vec::new(),
        skipped: Vec::new(),
    };
    for id in order {
        let Some(raw) = rows.remove(&id) else {
            continue;
        };
        if raw.metrics.values().all(|m| is_absent(&m.value)) {
            export.skipped.push(SkippedLaunch {
                id: raw.id,
                kernel_name: raw.kernel,
                line: raw.line,
                reason: "every metric is n/a: the launch failed or was not profiled".into(),
            });
            continue;
        }
        export.launches.push(raw.into_launch(&path)?);
    }
    if export.launches.is_empty() && export.skipped.is_empty() {
        return Err(NcuError::NoLaunches { path });
    }
    Ok(export)
}

struct Columns {
    id: usize,
    kernel: usize,
    metric: usize,
    unit: usize,
    value: usize,
    block: Option<usize>,
    grid: Option<usize>,
    cc: Option<usize>,
}

struct RawMetric {
    unit: String,
    value: String,
    line: u64,
}

struct RawLaunch {
    id: String,
    kernel: String,
    line: u64,
    block_column: Option<String>,
    grid_column: Option<String>,
    cc: Option<String>,
    metrics: HashMap<String, RawMetric>,
}

const LAUNCH_STATS: &str = "LaunchStats";
const OCCUPANCY: &str = "Occupancy";

impl RawLaunch {
    fn into_launch(self, path: &str) -> Result<NcuLaunch, NcuError> {
        let block_size = match self.number("Block Size", path)? {
            Some(v) => to_u32(v),
            None => self
                .dims_product(self.block_column.as_deref())
                .map(to_u32)
                .ok_or_else(|| self.missing("Block Size", LAUNCH_STATS, path))?,
        };
        let grid_size = match self.number("Grid Size", path)? {
            Some(v) => v.round() as u64,
            None => self
                .dims_product(self.grid_column.as_deref())
                .map(|v| v.round() as u64)
                .ok_or_else(|| self.missing("Grid Size", LAUNCH_STATS, path))?,
        };
        Ok(NcuLaunch {
            block_size,
            grid_size,
            registers_per_thread: to_u32(self.required(
                "Registers Per Thread",
                LAUNCH_STATS,
                path,
            )?),
            shared_memory_config_size: self.bytes("Shared Memory Configuration Size", path)?,
            driver_shared_memory_per_block: self.bytes("Driver Shared Memory Per Block", path)?,
            dynamic_shared_memory_per_block: self.bytes("Dynamic Shared Memory Per Block", path)?,
            static_shared_memory_per_block: self.bytes("Static Shared Memory Per Block", path)?,
            sm_count: self.number("# SMs", path)?.map(to_u32),
            waves_per_sm: self.number("Waves Per SM", path)?,
            limits: NcuBlockLimits {
                registers: to_u32(self.required("Block Limit Registers", OCCUPANCY, path)?),
                shared_memory: to_u32(self.required("Block Limit Shared Mem", OCCUPANCY, path)?),
                warps: to_u32(self.required("Block Limit Warps", OCCUPANCY, path)?),
                blocks: to_u32(self.required("Block Limit SM", OCCUPANCY, path)?),
                barriers: self.number("Block Limit Barriers", path)?.map(to_u32),
            },
            theoretical_occupancy: self
                .fraction("Theoretical Occupancy", path)?
                .ok_or_else(|| self.missing("Theoretical Occupancy", OCCUPANCY, path))?,
            theoretical_active_warps: self.number("Theoretical Active Warps per SM", path)?,
            achieved_occupancy: self.fraction("Achieved Occupancy", path)?,
            achieved_active_warps: self.number("Achieved Active Warps Per SM", path)?,
            id: self.id,
            kernel_name: self.kernel,
            compute_capability: self.cc,
            line: self.line,
        })
    }

    fn missing(&self, metric: &'static str, section: &'static str, path: &str) -> NcuError {
        NcuError::MissingMetric {
            path: path.to_string(),
            line: self.line,
            id: self.id.clone(),
            kernel: self.kernel.clone(),
            metric,
            section,
        }
    }

    fn required(
        &self,
        metric: &'static str,
        section: &'static str,
        path: &str,
    ) -> Result<f64, NcuError> {
        self.number(metric, path)?
            .ok_or_else(|| self.missing(metric, section, path))
    }

    /// The metric's value as a number; `None` if absent or `n/a`.
    fn number(&self, metric: &str, path: &str) -> Result<Option<f64>, NcuError> {
        let Some(raw) = self.metrics.get(metric) else {
            return Ok(None);
        };
        if is_absent(&raw.value) {
            return Ok(None);
        }
        parse_number(&raw.value)
            .map(Some)
            .ok_or_else(|| NcuError::BadValue {
                path: path.to_string(),
                line: raw.line,
                id: self.id.clone(),
                metric: metric.to_string(),
                value: raw.value.clone(),
            })
    }

    fn bad_unit(&self, metric: &str, path: &str) -> NcuError {
        let raw = &self.metrics[metric];
        NcuError::BadUnit {
            path: path.to_string(),
            line: raw.line,
            id: self.id.clone(),
            metric: metric.to_string(),
            unit: raw.unit.clone(),
        }
    }

    /// A byte quantity, converted from whatever byte unit ncu printed.
    fn bytes(&self, metric: &str, path: &str) -> Result<Option<u64>, NcuError> {
        let Some(value) = self.number(metric, path)? else {
            return Ok(None);
        };
        let unit = self.metrics[metric].unit.as_str();
        let scale = match unit.trim_end_matches("/block") {
            "byte" | "" => 1.0,
            "Kbyte" => 1e3,
            "Mbyte" => 1e6,
            "KiB" | "Kibyte" => 1024.0,
            "MiB" | "Mibyte" => 1024.0 * 1024.0,
            _ => return Err(self.bad_unit(metric, path)),
        };
        Ok(Some((value * scale).round() as u64))
    }

    /// A percentage as a fraction in 0..=1.
    fn fraction(&self, metric: &str, path: &str) -> Result<Option<f64>, NcuError> {
        let Some(value) = self.number(metric, path)? else {
            return Ok(None);
        };
        match self.metrics[metric].unit.as_str() {
            "%" => Ok(Some(value / 100.0)),
            _ => Err(self.bad_unit(metric, path)),
        }
    }

    /// Product of a "(x, y, z)" launch-dimension column.
    fn dims_product(&self, text: Option<&str>) -> Option<f64> {
        let inner = text?.trim().strip_prefix('(')?.strip_suffix(')')?;
        inner
            .split(',')
            .map(|d| d.trim().parse::<f64>().ok())
            .product::<Option<f64>>()
            .filter(|&v| v > 0.0)
    }
}

fn is_absent(value: &str) -> bool {
    let v = value.trim();
    v.is_empty() || v.eq_ignore_ascii_case("n/a") || v.eq_ignore_ascii_case("nan")
}

/// Numbers as ncu prints them: "," groups thousands, "." is the decimal point.
fn parse_number(value: &str) -> Option<f64> {
    let cleaned: String = value.chars().filter(|&c| c != ',').collect();
    cleaned.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

fn to_u32(value: f64) -> u32 {
    // Counts in the export are whole numbers; clamp rather than wrap.
    value.round().clamp(0.0, f64::from(u32::MAX)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    const H200: &str = include_str!("testdata/h200_ncu_details.csv");

    /// FORMAT SAMPLE, not a measurement: hand-written rows in the exact
    /// layout of an ncu details export, used to exercise parsing paths the
    /// recorded H200 export does not hit (a failed launch, a missing
    /// section, scaled units).
    const HEADER: &str = "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";

    fn sample_row(id: u32, metric: &str, unit: &str, value: &str) -> String {
        let section = if metric.starts_with("Block Limit") || metric.contains("Occupancy") {
            "Occupancy"
        } else {
            "Launch Statistics"
        };
        format!(
            "\"{id}\",\"1\",\"app\",\"host\",\"k()\",\"1\",\"7\",\"(128, 2, 1)\",\"(1024, 1, 1)\",\"0\",\"8.0\",\"{section}\",\"{metric}\",\"{unit}\",\"{value}\"\n"
        )
    }

    fn sample(id: u32, skip: &[&str]) -> String {
        [
            ("Registers Per Thread", "register/thread", "64"),
            ("Shared Memory Configuration Size", "Kbyte", "167.94"),
            ("Dynamic Shared Memory Per Block", "byte/block", "16,384"),
            ("Static Shared Memory Per Block", "byte/block", "0"),
            ("# SMs", "SM", "108"),
            ("Waves Per SM", "", "2.37"),
            ("Block Limit Registers", "block", "4"),
            ("Block Limit Shared Mem", "block", "9"),
            ("Block Limit Warps", "block", "8"),
            ("Block Limit SM", "block", "32"),
            ("Theoretical Occupancy", "%", "50"),
            ("Achieved Occupancy", "%", "45.5"),
        ]
        .iter()
        .filter(|(m, _, _)| !skip.contains(m))
        .map(|(m, u, v)| sample_row(id, m, u, v))
        .collect()
    }

    #[test]
    fn reads_recorded_h200_export() {
        let export = parse_ncu_csv(H200, "h200_ncu_details.csv").unwrap();
        assert!(export.skipped.is_empty());
        let ids: Vec<&str> = export.launches.iter().map(|l| l.id.as_str()).collect();
        assert_eq!(ids, ["0", "1", "2", "3"]);

        let first = &export.launches[0];
        assert_eq!(
            first.kernel_name,
            "axpy_smem(float, const float *, float *, int)"
        );
        assert_eq!(first.compute_capability.as_deref(), Some("9.0"));
        assert_eq!(first.block_size, 256);
        assert_eq!(first.grid_size, 65_536);
        assert_eq!(first.registers_per_thread, 16);
        assert_eq!(first.shared_memory_config_size, Some(32_768));
        assert_eq!(first.sm_count, Some(132));
        assert_eq!(first.waves_per_sm, Some(62.06));
        assert_eq!(first.binding(), vec![Resource::Warps]);
        assert_eq!(first.theoretical_occupancy, 1.0);
        assert!((first.achieved_occupancy.unwrap() - 0.743).abs() < 1e-9);

        let odd = &export.launches[2];
        assert_eq!((odd.block_size, odd.grid_size), (1000, 100));

        let heavy = &export.launches[3];
        assert_eq!(heavy.registers_per_thread, 56);
        assert_eq!(heavy.binding(), vec![Resource::Registers]);
        assert_eq!(heavy.theoretical_occupancy, 0.5);
    }

    #[test]
    fn model_reproduces_every_recorded_h200_launch() {
        let export = parse_ncu_csv(H200, "h200_ncu_details.csv").unwrap();
        for launch in &export.launches {
            let cmp = launch.compare_with_model();
            assert_eq!(cmp.arch, Some(Arch::Sm90));
            assert_eq!(cmp.skipped_because, None);
            assert!(
                cmp.differences.is_empty(),
                "launch {}: {:?}",
                launch.id,
                cmp.differences
            );
        }
    }

    #[test]
    fn thousands_separators_and_scaled_units_are_converted() {
        let text = format!("{HEADER}{}", sample(0, &[]));
        let export = parse_ncu_csv(&text, "sample.csv").unwrap();
        let l = &export.launches[0];
        assert_eq!(l.dynamic_shared_memory_per_block, Some(16_384));
        assert_eq!(l.shared_memory_config_size, Some(167_940));
        // No Block Size / Grid Size metric rows: taken from the columns.
        assert_eq!(l.block_size, 256);
        assert_eq!(l.grid_size, 1024);
        assert_eq!(l.binding(), vec![Resource::Registers]);
    }

    #[test]
    fn log_lines_and_failed_launches_are_skipped() {
        let failed: String = [
            "Block Size",
            "Registers Per Thread",
            "Theoretical Occupancy",
        ]
        .iter()
        .map(|m| sample_row(1, m, "", "n/a"))
        .collect();
        let text = format!(
            "==PROF== Connected to process 1 (app)\n{HEADER}{}{failed}==PROF== Disconnected\n",
            sample(0, &[])
        );
        let export = parse_ncu_csv(&text, "sample.csv").unwrap();
        assert_eq!(export.launches.len(), 1);
        assert_eq!(export.skipped.len(), 1);
        assert_eq!(export.skipped[0].id, "1");
        assert_eq!(export.skipped[0].line, 15);
    }

    #[test]
    fn missing_occupancy_section_names_file_launch_and_section() {
        let text = format!("{HEADER}{}", sample(7, &["Block Limit Warps"]));
        let err = parse_ncu_csv(&text, "report.csv").unwrap_err();
        let msg = err.to_string();
        assert!(matches!(
            err,
            NcuError::MissingMetric {
                metric: "Block Limit Warps",
                ..
            }
        ));
        assert!(msg.contains("report.csv"), "{msg}");
        assert!(msg.contains("launch 7"), "{msg}");
        assert!(msg.contains("--section Occupancy"), "{msg}");
    }

    #[test]
    fn malformed_input_is_reported_with_file_and_line() {
        let err = parse_ncu_csv("kernel,time\nfoo,1\n", "notncu.csv").unwrap_err();
        assert!(matches!(err, NcuError::NoHeader { .. }));
        assert!(err.to_string().contains("notncu.csv"));

        let bad_value = format!(
            "{HEADER}{}",
            sample(0, &[]).replace("\"64\"", "\"sixty-four\"")
        );
        let err = parse_ncu_csv(&bad_value, "r.csv").unwrap_err();
        assert!(matches!(err, NcuError::BadValue { line: 2, .. }), "{err}");
        assert!(err.to_string().starts_with("r.csv:2:"));

        let short = format!("{HEADER}\"0\",\"1\",\"app\"\n");
        let err = parse_ncu_csv(&short, "r.csv").unwrap_err();
        assert!(
            matches!(
                err,
                NcuError::ShortRow {
                    line: 2,
                    found: 3,
                    ..
                }
            ),
            "{err}"
        );

        let no_column = "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Value\"\n";
        let err = parse_ncu_csv(no_column, "r.csv").unwrap_err();
        assert!(matches!(
            err,
            NcuError::MissingColumn {
                column: "Metric Unit",
                ..
            }
        ));

        let err = parse_ncu_csv(HEADER, "empty.csv").unwrap_err();
        assert!(matches!(err, NcuError::NoLaunches { .. }));

        let err = read_ncu_csv(Path::new("/nonexistent/report.csv")).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/report.csv"));
    }

    #[test]
    fn unknown_unit_is_an_error_not_a_guess() {
        let text = format!(
            "{HEADER}{}",
            sample(0, &[]).replace("\"%\",\"50\"", "\"ratio\",\"50\"")
        );
        let err = parse_ncu_csv(&text, "r.csv").unwrap_err();
        assert!(matches!(err, NcuError::BadUnit { .. }), "{err}");
    }
}
