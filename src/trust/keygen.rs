//! A node's new signing key pair, made on the machine that will sign with it: the private
//! half written there (mode 0600, never overwriting a file), the public half returned for
//! glossary.toml. What `glossary verify init-node` uses; `ssh-keygen -t ed25519` makes the
//! same kind of file.

use std::io::{Read, Write};
use std::path::Path;

use ssh_key::private::{Ed25519Keypair, KeypairData};
use ssh_key::{LineEnding, PrivateKey};

/// Make an ed25519 key pair, write its private half to `path` (which must not exist: a key
/// already there may be one a node signs with) and its public half to `path.pub`; the
/// public key line comes back. The seed is read from the operating system's generator.
pub fn new_key_pair(path: &Path, comment: &str) -> Result<String, String> {
    let at = |what: &str, e: std::io::Error| format!("{}: {what}: {e}", path.display());
    let pub_path = path.with_file_name(format!(
        "{}.pub",
        path.file_name()
            .map_or("key".into(), |n| n.to_string_lossy())
    ));
    // Neither half may be there already (a symbolic link included): checked before
    // anything is written, and both files are then created new, never through a link.
    for half in [path, pub_path.as_path()] {
        if half.exists() || half.is_symlink() {
            return Err(format!(
                "{} exists: a key pair is never overwritten (it may be the one a node signs with); name another file with --key, or use that key with `glossary verify rotate-key`",
                half.display()
            ));
        }
    }
    let mut seed = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut seed[..]))
        .map_err(|e| format!("reading 32 random bytes from /dev/urandom: {e}"))?;
    let key = PrivateKey::new(
        KeypairData::Ed25519(Ed25519Keypair::from_seed(&seed)),
        comment,
    )
    .map_err(|e| e.to_string())?;
    let private = key
        .to_openssh(LineEnding::LF)
        .map_err(|e| format!("encoding the private key: {e}"))?;
    let public = key
        .public_key()
        .to_openssh()
        .map_err(|e| format!("encoding the public key: {e}"))?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| at("making its folder", e))?;
    }
    let mut open = std::fs::OpenOptions::new();
    open.write(true).create_new(true);
    let public_open = open.clone();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Readable by its owner only, from the moment it exists (as ssh-keygen makes it).
        open.mode(0o600);
    }
    let mut file = open.open(path).map_err(|e| at("creating", e))?;
    file.write_all(private.as_bytes())
        .and_then(|_| file.sync_all())
        .map_err(|e| at("writing", e))?;
    public_open
        .open(&pub_path)
        .and_then(|mut f| f.write_all(format!("{public}\n").as_bytes()))
        .map_err(|e| format!("{}: writing: {e}", pub_path.display()))?;
    Ok(public)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_public_half_already_there_or_a_link_is_refused_before_anything_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("authorized_keys");
        std::fs::write(&target, "kept\n").unwrap();
        let path = dir.path().join("node_ed25519");
        std::os::unix::fs::symlink(&target, dir.path().join("node_ed25519.pub")).unwrap();
        let said = new_key_pair(&path, "c").unwrap_err();
        assert!(said.contains("node_ed25519.pub exists"), "{said}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept\n");
        assert!(!path.exists(), "no private half without its public one");
    }

    #[test]
    fn a_new_pair_is_private_to_its_owner_loads_as_a_signer_and_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys/node-x_ed25519");
        let public = new_key_pair(&path, "glossary verification node node-x").unwrap();
        assert!(
            public.starts_with("ssh-ed25519 ")
                && public.ends_with(" glossary verification node node-x"),
            "{public}"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
        // The file is an OpenSSH private key whose public half is the one returned.
        let signer = crate::trust::Signer::from_file(&path).unwrap();
        assert_eq!(signer.public_key().to_openssh().unwrap(), public);
        assert_eq!(
            std::fs::read_to_string(path.with_file_name("node-x_ed25519.pub")).unwrap(),
            format!("{public}\n")
        );
        // A second pair differs (a fresh seed), and an existing file is never replaced.
        let other = new_key_pair(&dir.path().join("other"), "c").unwrap();
        assert_ne!(other.split(' ').nth(1), public.split(' ').nth(1));
        let said = new_key_pair(&path, "c").unwrap_err();
        assert!(
            said.contains("exists: a key pair is never overwritten"),
            "{said}"
        );
        assert!(
            crate::trust::Signer::from_file(&path)
                .unwrap()
                .public_key()
                .to_openssh()
                .unwrap()
                == public
        );
    }
}
