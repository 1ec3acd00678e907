//! File checkpoints: the commit recording a thread's working tree at a turn's start or end.

use sqlx::{Row, SqliteConnection};

use crate::{CheckpointRow, Edge, Result};

/// Records (or replaces) the checkpoint of a turn's edge.
pub async fn put(conn: &mut SqliteConnection, row: &CheckpointRow) -> Result<()> {
    sqlx::query(
        "INSERT INTO checkpoints (thread_id, turn_ordinal, edge, commit_id, created_at) \
         VALUES (?, ?, ?, ?, ?) ON CONFLICT(thread_id, turn_ordinal, edge) \
         DO UPDATE SET commit_id = excluded.commit_id, created_at = excluded.created_at",
    )
    .bind(&row.thread_id)
    .bind(row.turn_ordinal)
    .bind(row.edge.as_str())
    .bind(&row.commit_id)
    .bind(crate::time::now_ms())
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// A thread's checkpoints, by turn then edge (start before end).
pub async fn of(conn: &mut SqliteConnection, thread_id: &str) -> Result<Vec<CheckpointRow>> {
    let rows = sqlx::query(
        "SELECT thread_id, turn_ordinal, edge, commit_id FROM checkpoints WHERE thread_id = ? \
         ORDER BY turn_ordinal, edge DESC",
    )
    .bind(thread_id)
    .fetch_all(&mut *conn)
    .await?;
    rows.iter()
        .map(|row| {
            let edge: String = row.try_get("edge")?;
            Ok(CheckpointRow {
                thread_id: row.try_get("thread_id")?,
                turn_ordinal: row.try_get("turn_ordinal")?,
                edge: Edge::parse(&edge)?,
                commit_id: row.try_get("commit_id")?,
            })
        })
        .collect()
}

/// Gives `to` the checkpoints of `from`'s turns `1..=upto` (a fork keeps its source's files
/// history for the turns it keeps).
pub async fn copy(conn: &mut SqliteConnection, from: &str, to: &str, upto: i64) -> Result<()> {
    sqlx::query(
        "INSERT OR IGNORE INTO checkpoints (thread_id, turn_ordinal, edge, commit_id, created_at) \
         SELECT ?, turn_ordinal, edge, commit_id, created_at FROM checkpoints \
         WHERE thread_id = ? AND turn_ordinal <= ?",
    )
    .bind(to)
    .bind(from)
    .bind(upto)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Whether another thread's checkpoints share a commit with `thread_id`'s (a fork keeps its
/// source's for the turns it kept): then that commit must stay reachable.
pub async fn shared(conn: &mut SqliteConnection, thread_id: &str) -> Result<bool> {
    let count: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM checkpoints WHERE thread_id != ? AND commit_id IN \
         (SELECT commit_id FROM checkpoints WHERE thread_id = ?)",
    )
    .bind(thread_id)
    .bind(thread_id)
    .fetch_one(&mut *conn)
    .await?;
    Ok(count > 0)
}

/// Forgets a thread's checkpoints (after their refs were pruned).
pub async fn delete(conn: &mut SqliteConnection, thread_id: &str) -> Result<()> {
    sqlx::query("DELETE FROM checkpoints WHERE thread_id = ?")
        .bind(thread_id)
        .execute(&mut *conn)
        .await?;
    Ok(())
}
