//! A test that cannot run here (no GPU, no Slurm, no actionlint) says so on stderr and
//! leaves one file under target/tmp/skipped/ naming it and why, so that the test command
//! can end with the list (`tests/skipped.sh`): cargo's own summary counts such a test as
//! passed, and shows its stderr only under `--nocapture`.

use std::path::PathBuf;

/// Where skips are written: `target/tmp/skipped`, cleared by `tests/skipped.sh --clear`.
pub fn skipped_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("skipped")
}

/// Record that the running test is skipped, and why.
pub fn skip(why: &str) {
    eprintln!("skipped: {why}");
    let test = std::thread::current()
        .name()
        .unwrap_or("unnamed")
        .to_string();
    let krate = env!("CARGO_CRATE_NAME");
    // One file per test: tests run in parallel threads and processes, and a file each
    // needs no lock. The name keeps to characters every file system takes.
    let file: String = format!("{krate}--{test}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let dir = skipped_dir();
    // A skip that cannot be recorded is still printed above; it must not fail the test.
    let _ = std::fs::create_dir_all(&dir)
        .and_then(|_| std::fs::write(dir.join(file), format!("{krate}::{test}: {why}\n")));
}
