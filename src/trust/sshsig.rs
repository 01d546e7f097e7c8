//! SSH signatures in git's format (`ssh-keygen -Y sign`, PROTOCOL.sshsig): the same keys
//! people already sign commits with. Verification always runs in-process (the `ssh-key`
//! crate), so `check` and `build` need no binary. Signing runs in-process for an unencrypted
//! private key file; a passphrase-protected key, or a public key whose private half lives in
//! an ssh-agent (git's usual `user.signingkey`), is handed to `ssh-keygen -Y sign`, which
//! asks for the passphrase or the agent exactly as git does.
//!
//! Only Ed25519 keys sign: `ssh-ed25519`, and `sk-ssh-ed25519@openssh.com` (the same
//! curve on a FIDO security key, whose signatures also cover the authenticator's flags and
//! counter; a sign-off must carry the user-presence flag, a touch, as OpenSSH requires by
//! default). Every signature is verified strictly (ed25519-dalek's `verify_strict`, or the
//! batch after the same checks, see [`verify_all`]), and a key is usable only if its point
//! is canonical, of large order and torsion-free ([`key_problem`]): a small-order key
//! accepts signatures that anyone can compute.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint};
use sha2::{Digest, Sha256};
use ssh_key::public::KeyData;
use ssh_key::{Algorithm, HashAlg, LineEnding, PrivateKey, PublicKey, SshSig};

/// The namespace of an entry sign-off: a signature made for git commits (`git`) or for a
/// record (`glossary-record`) never verifies as a sign-off, and the reverse.
pub const REVIEW_NAMESPACE: &str = "glossary-review";
/// The namespace of a node's signature on a record it measured.
pub const RECORD_NAMESPACE: &str = "glossary-record";

#[derive(Debug, thiserror::Error)]
pub enum SshError {
    #[error("{}: {why}", path.display())]
    KeyFile { path: PathBuf, why: String },
    #[error("not an SSH public key ({why}): {text}")]
    PublicKey { text: String, why: String },
    #[error("ssh-keygen -Y sign with {}: {why}", path.display())]
    Keygen { path: PathBuf, why: String },
    #[error("signing failed: {0}")]
    Sign(String),
}

/// Why a signature does not count.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyFailure {
    #[error("is not an SSH signature ({0})")]
    Malformed(String),
    #[error("was made for `{found}`, not `{expected}`")]
    Namespace { expected: String, found: String },
    #[error("was made with key {fingerprint}, which is not registered to {whom}")]
    KeyNotRegistered { fingerprint: String, whom: String },
    #[error("does not verify (the signed text or the signature was altered, or it was made for another text)")]
    BadSignature,
    #[error("was made with key {fingerprint}, which cannot sign: it {why}")]
    UnusableKey { fingerprint: String, why: String },
    #[error("was made by a security key without a touch (its user-presence flag is not set), which a signature here requires")]
    NoTouch,
}

/// A key that can sign.
pub struct Signer {
    public: PublicKey,
    how: How,
}

enum How {
    /// An unencrypted private key, signed with here. An ed25519 one is also kept expanded:
    /// ssh-key derives the public half again for every signature (a second scalar
    /// multiplication), which was half of what signing 10,000 entries cost.
    InProcess(Box<PrivateKey>, Option<Box<Ed25519Key>>),
    /// The key file `ssh-keygen` is given: an encrypted private key, or a public key whose
    /// private half is in the agent.
    Keygen(KeygenKey),
}

enum KeygenKey {
    File(PathBuf),
    /// A literal public key (git's `key::ssh-ed25519 ...`), written to a temp file per use.
    Literal(String),
}

impl Signer {
    /// A signer from a key file: an OpenSSH private key, or a public key (`.pub`) whose
    /// private half is next to it (`id_ed25519` for `id_ed25519.pub`) or in the agent.
    pub fn from_file(path: &Path) -> Result<Signer, SshError> {
        let bad = |why: String| SshError::KeyFile {
            path: path.to_path_buf(),
            why,
        };
        let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
        if text.trim_start().starts_with("-----BEGIN") {
            let key = PrivateKey::from_openssh(text.trim())
                .map_err(|e| bad(format!("not an OpenSSH private key: {e}")))?;
            let public = key.public_key().clone();
            let how = if key.is_encrypted() {
                How::Keygen(KeygenKey::File(path.to_path_buf()))
            } else {
                in_process(key)
            };
            return Ok(Signer { public, how });
        }
        let public = parse_public_key(&text).map_err(|e| bad(e.to_string()))?;
        // git's convention: the private key sits beside its `.pub`.
        if let Some(private) = path.to_str().and_then(|p| p.strip_suffix(".pub")) {
            let private = Path::new(private);
            if private.is_file() {
                if let Ok(s) = Signer::from_file(private) {
                    if s.public.key_data() == public.key_data() {
                        return Ok(s);
                    }
                }
            }
        }
        Ok(Signer {
            public,
            how: How::Keygen(KeygenKey::File(path.to_path_buf())),
        })
    }

    /// git's `user.signingkey`: a path (`~` expanded) or a literal `key::ssh-...` public key.
    pub fn from_git_setting(value: &str) -> Result<Signer, SshError> {
        let value = value.trim();
        if let Some(literal) = value.strip_prefix("key::") {
            let public = parse_public_key(literal)?;
            return Ok(Signer {
                public,
                how: How::Keygen(KeygenKey::Literal(literal.trim().to_string())),
            });
        }
        if value.starts_with("ssh-") || value.starts_with("sk-") {
            let public = parse_public_key(value)?;
            return Ok(Signer {
                public,
                how: How::Keygen(KeygenKey::Literal(value.to_string())),
            });
        }
        let path = match value.strip_prefix("~/") {
            Some(rest) => std::env::var_os("HOME")
                .map(|h| PathBuf::from(h).join(rest))
                .unwrap_or_else(|| PathBuf::from(value)),
            None => PathBuf::from(value),
        };
        Signer::from_file(&path)
    }

    /// An in-memory ed25519 key from a 32-byte seed: for throwaway keys (tests, the
    /// benchmark corpus). Never for a person's key.
    pub fn ed25519_from_seed(seed: &[u8; 32], comment: &str) -> Result<Signer, SshError> {
        let pair = ssh_key::private::Ed25519Keypair::from_seed(seed);
        let key = PrivateKey::new(ssh_key::private::KeypairData::Ed25519(pair), comment)
            .map_err(|e| SshError::Sign(e.to_string()))?;
        Ok(Signer {
            public: key.public_key().clone(),
            how: in_process(key),
        })
    }

    /// The private key in OpenSSH format (in-process keys only), e.g. to hand a throwaway
    /// key to another process.
    pub fn private_openssh(&self) -> Option<String> {
        match &self.how {
            How::InProcess(k, _) => k.to_openssh(LineEnding::LF).ok().map(|s| s.to_string()),
            How::Keygen(_) => None,
        }
    }

    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// Sign `msg` in `namespace`; the armored `-----BEGIN SSH SIGNATURE-----` text.
    pub fn sign(&self, namespace: &str, msg: &[u8]) -> Result<String, SshError> {
        match &self.how {
            How::InProcess(key, expanded) => {
                let sig = match expanded {
                    Some(ed25519) => {
                        SshSig::sign(ed25519.as_ref(), namespace, HashAlg::Sha512, msg)
                    }
                    None => key.sign(namespace, HashAlg::Sha512, msg),
                }
                .map_err(|e| SshError::Sign(e.to_string()))?;
                sig.to_pem(LineEnding::LF)
                    .map_err(|e| SshError::Sign(e.to_string()))
            }
            How::Keygen(KeygenKey::File(path)) => keygen_sign(path, namespace, msg),
            How::Keygen(KeygenKey::Literal(text)) => {
                let mut tmp =
                    tempfile::NamedTempFile::new().map_err(|e| SshError::Sign(e.to_string()))?;
                writeln!(tmp, "{text}").map_err(|e| SshError::Sign(e.to_string()))?;
                keygen_sign(tmp.path(), namespace, msg)
            }
        }
    }
}

fn in_process(key: PrivateKey) -> How {
    let ed25519 = match key.key_data() {
        ssh_key::private::KeypairData::Ed25519(pair) => Some(Box::new(Ed25519Key {
            signing: ed25519_dalek::SigningKey::from_bytes(&pair.private.to_bytes()),
            public: key.public_key().key_data().clone(),
        })),
        _ => None,
    };
    How::InProcess(Box::new(key), ed25519)
}

/// An ed25519 key expanded once (the signing scalar and the public point), signing in
/// the form ssh-key's `SshSig::sign` takes: the same bytes ssh-key's own key makes
/// (ed25519 signatures are deterministic), without re-deriving the public half each time.
struct Ed25519Key {
    signing: ed25519_dalek::SigningKey,
    public: ssh_key::public::KeyData,
}

impl ed25519_dalek::Signer<ssh_key::Signature> for Ed25519Key {
    fn try_sign(&self, msg: &[u8]) -> Result<ssh_key::Signature, ed25519_dalek::SignatureError> {
        let signature = ed25519_dalek::Signer::sign(&self.signing, msg);
        ssh_key::Signature::new(ssh_key::Algorithm::Ed25519, signature.to_bytes().to_vec())
            .map_err(|_| ed25519_dalek::SignatureError::new())
    }
}

impl From<&Ed25519Key> for ssh_key::public::KeyData {
    fn from(k: &Ed25519Key) -> Self {
        k.public.clone()
    }
}

fn keygen_sign(key: &Path, namespace: &str, msg: &[u8]) -> Result<String, SshError> {
    let err = |why: String| SshError::Keygen {
        path: key.to_path_buf(),
        why,
    };
    // With no file operand, `ssh-keygen -Y sign` signs standard input to standard output.
    let mut child = Command::new("ssh-keygen")
        .args(["-q", "-Y", "sign", "-n", namespace, "-f"])
        .arg(key)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| err(format!("cannot run ssh-keygen ({e}); install openssh-client, or pass an unencrypted key with --key")))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(msg).map_err(|e| err(e.to_string()))?;
    }
    let out = child.wait_with_output().map_err(|e| err(e.to_string()))?;
    if !out.status.success() {
        return Err(err(String::from_utf8_lossy(&out.stderr).trim().to_string()));
    }
    String::from_utf8(out.stdout).map_err(|e| err(e.to_string()))
}

/// One OpenSSH public key line (`ssh-ed25519 AAAA... comment`).
pub fn parse_public_key(text: &str) -> Result<PublicKey, SshError> {
    let line = text.trim();
    PublicKey::from_openssh(line).map_err(|e| SshError::PublicKey {
        text: shorten(line),
        why: e.to_string(),
    })
}

fn shorten(s: &str) -> String {
    if s.chars().count() > 40 {
        format!("{}...", s.chars().take(40).collect::<String>())
    } else {
        s.to_string()
    }
}

/// `SHA256:...`, as `ssh-keygen -l` prints it.
pub fn fingerprint(key: &PublicKey) -> String {
    key.fingerprint(HashAlg::Sha256).to_string()
}

/// The Ed25519 public key (its 32-byte point) a key holds, whatever its encoding:
/// `ssh-ed25519` and `sk-ssh-ed25519@openssh.com` (which adds an application string), with
/// any comment, are one key when these bytes agree, as OpenSSH compares keys as keys. None
/// for other key types.
pub fn key_material(key: &PublicKey) -> Option<[u8; 32]> {
    key_data_material(key.key_data())
}

fn key_data_material(key: &KeyData) -> Option<[u8; 32]> {
    match key {
        KeyData::Ed25519(k) => Some(k.0),
        KeyData::SkEd25519(k) => Some(k.public_key().0),
        _ => None,
    }
}

/// Why `key` cannot sign here, if it cannot (checked when a registry is loaded, and again
/// before any signature is verified under it): not an Ed25519 key, or a point no key
/// generator makes ([`point_problem`]).
pub fn key_problem(key: &PublicKey) -> Option<String> {
    match key_material(key) {
        None => Some(format!(
            "is a {} key; only Ed25519 keys (ssh-ed25519, or sk-ssh-ed25519@openssh.com on a security key) can sign here",
            key.algorithm()
        )),
        Some(point) => point_problem(&point).map(str::to_string),
    }
}

/// Why 32 bytes are not a public key to verify against, if they are not. A key generator
/// makes `[a]B` for the base point B: always a canonical encoding of a point of prime
/// order. A small-order point (the identity `01 00..00`, and the seven others) accepts
/// signatures computed without any private key; a mixed-order one (`[a]B` plus a
/// small-order point) is accepted by `verify_strict` but verifies differently alone and in a
/// batch; a non-canonical encoding is a second spelling of a point.
pub fn point_problem(bytes: &[u8; 32]) -> Option<&'static str> {
    let point = match strict_point(bytes) {
        Ok(p) => p,
        Err(why) => return Some(why),
    };
    if !point.is_torsion_free() {
        return Some("is a mixed-order point (a small-order component added to a key), which no Ed25519 key generator makes");
    }
    None
}

/// `bytes` as a point, under `verify_strict`'s rules for a key or a signature's R: on the
/// curve, canonically encoded, not of small order.
fn strict_point(bytes: &[u8; 32]) -> Result<EdwardsPoint, &'static str> {
    let point = CompressedEdwardsY(*bytes)
        .decompress()
        .ok_or("is not a point on the Ed25519 curve")?;
    if point.compress().as_bytes() != bytes {
        return Err("is a non-canonical encoding of its point (its 32 bytes do not round-trip through decompression), which no Ed25519 key generator writes");
    }
    if point.is_small_order() {
        return Err("is a small-order (weak) point: signatures that verify under it can be made without any private key");
    }
    Ok(point)
}

/// [`strict_point`]'s rules for a signature's R (canonical, not of small order), read
/// off its 32 bytes without decompressing it: the batch decompresses every R itself, and
/// doing it here too (with the round trip that checks the encoding) was about a third of
/// what verifying a build's signatures cost. y must be below p (a canonical y), and R none
/// of the eight small-order points: each has one canonical encoding, and only the two with
/// x = 0 (y = 1 and y = -1) have a second, with the sign bit set. An R that is not a point
/// at all passes here and fails the batch's decompression; the batch then checks its
/// signatures one by one, strictly, which refuses it as `verify_strict` alone would.
fn r_fits_batch(bytes: &[u8; 32]) -> bool {
    // p = 2^255 - 19, little-endian.
    const P: [u8; 32] = {
        let mut p = [0xff; 32];
        p[0] = 0xed;
        p[31] = 0x7f;
        p
    };
    let mut y = *bytes;
    y[31] &= 0x7f;
    if y.iter().rev().cmp(P.iter().rev()) != std::cmp::Ordering::Less {
        return false;
    }
    let mut one = [0u8; 32];
    one[0] = 1;
    let mut minus_one = P;
    minus_one[0] -= 1;
    if y == one || y == minus_one {
        return false;
    }
    static SMALL_ORDER: std::sync::OnceLock<[[u8; 32]; 8]> = std::sync::OnceLock::new();
    let small = SMALL_ORDER.get_or_init(|| {
        curve25519_dalek::constants::EIGHT_TORSION.map(|p| p.compress().to_bytes())
    });
    !small.contains(bytes)
}

/// Verify `sig` strictly: made by `key` (already matched to the signature's key), over
/// PROTOCOL.sshsig's signed data for `namespace` and `msg`. ssh-key's own `verify` uses
/// ed25519-dalek's non-strict check and takes a security key's signature without a touch.
fn verify_strict(
    key: &PublicKey,
    namespace: &str,
    msg: &[u8],
    sig: &SshSig,
) -> Result<(), VerifyFailure> {
    if let Some(why) = key_problem(key) {
        return Err(VerifyFailure::UnusableKey {
            fingerprint: fingerprint(key),
            why,
        });
    }
    if !sig.reserved().is_empty() {
        return Err(VerifyFailure::Malformed(
            "its reserved field is not empty".into(),
        ));
    }
    let signed = SshSig::signed_data(namespace, sig.hash_alg(), msg)
        .map_err(|e| VerifyFailure::Malformed(e.to_string()))?;
    let bytes = sig.signature_bytes();
    match (key.key_data(), sig.algorithm()) {
        (KeyData::Ed25519(k), Algorithm::Ed25519) => ed25519_strict(&k.0, &signed, bytes),
        (KeyData::SkEd25519(k), Algorithm::SkEd25519) => {
            // PROTOCOL.u2f: the authenticator signs SHA-256(application) || flags ||
            // counter || SHA-256(signed data); flags and counter follow the signature.
            let (signature, trailer) = bytes
                .split_at_checked(64)
                .filter(|(_, t)| t.len() == 5)
                .ok_or_else(|| {
                    VerifyFailure::Malformed("a security-key signature of the wrong length".into())
                })?;
            const USER_PRESENT: u8 = 0x01;
            if trailer[0] & USER_PRESENT == 0 {
                return Err(VerifyFailure::NoTouch);
            }
            let mut data = Vec::with_capacity(32 + 5 + 32);
            data.extend_from_slice(&Sha256::digest(k.application().as_bytes()));
            data.extend_from_slice(trailer);
            data.extend_from_slice(&Sha256::digest(&signed));
            ed25519_strict(&k.public_key().0, &data, signature)
        }
        (_, alg) => Err(VerifyFailure::Malformed(format!(
            "a {alg} signature, not one of an Ed25519 key"
        ))),
    }
}

/// ed25519-dalek's `verify_strict`: a small-order R or key, or a non-canonical S, is refused.
fn ed25519_strict(key: &[u8; 32], msg: &[u8], signature: &[u8]) -> Result<(), VerifyFailure> {
    let signature = ed25519_dalek::Signature::from_slice(signature)
        .map_err(|e| VerifyFailure::Malformed(e.to_string()))?;
    ed25519_dalek::VerifyingKey::from_bytes(key)
        .and_then(|k| k.verify_strict(msg, &signature))
        .map_err(|_| VerifyFailure::BadSignature)
}

/// A parsed signature: which key made it, so the caller can look the key up.
pub struct Parsed(SshSig);

pub fn parse_signature(armored: &str) -> Result<Parsed, VerifyFailure> {
    decode_pem(armored.trim())
        .map(Parsed)
        .map_err(|e| VerifyFailure::Malformed(e.to_string()))
}

/// What `SshSig::from_pem` does, with the base64 decoded in one call before the fields
/// are parsed: the crate's own PEM reader decodes field by field, some twenty calls a
/// signature, which was 1% of a build's CPU. The same decoder (OpenSSH's 70-column
/// lines), label check, parser and no-trailing-bytes rule.
fn decode_pem(pem: &str) -> Result<SshSig, ssh_key::Error> {
    use ssh_encoding::pem::PemLabel;
    use ssh_encoding::{Decode, Reader};
    let mut decoder = ssh_encoding::pem::Decoder::new_wrapped(pem.as_bytes(), 70)
        .map_err(ssh_encoding::Error::from)?;
    SshSig::validate_pem_label(decoder.type_label()).map_err(ssh_encoding::Error::from)?;
    let mut bytes = Vec::with_capacity(decoder.remaining_len());
    decoder
        .decode_to_end(&mut bytes)
        .map_err(ssh_encoding::Error::from)?;
    let mut rest = bytes.as_slice();
    let sig = SshSig::decode(&mut rest)?;
    Ok(rest.finish(sig)?)
}

impl Parsed {
    /// The key the signature says made it (not yet checked against anything).
    pub fn public_key_data(&self) -> &ssh_key::public::KeyData {
        self.0.public_key()
    }

    pub fn fingerprint(&self) -> String {
        self.0.public_key().fingerprint(HashAlg::Sha256).to_string()
    }

    /// Verify against the keys registered to `whom`: the signature must be made by one of
    /// them, in `namespace`, over exactly `msg`.
    pub fn verify(
        &self,
        namespace: &str,
        msg: &[u8],
        keys: &[PublicKey],
        whom: &str,
    ) -> Result<(), VerifyFailure> {
        let key = self.registered_key(namespace, keys, whom)?;
        verify_strict(key, namespace, msg, &self.0)
    }

    /// The key of `keys` that made this signature, if it was made in `namespace`.
    fn registered_key<'k>(
        &self,
        namespace: &str,
        keys: &'k [PublicKey],
        whom: &str,
    ) -> Result<&'k PublicKey, VerifyFailure> {
        if self.0.namespace() != namespace {
            return Err(VerifyFailure::Namespace {
                expected: namespace.to_string(),
                found: self.0.namespace().to_string(),
            });
        }
        keys.iter()
            .find(|k| k.key_data() == self.0.public_key())
            .ok_or_else(|| VerifyFailure::KeyNotRegistered {
                fingerprint: self.fingerprint(),
                whom: whom.to_string(),
            })
    }
}

/// Parse and verify in one step.
pub fn verify(
    armored: &str,
    namespace: &str,
    msg: &[u8],
    keys: &[PublicKey],
    whom: &str,
) -> Result<(), VerifyFailure> {
    parse_signature(armored)?.verify(namespace, msg, keys, whom)
}

/// One signature for [`verify_all`]: what [`verify`] takes.
#[derive(Clone, Copy)]
pub struct Request<'a> {
    pub armored: &'a str,
    pub namespace: &'a str,
    pub msg: &'a [u8],
    pub keys: &'a [PublicKey],
    pub whom: &'a str,
}

/// [`verify`] for many signatures, answers in the same order. Ed25519 signatures (what
/// `ssh-keygen` makes by default) are checked together with ed25519-dalek's batch
/// verification, which costs about half as much per signature as checking them one by one
/// (a 10,000-entry build verifies 20,000); each key is decompressed once. When a batch does
/// not verify, its signatures are checked one by one, so a bad signature gets exactly the
/// answer [`verify`] gives.
///
/// The batch is not `verify_strict`: it never looks at a key's or an R's order, and it
/// decompresses R whatever its encoding. So what strict verification refuses by those
/// rules never reaches it: a key must pass [`key_problem`] (canonical, not small order,
/// torsion-free: checked once per key) and each signature's R [`strict_point`]'s rules
/// (canonical, not small order), and S must be canonical (the batch refuses it otherwise);
/// any other signature is checked alone, strictly. What remains between the two is a
/// signature whose R carries a small-order component: the batch's random weights may
/// cancel it where `verify_strict` refuses it. Only the key's holder can make one (it needs
/// the private scalar), so it is never a forgery; checking every R for torsion would cost
/// about a scalar multiplication per signature, as much as verifying it alone.
pub fn verify_all(requests: &[Request<'_>]) -> Vec<Result<(), VerifyFailure>> {
    verify_all_cached(requests, None)
}

/// [`verify_all`], skipping the verification of a signature that `verified` (the build
/// cache, `crate::build_cache`) holds as verified before, and adding there each one that
/// verifies now. What the cache holds is only "this exact (namespace, key, message,
/// signature) verified strictly", under a tag made with this machine's secret and this
/// binary's identity (see `build_cache` for the threat model); everything before the
/// cryptography (the signature parsed, made in the namespace, by a key registered to
/// the signer now) is checked on every build, and a signature that fails is never kept.
pub fn verify_all_cached(
    requests: &[Request<'_>],
    verified: Option<&crate::build_cache::Store>,
) -> Vec<Result<(), VerifyFailure>> {
    let mut results = Vec::with_capacity(requests.len());
    let mut batch = Ed25519Batch::with_capacity(requests.len());
    // The cache key of each signature verified now, to keep once the batch agrees.
    let mut fresh: Vec<(usize, crate::build_cache::Digest32)> = Vec::new();
    for (i, r) in requests.iter().enumerate() {
        let checked = parse_signature(r.armored).and_then(|p| {
            let key = p.registered_key(r.namespace, r.keys, r.whom)?;
            if let Some(cache) = verified {
                let id = cache_key(r, key);
                if cache.contains(&id) {
                    return Ok(());
                }
                fresh.push((i, id));
            }
            match batch.add(i, &p, key, r.namespace, r.msg) {
                Some(()) => Ok(()),
                // Not a signature the batch can take (a security key's, a weak key's or
                // R's, an odd form): checked alone, strictly, for its exact answer.
                None => verify_strict(key, r.namespace, r.msg, &p.0),
            }
        });
        results.push(checked);
    }
    batch.check(&mut results);
    if let Some(cache) = verified {
        for (i, id) in fresh {
            if results[i].is_ok() {
                cache.put(id, &[]);
            }
        }
    }
    results
}

/// What a verified signature is kept under: the namespace, the registered key that made
/// it (its OpenSSH encoding), the signed message and the signature as written.
fn cache_key(r: &Request<'_>, key: &PublicKey) -> crate::build_cache::Digest32 {
    let key = key.to_bytes().unwrap_or_default();
    crate::build_cache::digest_of(&[
        b"sshsig-verified",
        r.namespace.as_bytes(),
        &key,
        r.msg,
        r.armored.as_bytes(),
    ])
}

/// Ed25519 signatures waiting to be verified together.
struct Ed25519Batch {
    at: Vec<usize>,
    signed: Vec<Vec<u8>>,
    signatures: Vec<ed25519_dalek::Signature>,
    keys: Vec<ed25519_dalek::VerifyingKey>,
    /// Keys already decompressed and checked (None: one that cannot sign): a site has few
    /// signers and many signatures.
    known: Vec<([u8; 32], Option<ed25519_dalek::VerifyingKey>)>,
}

impl Ed25519Batch {
    /// Room for `n` signatures: grown one push at a time, the batch's vectors (a
    /// decompressed key is 192 bytes) were re-copied and their fresh pages faulted in
    /// again at each doubling, most of 1% of a build.
    fn with_capacity(n: usize) -> Ed25519Batch {
        Ed25519Batch {
            at: Vec::with_capacity(n),
            signed: Vec::with_capacity(n),
            signatures: Vec::with_capacity(n),
            keys: Vec::with_capacity(n),
            known: Vec::new(),
        }
    }

    /// Queue signature `i`; None when it is not one the batch can take.
    fn add(
        &mut self,
        i: usize,
        sig: &Parsed,
        key: &PublicKey,
        namespace: &str,
        msg: &[u8],
    ) -> Option<()> {
        let sig = &sig.0;
        let ssh_key::public::KeyData::Ed25519(public) = key.key_data() else {
            return None;
        };
        if sig.algorithm() != ssh_key::Algorithm::Ed25519 || !sig.reserved().is_empty() {
            return None;
        }
        let signature = ed25519_dalek::Signature::from_slice(sig.signature_bytes()).ok()?;
        // verify_strict's rules for R, which the batch does not apply.
        if !r_fits_batch(signature.r_bytes()) {
            return None;
        }
        let signed = SshSig::signed_data(namespace, sig.hash_alg(), msg).ok()?;
        let key = match self.known.iter().find(|(b, _)| *b == public.0) {
            Some((_, Some(k))) => *k,
            Some((_, None)) => return None,
            None => {
                // A key that cannot sign is left to the strict check, which says why.
                let k = ed25519_dalek::VerifyingKey::from_bytes(&public.0)
                    .ok()
                    .filter(|_| point_problem(&public.0).is_none());
                self.known.push((public.0, k));
                k?
            }
        };
        self.at.push(i);
        self.signed.push(signed);
        self.signatures.push(signature);
        self.keys.push(key);
        Some(())
    }

    /// Verify the queued signatures, marking the bad ones in `results`.
    fn check(self, results: &mut [Result<(), VerifyFailure>]) {
        let messages: Vec<&[u8]> = self.signed.iter().map(Vec::as_slice).collect();
        if ed25519_dalek::verify_batch(&messages, &self.signatures, &self.keys).is_ok() {
            return;
        }
        for (k, &i) in self.at.iter().enumerate() {
            if self.keys[k]
                .verify_strict(messages[k], &self.signatures[k])
                .is_err()
            {
                results[i] = Err(VerifyFailure::BadSignature);
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn key(n: u8) -> Signer {
        Signer::ed25519_from_seed(&[n; 32], "test").unwrap()
    }

    #[test]
    fn signs_and_verifies_in_namespace() {
        let k = key(1);
        let sig = k.sign(REVIEW_NAMESPACE, b"text").unwrap();
        assert!(sig.starts_with("-----BEGIN SSH SIGNATURE-----"));
        let keys = [k.public_key().clone()];
        assert_eq!(verify(&sig, REVIEW_NAMESPACE, b"text", &keys, "a"), Ok(()));
        assert_eq!(
            verify(&sig, REVIEW_NAMESPACE, b"texT", &keys, "a"),
            Err(VerifyFailure::BadSignature)
        );
        assert!(matches!(
            verify(&sig, RECORD_NAMESPACE, b"text", &keys, "a"),
            Err(VerifyFailure::Namespace { .. })
        ));
    }

    /// `sig`'s bytes with `more` after them, armoured at OpenSSH's 70 columns.
    fn trailing(sig: &str, more: &[u8]) -> String {
        use ssh_encoding::Encode;
        let mut bytes = Vec::new();
        SshSig::from_pem(sig).unwrap().encode(&mut bytes).unwrap();
        bytes.extend_from_slice(more);
        let mut out = vec![0u8; 4 * bytes.len()];
        let mut encoder =
            ssh_encoding::pem::Encoder::new_wrapped("SSH SIGNATURE", 70, LineEnding::LF, &mut out)
                .unwrap();
        encoder.encode(&bytes).unwrap();
        let len = encoder.finish().unwrap();
        String::from_utf8(out[..len].to_vec()).unwrap()
    }

    /// `decode_pem` reads what `SshSig::from_pem` reads, and refuses what it refuses:
    /// a signature, cut, padded, rewrapped or relabelled. (Where a text has two faults,
    /// the message may name the other one: the base64 is decoded before the fields.)
    #[test]
    fn signatures_decode_as_ssh_key_decodes_them() {
        let sig = key(3).sign(REVIEW_NAMESPACE, b"entry").unwrap();
        let body: String = sig.lines().filter(|l| !l.starts_with("-----")).collect();
        let armor = |b64: &str, width: usize, label: &str| {
            let lines: Vec<&str> = b64
                .as_bytes()
                .chunks(width)
                .map(|c| std::str::from_utf8(c).unwrap())
                .collect();
            format!(
                "-----BEGIN {label}-----\n{}\n-----END {label}-----\n",
                lines.join("\n")
            )
        };
        let mut cases = vec![
            sig.clone(),
            sig.replace('\n', "\r\n"),
            armor(&body, 70, "SSH SIGNATURE"),
            armor(&body, 64, "SSH SIGNATURE"),
            armor(&body, 76, "SSH SIGNATURE"),
            armor(&body, 70, "SIGNATURE"),
            armor(&body[..body.len() - 4], 70, "SSH SIGNATURE"),
            // The whole signature with three bytes more after it, armoured as OpenSSH
            // does: the parser must refuse the trailer.
            trailing(&sig, &[0, 0, 0]),
            armor(&body.replacen('A', "*", 1), 70, "SSH SIGNATURE"),
            String::new(),
            "not a signature".to_string(),
        ];
        // Every prefix of the body that is whole base64.
        for cut in (4..body.len()).step_by(4) {
            cases.push(armor(&body[..cut], 70, "SSH SIGNATURE"));
        }
        let mut read = 0;
        for case in &cases {
            let ours = decode_pem(case.trim()).map(|s| s.to_pem(LineEnding::LF).unwrap());
            let theirs = SshSig::from_pem(case.trim()).map(|s| s.to_pem(LineEnding::LF).unwrap());
            assert_eq!(ours.as_ref().ok(), theirs.as_ref().ok(), "{case}");
            read += usize::from(ours.is_ok());
        }
        // The whole signature reads, in both line endings and wrapped again at 70; no
        // other width, cut or change of it does.
        assert_eq!(read, 3);
    }

    /// The expanded key signs exactly as ssh-key's own private key does (ed25519 is
    /// deterministic), so the shortcut changes no signature.
    #[test]
    fn the_expanded_key_makes_the_bytes_ssh_key_makes() {
        let k = key(7);
        let How::InProcess(private, Some(_)) = &k.how else {
            panic!("an ed25519 seed key is expanded");
        };
        let theirs = private
            .sign(REVIEW_NAMESPACE, HashAlg::Sha512, b"entry")
            .unwrap()
            .to_pem(LineEnding::LF)
            .unwrap();
        assert_eq!(k.sign(REVIEW_NAMESPACE, b"entry").unwrap(), theirs);
    }

    #[test]
    fn a_key_not_registered_is_named_by_fingerprint() {
        let sig = key(1).sign(REVIEW_NAMESPACE, b"text").unwrap();
        let other = [key(2).public_key().clone()];
        let e = verify(&sig, REVIEW_NAMESPACE, b"text", &other, "reviewer-b").unwrap_err();
        assert!(
            e.to_string().contains("not registered to reviewer-b"),
            "{e}"
        );
        assert!(e.to_string().contains("SHA256:"), "{e}");
    }

    #[test]
    fn garbage_is_not_a_signature() {
        assert!(matches!(
            verify("hello", REVIEW_NAMESPACE, b"x", &[], "a"),
            Err(VerifyFailure::Malformed(_))
        ));
    }

    /// The eight small-order points of Ed25519 (the list libsodium refuses): the identity,
    /// the point of order 2, the two of order 4 and four of order 8.
    pub(crate) const SMALL_ORDER: [&str; 8] = [
        "0100000000000000000000000000000000000000000000000000000000000000",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0000000000000000000000000000000000000000000000000000000000000080",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
    ];

    pub(crate) fn point(hex_bytes: &str) -> [u8; 32] {
        hex::decode(hex_bytes).unwrap().try_into().unwrap()
    }

    /// An `ssh-ed25519` public key holding `point`, whatever it is.
    pub(crate) fn ed25519_key(point: [u8; 32], comment: &str) -> PublicKey {
        PublicKey::new(
            KeyData::Ed25519(ssh_key::public::Ed25519PublicKey(point)),
            comment,
        )
    }

    /// Encodings of y = p + k (k = 0..18: the only values of y at or above p) and the
    /// x = 0 points written with their sign bit set: every non-canonical encoding that
    /// decompresses.
    pub(crate) fn non_canonical_encodings() -> Vec<[u8; 32]> {
        let mut out = Vec::new();
        for k in 0..=18u8 {
            let mut b = point("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f");
            b[0] += k;
            out.push(b);
            b[31] |= 0x80;
            out.push(b);
        }
        let mut identity = point(SMALL_ORDER[0]);
        identity[31] |= 0x80;
        out.push(identity);
        out.retain(|b| CompressedEdwardsY(*b).decompress().is_some());
        out
    }

    /// An SSHSIG over `msg` in `namespace` made of raw parts: any key, any 64 bytes.
    fn raw_signature(key: &PublicKey, namespace: &str, alg: Algorithm, bytes: Vec<u8>) -> String {
        let sig = ssh_key::Signature::new(alg, bytes).unwrap();
        SshSig::new(key.key_data().clone(), namespace, HashAlg::Sha512, sig)
            .unwrap()
            .to_pem(LineEnding::LF)
            .unwrap()
    }

    #[test]
    fn every_small_order_point_is_refused_as_a_key() {
        for hex_bytes in SMALL_ORDER {
            let p = point(hex_bytes);
            let decoded = CompressedEdwardsY(p).decompress().expect("a point");
            assert!(decoded.is_small_order(), "{hex_bytes}");
            let why = key_problem(&ed25519_key(p, "x")).unwrap_or_default();
            assert!(
                why.contains("small-order (weak) point"),
                "{hex_bytes}: {why}"
            );
        }
    }

    #[test]
    fn non_canonical_encodings_are_refused_as_keys_and_as_r() {
        let encodings = non_canonical_encodings();
        assert!(!encodings.is_empty());
        for b in &encodings {
            let why = key_problem(&ed25519_key(*b, "x")).unwrap_or_default();
            assert!(
                why.contains("non-canonical encoding"),
                "{}: {why}",
                hex::encode(b)
            );
            assert!(strict_point(b).is_err());
        }
    }

    #[test]
    fn a_mixed_order_key_is_refused() {
        use curve25519_dalek::constants::ED25519_BASEPOINT_POINT;
        let good = key(5).public_key().clone();
        assert_eq!(key_problem(&good), None);
        let a = CompressedEdwardsY(key_material(&good).unwrap())
            .decompress()
            .unwrap();
        let torsion = CompressedEdwardsY(point(SMALL_ORDER[4]))
            .decompress()
            .unwrap();
        for mixed in [a + torsion, ED25519_BASEPOINT_POINT + torsion] {
            let why =
                key_problem(&ed25519_key(mixed.compress().to_bytes(), "x")).unwrap_or_default();
            assert!(why.contains("mixed-order"), "{why}");
        }
    }

    /// The attack: a key that is the identity point, and a signature (R = identity, S = 0)
    /// that anyone can write, for any text. ssh-key's own (non-strict) check accepts it.
    #[test]
    fn a_forged_signature_under_a_small_order_key_is_refused() {
        let weak = ed25519_key(point(SMALL_ORDER[0]), "reviewer-b");
        let mut forged = point(SMALL_ORDER[0]).to_vec();
        forged.extend_from_slice(&[0; 32]);
        let sig = raw_signature(&weak, REVIEW_NAMESPACE, Algorithm::Ed25519, forged);
        let parsed = SshSig::from_pem(&sig).unwrap();
        assert!(
            weak.verify(REVIEW_NAMESPACE, b"any text", &parsed).is_ok(),
            "the non-strict check takes the forgery (what this test guards against)"
        );
        let keys = [weak.clone()];
        let single = verify(&sig, REVIEW_NAMESPACE, b"any text", &keys, "reviewer-b");
        assert!(
            matches!(single, Err(VerifyFailure::UnusableKey { .. })),
            "{single:?}"
        );
        let request = Request {
            armored: &sig,
            namespace: REVIEW_NAMESPACE,
            msg: b"any text",
            keys: &keys,
            whom: "reviewer-b",
        };
        assert_eq!(verify_all(&[request]), vec![single]);
        // verify_strict alone refuses it too (the key's order), whatever key_problem says.
        let signed = SshSig::signed_data(REVIEW_NAMESPACE, HashAlg::Sha512, b"any text").unwrap();
        assert_eq!(
            ed25519_strict(&point(SMALL_ORDER[0]), &signed, parsed.signature_bytes()),
            Err(VerifyFailure::BadSignature)
        );
    }

    /// What ed25519-dalek's batch takes and verify_strict refuses, under a strong key: a
    /// signature whose R is the identity, S = h·a (the key's holder can write one for any
    /// text; it verifies non-strictly and in a batch).
    #[test]
    fn a_signature_with_a_small_order_r_is_refused_alone_and_in_a_batch() {
        use curve25519_dalek::scalar::Scalar;
        use sha2::Sha512;
        let seed = [9u8; 32];
        let signer = Signer::ed25519_from_seed(&seed, "author-a").unwrap();
        let dalek = ed25519_dalek::SigningKey::from_bytes(&seed);
        let public = signer.public_key().clone();
        let a_bytes = key_material(&public).unwrap();
        let signed = SshSig::signed_data(REVIEW_NAMESPACE, HashAlg::Sha512, b"entry").unwrap();
        let r = point(SMALL_ORDER[0]);
        let h = Scalar::from_hash(
            Sha512::new()
                .chain_update(r)
                .chain_update(a_bytes)
                .chain_update(&signed),
        );
        let s = h * dalek.to_scalar();
        let mut bytes = r.to_vec();
        bytes.extend_from_slice(s.as_bytes());
        let odd = ed25519_dalek::Signature::from_slice(&bytes).unwrap();
        let vk = dalek.verifying_key();
        // The gap: the non-strict check and the batch take it, verify_strict does not.
        assert!(ed25519_dalek::Verifier::verify(&vk, &signed, &odd).is_ok());
        assert!(ed25519_dalek::verify_batch(&[&signed[..]], &[odd], &[vk]).is_ok());
        assert!(vk.verify_strict(&signed, &odd).is_err());
        let sig = raw_signature(&public, REVIEW_NAMESPACE, Algorithm::Ed25519, bytes);
        let keys = [public];
        assert_eq!(
            verify(&sig, REVIEW_NAMESPACE, b"entry", &keys, "author-a"),
            Err(VerifyFailure::BadSignature)
        );
        let good = signer.sign(REVIEW_NAMESPACE, b"entry").unwrap();
        let request = |armored| Request {
            armored,
            namespace: REVIEW_NAMESPACE,
            msg: b"entry",
            keys: &keys,
            whom: "author-a",
        };
        // Among good signatures, so the batch would otherwise pass as a whole.
        let answers = verify_all(&[request(&good), request(&sig), request(&good)]);
        assert_eq!(
            answers,
            vec![Ok(()), Err(VerifyFailure::BadSignature), Ok(())]
        );
    }

    /// A security key's signature (PROTOCOL.u2f), made here as the authenticator would.
    fn sk_signature(
        seed: &[u8; 32],
        application: &str,
        flags: u8,
        msg: &[u8],
    ) -> (PublicKey, String) {
        let dalek = ed25519_dalek::SigningKey::from_bytes(seed);
        let sk = ssh_key::public::SkEd25519::new(
            ssh_key::public::Ed25519PublicKey(dalek.verifying_key().to_bytes()),
            application,
        );
        let public = PublicKey::new(KeyData::SkEd25519(sk), "reviewer-b@yubikey");
        let signed = SshSig::signed_data(REVIEW_NAMESPACE, HashAlg::Sha512, msg).unwrap();
        let counter = 7u32.to_be_bytes();
        let mut data = Sha256::digest(application.as_bytes()).to_vec();
        data.push(flags);
        data.extend_from_slice(&counter);
        data.extend_from_slice(&Sha256::digest(&signed));
        let mut bytes = ed25519_dalek::Signer::sign(&dalek, &data)
            .to_bytes()
            .to_vec();
        bytes.push(flags);
        bytes.extend_from_slice(&counter);
        let sig = raw_signature(&public, REVIEW_NAMESPACE, Algorithm::SkEd25519, bytes);
        (public, sig)
    }

    #[test]
    fn a_security_key_signature_verifies_strictly_and_only_with_a_touch() {
        let (public, sig) = sk_signature(&[4; 32], "ssh:", 0x01, b"entry");
        // The same bytes ssh-key's own check reads (its format, ours alike).
        assert!(public
            .verify(REVIEW_NAMESPACE, b"entry", &SshSig::from_pem(&sig).unwrap())
            .is_ok());
        let keys = [public];
        assert_eq!(verify(&sig, REVIEW_NAMESPACE, b"entry", &keys, "b"), Ok(()));
        assert_eq!(
            verify(&sig, REVIEW_NAMESPACE, b"entrY", &keys, "b"),
            Err(VerifyFailure::BadSignature)
        );
        let (public, untouched) = sk_signature(&[4; 32], "ssh:", 0x00, b"entry");
        assert!(
            public
                .verify(
                    REVIEW_NAMESPACE,
                    b"entry",
                    &SshSig::from_pem(&untouched).unwrap()
                )
                .is_ok(),
            "ssh-key's check takes a signature without a touch"
        );
        assert_eq!(
            verify(&untouched, REVIEW_NAMESPACE, b"entry", &keys, "b"),
            Err(VerifyFailure::NoTouch)
        );
        let request = Request {
            armored: &untouched,
            namespace: REVIEW_NAMESPACE,
            msg: b"entry",
            keys: &keys,
            whom: "b",
        };
        assert_eq!(verify_all(&[request]), vec![Err(VerifyFailure::NoTouch)]);
    }

    #[test]
    fn an_sk_key_is_the_same_key_material_as_its_ed25519_point() {
        let plain = key(4).public_key().clone();
        let (sk, _) = sk_signature(&[4; 32], "ssh:glossary", 0x01, b"x");
        assert_ne!(plain.key_data(), sk.key_data());
        assert_eq!(key_material(&plain), key_material(&sk));
        assert_eq!(key_problem(&sk), None);
    }

    #[test]
    fn verify_all_answers_as_verify_does_for_each_signature() {
        let (a, b) = (key(1), key(2));
        let keys = [a.public_key().clone()];
        let texts: Vec<String> = (0..40).map(|i| format!("text {i}")).collect();
        let mut sigs: Vec<String> = texts
            .iter()
            .map(|t| a.sign(REVIEW_NAMESPACE, t.as_bytes()).unwrap())
            .collect();
        // A signature over other text, one by an unregistered key, one in another
        // namespace and one that is not a signature, among good ones.
        sigs[3] = a.sign(REVIEW_NAMESPACE, b"other text").unwrap();
        sigs[17] = b.sign(REVIEW_NAMESPACE, texts[17].as_bytes()).unwrap();
        sigs[25] = a.sign(RECORD_NAMESPACE, texts[25].as_bytes()).unwrap();
        sigs[31] = "garbage".into();
        let requests: Vec<Request<'_>> = sigs
            .iter()
            .zip(&texts)
            .map(|(s, t)| Request {
                armored: s,
                namespace: REVIEW_NAMESPACE,
                msg: t.as_bytes(),
                keys: &keys,
                whom: "author-a",
            })
            .collect();
        let one_by_one: Vec<_> = requests
            .iter()
            .map(|r| verify(r.armored, r.namespace, r.msg, r.keys, r.whom))
            .collect();
        assert_eq!(verify_all(&requests), one_by_one);
        let bad: Vec<usize> = (0..40).filter(|&i| one_by_one[i].is_err()).collect();
        assert_eq!(bad, [3, 17, 25, 31]);
        assert_eq!(one_by_one[3], Err(VerifyFailure::BadSignature));
        // All good: the batch alone decides.
        let good: Vec<Request<'_>> = requests
            .iter()
            .enumerate()
            .filter(|(i, _)| !bad.contains(i))
            .map(|(_, r)| *r)
            .collect();
        assert!(verify_all(&good).iter().all(Result::is_ok));
        assert!(verify_all(&[]).is_empty());
    }

    /// The build cache of verified signatures (`crate::build_cache`): a signature that
    /// verified is not verified again by the next build; one that did not is never kept;
    /// an entry someone made without this machine's secret, or changed, is refused and
    /// the signature verified again. (This is the test that fails if the cache's tag
    /// check, or the rule that only good signatures are kept, is taken out.)
    #[test]
    fn the_cache_keeps_only_what_verified_and_refuses_what_it_did_not_make() {
        use crate::build_cache::Store;
        use std::sync::atomic::Ordering::Relaxed;
        let dir = tempfile::tempdir().unwrap();
        let k = key(5);
        let keys = [k.public_key().clone()];
        let good = k.sign(REVIEW_NAMESPACE, b"entry v1").unwrap();
        // Made for another text: does not verify over "entry v1".
        let bad = k.sign(REVIEW_NAMESPACE, b"entry v2").unwrap();
        let req = |armored: &'static str| Request {
            armored,
            namespace: REVIEW_NAMESPACE,
            msg: b"entry v1",
            keys: &keys,
            whom: "a",
        };
        let good: &'static str = Box::leak(good.into_boxed_str());
        let bad: &'static str = Box::leak(bad.into_boxed_str());
        let open = |secret: u8| Store::open(dir.path(), "signatures", [secret; 32], [9; 32]);
        let refused = Err(VerifyFailure::BadSignature);

        let first = open(1);
        let r = verify_all_cached(&[req(good), req(bad)], Some(&first));
        assert_eq!(r, [Ok(()), refused.clone()]);
        first.save().unwrap();

        let second = open(1);
        let r = verify_all_cached(&[req(good), req(bad)], Some(&second));
        assert_eq!(r, [Ok(()), refused.clone()]);
        assert_eq!(
            second.stats.hits.load(Relaxed),
            1,
            "the good one from the cache"
        );

        // An entry for the bad signature, made without this machine's secret.
        let forger = open(2);
        forger.put(cache_key(&req(bad), &keys[0]), &[]);
        forger.save().unwrap();
        let third = open(1);
        assert_eq!(
            verify_all_cached(&[req(bad)], Some(&third)),
            std::slice::from_ref(&refused)
        );
        assert_eq!(third.stats.refused.load(Relaxed), 1);

        // The good entry's tag changed: refused, the signature verified again and kept anew.
        let fourth = open(1);
        fourth.put(cache_key(&req(good), &keys[0]), &[]);
        fourth.save().unwrap();
        let file = dir.path().join("signatures");
        let mut bytes = std::fs::read(&file).unwrap();
        let last = bytes.len() - 5; // inside the tag (the value is empty)
        bytes[last] ^= 1;
        std::fs::write(&file, &bytes).unwrap();
        let fifth = open(1);
        assert_eq!(verify_all_cached(&[req(good)], Some(&fifth)), [Ok(())]);
        assert_eq!(fifth.stats.refused.load(Relaxed), 1);
        assert_eq!(fifth.stats.hits.load(Relaxed), 0);
        fifth.save().unwrap();
        let sixth = open(1);
        assert_eq!(verify_all_cached(&[req(good)], Some(&sixth)), [Ok(())]);
        assert_eq!(sixth.stats.hits.load(Relaxed), 1);
    }

    /// `r_fits_batch` reads R's bytes as `strict_point` decompresses them: they agree on
    /// every point (every small-order point, in every spelling; points of signatures;
    /// random ones), and an R that is no point is left to the batch, whose failure sends
    /// each of its signatures to the strict check alone.
    #[test]
    fn r_fits_batch_agrees_with_strict_point_on_every_point() {
        let mut cases: Vec<[u8; 32]> = Vec::new();
        for p in curve25519_dalek::constants::EIGHT_TORSION {
            let b = p.compress().to_bytes();
            cases.push(b);
            let mut flipped = b;
            flipped[31] ^= 0x80;
            cases.push(flipped);
        }
        // y = p, p + 1, p + 18 (non-canonical spellings of 0, 1, 18) and 2^255 - 1.
        for add in [0u8, 1, 18] {
            let mut b = [0xff; 32];
            b[0] = 0xed + add;
            b[31] = 0x7f;
            cases.push(b);
        }
        for n in 0..64u8 {
            let sig = key(n).sign(REVIEW_NAMESPACE, &[n]).unwrap();
            let sig = SshSig::from_pem(&sig).unwrap();
            let s = ed25519_dalek::Signature::from_slice(sig.signature_bytes()).unwrap();
            cases.push(*s.r_bytes());
            let mut h = Sha256::digest([n]).into();
            cases.push(h);
            h[31] |= 0x80;
            cases.push(h);
        }
        let mut on_curve = 0;
        for b in cases {
            let strict = strict_point(&b).is_ok();
            if strict {
                assert!(r_fits_batch(&b), "{}", hex::encode(b));
            }
            if CompressedEdwardsY(b).decompress().is_some() {
                on_curve += 1;
                assert_eq!(r_fits_batch(&b), strict, "{}", hex::encode(b));
            }
        }
        assert!(on_curve > 80, "{on_curve} points");
    }
}
