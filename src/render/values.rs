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
//!
//! `{{ near_best(column="median_ms", best="lowest", within=5, show="count") }}` reads the
//! rows of the entry's first measured table and reports the best one (`show="best"`), how
//! many lie within `within` percent of it (`count`, `labels`) or how many were compared
//! (`total`): a statement about the whole table that no single cell holds.
//!
//! `{{ ncu(export="day42-nsight/day17-h200.csv", launch="4", show="waves") }}` reads one
//! launch of a Nsight Compute export kept under `measurements/` (see
//! [`crate::occupancy::ncu`]); `show` names a figure of the export or `rule:NAME` for the
//! interpretation rule's sentence about it ([`crate::occupancy::interpret`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
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

/// `measurements` is the folder `ncu(export=...)` paths are relative to.
pub fn expand_body(
    entry: &Entry,
    resolved: &Resolved,
    measurements: &Path,
) -> Result<ExpandedBody> {
    if !entry.body.contains("{{") && !entry.body.contains("{%") {
        return Ok(ExpandedBody {
            markdown: entry.body.clone(),
            problems: Vec::new(),
        });
    }
    let default = entry.meta.default_record();
    let default_rows = entry
        .meta
        .measured
        .first()
        .map(|t| t.rows.clone())
        .unwrap_or_default();
    let lookup = || {
        Arc::new(Lookup {
            resolved: resolved.clone(),
            default: default.clone(),
            default_rows: default_rows.clone(),
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
    let markdown = expand_with_tera(entry, &shared, measurements)?;
    Ok(ExpandedBody {
        markdown,
        problems: shared.take_problems(),
    })
}

fn expand_with_tera(entry: &Entry, shared: &Arc<Lookup>, measurements: &Path) -> Result<String> {
    let mut tera = Tera::default();
    tera.autoescape_on(vec![]);
    let l = shared.clone();
    tera.register_function("value", move |args: &HashMap<String, Value>| l.value(args));
    let l = shared.clone();
    tera.register_function("ratio", move |args: &HashMap<String, Value>| l.ratio(args));
    tera.register_function("occupancy", occupancy_function);
    let l = shared.clone();
    tera.register_function("near_best", move |args: &HashMap<String, Value>| {
        l.near_best(args)
    });
    let exports = NcuExports::new(measurements);
    tera.register_function("ncu", move |args: &HashMap<String, Value>| {
        exports.call(args)
    });
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
    /// The rows of the entry's first measured table, which `near_best` compares.
    default_rows: Vec<String>,
    problems: Mutex<Vec<(String, String)>>,
}

impl Lookup {
    fn near_best(&self, args: &HashMap<String, Value>) -> tera::Result<Value> {
        let column = arg(args, "column")?;
        let lowest = match arg(args, "best")?.as_str() {
            "lowest" => true,
            "highest" => false,
            other => {
                return Err(tera::Error::msg(format!(
                    "`best` must be lowest or highest, not `{other}`"
                )))
            }
        };
        let within = args
            .get("within")
            .and_then(Value::as_f64)
            .filter(|w| w.is_finite() && *w >= 0.0)
            .ok_or_else(|| tera::Error::msg("`within` must be a percentage, 0 or more"))?;
        let show = arg(args, "show")?;
        if !matches!(show.as_str(), "best" | "count" | "labels" | "total") {
            return Err(tera::Error::msg(format!(
                "`show` must be best, count, labels or total, not `{show}`"
            )));
        }
        let asked = format!("near_best(column={column}, within={within})");
        if self.default_rows.is_empty() {
            self.problems
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push((asked, "the entry has no measured table to compare".into()));
            return Ok(Value::String("[missing value]".into()));
        }
        let mut values = Vec::new();
        for row in &self.default_rows {
            match self
                .cell(args, row, &column, &asked)
                .and_then(|c| c.as_f64())
            {
                Some(v) => values.push((row.as_str(), v)),
                None => return Ok(Value::String("[missing value]".into())),
            }
        }
        let near = near_best(&values, lowest, within / 100.0);
        Ok(Value::String(match show.as_str() {
            "best" => format!("`{}`", near.best),
            "count" => near.labels.len().to_string(),
            "total" => values.len().to_string(),
            _ => english_list(
                &near
                    .labels
                    .iter()
                    .map(|l| format!("`{l}`"))
                    .collect::<Vec<_>>(),
            ),
        }))
    }

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

/// The best of `values` and every label within `within` (a fraction) of it, in table order.
struct NearBest<'a> {
    best: &'a str,
    labels: Vec<&'a str>,
}

fn near_best<'a>(values: &[(&'a str, f64)], lowest: bool, within: f64) -> NearBest<'a> {
    let better = |a: f64, b: f64| if lowest { a < b } else { a > b };
    let (best, top) =
        values
            .iter()
            .copied()
            .fold(values[0], |acc, v| if better(v.1, acc.1) { v } else { acc });
    let labels = values
        .iter()
        .filter(|(_, v)| {
            if lowest {
                *v <= top * (1.0 + within)
            } else {
                *v >= top * (1.0 - within)
            }
        })
        .map(|(l, _)| *l)
        .collect();
    NearBest { best, labels }
}

/// "a", "a and b", "a, b and c".
fn english_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Nsight Compute exports under `measurements/`, each read once per body.
struct NcuExports {
    root: PathBuf,
    read: Mutex<HashMap<String, Arc<crate::occupancy::NcuExport>>>,
}

impl NcuExports {
    fn new(root: &Path) -> NcuExports {
        NcuExports {
            root: root.to_path_buf(),
            read: Mutex::new(HashMap::new()),
        }
    }

    /// A bad export, launch or `show` is the author's error: it fails the build, naming
    /// the file, as a bad `occupancy()` launch does.
    fn call(&self, args: &HashMap<String, Value>) -> tera::Result<Value> {
        let name = arg(args, "export")?;
        let launch = arg(args, "launch")?;
        let show = arg(args, "show")?;
        let export = self.export(&name)?;
        let l = export
            .launches
            .iter()
            .find(|l| l.id == launch)
            .ok_or_else(|| {
                tera::Error::msg(format!(
                    "{}: no profiled launch with ID {launch} (IDs: {})",
                    export.source,
                    export
                        .launches
                        .iter()
                        .map(|l| l.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?;
        ncu_figure(l, &show)
            .map(Value::String)
            .map_err(|why| tera::Error::msg(format!("{}: launch {launch}: {why}", export.source)))
    }

    fn export(&self, name: &str) -> tera::Result<Arc<crate::occupancy::NcuExport>> {
        let safe = !name.is_empty()
            && name.ends_with(".csv")
            && Path::new(name)
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)));
        if !safe {
            return Err(tera::Error::msg(format!(
                "ncu export `{name}` must be a .csv path inside measurements/"
            )));
        }
        let mut read = self.read.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(e) = read.get(name) {
            return Ok(e.clone());
        }
        let export = crate::occupancy::read_ncu_csv(&self.root.join(name))
            .map_err(|e| tera::Error::msg(e.to_string()))?;
        let export = Arc::new(export);
        read.insert(name.to_string(), export.clone());
        Ok(export)
    }
}

/// One figure of a profiled launch, formatted for prose.
fn ncu_figure(l: &crate::occupancy::NcuLaunch, show: &str) -> std::result::Result<String, String> {
    use crate::occupancy::{interpret, Rule};
    let pct = |f: f64| format!("{:.1}%", f * 100.0);
    let reading = l.reading();
    let need = |v: Option<String>, what: &str| {
        v.ok_or_else(|| format!("the export has no {what} for this launch"))
    };
    if let Some(rule) = show.strip_prefix("rule:") {
        let rule = match rule {
            "block_size" => Rule::BlockSize,
            "waves" => Rule::Waves,
            "gap" => Rule::Gap,
            "binding" => Rule::Binding,
            "worth_chasing" => Rule::WorthChasing,
            other => {
                return Err(format!(
                    "unknown rule `{other}` (block_size, waves, gap, binding, worth_chasing)"
                ))
            }
        };
        return interpret(&reading)
            .into_iter()
            .find(|f| f.rule == rule)
            .map(|f| f.message)
            .ok_or_else(|| "the export lacks what that rule reads (achieved occupancy?)".into());
    }
    Ok(match show {
        "kernel" => l.kernel_name.clone(),
        "block" => l.block_size.to_string(),
        "grid" => l.grid_size.to_string(),
        "registers" => l.registers_per_thread.to_string(),
        "blocks_per_sm" => l.blocks_per_sm().to_string(),
        "limit_registers" => l.limits.registers.to_string(),
        "limit_shared_memory" => l.limits.shared_memory.to_string(),
        "limit_warps" => l.limits.warps.to_string(),
        "limit_blocks" => l.limits.blocks.to_string(),
        "binding" => reading.binding.label().to_string(),
        "theoretical" => pct(l.theoretical_occupancy),
        "achieved" => need(l.achieved_occupancy.map(pct), "achieved occupancy")?,
        "gap" => need(
            l.achieved_occupancy.map(|a| {
                format!(
                    "{:.1} percentage points",
                    (l.theoretical_occupancy - a) * 100.0
                )
            }),
            "achieved occupancy",
        )?,
        "waves" => need(l.waves_per_sm.map(|w| format!("{w:.2}")), "waves per SM")?,
        "last_wave_fill" => need(
            reading.last_wave_fill.map(|f| format!("{:.0}%", f * 100.0)),
            "SM count",
        )?,
        other => {
            return Err(format!(
                "unknown `show` `{other}` (kernel, block, grid, registers, blocks_per_sm, \
                 limit_registers, limit_shared_memory, limit_warps, limit_blocks, binding, \
                 theoretical, achieved, gap, waves, last_wave_fill, or rule:NAME)"
            ))
        }
    })
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
                default_rows: vec!["b128".into()],
                problems: Mutex::new(Vec::new()),
            })
        };
        let fast = simple_calls(body).and_then(|calls| {
            let l = fresh();
            expand_calls(body, &calls, &l).map(|m| (m, l.take_problems()))
        });
        let l = fresh();
        let tera = expand_with_tera(&e, &l, Path::new("measurements")).unwrap();
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
        let err = expand_body(&e, &resolved(), Path::new("measurements"))
            .err()
            .map(|e| e.to_string());
        assert!(
            err.as_deref()
                .is_some_and(|m| m.contains("missing string argument `column`")),
            "{err:?}"
        );
    }

    #[test]
    fn near_best_counts_rows_within_a_margin_of_the_best() {
        let values = [("a", 1.30), ("b", 1.00), ("c", 1.04), ("d", 1.06)];
        let near = near_best(&values, true, 0.05);
        assert_eq!(near.best, "b");
        assert_eq!(near.labels, ["b", "c"]);
        let near = near_best(&values, false, 0.2);
        assert_eq!((near.best, near.labels), ("a", vec!["a", "c", "d"]));
        assert_eq!(
            english_list(&["x".into(), "y".into(), "z".into()]),
            "x, y and z"
        );
    }

    #[test]
    fn near_best_in_a_body_reads_the_first_tables_rows() {
        let mut e = entry(
            "{{ near_best(column=\"gbps\", best=\"highest\", within=5, show=\"total\") }} / \
             {{ near_best(column=\"gbps\", best=\"highest\", within=5, show=\"best\") }}",
        );
        e.meta.measured[0].rows = vec!["b128".into(), "b256".into()];
        let out = expand_body(&e, &resolved(), Path::new("measurements")).unwrap();
        assert!(out.problems.is_empty(), "{:?}", out.problems);
        assert!(out.markdown.starts_with("2 / `b"), "{}", out.markdown);
    }

    #[test]
    fn ncu_reads_a_launch_of_a_real_export_and_its_rules() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let e = entry(
            "{{ ncu(export=\"ncu/day45-h200.csv\", launch=\"0\", show=\"waves\") }} | \
             {{ ncu(export=\"ncu/day45-h200.csv\", launch=\"0\", show=\"theoretical\") }} | \
             {{ ncu(export=\"ncu/day45-h200.csv\", launch=\"0\", show=\"rule:waves\") }}",
        );
        let out = expand_body(&e, &resolved(), &fixtures).unwrap().markdown;
        assert!(out.starts_with("496.48 | 100.0% | 496.48 waves:"), "{out}");
    }

    #[test]
    fn ncu_errors_name_the_export_and_what_is_wrong() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        for (body, want) in [
            (
                "{{ ncu(export=\"ncu/day45-h200.csv\", launch=\"99\", show=\"waves\") }}",
                "no profiled launch with ID 99",
            ),
            (
                "{{ ncu(export=\"ncu/day45-h200.csv\", launch=\"0\", show=\"speed\") }}",
                "unknown `show` `speed`",
            ),
            (
                "{{ ncu(export=\"../Cargo.toml\", launch=\"0\", show=\"waves\") }}",
                "must be a .csv path inside measurements/",
            ),
            (
                "{{ ncu(export=\"ncu/none.csv\", launch=\"0\", show=\"waves\") }}",
                "none.csv",
            ),
        ] {
            let err = expand_body(&entry(body), &resolved(), &fixtures)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(err.contains(want), "{body}: {err}");
        }
    }
}
