//! Two processes writing to one store at once, in a bounded loop: every committed write is
//! present afterwards, and every lost compare-and-swap is reported as `Conflict` — never a busy
//! error, a silent overwrite or a lost row.

mod common;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{thread, turn};
use forkhost_store::{Store, StoreError};

const CHILD_ENV: &str = "FORKHOST_STORE_WRITER";
const PATH_ENV: &str = "FORKHOST_STORE_PATH";
const ROUNDS: usize = 150;

#[derive(Debug, Default, PartialEq)]
struct Tally {
    renames: u64,
    appends: u64,
    conflicts: u64,
}

async fn writer(name: &str, path: PathBuf) -> Tally {
    let store = Store::open(&path).await.unwrap().store;
    let mut tally = Tally::default();
    for i in 0..ROUNDS {
        // Writes of our own: must all land.
        let id = format!("{name}-{i}");
        let row = store.insert_thread(&thread(&id)).await.unwrap();
        store
            .append_turns(&id, row.revision, &[turn(&format!("{id}-t"))])
            .await
            .unwrap();

        // Writes to the shared thread: each either lands or is a Conflict.
        let shared = store.thread("shared").await.unwrap();
        let mut renamed = shared.clone();
        renamed.title = format!("{name} round {i}");
        match store.update_thread(&renamed).await {
            Ok(_) => tally.renames += 1,
            Err(StoreError::Conflict { .. }) => tally.conflicts += 1,
            Err(other) => panic!("rename failed with {other:?}"),
        }
        let shared = store.thread("shared").await.unwrap();
        match store
            .append_turns("shared", shared.revision, &[turn(&format!("shared-{id}"))])
            .await
        {
            Ok(_) => tally.appends += 1,
            Err(StoreError::Conflict { .. }) => tally.conflicts += 1,
            Err(other) => panic!("append failed with {other:?}"),
        }
    }
    tally
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_write_one_store_at_once() {
    if let Ok(name) = std::env::var(CHILD_ENV) {
        let tally = writer(&name, PathBuf::from(std::env::var(PATH_ENV).unwrap())).await;
        println!(
            "TALLY {} {} {}",
            tally.renames, tally.appends, tally.conflicts
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("forkhost.sqlite");
    {
        let store = Store::open(&path).await.unwrap().store;
        store.insert_thread(&thread("shared")).await.unwrap();
        store.close().await;
    }

    let children: Vec<_> = ["left", "right"]
        .into_iter()
        .map(|name| {
            Command::new(std::env::current_exe().unwrap())
                .args([
                    "two_processes_write_one_store_at_once",
                    "--exact",
                    "--nocapture",
                ])
                .env(CHILD_ENV, name)
                .env(PATH_ENV, &path)
                .stdout(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(240);
    let mut total = Tally::default();
    for mut child in children {
        while child.try_wait().unwrap().is_none() {
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("a writer did not finish in time");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "a writer failed");
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text
            .lines()
            .find_map(|l| l.split("TALLY ").nth(1))
            .expect("tally line");
        let n: Vec<u64> = line
            .split_whitespace()
            .map(|x| x.parse().unwrap())
            .collect();
        total.renames += n[0];
        total.appends += n[1];
        total.conflicts += n[2];
    }

    let store = Store::open(&path).await.unwrap().store;
    let threads = store.threads().await.unwrap();
    assert_eq!(
        threads.len(),
        1 + 2 * ROUNDS,
        "every committed thread is there"
    );
    for t in threads.iter().filter(|t| t.id != "shared") {
        assert_eq!(
            store.turns(&t.id).await.unwrap().len(),
            1,
            "{} kept its turn",
            t.id
        );
    }
    assert_eq!(
        total.renames + total.appends + total.conflicts,
        (4 * ROUNDS) as u64,
        "every shared write was either committed or a conflict"
    );
    let shared = store.thread("shared").await.unwrap();
    assert_eq!(
        shared.revision as u64,
        total.renames + total.appends,
        "no lost or phantom update"
    );
    let shared_turns = store.turns("shared").await.unwrap();
    assert_eq!(shared_turns.len() as u64, total.appends);
    assert!(shared_turns
        .iter()
        .enumerate()
        .all(|(i, t)| t.ordinal == i as i64 + 1));
    println!("two writers: {total:?}");
}
