//! Comparing files and bringing a fork's changes back: "changes in this fork" (its files now
//! against the checkpoint its worktree started from), two threads' files against each other,
//! and applying a fork's changes to another thread's folder as uncommitted changes.

use std::path::PathBuf;

use forkhost_worktree::{CheckpointSpec, FilePatch, FileStatus, Oid, Repo};
use serde::{Deserialize, Serialize};

use super::error::blocking;
use super::scope::NoCheckpoints;
use crate::base::error::{HostError, HostResult};
use crate::host::Host;

/// How a file changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum FileChangeStatus {
    Added,
    Modified,
    Deleted,
    Renamed,
}

impl FileChangeStatus {
    /// The word the CLI prints and the JSON carries.
    pub fn as_str(self) -> &'static str {
        match self {
            FileChangeStatus::Added => "added",
            FileChangeStatus::Modified => "modified",
            FileChangeStatus::Deleted => "deleted",
            FileChangeStatus::Renamed => "renamed",
        }
    }
}

/// One changed file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct FileChangeView {
    pub path: String,
    /// The path before a rename.
    pub old_path: Option<String>,
    pub status: FileChangeStatus,
    #[ts(type = "number")]
    pub added_lines: usize,
    #[ts(type = "number")]
    pub removed_lines: usize,
    pub binary: bool,
    /// This file's unified diff, from its `diff --git` line (text; shown, never run).
    pub diff: String,
}

/// Changes between two sets of files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ChangesView {
    /// The commits compared.
    pub from: String,
    pub to: String,
    pub files: Vec<FileChangeView>,
}

fn file_view(FilePatch { file, text }: FilePatch) -> FileChangeView {
    FileChangeView {
        path: file.path,
        old_path: file.old_path,
        status: match file.status {
            FileStatus::Added => FileChangeStatus::Added,
            FileStatus::Modified => FileChangeStatus::Modified,
            FileStatus::Deleted => FileChangeStatus::Deleted,
            FileStatus::Renamed => FileChangeStatus::Renamed,
        },
        added_lines: file.added_lines,
        removed_lines: file.removed_lines,
        binary: file.binary,
        diff: text,
    }
}

impl Host {
    /// The repository of a thread's folder, or why there is none.
    async fn repo_of_thread(&self, thread_id: &str) -> HostResult<(Repo, PathBuf)> {
        let row = self.store().thread(thread_id).await?;
        let folder = PathBuf::from(&row.cwd);
        if !folder.is_dir() {
            return Err(HostError::InvalidInput(format!(
                "the folder of thread {thread_id} is gone ({})",
                folder.display()
            )));
        }
        match self.checkpoint_repo(&folder).await {
            Ok(repo) => Ok((repo, folder)),
            Err(NoCheckpoints::NotInGit) => Err(HostError::Unsupported(format!(
                "{} is not in a git repository: it has no checkpoints to compare",
                folder.display()
            ))),
            Err(NoCheckpoints::TooWide(why)) => Err(HostError::Unsupported(why)),
        }
    }

    /// The thread's files as they are now, recorded as its `current` checkpoint (a hidden ref
    /// that moves with every call; pruned with the thread).
    async fn current_files(&self, thread_id: &str) -> HostResult<(Repo, Oid)> {
        let (repo, folder) = self.repo_of_thread(thread_id).await?;
        let snapshot = repo.clone();
        let spec = CheckpointSpec::new(thread_id, "current").within(folder);
        let taken = blocking(move || snapshot.checkpoint(&spec)).await?;
        Ok((repo, taken.commit))
    }

    /// What changed: with `other`, from `other`'s files to `thread_id`'s (both as they are
    /// now; one repository); without, `thread_id`'s changes since its fork point (a fork with
    /// its own worktree).
    pub async fn changes(&self, thread_id: &str, other: Option<&str>) -> HostResult<ChangesView> {
        let (repo, to) = self.current_files(thread_id).await?;
        let from = match other {
            Some(other) => {
                let (other_repo, from) = self.current_files(other).await?;
                if other_repo.common_dir() != repo.common_dir() {
                    return Err(HostError::InvalidInput(format!(
                        "threads {thread_id} and {other} work in different repositories"
                    )));
                }
                from
            }
            None => self.fork_base(thread_id).await?,
        };
        let (a, b) = (from.clone(), to.clone());
        let files = blocking(move || repo.diff_with_patches(&a, &b)).await?;
        Ok(ChangesView {
            from: from.to_string(),
            to: to.to_string(),
            files: files.into_iter().map(file_view).collect(),
        })
    }

    /// Applies the fork's changes since its fork point to `target`'s folder, as uncommitted
    /// changes. Refused (`conflict`, nothing changed) when the target has uncommitted changes
    /// in a file the fork touched, or the changes do not apply cleanly.
    pub async fn bring_back(&self, fork_id: &str, target: &str) -> HostResult<ChangesView> {
        let (target_repo, folder) = self.repo_of_thread(target).await?;
        let (repo, _) = self.repo_of_thread(fork_id).await?;
        // A patch of one repository applied to another would be guesswork against unrelated
        // files (review L6); `changes` with two threads refuses the same way.
        if target_repo.common_dir() != repo.common_dir() {
            return Err(HostError::InvalidInput(format!(
                "threads {fork_id} and {target} work in different repositories: the fork's \
                 changes can only be brought back into its own repository"
            )));
        }
        let changes = self.changes(fork_id, None).await?;
        let from: Oid = changes.from.parse()?;
        let to: Oid = changes.to.parse()?;
        let applied = blocking(move || repo.apply_changes(&from, &to, &folder)).await?;
        tracing::info!(fork = %fork_id, target = %target, files = applied.files.len(), "fork changes brought back");
        // The patch applied is `from..to` whole: the files brought back are the changes'.
        Ok(changes)
    }

    /// The checkpoint a fork's worktree started from.
    async fn fork_base(&self, thread_id: &str) -> HostResult<Oid> {
        match self.store().worktree(thread_id).await? {
            Some(worktree) => Ok(worktree.base_commit.parse()?),
            None => Err(HostError::Unsupported(format!(
                "thread {thread_id} is not a fork with its own files; compare it with another \
                 thread instead"
            ))),
        }
    }
}
