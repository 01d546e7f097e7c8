//! The build cache (`src/build_cache.rs`) through the real binary: a rebuild takes its
//! highlighted blocks and verified signatures from `.site.cache`, makes the same site, and
//! an entry changed in the cache is refused and the work done again; a cache that another
//! machine's secret made counts for nothing.

mod support;
use support::signed as common;

use std::path::{Path, PathBuf};
use std::process::Output;

use support::{bin, stderr, stdout};

/// `glossary build --verbose` of `root`, with `config` as the configuration home (where the
/// cache secret lives).
fn build(root: &Path, config: &Path) -> Output {
    let out = bin()
        .args(["build", "--verbose", "--root"])
        .arg(root)
        .env("XDG_CONFIG_HOME", config)
        .output()
        .expect("run glossary");
    assert!(out.status.success(), "{}", stderr(&out));
    out
}

/// (blocks reused, signatures reused, refused) from the build's cache line.
fn usage(out: &Output) -> (usize, usize, usize) {
    let text = stdout(out);
    let line = text
        .lines()
        .find(|l| l.starts_with("build cache: "))
        .unwrap_or_else(|| panic!("no cache line in:\n{text}"));
    let n: Vec<usize> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    (n[0], n[1], n[2])
}

/// Every page of the site, path and bytes.
fn pages(site: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut all: Vec<(PathBuf, Vec<u8>)> = walkdir::WalkDir::new(site)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path().strip_prefix(site).unwrap().to_path_buf(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    all.sort();
    all
}

#[test]
fn a_rebuild_reuses_the_cache_and_a_changed_entry_is_refused_and_redone() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let config = dir.path().join("config");
    common::small_site(&root);

    let first = build(&root, &config);
    assert_eq!(usage(&first), (0, 0, 0), "a cold build reuses nothing");
    let cold = pages(&root.join("site"));
    let cache = root.join(".site.cache");
    assert!(cache.join("highlight").is_file() && cache.join("signatures").is_file());
    assert!(config.join("glossary/cache-key").is_file());

    let second = build(&root, &config);
    let (blocks, signatures, refused) = usage(&second);
    assert!(blocks > 0, "no block reused: {}", stdout(&second));
    assert!(signatures >= 8, "{signatures} signatures reused"); // 4 signed entries, 2 each
    assert_eq!(refused, 0);
    assert_eq!(
        pages(&root.join("site")),
        cold,
        "the rebuild made another site"
    );

    // Every entry's tag changed in both files: all refused, all redone, the same site.
    for file in ["highlight", "signatures"] {
        let path = cache.join(file);
        let mut bytes = std::fs::read(&path).unwrap();
        let mut at = 16 + 32 + 8; // the header
        while at + 68 <= bytes.len() {
            bytes[at + 40] ^= 1; // inside the tag
            let len = u32::from_le_bytes(bytes[at + 64..at + 68].try_into().unwrap()) as usize;
            at += 68 + len;
        }
        std::fs::write(&path, bytes).unwrap();
    }
    let third = build(&root, &config);
    let (blocks, signatures, refused) = usage(&third);
    assert_eq!((blocks, signatures), (0, 0), "{}", stdout(&third));
    assert!(refused >= 8, "{refused} refused");
    assert_eq!(pages(&root.join("site")), cold);
    // Redone, and kept anew.
    assert_eq!(usage(&build(&root, &config)).2, 0);

    // Another machine's secret: everything in the cache refused.
    let elsewhere = dir.path().join("other-config");
    let fourth = build(&root, &elsewhere);
    let (blocks, signatures, refused) = usage(&fourth);
    assert_eq!((blocks, signatures), (0, 0));
    assert!(refused >= 8);
    assert_eq!(pages(&root.join("site")), cold);
}

/// A cold build removes the cache first (bench/run.sh does): the same pages either way.
#[test]
fn the_site_is_the_same_with_and_without_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let config = dir.path().join("config");
    common::small_site(&root);
    build(&root, &config);
    let warm = {
        build(&root, &config);
        pages(&root.join("site"))
    };
    std::fs::remove_dir_all(root.join(".site.cache")).unwrap();
    std::fs::remove_dir_all(root.join("site")).unwrap();
    let _ = std::fs::remove_dir_all(root.join(".site.prev"));
    let out = build(&root, &config);
    assert_eq!(usage(&out), (0, 0, 0));
    assert_eq!(pages(&root.join("site")), warm);
}

/// Issue 53: a committed `.site.cache` that is a symlink would have the build write its
/// cache files wherever it points, outside the project: refused, naming it, and nothing
/// written there.
#[test]
fn a_symlinked_cache_folder_is_refused_and_nothing_is_written_through_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let config = dir.path().join("config");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    common::small_site(&root);
    std::os::unix::fs::symlink(&outside, root.join(".site.cache")).unwrap();
    let out = bin()
        .args(["build", "--root"])
        .arg(&root)
        .env("XDG_CONFIG_HOME", &config)
        .output()
        .expect("run glossary");
    assert!(!out.status.success(), "{}", stdout(&out));
    assert!(
        stderr(&out).contains(".site.cache") && stderr(&out).contains("is a symlink"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
}
