//! Rewind to here (docs/architecture.md "Rewind"): a thread goes back to turn T in place, and
//! nothing is lost. The conversation: a native fork of the thread after T (same folder), then a
//! swap of lines — the thread keeps its id (its tab, window and CLI handle) and takes the
//! fork's native session and anchors; its old line becomes the fork's row, a branch whose
//! lineage ("a fork after T") is exactly true of it. The files: the thread's own folder
//! restored to T's end checkpoint after a checkpoint of it as it is ([`crate::rewind::files`]).
//! Undo is the same swap back (and the folder written back), so the line used since the rewind
//! becomes the branch in turn. Never writes a native file of the thread.
//!
//! Calls: `fork`, `thread`, `files` and the base.

pub(crate) mod files;

use forkhost_store::{RewindRow, SwapRecord, ThreadRow, ThreadState};
use serde::{Deserialize, Serialize};

use crate::base::error::{HostError, HostResult};
use crate::base::fork_point::{ForkAt, TurnRef};
use crate::base::thread::Thread;
use crate::base::view::ThreadDetail;
use crate::files::ForkFiles;
use crate::host::{new_id, Host};
use crate::rewind::files::RewindFileView;

/// What a rewind takes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum RewindKind {
    /// The conversation and the thread's folder (the default).
    ConversationAndFiles,
    Conversation,
    Files,
}

impl RewindKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RewindKind::ConversationAndFiles => "conversation_and_files",
            RewindKind::Conversation => "conversation",
            RewindKind::Files => "files",
        }
    }

    fn parse(text: &str) -> HostResult<RewindKind> {
        match text {
            "conversation_and_files" => Ok(RewindKind::ConversationAndFiles),
            "conversation" => Ok(RewindKind::Conversation),
            "files" => Ok(RewindKind::Files),
            other => Err(HostError::Internal(format!(
                "unknown rewind kind {other:?}"
            ))),
        }
    }

    fn conversation(self) -> bool {
        self != RewindKind::Files
    }

    fn files(self) -> bool {
        self != RewindKind::Conversation
    }
}

/// What a rewind would do, shown (and confirmed) before anything is written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct RewindPlan {
    pub thread_id: String,
    pub kind: RewindKind,
    /// The turn the thread goes back to (1-based): it ends there.
    #[ts(type = "number")]
    pub turn: i64,
    /// How many turns the thread has now.
    #[ts(type = "number")]
    pub turns: i64,
    /// The files the rewind writes back or deletes in the thread's folder (`deleted`: it
    /// removes the file).
    pub changes: Vec<RewindFileView>,
    /// Of those, the files whose current content no checkpoint of the thread holds (changes
    /// made since its last turn): only this rewind's own checkpoint keeps them, and only Undo
    /// rewind brings them back.
    pub loss: Vec<String>,
}

/// One rewind of a thread, as done (or undone).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct RewindView {
    pub id: String,
    pub thread_id: String,
    /// The line set aside, a fork of the thread after `turn` (`None`: files only).
    pub branch_id: Option<String>,
    #[ts(type = "number")]
    pub turn: i64,
    pub kind: RewindKind,
    /// Unix milliseconds.
    #[ts(type = "number")]
    pub created_at: i64,
    pub undone: bool,
}

impl TryFrom<&RewindRow> for RewindView {
    type Error = HostError;
    fn try_from(row: &RewindRow) -> HostResult<RewindView> {
        Ok(RewindView {
            id: row.id.clone(),
            thread_id: row.thread_id.clone(),
            branch_id: row.branch_id.clone(),
            turn: row.turn_ordinal,
            kind: RewindKind::parse(&row.kind)?,
            created_at: row.created_at,
            undone: row.undone_at.is_some(),
        })
    }
}

/// What a rewind or its undo did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct RewoundView {
    pub rewind: RewindView,
    /// The thread as it now is.
    pub thread: ThreadDetail,
    /// The files written back or deleted.
    pub files: Vec<RewindFileView>,
    /// Files the restore left alone: no checkpoint before it held them (ignored, too large).
    pub kept: Vec<String>,
}

impl Host {
    /// What rewinding `thread_id` to turn `to` would do: the turns set aside and the files
    /// written back, with the loss. Writes nothing.
    pub async fn rewind_plan(
        &self,
        thread_id: &str,
        to: &TurnRef,
        kind: RewindKind,
    ) -> HostResult<RewindPlan> {
        let thread = self.thread(thread_id).await?;
        let (turn, turns) = self.rewind_checks(&thread, to, kind).await?;
        let (changes, loss) = match kind.files() {
            true => {
                let plan = self.files_plan(&thread, turn).await?;
                (plan.changes, plan.loss)
            }
            false => (Vec::new(), Vec::new()),
        };
        Ok(RewindPlan {
            thread_id: thread_id.to_owned(),
            kind,
            turn,
            turns,
            changes,
            loss,
        })
    }

    /// Rewinds `thread_id` to turn `to`. `accepted_loss` is the loss the user confirmed, the
    /// paths of [`RewindPlan::loss`] as [`Host::rewind_plan`] listed them: only the paths cross
    /// a process boundary (the app's dialog, the CLI's question), so only they are compared.
    /// A loss that is not exactly that refuses the rewind (`conflict`) before anything is
    /// written. A running turn is `busy`; the thread's harness process is stopped first (it
    /// starts again on the next Send, on the rewound line).
    pub async fn rewind(
        &self,
        thread_id: &str,
        to: &TurnRef,
        kind: RewindKind,
        accepted_loss: Option<&[String]>,
    ) -> HostResult<RewoundView> {
        let slot = self.handle(thread_id);
        let _op = slot.ops.lock().await;
        let plan = self.rewind_plan(thread_id, to, kind).await?;
        if !plan.loss.is_empty() && accepted_loss != Some(plan.loss.as_slice()) {
            return Err(HostError::Conflict(format!(
                "rewinding would overwrite changes no checkpoint holds: {}; confirm that loss \
                 first (forkhost rewind --yes)",
                plan.loss.join(", ")
            )));
        }
        self.stop_runtime(&slot).await;
        let thread = self.thread(thread_id).await?;
        let id = new_id();
        let (restored, target) = match kind.files() {
            true => {
                let files = self.files_plan(&thread, plan.turn).await?;
                let target = files.target.to_string();
                let label = format!("rewind-{id}");
                let restored = self
                    .restore_files(&thread, files.repo, label, files.target)
                    .await?;
                (Some(restored), Some(target))
            }
            false => (None, None),
        };
        let row = RewindRow {
            id: id.clone(),
            thread_id: thread_id.to_owned(),
            branch_id: None,
            turn_ordinal: plan.turn,
            kind: kind.as_str().to_owned(),
            files_before: restored.as_ref().map(|r| r.before.to_string()),
            files_restored: target,
            created_at: 0,
            undone_at: None,
            files_before_undo: None,
        };
        let recorded = match kind.conversation() {
            true => self.swap_in_fork(&thread, plan.turn, row).await,
            false => Ok(self.store().put_rewind(&row).await?),
        };
        let recorded = match recorded {
            Ok(recorded) => recorded,
            Err(err) => {
                // The folder goes back to how it was: the rewind did not happen.
                if let Some(restored) = &restored {
                    self.restore_back(&thread, &id, &restored.before).await;
                }
                return Err(err);
            }
        };
        let (files, kept) = restored.map_or((Vec::new(), Vec::new()), |r| (r.files, r.kept));
        tracing::info!(thread = %thread_id, turn = plan.turn, kind = kind.as_str(), "thread rewound");
        self.rewound(&recorded, files, kept).await
    }

    /// Undoes the thread's latest rewind not undone yet: the lines swap back (the line used
    /// since becomes the branch) and the folder gets the files it had before the rewind (after
    /// a checkpoint of it as it is). Nothing to undo is `invalid_input`: the request names a
    /// thread with no rewind, which no retry changes (`conflict` is kept for a lost race).
    pub async fn undo_rewind(&self, thread_id: &str) -> HostResult<RewoundView> {
        let slot = self.handle(thread_id);
        let _op = slot.ops.lock().await;
        let thread = self.thread(thread_id).await?;
        thread.usable()?;
        let Some(row) = self.store().last_rewind(thread_id).await? else {
            return Err(HostError::InvalidInput(format!(
                "thread {thread_id} has no rewind to undo"
            )));
        };
        let kind = RewindKind::parse(&row.kind)?;
        let branch = match &row.branch_id {
            Some(branch_id) if kind.conversation() => {
                let branch = self.thread(branch_id).await?;
                self.check_branch(&thread, &branch, row.turn_ordinal)
                    .await?;
                Some(branch)
            }
            Some(_) | None if kind.conversation() => {
                return Err(HostError::Conflict(format!(
                    "the line thread {thread_id} was rewound from is gone; nothing to swap back"
                )))
            }
            _ => None,
        };
        for id in std::iter::once(thread_id).chain(branch.as_ref().map(|b| b.id())) {
            if self.is_streaming(id).await {
                return Err(HostError::Busy(format!(
                    "a turn is running in thread {id}; stop it before undoing the rewind"
                )));
            }
        }
        let files_before = match (kind.files(), &row.files_before) {
            (true, Some(before)) => Some(
                before
                    .parse::<forkhost_worktree::Oid>()
                    .map_err(|_| HostError::Internal(format!("bad checkpoint {before:?}")))?,
            ),
            _ => None,
        };
        let repo = match &files_before {
            Some(_) => Some(self.rewind_repo(&thread).await?),
            None => None,
        };
        self.stop_runtime(&slot).await;
        if let Some(branch) = &branch {
            let other = self.handle(branch.id());
            let _branch_op = other.ops.lock().await;
            self.stop_runtime(&other).await;
        }
        let restored = match (repo, files_before) {
            (Some(repo), Some(before)) => Some(
                self.restore_files(&thread, repo, format!("undo-{}", row.id), before)
                    .await?,
            ),
            _ => None,
        };
        let before_undo = restored.as_ref().map(|r| r.before.to_string());
        let recorded = match &branch {
            Some(branch) => {
                let fresh = self.store().thread(thread_id).await?;
                let swapped = self
                    .store()
                    .swap_lines(
                        &fresh,
                        &branch.row,
                        row.turn_ordinal,
                        SwapRecord::Undo {
                            rewind_id: row.id.clone(),
                            files_before_undo: before_undo,
                        },
                    )
                    .await;
                match swapped {
                    Ok(swapped) => {
                        self.after_swap(&swapped.thread, &swapped.branch, row.turn_ordinal)
                            .await;
                        Ok(swapped.rewind)
                    }
                    Err(err) => Err(err.into()),
                }
            }
            None => self
                .store()
                .undo_rewind(&row.id, before_undo.as_deref())
                .await
                .map_err(Into::into),
        };
        let recorded = match recorded {
            Ok(recorded) => recorded,
            Err(err) => {
                if let Some(restored) = &restored {
                    self.restore_back(&thread, &row.id, &restored.before).await;
                }
                return Err(err);
            }
        };
        let (files, kept) = restored.map_or((Vec::new(), Vec::new()), |r| (r.files, r.kept));
        tracing::info!(thread = %thread_id, rewind = %row.id, "rewind undone");
        self.rewound(&recorded, files, kept).await
    }

    /// A thread's rewinds, and those whose branch it is (newest first): whether Undo is
    /// offered, and which rows are a line a rewind set aside.
    pub async fn rewinds(&self, thread_id: &str) -> HostResult<Vec<RewindView>> {
        self.store().thread(thread_id).await?;
        let rows = self.store().rewinds_of(thread_id).await?;
        rows.iter().map(RewindView::try_from).collect()
    }

    /// Every thread a rewind (or its undo) set aside as a branch: the sidebar marks them
    /// "rewound" from the start, before any of their conversations is opened.
    pub async fn rewound_branches(&self) -> HostResult<Vec<String>> {
        Ok(self.store().rewound_branches().await?)
    }

    /// The turn `to` names, refused in words where a rewind cannot go: an archived, missing or
    /// running thread, a turn it does not have, and (for the conversation) its last turn.
    async fn rewind_checks(
        &self,
        thread: &Thread,
        to: &TurnRef,
        kind: RewindKind,
    ) -> HostResult<(i64, i64)> {
        let id = thread.id();
        thread.usable()?;
        if thread.state() == ThreadState::Archived {
            return Err(HostError::InvalidInput(format!(
                "thread {id} is archived; unarchive it first"
            )));
        }
        let turns = self.store().turns(id).await?;
        let n = turns.len() as i64;
        let turn = to.resolve(&turns, id)? as i64 + 1;
        if kind.conversation() && turn == n {
            return Err(HostError::InvalidInput(format!(
                "thread {id} ends at turn {turn} already: there is no conversation to rewind \
                 (rewind its files only, or pick an earlier turn)"
            )));
        }
        // The harness forks and runs in the folder, and the files live there.
        if !thread.folder.is_dir() {
            return Err(HostError::InvalidInput(format!(
                "the folder of thread {id} is gone ({}); it was deleted or moved outside \
                 Forkhost: restore it to rewind, or archive the thread",
                thread.folder.display()
            )));
        }
        if self.is_streaming(id).await {
            return Err(HostError::Busy(format!(
                "a turn is running in thread {id}; stop it before rewinding"
            )));
        }
        let slot = self.handle(id);
        // A fork's worktree still being written holds no turn's files yet.
        if slot.files.state().preparing().is_some() {
            return Err(HostError::Busy(format!(
                "the files of thread {id} are still being written; rewind once they are there"
            )));
        }
        if slot.terminal.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(HostError::Busy(format!(
                "thread {id} is open in a terminal tab; close it to rewind"
            )));
        }
        Ok((turn, n))
    }

    /// The conversation side: a native fork of the thread after `turn` in its own folder, then
    /// the swap of lines recording `row` (its branch is the fork). A swap that fails removes
    /// the fork's row again (its native files, as any failed fork's, are left alone).
    async fn swap_in_fork(
        &self,
        thread: &Thread,
        turn: i64,
        mut row: RewindRow,
    ) -> HostResult<RewindRow> {
        let at = ForkAt::After(TurnRef::Number(turn));
        let forked = self
            .fork_with(thread.id(), at, ForkFiles::SameFolder)
            .await?;
        let fork_id = forked.thread.thread.id.clone();
        // The fork's harness process (a warm spare it forked in, or one started ahead) runs
        // the session the thread takes over: stopped before the swap.
        let fork_slot = self.handle(&fork_id);
        let _fork_op = fork_slot.ops.lock().await;
        self.stop_runtime(&fork_slot).await;
        row.branch_id = Some(fork_id.clone());
        let (fresh, fork) = (
            self.store().thread(thread.id()).await?,
            self.store().thread(&fork_id).await?,
        );
        match self
            .store()
            .swap_lines(&fresh, &fork, turn, SwapRecord::Rewind(row))
            .await
        {
            Ok(swapped) => {
                self.after_swap(&swapped.thread, &swapped.branch, turn)
                    .await;
                Ok(swapped.rewind)
            }
            Err(err) => {
                self.unfollow(&fork_id);
                if let Err(e) = self.store().delete_thread(&fork_id, fork.revision).await {
                    tracing::warn!(thread = %fork_id, error = %e, "could not remove a rewind's fork");
                }
                self.thread_changed(thread.id()).await;
                Err(err.into())
            }
        }
    }

    /// A branch to swap back with must still be the thread's fork after `turn`, and live.
    async fn check_branch(&self, thread: &Thread, branch: &Thread, turn: i64) -> HostResult<()> {
        branch.usable()?;
        let source_turn = self.store().turn_at(thread.id(), turn).await.ok();
        let lineage_holds = branch.row.fork.as_ref().is_some_and(|f| {
            f.source_thread == thread.id() && f.source_turn == source_turn.map(|t| t.id)
        });
        if !lineage_holds || !matches!(branch.state(), ThreadState::Ready | ThreadState::Pending) {
            return Err(HostError::Conflict(format!(
                "thread {} (the line set aside) was archived or changed since the rewind; \
                 restore it to undo",
                branch.id()
            )));
        }
        Ok(())
    }

    /// After a swap: both threads' cached readers and file watches point at the other's
    /// session, so they are dropped (a followed thread is followed again), the branch names
    /// the checkpoints it took over, and the views hear of both.
    async fn after_swap(&self, thread: &ThreadRow, branch: &ThreadRow, turn: i64) {
        for row in [thread, branch] {
            let slot = self.handle(&row.id);
            slot.reader.lock().unwrap_or_else(|e| e.into_inner()).take();
            let followed = slot
                .watch
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take()
                .is_some();
            if followed {
                if let Err(err) = self.follow(&row.id).await {
                    self.report(&row.id, &err, "following a rewound thread failed");
                }
            }
        }
        self.name_taken_checkpoints(&branch.id, std::path::Path::new(&branch.cwd), turn)
            .await;
        self.thread_changed(&thread.id).await;
        self.thread_changed(&branch.id).await;
        for child in self.store().children(&branch.id).await.unwrap_or_default() {
            self.row_changed(&child);
        }
    }

    /// Writes the folder back to `before` after a rewind that failed past its restore. Best
    /// effort: logged (the checkpoint keeps the files either way).
    async fn restore_back(&self, thread: &Thread, id: &str, before: &forkhost_worktree::Oid) {
        let Ok(repo) = self.rewind_repo(thread).await else {
            return;
        };
        let label = format!("failed-{id}");
        if let Err(err) = self
            .restore_files(thread, repo, label, before.clone())
            .await
        {
            tracing::warn!(thread = %thread.id(), error = %err, "could not write a failed rewind's files back");
        }
    }

    async fn rewound(
        &self,
        row: &RewindRow,
        files: Vec<RewindFileView>,
        kept: Vec<String>,
    ) -> HostResult<RewoundView> {
        Ok(RewoundView {
            rewind: RewindView::try_from(row)?,
            thread: self.show(&row.thread_id).await?,
            files,
            kept,
        })
    }
}
