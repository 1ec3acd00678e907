//! What removing a worktree would lose, and removing it only when that loss is nothing or is
//! exactly what the user accepted. Never a silent `--force`.

use std::path::{Path, PathBuf};

use crate::error::{Loss, Result, WorktreeError};
use crate::git::nul_fields;
use crate::oid::Oid;
use crate::repo::Repo;
use crate::worktree::{same_folder, BASE_FILE};

/// Branches this crate created and so may delete with their worktree.
const OWN_BRANCH_PREFIX: &str = "refs/heads/forkhost/";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorktreeState {
    /// The folder is there and git still knows it as a worktree.
    pub exists: bool,
    /// Files with uncommitted changes, untracked ones included (ignored ones not).
    pub uncommitted: Vec<String>,
    /// Gitignored files made in the worktree, which removing its folder deletes (see
    /// [`Loss::ignored`]).
    pub ignored: Vec<String>,
    /// Commits on its branch not on any other branch or remote, beyond the checkpoint it
    /// started from.
    pub unpushed_commits: usize,
    /// `refs/heads/…` the worktree has checked out, `None` when detached.
    pub branch: Option<String>,
}

impl WorktreeState {
    pub fn loss(&self) -> Loss {
        Loss {
            files: self.uncommitted.clone(),
            commits: self.unpushed_commits,
            ignored: self.ignored.clone(),
        }
    }
}

/// The user's answer to "this would be lost".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confirm {
    /// Remove only if nothing would be lost.
    NothingToLose,
    /// The user saw this loss and accepted it; removal proceeds only if the loss is still
    /// exactly this (a file changed since the question was asked means asking again).
    Accept(Loss),
}

/// One record of `git worktree list --porcelain -z`.
pub(crate) struct Listed {
    pub path: PathBuf,
    pub branch: Option<String>,
    pub prunable: bool,
}

impl Repo {
    pub(crate) fn listed_worktree(&self, path: &Path) -> Result<Option<Listed>> {
        let out = self
            .git
            .call(&self.root)
            .holding_worktree_lock(&self.common_dir)
            .args(["worktree", "list", "--porcelain", "-z"])
            .run()?;
        let mut current: Option<Listed> = None;
        let mut all = Vec::new();
        for field in nul_fields(&out) {
            if let Some(p) = field.strip_prefix("worktree ") {
                all.extend(current.take());
                current = Some(Listed {
                    path: PathBuf::from(p),
                    branch: None,
                    prunable: false,
                });
            } else if let Some(cur) = current.as_mut() {
                if let Some(b) = field.strip_prefix("branch ") {
                    cur.branch = Some(b.to_owned());
                } else if field.starts_with("prunable") {
                    cur.prunable = true;
                }
            }
        }
        all.extend(current);
        Ok(all.into_iter().find(|w| same_folder(&w.path, path)))
    }

    /// What the worktree at `path` holds that exists nowhere else.
    pub fn worktree_state(&self, path: &Path) -> Result<WorktreeState> {
        let listed = self.listed_worktree(path)?;
        let Some(listed) = listed.filter(|l| !l.prunable && path.is_dir()) else {
            return Ok(WorktreeState {
                exists: false,
                uncommitted: Vec::new(),
                ignored: Vec::new(),
                unpushed_commits: 0,
                branch: None,
            });
        };
        let tree = self.sibling(path)?;
        let uncommitted = tree.uncommitted()?;
        let ignored = tree.ignored_made_here(&self.root)?;

        let rev_list = || {
            let mut rev_list = tree
                .git
                .call(&tree.root)
                .args(["rev-list", "--count", "HEAD", "--not"]);
            if let Some(b) = &listed.branch {
                // `--exclude` before `--branches` takes the name without `refs/heads/`.
                let short = b.strip_prefix("refs/heads/").unwrap_or(b);
                rev_list = rev_list.arg(format!("--exclude={short}"));
            }
            rev_list = rev_list.args(["--branches", "--remotes"]);
            if let Some(base) = tree.recorded_base() {
                rev_list = rev_list.arg(base.as_str());
            }
            rev_list
        };
        let unpushed_commits = match tree.head()? {
            Some(_) => String::from_utf8_lossy(&count_against_branches(rev_list)?)
                .trim()
                .parse()
                .unwrap_or(0),
            None => 0,
        };
        Ok(WorktreeState {
            exists: true,
            uncommitted,
            ignored,
            unpushed_commits,
            branch: listed.branch,
        })
    }

    /// The checkpoint this worktree was created at, if this crate created it.
    fn recorded_base(&self) -> Option<Oid> {
        let text = std::fs::read_to_string(self.git_dir.join(BASE_FILE)).ok()?;
        let oid: Oid = text.trim().parse().ok()?;
        self.resolve_commit(oid.as_str()).ok().flatten()
    }

    /// Removes the worktree at `path` and, when it is a `forkhost/` branch, its branch. Refuses
    /// with [`WorktreeError::Dirty`] unless nothing would be lost or `confirm` accepts exactly the
    /// loss. A worktree folder the user already deleted only has git's record pruned.
    pub fn remove_worktree(&self, path: &Path, confirm: Confirm) -> Result<()> {
        let Some(listed) = self.listed_worktree(path)? else {
            return Err(WorktreeError::NotAWorktree(path.to_owned()));
        };
        if same_folder(&listed.path, &self.root)
            || same_folder(&listed.path, self.main_root()?.as_path())
        {
            // The main checkout is the user's own folder, never ours to remove.
            return Err(WorktreeError::NotAWorktree(path.to_owned()));
        }
        let state = self.worktree_state(path)?;
        if !state.exists {
            // Deleted outside: forget git's record only. The branch keeps its commits.
            self.git
                .call(&self.root)
                .holding_worktree_lock(&self.common_dir)
                .args(["worktree", "prune"])
                .run()?;
            tracing::info!("pruned a worktree deleted outside forkhost");
            return Ok(());
        }
        let loss = state.loss();
        let accepted = match &confirm {
            Confirm::NothingToLose => loss.is_empty(),
            Confirm::Accept(accepted) => *accepted == loss,
        };
        if !accepted {
            return Err(WorktreeError::Dirty {
                what_would_be_lost: loss,
            });
        }
        let mut remove = self
            .git
            .call(&self.root)
            .holding_worktree_lock(&self.common_dir)
            .args(["worktree", "remove"]);
        if !loss.files.is_empty() {
            // The user accepted exactly these files; git's own cleanliness check would refuse.
            remove = remove.arg("--force");
        }
        remove.arg(&listed.path).run()?;
        if let Some(branch) = listed.branch.as_deref() {
            if branch.starts_with(OWN_BRANCH_PREFIX) {
                // The branch's commits were either nothing beyond its base or accepted as lost.
                self.git
                    .call(&self.root)
                    .args(["update-ref", "-d", branch])
                    .run()?;
            }
        }
        tracing::info!(
            files = loss.files.len(),
            commits = loss.commits,
            "worktree removed"
        );
        Ok(())
    }

    /// The main checkout's folder (the common dir's parent for a non-bare repository).
    fn main_root(&self) -> Result<PathBuf> {
        Ok(self
            .common_dir
            .parent()
            .map(Path::to_owned)
            .unwrap_or_else(|| self.common_dir.clone()))
    }
}

/// Runs a `rev-list … --branches` made by `call`, again when a branch it listed was deleted
/// before git read it ("bad object": another fork's worktree removed meanwhile, or the user's
/// own `git branch -D`); the set of branches settles within a few tries.
fn count_against_branches<'g>(call: impl Fn() -> crate::git::Call<'g>) -> Result<Vec<u8>> {
    const TRIES: usize = 5;
    for _ in 1..TRIES {
        let command = call();
        let out = command.output()?;
        if out.success {
            return Ok(out.stdout);
        }
        if !String::from_utf8_lossy(&out.stderr).contains("bad object") {
            return Err(crate::git::failed(
                "git rev-list --count HEAD --not --branches".into(),
                &out.stderr,
            ));
        }
    }
    call().run()
}
