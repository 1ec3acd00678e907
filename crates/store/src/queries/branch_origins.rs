//! The `branch_origins` table: for a thread continued here from another machine, that machine
//! and the thread there it came from.

use sqlx::SqliteConnection;

use crate::Result;

#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct BranchOriginRow {
    pub thread_id: String,
    /// The machine's name, as the one that carried the branch named it.
    pub from_host: String,
    /// The thread's id there.
    pub from_thread: String,
    pub from_title: String,
    /// How many of its turns came along.
    pub turns: i64,
    pub moved_at: i64,
}

pub async fn of(conn: &mut SqliteConnection, thread_id: &str) -> Result<Option<BranchOriginRow>> {
    Ok(sqlx::query_as::<_, BranchOriginRow>(
        "SELECT thread_id, from_host, from_thread, from_title, turns, moved_at \
         FROM branch_origins WHERE thread_id = ?",
    )
    .bind(thread_id)
    .fetch_optional(&mut *conn)
    .await?)
}

/// Records where `row.thread_id` came from (moved now), over any earlier record.
pub async fn put(conn: &mut SqliteConnection, row: &BranchOriginRow) -> Result<()> {
    sqlx::query(
        "INSERT INTO branch_origins (thread_id, from_host, from_thread, from_title, turns, moved_at) \
         VALUES (?, ?, ?, ?, ?, ?) \
         ON CONFLICT(thread_id) DO UPDATE SET from_host = excluded.from_host, \
         from_thread = excluded.from_thread, from_title = excluded.from_title, \
         turns = excluded.turns, moved_at = excluded.moved_at",
    )
    .bind(&row.thread_id)
    .bind(&row.from_host)
    .bind(&row.from_thread)
    .bind(&row.from_title)
    .bind(row.turns)
    .bind(row.moved_at)
    .execute(&mut *conn)
    .await?;
    Ok(())
}
