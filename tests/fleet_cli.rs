//! `glossary verify plan`, `verify submit --slurm --dry-run` and `records import`, run as
//! a user runs them on a project measured by three test nodes. (The Slurm cluster itself
//! is in fleet_slurm.rs.)

mod support;
use support::fleet as fleet_fixture;

use std::path::Path;

use fleet_fixture::*;
use support::text;

const T0: &str = "2026-11-30T10:00:00Z";
const T1: &str = "2026-11-30T11:00:00Z";

fn record_path(root: &Path, id: &str, node: &str) -> std::path::PathBuf {
    root.join("measurements")
        .join(id)
        .join("records")
        .join(format!("{node}.json"))
}

/// node-a current on both experiments; node-b stale on one and from another GPU on the
/// other; node-c never measured.
fn mixed_fleet() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fleet_project(root);
    for id in EXPERIMENTS {
        install_record(root, id, "node-a", T0);
    }
    let stale = String::from_utf8(record_bytes(root, "day45-occupancy", "node-b", T0))
        .unwrap()
        .replace(
            "\"spec_digest\": \"sha256:",
            "\"spec_digest\": \"sha256:0000",
        );
    write_signed(
        &record_path(root, "day45-occupancy", "node-b"),
        stale.as_bytes(),
        "node-b",
    );
    let other_gpu = String::from_utf8(record_bytes(root, "occupancy-sweep", "node-b", T0))
        .unwrap()
        .replace("Fixture GPU B", "Fixture GPU A");
    write_signed(
        &record_path(root, "occupancy-sweep", "node-b"),
        other_gpu.as_bytes(),
        "node-b",
    );
    dir
}

#[test]
fn plan_lists_every_missing_stale_or_wrong_gpu_pair_with_its_reason() {
    let site = mixed_fleet();
    let out = glossary(site.path(), &["verify", "plan", "--json"]);
    assert!(out.status.success(), "{}", text(&out));
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let work: Vec<(String, String, String)> = plan["work"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            (
                w["node"].as_str().unwrap().to_string(),
                w["experiment"].as_str().unwrap().to_string(),
                w["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want = |n: &str, e: &str, r: &str| (n.to_string(), e.to_string(), r.to_string());
    assert_eq!(
        work,
        vec![
            want("node-b", "day45-occupancy", "stale"),
            want("node-b", "occupancy-sweep", "wrong_gpu"),
            want("node-c", "day45-occupancy", "missing"),
            want("node-c", "occupancy-sweep", "missing"),
        ]
    );
    assert_eq!(plan["current"], 2);
    assert_eq!(
        plan["work"][1]["found"], "node-b (Fixture GPU A, cc 9.0, 132 SMs, sm_90)",
        "{plan}"
    );

    let out = glossary(site.path(), &["verify", "plan", "--node", "node-b"]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.starts_with("2 (node, experiment) pair(s) to measure, 0 current:"),
        "{said}"
    );
    assert!(said.contains("node-b  day45-occupancy  stale: the experiment changed since it was measured (recorded 0000"), "{said}");
    assert!(said.contains("node-b  occupancy-sweep  wrong GPU: expected node-b (Fixture GPU B, cc 9.0, 132 SMs, sm_90), the record is from node-b (Fixture GPU A, cc 9.0, 132 SMs, sm_90)"), "{said}");
}

#[test]
fn plan_refuses_an_unknown_node_or_experiment_by_name() {
    let site = mixed_fleet();
    let out = glossary(
        site.path(),
        &["verify", "plan", "--node", "node-z", "--only", "nope"],
    );
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("unknown node `node-z` (glossary.toml defines: node-a, node-b, node-c)"),
        "{said}"
    );
    assert!(
        said.contains("no experiment `nope` (measurements/ has: day45-occupancy, occupancy-sweep)"),
        "{said}"
    );
}

#[test]
fn submit_dry_run_prints_one_job_array_per_node_on_its_partition_and_gres() {
    let site = mixed_fleet();
    let out_dir = site.path().join("runs");
    let out = glossary(
        site.path(),
        &[
            "verify",
            "submit",
            "--slurm",
            "--dry-run",
            "--out",
            out_dir.to_str().unwrap(),
        ],
    );
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    // node-a is current: no job for it.
    assert!(!said.contains("node-a"), "{said}");
    let scripts: Vec<&str> = said.split("# ---- ").skip(1).collect();
    assert_eq!(scripts.len(), 2, "{said}");
    let (b, c) = (scripts[0], scripts[1]);
    assert!(
        b.starts_with(&format!(
            "{}/node-b/job.sbatch (not submitted: --dry-run)",
            out_dir.display()
        )),
        "{b}"
    );
    assert!(b.contains("# day45-occupancy: stale:"), "{b}");
    for line in [
        "#SBATCH --partition=node-b\n",
        "#SBATCH --gres=gpu:node-b:1\n",
        "#SBATCH --time=00:05:00\n",
        "#SBATCH --array=0-1\n",
        "experiments=(day45-occupancy occupancy-sweep)\n",
        " verify --root ",
        " --node node-b --only \"$id\" --out \"$node_out\" > ",
    ] {
        assert!(b.contains(line), "node-b script lacks {line:?}:\n{b}");
    }
    assert!(
        c.contains("#SBATCH --partition=node-c\n#SBATCH --gres=gpu:node-c:1\n"),
        "{c}"
    );
    assert!(!b.contains("--dry-run >"), "{b}");
    // Nothing was written: a dry run only prints.
    assert!(!out_dir.exists());
}

#[test]
fn submit_refuses_a_node_without_a_slurm_profile() {
    let site = mixed_fleet();
    let toml = std::fs::read_to_string(site.path().join("glossary.toml")).unwrap();
    let toml = toml.replace(
        "[nodes.node-c.slurm]\npartition = \"node-c\"\ngres = \"gpu:node-c:1\"\n",
        "",
    );
    std::fs::write(site.path().join("glossary.toml"), toml).unwrap();
    let out = glossary(site.path(), &["verify", "submit", "--slurm", "--dry-run"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("glossary.toml: node node-c has no [nodes.node-c.slurm] profile"),
        "{said}"
    );
    // Leaving it out works.
    let out = glossary(
        site.path(),
        &[
            "verify",
            "submit",
            "--slurm",
            "--dry-run",
            "--node",
            "node-b",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
}

/// An output folder as `verify --out` leaves it, one subfolder per node.
fn task_output(root: &Path, out: &Path, id: &str, node: &str, at: &str) -> std::path::PathBuf {
    let p = out.join(node).join(id).join(format!("{node}.json"));
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    write_signed(&p, &record_bytes(root, id, node, at), node);
    std::fs::write(p.with_file_name("verify.log"), "log of the run\n").unwrap();
    p
}

#[test]
fn import_moves_good_records_in_and_refuses_every_bad_one_with_its_reason() {
    let site = mixed_fleet();
    let root = site.path();
    let out = root.join("runs");
    let good_c = task_output(root, &out, "day45-occupancy", "node-c", T1);
    let good_b = task_output(root, &out, "occupancy-sweep", "node-b", T1);
    let good_bytes = std::fs::read(&good_c).unwrap();
    // Corrupted in transit: the second half is gone.
    let corrupt = task_output(root, &out, "occupancy-sweep", "node-c", T1);
    let bytes = std::fs::read(&corrupt).unwrap();
    std::fs::write(&corrupt, &bytes[..bytes.len() / 2]).unwrap();
    // A write that never finished, and a failed run's report.
    std::fs::write(out.join("node-c/day45-occupancy/.tmpX3kz"), &bytes[..100]).unwrap();
    std::fs::write(out.join("node-c/day45-occupancy/node-c.failed.json"), "{}").unwrap();
    // Measured on the experiment before it changed.
    let stale = out.join("node-b/day45-occupancy/node-b.json");
    std::fs::create_dir_all(stale.parent().unwrap()).unwrap();
    write_signed(
        &stale,
        String::from_utf8(record_bytes(root, "day45-occupancy", "node-b", T1))
            .unwrap()
            .replace(
                "\"spec_digest\": \"sha256:",
                "\"spec_digest\": \"sha256:ffff",
            )
            .as_bytes(),
        "node-b",
    );
    // node-b's record renamed to pass for node-a's.
    let renamed = out.join("node-a/day45-occupancy/node-a.json");
    std::fs::create_dir_all(renamed.parent().unwrap()).unwrap();
    write_signed(
        &renamed,
        &record_bytes(root, "day45-occupancy", "node-b", T1),
        "node-b",
    );
    // Older than node-a's record in place.
    let older = out.join("node-a/occupancy-sweep/node-a.json");
    std::fs::create_dir_all(older.parent().unwrap()).unwrap();
    write_signed(
        &older,
        &record_bytes(root, "occupancy-sweep", "node-a", "2026-11-29T10:00:00Z"),
        "node-a",
    );
    let before_a = std::fs::read(record_path(root, "occupancy-sweep", "node-a")).unwrap();

    let run = glossary(root, &["records", "import", out.to_str().unwrap()]);
    let said = text(&run);
    assert_eq!(run.status.code(), Some(1), "{said}");
    assert!(
        said.contains(
            "error: 6 record(s) refused, 2 imported; the refused files were left where they were"
        ),
        "{said}"
    );
    let refused = |p: &Path, why: &str| {
        let head = format!("refused {}:\n", p.display());
        let at = said
            .find(&head)
            .unwrap_or_else(|| panic!("no refusal of {}:\n{said}", p.display()));
        let block = &said[at + head.len()..];
        let block = &block[..block.find("\nrefused ").unwrap_or(block.len())];
        assert!(
            block.contains(why),
            "refusal of {} lacks {why:?}:\n{said}",
            p.display()
        );
    };
    refused(&corrupt, "not a well-formed record (line ");
    refused(
        &out.join("node-c/day45-occupancy/.tmpX3kz"),
        "a temporary file: a write that did not finish",
    );
    refused(
        &out.join("node-c/day45-occupancy/node-c.failed.json"),
        "a failed run's output, not a record",
    );
    refused(
        &stale,
        "measured on another version of day45-occupancy (digest sha256:ffff",
    );
    refused(
        &renamed,
        "the file is named for node node-a but the record says node node-b",
    );
    refused(&older, "not newer than the record in place (");

    // The good ones are in place byte for byte and gone from the output folder.
    assert_eq!(
        std::fs::read(record_path(root, "day45-occupancy", "node-c")).unwrap(),
        good_bytes
    );
    assert!(record_path(root, "occupancy-sweep", "node-b").is_file());
    assert!(!good_c.exists() && !good_b.exists());
    assert!(
        said.contains(&format!("imported {} -> ", good_c.display())),
        "{said}"
    );
    // The refused ones changed nothing, and stayed where they were.
    assert!(!record_path(root, "occupancy-sweep", "node-c").exists());
    assert_eq!(
        std::fs::read(record_path(root, "occupancy-sweep", "node-a")).unwrap(),
        before_a
    );
    assert!(corrupt.exists() && stale.exists() && older.exists());
    // No temporary file was left beside the records.
    for id in EXPERIMENTS {
        for f in std::fs::read_dir(root.join("measurements").join(id).join("records")).unwrap() {
            let name = f.unwrap().file_name().into_string().unwrap();
            if name == "history" {
                continue;
            }
            // Each record with the node's signature beside it.
            assert!(
                (name.ends_with(".json") || name.ends_with(".json.sig")) && !name.starts_with('.'),
                "{name}"
            );
        }
    }
    // The imported record is kept as a run too, signed, in the node's history.
    let kept: Vec<_> =
        std::fs::read_dir(root.join("measurements/day45-occupancy/records/history/node-c"))
            .unwrap()
            .map(|f| f.unwrap().file_name().into_string().unwrap())
            .collect();
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert!(kept.iter().any(|n| n.ends_with(".json.sig")), "{kept:?}");
    // What is left to measure: node-c's sweep (never imported) and node-b's Day 45.
    let plan = glossary(root, &["verify", "plan", "--json"]);
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    let left: Vec<String> = plan["work"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            format!(
                "{}/{}",
                w["node"].as_str().unwrap(),
                w["experiment"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(left, ["node-b/day45-occupancy", "node-c/occupancy-sweep"]);
}

#[test]
fn import_check_moves_nothing_and_two_runs_of_one_pair_are_both_refused() {
    let site = mixed_fleet();
    let root = site.path();
    let out = root.join("runs");
    let one = task_output(root, &out, "day45-occupancy", "node-c", T0);
    let run = glossary(
        root,
        &["records", "import", "--check", out.to_str().unwrap()],
    );
    assert!(run.status.success(), "{}", text(&run));
    assert!(text(&run).contains("would import "), "{}", text(&run));
    assert!(one.exists() && !record_path(root, "day45-occupancy", "node-c").exists());

    let other = root.join("runs2");
    let two = task_output(root, &other, "day45-occupancy", "node-c", T1);
    let run = glossary(
        root,
        &[
            "records",
            "import",
            out.to_str().unwrap(),
            other.to_str().unwrap(),
        ],
    );
    let said = text(&run);
    assert_eq!(run.status.code(), Some(1), "{said}");
    assert!(
        said.contains("2 records of day45-occupancy on node-c in this import"),
        "{said}"
    );
    assert!(
        one.exists() && two.exists() && !record_path(root, "day45-occupancy", "node-c").exists()
    );
}

#[test]
fn importing_the_record_already_in_place_changes_nothing() {
    let site = mixed_fleet();
    let root = site.path();
    let out = root.join("runs");
    let copy = out.join("node-a.json");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::copy(record_path(root, "day45-occupancy", "node-a"), &copy).unwrap();
    let sig = |p: &Path| glossary::trust::node::signature_path(p);
    std::fs::copy(
        sig(&record_path(root, "day45-occupancy", "node-a")),
        sig(&copy),
    )
    .unwrap();
    let run = glossary(root, &["records", "import", out.to_str().unwrap()]);
    let said = text(&run);
    assert!(run.status.success(), "{said}");
    assert!(
        said.contains(&format!(
            "unchanged {} (the same record is at ",
            copy.display()
        )),
        "{said}"
    );

    let empty = tempfile::tempdir().unwrap();
    let run = glossary(root, &["records", "import", empty.path().to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(1));
    assert!(
        text(&run).contains("error: no records under "),
        "{}",
        text(&run)
    );
}

/// The peak resident size, in bytes, of the largest child this test process has waited for.
fn children_peak_rss() -> u64 {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    assert_eq!(
        unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) },
        0
    );
    usage.ru_maxrss as u64 * 1024
}

/// A 1 GiB (sparse) file where a record should be is refused by its length, unread: the
/// import neither takes its size in memory nor the time to read it.
#[test]
fn import_refuses_a_huge_file_before_reading_it() {
    let site = mixed_fleet();
    let root = site.path();
    let out = root.join("runs");
    std::fs::create_dir_all(&out).unwrap();
    let huge = out.join("node-a.json");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let started = std::time::Instant::now();
    let run = glossary(root, &["records", "import", out.to_str().unwrap()]);
    let took = started.elapsed();
    let said = text(&run);
    assert_eq!(run.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!("refused {}:", huge.display()))
            && said.contains("1073741824 bytes, over the 67108864 a record file may hold"),
        "{said}"
    );
    // Generous bounds (the targets are a second and flat memory): reading the file whole
    // takes a GiB and seconds.
    assert!(took < std::time::Duration::from_secs(10), "took {took:?}");
    let peak = children_peak_rss();
    assert!(peak < 256 << 20, "peak RSS {} MB", peak >> 20);
}

/// Issue 53: an import never replaces a record with an older capture: not one captured at
/// the same time with other bytes, not one older than a run the history keeps (the latest
/// removed), and not a record in place it cannot read to compare.
#[test]
fn an_import_never_replaces_a_newer_record_with_an_older_capture() {
    let site = mixed_fleet();
    let root = site.path();
    let id = "day45-occupancy";
    let in_place = record_path(root, id, "node-a");
    let out = root.join("runs");
    let candidate = out.join("node-a.json");
    let offer = |captured: &str, tweak: &str| {
        let bytes = String::from_utf8(record_bytes(root, id, "node-a", captured))
            .unwrap()
            .replace(
                "\"tool_version\": \"",
                &format!("\"tool_version\": \"{tweak}"),
            );
        write_signed(&candidate, bytes.as_bytes(), "node-a");
        let run = glossary(root, &["records", "import", out.to_str().unwrap()]);
        (run.status.success(), text(&run))
    };
    // The same capture time, other bytes.
    let (ok, said) = offer(T0, "other ");
    assert!(
        !ok && said.contains("not newer than the record in place ("),
        "{said}"
    );
    // A run kept in the history newer than the offer, the latest record removed.
    let kept = in_place
        .parent()
        .unwrap()
        .join("history/node-a/20261201T100000.000Z.json");
    write_signed(
        &kept,
        &record_bytes(root, id, "node-a", "2026-12-01T10:00:00Z"),
        "node-a",
    );
    std::fs::remove_file(&in_place).unwrap();
    let (ok, said) = offer("2026-11-30T12:00:00Z", "");
    assert!(
        !ok && said.contains("not newer than the run kept in "),
        "{said}"
    );
    assert!(!in_place.exists());
    std::fs::remove_file(&kept).unwrap();
    // A record in place that does not parse cannot be shown to be older.
    std::fs::write(&in_place, b"{ not a record").unwrap();
    let (ok, said) = offer("2026-12-02T12:00:00Z", "");
    assert!(!ok && said.contains("does not parse"), "{said}");
    assert_eq!(std::fs::read(&in_place).unwrap(), b"{ not a record");
    // Newer than everything: imported.
    std::fs::remove_file(&in_place).unwrap();
    let (ok, said) = offer("2026-12-02T12:00:00Z", "");
    assert!(ok, "{said}");
}
