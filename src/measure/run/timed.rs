//! A timed experiment: per configuration, run the reference and the config's launches on
//! the same seeded inputs and compare the outputs, then time the timed launch with CUDA
//! events until the spread settles. A config that differs gets no timing.

use std::time::Instant;

use cudarc::driver::sys::{CUevent_flags, CUgraphInstantiate_flags_enum, CUstreamCaptureMode};
use cudarc::driver::{CudaEvent, CudaGraph, CudaSlice, DevicePtrMut};

use super::buffers::Buffers;
use super::clocks::{judge, median_power, ClockMonitor, Reading};
use super::correctness::compare;
use super::error::{Doing, RunError};
use super::gpu::Gpu;
use super::prepare::{PreparedConfig, PreparedLaunch};
use super::stats::{next_step, summarize, Next};
use crate::measure::record::{ConfigRecord, ConfigStatus, Quantity, Timing};
use crate::measure::spec::plan::{LaunchPlan, Sampling};
use crate::measure::spec::{Mode, TimingPolicy};

/// Samples queued between host synchronizations.
const BATCH: usize = 10;

/// The reference's outputs, kept while the next config has the same reference and inputs.
struct Expected {
    launches: Vec<LaunchPlan>,
    outputs: Vec<Vec<u8>>,
}

/// The clock-event reasons seen while each row's samples ran, by row label (rows with
/// none are left out): `Record::extra`'s `clock_events`.
pub type ClockEvents = std::collections::BTreeMap<String, Vec<&'static str>>;

/// Check then time every prepared configuration, with the clock-event reasons each row
/// saw. `tick` is called after each one.
pub fn run(
    gpu: &Gpu,
    mode: Mode,
    seed: u64,
    policy: &TimingPolicy,
    prepared: Vec<PreparedConfig>,
    clocks: Option<&ClockMonitor>,
    tick: &mut dyn FnMut(&str),
) -> Result<(Vec<ConfigRecord>, ClockEvents), RunError> {
    let mut out = Vec::new();
    let mut events = ClockEvents::new();
    if mode == Mode::Occupancy {
        for p in prepared {
            tick(&p.plan.label);
            out.push(p.record);
        }
        return Ok((out, events));
    }
    let mut flush = if policy.flush_l2 {
        // Twice L2 so that no line the kernel will read survives.
        let bytes = flush_bytes(gpu) as usize;
        Some(
            // SAFETY: only ever overwritten, never read.
            unsafe { gpu.stream.alloc::<u8>(bytes) }
                .doing(|| "allocating the L2 flush buffer".into())?,
        )
    } else {
        None
    };
    let mut held: Option<Buffers> = None;
    let mut expected: Option<Expected> = None;
    for p in prepared {
        let same_inputs = held
            .as_ref()
            .is_some_and(|h| h.matches(&p.plan.buffers, seed));
        let buffers = Buffers::ensure(held.take(), gpu, &p.plan.buffers, seed)?;
        if !same_inputs
            || expected
                .as_ref()
                .is_some_and(|e| Some(&e.launches) != p.plan.reference.as_ref())
        {
            expected = None;
        }
        let mut record = p.record.clone();
        match check(gpu, &buffers, &p, &mut expected)? {
            Err((reason, wrong, first_index)) => {
                record.status = ConfigStatus::Failed {
                    reason,
                    wrong,
                    first_index,
                };
            }
            Ok(()) => {
                let before: Vec<&PreparedLaunch> = p
                    .launches
                    .iter()
                    .zip(&p.plan.launches)
                    .filter(|(_, plan)| plan.before_each_sample)
                    .map(|(l, _)| l)
                    .collect();
                let raw = time_config(
                    gpu,
                    policy,
                    &buffers,
                    p.timed(),
                    &before,
                    &p.plan.label,
                    flush.as_mut(),
                    clocks,
                )?;
                if let Some(c) = raw.clock.as_ref().filter(|c| !c.reasons.is_empty()) {
                    events.insert(p.plan.label.clone(), c.reasons.clone());
                }
                if let Some(w) = raw.power_w {
                    record
                        .quantities
                        .insert(POWER.to_string(), power_quantity(w));
                }
                record.timing = Some(finish_timing(raw));
            }
        }
        tick(&record.label);
        out.push(record);
        held = Some(buffers);
    }
    Ok((out, events))
}

pub fn flush_bytes(gpu: &Gpu) -> u64 {
    (2 * gpu.info.l2_bytes.unwrap_or(64 << 20)).max(1 << 20)
}

type CheckFailure = (String, Option<u64>, Option<u64>);

/// Poison, run the reference (or reuse its outputs), poison, run the config, compare.
fn check(
    gpu: &Gpu,
    buffers: &Buffers,
    p: &PreparedConfig,
    expected: &mut Option<Expected>,
) -> Result<Result<(), CheckFailure>, RunError> {
    let run_all = |launches: &[PreparedLaunch]| -> Result<Result<(), String>, RunError> {
        buffers.poison(gpu)?;
        for l in launches {
            l.apply()?;
            if let Err(e) = buffers.launch(gpu, l) {
                return Ok(Err(e.to_string()));
            }
        }
        if let Err(e) = gpu.stream.synchronize() {
            return Ok(Err(format!("kernel failed: {e:?}")));
        }
        Ok(Ok(()))
    };
    if let Some(reference) = &p.reference {
        if expected.is_none() {
            if let Err(e) = run_all(reference)? {
                return Ok(Err((format!("the reference failed: {e}"), None, None)));
            }
            *expected = Some(Expected {
                launches: p.plan.reference.clone().unwrap_or_default(),
                outputs: buffers.read_outputs(gpu)?,
            });
        }
    }
    if let Err(e) = run_all(&p.launches)? {
        return Ok(Err((e, None, None)));
    }
    let Some(expected) = expected.as_ref() else {
        return Ok(Ok(()));
    };
    let got = buffers.read_outputs(gpu)?;
    let mut first: Option<String> = None;
    let (mut wrong, mut first_index) = (0u64, None);
    for ((b, g), e) in buffers.outputs().zip(&got).zip(&expected.outputs) {
        if let Err(m) = compare(&b.name, b.ty, b.tolerance.as_ref(), g, e) {
            wrong += m.wrong;
            if first.is_none() {
                first_index = Some(m.first_index);
                first = Some(m.to_string());
            }
        }
    }
    Ok(match first {
        None => Ok(()),
        Some(reason) => Err((reason, Some(wrong), first_index)),
    })
}

struct RawTiming {
    samples: Vec<f64>,
    /// Host (CPU) time each sample's enqueueing took, ms.
    host_ms: Vec<f64>,
    converged: bool,
    clock: Option<super::clocks::ClockVerdict>,
    /// The median board power nvidia-smi read while the samples ran.
    power_w: Option<f64>,
}

fn time_config(
    gpu: &Gpu,
    policy: &TimingPolicy,
    buffers: &Buffers,
    l: &PreparedLaunch,
    before: &[&PreparedLaunch],
    label: &str,
    mut flush: Option<&mut CudaSlice<u8>>,
    clocks: Option<&ClockMonitor>,
) -> Result<RawTiming, RunError> {
    let stream = &gpu.stream;
    let sync = |what: &str| stream.synchronize().doing(|| format!("{label}: {what}"));
    // The launches queued ahead of each sample (`before_each_sample`).
    let enqueue_before = || -> Result<(), RunError> {
        for b in before {
            b.apply()?;
            buffers
                .launch(gpu, b)
                .doing(|| format!("{label}: launching {} before a sample", b.plan.kernel))?;
        }
        if !before.is_empty() {
            // The launches before may share the timed launch's function.
            l.apply()?;
        }
        Ok(())
    };
    l.apply()?;
    // One sample's work: `repeat` launches, one by one or as the graph captured once.
    let sample = Sample::new(gpu, buffers, l, label)?;
    // Warm-up, in the samples' form: one to learn its length, then enough to fill the
    // warm-up time.
    let t0 = Instant::now();
    enqueue_before()?;
    sample.run(gpu, buffers, l)?;
    sync("warm-up")?;
    let one_ms = t0.elapsed().as_secs_f64() * 1e3;
    let more = ((policy.warmup_ms / one_ms.max(1e-3)).ceil() as usize).min(10_000);
    for _ in 0..more {
        enqueue_before()?;
        sample.run(gpu, buffers, l)?;
    }
    sync("warm-up")?;

    let event = || {
        gpu.ctx
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .doing(|| "creating a timing event".into())
    };
    let pairs: Vec<(CudaEvent, CudaEvent)> = (0..BATCH)
        .map(|_| Ok((event()?, event()?)))
        .collect::<Result<_, RunError>>()?;
    let started = Instant::now();
    let mut samples = Vec::new();
    let mut host_ms = Vec::new();
    let mut batches = Vec::new();
    let converged = 'sampling: loop {
        let batch_start = Instant::now();
        for (start, end) in &pairs {
            if let Some(buf) = flush.as_deref_mut() {
                let len = buf.len();
                let (ptr, _sync) = buf.device_ptr_mut(stream);
                // SAFETY: `ptr` addresses the flush buffer's own `len` bytes.
                unsafe {
                    cudarc::driver::result::memset_d8_async(ptr, 0x5a, len, stream.cu_stream())
                }
                .doing(|| "flushing L2".into())?;
            }
            enqueue_before()?;
            start.record(stream).doing(|| "recording an event".into())?;
            let enqueue = Instant::now();
            sample.run(gpu, buffers, l)?;
            host_ms.push(enqueue.elapsed().as_secs_f64() * 1e3);
            end.record(stream).doing(|| "recording an event".into())?;
        }
        let mut taken = 0;
        let mut stop = None;
        for (start, end) in &pairs {
            let ms = start
                .elapsed_ms(end)
                .doing(|| format!("{label}: reading event time"))?;
            samples.push(ms as f64);
            taken += 1;
            if let Next::Stop { converged } =
                next_step(&samples, started.elapsed().as_secs_f64() * 1e3, policy)
            {
                stop = Some(converged);
                break;
            }
        }
        batches.push((taken, batch_start, Instant::now()));
        if let Some(c) = stop {
            break 'sampling c;
        }
    };
    let readings: Option<Vec<(usize, Vec<Reading>)>> = clocks.map(|m| {
        batches
            .iter()
            .map(|(n, from, to)| (*n, m.between(*from, *to)))
            .collect()
    });
    let clock = readings.as_ref().map(|per_batch| {
        let mhz: Vec<(usize, Vec<super::clocks::Seen>)> = per_batch
            .iter()
            .map(|(n, r)| (*n, r.iter().map(|r| (r.sm_mhz, r.reasons)).collect()))
            .collect();
        judge(&mhz, gpu.limits.max_sm_clock_mhz)
    });
    let power_w = readings.and_then(|per_batch| {
        let all: Vec<Reading> = per_batch.into_iter().flat_map(|(_, r)| r).collect();
        median_power(&all)
    });
    Ok(RawTiming {
        samples,
        host_ms,
        converged,
        clock,
        power_w,
    })
}

/// The recorded name of the median board power while a row's samples ran.
pub const POWER: &str = "power_w";

/// Where a row keeps its median board power: a quantity read by nvidia-smi, timed (a run
/// observation, which moves between runs) and without an interval. A row without a power
/// reading has none (unknown, never 0).
pub fn power_quantity(watts: f64) -> Quantity {
    Quantity {
        value: Some(watts),
        unit: "W".into(),
        heading: Some("board power (median)".into()),
        decimals: Some(0),
        source: "nvidia-smi".into(),
        not_measured: None,
        timed: true,
        interval: None,
    }
}

/// What runs between a sample's two events: the timed launch `repeat` times, or the
/// CUDA graph of those launches, captured once here and launched once a sample.
enum Sample {
    Launches(u32),
    Graph(CudaGraph),
}

impl Sample {
    fn new(
        gpu: &Gpu,
        buffers: &Buffers,
        l: &PreparedLaunch,
        label: &str,
    ) -> Result<Sample, RunError> {
        let Sampling { repeat, graph } = l.plan.sampling;
        if !graph {
            return Ok(Sample::Launches(repeat));
        }
        // Captured on a stream of its own (the GPU's stream is the legacy default
        // stream, which cannot be captured); launched on the GPU's stream, between the
        // sample's events.
        let capture = gpu
            .ctx
            .new_stream()
            .doing(|| format!("{label}: creating a stream to capture the graph"))?;
        capture
            .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .doing(|| format!("{label}: beginning the graph capture"))?;
        let mut launched = Ok(());
        for _ in 0..repeat {
            launched = buffers.launch_on(&capture, l);
            if launched.is_err() {
                break;
            }
        }
        // The capture always ends, so the stream is usable (and droppable) after an error.
        let graph = capture.end_capture(CUgraphInstantiate_flags_enum(0));
        launched?;
        let graph = graph
            .doing(|| format!("{label}: ending the capture and instantiating the graph"))?
            .ok_or_else(|| {
                RunError::Other(format!("{label}: the graph capture recorded no launch"))
            })?;
        graph
            .upload()
            .doing(|| format!("{label}: uploading the graph"))?;
        Ok(Sample::Graph(graph))
    }

    fn run(&self, gpu: &Gpu, buffers: &Buffers, l: &PreparedLaunch) -> Result<(), RunError> {
        match self {
            Sample::Launches(n) => {
                for _ in 0..*n {
                    buffers.launch(gpu, l)?;
                }
                Ok(())
            }
            // SAFETY: the graph's executable is owned by `g`, which outlives the call;
            // launching it on another stream of the same context is allowed.
            Sample::Graph(g) => unsafe {
                cudarc::driver::result::graph::launch(g.cu_graph_exec(), gpu.stream.cu_stream())
            }
            .doing(|| format!("launching the graph of {}", l.plan.kernel)),
        }
    }
}

fn finish_timing(raw: RawTiming) -> Timing {
    // Without a clock monitor no sample was observed: every one is unobserved.
    let raw_samples_len = raw.samples.len() as u32;
    // Non-finite event times cannot happen for a completed pair; guard anyway.
    let s = summarize(&raw.samples).unwrap_or(super::stats::Summary {
        median: f64::NAN,
        min: f64::NAN,
        max: f64::NAN,
        mean: f64::NAN,
        rsd: f64::NAN,
    });
    let interval = super::stats::median_interval(&raw.samples);
    Timing {
        interval,
        samples_ms: raw.samples,
        median_ms: s.median,
        min_ms: s.min,
        max_ms: s.max,
        rsd: s.rsd,
        sm_clock_mhz: raw.clock.as_ref().and_then(|c| c.median_mhz),
        throttled_samples: raw.clock.as_ref().and_then(|c| c.throttled_samples),
        unobserved_samples: raw
            .clock
            .as_ref()
            .map_or(raw_samples_len, |c| c.unobserved_samples),
        converged: raw.converged,
        host_median_ms: summarize(&raw.host_ms).map(|s| s.median),
    }
}

/// Run every launch of every configuration once, in order, and nothing else: the pass
/// `ncu` watches, one profiled kernel per launch.
pub fn launch_once(gpu: &Gpu, seed: u64, prepared: &[PreparedConfig]) -> Result<(), RunError> {
    let mut held: Option<Buffers> = None;
    for p in prepared {
        let buffers = Buffers::ensure(held.take(), gpu, &p.plan.buffers, seed)?;
        for l in &p.launches {
            l.apply()?;
            buffers.launch(gpu, l)?;
        }
        gpu.stream
            .synchronize()
            .doing(|| format!("{}: profiled launch", p.plan.label))?;
        held = Some(buffers);
    }
    Ok(())
}
