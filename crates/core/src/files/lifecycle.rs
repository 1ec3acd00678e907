//! A fork's worktree over its life: what removing it would lose, removing it only when nothing
//! would be or the user accepted exactly that loss (never a silent `--force`), and a folder
//! deleted outside Forkhost shown as such rather than as errors. The loss counts the ignored
//! files made there (a local database, `.env.local`) and the other threads working in the
//! folder (a same-folder fork of the fork), which would lose their folder with it.

use std::path::{Path, PathBuf};

use forkhost_store::ThreadState;
use forkhost_worktree::{Confirm, Git, Loss, Repo};
use serde::{Deserialize, Serialize};

use super::error::blocking;
use super::repo::git;
use crate::base::error::{HostError, HostResult};
use crate::host::Host;

/// Another thread whose folder is inside the worktree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ThreadInFolder {
    pub id: String,
    pub title: String,
}

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
    /// Gitignored files made there (a wholly ignored folder as one `dir/`), which the removal
    /// deletes too; unchanged `.worktreeinclude` copies are not listed.
    #[serde(default)]
    pub ignored: Vec<String>,
    /// Other threads (not archived) working in the folder, which would lose it.
    #[serde(default)]
    pub other_threads: Vec<ThreadInFolder>,
}

/// `folder` is `root` or inside it, through symlinks.
fn inside(folder: &Path, root: &Path) -> bool {
    let real = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    real(folder).starts_with(real(root))
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

    /// The threads other than `owner` (archived ones aside) whose folder is in `worktree`.
    async fn others_in(&self, owner: &str, worktree: &Path) -> HostResult<Vec<ThreadInFolder>> {
        let mut others: Vec<ThreadInFolder> = self
            .store()
            .threads()
            .await?
            .into_iter()
            .filter(|t| t.id != owner && t.state != ThreadState::Archived)
            .filter(|t| inside(Path::new(&t.cwd), worktree))
            .map(|t| ThreadInFolder {
                id: t.id,
                title: t.title,
            })
            .collect();
        others.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(others)
    }

    /// What removing the thread's worktree would lose now.
    pub async fn worktree_loss(&self, thread_id: &str) -> HostResult<WorktreeLoss> {
        let (repo, path) = self.worktree_repo(thread_id).await?;
        let other_threads = self.others_in(thread_id, &path).await?;
        let state = blocking(move || repo.worktree_state(&path)).await?;
        Ok(WorktreeLoss {
            exists: state.exists,
            files: state.uncommitted,
            commits: state.unpushed_commits,
            ignored: state.ignored,
            other_threads: match state.exists {
                true => other_threads,
                false => Vec::new(),
            },
        })
    }

    /// Removes the thread's worktree (and its `forkhost/` branch). With something to lose it
    /// is refused (`conflict`, naming the loss) unless `accepted` is exactly that loss, as
    /// [`Host::worktree_loss`] reported it. Another thread working in the folder is part of
    /// the loss; one with a turn running there is `busy` whatever was accepted. The thread
    /// stays; its folder is then gone.
    pub async fn remove_worktree(
        &self,
        thread_id: &str,
        accepted: Option<WorktreeLoss>,
    ) -> HostResult<()> {
        let (repo, path) = self.worktree_repo(thread_id).await?;
        let others = match path.is_dir() {
            true => self.others_in(thread_id, &path).await?,
            false => Vec::new(),
        };
        for other in &others {
            if self.is_streaming(&other.id).await {
                return Err(HostError::Busy(format!(
                    "thread {} ({}) is running a turn in this worktree; stop it first",
                    other.title, other.id
                )));
            }
        }
        let accepted_others = accepted.as_ref().map(|a| a.other_threads.clone());
        if !others.is_empty() && accepted_others.as_ref() != Some(&others) {
            let names: Vec<String> = others
                .iter()
                .map(|o| format!("{} ({})", o.title, o.id))
                .collect();
            return Err(HostError::Conflict(format!(
                "other threads work in this worktree and would lose their folder: {}",
                names.join(", ")
            )));
        }
        let confirm = match accepted {
            Some(loss) => Confirm::Accept(Loss {
                files: loss.files,
                commits: loss.commits,
                ignored: loss.ignored,
            }),
            None => Confirm::NothingToLose,
        };
        blocking(move || repo.remove_worktree(&path, confirm)).await?;
        self.store().forget_worktree(thread_id).await?;
        tracing::info!(thread = %thread_id, others = others.len(), "worktree removed");
        for id in std::iter::once(thread_id.to_owned()).chain(others.into_iter().map(|o| o.id)) {
            self.thread_changed(&id).await;
        }
        Ok(())
    }
}
