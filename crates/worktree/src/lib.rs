//! Workspace forks, the file side: checkpoints of a thread's working files, worktrees started
//! from them, diffs, and bringing a fork's changes back — over the `git` program.
//!
//! # Checkpoints are hidden commits
//! A checkpoint is an ordinary commit whose tree is the checkout's files at that moment (tracked
//! files with their current contents, untracked files not ignored by `.gitignore`). It lives on a
//! ref `refs/forkhost/<thread>/<label>`: outside `refs/heads`, `refs/tags` and `refs/stash`, so
//! no branch list, tag list or stash list shows it (only `git log --all` would), and the ref keeps
//! its commits from garbage collection. A thread's checkpoints are chained (the first one's
//! parent is HEAD), so each one stores only the blobs that changed: disk use is the changed files
//! plus a few trees and one commit.
//!
//! # The user's index is never written
//! Recording untracked files means staging them somewhere. That somewhere is a copy of the
//! checkout's index in a temporary folder, named by `GIT_INDEX_FILE` for our calls only. The copy
//! brings the stat data along, so only files whose stat changed are re-hashed. One `git status`
//! pass on the copy (the stat refresh and untracked walk `git status` does anyway) lists what
//! differs; `git update-index --add --remove --stdin` stages exactly those paths, literally (no
//! pathspec magic); `write-tree` reuses the unchanged subtrees from the cache-tree; `commit-tree`
//! and `update-ref` finish. The real index, HEAD, the branch, the stash and the working files are
//! only ever read; staged-but-unsaved changes and a merge in progress stay exactly as they were.
//! Every git call also runs with `GIT_OPTIONAL_LOCKS=0` so that reads such as `status` do not
//! refresh the user's index behind their back, with hooks and fsmonitor switched off (an empty
//! `core.hooksPath`), in the C locale, without prompts, and without a
//! `GIT_DIR`/`GIT_INDEX_FILE`/`GIT_WORK_TREE` inherited from the parent process (see [`Git`]).
//! Checkpoint commits carry the fixed identity `Forkhost <forkhost@localhost>`, so no user
//! configuration is needed. The cost is about 1.5–2× one `git status` (`benches/checkpoint.rs`).
//!
//! # Checkpoints that cost what changed
//! A folder under a [`TreeWatch`] is checkpointed with [`Repo::checkpoint_watched`]: the first
//! time by the full scan above, then as an edit of the last checkpoint's tree with exactly the
//! paths the watcher saw change (`tree_edit.rs`; no index is read), or as the last checkpoint
//! itself when nothing changed. Whatever only a full scan can decide falls back to one.
//!
//! # The scope
//! A checkpoint given its thread's folder ([`CheckpointSpec::within`]) walks only that folder:
//! untracked files and unsaved edits elsewhere in the repository are not recorded (tracked
//! files elsewhere keep their staged contents, which the repository holds already). A
//! repository with `status.showUntrackedFiles=no` (how dotfiles repositories are usually set
//! up) has no untracked file recorded at all. Which repositories get checkpoints at all is the
//! caller's decision (the Host skips one rooted at the home folder).
//!
//! # The size limit
//! Untracked files larger than [`DEFAULT_SIZE_LIMIT`] (20 MiB, per checkpoint configurable) are
//! left out and listed in [`Checkpoint::skipped`]: an unignored dataset or build output would
//! otherwise be copied into the object store at every turn. Nested repositories are left out too.
//!
//! # Worktrees
//! [`Repo::create_worktree`] runs `git worktree add -b forkhost/<slug>` at a checkpoint; in two
//! steps, [`Repo::add_worktree`] (no file written: milliseconds) and [`Repo::fill_worktree`]
//! (the checkout, with progress), so a fork can open before its files are there. Because
//! the checkpoint commit contains the untracked files of its moment, the fork has them checked out
//! as tracked files on its branch; that is intended. Gitignored files listed by `.worktreeinclude`
//! (such as `.env`) are copied from the source folder.
//!
//! # Spare worktrees
//! Where the file system has no copy-on-write clones, a checkout costs what the repository
//! weighs. [`Repo::add_spare`] keeps a detached worktree filled ahead of time (marked in its
//! git folder, so it is never taken for a fork's); [`Repo::claim_spare`] moves it to a fork's
//! place on the fork's branch and leaves it as [`Repo::add_worktree`] would, and the fill then
//! writes only the paths that differ. Only a clean spare is claimed.
//!
//! # Copy-on-write clones
//! Where the file system clones files (APFS, btrfs, XFS), a fork's fill (and a spare's) first
//! clones the files the source checkout holds unchanged and writes the new worktree's index for
//! them, so git's checkout writes only the rest (`clone.rs`, `index_file.rs`).
//!
//! # What is never deleted
//! [`Repo::prune`] deletes only `refs/forkhost/<thread>/*`. [`Repo::remove_worktree`] removes a
//! worktree this repository lists (never the main checkout) only when nothing would be lost or
//! the user accepted exactly the loss [`Repo::worktree_state`] reported (uncommitted files,
//! unpushed commits, and the ignored files made there, which `git worktree remove` deletes
//! too); it then deletes the
//! worktree's branch only if it is a `forkhost/` branch. A worktree folder the user deleted
//! themselves only has git's record pruned. [`Repo::apply_changes`] refuses rather than overwrite
//! uncommitted work in the target. No call here touches the user's branches, tags, stash, or
//! configuration.
//!
//! The API is synchronous (each call runs git processes to completion); async callers use
//! `spawn_blocking`.

mod apply;
mod bundle;
mod checkpoint;
mod clone;
mod diff;
mod error;
mod git;
mod include;
#[cfg(unix)]
mod index_file;
mod mount;
mod names;
mod oid;
mod recorded;
mod removal;
mod repo;
mod restore;
mod snapshot;
mod spare;
mod status;
mod tree_edit;
mod watch;
mod worktree;
mod worktree_lock;

pub use apply::Applied;
pub use bundle::{bundle_prerequisites, clone_bundle, BundleMade};
pub use checkpoint::{Checkpoint, CheckpointSpec, Scanned, REF_PREFIX};
pub use clone::NO_CLONES_ENV;
pub use diff::{FileDiff, FilePatch, FileStatus};
pub use error::{Loss, Result, WorktreeError};
pub use git::{Git, DEFAULT_TIMEOUT};
pub use include::INCLUDE_FILE;
pub use oid::Oid;
pub use removal::{Confirm, WorktreeState};
pub use repo::Repo;
pub use restore::{RestorePreview, Restored};
pub use snapshot::{SkipReason, Skipped, DEFAULT_SIZE_LIMIT};
pub use tree_edit::MAX_NEW_FOLDER_FILES;
pub use watch::{TreeWatch, MAX_RECORDED};
pub use worktree::{FillProgress, Worktree, WorktreeSpec};
