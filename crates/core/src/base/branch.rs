//! A branch on its way to another machine (docs/architecture.md "Remote hosts"): the turns of
//! a thread up to a message, as the seed the receiving machine's forkhost writes as a native
//! session of its own harness — the continue-in-another-agent path, across machines. Text
//! travels here because the other machine has no copy of the source's session; nothing of it is
//! stored.

use forkhost_harness::{HarnessKind, Seed};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BranchSeed {
    /// The harness the branch continues in.
    pub harness: HarnessKind,
    /// What the new thread is called: its source and its cut ("Fix the parser · after turn 2").
    pub title: String,
    pub seed: Seed,
    /// The files as of the fork point, when the source records checkpoints there.
    #[serde(default)]
    pub files: Option<BranchFiles>,
    /// Why the files do not come with the branch (the folder is not in git, no checkpoint of
    /// that point), in words for the user; `None` when they come.
    #[serde(default)]
    pub files_note: Option<String>,
    /// Where it comes from, recorded with the thread it becomes (its lineage across machines).
    #[serde(default)]
    pub origin: Option<BranchOrigin>,
}

/// Where a thread continued from another machine came from: that machine, the thread there and
/// how many of its turns came along. Coordinates and a title, never message text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct BranchOrigin {
    /// The machine, as the one that carried the branch names it (a host's name, or the
    /// carrying machine's own host name); `None` until the carrier names it.
    pub host: Option<String>,
    /// The thread's id there.
    pub thread: String,
    pub title: String,
    #[ts(type = "number")]
    pub turns: i64,
}

/// A branch's files on their way with it: the checkpoint of the fork point, which repository
/// it belongs to and where in it the thread worked. The commit itself travels as a git bundle
/// beside the seed ([`crate::Host::bundle_branch_files`]), holding only what the target lacks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BranchFiles {
    /// The commit holding the files as of the fork point.
    pub commit: String,
    /// Its history's root commits: the same in every clone of the repository, so the target
    /// knows its clone by them.
    pub roots: Vec<String>,
    /// The thread's folder inside the repository, `/`-separated; empty at its top.
    pub subfolder: String,
}

/// Where a moving branch's files land on the target ([`crate::Host::files_target`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FilesTarget {
    /// Commits the target's clone holds: the bundle leaves them and their history out.
    pub have: Vec<String>,
    /// The folder is empty or absent: a new repository is made there from a complete bundle
    /// (else the files land in a new worktree of the clone that holds the folder).
    pub new_repository: bool,
}
