//! Measured tables: cut the cited rows and columns out of a record.

use serde::Serialize;

use crate::content::TableRef;
use crate::measure::record::{one_significant, IntervalText, TIMING_NAMES};
use crate::measure::{Citation, Staleness};

#[derive(Debug, Clone, Serialize)]
pub struct TableView {
    pub experiment: String,
    /// The cited nodes as one phrase ("h200", or "t4, h200" side by side).
    pub node: String,
    /// Side by side: the column group of each node, in the entry's order, after the
    /// leading columns that name the row (empty for a one-node table).
    pub groups: Vec<ColumnGroup>,
    pub caption: Option<String>,
    pub headings: Vec<String>,
    /// Whether each column is numeric (right-aligned).
    pub numeric: Vec<bool>,
    pub rows: Vec<Vec<String>>,
    /// Each cell's number, where it has one: what charts are drawn from, so they never
    /// parse the formatted text back.
    pub values: Vec<Vec<Option<f64>>>,
    /// Each cell's interval, where it is an estimate with one (a median, a metric of
    /// time), as the record keeps it: charts draw it as an error bar.
    #[serde(skip)]
    pub intervals: Vec<Vec<Option<(f64, f64)>>>,
    /// Where each node's numbers came from (GPU, driver, capture time...), in node order.
    pub provenance: Vec<Provenance>,
    /// Why the table cannot be shown (drafts only: a refused entry is never published).
    pub stale: Option<String>,
    /// Footnotes to the cells, such as timings whose sampling did not converge.
    pub notes: Vec<String>,
    /// Columns (by position) to draw as a line chart, y against x, where the entry asks
    /// for one; otherwise the table gets the default bar chart. Side by side, positions
    /// within each node's column group (a line per node).
    pub line: Option<LineAxes>,
    /// The column (by position) a bar chart draws, where the entry names one. Side by
    /// side, its position within each node's column group.
    pub bar: Option<usize>,
    /// The roofs its chart draws, decided here from the record and the node's peaks.
    #[serde(skip)]
    pub roofs: ChartRoofs,
}

/// The roofs a table's chart draws (the chart only draws them; which and where is
/// decided here).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChartRoofs {
    /// One per cited node when the chart is a roofline: its x column an arithmetic
    /// intensity (FLOP/B) and its y column a FLOP rate.
    pub roofline: Vec<RooflineNode>,
    /// A labelled reference line at a column's roof, by column position, for the line or
    /// bar chart that draws that column.
    pub reference: Vec<(usize, ReferenceLine)>,
}

/// One node on a roofline chart: its roofs in the chart's units and its measured points.
#[derive(Debug, Clone, PartialEq)]
pub struct RooflineNode {
    pub node: String,
    /// The x and y columns' headings, with their units (a side-by-side table keeps them
    /// here, having no line axes of its own).
    pub x_name: String,
    pub y_name: String,
    /// Memory roofs (`dram`, `l2`, `smem`): y = slope x intensity, in the y column's unit.
    pub memory: Vec<(String, f64)>,
    /// Compute roofs (`fp32`, `tensor_bf16`...), in the y column's unit.
    pub compute: Vec<(String, f64)>,
    /// Which clock the compute roofs are taken at ("1980 MHz, the driver's maximum SM clock").
    pub clock: String,
    /// Each row with both values.
    pub points: Vec<RooflinePoint>,
}

/// One measured point of a roofline: the row, its values and how the table shows them.
#[derive(Debug, Clone, PartialEq)]
pub struct RooflinePoint {
    pub label: String,
    pub x: f64,
    pub y: f64,
    pub x_shown: String,
    pub y_shown: String,
}

/// A column's roof drawn as a line across its chart.
#[derive(Debug, Clone, PartialEq)]
pub struct ReferenceLine {
    /// "dram roof 4800 GB/s".
    pub label: String,
    pub value: f64,
}

/// The positions of a line chart's two columns in [`TableView::headings`].
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct LineAxes {
    pub x: usize,
    pub y: usize,
    /// Side by side: `x` is a leading column shown once for every node (an absolute
    /// position, see [`side_by_side`]), not a position within each node's group.
    pub x_shared: bool,
}

/// One node's columns in a side-by-side table.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ColumnGroup {
    pub node: String,
    /// The GPU its record was measured on ("" when the record is not usable).
    pub gpu: String,
    /// Index of the group's first column, and how many columns it spans.
    pub first: usize,
    pub span: usize,
    /// For a contributed node (`contributed_by` in its profile): the person who measured
    /// it, by their registered name, so the column says whose GPU it is.
    pub measured_by: Option<String>,
    /// A node cited before its first record: the group is one column saying so ("not
    /// measured on h100 yet"), and the other nodes' rows and chart still show.
    pub pending: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Provenance {
    pub node: String,
    pub text: String,
    /// As [`ColumnGroup::measured_by`].
    pub measured_by: Option<String>,
}

impl TableView {
    /// Name the person who measured each contributed node's columns (`who(node)`: the
    /// registered name of the profile's `contributed_by`).
    pub fn label_contributed(&mut self, who: impl Fn(&str) -> Option<String>) {
        for g in &mut self.groups {
            g.measured_by = who(&g.node);
        }
        for p in &mut self.provenance {
            p.measured_by = who(&p.node);
        }
    }

    /// Name the GPU of each group that has no record to name it (a node not measured
    /// yet), from the node's profile (`gpu(node)`).
    pub fn name_pending_gpus(&mut self, gpu: impl Fn(&str) -> Option<String>) {
        for g in self.groups.iter_mut().filter(|g| g.gpu.is_empty()) {
            g.gpu = gpu(&g.node).unwrap_or_default();
        }
    }
}

/// What a group of a node without a record says, in its one column.
pub fn not_measured_yet(node: &str) -> String {
    format!("not measured on {node} yet")
}

const UNCONVERGED_MARK: &str = "†";
const THROTTLED_MARK: &str = "‡";

/// A table caption with each of the table's columns it names in backticks (`` `smem_reserved` ``)
/// written as the table's header shows it (“dynamic smem (B)”): the caption and the header
/// cannot disagree on a column's name. Backticked text that names no column stays as it is.
pub fn caption_with_headings(caption: &str, columns: &[String], headings: &[String]) -> String {
    let mut out = String::with_capacity(caption.len());
    let mut rest = caption;
    while let Some(open) = rest.find('`') {
        let Some(len) = rest[open + 1..].find('`') else {
            break;
        };
        let name = &rest[open + 1..open + 1 + len];
        out.push_str(&rest[..open]);
        match columns.iter().position(|c| c == name) {
            Some(i) => {
                out.push('“');
                out.push_str(headings.get(i).map_or(name, String::as_str));
                out.push('”');
            }
            None => out.push_str(&rest[open..open + len + 2]),
        }
        rest = &rest[open + len + 2..];
    }
    out.push_str(rest);
    out
}

/// Build the table, or the reasons it is stale (every missing cell, not only the first).
pub fn table_view(
    table: &TableRef,
    node: &str,
    citation: std::result::Result<&Citation<'_>, &Staleness>,
) -> (TableView, Vec<Staleness>) {
    let mut view = TableView {
        experiment: table.experiment.clone(),
        node: node.to_string(),
        groups: Vec::new(),
        caption: table.caption.clone(),
        headings: table.columns.clone(),
        numeric: table.columns.iter().map(|c| c != "label").collect(),
        rows: Vec::new(),
        values: Vec::new(),
        intervals: Vec::new(),
        provenance: Vec::new(),
        stale: None,
        notes: Vec::new(),
        // Loading checked that both columns are in the table.
        line: table.chart.as_ref().and_then(|c| {
            Some(LineAxes {
                x: table
                    .columns
                    .iter()
                    .position(|col| Some(col) == c.x.as_ref())?,
                y: table.columns.iter().position(|col| *col == c.y)?,
                x_shared: false,
            })
        }),
        bar: table
            .chart
            .as_ref()
            .filter(|c| c.x.is_none())
            .and_then(|c| table.columns.iter().position(|col| *col == c.y)),
        roofs: ChartRoofs::default(),
    };
    let citation = match citation {
        Ok(c) => c,
        Err(why) => {
            view.stale = Some(why.to_string());
            return (view, vec![why.clone()]);
        }
    };
    view.provenance = vec![Provenance {
        node: node.to_string(),
        text: citation.provenance.to_string(),
        measured_by: None,
    }];
    // Headings, with units, as the record names its quantities, each unit once; a size's
    // unit is in its cells (`values::column_heading`).
    view.headings = table
        .columns
        .iter()
        .map(|c| match crate::measure::roofs::share_column(c) {
            Some(m) => format!(
                "{} of {} roof (%)",
                citation.record.heading(m),
                citation
                    .experiment
                    .spec
                    .metrics
                    .get(m)
                    .and_then(|s| s.roof.as_deref())
                    .unwrap_or("its")
            ),
            None => super::values::column_heading(&citation.record, c),
        })
        .collect();
    view.caption = table
        .caption
        .as_deref()
        .map(|c| caption_with_headings(c, &table.columns, &view.headings));
    view.numeric = table
        .columns
        .iter()
        .map(|c| !matches!(c.as_str(), "label" | "kernel"))
        .collect();
    // Quantities derived from the time (metrics that read it) share its caveat.
    let timed = |col: &str| {
        TIMING_NAMES.contains(&col)
            || citation.experiment.spec.metrics.get(col).is_some_and(|m| {
                crate::measure::spec::Expr::parse(&m.value.0).is_ok_and(|e| {
                    e.names()
                        .iter()
                        .any(|n| crate::measure::spec::TIME_NAMES.contains(n))
                })
            })
    };
    let mut problems = Vec::new();
    // The widest interval too narrow for the table's digits, for its note.
    let mut narrow: Option<(f64, &'static str)> = None;
    // The widest spread among rows whose sampling hit its cap, for the footnote.
    let mut unconverged: Option<f64> = None;
    // Rows a clock reading saw throttled, with the reasons seen, for their footnote.
    let mut throttled: Vec<(String, u32, usize, Vec<String>)> = Vec::new();
    // The roofs the table's share columns read, each at each clock used, for the note
    // that says what a share is of.
    let mut shares: Vec<crate::measure::roofs::RoofReading> = Vec::new();
    for row in &table.rows {
        match citation.row(row) {
            Ok(cfg) => {
                let mut cells = Vec::with_capacity(table.columns.len());
                let mut values = Vec::with_capacity(table.columns.len());
                let mut intervals = Vec::with_capacity(table.columns.len());
                for col in &table.columns {
                    let value = match crate::measure::roofs::share_column(col) {
                        Some(metric) => {
                            let reading = citation.roofs.get(&(row.clone(), metric.to_string()));
                            if let Some(r) = reading {
                                if !shares.iter().any(|s: &crate::measure::roofs::RoofReading| {
                                    s.roof == r.roof && s.clock == r.clock
                                }) {
                                    shares.push(r.clone());
                                }
                            }
                            reading.map(|r| crate::measure::ColumnValue::Fraction(r.share()))
                        }
                        None => cfg.column(col),
                    };
                    match value {
                        Some(v) => {
                            let timing = cfg.timing.as_ref().filter(|t| !t.converged);
                            let mark = match timing {
                                Some(t) if timed(col) => {
                                    unconverged = Some(unconverged.map_or(t.rsd, |u| u.max(t.rsd)));
                                    UNCONVERGED_MARK
                                }
                                _ => "",
                            };
                            let throttle = if cfg.throttled() && timed(col) {
                                if !throttled.iter().any(|t| t.0 == cfg.label) {
                                    let t = cfg.timing.as_ref();
                                    throttled.push((
                                        cfg.label.clone(),
                                        t.and_then(|t| t.throttled_samples).unwrap_or(0),
                                        t.map_or(0, |t| t.samples_ms.len()),
                                        citation.record.clock_events(&cfg.label),
                                    ));
                                }
                                THROTTLED_MARK
                            } else {
                                ""
                            };
                            // In the unit a reader uses (`values::cell_shown`).
                            let unit = super::values::column_unit(&citation.record, col);
                            let mut cell = super::values::cell_shown(&v, unit);
                            // The interval the record keeps, read, never computed here.
                            let span = cfg
                                .estimate(col, citation.record.schema)
                                .ok()
                                .filter(|e| !e.legacy && !e.estimate.is_point())
                                .map(|e| e.estimate);
                            if let Some(e) = span {
                                match v.interval_text(e.lo, e.hi) {
                                    IntervalText::Shown(text) => cell.push_str(&text),
                                    IntervalText::Narrow(h, unit) => {
                                        let widest = narrow.get_or_insert((h, unit));
                                        if h > widest.0 {
                                            *widest = (h, unit);
                                        }
                                    }
                                    IntervalText::None => {}
                                }
                            }
                            cell.push_str(mark);
                            cell.push_str(throttle);
                            cells.push(cell);
                            values.push(v.as_f64());
                            intervals.push(span.map(|e| (e.lo, e.hi)));
                        }
                        None => {
                            problems.push(Staleness::ValueMissing {
                                row: row.clone(),
                                column: col.clone(),
                            });
                            cells.push("—".to_string());
                            values.push(None);
                            intervals.push(None);
                        }
                    }
                }
                view.rows.push(cells);
                view.values.push(values);
                view.intervals.push(intervals);
            }
            Err(why) => problems.push(why),
        }
    }
    view.roofs = chart_roofs(table, node, citation, &view);
    if let Some(r) = view.roofs.roofline.first() {
        let sources: Vec<String> = citation
            .peaks
            .iter()
            .map(|p| format!("{} ({})", p.roof, p.source))
            .collect();
        view.notes.push(format!(
            "The chart is a roofline: both axes logarithmic; each memory roof a slope, each compute roof flat from its ridge point (marked, with its FLOP/B){}. Peaks from glossary.toml: {}.",
            if r.clock.is_empty() { String::new() } else { format!("; compute roofs at {}", r.clock) },
            sources.join("; ")
        ));
    }
    if let Some((h, unit)) = narrow {
        view.notes.push(format!(
            "A number shown without ± has a 95% interval narrower than its last digit: at most ±{}{unit}.",
            one_significant(h)
        ));
    }
    if let Some(rsd) = unconverged {
        view.notes.push(format!(
            "{UNCONVERGED_MARK} Not converged: sampling reached its sample or time cap before the samples' relative spread fell under the experiment's bound; these rows' spread is at most {:.2}%. The median is taken over every sample, and its interval is as wide as those samples make it.",
            rsd * 100.0
        ));
    }
    if !shares.is_empty() {
        view.notes.push(share_note(&shares));
    }
    if !throttled.is_empty() {
        let rows: Vec<String> = throttled
            .iter()
            .map(|(label, n, of, why)| {
                let why = if why.is_empty() {
                    "the SM clock under 90% of its maximum".to_string()
                } else {
                    format!("clock events: {}", why.join(", "))
                };
                format!("{label} ({n} of {of} samples; {why})")
            })
            .collect();
        view.notes.push(format!(
            "{THROTTLED_MARK} Throttled: a clock reading saw some of these rows' samples throttled: {}. The samples are kept, not dropped: the median is of the kernel as the GPU ran it.",
            rows.join("; ")
        ));
    }
    if !problems.is_empty() {
        view.stale = Some(
            problems
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join("; "),
        );
    }
    (view, problems)
}

/// The roofs of a table's chart: a roofline when its line chart is a FLOP rate against an
/// arithmetic intensity in FLOP/B and the node lists peaks, and a reference line for each
/// column whose metric names a roof.
fn chart_roofs(
    table: &TableRef,
    node: &str,
    citation: &Citation<'_>,
    view: &TableView,
) -> ChartRoofs {
    use crate::measure::roofs::sig;
    use crate::rates::{Per, RateUnit, Work};
    let unit_of = |col: &str| {
        citation
            .record
            .configs
            .iter()
            .find_map(|c| c.quantities.get(col).map(|q| q.unit.clone()))
    };
    let mut out = ChartRoofs::default();
    for (i, col) in table.columns.iter().enumerate() {
        let best = citation
            .roofs
            .iter()
            .filter(|((_, m), _)| m == col)
            .map(|(_, r)| r)
            .max_by(|a, b| a.peak.total_cmp(&b.peak));
        if let Some(r) = best {
            let clock = match r.clock {
                crate::measure::roofs::ClockUsed::None => String::new(),
                crate::measure::roofs::ClockUsed::Seen(m)
                | crate::measure::roofs::ClockUsed::DriverMax(m) => format!(" at {m} MHz"),
            };
            out.reference.push((
                i,
                ReferenceLine {
                    label: format!("{} roof {} {}{clock}", r.roof, sig(r.peak), r.unit),
                    value: r.peak,
                },
            ));
        }
    }
    let Some(axes) = view.line else { return out };
    let (Some(x_col), Some(y_col)) = (table.columns.get(axes.x), table.columns.get(axes.y)) else {
        return out;
    };
    let y_unit = unit_of(y_col).and_then(|u| RateUnit::parse(&u).ok());
    let intensity = unit_of(x_col).is_some_and(|u| u.trim() == "FLOP/B");
    let Some(y) = y_unit.filter(|u| u.work == Work::Flop && u.per == Per::Second && intensity)
    else {
        return out;
    };
    let of = |work: Work| -> Vec<(String, f64)> {
        citation
            .peaks
            .iter()
            .filter(|p| p.work == work)
            .map(|p| (p.roof.clone(), p.per_s / y.scale))
            .collect()
    };
    let compute = of(Work::Flop);
    if compute.is_empty() {
        return out;
    }
    let clock = citation
        .peaks
        .iter()
        .find_map(|p| match p.clock {
            crate::measure::roofs::ClockUsed::DriverMax(m) => {
                Some(format!("{m} MHz, the driver's maximum SM clock"))
            }
            _ => None,
        })
        .unwrap_or_default();
    let label = view.numeric.iter().position(|&n| !n);
    let points = view
        .rows
        .iter()
        .zip(&view.values)
        .filter_map(|(cells, values)| {
            let (x, yv) = ((*values.get(axes.x)?)?, (*values.get(axes.y)?)?);
            Some(RooflinePoint {
                label: label
                    .and_then(|l| cells.get(l))
                    .cloned()
                    .unwrap_or_default(),
                x,
                y: yv,
                x_shown: cells.get(axes.x)?.clone(),
                y_shown: cells.get(axes.y)?.clone(),
            })
        })
        .collect();
    out.roofline.push(RooflineNode {
        node: node.to_string(),
        x_name: view.headings.get(axes.x).cloned().unwrap_or_default(),
        y_name: view.headings.get(axes.y).cloned().unwrap_or_default(),
        memory: of(Work::Bytes),
        compute,
        clock,
        points,
    });
    out
}

/// What each share column is a share of: the roof, its value at the clock used, the
/// clock, and where the peak comes from.
fn share_note(shares: &[crate::measure::roofs::RoofReading]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut roofs: Vec<&str> = shares.iter().map(|r| r.roof.as_str()).collect();
    roofs.dedup();
    for roof in roofs {
        let of: Vec<&crate::measure::roofs::RoofReading> =
            shares.iter().filter(|r| r.roof == roof).collect();
        let first = of[0];
        let values: Vec<String> = of
            .iter()
            .map(|r| {
                let clock = r.clock.phrase();
                if clock.is_empty() {
                    format!("{} {}", crate::measure::roofs::sig(r.peak), r.unit)
                } else {
                    format!("{} {} {clock}", crate::measure::roofs::sig(r.peak), r.unit)
                }
            })
            .collect();
        parts.push(format!(
            "the {} roof ({}) is {} (source: {}, checked {})",
            roof,
            first.what,
            values.join("; "),
            first.source,
            first.checked
        ));
    }
    format!(
        "Shares are of the node's peaks in glossary.toml: {}.",
        parts.join("; ")
    )
}

/// A table citing several nodes: each node's table cut as [`table_view`] cuts it, then set
/// side by side. Columns that name a row (text: `label`) come once, first; every numeric
/// column repeats in a group per node. A node whose record is not usable makes the whole
/// table stale, named by node. Problems come back with the node they belong to.
pub fn side_by_side(
    table: &TableRef,
    per_node: &[(&str, std::result::Result<&Citation<'_>, &Staleness>)],
) -> (TableView, Vec<(String, Staleness)>) {
    let mut views: Vec<(&str, TableView, Vec<Staleness>)> = per_node
        .iter()
        .map(|(node, c)| {
            let (view, problems) = table_view(table, node, *c);
            (*node, view, problems)
        })
        .collect();
    let problems: Vec<(String, Staleness)> = views
        .iter()
        .flat_map(|(node, _, ps)| ps.iter().map(|p| (node.to_string(), p.clone())))
        .collect();
    // One node (almost every table): its view is the table, moved rather than copied.
    if views.len() == 1 {
        let (_, only, _) = views.remove(0);
        return (only, problems);
    }
    let nodes: Vec<&str> = views.iter().map(|(n, _, _)| *n).collect();
    // A node cited before its first record (no file at all) is pending: its group says so
    // and the others' numbers still show. The entry stays refused as stale (`problems`).
    // Any other problem (a wrong node, a changed experiment, an unsigned record) keeps the
    // whole table stale, as a number beside it could mislead.
    let missing = |node: &str| {
        per_node
            .iter()
            .any(|(n, c)| *n == node && matches!(c, Err(Staleness::Missing { .. })))
    };
    let pending: Vec<bool> = if views.iter().any(|(n, _, _)| !missing(n)) {
        views.iter().map(|(n, _, _)| missing(n)).collect()
    } else {
        vec![false; views.len()]
    };
    let mut out = TableView {
        experiment: table.experiment.clone(),
        node: nodes.join(", "),
        groups: Vec::new(),
        caption: views
            .iter()
            .find_map(|(_, v, _)| v.stale.is_none().then(|| v.caption.clone()))
            .unwrap_or_else(|| table.caption.clone()),
        headings: Vec::new(),
        numeric: Vec::new(),
        rows: Vec::new(),
        values: Vec::new(),
        intervals: Vec::new(),
        provenance: views
            .iter()
            .flat_map(|(_, v, _)| v.provenance.clone())
            .collect(),
        // Side by side: set below, as positions within each node's group.
        // A roofline draws each node's roofs and points in a colour of its own.
        line: None,
        bar: None,
        roofs: ChartRoofs {
            roofline: views
                .iter()
                .flat_map(|(_, v, _)| v.roofs.roofline.clone())
                .collect(),
            reference: Vec::new(),
        },
        stale: None,
        notes: Vec::new(),
    };
    let stale: Vec<String> = views
        .iter()
        .zip(&pending)
        .filter(|(_, p)| !**p)
        .filter_map(|((n, v, _), _)| v.stale.as_ref().map(|s| format!("node {n}: {s}")))
        .collect();
    if !stale.is_empty() {
        out.stale = Some(stale.join("; "));
    }
    // Which columns name the row and which are measured, as the first usable view says.
    let Some((_, model, _)) = views.iter().find(|(_, v, _)| v.stale.is_none()) else {
        return (out, problems);
    };
    // A numeric column that reads the same on every node, row for row (a launch's grid,
    // the occupancy the driver computes, registers per thread), is shown once among the
    // leading columns rather than repeated in each group: a two-node table of a 1280 px
    // page then keeps every column in view. The columns a chart draws stay in the groups.
    let usable: Vec<&TableView> = views
        .iter()
        .zip(&pending)
        .filter(|(_, p)| !**p)
        .map(|((_, v, _), _)| v)
        .collect();
    let charted = |i: usize| model.line.is_some_and(|a| a.y == i) || model.bar == Some(i);
    let same_everywhere = |i: usize| {
        usable.len() > 1
            && out.stale.is_none()
            && !charted(i)
            && usable.iter().all(|v| v.rows.len() == table.rows.len())
            && (0..table.rows.len()).all(|r| {
                usable
                    .iter()
                    .all(|v| v.rows[r].get(i) == model.rows[r].get(i))
            })
    };
    let lead: Vec<usize> = (0..model.numeric.len())
        .filter(|&i| !model.numeric[i] || same_everywhere(i))
        .collect();
    let measured: Vec<usize> = (0..model.numeric.len())
        .filter(|&i| !lead.contains(&i))
        .collect();
    for &i in &lead {
        out.headings.push(model.headings[i].clone());
        out.numeric.push(model.numeric[i]);
    }
    if lead.iter().any(|&i| model.numeric[i]) {
        out.notes.push(
            "Columns outside the node groups read the same on every node, row for row, so they are shown once."
                .to_string(),
        );
    }
    // The entry's chart, its columns as positions within a node's group: a line per node,
    // or the named column's bars. A column that names the row (not in a group) is not
    // charted side by side.
    let in_group = |i: usize| measured.iter().position(|&m| m == i);
    // The x column, the same on every node (the sizes swept), may be a leading one.
    out.line = model.line.and_then(|a| {
        let shared = lead.iter().position(|&l| l == a.x);
        Some(LineAxes {
            x: match shared {
                Some(at) => at,
                None => in_group(a.x)?,
            },
            y: in_group(a.y)?,
            x_shared: shared.is_some(),
        })
    });
    out.bar = model.bar.and_then(in_group);
    for ((node, v, _), &pending) in views.iter().zip(&pending) {
        if pending {
            out.groups.push(ColumnGroup {
                node: node.to_string(),
                gpu: String::new(),
                first: out.headings.len(),
                span: 1,
                measured_by: None,
                pending: Some(not_measured_yet(node)),
            });
            out.headings.push(not_measured_yet(node));
            out.numeric.push(true);
            continue;
        }
        out.groups.push(ColumnGroup {
            node: node.to_string(),
            gpu: per_node
                .iter()
                .find(|(n, _)| n == node)
                .and_then(|(_, c)| c.as_ref().ok())
                .map(|c| c.record.gpu.name.clone())
                .unwrap_or_default(),
            first: out.headings.len(),
            span: measured.len(),
            measured_by: None,
            pending: None,
        });
        for &i in &measured {
            out.headings
                .push(v.headings.get(i).unwrap_or(&model.headings[i]).clone());
            out.numeric.push(true);
        }
        for n in &v.notes {
            let n = format!("node {node}: {n}");
            if !out.notes.contains(&n) {
                out.notes.push(n);
            }
        }
    }
    // Rows line up only when every node has every row; otherwise the table is stale
    // (the problems above say which row on which node) and shows no numbers.
    if out.stale.is_none()
        && views
            .iter()
            .zip(&pending)
            .all(|((_, v, _), p)| *p || v.rows.len() == table.rows.len())
    {
        for r in 0..table.rows.len() {
            let mut cells: Vec<String> = lead.iter().map(|&i| model.rows[r][i].clone()).collect();
            let mut values: Vec<Option<f64>> = lead.iter().map(|&i| model.values[r][i]).collect();
            let mut intervals: Vec<Option<(f64, f64)>> = lead
                .iter()
                .map(|&i| {
                    model
                        .intervals
                        .get(r)
                        .and_then(|row| row.get(i).copied().flatten())
                })
                .collect();
            for ((_, v, _), &pending) in views.iter().zip(&pending) {
                if pending {
                    cells.push("—".to_string());
                    values.push(None);
                    intervals.push(None);
                    continue;
                }
                for &i in &measured {
                    cells.push(v.rows[r][i].clone());
                    values.push(v.values[r][i]);
                    intervals.push(
                        v.intervals
                            .get(r)
                            .and_then(|row| row.get(i).copied().flatten()),
                    );
                }
            }
            out.rows.push(cells);
            out.values.push(values);
            out.intervals.push(intervals);
        }
    } else if out.stale.is_none() {
        out.stale = Some(
            problems
                .iter()
                .filter(|(n, _)| !missing(n))
                .map(|(n, p)| format!("node {n}: {p}"))
                .collect::<Vec<_>>()
                .join("; "),
        );
    }
    (out, problems)
}

#[cfg(test)]
mod caption_tests {
    #[test]
    fn a_caption_names_columns_as_the_header_does() {
        let columns = vec!["label".to_string(), "smem_reserved".to_string()];
        let headings = vec!["label".to_string(), "dynamic smem (B)".to_string()];
        assert_eq!(
            super::caption_with_headings(
                "The `smem_reserved` column, not `x`; `label`.",
                &columns,
                &headings
            ),
            "The “dynamic smem (B)” column, not `x`; “label”."
        );
        assert_eq!(
            super::caption_with_headings("odd ` one", &columns, &headings),
            "odd ` one"
        );
    }
}
