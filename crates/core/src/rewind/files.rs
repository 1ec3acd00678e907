//! The files side of a rewind (docs/architecture.md "Rewind"): a thread's own folder restored
//! to the end checkpoint of a turn, after a checkpoint of the folder as it is, so Undo writes it
//! back. Outside git, in a repository that gets no checkpoints, or without a checkpoint of that
//! turn it is refused in words; a folder that is gone too.

use std::path::Path;

use forkhost_worktree::{CheckpointSpec, FileDiff, FileStatus, Oid, Repo};
use serde::{Deserialize, Serialize};

use crate::base::error::{HostError, HostResult};
use crate::base::thread::Thread;
use crate::files::{NoCheckpoints, TurnEdge};
use crate::host::Host;

/// One file a rewind writes back or deletes (`deleted`: the rewind removes it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct RewindFileView {
    pub path: String,
    pub status: FileStatus,
    #[ts(type = "number")]
    pub added_lines: usize,
    #[ts(type = "number")]
    pub removed_lines: usize,
    pub binary: bool,
}

impl From<FileDiff> for RewindFileView {
    fn from(f: FileDiff) -> Self {
        RewindFileView {
            path: f.path,
            status: f.status,
            added_lines: f.added_lines,
            removed_lines: f.removed_lines,
            binary: f.binary,
        }
    }
}

/// What restoring the folder would do.
pub(crate) struct FilesPlan {
    pub repo: Repo,
    pub target: Oid,
    pub changes: Vec<RewindFileView>,
    pub loss: Vec<String>,
}

/// What a restore did: the checkpoint taken before, and the files.
pub(crate) struct FilesRestored {
    pub before: Oid,
    pub files: Vec<RewindFileView>,
    pub kept: Vec<String>,
}

impl Host {
    /// The folder's repository, refused in words where a rewind cannot restore files.
    pub(crate) async fn rewind_repo(&self, thread: &Thread) -> HostResult<Repo> {
        let id = thread.id();
        if !thread.folder.is_dir() {
            return Err(HostError::InvalidInput(format!(
                "the folder of thread {id} is gone ({}); its files cannot be rewound: restore \
                 the folder, or rewind the conversation only",
                thread.folder.display()
            )));
        }
        match self.checkpoint_repo(&thread.folder).await {
            Ok(repo) => Ok(repo),
            Err(NoCheckpoints::NotInGit) => Err(HostError::Unsupported(format!(
                "the folder of thread {id} is not in a git repository, so it has no file \
                 checkpoints to rewind to; rewind the conversation only"
            ))),
            Err(why) => Err(HostError::Unsupported(format!(
                "thread {id} has no file checkpoints to rewind to: {}",
                why.note().unwrap_or_default()
            ))),
        }
    }

    /// What restoring the thread's folder to turn `turn`'s end would change, and which of those
    /// changes no checkpoint holds (its latest one differs there): read only.
    pub(crate) async fn files_plan(&self, thread: &Thread, turn: i64) -> HostResult<FilesPlan> {
        let repo = self.rewind_repo(thread).await?;
        let target = self
            .checkpoint_at(thread.id(), turn, TurnEdge::End)
            .await
            .ok_or_else(|| {
                HostError::CheckpointNotFound(format!(
                    "turn {turn} of thread {} has no file checkpoint (an imported turn, or one \
                     from before its folder was in git); rewind the conversation only",
                    thread.id()
                ))
            })?;
        let recorded = self.latest_checkpoint(thread.id()).await;
        let (asked, folder, to) = (repo.clone(), thread.folder.clone(), target.clone());
        let preview =
            crate::files::blocking(move || asked.restore_preview(&folder, &to, recorded.as_ref()))
                .await?;
        Ok(FilesPlan {
            repo,
            target,
            changes: preview.changes.into_iter().map(Into::into).collect(),
            loss: preview.unrecorded,
        })
    }

    /// Checkpoints the folder as it is (`refs/forkhost/<thread>/<label>`, continuing the
    /// thread's chain, so the commits of the turns set aside stay reachable through it), then
    /// restores it to `target`.
    pub(crate) async fn restore_files(
        &self,
        thread: &Thread,
        repo: Repo,
        label: String,
        target: Oid,
    ) -> HostResult<FilesRestored> {
        let spec = match self.latest_checkpoint(thread.id()).await {
            Some(parent) => CheckpointSpec::new(thread.id(), label).parent(parent),
            None => CheckpointSpec::new(thread.id(), label),
        }
        .within(&thread.folder);
        let folder = thread.folder.clone();
        let (before, restored) = crate::files::blocking(move || {
            let before = repo.checkpoint(&spec)?.commit;
            let restored = repo.restore(&before, &target, &folder)?;
            Ok((before, restored))
        })
        .await?;
        tracing::info!(thread = %thread.id(), files = restored.files.len(), "folder rewound");
        Ok(FilesRestored {
            before,
            files: restored.files.into_iter().map(Into::into).collect(),
            kept: restored.kept,
        })
    }

    /// Names the checkpoints of `thread`'s turns after `turn` under its own refs (a branch that
    /// took them over), so no later checkpoint of the other thread leaves them unreachable.
    /// Best effort: logged.
    pub(crate) async fn name_taken_checkpoints(&self, thread_id: &str, folder: &Path, turn: i64) {
        let Ok(rows) = self.store().checkpoints(thread_id).await else {
            return;
        };
        let named: Vec<(String, Oid)> = rows
            .into_iter()
            .filter(|c| c.turn_ordinal > turn)
            .filter_map(|c| {
                let label = format!("t{}-{}", c.turn_ordinal, c.edge.as_str());
                Some((label, c.commit_id.parse().ok()?))
            })
            .collect();
        if named.is_empty() {
            return;
        }
        let Ok(repo) = self.checkpoint_repo(folder).await else {
            return;
        };
        let id = thread_id.to_owned();
        if let Err(err) = crate::files::blocking(move || repo.name_checkpoints(&id, &named)).await {
            tracing::warn!(thread = %thread_id, error = %err, "could not name a branch's checkpoints");
        }
    }
}
