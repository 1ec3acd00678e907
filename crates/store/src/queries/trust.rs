//! Folder trust: the user's answer, per folder, to "run this project's agent config?".

use sqlx::SqliteConnection;

use crate::Result;

/// The decision for `folder`, if the user made one.
pub async fn of(conn: &mut SqliteConnection, folder: &str) -> Result<Option<bool>> {
    Ok(
        sqlx::query_scalar::<_, bool>("SELECT trusted FROM folder_trust WHERE folder = ?")
            .bind(folder)
            .fetch_optional(&mut *conn)
            .await?,
    )
}

/// Records (or changes) the decision for `folder`.
pub async fn set(conn: &mut SqliteConnection, folder: &str, trusted: bool) -> Result<()> {
    sqlx::query(
        "INSERT INTO folder_trust (folder, trusted, decided_at) VALUES (?, ?, ?) \
         ON CONFLICT(folder) DO UPDATE SET trusted = excluded.trusted, \
         decided_at = excluded.decided_at",
    )
    .bind(folder)
    .bind(trusted)
    .bind(crate::time::now_ms())
    .execute(&mut *conn)
    .await?;
    Ok(())
}
