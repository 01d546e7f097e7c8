//! Numbers quoted in prose. A body may call `value(...)` and `ratio(...)` (functions, see `calls`;
//! a body is Markdown, not a template)
//! and gets the number from the record; it can never type one that the table contradicts.
//!
//! `{{ value(row="tlp1", column="gbps") }}` and
//! `{{ ratio(column="gbps", of="tlp1-b1", to="tlp1") }}` read the entry's first measured
//! table (its first node, when it cites several); `experiment=` and `node=` pick another
//! cited record, each defaulting to the first table's. A ratio across two nodes names the
//! node of each side: `{{ ratio(column="gbps", of="big", to="big", of_node="h200",
//! to_node="h100") }}` (each defaults to `node=`, then to the first table's node).
//!
//! `{{ occupancy(arch="sm_90", block=256, regs=40, show="warps") }}` asks the occupancy model
//! (tested against every point of the driver sweep recorded on the H200) for a launch that
//! no experiment ran: `show` is one of blocks, warps, occupancy, binding.
//!
//! `{{ near_best(column="median_ms", best="lowest", within=5, show="count") }}` compares the
//! rows of the entry's first measured table: the best one (`show="best"`), how many lie
//! within `within` percent of it (`count`, `labels`), or how many were compared (`total`):
//! a statement about the whole table that no single cell holds.
//!
//! `{{ ncu(export="day42-nsight/day17-h200.csv", launch="4", show="waves") }}` reads one
//! launch of a Nsight Compute export kept under `measurements/` (read by
//! [`crate::occupancy::ncu`]); `show` names a figure of the launch, or `rule:NAME` for the
//! interpretation rule's sentence about it ([`crate::occupancy::interpret`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::content::Entry;
use crate::error::{Error, Location};
use crate::measure::record::NoEstimate;
use crate::measure::verdict::Estimate;
use crate::measure::{Record, Staleness};

use super::calls::{calls_at, find_calls, line_column, Call, MAX_DECIMALS};

/// The records an entry cites, resolved: `(experiment, node)` -> record or why not.
pub type Resolved = HashMap<(String, String), std::result::Result<Arc<Record>, Staleness>>;

/// A body after its function calls ran, and the citation problems they met.
pub struct ExpandedBody {
    pub markdown: String,
    /// Where each call starts in the body, for [`calls_at`] the next time.
    pub calls: Box<[u32]>,
    /// (`what was asked`, why it could not be answered)
    pub problems: Vec<(String, String)>,
    /// The Nsight Compute exports the calls read: (path below `measurements/`, `sha256:`
    /// of the text read), in name order. The sign-off binds them beside the numbers.
    pub exports: Vec<(String, String)>,
}

/// Replace every call in the entry's body by its result. Malformed calls and calls that
/// cannot be evaluated (a bad launch for `occupancy`) are errors at their line:column in
/// the file, all of them; a number the record lacks is a problem that refuses the entry.
/// `measurements` is the folder that `ncu(export=...)` paths are relative to.
/// `known`: where the calls start, from an earlier expansion of this same body.
pub fn expand_body(
    entry: &Entry,
    resolved: &Resolved,
    measurements: &Path,
    known: Option<&[u32]>,
) -> Result<ExpandedBody, Vec<Error>> {
    let (calls, bad) = match known {
        Some(starts) => calls_at(&entry.body, starts),
        None => find_calls(&entry.body),
    };
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
                calls: Box::default(),
                problems: Vec::new(),
                exports: Vec::new(),
            }),
            false => Err(errors),
        };
    }
    let lookup = Lookup {
        resolved,
        default: entry.meta.default_record(),
        default_rows: entry
            .meta
            .measured
            .first()
            .map(|t| t.rows.clone())
            .unwrap_or_default(),
        problems: Mutex::new(Vec::new()),
    };
    let exports = NcuExports::new(measurements);
    let mut markdown = String::with_capacity(entry.body.len());
    let mut from = 0;
    // Line breaks of wrapped calls not yet put back (see `push_keeping_lines`).
    let mut breaks = 0;
    for call in &calls {
        push_keeping_lines(
            &mut markdown,
            &entry.body[from..call.span.start],
            &mut breaks,
        );
        breaks += entry.body[call.span.clone()].matches('\n').count();
        if breaks > 0 && break_before_call(&mut markdown) {
            breaks -= 1;
        }
        let result = match call.function {
            "value" => match lookup.value(call) {
                (shown, true) => match typed_unit_after(&entry.body[call.span.end..]) {
                    Some(typed) => Err(format!(
                        "a size shows its own unit, in the one a reader uses ({shown}); remove the `{typed}` typed after the call"
                    )),
                    None => Ok(shown),
                },
                (shown, false) => Ok(shown),
            },
            "ratio" => Ok(lookup.ratio(call)),
            "near_best" => lookup.near_best(call),
            "ncu" => exports.call(call),
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
    push_keeping_lines(&mut markdown, &entry.body[from..], &mut breaks);
    markdown.extend(std::iter::repeat_n('\n', breaks));
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(ExpandedBody {
        markdown,
        calls: calls.iter().map(|c| c.span.start as u32).collect(),
        problems: lookup.take_problems(),
        exports: exports.digests(),
    })
}

/// A call whose arguments wrap over lines becomes one line of text, but the Markdown pass
/// reports a link or an image at its line counted in the expanded Markdown: the line
/// breaks must stay. Each goes where a space or tab was beside the call on its own lines
/// (before it, then between the words after it), which HTML shows as the space it
/// replaces; a run of blanks takes one break, so no line is left blank and no two
/// trailing spaces make a hard break. Only a call wrapped over more lines than there are
/// such spaces puts the rest at the end of its last line, which ends the paragraph there.
///
/// `text` follows a call (or starts the body) and is pushed onto `markdown`, with up to
/// `breaks` of its blank runs on the call's last line turned into line breaks; the rest
/// go before that line's own break.
fn push_keeping_lines(markdown: &mut String, text: &str, breaks: &mut usize) {
    if *breaks == 0 {
        markdown.push_str(text);
        return;
    }
    let line_end = text.find(['\n', '\r']);
    let line = &text[..line_end.unwrap_or(text.len())];
    let mut rest = line;
    while *breaks > 0 {
        let Some(start) = rest.find([' ', '\t']) else {
            break;
        };
        let after = rest[start..].trim_start_matches([' ', '\t']);
        markdown.push_str(&rest[..start]);
        // Not at the end of the text (the next call's own space, or the end of the line)
        // and not after a backslash (a hard break) or at the start of the call's result.
        let joins_words = !after.is_empty() && !markdown.ends_with(['\\', '\n']);
        if joins_words {
            markdown.push('\n');
            *breaks -= 1;
        } else {
            markdown.push_str(&rest[start..rest.len() - after.len()]);
        }
        rest = after;
    }
    markdown.push_str(rest);
    if line_end.is_some() {
        markdown.extend(std::iter::repeat_n('\n', *breaks));
        *breaks = 0;
    }
    markdown.push_str(&text[line.len()..]);
}

/// The blanks just before a call, on a line with text before them, turned into a line
/// break (see [`push_keeping_lines`]); false where there are none.
fn break_before_call(markdown: &mut String) -> bool {
    let kept = markdown.trim_end_matches([' ', '\t']).len();
    let usable =
        kept < markdown.len() && kept > 0 && !markdown[..kept].ends_with(['\n', '\r', '\\']);
    if usable {
        markdown.truncate(kept);
        markdown.push('\n');
    }
    usable
}

// ---------------------------------------------------------------------------------------
// Reader units: the one rule for how a page shows a measured quantity, in tables, chart
// ticks (a chart's x labels are the table's cells) and prose (`value()`) alike.
// ---------------------------------------------------------------------------------------

/// Binary size units, smallest first, with their size in bytes.
const SIZE_UNITS: [(&str, f64); 5] = [
    ("B", 1.0),
    ("KiB", 1024.0),
    ("MiB", 1048576.0),
    ("GiB", 1073741824.0),
    ("TiB", 1099511627776.0),
];

/// The bytes in one `unit`, where it is a size unit.
fn size_unit(unit: &str) -> Option<f64> {
    SIZE_UNITS.iter().find(|(u, _)| *u == unit).map(|(_, b)| *b)
}

/// A size in the unit a reader uses: the largest binary unit in which it is at least 1,
/// with no more decimals than it needs (up to two). A record keeps a working set in the
/// unit its experiment counts in (262144 KiB); a reader reads 256 MiB. None for a
/// quantity that is not a size (`unit` not B, KiB, MiB, GiB or TiB).
pub fn size_shown(value: f64, unit: &str) -> Option<String> {
    let bytes = value * size_unit(unit)?;
    if !bytes.is_finite() {
        return None;
    }
    let (name, per) = SIZE_UNITS
        .iter()
        .rev()
        .find(|(_, per)| bytes.abs() >= *per)
        .unwrap_or(&SIZE_UNITS[0]);
    let scaled = bytes / per;
    let text = format!("{scaled:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    Some(format!("{text} {name}"))
}

/// A cell as every page shows it: a size in reader units with its unit, anything else
/// as the record's digits give it (`ColumnValue::display`).
pub fn cell_shown(value: &crate::measure::ColumnValue, unit: Option<&str>) -> String {
    unit.zip(value.as_f64())
        .and_then(|(u, v)| size_shown(v, u))
        .unwrap_or_else(|| value.display())
}

/// The unit of quantity `column` in `record`, where the record gives it one.
pub fn column_unit<'r>(record: &'r Record, column: &str) -> Option<&'r str> {
    record
        .configs
        .iter()
        .find_map(|c| c.quantities.get(column))
        .map(|q| q.unit.as_str())
}

/// A column's heading: the record's heading with its unit once. A size's cells carry
/// their own units ([`size_shown`]), so its heading has none; a heading that already names
/// its unit in parentheses ("latency (SM cycles)", unit `cycles`) does not repeat it.
pub fn column_heading(record: &Record, column: &str) -> String {
    let Some(unit) = column_unit(record, column) else {
        return record.heading(column);
    };
    let heading = record
        .configs
        .iter()
        .find_map(|c| c.quantities.get(column))
        .and_then(|q| q.heading.clone())
        .unwrap_or_else(|| column.to_string());
    let named = heading
        .split('(')
        .skip(1)
        .filter_map(|p| p.split(')').next())
        .any(|inside| inside.split_whitespace().any(|w| w == unit));
    if unit.is_empty() || named || size_unit(unit).is_some() {
        heading
    } else {
        format!("{heading} ({unit})")
    }
}

/// A size unit typed right after a `value()` call (`{{ value(...) }} KiB`), which would
/// show the unit twice.
fn typed_unit_after(text: &str) -> Option<&str> {
    let rest = text.strip_prefix([' ', '\u{a0}']).unwrap_or(text);
    let word: &str = rest
        .split(|c: char| !c.is_ascii_alphabetic())
        .next()
        .unwrap_or_default();
    matches!(
        word,
        "B" | "KiB" | "MiB" | "GiB" | "TiB" | "KB" | "MB" | "GB" | "TB" | "bytes"
    )
    .then_some(word)
}

struct Lookup<'r> {
    resolved: &'r Resolved,
    default: Option<(String, String)>,
    /// The rows of the entry's first measured table, which `near_best` compares.
    default_rows: Vec<String>,
    problems: Mutex<Vec<(String, String)>>,
}

impl Lookup<'_> {
    /// A bad `best` or `show` is the author's error; a row the record lacks refuses the
    /// entry, as for `value`.
    fn near_best(&self, call: &Call) -> Result<String, String> {
        let column = arg(call, "column");
        let lowest = match arg(call, "best") {
            "lowest" => true,
            "highest" => false,
            other => return Err(format!("`best` must be lowest or highest, not `{other}`")),
        };
        let within = call.number("within").unwrap_or(0) as f64;
        let show = arg(call, "show");
        if !matches!(show, "best" | "count" | "labels" | "total") {
            return Err(format!(
                "`show` must be best, count, labels or total, not `{show}`"
            ));
        }
        if self.default_rows.is_empty() {
            return Err("the entry has no measured table whose rows it could compare".into());
        }
        let asked = format!("near_best(column={column}, within={within})");
        let mut values = Vec::new();
        for row in &self.default_rows {
            match self.estimate(call, row, column, &asked) {
                Some(v) => values.push((row.as_str(), v)),
                None => return Ok("[missing value]".into()),
            }
        }
        let near = match near_best(&values, lowest, within / 100.0) {
            Ok(near) => near,
            Err(why) => {
                self.problem(&asked, why);
                return Ok("[ambiguous]".into());
            }
        };
        Ok(match show {
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
        })
    }

    /// The cell as a table shows it ([`cell_shown`]), and whether it is a size, which
    /// shows its own unit.
    fn value(&self, call: &Call) -> (String, bool) {
        let (row, column) = (arg(call, "row"), arg(call, "column"));
        let asked = format!("value(row={row}, column={column})");
        match self.cell(call, row, column, &asked) {
            Some((cell, unit)) => {
                let size = unit.is_some_and(|u| size_unit(u).is_some());
                (cell_shown(&cell, unit), size)
            }
            None => ("[missing value]".into(), false),
        }
    }

    fn ratio(&self, call: &Call) -> String {
        let (column, of, to) = (arg(call, "column"), arg(call, "of"), arg(call, "to"));
        // The parser refused more than MAX_DECIMALS, with the file and line.
        let decimals = call.number("decimals").unwrap_or(2).min(MAX_DECIMALS) as usize;
        // A cross-node ratio: `of_node=` and `to_node=` each pick the node of one side
        // (each else `node=`, else the first table's first node).
        let (of_node, to_node) = (call.text("of_node"), call.text("to_node"));
        let on = |n: Option<&str>| n.map(|n| format!("@{n}")).unwrap_or_default();
        let asked = format!(
            "ratio(column={column}, of={of}{}, to={to}{})",
            on(of_node),
            on(to_node)
        );
        let a = self
            .cell_on(call, of, column, &asked, of_node)
            .and_then(|c| c.0.as_f64());
        let b = self
            .cell_on(call, to, column, &asked, to_node)
            .and_then(|c| c.0.as_f64());
        match (a, b) {
            (Some(a), Some(b)) if b != 0.0 => format!("{:.decimals$}", a / b),
            _ => "[missing value]".into(),
        }
    }

    fn problem(&self, asked: &str, why: String) {
        self.problems
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((asked.to_string(), why));
    }

    /// A cell with its interval (`ConfigRecord::estimate`), for statements that compare
    /// rows; a value without one is a problem that refuses the entry.
    fn estimate(&self, call: &Call, row: &str, column: &str, asked: &str) -> Option<Estimate> {
        self.cell(call, row, column, asked)?;
        let named = |k: &str| call.text(k).map(str::to_string);
        let key = match (named("experiment"), named("node"), &self.default) {
            (Some(e), Some(n), _) => (e, n),
            (e, n, Some((de, dn))) => (
                e.unwrap_or_else(|| de.clone()),
                n.unwrap_or_else(|| dn.clone()),
            ),
            _ => return None,
        };
        let record = self.resolved.get(&key)?.as_ref().ok()?;
        match record.config(row)?.estimate(column, record.schema) {
            Ok(e) => Some(e.estimate),
            Err(NoEstimate::Missing) => None,
            Err(NoEstimate::NoInterval(why)) => {
                self.problem(
                    asked,
                    format!("row `{row}`: {column} has no interval: {why}"),
                );
                None
            }
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
    ) -> Option<(crate::measure::ColumnValue, Option<&str>)> {
        self.cell_on(call, row, column, asked, None)
    }

    /// [`Lookup::cell`] on `node` when given (a ratio's `of_node=`/`to_node=`).
    fn cell_on(
        &self,
        call: &Call,
        row: &str,
        column: &str,
        asked: &str,
        node: Option<&str>,
    ) -> Option<(crate::measure::ColumnValue, Option<&str>)> {
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
        let node = node.map(str::to_string).or_else(|| named("node"));
        let key = match (named("experiment"), node, &self.default) {
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
            Some(v) => Some((v, column_unit(record, column))),
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

/// The best of `values` and every label within `within` (a fraction) of it, in table order.
#[derive(Debug)]
struct NearBest<'a> {
    best: &'a str,
    labels: Vec<&'a str>,
}

/// The best row and the rows near it, decided by the verdict rule
/// (`measure::verdict`): a row is within `within` of the best when the conservative
/// ratio row / best lies, on its whole interval, at most `1 + within` (lowest best) or at
/// least `1 - within` (highest best), and not when its whole interval lies beyond.
/// A row whose ratio straddles the margin, or a best row whose interval overlaps the
/// runner-up's, is ambiguous: `Err` says which, with the margin that would decide it.
fn near_best<'a>(
    values: &[(&'a str, Estimate)],
    lowest: bool,
    within: f64,
) -> Result<NearBest<'a>, String> {
    use crate::measure::verdict::{at_least, at_most, ratio, Verdict};
    let better = |a: f64, b: f64| if lowest { a < b } else { a > b };
    let (best, top) = values.iter().copied().fold(values[0], |acc, v| {
        if better(v.1.value, acc.1.value) {
            v
        } else {
            acc
        }
    });
    let mut labels = Vec::new();
    for (label, v) in values {
        if *label == best {
            labels.push(*label);
            continue;
        }
        let Some(r) = ratio(*v, top) else {
            return Err(format!(
                "row `{label}`: no ratio to the best (an interval reaches zero)"
            ));
        };
        if (lowest && r.lo <= 1.0) || (!lowest && r.hi >= 1.0) {
            return Err(format!(
                "which row is best is ambiguous: `{label}` {v:.4} overlaps `{best}` {top:.4}; measure more"
            ));
        }
        let (verdict, margin) = if lowest {
            (at_most(r, 1.0 + within), 1.0 + within)
        } else {
            (at_least(r, 1.0 - within), 1.0 - within)
        };
        match verdict {
            Verdict::Holds => labels.push(*label),
            Verdict::Fails => {}
            Verdict::Ambiguous => {
                return Err(format!(
                    "row `{label}` is {r:.3} times the best `{best}`, which straddles the margin {margin:.3}: state `within` below {:.1} or above {:.1}, or measure more",
                    (r.lo - 1.0).abs().min((r.hi - 1.0).abs()) * 100.0,
                    (r.lo - 1.0).abs().max((r.hi - 1.0).abs()) * 100.0
                ))
            }
        }
    }
    Ok(NearBest { best, labels })
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

    /// A bad export, launch or `show` is the author's error, reported at the call.
    fn call(&self, call: &Call) -> Result<String, String> {
        let (name, launch) = (arg(call, "export"), arg(call, "launch"));
        let export = self.export(name)?;
        let l = export
            .launches
            .iter()
            .find(|l| l.id == launch)
            .ok_or_else(|| {
                format!(
                    "{}: no profiled launch with ID {launch} (IDs: {})",
                    export.source,
                    export
                        .launches
                        .iter()
                        .map(|l| l.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })?;
        ncu_figure(l, arg(call, "show"))
            .map_err(|why| format!("{}: launch {launch}: {why}", export.source))
    }

    /// Every export read, with the digest of its text, in name order.
    fn digests(&self) -> Vec<(String, String)> {
        let read = self.read.lock().unwrap_or_else(|p| p.into_inner());
        let mut out: Vec<(String, String)> = read
            .iter()
            .map(|(name, e)| (name.clone(), e.digest.clone()))
            .collect();
        out.sort();
        out
    }

    fn export(&self, name: &str) -> Result<Arc<crate::occupancy::NcuExport>, String> {
        let inside = !name.is_empty()
            && name.ends_with(".csv")
            && Path::new(name)
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)));
        if !inside {
            return Err(format!(
                "ncu export `{name}` must be a .csv path inside measurements/"
            ));
        }
        let mut read = self.read.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(e) = read.get(name) {
            return Ok(e.clone());
        }
        // A symlink may not bring in a file from outside measurements/: the page would
        // show numbers read from a file nobody cites.
        let path = self.root.join(name);
        if let (Ok(real), Ok(root)) = (path.canonicalize(), self.root.canonicalize()) {
            if !real.starts_with(&root) {
                return Err(format!(
                    "ncu export `{name}` is a symlink to {}, outside measurements/",
                    real.display()
                ));
            }
        }
        let export = crate::occupancy::read_ncu_csv(&path)
            .map(Arc::new)
            .map_err(|e| e.to_string())?;
        read.insert(name.to_string(), export.clone());
        Ok(export)
    }
}

/// Plain text made safe to splice into Markdown: its emphasis and code markers escaped.
fn markdown_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '_' | '*' | '`' | '[' | ']' | '<' | '>' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// One figure of a profiled launch, formatted for prose.
fn ncu_figure(l: &crate::occupancy::NcuLaunch, show: &str) -> Result<String, String> {
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
        // The sentence lands in Markdown: its `__launch_bounds__` must not turn bold.
        return interpret(&reading)
            .into_iter()
            .find(|f| f.rule == rule)
            .map(|f| markdown_text(&f.message))
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
        // Every resource at the smallest limit: Nsight Compute often reports two at once.
        "tied" => english_list(
            &reading
                .tied
                .iter()
                .map(|r| r.label().to_string())
                .collect::<Vec<_>>(),
        ),
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
                 limit_registers, limit_shared_memory, limit_warps, limit_blocks, binding, tied, \
                 theoretical, achieved, gap, waves, last_wave_fill, or rule:NAME)"
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
            thinned: None,
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
            throttled_samples: Some(0),
            unobserved_samples: 0,
            converged: true,
            host_median_ms: None,
            interval: None,
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
            quantities: [
                (
                    "gbps".to_string(),
                    crate::measure::record::Quantity::metric(gbps, "GB/s", None, 1),
                ),
                (
                    "ws_kib".to_string(),
                    crate::measure::record::Quantity::metric(
                        262144.0,
                        "KiB",
                        Some("working set"),
                        0,
                    ),
                ),
                (
                    "cycles".to_string(),
                    crate::measure::record::Quantity::metric(
                        676.0,
                        "cycles",
                        Some("latency (SM cycles)"),
                        0,
                    ),
                ),
            ]
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
        expand_body(&entry(body), &resolved(), Path::new("measurements"), None)
    }

    fn fixtures() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
    }

    #[test]
    fn a_size_is_shown_in_the_unit_a_reader_uses() {
        for (value, unit, want) in [
            (16.0, "KiB", "16 KiB"),
            (512.0, "KiB", "512 KiB"),
            (4096.0, "KiB", "4 MiB"),
            (262144.0, "KiB", "256 MiB"),
            (1048576.0, "KiB", "1 GiB"),
            (1536.0, "KiB", "1.5 MiB"),
            (60.0, "MiB", "60 MiB"),
            (1024.0, "MiB", "1 GiB"),
            (512.0, "B", "512 B"),
            (0.0, "B", "0 B"),
        ] {
            assert_eq!(
                size_shown(value, unit).as_deref(),
                Some(want),
                "{value} {unit}"
            );
        }
        assert_eq!(size_shown(2.5, "GB/s"), None);
        assert_eq!(size_shown(2.5, "B/cycle"), None);
    }

    #[test]
    fn a_heading_names_its_unit_once_and_a_sizes_none() {
        let resolved = resolved();
        let record = resolved[&("e".to_string(), "n".to_string())]
            .as_ref()
            .unwrap();
        assert_eq!(column_heading(record, "gbps"), "gbps (GB/s)");
        assert_eq!(column_heading(record, "cycles"), "latency (SM cycles)");
        assert_eq!(column_heading(record, "ws_kib"), "working set");
        assert_eq!(column_heading(record, "block_size"), "block size (threads)");
    }

    #[test]
    fn value_of_a_size_shows_its_unit_and_refuses_one_typed_after_it() {
        let out = expand("A {{ value(row=\"b128\", column=\"ws_kib\") }} cycle.\n")
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(out.markdown, "A 256 MiB cycle.\n");
        let errors = expand("Text.\nA {{ value(row=\"b128\", column=\"ws_kib\") }} KiB cycle.\n")
            .err()
            .expect("a unit typed after a size");
        let shown = errors[0].to_string();
        assert!(
            shown.contains("t.md:2")
                && shown.contains("(256 MiB); remove the `KiB` typed after the call"),
            "{shown}"
        );
        // Another word after it, or a unit after a quantity that is not a size, is fine.
        assert!(expand("{{ value(row=\"b128\", column=\"ws_kib\") }} Bytes? no: Bx\n").is_ok());
        assert!(expand("{{ value(row=\"b128\", column=\"gbps\") }} GB/s\n").is_ok());
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
    fn a_wrapped_call_keeps_the_bodys_lines() {
        let call = "{{ occupancy(arch=\"sm_90\",\nblock=256, regs=40, show=\"warps\") }}";
        for (body, want) in [
            // The space before the call takes the break.
            (
                format!("It holds {call} warps.\nNext [link](x)\n"),
                "It holds\n48 warps.\nNext [link](x)\n",
            ),
            // None before: the first space after it.
            (
                format!("({call} warps) here.\nNext\n"),
                "(48\nwarps) here.\nNext\n",
            ),
            // Three lines: before, then after.
            (
                format!(
                    "It holds {} warps here.\nNext\n",
                    call.replace(", regs", ",\nregs")
                ),
                "It holds\n48\nwarps here.\nNext\n",
            ),
            // No space on its lines: at the end of its last line.
            (format!("({call}).\nNext\n"), "(48).\n\nNext\n"),
            (format!("({call})."), "(48).\n"),
            // Two calls on one line share its spaces.
            (format!("{call} and {call} warps\n"), "48\nand\n48 warps\n"),
        ] {
            let out = expand(&body).unwrap_or_else(|e| panic!("{e:?}"));
            assert_eq!(out.markdown, want, "{body:?}");
            assert_eq!(
                out.markdown.matches('\n').count(),
                body.matches('\n').count()
            );
        }
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
        let errors: Vec<String> = expand_body(&e, &resolved(), Path::new("measurements"), None)
            .err()
            .expect("errors")
            .iter()
            .map(|e| e.to_string())
            .collect();
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert_eq!(errors[0], "t.md:8:6: value() needs the argument `column`");
        assert!(errors[1].starts_with("t.md:8:31: occupancy("), "{errors:?}");
    }

    #[test]
    fn near_best_counts_rows_within_a_margin_of_the_best() {
        let p = Estimate::point;
        let values = [
            ("a", p(1.30)),
            ("b", p(1.00)),
            ("c", p(1.04)),
            ("d", p(1.06)),
        ];
        let near = near_best(&values, true, 0.05).unwrap();
        assert_eq!((near.best, near.labels), ("b", vec!["b", "c"]));
        let near = near_best(&values, false, 0.2).unwrap();
        assert_eq!((near.best, near.labels), ("a", vec!["a", "c", "d"]));
        // With intervals: c is 1.04 [1.02, 1.06] times b, across a 5% margin.
        let e = |v: f64| Estimate::new(v, v * 0.99, v * 1.01);
        let noisy = [("b", e(1.00)), ("c", e(1.04)), ("d", e(1.30))];
        let why = near_best(&noisy, true, 0.05).unwrap_err();
        assert!(
            why.contains("row `c`") && why.contains("straddles"),
            "{why}"
        );
        assert_eq!(
            near_best(&noisy, true, 0.10).unwrap().labels,
            vec!["b", "c"]
        );
        // Two rows whose intervals overlap: which is best is not known.
        let tie = [("b", e(1.00)), ("c", e(1.005))];
        assert!(near_best(&tie, true, 0.05)
            .unwrap_err()
            .contains("ambiguous"));
        assert_eq!(
            english_list(&["x".into(), "y".into(), "z".into()]),
            "x, y and z"
        );
    }

    #[test]
    fn near_best_in_a_body_compares_the_first_tables_rows() {
        let mut e = entry(
            "{{ near_best(column=\"gbps\", best=\"highest\", within=5, show=\"total\") }} / \
             {{ near_best(column=\"gbps\", best=\"highest\", within=30, show=\"labels\") }} / \
             {{ near_best(column=\"median_ms\", best=\"lowest\", within=5, show=\"best\") }}",
        );
        e.meta.measured[0].rows = vec!["b128".into(), "b256".into()];
        let out = expand_body(&e, &resolved(), Path::new("measurements"), None)
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert!(out.problems.is_empty(), "{:?}", out.problems);
        assert_eq!(out.markdown, "2 / `b128` and `b256` / `b256`");
        let bad =
            expand("{{ near_best(column=\"gbps\", best=\"most\", within=5, show=\"best\") }}");
        let msg = format!("{:?}", bad.err());
        assert!(msg.contains("`best` must be lowest or highest"), "{msg}");
    }

    #[test]
    fn ncu_reads_a_launch_of_a_real_export_and_its_rules() {
        let body = "{{ ncu(export=\"ncu/day45-h200.csv\", launch=\"0\", show=\"waves\") }} | \
             {{ ncu(export=\"ncu/day45-h200.csv\", launch=\"0\", show=\"theoretical\") }} | \
             {{ ncu(export=\"ncu/day45-h200.csv\", launch=\"0\", show=\"rule:waves\") }}";
        let out = expand_body(&entry(body), &resolved(), &fixtures(), None)
            .unwrap_or_else(|e| panic!("{e:?}"))
            .markdown;
        assert!(out.starts_with("496.48 | 100.0% | 496.48 waves:"), "{out}");
    }

    #[test]
    fn ncu_errors_name_the_export_and_what_is_wrong() {
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
            let errors = expand_body(&entry(body), &resolved(), &fixtures(), None)
                .err()
                .unwrap_or_default();
            let msg: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
            assert!(
                msg.len() == 1 && msg[0].starts_with("t.md:1:1: ncu(") && msg[0].contains(want),
                "{body}: {msg:?}"
            );
        }
    }
}
