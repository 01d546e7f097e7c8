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
    /// for one; otherwise the table gets the default bar chart.
    pub line: Option<LineAxes>,
    /// The column (by position) a bar chart draws, where the entry names one.
    pub bar: Option<usize>,
}

/// The positions of a line chart's two columns in [`TableView::headings`].
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct LineAxes {
    pub x: usize,
    pub y: usize,
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
}

const UNCONVERGED_MARK: &str = "†";

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
            })
        }),
        bar: table
            .chart
            .as_ref()
            .filter(|c| c.x.is_none())
            .and_then(|c| table.columns.iter().position(|col| *col == c.y)),
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
        .map(|c| super::values::column_heading(&citation.record, c))
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
    for row in &table.rows {
        match citation.row(row) {
            Ok(cfg) => {
                let mut cells = Vec::with_capacity(table.columns.len());
                let mut values = Vec::with_capacity(table.columns.len());
                let mut intervals = Vec::with_capacity(table.columns.len());
                for col in &table.columns {
                    match cfg.column(col) {
                        Some(v) => {
                            let timing = cfg.timing.as_ref().filter(|t| !t.converged);
                            let mark = match timing {
                                Some(t) if timed(col) => {
                                    unconverged = Some(unconverged.map_or(t.rsd, |u| u.max(t.rsd)));
                                    UNCONVERGED_MARK
                                }
                                _ => "",
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
        // Side by side, the comparison chart draws the nodes against each other instead.
        line: None,
        bar: None,
        stale: None,
        notes: Vec::new(),
    };
    let stale: Vec<String> = views
        .iter()
        .filter_map(|(n, v, _)| v.stale.as_ref().map(|s| format!("node {n}: {s}")))
        .collect();
    if !stale.is_empty() {
        out.stale = Some(stale.join("; "));
    }
    // Which columns name the row and which are measured, as the first usable view says.
    let Some((_, model, _)) = views.iter().find(|(_, v, _)| v.stale.is_none()) else {
        return (out, problems);
    };
    let lead: Vec<usize> = (0..model.numeric.len())
        .filter(|&i| !model.numeric[i])
        .collect();
    let measured: Vec<usize> = (0..model.numeric.len())
        .filter(|&i| model.numeric[i])
        .collect();
    for &i in &lead {
        out.headings.push(model.headings[i].clone());
        out.numeric.push(false);
    }
    for (node, v, _) in &views {
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
            .all(|(_, v, _)| v.rows.len() == table.rows.len())
    {
        for r in 0..table.rows.len() {
            let mut cells: Vec<String> = lead.iter().map(|&i| model.rows[r][i].clone()).collect();
            let mut values: Vec<Option<f64>> = lead.iter().map(|&i| model.values[r][i]).collect();
            let mut intervals: Vec<Option<(f64, f64)>> = lead.iter().map(|_| None).collect();
            for (_, v, _) in &views {
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
