//! Opening the store: connect, check health, migrate, and heal.
//!
//! A file that is not a database or fails `PRAGMA integrity_check` is moved aside (kept, renamed
//! with a UTC timestamp) and a fresh store is created; the caller learns of it through
//! [`Opened::recovered`] so that the Host can rebuild from the native sessions on disk.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::SqlitePool;

use crate::error::is_corruption;
use crate::time::utc_stamp;
use crate::{Result, StoreError};

/// How long a writer waits for another process's write lock before answering `Busy`.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// A store file that was moved aside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recovery {
    pub moved_to: PathBuf,
    pub reason: String,
}

enum Health {
    Good(SqlitePool),
    Broken(String),
}

/// Opens the file at `path` as a usable, migrated pool: a file that is not SQLite or is
/// damaged is moved aside and a fresh one made (the [`Recovery`] says so).
pub(crate) async fn heal(path: &Path) -> Result<(SqlitePool, Option<Recovery>)> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        private_dir(parent).map_err(|source| StoreError::Io {
            path: parent.to_owned(),
            source,
        })?;
    }
    private_files(path).map_err(|source| StoreError::Io {
        path: path.to_owned(),
        source,
    })?;
    let mut recovered = None;
    let pool = match check(path).await? {
        Health::Good(pool) => pool,
        Health::Broken(reason) => {
            let moved_to = move_aside(path)?;
            private_files(path).map_err(|source| StoreError::Io {
                path: path.to_owned(),
                source,
            })?;
            tracing::warn!(store = %path.display(), moved_to = %moved_to.display(), %reason,
                "store file unusable; moved aside and starting fresh");
            recovered = Some(Recovery { moved_to, reason });
            match check(path).await? {
                Health::Good(pool) => pool,
                Health::Broken(reason) => {
                    return Err(StoreError::InvalidInput(format!(
                        "a fresh store at {} is unusable: {reason}",
                        path.display()
                    )))
                }
            }
        }
    };
    Ok((pool, recovered))
}

fn options(path: &Path) -> Result<SqliteConnectOptions> {
    let url = format!("sqlite://{}", path.display());
    let options = SqliteConnectOptions::from_str(&url)
        .map_err(StoreError::Database)?
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        // WAL with NORMAL survives a crash of any process; only a power cut can drop the last
        // commits, never corrupt the file.
        .synchronous(SqliteSynchronous::Normal)
        .foreign_keys(true)
        .busy_timeout(BUSY_TIMEOUT);
    Ok(options)
}

/// Connects, checks integrity and migrates. Corruption is `Broken`; anything else (busy, I/O,
/// permissions) is an error for the caller — never a reason to move a healthy file aside.
async fn check(path: &Path) -> Result<Health> {
    if let Some(reason) = not_a_database(path)? {
        return Ok(Health::Broken(reason));
    }
    let pool = match SqlitePoolOptions::new()
        .max_connections(4)
        .connect_with(options(path)?)
        .await
    {
        Ok(pool) => pool,
        Err(err) => return broken_or_error(err),
    };
    let verdict: std::result::Result<Vec<String>, sqlx::Error> =
        sqlx::query_scalar("PRAGMA integrity_check")
            .fetch_all(&pool)
            .await;
    match verdict {
        Ok(lines) if lines.len() == 1 && lines[0] == "ok" => {}
        Ok(lines) => {
            pool.close().await;
            return Ok(Health::Broken(format!(
                "integrity check: {}",
                lines.join("; ")
            )));
        }
        Err(err) => {
            pool.close().await;
            return broken_or_error(err);
        }
    }
    match MIGRATOR.run(&pool).await {
        Ok(()) => Ok(Health::Good(pool)),
        Err(sqlx::migrate::MigrateError::Execute(err)) => {
            pool.close().await;
            broken_or_error(err)
        }
        Err(err) => Err(err.into()),
    }
}

/// The one rule for an error met while checking the file, at any step: damage makes the file
/// `Broken` (moved aside), anything else is the caller's error and the file stays.
fn broken_or_error(err: sqlx::Error) -> Result<Health> {
    if is_corruption(&err) {
        Ok(Health::Broken(err.to_string()))
    } else {
        Err(err.into())
    }
}

/// The store's files hold every thread's title and folder: readable by the user only (Unix).
const FILE_MODE: u32 = 0o600;

/// Creates the store's folder and its missing parents, `0700` on Unix whatever the umask. An
/// existing folder is not changed here: it may be any folder a caller chose (the data folder
/// itself is tightened by `forkhost_core::data_dir::prepare`).
fn private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Creates the store file empty and `0600` before SQLite does (it would use `0644` minus the
/// umask; its `-wal` and `-shm` files copy the database file's mode), and tightens the files
/// of a store made before.
fn private_files(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(FILE_MODE)
            .open(path)
        {
            Ok(_) => {}
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(err) => return Err(err),
        }
        for suffix in ["", "-wal", "-shm"] {
            let mut file = path.as_os_str().to_owned();
            file.push(suffix);
            let Ok(meta) = std::fs::symlink_metadata(&file) else {
                continue;
            };
            // Only ever narrowed: a file the user made stricter (0400) stays as it is, and a
            // symlink or folder in the way is not ours to change.
            let mode = meta.permissions().mode() & 0o7777;
            let narrowed = mode & FILE_MODE;
            if meta.is_file() && narrowed != mode {
                std::fs::set_permissions(&file, std::fs::Permissions::from_mode(narrowed))?;
            }
        }
    }
    #[cfg(not(unix))]
    let _ = (path, FILE_MODE);
    Ok(())
}

/// A non-empty file without SQLite's magic header is not ours to open.
fn not_a_database(path: &Path) -> Result<Option<String>> {
    use std::io::Read;
    let mut file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(StoreError::Io {
                path: path.to_owned(),
                source,
            })
        }
    };
    let mut head = Vec::with_capacity(16);
    (&mut file)
        .take(16)
        .read_to_end(&mut head)
        .map_err(|source| StoreError::Io {
            path: path.to_owned(),
            source,
        })?;
    Ok((!head.is_empty() && head.as_slice() != SQLITE_MAGIC)
        .then(|| "not an SQLite database (bad header)".to_owned()))
}

/// Renames the store and its WAL/SHM companions to `<name>.corrupt-<UTC stamp>[-wal|-shm]`.
fn move_aside(path: &Path) -> Result<PathBuf> {
    let secs = crate::time::now_ms() / 1000;
    let mut base = path.as_os_str().to_owned();
    base.push(format!(".corrupt-{}", utc_stamp(secs)));
    let mut target = PathBuf::from(&base);
    let mut n = 1;
    while target.exists() {
        let mut alt = base.clone();
        alt.push(format!("-{n}"));
        target = PathBuf::from(alt);
        n += 1;
    }
    for suffix in ["", "-wal", "-shm"] {
        let mut from = path.as_os_str().to_owned();
        from.push(suffix);
        let mut to = target.as_os_str().to_owned();
        to.push(suffix);
        match std::fs::rename(&from, &to) {
            Ok(()) => {}
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(StoreError::Io {
                    path: PathBuf::from(from),
                    source,
                })
            }
        }
    }
    Ok(target)
}

#[cfg(test)]
#[path = "open_tests.rs"]
mod tests;
