use std::path::PathBuf;

/// What can go wrong in the store, in words a caller can act on.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("thread {0} not found")]
    ThreadNotFound(String),

    #[error("turn {0} not found")]
    TurnNotFound(String),

    /// A compare-and-swap lost: someone else changed the thread since it was read.
    #[error("thread {id} was changed elsewhere (expected revision {expected}, found {found})")]
    Conflict {
        id: String,
        expected: i64,
        found: i64,
    },

    /// A row with the same identity exists (e.g. a native session already has a thread).
    #[error("already exists: {0}")]
    Duplicate(String),

    #[error("invalid input: {0}")]
    InvalidInput(String),

    /// Another writer held the database past the busy timeout.
    #[error("the store is busy; try again")]
    Busy,

    #[error("store file {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("store migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),

    #[error("store database error: {0}")]
    Database(#[source] sqlx::Error),
}

/// SQLite primary result codes we act on (extended codes keep these in their low byte).
const SQLITE_BUSY: i32 = 5;
const SQLITE_LOCKED: i32 = 6;
const SQLITE_CORRUPT: i32 = 11;
const SQLITE_NOTADB: i32 = 26;

pub(crate) fn sqlite_code(err: &sqlx::Error) -> Option<i32> {
    match err {
        sqlx::Error::Database(db) => db
            .code()
            .and_then(|c| c.parse::<i32>().ok())
            .map(|c| c & 0xff),
        _ => None,
    }
}

/// True when an error says the file is not a healthy database (as opposed to busy or I/O).
pub(crate) fn is_corruption(err: &sqlx::Error) -> bool {
    matches!(sqlite_code(err), Some(SQLITE_CORRUPT | SQLITE_NOTADB))
}

impl From<sqlx::Error> for StoreError {
    fn from(err: sqlx::Error) -> Self {
        match sqlite_code(&err) {
            Some(SQLITE_BUSY | SQLITE_LOCKED) => StoreError::Busy,
            _ => match &err {
                sqlx::Error::Database(db) if db.is_unique_violation() => {
                    StoreError::Duplicate(db.message().to_owned())
                }
                _ => StoreError::Database(err),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlx::sqlite::SqliteConnectOptions;
    use sqlx::{ConnectOptions, Connection, SqliteConnection};

    async fn connect(path: &std::path::Path) -> SqliteConnection {
        SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .busy_timeout(std::time::Duration::ZERO)
            .connect()
            .await
            .unwrap()
    }

    /// Another writer holding the file is `Busy` (try again), never a database error that
    /// would read as damage.
    #[tokio::test]
    async fn a_held_write_lock_is_busy() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        let mut holder = connect(&path).await;
        sqlx::query("CREATE TABLE t (x)")
            .execute(&mut holder)
            .await
            .unwrap();
        sqlx::query("BEGIN IMMEDIATE")
            .execute(&mut holder)
            .await
            .unwrap();
        let mut other = connect(&path).await;
        let err = sqlx::query("BEGIN IMMEDIATE")
            .execute(&mut other)
            .await
            .unwrap_err();
        assert_eq!(sqlite_code(&err), Some(SQLITE_BUSY));
        assert!(!is_corruption(&err));
        assert!(matches!(StoreError::from(err), StoreError::Busy));
        holder.close().await.unwrap();
        other.close().await.unwrap();
    }

    /// A file that is not a database is corruption (moved aside at open), not busy.
    #[tokio::test]
    async fn a_file_that_is_not_a_database_is_corruption() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        std::fs::write(&path, vec![0x5au8; 8192]).unwrap();
        let mut conn = connect(&path).await;
        let err = sqlx::query("SELECT * FROM sqlite_master")
            .execute(&mut conn)
            .await
            .unwrap_err();
        assert_eq!(sqlite_code(&err), Some(SQLITE_NOTADB));
        assert!(is_corruption(&err));
        assert!(matches!(StoreError::from(err), StoreError::Database(_)));
    }

    /// A unique index refusing a row is `Duplicate`, with SQLite's words.
    #[tokio::test]
    async fn a_unique_violation_is_duplicate() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = connect(&dir.path().join("s.sqlite")).await;
        sqlx::query("CREATE TABLE t (x UNIQUE)")
            .execute(&mut conn)
            .await
            .unwrap();
        sqlx::query("INSERT INTO t VALUES (1)")
            .execute(&mut conn)
            .await
            .unwrap();
        let err = sqlx::query("INSERT INTO t VALUES (1)")
            .execute(&mut conn)
            .await
            .unwrap_err();
        assert!(!is_corruption(&err));
        let StoreError::Duplicate(words) = StoreError::from(err) else {
            panic!("not a duplicate")
        };
        assert!(words.contains("UNIQUE"), "{words}");
    }
}
