#![allow(dead_code)]

use forkhost_store::{Boundary, Lineage, NewThread, NewTurn, Store, ThreadState};

pub async fn fresh() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let opened = Store::open(dir.path().join("forkhost.sqlite"))
        .await
        .unwrap();
    assert!(opened.recovered.is_none());
    (dir, opened.store)
}

pub fn thread(id: &str) -> NewThread {
    NewThread {
        id: id.into(),
        harness: "claude".into(),
        cwd: "/tmp/project".into(),
        title: format!("thread {id}"),
        state: ThreadState::Ready,
        native_session_id: Some(format!("native-{id}")),
        native_path: Some(format!("/tmp/native/{id}.jsonl")),
        fork: None,
        pending_fork: None,
        permission_mode: None,
        permission_sandbox: None,
    }
}

pub fn fork_of(id: &str, source: &str, turn: Option<&str>, boundary: Boundary) -> NewThread {
    NewThread {
        fork: Some(Lineage {
            source_thread: source.into(),
            source_turn: turn.map(Into::into),
            boundary,
            source_harness: None,
        }),
        ..thread(id)
    }
}

pub fn turn(id: &str) -> NewTurn {
    NewTurn {
        id: id.into(),
        native_turn_ref: format!("ref-{id}"),
        native_checkpoint_ref: Some(format!("cp-{id}")),
    }
}
