//! Reading the SM clock and board power while samples run, to flag throttled samples and
//! to record what the GPU ran at. NVML is not a dependency; `nvidia-smi` polls it for us.
//! Clocks are only ever read, never set.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const POLL_MS: u64 = 50;

#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    pub at: Instant,
    pub sm_mhz: u32,
    /// Board power draw in watts; None where nvidia-smi says `[N/A]`.
    pub power_w: Option<f64>,
}

/// What nvidia-smi is asked for, in the order [`parse_reading`] reads it.
pub const QUERY: &str = "--query-gpu=clocks.sm,power.draw";

/// A background `nvidia-smi --query-gpu=clocks.sm,power.draw -lms 50` for one GPU.
pub struct ClockMonitor {
    child: Child,
    readings: Arc<Mutex<Vec<Reading>>>,
    reader: Option<JoinHandle<()>>,
}

impl ClockMonitor {
    /// None when nvidia-smi is missing or cannot read this GPU's clock.
    pub fn start(uuid: &str) -> Option<ClockMonitor> {
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
                        });
                    }
                }
            }
        });
        Some(ClockMonitor {
            child,
            readings,
            reader: Some(reader),
        })
    }

    /// Readings taken from `from` to `to`, waiting one poll interval for late ones.
    pub fn between(&self, from: Instant, to: Instant) -> Vec<Reading> {
        let wait_until = to + Duration::from_millis(POLL_MS + 20);
        let now = Instant::now();
        if wait_until > now {
            std::thread::sleep(wait_until - now);
        }
        self.readings
            .lock()
            .map(|r| {
                r.iter()
                    .filter(|x| x.at >= from && x.at <= to)
                    .cloned()
                    .collect()
            })
            .unwrap_or_default()
    }
}

impl Drop for ClockMonitor {
    fn drop(&mut self) {
        // Our own child, ended by its handle.
        let _ = self.child.kill();
        let _ = self.child.wait();
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
    /// Samples whose batch saw the clock under `THROTTLE_FRACTION` of the maximum; None
    /// when no batch had a reading (unknown, never a made-up 0).
    pub throttled_samples: Option<u32>,
    /// Samples whose batch had no reading at all: not judged either way.
    pub unobserved_samples: u32,
}

pub const THROTTLE_FRACTION: f64 = 0.9;

/// `batches`: per batch of samples, its sample count and the readings taken during it.
pub fn judge(batches: &[(usize, Vec<u32>)], max_mhz: u32) -> ClockVerdict {
    let mut all: Vec<u32> = batches
        .iter()
        .flat_map(|(_, r)| r.iter().copied())
        .collect();
    all.sort_unstable();
    let floor = THROTTLE_FRACTION * max_mhz as f64;
    let throttled = batches
        .iter()
        .filter(|(_, r)| r.iter().any(|m| (*m as f64) < floor))
        .map(|(n, _)| *n as u32)
        .sum();
    let unobserved = batches
        .iter()
        .filter(|(_, r)| r.is_empty())
        .map(|(n, _)| *n as u32)
        .sum();
    let observed_any = batches.iter().any(|(_, r)| !r.is_empty());
    ClockVerdict {
        median_mhz: all.get(all.len() / 2).copied(),
        min_mhz: all.first().copied(),
        throttled_samples: observed_any.then_some(throttled),
        unobserved_samples: unobserved,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let batches = vec![(10, vec![1980, 1980]), (10, vec![1700]), (5, vec![])];
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
}
