//! Rewinds: a thread that went back to a turn, the branch its old line became, and the
//! checkpoints of its folder a files rewind moved between. Coordinates only.

use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};

use crate::time::now_ms;
use crate::Result;

/// One rewind of a thread (`kind` in the core's words: `conversation_and_files`,
/// `conversation`, `files`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewindRow {
    pub id: String,
    pub thread_id: String,
    /// The old line, a fork of the thread after `turn_ordinal`; `None` for files only.
    pub branch_id: Option<String>,
    pub turn_ordinal: i64,
    pub kind: String,
    /// The folder's checkpoint taken before the restore (what Undo writes back).
    pub files_before: Option<String>,
    /// The checkpoint the folder was restored to.
    pub files_restored: Option<String>,
    pub created_at: i64,
    pub undone_at: Option<i64>,
    pub files_before_undo: Option<String>,
}

const COLUMNS: &str = "id, thread_id, branch_id, turn_ordinal, kind, files_before, \
     files_restored, created_at, undone_at, files_before_undo";

fn from_row(row: &SqliteRow) -> Result<RewindRow> {
    Ok(RewindRow {
        id: row.try_get("id")?,
        thread_id: row.try_get("thread_id")?,
        branch_id: row.try_get("branch_id")?,
        turn_ordinal: row.try_get("turn_ordinal")?,
        kind: row.try_get("kind")?,
        files_before: row.try_get("files_before")?,
        files_restored: row.try_get("files_restored")?,
        created_at: row.try_get("created_at")?,
        undone_at: row.try_get("undone_at")?,
        files_before_undo: row.try_get("files_before_undo")?,
    })
}

/// Records a rewind (its `created_at` is now; the row's own is ignored).
pub async fn put(conn: &mut SqliteConnection, row: &RewindRow) -> Result<RewindRow> {
    let row = sqlx::query(&format!(
        "INSERT INTO rewinds (id, thread_id, branch_id, turn_ordinal, kind, files_before, \
         files_restored, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING {COLUMNS}"
    ))
    .bind(&row.id)
    .bind(&row.thread_id)
    .bind(&row.branch_id)
    .bind(row.turn_ordinal)
    .bind(&row.kind)
    .bind(&row.files_before)
    .bind(&row.files_restored)
    .bind(now_ms())
    .fetch_one(&mut *conn)
    .await?;
    from_row(&row)
}

pub async fn get(conn: &mut SqliteConnection, id: &str) -> Result<Option<RewindRow>> {
    let row = sqlx::query(&format!("SELECT {COLUMNS} FROM rewinds WHERE id = ?"))
        .bind(id)
        .fetch_optional(&mut *conn)
        .await?;
    row.as_ref().map(from_row).transpose()
}

/// The thread's latest rewind not undone yet: what Undo undoes.
pub async fn last_open(conn: &mut SqliteConnection, thread_id: &str) -> Result<Option<RewindRow>> {
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM rewinds WHERE thread_id = ? AND undone_at IS NULL \
         ORDER BY created_at DESC, rowid DESC LIMIT 1"
    ))
    .bind(thread_id)
    .fetch_optional(&mut *conn)
    .await?;
    row.as_ref().map(from_row).transpose()
}

/// A thread's rewinds, newest first, and those whose branch it is.
pub async fn of_thread(conn: &mut SqliteConnection, thread_id: &str) -> Result<Vec<RewindRow>> {
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM rewinds WHERE thread_id = ?1 OR branch_id = ?1 \
         ORDER BY created_at DESC, rowid DESC"
    ))
    .bind(thread_id)
    .fetch_all(&mut *conn)
    .await?;
    rows.iter().map(from_row).collect()
}

/// Every thread that is a rewind's branch (a line a rewind or its undo set aside).
pub async fn branches(conn: &mut SqliteConnection) -> Result<Vec<String>> {
    Ok(sqlx::query_scalar(
        "SELECT DISTINCT branch_id FROM rewinds WHERE branch_id IS NOT NULL ORDER BY branch_id",
    )
    .fetch_all(&mut *conn)
    .await?)
}

/// Marks a rewind undone (once: an undone rewind stays so).
pub async fn mark_undone(
    conn: &mut SqliteConnection,
    id: &str,
    files_before_undo: Option<&str>,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE rewinds SET undone_at = ?, files_before_undo = ? WHERE id = ? AND undone_at IS NULL",
    )
    .bind(now_ms())
    .bind(files_before_undo)
    .bind(id)
    .execute(&mut *conn)
    .await?;
    Ok(done.rows_affected() == 1)
}
