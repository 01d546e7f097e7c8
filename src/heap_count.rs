//! A live-heap counter for finding where a build's memory goes (`--features heap-count`):
//! the binary's allocator is then mimalloc wrapped in two counters (bytes live, and the
//! most live since the last report), and `GLOSSARY_HEAP_LOG=MS` prints one line every MS
//! milliseconds to standard error: seconds since start, live heap, its peak since the
//! line before, and the process's resident set (`/proc/self/statm`). Set beside RSS, it
//! tells live data from pages the allocator holds around freed memory, which heaptrack
//! (glibc only) and `/usr/bin/time` (RSS only) cannot. Off by default: the counters made
//! two 100,000-entry builds 9% and 17% longer.

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// mimalloc, counting.
pub struct Counting;

fn grew(by: usize) {
    let now = LIVE.fetch_add(by, Relaxed) + by;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: every call is passed to mimalloc unchanged; the counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { mimalloc::MiMalloc.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        match new_size.checked_sub(layout.size()) {
            Some(more) => grew(more),
            None => {
                LIVE.fetch_sub(layout.size() - new_size, Relaxed);
            }
        }
        unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) }
    }
}

/// Start the reporting thread when `GLOSSARY_HEAP_LOG` names an interval in milliseconds.
pub fn start_log() {
    let Some(ms) = std::env::var("GLOSSARY_HEAP_LOG")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    else {
        return;
    };
    let start = std::time::Instant::now();
    std::thread::spawn(move || loop {
        let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
        let pages: usize = statm
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let live = LIVE.load(Relaxed);
        let peak = PEAK.swap(live, Relaxed);
        eprintln!(
            "heap {:.2} s: live {} MB, peak {} MB, rss {} MB",
            start.elapsed().as_secs_f64(),
            live >> 20,
            peak >> 20,
            (pages * 4096) >> 20
        );
        std::thread::sleep(std::time::Duration::from_millis(ms.max(1)));
    });
}
