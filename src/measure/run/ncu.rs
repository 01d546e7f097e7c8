//! Achieved occupancy from Nsight Compute: verify runs itself under `ncu` in a mode that
//! launches each configuration once, and reads one metric per launch from ncu's CSV.

use std::path::Path;
use std::process::Command;

pub const ACHIEVED_METRIC: &str = "sm__warps_active.avg.pct_of_peak_sustained_active";

/// Whether `ncu` runs here.
pub fn available() -> bool {
    Command::new("ncu")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Run `exe verify --launch-once` under ncu and return, per profiled launch in order, the
/// kernel name and achieved occupancy (0..1). Clocks are left as they are
/// (`--clock-control none`).
pub fn achieved_occupancy(
    exe: &Path,
    root: &Path,
    node: &str,
    experiment: &str,
) -> Result<Vec<(String, f64)>, String> {
    let out = Command::new("ncu")
        .args([
            "--csv",
            "--clock-control",
            "none",
            "--metrics",
            ACHIEVED_METRIC,
        ])
        .arg(exe)
        .args([
            "verify",
            "--launch-once",
            "--node",
            node,
            "--only",
            experiment,
            "--root",
        ])
        .arg(root)
        .output()
        .map_err(|e| format!("could not start ncu: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "ncu exited with {}: {}",
            out.status,
            stderr
                .lines()
                .chain(stdout.lines())
                .rev()
                .take(5)
                .collect::<Vec<_>>()
                .join(" | ")
        ));
    }
    let rows = parse_metric(&stdout, ACHIEVED_METRIC)?;
    Ok(rows.into_iter().map(|(k, pct)| (k, pct / 100.0)).collect())
}

/// From ncu's `--csv` output (details page), the rows of one metric: kernel name and
/// value, in launch (ID) order. Lines that are not CSV (ncu's `==PROF==` notes, the
/// program's own output) are skipped.
pub fn parse_metric(text: &str, metric: &str) -> Result<Vec<(String, f64)>, String> {
    let mut header: Option<Vec<String>> = None;
    let mut rows = Vec::new();
    for line in text.lines().filter(|l| l.starts_with('"')) {
        let fields = split_csv(line);
        let Some(h) = &header else {
            header = Some(fields);
            continue;
        };
        let col = |name: &str| h.iter().position(|f| f == name);
        let (Some(id), Some(kernel), Some(name), Some(value)) = (
            col("ID"),
            col("Kernel Name"),
            col("Metric Name"),
            col("Metric Value"),
        ) else {
            return Err(format!(
                "ncu CSV header lacks ID/Kernel Name/Metric Name/Metric Value: {h:?}"
            ));
        };
        if fields.get(name).map(String::as_str) != Some(metric) {
            continue;
        }
        let id: u64 = fields
            .get(id)
            .and_then(|v| v.parse().ok())
            .ok_or("ncu CSV row without a numeric ID")?;
        let raw = fields.get(value).cloned().unwrap_or_default();
        let v: f64 = raw
            .replace(',', "")
            .parse()
            .map_err(|_| format!("ncu value `{raw}` for {metric} is not a number"))?;
        rows.push((id, fields.get(kernel).cloned().unwrap_or_default(), v));
    }
    if header.is_none() {
        return Err("ncu printed no CSV".into());
    }
    rows.sort_by_key(|r| r.0);
    Ok(rows.into_iter().map(|(_, k, v)| (k, v)).collect())
}

/// One CSV line: fields in double quotes, `""` an escaped quote.
fn split_csv(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    fields.push(cur);
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"==PROF== Connected to process 4242 (/x/glossary)
==PROF== Profiling "axpy_ept1" - 0: 0%....50%....100% - 1 pass
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"1","4242","glossary","127.0.0.1","axpy_ept4","1","7","(512, 1, 1)","(65536, 1, 1)","0","9.0","Command line profiler metrics","sm__warps_active.avg.pct_of_peak_sustained_active","%","91.25"
"0","4242","glossary","127.0.0.1","axpy_ept1","1","7","(512, 1, 1)","(262144, 1, 1)","0","9.0","Command line profiler metrics","sm__warps_active.avg.pct_of_peak_sustained_active","%","88.5"
==PROF== Disconnected from process 4242
"#;

    #[test]
    fn reads_one_metric_per_launch_in_id_order() {
        let rows = parse_metric(SAMPLE, ACHIEVED_METRIC).unwrap();
        assert_eq!(
            rows,
            vec![("axpy_ept1".into(), 88.5), ("axpy_ept4".into(), 91.25)]
        );
    }

    #[test]
    fn no_csv_is_an_error() {
        assert!(parse_metric("==PROF== nothing\n", ACHIEVED_METRIC).is_err());
    }

    #[test]
    fn splits_quoted_fields_with_commas() {
        assert_eq!(
            split_csv(r#""a","(1, 2)","say ""hi""""#),
            ["a", "(1, 2)", "say \"hi\""]
        );
    }
}
