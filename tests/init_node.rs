//! `glossary verify init-node NAME` on a machine without a GPU: it fails saying so, before
//! any key is made or glossary.toml is touched; a taken or malformed name is refused first.
//! (With a GPU, the section it writes is tested in `fleet::init_node`, and the key pair in
//! `trust::keygen`.)

mod support;
use support::fleet as fleet_fixture;

use fleet_fixture::*;
use support::text;

#[test]
fn without_a_gpu_init_node_fails_cleanly_and_writes_nothing() {
    if glossary::measure::run::gpu::driver_present() {
        eprintln!("skipped: this machine has a CUDA driver; the no-GPU path is not reachable here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fleet_project(root);
    let before = std::fs::read(root.join("glossary.toml")).unwrap();
    let key = root.join("keys/lab_ed25519");
    let out = glossary(
        root,
        &["verify", "init-node", "lab", "--key", key.to_str().unwrap()],
    );
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("no CUDA driver found")
            && said
                .contains("run it on the machine whose GPU becomes node lab; nothing was written"),
        "{said}"
    );
    assert!(!said.contains("panicked"), "{said}");
    assert!(
        !key.exists() && !root.join("keys").exists(),
        "no key is made without a GPU"
    );
    assert_eq!(std::fs::read(root.join("glossary.toml")).unwrap(), before);

    // --print too: it still needs the GPU's facts.
    let out = glossary(
        root,
        &[
            "verify",
            "init-node",
            "lab",
            "--print",
            "--key",
            key.to_str().unwrap(),
        ],
    );
    assert!(
        !out.status.success() && text(&out).contains("no CUDA driver found"),
        "{}",
        text(&out)
    );

    // A name the file already has, or one that cannot name a node, is refused first.
    let out = glossary(
        root,
        &[
            "verify",
            "init-node",
            "node-a",
            "--key",
            key.to_str().unwrap(),
        ],
    );
    assert!(
        text(&out).contains("already has [nodes.node-a]"),
        "{}",
        text(&out)
    );
    let out = glossary(
        root,
        &[
            "verify",
            "init-node",
            "H100",
            "--key",
            key.to_str().unwrap(),
        ],
    );
    assert!(
        text(&out).contains("`H100` cannot name a node"),
        "{}",
        text(&out)
    );
    let out = glossary(
        root,
        &[
            "verify",
            "init-node",
            "lab",
            "--datasheet",
            "http://x",
            "--key",
            key.to_str().unwrap(),
        ],
    );
    assert!(
        text(&out).contains("--datasheet: datasheet = \"http://x\": write the https:// address"),
        "{}",
        text(&out)
    );
    assert!(!key.exists());
    assert_eq!(std::fs::read(root.join("glossary.toml")).unwrap(), before);
}
