//! A measured table drawn again as a chart, in SVG at build time, with no script: by
//! default a small horizontal bar chart of its main metric (the comparison a reader wants:
//! "which row is fastest?"), or, when the entry names two columns, a line chart of one
//! against the other (a numeric axis such as a working-set size, see [`line_chart`]). The
//! chart repeats the table, which stays beside it; its data points are the table's cells.

use std::fmt::Write;

use super::escape::escape;
use super::tables::{LineAxes, ReferenceLine, RooflineNode, RooflinePoint, TableView};

/// The chart for the `index`-th table of a page: the line chart the entry asked for, or
/// the bar chart. `index` keeps the SVG's element ids unique on the page.
pub fn chart(table: &TableView, index: usize) -> Option<String> {
    if !table.roofs.roofline.is_empty() {
        if let Some(svg) = roofline_chart(table, index) {
            return Some(svg);
        }
    }
    match table.line {
        Some(axes) if !table.groups.is_empty() => comparison_line_chart(table, axes, index),
        Some(axes) => line_chart(table, axes, index),
        None => bar_chart(table),
    }
}

/// The heading of the metric charted when a table has it; otherwise the first numeric
/// column is charted.
const PREFERRED_METRIC: &str = "GB/s";

/// The bar chart's least width in SVG user units, drawn 1:1 in CSS px (`.bar-chart` in
/// style.css: never scaled up, scaled down only to fit its box). 360 fits a 390 px phone's
/// column (358 px) with the 13-unit text still drawn at 12.9 px.
const WIDTH: f64 = 360.0;
/// Width of one character of the bar chart's 13-unit text, taken generously: DejaVu Sans
/// (system-ui's usual face on Linux) draws digits and `±` at 8.3 units, and most letters
/// narrower. The label and value columns are sized from their longest text at this width,
/// so no label or value runs past the chart's edge, whatever the font.
const TEXT_CHAR: f64 = 8.5;
/// Space between a label and its bar, and between a bar and its value.
const GAP: f64 = 8.0;
/// The least length the longest bar is given, for which the chart widens if its labels
/// and values leave less.
const MIN_BAR: f64 = 80.0;
const ROW_HEIGHT: f64 = 26.0;
const BAR_HEIGHT: f64 = 16.0;
const TOP: f64 = 6.0;
/// Room above the bars for the axis title (the metric and its unit).
const AXIS: f64 = 18.0;

/// A coordinate written as `f64`'s `Display` writes it; the whole numbers most of them
/// are (rows sit on a grid) skip the float formatting, a tenth of a chart's cost.
struct Coord(f64);

impl std::fmt::Display for Coord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let v = self.0;
        // -0.0 is written "-0" by `Display`, and NaN and the infinities have no fraction.
        if v.fract() == 0.0 && v.abs() < 1e15 && !(v == 0.0 && v.is_sign_negative()) {
            write!(f, "{}", v as i64)
        } else {
            write!(f, "{v}")
        }
    }
}

/// "label shown, label shown" for a chart's description.
fn listed<'b, 'a: 'b>(bars: impl Iterator<Item = &'b Bar<'a>>) -> String {
    let mut out = String::new();
    for (i, b) in bars.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&b.label);
        out.push(' ');
        out.push_str(b.shown);
    }
    out
}

/// The drawn width of `text` in the chart's text, at most: `TEXT_CHAR` a character, more
/// for the glyphs DejaVu Sans draws wider (`m` and `W` at 12.7 units of 13, capitals about
/// 10), so a label such as "wgmma-bf16" is not cut at the chart's left edge.
fn text_width(text: &str) -> f64 {
    text.chars()
        .map(|c| match c {
            'm' | 'w' | 'M' | 'W' | '%' | '@' => 13.0,
            'A'..='Z' => 10.0,
            _ => TEXT_CHAR,
        })
        .sum()
}

/// A space between the lines of a wrapped title.
const TITLE_LINE: f64 = 16.0;

/// `text` broken at spaces into lines no wider than `room` (as `width` measures them); a
/// word wider than `room` gets a line of its own. A long axis title wraps rather than
/// widening its chart, which a phone would then draw scaled down below 12 px.
fn wrap(text: &str, room: f64, width: impl Fn(&str) -> f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if width(&format!("{line} {word}")) <= room => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    if lines.is_empty() {
        lines.push(String::new());
    }
    lines
}

/// An axis title's lines as `<tspan>`s, each under the one before (`x` the title's); one
/// line is the text alone.
fn title_lines(lines: &[String], x: impl std::fmt::Display) -> String {
    if let [one] = lines {
        return escape(one);
    }
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        let dy = if i == 0 { 0.0 } else { TITLE_LINE };
        let _ = write!(
            out,
            r#"<tspan x="{x}" dy="{}">{}</tspan>"#,
            Coord(dy),
            escape(line)
        );
    }
    out
}

/// Where a bar chart's parts go, from its longest texts: the labels end (right-aligned)
/// `GAP` before `bars_at`, the bars start there and take at most `bar_space`, each value
/// follows its bar and ends inside `width`; the axis title, from `bars_at`, fits too.
struct Columns {
    bars_at: f64,
    bar_space: f64,
    width: f64,
    /// The axis title's lines, wrapped to the room right of the labels.
    axis: Vec<String>,
}

impl Columns {
    fn of<'a>(
        labels: impl Iterator<Item = &'a str>,
        values: impl Iterator<Item = &'a str>,
        axis_title: &str,
    ) -> Columns {
        let bars_at = labels.map(text_width).fold(0.0, f64::max) + GAP;
        let values = values.map(text_width).fold(0.0, f64::max) + GAP;
        let width = WIDTH.max(bars_at + MIN_BAR + values);
        let axis = wrap(axis_title, width - bars_at, text_width);
        let width = axis
            .iter()
            .map(|l| bars_at + text_width(l))
            .fold(width, f64::max);
        Columns {
            bars_at,
            bar_space: width - bars_at - values,
            width,
            axis,
        }
    }

    /// How much taller the title's extra lines make the chart.
    fn axis_extra(&self) -> f64 {
        TITLE_LINE * self.axis.len().saturating_sub(1) as f64
    }

    /// A bar's length for `value` of the chart's largest, `max`.
    fn bar(&self, value: f64, max: f64) -> f64 {
        if max > 0.0 {
            (value / max * self.bar_space).max(1.0)
        } else {
            1.0
        }
    }
}

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
        .bar
        .or_else(|| {
            table.headings.iter().position(|h| {
                h == PREFERRED_METRIC || h.ends_with(&format!("({PREFERRED_METRIC})"))
            })
        })
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
    let reference = reference_for(table, metric).filter(|r| r.value.is_finite() && r.value > 0.0);
    let max = bars
        .iter()
        .map(|b| b.value)
        .chain(reference.map(|r| r.value))
        .fold(0.0_f64, f64::max);
    let metric_name = &table.headings[metric];
    let label_name = label_col
        .and_then(|c| table.headings.get(c))
        .map(String::as_str)
        .unwrap_or("row");
    let description = format!(
        "Bar chart of {metric_name} by {label_name}: {}.{}",
        listed(bars.iter()),
        reference.map_or(String::new(), |r| format!(
            " A dashed line marks the {}.",
            r.label
        ))
    );
    // The axis title names what the bars measure, with its unit: the column's heading
    // carries the unit ("GB/s", "median ms", "achieved occupancy (%)").
    let axis = format!("{} →", axis_title(metric_name, table, metric));
    let at = Columns::of(
        bars.iter()
            .map(|b| b.label.as_str())
            .chain(std::iter::once(label_name)),
        bars.iter().map(|b| b.shown),
        &axis,
    );
    // A roof's label, under the bars, may be wider than the bars' columns.
    let width = at
        .width
        .max(reference.map_or(0.0, |r| text_width(&r.label)));
    let (bars_at, width) = (Coord(at.bars_at), Coord(width));
    // Room for the axis title, its lines wrapped.
    let axis_h = AXIS + at.axis_extra();
    // A roof's label gets a row of its own under the bars.
    let height =
        axis_h + TOP * 2.0 + ROW_HEIGHT * (bars.len() + usize::from(reference.is_some())) as f64;
    let mut svg = format!(
        r#"<svg class="bar-chart" role="img" aria-label="{d}" viewBox="0 0 {width} {height}" width="{width}" height="{height}" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg"><title>{d}</title>"#,
        d = escape(&description)
    );
    svg.push_str(&format!(
        r#"<text class="chart-axis" x="{bars_at}" y="13">{axis}</text><text class="chart-axis" x="{lx}" y="{ly}" text-anchor="end">{label}</text>"#,
        axis = title_lines(&at.axis, &bars_at),
        lx = Coord(at.bars_at - GAP),
        ly = Coord(13.0 + at.axis_extra()),
        label = escape(label_name),
    ));
    for (i, b) in bars.iter().enumerate() {
        let y = axis_h + TOP + ROW_HEIGHT * i as f64;
        let w = at.bar(b.value, max);
        let text_y = Coord(y + BAR_HEIGHT - 3.0);
        let _ = write!(
            svg,
            r#"<text class="chart-label" x="{lx}" y="{text_y}" text-anchor="end">{label}</text><rect class="chart-bar" x="{bars_at}" y="{y}" width="{w:.1}" height="{BAR_HEIGHT}" rx="2"></rect><text class="chart-value" x="{vx:.1}" y="{text_y}">{shown}</text>"#,
            lx = Coord(at.bars_at - GAP),
            label = escape(&b.label),
            y = Coord(y),
            vx = at.bars_at + w + GAP,
            shown = escape(b.shown),
        );
    }
    if let Some(r) = reference {
        let x = at.bars_at + at.bar(r.value, max);
        let bottom = axis_h + TOP + ROW_HEIGHT * bars.len() as f64;
        // Its label ends at the line, or further right where it is longer than the line is
        // far from the chart's left edge (the chart is widened for it above).
        let label_end = x.max(text_width(&r.label));
        let _ = write!(
            svg,
            r#"<line class="roof-reference" x1="{x:.1}" y1="{top}" x2="{x:.1}" y2="{bottom:.1}"><title>{t}</title></line><text class="roof-reference-label" x="{label_end:.1}" y="{ty:.1}" text-anchor="end">{t}</text>"#,
            ty = bottom + 14.0,
            top = Coord(axis_h),
            t = escape(&r.label),
        );
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

/// A side-by-side table's chart: for each row, one bar per node, labelled with both, so
/// the comparison reads without relying on colour; a legend above names each node's bar
/// (its shade) with its GPU, and says which node is not measured yet (its group has no
/// bars; the others' still show).
fn comparison_chart(table: &TableView) -> Option<String> {
    let first = table.groups.iter().find(|g| g.pending.is_none())?;
    let group_headings = &table.headings[first.first..first.first + first.span];
    // The column the entry names (`chart: {y: ...}`), else its GB/s column, else the first.
    let offset = table
        .bar
        .filter(|&b| b < first.span)
        .or_else(|| {
            group_headings.iter().position(|h| {
                h == PREFERRED_METRIC || h.ends_with(&format!("({PREFERRED_METRIC})"))
            })
        })
        .or(if first.span > 0 { Some(0) } else { None })?;
    let label_col = table.numeric.iter().position(|&n| !n);
    let measured: Vec<(usize, &super::tables::ColumnGroup)> = table
        .groups
        .iter()
        .enumerate()
        .filter(|(_, g)| g.pending.is_none())
        .collect();
    let mut bars: Vec<(usize, Bar<'_>)> = Vec::new();
    for (i, row) in table.rows.iter().enumerate() {
        let label = label_col
            .and_then(|c| row.get(c))
            .cloned()
            .unwrap_or_else(|| format!("row {}", i + 1));
        for (k, (g, group)) in measured.iter().enumerate() {
            let col = group.first + offset;
            let shown = row.get(col)?;
            let value = (*table.values.get(i)?.get(col)?)?;
            // `k`: the bar's place in its row, for the gap between rows; `g`: its node,
            // for its shade and the legend.
            bars.push((
                k * table.groups.len() + g,
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
    let pending: Vec<&str> = table
        .groups
        .iter()
        .filter_map(|g| g.pending.as_deref())
        .collect();
    let description = format!(
        "Bar chart comparing {metric_name} on {}: {}.{}",
        nodes.join(", "),
        listed(bars.iter().map(|(_, b)| b)),
        if pending.is_empty() {
            String::new()
        } else {
            format!(" {}.", pending.join("; "))
        }
    );
    // The legend: a swatch in the node's shade (hollow for a node without a record) and
    // "node (GPU)" a line, and under a node without a record a second line saying so.
    let (legend, legend_height, legend_width) = legend_svg(table, |g, pending| {
        format!(
            r#"<rect class="chart-bar node-{g}{p}" x="0" y="0" width="12" height="12" rx="2"></rect>"#,
            p = if pending { " pending" } else { "" }
        )
    });
    let per_row = measured.len() as f64;
    let rows = table.rows.len() as f64;
    let gap = ROW_HEIGHT - BAR_HEIGHT;
    let axis = format!("{} →", axis_title(metric_name, table, first.first + offset));
    let at = Columns::of(
        bars.iter().map(|(_, b)| b.label.as_str()),
        bars.iter().map(|(_, b)| b.shown),
        &axis,
    );
    let bars_top = legend_height + AXIS + at.axis_extra();
    let height = bars_top + TOP + (BAR_HEIGHT + 4.0) * per_row * rows + gap * rows;
    let width = Coord(at.width.max(legend_width));
    let bars_at = Coord(at.bars_at);
    let mut svg = format!(
        r#"<svg class="bar-chart comparison-chart" role="img" aria-label="{d}" viewBox="0 0 {width} {height}" width="{width}" height="{height}" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg"><title>{d}</title>{legend}"#,
        d = escape(&description)
    );
    let _ = write!(
        svg,
        r#"<text class="chart-axis" x="{bars_at}" y="{ay}">{axis}</text>"#,
        ay = Coord(legend_height + 13.0 - TOP),
        axis = title_lines(&at.axis, &bars_at),
    );
    let mut y = bars_top;
    for (k, (order, b)) in bars.iter().enumerate() {
        let g = order % table.groups.len();
        if k > 0 && *order / table.groups.len() == 0 {
            y += gap;
        }
        let w = at.bar(b.value, max);
        let text_y = Coord(y + BAR_HEIGHT - 3.0);
        let _ = write!(
            svg,
            r#"<text class="chart-label" x="{lx}" y="{text_y}" text-anchor="end">{label}</text><rect class="chart-bar node-{g}" x="{bars_at}" y="{y}" width="{w:.1}" height="{BAR_HEIGHT}" rx="2"></rect><text class="chart-value" x="{vx:.1}" y="{text_y}">{shown}</text>"#,
            lx = Coord(at.bars_at - GAP),
            label = escape(&b.label),
            y = Coord(y),
            vx = at.bars_at + w + GAP,
            shown = escape(b.shown),
        );
        y += BAR_HEIGHT + 4.0;
    }
    svg.push_str("</svg>");
    Some(svg)
}

/// A legend line's height, and where its text starts (after the swatch).
const LEGEND_LINE: f64 = 20.0;
const LEGEND_TEXT_AT: f64 = 18.0;

// The line chart's frame, in SVG user units. The SVG scales with the page (width 100%),
// so at a 390 px phone width the 13-unit text is drawn at about 11.5 px.
const LINE_WIDTH: f64 = 400.0;
const LINE_HEIGHT: f64 = 260.0;
const PLOT_LEFT: f64 = 76.0;
const PLOT_RIGHT: f64 = 14.0;
const PLOT_TOP: f64 = 12.0;
const PLOT_BOTTOM: f64 = 50.0;
/// Rough width of one character of the 13-unit tick labels (digits and commas in a system
/// sans-serif run a little under this), to keep labels from touching.
const CHAR_WIDTH: f64 = 8.0;
/// The least space between two x tick labels.
const LABEL_GAP: f64 = 6.0;
/// The x axis is drawn on a log scale when its largest value is more than this many times
/// its smallest (more than two decades).
const LOG_SPAN: f64 = 100.0;

/// One data point: the row's x and y values and how the table shows them.
struct Point<'a> {
    x: f64,
    y: f64,
    /// The y value's interval, drawn as an error bar, where the record keeps one.
    y_span: Option<(f64, f64)>,
    x_shown: &'a str,
    y_shown: &'a str,
}

/// A line chart of column `axes.y` against column `axes.x`, the points in x order and each
/// marked, with axis titles (the column headings, which carry the units), tick labels, and
/// a `<title>` and `<desc>` naming every point for screen readers. None for a stale table
/// or one with fewer than two complete points.
pub fn line_chart(table: &TableView, axes: LineAxes, index: usize) -> Option<String> {
    if table.stale.is_some() {
        return None;
    }
    let points = points_of(table, axes.x, axes.y);
    if points.len() < 2 {
        return None;
    }
    let x_name = table.headings.get(axes.x)?;
    let y_name = table.headings.get(axes.y)?;
    draw_lines(
        &[Series { node: None, points }],
        x_name,
        y_name,
        index,
        None,
        reference_for(table, axes.y),
    )
}

/// A side-by-side table's line chart: a line per measured node (`axes` are positions
/// within each node's column group, so each node's own x values are used: a size written
/// over the L2 differs between two models), told apart by a legend above the plot, its
/// shade and its dash, as the comparison bar chart does. A node not measured yet has no
/// line; the legend says so.
fn comparison_line_chart(table: &TableView, axes: LineAxes, index: usize) -> Option<String> {
    if table.stale.is_some() {
        return None;
    }
    let first = table.groups.iter().find(|g| g.pending.is_none())?;
    if (!axes.x_shared && axes.x >= first.span) || axes.y >= first.span {
        return None;
    }
    // The x column: each group's own, or one shown once for every node.
    let x_at = |group_first: usize| {
        if axes.x_shared {
            axes.x
        } else {
            group_first + axes.x
        }
    };
    let series: Vec<Series<'_>> = table
        .groups
        .iter()
        .enumerate()
        .filter(|(_, g)| g.pending.is_none())
        .map(|(g, group)| Series {
            node: Some((g, group.node.as_str())),
            points: points_of(table, x_at(group.first), group.first + axes.y),
        })
        .filter(|s| s.points.len() >= 2)
        .collect();
    if series.is_empty() {
        return None;
    }
    let x_name = table.headings.get(x_at(first.first))?;
    let y_name = table.headings.get(first.first + axes.y)?;
    let legend = legend_svg(table, |g, pending| {
        format!(
            r#"<line class="chart-line node-{g}{p}" x1="0" y1="6" x2="14" y2="6"></line>"#,
            p = if pending { " pending" } else { "" }
        )
    });
    draw_lines(&series, x_name, y_name, index, Some(legend), None)
}

/// One line of a line chart: its points, sorted by x, and side by side its node (its
/// place among the table's groups, for its shade, and its name).
struct Series<'a> {
    node: Option<(usize, &'a str)>,
    points: Vec<Point<'a>>,
}

/// The finite (x, y) points of columns `x` and `y` of the table's rows, sorted by x, with
/// y's interval where the record keeps one.
fn points_of(table: &TableView, x: usize, y: usize) -> Vec<Point<'_>> {
    let mut points: Vec<Point<'_>> = table
        .rows
        .iter()
        .zip(&table.values)
        .enumerate()
        .filter_map(|(r, (cells, values))| {
            let xv = (*values.get(x)?)?;
            let yv = (*values.get(y)?)?;
            let y_span = table
                .intervals
                .get(r)
                .and_then(|row| row.get(y).copied().flatten())
                .filter(|(lo, hi)| lo.is_finite() && hi.is_finite() && lo <= hi);
            (xv.is_finite() && yv.is_finite()).then_some(Point {
                x: xv,
                y: yv,
                y_span,
                x_shown: cells.get(x)?,
                y_shown: cells.get(y)?,
            })
        })
        .collect();
    points.sort_by(|a, b| a.x.total_cmp(&b.x));
    points
}

/// A comparison chart's legend: a swatch (`swatch(group, pending)`, 12 units high at
/// the line's top) and "node (GPU)" a line, and under a node not measured yet a second
/// line saying so. Returns the SVG group and its height; the widest text it holds.
fn legend_svg(table: &TableView, swatch: impl Fn(usize, bool) -> String) -> (String, f64, f64) {
    let mut svg = String::from(r#"<g class="chart-legend">"#);
    let mut y = TOP;
    let mut widest: f64 = 0.0;
    for (g, group) in table.groups.iter().enumerate() {
        let name = match group.gpu.is_empty() {
            true => group.node.clone(),
            false => format!("{} ({})", group.node, group.gpu),
        };
        let text_y = Coord(y + LEGEND_LINE - 5.0);
        let _ = write!(
            svg,
            r#"<g transform="translate(0 {sy})">{sw}</g><text class="chart-legend-text" x="{LEGEND_TEXT_AT}" y="{text_y}">{name}</text>"#,
            sy = Coord(y + LEGEND_LINE - 15.0),
            sw = swatch(g, group.pending.is_some()),
            name = escape(&name),
        );
        widest = widest.max(text_width(&name));
        y += LEGEND_LINE;
        if let Some(p) = &group.pending {
            let _ = write!(
                svg,
                r#"<text class="chart-legend-text chart-pending" x="{LEGEND_TEXT_AT}" y="{ty}">{p}</text>"#,
                ty = Coord(y + LEGEND_LINE - 5.0),
                p = escape(p),
            );
            widest = widest.max(text_width(p));
            y += LEGEND_LINE;
        }
    }
    svg.push_str("</g>");
    (svg, y + TOP, LEGEND_TEXT_AT + widest)
}

/// The line chart of `series` (one, or a line per node with `legend` above the plot).
fn draw_lines(
    series: &[Series<'_>],
    x_name: &str,
    y_name: &str,
    index: usize,
    legend: Option<(String, f64, f64)>,
    reference: Option<&ReferenceLine>,
) -> Option<String> {
    let all = || series.iter().flat_map(|s| s.points.iter());
    let x_min = all().map(|p| p.x).fold(f64::INFINITY, f64::min);
    let x_max = all().map(|p| p.x).fold(f64::NEG_INFINITY, f64::max);
    let log_x = x_min > 0.0 && x_max / x_min > LOG_SPAN;
    let to_axis = |x: f64| if log_x { x.log10() } else { x };
    let (a_min, a_max) = (to_axis(x_min), to_axis(x_max));
    let pad = if a_max > a_min {
        (a_max - a_min) * 0.04
    } else {
        1.0
    };
    let (a_lo, a_hi) = (a_min - pad, a_max + pad);
    let plot_w = LINE_WIDTH - PLOT_LEFT - PLOT_RIGHT;
    let plot_h = LINE_HEIGHT - PLOT_TOP - PLOT_BOTTOM;
    let px = |x: f64| PLOT_LEFT + (to_axis(x) - a_lo) / (a_hi - a_lo) * plot_w;

    // Bandwidths and times are read against zero; a column with negative values gets its
    // own floor.
    let y_data_min = all()
        .map(|p| p.y_span.map_or(p.y, |s| s.0.min(p.y)))
        .fold(f64::INFINITY, f64::min);
    let reference = reference.filter(|r| r.value.is_finite());
    let y_data_max = all()
        .map(|p| p.y_span.map_or(p.y, |s| s.1.max(p.y)))
        .chain(reference.map(|r| r.value))
        .fold(f64::NEG_INFINITY, f64::max);
    let y_lo_raw = y_data_min.min(0.0);
    let step = nice_step((y_data_max - y_lo_raw).max(f64::MIN_POSITIVE) / 4.0);
    let y_lo = (y_lo_raw / step).floor() * step;
    let y_hi = ((y_data_max / step).ceil() * step).max(y_lo + step);
    let py = |y: f64| PLOT_TOP + (1.0 - (y - y_lo) / (y_hi - y_lo)) * plot_h;

    let id = format!("line-chart-{index}");
    let listed = |points: &[Point<'_>]| {
        points
            .iter()
            .map(|p| format!("{} {x_name}: {} {y_name}", p.x_shown, p.y_shown))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let log_note = if log_x {
        format!(", {x_name} on a logarithmic axis")
    } else {
        String::new()
    };
    let (title, description) = match series {
        [one] if one.node.is_none() => (
            format!("Line chart of {y_name} against {x_name}"),
            format!(
                "{} points{log_note}: {}.",
                one.points.len(),
                listed(&one.points)
            ),
        ),
        _ => (
            format!(
                "Line chart of {y_name} against {x_name} on {}",
                series
                    .iter()
                    .filter_map(|s| s.node.map(|(_, n)| n))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            series
                .iter()
                .map(|s| {
                    format!(
                        "{}: {} points{log_note}: {}.",
                        s.node.map_or("", |(_, n)| n),
                        s.points.len(),
                        listed(&s.points)
                    )
                })
                .collect::<Vec<_>>()
                .join(" "),
        ),
    };
    let description = match reference {
        Some(r) => format!("{description} A dashed line marks the {}.", r.label),
        None => description,
    };
    // Side by side, the legend sits above the plot, which moves down by its height; the
    // chart widens (and scales down in its box) when a legend line is wider than it.
    let (legend, legend_h, legend_w) = legend.unwrap_or_default();
    let width = Coord(LINE_WIDTH.max(legend_w));
    let height = Coord(LINE_HEIGHT + legend_h);
    let mut svg = format!(
        r#"<svg class="line-chart" role="img" aria-labelledby="{id}-title {id}-desc" viewBox="0 0 {width} {height}" width="{width}" height="{height}" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg"><title id="{id}-title">{t}</title><desc id="{id}-desc">{d}</desc>"#,
        t = escape(&title),
        d = escape(&description),
    );
    if legend_h > 0.0 {
        svg.push_str(&legend);
        let _ = write!(svg, r#"<g transform="translate(0 {})">"#, Coord(legend_h));
    }

    // Horizontal grid lines and y tick labels.
    let mut y = y_lo;
    while y <= y_hi + step * 1e-9 {
        let yy = py(y);
        svg.push_str(&format!(
            r#"<line class="chart-grid" x1="{PLOT_LEFT}" y1="{yy:.1}" x2="{x2}" y2="{yy:.1}"></line><text class="chart-tick" x="{tx}" y="{ty:.1}" text-anchor="end">{label}</text>"#,
            x2 = LINE_WIDTH - PLOT_RIGHT,
            tx = PLOT_LEFT - 6.0,
            ty = yy + 4.0,
            label = escape(&tick_label(y, step)),
        ));
        y += step;
    }
    // The axes.
    let base = LINE_HEIGHT - PLOT_BOTTOM;
    svg.push_str(&format!(
        r#"<line class="chart-axis" x1="{PLOT_LEFT}" y1="{PLOT_TOP}" x2="{PLOT_LEFT}" y2="{base}"></line><line class="chart-axis" x1="{PLOT_LEFT}" y1="{base}" x2="{x2}" y2="{base}"></line>"#,
        x2 = LINE_WIDTH - PLOT_RIGHT,
    ));
    // x tick labels at the data's own x values (as the table shows them): every one if
    // they fit, else every second, third... point, the same stride throughout so that a
    // log axis of powers of two keeps an even rhythm (1, 4, 16, 64...).
    let mut points: Vec<&Point<'_>> = all().collect();
    points.sort_by(|a, b| a.x.total_cmp(&b.x));
    points.dedup_by(|a, b| a.x == b.x);
    let half_width = |p: &Point<'_>| p.x_shown.chars().count() as f64 * CHAR_WIDTH / 2.0;
    let stride = (1..=points.len())
        .find(|&k| {
            points
                .iter()
                .step_by(k)
                .collect::<Vec<_>>()
                .windows(2)
                .all(|w| {
                    px(w[1].x) - px(w[0].x) >= half_width(*w[0]) + half_width(*w[1]) + LABEL_GAP
                })
        })
        .unwrap_or(points.len());
    for p in points.iter().step_by(stride) {
        let xx = px(p.x);
        svg.push_str(&format!(
            r#"<line class="chart-axis" x1="{xx:.1}" y1="{base}" x2="{xx:.1}" y2="{t2}"></line><text class="chart-tick" x="{xx:.1}" y="{ty}" text-anchor="middle">{label}</text>"#,
            t2 = base + 4.0,
            ty = base + 18.0,
            label = escape(p.x_shown),
        ));
    }
    // Axis titles: the column headings, which carry the units. The y title, turned 90°,
    // wraps to the plot's height (a second line right of the first, left of the ticks).
    let y_lines = wrap(y_name, plot_h, |l| l.chars().count() as f64 * CHAR_WIDTH);
    svg.push_str(&format!(
        r#"<text class="chart-axis-title" x="{cx:.1}" y="{ty}" text-anchor="middle">{x}{log}</text><text class="chart-axis-title" transform="translate(14 {cy:.1}) rotate(-90)" text-anchor="middle">{y}</text>"#,
        cx = PLOT_LEFT + plot_w / 2.0,
        ty = LINE_HEIGHT - 10.0,
        x = escape(x_name),
        log = if log_x { " (log scale)" } else { "" },
        cy = PLOT_TOP + plot_h / 2.0,
        y = title_lines(&y_lines, 0),
    ));
    // The column's roof, where its metric names one: a dashed line with its label.
    if let Some(r) = reference {
        let yy = py(r.value);
        let _ = write!(
            svg,
            r#"<line class="roof-reference" x1="{PLOT_LEFT}" y1="{yy:.1}" x2="{x2}" y2="{yy:.1}"><title>{t}</title></line><text class="roof-reference-label" x="{lx}" y="{ly:.1}" text-anchor="end">{t}</text>"#,
            x2 = LINE_WIDTH - PLOT_RIGHT,
            lx = LINE_WIDTH - PLOT_RIGHT - 2.0,
            ly = yy + 14.0,
            t = escape(&r.label),
        );
    }
    // Each line, then a marker on every point (drawn last, so on top).
    for s in series {
        let class = s.node.map_or(String::new(), |(g, _)| format!(" node-{g}"));
        let path = s
            .points
            .iter()
            .map(|p| format!("{:.1},{:.1}", px(p.x), py(p.y)))
            .collect::<Vec<_>>()
            .join(" ");
        svg.push_str(&format!(
            r#"<polyline class="chart-line{class}" points="{path}"></polyline>"#
        ));
        // Error bars: each point's interval (95%, from the record), with short caps.
        for p in &s.points {
            if let Some((lo, hi)) = p.y_span {
                let (xx, y1, y2) = (px(p.x), py(hi), py(lo));
                svg.push_str(&format!(
                    r#"<path class="chart-error{class}" d="M{l:.1},{y1:.1}H{r:.1}M{xx:.1},{y1:.1}V{y2:.1}M{l:.1},{y2:.1}H{r:.1}"></path>"#,
                    l = xx - 3.0,
                    r = xx + 3.0,
                ));
            }
        }
    }
    for s in series {
        let class = s.node.map_or(String::new(), |(g, _)| format!(" node-{g}"));
        let node = s.node.map_or(String::new(), |(_, n)| format!(" on {n}"));
        for p in &s.points {
            svg.push_str(&format!(
                r#"<circle class="chart-point{class}" cx="{:.1}" cy="{:.1}" r="3.5"><title>{}: {}{}</title></circle>"#,
                px(p.x),
                py(p.y),
                escape(p.x_shown),
                escape(p.y_shown),
                escape(&node),
            ));
        }
    }
    if legend_h > 0.0 {
        svg.push_str("</g>");
    }
    svg.push_str("</svg>");
    Some(svg)
}

/// The roofline chart's size in SVG units: taller than the line chart, for the roofs'
/// labels; it scales with its box as the line chart does (`.line-chart` in style.css).
const ROOF_WIDTH: f64 = 400.0;
const ROOF_HEIGHT: f64 = 320.0;
/// Colours per node (`roof-node-N` in style.css); a fourth node reuses the first.
const NODE_CLASSES: usize = 3;

/// `10^k` as a tick label: 0.01, 0.1, 1, 10, 100, 1,000.
fn decade_label(k: i32) -> String {
    if k < 0 {
        format!("{:.*}", (-k) as usize, 10f64.powi(k))
    } else {
        tick_label(10f64.powi(k), 1.0)
    }
}

/// A roofline: FLOP rate against arithmetic intensity, both on log axes, under the
/// node's roofs: each memory roof a slope (bandwidth x intensity), each compute roof a
/// flat line from its ridge point (where it meets the DRAM slope, marked with its FLOP/B)
/// on; the measured points on top, each with its values in a `<title>`, every one listed
/// in the `<desc>`. Several nodes: each node's roofs and points in a colour of its own,
/// named in a legend. None when no point can be drawn.
pub fn roofline_chart(table: &TableView, index: usize) -> Option<String> {
    if table.stale.is_some() {
        return None;
    }
    let nodes: &[RooflineNode] = &table.roofs.roofline;
    let positive = |v: f64| v.is_finite() && v > 0.0;
    let points: Vec<(usize, &RooflinePoint)> = nodes
        .iter()
        .enumerate()
        .flat_map(|(i, n)| n.points.iter().map(move |p| (i, p)))
        .filter(|(_, p)| positive(p.x) && positive(p.y))
        .collect();
    if points.is_empty() {
        return None;
    }
    // The slope a ridge is taken against: DRAM where listed, else the first memory roof.
    let dram = |n: &RooflineNode| -> Option<(String, f64)> {
        n.memory
            .iter()
            .find(|(r, _)| r == "dram")
            .or(n.memory.first())
            .cloned()
            .filter(|m| positive(m.1))
    };
    let ridges: Vec<f64> = nodes
        .iter()
        .filter_map(|n| Some((dram(n)?.1, n)))
        .flat_map(|(m, n)| n.compute.iter().map(move |(_, c)| c / m))
        .filter(|r| positive(*r))
        .collect();
    let xs = points.iter().map(|p| p.1.x).chain(ridges.iter().copied());
    let x_min = xs.clone().fold(f64::INFINITY, f64::min);
    let x_max = xs.fold(f64::NEG_INFINITY, f64::max);
    let (kx_lo, kx_hi) = (
        x_min.log10().floor() as i32,
        (x_max.log10().ceil() as i32).max(x_min.log10().floor() as i32 + 1),
    );
    let x_lo = 10f64.powi(kx_lo);
    let ys = points
        .iter()
        .map(|p| p.1.y)
        .chain(nodes.iter().flat_map(|n| n.compute.iter().map(|c| c.1)))
        .chain(nodes.iter().filter_map(|n| dram(n).map(|m| m.1 * x_lo)))
        .filter(|v| positive(*v));
    let y_min = ys.clone().fold(f64::INFINITY, f64::min);
    let y_max = ys.fold(f64::NEG_INFINITY, f64::max);
    let (ky_lo, ky_hi) = (
        y_min.log10().floor() as i32,
        (y_max.log10().ceil() as i32).max(y_min.log10().floor() as i32 + 1),
    );
    let plot_w = ROOF_WIDTH - PLOT_LEFT - PLOT_RIGHT;
    let plot_h = ROOF_HEIGHT - PLOT_TOP - PLOT_BOTTOM;
    let px = |x: f64| PLOT_LEFT + (x.log10() - kx_lo as f64) / (kx_hi - kx_lo) as f64 * plot_w;
    let py =
        |y: f64| PLOT_TOP + (1.0 - (y.log10() - ky_lo as f64) / (ky_hi - ky_lo) as f64) * plot_h;
    let (x_hi, y_hi) = (10f64.powi(kx_hi), 10f64.powi(ky_hi));
    let x_name = nodes[0].x_name.as_str();
    let y_name = nodes[0].y_name.as_str();
    let y_unit = y_name
        .rsplit_once('(')
        .map_or("", |(_, u)| u.trim_end_matches(')'));

    let id = format!("roofline-{index}");
    let several = nodes.len() > 1;
    let roofs_said: Vec<String> = nodes
        .iter()
        .map(|n| {
            let mut parts: Vec<String> = n
                .memory
                .iter()
                .map(|(r, m)| {
                    format!(
                        "{r} slope {} {y_unit} per FLOP/B",
                        crate::measure::roofs::sig(*m)
                    )
                })
                .collect();
            let m = dram(n).map(|m| m.1);
            parts.extend(n.compute.iter().map(|(r, c)| match m {
                Some(m) => format!(
                    "{r} roof {} {y_unit}, ridge at {} FLOP/B",
                    crate::measure::roofs::sig(*c),
                    crate::measure::roofs::sig(c / m)
                ),
                None => format!("{r} roof {} {y_unit}", crate::measure::roofs::sig(*c)),
            }));
            let clock = if n.clock.is_empty() {
                String::new()
            } else {
                format!(" (compute roofs at {})", n.clock)
            };
            format!("node {}: {}{clock}", n.node, parts.join(", "))
        })
        .collect();
    let title = format!(
        "Roofline of {y_name} against {x_name}, both on logarithmic axes, under the node's roofs"
    );
    let description = format!(
        "{}. {} measured points: {}.",
        roofs_said.join("; "),
        points.len(),
        points
            .iter()
            .map(|(i, p)| {
                let node = if several {
                    format!("{} ", nodes[*i].node)
                } else {
                    String::new()
                };
                format!(
                    "{node}{}: {} {x_name}, {} {y_name}",
                    p.label, p.x_shown, p.y_shown
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    );
    let mut svg = format!(
        r#"<svg class="line-chart roofline-chart" role="img" aria-labelledby="{id}-title {id}-desc" viewBox="0 0 {ROOF_WIDTH} {ROOF_HEIGHT}" width="{ROOF_WIDTH}" height="{ROOF_HEIGHT}" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg"><title id="{id}-title">{t}</title><desc id="{id}-desc">{d}</desc>"#,
        t = escape(&title),
        d = escape(&description),
    );
    let base = ROOF_HEIGHT - PLOT_BOTTOM;
    let right = ROOF_WIDTH - PLOT_RIGHT;
    // Decade grid and labels on both axes.
    for k in ky_lo..=ky_hi {
        let yy = py(10f64.powi(k));
        let _ = write!(
            svg,
            r#"<line class="chart-grid" x1="{PLOT_LEFT}" y1="{yy:.1}" x2="{right}" y2="{yy:.1}"></line><text class="chart-tick" x="{tx}" y="{ty:.1}" text-anchor="end">{label}</text>"#,
            tx = PLOT_LEFT - 6.0,
            ty = yy + 4.0,
            label = escape(&decade_label(k)),
        );
    }
    for k in kx_lo..=kx_hi {
        let xx = px(10f64.powi(k));
        let label = decade_label(k);
        // The last label ends at the chart's edge rather than past it.
        let half = label.chars().count() as f64 * CHAR_WIDTH / 2.0;
        let (tx, anchor) = if xx + half > ROOF_WIDTH - 1.0 {
            (ROOF_WIDTH - 1.0, "end")
        } else if xx - half < PLOT_LEFT {
            // The first starts at the y axis, clear of the y axis's lowest label.
            (xx, "start")
        } else {
            (xx, "middle")
        };
        let _ = write!(
            svg,
            r#"<line class="chart-grid" x1="{xx:.1}" y1="{PLOT_TOP}" x2="{xx:.1}" y2="{base}"></line><text class="chart-tick" x="{tx:.1}" y="{ty}" text-anchor="{anchor}">{label}</text>"#,
            ty = base + 18.0,
            label = escape(&label),
        );
    }
    let _ = write!(
        svg,
        r#"<line class="chart-axis" x1="{PLOT_LEFT}" y1="{PLOT_TOP}" x2="{PLOT_LEFT}" y2="{base}"></line><line class="chart-axis" x1="{PLOT_LEFT}" y1="{base}" x2="{right}" y2="{base}"></line><text class="chart-axis-title" x="{cx:.1}" y="{ty}" text-anchor="middle">{x} (log scale)</text><text class="chart-axis-title" transform="translate(14 {cy:.1}) rotate(-90)" text-anchor="middle">{y} (log scale)</text>"#,
        cx = PLOT_LEFT + plot_w / 2.0,
        ty = ROOF_HEIGHT - 10.0,
        x = escape(x_name),
        cy = PLOT_TOP + plot_h / 2.0,
        y = escape(y_name),
    );
    // The roofs, each node in its colour. Labels are kept inside the plot: a compute
    // roof's at its right end, above the line; a memory roof's where its slope enters.
    let mut labels_at: Vec<f64> = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        let class = format!("roof-node-{}", i % NODE_CLASSES);
        let top = n
            .compute
            .iter()
            .map(|c| c.1)
            .fold(f64::NEG_INFINITY, f64::max);
        for (roof, slope) in &n.memory {
            if !positive(*slope) {
                continue;
            }
            // From the left edge to where it meets the highest compute roof (or the
            // plot's top or right edge).
            let x_end = (top / slope).min(x_hi).min(y_hi / slope);
            let (x0, y0) = (x_lo, slope * x_lo);
            let x_start = if y0 < 10f64.powi(ky_lo) {
                10f64.powi(ky_lo) / slope
            } else {
                x0
            };
            if x_end <= x_start {
                continue;
            }
            let _ = write!(
                svg,
                r#"<line class="roof-line roof-memory {class}" x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}"><title>{}</title></line>"#,
                px(x_start),
                py(slope * x_start),
                px(x_end),
                py(slope * x_end),
                escape(&format!(
                    "{} {roof}: {} {y_unit} per FLOP/B",
                    n.node,
                    crate::measure::roofs::sig(*slope)
                )),
            );
            let lx = px(x_start) + 4.0;
            let ly = py(slope * x_start) - 6.0;
            // Its bandwidth, in the y unit's prefix: TFLOP/s per FLOP/B is TB/s.
            let bandwidth = format!(
                "{roof} {} {}",
                crate::measure::roofs::sig(*slope),
                y_unit.replace("FLOP", "B")
            );
            let _ = write!(
                svg,
                r#"<text class="roof-label {class}" x="{lx:.1}" y="{ly:.1}">{}</text>"#,
                escape(&bandwidth)
            );
        }
        let ridge_from = dram(n);
        for (roof, c) in &n.compute {
            if !positive(*c) {
                continue;
            }
            let start = ridge_from.as_ref().map_or(x_lo, |m| (c / m.1).max(x_lo));
            if start >= x_hi {
                continue;
            }
            let yy = py(*c);
            let _ = write!(
                svg,
                r#"<line class="roof-line roof-compute {class}" x1="{:.1}" y1="{yy:.1}" x2="{right}" y2="{yy:.1}"><title>{}</title></line>"#,
                px(start),
                escape(&format!(
                    "{} {roof}: {} {y_unit}",
                    n.node,
                    crate::measure::roofs::sig(*c)
                )),
            );
            // Ridge point: where this roof meets the DRAM slope, with its FLOP/B.
            let mut label = format!("{roof} {}", crate::measure::roofs::sig(*c));
            if let Some((m_name, m)) = &ridge_from {
                let r = c / m;
                label.push_str(&format!(", ridge {}", crate::measure::roofs::sig(r)));
                if r >= x_lo {
                    let _ = write!(
                        svg,
                        r#"<rect class="roof-ridge {class}" x="{:.1}" y="{:.1}" width="6" height="6" transform="rotate(45 {:.1} {yy:.1})"><title>{}</title></rect>"#,
                        px(r) - 3.0,
                        yy - 3.0,
                        px(r),
                        escape(&format!(
                            "{} ridge of {roof} and {m_name}: {} FLOP/B",
                            n.node,
                            crate::measure::roofs::sig(r)
                        )),
                    );
                }
            }
            // Nudge a label down past one already drawn at nearly the same height.
            let mut ly = yy - 5.0;
            // (16 units: a line of the 13-unit label text, drawn with its halo.)
            while labels_at.iter().any(|l| (l - ly).abs() < 16.0) {
                ly += 16.0;
            }
            labels_at.push(ly);
            let _ = write!(
                svg,
                r#"<text class="roof-label {class}" x="{:.1}" y="{ly:.1}" text-anchor="end">{}</text>"#,
                right - 2.0,
                escape(&label)
            );
        }
    }
    // The measured points, on top.
    for (i, p) in &points {
        let class = format!("roof-node-{}", i % NODE_CLASSES);
        let node = if several {
            format!("{} ", nodes[*i].node)
        } else {
            String::new()
        };
        let _ = write!(
            svg,
            r#"<circle class="chart-point roof-point {class}" cx="{:.1}" cy="{:.1}" r="3.5"><title>{}</title></circle>"#,
            px(p.x),
            py(p.y),
            escape(&format!(
                "{node}{}: {} {x_name}, {} {y_name}",
                p.label, p.x_shown, p.y_shown
            )),
        );
    }
    if several {
        for (i, n) in nodes.iter().enumerate() {
            let class = format!("roof-node-{}", i % NODE_CLASSES);
            let ly = PLOT_TOP + 14.0 + 15.0 * i as f64;
            let _ = write!(
                svg,
                r#"<circle class="chart-point roof-point {class}" cx="{:.1}" cy="{:.1}" r="3.5"></circle><text class="roof-label {class}" x="{:.1}" y="{:.1}">{}</text>"#,
                PLOT_LEFT + 10.0,
                ly - 4.0,
                PLOT_LEFT + 18.0,
                ly,
                escape(&n.node)
            );
        }
    }
    svg.push_str("</svg>");
    Some(svg)
}

/// A column's roof across a line chart: a dashed line at its value with its label, and
/// how far the y axis must reach to show it.
fn reference_for(table: &TableView, column: usize) -> Option<&ReferenceLine> {
    table
        .roofs
        .reference
        .iter()
        .find(|(c, _)| *c == column)
        .map(|(_, r)| r)
}

/// A round step near `raw`: 1, 2, 2.5 or 5 times a power of ten.
fn nice_step(raw: f64) -> f64 {
    let magnitude = 10f64.powf(raw.log10().floor());
    let r = raw / magnitude;
    let m = if r <= 1.0 {
        1.0
    } else if r <= 2.0 {
        2.0
    } else if r <= 2.5 {
        2.5
    } else if r <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * magnitude
}

/// A y tick's label, with as many decimals as the step needs and thousands separated.
fn tick_label(v: f64, step: f64) -> String {
    // The fewest decimals that show every multiple of the step exactly (0.25 needs two).
    let decimals = (0..6)
        .find(|&d| {
            let scaled = step * 10f64.powi(d);
            (scaled - scaled.round()).abs() < 1e-6 * scaled.max(1.0)
        })
        .unwrap_or(6) as usize;
    let text = format!("{:.*}", decimals, v + 0.0);
    let (int, frac) = match text.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (text.as_str(), None),
    };
    let (sign, digits) = match int.strip_prefix('-') {
        Some(d) => ("-", d),
        None => ("", int),
    };
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    match frac {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_coordinate_is_written_as_f64_writes_it() {
        let values = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            24.0,
            102.0,
            0.5,
            23.4,
            -7.25,
            1e14,
            1e15,
            1e16,
            1e300,
            f64::MIN_POSITIVE,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            480.0 / 7.0,
        ];
        for v in values
            .into_iter()
            .chain((0..2000).map(|i| i as f64 * 0.37 - 300.0))
        {
            assert_eq!(Coord(v).to_string(), v.to_string(), "{v:?}");
        }
    }

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
            intervals: Vec::new(),
            provenance: Vec::new(),
            stale: None,
            notes: Vec::new(),
            line: None,
            bar: None,
            roofs: Default::default(),
        }
    }

    fn widths(svg: &str) -> Vec<f64> {
        svg.split("class=\"chart-bar")
            .skip(1)
            .filter_map(|s| s.split("width=\"").nth(1)?.split('"').next()?.parse().ok())
            .collect()
    }

    #[test]
    fn a_long_axis_title_wraps_instead_of_widening_the_chart() {
        // A chart wider than 404 units is drawn under 11.5 px on a 390 px phone (358 px of
        // column): the title wraps to the room the bars leave.
        let title = "GPU time per launch with every launch queued behind a spinning kernel (µs)";
        let t = table(
            &["label", title],
            &[false, true],
            &[&["queued1000-full", "2.26"], &["one-1b", "3.65 ±0.03†"]],
        );
        let svg = bar_chart(&t).expect("a chart");
        assert!(svg.contains(r#"viewBox="0 0 360 "#), "{svg}");
        assert!(svg.matches("<tspan").count() >= 2, "{svg}");
        // Every line of it starts where the bars do and ends inside the chart.
        for line in svg.split("<tspan").skip(1) {
            let text = line.split('>').nth(1).unwrap().split('<').next().unwrap();
            assert!(attr(line, "x") + text_width(text) <= 360.0, "{text}: {svg}");
        }
        // Unwrapped, the words are the heading's.
        let words: Vec<&str> = svg
            .split("<tspan")
            .skip(1)
            .flat_map(|l| {
                l.split('>')
                    .nth(1)
                    .unwrap()
                    .split('<')
                    .next()
                    .unwrap()
                    .split(' ')
            })
            .collect();
        assert_eq!(words.join(" "), format!("{title} →"));
    }

    #[test]
    fn wide_glyphs_are_measured_wider() {
        assert!(text_width("wgmma-bf16") > text_width("abcde-fghi"));
        assert_eq!(text_width("ab"), 2.0 * TEXT_CHAR);
        assert_eq!(
            wrap("one two three", 6.0 * TEXT_CHAR + 13.0, text_width),
            vec!["one two", "three"]
        );
        assert_eq!(wrap("unbreakable", 3.0, text_width), vec!["unbreakable"]);
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
    fn a_named_column_is_charted_instead_of_the_first_numeric_one() {
        let mut t = table(
            &["label", "stride", "time (ns)"],
            &[false, true, true],
            &[&["s1", "1", "2.0"], &["s32", "32", "64.0"]],
        );
        t.bar = Some(2);
        let svg = bar_chart(&t).expect("a chart");
        assert!(svg.contains("Bar chart of time (ns) by label"), "{svg}");
        t.bar = None;
        let svg = bar_chart(&t).expect("a chart");
        assert!(svg.contains("Bar chart of stride by label"), "{svg}");
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
                measured_by: None,
                pending: None,
            },
            super::super::tables::ColumnGroup {
                node: "node-b".into(),
                gpu: "B".into(),
                first: 2,
                span: 1,
                measured_by: None,
                pending: None,
            },
        ];
        let svg = bar_chart(&t).expect("a chart");
        assert!(svg.contains("<title>Bar chart comparing GB/s on node-a, node-b: full · node-a 400.0, full · node-b 200.0, quarter · node-a 100.0, quarter · node-b 50.0.</title>"), "{svg}");
        // The legend first: a swatch in each node's shade and "node (GPU)".
        let (legend, bars) = svg
            .split_once("</g><text class=\"chart-axis\"")
            .expect("a legend group");
        assert!(
            legend.contains(r#"<rect class="chart-bar node-0" x="0""#)
                && legend.contains(r#"<rect class="chart-bar node-1" x="0""#)
                && legend.contains(">node-a (A)</text>")
                && legend.contains(">node-b (B)</text>"),
            "{legend}"
        );
        assert!(bars.contains(">GB/s →</text>"), "{bars}");
        assert!(
            legend.starts_with("<svg") && legend.contains("<g class=\"chart-legend\">"),
            "{legend}"
        );
        let w = widths(bars);
        assert_eq!(w.len(), 4);
        assert!(
            (w[0] / w[1] - 2.0).abs() < 0.01 && (w[0] / w[3] - 8.0).abs() < 0.01,
            "{w:?}"
        );
        assert!(bars.contains(r#"class="chart-bar node-1""#));
        let width = width_of(&svg);
        for (text, l, r) in text_extents(&svg) {
            assert!(
                l >= 0.0 && r <= width,
                "{text} at {l}..{r} outside 0..{width}"
            );
        }

        // node-b not measured yet: no bars of its own, the legend says so under its GPU,
        // and node-a's bars still show.
        t.groups[1].pending = Some("not measured on node-b yet".into());
        for row in &mut t.values {
            row[2] = None;
        }
        let svg = bar_chart(&t).expect("a chart without node-b's bars");
        let (legend, bars) = svg.split_once("</g><text class=\"chart-axis\"").unwrap();
        assert!(
            legend.contains(r#"<rect class="chart-bar node-1 pending""#)
                && legend.contains(">not measured on node-b yet</text>"),
            "{legend}"
        );
        assert_eq!(widths(bars).len(), 2, "{bars}");
        assert!(!bars.contains("· node-b"), "{bars}");
        assert!(
            svg.contains(
                "full · node-a 400.0, quarter · node-a 100.0. not measured on node-b yet."
            ),
            "{svg}"
        );
        // All nodes pending (no record anywhere): no chart.
        t.groups[0].pending = Some("not measured on node-a yet".into());
        assert!(bar_chart(&t).is_none());
    }

    #[test]
    fn a_side_by_side_line_chart_draws_a_line_per_node_with_a_legend() {
        // Each node's own x (a size over its L2) and y, in one group each.
        let mut t = table(
            &["label", "KiB", "ns", "KiB", "ns"],
            &[false, true, true, true, true],
            &[
                &["l2/4", "12,800", "250", "15,360", "260"],
                &["l2*4", "204,800", "600", "245,760", "580"],
                &["l2*16", "819,200", "610", "983,040", "590"],
            ],
        );
        t.groups = vec![
            super::super::tables::ColumnGroup {
                node: "node-a".into(),
                gpu: "A".into(),
                first: 1,
                span: 2,
                measured_by: None,
                pending: None,
            },
            super::super::tables::ColumnGroup {
                node: "node-b".into(),
                gpu: "B".into(),
                first: 3,
                span: 2,
                measured_by: None,
                pending: None,
            },
        ];
        t.line = Some(LineAxes {
            x: 0,
            y: 1,
            x_shared: false,
        });
        let svg = chart(&t, 0).expect("a line chart");
        assert!(svg.contains("<title id=\"line-chart-0-title\">Line chart of ns against KiB on node-a, node-b</title>"), "{svg}");
        assert!(
            svg.contains("node-a: 3 points: 12,800 KiB: 250 ns;"),
            "{svg}"
        );
        assert_eq!(
            svg.matches("<polyline class=\"chart-line node-0\"").count(),
            1,
            "{svg}"
        );
        assert_eq!(
            svg.matches("<polyline class=\"chart-line node-1\"").count(),
            1,
            "{svg}"
        );
        assert_eq!(
            svg.matches("class=\"chart-point node-1\"").count(),
            3,
            "{svg}"
        );
        assert!(
            svg.contains("<title>983,040: 590 on node-b</title>"),
            "{svg}"
        );
        assert!(
            svg.contains(">node-a (A)</text>") && svg.contains(">node-b (B)</text>"),
            "{svg}"
        );
        // node-b's line uses its own x values: its last point lies right of node-a's.
        let last_x = |class: &str| -> f64 {
            let pts = svg
                .split(&format!("<polyline class=\"{class}\" points=\""))
                .nth(1)
                .unwrap();
            pts.split('"')
                .next()
                .unwrap()
                .split(' ')
                .last()
                .unwrap()
                .split(',')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        assert!(
            last_x("chart-line node-1") > last_x("chart-line node-0"),
            "{svg}"
        );
        // The plot sits below the legend, inside the (taller) chart.
        assert!(
            svg.contains("viewBox=\"0 0 400 312\"")
                && svg.contains("<g transform=\"translate(0 52)\"><line class=\"chart-grid\""),
            "{svg}"
        );
        // node-b not measured yet: one line, the legend says so.
        t.groups[1].pending = Some("not measured on node-b yet".into());
        let svg = chart(&t, 0).expect("node-a's line");
        assert_eq!(svg.matches("<polyline").count(), 1, "{svg}");
        assert!(svg.contains(">not measured on node-b yet</text>"), "{svg}");
    }

    /// Every text's extent as drawn at `TEXT_CHAR` a character: (left, right).
    fn text_extents(svg: &str) -> Vec<(String, f64, f64)> {
        svg.split("<text ")
            .skip(1)
            .map(|t| {
                let attr = |name: &str| -> Option<f64> {
                    t.split(&format!(" {name}=\""))
                        .nth(1)?
                        .split('"')
                        .next()?
                        .parse()
                        .ok()
                };
                let x = attr("x").expect("every text has an x");
                let text = t.split('>').nth(1).unwrap().split("</text").next().unwrap();
                let w = text_width(text);
                match t.contains("text-anchor=\"end\"") {
                    true => (text.to_string(), x - w, x),
                    false => (text.to_string(), x, x + w),
                }
            })
            .collect()
    }

    /// The number in the first `name="..."` attribute of `tag`.
    fn attr(tag: &str, name: &str) -> f64 {
        tag.split(&format!("{name}=\""))
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    }

    fn width_of(svg: &str) -> f64 {
        attr(svg, "width")
    }

    #[test]
    fn every_label_and_value_lies_inside_the_chart() {
        // The warp-divergence table: long labels, values with intervals, and a bar that is
        // the longest by far (its value is where "7.582 ±0." was cut off at 480 units).
        let mut t = table(
            &["label", "median ms"],
            &[false, true],
            &[
                &["uniform", "0.241 ±0.001†"],
                &["data-per-warp", "0.242 ±0.001†"],
                &["half-warp", "0.478 ±0.002"],
                &["per-lane-divergent", "7.582 ±0.013"],
            ],
        );
        // The cells carry intervals and marks; the numbers are the values.
        t.values = [0.241, 0.242, 0.478, 7.582]
            .iter()
            .map(|v| vec![None, Some(*v)])
            .collect();
        for svg in [bar_chart(&t).unwrap(), {
            let mut wide = t.clone();
            wide.rows[3][0] = "a label far longer than any this site has used so far".into();
            wide.rows[3][1] = "123456.789 ±12.345†".into();
            wide.values[3][1] = Some(123456.789);
            bar_chart(&wide).unwrap()
        }] {
            let width = width_of(&svg);
            assert!(width >= WIDTH, "{svg}");
            for (text, left, right) in text_extents(&svg) {
                assert!(
                    left >= 0.0 && right <= width,
                    "{text:?} at {left}..{right} of {width}: {svg}"
                );
            }
        }
        // The usual table keeps the least width, which fits a phone's column.
        assert_eq!(width_of(&bar_chart(&t).unwrap()), WIDTH);
    }

    #[test]
    fn labels_are_escaped() {
        let t = table(&["label", "GB/s"], &[false, true], &[&["<a&b>", "2.0"]]);
        let svg = bar_chart(&t).expect("a chart");
        assert!(svg.contains("&lt;a&amp;b&gt;"));
        assert!(!svg.contains("<a&b>"));
    }

    fn line_table(x: &[(&str, f64)], y: &[(&str, f64)]) -> TableView {
        let mut t = table(
            &["label", "working set (MiB)", "GB/s"],
            &[false, true, true],
            &[],
        );
        for (i, ((xs, xv), (ys, yv))) in x.iter().zip(y).enumerate() {
            t.rows
                .push(vec![format!("r{i}"), xs.to_string(), ys.to_string()]);
            t.values.push(vec![None, Some(*xv), Some(*yv)]);
        }
        t.line = Some(LineAxes {
            x: 1,
            y: 2,
            x_shared: false,
        });
        t
    }

    fn circles(svg: &str) -> Vec<(f64, f64)> {
        svg.split("<circle ")
            .skip(1)
            .map(|s| (attr(s, "cx"), attr(s, "cy")))
            .collect()
    }

    #[test]
    fn line_chart_over_three_decades_uses_a_log_axis_with_even_spacing_for_powers_of_two() {
        let xs: Vec<(String, f64)> = (0..11)
            .map(|k| ((1u32 << k).to_string(), f64::from(1u32 << k)))
            .collect();
        let x: Vec<(&str, f64)> = xs.iter().map(|(s, v)| (s.as_str(), *v)).collect();
        let y: Vec<(&str, f64)> = (0..11)
            .map(|k| ("1.0", if k < 6 { 9000.0 } else { 4000.0 }))
            .collect();
        let t = line_table(&x, &y);
        let svg = chart(&t, 3).expect("a line chart");
        assert!(svg.contains(r#"class="line-chart""#), "{svg}");
        assert!(svg.contains(r#"aria-labelledby="line-chart-3-title line-chart-3-desc""#));
        assert!(svg.contains(
            r#"<title id="line-chart-3-title">Line chart of GB/s against working set (MiB)</title>"#
        ));
        assert!(
            svg.contains("working set (MiB) on a logarithmic axis"),
            "{svg}"
        );
        assert!(svg.contains("working set (MiB) (log scale)</text>"));
        let c = circles(&svg);
        assert_eq!(c.len(), 11, "every point is marked");
        let gaps: Vec<f64> = c.windows(2).map(|w| w[1].0 - w[0].0).collect();
        for g in &gaps {
            assert!(
                (g - gaps[0]).abs() < 0.15,
                "powers of two are evenly spaced on a log axis: {gaps:?}"
            );
        }
        // Higher bandwidth is drawn higher (smaller y).
        assert!(c[0].1 < c[10].1);
        // Eleven labels do not fit side by side: every second one, first and last kept.
        let ticks: Vec<&str> = svg
            .split(r#"text-anchor="middle">"#)
            .skip(1)
            .map(|s| s.split('<').next().unwrap())
            .filter(|s| s.chars().all(|c| c.is_ascii_digit()))
            .collect();
        assert_eq!(ticks, ["1", "4", "16", "64", "256", "1024"]);
    }

    #[test]
    fn line_chart_under_two_decades_stays_linear() {
        let t = line_table(
            &[("10", 10.0), ("20", 20.0), ("40", 40.0)],
            &[("1", 1.0), ("2", 2.0), ("3", 3.0)],
        );
        let svg = chart(&t, 0).expect("a line chart");
        assert!(!svg.contains("log"), "{svg}");
        let c = circles(&svg);
        let (g1, g2) = (c[1].0 - c[0].0, c[2].0 - c[1].0);
        assert!((g2 / g1 - 2.0).abs() < 0.01, "linear spacing: {g1} {g2}");
    }

    #[test]
    fn line_chart_sorts_points_by_x_and_starts_its_y_axis_at_zero() {
        let t = line_table(
            &[("4", 4.0), ("1", 1.0), ("2", 2.0)],
            &[("30", 30.0), ("10", 10.0), ("20", 20.0)],
        );
        let svg = chart(&t, 0).expect("a line chart");
        let c = circles(&svg);
        assert!(c[0].0 < c[1].0 && c[1].0 < c[2].0);
        assert!(
            c[0].1 > c[1].1 && c[1].1 > c[2].1,
            "y rises with x here: {c:?}"
        );
        assert!(
            svg.contains(r#"text-anchor="end">0</text>"#),
            "a zero tick: {svg}"
        );
        assert!(svg.contains("1 working set (MiB): 10 GB/s; 2 working set (MiB): 20 GB/s; 4 working set (MiB): 30 GB/s"));
    }

    #[test]
    fn no_line_chart_for_one_point_or_a_stale_table() {
        let t = line_table(&[("1", 1.0)], &[("2", 2.0)]);
        assert!(chart(&t, 0).is_none());
        let mut t = line_table(&[("1", 1.0), ("2", 2.0)], &[("2", 2.0), ("3", 3.0)]);
        t.stale = Some("record missing".into());
        assert!(chart(&t, 0).is_none());
    }

    #[test]
    fn crowded_x_labels_are_thinned_but_every_point_keeps_its_marker() {
        let xs: Vec<(String, f64)> = (0..40)
            .map(|k| ((1000 + k).to_string(), 1000.0 + f64::from(k)))
            .collect();
        let x: Vec<(&str, f64)> = xs.iter().map(|(s, v)| (s.as_str(), *v)).collect();
        let y: Vec<(&str, f64)> = (0..40).map(|_| ("1", 1.0)).collect();
        let svg = chart(&line_table(&x, &y), 0).expect("a line chart");
        assert_eq!(circles(&svg).len(), 40);
        let labels = svg.matches(r#"text-anchor="middle">10"#).count();
        assert!(labels > 3 && labels < 20, "{labels} x labels");
    }

    #[test]
    fn tick_labels_group_thousands_and_keep_the_decimals_a_step_needs() {
        assert_eq!(tick_label(12000.0, 2000.0), "12,000");
        assert_eq!(tick_label(0.5, 0.25), "0.50");
        assert_eq!(tick_label(0.75, 0.25), "0.75");
        assert_eq!(tick_label(-1500.0, 500.0), "-1,500");
        assert_eq!(nice_step(2300.0), 2500.0);
        assert_eq!(nice_step(0.7), 1.0);
        assert_eq!(nice_step(31.0), 50.0);
    }

    #[test]
    fn the_dispatcher_keeps_the_bar_chart_by_default() {
        let t = table(
            &["label", "GB/s"],
            &[false, true],
            &[&["a", "1.0"], &["b", "2.0"]],
        );
        assert!(chart(&t, 0).unwrap().contains("bar-chart"));
    }

    #[test]
    fn a_line_charts_points_carry_their_intervals_as_error_bars() {
        let mut t = line_table(
            &[("1", 1.0), ("4", 4.0), ("16", 16.0)],
            &[("100", 100.0), ("90", 90.0), ("50", 50.0)],
        );
        t.intervals = vec![
            vec![None, None, Some((98.0, 103.0))],
            vec![None, None, None],
            vec![None, None, Some((45.0, 52.0))],
        ];
        let svg = line_chart(
            &t,
            LineAxes {
                x: 1,
                y: 2,
                x_shared: false,
            },
            0,
        )
        .unwrap();
        assert_eq!(svg.matches("class=\"chart-error\"").count(), 2, "{svg}");
        // Without intervals, none.
        t.intervals.clear();
        let svg = line_chart(
            &t,
            LineAxes {
                x: 1,
                y: 2,
                x_shared: false,
            },
            0,
        )
        .unwrap();
        assert!(!svg.contains("chart-error"));
    }

    fn roofline_node(node: &str, dram: f64, fp32: f64) -> RooflineNode {
        RooflineNode {
            node: node.into(),
            x_name: "arithmetic intensity (FLOP/B)".into(),
            y_name: "FP32 rate (TFLOP/s)".into(),
            memory: vec![("dram".into(), dram)],
            compute: vec![("fp32".into(), fp32), ("tensor_bf16".into(), 1070.5)],
            clock: "1980 MHz, the driver's maximum SM clock".into(),
            points: [(0.25, 1.05), (8.0, 29.7), (128.0, 63.2)]
                .iter()
                .map(|&(x, y)| RooflinePoint {
                    label: format!("k{x}"),
                    x,
                    y,
                    x_shown: format!("{x:.2}"),
                    y_shown: format!("{y:.2}"),
                })
                .collect(),
        }
    }

    fn roofline_table(nodes: Vec<RooflineNode>) -> TableView {
        let mut t = table(
            &[
                "label",
                "arithmetic intensity (FLOP/B)",
                "FP32 rate (TFLOP/s)",
            ],
            &[false, true, true],
            &[&["k1", "0.25", "1.05"]],
        );
        t.line = Some(LineAxes {
            x: 1,
            y: 2,
            x_shared: false,
        });
        t.roofs.roofline = nodes;
        t
    }

    #[test]
    fn a_roofline_draws_log_axes_roofs_ridges_and_points_with_their_values() {
        let t = roofline_table(vec![roofline_node("h200", 4.8, 66.9)]);
        let svg = chart(&t, 0).unwrap();
        assert!(svg.contains("class=\"line-chart roofline-chart\""), "{svg}");
        assert!(svg.contains("both on logarithmic axes"), "{svg}");
        // The DRAM slope, both compute roofs, and each ridge with its FLOP/B.
        assert_eq!(svg.matches("roof-memory").count(), 1, "{svg}");
        assert_eq!(svg.matches("roof-compute").count(), 2, "{svg}");
        assert!(
            svg.contains("<title>h200 ridge of fp32 and dram: 13.94 FLOP/B</title>"),
            "{svg}"
        );
        assert!(
            svg.contains("fp32 roof 66.90 TFLOP/s, ridge at 13.94 FLOP/B"),
            "{svg}"
        );
        assert!(
            svg.contains("compute roofs at 1980 MHz, the driver&#39;s maximum SM clock"),
            "{svg}"
        );
        assert!(svg.contains("dram 4.800 TB/s"), "{svg}");
        // Every point, with its values, in a <title> and in the <desc>.
        assert_eq!(
            svg.matches("<circle class=\"chart-point roof-point")
                .count(),
            3,
            "{svg}"
        );
        assert!(
            svg.contains(
                "<title>k8: 8.00 arithmetic intensity (FLOP/B), 29.70 FP32 rate (TFLOP/s)</title>"
            ),
            "{svg}"
        );
        assert!(
            svg.contains("k128: 128.00 arithmetic intensity (FLOP/B), 63.20 FP32 rate (TFLOP/s)"),
            "{svg}"
        );
        // Decade ticks on both axes.
        for tick in [">0.1<", ">1<", ">10<", ">100<", ">1,000<"] {
            assert!(svg.contains(tick), "{tick} in {svg}");
        }
        // One node: no legend, one colour.
        assert!(!svg.contains("roof-node-1"), "{svg}");
        // A stale table draws nothing.
        let mut stale = t.clone();
        stale.stale = Some("record is stale".into());
        assert_eq!(roofline_chart(&stale, 0), None);
    }

    #[test]
    fn a_roofline_of_several_nodes_gives_each_its_colour_and_a_legend() {
        let t = roofline_table(vec![
            roofline_node("h200", 4.8, 66.9),
            roofline_node("h100", 3.35, 66.9),
        ]);
        let svg = chart(&t, 0).unwrap();
        assert!(svg.contains("roof-line roof-memory roof-node-1"), "{svg}");
        assert!(
            svg.contains("roof-point roof-node-0") && svg.contains("roof-point roof-node-1"),
            "{svg}"
        );
        // The legend names each node; each point says its node.
        assert!(
            svg.contains(">h100</text>") && svg.contains(">h200</text>"),
            "{svg}"
        );
        assert!(svg.contains("<title>h100 k8: 8.00"), "{svg}");
        assert!(
            svg.contains("h100 ridge of fp32 and dram: 19.97 FLOP/B"),
            "{svg}"
        );
    }

    #[test]
    fn a_line_or_bar_chart_draws_its_columns_roof_as_a_labelled_line() {
        let mut t = table(
            &["label", "working set (MiB)", "bandwidth (GB/s)"],
            &[false, true, true],
            &[
                &["a", "1", "3000"],
                &["b", "64", "4100"],
                &["c", "1024", "4200"],
            ],
        );
        let roof = ReferenceLine {
            label: "dram roof 4800 GB/s".into(),
            value: 4800.0,
        };
        t.roofs.reference = vec![(2, roof)];
        let bar = bar_chart(&t).unwrap();
        assert!(bar.contains("class=\"roof-reference\""), "{bar}");
        assert!(bar.contains(">dram roof 4800 GB/s</text>"), "{bar}");
        assert!(
            bar.contains("A dashed line marks the dram roof 4800 GB/s."),
            "{bar}"
        );
        let line = line_chart(
            &t,
            LineAxes {
                x: 1,
                y: 2,
                x_shared: false,
            },
            0,
        )
        .unwrap();
        assert!(line.contains("class=\"roof-reference\""), "{line}");
        // The y axis reaches the roof (4,800): its top tick is 6,000, not 4,000.
        assert!(line.contains(">6,000<"), "{line}");
        // Without a roof, neither draws one.
        t.roofs.reference.clear();
        assert!(!bar_chart(&t).unwrap().contains("roof-reference"));
    }
}
