//! Session grants: the rules a user approved "for this session" in a thread.

use sqlx::SqliteConnection;

use crate::Result;

/// Records a rule (once).
pub async fn add(conn: &mut SqliteConnection, thread_id: &str, rule: &str) -> Result<()> {
    sqlx::query("INSERT OR IGNORE INTO session_grants (thread_id, rule) VALUES (?, ?)")
        .bind(thread_id)
        .bind(rule)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// A thread's rules, in a stable order.
pub async fn of(conn: &mut SqliteConnection, thread_id: &str) -> Result<Vec<String>> {
    Ok(
        sqlx::query_scalar("SELECT rule FROM session_grants WHERE thread_id = ? ORDER BY rule")
            .bind(thread_id)
            .fetch_all(&mut *conn)
            .await?,
    )
}

/// Gives `to` every rule of `from` (a fork starts with its source's grants).
pub async fn copy(conn: &mut SqliteConnection, from: &str, to: &str) -> Result<()> {
    sqlx::query(
        "INSERT OR IGNORE INTO session_grants (thread_id, rule) \
         SELECT ?, rule FROM session_grants WHERE thread_id = ?",
    )
    .bind(to)
    .bind(from)
    .execute(&mut *conn)
    .await?;
    Ok(())
}
