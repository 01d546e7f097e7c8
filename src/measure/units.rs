//! Kept runs grouped by the GPU unit that measured them (its UUID): how far each row's
//! median moves between runs on one unit, and between units of the same model. Three
//! runs on one unit say little about another unit (issue 38: claims that held on three
//! runs of one H200 failed on a second one), so `glossary records history` prints both.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::record::Record;

/// A row's spreads: the largest within one unit (over units with two or more runs) and
/// the spread of the units' own medians.
#[derive(Debug, Clone, PartialEq)]
pub struct RowSpread {
    pub label: String,
    pub within: Option<f64>,
    pub between: Option<f64>,
}

/// `max / min - 1` of positive values; None for fewer than two.
fn spread(values: &[f64]) -> Option<f64> {
    if values.len() < 2
        || values
            .iter()
            .any(|v| v.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater))
    {
        return None;
    }
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    Some(max / min - 1.0)
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// Every timed row's spreads over `runs` (kept runs of one experiment on one node).
pub fn row_spreads(runs: &[&Record]) -> Vec<RowSpread> {
    let Some(first) = runs.last() else {
        return Vec::new();
    };
    first
        .configs
        .iter()
        .filter(|c| c.timing.is_some())
        .map(|c| {
            let mut by_unit: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
            for r in runs {
                if let Some(t) = r.config(&c.label).and_then(|c| c.timing.as_ref()) {
                    by_unit.entry(&r.gpu.uuid).or_default().push(t.median_ms);
                }
            }
            let within = by_unit
                .values()
                .filter_map(|v| spread(v))
                .fold(None, |m: Option<f64>, s| Some(m.map_or(s, |m| m.max(s))));
            let unit_medians: Vec<f64> = by_unit.values_mut().map(|v| median(v)).collect();
            RowSpread {
                label: c.label.clone(),
                within,
                between: spread(&unit_medians),
            }
        })
        .collect()
}

/// What `records history` prints under the runs: the units and their run counts, then the
/// median and worst row spread within a unit and between units.
pub fn unit_spread(node: &str, runs: &[(String, &Record)]) -> String {
    let records: Vec<&Record> = runs.iter().map(|(_, r)| *r).collect();
    let mut units: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &records {
        *units.entry(&r.gpu.uuid).or_default() += 1;
    }
    let mut out = format!(
        "\n{node}: {} kept run(s) on {} GPU unit(s): {}\n",
        records.len(),
        units.len(),
        units
            .iter()
            .map(|(u, n)| format!("{u} ({n})"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let rows = row_spreads(&records);
    let summary = |pick: fn(&RowSpread) -> Option<f64>, what: &str| -> String {
        let mut v: Vec<(f64, &str)> = rows
            .iter()
            .filter_map(|r| pick(r).map(|s| (s, r.label.as_str())))
            .collect();
        if v.is_empty() {
            return format!("  {what}: no row has two values to compare\n");
        }
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut values: Vec<f64> = v.iter().map(|x| x.0).collect();
        let (worst, label) = v[v.len() - 1];
        format!(
            "  {what}: median row {:.2}%, worst row {:.2}% ({label})\n",
            median(&mut values) * 100.0,
            worst * 100.0
        )
    };
    out.push_str(&summary(
        |r| r.within,
        "spread of row medians within one unit",
    ));
    out.push_str(&summary(
        |r| r.between,
        "spread of row medians between units",
    ));
    let _ = writeln!(out, "  {:<16} {:>10} {:>10}", "row", "within", "between");
    for r in &rows {
        let pct = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{:.2}%", x * 100.0));
        let _ = writeln!(
            out,
            "  {:<16} {:>10} {:>10}",
            r.label,
            pct(r.within),
            pct(r.between)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(uuid: &str, ms: f64) -> Record {
        crate::measure::record::test_record(
            uuid,
            serde_json::json!([{"label": "a", "kernel": "k", "status": {"state": "passed"},
                         "block_size": 32, "smem_reserved": 0, "grid_size": 1, "registers": 8,
                         "static_smem": 0, "local_bytes": 0, "blocks_per_sm": 1,
                         "warps_per_sm": 1, "occupancy": 0.5, "waves": 1.0,
                         "timing": {"samples_ms": [ms], "median_ms": ms, "min_ms": ms,
                                    "max_ms": ms, "rsd": 0.0, "converged": true}}]),
        )
    }

    #[test]
    fn spreads_are_within_a_unit_and_between_the_units_medians() {
        let runs = [
            run("GPU-1", 1.00),
            run("GPU-1", 1.01),
            run("GPU-1", 1.02),
            run("GPU-2", 1.05),
            run("GPU-2", 1.06),
        ];
        let refs: Vec<&Record> = runs.iter().collect();
        let s = &row_spreads(&refs)[0];
        // Within: unit 1 spans 1.00-1.02 (2%), unit 2 1.05-1.06 (0.95%): the larger.
        assert!((s.within.unwrap() - 0.02).abs() < 1e-12, "{s:?}");
        // Between: unit medians 1.01 and 1.055.
        assert!(
            (s.between.unwrap() - (1.055 / 1.01 - 1.0)).abs() < 1e-12,
            "{s:?}"
        );
        let one_unit: Vec<&Record> = runs[..3].iter().collect();
        assert_eq!(row_spreads(&one_unit)[0].between, None);
        let named: Vec<(String, &Record)> = runs.iter().map(|r| ("x".to_string(), r)).collect();
        let text = unit_spread("h200", &named);
        assert!(
            text.contains("5 kept run(s) on 2 GPU unit(s): GPU-1 (3), GPU-2 (2)"),
            "{text}"
        );
        assert!(text.contains("between units: median row 4.46%"), "{text}");
    }
}
