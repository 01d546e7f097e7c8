//! Reading the SM clock, its clock-event (throttle) reasons and board power while samples
//! run, to flag throttled samples and to record what the GPU ran at. NVML is read
//! directly (`nvml-wrapper`, which loads libnvidia-ml.so.1 at run time, so this builds and
//! runs on a machine without a GPU, where it reads nothing); where NVML cannot be loaded,
//! `nvidia-smi` polls it for us, without reasons. Clocks are only ever read, never set.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nvml_wrapper::bitmasks::device::ThrottleReasons;

/// nvidia-smi's poll interval: it starts a process, so not much finer.
const POLL_MS: u64 = 50;
/// NVML's: a library call, cheap enough to cover short samples' batches.
const NVML_POLL_MS: u64 = 5;

#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    pub at: Instant,
    pub sm_mhz: u32,
    /// Board power draw in watts; None where it could not be read.
    pub power_w: Option<f64>,
    /// NVML's clock-event reasons (`nvmlDeviceGetCurrentClocksEventReasons`) as its bit
    /// mask; None from nvidia-smi, which is not asked for them.
    pub reasons: Option<u64>,
}

/// The clock-event reasons NVML reports, by the name a record keeps, and whether each
/// slows the clock below what the GPU would otherwise run at (a throttle). The others say
/// why the clock is what it is without it being pulled down mid-run (idle, a clock
/// setting, a sync-boost group).
pub const REASONS: &[(ThrottleReasons, &str, bool)] = &[
    (ThrottleReasons::GPU_IDLE, "gpu_idle", false),
    (
        ThrottleReasons::APPLICATIONS_CLOCKS_SETTING,
        "applications_clocks_setting",
        false,
    ),
    (ThrottleReasons::SW_POWER_CAP, "sw_power_cap", true),
    (ThrottleReasons::HW_SLOWDOWN, "hw_slowdown", true),
    (ThrottleReasons::SYNC_BOOST, "sync_boost", false),
    (
        ThrottleReasons::SW_THERMAL_SLOWDOWN,
        "sw_thermal_slowdown",
        true,
    ),
    (
        ThrottleReasons::HW_THERMAL_SLOWDOWN,
        "hw_thermal_slowdown",
        true,
    ),
    (
        ThrottleReasons::HW_POWER_BRAKE_SLOWDOWN,
        "hw_power_brake_slowdown",
        true,
    ),
    (
        ThrottleReasons::DISPLAY_CLOCK_SETTING,
        "display_clock_setting",
        false,
    ),
];

/// The names of the reasons set in `bits`, in [`REASONS`] order.
pub fn reason_names(bits: u64) -> Vec<&'static str> {
    REASONS
        .iter()
        .filter(|(flag, _, _)| bits & flag.bits() != 0)
        .map(|(_, name, _)| *name)
        .collect()
}

/// Whether `bits` holds a reason that pulls the clock down (power cap, thermal, slowdown).
pub fn throttling(bits: u64) -> bool {
    REASONS
        .iter()
        .any(|(flag, _, limits)| *limits && bits & flag.bits() != 0)
}

/// What nvidia-smi is asked for, in the order [`parse_reading`] reads it.
pub const QUERY: &str = "--query-gpu=clocks.sm,power.draw";

/// Where the readings come from, as the record's provenance says it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Source {
    Nvml,
    NvidiaSmi,
}

impl Source {
    pub fn describe(self) -> String {
        match self {
            Source::Nvml => format!("NVML (nvml-wrapper): SM clock, clock-event reasons and power every {NVML_POLL_MS} ms (read only)"),
            Source::NvidiaSmi => format!("nvidia-smi {QUERY} -lms {POLL_MS} (read only; NVML could not be loaded, so no clock-event reasons)"),
        }
    }
}

/// A background reader of one GPU's clock: an NVML polling thread, or, where NVML
/// cannot be loaded, `nvidia-smi --query-gpu=clocks.sm,power.draw -lms 50`.
pub struct ClockMonitor {
    pub source: Source,
    child: Option<Child>,
    stop: Arc<AtomicBool>,
    readings: Arc<Mutex<Vec<Reading>>>,
    reader: Option<JoinHandle<()>>,
}

impl ClockMonitor {
    /// None when neither NVML nor nvidia-smi can read this GPU's clock.
    pub fn start(uuid: &str) -> Option<ClockMonitor> {
        ClockMonitor::start_nvml(uuid).or_else(|| ClockMonitor::start_nvidia_smi(uuid))
    }

    /// NVML on a thread of its own (its handles borrow the library, so they live where
    /// they are used); the first reading is taken before this returns, so a GPU NVML
    /// cannot read falls back to nvidia-smi.
    fn start_nvml(uuid: &str) -> Option<ClockMonitor> {
        let readings = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (ready, started) = mpsc::channel::<bool>();
        let (sink, halt, uuid) = (readings.clone(), stop.clone(), uuid.to_string());
        let reader = std::thread::spawn(move || {
            let Ok(nvml) = nvml_wrapper::Nvml::init() else {
                let _ = ready.send(false);
                return;
            };
            let Ok(device) = nvml.device_by_uuid(uuid) else {
                let _ = ready.send(false);
                return;
            };
            let read = || {
                let sm_mhz = device
                    .clock_info(nvml_wrapper::enum_wrappers::device::Clock::SM)
                    .ok()?;
                Some(Reading {
                    at: Instant::now(),
                    sm_mhz,
                    power_w: device.power_usage().ok().map(|mw| f64::from(mw) / 1000.0),
                    reasons: device.current_throttle_reasons().ok().map(|r| r.bits()),
                })
            };
            let Some(first) = read() else {
                let _ = ready.send(false);
                return;
            };
            if let Ok(mut r) = sink.lock() {
                r.push(first);
            }
            let _ = ready.send(true);
            while !halt.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(NVML_POLL_MS));
                if let (Some(x), Ok(mut r)) = (read(), sink.lock()) {
                    r.push(x);
                }
            }
        });
        if started.recv().unwrap_or(false) {
            Some(ClockMonitor {
                source: Source::Nvml,
                child: None,
                stop,
                readings,
                reader: Some(reader),
            })
        } else {
            let _ = reader.join();
            None
        }
    }

    fn start_nvidia_smi(uuid: &str) -> Option<ClockMonitor> {
        let probe = Command::new("nvidia-smi")
            .args([QUERY, "--format=csv,noheader,nounits", "-i", uuid])
            .output()
            .ok()?;
        if !probe.status.success()
            || parse_reading(&String::from_utf8_lossy(&probe.stdout)).is_none()
        {
            return None;
        }
        let mut child = Command::new("nvidia-smi")
            .args([
                QUERY,
                "--format=csv,noheader,nounits",
                "-i",
                uuid,
                "-lms",
                &POLL_MS.to_string(),
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let stdout = child.stdout.take()?;
        let readings = Arc::new(Mutex::new(Vec::new()));
        let sink = readings.clone();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some((sm_mhz, power_w)) = parse_reading(&line) {
                    if let Ok(mut r) = sink.lock() {
                        r.push(Reading {
                            at: Instant::now(),
                            sm_mhz,
                            power_w,
                            reasons: None,
                        });
                    }
                }
            }
        });
        Some(ClockMonitor {
            source: Source::NvidiaSmi,
            child: Some(child),
            stop: Arc::new(AtomicBool::new(false)),
            readings,
            reader: Some(reader),
        })
    }

    fn poll_ms(&self) -> u64 {
        match self.source {
            Source::Nvml => NVML_POLL_MS,
            Source::NvidiaSmi => POLL_MS,
        }
    }

    /// Readings taken from `from` to `to`, waiting one poll interval for late ones.
    pub fn between(&self, from: Instant, to: Instant) -> Vec<Reading> {
        let wait_until = to + Duration::from_millis(self.poll_ms() + 20);
        let now = Instant::now();
        if wait_until > now {
            std::thread::sleep(wait_until - now);
        }
        // One reader thread pushes readings stamped as it takes them, so they are in time
        // order: the window is found by binary search, not by a scan of every reading of
        // the run (a 5 ms poll keeps tens of thousands, and each batch asks).
        self.readings
            .lock()
            .map(|r| {
                let start = r.partition_point(|x| x.at < from);
                let end = r.partition_point(|x| x.at <= to);
                r[start..end.max(start)].to_vec()
            })
            .unwrap_or_default()
    }
}

impl Drop for ClockMonitor {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Our own child, ended by its handle.
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
    }
}

pub fn parse_mhz(line: &str) -> Option<u32> {
    line.trim().split(',').next()?.trim().parse().ok()
}

/// One line of `clocks.sm,power.draw` (no units): the SM clock, which must be there, and
/// the power, which may be `[N/A]` (or absent, or not a finite number): None, never 0.
pub fn parse_reading(line: &str) -> Option<(u32, Option<f64>)> {
    let mhz = parse_mhz(line)?;
    let power = line
        .trim()
        .split(',')
        .nth(1)
        .and_then(|p| p.trim().parse::<f64>().ok())
        .filter(|w| w.is_finite() && *w >= 0.0);
    Some((mhz, power))
}

/// The median of the power readings taken while samples ran; None without one.
pub fn median_power(readings: &[Reading]) -> Option<f64> {
    let mut w: Vec<f64> = readings.iter().filter_map(|r| r.power_w).collect();
    if w.is_empty() {
        return None;
    }
    w.sort_by(f64::total_cmp);
    let n = w.len();
    Some(if n % 2 == 1 {
        w[n / 2]
    } else {
        (w[n / 2 - 1] + w[n / 2]) / 2.0
    })
}

/// What the clock readings say about a run of samples.
#[derive(Debug, Clone, PartialEq)]
pub struct ClockVerdict {
    pub median_mhz: Option<u32>,
    pub min_mhz: Option<u32>,
    /// Samples whose batch saw the SM clock under `THROTTLE_FRACTION` of the maximum, or
    /// a clock-event reason that pulls it down ([`throttling`]); None when no batch had a
    /// reading (unknown, never a made-up 0).
    pub throttled_samples: Option<u32>,
    /// Samples whose batch had no reading at all: not judged either way.
    pub unobserved_samples: u32,
    /// Every clock-event reason any reading of the samples' batches reported, in
    /// [`REASONS`] order (empty from nvidia-smi, which reports none).
    pub reasons: Vec<&'static str>,
}

pub const THROTTLE_FRACTION: f64 = 0.9;

/// One reading as [`judge`] needs it: the SM clock and the reasons NVML gave, if any.
pub type Seen = (u32, Option<u64>);

/// `batches`: per batch of samples, its sample count and the readings taken during it.
pub fn judge(batches: &[(usize, Vec<Seen>)], max_mhz: u32) -> ClockVerdict {
    let mut all: Vec<u32> = batches
        .iter()
        .flat_map(|(_, r)| r.iter().map(|(m, _)| *m))
        .collect();
    all.sort_unstable();
    let floor = THROTTLE_FRACTION * max_mhz as f64;
    let throttled = batches
        .iter()
        .filter(|(_, r)| {
            r.iter()
                .any(|(m, why)| (*m as f64) < floor || why.is_some_and(throttling))
        })
        .map(|(n, _)| *n as u32)
        .sum();
    let unobserved = batches
        .iter()
        .filter(|(_, r)| r.is_empty())
        .map(|(n, _)| *n as u32)
        .sum();
    let observed_any = batches.iter().any(|(_, r)| !r.is_empty());
    let bits = batches
        .iter()
        .flat_map(|(_, r)| r.iter().filter_map(|(_, why)| *why))
        .fold(0u64, |a, b| a | b);
    ClockVerdict {
        median_mhz: all.get(all.len() / 2).copied(),
        min_mhz: all.first().copied(),
        throttled_samples: observed_any.then_some(throttled),
        unobserved_samples: unobserved,
        reasons: reason_names(bits),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn between_takes_the_readings_of_its_window_only() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let readings = (0..100)
            .map(|i| Reading {
                at: at(i * 5),
                sm_mhz: 1000 + i as u32,
                power_w: None,
                reasons: None,
            })
            .collect();
        let monitor = ClockMonitor {
            source: Source::Nvml,
            child: None,
            stop: Arc::new(AtomicBool::new(false)),
            readings: Arc::new(Mutex::new(readings)),
            reader: None,
        };
        let seen: Vec<u32> = monitor
            .between(at(100), at(120))
            .iter()
            .map(|r| r.sm_mhz)
            .collect();
        assert_eq!(seen, vec![1020, 1021, 1022, 1023, 1024]);
        assert!(monitor.between(at(600), at(700)).is_empty());
        assert!(monitor.between(at(120), at(100)).is_empty());
    }

    #[test]
    fn parses_nvidia_smi_lines() {
        assert_eq!(parse_mhz("1980\n"), Some(1980));
        assert_eq!(parse_mhz("1755, 0x0000000000000000"), Some(1755));
        assert_eq!(parse_mhz("[N/A]"), None);
        assert_eq!(parse_reading("1980, 612.34\n"), Some((1980, Some(612.34))));
        assert_eq!(parse_reading("1755, [N/A]"), Some((1755, None)));
        assert_eq!(parse_reading("1755"), Some((1755, None)));
        assert_eq!(parse_reading("[N/A], 300.0"), None);
    }

    #[test]
    fn median_power_skips_missing_readings_and_is_none_without_any() {
        let at = Instant::now();
        let r = |p: Option<f64>| Reading {
            at,
            sm_mhz: 1980,
            power_w: p,
            reasons: None,
        };
        assert_eq!(
            median_power(&[r(Some(300.0)), r(None), r(Some(500.0)), r(Some(400.0))]),
            Some(400.0)
        );
        assert_eq!(median_power(&[r(Some(300.0)), r(Some(500.0))]), Some(400.0));
        assert_eq!(median_power(&[r(None), r(None)]), None);
        assert_eq!(median_power(&[]), None);
    }

    #[test]
    fn flags_the_samples_of_batches_that_saw_a_low_clock() {
        let batches = vec![
            (10, vec![(1980, None), (1980, None)]),
            (10, vec![(1700, None)]),
            (5, vec![]),
        ];
        let v = judge(&batches, 1980);
        assert_eq!(v.throttled_samples, Some(10));
        // The batch of 5 that no reading covered is neither throttled nor clean.
        assert_eq!(v.unobserved_samples, 5);
        assert_eq!(v.min_mhz, Some(1700));
        assert_eq!(v.median_mhz, Some(1980));
        assert_eq!(judge(&[], 1980).median_mhz, None);
        // Nothing observed: unknown, not "0 throttled".
        let blind = judge(&[(10, vec![]), (3, vec![])], 1980);
        assert_eq!(blind.throttled_samples, None);
        assert_eq!(blind.unobserved_samples, 13);
    }

    #[test]
    fn a_power_or_thermal_reason_throttles_a_batch_even_at_full_clock() {
        let cap = ThrottleReasons::SW_POWER_CAP.bits();
        let idle = ThrottleReasons::GPU_IDLE.bits();
        let batches = vec![
            (10, vec![(1980, Some(0)), (1980, Some(idle))]),
            (7, vec![(1980, Some(cap))]),
        ];
        let v = judge(&batches, 1980);
        // Idle says why a clock is low, it does not pull it down; the power cap does.
        assert_eq!(v.throttled_samples, Some(7));
        assert_eq!(v.reasons, vec!["gpu_idle", "sw_power_cap"]);
        assert!(throttling(cap | idle) && !throttling(idle));
        assert_eq!(
            reason_names(ThrottleReasons::HW_THERMAL_SLOWDOWN.bits()),
            vec!["hw_thermal_slowdown"]
        );
    }
}
