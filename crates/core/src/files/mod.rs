//! A thread's files (docs/architecture.md "Files of a thread"): checkpoints of the working
//! tree at each turn's edges, forks into a git worktree holding the files as of the fork
//! point, and comparing or bringing back a fork's changes. All git work goes through
//! `forkhost-worktree` on a blocking thread; the store keeps coordinates (commit ids) only.
//!
//! Calls: the base.

mod check;
#[cfg(test)]
mod check_tests;
#[cfg(test)]
mod checkpoint_tests;
mod checkpoints;
mod compare;
#[cfg(test)]
mod compare_tests;
mod error;
mod fill;
#[cfg(test)]
mod fill_tests;
mod lifecycle;
#[cfg(test)]
mod lifecycle_tests;
mod moved;
#[cfg(test)]
mod moved_tests;
mod prune;
#[cfg(test)]
mod prune_tests;
mod repo;
mod scope;
mod setup;
mod spare_worktrees;
#[cfg(test)]
mod test_repo;
mod user_command;
pub(crate) mod worktree_fork;
#[cfg(test)]
mod worktree_fork_tests;

pub use check::{CheckCommandView, LaneCheck};
pub use checkpoints::{CheckpointView, FilesView};
pub use compare::{ChangesView, FileChangeStatus, FileChangeView};
pub use lifecycle::{ThreadInFolder, WorktreeLoss};
pub use worktree_fork::ForkFiles;

pub(crate) use checkpoints::TurnEdge;
pub(crate) use error::blocking;
pub(crate) use moved::Placed;
pub(crate) use repo::{main_root, repo_of};
pub(crate) use scope::NoCheckpoints;
