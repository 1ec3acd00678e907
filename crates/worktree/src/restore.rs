//! Restoring a folder to a checkpoint (a rewind with files): the files of the folder that a
//! checkpoint records — tracked and untracked, not ignored — are made those of another
//! checkpoint. Files that differ are written back from the checkpoint's tree, files it lacks are
//! deleted, and nothing else is touched: not the user's index, HEAD or branch, not an ignored
//! file, not a file outside the folder.
//!
//! The caller takes a checkpoint of the folder right before (`from`), so everything a restore
//! overwrites or deletes is recorded and can be written back the same way (an undo is a
//! restore from the new state to `from`). Only what `from` holds is touched: a path `to` has
//! that `from` lacks but the folder holds (an ignored file, an untracked file over the size
//! limit) is left as it is and listed in [`Restored::kept`].

use std::path::{Path, PathBuf};

use crate::diff::{parse_diff_tree, FileDiff, FileStatus};
use crate::error::{Result, WorktreeError};
use crate::git::nul_joined;
use crate::oid::Oid;
use crate::repo::Repo;

/// What a restore did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restored {
    /// The files now as in the target checkpoint (written back or deleted), by path.
    pub files: Vec<FileDiff>,
    /// Paths the target has that were in the folder but not in the checkpoint taken before
    /// (ignored, too large): left untouched rather than overwritten.
    pub kept: Vec<String>,
}

/// What restoring a folder would do, read without writing anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestorePreview {
    /// The files the restore would write back or delete, as [`Repo::restore_changes`] lists them.
    pub changes: Vec<FileDiff>,
    /// Of those, the paths whose current content differs from the given recorded checkpoint
    /// (none given: every changed path): what no checkpoint holds yet.
    pub unrecorded: Vec<String>,
}

impl Repo {
    /// What restoring `folder` to checkpoint `to` would change, from the folder's files now
    /// (read through a temporary index: no ref, no commit), and which of those changes
    /// `recorded` (the thread's latest checkpoint) does not hold.
    pub fn restore_preview(
        &self,
        folder: &Path,
        to: &Oid,
        recorded: Option<&Oid>,
    ) -> Result<RestorePreview> {
        let to = self.commit(to)?;
        let now = self
            .snapshot(crate::snapshot::DEFAULT_SIZE_LIMIT, Some(folder))?
            .tree;
        let changes = self.changes_in(&now, &to, folder)?;
        let unrecorded = match recorded {
            Some(recorded) => {
                let recorded = self.commit(recorded)?;
                let differs: Vec<String> = self
                    .changes_in(&recorded, &now, folder)?
                    .into_iter()
                    .map(|f| f.path)
                    .collect();
                changes
                    .iter()
                    .filter(|c| differs.contains(&c.path))
                    .map(|c| c.path.clone())
                    .collect()
            }
            None => changes.iter().map(|c| c.path.clone()).collect(),
        };
        Ok(RestorePreview {
            changes,
            unrecorded,
        })
    }

    /// The files inside `folder` (this checkout, or the repository's top when it is the
    /// folder) that differ between the checkpoints `from` and `to`: what restoring the folder
    /// from `from` to `to` changes. Statuses read from `from` to `to` (`deleted`: the restore
    /// removes it), no renames (a rename is a deletion and an addition here).
    pub fn restore_changes(&self, from: &Oid, to: &Oid, folder: &Path) -> Result<Vec<FileDiff>> {
        let from = self.commit(from)?;
        let to = self.commit(to)?;
        self.changes_in(&from, &to, folder)
    }

    /// [`Repo::restore_changes`] between two trees or commits, unchecked.
    fn changes_in(&self, from: &Oid, to: &Oid, folder: &Path) -> Result<Vec<FileDiff>> {
        let mut call = self.git.call(&self.root).args([
            "diff-tree",
            "-r",
            "-z",
            "--no-renames",
            "--no-ext-diff",
            "--no-textconv",
            "--no-color",
            "--raw",
            "--numstat",
            from.as_str(),
            to.as_str(),
        ]);
        // Checkpoints record tracked files outside the folder with their index contents; a
        // restore of the folder never reaches them.
        if let Some(rel) = self.relative_of(folder)? {
            call = call.arg("--").arg(format!(":(literal){rel}"));
        }
        let out = call.run()?;
        let mut files: Vec<FileDiff> = parse_diff_tree(&out)
            .0
            .into_iter()
            .map(|l| l.file)
            .collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(files)
    }

    /// Makes `folder`'s files those of checkpoint `to`, given that they are checkpoint `from`'s
    /// now (one taken just before, by the caller). Deletions first, so a folder that becomes a
    /// file (or the reverse) is free; then the changed and added files are written from `to`'s
    /// tree through a temporary index (`checkout-index`: the repository's filters, modes and
    /// symlinks, as a checkout writes them). The user's index is never read or written.
    pub fn restore(&self, from: &Oid, to: &Oid, folder: &Path) -> Result<Restored> {
        let changes = self.restore_changes(from, to, folder)?;
        let root = self.root.canonicalize()?;
        let mut kept = Vec::new();
        let mut write: Vec<&str> = Vec::new();
        let mut resolved = Vec::with_capacity(changes.len());
        for change in &changes {
            resolved.push((change, self.inside(&root, &change.path)?));
        }
        // Every deletion before any "is it there already?": in byte order an added `d` comes
        // before a deleted `d/x`, and on a case-insensitive disk an added `README.md` before
        // a deleted `readme.md`; deciding first would call it kept, then delete it (L-7).
        for (change, path) in &resolved {
            if change.status == FileStatus::Deleted {
                remove_file(path, &root)?;
            }
        }
        for (change, path) in &resolved {
            match change.status {
                FileStatus::Deleted => {}
                FileStatus::Added if std::fs::symlink_metadata(path).is_ok() => {
                    kept.push(change.path.clone());
                }
                _ => write.push(change.path.as_str()),
            }
        }
        if !write.is_empty() {
            let temp = tempfile::Builder::new()
                .prefix("forkhost-restore-")
                .tempdir()?;
            let index = temp.path().join("index");
            self.git
                .call(&self.root)
                .env("GIT_INDEX_FILE", &index)
                .args(["read-tree", to.as_str()])
                .run()?;
            self.git
                .call(&self.root)
                .env("GIT_INDEX_FILE", &index)
                .args(["checkout-index", "--force", "-z", "--stdin"])
                .stdin(nul_joined(write.iter().copied()))
                .run()?;
        }
        let files = changes
            .into_iter()
            .filter(|c| !kept.contains(&c.path))
            .collect();
        tracing::info!(kept = kept.len(), "folder restored to a checkpoint");
        Ok(Restored { files, kept })
    }

    /// `rel` (repository-relative, from a tree) as a path under the checkout whose parent
    /// folder really is inside it: a symlinked folder in the way never leads a write or a
    /// deletion outside the repository.
    fn inside(&self, root: &Path, rel: &str) -> Result<PathBuf> {
        let path = root.join(rel);
        let mut parent = path.parent().map(Path::to_path_buf);
        // The nearest folder that exists: a missing one is made by the checkout, inside.
        while let Some(dir) = parent.clone() {
            if let Ok(real) = dir.canonicalize() {
                if !real.starts_with(root) {
                    return Err(WorktreeError::InvalidName(rel.to_owned()));
                }
                break;
            }
            parent = dir.parent().map(Path::to_path_buf);
        }
        Ok(path)
    }
}

/// Deletes one file (or symlink) and the folders it leaves empty, up to the checkout's top. A
/// file already gone is fine; a folder at the path is not this file and stays.
fn remove_file(path: &Path, root: &Path) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => return Ok(()),
        Ok(_) => std::fs::remove_file(path)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e.into()),
    }
    let mut dir = path.parent();
    while let Some(d) = dir {
        if d == root || std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::remove_file;

    #[test]
    fn a_file_goes_with_the_folders_it_leaves_empty_up_to_the_top() {
        let top = tempfile::tempdir().unwrap();
        let root = top.path();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/b/gone.txt"), "x").unwrap();
        remove_file(&root.join("a/b/gone.txt"), root).unwrap();
        assert!(!root.join("a").exists(), "its emptied folders go too");
        assert!(root.exists(), "never the top");
    }

    #[test]
    fn a_folder_at_the_path_stays_and_a_missing_file_is_fine() {
        let top = tempfile::tempdir().unwrap();
        let root = top.path();
        std::fs::create_dir_all(root.join("now-a-folder")).unwrap();
        std::fs::write(root.join("now-a-folder/mine.txt"), "kept").unwrap();
        remove_file(&root.join("now-a-folder"), root).unwrap();
        assert!(root.join("now-a-folder/mine.txt").exists());
        remove_file(&root.join("never-there.txt"), root).unwrap();
    }

    // Windows names a path through a file "not found"; Unix "not a directory".
    #[cfg(unix)]
    #[test]
    fn a_path_that_cannot_be_read_is_an_error_not_a_success() {
        let top = tempfile::tempdir().unwrap();
        let root = top.path();
        std::fs::write(root.join("plain.txt"), "x").unwrap();
        // Under a file: "not a directory", which is no "not found".
        let err = remove_file(&root.join("plain.txt/inner.txt"), root);
        assert!(err.is_err(), "{err:?}");
        assert!(root.join("plain.txt").exists());
    }
}
