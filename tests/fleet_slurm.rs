//! The fleet path on a real Slurm cluster: `tests/slurm/start-cluster.sh` starts munge,
//! slurmctld and slurmd from Debian's packages on this machine, with a partition (and a
//! GPU type) per test node. `glossary verify submit --slurm` submits the plan as one job
//! array per node; every task runs the real `glossary verify --node N --only ID --out DIR
//! --dry-run` (no machine here has a GPU), the arrays run, their outputs come back, and
//! `glossary records import` takes the good records in and refuses a corrupted one.
//!
//! The one stand-in: a GPU-less dry run writes no record, so each task's command is a
//! small script that runs the real verify with every argument the job gave it and then
//! leaves, where `--out` puts it, the fixture record a GPU run of that (node, experiment)
//! would have written. It records which partition and GPU Slurm gave the task.
//!
//! Where Slurm cannot start (not installed, not root) the test is skipped with the
//! reason, except under CI, where that is a failure.

mod support;
use support::fleet as fleet_fixture;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fleet_fixture::*;
use support::text;

const CAPTURED: &str = "2026-11-30T12:00:00Z";

fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// Start (or find) the test cluster; its SLURM_CONF, or why it cannot run.
fn cluster() -> Result<String, String> {
    let script = repo().join("tests/slurm/start-cluster.sh");
    let out = Command::new("bash")
        .arg(&script)
        .args(["node-a", "node-b", "node-c"])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("{}{}", stdout, stderr.trim()));
    }
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("SLURM_CONF="))
        .map(str::to_string)
        .ok_or_else(|| format!("start-cluster.sh printed no SLURM_CONF: {stdout}{stderr}"))
}

/// The task command: the real verify, then the record a GPU would have left.
fn stand_in(dir: &Path, glossary: &Path, fixtures: &Path) -> PathBuf {
    let path = dir.join("gpu-node-stand-in.sh");
    std::fs::write(
        &path,
        format!(
            r#"#!/bin/bash
# Test stand-in for a GPU node: run the real verify as the job asked, then leave the
# fixture record a GPU run would have written where --out puts it (atomically).
set -euo pipefail
{glossary} "$@"
args=("$@")
for ((i = 0; i < ${{#args[@]}}; i++)); do
  case ${{args[i]}} in
    --node) node=${{args[i + 1]}} ;;
    --only) id=${{args[i + 1]}} ;;
    --out) out=${{args[i + 1]}} ;;
  esac
done
echo "partition=$SLURM_JOB_PARTITION gpus=${{SLURM_JOB_GPUS:-none}} task=$SLURM_ARRAY_TASK_ID" > "$out/$id/slurm-placement"
cp {fixtures}/"$id/$node.json.sig" "$out/$id/$node.json.sig"
cp {fixtures}/"$id/$node.json" "$out/$id/.tmp-copy"
mv "$out/$id/.tmp-copy" "$out/$id/$node.json"
"#,
            glossary = glossary.display(),
            fixtures = fixtures.display(),
        ),
    )
    .unwrap();
    let mut perm = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&path, perm).unwrap();
    path
}

#[test]
fn a_plan_runs_as_slurm_job_arrays_and_import_takes_the_good_records_back() {
    let slurm_conf = match cluster() {
        Ok(c) => c,
        Err(why) if !under_ci() => {
            support::skip(&format!("the test Slurm cluster cannot start here: {why}"));
            return;
        }
        Err(why) => panic!("under CI the Slurm cluster must start: {why}"),
    };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    fleet_project(&root);
    // node-a's Day 45 record is current: the plan leaves that pair out.
    install_record(&root, "day45-occupancy", "node-a", CAPTURED);

    // A private copy of the binary: the shared target folder may be rebuilt meanwhile.
    let glossary = dir.path().join("glossary");
    std::fs::copy(env!("CARGO_BIN_EXE_glossary"), &glossary).unwrap();
    let fixtures = dir.path().join("gpu-records");
    for (node, _, _) in NODES {
        for id in EXPERIMENTS {
            let p = fixtures.join(id).join(format!("{node}.json"));
            write_signed(&p, &record_bytes(&root, id, node, CAPTURED), node);
        }
    }
    let task = stand_in(dir.path(), &glossary, &fixtures);
    let out = dir.path().join("runs");

    let mut submit = Command::new(&glossary);
    submit
        .args(["verify", "submit", "--slurm", "--verify-dry-run", "--wait"])
        .arg("--out")
        .arg(&out)
        .arg("--glossary")
        .arg(&task)
        .arg("--root")
        .arg(&root)
        .env("SLURM_CONF", &slurm_conf)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = submit.spawn().unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(300) {
            let _ = child.kill();
            panic!(
                "the job arrays did not finish in 5 minutes (squeue: {})",
                squeue(&slurm_conf)
            );
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let run = child.wait_with_output().unwrap();
    let said = text(&run);
    assert!(run.status.success(), "{said}");
    // Three arrays: node-a with one task, node-b and node-c with two each.
    for (node, tasks) in [("node-a", 1), ("node-b", 2), ("node-c", 2)] {
        let line = said
            .lines()
            .find(|l| l.starts_with(&format!("node {node}: job ")))
            .unwrap_or_else(|| panic!("no job for {node}:\n{said}"));
        assert!(
            line.contains(&format!("({tasks} task(s)) finished;")),
            "{line}"
        );
    }

    // Each task ran on its node's partition, with a GPU of its type where the profile
    // asks for one, and verify (the real one) ran its dry run there.
    for (node, _, _) in NODES {
        for id in EXPERIMENTS {
            if (node, id) == ("node-a", "day45-occupancy") {
                assert!(!out.join(node).join(id).exists());
                continue;
            }
            let task_dir = out.join(node).join(id);
            let placement = std::fs::read_to_string(task_dir.join("slurm-placement"))
                .unwrap_or_else(|e| panic!("{node}/{id} did not run: {e}\n{said}"));
            assert!(
                placement.starts_with(&format!("partition={node} ")),
                "{placement}"
            );
            let has_gpu = !placement.contains("gpus=none");
            assert_eq!(has_gpu, node != "node-a", "{node}: {placement}");
            let log = std::fs::read_to_string(task_dir.join("verify.log")).unwrap();
            assert!(
                log.contains(&format!("{id}: dry run")),
                "{node}/{id}: {log}"
            );
        }
    }

    // One record is corrupted on its way back.
    let corrupt = out.join("node-c/occupancy-sweep/node-c.json");
    let bytes = std::fs::read(&corrupt).unwrap();
    std::fs::write(&corrupt, &bytes[..bytes.len() * 2 / 3]).unwrap();

    let import = Command::new(&glossary)
        .args(["records", "import"])
        .arg(&out)
        .arg("--root")
        .arg(&root)
        .output()
        .unwrap();
    let said = text(&import);
    assert_eq!(import.status.code(), Some(1), "{said}");
    assert!(
        said.contains("error: 1 record(s) refused, 4 imported"),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "refused {}:\n  not a well-formed record",
            corrupt.display()
        )),
        "{said}"
    );
    for (node, id) in [
        ("node-a", "occupancy-sweep"),
        ("node-b", "day45-occupancy"),
        ("node-b", "occupancy-sweep"),
        ("node-c", "day45-occupancy"),
    ] {
        let placed = root
            .join("measurements")
            .join(id)
            .join("records")
            .join(format!("{node}.json"));
        assert_eq!(
            std::fs::read(&placed).unwrap(),
            std::fs::read(fixtures.join(id).join(format!("{node}.json"))).unwrap(),
            "{node}/{id}"
        );
    }
    let plan = Command::new(&glossary)
        .args(["verify", "plan", "--json", "--root"])
        .arg(&root)
        .output()
        .unwrap();
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    assert_eq!(plan["current"], 5, "{plan}");
    assert_eq!(plan["work"][0]["node"], "node-c", "{plan}");
    assert_eq!(plan["work"][0]["experiment"], "occupancy-sweep", "{plan}");
}

fn squeue(conf: &str) -> String {
    Command::new("squeue")
        .env("SLURM_CONF", conf)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}
