//! Every store query, on a fresh store per test.

mod common;

use common::{fork_of, fresh, thread, turn};
use forkhost_store::{
    Boundary, CheckpointRow, Edge, GrantRow, Layout, StoreError, TabKind, TabRow, ThreadState,
    WindowRow,
};

#[tokio::test]
async fn inserts_gets_and_lists_threads() {
    let (_dir, store) = fresh().await;
    let a = store.insert_thread(&thread("a")).await.unwrap();
    assert_eq!(a.revision, 0);
    assert_eq!(a.state, ThreadState::Ready);
    assert_eq!(store.thread("a").await.unwrap(), a);
    store.insert_thread(&thread("b")).await.unwrap();
    let mut creating = thread("c");
    creating.state = ThreadState::Creating;
    store.insert_thread(&creating).await.unwrap();

    let ids: Vec<_> = store
        .threads()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.id)
        .collect();
    assert_eq!(ids, ["a", "b"], "creating rows are not listed");
    let by_native = store.thread_by_native("claude", "native-b").await.unwrap();
    assert_eq!(by_native.unwrap().id, "b");
    assert!(store
        .thread_by_native("codex", "native-b")
        .await
        .unwrap()
        .is_none());
}

#[tokio::test]
async fn a_threads_permission_mode_is_stored_and_changed() {
    let (_dir, store) = fresh().await;
    let plain = store.insert_thread(&thread("plain")).await.unwrap();
    assert_eq!(
        (plain.permission_mode, plain.permission_sandbox),
        (None, None)
    );
    let mut codex = thread("codex");
    codex.permission_mode = Some("untrusted".into());
    codex.permission_sandbox = Some("read-only".into());
    let mut row = store.insert_thread(&codex).await.unwrap();
    assert_eq!(row.permission_mode.as_deref(), Some("untrusted"));
    assert_eq!(row.permission_sandbox.as_deref(), Some("read-only"));
    row.permission_mode = Some("never".into());
    row.permission_sandbox = None;
    let row = store.update_thread(&row).await.unwrap();
    let read = store.thread("codex").await.unwrap();
    assert_eq!(read, row);
    assert_eq!(read.permission_mode.as_deref(), Some("never"));
    assert_eq!(read.permission_sandbox, None);
}

#[tokio::test]
async fn session_grants_are_kept_once_revocable_and_go_with_their_thread() {
    let (_dir, store) = fresh().await;
    let source = store.insert_thread(&thread("source")).await.unwrap();
    store.insert_thread(&thread("fork")).await.unwrap();
    let grant = |id: &str, thread: &str, scope: &str, at| GrantRow {
        id: id.into(),
        thread_id: thread.into(),
        scope: scope.into(),
        granted_at: at,
    };
    let first = store
        .add_grant(&grant("g1", "source", "{\"a\":1}", 5))
        .await
        .unwrap();
    assert_eq!(first.id, "g1");
    let again = store
        .add_grant(&grant("g2", "source", "{\"a\":1}", 9))
        .await
        .unwrap();
    assert_eq!(again, first, "the same scope twice keeps the first grant");
    store
        .add_grant(&grant("g3", "source", "{\"b\":2}", 7))
        .await
        .unwrap();
    let ids = |rows: Vec<GrantRow>| rows.into_iter().map(|r| r.id).collect::<Vec<_>>();
    assert_eq!(ids(store.grants("source").await.unwrap()), ["g1", "g3"]);
    assert!(
        store.grants("fork").await.unwrap().is_empty(),
        "nothing copied"
    );
    assert!(
        store
            .add_grant(&grant("g4", "nobody", "{}", 1))
            .await
            .is_err(),
        "a grant needs its thread"
    );
    assert!(
        !store.revoke_grant("fork", "g1").await.unwrap(),
        "another thread's grant"
    );
    assert!(store.revoke_grant("source", "g1").await.unwrap());
    assert!(
        !store.revoke_grant("source", "g1").await.unwrap(),
        "revoked once"
    );
    assert_eq!(ids(store.grants("source").await.unwrap()), ["g3"]);
    store
        .delete_thread("source", source.revision)
        .await
        .unwrap();
    assert!(store.grants("source").await.unwrap().is_empty());
}

#[tokio::test]
async fn folder_trust_is_undecided_until_set_can_change_be_listed_and_revoked() {
    let (_dir, store) = fresh().await;
    let decided = |folder: &str| {
        let store = store.clone();
        let folder = folder.to_owned();
        async move {
            store
                .folder_trust(&folder)
                .await
                .unwrap()
                .map(|row| (row.trusted, row.fingerprint))
        }
    };
    assert_eq!(decided("/r").await, None);
    store.set_folder_trust("/r", false, "a").await.unwrap();
    assert_eq!(decided("/r").await, Some((false, Some("a".into()))));
    store.set_folder_trust("/r", true, "b").await.unwrap();
    assert_eq!(decided("/r").await, Some((true, Some("b".into()))));
    assert_eq!(decided("/other").await, None);
    store.set_folder_trust("/other", false, "").await.unwrap();
    let listed: Vec<_> = store.folder_trusts().await.unwrap();
    let listed: Vec<_> = listed
        .iter()
        .map(|r| (r.folder.as_str(), r.trusted))
        .collect();
    assert_eq!(listed, [("/other", false), ("/r", true)]);
    assert!(store.revoke_folder_trust("/r").await.unwrap());
    assert!(!store.revoke_folder_trust("/r").await.unwrap());
    assert_eq!(decided("/r").await, None);
    assert_eq!(store.folder_trusts().await.unwrap().len(), 1);
}

#[tokio::test]
async fn checkpoints_and_worktrees_are_kept_per_thread() {
    use forkhost_store::{CheckpointRow, Edge, WorktreeRow};
    let (_dir, store) = fresh().await;
    store.insert_thread(&thread("a")).await.unwrap();
    store.insert_thread(&thread("f")).await.unwrap();
    let cp = |ordinal, edge, commit: &str| CheckpointRow {
        thread_id: "a".into(),
        turn_ordinal: ordinal,
        edge,
        commit_id: commit.into(),
    };
    for row in [
        cp(2, Edge::End, "c4"),
        cp(1, Edge::End, "c2"),
        cp(1, Edge::Start, "c1"),
        cp(2, Edge::Start, "c3"),
    ] {
        store.put_checkpoint(&row).await.unwrap();
    }
    store.put_checkpoint(&cp(2, Edge::End, "c5")).await.unwrap();
    let commits: Vec<_> = store
        .checkpoints("a")
        .await
        .unwrap()
        .into_iter()
        .map(|c| c.commit_id)
        .collect();
    assert_eq!(
        commits,
        ["c1", "c2", "c3", "c5"],
        "by turn, start first; replaced"
    );
    store.copy_checkpoints("a", "f", 1).await.unwrap();
    let copied = store.checkpoints("f").await.unwrap();
    assert_eq!(copied.len(), 2);
    assert!(copied
        .iter()
        .all(|c| c.thread_id == "f" && c.turn_ordinal == 1));

    assert_eq!(store.worktree("f").await.unwrap(), None);
    let wt = WorktreeRow {
        thread_id: "f".into(),
        path: "/data/worktrees/r/f".into(),
        branch: "forkhost/f".into(),
        repo_root: "/r".into(),
        base_commit: "c2".into(),
    };
    store.put_worktree(&wt).await.unwrap();
    assert_eq!(store.worktree("f").await.unwrap(), Some(wt));
    store.forget_worktree("f").await.unwrap();
    assert_eq!(store.worktree("f").await.unwrap(), None);
}

/// A fork that kept its source's checkpoints shares their commits: neither thread's refs may
/// be pruned while the other still points at them. Once the fork forgets its copies, the
/// source's are its own again.
#[tokio::test]
async fn checkpoints_a_fork_kept_are_shared_until_it_forgets_them() {
    use forkhost_store::{CheckpointRow, Edge};
    let (_dir, store) = fresh().await;
    for id in ["a", "f", "lone"] {
        store.insert_thread(&thread(id)).await.unwrap();
    }
    for (id, commit) in [("a", "c1"), ("lone", "c9")] {
        store
            .put_checkpoint(&CheckpointRow {
                thread_id: id.into(),
                turn_ordinal: 1,
                edge: Edge::End,
                commit_id: commit.into(),
            })
            .await
            .unwrap();
    }
    assert!(!store.checkpoints_shared("a").await.unwrap(), "no fork yet");
    store.copy_checkpoints("a", "f", 1).await.unwrap();
    assert!(store.checkpoints_shared("a").await.unwrap());
    assert!(store.checkpoints_shared("f").await.unwrap());
    assert!(!store.checkpoints_shared("lone").await.unwrap());
    store.forget_checkpoints("f").await.unwrap();
    assert!(!store.checkpoints_shared("a").await.unwrap());
}

#[tokio::test]
async fn a_repositorys_setup_command_is_set_changed_and_removed() {
    let (_dir, store) = fresh().await;
    assert_eq!(store.setup_command("/r").await.unwrap(), None);
    store
        .set_setup_command("/r", Some("npm ci"), Some("aaa"))
        .await
        .unwrap();
    store
        .set_setup_command("/r", Some(" make setup "), Some("bbb"))
        .await
        .unwrap();
    assert_eq!(
        store.setup_command("/r").await.unwrap().as_deref(),
        Some("make setup")
    );
    assert_eq!(
        store.setup_with_identity("/r").await.unwrap(),
        Some(("make setup".into(), Some("bbb".into()))),
        "saved with the repository it is for"
    );
    store
        .set_setup_command("/r", Some("  "), None)
        .await
        .unwrap();
    assert_eq!(store.setup_command("/r").await.unwrap(), None);
}

#[tokio::test]
async fn unknown_thread_and_bad_input_are_typed() {
    let (_dir, store) = fresh().await;
    assert!(
        matches!(store.thread("nope").await, Err(StoreError::ThreadNotFound(id)) if id == "nope")
    );
    let mut empty = thread("x");
    empty.cwd = " ".into();
    assert!(matches!(
        store.insert_thread(&empty).await,
        Err(StoreError::InvalidInput(_))
    ));
    assert!(
        store.threads().await.unwrap().is_empty(),
        "nothing half-made is left"
    );
}

#[tokio::test]
async fn one_thread_per_native_session() {
    let (_dir, store) = fresh().await;
    store.insert_thread(&thread("a")).await.unwrap();
    let mut twin = thread("b");
    twin.native_session_id = Some("native-a".into());
    assert!(matches!(
        store.insert_thread(&twin).await,
        Err(StoreError::Duplicate(_))
    ));
    assert!(matches!(
        store.insert_thread(&thread("a")).await,
        Err(StoreError::Duplicate(_))
    ));
}

#[tokio::test]
async fn updates_compare_and_swap_the_revision() {
    let (_dir, store) = fresh().await;
    let first = store.insert_thread(&thread("a")).await.unwrap();

    let mut renamed = first.clone();
    renamed.title = "renamed".into();
    let renamed = store.update_thread(&renamed).await.unwrap();
    assert_eq!(renamed.revision, 1);
    assert_eq!(store.thread("a").await.unwrap().title, "renamed");

    // A writer holding the old revision loses, and its change is not applied.
    let mut stale = first.clone();
    stale.title = "stale".into();
    match store.update_thread(&stale).await {
        Err(StoreError::Conflict {
            id,
            expected,
            found,
        }) => {
            assert_eq!((id.as_str(), expected, found), ("a", 0, 1));
        }
        other => panic!("expected a conflict, got {other:?}"),
    }
    assert_eq!(store.thread("a").await.unwrap().title, "renamed");

    // Deleting with a stale revision conflicts too; with the current one it works.
    assert!(matches!(
        store.delete_thread("a", 0).await,
        Err(StoreError::Conflict { .. })
    ));
    store.delete_thread("a", 1).await.unwrap();
    assert!(matches!(
        store.delete_thread("a", 1).await,
        Err(StoreError::ThreadNotFound(_))
    ));
    let mut gone = renamed;
    gone.title = "ghost".into();
    assert!(matches!(
        store.update_thread(&gone).await,
        Err(StoreError::ThreadNotFound(_))
    ));
}

#[tokio::test]
async fn appends_turn_anchors_in_order_under_the_thread_revision() {
    let (_dir, store) = fresh().await;
    let a = store.insert_thread(&thread("a")).await.unwrap();
    let (rev, added) = store
        .append_turns("a", a.revision, &[turn("t1"), turn("t2")])
        .await
        .unwrap();
    assert_eq!(rev, 1);
    assert_eq!(added.iter().map(|t| t.ordinal).collect::<Vec<_>>(), [1, 2]);
    let (rev, _) = store.append_turns("a", rev, &[turn("t3")]).await.unwrap();
    assert_eq!(rev, 2);

    let turns = store.turns("a").await.unwrap();
    assert_eq!(
        turns.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
        ["t1", "t2", "t3"]
    );
    assert_eq!(turns[2].ordinal, 3);
    assert_eq!(turns[1].native_checkpoint_ref.as_deref(), Some("cp-t2"));
    assert_eq!(store.turn("t2").await.unwrap().ordinal, 2);
    assert_eq!(store.turn_at("a", 3).await.unwrap().id, "t3");
    assert!(matches!(
        store.turn_at("a", 4).await,
        Err(StoreError::TurnNotFound(_))
    ));
    assert!(matches!(
        store.turn_at("a", 0).await,
        Err(StoreError::TurnNotFound(_))
    ));
    assert!(matches!(
        store.turn("zzz").await,
        Err(StoreError::TurnNotFound(_))
    ));

    // A stale revision appends nothing.
    assert!(matches!(
        store.append_turns("a", 0, &[turn("t4")]).await,
        Err(StoreError::Conflict { .. })
    ));
    assert_eq!(store.turns("a").await.unwrap().len(), 3);
    // A duplicate native turn ref rolls the whole append back, revision included.
    let dup = forkhost_store::NewTurn {
        id: "t5".into(),
        ..turn("t1")
    };
    assert!(matches!(
        store.append_turns("a", 2, &[turn("t4"), dup]).await,
        Err(StoreError::Duplicate(_))
    ));
    assert_eq!(store.turns("a").await.unwrap().len(), 3);
    assert_eq!(store.thread("a").await.unwrap().revision, 2);
}

#[tokio::test]
async fn commit_thread_sets_state_and_anchors_in_one_step() {
    let (_dir, store) = fresh().await;
    let mut creating = thread("f");
    creating.state = ThreadState::Creating;
    creating.native_session_id = None;
    let row = store.insert_thread(&creating).await.unwrap();

    let mut ready = row.clone();
    ready.state = ThreadState::Ready;
    ready.native_session_id = Some("native-f".into());
    let (committed, anchors) = store
        .commit_thread(&ready, &[turn("f1"), turn("f2")])
        .await
        .unwrap();
    assert_eq!(committed.state, ThreadState::Ready);
    assert_eq!(committed.revision, 1);
    assert_eq!(anchors.len(), 2);

    // Committing again from the old revision changes nothing at all.
    assert!(matches!(
        store.commit_thread(&ready, &[turn("f3")]).await,
        Err(StoreError::Conflict { .. })
    ));
    assert_eq!(store.turns("f").await.unwrap().len(), 2);
}

#[tokio::test]
async fn lineage_queries_walk_the_family() {
    let (_dir, store) = fresh().await;
    let root = store.insert_thread(&thread("root")).await.unwrap();
    store
        .append_turns("root", root.revision, &[turn("r1"), turn("r2")])
        .await
        .unwrap();
    store
        .insert_thread(&fork_of("child", "root", Some("r1"), Boundary::After))
        .await
        .unwrap();
    store
        .insert_thread(&fork_of("child2", "root", Some("r2"), Boundary::Before))
        .await
        .unwrap();
    let child = store.thread("child").await.unwrap();
    store
        .append_turns("child", child.revision, &[turn("c1")])
        .await
        .unwrap();
    store
        .insert_thread(&fork_of(
            "grandchild",
            "child",
            Some("c1"),
            Boundary::Latest,
        ))
        .await
        .unwrap();

    let fork = store.thread("child2").await.unwrap().fork.unwrap();
    assert_eq!(fork.source_thread, "root");
    assert_eq!(fork.source_turn.as_deref(), Some("r2"));
    assert_eq!(fork.boundary, Boundary::Before);

    let kids: Vec<_> = store
        .children("root")
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.id)
        .collect();
    assert_eq!(kids, ["child", "child2"]);
    let at_r1: Vec<_> = store
        .forks_of_turn("r1")
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.id)
        .collect();
    assert_eq!(at_r1, ["child"]);
    let up: Vec<_> = store
        .ancestors("grandchild")
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.id)
        .collect();
    assert_eq!(up, ["child", "root"]);
    assert!(store.ancestors("root").await.unwrap().is_empty());

    // Deleting a source keeps its forks, with the link cleared rather than dangling.
    let root = store.thread("root").await.unwrap();
    store.delete_thread("root", root.revision).await.unwrap();
    let orphan = store.thread("child").await.unwrap();
    assert!(orphan.fork.is_none() || orphan.fork.as_ref().unwrap().source_turn.is_none());
    assert!(
        store.turns("root").await.unwrap().is_empty(),
        "anchors go with their thread"
    );
}

#[tokio::test]
async fn layout_round_trips_and_refuses_unknown_threads() {
    let (_dir, store) = fresh().await;
    assert_eq!(store.layout().await.unwrap(), Layout::default());
    store.insert_thread(&thread("a")).await.unwrap();
    store.insert_thread(&thread("b")).await.unwrap();
    let layout = Layout {
        windows: vec![
            WindowRow {
                id: "main".into(),
                active_tab: Some("tab-2".into()),
                tabs: vec![
                    TabRow {
                        id: "tab-1".into(),
                        thread_id: "a".into(),
                        kind: TabKind::Conversation,
                        host: None,
                    },
                    TabRow {
                        id: "tab-2".into(),
                        thread_id: "b".into(),
                        kind: TabKind::Terminal,
                        host: None,
                    },
                ],
            },
            WindowRow {
                id: "fork-1".into(),
                active_tab: None,
                tabs: vec![TabRow {
                    id: "tab-3".into(),
                    thread_id: "b".into(),
                    kind: TabKind::Conversation,
                    host: None,
                }],
            },
        ],
    };
    store.save_layout(&layout).await.unwrap();
    assert_eq!(store.layout().await.unwrap(), layout);

    let mut bad = layout.clone();
    bad.windows[1].tabs[0].thread_id = "missing".into();
    assert!(
        matches!(store.save_layout(&bad).await, Err(StoreError::ThreadNotFound(id)) if id == "missing")
    );
    assert_eq!(
        store.layout().await.unwrap(),
        layout,
        "a failed save keeps the old layout"
    );

    // A thread that goes away takes its tabs with it.
    let b = store.thread("b").await.unwrap();
    store.delete_thread("b", b.revision).await.unwrap();
    let left = store.layout().await.unwrap();
    assert_eq!(left.windows[0].tabs.len(), 1);
    assert!(left.windows[1].tabs.is_empty());
}

#[tokio::test]
async fn a_remote_hosts_tabs_keep_their_place_and_go_with_the_host() {
    use forkhost_store::queries::remote_hosts::RemoteHostRow;
    let (_dir, store) = fresh().await;
    store.insert_thread(&thread("a")).await.unwrap();
    store
        .put_remote_host(&RemoteHostRow {
            name: "box".into(),
            destination: "me@box".into(),
            ssh_options: "[]".into(),
            remote_program: None,
            added_at: 1,
        })
        .await
        .unwrap();
    let tab = |id: &str, thread: &str, host: Option<&str>| TabRow {
        id: id.into(),
        thread_id: thread.into(),
        kind: TabKind::Conversation,
        host: host.map(Into::into),
    };
    let layout = Layout {
        windows: vec![WindowRow {
            id: "main".into(),
            active_tab: Some("r".into()),
            tabs: vec![
                tab("l1", "a", None),
                tab("r", "a", Some("box")),
                tab("l2", "a", None),
            ],
        }],
    };
    store.save_layout(&layout).await.unwrap();
    assert_eq!(
        store.layout().await.unwrap(),
        layout,
        "a remote tab keeps its place among the local ones"
    );

    let mut unknown = layout.clone();
    unknown.windows[0].tabs[1].host = Some("nowhere".into());
    assert!(matches!(
        store.save_layout(&unknown).await,
        Err(StoreError::ThreadNotFound(id)) if id == "nowhere:a"
    ));

    assert!(store.remove_remote_host("box").await.unwrap());
    let left = store.layout().await.unwrap();
    let ids: Vec<_> = left.windows[0].tabs.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["l1", "l2"], "removing the host removed its tabs");
}

#[tokio::test]
async fn added_acp_agents_are_kept_replaced_and_forgotten() {
    let (_dir, store) = fresh().await;
    assert!(store.acp_agents().await.unwrap().is_empty());
    store
        .put_acp_agent("qwen", r#"["qwen","--acp"]"#)
        .await
        .unwrap();
    store
        .put_acp_agent("goose", r#"["goose","acp"]"#)
        .await
        .unwrap();
    let all = store.acp_agents().await.unwrap();
    let names: Vec<_> = all.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["goose", "qwen"], "by name");
    let added_at = all[1].added_at;
    assert!(added_at > 0);

    // The same name again: its command changes, when it was added does not.
    store
        .put_acp_agent("qwen", r#"["qwen-code","--acp"]"#)
        .await
        .unwrap();
    let qwen = store.acp_agents().await.unwrap().pop().unwrap();
    assert_eq!(
        (qwen.command.as_str(), qwen.added_at),
        (r#"["qwen-code","--acp"]"#, added_at)
    );

    assert!(store.remove_acp_agent("qwen").await.unwrap());
    assert!(
        !store.remove_acp_agent("qwen").await.unwrap(),
        "gone already"
    );
    let names: Vec<_> = store
        .acp_agents()
        .await
        .unwrap()
        .into_iter()
        .map(|a| a.name)
        .collect();
    assert_eq!(names, ["goose"]);
}

#[tokio::test]
async fn a_threads_origin_on_another_machine_is_kept_replaced_and_goes_with_it() {
    let (_dir, store) = fresh().await;
    let a = store.insert_thread(&thread("a")).await.unwrap();
    store.insert_thread(&thread("b")).await.unwrap();
    assert_eq!(store.branch_origin("a").await.unwrap(), None);
    let origin = forkhost_store::BranchOriginRow {
        thread_id: "a".into(),
        from_host: "box".into(),
        from_thread: "r1".into(),
        from_title: "Fix the parser".into(),
        turns: 2,
        moved_at: 5,
    };
    store.put_branch_origin(&origin).await.unwrap();
    assert_eq!(
        store.branch_origin("a").await.unwrap(),
        Some(origin.clone())
    );
    assert_eq!(
        store.branch_origin("b").await.unwrap(),
        None,
        "its own row only"
    );
    // Recorded again (the same thread moved again): the new origin replaces the old.
    let again = forkhost_store::BranchOriginRow {
        from_host: "laptop".into(),
        from_thread: "r9".into(),
        from_title: "Fix it".into(),
        turns: 3,
        moved_at: 9,
        ..origin
    };
    store.put_branch_origin(&again).await.unwrap();
    assert_eq!(store.branch_origin("a").await.unwrap(), Some(again));
    // The thread gone, its origin goes too.
    store.delete_thread("a", a.revision).await.unwrap();
    assert_eq!(store.branch_origin("a").await.unwrap(), None);
}

#[tokio::test]
async fn reopening_keeps_everything() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/forkhost.sqlite");
    {
        let store = forkhost_store::Store::open(&path).await.unwrap().store;
        let a = store.insert_thread(&thread("a")).await.unwrap();
        store
            .append_turns("a", a.revision, &[turn("t1")])
            .await
            .unwrap();
        store.close().await;
    }
    let opened = forkhost_store::Store::open(&path).await.unwrap();
    assert!(opened.recovered.is_none());
    assert!(opened.removed_creating.is_empty());
    assert_eq!(opened.store.turns("a").await.unwrap().len(), 1);
}

/// A closed store is closed for every clone (the app closes it before it exits): nothing reads
/// or writes through it afterwards.
#[tokio::test]
async fn a_closed_store_takes_no_more_work() {
    let (_dir, store) = fresh().await;
    let clone = store.clone();
    store.insert_thread(&thread("a")).await.unwrap();
    store.close().await;
    assert!(clone.threads().await.is_err());
    assert!(clone.insert_thread(&thread("b")).await.is_err());
}

#[tokio::test]
async fn sync_turns_repoints_anchors_and_appends_under_one_revision() {
    let (_dir, store) = fresh().await;
    let a = store.insert_thread(&thread("a")).await.unwrap();
    let (_, anchors) = store
        .append_turns("a", a.revision, &[turn("t1"), turn("t2")])
        .await
        .unwrap();
    let row = store.thread("a").await.unwrap();
    let mut moved = anchors[1].clone();
    moved.native_turn_ref = "new-ref".into();
    moved.native_checkpoint_ref = None;
    let (after, added) = store
        .sync_turns(&row, &[moved], &[turn("t3")])
        .await
        .unwrap();
    assert_eq!(after.revision, row.revision + 1);
    assert_eq!(added[0].ordinal, 3);
    let turns = store.turns("a").await.unwrap();
    assert_eq!(turns[1].id, "t2", "the host turn id stays");
    assert_eq!(turns[1].native_turn_ref, "new-ref");
    assert_eq!(turns[1].native_checkpoint_ref, None);

    // A stale revision changes nothing, not even the anchors.
    let mut again = turns[0].clone();
    again.native_turn_ref = "x".into();
    assert!(matches!(
        store.sync_turns(&row, &[again], &[]).await,
        Err(StoreError::Conflict { .. })
    ));
    assert_eq!(store.turns("a").await.unwrap()[0].native_turn_ref, "ref-t1");

    // An anchor of another thread is refused.
    store.insert_thread(&thread("b")).await.unwrap();
    let b = store.thread("b").await.unwrap();
    assert!(matches!(
        store.sync_turns(&b, &[turns[0].clone()], &[]).await,
        Err(StoreError::InvalidInput(_))
    ));
}

#[tokio::test]
async fn forgetting_checkpoints_removes_the_threads_own_only() {
    let (_dir, store) = fresh().await;
    store.insert_thread(&thread("a")).await.unwrap();
    store.insert_thread(&thread("b")).await.unwrap();
    for (id, ordinal) in [("a", 1), ("a", 2), ("b", 1)] {
        store
            .put_checkpoint(&CheckpointRow {
                thread_id: id.into(),
                turn_ordinal: ordinal,
                edge: Edge::End,
                commit_id: format!("{id}{ordinal}"),
            })
            .await
            .unwrap();
    }
    assert_eq!(store.checkpoints("a").await.unwrap().len(), 2);
    store.forget_checkpoints("a").await.unwrap();
    assert!(
        store.checkpoints("a").await.unwrap().is_empty(),
        "still there"
    );
    assert_eq!(
        store.checkpoints("b").await.unwrap().len(),
        1,
        "another thread's went too"
    );
}

#[tokio::test]
async fn a_forks_source_harness_is_kept_and_updated() {
    let (_dir, store) = fresh().await;
    store.insert_thread(&thread("src")).await.unwrap();
    let mut crossed = fork_of("into-codex", "src", None, Boundary::After);
    crossed.harness = "codex".into();
    if let Some(fork) = crossed.fork.as_mut() {
        fork.source_harness = Some("claude".into());
    }
    let row = store.insert_thread(&crossed).await.unwrap();
    let fork = row.fork.clone().unwrap();
    assert_eq!(fork.source_harness.as_deref(), Some("claude"));
    assert_eq!(store.thread("into-codex").await.unwrap(), row);

    // An update writes it like the rest of the lineage; a fork without one reads `None`.
    let mut next = row.clone();
    next.fork.as_mut().unwrap().source_harness = Some("pi".into());
    let updated = store.update_thread(&next).await.unwrap();
    assert_eq!(updated.fork.unwrap().source_harness.as_deref(), Some("pi"));
    store
        .insert_thread(&fork_of("plain", "src", None, Boundary::After))
        .await
        .unwrap();
    let plain = store.thread("plain").await.unwrap().fork.unwrap();
    assert_eq!(plain.source_harness, None);
}

#[tokio::test]
async fn forks_first_own_turns_and_source_turn_numbers() {
    let (_dir, store) = fresh().await;
    let root = store.insert_thread(&thread("root")).await.unwrap();
    store
        .append_turns("root", root.revision, &[turn("r1"), turn("r2")])
        .await
        .unwrap();
    // After turn 1: it inherits turn 1, its own first is its turn 2.
    let after = store
        .insert_thread(&fork_of("after", "root", Some("r1"), Boundary::After))
        .await
        .unwrap();
    store
        .append_turns(
            "after",
            after.revision,
            &[turn("a1"), turn("a2"), turn("a3")],
        )
        .await
        .unwrap();
    // Before turn 2: it inherits turn 1 too, and its own first is also its turn 2.
    let before = store
        .insert_thread(&fork_of("before", "root", Some("r2"), Boundary::Before))
        .await
        .unwrap();
    store
        .append_turns("before", before.revision, &[turn("b1"), turn("b2")])
        .await
        .unwrap();
    // After turn 2 with no turn of its own yet.
    let idle = store
        .insert_thread(&fork_of("idle", "root", Some("r2"), Boundary::After))
        .await
        .unwrap();
    store
        .append_turns("idle", idle.revision, &[turn("i1"), turn("i2")])
        .await
        .unwrap();

    let mut firsts = store.first_own_turns(None).await.unwrap();
    firsts.sort();
    assert_eq!(
        firsts,
        [
            ("after".to_owned(), "ref-a2".to_owned()),
            ("before".to_owned(), "ref-b2".to_owned())
        ]
    );
    assert_eq!(
        store.first_own_turns(Some("after")).await.unwrap(),
        [("after".to_owned(), "ref-a2".to_owned())]
    );
    assert!(store
        .first_own_turns(Some("idle"))
        .await
        .unwrap()
        .is_empty());
    assert!(store
        .first_own_turns(Some("root"))
        .await
        .unwrap()
        .is_empty());

    let mut numbers = store.source_turn_numbers(None).await.unwrap();
    numbers.sort();
    assert_eq!(
        numbers,
        [
            ("after".to_owned(), 1),
            ("before".to_owned(), 2),
            ("idle".to_owned(), 2)
        ]
    );
    assert_eq!(
        store.source_turn_numbers(Some("before")).await.unwrap(),
        [("before".to_owned(), 2)]
    );
    assert!(store
        .source_turn_numbers(Some("root"))
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn a_races_lanes_are_kept_by_race_and_lane() {
    use forkhost_store::queries::races::RaceLaneRow;
    let (_dir, store) = fresh().await;
    store.insert_thread(&thread("src")).await.unwrap();
    let lane = |id: &str, race: &str, n: i64| RaceLaneRow {
        thread_id: id.into(),
        race_id: race.into(),
        source_thread_id: "src".into(),
        lane: n,
    };
    // Stored out of order, read by lane; another race stays apart.
    for (id, race, n) in [
        ("l2", "r", 2),
        ("l1", "r", 1),
        ("l3", "r", 3),
        ("q1", "q", 1),
    ] {
        store.insert_thread(&thread(id)).await.unwrap();
        store.put_race_lane(&lane(id, race, n)).await.unwrap();
    }
    let want = [lane("l1", "r", 1), lane("l2", "r", 2), lane("l3", "r", 3)];
    assert_eq!(store.race_of_lane("l3").await.unwrap(), want);
    assert_eq!(
        store.race_of_lane("q1").await.unwrap(),
        [lane("q1", "q", 1)]
    );
    assert!(store.race_of_lane("src").await.unwrap().is_empty());
    // A thread is a lane of one race only.
    assert!(store.put_race_lane(&lane("l1", "q", 2)).await.is_err());
}

#[tokio::test]
async fn remote_hosts_are_added_listed_changed_and_removed() {
    use forkhost_store::queries::remote_hosts::RemoteHostRow;
    let (_dir, store) = fresh().await;
    assert!(store.remote_hosts().await.unwrap().is_empty());
    assert_eq!(store.remote_host("box").await.unwrap(), None);
    let row = |name: &str, destination: &str| RemoteHostRow {
        name: name.into(),
        destination: destination.into(),
        ssh_options: "[\"-p\",\"2222\"]".into(),
        remote_program: Some("/opt/forkhost".into()),
        added_at: 0,
    };
    store.put_remote_host(&row("box", "me@box")).await.unwrap();
    store.put_remote_host(&row("gpu", "me@gpu")).await.unwrap();
    let listed = store.remote_hosts().await.unwrap();
    assert_eq!(
        listed.iter().map(|h| h.name.as_str()).collect::<Vec<_>>(),
        ["box", "gpu"]
    );
    let added = store.remote_host("box").await.unwrap().unwrap();
    assert_eq!(added.destination, "me@box");
    assert_eq!(added.ssh_options, "[\"-p\",\"2222\"]");
    assert_eq!(added.remote_program.as_deref(), Some("/opt/forkhost"));
    assert!(added.added_at > 0, "added now");
    // Changed in place: the same name, a new destination, when it was added kept.
    store
        .put_remote_host(&row("box", "me@other"))
        .await
        .unwrap();
    let changed = store.remote_host("box").await.unwrap().unwrap();
    assert_eq!(changed.destination, "me@other");
    assert_eq!(changed.added_at, added.added_at);
    assert_eq!(store.remote_hosts().await.unwrap().len(), 2);
    assert!(store.remove_remote_host("box").await.unwrap());
    assert!(!store.remove_remote_host("box").await.unwrap());
    assert_eq!(store.remote_host("box").await.unwrap(), None);
    assert_eq!(store.remote_hosts().await.unwrap().len(), 1);
}
