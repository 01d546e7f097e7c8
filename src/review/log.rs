//! The sign-off log: `content/reviews/log/<kind>/<slug>.jsonl`, one line per version of an
//! entry that its author and reviewer both signed, appended by `review sign` when the
//! second signature of a version is made, never rewritten. It remembers the latest
//! version both roles signed, so that an older version coming back (its text and its old
//! sign-off file put back) is refused as a rollback (`gate::decide`) instead of quietly
//! republishing what a correction replaced. Signing the old text again, by both, is a new
//! version, newer than the log's, and publishes.
//!
//! Each line holds both signatures as they were signed, and the log is verified, not
//! believed: a line counts only when both its signatures verify against people.toml,
//! name the line's digest and are two different people (`gate::check_signoffs`), and its
//! time is the later of the two signed times, never the `signed` field written beside them
//! for a reader (re-announcing an old version's line with a later `signed` time moves
//! nothing). A line that does not verify is left out, so a forged one cannot make the
//! log name a version no one signed. Versions signed at the same second are ordered by
//! their place in the log; a line repeating an earlier line's signatures is that earlier
//! line (ed25519 signs deterministically, so a copy cannot be told from a re-signing at
//! the same second, and the copy must not move the old version after the new one).
//!
//! The log's folders and files are trust files: a symlink anywhere under `log/`, a
//! folder where a `.jsonl` file belongs or any other odd file is an error naming it,
//! never read as "no log" (which would let the rolled-back version through).
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
use crate::trust::file::{read_trust_text, TrustFileError, MAX_TRUST_FILE_BYTES};

use super::signoff::{Role, SignOff, Signature};

/// The folder of logs under the reviews folder.
pub const LOG_DIR: &str = "log";

/// One line of an entry's log as read, not yet verified (`gate::check_signoffs` does).
#[derive(Debug, Clone, PartialEq)]
pub struct LogLine {
    /// Its line number in the file, from 1.
    pub line: usize,
    pub digest: String,
    pub author: Signature,
    pub reviewer: Signature,
}

/// A version both roles signed, from a verified line of the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoggedVersion {
    pub digest: String,
    /// When it became signed by both: the later of the two signatures' times.
    pub signed: DateTime<Utc>,
    /// When each role signed it.
    pub author: DateTime<Utc>,
    pub reviewer: DateTime<Utc>,
    /// Its place in the log (the first line holding these signatures): orders versions
    /// signed at the same second.
    pub position: usize,
}

/// One line of the log as written.
#[derive(Serialize, Deserialize)]
struct Line {
    digest: String,
    /// For a reader of the file; never read back (the time is the signatures').
    #[serde(default, skip_deserializing)]
    signed: Option<DateTime<Utc>>,
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

/// Every line of `id`'s log, unverified; empty when it has no log. A line that does not
/// parse is an error at its line, as is a log that is a symlink, a folder, too large, or
/// under a folder of `log/` that is a symlink or not a folder.
pub fn read(reviews_dir: &Path, id: &dyn std::fmt::Display) -> Result<Vec<LogLine>> {
    let path = log_path(reviews_dir, id);
    if !folders_are_real(reviews_dir, &path)? {
        return Ok(Vec::new());
    }
    let text = match read_trust_text(&path, MAX_TRUST_FILE_BYTES) {
        Ok(t) => t,
        Err(e) if e.is_missing() => return Ok(Vec::new()),
        Err(e) => return Err(Error::content(&path, None, e.why())),
    };
    let mut lines = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parsed: Line = serde_json::from_str(line).map_err(|e| {
            Error::content(
                &path,
                Some(Location {
                    line: n + 1,
                    column: e.column(),
                }),
                format!("sign-off log line does not parse: {e}"),
            )
        })?;
        lines.push(LogLine {
            line: n + 1,
            digest: parsed.digest,
            author: parsed.author,
            reviewer: parsed.reviewer,
        });
    }
    Ok(lines)
}

/// Whether every folder from `reviews_dir/log` down to `path`'s parent exists; an error
/// naming the first that is a symlink or not a folder (a symlinked `log/terms` would make
/// the log whatever the link points at, or nothing).
fn folders_are_real(reviews_dir: &Path, path: &Path) -> Result<bool> {
    let Some(parent) = path.parent() else {
        return Ok(true);
    };
    let Ok(below) = parent.strip_prefix(reviews_dir) else {
        return Ok(true);
    };
    let mut at = reviews_dir.to_path_buf();
    for part in below {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(Error::io(&at, e)),
            Ok(m) if m.file_type().is_symlink() => {
                return Err(Error::content(
                    &at,
                    None,
                    TrustFileError::Symlink(at.clone()).why(),
                ))
            }
            Ok(m) if !m.is_dir() => return Err(Error::content(
                &at,
                None,
                "is not a folder; the sign-off log's folders hold only folders and .jsonl files",
            )),
            Ok(_) => {}
        }
    }
    Ok(true)
}

/// The log folder listed once for a whole-site load, which then asks [`read_listed`]
/// instead of looking each entry's log up by name: at 10,000 entries with no log yet, the
/// failed lookups were about 1% of a build.
pub struct LogListing(std::collections::HashSet<PathBuf>);

impl LogListing {
    /// A listing with no logs.
    pub fn empty() -> Self {
        LogListing(Default::default())
    }
}

/// List the logs under `reviews_dir`. Every oddity under the log folder is an error
/// naming it, all of them at once: the folder itself or anything below it a symlink, a
/// folder named like a log (`warp.jsonl/`), anything that is neither a folder nor a
/// regular file.
pub fn list_logs(reviews_dir: &Path) -> Result<LogListing> {
    let dir = reviews_dir.join(LOG_DIR);
    let mut names = std::collections::HashSet::new();
    let mut errors = Vec::new();
    let odd = |path: &Path, why: String| Error::content(path, None, why);
    match std::fs::symlink_metadata(&dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(LogListing(names)),
        Err(e) => return Err(Error::io(&dir, e)),
        Ok(m) if m.file_type().is_symlink() => {
            return Err(odd(&dir, TrustFileError::Symlink(dir.clone()).why()))
        }
        Ok(m) if !m.is_dir() => return Err(odd(&dir, "is not a folder".into())),
        Ok(_) => {}
    }
    for item in walkdir::WalkDir::new(&dir).min_depth(1) {
        let item = match item {
            Ok(i) => i,
            Err(e) => {
                errors.push(Error::Other(format!("{}: {e}", dir.display())));
                continue;
            }
        };
        let kind = item.file_type();
        let path = item.path();
        if kind.is_symlink() {
            errors.push(odd(path, TrustFileError::Symlink(path.to_path_buf()).why()));
        } else if kind.is_dir() {
            if path.extension().is_some_and(|e| e == "jsonl") {
                errors.push(odd(
                    path,
                    "is a folder where a sign-off log file belongs; the log must be a regular file"
                        .into(),
                ));
            }
        } else if kind.is_file() {
            names.insert(item.into_path());
        } else {
            errors.push(odd(
                path,
                TrustFileError::NotRegular(path.to_path_buf()).why(),
            ));
        }
    }
    Error::collect(errors)?;
    Ok(LogListing(names))
}

/// [`read`], answering at once for an entry whose log `listing` does not hold.
pub fn read_listed(
    reviews_dir: &Path,
    id: &dyn std::fmt::Display,
    listing: Option<&LogListing>,
) -> Result<Vec<LogLine>> {
    match listing {
        Some(l) if !l.0.contains(&log_path(reviews_dir, id)) => Ok(Vec::new()),
        _ => read(reviews_dir, id),
    }
}

/// The versions of the log's lines that verified (`verified[i]` for `lines[i]`), in log
/// order; a line repeating an earlier one's signatures is left out (it is that line).
pub fn versions(lines: &[LogLine], verified: &[bool]) -> Vec<LoggedVersion> {
    let mut out: Vec<LoggedVersion> = Vec::new();
    let mut seen: Vec<(&Signature, &Signature)> = Vec::new();
    for (k, (l, ok)) in lines.iter().zip(verified).enumerate() {
        if !ok || seen.contains(&(&l.author, &l.reviewer)) {
            continue;
        }
        seen.push((&l.author, &l.reviewer));
        out.push(LoggedVersion {
            digest: l.digest.clone(),
            signed: l.author.time.max(l.reviewer.time),
            author: l.author.time,
            reviewer: l.reviewer.time,
            position: k,
        });
    }
    out
}

/// The latest of `versions`: by the time both had signed, then by place in the log.
pub fn latest(versions: &[LoggedVersion]) -> Option<&LoggedVersion> {
    versions.iter().max_by_key(|v| (v.signed, v.position))
}

/// After a signing: if `signoff` is now a version both roles signed, and the log does not
/// hold these two signatures yet, add them to `id`'s log. True if a line was added.
pub fn record(reviews_dir: &Path, id: &dyn std::fmt::Display, signoff: &SignOff) -> Result<bool> {
    let Some((author, reviewer, signed)) = both_signed(signoff) else {
        return Ok(false);
    };
    let path = log_path(reviews_dir, id);
    let logged = read(reviews_dir, id)?;
    if logged
        .iter()
        .any(|l| &l.author == author && &l.reviewer == reviewer)
    {
        return Ok(false);
    }
    let mut text = match read_trust_text(&path, MAX_TRUST_FILE_BYTES) {
        Ok(t) => t,
        Err(e) if e.is_missing() => String::new(),
        Err(e) => return Err(Error::content(&path, None, e.why())),
    };
    let line = Line {
        digest: author.digest.clone(),
        signed: Some(signed),
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

/// Whether `signoff` (both signatures verified) rolls back what the log remembers: a
/// version both roles signed that is not the latest logged one, and older than it: signed
/// by both no later than the latest (at the same second, the log's order decides, and
/// only the latest line is the latest version), or with either role's signature older than
/// that role's on the latest version (an old sign-off put back, that role re-signing
/// alone). A version signed again by both after the latest one is not.
/// Returns the signed version's digest, when both had signed it, the latest version, and
/// the roles that must sign again.
pub fn rollback<'v>(
    signoff: &SignOff,
    versions: &'v [LoggedVersion],
) -> Option<(String, DateTime<Utc>, &'v LoggedVersion, Vec<Role>)> {
    let (a, r, signed) = both_signed(signoff)?;
    let logged = latest(versions)?;
    if a.digest == logged.digest {
        return None;
    }
    let pairs = [
        (Role::Author, a.time, logged.author),
        (Role::Reviewer, r.time, logged.reviewer),
    ];
    let mut old: Vec<Role> = pairs
        .iter()
        .filter(|(_, mine, then)| mine < then)
        .map(|(role, _, _)| *role)
        .collect();
    if old.is_empty() && signed <= logged.signed {
        // Not newer than the latest: some role signed no later than on it.
        old = pairs
            .iter()
            .filter(|(_, mine, then)| mine <= then)
            .map(|(role, _, _)| *role)
            .collect();
    }
    (!old.is_empty()).then(|| (a.digest.clone(), signed, logged, old))
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
            signature: format!("s{secs}"),
        }
    }

    fn pair(digest: &str, a: i64, r: i64) -> SignOff {
        SignOff {
            author: Some(sig("author-a", digest, a)),
            reviewer: Some(sig("reviewer-b", digest, r)),
            ..Default::default()
        }
    }

    /// Every line taken as verified (the gate's tests verify real signatures).
    fn all_verified(lines: &[LogLine]) -> Vec<LoggedVersion> {
        versions(lines, &vec![true; lines.len()])
    }

    #[test]
    fn the_log_keeps_the_latest_both_signed_and_refuses_an_older_one() {
        let dir = tempfile::tempdir().unwrap();
        let id = EntryId::new(Kind::Term, "occupancy");
        assert_eq!(read(dir.path(), &id).unwrap(), vec![]);
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
        let versions = all_verified(&read(dir.path(), &id).unwrap());
        let logged = latest(&versions).unwrap();
        assert_eq!(logged.digest, "v2");
        assert_eq!(logged.signed.timestamp(), 40);
        // v1's sign-off put back: a rollback, naming v1 and when it was signed.
        let (version, signed, then, roles) = rollback(&v1, &versions).unwrap();
        assert_eq!(
            (version.as_str(), signed.timestamp(), then, roles),
            ("v1", 20, logged, vec![Role::Author, Role::Reviewer])
        );
        assert_eq!(rollback(&v2, &versions), None);
        // v1's text signed again by both, after v2: a new version.
        assert_eq!(rollback(&pair("v1", 50, 60), &versions), None);
        // Only one of them signed again: still the old sign-off.
        assert_eq!(
            rollback(&pair("v1", 20, 60), &versions).unwrap().3,
            [Role::Author]
        );
        // Lines reordered by hand change nothing.
        let path = log_path(dir.path(), &id);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        lines.reverse();
        std::fs::write(&path, lines.join("\n")).unwrap();
        let reordered = all_verified(&read(dir.path(), &id).unwrap());
        assert_eq!(latest(&reordered).unwrap().digest, "v2");
        std::fs::write(&path, "{not json\n").unwrap();
        let e = read(dir.path(), &id).unwrap_err().to_string();
        assert!(e.contains("occupancy.jsonl:1:"), "{e}");
    }

    /// Issue 53: the time is the signatures', not the line's `signed` field; a line that
    /// did not verify does not count; two versions signed at the same second are ordered
    /// by the log, and a copy of the older one's line appended does not move it.
    #[test]
    fn the_time_is_the_signatures_and_ties_go_by_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let id = EntryId::new(Kind::Term, "occupancy");
        let (v1, v2) = (pair("v1", 10, 20), pair("v2", 30, 40));
        record(dir.path(), &id, &v1).unwrap();
        record(dir.path(), &id, &v2).unwrap();
        let path = log_path(dir.path(), &id);
        let text = std::fs::read_to_string(&path).unwrap();
        // v1's own line re-announced with a later `signed`.
        let first = text.lines().next().unwrap();
        let replayed = first.replace(
            r#""signed":"1970-01-01T00:00:20Z""#,
            r#""signed":"2030-01-01T00:00:00Z""#,
        );
        assert_ne!(replayed, first);
        std::fs::write(&path, format!("{text}{replayed}\n")).unwrap();
        let lines = read(dir.path(), &id).unwrap();
        let versions = all_verified(&lines);
        assert_eq!(latest(&versions).unwrap().digest, "v2");
        assert!(rollback(&v1, &versions).is_some());
        // The v2 line does not verify: v1 is the latest the log can vouch for.
        let unverified = versions_of(&lines, &[true, false, true]);
        assert_eq!(latest(&unverified).unwrap().digest, "v1");
        // Same second: the later line is the later version; v1 put back is a rollback.
        let (s1, s2) = (pair("v1", 50, 50), pair("v2", 50, 50));
        let tied = all_verified(&[line(1, &s1), line(2, &s2)]);
        assert_eq!(latest(&tied).unwrap().digest, "v2");
        assert_eq!(
            rollback(&s1, &tied).unwrap().3,
            [Role::Author, Role::Reviewer]
        );
        assert_eq!(rollback(&s2, &tied), None);
        // v1's line copied after v2's: still the first v1, so still a rollback.
        let copied = all_verified(&[line(1, &s1), line(2, &s2), line(3, &s1)]);
        assert_eq!(latest(&copied).unwrap().digest, "v2");
        assert!(rollback(&s1, &copied).is_some());
        // An unlogged version at that same second is not after the log's latest either.
        assert!(rollback(&pair("v3", 50, 50), &tied).is_some());
        assert_eq!(rollback(&pair("v3", 50, 51), &tied), None);
    }

    fn versions_of(lines: &[LogLine], ok: &[bool]) -> Vec<LoggedVersion> {
        versions(lines, ok)
    }

    fn line(n: usize, s: &SignOff) -> LogLine {
        LogLine {
            line: n,
            digest: s.author.as_ref().unwrap().digest.clone(),
            author: s.author.clone().unwrap(),
            reviewer: s.reviewer.clone().unwrap(),
        }
    }

    /// A whole load lists the log folder once: what the listing holds is read as `read`
    /// reads it, and what it does not hold has no log. Anything odd under `log/` (a
    /// symlinked log, a symlinked folder, a folder named like a log, the log folder a
    /// symlink) is an error naming it, listed or looked up, never "no log".
    #[test]
    fn odd_files_under_the_log_folder_are_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let (logged, unlogged) = (
            EntryId::new(Kind::Term, "occupancy"),
            EntryId::new(Kind::Term, "warp"),
        );
        assert!(record(dir.path(), &logged, &pair("v1", 10, 20)).unwrap());
        let listing = list_logs(dir.path()).unwrap();
        for id in [&logged, &unlogged] {
            let listed = read_listed(dir.path(), id, Some(&listing)).unwrap();
            assert_eq!(listed, read(dir.path(), id).unwrap(), "{id}");
        }
        assert_eq!(
            read_listed(dir.path(), &logged, Some(&listing))
                .unwrap()
                .len(),
            1
        );
        // No log folder at all: an empty listing.
        let empty = tempfile::tempdir().unwrap();
        assert!(list_logs(empty.path()).unwrap().0.is_empty());

        // A symlinked log.
        let linked = EntryId::new(Kind::Term, "bank");
        std::os::unix::fs::symlink(log_path(dir.path(), &logged), log_path(dir.path(), &linked))
            .unwrap();
        let e = list_logs(dir.path()).err().unwrap().to_string();
        assert!(e.contains("bank.jsonl") && e.contains("symlink"), "{e}");
        assert!(read(dir.path(), &linked).is_err());
        std::fs::remove_file(log_path(dir.path(), &linked)).unwrap();

        // A folder in place of a log.
        std::fs::create_dir(log_path(dir.path(), &unlogged)).unwrap();
        let e = list_logs(dir.path()).err().unwrap().to_string();
        assert!(e.contains("warp.jsonl") && e.contains("folder"), "{e}");
        let e = read(dir.path(), &unlogged).unwrap_err().to_string();
        assert!(
            e.contains("warp.jsonl") && e.contains("not a regular file"),
            "{e}"
        );
        std::fs::remove_dir(log_path(dir.path(), &unlogged)).unwrap();

        // The kind's folder a symlink to an empty folder: the log would read as absent.
        let elsewhere = tempfile::tempdir().unwrap();
        let terms = dir.path().join(LOG_DIR).join("terms");
        std::fs::rename(&terms, dir.path().join("terms-real")).unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), &terms).unwrap();
        let e = list_logs(dir.path()).err().unwrap().to_string();
        assert!(e.contains("log/terms") && e.contains("symlink"), "{e}");
        let e = read(dir.path(), &logged).unwrap_err().to_string();
        assert!(e.contains("log/terms") && e.contains("symlink"), "{e}");

        // The log folder itself a symlink.
        let other = tempfile::tempdir().unwrap();
        std::fs::create_dir(elsewhere.path().join("x")).unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), other.path().join(LOG_DIR)).unwrap();
        let e = list_logs(other.path()).err().unwrap().to_string();
        assert!(e.contains("symlink"), "{e}");
        assert!(read(other.path(), &logged).is_err());
    }
}
