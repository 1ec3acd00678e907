//! Self-healing at open: broken files are moved aside, interrupted forks are removed, and a
//! process killed mid-transaction leaves no trace of that transaction.
//!
//! Child processes are this test binary re-run with `FORKHOST_STORE_CHILD` set: the `child_*`
//! tests below do nothing unless that variable names them.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use common::{thread, turn};
use forkhost_store::{Store, StoreError, ThreadState};

const CHILD_ENV: &str = "FORKHOST_STORE_CHILD";
const PATH_ENV: &str = "FORKHOST_STORE_PATH";

fn child_role() -> Option<(String, PathBuf)> {
    let role = std::env::var(CHILD_ENV).ok()?;
    Some((role, PathBuf::from(std::env::var(PATH_ENV).ok()?)))
}

/// Starts this test binary as a child that runs test `name` in role `role`.
fn spawn_child(name: &str, role: &str, store: &Path) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, role)
        .env(PATH_ENV, store)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap()
}

/// Reads the child's stdout until it prints `line`.
fn wait_for_line(child: &mut Child, line: &str) {
    let stdout = child.stdout.as_mut().unwrap();
    let mut reader = BufReader::new(stdout);
    let mut buf = String::new();
    loop {
        buf.clear();
        let n = reader.read_line(&mut buf).unwrap();
        assert!(n > 0, "child exited before printing {line:?}");
        // libtest may print "test name ... " on the same line before the child's own output.
        if buf.trim_end().ends_with(line) {
            return;
        }
    }
}

fn kill(mut child: Child) {
    child.kill().unwrap(); // SIGKILL on Unix.
    child.wait().unwrap(); // Reaped, so its pid no longer counts as alive.
}

async fn seeded(path: &Path) {
    let store = Store::open(path).await.unwrap().store;
    for id in ["a", "b", "c"] {
        let row = store.insert_thread(&thread(id)).await.unwrap();
        store
            .append_turns(id, row.revision, &[turn(&format!("{id}1"))])
            .await
            .unwrap();
    }
    store.close().await;
}

fn moved_aside(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.to_string_lossy();
            name.contains(".corrupt-") && !name.ends_with("-wal") && !name.ends_with("-shm")
        })
        .collect();
    found.sort();
    found
}

#[tokio::test]
async fn a_store_truncated_to_half_is_moved_aside_and_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("forkhost.sqlite");
    seeded(&path).await;
    // Fold the WAL into the main file, which we then cut; the emptied WAL goes.
    fold_wal(&path).await;
    let bytes = std::fs::read(&path).unwrap();
    assert!(
        bytes.len() >= 4096 * 2,
        "the seeded store spans several pages"
    );
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();

    let opened = Store::open(&path).await.unwrap();
    let recovery = opened.recovered.expect("a half file must be moved aside");
    assert!(recovery.moved_to.exists());
    assert_eq!(
        std::fs::read(&recovery.moved_to).unwrap(),
        &bytes[..bytes.len() / 2],
        "kept as it was"
    );
    assert_eq!(moved_aside(dir.path()).len(), 1);
    // The fresh store works.
    assert!(opened.store.threads().await.unwrap().is_empty());
    opened.store.insert_thread(&thread("new")).await.unwrap();
}

/// Folds the WAL into the main file and removes its companions, so the file alone is the store
/// (a connection of the test's own: the store has no use for a checkpoint on demand).
async fn fold_wal(path: &Path) {
    use sqlx::sqlite::SqliteConnectOptions;
    use sqlx::{ConnectOptions, Connection};
    let mut conn = SqliteConnectOptions::new()
        .filename(path)
        .connect()
        .await
        .unwrap();
    sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
        .execute(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
    for companion in ["sqlite-wal", "sqlite-shm"] {
        let _ = std::fs::remove_file(path.with_extension(companion));
    }
}

/// A store whose pages are all well formed but whose index no longer matches its table (one
/// byte of an index entry changed, as a bad disk sector or a torn write leaves it) opens, and
/// every query the Host makes at start succeeds: only `PRAGMA integrity_check` tells. It is
/// moved aside, never used.
#[tokio::test]
async fn an_index_that_disagrees_with_its_table_is_moved_aside() {
    use sqlx::sqlite::SqliteConnectOptions;
    use sqlx::{ConnectOptions, Connection};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("forkhost.sqlite");
    seeded(&path).await;
    fold_wal(&path).await;
    let (root, page_size): (i64, i64) = {
        let mut conn = SqliteConnectOptions::new()
            .filename(&path)
            .connect()
            .await
            .unwrap();
        let root = sqlx::query_scalar(
            "SELECT rootpage FROM sqlite_master WHERE type = 'index' AND tbl_name = 'threads' \
             ORDER BY name LIMIT 1",
        )
        .fetch_one(&mut conn)
        .await
        .unwrap();
        let size = sqlx::query_scalar("PRAGMA page_size")
            .fetch_one(&mut conn)
            .await
            .unwrap();
        conn.close().await.unwrap();
        (root, size)
    };
    let mut bytes = std::fs::read(&path).unwrap();
    // The last byte of the index's (single, leaf) page ends its last entry: the rowid it
    // points at. Changed, the entry points at a row that does not hold its key.
    let last = (root * page_size - 1) as usize;
    bytes[last] ^= 0x01;
    std::fs::write(&path, &bytes).unwrap();

    let opened = Store::open(&path).await.unwrap();
    let recovery = opened
        .recovered
        .expect("a store failing its integrity check must be moved aside, not used");
    assert!(recovery.reason.contains("integrity"), "{}", recovery.reason);
    assert_eq!(
        std::fs::read(&recovery.moved_to).unwrap(),
        bytes,
        "kept as it was"
    );
    assert!(
        opened.store.threads().await.unwrap().is_empty(),
        "a fresh store"
    );
    opened.store.insert_thread(&thread("new")).await.unwrap();
}

#[tokio::test]
async fn a_file_full_of_garbage_is_moved_aside_and_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("forkhost.sqlite");
    let garbage: Vec<u8> = (0..100_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(&path, &garbage).unwrap();

    let opened = Store::open(&path).await.unwrap();
    let recovery = opened.recovered.expect("garbage must be moved aside");
    assert!(
        recovery.reason.contains("not an SQLite database"),
        "{}",
        recovery.reason
    );
    assert_eq!(std::fs::read(&recovery.moved_to).unwrap(), garbage);
    opened.store.insert_thread(&thread("a")).await.unwrap();
    opened.store.close().await;

    // The next open is clean: nothing more is moved aside.
    let again = Store::open(&path).await.unwrap();
    assert!(again.recovered.is_none());
    assert_eq!(again.store.threads().await.unwrap().len(), 1);
    assert_eq!(moved_aside(dir.path()).len(), 1);
}

#[tokio::test]
async fn garbage_behind_a_valid_header_is_moved_aside() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("forkhost.sqlite");
    let mut bytes = b"SQLite format 3\0".to_vec();
    bytes.extend((0..20_000u32).map(|i| (i * 7 % 251) as u8));
    std::fs::write(&path, &bytes).unwrap();
    let opened = Store::open(&path).await.unwrap();
    assert!(opened.recovered.is_some());
    opened.store.insert_thread(&thread("a")).await.unwrap();
}

#[tokio::test]
async fn an_empty_file_becomes_a_store_without_recovery() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("forkhost.sqlite");
    std::fs::write(&path, b"").unwrap();
    let opened = Store::open(&path).await.unwrap();
    assert!(opened.recovered.is_none());
    opened.store.insert_thread(&thread("a")).await.unwrap();
}

#[tokio::test]
async fn creating_rows_of_a_dead_process_are_gone_after_reopen() {
    if let Some((role, path)) = child_role() {
        if role == "creating" {
            let store = Store::open(&path).await.unwrap().store;
            let mut fork = common::fork_of(
                "half-made",
                "a",
                Some("a1"),
                forkhost_store::Boundary::After,
            );
            fork.state = ThreadState::Creating;
            fork.native_session_id = None;
            let mut row = store.insert_thread(&fork).await.unwrap();
            // The harness derived the fork's session; the commit has not run yet.
            row.native_session_id = Some("derived".into());
            row.native_path = Some("/sessions/derived.jsonl".into());
            let row = store.update_thread(&row).await.unwrap();
            assert_eq!(row.state, ThreadState::Creating);
            println!("FORKHOST_CHILD_READY");
            std::thread::sleep(std::time::Duration::from_secs(600));
        }
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("forkhost.sqlite");
    seeded(&path).await;

    let mut child = spawn_child(
        "creating_rows_of_a_dead_process_are_gone_after_reopen",
        "creating",
        &path,
    );
    wait_for_line(&mut child, "FORKHOST_CHILD_READY");
    // While the child lives, its row is a fork in flight: a concurrent open must keep it.
    {
        let opened = Store::open(&path).await.unwrap();
        assert!(opened.removed_creating.is_empty());
        assert!(
            matches!(opened.store.thread("half-made").await, Ok(t) if t.state == ThreadState::Creating)
        );
        opened.store.close().await;
    }
    kill(child);

    let opened = Store::open(&path).await.unwrap();
    // The row removed names the session its harness derived, for the Host to remove.
    let removed: Vec<_> = opened
        .removed_creating
        .iter()
        .map(|t| (t.id.as_str(), t.native_path.as_deref()))
        .collect();
    assert_eq!(removed, [("half-made", Some("/sessions/derived.jsonl"))]);
    assert!(matches!(
        opened.store.thread("half-made").await,
        Err(StoreError::ThreadNotFound(_))
    ));
    assert_eq!(
        opened.store.threads().await.unwrap().len(),
        3,
        "nothing else was touched"
    );
    assert!(opened.store.children("a").await.unwrap().is_empty());
}

#[tokio::test]
async fn a_process_killed_inside_a_write_transaction_leaves_no_trace() {
    if let Some((role, path)) = child_role() {
        if role == "mid-transaction" {
            let store = Store::open(&path).await.unwrap().store;
            let mut tx = store.write().await.unwrap();
            for i in 0..50 {
                forkhost_store::queries::threads::insert(&mut tx, &thread(&format!("tx{i}")))
                    .await
                    .unwrap();
            }
            let a = forkhost_store::queries::threads::get(&mut tx, "a")
                .await
                .unwrap();
            forkhost_store::queries::threads::touch(&mut tx, "a", a.revision)
                .await
                .unwrap();
            forkhost_store::queries::turns::append(&mut tx, "a", &[turn("tx-turn")])
                .await
                .unwrap();
            println!("FORKHOST_CHILD_READY");
            std::thread::sleep(std::time::Duration::from_secs(600));
            drop(tx);
        }
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("forkhost.sqlite");
    seeded(&path).await;
    let before = {
        let store = Store::open(&path).await.unwrap().store;
        let t = store.thread("a").await.unwrap();
        store.close().await;
        t
    };

    let mut child = spawn_child(
        "a_process_killed_inside_a_write_transaction_leaves_no_trace",
        "mid-transaction",
        &path,
    );
    wait_for_line(&mut child, "FORKHOST_CHILD_READY");
    kill(child);

    let opened = Store::open(&path).await.unwrap();
    assert!(
        opened.recovered.is_none(),
        "a killed writer never corrupts the store"
    );
    let store = opened.store;
    let ids: Vec<_> = store
        .threads()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.id)
        .collect();
    assert_eq!(ids, ["a", "b", "c"]);
    assert_eq!(store.thread("a").await.unwrap(), before);
    assert_eq!(store.turns("a").await.unwrap().len(), 1);
    // And the write lock died with the process.
    let a = store.thread("a").await.unwrap();
    store
        .append_turns("a", a.revision, &[turn("after")])
        .await
        .unwrap();
}

/// A `creating` row whose process is alive is a fork in flight, but for ten minutes only: pids
/// are reused, so past its lease the row is abandoned whatever its pid says.
#[tokio::test]
async fn a_creating_row_of_a_live_process_is_kept_until_its_lease_ends() {
    use sqlx::sqlite::SqliteConnectOptions;
    use sqlx::{ConnectOptions, Connection};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("forkhost.sqlite");
    seeded(&path).await;
    {
        let store = Store::open(&path).await.unwrap().store;
        let mut fork = common::fork_of(
            "in-flight",
            "a",
            Some("a1"),
            forkhost_store::Boundary::After,
        );
        fork.state = ThreadState::Creating;
        fork.native_session_id = None;
        store.insert_thread(&fork).await.unwrap();
        store.close().await;
    }
    // Made by pid 1 (always alive, and never this test) `minutes` ago.
    let made_ago = |minutes: i64| {
        let path = path.clone();
        async move {
            let mut conn = SqliteConnectOptions::new()
                .filename(&path)
                .connect()
                .await
                .unwrap();
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_millis() as i64;
            sqlx::query(
                "UPDATE threads SET creating_pid = 1, created_at = ? WHERE id = 'in-flight'",
            )
            .bind(now - minutes * 60 * 1000)
            .execute(&mut conn)
            .await
            .unwrap();
            conn.close().await.unwrap();
        }
    };

    made_ago(9).await;
    let opened = Store::open(&path).await.unwrap();
    assert_eq!(
        opened.removed_creating.len(),
        0,
        "nine minutes is within the lease"
    );
    assert_eq!(
        opened.store.thread("in-flight").await.unwrap().state,
        ThreadState::Creating
    );
    opened.store.close().await;

    made_ago(11).await;
    let opened = Store::open(&path).await.unwrap();
    assert_eq!(
        opened.removed_creating.len(),
        1,
        "eleven minutes is past it"
    );
    assert!(matches!(
        opened.store.thread("in-flight").await,
        Err(StoreError::ThreadNotFound(_))
    ));
    assert_eq!(opened.store.threads().await.unwrap().len(), 3);
}
