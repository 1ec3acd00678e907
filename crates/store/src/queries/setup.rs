//! Repository setup: the command run once in each new fork worktree of a repository.

use sqlx::SqliteConnection;

use crate::Result;

pub async fn of(conn: &mut SqliteConnection, repo_root: &str) -> Result<Option<String>> {
    Ok(with_identity(conn, repo_root)
        .await?
        .map(|(command, _)| command))
}

/// The command and the identity of the repository it was saved for (`None`: unknown).
pub async fn with_identity(
    conn: &mut SqliteConnection,
    repo_root: &str,
) -> Result<Option<(String, Option<String>)>> {
    Ok(
        sqlx::query_as("SELECT command, repo_id FROM repository_setup WHERE repo_root = ?")
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
    repo_id: Option<&str>,
) -> Result<()> {
    match command.map(str::trim).filter(|c| !c.is_empty()) {
        Some(command) => {
            sqlx::query(
                "INSERT INTO repository_setup (repo_root, command, repo_id) VALUES (?, ?, ?) \
                 ON CONFLICT(repo_root) DO UPDATE SET command = excluded.command, \
                 repo_id = excluded.repo_id",
            )
            .bind(repo_root)
            .bind(command)
            .bind(repo_id)
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
