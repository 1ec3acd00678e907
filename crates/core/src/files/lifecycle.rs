//! A fork's worktree over its life: what removing it would lose, removing it only when nothing
//! would be or the user accepted exactly that loss (never a silent `--force`), and a folder
//! deleted outside Forkhost shown as such rather than as errors.

use std::path::PathBuf;

use forkhost_worktree::{Confirm, Git, Loss, Repo};
use serde::{Deserialize, Serialize};

use super::checkpoints::git;
use super::error::blocking;
use crate::error::{HostError, HostResult};
use crate::host::Host;

/// What removing a thread's worktree would lose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct WorktreeLoss {
    /// Whether the worktree folder is still there.
    pub exists: bool,
    /// Files with uncommitted changes (untracked included).
    pub files: Vec<String>,
    /// Commits on its branch that no other branch or remote has.
    #[ts(type = "number")]
    pub commits: usize,
}

impl Host {
    /// The repository the worktree belongs to (its main checkout) and the worktree's folder.
    async fn worktree_repo(&self, thread_id: &str) -> HostResult<(Repo, PathBuf)> {
        self.store().thread(thread_id).await?;
        let Some(row) = self.store().worktree(thread_id).await? else {
            return Err(HostError::InvalidInput(format!(
                "thread {thread_id} has no worktree of its own"
            )));
        };
        let git: Git = git()?;
        let root = PathBuf::from(&row.repo_root);
        let found = blocking(move || Repo::discover(&git, &root)).await?;
        let Some(repo) = found else {
            return Err(HostError::Unsupported(format!(
                "the repository {} of thread {thread_id}'s worktree is gone",
                row.repo_root
            )));
        };
        Ok((repo, PathBuf::from(row.path)))
    }

    /// What removing the thread's worktree would lose now.
    pub async fn worktree_loss(&self, thread_id: &str) -> HostResult<WorktreeLoss> {
        let (repo, path) = self.worktree_repo(thread_id).await?;
        let state = blocking(move || repo.worktree_state(&path)).await?;
        Ok(WorktreeLoss {
            exists: state.exists,
            files: state.uncommitted,
            commits: state.unpushed_commits,
        })
    }

    /// Removes the thread's worktree (and its `forkhost/` branch). With something to lose it
    /// is refused (`conflict`, naming the loss) unless `accepted` is exactly that loss, as
    /// [`Host::worktree_loss`] reported it. The thread stays; its folder is then gone.
    pub async fn remove_worktree(
        &self,
        thread_id: &str,
        accepted: Option<WorktreeLoss>,
    ) -> HostResult<()> {
        let (repo, path) = self.worktree_repo(thread_id).await?;
        let confirm = match accepted {
            Some(loss) => Confirm::Accept(Loss {
                files: loss.files,
                commits: loss.commits,
            }),
            None => Confirm::NothingToLose,
        };
        blocking(move || repo.remove_worktree(&path, confirm)).await?;
        self.store().forget_worktree(thread_id).await?;
        tracing::info!(thread = %thread_id, "worktree removed");
        self.emit(crate::events::HostEvent::ThreadChanged {
            thread_id: thread_id.to_owned(),
        });
        Ok(())
    }
}
