//! Worktree forks in process, on Claude's lazy fork (no Claude runs): the fork's worktree is
//! made under the data folder from the checkpoint of its fork point, written after the fork
//! returns, on a `forkhost/` branch; `Auto` and `SameFolder` decide as documented; a folder
//! that gets no checkpoints refuses an explicit worktree in words and leaves no thread; the
//! repository's next spare is left to the caller (`hand_off_spares`) and claimed by the next
//! fork.

use std::path::PathBuf;

use super::test_repo::{after, before, checkpointed, checkpointed_with, fork_of, fork_ready, read};
use super::ForkFiles;
use crate::base::fork_point::ForkAt;
use crate::test_host::{claude_thread, claude_thread_in, committed_repo, git, ClaudeProgram};

#[tokio::test]
async fn a_worktree_fork_holds_the_files_of_its_fork_point_on_a_branch_of_its_own() {
    let t = checkpointed(2).await;
    let repo = t.work();
    let source_head = git(&repo, &["rev-parse", "HEAD"]);
    std::fs::write(t.folder().join("notes.txt"), "now").unwrap();

    let made = t
        .host
        .fork_with(&t.thread, after(1), ForkFiles::Worktree)
        .await
        .unwrap();
    assert!(made.files_pending, "its files are written after it returns");
    assert_eq!(made.files_note, None);
    let (fork, cwd) = fork_of(&made);
    t.host.files_ready(&fork).await.unwrap();

    // `<data>/worktrees/<repository>-<hash>/<fork id>`, the thread's folder inside it.
    let worktree = cwd.parent().unwrap().to_path_buf();
    assert_eq!(cwd.file_name().unwrap(), "w");
    assert_eq!(worktree.file_name().unwrap().to_str(), Some(fork.as_str()));
    let repos = dunce::canonicalize(t.data_dir().join("worktrees")).unwrap();
    let in_repos = dunce::canonicalize(worktree.parent().unwrap()).unwrap();
    assert_eq!(in_repos.parent().unwrap(), repos);
    // One folder per repository: its name, then 8 hex digits of its root's hash.
    let name = in_repos.file_name().unwrap().to_string_lossy().into_owned();
    let (_, hash) = name.rsplit_once('-').unwrap();
    assert!(
        hash.len() == 8 && hash.chars().all(|c| c.is_ascii_hexdigit()),
        "{name}"
    );

    assert_eq!(read(&cwd.join("notes.txt")), "e1", "turn 1's end");
    assert!(cwd.join("t1.txt").exists() && !cwd.join("t2.txt").exists());
    assert_eq!(read(&worktree.join("a.txt")), "a\n");
    assert_eq!(
        read(&t.folder().join("notes.txt")),
        "now",
        "the source's files stay"
    );
    assert_eq!(git(&repo, &["rev-parse", "HEAD"]), source_head);

    let branch = git(&cwd, &["symbolic-ref", "--short", "HEAD"]);
    let title = made.thread.thread.title.clone();
    assert!(branch.starts_with("forkhost/"), "{branch} ({title})");
    let id_part: String = fork
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(8)
        .collect();
    assert!(branch.ends_with(&id_part), "{branch}");
    let base = t
        .host
        .checkpoint_at(&t.thread, 1, super::TurnEdge::End)
        .await
        .unwrap();
    assert_eq!(git(&cwd, &["rev-parse", "HEAD"]), base.as_str());

    let files = t.host.files(&fork).await.unwrap();
    assert_eq!(files.folder_kind, "worktree");
    assert!(files.in_git && files.folder_exists, "{files:?}");
    assert_eq!(files.branch.as_deref(), Some(branch.as_str()));
    assert_eq!(files.base_commit.as_deref(), Some(base.as_str()));
    assert_eq!(files.preparing, None);
    let kept: Vec<(i64, &str)> = files
        .checkpoints
        .iter()
        .map(|c| (c.turn, c.edge.as_str()))
        .collect();
    assert_eq!(kept, [(1, "start"), (1, "end")], "the turns it keeps");
    let row = t.host.store().worktree(&fork).await.unwrap().unwrap();
    assert_eq!(PathBuf::from(&row.path), worktree);
    assert_eq!(PathBuf::from(&row.repo_root), repo);
}

#[tokio::test]
async fn before_a_turn_the_worktree_holds_its_start_and_at_the_latest_its_end() {
    let t = checkpointed(2).await;
    let (_, before_two) = fork_of(&fork_ready(&t, &t.thread, before(2), ForkFiles::Worktree).await);
    assert_eq!(read(&before_two.join("notes.txt")), "s2");
    assert!(before_two.join("t1.txt").exists() && !before_two.join("t2.txt").exists());

    let latest = fork_ready(&t, &t.thread, ForkAt::Latest, ForkFiles::Worktree).await;
    let (_, at_latest) = fork_of(&latest);
    assert_eq!(read(&at_latest.join("notes.txt")), "e2");
    assert!(at_latest.join("t2.txt").exists());
    assert_ne!(before_two, at_latest, "a worktree each");
    assert_ne!(
        git(&before_two, &["symbolic-ref", "HEAD"]),
        git(&at_latest, &["symbolic-ref", "HEAD"])
    );
}

#[tokio::test]
async fn a_fork_point_without_a_checkpoint_starts_from_the_current_files_and_says_so() {
    // Turn 2 of this thread has none: hosted before Forkhost recorded its files.
    let longer = claude_thread_in(2, ClaudeProgram::VersionOnly, "w", |_| {}).await;
    committed_repo(longer.folder());
    std::fs::write(longer.folder().join("notes.txt"), "current").unwrap();
    let made = longer
        .host
        .fork_with(&longer.thread, after(2), ForkFiles::Worktree)
        .await
        .unwrap();
    let note = made.files_note.clone().expect("a note");
    assert!(note.contains("current files"), "{note}");
    let (fork, cwd) = fork_of(&made);
    longer.host.files_ready(&fork).await.unwrap();
    assert_eq!(read(&cwd.join("notes.txt")), "current");
    let snapshot = git(
        longer.folder(),
        &[
            "rev-parse",
            &format!("refs/forkhost/{}/fork-{fork}", longer.thread),
        ],
    );
    let files = longer.host.files(&fork).await.unwrap();
    assert_eq!(files.base_commit.as_deref(), Some(snapshot.as_str()));
}

#[tokio::test]
async fn auto_forks_into_a_worktree_only_where_there_are_checkpoints_and_same_folder_never() {
    let t = checkpointed(1).await;
    let source_cwd = t.folder().display().to_string();
    let same = t
        .host
        .fork_with(&t.thread, after(1), ForkFiles::SameFolder)
        .await
        .unwrap();
    assert_eq!(same.thread.thread.cwd, source_cwd);
    assert!(!same.files_pending && same.files_note.is_none());
    let same_files = t.host.files(&same.thread.thread.id).await.unwrap();
    assert_eq!(same_files.folder_kind, "folder");
    assert_eq!(
        same_files.checkpoints.len(),
        2,
        "it keeps the source's checkpoints"
    );

    let auto = t.host.fork(&t.thread, after(1)).await.unwrap();
    assert!(auto.files_pending, "checkpoints: a worktree");
    assert_ne!(auto.thread.thread.cwd, source_cwd);
    t.host.files_ready(&auto.thread.thread.id).await.unwrap();

    // In git but without checkpoints: the same folder, and no note.
    let bare = claude_thread(1, ClaudeProgram::VersionOnly).await;
    committed_repo(bare.folder());
    let auto = bare.host.fork(&bare.thread, after(1)).await.unwrap();
    assert_eq!(auto.thread.thread.cwd, bare.folder().display().to_string());
    assert!(!auto.files_pending && auto.files_note.is_none());
    assert_eq!(git(bare.folder(), &["worktree", "list"]).lines().count(), 1);
}

#[tokio::test]
async fn outside_git_a_worktree_is_refused_in_words_and_leaves_no_thread() {
    let t = claude_thread(1, ClaudeProgram::VersionOnly).await;
    let refused = t
        .host
        .fork_with(&t.thread, after(1), ForkFiles::Worktree)
        .await
        .unwrap_err();
    assert_eq!(refused.code(), "unsupported", "{refused}");
    assert!(
        refused.to_string().contains("not in a git repository"),
        "{refused}"
    );
    assert_eq!(t.host.threads().await.unwrap().len(), 1);

    let auto = t.host.fork(&t.thread, after(1)).await.unwrap();
    assert_eq!(auto.thread.thread.cwd, t.folder().display().to_string());
    assert_eq!(auto.files_note, None, "no note on every fork outside git");
    assert!(!auto.files_pending);
}

#[tokio::test]
async fn a_repository_too_wide_refuses_a_worktree_with_its_reason() {
    let t = claude_thread_in(1, ClaudeProgram::VersionOnly, "a/b/c/d/e", |_| {}).await;
    committed_repo(&t.work());
    let refused = t
        .host
        .fork_with(&t.thread, after(1), ForkFiles::Worktree)
        .await
        .unwrap_err();
    assert_eq!(refused.code(), "unsupported", "{refused}");
    let text = refused.to_string();
    assert!(
        text.contains("5 folders above") && text.contains("same folder"),
        "{text}"
    );
    assert_eq!(t.host.threads().await.unwrap().len(), 1);
    assert_eq!(git(&t.work(), &["branch", "--list", "forkhost/*"]), "");
    let auto = t.host.fork(&t.thread, after(1)).await.unwrap();
    assert_eq!(auto.thread.thread.cwd, t.folder().display().to_string());
}

/// A fork's first checkpoint continues from the commit its worktree started at; with nothing
/// changed since the fill it is that commit.
#[tokio::test]
async fn a_forks_first_checkpoint_continues_from_its_base() {
    let t = checkpointed(1).await;
    let made = fork_ready(&t, &t.thread, before(1), ForkFiles::Worktree).await;
    let (fork, cwd) = fork_of(&made);
    let base = t.host.files(&fork).await.unwrap().base_commit.unwrap();
    assert!(
        t.host.files(&fork).await.unwrap().checkpoints.is_empty(),
        "it kept no turn"
    );
    let quiet = t
        .host
        .checkpoint_turn(&fork, &cwd, 1, super::TurnEdge::Start)
        .await
        .unwrap();
    assert_eq!(quiet.as_str(), base);
    std::fs::write(cwd.join("fork.txt"), "mine").unwrap();
    let changed = t
        .host
        .checkpoint_turn(&fork, &cwd, 1, super::TurnEdge::End)
        .await
        .unwrap();
    assert_eq!(git(&cwd, &["rev-parse", &format!("{changed}^")]), base);
    assert_eq!(
        git(&cwd, &["show", &format!("{changed}:w/fork.txt")]),
        "mine"
    );
}

#[tokio::test]
async fn the_next_fork_claims_the_spare_the_caller_filled() {
    let t = checkpointed(2).await;
    let repo = t.work();
    let (first, _) = fork_of(&fork_ready(&t, &t.thread, after(1), ForkFiles::Worktree).await);
    assert!(!t.host.fork_claimed_spare(&first), "no spare yet");
    assert_eq!(t.host.spare_worktree(&repo).await, None);
    // The fill left the repository's spare to the caller, at the fork's base.
    let base = t.host.files(&first).await.unwrap().base_commit.unwrap();
    let jobs = t.host.spare_jobs();
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    assert_eq!(jobs[0].repository, repo);
    assert_eq!(jobs[0].at, base);
    assert!(t.host.spare_jobs().is_empty(), "each once");

    t.host.fill_spare(&jobs[0]).await.unwrap();
    let spare = t.host.spare_worktree(&repo).await.expect("a spare");
    assert_eq!(spare.file_name().unwrap(), "spare");
    assert_eq!(read(&spare.join("w/notes.txt")), "e1");
    // A second fill of it does nothing.
    t.host.fill_spare(&jobs[0]).await.unwrap();

    let (second, cwd) = fork_of(&fork_ready(&t, &t.thread, after(2), ForkFiles::Worktree).await);
    assert!(t.host.fork_claimed_spare(&second));
    assert!(!spare.exists() || t.host.spare_worktree(&repo).await.is_none());
    assert_eq!(cwd.parent().unwrap().parent(), spare.parent());
    assert_eq!(read(&cwd.join("notes.txt")), "e2");
    assert!(cwd.join("t2.txt").exists());
    assert_eq!(git(&cwd, &["status", "--porcelain"]), "");
}

#[tokio::test]
async fn a_long_lived_host_fills_the_spare_itself_and_the_next_fork_claims_it() {
    let t = checkpointed_with(2, |o| o.hand_off_spares = false).await;
    let repo = t.work();
    let (first, _) = fork_of(&fork_ready(&t, &t.thread, after(1), ForkFiles::Worktree).await);
    assert!(!t.host.fork_claimed_spare(&first));
    // Filled in the background after the fork, nothing left to a caller; waited for, so no
    // fill outlives the test's folders.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let spare = loop {
        if let Some(spare) = t.host.spare_worktree(&repo).await {
            break spare;
        }
        assert!(std::time::Instant::now() < deadline, "no spare was filled");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert!(t.host.spare_jobs().is_empty(), "nothing handed off");
    assert_eq!(read(&spare.join("w/notes.txt")), "e1");

    let (second, cwd) = fork_of(&fork_ready(&t, &t.thread, after(2), ForkFiles::Worktree).await);
    assert!(t.host.fork_claimed_spare(&second));
    assert_eq!(read(&cwd.join("notes.txt")), "e2");
    // The claim asks for the next spare, filled in the background again: waited for too.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while t.host.spare_worktree(&repo).await.is_none() {
        assert!(std::time::Instant::now() < deadline, "no next spare");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_spare_is_filled_only_for_a_repository_and_a_commit() {
    let t = claude_thread(1, ClaudeProgram::None).await;
    let job = |repository: PathBuf, at: &str| crate::SpareJob {
        repository,
        at: at.into(),
    };
    let outside = t
        .host
        .fill_spare(&job(t.folder().to_path_buf(), &"0".repeat(40)))
        .await
        .unwrap_err();
    assert_eq!(outside.code(), "invalid_input", "{outside}");
    assert!(
        outside.to_string().contains("not in a git repository"),
        "{outside}"
    );
    committed_repo(t.folder());
    let bad = t
        .host
        .fill_spare(&job(t.folder().to_path_buf(), "HEAD"))
        .await
        .unwrap_err();
    assert_eq!(bad.code(), "invalid_input", "{bad}");
    assert!(bad.to_string().contains("not a commit id"), "{bad}");
    assert_eq!(t.host.spare_worktree(t.folder()).await, None);
}
