//! Swapping two threads' lines (a rewind and its undo): sessions, later turns with their ids,
//! coordinates of the shared turns, checkpoints and the forks cut after the turn change
//! threads in one transaction; a lost revision changes nothing; the swap back restores all.

mod common;

use common::{fork_of, fresh, thread, turn};
use forkhost_store::{
    Boundary, CheckpointRow, Edge, RewindRow, StoreError, SwapRecord, ThreadRow, ThreadState,
};

fn rewind(id: &str) -> RewindRow {
    RewindRow {
        id: id.into(),
        thread_id: "x".into(),
        branch_id: Some("b".into()),
        turn_ordinal: 2,
        kind: "conversation".into(),
        files_before: None,
        files_restored: None,
        created_at: 0,
        undone_at: None,
        files_before_undo: None,
    }
}

async fn refs(store: &forkhost_store::Store, id: &str) -> Vec<(String, i64, String)> {
    store
        .turns(id)
        .await
        .unwrap()
        .into_iter()
        .map(|t| (t.id, t.ordinal, t.native_turn_ref))
        .collect()
}

/// `x` with turns x1..x3; `b` a fork of x after x2 with b1, b2 (its own session); `late` a
/// fork of x after x3, `early` a fork of x after x1.
async fn two_lines(store: &forkhost_store::Store) -> (ThreadRow, ThreadRow) {
    let x = store.insert_thread(&thread("x")).await.unwrap();
    store
        .append_turns("x", x.revision, &[turn("x1"), turn("x2"), turn("x3")])
        .await
        .unwrap();
    let b = store
        .insert_thread(&fork_of("b", "x", Some("x2"), Boundary::After))
        .await
        .unwrap();
    store
        .append_turns("b", b.revision, &[turn("b1"), turn("b2")])
        .await
        .unwrap();
    for (id, at) in [("late", "x3"), ("early", "x1")] {
        store
            .insert_thread(&fork_of(id, "x", Some(at), Boundary::After))
            .await
            .unwrap();
    }
    for (thread, ordinal) in [("x", 1), ("x", 2), ("x", 3), ("b", 1), ("b", 2)] {
        store
            .put_checkpoint(&CheckpointRow {
                thread_id: thread.into(),
                turn_ordinal: ordinal,
                edge: Edge::End,
                commit_id: format!("{thread}-c{ordinal}"),
            })
            .await
            .unwrap();
    }
    (
        store.thread("x").await.unwrap(),
        store.thread("b").await.unwrap(),
    )
}

#[tokio::test]
async fn a_swap_trades_lines_and_the_swap_back_restores_them() {
    let (_dir, store) = fresh().await;
    let (x, b) = two_lines(&store).await;
    let before = (refs(&store, "x").await, refs(&store, "b").await);
    let swapped = store
        .swap_lines(&x, &b, 2, SwapRecord::Rewind(rewind("r1")))
        .await
        .unwrap();
    assert_eq!(
        swapped.thread.native_session_id.as_deref(),
        Some("native-b")
    );
    assert_eq!(
        swapped.branch.native_session_id.as_deref(),
        Some("native-x")
    );
    assert_eq!(swapped.thread.title, "thread x");
    assert_eq!(
        refs(&store, "x").await,
        [
            ("x1".into(), 1, "ref-b1".into()),
            ("x2".into(), 2, "ref-b2".into())
        ]
    );
    assert_eq!(
        refs(&store, "b").await,
        [
            ("b1".into(), 1, "ref-x1".into()),
            ("b2".into(), 2, "ref-x2".into()),
            ("x3".into(), 3, "ref-x3".into())
        ]
    );
    // The fork cut at the moved turn now belongs to the branch; the one at turn 1 stays.
    let late = store.thread("late").await.unwrap();
    assert_eq!(late.fork.unwrap().source_thread, "b");
    let early = store.thread("early").await.unwrap();
    assert_eq!(early.fork.unwrap().source_thread, "x");
    let b_checkpoints: Vec<String> = store
        .checkpoints("b")
        .await
        .unwrap()
        .into_iter()
        .map(|c| c.commit_id)
        .collect();
    assert_eq!(b_checkpoints, ["x-c1", "x-c2", "x-c3"]);
    assert_eq!(store.last_rewind("x").await.unwrap().unwrap().id, "r1");
    assert_eq!(store.rewound_branches().await.unwrap(), ["b"]);

    // A stale revision is refused and changes nothing.
    let stale = store
        .swap_lines(&x, &b, 2, SwapRecord::Rewind(rewind("r2")))
        .await;
    assert!(
        matches!(stale, Err(StoreError::Conflict { .. })),
        "{stale:?}"
    );
    assert_eq!(refs(&store, "x").await.len(), 2);

    // Undo: the same swap back.
    let (x, b) = (swapped.thread, swapped.branch);
    let back = store
        .swap_lines(
            &x,
            &b,
            2,
            SwapRecord::Undo {
                rewind_id: "r1".into(),
                files_before_undo: None,
            },
        )
        .await
        .unwrap();
    assert!(back.rewind.undone_at.is_some());
    assert_eq!(back.thread.native_session_id.as_deref(), Some("native-x"));
    assert_eq!(back.thread.state, ThreadState::Ready);
    assert_eq!((refs(&store, "x").await, refs(&store, "b").await), before);
    let late = store.thread("late").await.unwrap();
    assert_eq!(late.fork.unwrap().source_thread, "x");
    assert!(store.last_rewind("x").await.unwrap().is_none());
}

#[tokio::test]
async fn a_turn_either_thread_lacks_is_refused() {
    let (_dir, store) = fresh().await;
    let (x, b) = two_lines(&store).await;
    let refused = store
        .swap_lines(&x, &b, 3, SwapRecord::Rewind(rewind("r1")))
        .await;
    assert!(
        matches!(refused, Err(StoreError::InvalidInput(_))),
        "{refused:?}"
    );
    assert_eq!(refs(&store, "x").await.len(), 3);
}

/// Turn 1 is a turn like any (turn 0 is none); a branch that is not live cannot trade.
#[tokio::test]
async fn turn_one_swaps_and_an_archived_branch_is_refused() {
    let (_dir, store) = fresh().await;
    let (x, b) = two_lines(&store).await;
    let refused = store
        .swap_lines(&x, &b, 0, SwapRecord::Rewind(rewind("r0")))
        .await;
    assert!(
        matches!(refused, Err(StoreError::InvalidInput(_))),
        "{refused:?}"
    );
    let archived = store
        .update_thread(&ThreadRow {
            state: ThreadState::Archived,
            ..b.clone()
        })
        .await
        .unwrap();
    let refused = store
        .swap_lines(&x, &archived, 1, SwapRecord::Rewind(rewind("r1")))
        .await;
    assert!(
        matches!(refused, Err(StoreError::InvalidInput(_))),
        "{refused:?}"
    );
    let live = store
        .update_thread(&ThreadRow {
            state: ThreadState::Ready,
            ..archived
        })
        .await
        .unwrap();
    let swapped = store
        .swap_lines(&x, &live, 1, SwapRecord::Rewind(rewind("r1")))
        .await
        .unwrap();
    // The thread takes the branch's line after turn 1: its b2, with its id.
    assert_eq!(
        refs(&store, "x").await,
        [
            ("x1".into(), 1, "ref-b1".into()),
            ("b2".into(), 2, "ref-b2".into())
        ]
    );
    assert_eq!(refs(&store, "b").await.len(), 3);
    assert_eq!(swapped.branch.state, ThreadState::Ready);
}

/// A files-only rewind swaps nothing; it is listed with the thread (newest first), undone once,
/// and a second undo of it is refused.
#[tokio::test]
async fn rewinds_are_listed_newest_first_and_undone_once() {
    let (_dir, store) = fresh().await;
    let (_x, _b) = two_lines(&store).await;
    let files = |id: &str| RewindRow {
        branch_id: None,
        kind: "files".into(),
        files_before: Some(format!("before-{id}")),
        ..rewind(id)
    };
    store.put_rewind(&files("f1")).await.unwrap();
    let second = store.put_rewind(&files("f2")).await.unwrap();
    assert_eq!(second.files_before.as_deref(), Some("before-f2"));
    assert!(second.created_at > 0);
    let listed: Vec<String> = store
        .rewinds_of("x")
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(listed, ["f2", "f1"]);
    assert_eq!(store.last_rewind("x").await.unwrap().unwrap().id, "f2");
    let undone = store.undo_rewind("f2", Some("undo-cp")).await.unwrap();
    assert!(undone.undone_at.is_some());
    assert_eq!(undone.files_before_undo.as_deref(), Some("undo-cp"));
    assert_eq!(store.last_rewind("x").await.unwrap().unwrap().id, "f1");
    let again = store.undo_rewind("f2", None).await;
    assert!(
        matches!(again, Err(StoreError::InvalidInput(_))),
        "{again:?}"
    );
    assert!(store.rewinds_of("b").await.unwrap().is_empty());
    assert!(store.rewound_branches().await.unwrap().is_empty());
    // A rewind is listed with its branch too.
    store.put_rewind(&rewind("r1")).await.unwrap();
    assert_eq!(store.rewinds_of("b").await.unwrap().len(), 1);
}

/// Review L-3: grants answer for the session that raised them, so they move with it.
#[tokio::test]
async fn grants_move_with_the_line_and_back() {
    let (_dir, store) = fresh().await;
    let (x, b) = two_lines(&store).await;
    let grant = |id: &str, thread: &str, scope: &str| forkhost_store::GrantRow {
        id: id.into(),
        thread_id: thread.into(),
        scope: scope.into(),
        granted_at: 5,
    };
    store.add_grant(&grant("g1", "x", "touch x")).await.unwrap();
    store.add_grant(&grant("g2", "b", "touch x")).await.unwrap();
    store.add_grant(&grant("g3", "b", "ls")).await.unwrap();
    let ids = |rows: Vec<forkhost_store::GrantRow>| -> Vec<String> {
        rows.into_iter().map(|g| g.id).collect()
    };
    let swapped = store
        .swap_lines(&x, &b, 2, SwapRecord::Rewind(rewind("r1")))
        .await
        .unwrap();
    assert_eq!(ids(store.grants("x").await.unwrap()), ["g2", "g3"]);
    assert_eq!(ids(store.grants("b").await.unwrap()), ["g1"]);
    store
        .swap_lines(
            &swapped.thread,
            &swapped.branch,
            2,
            SwapRecord::Undo {
                rewind_id: "r1".into(),
                files_before_undo: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(ids(store.grants("x").await.unwrap()), ["g1"]);
    assert_eq!(ids(store.grants("b").await.unwrap()), ["g2", "g3"]);
}
