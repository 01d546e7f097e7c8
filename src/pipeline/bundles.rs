//! The experiment bundles a build writes beside the pages: one per (experiment, node)
//! that a rendered page's measured table cites, at `reproduce/<experiment>/<node>.json`,
//! with the claims each such page makes from it. A page's "Reproduce on your GPU" command
//! names its bundle (`templates/entry_macros.html`); `glossary reproduce` reads it, and
//! trusts its node's key only as the site's `nodes.json` (written here too) lists it.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

use crate::content::{Entry, FrontMatter, IdSet};
use crate::error::Result;
use crate::measure::bundle::{self, PageClaims};
use crate::render::OutputFile;

use super::project::Project;

/// Every bundle the pages in `pages` cite, in (experiment, node) order. A citation that
/// is stale gets no bundle: its table shows why instead.
pub fn site_bundles(project: &Project, pages: &IdSet) -> Result<Vec<OutputFile>> {
    let mut cited: BTreeMap<(String, String), Vec<PageClaims>> = BTreeMap::new();
    // Which (experiment, node) each page was listed under already: a set, since a site of
    // 10,000 entries citing one experiment would otherwise scan its list for each.
    let mut listed: HashSet<(String, String, String)> = HashSet::new();
    for entry in project
        .content
        .entries
        .iter()
        .filter(|e| pages.contains(&e.id))
    {
        let Some(meta) = citing_meta(entry) else {
            continue;
        };
        let meta = meta.as_ref();
        for table in &meta.measured {
            for node in table.nodes() {
                let key = (table.experiment.clone(), node.clone());
                let claims: Vec<_> = meta
                    .claims
                    .iter()
                    .filter(|c| meta.claim_records(c).contains(&key))
                    .cloned()
                    .collect();
                let id = entry.id.to_string();
                if listed.insert((key.0.clone(), key.1.clone(), id.clone())) {
                    cited.entry(key).or_default().push(PageClaims {
                        entry: id,
                        url: format!(
                            "{}/{}",
                            project.config.base_url.trim_end_matches('/'),
                            entry.id.url_path()
                        ),
                        claims,
                    });
                }
            }
        }
    }
    let mut files = Vec::new();
    for ((experiment, node), pages) in cited {
        if project
            .library
            .cite(&project.config, &experiment, &node)
            .is_err()
        {
            continue;
        }
        let (Some(exp), Ok(profile), Some((bytes, Some(signature)))) = (
            project.library.experiments.get(&experiment),
            project.config.node(&node),
            project.library.record_file(&experiment, &node),
        ) else {
            continue;
        };
        let contributed_by = profile
            .contributed_by
            .as_deref()
            .and_then(|id| project.people.get(id))
            .map(|p| p.name.clone());
        let made = bundle::make(exp, &node, profile, contributed_by, bytes, signature, pages)?;
        // Plain data: serializing it cannot fail.
        let bytes = serde_json::to_vec(&made).unwrap_or_default();
        files.push(OutputFile {
            path: PathBuf::from(bundle::site_path(&experiment, &node)),
            bytes,
        });
    }
    let nodes = crate::trust::node_list::node_list(&project.config);
    files.push(OutputFile {
        path: PathBuf::from(crate::trust::node_list::NODES_FILE),
        // Plain data: serializing it cannot fail.
        bytes: serde_json::to_vec_pretty(&nodes).unwrap_or_default(),
    });
    Ok(files)
}

/// The entry's front matter with its tables and claims, or None when it has no table. A
/// build that let the page-only part go ([`Entry::thin`]) has it packed.
fn citing_meta(entry: &Entry) -> Option<std::borrow::Cow<'_, FrontMatter>> {
    match &entry.thinned {
        None => {
            (!entry.meta.measured.is_empty()).then_some(std::borrow::Cow::Borrowed(&entry.meta))
        }
        Some(t) if !t.page_only.has_measured() => None,
        Some(t) => {
            let mut meta = entry.meta.clone();
            meta.unthin(&t.page_only).ok()?;
            (!meta.measured.is_empty()).then_some(std::borrow::Cow::Owned(meta))
        }
    }
}
