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
    let default = entry.meta.default_record();
    let lookup = || {
        Arc::new(Lookup {
            resolved: resolved.clone(),
            default: default.clone(),
            problems: Mutex::new(Vec::new()),
        })
    };

    // Bodies almost always use the calls in their plain form; compiling a Tera template per
    // entry cost a fifth of a 10,000-entry build. Anything else (filters, tags, whitespace
    // control, errors) goes through Tera, which stays the reference for what a body means.
    if let Some(calls) = simple_calls(&entry.body) {
        let shared = lookup();
        if let Some(markdown) = expand_calls(&entry.body, &calls, &shared) {
            return Ok(ExpandedBody {
                markdown,
                problems: shared.take_problems(),
            });
        }
    }

    let shared = lookup();
    let markdown = expand_with_tera(entry, &shared)?;
    Ok(ExpandedBody {
        markdown,
        problems: shared.take_problems(),
    })
}

fn expand_with_tera(entry: &Entry, shared: &Arc<Lookup>) -> Result<String> {
    let mut tera = Tera::default();
    tera.autoescape_on(vec![]);
    let l = shared.clone();
    tera.register_function("value", move |args: &HashMap<String, Value>| l.value(args));
    let l = shared.clone();
    tera.register_function("ratio", move |args: &HashMap<String, Value>| l.ratio(args));
    tera.register_function("occupancy", occupancy_function);
    let name = entry.path.display().to_string();
    let template_error = |e: tera::Error| Error::Template {
        path: entry.path.clone(),
        message: error_chain(&e),
    };
    tera.add_raw_template(&name, &entry.body)
        .map_err(template_error)?;
    tera.render(&name, &Context::new()).map_err(template_error)
}

/// One `{{ name(key=literal, ...) }}` in a body: its byte range and the parsed call.
struct SimpleCall {
    start: usize,
    end: usize,
    function: String,
    args: HashMap<String, Value>,
}

/// Every `{{ ... }}` of `body`, if each is a plain call of `value` or `ratio` with string
/// or unsigned integer arguments and the body holds no other Tera syntax; else None.
fn simple_calls(body: &str) -> Option<Vec<SimpleCall>> {
    if body.contains("{%") || body.contains("{#") {
        return None;
    }
    let mut calls = Vec::new();
    let mut from = 0;
    while let Some(i) = body[from..].find("{{") {
        let start = from + i;
        let close = body[start..].find("}}")? + start;
        let (function, args) = parse_call(&body[start + 2..close])?;
        calls.push(SimpleCall {
            start,
            end: close + 2,
            function,
            args,
        });
        from = close + 2;
    }
    Some(calls)
}

fn parse_call(expr: &str) -> Option<(String, HashMap<String, Value>)> {
    let is_ident = |s: &str| {
        !s.is_empty()
            && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            && !s.as_bytes()[0].is_ascii_digit()
    };
    let expr = expr.trim_matches(|c: char| c == ' ' || c == '\t');
    let (function, rest) = expr.split_once('(')?;
    let function = function.trim_end_matches([' ', '\t']);
    if !matches!(function, "value" | "ratio") {
        return None;
    }
    let inner = rest.strip_suffix(')')?;
    let mut args = HashMap::new();
    let mut rest = inner.trim_matches([' ', '\t']);
    while !rest.is_empty() {
        let (key, after) = rest.split_once('=')?;
        let key = key.trim_matches([' ', '\t']);
        if !is_ident(key) {
            return None;
        }
        let after = after.trim_start_matches([' ', '\t']);
        let (value, after) = if let Some(s) = after.strip_prefix('"') {
            let end = s.find('"')?;
            let text = &s[..end];
            if text.contains('\\') {
                return None;
            }
            (Value::String(text.to_string()), &s[end + 1..])
        } else {
            let end = after
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(after.len());
            let number: u64 = after[..end].parse().ok()?;
            (Value::from(number), &after[end..])
        };
        if args.insert(key.to_string(), value).is_some() {
            return None;
        }
        let after = after.trim_start_matches([' ', '\t']);
        rest = match after.strip_prefix(',') {
            Some(next) => next.trim_start_matches([' ', '\t']),
            None if after.is_empty() => after,
            None => return None,
        };
    }
    Some((function.to_string(), args))
}

/// The body with each call replaced by its result; None if a call fails (Tera then reports
/// it the usual way).
fn expand_calls(body: &str, calls: &[SimpleCall], lookup: &Lookup) -> Option<String> {
    let mut out = String::with_capacity(body.len());
    let mut from = 0;
    for call in calls {
        out.push_str(&body[from..call.start]);
        let result = match call.function.as_str() {
            "value" => lookup.value(&call.args),
            _ => lookup.ratio(&call.args),
        };
        match result.ok()? {
            Value::String(s) => out.push_str(&s),
            _ => return None,
        }
        from = call.end;
    }
    out.push_str(&body[from..]);
    Some(out)
}

struct Lookup {
    resolved: Resolved,
    default: Option<(String, String)>,
    problems: Mutex<Vec<(String, String)>>,
}

impl Lookup {
    fn value(&self, args: &HashMap<String, Value>) -> tera::Result<Value> {
        let (row, column) = (arg(args, "row")?, arg(args, "column")?);
        let asked = format!("value(row={row}, column={column})");
        Ok(Value::String(
            match self.cell(args, &row, &column, &asked) {
                Some(cell) => cell.display(),
                None => "[missing value]".into(),
            },
        ))
    }

    fn ratio(&self, args: &HashMap<String, Value>) -> tera::Result<Value> {
        let (column, of, to) = (arg(args, "column")?, arg(args, "of")?, arg(args, "to")?);
        let decimals = args.get("decimals").and_then(Value::as_u64).unwrap_or(2) as usize;
        let asked = format!("ratio(column={column}, of={of}, to={to})");
        let a = self
            .cell(args, &of, &column, &asked)
            .and_then(|c| c.as_f64());
        let b = self
            .cell(args, &to, &column, &asked)
            .and_then(|c| c.as_f64());
        Ok(Value::String(match (a, b) {
            (Some(a), Some(b)) if b != 0.0 => format!("{:.decimals$}", a / b),
            _ => "[missing value]".into(),
        }))
    }

    fn take_problems(&self) -> Vec<(String, String)> {
        std::mem::take(&mut *self.problems.lock().unwrap_or_else(|p| p.into_inner()))
    }

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
            node: "n".into(),
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
            gbps,
            sm_clock_mhz: None,
            throttled_samples: 0,
            converged: true,
        };
        ConfigRecord {
            label: label.into(),
            kernel: "k".into(),
            status: ConfigStatus::Passed,
            block_size: 128,
            elements_per_thread: 1,
            smem_reserved: 0,
            grid_size: 1024,
            registers: 32,
            static_smem: 0,
            local_bytes: 0,
            blocks_per_sm: 16,
            warps_per_sm: 64,
            occupancy: 1.0,
            loads_in_flight: 64,
            waves: 2.0,
            achieved_occupancy: None,
            timing: Some(timing),
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
            problem: Default::default(),
            configs: vec![
                config("b128", 0.1234567, 1873.219),
                config("b256", 0.0987654, 2345.678),
            ],
            extra: serde_json::Value::Null,
        };
        HashMap::from([(("e".into(), "n".into()), Ok(Arc::new(record)))])
    }

    type Problems = Vec<(String, String)>;

    /// The fast path must mean exactly what Tera means, problems included.
    fn both(body: &str) -> (Option<(String, Problems)>, String, Problems) {
        let e = entry(body);
        let fresh = || {
            Arc::new(Lookup {
                resolved: resolved(),
                default: Some(("e".into(), "n".into())),
                problems: Mutex::new(Vec::new()),
            })
        };
        let fast = simple_calls(body).and_then(|calls| {
            let l = fresh();
            expand_calls(body, &calls, &l).map(|m| (m, l.take_problems()))
        });
        let l = fresh();
        let tera = expand_with_tera(&e, &l).unwrap();
        (fast, tera, l.take_problems())
    }

    #[test]
    fn plain_calls_expand_as_tera_expands_them() {
        for body in [
            "a {{ value(row=\"b128\", column=\"gbps\") }} b\n",
            "{{value(row=\"b256\",column=\"median_ms\")}} and {{ ratio(column=\"gbps\", of=\"b128\", to=\"b256\", decimals=3) }}\n\n",
            "x {{ value(row=\"nope\", column=\"gbps\") }} y {{ ratio(column=\"gbps\", of=\"b128\", to=\"gone\") }}",
            "{{ value(row=\"b128\", column=\"gbps\", experiment=\"e\", node=\"n\") }}",
        ] {
            let (fast, tera, problems) = both(body);
            let (fast, fast_problems) = fast.expect(body);
            assert_eq!(fast, tera, "{body}");
            assert_eq!(fast_problems, problems, "{body}");
        }
    }

    #[test]
    fn anything_else_is_left_to_tera() {
        for body in [
            "{{ value(row=\"b128\", column=\"gbps\") | upper }}",
            "{%- if true %}x{% endif %}",
            "{{- value(row=\"b128\", column=\"gbps\") }}",
            "{{ other(row=\"b128\") }}",
            "{{ value(row='b128', column=\"gbps\") }}",
            "{# note #}{{ value(row=\"b128\", column=\"gbps\") }}",
        ] {
            assert!(simple_calls(body).is_none(), "{body}");
        }
        let e = entry("{{ value(row=\"b128\") }}");
        let err = expand_body(&e, &resolved()).err().map(|e| e.to_string());
        assert!(
            err.as_deref()
                .is_some_and(|m| m.contains("missing string argument `column`")),
            "{err:?}"
        );
    }
}
