//! Checkpoints in process: a real Host and store, a Claude thread imported from a transcript
//! (`test_host.rs`) whose folder is made a git repository here, and `checkpoint_turn` called
//! as a turn's start and end would call it (no harness runs). Checked: the commit on the
//! hidden ref holds the folder's files, each continues from the one before, the user's HEAD,
//! branch and index are untouched, and a folder that gets none (outside git, in a repository
//! far wider than it) says so in its files view.

use std::path::Path;

use super::scope::OPT_IN_KEY;
use super::TurnEdge;
use crate::test_host::{claude_thread, claude_thread_in, committed_repo, git, ClaudeProgram};

fn write(folder: &Path, name: &str, text: &str) {
    std::fs::write(folder.join(name), text).unwrap();
}

#[tokio::test]
async fn a_folder_outside_git_gets_no_checkpoint_and_its_files_view_says_it_is_a_plain_folder() {
    let t = claude_thread(1, ClaudeProgram::None).await;
    write(t.folder(), "notes.txt", "one");
    let taken = t
        .host
        .checkpoint_turn(&t.thread, t.folder(), 1, TurnEdge::End)
        .await;
    assert_eq!(taken, None);
    let files = t.host.files(&t.thread).await.unwrap();
    assert!(!files.in_git, "{files:?}");
    assert!(files.folder_exists, "{files:?}");
    assert_eq!(files.folder_kind, "folder");
    assert_eq!(files.checkpoints_note, None);
    assert_eq!((files.branch, files.base_commit), (None, None));
    assert!(files.checkpoints.is_empty());
    assert_eq!(files.preparing, None);
}

#[tokio::test]
async fn each_turn_edge_is_a_commit_of_the_folders_files_continuing_from_the_last() {
    let t = claude_thread(2, ClaudeProgram::None).await;
    let folder = t.folder();
    committed_repo(folder);
    let head = git(folder, &["rev-parse", "HEAD"]);
    let index = std::fs::read(folder.join(".git/index")).unwrap();

    write(folder, "notes.txt", "s1");
    let s1 = t
        .host
        .checkpoint_turn(&t.thread, folder, 1, TurnEdge::Start)
        .await
        .expect("a checkpoint in git");
    write(folder, "notes.txt", "e1");
    write(folder, "a.txt", "changed\n");
    let e1 = t
        .host
        .checkpoint_turn(&t.thread, folder, 1, TurnEdge::End)
        .await
        .expect("a checkpoint in git");
    std::fs::remove_file(folder.join("a.txt")).unwrap();
    let s2 = t
        .host
        .checkpoint_turn(&t.thread, folder, 2, TurnEdge::Start)
        .await
        .unwrap();

    // The files as they were at each edge, on the thread's hidden refs.
    let show = |commit: &str, path: &str| git(folder, &["show", &format!("{commit}:{path}")]);
    assert_eq!(show(s1.as_str(), "notes.txt"), "s1");
    assert_eq!(show(s1.as_str(), "a.txt"), "a");
    assert_eq!(show(e1.as_str(), "notes.txt"), "e1");
    assert_eq!(show(e1.as_str(), "a.txt"), "changed");
    let in_s2 = git(folder, &["ls-tree", "--name-only", s2.as_str()]);
    assert_eq!(in_s2, "notes.txt", "a deleted file is gone from it");
    let at = |label: &str| {
        git(
            folder,
            &["rev-parse", &format!("refs/forkhost/{}/{label}", t.thread)],
        )
    };
    assert_eq!(at("t1-start"), s1.as_str());
    assert_eq!(at("t1-end"), e1.as_str());
    assert_eq!(at("t2-start"), s2.as_str());
    // The first continues from HEAD, each next one from the one before.
    let parent = |commit: &str| git(folder, &["rev-parse", &format!("{commit}^")]);
    assert_eq!(parent(s1.as_str()), head);
    assert_eq!(parent(e1.as_str()), s1.as_str());
    assert_eq!(parent(s2.as_str()), e1.as_str());

    // The user's side is as it was.
    assert_eq!(git(folder, &["rev-parse", "HEAD"]), head);
    assert_eq!(git(folder, &["symbolic-ref", "HEAD"]), "refs/heads/main");
    assert_eq!(std::fs::read(folder.join(".git/index")).unwrap(), index);
    assert_eq!(git(folder, &["stash", "list"]), "");

    let files = t.host.files(&t.thread).await.unwrap();
    assert!(files.in_git && files.folder_exists, "{files:?}");
    assert_eq!(files.folder_kind, "folder");
    assert_eq!(files.checkpoints_note, None);
    let listed: Vec<(i64, &str, &str)> = files
        .checkpoints
        .iter()
        .map(|c| (c.turn, c.edge.as_str(), c.commit.as_str()))
        .collect();
    assert_eq!(
        listed,
        [
            (1, "start", s1.as_str()),
            (1, "end", e1.as_str()),
            (2, "start", s2.as_str())
        ]
    );
    assert_eq!(t.host.latest_checkpoint(&t.thread).await, Some(s2.clone()));
    let edge = |n, edge| t.host.checkpoint_at(&t.thread, n, edge);
    assert_eq!(edge(1, TurnEdge::Start).await, Some(s1));
    assert_eq!(edge(1, TurnEdge::End).await, Some(e1));
    assert_eq!(edge(2, TurnEdge::Start).await, Some(s2));
    assert_eq!(edge(2, TurnEdge::End).await, None);
    assert_eq!(t.host.latest_checkpoint("no-such-thread").await, None);
}

#[tokio::test]
async fn a_checkpoint_again_at_the_same_edge_replaces_it_and_sees_what_changed_since() {
    let t = claude_thread(1, ClaudeProgram::None).await;
    let folder = t.folder();
    committed_repo(folder);
    let first = t
        .host
        .checkpoint_turn(&t.thread, folder, 1, TurnEdge::End)
        .await
        .unwrap();
    // Unchanged, through the folder's watch: the same files.
    let same = t
        .host
        .checkpoint_turn(&t.thread, folder, 1, TurnEdge::End)
        .await
        .unwrap();
    let tree = |c: &forkhost_worktree::Oid| git(folder, &["rev-parse", &format!("{c}^{{tree}}")]);
    assert_eq!(tree(&same), tree(&first));
    write(folder, "new.txt", "new");
    let after = t
        .host
        .checkpoint_turn(&t.thread, folder, 1, TurnEdge::End)
        .await
        .unwrap();
    assert_ne!(tree(&after), tree(&first), "the watch saw new.txt");
    assert_eq!(git(folder, &["show", &format!("{after}:new.txt")]), "new");
    let files = t.host.files(&t.thread).await.unwrap();
    assert_eq!(files.checkpoints.len(), 1, "one row per edge: {files:?}");
    assert_eq!(files.checkpoints[0].commit, after.as_str());
}

#[tokio::test]
async fn a_thread_whose_folder_is_gone_shows_it_gone_and_not_in_git() {
    let t = claude_thread(1, ClaudeProgram::None).await;
    committed_repo(t.folder());
    std::fs::remove_dir_all(t.folder()).unwrap();
    let files = t.host.files(&t.thread).await.unwrap();
    assert!(!files.folder_exists && !files.in_git, "{files:?}");
    let err = t.host.files("no-such-thread").await.unwrap_err();
    assert_eq!(err.code(), "thread_not_found", "{err}");
}

/// A repository five folders above the thread's folder is far wider than it: no checkpoint,
/// a note saying why and how to opt in; opted in, checkpoints hold only the thread's folder.
#[tokio::test]
async fn a_repository_far_above_the_folder_gets_none_until_opted_in_and_then_only_the_folder() {
    let t = claude_thread_in(1, ClaudeProgram::None, "a/b/c/d/e", |_| {}).await;
    let (repo, folder) = (t.work(), t.folder().to_path_buf());
    committed_repo(&repo);
    write(&repo, "outside.txt", "not the thread's");
    write(&folder, "inside.txt", "the thread's");

    let taken = t
        .host
        .checkpoint_turn(&t.thread, &folder, 1, TurnEdge::End)
        .await;
    assert_eq!(taken, None);
    assert_eq!(git(&repo, &["for-each-ref", "refs/forkhost/"]), "");
    let files = t.host.files(&t.thread).await.unwrap();
    assert!(files.in_git, "{files:?}");
    let note = files.checkpoints_note.expect("the files view says why");
    assert!(note.contains("5 folders above"), "{note}");
    assert!(note.contains(OPT_IN_KEY), "{note}");
    assert!(files.checkpoints.is_empty());

    git(&repo, &["config", OPT_IN_KEY, "true"]);
    let taken = t
        .host
        .checkpoint_turn(&t.thread, &folder, 1, TurnEdge::End)
        .await
        .expect("opted in");
    let files = t.host.files(&t.thread).await.unwrap();
    assert_eq!(files.checkpoints_note, None);
    assert_eq!(files.checkpoints.len(), 1);
    let paths = git(&repo, &["ls-tree", "-r", "--name-only", taken.as_str()]);
    let paths: Vec<&str> = paths.lines().collect();
    assert!(paths.contains(&"a/b/c/d/e/inside.txt"), "{paths:?}");
    assert!(!paths.contains(&"outside.txt"), "{paths:?}");

    // Opted out again (`false` is not `true`): none again.
    git(&repo, &["config", OPT_IN_KEY, "false"]);
    let taken = t
        .host
        .checkpoint_turn(&t.thread, &folder, 2, TurnEdge::End)
        .await;
    assert_eq!(taken, None);
}

#[tokio::test]
async fn the_harnesses_home_decides_what_is_too_wide() {
    let t = claude_thread(1, ClaudeProgram::None).await;
    let home = t.host.home_folder().expect("a HOME given to the harnesses");
    // The one `claude_thread` gives, not this process's.
    assert!(home.join(".claude/projects").is_dir(), "{}", home.display());
    committed_repo(&home);
    let err = t.host.checkpoint_repo(&home).await.unwrap_err();
    let note = err.note().expect("too wide");
    assert!(note.contains("is your home folder"), "{note}");
    committed_repo(t.folder());
    assert!(t.host.checkpoint_repo(t.folder()).await.is_ok());
}
