//! [`Store`]: the pool plus the operations the Host needs, each one transaction.

use std::path::{Path, PathBuf};

use sqlx::{Sqlite, SqlitePool, Transaction};

use crate::open::Recovery;
use crate::queries::{
    acp_agents, branch_origins, checkpoints, checks, grants, layout, lineage, races, remote_hosts,
    setup, threads, trust, turns, worktrees,
};
use crate::{
    CheckpointRow, GrantRow, Layout, NewThread, NewTurn, Result, ThreadRow, TurnRow, WorktreeRow,
};

/// A `creating` row older than this belongs to no live fork, whatever its pid says (pids are
/// reused, and other OSes have no cheap liveness check).
pub(crate) const CREATING_LEASE_MS: i64 = 10 * 60 * 1000;

/// The result of [`Store::open`].
#[derive(Debug)]
pub struct Opened {
    pub store: Store,
    /// Set when the file was unusable and a fresh store took its place.
    pub recovered: Option<Recovery>,
    /// The interrupted forks (`creating` rows) removed, as they were: one whose harness had
    /// already derived its session names it, for the Host to remove (the store keeps
    /// coordinates, never the harnesses' files).
    pub removed_creating: Vec<ThreadRow>,
}

/// The mapping store. Cheap to clone; all clones share one pool.
#[derive(Debug, Clone)]
pub struct Store {
    pool: SqlitePool,
    path: PathBuf,
}

impl Store {
    /// Opens (creating if needed) the store at `path`, healing it on the way: see [`Opened`].
    pub async fn open(path: impl AsRef<Path>) -> Result<Opened> {
        let path = path.as_ref();
        let (pool, recovered) = crate::open::heal(path).await?;
        let store = Store::from_pool(pool, path.to_owned());
        let removed_creating = store.remove_abandoned_creating().await?;
        if !removed_creating.is_empty() {
            tracing::info!(
                removed = removed_creating.len(),
                "removed interrupted forks"
            );
        }
        Ok(Opened {
            store,
            recovered,
            removed_creating,
        })
    }

    pub(crate) fn from_pool(pool: SqlitePool, path: PathBuf) -> Self {
        Store { pool, path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Waits for open connections to finish and closes the pool.
    pub async fn close(&self) {
        self.pool.close().await;
    }

    /// A write transaction that takes the write lock up front: a deferred transaction that
    /// upgrades later can fail with SQLITE_BUSY at once, without waiting out the busy timeout.
    pub async fn write(&self) -> Result<Transaction<'static, Sqlite>> {
        Ok(self.pool.begin_with("BEGIN IMMEDIATE").await?)
    }

    pub(crate) async fn remove_abandoned_creating(&self) -> Result<Vec<ThreadRow>> {
        let mut tx = self.write().await?;
        let ids = threads::abandoned_creating(&mut tx, CREATING_LEASE_MS).await?;
        let removed = threads::delete_creating(&mut tx, &ids).await?;
        tx.commit().await?;
        Ok(removed)
    }

    // Threads.

    pub async fn insert_thread(&self, thread: &NewThread) -> Result<ThreadRow> {
        let mut conn = self.pool.acquire().await?;
        threads::insert(&mut conn, thread).await
    }

    pub async fn thread(&self, id: &str) -> Result<ThreadRow> {
        let mut conn = self.pool.acquire().await?;
        threads::get(&mut conn, id).await
    }

    pub async fn thread_by_native(
        &self,
        harness: &str,
        native_session_id: &str,
    ) -> Result<Option<ThreadRow>> {
        let mut conn = self.pool.acquire().await?;
        threads::find_by_native(&mut conn, harness, native_session_id).await
    }

    pub async fn threads(&self) -> Result<Vec<ThreadRow>> {
        let mut conn = self.pool.acquire().await?;
        threads::list(&mut conn).await
    }

    /// Compare-and-swap update: see [`threads::update`].
    pub async fn update_thread(&self, thread: &ThreadRow) -> Result<ThreadRow> {
        let mut conn = self.pool.acquire().await?;
        threads::update(&mut conn, thread).await
    }

    pub async fn delete_thread(&self, id: &str, expected_revision: i64) -> Result<()> {
        let mut conn = self.pool.acquire().await?;
        threads::delete(&mut conn, id, expected_revision).await
    }

    /// Updates a thread and appends turn anchors in one transaction (the commit step of a fork,
    /// and of a turn that ended). The thread's revision guards both.
    pub async fn commit_thread(
        &self,
        thread: &ThreadRow,
        new_turns: &[NewTurn],
    ) -> Result<(ThreadRow, Vec<TurnRow>)> {
        let mut tx = self.write().await?;
        let updated = threads::update(&mut tx, thread).await?;
        let added = turns::append(&mut tx, &thread.id, new_turns).await?;
        tx.commit().await?;
        Ok((updated, added))
    }

    /// Brings a thread's anchors in line with its native session in one transaction: updates
    /// the thread (compare-and-swap), re-points the `changed` anchors (matched by id) at their
    /// new native coordinates, and appends `new_turns`.
    pub async fn sync_turns(
        &self,
        thread: &ThreadRow,
        changed: &[TurnRow],
        new_turns: &[NewTurn],
    ) -> Result<(ThreadRow, Vec<TurnRow>)> {
        let mut tx = self.write().await?;
        let updated = threads::update(&mut tx, thread).await?;
        for turn in changed {
            if turn.thread_id != thread.id {
                return Err(crate::StoreError::InvalidInput(format!(
                    "turn {} is not in thread {}",
                    turn.id, thread.id
                )));
            }
            turns::set_native(
                &mut tx,
                &turn.id,
                &turn.native_turn_ref,
                turn.native_checkpoint_ref.as_deref(),
            )
            .await?;
        }
        let added = turns::append(&mut tx, &thread.id, new_turns).await?;
        tx.commit().await?;
        Ok((updated, added))
    }

    /// Appends turn anchors to a thread whose revision is still `expected_revision`; returns the
    /// new revision and the stored anchors.
    pub async fn append_turns(
        &self,
        thread_id: &str,
        expected_revision: i64,
        new_turns: &[NewTurn],
    ) -> Result<(i64, Vec<TurnRow>)> {
        let mut tx = self.write().await?;
        let revision = threads::touch(&mut tx, thread_id, expected_revision).await?;
        let added = turns::append(&mut tx, thread_id, new_turns).await?;
        tx.commit().await?;
        Ok((revision, added))
    }

    // Turns.

    pub async fn turns(&self, thread_id: &str) -> Result<Vec<TurnRow>> {
        let mut conn = self.pool.acquire().await?;
        turns::list(&mut conn, thread_id).await
    }

    pub async fn turn(&self, id: &str) -> Result<TurnRow> {
        let mut conn = self.pool.acquire().await?;
        turns::get(&mut conn, id).await
    }

    /// Points turn `id`'s checkpoint at `checkpoint`: an ACP agent's snapshot of the session as
    /// the turn left it, which only Forkhost keeps (its session records none).
    pub async fn set_turn_checkpoint(&self, id: &str, checkpoint: &str) -> Result<()> {
        let mut tx = self.write().await?;
        turns::set_checkpoint(&mut tx, id, Some(checkpoint)).await?;
        tx.commit().await?;
        Ok(())
    }

    pub async fn turn_at(&self, thread_id: &str, ordinal: i64) -> Result<TurnRow> {
        let mut conn = self.pool.acquire().await?;
        turns::by_ordinal(&mut conn, thread_id, ordinal).await
    }

    // Lineage.

    pub async fn children(&self, thread_id: &str) -> Result<Vec<ThreadRow>> {
        let mut conn = self.pool.acquire().await?;
        lineage::children(&mut conn, thread_id).await
    }

    /// Each fork's first own turn as `(fork id, native turn ref)`; of one fork when given.
    pub async fn first_own_turns(&self, thread_id: Option<&str>) -> Result<Vec<(String, String)>> {
        let mut conn = self.pool.acquire().await?;
        lineage::first_own_turns(&mut conn, thread_id).await
    }

    /// Each fork's source turn number as `(fork id, number)`; of one fork when given.
    pub async fn source_turn_numbers(&self, thread_id: Option<&str>) -> Result<Vec<(String, i64)>> {
        let mut conn = self.pool.acquire().await?;
        lineage::source_turn_numbers(&mut conn, thread_id).await
    }

    pub async fn forks_of_turn(&self, turn_id: &str) -> Result<Vec<ThreadRow>> {
        let mut conn = self.pool.acquire().await?;
        lineage::forks_of_turn(&mut conn, turn_id).await
    }

    pub async fn ancestors(&self, thread_id: &str) -> Result<Vec<ThreadRow>> {
        let mut conn = self.pool.acquire().await?;
        lineage::ancestors(&mut conn, thread_id).await
    }

    // Session grants.

    /// Records a grant (the same scope twice keeps the first, whose row is returned).
    pub async fn add_grant(&self, row: &GrantRow) -> Result<GrantRow> {
        let mut conn = self.pool.acquire().await?;
        grants::add(&mut conn, row).await
    }

    pub async fn grants(&self, thread_id: &str) -> Result<Vec<GrantRow>> {
        let mut conn = self.pool.acquire().await?;
        grants::of(&mut conn, thread_id).await
    }

    /// Removes one grant; whether the thread had it.
    pub async fn revoke_grant(&self, thread_id: &str, id: &str) -> Result<bool> {
        let mut conn = self.pool.acquire().await?;
        grants::revoke(&mut conn, thread_id, id).await
    }

    // File checkpoints and worktrees.

    pub async fn put_checkpoint(&self, row: &CheckpointRow) -> Result<()> {
        let mut conn = self.pool.acquire().await?;
        checkpoints::put(&mut conn, row).await
    }

    pub async fn checkpoints(&self, thread_id: &str) -> Result<Vec<CheckpointRow>> {
        let mut conn = self.pool.acquire().await?;
        checkpoints::of(&mut conn, thread_id).await
    }

    pub async fn copy_checkpoints(&self, from: &str, to: &str, upto: i64) -> Result<()> {
        let mut conn = self.pool.acquire().await?;
        checkpoints::copy(&mut conn, from, to, upto).await
    }

    pub async fn checkpoints_shared(&self, thread_id: &str) -> Result<bool> {
        let mut conn = self.pool.acquire().await?;
        checkpoints::shared(&mut conn, thread_id).await
    }

    pub async fn forget_checkpoints(&self, thread_id: &str) -> Result<()> {
        let mut conn = self.pool.acquire().await?;
        checkpoints::delete(&mut conn, thread_id).await
    }

    pub async fn put_worktree(&self, row: &WorktreeRow) -> Result<()> {
        let mut conn = self.pool.acquire().await?;
        worktrees::put(&mut conn, row).await
    }

    pub async fn worktree(&self, thread_id: &str) -> Result<Option<WorktreeRow>> {
        let mut conn = self.pool.acquire().await?;
        worktrees::of(&mut conn, thread_id).await
    }

    pub async fn forget_worktree(&self, thread_id: &str) -> Result<()> {
        let mut conn = self.pool.acquire().await?;
        worktrees::delete(&mut conn, thread_id).await
    }

    // Races.

    pub async fn put_race_lane(&self, row: &races::RaceLaneRow) -> Result<()> {
        let mut conn = self.pool.acquire().await?;
        races::put(&mut conn, row).await
    }

    /// The lanes of the race `thread_id` is a lane of (empty when it is none), by lane.
    pub async fn race_of_lane(&self, thread_id: &str) -> Result<Vec<races::RaceLaneRow>> {
        let mut conn = self.pool.acquire().await?;
        races::of_lane(&mut conn, thread_id).await
    }

    // Repository checks.

    pub async fn check_command(&self, repo_root: &str) -> Result<Option<String>> {
        let mut conn = self.pool.acquire().await?;
        checks::of(&mut conn, repo_root).await
    }

    pub async fn set_check_command(&self, repo_root: &str, command: Option<&str>) -> Result<()> {
        let mut conn = self.pool.acquire().await?;
        checks::set(&mut conn, repo_root, command).await
    }

    /// Records the user's approval of exactly `command` in the repository `repo_id` names.
    pub async fn approve_check(
        &self,
        repo_root: &str,
        command: &str,
        repo_id: Option<&str>,
    ) -> Result<()> {
        let mut conn = self.pool.acquire().await?;
        checks::approve(&mut conn, repo_root, command, repo_id).await
    }

    /// The identity recorded with the approval of exactly `command` (outer `None`: none).
    pub async fn check_approval(
        &self,
        repo_root: &str,
        command: &str,
    ) -> Result<Option<Option<String>>> {
        let mut conn = self.pool.acquire().await?;
        checks::approval(&mut conn, repo_root, command).await
    }

    // Repository setup.

    pub async fn setup_command(&self, repo_root: &str) -> Result<Option<String>> {
        let mut conn = self.pool.acquire().await?;
        setup::of(&mut conn, repo_root).await
    }

    /// The command and the identity of the repository it was saved for.
    pub async fn setup_with_identity(
        &self,
        repo_root: &str,
    ) -> Result<Option<(String, Option<String>)>> {
        let mut conn = self.pool.acquire().await?;
        setup::with_identity(&mut conn, repo_root).await
    }

    /// Saves (or with `None`, removes) the command, for the repository `repo_id` names.
    pub async fn set_setup_command(
        &self,
        repo_root: &str,
        command: Option<&str>,
        repo_id: Option<&str>,
    ) -> Result<()> {
        let mut conn = self.pool.acquire().await?;
        setup::set(&mut conn, repo_root, command, repo_id).await
    }

    // Folder trust.

    pub async fn folder_trust(&self, folder: &str) -> Result<Option<trust::TrustRow>> {
        let mut conn = self.pool.acquire().await?;
        trust::of(&mut conn, folder).await
    }

    /// Every folder-trust decision, by folder.
    pub async fn folder_trusts(&self) -> Result<Vec<trust::TrustRow>> {
        let mut conn = self.pool.acquire().await?;
        trust::all(&mut conn).await
    }

    pub async fn set_folder_trust(
        &self,
        folder: &str,
        trusted: bool,
        fingerprint: &str,
    ) -> Result<()> {
        let mut tx = self.write().await?;
        trust::set(&mut tx, folder, trusted, fingerprint).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Forgets the decision for `folder` (asked again next time); whether there was one.
    pub async fn revoke_folder_trust(&self, folder: &str) -> Result<bool> {
        let mut tx = self.write().await?;
        let gone = trust::delete(&mut tx, folder).await?;
        tx.commit().await?;
        Ok(gone)
    }

    // ACP agents a user added.

    pub async fn acp_agents(&self) -> Result<Vec<acp_agents::AcpAgentRow>> {
        let mut conn = self.pool.acquire().await?;
        acp_agents::all(&mut conn).await
    }

    /// Adds the agent `name` with `command` (a JSON array), or replaces its command.
    pub async fn put_acp_agent(&self, name: &str, command: &str) -> Result<()> {
        let mut tx = self.write().await?;
        acp_agents::put(&mut tx, name, command).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Forgets the agent `name`; whether there was one.
    pub async fn remove_acp_agent(&self, name: &str) -> Result<bool> {
        let mut tx = self.write().await?;
        let gone = acp_agents::delete(&mut tx, name).await?;
        tx.commit().await?;
        Ok(gone)
    }

    // Threads continued here from another machine.

    /// Where `thread_id` was continued from, when it came from another machine.
    pub async fn branch_origin(
        &self,
        thread_id: &str,
    ) -> Result<Option<branch_origins::BranchOriginRow>> {
        let mut conn = self.pool.acquire().await?;
        branch_origins::of(&mut conn, thread_id).await
    }

    pub async fn put_branch_origin(&self, row: &branch_origins::BranchOriginRow) -> Result<()> {
        let mut tx = self.write().await?;
        branch_origins::put(&mut tx, row).await?;
        tx.commit().await?;
        Ok(())
    }

    // Remote hosts.

    pub async fn remote_hosts(&self) -> Result<Vec<remote_hosts::RemoteHostRow>> {
        let mut conn = self.pool.acquire().await?;
        remote_hosts::all(&mut conn).await
    }

    pub async fn remote_host(&self, name: &str) -> Result<Option<remote_hosts::RemoteHostRow>> {
        let mut conn = self.pool.acquire().await?;
        remote_hosts::of(&mut conn, name).await
    }

    pub async fn put_remote_host(&self, row: &remote_hosts::RemoteHostRow) -> Result<()> {
        let mut tx = self.write().await?;
        remote_hosts::put(&mut tx, row).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Forgets the host `name`; whether there was one.
    pub async fn remove_remote_host(&self, name: &str) -> Result<bool> {
        let mut tx = self.write().await?;
        let gone = remote_hosts::delete(&mut tx, name).await?;
        tx.commit().await?;
        Ok(gone)
    }

    // Layout.

    pub async fn layout(&self) -> Result<Layout> {
        let mut conn = self.pool.acquire().await?;
        layout::load(&mut conn).await
    }

    pub async fn save_layout(&self, value: &Layout) -> Result<()> {
        let mut tx = self.write().await?;
        layout::replace(&mut tx, value).await?;
        tx.commit().await?;
        Ok(())
    }
}
