//! A fork's files cloned copy-on-write from the checkout it was forked from, where the file
//! system can (APFS `clonefile`, btrfs and XFS reflinks): a clone shares the source's blocks,
//! so it costs a file's metadata, not its bytes, and takes no disk until one side changes it.
//!
//! Only a file the source holds exactly as its index records it, with the same blob and mode
//! as the fork's commit, is cloned; git's forced checkout then writes the rest (files that
//! differ at the fork point, unsaved edits, symlinks, submodules). For the checkout to leave
//! the clones alone, the new worktree's index must already hold them with their own stat data:
//! [`crate::index_file`] writes it, since the blob of each is known without reading it.
//!
//! A source file that changes while it is being cloned (an agent editing in the source) must
//! not end up recorded under its old blob. So a marker file is written before git is asked
//! which files are unchanged, and a clone is kept only if its source's change time is still
//! older than the marker's afterwards: any write since, even one that put the modification
//! time back, moves the change time past it. The file system's own clock stamps both, so no
//! clock skew enters.
//!
//! Not on Windows yet: ReFS block cloning exists, but git for Windows fills the index's stat
//! fields its own way, which only a Windows machine can check.

use crate::error::Result;
use crate::repo::Repo;

/// `FORKHOST_NO_CLONES=1`: git writes every file of a fork, as where the file system has no
/// clones (a way out should a file system misreport them, and the A/B of the benchmarks).
pub const NO_CLONES_ENV: &str = "FORKHOST_NO_CLONES";

fn clones_turned_off(value: Option<&std::ffi::OsStr>) -> bool {
    value.is_some_and(|v| v == "1")
}

/// How a file is brought over from the source checkout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileCopy {
    /// A copy-on-write clone; where the file system has none, nothing is cloned.
    Clone,
    /// A plain copy, for tests on a file system without clones: the same selection, index
    /// and checkout as a clone gets.
    #[cfg(all(test, unix))]
    Copy,
}

/// What [`Repo::clone_unchanged_files`] did: `files` cloned of the `total` in the fork's tree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Cloned {
    pub files: u64,
    pub total: u64,
}

impl Repo {
    /// Into `dest`, a worktree [`Repo::add_worktree`] made (no index, no file yet), clones the
    /// files of commit `at` that this checkout holds unchanged, and writes `dest`'s index for
    /// them, so that a forced checkout of `at` in `dest` writes only the others. Does nothing
    /// (`files: 0`) where `dest` has an index already (a claimed spare), the two are not on one
    /// file system that clones, or the repository's ids are not SHA-1. `progress` is called
    /// with the files done and the total as they are cloned.
    pub(crate) fn clone_unchanged_files(
        &self,
        dest: &Repo,
        at: &str,
        how: FileCopy,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Cloned> {
        if clones_turned_off(std::env::var_os(NO_CLONES_ENV).as_deref()) {
            return Ok(Cloned::default());
        }
        #[cfg(unix)]
        return unix::clone_unchanged_files(self, dest, at, how, progress);
        #[cfg(not(unix))]
        {
            let _ = (dest, at, how, progress);
            Ok(Cloned::default())
        }
    }
}

#[cfg(unix)]
pub(crate) mod unix {
    use std::collections::{BTreeSet, HashMap, HashSet};
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    use std::path::Path;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::{Cloned, FileCopy};
    use crate::error::Result;
    use crate::git::{nul_records, words_and_path};
    use crate::index_file::{blob_bytes, write_index, IndexEntry};
    use crate::repo::Repo;

    /// In the new worktree's git folder while its files are cloned: stamped before git lists
    /// the unchanged files (see the module's comment).
    const SINCE_FILE: &str = "forkhost-clone-since";
    const PROBE_FILE: &str = "forkhost-clone-probe";
    const REGULAR: u32 = 0o100644;
    const EXECUTABLE: u32 = 0o100755;

    pub(crate) struct Candidate {
        pub(crate) path: Vec<u8>,
        pub(crate) mode: u32,
        pub(crate) blob: [u8; 20],
    }

    pub(super) fn clone_unchanged_files(
        source: &Repo,
        dest: &Repo,
        at: &str,
        how: FileCopy,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Cloned> {
        let index = dest.git_dir.join("index");
        if index.exists() {
            return Ok(Cloned::default());
        }
        // First whether this file system clones at all, with the repository's own small file
        // (HEAD, beside the checkout in every usual layout): where it does not (ext4), no
        // git process lists the tree for nothing.
        let probe = dest.git_dir.join(PROBE_FILE);
        let _ = std::fs::remove_file(&probe);
        let probed = copy(how, &source.git_dir.join("HEAD"), &probe);
        let _ = std::fs::remove_file(&probe);
        if let Err(err) = probed {
            tracing::debug!(%err, "no copy-on-write clones here; git writes every file");
            return Ok(Cloned::default());
        }
        let since_file = dest.git_dir.join(SINCE_FILE);
        std::fs::write(&since_file, b"")?;
        let since = std::fs::metadata(&since_file)?;
        let since = (since.mtime(), since.mtime_nsec());
        let started = std::time::Instant::now();
        let chosen = choose(source, at);
        let listed_ms = started.elapsed().as_millis() as u64;
        let _ = std::fs::remove_file(&since_file);
        let Some((candidates, total)) = chosen? else {
            return Ok(Cloned::default());
        };
        if candidates.is_empty() {
            return Ok(Cloned { files: 0, total });
        }

        let folders: BTreeSet<&[u8]> = candidates
            .iter()
            .filter_map(|c| {
                c.path
                    .iter()
                    .rposition(|b| *b == b'/')
                    .map(|i| &c.path[..i])
            })
            .collect();
        for folder in folders {
            std::fs::create_dir_all(dest.root.join(rel(folder)))?;
        }

        let next = AtomicUsize::new(0);
        let done = AtomicUsize::new(0);
        let workers = std::thread::available_parallelism()
            .map_or(2, |n| n.get())
            .clamp(2, 8);
        let cloning = std::time::Instant::now();
        let entries: Vec<IndexEntry> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    scope.spawn(|| {
                        let mut made = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(c) = candidates.get(i) else { break };
                            if let Some(entry) = clone_one(source, dest, c, how, since) {
                                made.push(entry);
                            }
                            done.fetch_add(1, Ordering::Relaxed);
                        }
                        made
                    })
                })
                .collect();
            loop {
                let finished = handles.iter().all(|h| h.is_finished());
                progress(done.load(Ordering::Relaxed) as u64, total);
                if finished {
                    break;
                }
                std::thread::sleep(Duration::from_millis(25));
            }
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_default())
                .collect()
        });
        let files = entries.len() as u64;
        let cloned_ms = cloning.elapsed().as_millis() as u64;
        progress(files, total);
        if let Err(err) = write_index(&index, entries) {
            // The checkout that follows then writes every file, over the clones.
            tracing::warn!(%err, "could not write the cloned files' index");
            return Ok(Cloned { files: 0, total });
        }
        // Where a fill's time goes: git's lists, the clones, the index.
        tracing::info!(
            files,
            total,
            listed_ms,
            cloned_ms,
            ms = started.elapsed().as_millis() as u64,
            "files cloned from the source checkout"
        );
        Ok(Cloned { files, total })
    }

    /// The files of `at` this checkout holds unchanged, and how many files `at` has; `None`
    /// where nothing may be cloned (ids that are not SHA-1, `.gitattributes` that differ).
    fn choose(source: &Repo, at: &str) -> Result<Option<(Vec<Candidate>, u64)>> {
        let git = |args: &[&str]| source.git.call(&source.root).args(args).run();
        let tree = git(&["ls-tree", "-r", "-z", "--full-tree", "--end-of-options", at])?;
        let staged = git(&["ls-files", "--stage", "-z"])?;
        // Without `--refresh`: a file whose stat data changed counts as changed, content or
        // not; git writes it.
        let changed = git(&["diff-files", "--name-only", "-z"])?;
        let changed: HashSet<&[u8]> = nul_records(&changed).collect();
        let mut in_index: HashMap<&[u8], (&[u8], &[u8])> = HashMap::new();
        let mut conflicted: HashSet<&[u8]> = HashSet::new();
        for record in nul_records(&staged) {
            let Some(([mode, blob, stage], path)) = words_and_path(record) else {
                continue;
            };
            if stage != b"0" {
                conflicted.insert(path);
            }
            in_index.insert(path, (mode, blob));
        }
        let mut candidates = Vec::new();
        let mut total = 0u64;
        let mut attributes_differ = false;
        let mut tree_attributes = 0usize;
        for record in nul_records(&tree) {
            let Some(([mode, _kind, blob], path)) = words_and_path(record) else {
                continue;
            };
            total += 1;
            let Some(blob_id) = blob_bytes(blob) else {
                return Ok(None);
            };
            let unchanged = in_index.get(path) == Some(&(mode, blob))
                && !changed.contains(path)
                && !conflicted.contains(path);
            // The attributes decide what git writes for a blob (line endings, filters): where
            // they differ, a source file is not what the checkout would write.
            if is_attributes(path) {
                tree_attributes += 1;
                attributes_differ |= !unchanged;
            }
            let mode = match mode {
                b"100644" => REGULAR,
                b"100755" => EXECUTABLE,
                _ => continue,
            };
            if unchanged {
                candidates.push(Candidate {
                    path: path.to_vec(),
                    mode,
                    blob: blob_id,
                });
            }
        }
        let index_attributes = in_index.keys().filter(|p| is_attributes(p)).count();
        if attributes_differ || index_attributes != tree_attributes {
            return Ok(None);
        }
        Ok(Some((candidates, total)))
    }

    /// Clones one file and returns its index entry; `None` (and no file left) where it could
    /// not be cloned or its source changed since `since`.
    pub(crate) fn clone_one(
        source: &Repo,
        dest: &Repo,
        c: &Candidate,
        how: FileCopy,
        since: (i64, i64),
    ) -> Option<IndexEntry> {
        let from = source.root.join(rel(&c.path));
        let to = dest.root.join(rel(&c.path));
        copy(how, &from, &to).ok()?;
        let kept = (|| {
            let was = std::fs::symlink_metadata(&from).ok()?;
            let untouched = was.file_type().is_file() && (was.ctime(), was.ctime_nsec()) < since;
            if !untouched {
                return None;
            }
            // As git writes it: the executable bits only where the commit says so.
            let bits = if c.mode == EXECUTABLE { 0o777 } else { 0o666 } & was.mode();
            std::fs::set_permissions(&to, std::fs::Permissions::from_mode(bits & 0o777)).ok()?;
            // The source's modification time, as `cp -p` keeps it. A file stamped in the same
            // second as the index that records it is "racily clean" to git, which then reads
            // it whole at every status and checkout until the index is written again; with
            // the source's (older) time, the checkout right after trusts its stat data.
            let modified = filetime::FileTime::from_last_modification_time(&was);
            filetime::set_file_mtime(&to, modified).ok()?;
            std::fs::symlink_metadata(&to).ok()
        })();
        let Some(stat) = kept else {
            let _ = std::fs::remove_file(&to);
            return None;
        };
        Some(IndexEntry {
            path: c.path.clone(),
            mode: c.mode,
            blob: c.blob,
            stat,
        })
    }

    fn copy(how: FileCopy, from: &Path, to: &Path) -> std::io::Result<()> {
        match how {
            FileCopy::Clone => reflink_copy::reflink(from, to),
            #[cfg(test)]
            FileCopy::Copy => {
                let mut source = std::fs::File::open(from)?;
                let mut made = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(to)?;
                std::io::copy(&mut source, &mut made).map(|_| ())
            }
        }
    }

    fn is_attributes(path: &[u8]) -> bool {
        path == b".gitattributes" || path.ends_with(b"/.gitattributes")
    }

    fn rel(path: &[u8]) -> &Path {
        Path::new(OsStr::from_bytes(path))
    }
}

#[cfg(test)]
mod tests {
    use super::clones_turned_off;
    use std::ffi::OsStr;

    #[test]
    fn only_a_one_turns_clones_off() {
        assert!(clones_turned_off(Some(OsStr::new("1"))));
        assert!(!clones_turned_off(Some(OsStr::new("0"))));
        assert!(!clones_turned_off(Some(OsStr::new(""))));
        assert!(!clones_turned_off(None));
    }
}
