//! What one client may hold of the preview server, and the timers that take it back.
//!
//! `glossary serve` listens on localhost by default, but `--bind` can put it on a network,
//! and a page left open or a misbehaving client should not be able to grow the process or
//! pin its resources. Every bound is here, in one place:
//!
//! - a request's headers (start line included) over [`MAX_HEADER_BYTES`] get 431 and the
//!   connection is closed; hyper stops reading there, so the rest is never buffered;
//! - a connection on which a request's headers have begun must finish them within
//!   [`HEADER_READ_TIMEOUT`] (a client trickling a header a byte at a time);
//! - a connection with no request being answered and no byte moving either way for
//!   [`IDLE_TIMEOUT`] is closed: an idle keep-alive, a client that connected and said
//!   nothing, or one that stopped reading its response;
//! - at most [`MAX_CONNECTIONS`] connections are served at once; one past that gets a 503
//!   and is closed at once rather than waiting in a queue.
//!
//! Tests lower the timers and the bound through [`Limits`] (the hidden `serve` flags).

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The largest request head served. Browsers send a few KB (cookies are the bulk, and a
/// local preview sets none); 64 KB is what common servers allow and far from any real
/// request, and small enough that a thousand connections at the bound is 64 MB.
pub const MAX_HEADER_BYTES: usize = 64 * 1024;

/// From a request's first byte to the end of its headers. A browser sends its whole head
/// in one packet; ten seconds is generous on any network and still frees a connection
/// held by a client that sends a byte now and then (slowloris).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a connection may sit with nothing to do. Browsers keep an idle connection
/// open for reuse (Chrome for up to 5 minutes, unless the server closes it); reloading a
/// page within 30 s reuses it, and past that a new connection on localhost costs well
/// under a millisecond. Longer than the live-reload poll's wait (20 s), though a poll
/// being answered is never idle.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// Connections served at once. A browser opens at most 6 per host, so this is well above
/// any number of open tabs (each holds one live-reload poll) while keeping the file
/// descriptors and memory a flood of connections can take bounded.
pub const MAX_CONNECTIONS: usize = 1024;

/// The bounds a server runs with: the constants above, or lower ones in tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub header_read_timeout: Duration,
    pub idle_timeout: Duration,
    pub max_connections: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_read_timeout: HEADER_READ_TIMEOUT,
            idle_timeout: IDLE_TIMEOUT,
            max_connections: MAX_CONNECTIONS,
        }
    }
}

/// "Not set" for the millisecond fields of [`Activity`].
const NONE: u64 = u64::MAX;

/// What one connection is doing, as its timer needs to know: shared by the socket (which
/// sees bytes move) and the request handler (which sees requests start and finish).
#[derive(Debug)]
pub struct Activity {
    start: Instant,
    /// Milliseconds since `start` at which a byte last moved, either way.
    last_io: AtomicU64,
    /// When the head of the request being read began ([`NONE`] between requests).
    head_started: AtomicU64,
    /// Requests whose handler is running (a live-reload poll waits in there).
    handling: AtomicUsize,
    /// Told when a head starts: the connection's timer may be asleep until the idle
    /// deadline (30 s), and must wake to time the head (10 s) from its first byte.
    head_begun: tokio::sync::Notify,
}

impl Activity {
    pub fn new() -> Arc<Activity> {
        Arc::new(Activity {
            start: Instant::now(),
            last_io: AtomicU64::new(0),
            head_started: AtomicU64::new(NONE),
            handling: AtomicUsize::new(0),
            head_begun: tokio::sync::Notify::new(),
        })
    }

    /// Resolves when a request head starts after this is called (or started since the
    /// last time one was waited for): wakes the connection's timer to look again.
    pub async fn head_begun(&self) {
        self.head_begun.notified().await
    }

    fn now(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// A request's head is complete and its handler starts; dropping the guard marks it
    /// finished (also when the connection goes away first).
    pub fn handling(self: &Arc<Activity>) -> Handling {
        self.head_started.store(NONE, Ordering::Relaxed);
        self.handling.fetch_add(1, Ordering::Relaxed);
        Handling(self.clone())
    }

    fn moved(&self, read: bool) {
        self.moved_at(self.now(), read);
    }

    fn moved_at(&self, now: u64, read: bool) {
        self.last_io.store(now, Ordering::Relaxed);
        if read && self.handling.load(Ordering::Relaxed) == 0 {
            // The first bytes of a head start its clock; later ones leave it.
            let started =
                self.head_started
                    .compare_exchange(NONE, now, Ordering::Relaxed, Ordering::Relaxed);
            if started.is_ok() {
                // `notify_one` keeps the wake-up for a timer that is not waiting yet.
                self.head_begun.notify_one();
            }
        }
    }

    /// `Ok(wait)`: nothing is overdue, look again in `wait`; `Err(why)`: close now.
    pub fn check(&self, limits: &Limits) -> Result<Duration, &'static str> {
        self.check_at(self.now(), limits)
    }

    /// [`Activity::check`] at `now` milliseconds after the connection's start.
    fn check_at(&self, now: u64, limits: &Limits) -> Result<Duration, &'static str> {
        let ms = |d: Duration| d.as_millis() as u64;
        let mut next = ms(limits.idle_timeout);
        let head = self.head_started.load(Ordering::Relaxed);
        if head != NONE {
            let deadline = head + ms(limits.header_read_timeout);
            if now >= deadline {
                return Err("request headers not received in time");
            }
            next = next.min(deadline - now);
        }
        if self.handling.load(Ordering::Relaxed) == 0 {
            let deadline = self.last_io.load(Ordering::Relaxed) + ms(limits.idle_timeout);
            if now >= deadline {
                return Err("idle");
            }
            next = next.min(deadline - now);
        }
        Ok(Duration::from_millis(next.max(1)))
    }
}

/// Held while a request's handler runs.
pub struct Handling(Arc<Activity>);

impl Drop for Handling {
    fn drop(&mut self) {
        self.0.handling.fetch_sub(1, Ordering::Relaxed);
        // The answer's bytes are about to move; the idle clock starts from its end.
        self.0.last_io.store(self.0.now(), Ordering::Relaxed);
    }
}

/// A socket that tells its [`Activity`] when bytes move.
pub struct Watched<S> {
    inner: S,
    activity: Arc<Activity>,
}

impl<S> Watched<S> {
    pub fn new(inner: S, activity: Arc<Activity>) -> Watched<S> {
        Watched { inner, activity }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Watched<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.moved(true);
        }
        polled
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Watched<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.moved(false);
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.moved(false);
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(ms: u64) -> Limits {
        Limits {
            header_read_timeout: Duration::from_millis(ms),
            idle_timeout: Duration::from_millis(ms * 3),
            max_connections: 4,
        }
    }

    #[test]
    fn an_idle_connection_is_closed_after_the_idle_timeout_and_a_handled_one_is_not() {
        let activity = Activity::new();
        let limits = limits(40);
        assert_eq!(
            activity.check_at(0, &limits),
            Ok(Duration::from_millis(120))
        );
        assert!(activity.check_at(119, &limits).is_ok());
        assert_eq!(activity.check_at(120, &limits), Err("idle"));
        // A write (a response going out) is activity too.
        activity.moved_at(100, false);
        assert_eq!(
            activity.check_at(200, &limits),
            Ok(Duration::from_millis(20))
        );
        let handling = activity.handling();
        assert!(
            activity.check_at(10_000, &limits).is_ok(),
            "a poll being answered"
        );
        drop(handling);
        assert!(
            activity.check(&limits).is_ok(),
            "the clock restarts at its end"
        );
    }

    #[test]
    fn a_head_must_be_complete_within_the_header_timeout() {
        let activity = Activity::new();
        let limits = limits(40);
        activity.moved_at(10, true);
        activity.moved_at(30, true);
        assert_eq!(
            activity.check_at(30, &limits),
            Ok(Duration::from_millis(20))
        );
        activity.moved_at(49, true);
        assert_eq!(
            activity.check_at(50, &limits),
            Err("request headers not received in time"),
            "bytes trickling in do not extend it"
        );
        let handling = activity.handling();
        assert!(
            activity.check_at(60, &limits).is_ok(),
            "a complete head stops it"
        );
        activity.moved_at(70, true);
        assert!(
            activity.check_at(500, &limits).is_ok(),
            "bytes read while a request is handled start no head"
        );
        drop(handling);
    }
}
