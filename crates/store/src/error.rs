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
