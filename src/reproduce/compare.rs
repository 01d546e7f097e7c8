//! The reader's run against the published one: each row's median time by the one rule
//! `glossary compare` uses (`measure::verdict::change`), and each claim the site's pages
//! make from the record, re-checked on the reader's record as a build would check it.

use std::path::Path;

use crate::config::{Config, Node};
use crate::measure::bundle::Checked;
use crate::measure::verdict::{self, Change, Estimate};
use crate::measure::{Library, Record};

/// One row: the published estimate, the reader's, and what they say together.
#[derive(Debug, Clone)]
pub struct RowCheck {
    pub label: String,
    pub published: Option<Estimate>,
    pub mine: Option<Estimate>,
    pub change: Change,
    /// Why the row could not be compared, when it could not.
    pub note: Option<String>,
}

/// One claim of a page, on the reader's record.
#[derive(Debug, Clone)]
pub struct ClaimCheck {
    pub entry: String,
    pub says: String,
    /// `holds`, `fails` or `ambiguous`.
    pub verdict: String,
    pub detail: String,
}

/// The reproducibility band: the experiment's, else the default.
pub fn tolerance(checked: &Checked) -> f64 {
    checked.experiment.spec.timing.tolerance()
}

/// Every published row that has a time, in the published order.
pub fn rows(checked: &Checked, mine: &Record) -> Vec<RowCheck> {
    let tol = tolerance(checked);
    let published = &checked.record;
    published
        .configs
        .iter()
        .filter(|c| c.timing.is_some())
        .map(|old| {
            let est = |r: &Record, c: &crate::measure::ConfigRecord| {
                c.estimate("median_ms", r.schema).map(|e| e.estimate)
            };
            let p = est(published, old).ok();
            let m = mine.config(&old.label).and_then(|c| est(mine, c).ok());
            let (change, note) = match (p, m) {
                (Some(p), Some(m)) => (verdict::change(p, m, tol).0, None),
                (_, None) => (
                    Change::Ambiguous,
                    Some("no time with an interval in this run".to_string()),
                ),
                (None, _) => (
                    Change::Ambiguous,
                    Some("the published row has no interval (an old record)".to_string()),
                ),
            };
            RowCheck {
                label: old.label.clone(),
                published: p,
                mine: m,
                change,
                note,
            }
        })
        .collect()
}

/// Every claim of every page the bundle lists, checked on the reader's record (laid into
/// the work project as the node `name`'s record).
pub fn claims(
    root: &Path,
    checked: &Checked,
    name: &str,
    _local: &Node,
    record: &Path,
) -> anyhow::Result<Vec<ClaimCheck>> {
    let exp = &checked.bundle.experiment;
    let records = root.join("measurements").join(exp).join("records");
    std::fs::create_dir_all(&records)?;
    std::fs::copy(record, records.join(format!("{name}.json")))?;
    std::fs::copy(
        crate::trust::node::signature_path(record),
        records.join(format!("{name}.json.sig")),
    )?;
    let config = Config::load(root)?;
    let library = Library::load(&root.join("measurements"))?;
    let citation = library
        .cite(&config, exp, name)
        .map_err(|s| anyhow::anyhow!("{s}"))?;
    let mut out = Vec::new();
    for page in &checked.bundle.pages {
        for claim in &page.claims {
            let (verdict, detail) = match claim.test() {
                Err(why) => ("fails".to_string(), why),
                Ok(test) => {
                    match crate::measure::claims::check_claim(&test, &claim.column, &citation) {
                        Ok(()) => ("holds".to_string(), String::new()),
                        Err(why) => ("fails".to_string(), why),
                    }
                }
            };
            out.push(ClaimCheck {
                entry: page.entry.clone(),
                says: claim.says.clone(),
                verdict,
                detail,
            });
        }
    }
    Ok(out)
}
