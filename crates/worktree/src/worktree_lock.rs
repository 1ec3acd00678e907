//! One git at a time reads or changes a repository's list of worktrees, among our own calls.
//!
//! Git writes a new worktree's record (`<common dir>/worktrees/<name>/gitdir`, `commondir`,
//! `HEAD`) file by file, without a lock, and every git that walks the list dies on a record
//! half written: `worktree add -b` and `branch` checking that a branch is not checked out
//! elsewhere, `branch -D`, `worktree list` all stop with "failed to read
//! .git/worktrees/<name>/commondir". A race's lanes add their worktrees at the same moment as
//! the spare worktree is made, and the CLI's detached spare filler runs beside the user's next
//! command; so each of our calls that writes or walks that list holds an advisory lock on a
//! file in the shared git folder (across processes, and across threads of one process: the
//! lock belongs to an open file, not to a process). It is held for that one git process only,
//! never across two calls, so no thread can wait on a lock it holds itself.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::error::{Result, WorktreeError};

/// In the repository's shared git folder. Git ignores unknown files there; the file stays
/// (deleting a lock file another process has open would let two holders in).
pub(crate) const LOCK_FILE: &str = "forkhost-worktrees.lock";

/// Held while it lives; dropping it closes the file, which releases the lock.
#[derive(Debug)]
pub(crate) struct WorktreeLock {
    _file: File,
}

/// Waits for the lock of the repository whose shared git folder is `common_dir`, at most
/// `patience` (a holder's git has the same deadline, and is killed past it). A folder the lock
/// file cannot be made in (a read-only repository) gets no lock: there git could change no
/// worktree list either.
pub(crate) fn lock(common_dir: &Path, patience: Duration) -> Result<Option<WorktreeLock>> {
    let file = match OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(common_dir.join(LOCK_FILE))
    {
        Ok(file) => file,
        Err(err) => {
            tracing::debug!(error = %err, "no worktree lock file; going on without the lock");
            return Ok(None);
        }
    };
    let deadline = Instant::now() + patience;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(Some(WorktreeLock { _file: file })),
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(err)) => {
                // A file system without locks (some network mounts): go on as git itself does.
                tracing::debug!(error = %err, "the worktree lock is not available; going on without it");
                return Ok(None);
            }
        }
        if Instant::now() >= deadline {
            return Err(WorktreeError::GitTimedOut {
                command: "waiting for another git to finish with the worktree list".into(),
                after: patience,
            });
        }
        // A holder runs one short git (a worktree add is milliseconds): a short, fixed pause.
        std::thread::sleep(POLL);
    }
}

const POLL: Duration = Duration::from_millis(5);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_waits_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let first = lock(dir.path(), Duration::from_secs(5)).unwrap();
        assert!(first.is_some());
        let refused = lock(dir.path(), Duration::from_millis(30));
        assert!(
            matches!(refused, Err(WorktreeError::GitTimedOut { .. })),
            "{refused:?}"
        );
        let path = dir.path().to_owned();
        let waiter = std::thread::spawn(move || {
            let started = Instant::now();
            let second = lock(&path, Duration::from_secs(5)).unwrap();
            (second.is_some(), started.elapsed())
        });
        std::thread::sleep(Duration::from_millis(100));
        drop(first);
        let (got, waited) = waiter.join().unwrap();
        assert!(got);
        assert!(waited >= Duration::from_millis(90), "{waited:?}");
    }
}
