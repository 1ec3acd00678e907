//! A new linked worktree on a fresh branch, checked out at a checkpoint: added at once
//! ([`Repo::add_worktree`], milliseconds whatever the repository's size), its files written
//! afterwards ([`Repo::fill_worktree`], with progress), so a fork can open before they are.
//!
//! A checkpoint commit holds the untracked files of the moment too, so in the new worktree they
//! are ordinary tracked files on the fork's branch. That is intended: the fork starts from exactly
//! the files the thread saw, and its later diffs show only what the fork itself changed.

use std::path::{Path, PathBuf};

use crate::clone::FileCopy;
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

/// Beside them while the files are being written: a worktree holding it is half made (its
/// fill failed, or the app ended meanwhile) and is filled again before use.
pub(crate) const FILLING_FILE: &str = "forkhost-filling";

/// Beside them in a spare a fork claimed ([`Repo::claim_spare`]): before its checkout the fill
/// removes every untracked and ignored file (`git clean -ffdx`), so nothing left in the spare
/// reaches the fork — a check the claim itself would pay for with a walk of the whole tree
/// while the user waits for the fork.
pub(crate) const CLAIMED_FILE: &str = "forkhost-claimed";

/// How far a fill is: `done` of `total` files written (as git counts them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FillProgress {
    pub done: u64,
    pub total: u64,
}

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
    /// [`Repo::add_worktree`] and [`Repo::fill_worktree`] in one: the worktree with its files.
    pub fn create_worktree(&self, spec: &WorktreeSpec) -> Result<Worktree> {
        let mut made = self.add_worktree(spec)?;
        self.fill_worktree(&mut made, |_| {})?;
        Ok(made)
    }

    /// `git worktree add --no-checkout -b <branch> <path> <at>`: the worktree registered, its
    /// branch made and its folder there, but no file written yet ([`Repo::fill_worktree`]
    /// does that), so this takes milliseconds in any repository.
    pub fn add_worktree(&self, spec: &WorktreeSpec) -> Result<Worktree> {
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
            .holding_worktree_lock(&self.common_dir)
            .args(["worktree", "add", "--quiet", "--no-checkout", "-b", &branch])
            .arg(&spec.path)
            .arg(base.as_str())
            .run()?;
        let created = self.sibling(&spec.path)?;
        std::fs::write(created.git_dir.join(BASE_FILE), format!("{base}\n"))?;
        std::fs::write(created.git_dir.join(FILLING_FILE), "")?;
        tracing::info!(branch, "worktree added");
        Ok(Worktree {
            path: created.root,
            branch,
            base,
            included: Vec::new(),
        })
    }

    /// Writes an added worktree's files: `git checkout -f` of its branch with git's parallel
    /// checkout (one worker per core), `progress` called as git counts files, then the
    /// `.worktreeinclude` files copied from this checkout. For a worktree [`Repo::add_worktree`]
    /// made; run again on one whose fill was cut short, it finishes it. On failure the worktree stays half made
    /// ([`Repo::worktree_needs_fill`]); [`Repo::discard_worktree`] removes it.
    pub fn fill_worktree(
        &self,
        worktree: &mut Worktree,
        progress: impl FnMut(FillProgress) + Send + 'static,
    ) -> Result<()> {
        self.fill_worktree_by(worktree, progress, FileCopy::Clone)
    }

    /// [`Repo::fill_worktree`], with the way unchanged files are brought over from this
    /// checkout (`clone.rs`) chosen: tests copy, on file systems without clones.
    pub(crate) fn fill_worktree_by(
        &self,
        worktree: &mut Worktree,
        progress: impl FnMut(FillProgress) + Send + 'static,
        how: FileCopy,
    ) -> Result<()> {
        let started = std::time::Instant::now();
        let created = self.sibling(&worktree.path)?;
        let mut progress = progress;
        let claimed = created.git_dir.join(CLAIMED_FILE);
        let mut cloned = 0;
        if claimed.exists() {
            // Untracked and ignored files go; the forced checkout below puts every tracked
            // file (modified, staged or deleted in the spare) back as the branch has it.
            created
                .git
                .call(&created.root)
                .args(["clean", "-ffdxq"])
                .run()?;
        } else {
            // Where the file system clones, the files this checkout holds unchanged are
            // cloned and the checkout writes only the rest. Any trouble: git writes them all.
            let mut counted = |done, total| progress(FillProgress { done, total });
            match self.clone_unchanged_files(&created, worktree.base.as_str(), how, &mut counted) {
                Ok(done) => cloned = done.files,
                Err(err) => tracing::warn!(%err, "files not cloned"),
            }
        }
        checkout_files(&created)
            // Progress from the first file (git waits 2 s by default), for the fork's header.
            .env("GIT_PROGRESS_DELAY", "0")
            .arg("--progress")
            .arg(&worktree.branch)
            .watch_stderr(move |line| {
                if let Some(counted) = parse_progress(line) {
                    // Git counts only what it writes; the cloned files are done already.
                    progress(FillProgress {
                        done: counted.done + cloned,
                        total: counted.total + cloned,
                    });
                }
            })
            .run()?;
        let included = self.copy_included(&created.root)?;
        if !included.is_empty() {
            let mut list = included.join("\n");
            list.push('\n');
            std::fs::write(created.git_dir.join(INCLUDED_FILE), list)?;
        }
        if claimed.exists() {
            std::fs::remove_file(&claimed)?;
        }
        // `add_worktree` left it; without it the worktree would count as half made.
        std::fs::remove_file(created.git_dir.join(FILLING_FILE))?;
        tracing::info!(
            included = included.len(),
            cloned,
            ms = started.elapsed().as_millis() as u64,
            "worktree filled"
        );
        worktree.included = included;
        Ok(())
    }

    /// Whether the worktree at `path` was added and its files are not all written yet.
    pub fn worktree_needs_fill(&self, path: &Path) -> Result<bool> {
        let created = self.sibling(path)?;
        Ok(created.git_dir.join(FILLING_FILE).exists())
    }

    /// Removes a worktree [`Repo::add_worktree`] made whose files are not all written (a fill
    /// that failed): nothing in it is the user's yet, so it goes without asking, with its
    /// branch. Refused ([`WorktreeError::NotAWorktree`]) for any other folder.
    pub fn discard_worktree(&self, worktree: &Worktree) -> Result<()> {
        if !self.worktree_needs_fill(&worktree.path)? {
            return Err(WorktreeError::NotAWorktree(worktree.path.clone()));
        }
        self.git
            .call(&self.root)
            .holding_worktree_lock(&self.common_dir)
            .args(["worktree", "remove", "--force", "--force"])
            .arg(&worktree.path)
            .run()?;
        self.git
            .call(&self.root)
            .holding_worktree_lock(&self.common_dir)
            .args(["branch", "-D", "--end-of-options"])
            .arg(&worktree.branch)
            .output()?;
        tracing::info!(branch = worktree.branch, "half-made worktree discarded");
        Ok(())
    }

    /// `wanted`, or `wanted-2`, `wanted-3`, … — the first that names no branch yet.
    pub(crate) fn free_branch_name(&self, wanted: &str) -> Result<String> {
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

/// `git checkout --force` in the checkout `tree` with git's parallel checkout (one worker per
/// core), to be finished with the revision (and `--progress` before it, if wanted). Forced,
/// checkout compares the index with the new tree and the files' stat data with the index: it
/// writes exactly the paths that differ or were changed on disk, which is what lets a claimed
/// spare (`spare.rs`) be brought to a fork's commit by writing only the difference.
pub(crate) fn checkout_files(tree: &Repo) -> crate::git::Call<'_> {
    tree.git
        .call(&tree.root)
        .args(["-c", "checkout.workers=0"])
        // The branch is the new worktree's own: no walk of the other worktrees (which could
        // meet one being added; see `worktree_lock.rs`) to check it is not checked out there.
        .args(["checkout", "--force", "--quiet", "--ignore-other-worktrees"])
}

/// Git's progress line `Updating files:  45% (22500/50000)` (the count is what matters).
fn parse_progress(line: &str) -> Option<FillProgress> {
    let counts = line.strip_prefix("Updating files:")?;
    let open = counts.rfind('(')?;
    let (done, total) = counts[open + 1..]
        .trim_end_matches([')', ',', ' '])
        .split_once('/')?;
    let done = done.trim().parse().ok()?;
    let total = total.split(')').next()?.trim().parse().ok()?;
    Some(FillProgress { done, total })
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

// The fill through clones; beside the fill, which it tests.
#[cfg(all(test, unix))]
#[path = "clone_tests.rs"]
mod clone_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gits_progress_lines_are_read() {
        assert_eq!(
            parse_progress("Updating files:  45% (22500/50000)"),
            Some(FillProgress {
                done: 22500,
                total: 50000
            })
        );
        assert_eq!(
            parse_progress("Updating files: 100% (7/7), done."),
            Some(FillProgress { done: 7, total: 7 })
        );
        assert_eq!(parse_progress("Updating files (7/7)"), None);
        assert_eq!(parse_progress("warning: something (1/2)"), None);
    }
}
