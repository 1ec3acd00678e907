//! A new linked worktree on a fresh branch, checked out at a checkpoint.
//!
//! A checkpoint commit holds the untracked files of the moment too, so in the new worktree they
//! are ordinary tracked files on the fork's branch. That is intended: the fork starts from exactly
//! the files the thread saw, and its later diffs show only what the fork itself changed.

use std::path::{Path, PathBuf};

use crate::error::{Result, WorktreeError};
use crate::names;
use crate::oid::Oid;
use crate::repo::Repo;

/// The file in the new worktree's private git folder that remembers the checkpoint it started
/// from, so [`Repo::worktree_state`] does not count the checkpoint's own commits as the fork's
/// work even after the thread's checkpoint refs are pruned. Git ignores unknown files there and
/// deletes it with the worktree.
pub(crate) const BASE_FILE: &str = "forkhost-base";

/// Beside it, the `.worktreeinclude` files copied in (one path a line): those still as in the
/// source are no loss when the worktree is removed.
pub(crate) const INCLUDED_FILE: &str = "forkhost-included";

#[derive(Debug, Clone)]
pub struct WorktreeSpec {
    /// The commit (usually a checkpoint) the worktree starts at.
    pub at: Oid,
    /// The new worktree's folder; must not exist or be empty. Pick one outside the repository.
    pub path: PathBuf,
    /// The branch to create, e.g. `forkhost/my-fork`; taken names get `-2`, `-3`, ….
    pub branch: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Worktree {
    pub path: PathBuf,
    /// The branch actually created (may carry a `-N` suffix).
    pub branch: String,
    pub base: Oid,
    /// Gitignored files copied from the source by `.worktreeinclude`, repository-relative.
    pub included: Vec<String>,
}

impl Repo {
    /// `git worktree add -b <branch> <path> <at>`, then copies the `.worktreeinclude` files.
    pub fn create_worktree(&self, spec: &WorktreeSpec) -> Result<Worktree> {
        let base = self.commit(&spec.at)?;
        names::branch(&spec.branch)?;
        if let Ok(mut entries) = std::fs::read_dir(&spec.path) {
            if entries.next().is_some() {
                return Err(WorktreeError::PathTaken(spec.path.clone()));
            }
        }
        let branch = self.free_branch_name(&spec.branch)?;
        self.git
            .call(&self.root)
            .args(["worktree", "add", "--quiet", "-b", &branch])
            .arg(&spec.path)
            .arg(base.as_str())
            .run()?;
        let created = self.sibling(&spec.path)?;
        std::fs::write(created.git_dir.join(BASE_FILE), format!("{base}\n"))?;
        let included = self.copy_included(&created.root)?;
        if !included.is_empty() {
            let mut list = included.join("\n");
            list.push('\n');
            std::fs::write(created.git_dir.join(INCLUDED_FILE), list)?;
        }
        tracing::info!(branch, included = included.len(), "worktree created");
        Ok(Worktree {
            path: created.root,
            branch,
            base,
            included,
        })
    }

    /// `wanted`, or `wanted-2`, `wanted-3`, … — the first that names no branch yet.
    fn free_branch_name(&self, wanted: &str) -> Result<String> {
        for n in 1..10_000u32 {
            let name = if n == 1 {
                wanted.to_owned()
            } else {
                format!("{wanted}-{n}")
            };
            let taken = self
                .git
                .call(&self.root)
                .args(["show-ref", "--verify", "--quiet"])
                .arg(format!("refs/heads/{name}"))
                .output()?
                .success;
            if !taken {
                return Ok(name);
            }
        }
        Err(WorktreeError::InvalidName(wanted.to_owned()))
    }
}

/// `a` and `b` name the same folder (through symlinks such as macOS's `/var` → `/private/var`).
/// A folder that no longer exists is compared through its parent.
pub(crate) fn same_folder(a: &Path, b: &Path) -> bool {
    fn norm(p: &Path) -> PathBuf {
        if let Ok(c) = p.canonicalize() {
            return c;
        }
        match (p.parent(), p.file_name()) {
            (Some(parent), Some(name)) => norm(parent).join(name),
            _ => p.to_owned(),
        }
    }
    norm(a) == norm(b)
}
