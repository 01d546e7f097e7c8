//! Assessing every entry: resolve its citations, check its claims, expand the numbers in
//! its prose, and ask the gate. The output is everything the renderer needs to know.

use std::collections::{BTreeMap, HashMap};

use chrono::NaiveDate;
use rayon::prelude::*;

use crate::content::{line_of_item_field, split_front_matter, Entry, EntryId};
use crate::error::{Error, Location, Result};
use crate::measure::claims::{check_claim_roofed, LEGACY_NOTE};
use crate::measure::{Citation, Staleness};
use crate::render::figures::{referenced, Figures};
use crate::render::tables::side_by_side;
use crate::render::values::{expand_body, Resolved};
use crate::render::{Assessment, Shown};
use crate::review::{
    check_signoffs, cited_records, decide, explain_changes, signed_digest, signed_material, Facts,
    Refusal, SignOff, SignatureChecks,
};

use super::project::Project;

/// Whether an assessment keeps the signed text besides its digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keep {
    /// The digest only: enough for the gate, the pages and `review status`.
    Digest,
    /// The signed text and its bytes too, for signing and `review diff`.
    Material,
}

/// Every entry assessed, with the signed text kept (signing `--all-waiting`, `serve`).
pub fn assess_all(project: &Project, today: NaiveDate) -> Result<Vec<Assessment>> {
    let (out, errors) = assess_collecting(project, today, Keep::Material);
    Error::sorted(errors)?;
    Ok(out)
}

/// Assess every entry, with the errors of those that could not be: the others are
/// assessed all the same, so one run finds every entry's errors.
pub(crate) fn assess_collecting(
    project: &Project,
    today: NaiveDate,
    keep: Keep,
) -> (Vec<Assessment>, Vec<Error>) {
    // In chunks, so each chunk's signatures are verified in one batch.
    let results: Vec<Result<Assessment>> = project
        .content
        .entries
        .par_chunks(signature_batch(project.content.entries.len()))
        .flat_map_iter(|chunk| {
            let signoffs: Vec<_> = chunk
                .iter()
                .map(|e| (&e.id, project.signoffs.get(&e.id)))
                .collect();
            let checks = check_signoffs(&signoffs, &project.people, project.verified.as_deref());
            chunk
                .iter()
                .zip(checks)
                .map(move |(e, c)| assess_checked(project, e, today, keep, Some(&c)))
        })
        .collect();
    let mut out = Vec::with_capacity(results.len());
    let mut errors = Vec::new();
    for r in results {
        match r {
            Ok(a) => out.push(a),
            Err(e) => errors.push(e),
        }
    }
    (out, errors)
}

/// Assess one entry (signing, `review diff`).
pub fn assess_one(project: &Project, entry: &Entry, today: NaiveDate) -> Result<Assessment> {
    assess(project, entry, today, Keep::Material)
}

/// How many entries' signatures are verified together, out of `n`: batch verification
/// saves more the larger the batch (its multi-scalar multiplication shares each window's
/// bucket sums among all the batch's points: four batches of 256 entries took 281 M
/// instructions at 1,000 entries, one of 1,000 took 251 M), but the batches are the first
/// parallel work of a build, begun while other threads list `content/` and load the
/// templates: with two batches per core, one core was left verifying the last batch alone
/// for most of a tenth of a second at 10,000 entries. Eight per core keep the cores even
/// to the end (a 10,000-entry build's median wall time 3.4% and 1.2% less in two sets of
/// interleaved runs, 8 and 10 builds of each binary). 256 at least (crypto fell from
/// about 6.3% to 5.5% of a 10k build's CPU going from 64 to 256); at most 4,096, so that
/// a batch with a bad signature, checked again one by one to find it, stays bounded
/// (larger batches were not measured).
fn signature_batch(n: usize) -> usize {
    (n / (8 * rayon::current_num_threads())).clamp(256, 4096)
}

pub(crate) fn assess(
    project: &Project,
    entry: &Entry,
    today: NaiveDate,
    keep: Keep,
) -> Result<Assessment> {
    assess_checked(project, entry, today, keep, None)
}

/// Every signature file's signatures verified, in parallel batches, before any entry is
/// read: the checks depend on the signature files and people only, not on the entries.
pub(crate) fn check_all_signoffs(project: &Project) -> HashMap<EntryId, SignatureChecks> {
    let signoffs: Vec<(&EntryId, Option<&SignOff>)> = project
        .signoffs
        .iter()
        .map(|(id, s)| (id, Some(s)))
        .collect();
    signoffs
        .par_chunks(signature_batch(signoffs.len()))
        .flat_map_iter(|chunk| {
            let checks = check_signoffs(chunk, &project.people, project.verified.as_deref());
            chunk.iter().map(|(id, _)| (*id).clone()).zip(checks)
        })
        .collect()
}

/// [`assess`], with the entry's signatures already checked when `checked` is given.
pub(crate) fn assess_checked(
    project: &Project,
    entry: &Entry,
    today: NaiveDate,
    keep: Keep,
    checked: Option<&SignatureChecks>,
) -> Result<Assessment> {
    check_source_dates(entry, today)?;
    let Made {
        shown,
        calls,
        stale,
        citations,
        resolved,
        exports,
    } = page_content(project, entry)?;

    let mut unsupported = Vec::new();
    let mut fragile = Vec::new();
    let mut claim_notes: Vec<String> = Vec::new();
    for claim in &entry.meta.claims {
        let Ok(test) = claim.test() else { continue }; // rejected at load
                                                       // Every node the claim cites (each of a table's, unless it names one): a claim
                                                       // that fails on one of them is refused, saying on which.
        let records = entry.meta.claim_records(claim);
        let several = records.len() > 1;
        for (exp, node) in records {
            let on = |s: String| {
                if several {
                    format!("on {node}: {s}")
                } else {
                    s
                }
            };
            // The experiment's metrics read against a roof, for share and bound claims.
            let roofed = match citations.get(&(exp.clone(), node.clone())) {
                Some(Ok(c)) => c.experiment.roofed(),
                _ => Vec::new(),
            };
            let roofing =
                project
                    .config
                    .nodes
                    .get(&node)
                    .map(|n| crate::measure::claims::Roofing {
                        metrics: &roofed,
                        node: n,
                    });
            match citations.get(&(exp.clone(), node.clone())) {
                Some(Ok(c)) => match check_claim_roofed(
                    &test,
                    &claim.column,
                    &c.record,
                    &c.history,
                    roofing.as_ref(),
                ) {
                    Ok(supported) => {
                        let band = c.experiment.spec.timing.tolerance();
                        let fragile_why = supported.fragile(band);
                        let mut notes = supported.notes;
                        if let Some(why) = fragile_why {
                            match &claim.fragile_ok {
                                // Said why: published, and the warning keeps saying it.
                                Some(reason) => notes.push(format!(
                                    "is fragile, accepted by the entry ({reason}): {why}"
                                )),
                                None => fragile.push((claim.says.clone(), on(why))),
                            }
                        }
                        for n in notes {
                            let n = if n.starts_with(LEGACY_NOTE) {
                                on(n)
                            } else {
                                on(format!("claim \"{}\": {n}", claim.says))
                            };
                            if !claim_notes.contains(&n) {
                                claim_notes.push(n);
                            }
                        }
                    }
                    Err(numbers) => unsupported.push((claim.says.clone(), on(numbers))),
                },
                _ => unsupported.push((
                    claim.says.clone(),
                    format!("its record {exp}/{node} is not usable"),
                )),
            }
        }
    }

    let last_checked = last_checked(entry, &resolved);
    let cells = shown_cells(
        project,
        entry,
        &Page {
            shown: &shown,
            exports: &exports,
            last_checked,
        },
    );
    let (digest, material, cells) = match keep {
        Keep::Digest => (signed_digest(entry, &cells), None, Some(cells)),
        Keep::Material => {
            let m = signed_material(entry, cells);
            (m.digest.clone(), Some(Box::new(m)), None)
        }
    };
    let mut verdict = decide(Facts {
        entry: &entry.id,
        signoff: project.signoffs.get(&entry.id),
        people: &project.people,
        digest: &digest,
        stale: &stale,
        unsupported: &unsupported,
        fragile: &fragile,
        checked,
    });
    // A withdrawn sign-off names what changed (the gate compares digests only).
    let changed = |r: &Refusal| matches!(r, Refusal::Changed { .. });
    if let Some(cells) = cells
        .as_ref()
        .or(material.as_ref().map(|m| &m.text.cells))
        .filter(|_| verdict.refusals.iter().any(changed))
    {
        explain_changes(
            &mut verdict,
            project.signoffs.get(&entry.id),
            &project.layout.reviews(),
            entry,
            cells,
        );
    }

    let max_age = project.config.review.source_max_age_days;
    let warnings = entry
        .meta
        .sources
        .iter()
        .filter(|s| (today - s.checked).num_days() > max_age)
        .map(|s| {
            format!(
                "source \"{}\" was last checked on {} ({} days ago; the limit is {max_age})",
                s.title,
                s.checked,
                (today - s.checked).num_days()
            )
        })
        .collect();

    Ok(Assessment {
        id: entry.id.clone(),
        verdict,
        digest,
        material,
        shown: Some(Box::new(shown)),
        body_calls: calls,
        last_checked,
        warnings,
        notes: claim_notes,
    })
}

/// The page's "Last checked on": the newest of its sources' checks and its records' captures.
fn last_checked(entry: &Entry, resolved: &Resolved) -> Option<NaiveDate> {
    let record_dates = resolved
        .values()
        .filter_map(|r| r.as_ref().ok())
        .map(|r| r.captured_at.date_naive());
    entry
        .meta
        .sources
        .iter()
        .map(|s| s.checked)
        .chain(record_dates)
        .max()
}

/// A source cannot have been checked after today: a date in the future is a typo, and it
/// would keep the source from ever counting as old (the age warnings below).
fn check_source_dates(entry: &Entry, today: NaiveDate) -> Result<()> {
    let errors = entry
        .meta
        .sources
        .iter()
        .enumerate()
        .filter(|(_, s)| s.checked > today)
        .map(|(i, s)| {
            let line = split_front_matter(&entry.path, &entry.raw)
                .ok()
                .and_then(|split| line_of_item_field(&split, "sources", i, "checked"));
            Error::content(
                &entry.path,
                line.map(|line| Location { line, column: 1 }),
                format!(
                    "source \"{}\": `checked: {}` is after today ({today})",
                    s.title, s.checked
                ),
            )
        })
        .collect();
    Error::collect(errors)
}

/// What [`shown_cells`] reads of a page besides the entry.
struct Page<'a> {
    shown: &'a Shown,
    /// The Nsight Compute exports its body read: (name, digest).
    exports: &'a [(String, String)],
    last_checked: Option<NaiveDate>,
}

/// What the page shows besides the entry file: every table cell, each table's provenance
/// (GPU, driver, CUDA versions, options, capture time) and notes, the body with its calls
/// expanded (when it has any) and the digest of each Nsight Compute export it read, every
/// figure file it shows (each variant, by its place below `content/`, as `sha256:`), the
/// diagram's preset and drawing, and the "last checked" date. Signatures cover these, so a
/// re-measured, re-modelled or re-drawn thing the reader sees withdraws them, and
/// `review diff` names each.
fn shown_cells(project: &Project, entry: &Entry, page: &Page<'_>) -> BTreeMap<String, String> {
    use std::fmt::Write;
    let (tables, expanded_body) = (&page.shown.tables, &page.shown.markdown);
    let mut cells = BTreeMap::new();
    for (i, (t, view)) in entry.meta.measured.iter().zip(tables).enumerate() {
        // "table 1 (exp/node) row " once per table, then the row's "label, column " and
        // the cell's "2 heading" appended in place: a `format!` per cell was 1% of a build.
        let mut key = String::new();
        let _ = write!(key, "table {} ({}/{}) ", i + 1, view.experiment, view.node);
        let table_part = key.len();
        // The paragraph under the table: where its numbers came from, and its notes.
        for p in &view.provenance {
            key.truncate(table_part);
            let _ = write!(key, "provenance, node {}", p.node);
            cells.insert(key.clone(), p.text.clone());
        }
        for (n, note) in view.notes.iter().enumerate() {
            key.truncate(table_part);
            let _ = write!(key, "note {}", n + 1);
            cells.insert(key.clone(), note.clone());
        }
        key.truncate(table_part);
        key.push_str("row ");
        let table_part = key.len();
        for (r, row) in view.rows.iter().enumerate() {
            key.truncate(table_part);
            match t.rows.get(r) {
                Some(label) => key.push_str(label),
                None => {
                    let _ = write!(key, "{r}");
                }
            }
            key.push_str(", column ");
            let row_part = key.len();
            for (j, (heading, cell)) in view.headings.iter().zip(row).enumerate() {
                // Side-by-side tables repeat a heading per node: the column number keeps
                // each cell's name unique.
                key.truncate(row_part);
                let _ = write!(key, "{} ", j + 1);
                key.push_str(heading);
                cells.insert(key.clone(), cell.clone());
            }
        }
    }
    if *expanded_body != entry.body {
        cells.insert("body as shown".into(), expanded_body.to_string());
    }
    for (name, digest) in page.exports {
        cells.insert(format!("ncu export measurements/{name}"), digest.clone());
    }
    cells.extend(figure_cells(project, entry, expanded_body));
    if let Some(d) = &entry.meta.diagram {
        if let Some(preset) = project.diagrams.get(d) {
            cells.insert(
                format!("diagram preset {}/{}", d.kind, d.preset),
                format!("{preset:#?}"),
            );
        }
    }
    if let Some(html) = page.shown.diagram.as_deref() {
        cells.insert("diagram".into(), html.to_string());
    }
    if let Some(date) = page.last_checked {
        cells.insert("last checked on".into(), date.to_string());
    }
    cells
}

/// `figure terms/fig.svg` = `sha256:...` for every file the renderer will copy for the
/// body's images: found by the renderer's own rule ([`Figures::resolve`], the figure and
/// each variant it picks up, such as `fig.dark.svg`), hashed from the file's bytes (a
/// symlink's target's). A reference the renderer refuses has no cell: the build stops at
/// its error.
fn figure_cells(project: &Project, entry: &Entry, body: &str) -> BTreeMap<String, String> {
    let figures = Figures {
        layout: &project.layout,
        allow: &project.config.content,
    };
    let mut cells = BTreeMap::new();
    for dest in referenced(body) {
        let Ok(image) = figures.resolve(&entry.path, &dest) else {
            continue;
        };
        for (source, site_path) in image.copies() {
            let name = site_path.strip_prefix("media/").unwrap_or(&site_path);
            cells
                .entry(format!("figure {name}"))
                .or_insert_with(|| file_digest(&source));
        }
    }
    cells
}

/// `sha256:` of a file's bytes, read in pieces (a figure may be large); what went wrong
/// when it cannot be read (the copy into the site then fails with the same error).
fn file_digest(path: &std::path::Path) -> String {
    use sha2::Digest as _;
    let mut hasher = sha2::Sha256::new();
    match std::fs::File::open(path).and_then(|mut f| std::io::copy(&mut f, &mut hasher)) {
        Ok(_) => format!("sha256:{}", hex::encode(hasher.finalize())),
        Err(e) => format!("unreadable: {e}"),
    }
}

/// What an entry's page shows besides its file ([`page_content`]'s [`Shown`]): what a build
/// makes again for each page after letting it go. `calls`: where the body's calls start,
/// kept from the entry's assessment ([`Assessment::body_calls`]) for this same text.
pub fn page_shown(project: &Project, entry: &Entry, calls: Option<&[u32]>) -> Result<Shown> {
    Ok(page_content_with(project, entry, calls)?.shown)
}

/// What [`page_content`] makes: the page's [`Shown`], with what assessing needs besides.
pub(crate) struct Made<'p> {
    pub shown: Shown,
    /// Where the body's value calls start, for [`Assessment::body_calls`].
    calls: Box<[u32]>,
    /// Records that cannot be cited, and numbers asked of them that they lack.
    pub stale: Vec<(String, String)>,
    citations: HashMap<(String, String), std::result::Result<Citation<'p>, Staleness>>,
    resolved: Resolved,
    /// The Nsight Compute exports the body read: (name, digest).
    exports: Vec<(String, String)>,
}

/// What an entry's page shows besides its file: the cited records resolved, the measured
/// tables, the body with its numbers expanded, the diagram drawn. The same for the same
/// file and records, so a build that lets it go after assessing makes it again per page.
pub(crate) fn page_content<'p>(project: &'p Project, entry: &Entry) -> Result<Made<'p>> {
    page_content_with(project, entry, None)
}

/// [`page_content`], with the body's calls already found (`calls`, their starts).
fn page_content_with<'p>(
    project: &'p Project,
    entry: &Entry,
    calls: Option<&[u32]>,
) -> Result<Made<'p>> {
    let library = &project.library;
    let mut stale: Vec<(String, String)> = Vec::new();
    let mut resolved: Resolved = HashMap::new();
    let mut citations = HashMap::new();
    for (exp, node) in cited_records(entry) {
        let c = library.cite(&project.config, &exp, &node);
        resolved.insert(
            (exp.clone(), node.clone()),
            c.as_ref().map(|c| c.record.clone()).map_err(Clone::clone),
        );
        if let Err(why) = &c {
            stale.push((format!("{exp}/{node}"), why.to_string()));
        }
        citations.insert((exp, node), c);
    }

    let mut tables = Vec::new();
    for t in &entry.meta.measured {
        let per_node: Vec<_> = t
            .nodes()
            .iter()
            .filter_map(|n| {
                let c = citations.get(&(t.experiment.clone(), n.clone()))?;
                Some((n.as_str(), c.as_ref()))
            })
            .collect();
        if per_node.is_empty() {
            continue;
        }
        let (mut view, problems) = side_by_side(t, &per_node);
        view.label_contributed(|node| {
            let id = project.config.nodes.get(node)?.contributed_by.as_deref()?;
            Some(project.people.get(id)?.name.clone())
        });
        view.name_pending_gpus(|node| Some(project.config.nodes.get(node)?.gpu.clone()));
        // A stale record is reported once, above; row problems of a current record here.
        for (node, p) in problems {
            if citations
                .get(&(t.experiment.clone(), node.clone()))
                .is_some_and(|c| c.is_ok())
            {
                stale.push((format!("{}/{node}", t.experiment), p.to_string()));
            }
        }
        tables.push(view);
    }

    let body = expand_body(entry, &resolved, &project.layout.measurements(), calls);
    let diagram = entry
        .meta
        .diagram
        .as_ref()
        .map(|d| {
            crate::render::diagram::render(entry, d, &project.diagrams, &project.config, &resolved)
        })
        .transpose();
    // Both are the author's errors; report both rather than the first.
    let (body, diagram) = match (body, diagram) {
        (Ok(body), Ok(diagram)) => (body, diagram),
        (body, diagram) => {
            let mut errors = body.err().unwrap_or_default();
            errors.extend(diagram.err());
            return Err(Error::Many(errors));
        }
    };
    for (asked, why) in body.problems {
        stale.push((asked, why));
    }
    stale.dedup();

    Ok(Made {
        shown: Shown {
            markdown: body.markdown,
            tables,
            diagram,
        },
        calls: body.calls,
        stale,
        citations,
        resolved,
        exports: body.exports,
    })
}
