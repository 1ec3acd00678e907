//! Lineage: which threads were forked from which, read from the fork columns of `threads`.

use sqlx::{Row, SqliteConnection};

use super::threads::{from_row, COLUMNS};
use crate::{Result, ThreadRow};

/// Forks made directly from a thread, oldest first.
pub async fn children(conn: &mut SqliteConnection, thread_id: &str) -> Result<Vec<ThreadRow>> {
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM threads WHERE fork_source_thread = ? AND state != 'creating' \
         ORDER BY created_at, id"
    ))
    .bind(thread_id)
    .fetch_all(&mut *conn)
    .await?;
    rows.iter().map(from_row).collect()
}

/// Forks cut at a given turn (for the chip on a source message).
pub async fn forks_of_turn(conn: &mut SqliteConnection, turn_id: &str) -> Result<Vec<ThreadRow>> {
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM threads WHERE fork_source_turn = ? AND state != 'creating' \
         ORDER BY created_at, id"
    ))
    .bind(turn_id)
    .fetch_all(&mut *conn)
    .await?;
    rows.iter().map(from_row).collect()
}

/// The chain of sources above a thread, nearest first. Bounded so that a cycle written by hand
/// into the file cannot loop forever.
pub async fn ancestors(conn: &mut SqliteConnection, thread_id: &str) -> Result<Vec<ThreadRow>> {
    let rows = sqlx::query(&format!(
        "WITH RECURSIVE up(source_id, depth) AS ( \
             SELECT fork_source_thread, 1 FROM threads WHERE id = ? \
             UNION ALL \
             SELECT t.fork_source_thread, up.depth + 1 FROM threads t \
             JOIN up ON t.id = up.source_id WHERE up.depth < 1000 \
         ) \
         SELECT {COLUMNS} FROM threads JOIN up ON threads.id = up.source_id ORDER BY up.depth"
    ))
    .bind(thread_id)
    .fetch_all(&mut *conn)
    .await?;
    rows.iter().map(from_row).collect()
}

/// Each fork's first own turn (the one after the turns it inherited, whose prompt names it), as
/// `(fork id, native turn ref)`; of one fork when `thread_id` is given. A fork whose source turn
/// is gone, or with no own turn yet, has none.
pub async fn first_own_turns(
    conn: &mut SqliteConnection,
    thread_id: Option<&str>,
) -> Result<Vec<(String, String)>> {
    let rows = sqlx::query(
        "SELECT f.id AS fork_id, t.native_turn_ref AS native_turn_ref FROM threads f \
         JOIN turns s ON s.id = f.fork_source_turn \
         JOIN turns t ON t.thread_id = f.id \
              AND t.ordinal = s.ordinal + (CASE f.fork_boundary WHEN 'before' THEN 0 ELSE 1 END) \
         WHERE f.fork_source_thread IS NOT NULL AND (?1 IS NULL OR f.id = ?1)",
    )
    .bind(thread_id)
    .fetch_all(&mut *conn)
    .await?;
    rows.iter()
        .map(|r| Ok((r.try_get("fork_id")?, r.try_get("native_turn_ref")?)))
        .collect()
}

/// Each fork's source turn as a 1-based number in its source, as `(fork id, number)`; of one
/// fork when `thread_id` is given. A fork whose source turn is gone has none.
pub async fn source_turn_numbers(
    conn: &mut SqliteConnection,
    thread_id: Option<&str>,
) -> Result<Vec<(String, i64)>> {
    let rows = sqlx::query(
        "SELECT f.id AS fork_id, s.ordinal AS ordinal FROM threads f \
         JOIN turns s ON s.id = f.fork_source_turn \
         WHERE f.fork_source_thread IS NOT NULL AND (?1 IS NULL OR f.id = ?1)",
    )
    .bind(thread_id)
    .fetch_all(&mut *conn)
    .await?;
    rows.iter()
        .map(|r| Ok((r.try_get("fork_id")?, r.try_get("ordinal")?)))
        .collect()
}
