//! The build's cache of work that is the same from build to build (`crate::build_cache`):
//! opened beside the output before the project is loaded, handed to the highlighter and
//! the gate, written back after a build that succeeded.

use std::path::Path;
use std::sync::Arc;

use crate::build_cache::{binary_identity, digest_of, dir_for, machine_secret, Store};
use crate::render::highlight;

/// The two caches of one build. Dropping it detaches the highlighter's.
pub(crate) struct Caches {
    dir: std::path::PathBuf,
    pub highlight: Arc<Store>,
    pub verified: Arc<Store>,
}

impl Caches {
    /// The caches of a build writing to `out`, the highlighter's attached; None where there
    /// is none to keep (no secret on this machine, no running binary to tell versions by).
    /// A cache folder that is a symlink, or not a folder, is an error naming it: a
    /// committed `.site.cache` link would have the build write its cache files wherever
    /// the link points, outside the project.
    pub fn open(out: &Path) -> crate::error::Result<Option<Caches>> {
        let Some(dir) = super::output::absolute(out).ok().and_then(|o| dir_for(&o)) else {
            return Ok(None);
        };
        match std::fs::symlink_metadata(&dir) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(crate::error::Error::content(
                    &dir,
                    None,
                    "is a symlink; the build cache is written there, so it must be a folder of its own beside the output (remove the link: the next build makes the folder)",
                ))
            }
            Ok(m) if !m.is_dir() => {
                return Err(crate::error::Error::content(
                    &dir,
                    None,
                    "is not a folder; the build cache is written there (remove it: the next build makes the folder)",
                ))
            }
            _ => {}
        }
        Ok(Self::open_in(dir))
    }

    fn open_in(dir: std::path::PathBuf) -> Option<Caches> {
        let secret = machine_secret()?;
        let binary = binary_identity()?;
        let highlight = Arc::new(Store::open(
            &dir,
            "highlight",
            secret,
            digest_of(&[&binary, &highlight::generation()]),
        ));
        let verified = Arc::new(Store::open(&dir, "signatures", secret, binary));
        highlight::attach(Some(highlight.clone()));
        Some(Caches {
            dir,
            highlight,
            verified,
        })
    }

    /// Write back what this build used and made. A cache that cannot be written is no
    /// error: the next build does the work again.
    pub fn save(&self) {
        if std::fs::create_dir_all(&self.dir).is_ok() {
            let _ = self.highlight.save();
            let _ = self.verified.save();
        }
    }
}

impl Caches {
    /// What this build took from the caches and refused there, so far.
    pub fn usage(&self) -> super::CacheUse {
        let n = |a: &std::sync::atomic::AtomicUsize| a.load(std::sync::atomic::Ordering::Relaxed);
        super::CacheUse {
            blocks_reused: n(&self.highlight.stats.hits),
            signatures_reused: n(&self.verified.stats.hits),
            refused: n(&self.highlight.stats.refused) + n(&self.verified.stats.refused),
        }
    }
}

impl Drop for Caches {
    fn drop(&mut self) {
        highlight::detach(&self.highlight);
    }
}
