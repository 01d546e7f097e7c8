//! The contribution a reader sends back: the record verify wrote on their GPU, signed with
//! their key (the node signature's format, so `records import --contributed` checks it as
//! it checks any node's), and a Markdown report to paste into an issue or pull request.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::measure::bundle::Checked;
use crate::measure::Record;

use super::Report;

/// Write `<out>/<experiment>/<node>.json`, its `.sig`, and `report.md`; the paths written.
pub fn write(
    out: &Path,
    checked: &Checked,
    record: &Path,
    mine: &Record,
    report: &Report,
) -> anyhow::Result<Vec<PathBuf>> {
    let dir = out.join(&checked.bundle.experiment);
    std::fs::create_dir_all(&dir)?;
    let name = format!("{}.json", mine.node);
    let to = dir.join(&name);
    let bytes = std::fs::read(record)?;
    let sig = std::fs::read_to_string(crate::trust::node::signature_path(record))?;
    crate::trust::node::write_with_signature(&to, &bytes, &sig)?;
    let md = dir.join("report.md");
    crate::atomic::write_file(
        &md,
        markdown(checked, mine, report).as_bytes(),
        crate::atomic::Durability::Synced,
    )?;
    Ok(vec![
        to.clone(),
        crate::trust::node::signature_path(&to),
        md,
    ])
}

/// A table cell of text from the bundle: pipes escaped, control characters dropped, so a
/// claim cannot break the report's table or carry escapes into it.
fn cell(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control())
        .collect::<String>()
        .replace('|', "\\|")
}

/// The report: what was run, where, the row verdicts and the claims.
pub fn markdown(checked: &Checked, mine: &Record, report: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "## Reproduced `{}` on a {}\n",
        checked.bundle.experiment, mine.gpu.name
    );
    let _ = writeln!(
        s,
        "- Published: node `{}` ({}), bundle {}",
        checked.bundle.node, checked.bundle.profile.gpu, report.source
    );
    let _ = writeln!(
        s,
        "- This run: {} (driver {}, CUDA driver API {}, NVRTC {}), captured {}",
        mine.gpu.name,
        mine.gpu.driver_version,
        mine.gpu.cuda_driver_api,
        mine.gpu.nvrtc_version,
        mine.captured_at.format("%Y-%m-%d %H:%M UTC")
    );
    let _ = writeln!(
        s,
        "- Record: `{}.json`, signed with the contributor's SSH key\n",
        mine.node
    );
    let _ = writeln!(
        s,
        "- Model: {} ({}, cc {}){}\n",
        mine.gpu.name,
        mine.gpu.uuid,
        mine.gpu.compute_capability,
        match report.same_gpu {
            true => " — the published node's model: every row judged".to_string(),
            false => format!(
                " — another model than the published node's {}: rows side by side, {}; claims judged",
                checked.bundle.profile.gpu,
                super::NOT_JUDGED
            ),
        }
    );
    s.push_str(&report.rows_table(true));
    if !report.claims.is_empty() {
        let _ = writeln!(s, "\n| page | claim | verdict |\n|---|---|---|");
        for c in &report.claims {
            let _ = writeln!(
                s,
                "| {} | {} | {}: {} |",
                cell(&c.entry),
                cell(&c.says),
                c.verdict,
                cell(&c.detail)
            );
        }
    }
    let _ = writeln!(
        s,
        "\nTo take it in, a maintainer adds a node profile for this GPU with `contributed_by` naming the contributor and their key, then runs `glossary records import --contributed {}.json`.",
        mine.node
    );
    s
}
