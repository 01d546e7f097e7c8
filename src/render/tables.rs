//! Measured tables: cut the cited rows and columns out of a record.

use serde::Serialize;

use crate::content::TableRef;
use crate::measure::record::TIMING_NAMES;
use crate::measure::{Citation, Staleness};

#[derive(Debug, Clone, Serialize)]
pub struct TableView {
    pub experiment: String,
    pub node: String,
    pub caption: Option<String>,
    pub headings: Vec<String>,
    /// Whether each column is numeric (right-aligned).
    pub numeric: Vec<bool>,
    pub rows: Vec<Vec<String>>,
    /// Each cell's number, where it has one: what charts are drawn from, so they never
    /// parse the formatted text back.
    pub values: Vec<Vec<Option<f64>>>,
    pub provenance: String,
    /// Why the table cannot be shown (drafts only: a refused entry is never published).
    pub stale: Option<String>,
    /// Footnotes to the cells, such as timings whose sampling did not converge.
    pub notes: Vec<String>,
    /// Columns (by position) to draw as a line chart, y against x, where the entry asks
    /// for one; otherwise the table gets the default bar chart.
    pub line: Option<LineAxes>,
}

/// The positions of a line chart's two columns in [`TableView::headings`].
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct LineAxes {
    pub x: usize,
    pub y: usize,
}

const UNCONVERGED_MARK: &str = "†";

/// Build the table, or the reasons it is stale (every missing cell, not only the first).
pub fn table_view(
    table: &TableRef,
    citation: std::result::Result<&Citation<'_>, &Staleness>,
) -> (TableView, Vec<Staleness>) {
    let mut view = TableView {
        experiment: table.experiment.clone(),
        node: table.node.clone(),
        caption: table.caption.clone(),
        headings: table.columns.clone(),
        numeric: table.columns.iter().map(|c| c != "label").collect(),
        rows: Vec::new(),
        values: Vec::new(),
        provenance: String::new(),
        stale: None,
        notes: Vec::new(),
        // Loading checked that both columns are in the table.
        line: table.chart.as_ref().and_then(|c| {
            Some(LineAxes {
                x: table.columns.iter().position(|col| *col == c.x)?,
                y: table.columns.iter().position(|col| *col == c.y)?,
            })
        }),
    };
    let citation = match citation {
        Ok(c) => c,
        Err(why) => {
            view.stale = Some(why.to_string());
            return (view, vec![why.clone()]);
        }
    };
    view.provenance = citation.record.provenance();
    // Headings, with units, as the record names its quantities.
    view.headings = table
        .columns
        .iter()
        .map(|c| citation.record.heading(c))
        .collect();
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
    // The widest spread among rows whose sampling hit its cap, for the footnote.
    let mut unconverged: Option<f64> = None;
    for row in &table.rows {
        match citation.row(row) {
            Ok(cfg) => {
                let mut cells = Vec::with_capacity(table.columns.len());
                let mut values = Vec::with_capacity(table.columns.len());
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
                            cells.push(format!("{}{mark}", v.display()));
                            values.push(v.as_f64());
                        }
                        None => {
                            problems.push(Staleness::ValueMissing {
                                row: row.clone(),
                                column: col.clone(),
                            });
                            cells.push("—".to_string());
                            values.push(None);
                        }
                    }
                }
                view.rows.push(cells);
                view.values.push(values);
            }
            Err(why) => problems.push(why),
        }
    }
    if let Some(rsd) = unconverged {
        view.notes.push(format!(
            "{UNCONVERGED_MARK} Sampling reached its sample or time cap before the samples' relative spread fell under the experiment's bound; these rows' spread is at most {:.2}%. The median is taken over every sample.",
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
