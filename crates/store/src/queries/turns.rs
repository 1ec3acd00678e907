//! The `turns` table: turn anchors, host turn id → native coordinates.

use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};

use crate::{NewTurn, Result, StoreError, TurnRow};

const COLUMNS: &str = "id, thread_id, ordinal, native_turn_ref, native_checkpoint_ref";

fn from_row(row: &SqliteRow) -> Result<TurnRow> {
    Ok(TurnRow {
        id: row.try_get("id")?,
        thread_id: row.try_get("thread_id")?,
        ordinal: row.try_get("ordinal")?,
        native_turn_ref: row.try_get("native_turn_ref")?,
        native_checkpoint_ref: row.try_get("native_checkpoint_ref")?,
    })
}

/// A thread's anchors in order.
pub async fn list(conn: &mut SqliteConnection, thread_id: &str) -> Result<Vec<TurnRow>> {
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM turns WHERE thread_id = ? ORDER BY ordinal"
    ))
    .bind(thread_id)
    .fetch_all(&mut *conn)
    .await?;
    rows.iter().map(from_row).collect()
}

pub async fn get(conn: &mut SqliteConnection, id: &str) -> Result<TurnRow> {
    let row = sqlx::query(&format!("SELECT {COLUMNS} FROM turns WHERE id = ?"))
        .bind(id)
        .fetch_optional(&mut *conn)
        .await?;
    match row {
        Some(row) => from_row(&row),
        None => Err(StoreError::TurnNotFound(id.to_owned())),
    }
}

/// The turn at a 1-based position.
pub async fn by_ordinal(
    conn: &mut SqliteConnection,
    thread_id: &str,
    ordinal: i64,
) -> Result<TurnRow> {
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM turns WHERE thread_id = ? AND ordinal = ?"
    ))
    .bind(thread_id)
    .bind(ordinal)
    .fetch_optional(&mut *conn)
    .await?;
    match row {
        Some(row) => from_row(&row),
        None => Err(StoreError::TurnNotFound(format!("{thread_id}#{ordinal}"))),
    }
}

pub async fn count(conn: &mut SqliteConnection, thread_id: &str) -> Result<i64> {
    Ok(
        sqlx::query_scalar("SELECT COUNT(*) FROM turns WHERE thread_id = ?")
            .bind(thread_id)
            .fetch_one(&mut *conn)
            .await?,
    )
}

/// Rows per multi-row INSERT: 5 parameters each stays far below SQLite's variable limit.
const INSERT_CHUNK: usize = 200;

/// Appends anchors after the thread's last turn. Callers hold a transaction that has already
/// compare-and-swapped the thread, so ordinals cannot race. Inserted in multi-row statements:
/// a fork of a long thread copies every anchor, and one statement per row would dominate it.
pub async fn append(
    conn: &mut SqliteConnection,
    thread_id: &str,
    turns: &[NewTurn],
) -> Result<Vec<TurnRow>> {
    if turns
        .iter()
        .any(|t| t.id.trim().is_empty() || t.native_turn_ref.trim().is_empty())
    {
        return Err(StoreError::InvalidInput(
            "a turn anchor needs an id and a native turn ref".into(),
        ));
    }
    let last: i64 =
        sqlx::query_scalar("SELECT COALESCE(MAX(ordinal), 0) FROM turns WHERE thread_id = ?")
            .bind(thread_id)
            .fetch_one(&mut *conn)
            .await?;
    let rows: Vec<TurnRow> = turns
        .iter()
        .enumerate()
        .map(|(i, t)| TurnRow {
            id: t.id.clone(),
            thread_id: thread_id.to_owned(),
            ordinal: last + 1 + i as i64,
            native_turn_ref: t.native_turn_ref.clone(),
            native_checkpoint_ref: t.native_checkpoint_ref.clone(),
        })
        .collect();
    for chunk in rows.chunks(INSERT_CHUNK) {
        let mut sql = String::from(
            "INSERT INTO turns (id, thread_id, ordinal, native_turn_ref, native_checkpoint_ref) VALUES ",
        );
        sql.push_str(&vec!["(?, ?, ?, ?, ?)"; chunk.len()].join(", "));
        let mut query = sqlx::query(&sql);
        for row in chunk {
            query = query
                .bind(&row.id)
                .bind(&row.thread_id)
                .bind(row.ordinal)
                .bind(&row.native_turn_ref)
                .bind(&row.native_checkpoint_ref);
        }
        query.execute(&mut *conn).await?;
    }
    Ok(rows)
}

/// Updates the checkpoint of an anchor whose turn grew (e.g. a reply finished after it was read).
pub async fn set_checkpoint(
    conn: &mut SqliteConnection,
    id: &str,
    native_checkpoint_ref: Option<&str>,
) -> Result<()> {
    let done = sqlx::query("UPDATE turns SET native_checkpoint_ref = ? WHERE id = ?")
        .bind(native_checkpoint_ref)
        .bind(id)
        .execute(&mut *conn)
        .await?;
    if done.rows_affected() == 0 {
        return Err(StoreError::TurnNotFound(id.to_owned()));
    }
    Ok(())
}

/// Points an anchor at new native coordinates: used when a fork's native session materializes
/// and its turns take over the positions of the anchors inherited from the source.
pub async fn set_native(
    conn: &mut SqliteConnection,
    id: &str,
    native_turn_ref: &str,
    native_checkpoint_ref: Option<&str>,
) -> Result<()> {
    let done =
        sqlx::query("UPDATE turns SET native_turn_ref = ?, native_checkpoint_ref = ? WHERE id = ?")
            .bind(native_turn_ref)
            .bind(native_checkpoint_ref)
            .bind(id)
            .execute(&mut *conn)
            .await?;
    if done.rows_affected() == 0 {
        return Err(StoreError::TurnNotFound(id.to_owned()));
    }
    Ok(())
}
