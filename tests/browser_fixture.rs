//! Writes the signed fixture sites the browser tests (`tests/browser/`) serve. The
//! signatures must match the digests the build computes, so they are made here, with the
//! library, rather than by the JavaScript tests.

mod support;
use support::signed as common;

fn out_dir(var: &str) -> std::path::PathBuf {
    let Ok(out) = std::env::var(var) else {
        panic!("set {var} to the (empty) folder to write the fixture site into");
    };
    let out = std::path::PathBuf::from(out);
    std::fs::create_dir_all(&out).expect("create fixture folder");
    out
}

#[test]
#[ignore = "a fixture writer for tests/browser/run.sh, not a test"]
fn write_browser_fixture() {
    common::small_site(&out_dir("GLOSSARY_FIXTURE_OUT"));
}

/// The small site plus `tests/fixtures/sites/search` (an entry with the alias "SM" and a
/// summary with inline Markdown, and "SM clock"), every entry but the draft signed.
#[test]
#[ignore = "a fixture writer for tests/browser/run.sh, not a test"]
fn write_search_fixture() {
    let out = out_dir("GLOSSARY_SEARCH_FIXTURE_OUT");
    common::small_site(&out);
    common::copy_dir(
        &common::repo().join("tests/fixtures/sites/search/content"),
        &out.join("content"),
    );
    common::sign_entries(&out, &["terms/unsigned-draft"]);
}

/// `tests/fixtures/sites/imported`, every entry signed (see tests/imported_fixture.rs).
#[test]
#[ignore = "a fixture writer for tests/browser/run.sh, not a test"]
fn write_imported_fixture() {
    common::imported_site(&out_dir("GLOSSARY_IMPORTED_FIXTURE_OUT"));
}

/// A project of the fleet fixture's nodes with two measured tables side by side: one term
/// citing node-a and node-b (node-b's record at 60% of node-a's bandwidth, re-signed by
/// node-b), and one citing node-a and node-c, which has no record yet. Built with
/// `--drafts` by `tests/browser/tests/nodes.test.mjs`.
#[test]
#[ignore = "a fixture writer for tests/browser/run.sh, not a test"]
fn write_nodes_fixture() {
    use support::fleet::*;
    let root = out_dir("GLOSSARY_NODES_FIXTURE_OUT");
    fleet_project(&root);
    copy_dir(&support::repo().join("templates"), &root.join("templates"));
    let at = "2026-11-30T12:00:00Z";
    install_record(&root, "day45-occupancy", "node-a", at);
    let mut rec: serde_json::Value =
        serde_json::from_slice(&record_bytes(&root, "day45-occupancy", "node-b", at)).unwrap();
    scale(&mut rec, "gbps", 0.6);
    write_signed(
        &root.join("measurements/day45-occupancy/records/node-b.json"),
        &serde_json::to_vec_pretty(&rec).unwrap(),
        "node-b",
    );
    for (slug, title, nodes, chart) in [
        ("occupancy", "What is occupancy?", "[node-a, node-b]", ""),
        (
            "occupancy-pending",
            "Occupancy on a node not measured yet",
            "[node-a, node-c]",
            "",
        ),
        (
            "occupancy-lines",
            "Bandwidth against occupancy",
            "[node-a, node-b]",
            "    chart: {x: occupancy, y: gbps}\n",
        ),
    ] {
        let text = format!(
            "---\ntitle: {title}\nname: {slug}\nsummary: Resident warps over the most an SM holds.\nmeasured:\n  - experiment: day45-occupancy\n    nodes: {nodes}\n    rows: [tlp1, tlp1-b2, tlp1-b1, ilp4-b1]\n    columns: [label, occupancy, gbps]\n    caption: Four rows on each node.\n{chart}---\nBody.\n"
        );
        let p = root.join(format!("content/terms/{slug}.md"));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

/// Multiply every `key` number in a record (bare, or a quantity's `value`) by `factor`.
fn scale(v: &mut serde_json::Value, key: &str, factor: f64) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if k == key {
                    // A bare number, or a quantity whose value and interval bounds all scale.
                    scale_all(x, factor);
                } else {
                    scale(x, key, factor);
                }
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(|x| scale(x, key, factor)),
        _ => {}
    }
}

/// Every float in `v`, at any depth, multiplied by `factor`.
fn scale_all(v: &mut serde_json::Value, factor: f64) {
    match v {
        serde_json::Value::Object(m) => m.values_mut().for_each(|x| scale_all(x, factor)),
        serde_json::Value::Array(a) => a.iter_mut().for_each(|x| scale_all(x, factor)),
        n if n.is_f64() => *n = (n.as_f64().unwrap_or(0.0) * factor).into(),
        _ => {}
    }
}

/// Issue 53: the small site with a signed page in `static/` that loads, as scripts and a
/// stylesheet, a signed script, a signed script edited since, and inert files whose bytes
/// are also script (`notes.txt`, `CNAME`): only the signed, unedited one may run.
#[test]
#[ignore = "a fixture writer for tests/browser/run.sh, not a test"]
fn write_static_scripts_fixture() {
    let out = out_dir("GLOSSARY_STATIC_SCRIPTS_FIXTURE_OUT");
    common::small_site(&out);
    // The listeners are a signed script of their own, not inline: `serve`'s header policy
    // runs no inline script.
    let page = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>A signed page</title>\n\
<script src=\"/watch.js\"></script>\n<script src=\"/app.js\"></script>\n<script src=\"/late.js\"></script>\n\
<script src=\"/notes.txt\"></script>\n<script src=\"/CNAME\"></script>\n\
<link rel=\"stylesheet\" href=\"/notes.txt\">\n\
</head><body><p>A signed page.</p></body></html>\n";
    let watch = "window.ran = []; window.blocked = [];\n\
document.addEventListener('securitypolicyviolation', function (e) { window.blocked.push(e.blockedURI); });\n\
window.addEventListener('error', function (e) { if (e instanceof ErrorEvent) window.ran.push('error: ' + e.message); }, true);\n";
    let files = [
        ("page.html", page),
        ("watch.js", watch),
        ("app.js", "window.ran.push('app.js');\n"),
        ("late.js", "window.ran.push('late.js as signed');\n"),
    ];
    let people = glossary::trust::People::load(&out.join("content/people.toml")).unwrap();
    let reviews = out.join("content/reviews");
    let now = chrono::Utc::now();
    std::fs::create_dir_all(out.join("static")).unwrap();
    for (rel, text) in files {
        std::fs::write(out.join("static").join(rel), text).unwrap();
        for (role, person) in [
            (glossary::review::Role::Author, "author-a"),
            (glossary::review::Role::Reviewer, "reviewer-b"),
        ] {
            glossary::review::sign_static(
                &reviews,
                rel,
                text.as_bytes(),
                role,
                people.get(person).unwrap(),
                &support::keys::signer(person),
                now,
            )
            .unwrap();
        }
    }
    // Edited after both signed: the gate leaves it out.
    std::fs::write(
        out.join("static/late.js"),
        "window.ran.push('late.js edited, unsigned');\n",
    )
    .unwrap();
    // Inert by name and content, and script all the same: a ReferenceError and a
    // SyntaxError, were they run.
    std::fs::write(out.join("static/CNAME"), "glossary.test\n").unwrap();
    std::fs::write(out.join("static/notes.txt"), "glossary notes\n").unwrap();
}
