//! Repository checks: the command run in each race lane's folder when its turn ends, and the
//! exact texts the user approved to run.

use sqlx::SqliteConnection;

use crate::time::now_ms;
use crate::Result;

pub async fn of(conn: &mut SqliteConnection, repo_root: &str) -> Result<Option<String>> {
    Ok(
        sqlx::query_scalar("SELECT command FROM repository_check WHERE repo_root = ?")
            .bind(repo_root)
            .fetch_optional(&mut *conn)
            .await?,
    )
}

/// Sets the command; `None` (or an empty one) removes it. Approvals are kept: they are of
/// texts, and a text approved once stays approved.
pub async fn set(
    conn: &mut SqliteConnection,
    repo_root: &str,
    command: Option<&str>,
) -> Result<()> {
    match command.map(str::trim).filter(|c| !c.is_empty()) {
        Some(command) => {
            sqlx::query(
                "INSERT INTO repository_check (repo_root, command) VALUES (?, ?) \
                 ON CONFLICT(repo_root) DO UPDATE SET command = excluded.command",
            )
            .bind(repo_root)
            .bind(command)
            .execute(&mut *conn)
            .await?;
        }
        None => {
            sqlx::query("DELETE FROM repository_check WHERE repo_root = ?")
                .bind(repo_root)
                .execute(&mut *conn)
                .await?;
        }
    }
    Ok(())
}

/// Records that the user approved running exactly `command` there.
pub async fn approve(
    conn: &mut SqliteConnection,
    repo_root: &str,
    command: &str,
    repo_id: Option<&str>,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO check_approvals (repo_root, command, repo_id, approved_at) VALUES (?, ?, ?, ?) \
         ON CONFLICT(repo_root, command) DO UPDATE SET repo_id = excluded.repo_id, \
         approved_at = excluded.approved_at",
    )
    .bind(repo_root)
    .bind(command)
    .bind(repo_id)
    .bind(now_ms())
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// The identity recorded with the approval of exactly `command` (outer `None`: not approved).
pub async fn approval(
    conn: &mut SqliteConnection,
    repo_root: &str,
    command: &str,
) -> Result<Option<Option<String>>> {
    Ok(sqlx::query_scalar(
        "SELECT repo_id FROM check_approvals WHERE repo_root = ? AND command = ?",
    )
    .bind(repo_root)
    .bind(command)
    .fetch_optional(&mut *conn)
    .await?)
}
