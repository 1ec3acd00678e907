//! A spare worktree: a detached linked worktree kept filled at some commit, so that a fork on
//! a file system without copy-on-write clones (ext4) need not write a whole checkout. A fork
//! claims it ([`Repo::claim_spare`]): the folder is moved to the fork's place, put on the
//! fork's new branch without a file touched, and left exactly as [`Repo::add_worktree`] leaves
//! a worktree; the usual [`Repo::fill_worktree`] then writes only the paths that differ
//! between the spare's commit and the fork's (its index already matches the spare's commit,
//! and a forced checkout writes only what differs from the index or on disk).
//!
//! A spare is known by [`SPARE_FILE`] in its private git folder (holding its commit), so
//! nothing mistakes it for a fork's worktree, and while its files are written it holds
//! [`FILLING_FILE`] too, so one cut short (its process ended) is recognisable and is finished
//! or discarded, never claimed as it is. Only a clean spare is claimed: an untracked or ignored
//! file left in it would otherwise become a file of the fork.

use std::path::Path;
use std::time::SystemTime;

use crate::clone::FileCopy;
use crate::error::{Result, WorktreeError};
use crate::git::DEFAULT_TIMEOUT;
use crate::names;
use crate::oid::Oid;
use crate::repo::Repo;
use crate::worktree::{
    checkout_files, Worktree, WorktreeSpec, BASE_FILE, CLAIMED_FILE, FILLING_FILE,
};

/// In a spare's private git folder: the commit it holds. Git ignores unknown files there and
/// deletes it with the worktree.
pub(crate) const SPARE_FILE: &str = "forkhost-spare";

/// Rewrites of the index a settle tries before it gives up (each waits for the next second
/// first; only the file system's coarse clock lagging makes a second try).
const SETTLE_TRIES: usize = 5;

/// Rewrites the index (`rewrite`, which returns its new stamp's second) until that second is
/// past `written`, the second its files were written in; waits for this process's clock to
/// pass it first (`wait_past`). Whether it got there within [`SETTLE_TRIES`].
fn settle_by(
    written: u64,
    mut wait_past: impl FnMut(u64),
    mut rewrite: impl FnMut() -> Result<u64>,
) -> Result<bool> {
    for _ in 0..SETTLE_TRIES {
        wait_past(written);
        if rewrite()? > written {
            return Ok(true);
        }
    }
    Ok(false)
}

impl Repo {
    /// Makes a spare at `path` (missing or empty; outside the repository, on the file system
    /// of the fork worktrees it will become): a detached worktree holding the files of `at`.
    /// Takes as long as a full checkout. On failure nothing is left.
    pub fn add_spare(&self, path: &Path, at: &Oid) -> Result<()> {
        let at = self.commit(at)?;
        if let Ok(mut entries) = std::fs::read_dir(path) {
            if entries.next().is_some() {
                return Err(WorktreeError::PathTaken(path.to_owned()));
            }
        }
        let mut add = self
            .git
            .call(&self.root)
            .holding_worktree_lock(&self.common_dir)
            .args(["worktree", "add"]);
        if self.listed_worktree(path)?.is_some_and(|l| l.prunable) {
            // A spare whose folder was deleted: git keeps its record until told to forget it.
            add = add.arg("--force");
        }
        add.args(["--quiet", "--detach", "--no-checkout"])
            .arg(path)
            .arg(at.as_str())
            .run()?;
        let filled = self.sibling(path).and_then(|spare| {
            // Marked first: from here on a cut-short spare is known for what it is.
            std::fs::write(spare.git_dir.join(SPARE_FILE), format!("{at}\n"))?;
            std::fs::write(spare.git_dir.join(FILLING_FILE), "")?;
            // Where the file system clones, the files this checkout holds unchanged are
            // cloned (`clone.rs`) and the spare costs little disk; git writes the rest.
            if let Err(err) =
                self.clone_unchanged_files(&spare, at.as_str(), FileCopy::Clone, &mut |_, _| {})
            {
                tracing::warn!(%err, "spare's files not cloned");
            }
            spare.write_spare_files(&at)?;
            spare.settle_index()?;
            spare.drop_filling_marker()
        });
        if let Err(err) = filled {
            self.forget_spare(path);
            return Err(err);
        }
        tracing::info!("spare worktree filled");
        Ok(())
    }

    /// Whether `path` is a spare of this repository whose files are all written.
    pub fn spare_ready(&self, path: &Path) -> bool {
        self.spare_at(path)
            .is_ok_and(|(spare, _)| !spare.git_dir.join(FILLING_FILE).exists())
    }

    /// Turns the spare at `spare` into a fork's worktree at `spec.path` on a new branch (a free
    /// name, as [`Repo::add_worktree`] picks) at `spec.at`, marked as added and not yet filled:
    /// [`Repo::fill_worktree`] then writes only what differs from the spare's commit. A spare
    /// cut short after its checkout ended is finished first; one cut short before is no spare
    /// to claim. Refused with [`WorktreeError::NotASpare`] for a folder that is not a spare
    /// of this repository or whose HEAD left its commit (nothing changed then; the caller may
    /// [`Repo::discard_spare`] it); a stray file in it is removed by the fill, never carried
    /// into the fork, [`WorktreeError::SpareBusy`] while another
    /// process writes its files. A failure after the spare was moved removes it (and the
    /// branch): every failure leaves the spare as it was, or nothing.
    pub fn claim_spare(&self, spare: &Path, spec: &WorktreeSpec) -> Result<Worktree> {
        let (tree, at) = self.spare_at(spare)?;
        let base = self.commit(&spec.at)?;
        names::branch(&spec.branch)?;
        if let Ok(mut entries) = std::fs::read_dir(&spec.path) {
            if entries.next().is_some() {
                return Err(WorktreeError::PathTaken(spec.path.clone()));
            }
        }
        if tree.git_dir.join(FILLING_FILE).exists() {
            tree.refuse_busy()?;
            if !tree.git_dir.join("index").exists() {
                // Its checkout never finished (git writes the index last): writing it all now
                // would hold the fork as long as having no spare. Discard it instead.
                return Err(WorktreeError::NotASpare(spare.to_owned()));
            }
            // The checkout ran to its end and only the marker's removal was cut short (a
            // CLI's spare: its git outlives the process): a forced checkout now only checks
            // the files' stat data, and writes back any that went missing.
            tree.write_spare_files(&at)?;
            tree.drop_filling_marker()?;
        }
        // Only HEAD is checked here (one read); stray files are the fill's to remove
        // (`CLAIMED_FILE`), off the fork's synchronous path.
        if tree.head()?.as_ref() != Some(&at) {
            tracing::info!("a spare worktree was moved off its commit");
            return Err(WorktreeError::NotASpare(tree.root.clone()));
        }
        let branch = self.free_branch_name(&spec.branch)?;
        self.git
            .call(&self.root)
            .holding_worktree_lock(&self.common_dir)
            .args(["worktree", "move"])
            .arg(spare)
            .arg(&spec.path)
            .run()?;
        let mut branch_made = false;
        match self.adopt_spare(&spec.path, &branch, &base, &mut branch_made) {
            Ok(path) => {
                tracing::info!(branch, "spare worktree claimed");
                Ok(Worktree {
                    path,
                    branch,
                    base,
                    included: Vec::new(),
                })
            }
            Err(err) => {
                self.forget_spare(&spec.path);
                if branch_made {
                    let _ = self
                        .git
                        .call(&self.root)
                        .args(["update-ref", "-d"])
                        .arg(format!("refs/heads/{branch}"))
                        .output();
                }
                Err(err)
            }
        }
    }

    /// Removes the spare at `path`, whatever state it is in (nothing in it is anyone's).
    /// Refused for a folder that is not a spare of this repository, and while another process
    /// writes its files ([`WorktreeError::SpareBusy`]). A detached worktree holding no file
    /// at all goes too: a spare whose process ended between its `git worktree add` and its
    /// marker (nothing in it to lose).
    pub fn discard_spare(&self, path: &Path) -> Result<()> {
        match self.spare_at(path) {
            Ok((tree, _)) => tree.refuse_busy()?,
            Err(WorktreeError::NotASpare(_)) if self.unmarked_empty(path)? => {}
            Err(err) => return Err(err),
        }
        self.git
            .call(&self.root)
            .holding_worktree_lock(&self.common_dir)
            .args(["worktree", "remove", "--force", "--force"])
            .arg(path)
            .run()?;
        tracing::info!("spare worktree discarded");
        Ok(())
    }

    /// The spare at `path` as a checkout of its own, and the commit it holds; refused unless
    /// `path` is the top of a linked worktree this repository lists, detached and marked.
    fn spare_at(&self, path: &Path) -> Result<(Repo, Oid)> {
        let not_a_spare = || WorktreeError::NotASpare(path.to_owned());
        let listed = self.listed_worktree(path)?.ok_or_else(not_a_spare)?;
        // A folder git still lists but that is gone (`prunable`) is no directory either.
        if listed.branch.is_some() || !path.is_dir() {
            return Err(not_a_spare());
        }
        let tree = Repo::discover(&self.git, path)?.ok_or_else(not_a_spare)?;
        let marker = std::fs::read_to_string(tree.git_dir.join(SPARE_FILE));
        let at = marker.ok().and_then(|text| text.trim().parse::<Oid>().ok());
        match at {
            // The main checkout's git folder is the common one; a spare's never is.
            Some(at) if tree.git_dir != tree.common_dir => Ok((tree, at)),
            _ => Err(not_a_spare()),
        }
    }

    /// Whether `path` is a detached linked worktree of this repository with no file but its
    /// `.git` link.
    fn unmarked_empty(&self, path: &Path) -> Result<bool> {
        let listed = self.listed_worktree(path)?;
        if listed.is_none_or(|l| l.branch.is_some()) {
            return Ok(false);
        }
        let Ok(mut entries) = std::fs::read_dir(path) else {
            return Ok(false); // gone: nothing to discard
        };
        Ok(entries.all(|e| e.is_ok_and(|e| e.file_name() == ".git")))
    }

    /// In the spare: its files written as of `at`.
    fn write_spare_files(&self, at: &Oid) -> Result<()> {
        // No progress: git then writes nothing to its error pipe, so a checkout whose process
        // ended (the CLI) runs to its end rather than dying on a closed pipe.
        checkout_files(self)
            .arg("--detach")
            .arg(at.as_str())
            .run()?;
        Ok(())
    }

    /// The spare's files are all written.
    fn drop_filling_marker(&self) -> Result<()> {
        std::fs::remove_file(self.git_dir.join(FILLING_FILE))?;
        Ok(())
    }

    /// Writes the index again once the second its files were written in is over. Git compares
    /// whole seconds: a file not older than the index is "racily clean", and every later
    /// status or checkout reads it whole to be sure; after a fill that is thousands of files
    /// (a claim of a 1 GB spare took 0.5 s more, and its fill 1 s more). Rewritten later, the
    /// index holds them as settled, so a claim only compares their stat data. The spare is
    /// filled in the background: the wait (under a second) costs no fork anything.
    ///
    /// The index's own stamp decides, not this process's clock: the file system stamps files
    /// with a coarser clock that can still be in the old second for a few milliseconds after
    /// `SystemTime::now()` has left it, and an index rewritten then is no newer than its files.
    fn settle_index(&self) -> Result<()> {
        let seconds = |at: SystemTime| {
            at.duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        };
        let index = self.git_dir.join("index");
        let stamped = || -> Result<u64> { Ok(seconds(std::fs::metadata(&index)?.modified()?)) };
        let written = stamped()?;
        let wait_past = |second: u64| {
            while seconds(SystemTime::now()) <= second {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        };
        let rewrite = || {
            self.git
                .call(&self.root)
                .args(["update-index", "-q", "--refresh", "--force-write-index"])
                .run()?;
            stamped()
        };
        let settled = settle_by(written, wait_past, rewrite)?;
        tracing::debug!(
            settled,
            "the spare's index written again past its files' second"
        );
        Ok(())
    }

    /// [`WorktreeError::SpareBusy`] while a git process holds this checkout's index (another
    /// process filling the spare). A lock older than any git call may run is a dead process's
    /// and is removed.
    fn refuse_busy(&self) -> Result<()> {
        let lock = self.git_dir.join("index.lock");
        let Ok(meta) = std::fs::metadata(&lock) else {
            return Ok(());
        };
        let age = meta
            .modified()
            .ok()
            .and_then(|at| SystemTime::now().duration_since(at).ok());
        if age.is_some_and(|age| age > DEFAULT_TIMEOUT) {
            std::fs::remove_file(&lock)?;
            return Ok(());
        }
        Err(WorktreeError::SpareBusy(self.root.clone()))
    }

    /// A spare just moved to `path` made a fork's worktree: the new branch at `base`, HEAD on
    /// it (no file touched), the markers [`Repo::add_worktree`] leaves, the spare's dropped.
    fn adopt_spare(
        &self,
        path: &Path,
        branch: &str,
        base: &Oid,
        branch_made: &mut bool,
    ) -> Result<std::path::PathBuf> {
        let moved = self.sibling(path)?;
        self.git
            .call(&self.root)
            .holding_worktree_lock(&self.common_dir)
            .args(["branch", "--no-track", "--end-of-options", branch])
            .arg(base.as_str())
            .run()?;
        *branch_made = true;
        moved
            .git
            .call(&moved.root)
            .args(["symbolic-ref", "-m", "forkhost: spare claimed", "HEAD"])
            .arg(format!("refs/heads/{branch}"))
            .run()?;
        std::fs::write(moved.git_dir.join(BASE_FILE), format!("{base}\n"))?;
        std::fs::write(moved.git_dir.join(FILLING_FILE), "")?;
        std::fs::write(moved.git_dir.join(CLAIMED_FILE), "")?;
        std::fs::remove_file(moved.git_dir.join(SPARE_FILE))?;
        Ok(moved.root)
    }

    /// Removes the worktree at `path` after a failed spare step; a failure is only logged
    /// (the caller reports the first one).
    fn forget_spare(&self, path: &Path) {
        let removed = self
            .git
            .call(&self.root)
            .holding_worktree_lock(&self.common_dir)
            .args(["worktree", "remove", "--force", "--force"])
            .arg(path)
            .run();
        if let Err(err) = removed {
            tracing::warn!(error = %err, "could not remove a spare worktree after a failure");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{settle_by, SETTLE_TRIES};

    #[test]
    fn the_index_is_rewritten_until_its_own_stamp_is_past_its_files_second() {
        // The file system's clock still in second 10 at the first two rewrites.
        let stamps = [10, 10, 11];
        let (mut rewrites, mut waits) = (0, 0);
        let settled = settle_by(
            10,
            |second| {
                assert_eq!(second, 10);
                waits += 1;
            },
            || {
                rewrites += 1;
                Ok(stamps[rewrites - 1])
            },
        )
        .unwrap();
        assert!(settled);
        assert_eq!((rewrites, waits), (3, 3));

        let mut tries = 0;
        let stuck = settle_by(
            10,
            |_| {},
            || {
                tries += 1;
                Ok(10)
            },
        );
        assert!(!stuck.unwrap());
        assert_eq!(tries, SETTLE_TRIES);
    }
}
