//! The spare worktrees' bookkeeping (`files/spare_worktrees.rs` makes and claims them): which
//! spares this process is filling now, so a fork never claims one mid-fill and no second fill
//! starts beside it, which forks were made from a spare, and (in a one-shot Host, the CLI)
//! the spares it left for a longer-lived process to fill. Only the bookkeeping.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

#[derive(Default)]
pub(crate) struct WorktreeClaims {
    filling: Mutex<HashSet<PathBuf>>,
    claimed_by: Mutex<HashSet<String>>,
    /// Spares this Host did not fill itself (`HostOptions::hand_off_spares`).
    handed: Mutex<Vec<SpareJob>>,
}

/// A spare worktree to fill: the repository (any folder of it) and the commit it should hold.
/// A one-shot Host (the CLI) lists these instead of filling them, since its process ends before
/// a fill would; the caller gives each to a process that outlives it (`forkhost spare-fill`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpareJob {
    pub repository: PathBuf,
    pub at: String,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl WorktreeClaims {
    /// Marks the spare at `folder` as being filled; `false` when it is already.
    pub fn begin_fill(&self, folder: &Path) -> bool {
        lock(&self.filling).insert(folder.to_owned())
    }

    pub fn end_fill(&self, folder: &Path) {
        lock(&self.filling).remove(folder);
    }

    pub fn filling(&self, folder: &Path) -> bool {
        lock(&self.filling).contains(folder)
    }

    /// The fork `thread_id`'s worktree was a claimed spare.
    pub fn claimed(&self, thread_id: &str) {
        lock(&self.claimed_by).insert(thread_id.to_owned());
    }

    pub fn was_claimed(&self, thread_id: &str) -> bool {
        lock(&self.claimed_by).contains(thread_id)
    }

    /// Leaves `job` to the caller (once per repository and commit).
    pub fn hand_off(&self, job: SpareJob) {
        let mut handed = lock(&self.handed);
        if !handed.contains(&job) {
            handed.push(job);
        }
    }

    /// The spares left to the caller, each given once.
    pub fn take_handed(&self) -> Vec<SpareJob> {
        std::mem::take(&mut *lock(&self.handed))
    }
}
