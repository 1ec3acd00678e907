//! Comparing and bringing back in process: a worktree fork (`test_repo.rs`) changes files in
//! its worktree as a turn would; `changes` lists exactly those against its fork point, or
//! against another thread's files; `bring_back` writes them into the source's folder as
//! uncommitted changes, or refuses (`conflict`, `invalid_input`, `unsupported`) with nothing
//! written.

use std::path::Path;

use super::test_repo::{after, checkpointed, fork_of, fork_ready, read};
use super::{FileChangeStatus, ForkFiles};
use crate::test_host::{claude_thread, committed_repo, git, TestHost};
use crate::{HarnessKind, NewThreadSpec};

/// A worktree fork after turn 1 that then edited `notes.txt`, added `new.txt` (two lines) and
/// deleted `t1.txt`.
async fn fork_with_changes(t: &TestHost) -> (String, std::path::PathBuf) {
    let made = fork_ready(t, &t.thread, after(1), ForkFiles::Worktree).await;
    let (fork, cwd) = fork_of(&made);
    std::fs::write(cwd.join("notes.txt"), "forked").unwrap();
    std::fs::write(cwd.join("new.txt"), "one\ntwo\n").unwrap();
    std::fs::remove_file(cwd.join("t1.txt")).unwrap();
    (fork, cwd)
}

fn statuses(view: &super::ChangesView) -> Vec<(&str, FileChangeStatus, usize, usize)> {
    view.files
        .iter()
        .map(|f| (f.path.as_str(), f.status, f.added_lines, f.removed_lines))
        .collect()
}

#[tokio::test]
async fn a_forks_changes_are_its_files_now_against_its_fork_point() {
    let t = checkpointed(1).await;
    let (fork, _) = fork_with_changes(&t).await;
    let base = t.host.files(&fork).await.unwrap().base_commit.unwrap();

    let changes = t.host.changes(&fork, None).await.unwrap();
    assert_eq!(changes.from, base);
    assert_ne!(changes.to, base);
    assert_eq!(
        git(
            &t.work(),
            &["rev-parse", &format!("refs/forkhost/{fork}/current")]
        ),
        changes.to,
        "the files now, on the fork's `current` ref"
    );
    assert_eq!(
        statuses(&changes),
        [
            ("w/new.txt", FileChangeStatus::Added, 2, 0),
            ("w/notes.txt", FileChangeStatus::Modified, 1, 1),
            ("w/t1.txt", FileChangeStatus::Deleted, 0, 0),
        ]
    );
    let notes = &changes.files[1];
    assert!(notes.diff.starts_with("diff --git"), "{}", notes.diff);
    assert!(
        notes.diff.contains("-e1") && notes.diff.contains("+forked"),
        "{}",
        notes.diff
    );
    assert!(!notes.binary && notes.old_path.is_none());

    // Against the source's files as they are now (turn 1's end): the same three, turned round.
    let against = t.host.changes(&t.thread, Some(&fork)).await.unwrap();
    // The fork's files recorded again: the same tree (the commit is new when a second has
    // passed since, as it may on a loaded machine).
    let tree = |commit: &str| git(&t.work(), &["rev-parse", &format!("{commit}^{{tree}}")]);
    assert_eq!(tree(&against.from), tree(&changes.to));
    assert_eq!(
        statuses(&against),
        [
            ("w/new.txt", FileChangeStatus::Deleted, 0, 2),
            ("w/notes.txt", FileChangeStatus::Modified, 1, 1),
            ("w/t1.txt", FileChangeStatus::Added, 0, 0),
        ]
    );
}

#[tokio::test]
async fn a_renamed_file_is_one_change_with_its_old_path_and_is_brought_back_as_a_rename() {
    let t = checkpointed(1).await;
    let made = fork_ready(&t, &t.thread, after(1), ForkFiles::Worktree).await;
    let (fork, cwd) = fork_of(&made);
    std::fs::rename(cwd.join("notes.txt"), cwd.join("moved.txt")).unwrap();
    let changes = t.host.changes(&fork, None).await.unwrap();
    assert_eq!(changes.files.len(), 1, "{changes:?}");
    let moved = &changes.files[0];
    assert_eq!(moved.path, "w/moved.txt");
    assert_eq!(moved.old_path.as_deref(), Some("w/notes.txt"));
    assert_eq!(moved.status, FileChangeStatus::Renamed);

    let brought = t.host.bring_back(&fork, &t.thread).await.unwrap();
    assert_eq!(brought.files, changes.files);
    assert_eq!(read(&t.folder().join("moved.txt")), "e1");
    assert!(!t.folder().join("notes.txt").exists());
}

#[test]
fn a_changes_status_has_one_word_each() {
    let words = [
        FileChangeStatus::Added,
        FileChangeStatus::Modified,
        FileChangeStatus::Deleted,
        FileChangeStatus::Renamed,
    ]
    .map(FileChangeStatus::as_str);
    assert_eq!(words, ["added", "modified", "deleted", "renamed"]);
}

#[tokio::test]
async fn bring_back_writes_the_forks_changes_into_the_source_as_uncommitted_changes() {
    let t = checkpointed(1).await;
    let (fork, _) = fork_with_changes(&t).await;
    let repo = t.work();
    let head = git(&repo, &["rev-parse", "HEAD"]);
    let index = std::fs::read(repo.join(".git/index")).unwrap();

    let brought = t.host.bring_back(&fork, &t.thread).await.unwrap();
    let paths: Vec<&str> = brought.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["w/new.txt", "w/notes.txt", "w/t1.txt"]);
    let folder = t.folder();
    assert_eq!(read(&folder.join("notes.txt")), "forked");
    assert_eq!(read(&folder.join("new.txt")), "one\ntwo\n");
    assert!(!folder.join("t1.txt").exists());
    assert_eq!(
        git(&repo, &["rev-parse", "HEAD"]),
        head,
        "nothing committed"
    );
    assert_eq!(
        std::fs::read(repo.join(".git/index")).unwrap(),
        index,
        "nor staged"
    );
}

#[tokio::test]
async fn bring_back_refuses_a_target_changed_in_a_file_the_fork_touched() {
    let t = checkpointed(1).await;
    let (fork, _) = fork_with_changes(&t).await;
    let folder = t.folder();
    std::fs::write(folder.join("notes.txt"), "the source moved on").unwrap();
    let refused = t.host.bring_back(&fork, &t.thread).await.unwrap_err();
    assert_eq!(refused.code(), "conflict", "{refused}");
    assert!(refused.to_string().contains("notes.txt"), "{refused}");
    assert_eq!(read(&folder.join("notes.txt")), "the source moved on");
    assert!(!folder.join("new.txt").exists(), "nothing written");
    assert!(folder.join("t1.txt").exists());
}

#[tokio::test]
async fn a_thread_without_a_worktree_has_no_fork_point_to_compare_with() {
    let t = checkpointed(1).await;
    let refused = t.host.changes(&t.thread, None).await.unwrap_err();
    assert_eq!(refused.code(), "unsupported", "{refused}");
    assert!(
        refused
            .to_string()
            .contains("not a fork with its own files"),
        "{refused}"
    );
    // Nor anything to bring back.
    let same = t
        .host
        .fork_with(&t.thread, after(1), ForkFiles::SameFolder)
        .await
        .unwrap();
    let refused = t
        .host
        .bring_back(&same.thread.thread.id, &t.thread)
        .await
        .unwrap_err();
    assert_eq!(refused.code(), "unsupported", "{refused}");
}

#[tokio::test]
async fn threads_outside_git_or_without_a_folder_have_nothing_to_compare() {
    let plain = claude_thread(1, crate::test_host::ClaudeProgram::None).await;
    let refused = plain.host.changes(&plain.thread, None).await.unwrap_err();
    assert_eq!(refused.code(), "unsupported", "{refused}");
    assert!(
        refused.to_string().contains("not in a git repository"),
        "{refused}"
    );
    let refused = plain
        .host
        .bring_back(&plain.thread, &plain.thread)
        .await
        .unwrap_err();
    assert_eq!(refused.code(), "unsupported", "{refused}");

    let t = checkpointed(1).await;
    let (fork, cwd) = fork_with_changes(&t).await;
    std::fs::remove_dir_all(t.folder()).unwrap();
    let refused = t.host.bring_back(&fork, &t.thread).await.unwrap_err();
    assert_eq!(refused.code(), "invalid_input", "{refused}");
    assert!(refused.to_string().contains("is gone"), "{refused}");
    let refused = t.host.changes(&fork, Some(&t.thread)).await.unwrap_err();
    assert_eq!(refused.code(), "invalid_input", "{refused}");
    assert!(cwd.join("new.txt").exists());
}

#[tokio::test]
async fn threads_of_two_repositories_are_neither_compared_nor_brought_together() {
    let t = checkpointed(1).await;
    let (fork, _) = fork_with_changes(&t).await;
    let other = tempfile::tempdir().unwrap();
    let other_folder = dunce::canonicalize(other.path()).unwrap();
    committed_repo(&other_folder);
    let elsewhere = t
        .host
        .create(NewThreadSpec {
            harness: HarnessKind::Claude,
            cwd: other_folder.clone(),
            title: None,
            permissions: Default::default(),
        })
        .await
        .unwrap()
        .thread
        .id;
    let refused = t.host.bring_back(&fork, &elsewhere).await.unwrap_err();
    assert_eq!(refused.code(), "invalid_input", "{refused}");
    assert!(
        refused.to_string().contains("different repositories"),
        "{refused}"
    );
    assert_eq!(read(&other_folder.join("a.txt")), "a\n");
    assert!(!Path::new(&other_folder.join("new.txt")).exists());
    let refused = t.host.changes(&fork, Some(&elsewhere)).await.unwrap_err();
    assert_eq!(refused.code(), "invalid_input", "{refused}");
    assert!(
        refused.to_string().contains("different repositories"),
        "{refused}"
    );
}
