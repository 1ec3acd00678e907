//! Finding a folder's repository, the floor every file feature stands on (checkpoints, the
//! checkpoint scope, setup commands, pruning, worktree forks), and where its worktrees live.

use std::path::{Path, PathBuf};

use forkhost_worktree::{Git, Repo};
use sha2::{Digest, Sha256};

use super::error::blocking;
use crate::base::error::HostResult;
use crate::host::Host;

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

impl Host {
    /// `<data>/worktrees/<repository name>-<hash of its root>/<fork id>`: outside the
    /// repository, one folder per repository (its spare worktree beside the forks, on the
    /// same file system, so claiming it is a rename). The hash is SHA-256's (std's `DefaultHasher` may
    /// change between Rust releases, and a new build would start a second folder per
    /// repository). The path is computed only here and then stored with the fork (its
    /// worktree row and its thread's cwd), so a fork made under another hash is still found.
    pub(crate) fn worktree_folder(&self, repo: &Repo, child_id: &str) -> PathBuf {
        let root = main_root(repo);
        self.inner
            .data_dir
            .join("worktrees")
            .join(repo_folder_name(&root))
            .join(child_id)
    }
}

/// Letters, digits and '-' only, at most 40 characters.
/// `<repository name>-<first 8 hex digits of SHA-256 of its root's path>`.
fn repo_folder_name(root: &Path) -> String {
    let digest = Sha256::digest(root.as_os_str().as_encoded_bytes());
    let hash: String = digest[..4].iter().map(|b| format!("{b:02x}")).collect();
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "repo".into());
    format!("{}-{hash}", clean(&name))
}

pub(super) fn clean(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        match c {
            c if c.is_ascii_alphanumeric() => out.push(c.to_ascii_lowercase()),
            _ if !out.ends_with('-') && !out.is_empty() => out.push('-'),
            _ => {}
        }
        if out.len() >= 40 {
            break;
        }
    }
    out.trim_end_matches('-').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repositorys_folder_name_is_the_same_in_every_build() {
        // Pinned: a changed hash would start a second worktree folder for the repository.
        let name = repo_folder_name(Path::new("/home/me/my app"));
        assert_eq!(name, "my-app-38d8f0bc");
    }
}
