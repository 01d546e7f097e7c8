//! `glossary reproduce` without a GPU (`--dry-run`, as CI runs it): the bundle a build
//! writes, every check made on it before anything runs, the bad inputs each refused with
//! nothing written; and `records import --contributed` taking a reader's record in, its
//! column labelled with who measured it.

mod support;

use std::path::Path;

use support::*;

/// The binary run in `root` (reproduce takes no project root; its paths are the reader's),
/// remembering node keys under `root/.config`, never the machine's own.
fn run_in(root: &Path, args: &[&str]) -> std::process::Output {
    bin()
        .args(args)
        .current_dir(root)
        .env("XDG_CONFIG_HOME", root.join(".config"))
        .output()
        .expect("run glossary")
}

/// The fingerprint the built site's nodes.json lists for the fixture node: what a reader
/// passes to `--trust-key` for a downloaded bundle.
fn site_fingerprint(root: &Path) -> String {
    let list: serde_json::Value =
        serde_json::from_str(&read(root, "preview/nodes.json")).expect("nodes.json");
    list["nodes"][NODE]["fingerprint"]
        .as_str()
        .expect("the node is listed")
        .to_string()
}

fn built_site() -> tempfile::TempDir {
    let dir = valid_site();
    let out = run_in(dir.path(), &["build", "--drafts", "--out", "preview"]);
    assert!(out.status.success(), "{}", text(&out));
    dir
}

fn bundle_path(root: &Path) -> std::path::PathBuf {
    root.join(format!("preview/reproduce/{EXPERIMENT}/{NODE}.json"))
}

/// `reproduce --dry-run SOURCE` from `root`, with a contribution folder that must stay
/// unwritten on a dry run; a file is read trusting the built site's key for the node.
fn dry_run(root: &Path, source: &str, more: &[&str]) -> std::process::Output {
    let mut args = vec!["reproduce", source, "--dry-run", "--out", "contribution"];
    let trusted;
    if !source.contains("://") && !more.contains(&"--trust-key") {
        trusted = site_fingerprint(root);
        args.extend_from_slice(&["--trust-key", &trusted]);
    }
    args.extend_from_slice(more);
    run_in(root, &args)
}

#[test]
fn a_built_page_shows_the_command_and_its_bundle_checks_and_plans() {
    let dir = built_site();
    let root = dir.path();
    let page = read(root, "preview/terms/alpha/index.html");
    // The fixture's base_url is an example address (.test): the command names no host
    // (tests/build_site.rs has the real-address case).
    let command =
        format!("glossary reproduce &lt;this site&gt;/reproduce/{EXPERIMENT}/{NODE}.json");
    assert!(page.contains("Reproduce on your GPU"), "{page}");
    assert!(page.contains(&command), "{page}");
    let bundle = bundle_path(root);
    assert!(bundle.is_file());
    let out = dry_run(root, bundle.to_str().unwrap(), &[]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("digests match"), "{said}");
    assert!(
        said.contains(&format!(
            "record of node {NODE} (Test GPU) signed by key SHA256:"
        )),
        "{said}"
    );
    assert!(said.contains("2 configs planned"), "{said}");
    assert!(
        !root.join("contribution").exists(),
        "a dry run writes nothing"
    );
    // The bundle names the pages that cite it.
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&bundle).unwrap()).unwrap();
    assert_eq!(json["pages"][0]["entry"], "terms/alpha");
    assert_eq!(
        json["pages"][0]["url"],
        "https://glossary.test/terms/alpha/"
    );
}

/// Each damaged bundle is refused with its reason, and nothing is written.
#[test]
fn damaged_bundles_are_refused_naming_what_failed() {
    let dir = built_site();
    let root = dir.path();
    let good = std::fs::read_to_string(bundle_path(root)).unwrap();
    let json: serde_json::Value = serde_json::from_str(&good).unwrap();

    // One changed byte in a kernel.
    let at = good.find("__global__").unwrap();
    let mut changed = good.clone();
    changed.replace_range(at..at + 1, "-");
    // A record edited with its digest updated to match: only the signature catches it.
    let mut forged = json.clone();
    let edited = forged["record"]["text"]
        .as_str()
        .unwrap()
        .replace("\"580.0\"", "\"999.0\"");
    forged["record"]["sha256"] = format!(
        "sha256:{}",
        hex::encode(<sha2::Sha256 as sha2::Digest>::digest(edited.as_bytes()))
    )
    .into();
    forged["record"]["text"] = edited.into();
    // A file name that would climb out of the work folder.
    let mut climbing = json.clone();
    climbing["files"][1]["path"] = "../../evil.cu".into();
    let cases: Vec<(&str, String, &str)> = vec![
        ("changed", changed, "not the sha256:"),
        ("forged", forged.to_string(), "not signed by node"),
        (
            "truncated",
            good[..good.len() / 2].to_string(),
            "not a glossary experiment bundle",
        ),
        (
            "html",
            "<!doctype html><p>Not found</p>".into(),
            "not a glossary experiment bundle",
        ),
        (
            "future",
            good.replacen("\"bundle\":1", "\"bundle\":9", 1),
            "bundle format 9",
        ),
        ("climbing", climbing.to_string(), "is not allowed"),
    ];
    for (name, bytes, expected) in cases {
        let path = root.join(format!("{name}.json"));
        std::fs::write(&path, bytes).unwrap();
        let out = dry_run(root, path.to_str().unwrap(), &[]);
        let said = text(&out);
        assert!(!out.status.success(), "{name}: {said}");
        assert!(said.contains(expected), "{name}: {said}");
        assert!(
            !root.join("contribution").exists(),
            "{name}: nothing written"
        );
    }
}

#[test]
fn a_gpu_without_enough_memory_is_refused_before_anything_runs() {
    let dir = built_site();
    let root = dir.path();
    let bundle = bundle_path(root);
    let out = dry_run(root, bundle.to_str().unwrap(), &["--device-memory", "4096"]);
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(said.contains("more than the GPU's 4096 bytes"), "{said}");
    assert!(!root.join("contribution").exists());
}

#[test]
fn only_https_and_loopback_http_are_fetched() {
    let dir = built_site();
    for (url, expected) in [
        (
            "http://example.org/reproduce/x/y.json",
            "only read from this machine",
        ),
        ("file:///etc/passwd", "only https://"),
        ("ftp://example.org/x.json", "only https://"),
    ] {
        let out = dry_run(dir.path(), url, &[]);
        let said = text(&out);
        assert!(!out.status.success(), "{url}: {said}");
        assert!(said.contains(expected), "{url}: {said}");
    }
}

/// The command a page served by `glossary serve` prints, run as printed: it names the
/// server's own address (not glossary.toml's base_url), and the bundle it fetches from
/// loopback checks and plans as the file does; a URL that is not a bundle is refused.
#[test]
fn a_bundle_served_on_loopback_checks_and_plans() {
    use std::io::BufRead;
    let dir = valid_site();
    let root = dir.path();
    let mut child = bin()
        .args(["serve", "--drafts", "--port", "0", "--root"])
        .arg(root)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start serve");
    let stdout = child.stdout.take().unwrap();
    let mut lines = std::io::BufReader::new(stdout).lines();
    let addr = loop {
        let line = lines.next().expect("serve printed its address").unwrap();
        if let Some(rest) = line.split("at http://").nth(1) {
            break rest.split('/').next().unwrap().to_string();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    let page = http_get(&addr, "/terms/alpha/");
    let command = page
        .split("glossary reproduce ")
        .nth(1)
        .and_then(|rest| rest.split('<').next())
        .unwrap_or_else(|| panic!("no reproduce command on the served page: {page}"));
    let url = format!("http://{addr}/reproduce/{EXPERIMENT}/{NODE}.json");
    assert_eq!(command, url, "the served page names the server");
    let out = dry_run(root, command, &[]);
    let missing = dry_run(root, &format!("http://{addr}/terms/alpha/"), &[]);
    let _ = child.kill();
    let _ = child.wait();
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("digests match") && said.contains("2 configs planned"),
        "{said}"
    );
    // The node's key is the one the served site's nodes.json lists, remembered now.
    assert!(
        said.contains(&format!(
            "(the node's current key), trusted as the keys http://{addr}/nodes.json lists, remembered now (first use)"
        )),
        "{said}"
    );
    let said = text(&missing);
    assert!(!missing.status.success());
    assert!(said.contains("not a glossary experiment bundle"), "{said}");
}

/// The body of `path` from the server at `addr` (HTTP/1.0: the server closes after it).
fn http_get(addr: &str, path: &str) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).expect("connect");
    write!(s, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").expect("send");
    let mut text = String::new();
    s.read_to_string(&mut text).expect("read");
    text
}

/// A reader's record, signed with their key, from a contributed node profile.
fn contributed_site(person_key: &str) -> tempfile::TempDir {
    let dir = valid_site();
    let root = dir.path();
    // The reader registered as a person, and the maintainer's profile for their GPU.
    write(
        root,
        "content/people.toml",
        &keys::people_toml(&[
            ("author-a", "author-a"),
            ("reviewer-b", "reviewer-b"),
            ("reader-c", "Reader C"),
        ]),
    );
    let config = read(root, "glossary.toml");
    write(
        root,
        "glossary.toml",
        &format!(
            "{config}\n[nodes.contributed-reader-gpu]\ngpu = \"Reader GPU\"\ncompute_capability = \"9.0\"\narch = \"sm_90\"\nsm_count = 4\ncontributed_by = \"reader-c\"\npublic_key = \"{}\"\n",
            keys::key(person_key).public
        ),
    );
    // What `glossary reproduce` writes: the record, signed with the reader's key.
    let exp =
        glossary::measure::Experiment::load(&root.join("measurements").join(EXPERIMENT)).unwrap();
    let record = fixture_record(
        &exp,
        "contributed-reader-gpu",
        "Reader GPU",
        4,
        vec![
            fixture_config("full", 4, 0, 2.0, 600.0),
            fixture_config("half", 2, 80 * 1024, 3.0, 400.0),
        ],
    );
    let path = root.join("contribution/contributed-reader-gpu.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    record.write_atomic(&path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    glossary::trust::node::write_signed(&path, &bytes, &keys::signer("reader-c")).unwrap();
    dir
}

#[test]
fn a_contribution_is_imported_and_its_column_says_who_measured_it() {
    let dir = contributed_site("reader-c");
    let root = dir.path();
    let out = run_in(
        root,
        &[
            "records",
            "import",
            "--contributed",
            "contribution/contributed-reader-gpu.json",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(root
        .join(format!(
            "measurements/{EXPERIMENT}/records/contributed-reader-gpu.json"
        ))
        .is_file());
    // A page citing both nodes side by side labels the contributed one.
    let alpha = read(root, "content/terms/alpha.md").replace(
        &format!("    node: {NODE}\n    rows"),
        &format!("    nodes: [{NODE}, contributed-reader-gpu]\n    rows"),
    );
    write(root, "content/terms/alpha.md", &alpha);
    let out = run_in(root, &["build", "--drafts", "--out", "preview"]);
    assert!(out.status.success(), "{}", text(&out));
    let page = read(root, "preview/terms/alpha/index.html");
    assert!(page.contains("measured by Reader C's Reader GPU"), "{page}");
    assert!(page.contains(&format!(
        "reproduce/{EXPERIMENT}/contributed-reader-gpu.json"
    )));
}

#[test]
fn a_contribution_signed_with_a_key_that_is_not_its_contributors_is_refused() {
    // The profile's key is author-a's, not reader-c's.
    let dir = contributed_site("author-a");
    let out = run_in(
        dir.path(),
        &[
            "records",
            "import",
            "--contributed",
            "contribution/contributed-reader-gpu.json",
        ],
    );
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(said.contains("is not one of `reader-c`'s keys"), "{said}");
    // And a build refuses the profile itself, at glossary.toml.
    let out = run_in(dir.path(), &["build", "--drafts", "--out", "preview"]);
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("glossary.toml") && said.contains("not one of `reader-c`'s keys"),
        "{said}"
    );
}

#[test]
fn a_node_record_is_not_taken_as_a_contribution() {
    let dir = built_site();
    let root = dir.path();
    let record = root.join(format!("measurements/{EXPERIMENT}/records/{NODE}.json"));
    std::fs::create_dir_all(root.join("incoming")).unwrap();
    std::fs::copy(&record, root.join(format!("incoming/{NODE}.json"))).unwrap();
    std::fs::copy(
        glossary::trust::node::signature_path(&record),
        root.join(format!("incoming/{NODE}.json.sig")),
    )
    .unwrap();
    let out = run_in(
        root,
        &[
            "records",
            "import",
            "--check",
            "--contributed",
            &format!("incoming/{NODE}.json"),
        ],
    );
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(said.contains("is not a contributed node"), "{said}");
}

/// The bundle of `root`'s built site with its record edited (a number changed, the digest
/// updated) and re-signed with `mallory`'s key, which the bundle's own profile now names:
/// a bundle that vouches for itself.
fn self_vouching_bundle(root: &Path) -> String {
    let good = std::fs::read_to_string(bundle_path(root)).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&good).unwrap();
    let edited = json["record"]["text"]
        .as_str()
        .unwrap()
        .replace("\"580.0\"", "\"999.0\"");
    json["record"]["sha256"] = format!(
        "sha256:{}",
        hex::encode(<sha2::Sha256 as sha2::Digest>::digest(edited.as_bytes()))
    )
    .into();
    json["signature"] = keys::signer("mallory")
        .sign(glossary::trust::RECORD_NAMESPACE, edited.as_bytes())
        .unwrap()
        .into();
    json["record"]["text"] = edited.into();
    json["profile"]["public_key"] = keys::key("mallory").public.into();
    json.to_string()
}

/// A loopback HTTP server answering GET with the bytes `files` holds for the path (404
/// otherwise); what it serves can be changed while it runs.
fn serve_files(
    files: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, Vec<u8>>>>,
) -> String {
    use std::io::{BufRead, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = std::io::BufReader::new(&stream);
            let mut first = String::new();
            if reader.read_line(&mut first).is_err() {
                continue;
            }
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
            }
            let path = first.split(' ').nth(1).unwrap_or("/").to_string();
            let body = files.lock().unwrap().get(&path).cloned();
            let mut out = &stream;
            let _ = match body {
                Some(b) => write!(
                    out,
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    b.len()
                )
                .and_then(|()| out.write_all(&b)),
                None => write!(
                    out,
                    "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                ),
            };
        }
    });
    addr
}

/// Issue 37: a bundle re-signed with an attacker's key, placed in its own profile, was
/// accepted ("digests match; record of node ... signed by <attacker key>"). The key is now
/// trusted only as the site lists it or as the reader names it: from a file with the
/// site's fingerprint, from a file with no key, from a URL whose site lists the real key,
/// and from a URL whose site changed its list after the reader's first use, it is refused,
/// the fingerprint named each time, nothing written.
#[test]
fn a_bundle_that_vouches_for_itself_is_refused() {
    let dir = built_site();
    let root = dir.path();
    let forged = root.join("forged.json");
    std::fs::write(&forged, self_vouching_bundle(root)).unwrap();
    let mallory = {
        let k = glossary::trust::sshsig::parse_public_key(&keys::key("mallory").public).unwrap();
        glossary::trust::sshsig::fingerprint(&k)
    };
    let site_fp = site_fingerprint(root);

    let out = dry_run(root, forged.to_str().unwrap(), &[]);
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains(&format!(
            "signed by key {mallory}, which is none of the keys you trust (--trust-key {site_fp})"
        )),
        "{said}"
    );
    let out = dry_run(root, forged.to_str().unwrap(), &["--trust-key", "none"]);
    assert!(!out.status.success());
    let out = run_in(root, &["reproduce", forged.to_str().unwrap(), "--dry-run"]);
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("is a file") && said.contains("pass --trust-key"),
        "{said}"
    );

    // Served: the real site's node list beside the forged bundle.
    let bundle_url_path = format!("/reproduce/{EXPERIMENT}/{NODE}.json");
    let files = std::sync::Arc::new(std::sync::Mutex::new(std::collections::HashMap::from([
        (
            "/nodes.json".to_string(),
            std::fs::read(root.join("preview/nodes.json")).unwrap(),
        ),
        (
            bundle_url_path.clone(),
            std::fs::read(bundle_path(root)).unwrap(),
        ),
    ])));
    let addr = serve_files(files.clone());
    let url = format!("http://{addr}{bundle_url_path}");
    // First use: the real bundle, its key remembered.
    let out = dry_run(root, &url, &[]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains(&format!("signed by key {site_fp} (the node's current key), trusted as the keys http://{addr}/nodes.json lists, remembered now (first use)")), "{said}");
    // The forged bundle, the site's list untouched.
    files
        .lock()
        .unwrap()
        .insert(bundle_url_path.clone(), std::fs::read(&forged).unwrap());
    let out = dry_run(root, &url, &[]);
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains(&format!(
            "signed by key {mallory}, which http://{addr}/nodes.json lists neither as node {NODE}'s key ({site_fp}) nor as one of its previous keys"
        )),
        "{said}"
    );
    // The attacker also controls the list: the remembered key refuses it, loudly.
    let list = format!(
        "{{\"nodes\":{{\"{NODE}\":{{\"public_key\":\"{}\",\"fingerprint\":\"{mallory}\"}}}}}}",
        keys::key("mallory").public
    );
    files
        .lock()
        .unwrap()
        .insert("/nodes.json".into(), list.into_bytes());
    let out = dry_run(root, &url, &[]);
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains(&format!(
            "THE KEYS OF NODE {NODE} AT http://{addr} HAVE CHANGED"
        )),
        "{said}"
    );
    assert!(said.contains(&site_fp) && said.contains(&mallory), "{said}");
    assert!(!root.join("contribution").exists());
}

/// A bundle whose experiment file nests a parameter 20,000 parentheses deep, with its
/// digest listed to match: refused with the reason, not a stack overflow (issue 37).
#[test]
fn a_bundle_with_a_deeply_nested_parameter_is_refused_not_a_stack_overflow() {
    let dir = built_site();
    let root = dir.path();
    let good = std::fs::read_to_string(bundle_path(root)).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&good).unwrap();
    assert_eq!(json["files"][0]["path"], "experiment.yaml");
    let deep = format!("{}1048576{}", "(".repeat(20_000), ")".repeat(20_000));
    let yaml = json["files"][0]["text"]
        .as_str()
        .unwrap()
        .replace("{n: 1048576,", &format!("{{n: \"{deep}\","));
    assert!(yaml.contains(&deep));
    json["files"][0]["sha256"] = format!(
        "sha256:{}",
        hex::encode(<sha2::Sha256 as sha2::Digest>::digest(yaml.as_bytes()))
    )
    .into();
    json["files"][0]["text"] = yaml.into();
    std::fs::write(root.join("deep.json"), json.to_string()).unwrap();
    let out = dry_run(root, "deep.json", &[]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("the expression nests too deep"), "{said}");
    assert!(!root.join("contribution").exists());
}

/// Every number under each row's `timing` multiplied by `factor`: the same rows, slower.
fn scale_timing(v: &mut serde_json::Value, factor: f64, inside: bool) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                scale_timing(x, factor, inside || k == "timing");
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(|x| scale_timing(x, factor, inside)),
        // Times are floats; counts (samples taken) stay as they are.
        serde_json::Value::Number(n) if inside && n.is_f64() => {
            if let Some(f) = n.as_f64() {
                *v = (f * factor).into();
            }
        }
        _ => {}
    }
}

/// The compare step of `reproduce` on a built bundle and a run the test makes from its own
/// record (no GPU: the run verify would write is stood in for by the record's bytes): on
/// the bundle's own model every row is judged (a run twice as slow is SLOWER); on another
/// model the rows are shown side by side as "another model: not judged", the run does not
/// count as differing for --strict, and the contribution's report names the model it ran on.
#[test]
fn on_another_model_the_rows_are_shown_side_by_side_and_not_judged() {
    use glossary::reproduce::{compare, contribution, same_model, Report, NOT_JUDGED};
    let dir = built_site();
    let root = dir.path();
    let bytes = std::fs::read(bundle_path(root)).unwrap();
    let work = tempfile::tempdir().unwrap();
    let checked = glossary::measure::bundle::Bundle::parse("bundle", &bytes)
        .unwrap()
        .check(work.path())
        .unwrap();
    let record_json = serde_json::to_value(&checked.record).unwrap();
    let run_on = |gpu: &str, factor: f64| -> (Report, glossary::measure::Record) {
        let mut rec = record_json.clone();
        scale_timing(&mut rec, factor, false);
        rec["gpu"]["name"] = gpu.into();
        rec["node"] = "contributed-x".into();
        let mine: glossary::measure::Record = serde_json::from_value(rec).unwrap();
        let mut local = checked.bundle.profile.clone();
        local.gpu = gpu.to_string();
        let report = Report {
            source: "bundle".into(),
            experiment: checked.bundle.experiment.clone(),
            node: checked.bundle.node.clone(),
            published_gpu: checked.bundle.profile.gpu.clone(),
            signed_by: String::new(),
            pinned: String::new(),
            files: 0,
            local_gpu: gpu.to_string(),
            planned_configs: 0,
            rows: compare::rows(&checked, &mine).unwrap(),
            same_gpu: same_model(&checked.bundle.profile, &local),
            claims: Vec::new(),
            contribution: Vec::new(),
        };
        (report, mine)
    };

    // The bundle's own model, twice as slow: judged, SLOWER, and it differs.
    // The bundle's own model, by name as its profile gives it.
    let own = checked.bundle.profile.gpu.clone();
    let (same, _) = run_on(&own, 2.0);
    assert!(same.same_gpu);
    assert!(!same.rows.is_empty());
    let table = same.rows_table(false);
    assert!(
        table.contains("SLOWER") && !table.contains(NOT_JUDGED),
        "{table}"
    );
    assert!(same.differs());
    // As fast: every row SAME.
    let (same, _) = run_on(&own, 1.0);
    assert!(
        same.rows.iter().all(|r| same.row_verdict(r) == "SAME"),
        "{}",
        same.rows_table(false)
    );
    assert!(!same.differs());

    // Another model, twice as slow: the same rows side by side, none judged.
    let (other, mine) = run_on("Fixture GPU Other", 2.0);
    assert!(!other.same_gpu);
    let table = other.rows_table(false);
    assert_eq!(
        table.matches(NOT_JUDGED).count(),
        other.rows.len(),
        "{table}"
    );
    assert!(
        !table.contains("SLOWER") && !table.contains("SAME"),
        "{table}"
    );
    assert!(
        table
            .lines()
            .next()
            .unwrap()
            .contains(&format!("{NODE} ms"))
            && table
                .lines()
                .next()
                .unwrap()
                .contains("Fixture GPU Other ms"),
        "{table}"
    );
    for r in &other.rows {
        let (old, new) = (r.old.unwrap().value, r.new.unwrap().value);
        assert!(
            (new / old - 2.0).abs() < 1e-6,
            "both numbers shown: {table}"
        );
    }
    assert!(
        !other.differs(),
        "another model's times never fail --strict"
    );
    let md = contribution::markdown(&checked, &mine, &other);
    assert!(
        md.contains("- Model: Fixture GPU Other (")
            && md.contains(&format!(
                "another model than the published node's {own}: rows side by side, {NOT_JUDGED}"
            ))
            && md.contains(&format!("| {NOT_JUDGED} |")),
        "{md}"
    );
}
