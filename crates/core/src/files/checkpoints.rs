//! Checkpoints: at the start and the end of every turn the Host records the thread's working
//! tree (tracked and untracked files, `.gitignore` respected, large files skipped) as a commit
//! on a hidden ref of the user's repository, without touching their index, branch, stash or
//! files (`Repo::checkpoint`), walking only the thread's folder. A folder outside git gets
//! none, and so does one in a repository much wider than the folder ([`super::scope`]); both
//! say so.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use forkhost_store::{CheckpointRow, Edge};
use forkhost_worktree::{CheckpointSpec, Oid, TreeWatch};
use serde::{Deserialize, Serialize};

use super::error::blocking;
use super::scope::NoCheckpoints;
use crate::base::error::HostResult;
use crate::base::thread_handle::FolderWatch;
use crate::host::Host;

/// Which side of a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TurnEdge {
    Start,
    End,
}

impl TurnEdge {
    fn edge(self) -> Edge {
        match self {
            TurnEdge::Start => Edge::Start,
            TurnEdge::End => Edge::End,
        }
    }
}

/// One recorded checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct CheckpointView {
    /// The turn's 1-based position.
    #[ts(type = "number")]
    pub turn: i64,
    /// `start` or `end`.
    pub edge: String,
    /// The commit (in the thread's repository) holding the files.
    pub commit: String,
}

/// What the app and the CLI show about a thread's files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct FilesView {
    /// `worktree` (a git worktree Forkhost made for this fork) or `folder`.
    pub folder_kind: String,
    /// Whether the folder is inside a git repository (else: no checkpoints).
    pub in_git: bool,
    /// Why a folder inside git gets no checkpoints (its repository is the home folder, or far
    /// above the folder), in words with how to opt in; `None` when it gets them.
    pub checkpoints_note: Option<String>,
    /// Whether the thread's folder still exists.
    pub folder_exists: bool,
    /// The worktree's branch, for a worktree.
    pub branch: Option<String>,
    /// The checkpoint a worktree fork started from.
    pub base_commit: Option<String>,
    pub checkpoints: Vec<CheckpointView>,
    /// The fork's worktree being filled, how far (`None` once its files are there).
    pub preparing: Option<crate::base::view::FillView>,
}

impl Host {
    /// Records the thread's files at `edge` of turn `ordinal`. Best effort: a folder outside
    /// git, a missing git or a failure leaves no checkpoint (logged), never a failed turn.
    pub(crate) async fn checkpoint_turn(
        &self,
        thread_id: &str,
        folder: &Path,
        ordinal: i64,
        edge: TurnEdge,
    ) -> Option<Oid> {
        let repo = match self.checkpoint_repo(folder).await {
            Ok(repo) => repo,
            Err(NoCheckpoints::NotInGit) => return None,
            Err(NoCheckpoints::TooWide(why)) => {
                // The path is the user's repository, not a prompt; the words are shown in the
                // thread's files view too.
                tracing::info!(thread = %thread_id, reason = %why, "checkpoint skipped");
                return None;
            }
        };
        // A fork's worktree starts at its base commit: its first checkpoint continues from
        // there (which lets a watch started at the fill edit it rather than read everything).
        let parent = match self.latest_checkpoint(thread_id).await {
            Some(parent) => Some(parent),
            None => self.worktree_base(thread_id).await,
        };
        let label = format!("t{ordinal}-{}", edge.edge().as_str());
        let spec = match parent {
            Some(parent) => CheckpointSpec::new(thread_id, label).parent(parent),
            None => CheckpointSpec::new(thread_id, label),
        }
        .within(folder);
        let started = std::time::Instant::now();
        let slot = self.handle(thread_id);
        let known = slot.folder_watch(folder);
        let folder = folder.to_owned();
        let taken = blocking(move || {
            let watch = match known {
                Some(FolderWatch::Running(watch)) => Some(watch),
                Some(FolderWatch::Refused(_)) => None,
                // Started before this checkpoint reads anything, so that whatever changes from
                // now on is seen; this first one through it reads the whole folder.
                None => match TreeWatch::start(&folder) {
                    Ok(watch) => {
                        let watch = Arc::new(watch);
                        slot.set_folder_watch(FolderWatch::Running(Arc::clone(&watch)));
                        Some(watch)
                    }
                    Err(err) => {
                        tracing::info!(error = %err, "checkpoints read the whole folder: no watch");
                        slot.set_folder_watch(FolderWatch::Refused(folder.clone()));
                        None
                    }
                },
            };
            match watch {
                Some(watch) => repo.checkpoint_watched(&spec, &watch),
                None => repo.checkpoint(&spec),
            }
        })
        .await;
        let checkpoint = match taken {
            Ok(checkpoint) => checkpoint,
            Err(err) => {
                tracing::warn!(thread = %thread_id, code = err.code(), error = %err, "checkpoint failed");
                return None;
            }
        };
        tracing::info!(
            thread = %thread_id,
            turn = ordinal,
            edge = edge.edge().as_str(),
            changed = checkpoint.files_changed_vs_parent,
            skipped = checkpoint.skipped.len(),
            read = ?checkpoint.scanned,
            ms = started.elapsed().as_millis() as u64,
            "checkpoint recorded"
        );
        let row = CheckpointRow {
            thread_id: thread_id.to_owned(),
            turn_ordinal: ordinal,
            edge: edge.edge(),
            commit_id: checkpoint.commit.to_string(),
        };
        if let Err(err) = self.store().put_checkpoint(&row).await {
            tracing::warn!(thread = %thread_id, error = %err, "could not store a checkpoint");
            return None;
        }
        Some(checkpoint.commit)
    }

    /// The thread's newest checkpoint.
    /// The commit a fork's worktree started from, for a worktree fork.
    async fn worktree_base(&self, thread_id: &str) -> Option<Oid> {
        let row = self.store().worktree(thread_id).await.ok()??;
        row.base_commit.parse().ok()
    }

    pub(crate) async fn latest_checkpoint(&self, thread_id: &str) -> Option<Oid> {
        let rows = self.store().checkpoints(thread_id).await.ok()?;
        rows.last().and_then(|c| c.commit_id.parse().ok())
    }

    /// The checkpoint of one turn edge, if recorded.
    pub(crate) async fn checkpoint_at(
        &self,
        thread_id: &str,
        ordinal: i64,
        edge: TurnEdge,
    ) -> Option<Oid> {
        let rows = self.store().checkpoints(thread_id).await.ok()?;
        rows.into_iter()
            .find(|c| c.turn_ordinal == ordinal && c.edge == edge.edge())
            .and_then(|c| c.commit_id.parse().ok())
    }

    /// The thread's files: its folder kind, whether it is in git, its checkpoints.
    pub async fn files(&self, thread_id: &str) -> HostResult<FilesView> {
        let row = self.store().thread(thread_id).await?;
        let folder = PathBuf::from(&row.cwd);
        let worktree = self.store().worktree(thread_id).await?;
        let folder_exists = folder.is_dir();
        let (in_git, checkpoints_note) = match folder_exists {
            false => (false, None),
            true => match self.checkpoint_repo(&folder).await {
                Ok(_) => (true, None),
                Err(NoCheckpoints::NotInGit) => (false, None),
                Err(why) => (true, why.note()),
            },
        };
        let checkpoints = self
            .store()
            .checkpoints(thread_id)
            .await?
            .into_iter()
            .map(|c| CheckpointView {
                turn: c.turn_ordinal,
                edge: c.edge.as_str().to_owned(),
                commit: c.commit_id,
            })
            .collect();
        Ok(FilesView {
            folder_kind: match worktree {
                Some(_) => "worktree",
                None => "folder",
            }
            .to_owned(),
            in_git,
            checkpoints_note,
            folder_exists,
            branch: worktree.as_ref().map(|w| w.branch.clone()),
            base_commit: worktree.map(|w| w.base_commit),
            checkpoints,
            preparing: self.handle(thread_id).files.state().preparing(),
        })
    }
}
