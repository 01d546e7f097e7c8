//! `pipeline::Session` (incremental rebuilds for `serve`) must leave the site exactly as a
//! full `glossary build` of the same files would: same files, same bytes.

#[path = "../bench/corpus/mod.rs"]
mod corpus;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

mod support;
use support::snapshot;

use glossary::content::load_content;
use glossary::pipeline::{sign_selected, BuildOptions, Selection, Session};
use glossary::review::Role;
use glossary::trust::Signer;

fn corpus(n: usize) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("project");
    let templates = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
    corpus::write_glossary(&corpus::generate(n), &root, &templates).unwrap();
    tmp
}

/// A session on a fresh `n`-entry corpus with its first build written to `<tmp>/site`:
/// (the temporary folder, kept alive; the project root; the output; the session; the term
/// files in name order).
fn started(n: usize, drafts: bool) -> (tempfile::TempDir, PathBuf, PathBuf, Session, Vec<PathBuf>) {
    let tmp = corpus(n);
    let root = tmp.path().join("project");
    let out = tmp.path().join("site");
    let (session, site) = Session::start(options(&root, &out, drafts)).unwrap();
    site.write_to(&out).unwrap();
    let files = term_files(&root);
    (tmp, root, out, session, files)
}

fn options(root: &Path, out: &Path, drafts: bool) -> BuildOptions {
    BuildOptions {
        root: root.to_path_buf(),
        out: Some(out.to_path_buf()),
        drafts,
        today: chrono::Local::now().date_naive(),
        base_url: None,
        keep_bodies_up_to: glossary::pipeline::KEEP_BODIES_UP_TO,
    }
}

/// Build `root` from scratch with the real binary into `<root>/../<name>`, which it returns.
fn full_build(root: &Path, name: &str, drafts: bool) -> PathBuf {
    let full_out = root.parent().unwrap().join(name);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_glossary"));
    cmd.args(["build", "--root"])
        .arg(root)
        .arg("--out")
        .arg(&full_out);
    if drafts {
        cmd.arg("--drafts");
    }
    let run = cmd.output().unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    full_out
}

/// Build `root` from scratch with the real binary and compare with the session's output.
fn assert_same_as_full_build(root: &Path, session_out: &Path, drafts: bool) {
    let full_out = full_build(root, "full", drafts);
    let (full, incremental) = (snapshot(&full_out), snapshot(session_out));
    let only = |a: &BTreeMap<PathBuf, Vec<u8>>, b: &BTreeMap<PathBuf, Vec<u8>>| {
        a.keys()
            .filter(|k| !b.contains_key(*k))
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(
        only(&full, &incremental),
        Vec::<PathBuf>::new(),
        "missing after rebuild"
    );
    assert_eq!(
        only(&incremental, &full),
        Vec::<PathBuf>::new(),
        "left over after rebuild"
    );
    for (path, bytes) in &full {
        assert!(
            &incremental[path] == bytes,
            "{} differs from a full build",
            path.display()
        );
    }
}

fn term_files(root: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root.join("content/terms"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

/// Re-sign `file`'s entry in both roles with the corpus's throwaway keys, at a new time,
/// through `review sign`'s path: the signature file changes and the entry publishes.
fn resign(root: &Path, file: &Path) {
    let content = load_content(&root.join("content")).unwrap();
    let entry = content.entries.iter().find(|e| e.path == file).unwrap();
    for (role, person) in [(Role::Author, "author-a"), (Role::Reviewer, "reviewer-b")] {
        let signer = Signer::from_file(&root.join("throwaway-keys").join(person)).unwrap();
        let done = sign_selected(
            root,
            &Selection::Named(vec![entry.id.to_string()]),
            role,
            &signer,
            chrono::Utc::now(),
        )
        .unwrap();
        assert_eq!(done.len(), 1);
    }
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{from:?} not in {}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

fn signature_file(root: &Path, term: &Path) -> PathBuf {
    root.join("content/reviews/terms")
        .join(term.file_stem().unwrap())
        .with_extension("yaml")
}

#[test]
fn edits_rebuilt_incrementally_match_a_full_build_byte_for_byte() {
    for drafts in [false, true] {
        let (_tmp, root, out, mut session, files) = started(40, drafts);
        assert_eq!(session.report().published.len(), 40);

        // An edited body: the signatures no longer match, so the entry is refused. Without
        // drafts its page goes, other pages' lists (related terms, the index) drop it and
        // links to it in bodies turn into plain text; with drafts it is marked as a draft
        // everywhere.
        edit(&files[3], "## How it works", "## How it really works");
        let r = session.rebuild(&[files[3].clone()]).unwrap();
        r.write_to(&out).unwrap();
        assert!(!r.full);
        assert_eq!(r.report.refused.len(), 1);
        assert_same_as_full_build(&root, &out, drafts);

        // Signed again: published again.
        resign(&root, &files[3]);
        let r = session
            .rebuild(&[signature_file(&root, &files[3])])
            .unwrap();
        r.write_to(&out).unwrap();
        assert!(!r.full);
        assert_eq!(r.report.published.len(), 40);
        assert_same_as_full_build(&root, &out, drafts);

        // A new name and summary, signed: every list that shows this term changes.
        edit(&files[7], "name: \"", "name: \"renamed ");
        edit(&files[7], "summary: \"", "summary: \"Renamed. ");
        resign(&root, &files[7]);
        let r = session
            .rebuild(&[files[7].clone(), signature_file(&root, &files[7])])
            .unwrap();
        r.write_to(&out).unwrap();
        assert!(!r.full);
        assert!(r.files.len() > 2, "{}", r.files.len());
        assert_same_as_full_build(&root, &out, drafts);

        // A template change rebuilds everything.
        let base = root.join("templates/base.html");
        edit(
            &base,
            "<main id=\"main\">",
            "<main id=\"main\" class=\"edited\">",
        );
        let r = session.rebuild(&[base]).unwrap();
        r.write_to(&out).unwrap();
        assert!(r.full);
        assert_same_as_full_build(&root, &out, drafts);
    }
}

#[test]
fn a_broken_edit_changes_nothing_and_is_retried_with_the_next_change() {
    let (_tmp, root, out, mut session, files) = started(12, true);
    let before = snapshot(&out);

    edit(&files[2], "summary: \"", "summary: [\"");
    let err = match session.rebuild(&[files[2].clone()]) {
        Ok(_) => panic!("a broken front matter rebuilt"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains(&*files[2].to_string_lossy()), "{err}");
    assert_eq!(session.report().published.len(), 12);
    assert_eq!(snapshot(&out), before);

    // The fix arrives as a change to another file's watcher event; the broken file is
    // still pending and is picked up.
    edit(&files[2], "summary: [\"", "summary: \"");
    edit(&files[2], "## Measured", "## Measured here");
    edit(&files[5], "## How it works", "## How this works");
    session
        .rebuild(&[files[5].clone()])
        .unwrap()
        .write_to(&out)
        .unwrap();
    assert_same_as_full_build(&root, &out, true);
}

#[test]
fn an_edit_renders_its_own_page_and_the_index_first_and_the_rest_as_it_catches_up() {
    let (_tmp, root, out, mut session, files) = started(40, true);

    // A new name: the entry moves in the A-Z index. Its page and the index come at once;
    // the pages listing it and the site-wide files (search index, sitemap, feed) follow.
    edit(&files[9], "name: \"", "name: \"Aardvark ");
    let first = session.edit(&[files[9].clone()]).unwrap();
    let made: Vec<String> = first
        .files
        .iter()
        .map(|f| f.path.to_string_lossy().replace('\\', "/"))
        .collect();
    let slug = files[9].file_stem().unwrap().to_string_lossy().to_string();
    assert!(
        made.contains(&format!("terms/{slug}/index.html")),
        "{made:?}"
    );
    assert!(made.contains(&"index.html".to_string()), "{made:?}");
    assert!(!made.iter().any(|p| p.starts_with("search/")), "{made:?}");
    assert!(!made.contains(&"sitemap.xml".to_string()), "{made:?}");
    first.write_to(&out).unwrap();
    let mut slices = 0;
    while let Some(more) = session.catch_up() {
        more.unwrap().write_to(&out).unwrap();
        slices += 1;
    }
    assert!(slices >= 1);
    assert_same_as_full_build(&root, &out, true);
}

#[test]
fn a_rename_on_a_large_site_rebuilds_the_pages_near_its_old_and_new_places_as_a_full_build_would() {
    // Over 250 pages, sidebars list a window around each page: a new name that moves
    // an entry far through the order changes only the pages near its two places.
    let (_tmp, root, out, mut session, files) = started(300, true);
    edit(&files[150], "name: \"", "name: \"Aaa ");
    let r = session.rebuild(&[files[150].clone()]).unwrap();
    r.write_to(&out).unwrap();
    assert!(!r.full);
    let pages = r
        .files
        .iter()
        .filter(|f| f.path.starts_with("terms"))
        .count();
    assert!(pages < 100, "{pages} pages remade");
    edit(&files[40], "name: \"", "name: \"Zzz ");
    session
        .rebuild(&[files[40].clone()])
        .unwrap()
        .write_to(&out)
        .unwrap();
    assert_same_as_full_build(&root, &out, true);
}

/// The session's `index.html` after `edit` alone (what `serve` shows first), against a
/// full build of the same files.
fn assert_index_as_built(root: &Path, made: &glossary::pipeline::Rebuilt, drafts: bool) {
    let index = made
        .files
        .iter()
        .find(|f| f.path == Path::new("index.html"))
        .expect("the edit did not remake index.html");
    let full_out = full_build(root, "full-index", drafts);
    let built = std::fs::read(full_out.join("index.html")).unwrap();
    assert!(
        index.bytes == built,
        "the session's index.html differs from a full build's"
    );
}

#[test]
fn a_name_change_remakes_the_index_as_a_full_build_writes_it() {
    for drafts in [true, false] {
        let (_tmp, root, _, mut session, files) = started(60, drafts);
        let renamed = |from: &Path, session: &mut Session, to: &str| {
            let text = std::fs::read_to_string(from).unwrap();
            let line = text.lines().find(|l| l.starts_with("name: ")).unwrap();
            std::fs::write(from, text.replacen(line, &format!("name: \"{to}\""), 1)).unwrap();
            session.edit(&[from.to_path_buf()]).unwrap()
        };

        // To another letter, to the front of its own, and under `#`; each edit alone, as
        // the author sees it before the rest catches up.
        let made = renamed(&files[10], &mut session, "Aaa moved");
        assert_index_as_built(&root, &made, drafts);
        let made = renamed(&files[11], &mut session, "zzz last");
        assert_index_as_built(&root, &made, drafts);
        let made = renamed(&files[10], &mut session, "3D moved again");
        assert_index_as_built(&root, &made, drafts);

        // Aliases are rows of their own, possibly under other letters.
        edit(
            &files[12],
            "summary: ",
            "aliases: [\"Qq alias\", \"bb alias\"]\nsummary: ",
        );
        let made = session.edit(&[files[12].clone()]).unwrap();
        assert_index_as_built(&root, &made, drafts);

        // A summary linking to another term: without drafts, that term's page goes when
        // its edit unpublishes it, and the link turns into text in the index.
        let target = files[20].file_stem().unwrap().to_string_lossy().to_string();
        edit(
            &files[13],
            "summary: \"",
            &format!("summary: \"See [the other](../{target}/). "),
        );
        resign(&root, &files[13]);
        let made = session
            .edit(&[files[13].clone(), signature_file(&root, &files[13])])
            .unwrap();
        assert_index_as_built(&root, &made, drafts);
        let made = renamed(&files[20], &mut session, "Linked and renamed");
        assert_index_as_built(&root, &made, drafts);

        // A broken save changes nothing; the next good one shows the right rows.
        edit(&files[14], "summary: \"", "summary: [\"");
        assert!(session.edit(&[files[14].clone()]).is_err());
        edit(&files[14], "summary: [\"", "summary: \"");
        let made = renamed(&files[15], &mut session, "After the fix");
        assert_index_as_built(&root, &made, drafts);
    }
}

#[test]
fn site_wide_files_given_up_for_a_waiting_save_stay_deferred_and_come_later() {
    let (_tmp, root, out, mut session, files) = started(40, true);
    // Unpublished by the edit: the search index, sitemap and feed are behind.
    edit(&files[3], "## How it works", "## How it really works");
    session
        .edit(&[files[3].clone()])
        .unwrap()
        .write_to(&out)
        .unwrap();
    // A save is always waiting: the pages are caught up, the site-wide files given up.
    let waiting = || true;
    let mut given_up = false;
    for _ in 0..100 {
        let r = session
            .catch_up_until(&waiting)
            .expect("the site-wide files were not left for later")
            .unwrap();
        r.write_to(&out).unwrap();
        if r.files.is_empty() && r.removed.is_empty() {
            given_up = true;
            break;
        }
    }
    assert!(given_up);
    assert!(session.is_behind());
    while let Some(more) = session.catch_up() {
        more.unwrap().write_to(&out).unwrap();
    }
    assert!(!session.is_behind());
    assert_same_as_full_build(&root, &out, true);
}
