//! A dry run off the node: no driver, but NVRTC is installed (a laptop with the CUDA
//! toolkit, or CI with the `nvidia-cuda-nvrtc` wheel). Every experiment's kernels are
//! compiled for the node's architecture with each distinct option list its configs use,
//! and every kernel a launch names is looked up in what came out, so an author learns of
//! a compile error or a misspelt kernel before any time on the GPU is spent. What needs
//! the driver (registers, occupancy, whether a launch fits) still waits for the node.

use std::collections::HashMap;

use super::compile::{cubin, cubin_names, options_for};
use super::RunError;
use crate::measure::spec::plan::ConfigPlan;
use crate::measure::spec::Experiment;

/// Compile `exp` for `arch` (`sm_90`, or `sm_90a` when it asks) as its `plans` ask. Errors: the first compile
/// failure of each option list, then every launch whose kernel is missing, one per site.
pub fn compile_experiment(
    exp: &Experiment,
    plans: &[ConfigPlan],
    arch: &str,
) -> Result<(), RunError> {
    let file = exp.path();
    let source = exp.kernel_source()?;
    let arch = exp.target_arch(arch)?;
    let mut built: HashMap<Vec<String>, Vec<u8>> = HashMap::new();
    let mut missing = Vec::new();
    for plan in plans {
        let options = options_for(&plan.compile_options, &arch, &[]);
        if !built.contains_key(&options) {
            built.insert(options.clone(), cubin(&file, &source, &options)?);
        }
        let code = &built[&options];
        for l in plan.launches.iter().chain(plan.reference.iter().flatten()) {
            let at = l.at.key("kernel").value();
            if !cubin_names(code, &l.kernel) && !missing.iter().any(|(a, _)| *a == at) {
                missing.push((
                    at,
                    format!(
                        "config `{}`: kernel `{}` is not in the compiled sources (is it `extern \"C\" __global__`?)",
                        plan.label, l.kernel
                    ),
                ));
            }
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    let errors = missing
        .into_iter()
        .map(|(at, msg)| exp.error_at(Some(&at), msg))
        .collect();
    Err(RunError::Spec(
        crate::Error::collect(errors)
            .err()
            .unwrap_or_else(|| crate::Error::Other("no problem reported".into())),
    ))
}
