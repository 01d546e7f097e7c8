//! Measured tables: cut the cited rows and columns out of a record.

use serde::Serialize;

use crate::content::TableRef;
use crate::measure::record::column_heading;
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
    pub provenance: String,
    /// Why the table cannot be shown (drafts only: a refused entry is never published).
    pub stale: Option<String>,
}

/// Build the table, or the reasons it is stale (every missing cell, not only the first).
pub fn table_view(
    table: &TableRef,
    citation: std::result::Result<&Citation<'_>, &Staleness>,
) -> (TableView, Vec<Staleness>) {
    let mut view = TableView {
        experiment: table.experiment.clone(),
        node: table.node.clone(),
        caption: table.caption.clone(),
        headings: table
            .columns
            .iter()
            .map(|c| column_heading(c).unwrap_or(c).to_string())
            .collect(),
        numeric: table.columns.iter().map(|c| c != "label").collect(),
        rows: Vec::new(),
        provenance: String::new(),
        stale: None,
    };
    let citation = match citation {
        Ok(c) => c,
        Err(why) => {
            view.stale = Some(why.to_string());
            return (view, vec![why.clone()]);
        }
    };
    view.provenance = citation.record.provenance();
    let mut problems = Vec::new();
    for row in &table.rows {
        match citation.row(row) {
            Ok(cfg) => view.rows.push(
                table
                    .columns
                    .iter()
                    .map(|col| match cfg.column(col) {
                        Some(v) => v.display(),
                        None => {
                            problems.push(Staleness::ValueMissing {
                                row: row.clone(),
                                column: col.clone(),
                            });
                            "—".to_string()
                        }
                    })
                    .collect(),
            ),
            Err(why) => problems.push(why),
        }
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
