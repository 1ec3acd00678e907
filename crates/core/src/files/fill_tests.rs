//! A fork's worktree filled after the fork returns, in process: a fill an earlier run of the
//! app cut short (its worktree still marked as filling) is finished before the files are used,
//! once per thread and run; one that fails removes the half-made worktree and says why to
//! whoever waits for the files.

use std::path::{Path, PathBuf};

use super::test_repo::{after, checkpointed, fork_of, fork_ready, read};
use super::ForkFiles;
use crate::base::events::HostEvent;
use crate::host::Host;
use crate::test_host::{git, TestHost};

/// A fork after turn 1 whose fill is left as if the app had ended during it: marked as
/// filling, `notes.txt` not written yet.
async fn cut_short(t: &TestHost) -> (String, PathBuf, PathBuf) {
    let made = fork_ready(t, &t.thread, after(1), ForkFiles::Worktree).await;
    let (fork, cwd) = fork_of(&made);
    let top = cwd.parent().unwrap().to_path_buf();
    let git_dir = PathBuf::from(git(&top, &["rev-parse", "--absolute-git-dir"]));
    std::fs::write(git_dir.join("forkhost-filling"), "").unwrap();
    std::fs::remove_file(cwd.join("notes.txt")).unwrap();
    (fork, cwd, top)
}

/// The app again: another Host on the same data folder.
async fn reopened(data: &Path) -> Host {
    let options = crate::HostOptions {
        hand_off_spares: true,
        ..Default::default()
    };
    Host::open_with(data, options).await.unwrap().0
}

#[tokio::test]
async fn a_fill_cut_short_is_finished_at_the_next_use_of_the_files() {
    let t = checkpointed(1).await;
    let (fork, cwd, _) = cut_short(&t).await;
    // This run checked the fork's worktree already (its fill ended here).
    t.host.files_ready(&fork).await.unwrap();
    assert!(!cwd.join("notes.txt").exists());

    let again = reopened(t.data_dir()).await;
    let mut events = again.subscribe();
    again.files_ready(&fork).await.unwrap();
    assert_eq!(read(&cwd.join("notes.txt")), "e1");
    assert_eq!(git(&cwd, &["status", "--porcelain"]), "");
    let files = again.files(&fork).await.unwrap();
    assert_eq!(files.preparing, None);
    assert_eq!(files.folder_kind, "worktree");
    let mut prepared = None;
    while let Ok(event) = events.try_recv() {
        if let HostEvent::FilesPrepared { thread_id, error } = event {
            assert_eq!(thread_id, fork);
            prepared = Some(error);
        }
    }
    assert_eq!(prepared, Some(None), "its end is sent");
}

#[tokio::test]
async fn a_fill_that_fails_removes_the_worktree_and_says_why() {
    let t = checkpointed(1).await;
    let (fork, _, top) = cut_short(&t).await;
    let branch = git(&top, &["symbolic-ref", "HEAD"]);
    // Its branch gone, the checkout cannot be written.
    git(&t.work(), &["update-ref", "-d", &branch]);

    let again = reopened(t.data_dir()).await;
    let refused = again.files_ready(&fork).await.unwrap_err();
    assert_eq!(refused.code(), "invalid_input", "{refused}");
    assert!(
        refused.to_string().contains("could not be written"),
        "{refused}"
    );
    assert!(!top.exists(), "the half-made worktree is removed");
    // Every later wait hears the same.
    let again_refused = again.files_ready(&fork).await.unwrap_err();
    assert_eq!(again_refused.to_string(), refused.to_string());
    assert!(again.show(&fork).await.is_ok(), "the conversation is kept");
}

#[tokio::test]
async fn a_thread_without_a_worktree_has_its_files_at_once() {
    let t = checkpointed(1).await;
    t.host.files_ready(&t.thread).await.unwrap();
    let same = t
        .host
        .fork_with(&t.thread, after(1), ForkFiles::SameFolder)
        .await
        .unwrap();
    t.host.files_ready(&same.thread.thread.id).await.unwrap();
}

#[tokio::test]
async fn stop_while_a_send_waits_for_the_files_ends_that_send_and_leaves_the_fill_alone() {
    use crate::base::thread_handle::FilesState;
    let t = crate::test_host::with_claude_thread().await;
    let slot = t.host.handle(&t.thread);
    slot.files.set(FilesState::Filling { done: 1, total: 10 });
    let waiting = tokio::spawn({
        let (host, slot) = (t.host.clone(), slot.clone());
        async move {
            host.wait_for_files(&slot)
                .await
                .map(|stopped| stopped.is_some())
        }
    });
    // Stop wakes only a send already waiting: pressed until the waiting one has ended.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !waiting.is_finished() {
        assert!(
            std::time::Instant::now() < deadline,
            "Stop never ended the send waiting for the files"
        );
        let _ = t.host.interrupt(&t.thread).await;
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(
        waiting.await.unwrap().unwrap(),
        "the send ended as stopped, not sent"
    );
    assert_eq!(
        slot.files.state(),
        FilesState::Filling { done: 1, total: 10 },
        "the fill goes on"
    );
}
