//! `glossary verify --dry-run` off the node, with NVRTC but no CUDA driver (CI installs
//! NVIDIA's `nvidia-cuda-nvrtc` wheel for this): every committed experiment's kernels
//! compile for the node's architecture and every launch names a kernel that is in them,
//! and a compile error or a misspelt kernel is an error at its file and line. Skipped
//! where a driver is present (the dry run then uses the GPU) or NVRTC is not.

mod support;

use support::{copy_dir, repo, run as glossary, text};

/// Why these tests cannot run here, if they cannot.
fn unavailable() -> Option<&'static str> {
    if glossary::measure::run::gpu::driver_present() {
        Some("a CUDA driver is present on this machine (the dry run compiles on the GPU)")
    } else if !glossary::measure::run::gpu::nvrtc_present() {
        Some("no NVRTC library on this machine (.ci/run installs the nvidia-cuda-nvrtc wheel)")
    } else {
        None
    }
}

/// A project with the repository's config and one of its experiments.
fn project(experiment: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        repo().join("glossary.toml"),
        dir.path().join("glossary.toml"),
    )
    .unwrap();
    copy_dir(
        &repo().join("measurements").join(experiment),
        &dir.path().join("measurements").join(experiment),
    );
    dir
}

#[test]
fn every_committed_experiment_compiles_for_the_h200() {
    if let Some(why) = unavailable() {
        support::skip(why);
        return;
    }
    let out = glossary(&repo(), &["verify", "--node", "h200", "--dry-run"]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains(
            "kernels compiled with NVRTC for sm_90 and every launch's kernel found in them"
        ),
        "{said}"
    );
}

#[test]
fn a_compile_error_names_the_kernel_file_and_line() {
    if let Some(why) = unavailable() {
        support::skip(why);
        return;
    }
    let site = project("bank-conflicts");
    let cu = site
        .path()
        .join("measurements/bank-conflicts/bank_conflicts.cu");
    let source = std::fs::read_to_string(&cu).unwrap();
    let line = source.lines().count() + 2;
    std::fs::write(
        &cu,
        format!("{source}\n__device__ int broken() {{ return undeclared_name; }}\n"),
    )
    .unwrap();
    let out = glossary(site.path(), &["verify", "--node", "h200", "--dry-run"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("NVRTC could not compile the kernels"),
        "{said}"
    );
    assert!(
        said.contains(&format!("bank_conflicts.cu:{line}")) && said.contains("undeclared_name"),
        "{said}"
    );
}

#[test]
fn a_launch_of_a_kernel_the_compiler_never_sees_is_an_error_at_its_line() {
    if let Some(why) = unavailable() {
        support::skip(why);
        return;
    }
    // The reference kernel is still in the file, so reading the source finds it, but the
    // preprocessor removes it: only the compiled code can say it is not there.
    let site = project("day45-occupancy");
    let dir = site.path().join("measurements/day45-occupancy");
    let cu = dir.join("axpy.cu");
    let source = std::fs::read_to_string(&cu).unwrap();
    let at = source
        .find("extern \"C\" __global__ void axpy_reference")
        .unwrap();
    std::fs::write(
        &cu,
        format!("{}#if 0\n{}#endif\n", &source[..at], &source[at..]),
    )
    .unwrap();
    let yaml = std::fs::read_to_string(dir.join("experiment.yaml")).unwrap();
    let line = yaml
        .lines()
        .position(|l| l.contains("kernel: axpy_reference"))
        .unwrap()
        + 1;
    let out = glossary(site.path(), &["verify", "--node", "h200", "--dry-run"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!("experiment.yaml:{line}"))
            && said.contains("kernel `axpy_reference` is not in the compiled sources"),
        "{said}"
    );
    // One error for the one launch, however many configs use it.
    assert_eq!(
        said.matches("is not in the compiled sources").count(),
        1,
        "{said}"
    );
}

#[test]
fn wgmma_compiles_only_for_the_arch_specific_target_the_experiment_asks_for() {
    if let Some(why) = unavailable() {
        support::skip(why);
        return;
    }
    // tensor-cores' wgmma rows need sm_90a: as committed (`arch_specific: true`) the dry
    // run compiles them; without the key NVRTC targets plain sm_90 and refuses wgmma.
    let site = project("tensor-cores");
    let out = glossary(site.path(), &["verify", "--node", "h100", "--dry-run"]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    let yaml = site
        .path()
        .join("measurements/tensor-cores/experiment.yaml");
    let text_of = std::fs::read_to_string(&yaml).unwrap();
    assert!(text_of.contains("\narch_specific: true\n"), "{text_of}");
    std::fs::write(&yaml, text_of.replace("\narch_specific: true\n", "\n")).unwrap();
    let out = glossary(site.path(), &["verify", "--node", "h100", "--dry-run"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("NVRTC could not compile the kernels") && said.contains("wgmma"),
        "{said}"
    );
}
