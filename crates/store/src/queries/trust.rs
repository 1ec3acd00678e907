//! Folder trust: the user's answer, per folder, to "run this project's agent config?", with
//! the config it covered (its fingerprint), so that new config is asked about again.

use sqlx::SqliteConnection;

use crate::Result;

/// One recorded decision.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct TrustRow {
    /// The trust root (a repository's main checkout, or the folder outside a repository).
    pub folder: String,
    pub trusted: bool,
    /// The config found when the user decided; `None` for decisions older than the column.
    pub fingerprint: Option<String>,
    /// When the user decided (ms since the epoch).
    pub decided_at: i64,
}

/// The decision for `folder`, if the user made one.
pub async fn of(conn: &mut SqliteConnection, folder: &str) -> Result<Option<TrustRow>> {
    Ok(sqlx::query_as::<_, TrustRow>(
        "SELECT folder, trusted, fingerprint, decided_at FROM folder_trust WHERE folder = ?",
    )
    .bind(folder)
    .fetch_optional(&mut *conn)
    .await?)
}

/// Every decision, by folder.
pub async fn all(conn: &mut SqliteConnection) -> Result<Vec<TrustRow>> {
    Ok(sqlx::query_as::<_, TrustRow>(
        "SELECT folder, trusted, fingerprint, decided_at FROM folder_trust ORDER BY folder",
    )
    .fetch_all(&mut *conn)
    .await?)
}

/// Records (or changes) the decision for `folder`, covering `fingerprint`.
pub async fn set(
    conn: &mut SqliteConnection,
    folder: &str,
    trusted: bool,
    fingerprint: &str,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO folder_trust (folder, trusted, fingerprint, decided_at) VALUES (?, ?, ?, ?) \
         ON CONFLICT(folder) DO UPDATE SET trusted = excluded.trusted, \
         fingerprint = excluded.fingerprint, decided_at = excluded.decided_at",
    )
    .bind(folder)
    .bind(trusted)
    .bind(fingerprint)
    .bind(crate::time::now_ms())
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Forgets the decision for `folder`; whether there was one.
pub async fn delete(conn: &mut SqliteConnection, folder: &str) -> Result<bool> {
    let done = sqlx::query("DELETE FROM folder_trust WHERE folder = ?")
        .bind(folder)
        .execute(&mut *conn)
        .await?;
    Ok(done.rows_affected() > 0)
}
