//! The store's files are the user's alone on Unix (`0600`, folder `0700`), whatever the umask
//! of the process that made them, and a store made looser before is tightened at open.
#![cfg(unix)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::thread;
use forkhost_store::Store;

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn with_suffix(path: &Path, suffix: &str) -> std::path::PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    s.into()
}

#[tokio::test]
async fn a_new_store_and_its_wal_are_private() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("data/forkhost.sqlite");
    let opened = Store::open(&path).await.unwrap();
    opened.store.insert_thread(&thread("a")).await.unwrap();
    assert_eq!(mode(&tmp.path().join("data")), 0o700);
    assert_eq!(mode(&path), 0o600);
    // WAL mode: the companions exist while the store is open, with the database's mode.
    for suffix in ["-wal", "-shm"] {
        let companion = with_suffix(&path, suffix);
        if companion.exists() {
            assert_eq!(mode(&companion), 0o600, "{suffix}");
        }
    }
}

#[tokio::test]
async fn an_older_looser_store_is_tightened_at_open() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("forkhost.sqlite");
    {
        let opened = Store::open(&path).await.unwrap();
        opened.store.insert_thread(&thread("a")).await.unwrap();
        opened.store.close().await;
    }
    for suffix in ["", "-wal", "-shm"] {
        let file = with_suffix(&path, suffix);
        if file.exists() {
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
    }
    let opened = Store::open(&path).await.unwrap();
    assert_eq!(opened.store.threads().await.unwrap().len(), 1);
    for suffix in ["", "-wal", "-shm"] {
        let file = with_suffix(&path, suffix);
        if file.exists() {
            assert_eq!(mode(&file), 0o600, "{suffix}");
        }
    }
}
