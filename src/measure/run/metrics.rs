//! Derived quantities: each metric of the experiment evaluated for one config from its
//! params, the device, the launch as the driver resolved it, its time and its ncu
//! metrics. A metric whose inputs this config lacks (no time after a failed check, an ncu
//! metric without ncu) is recorded as not measured, with why.

use std::collections::BTreeMap;

use crate::measure::record::{Bounds, ConfigRecord, Quantity};
use crate::measure::run::stats::summarize;
use crate::measure::spec::expr::Span;
use crate::measure::spec::plan::DeviceVars;
use crate::measure::spec::{ExperimentSpec, Expr, Num, OBSERVED_NAMES};

pub fn apply(spec: &ExperimentSpec, device: &DeviceVars, rec: &mut ConfigRecord) {
    let mut env: BTreeMap<String, Num> = device
        .iter()
        .map(|(k, v)| (k.clone(), Num::Int(*v)))
        .collect();
    for (k, v) in &rec.params {
        env.insert(k.clone(), Num::Int(*v));
    }
    let facts = [
        ("blocks_per_sm", Num::Int(rec.blocks_per_sm.into())),
        ("warps_per_sm", Num::Int(rec.warps_per_sm.into())),
        ("occupancy", Num::Float(rec.occupancy)),
        ("registers", Num::Int(rec.registers.into())),
        ("grid_blocks", Num::Int(rec.grid_size as i64)),
        ("block_threads", Num::Int(rec.block_size.into())),
        ("smem_bytes", Num::Int(rec.smem_reserved.into())),
        ("waves", Num::Float(rec.waves)),
    ];
    for (k, v) in facts {
        env.insert(k.into(), v);
    }
    // One launch a sample unless the row says otherwise (its `launches_per_sample`
    // quantity, read below with the others).
    env.insert("launches_per_sample".into(), Num::Int(1));
    if let Some(mhz) = rec.timing.as_ref().and_then(|t| t.sm_clock_mhz) {
        env.insert("sm_clock_mhz".into(), Num::Int(mhz.into()));
    }
    if let Some(t) = &rec.timing {
        let mean = summarize(&t.samples_ms).map_or(f64::NAN, |s| s.mean);
        for (k, v) in [
            ("median_ms", t.median_ms),
            ("min_ms", t.min_ms),
            ("max_ms", t.max_ms),
            ("mean_ms", mean),
        ] {
            env.insert(k.into(), Num::Float(v));
        }
        if let Some(host) = t.host_median_ms {
            env.insert("host_median_ms".into(), Num::Float(host));
        }
    }
    for (k, q) in &rec.quantities {
        if let Some(v) = q.value {
            env.insert(k.clone(), Num::Float(v));
        }
    }
    // Names read from sampled time, with their intervals where they have one: the median
    // its order-statistic interval; min, max and mean none (extremes and the mean of one
    // run's samples are not estimated here), so a metric of them has no interval either.
    let mut timed: BTreeMap<String, Option<Span>> = BTreeMap::new();
    if let Some(t) = &rec.timing {
        timed.insert(
            "median_ms".into(),
            t.interval.as_ref().map(|i| (i.lo, i.hi)),
        );
        for k in ["min_ms", "max_ms", "mean_ms", "host_median_ms"] {
            timed.insert(k.into(), None);
        }
    }
    // What nvidia-smi observed during the samples moves between runs like a time and
    // has no interval: a metric of it is timed, without one.
    for k in OBSERVED_NAMES {
        timed.insert(k.to_string(), None);
    }
    for (name, m) in &spec.metrics {
        let parsed = Expr::parse(&m.value.0);
        let result = parsed.clone().and_then(|e| {
            if let Some(missing) = e.names().into_iter().find(|n| !env.contains_key(*n)) {
                return Err(why_missing(missing, rec));
            }
            e.eval(&|n| env.get(n).copied())
        });
        let (value, not_measured) = match result {
            Ok(v) => (Some(v.as_f64()), None),
            Err(why) => (None, Some(why)),
        };
        let reads_time = parsed
            .as_ref()
            .is_ok_and(|e| e.names().iter().any(|n| timed.contains_key(*n)));
        let interval = match (&parsed, value) {
            (Ok(e), Some(v)) if reads_time => e
                .eval_interval(&|n| match timed.get(n) {
                    Some(span) => *span,
                    None => env.get(n).map(|x| (x.as_f64(), x.as_f64())),
                })
                .ok()
                // Rounding can leave a bound a hair inside the value; an interval always
                // contains its value.
                .map(|(lo, hi)| Bounds {
                    lo: lo.min(v),
                    hi: hi.max(v),
                }),
            _ => None,
        };
        if let Some(v) = value {
            env.insert(name.clone(), Num::Float(v));
        }
        if reads_time {
            timed.insert(name.clone(), interval.map(|b| (b.lo, b.hi)));
        }
        rec.quantities.insert(
            name.clone(),
            Quantity {
                value,
                unit: m.unit.clone(),
                heading: m.heading.clone(),
                decimals: m.decimals,
                source: "metric".into(),
                not_measured,
                timed: reads_time,
                interval,
            },
        );
    }
}

/// Why a name a metric reads has no value in this row.
fn why_missing(name: &str, rec: &ConfigRecord) -> String {
    match name {
        n if OBSERVED_NAMES.contains(&n) && rec.timing.is_some() => format!(
            "`{n}` was not observed: no nvidia-smi reading of it while this config's samples ran"
        ),
        n if OBSERVED_NAMES.contains(&n) => {
            format!("`{n}` is not available for this config: it was not timed")
        }
        "max_active_clusters" => {
            "`max_active_clusters` is not available for this config: its timed launch is not a cluster launch".into()
        }
        n => format!("`{n}` is not available for this config"),
    }
}
