//! Issue 53, a node's key history: a retired key vouches for the records fixed at its
//! retirement and for nothing new (build, `records import`, `reproduce`), `rotate-key`
//! fixes them and refuses a retirement in the future, and `reproduce --trust-key` judges
//! a record by the key that signed it, naming that key. Through the binary, with keys
//! made by ssh-keygen. (The pin's own rules, per site and key history, are the unit
//! tests of `reproduce::pin`; the rule for one record, those of `trust::node`.)

mod support;

use std::path::Path;

use support::*;

/// The binary run in `root`, remembering node keys under `root/.config`.
fn run_in(root: &Path, args: &[&str]) -> std::process::Output {
    bin()
        .args(args)
        .current_dir(root)
        .env("XDG_CONFIG_HOME", root.join(".config"))
        .output()
        .expect("run glossary")
}

fn fingerprint(line: &str) -> String {
    glossary::trust::sshsig::fingerprint(&glossary::trust::sshsig::parse_public_key(line).unwrap())
}

const RETIRED: &str = "2026-11-03T00:00:00Z";

/// The valid site, its node's key rotated (retired at [`RETIRED`], the day after its one
/// record was captured), built with drafts into `preview/`.
fn rotated_site() -> tempfile::TempDir {
    let dir = valid_site();
    let root = dir.path();
    let new = keys::key("node-testnode-new");
    let out = run_in(
        root,
        &[
            "verify",
            "rotate-key",
            "--node",
            NODE,
            "--key",
            new.private.to_str().unwrap(),
            "--retired",
            RETIRED,
        ],
    );
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("vouching for the 1 records it signed"),
        "{said}"
    );
    let toml = read(root, "glossary.toml");
    let digest = glossary::trust::node::record_digest(
        &std::fs::read(root.join(format!("measurements/{EXPERIMENT}/records/{NODE}.json")))
            .unwrap(),
    );
    assert!(
        toml.contains(&format!("[[nodes.{NODE}.previous_keys]]")) && toml.contains(&digest),
        "{toml}"
    );
    let out = run_in(root, &["build", "--drafts", "--out", "preview"]);
    assert!(out.status.success(), "{}", text(&out));
    dir
}

/// The record bytes of `root`'s bundle, changed and signed now by the retired key, dated
/// (captured_at unchanged) before its retirement: what a leaked old key can make.
fn backdated(root: &Path) -> (String, String) {
    let bundle = read(root, &format!("preview/reproduce/{EXPERIMENT}/{NODE}.json"));
    let json: serde_json::Value = serde_json::from_str(&bundle).unwrap();
    let record = json["record"]["text"].as_str().unwrap().replace(
        "\"tool_version\": \"test\"",
        "\"tool_version\": \"backdated\"",
    );
    assert!(record.contains("backdated"), "{record}");
    let sig = keys::signer(&keys::node_key_name(NODE))
        .sign(glossary::trust::sshsig::RECORD_NAMESPACE, record.as_bytes())
        .unwrap();
    (record, sig)
}

/// Issue 53: every committed record of a site may be signed by a retired key. With the
/// site's nodes.json saved and passed to --trust-key, reproduce checks it and names the
/// retired key that signed it and when it was retired; trusting only the current key
/// refuses it naming the signer's key (not the current one); a record the retired key
/// signed after its retirement, dated before it, is refused by the fixed list.
#[test]
fn reproduce_judges_a_record_by_the_key_that_signed_it() {
    let dir = rotated_site();
    let root = dir.path();
    let old = fingerprint(&keys::key(&keys::node_key_name(NODE)).public);
    let new = fingerprint(&keys::key("node-testnode-new").public);
    let bundle = format!("preview/reproduce/{EXPERIMENT}/{NODE}.json");
    let dry = |source: &str, trust: &[&str]| {
        let mut args = vec!["reproduce", source, "--dry-run", "--out", "contribution"];
        for t in trust {
            args.extend_from_slice(&["--trust-key", t]);
        }
        run_in(root, &args)
    };
    let out = dry(&bundle, &["preview/nodes.json"]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains(&format!(
            "signed by key {old} (a previous key of the node, retired {RETIRED}; this record is one of the 1 it signed"
        )),
        "{said}"
    );
    assert!(
        said.contains("trusted as the node list you trust (--trust-key preview/nodes.json)"),
        "{said}"
    );
    // Several keys: the node's list as bare keys.
    let out = dry(&bundle, &[&new, &old]);
    assert!(out.status.success(), "{}", text(&out));
    let out = dry(&bundle, &[&new]);
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains(&format!(
            "signed by key {old}, which is none of the keys you trust (--trust-key {new})"
        )),
        "{said}"
    );

    let (record, sig) = backdated(root);
    let mut json: serde_json::Value = serde_json::from_str(&read(root, &bundle)).unwrap();
    json["record"]["sha256"] = glossary::measure::bundle::sha256(record.as_bytes()).into();
    json["record"]["text"] = record.into();
    json["signature"] = sig.into();
    // The bundle's own profile vouches for the forged record and moves the retirement
    // later: what the bundle says of the node's keys is never read.
    let digest =
        glossary::trust::node::record_digest(json["record"]["text"].as_str().unwrap().as_bytes());
    json["profile"]["previous_keys"][0]["records"] = serde_json::json!([digest]);
    json["profile"]["previous_keys"][0]["retired"] = "2999-01-01T00:00:00Z".into();
    write(root, "backdated.json", &json.to_string());
    let out = dry("backdated.json", &["preview/nodes.json"]);
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains(&format!(
            "its signature was made with key {old}, which node {NODE} retired on {RETIRED}"
        )) && said.contains("is not one of the 1 records that key signed before its retirement"),
        "{said}"
    );
    assert!(!root.join("contribution").exists());
}

/// Issue 53: a retired key signs nothing new. A record its holder signs after the
/// rotation, dated before it, is refused by the build and by `records import` (naming the
/// key); `rotate-key --retired` in the future is refused; an import never replaces a
/// newer record with an older capture.
#[test]
fn a_retired_key_signs_nothing_new_and_a_retirement_is_not_in_the_future() {
    let dir = rotated_site();
    let root = dir.path();
    let old = fingerprint(&keys::key(&keys::node_key_name(NODE)).public);
    let (record, sig) = backdated(root);

    // Imported: refused, the record in place untouched.
    let runs = root.join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    std::fs::write(runs.join(format!("{NODE}.json")), &record).unwrap();
    std::fs::write(runs.join(format!("{NODE}.json.sig")), &sig).unwrap();
    let in_place = format!("measurements/{EXPERIMENT}/records/{NODE}.json");
    let before = read(root, &in_place);
    let out = run_in(root, &["records", "import", "runs"]);
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains(&format!(
            "its signature was made with key {old}, which node {NODE} retired on {RETIRED}"
        )) && said.contains("a retired key signs nothing new"),
        "{said}"
    );
    assert_eq!(read(root, &in_place), before);

    // Put in place by hand: the build refuses the record for every page citing it.
    write(root, &in_place, &record);
    write(root, &format!("{in_place}.sig"), &sig);
    let out = run_in(root, &["check"]);
    let said = text(&out);
    assert!(
        said.contains(&format!(
            "record not signed by node {NODE}: its signature was made with key {old}"
        )) && said.contains("a retired key signs nothing new"),
        "{said}"
    );

    // A retirement in the future would let the old key go on signing until then.
    let out = run_in(
        root,
        &[
            "verify",
            "rotate-key",
            "--node",
            NODE,
            "--key",
            keys::key("node-testnode-third").private.to_str().unwrap(),
            "--retired",
            "2999-01-01T00:00:00Z",
        ],
    );
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("--retired 2999-01-01T00:00:00Z: that is in the future"),
        "{said}"
    );
}

/// Issue 53: `seal-retired` lists what a key retired without a list signed (the migration
/// of keys retired before lists were kept); until then the key vouches for nothing, and a
/// list once written is not changed by running it again.
#[test]
fn seal_retired_fixes_the_records_of_a_key_retired_without_a_list() {
    let dir = rotated_site();
    let root = dir.path();
    // The rotation as an older glossary wrote it: no records list.
    let toml = read(root, "glossary.toml");
    let start = toml.find("records = [").unwrap();
    let end = start + toml[start..].find("]\n").unwrap() + 2;
    let bare = format!("{}{}", &toml[..start], &toml[end..]);
    write(root, "glossary.toml", &bare);
    let out = run_in(root, &["check"]);
    let said = text(&out);
    assert!(
        said.contains(&format!("run `glossary verify seal-retired --node {NODE}`")),
        "{said}"
    );
    let out = run_in(root, &["verify", "seal-retired", "--node", NODE]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("vouches for the 1 records it signed"),
        "{said}"
    );
    assert_eq!(read(root, "glossary.toml"), toml);
    let out = run_in(root, &["check"]);
    assert!(!text(&out).contains("seal-retired"), "{}", text(&out));
    let out = run_in(root, &["verify", "seal-retired", "--node", NODE]);
    assert!(text(&out).contains("nothing changed"), "{}", text(&out));
    assert_eq!(read(root, "glossary.toml"), toml);
}
