//! A record file (`measurements/<experiment>/records/<node>.json`): parsed as a build reads
//! it, then what a page shows of it: its provenance and every column of every row.
#![no_main]

use std::path::Path;

use glossary::measure::Record;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let Ok(record) = Record::parse(Path::new("measurements/fuzz/records/node.json"), text)
    else {
        return;
    };
    let _ = record.provenance();
    for config in &record.configs {
        let _ = config.unconverged();
        for name in ["median_ms", "gbps", "occupancy", "label"] {
            let _ = config.column(name);
            let _ = config.estimate(name, record.schema);
        }
        let _ = record.heading(&config.label);
    }
});
