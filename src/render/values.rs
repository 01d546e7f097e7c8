//! Numbers quoted in prose. A body may call `value(...)` and `ratio(...)` (Tera functions)
//! and gets the number from the record; it can never type one that the table contradicts.
//!
//! `{{ value(row="tlp1", column="gbps") }}` and
//! `{{ ratio(column="gbps", of="tlp1-b1", to="tlp1") }}` read the entry's first measured
//! table; `experiment=` and `node=` pick another cited record.
//!
//! `{{ occupancy(arch="sm_90", block=256, regs=40, show="warps") }}` asks the occupancy model
//! (tested against every point of the driver sweep recorded on the H200) for a launch that
//! no experiment ran: `show` is one of blocks, warps, occupancy, binding.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tera::{Context, Tera, Value};

use crate::content::Entry;
use crate::error::{Error, Result};
use crate::measure::{Record, Staleness};

/// The records an entry cites, resolved: `(experiment, node)` -> record or why not.
pub type Resolved = HashMap<(String, String), std::result::Result<Arc<Record>, Staleness>>;

/// A body after its template calls ran, and the citation problems they met.
pub struct ExpandedBody {
    pub markdown: String,
    /// (`what was asked`, why it could not be answered)
    pub problems: Vec<(String, String)>,
}

pub fn expand_body(entry: &Entry, resolved: &Resolved) -> Result<ExpandedBody> {
    if !entry.body.contains("{{") && !entry.body.contains("{%") {
        return Ok(ExpandedBody {
            markdown: entry.body.clone(),
            problems: Vec::new(),
        });
    }
    let default = entry
        .meta
        .measured
        .first()
        .map(|t| (t.experiment.clone(), t.node.clone()));
    let shared = Arc::new(Lookup {
        resolved: resolved.clone(),
        default,
        problems: Mutex::new(Vec::new()),
    });

    let mut tera = Tera::default();
    tera.autoescape_on(vec![]);
    let l = shared.clone();
    tera.register_function("value", move |args: &HashMap<String, Value>| {
        let (row, column) = (arg(args, "row")?, arg(args, "column")?);
        let asked = format!("value(row={row}, column={column})");
        Ok(Value::String(match l.cell(args, &row, &column, &asked) {
            Some(cell) => cell.display(),
            None => "[missing value]".into(),
        }))
    });
    let l = shared.clone();
    tera.register_function("ratio", move |args: &HashMap<String, Value>| {
        let (column, of, to) = (arg(args, "column")?, arg(args, "of")?, arg(args, "to")?);
        let decimals = args.get("decimals").and_then(Value::as_u64).unwrap_or(2) as usize;
        let asked = format!("ratio(column={column}, of={of}, to={to})");
        let a = l.cell(args, &of, &column, &asked).and_then(|c| c.as_f64());
        let b = l.cell(args, &to, &column, &asked).and_then(|c| c.as_f64());
        Ok(Value::String(match (a, b) {
            (Some(a), Some(b)) if b != 0.0 => format!("{:.decimals$}", a / b),
            _ => "[missing value]".into(),
        }))
    });
    tera.register_function("occupancy", occupancy_function);
    let name = entry.path.display().to_string();
    let template_error = |e: tera::Error| Error::Template {
        path: entry.path.clone(),
        message: error_chain(&e),
    };
    tera.add_raw_template(&name, &entry.body)
        .map_err(template_error)?;
    let markdown = tera
        .render(&name, &Context::new())
        .map_err(template_error)?;
    drop(tera);
    let problems = std::mem::take(&mut *shared.problems.lock().unwrap_or_else(|p| p.into_inner()));
    Ok(ExpandedBody { markdown, problems })
}

struct Lookup {
    resolved: Resolved,
    default: Option<(String, String)>,
    problems: Mutex<Vec<(String, String)>>,
}

impl Lookup {
    fn cell(
        &self,
        args: &HashMap<String, Value>,
        row: &str,
        column: &str,
        asked: &str,
    ) -> Option<crate::measure::ColumnValue> {
        let problem = |why: String| {
            self.problems
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push((asked.to_string(), why));
            None
        };
        let key = match (
            args.get("experiment").and_then(Value::as_str),
            args.get("node").and_then(Value::as_str),
        ) {
            (Some(e), Some(n)) => (e.to_string(), n.to_string()),
            _ => match &self.default {
                Some(d) => d.clone(),
                None => {
                    return problem(
                        "no measured table to read from; name experiment= and node=".into(),
                    )
                }
            },
        };
        let record = match self.resolved.get(&key) {
            Some(Ok(r)) => r,
            // Already a refusal reason for the entry as a whole; once is enough.
            Some(Err(_)) => return None,
            None => {
                return problem(format!(
                    "{}/{} is not cited by this entry's front matter",
                    key.0, key.1
                ))
            }
        };
        let Some(cfg) = record.config(row) else {
            return problem(Staleness::RowMissing { row: row.into() }.to_string());
        };
        if let crate::measure::record::ConfigStatus::Failed { reason } = &cfg.status {
            return problem(
                Staleness::RowFailed {
                    row: row.into(),
                    reason: reason.clone(),
                }
                .to_string(),
            );
        }
        match cfg.column(column) {
            Some(v) => Some(v),
            None if crate::measure::record::column_heading(column).is_none() => {
                problem(format!("unknown column `{column}`"))
            }
            None => problem(
                Staleness::ValueMissing {
                    row: row.into(),
                    column: column.into(),
                }
                .to_string(),
            ),
        }
    }
}

/// The occupancy model as a template function. A bad launch is an author's error, so it
/// fails the build rather than refusing the entry.
fn occupancy_function(args: &HashMap<String, Value>) -> tera::Result<Value> {
    use crate::occupancy::{occupancy_for, Launch};
    let arch = arg(args, "arch")?;
    let num = |name: &str, default: Option<u64>| {
        args.get(name)
            .and_then(Value::as_u64)
            .or(default)
            .ok_or_else(|| tera::Error::msg(format!("missing number argument `{name}`")))
    };
    let launch = Launch::new(num("block", None)? as u32, num("regs", None)? as u32)
        .with_dynamic_shared_memory(num("smem", Some(0))?)
        .with_static_shared_memory(num("static_smem", Some(0))?);
    let occ = occupancy_for(&arch, &launch, None).map_err(|e| tera::Error::msg(e.to_string()))?;
    Ok(Value::String(match arg(args, "show")?.as_str() {
        "blocks" => occ.blocks_per_sm.to_string(),
        "warps" => occ.warps_per_sm.to_string(),
        "occupancy" => format!("{:.0}%", occ.occupancy * 100.0),
        "binding" => occ.binding.label().to_string(),
        other => {
            return Err(tera::Error::msg(format!(
                "`show` must be blocks, warps, occupancy or binding, not `{other}`"
            )))
        }
    }))
}

fn arg(args: &HashMap<String, Value>, name: &str) -> tera::Result<String> {
    args.get(name)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| tera::Error::msg(format!("missing string argument `{name}`")))
}

/// Tera nests the useful message in `source()`; show the whole chain on one line.
pub fn error_chain(e: &tera::Error) -> String {
    let mut msg = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        src = s.source();
    }
    msg
}
