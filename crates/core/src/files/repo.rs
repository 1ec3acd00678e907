//! Finding a folder's repository, the floor every file feature stands on (checkpoints, the
//! checkpoint scope, setup commands, pruning, worktree forks).

use std::path::{Path, PathBuf};

use forkhost_worktree::{Git, Repo};

use super::error::blocking;
use crate::base::error::HostResult;

/// The git program for the Host's file work.
pub(crate) fn git() -> HostResult<Git> {
    Ok(Git::new()?)
}

/// The folder of the repository's main checkout, whichever of its worktrees `repo` was found
/// from: what per-repository settings and worktree folders are keyed by.
pub(crate) fn main_root(repo: &Repo) -> PathBuf {
    repo.common_dir()
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| repo.root().to_path_buf())
}

/// The repository holding `folder`, if any (`None` outside git or when git is missing).
pub(crate) async fn repo_of(folder: &Path) -> Option<Repo> {
    // Every turn start asks, before its prompt goes out: outside git, answer without a git
    // process.
    if !Repo::may_hold(folder) {
        return None;
    }
    let folder = folder.to_path_buf();
    let git = git().ok()?;
    blocking(move || Repo::discover(&git, &folder))
        .await
        .ok()
        .flatten()
}
