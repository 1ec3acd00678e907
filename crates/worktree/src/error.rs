//! The crate's one error type. Each variant maps to one of the app's typed errors, so the Host can
//! show the user what happened without parsing text.

use std::path::PathBuf;

/// What a refused removal would have thrown away. The user confirms exactly this value
/// (see [`crate::Confirm`]); anything else is refused again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Loss {
    /// Files with uncommitted changes (modified, deleted or untracked), repository-relative.
    pub files: Vec<String>,
    /// Commits on the worktree's branch that exist nowhere else (no other branch, no remote,
    /// not the checkpoint it started from).
    pub commits: usize,
    /// Gitignored files made in the worktree (`.env.local`, a local database, `node_modules/`
    /// as one `dir/` entry), which removing the folder deletes too; the `.worktreeinclude`
    /// copies still as they came from the source are not among them.
    pub ignored: Vec<String>,
}

impl Loss {
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.commits == 0 && self.ignored.is_empty()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum WorktreeError {
    #[error("{0} is not inside a git repository")]
    NotARepository(PathBuf),
    #[error("checkpoint {0} not found")]
    CheckpointNotFound(String),
    #[error("the changes touch files that differ in the target: {}", paths.join(", "))]
    Conflict { paths: Vec<String> },
    #[error(
        "removing would lose {} file(s) with changes, {} ignored file(s) and {} commit(s)",
        what_would_be_lost.files.len(),
        what_would_be_lost.ignored.len(),
        what_would_be_lost.commits
    )]
    Dirty { what_would_be_lost: Loss },
    #[error("{0:?} is not a usable name here (letters, digits, '-', '_', '.' only)")]
    InvalidName(String),
    #[error("{0} is not a worktree of this repository")]
    NotAWorktree(PathBuf),
    /// Not a spare worktree of this repository ready to be claimed: no spare marker, another
    /// repository's, or holding files its commit does not (`spare.rs`).
    #[error("{0} is not a clean spare worktree of this repository")]
    NotASpare(PathBuf),
    /// A git process is still writing the spare's files (another run of the app or CLI
    /// started it); it is left alone.
    #[error("the spare worktree {0} is still being filled")]
    SpareBusy(PathBuf),
    #[error("the worktree folder {0} already exists and is not empty")]
    PathTaken(PathBuf),
    /// A git call ran past its deadline ([`crate::Git::timeout`]) and was killed.
    #[error("`{command}` did not finish within {} s and was stopped", after.as_secs())]
    GitTimedOut {
        command: String,
        after: std::time::Duration,
    },
    #[error("the git program was not found ({0})")]
    GitMissing(PathBuf),
    #[error("`{command}` failed: {stderr_tail}")]
    GitFailed {
        command: String,
        stderr_tail: String,
    },
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

pub type Result<T, E = WorktreeError> = std::result::Result<T, E>;
