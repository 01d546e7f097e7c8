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
    if !table.groups.is_empty() {
        return comparison_chart(table);
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
    let height = TOP * 2.0 + ROW_HEIGHT * bars.len() as f64;
    let bar_space = WIDTH - LABEL_WIDTH - VALUE_WIDTH;
    let mut svg = format!(
        r#"<svg class="bar-chart" role="img" aria-label="{d}" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg"><title>{d}</title>"#,
        d = escape(&description)
    );
    for (i, b) in bars.iter().enumerate() {
        let y = TOP + ROW_HEIGHT * i as f64;
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

/// A side-by-side table's chart: for each row, one bar per node, labelled with both, so
/// the comparison reads without relying on colour.
fn comparison_chart(table: &TableView) -> Option<String> {
    let first = table.groups.first()?;
    let group_headings = &table.headings[first.first..first.first + first.span];
    let offset = group_headings
        .iter()
        .position(|h| h == PREFERRED_METRIC)
        .or(if first.span > 0 { Some(0) } else { None })?;
    let label_col = table.numeric.iter().position(|&n| !n);
    let mut bars: Vec<(usize, Bar<'_>)> = Vec::new();
    for (i, row) in table.rows.iter().enumerate() {
        let label = label_col
            .and_then(|c| row.get(c))
            .cloned()
            .unwrap_or_else(|| format!("row {}", i + 1));
        for (g, group) in table.groups.iter().enumerate() {
            let col = group.first + offset;
            let shown = row.get(col)?;
            let value = (*table.values.get(i)?.get(col)?)?;
            bars.push((
                g,
                Bar {
                    label: format!("{label} · {}", group.node),
                    shown,
                    value,
                },
            ));
        }
    }
    if bars.is_empty() || bars.iter().any(|(_, b)| b.value < 0.0) {
        return None;
    }
    let max = bars.iter().map(|(_, b)| b.value).fold(0.0_f64, f64::max);
    let metric_name = &group_headings[offset];
    let nodes: Vec<&str> = table.groups.iter().map(|g| g.node.as_str()).collect();
    let description = format!(
        "Bar chart comparing {metric_name} on {}: {}.",
        nodes.join(", "),
        bars.iter()
            .map(|(_, b)| format!("{} {}", b.label, b.shown))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let per_row = table.groups.len() as f64;
    let rows = table.rows.len() as f64;
    let gap = ROW_HEIGHT - BAR_HEIGHT;
    let height = TOP * 2.0 + (BAR_HEIGHT + 4.0) * per_row * rows + gap * rows;
    let label_width = LABEL_WIDTH + 40.0;
    let bar_space = WIDTH - label_width - VALUE_WIDTH;
    let mut svg = format!(
        r#"<svg class="bar-chart comparison-chart" role="img" aria-label="{d}" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg"><title>{d}</title>"#,
        d = escape(&description)
    );
    let mut y = TOP;
    for (k, (g, b)) in bars.iter().enumerate() {
        if k > 0 && *g == 0 {
            y += gap;
        }
        let w = if max > 0.0 {
            (b.value / max * bar_space).max(1.0)
        } else {
            1.0
        };
        let text_y = y + BAR_HEIGHT - 3.0;
        svg.push_str(&format!(
            r#"<text class="chart-label" x="{lx}" y="{text_y}" text-anchor="end">{label}</text><rect class="chart-bar node-{g}" x="{label_width}" y="{y}" width="{w:.1}" height="{BAR_HEIGHT}" rx="2"></rect><text class="chart-value" x="{vx:.1}" y="{text_y}">{shown}</text>"#,
            lx = label_width - 8.0,
            label = escape(&b.label),
            vx = label_width + w + 6.0,
            shown = escape(b.shown),
        ));
        y += BAR_HEIGHT + 4.0;
    }
    svg.push_str("</svg>");
    Some(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(headings: &[&str], numeric: &[bool], rows: &[&[&str]]) -> TableView {
        TableView {
            experiment: "exp".into(),
            node: "node".into(),
            groups: Vec::new(),
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
            provenance: Vec::new(),
            stale: None,
            notes: Vec::new(),
        }
    }

    fn widths(svg: &str) -> Vec<f64> {
        svg.split("class=\"chart-bar")
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
    fn a_side_by_side_table_charts_each_row_once_per_node() {
        let mut t = table(
            &["label", "GB/s", "GB/s"],
            &[false, true, true],
            &[&["full", "400.0", "200.0"], &["quarter", "100.0", "50.0"]],
        );
        t.groups = vec![
            super::super::tables::ColumnGroup {
                node: "node-a".into(),
                gpu: "A".into(),
                first: 1,
                span: 1,
            },
            super::super::tables::ColumnGroup {
                node: "node-b".into(),
                gpu: "B".into(),
                first: 2,
                span: 1,
            },
        ];
        let svg = bar_chart(&t).expect("a chart");
        assert!(svg.contains("<title>Bar chart comparing GB/s on node-a, node-b: full · node-a 400.0, full · node-b 200.0, quarter · node-a 100.0, quarter · node-b 50.0.</title>"), "{svg}");
        let w = widths(&svg);
        assert_eq!(w.len(), 4);
        assert!(
            (w[0] / w[1] - 2.0).abs() < 0.01 && (w[0] / w[3] - 8.0).abs() < 0.01,
            "{w:?}"
        );
        assert!(svg.contains(r#"class="chart-bar node-1""#));
    }

    #[test]
    fn labels_are_escaped() {
        let t = table(&["label", "GB/s"], &[false, true], &[&["<a&b>", "2.0"]]);
        let svg = bar_chart(&t).expect("a chart");
        assert!(svg.contains("&lt;a&amp;b&gt;"));
        assert!(!svg.contains("<a&b>"));
    }
}
