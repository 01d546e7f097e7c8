//! Work that is the same from build to build, kept between builds: code blocks as
//! highlighted HTML (`render::highlight`) and signatures that verified (`trust::sshsig`).
//! A rebuild, and `serve`'s first build, look each one up before doing the work again.
//!
//! Where: a folder beside the build's output, `.<out>.cache` (`.site.cache` for `site/`),
//! as the previous generation of the site is kept as `.<out>.prev` ([`dir_for`]). Removing
//! it costs one build's time, nothing else; `bench/run.sh` removes it before every cold run.
//!
//! What an entry is: a key (the SHA-256 of what the work covers: a block's language and
//! code; a signature's namespace, key, message and signature), a value (the block's HTML;
//! nothing for a signature: it is there only if it verified) and a tag,
//! HMAC-SHA256(secret, kind, generation, key, value).
//!
//! Threat model. Whoever can write this folder can usually write `content/` too, so the
//! cache must not be a way around signing, nor a way to put HTML on a page that the
//! highlighter did not make. So:
//! - Nothing is trusted because it is in the folder: an entry counts only when its tag
//!   verifies under a secret that is neither in the project nor in the site: 32 random
//!   bytes made on first use at `$XDG_CONFIG_HOME/glossary/cache-key` (else
//!   `~/.config/glossary/cache-key`, mode 0600, beside `known_nodes`). An entry changed,
//!   added or copied by someone who cannot read that file does not verify: it is ignored
//!   and the work done again (and the entry written anew). Whoever can read that file can
//!   also read the SSH keys in the same home, which sign entries outright.
//! - A signature is cached only as "this exact (namespace, key, message, signature)
//!   verified": the registered-key lookup is done on every build, and a tag replayed from
//!   another build of the same binary asserts only what verifying would find again.
//! - The generation (this binary: version, size and modification time, so a rebuilt or
//!   reinstalled binary; and, for blocks, the grammars and class table) is inside every
//!   tag: an entry made under other rules (a stricter check, another grammar) never
//!   verifies, even with its header rewritten.
//! - Bounded: at most [`MAX_BYTES`] per file, read and written; a build writes back only
//!   the entries it used, so what a site no longer has drops out.
//! - With no secret (no home folder, an unwritable one) there is no cache: every build is a
//!   cold one.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

/// A SHA-256 digest: a key or a tag.
pub type Digest32 = [u8; 32];

/// The most bytes one cache file holds (entries past it are left out when writing, and a
/// larger file is not read). 48 MB: a 10,000-entry site's blocks are about 20 MB and its
/// 20,000 signatures 1.5 MB.
pub const MAX_BYTES: usize = 48 << 20;

const MAGIC: &[u8; 16] = b"glossary-cache1\n";
const HEADER: usize = 16 + 32 + 8;
const ENTRY_HEAD: usize = 32 + 32 + 4;

/// The cache folder of a build writing to `out`: `.<name>.cache` beside it.
pub fn dir_for(out: &Path) -> Option<PathBuf> {
    let name = out.file_name()?.to_str()?;
    Some(out.with_file_name(format!(".{name}.cache")))
}

/// The SHA-256 of `parts`, each length-prefixed (so no two lists of parts hash alike).
pub fn digest_of(parts: &[&[u8]]) -> Digest32 {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    h.finalize().into()
}

/// This machine's cache secret, made on first use; None where it cannot be kept.
pub fn machine_secret() -> Option<[u8; 32]> {
    static SECRET: OnceLock<Option<[u8; 32]>> = OnceLock::new();
    *SECRET.get_or_init(|| secret_at(&secret_file()?))
}

/// Where the secret is kept: beside `known_nodes` (`reproduce::pin`).
fn secret_file() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("glossary").join("cache-key"))
}

/// The secret in `file`, made there (32 bytes from the OS, mode 0600) if there is none.
/// Made beside and hard-linked into place, so two builds starting at once agree on one.
fn secret_at(file: &Path) -> Option<[u8; 32]> {
    if let Some(s) = read_secret(file) {
        return Some(s);
    }
    let dir = file.parent()?;
    std::fs::create_dir_all(dir).ok()?;
    let mut fresh = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .ok()?
        .read_exact(&mut fresh)
        .ok()?;
    let tmp = tempfile::Builder::new()
        .prefix(".cache-key.")
        .tempfile_in(dir)
        .ok()?;
    std::fs::write(tmp.path(), fresh).ok()?;
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o600)).ok()?;
    }
    // Fails if another build made one first: then that one is read.
    let _ = std::fs::hard_link(tmp.path(), file);
    read_secret(file)
}

fn read_secret(file: &Path) -> Option<[u8; 32]> {
    let bytes = std::fs::read(file).ok()?;
    bytes.try_into().ok()
}

/// This binary, as far as a cache is concerned: its version, and its file's size and
/// modification time (a rebuilt or reinstalled binary is another one). None where the
/// running binary cannot be found.
pub fn binary_identity() -> Option<Digest32> {
    static ID: OnceLock<Option<Digest32>> = OnceLock::new();
    *ID.get_or_init(|| {
        let exe = std::env::current_exe().ok()?;
        let meta = std::fs::metadata(&exe).ok()?;
        let mtime = meta
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?
            .as_nanos();
        Some(digest_of(&[
            env!("CARGO_PKG_VERSION").as_bytes(),
            exe.as_os_str().as_encoded_bytes(),
            &meta.len().to_le_bytes(),
            &mtime.to_le_bytes(),
        ]))
    })
}

/// One cache file: entries of one kind, under one secret and generation. Looked up from
/// many threads at once; written back with [`Store::save`].
pub struct Store {
    path: PathBuf,
    kind: &'static str,
    secret: [u8; 32],
    generation: Digest32,
    /// The file as read (entries whose tags are checked when looked up).
    data: Vec<u8>,
    /// Key → offset of its entry in `data`.
    index: HashMap<Digest32, usize, foldhash::fast::RandomState>,
    /// What this build used or made, written out as it goes (so a large build does not
    /// hold a second copy of its blocks): the next file, put in place by `save`.
    next: Mutex<Next>,
    pub stats: Stats,
}

/// The file the next build reads, being written beside the current one.
#[derive(Default)]
struct Next {
    file: Option<std::io::BufWriter<tempfile::NamedTempFile>>,
    count: u64,
    bytes: usize,
    /// The temporary file could not be made or written: nothing will be saved.
    failed: bool,
}

/// What a store saw this build.
#[derive(Default, Debug)]
pub struct Stats {
    /// Entries found with a tag that verified.
    pub hits: AtomicUsize,
    /// Keys not in the file.
    pub misses: AtomicUsize,
    /// Entries found whose tag did not verify: ignored, the work done again.
    pub refused: AtomicUsize,
}

impl Store {
    /// The `kind` file in `dir` ("highlight", "signatures"), read if it is there and of
    /// this generation; an empty store otherwise (a missing, foreign or damaged file is
    /// never an error: the work is done again).
    pub fn open(dir: &Path, kind: &'static str, secret: [u8; 32], generation: Digest32) -> Store {
        let path = dir.join(kind);
        let mut store = Store {
            path,
            kind,
            secret,
            generation,
            data: Vec::new(),
            index: HashMap::default(),
            next: Mutex::new(Next::default()),
            stats: Stats::default(),
        };
        if let Some(data) = read_bounded(&store.path) {
            store.index_entries(data);
        }
        store
    }

    /// Index the entries of `data` if its header is this store's; stops at the first
    /// entry that does not fit (a cut file keeps the entries before it).
    fn index_entries(&mut self, data: Vec<u8>) {
        if data.len() < HEADER || &data[..16] != MAGIC || data[16..48] != self.generation {
            return;
        }
        let count = u64::from_le_bytes(data[48..56].try_into().unwrap_or_default()) as usize;
        let mut at = HEADER;
        let mut index = HashMap::with_capacity_and_hasher(
            count.min(data.len() / ENTRY_HEAD),
            foldhash::fast::RandomState::default(),
        );
        for _ in 0..count {
            let Some(head) = data.get(at..at + ENTRY_HEAD) else {
                break;
            };
            let len = u32::from_le_bytes(head[64..68].try_into().unwrap_or_default()) as usize;
            if data.len() < at + ENTRY_HEAD + len {
                break;
            }
            let key: Digest32 = head[..32].try_into().unwrap_or_default();
            index.insert(key, at);
            at += ENTRY_HEAD + len;
        }
        self.index = index;
        self.data = data;
    }

    /// The tag of (key, value) under this store's secret, kind and generation.
    fn tag(&self, key: &Digest32, value: &[u8]) -> Hmac<Sha256> {
        let mut mac =
            <Hmac<Sha256> as Mac>::new_from_slice(&self.secret).expect("HMAC takes any key");
        for part in [self.kind.as_bytes(), &self.generation, key, value] {
            mac.update(&(part.len() as u64).to_le_bytes());
            mac.update(part);
        }
        mac
    }

    /// The value kept for `key`, if there is one whose tag verifies (in constant time).
    /// An entry that does not verify is counted in `stats.refused` and treated as absent.
    pub fn get(&self, key: &Digest32) -> Option<&[u8]> {
        let Some(&at) = self.index.get(key) else {
            self.stats.misses.fetch_add(1, Ordering::Relaxed);
            return None;
        };
        let head = &self.data[at..at + ENTRY_HEAD];
        let len = u32::from_le_bytes(head[64..68].try_into().ok()?) as usize;
        let value = &self.data[at + ENTRY_HEAD..at + ENTRY_HEAD + len];
        if self.tag(key, value).verify_slice(&head[32..64]).is_err() {
            self.stats.refused.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        self.stats.hits.fetch_add(1, Ordering::Relaxed);
        self.append(&self.data[at..at + ENTRY_HEAD + len]);
        Some(value)
    }

    /// Whether `key` is kept (with an empty value, or any): [`Store::get`] for a set.
    pub fn contains(&self, key: &Digest32) -> bool {
        self.get(key).is_some()
    }

    /// Keep `value` for `key` (in the file `save` puts in place, within [`MAX_BYTES`]).
    pub fn put(&self, key: Digest32, value: &[u8]) {
        let tag: Digest32 = self.tag(&key, value).finalize().into_bytes().into();
        let mut entry = Vec::with_capacity(ENTRY_HEAD + value.len());
        entry.extend_from_slice(&key);
        entry.extend_from_slice(&tag);
        entry.extend_from_slice(&(value.len() as u32).to_le_bytes());
        entry.extend_from_slice(value);
        self.append(&entry);
    }

    /// Write one entry (key, tag, length, value) to the next file.
    fn append(&self, entry: &[u8]) {
        use std::io::Write;
        let mut next = self.next.lock().unwrap_or_else(|p| p.into_inner());
        if next.failed || next.bytes + entry.len() > MAX_BYTES {
            return;
        }
        if next.file.is_none() {
            let made = std::fs::create_dir_all(self.path.parent().unwrap_or(Path::new(".")))
                .and_then(|()| {
                    tempfile::Builder::new()
                        .prefix(&format!(".{}.", self.kind))
                        .tempfile_in(self.path.parent().unwrap_or(Path::new(".")))
                })
                .and_then(|f| {
                    let mut w = std::io::BufWriter::with_capacity(1 << 16, f);
                    w.write_all(MAGIC)?;
                    w.write_all(&self.generation)?;
                    w.write_all(&0u64.to_le_bytes())?;
                    Ok(w)
                });
            match made {
                Ok(w) => next.file = Some(w),
                Err(_) => {
                    next.failed = true;
                    return;
                }
            }
        }
        let written = next.file.as_mut().map(|w| w.write_all(entry));
        match written {
            Some(Ok(())) => {
                next.count += 1;
                next.bytes += entry.len();
            }
            _ => next.failed = true,
        }
    }

    /// Put the file this build wrote (what it used and made) in place of the old one.
    /// A build that used and made nothing leaves the old file alone.
    pub fn save(&self) -> crate::error::Result<()> {
        use std::io::{Seek, SeekFrom, Write};
        let mut next = self.next.lock().unwrap_or_else(|p| p.into_inner());
        let count = next.count;
        let Some(w) = next.file.take().filter(|_| !next.failed) else {
            return Ok(());
        };
        let io = |e: std::io::Error| crate::error::Error::io(&self.path, e);
        let mut file = w.into_inner().map_err(|e| io(e.into_error()))?;
        file.seek(SeekFrom::Start(48)).map_err(io)?;
        file.write_all(&count.to_le_bytes()).map_err(io)?;
        file.persist(&self.path).map_err(|e| io(e.error))?;
        Ok(())
    }
}

/// The file's bytes, unless it is missing or larger than [`MAX_BYTES`] (plus its header).
fn read_bounded(path: &Path) -> Option<Vec<u8>> {
    let file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len() as usize;
    if len > MAX_BYTES + HEADER || !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut data = Vec::with_capacity(len);
    file.take((MAX_BYTES + HEADER) as u64)
        .read_to_end(&mut data)
        .ok()?;
    Some(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(dir: &Path, secret: u8) -> Store {
        Store::open(dir, "test", [secret; 32], [7; 32])
    }

    #[test]
    fn a_saved_entry_is_found_by_the_next_build() {
        let dir = tempfile::tempdir().unwrap();
        let a = store(dir.path(), 1);
        assert_eq!(a.get(&[1; 32]), None);
        a.put([1; 32], b"<span>x</span>");
        a.save().unwrap();
        let b = store(dir.path(), 1);
        assert_eq!(b.get(&[1; 32]), Some(&b"<span>x</span>"[..]));
        assert_eq!(b.stats.hits.load(Ordering::Relaxed), 1);
    }

    /// Each byte of a saved entry's value, tag or key changed in turn: the entry is never
    /// served (refused or not found), so the caller does the work again.
    #[test]
    fn a_tampered_entry_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let a = store(dir.path(), 1);
        a.put([1; 32], b"<b>ok</b>");
        a.save().unwrap();
        let file = dir.path().join("test");
        let good = std::fs::read(&file).unwrap();
        for at in HEADER..good.len() {
            if (HEADER + 64..HEADER + 68).contains(&at) {
                continue; // the length: the entry no longer fits, so it is not read at all
            }
            let mut bad = good.clone();
            bad[at] ^= 0x20;
            std::fs::write(&file, &bad).unwrap();
            let b = store(dir.path(), 1);
            let found = b.get(&[1; 32]);
            assert_eq!(found, None, "byte {at} changed, entry still served");
        }
    }

    /// An entry written with another secret (what someone without this machine's secret
    /// can make), or under another generation, never verifies.
    #[test]
    fn an_entry_made_without_the_secret_or_for_another_generation_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let forged = store(dir.path(), 2);
        forged.put([1; 32], b"<script>");
        forged.save().unwrap();
        let b = store(dir.path(), 1);
        assert_eq!(b.get(&[1; 32]), None);
        assert_eq!(b.stats.refused.load(Ordering::Relaxed), 1);

        // The same secret, another generation, the header rewritten to this one.
        let old = Store::open(dir.path(), "test", [1; 32], [8; 32]);
        old.put([1; 32], b"old");
        old.save().unwrap();
        let file = dir.path().join("test");
        let mut bytes = std::fs::read(&file).unwrap();
        bytes[16..48].copy_from_slice(&[7; 32]);
        std::fs::write(&file, &bytes).unwrap();
        assert_eq!(store(dir.path(), 1).get(&[1; 32]), None);
    }

    #[test]
    fn a_build_writes_back_only_what_it_used() {
        let dir = tempfile::tempdir().unwrap();
        let a = store(dir.path(), 1);
        a.put([1; 32], b"one");
        a.put([2; 32], b"two");
        a.save().unwrap();
        let b = store(dir.path(), 1);
        assert!(b.get(&[2; 32]).is_some());
        b.save().unwrap();
        let c = store(dir.path(), 1);
        assert_eq!(c.get(&[1; 32]), None);
        assert_eq!(c.get(&[2; 32]), Some(&b"two"[..]));
    }

    #[test]
    fn the_secret_is_made_once_and_kept_private() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("glossary").join("cache-key");
        let a = secret_at(&file).unwrap();
        assert_eq!(secret_at(&file), Some(a));
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "{mode:o}");
    }

    #[test]
    fn the_cache_sits_beside_the_output() {
        assert_eq!(
            dir_for(Path::new("/p/site")),
            Some(PathBuf::from("/p/.site.cache"))
        );
        assert_eq!(dir_for(Path::new("/")), None);
    }
}
