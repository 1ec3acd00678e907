//! What the open moves aside, under which name, and what it never moves: only damage is a
//! reason to put a store file away, the name says when it happened, and no earlier moved-aside
//! file is ever overwritten.

use std::path::{Path, PathBuf};

use forkhost_store::Store;
#[cfg(unix)]
use forkhost_store::StoreError;

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    s.into()
}

/// `YYYYMMDDTHHMMSSZ`, the stamp a moved-aside file carries, for a unix time in seconds.
fn stamp(unix_secs: i64) -> String {
    let t = time::OffsetDateTime::from_unix_timestamp(unix_secs).unwrap();
    format!(
        "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}

fn now_secs() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp()
}

/// The stamps an open starting now can use (the clock may tick while the test sets up).
fn stamps_around_now() -> Vec<String> {
    let now = now_secs();
    (now - 1..=now + 5).map(stamp).collect()
}

fn garbage(path: &Path) -> Vec<u8> {
    let bytes: Vec<u8> = (0..10_000u32).map(|i| (i * 31 % 251) as u8).collect();
    std::fs::write(path, &bytes).unwrap();
    bytes
}

#[tokio::test]
async fn the_moved_aside_file_is_named_for_the_time_it_was_moved() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("forkhost.sqlite");
    garbage(&path);
    let before = now_secs();
    let opened = Store::open(&path).await.unwrap();
    let after = now_secs();
    let moved = opened.recovered.expect("moved aside").moved_to;
    let name = moved.file_name().unwrap().to_string_lossy().into_owned();
    let stamped = (before..=after)
        .map(stamp)
        .any(|s| name == format!("forkhost.sqlite.corrupt-{s}"));
    assert!(
        stamped,
        "{name} is not stamped between {before} and {after}"
    );
}

/// Damage found again within the same second (a crash loop) gets `-1`, `-2`, …: every copy the
/// user might want to recover from is kept.
#[tokio::test]
async fn an_earlier_moved_aside_file_is_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("forkhost.sqlite");
    let mut earlier = Vec::new();
    for s in stamps_around_now() {
        for suffix in ["", "-1"] {
            let file = with_suffix(&path, &format!(".corrupt-{s}{suffix}"));
            std::fs::write(&file, format!("earlier {s}{suffix}")).unwrap();
            earlier.push(file);
        }
    }
    let bytes = garbage(&path);
    let opened = Store::open(&path).await.unwrap();
    let moved = opened.recovered.expect("moved aside").moved_to;
    assert!(
        moved.to_string_lossy().ends_with("-2"),
        "{}",
        moved.display()
    );
    assert!(
        std::fs::read(&moved).unwrap() == bytes,
        "the damaged file, as it was"
    );
    for file in earlier {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let kept = std::fs::read_to_string(&file).unwrap();
        assert_eq!(
            kept,
            format!("earlier {}", &name["forkhost.sqlite.corrupt-".len()..])
        );
    }
}

/// A companion of the damaged file that cannot be moved with it stops the open: a `-wal` left
/// behind would be read as the fresh store's log and bring the old pages back.
#[cfg(unix)]
#[tokio::test]
async fn a_companion_that_cannot_be_moved_stops_the_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("forkhost.sqlite");
    garbage(&path);
    std::fs::write(with_suffix(&path, "-wal"), b"the damaged store's log").unwrap();
    for s in stamps_around_now() {
        // A folder where the companion would go: renaming a file onto it fails.
        std::fs::create_dir(with_suffix(&path, &format!(".corrupt-{s}-wal"))).unwrap();
    }
    let err = Store::open(&path).await.unwrap_err();
    match err {
        StoreError::Io { path: failed, .. } => assert_eq!(failed, with_suffix(&path, "-wal")),
        other => panic!("not the companion's I/O error: {other:?}"),
    }
    assert_eq!(
        std::fs::read(with_suffix(&path, "-wal")).unwrap(),
        b"the damaged store's log"
    );
}

/// A connection of the test's own (a pool's connections may still be closing after `close`
/// returns).
async fn connect(path: &Path) -> sqlx::SqliteConnection {
    use sqlx::sqlite::SqliteConnectOptions;
    use sqlx::ConnectOptions;
    SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .connect()
        .await
        .unwrap()
}

/// SQLite failing for a reason other than damage (here its shared-memory file cannot be made:
/// a folder is in its place) is an error the user can fix: the sound file stays where it is,
/// as it was, and nothing is moved aside.
#[cfg(unix)]
#[tokio::test]
async fn a_sound_file_sqlite_cannot_open_stays_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("forkhost.sqlite");
    let mut conn = connect(&path).await;
    sqlx::query("CREATE TABLE t (x TEXT); INSERT INTO t VALUES ('kept')")
        .execute(&mut conn)
        .await
        .unwrap();
    sqlx::Connection::close(conn).await.unwrap();
    std::fs::create_dir(with_suffix(&path, "-shm")).unwrap();

    let err = Store::open(&path).await.unwrap_err();
    assert!(matches!(err, StoreError::Database(_)), "{err:?}");
    assert_eq!(moved_aside(dir.path()), Vec::<String>::new());
    std::fs::remove_dir(with_suffix(&path, "-shm")).unwrap();
    let mut conn = connect(&path).await;
    let kept: String = sqlx::query_scalar("SELECT x FROM t")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(kept, "kept", "the same file, still sound");
}

fn moved_aside(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".corrupt-"))
        .collect()
}

/// A sound database the migrations cannot apply to (another program's, with a table of the
/// same name) is not damage: it is refused, never moved aside and replaced.
#[tokio::test]
async fn another_programs_database_is_refused_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("forkhost.sqlite");
    let mut conn = connect(&path).await;
    sqlx::query("CREATE TABLE threads (theirs TEXT); INSERT INTO threads VALUES ('kept')")
        .execute(&mut conn)
        .await
        .unwrap();
    sqlx::Connection::close(conn).await.unwrap();

    let err = Store::open(&path).await.unwrap_err();
    assert!(err.to_string().contains("already exists"), "{err}");
    assert_eq!(moved_aside(dir.path()), Vec::<String>::new());
    let mut conn = connect(&path).await;
    let theirs: String = sqlx::query_scalar("SELECT theirs FROM threads")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(theirs, "kept");
}
