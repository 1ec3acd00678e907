//! Rewind to here, with the real CLIs against the fake model in a temporary git repository:
//! three turns each run a shell command writing `notes.txt` = "tN" and a new file `tN.txt`; the
//! user then edits `notes.txt` (a change no checkpoint holds). Rewinding the conversation and
//! the files to turn 2 shows that edit as the loss and, unconfirmed, touches nothing; confirmed,
//! `t3.txt` (written by a shell command, which Claude's own rewind misses) is gone, the thread
//! keeps its id, its old line is a branch, its native file is not written, and the model's next
//! request holds turns 1–2 only. Undo brings back the old line (the model then receives turns
//! 1–3) and the files as they were. Bad input: a turn out of range, a rewind while a turn runs
//! (`busy`), nothing to undo, a folder outside git, a folder that is gone.
#![cfg(unix)]

use crate::host_kit;

use std::path::Path;

use forkhost_core::{
    HarnessKind, Host, HostOptions, NewThreadSpec, PermissionMode, RewindKind, TurnRef,
};
use forkhost_tests::fake_model::{RequestRecord, Role};
use forkhost_tests::harness_env::Harness;

use host_kit::{git, setup, turn, TURN};

fn writes(n: &str) -> String {
    format!("RUN_COMMAND `printf '{n}' > notes.txt && touch {n}.txt`")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The user prompts of a model request, in order.
fn prompts(request: &RequestRecord) -> Vec<String> {
    request
        .conversation()
        .into_iter()
        .filter(|m| m.role == Role::User)
        .map(|m| m.text)
        .collect()
}

/// Which of the test's turns a model request's prompts are, in order (each prompt known by a
/// word only it holds).
fn turns_in(request: &RequestRecord) -> Vec<&'static str> {
    const WORDS: [&str; 5] = [
        "t1.txt",
        "t2.txt",
        "t3.txt",
        "after the rewind",
        "after the undo",
    ];
    prompts(request)
        .iter()
        .filter_map(|p| WORDS.iter().find(|w| p.contains(**w)).copied())
        .collect()
}

async fn host_for(harness: Harness, s: &host_kit::Setup) -> (Host, HarnessKind, PermissionMode) {
    let mut harness_env = s.env.vars().to_vec();
    let (kind, permissions) = match harness {
        Harness::Claude => {
            // bypassPermissions as root needs IS_SANDBOX; a test HOME is a sandbox.
            harness_env.push(("IS_SANDBOX".into(), "1".into()));
            (HarnessKind::Claude, (Some("bypassPermissions"), None))
        }
        Harness::Codex => (
            HarnessKind::Codex,
            (Some("never"), Some("danger-full-access")),
        ),
        Harness::Pi => (HarnessKind::Pi, (None, None)),
        Harness::Opencode => (HarnessKind::Opencode, (None, None)),
    };
    let options = HostOptions {
        harness_env,
        ..Default::default()
    };
    let host = Host::open_with(s.data.path(), options).await.unwrap().0;
    let permissions = PermissionMode {
        mode: permissions.0.map(Into::into),
        sandbox: permissions.1.map(Into::into),
    };
    (host, kind, permissions)
}

async fn rewind_and_undo(harness: Harness) {
    let Some(s) = setup(harness).await else {
        return;
    };
    let repo = s.env.work_dir().to_path_buf();
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("README.md"), "hello\n").unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "start"]);
    let (host, kind, permissions) = host_for(harness, &s).await;
    let thread = host
        .create(NewThreadSpec {
            harness: kind,
            cwd: repo.clone(),
            title: Some("rewind me".into()),
            permissions,
        })
        .await
        .unwrap()
        .thread
        .id;
    for n in ["t1", "t2", "t3"] {
        turn(&host, &thread, &writes(n)).await;
    }
    assert!(repo.join("t3.txt").exists());
    std::fs::write(repo.join("notes.txt"), "the user's own edit").unwrap();
    // The harness process may write its own file as it ends; the rewind stops it, so the
    // bytes compared are those after it stopped.
    host.close(&thread).await.unwrap();
    let native = host.show(&thread).await.unwrap().thread.native;
    let native_path = std::path::PathBuf::from(native.path.unwrap());
    let native_bytes = std::fs::read(&native_path).unwrap();
    let requests = s.model.model_requests().len();

    // Bad input first: in words, nothing changed.
    let to = |n: i64| TurnRef::Number(n);
    let kind_all = RewindKind::ConversationAndFiles;
    for bad in [0, 4, 99] {
        let err = host
            .rewind_plan(&thread, &to(bad), kind_all)
            .await
            .unwrap_err();
        assert_eq!(err.code(), "turn_not_found", "{bad}: {err}");
    }
    let err = host
        .rewind_plan(&thread, &to(3), RewindKind::Conversation)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "invalid_input", "{err}");
    let err = host.undo_rewind(&thread).await.unwrap_err();
    assert_eq!(err.code(), "invalid_input", "{err}");
    assert!(err.to_string().contains("no rewind to undo"), "{err}");

    // The plan: t3.txt goes, notes.txt goes back; the user's edit is the loss.
    let plan = host.rewind_plan(&thread, &to(2), kind_all).await.unwrap();
    let changes: Vec<(&str, &str)> = plan
        .changes
        .iter()
        .map(|f| (f.path.as_str(), f.status.as_str()))
        .collect();
    assert_eq!(changes, [("notes.txt", "modified"), ("t3.txt", "deleted")]);
    assert_eq!(plan.loss, ["notes.txt"]);
    assert_eq!((plan.turn, plan.turns), (2, 3));
    // Cancel: a rewind without that loss confirmed touches nothing.
    let err = host
        .rewind(&thread, &to(2), kind_all, None)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "conflict", "{err}");
    assert_eq!(read(&repo.join("notes.txt")), "the user's own edit");
    assert!(repo.join("t3.txt").exists());
    assert_eq!(host.show(&thread).await.unwrap().turns.len(), 3);
    assert_eq!(host.threads().await.unwrap().len(), 1);

    // A loss other than the one shown is not a confirmation.
    let shown_before = ["t3.txt".to_owned()];
    let err = host
        .rewind(&thread, &to(2), kind_all, Some(&shown_before))
        .await
        .unwrap_err();
    assert_eq!(err.code(), "conflict", "{err}");
    assert_eq!(read(&repo.join("notes.txt")), "the user's own edit");

    // Confirmed.
    let done = host
        .rewind(&thread, &to(2), kind_all, Some(&plan.loss))
        .await
        .unwrap();
    assert_eq!(done.thread.thread.id, thread);
    assert_eq!(done.thread.turns.len(), 2);
    assert!(
        !repo.join("t3.txt").exists(),
        "a shell command's file is rewound"
    );
    assert_eq!(read(&repo.join("notes.txt")), "t2");
    let branch = done.rewind.branch_id.clone().unwrap();
    let old_line = host.show(&branch).await.unwrap();
    assert_eq!(old_line.turns.len(), 3);
    let lineage = old_line.thread.fork.unwrap();
    assert_eq!(lineage.source_thread, thread);
    assert!(
        std::fs::read(&native_path).unwrap() == native_bytes,
        "the thread's native file is never written"
    );
    assert_eq!(s.model.model_requests().len(), requests, "no model call");
    let listed = host.rewinds(&thread).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert!(!listed[0].undone);

    // The next turn continues from turn 2.
    turn(&host, &thread, "after the rewind").await;
    let last = s.model.last_model_request().unwrap();
    assert_eq!(
        turns_in(&last),
        ["t1.txt", "t2.txt", "after the rewind"],
        "{:?}",
        prompts(&last)
    );

    // Undo: the old line and the files as they were before the rewind.
    let undone = host.undo_rewind(&thread).await.unwrap();
    assert!(undone.rewind.undone);
    assert_eq!(undone.thread.turns.len(), 3);
    assert_eq!(read(&repo.join("notes.txt")), "the user's own edit");
    assert!(repo.join("t3.txt").exists(), "back after Undo");
    // The line used since the rewind is the branch now.
    assert_eq!(host.show(&branch).await.unwrap().turns.len(), 3);
    turn(&host, &thread, "after the undo").await;
    let last = s.model.last_model_request().unwrap();
    assert_eq!(
        turns_in(&last),
        ["t1.txt", "t2.txt", "t3.txt", "after the undo"],
        "{:?}",
        prompts(&last)
    );
    let err = host.undo_rewind(&thread).await.unwrap_err();
    assert_eq!(err.code(), "invalid_input", "{err}");

    // A rewind while a turn runs is busy.
    let running = host.start_turn(&thread, "SLOW reply").await.unwrap();
    let err = host
        .rewind(&thread, &to(1), RewindKind::Conversation, None)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "busy", "{err}");
    tokio::time::timeout(TURN, running).await.unwrap().unwrap();
    assert_eq!(host.show(&thread).await.unwrap().turns.len(), 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_rewinds_in_place_and_undoes() {
    rewind_and_undo(Harness::Claude).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pi_rewinds_in_place_and_undoes() {
    rewind_and_undo(Harness::Pi).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_rewinds_in_place_and_undoes() {
    rewind_and_undo(Harness::Codex).await;
}

/// Files only: the conversation stays, the folder goes back and forward; outside git and with
/// its folder gone a rewind is refused in words.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pi_rewinds_files_only_and_refuses_without_git_or_folder() {
    let Some(s) = setup(Harness::Pi).await else {
        return;
    };
    let repo = s.env.work_dir().to_path_buf();
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("README.md"), "hello\n").unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "start"]);
    let host = s.host().await;
    let thread = s.thread(&host, PermissionMode::default()).await;
    for n in ["t1", "t2"] {
        turn(&host, &thread, &writes(n)).await;
    }
    let plan = host
        .rewind_plan(&thread, &TurnRef::Number(1), RewindKind::Files)
        .await
        .unwrap();
    assert!(plan.loss.is_empty(), "{:?}", plan.loss);
    let done = host
        .rewind(&thread, &TurnRef::Number(1), RewindKind::Files, None)
        .await
        .unwrap();
    assert_eq!(done.rewind.branch_id, None);
    assert_eq!(done.thread.turns.len(), 2, "the conversation stays");
    assert!(!repo.join("t2.txt").exists());
    assert_eq!(read(&repo.join("notes.txt")), "t1");
    host.undo_rewind(&thread).await.unwrap();
    assert!(repo.join("t2.txt").exists());
    assert_eq!(read(&repo.join("notes.txt")), "t2");

    // Outside git.
    let plain = tempfile::tempdir().unwrap();
    let outside = host
        .create(NewThreadSpec {
            cwd: plain.path().to_owned(),
            ..s.spec(PermissionMode::default())
        })
        .await
        .unwrap()
        .thread
        .id;
    turn(&host, &outside, "one").await;
    turn(&host, &outside, "two").await;
    let err = host
        .rewind_plan(
            &outside,
            &TurnRef::Number(1),
            RewindKind::ConversationAndFiles,
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), "unsupported", "{err}");
    assert!(err.to_string().contains("not in a git repository"), "{err}");

    // The folder gone.
    let gone = plain.path().to_owned();
    drop(plain);
    let err = host
        .rewind(&outside, &TurnRef::Number(1), RewindKind::Files, None)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "invalid_input", "{err}");
    assert!(err.to_string().contains("is gone"), "{err}");
    assert!(!gone.exists());
    let err = host
        .rewind_plan(&outside, &TurnRef::Number(1), RewindKind::Conversation)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "invalid_input", "{err}");
    assert_eq!(host.show(&outside).await.unwrap().turns.len(), 2);
}
