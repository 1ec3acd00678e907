//! The Host's approval model with the real Claude CLI (default mode, which asks before a
//! command that writes) against the fake model: two threads waiting at once and answered in
//! reverse order each get their own decision; unknown ids and threads are typed errors; an
//! interrupt declines what is pending; a mode is validated, stored, changed and inherited by a
//! fork.

use crate::host_kit;

use std::collections::HashMap;

use forkhost_core::{
    ApprovalDecision, ApprovalView, ForkAt, GrantScope, HarnessKind, HostEvent, NewThreadSpec,
    PermissionMode, SubjectView, TurnOutcome,
};
use forkhost_tests::harness_env::Harness;
use tokio::sync::broadcast;

use host_kit::{mode, setup, turn_answering, TURN};

/// Waits until each of `threads` has raised a request; returns them by thread.
async fn requests_of(
    events: &mut broadcast::Receiver<HostEvent>,
    threads: &[&str],
) -> HashMap<String, ApprovalView> {
    let mut asked = HashMap::new();
    tokio::time::timeout(TURN, async {
        while asked.len() < threads.len() {
            match events.recv().await.unwrap() {
                HostEvent::ApprovalRequested { thread_id, request } => {
                    asked.insert(thread_id, request);
                }
                HostEvent::TurnEnded { thread_id, .. } => {
                    panic!("thread {thread_id} ended its turn unasked")
                }
                _ => {}
            }
        }
    })
    .await
    .expect("no approval request came");
    asked
}

/// The `approval_resolved` events seen so far, as (thread, id, how).
fn resolutions(events: &mut broadcast::Receiver<HostEvent>) -> Vec<(String, String, String)> {
    let mut seen = Vec::new();
    while let Ok(event) = events.try_recv() {
        if let HostEvent::ApprovalResolved { thread_id, id, how } = event {
            seen.push((thread_id, id, how.as_str().to_owned()));
        }
    }
    seen
}

#[tokio::test]
async fn claude_two_threads_waiting_get_their_own_decisions() {
    let Some(s) = setup(Harness::Claude).await else {
        return;
    };
    let host = s.host().await;
    let a = s.thread(&host, Default::default()).await;
    let b = s.thread(&host, Default::default()).await;
    let mut events = host.subscribe();
    let done_a = host
        .start_turn(&a, "RUN_COMMAND `touch from-a.txt`")
        .await
        .unwrap();
    let done_b = host
        .start_turn(&b, "RUN_COMMAND `touch from-b.txt`")
        .await
        .unwrap();
    let asked = requests_of(&mut events, &[&a, &b]).await;
    let (ra, rb) = (&asked[&a], &asked[&b]);
    assert!(
        matches!(&ra.subject, SubjectView::Command { command, .. } if command == "touch from-a.txt"),
        "{ra:?}"
    );
    assert_eq!(ra.turn, 1);
    assert_eq!(host.pending_approvals(&a).await.unwrap(), vec![ra.clone()]);

    // Typed errors: another thread's id, an unknown thread.
    let err = host
        .answer_approval(&a, &rb.id, ApprovalDecision::Approve)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "invalid_input");
    let err = host
        .answer_approval("no-such-thread", &ra.id, ApprovalDecision::Approve)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "thread_not_found");

    // Claude takes a mode live, even while a request waits; one it will not take live
    // (bypassPermissions needs its launch flag) waits for the turn's end.
    let changed = host
        .set_mode(
            &a,
            PermissionMode {
                mode: Some("acceptEdits".into()),
                sandbox: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(changed.permissions.mode.as_deref(), Some("acceptEdits"));
    let busy = host
        .set_mode(
            &a,
            PermissionMode {
                mode: Some("bypassPermissions".into()),
                sandbox: None,
            },
        )
        .await
        .unwrap_err();
    assert_eq!(busy.code(), "busy");

    // Reverse order: b first (approve), then a (decline).
    host.answer_approval(&b, &rb.id, ApprovalDecision::Approve)
        .await
        .unwrap();
    host.answer_approval(&a, &ra.id, ApprovalDecision::Decline)
        .await
        .unwrap();
    let again = host
        .answer_approval(&a, &ra.id, ApprovalDecision::Approve)
        .await
        .unwrap_err();
    assert_eq!(again.code(), "invalid_input", "answered once only");
    for done in [done_a, done_b] {
        let outcome = tokio::time::timeout(TURN, done).await.expect("turn hung");
        assert_eq!(outcome.unwrap(), TurnOutcome::Completed);
    }
    let work = s.env.work_dir();
    assert!(work.join("from-b.txt").exists(), "approved: b's file");
    assert!(
        !work.join("from-a.txt").exists(),
        "declined: no file from a"
    );
    let seen = resolutions(&mut events);
    assert!(
        seen.contains(&(b.clone(), rb.id.clone(), "approve".into())),
        "{seen:?}"
    );
    assert!(
        seen.contains(&(a.clone(), ra.id.clone(), "decline".into())),
        "{seen:?}"
    );
    assert!(host.pending_approvals(&a).await.unwrap().is_empty());
}

#[tokio::test]
async fn claude_interrupt_declines_what_is_pending() {
    let Some(s) = setup(Harness::Claude).await else {
        return;
    };
    let host = s.host().await;
    let a = s.thread(&host, Default::default()).await;
    let mut events = host.subscribe();
    let done = host
        .start_turn(&a, "RUN_COMMAND `touch stopped.txt`")
        .await
        .unwrap();
    let asked = requests_of(&mut events, &[&a]).await;
    host.interrupt(&a).await.unwrap();
    let outcome = tokio::time::timeout(TURN, done).await.expect("turn hung");
    assert_eq!(outcome.unwrap(), TurnOutcome::Interrupted);
    assert!(!s.env.work_dir().join("stopped.txt").exists());
    let seen = resolutions(&mut events);
    assert!(
        seen.contains(&(a.clone(), asked[&a].id.clone(), "decline".into())),
        "{seen:?}"
    );
    assert!(host.pending_approvals(&a).await.unwrap().is_empty());
}

#[tokio::test]
async fn claude_mode_is_validated_stored_changed_and_forked() {
    let Some(s) = setup(Harness::Claude).await else {
        return;
    };
    let host = s.host().await;
    let err = host
        .create(NewThreadSpec {
            harness: HarnessKind::Claude,
            cwd: s.env.work_dir().to_owned(),
            title: None,
            permissions: PermissionMode {
                mode: Some("yolo".into()),
                sandbox: None,
            },
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), "invalid_input");
    assert!(err.to_string().contains("acceptEdits"), "{err}");

    // acceptEdits: a Write in the cwd is not asked.
    let a = s.thread(&host, mode(Some("acceptEdits"), None)).await;
    let file = s.env.work_dir().join("edited.txt");
    let prompt = format!("WRITE_FILE `{}`", file.display());
    let mut events = host.subscribe();
    tokio::time::timeout(TURN, host.send(&a, &prompt))
        .await
        .expect("turn hung")
        .unwrap();
    assert!(file.exists(), "acceptEdits writes without asking");
    assert!(
        !std::iter::from_fn(|| events.try_recv().ok())
            .any(|e| matches!(e, HostEvent::ApprovalRequested { .. })),
        "acceptEdits asked about an edit"
    );

    let shown = host.show(&a).await.unwrap();
    assert_eq!(
        shown.thread.permissions.mode.as_deref(),
        Some("acceptEdits")
    );
    let fork = host.fork(&a, ForkAt::Latest).await.unwrap().thread.thread;
    assert_eq!(fork.permissions.mode.as_deref(), Some("acceptEdits"));

    let changed = host
        .set_mode(
            &a,
            PermissionMode {
                mode: Some("default".into()),
                sandbox: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(changed.permissions.mode.as_deref(), Some("default"));
    let err = host
        .set_mode(
            &a,
            PermissionMode {
                mode: None,
                sandbox: Some("read-only".into()),
            },
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), "invalid_input", "Claude has no sandbox");
    // The next runtime starts in default mode: a write is asked about again.
    let done = host
        .start_turn(&a, "RUN_COMMAND `touch after-change.txt`")
        .await
        .unwrap();
    let asked = requests_of(&mut events, &[&a]).await;
    host.answer_approval(&a, &asked[&a].id, ApprovalDecision::DeclineAndStop)
        .await
        .unwrap();
    let outcome = tokio::time::timeout(TURN, done).await.expect("turn hung");
    assert_eq!(outcome.unwrap(), TurnOutcome::Interrupted);
    assert!(!s.env.work_dir().join("after-change.txt").exists());
}

/// The harness dies while a request is pending: the request is reported `gone`, nothing is
/// left pending, and the turn fails instead of waiting forever.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn claude_a_crash_while_asking_clears_the_request() {
    let Some(s) = setup(Harness::Claude).await else {
        return;
    };
    let host = s.host().await;
    let a = s.thread(&host, Default::default()).await;
    let mut events = host.subscribe();
    let done = host
        .start_turn(&a, "RUN_COMMAND `touch crashed.txt`")
        .await
        .unwrap();
    let asked = requests_of(&mut events, &[&a]).await;
    // The Claude process is the one whose folder is this test's work folder.
    let work = std::fs::canonicalize(s.env.work_dir()).unwrap();
    let claude = std::fs::canonicalize(Harness::Claude.bin().unwrap()).unwrap();
    let killed: Vec<u32> = forkhost_tests::procs::pids()
        .into_iter()
        .filter(|pid| {
            let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).ok();
            let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok();
            cwd.as_deref() == Some(work.as_path()) && exe.as_deref() == Some(claude.as_path())
        })
        .collect();
    assert!(!killed.is_empty(), "the Claude process was not found");
    for pid in &killed {
        std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status()
            .unwrap();
    }
    let outcome = tokio::time::timeout(TURN, done).await.expect("turn hung");
    assert!(
        matches!(outcome, Ok(TurnOutcome::Failed { .. }) | Err(_)),
        "{outcome:?}"
    );
    // The pump reports the request gone before it ends the turn: the event is already here.
    let seen = resolutions(&mut events);
    assert!(
        seen.contains(&(a.clone(), asked[&a].id.clone(), "gone".into())),
        "{seen:?}"
    );
    assert!(host.pending_approvals(&a).await.unwrap().is_empty());
    assert!(!s.env.work_dir().join("crashed.txt").exists());
}

/// "Always this session" covers exactly the command it was given for, in its folder: a new
/// process of the same thread is not asked again; a fork is (grants are not copied); another
/// thread and another command are asked; `--approve none` (no grants) and a revoked grant ask
/// again.
async fn session_grants_cover_exactly_what_was_shown(harness: Harness) {
    // Codex offers no "for the session" on these requests (the test below).
    let Some(s) = setup(harness).await else {
        return;
    };
    let host = s.host().await;
    let (kind, permissions) = match harness {
        Harness::Claude => (HarnessKind::Claude, PermissionMode::default()),
        // Only `untrusted` asks before a plain command; the sandbox cannot start here.
        _ => (
            HarnessKind::Codex,
            PermissionMode {
                mode: Some("untrusted".into()),
                sandbox: Some("danger-full-access".into()),
            },
        ),
    };
    let spec = || NewThreadSpec {
        harness: kind,
        cwd: s.env.work_dir().to_owned(),
        title: None,
        permissions: permissions.clone(),
    };
    let a = host.create(spec()).await.unwrap().thread.id;
    let file = s.env.work_dir().join("granted.txt");
    let prompt = "RUN_COMMAND `touch granted.txt`";
    let first = turn_answering(&host, &a, prompt, ApprovalDecision::ApproveForSession).await;
    assert_eq!(first, (1, TurnOutcome::Completed));
    assert!(file.exists());
    let grants = host.session_grants(&a).await.unwrap();
    assert_eq!(grants.len(), 1, "{grants:?}");
    let GrantScope::Command { command, cwd, .. } = &grants[0].scope else {
        panic!("{grants:?}")
    };
    assert!(command.contains("touch granted.txt"), "{command}");
    assert!(cwd.is_some(), "a command grant names its folder");

    // A new process for the same thread: not asked again.
    host.close(&a).await.unwrap();
    std::fs::remove_file(&file).unwrap();
    let again = turn_answering(&host, &a, prompt, ApprovalDecision::Decline).await;
    assert_eq!(
        again,
        (0, TurnOutcome::Completed),
        "asked again after a restart"
    );
    assert!(file.exists(), "the granted command ran");

    // Its fork does not inherit the grant: "this session" was the source's.
    let fork = host
        .fork(&a, ForkAt::Latest)
        .await
        .unwrap()
        .thread
        .thread
        .id;
    assert!(host.session_grants(&fork).await.unwrap().is_empty());
    std::fs::remove_file(&file).unwrap();
    let forked = turn_answering(&host, &fork, prompt, ApprovalDecision::Decline).await;
    assert_eq!(forked.0, 1, "the fork is asked");
    assert!(!file.exists(), "declined in the fork");

    // Another thread is asked; another command in the granted thread is asked.
    let other = host.create(spec()).await.unwrap().thread.id;
    let asked = turn_answering(&host, &other, prompt, ApprovalDecision::Decline).await;
    assert_eq!(asked.0, 1);
    assert!(!file.exists());
    host.close(&a).await.unwrap();
    let different = turn_answering(
        &host,
        &a,
        "RUN_COMMAND `touch other.txt`",
        ApprovalDecision::Decline,
    )
    .await;
    assert_eq!(different.0, 1, "a grant covers exactly its command");
    assert!(!s.env.work_dir().join("other.txt").exists());

    // A Host told not to use grants (`--approve none`) asks.
    host.close(&a).await.unwrap();
    host.use_session_grants(false);
    let unused = turn_answering(&host, &a, prompt, ApprovalDecision::Decline).await;
    assert_eq!(unused.0, 1, "grants used although turned off");
    assert!(!file.exists());
    host.use_session_grants(true);

    // Revoked: asked again, and the idle process that may remember it is gone.
    let mut events = host.subscribe();
    host.revoke_grant(&a, &grants[0].id).await.unwrap();
    assert!(host.session_grants(&a).await.unwrap().is_empty());
    assert!(
        std::iter::from_fn(|| events.try_recv().ok())
            .any(|e| matches!(e, HostEvent::GrantsChanged { ref thread_id } if *thread_id == a)),
        "the revocation is announced"
    );
    let revoked = turn_answering(&host, &a, prompt, ApprovalDecision::Decline).await;
    assert_eq!(revoked.0, 1, "a revoked grant still answered");
    assert!(!file.exists());
    assert!(matches!(
        host.revoke_grant(&a, &grants[0].id).await,
        Err(forkhost_core::HostError::InvalidInput(_))
    ));
}

#[tokio::test]
async fn claude_session_grants_cover_exactly_what_was_shown() {
    session_grants_cover_exactly_what_was_shown(Harness::Claude).await;
}

/// Codex lists the decisions a request takes (`availableDecisions`); 0.171.0 offers no
/// `acceptForSession` for a shell command under `untrusted`, so neither does the card, and the
/// answer is refused before it reaches Codex; approving once still runs it.
#[tokio::test]
async fn codex_always_is_offered_only_where_codex_lists_it() {
    let Some(s) = setup(Harness::Codex).await else {
        return;
    };
    let host = s.host().await;
    let a = s
        .thread(&host, mode(Some("untrusted"), Some("danger-full-access")))
        .await;
    let mut events = host.subscribe();
    let done = host
        .start_turn(&a, "RUN_COMMAND `touch granted.txt`")
        .await
        .unwrap();
    let asked = requests_of(&mut events, &[&a]).await;
    let request = &asked[&a];
    assert!(!request.can_approve_for_session, "{request:?}");
    assert!(request.session_rules.is_empty());
    assert!(matches!(
        host.answer_approval(&a, &request.id, ApprovalDecision::ApproveForSession)
            .await,
        Err(forkhost_core::HostError::InvalidInput(_))
    ));
    assert!(!s.env.work_dir().join("granted.txt").exists());
    host.answer_approval(&a, &request.id, ApprovalDecision::Approve)
        .await
        .unwrap();
    let outcome = tokio::time::timeout(host_kit::TURN, done).await.unwrap();
    assert_eq!(outcome.unwrap(), TurnOutcome::Completed);
    assert!(s.env.work_dir().join("granted.txt").exists());
    assert!(host.session_grants(&a).await.unwrap().is_empty());
}

/// H1 of the security review: one "Always" on an in-project write never approves a write to
/// `~/.bashrc`, not in the process that raised it (where Claude, in `acceptEdits`, asks again
/// on purpose), not in a new process, not in a fork made before turn 1. Judged on disk.
#[tokio::test]
async fn claude_always_on_one_write_never_approves_another_file() {
    let Some(s) = setup(Harness::Claude).await else {
        return;
    };
    let host = s.host().await;
    let a = s.thread(&host, Default::default()).await;
    let inside = s.env.work_dir().join("inside.txt");
    let first = turn_answering(
        &host,
        &a,
        &format!("WRITE_FILE `{}`", inside.display()),
        ApprovalDecision::ApproveForSession,
    )
    .await;
    assert_eq!(first, (1, TurnOutcome::Completed));
    assert!(inside.exists());

    let bashrc = s.env.home().join(".bashrc");
    let outside = format!("WRITE_FILE `{}`", bashrc.display());
    // The same process: asked, and declined.
    let same = turn_answering(&host, &a, &outside, ApprovalDecision::Decline).await;
    assert_eq!(same.0, 1, "the same process wrote outside unasked");
    assert!(!bashrc.exists(), "~/.bashrc written");
    // A new process.
    host.close(&a).await.unwrap();
    let restarted = turn_answering(&host, &a, &outside, ApprovalDecision::Decline).await;
    assert_eq!(restarted.0, 1, "a new process wrote outside unasked");
    assert!(!bashrc.exists(), "~/.bashrc written after a restart");
    // A fork before turn 1.
    let fork = host
        .fork(&a, ForkAt::Before(forkhost_core::TurnRef::Number(1)))
        .await
        .unwrap()
        .thread
        .thread
        .id;
    let keys = s.env.home().join(".ssh/authorized_keys");
    std::fs::create_dir_all(keys.parent().unwrap()).unwrap();
    let forked = turn_answering(
        &host,
        &fork,
        &format!("WRITE_FILE `{}`", keys.display()),
        ApprovalDecision::Decline,
    )
    .await;
    assert_eq!(forked.0, 1, "the fork wrote unasked");
    assert!(!keys.exists(), "authorized_keys written");
    // And in a new process, the in-project grant covers its own file only once more.
    host.close(&a).await.unwrap();
    std::fs::remove_file(&inside).unwrap();
    let covered = turn_answering(
        &host,
        &a,
        &format!("WRITE_FILE `{}`", inside.display()),
        ApprovalDecision::Decline,
    )
    .await;
    assert_eq!(
        covered,
        (0, TurnOutcome::Completed),
        "its own file is covered"
    );
    assert!(inside.exists());
}

/// A mode changed between turns applies without restarting the harness: Claude through
/// `set_permission_mode`, Codex through the next `turn/start`. The next identical call is not
/// asked, and the process was never stopped.
async fn a_mode_change_applies_live(harness: Harness) {
    let Some(s) = setup(harness).await else {
        return;
    };
    let host = s.host().await;
    let (kind, asks, acts) = match harness {
        Harness::Claude => (
            HarnessKind::Claude,
            PermissionMode::default(),
            PermissionMode {
                mode: Some("acceptEdits".into()),
                sandbox: None,
            },
        ),
        _ => (
            HarnessKind::Codex,
            PermissionMode {
                mode: Some("untrusted".into()),
                sandbox: Some("danger-full-access".into()),
            },
            PermissionMode {
                mode: Some("never".into()),
                sandbox: Some("danger-full-access".into()),
            },
        ),
    };
    let a = host
        .create(NewThreadSpec {
            harness: kind,
            cwd: s.env.work_dir().to_owned(),
            title: None,
            permissions: asks,
        })
        .await
        .unwrap()
        .thread
        .id;
    let prompt = |name: &str| match harness {
        // acceptEdits lets file edits in the folder through; a shell command would still ask.
        Harness::Claude => format!("WRITE_FILE `{}`", s.env.work_dir().join(name).display()),
        _ => format!("RUN_COMMAND `touch {name}`"),
    };
    let first = turn_answering(&host, &a, &prompt("one.txt"), ApprovalDecision::Approve).await;
    assert_eq!(first, (1, TurnOutcome::Completed));
    let mut events = host.subscribe();
    host.set_mode(&a, acts).await.unwrap();
    let second = turn_answering(&host, &a, &prompt("two.txt"), ApprovalDecision::Decline).await;
    assert_eq!(
        second,
        (0, TurnOutcome::Completed),
        "asked after the mode change"
    );
    assert!(s.env.work_dir().join("two.txt").exists());
    while let Ok(event) = events.try_recv() {
        assert!(
            !matches!(event, HostEvent::RuntimeStopped { .. }),
            "the harness was restarted for the mode change"
        );
    }
}

#[tokio::test]
async fn claude_a_mode_change_applies_live() {
    a_mode_change_applies_live(Harness::Claude).await;
}

#[tokio::test]
async fn codex_a_mode_change_applies_live() {
    a_mode_change_applies_live(Harness::Codex).await;
}
