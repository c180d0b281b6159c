//! Reading one file of a snapshot without ever leaving the snapshot.
//!
//! A snapshot may come from an untrusted source (a pull request reviewed in CI, a folder a
//! colleague sent). Every file of it (`fabric.toml`, `configs/*`, `devices/<d>/*`,
//! `device.toml`, `collection.toml`, `waivers.toml`, `probes.json`) is read here and only here,
//! under three rules:
//!
//! - **No symbolic link is followed**, wherever it points (`configs/leaf9.cfg -> ~/.ssh/id_ed25519`
//!   would otherwise be echoed line by line as "unrecognized" into every report). Folders are
//!   listed without following links either, so a linked `devices/leaf1` is refused the same way.
//! - **Only regular files are read.** A FIFO, a socket or a device node is refused without
//!   blocking: the file is opened with `O_NONBLOCK | O_NOFOLLOW` and checked with `fstat` on the
//!   open descriptor, so the check and the read see the same file.
//! - **A file larger than the cap is not read** (default [`DEFAULT_MAX_FILE_BYTES`], set with
//!   `--max-file-size`); at most cap + 1 bytes are ever read, so a file that grows while read
//!   is caught too.
//!
//! A refusal is never fatal: the caller records it as a notice of kind `refused`, which rule
//! PARSE010 reports, and the audit goes on without that file. The cap is a process-wide
//! setting on purpose: it is the operator's (the command line's), never the snapshot's, since a
//! hostile snapshot must not be able to lift its own limit.

use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// The default per-file cap: 64 MiB, far above any real config or command output (the
/// largest in the project's corpus is a few MiB) and far below what hurts the machine.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 64 << 20;

static MAX_FILE_BYTES: AtomicU64 = AtomicU64::new(DEFAULT_MAX_FILE_BYTES);

/// Set the per-file cap for the rest of the process (`--max-file-size`).
pub fn set_max_file_bytes(n: u64) {
    MAX_FILE_BYTES.store(n, Ordering::Relaxed);
}

/// The per-file cap in force.
pub fn max_file_bytes() -> u64 {
    MAX_FILE_BYTES.load(Ordering::Relaxed)
}

/// Parse a size as given on the command line: bytes, or with a K/M/G suffix (powers of 1024,
/// an optional `iB`/`B`): `65536`, `64M`, `64MiB`, `1G`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t.chars().take_while(|c| c.is_ascii_digit()).count();
    let (num, unit) = t.split_at(digits);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a size (expected e.g. 65536, 64M, 64MiB, 1G)"))?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        other => return Err(format!("unknown size unit {other:?} in {s:?} (K, M or G)")),
    };
    let v = n
        .checked_mul(mult)
        .ok_or_else(|| format!("{s:?} is too large"))?;
    if v == 0 {
        return Err("the file size cap must be at least 1 byte".into());
    }
    Ok(v)
}

/// Why a file of the snapshot was not read.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadError {
    /// Refused on purpose: a link, not a regular file, or over the cap. Reported by PARSE010.
    Refused(String),
    /// The file could not be read or decoded (permissions, I/O, not UTF-8 text).
    Failed(String),
}

impl ReadError {
    pub fn message(&self) -> &str {
        match self {
            ReadError::Refused(m) | ReadError::Failed(m) => m,
        }
    }
    pub fn is_refusal(&self) -> bool {
        matches!(self, ReadError::Refused(_))
    }
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message())
    }
}

/// The kind of a non-regular directory entry, in words; `None` for a regular file or folder.
pub fn odd_kind(ft: &std::fs::FileType) -> Option<&'static str> {
    #[cfg(unix)]
    use std::os::unix::fs::FileTypeExt;
    if ft.is_symlink() {
        return Some("a symbolic link");
    }
    if ft.is_file() || ft.is_dir() {
        return None;
    }
    #[cfg(unix)]
    {
        if ft.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if ft.is_socket() {
            return Some("a socket");
        }
        if ft.is_char_device() {
            return Some("a character device");
        }
        if ft.is_block_device() {
            return Some("a block device");
        }
    }
    Some("not a regular file")
}

/// The refusal message for a link: names it and what it points at (the link's own text,
/// never the content of its target).
pub fn link_refusal(path: &Path) -> String {
    match std::fs::read_link(path) {
        Ok(t) => format!(
            "a symbolic link (to {}): not followed; a snapshot is read only from its own regular files",
            t.display()
        ),
        Err(_) => {
            "a symbolic link: not followed; a snapshot is read only from its own regular files"
                .into()
        }
    }
}

/// Whether `path` exists as a directory entry at all (a dangling link counts: it is there, and
/// must be refused, not taken for a missing file).
pub fn entry_exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// Read a file's bytes under the rules of this module.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, ReadError> {
    let meta = std::fs::symlink_metadata(path)
        .map_err(|e| ReadError::Failed(format!("cannot read: {e}")))?;
    read_bytes_of(path, meta.file_type())
}

/// [`read_bytes`] of a folder entry whose type the listing already gave (`DirEntry::file_type`,
/// which, like `symlink_metadata`, does not follow a link): the same checks, one `lstat` fewer.
pub fn read_bytes_of(path: &Path, ft: std::fs::FileType) -> Result<Vec<u8>, ReadError> {
    let cap = max_file_bytes();
    if ft.is_symlink() {
        return Err(ReadError::Refused(link_refusal(path)));
    }
    if ft.is_dir() {
        return Err(ReadError::Refused(
            "a folder where a file was expected".into(),
        ));
    }
    if let Some(kind) = odd_kind(&ft) {
        return Err(ReadError::Refused(format!(
            "{kind}, not a regular file: not read"
        )));
    }
    let mut file = open_no_follow(path).map_err(|e| {
        if e.raw_os_error() == Some(libc_eloop()) {
            ReadError::Refused(link_refusal(path))
        } else {
            ReadError::Failed(format!("cannot read: {e}"))
        }
    })?;
    // The entry may have been swapped between the look and the open: judge the open file.
    let meta = file
        .metadata()
        .map_err(|e| ReadError::Failed(format!("cannot read: {e}")))?;
    if !meta.is_file() {
        return Err(ReadError::Refused(
            "not a regular file (changed while opened): not read".into(),
        ));
    }
    if meta.len() > cap {
        return Err(ReadError::Refused(too_large(meta.len(), cap)));
    }
    let mut buf = Vec::with_capacity(meta.len() as usize);
    (&mut file)
        .take(cap + 1)
        .read_to_end(&mut buf)
        .map_err(|e| ReadError::Failed(format!("cannot read: {e}")))?;
    if buf.len() as u64 > cap {
        return Err(ReadError::Refused(too_large(buf.len() as u64, cap)));
    }
    Ok(buf)
}

/// Read a file as text: [`read_bytes`], then [`crate::parser::decode`] (line endings, BOM,
/// UTF-8, NUL).
pub fn read_text(path: &Path) -> Result<String, ReadError> {
    let bytes = read_bytes(path)?;
    crate::parser::decode(bytes).map_err(ReadError::Failed)
}

/// [`read_text`] of a listed folder entry (see [`read_bytes_of`]).
pub fn read_text_of(path: &Path, ft: std::fs::FileType) -> Result<String, ReadError> {
    let bytes = read_bytes_of(path, ft)?;
    crate::parser::decode(bytes).map_err(ReadError::Failed)
}

fn too_large(size: u64, cap: u64) -> String {
    format!(
        "{} bytes{}, over the per-file cap of {} bytes: not read (raise it with --max-file-size if the file is genuine)",
        size,
        if size > cap { "" } else { " or more" },
        cap
    )
}

#[cfg(unix)]
fn open_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
}

#[cfg(not(unix))]
fn open_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path)
}

#[cfg(unix)]
fn libc_eloop() -> i32 {
    libc::ELOOP
}

#[cfg(not(unix))]
fn libc_eloop() -> i32 {
    -1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("65536"), Ok(65536));
        assert_eq!(parse_size("64M"), Ok(64 << 20));
        assert_eq!(parse_size("64MiB"), Ok(64 << 20));
        assert_eq!(parse_size("1g"), Ok(1 << 30));
        assert_eq!(parse_size("2 KiB"), Ok(2048));
        assert!(parse_size("0").is_err());
        assert!(parse_size("lots").is_err());
        assert!(parse_size("5T").is_err());
        assert!(parse_size("99999999999999999999G").is_err());
    }
}
