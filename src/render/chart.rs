//! A measured table drawn again as a small horizontal bar chart of its main metric, in SVG
//! at build time: the comparison a reader wants ("which row is fastest?") at a glance,
//! with no script. The chart repeats the table; it never shows a number the table does not.

use super::highlight::escape;
use super::tables::TableView;

/// The heading of the metric charted when a table has it; otherwise the first numeric
/// column is charted.
const PREFERRED_METRIC: &str = "GB/s";

const WIDTH: f64 = 480.0;
const LABEL_WIDTH: f64 = 110.0;
const VALUE_WIDTH: f64 = 70.0;
const ROW_HEIGHT: f64 = 26.0;
const BAR_HEIGHT: f64 = 16.0;
const TOP: f64 = 6.0;
/// Room above the bars for the axis title (the metric and its unit).
const AXIS: f64 = 18.0;

/// One bar: the row's label and its value, both as the table shows them.
struct Bar<'a> {
    label: String,
    shown: &'a str,
    value: f64,
}

/// The chart's SVG, or None when the table has nothing to chart (no numeric column, no
/// complete row, or a stale table whose numbers are not to be trusted).
pub fn bar_chart(table: &TableView) -> Option<String> {
    if table.stale.is_some() || table.rows.is_empty() {
        return None;
    }
    let metric = table
        .headings
        .iter()
        .position(|h| h == PREFERRED_METRIC)
        .or_else(|| table.numeric.iter().position(|&n| n))?;
    let label_col = table.numeric.iter().position(|&n| !n);
    let bars: Vec<Bar<'_>> = table
        .rows
        .iter()
        .enumerate()
        .filter_map(|(i, row)| {
            let shown = row.get(metric)?;
            let value = (*table.values.get(i)?.get(metric)?)?;
            let label = label_col
                .and_then(|c| row.get(c))
                .cloned()
                .unwrap_or_else(|| format!("row {}", i + 1));
            Some(Bar {
                label,
                shown,
                value,
            })
        })
        .collect();
    if bars.is_empty() || bars.iter().any(|b| b.value < 0.0) {
        return None;
    }
    let max = bars.iter().map(|b| b.value).fold(0.0_f64, f64::max);
    let metric_name = &table.headings[metric];
    let label_name = label_col
        .and_then(|c| table.headings.get(c))
        .map(String::as_str)
        .unwrap_or("row");
    let description = format!(
        "Bar chart of {metric_name} by {label_name}: {}.",
        bars.iter()
            .map(|b| format!("{} {}", b.label, b.shown))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let height = AXIS + TOP * 2.0 + ROW_HEIGHT * bars.len() as f64;
    let bar_space = WIDTH - LABEL_WIDTH - VALUE_WIDTH;
    let mut svg = format!(
        r#"<svg class="bar-chart" role="img" aria-label="{d}" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg"><title>{d}</title>"#,
        d = escape(&description)
    );
    // The axis title names what the bars measure, with its unit: the column's heading
    // carries the unit ("GB/s", "median ms", "achieved occupancy (%)").
    svg.push_str(&format!(
        r#"<text class="chart-axis" x="{LABEL_WIDTH}" y="13">{axis} →</text><text class="chart-axis" x="{lx}" y="13" text-anchor="end">{label}</text>"#,
        axis = escape(&axis_title(metric_name, table, metric)),
        lx = LABEL_WIDTH - 8.0,
        label = escape(label_name),
    ));
    for (i, b) in bars.iter().enumerate() {
        let y = AXIS + TOP + ROW_HEIGHT * i as f64;
        let w = if max > 0.0 {
            (b.value / max * bar_space).max(1.0)
        } else {
            1.0
        };
        let text_y = y + BAR_HEIGHT - 3.0;
        svg.push_str(&format!(
            r#"<text class="chart-label" x="{lx}" y="{text_y}" text-anchor="end">{label}</text><rect class="chart-bar" x="{LABEL_WIDTH}" y="{y}" width="{w:.1}" height="{BAR_HEIGHT}" rx="2"></rect><text class="chart-value" x="{vx:.1}" y="{text_y}">{shown}</text>"#,
            lx = LABEL_WIDTH - 8.0,
            label = escape(&b.label),
            vx = LABEL_WIDTH + w + 6.0,
            shown = escape(b.shown),
        ));
    }
    svg.push_str("</svg>");
    Some(svg)
}

/// The metric's heading with its unit. A heading that names no unit takes the one its
/// cells show (`%`); a plain count stays as it is.
fn axis_title(heading: &str, table: &TableView, metric: usize) -> String {
    let has_unit = heading.contains('(')
        || heading.contains('/')
        || heading
            .split_whitespace()
            .any(|w| matches!(w, "ms" | "us" | "µs" | "ns" | "s" | "B" | "KiB" | "MiB"));
    let percent = table
        .rows
        .iter()
        .filter_map(|r| r.get(metric))
        .all(|c| c.trim_end_matches('†').ends_with('%'));
    if !has_unit && percent {
        format!("{heading} (%)")
    } else {
        heading.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(headings: &[&str], numeric: &[bool], rows: &[&[&str]]) -> TableView {
        TableView {
            experiment: "exp".into(),
            node: "node".into(),
            caption: None,
            headings: headings.iter().map(|s| s.to_string()).collect(),
            numeric: numeric.to_vec(),
            rows: rows
                .iter()
                .map(|r| r.iter().map(|s| s.to_string()).collect())
                .collect(),
            values: rows
                .iter()
                .map(|r| {
                    r.iter()
                        .map(|s| s.trim_end_matches('%').replace(',', "").parse().ok())
                        .collect()
                })
                .collect(),
            provenance: String::new(),
            stale: None,
            notes: Vec::new(),
        }
    }

    fn widths(svg: &str) -> Vec<f64> {
        svg.split("class=\"chart-bar\"")
            .skip(1)
            .filter_map(|s| s.split("width=\"").nth(1)?.split('"').next()?.parse().ok())
            .collect()
    }

    #[test]
    fn charts_gbps_when_present_with_bars_proportional() {
        let t = table(
            &["label", "occupancy", "GB/s"],
            &[false, true, true],
            &[&["full", "100.0%", "400.0"], &["quarter", "25.0%", "100.0"]],
        );
        let svg = bar_chart(&t).expect("a chart");
        assert!(svg.contains(r#"role="img""#));
        assert!(
            svg.contains("<title>Bar chart of GB/s by label: full 400.0, quarter 100.0.</title>")
        );
        assert!(
            svg.contains(">GB/s →</text>"),
            "the axis names the unit: {svg}"
        );
        let w = widths(&svg);
        assert_eq!(w.len(), 2);
        assert!((w[0] / w[1] - 4.0).abs() < 0.01, "{w:?}");
    }

    #[test]
    fn falls_back_to_first_numeric_column() {
        let t = table(
            &["label", "occupancy", "median ms"],
            &[false, true, true],
            &[&["a", "50.0%", "1.0"]],
        );
        let svg = bar_chart(&t).expect("a chart");
        assert!(
            svg.contains("Bar chart of occupancy by label: a 50.0%."),
            "{svg}"
        );
        assert!(svg.contains(">occupancy (%) →</text>"), "{svg}");
    }

    #[test]
    fn no_chart_for_stale_or_text_only_tables() {
        let mut t = table(&["label", "GB/s"], &[false, true], &[&["a", "1.0"]]);
        t.stale = Some("record missing".into());
        assert!(bar_chart(&t).is_none());
        let t = table(&["label"], &[false], &[&["a"]]);
        assert!(bar_chart(&t).is_none());
    }

    #[test]
    fn labels_are_escaped() {
        let t = table(&["label", "GB/s"], &[false, true], &[&["<a&b>", "2.0"]]);
        let svg = bar_chart(&t).expect("a chart");
        assert!(svg.contains("&lt;a&amp;b&gt;"));
        assert!(!svg.contains("<a&b>"));
    }
}
