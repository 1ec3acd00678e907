//! Writes a git index (format version 2, no extensions) for files whose blobs are known without
//! reading them: the files [`crate::clone`] cloned from a checkout that held them unchanged.
//!
//! Why write it ourselves: git has no command that records a file's stat data with a blob id
//! it is told (`update-index --index-info` takes no stat data, `--refresh` re-reads every
//! file). An index without their stat data would make the checkout that follows write every
//! file again, and with it, git's own refresh would read the whole gigabyte back. Version 2 is
//! the format every git since 2005 reads; git rewrites it in its own version and with its own
//! extensions at its next index write (the fill's checkout, right after).
//!
//! Layout (`Documentation/gitformat-index.txt`): `DIRC`, version, entry count; the entries
//! sorted by path bytes, each with its stat data as 32-bit big-endian numbers, the blob id,
//! 16 bits of flags (the path's length), the path and 1–8 NULs to a multiple of 8 bytes; then
//! the SHA-1 of all that.

use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use sha1::{Digest, Sha1};

/// One file of the index: its path in the tree (bytes, `/`-separated), its git mode
/// (`0o100644` or `0o100755`), its blob id (SHA-1, 20 bytes) and the file's stat data as it is
/// on disk now.
pub(crate) struct IndexEntry {
    pub path: Vec<u8>,
    pub mode: u32,
    pub blob: [u8; 20],
    pub stat: std::fs::Metadata,
}

/// The flags hold the path's length up to this; longer paths store it and git finds the NUL.
const NAME_MASK: usize = 0x0fff;

/// Writes `entries` (any order; sorted here) as the index at `index`, through `index.lock`
/// as git does, so a git process that takes the lock meanwhile is refused rather than raced.
pub(crate) fn write_index(index: &Path, mut entries: Vec<IndexEntry>) -> std::io::Result<()> {
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    entries.dedup_by(|a, b| a.path == b.path);
    let mut bytes = Vec::with_capacity(12 + entries.len() * 96);
    bytes.extend_from_slice(b"DIRC");
    bytes.extend_from_slice(&2u32.to_be_bytes());
    bytes.extend_from_slice(&(entries.len() as u32).to_be_bytes());
    for entry in &entries {
        let start = bytes.len();
        let s = &entry.stat;
        // Git keeps each as an unsigned 32-bit number, truncating larger ones.
        for n in [
            s.ctime() as u32,
            s.ctime_nsec() as u32,
            s.mtime() as u32,
            s.mtime_nsec() as u32,
            s.dev() as u32,
            s.ino() as u32,
            entry.mode,
            s.uid(),
            s.gid(),
            s.size() as u32,
        ] {
            bytes.extend_from_slice(&n.to_be_bytes());
        }
        bytes.extend_from_slice(&entry.blob);
        let flags = entry.path.len().min(NAME_MASK) as u16;
        bytes.extend_from_slice(&flags.to_be_bytes());
        bytes.extend_from_slice(&entry.path);
        // 62 bytes before the path; at least one NUL after it.
        let len = bytes.len() - start;
        let padded = (len + 8) & !7;
        bytes.resize(start + padded, 0);
    }
    let sum = Sha1::digest(&bytes);
    bytes.extend_from_slice(&sum);

    let mut lock_name = index.as_os_str().to_owned();
    lock_name.push(".lock");
    let lock = Path::new(&lock_name);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(lock)?;
    let written = file.write_all(&bytes).and_then(|()| file.sync_data());
    drop(file);
    if let Err(err) = written.and_then(|()| std::fs::rename(lock, index)) {
        let _ = std::fs::remove_file(lock);
        return Err(err);
    }
    Ok(())
}

/// A 40-digit hex SHA-1 as its 20 bytes; `None` for anything else (a SHA-256 repository's
/// 64 digits, which this writer does not handle).
pub(crate) fn blob_bytes(hex: &[u8]) -> Option<[u8; 20]> {
    if hex.len() != 40 {
        return None;
    }
    let mut out = [0u8; 20];
    for (i, pair) in hex.chunks(2).enumerate() {
        let digit = |c: u8| (c as char).to_digit(16);
        out[i] = (digit(pair[0])? * 16 + digit(pair[1])?) as u8;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_ids_become_their_bytes_and_other_lengths_do_not() {
        let id = blob_bytes(b"e69de29bb2d1d6434b8b29ae775ad8c2e48c5391").unwrap();
        assert_eq!(id[0], 0xe6);
        assert_eq!(id[19], 0x91);
        assert_eq!(blob_bytes(b"e69d"), None);
        assert_eq!(
            blob_bytes(b"zz9de29bb2d1d6434b8b29ae775ad8c2e48c5391"),
            None
        );
    }
}
