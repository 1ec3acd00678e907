//! Swapping two threads' lines (a rewind, docs/architecture.md "Rewind"), row by row: each
//! thread takes the other's native file, pending-fork record and state, in the returned rows
//! and in the store; only turns both threads hold can be the cut; only live threads trade.

mod common;

use common::{fork_of, fresh, thread, turn};
use forkhost_store::{
    Boundary, NewThread, RewindRow, StoreError, SwapRecord, ThreadRow, ThreadState,
};

fn rewind(id: &str, turn_ordinal: i64) -> RewindRow {
    RewindRow {
        id: id.into(),
        thread_id: "x".into(),
        branch_id: Some("b".into()),
        turn_ordinal,
        kind: "conversation".into(),
        files_before: None,
        files_restored: None,
        created_at: 0,
        undone_at: None,
        files_before_undo: None,
    }
}

/// `x` (ready, 3 turns) and `b`, a fork of x after its turn 2 made as `branch` says, with
/// `b_turns` turns.
async fn lines(
    store: &forkhost_store::Store,
    branch: impl FnOnce(NewThread) -> NewThread,
    b_turns: &[&str],
) -> (ThreadRow, ThreadRow) {
    let x = store.insert_thread(&thread("x")).await.unwrap();
    store
        .append_turns("x", x.revision, &[turn("x1"), turn("x2"), turn("x3")])
        .await
        .unwrap();
    let b = store
        .insert_thread(&branch(fork_of("b", "x", Some("x2"), Boundary::After)))
        .await
        .unwrap();
    let turns: Vec<_> = b_turns.iter().map(|id| turn(id)).collect();
    if !turns.is_empty() {
        store.append_turns("b", b.revision, &turns).await.unwrap();
    }
    (
        store.thread("x").await.unwrap(),
        store.thread("b").await.unwrap(),
    )
}

fn pending(new: NewThread) -> NewThread {
    NewThread {
        state: ThreadState::Pending,
        pending_fork: Some("resume native-x at cp-x2".into()),
        ..new
    }
}

#[tokio::test]
async fn each_thread_takes_the_others_file_pending_record_and_state() {
    let (_dir, store) = fresh().await;
    let (x, b) = lines(&store, pending, &["b1", "b2"]).await;
    let swapped = store
        .swap_lines(&x, &b, 2, SwapRecord::Rewind(rewind("r1", 2)))
        .await
        .unwrap();
    let stored = (
        store.thread("x").await.unwrap(),
        store.thread("b").await.unwrap(),
    );
    for (x, b) in [(&swapped.thread, &swapped.branch), (&stored.0, &stored.1)] {
        assert_eq!(x.native_path.as_deref(), Some("/tmp/native/b.jsonl"));
        assert_eq!(x.pending_fork.as_deref(), Some("resume native-x at cp-x2"));
        assert_eq!(x.state, ThreadState::Pending);
        assert_eq!(b.native_path.as_deref(), Some("/tmp/native/x.jsonl"));
        assert_eq!(b.pending_fork, None);
        assert_eq!(b.state, ThreadState::Ready);
        assert_eq!(x.title, "thread x", "a thread keeps its own title");
    }
    // Both sides list the rewind.
    for id in ["x", "b"] {
        let listed: Vec<String> = store
            .rewinds_of(id)
            .await
            .unwrap()
            .into_iter()
            .map(|r| r.id)
            .collect();
        assert_eq!(listed, ["r1"], "{id}");
    }
    assert!(store.rewinds_of("nobody").await.unwrap().is_empty());
}

#[tokio::test]
async fn the_cut_is_a_turn_both_threads_hold() {
    let (_dir, store) = fresh().await;
    let (x, b) = lines(&store, |t| t, &["b1", "b2", "b3", "b4"]).await;
    for refused in [0, -1, 4] {
        let result = store
            .swap_lines(&x, &b, refused, SwapRecord::Rewind(rewind("r0", refused)))
            .await;
        assert!(
            matches!(result, Err(StoreError::InvalidInput(_))),
            "turn {refused}: {result:?}"
        );
    }
    assert_eq!(store.turns("x").await.unwrap().len(), 3, "nothing changed");
    let at_one = store
        .swap_lines(&x, &b, 1, SwapRecord::Rewind(rewind("r1", 1)))
        .await
        .unwrap();
    assert_eq!(at_one.thread.native_session_id.as_deref(), Some("native-b"));
    assert_eq!(store.turns("x").await.unwrap().len(), 4, "x took b's line");
}

#[tokio::test]
async fn a_thread_that_is_not_live_trades_no_line() {
    for archived in ["x", "b"] {
        let (_dir, store) = fresh().await;
        let (x, b) = lines(&store, |t| t, &["b1", "b2"]).await;
        let gone = if archived == "x" { &x } else { &b };
        let gone = store
            .update_thread(&ThreadRow {
                state: ThreadState::Archived,
                ..gone.clone()
            })
            .await
            .unwrap();
        let (x, b) = if archived == "x" {
            (gone, b)
        } else {
            (x, gone)
        };
        let result = store
            .swap_lines(&x, &b, 2, SwapRecord::Rewind(rewind("r1", 2)))
            .await;
        assert!(
            matches!(result, Err(StoreError::InvalidInput(_))),
            "{archived} archived: {result:?}"
        );
        assert_eq!(
            store
                .thread("x")
                .await
                .unwrap()
                .native_session_id
                .as_deref(),
            Some("native-x")
        );
    }
}
