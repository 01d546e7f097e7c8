//! A project measured by a fleet of role-named test nodes (`node-a`, `node-b`, `node-c`),
//! for the plan/submit/import tests. The experiments are the repository's own (so they
//! follow its experiment format); the fixture records are the repository's H200 records
//! re-labelled for a test node, with the digest of the experiment as it is on disk. Their
//! numbers are test data: no fixture node is real hardware.
#![allow(dead_code)] // each test crate uses a different subset

use std::path::Path;
use std::process::{Command, Output};

pub use super::files::copy_dir;
pub use super::keys;

pub const EXPERIMENTS: [&str; 2] = ["day45-occupancy", "occupancy-sweep"];

/// (node, GPU name, Slurm profile lines) of the fleet's test nodes. node-a is reached
/// by its partition alone, node-b and node-c ask for a GPU of their own type as well.
pub const NODES: [(&str, &str, &str); 3] = [
    ("node-a", "Fixture GPU A", "partition = \"node-a\"\n"),
    (
        "node-b",
        "Fixture GPU B",
        "partition = \"node-b\"\ngres = \"gpu:node-b:1\"\ntime = \"00:05:00\"\n",
    ),
    (
        "node-c",
        "Fixture GPU C",
        "partition = \"node-c\"\ngres = \"gpu:node-c:1\"\n",
    ),
];

pub use super::repo;

pub fn gpu_of(node: &str) -> &'static str {
    NODES
        .iter()
        .find(|(n, _, _)| *n == node)
        .expect("a fixture node")
        .1
}

/// A project with the three test nodes, the repository's experiments, and no records.
pub fn fleet_project(root: &Path) {
    let mut toml =
        String::from("title = \"Fleet Fixture\"\nbase_url = \"https://glossary.test\"\n");
    for (node, gpu, slurm) in NODES {
        toml.push_str(&format!(
            "\n[nodes.{node}]\ngpu = \"{gpu}\"\ncompute_capability = \"9.0\"\narch = \"sm_90\"\nsm_count = 132\n{key}\n[nodes.{node}.slurm]\n{slurm}",
            key = keys::node_public_key_line(node)
        ));
    }
    std::fs::create_dir_all(root).unwrap();
    std::fs::write(root.join("glossary.toml"), toml).unwrap();
    for id in EXPERIMENTS {
        let to = root.join("measurements").join(id);
        copy_dir(&repo().join("measurements").join(id), &to);
        let _ = std::fs::remove_dir_all(to.join("records"));
    }
}

/// The bytes of a record of `id` on the test node `node`, current for the experiment as
/// it is under `root`, captured at `captured_at` (RFC 3339).
pub fn record_bytes(root: &Path, id: &str, node: &str, captured_at: &str) -> Vec<u8> {
    let exp = glossary::measure::Experiment::load(&root.join("measurements").join(id))
        .expect("fixture experiment loads");
    let source = repo()
        .join("measurements")
        .join(id)
        .join("records/h200.json");
    let mut rec: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&source).unwrap()).unwrap();
    // The fixture is a record as this glossary writes it (the committed ones may predate
    // the current schema until re-measured).
    rec["schema"] = glossary::measure::record::RECORD_SCHEMA.into();
    rec["node"] = node.into();
    rec["spec_digest"] = exp.digest.clone().into();
    rec["captured_at"] = captured_at.into();
    rec["gpu"]["name"] = gpu_of(node).into();
    rec["gpu"]["uuid"] = format!("GPU-{node}-fixture").into();
    rec["gpu"]["compute_capability"] = "9.0".into();
    let mut bytes = serde_json::to_vec_pretty(&rec).unwrap();
    bytes.push(b'\n');
    bytes
}

/// Put a current record of `id` from `node` in the project's measurements/.
pub fn install_record(root: &Path, id: &str, node: &str, captured_at: &str) {
    let path = root
        .join("measurements")
        .join(id)
        .join("records")
        .join(format!("{node}.json"));
    write_signed(&path, &record_bytes(root, id, node, captured_at), node);
}

/// Write record bytes at `path` with `node`'s signature beside them, as verify leaves a
/// record (the fixture nodes' keys are throwaway keys made by the tests).
pub fn write_signed(path: &Path, bytes: &[u8], node: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
    keys::sign_record(path, node);
}

pub fn glossary(root: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_glossary"))
        .args(args)
        .arg("--root")
        .arg(root)
        .output()
        .expect("the glossary binary runs")
}
