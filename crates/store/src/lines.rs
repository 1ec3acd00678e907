//! Swapping two threads' lines (a rewind and its undo, docs/architecture.md "Rewind"): a
//! thread and a fork of it after turn T trade their native sessions and everything after T,
//! in one transaction guarded by both revisions. Each keeps its id, title, folder, tabs and
//! lineage; turns 1..T keep their host ids (the same conversation in both) and take the other
//! session's coordinates; the turns after T move with their ids, their checkpoints, and the
//! forks cut from them; the session grants move with the session that earned them.

use sqlx::SqliteConnection;

use crate::queries::rewinds::{self, RewindRow};
use crate::queries::{grants, threads, turns};
use crate::time::now_ms;
use crate::{Result, Store, StoreError, ThreadRow, ThreadState, TurnRow};

/// Ordinals are parked this far up while two threads trade turns (unique per thread).
const PARKED: i64 = 1_000_000_000;

/// What a swap records beside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SwapRecord {
    /// A new rewind (its `branch_id` is the branch swapped with).
    Rewind(RewindRow),
    /// The undo of this rewind, with the folder's checkpoint taken before it.
    Undo {
        rewind_id: String,
        files_before_undo: Option<String>,
    },
}

/// The two threads after a swap, and the rewind row it recorded or undid.
#[derive(Debug, Clone)]
pub struct Swapped {
    pub thread: ThreadRow,
    pub branch: ThreadRow,
    pub rewind: RewindRow,
}

impl Store {
    /// Swaps the lines of `thread` and `branch` (a fork of it after turn `turn`, 1-based) and
    /// records `record`, in one transaction. Both rows must still be at the revisions given
    /// (else [`StoreError::Conflict`], nothing changed); both must hold at least `turn` turns.
    pub async fn swap_lines(
        &self,
        thread: &ThreadRow,
        branch: &ThreadRow,
        turn: i64,
        record: SwapRecord,
    ) -> Result<Swapped> {
        let mut tx = self.write().await?;
        let x_turns = turns::list(&mut tx, &thread.id).await?;
        let b_turns = turns::list(&mut tx, &branch.id).await?;
        if turn < 1 || x_turns.len() < turn as usize || b_turns.len() < turn as usize {
            return Err(StoreError::InvalidInput(format!(
                "threads {} and {} do not both hold turn {turn}",
                thread.id, branch.id
            )));
        }
        let (thread_row, branch_row) = swap_sessions(&mut tx, thread, branch).await?;
        trade_later_turns(&mut tx, &thread.id, &branch.id, turn).await?;
        let n = turn as usize;
        trade_coordinates(&mut tx, &x_turns[..n], &b_turns[..n]).await?;
        trade_checkpoints(&mut tx, &thread.id, &branch.id).await?;
        grants::trade(&mut tx, &thread.id, &branch.id).await?;
        follow_moved_forks(&mut tx, &thread.id, &branch.id, turn).await?;
        let rewind = match record {
            SwapRecord::Rewind(row) => rewinds::put(&mut tx, &row).await?,
            SwapRecord::Undo {
                rewind_id,
                files_before_undo,
            } => undo(&mut tx, &rewind_id, files_before_undo.as_deref()).await?,
        };
        tx.commit().await?;
        Ok(Swapped {
            thread: thread_row,
            branch: branch_row,
            rewind,
        })
    }

    /// Records a rewind that swapped no lines (files only).
    pub async fn put_rewind(&self, row: &RewindRow) -> Result<RewindRow> {
        let mut tx = self.write().await?;
        let row = rewinds::put(&mut tx, row).await?;
        tx.commit().await?;
        Ok(row)
    }

    /// Marks a files-only rewind undone; a rewind undone meanwhile is `Conflict`.
    pub async fn undo_rewind(
        &self,
        rewind_id: &str,
        files_before_undo: Option<&str>,
    ) -> Result<RewindRow> {
        let mut tx = self.write().await?;
        let row = undo(&mut tx, rewind_id, files_before_undo).await?;
        tx.commit().await?;
        Ok(row)
    }

    /// The thread's latest rewind not undone yet.
    pub async fn last_rewind(&self, thread_id: &str) -> Result<Option<RewindRow>> {
        let mut tx = self.write().await?;
        rewinds::last_open(&mut tx, thread_id).await
    }

    /// A thread's rewinds and those whose branch it is, newest first.
    pub async fn rewinds_of(&self, thread_id: &str) -> Result<Vec<RewindRow>> {
        let mut tx = self.write().await?;
        rewinds::of_thread(&mut tx, thread_id).await
    }

    /// Every thread a rewind (or its undo) set aside as a branch.
    pub async fn rewound_branches(&self) -> Result<Vec<String>> {
        let mut tx = self.write().await?;
        rewinds::branches(&mut tx).await
    }
}

async fn undo(
    conn: &mut SqliteConnection,
    rewind_id: &str,
    files_before_undo: Option<&str>,
) -> Result<RewindRow> {
    if !rewinds::mark_undone(conn, rewind_id, files_before_undo).await? {
        return Err(StoreError::InvalidInput(format!(
            "rewind {rewind_id} is not there to undo (undone already?)"
        )));
    }
    let row: Option<RewindRow> = rewinds::get(conn, rewind_id).await?;
    row.ok_or_else(|| StoreError::InvalidInput(format!("rewind {rewind_id} not found")))
}

/// The threads trade native session, file and pending-fork record (and with them `ready` or
/// `pending`). The branch's session id is cleared first: a native session belongs to one
/// thread (unique per harness), and only the id is unique; the rest is overwritten below.
async fn swap_sessions(
    conn: &mut SqliteConnection,
    thread: &ThreadRow,
    branch: &ThreadRow,
) -> Result<(ThreadRow, ThreadRow)> {
    let live = |s: ThreadState| matches!(s, ThreadState::Ready | ThreadState::Pending);
    if !live(thread.state) || !live(branch.state) {
        return Err(StoreError::InvalidInput(format!(
            "threads {} ({}) and {} ({}) must both be ready to trade their lines",
            thread.id, thread.state, branch.id, branch.state
        )));
    }
    let cleared = threads::update(
        conn,
        &ThreadRow {
            native_session_id: None,
            ..branch.clone()
        },
    )
    .await?;
    let thread_row = threads::update(
        conn,
        &ThreadRow {
            native_session_id: branch.native_session_id.clone(),
            native_path: branch.native_path.clone(),
            pending_fork: branch.pending_fork.clone(),
            state: branch.state,
            ..thread.clone()
        },
    )
    .await?;
    let branch_row = threads::update(
        conn,
        &ThreadRow {
            native_session_id: thread.native_session_id.clone(),
            native_path: thread.native_path.clone(),
            pending_fork: thread.pending_fork.clone(),
            state: thread.state,
            ..cleared
        },
    )
    .await?;
    Ok((thread_row, branch_row))
}

/// The turns after `turn` change threads, ids and all (parked out of the way first: a thread's
/// ordinals are unique).
async fn trade_later_turns(conn: &mut SqliteConnection, x: &str, b: &str, turn: i64) -> Result<()> {
    sqlx::query("UPDATE turns SET ordinal = ordinal + ? WHERE thread_id = ? AND ordinal > ?")
        .bind(PARKED)
        .bind(x)
        .bind(turn)
        .execute(&mut *conn)
        .await?;
    sqlx::query("UPDATE turns SET thread_id = ? WHERE thread_id = ? AND ordinal > ?")
        .bind(x)
        .bind(b)
        .bind(turn)
        .execute(&mut *conn)
        .await?;
    sqlx::query(
        "UPDATE turns SET thread_id = ?, ordinal = ordinal - ? WHERE thread_id = ? AND ordinal > ?",
    )
    .bind(b)
    .bind(PARKED)
    .bind(x)
    .bind(PARKED)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Turns 1..T keep their ids and trade native coordinates (each takes the other session's).
/// Every ref is first made unique, so no step meets a ref another row still holds.
async fn trade_coordinates(
    conn: &mut SqliteConnection,
    x: &[TurnRow],
    b: &[TurnRow],
) -> Result<()> {
    for t in x.iter().chain(b) {
        turns::set_native(conn, &t.id, &format!("~{}", t.id), None).await?;
    }
    for (xt, bt) in x.iter().zip(b) {
        turns::set_native(
            conn,
            &xt.id,
            &bt.native_turn_ref,
            bt.native_checkpoint_ref.as_deref(),
        )
        .await?;
        turns::set_native(
            conn,
            &bt.id,
            &xt.native_turn_ref,
            xt.native_checkpoint_ref.as_deref(),
        )
        .await?;
    }
    Ok(())
}

/// File checkpoints follow their turns. Those of turns 1..T are the same commits in both (a
/// fork copies its source's), so all of them trade places.
async fn trade_checkpoints(conn: &mut SqliteConnection, x: &str, b: &str) -> Result<()> {
    sqlx::query("UPDATE checkpoints SET turn_ordinal = turn_ordinal + ? WHERE thread_id = ?")
        .bind(PARKED)
        .bind(x)
        .execute(&mut *conn)
        .await?;
    sqlx::query("UPDATE checkpoints SET thread_id = ? WHERE thread_id = ?")
        .bind(x)
        .bind(b)
        .execute(&mut *conn)
        .await?;
    sqlx::query(
        "UPDATE checkpoints SET thread_id = ?, turn_ordinal = turn_ordinal - ? \
         WHERE thread_id = ? AND turn_ordinal > ?",
    )
    .bind(b)
    .bind(PARKED)
    .bind(x)
    .bind(PARKED)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// A fork cut from a turn after T follows that turn to the thread that holds it now.
async fn follow_moved_forks(
    conn: &mut SqliteConnection,
    x: &str,
    b: &str,
    turn: i64,
) -> Result<()> {
    sqlx::query(
        "UPDATE threads SET fork_source_thread = \
             (SELECT thread_id FROM turns WHERE turns.id = threads.fork_source_turn), \
             revision = revision + 1, updated_at = ?1 \
         WHERE fork_source_thread IN (?2, ?3) AND id NOT IN (?2, ?3) AND fork_source_turn IN \
             (SELECT id FROM turns WHERE thread_id IN (?2, ?3) AND ordinal > ?4)",
    )
    .bind(now_ms())
    .bind(x)
    .bind(b)
    .bind(turn)
    .execute(&mut *conn)
    .await?;
    Ok(())
}
