//! Repository setup: the command run once in each new fork worktree of a repository.

use sqlx::SqliteConnection;

use crate::Result;

pub async fn of(conn: &mut SqliteConnection, repo_root: &str) -> Result<Option<String>> {
    Ok(
        sqlx::query_scalar("SELECT command FROM repository_setup WHERE repo_root = ?")
            .bind(repo_root)
            .fetch_optional(&mut *conn)
            .await?,
    )
}

/// Sets the command; `None` (or an empty one) removes it.
pub async fn set(
    conn: &mut SqliteConnection,
    repo_root: &str,
    command: Option<&str>,
) -> Result<()> {
    match command.map(str::trim).filter(|c| !c.is_empty()) {
        Some(command) => {
            sqlx::query(
                "INSERT INTO repository_setup (repo_root, command) VALUES (?, ?) \
                 ON CONFLICT(repo_root) DO UPDATE SET command = excluded.command",
            )
            .bind(repo_root)
            .bind(command)
            .execute(&mut *conn)
            .await?;
        }
        None => {
            sqlx::query("DELETE FROM repository_setup WHERE repo_root = ?")
                .bind(repo_root)
                .execute(&mut *conn)
                .await?;
        }
    }
    Ok(())
}
