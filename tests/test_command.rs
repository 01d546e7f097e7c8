//! The test command (`tests/run.sh`, the README's second set-up line) leaves
//! `target/release/glossary` alone: the binary the README puts on `PATH`. The browser suite's
//! optimized binaries build in the `browser` profile (`target/browser/`), and `tests/run.sh`
//! fails if the release binary changed under it (`tests/release-untouched.sh`).

use std::path::Path;
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `tests/release-untouched.sh ARGS` with `target` as the cargo target folder.
fn guard(target: &Path, args: &[&str]) -> std::process::Output {
    Command::new(repo().join("tests/release-untouched.sh"))
        .args(args)
        .env("CARGO_TARGET_DIR", target)
        .output()
        .expect("run tests/release-untouched.sh")
}

fn stamp(target: &Path) -> String {
    let out = guard(target, &["stamp"]);
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn check(target: &Path, stamp: &str) -> (bool, String) {
    let out = guard(target, &["check", stamp]);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_guard_fails_when_the_release_binary_appears_or_is_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path();
    let bin = target.join("release/glossary");

    // No binary before or after: nothing was touched.
    let before = stamp(target);
    assert_eq!(check(target, &before), (true, String::new()));

    // The tests built one where there was none.
    std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
    std::fs::write(&bin, b"built by the tests").unwrap();
    let (ok, why) = check(target, &before);
    assert!(!ok, "a new release binary passed");
    assert!(
        why.contains(&bin.display().to_string()) && why.contains("README puts on PATH"),
        "{why}"
    );

    // The binary as the reader built it, left alone: passes.
    let before = stamp(target);
    assert_eq!(check(target, &before), (true, String::new()));

    // Replaced as cargo replaces it (a new file moved into place, same size).
    let new = target.join("release/glossary.new");
    std::fs::write(&new, b"built by the test").unwrap();
    std::fs::rename(&new, &bin).unwrap();
    let (ok, why) = check(target, &before);
    assert!(!ok, "a replaced release binary passed: {why}");

    // Rewritten in place, same size: the modification time differs.
    let before = stamp(target);
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&bin, b"built by the tesT").unwrap();
    assert!(
        !check(target, &before).0,
        "a rewritten release binary passed"
    );

    // Removed.
    let before = stamp(target);
    std::fs::remove_file(&bin).unwrap();
    assert!(!check(target, &before).0, "a removed release binary passed");
}

/// The cargo commands of a script (comments left out), one per line.
fn cargo_lines(script: &str) -> Vec<String> {
    script
        .lines()
        .map(|l| l.split(" #").next().unwrap_or_default().trim())
        .filter(|l| !l.starts_with('#') && l.contains("cargo "))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_test_command_builds_nothing_into_the_release_folder() {
    let run = std::fs::read_to_string(repo().join("tests/run.sh")).unwrap();
    let browser = std::fs::read_to_string(repo().join("tests/browser/run.sh")).unwrap();
    // The guard runs around the tests.
    let stamped = run.find("release-untouched.sh stamp");
    let tests = run.find("cargo test");
    let checked = run.find("release-untouched.sh check");
    assert!(
        stamped.is_some() && stamped < tests && tests < checked,
        "tests/run.sh must stamp target/release/glossary before the tests and check it after:\n{run}"
    );
    let lines: Vec<String> = cargo_lines(&run)
        .into_iter()
        .chain(cargo_lines(&browser))
        .collect();
    assert!(
        lines.iter().any(|l| l.contains("--features corpus")),
        "the browser suite no longer builds the corpus writer: {lines:?}"
    );
    for line in &lines {
        let words: Vec<&str> = line.split_whitespace().collect();
        assert!(
            !words.contains(&"--release") && !words.contains(&"-r"),
            "the test command builds into target/release/: {line}"
        );
        if line.contains("--features") {
            assert!(
                line.contains("--profile browser"),
                "a build with features outside the browser profile: {line}"
            );
        }
    }
    // The profile is release's optimizations, not the release folder.
    let manifest = std::fs::read_to_string(repo().join("Cargo.toml")).unwrap();
    let profile = manifest
        .split("[profile.browser]")
        .nth(1)
        .expect("Cargo.toml defines [profile.browser]");
    assert!(profile.contains("inherits = \"release\""), "{profile}");
}
