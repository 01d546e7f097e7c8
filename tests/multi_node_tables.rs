//! Measured tables that cite several nodes (`nodes: [node-a, node-b]`): the same rows with
//! a column group per node, a chart comparing them, provenance per node, claims and
//! `value()` that name a node, and a cited node without a current record refusing the
//! entry as a stale one does. Two and three role-named test nodes, built as a user builds.

mod support;
use support::fleet as fleet_fixture;

use std::path::Path;

use fleet_fixture::*;
use support::text;

const AT: &str = "2026-11-30T12:00:00Z";

/// Multiply every `gbps` number in a record by `factor`: node-b's test GPU is slower, so a
/// value read from the wrong node shows.
fn scale_gbps(v: &mut serde_json::Value, factor: f64) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if k == "gbps" {
                    // A bare number, or a recorded quantity {value, unit, ...}.
                    let n = if x.is_object() {
                        &mut x["value"]
                    } else {
                        &mut *x
                    };
                    if let Some(v) = n.as_f64() {
                        *n = (v * factor).into();
                    }
                } else {
                    scale_gbps(x, factor);
                }
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(|x| scale_gbps(x, factor)),
        _ => {}
    }
}

fn site(nodes_with_records: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fleet_project(root);
    copy_dir(&repo().join("templates"), &root.join("templates"));
    for node in nodes_with_records {
        install_record(root, "day45-occupancy", node, AT);
    }
    if nodes_with_records.contains(&"node-b") {
        let path = root.join("measurements/day45-occupancy/records/node-b.json");
        let mut rec: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        scale_gbps(&mut rec, 0.5);
        // Signed by node-b's (throwaway) key, as verify on that node would have.
        write_signed(&path, &serde_json::to_vec_pretty(&rec).unwrap(), "node-b");
    }
    dir
}

fn term(root: &Path, nodes: &str, body: &str, claims: &str) {
    let text = format!(
        "---\ntitle: What is occupancy?\nname: occupancy\nsummary: Resident warps over the most an SM holds.\nmeasured:\n  - experiment: day45-occupancy\n    nodes: {nodes}\n    rows: [tlp1, tlp1-b1]\n    columns: [label, occupancy, gbps]\n    caption: Two rows on each node.\n{claims}---\n{body}\n"
    );
    let p = root.join("content/terms/occupancy.md");
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn page(root: &Path) -> String {
    // A drafts preview is written to site-drafts/.
    std::fs::read_to_string(root.join("site-drafts/terms/occupancy/index.html")).unwrap()
}

/// The number a record holds for (row, gbps), formatted as tables show it.
fn gbps(root: &Path, node: &str, row: &str) -> f64 {
    let lib = glossary::measure::Library::load(&root.join("measurements")).unwrap();
    let rec = lib.record("day45-occupancy", node).unwrap();
    rec.config(row)
        .unwrap()
        .column("gbps")
        .unwrap()
        .as_f64()
        .unwrap()
}

#[test]
fn two_nodes_side_by_side_with_groups_chart_provenance_and_node_named_values() {
    let s = site(&["node-a", "node-b"]);
    let root = s.path();
    term(
        root,
        "[node-a, node-b]",
        "On node-b the full kernel moved {{ value(row=\"tlp1\", column=\"gbps\", node=\"node-b\") }} GB/s, on node-a {{ value(row=\"tlp1\", column=\"gbps\") }}.",
        "claims:\n  - says: node-b moves under 60% of what node-a moves at full occupancy\n    column: gbps\n    node: node-b\n    row: tlp1\n    below: 0\n",
    );
    // The claim is deliberately false on node-b (any GB/s is above 0): it must be checked
    // against node-b's record, and refused with node-b's number.
    let out = glossary(root, &["check"]);
    let said = text(&out);
    let b = gbps(root, "node-b", "tlp1");
    let a = gbps(root, "node-a", "tlp1");
    assert!(
        (a / b - 2.0).abs() < 1e-9,
        "fixture: node-b at half of node-a"
    );
    assert!(
        said.contains(&format!("gbps: tlp1 = {b:.4} [")) && said.contains("not below 0"),
        "the claim was not read from node-b:\n{said}"
    );
    assert!(!said.contains("stale"), "{said}");

    // With a true claim the entry is only missing its signatures; a draft build shows it.
    term(
        root,
        "[node-a, node-b]",
        "On node-b the full kernel moved {{ value(row=\"tlp1\", column=\"gbps\", node=\"node-b\") }} GB/s, on node-a {{ value(row=\"tlp1\", column=\"gbps\") }}.",
        "claims:\n  - says: node-b keeps above 40% of node-a's bandwidth\n    column: gbps\n    node: node-b\n    row: tlp1\n    above: 1\n",
    );
    let out = glossary(root, &["build", "--drafts"]);
    assert!(out.status.success(), "{}", text(&out));
    let html = page(root);
    assert!(
        html.contains(&format!(
            "On node-b the full kernel moved {b:.1} GB/s, on node-a {a:.1}."
        )),
        "{html}"
    );
    // One group header per node, naming its GPU, over the measured columns that differ;
    // occupancy, the same on both nodes row for row (the driver's figure for the same
    // launch), is shown once beside the label, and a note says why.
    assert!(
        html.contains(r#"<th scope="col" rowspan="2">label</th><th scope="col" rowspan="2" class="num">occupancy (%)</th>"#),
        "{html}"
    );
    assert!(
        html.contains("Columns outside the node groups read the same on every node"),
        "{html}"
    );
    for (node, gpu) in [("node-a", "Fixture GPU A"), ("node-b", "Fixture GPU B")] {
        assert!(
            html.contains(&format!(
                r#"<th scope="colgroup" colspan="1" class="node-group">{node} <span class="node-gpu">({gpu})</span></th>"#
            )),
            "{html}"
        );
        // Provenance per node: GPU, driver, capture time.
        let item = html
            .split("<li>node <a href=\"../../nodes/index.html#")
            .find(|s| s.starts_with(&format!("{node}\"><code>{node}</code></a>")))
            .unwrap_or_else(|| panic!("no provenance for {node}:\n{html}"));
        assert!(
            item.contains(gpu)
                && item.contains("driver ")
                && item.contains("captured 2026-11-30 12:00 UTC"),
            "{item}"
        );
    }
    // The row carries the shared cells, then node-a's, then node-b's.
    let row = html
        .split("<tr>")
        .find(|r| r.contains(">tlp1</td>"))
        .expect("a tlp1 row");
    let cells: Vec<&str> = row
        .split("<td")
        .skip(1)
        .map(|c| c.split('>').nth(1).unwrap().split('<').next().unwrap())
        .collect();
    assert_eq!(cells.len(), 4, "{row}");
    // (A † marks a timing whose sampling hit its cap, as on one-node tables; the ± that
    // follows the value is its interval, read from the record.)
    let value = |cell: &str| {
        cell.trim_end_matches('†')
            .split(" ±")
            .next()
            .unwrap()
            .to_string()
    };
    assert_eq!(value(cells[2]), format!("{a:.1}"));
    assert_eq!(value(cells[3]), format!("{b:.1}"));
    assert!(
        html.contains("Bar chart comparing bandwidth (GB/s) on node-a, node-b: tlp1 · node-a"),
        "{html}"
    );
    // One bundle per node, each offered under the table and written beside the pages (the
    // fixture's base_url is a `.test` example host, so the command names `<this site>`).
    for node in ["node-a", "node-b"] {
        assert!(
            html.contains(&format!(
                "glossary reproduce &lt;this site&gt;/reproduce/day45-occupancy/{node}.json"
            )),
            "{html}"
        );
        assert!(root
            .join(format!("site-drafts/reproduce/day45-occupancy/{node}.json"))
            .is_file());
    }
}

#[test]
fn three_nodes_and_a_cited_node_without_a_record_refuses_the_entry() {
    let s = site(&["node-a", "node-b"]);
    let root = s.path();
    term(root, "[node-a, node-b, node-c]", "Body.", "");
    let out = glossary(root, &["check"]);
    let said = text(&out);
    assert!(
        said.contains("day45-occupancy/node-c") && said.contains("no record at"),
        "node-c has no record; the entry must be refused as stale:\n{said}"
    );

    // With node-c measured, three groups.
    install_record(root, "day45-occupancy", "node-c", AT);
    let out = glossary(root, &["check"]);
    assert!(!text(&out).contains("stale"), "{}", text(&out));
    let out = glossary(root, &["build", "--drafts"]);
    assert!(out.status.success(), "{}", text(&out));
    let html = page(root);
    assert_eq!(html.matches(r#"class="node-group""#).count(), 3, "{html}");
    assert_eq!(
        html.matches("<li>node <a href=\"../../nodes/index.html#")
            .count(),
        3,
        "{html}"
    );
    assert!(
        html.contains("Bar chart comparing bandwidth (GB/s) on node-a, node-b, node-c"),
        "{html}"
    );

    // node-c's record re-labelled from another GPU: stale again, naming the node.
    let path = root.join("measurements/day45-occupancy/records/node-c.json");
    let t = std::fs::read_to_string(&path)
        .unwrap()
        .replace("Fixture GPU C", "Fixture GPU A");
    // Edited by hand, it no longer carries node-c's signature.
    std::fs::write(&path, &t).unwrap();
    let said = text(&glossary(root, &["check"]));
    assert!(said.contains("record not signed by node node-c"), "{said}");
    // Signed by node-c's key but from another GPU (a misconfigured node): wrong node.
    write_signed(&path, t.as_bytes(), "node-c");
    let said = text(&glossary(root, &["check"]));
    assert!(
        said.contains("record is from the wrong node: expected node-c (Fixture GPU C, cc 9.0, 132 SMs, sm_90)"),
        "{said}"
    );
}

#[test]
fn a_table_with_both_node_and_nodes_or_a_repeated_node_is_an_error_naming_the_line() {
    let s = site(&["node-a"]);
    let root = s.path();
    term(root, "[node-a, node-a]", "Body.", "");
    let said = text(&glossary(root, &["check"]));
    assert!(
        said.contains("occupancy.md:")
            && said.contains("measured table `day45-occupancy` lists node `node-a` twice"),
        "{said}"
    );
    let p = root.join("content/terms/occupancy.md");
    let t = std::fs::read_to_string(&p).unwrap().replace(
        "    nodes: [node-a, node-a]\n",
        "    node: node-a\n    nodes: [node-a]\n",
    );
    std::fs::write(&p, t).unwrap();
    let said = text(&glossary(root, &["check"]));
    assert!(
        said.contains("gives both `node` and `nodes`: keep one"),
        "{said}"
    );
    let t = std::fs::read_to_string(&p).unwrap().replace(
        "    node: node-a\n    nodes: [node-a]\n",
        "    nodes: [node-z]\n",
    );
    std::fs::write(&p, t).unwrap();
    let said = text(&glossary(root, &["check"]));
    assert!(said.contains("unknown node `node-z`"), "{said}");
}

#[test]
fn a_cited_node_without_a_record_yet_shows_the_others_and_says_not_measured_under_its_gpu() {
    let s = site(&["node-a"]);
    let root = s.path();
    term(
        root,
        "[node-a, node-b]",
        "Body.",
        "claims:\n  - says: the full kernel moves data\n    column: gbps\n    row: tlp1\n    above: 0\n",
    );
    // `check` refuses the entry as stale, naming the node, as for any missing record.
    let said = text(&glossary(root, &["check"]));
    assert!(
        said.contains("day45-occupancy/node-b") && said.contains("no record at"),
        "{said}"
    );
    let out = glossary(root, &["build", "--drafts"]);
    assert!(out.status.success(), "{}", text(&out));
    let html = page(root);
    let a = gbps(root, "node-a", "tlp1");
    // node-a's rows and numbers show; the table is not marked stale as a whole.
    let row = html
        .split("<tr>")
        .find(|r| r.contains(">tlp1</td>"))
        .expect("a tlp1 row");
    assert!(row.contains(&format!("{a:.1}")), "{row}");
    assert!(!html.contains("<p class=\"stale\">"), "{html}");
    // node-b's group is headed by its GPU (from its profile: no record names it) and says
    // it is not measured yet; it has one column and no number.
    assert!(
        html.contains(r#"<th scope="colgroup" colspan="1" class="node-group">node-b <span class="node-gpu">(Fixture GPU B)</span></th>"#),
        "{html}"
    );
    assert!(
        html.contains(r#"<th scope="col" class="pending-group">not measured on node-b yet</th>"#),
        "{html}"
    );
    assert_eq!(
        row.matches("<td").count(),
        4,
        "label, node-a's two, node-b's one: {row}"
    );
    // The chart draws node-a's bars, and its legend names both nodes.
    assert!(html.contains("comparison-chart"), "{html}");
    assert!(
        html.contains("tlp1 · node-a") && !html.contains("tlp1 · node-b"),
        "{html}"
    );
    assert!(
        html.contains(r#"<text class="chart-legend-text chart-pending" x="18""#)
            && html.contains(">node-b (Fixture GPU B)</text>"),
        "{html}"
    );
    // No raw column id in the group, no Markdown backtick anywhere in the page (the
    // banner's "run `glossary verify`" is a code span).
    assert!(!html.contains('`'), "{html}");
    assert!(html.contains("<code>glossary verify</code>"), "{html}");
    // A node whose record is there but wrong (another GPU) still makes the table stale:
    // only a node not measured yet is shown as pending.
    install_record(root, "day45-occupancy", "node-b", AT);
    let path = root.join("measurements/day45-occupancy/records/node-b.json");
    let t = std::fs::read_to_string(&path)
        .unwrap()
        .replace("Fixture GPU B", "Fixture GPU A");
    write_signed(&path, t.as_bytes(), "node-b");
    let out = glossary(root, &["build", "--drafts"]);
    assert!(out.status.success(), "{}", text(&out));
    let html = page(root);
    assert!(html.contains("<p class=\"stale\">"), "{html}");
    assert!(!html.contains("not measured on node-b yet"), "{html}");
}

#[test]
fn a_claim_without_node_is_checked_on_every_node_of_the_table() {
    let s = site(&["node-a", "node-b"]);
    let root = s.path();
    // node-b moves half of node-a: a bound between them holds on node-a only.
    let a = gbps(root, "node-a", "tlp1");
    let bound = a * 0.75;
    term(
        root,
        "[node-a, node-b]",
        "Body.",
        &format!("claims:\n  - says: the full kernel moves over {bound:.0} GB/s\n    column: gbps\n    row: tlp1\n    above: {bound}\n"),
    );
    let said = text(&glossary(root, &["check"]));
    assert!(
        said.contains("the full kernel moves over") && said.contains("on node-b: "),
        "the claim must be refused on node-b, saying so:\n{said}"
    );
    assert!(!said.contains("on node-a: "), "{said}");
    // Said of node-a only, it holds.
    term(
        root,
        "[node-a, node-b]",
        "Body.",
        &format!("claims:\n  - says: on node-a the full kernel moves over {bound:.0} GB/s\n    column: gbps\n    node: node-a\n    row: tlp1\n    above: {bound}\n"),
    );
    let said = text(&glossary(root, &["check"]));
    assert!(
        !said.contains("not supported") && !said.contains("on node-b: "),
        "{said}"
    );
}

#[test]
fn a_ratio_across_nodes_reads_each_side_on_its_node() {
    let s = site(&["node-a", "node-b"]);
    let root = s.path();
    term(
        root,
        "[node-a, node-b]",
        "node-a moves {{ ratio(column=\"gbps\", of=\"tlp1\", to=\"tlp1\", of_node=\"node-a\", to_node=\"node-b\") }} times node-b's bandwidth; {{ ratio(column=\"gbps\", of=\"tlp1\", to=\"tlp1\", to_node=\"node-b\", decimals=3) }}.",
        "",
    );
    let out = glossary(root, &["build", "--drafts"]);
    assert!(out.status.success(), "{}", text(&out));
    let (a, b) = (gbps(root, "node-a", "tlp1"), gbps(root, "node-b", "tlp1"));
    let html = page(root);
    assert!(
        html.contains(&format!(
            "node-a moves {:.2} times node-b's bandwidth; {:.3}.",
            a / b,
            a / b
        )),
        "{html}"
    );
    // A node the entry does not cite is a problem that refuses it, naming the call.
    term(
        root,
        "[node-a, node-b]",
        "{{ ratio(column=\"gbps\", of=\"tlp1\", to=\"tlp1\", to_node=\"node-z\") }}",
        "",
    );
    let said = text(&glossary(root, &["check"]));
    assert!(
        said.contains("ratio(column=gbps, of=tlp1, to=tlp1@node-z)")
            && said.contains("day45-occupancy/node-z is not cited"),
        "{said}"
    );
}

#[test]
fn the_verification_nodes_page_says_what_each_node_is_and_the_home_page_names_the_models() {
    let s = site(&["node-a", "node-b"]);
    let root = s.path();
    term(root, "[node-a, node-b]", "Body.", "");
    let out = glossary(root, &["build", "--drafts"]);
    assert!(out.status.success(), "{}", text(&out));
    let nodes = std::fs::read_to_string(root.join("site-drafts/nodes/index.html")).unwrap();
    let lib = glossary::measure::Library::load(&root.join("measurements")).unwrap();
    let rec = lib.record("day45-occupancy", "node-a").unwrap();
    let section = |node: &str| -> String {
        let from = nodes
            .find(&format!("<section class=\"node\" id=\"{node}\""))
            .unwrap_or_else(|| panic!("no section for {node}:\n{nodes}"));
        let rest = &nodes[from..];
        rest[..rest.find("</section>").unwrap()].to_string()
    };
    let a = section("node-a");
    for fact in [
        "<dt>GPU</dt><dd>Fixture GPU A".to_string(),
        "<dt>Compute capability</dt><dd>9.0 (<code>sm_90</code>)</dd>".to_string(),
        "<dt>SMs</dt><dd>132</dd>".to_string(),
        format!("<dt>Drivers seen</dt><dd>{}</dd>", rec.gpu.driver_version),
        format!(
            "<dt>CUDA seen</dt><dd>driver API {}, NVRTC {}</dd>",
            rec.gpu.cuda_driver_api, rec.gpu.nvrtc_version
        ),
        "<dt>Runs</dt><dd>1 kept run on 1 GPU unit; a current record for 1 of 2 experiments</dd>".to_string(),
        "<code class=\"fingerprint\">SHA256:".to_string(),
        "<a href=\"../terms/occupancy/index.html\">What is occupancy?</a> <span class=\"draft-tag\">draft</span>".to_string(),
    ] {
        assert!(a.contains(&fact), "{fact}\n{a}");
    }
    // L2 as the record reports it (the fixture record is the H200's).
    if let Some(l2) = rec.gpu.l2_bytes {
        assert!(
            a.contains(&format!(
                "<dt>L2</dt><dd>{}</dd>",
                glossary::render::node_facts::bytes_text(l2)
            )),
            "{a}"
        );
    }
    // Memory as the record's device reports it, in GiB and in GB.
    let mem = rec.device["mem_bytes"] as f64;
    assert!(
        a.contains(&format!(
            "<dt>Memory</dt><dd>{:.1} GiB ({:.1} GB)</dd>",
            mem / (1u64 << 30) as f64,
            mem / 1e9
        )),
        "{a}"
    );
    // node-c: cited by nothing, measured never.
    let c = section("node-c");
    assert!(
        c.contains("not measured yet") && c.contains("no entry yet"),
        "{c}"
    );
    // Each table's provenance links to its node there; the home page names the models.
    let html = page(root);
    assert!(
        html.contains("<a href=\"../../nodes/index.html#node-b\"><code>node-b</code></a>"),
        "{html}"
    );
    let home = std::fs::read_to_string(root.join("site-drafts/index.html")).unwrap();
    assert!(
        home.contains("The measured numbers on this site come from Fixture GPU A (node-a) and Fixture GPU B (node-b): see the <a href=\"nodes/index.html\">verification nodes</a>."),
        "{home}"
    );
}

#[test]
fn a_two_node_line_chart_draws_a_line_per_node_and_a_named_bar_column_is_charted() {
    let s = site(&["node-a", "node-b"]);
    let root = s.path();
    let write = |chart: &str| {
        let text = format!(
            "---\ntitle: What is occupancy?\nname: occupancy\nsummary: Resident warps over the most an SM holds.\nmeasured:\n  - experiment: day45-occupancy\n    nodes: [node-a, node-b]\n    rows: [tlp1, tlp1-b2, tlp1-b1]\n    columns: [label, occupancy, gbps]\n    chart: {chart}\n---\nBody.\n"
        );
        std::fs::write(root.join("content/terms/occupancy.md"), text).unwrap();
    };
    std::fs::create_dir_all(root.join("content/terms")).unwrap();
    write("{x: occupancy, y: gbps}");
    let out = glossary(root, &["build", "--drafts"]);
    assert!(out.status.success(), "{}", text(&out));
    let html = page(root);
    assert!(
        html.contains("Line chart of bandwidth (GB/s) against occupancy (%) on node-a, node-b"),
        "{html}"
    );
    assert_eq!(
        html.matches("<polyline class=\"chart-line node-").count(),
        2,
        "{html}"
    );
    // `{y: occupancy}` alone: the bars chart occupancy, not the GB/s column.
    write("{y: occupancy}");
    let out = glossary(root, &["build", "--drafts"]);
    assert!(out.status.success(), "{}", text(&out));
    let html = page(root);
    assert!(
        html.contains("Bar chart comparing occupancy (%) on node-a, node-b"),
        "{html}"
    );
}
