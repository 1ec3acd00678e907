//! Pruning in process: only threads archived longer than the setting lose their checkpoint
//! refs (theirs only), never while a fork still uses one of their commits; a worktree fork's
//! refs are found in its repository even with its folder gone; a repository that is gone is
//! passed over; spare worktrees of no repository go too.

use super::test_repo::{after, before, checkpointed, fork_of, fork_ready};
use super::{ForkFiles, TurnEdge};
use crate::test_host::{git, TestHost};

fn refs(t: &TestHost, thread: &str) -> String {
    git(
        &t.work(),
        &["for-each-ref", &format!("refs/forkhost/{thread}/")],
    )
}

#[tokio::test]
async fn only_a_thread_archived_longer_than_the_setting_loses_its_checkpoints() {
    let t = checkpointed(1).await;
    let head = git(&t.work(), &["rev-parse", "HEAD"]);
    assert_eq!(
        t.host.prune_checkpoints(0).await.unwrap(),
        0,
        "not archived"
    );
    assert_eq!(refs(&t, &t.thread).lines().count(), 2);

    t.host.archive(&t.thread, true).await.unwrap();
    assert_eq!(
        t.host.prune_checkpoints(30).await.unwrap(),
        0,
        "not old enough"
    );
    assert_eq!(refs(&t, &t.thread).lines().count(), 2);
    assert_eq!(t.host.files(&t.thread).await.unwrap().checkpoints.len(), 2);

    assert_eq!(t.host.prune_checkpoints(0).await.unwrap(), 1);
    assert_eq!(refs(&t, &t.thread), "");
    assert!(t
        .host
        .files(&t.thread)
        .await
        .unwrap()
        .checkpoints
        .is_empty());
    assert_eq!(git(&t.work(), &["rev-parse", "HEAD"]), head);
    assert_eq!(git(&t.work(), &["branch", "--list", "main"]), "* main");
    assert_eq!(
        t.host.prune_checkpoints(0).await.unwrap(),
        0,
        "nothing left to prune"
    );
}

#[tokio::test]
async fn checkpoints_a_fork_still_uses_are_kept() {
    let t = checkpointed(1).await;
    t.host
        .fork_with(&t.thread, after(1), ForkFiles::SameFolder)
        .await
        .unwrap();
    t.host.archive(&t.thread, true).await.unwrap();
    assert_eq!(t.host.prune_checkpoints(0).await.unwrap(), 0);
    assert_eq!(refs(&t, &t.thread).lines().count(), 2);
    assert_eq!(t.host.files(&t.thread).await.unwrap().checkpoints.len(), 2);
}

#[tokio::test]
async fn a_worktree_forks_checkpoints_are_pruned_in_its_repository_with_its_folder_gone() {
    let t = checkpointed(1).await;
    let made = fork_ready(&t, &t.thread, before(1), ForkFiles::Worktree).await;
    let (fork, cwd) = fork_of(&made);
    std::fs::write(cwd.join("fork.txt"), "its own").unwrap();
    t.host
        .checkpoint_turn(&fork, &cwd, 1, TurnEdge::End)
        .await
        .unwrap();
    assert_eq!(refs(&t, &fork).lines().count(), 1);
    std::fs::remove_dir_all(cwd.parent().unwrap()).unwrap();
    t.host.archive(&fork, true).await.unwrap();

    assert_eq!(t.host.prune_checkpoints(0).await.unwrap(), 1);
    assert_eq!(refs(&t, &fork), "");
    assert_eq!(refs(&t, &t.thread).lines().count(), 2, "its source's stay");
}

#[tokio::test]
async fn a_repository_that_is_gone_is_passed_over() {
    let t = checkpointed(1).await;
    t.host.archive(&t.thread, true).await.unwrap();
    std::fs::remove_dir_all(t.work().join(".git")).unwrap();
    assert_eq!(t.host.prune_checkpoints(0).await.unwrap(), 0);
    assert_eq!(
        t.host.store().checkpoints(&t.thread).await.unwrap().len(),
        2,
        "kept in the store: nothing was pruned"
    );
}

#[tokio::test]
async fn pruning_removes_the_spares_of_repositories_that_are_gone() {
    let t = checkpointed(1).await;
    let spare = t.data_dir().join("worktrees/gone-0123abcd/spare");
    std::fs::create_dir_all(&spare).unwrap();
    std::fs::write(
        spare.join(".git"),
        "gitdir: /no/such/repo/.git/worktrees/spare\n",
    )
    .unwrap();
    assert_eq!(t.host.prune_checkpoints(30).await.unwrap(), 0);
    assert!(!spare.exists());
}
