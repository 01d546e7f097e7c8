//! The sign-off log: `content/reviews/log/<kind>/<slug>.jsonl`, one line per version of an
//! entry that its author and reviewer both signed, appended by `review sign` when the
//! second signature of a version is made, never rewritten. It remembers the latest
//! version both roles signed, so that an older version coming back (its text and its old
//! sign-off file put back) is refused as a rollback (`gate::decide`) instead of quietly
//! republishing what a correction replaced. Signing the old text again, by both, is a new
//! version, newer than the log's, and publishes.
//!
//! Each line holds both signatures as they were signed (evidence of who signed what, and
//! when), but the gate does not need to verify them: the log can only refuse an entry,
//! never publish one, so a forged line can do no more than deleting files could.
//!
//! The limit, stated plainly: the log is a file of the repository. Someone who can rewrite
//! it as well (deleting its last line, or checking out an old commit's `content/` whole)
//! rolls it back with the entry. What stops that is outside this tool: the log only ever
//! grows, so a commit that shortens it is a visible change to a file no one edits by hand,
//! for the review of that commit (a protected branch) to refuse.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::atomic::{write_file, Durability};
use crate::error::{Error, Location, Result};
use crate::trust::file::{read_trust_text, MAX_TRUST_FILE_BYTES};

use super::signoff::{Role, SignOff, Signature};

/// The folder of logs under the reviews folder.
pub const LOG_DIR: &str = "log";

/// The latest version of an entry that both roles signed, by the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoggedVersion {
    pub digest: String,
    /// When it became signed by both: the later of the two signatures' times.
    pub signed: DateTime<Utc>,
    /// When each role signed it.
    pub author: DateTime<Utc>,
    pub reviewer: DateTime<Utc>,
}

/// One line of the log.
#[derive(Serialize, Deserialize)]
struct Line {
    digest: String,
    signed: DateTime<Utc>,
    author: Signature,
    reviewer: Signature,
}

/// Where the log of an entry (`terms/occupancy`) or a static file (`static/x.html`) lives.
pub fn log_path(reviews_dir: &Path, id: &dyn std::fmt::Display) -> PathBuf {
    reviews_dir.join(LOG_DIR).join(format!("{id}.jsonl"))
}

/// The version both roles signed that `signoff` is, if it is one.
fn both_signed(signoff: &SignOff) -> Option<(&Signature, &Signature, DateTime<Utc>)> {
    let (a, r) = (signoff.author.as_ref()?, signoff.reviewer.as_ref()?);
    (a.digest == r.digest).then(|| (a, r, a.time.max(r.time)))
}

/// The latest version in `id`'s log; None when it has no log. Every line is read (the
/// latest by time, not by position, so reordering lines changes nothing); a line that does
/// not parse is an error at its line, as is a log that is a symlink or too large.
pub fn latest(reviews_dir: &Path, id: &dyn std::fmt::Display) -> Result<Option<LoggedVersion>> {
    let path = log_path(reviews_dir, id);
    let text = match read_trust_text(&path, MAX_TRUST_FILE_BYTES) {
        Ok(t) => t,
        Err(e) if e.is_missing() => return Ok(None),
        Err(e) => return Err(Error::content(&path, None, e.why())),
    };
    let mut best: Option<LoggedVersion> = None;
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let line: Line = serde_json::from_str(line).map_err(|e| {
            Error::content(
                &path,
                Some(Location {
                    line: n + 1,
                    column: e.column(),
                }),
                format!("sign-off log line does not parse: {e}"),
            )
        })?;
        if best.as_ref().is_none_or(|b| line.signed > b.signed) {
            best = Some(LoggedVersion {
                digest: line.digest,
                signed: line.signed,
                author: line.author.time,
                reviewer: line.reviewer.time,
            });
        }
    }
    Ok(best)
}

/// The names under the log folder, listed once for a whole-site load, which then asks
/// [`latest_listed`] instead of looking each entry's log up by name: at 10,000 entries
/// with no log yet, the failed lookups were about 1% of a build. Everything that is not a
/// folder is listed, symlinks and oddities included, so reading one still refuses it as
/// [`latest`] does.
pub struct LogListing(std::collections::HashSet<PathBuf>);

/// List the logs under `reviews_dir`; None when the log folder cannot be listed whole (a
/// symlink, an unreadable folder...), in which case each log is looked up by name.
pub fn list_logs(reviews_dir: &Path) -> Option<LogListing> {
    let dir = reviews_dir.join(LOG_DIR);
    match std::fs::symlink_metadata(&dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Some(LogListing(Default::default()))
        }
        Ok(m) if m.is_dir() => {}
        _ => return None,
    }
    let mut names = std::collections::HashSet::new();
    for item in walkdir::WalkDir::new(&dir).min_depth(1) {
        let item = item.ok()?;
        if !item.file_type().is_dir() {
            names.insert(item.into_path());
        }
    }
    Some(LogListing(names))
}

/// [`latest`], answering None at once for an entry whose log `listing` does not hold.
pub fn latest_listed(
    reviews_dir: &Path,
    id: &dyn std::fmt::Display,
    listing: Option<&LogListing>,
) -> Result<Option<LoggedVersion>> {
    match listing {
        Some(l) if !l.0.contains(&log_path(reviews_dir, id)) => Ok(None),
        _ => latest(reviews_dir, id),
    }
}

/// After a signing: if `signoff` is now a version both roles signed, and not the one the
/// log already ends with, add it to `id`'s log. True if a line was added.
pub fn record(reviews_dir: &Path, id: &dyn std::fmt::Display, signoff: &SignOff) -> Result<bool> {
    let Some((author, reviewer, signed)) = both_signed(signoff) else {
        return Ok(false);
    };
    let path = log_path(reviews_dir, id);
    let mut text = match read_trust_text(&path, MAX_TRUST_FILE_BYTES) {
        Ok(t) => t,
        Err(e) if e.is_missing() => String::new(),
        Err(e) => return Err(Error::content(&path, None, e.why())),
    };
    if latest(reviews_dir, id)?.is_some_and(|l| l.digest == author.digest && l.signed == signed) {
        return Ok(false);
    }
    let line = Line {
        digest: author.digest.clone(),
        signed,
        author: author.clone(),
        reviewer: reviewer.clone(),
    };
    let json = serde_json::to_string(&line).map_err(|e| Error::Other(e.to_string()))?;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&json);
    text.push('\n');
    write_file(&path, text.as_bytes(), Durability::Synced)?;
    Ok(true)
}

/// Whether `signoff` rolls back what the log remembers: a version both roles signed that
/// is not the logged one, with a signature older than the logged version (an old
/// sign-off put back). A version signed again by both after the logged one is not.
/// Returns the signed version's digest, when both had signed it, and the roles whose
/// signature predates the logged version (they must sign again).
pub fn rollback(
    signoff: &SignOff,
    logged: &LoggedVersion,
) -> Option<(String, DateTime<Utc>, Vec<Role>)> {
    let (a, r, signed) = both_signed(signoff)?;
    // Each role's signature against that role's in the logged version: one older than it
    // is an old sign-off put back (and that role must sign again). Strictly older, so two
    // versions signed at the same second (scripted signing) are not told apart by time.
    let old: Vec<Role> = [
        (Role::Author, a, logged.author),
        (Role::Reviewer, r, logged.reviewer),
    ]
    .into_iter()
    .filter(|(_, s, then)| s.time < *then)
    .map(|(role, _, _)| role)
    .collect();
    (a.digest != logged.digest && !old.is_empty()).then(|| (a.digest.clone(), signed, old))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::{EntryId, Kind};

    fn sig(person: &str, digest: &str, secs: i64) -> Signature {
        Signature {
            person: person.into(),
            name: person.into(),
            time: DateTime::from_timestamp(secs, 0).unwrap(),
            digest: digest.into(),
            signature: "s".into(),
        }
    }

    fn pair(digest: &str, a: i64, r: i64) -> SignOff {
        SignOff {
            author: Some(sig("author-a", digest, a)),
            reviewer: Some(sig("reviewer-b", digest, r)),
            ..Default::default()
        }
    }

    #[test]
    fn the_log_keeps_the_latest_both_signed_and_refuses_an_older_one() {
        let dir = tempfile::tempdir().unwrap();
        let id = EntryId::new(Kind::Term, "occupancy");
        assert_eq!(latest(dir.path(), &id).unwrap(), None);
        // Half-signed: nothing to log.
        let half = SignOff {
            author: Some(sig("author-a", "v1", 10)),
            ..Default::default()
        };
        assert!(!record(dir.path(), &id, &half).unwrap());
        let v1 = pair("v1", 10, 20);
        let v2 = pair("v2", 30, 40);
        assert!(record(dir.path(), &id, &v1).unwrap());
        assert!(!record(dir.path(), &id, &v1).unwrap(), "logged once");
        assert!(record(dir.path(), &id, &v2).unwrap());
        let logged = latest(dir.path(), &id).unwrap().unwrap();
        assert_eq!(logged.digest, "v2");
        assert_eq!(logged.signed.timestamp(), 40);
        // v1's sign-off put back: a rollback, naming v1 and when it was signed.
        assert_eq!(
            rollback(&v1, &logged),
            Some((
                "v1".into(),
                DateTime::from_timestamp(20, 0).unwrap(),
                vec![Role::Author, Role::Reviewer]
            ))
        );
        assert_eq!(rollback(&v2, &logged), None);
        // v1's text signed again by both, after v2: a new version.
        assert_eq!(rollback(&pair("v1", 50, 60), &logged), None);
        // Only one of them signed again: still the old sign-off.
        assert_eq!(
            rollback(&pair("v1", 20, 60), &logged).unwrap().2,
            [Role::Author]
        );
        // Lines reordered by hand change nothing.
        let path = log_path(dir.path(), &id);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        lines.reverse();
        std::fs::write(&path, lines.join("\n")).unwrap();
        assert_eq!(latest(dir.path(), &id).unwrap(), Some(logged));
        std::fs::write(&path, "{not json\n").unwrap();
        let e = latest(dir.path(), &id).unwrap_err().to_string();
        assert!(e.contains("occupancy.jsonl:1:"), "{e}");
    }

    /// A whole load lists the log folder once: what the listing holds is read as
    /// `latest` reads it (a symlinked log still refused), and what it does not hold has no
    /// log; a log folder that is a symlink is not listed (each log looked up by name).
    #[test]
    fn the_listed_logs_answer_as_the_lookups_do() {
        let dir = tempfile::tempdir().unwrap();
        let (logged, unlogged, linked) = (
            EntryId::new(Kind::Term, "occupancy"),
            EntryId::new(Kind::Term, "warp"),
            EntryId::new(Kind::Term, "bank"),
        );
        assert!(record(dir.path(), &logged, &pair("v1", 10, 20)).unwrap());
        std::os::unix::fs::symlink(log_path(dir.path(), &logged), log_path(dir.path(), &linked))
            .unwrap();
        let listing = list_logs(dir.path()).unwrap();
        for id in [&logged, &unlogged, &linked] {
            let listed = latest_listed(dir.path(), id, Some(&listing)).map_err(|e| e.to_string());
            let looked_up = latest(dir.path(), id).map_err(|e| e.to_string());
            assert_eq!(listed, looked_up, "{id}");
        }
        assert_eq!(
            latest_listed(dir.path(), &logged, Some(&listing))
                .unwrap()
                .unwrap()
                .digest,
            "v1"
        );
        assert!(latest_listed(dir.path(), &linked, Some(&listing)).is_err());
        // No log folder at all: an empty listing.
        let empty = tempfile::tempdir().unwrap();
        assert!(list_logs(empty.path()).unwrap().0.is_empty());
        // The log folder a symlink: not listed.
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(dir.path().join(LOG_DIR), elsewhere.path().join(LOG_DIR))
            .unwrap();
        assert!(list_logs(elsewhere.path()).is_none());
    }
}
