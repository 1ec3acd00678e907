//! A fork's worktree over its life, in process: what removing it would lose (changed and
//! untracked files, ignored files made there, commits on its branch, other threads working
//! in it), a removal refused unless that loss is nothing or exactly what was accepted, a
//! thread running a turn there blocking it whatever was accepted, and a folder deleted outside
//! Forkhost shown as gone and only forgotten.

use std::path::{Path, PathBuf};

use super::test_repo::{after, checkpointed, fork_of, fork_ready};
use super::{ForkFiles, ThreadInFolder, WorktreeLoss};
use crate::base::events::HostEvent;
use crate::base::fork_point::ForkAt;
use crate::test_host::{git, TestHost};

/// A worktree fork after turn 1: its id, the folder of its thread and its worktree's top.
async fn worktree_fork(t: &TestHost) -> (String, PathBuf, PathBuf) {
    let made = fork_ready(t, &t.thread, after(1), ForkFiles::Worktree).await;
    let (fork, cwd) = fork_of(&made);
    let top = cwd.parent().unwrap().to_path_buf();
    (fork, cwd, top)
}

/// The threads of the `thread_changed` events sent so far.
fn changed_threads(events: &mut tokio::sync::broadcast::Receiver<HostEvent>) -> Vec<String> {
    let mut changed = Vec::new();
    while let Ok(event) = events.try_recv() {
        if let HostEvent::ThreadChanged { thread_id, .. } = event {
            changed.push(thread_id);
        }
    }
    changed
}

fn branches(repo: &Path) -> String {
    git(repo, &["branch", "--list", "forkhost/*"])
}

#[tokio::test]
async fn a_fresh_worktree_loses_nothing_and_is_removed_with_its_branch() {
    let t = checkpointed(1).await;
    let (fork, _, top) = worktree_fork(&t).await;
    assert!(!branches(&t.work()).is_empty());
    let loss = t.host.worktree_loss(&fork).await.unwrap();
    assert_eq!(
        loss,
        WorktreeLoss {
            exists: true,
            files: Vec::new(),
            commits: 0,
            ignored: Vec::new(),
            other_threads: Vec::new(),
        }
    );
    let mut events = t.host.subscribe();
    t.host.remove_worktree(&fork, None).await.unwrap();
    assert!(!top.exists());
    assert_eq!(branches(&t.work()), "", "its forkhost/ branch went with it");
    assert_eq!(git(&t.work(), &["worktree", "list"]).lines().count(), 1);
    let files = t.host.files(&fork).await.unwrap();
    assert_eq!(files.folder_kind, "folder", "the worktree is forgotten");
    assert!(!files.folder_exists);
    assert!(t.host.show(&fork).await.is_ok(), "the thread stays");
    assert!(changed_threads(&mut events).contains(&fork));
    // Nothing left to remove, nor to ask about.
    let again = t.host.remove_worktree(&fork, None).await.unwrap_err();
    assert_eq!(again.code(), "invalid_input", "{again}");
}

#[tokio::test]
async fn changed_ignored_and_committed_work_is_the_loss_and_only_accepting_it_removes_it() {
    let t = checkpointed(1).await;
    let repo = t.work();
    let (fork, cwd, top) = worktree_fork(&t).await;
    std::fs::write(top.join(".gitignore"), "*.db\n").unwrap();
    git(&top, &["add", ".gitignore"]);
    git(&top, &["commit", "-q", "-m", "ignore databases"]);
    std::fs::write(cwd.join("local.db"), "rows").unwrap();
    std::fs::write(cwd.join("notes.txt"), "edited in the fork").unwrap();

    let loss = t.host.worktree_loss(&fork).await.unwrap();
    assert!(loss.exists);
    assert_eq!(loss.files, ["w/notes.txt"]);
    assert_eq!(loss.ignored, ["w/local.db"]);
    assert_eq!(loss.commits, 1);
    assert!(loss.other_threads.is_empty());

    let kept = t.host.remove_worktree(&fork, None).await.unwrap_err();
    assert_eq!(kept.code(), "conflict", "{kept}");
    assert!(cwd.join("local.db").exists(), "nothing deleted");
    // A loss that is not exactly the one now (a file changed since it was shown) is asked again.
    let stale = WorktreeLoss {
        ignored: Vec::new(),
        ..loss.clone()
    };
    let kept = t
        .host
        .remove_worktree(&fork, Some(stale))
        .await
        .unwrap_err();
    assert_eq!(kept.code(), "conflict", "{kept}");
    assert!(top.exists());

    t.host.remove_worktree(&fork, Some(loss)).await.unwrap();
    assert!(!top.exists());
    assert_eq!(branches(&repo), "");
    assert_eq!(t.host.store().worktree(&fork).await.unwrap(), None);
}

#[tokio::test]
async fn another_thread_in_the_worktree_is_part_of_the_loss_and_a_running_one_blocks_it() {
    let t = checkpointed(1).await;
    let (fork, _, top) = worktree_fork(&t).await;
    let inside = t
        .host
        .fork_with(&fork, ForkAt::Latest, ForkFiles::SameFolder)
        .await
        .unwrap()
        .thread
        .thread;
    let archived = t
        .host
        .fork_with(&fork, ForkAt::Latest, ForkFiles::SameFolder)
        .await
        .unwrap()
        .thread
        .thread
        .id;
    t.host.archive(&archived, true).await.unwrap();

    let loss = t.host.worktree_loss(&fork).await.unwrap();
    assert_eq!(
        loss.other_threads,
        [ThreadInFolder {
            id: inside.id.clone(),
            title: inside.title.clone(),
        }],
        "the archived one is not counted"
    );
    assert!(loss.files.is_empty() && loss.ignored.is_empty());

    let refused = t.host.remove_worktree(&fork, None).await.unwrap_err();
    assert_eq!(refused.code(), "conflict", "{refused}");
    assert!(refused.to_string().contains(&inside.id), "{refused}");
    let unnamed = WorktreeLoss {
        other_threads: Vec::new(),
        ..loss.clone()
    };
    let refused = t
        .host
        .remove_worktree(&fork, Some(unnamed))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), "conflict", "{refused}");
    assert!(top.exists());

    let (_, turn) = t.attach_to(&inside.id, || Ok(true)).await;
    turn.begin(2);
    let busy = t
        .host
        .remove_worktree(&fork, Some(loss.clone()))
        .await
        .unwrap_err();
    assert_eq!(busy.code(), "busy", "{busy}");
    assert!(busy.to_string().contains(&inside.id), "{busy}");
    assert!(top.exists());
    turn.send_failed(false);

    let mut events = t.host.subscribe();
    t.host.remove_worktree(&fork, Some(loss)).await.unwrap();
    assert!(!top.exists());
    assert!(!t.host.files(&inside.id).await.unwrap().folder_exists);
    let changed = changed_threads(&mut events);
    assert!(changed.contains(&fork), "{changed:?}");
    assert!(changed.contains(&inside.id), "{changed:?}");
}

#[tokio::test]
async fn a_worktree_deleted_outside_is_shown_gone_and_removing_it_only_forgets_it() {
    let t = checkpointed(1).await;
    let (fork, _, top) = worktree_fork(&t).await;
    let inside = t
        .host
        .fork_with(&fork, ForkAt::Latest, ForkFiles::SameFolder)
        .await
        .unwrap()
        .thread
        .thread
        .id;
    std::fs::remove_dir_all(&top).unwrap();
    let loss = t.host.worktree_loss(&fork).await.unwrap();
    assert!(!loss.exists, "{loss:?}");
    assert!(
        loss.other_threads.is_empty(),
        "nothing of theirs is left to lose"
    );
    assert!(loss.files.is_empty() && loss.commits == 0);
    assert!(!t.host.files(&fork).await.unwrap().folder_exists);

    t.host.remove_worktree(&fork, None).await.unwrap();
    assert_eq!(t.host.store().worktree(&fork).await.unwrap(), None);
    assert_eq!(git(&t.work(), &["worktree", "list"]).lines().count(), 1);
    assert!(t.host.show(&inside).await.is_ok());
}

#[tokio::test]
async fn only_a_fork_with_a_worktree_of_a_repository_still_there_has_a_loss() {
    let t = checkpointed(1).await;
    let refused = t.host.worktree_loss(&t.thread).await.unwrap_err();
    assert_eq!(refused.code(), "invalid_input", "{refused}");
    assert!(refused.to_string().contains("no worktree"), "{refused}");
    let refused = t.host.remove_worktree(&t.thread, None).await.unwrap_err();
    assert_eq!(refused.code(), "invalid_input", "{refused}");
    let missing = t.host.worktree_loss("no-such-thread").await.unwrap_err();
    assert_eq!(missing.code(), "thread_not_found", "{missing}");

    let (fork, _, _) = worktree_fork(&t).await;
    std::fs::remove_dir_all(t.work().join(".git")).unwrap();
    let gone = t.host.worktree_loss(&fork).await.unwrap_err();
    assert_eq!(gone.code(), "unsupported", "{gone}");
    assert!(gone.to_string().contains("is gone"), "{gone}");
}
