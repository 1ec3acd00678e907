//! The Host's approval model with the real Claude CLI (default mode, which asks before a
//! command that writes) against the fake model: two threads waiting at once and answered in
//! reverse order each get their own decision; unknown ids and threads are typed errors; an
//! interrupt declines what is pending; a mode is validated, stored, changed and inherited by a
//! fork.

use std::collections::HashMap;
use std::time::Duration;

use forkhost_core::{
    ApprovalDecision, ApprovalView, ForkAt, HarnessKind, Host, HostEvent, HostOptions,
    NewThreadSpec, PermissionMode, SubjectView, TurnOutcome,
};
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use tokio::sync::broadcast;

const TURN: Duration = Duration::from_secs(120);

struct Setup {
    _model: FakeModel,
    env: HarnessEnv,
    data: tempfile::TempDir,
}

async fn setup(harness: Harness) -> Option<Setup> {
    let model = FakeModel::start(FakeModelOptions::default()).await.unwrap();
    let env = HarnessEnv::for_fake(harness, &model).unwrap()?;
    Some(Setup {
        _model: model,
        env,
        data: tempfile::tempdir().unwrap(),
    })
}

impl Setup {
    async fn host(&self) -> Host {
        let options = HostOptions {
            harness_env: self.env.vars().to_vec(),
            ..Default::default()
        };
        Host::open_with(self.data.path(), options).await.unwrap().0
    }

    async fn thread(&self, host: &Host, kind: HarnessKind, mode: Option<&str>) -> String {
        host.create(NewThreadSpec {
            harness: kind,
            cwd: self.env.work_dir().to_owned(),
            title: None,
            permissions: PermissionMode {
                mode: mode.map(Into::into),
                sandbox: None,
            },
        })
        .await
        .unwrap()
        .thread
        .id
    }
}

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
            seen.push((thread_id, id, how));
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
    let a = s.thread(&host, HarnessKind::Claude, None).await;
    let b = s.thread(&host, HarnessKind::Claude, None).await;
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

    // A mode changes between turns, not while one waits.
    let busy = host
        .set_mode(
            &a,
            PermissionMode {
                mode: Some("acceptEdits".into()),
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
    let a = s.thread(&host, HarnessKind::Claude, None).await;
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
    let a = s
        .thread(&host, HarnessKind::Claude, Some("acceptEdits"))
        .await;
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
    let a = s.thread(&host, HarnessKind::Claude, None).await;
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
