//! The `acp_agents` table: the ACP agents a user added, by name, with their command.

use sqlx::SqliteConnection;

use crate::Result;

#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct AcpAgentRow {
    pub name: String,
    /// The program and its arguments, a JSON array of strings.
    pub command: String,
    pub added_at: i64,
}

pub async fn all(conn: &mut SqliteConnection) -> Result<Vec<AcpAgentRow>> {
    Ok(sqlx::query_as::<_, AcpAgentRow>(
        "SELECT name, command, added_at FROM acp_agents ORDER BY name",
    )
    .fetch_all(&mut *conn)
    .await?)
}

/// Adds the agent `name` (added now), or replaces its command (keeping when it was added).
pub async fn put(conn: &mut SqliteConnection, name: &str, command: &str) -> Result<()> {
    sqlx::query(
        "INSERT INTO acp_agents (name, command, added_at) VALUES (?, ?, ?) \
         ON CONFLICT(name) DO UPDATE SET command = excluded.command",
    )
    .bind(name)
    .bind(command)
    .bind(crate::time::now_ms())
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Forgets the agent `name`; whether there was one.
pub async fn delete(conn: &mut SqliteConnection, name: &str) -> Result<bool> {
    let done = sqlx::query("DELETE FROM acp_agents WHERE name = ?")
        .bind(name)
        .execute(&mut *conn)
        .await?;
    Ok(done.rows_affected() > 0)
}
