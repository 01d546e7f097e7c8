//! Numbers quoted in prose. A body may call `value(...)` and `ratio(...)` (functions, see `calls`;
//! a body is Markdown, not a template)
//! and gets the number from the record; it can never type one that the table contradicts.
//!
//! `{{ value(row="tlp1", column="gbps") }}` and
//! `{{ ratio(column="gbps", of="tlp1-b1", to="tlp1") }}` read the entry's first measured
//! table (its first node, when it cites several); `experiment=` and `node=` pick another
//! cited record, each defaulting to the first table's.
//!
//! `{{ occupancy(arch="sm_90", block=256, regs=40, show="warps") }}` asks the occupancy model
//! (tested against every point of the driver sweep recorded on the H200) for a launch that
//! no experiment ran: `show` is one of blocks, warps, occupancy, binding.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::content::Entry;
use crate::error::{Error, Location};
use crate::measure::{Record, Staleness};

use super::calls::{find_calls, line_column, Call, MAX_DECIMALS};

/// The records an entry cites, resolved: `(experiment, node)` -> record or why not.
pub type Resolved = HashMap<(String, String), std::result::Result<Arc<Record>, Staleness>>;

/// A body after its function calls ran, and the citation problems they met.
pub struct ExpandedBody {
    pub markdown: String,
    /// (`what was asked`, why it could not be answered)
    pub problems: Vec<(String, String)>,
}

/// Replace every call in the entry's body by its result. Malformed calls and calls that
/// cannot be evaluated (a bad launch for `occupancy`) are errors at their line:column in
/// the file, all of them; a number the record lacks is a problem that refuses the entry.
pub fn expand_body(entry: &Entry, resolved: &Resolved) -> Result<ExpandedBody, Vec<Error>> {
    let (calls, bad) = find_calls(&entry.body);
    let at = |offset: usize| {
        let (line, column) = line_column(&entry.body, offset);
        Some(Location {
            line: entry.body_line + line - 1,
            column,
        })
    };
    let mut errors: Vec<Error> = bad
        .into_iter()
        .map(|e| Error::content(&entry.path, at(e.offset), e.message))
        .collect();
    if calls.is_empty() {
        return match errors.is_empty() {
            true => Ok(ExpandedBody {
                markdown: entry.body.clone(),
                problems: Vec::new(),
            }),
            false => Err(errors),
        };
    }
    let lookup = Lookup {
        resolved,
        default: entry.meta.default_record(),
        problems: Mutex::new(Vec::new()),
    };
    let mut markdown = String::with_capacity(entry.body.len());
    let mut from = 0;
    for call in &calls {
        markdown.push_str(&entry.body[from..call.span.start]);
        let result = match call.function {
            "value" => Ok(lookup.value(call)),
            "ratio" => Ok(lookup.ratio(call)),
            _ => occupancy_function(call),
        };
        match result {
            Ok(text) => markdown.push_str(&text),
            Err(why) => errors.push(Error::content(
                &entry.path,
                at(call.span.start),
                format!("{}: {why}", call.describe()),
            )),
        }
        from = call.span.end;
    }
    markdown.push_str(&entry.body[from..]);
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(ExpandedBody {
        markdown,
        problems: lookup.take_problems(),
    })
}

struct Lookup<'r> {
    resolved: &'r Resolved,
    default: Option<(String, String)>,
    problems: Mutex<Vec<(String, String)>>,
}

impl Lookup<'_> {
    fn value(&self, call: &Call) -> String {
        let (row, column) = (arg(call, "row"), arg(call, "column"));
        let asked = format!("value(row={row}, column={column})");
        match self.cell(call, row, column, &asked) {
            Some(cell) => cell.display(),
            None => "[missing value]".into(),
        }
    }

    fn ratio(&self, call: &Call) -> String {
        let (column, of, to) = (arg(call, "column"), arg(call, "of"), arg(call, "to"));
        // The parser refused more than MAX_DECIMALS, with the file and line.
        let decimals = call.number("decimals").unwrap_or(2).min(MAX_DECIMALS) as usize;
        let asked = format!("ratio(column={column}, of={of}, to={to})");
        let a = self.cell(call, of, column, &asked).and_then(|c| c.as_f64());
        let b = self.cell(call, to, column, &asked).and_then(|c| c.as_f64());
        match (a, b) {
            (Some(a), Some(b)) if b != 0.0 => format!("{:.decimals$}", a / b),
            _ => "[missing value]".into(),
        }
    }

    fn take_problems(&self) -> Vec<(String, String)> {
        std::mem::take(&mut *self.problems.lock().unwrap_or_else(|p| p.into_inner()))
    }

    fn cell(
        &self,
        call: &Call,
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
        // Each of experiment= and node= defaults on its own to the first table's (its
        // first node): `node="t4"` alone reads the same experiment on another node.
        let named = |k: &str| call.text(k).map(str::to_string);
        let key = match (named("experiment"), named("node"), &self.default) {
            (Some(e), Some(n), _) => (e, n),
            (e, n, Some((de, dn))) => (
                e.unwrap_or_else(|| de.clone()),
                n.unwrap_or_else(|| dn.clone()),
            ),
            _ => {
                return problem("no measured table to read from; name experiment= and node=".into())
            }
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
        if let Some(reason) = cfg.status.problem() {
            return problem(
                Staleness::RowFailed {
                    row: row.into(),
                    reason: reason.to_string(),
                }
                .to_string(),
            );
        }
        match cfg.column(column) {
            Some(v) => Some(v),
            None if !record.knows(column) => problem(format!("unknown column `{column}`")),
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

/// The occupancy model in prose. A bad launch is an author's error, so it fails the build
/// rather than refusing the entry.
fn occupancy_function(call: &Call) -> Result<String, String> {
    use crate::occupancy::{occupancy_for, Launch};
    let num = |name: &str| call.number(name).unwrap_or(0);
    let to_u32 =
        |name: &str| u32::try_from(num(name)).map_err(|_| format!("`{name}` is too large"));
    let launch = Launch::new(to_u32("block")?, to_u32("regs")?)
        .with_dynamic_shared_memory(num("smem"))
        .with_static_shared_memory(num("static_smem"));
    let occ = occupancy_for(arg(call, "arch"), &launch, None).map_err(|e| e.to_string())?;
    Ok(match arg(call, "show") {
        "blocks" => occ.blocks_per_sm.to_string(),
        "warps" => occ.warps_per_sm.to_string(),
        "occupancy" => format!("{:.0}%", occ.occupancy * 100.0),
        "binding" => occ.binding.label().to_string(),
        other => {
            return Err(format!(
                "`show` must be blocks, warps, occupancy or binding, not `{other}`"
            ))
        }
    })
}

/// A text argument the parser already checked is there (required) or "" (optional).
fn arg<'c>(call: &'c Call, name: &str) -> &'c str {
    call.text(name).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::{EntryId, FrontMatter, Kind, TableRef};
    use crate::measure::record::{ConfigRecord, ConfigStatus, Timing};

    fn entry(body: &str) -> Entry {
        let meta: FrontMatter = serde_yaml::from_str("title: t\nsummary: s\n").unwrap();
        let mut meta = meta;
        meta.measured.push(TableRef {
            experiment: "e".into(),
            node: Some("n".into()),
            nodes: vec![],
            rows: vec!["b128".into()],
            columns: vec!["gbps".into()],
            caption: None,
            chart: None,
        });
        Entry {
            id: EntryId::new(Kind::Term, "t"),
            path: "t.md".into(),
            raw: String::new(),
            meta,
            body: body.into(),
            body_line: 1,
        }
    }

    /// A passed configuration with a timing, as a record holds it.
    fn config(label: &str, median_ms: f64, gbps: f64) -> ConfigRecord {
        let timing = Timing {
            samples_ms: vec![median_ms],
            median_ms,
            min_ms: median_ms,
            max_ms: median_ms,
            rsd: 0.0,
            sm_clock_mhz: None,
            throttled_samples: 0,
            converged: true,
        };
        ConfigRecord {
            label: label.into(),
            kernel: "k".into(),
            status: ConfigStatus::Passed,
            block_size: 128,
            smem_reserved: 0,
            grid_size: 1024,
            registers: 32,
            static_smem: 0,
            local_bytes: 0,
            blocks_per_sm: 16,
            warps_per_sm: 64,
            occupancy: 1.0,
            waves: 2.0,
            timing: Some(timing),
            quantities: [(
                "gbps".to_string(),
                crate::measure::record::Quantity::metric(gbps, "GB/s", None, 1),
            )]
            .into(),
            ..Default::default()
        }
    }

    fn resolved() -> Resolved {
        let record = Record {
            schema: 1,
            experiment: "e".into(),
            node: "n".into(),
            spec_digest: String::new(),
            tool_version: String::new(),
            captured_at: chrono::DateTime::from_timestamp(1_790_000_000, 0).unwrap(),
            gpu: Default::default(),
            compile_options: vec![],
            device: Default::default(),
            partial: false,
            configs: vec![
                config("b128", 0.1234567, 1873.219),
                config("b256", 0.0987654, 2345.678),
            ],
            extra: serde_json::Value::Null,
        };
        HashMap::from([(("e".into(), "n".into()), Ok(Arc::new(record)))])
    }

    fn expand(body: &str) -> Result<ExpandedBody, Vec<Error>> {
        expand_body(&entry(body), &resolved())
    }

    #[test]
    fn calls_expand_to_recorded_numbers() {
        let out = expand(
            "a {{ value(row=\"b128\", column=\"gbps\") }} b {{ ratio(column=\"gbps\", of=\"b128\", to=\"b128\", decimals=3) }}\n",
        )
        .unwrap_or_else(|e| panic!("{e:?}"));
        assert!(out.markdown.starts_with("a "), "{}", out.markdown);
        assert!(out.markdown.ends_with(" b 1.000\n"), "{}", out.markdown);
        assert!(!out.markdown.contains("{{"), "{}", out.markdown);
        assert!(out.problems.is_empty(), "{:?}", out.problems);
    }

    #[test]
    fn missing_rows_are_problems_not_errors() {
        let out = expand("x {{ value(row=\"nope\", column=\"gbps\") }} y")
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(out.markdown, "x [missing value] y");
        assert_eq!(out.problems.len(), 1, "{:?}", out.problems);
    }

    #[test]
    fn code_is_never_expanded() {
        let body = "```cpp\nint a[2][2] = {{1, 2}, {3, 4}};\n{{ value(row=\"b128\", column=\"gbps\") }}\n```\n";
        assert_eq!(expand(body).map(|b| b.markdown).ok().as_deref(), Some(body));
    }

    #[test]
    fn bad_calls_are_errors_at_file_line_and_column() {
        let mut e = entry("one\n\n  {{ value(row=\"b128\") }} and {{ occupancy(arch=\"sm_90\", block=4096, regs=32, show=\"warps\") }}\n");
        e.body_line = 6;
        let errors: Vec<String> = expand_body(&e, &resolved())
            .err()
            .expect("errors")
            .iter()
            .map(|e| e.to_string())
            .collect();
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert_eq!(errors[0], "t.md:8:6: value() needs the argument `column`");
        assert!(errors[1].starts_with("t.md:8:31: occupancy("), "{errors:?}");
    }
}
