//! Session grants: what a user approved "for this session" in a thread, each with the scope
//! its card showed (opaque JSON here; the core gives it meaning). Never copied: a fork asks
//! again (docs/architecture.md "Approvals and permission modes").

use sqlx::SqliteConnection;

use crate::model::GrantRow;
use crate::Result;

/// Records a grant; the same scope granted twice keeps the first one (and its id).
pub async fn add(conn: &mut SqliteConnection, row: &GrantRow) -> Result<GrantRow> {
    sqlx::query(
        "INSERT OR IGNORE INTO session_grants (id, thread_id, scope, granted_at) \
         VALUES (?, ?, ?, ?)",
    )
    .bind(&row.id)
    .bind(&row.thread_id)
    .bind(&row.scope)
    .bind(row.granted_at)
    .execute(&mut *conn)
    .await?;
    let found: Columns = sqlx::query_as(
        "SELECT id, thread_id, scope, granted_at FROM session_grants \
         WHERE thread_id = ? AND scope = ?",
    )
    .bind(&row.thread_id)
    .bind(&row.scope)
    .fetch_one(&mut *conn)
    .await?;
    Ok(grant(found))
}

/// A thread's grants, oldest first.
pub async fn of(conn: &mut SqliteConnection, thread_id: &str) -> Result<Vec<GrantRow>> {
    let rows: Vec<Columns> = sqlx::query_as(
        "SELECT id, thread_id, scope, granted_at FROM session_grants WHERE thread_id = ? \
         ORDER BY granted_at, id",
    )
    .bind(thread_id)
    .fetch_all(&mut *conn)
    .await?;
    Ok(rows.into_iter().map(grant).collect())
}

type Columns = (String, String, String, i64);

fn grant((id, thread_id, scope, granted_at): Columns) -> GrantRow {
    GrantRow {
        id,
        thread_id,
        scope,
        granted_at,
    }
}

/// Two threads trade their grants (a rewind's swap of lines, and its undo): a grant belongs to
/// the session whose requests it answered, and moves with it (review L-3). Rows keep their ids
/// and times.
pub async fn trade(conn: &mut SqliteConnection, x: &str, b: &str) -> Result<()> {
    let (of_x, of_b) = (of(conn, x).await?, of(conn, b).await?);
    sqlx::query("DELETE FROM session_grants WHERE thread_id IN (?, ?)")
        .bind(x)
        .bind(b)
        .execute(&mut *conn)
        .await?;
    let moved = of_x
        .into_iter()
        .map(|g| (b, g))
        .chain(of_b.into_iter().map(|g| (x, g)));
    for (to, grant) in moved {
        add(
            conn,
            &GrantRow {
                thread_id: to.to_owned(),
                ..grant
            },
        )
        .await?;
    }
    Ok(())
}

/// Removes one grant of the thread; whether it was there.
pub async fn revoke(conn: &mut SqliteConnection, thread_id: &str, id: &str) -> Result<bool> {
    let done = sqlx::query("DELETE FROM session_grants WHERE thread_id = ? AND id = ?")
        .bind(thread_id)
        .bind(id)
        .execute(&mut *conn)
        .await?;
    Ok(done.rows_affected() > 0)
}
