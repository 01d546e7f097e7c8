//! Throwaway ed25519 keys for the fixture people (`author-a`, `reviewer-b`, ...) and fixture
//! nodes, made with `ssh-keygen` exactly as a person makes theirs (openssh-client; CI
//! installs it). One key per name per test process, in a temp folder that lives as long
//! as the process. They sign nothing outside the tests' temp sites.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use glossary::content::EntryId;
use glossary::pipeline::{assess_one, kept_material, Project};
use glossary::review::{sign as sign_entry, Role};
use glossary::trust::Signer;

#[derive(Clone)]
pub struct Key {
    /// The private key file (no passphrase).
    pub private: PathBuf,
    /// The public key line, `ssh-ed25519 AAAA... NAME`.
    pub public: String,
}

fn dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = tempfile::tempdir().expect("key temp dir");
        // Kept for the whole test process: every site of the process uses these keys.
        d.keep()
    })
}

/// The throwaway key of `name`, made on first use.
pub fn key(name: &str) -> Key {
    static KEYS: OnceLock<Mutex<HashMap<String, Key>>> = OnceLock::new();
    let keys = KEYS.get_or_init(Default::default);
    let mut keys = keys.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(k) = keys.get(name) {
        return k.clone();
    }
    let private = dir().join(name);
    let out = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", name, "-f"])
        .arg(&private)
        .output()
        .expect("ssh-keygen runs (install openssh-client)");
    assert!(out.status.success(), "ssh-keygen: {out:?}");
    let public = std::fs::read_to_string(private.with_extension("pub"))
        .expect("ssh-keygen wrote the public key")
        .trim()
        .to_string();
    let k = Key { private, public };
    keys.insert(name.to_string(), k.clone());
    k
}

pub fn signer(name: &str) -> Signer {
    Signer::from_file(&key(name).private).expect("throwaway key loads")
}

/// A `people.toml` registering each (id, display name) with the throwaway key of its id.
pub fn people_toml(people: &[(&str, &str)]) -> String {
    people
        .iter()
        .map(|(id, name)| {
            format!(
                "[[person]]\nid = \"{id}\"\nname = \"{name}\"\nkeys = [\"{}\"]\n\n",
                key(id).public
            )
        })
        .collect()
}

/// The usual fixture registry: `author-a` and `reviewer-b`, named as their ids.
pub fn write_people(root: &Path) {
    let path = root.join("content/people.toml");
    std::fs::create_dir_all(path.parent().expect("content")).expect("mkdir content");
    std::fs::write(
        path,
        people_toml(&[("author-a", "author-a"), ("reviewer-b", "reviewer-b")]),
    )
    .expect("write people.toml");
}

/// The key name of a fixture node.
pub fn node_key_name(node: &str) -> String {
    format!("node-{node}")
}

/// The `public_key = "..."` line for a node profile.
pub fn node_public_key_line(node: &str) -> String {
    format!("public_key = \"{}\"\n", key(&node_key_name(node)).public)
}

/// Sign the record file at `path` as `node` did (`<path>.sig`), over its bytes as they are.
pub fn sign_record(path: &Path, node: &str) {
    let bytes = std::fs::read(path).expect("record to sign");
    glossary::trust::node::write_signed(path, &bytes, &signer(&node_key_name(node)))
        .expect("sign record");
}

/// The project loaded for `id` alone, and `id` assessed as `review sign` assesses it.
fn assessed(
    root: &Path,
    id: &EntryId,
    time: chrono::DateTime<chrono::Utc>,
) -> (Project, glossary::render::Assessment) {
    let (project, ids) = Project::load_entries(root, &[id.to_string()]).expect("project loads");
    let entry = project.content.get(&ids[0]).expect("entry exists");
    let a = assess_one(&project, entry, time.date_naive()).expect("entry assesses");
    (project, a)
}

/// Sign `id` as `role` with the throwaway key of `person`, through the library's own
/// signing path (what `review sign` runs).
pub fn sign_as(
    root: &Path,
    id: &EntryId,
    role: Role,
    person: &str,
    time: chrono::DateTime<chrono::Utc>,
) {
    let (project, a) = assessed(root, id, time);
    let signer = signer(person);
    let who = project
        .people
        .get(person)
        .unwrap_or_else(|| panic!("{person} is not in content/people.toml"))
        .clone();
    sign_entry(
        &project.layout.reviews(),
        id,
        project.signoffs.get(id),
        kept_material(&a).expect("assess_one keeps the signed text"),
        role,
        &who,
        &signer,
        time,
    )
    .expect("sign");
}

/// Write `person`'s valid signature in `role` without `review sign`'s own checks (it
/// refuses one person in both roles): what someone editing the file by hand with their
/// own key could write. The gate must refuse what this makes possible.
pub fn sign_unchecked(
    root: &Path,
    id: &EntryId,
    role: Role,
    person: &str,
    time: chrono::DateTime<chrono::Utc>,
) {
    use glossary::review::{save_signoff, save_text, statement, Signature};
    let (project, a) = assessed(root, id, time);
    let name = project
        .people
        .get(person)
        .map_or_else(|| person.to_string(), |p| p.name.clone());
    let msg = statement(id, role, person, &name, &a.digest, &time);
    let sig = Signature {
        person: person.into(),
        name,
        time,
        digest: a.digest.clone(),
        signature: signer(person)
            .sign(glossary::trust::REVIEW_NAMESPACE, msg.as_bytes())
            .expect("sign"),
    };
    let mut signoff = project.signoffs.get(id).cloned().unwrap_or_default();
    match role {
        Role::Author => signoff.author = Some(sig),
        Role::Reviewer => signoff.reviewer = Some(sig),
    }
    let reviews = project.layout.reviews();
    save_text(
        &reviews,
        &a.digest,
        &kept_material(&a)
            .expect("assess_one keeps the signed text")
            .bytes,
    )
    .expect("save text");
    save_signoff(&reviews, id, &signoff).expect("save signoff");
}
