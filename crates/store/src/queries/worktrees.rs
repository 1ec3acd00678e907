//! Worktrees: the git worktree a thread runs in, when Forkhost made one for it.

use sqlx::{Row, SqliteConnection};

use crate::{Result, WorktreeRow};

pub async fn put(conn: &mut SqliteConnection, row: &WorktreeRow) -> Result<()> {
    sqlx::query(
        "INSERT INTO worktrees (thread_id, path, branch, repo_root, base_commit) \
         VALUES (?, ?, ?, ?, ?) ON CONFLICT(thread_id) DO UPDATE SET path = excluded.path, \
         branch = excluded.branch, repo_root = excluded.repo_root, \
         base_commit = excluded.base_commit",
    )
    .bind(&row.thread_id)
    .bind(&row.path)
    .bind(&row.branch)
    .bind(&row.repo_root)
    .bind(&row.base_commit)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

pub async fn of(conn: &mut SqliteConnection, thread_id: &str) -> Result<Option<WorktreeRow>> {
    let row = sqlx::query(
        "SELECT thread_id, path, branch, repo_root, base_commit FROM worktrees \
         WHERE thread_id = ?",
    )
    .bind(thread_id)
    .fetch_optional(&mut *conn)
    .await?;
    row.map(|row| {
        Ok(WorktreeRow {
            thread_id: row.try_get("thread_id")?,
            path: row.try_get("path")?,
            branch: row.try_get("branch")?,
            repo_root: row.try_get("repo_root")?,
            base_commit: row.try_get("base_commit")?,
        })
    })
    .transpose()
}

/// Forgets the worktree (after it was removed); the thread stays.
pub async fn delete(conn: &mut SqliteConnection, thread_id: &str) -> Result<()> {
    sqlx::query("DELETE FROM worktrees WHERE thread_id = ?")
        .bind(thread_id)
        .execute(&mut *conn)
        .await?;
    Ok(())
}
