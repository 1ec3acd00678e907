//! A fork "with its files": a git worktree (outside the repository, under the app-data folder,
//! one folder per repository) on a branch `forkhost/<slug>`, checked out from the checkpoint of
//! the fork point (after T: the end of T; before T: the start of T), with `.worktreeinclude`'s
//! ignored files copied in. The fork's harness session then runs there. The worktree is only
//! added here (no file written: milliseconds in any repository); its files are written after
//! the fork returns (`fill.rs`).

use std::path::{Path, PathBuf};

use super::repo::clean;
use forkhost_store::{Boundary, ThreadRow, WorktreeRow};
use forkhost_worktree::{CheckpointSpec, Oid, Repo, Worktree, WorktreeSpec};
use serde::Deserialize;

use super::checkpoints::TurnEdge;
use super::error::blocking;
use super::scope::NoCheckpoints;
use crate::base::error::{HostError, HostResult};
use crate::host::Host;

/// Where a fork's files come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ForkFiles {
    /// The source's folder, as it is now (forks share it).
    SameFolder,
    /// A new worktree with the files as of the fork point.
    Worktree,
    /// A worktree when the source has checkpoints, else the same folder.
    #[default]
    Auto,
}

/// A worktree added for a fork, its files not written yet.
pub(crate) struct Prepared {
    pub repo: Repo,
    /// What `add_worktree` made, for the fill.
    pub made: Worktree,
    pub worktree: PathBuf,
    /// The fork's folder inside the worktree (the source's folder relative to its repository).
    pub cwd: PathBuf,
    pub branch: String,
    pub base: Oid,
    /// Said to the user when the files are not exactly the fork point's.
    pub note: Option<String>,
}

impl Prepared {
    /// A worktree found half made (its fill cut short), to be filled again.
    pub fn resumed(repo: Repo, made: Worktree, cwd: PathBuf) -> Prepared {
        Prepared {
            repo,
            worktree: made.path.clone(),
            cwd,
            branch: made.branch.clone(),
            base: made.base.clone(),
            made,
            note: None,
        }
    }

    pub fn row(&self, thread_id: &str) -> WorktreeRow {
        WorktreeRow {
            thread_id: thread_id.to_owned(),
            path: self.worktree.display().to_string(),
            branch: self.branch.clone(),
            repo_root: self.repo.root().display().to_string(),
            base_commit: self.base.to_string(),
        }
    }
}

/// The files decision for one fork: a prepared worktree, or the same folder and why.
pub(crate) enum Decided {
    Worktree(Box<Prepared>),
    SameFolder { note: Option<String> },
}

impl Host {
    /// Makes the fork's worktree when `files` asks for one (or `Auto` finds checkpoints).
    /// A folder outside git forks in the same folder (an explicit `Worktree` is `unsupported`
    /// there, in words); a fork point without a checkpoint (a turn from before Forkhost
    /// hosted the thread) starts from the current files, and says so.
    pub(crate) async fn decide_files(
        &self,
        source: &ThreadRow,
        ordinal: i64,
        boundary: Boundary,
        child_id: &str,
        files: ForkFiles,
    ) -> HostResult<Decided> {
        if files == ForkFiles::SameFolder {
            return Ok(Decided::SameFolder { note: None });
        }
        let folder = PathBuf::from(&source.cwd);
        let repo = match self.checkpoint_repo(&folder).await {
            Ok(repo) => repo,
            Err(refused) => return decide_without(&folder, refused, files),
        };
        let has_checkpoints = !self.store().checkpoints(&source.id).await?.is_empty();
        if files == ForkFiles::Auto && !has_checkpoints {
            return Ok(Decided::SameFolder { note: None });
        }
        let edge = match boundary {
            Boundary::Before => TurnEdge::Start,
            Boundary::After | Boundary::Latest => TurnEdge::End,
        };
        let (base, note) = match self.checkpoint_at(&source.id, ordinal, edge).await {
            Some(commit) => (commit, None),
            None => {
                let label = format!("fork-{child_id}");
                let snapshot = repo.clone();
                let source_id = source.id.clone();
                let spec = CheckpointSpec::new(source_id, label).within(&folder);
                let taken = blocking(move || snapshot.checkpoint(&spec)).await?;
                let note = "no checkpoint of the files at that point (the turn is from before \
                            Forkhost hosted the thread): the fork starts from the current files";
                (taken.commit, Some(note.to_owned()))
            }
        };
        let worktree = self.worktree_folder(&repo, child_id);
        let relative = folder.strip_prefix(repo.root()).unwrap_or(Path::new(""));
        let cwd = worktree.join(relative);
        let spec = WorktreeSpec {
            at: base.clone(),
            path: worktree.clone(),
            branch: format!("forkhost/{}", slug(&source.title, child_id)),
        };
        let made = self.add_fork_worktree(&repo, spec, child_id).await?;
        tracing::info!(fork = %child_id, "fork worktree added");
        let prepared = Prepared {
            repo,
            worktree: made.path.clone(),
            cwd,
            branch: made.branch.clone(),
            base,
            made,
            note,
        };
        // The harness forks into the fork's folder before the fill writes a file, and each
        // harness refuses a folder that does not exist: for a thread in a subfolder of its
        // repository (or one that held no file at the fork point) it is made now.
        if let Err(err) = std::fs::create_dir_all(&prepared.cwd) {
            let why = format!(
                "could not make the fork's folder {}: {err}",
                prepared.cwd.display()
            );
            self.undo_worktree(prepared).await;
            return Err(HostError::InvalidInput(why));
        }
        Ok(Decided::Worktree(Box::new(prepared)))
    }

    /// Removes a worktree added for a fork that failed: no file of it is written yet.
    pub(crate) async fn undo_worktree(&self, prepared: Prepared) {
        let Prepared {
            repo,
            made,
            worktree,
            ..
        } = prepared;
        if let Err(err) = blocking(move || repo.discard_worktree(&made)).await {
            tracing::warn!(error = %err, folder = %worktree.display(), "could not remove a failed fork's worktree");
        }
    }
}

/// The files decision where the source's folder gets no checkpoints: outside git, or in a
/// repository too wide to checkpoint ([`super::scope`]). Asked for a worktree, it is refused
/// in words; by default the fork just uses the folder, whose `FilesView` says why, rather than
/// a note on every fork there.
fn decide_without(folder: &Path, refused: NoCheckpoints, files: ForkFiles) -> HostResult<Decided> {
    let why = match refused {
        NoCheckpoints::NotInGit => format!(
            "{} is not in a git repository, so the fork uses the same folder",
            folder.display()
        ),
        NoCheckpoints::TooWide(why) => format!("{why}; the fork uses the same folder"),
    };
    match files {
        ForkFiles::Worktree => Err(HostError::Unsupported(why)),
        _ => Ok(Decided::SameFolder { note: None }),
    }
}

/// The branch name's last part: the thread's title and a piece of the fork's id.
fn slug(title: &str, child_id: &str) -> String {
    let id: String = child_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .take(8)
        .collect();
    match clean(title) {
        t if t.is_empty() => id,
        t => format!("{t}-{id}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_slugs_are_plain() {
        assert_eq!(
            slug("Fix the parser (fork)", "0193ab-cd"),
            "fix-the-parser-fork-0193abcd"
        );
        assert_eq!(slug("ünïcode ✓", "abc"), "n-code-abc");
        assert_eq!(slug("", "abc"), "abc");
        assert!(clean(&"x".repeat(100)).len() <= 40);
    }
}
