//! The daemon in process over a real socket: a client's calls come back as the Host's own
//! answers, typed; a client of another version is refused in words; one daemon per folder.

use std::time::Duration;

use super::{serve, Call, Connection, Returned, ServeOptions, Served};
use crate::test_host;

/// A connection once the daemon spawned beside the test listens.
async fn connected(data_dir: &std::path::Path) -> Connection {
    for _ in 0..250 {
        if let Ok(connection) = Connection::connect(data_dir).await {
            return connection;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the daemon never listened");
}

#[tokio::test]
async fn a_clients_calls_come_back_as_the_hosts_own_answers() {
    // A `claude` that answers `--version`: a rewind's set-aside line is a Claude fork (lazy: it
    // runs nothing).
    let t = test_host::claude_thread(2, test_host::ClaudeProgram::VersionOnly).await;
    let served = Served::claim(t.data_dir()).unwrap();
    let daemon = tokio::spawn(serve(
        t.host.clone(),
        served,
        ServeOptions { idle_exit: None },
    ));
    let connection = connected(t.data_dir()).await;

    // A thread's detail read back is the detail the Host gives.
    let Returned::Thread { detail } = connection
        .call(Call::Show {
            thread: t.thread.clone(),
        })
        .await
        .unwrap()
    else {
        panic!("not a thread");
    };
    assert_eq!(*detail, t.host.show(&t.thread).await.unwrap());

    // That machine's harnesses, as its doctor finds them (the Hosts list, New thread there).
    let Returned::Harnesses { harnesses } = connection.call(Call::Doctor).await.unwrap() else {
        panic!("not the harnesses");
    };
    // Each harness as found: a sign-in check asks the harness itself again, and under load
    // one may give no answer within its bound the second time (`unknown`), so that is left out.
    let found = |reports: &[crate::HarnessReport]| -> Vec<_> {
        reports
            .iter()
            .map(|h| {
                let mut h = h.clone();
                h.sign_in = None;
                h.next_step = None;
                h
            })
            .collect()
    };
    assert_eq!(found(&harnesses), found(&t.host.doctor().await));
    assert!(
        harnesses
            .iter()
            .any(|h| h.name == forkhost_harness::HarnessKind::Claude && h.path.is_some()),
        "{harnesses:?}"
    );

    // A race's check command there: saved, then read back as the Host has it for the
    // thread's folder; a thread that is no race lane is refused as the Host refuses it.
    let Returned::CheckCommand { check } = connection
        .call(Call::SetCheckCommand {
            thread: t.thread.clone(),
            command: Some("cargo test".into()),
        })
        .await
        .unwrap()
    else {
        panic!("not a check command");
    };
    assert_eq!(
        *check,
        t.host.check_command(t.folder()).await.unwrap(),
        "saved for the thread's folder"
    );
    assert_eq!(check.command.as_deref(), Some("cargo test"));
    let Returned::CheckCommand { check: read } = connection
        .call(Call::CheckCommand {
            thread: t.thread.clone(),
        })
        .await
        .unwrap()
    else {
        panic!("not a check command");
    };
    assert_eq!(read, check);
    let refused = connection
        .call(Call::KeepPlan {
            lane: t.thread.clone(),
        })
        .await
        .unwrap_err();
    let own = t.host.keep_plan(&t.thread).await.unwrap_err();
    assert_eq!(refused.code(), own.code(), "{refused}");

    // The Host's error, its code and words.
    let err = connection
        .call(Call::Show {
            thread: "no-such-thread".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), "thread_not_found", "{err}");
    let Returned::Pending { requests } = connection
        .call(Call::PendingApprovals {
            thread: t.thread.clone(),
        })
        .await
        .unwrap()
    else {
        panic!("not the pending requests");
    };
    assert!(requests.is_empty());

    // The thread's row, grants and export, as the Host gives them.
    let Returned::View { thread } = connection
        .call(Call::Rename {
            thread: t.thread.clone(),
            title: "Renamed from afar".into(),
        })
        .await
        .unwrap()
    else {
        panic!("not a thread's row");
    };
    assert_eq!(thread.title, "Renamed from afar");
    assert_eq!(
        t.host.show(&t.thread).await.unwrap().thread.title,
        "Renamed from afar"
    );
    let Returned::Grants { grants } = connection
        .call(Call::SessionGrants {
            thread: t.thread.clone(),
        })
        .await
        .unwrap()
    else {
        panic!("not the grants");
    };
    assert_eq!(grants, t.host.session_grants(&t.thread).await.unwrap());
    let Returned::Text { text } = connection
        .call(Call::Export {
            thread: t.thread.clone(),
            to: Some(crate::base::fork_point::TurnRef::Number(1)),
            format: crate::thread::export::ExportFormat::Markdown,
        })
        .await
        .unwrap()
    else {
        panic!("not the export");
    };
    let expected = t
        .host
        .export(
            &t.thread,
            Some(crate::base::fork_point::TurnRef::Number(1)),
            crate::thread::export::ExportFormat::Markdown,
        )
        .await
        .unwrap();
    assert_eq!(text, expected);
    let err = connection
        .call(Call::RevokeGrant {
            thread: t.thread.clone(),
            grant: "no-such-grant".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(
        err.code(),
        t.host
            .revoke_grant(&t.thread, "no-such-grant")
            .await
            .unwrap_err()
            .code()
    );

    // Rewind and its undo, their plan and list, and the tree's cost: the Host's own answers.
    let one = crate::base::fork_point::TurnRef::Number(1);
    let kind = crate::rewind::RewindKind::Conversation;
    let Returned::RewindPlan { plan } = connection
        .call(Call::RewindPlan {
            thread: t.thread.clone(),
            to: one.clone(),
            kind,
        })
        .await
        .unwrap()
    else {
        panic!("not a rewind plan");
    };
    assert_eq!(
        *plan,
        t.host.rewind_plan(&t.thread, &one, kind).await.unwrap()
    );
    assert_eq!((plan.turn, plan.turns), (1, 2));
    let Returned::Rewound { rewound } = connection
        .call(Call::Rewind {
            thread: t.thread.clone(),
            to: one.clone(),
            kind,
            accepted_loss: Some(plan.loss.clone()),
        })
        .await
        .unwrap()
    else {
        panic!("not a rewind");
    };
    assert_eq!(rewound.thread.turns.len(), 1);
    assert_eq!(t.host.show(&t.thread).await.unwrap().turns.len(), 1);
    let Returned::Rewinds { rewinds } = connection
        .call(Call::Rewinds {
            thread: t.thread.clone(),
        })
        .await
        .unwrap()
    else {
        panic!("not the rewinds");
    };
    assert_eq!(rewinds, t.host.rewinds(&t.thread).await.unwrap());
    assert_eq!(rewinds.len(), 1);
    let Returned::Rewound { rewound } = connection
        .call(Call::UndoRewind {
            thread: t.thread.clone(),
        })
        .await
        .unwrap()
    else {
        panic!("not an undo");
    };
    assert_eq!(rewound.thread.turns.len(), 2);
    assert!(rewound.rewind.undone);
    let Returned::TreeCost { cost } = connection
        .call(Call::TreeCost {
            thread: t.thread.clone(),
        })
        .await
        .unwrap()
    else {
        panic!("not the tree's cost");
    };
    assert_eq!(*cost, t.host.tree_cost(&t.thread).await.unwrap());
    let Returned::Files { files } = connection
        .call(Call::Files {
            thread: t.thread.clone(),
        })
        .await
        .unwrap()
    else {
        panic!("not the files");
    };
    assert_eq!(*files, t.host.files(&t.thread).await.unwrap());
    // A folder outside git has nothing to compare: the Host's refusal, in its words.
    let err = connection
        .call(Call::Changes {
            thread: t.thread.clone(),
            other: None,
        })
        .await
        .unwrap_err();
    let expected = t.host.changes(&t.thread, None).await.unwrap_err();
    assert_eq!(
        (err.code(), err.to_string()),
        (expected.code(), expected.to_string())
    );

    // Bring back and the worktree's loss: the Host's refusals for a thread outside git, in
    // its words (their work is the app's remote test's).
    let err = connection
        .call(Call::WorktreeLoss {
            thread: t.thread.clone(),
        })
        .await
        .unwrap_err();
    let expected = t.host.worktree_loss(&t.thread).await.unwrap_err();
    assert_eq!(
        (err.code(), err.to_string()),
        (expected.code(), expected.to_string())
    );
    let err = connection
        .call(Call::BringBack {
            fork: t.thread.clone(),
            target: "no-such-thread".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), "thread_not_found", "{err}");

    // A folder's trust there: judged on that machine's files, recorded for the config shown.
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join(".mcp.json"), "{}").unwrap();
    let folder = project.path().display().to_string();
    let Returned::Trust { trust } = connection
        .call(Call::FolderTrust {
            folder: folder.clone(),
        })
        .await
        .unwrap()
    else {
        panic!("not a folder's trust");
    };
    assert_eq!(*trust, t.host.folder_trust(project.path()).await.unwrap());
    assert!(trust.undecided(), "{trust:?}");
    let Returned::Trust { trust: decided } = connection
        .call(Call::SetFolderTrust {
            folder: folder.clone(),
            trusted: true,
            shown: trust.digest.clone(),
        })
        .await
        .unwrap()
    else {
        panic!("not a folder's trust");
    };
    assert_eq!(decided.trusted, Some(true));
    assert_eq!(
        t.host.folder_trust(project.path()).await.unwrap().trusted,
        Some(true)
    );
    // Config the dialog did not show is never covered by its answer.
    std::fs::write(project.path().join(".mcp.json"), r#"{"mcpServers":{}}"#).unwrap();
    let err = connection
        .call(Call::SetFolderTrust {
            folder,
            trusted: true,
            shown: trust.digest.clone(),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), "conflict", "{err}");
    let err = connection
        .call(Call::FolderTrust {
            folder: "src/app".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), "invalid_input", "{err}");

    // A search there is the Host's own: the same groups and hits (its timing aside).
    let detail = t.host.show(&t.thread).await.unwrap();
    let word = detail.turns[0].messages[0].text.clone();
    let query = crate::search::SearchQuery {
        text: word,
        ..Default::default()
    };
    let Returned::Search { results } = connection
        .call(Call::Search {
            query: query.clone(),
        })
        .await
        .unwrap()
    else {
        panic!("not a search's results");
    };
    let here = t.host.search(query).await.unwrap();
    assert!(results.hits > 0, "{results:?}");
    assert_eq!((&results.groups, results.hits), (&here.groups, here.hits));

    // A new thread there, in a folder of the daemon's machine.
    let folder = t.host.show(&t.thread).await.unwrap().thread.cwd;
    let Returned::Thread { detail } = connection
        .call(Call::Create {
            harness: forkhost_harness::HarnessKind::Claude,
            cwd: folder.clone(),
            title: Some("Started from afar".into()),
            permissions: forkhost_harness::PermissionMode::default(),
        })
        .await
        .unwrap()
    else {
        panic!("not the new thread");
    };
    assert_eq!(
        (detail.thread.title.as_str(), detail.thread.cwd.as_str()),
        ("Started from afar", folder.as_str())
    );
    assert!(t
        .host
        .threads()
        .await
        .unwrap()
        .iter()
        .any(|v| v.id == detail.thread.id));

    // A second daemon on the folder is refused while this one serves.
    assert_eq!(Served::claim(t.data_dir()).err().unwrap().code(), "busy");
    daemon.abort();
}

#[tokio::test]
async fn a_client_of_another_version_is_refused_in_words() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let t = test_host::with_claude_thread().await;
    let served = Served::claim(t.data_dir()).unwrap();
    let socket = served.socket.clone();
    let daemon = tokio::spawn(serve(
        t.host.clone(),
        served,
        ServeOptions { idle_exit: None },
    ));
    let mut stream = loop {
        match tokio::net::UnixStream::connect(&socket).await {
            Ok(stream) => break stream,
            Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    };
    stream
        .write_all(b"{\"id\":1,\"call\":\"hello\",\"version\":\"0.0.1\",\"protocol\":1}\n")
        .await
        .unwrap();
    let mut line = String::new();
    BufReader::new(&mut stream)
        .read_line(&mut line)
        .await
        .unwrap();
    assert!(line.contains("version_mismatch"), "{line}");
    assert!(line.contains("0.0.1"), "{line}");
    daemon.abort();
}

/// `forkhost terminal` over the daemon: the thread's TUI is held for as long as the
/// connection that opened it lasts (a dropped ssh frees it), or until it is released; a
/// second terminal meanwhile is `busy`.
#[tokio::test]
async fn a_terminal_is_held_while_its_connection_lasts() {
    let t = test_host::claude_thread(1, test_host::ClaudeProgram::VersionOnly).await;
    let served = Served::claim(t.data_dir()).unwrap();
    let daemon = tokio::spawn(serve(
        t.host.clone(),
        served,
        ServeOptions { idle_exit: None },
    ));
    let open = |thread: &str| Call::OpenTerminal {
        thread: thread.to_owned(),
    };
    let first = connected(t.data_dir()).await;
    let Returned::Terminal { command } = first.call(open(&t.thread)).await.unwrap() else {
        panic!("not a terminal's command");
    };
    assert!(command.program.ends_with("claude"), "{command:?}");
    assert!(
        command.args.ends_with(&[
            "--resume".into(),
            "5a0e6a7c-1111-4222-8333-444455556666".into()
        ]),
        "{command:?}"
    );
    let other = connected(t.data_dir()).await;
    let busy = other.call(open(&t.thread)).await.unwrap_err();
    assert_eq!(busy.code(), "busy", "{busy}");

    // The first connection ends without a word (its ssh dropped): the thread is free again.
    drop(first);
    let mut opened = None;
    for _ in 0..250 {
        match other.call(open(&t.thread)).await {
            Ok(returned) => {
                opened = Some(returned);
                break;
            }
            Err(err) => assert_eq!(err.code(), "busy", "{err}"),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        matches!(opened, Some(Returned::Terminal { .. })),
        "the thread stayed held after its connection ended"
    );
    // Released by a call, the next one opens at once.
    let released = other
        .call(Call::ReleaseTerminal {
            thread: t.thread.clone(),
        })
        .await
        .unwrap();
    assert_eq!(released, Returned::Done);
    let third = connected(t.data_dir()).await;
    assert!(matches!(
        third.call(open(&t.thread)).await,
        Ok(Returned::Terminal { .. })
    ));
    daemon.abort();
}

#[test]
fn a_folder_typed_for_the_daemons_machine_takes_its_users_home() {
    use super::daemon::in_home;
    let home = Some(std::path::PathBuf::from("/home/me"));
    assert_eq!(in_home("~", home.clone()), std::path::Path::new("/home/me"));
    assert_eq!(
        in_home(" ~/src/app ", home.clone()),
        std::path::Path::new("/home/me/src/app")
    );
    assert_eq!(
        in_home("/srv/app", home.clone()),
        std::path::Path::new("/srv/app")
    );
    assert_eq!(
        in_home("~other/app", home),
        std::path::Path::new("~other/app")
    );
    assert_eq!(in_home("~/x", None), std::path::Path::new("~/x"));
}
