//! The example GitHub Actions workflow (`.github/workflows/verify.yml`) passes actionlint
//! (with ShellCheck on its scripts), names runners only by node names glossary.toml
//! defines, and reads the fields `glossary verify plan --json` prints.
//!
//! actionlint comes from `tests/actionlint/install.sh` (CI runs it and sets $ACTIONLINT);
//! without it the lint tests are skipped with a message, except under CI.

#[path = "support/skip.rs"]
mod skip;

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

fn actionlint() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("ACTIONLINT").map(PathBuf::from),
        Some(PathBuf::from("/tmp/glossary-actionlint/bin/actionlint")),
    ];
    for c in candidates.into_iter().flatten() {
        if c.is_file() {
            return Some(c);
        }
    }
    Command::new("actionlint")
        .arg("-version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|_| PathBuf::from("actionlint"))
}

fn require_actionlint() -> Option<PathBuf> {
    match actionlint() {
        Some(a) => Some(a),
        None if under_ci() => {
            panic!("under CI actionlint must be installed (tests/actionlint/install.sh)")
        }
        None => {
            skip::skip("actionlint is not installed (run tests/actionlint/install.sh)");
            None
        }
    }
}

/// actionlint on `dir` (a repository root with .github/), one line per problem.
fn lint(actionlint: &Path, dir: &Path) -> (bool, String) {
    let out = Command::new(actionlint)
        .args(["-no-color", "-oneline"])
        .current_dir(dir)
        .output()
        .expect("actionlint runs");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

fn workflow() -> String {
    std::fs::read_to_string(repo().join(".github/workflows/verify.yml")).unwrap()
}

#[test]
fn the_verify_workflow_passes_actionlint() {
    let Some(al) = require_actionlint() else {
        return;
    };
    let (ok, said) = lint(&al, &repo());
    assert!(ok, "actionlint found problems:\n{said}");
}

#[test]
fn actionlint_catches_a_broken_copy_of_the_workflow() {
    let Some(al) = require_actionlint() else {
        return;
    };
    // A runner label no node has, an injection-prone expression in a script, a misspelt
    // action input: each must be reported, or the passing test above proves nothing.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".github/workflows")).unwrap();
    std::fs::copy(
        repo().join(".github/actionlint.yaml"),
        dir.path().join(".github/actionlint.yaml"),
    )
    .unwrap();
    let broken = workflow()
        .replacen("runs-on: ubuntu-latest", "runs-on: [self-hosted, a100]", 1)
        .replacen(
            "bin/glossary records import returned",
            "bin/glossary records import returned # ${{ github.event.head_commit.message }}",
            1,
        )
        .replacen("if-no-files-found: error", "if-no-file-found: error", 1);
    std::fs::write(dir.path().join(".github/workflows/verify.yml"), broken).unwrap();
    std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir.path())
        .status()
        .unwrap();
    let (ok, said) = lint(&al, dir.path());
    assert!(!ok, "{said}");
    for problem in [
        "label \"a100\" is unknown",
        "\"github.event.head_commit.message\" is potentially untrusted",
        "input \"if-no-file-found\" is not defined",
    ] {
        assert!(
            said.contains(problem),
            "actionlint missed {problem:?}:\n{said}"
        );
    }
}

#[test]
fn runner_labels_are_the_nodes_of_glossary_toml() {
    let config = glossary::config::Config::load(&repo()).unwrap();
    let nodes: Vec<&String> = config.nodes.keys().collect();
    let settings = std::fs::read_to_string(repo().join(".github/actionlint.yaml")).unwrap();
    let labels: Vec<String> = settings
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- "))
        .map(str::to_string)
        .collect();
    let mut want: Vec<String> = nodes.iter().map(|n| n.to_string()).collect();
    want.sort();
    let mut got = labels.clone();
    got.sort();
    assert_eq!(got, want, "runner labels in .github/actionlint.yaml");
    // The measure job runs on the runner labelled with the planned node.
    assert!(workflow().contains("runs-on: [self-hosted, \"${{ matrix.node }}\"]"));
}

#[test]
fn the_workflow_reads_fields_that_verify_plan_json_prints() {
    let wf = workflow();
    assert!(
        wf.contains("glossary verify plan --json > plan.json"),
        "{wf}"
    );
    assert!(
        wf.contains("jq -c '[.work[] | {node, experiment}]' plan.json"),
        "{wf}"
    );
    assert!(
        wf.contains("--only \"$EXPERIMENT\" --out \"verify-out/$NODE\""),
        "{wf}"
    );
    assert!(wf.contains("bin/glossary records import returned"), "{wf}");
    let out = Command::new(env!("CARGO_BIN_EXE_glossary"))
        .args(["verify", "plan", "--json", "--root"])
        .arg(repo())
        .output()
        .unwrap();
    assert!(out.status.success());
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let work = plan["work"].as_array().expect("a work list");
    assert!(
        !work.is_empty(),
        "the repository has nodes without records: {plan}"
    );
    for w in work {
        assert!(w["node"].is_string() && w["experiment"].is_string(), "{w}");
    }
}
