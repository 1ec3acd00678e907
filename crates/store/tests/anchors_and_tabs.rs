//! The query functions callers run inside their own transactions (`queries::turns`), and how a
//! failed layout write is reported.

mod common;

use common::{fresh, thread, turn};
use forkhost_store::queries::turns;
use forkhost_store::{Layout, NewTurn, StoreError, TabKind, TabRow, WindowRow};

#[tokio::test]
async fn a_threads_anchors_are_counted_on_their_own() {
    let (_dir, store) = fresh().await;
    for (id, anchors) in [("a", 3), ("b", 1)] {
        let row = store.insert_thread(&thread(id)).await.unwrap();
        let new: Vec<NewTurn> = (1..=anchors).map(|n| turn(&format!("{id}{n}"))).collect();
        store.append_turns(id, row.revision, &new).await.unwrap();
    }
    store.insert_thread(&thread("none")).await.unwrap();
    let mut tx = store.write().await.unwrap();
    assert_eq!(turns::count(&mut tx, "a").await.unwrap(), 3);
    assert_eq!(turns::count(&mut tx, "b").await.unwrap(), 1);
    assert_eq!(turns::count(&mut tx, "none").await.unwrap(), 0);
}

/// A grown turn's checkpoint is re-pointed on its own anchor only; an anchor that is not there
/// is `TurnNotFound`, not a silent no-op.
#[tokio::test]
async fn an_anchors_checkpoint_is_re_pointed_and_a_missing_one_is_refused() {
    let (_dir, store) = fresh().await;
    let row = store.insert_thread(&thread("a")).await.unwrap();
    store
        .append_turns("a", row.revision, &[turn("t1"), turn("t2")])
        .await
        .unwrap();
    let mut tx = store.write().await.unwrap();
    turns::set_checkpoint(&mut tx, "t1", Some("cp-grown"))
        .await
        .unwrap();
    assert!(matches!(
        turns::set_checkpoint(&mut tx, "gone", Some("x")).await,
        Err(StoreError::TurnNotFound(id)) if id == "gone"
    ));
    tx.commit().await.unwrap();
    let checkpoints: Vec<_> = store
        .turns("a")
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.native_checkpoint_ref)
        .collect();
    assert_eq!(
        checkpoints,
        [Some("cp-grown".to_owned()), Some("cp-t2".to_owned())]
    );
}

/// An anchor missing either its id or its native turn ref points nowhere: refused, and nothing
/// of the batch is written.
#[tokio::test]
async fn an_anchor_without_an_id_or_a_native_ref_is_refused() {
    let (_dir, store) = fresh().await;
    let row = store.insert_thread(&thread("a")).await.unwrap();
    for bad in [
        NewTurn {
            id: " ".into(),
            ..turn("x")
        },
        NewTurn {
            native_turn_ref: "".into(),
            ..turn("y")
        },
    ] {
        let err = store
            .append_turns("a", row.revision, &[turn("ok"), bad])
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::InvalidInput(_)), "{err:?}");
    }
    assert!(store.turns("a").await.unwrap().is_empty());
}

/// Only a tab's missing thread reads as `ThreadNotFound`; the tab insert failing for another
/// reason (here a trigger of the test's own refusing every tab, as a full disk would) stays the
/// database error it is.
#[tokio::test]
async fn a_tab_write_that_fails_otherwise_is_not_a_missing_thread() {
    use sqlx::sqlite::SqliteConnectOptions;
    use sqlx::{ConnectOptions, Connection};
    let (_dir, store) = fresh().await;
    store.insert_thread(&thread("a")).await.unwrap();
    let mut conn = SqliteConnectOptions::new()
        .filename(store.path())
        .connect()
        .await
        .unwrap();
    sqlx::query(
        "CREATE TRIGGER refuse_tabs BEFORE INSERT ON tabs \
         BEGIN SELECT RAISE(ABORT, 'no room for tabs'); END",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    conn.close().await.unwrap();
    let layout = Layout {
        windows: vec![WindowRow {
            id: "main".into(),
            active_tab: None,
            tabs: vec![TabRow {
                id: "tab-1".into(),
                thread_id: "a".into(),
                kind: TabKind::Conversation,
                host: None,
            }],
        }],
    };
    let err = store.save_layout(&layout).await.unwrap_err();
    assert!(
        matches!(&err, StoreError::Database(_)) && err.to_string().contains("no room for tabs"),
        "{err:?}"
    );
}

/// A turn's snapshot (an ACP agent's copy of the session after it) is kept on that turn alone
/// and read back with the thread's turns; a turn that is not there is `TurnNotFound`.
#[tokio::test]
async fn a_turns_snapshot_is_kept_on_that_turn() {
    let (_dir, store) = fresh().await;
    let row = store.insert_thread(&thread("a")).await.unwrap();
    store
        .append_turns("a", row.revision, &[turn("t1"), turn("t2")])
        .await
        .unwrap();
    store.set_turn_checkpoint("t2", "ses_snap").await.unwrap();
    let kept: Vec<_> = store
        .turns("a")
        .await
        .unwrap()
        .into_iter()
        .map(|t| (t.id, t.native_checkpoint_ref))
        .collect();
    assert_eq!(kept[1], ("t2".to_owned(), Some("ses_snap".to_owned())));
    assert_ne!(kept[0].1.as_deref(), Some("ses_snap"));
    assert!(matches!(
        store.set_turn_checkpoint("gone", "x").await,
        Err(StoreError::TurnNotFound(_))
    ));
}
