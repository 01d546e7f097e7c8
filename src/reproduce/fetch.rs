//! Getting a bundle: from a file, or over HTTPS (plain HTTP only from this machine's own
//! loopback, where `glossary serve` answers). Either way the bytes are bounded before they
//! are held, and nothing follows a redirect: a bundle's URL is the one its page printed.

use std::io::Read;
use std::net::IpAddr;
use std::path::Path;
use std::time::Duration;

use crate::measure::bundle::{BundleError, MAX_BUNDLE_BYTES};

/// How long one download may take in all, connecting included.
const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(60);

/// The bundle's bytes from `source`: an `https://` URL, an `http://` URL on loopback, or a
/// path.
pub fn fetch(source: &str) -> Result<Vec<u8>, BundleError> {
    let lower = source.to_ascii_lowercase();
    if lower.starts_with("https://") || lower.starts_with("http://") {
        download(source)
    } else if lower.contains("://") {
        Err(BundleError::Io(format!(
            "{source}: only https:// URLs (or http:// on this machine's loopback) and paths are read"
        )))
    } else {
        read_file(Path::new(source))
    }
}

fn read_file(path: &Path) -> Result<Vec<u8>, BundleError> {
    let io = |e: std::io::Error| BundleError::Io(format!("{}: {e}", path.display()));
    let file = std::fs::File::open(path).map_err(io)?;
    let size = file.metadata().map_err(io)?.len();
    if size > MAX_BUNDLE_BYTES {
        return Err(too_large(&path.display().to_string(), size));
    }
    // The file may grow after the size was read (or be a pipe): never hold more than the
    // bound plus one byte.
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(MAX_BUNDLE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_BUNDLE_BYTES {
        return Err(too_large(&path.display().to_string(), bytes.len() as u64));
    }
    Ok(bytes)
}

fn too_large(what: &str, size: u64) -> BundleError {
    BundleError::TooLarge {
        what: what.to_string(),
        size,
        limit: MAX_BUNDLE_BYTES,
    }
}

/// Whether plain HTTP may be used for `url`: only when its host is this machine.
pub fn plain_http_allowed(url: &str) -> Result<(), String> {
    let uri: ureq::http::Uri = url
        .parse()
        .map_err(|e| format!("{url} is not a URL: {e}"))?;
    let host = uri.host().unwrap_or_default();
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let loopback = bare.eq_ignore_ascii_case("localhost")
        || bare.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
    if loopback {
        Ok(())
    } else {
        Err(format!(
            "{url}: plain http:// is only read from this machine (127.0.0.1, ::1, localhost); use the https:// URL"
        ))
    }
}

fn download(url: &str) -> Result<Vec<u8>, BundleError> {
    if url.to_ascii_lowercase().starts_with("http://") {
        plain_http_allowed(url).map_err(BundleError::Io)?;
    }
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(DOWNLOAD_TIMEOUT))
        .max_redirects(0)
        .http_status_as_error(true)
        .build()
        .into();
    let mut response = agent
        .get(url)
        .call()
        .map_err(|e| BundleError::Io(format!("{url}: {e}")))?;
    if let Some(len) = response
        .headers()
        .get("content-length")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
    {
        if len > MAX_BUNDLE_BYTES {
            return Err(too_large(url, len));
        }
    }
    response
        .body_mut()
        .with_config()
        .limit(MAX_BUNDLE_BYTES)
        .read_to_vec()
        .map_err(|e| {
            BundleError::Io(format!(
                "{url}: the download broke off or is too large: {e}"
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_http_only_to_loopback() {
        for ok in [
            "http://127.0.0.1:8000/reproduce/x/h200.json",
            "http://127.9.9.9/x",
            "http://[::1]:80/x",
            "http://localhost:1/x",
            "http://LOCALHOST/x",
        ] {
            assert!(plain_http_allowed(ok).is_ok(), "{ok}");
        }
        for bad in [
            "http://example.org/x",
            "http://10.0.0.1/x",
            "http://127.0.0.1.example.org/x",
            "http://localhost.example.org/x",
            "http://[::2]/x",
        ] {
            assert!(plain_http_allowed(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn other_schemes_are_refused() {
        for bad in ["file:///etc/passwd", "ftp://x/y", "gopher://x"] {
            assert!(matches!(fetch(bad), Err(BundleError::Io(m)) if m.contains("only https://")));
        }
    }

    #[test]
    fn an_oversized_file_is_refused_before_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.json");
        let f = std::fs::File::create(&path).unwrap();
        // Sparse: a gigabyte on paper, nothing on disk.
        f.set_len(1 << 30).unwrap();
        let started = std::time::Instant::now();
        let e = read_file(&path).unwrap_err();
        assert!(
            matches!(e, BundleError::TooLarge { size, .. } if size == 1 << 30),
            "{e}"
        );
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
