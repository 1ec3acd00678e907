//! Which repositories get checkpoints (docs/architecture.md "Files of a thread"). A checkpoint
//! copies the thread's untracked files into the repository's object store and a worktree fork
//! checks them out as tracked files on a branch, so a repository much wider than the thread's
//! folder is refused: one rooted at the home folder (a dotfiles repository: every secret the
//! user has is an untracked file there) or above it, or more than [`MAX_LEVELS`] folders above
//! the thread's folder. The user can opt one in with `git config forkhost.checkpoints true`.
//! Even then only the thread's folder is walked (`CheckpointSpec::within`).

use std::path::{Path, PathBuf};

use forkhost_worktree::Repo;

use super::error::blocking;
use super::repo::repo_of;
use crate::host::Host;

/// How far above the thread's folder a repository's top may be and still get checkpoints
/// unasked: deep enough for a monorepo's `services/api/cmd/server`, far short of a repository
/// that happens to hold the whole disk.
pub(crate) const MAX_LEVELS: usize = 4;

/// The git setting that opts a repository in anyway.
pub(crate) const OPT_IN_KEY: &str = "forkhost.checkpoints";

/// Why a folder gets no checkpoints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NoCheckpoints {
    /// Not inside a git repository (or git is missing).
    NotInGit,
    /// The repository is much wider than the folder; the words say why and how to opt in.
    TooWide(String),
}

impl NoCheckpoints {
    pub fn note(&self) -> Option<String> {
        match self {
            NoCheckpoints::NotInGit => None,
            NoCheckpoints::TooWide(why) => Some(why.clone()),
        }
    }
}

fn real(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// Why the repository at `root` is too wide to checkpoint `folder` in, if it is. Pure, so
/// the rule is tested without git.
pub(crate) fn too_wide(root: &Path, folder: &Path, home: Option<&Path>) -> Option<String> {
    let (root, folder) = (real(root), real(folder));
    let opt_in = format!("`git config {OPT_IN_KEY} true` in it records them anyway");
    if let Some(home) = home.map(real) {
        if home.starts_with(&root) {
            let which = if home == root {
                "is your home folder"
            } else {
                "holds your home folder"
            };
            return Some(format!(
                "no file checkpoints: the repository {} {which}, so they would copy files of \
                 yours from outside the thread's folder into git ({opt_in})",
                root.display()
            ));
        }
    }
    if root.parent().is_none() {
        return Some(format!(
            "no file checkpoints: the repository {} is the whole disk ({opt_in})",
            root.display()
        ));
    }
    let levels = folder
        .strip_prefix(&root)
        .map(|rel| rel.components().count())
        .unwrap_or(0);
    (levels > MAX_LEVELS).then(|| {
        format!(
            "no file checkpoints: the repository {} is {levels} folders above the thread's \
             folder ({opt_in})",
            root.display()
        )
    })
}

impl Host {
    /// The repository whose files a checkpoint of `folder` records, or why there is none.
    pub(crate) async fn checkpoint_repo(&self, folder: &Path) -> Result<Repo, NoCheckpoints> {
        let repo = repo_of(folder).await.ok_or(NoCheckpoints::NotInGit)?;
        let Some(why) = too_wide(repo.root(), folder, self.home_folder().as_deref()) else {
            return Ok(repo);
        };
        let asked = repo.clone();
        let opted_in = blocking(move || asked.config_bool(OPT_IN_KEY)).await;
        if matches!(opted_in, Ok(Some(true))) {
            return Ok(repo);
        }
        Err(NoCheckpoints::TooWide(why))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repository_at_or_above_home_or_far_above_the_folder_is_too_wide() {
        let base = tempfile::tempdir().unwrap();
        let home = base.path().join("home/me");
        let deep = home.join("src/app/a/b/c/d");
        std::fs::create_dir_all(&deep).unwrap();
        let proj = home.join("src/app");

        let at_home = too_wide(&home, &proj, Some(&home)).expect("home is too wide");
        assert!(at_home.contains("is your home folder"), "{at_home}");
        assert!(at_home.contains(OPT_IN_KEY), "{at_home}");
        let above = too_wide(&base.path().join("home"), &proj, Some(&home)).unwrap();
        assert!(above.contains("holds your home folder"), "{above}");
        assert!(too_wide(Path::new("/"), &proj, None).is_some());

        // A project repository in the home folder is fine, down to MAX_LEVELS below its top.
        assert_eq!(too_wide(&proj, &proj, Some(&home)), None);
        assert_eq!(too_wide(&proj, &proj.join("a/b/c/d"), Some(&home)), None);
        let far = too_wide(&home.join("src"), &deep, Some(&home)).unwrap();
        assert!(far.contains("5 folders above"), "{far}");
    }
}
