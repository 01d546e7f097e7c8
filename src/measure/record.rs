//! Records: what `verify` measured on one node for one experiment, with provenance.
//! Stored at `measurements/<id>/records/<node>.json`.

use std::path::Path;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

pub const RECORD_SCHEMA: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Record {
    pub schema: u32,
    pub experiment: String,
    pub node: String,
    /// The experiment digest at capture time; a differing current digest makes it stale.
    pub spec_digest: String,
    pub tool_version: String,
    pub captured_at: DateTime<Utc>,
    pub gpu: GpuInfo,
    /// The exact NVRTC options used, the architecture flag included.
    pub compile_options: Vec<String>,
    #[serde(default)]
    pub problem: Problem,
    #[serde(default)]
    pub configs: Vec<ConfigRecord>,
    /// Experiment-specific extra results (e.g. an occupancy sweep's points).
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub extra: serde_json::Value,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct GpuInfo {
    pub name: String,
    pub uuid: String,
    pub compute_capability: String,
    pub sm_count: u32,
    pub driver_version: String,
    pub cuda_driver_api: String,
    pub nvrtc_version: String,
    #[serde(default)]
    pub l2_bytes: Option<u64>,
}

/// Per-SM and per-block limits from `cuDeviceGetAttribute`: what an occupancy model needs
/// to reproduce the driver's answers. Stored in `Record::extra` under `device_limits` (a
/// field of its own would break code that builds `GpuInfo` literally).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct DeviceLimits {
    pub warp_size: u32,
    pub max_threads_per_block: u32,
    pub max_threads_per_sm: u32,
    pub max_blocks_per_sm: u32,
    pub registers_per_sm: u32,
    pub registers_per_block: u32,
    pub shared_memory_per_sm: u32,
    pub shared_memory_per_block: u32,
    pub shared_memory_per_block_optin: u32,
    pub reserved_shared_memory_per_block: u32,
    /// The maximum SM clock (`CU_DEVICE_ATTRIBUTE_CLOCK_RATE`), in MHz.
    pub max_sm_clock_mhz: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct Problem {
    pub elements: u64,
    pub bytes_per_launch: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum ConfigStatus {
    Passed,
    /// The kernel computed wrong values (or failed to launch): no timing is recorded.
    Failed {
        reason: String,
    },
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ConfigRecord {
    pub label: String,
    pub kernel: String,
    pub status: ConfigStatus,
    pub block_size: u32,
    pub elements_per_thread: u32,
    /// Bytes of never-read dynamic shared memory reserved to dial occupancy down.
    pub smem_reserved: u32,
    pub grid_size: u64,
    pub registers: u32,
    pub static_smem: u32,
    pub local_bytes: u32,
    pub blocks_per_sm: u32,
    pub warps_per_sm: u32,
    /// Theoretical occupancy, 0..1, from the driver.
    pub occupancy: f64,
    /// Resident warps times loads a thread issues before its first use.
    pub loads_in_flight: u32,
    pub waves: f64,
    #[serde(default)]
    pub achieved_occupancy: Option<f64>,
    #[serde(default)]
    pub timing: Option<Timing>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Timing {
    pub samples_ms: Vec<f64>,
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    /// Relative standard deviation of the samples (0.005 = 0.5%).
    pub rsd: f64,
    pub gbps: f64,
    #[serde(default)]
    pub sm_clock_mhz: Option<u32>,
    #[serde(default)]
    pub throttled_samples: u32,
    /// False when the time cap stopped sampling before the spread fell under the bound.
    pub converged: bool,
}

/// A cell of a measured table, with its unit so the renderer formats it one way everywhere.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnValue {
    Text(String),
    Integer(i64),
    /// 0..1, shown as a percentage.
    Fraction(f64),
    Number {
        value: f64,
        decimals: usize,
    },
}

impl ColumnValue {
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ColumnValue::Text(_) => None,
            ColumnValue::Integer(i) => Some(*i as f64),
            ColumnValue::Fraction(f) => Some(*f),
            ColumnValue::Number { value, .. } => Some(*value),
        }
    }

    pub fn display(&self) -> String {
        match self {
            ColumnValue::Text(s) => s.clone(),
            ColumnValue::Integer(i) => i.to_string(),
            ColumnValue::Fraction(f) => format!("{:.1}%", f * 100.0),
            ColumnValue::Number { value, decimals } => format!("{value:.decimals$}"),
        }
    }
}

/// Column names an entry may cite, with their headings. One list, so a typo is caught at
/// check time and every table spells a column the same way.
pub const COLUMNS: &[(&str, &str)] = &[
    ("label", "label"),
    ("block_size", "block size"),
    ("elements_per_thread", "elements / thread"),
    ("smem_reserved", "smem reserved (B)"),
    ("blocks_per_sm", "blocks / SM"),
    ("occupancy", "occupancy"),
    ("achieved_occupancy", "achieved occupancy"),
    ("loads_in_flight", "loads in flight / SM"),
    ("registers", "registers / thread"),
    ("waves", "waves"),
    ("median_ms", "median ms"),
    ("min_ms", "min ms"),
    ("max_ms", "max ms"),
    ("rsd", "rsd"),
    ("gbps", "GB/s"),
];

pub fn column_heading(name: &str) -> Option<&'static str> {
    COLUMNS.iter().find(|(n, _)| *n == name).map(|(_, h)| *h)
}

impl ConfigRecord {
    /// The value of a named column, or None when this config has none (e.g. timing of a
    /// failed config, achieved occupancy without ncu).
    pub fn column(&self, name: &str) -> Option<ColumnValue> {
        use ColumnValue::*;
        let t = self.timing.as_ref();
        Some(match name {
            "label" => Text(self.label.clone()),
            "block_size" => Integer(self.block_size.into()),
            "elements_per_thread" => Integer(self.elements_per_thread.into()),
            "smem_reserved" => Integer(self.smem_reserved.into()),
            "blocks_per_sm" => Integer(self.blocks_per_sm.into()),
            "occupancy" => Fraction(self.occupancy),
            "achieved_occupancy" => Fraction(self.achieved_occupancy?),
            "loads_in_flight" => Integer(self.loads_in_flight.into()),
            "registers" => Integer(self.registers.into()),
            "waves" => Number {
                value: self.waves,
                decimals: 2,
            },
            "median_ms" => Number {
                value: t?.median_ms,
                decimals: 3,
            },
            "min_ms" => Number {
                value: t?.min_ms,
                decimals: 3,
            },
            "max_ms" => Number {
                value: t?.max_ms,
                decimals: 3,
            },
            "rsd" => Fraction(t?.rsd),
            "gbps" => Number {
                value: t?.gbps,
                decimals: 1,
            },
            _ => return None,
        })
    }
}

impl Record {
    pub fn load(path: &Path) -> Result<Record> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        serde_json::from_str(&text).map_err(|e| {
            Error::content(
                path,
                Some(crate::error::Location {
                    line: e.line(),
                    column: e.column(),
                }),
                format!("record does not parse: {e}"),
            )
        })
    }

    pub fn config(&self, label: &str) -> Option<&ConfigRecord> {
        self.configs.iter().find(|c| c.label == label)
    }

    /// The provenance line printed under every table cut from this record.
    pub fn provenance(&self) -> String {
        format!(
            "{gpu} (compute capability {cc}, {sms} SMs), driver {drv}, CUDA driver API {api}, NVRTC {nvrtc}, options {opts}, captured {date} by glossary {tool}",
            gpu = self.gpu.name,
            cc = self.gpu.compute_capability,
            sms = self.gpu.sm_count,
            drv = self.gpu.driver_version,
            api = self.gpu.cuda_driver_api,
            nvrtc = self.gpu.nvrtc_version,
            opts = self.compile_options.join(" "),
            date = self.captured_at.format("%Y-%m-%d %H:%M UTC"),
            tool = self.tool_version,
        )
    }

    /// Write atomically: a temporary file in the same folder, then a rename, so a crash
    /// or a failed run never leaves a half-written record in place of a good one.
    pub fn write_atomic(&self, path: &Path) -> Result<()> {
        let mut json = serde_json::to_string_pretty(self)
            .map_err(|e| Error::Other(format!("{}: {e}", path.display())))?;
        json.push('\n');
        crate::atomic::write_file(path, json.as_bytes(), crate::atomic::Durability::Synced)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(median: f64) -> Record {
        Record {
            schema: RECORD_SCHEMA,
            experiment: "e".into(),
            node: "h200".into(),
            spec_digest: "sha256:00".into(),
            tool_version: "0.1.0".into(),
            captured_at: DateTime::parse_from_rfc3339("2026-11-30T16:24:47Z")
                .unwrap()
                .with_timezone(&Utc),
            gpu: GpuInfo::default(),
            compile_options: vec!["--gpu-architecture=sm_90".into()],
            problem: Problem::default(),
            configs: vec![ConfigRecord {
                label: "tlp1".into(),
                kernel: "k".into(),
                status: ConfigStatus::Passed,
                block_size: 512,
                elements_per_thread: 1,
                smem_reserved: 0,
                grid_size: 8,
                registers: 10,
                static_smem: 0,
                local_bytes: 0,
                blocks_per_sm: 4,
                warps_per_sm: 64,
                occupancy: 1.0,
                loads_in_flight: 128,
                waves: 0.5,
                achieved_occupancy: Some(0.69),
                timing: Some(Timing {
                    samples_ms: vec![median, median],
                    median_ms: median,
                    min_ms: median,
                    max_ms: median,
                    rsd: 0.0,
                    gbps: 1.0,
                    sm_clock_mhz: Some(1980),
                    throttled_samples: 0,
                    converged: true,
                }),
            }],
            extra: serde_json::json!({"device_limits": DeviceLimits::default()}),
        }
    }

    #[test]
    fn a_record_round_trips_through_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("records/h200.json");
        record(0.5).write_atomic(&path).unwrap();
        assert_eq!(Record::load(&path).unwrap(), record(0.5));
    }

    #[test]
    fn rewriting_replaces_the_whole_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h200.json");
        record(0.5).write_atomic(&path).unwrap();
        record(0.25).write_atomic(&path).unwrap();
        assert_eq!(Record::load(&path).unwrap(), record(0.25));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_truncated_record_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h200.json");
        record(0.5).write_atomic(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, &text[..text.len() / 2]).unwrap();
        let e = Record::load(&path).unwrap_err().to_string();
        assert!(
            e.contains("h200.json:") && e.contains("record does not parse"),
            "{e}"
        );
    }
}
