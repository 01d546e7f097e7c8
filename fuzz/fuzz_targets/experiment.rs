//! An experiment file: parsed and checked (every expression in it included), then planned
//! for a device, which evaluates each expression with the params and axes.
#![no_main]

use std::path::Path;

use glossary::measure::spec::plan::{plan, DeviceVars};
use glossary::measure::spec::ExperimentSpec;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let Ok(spec) = ExperimentSpec::parse(Path::new("measurements/fuzz/experiment.yaml"), text)
    else {
        return;
    };
    let device: DeviceVars = [
        ("sm_count", 132),
        ("l2_bytes", 62_914_560),
        ("mem_bytes", 150_000_000_000),
        ("max_threads_per_block", 1024),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let _ = plan(&spec, &device);
});
