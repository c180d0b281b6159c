//! known_hosts files, read once and indexed: plain and hashed (`|1|salt|hash`) host patterns,
//! `[host]:port` for ports other than 22, `*`/`?` wildcards and `!` negation, and the
//! `@revoked` marker. A host key is accepted only when a line for the host holds that very key.
//! A host with lines for another key, of the same type or of any other, has a *changed* key
//! (refused, never learned, whatever the flags): trust on first use is for a host known by no
//! key at all. A host with no line is *unknown* (refused unless trust-on-first-use was asked
//! for, which appends the key). As OpenSSH does, the key types already recorded for a host are
//! asked for first in the key exchange (`preferred_types`), so a device that has several host
//! keys presents the one known_hosts holds.

use anyhow::{Context, Result};
use data_encoding::BASE64;
use hmac::{KeyInit, Mac};
use russh::keys::{Algorithm, HashAlg, PublicKey};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// What the known_hosts files say about a key a server presented.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Known,
    Unknown,
    /// Another key (of the same type or not) recorded for the host: `file:line` of the
    /// recorded one.
    Changed(String),
    /// The key is marked `@revoked` at `file:line`.
    Revoked(String),
}

#[derive(Debug)]
struct Entry {
    key: PublicKey,
    at: String,
}

#[derive(Debug)]
struct Hashed {
    salt: Vec<u8>,
    hash: Vec<u8>,
    entry: Entry,
    revoked: bool,
}

#[derive(Debug)]
struct Pattern {
    pattern: String,
    negated: bool,
}

#[derive(Debug)]
struct Wild {
    patterns: Vec<Pattern>,
    entry: Entry,
    revoked: bool,
}

/// Every line of the known_hosts files in use, indexed by exact host name.
#[derive(Debug, Default)]
pub struct KnownHosts {
    exact: HashMap<String, Vec<Entry>>,
    revoked_exact: HashMap<String, Vec<Entry>>,
    hashed: Vec<Hashed>,
    wild: Vec<Wild>,
    /// Where trust-on-first-use appends (the first file).
    learn_to: Option<PathBuf>,
    learn_lock: Mutex<()>,
    /// Lines that could not be read, as `file:line: why` (skipped, like OpenSSH does).
    pub warnings: Vec<String>,
}

/// The name a host has in known_hosts: `host` on port 22, `[host]:port` otherwise.
pub fn host_id(host: &str, port: u16) -> String {
    if port == 22 {
        host.to_string()
    } else {
        format!("[{host}]:{port}")
    }
}

/// `*`/`?` host patterns, ASCII case ignored (the shared matcher, [`crate::glob`]).
fn glob(pattern: &str, text: &str) -> bool {
    crate::glob::matches_ignore_ascii_case(pattern, text)
}

impl KnownHosts {
    /// Read `files` in order (missing files are empty); trust-on-first-use appends to the first.
    pub fn load(files: &[PathBuf]) -> Result<KnownHosts> {
        let mut kh = KnownHosts {
            learn_to: files.first().cloned(),
            ..Default::default()
        };
        for f in files {
            if !f.exists() {
                continue;
            }
            let text = std::fs::read_to_string(f)
                .with_context(|| format!("reading known_hosts file {}", f.display()))?;
            kh.add_text(&text, &f.display().to_string());
        }
        Ok(kh)
    }

    /// Index the lines of one known_hosts file.
    pub fn add_text(&mut self, text: &str, file: &str) {
        for (i, raw) in text.lines().enumerate() {
            let at = format!("{file}:{}", i + 1);
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut words = line.split_whitespace();
            let mut first = words.next().unwrap_or_default();
            let mut revoked = false;
            if first.starts_with('@') {
                match first {
                    "@revoked" => revoked = true,
                    // Host certificates are not accepted; their CA lines are not host keys.
                    "@cert-authority" => continue,
                    other => {
                        self.warnings
                            .push(format!("{at}: unknown marker {other:?}; line skipped"));
                        continue;
                    }
                }
                first = words.next().unwrap_or_default();
            }
            let (Some(kind), Some(b64)) = (words.next(), words.next()) else {
                self.warnings.push(format!(
                    "{at}: expected 'hosts key-type base64-key'; line skipped"
                ));
                continue;
            };
            let key = match PublicKey::from_openssh(&format!("{kind} {b64}")) {
                Ok(k) => k,
                Err(e) => {
                    self.warnings
                        .push(format!("{at}: unreadable {kind} key ({e}); line skipped"));
                    continue;
                }
            };
            let entry = Entry { key, at };
            if let Some(h) = first.strip_prefix("|1|") {
                let mut parts = h.split('|');
                let (Some(salt), Some(hash)) = (parts.next(), parts.next()) else {
                    self.warnings
                        .push(format!("{}: bad hashed host; line skipped", entry.at));
                    continue;
                };
                match (
                    BASE64.decode(salt.as_bytes()),
                    BASE64.decode(hash.as_bytes()),
                ) {
                    (Ok(salt), Ok(hash)) => self.hashed.push(Hashed {
                        salt,
                        hash,
                        entry,
                        revoked,
                    }),
                    _ => self
                        .warnings
                        .push(format!("{}: bad hashed host; line skipped", entry.at)),
                }
                continue;
            }
            let patterns: Vec<Pattern> = first
                .split(',')
                .filter(|p| !p.is_empty())
                .map(|p| match p.strip_prefix('!') {
                    Some(rest) => Pattern {
                        pattern: rest.to_string(),
                        negated: true,
                    },
                    None => Pattern {
                        pattern: p.to_string(),
                        negated: false,
                    },
                })
                .collect();
            let simple = patterns
                .iter()
                .all(|p| !p.negated && !p.pattern.contains(['*', '?']));
            if simple {
                let map = if revoked {
                    &mut self.revoked_exact
                } else {
                    &mut self.exact
                };
                for p in &patterns[..patterns.len().saturating_sub(1)] {
                    map.entry(p.pattern.to_ascii_lowercase())
                        .or_default()
                        .push(Entry {
                            key: entry.key.clone(),
                            at: entry.at.clone(),
                        });
                }
                if let Some(last) = patterns.last() {
                    map.entry(last.pattern.to_ascii_lowercase())
                        .or_default()
                        .push(entry);
                }
            } else {
                self.wild.push(Wild {
                    patterns,
                    entry,
                    revoked,
                });
            }
        }
    }

    fn hashed_matches(h: &Hashed, name: &str) -> bool {
        let Ok(mut mac) = hmac::Hmac::<sha1::Sha1>::new_from_slice(&h.salt) else {
            return false;
        };
        mac.update(name.as_bytes());
        mac.verify_slice(&h.hash).is_ok()
    }

    /// Every recorded entry (and whether it is revoked) for `name`.
    fn entries_for<'a>(&'a self, name: &str) -> Vec<(&'a Entry, bool)> {
        let lower = name.to_ascii_lowercase();
        let mut out: Vec<(&Entry, bool)> = Vec::new();
        if let Some(v) = self.exact.get(&lower) {
            out.extend(v.iter().map(|e| (e, false)));
        }
        if let Some(v) = self.revoked_exact.get(&lower) {
            out.extend(v.iter().map(|e| (e, true)));
        }
        for h in &self.hashed {
            if Self::hashed_matches(h, name) {
                out.push((&h.entry, h.revoked));
            }
        }
        for w in &self.wild {
            let negated = w
                .patterns
                .iter()
                .any(|p| p.negated && glob(&p.pattern, &lower));
            if !negated
                && w.patterns
                    .iter()
                    .any(|p| !p.negated && glob(&p.pattern, &lower))
            {
                out.push((&w.entry, w.revoked));
            }
        }
        out
    }

    /// What the files say about `key` presented by `host`:`port`.
    pub fn check(&self, host: &str, port: u16, key: &PublicKey) -> Verdict {
        let id = host_id(host, port);
        let entries = self.entries_for(&id);
        if let Some((e, _)) = entries.iter().find(|(e, r)| *r && e.key == *key) {
            return Verdict::Revoked(e.at.clone());
        }
        if entries.iter().any(|(e, r)| !*r && e.key == *key) {
            return Verdict::Known;
        }
        // Any other key recorded for the host, of its type first: a host known by an ed25519
        // key that now presents RSA is a changed host, not a new one.
        let same_type = entries
            .iter()
            .find(|(e, r)| !*r && e.key.algorithm() == key.algorithm());
        match same_type.or_else(|| entries.iter().find(|(_, r)| !*r)) {
            Some((e, _)) => Verdict::Changed(e.at.clone()),
            None => Verdict::Unknown,
        }
    }

    /// The key types recorded (not revoked) for `host`:`port`, in file order, each once.
    pub fn recorded_types(&self, host: &str, port: u16) -> Vec<Algorithm> {
        let mut out: Vec<Algorithm> = Vec::new();
        for (e, revoked) in self.entries_for(&host_id(host, port)) {
            let a = e.key.algorithm();
            if !revoked && !out.contains(&a) {
                out.push(a);
            }
        }
        out
    }

    /// Append `key` for `host`:`port` to the first known_hosts file (trust on first use).
    pub fn learn(&self, host: &str, port: u16, key: &PublicKey) -> Result<PathBuf> {
        let Some(path) = &self.learn_to else {
            anyhow::bail!("no known_hosts file to record the key in");
        };
        let line = format!(
            "{} {}\n",
            host_id(host, port),
            key.to_openssh().context("encoding the host key")?
        );
        let _guard = self.learn_lock.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(dir) = path.parent()
            && !dir.as_os_str().is_empty()
        {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("opening {} to record a host key", path.display()))?;
        f.write_all(line.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
        Ok(path.clone())
    }
}

/// `preferred` reordered so that the host-key algorithms of the `recorded` key types come
/// first (in `preferred`'s order), as OpenSSH orders its host key algorithms for a host it
/// already knows (`order_hostkeyalgs` in sshconnect2.c,
/// https://github.com/openssh/openssh-portable/blob/master/sshconnect2.c). An RSA key recorded
/// as `ssh-rsa` brings every RSA signature algorithm forward.
pub fn preferred_types(preferred: &[Algorithm], recorded: &[Algorithm]) -> Vec<Algorithm> {
    let known = |a: &Algorithm| {
        recorded.iter().any(|r| {
            r == a || (matches!(r, Algorithm::Rsa { .. }) && matches!(a, Algorithm::Rsa { .. }))
        })
    };
    let mut out: Vec<Algorithm> = preferred.iter().filter(|a| known(a)).cloned().collect();
    out.extend(preferred.iter().filter(|a| !known(a)).cloned());
    out
}

/// `SHA256:...` fingerprint, as `ssh-keygen -l` prints it.
pub fn fingerprint(key: &PublicKey) -> String {
    key.fingerprint(HashAlg::Sha256).to_string()
}

/// Default known_hosts files: `~/.ssh/known_hosts`.
pub fn user_file() -> Option<PathBuf> {
    std::env::var_os("HOME").map(|h| Path::new(&h).join(".ssh").join("known_hosts"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const K1: &str =
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINtEiwxw6e+oBtoYs7mxpMQdSDgp5m1k+t5oz7iOZb+x";
    const K2: &str =
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIM+SxG5b73HCxoFTTWYDPdL5OMyIsr7ddLRxTFoFAT0t";

    fn key(s: &str) -> PublicKey {
        PublicKey::from_openssh(s).unwrap()
    }

    #[test]
    fn known_unknown_changed_and_ports() {
        let mut kh = KnownHosts::default();
        kh.add_text(
            &format!("leaf1,10.0.0.1 {K1}\n[leaf2]:2222 {K1}\n# c\n\nbroken line\n"),
            "kh",
        );
        assert_eq!(kh.check("leaf1", 22, &key(K1)), Verdict::Known);
        assert_eq!(kh.check("10.0.0.1", 22, &key(K1)), Verdict::Known);
        assert_eq!(kh.check("LEAF1", 22, &key(K1)), Verdict::Known);
        assert_eq!(
            kh.check("leaf1", 22, &key(K2)),
            Verdict::Changed("kh:1".into())
        );
        assert_eq!(kh.check("leaf1", 2222, &key(K1)), Verdict::Unknown);
        assert_eq!(kh.check("leaf2", 2222, &key(K1)), Verdict::Known);
        assert_eq!(kh.check("leaf2", 22, &key(K1)), Verdict::Unknown);
        assert_eq!(kh.warnings.len(), 1, "{:?}", kh.warnings);
        assert!(kh.warnings[0].starts_with("kh:5:"));
    }

    #[test]
    fn a_key_of_another_type_is_a_changed_key() {
        let ecdsa = russh::keys::PrivateKey::random(
            &mut russh::keys::key::safe_rng(),
            Algorithm::Ecdsa {
                curve: russh::keys::EcdsaCurve::NistP256,
            },
        )
        .unwrap()
        .public_key()
        .clone();
        let mut kh = KnownHosts::default();
        kh.add_text(&format!("[leaf1]:2222 {K1}\n"), "kh");
        assert_eq!(
            kh.check("leaf1", 2222, &ecdsa),
            Verdict::Changed("kh:1".into())
        );
        assert_eq!(kh.check("leaf9", 2222, &ecdsa), Verdict::Unknown);
        assert_eq!(kh.recorded_types("leaf1", 2222), vec![Algorithm::Ed25519]);
        // The recorded type is asked for first; RSA recorded as ssh-rsa brings rsa-sha2-* first.
        let pref = [
            Algorithm::Ed25519,
            Algorithm::Rsa {
                hash: Some(russh::keys::HashAlg::Sha256),
            },
            Algorithm::Rsa { hash: None },
        ];
        let rsa = preferred_types(&pref, &[Algorithm::Rsa { hash: None }]);
        assert_eq!(rsa[0], pref[1]);
        assert_eq!(rsa[1], pref[2]);
        assert_eq!(rsa[2], Algorithm::Ed25519);
        assert_eq!(preferred_types(&pref, &[]), pref.to_vec());
    }

    #[test]
    fn hashed_wildcards_negation_revoked() {
        // |1|salt|HMAC-SHA1(salt, "leaf9"), made with the hmac crate in this test.
        let salt = b"0123456789abcdefghij";
        let mut mac = hmac::Hmac::<sha1::Sha1>::new_from_slice(salt).unwrap();
        mac.update(b"leaf9");
        let hash = mac.finalize().into_bytes();
        let hashed = format!("|1|{}|{}", BASE64.encode(salt), BASE64.encode(&hash));
        let mut kh = KnownHosts::default();
        kh.add_text(
            &format!("{hashed} {K1}\n10.9.*,!10.9.9.9 {K2}\n@revoked bad {K2}\n"),
            "kh",
        );
        assert_eq!(kh.check("leaf9", 22, &key(K1)), Verdict::Known);
        assert_eq!(kh.check("leaf8", 22, &key(K1)), Verdict::Unknown);
        assert_eq!(kh.check("10.9.1.1", 22, &key(K2)), Verdict::Known);
        assert_eq!(kh.check("10.9.9.9", 22, &key(K2)), Verdict::Unknown);
        assert_eq!(
            kh.check("bad", 22, &key(K2)),
            Verdict::Revoked("kh:3".into())
        );
    }

    #[test]
    fn learn_appends_and_is_then_known() {
        let dir = std::env::temp_dir().join(format!("fa-kh-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let file = dir.join("known_hosts");
        let kh = KnownHosts::load(std::slice::from_ref(&file)).unwrap();
        assert_eq!(kh.check("h", 2200, &key(K1)), Verdict::Unknown);
        kh.learn("h", 2200, &key(K1)).unwrap();
        let kh = KnownHosts::load(std::slice::from_ref(&file)).unwrap();
        assert_eq!(kh.check("h", 2200, &key(K1)), Verdict::Known);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
