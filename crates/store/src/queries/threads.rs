//! The `threads` table. Every change compare-and-swaps `revision`.

use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};

use crate::time::now_ms;
use crate::{Boundary, Lineage, NewThread, Result, StoreError, ThreadRow, ThreadState};

pub(crate) const COLUMNS: &str =
    "id, harness, cwd, title, title_custom, state, native_session_id, native_path, \
     fork_source_thread, fork_source_turn, fork_boundary, fork_source_harness, pending_fork, \
     permission_mode, permission_sandbox, revision, created_at, updated_at";

pub(crate) fn from_row(row: &SqliteRow) -> Result<ThreadRow> {
    let boundary: Option<String> = row.try_get("fork_boundary")?;
    let source_thread: Option<String> = row.try_get("fork_source_thread")?;
    let fork = match (source_thread, boundary) {
        (Some(source_thread), Some(boundary)) => Some(Lineage {
            source_thread,
            source_turn: row.try_get("fork_source_turn")?,
            boundary: boundary.parse::<Boundary>()?,
            source_harness: row.try_get("fork_source_harness")?,
        }),
        _ => None,
    };
    Ok(ThreadRow {
        id: row.try_get("id")?,
        harness: row.try_get("harness")?,
        cwd: row.try_get("cwd")?,
        title: row.try_get("title")?,
        title_custom: row.try_get("title_custom")?,
        state: row.try_get::<String, _>("state")?.parse::<ThreadState>()?,
        native_session_id: row.try_get("native_session_id")?,
        native_path: row.try_get("native_path")?,
        fork,
        pending_fork: row.try_get("pending_fork")?,
        permission_mode: row.try_get("permission_mode")?,
        permission_sandbox: row.try_get("permission_sandbox")?,
        revision: row.try_get("revision")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

fn check_new(thread: &NewThread) -> Result<()> {
    for (name, value) in [
        ("id", &thread.id),
        ("harness", &thread.harness),
        ("cwd", &thread.cwd),
    ] {
        if value.trim().is_empty() {
            return Err(StoreError::InvalidInput(format!("thread {name} is empty")));
        }
    }
    Ok(())
}

/// Inserts a thread at revision 0. A `creating` row remembers this process, so a restart can
/// tell an abandoned fork from one still in flight.
pub async fn insert(conn: &mut SqliteConnection, thread: &NewThread) -> Result<ThreadRow> {
    check_new(thread)?;
    let now = now_ms();
    let creating_pid =
        (thread.state == ThreadState::Creating).then(|| i64::from(std::process::id()));
    let fork = thread.fork.as_ref();
    let row = sqlx::query(&format!(
        "INSERT INTO threads (id, harness, cwd, title, state, native_session_id, native_path, \
         fork_source_thread, fork_source_turn, fork_boundary, fork_source_harness, pending_fork, \
         creating_pid, permission_mode, permission_sandbox, revision, created_at, updated_at) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?) RETURNING {COLUMNS}"
    ))
    .bind(&thread.id)
    .bind(&thread.harness)
    .bind(&thread.cwd)
    .bind(&thread.title)
    .bind(thread.state.as_str())
    .bind(&thread.native_session_id)
    .bind(&thread.native_path)
    .bind(fork.map(|f| &f.source_thread))
    .bind(fork.and_then(|f| f.source_turn.as_ref()))
    .bind(fork.map(|f| f.boundary.as_str()))
    .bind(fork.and_then(|f| f.source_harness.as_ref()))
    .bind(&thread.pending_fork)
    .bind(creating_pid)
    .bind(&thread.permission_mode)
    .bind(&thread.permission_sandbox)
    .bind(now)
    .bind(now)
    .fetch_one(&mut *conn)
    .await?;
    from_row(&row)
}

pub async fn get(conn: &mut SqliteConnection, id: &str) -> Result<ThreadRow> {
    find(conn, id)
        .await?
        .ok_or_else(|| StoreError::ThreadNotFound(id.to_owned()))
}

pub async fn find(conn: &mut SqliteConnection, id: &str) -> Result<Option<ThreadRow>> {
    let row = sqlx::query(&format!("SELECT {COLUMNS} FROM threads WHERE id = ?"))
        .bind(id)
        .fetch_optional(&mut *conn)
        .await?;
    row.as_ref().map(from_row).transpose()
}

pub async fn find_by_native(
    conn: &mut SqliteConnection,
    harness: &str,
    native_session_id: &str,
) -> Result<Option<ThreadRow>> {
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM threads WHERE harness = ? AND native_session_id = ?"
    ))
    .bind(harness)
    .bind(native_session_id)
    .fetch_optional(&mut *conn)
    .await?;
    row.as_ref().map(from_row).transpose()
}

/// All threads a user can see (not `creating`), oldest first.
pub async fn list(conn: &mut SqliteConnection) -> Result<Vec<ThreadRow>> {
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM threads WHERE state != 'creating' ORDER BY created_at, id"
    ))
    .fetch_all(&mut *conn)
    .await?;
    rows.iter().map(from_row).collect()
}

/// Writes every mutable field of `thread` if its stored revision is still `thread.revision`,
/// and returns the row at its new revision. Identity (id, harness, created_at) never changes.
pub async fn update(conn: &mut SqliteConnection, thread: &ThreadRow) -> Result<ThreadRow> {
    if thread.cwd.trim().is_empty() {
        return Err(StoreError::InvalidInput("thread cwd is empty".into()));
    }
    let fork = thread.fork.as_ref();
    let row = sqlx::query(&format!(
        "UPDATE threads SET cwd = ?, title = ?, title_custom = ?, state = ?, native_session_id = ?, \
         native_path = ?, fork_source_thread = ?, fork_source_turn = ?, fork_boundary = ?, \
         fork_source_harness = ?, pending_fork = ?, creating_pid = CASE WHEN ? = 'creating' THEN creating_pid END, \
         permission_mode = ?, permission_sandbox = ?, revision = revision + 1, updated_at = ? \
         WHERE id = ? AND revision = ? RETURNING {COLUMNS}"
    ))
    .bind(&thread.cwd)
    .bind(&thread.title)
    .bind(thread.title_custom)
    .bind(thread.state.as_str())
    .bind(&thread.native_session_id)
    .bind(&thread.native_path)
    .bind(fork.map(|f| &f.source_thread))
    .bind(fork.and_then(|f| f.source_turn.as_ref()))
    .bind(fork.map(|f| f.boundary.as_str()))
    .bind(fork.and_then(|f| f.source_harness.as_ref()))
    .bind(&thread.pending_fork)
    .bind(thread.state.as_str())
    .bind(&thread.permission_mode)
    .bind(&thread.permission_sandbox)
    .bind(now_ms())
    .bind(&thread.id)
    .bind(thread.revision)
    .fetch_optional(&mut *conn)
    .await?;
    match row {
        Some(row) => from_row(&row),
        None => Err(lost_swap(conn, &thread.id, thread.revision).await),
    }
}

/// Bumps a thread's revision without changing a field: the CAS step of a change that lives in
/// another table (appending turn anchors).
pub async fn touch(conn: &mut SqliteConnection, id: &str, expected_revision: i64) -> Result<i64> {
    let revision: Option<i64> = sqlx::query_scalar(
        "UPDATE threads SET revision = revision + 1, updated_at = ? \
         WHERE id = ? AND revision = ? RETURNING revision",
    )
    .bind(now_ms())
    .bind(id)
    .bind(expected_revision)
    .fetch_optional(&mut *conn)
    .await?;
    match revision {
        Some(revision) => Ok(revision),
        None => Err(lost_swap(conn, id, expected_revision).await),
    }
}

/// Deletes a thread (its anchors and tabs go with it) if its revision still matches.
pub async fn delete(conn: &mut SqliteConnection, id: &str, expected_revision: i64) -> Result<()> {
    let done = sqlx::query("DELETE FROM threads WHERE id = ? AND revision = ?")
        .bind(id)
        .bind(expected_revision)
        .execute(&mut *conn)
        .await?;
    if done.rows_affected() == 1 {
        Ok(())
    } else {
        Err(lost_swap(conn, id, expected_revision).await)
    }
}

/// Why a compare-and-swap changed nothing: the thread is gone, or someone else moved it on.
async fn lost_swap(conn: &mut SqliteConnection, id: &str, expected: i64) -> StoreError {
    let found: Result<Option<i64>, sqlx::Error> =
        sqlx::query_scalar("SELECT revision FROM threads WHERE id = ?")
            .bind(id)
            .fetch_optional(&mut *conn)
            .await;
    match found {
        Ok(Some(found)) => StoreError::Conflict {
            id: id.to_owned(),
            expected,
            found,
        },
        Ok(None) => StoreError::ThreadNotFound(id.to_owned()),
        Err(err) => err.into(),
    }
}

/// `creating` rows whose process is gone or that are older than `lease_ms`: forks interrupted
/// by a crash. Returns their ids.
pub async fn abandoned_creating(conn: &mut SqliteConnection, lease_ms: i64) -> Result<Vec<String>> {
    let rows: Vec<(String, Option<i64>, i64)> =
        sqlx::query_as("SELECT id, creating_pid, created_at FROM threads WHERE state = 'creating'")
            .fetch_all(&mut *conn)
            .await?;
    let now = now_ms();
    Ok(rows
        .into_iter()
        .filter(|(_, pid, created_at)| {
            now - created_at > lease_ms || !pid.is_some_and(crate::process::process_alive)
        })
        .map(|(id, _, _)| id)
        .collect())
}

/// Deletes the given `creating` rows (a row that has since become something else is kept);
/// the rows deleted, as they were.
pub async fn delete_creating(
    conn: &mut SqliteConnection,
    ids: &[String],
) -> Result<Vec<ThreadRow>> {
    let mut removed = Vec::new();
    for id in ids {
        let row = sqlx::query(&format!(
            "DELETE FROM threads WHERE id = ? AND state = 'creating' RETURNING {COLUMNS}"
        ))
        .bind(id)
        .fetch_optional(&mut *conn)
        .await?;
        if let Some(row) = row {
            removed.push(from_row(&row)?);
        }
    }
    Ok(removed)
}
