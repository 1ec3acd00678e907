//! Remote hosts: the machines the user named, and how `ssh` reaches each. Coordinates only;
//! credentials and host keys stay with the user's OpenSSH.

use sqlx::SqliteConnection;

use crate::Result;

/// One remote host as the user added it.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct RemoteHostRow {
    pub name: String,
    pub destination: String,
    /// Extra ssh arguments, a JSON array.
    pub ssh_options: String,
    pub remote_program: Option<String>,
    pub added_at: i64,
}

const COLUMNS: &str = "name, destination, ssh_options, remote_program, added_at";

pub async fn all(conn: &mut SqliteConnection) -> Result<Vec<RemoteHostRow>> {
    Ok(sqlx::query_as::<_, RemoteHostRow>(&format!(
        "SELECT {COLUMNS} FROM remote_hosts ORDER BY name"
    ))
    .fetch_all(&mut *conn)
    .await?)
}

pub async fn of(conn: &mut SqliteConnection, name: &str) -> Result<Option<RemoteHostRow>> {
    Ok(sqlx::query_as::<_, RemoteHostRow>(&format!(
        "SELECT {COLUMNS} FROM remote_hosts WHERE name = ?"
    ))
    .bind(name)
    .fetch_optional(&mut *conn)
    .await?)
}

/// Adds `row` (added now), or replaces the host of that name (keeping when it was added).
pub async fn put(conn: &mut SqliteConnection, row: &RemoteHostRow) -> Result<()> {
    sqlx::query(
        "INSERT INTO remote_hosts (name, destination, ssh_options, remote_program, added_at) \
         VALUES (?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET \
         destination = excluded.destination, ssh_options = excluded.ssh_options, \
         remote_program = excluded.remote_program",
    )
    .bind(&row.name)
    .bind(&row.destination)
    .bind(&row.ssh_options)
    .bind(&row.remote_program)
    .bind(crate::time::now_ms())
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Forgets the host `name`; whether there was one.
pub async fn delete(conn: &mut SqliteConnection, name: &str) -> Result<bool> {
    let done = sqlx::query("DELETE FROM remote_hosts WHERE name = ?")
        .bind(name)
        .execute(&mut *conn)
        .await?;
    Ok(done.rows_affected() > 0)
}
