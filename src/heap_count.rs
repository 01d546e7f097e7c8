//! The allocator's settings ([`purge_freed_memory_at_once`] and
//! [`small_site_keeps_freed_memory_briefly`]), and a live-heap counter for finding where a
//! build's memory goes (`--features heap-count`):
//! the binary's allocator is then mimalloc wrapped in two counters (bytes live, and the
//! most live since the last report), and `GLOSSARY_HEAP_LOG=MS` prints one line every MS
//! milliseconds to standard error: seconds since start, live heap, its peak since the
//! line before, and the process's resident set (`/proc/self/statm`). Set beside RSS, it
//! tells live data from pages the allocator holds around freed memory, which heaptrack
//! (glibc only) and `/usr/bin/time` (RSS only) cannot. Off by default: the counters made
//! two 100,000-entry builds 9% and 17% longer.

use std::alloc::{GlobalAlloc, Layout};
use std::os::raw::{c_int, c_long};

// mimalloc's option calls, from the C library the `mimalloc` crate links (its Rust
// bindings name no constant for the purge delay).
extern "C" {
    fn mi_option_get(option: c_int) -> c_long;
    fn mi_option_set(option: c_int, value: c_long);
}

/// `mi_option_purge_delay` in mimalloc.h's `mi_option_t` (v2.3, the `v2` feature):
/// milliseconds between a page falling free and its memory going back to the system.
const MI_OPTION_PURGE_DELAY: c_int = 15;

/// mimalloc's own purge delay, kept by [`purge_freed_memory_at_once`] when it sets 0
/// (-1 until then: nothing to put back).
static DEFAULT_PURGE_DELAY: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(-1);

/// Give freed pages back to the system at once (mimalloc's `purge_delay` 0, not its
/// default 10 ms), unless `MIMALLOC_PURGE_DELAY` says otherwise; set when the program
/// starts, since a large build's peak comes early (verifying every signature, reading
/// every entry) as well as late (the load's data freed while the render allocates): pages
/// held for those 10 ms were part of it. Interleaved cold builds of the plain release
/// binary on a shared 2-core machine: at 100,000 entries peak RSS 546-563 MiB with it
/// against 592-607 MiB with the 10 ms, for about 1 s more sys time. Set only once a build
/// knew its site was large (past `pipeline::KEEP_BODIES_UP_TO` entries, at its first
/// entry), the peak was 603 MiB: too late. A small site puts the default back instead
/// ([`small_site_keeps_freed_memory_briefly`]).
pub fn purge_freed_memory_at_once() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: reads and sets one of mimalloc's options, which it reads on each purge.
        unsafe {
            DEFAULT_PURGE_DELAY.store(mi_option_get(MI_OPTION_PURGE_DELAY) as i64, Relaxed);
            mi_option_set(MI_OPTION_PURGE_DELAY, 0);
        }
    }
}

/// mimalloc's default purge delay back, for a build of a small site (up to
/// `pipeline::KEEP_BODIES_UP_TO` entries), called at its first entry: at 10,000 entries
/// the delay of 0 cost about 0.2 s (10%) more CPU for 132-135 against 139-149 MiB, memory
/// such a site does not need (its peak is far under the 200 MB target). Once per process,
/// and nothing when the delay was not changed (`MIMALLOC_PURGE_DELAY` set, or a library
/// caller that never called [`purge_freed_memory_at_once`]).
pub fn small_site_keeps_freed_memory_briefly() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = DEFAULT_PURGE_DELAY.load(Relaxed);
        if default >= 0 {
            // SAFETY: as above.
            unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, default as c_long) };
        }
    });
}

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

#[cfg(test)]
mod purge_tests {
    use super::*;

    extern "C" {
        fn mi_option_get(option: c_int) -> c_long;
    }

    /// mimalloc's purge delay now.
    fn purge_delay() -> c_long {
        // SAFETY: reads one of mimalloc's options.
        unsafe { mi_option_get(MI_OPTION_PURGE_DELAY) }
    }

    /// mimalloc reads `MIMALLOC_PURGE_DELAY` into its purge-delay option when it starts:
    /// in a child run of this test with it set, the option number used here reads it
    /// back, so the number is the purge delay's and not another option's; and the call
    /// leaves a value the environment gave alone.
    #[test]
    fn the_option_set_is_mimallocs_purge_delay() {
        if std::env::var_os("GLOSSARY_PURGE_CHILD").is_some() {
            assert_eq!(purge_delay(), 7);
            purge_freed_memory_at_once();
            assert_eq!(purge_delay(), 7);
            return;
        }
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "heap_count::purge_tests::the_option_set_is_mimallocs_purge_delay",
                "--test-threads=1",
            ])
            .env("MIMALLOC_PURGE_DELAY", "7")
            .env("GLOSSARY_PURGE_CHILD", "1")
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && said.contains("1 passed"), "{said}");
        // Here, without the variable: mimalloc's default, then 0.
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert_eq!(purge_delay(), 10);
            purge_freed_memory_at_once();
            assert_eq!(purge_delay(), 0);
        }
    }
}
