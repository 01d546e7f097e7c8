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

/// One profiled kernel launch: its name and each metric's (unit, value).
#[derive(Debug, Clone, PartialEq)]
pub struct Profiled {
    pub kernel: String,
    pub metrics: std::collections::BTreeMap<String, (String, f64)>,
}

/// Run `exe verify --launch-once` under ncu, collecting `metrics` for every launch in one
/// pass, and return the launches in order. Clocks are left as they are
/// (`--clock-control none`).
pub fn profile(
    exe: &Path,
    root: &Path,
    node: &str,
    experiment: &str,
    metrics: &[String],
) -> Result<Vec<Profiled>, String> {
    let out = Command::new("ncu")
        .args(["--csv", "--clock-control", "none", "--metrics"])
        .arg(metrics.join(","))
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
    parse_launches(&stdout, metrics)
}

/// From ncu's `--csv` output (details page), every launch in ID order with the values of
/// `metrics`. A metric ncu did not report for a launch is an error naming it (a misspelt
/// metric name, or one this GPU does not have).
pub fn parse_launches(text: &str, metrics: &[String]) -> Result<Vec<Profiled>, String> {
    let mut header: Option<Vec<String>> = None;
    let mut by_id: std::collections::BTreeMap<u64, Profiled> = Default::default();
    for line in text.lines().filter(|l| l.starts_with('"')) {
        let fields = split_csv(line);
        let Some(h) = &header else {
            header = Some(fields);
            continue;
        };
        let col = |name: &str| h.iter().position(|f| f == name);
        let (Some(id), Some(kernel), Some(name), Some(unit), Some(value)) = (
            col("ID"),
            col("Kernel Name"),
            col("Metric Name"),
            col("Metric Unit"),
            col("Metric Value"),
        ) else {
            return Err(format!(
                "ncu CSV header lacks ID/Kernel Name/Metric Name/Metric Unit/Metric Value: {h:?}"
            ));
        };
        let id: u64 = fields
            .get(id)
            .and_then(|v| v.parse().ok())
            .ok_or("ncu CSV row without a numeric ID")?;
        let metric = fields.get(name).cloned().unwrap_or_default();
        let raw = fields.get(value).cloned().unwrap_or_default();
        let entry = by_id.entry(id).or_insert_with(|| Profiled {
            kernel: fields.get(kernel).cloned().unwrap_or_default(),
            metrics: Default::default(),
        });
        if !metrics.contains(&metric) {
            continue;
        }
        let v: f64 = raw
            .replace(',', "")
            .parse()
            .map_err(|_| format!("ncu value `{raw}` for {metric} is not a number"))?;
        entry
            .metrics
            .insert(metric, (fields.get(unit).cloned().unwrap_or_default(), v));
    }
    if header.is_none() {
        return Err("ncu printed no CSV".into());
    }
    let launches: Vec<Profiled> = by_id.into_values().collect();
    for (i, l) in launches.iter().enumerate() {
        if let Some(m) = metrics.iter().find(|m| !l.metrics.contains_key(*m)) {
            return Err(format!(
                "ncu reported no `{m}` for launch {i} ({}): is the metric name right for this GPU?",
                l.kernel
            ));
        }
    }
    Ok(launches)
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
    fn reads_every_metric_per_launch_in_id_order_with_units() {
        let text = SAMPLE.replace(
            "\"88.5\"\n",
            "\"88.5\"\n\"0\",\"4242\",\"glossary\",\"127.0.0.1\",\"axpy_ept1\",\"1\",\"7\",\"(512, 1, 1)\",\"(262144, 1, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"dram__bytes_read.sum\",\"Gbyte\",\"1,073.74\"\n",
        );
        let metrics = [
            ACHIEVED_METRIC.to_string(),
            "dram__bytes_read.sum".to_string(),
        ];
        let e = parse_launches(&text, &metrics).unwrap_err();
        assert!(
            e.contains("no `dram__bytes_read.sum` for launch 1 (axpy_ept4)"),
            "{e}"
        );
        let rows = parse_launches(&text, &metrics[..1]).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].kernel, "axpy_ept1");
        assert_eq!(rows[0].metrics[ACHIEVED_METRIC], ("%".to_string(), 88.5));
        let both = text.replace("\"91.25\"\n", "\"91.25\"\n\"1\",\"4242\",\"glossary\",\"127.0.0.1\",\"axpy_ept4\",\"1\",\"7\",\"(512, 1, 1)\",\"(65536, 1, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"dram__bytes_read.sum\",\"Gbyte\",\"2\"\n");
        let rows = parse_launches(&both, &metrics).unwrap();
        assert_eq!(
            rows[0].metrics["dram__bytes_read.sum"],
            ("Gbyte".to_string(), 1073.74)
        );
        assert_eq!(rows[1].metrics["dram__bytes_read.sum"].1, 2.0);
    }

    #[test]
    fn no_csv_is_an_error() {
        assert!(parse_launches("==PROF== nothing\n", &[ACHIEVED_METRIC.to_string()]).is_err());
    }

    #[test]
    fn splits_quoted_fields_with_commas() {
        assert_eq!(
            split_csv(r#""a","(1, 2)","say ""hi""""#),
            ["a", "(1, 2)", "say \"hi\""]
        );
    }
}
